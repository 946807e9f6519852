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

/* Run rescue score --json --allow-missing under a protocol and parse the report (asserts
   exit 0). */
static json_t *score_json_p(const char *task, const char *gold, const char *pred,
                            const char *protocol) {
  char *out = NULL, *err = NULL, g[4096], p[4096];
  json_error_t je;
  json_t *j;
  int rc;
  snprintf(g, sizeof g, "%s", gold);
  snprintf(p, sizeof p, "%s", pred);
  rc = tu_rescue(&out, &err, "score", task, "--gold", g, "--pred", p, "--protocol", protocol,
                 "--allow-missing", "--json", NULL);
  ck_assert_msg(rc == 0, "score %s: %s", task, err);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "report: %s", je.text);
  ck_assert_str_eq(json_string_value(json_object_get(j, "protocol")), protocol);
  free(out);
  free(err);
  return j;
}

static json_t *score_json(const char *task, const char *gold, const char *pred) {
  return score_json_p(task, gold, pred, "rescue");
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
  NEAR(num(j, "counts", "invalid_lines", NULL), 1);
  NEAR(num(j, "counts", "reply_strings", NULL), 3);
  NEAR(num(j, "counts", "recovered", NULL), 2);   /* the fenced reply and the prose one */
  NEAR(num(j, "overall", "accuracy", NULL), 1.0); /* a6 missing counts as no: right here */
  NEAR(num(json_array_get(json_object_get(j, "invalid_lines"), 0), "line", NULL), 5);
  json_decref(j);
  /* release: a list reply gives its first object only (a2 is then missing: no, right) */
  j = score_json_p("itp", g, pred, "release");
  NEAR(num(j, "counts", "predicted", NULL), 4);
  NEAR(num(j, "counts", "missing", NULL), 2);
  NEAR(num(j, "counts", "dropped_items", NULL), 1);
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
  rescue_buf_clear(&b);
  /* r1 [aa] padded -> rank 1; r2 invalid labels dropped, [pw] padded to [pw, aa, ww] -> rank
     3; r3 missing -> rank 0 (the scripts' fallback would put the gold first); r4 a string:
     rescue reads it as [pw] (coerced), the release iterates its characters (all dropped)
     and pads [pw, aa, ww]: rank 1 either way */
  for (i = 0; i < 2; i++) {
    j = score_json_p("rpp", g,
                     put("rpp.pred.jsonl",
                         "{\"instance_id\": \"r1\", \"relation_top3\": [\"attack_attack\"]}\n"
                         "{\"instance_id\": \"r2\", \"relation_top3\": [\"Attack_Attack\", "
                         "\"bogus\", \"pursue_withdraw\"]}\n"
                         "{\"instance_id\": \"r4\", \"relation_top3\": \"pursue_withdraw\"}\n"),
                     i ? "release" : "rescue");
    NEAR(num(j, "overall", "accuracy", NULL), 0.5);
    NEAR(num(j, "overall", "relation_recall_at_1", NULL), 0.5);
    NEAR(num(j, "overall", "relation_recall_at_2", NULL), 0.5);
    NEAR(num(j, "overall", "relation_recall_at_3", NULL), 0.75);
    NEAR(num(j, "overall", "relation_mrr", NULL), (2 + 1.0 / 3) / 4);
    /* top-1: aa right (P 1, R 1); pw predicted twice, once right (P .5, R 1, F1 2/3); ww
       and mt missed; the two unused labels count 0: means over all 6 labels */
    NEAR(num(j, "overall", "macro_precision", NULL), 1.5 / 6);
    NEAR(num(j, "overall", "macro_recall", NULL), 2.0 / 6);
    NEAR(num(j, "overall", "macro_f1", NULL), (1 + 2.0 / 3) / 6);
    NEAR(num(j, "scenarios", "couple", "macro_f1", NULL), (1 + 2.0 / 3) / 6);
    NEAR(num(j, "samples", "c/s", "macro_f1", NULL), (1 + 2.0 / 3) / 6);
    NEAR(num(j, "couples", "c", "macro_recall", NULL), 2.0 / 6);
    NEAR(num(j, "counts", "dropped_labels", NULL), 2);
    NEAR(num(j, "counts", "invalid", NULL), 0);
    NEAR(num(j, "counts", "coerced", NULL), 1);
    NEAR(num(j, "counts", "missing", NULL), 1);
    NEAR(num(j, "counts", "gold_fills", NULL), i ? 1 : 0);
    cm = json_object_get(json_object_get(j, "top1_class_metrics"), "couple");
    ck_assert_int_eq((int)json_object_size(cm), 6);
    NEAR(num(cm, "attack_attack", "f1", NULL), 1.0);
    NEAR(num(cm, "pursue_withdraw", "support", NULL), 1);
    NEAR(num(cm, "pursue_withdraw", "precision", NULL), 0.5);
    NEAR(num(cm, "constructive_alignment", "support", NULL), 0);
    json_decref(j);
  }
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
  const char *pred;
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
     not parse -> under rescue only that checkpoint is invalid; under release its sample
     fails, and so does e3's (a checkpoint without a prediction) */
  pred =
      put("er.pred.jsonl", "{\"checkpoint_id\": \"e1\", \"predicted_intensity_score\": \"6\"}\n"
                           "{\"instance_id\": \"e2\", \"predicted_intensity_score\": 7.5}\n"
                           "{\"instance_id\": \"e4\", \"predicted_intensity_score\": \"high\"}\n");
  j = score_json("er", g, pred);
  NEAR(num(j, "overall", "scored", NULL), 2);
  NEAR(num(j, "overall", "n", NULL), 4);
  NEAR(num(j, "overall", "avg_intensity_match", NULL), 3.0);
  NEAR(num(j, "overall", "intensity_exact_rate", NULL), 0.5);
  NEAR(num(j, "overall", "intensity_mae", NULL), 2.5);
  NEAR(num(j, "counts", "failed_samples", NULL), 0);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "failed")), 0);
  ck_assert(json_is_null(json_object_get(json_object_get(json_object_get(j, "samples"), "c/s2"),
                                         "avg_intensity_match")));
  ck_assert(json_is_null(json_object_get(json_object_get(json_object_get(j, "samples"), "c/s3"),
                                         "avg_intensity_match")));
  json_decref(j);
  j = score_json_p("er", g, pred, "release");
  NEAR(num(j, "counts", "failed_samples", NULL), 2);
  failed = json_object_get(j, "failed");
  ck_assert_int_eq((int)json_array_size(failed), 2);
  ck_assert_str_eq(json_string_value(json_array_get(failed, 0)), "c/s2");
  ck_assert_str_eq(json_string_value(json_array_get(failed, 1)), "c/s3");
  ck_assert_ptr_null(json_object_get(json_object_get(j, "samples"), "c/s3"));
  NEAR(num(j, "samples", "c/s1", "avg_intensity_match", NULL), 3.0);
  ck_assert(json_is_null(json_object_get(json_object_get(j, "overall"), "avg_intensity_match")));
  json_decref(j);
}
END_TEST

START_TEST(test_bad_input_and_cli) {
  char g[4096], *out = NULL, *err = NULL, *text;
  const char *pred;
  int rc;
  snprintf(g, sizeof g, "%s", itp_gold());
  /* a malformed line is an invalid prediction with its line number, never a refused
     file; but 5 of 6 instances without a prediction is above the limit: exit 1, counts */
  pred = put("bad.jsonl", "{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}\n"
                          "{\"instance_id\": \"a2\", \"should_speak\": }\n");
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", pred, NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strncmp(err, "rescue: score: ", 15) == 0 &&
                    strstr(err, "bad.jsonl: 5 of 6 itp instances (83%) have no usable "
                                "prediction (5 missing, 0 invalid; 1 invalid lines") &&
                    strstr(err, "--allow-missing"),
                "%s", err);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", pred, "--allow-missing",
                 "--json", NULL);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_ptr_nonnull(strstr(out, "\"invalid_lines\": [{\"line\": 2, \"reason\": \"no JSON "
                                    "object (column 39: invalid token)"));
  free(out);
  free(err);
  /* every prediction invalid: exit 1 (it used to score 0 and exit 0) */
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred",
                 put("allbad.jsonl", "{\"instance_id\": \"a1\", \"should_speak\": \"?\"}\n"
                                     "{\"instance_id\": \"a2\", \"should_speak\": NaN}\n"
                                     "{\"instance_id\": \"a3\", \"should_speak\": \"hmm\"}\n"
                                     "{\"instance_id\": \"a4\", \"should_speak\": [\"?\"]}\n"
                                     "{\"instance_id\": \"a5\", \"should_speak\": \"x\"}\n"
                                     "{\"instance_id\": \"a6\", \"should_speak\": \"x\"}\n"),
                 NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(err, "6 of 6 itp instances (100%) have no usable prediction (0 missing, "
                            "6 invalid"),
                "%s", err);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", put("num.jsonl", "42\n"),
                 "--allow-missing", "--json", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "{\"line\": 1, \"reason\": \"a number, not a prediction "
                                    "object\"}"));
  free(out);
  free(err);
  /* a gold file of another task: refused with the task to use */
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", put("e.jsonl", ""), NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(
      err, "itp.jsonl:1:1: this is a itp record, not rpp: score it with 'rescue score itp'"));
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
                 put("one.jsonl", "{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}\n"),
                 "--allow-missing", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "itp, protocol rescue"));
  ck_assert_ptr_nonnull(strstr(out, "6 instances: 1 predicted, 5 missing, 0 invalid"));
  ck_assert_ptr_nonnull(strstr(out, "A missing or unreadable should_speak counts as no"));
  ck_assert_ptr_nonnull(strstr(out, "per sample"));
  ck_assert_ptr_nonnull(strstr(out, "confusions"));
  free(text);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "-h", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "top1_class_metrics"));
  ck_assert_ptr_nonnull(strstr(out, "--protocol <p>"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "itp", "--gold", g, "--pred", g, "--protocol", "paper", NULL);
  ck_assert_int_eq(rc, 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown protocol 'paper'"));
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
  rescue_buf_clear(&b);
  rescue_buf_clear(&p);
  free(out);
  free(db);
}
END_TEST

/*
** Degenerate replies of 400 KB (brackets that never close, closes of the other kind) are
** invalid lines, and a reply after 100 KB of unclosed brackets is still found: the scan
** for JSON inside prose is rescue_jfind's (corpus/json_find.c), bounded in its work.
*/
START_TEST(test_degenerate_replies) {
  static const char *const units[] = {"[", "[{\"a\":", "{\"a\": [1} ", "{\""};
  const char *gold = itp_gold(), *pred;
  char g[4096];
  rescue_buf b = RESCUE_BUF_INIT;
  size_t k, start;
  json_t *j;
  snprintf(g, sizeof g, "%s", gold);
  for (k = 0; k < sizeof units / sizeof units[0]; k++) {
    start = b.len;
    rescue_buf_puts(&b, "Sure. ");
    while (b.len - start < 400 * 1024)
      rescue_buf_puts(&b, units[k]);
    rescue_buf_putc(&b, '\n');
  }
  start = b.len;
  while (b.len - start < 100 * 1024)
    rescue_buf_puts(&b, "[{\"a\":");
  rescue_buf_puts(&b, " {\"instance_id\": \"a1\", \"should_speak\": \"yes\"} done\n");
  ck_assert(rescue_buf_ok(&b));
  pred = put("itp.degenerate.jsonl", b.s);
  j = score_json("itp", g, pred);
  NEAR(num(j, "counts", "invalid_lines", NULL), 4);
  NEAR(num(j, "counts", "predicted", NULL), 1);
  NEAR(num(j, "counts", "recovered", NULL), 1);
  json_decref(j);
  rescue_buf_clear(&b);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("score");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_itp);
  tcase_add_test(t, test_replies_and_lists);
  tcase_add_test(t, test_degenerate_replies);
  tcase_add_test(t, test_rpp);
  tcase_add_test(t, test_stp_ssp);
  tcase_add_test(t, test_er);
  tcase_add_test(t, test_bad_input_and_cli);
  tcase_add_test(t, test_export_then_score);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
