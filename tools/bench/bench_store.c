/*
** bench_store.c: import then export a generated corpus N times the release's size
** (default 100: 19,100 samples, ~700,000 rows) with the rescue CLI, and print rows/s and
** peak memory beside Python's json.loads + json.dumps of the same file in the same run.
**
** usage: bench_store [--scale N] [--dir DIR] [--keep]
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "benchutil.h"
#include "rescue.h"

int main(int argc, char **argv) {
  long scale = 100, samples, rows = 0, k;
  const char *dir = NULL;
  int keep = 0, i;
  char corpus[4096], db[4096], out[4096], script[8192];
  rescue_buf b = RESCUE_BUF_INIT;
  FILE *f;
  double t_imp, m_imp, t_exp, m_exp, t_py, m_py, t_gen;
  struct stat sb;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--scale") && i + 1 < argc)
      scale = atol(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = 1;
    else {
      fprintf(stderr, "usage: bench_store [--scale N] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (!dir) {
    static char tmp[] = "/tmp/rescue-bench-XXXXXX";
    dir = mkdtemp(tmp);
  }
  snprintf(corpus, sizeof corpus, "%s/corpus.jsonl", dir);
  snprintf(db, sizeof db, "%s/bench.db", dir);
  snprintf(out, sizeof out, "%s/export.jsonl", dir);
  samples = 191 * scale;

  t_gen = bench_now();
  f = fopen(corpus, "wb");
  if (!f) {
    perror(corpus);
    return 1;
  }
  for (k = 0; k < samples; k++) {
    rescue_buf_reset(&b);
    bench_gen_sample(&b, k, 1);
    fwrite(b.s, 1, b.len, f);
  }
  fclose(f);
  rescue_buf_clear(&b);
  /* count rows by the generator's own output: rows are objects with "row_index" */
  {
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    f = fopen(corpus, "rb");
    while ((n = getline(&line, &cap, f)) > 0) {
      char *p = line;
      while ((p = strstr(p, "\"row_index\": ")) != NULL) {
        rows++;
        p += 13;
      }
    }
    free(line);
    fclose(f);
  }
  stat(corpus, &sb);
  printf("corpus: %ld samples, %ld rows, %.1f MB JSONL (scale %ldx the release; generated in %.1f "
         "s)\n",
         samples, rows, (double)sb.st_size / 1e6, scale, bench_now() - t_gen);
  unlink(db);
  {
    char *a_init[] = {RESCUE_BIN, "init", db, NULL};
    char *a_imp[] = {RESCUE_BIN, "import", db, corpus, NULL};
    char *a_exp[] = {RESCUE_BIN, "export", db,        "--format", "samples",
                     "--out",    out,      "--force", NULL};
    double t, m;
    if (bench_run(a_init, &t, &m) != 0 || bench_run(a_imp, &t_imp, &m_imp) != 0 ||
        bench_run(a_exp, &t_exp, &m_exp) != 0) {
      fprintf(stderr, "bench_store: a rescue command failed\n");
      return 1;
    }
  }
  snprintf(script, sizeof script,
           "import json,sys\n"
           "with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', "
           "encoding='utf-8') as o:\n"
           "    for line in f:\n"
           "        o.write(json.dumps(json.loads(line), ensure_ascii=False) + '\\n')\n");
  {
    char pyout[4096];
    char *a_py[] = {"/usr/bin/python3", "-c", script, corpus, pyout, NULL};
    snprintf(pyout, sizeof pyout, "%s/python.jsonl", dir);
    if (bench_run(a_py, &t_py, &m_py) != 0) {
      fprintf(stderr, "bench_store: python3 failed\n");
      return 1;
    }
    {
      char cmd[12000];
      snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", corpus, out);
      printf("  rescue export == input: %s\n", system(cmd) == 0 ? "yes" : "NO");
      snprintf(cmd, sizeof cmd, "cmp -s '%s' '%s'", corpus, pyout);
      printf("  python dumps  == input: %s\n", system(cmd) == 0 ? "yes" : "NO");
      unlink(pyout);
    }
  }
  stat(db, &sb);
  printf("\n%-34s %10s %12s %10s\n", "", "seconds", "rows/s", "peak MB");
  printf("%-34s %10.2f %12.0f %10.1f\n", "rescue import", t_imp, rows / t_imp, m_imp);
  printf("%-34s %10.2f %12.0f %10.1f\n", "rescue export (samples)", t_exp, rows / t_exp, m_exp);
  printf("%-34s %10.2f %12.0f %10.1f\n", "python3 json.loads+dumps (ref.)", t_py, rows / t_py,
         m_py);
  printf("\nstore size: %.1f MB. targets: import and export >= 100,000 rows/s, peak < 200 MB,\n"
         "faster than python's bare parse+dump (import %.1fx, export %.1fx python).\n",
         (double)sb.st_size / 1e6, t_py / t_imp, t_py / t_exp);
  if (!keep) {
    unlink(corpus);
    unlink(out);
    unlink(db);
    rmdir(dir);
  }
  return 0;
}
