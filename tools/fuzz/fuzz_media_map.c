/*
** fuzz_media_map.c: libFuzzer driver for the `rescue media add --map` TSV reader. What
** reads must keep its promises: every link has a safe sample id, a video path, and a span
** that is empty or ends after it starts.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON -DRESCUE_TESTS=OFF
**        && cmake --build build-fuzz --target fuzz_media_map
** run:   mkdir -p build-fuzz/corpus/media_map && ./build-fuzz/fuzz_media_map -max_total_time=120 -timeout=1
**        -artifact_prefix=build-fuzz/ build-fuzz/corpus/media_map tools/fuzz/media_map
**        (new inputs go to the first folder; the seeds in tools/fuzz/media_map stay as they are)
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rescue_media.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rescue_media_map map;
  rescue_error err;
  char path[512];
  int i;
  fuzz_file(path, sizeof path, "map.tsv", data, size);
  if (rescue_media_map_read(path, &map, &err) != 0) {
    if (!*err.msg)
      abort();
    return 0;
  }
  for (i = 0; i < map.n; i++) {
    const rescue_media_link *lk = &map.links[i];
    if (!lk->sample_id || rescue_sample_id_unsafe(lk->sample_id, strlen(lk->sample_id)))
      abort();
    if (!lk->video || !*lk->video)
      abort();
    if (lk->has_span && !(lk->start >= 0 && lk->end > lk->start))
      abort();
  }
  rescue_media_map_clear(&map);
  return 0;
}
