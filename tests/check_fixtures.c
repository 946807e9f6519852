/*
** check_fixtures.c: the real RESCUE release samples (RESCUE_FIXTURES): byte-for-byte
** round trips through JSONL and data-root, stats, re-imports and annotator views, and
** what lint finds in them.
*/
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

static const char *couple, *family;
static char couple_path[4096], family_path[4096];

static void find_fixtures(void) {
  const char *fx = tu_fixtures();
  snprintf(couple_path, sizeof couple_path, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family_path, sizeof family_path, "%s/rescue-bench/family-first1.jsonl", fx);
  couple = couple_path;
  family = family_path;
}

/* Both fixture files concatenated: the expected export (alan_... sorts before family_...). */
static char *expected_all(size_t *len) {
  size_t a, b;
  char *x = tu_read(couple, &a), *y = tu_read(family, &b), *r;
  ck_assert_ptr_nonnull(x);
  ck_assert_ptr_nonnull(y);
  r = malloc(a + b + 1);
  memcpy(r, x, a);
  memcpy(r + a, y, b);
  r[a + b] = 0;
  *len = a + b;
  free(x);
  free(y);
  return r;
}

static void import_ok(const char *db, const char *a, const char *b, const char *want) {
  char *out = NULL, *err = NULL;
  int rc = b ? tu_rescue(&out, &err, "import", db, a, b, NULL)
             : tu_rescue(&out, &err, "import", db, a, NULL);
  ck_assert_msg(rc == 0, "import failed: %s", err);
  if (want)
    ck_assert_msg(strstr(out, want) != NULL, "want '%s' in: %s", want, out);
  free(out);
  free(err);
}

static void export_ok(const char *db, const char *format, const char *path, const char *view) {
  char *out = NULL, *err = NULL;
  int rc = view ? tu_rescue(&out, &err, "export", db, "--format", format, "--out", path, "--view",
                            view, NULL)
                : tu_rescue(&out, &err, "export", db, "--format", format, "--out", path, NULL);
  ck_assert_msg(rc == 0, "export failed: %s", err);
  free(out);
  free(err);
}

START_TEST(test_roundtrip_each) {
  const char *files[2] = {couple, family};
  int i;
  for (i = 0; i < 2; i++) {
    char *db = tu_new_corpus();
    char out[4200];
    snprintf(out, sizeof out, "%s.out.jsonl", db);
    import_ok(db, files[i], NULL, NULL);
    export_ok(db, "samples", out, NULL);
    ck_assert_msg(tu_same_file(out, files[i]), "%s does not round-trip", files[i]);
    free(db);
  }
}
END_TEST

START_TEST(test_roundtrip_together_and_data_root) {
  char *db = tu_new_corpus(), *db2 = tu_new_corpus(), *want, *got;
  char out[4200], root[4200], out2[4200];
  size_t wl, gl;
  snprintf(out, sizeof out, "%s.all.jsonl", db);
  snprintf(root, sizeof root, "%s.root", db);
  snprintf(out2, sizeof out2, "%s.again.jsonl", db2);
  import_ok(db, family, couple, "4 samples (181 rows)");
  export_ok(db, "samples", out, NULL);
  want = expected_all(&wl);
  got = tu_read(out, &gl);
  ck_assert_uint_eq(gl, wl);
  ck_assert_msg(memcmp(got, want, wl) == 0, "combined export differs");
  free(got);
  /* data-root: each file is its JSONL line plus a newline; importing it gives the same */
  export_ok(db, "data-root", root, NULL);
  got = tu_read(tu_path(root, "family_therapy/003/merged.json"), NULL);
  ck_assert_ptr_nonnull(got);
  ck_assert_msg(strstr(want, got) != NULL, "data-root file is not a release line");
  free(got);
  import_ok(db2, root, NULL, "4 samples (181 rows)");
  export_ok(db2, "samples", out2, NULL);
  ck_assert(tu_same_file(out, out2));
  free(want);
  free(db);
  free(db2);
}
END_TEST

START_TEST(test_reimport_and_annotators) {
  char *db = tu_new_corpus();
  char out[4200];
  snprintf(out, sizeof out, "%s.ann.jsonl", db);
  import_ok(db, couple, family, "181 row versions added");
  import_ok(db, couple, family, "0 new, 0 changed, 4 unchanged; 0 row versions added");
  /* a second annotator's copy counts as their label on every row */
  import_ok(db, couple, NULL, NULL);
  {
    char *o = NULL, *e = NULL;
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann2", NULL), 0);
    ck_assert_int_eq(tu_rescue(&o, &e, "import", db, couple, "--annotator", "ann2", NULL), 0);
    ck_assert_ptr_nonnull(strstr(o, "69 row versions added"));
    free(o);
    free(e);
  }
  export_ok(db, "samples", out, "annotator:ann2");
  {
    /* ann2 versioned only the couple samples; the family one shows the draft */
    size_t wl;
    char *want = expected_all(&wl);
    char *got = tu_read(out, NULL);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
  }
  free(db);
}
END_TEST

/* Table 3 on the fixtures: couple 3 / 69 / 28 therapist rows, family 1 / 112 / 60. */
START_TEST(test_stats) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL;
  json_t *j, *c, *f;
  json_error_t je;
  import_ok(db, couple, family, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "stats", db, "--json", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "stats --json is not JSON: %s", je.text);
  c = json_object_get(j, "couple");
  f = json_object_get(j, "family");
  ck_assert_int_eq(json_integer_value(json_object_get(c, "samples")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(c, "turns")), 69);
  ck_assert_int_eq(json_integer_value(json_object_get(c, "therapist_turns")), 28);
  ck_assert(json_real_value(json_object_get(c, "therapist_share")) == 28.0 / 69.0);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "samples")), 1);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "turns")), 112);
  ck_assert(json_real_value(json_object_get(f, "therapist_share")) == 60.0 / 112.0);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "all"), "samples")), 4);
  /* family: Maria, Joel, Laura and Therapist speak */
  ck_assert(json_real_value(json_object_get(f, "avg_speakers")) == 4.0);
  json_decref(j);
  free(out);
  free(err);
  free(db);
}
END_TEST

/*
** Lint on the four real samples finds what a real release has (moved here from
** check_lint: a suite whose other tests need no fixtures must not skip or fail without them).
*/
START_TEST(test_lint) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, couple, family, "--strict", NULL), 0);
  ck_assert_msg(!strstr(err, "warning"), "the release has no key that looks like a typo: %s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 1);
  ck_assert_ptr_nonnull(strstr(out, "4 samples, 181 rows"));
  /* an evidence row 0 in the third couple sample; one same-speaker overlap in the family one */
  ck_assert_ptr_nonnull(strstr(out, "alan_and_evelyn/003_s01e02_ct81_segment02:2: error: R13 "
                                    "relation_pattern_evidence_rows"));
  ck_assert_ptr_nonnull(strstr(out, "family_therapy/003/merged:18: warning: R18"));
  free(out);
  free(err);
  /* the release's one error, accepted with a waiver: lint then passes (and can gate CI) */
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive",
                             "R13:alan_and_evelyn/003_s01e02_ct81_segment02:2", "--reason",
                             "evidence row 0 as released", NULL),
                   0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 0);
  ck_assert_msg(strstr(out, "4 samples, 181 rows: 0 errors, 1 warning, 1 waived (R18 1)"), "%s",
                out);
  ck_assert_ptr_nonnull(strstr(out, "  alan_and_evelyn/003_s01e02_ct81_segment02:2: error: R13 "));
  free(out);
  free(err);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("fixtures");
  TCase *tc = tcase_create("fixtures");
  find_fixtures();
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_roundtrip_each);
  tcase_add_test(tc, test_roundtrip_together_and_data_root);
  tcase_add_test(tc, test_reimport_and_annotators);
  tcase_add_test(tc, test_stats);
  tcase_add_test(tc, test_lint);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
