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

#include "rescue.h"

static unsigned long long rng = 0x9E3779B97F4A7C15ULL;
static unsigned next(void) {
  rng ^= rng << 13;
  rng ^= rng >> 7;
  rng ^= rng << 17;
  return (unsigned)(rng >> 11);
}

static const char *words[] = {
    "I",      "just",  "feel",   "like",   "you",     "never", "listen", "to",    "me",
    "when",   "we",    "talk",   "about",  "money",   "and",   "it",     "always", "turns",
    "into",   "a",     "fight",  "that",   "nobody",  "wins",  "maybe",  "should", "try",
    "again",  "with",  "more",   "care",   "because", "this",  "matters", "so",    "much",
    "caf\xc3\xa9", "na\xc3\xafve", "\xe2\x80\x94", "\"quoted\"", "it's", "don't", "well,"};

static void sentence(rescue_jw *w, int n) {
  rescue_buf s = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < n; i++) {
    if (i)
      rescue_buf_putc(&s, ' ');
    rescue_buf_puts(&s, words[next() % (sizeof words / sizeof words[0])]);
  }
  rescue_jw_strn(w, s.s, s.len);
  rescue_buf_free(&s);
}

static void person_items(rescue_jw *w, const char *person, int n) {
  int i;
  rescue_jw_arr(w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "person");
    rescue_jw_str(w, person);
    rescue_jw_key(w, "description");
    sentence(w, 6);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/* One generated sample line, shaped like the release's (all keys, realistic sizes). */
static void gen_sample(rescue_buf *b, long k) {
  static const char *couple[] = {"Alex", "Sam"}, *family[] = {"Ana", "Ben", "Cleo"};
  int fam = k % 10 == 9, n = 10 + (int)(next() % 55), i;
  const char **people = fam ? family : couple;
  int np = fam ? 3 : 2;
  double t = 0;
  char id[128];
  rescue_jw w;
  /* generated in sample_id order, so the export must equal the input byte for byte */
  snprintf(id, sizeof id, "group_%06ld/%03ld_s01e%02ld_segment%02ld", k / 7, k % 7, k % 13,
           k % 17);
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, id);
  rescue_jw_key(&w, "scenario");
  rescue_jw_str(&w, fam ? "family" : "couple");
  rescue_jw_key(&w, "participants");
  rescue_jw_arr(&w);
  for (i = 0; i < np; i++)
    rescue_jw_str(&w, people[i]);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "source_file");
  {
    char src[200];
    snprintf(src, sizeof src, "data/therapy_merged_all/%s.json", id);
    rescue_jw_str(&w, src);
  }
  rescue_jw_key(&w, "rows");
  rescue_jw_arr(&w);
  for (i = 0; i < n; i++) {
    int ther = next() % 3 == 0;
    const char *sp = ther ? "Therapist" : people[next() % np];
    double len = 1.0 + (next() % 1500) / 100.0;
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "start_time");
    rescue_jw_double(&w, t);
    rescue_jw_key(&w, "end_time");
    rescue_jw_double(&w, t + len);
    t += len;
    rescue_jw_key(&w, "primary_speaker");
    rescue_jw_str(&w, sp);
    rescue_jw_key(&w, "target");
    rescue_jw_arr(&w);
    rescue_jw_str(&w, ther ? people[next() % np] : "Therapist");
    rescue_jw_end(&w);
    rescue_jw_key(&w, "dialogue_cleaned");
    sentence(&w, 12 + (int)(next() % 20));
    rescue_jw_key(&w, "utterance_type");
    rescue_jw_str(&w, ther ? "" : "disclosure");
    rescue_jw_key(&w, "background_dialogue");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "tone_of_voice");
    sentence(&w, 3);
    rescue_jw_key(&w, "body_posture");
    person_items(&w, sp, 1);
    rescue_jw_key(&w, "facial_expressions");
    person_items(&w, sp, 1);
    rescue_jw_key(&w, "self_directed_behavior");
    person_items(&w, sp, (int)(next() % 2));
    rescue_jw_key(&w, "interaction_behavior");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "internal_emotion");
    rescue_jw_arr(&w);
    if (!ther) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "person");
      rescue_jw_str(&w, sp);
      rescue_jw_key(&w, "emotion_description");
      sentence(&w, 8);
      rescue_jw_key(&w, "intensity");
      rescue_jw_int(&w, (long long)(next() % 11));
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_key(&w, "viewpoints_attitudes");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "support_strategy");
    rescue_jw_arr(&w);
    if (ther) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "provider");
      rescue_jw_str(&w, "Therapist");
      rescue_jw_key(&w, "target");
      rescue_jw_arr(&w);
      rescue_jw_str(&w, fam ? "Family" : "Couple");
      rescue_jw_end(&w);
      rescue_jw_key(&w, "strategy_type");
      rescue_jw_str(&w, "track");
      rescue_jw_key(&w, "strategy_content");
      sentence(&w, 10);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    if (ther) {
      rescue_jw_key(&w, "relation_cycle_state");
      rescue_jw_str(&w, fam ? "escalation_conflict" : "pursue_withdraw");
    }
    rescue_jw_key(&w, "row_index");
    rescue_jw_int(&w, i + 1);
    rescue_jw_key(&w, "relation_pattern");
    rescue_jw_null(&w);
    rescue_jw_key(&w, "relation_pattern_reason");
    rescue_jw_null(&w);
    rescue_jw_key(&w, "relation_pattern_evidence_rows");
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_buf_putc(b, '\n');
}

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Run a command; return wall seconds and the child's peak RSS in MiB. */
static int run(char *const argv[], double *secs, double *rss_mb) {
  struct rusage ru;
  int status;
  double t0 = now();
  pid_t pid = fork();
  if (pid == 0) {
    int devnull = open("/dev/null", 1);
    if (devnull >= 0)
      dup2(devnull, 1);
    execvp(argv[0], argv);
    _exit(127);
  }
  if (pid < 0 || wait4(pid, &status, 0, &ru) < 0)
    return -1;
  *secs = now() - t0;
  *rss_mb = (double)ru.ru_maxrss / 1024.0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128;
}

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

  t_gen = now();
  f = fopen(corpus, "wb");
  if (!f) {
    perror(corpus);
    return 1;
  }
  for (k = 0; k < samples; k++) {
    rescue_buf_reset(&b);
    gen_sample(&b, k);
    fwrite(b.s, 1, b.len, f);
  }
  fclose(f);
  rescue_buf_free(&b);
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
  printf("corpus: %ld samples, %ld rows, %.1f MB JSONL (scale %ldx the release; generated in %.1f s)\n",
         samples, rows, (double)sb.st_size / 1e6, scale, now() - t_gen);
  unlink(db);
  {
    char *a_init[] = {RESCUE_BIN, "init", db, NULL};
    char *a_imp[] = {RESCUE_BIN, "import", db, corpus, NULL};
    char *a_exp[] = {RESCUE_BIN, "export", db, "--format", "samples", "--out", out, "--force", NULL};
    double t, m;
    if (run(a_init, &t, &m) != 0 || run(a_imp, &t_imp, &m_imp) != 0 ||
        run(a_exp, &t_exp, &m_exp) != 0) {
      fprintf(stderr, "bench_store: a rescue command failed\n");
      return 1;
    }
  }
  snprintf(script, sizeof script,
           "import json,sys\n"
           "with open(sys.argv[1], encoding='utf-8') as f, open(sys.argv[2], 'w', encoding='utf-8') as o:\n"
           "    for line in f:\n"
           "        o.write(json.dumps(json.loads(line), ensure_ascii=False) + '\\n')\n");
  {
    char pyout[4096];
    char *a_py[] = {"/usr/bin/python3", "-c", script, corpus, pyout, NULL};
    snprintf(pyout, sizeof pyout, "%s/python.jsonl", dir);
    if (run(a_py, &t_py, &m_py) != 0) {
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
  printf("%-34s %10.2f %12.0f %10.1f\n", "python3 json.loads+dumps (ref.)", t_py, rows / t_py, m_py);
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
