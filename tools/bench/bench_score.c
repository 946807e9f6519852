/*
** bench_score.c: `rescue score rpp` on a generated gold file and predictions shaped like
** real model output (plain objects, code fences, prose, response fields, nested strings,
** broken lines), under both protocols; beside it, as the reference, Python's json module
** only reading the same gold and predictions line by line (what the release scripts do
** before any scoring). Prints wall and CPU seconds, lines per CPU second and peak memory; on a
** shared machine compare the CPU ratio, not the seconds.
**
** Then degenerate replies: one 400 KB line of prose made of a unit repeated (brackets that
** never close, closes of the other kind, strings that never end), scored in this process
** next to a well-formed 400 KB reply as the reference run. The JSON-in-prose finder
** (rescue_jfind, corpus/rescue_json.h) bounds the work, so each takes about as long.
**
** usage: bench_score [--instances N] [--dir DIR] [--keep]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "benchutil.h"
#include "rescue.h"

static const char *const tax[] = {"pursue_withdraw",  "attack_attack",          "withdraw_withdraw",
                                  "repair_softening", "constructive_alignment", "mixed_transition"};

static int write_file(const char *path, const rescue_buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->s, 1, b->len, f) != b->len || fclose(f) != 0) {
    perror(path);
    return -1;
  }
  return 0;
}

/* Score one predictions line against gold (rescue protocol); wall seconds, -1 on error. */
static double score_line(const char *gold, const char *path, const rescue_buf *line) {
  rescue_score_opts o = {.protocol = RESCUE_PROTOCOL_RESCUE, .allow_missing = 1};
  rescue_score_report *r = NULL;
  rescue_error err;
  double t0;
  memset(&err, 0, sizeof err);
  if (write_file(path, line))
    return -1;
  t0 = bench_now();
  if (rescue_score_files(RESCUE_TASK_RPP, gold, path, &o, &r, &err)) {
    fprintf(stderr, "bench_score: %s\n", err.msg);
    return -1;
  }
  t0 = bench_now() - t0;
  rescue_score_free(&r);
  unlink(path);
  return t0;
}

/*
** Degenerate replies of 400 KB against a well-formed one of the same size, scored
** against the first instances of the gold file.
*/
static int degenerate_runs(const char *dir, const rescue_buf *g) {
  static const struct {
    const char *name, *unit;
  } shapes[] = {
      {"'{' repeated", "{"},
      {"'[' repeated", "["},
      {"'[{\"a\":' repeated", "[{\"a\":"},
      {"'{\"a\": [1} ' repeated", "{\"a\": [1} "},
      {"'{\"' repeated", "{\""},
      {"'[1] ' repeated", "[1] "},
  };
  char gold[4200], pred[4200];
  rescue_buf line = RESCUE_BUF_INIT, small = RESCUE_BUF_INIT;
  const char *e = g->s;
  double secs;
  size_t k;
  int rc = 1;
  for (k = 0; k < 20 && (e = strchr(e, '\n')) != NULL; k++)
    e++;
  rescue_buf_putn(&small, g->s, e ? (size_t)(e - g->s) : g->len);
  snprintf(gold, sizeof gold, "%s/rpp-small.jsonl", dir);
  snprintf(pred, sizeof pred, "%s/pred-degenerate.jsonl", dir);
  if (!rescue_buf_ok(&small) || write_file(gold, &small))
    goto end;
  printf("\ndegenerate replies: one 400 KB line against %zu gold instances\n", k);
  printf("%-36s %8s\n", "reply", "wall s");
  /* the reference: a well-formed reply of the same size (a long string member) */
  rescue_buf_puts(&line, "{\"instance_id\": \"c0/s0__row1\", \"relation_top3\": "
                         "[\"attack_attack\"], \"note\": \"");
  while (line.len < 400 * 1024 - 3)
    rescue_buf_putc(&line, 'x');
  rescue_buf_puts(&line, "\"}\n");
  if (!rescue_buf_ok(&line) || (secs = score_line(gold, pred, &line)) < 0)
    goto end;
  printf("%-36s %8.3f\n", "reference: well-formed object", secs);
  for (k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
    rescue_buf_reset(&line);
    rescue_buf_puts(&line, "Sure. ");
    while (line.len < 400 * 1024)
      rescue_buf_puts(&line, shapes[k].unit);
    rescue_buf_putc(&line, '\n');
    if (!rescue_buf_ok(&line) || (secs = score_line(gold, pred, &line)) < 0)
      goto end;
    printf("%-36s %8.3f\n", shapes[k].name, secs);
  }
  rc = 0;
end:
  unlink(gold);
  rescue_buf_clear(&line);
  rescue_buf_clear(&small);
  return rc;
}

int main(int argc, char **argv) {
  long n = 200000, i;
  int keep = 0;
  const char *dir = NULL;
  char tmpl[] = "/tmp/bench_score_XXXXXX", gold[4200], pred[4200], py[4200];
  rescue_buf g = RESCUE_BUF_INIT, p = RESCUE_BUF_INIT;
  double secs, rss;
  int k;
  for (k = 1; k < argc; k++) {
    if (!strcmp(argv[k], "--instances") && k + 1 < argc)
      n = atol(argv[++k]);
    else if (!strcmp(argv[k], "--dir") && k + 1 < argc)
      dir = argv[++k];
    else if (!strcmp(argv[k], "--keep"))
      keep = 1;
    else {
      fprintf(stderr, "usage: bench_score [--instances N] [--dir DIR] [--keep]\n");
      return 2;
    }
  }
  if (!dir && !(dir = mkdtemp(tmpl))) {
    perror("mkdtemp");
    return 1;
  }
  bench_seed(13);
  for (i = 0; i < n; i++) {
    const char *gl = tax[bench_next() % 6], *pl = tax[bench_next() % 6];
    rescue_buf_printf(&g,
                      "{\"task\": \"rpp\", \"instance_id\": \"c%ld/s%ld__row%ld\", \"sample_id\": "
                      "\"c%ld/s%ld\", \"couple\": \"c%ld\", \"scenario\": \"couple\", "
                      "\"candidate_relation_labels\": [\"pursue_withdraw\", \"attack_attack\", "
                      "\"withdraw_withdraw\", \"repair_softening\", \"constructive_alignment\", "
                      "\"mixed_transition\"], \"gold_relation_pattern\": \"%s\"}\n",
                      i / 400, i / 20, i % 20 + 1, i / 400, i / 20, i / 400, gl);
    switch (i % 8) {
    case 0:
    case 1:
    case 2:
      rescue_buf_printf(&p,
                        "{\"instance_id\": \"c%ld/s%ld__row%ld\", \"relation_top3\": [\"%s\", "
                        "\"%s\"]}\n",
                        i / 400, i / 20, i % 20 + 1, pl, gl);
      break;
    case 3: /* a fenced reply as a string */
      rescue_buf_printf(&p,
                        "\"```json\\n{\\\"instance_id\\\": \\\"c%ld/s%ld__row%ld\\\", "
                        "\\\"relation_top3\\\": [\\\"%s\\\"]}\\n```\"\n",
                        i / 400, i / 20, i % 20 + 1, pl);
      break;
    case 4: /* prose around the object */
      rescue_buf_printf(&p,
                        "Sure. {\"instance_id\": \"c%ld/s%ld__row%ld\", \"relation_top3\": "
                        "[\"%s\"], \"confidence\": NaN} That is my answer.\n",
                        i / 400, i / 20, i % 20 + 1, pl);
      break;
    case 5: /* the response shape */
      rescue_buf_printf(&p,
                        "{\"instance_id\": \"c%ld/s%ld__row%ld\", \"response\": \"I think "
                        "{\\\"relation_top3\\\": \\\"%s\\\"}\"}\n",
                        i / 400, i / 20, i % 20 + 1, pl);
      break;
    case 6: /* a string item inside predictions */
      rescue_buf_printf(&p,
                        "{\"predictions\": [\"{\\\"instance_id\\\": \\\"c%ld/s%ld__row%ld\\\", "
                        "\\\"relation_top3\\\": [\\\"%s\\\"]}\"]}\n",
                        i / 400, i / 20, i % 20 + 1, pl);
      break;
    default: /* a broken line */
      rescue_buf_printf(&p, "{\"instance_id\": \"c%ld/s%ld__row%ld\", \"relation_top3\": [\"%s\"\n",
                        i / 400, i / 20, i % 20 + 1, pl);
      break;
    }
  }
  snprintf(gold, sizeof gold, "%s/rpp.jsonl", dir);
  snprintf(pred, sizeof pred, "%s/pred.jsonl", dir);
  snprintf(py, sizeof py, "%s/read.py", dir);
  if (!rescue_buf_ok(&g) || !rescue_buf_ok(&p) || write_file(gold, &g) || write_file(pred, &p))
    return 1;
  {
    rescue_buf s = RESCUE_BUF_INIT;
    rescue_buf_puts(&s, "import json, sys\n"
                        "ok = bad = 0\n"
                        "for path in sys.argv[1:]:\n"
                        "    for line in open(path, encoding='utf-8'):\n"
                        "        try:\n"
                        "            json.loads(line); ok += 1\n"
                        "        except ValueError:\n"
                        "            bad += 1\n");
    if (write_file(py, &s))
      return 1;
    rescue_buf_clear(&s);
  }
  printf("rpp: %ld instances, predictions %.1f MB (3/8 plain, 5/8 fenced, prose, response "
         "fields, string items, broken)\n",
         n, (double)p.len / 1e6);
  printf("%-36s %8s %8s %14s %9s\n", "run", "wall s", "CPU s", "lines/CPU s", "peak MiB");
  {
    char *const rel[] = {RESCUE_BIN, "score",      "rpp",     "--gold",          gold,     "--pred",
                         pred,       "--protocol", "release", "--allow-missing", "--json", NULL};
    char *const res[] = {RESCUE_BIN, "score",           "rpp",    "--gold", gold, "--pred",
                         pred,       "--allow-missing", "--json", NULL};
    char *const ref[] = {"/usr/bin/python3", py, gold, pred, NULL};
    double base = 0;
    if (bench_run(ref, &secs, &rss) == 0) {
      base = bench_last_cpu;
      printf("%-36s %8.2f %8.2f %14.0f %9.1f\n", "reference: python json.loads, both", secs,
             bench_last_cpu, (double)n / bench_last_cpu, rss);
    }
    if (bench_run(res, &secs, &rss) != 0)
      return 1;
    printf("%-36s %8.2f %8.2f %14.0f %9.1f  (%.2fx the reference)\n", "rescue score (rescue)", secs,
           bench_last_cpu, (double)n / bench_last_cpu, rss, base ? base / bench_last_cpu : 0);
    if (bench_run(rel, &secs, &rss) != 0)
      return 1;
    printf("%-36s %8.2f %8.2f %14.0f %9.1f  (%.2fx the reference)\n", "rescue score (release)",
           secs, bench_last_cpu, (double)n / bench_last_cpu, rss, base ? base / bench_last_cpu : 0);
  }
  if (degenerate_runs(dir, &g))
    return 1;
  if (!keep) {
    unlink(gold);
    unlink(pred);
    unlink(py);
    if (dir == tmpl)
      rmdir(dir);
  }
  rescue_buf_clear(&g);
  rescue_buf_clear(&p);
  return 0;
}
