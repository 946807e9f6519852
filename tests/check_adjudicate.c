/*
** check_adjudicate.c: the three policies on a sample with a model draft, two annotators and
** a lead who edited one row; gold versions marked with policy and sources; undecided rows
** listed (exit 0); reruns change nothing; exports pick gold up; refusals.
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"
#include "store_int.h"
#include "rescue_curate.h"

/* One sample "g/s1" of 4 rows whose utterance types are utt[0..3] (couple, Ann speaks). */
static void sample(rescue_buf *b, const char *id, const char *const *utt) {
  int i;
  rescue_buf_printf(b, "{\"sample_id\": \"%s\", \"rows\": [", id);
  for (i = 0; i < 4; i++)
    rescue_buf_printf(b,
                      "%s{\"start_time\": %d.0, \"end_time\": %d.5, \"primary_speaker\": "
                      "\"Ann\", \"target\": [\"Therapist\"], \"utterance_type\": \"%s\"}",
                      i ? ", " : "", i, i, utt[i]);
  rescue_buf_puts(b, "]}\n");
}

typedef struct fixture {
  char *db, *dir;
  int64_t lea_version; /* the lead's version of row 2 */
} fixture;

/*
** gpt (model) drafts; ann and bob revise; lea (lead) edits row 2 only:
**   row 1: nobody changes the draft        -> shared by all
**   row 2: ann and bob differ, lea edits   -> lead: lea's; majority: a three-way tie
**   row 3: ann and bob agree on a change   -> shared by the coders; majority 2 of 3
**   row 4: ann and bob differ              -> lead: undecided; majority: tie
** A second sample "g/s2" has only the model's draft.
*/
static fixture make(void) {
  static const char *draft[] = {"disclosure", "request", "other", "accusation"};
  static const char *ann[] = {"disclosure", "defense", "repair", "validation"};
  static const char *bob[] = {"disclosure", "withdrawal", "repair", "reflection"};
  fixture f;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  rescue_row_input in;
  const rescue_jnode *root, *bad;
  const char *row2 =
      "{\"start_time\": 1.0, \"end_time\": 1.5, \"primary_speaker\": \"Ann\", "
      "\"target\": [\"Therapist\"], \"utterance_type\": \"request\", \"note\": \"lea\"}";
  sqlite3 *h;
  sqlite3_stmt *q;
  int64_t row_id, lea;
  f.db = tu_new_corpus();
  f.dir = strdup(f.db);
  *strrchr(f.dir, '/') = 0;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", f.db, "gpt", "--role", "model", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", f.db, "lea", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", f.db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", f.db, "bob", NULL), 0);
  sample(&b, "g/s1", draft);
  sample(&b, "g/s2", draft);
  tu_write(tu_path(f.dir, "gpt.jsonl"), b.s);
  rescue_buf_reset(&b);
  sample(&b, "g/s1", ann);
  tu_write(tu_path(f.dir, "ann.jsonl"), b.s);
  rescue_buf_reset(&b);
  sample(&b, "g/s1", bob);
  tu_write(tu_path(f.dir, "bob.jsonl"), b.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", f.db, tu_path(f.dir, "gpt.jsonl"), "--annotator",
                             "gpt", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", f.db, tu_path(f.dir, "ann.jsonl"), "--annotator",
                             "ann", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", f.db, tu_path(f.dir, "bob.jsonl"), "--annotator",
                             "bob", NULL),
                   0);
  /* the lead saves row 2 only, as the review server would */
  ck_assert_int_eq(sqlite3_open(f.db, &h), SQLITE_OK);
  sqlite3_prepare_v2(h,
                     "SELECT r.id FROM row r JOIN sample s ON s.rowset_id = r.rowset_id "
                     "WHERE s.sample_id = 'g/s1' AND r.position = 2",
                     -1, &q, NULL);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  row_id = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  ck_assert_int_eq(rescue_store_open(&st, f.db, 0, &e), 0);
  ck_assert_int_eq(rescue_annotator_id(st, "lea", NULL, 0, &lea), 0);
  root = rescue_jparse(doc, row2, strlen(row2), &je);
  memset(&in, 0, sizeof in);
  ck_assert_int_eq(rescue_row_input_from_json(rescue_store_scheme(st), root, &in, &bad, &e), 0);
  ck_assert_int_eq(rescue_store_begin(st), 0);
  ck_assert_int_eq(
      rescue_store_add_row_version(st, row_id, lea, "edit", &in, NULL, NULL, &f.lea_version), 0);
  ck_assert_int_eq(rescue_store_commit(st), 0);
  rescue_row_input_clear(&in);
  rescue_store_close(&st);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&b);
  return f;
}

static void done(fixture *f) {
  free(f->db);
  free(f->dir);
}

/* The gold versions of sample s1: position -> {policy, sources, content, annotator}. */
static json_t *gold(const char *db) {
  sqlite3 *h;
  sqlite3_stmt *q;
  json_t *m = json_object();
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_prepare_v2(
          h,
          "SELECT r.position, v.gold_policy, v.gold_sources, v.content, a.name, s.sample_id "
          "FROM row_version v JOIN row r ON r.id = v.row_id JOIN annotator a ON a.id = "
          "v.annotator_id "
          "JOIN sample s ON s.rowset_id = r.rowset_id WHERE v.kind = 'gold' ORDER BY v.id",
          -1, &q, NULL),
      SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW) {
    char key[64];
    json_error_t je;
    snprintf(key, sizeof key, "%s:%d", sqlite3_column_text(q, 5), sqlite3_column_int(q, 0));
    json_object_set_new(
        m, key,
        json_pack("{s:s, s:o, s:o, s:s}", "policy", (const char *)sqlite3_column_text(q, 1),
                  "sources", json_loads((const char *)sqlite3_column_text(q, 2), 0, &je), "content",
                  json_loads((const char *)sqlite3_column_text(q, 3), 0, &je), "annotator",
                  (const char *)sqlite3_column_text(q, 4)));
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return m;
}

static const char *utt_of(json_t *g, const char *key) {
  json_t *r = json_object_get(g, key);
  ck_assert_msg(r != NULL, "no gold for %s", key);
  return json_string_value(json_object_get(json_object_get(r, "content"), "utterance_type"));
}

/* Version ids of annotator `name` on row `pos` of g/s1 (their latest). */
static int64_t version_of(const char *db, const char *name, int pos) {
  sqlite3 *h;
  sqlite3_stmt *q;
  int64_t id = 0;
  sqlite3_open(db, &h);
  sqlite3_prepare_v2(h,
                     "SELECT max(v.id) FROM row_version v JOIN row r ON r.id = v.row_id "
                     "JOIN annotator a ON a.id = v.annotator_id JOIN sample s ON s.rowset_id = "
                     "r.rowset_id WHERE s.sample_id = 'g/s1' AND r.position = ?1 AND a.name = ?2",
                     -1, &q, NULL);
  sqlite3_bind_int(q, 1, pos);
  sqlite3_bind_text(q, 2, name, -1, SQLITE_STATIC);
  if (sqlite3_step(q) == SQLITE_ROW)
    id = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return id;
}

START_TEST(test_lead_policy) {
  fixture f = make();
  char *out = NULL, *err = NULL, *line;
  json_t *g, *src;
  size_t n;
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "lead", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "adjudicated 2 samples (8 rows) by policy lead (lead lea): "
                                    "3 gold versions written, 0 already gold, 5 undecided"));
  /* row 4: only the field the coders differ on is undecided, with each coder's value */
  ck_assert_ptr_nonnull(strstr(out,
                               "  g/s1:4: the lead (lea) made no version and the coders "
                               "differ in 1 field (utterance_type)\n"
                               "      utterance_type: ann \"validation\" | bob \"reflection\"\n"));
  /* the model's draft alone decides nothing */
  ck_assert_ptr_nonnull(strstr(out, "  g/s2:1: the lead (lea) made no version and no other coder "
                                    "worked on this sample\n"));
  ck_assert_str_eq(err, "");
  free(out);
  free(err);
  g = gold(f.db);
  ck_assert_int_eq((int)json_object_size(g), 3);
  ck_assert_str_eq(utt_of(g, "g/s1:1"), "disclosure");
  ck_assert_str_eq(utt_of(g, "g/s1:2"), "request");
  ck_assert_str_eq(utt_of(g, "g/s1:3"), "repair");
  ck_assert_str_eq(json_string_value(json_object_get(
                       json_object_get(json_object_get(g, "g/s1:2"), "content"), "note")),
                   "lea");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(g, "g/s1:2"), "policy")),
                   "lead");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(g, "g/s1:2"), "annotator")),
                   "adjudication");
  src = json_object_get(json_object_get(g, "g/s1:2"), "sources");
  ck_assert_int_eq((int)json_array_size(src), 1);
  ck_assert_int_eq(json_integer_value(json_array_get(src, 0)), f.lea_version);
  /* row 3: the versions ann and bob share */
  src = json_object_get(json_object_get(g, "g/s1:3"), "sources");
  ck_assert_int_eq((int)json_array_size(src), 2);
  ck_assert_int_eq(json_integer_value(json_array_get(src, 0)), version_of(f.db, "ann", 3));
  ck_assert_int_eq(json_integer_value(json_array_get(src, 1)), version_of(f.db, "bob", 3));
  json_decref(g);
  /* a rerun writes nothing new */
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "lead", "--lead", "lea",
                             "--json", NULL),
                   0);
  {
    json_error_t je;
    json_t *j = json_loads(out, 0, &je);
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "written")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(j, "unchanged")), 3);
    ck_assert_str_eq(json_string_value(json_object_get(j, "lead")), "lea");
    ck_assert_int_eq((int)json_array_size(json_object_get(j, "undecided")), 5);
    ck_assert_int_eq(json_integer_value(json_object_get(
                         json_array_get(json_object_get(j, "undecided"), 0), "row")),
                     4);
    json_decref(j);
  }
  free(out);
  free(err);
  /* the export's corpus view shows gold where it exists, the latest elsewhere */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", f.db, "--format", "samples", "--out",
                             tu_path(f.dir, "out.jsonl"), "--samples", "g/s1", NULL),
                   0);
  line = tu_read(tu_path(f.dir, "out.jsonl"), &n);
  {
    json_error_t je;
    json_t *j = json_loads(line, 0, &je), *rows = json_object_get(j, "rows");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 1), "note")), "lea");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 2), "utterance_type")),
                     "repair");
    /* row 4 has no gold: the latest version (bob's) */
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 3), "utterance_type")),
                     "reflection");
    json_decref(j);
  }
  free(line);
  /* the gold view leaves the sample out until every row is gold: nothing to export is an
     error with the reason, and no file */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out",
                             tu_path(f.dir, "gold.jsonl"), "--view", "gold", NULL),
                   1);
  ck_assert_msg(strstr(err, "nothing to export: no sample in the corpus can be used in this "
                            "view (2 without a version of every row, 0 discarded); the gold "
                            "view needs gold on every row: see 'rescue adjudicate'"),
                "%s", err);
  ck_assert_int_ne(access(tu_path(f.dir, "gold.jsonl"), F_OK), 0);
  free(out);
  free(err);
  /* lint on the partial gold view judges the rows it sees (these minimal rows lack most
     fields: R01), never the sample-level facts it cannot see (R19) */
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", f.db, "--view", "gold", NULL), 1);
  ck_assert_ptr_nonnull(strstr(out, "\n1 sample, 3 rows: "));
  ck_assert_ptr_nonnull(strstr(out, "g/s1:3: error: R01 "));
  ck_assert_ptr_null(strstr(out, "R19"));
  ck_assert_ptr_null(strstr(out, "g/s1:4:"));
  free(out);
  free(err);
  done(&f);
}
END_TEST

START_TEST(test_majority_policy) {
  fixture f = make();
  char *out = NULL, *err = NULL;
  json_t *g, *src;
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "majority", NULL), 0);
  /* coders: ann, bob, lea (lea's view is the draft where she made no version) */
  ck_assert_ptr_nonnull(strstr(out, "2 gold versions written, 0 already gold, 6 undecided"));
  /* row 2: a three-way tie on utterance_type; lea's extra "note" key is outvoted, not a tie */
  ck_assert_ptr_nonnull(strstr(out, "  g/s1:2: no majority in 1 field (utterance_type)\n"
                                    "      utterance_type: ann \"defense\" | bob \"withdrawal\" | "
                                    "lea \"request\"\n"));
  ck_assert_ptr_nonnull(strstr(out, "  g/s1:4: no majority in 1 field (utterance_type)"));
  ck_assert_ptr_nonnull(strstr(out, "  g/s2:1: no coder worked on this sample\n"));
  free(out);
  free(err);
  g = gold(f.db);
  ck_assert_int_eq((int)json_object_size(g), 2);
  ck_assert_str_eq(utt_of(g, "g/s1:1"), "disclosure");
  ck_assert_str_eq(utt_of(g, "g/s1:3"), "repair");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(g, "g/s1:3"), "policy")),
                   "majority");
  /* decided field by field from every coder's view: ann's, bob's and the draft lea saw */
  src = json_object_get(json_object_get(g, "g/s1:3"), "sources");
  ck_assert_int_eq((int)json_array_size(src), 3);
  ck_assert_int_eq(json_integer_value(json_array_get(src, 1)), version_of(f.db, "ann", 3));
  ck_assert_int_eq(json_integer_value(json_array_get(src, 2)), version_of(f.db, "bob", 3));
  ck_assert_int_eq(json_integer_value(json_array_get(src, 0)), version_of(f.db, "gpt", 3));
  json_decref(g);
  done(&f);
}
END_TEST

START_TEST(test_latest_policy) {
  fixture f = make();
  char *out = NULL, *err = NULL;
  json_t *g;
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "latest", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "8 gold versions written, 0 already gold, 0 undecided"));
  free(out);
  free(err);
  g = gold(f.db);
  ck_assert_str_eq(utt_of(g, "g/s1:1"), "disclosure");
  ck_assert_str_eq(utt_of(g, "g/s1:2"), "request");    /* lea's, saved last */
  ck_assert_str_eq(utt_of(g, "g/s1:4"), "reflection"); /* bob's, imported after ann's */
  ck_assert_str_eq(utt_of(g, "g/s2:4"), "accusation"); /* the model's draft */
  ck_assert_int_eq(json_integer_value(
                       json_array_get(json_object_get(json_object_get(g, "g/s1:2"), "sources"), 0)),
                   f.lea_version);
  json_decref(g);
  /* now every row has gold: the gold view exports both samples */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out",
                             tu_path(f.dir, "gold.jsonl"), "--view", "gold", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "wrote 2 samples (8 rows)"));
  free(out);
  free(err);
  /* agreement ignores gold: the coders are still ann, bob and lea */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", f.db, "--field", "utterance_type", "--json", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"coders\": [\"lea\", \"ann\", \"bob\"]"));
  free(out);
  free(err);
  done(&f);
}
END_TEST

START_TEST(test_refusals) {
  fixture f = make();
  char *out = NULL, *err = NULL, copy[4096];
  size_t n;
  char *bytes = tu_read(f.db, &n);
  snprintf(copy, sizeof copy, "%s.copy", f.db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: adjudicate: missing --policy"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "vote", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown policy 'vote'"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "majority", "--lead", "lea", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "--lead applies to --policy lead only"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "lead", "--lead", "zed", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no registered annotator named 'zed'"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "lead", "--samples", "g/none", NULL),
      1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'g/none'"));
  free(out);
  free(err);
  ck_assert(tu_same_file(f.db, copy));
  /* two leads: the policy needs to know which */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", f.db, "max", "--role", "lead", NULL),
                   0);
  bytes = tu_read(f.db, &n);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "lead", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "the corpus has 2 leads (lea, max): choose one with --lead"));
  free(out);
  free(err);
  ck_assert(tu_same_file(f.db, copy));
  /* --samples restricts */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", f.db, "--policy", "latest", "--samples", "g/s2", NULL),
      0);
  ck_assert_ptr_nonnull(strstr(out, "adjudicated 1 sample (4 rows)"));
  free(out);
  free(err);
  done(&f);
}
END_TEST

/* ---- the command-line route on the real fixture: three coders who disagree and a lead ---- */

#define FX "alan_and_evelyn/001_s01e01_ct25_segment04"
#define FX_LINE(row, rest) "{\"sample_id\": \"" FX "\", \"row_index\": " #row ", " rest "}\n"

/* One number from the corpus. */
static long fx_count(const char *db, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *q;
  long n = -1;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  if (sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/* Run `adjudicate --decide` on text as lea (extra: one more option or NULL); exit status. */
static int fx_decide(const char *db, const char *text, const char *extra, char **out, char **err) {
  char *dir = strdup(db);
  int rc;
  *strrchr(dir, '/') = 0;
  tu_write(tu_path(dir, "decisions.jsonl"), text);
  rc = tu_rescue(out, err, "adjudicate", db, "--decide", tu_path(dir, "decisions.jsonl"), "--lead",
                 "lea", extra, NULL);
  free(dir);
  return rc;
}

/* A refused decisions file: exit 1, "decisions.jsonl:<line>:" and what; the corpus unchanged. */
static void fx_refused(const char *db, const char *text, int line, const char *what) {
  char copy[4200], want[64], *bytes, *out = NULL, *err = NULL;
  size_t n;
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(fx_decide(db, text, NULL, &out, &err), 1);
  snprintf(want, sizeof want, "decisions.jsonl:%d:", line);
  ck_assert_msg(strncmp(err, "rescue: adjudicate: ", 20) == 0, "%s", err);
  ck_assert_msg(strstr(err, want) && strstr(err, what), "want '%s' and '%s' in: %s", want, what,
                err);
  ck_assert_msg(tu_same_file(db, copy), "the corpus changed: %s", text);
  free(out);
  free(err);
}

#define FX_GOLD_IDS                                                                                \
  "SELECT group_concat(id) FROM (SELECT max(v.id) AS id FROM row_version v WHERE v.kind = "        \
  "'gold' GROUP BY v.row_id ORDER BY v.row_id)"

/*
** ann, bob (merges 7 and 8), cat (splits 6) and the lead lea on the real fixture, as a new
** user would: every bad decision refused with the file's line and the rule, the corpus
** unchanged; gold segmentation from ann and policy lead settle 12 rows; a dry run writes
** nothing (the log included); one decision changes its row only; the log names lea and
** each decision. On the previous main a misspelled key ("vlaue") was ignored and the log
** held only "1 decisions by lea".
*/
START_TEST(test_fixture_decide) {
  char *db = tu_fixture_coders(), *out = NULL, *err = NULL, *before, copy[4200], *bytes;
  size_t n;
  long gold;
  /* lint first: an out-of-set label, a type on a therapist row, a target holding the speaker */
  fx_refused(db, FX_LINE(2, "\"field\": \"utterance_type\", \"value\": \"grumble\""), 1,
             "R06 utterance_type: 'grumble' is not a utterance_type label");
  fx_refused(db, FX_LINE(3, "\"field\": \"utterance_type\", \"value\": \"defense\""), 1,
             "R06 utterance_type: utterance_type is 'defense' on a therapist row");
  fx_refused(db, FX_LINE(2, "\"field\": \"target\", \"value\": [\"Alan\"]"), 1,
             "R05 target: target contains the speaker 'Alan'");
  /* a misspelled field, a misspelled key, a lead who never annotated, after a good line */
  fx_refused(db,
             FX_LINE(5, "\"field\": \"tone_of_voice\", \"take\": \"ann\"")
                 FX_LINE(2, "\"field\": \"utterance_typ\", \"value\": \"defense\""),
             2, "row 2 has no field '/utterance_typ'");
  fx_refused(db, FX_LINE(2, "\"field\": \"utterance_type\", \"take\": \"ann\", \"vlaue\": 3"), 1,
             "unknown key 'vlaue'");
  fx_refused(db, FX_LINE(2, "\"feild\": \"utterance_type\", \"take\": \"ann\""), 1,
             "unknown key 'feild'");
  fx_refused(db, FX_LINE(2, "\"field\": \"utterance_type\", \"take\": \"lea\""), 1,
             "'lea' has no version of sample '" FX "'");
  ck_assert_int_eq(fx_count(db, "SELECT count(*) FROM field_decision"), 0);
  /* a policy run as a dry run writes nothing, the log included */
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lea",
                             "--segmentation", "ann", "--dry-run", NULL),
                   0);
  ck_assert_msg(strstr(out, "(dry run: nothing written) adjudicated 1 sample (16 rows) by policy "
                            "lead (lead lea): 12 gold versions would be written"),
                "%s", out);
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* the lead chooses ann's segmentation; policy lead settles what the coders agree on */
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lea",
                             "--segmentation", "ann", NULL),
                   0);
  ck_assert_msg(strstr(out, "12 gold versions written, 0 already gold, 4 undecided"), "%s", out);
  free(out);
  free(err);
  before = NULL;
  {
    sqlite3 *h;
    sqlite3_stmt *q;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(h, FX_GOLD_IDS, -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    before = strdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(h);
  }
  /* a dry run: nothing written, the log included */
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(
      fx_decide(db, FX_LINE(5, "\"field\": \"tone_of_voice\", \"value\": \"inviting and open\""),
                "--dry-run", &out, &err),
      0);
  ck_assert_msg(strstr(out, "(dry run: nothing written) 1 decision by lea checked"), "%s", out);
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* one decision: row 5 gets gold; no other row's gold changes (no policy re-run) */
  gold = fx_count(db, "SELECT count(*) FROM row_version WHERE kind = 'gold'");
  ck_assert_int_eq(
      fx_decide(db, FX_LINE(5, "\"field\": \"tone_of_voice\", \"value\": \"inviting and open\""),
                NULL, &out, &err),
      0);
  ck_assert_msg(strstr(out, "1 decision by lea recorded in 1 sample: 1 gold version written"), "%s",
                out);
  free(out);
  free(err);
  ck_assert_int_eq(fx_count(db, "SELECT count(*) FROM row_version WHERE kind = 'gold'"), gold + 1);
  {
    sqlite3 *h;
    sqlite3_stmt *q;
    char *after, *p;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(h, FX_GOLD_IDS, -1, &q, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    after = strdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_finalize(q);
    sqlite3_close(h);
    /* the same ids, one more at the end (row 5's first gold) */
    p = strrchr(after, ',');
    ck_assert_ptr_nonnull(p);
    ck_assert_msg(strlen(before) < strlen(after), "%s / %s", before, after);
    ck_assert_int_eq(fx_count(db, "SELECT count(*) FROM row_version v WHERE v.kind = 'gold' AND "
                                  "v.id > (SELECT max(id) FROM row_version WHERE kind = 'gold' "
                                  "AND gold_policy = 'lead')"),
                     1);
    free(after);
  }
  ck_assert_int_eq(
      fx_count(
          db,
          "SELECT count(*) FROM gold_provenance p JOIN annotator l ON l.id = p.decided_by WHERE "
          "p.path = '/tone_of_voice' AND p.how = 'edited' AND l.name = 'lea'"),
      1);
  /* the log names the lead and each decision */
  ck_assert_int_eq(tu_rescue(&out, &err, "log", db, NULL), 0);
  ck_assert_msg(strstr(out, "curate      root (lea)  " FX
                            " row 5 tone_of_voice: value \"inviting and open\""),
                "%s", out);
  ck_assert_msg(strstr(out, "(lea)  1 decision by lea: 1 gold version written"), "%s", out);
  ck_assert_msg(!strstr(out, "checked"), "%s", out);
  free(out);
  free(err);
  free(before);
  free(db);
}
END_TEST

/*
** Two coders who agree, in row sets of their own: after gold segmentation from ann and
** `--policy lead` (lea made no version) every value of the 12 gold rows is agreed, row
** numbers compared as the gold row set numbers them (bob merged rows 7 and 8, cat split
** row 6). On the previous main each row_index and the evidence rows of rows 11, 13 and 15
** were recorded against the coders' own numbering as "policy lead, decided by lea". Row 4
** stays open: it refers to row 7, which bob merged with row 8, so his reference covers gold
** rows 7 and 8; it refers to row 6 too, which cat split: her reference to the half that
** pairs with no gold row goes to the gold row it overlaps most (on the previous main it was
** dropped, [1, 4, 5, 7]). The log line names the segmentation chosen.
*/
START_TEST(test_fixture_policy_provenance) {
  char *db = tu_fixture_coders(), *out = NULL, *err = NULL;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  sqlite3 *h;
  sqlite3_stmt *q;
  int n = 0;
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lea",
                             "--segmentation", "ann", NULL),
                   0);
  ck_assert_msg(strstr(out, "12 gold versions written, 0 already gold, 4 undecided"), "%s", out);
  ck_assert_msg(strstr(out, "relation_pattern_evidence_rows: ann [1, 4, 5, 6, 7] | bob [1, 4, 5, "
                            "6, 7, 8] | cat [1, 4, 5, 6, 7]\n"),
                "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "log", db, NULL), 0);
  ck_assert_msg(strstr(out, "(lea)  policy lead, segmentation ann: 12 gold versions written, 4 "
                            "undecided"),
                "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(fx_count(db, "SELECT count(*) FROM gold_provenance WHERE how = 'policy' AND "
                                "policy IN ('lead', 'majority')"),
                   0);
  ck_assert_int_eq(
      fx_count(db, "SELECT count(*) FROM gold_provenance WHERE decided_by IS NOT NULL"), 0);
  ck_assert_int_eq(
      fx_count(db, "SELECT count(*) FROM gold_provenance WHERE path = '/row_index' AND how = "
                   "'agreed'"),
      12);
  ck_assert_int_eq(
      fx_count(db,
               "SELECT count(DISTINCT p.version_id) FROM gold_provenance p JOIN row_version v ON "
               "v.id = p.version_id JOIN row_in r ON r.id = v.row_id WHERE "
               "p.path = '/relation_pattern_evidence_rows' AND p.how = 'agreed' "
               "AND r.position IN (11, 13, 15)"),
      3);
  /* each gold version reads as agreed */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_prepare_v2(h, "SELECT id FROM row_version WHERE kind = 'gold'", -1, &q, NULL),
      SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW) {
    rescue_gold_how how;
    ck_assert_int_eq(rescue_gold_how_of(st, sqlite3_column_int64(q, 0), &how), 0);
    ck_assert_msg(how.by == RESCUE_GOLD_AGREED, "gold version %lld: by %d policy %s",
                  (long long)sqlite3_column_int64(q, 0), (int)how.by, how.policy);
    n++;
  }
  ck_assert_int_eq(n, 12);
  sqlite3_finalize(q);
  sqlite3_close(h);
  rescue_store_close(&st);
  free(db);
}
END_TEST

/* The rows of the one sample of `rescue export db --format samples --view view` (caller frees). */
static json_t *fx_rows(const char *db, const char *view) {
  char *out = NULL, *err = NULL;
  json_t *doc, *rows;
  json_error_t je;
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", "-",
                             "--view", view, NULL),
                   0);
  doc = json_loads(out, JSON_DISABLE_EOF_CHECK, &je);
  ck_assert_msg(doc != NULL, "%s: %s", view, je.text);
  rows = json_incref(json_object_get(doc, "rows"));
  json_decref(doc);
  free(out);
  free(err);
  return rows;
}

/* Is every number of array a also in array b? */
static int fx_subset(json_t *a, json_t *b) {
  size_t i, j;
  for (i = 0; i < json_array_size(a); i++) {
    int found = 0;
    for (j = 0; j < json_array_size(b) && !found; j++)
      found = json_equal(json_array_get(a, i), json_array_get(b, j));
    if (!found)
      return 0;
  }
  return 1;
}

/*
** A whole coder's version taken into gold (--policy latest takes cat's, who split row 6 and
** so numbers every later row one more) has its row references renumbered as gold numbers
** rows: every gold evidence row is one of ann's (gold has her segmentation, and the coders
** agree on the references). Before, cat's own numbers were copied and pointed one row too far
** (8 for ann's 7). Known and kept: a reference to the half of cat's split that does not align
** with gold row 6 (one-to-one) is dropped, so gold may hold fewer references than ann.
*/
START_TEST(test_fixture_latest_refs_renumbered) {
  char *db = tu_fixture_coders(), *out = NULL, *err = NULL;
  json_t *gold, *ann;
  size_t i;
  int past_split = 0;
  ck_assert_int_eq(
      tu_rescue(&out, &err, "adjudicate", db, "--policy", "latest", "--segmentation", "ann", NULL),
      0);
  free(out);
  free(err);
  gold = fx_rows(db, "gold");
  ann = fx_rows(db, "annotator:ann");
  ck_assert_int_eq(json_array_size(gold), json_array_size(ann));
  for (i = 0; i < json_array_size(gold); i++) {
    json_t *g = json_object_get(json_array_get(gold, i), "relation_pattern_evidence_rows");
    json_t *w = json_object_get(json_array_get(ann, i), "relation_pattern_evidence_rows");
    char *gs = json_dumps(g, JSON_ENCODE_ANY), *ws = json_dumps(w, JSON_ENCODE_ANY);
    size_t k;
    ck_assert_msg(fx_subset(g, w), "gold row %zu: evidence rows %s, ann's %s", i + 1, gs, ws);
    for (k = 0; k < json_array_size(g); k++)
      past_split += json_integer_value(json_array_get(g, k)) > 6;
    free(gs);
    free(ws);
  }
  ck_assert_int_gt(past_split, 0);
  json_decref(gold);
  json_decref(ann);
  free(db);
}
END_TEST

/*
** A lead policy or decisions for someone who is not a lead: bob (an annotator) is refused
** with one line naming him and his role, exit 1, the corpus unchanged; lea (the lead) is
** not. On the previous main `--policy lead --lead bob` wrote gold "decided by lead bob",
** and `--decide --lead bob` exited 2 with the whole help.
*/
START_TEST(test_fixture_lead_not_lead) {
  char *db = tu_fixture_coders(), *out = NULL, *err = NULL, *bytes, copy[4200];
  size_t n;
  bytes = tu_read(db, &n);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "bob",
                             "--segmentation", "ann", NULL),
                   1);
  ck_assert_msg(strstr(err, "'bob' is not a lead (role annotator)"), "%s", err);
  ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
  ck_assert_msg(tu_same_file(db, copy), "the corpus changed");
  free(out);
  free(err);
  ck_assert_int_eq(fx_decide(db, FX_LINE(5, "\"field\": \"tone_of_voice\", \"take\": \"ann\""),
                             NULL, &out, &err),
                   0);
  free(out);
  free(err);
  bytes = tu_read(db, &n);
  tu_write_n(copy, bytes, n);
  free(bytes);
  {
    char *dir = strdup(db);
    *strrchr(dir, '/') = 0;
    ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--decide",
                               tu_path(dir, "decisions.jsonl"), "--lead", "bob", NULL),
                     1);
    free(dir);
  }
  ck_assert_msg(strstr(err, "'bob' is not a lead (role annotator)"), "%s", err);
  ck_assert_ptr_eq(strchr(err, '\n'), err + strlen(err) - 1);
  ck_assert_msg(tu_same_file(db, copy), "the corpus changed");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "adjudicate", db, "--policy", "lead", "--lead", "lea",
                             "--segmentation", "ann", NULL),
                   0);
  ck_assert_int_eq(fx_count(db, "SELECT count(*) FROM gold_provenance p JOIN annotator a ON "
                                "a.id = p.decided_by WHERE a.name = 'bob'"),
                   0);
  free(out);
  free(err);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("adjudicate");
  TCase *tc = tcase_create("adjudicate");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_lead_policy);
  tcase_add_test(tc, test_majority_policy);
  tcase_add_test(tc, test_latest_policy);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_fixture_decide);
  tcase_add_test(tc, test_fixture_policy_provenance);
  tcase_add_test(tc, test_fixture_lead_not_lead);
  tcase_add_test(tc, test_fixture_latest_refs_renumbered);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
