/*
** check_workflow.c: the double-annotation workflow: statuses with history, comments,
** assignment lists (all round-tripped through --json), retiring annotators, registered
** annotator names, and that none of the workflow state reaches an export.
*/
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *two_samples =
    "{\"sample_id\": \"g/a\", \"rows\": ["
    "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"Ann\", \"target\": "
    "[\"Therapist\"], \"utterance_type\": \"request\"}, "
    "{\"start_time\": 1.0, \"end_time\": 2.0, \"primary_speaker\": \"Therapist\", \"target\": "
    "[\"Ann\"], \"utterance_type\": \"\"}, "
    "{\"start_time\": 2.0, \"end_time\": 3.0, \"primary_speaker\": \"Bob\", \"target\": "
    "[\"Ann\"], \"utterance_type\": \"defense\"}]}\n"
    "{\"sample_id\": \"g/b\", \"rows\": ["
    "{\"start_time\": 0.0, \"end_time\": 1.5, \"primary_speaker\": \"Bob\", \"target\": "
    "[\"Ann\"], \"utterance_type\": \"accusation\"}]}\n";

/* A corpus holding two_samples as the draft, with ann1, ann2 registered. */
static char *setup(char **dir) {
  char *db = tu_new_corpus();
  *dir = strdup(db);
  *strrchr(*dir, '/') = 0;
  tu_write(tu_path(*dir, "in.jsonl"), two_samples);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(*dir, "in.jsonl"), NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann2", NULL), 0);
  return db;
}

static json_t *parse(const char *text) {
  json_error_t e;
  json_t *j = json_loads(text, 0, &e);
  ck_assert_msg(j != NULL, "not JSON (%s): %s", e.text, text);
  return j;
}

START_TEST(status_history_round_trip) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL;
  json_t *j, *h;
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "status", db, "g/a", "in_review", "--annotator", "ann1", NULL), 0);
  /* discarding needs a reason; the refusal changes nothing */
  ck_assert_int_eq(tu_rescue(NULL, &err, "status", db, "g/a", "discarded", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "needs a reason"));
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, &err, "status", db, "g/a", "finished", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown status 'finished'"));
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, "g/a", "discarded", "--reason",
                             "audio unusable", "--annotator", "ann2", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "status", db, "g/a", "--json", NULL), 0);
  j = parse(out);
  ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "discarded");
  ck_assert_str_eq(json_string_value(json_object_get(j, "reason")), "audio unusable");
  h = json_object_get(j, "history");
  ck_assert_int_eq((int)json_array_size(h), 2);
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 0), "status")), "in_review");
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 0), "annotator")), "ann1");
  ck_assert(json_is_null(json_object_get(json_array_get(h, 0), "reason")));
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(h, 1), "annotator")), "ann2");
  json_decref(j);
  free(out);
  /* an unknown sample is a failure with a message */
  ck_assert_int_eq(tu_rescue(NULL, &err, "status", db, "g/zz", "reviewed", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'g/zz'"));
  free(err);
  free(db);
  free(dir);
}
END_TEST

START_TEST(comments_round_trip) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL;
  json_t *j, *c;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "comment", db, "g/a:2", "is this the therapist?",
                             "--annotator", "ann1", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "comment", db, "g/b", "check the clip \"start\"", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, &err, "comment", db, "g/a:9", "no such row", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "has no row 9"));
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, &err, "comment", db, "g/a", "x", "--annotator", "ann 3", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no registered annotator named 'ann 3'"));
  ck_assert_ptr_nonnull(strstr(err, "rescue annotator add"));
  free(err);
  ck_assert_int_eq(tu_rescue(&out, NULL, "comments", db, "--json", NULL), 0);
  j = parse(out);
  c = json_object_get(j, "comments");
  ck_assert_int_eq((int)json_array_size(c), 2);
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "sample_id")), "g/a");
  ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(c, 0), "row")), 2);
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "annotator")), "ann1");
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 0), "text")),
                   "is this the therapist?");
  ck_assert(json_is_null(json_object_get(json_array_get(c, 1), "row")));
  ck_assert(json_is_null(json_object_get(json_array_get(c, 1), "annotator")));
  ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c, 1), "text")),
                   "check the clip \"start\"");
  json_decref(j);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "comments", db, "--samples", "g/b", "--json", NULL), 0);
  j = parse(out);
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "comments")), 1);
  json_decref(j);
  free(out);
  free(db);
  free(dir);
}
END_TEST

START_TEST(assign_list_round_trip) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL;
  json_t *j, *a;
  size_t i;
  int saw_progress = 0;
  ck_assert_int_eq(tu_rescue(&out, NULL, "assign", db, "--list", "--json", NULL), 0);
  j = parse(out);
  ck_assert(json_is_null(json_object_get(j, "run")));
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "assignments")), 0);
  json_decref(j);
  free(out);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann1,ann2", "--overlap", "1", NULL), 0);
  /* ann1 saves two rows of g/a (a changed utterance_type on row 1, and row 3) */
  tu_write(
      tu_path(dir, "ann1.jsonl"),
      "{\"sample_id\": \"g/a\", \"rows\": ["
      "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"Ann\", \"target\": "
      "[\"Therapist\"], \"utterance_type\": \"disclosure\"}, "
      "{\"start_time\": 1.0, \"end_time\": 2.0, \"primary_speaker\": \"Therapist\", \"target\": "
      "[\"Ann\"], \"utterance_type\": \"\"}, "
      "{\"start_time\": 2.0, \"end_time\": 3.0, \"primary_speaker\": \"Bob\", \"target\": "
      "[\"Ann\"], \"utterance_type\": \"repair\"}]}\n");
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, "g/a", "in_review", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(&out, NULL, "assign", db, "--list", "--annotator", "ann1", "--json", NULL), 0);
  j = parse(out);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "run"), "id")), 1);
  a = json_object_get(j, "assignments");
  ck_assert_int_eq((int)json_array_size(a), 2);
  for (i = 0; i < json_array_size(a); i++) {
    json_t *x = json_array_get(a, i);
    ck_assert_str_eq(json_string_value(json_object_get(x, "annotator")), "ann1");
    if (strcmp(json_string_value(json_object_get(x, "sample_id")), "g/a") == 0) {
      ck_assert_str_eq(json_string_value(json_object_get(x, "status")), "in_review");
      ck_assert_int_eq(json_integer_value(json_object_get(x, "rows")), 3);
      /* rows saved: every row the import gave a version of ann1's (the first import of an
         annotator versions each row) */
      ck_assert_int_eq(json_integer_value(json_object_get(x, "rows_saved")), 3);
      saw_progress = 1;
    } else {
      ck_assert_str_eq(json_string_value(json_object_get(x, "status")), "new");
      ck_assert_int_eq(json_integer_value(json_object_get(x, "rows_saved")), 0);
    }
  }
  ck_assert(saw_progress);
  json_decref(j);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "assign", db, "--list", "--json", NULL), 0);
  j = parse(out);
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "assignments")), 4);
  json_decref(j);
  free(out);
  ck_assert_int_eq(tu_rescue(NULL, &err, "assign", db, "--list", "--annotator", "Ann1", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "closest") ? strstr(err, "ann1") : strstr(err, "registered: "));
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* Comments and statuses never reach a samples export; adding them changes no export byte. */
START_TEST(workflow_state_not_exported) {
  char *dir, *db = setup(&dir), *before, *after;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "before.jsonl"), NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "comment", db, "g/a:1", "a comment", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, "g/a", "reviewed", "--reason", "ok", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "after.jsonl"), NULL),
                   0);
  before = tu_read(tu_path(dir, "before.jsonl"), NULL);
  after = tu_read(tu_path(dir, "after.jsonl"), NULL);
  ck_assert_str_eq(before, after);
  ck_assert_ptr_null(strstr(after, "a comment"));
  ck_assert_ptr_null(strstr(after, "reviewed"));
  free(before);
  free(after);
  free(db);
  free(dir);
}
END_TEST

START_TEST(retire_and_unretire) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL;
  json_t *j, *list;
  size_t i;
  ck_assert_int_eq(tu_rescue(NULL, &err, "annotator", "retire", db, "ann2", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "needs a reason"));
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "retire", db, "ann2", "--reason",
                             "left the project", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, &err, "annotator", "retire", db, "ann2", "--reason", "x", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "already retired"));
  free(err);
  ck_assert_int_eq(tu_rescue(&out, NULL, "annotator", "list", db, "--json", NULL), 0);
  j = parse(out);
  list = json_object_get(j, "annotators");
  for (i = 0; i < json_array_size(list); i++) {
    json_t *a = json_array_get(list, i);
    const char *name = json_string_value(json_object_get(a, "name"));
    ck_assert(json_is_boolean(json_object_get(a, "retired")));
    ck_assert_int_eq(json_is_true(json_object_get(a, "retired")), strcmp(name, "ann2") == 0);
  }
  json_decref(j);
  free(out);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "unretire", db, "ann2", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, &err, "annotator", "unretire", db, "ann2", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "not retired"));
  free(err);
  ck_assert_int_eq(
      tu_rescue(NULL, &err, "annotator", "retire", db, "nobody", "--reason", "x", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no registered annotator named 'nobody'"));
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* A retired annotator's versions leave views, agreement and adjudication; history keeps them. */
START_TEST(retired_leave_views_and_agreement) {
  char *dir, *db = setup(&dir), *out = NULL, *err = NULL, *text;
  const char *ann2 = "{\"sample_id\": \"g/a\", \"rows\": ["
                     "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"Ann\", "
                     "\"target\": [\"Therapist\"], \"utterance_type\": \"withdrawal\"}, "
                     "{\"start_time\": 1.0, \"end_time\": 2.0, \"primary_speaker\": \"Therapist\", "
                     "\"target\": [\"Ann\"], \"utterance_type\": \"\"}, "
                     "{\"start_time\": 2.0, \"end_time\": 3.0, \"primary_speaker\": \"Bob\", "
                     "\"target\": [\"Ann\"], \"utterance_type\": \"defense\"}]}\n";
  tu_write(tu_path(dir, "ann1.jsonl"), two_samples);
  tu_write(tu_path(dir, "ann2.jsonl"), ann2);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator", "ann1", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "agree", db, "--field", "utterance_type", "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"coders\": [\"ann1\", \"ann2\"]"));
  free(out);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "ann2", "--reason", "test", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "agree", db, "--field", "utterance_type", "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"coders\": [\"ann1\"]"));
  free(out);
  ck_assert_int_eq(tu_rescue(NULL, &err, "agree", db, "--coders", "ann1,ann2", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "coder 'ann2' is retired"));
  ck_assert_ptr_null(strstr(err, "usage:")); /* a failure, not a usage error */
  free(err);
  ck_assert_int_eq(
      tu_rescue(NULL, &err, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      1);
  ck_assert_ptr_nonnull(strstr(err, "is retired"));
  free(err);
  /* the corpus view (latest by anyone not retired) no longer shows ann2's label */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "out.jsonl"), "--samples", "g/a", NULL),
                   0);
  text = tu_read(tu_path(dir, "out.jsonl"), NULL);
  ck_assert_ptr_null(strstr(text, "withdrawal"));
  free(text);
  /* unretire: back in */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "unretire", db, "ann2", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "out2.jsonl"), "--samples", "g/a", NULL),
                   0);
  text = tu_read(tu_path(dir, "out2.jsonl"), NULL);
  ck_assert_ptr_nonnull(strstr(text, "withdrawal"));
  free(text);
  free(db);
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("workflow");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, status_history_round_trip);
  tcase_add_test(tc, comments_round_trip);
  tcase_add_test(tc, assign_list_round_trip);
  tcase_add_test(tc, workflow_state_not_exported);
  tcase_add_test(tc, retire_and_unretire);
  tcase_add_test(tc, retired_leave_views_and_agreement);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
