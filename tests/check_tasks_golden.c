/*
** check_tasks_golden.c: the task datasets on the release fixtures: the golden ER/VP
** records byte for byte, the instance counts of fixtures/rescue-bench/README.md, record
** keys, context windows and leakage, determinism, the manifest and the dataset card.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskutil.h"

#define GOLDEN_CLIP_ROOT "/Users/tomhu/VsCode/couple_esc/manual_review_system/review_assets"

/* The release fixtures as one corpus (couple-first3 + family-first1). */
static char *fixture_corpus(void) {
  const char *fx = tu_fixtures();
  char path[4096];
  size_t a, b;
  char *x, *y, *all, *db;
  snprintf(path, sizeof path, "%s/rescue-bench/couple-first3.jsonl", fx);
  x = tu_read(path, &a);
  snprintf(path, sizeof path, "%s/rescue-bench/family-first1.jsonl", fx);
  y = tu_read(path, &b);
  ck_assert(x && y);
  all = malloc(a + b + 1);
  memcpy(all, x, a);
  memcpy(all + a, y, b + 1);
  db = tt_corpus(all);
  free(x);
  free(y);
  free(all);
  return db;
}

START_TEST(test_golden_er_vp) {
  const char *fx = tu_fixtures();
  char *db = fixture_corpus(), *out, *got, *want, path[4096];
  rescue_tasks_opts o;
  rescue_tasks_opts_init(&o);
  o.clip_root = GOLDEN_CLIP_ROOT;
  o.tasks = (1u << RESCUE_TASK_ER) | (1u << RESCUE_TASK_VP);
  out = tt_export(db, &o, NULL);
  got = tt_lines_with(tu_path(out, "er.jsonl"),
                      "{\"sample_id\": \"alan_and_evelyn/001_s01e01_ct25_segment04\"");
  snprintf(path, sizeof path, "%s/rescue-bench/golden-er-sample1.jsonl", fx);
  want = tu_read(path, NULL);
  ck_assert_msg(want && strcmp(got, want) == 0, "ER records differ from the golden file");
  free(got);
  free(want);
  got = tt_lines_with(tu_path(out, "vp.jsonl"),
                      "{\"sample_id\": \"alan_and_evelyn/001_s01e01_ct25_segment04\"");
  snprintf(path, sizeof path, "%s/rescue-bench/golden-vp-sample1.jsonl", fx);
  want = tu_read(path, NULL);
  ck_assert_msg(want && strcmp(got, want) == 0, "VP records differ from the golden file");
  free(got);
  free(want);
  /* the same with a trailing slash on the clip root */
  o.clip_root = GOLDEN_CLIP_ROOT "/";
  free(out);
  out = tt_export(db, &o, NULL);
  got = tt_lines_with(tu_path(out, "er.jsonl"),
                      "{\"sample_id\": \"alan_and_evelyn/001_s01e01_ct25_segment04\"");
  snprintf(path, sizeof path, "%s/rescue-bench/golden-er-sample1.jsonl", fx);
  want = tu_read(path, NULL);
  ck_assert(strcmp(got, want) == 0);
  free(got);
  free(want);
  free(out);
  free(db);
}
END_TEST

/* Records of a task file per scenario, and ITP yes per scenario. */
static void count_file(const char *path, long per[2], long yes[2]) {
  json_t *recs = tt_jsonl(path), *r;
  size_t i;
  per[0] = per[1] = yes[0] = yes[1] = 0;
  json_array_foreach(recs, i, r) {
    int fam = strcmp(tt_str(r, "scenario"), "family") == 0;
    json_t *g = json_object_get(r, "gold_should_speak");
    per[fam]++;
    if (g && strcmp(json_string_value(g), "yes") == 0)
      yes[fam]++;
  }
  json_decref(recs);
}

START_TEST(test_fixture_counts) {
  /* fixtures/rescue-bench/README.md: ITP 30 (15/15) / 12 (6/6), RPP 23/59, STP 18/33,
     SSP 18/33, ER 13/5, VP 15/5 */
  static const long want[RESCUE_TASK_COUNT][2] = {{30, 12}, {23, 59}, {18, 33},
                                                  {18, 33}, {13, 5},  {15, 5}};
  char *db = fixture_corpus(), *out, name[32];
  rescue_tasks_result res;
  long per[2], yes[2];
  int t;
  out = tt_export(db, NULL, &res);
  ck_assert_int_eq(res.samples, 4);
  for (t = 0; t < RESCUE_TASK_COUNT; t++) {
    snprintf(name, sizeof name, "%s.jsonl", rescue_task_name((rescue_task)t));
    count_file(tu_path(out, name), per, yes);
    ck_assert_msg(per[0] == want[t][0] && per[1] == want[t][1], "%s: %ld/%ld, want %ld/%ld", name,
                  per[0], per[1], want[t][0], want[t][1]);
    ck_assert_int_eq(res.instances[t], want[t][0] + want[t][1]);
    if (t == RESCUE_TASK_ITP) {
      ck_assert_int_eq(yes[0], 15);
      ck_assert_int_eq(yes[1], 6);
    }
  }
  ck_assert_int_eq(res.itp_yes, 21);
  free(out);
  free(db);
}
END_TEST

/* The keys of a record in order, joined by ','. */
static void key_order(json_t *o, char *buf, size_t n) {
  const char *k;
  json_t *v;
  buf[0] = 0;
  json_object_foreach(o, k, v) {
    if (buf[0])
      strncat(buf, ",", n - strlen(buf) - 1);
    strncat(buf, k, n - strlen(buf) - 1);
  }
}

START_TEST(test_keys_context_and_leakage) {
  static const char *const keys[RESCUE_TASK_COUNT] = {
      "task,instance_id,sample_id,couple,scenario,participants,context_end_row_index,timestamp,"
      "speaker,dialogue,prior_context,gold_should_speak,gold_candidate_type,gold_boundary_type,"
      "gold_next_row_index,source_sample_id,source_file",
      "task,instance_id,sample_id,couple,scenario,participants,row_index,timestamp,"
      "target_primary_speaker,candidate_relation_labels,prior_context,gold_relation_pattern,"
      "gold_reason,gold_evidence_rows,source_sample_id,source_file",
      "task,instance_id,sample_id,couple,scenario,participants,row_index,timestamp,"
      "candidate_target_labels,prior_context,gold_support_target,gold_target_tuple,"
      "gold_target_source,source_sample_id,source_file",
      "task,instance_id,sample_id,couple,scenario,participants,row_index,timestamp,"
      "known_support_target,candidate_strategy_labels,prior_context,gold_support_strategy,"
      "source_sample_id,source_file",
      "sample_id,couple,row_index,timestamp,speaker,target,dialogue,background_dialogue,"
      "tone_of_voice,body_posture,facial_expressions,self_directed_behavior,"
      "interaction_behavior,prior_context,gold_internal_emotion,gold_intensity_score,clip_path,"
      "clip_duration_sec,task,instance_id,scenario,source_sample_id,source_file",
      "sample_id,couple,row_index,timestamp,speaker,participants,target,dialogue,"
      "background_dialogue,tone_of_voice,body_posture,facial_expressions,"
      "self_directed_behavior,interaction_behavior,prior_context,gold_viewpoints,clip_path,"
      "clip_duration_sec,task,instance_id,scenario,source_sample_id,source_file"};
  static const char *const record_keys =
      "row_index,timestamp,primary_speaker,target,dialogue_cleaned,background_dialogue,"
      "tone_of_voice,body_posture,facial_expressions,self_directed_behavior,"
      "interaction_behavior,clip_path,clip_duration_sec";
  char *db = fixture_corpus(), *out, name[32], got[1024];
  int t;
  out = tt_export(db, NULL, NULL);
  for (t = 0; t < RESCUE_TASK_COUNT; t++) {
    json_t *recs, *r;
    size_t i;
    snprintf(name, sizeof name, "%s.jsonl", rescue_task_name((rescue_task)t));
    recs = tt_jsonl(tu_path(out, name));
    json_array_foreach(recs, i, r) {
      json_t *ctx = json_object_get(r, "prior_context"), *c;
      const char *id = tt_str(r, "instance_id"), *sid = tt_str(r, "sample_id");
      long long row =
          t == RESCUE_TASK_ITP ? tt_int(r, "context_end_row_index") : tt_int(r, "row_index");
      long long want_ctx;
      size_t j;
      char want_id[512];
      key_order(r, got, sizeof got);
      ck_assert_msg(strcmp(got, keys[t]) == 0, "%s keys: %s", name, got);
      ck_assert_str_eq(tt_str(r, "task"), rescue_task_name((rescue_task)t));
      ck_assert_str_eq(tt_str(r, "source_sample_id"), sid);
      snprintf(want_id, sizeof want_id, "%s__%s%lld", sid,
               t == RESCUE_TASK_ITP ? "after_row" : "row", row);
      ck_assert_str_eq(id, want_id);
      /* the context rule of export/TASKS.md §3 */
      want_ctx = t == RESCUE_TASK_ITP   ? row
                 : t == RESCUE_TASK_RPP ? row /* the fixtures carry relation_pattern */
                                        : row - 1;
      ck_assert_int_eq((long long)json_array_size(ctx), want_ctx);
      json_array_foreach(ctx, j, c) {
        key_order(c, got, sizeof got);
        ck_assert_str_eq(got, record_keys);
        ck_assert_int_eq(tt_int(c, "row_index"), (long long)j + 1);
      }
      /* no leakage: only gold_* keys (and ER/VP's release fields) may carry class words */
      if (t == RESCUE_TASK_ITP) {
        ck_assert(!strstr(id, "pos") && !strstr(id, "neg"));
        ck_assert_ptr_null(json_object_get(r, "candidate_type"));
        ck_assert_ptr_null(json_object_get(r, "boundary_type"));
        ck_assert_int_eq(tt_int(r, "gold_next_row_index"), row + 1);
      }
    }
    json_decref(recs);
  }
  free(out);
  free(db);
}
END_TEST

START_TEST(test_deterministic_manifest_card) {
  char *db = fixture_corpus(), *a, *b, *man;
  json_t *m, *files, *f;
  json_error_t je;
  size_t i;
  static const char *const names[] = {"README.md", "manifest.json", "itp.jsonl", "rpp.jsonl",
                                      "stp.jsonl", "ssp.jsonl",     "er.jsonl",  "vp.jsonl"};
  a = tt_export(db, NULL, NULL);
  b = tt_export(db, NULL, NULL);
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    ck_assert_msg(tu_same_file(tu_path(a, names[i]), tu_path(b, names[i])), "%s differs", names[i]);
  man = tu_read(tu_path(a, "manifest.json"), NULL);
  m = json_loads(man, 0, &je);
  ck_assert_msg(m != NULL, "manifest: %s", je.text);
  ck_assert_str_eq(tt_str(m, "tool"), "rescue");
  ck_assert_str_eq(tt_str(m, "tool_version"), RESCUE_VERSION_STRING);
  files = json_object_get(m, "files");
  ck_assert_int_eq((int)json_array_size(files), 7); /* six tasks and the card */
  json_array_foreach(files, i, f) {
    size_t len, k;
    char *data = tu_read(tu_path(a, tt_str(f, "path")), &len), hex[65];
    long lines = 0;
    rescue_sha256 h;
    ck_assert_ptr_nonnull(data);
    for (k = 0; k < len; k++)
      lines += data[k] == '\n';
    rescue_sha256_init(&h);
    rescue_sha256_update(&h, data, len);
    rescue_sha256_hex(&h, hex);
    ck_assert_str_eq(tt_str(f, "sha256"), hex);
    ck_assert_int_eq(tt_int(f, "bytes"), (long long)len);
    ck_assert_int_eq(tt_int(f, "lines"), lines);
    if (i)
      ck_assert(strcmp(tt_str(json_array_get(files, i - 1), "path"), tt_str(f, "path")) < 0);
    free(data);
  }
  json_decref(m);
  free(man);
  /* the card: YAML header with one config per task, counts per scenario, label sets */
  man = tu_read(tu_path(a, "README.md"), NULL);
  ck_assert(strncmp(man, "---\npretty_name: ", 17) == 0);
  ck_assert_ptr_nonnull(strstr(man, "- config_name: itp\n  data_files: itp.jsonl\n"));
  ck_assert_ptr_nonnull(strstr(man, "- config_name: vp\n  data_files: vp.jsonl\n"));
  ck_assert_ptr_nonnull(strstr(man, "| rpp | - | `rpp.jsonl` | 82 | 23 | 59 |"));
  ck_assert_ptr_nonnull(strstr(man, "| itp | - | `itp.jsonl` | 42 (21 yes, 21 no) | 30 | 12 |"));
  ck_assert_ptr_nonnull(strstr(man, "| `cooperative_family_alliance` |"));
  ck_assert_ptr_nonnull(strstr(man, "| `goal_align` |"));
  ck_assert_ptr_nonnull(strstr(man, "| `--checkpoints-per-sample` | 5 |"));
  free(man);
  free(a);
  free(b);
  free(db);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("tasks_golden");
  TCase *t = tcase_create("fixtures");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_golden_er_vp);
  tcase_add_test(t, test_fixture_counts);
  tcase_add_test(t, test_keys_context_and_leakage);
  tcase_add_test(t, test_deterministic_manifest_card);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  tu_fixtures(); /* skips (77) without the fixtures */
  return tu_run_suite(suite());
}
