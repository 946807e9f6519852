/*
** check_lint.c: each guideline rule R01-R20 on hand-made bad rows (exactly the expected
** rules fire, nothing else), a clean sample, a scheme that changes the verdict, the check of
** one edited row against the whole lint (with kept names and without), the store walk
** (media duration, subtitle cues, views, discarded samples) and the CLI.
*/
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "store_int.h"

/* A clean couple sample: Ann and Bo with the therapist, all 15 fields and row_index. */
static const char base[] =
    "{\"sample_id\": \"ann_and_bo/s01_segment01\", \"scenario\": \"couple\", "
    "\"participants\": [\"Ann\", \"Bo\"], \"rows\": ["
    "{\"start_time\": 0.0, \"end_time\": 2.0, \"primary_speaker\": \"Ann\", "
    "\"target\": [\"Therapist\"], \"dialogue_cleaned\": \"He never listens.\", "
    "\"utterance_type\": \"accusation\", \"background_dialogue\": [], \"tone_of_voice\": "
    "\"sharp\", "
    "\"body_posture\": [{\"person\": \"Ann\", \"description\": \"arms crossed\"}], "
    "\"facial_expressions\": [], \"self_directed_behavior\": [], \"interaction_behavior\": [], "
    "\"internal_emotion\": [{\"person\": \"Ann\", \"emotion_description\": \"hurt\", "
    "\"intensity\": 6}], \"viewpoints_attitudes\": [{\"source\": \"Ann\", \"target\": \"Bo\", "
    "\"viewpoint\": \"he is distant\", \"attitude\": \"resentful\"}], \"support_strategy\": [], "
    "\"row_index\": 1, \"relation_pattern\": null, \"relation_pattern_reason\": null, "
    "\"relation_pattern_evidence_rows\": []},"
    "{\"start_time\": 2.0, \"end_time\": 4.0, \"primary_speaker\": \"Therapist\", "
    "\"target\": [\"Ann\"], \"dialogue_cleaned\": \"What happens for you then?\", "
    "\"utterance_type\": \"\", \"background_dialogue\": [], \"tone_of_voice\": \"soft\", "
    "\"body_posture\": [], \"facial_expressions\": [], \"self_directed_behavior\": [], "
    "\"interaction_behavior\": [], \"internal_emotion\": [], \"viewpoints_attitudes\": [], "
    "\"support_strategy\": [{\"provider\": \"Therapist\", \"target\": [\"Ann\"], "
    "\"strategy_type\": \"evoke\", \"strategy_content\": \"invites the hurt\"}], "
    "\"relation_cycle_state\": \"pursue_withdraw\", \"row_index\": 2, \"relation_pattern\": null, "
    "\"relation_pattern_reason\": null, \"relation_pattern_evidence_rows\": []},"
    "{\"start_time\": 4.0, \"end_time\": 6.0, \"primary_speaker\": \"Bo\", "
    "\"target\": [\"Ann\"], \"dialogue_cleaned\": \"I do listen.\", "
    "\"utterance_type\": \"defense\", \"background_dialogue\": [{\"speaker\": \"Ann\", "
    "\"target\": [\"Bo\"], \"content\": \"no\"}], \"tone_of_voice\": \"flat\", "
    "\"body_posture\": [], \"facial_expressions\": [], \"self_directed_behavior\": [], "
    "\"interaction_behavior\": [{\"initiator\": \"Bo\", \"target\": [\"Ann\"], "
    "\"description\": \"turns away\"}], \"internal_emotion\": [], \"viewpoints_attitudes\": [], "
    "\"support_strategy\": [], \"row_index\": 3, \"relation_pattern\": \"pursue_withdraw\", "
    "\"relation_pattern_reason\": \"she pursues, he withdraws\", "
    "\"relation_pattern_evidence_rows\": [1, 3]}]}";

typedef void (*mutate_fn)(json_t *sample, json_t *rows);

/* Lint the base sample after mutate, with an optional media duration and cues. */
static rescue_lint_result lint_mutated(mutate_fn mutate, double duration,
                                       const rescue_lint_cue *cues, int n_cues) {
  static rescue_scheme *sc;
  rescue_error err = RESCUE_ERROR_INIT;
  json_error_t je;
  json_t *j = json_loads(base, JSON_PRESERVE_ORDER, &je);
  char *text;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror pe;
  const rescue_jnode *root, *rows, *c, *list[16];
  rescue_lint_result res;
  rescue_lint_media media = {.duration = duration, .n_cues = n_cues, .cues = cues};
  int n = 0;
  ck_assert_msg(j != NULL, "base: %s", je.text);
  if (!sc) {
    size_t len;
    const char *xml = rescue_scheme_default_xml(&len);
    ck_assert_int_eq(rescue_scheme_load(xml, len, &sc, &err), 0);
  }
  if (mutate)
    mutate(j, json_object_get(j, "rows"));
  text = json_dumps(j, JSON_PRESERVE_ORDER);
  root = rescue_jparse(doc, text, strlen(text), &pe);
  ck_assert_ptr_nonnull(root);
  rows = rescue_jget(root, "rows");
  for (c = rows->child; c; c = c->next)
    list[n++] = c;
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(rescue_lint_sample(sc, json_string_value(json_object_get(j, "sample_id")), root,
                                      list, NULL, n, n, &media, &res),
                   0);
  rescue_jdoc_free(&doc);
  free(text);
  json_decref(j);
  return res;
}

/* Assert the findings are exactly the rules in want (ascending, 0-terminated). */
static void expect_rules(const rescue_lint_result *r, const int *want, const char *what) {
  char got[512] = "";
  int i, k = 0, ok = 1;
  for (i = 0; i < r->n; i++) {
    size_t n = strlen(got);
    snprintf(got + n, sizeof got - n, " R%02d(%d %s: %s)", r->findings[i].rule, r->findings[i].row,
             r->findings[i].field, r->findings[i].reason);
  }
  /* every wanted rule appears, and nothing else */
  for (i = 0; i < r->n; i++) {
    int j, found = 0;
    for (j = 0; want[j]; j++)
      found |= want[j] == r->findings[i].rule;
    ok &= found;
  }
  for (k = 0; want[k]; k++) {
    int found = 0;
    for (i = 0; i < r->n; i++)
      found |= want[k] == r->findings[i].rule;
    ok &= found;
  }
  ck_assert_msg(ok, "%s: got%s", what, got[0] ? got : " nothing");
}

#define ROW(i) json_array_get(rows, i)
#define SET(obj, key, val) json_object_set_new((obj), (key), (val))

static void m_missing_field(json_t *s, json_t *rows) { json_object_del(ROW(0), "tone_of_voice"); }
static void m_wrong_type(json_t *s, json_t *rows) { SET(ROW(2), "target", json_string("Ann")); }
static void m_item_type(json_t *s, json_t *rows) {
  json_array_append_new(json_object_get(ROW(0), "body_posture"), json_string("slumped"));
}
static void m_child_type(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "body_posture"), 0), "description", json_integer(3));
}
static void m_end_before_start(json_t *s, json_t *rows) { SET(ROW(0), "end_time", json_real(0.0)); }
static void m_negative_start(json_t *s, json_t *rows) {
  SET(ROW(0), "start_time", json_real(-0.5));
}
static void m_unknown_person(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "body_posture"), 0), "person", json_string("Carl"));
}
static void m_family_label(json_t *s, json_t *rows) {
  json_array_append_new(json_object_get(ROW(1), "target"), json_string("Family"));
}
static void m_empty_speaker(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "internal_emotion"), 0), "person", json_string(" "));
}
static void m_target_speaker(json_t *s, json_t *rows) {
  json_array_append_new(json_object_get(ROW(2), "target"), json_string("Bo"));
}
static void m_target_empty(json_t *s, json_t *rows) { SET(ROW(2), "target", json_array()); }
static void m_utt_empty_client(json_t *s, json_t *rows) {
  SET(ROW(0), "utterance_type", json_string(""));
}
static void m_utt_therapist(json_t *s, json_t *rows) {
  SET(ROW(1), "utterance_type", json_string("defense"));
}
static void m_utt_unknown(json_t *s, json_t *rows) {
  SET(ROW(2), "utterance_type", json_string("Defense"));
}
static void m_bg_self(json_t *s, json_t *rows) {
  json_array_append_new(
      json_object_get(json_array_get(json_object_get(ROW(2), "background_dialogue"), 0), "target"),
      json_string("Ann"));
}
static void m_bg_no_speaker(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(2), "background_dialogue"), 0), "speaker",
      json_string(""));
}
static void m_ib_self(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(2), "interaction_behavior"), 0), "target",
      json_pack("[s]", "Bo"));
}
static void m_ib_no_target(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(2), "interaction_behavior"), 0), "target", json_array());
}
static void m_intensity_high(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "internal_emotion"), 0), "intensity",
      json_integer(11));
}
static void m_intensity_text(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "internal_emotion"), 0), "intensity",
      json_string("6"));
}
static void m_vp_self(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "viewpoints_attitudes"), 0), "target",
      json_string("Ann"));
}
static void m_vp_list(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(0), "viewpoints_attitudes"), 0), "target",
      json_pack("[s]", "Bo"));
}
static void m_support_client(json_t *s, json_t *rows) {
  json_array_append_new(json_object_get(ROW(2), "support_strategy"),
                        json_pack("{s:s, s:[s], s:s, s:s}", "provider", "Therapist", "target",
                                  "Ann", "strategy_type", "join", "strategy_content", "x"));
}
static void m_support_provider(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(1), "support_strategy"), 0), "provider",
      json_string("Ann"));
}
static void m_support_therapist(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(1), "support_strategy"), 0), "target",
      json_pack("[s]", "Therapist"));
}
static void m_support_group(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(1), "support_strategy"), 0), "target",
      json_pack("[s, s]", "Couple", "Ann"));
}
static void m_support_family_type(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(1), "support_strategy"), 0), "strategy_type",
      json_string("boundary"));
}
static void m_relation_family(json_t *s, json_t *rows) {
  SET(ROW(2), "relation_pattern", json_string("escalation_conflict"));
}
static void m_cycle_unknown(json_t *s, json_t *rows) {
  SET(ROW(1), "relation_cycle_state", json_string("stonewalling"));
}
static void m_evidence(json_t *s, json_t *rows) {
  SET(ROW(2), "relation_pattern_evidence_rows", json_pack("[i, i]", 0, 9));
}
static void m_dialogue_empty(json_t *s, json_t *rows) {
  SET(ROW(2), "dialogue_cleaned", json_string("  "));
}
static void m_row_index(json_t *s, json_t *rows) { SET(ROW(1), "row_index", json_integer(5)); }
static void m_time_order(json_t *s, json_t *rows) { SET(ROW(2), "start_time", json_real(1.0)); }
static void m_overlap(json_t *s, json_t *rows) {
  /* row 3 becomes Ann's again, starting before her row 1 ends, after row 2 starts */
  SET(ROW(0), "end_time", json_real(3.0));
  SET(ROW(2), "start_time", json_real(2.5));
  SET(ROW(2), "primary_speaker", json_string("Ann"));
  SET(ROW(2), "target", json_pack("[s]", "Bo"));
  SET(json_array_get(json_object_get(ROW(2), "interaction_behavior"), 0), "initiator",
      json_string("Ann"));
  SET(json_array_get(json_object_get(ROW(2), "interaction_behavior"), 0), "target",
      json_pack("[s]", "Bo"));
  SET(json_array_get(json_object_get(ROW(2), "background_dialogue"), 0), "speaker",
      json_string("Bo"));
  SET(json_array_get(json_object_get(ROW(2), "background_dialogue"), 0), "target",
      json_pack("[s]", "Ann"));
}
static void m_scenario(json_t *s, json_t *rows) { SET(s, "scenario", json_string("family")); }
static void m_participants_extra(json_t *s, json_t *rows) {
  SET(s, "participants", json_pack("[s, s, s]", "Ann", "Bo", "Cy"));
}
static void m_participants_short(json_t *s, json_t *rows) {
  SET(s, "participants", json_pack("[s]", "Ann"));
}
static void m_no_given(json_t *s, json_t *rows) {
  json_object_del(s, "scenario");
  json_object_del(s, "participants");
}
static void m_cleaning(json_t *s, json_t *rows) {
  /* values the scripts strip are fine: " Ann " is Ann */
  SET(ROW(2), "target", json_pack("[s]", " Ann "));
  SET(ROW(0), "utterance_type", json_string("accusation "));
}

/* R20: names that differ from a participant only by case or spacing */
static void m_case_given(json_t *s, json_t *rows) {
  SET(ROW(2), "primary_speaker", json_string("BO"));
}
static void m_case_derived(json_t *s, json_t *rows) {
  m_no_given(s, rows);
  SET(ROW(2), "target", json_pack("[s]", "A nn"));
}
static void m_case_therapist(json_t *s, json_t *rows) {
  m_no_given(s, rows);
  SET(ROW(0), "target", json_pack("[s]", "therapist"));
}
/* out-of-set labels that lint names the fix for */
static void m_utt_typo(json_t *s, json_t *rows) {
  SET(ROW(0), "utterance_type", json_string("acusation"));
}
static void m_strategy_typo(json_t *s, json_t *rows) {
  SET(json_array_get(json_object_get(ROW(1), "support_strategy"), 0), "strategy_type",
      json_string("reframing"));
}

START_TEST(test_rules_one_by_one) {
  static const struct {
    mutate_fn fn;
    int rules[3];
    const char *what;
  } cases[] = {
      {NULL, {0}, "the clean sample"},
      {m_no_given, {0}, "scenario and participants derived, not given"},
      {m_cleaning, {0}, "values that clean to valid ones"},
      {m_missing_field, {1, 0}, "a missing field"},
      {m_wrong_type, {1, 0}, "target as a string"},
      {m_item_type, {1, 0}, "a list item that is not an object"},
      {m_child_type, {1, 0}, "a description that is a number"},
      {m_end_before_start, {2, 0}, "end before start"},
      {m_negative_start, {2, 0}, "negative start"},
      {m_unknown_person, {4, 0}, "an off-screen person"},
      {m_family_label, {4, 19, 0}, "Family in a couple sample"},
      {m_empty_speaker, {4, 0}, "an empty emotion person"},
      {m_target_speaker, {5, 0}, "target contains the speaker"},
      {m_target_empty, {5, 0}, "empty target"},
      {m_utt_empty_client, {6, 0}, "client row without utterance_type"},
      {m_utt_therapist, {6, 0}, "therapist row with utterance_type"},
      {m_utt_unknown, {6, 0}, "utterance_type outside the set (case matters)"},
      {m_bg_self, {7, 0}, "background speaker in its target"},
      {m_bg_no_speaker, {7, 0}, "background speech without speaker"},
      {m_ib_self, {8, 0}, "initiator in its target"},
      {m_ib_no_target, {8, 0}, "behaviour without target"},
      {m_intensity_high, {9, 0}, "intensity 11"},
      {m_intensity_text, {9, 0}, "intensity as a string"},
      {m_vp_self, {10, 0}, "viewpoint about oneself"},
      {m_vp_list, {10, 0}, "viewpoint with a list target"},
      {m_support_client, {11, 0}, "support on a client row"},
      {m_support_provider, {11, 0}, "support by a client"},
      {m_support_therapist, {11, 0}, "support targeting the therapist"},
      {m_support_group, {11, 0}, "group label with another target"},
      {m_support_family_type, {11, 0}, "a family strategy in a couple sample"},
      {m_relation_family, {12, 0}, "a family pattern in a couple sample"},
      {m_cycle_unknown, {12, 0}, "an unknown cycle state"},
      {m_evidence, {13, 0}, "evidence rows 0 and 9"},
      {m_dialogue_empty, {15, 0}, "empty dialogue"},
      {m_row_index, {16, 0}, "row_index off"},
      {m_time_order, {17, 0}, "a row starting before the previous one"},
      {m_overlap, {18, 0}, "overlap with the same speaker's previous row"},
      {m_scenario, {11, 19, 0}, "given scenario family (a couple strategy then fails too)"},
      {m_participants_extra, {19, 0}, "an extra participant"},
      {m_participants_short, {4, 19, 0}, "a missing participant"},
      {m_case_given, {19, 20, 0}, "BO where the participants give Bo"},
      {m_case_derived, {20, 0}, "'A nn' beside Ann, participants derived"},
      {m_case_therapist, {20, 0}, "'therapist' for Therapist"},
      {m_utt_typo, {6, 0}, "utterance_type 'acusation'"},
      {m_strategy_typo, {11, 0}, "strategy_type 'reframing'"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rescue_lint_result r = lint_mutated(cases[i].fn, NAN, NULL, 0);
    expect_rules(&r, cases[i].rules, cases[i].what);
    ck_assert_int_eq(r.samples, 1);
    ck_assert_int_eq(r.rows, 3);
    rescue_lint_result_clear(&r);
  }
}
END_TEST

START_TEST(test_finding_details) {
  rescue_lint_result r = lint_mutated(m_target_speaker, NAN, NULL, 0);
  rescue_buf b = RESCUE_BUF_INIT;
  ck_assert_int_eq(r.n, 1);
  ck_assert_int_eq(r.findings[0].row, 3);
  ck_assert_str_eq(r.findings[0].field, "target");
  ck_assert_str_eq(r.findings[0].sample_id, "ann_and_bo/s01_segment01");
  ck_assert_int_eq(r.findings[0].severity, RESCUE_LINT_ERROR);
  ck_assert_int_eq(r.errors, 1);
  ck_assert_int_eq(r.by_rule[5], 1);
  rescue_lint_finding_text(&r.findings[0], &b);
  ck_assert_str_eq(b.s, "ann_and_bo/s01_segment01:3: error: R05 target: target contains the "
                        "speaker 'Bo'\n");
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_intensity_high, NAN, NULL, 0);
  ck_assert_str_eq(r.findings[0].field, "internal_emotion[1].intensity");
  ck_assert_str_eq(r.findings[0].reason, "intensity 11 is outside 0..10");
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_evidence, NAN, NULL, 0);
  ck_assert_int_eq(r.n, 2); /* 0 and 9 */
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_overlap, NAN, NULL, 0);
  ck_assert_int_eq(r.findings[0].severity, RESCUE_LINT_WARNING);
  ck_assert_int_eq(r.warnings, 1);
  ck_assert_int_eq(r.errors, 0);
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_participants_short, NAN, NULL, 0);
  /* the sample-level finding comes first, without a row */
  ck_assert_int_eq(r.findings[0].row, 0);
  ck_assert_int_eq(r.findings[0].rule, 19);
  ck_assert_ptr_nonnull(strstr(r.findings[0].reason, "not listed 'Bo'"));
  rescue_lint_result_clear(&r);
  rescue_buf_clear(&b);
}
END_TEST

START_TEST(test_media_rules) {
  static const rescue_lint_cue cues[] = {
      {1, 0.5, 1.5, "He never listens."}, /* covered by row 1 */
      {2, 6.5, 8.0, "[door closes]"},     /* no words */
      {3, 6.5, 8.0, "\xe2\x99\xaa"},      /* music sign */
      {4, 7.0, 9.0, "Are we done?"},      /* not covered */
      {5, 5.5, 7.5, "(sighs) fine"},      /* a quarter covered: words outside brackets */
  };
  static const int r03[] = {3, 0}, r14[] = {14, 0}, none[] = {0};
  rescue_lint_result r = lint_mutated(NULL, 5.5, NULL, 0);
  expect_rules(&r, r03, "media shorter than the rows");
  ck_assert_int_eq(r.findings[0].row, 3);
  rescue_lint_result_clear(&r);
  r = lint_mutated(NULL, 6.0, NULL, 0);
  expect_rules(&r, none, "media exactly as long as the rows");
  rescue_lint_result_clear(&r);
  r = lint_mutated(NULL, NAN, cues, 5);
  expect_rules(&r, r14, "uncovered cues");
  ck_assert_int_eq(r.n, 2);
  ck_assert_str_eq(r.findings[0].field, "subtitles[4]");
  ck_assert_str_eq(r.findings[1].field, "subtitles[5]");
  ck_assert_int_eq(r.findings[0].row, 0);
  rescue_lint_result_clear(&r);
}
END_TEST

/* row with member key's value replaced by the JSON text raw, parsed into doc (its only parse). */
static const rescue_jnode *row_with(rescue_jdoc *doc, const rescue_jnode *row, const char *key,
                                    const char *raw) {
  char *text = tu_row_with(row, key, raw);
  rescue_jerror je;
  const rescue_jnode *out = rescue_jparse(doc, text, strlen(text), &je);
  ck_assert_ptr_nonnull(out);
  free(text);
  return out;
}

/* Does res hold a finding written (rescue_lint_finding_text) as text? */
static int has_text(const rescue_lint_result *res, const char *text) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i, found = 0;
  for (i = 0; i < res->n && !found; i++) {
    rescue_buf_reset(&b);
    rescue_lint_finding_text(&res->findings[i], &b);
    found = strcmp(b.s, text) == 0;
  }
  rescue_buf_clear(&b);
  return found;
}

/*
** A check of one edited row (rescue_lint_row_change_kept, with the names kept from a whole
** lint of the sample before the edit, rescue_lint_sample_ents) gives byte for byte what
** rescue_lint_row_change_rows gives deriving them from every row, finds only what a whole
** lint of the edited sample finds, and everything it finds on the rows judged and the
** sample: with the media's duration known (R03, which the review pages never have) and
** edits that move times (R17, whose previous start a check finds by walking back over the
** rows it skips), a speaker, a target, and a name new to the sample.
*/
START_TEST(test_row_change_matches_sample) {
  static const struct {
    int at;
    const char *key, *raw;
    int names_same; /* the edit leaves speaker, target and support targets alone */
  } edits[] = {
      {0, "tone_of_voice", "\"calm\"", 1},
      {0, "start_time", "5.0", 1}, /* R17 on the next row */
      {1, "end_time", "9.0", 1},   /* the latest end moves (R03) */
      {2, "end_time", "4.5", 1},   /* and goes */
      {0, "end_time", "5.9", 1},   /* past the media, but a row the check skips ends later */
      {2, "start_time", "1.0", 1}, /* R17 looks back */
      {2, "primary_speaker", "\"Ann\"", 0},
      {1, "target", "[\"Bo\"]", 0},
      {0, "primary_speaker", "\"Cleo\"", 0}, /* not a participant (R04, R19) */
  };
  static const char *const id = "ann_and_bo/s01_segment01";
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_scheme *sc = NULL;
  rescue_lint_media media = {.duration = 5.5, .n_cues = 0, .cues = NULL};
  size_t len;
  const char *xml = rescue_scheme_default_xml(&len);
  int e, reused = 0;
  ck_assert_int_eq(rescue_scheme_load(xml, len, &sc, &err), 0);
  for (e = 0; e < (int)(sizeof edits / sizeof edits[0]); e++) {
    rescue_jdoc *doc = rescue_jdoc_new(), *doc_row = rescue_jdoc_new(); /* a parse each */
    rescue_jerror je;
    const rescue_jnode *root = rescue_jparse(doc, base, strlen(base), &je), *c, *old;
    const rescue_jnode *rows[8], *edited[8], *again[8];
    rescue_lint_result whole, full, inc, ref;
    rescue_lint_ents *before = NULL, *after = NULL;
    rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
    unsigned char judged[8], judged_ref[8];
    int n = 0, i;
    ck_assert_ptr_nonnull(root);
    for (c = rescue_jget(root, "rows")->child; c; c = c->next)
      rows[n++] = c;
    memset(&whole, 0, sizeof whole);
    memset(&full, 0, sizeof full);
    memset(&inc, 0, sizeof inc);
    memset(&ref, 0, sizeof ref);
    ck_assert_int_eq(
        rescue_lint_sample_ents(sc, id, root, rows, NULL, n, n, &media, &whole, &before), 0);
    ck_assert_ptr_nonnull(before);
    old = rows[edits[e].at];
    memcpy(edited, rows, sizeof rows);
    edited[edits[e].at] = row_with(doc_row, old, edits[e].key, edits[e].raw);
    memcpy(again, edited, sizeof edited);
    ck_assert_int_eq(rescue_lint_sample(sc, id, root, edited, NULL, n, n, &media, &full), 0);
    ck_assert_int_eq(rescue_lint_row_change_kept(sc, id, root, edited, n, n, edits[e].at, old,
                                                 &media, &inc, judged, before, &after),
                     0);
    ck_assert_int_eq(rescue_lint_row_change_rows(sc, id, root, again, n, n, edits[e].at, old,
                                                 &media, &ref, judged_ref),
                     0);
    /* the same as deriving the names from every row */
    rescue_lint_result_json(&inc, &a);
    rescue_lint_result_json(&ref, &b);
    ck_assert_msg(strcmp(a.s, b.s) == 0, "edit %d:\n kept    %s\n derived %s", e, a.s, b.s);
    ck_assert_mem_eq(judged, judged_ref, (size_t)n);
    /* kept names are reused as they are only when the edit leaves the names alone */
    ck_assert_msg((after == NULL) == edits[e].names_same, "edit %d: names %s", e,
                  after ? "made again" : "reused");
    reused += after == NULL;
    /* what the whole lint of the edited sample finds, on the rows judged and the sample */
    for (i = 0; i < inc.n; i++) {
      rescue_buf_reset(&a);
      rescue_lint_finding_text(&inc.findings[i], &a);
      ck_assert_msg(has_text(&full, a.s),
                    "edit %d: the check finds what the whole lint does "
                    "not: %s",
                    e, a.s);
    }
    for (i = 0; i < full.n; i++) {
      const rescue_lint_finding *f = &full.findings[i];
      if (f->row && !judged[f->row - 1])
        continue;
      rescue_buf_reset(&a);
      rescue_lint_finding_text(f, &a);
      ck_assert_msg(has_text(&inc, a.s), "edit %d: the check misses %s", e, a.s);
    }
    rescue_lint_ents_free(&before);
    rescue_lint_ents_free(&after);
    rescue_lint_result_clear(&whole);
    rescue_lint_result_clear(&full);
    rescue_lint_result_clear(&inc);
    rescue_lint_result_clear(&ref);
    rescue_buf_clear(&a);
    rescue_buf_clear(&b);
    rescue_jdoc_free(&doc);
    rescue_jdoc_free(&doc_row);
  }
  ck_assert_int_eq(reused, 6);
  rescue_scheme_free(&sc);
}
END_TEST

/* ---- the store and the CLI ---- */

static void write_sample(const char *path, mutate_fn fn) {
  json_error_t je;
  json_t *j = json_loads(base, JSON_PRESERVE_ORDER, &je);
  char *t;
  if (fn)
    fn(j, json_object_get(j, "rows"));
  t = json_dumps(j, JSON_PRESERVE_ORDER | JSON_COMPACT);
  tu_write(path, t);
  free(t);
  json_decref(j);
}

static void sql(const char *db, const char *text) {
  sqlite3 *h;
  char *msg = NULL;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_exec(h, text, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
  sqlite3_close(h);
}

START_TEST(test_cli) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, copy[4096];
  size_t n;
  char *bytes;
  json_t *j;
  json_error_t je;
  *strrchr(dir, '/') = 0;
  write_sample(tu_path(dir, "good.json"), NULL);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "good.json"), NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 0);
  ck_assert_str_eq(out, "1 sample, 3 rows: 0 errors, 0 warnings\n");
  free(out);
  free(err);
  /* ann's version has an error; the corpus view (latest) shows it, the import view not */
  write_sample(tu_path(dir, "bad.json"), m_target_speaker);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bad.json"), "--annotator", "ann", NULL), 0);
  snprintf(copy, sizeof copy, "%s.copy", db);
  bytes = tu_read(db, &n);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 1);
  ck_assert_str_eq(out, "ann_and_bo/s01_segment01:3: error: R05 target: target contains the "
                        "speaker 'Bo'\n\n1 sample, 3 rows: 1 error, 0 warnings (R05 1)\n");
  ck_assert_str_eq(err, "");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--view", "annotator:import", NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--view", "gold", NULL), 0);
  ck_assert_str_eq(out, "0 samples, 0 rows: 0 errors, 0 warnings\n");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--json", NULL), 1);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "errors")), 1);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "by_rule"), "R05")), 1);
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "rule")),
      "R05");
  ck_assert_int_eq(
      json_integer_value(json_object_get(json_array_get(json_object_get(j, "findings"), 0), "row")),
      3);
  json_decref(j);
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  /* usage and lookups */
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--view", "nobody", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: lint: unknown view 'nobody'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--view", "annotator:zed", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no annotator named 'zed'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--samples", "x/y", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'x/y'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", "-h", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "R19 error"));
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  /* media duration (R03) and subtitle cues (R14) as the media module stores them */
  sql(db, "INSERT INTO source(id, path, size, fingerprint, duration, probed_at) "
          "VALUES (1, 'v.mp4', 10, 'f', 100.0, 'now');"
          "INSERT INTO segment(sample_ref, source_id, start, end, created_at) "
          "VALUES (1, 1, 10.0, 15.0, 'now');"
          "INSERT INTO cue(sample_ref, import_id, seq, start, end, speaker, text) VALUES "
          "(1, 1, 1, 20.0, 22.0, '', 'old import'),"
          "(1, 2, 1, 0.5, 1.5, 'Ann', 'He never listens.'),"
          "(1, 2, 2, 8.0, 9.0, 'Bo', 'Anyone there?');");
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--view", "annotator:import", NULL), 1);
  ck_assert_ptr_nonnull(strstr(out, "ann_and_bo/s01_segment01:3: error: R03 end_time: ends at 6.0 "
                                    "s, after the end of the sample's media (5.000 s)"));
  ck_assert_ptr_nonnull(strstr(out, "ann_and_bo/s01_segment01: warning: R14 subtitles[2]: cue 2 "
                                    "(8.00-9.00 s) \"Anyone there?\" is not covered by any row"));
  ck_assert_ptr_null(strstr(out, "old import"));
  free(out);
  free(err);
  /* a discarded sample is skipped unless named */
  sql(db, "UPDATE sample SET status = 'discarded', status_reason = 'test' WHERE id = 1;");
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 0);
  ck_assert_str_eq(out, "0 samples, 0 rows: 0 errors, 0 warnings\n");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--samples", "ann_and_bo/s01_segment01", NULL),
                   1);
  free(out);
  free(err);
  free(dir);
  free(db);
}
END_TEST

/* The scheme decides: a corpus whose scheme spells a label differently flags the rows. */
START_TEST(test_scheme_driven) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  size_t len;
  const char *xml = rescue_scheme_default_xml(&len);
  char *alt = malloc(len + 16), *p;
  memcpy(alt, xml, len);
  alt[len] = 0;
  p = strstr(alt, "<label name=\"defense\">");
  ck_assert_ptr_nonnull(p);
  memcpy(p + 13, "defence", 7);
  tu_write(tu_path(dir, "s.xml"), alt);
  write_sample(tu_path(dir, "good.json"), NULL);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "init", tu_path(dir, "c.db"), "--scheme", tu_path(dir, "s.xml"), NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", tu_path(dir, "c.db"), tu_path(dir, "good.json"), NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", tu_path(dir, "c.db"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(out, ":3: error: R06 utterance_type: 'defense' is not a "
                                    "utterance_type label"));
  free(out);
  free(err);
  free(alt);
  free(dir);
}
END_TEST

/* R20 names the participant; out-of-set findings name the closest labels. */
START_TEST(test_suggestions) {
  rescue_lint_result r = lint_mutated(m_case_given, NAN, NULL, 0);
  rescue_buf b = RESCUE_BUF_INIT;
  int i, seen = 0;
  for (i = 0; i < r.n; i++)
    if (r.findings[i].rule == 20) {
      seen = 1;
      ck_assert_str_eq(r.findings[i].field, "primary_speaker");
      ck_assert_str_eq(r.findings[i].reason, "'BO' differs from 'Bo' only by case or spacing");
      ck_assert_str_eq(r.findings[i].suggestions, "Bo");
    }
  ck_assert(seen);
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_utt_typo, NAN, NULL, 0);
  ck_assert_int_eq(r.n, 1);
  ck_assert_str_eq(r.findings[0].suggestions, "accusation");
  ck_assert_str_eq(r.findings[0].reason,
                   "'acusation' is not a utterance_type label; closest: accusation");
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_strategy_typo, NAN, NULL, 0);
  ck_assert_int_eq(r.n, 1);
  ck_assert_str_eq(r.findings[0].suggestions, "reframe");
  rescue_lint_result_clear(&r);
  r = lint_mutated(m_utt_unknown, NAN, NULL, 0);
  ck_assert_str_eq(r.findings[0].suggestions, "defense");
  rescue_lint_result_json(&r, &b);
  ck_assert_ptr_nonnull(strstr(b.s, "\"suggestions\": [\"defense\"]"));
  rescue_lint_result_clear(&r);
  /* a label far from every one still gets the nearest few */
  r = lint_mutated(m_cycle_unknown, NAN, NULL, 0);
  ck_assert_int_eq(r.n, 1);
  ck_assert_ptr_nonnull(r.findings[0].suggestions);
  ck_assert_ptr_nonnull(strstr(r.findings[0].reason, "closest: "));
  rescue_lint_result_clear(&r);
  rescue_buf_clear(&b);
}
END_TEST

/*
** One slip, one root (issue 26 item 8): the therapist's row written 'therapist' gives R20,
** and the R06, R11 (the row read as a client's) and R19 (the name not listed) it causes
** say that they follow from it, in text and JSON; other findings stay roots.
*/
START_TEST(test_slip_consequences) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, path[4096], *line;
  const char *in;
  json_t *x, *rows, *r, *j, *f;
  json_error_t je;
  size_t i;
  FILE *fp;
  char buf[65536];
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  fp = fopen(path, "r");
  ck_assert_ptr_nonnull(fp);
  line = fgets(buf, sizeof buf, fp);
  fclose(fp);
  ck_assert_ptr_nonnull(line);
  x = json_loads(buf, JSON_PRESERVE_ORDER, &je);
  rows = json_object_get(x, "rows");
  json_array_foreach(rows, i, r) {
    if (strcmp(json_string_value(json_object_get(r, "primary_speaker")), "Therapist") == 0) {
      json_object_set_new(r, "primary_speaker", json_string("therapist"));
      break;
    }
  }
  ck_assert_int_eq((int)i, 3); /* row 4 */
  {
    char *t = json_dumps(x, JSON_PRESERVE_ORDER);
    in = tu_path(dir, "slip.jsonl");
    tu_write(in, t);
    free(t);
  }
  json_decref(x);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, in, NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 1);
  ck_assert_msg(strstr(out, ": error: R19 participants: participants differ from the rows' "
                            "speakers and targets: not listed 'therapist' (follows from R20 on "
                            "row 4: fix that first)\n") &&
                    strstr(out, ":4: error: R06 utterance_type: utterance_type is empty on a "
                                "client row (follows from R20 on row 4: fix that first)\n") &&
                    strstr(out, ":4: error: R11 support_strategy: support_strategy on a client "
                                "row (therapist rows only) (follows from R20 on row 4: fix that "
                                "first)\n") &&
                    strstr(out, ":4: error: R20 primary_speaker: 'therapist' differs from "
                                "'Therapist' only by case or spacing\n"),
                "%s", out);
  /* a finding the slip does not cause is not marked */
  ck_assert_msg(strstr(out, ":7: error: R10 viewpoints_attitudes[1].target: source and target "
                            "are both 'Daniel'\n"),
                "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--json", NULL), 1);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  json_array_foreach(json_object_get(j, "findings"), i, f) {
    const char *rule = json_string_value(json_object_get(f, "rule"));
    json_t *from = json_object_get(f, "follows_from");
    if (!strcmp(rule, "R06") || !strcmp(rule, "R11") || !strcmp(rule, "R19")) {
      ck_assert_msg(from != NULL, "%s has no follows_from", rule);
      ck_assert_str_eq(json_string_value(json_object_get(from, "rule")), "R20");
      ck_assert_int_eq(json_integer_value(json_object_get(from, "row")), 4);
    } else {
      ck_assert_msg(from == NULL, "%s marked as a consequence", rule);
    }
  }
  json_decref(j);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/* Run rescue and expect status; the output and error (caller frees). */
static void run_expect(int status, char **out, char **err, const char *const *argv) {
  int rc = tu_rescue_argv(argv, out, err);
  ck_assert_msg(rc == status, "rescue %s %s: exit %d, not %d: %s", argv[0], argv[2] ? argv[2] : "",
                rc, status, *err);
}

/*
** Waivers that hide nothing are refused (a rule with no finding on the row, a --by nobody
** registered), leaving the corpus as it was; two leads waive the same finding one after
** the other, the second replacing the first, one removes it, and the history keeps all
** three with who and when.
*/
START_TEST(test_waiver_refusals_and_history) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, copy[4096];
  const char *in, *id = "ann_and_bo/s01_segment01";
  char spec[200], none[200];
  *strrchr(dir, '/') = 0;
  in = tu_path(dir, "s.jsonl");
  {
    json_error_t je;
    json_t *x = json_loads(base, JSON_PRESERVE_ORDER, &je);
    char *t;
    m_evidence(x, json_object_get(x, "rows"));
    t = json_dumps(x, JSON_PRESERVE_ORDER);
    tu_write(in, t);
    free(t);
    json_decref(x);
  }
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, in, NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "omar", "--role", "lead", NULL),
                   0);
  snprintf(spec, sizeof spec, "R13:%s:3", id);
  snprintf(none, sizeof none, "R05:%s:3", id);
  snprintf(copy, sizeof copy, "%s.copy", db);
  {
    size_t n;
    char *bytes = tu_read(db, &n);
    tu_write_n(copy, bytes, n);
    free(bytes);
  }
  /* a rule with no finding on that row: refused, naming the findings the row has */
  {
    const char *a[] = {"lint", db, "--waive", none, "--reason", "r", "--by", "lena", NULL};
    run_expect(1, &out, &err, a);
  }
  ck_assert_msg(strstr(err, "no R05 finding on 'ann_and_bo/s01_segment01' row 3 to waive (its "
                            "findings: R13 relation_pattern_evidence_rows)") &&
                    strstr(err, "nothing was recorded"),
                "%s", err);
  ck_assert_msg(!strstr(err, "usage:"), "%s", err);
  free(out);
  free(err);
  /* --by someone who is not registered: refused */
  {
    const char *a[] = {"lint", db, "--waive", spec, "--reason", "r", "--by", "mallory", NULL};
    run_expect(1, &out, &err, a);
  }
  ck_assert_msg(strstr(err, "--by mallory: ") && strstr(err, "nothing was recorded"), "%s", err);
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  {
    const char *a[] = {"lint", db, "--waiver-history", NULL};
    run_expect(0, &out, &err, a);
  }
  ck_assert_str_eq(out, "no waiver was ever recorded\n");
  free(out);
  free(err);

  /* lena waives, omar waives the same finding again (told whose waiver he replaces) */
  {
    const char *a[] = {"lint",         db,     "--waive", spec, "--reason",
                       "as published", "--by", "lena",    NULL};
    run_expect(0, &out, &err, a);
  }
  free(out);
  free(err);
  {
    const char *a[] = {"lint",          db,     "--waive", spec, "--reason",
                       "checked twice", "--by", "omar",    NULL};
    run_expect(0, &out, &err, a);
  }
  ck_assert_msg(strstr(out, "(replacing the waiver by lena on ") && strstr(out, ": as published;"),
                "%s", out);
  free(out);
  free(err);
  {
    const char *a[] = {"lint", db, "--unwaive", spec, "--by", "lena", NULL};
    run_expect(0, &out, &err, a);
  }
  free(out);
  free(err);
  {
    const char *a[] = {"lint", db, "--waiver-history", "--samples", id, NULL};
    run_expect(0, &out, &err, a);
  }
  {
    const char *w1 = strstr(out, "waive   R13 ann_and_bo/s01_segment01:3  by lena: as published\n");
    const char *w2 =
        strstr(out, "waive   R13 ann_and_bo/s01_segment01:3  by omar: checked twice\n");
    const char *u = strstr(out, "unwaive R13 ann_and_bo/s01_segment01:3  by lena\n");
    ck_assert_msg(w1 && w2 && u && w1 < w2 && w2 < u, "%s", out);
  }
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/* Waivers: recorded in the corpus, reported apart, not failing the run; refusals. */
START_TEST(test_waivers) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL, copy[4096];
  json_t *j, *w;
  json_error_t je;
  const char *in, *id = "ann_and_bo/s01_segment01";
  char spec[200];
  *strrchr(dir, '/') = 0;
  in = tu_path(dir, "s.jsonl");
  {
    json_t *x = json_loads(base, JSON_PRESERVE_ORDER, &je);
    char *t;
    m_evidence(x, json_object_get(x, "rows"));
    t = json_dumps(x, JSON_PRESERVE_ORDER);
    tu_write(in, t);
    free(t);
    json_decref(x);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, in, NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 1);
  ck_assert_msg(strstr(out, "2 errors"), "%s", out);
  free(out);
  free(err);
  snprintf(spec, sizeof spec, "R13:%s:3", id);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive", spec, "--reason",
                             "evidence kept as published", "--by", "lena", NULL),
                   0);
  ck_assert_msg(strstr(out, "waived R13 on ann_and_bo/s01_segment01 row 3"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 0);
  ck_assert_msg(strstr(out, "waived (accepted findings; they do not fail lint):") &&
                    strstr(out, "waived by lena on ") &&
                    strstr(out, ": evidence kept as published") &&
                    strstr(out, "0 errors, 0 warnings, 2 waived"),
                "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--json", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "errors")), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "waived")), 2);
  ck_assert_int_eq(json_array_size(json_object_get(j, "findings")), 0);
  ck_assert_int_eq(json_array_size(json_object_get(j, "waived_findings")), 2);
  w = json_array_get(json_object_get(j, "waivers"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(w, "rule")), "R13");
  ck_assert_str_eq(json_string_value(json_object_get(w, "by")), "lena");
  ck_assert_int_eq(json_integer_value(json_object_get(w, "matched")), 2);
  ck_assert_str_eq(
      json_string_value(json_object_get(
          json_object_get(json_array_get(json_object_get(j, "waived_findings"), 0), "waiver"),
          "reason")),
      "evidence kept as published");
  json_decref(j);
  free(out);
  free(err);

  /* refusals leave the corpus as it was */
  snprintf(copy, sizeof copy, "%s.copy", db);
  {
    size_t n;
    char *bytes = tu_read(db, &n);
    tu_write_n(copy, bytes, n);
    free(bytes);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive", spec, NULL), 2);
  ck_assert_msg(strstr(err, "--waive needs --reason"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive", "R13-x", "--reason", "r", NULL), 2);
  ck_assert_msg(strstr(err, "a waiver is <rule>:<sample_id>:<row>"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive", "R22:a/b:1", "--reason", "r", NULL),
                   2);
  ck_assert_msg(strstr(err, "'R22' is not a rule (R01-R21)"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "lint", db, "--waive", "R13:nobody/here:1", "--reason", "r", NULL), 1);
  ck_assert_msg(strstr(err, "no sample 'nobody/here' in the corpus"), "%s", err);
  free(out);
  free(err);
  snprintf(spec, sizeof spec, "R13:%s:4", id);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--waive", spec, "--reason", "r", NULL), 1);
  ck_assert_msg(strstr(err, "has rows 1-3 (0 for the sample as a whole), not 4"), "%s", err);
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));

  /* --unwaive: the findings fail lint again; a second one finds nothing to remove */
  snprintf(spec, sizeof spec, "13:%s:3", id);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--unwaive", spec, NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, NULL), 1);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--unwaive", spec, NULL), 1);
  ck_assert_msg(strstr(err, "no waiver for R13"), "%s", err);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("lint");
  TCase *tc = tcase_create("lint");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_rules_one_by_one);
  tcase_add_test(tc, test_finding_details);
  tcase_add_test(tc, test_suggestions);
  tcase_add_test(tc, test_waivers);
  tcase_add_test(tc, test_waiver_refusals_and_history);
  tcase_add_test(tc, test_slip_consequences);
  tcase_add_test(tc, test_media_rules);
  tcase_add_test(tc, test_row_change_matches_sample);
  tcase_add_test(tc, test_cli);
  tcase_add_test(tc, test_scheme_driven);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
