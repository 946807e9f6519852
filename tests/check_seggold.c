/*
** check_seggold.c: gold segmentation first and exports that never mix row sets (issue 22,
** items 7 and 8), through the command line, with three coders of one sample: ann1 splits
** a row, ann3 merges two, ann2 does neither (and relabels). `adjudicate --segmentation`
** with each choice gives lint-clean gold with consecutive row_index; majority with and
** without a majority; bad input leaves the store as it was; without gold, exports show
** one whole view per sample and the dataset card names it.
*/
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "rescue_adjudicate.h"
#include "testutil.h"

/* One row of a test sample; evidence (may be NULL) gives relation_pattern_evidence_rows. */
static json_t *row(int idx, double s, double e, const char *spk, const char *utt,
                   const char *target, const char *tone, const int *evidence) {
  json_t *r = json_object(), *t = json_array();
  const char *lists[] = {"background_dialogue",    "body_posture",         "facial_expressions",
                         "self_directed_behavior", "interaction_behavior", "internal_emotion",
                         "viewpoints_attitudes",   "support_strategy"};
  char text[32];
  size_t k;
  json_object_set_new(r, "start_time", json_real(s));
  json_object_set_new(r, "end_time", json_real(e));
  json_object_set_new(r, "primary_speaker", json_string(spk));
  json_array_append_new(t, json_string(target));
  if (strcmp(spk, "Therapist") == 0)
    json_array_append_new(t, json_string("Bo"));
  json_object_set_new(r, "target", t);
  snprintf(text, sizeof text, "line %d", idx);
  json_object_set_new(r, "dialogue_cleaned", json_string(text));
  json_object_set_new(r, "utterance_type", json_string(utt));
  json_object_set_new(r, "tone_of_voice", json_string(tone));
  for (k = 0; k < sizeof lists / sizeof lists[0]; k++)
    json_object_set_new(r, lists[k], json_array());
  if (evidence) {
    json_t *ev = json_array();
    json_array_append_new(ev, json_integer(evidence[0]));
    json_array_append_new(ev, json_integer(evidence[1]));
    json_object_set_new(r, "relation_pattern", json_string("attack_attack"));
    json_object_set_new(r, "relation_pattern_evidence_rows", ev);
  }
  json_object_set_new(r, "row_index", json_integer(idx));
  return r;
}

/*
** The sample g1/s1 as one coder gives it: the draft's rows 1-2 (Ann, the therapist), then
** Bo from 4 s to 8 s cut at the times in cuts (n_cuts + 1 rows: a split or a merge), the
** last with evidence rows [1, its own position]; tone on row 1.
*/
static void write_coder(const char *path, const double *cuts, int n_cuts, const char *tone) {
  json_t *s = json_object(), *rows = json_array();
  int i, n = 2 + n_cuts + 1;
  int ev[2] = {1, n};
  char *t;
  json_object_set_new(s, "sample_id", json_string("g1/s1"));
  json_array_append_new(rows, row(1, 0, 2, "Ann", "accusation", "Bo", tone, NULL));
  json_array_append_new(rows, row(2, 2, 4, "Therapist", "", "Ann", "", NULL));
  for (i = 0; i <= n_cuts; i++) {
    double a = i ? cuts[i - 1] : 4, b = i < n_cuts ? cuts[i] : 8;
    int last = i == n_cuts;
    json_array_append_new(rows, row(3 + i, a, b, "Bo", last && n_cuts ? "request" : "defense",
                                    "Ann", "", last ? ev : NULL));
  }
  json_object_set_new(s, "rows", rows);
  t = json_dumps(s, JSON_COMPACT);
  tu_write(path, t);
  free(t);
  json_decref(s);
}

static const double draft_cuts[] = {6}, split_cuts[] = {5, 6}, split4_cuts[] = {5.005, 6};

/*
** A corpus: the draft (4 rows), ann2 (the draft's rows, another tone on row 1), ann1 (row 3
** split at 5 s, --resegment), ann3 (rows 3 and 4 merged, --resegment), and with ann4 also
** ann4 (ann1's split, at 5.005 s). Returns the database path (caller frees).
*/
static char *make_corpus(int with_ann4) {
  char *db = tu_new_corpus(), *dir = strdup(db);
  const char *names[] = {"ann1", "ann2", "ann3", "ann4", "ann5"};
  int i;
  *strrchr(dir, '/') = 0;
  write_coder(tu_path(dir, "draft.jsonl"), draft_cuts, 1, "");
  write_coder(tu_path(dir, "ann2.jsonl"), draft_cuts, 1, "calm");
  write_coder(tu_path(dir, "ann1.jsonl"), split_cuts, 2, "");
  write_coder(tu_path(dir, "ann3.jsonl"), NULL, 0, "");
  write_coder(tu_path(dir, "ann4.jsonl"), split4_cuts, 2, "");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft.jsonl"), NULL), 0);
  for (i = 0; i < 5; i++)
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, names[i], NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator",
                             "ann1", "--resegment", NULL),
                   0);
  if (with_ann4)
    ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann4.jsonl"), "--annotator",
                               "ann4", "--resegment", NULL),
                     0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann3.jsonl"), "--annotator",
                             "ann3", "--resegment", NULL),
                   0);
  free(dir);
  return db;
}

/* The rows of g1/s1 in `view` (export --format samples), or NULL when nothing exports. */
static json_t *rows_in(const char *db, const char *view) {
  char *out = NULL, *err = NULL;
  json_t *s, *rows = NULL;
  json_error_t je;
  int rc = view ? tu_rescue(&out, &err, "export", db, "--format", "samples", "--view", view,
                            "--out", "-", NULL)
                : tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", "-", NULL);
  if (rc == 0) {
    s = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
    ck_assert_msg(s != NULL, "%s", out);
    rows = json_incref(json_object_get(s, "rows"));
    json_decref(s);
  }
  free(out);
  free(err);
  return rows;
}

/* Row i's start_time. */
static double start_of(json_t *rows, size_t i) {
  return json_number_value(json_object_get(json_array_get(rows, i), "start_time"));
}

/*
** The gold view holds n rows numbered 1..n, starting at the given times, the last with
** evidence rows [1, n]; `lint --view gold` is clean (no R16 or R13 above all).
*/
static void check_gold(const char *db, int n, const double *starts) {
  json_t *rows = rows_in(db, "gold"), *ev;
  char *out = NULL, *err = NULL;
  int i, rc;
  ck_assert_ptr_nonnull(rows);
  ck_assert_int_eq((int)json_array_size(rows), n);
  for (i = 0; i < n; i++) {
    json_t *r = json_array_get(rows, (size_t)i);
    ck_assert_int_eq((int)json_integer_value(json_object_get(r, "row_index")), i + 1);
    ck_assert_msg(fabs(start_of(rows, (size_t)i) - starts[i]) < 1e-9, "row %d starts at %g", i + 1,
                  start_of(rows, (size_t)i));
  }
  ev = json_object_get(json_array_get(rows, (size_t)n - 1), "relation_pattern_evidence_rows");
  ck_assert_int_eq((int)json_array_size(ev), 2);
  ck_assert_int_eq((int)json_integer_value(json_array_get(ev, 0)), 1);
  ck_assert_int_eq((int)json_integer_value(json_array_get(ev, 1)), n);
  json_decref(rows);
  rc = tu_rescue(&out, &err, "lint", db, "--view", "gold", NULL);
  ck_assert_msg(rc == 0, "lint --view gold: %s%s", out, err);
  ck_assert_ptr_null(strstr(out, "R16"));
  ck_assert_ptr_null(strstr(out, "R13"));
  ck_assert_ptr_nonnull(strstr(out, "0 errors, 0 warnings"));
  free(out);
  free(err);
}

/* Run `adjudicate --policy majority --json` with extra arguments; the parsed report. */
static json_t *adjudicate(const char *db, const char *seg) {
  char *out = NULL, *err = NULL;
  json_t *j;
  json_error_t je;
  int rc = seg ? tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--segmentation",
                           seg, "--json", NULL)
               : tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--json", NULL);
  ck_assert_msg(rc == 0, "adjudicate: %s", err);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  free(out);
  free(err);
  return j;
}

static long jint(json_t *j, const char *key) {
  return (long)json_integer_value(json_object_get(j, key));
}

START_TEST(test_each_segmentation) {
  /* gold takes the chosen row set whole; fields decided on aligned rows, references renumbered */
  static const struct {
    const char *from;
    int n;
    double starts[5];
  } cases[] = {{"ann1", 5, {0, 2, 4, 5, 6}},
               {"ann2", 4, {0, 2, 4, 6}},
               {"ann3", 3, {0, 2, 4}},
               {"draft", 4, {0, 2, 4, 6}}};
  size_t c;
  for (c = 0; c < sizeof cases / sizeof cases[0]; c++) {
    char *db = make_corpus(0);
    json_t *j = adjudicate(db, cases[c].from);
    ck_assert_int_eq(jint(j, "segmentations"), 1);
    ck_assert_int_eq(jint(j, "waiting"), 0);
    ck_assert_msg(json_array_size(json_object_get(j, "undecided")) == 0, "%s: undecided rows",
                  cases[c].from);
    ck_assert_int_eq(jint(j, "written"), cases[c].n);
    json_decref(j);
    check_gold(db, cases[c].n, cases[c].starts);
    /* again without the option: the gold row set stays, nothing new is written */
    j = adjudicate(db, NULL);
    ck_assert_int_eq(jint(j, "written"), 0);
    ck_assert_int_eq(jint(j, "unchanged"), cases[c].n);
    ck_assert_int_eq(jint(j, "waiting"), 0);
    json_decref(j);
    check_gold(db, cases[c].n, cases[c].starts);
    free(db);
  }
}
END_TEST

START_TEST(test_split_halves_take_the_parents_labels) {
  /* under ann1's split, both halves get the label every coder gave the parent's span */
  char *db = make_corpus(0);
  json_t *j = adjudicate(db, "ann1"), *rows = rows_in(db, "gold");
  int i;
  for (i = 2; i <= 3; i++) {
    json_t *r = json_array_get(rows, (size_t)i);
    ck_assert_str_eq(json_string_value(json_object_get(r, "utterance_type")), "defense");
    ck_assert_str_eq(json_string_value(json_object_get(r, "primary_speaker")), "Bo");
  }
  /* ann2's tone on row 1 is outvoted by ann1 and ann3 */
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 0), "tone_of_voice")),
                   "");
  json_decref(rows);
  json_decref(j);
  free(db);
}
END_TEST

START_TEST(test_majority) {
  char *db = make_corpus(0), *copy = NULL, *out = NULL, *err = NULL, *data;
  size_t len;
  json_t *j;
  /* one splits, one merges, one does neither: no majority, the sample waits, nothing written */
  copy = malloc(strlen(db) + 8);
  sprintf(copy, "%s.orig", db);
  data = tu_read(db, &len);
  tu_write_n(copy, data, len);
  free(data);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--segmentation",
                             "majority", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "1 sample waits for a lead"));
  ck_assert_ptr_nonnull(strstr(out, "g1/s1: no row set is shared by more coders than any other "
                                    "(ann1: 5 rows, ann2: 4 rows, ann3: 3 rows)"));
  ck_assert_ptr_nonnull(strstr(out, "choose with --segmentation <annotator>|draft|majority"));
  free(out);
  free(err);
  ck_assert_ptr_null(rows_in(db, "gold"));
  free(copy);
  free(db);
  /* ann4 splits as ann1 did, 5 ms apart: two of four share a row set, a majority */
  db = make_corpus(1);
  j = adjudicate(db, "majority");
  ck_assert_int_eq(jint(j, "segmentations"), 1);
  ck_assert_int_eq(jint(j, "waiting"), 0);
  json_decref(j);
  {
    const double starts[] = {0, 2, 4, 5, 6};
    check_gold(db, 5, starts);
  }
  free(db);
}
END_TEST

START_TEST(test_without_segmentation_waits) {
  char *db = make_corpus(0), *copy, *out = NULL, *err = NULL, *data;
  size_t len;
  copy = malloc(strlen(db) + 8);
  sprintf(copy, "%s.orig", db);
  data = tu_read(db, &len);
  tu_write_n(copy, data, len);
  free(data);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "1 sample waits for a lead"));
  ck_assert_ptr_nonnull(strstr(out, "g1/s1: the coders' row sets differ"));
  ck_assert_ptr_nonnull(strstr(out, "--segmentation <annotator>|draft|majority"));
  ck_assert_ptr_nonnull(strstr(out, "0 gold versions written"));
  free(out);
  free(err);
  ck_assert_ptr_null(rows_in(db, "gold"));
  free(copy);
  free(db);
}
END_TEST

START_TEST(test_bad_input) {
  char *db = make_corpus(0), *copy, *out = NULL, *err = NULL, *data;
  size_t len;
  copy = malloc(strlen(db) + 8);
  sprintf(copy, "%s.orig", db);
  data = tu_read(db, &len);
  tu_write_n(copy, data, len);
  free(data);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--segmentation",
                             "nobody", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: adjudicate: "));
  ck_assert_ptr_nonnull(strstr(err, "nobody"));
  free(out);
  free(err);
  ck_assert(tu_same_corpus_except_log(db, copy));
  /* ann5 is registered but has no version of the sample */
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--segmentation",
                             "ann5", "--samples", "g1/s1", NULL),
                   1);
  ck_assert_ptr_nonnull(
      strstr(err, "annotator 'ann5' has no version of sample 'g1/s1' to take its segmentation"));
  free(out);
  free(err);
  ck_assert(tu_same_corpus_except_log(db, copy));
  /* usage errors */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", "--segmentation", "", NULL),
      2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide", copy, "--lead", "ann1",
                             "--segmentation", "ann1", NULL),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "--segmentation"));
  free(out);
  free(err);
  ck_assert(tu_same_corpus_except_log(db, copy));
  free(copy);
  free(db);
}
END_TEST

/* Make every version of the corpus written at the same instant (ties by name). */
static void same_time(const char *db) {
  sqlite3 *h = NULL;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "UPDATE row_version SET created_at = '2026-01-01T00:00:00.000Z'",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  sqlite3_close(h);
}

START_TEST(test_export_one_whole_view) {
  char *db = make_corpus(0), *dir = strdup(db), *card, *man;
  json_t *rows;
  const char *views[] = {NULL, "latest"};
  size_t v;
  *strrchr(dir, '/') = 0;
  /* ann3 saved last: the corpus and latest views are ann3's whole view, its 3 rows */
  for (v = 0; v < 2; v++) {
    rows = rows_in(db, views[v]);
    ck_assert_ptr_nonnull(rows);
    ck_assert_int_eq((int)json_array_size(rows), 3);
    ck_assert(fabs(start_of(rows, 2) - 4) < 1e-9);
    ck_assert(fabs(json_number_value(json_object_get(json_array_get(rows, 2), "end_time")) - 8) <
              1e-9);
    json_decref(rows);
  }
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--out",
                             tu_path(dir, "tasks"), NULL),
                   0);
  card = tu_read(tu_path(dir, "tasks/README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(card, "1 sample without a gold segmentation, whose annotators' "
                                     "row sets differ, is exported whole from the view of the "
                                     "annotator who saved last (ties by name)"));
  ck_assert_ptr_nonnull(strstr(card, "`g1/s1` (ann3)"));
  man = tu_read(tu_path(dir, "tasks/manifest.json"), NULL);
  ck_assert_ptr_nonnull(strstr(man, "\"whole_views\": [{\"sample_id\": \"g1/s1\", \"annotator\": "
                                    "\"ann3\"}]"));
  free(card);
  free(man);
  /* saved at the same instant: the first by name, ann1, and their 5 rows with their split */
  same_time(db);
  rows = rows_in(db, NULL);
  ck_assert_int_eq((int)json_array_size(rows), 5);
  ck_assert(fabs(start_of(rows, 3) - 5) < 1e-9);
  json_decref(rows);
  /* with gold the gold row set is exported, and the card lists no whole view */
  json_decref(adjudicate(db, "ann3"));
  rows = rows_in(db, NULL);
  ck_assert_int_eq((int)json_array_size(rows), 3);
  json_decref(rows);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--force", "--out",
                             tu_path(dir, "tasks"), NULL),
                   0);
  card = tu_read(tu_path(dir, "tasks/README.md"), NULL);
  ck_assert_ptr_null(strstr(card, "saved last"));
  free(card);
  free(dir);
  free(db);
}
END_TEST

START_TEST(test_draft_resegment_starts_those_without_their_own) {
  /* the draft re-imported with --resegment (row 1 split at 1 s): ann2, who has no row set of
     their own, starts from it; ann1 and ann3 keep theirs */
  char *db = make_corpus(0), *dir = strdup(db);
  json_t *s = json_object(), *rows = json_array(), *r;
  char *t;
  int i;
  *strrchr(dir, '/') = 0;
  json_object_set_new(s, "sample_id", json_string("g1/s1"));
  json_array_append_new(rows, row(1, 0, 1, "Ann", "accusation", "Bo", "", NULL));
  json_array_append_new(rows, row(2, 1, 2, "Ann", "accusation", "Bo", "", NULL));
  json_array_append_new(rows, row(3, 2, 4, "Therapist", "", "Ann", "", NULL));
  json_array_append_new(rows, row(4, 4, 6, "Bo", "defense", "Ann", "", NULL));
  {
    int ev[2] = {1, 5};
    json_array_append_new(rows, row(5, 6, 8, "Bo", "request", "Ann", "", ev));
  }
  json_object_set_new(s, "rows", rows);
  t = json_dumps(s, JSON_COMPACT);
  tu_write(tu_path(dir, "draft2.jsonl"), t);
  free(t);
  json_decref(s);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft2.jsonl"), "--resegment", NULL), 0);
  r = rows_in(db, "annotator:ann2");
  ck_assert_int_eq((int)json_array_size(r), 5);
  for (i = 0; i < 5; i++)
    ck_assert_int_eq(
        (int)json_integer_value(json_object_get(json_array_get(r, (size_t)i), "row_index")), i + 1);
  /* the halves of row 1 carry ann2's version of the parent on their own times */
  ck_assert(fabs(start_of(r, 1) - 1) < 1e-9);
  ck_assert(fabs(json_number_value(json_object_get(json_array_get(r, 0), "end_time")) - 1) < 1e-9);
  ck_assert(fabs(start_of(r, 2) - 2) < 1e-9);
  ck_assert(fabs(start_of(r, 4) - 6) < 1e-9);
  json_decref(r);
  r = rows_in(db, "annotator:ann1");
  ck_assert_int_eq((int)json_array_size(r), 5);
  ck_assert(fabs(start_of(r, 1) - 2) < 1e-9);
  ck_assert(fabs(start_of(r, 3) - 5) < 1e-9);
  json_decref(r);
  r = rows_in(db, "annotator:ann3");
  ck_assert_int_eq((int)json_array_size(r), 3);
  json_decref(r);
  /* gold in the new draft's row set: its 5 rows; the second half of row 1, which no
     coder's row aligns with, waits for a lead */
  r = adjudicate(db, "draft");
  ck_assert_int_eq(jint(r, "segmentations"), 1);
  ck_assert_int_eq(jint(r, "rows"), 5);
  {
    json_t *u = json_array_get(json_object_get(r, "undecided"), 0);
    ck_assert_int_eq(jint(u, "row"), 2);
    ck_assert_str_eq(json_string_value(json_object_get(u, "reason")),
                     "no coder's row aligns with this row of the gold segmentation");
  }
  json_decref(r);
  free(dir);
  free(db);
}
END_TEST

START_TEST(test_library_call) {
  /* rescue_gold_segmentation_set, as the server's curation route calls it */
  char *db = make_corpus(0);
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_buf why = RESCUE_BUF_INIT;
  rescue_view v = {.kind = RESCUE_VIEW_GOLD};
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  const char *two[] = {"ann1", "ann2"};
  int waits = -1;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_gold_segmentation_set(st, "g1/s1", "majority", NULL, 0, &waits, &why), 0);
  ck_assert_int_eq(waits, 1);
  ck_assert_ptr_nonnull(strstr(why.s, "no row set is shared by more coders than any other"));
  ck_assert_int_ne(rescue_gold_segmentation_set(st, "g1/nope", "ann1", NULL, 0, &waits, NULL), 0);
  ck_assert_int_ne(rescue_gold_segmentation_set(st, "g1/s1", "nobody", NULL, 0, &waits, NULL), 0);
  /* two coders who differ: still no majority; ann3 alone is one */
  ck_assert_int_eq(rescue_gold_segmentation_set(st, "g1/s1", "majority", two, 2, &waits, NULL), 0);
  ck_assert_int_eq(waits, 1);
  ck_assert_int_eq(rescue_gold_segmentation_set(st, "g1/s1", "majority", two + 1, 1, &waits, NULL),
                   0);
  ck_assert_int_eq(waits, 0);
  /* the gold view now reads ann2's row set (4 rows), none of them gold yet */
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  ck_assert_int_eq(smp->n_rows, 4);
  ck_assert_int_eq(smp->n, 0);
  rescue_sample_iter_free(&it);
  ck_assert_int_eq(rescue_gold_segmentation_set(st, "g1/s1", "ann3", NULL, 0, &waits, NULL), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  ck_assert_int_eq(smp->n_rows, 3);
  rescue_sample_iter_free(&it);
  rescue_buf_clear(&why);
  rescue_store_close(&st);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("seggold");
  TCase *tc = tcase_create("seggold");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_each_segmentation);
  tcase_add_test(tc, test_split_halves_take_the_parents_labels);
  tcase_add_test(tc, test_majority);
  tcase_add_test(tc, test_without_segmentation_waits);
  tcase_add_test(tc, test_bad_input);
  tcase_add_test(tc, test_export_one_whole_view);
  tcase_add_test(tc, test_draft_resegment_starts_those_without_their_own);
  tcase_add_test(tc, test_library_call);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
