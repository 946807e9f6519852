/*
** bench_tasks.c: export the six task datasets from generated corpora 1x, 5x and 10x
** the release's size (191 samples, ~7,100 rows, ~1 KB per row) with the rescue CLI, and
** print instances/s, MB/s and peak memory per size, the growth per sample (linear means
** flat), and the same export by the Python reading tests/ref_tasks.py at 1x beside it.
**
** usage: bench_tasks [--scales 1,5,10] [--dir DIR] [--python-all] [--keep]
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

#define N(v) (sizeof v / sizeof v[0])

/* Instances and bytes of the task files, from the export's manifest. */
static int read_manifest(const char *dir, long *instances, double *mb) {
  char path[4200], *text = NULL;
  size_t len = 0;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_jerror je;
  rescue_jdoc *doc = NULL;
  const rescue_jnode *m, *v, *ins, *files;
  snprintf(path, sizeof path, "%s/manifest.json", dir);
  if (rescue_read_file(path, &text, &len, &err) || !(doc = rescue_jdoc_new()) ||
      !(m = rescue_jparse(doc, text, len, &je))) {
    rescue_jdoc_free(&doc);
    rescue_free(text);
    return -1;
  }
  *instances = 0;
  *mb = 0;
  ins = rescue_jget(m, "instances");
  files = rescue_jget(m, "files");
  for (v = ins && ins->type == RESCUE_JOBJECT ? ins->child : NULL; v; v = v->next)
    if (v->type == RESCUE_JNUMBER && v->is_int)
      *instances += atol(v->s);
  for (v = files && files->type == RESCUE_JARRAY ? files->child : NULL; v; v = v->next) {
    const rescue_jnode *b = rescue_jget(v, "bytes");
    if (b && b->type == RESCUE_JNUMBER && b->is_int)
      *mb += (double)atoll(b->s) / 1e6;
  }
  rescue_jdoc_free(&doc);
  rescue_free(text);
  return 0;
}

/* Total bytes of the files in a folder (the Python reading's output). */
static double folder_mb(const char *dir) {
  static const char *const names[] = {"itp", "rpp", "stp", "ssp", "er", "vp"};
  char path[4200];
  struct stat sb;
  double mb = 0;
  size_t i;
  for (i = 0; i < N(names); i++) {
    snprintf(path, sizeof path, "%s/%s.jsonl", dir, names[i]);
    if (stat(path, &sb) == 0)
      mb += (double)sb.st_size / 1e6;
  }
  return mb;
}

typedef struct result {
  long scale, samples, rows, instances;
  double mb, secs, cpu, rss, import_secs;
} result;

int main(int argc, char **argv) {
  const char *dir = NULL, *scales = "1,5,10";
  int keep = 0, python_all = 0, i, nres = 0;
  result res[16];
  char cmd[32768];
  const char *p;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--scales") && i + 1 < argc)
      scales = argv[++i];
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--python-all"))
      python_all = 1;
    else if (!strcmp(argv[i], "--keep"))
      keep = 1;
    else {
      fprintf(stderr, "usage: bench_tasks [--scales 1,5,10] [--dir DIR] [--python-all] [--keep]\n");
      return 2;
    }
  }
  if (!dir) {
    static char tmp[] = "/tmp/rescue-bench-tasks-XXXXXX";
    dir = mkdtemp(tmp);
  }
  printf("task export benchmark: generated corpora, all six tasks, `rescue export --format "
         "tasks` (sha256, card and manifest included, fsync'd)\n\n");
  printf("%6s %7s %8s %10s %9s %9s %8s %12s %9s %9s\n", "scale", "samples", "rows", "instances",
         "out MB", "seconds", "cpu s", "instances/s", "MB/s", "peak MB");
  for (p = scales; *p && nres < 16; p += strcspn(p, ","), p += *p == ',') {
    result *r = &res[nres];
    char corpus[4096], db[4096], out[4096];
    rescue_buf b = RESCUE_BUF_INIT;
    FILE *f;
    long k;
    double t, m;
    memset(r, 0, sizeof *r);
    r->scale = atol(p);
    if (r->scale <= 0)
      break;
    r->samples = 191 * r->scale;
    snprintf(corpus, sizeof corpus, "%s/corpus-%ldx.jsonl", dir, r->scale);
    snprintf(db, sizeof db, "%s/corpus-%ldx.db", dir, r->scale);
    snprintf(out, sizeof out, "%s/tasks-%ldx", dir, r->scale);
    bench_seed(0x2545F4914F6CDD1DULL); /* each size starts the same stream: 1x is a prefix of 10x */
    if (!(f = fopen(corpus, "wb"))) {
      perror(corpus);
      return 1;
    }
    for (k = 0; k < r->samples; k++) {
      const char *q;
      rescue_buf_reset(&b);
      bench_gen_sample(&b, k, 0);
      for (q = b.s; (q = strstr(q, "\"row_index\": ")) != NULL; q += 13)
        r->rows++;
      fwrite(b.s, 1, b.len, f);
    }
    fclose(f);
    rescue_buf_clear(&b);
    unlink(db);
    {
      char *a_init[] = {RESCUE_BIN, "init", db, NULL};
      char *a_imp[] = {RESCUE_BIN, "import", db, corpus, NULL};
      char *a_exp[] = {RESCUE_BIN, "export",      db,           "--format", "tasks", "--out", out,
                       "--force",  "--clip-root", "/clip-root", NULL};
      if (bench_run(a_init, &t, &m) != 0 || bench_run(a_imp, &r->import_secs, &m) != 0 ||
          bench_run(a_exp, &r->secs, &r->rss) != 0 || (r->cpu = bench_last_cpu, 0) ||
          read_manifest(out, &r->instances, &r->mb) != 0) {
        fprintf(stderr, "bench_tasks: a rescue command failed at %ldx\n", r->scale);
        return 1;
      }
    }
    printf("%5ldx %7ld %8ld %10ld %9.1f %9.2f %8.2f %12.0f %9.1f %9.1f\n", r->scale, r->samples,
           r->rows, r->instances, r->mb, r->secs, r->cpu, r->instances / r->secs, r->mb / r->secs,
           r->rss);
    fflush(stdout);
    if (r->scale == 1 || python_all) {
      char pyout[4096];
      double tp, mp, mbp;
      char script[4096];
      char *a_py[] = {"/usr/bin/python3", script, pyout, "/clip-root", corpus, NULL};
      snprintf(script, sizeof script, "%s/tests/ref_tasks.py", RESCUE_SOURCE_DIR);
      snprintf(pyout, sizeof pyout, "%s/python-%ldx", dir, r->scale);
      mkdir(pyout, 0755);
      if (bench_run(a_py, &tp, &mp) == 0) {
        static const char *const names[] = {"itp", "rpp", "stp", "ssp", "er", "vp"};
        size_t j;
        int same = 1;
        mbp = folder_mb(pyout);
        for (j = 0; j < N(names); j++) {
          snprintf(cmd, sizeof cmd, "cmp -s '%s/%s.jsonl' '%s/%s.jsonl'", out, names[j], pyout,
                   names[j]);
          same &= system(cmd) == 0;
        }
        printf("%6s %7s %8s %10s %9.1f %9.2f %8.2f %12.0f %9.1f %9.1f   <- tests/ref_tasks.py "
               "(Python reading, no hashing): %.1fx rescue's time; same bytes: %s\n",
               "", "", "", "", mbp, tp, bench_last_cpu, r->instances / tp, mbp / tp, mp,
               tp / r->secs, same ? "yes" : "NO");
      }
      if (!keep) {
        snprintf(cmd, sizeof cmd, "rm -rf '%s'", pyout);
        if (system(cmd) != 0)
          fprintf(stderr, "bench_tasks: could not remove %s\n", pyout);
      }
    }
    if (!keep) {
      snprintf(cmd, sizeof cmd, "rm -rf '%s' '%s' '%s' '%s-wal' '%s-shm'", out, corpus, db, db, db);
      if (system(cmd) != 0)
        fprintf(stderr, "bench_tasks: could not clean up\n");
    }
    nres++;
  }
  if (nres > 1) {
    printf("\ngrowth against %ldx (linear: time and output per sample stay flat; memory stays "
           "flat):\n%6s %18s %18s %16s %14s\n",
           res[0].scale, "scale", "wall ms/sample", "cpu ms/sample", "MB per sample", "peak MB");
    for (i = 0; i < nres; i++)
      printf("%5ldx %10.3f (%4.2fx) %10.3f (%4.2fx) %8.3f (%4.2fx) %8.1f (%4.2fx)\n", res[i].scale,
             1000 * res[i].secs / res[i].samples,
             (res[i].secs / res[i].samples) / (res[0].secs / res[0].samples),
             1000 * res[i].cpu / res[i].samples,
             (res[i].cpu / res[i].samples) / (res[0].cpu / res[0].samples),
             res[i].mb / res[i].samples,
             (res[i].mb / res[i].samples) / (res[0].mb / res[0].samples), res[i].rss,
             res[i].rss / res[0].rss);
  }
  printf("\ntargets: the release-sized corpus (1x) in under 1 s; linear growth; memory "
         "independent of corpus size. SHA-256 %s.\n",
         rescue_sha256_accelerated() ? "uses the CPU's SHA extensions" : "is portable C");
  if (!keep)
    rmdir(dir);
  return 0;
}
