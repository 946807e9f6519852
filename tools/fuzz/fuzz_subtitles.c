/*
** fuzz_subtitles.c: libFuzzer driver for the SRT and WebVTT parser. Every input is parsed
** as both; what parses must hold its own promises: cues in start order, none ending
** before it starts, text and speaker valid strings.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON -DRESCUE_TESTS=OFF
**        && cmake --build build-fuzz --target fuzz_subtitles
** run:   mkdir -p build-fuzz/corpus/subtitles && ./build-fuzz/fuzz_subtitles -max_total_time=120 -timeout=1
**        -artifact_prefix=build-fuzz/ build-fuzz/corpus/subtitles tools/fuzz/subtitles
**        (new inputs go to the first folder; the seeds in tools/fuzz/subtitles stay as they are)
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_subtitles.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  /* the importer hands the parser a NUL-terminated copy of the file (rescue_read_file) */
  char *text = malloc(size + 1);
  int vtt;
  if (!text)
    abort();
  memcpy(text, data, size);
  text[size] = 0;
  for (vtt = 0; vtt <= 1; vtt++) {
    rescue_cues cues;
    rescue_error err;
    int i;
    memset(&cues, 0, sizeof cues);
    if (rescue_subtitles_parse("fuzz", text, size, vtt, &cues, &err) == 0) {
      for (i = 0; i < cues.n; i++) {
        if (cues.v[i].end < cues.v[i].start || !cues.v[i].text || !cues.v[i].speaker)
          abort();
        if (i && cues.v[i].start < cues.v[i - 1].start)
          abort();
        (void)strlen(cues.v[i].text);
        (void)strlen(cues.v[i].speaker);
      }
    } else if (!*err.msg) {
      abort(); /* a refusal always says why */
    }
    rescue_cues_clear(&cues);
  }
  free(text);
  return 0;
}
