/*
** check_tasks.c: the six task datasets on hand-made samples: every rule and tie of
** export/TASKS.md, text cleaning, clips from the store, SHA-256, a differential run against an
** independent Python reading (tests/ref_tasks.py), and the CLI. The release fixtures are
** checked in check_tasks_golden.c.
*/
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "taskutil.h"
#include "intensity_int.h"
#include "store_int.h"

START_TEST(test_sha256_vectors) {
  static const struct {
    const char *in, *hex;
  } v[] = {{"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
           {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
           {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"}};
  rescue_sha256 h;
  char hex[65], hex2[65];
  unsigned char *big;
  size_t i, off;
  int hw;
  for (hw = 0; hw < 2; hw++) {
    rescue_sha256_allow_hw(hw);
    for (i = 0; i < sizeof v / sizeof v[0]; i++) {
      rescue_sha256_init(&h);
      rescue_sha256_update(&h, v[i].in, strlen(v[i].in));
      rescue_sha256_hex(&h, hex);
      ck_assert_str_eq(hex, v[i].hex);
    }
    /* a million 'a', fed in uneven pieces */
    big = malloc(1000000);
    memset(big, 'a', 1000000);
    rescue_sha256_init(&h);
    for (off = 0, i = 1; off < 1000000; off += i, i = i * 7 % 1000 + 1)
      rescue_sha256_update(&h, big + off, off + i > 1000000 ? 1000000 - off : i);
    rescue_sha256_hex(&h, hex);
    ck_assert_str_eq(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
    free(big);
  }
  /* both paths agree on odd lengths around block boundaries */
  big = malloc(300);
  for (i = 0; i < 300; i++)
    big[i] = (unsigned char)(i * 31 + 7);
  for (i = 0; i < 300; i += 13) {
    rescue_sha256_allow_hw(0);
    rescue_sha256_init(&h);
    rescue_sha256_update(&h, big, i);
    rescue_sha256_hex(&h, hex);
    rescue_sha256_allow_hw(1);
    rescue_sha256_init(&h);
    rescue_sha256_update(&h, big, i);
    rescue_sha256_hex(&h, hex2);
    ck_assert_str_eq(hex, hex2);
  }
  free(big);
}
END_TEST

/* ITP records as "ce:yes/no:boundary" joined by spaces. */
static void itp_summary(const char *dir, const char *sample, char *out, size_t n) {
  json_t *recs = tt_jsonl(tu_path(dir, "itp.jsonl")), *r;
  size_t i;
  out[0] = 0;
  json_array_foreach(recs, i, r) {
    char one[128];
    if (strcmp(tt_str(r, "sample_id"), sample) != 0)
      continue;
    snprintf(one, sizeof one, "%s%lld:%s:%s", out[0] ? " " : "", tt_int(r, "context_end_row_index"),
             tt_str(r, "gold_should_speak"), tt_str(r, "gold_boundary_type"));
    strncat(out, one, n - strlen(out) - 1);
    ck_assert_int_eq((long long)json_array_size(json_object_get(r, "prior_context")),
                     tt_int(r, "context_end_row_index"));
  }
  json_decref(recs);
}

/* Build the ITP test corpus. */
static char *itp_corpus(void) {
  static const char *const s1[] = {"\"Therapist\"", "\"Alan\"",      "\"Alan\"",   "\"Evelyn\"",
                                   "\"Therapist\"", "\"Therapist\"", "\"Evelyn\"", "\"Alan\"",
                                   "\"Therapist\"", "\"Alan\""};
  static const char *const s2[] = {"\"Alan\"",   "\"Evelyn\"",    "\"Alan\"", "\"Evelyn\"",
                                   "\"Alan\"",   "\"Evelyn\"",    "\"Alan\"", "\"Therapist\"",
                                   "\"Evelyn\"", "\"Therapist\"", "\"Alan\"", "\"Therapist\""};
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i;
  char *db;
  tt_sample_open(&b, "c/itp1", NULL);
  for (i = 0; i < sizeof s1 / sizeof s1[0]; i++)
    tt_row(&b, s1[i], "[]", "words", "");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/itp2", NULL);
  for (i = 0; i < sizeof s2 / sizeof s2[0]; i++)
    tt_row(&b, s2[i], "[]", "words", "");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/itp3", NULL); /* empty speakers are equal */
  tt_row(&b, "\"\"", "[]", "a", "");
  tt_row(&b, "\"\"", "[]", "b", "");
  tt_row(&b, "\"Therapist\"", "[]", "c", "");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/itp4", NULL); /* no therapist: no positive, nothing */
  tt_row(&b, "\"Alan\"", "[]", "a", "");
  tt_row(&b, "\"Evelyn\"", "[]", "b", "");
  tt_row(&b, "\"Alan\"", "[]", "c", "");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/itp5", NULL); /* trimmed, exact "Therapist" only */
  tt_row(&b, "\"Alan\"", "[]", "a", "");
  tt_row(&b, "\" Therapist \"", "[]", "b", "");
  tt_row(&b, "\"therapist\"", "[]", "c", "");
  tt_row(&b, "\"Evelyn\"", "[]", "d", "");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  return db;
}

START_TEST(test_itp_rules) {
  char *db = itp_corpus(), *out, got[1024];
  rescue_tasks_opts o;
  rescue_tasks_result res;
  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_ITP;
  out = tt_export(db, &o, &res);
  /* itp1: therapist at row 1 gives nothing; rows 5-6 give one positive (after row 4);
     negatives 2, 3, 7 cut to 2 by positions 0 and 2 */
  itp_summary(out, "c/itp1", got, sizeof got);
  ck_assert_str_eq(got, "2:no:same_speaker_continuation 4:yes:therapist_entry "
                        "7:no:non_therapist_exchange 8:yes:therapist_entry");
  /* itp2: six negatives to three: positions 0, rint(2.5) = 2 (half to even), 5 */
  itp_summary(out, "c/itp2", got, sizeof got);
  ck_assert_str_eq(got, "1:no:non_therapist_exchange 3:no:non_therapist_exchange "
                        "6:no:non_therapist_exchange 7:yes:therapist_entry "
                        "9:yes:therapist_entry 11:yes:therapist_entry");
  itp_summary(out, "c/itp3", got, sizeof got);
  ck_assert_str_eq(got, "1:no:same_speaker_continuation 2:yes:therapist_entry");
  itp_summary(out, "c/itp4", got, sizeof got);
  ck_assert_str_eq(got, "");
  itp_summary(out, "c/itp5", got, sizeof got);
  ck_assert_str_eq(got, "1:yes:therapist_entry 3:no:non_therapist_exchange");
  ck_assert_int_eq(res.instances[RESCUE_TASK_ITP], 4 + 6 + 2 + 0 + 2);
  ck_assert_int_eq(res.itp_yes, 2 + 3 + 1 + 1);
  free(out);
  /* a cap of 1 per class: the middle item of each list first */
  o.itp_cap_per_class = 1;
  out = tt_export(db, &o, NULL);
  itp_summary(out, "c/itp1", got, sizeof got);
  ck_assert_str_eq(got, "3:no:non_therapist_exchange 8:yes:therapist_entry");
  itp_summary(out, "c/itp2", got, sizeof got);
  ck_assert_str_eq(got, "4:no:non_therapist_exchange 9:yes:therapist_entry");
  free(out);
  /* only ITP was asked for */
  o.itp_cap_per_class = 0;
  out = tt_export(db, &o, NULL);
  ck_assert_int_ne(access(tu_path(out, "rpp.jsonl"), F_OK), 0);
  free(out);
  free(db);
}
END_TEST

/* An internal_emotion member for extra. */
static const char *emo(char *buf, size_t n, const char *items) {
  snprintf(buf, n, "\"internal_emotion\": [%s]", items);
  return buf;
}

START_TEST(test_er_rules) {
  rescue_buf b = RESCUE_BUF_INIT;
  char e[512], *db, *out, got[256];
  json_t *recs, *r;
  rescue_tasks_opts o;
  size_t i;
  int k;
  tt_sample_open(&b, "c/er1", NULL);
  /* 10 rows: drop = ceil(3) = 3, rows 4..10 kept */
  tt_row(&b, "\"Alan\"", "[]", "one two three four five",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"early\", "
             "\"intensity\": 5}"));
  tt_row(&b, "\"Alan\"", "[]", "one two three four five", "");
  tt_row(&b, "\"Alan\"", "[]", "one two three four five", "");
  tt_row(&b, "\"Alan\"", "[\"Evelyn\"]", "I don't think it's fair",
         emo(e, sizeof e,
             "{\"person\": \" Alan \", \"emotion_description\": \"hurt\", "
             "\"intensity\": 6.5}"));
  tt_row(&b, "\"Evelyn\"", "[]", "well-being is key here",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"x\", \"intensity\": 3},"
             "{\"person\": \"Evelyn\", \"emotion_description\": \"\", \"intensity\": 5},"
             "{\"person\": \"Evelyn\", \"emotion_description\": \"calm\", "
             "\"intensity\": \"7.5\"}"));
  tt_row(&b, "\"Alan\"", "[]", "it\xe2\x80\x99s not okay with",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"angry\", "
             "\"intensity\": 11}, {\"person\": \"Alan\", \"emotion_description\": "
             "\"tired\", \"intensity\": true}"));
  tt_row(&b, "\"Therapist\"", "[]", "one two three four five six",
         emo(e, sizeof e,
             "{\"person\": \"Therapist\", \"emotion_description\": \"calm\", "
             "\"intensity\": 3}"));
  tt_row(&b, "\"Alan\"", "[]", "In a nutshell, yeah.",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"flat\", "
             "\"intensity\": 2}"));
  tt_row(&b, "\"Evelyn\"", "[]", "caf\xc3\xa9 is tr\xc3\xa8s bon",
         emo(e, sizeof e,
             "{\"person\": \"Evelyn\", \"emotion_description\": \"numb\", "
             "\"intensity\": 0}"));
  tt_row(&b, "\"Alan\"", "[]", "okay then we will see",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"sad\", "
             "\"intensity\": null}, {\"person\": \"Alan\", "
             "\"emotion_description\": \" sad \", \"intensity\": \"x\"}"));
  tt_sample_close(&b);
  /* 10 eligible rows: candidates 4..10 (7), five picked at rint(k * 6 / 4) */
  tt_sample_open(&b, "c/er2", NULL);
  for (k = 0; k < 10; k++)
    tt_row(&b, "\"Alan\"", "[]", "one two three four five",
           emo(e, sizeof e,
               "{\"person\": \"Alan\", \"emotion_description\": \"e\", "
               "\"intensity\": 4}"));
  tt_sample_close(&b);
  tt_sample_open(&b, "c/er3", NULL); /* one row: no cutoff */
  tt_row(&b, "\"Alan\"", "[]", "one two three four five",
         emo(e, sizeof e,
             "{\"person\": \"Alan\", \"emotion_description\": \"solo\", "
             "\"intensity\": 1.5}"));
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);

  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_ER;
  out = tt_export(db, &o, NULL);
  recs = tt_jsonl(tu_path(out, "er.jsonl"));
  got[0] = 0;
  json_array_foreach(recs, i, r) {
    char one[64];
    snprintf(one, sizeof one, "%s%s/%lld:%s:%lld", got[0] ? " " : "", tt_str(r, "sample_id") + 2,
             tt_int(r, "row_index"), tt_str(r, "gold_internal_emotion"),
             tt_int(r, "gold_intensity_score"));
    strncat(got, one, sizeof got - strlen(got) - 1);
    ck_assert_int_eq((long long)json_array_size(json_object_get(r, "prior_context")),
                     tt_int(r, "row_index") - 1);
    ck_assert_str_eq(tt_str(r, "clip_path"), "");
    ck_assert(json_real_value(json_object_get(r, "clip_duration_sec")) == 0.0);
  }
  /* er1: 6.5 -> 6, "7.5" -> 8, 11 skipped then true -> 1, 4 words too few, 0 valid,
     null and "x" invalid; the curly apostrophe splits "it's" and non-ASCII letters split
     words; er2: half to even picks 4, 6, 7, 8, 10 (half up would take 9) */
  ck_assert_str_eq(got, "er1/4:hurt:6 er1/5:calm:8 er1/6:tired:1 er1/9:numb:0 "
                        "er2/4:e:4 er2/6:e:4 er2/7:e:4 er2/8:e:4 er2/10:e:4 er3/1:solo:2");
  json_decref(recs);
  free(out);
  /* one checkpoint: the first; none: every candidate; fewer words needed: row 8 joins */
  o.checkpoints_per_sample = 1;
  o.min_dialogue_words = 4;
  out = tt_export(db, &o, NULL);
  recs = tt_jsonl(tu_path(out, "er.jsonl"));
  ck_assert_int_eq(tt_int(json_array_get(recs, 0), "row_index"), 4);
  ck_assert_int_eq(tt_int(json_array_get(recs, 1), "row_index"), 4);
  ck_assert_str_eq(tt_str(json_array_get(recs, 1), "sample_id"), "c/er2");
  json_decref(recs);
  free(out);
  o.checkpoints_per_sample = 0;
  out = tt_export(db, &o, NULL);
  recs = tt_jsonl(tu_path(out, "er.jsonl"));
  ck_assert_int_eq((int)json_array_size(recs), 5 + 7 + 1);
  ck_assert_ptr_nonnull(tt_find(recs, "instance_id", "c/er1__row8"));
  json_decref(recs);
  free(out);
  free(db);
}
END_TEST

START_TEST(test_vp_rules) {
  rescue_buf b = RESCUE_BUF_INIT;
  char *db, *out, *line;
  json_t *recs, *r;
  rescue_tasks_opts o;
  tt_sample_open(&b, "c/vp1", NULL);
  tt_row(&b, "\"Alan\"", "[\"Evelyn\"]", "you always do this",
         "\"viewpoints_attitudes\": [{\"source\": \"Alan\", \"target\": \"Evelyn\", \"viewpoint\": "
         "\"she nags\", \"attitude\": \" annoyed \"}, {\"source\": \"Evelyn\", \"target\": "
         "\"Alan\", \"viewpoint\": \"not his\", \"attitude\": \"\"}]");
  tt_row(&b, "\"Therapist\"", "[\"Couple\"]", "what do you notice",
         "\"viewpoints_attitudes\": [{\"source\": \"Therapist\", \"target\": \"Couple\", "
         "\"viewpoint\": \"stuck\", \"attitude\": \"calm\"}]");
  tt_row(&b, "\"Evelyn\"", "[\"Therapist\"]", "we fight",
         "\"viewpoints_attitudes\": [{\"source\": \" Evelyn\", \"target\": \"\", \"viewpoint\": "
         "\"v\"}, {\"source\": \"Evelyn\", \"target\": \"Couple\", \"viewpoint\": \"we fight\", "
         "\"attitude\": null}, {\"source\": \"Evelyn\", \"target\": \"Dr. Jones\", "
         "\"viewpoint\": \"he helps\", \"attitude\": \"warm\"}, \"not an object\"]");
  tt_row(&b, "\"Alan\"", "[]", "ok", "\"viewpoints_attitudes\": []");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_VP;
  out = tt_export(db, &o, NULL);
  recs = tt_jsonl(tu_path(out, "vp.jsonl"));
  ck_assert_int_eq((int)json_array_size(recs), 2); /* rows 1 and 3; no cutoff, no word count */
  line = tt_lines_with(tu_path(out, "vp.jsonl"), "__row1\"");
  ck_assert_ptr_nonnull(strstr(line, "\"participants\": [\"Alan\", \"Evelyn\", \"Therapist\", "
                                     "\"Dr. Jones\"]"));
  ck_assert_ptr_nonnull(strstr(line, "\"gold_viewpoints\": [{\"source\": \"Alan\", \"target\": "
                                     "\"Evelyn\", \"viewpoint\": \"she nags\", \"attitude\": "
                                     "\"annoyed\"}], \"clip_path\""));
  free(line);
  r = tt_find(recs, "instance_id", "c/vp1__row3");
  ck_assert_ptr_nonnull(r);
  line = json_dumps(json_object_get(r, "gold_viewpoints"), JSON_COMPACT);
  ck_assert_str_eq(line, "[{\"source\":\"Evelyn\",\"target\":\"Couple\",\"viewpoint\":\"we fight\","
                         "\"attitude\":\"\"},{\"source\":\"Evelyn\",\"target\":\"Dr. Jones\","
                         "\"viewpoint\":\"he helps\",\"attitude\":\"warm\"}]");
  free(line);
  json_decref(recs);
  free(out);
  free(db);
}
END_TEST

START_TEST(test_rpp_rules) {
  rescue_buf b = RESCUE_BUF_INIT;
  char *db, *out;
  json_t *recs, *r;
  rescue_tasks_opts o;
  tt_sample_open(&b, "c/rpp1", NULL);
  tt_row(&b, "\"Alan\"", "[]", "a",
         "\"relation_pattern\": \"pursue_withdraw\", \"relation_pattern_reason\": \" r1 \", "
         "\"relation_pattern_evidence_rows\": [1, 2, 4]");
  tt_row(&b, "\"Therapist\"", "[]", "b", "\"relation_pattern\": \"Pursue_Withdraw\"");
  tt_row(&b, "\"Evelyn\"", "[]", "c",
         "\"relation_pattern\": \"\", \"relation_pattern_reason\": \"no clear pattern\"");
  tt_row(&b, "\"Alan\"", "[]", "d", "\"relation_pattern\": null");
  tt_row(&b, "\"Evelyn\"", "[]", "e", "\"relation_pattern\": \"escalation_conflict\"");
  tt_row(
      &b, "\"Therapist\"", "[]", "f",
      "\"relation_pattern\": \" attack_attack \", \"relation_cycle_state\": \"withdraw_withdraw\"");
  tt_row(&b, "\"Alan\"", "[]", "g", "");
  tt_sample_close(&b);
  tt_sample_open(&b, "c/rpp2", NULL); /* no relation_pattern key: the script's reading */
  tt_row(&b, "\"Alan\"", "[]", "a", "\"relation_cycle_state\": \"pursue_withdraw\"");
  tt_row(&b, "\"Therapist\"", "[]", "b",
         "\"relation_cycle_state\": \"attack_attack\", \"relation_cycle_reason\": \"why\", "
         "\"relation_cycle_evidence_rows\": [1]");
  tt_row(&b, "\"Therapist\"", "[]", "c", "\"relation_cycle_state\": \"bogus\"");
  tt_row(&b, "\"Therapist\"", "[]", "d", "\"relation_cycle_state\": \"withdraw_withdraw\"");
  tt_sample_close(&b);
  tt_sample_open(&b, "family_therapy/f1/merged", NULL);
  tt_row(&b, "\"Mom\"", "[\"Family\"]", "a", "\"relation_pattern\": \"escalation_conflict\"");
  tt_row(&b, "\"Dad\"", "[]", "b", "\"relation_pattern\": \"attack_attack\"");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_RPP;
  out = tt_export(db, &o, NULL);
  recs = tt_jsonl(tu_path(out, "rpp.jsonl"));
  ck_assert_int_eq((int)json_array_size(recs), 2 + 2 + 1);
  r = tt_find(recs, "instance_id", "c/rpp1__row1");
  ck_assert_str_eq(tt_str(r, "gold_relation_pattern"), "pursue_withdraw");
  ck_assert_str_eq(tt_str(r, "gold_reason"), "r1");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "gold_evidence_rows")), 3);
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 1);
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "candidate_relation_labels")), 6);
  ck_assert_str_eq(
      json_string_value(json_array_get(json_object_get(r, "candidate_relation_labels"), 5)),
      "mixed_transition");
  r = tt_find(recs, "instance_id", "c/rpp1__row6");
  ck_assert_str_eq(tt_str(r, "gold_relation_pattern"), "attack_attack");
  ck_assert_str_eq(tt_str(r, "target_primary_speaker"), "Therapist");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 6);
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "gold_evidence_rows")), 0);
  r = tt_find(recs, "instance_id", "c/rpp2__row2");
  ck_assert_str_eq(tt_str(r, "gold_relation_pattern"), "attack_attack");
  ck_assert_str_eq(tt_str(r, "gold_reason"), "why");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 1);
  r = tt_find(recs, "instance_id", "c/rpp2__row4");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 3);
  r = tt_find(recs, "instance_id", "family_therapy/f1/merged__row1");
  ck_assert_str_eq(tt_str(r, "scenario"), "family");
  ck_assert_str_eq(tt_str(r, "couple"), "f1");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "candidate_relation_labels")), 8);
  json_decref(recs);
  free(out);
  free(db);
}
END_TEST

/* A support_strategy member for extra. */
static const char *sup(char *buf, size_t n, const char *items) {
  snprintf(buf, n, "\"support_strategy\": [%s]", items);
  return buf;
}

START_TEST(test_stp_ssp_rules) {
  rescue_buf b = RESCUE_BUF_INIT;
  char e[512], *db, *out, *cands;
  json_t *stp, *ssp, *r;
  rescue_tasks_opts o;
  tt_sample_open(&b, "c/stp1", NULL);
  tt_row(&b, "\"Alan\"", "[\"Therapist\"]", "1", "");
  tt_row(&b, "\"Therapist\"", "[\"Alan\"]", "2",
         sup(e, sizeof e,
             "{\"provider\": \"Therapist\", \"target\": [\"Alan\", \"Evelyn\"], "
             "\"strategy_type\": \"reframe\"}, {\"target\": [\"Evelyn\", \"Alan\"], "
             "\"strategy_type\": \"join\"}"));
  tt_row(&b, "\"Evelyn\"", "[]", "3", "");
  tt_row(&b, "\"Therapist\"", "[\" Evelyn \"]", "4",
         sup(e, sizeof e, "{\"target\": [\"Therapist\", \" \"], \"strategy_type\": \"Track\"}"));
  tt_row(&b, "\"Therapist\"", "[\"Therapist\"]", "5",
         sup(e, sizeof e, "{\"target\": [], \"strategy_type\": \"join\"}"));
  tt_row(&b, "\"Therapist\"", "[\"Alan\"]", "6", sup(e, sizeof e, "\"not an object\""));
  tt_row(&b, "\"Therapist\"", "[\"Alan\"]", "7", sup(e, sizeof e, ""));
  tt_row(&b, "\"Therapist\"", "[\"Alan\"]", "8",
         sup(e, sizeof e, "{\"target\": [\"Alan\"], \"strategy_type\": \" \"}"));
  tt_row(&b, "\"Therapist\"", "[\"Dana\"]", "9",
         sup(e, sizeof e, "{\"target\": [\"Dana\"], \"strategy_type\": \"boundary\"}"));
  tt_sample_close(&b);
  tt_sample_open(&b, "family_therapy/f2/merged", NULL);
  tt_row(&b, "\"Mom\"", "[\"Therapist\"]", "1", "");
  tt_row(&b, "\"Therapist\"", "[\"Couple\"]", "2",
         sup(e, sizeof e, "{\"target\": [\"Mom\", \"Dad\"], \"strategy_type\": \"boundary\"}"));
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  rescue_tasks_opts_init(&o);
  o.tasks = (1u << RESCUE_TASK_STP) | (1u << RESCUE_TASK_SSP);
  out = tt_export(db, &o, NULL);
  stp = tt_jsonl(tu_path(out, "stp.jsonl"));
  ssp = tt_jsonl(tu_path(out, "ssp.jsonl"));
  ck_assert_int_eq((int)json_array_size(stp), 3 + 1);
  ck_assert_int_eq((int)json_array_size(ssp), 1 + 1);
  r = tt_find(stp, "instance_id", "c/stp1__row2");
  ck_assert_str_eq(tt_str(r, "gold_support_target"), "Couple");
  ck_assert_str_eq(tt_str(r, "gold_target_source"), "support_strategy");
  cands = json_dumps(json_object_get(r, "gold_target_tuple"), JSON_COMPACT);
  ck_assert_str_eq(cands, "[\"Alan\",\"Evelyn\"]");
  free(cands);
  /* participants, the group label, then therapist targets; de-duplicated, order kept */
  cands = json_dumps(json_object_get(r, "candidate_target_labels"), JSON_COMPACT);
  ck_assert_str_eq(cands, "[\"Alan\",\"Evelyn\",\"Dana\",\"Couple\"]");
  free(cands);
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 1);
  r = tt_find(stp, "instance_id", "c/stp1__row4");
  ck_assert_str_eq(tt_str(r, "gold_support_target"), "Evelyn");
  ck_assert_str_eq(tt_str(r, "gold_target_source"), "row_target_fallback");
  r = tt_find(stp, "instance_id", "c/stp1__row9");
  ck_assert_str_eq(tt_str(r, "gold_support_target"), "Dana");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "prior_context")), 8);
  r = tt_find(ssp, "instance_id", "c/stp1__row2");
  ck_assert_str_eq(tt_str(r, "known_support_target"), "Couple");
  ck_assert_str_eq(tt_str(r, "gold_support_strategy"), "reframe");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "candidate_strategy_labels")), 10);
  /* family: two people map to Family; a row target ["Couple"] is a candidate as is */
  r = tt_find(stp, "instance_id", "family_therapy/f2/merged__row2");
  ck_assert_str_eq(tt_str(r, "gold_support_target"), "Family");
  cands = json_dumps(json_object_get(r, "candidate_target_labels"), JSON_COMPACT);
  ck_assert_str_eq(cands, "[\"Mom\",\"Dad\",\"Family\",\"Couple\"]");
  free(cands);
  r = tt_find(ssp, "instance_id", "family_therapy/f2/merged__row2");
  ck_assert_str_eq(tt_str(r, "gold_support_strategy"), "boundary");
  ck_assert_int_eq((int)json_array_size(json_object_get(r, "candidate_strategy_labels")), 8);
  json_decref(stp);
  json_decref(ssp);
  free(out);
  free(db);
}
END_TEST

START_TEST(test_cleaning_text_source_couple) {
  rescue_buf b = RESCUE_BUF_INIT;
  char *db, *out, *line;
  rescue_tasks_opts o;
  json_t *recs, *r, *ctx;
  tt_sample_open(&b, "solo", "\"source_file\": \" mine/solo.json \"");
  /* U+3000 is stripped, U+200B is not; curly quotes, accents and dashes stay raw */
  tt_row(&b, "\"\xe3\x80\x80Zo\xc3\xab \"", "[\" Al \", \"\", \"Therapist\"]",
         "\xe2\x80\x9cNo\xe2\x80\x9d \xe2\x80\x94 caf\xc3\xa9\xe2\x80\x8b",
         "\"tone_of_voice\": 0, \"body_posture\": [{\"person\": \" Zo\xc3\xab\", \"description\": "
         "\" sits \"}, {\"person\": \"\", \"description\": \"x\"}, {\"person\": \"Al\"}], "
         "\"background_dialogue\": [{\"speaker\": \"Al\", \"target\": [\" \"], \"content\": \"c\"},"
         " {\"speaker\": \"Al\", \"target\": [\" Zo\xc3\xab\"], \"content\": \" hm \"}]");
  tt_row(&b, "\"Al\"", "[]", "hm", "");
  tt_row(&b, "\"Therapist\"", "[]", "go on", "");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_ITP;
  out = tt_export(db, &o, NULL);
  line = tu_read(tu_path(out, "itp.jsonl"), NULL);
  ck_assert_ptr_nonnull(
      strstr(line, "\"speaker\": \"Zo\xc3\xab\", \"dialogue\": "
                   "\"\xe2\x80\x9cNo\xe2\x80\x9d \xe2\x80\x94 caf\xc3\xa9\xe2\x80\x8b\""));
  ck_assert_ptr_nonnull(strstr(line, "\"participants\": [\"Zo\xc3\xab\", \"Al\"]"));
  free(line);
  recs = tt_jsonl(tu_path(out, "itp.jsonl"));
  r = json_array_get(recs, 0);
  ck_assert_str_eq(tt_str(r, "couple"), "therapy_merged_all");
  ck_assert_str_eq(tt_str(r, "source_file"), "mine/solo.json");
  ctx = json_array_get(json_object_get(r, "prior_context"), 0);
  line = json_dumps(ctx, JSON_COMPACT | JSON_PRESERVE_ORDER);
  ck_assert_str_eq(line,
                   "{\"row_index\":1,\"timestamp\":\"0.000-1.500\",\"primary_speaker\":"
                   "\"Zo\xc3\xab\",\"target\":[\"Al\",\"Therapist\"],\"dialogue_cleaned\":"
                   "\"\xe2\x80\x9cNo\xe2\x80\x9d \xe2\x80\x94 caf\xc3\xa9\xe2\x80\x8b\","
                   "\"background_dialogue\":[{\"speaker\":\"Al\",\"target\":[\"Zo\xc3\xab\"],"
                   "\"content\":\"hm\"}],\"tone_of_voice\":\"\",\"body_posture\":"
                   "[{\"person\":\"Zo\xc3\xab\",\"description\":\"sits\"}],"
                   "\"facial_expressions\":[],\"self_directed_behavior\":[],"
                   "\"interaction_behavior\":[],\"clip_path\":\"\",\"clip_duration_sec\":0.0}");
  free(line);
  json_decref(recs);
  free(out);
  free(db);
}
END_TEST

START_TEST(test_clips_from_store) {
  rescue_buf b = RESCUE_BUF_INIT;
  char *db, *out, *line;
  sqlite3 *sq;
  rescue_tasks_opts o;
  tt_sample_open(&b, "c/clip", NULL);
  tt_row(&b, "\"Alan\"", "[]", "a", "");
  tt_row(&b, "\"Alan\"", "[]", "b", "");
  tt_row(&b, "\"Alan\"", "[]", "c", "");
  tt_row(&b, "\"Therapist\"", "[]", "d", "");
  tt_sample_close(&b);
  db = tt_corpus(b.s);
  rescue_buf_clear(&b);
  ck_assert_int_eq(sqlite3_open(db, &sq), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_exec(sq,
                   "INSERT INTO clip(sample_ref, position, mode, path, req_start, req_end, bytes, "
                   "sha256, created_at) VALUES "
                   "(1, 2, 'copy', 'clips/old/002.mp4', 2, 3.5, 9, 'x', 't'),"
                   "(1, 2, 'exact', 'clips/new/002.mp4', 2, 3.5, 9, 'x', 't'),"
                   "(1, 3, 'audio', 'clips/a/003.m4a', 4, 5.5, 9, 'x', 't'),"
                   "(1, 9, 'copy', 'clips/x/009.mp4', 4, 5.5, 9, 'x', 't')",
                   NULL, NULL, NULL),
      SQLITE_OK);
  sqlite3_close(sq);
  rescue_tasks_opts_init(&o);
  o.tasks = 1u << RESCUE_TASK_ITP;
  out = tt_export(db, &o, NULL);
  line = tu_read(tu_path(out, "itp.jsonl"), NULL);
  ck_assert_ptr_nonnull(
      strstr(line, "\"clip_path\": \"clips/new/002.mp4\", \"clip_duration_sec\": 1.5}"));
  ck_assert_ptr_nonnull(strstr(line, "\"dialogue_cleaned\": \"c\", \"background_dialogue\": [], "
                                     "\"tone_of_voice\": \"\", \"body_posture\": [], "
                                     "\"facial_expressions\": [], \"self_directed_behavior\": [], "
                                     "\"interaction_behavior\": [], \"clip_path\": \"\", "
                                     "\"clip_duration_sec\": 0.0}"));
  ck_assert_ptr_null(strstr(line, "old/002"));
  ck_assert_ptr_null(strstr(line, "003.m4a"));
  free(line);
  free(out);
  free(db);
}
END_TEST

/* ---- differential run against tests/ref_tasks.py ---- */

static uint64_t rng_state;
static unsigned rnd(unsigned n) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return (unsigned)((z ^ (z >> 31)) % n);
}
static const char *pick(const char *const *v, size_t n) { return v[rnd((unsigned)n)]; }
#define PICK(v) pick(v, sizeof v / sizeof v[0])

/* A random list of 0..max items made by item(). */
static void rand_list(rescue_buf *b, unsigned max, void (*item)(rescue_buf *)) {
  unsigned n = rnd(max + 1), i;
  rescue_buf_putc(b, '[');
  for (i = 0; i < n; i++) {
    if (i)
      rescue_buf_puts(b, ", ");
    item(b);
  }
  rescue_buf_putc(b, ']');
}

static const char *const names[] = {
    "\"Alan\"", "\"Evelyn\"", "\" Alan \"", "\"Therapist\"",  "\"Therapist \"", "\"therapist\"",
    "\"\"",     "\"Couple\"", "\"Family\"", "\"Zo\xc3\xab\"", "\"Mom\"",        "\"Dad\""};
static void name_item(rescue_buf *b) { rescue_buf_puts(b, PICK(names)); }
static const char *const texts[] = {"\"I don't think it's fair to me\"",
                                    "\"well-being matters, right?\"",
                                    "\"ok\"",
                                    "\"In a nutshell, yeah.\"",
                                    "\"caf\xc3\xa9 tr\xc3\xa8s bien and more words here\"",
                                    "\"it\xe2\x80\x99s not okay with me at all\"",
                                    "\" padded  text with spaces \"",
                                    "\"\"",
                                    "\"\\u3000wide space first and five\"",
                                    "\"tab\\there and a newline\\n too\""};
static void person_item(rescue_buf *b) {
  rescue_buf_printf(b, "{\"person\": %s, \"description\": %s}", PICK(names), PICK(texts));
}
static void bg_item(rescue_buf *b) {
  rescue_buf_printf(b, "{\"speaker\": %s, \"target\": ", PICK(names));
  rand_list(b, 2, name_item);
  rescue_buf_printf(b, ", \"content\": %s}", PICK(texts));
}
static void inter_item(rescue_buf *b) {
  rescue_buf_printf(b, "{\"initiator\": %s, \"target\": ", PICK(names));
  rand_list(b, 2, name_item);
  rescue_buf_printf(b, ", \"description\": %s}", PICK(texts));
}
static const char *const intensities[] = {"5",  "6.5",  "7.5",   "\"7\"", "true", "false", "11",
                                          "-1", "null", "\"x\"", "0",     "10",   "3.49",  "8"};
static void emo_item(rescue_buf *b) {
  rescue_buf_printf(b, "{\"person\": %s, \"emotion_description\": %s, \"intensity\": %s}",
                    PICK(names), PICK(texts), PICK(intensities));
}
static void view_item(rescue_buf *b) {
  rescue_buf_printf(b, "{\"source\": %s, \"target\": %s, \"viewpoint\": %s, \"attitude\": %s}",
                    PICK(names), PICK(names), PICK(texts), rnd(4) ? PICK(texts) : "null");
}
static const char *const strategies[] = {"\"reframe\"",    "\"track\"",  "\"boundary\"",
                                         "\"Track\"",      "\"\"",       "\"join\"",
                                         "\"goal_align\"", "\" evoke \""};
static void sup_item(rescue_buf *b) {
  if (!rnd(12)) {
    rescue_buf_puts(b, "\"junk\"");
    return;
  }
  rescue_buf_puts(b, "{\"provider\": \"Therapist\", \"target\": ");
  rand_list(b, 3, name_item);
  rescue_buf_printf(b, ", \"strategy_type\": %s, \"strategy_content\": \"c\"}", PICK(strategies));
}
static const char *const relations[] = {"\"pursue_withdraw\"",
                                        "\"attack_attack\"",
                                        "\"mixed_transition\"",
                                        "\"escalation_conflict\"",
                                        "\"boundary_hierarchy_strain\"",
                                        "\"\"",
                                        "null",
                                        "\" repair_softening \"",
                                        "\"Attack_Attack\""};

/* A random corpus of n samples in release-like JSONL. */
static void random_corpus(rescue_buf *b, int n) {
  static const char *const groups[] = {"alpha_and_beta", "gamma", "family_therapy/007", "delta"};
  int s, r;
  for (s = 0; s < n; s++) {
    char id[96];
    int rows = 1 + (int)rnd(30), with_pattern = (int)rnd(3) != 0;
    snprintf(id, sizeof id, "%s/s%03d", PICK(groups), s);
    tt_sample_open(b, id, rnd(2) ? "\"source_file\": \"x/y.json\"" : NULL);
    for (r = 0; r < rows; r++) {
      rescue_buf extra = RESCUE_BUF_INIT, tg = RESCUE_BUF_INIT;
      const char *spk = rnd(3) ? PICK(names) : "\"Therapist\"";
      rand_list(&tg, 2, name_item);
      rescue_buf_puts(&extra, "\"background_dialogue\": ");
      rand_list(&extra, 2, bg_item);
      rescue_buf_printf(&extra, ", \"tone_of_voice\": %s, \"body_posture\": ", PICK(texts));
      rand_list(&extra, 2, person_item);
      rescue_buf_puts(&extra, ", \"facial_expressions\": ");
      rand_list(&extra, 1, person_item);
      rescue_buf_puts(&extra, ", \"self_directed_behavior\": ");
      rand_list(&extra, 1, person_item);
      rescue_buf_puts(&extra, ", \"interaction_behavior\": ");
      rand_list(&extra, 2, inter_item);
      rescue_buf_puts(&extra, ", \"internal_emotion\": ");
      rand_list(&extra, 3, emo_item);
      rescue_buf_puts(&extra, ", \"viewpoints_attitudes\": ");
      rand_list(&extra, 2, view_item);
      rescue_buf_puts(&extra, ", \"support_strategy\": ");
      rand_list(&extra, 2, sup_item);
      if (rnd(2))
        rescue_buf_printf(&extra, ", \"relation_cycle_state\": %s, \"relation_cycle_reason\": %s",
                          PICK(relations), PICK(texts));
      if (with_pattern)
        rescue_buf_printf(&extra,
                          ", \"relation_pattern\": %s, \"relation_pattern_reason\": %s, "
                          "\"relation_pattern_evidence_rows\": %s",
                          PICK(relations), PICK(texts), rnd(2) ? "[1, 3]" : "null");
      /* dialogue_cleaned is written by tt_row from plain text; pick a plain one */
      tt_row(b, spk, tg.s, rnd(2) ? "I don't think it's fair, truly" : "ok then", extra.s);
      rescue_buf_clear(&extra);
      rescue_buf_clear(&tg);
    }
    tt_sample_close(b);
  }
}

START_TEST(test_differential_python) {
  rescue_buf b = RESCUE_BUF_INIT;
  char *db, *out, *dir, cmd[8192], in[4096];
  rescue_tasks_opts o;
  rescue_tasks_result res;
  long seen[RESCUE_TASK_COUNT] = {0};
  int t, round;
  /* the reference implementation is a test tool .ci/deps installs: its absence fails */
  ck_assert_msg(access("/usr/bin/python3", X_OK) == 0,
                "/usr/bin/python3 not found (.ci/deps installs it)");
  for (round = 0; round < 3; round++) {
    rng_state = 0x5eed0000u + (uint64_t)round;
    rescue_buf_reset(&b);
    random_corpus(&b, 40);
    db = tt_corpus(b.s);
    snprintf(in, sizeof in, "%s.in.jsonl", db);
    rescue_tasks_opts_init(&o);
    o.clip_root = round == 1 ? NULL : "/clips/root";
    out = tt_export(db, &o, &res);
    for (t = 0; t < RESCUE_TASK_COUNT; t++)
      seen[t] += res.instances[t];
    dir = tu_tmpdir();
    snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s/tests/ref_tasks.py %s %s %s", RESCUE_SOURCE_DIR,
             dir, o.clip_root ? o.clip_root : "-", in);
    ck_assert_int_eq(system(cmd), 0);
    for (t = 0; t < RESCUE_TASK_COUNT; t++) {
      char name[32];
      snprintf(name, sizeof name, "%s.jsonl", rescue_task_name((rescue_task)t));
      ck_assert_msg(tu_same_file(tu_path(out, name), tu_path(dir, name)),
                    "round %d: %s differs from ref_tasks.py (%s vs %s)", round, name,
                    tu_path(out, name), tu_path(dir, name));
    }
    free(dir);
    free(out);
    free(db);
  }
  /* the comparison means something only if every task had instances */
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    ck_assert_msg(seen[t] > 20, "%s: only %ld instances", rescue_task_name((rescue_task)t),
                  seen[t]);
  rescue_buf_clear(&b);
}
END_TEST

/* ---- the command line ---- */

START_TEST(test_cli_export_tasks) {
  char *db = itp_corpus(), *dir = tu_tmpdir(), *out = NULL, *err = NULL, copy[4096], o[4096];
  struct stat sb;
  int rc;
  snprintf(copy, sizeof copy, "%s/copy.db", dir);
  snprintf(o, sizeof o, "%s/t", dir);
  {
    size_t len;
    char *data = tu_read(db, &len);
    tu_write_n(copy, data, len);
    free(data);
  }
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", o, "--tasks", "itp,er",
                 NULL);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_ptr_nonnull(strstr(out, "wrote itp 14, er 0 instances from 5 samples to "));
  ck_assert_int_eq(access(tu_path(o, "itp.jsonl"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(o, "er.jsonl"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(o, "vp.jsonl"), F_OK), 0);
  ck_assert(tu_same_corpus_except_log(db, copy)); /* only the export's log entry is new */
  free(out);
  free(err);
  /* a non-empty folder is refused without --force, and left alone */
  tu_write(tu_path(o, "keep.txt"), "mine");
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", o, NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: export: "));
  ck_assert_int_eq(access(tu_path(o, "keep.txt"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(o, "rpp.jsonl"), F_OK), 0);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", o, "--force", NULL);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_int_ne(access(tu_path(o, "keep.txt"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(o, "rpp.jsonl"), F_OK), 0);
  free(out);
  free(err);
  /* failures leave the output folder as it was */
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", o, "--force", "--split",
                 "train", NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_str_eq(err, "rescue: export: the corpus has no split yet; run 'rescue split' first\n");
  ck_assert_int_eq(access(tu_path(o, "rpp.jsonl"), F_OK), 0);
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", tu_path(dir, "new"),
                 "--samples", "c/itp1,no/such", NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'no/such'"));
  ck_assert_int_ne(stat(tu_path(dir, "new"), &sb), 0);
  free(out);
  free(err);
  /* usage errors: exit 2 with the usage text */
  {
    static const char *const bad[][3] = {
        {"--tasks", "itp,xyz", "unknown task 'xyz'"},
        {"--split", "dev", "unknown split 'dev'"},
        {"--min-dialogue-words", "-1", "--min-dialogue-words expects a whole number from 0"},
        {"--checkpoints-per-sample", "x", "--checkpoints-per-sample expects a whole number"},
        {"--itp-cap-per-class", "2.5", "--itp-cap-per-class expects a whole number"}};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", tu_path(dir, "u"),
                     bad[i][0], bad[i][1], NULL);
      ck_assert_int_eq(rc, 2);
      ck_assert_msg(strstr(err, bad[i][2]) != NULL, "%s", err);
      ck_assert_ptr_nonnull(strstr(err, "usage: rescue export"));
      free(out);
      free(err);
    }
  }
  rc = tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", tu_path(dir, "s.jsonl"),
                 "--tasks", "itp", NULL);
  ck_assert_int_eq(rc, 2);
  ck_assert_ptr_nonnull(strstr(err, "--tasks applies to --format tasks only"));
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "export", "-h", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "--checkpoints-per-sample <n>"));
  ck_assert_ptr_nonnull(strstr(out, "samples|data-root|tasks"));
  ck_assert_str_eq(err, "");
  free(out);
  free(err);
  ck_assert(tu_same_corpus_except_log(db, copy));
  free(dir);
  free(db);
}
END_TEST

/* Every allocation point of an export, a split, a score and the label statistics fails
   cleanly: an out-of-memory error, no crash, no leak (ASan), and no output folder. */
START_TEST(test_alloc_failures) {
  rescue_buf b = RESCUE_BUF_INIT, g = RESCUE_BUF_INIT;
  char *db, *dir = tu_tmpdir(), out[4096], gold[4096], pred[4096];
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_tasks_opts o;
  rescue_tasks_result res;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  unsigned long n, total;
  int rc, step;
  random_corpus(&b, 6);
  db = tt_corpus(b.s);
  rescue_tasks_opts_init(&o);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  snprintf(out, sizeof out, "%s/clean", dir);
  rescue_alloc_fail_at(0);
  ck_assert_int_eq(rescue_export_tasks(st, out, &o, &res), 0);
  total = rescue_alloc_fail_at(0);
  ck_assert_uint_gt(total, 100);
  step = total > 3000 ? (int)(total / 3000) : 1;
  for (n = 1; n <= total; n += (unsigned long)step) {
    snprintf(out, sizeof out, "%s/o%lu", dir, n);
    rescue_alloc_fail_at(n);
    rc = rescue_export_tasks(st, out, &o, &res);
    rescue_alloc_fail_at(0);
    /* rescue_output reports a failed allocation in its path helpers as an I/O error */
    ck_assert_msg(rc == RESCUE_ENOMEM ||
                      (rc == RESCUE_EIO && strstr(rescue_store_errmsg(st), "allocate memory")),
                  "export, allocation %lu: rc %d (%s)", n, rc, rescue_store_errmsg(st));
    ck_assert_msg(access(out, F_OK) != 0, "allocation %lu: %s was left behind", n, out);
  }
  for (n = 1;; n++) {
    rescue_label_stats *ls = NULL;
    rescue_alloc_fail_at(n);
    rc = rescue_stats_labels(st, &view, &ls);
    rescue_alloc_fail_at(0);
    if (rc == 0) {
      rescue_stats_labels_free(&ls);
      break;
    }
    ck_assert_int_eq(rc, RESCUE_ENOMEM);
    ck_assert_ptr_null(ls);
  }
  for (n = 1;; n++) {
    rescue_split_opts so = {
        .ratios = {0.5, 0.25, 0.25}, .ratios_text = "0.5,0.25,0.25", .seed = 3, .stratify = 1};
    rescue_split_result sr;
    rescue_alloc_fail_at(n);
    rc = rescue_split_assign(st, &so, &sr);
    rescue_alloc_fail_at(0);
    if (rc == 0)
      break;
    ck_assert_int_eq(rc, RESCUE_ENOMEM);
  }
  rescue_store_close(&st);
  /* scoring: the clean export's STP file and a few predictions */
  snprintf(gold, sizeof gold, "%s/clean/stp.jsonl", dir);
  snprintf(pred, sizeof pred, "%s/pred.jsonl", dir);
  {
    json_t *recs = tt_jsonl(gold), *r;
    size_t i;
    json_array_foreach(recs, i, r)
        rescue_buf_printf(&g,
                          "{\"instance_id\": \"%s\", "
                          "\"target_top3\": [\"%s\", \"x\"]}\n",
                          tt_str(r, "instance_id"), tt_str(r, "gold_support_target"));
    json_decref(recs);
    tu_write(pred, g.s ? g.s : "");
  }
  for (n = 1;; n++) {
    rescue_score_report *rep = NULL;
    rescue_alloc_fail_at(n);
    rc = rescue_score_files(RESCUE_TASK_STP, gold, pred, NULL, &rep, &err);
    rescue_alloc_fail_at(0);
    if (rc == 0) {
      rescue_buf text = RESCUE_BUF_INIT;
      rescue_score_json(rep, &text);
      ck_assert(rescue_buf_ok(&text));
      rescue_buf_clear(&text);
      rescue_score_free(&rep);
      break;
    }
    ck_assert_int_eq(rc, RESCUE_ENOMEM);
    ck_assert_ptr_null(rep);
  }
  rescue_buf_clear(&b);
  rescue_buf_clear(&g);
  free(db);
  free(dir);
}
END_TEST

/*
** The one intensity reading (export/intensity_int.h): int(round(float(v))) kept in 0..10, as
** tests/ref_tasks.py and the scorer read it, for gold values and predictions alike.
*/
START_TEST(test_intensity_reading) {
  static const struct {
    const char *json;
    int want;
    const char *why; /* when want is -1 */
  } cases[] = {
      {"7", 7, NULL},
      {"7.5", 8, NULL}, /* half to even */
      {"6.5", 6, NULL},
      {"10.4", 10, NULL},
      {"10.6", -1, "outside 0..10"},
      {"-0.4", 0, NULL},
      {"-0.6", -1, "outside 0..10"},
      {"true", 1, NULL},
      {"false", 0, NULL},
      {"\" 7 \"", 7, NULL},
      {"\"1e1\"", 10, NULL},
      {"\"+3.0\"", 3, NULL},
      {"\"1_0\"", 10, NULL},    /* float("1_0") == 10.0 */
      {"\"\\u0667\"", 7, NULL}, /* ARABIC-INDIC DIGIT SEVEN */
      {"\"\\uff18\"", 8, NULL}, /* FULLWIDTH DIGIT EIGHT */
      {"\"1__0\"", -1, "a string that is not a number"},
      {"\"_1\"", -1, "a string that is not a number"},
      {"\"0x5\"", -1, "a string that is not a number"},
      {"\"5e\"", -1, "a string that is not a number"},
      {"\"\"", -1, "a string that is not a number"},
      {"\"seven\"", -1, "a string that is not a number"},
      {"\"nan\"", -1, "not finite"},
      {"\"-Infinity\"", -1, "not finite"},
      {"null", -1, "null"},
      {"[7]", -1, "a list"},
      {"{\"v\": 7}", -1, "an object"},
  };
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_buf tmp = RESCUE_BUF_INIT;
  rescue_jerror je;
  size_t i;
  const char *why;
  ck_assert_ptr_nonnull(d);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[64];
    const rescue_jnode *v;
    int got;
    snprintf(text, sizeof text, "[%s]", cases[i].json); /* the reader wants an array or object */
    v = rescue_jparse(d, text, strlen(text), &je);
    ck_assert_msg(v != NULL, "%s: %s", cases[i].json, je.msg);
    v = v->child;
    why = NULL;
    got = rescue_intensity(v, &tmp, &why);
    ck_assert_msg(got == cases[i].want, "%s: %d, not %d", cases[i].json, got, cases[i].want);
    if (cases[i].want < 0)
      ck_assert_msg(why && strcmp(why, cases[i].why) == 0, "%s: why '%s'", cases[i].json,
                    why ? why : "(none)");
  }
  ck_assert_int_eq(rescue_intensity(NULL, &tmp, &why), -1);
  ck_assert_str_eq(why, "absent");
  rescue_buf_clear(&tmp);
  rescue_jdoc_free(&d);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tasks");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_sha256_vectors);
  tcase_add_test(t, test_intensity_reading);
  tcase_add_test(t, test_itp_rules);
  tcase_add_test(t, test_er_rules);
  tcase_add_test(t, test_vp_rules);
  tcase_add_test(t, test_rpp_rules);
  tcase_add_test(t, test_stp_ssp_rules);
  tcase_add_test(t, test_cleaning_text_source_couple);
  tcase_add_test(t, test_clips_from_store);
  tcase_add_test(t, test_differential_python);
  tcase_add_test(t, test_cli_export_tasks);
  tcase_add_test(t, test_alloc_failures);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
