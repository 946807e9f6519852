/*
** bench_subtitles.c: the subtitle parser stays linear on hostile cues. One cue of N bytes
** of unclosed '<', of unclosed '{\', and of ordinary dialogue (the reference, same run),
** for N = 256 KiB .. 2 MiB: time per byte should stay flat as N doubles and the hostile
** cues should cost about what dialogue costs (a quadratic scan took 61 s at 2 MiB).
**
** usage: bench_subtitles
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rescue.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Seconds to parse one SRT cue whose text is `unit` repeated to n bytes (best of 3). */
static double parse_time(const char *unit, size_t n) {
  static const char head[] = "1\n00:00:01,000 --> 00:00:02,000\n";
  size_t ul = strlen(unit), hl = sizeof head - 1, i;
  char *t = malloc(hl + n + 2);
  double best = 1e9;
  int k;
  if (!t)
    exit(1);
  memcpy(t, head, hl);
  for (i = 0; i + ul <= n; i += ul)
    memcpy(t + hl + i, unit, ul);
  t[hl + i] = '\n';
  for (k = 0; k < 3; k++) {
    rescue_cues c;
    rescue_error e = RESCUE_ERROR_INIT;
    double t0 = now();
    if (rescue_subtitles_parse("bench.srt", t, hl + i + 1, 0, &c, &e)) {
      fprintf(stderr, "bench_subtitles: %s\n", e.msg);
      exit(1);
    }
    t0 = now() - t0;
    if (t0 < best)
      best = t0;
    rescue_cues_clear(&c);
  }
  free(t);
  return best;
}

int main(void) {
  static const struct {
    const char *name, *unit;
  } kinds[] = {{"dialogue (reference)", "Anna: I said so. "},
               {"unclosed '<'", "<"},
               {"unclosed '{\\'", "{\\"}};
  size_t n;
  unsigned k;
  printf("%-22s %10s %12s %12s\n", "cue of", "bytes", "ms", "ns/byte");
  for (k = 0; k < sizeof kinds / sizeof kinds[0]; k++)
    for (n = 256u << 10; n <= 2u << 20; n *= 2) {
      double s = parse_time(kinds[k].unit, n);
      printf("%-22s %10zu %12.2f %12.2f\n", kinds[k].name, n, s * 1e3, s * 1e9 / (double)n);
    }
  return 0;
}
