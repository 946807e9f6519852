/*
** check_export_card.c: exports that say what they contain, on the real release samples:
** provenance in the dataset card and manifest (gold vs latest rows, policies, annotators,
** agreement with its interval, version and command line), the missing-clip warning and
** --require-clips, an export that would write nothing, --out - on stdout, and --blind test
** sets whose answers `rescue score --gold` reads.
*/
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "taskutil.h"

/* Does the JSON text of v contain needle? (the text is freed again) */
static int dump_has(const json_t *v, const char *needle) {
  char *t = json_dumps(v, 0);
  int found = t && strstr(t, needle) != NULL;
  free(t);
  return found;
}

/* A corpus holding couple-first3 (imported as the draft, no annotator). */
static char *fixture_corpus(char **jsonl_out) {
  char path[4096], *text, *db;
  snprintf(path, sizeof path, "%s/rescue-bench/couple-first3.jsonl", tu_fixtures());
  text = tu_read(path, NULL);
  ck_assert_ptr_nonnull(text);
  db = tt_corpus(text);
  if (jsonl_out)
    *jsonl_out = text;
  else
    free(text);
  return db;
}

static json_t *load_json(const char *path) {
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  ck_assert_msg(j != NULL, "%s: %s", path, je.text);
  return j;
}

/* Two coders who disagree on a few rows, majority adjudication. */
START_TEST(test_provenance) {
  char *text, *db = fixture_corpus(&text), *out = NULL, *err = NULL, *dir = tu_tmpdir(), *bob, *p;
  char exp[4096], in_a[4096], in_b[4096];
  json_t *m, *prov, *ann, *agr, *f;
  size_t i;
  long gold, latest;
  int with_ci = 0, rc;
  snprintf(in_a, sizeof in_a, "%s/alice.jsonl", dir);
  snprintf(in_b, sizeof in_b, "%s/bob.jsonl", dir);
  tu_write(in_a, text);
  /* bob labels three utterance types differently */
  {
    rescue_buf b = RESCUE_BUF_INIT;
    const char *q = text, *hit, *from = "\"utterance_type\": \"disclosure\"";
    for (i = 0; i < 3 && (hit = strstr(q, from)); i++) {
      rescue_buf_putn(&b, q, (size_t)(hit - q));
      rescue_buf_puts(&b, "\"utterance_type\": \"defense\"");
      q = hit + strlen(from);
    }
    ck_assert_int_eq((int)i, 3);
    rescue_buf_puts(&b, q);
    bob = rescue_buf_detach(&b);
  }
  tu_write(in_b, bob);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "alice", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, in_a, "--annotator", "alice", NULL), 0);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, in_b, "--annotator", "bob", NULL), 0);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "majority", NULL), 0);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/tasks", dir);
  rc = tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL);
  ck_assert_msg(rc == 0, "%s", err);
  ck_assert_ptr_null(strstr(err, "no row is adjudicated"));
  free(out);
  free(err);
  m = load_json(tu_path(exp, "manifest.json"));
  prov = json_object_get(m, "provenance");
  ck_assert_ptr_nonnull(prov);
  gold = (long)tt_int(prov, "rows_gold");
  latest = (long)tt_int(prov, "rows_latest");
  ck_assert_int_eq(gold + latest, 16 + 17 + 36);
  ck_assert_int_gt(gold, 0); /* adjudication is per field: every row gets a gold version */
  ck_assert_int_eq((int)tt_int(json_object_get(prov, "gold_policies"), "majority"), (int)gold);
  ck_assert_str_eq(tt_str(prov, "tool_version"), RESCUE_VERSION_STRING);
  ck_assert_ptr_nonnull(strstr(tt_str(prov, "command_line"), "rescue export "));
  ck_assert_ptr_nonnull(strstr(tt_str(prov, "command_line"), "--format tasks"));
  ann = json_object_get(prov, "annotators");
  {
    long sum = 0, alice = 0, bobs = 0;
    json_t *a;
    json_array_foreach(ann, i, a) {
      sum += (long)tt_int(a, "rows_shown");
      if (!strcmp(tt_str(a, "name"), "alice"))
        alice = (long)tt_int(a, "rows_annotated");
      if (!strcmp(tt_str(a, "name"), "bob"))
        bobs = (long)tt_int(a, "rows_annotated");
    }
    ck_assert_int_eq(sum, gold + latest);
    ck_assert_int_eq(alice, 69);
    ck_assert_int_eq(bobs, 69);
  }
  agr = json_object_get(prov, "agreement");
  ck_assert_msg(json_is_array(agr), "agreement: %s",
                json_string_value(json_object_get(prov, "agreement_note")));
  json_array_foreach(agr, i, f) if (!strcmp(tt_str(f, "field"), "utterance_type")) {
    ck_assert_str_eq(tt_str(f, "status"), "ok");
    ck_assert(json_is_number(json_object_get(f, "alpha")));
    ck_assert(json_number_value(json_object_get(f, "alpha")) < 1.0);
    with_ci = json_is_number(json_object_get(f, "ci_low")) &&
              json_is_number(json_object_get(f, "ci_high"));
  }
  ck_assert_msg(with_ci, "utterance_type has no interval");
  /* the card says the same */
  p = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(p, "## Annotation provenance"));
  {
    char want[200];
    snprintf(want, sizeof want, "Of the 69 rows of the samples used, %ld (", gold);
    ck_assert_msg(strstr(p, want) != NULL, "card lacks '%s'", want);
  }
  ck_assert_ptr_nonnull(strstr(p, "Gold rows by how they were decided: agreed by all coders "));
  ck_assert_ptr_nonnull(strstr(p, "| alice | annotator | 69 |"));
  ck_assert_ptr_nonnull(strstr(p, "| utterance_type | nominal | ok |"));
  ck_assert_ptr_nonnull(strstr(p, "95%: "));
  ck_assert_ptr_nonnull(strstr(p, "Command: `rescue export "));
  free(p);
  json_decref(m);
  rescue_free(bob);
  free(text);
  free(db);
  free(dir);
}
END_TEST

/*
** Two coders and a lead: gold rows counted by how they were decided (68 where alice and bob
** agree; the one row they differ on decided by lena, the lead, by policy lead), lena in the
** annotator table, the draft named as the draft. On the previous main the card said
** "majority 68, lead 1", left lena out and listed the draft as an annotator "import".
** The pseudonymised export's card states the same counts with the people as "person N"
** (it said "nothing is adjudicated", being written from the copy's import).
*/
START_TEST(test_card_counts_decisions) {
  char *text, *db = fixture_corpus(&text), *out = NULL, *err = NULL, *dir = tu_tmpdir(), *card;
  const char *s1 = "alan_and_evelyn/001_s01e01_ct25_segment04";
  char exp[4096], *bob, *hit, *nl;
  json_t *m, *a;
  size_t i;
  long lena = -1;
  bob = strdup(text);
  hit = strstr(bob, "\"utterance_type\": \"disclosure\"");
  ck_assert_ptr_nonnull(hit);
  memcpy(hit, "\"utterance_type\": \"defense\"   ", strlen("\"utterance_type\": \"disclosure\""));
  tu_write(tu_path(dir, "alice.jsonl"), text);
  tu_write(tu_path(dir, "bob.jsonl"), bob);
  nl = strchr(bob, '\n');
  ck_assert_ptr_nonnull(nl);
  nl[1] = 0; /* the lead's version of the first sample: bob's */
  ck_assert_ptr_nonnull(strstr(bob, s1));
  tu_write(tu_path(dir, "lena.jsonl"), bob);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "alice", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "alice.jsonl"), "--annotator",
                             "alice", NULL),
                   0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bob.jsonl"), "--annotator", "bob", NULL),
      0);
  tu_rescue(NULL, NULL, "adjudicate", db, "--policy", "majority", "--coders", "alice,bob", NULL);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "lena.jsonl"), "--annotator", "lena", NULL),
      0);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lena",
                             "--samples", s1, NULL),
                   0);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/t", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  free(out);
  free(err);
  card = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_msg(strstr(card, "Gold rows by how they were decided: agreed by all coders 68, "
                             "decided by lead lena 1. Gold segmentation (the row set gold rows are "
                             "in): the row set every coder shares in 3 samples.\n"),
                "%s", card);
  ck_assert_msg(strstr(card, "| lena | lead | 16 | 0 | 1 |\n"), "%s", card);
  ck_assert_msg(strstr(card, "| the draft (the imported file) | draft | 69 | 0 | 0 |\n"), "%s",
                card);
  ck_assert_msg(!strstr(card, "| import |"), "%s", card);
  m = load_json(tu_path(exp, "manifest.json"));
  ck_assert_int_eq((int)tt_int(json_object_get(m, "provenance"), "gold_agreed"), 68);
  json_array_foreach(json_object_get(json_object_get(m, "provenance"), "annotators"), i, a) {
    if (!strcmp(tt_str(a, "name"), "lena"))
      lena = (long)tt_int(a, "gold_rows_decided");
  }
  ck_assert_int_eq(lena, 1);
  json_decref(m);
  free(card);
  /* the pseudonymised export's card counts the same decisions, the people pseudonymised */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  snprintf(exp, sizeof exp, "%s/p", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp,
                             "--pseudonymise", NULL),
                   0);
  free(out);
  free(err);
  card = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_msg(!strstr(card, "nothing is adjudicated"), "%s", card);
  ck_assert_msg(strstr(card, "of the samples used, 69 (100.0%) are adjudicated gold"), "%s", card);
  ck_assert_msg(strstr(card, "Gold rows by how they were decided: agreed by all coders 68, "
                             "decided by lead person "),
                "%s", card);
  hit = strstr(card, "decided by lead person ");
  ck_assert_ptr_nonnull(hit);
  {
    char row[64];
    int k = atoi(hit + strlen("decided by lead person "));
    ck_assert_int_gt(k, 0);
    snprintf(row, sizeof row, "| person %d | lead | 16 | 0 | 1 |\n", k);
    ck_assert_msg(strstr(card, row), "%s", card);
  }
  ck_assert_msg(strstr(card, "| the draft (the imported file) | draft | 69 | 0 | 0 |\n"), "%s",
                card);
  ck_assert_msg(strstr(card, "| adjudication | lead | 0 | 69 | 0 |\n"), "%s", card);
  ck_assert_msg(!strstr(card, "lena") && !strstr(card, "alice") && !strstr(card, "bob"), "%s",
                card);
  ck_assert_msg(!strstr(card, "not computed"), "%s", card); /* agreement of alice and bob */
  free(card);
  free(bob);
  free(text);
  free(db);
  free(dir);
}
END_TEST

/* Nothing adjudicated: the card says so, the CLI warns; no agreement without two coders. */
START_TEST(test_nothing_adjudicated) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL, *card;
  char exp[4096];
  json_t *m, *prov;
  snprintf(exp, sizeof exp, "%s/t", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  ck_assert_ptr_nonnull(strstr(err, "warning: no row is adjudicated gold"));
  free(out);
  free(err);
  card = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(card, "0 (0.0%) are adjudicated gold and 69 (100.0%)"));
  ck_assert_ptr_nonnull(strstr(card, "nothing is adjudicated"));
  ck_assert_ptr_nonnull(strstr(card, "not computed: the corpus has 1 human coder"));
  m = load_json(tu_path(exp, "manifest.json"));
  prov = json_object_get(m, "provenance");
  ck_assert_int_eq((int)tt_int(prov, "rows_gold"), 0);
  ck_assert(json_is_null(json_object_get(prov, "agreement")));
  json_decref(m);
  free(card);
  free(db);
  free(dir);
}
END_TEST

/* ER and VP without clips: a warning with the count; --require-clips fails, leaves nothing. */
START_TEST(test_missing_clips) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  char exp[4096];
  json_t *m;
  snprintf(exp, sizeof exp, "%s/a", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  ck_assert_ptr_nonnull(strstr(err, "warning: 28 ER/VP records written without a clip_path"));
  free(out);
  free(err);
  m = load_json(tu_path(exp, "manifest.json"));
  ck_assert_int_eq((int)tt_int(json_object_get(m, "provenance"), "missing_clips"), 28);
  json_decref(m);
  snprintf(exp, sizeof exp, "%s/b", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp,
                             "--require-clips", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: export: 28 ER/VP records would have no clip_path "
                                    "(--require-clips)"));
  ck_assert_int_ne(access(exp, F_OK), 0);
  free(out);
  free(err);
  /* with a clip root every record has a path: no warning, --require-clips passes */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp,
                             "--require-clips", "--clip-root", "/data/clips", NULL),
                   0);
  ck_assert_ptr_null(strstr(err, "clip_path"));
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* An export that would write nothing is an error with the reason; nothing is created. */
START_TEST(test_empty_export) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  char exp[4096];
  snprintf(exp, sizeof exp, "%s/gold", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, "--view",
                             "gold", NULL),
                   1);
  ck_assert_msg(strstr(err, "nothing to export: no sample can be used (3 without a version of "
                            "every row in view 'gold': nothing adjudicated yet?"),
                "%s", err);
  ck_assert_int_ne(access(exp, F_OK), 0);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/gold.jsonl", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", exp,
                             "--view", "gold", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "nothing to export"));
  ck_assert_int_ne(access(exp, F_OK), 0);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* --out -: samples JSONL and one task's records on stdout, the same bytes as the files. */
START_TEST(test_stdout) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL, *file;
  char exp[4096];
  snprintf(exp, sizeof exp, "%s/s.jsonl", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", exp, NULL),
                   0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", "-", NULL),
                   0);
  file = tu_read(exp, NULL);
  ck_assert_str_eq(out, file);
  ck_assert_ptr_nonnull(strstr(err, "wrote 3 samples (69 rows) to stdout"));
  ck_assert_int_ne(access("-", F_OK), 0);
  free(file);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/t", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--tasks", "rpp",
                             "--out", "-", NULL),
                   0);
  file = tu_read(tu_path(exp, "rpp.jsonl"), NULL);
  ck_assert_str_eq(out, file);
  ck_assert_ptr_nonnull(strstr(err, "wrote rpp 23 instances from 3 samples to stdout"));
  free(file);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", "-", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "a stream holds one task's records: choose it with --tasks"));
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "data-root", "--out", "-", NULL),
                   2);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* The values of a record's gold_* keys, as strings worth looking for (long enough to be
   telling), appended to list. */
static void gold_strings(json_t *v, json_t *list) {
  size_t i;
  const char *k;
  json_t *x;
  if (json_is_string(v) && strlen(json_string_value(v)) >= 12)
    json_array_append(list, v);
  else if (json_is_array(v))
    json_array_foreach(v, i, x) gold_strings(x, list);
  else if (json_is_object(v))
    json_object_foreach(v, k, x) gold_strings(x, list);
}

/* --blind: no gold in the task files; the answers score with `rescue score --gold`. */
START_TEST(test_blind) {
  static const char *const tasks[] = {"itp", "rpp", "stp", "ssp", "er", "vp"};
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  char exp[2048], path[4096], ans[4096], adir[2048];
  size_t t;
  json_t *m;
  snprintf(exp, sizeof exp, "%s/blind", dir);
  snprintf(adir, sizeof adir, "%s/answers", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, "--blind",
                             "--answers", adir, NULL),
                   0);
  free(out);
  free(err);
  for (t = 0; t < sizeof tasks / sizeof tasks[0]; t++) {
    json_t *blind, *answers, *r, *a, *secrets = json_array(), *s;
    char *text;
    size_t i;
    snprintf(path, sizeof path, "%s/%s.jsonl", exp, tasks[t]);
    snprintf(ans, sizeof ans, "%s/%s.answers.jsonl", adir, tasks[t]);
    blind = tt_jsonl(path);
    answers = tt_jsonl(ans);
    text = tu_read(path, NULL);
    ck_assert_int_eq((int)json_array_size(blind), (int)json_array_size(answers));
    ck_assert_int_gt((int)json_array_size(blind), 0);
    ck_assert_ptr_null(strstr(text, "\"gold_"));
    json_array_foreach(answers, i, a) {
      const char *k;
      json_t *v;
      r = json_array_get(blind, i);
      ck_assert_str_eq(tt_str(r, "instance_id"), tt_str(a, "instance_id"));
      /* the labels themselves are candidates (rpp, ssp) or participants (stp) by design */
      json_object_foreach(
          a, k, v) if (!strncmp(k, "gold_", 5) && strcmp(k, "gold_relation_pattern") &&
                       strcmp(k, "gold_support_strategy") && strcmp(k, "gold_support_target") &&
                       strcmp(k, "gold_target_tuple")) gold_strings(v, secrets);
    }
    /* no long gold value (reasons, emotion texts, viewpoints, ITP boundary types) leaks */
    json_array_foreach(secrets, i, s)
        ck_assert_msg(strstr(text, json_string_value(s)) == NULL,
                      "%s: gold value '%s' is in the blind file", tasks[t], json_string_value(s));
    if (!strcmp(tasks[t], "itp")) {
      ck_assert_ptr_null(strstr(text, "pos_after"));
      ck_assert_ptr_null(strstr(text, "neg_after"));
      ck_assert_ptr_null(strstr(text, "actual_therapist_entry"));
      ck_assert_ptr_null(strstr(text, "continue_listening"));
    }
    /* the answer file is a gold file: perfect predictions score 1 */
    if (strcmp(tasks[t], "vp") != 0) {
      rescue_buf b = RESCUE_BUF_INIT;
      json_error_t je;
      json_t *rep;
      const char *metric = !strcmp(tasks[t], "itp")   ? "accuracy"
                           : !strcmp(tasks[t], "rpp") ? "relation_recall_at_1"
                           : !strcmp(tasks[t], "stp") ? "target_recall_at_1"
                           : !strcmp(tasks[t], "ssp") ? "strategy_recall_at_1"
                                                      : "intensity_exact_rate";
      json_array_foreach(answers, i, a) {
        json_t *g = json_object_get(a, !strcmp(tasks[t], "itp")   ? "gold_should_speak"
                                       : !strcmp(tasks[t], "rpp") ? "gold_relation_pattern"
                                       : !strcmp(tasks[t], "stp") ? "gold_support_target"
                                       : !strcmp(tasks[t], "ssp") ? "gold_support_strategy"
                                                                  : "gold_intensity_score");
        char *gv = json_dumps(g, JSON_ENCODE_ANY);
        if (!strcmp(tasks[t], "itp") || !strcmp(tasks[t], "er"))
          rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"%s\": %s}\n", tt_str(a, "instance_id"),
                            !strcmp(tasks[t], "itp") ? "should_speak" : "predicted_intensity_score",
                            gv);
        else
          rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"%s_top3\": [%s]}\n",
                            tt_str(a, "instance_id"),
                            !strcmp(tasks[t], "rpp")   ? "relation"
                            : !strcmp(tasks[t], "stp") ? "target"
                                                       : "strategy",
                            gv);
        free(gv);
      }
      snprintf(path, sizeof path, "%s/%s.pred.jsonl", dir, tasks[t]);
      tu_write(path, b.s);
      rescue_buf_clear(&b);
      ck_assert_int_eq(
          tu_rescue(&out, &err, "score", tasks[t], "--gold", ans, "--pred", path, "--json", NULL),
          0);
      rep = json_loads(out, 0, &je);
      ck_assert_ptr_nonnull(rep);
      ck_assert_double_eq(
          json_number_value(json_object_get(json_object_get(rep, "overall"), metric)), 1.0);
      json_decref(rep);
      free(out);
      free(err);
      /* the blind file itself is refused as gold, with the hint */
      snprintf(path, sizeof path, "%s/%s.jsonl", exp, tasks[t]);
      ck_assert_int_eq(
          tu_rescue(&out, &err, "score", tasks[t], "--gold", path, "--pred", path, NULL), 1);
      ck_assert_ptr_nonnull(strstr(err, "a blind test file holds no answers"));
      free(out);
      free(err);
    }
    free(text);
    json_decref(secrets);
    json_decref(blind);
    json_decref(answers);
  }
  m = load_json(tu_path(exp, "manifest.json"));
  ck_assert(!dump_has(json_object_get(m, "files"), "rpp.answers.jsonl"));
  ck_assert(json_is_true(json_object_get(json_object_get(m, "provenance"), "blind")));
  json_decref(m);
  /* with a split run: <task>/<split>.answers.jsonl */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "split", db, "--ratios", "0.34,0.33,0.33", "--seed", "1", NULL), 0);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/blind-split", dir);
  snprintf(adir, sizeof adir, "%s/answers-split", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, "--blind",
                             "--answers", adir, NULL),
                   0);
  free(out);
  free(err);
  {
    int found = 0;
    const char *const splits[] = {"train", "validation", "test"};
    for (t = 0; t < 3; t++) {
      snprintf(path, sizeof path, "%s/rpp/%s.answers.jsonl", adir, splits[t]);
      found += access(path, F_OK) == 0;
    }
    ck_assert_int_ge(found, 1);
  }
  free(db);
  free(dir);
}
END_TEST

/*
** Issue 26 item 1: with a split run, one task and one split stream to stdout (README's own
** command) and equal that split's file of a folder export; nothing else is written.
*/
START_TEST(test_stream_split) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL, *file;
  char exp[4096], cwd[4096];
  ck_assert_int_eq(tu_rescue(&out, &err, "split", db, "--ratios", "0,0,1", "--seed", "1", NULL), 0);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/t", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  free(out);
  free(err);
  ck_assert_ptr_nonnull(getcwd(cwd, sizeof cwd));
  ck_assert_int_eq(chdir(dir), 0); /* a stray splits/ folder would land here */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--tasks", "rpp",
                             "--split", "test", "--out", "-", NULL),
                   0);
  ck_assert_int_eq(chdir(cwd), 0);
  file = tu_read(tu_path(exp, "rpp/test.jsonl"), NULL);
  ck_assert_ptr_nonnull(file);
  ck_assert_int_gt((int)strlen(file), 0);
  ck_assert_str_eq(out, file);
  ck_assert_msg(strstr(err, "wrote rpp 23 instances from 3 samples to stdout (split run 1, "
                            "split test)"),
                "%s", err);
  ck_assert_int_ne(access(tu_path(dir, "splits"), F_OK), 0);
  free(file);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* 1 when folder path holds nothing (or does not exist). */
static int empty_or_absent(const char *path) {
  DIR *d = opendir(path);
  struct dirent *e;
  int n = 0;
  if (!d)
    return 1;
  while ((e = readdir(d)) != NULL)
    n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
  closedir(d);
  return n == 0;
}

/*
** Issue 26 item 6: --blind needs --answers <dir>, a folder apart from --out; refusals
** (exit 2 without it, 1 inside, around or equal to --out) write nothing anywhere.
*/
START_TEST(test_blind_answers_apart) {
  char *db = fixture_corpus(NULL), *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  char pub[2048], ans[2048], inner[2048], want[8192];
  snprintf(pub, sizeof pub, "%s/pub", dir);
  snprintf(ans, sizeof ans, "%s/answers", dir);
  snprintf(inner, sizeof inner, "%s/pub/answers", dir);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", pub, "--blind", NULL), 2);
  ck_assert_msg(strstr(err, "rescue: export: --blind needs --answers <dir>: the answers go to a "
                            "folder of their own, apart from the files to publish\n"),
                "%s", err);
  ck_assert(empty_or_absent(pub));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", pub, "--blind",
                             "--answers", inner, NULL),
                   1);
  snprintf(want, sizeof want,
           "rescue: export: the answers folder '%s' is inside the output folder '%s': one copy "
           "of the published folder would carry the answers; give a folder outside it\n",
           inner, pub);
  ck_assert_str_eq(err, want);
  ck_assert_str_eq(out, "");
  ck_assert(empty_or_absent(pub));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", inner,
                             "--blind", "--answers", pub, NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "holds the output folder"));
  ck_assert(empty_or_absent(pub));
  free(out);
  free(err);
  snprintf(want, sizeof want, "%s/./pub/../pub", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", pub, "--blind",
                             "--answers", want, NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "' is the output folder '"));
  ck_assert(empty_or_absent(pub));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", pub,
                             "--answers", ans, NULL),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "--answers goes with --blind"));
  free(out);
  free(err);
  /* the real thing: no answer file among the files to publish, all of them in --answers */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", pub, "--blind",
                             "--answers", ans, NULL),
                   0);
  snprintf(want, sizeof want, "; blind: answers in %s/\n", ans);
  ck_assert_msg(strstr(out, want), "%s", out);
  ck_assert_int_ne(access(tu_path(pub, "rpp.answers.jsonl"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(pub, "rpp.jsonl"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(ans, "rpp.answers.jsonl"), F_OK), 0);
  ck_assert_int_ne(access(tu_path(ans, "rpp.jsonl"), F_OK), 0);
  {
    char *manifest = tu_read(tu_path(pub, "manifest.json"), NULL);
    ck_assert_ptr_null(strstr(manifest, "answers.jsonl"));
    free(manifest);
  }
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

/* The card from its provenance section on, short enough for a test message. */
#define CARD_AT(c) "%.1500s", strstr(c, "## Annotation") ? strstr(c, "## Annotation") : c
#define FX "alan_and_evelyn/001_s01e01_ct25_segment04"
#define FX_LINE(row, rest) "{\"sample_id\": \"" FX "\", \"row_index\": " #row ", " rest "}\n"

/*
** The real fixture with three coders who disagree (ann; bob merges rows 7 and 8; cat splits
** row 6) and the lead lea: gold segmentation from ann, policy lead on what all agree, lea
** decides the 4 rows left. The card counts those 4 for lea and no other (on the previous
** main: "agreed by all coders 2, policy lead 10, decided by lead lea 4": whole rows compared,
** times and row_index that come with ann's row set read as differences), names ann's row
** set as the gold segmentation, lists bob and cat (they worked in row sets of their own
** and were left out), judges reliability with its thresholds; the pseudonymised card states
** the same.
*/
START_TEST(test_fixture_card) {
  char *db = tu_fixture_coders(), *dir = strdup(db), *out = NULL, *err = NULL, *card, exp[4200];
  *strrchr(dir, '/') = 0;
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lea",
                             "--segmentation", "ann", NULL),
                   0);
  free(out);
  free(err);
  tu_write(tu_path(dir, "d.jsonl"),
           FX_LINE(2, "\"field\": \"utterance_type\", \"take\": \"ann\"")
               FX_LINE(4, "\"field\": \"relation_pattern_evidence_rows\", \"take\": \"ann\"")
                   FX_LINE(5, "\"field\": \"tone_of_voice\", \"value\": \"inviting and open\"")
                       FX_LINE(9, "\"field\": \"utterance_type\", \"take\": \"ann\"")
                           FX_LINE(9, "\"field\": \"relation_pattern_evidence_rows\", "
                                      "\"value\": [8, 9, 10]"));
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide", tu_path(dir, "d.jsonl"),
                             "--lead", "lea", NULL),
                   0);
  ck_assert_msg(strstr(out, "4 gold versions written"), "%s", out);
  free(out);
  free(err);
  snprintf(exp, sizeof exp, "%s/t", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp, NULL), 0);
  free(out);
  free(err);
  card = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_msg(strstr(card, "of the samples used, 16 (100.0%) are adjudicated gold"),
                CARD_AT(card));
  /* lea's 4 rows are hers; the 12 others agreed (row numbers compared as the gold row
     set numbers them: on the previous main the evidence rows of rows 11, 13 and 15, as
     each coder stored them, made those "policy lead 3"); never counted for lea, who has
     no version, and never as "majority" or the policy of a segmentation value */
  {
    const char *h = strstr(card, "Gold rows by how they were decided: agreed by all coders ");
    long agreed = 0, policy = 0;
    ck_assert_msg(h != NULL, CARD_AT(card));
    h += strlen("Gold rows by how they were decided: agreed by all coders ");
    agreed = strtol(h, (char **)&h, 10);
    if (strncmp(h, ", policy lead ", 14) == 0)
      policy = strtol(h + 14, (char **)&h, 10);
    ck_assert_msg(agreed == 12 && policy == 0 && strncmp(h, ", decided by lead lea 4.", 24) == 0,
                  CARD_AT(card));
  }
  ck_assert_msg(strstr(card, ", decided by lead lea 4.") &&
                    strstr(card, ". Gold segmentation (the row set gold rows are in): chosen "
                                 "from ann's in 1 sample.\n"),
                CARD_AT(card));
  ck_assert_msg(strstr(card, "| the draft (the imported file) | draft | 16 | 0 | 0 |\n"),
                CARD_AT(card));
  ck_assert_msg(strstr(card, "| ann | annotator | 16 | 0 | 0 |\n"), CARD_AT(card));
  ck_assert_msg(strstr(card, "| bob | annotator | 15 | 0 | 0 |\n"), CARD_AT(card));
  ck_assert_msg(strstr(card, "| cat | annotator | 17 | 0 | 0 |\n"), CARD_AT(card));
  ck_assert_msg(strstr(card, "| lea | lead | 0 | 0 | 4 |\n"), CARD_AT(card));
  ck_assert_msg(!strstr(card, "| import |"), CARD_AT(card));
  {
    json_t *m = load_json(tu_path(exp, "manifest.json")), *an;
    size_t i;
    int seen = 0;
    json_array_foreach(json_object_get(json_object_get(m, "provenance"), "annotators"), i, an) {
      if (!strcmp(tt_str(an, "name"), "import"))
        ck_assert_str_eq(tt_str(an, "role"), "draft");
      seen |= !strcmp(tt_str(an, "name"), "bob") << 0 | !strcmp(tt_str(an, "name"), "cat") << 1 |
              (!strcmp(tt_str(an, "name"), "lea") && tt_int(an, "gold_rows_decided") == 4) << 2;
    }
    ck_assert_int_eq(seen, 7);
    json_decref(m);
  }
  ck_assert_msg(strstr(card, "0.800 or more reliable, 0.667 up to 0.800 tentative, below 0.667 "
                             "unreliable"),
                CARD_AT(card));
  ck_assert_msg(strstr(card, "| utterance_type | nominal | ok | tentative | 10 | 0.799 |"),
                CARD_AT(card));
  free(card);
  /* the pseudonymised export's card: the same provenance, the people as "person N" */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  snprintf(exp, sizeof exp, "%s/p", dir);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", exp,
                             "--pseudonymise", NULL),
                   0);
  free(out);
  free(err);
  card = tu_read(tu_path(exp, "README.md"), NULL);
  ck_assert_msg(!strstr(card, "nothing is adjudicated"), CARD_AT(card));
  ck_assert_msg(strstr(card, "Gold rows by how they were decided: agreed by all coders ") &&
                    strstr(card, ", decided by lead person "),
                CARD_AT(card));
  ck_assert_msg(strstr(card, ". Gold segmentation (the row set gold rows are in): chosen from "
                             "person "),
                CARD_AT(card));
  ck_assert_msg(!strstr(card, "| lea ") && !strstr(card, "lead lea") && !strstr(card, "| ann |") &&
                    !strstr(card, "| bob |") && !strstr(card, "ann's"),
                CARD_AT(card));
  free(card);
  free(dir);
  free(db);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("export_card");
  TCase *t = tcase_create("core");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_provenance);
  tcase_add_test(t, test_nothing_adjudicated);
  tcase_add_test(t, test_card_counts_decisions);
  tcase_add_test(t, test_missing_clips);
  tcase_add_test(t, test_empty_export);
  tcase_add_test(t, test_stdout);
  tcase_add_test(t, test_blind);
  tcase_add_test(t, test_stream_split);
  tcase_add_test(t, test_blind_answers_apart);
  tcase_add_test(t, test_fixture_card);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  tu_fixtures(); /* skips (77) without the fixtures */
  return tu_run_suite(suite());
}
