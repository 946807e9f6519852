/*
** bench_curate.c: the curation queue (GET /api/curate, rescue_curate_queue_json) on a
** generated corpus of 50 samples annotated by 3 coders (each changes some intensities and
** utterance types of the draft), a lead registered. Prints the queue's time beside what
** the queue cost before (every sample's full curation state loaded, lint included) and
** checks that both give the same counts per sample.
**
** usage: bench_curate [--samples N] [--runs R] [--dir DIR] [--keep]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchutil.h"
#include "rescue_curate.h"

/* Coder c's version of the corpus text: every 4th intensity and 6th type changed by turns. */
static void coder_variant(const char *text, int c, rescue_buf *out) {
  static const char *const types[] = {"disclosure", "request", "defense"};
  const char *p = text;
  long k = 0, t = 0;
  rescue_buf_reset(out);
  for (;;) {
    const char *i = strstr(p, "\"intensity\": "), *u = strstr(p, "\"utterance_type\": \"");
    const char *next = i && (!u || i < u) ? i : u;
    if (!next)
      break;
    if (next == i) {
      const char *d = i + strlen("\"intensity\": ");
      rescue_buf_putn(out, p, (size_t)(d - p));
      if (k++ % 4 == (long)c && *d >= '0' && *d <= '9' && d[1] != '0') {
        rescue_buf_putc(out, (char)('0' + (*d - '0' + 1 + c) % 10));
        p = d + 1;
      } else {
        p = d;
      }
    } else {
      const char *v = u + strlen("\"utterance_type\": \""), *e = strchr(v, '"');
      rescue_buf_putn(out, p, (size_t)(v - p));
      if (e && t++ % 6 == (long)c) {
        rescue_buf_puts(out, types[c % 3]);
        p = e;
      } else {
        p = v;
      }
    }
  }
  rescue_buf_puts(out, p);
}

/* The sample ids of the queue's JSON with their undecided counts, compared with the states. */
static int check_counts(rescue_store *st, const rescue_buf *queue, long *checked) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root = doc ? rescue_jparse(doc, queue->s, queue->len, &je) : NULL, *s;
  int bad = 0;
  *checked = 0;
  for (s = root ? rescue_jget(root, "samples")->child : NULL; s; s = s->next) {
    rescue_curate_state cs;
    long undecided = 0, gold = 0;
    if (rescue_curate_load(st, rescue_jget(s, "sample_id")->s, &cs) == 0) {
      for (int r = 0; r < cs.n_rows; r++) {
        undecided += cs.rows[r].undecided;
        gold += cs.rows[r].gold_version != 0;
      }
      if ((long)rescue_jget(s, "undecided")->num != undecided ||
          (long)rescue_jget(s, "values")->num != cs.values ||
          (long)rescue_jget(s, "rows")->num != cs.n_rows ||
          (long)rescue_jget(s, "gold_rows")->num != gold) {
        fprintf(stderr, "bench_curate: %s: queue says %ld undecided of %ld, the state %ld of %ld\n",
                rescue_jget(s, "sample_id")->s, (long)rescue_jget(s, "undecided")->num,
                (long)rescue_jget(s, "values")->num, undecided, cs.values);
        bad++;
      }
    }
    rescue_curate_state_clear(&cs);
    (*checked)++;
  }
  rescue_jdoc_free(&doc);
  return bad;
}

static int by_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

int main(int argc, char **argv) {
  static const char *const coders[] = {"ann", "bob", "cat"};
  int samples = 50, runs = 5, keep = 0, i, r, rc;
  char dir[4096] = "/tmp/rescue-bench-curate-XXXXXX", db[4200], path[4300], tok[65];
  const char *paths[1] = {path};
  rescue_buf text = RESCUE_BUF_INIT, var = RESCUE_BUF_INIT, queue = RESCUE_BUF_INIT;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  double before[64], after[64];
  long checked = 0, undecided = 0;
  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--samples") == 0 && i + 1 < argc)
      samples = atoi(argv[++i]);
    else if (strcmp(argv[i], "--runs") == 0 && i + 1 < argc)
      runs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--dir") == 0 && i + 1 < argc)
      snprintf(dir, sizeof dir, "%s", argv[++i]);
    else if (strcmp(argv[i], "--keep") == 0)
      keep = 1;
    else {
      fprintf(stderr, "usage: bench_curate [--samples N] [--runs R] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (runs < 1 || runs > 64 || samples < 1) {
    fprintf(stderr, "bench_curate: --runs 1..64, --samples 1 or more\n");
    return 2;
  }
  if (strstr(dir, "XXXXXX") && !mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(db, sizeof db, "%s/curate.db", dir);
  bench_seed(23);
  for (i = 0; i < samples; i++)
    bench_gen_sample(&text, i, 0);
  snprintf(path, sizeof path, "%s/draft.jsonl", dir);
  {
    FILE *f = fopen(path, "w");
    if (!f || fwrite(text.s, 1, text.len, f) != text.len || fclose(f)) {
      perror(path);
      return 1;
    }
  }
  if (rescue_store_create(db, NULL, 0, &err) || rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "bench_curate: %s\n", err.msg);
    return 1;
  }
  {
    rescue_import_opts io = {.format = RESCUE_FMT_JSONL};
    int existed;
    rc = rescue_import(st, paths, 1, &io, NULL) ||
         rescue_annotator_add(st, "lea", "lead", tok, &existed);
    for (i = 0; i < 3 && !rc; i++) {
      FILE *f;
      coder_variant(text.s, i, &var);
      snprintf(path, sizeof path, "%s/%s.jsonl", dir, coders[i]);
      f = fopen(path, "w");
      if (!f || fwrite(var.s, 1, var.len, f) != var.len || fclose(f)) {
        perror(path);
        return 1;
      }
      io.annotator = coders[i];
      rc = rescue_annotator_add(st, coders[i], NULL, tok, &existed) ||
           rescue_import(st, paths, 1, &io, NULL);
    }
    if (rc) {
      fprintf(stderr, "bench_curate: %s\n", rescue_store_errmsg(st));
      return 1;
    }
  }
  printf("curation queue: %d samples x 3 coders and a lead, %d runs each (median)\n", samples,
         runs);
  for (r = 0; r < runs; r++) {
    /* before: what the queue did on the previous main, every sample's full state */
    rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
    rescue_sample_iter *it = NULL;
    const rescue_sample *s;
    double t0 = bench_now();
    if (rescue_sample_iter_new(st, &v, NULL, 0, &it))
      return 1;
    while (rescue_sample_iter_next(it, &s) == 1) {
      rescue_curate_state cs;
      if (rescue_curate_load(st, s->sample_id, &cs))
        return 1;
      rescue_curate_state_clear(&cs);
    }
    rescue_sample_iter_free(&it);
    before[r] = bench_now() - t0;
    t0 = bench_now();
    rescue_buf_reset(&queue);
    if (rescue_curate_queue_json(st, 0, &queue)) {
      fprintf(stderr, "bench_curate: %s\n", rescue_store_errmsg(st));
      return 1;
    }
    after[r] = bench_now() - t0;
  }
  qsort(before, (size_t)runs, sizeof *before, by_double);
  qsort(after, (size_t)runs, sizeof *after, by_double);
  rc = check_counts(st, &queue, &checked);
  {
    const char *p = queue.s;
    while ((p = strstr(p, "\"undecided\": ")) != NULL) {
      p += strlen("\"undecided\": ");
      undecided += atol(p);
    }
  }
  printf("  before (every sample's full state):  %8.1f ms\n", before[runs / 2] * 1e3);
  printf("  after  (rescue_curate_queue_json):   %8.1f ms  (%.1fx)\n", after[runs / 2] * 1e3,
         after[runs / 2] > 0 ? before[runs / 2] / after[runs / 2] : 0.0);
  printf("  %ld samples in the queue, %ld undecided values; counts %s the full states'\n", checked,
         undecided, rc ? "DIFFER from" : "equal");
  rescue_store_close(&st);
  rescue_buf_clear(&text);
  rescue_buf_clear(&var);
  rescue_buf_clear(&queue);
  if (!keep) {
    char cmd[4400];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
      fprintf(stderr, "bench_curate: could not remove %s\n", dir);
  }
  return rc ? 1 : 0;
}
