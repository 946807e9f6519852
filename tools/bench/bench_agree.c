/*
** bench_agree.c: agreement speed. Table mode on 1,000,000 units x 3 coders x 10 values
** (the whole `rescue agree --input` command, and reading / alpha / every coefficient in
** process) beside NLTK reading the first 100,000 units of the same file and computing
** alpha in the same run (compared per unit); then 1,000 bootstrap replicates over a
** release-sized corpus (191 samples, ~7,079 rows) in process and through the command.
**
** usage: bench_agree [--units N] [--dir DIR] [--keep]
*/
#include <fcntl.h>
#include <malloc.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "rescue.h"

static unsigned long long rng = 0x2545F4914F6CDD1DULL;
static unsigned next(unsigned n) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)((rng >> 16) % n);
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run a command with stdout to `out` (NULL: /dev/null); wall and CPU seconds, peak RSS (MB). */
static int run(char *const argv[], const char *out, double *wall, double *cpu, double *rss) {
  struct rusage ru;
  int status;
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    int fd = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0644) : open("/dev/null", O_WRONLY);
    if (fd >= 0)
      dup2(fd, 1);
    execv(argv[0], argv);
    _exit(127);
  }
  if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
    return -1;
  *wall = now() - t0;
  *cpu = (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 +
         (double)ru.ru_stime.tv_sec + (double)ru.ru_stime.tv_usec / 1e6;
  *rss = (double)ru.ru_maxrss / 1024.0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The table: unit, coder, value; 60% of values follow the unit's "truth". */
static long write_table(const char *path, const char *small, long units, long small_units) {
  FILE *f = fopen(path, "wb"), *g = fopen(small, "wb");
  long u;
  int c;
  if (!f || !g)
    return -1;
  for (u = 0; u < units; u++) {
    unsigned truth = next(10);
    for (c = 0; c < 3; c++) {
      unsigned v = next(100) < 60 ? truth : next(10);
      fprintf(f, "%ld\t%c\t%u\n", u, 'a' + c, v);
      if (u < small_units)
        fprintf(g, "%ld\t%c\t%u\n", u, 'a' + c, v);
    }
  }
  fclose(g);
  return fclose(f) == 0 ? 0 : -1;
}

/* A release-sized corpus as JSONL for two annotators (the second revises ~15% of fields). */
static void write_corpus(const char *path_a, const char *path_b, long *rows_out) {
  static const char *utt[] = {"accusation", "defense", "disclosure", "request",    "recollection",
                              "reflection", "repair",  "withdrawal", "validation", "other"};
  static const char *strat[] = {"counterbalance", "safeguard", "goal_align", "track",  "reframe",
                                "evoke",          "enact",     "join",       "detach", "repair"};
  static const char *pat[] = {"pursue_withdraw",  "attack_attack",          "withdraw_withdraw",
                              "repair_softening", "constructive_alignment", "mixed_transition"};
  FILE *fa = fopen(path_a, "wb"), *fb = fopen(path_b, "wb");
  long s, rows = 0;
  rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
  for (s = 0; s < 191; s++) {
    int fam = s >= 174, n = fam ? 71 : 33 + (int)(s % 4 != 0), r, k;
    const char *people[] = {"Ann", "Ben", fam ? "Cleo" : "Ann", fam ? "Dan" : "Ben"};
    double t = 0;
    for (k = 0; k < 2; k++) {
      rescue_buf *o = k ? &b : &a;
      rescue_buf_reset(o);
      if (fam)
        rescue_buf_printf(o, "{\"sample_id\": \"family_therapy/%03ld/merged\", \"rows\": [", s);
      else
        rescue_buf_printf(o, "{\"sample_id\": \"couple_%03ld/segment01\", \"rows\": [", s);
    }
    for (r = 0; r < n; r++) {
      int ther = next(100) < (fam ? 47 : 35), u = (int)next(10), st = (int)next(10),
          pt = (int)next(6);
      int spk = (int)next(fam ? 4 : 2), tg = (spk + 1) % (fam ? 4 : 2), inten = (int)next(11);
      double d = 2 + next(80) / 10.0;
      for (k = 0; k < 2; k++) {
        rescue_buf *o = k ? &b : &a;
        int change = k && next(100) < 15;
        rescue_buf_printf(
            o,
            "%s{\"start_time\": %.2f, \"end_time\": %.2f, \"primary_speaker\": \"%s\", "
            "\"target\": [\"%s\"], \"dialogue_cleaned\": \"words %d\", \"utterance_type\": \"%s\", "
            "\"background_dialogue\": [], \"tone_of_voice\": \"%s\", \"body_posture\": [], "
            "\"facial_expressions\": [], \"self_directed_behavior\": [], "
            "\"interaction_behavior\": [], \"internal_emotion\": [{\"person\": \"%s\", "
            "\"emotion_description\": \"tense\", \"intensity\": %d}], "
            "\"viewpoints_attitudes\": [{\"source\": \"%s\", \"target\": \"%s\", \"viewpoint\": "
            "\"unfair\", \"attitude\": \"hurt\"}], \"support_strategy\": [",
            r ? ", " : "", t, t + d, ther ? "Therapist" : people[spk],
            ther ? people[tg] : (next(3) ? "Therapist" : people[tg]), r,
            ther ? "" : utt[change ? (u + 1) % 10 : u], change ? "sharp" : "calm", people[spk],
            k && next(100) < 10 ? (inten + 1) % 11 : inten, people[spk], people[tg]);
        if (ther)
          rescue_buf_printf(o,
                            "{\"provider\": \"Therapist\", \"target\": [\"%s\"], "
                            "\"strategy_type\": \"%s\", \"strategy_content\": \"x\"}",
                            people[tg], strat[k && next(100) < 15 ? (st + 1) % 10 : st]);
        rescue_buf_printf(o, "], \"row_index\": %d, \"relation_pattern\": \"%s\"}", r + 1,
                          pat[k && next(100) < 10 ? (pt + 1) % 6 : pt]);
      }
      t += d;
      rows++;
    }
    rescue_buf_puts(&a, "]}\n");
    rescue_buf_puts(&b, "]}\n");
    fwrite(a.s, 1, a.len, fa);
    fwrite(b.s, 1, b.len, fb);
  }
  fclose(fa);
  fclose(fb);
  rescue_buf_clear(&a);
  rescue_buf_clear(&b);
  *rows_out = rows;
}

/* The table-mode figures of the whole command and in process. */
typedef struct table_figs {
  double wall[5], cpu[5], rss; /* the command, five runs, sorted */
  double t_read, t_alpha, t_all, alpha;
} table_figs;

/*
** Table mode on the big TSV: the whole command five runs (a shared machine: the median
** says more than one run), then in process: reading, alpha alone (best of 5), every
** coefficient. Returns -1 when a run fails.
*/
static int time_table(char *big, char *jout, table_figs *f) {
  rescue_error err = RESCUE_ERROR_INIT;
  double t, run_rss;
  int i;
  f->rss = 0;
  f->t_alpha = 1e9;
  f->alpha = NAN;
  char *a[] = {RESCUE_BIN, "agree", "--input", big, "--level", "nominal", "--json", NULL};
  for (i = 0; i < 5; i++) {
    if (run(a, jout, &f->wall[i], &f->cpu[i], &run_rss) != 0) {
      fprintf(stderr, "bench_agree: rescue agree failed\n");
      return -1;
    }
    if (run_rss > f->rss)
      f->rss = run_rss;
  }
  qsort(f->wall, 5, sizeof *f->wall, by_double);
  qsort(f->cpu, 5, sizeof *f->cpu, by_double);
  {
    rescue_agree_data *d = NULL;
    rescue_agree_result r;
    t = now();
    if (rescue_agree_read_tsv(big, RESCUE_LEVEL_NOMINAL, &d, &err)) {
      fprintf(stderr, "bench_agree: %s\n", err.msg);
      return -1;
    }
    f->t_read = now() - t;
    for (i = 0; i < 5; i++) {
      t = now();
      rescue_agree_alpha(d, &f->alpha);
      if (now() - t < f->t_alpha)
        f->t_alpha = now() - t;
    }
    t = now();
    rescue_agree_compute(d, NULL, &r);
    f->t_all = now() - t;
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
    /* give the freed heap back: a child forked later starts its peak RSS at ours */
    malloc_trim(0);
  }
  return 0;
}

/*
** NLTK on the first small_units units of the same data, in the same run, next to the
** command on that file; prints the table-mode figures beside it. -1 when a run fails.
*/
static int compare_nltk(const char *dir, char *script, char *small, long units, long small_units,
                        const table_figs *fg) {
  rescue_error err = RESCUE_ERROR_INIT;
  FILE *f = fopen(script, "w");
  char *a[] = {"/usr/bin/python3", script, small, NULL};
  char pyout[4096];
  double pw, pc, prss, ours_small_wall, ours_small_cpu, osr, nltk_alpha = NAN, nltk_read = NAN,
                                                             nltk_alpha_t = NAN;
  char *oa[] = {RESCUE_BIN, "agree", "--input", small, "--level", "nominal", "--json", NULL};
  snprintf(pyout, sizeof pyout, "%s/nltk.out", dir);
  fputs("import sys, time\n"
        "t0 = time.time()\n"
        "from nltk.metrics.agreement import AnnotationTask\n"
        "data = []\n"
        "for line in open(sys.argv[1]):\n"
        "    u, c, v = line.rstrip('\\n').split('\\t')\n"
        "    data.append((c, u, v))\n"
        "t1 = time.time()\n"
        "a = AnnotationTask(data).alpha()\n"
        "t2 = time.time()\n"
        "print(repr(a), t1 - t0, t2 - t1)\n",
        f);
  fclose(f);
  if (run(a, pyout, &pw, &pc, &prss) != 0) {
    fprintf(stderr, "bench_agree: python3 with nltk failed\n");
    return -1;
  }
  f = fopen(pyout, "r");
  if (!f || fscanf(f, "%lf %lf %lf", &nltk_alpha, &nltk_read, &nltk_alpha_t) != 3) {
    fprintf(stderr, "bench_agree: cannot read the NLTK figures\n");
    return -1;
  }
  fclose(f);
  if (run(oa, NULL, &ours_small_wall, &ours_small_cpu, &osr) != 0)
    return -1;
  {
    rescue_agree_data *d = NULL;
    double a100;
    rescue_agree_read_tsv(small, RESCUE_LEVEL_NOMINAL, &d, &err);
    rescue_agree_alpha(d, &a100);
    rescue_agree_data_free(&d);
    printf("alpha on the first %ld units: rescue %.15f, NLTK %.15f (difference %.1e)\n\n",
           small_units, a100, nltk_alpha, fabs(a100 - nltk_alpha));
  }
  printf("%-52s %9s %9s %9s\n", "", "wall s", "cpu s", "peak MB");
  printf("rescue agree --input, %ld units, whole command (median of 5) %6.3f %9.3f %9.1f\n", units,
         fg->wall[2], fg->cpu[2], fg->rss);
  printf("%-52s %9.3f %9.3f\n", "  best of 5", fg->wall[0], fg->cpu[0]);
  printf("%-52s %9.3f\n", "  in process: reading the TSV", fg->t_read);
  printf("%-52s %9.3f   (alpha %.6f)\n", "  in process: alpha alone (best of 5)", fg->t_alpha,
         fg->alpha);
  printf("%-52s %9.3f\n", "  in process: every coefficient", fg->t_all);
  printf("rescue agree --input, %ld units, whole command %16.3f %9.3f %9.1f\n", small_units,
         ours_small_wall, ours_small_cpu, osr);
  printf("NLTK, %ld units: the python3 process (reference) %13.3f %9.3f %9.1f\n", small_units, pw,
         pc, prss);
  printf("%-52s %9.3f\n", "  NLTK reading the TSV", nltk_read);
  printf("%-52s %9.3f\n", "  NLTK alpha", nltk_alpha_t);
  printf("\nper unit: rescue %.3f us (whole command, %ld units), NLTK %.1f us (process, %ld "
         "units): %.0fx\n",
         fg->wall[2] / (double)units * 1e6, units, pw / (double)small_units * 1e6, small_units,
         (pw / (double)small_units) / (fg->wall[2] / (double)units));
  printf("targets: alpha <= 0.050 s (%s), whole command <= 0.3 s (%s), >= 50x NLTK per unit "
         "(%s)\n\n",
         fg->t_alpha <= 0.05 ? "met" : "MISSED", fg->wall[2] <= 0.3 ? "met" : "MISSED",
         (pw / (double)small_units) / (fg->wall[2] / (double)units) >= 50 ? "met" : "MISSED");
  return 0;
}

/* Bootstrap over a release-sized corpus: in process on the data of one field. */
static void bench_bootstrap(void) {
  rescue_agree_data *d = rescue_agree_data_new(RESCUE_LEVEL_NOMINAL);
  rescue_agree_opts o = {
      .ci_replicates = 1000, .seed = 7, .ci_unit = 0, .ci_level = 0.95, .by = RESCUE_BY_NONE};
  rescue_agree_result r0, r1;
  double t0, t1;
  long s, n = 0;
  rescue_agree_coder(d, "ann");
  rescue_agree_coder(d, "bob");
  rescue_agree_coder(d, "cyd");
  for (s = 0; s < 191; s++) {
    char name[32];
    int rows_s = s >= 174 ? 71 : 33 + (int)(s % 4 != 0), k, c, cl;
    snprintf(name, sizeof name, "s%03ld", s);
    cl = rescue_agree_cluster(d, name, s >= 174 ? "family" : "couple");
    for (k = 0; k < rows_s; k++, n++) {
      unsigned truth = next(10);
      rescue_agree_unit(d, cl);
      for (c = 0; c < 3; c++)
        rescue_agree_value(d, c, rescue_agree_number(d, next(100) < 70 ? truth : next(10)));
    }
  }
  t0 = now();
  rescue_agree_compute(d, NULL, &r0);
  t0 = now() - t0;
  t1 = now();
  rescue_agree_compute(d, &o, &r1);
  t1 = now() - t1;
  printf("bootstrap: %ld units in 191 samples, 3 coders, 1,000 replicates resampling samples\n", n);
  printf("%-52s %9.3f   (alpha %.4f, 95%% [%.4f, %.4f])\n",
         "  in process: one field, every coefficient + CI", t1, r1.alpha, r1.ci_low, r1.ci_high);
  printf("%-52s %9.3f\n", "  of which the 1,000 replicates", t1 - t0);
  rescue_agree_result_clear(&r0);
  rescue_agree_result_clear(&r1);
  rescue_agree_data_free(&d);
  printf("target: 1,000 replicates over 7,000 rows <= 0.5 s (%s)\n\n",
         t1 - t0 <= 0.5 ? "met" : "MISSED");
}

/*
** Agreement through the command on a real store: two annotators (ca, cb written here),
** every field. -1 when a command fails.
*/
static int bench_corpus(char *db, char *ca, char *cb, char *jout) {
  long rows = 0;
  double w, c, m, w2, c2, m2;
  char *init[] = {RESCUE_BIN, "init", db, NULL};
  char *aa[] = {RESCUE_BIN, "annotator", "add", db, "ann", NULL};
  char *ab[] = {RESCUE_BIN, "annotator", "add", db, "bob", NULL};
  char *ia[] = {RESCUE_BIN, "import", db, ca, "--annotator", "ann", NULL};
  char *ib[] = {RESCUE_BIN, "import", db, cb, "--annotator", "bob", NULL};
  char *ag[] = {RESCUE_BIN, "agree", db, "--ci", "1000", "--seed", "7", "--json", NULL};
  char *ag1[] = {RESCUE_BIN, "agree", db,       "--field", "utterance_type",
                 "--ci",     "1000",  "--json", NULL};
  write_corpus(ca, cb, &rows);
  unlink(db);
  if (run(init, NULL, &w, &c, &m) || run(aa, NULL, &w, &c, &m) || run(ab, NULL, &w, &c, &m) ||
      run(ia, NULL, &w, &c, &m) || run(ib, NULL, &w, &c, &m) || run(ag1, jout, &w2, &c2, &m2) ||
      run(ag, jout, &w, &c, &m)) {
    fprintf(stderr, "bench_agree: a corpus command failed\n");
    return -1;
  }
  printf("corpus mode: 191 samples, %ld rows, 2 annotators\n", rows);
  printf("%-52s %9.3f %9.3f %9.1f\n", "  rescue agree --field utterance_type --ci 1000", w2, c2,
         m2);
  printf("%-52s %9.3f %9.3f %9.1f\n", "  rescue agree (all 15 fields) --ci 1000", w, c, m);
  return 0;
}

int main(int argc, char **argv) {
  long units = 1000000, small_units = 100000;
  const char *dir = NULL;
  int keep = 0, i;
  char big[4096], small[4096], script[4096], db[4096], ca[4096], cb[4096], jout[4096];
  table_figs fg;
  struct stat sb;

  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--units") && i + 1 < argc)
      units = atol(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else if (!strcmp(argv[i], "--keep"))
      keep = 1;
    else {
      fprintf(stderr, "usage: bench_agree [--units N] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (small_units > units)
    small_units = units;
  if (!dir) {
    static char tmp[] = "/tmp/rescue-bench-agree-XXXXXX";
    dir = mkdtemp(tmp);
  }
  snprintf(big, sizeof big, "%s/table.tsv", dir);
  snprintf(small, sizeof small, "%s/table-100k.tsv", dir);
  snprintf(script, sizeof script, "%s/nltk_alpha.py", dir);
  snprintf(db, sizeof db, "%s/corpus.db", dir);
  snprintf(ca, sizeof ca, "%s/ann.jsonl", dir);
  snprintf(cb, sizeof cb, "%s/bob.jsonl", dir);
  snprintf(jout, sizeof jout, "%s/out.json", dir);
  if (write_table(big, small, units, small_units)) {
    perror(big);
    return 1;
  }
  stat(big, &sb);
  printf("table mode: %ld units x 3 coders x 10 values, %.1f MB TSV (%s)\n\n", units,
         (double)sb.st_size / 1e6, big);

  if (time_table(big, jout, &fg) || compare_nltk(dir, script, small, units, small_units, &fg))
    return 1;
  bench_bootstrap();
  if (bench_corpus(db, ca, cb, jout))
    return 1;
  if (!keep) {
    unlink(big);
    unlink(small);
    unlink(script);
    unlink(db);
    unlink(ca);
    unlink(cb);
    unlink(jout);
    {
      char p[4200];
      snprintf(p, sizeof p, "%s/nltk.out", dir);
      unlink(p);
    }
    rmdir(dir);
  }
  return 0;
}
