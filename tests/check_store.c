/*
** check_store.c: the corpus store: create/open, versions and views, row sets,
** sample order, derived keys, sample_id safety, the scheme.
*/
#include <fcntl.h>
#include <linux/fs.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "rescue_edit.h"
#include "rescue_review.h"
#include "testutil.h"
#include "store_int.h"

/* A minimal valid row; `speaker`, `target` and `dialogue` vary. */
static void row_json(rescue_buf *b, int i, const char *speaker, const char *target,
                     const char *dialogue) {
  rescue_buf_printf(b,
                    "{\"start_time\": %d.0, \"end_time\": %d.5, \"primary_speaker\": \"%s\", "
                    "\"target\": [\"%s\"], \"dialogue_cleaned\": \"%s\", \"utterance_type\": \"\", "
                    "\"row_index\": %d}",
                    i, i, speaker, target, dialogue, i + 1);
}

/* A JSONL line for a sample with n rows; row `changed` (0-based, or -1) gets other text. */
static char *sample_line(const char *id, int n, int changed, const char *extra_key) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  rescue_buf_printf(&b, "{\"sample_id\": \"%s\", %s\"rows\": [", id, extra_key ? extra_key : "");
  for (i = 0; i < n; i++) {
    if (i)
      rescue_buf_puts(&b, ", ");
    row_json(&b, i, i % 2 ? "Therapist" : "Ana", i % 2 ? "Ana" : "Therapist",
             i == changed ? "changed words" : "hello there");
  }
  rescue_buf_puts(&b, "]}\n");
  return rescue_buf_detach(&b);
}

static int import_text(rescue_store *st, const char *text, const char *annotator, int reseg) {
  char *dir = tu_tmpdir();
  const char *path = tu_path(dir, "in.jsonl");
  const char *paths[1] = {path};
  rescue_import_opts o = {.format = RESCUE_FMT_AUTO, .annotator = annotator, .resegment = reseg};
  rescue_import_result r;
  int64_t id;
  int rc;
  /* only registered annotators import under their name: register them as a user would */
  if (annotator && rescue_annotator_lookup(st, annotator, &id, NULL, NULL) == RESCUE_ENOANNOTATOR) {
    char token[65];
    int existed;
    ck_assert_int_eq(rescue_annotator_add(st, annotator, NULL, token, &existed), 0);
  }
  tu_write(path, text);
  rc = rescue_import(st, paths, 1, &o, &r);
  unlink(path);
  rmdir(dir);
  free(dir);
  return rc;
}

static rescue_store *open_new(char **dbpath) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  *dbpath = tu_new_corpus();
  ck_assert_msg(rescue_store_open(&st, *dbpath, 0, &err) == 0, "%s", err.msg);
  return st;
}

/* Content of row `pos` (1-based) of the sample in a view (static copy). */
static const char *view_row(rescue_store *st, const char *view, const char *id, int pos,
                            int *complete) {
  static char buf[4096];
  rescue_view v;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  const char *only[1] = {id};
  buf[0] = 0;
  ck_assert_int_eq(rescue_view_parse(st, view, &v), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  if (complete)
    *complete = s->complete;
  for (int i = 0; i < s->n; i++)
    if (s->rows[i].position == pos)
      snprintf(buf, sizeof buf, "%s", s->rows[i].content);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 0);
  rescue_sample_iter_free(&it);
  return buf;
}

static long count(rescue_store *st, const char *sql) {
  sqlite3_stmt *s;
  long n = -1;
  ck_assert_int_eq(sqlite3_prepare_v2(rescue_store_db(st), sql, -1, &s, NULL), SQLITE_OK);
  if (sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  return n;
}

/* The access generation after running sql (NULL: none) on st's connection. */
static int64_t access_after(rescue_store *st, const char *sql) {
  int64_t g = -1;
  if (sql)
    ck_assert_msg(sqlite3_exec(rescue_store_db(st), sql, NULL, NULL, NULL) == SQLITE_OK, "%s: %s",
                  sql, sqlite3_errmsg(rescue_store_db(st)));
  ck_assert_int_eq(rescue_access_generation(st, &g), 0);
  return g;
}

/*
** Migration 15: the access generation moves with every write to annotators, retirements,
** assignment runs, assignments and the set of samples, and not with a sample's status.
*/
START_TEST(test_access_generation) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  int64_t g;
  const char *moves[] = {
      "INSERT INTO annotator(name, created_at) VALUES ('ann', 'now')",
      "UPDATE annotator SET token_hash = 'x' WHERE name = 'ann'",
      "UPDATE annotator SET role = 'lead' WHERE name = 'ann'",
      "INSERT INTO annotator_retirement(annotator_id, retired, created_at) VALUES (1, 1, 'now')",
      ("INSERT INTO grp(name) VALUES ('g'); INSERT INTO sample(sample_id, sort_key, group_id, "
       "created_at) VALUES ('g/s', x'67', 1, 'now')"),
      "INSERT INTO assign_run(created_at, seed, overlap, annotators) VALUES ('now', 1, 0, 'ann')",
      "INSERT INTO assignment(run_id, sample_ref, annotator_id) VALUES (1, 1, 1)",
      "DELETE FROM assignment",
      "UPDATE sample SET sample_id = 'g/t'",
  };
  size_t i;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  g = access_after(st, NULL);
  for (i = 0; i < sizeof moves / sizeof moves[0]; i++) {
    int64_t now = access_after(st, moves[i]);
    ck_assert_msg(now > g, "%s: the access generation stayed at %lld", moves[i], (long long)g);
    g = now;
  }
  ck_assert_int_eq(access_after(st, "UPDATE sample SET status = 'in_review'"), g);
  ck_assert_int_eq(access_after(st, "INSERT INTO grp(name) VALUES ('h')"), g);
  rescue_store_close(&st);
  free(db);
}
END_TEST

START_TEST(test_create_and_open) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  char bogus[4200];
  /* never overwrites */
  ck_assert_int_eq(rescue_store_create(db, NULL, 0, &err), RESCUE_EEXISTS);
  ck_assert_ptr_nonnull(strstr(err.msg, "already exists"));
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(count(st, "PRAGMA application_id"), RESCUE_APPLICATION_ID);
  ck_assert_int_ge(count(st, "PRAGMA user_version"), 15);
  /* migration 14: a reference line moves no generation of its own (its version's does) */
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sqlite_master WHERE name = 'gen_row_ref_ins'"),
                   0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM meta WHERE key = 'scheme'"), 1);
  ck_assert_str_eq(rescue_store_scheme(st)->therapist, "Therapist");
  /* a new annotator's name must be printable UTF-8 */
  {
    int64_t id;
    ck_assert_int_eq(rescue_annotator_id(st, "ann\x1b[2J", NULL, 1, &id), RESCUE_EINVAL);
    ck_assert_int_eq(rescue_annotator_id(st, "ann\xff", NULL, 1, &id), RESCUE_EINVAL);
    ck_assert_int_eq(rescue_annotator_id(st, "", NULL, 1, &id), RESCUE_EINVAL);
    ck_assert_int_eq(rescue_annotator_id(st, "Zo\xc3\xab", NULL, 1, &id), 0);
  }
  rescue_store_close(&st);
  ck_assert_ptr_null(st);

  /* a missing path is not created */
  snprintf(bogus, sizeof bogus, "%s.missing", db);
  ck_assert_int_eq(rescue_store_open(&st, bogus, 0, &err), RESCUE_ENOTCORPUS);
  /* the library describes the failure; the CLI adds what to do (tools/cli.c) */
  ck_assert_ptr_nonnull(strstr(err.msg, "is not a rescue corpus"));
  ck_assert_ptr_null(strstr(err.msg, "rescue init"));
  ck_assert_int_ne(access(bogus, F_OK), 0);
  /* a file that is not SQLite */
  tu_write(bogus, "just some text that is long enough to look like a file header....\n");
  ck_assert_int_eq(rescue_store_open(&st, bogus, 0, &err), RESCUE_ENOTCORPUS);
  ck_assert_ptr_nonnull(strstr(err.msg, "is not a rescue corpus"));
  unlink(bogus);
  /* an SQLite database of another application */
  {
    sqlite3 *other;
    ck_assert_int_eq(sqlite3_open(bogus, &other), SQLITE_OK);
    sqlite3_exec(other, "CREATE TABLE t(x)", NULL, NULL, NULL);
    sqlite3_close(other);
  }
  ck_assert_int_eq(rescue_store_open(&st, bogus, 0, &err), RESCUE_ENOTCORPUS);
  unlink(bogus);
  free(db);
}
END_TEST

START_TEST(test_newer_schema_refused) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  sqlite3 *raw;
  ck_assert_int_eq(sqlite3_open(db, &raw), SQLITE_OK);
  sqlite3_exec(raw, "PRAGMA user_version = 999", NULL, NULL, NULL);
  sqlite3_close(raw);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), RESCUE_EVERSION);
  ck_assert_ptr_nonnull(strstr(err.msg, "newer"));
  free(db);
}
END_TEST

START_TEST(test_versions_and_views) {
  char *db;
  rescue_store *st = open_new(&db);
  char *v1 = sample_line("g/s1", 3, -1, NULL), *v2 = sample_line("g/s1", 3, 1, NULL);
  int64_t carol;
  int complete;

  ck_assert_int_eq(import_text(st, v1, NULL, 0), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version"), 3);
  /* the same file again changes nothing */
  ck_assert_int_eq(import_text(st, v1, NULL, 0), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version"), 3);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample_version"), 1);
  /* a second annotator's identical revision still counts as their label: 3 versions */
  ck_assert_int_eq(import_text(st, v1, "bob", 0), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version"), 6);
  /* bob changes row 2: one new version */
  ck_assert_int_eq(import_text(st, v2, "bob", 0), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version"), 7);

  ck_assert_ptr_nonnull(strstr(view_row(st, NULL, "g/s1", 2, NULL), "changed words"));
  ck_assert_ptr_nonnull(strstr(view_row(st, "latest", "g/s1", 2, NULL), "changed words"));
  ck_assert_ptr_nonnull(strstr(view_row(st, "annotator:import", "g/s1", 2, NULL), "hello"));
  ck_assert_ptr_nonnull(strstr(view_row(st, "annotator:bob", "g/s1", 2, NULL), "changed"));
  /* an annotator without versions sees what they start from: the draft */
  ck_assert_int_eq(rescue_annotator_id(st, "carol", "annotator", 1, &carol), 0);
  ck_assert_ptr_nonnull(strstr(view_row(st, "annotator:carol", "g/s1", 2, NULL), "hello"));
  /* unknown annotator and unknown view */
  {
    rescue_view v;
    ck_assert_int_eq(rescue_view_parse(st, "annotator:nobody", &v), RESCUE_ENOTFOUND);
    ck_assert_int_eq(rescue_view_parse(st, "best", &v), RESCUE_EINVAL);
  }

  /* gold on row 2 wins in the corpus view, even over a later edit */
  {
    rescue_jdoc *d = rescue_jdoc_new();
    rescue_row_input in;
    const rescue_jnode *bad, *r;
    rescue_error e;
    rescue_buf rowtext = RESCUE_BUF_INIT;
    int64_t lead, row2, vid;
    memset(&in, 0, sizeof in);
    row_json(&rowtext, 1, "Therapist", "Ana", "gold words");
    r = rescue_jparse(d, rowtext.s, rowtext.len, NULL);
    ck_assert_int_eq(rescue_row_input_from_json(rescue_store_scheme(st), r, &in, &bad, &e), 0);
    ck_assert_int_eq(rescue_annotator_id(st, "lead", "lead", 1, &lead), 0);
    row2 = count(st, "SELECT r.id FROM row r JOIN sample s ON s.rowset_id = r.rowset_id "
                     "WHERE s.sample_id = 'g/s1' AND r.position = 2");
    ck_assert_int_eq(rescue_store_begin(st), 0);
    ck_assert_int_eq(
        rescue_store_add_row_version(st, row2, lead, "gold", &in, "lead", "[4, 7]", &vid), 0);
    ck_assert_int_eq(rescue_store_commit(st), 0);
    ck_assert_int_gt(vid, 7);
    rescue_row_input_clear(&in);
    rescue_buf_clear(&rowtext);
    rescue_jdoc_free(&d);
  }
  ck_assert_int_eq(import_text(st, v1, "bob", 0), 0); /* bob reverts row 2 afterwards */
  ck_assert_ptr_nonnull(strstr(view_row(st, NULL, "g/s1", 2, &complete), "gold words"));
  ck_assert_int_eq(complete, 1);
  ck_assert_ptr_nonnull(strstr(view_row(st, "latest", "g/s1", 2, NULL), "hello"));
  /* the gold view has only row 2: the sample is incomplete there */
  view_row(st, "gold", "g/s1", 2, &complete);
  ck_assert_int_eq(complete, 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version WHERE kind = 'gold' "
                             "AND gold_policy = 'lead' AND gold_sources = '[4, 7]'"),
                   1);
  rescue_store_close(&st);
  free(v1);
  free(v2);
  free(db);
}
END_TEST

START_TEST(test_rowsets) {
  char *db;
  rescue_store *st = open_new(&db);
  char *three = sample_line("g/s1", 3, -1, NULL), *four = sample_line("g/s1", 4, -1, NULL);
  int n;
  ck_assert_int_eq(import_text(st, three, NULL, 0), 0);
  /* its own code, so the CLI can add its hint; the message names no flag */
  ck_assert_int_eq(import_text(st, four, NULL, 0), RESCUE_ERESEGMENT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "has 3 rows in the corpus but 4"));
  ck_assert_ptr_null(strstr(rescue_store_errmsg(st), "--"));
  ck_assert_int_eq(count(st, "SELECT count(*) FROM rowset"), 1);
  ck_assert_int_eq(import_text(st, four, NULL, 1), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM rowset"), 2);
  ck_assert_int_eq(rescue_sample_rowcount(st, "g/s1", &n), 0);
  ck_assert_int_eq(n, 4);
  /* the old rows and their versions stay in history */
  ck_assert_int_eq(count(st, "SELECT count(*) FROM row_version"), 7);
  ck_assert_int_eq(rescue_sample_rowcount(st, "g/none", &n), RESCUE_ENOTFOUND);
  rescue_store_close(&st);
  free(three);
  free(four);
  free(db);
}
END_TEST

START_TEST(test_sample_order_and_groups) {
  char *db;
  rescue_store *st = open_new(&db);
  const char *ids[] = {"a-b/c", "a/b", "a/b/c", "a", "A/z", "a/b-c"};
  const char *want[] = {"A/z", "a", "a/b", "a/b/c", "a/b-c", "a-b/c"};
  rescue_buf all = RESCUE_BUF_INIT;
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  int i = 0;
  for (i = 0; i < 6; i++) {
    char *l = sample_line(ids[i], 2, -1, NULL);
    rescue_buf_puts(&all, l);
    free(l);
  }
  ck_assert_int_eq(import_text(st, all.s, NULL, 0), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  i = 0;
  while (rescue_sample_iter_next(it, &s) == 1) {
    ck_assert_str_eq(s->sample_id, want[i]);
    i++;
  }
  ck_assert_int_eq(i, 6);
  rescue_sample_iter_free(&it);
  /* groups: everything before the last '/', or the id itself */
  ck_assert_int_eq(count(st, "SELECT count(*) FROM grp WHERE name IN ('a', 'a/b', 'a-b', 'A')"), 4);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample s JOIN grp g ON g.id = s.group_id "
                             "WHERE s.sample_id = 'a' AND g.name = 'a'"),
                   1);
  /* an unknown id in a restricted iteration */
  {
    const char *only[] = {"a/b", "zzz"};
    ck_assert_int_eq(rescue_sample_iter_new(st, &v, only, 2, &it), RESCUE_ENOTFOUND);
    ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "zzz"));
  }
  rescue_buf_clear(&all);
  rescue_store_close(&st);
  free(db);
}
END_TEST

START_TEST(test_derived_keys) {
  char *db;
  rescue_store *st = open_new(&db);
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_buf out = RESCUE_BUF_INIT;
  /* no scenario or participants given; a family label in a support target */
  const char *line =
      "{\"sample_id\": \"x/y\", \"rows\": [{\"start_time\": 0, \"end_time\": 1, "
      "\"primary_speaker\": \" Maria \", \"target\": [\"Joel\", \"Therapist\", \"Couple\"]}, "
      "{\"start_time\": 1, \"end_time\": 2, \"primary_speaker\": \"Therapist\", \"target\": "
      "[\"Maria\"], \"support_strategy\": [{\"target\": [\"Family\", \"Laura\"]}]}], "
      "\"extra\": 1}\n";
  ck_assert_int_eq(import_text(st, line, NULL, 0), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_str_eq(rescue_sample_scenario(rescue_store_scheme(st), s), "family");
  rescue_sample_write_json(rescue_store_scheme(st), s, &out);
  {
    const char *want = "{\"sample_id\": \"x/y\", \"scenario\": \"family\", \"participants\": "
                       "[\"Maria\", \"Joel\", \"Laura\"], \"rows\": [";
    ck_assert_msg(strncmp(out.s, want, strlen(want)) == 0, "%s", out.s);
  }
  ck_assert_ptr_nonnull(strstr(out.s, "], \"extra\": 1}"));
  rescue_sample_iter_free(&it);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  free(db);
}
END_TEST

/* The export loop's step in test_export_loop: records ids, skips "g/c", fails on "g/e". */
typedef struct loop_log {
  rescue_buf ids;
  int begun, progress_calls;
  uint64_t last_done, last_total;
} loop_log;

static int loop_begin(void *arg) {
  ((loop_log *)arg)->begun++;
  return 0;
}

static int loop_step(void *arg, const rescue_sample *s) {
  loop_log *l = arg;
  ck_assert_int_eq(l->begun, 1); /* begin ran before the first sample */
  if (strcmp(s->sample_id, "g/e") == 0)
    return RESCUE_EIO;
  rescue_buf_printf(&l->ids, "%s ", s->sample_id);
  return strcmp(s->sample_id, "g/c") == 0 ? RESCUE_EXPORT_SKIP : 0;
}

static void loop_progress(void *arg, uint64_t done, uint64_t total) {
  loop_log *l = arg;
  l->progress_calls++;
  l->last_done = done;
  l->last_total = total;
}

START_TEST(test_export_loop) {
  char *db;
  rescue_store *st = open_new(&db);
  const char *ids[] = {"g/a", "g/b", "g/c", "g/d"};
  const char *only[] = {"g/b", "g/d"}, *unknown[] = {"g/a", "g/zz"};
  loop_log log = {RESCUE_BUF_INIT, 0, 0, 0, 0};
  rescue_export_loop l = {.view = &(rescue_view){.kind = RESCUE_VIEW_LATEST},
                          .progress_every = 2,
                          .progress = loop_progress,
                          .begin = loop_begin,
                          .each = loop_step};
  rescue_export_tally t;
  size_t i;
  l.arg = l.progress_arg = &log;
  for (i = 0; i < 4; i++) {
    char *line = sample_line(ids[i], 2, -1, NULL);
    ck_assert_int_eq(import_text(st, line, NULL, 0), 0);
    free(line);
  }
  ck_assert_int_eq(rescue_sample_set_status(st, "g/b", "discarded", "noise", 0), 0);
  /* all: b discarded, c skipped by the step, a and d taken; progress every 2 and at the end */
  ck_assert_int_eq(rescue_export_each(st, &l, &t), 0);
  ck_assert_str_eq(log.ids.s, "g/a g/c g/d ");
  ck_assert_int_eq(t.seen, 4);
  ck_assert_int_eq(t.discarded, 1);
  ck_assert_int_eq(t.incomplete, 0);
  ck_assert_int_eq(t.skipped, 1);
  ck_assert_int_eq(t.taken, 2);
  ck_assert_int_eq(log.progress_calls, 3);
  ck_assert_uint_eq(log.last_done, 4);
  ck_assert_uint_eq(log.last_total, 4);
  /* discarded ones when asked for; a list of ids */
  rescue_buf_reset(&log.ids);
  log.begun = 0;
  l.include_discarded = 1;
  l.samples = only;
  l.n_samples = 2;
  ck_assert_int_eq(rescue_export_each(st, &l, &t), 0);
  ck_assert_str_eq(log.ids.s, "g/b g/d ");
  ck_assert_int_eq(t.taken, 2);
  ck_assert_uint_eq(log.last_total, 2);
  /* an unknown id: refused before begin runs */
  log.begun = 0;
  l.samples = unknown;
  ck_assert_int_eq(rescue_export_each(st, &l, &t), RESCUE_ENOTFOUND);
  ck_assert_int_eq(log.begun, 0);
  ck_assert_int_eq(t.seen, 0);
  /* the gold view: no sample has gold on every row */
  l.samples = NULL;
  l.n_samples = 0;
  l.view = &(rescue_view){.kind = RESCUE_VIEW_GOLD};
  ck_assert_int_eq(rescue_export_each(st, &l, &t), 0);
  ck_assert_int_eq(t.incomplete, 4);
  ck_assert_int_eq(t.taken, 0);
  /* a step's error stops the loop and comes back */
  {
    char *line = sample_line("g/e", 1, -1, NULL);
    ck_assert_int_eq(import_text(st, line, NULL, 0), 0);
    free(line);
  }
  log.begun = 0;
  l.view = &(rescue_view){.kind = RESCUE_VIEW_LATEST};
  ck_assert_int_eq(rescue_export_each(st, &l, &t), RESCUE_EIO);
  ck_assert_int_eq(t.seen, 5); /* g/e comes last */
  ck_assert_int_eq(t.taken, 3);
  rescue_buf_clear(&log.ids);
  rescue_store_close(&st);
  free(db);
}
END_TEST

START_TEST(test_status) {
  char *db;
  rescue_store *st = open_new(&db);
  char *a = sample_line("g/a", 2, -1, NULL), *b = sample_line("g/b", 3, -1, NULL);
  char *dir = tu_tmpdir();
  rescue_export_opts o = {0};
  rescue_export_result r;
  rescue_table3 t;
  ck_assert_int_eq(import_text(st, a, NULL, 0), 0);
  ck_assert_int_eq(import_text(st, b, NULL, 0), 0);
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "discarded", NULL, 0), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "lost", "x", 0), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_sample_set_status(st, "g/zz", "reviewed", NULL, 0), RESCUE_ENOTFOUND);
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "in_review", NULL, 0), 0);
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "discarded", "audio unusable", 0), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample_status"), 2);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample WHERE status = 'discarded' AND "
                             "status_reason = 'audio unusable'"),
                   1);
  ck_assert_int_eq(rescue_export_samples(st, tu_path(dir, "x.jsonl"), 0, &o, &r), 0);
  ck_assert_int_eq(r.samples, 1);
  ck_assert_int_eq(r.discarded, 1);
  o.include_discarded = 1;
  o.force = 1;
  ck_assert_int_eq(rescue_export_samples(st, tu_path(dir, "x.jsonl"), 0, &o, &r), 0);
  ck_assert_int_eq(r.samples, 2);
  ck_assert_int_eq(rescue_stats_table3(st, &o.view, &t), 0);
  ck_assert_int_eq(t.all.samples, 1);
  ck_assert_int_eq(t.all.turns, 3);
  ck_assert_int_eq(t.discarded, 1);
  rescue_store_close(&st);
  rescue_remove_tree(dir);
  free(dir);
  free(a);
  free(b);
  free(db);
}
END_TEST

/*
** rescue_store_put_sample under RESCUE_PUT_RESEGMENT inside a writer's transaction (what
** the importer's writing pass does after its checking pass): a person's new row set for a
** discarded sample is refused (a status set by another program between the two passes is
** the one that counts) and the transaction can roll back; for a reviewed sample it is
** recorded and reopens it as a resegmentation. A model's (discarded again) is recorded
** and leaves the status alone.
*/
START_TEST(test_put_resegment_status) {
  char *db, *a = sample_line("g/a", 2, -1, NULL);
  rescue_store *st = open_new(&db);
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_row_input rows[3];
  rescue_sample_input in;
  rescue_buf text = RESCUE_BUF_INIT;
  const rescue_jnode *bad;
  rescue_error e;
  char token[65];
  int64_t ann, model;
  int i, existed;
  long rowsets;
  ck_assert_int_eq(import_text(st, a, NULL, 0), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "ann", NULL, token, &existed), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "m1", "model", token, &existed), 0);
  ck_assert_int_eq(rescue_annotator_lookup(st, "ann", &ann, NULL, NULL), 0);
  ck_assert_int_eq(rescue_annotator_lookup(st, "m1", &model, NULL, NULL), 0);
  memset(rows, 0, sizeof rows);
  for (i = 0; i < 3; i++) {
    rescue_buf_reset(&text);
    row_json(&text, i, i % 2 ? "Therapist" : "Ana", i % 2 ? "Ana" : "Therapist", "hello there");
    ck_assert_int_eq(rescue_row_input_from_json(rescue_store_scheme(st),
                                                rescue_jparse(d, text.s, text.len, NULL), &rows[i],
                                                &bad, &e),
                     0);
  }
  memset(&in, 0, sizeof in);
  in.sample_id = "g/a";
  in.head = "{\"sample_id\": \"g/a\", \"rows\": ";
  in.tail = "}";
  in.has_rows = 1;
  in.given_keys = RESCUE_GIVEN_SAMPLE_ID;
  in.n_rows = 3;
  in.rows = rows;
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "discarded", "noise", 0), 0);
  rowsets = count(st, "SELECT count(*) FROM rowset");
  ck_assert_int_eq(rescue_store_begin(st), 0);
  ck_assert_int_eq(rescue_store_put_sample(st, &in, ann, "import", RESCUE_PUT_RESEGMENT, NULL),
                   RESCUE_ECONFLICT);
  ck_assert_str_eq(rescue_store_errmsg(st),
                   "sample 'g/a' is discarded: rows are not split or merged in a discarded "
                   "sample; set it back to in review first");
  rescue_store_rollback(st);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM rowset"), rowsets);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample WHERE status = 'discarded'"), 1);
  /* reviewed: ann's row set is recorded and reopens it, said to be a resegmentation */
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "reviewed", NULL, 0), 0);
  ck_assert_int_eq(rescue_store_begin(st), 0);
  ck_assert_int_eq(rescue_store_put_sample(st, &in, ann, "import", RESCUE_PUT_RESEGMENT, NULL), 0);
  ck_assert_int_eq(rescue_store_commit(st), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM rowset"), rowsets + 1);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample WHERE status = 'in_review' AND "
                             "status_reason = 'reopened: the rows were resegmented by an import'"),
                   1);
  /* a model's row set is no person's resegmentation: recorded, the sample left discarded */
  ck_assert_int_eq(rescue_sample_set_status(st, "g/a", "discarded", "noise", 0), 0);
  ck_assert_int_eq(rescue_store_begin(st), 0);
  ck_assert_int_eq(rescue_store_put_sample(st, &in, model, "import", RESCUE_PUT_RESEGMENT, NULL),
                   0);
  ck_assert_int_eq(rescue_store_commit(st), 0);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM rowset"), rowsets + 2);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM sample WHERE status = 'discarded'"), 1);
  for (i = 0; i < 3; i++)
    rescue_row_input_clear(&rows[i]);
  rescue_buf_clear(&text);
  rescue_jdoc_free(&d);
  rescue_store_close(&st);
  free(a);
  free(db);
}
END_TEST

START_TEST(test_scenario_by_id) {
  char *db;
  rescue_store *st = open_new(&db);
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  const char *want[] = {"couple", "family", "family"};
  char *a = sample_line("Family_Therapy/003/merged", 1, -1, NULL);
  char *b = sample_line("x/family_therapy/9", 1, -1, NULL);
  char *c = sample_line("family_therapyx/1", 1, -1, NULL);
  int i = 0;
  ck_assert_int_eq(import_text(st, a, NULL, 0), 0);
  ck_assert_int_eq(import_text(st, b, NULL, 0), 0);
  ck_assert_int_eq(import_text(st, c, NULL, 0), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  /* order: Family_Therapy/003/merged, family_therapyx/1, x/family_therapy/9 */
  while (rescue_sample_iter_next(it, &s) == 1) {
    const char *sc = rescue_sample_scenario(rescue_store_scheme(st), s);
    if (i == 0)
      ck_assert_str_eq(sc, want[1]); /* lower-cased prefix matches */
    else if (i == 1)
      ck_assert_str_eq(sc, want[0]); /* not a path component: couple */
    else
      ck_assert_str_eq(sc, want[2]);
    i++;
  }
  ck_assert_int_eq(i, 3);
  rescue_sample_iter_free(&it);
  rescue_store_close(&st);
  free(a);
  free(b);
  free(c);
  free(db);
}
END_TEST

START_TEST(test_unsafe_ids) {
  static const char *bad[] = {"",      "/abs",      "a//b",      "a/",        "./a",
                              "a/./b", "..",        "a/../b",    "a\\b",      "a\tb",
                              "a\x7f", ".hidden/x", "g/clips/x", "g/manifest"};
  static const char *good[] = {"a",
                               "a/b",
                               "alan_and_evelyn/001_s01e01_ct25_segment04",
                               "family_therapy/003/merged",
                               "a.b/c..d",
                               "manifest/x",
                               "caf\xc3\xa9/1"};
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++)
    ck_assert_msg(rescue_sample_id_unsafe(bad[i], strlen(bad[i])) != NULL, "accepted '%s'", bad[i]);
  ck_assert_ptr_nonnull(rescue_sample_id_unsafe("a\0b", 3));
  /* ids from paths or --sample never went through the JSON reader: UTF-8 is checked here */
  {
    static const char *bad8[] = {("a\xff"
                                  "b"),
                                 "g/\xc0\xaf", "g/\xed\xa0\x80", "g/\xc3", "\xf4\x90\x80\x80"};
    for (i = 0; i < sizeof bad8 / sizeof bad8[0]; i++) {
      const char *why = rescue_sample_id_unsafe(bad8[i], strlen(bad8[i]));
      ck_assert_msg(why && strstr(why, "UTF-8"), "accepted bad UTF-8 #%zu", i);
    }
  }
  for (i = 0; i < sizeof good / sizeof good[0]; i++)
    ck_assert_msg(rescue_sample_id_unsafe(good[i], strlen(good[i])) == NULL, "refused '%s'",
                  good[i]);
}
END_TEST

START_TEST(test_scheme) {
  size_t len;
  const char *xml = rescue_scheme_default_xml(&len);
  rescue_scheme *s = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  const rescue_labelset *ls;
  const rescue_field *f;
  ck_assert_int_eq(rescue_scheme_load(xml, len, &s, &err), 0);
  ls = rescue_scheme_labelset(s, "relation_pattern", "couple");
  ck_assert_int_eq(ls->n, 6);
  ck_assert_str_eq(ls->labels[0], "pursue_withdraw");
  ls = rescue_scheme_labelset(s, "relation_pattern", "family");
  ck_assert_int_eq(ls->n, 8);
  ck_assert_int_eq(rescue_labelset_find(ls, "cross_generational_coalition"), 3);
  ls = rescue_scheme_labelset(s, "support_strategy", "couple");
  ck_assert_int_eq(ls->n, 10);
  ck_assert_int_eq(rescue_labelset_find(ls, "boundary"), -1);
  ls = rescue_scheme_labelset(s, "support_strategy", "family");
  ck_assert_int_eq(ls->n, 8);
  ck_assert_int_eq(rescue_labelset_find(ls, "boundary"), 5);
  ls = rescue_scheme_labelset(s, "utterance_type", "family");
  ck_assert_int_eq(ls->n, 10);
  ck_assert_str_eq(rescue_scheme_group_label(s, "family"), "Family");
  ck_assert(rescue_scheme_is_reserved(s, "Couple"));
  ck_assert(!rescue_scheme_is_reserved(s, "couple"));
  f = rescue_scheme_field(s, "internal_emotion");
  ck_assert_int_eq(f->type, RESCUE_F_LIST);
  f = rescue_field_child(f, "intensity");
  ck_assert(f->has_min && f->has_max && f->min == 0 && f->max == 10);
  ck_assert_str_eq(f->level, "interval");
  ck_assert_str_eq(s->fields[0].key, "start_time");
  ck_assert_str_eq(s->fields[14].key, "support_strategy");
  rescue_scheme_free(&s);

  /* bad schemes: not XML, grammar violation, semantic error */
  ck_assert_int_eq(rescue_scheme_load("<scheme", 7, &s, &err), RESCUE_ESCHEME);
  ck_assert_ptr_nonnull(strstr(err.msg, "not well-formed"));
  {
    const char *g =
        "<scheme xmlns=\"urn:rescue:scheme:1\" name=\"x\" version=\"1\"><fields/></scheme>";
    ck_assert_int_eq(rescue_scheme_load(g, strlen(g), &s, &err), RESCUE_ESCHEME);
    ck_assert_ptr_nonnull(strstr(err.msg, "grammar"));
  }
  {
    const char *g =
        "<scheme xmlns=\"urn:rescue:scheme:1\" name=\"x\" version=\"1\"><entities>"
        "<reserved name=\"T\" role=\"practitioner\"/><group scenario=\"c\" label=\"C\"/>"
        "</entities><labelset name=\"a\"><label name=\"l\">x</label></labelset><fields>"
        "<field key=\"k\" type=\"label\" labels=\"nope\">x</field></fields></scheme>";
    ck_assert_int_eq(rescue_scheme_load(g, strlen(g), &s, &err), RESCUE_ESCHEME);
    ck_assert_ptr_nonnull(strstr(err.msg, "unknown labelset 'nope'"));
  }
}
END_TEST

/*
** A child process that takes the corpus the way a bulk import does (rollback journal,
** exclusive lock) and holds it for `hold_ms`; returns once the lock is held.
*/
static pid_t hold_exclusive(const char *db, int hold_ms) {
  int fds[2];
  char c;
  pid_t pid;
  ck_assert_int_eq(pipe(fds), 0);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    sqlite3 *raw = NULL;
    close(fds[0]);
    if (sqlite3_open(db, &raw) != SQLITE_OK ||
        sqlite3_exec(raw, "PRAGMA journal_mode = DELETE; BEGIN EXCLUSIVE", NULL, NULL, NULL) !=
            SQLITE_OK)
      _exit(3);
    if (write(fds[1], "x", 1) != 1)
      _exit(4);
    usleep((useconds_t)hold_ms * 1000);
    sqlite3_exec(raw, "COMMIT; PRAGMA journal_mode = WAL", NULL, NULL, NULL);
    sqlite3_close(raw);
    _exit(0);
  }
  close(fds[1]);
  ck_assert_int_eq(read(fds[0], &c, 1), 1);
  close(fds[0]);
  return pid;
}

/* Opening waits for a writer that holds the corpus instead of calling it "not a corpus". */
START_TEST(test_open_waits_for_writer) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  int flags[2] = {0, RESCUE_OPEN_READONLY}, i, status;
  for (i = 0; i < 2; i++) {
    pid_t pid = hold_exclusive(db, 600);
    int rc = rescue_store_open(&st, db, flags[i], &err);
    ck_assert_msg(rc == 0, "open (flags %d) while another process writes: %s", flags[i], err.msg);
    rescue_store_close(&st);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  free(db);
}
END_TEST

/*
** A writer killed mid-transaction under a rollback journal (a bulk import) leaves a hot
** journal; a read-only open must still work (and see the rolled-back state), and the
** corpus is back in WAL mode.
*/
START_TEST(test_open_after_interrupted_write) {
  char *db = tu_new_corpus(), journal[4200];
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  struct stat sb;
  pid_t pid;
  int status;
  snprintf(journal, sizeof journal, "%s-journal", db);
  pid = fork();
  ck_assert_int_ge(pid, 0);
  if (pid == 0) {
    sqlite3 *raw = NULL;
    if (sqlite3_open(db, &raw) != SQLITE_OK ||
        sqlite3_exec(raw,
                     "PRAGMA journal_mode = DELETE; PRAGMA cache_size = 1; BEGIN IMMEDIATE; "
                     "UPDATE meta SET value = value || 'x'",
                     NULL, NULL, NULL) != SQLITE_OK)
      _exit(3);
    _exit(0); /* as if killed: no commit, no rollback */
  }
  ck_assert_int_eq(waitpid(pid, &status, 0), pid);
  ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  ck_assert_msg(stat(journal, &sb) == 0 && sb.st_size > 0, "no hot journal was left");

  ck_assert_msg(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(count(st, "SELECT count(*) FROM meta WHERE value LIKE '%x'"), 0);
  rescue_store_close(&st);
  ck_assert_msg(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err) == 0, "%s", err.msg);
  {
    sqlite3_stmt *s;
    ck_assert_int_eq(sqlite3_prepare_v2(rescue_store_db(st), "PRAGMA journal_mode", -1, &s, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
    ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "wal");
    sqlite3_finalize(s);
  }
  rescue_store_close(&st);
  free(db);
}
END_TEST

/*
** A connection that never waits (rescue_store_never_wait, what the server's connection
** threads read with): while another connection holds an uncommitted write, its reads see
** the last commit and note nothing; a write of its own fails with RESCUE_EBUSY and notes
** the wait instead of waiting out the busy timeout (10 s); given a busy timeout again, it
** writes once the other is done.
*/
START_TEST(test_never_wait) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *a = NULL, *b = NULL;
  int would_wait = 0;
  ck_assert_msg(rescue_store_open(&a, db, RESCUE_OPEN_DURABLE, &err) == 0, "%s", err.msg);
  ck_assert_msg(rescue_store_open(&b, db, RESCUE_OPEN_DURABLE, &err) == 0, "%s", err.msg);
  rescue_store_never_wait(a, &would_wait);
  ck_assert_int_eq(rescue_store_begin(b), 0);
  ck_assert_int_eq(
      sqlite3_exec(rescue_store_db(b), "UPDATE meta SET value = value || 'x'", NULL, NULL, NULL),
      SQLITE_OK);
  ck_assert_int_eq(rescue_store_read_begin(a), 0);
  ck_assert_int_eq(count(a, "SELECT count(*) FROM meta WHERE value LIKE '%x'"), 0);
  rescue_store_read_end(a);
  ck_assert_int_eq(would_wait, 0);
  ck_assert_int_eq(rescue_store_begin(a), RESCUE_EBUSY);
  ck_assert_int_eq(would_wait, 1);
  rescue_store_rollback(b);
  would_wait = 0;
  rescue_store_busy_timeout(a, 60000);
  ck_assert_int_eq(rescue_store_begin(a), 0);
  ck_assert_int_eq(would_wait, 0);
  rescue_store_rollback(a);
  rescue_store_close(&a);
  rescue_store_close(&b);
  free(db);
}
END_TEST

/*
** Make path unwritable (on) or writable again (off): chmod for a normal user; root
** ignores modes, so there the file is made immutable. 0, or -1 when not possible here.
*/
static int set_unwritable(const char *path, int on) {
  int fd, flags, rc;
  if (geteuid() != 0)
    return chmod(path, on ? 0444 : 0644);
  fd = open(path, O_RDONLY);
  if (fd < 0)
    return -1;
  rc = ioctl(fd, FS_IOC_GETFLAGS, &flags);
  if (rc == 0) {
    flags = on ? flags | FS_IMMUTABLE_FL : flags & ~FS_IMMUTABLE_FL;
    rc = ioctl(fd, FS_IOC_SETFLAGS, &flags);
  }
  close(fd);
  return rc;
}

/* A corpus file nobody may write: readers work; a writer is refused at open, clearly. */
START_TEST(test_open_unwritable_file) {
  char *db = tu_new_corpus();
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  int rc;
  if (set_unwritable(db, 1) != 0) {
    fprintf(stderr, "test_open_unwritable_file: cannot make a file unwritable here; skipped\n");
    free(db);
    return;
  }
  rc = rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err);
  rescue_store_close(&st);
  if (rc != 0)
    set_unwritable(db, 0); /* (before failing: an immutable file would outlive the test) */
  ck_assert_msg(rc == 0, "%s", err.msg);
  rc = rescue_store_open(&st, db, 0, &err);
  set_unwritable(db, 0);
  ck_assert_ptr_null(st);
  ck_assert_int_eq(rc, RESCUE_EIO);
  ck_assert_msg(strstr(err.msg, "read-only") != NULL, "%s", err.msg);
  free(db);
}
END_TEST

/* Whether trees a and b are the same for every field a reader or writer looks at. */
static int same_tree(const rescue_jnode *a, const rescue_jnode *b, char *why, size_t n) {
  const rescue_jnode *x, *y;
  if (a->type != b->type || a->len != b->len || a->keylen != b->keylen || a->unique != b->unique) {
    snprintf(why, n, "type/len/keylen/unique differ at '%s'", a->key ? a->key : "?");
    return 0;
  }
  if ((a->key || b->key) && (!a->key || !b->key || memcmp(a->key, b->key, a->keylen))) {
    snprintf(why, n, "keys differ");
    return 0;
  }
  if (a->type == RESCUE_JNUMBER &&
      (a->is_int != b->is_int || memcmp(&a->num, &b->num, sizeof a->num) ||
       memcmp(a->s, b->s, a->len) || a->s[a->len])) {
    snprintf(why, n, "number '%s' (int %d) against '%s' (int %d)", a->s, a->is_int, b->s,
             b->is_int);
    return 0;
  }
  if (a->type == RESCUE_JSTRING && memcmp(a->s, b->s, a->len)) {
    snprintf(why, n, "strings differ");
    return 0;
  }
  for (x = a->child, y = b->child; x && y; x = x->next, y = y->next)
    if (!same_tree(x, y, why, n))
      return 0;
  if (x || y) {
    snprintf(why, n, "child counts differ");
    return 0;
  }
  return 1;
}

/*
** rescue_row_like gives the tree rescue_jparse reads from rescue_row_write_like's text
** (a save stores what that tree writes, and reads its reference lists there): kept and
** respelled numbers, row_index, nested lists and objects, escapes, no old version.
*/
START_TEST(test_row_like_tree) {
  static const char *const cases[][2] = {
      {"{\"row_index\": 7, \"start_time\": 0, \"end_time\": 5, \"a\": [1, 2.50, 3, 1E2], "
       "\"o\": {\"x\": 1e2, \"y\": -0, \"z\": \"s\\\"q\\u00e9\\/\", \"big\": 12345678901234567}, "
       "\"row_index\": 3, \"n\": null, \"t\": true, \"f\": false, \"target\": [\"a\", \"b\"], "
       "\"e\": [], \"eo\": {}, \"relation_pattern_evidence_rows\": [2, 1, 9]}",
       "{\"row_index\": 1, \"start_time\": 0.0, \"end_time\": 5.4, \"a\": [1.0, 2.5], "
       "\"o\": {\"x\": 100, \"y\": 0.0, \"z\": 1.5, \"big\": 0.5}, \"n\": 1.5, \"e\": [1.0], "
       "\"relation_pattern_evidence_rows\": [2.0, 1]}"},
      {"{\"row_index\": \"x\", \"start_time\": 1, \"end_time\": 2.25, \"target\": []}", NULL},
      {"{\"start_time\": 1, \"end_time\": 2, \"target\": [], \"row_index\": 4}", "[1.0, 2.0]"},
      {"{\"start_time\": 1, \"end_time\": 2, \"target\": [], \"u\": {\"v\": [[1], {\"w\": 3}]}}",
       "{\"start_time\": 1.0, \"end_time\": 2, \"u\": {\"v\": [[1.5], {\"w\": 3.0}]}}"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rescue_jdoc *rd = rescue_jdoc_new(), *od = rescue_jdoc_new(), *td = rescue_jdoc_new();
    const rescue_jnode *row, *old = NULL, *expect, *bad = NULL;
    rescue_jnode *tree = NULL;
    rescue_buf text = RESCUE_BUF_INIT, again = RESCUE_BUF_INIT;
    rescue_row_input a, b;
    rescue_error err = RESCUE_ERROR_INIT;
    char why[256] = "";
    memset(&a, 0, sizeof a);
    memset(&b, 0, sizeof b);
    row = rescue_jparse(rd, cases[i][0], strlen(cases[i][0]), NULL);
    ck_assert_ptr_nonnull(row);
    if (cases[i][1])
      ck_assert_ptr_nonnull(old = rescue_jparse(od, cases[i][1], strlen(cases[i][1]), NULL));
    rescue_row_write_like(&text, row, old, 5);
    ck_assert_ptr_nonnull(expect = rescue_jparse(td, text.s, text.len, NULL));
    ck_assert_int_eq(rescue_row_like(row, old, 5, &tree), 0);
    ck_assert_msg(same_tree(tree, expect, why, sizeof why), "case %zu: %s", i, why);
    rescue_jwrite(&again, tree);
    ck_assert_str_eq(again.s, text.s);
    /* what a save stores from it */
    ck_assert_int_eq(rescue_row_input_from_json(NULL, tree, &a, &bad, &err), 0);
    ck_assert_int_eq(rescue_row_input_from_json(NULL, expect, &b, &bad, &err), 0);
    ck_assert_str_eq(a.content.s, b.content.s);
    ck_assert_int_eq(a.extra.len, b.extra.len);
    ck_assert(memcmp(a.extra.s, b.extra.s, a.extra.len) == 0);
    ck_assert(memcmp(&a.start_time, &b.start_time, sizeof a.start_time) == 0);
    ck_assert(memcmp(&a.end_time, &b.end_time, sizeof a.end_time) == 0);
    rescue_row_input_clear(&a);
    rescue_row_input_clear(&b);
    rescue_free(tree);
    rescue_buf_clear(&text);
    rescue_buf_clear(&again);
    rescue_jdoc_free(&rd);
    rescue_jdoc_free(&od);
    rescue_jdoc_free(&td);
  }
}
END_TEST

/* Creating a store with a failing allocation at every point either works or fails cleanly. */
START_TEST(test_alloc_failures_open) {
  char *db = tu_new_corpus();
  unsigned long n;
  int opened = 0;
  for (n = 1; n < 5000 && !opened; n += 7) {
    rescue_store *st = NULL;
    rescue_error err = RESCUE_ERROR_INIT;
    int rc;
    rescue_alloc_fail_at(n);
    rc = rescue_store_open(&st, db, 0, &err);
    rescue_alloc_fail_at(0);
    if (rc == 0) {
      opened = 1;
      rescue_store_close(&st);
    } else {
      ck_assert_ptr_null(st);
      ck_assert_msg(rc == RESCUE_ENOMEM || rc == RESCUE_ESCHEME || rc == RESCUE_EINTERNAL,
                    "rc %d (%s)", rc, err.msg);
    }
  }
  ck_assert(opened);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("store");
  TCase *tc = tcase_create("store");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_create_and_open);
  tcase_add_test(tc, test_access_generation);
  tcase_add_test(tc, test_newer_schema_refused);
  tcase_add_test(tc, test_versions_and_views);
  tcase_add_test(tc, test_rowsets);
  tcase_add_test(tc, test_export_loop);
  tcase_add_test(tc, test_sample_order_and_groups);
  tcase_add_test(tc, test_derived_keys);
  tcase_add_test(tc, test_scenario_by_id);
  tcase_add_test(tc, test_status);
  tcase_add_test(tc, test_put_resegment_status);
  tcase_add_test(tc, test_unsafe_ids);
  tcase_add_test(tc, test_scheme);
  tcase_add_test(tc, test_alloc_failures_open);
  tcase_add_test(tc, test_row_like_tree);
  tcase_add_test(tc, test_open_waits_for_writer);
  tcase_add_test(tc, test_open_after_interrupted_write);
  tcase_add_test(tc, test_never_wait);
  tcase_add_test(tc, test_open_unwritable_file);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
