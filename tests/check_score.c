/*
** check_score.c: `rescue score` on hand-written gold and predictions whose metrics are
** worked out by hand below: ITP, RPP (padding, macro scores), STP, SSP, ER; missing and
** invalid predictions, model replies, bad input with file:line:column, and the CLI.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskutil.h"

static char *dir;

/* Write name in the suite's folder; returns its path (static ring of tu_path). */
static const char *put(const char *name, const char *text) {
  const char *p;
  if (!dir)
    dir = tu_tmpdir();
  p = tu_path(dir, name);
  tu_write(p, text);
  return p;
}

/* Run rescue score --json and parse the report (asserts exit 0). */
static json_t *score_json(const char *task, const char *gold, const char *pred) {
  char *out = NULL, *err = NULL, g[4096], p[4096];
  json_error_t je;
  json_t *j;
  int rc;
  snprintf(g, sizeof g, "%s", gold);
  snprintf(p, sizeof p, "%s", pred);
  rc = tu_rescue(&out, &err, "score", task, "--gold", g, "--pred", p, "--json", NULL);
  ck_assert_msg(rc == 0, "score %s: %s", task, err);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "report: %s", je.text);
  free(out);
  free(err);
  return j;
}

/* A number at a path of object keys ("overall", "f1_yes", NULL). */
static double num(json_t *j, ...) {
  va_list ap;
  const char *k;
  va_start(ap, j);
  while ((k = va_arg(ap, const char *)) != NULL) {
    j = json_object_get(j, k);
    ck_assert_msg(j != NULL, "no key %s", k);
  }
  va_end(ap);
  ck_assert(json_is_number(j));
  return json_number_value(j);
}

#define NEAR(a, b)                                                                                 \
  ck_assert_msg(fabs((a) - (b)) < 1e-12, "%.17g != %.17g", (double)(a), (double)(b))

static const char *itp_gold(void) {
  return put("itp.jsonl",
             "{\"task\": \"itp\", \"instance_id\": \"a1\", \"sample_id\": \"c1/s1\", \"couple\": "
             "\"c1\", \"scenario\": \"couple\", \"gold_should_speak\": \"yes\"}\n"
             "{\"task\": \"itp\", \"instance_id\": \"a2\", \"sample_id\": \"c1/s1\", \"couple\": "
             "\"c1\", \"scenario\": \"couple\", \"gold_should_speak\": \"no\"}\n"
             "{\"task\": \"itp\", \"instance_id\": \"a3\", \"sample_id\": \"c1/s2\", \"couple\": "
             "\"c1\", \"scenario\": \"couple\", \"gold_should_speak\": \"yes\"}\n"
             "{\"task\": \"itp\", \"instance_id\": \"a4\", \"sample_id\": \"c1/s2\", \"couple\": "
             "\"c1\", \"scenario\": \"couple\", \"gold_should_speak\": \"no\"}\n"
             "{\"task\": \"itp\", \"instance_id\": \"a5\", \"sample_id\": \"f/c2/s3\", \"couple\": "
             "\"c2\", \"scenario\": \"family\", \"gold_should_speak\": \"yes\"}\n"
             "{\"task\": \"itp\", \"instance_id\": \"a6\", \"sample_id\": \"f/c2/s3\", \"couple\": "
             "\"c2\", \"scenario\": \"family\", \"gold_should_speak\": \"no\"}\n");
}

START_TEST(test_itp) {
  const char *gold = itp_gold(), *pred;
  char g[4096];
  json_t *j, *conf;
  snprintf(g, sizeof g, "%s", gold);
  pred = put("itp.pred.jsonl",
             "{\"instance_id\": \"a1\", \"should_speak\": \"y\"}\n"
             "{\"instance_id\": \" a1 \", \"should_speak\": \"Yes\"}\n" /* duplicate, kept */
             "{\"instance_id\": \"a2\", \"should_speak\": \"keep_listening\"}\n"
             "\n"
             "{\"instance_id\": \"a3\", \"should_speak\": \"I think no\"}\n"
             "{\"instance_id\": \"a4\", \"should_speak\": true}\n"
             "{\"instance_id\": \"a6\", \"should_speak\": \"maybe\"}\n" /* invalid: no */
             "{\"instance_id\": \"zz\", \"should_speak\": \"yes\"}\n"   /* unknown */
             "{\"should_speak\": \"yes\"}\n");                          /* no id */
  j = score_json("itp", g, pred);
  /* a1 TP, a2 TN, a3 FN, a4 FP, a5 missing -> FN, a6 invalid -> TN */
  NEAR(num(j, "counts", "instances", NULL), 6);
  NEAR(num(j, "counts", "predicted", NULL), 5);
  NEAR(num(j, "counts", "missing", NULL), 1);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  NEAR(num(j, "counts", "unknown_ids", NULL), 1);
  NEAR(num(j, "counts", "duplicates", NULL), 1);
  NEAR(num(j, "counts", "no_id", NULL), 1);
  NEAR(num(j, "overall", "tp", NULL), 1);
  NEAR(num(j, "overall", "fn", NULL), 2);
  NEAR(num(j, "overall", "fp", NULL), 1);
  NEAR(num(j, "overall", "tn", NULL), 2);
  NEAR(num(j, "overall", "precision_yes", NULL), 0.5);
  NEAR(num(j, "overall", "recall_yes", NULL), 1.0 / 3);
  NEAR(num(j, "overall", "f1_yes", NULL), 0.4);
  NEAR(num(j, "overall", "precision_no", NULL), 0.5);
  NEAR(num(j, "overall", "recall_no", NULL), 2.0 / 3);
  NEAR(num(j, "overall", "f1_no", NULL), 4.0 / 7);
  NEAR(num(j, "overall", "accuracy", NULL), 0.5);
  NEAR(num(j, "overall", "balanced_accuracy", NULL), 0.5);
  NEAR(num(j, "couples", "c1", "f1_yes", NULL), 0.5);
  NEAR(num(j, "samples", "f/c2/s3", "precision_yes", NULL), 0.0); /* 0/0 is 0 */
  NEAR(num(j, "samples", "f/c2/s3", "recall_no", NULL), 1.0);
  NEAR(num(j, "scenarios", "family", "n", NULL), 2);
  conf = json_object_get(j, "confusions");
  ck_assert_int_eq((int)json_array_size(conf), 4);
  ck_assert_str_eq(tt_str(json_array_get(conf, 0), "gold"), "no");
  ck_assert_str_eq(tt_str(json_array_get(conf, 0), "pred"), "no");
  ck_assert_str_eq(tt_str(json_array_get(conf, 1), "gold"), "yes");
  ck_assert_str_eq(tt_str(json_array_get(conf, 1), "pred"), "no");
  NEAR(num(json_array_get(conf, 1), "count", NULL), 2);
  json_decref(j);
}
END_TEST

START_TEST(test_replies_and_lists) {
  const char *gold = itp_gold(), *pred;
  char g[4096];
  json_t *j;
  snprintf(g, sizeof g, "%s", gold);
  pred = put("itp.replies.jsonl",
             "[{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}, {\"candidate_id\": \"a2\", "
             "\"should_speak\": \"no\"}]\n"
             "{\"predictions\": [{\"instance_id\": \"a3\", \"should_speak\": \"yes\"}]}\n"
             "\"```json\\n{\\\"predictions\\\": {\\\"instance_id\\\": \\\"a4\\\", "
             "\\\"should_speak\\\": \\\"no\\\"}}\\n```\"\n"
             "\"Sure! Here: {\\\"instance_id\\\": \\\"a5\\\", \\\"should_speak\\\": \\\"yes\\\"} "
             "hope it helps\"\n"
             "\"no JSON at all\"\n");
  j = score_json("itp", g, pred);
  NEAR(num(j, "counts", "predicted", NULL), 5);
  NEAR(num(j, "counts", "missing", NULL), 1);
  NEAR(num(j, "counts", "bad_replies", NULL), 1);
  NEAR(num(j, "overall", "accuracy", NULL), 1.0); /* a6 missing counts as no: right here */
  json_decref(j);
}
END_TEST

START_TEST(test_rpp) {
  static const char *const tax =
      "[\"pursue_withdraw\", \"attack_attack\", \"withdraw_withdraw\", \"repair_softening\", "
      "\"constructive_alignment\", \"mixed_transition\"]";
  rescue_buf b = RESCUE_BUF_INIT;
  static const char *const gold_labels[] = {"attack_attack", "withdraw_withdraw",
                                            "mixed_transition", "pursue_withdraw"};
  char g[4096];
  json_t *j, *cm;
  int i;
  for (i = 0; i < 4; i++)
    rescue_buf_printf(&b,
                      "{\"task\": \"rpp\", \"instance_id\": \"r%d\", \"sample_id\": \"c/s\", "
                      "\"couple\": \"c\", \"scenario\": \"couple\", "
                      "\"candidate_relation_labels\": %s, \"gold_relation_pattern\": \"%s\"}\n",
                      i + 1, tax, gold_labels[i]);
  snprintf(g, sizeof g, "%s", put("rpp.jsonl", b.s));
  rescue_buf_free(&b);
  /* r1 [aa] padded -> rank 1; r2 invalid labels dropped, [pw] padded to [pw, aa, ww] -> rank
     3; r3 missing -> rank 0 (the scripts' fallback would put the gold first); r4 a string,
     not a list -> invalid, rank 0 */
  j = score_json("rpp", g,
                 put("rpp.pred.jsonl",
                     "{\"instance_id\": \"r1\", \"relation_top3\": [\"attack_attack\"]}\n"
                     "{\"instance_id\": \"r2\", \"relation_top3\": [\"Attack_Attack\", \"bogus\", "
                     "\"pursue_withdraw\"]}\n"
                     "{\"instance_id\": \"r4\", \"relation_top3\": \"pursue_withdraw\"}\n"));
  NEAR(num(j, "overall", "accuracy", NULL), 0.25);
  NEAR(num(j, "overall", "relation_recall_at_1", NULL), 0.25);
  NEAR(num(j, "overall", "relation_recall_at_2", NULL), 0.25);
  NEAR(num(j, "overall", "relation_recall_at_3", NULL), 0.5);
  NEAR(num(j, "overall", "relation_mrr", NULL), (1 + 1.0 / 3) / 4);
  /* top-1: aa right; pw predicted for ww; mt and pw missed: only aa scores, over 6 labels */
  NEAR(num(j, "overall", "macro_precision", NULL), 1.0 / 6);
  NEAR(num(j, "overall", "macro_recall", NULL), 1.0 / 6);
  NEAR(num(j, "overall", "macro_f1", NULL), 1.0 / 6);
  NEAR(num(j, "counts", "dropped_labels", NULL), 2);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  NEAR(num(j, "counts", "missing", NULL), 1);
  cm = json_object_get(j, "top1_class_metrics");
  ck_assert_int_eq((int)json_object_size(cm), 6);
  NEAR(num(cm, "attack_attack", "f1", NULL), 1.0);
  NEAR(num(cm, "pursue_withdraw", "support", NULL), 1);
  NEAR(num(cm, "pursue_withdraw", "precision", NULL), 0.0);
  NEAR(num(cm, "constructive_alignment", "support", NULL), 0);
  json_decref(j);
}
END_TEST

START_TEST(test_stp_ssp) {
  char g[4096];
  json_t *j;
  snprintf(
      g, sizeof g, "%s",
      put("stp.jsonl",
          "{\"task\": \"stp\", \"instance_id\": \"t1\", \"sample_id\": \"c/s\", \"couple\": "
          "\"c\", \"scenario\": \"couple\", \"candidate_target_labels\": [\"Alan\", \"Evelyn\", "
          "\"Couple\"], \"gold_support_target\": \"Alan\"}\n"
          "{\"task\": \"stp\", \"instance_id\": \"t2\", \"sample_id\": \"c/s\", \"couple\": "
          "\"c\", \"scenario\": \"couple\", \"candidate_target_labels\": [\"Alan\", \"Evelyn\", "
          "\"Couple\"], \"gold_support_target\": \"Couple\"}\n"
          "{\"task\": \"stp\", \"instance_id\": \"t3\", \"sample_id\": \"c/s\", \"couple\": "
          "\"c\", \"scenario\": \"couple\", \"candidate_target_labels\": [\"Alan\", \"Evelyn\", "
          "\"Couple\"], \"gold_support_target\": \"Evelyn\"}\n"));
  /* t1 [Evelyn, Alan] -> rank 2 (duplicate and non-candidate dropped); t2 trimmed -> 1;
     t3 case differs -> dropped, padded with "" -> 0 */
  j = score_json("stp", g,
                 put("stp.pred.jsonl",
                     "{\"instance_id\": \"t1\", \"target_top3\": [\"Evelyn\", \"Alan\", \"Alan\", "
                     "\"Dana\"]}\n"
                     "{\"instance_id\": \"t2\", \"target_top3\": [\" Couple \"]}\n"
                     "{\"instance_id\": \"t3\", \"target_top3\": [\"evelyn\"]}\n"));
  NEAR(num(j, "overall", "target_recall_at_1", NULL), 1.0 / 3);
  NEAR(num(j, "overall", "target_recall_at_2", NULL), 2.0 / 3);
  NEAR(num(j, "overall", "target_recall_at_3", NULL), 2.0 / 3);
  NEAR(num(j, "overall", "target_mrr", NULL), 0.5);
  json_decref(j);
  snprintf(g, sizeof g, "%s",
           put("ssp.jsonl",
               "{\"task\": \"ssp\", \"instance_id\": \"p1\", \"sample_id\": \"c/s\", \"couple\": "
               "\"c\", \"scenario\": \"couple\", \"candidate_strategy_labels\": [\"track\", "
               "\"reframe\", \"join\"], \"gold_support_strategy\": \"track\"}\n"
               "{\"task\": \"ssp\", \"instance_id\": \"p2\", \"sample_id\": \"c/s\", \"couple\": "
               "\"c\", \"scenario\": \"couple\", \"candidate_strategy_labels\": [\"track\", "
               "\"reframe\", \"join\"], \"gold_support_strategy\": \"join\"}\n"));
  /* p1 rank 2; p2 an empty list: no taxonomy padding for SSP -> 0 */
  j = score_json("ssp", g,
                 put("ssp.pred.jsonl",
                     "{\"instance_id\": \"p1\", \"strategy_top3\": [\"reframe\", \"track\"]}\n"
                     "{\"instance_id\": \"p2\", \"strategy_top3\": []}\n"));
  NEAR(num(j, "overall", "strategy_recall_at_1", NULL), 0.0);
  NEAR(num(j, "overall", "strategy_recall_at_2", NULL), 0.5);
  NEAR(num(j, "overall", "strategy_mrr", NULL), 0.25);
  NEAR(num(j, "counts", "invalid", NULL), 0);
  json_decref(j);
}
END_TEST

START_TEST(test_er) {
  char g[4096];
  json_t *j, *failed;
  snprintf(
      g, sizeof g, "%s",
      put("er.jsonl",
          "{\"sample_id\": \"c/s1\", \"couple\": \"c\", \"gold_intensity_score\": 6, \"task\": "
          "\"er\", \"instance_id\": \"e1\", \"scenario\": \"couple\"}\n"
          "{\"sample_id\": \"c/s1\", \"couple\": \"c\", \"gold_intensity_score\": 3, \"task\": "
          "\"er\", \"instance_id\": \"e2\", \"scenario\": \"couple\"}\n"
          "{\"sample_id\": \"c/s2\", \"couple\": \"c\", \"gold_intensity_score\": 8, \"task\": "
          "\"er\", \"instance_id\": \"e3\", \"scenario\": \"couple\"}\n"
          "{\"sample_id\": \"c/s3\", \"couple\": \"c\", \"gold_intensity_score\": 5, \"task\": "
          "\"er\", \"instance_id\": \"e4\", \"scenario\": \"couple\"}\n"));
  /* e1 "6" -> 5 points; e2 7.5 -> 8, |8-3| = 5 -> 1 point; e3 missing -> left out; e4 does
     not parse -> its sample fails and is left out */
  j = score_json("er", g,
                 put("er.pred.jsonl",
                     "{\"checkpoint_id\": \"e1\", \"predicted_intensity_score\": \"6\"}\n"
                     "{\"instance_id\": \"e2\", \"predicted_intensity_score\": 7.5}\n"
                     "{\"instance_id\": \"e4\", \"predicted_intensity_score\": \"high\"}\n"));
  NEAR(num(j, "overall", "scored", NULL), 2);
  NEAR(num(j, "overall", "n", NULL), 3);
  NEAR(num(j, "overall", "avg_intensity_match", NULL), 3.0);
  NEAR(num(j, "overall", "intensity_exact_rate", NULL), 0.5);
  NEAR(num(j, "overall", "intensity_mae", NULL), 2.5);
  NEAR(num(j, "counts", "failed_samples", NULL), 1);
  failed = json_object_get(j, "failed");
  ck_assert_int_eq((int)json_array_size(failed), 1);
  ck_assert_str_eq(json_string_value(json_array_get(failed, 0)), "c/s3");
  ck_assert_ptr_null(json_object_get(json_object_get(j, "samples"), "c/s3"));
  ck_assert(json_is_null(json_object_get(json_object_get(json_object_get(j, "samples"), "c/s2"),
                                         "avg_intensity_match")));
  json_decref(j);
}
END_TEST

START_TEST(test_bad_input_and_cli) {
  char g[4096], *out = NULL, *err = NULL, *text;
  int rc;
  snprintf(g, sizeof g, "%s", itp_gold());
  /* malformed predictions: file:line:column, exit 1, nothing on stdout */
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred",
                 put("bad.jsonl", "{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}\n"
                                  "{\"instance_id\": \"a2\", \"should_speak\": }\n"),
                 NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strncmp(err, "rescue: score: ", 15) == 0 && strstr(err, "bad.jsonl:2:"), "%s", err);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", put("num.jsonl", "42\n"), NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "num.jsonl:1:1: expected a prediction object"));
  free(out);
  free(err);
  /* a gold file of another task */
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", put("e.jsonl", ""), NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "itp.jsonl:1:1: this is a itp record, not rpp"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", tu_path(dir, "none.jsonl"),
                 NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "cannot read"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "vp", "--gold", g, "--pred", g, NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: score: vp cannot be scored offline"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "xyz", "--gold", g, "--pred", g, NULL);
  ck_assert_int_eq(rc, 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown task 'xyz'"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, NULL);
  ck_assert_int_eq(rc, 2);
  ck_assert_ptr_nonnull(strstr(err, "missing --pred"));
  free(out);
  free(err);
  /* the text report: counts, tables, confusions */
  text = NULL;
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred",
                 put("one.jsonl", "{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}\n"), NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "itp: 6 instances, 1 predicted, 5 missing (counted as no), 0 "
                                    "invalid"));
  ck_assert_ptr_nonnull(strstr(out, "per sample"));
  ck_assert_ptr_nonnull(strstr(out, "confusions"));
  free(text);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "-h", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "top1_class_metrics"));
  free(out);
  free(err);
}
END_TEST

/* Scoring an exported fixture-free task file end to end: perfect predictions score 1. */
START_TEST(test_export_then_score) {
  rescue_buf b = RESCUE_BUF_INIT, p = RESCUE_BUF_INIT;
  char *db, *out, g[4096];
  json_t *recs, *r, *j;
  size_t i;
  tt_sample_open(&b, "c/s", NULL);
  tt_row(&b, "\"Ann\"", "[]", "a", "\"relation_pattern\": \"attack_attack\"");
  tt_row(&b, "\"Bob\"", "[]", "b", "\"relation_pattern\": \"pursue_withdraw\"");
  tt_row(&b, "\"Therapist\"", "[\"Ann\"]", "c",
         "\"support_strategy\": [{\"target\": [\"Ann\"], \"strategy_type\": \"track\"}]");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  out = tt_export(db, NULL, NULL);
  snprintf(g, sizeof g, "%s/rpp.jsonl", out);
  recs = tt_jsonl(g);
  json_array_foreach(recs, i, r)
      rescue_buf_printf(&p,
                        "{\"instance_id\": \"%s\", "
                        "\"relation_top3\": [\"%s\"]}\n",
                        tt_str(r, "instance_id"), tt_str(r, "gold_relation_pattern"));
  json_decref(recs);
  j = score_json("rpp", g, put("perfect.jsonl", p.s));
  NEAR(num(j, "overall", "accuracy", NULL), 1.0);
  NEAR(num(j, "overall", "relation_mrr", NULL), 1.0);
  NEAR(num(j, "overall", "n", NULL), 2);
  json_decref(j);
  rescue_buf_free(&b);
  rescue_buf_free(&p);
  free(out);
  free(db);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("score");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_itp);
  tcase_add_test(t, test_replies_and_lists);
  tcase_add_test(t, test_rpp);
  tcase_add_test(t, test_stp_ssp);
  tcase_add_test(t, test_er);
  tcase_add_test(t, test_bad_input_and_cli);
  tcase_add_test(t, test_export_then_score);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
