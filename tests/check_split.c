/*
** check_split.c: `rescue split` and split-aware task exports: largest-remainder group
** counts per scenario, determinism per seed, no group in two splits, recorded history,
** ratio 0, --split, groups added after a split, and the CLI.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taskutil.h"
#include "prim_int.h"
#include "store_int.h"

/* 10 couple groups and 3 family groups, 1-3 samples each, each with ITP instances. */
static char *split_corpus(void) {
  rescue_buf b = RESCUE_BUF_INIT;
  char id[64], *db;
  int g, s;
  for (g = 0; g < 13; g++)
    for (s = 0; s <= g % 3; s++) {
      if (g < 10)
        snprintf(id, sizeof id, "couple_%02d/s%d", g, s);
      else
        snprintf(id, sizeof id, "family_therapy/f%d/s%d", g - 10, s);
      tt_sample_open(&b, id, NULL);
      tt_row(&b, "\"Ann\"", "[]", "a", "");
      tt_row(&b, "\"Bob\"", "[]", "b", "");
      tt_row(&b, "\"Therapist\"", "[\"Ann\"]", "c", "");
      tt_sample_close(&b);
    }
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  return db;
}

static int assign(const char *db, const char *ratios, uint64_t seed, int stratify,
                  rescue_split_result *res) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_split_opts o = {0};
  int rc;
  ck_assert_int_eq(rescue_split_parse_ratios(ratios, o.ratios, &err), 0);
  o.ratios_text = ratios;
  o.seed = seed;
  o.stratify = stratify;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  rc = rescue_split_assign(st, &o, res);
  rescue_store_close(&st);
  return rc;
}

START_TEST(test_group_counts) {
  char *db = split_corpus();
  rescue_split_result r;
  ck_assert_int_eq(assign(db, "0.8,0.1,0.1", 1, 1, &r), 0);
  /* couple 10 groups: 8/1/1; family 3: 2.4/0.3/0.3 -> 2/0/0 + 1 to the largest remainder */
  ck_assert_int_eq(r.scenario_groups[0][0], 8);
  ck_assert_int_eq(r.scenario_groups[0][1], 1);
  ck_assert_int_eq(r.scenario_groups[0][2], 1);
  ck_assert_int_eq(r.scenario_groups[1][0], 3);
  ck_assert_int_eq(r.scenario_groups[1][1], 0);
  ck_assert_int_eq(r.scenario_groups[1][2], 0);
  ck_assert_int_eq(r.samples[0] + r.samples[1] + r.samples[2], 19 + 6); /* 25 samples */
  /* one draw over 13 groups: 10.4/1.3/1.3 -> 10/1/1 + 1 to train */
  ck_assert_int_eq(assign(db, "8,1,1", 1, 0, &r), 0);
  ck_assert_int_eq(r.groups[0], 11);
  ck_assert_int_eq(r.groups[1], 1);
  ck_assert_int_eq(r.groups[2], 1);
  /* 0.5/0.25/0.25 of 10 couple groups: 5/2.5/2.5 -> 5/2/2 + 1: a tie, the earlier split wins */
  ck_assert_int_eq(assign(db, "0.5,0.25,0.25", 3, 1, &r), 0);
  ck_assert_int_eq(r.scenario_groups[0][0], 5);
  ck_assert_int_eq(r.scenario_groups[0][1], 3);
  ck_assert_int_eq(r.scenario_groups[0][2], 2);
  /* a zero ratio leaves a split out */
  ck_assert_int_eq(assign(db, "0,0,1", 3, 1, &r), 0);
  ck_assert_int_eq(r.groups[2], 13);
  ck_assert_int_eq(r.groups[0] + r.groups[1], 0);
  free(db);
}
END_TEST

/* The split of each sample id in an export, as "id=split\n" lines sorted by id. */
static char *assignment(const char *out) {
  rescue_buf b = RESCUE_BUF_INIT;
  int sp;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
    char rel[64], *text, *p;
    snprintf(rel, sizeof rel, "splits/%s.txt", rescue_split_name(sp));
    if (!(text = tu_read(tu_path(out, rel), NULL)))
      continue;
    for (p = strtok(text, "\n"); p; p = strtok(NULL, "\n"))
      rescue_buf_printf(&b, "%s=%s\n", p, rescue_split_name(sp));
    free(text);
  }
  return rescue_buf_detach(&b);
}

/* "group/sample=split\n" at p: the group (before the id's last '/') and the split. */
static void parse_line(const char *p, char grp[128], char split[32]) {
  size_t len = strcspn(p, "\n"), eq = strcspn(p, "="), slash = eq;
  while (slash > 0 && p[slash] != '/')
    slash--;
  snprintf(grp, 128, "%.*s", (int)slash, p);
  snprintf(split, 32, "%.*s", (int)(len - eq - 1), p + eq + 1);
}

START_TEST(test_determinism_and_leakage) {
  char *db = split_corpus(), *a, *b, *x, *y, *out;
  rescue_split_result r;
  rescue_tasks_result res;
  int sp, seed, differs = 0;
  ck_assert_int_eq(assign(db, "0.6,0.2,0.2", 42, 1, &r), 0);
  out = tt_export(db, NULL, &res);
  ck_assert_int_eq(res.split_run, r.run_id);
  a = assignment(out);
  free(out);
  ck_assert_int_eq(assign(db, "0.6,0.2,0.2", 42, 1, &r), 0);
  out = tt_export(db, NULL, NULL);
  b = assignment(out);
  ck_assert_str_eq(a, b); /* same seed, same assignment */
  /* no group in two splits: the group (id before the last '/') maps to one split */
  for (x = a; *x; x = strchr(x, '\n') + 1) {
    char g1[128], s1[32], g2[128], s2[32];
    parse_line(x, g1, s1);
    for (y = a; *y; y = strchr(y, '\n') + 1) {
      parse_line(y, g2, s2);
      if (strcmp(g1, g2) == 0)
        ck_assert_msg(strcmp(s1, s2) == 0, "group %s is in %s and %s", g1, s1, s2);
    }
  }
  /* every task file holds only its split's samples */
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
    char rel[64], *text, *ids;
    json_t *recs, *rec;
    size_t i;
    snprintf(rel, sizeof rel, "splits/%s.txt", rescue_split_name(sp));
    text = tu_read(tu_path(out, rel), NULL);
    ck_assert_ptr_nonnull(text);
    ids = malloc(strlen(text) + 2);
    sprintf(ids, "\n%s", text); /* every id sits between newlines */
    free(text);
    snprintf(rel, sizeof rel, "itp/%s.jsonl", rescue_split_name(sp));
    recs = tt_jsonl(tu_path(out, rel));
    ck_assert_int_gt((int)json_array_size(recs), 0);
    json_array_foreach(recs, i, rec) {
      char line[128];
      snprintf(line, sizeof line, "\n%s\n", tt_str(rec, "sample_id"));
      ck_assert_msg(strstr(ids, line) != NULL, "%s not in %s", tt_str(rec, "sample_id"),
                    rescue_split_name(sp));
    }
    json_decref(recs);
    free(ids);
  }
  free(out);
  /* other seeds give other assignments */
  for (seed = 1; seed <= 5; seed++) {
    char *c;
    ck_assert_int_eq(assign(db, "0.6,0.2,0.2", (uint64_t)seed, 1, &r), 0);
    out = tt_export(db, NULL, NULL);
    c = assignment(out);
    differs |= strcmp(c, a) != 0;
    free(c);
    free(out);
  }
  ck_assert(differs);
  free(a);
  free(b);
  free(db);
}
END_TEST

START_TEST(test_history_ratio_zero_and_filter) {
  char *db = split_corpus(), *out, *man;
  rescue_split_result r;
  rescue_tasks_opts o;
  rescue_tasks_result res;
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  sqlite3 *sq;
  sqlite3_stmt *q;
  ck_assert_int_eq(assign(db, "0.8,0.1,0.1", 1, 1, &r), 0);
  ck_assert_int_eq(assign(db, "0,0,1", 1, 1, &r), 0);
  /* both runs are kept; the latest is in use */
  ck_assert_int_eq(sqlite3_open(db, &sq), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(sq, "SELECT count(*), max(id) FROM split_run", -1, &q, NULL),
                   SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_int(q, 0), 2);
  ck_assert_int_eq(sqlite3_column_int(q, 1), r.run_id);
  sqlite3_finalize(q);
  sqlite3_close(sq);
  out = tt_export(db, NULL, &res);
  ck_assert_int_eq(access(tu_path(out, "itp/test.jsonl"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(out, "splits/test.txt"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(out, "itp/train.jsonl"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(out, "itp.jsonl"), F_OK), 0);
  man = tu_read(tu_path(out, "README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(man, "- config_name: itp\n  data_files:\n  - split: test\n    path: "
                                    "itp/test.jsonl\n- config_name: rpp"));
  free(man);
  free(out);
  /* --split names a split the run left out: refused, nothing written */
  rescue_tasks_opts_init(&o);
  o.split = "train";
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err), 0);
  ck_assert_int_eq(rescue_export_tasks(st, "/nonexistent/never", &o, &res), RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "split 'train' is left out of split run"));
  rescue_store_close(&st);
  /* --split writes that split only */
  ck_assert_int_eq(assign(db, "0.6,0.2,0.2", 9, 1, &r), 0);
  o.split = "validation";
  out = tt_export(db, &o, &res);
  ck_assert_int_eq(access(tu_path(out, "vp/validation.jsonl"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(out, "vp/train.jsonl"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(out, "splits/test.txt"), F_OK), 0);
  ck_assert_int_eq(res.samples + res.other_split, 25);
  ck_assert_int_gt(res.other_split, 0);
  free(out);
  free(db);
}
END_TEST

START_TEST(test_group_added_after_split) {
  char *db = split_corpus(), *out = NULL, *err = NULL, in[4096];
  rescue_split_result r;
  rescue_tasks_result res;
  rescue_buf b = RESCUE_BUF_INIT;
  int rc;
  ck_assert_int_eq(assign(db, "0.8,0.1,0.1", 5, 1, &r), 0);
  tt_sample_open(&b, "newcomers/s0", NULL);
  tt_row(&b, "\"Cy\"", "[]", "a", "");
  tt_sample_close(&b);
  snprintf(in, sizeof in, "%s.new.jsonl", db);
  tu_write(in, b.s);
  rescue_buf_clear(&b);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, in, NULL), 0);
  free(tt_export(db, NULL, &res));
  ck_assert_int_eq(res.unassigned, 1);
  ck_assert_int_eq(res.samples, 25);
  {
    char *dir = tu_tmpdir();
    rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", tu_path(dir, "o"), NULL);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(strstr(err, "rescue: export: warning: left out 1 sample whose group the "
                                      "split run does not cover; run 'rescue split' again"));
    free(out);
    free(err);
    free(dir);
  }
  free(db);
}
END_TEST

START_TEST(test_cli_split) {
  char *db = split_corpus(), *out = NULL, *err = NULL, *dir = tu_tmpdir(), copy[4096];
  size_t len;
  char *data;
  int rc;
  static const char *const bad[][4] = {
      {"--seed", "1", NULL, "missing --ratios"},
      {"--ratios", "0.8,0.1,0.1", NULL, "missing --seed"},
      {"--ratios", "0.8,0.2", "--seed", "ratios must be three numbers"},
      {"--ratios", "-1,1,1", "--seed", "ratios must be three numbers"},
      {"--ratios", "0,0,0", "--seed", "add up to 0"},
      {"--ratios", "1,1,1", "--seed", "--seed expects a whole number"}};
  size_t i;
  snprintf(copy, sizeof copy, "%s/copy.db", dir);
  data = tu_read(db, &len);
  tu_write_n(copy, data, len);
  free(data);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    if (bad[i][2])
      rc = tu_rescue(&out, &err, "split", db, bad[i][0], bad[i][1], bad[i][2], i == 5 ? "-3" : "1",
                     NULL);
    else
      rc = tu_rescue(&out, &err, "split", db, bad[i][0], bad[i][1], NULL);
    ck_assert_int_eq(rc, 2);
    ck_assert_msg(strstr(err, bad[i][3]) != NULL, "%zu: %s", i, err);
    ck_assert_ptr_nonnull(strstr(err, "usage: rescue split <db>"));
    free(out);
    free(err);
  }
  ck_assert(tu_same_file(db, copy)); /* nothing recorded */
  rc = tu_rescue(&out, &err, "split", tu_path(dir, "none.db"), "--ratios", "1,0,0", "--seed", "1",
                 NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue init"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "split", db, "--ratios", "0.8,0.1,0.1", "--seed", "7", NULL);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_ptr_nonnull(strstr(out, "split run 1 (seed 7, ratios 0.8,0.1,0.1, stratified by "
                                    "scenario):\n  train         11 groups (8 couple, 3 family)"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "split", "-h", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "--no-stratify"));
  free(out);
  free(err);
  free(dir);
  free(db);
}
END_TEST

/*
** The generator and hash behind "the same seed gives the same split" (and the same
** assignment, and clip --shard): their outputs are pinned here, computed independently
** (Python, the published SplitMix64 and FNV-1a constants). A change here changes every
** split users have published.
*/
START_TEST(test_generator_pinned) {
  static const uint64_t first[3] = {0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
                                    0x06c45d188009454fULL};
  static const uint64_t draws[8] = {3, 1, 8, 4, 0, 2, 5, 8};
  uint64_t state = 0;
  int i;
  for (i = 0; i < 3; i++)
    ck_assert_uint_eq(rescue_splitmix64(&state), first[i]);
  state = 42;
  for (i = 0; i < 8; i++)
    ck_assert_uint_eq(rescue_splitmix64_below(&state, 10), draws[i]);
  ck_assert_uint_eq(rescue_fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  ck_assert_uint_eq(rescue_fnv1a64("family_therapy/demo01/merged"), 0xd931165a598a4531ULL);
  ck_assert_uint_eq(rescue_fnv1a64_n("a", 1), 0xaf63dc4c8601ec8cULL);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("split");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_group_counts);
  tcase_add_test(t, test_generator_pinned);
  tcase_add_test(t, test_determinism_and_leakage);
  tcase_add_test(t, test_history_ratio_zero_and_filter);
  tcase_add_test(t, test_group_added_after_split);
  tcase_add_test(t, test_cli_split);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
