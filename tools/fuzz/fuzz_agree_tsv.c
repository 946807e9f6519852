/*
** fuzz_agree_tsv.c: libFuzzer driver for the agreement table reader (`rescue agree
** --input`). The first byte picks the level; the rest is the TSV. What reads must also
** compute and print without fault.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON -DRESCUE_TESTS=OFF
**        && cmake --build build-fuzz --target fuzz_agree_tsv
** run:   mkdir -p build-fuzz/corpus/agree_tsv && ./build-fuzz/fuzz_agree_tsv -max_total_time=120 -timeout=1
**        -artifact_prefix=build-fuzz/ build-fuzz/corpus/agree_tsv tools/fuzz/agree_tsv
**        (new inputs go to the first folder; the seeds in tools/fuzz/agree_tsv stay as they are)
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rescue_agree.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const rescue_agree_level levels[] = {
      RESCUE_LEVEL_NOMINAL, RESCUE_LEVEL_ORDINAL, RESCUE_LEVEL_INTERVAL, RESCUE_LEVEL_RATIO,
      RESCUE_LEVEL_MASI,    RESCUE_LEVEL_JACCARD, RESCUE_LEVEL_TEXT};
  rescue_agree_data *d = NULL;
  rescue_agree_result r;
  rescue_agree_opts o = {0};
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_error err;
  char path[512];
  if (size < 1)
    return 0;
  fuzz_file(path, sizeof path, "agree.tsv", data + 1, size - 1);
  if (rescue_agree_read_tsv(path, levels[data[0] % 7], &d, &err) != 0) {
    if (!*err.msg)
      abort();
    return 0;
  }
  memset(&r, 0, sizeof r);
  if (rescue_agree_compute(d, &o, &r) == 0) {
    rescue_agree_result_text(d, &r, "value", &out);
    rescue_agree_result_clear(&r);
  }
  rescue_buf_clear(&out);
  rescue_agree_data_free(&d);
  return 0;
}
