/*
** check_double.c: double annotation that stays honest. One test per failure story:
** rows split and merged at the same row count are refused (row identity); a resegment by
** one annotator leaves another's view and their agreement intact; the draft and typo'd
** names never become coders (agreement on the real samples equals that of the two real
** annotators alone); adjudication by field on the real samples, with a dry run and a
** lead's decisions.
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* ---- synthetic samples ---- */

static const char *speakers[] = {"Ann", "Bob"};

/* One row as release JSON. */
static void row(rescue_buf *b, double s, double e, int i, const char *utt) {
  rescue_buf_printf(b,
                    "{\"start_time\": %.1f, \"end_time\": %.1f, \"primary_speaker\": \"%s\", "
                    "\"target\": [\"%s\"], \"dialogue_cleaned\": \"line %d\", "
                    "\"utterance_type\": \"%s\"}",
                    s, e, speakers[i % 2], speakers[(i + 1) % 2], i, utt);
}

/* Sample g/a with rows of the given spans (starts[i]..ends[i]) and labels. */
static char *sample(int n, const double *starts, const double *ends, const char *const *utt) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  rescue_buf_puts(&b, "{\"sample_id\": \"g/a\", \"rows\": [");
  for (i = 0; i < n; i++) {
    if (i)
      rescue_buf_puts(&b, ", ");
    row(&b, starts[i], ends[i], i, utt[i]);
  }
  rescue_buf_puts(&b, "]}\n");
  return rescue_buf_detach(&b);
}

static const double s6[] = {0, 2, 4, 6, 8, 10}, e6[] = {2, 4, 6, 8, 10, 12};
static const char *blank6[] = {"", "", "", "", "", ""};

static char *setup(char **dir) {
  char *db = tu_new_corpus(), *draft = sample(6, s6, e6, blank6);
  *dir = strdup(db);
  *strrchr(*dir, '/') = 0;
  tu_write(tu_path(*dir, "draft.jsonl"), draft);
  free(draft);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(*dir, "draft.jsonl"), NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann2", NULL), 0);
  return db;
}

static long count(const char *db, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *q;
  long n = -1;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
  if (sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/* Story 1: a split and a merge at the same row count used to shift every row between. */
START_TEST(split_and_merge_refused) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL, *text, copy[4200];
  static const double s[] = {0, 2, 3, 4, 6, 8}, e[] = {2, 3, 4, 6, 8, 12};
  static const char *utt[] = {"accusation", "defense",    "defense",
                              "request",    "withdrawal", "repair"};
  static const double st[] = {0.3, 2, 4, 6, 8, 10}, et[] = {2.2, 4, 6, 8, 10, 12};
  static const char *utt6[] = {"accusation", "defense", "request", "withdrawal", "repair", "other"};
  size_t n;
  char *bytes;
  text = sample(6, s, e, utt);
  tu_write(tu_path(dir, "split.jsonl"), text);
  free(text);
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "split.jsonl"), "--annotator", "ann1", NULL),
      1);
  ck_assert_msg(strstr(err, "row 3 (3.00-4.00 s) does not line up with row 3 in the corpus "
                            "(4.00-6.00 s)") != NULL,
                "%s", err);
  ck_assert_ptr_nonnull(strstr(err, "--resegment"));
  ck_assert_ptr_nonnull(strstr(err, "split.jsonl:1"));
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* with --resegment: a new row set that knows where each row came from */
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "split.jsonl"), "--annotator",
                             "ann1", "--resegment", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "as annotator 'ann1'"));
  free(out);
  free(err);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM rowset"), 2);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_origin o JOIN row r ON r.id = o.row_id "
                             "WHERE r.position IN (2, 3) AND o.relation = 'split'"),
                   2);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_origin o JOIN row r ON r.id = o.row_id "
                             "WHERE r.position = 6 AND o.relation = 'merged'"),
                   2);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_origin WHERE relation = 'same'"), 3);
  /* editing a row's times within the overlap rule stays an ordinary edit */
  text = sample(6, st, et, utt6);
  tu_write(tu_path(dir, "times.jsonl"), text);
  free(text);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "ann3", NULL), 0);
  free(out);
  free(err);
  {
    /* a fresh sample so the row set is the draft's six rows again */
    char *d2 = sample(6, s6, e6, blank6), *p;
    for (p = strstr(d2, "g/a"); p; p = NULL)
      p[2] = 'b';
    tu_write(tu_path(dir, "draft_b.jsonl"), d2);
    free(d2);
    text = sample(6, st, et, utt6);
    for (p = strstr(text, "g/a"); p; p = NULL)
      p[2] = 'b';
    tu_write(tu_path(dir, "times.jsonl"), text);
    free(text);
  }
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft_b.jsonl"), NULL), 0);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "times.jsonl"), "--annotator", "ann3", NULL),
      0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM rowset r JOIN sample s ON s.id = r.sample_ref "
                             "WHERE s.sample_id = 'g/b'"),
                   1);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* utterance_type of row i (0-based) of the one-sample export at path. */
static const char *utt_at(json_t *j, int i) {
  return json_string_value(
      json_object_get(json_array_get(json_object_get(j, "rows"), (size_t)i), "utterance_type"));
}

/* Story 2: a resegment by ann1 leaked ann1's labels into ann2's view and erased agreement. */
START_TEST(resegment_keeps_views) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL, *text;
  static const char *u1[] = {"accusation", "defense",    "request",
                             "withdrawal", "disclosure", "repair"};
  static const char *u2[] = {"accusation", "defense",    "request",
                             "validation", "disclosure", "reflection"};
  static const double s7[] = {0, 2, 3, 4, 6, 8, 10}, e7[] = {2, 3, 4, 6, 8, 10, 12};
  static const char *u1s[] = {"accusation", "defense",    "other", "request",
                              "withdrawal", "disclosure", "repair"};
  json_t *j, *f;
  json_error_t je;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_view v;
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  text = sample(6, s6, e6, u1);
  tu_write(tu_path(dir, "ann1.jsonl"), text);
  free(text);
  text = sample(6, s6, e6, u2);
  tu_write(tu_path(dir, "ann2.jsonl"), text);
  free(text);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  /* ann1 splits row 2 */
  text = sample(7, s7, e7, u1s);
  tu_write(tu_path(dir, "ann1b.jsonl"), text);
  free(text);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "ann1b.jsonl"), "--annotator",
                             "ann1", "--resegment", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "5 rows kept their span"));
  free(out);
  free(err);
  /* ann2's view holds ann2's labels only */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "v2.jsonl"), "--view", "annotator:ann2", NULL),
                   0);
  text = tu_read(tu_path(dir, "v2.jsonl"), NULL);
  j = json_loads(text, 0, &je);
  ck_assert_ptr_nonnull(j);
  /* ann1's split made ann1 a row set of their own: ann2 keeps theirs, rows and labels */
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "rows")), 6);
  ck_assert_str_eq(utt_at(j, 0), "accusation");
  ck_assert_str_eq(utt_at(j, 1), "defense");
  ck_assert_str_eq(utt_at(j, 3), "validation");
  ck_assert_str_eq(utt_at(j, 5), "reflection");
  json_decref(j);
  free(text);
  /* nothing in ann2's view is marked: their row set did not change; ann1 sees 7 rows */
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &e), 0);
  ck_assert_int_eq(rescue_view_parse(st, "annotator:ann2", &v), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  ck_assert_int_eq(smp->n, 6);
  ck_assert_int_eq(smp->rows[1].seg_changed, 0);
  ck_assert_int_eq(smp->rows[2].seg_changed, 0);
  rescue_sample_iter_free(&it);
  ck_assert_int_eq(rescue_view_parse(st, "annotator:ann1", &v), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  ck_assert_int_eq(smp->n, 7);
  ck_assert_int_eq(smp->rows[1].seg_changed, 0);
  ck_assert_int_eq(smp->rows[1].origin, RESCUE_ROW_OWN);
  rescue_sample_iter_free(&it);
  rescue_store_close(&st);
  /* lint reports no segmentation change in either view */
  tu_rescue(&out, &err, "lint", db, "--view", "annotator:ann2", NULL);
  ck_assert_msg(strstr(out, "R21") == NULL, "%s", out);
  free(out);
  free(err);
  tu_rescue(&out, &err, "lint", db, "--view", "annotator:ann1", NULL);
  ck_assert_ptr_null(strstr(out, "R21"));
  free(out);
  free(err);
  /* ann1 now works in a row set of their own (7 rows) and ann2 in the base one (6): the
     report covers the 6 units of the reference row set; pairing ann1's rows with them by
     alignment is the agreement engine's part of issue 22 (annotate/agree_*), not checked
     here */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "ann1,ann2", "--field",
                             "utterance_type", "--json", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  f = json_array_get(json_object_get(j, "fields"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "ok");
  ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 6);
  json_decref(j);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* ---- the real samples ---- */

static char fixture_path[4096];

/* The couple fixture with `edit` applied to every row (i: index over the whole file). */
static char *variant(void (*edit)(json_t *row, int i)) {
  char *text = tu_read(fixture_path, NULL), *line, *save = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int i = 0;
  ck_assert_ptr_nonnull(text);
  for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    json_error_t je;
    json_t *s = json_loads(line, 0, &je), *rows;
    char *dump;
    size_t k;
    ck_assert_ptr_nonnull(s);
    rows = json_object_get(s, "rows");
    for (k = 0; k < json_array_size(rows); k++)
      edit(json_array_get(rows, k), i++);
    dump = json_dumps(s, JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17));
    rescue_buf_puts(&out, dump);
    rescue_buf_putc(&out, '\n');
    free(dump);
    json_decref(s);
  }
  free(text);
  return rescue_buf_detach(&out);
}

static void keep(json_t *r, int i) {
  (void)r;
  (void)i;
}

/* A subtitle-like draft: times, speaker and words; every label empty. */
static void blank(json_t *r, int i) {
  static const char *lists[] = {"target",
                                "background_dialogue",
                                "body_posture",
                                "facial_expressions",
                                "self_directed_behavior",
                                "interaction_behavior",
                                "internal_emotion",
                                "viewpoints_attitudes",
                                "support_strategy"};
  size_t k;
  (void)i;
  for (k = 0; k < sizeof lists / sizeof lists[0]; k++)
    if (json_object_get(r, lists[k]))
      json_object_set_new(r, lists[k], json_array());
  if (json_object_get(r, "utterance_type"))
    json_object_set_new(r, "utterance_type", json_string(""));
  if (json_object_get(r, "tone_of_voice"))
    json_object_set_new(r, "tone_of_voice", json_string(""));
}

/* The second annotator: another utterance_type on every third client row, no emotion on
   every fifth row, another tone on row 7. */
static void second(json_t *r, int i) {
  const char *u = json_string_value(json_object_get(r, "utterance_type"));
  if (u && *u && i % 3 == 0)
    json_object_set_new(r, "utterance_type", json_string(strcmp(u, "other") ? "other" : "repair"));
  if (i % 5 == 0 && json_object_get(r, "internal_emotion"))
    json_object_set_new(r, "internal_emotion", json_array());
  if (i == 7)
    json_object_set_new(r, "tone_of_voice", json_string("flat, quiet"));
}

static void write_variant(const char *path, void (*edit)(json_t *, int)) {
  char *t = variant(edit);
  tu_write(path, t);
  free(t);
}

/* alpha of `field` in an agree --json document (NAN when null). */
static double alpha_of(json_t *j, const char *field, const char **status) {
  json_t *fs = json_object_get(j, "fields");
  size_t i;
  for (i = 0; i < json_array_size(fs); i++) {
    json_t *f = json_array_get(fs, i);
    if (strcmp(json_string_value(json_object_get(f, "field")), field) == 0) {
      *status = json_string_value(json_object_get(f, "status"));
      return json_is_number(json_object_get(f, "alpha"))
                 ? json_number_value(json_object_get(f, "alpha"))
                 : -99;
    }
  }
  ck_abort_msg("no field %s", field);
  return 0;
}

/* Story 3: the draft and typo'd names voted in agree. */
START_TEST(coders_are_people_who_annotated) {
  char *dbA = tu_new_corpus(), *dbB = tu_new_corpus(), *dir = strdup(dbA), *out = NULL, *err = NULL;
  static const char *fields[] = {"utterance_type", "emotion_presence", "target", "primary_speaker",
                                 "emotion_intensity"};
  json_t *ja, *jb;
  json_error_t je;
  size_t k;
  *strrchr(dir, '/') = 0;
  write_variant(tu_path(dir, "draft.jsonl"), blank);
  write_variant(tu_path(dir, "ann1.jsonl"), keep);
  write_variant(tu_path(dir, "ann2.jsonl"), second);
  /* A: a draft, two annotators, and two typo'd names trying to import */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", dbA, tu_path(dir, "draft.jsonl"), NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", dbA, "ann1", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", dbA, "ann2", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", dbA, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", dbA, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", dbA, tu_path(dir, "ann2.jsonl"), "--annotator", "Ann1", NULL),
      1);
  ck_assert_msg(strstr(err, "no registered annotator named 'Ann1' (registered: ann1, ann2)") &&
                    strstr(err, "rescue annotator add"),
                "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", dbA, tu_path(dir, "ann1.jsonl"), "--annotator",
                             "ann 3", NULL),
                   1);
  free(out);
  free(err);
  /* B: only the two real annotators */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", dbB, "ann1", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", dbB, "ann2", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", dbB, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", dbB, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "agree", dbA, "--json", NULL), 0);
  ja = json_loads(out, 0, &je);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "agree", dbB, "--coders", "ann1,ann2", "--json", NULL), 0);
  jb = json_loads(out, 0, &je);
  free(out);
  ck_assert_ptr_nonnull(ja);
  ck_assert_ptr_nonnull(jb);
  ck_assert_int_eq((int)json_array_size(json_object_get(ja, "coders")), 2);
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(ja, "coders"), 0)), "ann1");
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(ja, "coders"), 1)), "ann2");
  for (k = 0; k < sizeof fields / sizeof fields[0]; k++) {
    const char *sa, *sb;
    double a = alpha_of(ja, fields[k], &sa), b = alpha_of(jb, fields[k], &sb);
    ck_assert_str_eq(sa, sb);
    ck_assert_msg(a == b, "%s: alpha %.6f with the draft present, %.6f for ann1 and ann2 alone",
                  fields[k], a, b);
  }
  /* the numbers are real: the two annotators differ on utterance_type */
  {
    const char *s;
    double a = alpha_of(jb, "utterance_type", &s);
    ck_assert_str_eq(s, "ok");
    ck_assert(a > 0.3 && a < 0.999);
  }
  json_decref(ja);
  json_decref(jb);
  /* adjudicate's default coders are the same two */
  ck_assert_int_eq(
      tu_rescue(&out, NULL, "adjudicate", dbA, "--policy", "majority", "--dry-run", "--json", NULL),
      0);
  ja = json_loads(out, 0, &je);
  ck_assert_int_eq((int)json_array_size(json_object_get(ja, "coders")), 2);
  json_decref(ja);
  free(out);
  free(dbA);
  free(dbB);
  free(dir);
}
END_TEST

/* Story 5: whole-row adjudication hid which fields differ; no dry run; no lead decisions. */
START_TEST(adjudication_by_field) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, copy[4200], *bytes;
  json_t *j, *und;
  json_error_t je;
  rescue_buf dec = RESCUE_BUF_INIT;
  size_t i, n;
  long undecided, written;
  *strrchr(dir, '/') = 0;
  write_variant(tu_path(dir, "draft.jsonl"), keep);
  write_variant(tu_path(dir, "ann1.jsonl"), keep);
  write_variant(tu_path(dir, "ann2.jsonl"), second);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, fixture_path, NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann2", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lea", "--role", "lead", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  /* a dry run reports and writes nothing */
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--dry-run", "--json", NULL),
      0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version WHERE kind = 'gold'"), 0);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  ck_assert(json_is_true(json_object_get(j, "dry_run")));
  written = (long)json_integer_value(json_object_get(j, "written"));
  und = json_object_get(j, "undecided");
  undecided = (long)json_array_size(und);
  ck_assert_int_gt(undecided, 3);
  ck_assert_int_eq(written + undecided, 69);
  /* each undecided row names only the fields that differ, with both coders' values */
  for (i = 0; i < json_array_size(und); i++) {
    json_t *fs = json_object_get(json_array_get(und, i), "fields");
    size_t k;
    ck_assert_int_ge((int)json_array_size(fs), 1);
    for (k = 0; k < json_array_size(fs); k++) {
      json_t *fd = json_array_get(fs, k), *vals = json_object_get(fd, "values");
      const char *name = json_string_value(json_object_get(fd, "field"));
      ck_assert_msg(strcmp(name, "utterance_type") == 0 || strcmp(name, "internal_emotion") == 0 ||
                        strcmp(name, "tone_of_voice") == 0,
                    "unexpected differing field %s", name);
      ck_assert_int_eq((int)json_array_size(vals), 2);
      ck_assert_str_eq(json_string_value(json_object_get(json_array_get(vals, 0), "coder")),
                       "ann1");
      ck_assert_str_eq(json_string_value(json_object_get(json_array_get(vals, 1), "coder")),
                       "ann2");
      /* the lead's decisions: take ann2 on utterance_type, ann1 elsewhere, a value on tone */
      rescue_buf_printf(&dec, "{\"sample_id\": \"%s\", \"row_index\": %lld, \"field\": \"%s\", ",
                        json_string_value(json_object_get(json_array_get(und, i), "sample")),
                        json_integer_value(json_object_get(json_array_get(und, i), "row")), name);
      if (strcmp(name, "tone_of_voice") == 0)
        rescue_buf_puts(&dec, "\"value\": \"decided tone\"}\n");
      else
        rescue_buf_printf(&dec, "\"take\": \"%s\"}\n",
                          strcmp(name, "utterance_type") == 0 ? "ann2" : "ann1");
    }
  }
  json_decref(j);
  free(out);
  free(err);
  /* the real run writes the agreed rows only; the gold view holds no half-decided row */
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "coders: ann1, ann2"));
  ck_assert_ptr_nonnull(strstr(out, "      utterance_type: ann1 \""));
  free(out);
  free(err);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version WHERE kind = 'gold'"), written);
  /* a bad decision line refuses the whole file */
  tu_write(tu_path(dir, "bad.jsonl"), "{\"sample_id\": \"nope/x\", \"row_index\": 1, "
                                      "\"field\": \"target\", \"value\": []}\n");
  bytes = tu_read(db, &n);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide", tu_path(dir, "bad.jsonl"),
                             "--lead", "lea", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "bad.jsonl:1:"));
  ck_assert_ptr_nonnull(strstr(err, "has no row 1"));
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* decisions need a lead */
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide", tu_path(dir, "bad.jsonl"),
                             "--lead", "ann1", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "not a lead"));
  ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1); /* one line, not the help */
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* the lead decides */
  tu_write(tu_path(dir, "decide.jsonl"), dec.s);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide", tu_path(dir, "decide.jsonl"),
                             "--lead", "lea", "--json", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "undecided")), 0);
  ck_assert_str_eq(json_string_value(json_object_get(j, "lead")), "lea");
  json_decref(j);
  free(out);
  free(err);
  ck_assert_int_eq(count(db, "SELECT count(DISTINCT lead_id) FROM field_decision"), 1);
  /* the gold view holds the agreed and the decided values */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--view", "gold",
                             "--out", tu_path(dir, "gold.jsonl"), NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "wrote 3 samples (69 rows)"));
  free(out);
  free(err);
  {
    /* utterance_type is ann2's everywhere (agreed, or taken), internal_emotion ann1's */
    char *g = tu_read(tu_path(dir, "gold.jsonl"), NULL), *w1 = variant(keep), *w2 = variant(second);
    char *sg = NULL, *s1 = NULL, *s2 = NULL, *lg, *l1, *l2;
    int idx = 0;
    ck_assert_ptr_nonnull(strstr(g, "\"tone_of_voice\": \"decided tone\""));
    for (lg = strtok_r(g, "\n", &sg), l1 = strtok_r(w1, "\n", &s1), l2 = strtok_r(w2, "\n", &s2);
         lg && l1 && l2; lg = strtok_r(NULL, "\n", &sg), l1 = strtok_r(NULL, "\n", &s1),
        l2 = strtok_r(NULL, "\n", &s2)) {
      json_t *a = json_loads(lg, 0, &je), *b1 = json_loads(l1, 0, &je),
             *b2 = json_loads(l2, 0, &je);
      json_t *ra = json_object_get(a, "rows"), *r1 = json_object_get(b1, "rows"),
             *r2 = json_object_get(b2, "rows");
      size_t k;
      for (k = 0; k < json_array_size(ra); k++, idx++) {
        json_t *x = json_array_get(ra, k);
        ck_assert(json_equal(json_object_get(x, "utterance_type"),
                             json_object_get(json_array_get(r2, k), "utterance_type")));
        ck_assert(json_equal(json_object_get(x, "internal_emotion"),
                             json_object_get(json_array_get(r1, k), "internal_emotion")));
      }
      json_decref(a);
      json_decref(b1);
      json_decref(b2);
    }
    ck_assert_int_eq(idx, 69);
    free(g);
    free(w1);
    free(w2);
  }
  rescue_buf_clear(&dec);
  free(db);
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("double");
  TCase *tc = tcase_create("stories"), *fx = tcase_create("fixtures");
  tcase_set_timeout(tc, 120);
  tcase_set_timeout(fx, 240);
  tcase_add_test(tc, split_and_merge_refused);
  tcase_add_test(tc, resegment_keeps_views);
  tcase_add_test(fx, coders_are_people_who_annotated);
  tcase_add_test(fx, adjudication_by_field);
  suite_add_tcase(s, tc);
  suite_add_tcase(s, fx);
  return s;
}

int main(void) {
  snprintf(fixture_path, sizeof fixture_path, "%s/rescue-bench/couple-first3.jsonl", tu_fixtures());
  return tu_run_suite(suite());
}
