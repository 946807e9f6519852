/*
** check_draft.c: `rescue draft` with a stand-in model (tests/draft/model.py) on the real
** fixture samples: prompts built from the scheme, perfect, prose-wrapped, faulty-then-
** fixed, short, timed-out, crashing and garbage answers, provenance, parallel requests
** that never interleave their writes, and refusals that leave the store as it was. The
** failing commands and the refusals run on the demo samples (tools/demo), so they run
** without the fixtures too; the rest are skipped then (RESCUE_REQUIRE_FIXTURES=1 fails).
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define PY "/usr/bin/python3"

static char model_cmd[1024];

/* The model command for one mode of tests/draft/model.py. */
static const char *model(const char *mode) {
  ck_assert_msg(access(PY, X_OK) == 0, "%s is needed by these tests (.ci/deps installs it)", PY);
  snprintf(model_cmd, sizeof model_cmd, "%s %s/tests/draft/model.py %s", PY, RESCUE_SOURCE_DIR,
           mode);
  return model_cmd;
}

/* A corpus with the four real fixture samples and a model annotator "m". */
static char *fixture_corpus(void) {
  const char *fx = tu_fixtures();
  char *db = tu_new_corpus(), couple[1024], family[1024];
  snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family, sizeof family, "%s/rescue-bench/family-first1.jsonl", fx);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, couple, family, NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "m", "--role", "model", NULL), 0);
  return db;
}

/* A corpus with the two demo samples of tools/demo and a model annotator "m". */
static char *demo_corpus(void) {
  char *db = tu_new_corpus(), couple[1024], family[1024];
  snprintf(couple, sizeof couple, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  snprintf(family, sizeof family, "%s/tools/demo/family.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, couple, family, NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "m", "--role", "model", NULL), 0);
  return db;
}

#define DEMO_COUPLE "maya_and_daniel/001_s01e01_segment01"
#define DEMO_FAMILY "family_therapy/demo01/merged"

static long count(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  long n = -1;
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
  if (sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/* The samples as one view shows them, as JSONL text (caller frees). */
static char *export_view(const char *db, const char *view) {
  char *dir = strdup(db), *text;
  *strrchr(dir, '/') = 0;
  const char *out = tu_path(dir, "view.jsonl");
  unlink(out);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--view", view,
                             "--out", out, "--force", NULL),
                   0);
  text = tu_read(out, NULL);
  ck_assert_ptr_nonnull(text);
  free(dir);
  return text;
}

/*
** Every row of `drafted` keeps the times and text of the same row in `orig`, and has the
** model's labels (tone_of_voice "model: even") unless it is at a position listed in
** `not_model` (sample index * 1000 + row_index). Returns the rows compared.
*/
static int compare_rows(const char *orig, const char *drafted, int expect_model) {
  rescue_jdoc *a = rescue_jdoc_new(), *b = rescue_jdoc_new();
  const char *p = orig, *q = drafted;
  int rows = 0;
  while (*p && *q) {
    const char *pe = strchr(p, '\n'), *qe = strchr(q, '\n');
    rescue_jerror je;
    const rescue_jnode *sa = rescue_jparse(a, p, (size_t)(pe - p), &je);
    const rescue_jnode *sb = rescue_jparse(b, q, (size_t)(qe - q), &je);
    const rescue_jnode *ra, *rb;
    ck_assert_ptr_nonnull(sa);
    ck_assert_ptr_nonnull(sb);
    ck_assert_str_eq(rescue_jget(sa, "sample_id")->s, rescue_jget(sb, "sample_id")->s);
    for (ra = rescue_jget(sa, "rows")->child, rb = rescue_jget(sb, "rows")->child; ra && rb;
         ra = ra->next, rb = rb->next, rows++) {
      const char *keep[] = {"start_time", "end_time", "dialogue_cleaned", "row_index",
                            "primary_speaker"};
      size_t k;
      for (k = 0; k < sizeof keep / sizeof keep[0]; k++) {
        rescue_buf x = RESCUE_BUF_INIT, y = RESCUE_BUF_INIT;
        rescue_jwrite(&x, rescue_jget(ra, keep[k]));
        rescue_jwrite(&y, rescue_jget(rb, keep[k]));
        ck_assert_str_eq(x.s, y.s);
        rescue_buf_clear(&x);
        rescue_buf_clear(&y);
      }
      ck_assert_ptr_null(rescue_jget(rb, "model_note")); /* not a scheme field: left out */
      if (expect_model)
        ck_assert_str_eq(rescue_jget(rb, "tone_of_voice")->s, "model: even");
      else
        ck_assert_str_ne(rescue_jget(rb, "tone_of_voice")->s, "model: even");
    }
    ck_assert(!ra && !rb);
    p = pe + 1;
    q = qe + 1;
  }
  ck_assert(!*p && !*q);
  rescue_jdoc_free(&a);
  rescue_jdoc_free(&b);
  return rows;
}

START_TEST(test_prompt_from_scheme) {
  char *db = fixture_corpus(), *out = NULL;
  rescue_scheme *sc = NULL;
  size_t len;
  const char *xml = rescue_scheme_default_xml(&len);
  const char *couple = "alan_and_evelyn/001_s01e01_ct25_segment04";
  int i, j;
  ck_assert_int_eq(rescue_scheme_load(xml, len, &sc, NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "draft", db, "--annotator", "m", "--print-prompt",
                             "--samples", couple, NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "=== alan_and_evelyn/001_s01e01_ct25_segment04 rows 1-16 ==="));
  ck_assert_ptr_nonnull(strstr(out, "The participants are [\"Alan\", \"Evelyn\"]"));
  for (i = 0; i < sc->n_labelsets; i++) {
    const rescue_labelset *ls = &sc->labelsets[i];
    char line[256];
    if (ls->scenario && strcmp(ls->scenario, "couple") != 0)
      continue;
    for (j = 0; j < ls->n; j++) {
      snprintf(line, sizeof line, "  - %s: %s\n", ls->labels[j], ls->descriptions[j]);
      ck_assert_msg(strstr(out, line), "couple prompt lacks %s", line);
    }
  }
  for (i = 0; i < sc->n_fields; i++) {
    char key[128];
    snprintf(key, sizeof key, "- %s: ", sc->fields[i].key);
    ck_assert_msg(strstr(out, key), "prompt lacks field %s", sc->fields[i].key);
  }
  ck_assert_ptr_nonnull(strstr(out, "R05 (error)"));
  ck_assert_ptr_nonnull(strstr(out, "\"dialogue_cleaned\": \"Like I just wanna be better."));
  ck_assert_ptr_null(strstr(out, "escalation_conflict")); /* a family-only label */
  free(out);
  /* the family sample: its own label sets, its participants */
  ck_assert_int_eq(tu_rescue(&out, NULL, "draft", db, "--annotator", "m", "--print-prompt",
                             "--samples", "family_therapy/003/merged", NULL),
                   0);
  for (i = 0; i < sc->n_labelsets; i++) {
    const rescue_labelset *ls = &sc->labelsets[i];
    char line[256];
    if (ls->scenario && strcmp(ls->scenario, "family") != 0)
      continue;
    for (j = 0; j < ls->n; j++) {
      snprintf(line, sizeof line, "  - %s: %s\n", ls->labels[j], ls->descriptions[j]);
      ck_assert_msg(strstr(out, line), "family prompt lacks %s", line);
    }
  }
  ck_assert_ptr_nonnull(strstr(out, "Joel"));
  ck_assert_ptr_null(strstr(out, "attack_attack")); /* a couple-only label */
  free(out);
  /* print-prompt stores nothing */
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"), 0);
  rescue_scheme_free(&sc);
  free(db);
}
END_TEST

START_TEST(test_perfect_drafts_fixtures) {
  char *db = fixture_corpus(), *out = NULL, *err = NULL, *before, *after;
  long rows;
  before = export_view(db, "latest");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--model-cmd", model("perfect"), NULL),
      0);
  ck_assert_ptr_nonnull(strstr(out, "4 requests: 4 ok, 0 partial, 0 failed"));
  after = export_view(db, "annotator:m");
  rows = compare_rows(before, after, 1);
  ck_assert_int_gt(rows, 80);
  /* provenance: one request per sample, one model version per row */
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"), 4);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), rows);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request WHERE attempts = 1 AND "
                             "exit_status = 0 AND outcome = 'ok' AND length(prompt_sha256) = 64 "
                             "AND command LIKE '%model.py perfect' AND wall_ms >= 0"),
                   4);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version v JOIN model_version m ON "
                             "m.version_id = v.id JOIN annotator a ON a.id = v.annotator_id "
                             "WHERE a.name = 'm'"),
                   rows);
  /* a person revises the draft: agreement compares the model with them, by name */
  {
    char couple[1024], *aout = NULL;
    snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", tu_fixtures());
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
    ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, couple, "--annotator", "ann1", NULL), 0);
    ck_assert_int_eq(tu_rescue(&aout, NULL, "agree", db, "--field", "utterance_type", NULL), 0);
    ck_assert_msg(strstr(aout, "\nmodel m and ann1: ") &&
                      strstr(aout, " rows the model answered, in 3 samples both covered; ann1 "
                                   "revised the model's draft (ann1's version is the later one)"),
                  "%s", aout);
    free(aout);
  }
  /* other views are untouched: the corpus still exports the release's bytes */
  free(after);
  after = export_view(db, "annotator:import");
  ck_assert_str_eq(before, after);
  free(before);
  free(after);
  free(out);
  free(err);
  free(db);
}
END_TEST

START_TEST(test_prose_and_retry) {
  char *db = fixture_corpus(), *out = NULL, *err = NULL;
  const char *s1 = "alan_and_evelyn/002_s01e02_ct81_segment01";
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("prose"), "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"status\": \"ok\""));
  ck_assert_ptr_nonnull(strstr(out, "\"tolerances\": 1"));
  free(out);
  free(err);
  /* JSON inside a sentence, after a bracket that is not JSON */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("inline"), "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"status\": \"ok\""));
  ck_assert_ptr_nonnull(strstr(out, "\"tolerances\": 1"));
  free(out);
  free(err);
  /* out-of-set labels: refused by lint, asked again with the findings, fixed */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("badlabels"), "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"attempts\": 2"));
  ck_assert_ptr_nonnull(strstr(out, "\"rows_kept_back\": 0"));
  free(out);
  free(err);
  /* without retries the client rows stay back, the therapist rows are stored */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("badlabels"), "--retries", "0", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "error: R06 utterance_type"));
  ck_assert_ptr_nonnull(strstr(err, "accusatory"));
  ck_assert_ptr_nonnull(strstr(err, ": partial, "));
  ck_assert_ptr_nonnull(strstr(err, "1 kept rows back"));
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request WHERE outcome = 'partial' "
                             "AND attempts = 1"),
                   1);
  free(out);
  free(err);
  free(db);
}
END_TEST

START_TEST(test_wrong_count) {
  char *db = fixture_corpus(), *out = NULL, *err = NULL;
  const char *s1 = "alan_and_evelyn/001_s01e01_ct25_segment04";
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("wrongcount"), "--retries", "1", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "row 16: error: the answer has no object for row_index 16"));
  ck_assert_ptr_nonnull(strstr(err, "(2 attempts"));
  ck_assert_ptr_nonnull(strstr(out, "15 rows stored as m's versions, 1 kept back"));
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), 15);
  free(out);
  free(err);
  free(db);
}
END_TEST

/* A failing command fails its request: nothing stored, its reason reported, exit 1. */
static void failing(const char *mode, const char *extra, const char *expect) {
  char *db = demo_corpus(), *out = NULL, *err = NULL, *copy_before;
  const char *s1 = DEMO_COUPLE;
  copy_before = export_view(db, "annotator:m");
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model(mode), "--retries", "0", "--timeout", extra,
                             NULL),
                   1);
  ck_assert_msg(strstr(err, expect), "stderr lacks '%s': %s", expect, err);
  ck_assert_ptr_nonnull(strstr(err, "1 failed"));
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), 0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request WHERE outcome = 'failed'"), 1);
  free(out);
  out = export_view(db, "annotator:m");
  ck_assert_str_eq(out, copy_before);
  free(copy_before);
  free(out);
  free(err);
  free(db);
}

START_TEST(test_timeout) { failing("timeout", "1", "timed out after 1 s"); }
END_TEST

START_TEST(test_crash) {
  failing("crash", "60",
          "exit status 3; stderr: loading weights... | model exploded: CUDA out of memory");
}
END_TEST

START_TEST(test_garbage) { failing("garbage", "60", "no usable JSON in the output"); }
END_TEST

START_TEST(test_jobs_do_not_interleave) {
  char *db = fixture_corpus(), *out = NULL, *err = NULL;
  long rows = count(db, "SELECT count(*) FROM row");
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--model-cmd",
                             model("slow"), "--jobs", "3", "--rows-per-request", "7", NULL),
                   0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), rows);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"),
                   count(db, "SELECT sum((n_rows + 6) / 7) FROM rowset"));
  /* each request's versions are one unbroken run of ids: no other write came between */
  ck_assert_int_eq(count(db, "SELECT count(*) FROM (SELECT request_id, min(version_id) lo, "
                             "max(version_id) hi, count(*) n FROM model_version GROUP BY "
                             "request_id) WHERE hi - lo + 1 != n"),
                   0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request WHERE row_to - row_from + 1 "
                             "!= (SELECT count(*) FROM model_version WHERE request_id = "
                             "model_request.id)"),
                   0);
  free(out);
  free(err);
  free(db);
}
END_TEST

/*
** Drafting the same rows again with the same answers adds no versions and reports the rows
** as unchanged; an answer that differs in one row adds exactly that row's version.
*/
START_TEST(test_same_answer_stores_nothing) {
  char *db = fixture_corpus(), *out = NULL, *err = NULL, *view1, *view2;
  const char *s1 = "alan_and_evelyn/001_s01e01_ct25_segment04";
  long rows, versions;
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("perfect"), NULL),
                   0);
  rows = count(db, "SELECT count(*) FROM model_version");
  ck_assert_int_eq(rows, 16);
  ck_assert_msg(strstr(out, "16 rows stored as m's versions, 0 kept back, 0 unchanged"), "%s", out);
  free(out);
  free(err);
  versions = count(db, "SELECT count(*) FROM row_version");
  view1 = export_view(db, "annotator:m");
  /* the same answers again: the request is recorded, no row version is added */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("perfect"), NULL),
                   0);
  ck_assert_msg(strstr(out, "1 request: 1 ok, 0 partial, 0 failed; 0 rows stored as m's "
                            "versions, 0 kept back, 16 unchanged"),
                "%s", out);
  ck_assert_msg(strstr(err, ": ok, 0 stored, 16 unchanged ("), "%s", err);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version"), versions);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), rows);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"), 2);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request WHERE outcome = 'ok'"), 2);
  view2 = export_view(db, "annotator:m");
  ck_assert_str_eq(view1, view2);
  free(view2);
  free(out);
  free(err);
  /* --json says the same */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("perfect"), "--json", NULL),
                   0);
  ck_assert_msg(strstr(out, "\"rows_imported\": 0"), "%s", out);
  ck_assert_msg(strstr(out, "\"rows_kept_back\": 0"), "%s", out);
  ck_assert_msg(strstr(out, "\"rows_unchanged\": 16"), "%s", out);
  ck_assert_msg(strstr(out, "\"status\": \"ok\""), "%s", out);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version"), versions);
  free(out);
  free(err);
  /* one row answered differently: exactly one version, for that row */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("onechange"), "--json", NULL),
                   0);
  ck_assert_msg(strstr(out, "\"rows_imported\": 1"), "%s", out);
  ck_assert_msg(strstr(out, "\"rows_unchanged\": 15"), "%s", out);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version"), versions + 1);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), rows + 1);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version v JOIN model_version m ON "
                             "m.version_id = v.id JOIN row r ON r.id = v.row_id WHERE "
                             "m.request_id = (SELECT max(id) FROM model_request) AND "
                             "r.position = 1 AND v.content LIKE '%model: sharp%'"),
                   1);
  free(out);
  free(err);
  /* and back to the first answer: that row changes again, the others do not */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--samples", s1,
                             "--model-cmd", model("perfect"), "--json", NULL),
                   0);
  ck_assert_msg(strstr(out, "\"rows_imported\": 1"), "%s", out);
  ck_assert_msg(strstr(out, "\"rows_unchanged\": 15"), "%s", out);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM row_version"), versions + 2);
  view2 = export_view(db, "annotator:m");
  ck_assert_str_eq(view1, view2);
  free(view2);
  free(view1);
  free(out);
  free(err);
  free(db);
}
END_TEST

START_TEST(test_refusals) {
  char *db = demo_corpus(), *out = NULL, *err = NULL, *before, *after, *dir = strdup(db);
  size_t n1, n2;
  *strrchr(dir, '/') = 0;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
  before = tu_read(db, &n1);
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "nobody", "--model-cmd",
                             model("perfect"), NULL),
                   1);
  ck_assert_str_eq(err, "rescue: draft: no annotator named 'nobody' (register the model with "
                        "role model first)\n");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "ann1", "--model-cmd",
                             model("perfect"), NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "annotator 'ann1' has role annotator; drafts are written "
                                    "only under an annotator with role model"));
  free(out);
  free(err);
  tu_write(tu_path(dir, "p.txt"), "Annotate {{rows}}\nfor {{sample_id}} in {{langauge}}\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--model-cmd",
                             model("perfect"), "--prompt", tu_path(dir, "p.txt"), NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "p.txt:2: unknown placeholder '{{langauge}}'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "--model-cmd is required"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--model-cmd",
                             model("perfect"), "--samples", "no/such", NULL),
                   1);
  free(out);
  free(err);
  after = tu_read(db, &n2);
  ck_assert(n1 == n2 && memcmp(before, after, n1) == 0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"), 0);
  /* a template of the user's own is used as given */
  tu_write(tu_path(dir, "q.txt"), "Rows {{row_from}}-{{row_to}} of {{sample_id}}:\n## Rows to "
                                  "annotate\n{{rows}}\n## Answer\nThe participants are "
                                  "{{participants}}.\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "m", "--model-cmd",
                             model("perfect"), "--prompt", tu_path(dir, "q.txt"), "--samples",
                             DEMO_FAMILY, NULL),
                   0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_version"), 10);
  free(out);
  free(err);
  free(before);
  free(after);
  free(dir);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("draft");
  TCase *tc = tcase_create("draft");
  const char *fx = tu_fixtures_if_present();
  int rc;
  tcase_set_timeout(tc, 120);
  if (fx) {
    tcase_add_test(tc, test_prompt_from_scheme);
    tcase_add_test(tc, test_perfect_drafts_fixtures);
    tcase_add_test(tc, test_prose_and_retry);
    tcase_add_test(tc, test_wrong_count);
  }
  tcase_add_test(tc, test_timeout);
  tcase_add_test(tc, test_crash);
  tcase_add_test(tc, test_garbage);
  if (fx) {
    tcase_add_test(tc, test_jobs_do_not_interleave);
    tcase_add_test(tc, test_same_answer_stores_nothing);
  }
  tcase_add_test(tc, test_refusals);
  suite_add_tcase(s, tc);
  rc = tu_run_suite(s);
  if (rc == 0 && !fx) {
    /* what ran passed; ctest shows the suite as skipped, since part of it did not run */
    fprintf(stderr, "check_draft: 6 tests need the fixtures: SKIPPED\n");
    return 77;
  }
  return rc;
}
