/*
** check_typos.c: "did you mean" helpers (edit distance, closest names) and import's
** warnings for keys that look like typos of the scheme's fields: warned with the field
** they resemble and kept as they are; refused under --strict with the corpus unchanged.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "testutil.h"

START_TEST(test_edit_distance) {
  static const char *const labels[] = {"accusation",   "defense",    "disclosure", "request",
                                       "recollection", "reflection", "repair",     "withdrawal"};
  int idx[3], n;
  ck_assert_int_eq(rescue_edit_distance("relation_patern", "relation_pattern", 3), 1);
  ck_assert_int_eq(rescue_edit_distance("tagret", "target", 3), 1); /* a swap costs 1 */
  ck_assert_int_eq(rescue_edit_distance("Target", "target", 3), 0); /* case is ignored */
  ck_assert_int_eq(rescue_edit_distance("kitten", "sitting", 3), 3);
  ck_assert_int_eq(rescue_edit_distance("kitten", "sitting", 2), 3); /* stops above max */
  ck_assert_int_eq(rescue_edit_distance("", "abc", 5), 3);
  n = rescue_closest("acusation", labels, 8, 1000, idx, 3);
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(idx[0], 0);
  {
    static const char *const four[] = {"abc", "abd", "abe", "abf"};
    n = rescue_closest("ab", four, 4, 2, idx, 3); /* ties, in list order, at most 3 */
    ck_assert_int_eq(n, 3);
    ck_assert(idx[0] == 0 && idx[1] == 1 && idx[2] == 2);
  }
  n = rescue_closest("with", labels, 8, 2, idx, 3); /* a prefix of 3 bytes or more counts 1 */
  ck_assert_int_eq(n, 1);
  ck_assert_int_eq(idx[0], 7);
  n = rescue_closest("zzzzzzzzzz", labels, 8, 2, idx, 3);
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(rescue_typo_budget("row"), 1);
  ck_assert_int_eq(rescue_typo_budget("speaker"), 2);
  ck_assert_int_eq(rescue_typo_budget("relation_pattern"), 3);
}
END_TEST

/* A sample with typos at sample level, row level and inside a list item. */
static const char sample[] =
    "{\"sample_id\": \"a_and_b/s01\", \"scenrio\": \"couple\", \"rows\": [\n"
    "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"A\", \"target\": [\"B\"],\n"
    " \"dialogue_cleaned\": \"x\", \"utterance_type\": \"request\", \"background_dialogue\": [],\n"
    " \"tone_of_voice\": \"\", \"body_posture\": [], \"facial_expressions\": [],\n"
    " \"self_directed_behavior\": [], \"interaction_behavior\": [], \"internal_emotion\": [],\n"
    " \"viewpoints_attitudes\": [], \"support_strategy\": [{\"provider\": \"Therapist\",\n"
    " \"target\": [\"A\"], \"strategy_typ\": \"join\", \"strategy_content\": \"\"}],\n"
    " \"relation_patern\": \"pursue_withdraw\", \"my_own_note\": \"kept, not a typo\"}]}\n";

START_TEST(test_import_warns) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, *exported;
  const char *in, *ex;
  json_t *j, *w;
  json_error_t je;
  *strrchr(dir, '/') = 0;
  in = tu_path(dir, "typo.json");
  tu_write(in, sample);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, in, NULL), 0);
  ck_assert_msg(strstr(err, "typo.json:1:41: sample 'a_and_b/s01': unknown key 'scenrio' looks "
                            "like a typo of 'scenario' (kept as it is"),
                "%s", err);
  ck_assert_msg(strstr(err, "typo.json:7:35: sample 'a_and_b/s01': row 1: support_strategy item: "
                            "unknown key 'strategy_typ' looks like a typo of 'strategy_type'"),
                "%s", err);
  ck_assert_msg(strstr(err, "typo.json:8:21: sample 'a_and_b/s01': row 1: unknown key "
                            "'relation_patern' looks like a typo of 'relation_pattern'"),
                "%s", err);
  ck_assert_msg(!strstr(err, "my_own_note"), "%s", err);
  ck_assert_msg(strstr(out, "imported 1 sample (1 rows)"), "%s", out);
  free(out);
  free(err);
  /* kept as it is: the export gives the key back in place */
  ex = tu_path(dir, "out.jsonl");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out", ex, NULL),
                   0);
  exported = tu_read(ex, NULL);
  ck_assert_ptr_nonnull(strstr(exported, "\"relation_patern\": \"pursue_withdraw\", "
                                         "\"my_own_note\""));
  free(exported);

  /* --json: the warnings as objects (an import under a registered annotator's name) */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, in, "--json", "--annotator", "ann", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  ck_assert_int_eq(json_array_size(json_object_get(j, "warnings")), 3);
  w = json_array_get(json_object_get(j, "warnings"), 1);
  ck_assert_str_eq(json_string_value(json_object_get(w, "key")), "relation_patern");
  ck_assert_str_eq(json_string_value(json_object_get(w, "resembles")), "relation_pattern");
  ck_assert_int_eq(json_integer_value(json_object_get(w, "line")), 8);
  ck_assert_int_eq(json_array_size(json_object_get(j, "subtitle_cues")), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "samples")), 1);
  json_decref(j);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_import_strict) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, copy[4096];
  const char *in;
  size_t n;
  char *bytes;
  *strrchr(dir, '/') = 0;
  in = tu_path(dir, "typo.json");
  tu_write(in, sample);
  snprintf(copy, sizeof copy, "%s.copy", db);
  bytes = tu_read(db, &n);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, in, "--strict", NULL), 1);
  ck_assert_msg(strstr(err, "rescue: import: ") &&
                    strstr(err, "typo.json:1:41: sample 'a_and_b/s01': unknown key 'scenrio' "
                                "looks like a typo of 'scenario'"),
                "%s", err);
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("typos");
  TCase *tc = tcase_create("typos");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_edit_distance);
  tcase_add_test(tc, test_import_warns);
  tcase_add_test(tc, test_import_strict);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
