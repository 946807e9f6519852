/*
** bench_hardening.c: how the inputs that once blew up scale, each run at two sizes ten
** times apart in the same process, so the ratio (not the machine) tells: linear or
** n log n work grows about 10x, quadratic work 100x.
**   sets:   `agree --input --level masi`, two sets of 20,000 / 200,000 elements
**           (written in descending order, an insertion sort's worst case);
**   coders: `agree --input --level nominal`, 500 / 5,000 coders, 3 per unit, 20,000
**           units (peak memory too: pairwise tables once took 1.85 GB at 5,000);
**   map:    `media add --map`, 800 / 8,000 lines naming one video (probed once).
**
** usage: bench_hardening [--dir DIR]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchutil.h"
#include "rescue.h"

static char dir[2048];

static const char *at(const char *name) {
  static char ring[4][4096];
  static int k;
  char *p = ring[k++ & 3];
  snprintf(p, sizeof ring[0], "%s/%s", dir, name);
  return p;
}

static void write_text(const char *path, const rescue_buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f || !rescue_buf_ok(b) || fwrite(b->s, 1, b->len, f) != b->len || fclose(f) != 0) {
    fprintf(stderr, "bench_hardening: cannot write %s\n", path);
    exit(1);
  }
}

static void gen_sets(const char *path, int n) {
  rescue_buf b = RESCUE_BUF_INIT;
  int c, i;
  for (c = 0; c < 2; c++) {
    rescue_buf_printf(&b, "big\t%s\t[", c ? "b" : "a");
    for (i = n - 1; i >= c; i--)
      rescue_buf_printf(&b, "%s\"e%07d\"", i == n - 1 ? "" : ",", i);
    rescue_buf_puts(&b, "]\n");
  }
  rescue_buf_puts(&b, "u2\ta\t[\"x\"]\nu2\tb\t[\"y\"]\n");
  write_text(path, &b);
  rescue_buf_clear(&b);
}

static void gen_coders(const char *path, int coders) {
  rescue_buf b = RESCUE_BUF_INIT;
  int u, k;
  bench_seed(7);
  for (u = 0; u < 20000; u++) {
    unsigned first = bench_next() % (unsigned)(coders - 2);
    for (k = 0; k < 3; k++)
      rescue_buf_printf(&b, "u%d\tc%u\t%u\n", u, first + (unsigned)k, bench_next() % 3);
  }
  write_text(path, &b);
  rescue_buf_clear(&b);
}

static void gen_map(const char *path, int lines) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  rescue_buf_puts(&b, "sample_id\tvideo\tstart\tend\n");
  for (i = 0; i < lines; i++)
    rescue_buf_printf(&b, "g/s%d\tv.mp4\t%d\t%d.5\n", i, i % 3, i % 3 + 1);
  write_text(path, &b);
  rescue_buf_clear(&b);
}

/* Run argv; print one line with its figures; returns wall seconds. */
static double timed(const char *what, char *const argv[]) {
  double secs, rss;
  if (bench_run(argv, &secs, &rss) != 0) {
    fprintf(stderr, "bench_hardening: %s failed\n", what);
    exit(1);
  }
  printf("  %-34s %8.2f s  %8.1f MiB peak\n", what, secs, rss);
  return secs;
}

int main(int argc, char **argv) {
  rescue_synth_opts so;
  rescue_error e = RESCUE_ERROR_INIT;
  double a, b;
  if (argc == 3 && strcmp(argv[1], "--dir") == 0) {
    snprintf(dir, sizeof dir, "%s", argv[2]);
  } else {
    snprintf(dir, sizeof dir, "/tmp/bench-hardening-XXXXXX");
    if (!mkdtemp(dir))
      return 1;
  }
  printf("sets (agree --level masi)\n");
  gen_sets(at("s1.tsv"), 20000);
  gen_sets(at("s2.tsv"), 200000);
  {
    char *r1[] = {RESCUE_BIN, "agree", "--input", (char *)at("s1.tsv"), "--level", "masi", NULL};
    a = timed("2 sets of 20,000 elements", r1);
  }
  {
    char *r2[] = {RESCUE_BIN, "agree", "--input", (char *)at("s2.tsv"), "--level", "masi", NULL};
    b = timed("2 sets of 200,000 elements", r2);
  }
  printf("  ratio %.1fx for 10x the elements (quadratic: 100x)\n", b / (a > 1e-3 ? a : 1e-3));

  printf("coders (agree --level nominal, 20,000 units)\n");
  gen_coders(at("c1.tsv"), 500);
  gen_coders(at("c2.tsv"), 5000);
  {
    char *r1[] = {RESCUE_BIN, "agree", "--input", (char *)at("c1.tsv"), "--level", "nominal", NULL};
    a = timed("500 coders", r1);
  }
  {
    char *r2[] = {RESCUE_BIN, "agree", "--input", (char *)at("c2.tsv"), "--level", "nominal", NULL};
    b = timed("5,000 coders", r2);
  }
  printf("  ratio %.1fx for 10x the coders\n", b / (a > 1e-3 ? a : 1e-3));

  printf("map (media add --map, one video)\n");
  rescue_media_quiet();
  rescue_synth_defaults(&so);
  if (rescue_synth_media(at("v.mp4"), &so, &e)) {
    fprintf(stderr, "bench_hardening: %s\n", e.msg);
    return 1;
  }
  gen_map(at("m1.tsv"), 800);
  gen_map(at("m2.tsv"), 8000);
  {
    char *i1[] = {RESCUE_BIN, "init", (char *)at("m1.db"), NULL};
    char *i2[] = {RESCUE_BIN, "init", (char *)at("m2.db"), NULL};
    double s, r;
    if (bench_run(i1, &s, &r) || bench_run(i2, &s, &r))
      return 1;
  }
  {
    char *r1[] = {RESCUE_BIN,           "media", "add", (char *)at("m1.db"), "--map",
                  (char *)at("m1.tsv"), NULL};
    a = timed("800 lines", r1);
  }
  {
    char *r2[] = {RESCUE_BIN,           "media", "add", (char *)at("m2.db"), "--map",
                  (char *)at("m2.tsv"), NULL};
    b = timed("8,000 lines", r2);
  }
  printf("  ratio %.1fx for 10x the lines\n", b / (a > 1e-3 ? a : 1e-3));
  if (argc != 3)
    rescue_remove_tree(dir);
  return 0;
}
