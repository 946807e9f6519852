/*
** check_stats_labels.c: `rescue stats` additions: label distributions per scenario and
** the relation-pattern transition matrix (self-transitions out, out-of-set and empty
** labels skipped, row-normalised), discarded samples left out, Table 3 keys unchanged.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskutil.h"

/* Index of a label in a scenario's transition labels. */
static int lab(const rescue_transitions *t, const char *name) {
  int i;
  for (i = 0; i < t->n; i++)
    if (strcmp(t->labels[i], name) == 0)
      return i;
  ck_abort_msg("no label %s", name);
  return -1;
}

static long count_of(const rescue_label_dist *d, const char *label) {
  int i;
  for (i = 0; i < d->n; i++)
    if (strcmp(d->v[i].label, label) == 0)
      return d->v[i].count;
  return -1;
}

static char *stats_corpus(void) {
  static const char *const seq[] = {"\"pursue_withdraw\"",   "\"\"",      "\"pursue_withdraw\"",
                                    "\"attack_attack\"",     "\"bogus\"", "\"attack_attack\"",
                                    "\"withdraw_withdraw\"", "null",      "\" pursue_withdraw \""};
  rescue_buf b = RESCUE_BUF_INIT;
  char extra[512], *db;
  size_t i;
  tt_sample_open(&b, "c/a", NULL);
  for (i = 0; i < sizeof seq / sizeof seq[0]; i++) {
    snprintf(extra, sizeof extra,
             "\"relation_pattern\": %s, \"utterance_type\": \"%s\", \"internal_emotion\": "
             "[{\"person\": \"Ann\", \"emotion_description\": \"x\", \"intensity\": %s}], "
             "\"support_strategy\": [{\"target\": [\"Ann\"], \"strategy_type\": \"%s\"}, "
             "{\"target\": [\"Ann\"], \"strategy_type\": \"track\"}]",
             seq[i], i % 2 ? "defense" : "",
             i == 0   ? "6.5"
             : i == 1 ? "\"x\""
             : i == 2 ? "null"
                      : "3",
             i == 3 ? "reframe" : "");
    tt_row(&b, i % 3 ? "\"Ann\"" : "\"Therapist\"", "[]", "w", extra);
  }
  tt_sample_close(&b);
  tt_sample_open(&b, "c/b", NULL);
  tt_row(&b, "\"Ann\"", "[]", "w", "\"relation_pattern\": \"attack_attack\"");
  tt_row(&b, "\"Bob\"", "[]", "w", "\"relation_pattern\": \"pursue_withdraw\"");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/c", NULL); /* no relation_pattern key: therapist relation_cycle_state */
  tt_row(&b, "\"Ann\"", "[]", "w", "\"relation_cycle_state\": \"mixed_transition\"");
  tt_row(&b, "\"Therapist\"", "[]", "w", "\"relation_cycle_state\": \"repair_softening\"");
  tt_row(&b, "\"Therapist\"", "[]", "w", "\"relation_cycle_state\": \"constructive_alignment\"");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/gone", NULL); /* discarded below */
  tt_row(&b, "\"Ann\"", "[]", "w", "\"relation_pattern\": \"withdraw_withdraw\"");
  tt_row(&b, "\"Bob\"", "[]", "w", "\"relation_pattern\": \"attack_attack\"");
  tt_sample_close(&b);
  tt_sample_open(&b, "family_therapy/x/merged", NULL);
  tt_row(&b, "\"Mom\"", "[]", "w", "\"relation_pattern\": \"escalation_conflict\"");
  tt_row(&b, "\"Dad\"", "[]", "w", "\"relation_pattern\": \"repair_softening\"");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  {
    rescue_store *st = NULL;
    rescue_error err = RESCUE_ERROR_INIT;
    int64_t who;
    ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
    ck_assert_int_eq(rescue_annotator_id(st, "lead", "lead", 1, &who), 0);
    ck_assert_int_eq(rescue_sample_set_status(st, "c/gone", "discarded", "test", who), 0);
    rescue_store_close(&st);
  }
  return db;
}

START_TEST(test_distributions_and_transitions) {
  char *db = stats_corpus();
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  rescue_label_stats *ls = NULL;
  const rescue_transitions *tc, *tf;
  const rescue_label_dist *d;
  int pw, aa, ww, mt, rs, ca, ec;
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &err), 0);
  ck_assert_int_eq(rescue_stats_labels(st, &view, &ls), 0);
  ck_assert_int_eq(ls->samples[0], 3);
  ck_assert_int_eq(ls->samples[1], 1);
  tc = &ls->trans[0];
  pw = lab(tc, "pursue_withdraw");
  aa = lab(tc, "attack_attack");
  ww = lab(tc, "withdraw_withdraw");
  mt = lab(tc, "mixed_transition");
  rs = lab(tc, "repair_softening");
  ca = lab(tc, "constructive_alignment");
  /* c/a: pw pw aa aa ww pw -> pw>aa, aa>ww, ww>pw; c/b: aa>pw; c/c (fallback, therapist rows
     only): rs>ca; the discarded sample's ww>aa is not counted */
  ck_assert_int_eq(tc->total, 5);
  ck_assert_int_eq(tc->counts[pw * tc->n + aa], 1);
  ck_assert_int_eq(tc->counts[aa * tc->n + ww], 1);
  ck_assert_int_eq(tc->counts[aa * tc->n + pw], 1);
  ck_assert_int_eq(tc->counts[ww * tc->n + pw], 1);
  ck_assert_int_eq(tc->counts[rs * tc->n + ca], 1);
  ck_assert_int_eq(tc->counts[ww * tc->n + aa], 0);
  ck_assert_int_eq(tc->counts[pw * tc->n + pw], 0);
  ck_assert(rescue_transition_p(tc, aa, ww) == 0.5);
  ck_assert(rescue_transition_p(tc, aa, pw) == 0.5);
  ck_assert(rescue_transition_p(tc, pw, aa) == 1.0);
  ck_assert(rescue_transition_p(tc, mt, pw) == 0.0); /* a row without transitions */
  tf = &ls->trans[1];
  ec = lab(tf, "escalation_conflict");
  ck_assert_int_eq(tf->n, 8);
  ck_assert_int_eq(tf->counts[ec * tf->n + lab(tf, "repair_softening")], 1);
  /* relation distribution (couple): pw 3 + 1, aa 2 + 1, ww 1, bogus 1 (out of set), rs 1, ca 1 */
  d = &ls->dist[0][RESCUE_DIST_RELATION_PATTERN];
  ck_assert_int_eq(count_of(d, "pursue_withdraw"), 4);
  ck_assert_int_eq(count_of(d, "attack_attack"), 3);
  ck_assert_int_eq(count_of(d, "bogus"), 1);
  ck_assert_int_eq(count_of(d, "mixed_transition"), 0); /* a client row's cycle state */
  ck_assert_int_eq(d->out_of_set, 1);
  ck_assert_int_eq(d->total, 11);
  ck_assert_str_eq(d->v[0].label, "pursue_withdraw"); /* scheme order first */
  /* support strategies: every item with a strategy_type; utterance types; intensities */
  d = &ls->dist[0][RESCUE_DIST_SUPPORT_STRATEGY];
  ck_assert_int_eq(count_of(d, "track"), 9);
  ck_assert_int_eq(count_of(d, "reframe"), 1);
  ck_assert_int_eq(count_of(d, "safeguard"), 0);
  d = &ls->dist[0][RESCUE_DIST_UTTERANCE_TYPE];
  ck_assert_int_eq(count_of(d, "defense"), 4);
  ck_assert_int_eq(d->total, 4);
  d = &ls->dist[0][RESCUE_DIST_INTENSITY];
  ck_assert_int_eq(count_of(d, "6"), 1); /* 6.5 rounds half to even */
  ck_assert_int_eq(count_of(d, "3"), 6);
  ck_assert_int_eq(count_of(d, "invalid"), 1);
  ck_assert_int_eq(d->out_of_set, 1);
  rescue_stats_labels_free(&ls);
  rescue_store_close(&st);
  free(db);
}
END_TEST

START_TEST(test_cli_json_keys) {
  char *db = stats_corpus(), *out = NULL, *err = NULL;
  json_error_t je;
  json_t *j, *t;
  int rc = tu_rescue(&out, &err, "stats", db, "--json", NULL);
  ck_assert_msg(rc == 0, "%s", err);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", je.text);
  /* Table 3 keys as before */
  ck_assert_int_eq(
      (int)json_integer_value(json_object_get(json_object_get(j, "couple"), "samples")), 3);
  ck_assert_ptr_nonnull(json_object_get(json_object_get(j, "all"), "therapist_share"));
  t = json_object_get(json_object_get(j, "relation_transitions"), "couple");
  ck_assert_int_eq((int)json_array_size(json_object_get(t, "labels")), 6);
  ck_assert_int_eq((int)json_integer_value(json_object_get(t, "transitions")), 5);
  ck_assert(json_real_value(json_array_get(json_array_get(json_object_get(t, "probabilities"), 1),
                                           2)) == 0.5); /* attack_attack -> withdraw_withdraw */
  ck_assert_int_eq(
      (int)json_integer_value(json_object_get(
          json_object_get(
              json_object_get(json_object_get(json_object_get(j, "label_distributions"), "couple"),
                              "relation_pattern"),
              "counts"),
          "bogus")),
      1);
  json_decref(j);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "stats", db, NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "relation-pattern transitions, couple (5;"));
  ck_assert_ptr_nonnull(strstr(out, "  bogus "));
  ck_assert_ptr_nonnull(strstr(out, "(not in the label set)"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "stats", "-h", NULL);
  ck_assert_ptr_nonnull(strstr(out, "relation_transitions"));
  ck_assert_ptr_nonnull(strstr(out, "label_distributions"));
  free(out);
  free(err);
  free(db);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("stats_labels");
  TCase *t = tcase_create("core");
  tcase_add_test(t, test_distributions_and_transitions);
  tcase_add_test(t, test_cli_json_keys);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
