/*
** check_curate.c: curation (annotate/curate.c) with two coders and a lead: the state of a
** sample (each coder's value, the draft marked, undecided values down to one part of a
** list item), decisions through the API (200, 400 with lint findings or an unknown
** field, item or coder, 409 with the newer state, 403 for anyone but a lead), undo, gold
** written when the last value is decided with the provenance of every value, the gold row
** set choice; and `adjudicate --decide` under the same rules (exit 1 with the file's line,
** the store unchanged; one decision changes one value; --dry-run writes nothing). Also:
** the coders' comments in the state, the queue's counts equal to the state's, an undo that
** reopens a row retiring its gold, and a part decision kept by a later policy run.
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_edit.h"
#include "serve.h"
#include "testutil.h"
#include "testutil_http.h"

#define SAMPLE "maya_and_daniel/001_s01e01_segment01"
#define CPATH "/api/curate/" SAMPLE

/* ---- the corpus: the demo's first sample as the draft, ann's and bob's versions ---- */

static char *db, *dir;
static char tok_ann[65], tok_bob[65], tok_lea[65];

/* s with the first occurrence of a replaced by b (caller frees). */
static char *replace1(const char *s, const char *a, const char *b) {
  const char *p = strstr(s, a);
  char *out;
  ck_assert_msg(p != NULL, "no '%s' to replace", a);
  out = malloc(strlen(s) + strlen(b) + 1);
  memcpy(out, s, (size_t)(p - s));
  strcpy(out + (p - s), b);
  strcat(out, p + strlen(a));
  return out;
}

/* Write the draft with the replacements pairs[0..n) (a, b, a, b, ...) into dir/name. */
static void variant(const char *name, const char *const *pairs, int n) {
  char path[4096], *text, *next;
  int i;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  text = tu_read(path, NULL);
  ck_assert_ptr_nonnull(text);
  for (i = 0; i + 1 < n; i += 2) {
    next = replace1(text, pairs[i], pairs[i + 1]);
    free(text);
    text = next;
  }
  tu_write(tu_path(dir, name), text);
  free(text);
}

static void add(const char *name, const char *role, char tok[65]) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  int existed;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_msg(rescue_annotator_add(st, name, role, tok, &existed) == 0, "%s",
                rescue_store_errmsg(st));
  rescue_store_close(&st);
}

/* `rescue import <db> dir/file --annotator who`, which must succeed. */
static void import_as(const char *file, const char *who) {
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, file), "--annotator", who, NULL), 0);
}

/*
** ann and bob differ on row 1 in utterance_type, tone_of_voice and the intensity of Maya's
** internal emotion (its description they share); every other value they share. carl is
** registered but annotated nothing; lea is the lead.
*/
static void make_corpus(void) {
  static const char *const ann[] = {"\"tone_of_voice\": \"tight, frustrated\"",
                                    "\"tone_of_voice\": \"tight\""};
  static const char *const bob[] = {"\"utterance_type\": \"accusation\"",
                                    "\"utterance_type\": \"disclosure\"", "\"intensity\": 6",
                                    "\"intensity\": 7"};
  char path[4096], tok[65];
  db = tu_new_corpus();
  dir = strdup(db);
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  add("ann", NULL, tok_ann);
  add("bob", NULL, tok_bob);
  add("carl", NULL, tok);
  add("lea", "lead", tok_lea);
  variant("ann.jsonl", ann, 2);
  variant("bob.jsonl", bob, 4);
  import_as("ann.jsonl", "ann");
  import_as("bob.jsonl", "bob");
}

static void drop_corpus(void) {
  free(db);
  free(dir);
  db = dir = NULL;
}

/* A copy of the corpus file, its path in copy, to compare with after a refused command. */
static void copy_corpus(char *copy, size_t n) {
  size_t len;
  char *bytes = tu_read(db, &len);
  ck_assert_ptr_nonnull(bytes);
  snprintf(copy, n, "%s.copy", db);
  tu_write_n(copy, bytes, len);
  free(bytes);
}

/* The store opened on the corpus (caller closes) and SAMPLE's state in *s (caller clears). */
static rescue_store *open_state(rescue_curate_state *s) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_msg(rescue_curate_load(st, SAMPLE, s) == 0, "%s", rescue_store_errmsg(st));
  return st;
}

/* A count from the corpus. */
static long count(const char *sql) {
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

/* One text from the corpus (caller frees), or NULL. */
static char *text_of(const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *q;
  char *s = NULL;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  if (sqlite3_step(q) == SQLITE_ROW && sqlite3_column_text(q, 0))
    s = strdup((const char *)sqlite3_column_text(q, 0));
  sqlite3_finalize(q);
  sqlite3_close(h);
  return s;
}

#define GOLD_OF(pos)                                                                               \
  "SELECT v.content FROM row_version v JOIN row_in r ON r.id = v.row_id JOIN sample s ON "         \
  "s.rowset_id = r.rowset_id WHERE v.kind = 'gold' AND r.position = " #pos                         \
  " ORDER BY v.id DESC LIMIT 1"

/* ---- the library ---- */

/* The value set at path in row `pos` of the state, or NULL. */
static const rescue_curate_value_set *value_at(const rescue_curate_state *s, int pos,
                                               const char *path) {
  for (int i = 0; i < s->rows[pos - 1].n_values; i++)
    if (strcmp(s->rows[pos - 1].values[i].path, path) == 0)
      return &s->rows[pos - 1].values[i];
  return NULL;
}

START_TEST(state_of_two_coders) {
  rescue_store *st = NULL;
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  int i, undecided = 0;
  static const char *const gpt[] = {"\"tone_of_voice\": \"low, guarded\"",
                                    "\"tone_of_voice\": \"bored\""};
  char tok[65];
  make_corpus();
  /* a model's draft is shown beside the people, marked, and never votes */
  add("gpt", "model", tok);
  variant("gpt.jsonl", gpt, 2);
  import_as("gpt.jsonl", "gpt");
  st = open_state(&s);
  /* coders: the two people, the model, the draft, marked; carl annotated nothing */
  ck_assert_int_eq(s.n_coders, 4);
  ck_assert_str_eq(s.coders[0].name, "ann");
  ck_assert_str_eq(s.coders[1].name, "bob");
  ck_assert_str_eq(s.coders[2].name, "gpt");
  ck_assert_str_eq(s.coders[2].kind, "model");
  ck_assert_str_eq(s.coders[3].name, "draft");
  ck_assert_str_eq(s.coders[3].kind, "draft");
  v = value_at(&s, 2, "/tone_of_voice");
  ck_assert(v->decided && !v->differ);
  ck_assert_str_eq(v->values[2].value, "\"bored\"");
  ck_assert_int_eq(s.n_rows, 9);
  for (i = 0; i < s.n_rows; i++)
    undecided += s.rows[i].undecided;
  ck_assert_int_eq(undecided, 3);
  ck_assert_int_eq(s.rows[0].undecided, 3);
  /* the internal emotion is undecided in its intensity only; its description is agreed */
  v = value_at(&s, 1, "/internal_emotion/Maya/intensity");
  ck_assert_ptr_nonnull(v);
  ck_assert(!v->decided && v->differ);
  ck_assert_str_eq(v->values[0].value, "6");
  ck_assert_str_eq(v->values[1].value, "7");
  ck_assert_str_eq(v->prov.how, "undecided");
  v = value_at(&s, 1, "/internal_emotion/Maya/emotion_description");
  ck_assert_ptr_nonnull(v);
  ck_assert(v->decided && !v->differ);
  ck_assert_str_eq(v->prov.how, "agreed");
  v = value_at(&s, 1, "/utterance_type");
  ck_assert(!v->decided);
  ck_assert_str_eq(v->values[1].value, "\"disclosure\"");
  ck_assert_str_eq(v->values[3].value, "\"accusation\"");
  v = value_at(&s, 1, "/target");
  ck_assert(v->decided);
  ck_assert_str_eq(v->gold, "[\"Therapist\"]");
  rescue_curate_state_clear(&s);
  /* a decision changes its own value only; a refused one nothing */
  {
    rescue_curate_decision d = {.sample_id = SAMPLE,
                                .row = 1,
                                .field = "/internal_emotion/Maya/intensity",
                                .op = RESCUE_CURATE_TAKE,
                                .take = "bob",
                                .base_version = -1};
    rescue_curate_outcome o;
    ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
    ck_assert_int_eq(o.gold_version, 0);
    ck_assert_int_eq(o.version, 1);
    rescue_curate_outcome_clear(&o);
    d.field = "utterance_type";
    d.op = RESCUE_CURATE_VALUE;
    d.value = "\"nonsense\"";
    d.value_len = strlen(d.value);
    ck_assert_int_eq(rescue_curate_decide(st, "lea", &d, &o), RESCUE_EBADINPUT);
    ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "R06"));
    ck_assert_int_gt(o.lint.errors, 0);
    rescue_curate_outcome_clear(&o);
    /* only a lead decides (the name is right, the corpus refuses it: bad input) */
    d.value = "\"request\"";
    d.value_len = strlen(d.value);
    ck_assert_int_eq(rescue_curate_decide(st, "ann", &d, &o), RESCUE_EBADINPUT);
    rescue_curate_outcome_clear(&o);
  }
  ck_assert_msg(rescue_curate_load(st, SAMPLE, &s) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(s.rows[0].undecided, 2);
  v = value_at(&s, 1, "/internal_emotion/Maya/intensity");
  ck_assert(v->decided);
  ck_assert_str_eq(v->gold, "7");
  ck_assert_str_eq(v->prov.how, "taken");
  ck_assert_str_eq(v->prov.from, "bob");
  ck_assert_str_eq(v->prov.by, "lea");
  ck_assert_ptr_nonnull(v->prov.at);
  ck_assert(!value_at(&s, 1, "/utterance_type")->decided);
  ck_assert_int_eq(s.rows[0].version, 1);
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"),
                   8); /* the rows both agree on */
  drop_corpus();
}
END_TEST

/* bob splits row `row` of his view in the middle of its times (the library's call). */
static void split_bob(rescue_store *st, int row) {
  rescue_view_sample vs;
  rescue_resegment op = {.op = RESCUE_RESEG_SPLIT, .row = row};
  int64_t bob;
  ck_assert_int_eq(rescue_annotator_id(st, "bob", NULL, 0, &bob), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, SAMPLE, bob, &vs), 0);
  op.base_version = vs.versions[row - 1];
  op.at = (rescue_jget(vs.rows[row - 1], "start_time")->num +
           rescue_jget(vs.rows[row - 1], "end_time")->num) /
          2;
  rescue_view_sample_clear(&vs);
  ck_assert_msg(rescue_sample_resegment(st, SAMPLE, bob, &op, NULL, NULL) == 0, "%s",
                rescue_store_errmsg(st));
}

/*
** bob splits row 3 and the lead chooses his row set: the rows after the split are no
** disagreement (row_index is the gold position, the evidence rows of row 7, now 8, are
** the same rows for both coders) and row_index is no decision.
*/
START_TEST(split_is_no_disagreement) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  rescue_curate_outcome o;
  rescue_curate_decision d = {.sample_id = SAMPLE,
                              .row = 8,
                              .field = "row_index",
                              .op = RESCUE_CURATE_VALUE,
                              .value = "8",
                              .value_len = 1,
                              .base_version = -1};
  int p;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  split_bob(st, 3);
  ck_assert_msg(rescue_curate_segmentation(st, "lea", SAMPLE, "bob") == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_msg(rescue_curate_load(st, SAMPLE, &s) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(s.n_rows, 10);
  for (p = 1; p <= s.n_rows; p++) {
    v = value_at(&s, p, "/row_index");
    ck_assert_ptr_nonnull(v);
    ck_assert_msg(v->decided && !v->differ, "row %d: row_index offered", p);
    ck_assert_int_eq(atoi(v->gold), p);
    if (p >= 5)
      ck_assert_msg(s.rows[p - 1].undecided == 0, "row %d: %d undecided", p,
                    s.rows[p - 1].undecided);
  }
  v = value_at(&s, 8, "/relation_pattern_evidence_rows");
  ck_assert(v->decided && !v->differ);
  ck_assert_str_eq(v->values[0].value, "[7, 8]");
  ck_assert_str_eq(v->gold, "[7, 8]");
  rescue_curate_state_clear(&s);
  ck_assert_int_eq(rescue_curate_decide(st, "lea", &d, &o), RESCUE_EBADINPUT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "position in the gold row set"));
  rescue_curate_outcome_clear(&o);
  /* the split row's times are bob's, from his segmentation, in curation and after a policy */
  for (p = 0; p < 2; p++) {
    if (p) {
      rescue_store_close(&st);
      ck_assert_int_eq(tu_rescue(NULL, NULL, "adjudicate", db, "--policy", "majority", NULL), 0);
      ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
    }
    ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
    v = value_at(&s, 3, "/end_time");
    ck_assert_msg(strcmp(v->prov.how, "policy") == 0 && v->prov.policy &&
                      strcmp(v->prov.policy, "segmentation") == 0 && v->prov.from &&
                      strcmp(v->prov.from, "bob") == 0,
                  "end_time of the split row (%s): %s %s %s", p ? "after majority" : "curation",
                  v->prov.how, v->prov.policy ? v->prov.policy : "-",
                  v->prov.from ? v->prov.from : "-");
    ck_assert_str_eq(value_at(&s, 2, "/start_time")->prov.policy, "segmentation");
    rescue_curate_state_clear(&s);
  }
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

/* The line of `rescue log` holding what, which must name who (1), or 0 without such a line. */
static int logged_by(const char *what, const char *who) {
  char *out = NULL, *line, *save = NULL;
  int found = 0;
  ck_assert_int_eq(tu_rescue(&out, NULL, "log", db, NULL), 0);
  for (line = strtok_r(out, "\n", &save); line && !found; line = strtok_r(NULL, "\n", &save))
    if (strstr(line, what)) {
      ck_assert_msg(strstr(line, who) != NULL, "logged without %s: %s", who, line);
      found = 1;
    }
  free(out);
  return found;
}

/*
** Rows every coder agrees on get gold when the lead keeps the segmentation (twice: the
** second writes nothing new) or after any decision, with provenance "agreed".
*/
START_TEST(agreed_rows_get_gold) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_state s;
  rescue_curate_outcome o;
  rescue_curate_decision d = {.sample_id = SAMPLE,
                              .row = 1,
                              .field = "utterance_type",
                              .op = RESCUE_CURATE_TAKE,
                              .take = "bob",
                              .base_version = -1};
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_msg(rescue_curate_segmentation(st, "lea", SAMPLE, "draft") == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  ck_assert_msg(rescue_curate_segmentation(st, "lea", SAMPLE, "ann") == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  ck_assert_int_eq(s.rows[0].gold_version, 0);
  ck_assert_int_gt(s.rows[1].gold_version, 0);
  ck_assert_str_eq(value_at(&s, 2, "/tone_of_voice")->prov.how, "agreed");
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  ck_assert(logged_by("gold segmentation of", "lea"));
  drop_corpus();
  /* without the segmentation step: the first decision writes the agreed rows' gold */
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(o.gold_version, 0);
  rescue_curate_outcome_clear(&o);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  rescue_store_close(&st);
  /* the log names the lead for the decision (and, above, the segmentation) */
  ck_assert(logged_by("row 1 utterance_type: take bob", "lea"));
  drop_corpus();
}
END_TEST

/* ---- the API ---- */

typedef struct resp {
  int status;
  char *body;
} resp;

/* One request as tok on a fresh connection (tests/testutil_http.c); the body of the answer. */
static resp http(int port, const char *method, const char *path, const char *tok,
                 const char *body) {
  tu_resp t = tu_http(port, method, path, tu_bearer(tok), body, body ? strlen(body) : 0);
  resp r = {t.status, t.body};
  free(t.head);
  return r;
}

#define expect(r, want) TU_EXPECT(&(r), want)

/* One request as tok whose status must be want; nothing kept of the answer. */
static void call(int port, const char *method, const char *path, const char *tok, const char *body,
                 int want) {
  resp r = http(port, method, path, tok, body);
  expect(r, want);
  free(r.body);
}

/* The value object at path in row 1 of a state (or of {"state": ...}). */
static json_t *row_value(json_t *j, const char *path) {
  json_t *s = json_object_get(j, "state") ? json_object_get(j, "state") : j;
  json_t *vals = json_object_get(json_array_get(json_object_get(s, "rows"), 0), "values");
  for (size_t i = 0; i < json_array_size(vals); i++)
    if (strcmp(json_string_value(json_object_get(json_array_get(vals, i), "path")), path) == 0)
      return json_array_get(vals, i);
  return NULL;
}

/* The row-1 version of a state (or of {"state": ...}). */
static long long row_version(json_t *j) {
  json_t *s = json_object_get(j, "state") ? json_object_get(j, "state") : j;
  return json_integer_value(
      json_object_get(json_array_get(json_object_get(s, "rows"), 0), "version"));
}

/* PUT one decision on row 1 as tok; the parsed answer in *j (caller decrefs). */
static resp decide(int port, const char *tok, const char *body, json_t **j) {
  json_error_t je;
  resp r = http(port, "PUT", CPATH "/rows/1", tok, body);
  *j = json_loads(r.body, 0, &je);
  ck_assert_msg(*j != NULL, "not JSON: %s", r.body);
  return r;
}

/*
** PUT {"base_version": ver, <fields>} on row 1 as tok; the status must be want. The parsed
** answer (caller decrefs); its text in *text (caller frees) unless text is NULL.
*/
static json_t *decide_at(int port, const char *tok, long long ver, const char *fields, int want,
                         char **text) {
  char body[600];
  json_t *j;
  resp r;
  snprintf(body, sizeof body, "{\"base_version\": %lld, %s}", ver, fields);
  r = decide(port, tok, body, &j);
  expect(r, want);
  if (text)
    *text = r.body;
  else
    free(r.body);
  return j;
}

START_TEST(api_statuses) {
  rescue_server *srv = NULL;
  rescue_serve_opts so = {0};
  rescue_error err = RESCUE_ERROR_INIT;
  json_error_t je;
  json_t *j, *v;
  resp r;
  char body[600], *gold, *text;
  long long ver, queue_values;
  int port;
  make_corpus();
  so.db = db;
  so.listen = "127.0.0.1:0";
  ck_assert_msg(rescue_serve_start(&so, &srv, &err) == 0, "%s", err.msg);
  port = rescue_serve_port(srv);

  /* the queue: 403 for an annotator; the sample with its 3 undecided values for the lead */
  call(port, "GET", "/api/curate", tok_ann, NULL, 403);
  r = http(port, "GET", "/api/curate?open=1", tok_lea, NULL);
  expect(r, 200);
  j = json_loads(r.body, 0, &je);
  v = json_array_get(json_object_get(j, "samples"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(v, "sample_id")), SAMPLE);
  ck_assert_int_eq(json_integer_value(json_object_get(v, "undecided")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(v, "rows")), 9);
  queue_values = json_integer_value(json_object_get(v, "values"));
  json_decref(j);
  free(r.body);

  /* the coders' comments on row 1 (bob's, then ann's), not the sample's nor row 2's */
  call(port, "POST", "/api/samples/" SAMPLE "/comments", tok_bob,
       "{\"text\": \"disclosure, she is opening up\", \"row\": 1}", 200);
  call(port, "POST", "/api/samples/" SAMPLE "/comments", tok_ann,
       "{\"text\": \"sounds like an accusation to me\", \"row\": 1}", 200);
  call(port, "POST", "/api/samples/" SAMPLE "/comments", tok_ann, "{\"text\": \"noisy audio\"}",
       200);

  /* the sample: 403 for an annotator; each coder's value for the lead */
  call(port, "GET", CPATH, tok_bob, NULL, 403);
  r = http(port, "GET", CPATH, tok_lea, NULL);
  expect(r, 200);
  j = json_loads(r.body, 0, &je);
  {
    json_t *rows = json_object_get(j, "rows");
    json_t *c1 = json_object_get(json_array_get(rows, 0), "comments");
    ck_assert_int_eq((int)json_array_size(c1), 2);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c1, 0), "annotator")), "bob");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c1, 0), "text")),
                     "disclosure, she is opening up");
    ck_assert(json_is_string(json_object_get(json_array_get(c1, 0), "created_at")));
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(c1, 1), "annotator")), "ann");
    ck_assert_int_eq((int)json_array_size(json_object_get(json_array_get(rows, 1), "comments")), 0);
  }
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(json_object_get(j, "coders"), 2), "kind")),
      "draft");
  v = row_value(j, "/internal_emotion/Maya/intensity");
  ck_assert_ptr_nonnull(v);
  ck_assert(json_is_false(json_object_get(v, "decided")));
  ck_assert_int_eq(json_integer_value(json_object_get(j, "values")), queue_values);
  ver = row_version(j);
  json_decref(j);
  free(r.body);

  /* 403: an annotator may not decide */
  json_decref(
      decide_at(port, tok_ann, ver, "\"field\": \"utterance_type\", \"take\": \"bob\"", 403, NULL));

  /* 400: an unknown field, an unknown item, a coder without a version, an unknown name */
  j = decide_at(port, tok_lea, ver, "\"field\": \"utterance_typo\", \"take\": \"bob\"", 400, &text);
  ck_assert_ptr_nonnull(strstr(text, "has no field '/utterance_typo'"));
  json_decref(j);
  free(text);
  j = decide_at(port, tok_lea, ver, "\"field\": \"/internal_emotion/Zed/intensity\", \"value\": 3",
                400, &text);
  ck_assert_ptr_nonnull(strstr(text, "has no part"));
  json_decref(j);
  free(text);
  j = decide_at(port, tok_lea, ver, "\"field\": \"utterance_type\", \"take\": \"carl\"", 400,
                &text);
  ck_assert_ptr_nonnull(strstr(text, "'carl' has no version of sample"));
  json_decref(j);
  free(text);

  /* 400 with lint findings: an out-of-set label; a target holding the speaker */
  j = decide_at(port, tok_lea, ver, "\"field\": \"utterance_type\", \"value\": \"grumble\"", 400,
                &text);
  ck_assert_int_gt((int)json_array_size(json_object_get(j, "findings")), 0);
  ck_assert_ptr_nonnull(strstr(text, "R06"));
  json_decref(j);
  free(text);
  j = decide_at(port, tok_lea, ver, "\"field\": \"target\", \"value\": [\"Maya\"]", 400, &text);
  ck_assert_ptr_nonnull(strstr(text, "R05"));
  json_decref(j);
  free(text);
  ck_assert_int_eq(count("SELECT count(*) FROM field_decision"), 0);

  /* 200: one part of a list item, taken from bob */
  j = decide_at(port, tok_lea, ver,
                "\"field\": \"/internal_emotion/Maya/intensity\", \"take\": \"bob\"", 200, NULL);
  ck_assert(json_is_null(json_object_get(j, "gold_version")));
  v = row_value(j, "/internal_emotion/Maya/intensity");
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(v, "provenance"), "from")),
                   "bob");
  ck_assert_int_eq(json_integer_value(json_object_get(v, "gold")), 7);
  ck_assert_int_eq(row_version(j), ver + 1);
  json_decref(j);

  /* 409: the version the lead saw is no longer the row's, with the newer state */
  j = decide_at(port, tok_lea, ver, "\"field\": \"utterance_type\", \"take\": \"bob\"", 409, NULL);
  ck_assert_int_eq(row_version(j), ver + 1);
  json_decref(j);
  ver++;

  /* the last two values: gold is written when the last one is decided, not before */
  j = decide_at(port, tok_lea, ver++, "\"field\": \"utterance_type\", \"take\": \"bob\"", 200,
                NULL);
  ck_assert(json_is_null(json_object_get(j, "gold_version")));
  json_decref(j);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"),
                   8); /* the agreed rows, not row 1 */
  j = decide_at(port, tok_lea, ver++, "\"field\": \"tone_of_voice\", \"value\": \"clipped\"", 200,
                NULL);
  ck_assert(json_is_integer(json_object_get(j, "gold_version")));
  json_decref(j);
  ver++; /* the gold version */
  gold = text_of(GOLD_OF(1));
  ck_assert_ptr_nonnull(strstr(gold, "\"utterance_type\": \"disclosure\""));
  ck_assert_ptr_nonnull(strstr(gold, "\"tone_of_voice\": \"clipped\""));
  ck_assert_ptr_nonnull(strstr(gold, "\"intensity\": 7"));
  ck_assert_ptr_nonnull(
      strstr(gold, "\"emotion_description\": \"feels shut out when money comes up\""));
  free(gold);
  /* every value's provenance is in the store */
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance p JOIN annotator a ON a.id = "
                         "p.decided_by WHERE p.path = '/tone_of_voice' AND p.how = 'edited' AND "
                         "a.name = 'lea'"),
                   1);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance p JOIN annotator a ON a.id = "
                         "p.coder_id WHERE p.path = '/utterance_type' AND p.how = 'taken' AND "
                         "a.name = 'bob'"),
                   1);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance WHERE path = '/target' AND how = "
                         "'agreed'"),
                   9); /* row 1 and the 8 rows agreed throughout */

  /* undo of the decision that completed the row: back to undecided, and its gold version
     is retired (kept in gold_retired), so gold matches the decisions again; on the
     previous main it stayed */
  j = decide_at(port, tok_lea, ver++, "\"field\": \"tone_of_voice\", \"undo\": true", 200, NULL);
  v = row_value(j, "/tone_of_voice");
  ck_assert(json_is_false(json_object_get(v, "decided")));
  ck_assert(json_is_null(json_object_get(
      json_array_get(json_object_get(json_object_get(j, "state"), "rows"), 0), "gold_version")));
  ck_assert_int_eq(row_version(j), ver); /* the version still grows */
  json_decref(j);
  ck_assert_ptr_null(text_of(GOLD_OF(1)));
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance WHERE how <> 'agreed'"), 0);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_retired WHERE content LIKE "
                         "'%\"tone_of_voice\": \"clipped\"%' AND undo_id IS NOT NULL"),
                   1);
  /* a stale client (the version before the undo) is told so */
  json_decref(decide_at(port, tok_lea, ver - 1, "\"field\": \"tone_of_voice\", \"take\": \"ann\"",
                        409, NULL));
  /* taking ann's tone decides the row again: a new gold version at once */
  j = decide_at(port, tok_lea, ver++, "\"field\": \"tone_of_voice\", \"take\": \"ann\"", 200, NULL);
  ck_assert(json_is_integer(json_object_get(j, "gold_version")));
  json_decref(j);
  ver++;
  gold = text_of(GOLD_OF(1));
  ck_assert_ptr_nonnull(strstr(gold, "\"tone_of_voice\": \"tight\""));
  ck_assert_ptr_nonnull(strstr(gold, "\"utterance_type\": \"disclosure\""));
  free(gold);
  /* a row already gold: an edit of an agreed value writes a new gold version at once */
  j = decide_at(port, tok_lea, ver++,
                "\"field\": \"/body_posture/Maya/description\", \"value\": \"arms crossed\"", 200,
                NULL);
  ck_assert(json_is_integer(json_object_get(j, "gold_version")));
  json_decref(j);
  gold = text_of(GOLD_OF(1));
  ck_assert_ptr_nonnull(strstr(
      gold, "\"body_posture\": [{\"person\": \"Maya\", \"description\": \"arms crossed\"}]"));
  ck_assert_ptr_nonnull(strstr(gold, "\"tone_of_voice\": \"tight\""));
  free(gold);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 10);

  /* the gold row set: ann's is the base one; carl has none; 403 for an annotator */
  call(port, "PUT", CPATH "/segmentation", tok_lea, "{\"from\": \"ann\"}", 200);
  call(port, "PUT", CPATH "/segmentation", tok_lea, "{\"from\": \"carl\"}", 400);
  call(port, "PUT", CPATH "/segmentation", tok_ann, "{\"from\": \"ann\"}", 403);
  /* bob splits a row: his row set is no longer the base one (409) */
  r = http(port, "POST", "/api/samples/" SAMPLE "/segmentation", tok_bob,
           "{\"op\": \"split\", \"row\": 9, \"at\": 25.0, \"base_version\": 0}");
  if (r.status == 409 || r.status == 400) {
    /* the split needs the version bob sees */
    json_t *s;
    resp g = http(port, "GET", "/api/samples/" SAMPLE, tok_bob, NULL);
    long long bv;
    double a, b;
    free(r.body);
    s = json_loads(g.body, 0, &je);
    v = json_array_get(json_object_get(s, "rows"), 8);
    bv = json_integer_value(json_object_get(v, "version"));
    a = json_number_value(json_object_get(json_object_get(v, "row"), "start_time"));
    b = json_number_value(json_object_get(json_object_get(v, "row"), "end_time"));
    snprintf(body, sizeof body,
             "{\"op\": \"split\", \"row\": 9, \"at\": %.3f, \"base_version\": %lld}", (a + b) / 2,
             bv);
    json_decref(s);
    free(g.body);
    r = http(port, "POST", "/api/samples/" SAMPLE "/segmentation", tok_bob, body);
  }
  expect(r, 200);
  free(r.body);
  /* the lead chooses bob's segmentation: gold rows are now bob's row set, one row more */
  {
    long before = count("SELECT count(*) FROM rowset_member WHERE rowset_id = "
                        "(SELECT rowset_id FROM sample WHERE sample_id = '" SAMPLE "')");
    long bobs = count("SELECT count(*) FROM rowset_member m JOIN annotator_rowset ar ON "
                      "ar.rowset_id = m.rowset_id JOIN annotator a ON a.id = ar.annotator_id "
                      "WHERE a.name = 'bob'");
    json_t *s, *q;
    resp r2;
    ck_assert_int_eq(bobs, before + 1);
    r = http(port, "PUT", CPATH "/segmentation", tok_lea, "{\"from\": \"bob\"}");
    expect(r, 200);
    free(r.body);
    r = http(port, "GET", CPATH, tok_lea, NULL);
    expect(r, 200);
    s = json_loads(r.body, 0, &je);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq((long)json_array_size(json_object_get(s, "rows")), bobs);
    /* the queue's counts (read without the sample's full state) are the state's */
    r2 = http(port, "GET", "/api/curate", tok_lea, NULL);
    expect(r2, 200);
    q = json_loads(r2.body, 0, &je);
    v = json_array_get(json_object_get(q, "samples"), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(v, "values")),
                     json_integer_value(json_object_get(s, "values")));
    ck_assert_int_eq(json_integer_value(json_object_get(v, "undecided")),
                     json_integer_value(json_object_get(s, "values")) -
                         json_integer_value(json_object_get(s, "decided")));
    ck_assert_int_eq(json_integer_value(json_object_get(v, "rows")), bobs);
    json_decref(q);
    free(r2.body);
    json_decref(s);
    free(r.body);
  }
  rescue_serve_stop(&srv);
  drop_corpus();
}
END_TEST

/* ---- the command line ---- */

/* Run adjudicate --decide with the file text as lea; exit status, stdout and stderr. */
static int run_decide(const char *text, char **out, char **errs, const char *extra) {
  tu_write(tu_path(dir, "decisions.jsonl"), text);
  return tu_rescue(out, errs, "adjudicate", db, "--decide", tu_path(dir, "decisions.jsonl"),
                   "--lead", "lea", extra, NULL);
}

#define LINE(row, rest) "{\"sample_id\": \"" SAMPLE "\", \"row_index\": " #row ", " rest "}\n"

/* A refused file: exit 1, the message names line `line` and holds what; the store as it was. */
static void refused(const char *text, int line, const char *what) {
  char copy[4200], want[64], *out = NULL, *errs = NULL;
  copy_corpus(copy, sizeof copy);
  ck_assert_int_eq(run_decide(text, &out, &errs, NULL), 1);
  snprintf(want, sizeof want, "decisions.jsonl:%d:", line);
  ck_assert_msg(strstr(errs, want) != NULL, "no '%s' in: %s", want, errs);
  ck_assert_msg(strstr(errs, what) != NULL, "no '%s' in: %s", what, errs);
  ck_assert_msg(strncmp(errs, "rescue: adjudicate: ", 20) == 0, "%s", errs);
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(errs);
}

START_TEST(cli_same_rules) {
  static const char *ok = LINE(1, "\"field\": \"utterance_type\", \"take\": \"bob\"");
  char text[2000], *out = NULL, *errs = NULL, *before, *after;
  make_corpus();
  /* an unknown field, after a good line: nothing of the file is written */
  snprintf(text, sizeof text, "%s%s", ok,
           LINE(1, "\"field\": \"utterance_typo\", \"value\": \"request\""));
  refused(text, 2, "has no field '/utterance_typo'");
  /* a coder without a version of the sample, a name nobody has, an item nobody has */
  refused(LINE(1, "\"field\": \"utterance_type\", \"take\": \"carl\""), 1,
          "'carl' has no version of sample");
  refused(LINE(1, "\"field\": \"utterance_type\", \"take\": \"zed\""), 1, "zed");
  snprintf(text, sizeof text, "%s%s", ok,
           LINE(1, "\"field\": \"/internal_emotion/Zoe/intensity\", \"value\": 3"));
  refused(text, 2, "has no part '/internal_emotion/Zoe/intensity'");
  /* an out-of-set label, a target holding the speaker, a type on a therapist row */
  refused(LINE(1, "\"field\": \"utterance_type\", \"value\": \"grumble\""), 1, "R06");
  refused(LINE(1, "\"field\": \"target\", \"value\": [\"Maya\"]"), 1, "R05");
  refused(LINE(4, "\"field\": \"utterance_type\", \"value\": \"defense\""), 1, "R06");
  /* --dry-run writes nothing, the log included */
  {
    char copy[4200];
    copy_corpus(copy, sizeof copy);
    ck_assert_int_eq(run_decide(ok, &out, &errs, "--dry-run"), 0);
    ck_assert_ptr_nonnull(strstr(out, "(dry run: nothing written) 1 decision by lea checked"));
    ck_assert(tu_same_file(db, copy));
    free(out);
    free(errs);
  }
  /* a policy run, then one decision: only that value of that row changes */
  ck_assert_int_eq(tu_rescue(&out, &errs, "adjudicate", db, "--policy", "majority", NULL), 0);
  free(out);
  free(errs);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  /* the policy's gold records its provenance: every value of rows 2..9 agreed */
  ck_assert_int_eq(count("SELECT count(DISTINCT version_id) FROM gold_provenance"), 8);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance WHERE how <> 'agreed'"), 0);
  before = text_of(GOLD_OF(2));
  ck_assert_int_eq(
      run_decide(LINE(2, "\"field\": \"tone_of_voice\", \"value\": \"flat\""), &out, &errs, NULL),
      0);
  ck_assert_ptr_nonnull(
      strstr(out, "1 decision by lea recorded in 1 sample: 1 gold version written"));
  free(out);
  free(errs);
  after = text_of(GOLD_OF(2));
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 9);
  {
    char *expect_after =
        replace1(before, "\"tone_of_voice\": \"low, guarded\"", "\"tone_of_voice\": \"flat\"");
    ck_assert_str_eq(after, expect_after);
    free(expect_after);
  }
  free(before);
  free(after);
  /* the log records the decisions, not a policy run */
  ck_assert_int_eq(
      count("SELECT count(*) FROM audit WHERE detail = '1 decision by lea: 1 gold version "
            "written'"),
      1);
  drop_corpus();
}
END_TEST

/*
** After `--policy lead` made the lead's whole version gold, one decision on another row
** re-ran majority over the sample on main: here row 1 keeps the lead's value.
*/
START_TEST(cli_no_policy_rerun) {
  static const char *const lea[] = {"\"utterance_type\": \"accusation\"",
                                    "\"utterance_type\": \"request\""};
  char *out = NULL, *errs = NULL, *g1;
  make_corpus();
  variant("lea.jsonl", lea, 2);
  /* ann and bob agree on row 1's type here: bob's file said disclosure, so re-import */
  import_as("ann.jsonl", "bob");
  import_as("lea.jsonl", "lea");
  ck_assert_int_eq(
      tu_rescue(&out, &errs, "adjudicate", db, "--policy", "lead", "--lead", "lea", NULL), 0);
  free(out);
  free(errs);
  g1 = text_of(GOLD_OF(1));
  ck_assert_ptr_nonnull(strstr(g1, "\"utterance_type\": \"request\""));
  ck_assert_int_eq(
      run_decide(LINE(2, "\"field\": \"tone_of_voice\", \"value\": \"flat\""), &out, &errs, NULL),
      0);
  free(out);
  free(errs);
  {
    char *g1b = text_of(GOLD_OF(1));
    ck_assert_str_eq(g1b, g1);
    free(g1b);
  }
  /* the lead policy's choice is recorded as such, with the lead; agreed values as agreed */
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance p JOIN annotator a ON a.id = "
                         "p.decided_by WHERE p.path = '/utterance_type' AND p.how = 'policy' "
                         "AND p.policy = 'lead' AND a.name = 'lea'"),
                   1);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance WHERE path = '/target' AND how = "
                         "'agreed'"),
                   10); /* the policy's 9 rows and row 2's new gold */
  /* and the curation state shows it; the decided tone as edited by lea */
  {
    rescue_curate_state s;
    rescue_store *st = open_state(&s);
    const rescue_curate_value_set *v;
    v = value_at(&s, 1, "/utterance_type");
    ck_assert_str_eq(v->prov.how, "policy");
    ck_assert_str_eq(v->prov.policy, "lead");
    ck_assert_str_eq(v->prov.by, "lea");
    v = value_at(&s, 2, "/tone_of_voice");
    ck_assert_str_eq(v->prov.how, "edited");
    ck_assert_str_eq(v->gold, "\"flat\"");
    ck_assert_int_eq(s.rows[1].undecided, 0);
    rescue_curate_state_clear(&s);
    rescue_store_close(&st);
  }
  free(g1);
  drop_corpus();
}
END_TEST

/*
** A lead's decision on one part of a list item survives a later policy run: lea takes
** ann's intensity of Maya's internal emotion, then `adjudicate --policy majority` (bob and
** carl outvote ann) writes gold with ann's intensity and bob's other values. On the
** previous main the policy's gold had bob's intensity. A second run writes nothing.
*/
START_TEST(policy_keeps_part_decision) {
  char *out = NULL, *errs = NULL, *g;
  make_corpus();
  import_as("bob.jsonl", "carl");
  ck_assert_int_eq(run_decide(LINE(1, "\"field\": \"/internal_emotion/Maya/intensity\", "
                                      "\"take\": \"ann\""),
                              &out, &errs, NULL),
                   0);
  free(out);
  free(errs);
  /* the 8 rows everyone agrees on (cli_decide_writes_agreed_rows) */
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  ck_assert_int_eq(tu_rescue(&out, &errs, "adjudicate", db, "--policy", "majority", NULL), 0);
  free(out);
  free(errs);
  g = text_of(GOLD_OF(1));
  ck_assert_ptr_nonnull(g);
  ck_assert_msg(strstr(g, "\"intensity\": 6"), "%s", g);
  ck_assert_msg(strstr(g, "\"utterance_type\": \"disclosure\""), "%s", g); /* majority */
  ck_assert_msg(strstr(g, "\"tone_of_voice\": \"tight, frustrated\""), "%s", g);
  free(g);
  /* the curation state agrees: the part taken from ann by lea, nothing undecided */
  {
    rescue_curate_state s;
    rescue_store *st = open_state(&s);
    const rescue_curate_value_set *v;
    v = value_at(&s, 1, "/internal_emotion/Maya/intensity");
    ck_assert_ptr_nonnull(v);
    ck_assert_str_eq(v->gold, "6");
    ck_assert_str_eq(v->prov.how, "taken");
    ck_assert_str_eq(v->prov.from, "ann");
    ck_assert_str_eq(v->prov.by, "lea");
    ck_assert_int_eq(s.rows[0].undecided, 0);
    ck_assert_int_eq(s.rows[0].gold_version,
                     count("SELECT max(id) FROM row_version WHERE kind = 'gold' AND "
                           "gold_policy = 'curate'"));
    rescue_curate_state_clear(&s);
    rescue_store_close(&st);
  }
  /* 9 rows of policy gold, row 1 once more with the decision */
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 10);
  ck_assert_int_eq(tu_rescue(&out, &errs, "adjudicate", db, "--policy", "majority", NULL), 0);
  free(out);
  free(errs);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 10);
  g = text_of(GOLD_OF(1));
  ck_assert_msg(strstr(g, "\"intensity\": 6"), "%s", g);
  free(g);
  drop_corpus();
}
END_TEST

/* ---- a coder's row aligned to a gold row of another row set ---- */

/* who splits row `row` of their view at frac of its span (the library's call). */
static void split_at(rescue_store *st, const char *who, int row, double frac) {
  rescue_view_sample vs;
  rescue_resegment op = {.op = RESCUE_RESEG_SPLIT, .row = row};
  double a, b;
  int64_t id;
  ck_assert_int_eq(rescue_annotator_id(st, who, NULL, 0, &id), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, SAMPLE, id, &vs), 0);
  op.base_version = vs.versions[row - 1];
  a = rescue_jget(vs.rows[row - 1], "start_time")->num;
  b = rescue_jget(vs.rows[row - 1], "end_time")->num;
  op.at = a + frac * (b - a);
  rescue_view_sample_clear(&vs);
  ck_assert_msg(rescue_sample_resegment(st, SAMPLE, id, &op, NULL, NULL) == 0, "%s",
                rescue_store_errmsg(st));
}

/* The coder's other row shown on row pos of s (rescue_curate_source), or NULL. */
static const rescue_curate_source *source_of(const rescue_curate_state *s, int pos,
                                             const char *coder) {
  for (int i = 0; i < s->rows[pos - 1].n_sources; i++)
    if (strcmp(s->rows[pos - 1].sources[i].coder, coder) == 0)
      return &s->rows[pos - 1].sources[i];
  return NULL;
}

/* The value object at path in row `row` (1-based) of a whole sample's state. */
static json_t *row_value_at(json_t *j, int row, const char *path) {
  json_t *vals =
      json_object_get(json_array_get(json_object_get(j, "rows"), (size_t)row - 1), "values");
  for (size_t i = 0; i < json_array_size(vals); i++)
    if (strcmp(json_string_value(json_object_get(json_array_get(vals, i), "path")), path) == 0)
      return json_array_get(vals, i);
  return NULL;
}

/*
** ann splits row 1 at 30% of its span and the lead takes her row set as gold; bob kept
** row 1 whole (utterance_type "disclosure" where ann has "accusation", and two more
** values). bob's row covers each half whole: both are the same row as his by the overlap
** rule (at least half of the shorter span), and one to one the greater overlap wins: his values show on gold row 2 (the 70% half) and not on
** row 1, and the state names his row (id and times). There they are disagreements; taking
** bob's values through the API takes his row's; the gold row is lint-clean.
*/
START_TEST(whole_row_on_aligned_half) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_server *srv = NULL;
  rescue_serve_opts so = {0};
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  const rescue_curate_source *src;
  static const char *const paths[] = {"/utterance_type", "/tone_of_voice",
                                      "/internal_emotion/Maya/intensity"};
  json_error_t je;
  json_t *j, *a;
  resp r;
  char body[400], *g;
  int64_t bob_row1;
  long long ver = 0;
  int port, i;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  bob_row1 = count("SELECT r.id FROM row_in r JOIN sample s ON s.rowset_id = r.rowset_id "
                   "WHERE r.position = 1");
  split_at(st, "ann", 1, 0.3);
  ck_assert_msg(rescue_curate_segmentation(st, "lea", SAMPLE, "ann") == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_msg(rescue_curate_load(st, SAMPLE, &s) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(s.n_rows, 10);
  ck_assert_str_eq(s.coders[1].name, "bob");
  /* row 1 (the 30% half): no row of bob's; ann's values agreed */
  v = value_at(&s, 1, "/utterance_type");
  ck_assert(v->decided && !v->differ);
  ck_assert_int_eq(v->values[1].has_row, 0);
  ck_assert_ptr_null(v->values[1].value);
  ck_assert_int_eq(s.rows[0].undecided, 0);
  ck_assert_ptr_null(source_of(&s, 1, "bob"));
  /* row 2 (the 70% half): bob's whole row, a disagreement on each of his three values */
  v = value_at(&s, 2, "/utterance_type");
  ck_assert(!v->decided && v->differ);
  ck_assert_int_eq(v->values[1].has_row, 1);
  ck_assert_str_eq(v->values[1].value, "\"disclosure\"");
  ck_assert_str_eq(v->values[0].value, "\"accusation\"");
  ck_assert_int_eq(s.rows[1].undecided, 3);
  src = source_of(&s, 2, "bob");
  ck_assert_ptr_nonnull(src);
  ck_assert_int_eq(src->row_id, bob_row1);
  ck_assert_int_ne(src->row_id, s.rows[1].row_id);
  ck_assert_ptr_null(source_of(&s, 2, "ann")); /* her own row: the gold row itself */
  for (i = 3; i <= s.n_rows; i++)
    ck_assert_int_eq(s.rows[i - 1].undecided, 0);
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);

  /* the API: the aligned row named with its times; bob's values taken on row 2 */
  so.db = db;
  so.listen = "127.0.0.1:0";
  ck_assert_msg(rescue_serve_start(&so, &srv, &err) == 0, "%s", err.msg);
  port = rescue_serve_port(srv);
  r = http(port, "GET", CPATH, tok_lea, NULL);
  expect(r, 200);
  j = json_loads(r.body, 0, &je);
  ck_assert_ptr_nonnull(j);
  a = json_array_get(json_object_get(json_array_get(json_object_get(j, "rows"), 1), "aligned"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(a, "coder")), "bob");
  ck_assert_int_eq(json_integer_value(json_object_get(a, "row_id")), bob_row1);
  ck_assert(json_real_value(json_object_get(a, "end_time")) >
            json_real_value(json_object_get(a, "start_time")));
  ck_assert_int_eq(
      json_array_size(json_object_get(json_array_get(json_object_get(j, "rows"), 0), "aligned")),
      0);
  ck_assert_str_eq(
      json_string_value(json_object_get(
          json_array_get(json_object_get(row_value_at(j, 2, "/utterance_type"), "coders"), 1),
          "value")),
      "disclosure");
  ver =
      json_integer_value(json_object_get(json_array_get(json_object_get(j, "rows"), 1), "version"));
  json_decref(j);
  free(r.body);
  for (i = 0; i < 3; i++) {
    snprintf(body, sizeof body, "{\"base_version\": %lld, \"field\": \"%s\", \"take\": \"bob\"}",
             ver, paths[i]);
    r = http(port, "PUT", CPATH "/rows/2", tok_lea, body);
    expect(r, 200);
    j = json_loads(r.body, 0, &je);
    ck_assert_ptr_nonnull(j);
    ver = json_integer_value(json_object_get(j, "version"));
    ck_assert_msg(i < 2 || json_integer_value(json_object_get(j, "gold_version")) > 0,
                  "the last decision writes gold: %s", r.body);
    json_decref(j);
    free(r.body);
  }
  rescue_serve_stop(&srv);
  /* every gold row has gold, the row's state has no finding, lint of gold passes */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  snprintf(body, sizeof body, "SELECT content FROM row_version WHERE id = %lld",
           (long long)s.rows[1].gold_version);
  g = text_of(body);
  ck_assert_ptr_nonnull(g);
  ck_assert_msg(strstr(g, "\"utterance_type\": \"disclosure\""), "%s", g);
  ck_assert_msg(strstr(g, "\"tone_of_voice\": \"tight, frustrated\""), "%s", g);
  ck_assert_msg(strstr(g, "\"intensity\": 7"), "%s", g);
  free(g);
  for (i = 0; i < s.n_rows; i++) {
    ck_assert_int_eq(s.rows[i].undecided, 0);
    ck_assert_int_gt(s.rows[i].gold_version, 0);
  }
  ck_assert_int_eq(s.rows[1].lint.n, 0);
  v = value_at(&s, 2, "/utterance_type");
  ck_assert_str_eq(v->prov.how, "taken");
  ck_assert_str_eq(v->prov.from, "bob");
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  {
    /* the one finding is the demo draft's own (R10 on its row 7, gold row 8) */
    char *out = NULL, *errs = NULL;
    tu_rescue(&out, &errs, "lint", db, "--view", "gold", NULL);
    ck_assert_msg(strstr(out, "1 error, 0 warnings") && strstr(out, SAMPLE ":8: error: R10"),
                  "lint --view gold:\n%s%s", out, errs);
    free(out);
    free(errs);
  }
  drop_corpus();
}
END_TEST

/*
** The reverse: bob splits row 1 at 30% and his row set is gold; ann kept row 1 whole. Of
** his two halves one aligns with her row, one to one: the 70% half, where her values
** differ from his; on the other half she has no row, and taking hers there is refused.
*/
START_TEST(halves_align_one_to_one) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_state s;
  rescue_curate_outcome o;
  rescue_curate_decision d = {.sample_id = SAMPLE,
                              .row = 1,
                              .field = "utterance_type",
                              .op = RESCUE_CURATE_TAKE,
                              .take = "ann",
                              .base_version = -1};
  const rescue_curate_value_set *v;
  int shown = 0, p;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  split_at(st, "bob", 1, 0.3);
  ck_assert_msg(rescue_curate_segmentation(st, "lea", SAMPLE, "bob") == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  ck_assert_int_eq(s.n_rows, 10);
  for (p = 1; p <= 2; p++)
    shown += value_at(&s, p, "/utterance_type")->values[0].has_row;
  ck_assert_int_eq(shown, 1);
  v = value_at(&s, 2, "/utterance_type");
  ck_assert_msg(v->values[0].has_row && !v->decided && v->differ, "ann %d %s bob %d %s: %d %d",
                v->values[0].has_row, v->values[0].value ? v->values[0].value : "-",
                v->values[1].has_row, v->values[1].value ? v->values[1].value : "-", v->decided,
                v->differ);
  ck_assert_str_eq(v->values[0].value, "\"accusation\"");
  ck_assert_ptr_nonnull(source_of(&s, 2, "ann"));
  ck_assert_ptr_null(source_of(&s, 1, "ann"));
  ck_assert_int_eq(s.rows[0].undecided, 0);
  ck_assert_int_eq(s.rows[1].undecided, 3);
  rescue_curate_state_clear(&s);
  /* ann has no row aligned with gold row 1: refused; on row 2 hers is taken */
  ck_assert_int_eq(rescue_curate_decide(st, "lea", &d, &o), RESCUE_EBADINPUT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "no row of ann's row set aligns"));
  rescue_curate_outcome_clear(&o);
  d.row = 2;
  ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
  rescue_curate_outcome_clear(&o);
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  v = value_at(&s, 2, "/utterance_type");
  ck_assert(v->decided);
  ck_assert_str_eq(v->gold, "\"accusation\"");
  ck_assert_str_eq(v->prov.from, "ann");
  ck_assert_int_eq(s.rows[1].undecided, 2);
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

/*
** `adjudicate --decide` writes the gold of the rows every coder agrees on, as the browser
** does after a decision (ann and bob agree on rows 2-9): provenance agreed, counted as
** written; a dry run writes none of it.
*/
START_TEST(cli_decide_writes_agreed_rows) {
  static const char *line = LINE(1, "\"field\": \"utterance_type\", \"take\": \"bob\"");
  char *out = NULL, *errs = NULL;
  make_corpus();
  ck_assert_int_eq(run_decide(line, &out, &errs, "--dry-run"), 0);
  free(out);
  free(errs);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 0);
  ck_assert_int_eq(run_decide(line, &out, &errs, "--json"), 0);
  ck_assert_msg(strstr(out, "\"written\": 8") || strstr(out, "\"written\":8"), "%s", out);
  free(out);
  free(errs);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  ck_assert_int_eq(count("SELECT count(*) FROM gold_provenance WHERE path = '/target' AND how = "
                         "'agreed'"),
                   8);
  /* row 1 still waits for its other two values; the second run writes nothing more */
  ck_assert_int_eq(
      run_decide(LINE(1, "\"field\": \"tone_of_voice\", \"take\": \"bob\""), &out, &errs, NULL), 0);
  free(out);
  free(errs);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE kind = 'gold'"), 8);
  drop_corpus();
}
END_TEST

/*
** A gold version an undo retires leaves row_version; its id is never given again: lea
** settles row 1 (its gold the newest version), undoes one value (the gold retired), and
** decides it again: the new gold version has a larger id than the retired one.
*/
START_TEST(retired_gold_id_not_reused) {
  static const char *const fields[] = {"utterance_type", "tone_of_voice",
                                       "/internal_emotion/Maya/intensity"};
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_outcome o;
  rescue_curate_decision d = {
      .sample_id = SAMPLE, .row = 1, .op = RESCUE_CURATE_TAKE, .take = "bob", .base_version = -1};
  int64_t first = 0, retired;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  for (int i = 0; i < 3; i++) {
    d.field = fields[i];
    ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
    first = o.gold_version;
    rescue_curate_outcome_clear(&o);
  }
  ck_assert_int_gt(first, 0);
  ck_assert_int_eq(count("SELECT max(id) FROM row_version"), first);
  d.op = RESCUE_CURATE_UNDO;
  ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
  rescue_curate_outcome_clear(&o);
  retired = count("SELECT max(version_id) FROM gold_retired");
  ck_assert_int_eq(retired, first);
  ck_assert_int_eq(count("SELECT count(*) FROM row_version WHERE id >= (SELECT max(version_id) "
                         "FROM gold_retired)"),
                   0);
  d.op = RESCUE_CURATE_TAKE;
  d.take = "ann";
  ck_assert_msg(rescue_curate_decide(st, "lea", &d, &o) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_gt(o.gold_version, retired);
  rescue_curate_outcome_clear(&o);
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

/* ---- rows a coder segmented otherwise than gold: references, votes, merges ---- */

/*
** who saves row `pos` of their view as it shows it with the first `from` replaced by `to`
** (both NULL: as shown): the library's save, which must write a version.
*/
static void save_shown(rescue_store *st, const char *who, int pos, const char *from,
                       const char *to) {
  rescue_view_sample vs;
  rescue_buf b = RESCUE_BUF_INIT;
  int64_t id, v = 0;
  char *text;
  int unchanged = 0;
  ck_assert_int_eq(rescue_annotator_id(st, who, NULL, 0, &id), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, SAMPLE, id, &vs), 0);
  rescue_jwrite(&b, vs.rows[pos - 1]);
  text = from ? replace1(b.s, from, to) : strdup(b.s);
  ck_assert_msg(rescue_row_save(st, SAMPLE, pos, id, vs.versions[pos - 1], text, strlen(text), &v,
                                &unchanged) == 0,
                "%s", rescue_store_errmsg(st));
  ck_assert_msg(v > 0 && !unchanged, "%s row %d: nothing written", who, pos);
  free(text);
  rescue_buf_clear(&b);
  rescue_view_sample_clear(&vs);
}

/* who merges rows `row` and `row` + 1 of their view (the library's call). */
static void merge_at(rescue_store *st, const char *who, int row) {
  rescue_view_sample vs;
  rescue_resegment op = {.op = RESCUE_RESEG_MERGE, .row = row};
  int64_t id;
  ck_assert_int_eq(rescue_annotator_id(st, who, NULL, 0, &id), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, SAMPLE, id, &vs), 0);
  op.base_version = vs.versions[row - 1];
  op.next_version = vs.versions[row];
  rescue_view_sample_clear(&vs);
  ck_assert_msg(rescue_sample_resegment(st, SAMPLE, id, &op, NULL, NULL) == 0, "%s",
                rescue_store_errmsg(st));
}

/* The latest gold content of row pos of the gold row set (caller frees), or NULL. */
static char *gold_at(rescue_store *st, int pos) {
  rescue_curate_state s;
  char q[200], *g = NULL;
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  if (s.rows[pos - 1].gold_version > 0) {
    snprintf(q, sizeof q, "SELECT content FROM row_version WHERE id = %lld",
             (long long)s.rows[pos - 1].gold_version);
    g = text_of(q);
  }
  rescue_curate_state_clear(&s);
  return g;
}

/* `adjudicate --policy majority` (exit 0), with --segmentation seg unless NULL: its report. */
static char *majority(const char *seg) {
  char *out = NULL, *errs = NULL;
  ck_assert_int_eq(tu_rescue(&out, &errs, "adjudicate", db, "--policy", "majority",
                             seg ? "--segmentation" : NULL, seg, NULL),
                   0);
  free(errs);
  return out;
}

/*
** ann splits row 2 at 70% of its span (her rows 2 and 3) and, on row 3 (her 4), refers to
** the second half only ([1, 3, 4] in her view); bob keeps row 2 whole and refers to rows
** [1, 2, 3]; the lead chooses bob's segmentation. ann's first half pairs with gold row 2,
** her second half with none: her reference to it goes to gold row 2, the row it overlaps
** most, so both coders refer to [1, 2, 3] in curation and in `adjudicate` (on the previous
** main adjudicate dropped it: [1, 3], row 3 undecided and without gold).
*/
START_TEST(ref_to_unpaired_half) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  char *out, *g;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  split_at(st, "ann", 2, 0.7);
  save_shown(st, "ann", 4, "\"relation_pattern_evidence_rows\": [1, 2, 3, 4]",
             "\"relation_pattern_evidence_rows\": [1, 3, 4]");
  rescue_store_close(&st);
  /* adjudicate: gold row 3 agreed, its reference to gold row 2 kept */
  out = majority("bob");
  ck_assert_msg(strstr(out, "8 gold versions written, 0 already gold, 1 undecided"), "%s", out);
  free(out);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  g = gold_at(st, 3);
  ck_assert_msg(g && strstr(g, "\"relation_pattern_evidence_rows\": [1, 2, 3]"), "%s",
                g ? g : "no gold");
  free(g);
  /* curation: the same values, no disagreement */
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  ck_assert_int_eq(s.n_rows, 9);
  v = value_at(&s, 3, "/relation_pattern_evidence_rows");
  ck_assert_ptr_nonnull(v);
  ck_assert_str_eq(s.coders[0].name, "ann");
  ck_assert_str_eq(v->values[0].value, "[1, 2, 3]");
  ck_assert_str_eq(v->values[1].value, "[1, 2, 3]");
  ck_assert(v->decided && !v->differ);
  ck_assert_str_eq(v->gold, "[1, 2, 3]");
  ck_assert_int_eq(s.rows[2].undecided, 0);
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

/*
** The draft is imported again with --resegment (tests/data/couple_resegmented.jsonl: row 2
** split at 7.5 s, rows 4 and 5 merged): ann and bob, in the draft's row set, see their
** old labels carried onto the new rows. ann saves both halves as a disclosure; bob saves
** nothing there, so his carried "defense" is no vote (he never judged those spans), in
** `adjudicate` and in curation alike (library, GET /api/curate/<id> and the queue): the
** same undecided rows (row 1's three values, and the merged row 5 that neither saved,
** open for the lead in each of its fields) and the same agreed gold. On the previous main
** curation counted the carried rows: rows 2 and 3 showed a disagreement adjudicate did not
** have, row 5 was agreed, and the queue read the coders' versions of the old rows as
** missing (it read the row set flat).
*/
START_TEST(carried_rows_vote_as_in_adjudicate) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_server *srv = NULL;
  rescue_serve_opts so = {0};
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  char path[4096], *out, *g;
  json_error_t je;
  json_t *j;
  resp r;
  int p, undecided = 0;
  make_corpus();
  snprintf(path, sizeof path, "%s/tests/data/couple_resegmented.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, "--resegment", NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  for (p = 2; p <= 3; p++)
    save_shown(st, "ann", p, "\"utterance_type\": \"defense\"",
               "\"utterance_type\": \"disclosure\"");
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  ck_assert_int_eq(s.n_rows, 9);
  for (p = 1; p <= s.n_rows; p++) {
    undecided += s.rows[p - 1].undecided;
    ck_assert_msg(!s.rows[p - 1].undecided == (p != 1 && p != 5), "row %d: %d undecided", p,
                  s.rows[p - 1].undecided);
  }
  ck_assert_int_eq(s.rows[0].undecided, 3);
  ck_assert_int_eq(s.rows[4].undecided, s.rows[4].n_values); /* no vote: every value open */
  for (p = 2; p <= 3; p++) {
    v = value_at(&s, p, "/utterance_type");
    ck_assert_msg(v->decided && !v->differ, "row %d: bob's carried row voted", p);
    ck_assert_str_eq(v->gold, "\"disclosure\"");
  }
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  /* the API says the same: row 2's type decided, as many undecided values in the queue */
  so.db = db;
  so.listen = "127.0.0.1:0";
  ck_assert_msg(rescue_serve_start(&so, &srv, &err) == 0, "%s", err.msg);
  r = http(rescue_serve_port(srv), "GET", CPATH, tok_lea, NULL);
  expect(r, 200);
  j = json_loads(r.body, 0, &je);
  ck_assert_ptr_nonnull(j);
  ck_assert(json_is_true(json_object_get(row_value_at(j, 2, "/utterance_type"), "decided")));
  ck_assert(json_is_false(json_object_get(row_value_at(j, 2, "/utterance_type"), "differ")));
  json_decref(j);
  free(r.body);
  r = http(rescue_serve_port(srv), "GET", "/api/curate?open=1", tok_lea, NULL);
  expect(r, 200);
  j = json_loads(r.body, 0, &je);
  ck_assert_int_eq(json_integer_value(json_object_get(
                       json_array_get(json_object_get(j, "samples"), 0), "undecided")),
                   undecided);
  json_decref(j);
  free(r.body);
  rescue_serve_stop(&srv);
  /* adjudicate: row 1 undecided in the same three fields, row 5 open, gold for the 7 others */
  out = majority(NULL);
  ck_assert_msg(strstr(out, "7 gold versions written, 0 already gold, 2 undecided") &&
                    strstr(out, SAMPLE ":1: no majority in 3 fields") &&
                    strstr(out, SAMPLE ":5: no coder worked on this sample"),
                "%s", out);
  free(out);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  for (p = 2; p <= 3; p++) {
    g = gold_at(st, p);
    ck_assert_msg(g && strstr(g, "\"utterance_type\": \"disclosure\""), "row %d: %s", p,
                  g ? g : "no gold");
    free(g);
  }
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

/*
** bob merges rows 4 and 5 (the therapist's 14.2-21.05 s and Daniel's 21.05-25.3 s), saves
** the merged row in a calmer tone, and on row 6 (his numbering; 7 before) refers to
** [4, 5, 6]; ann keeps 4 and 5 apart (a therapist row and a reflection) and on row 7
** refers to [5, 6, 7]; the lead chooses bob's segmentation. Of ann's two rows her row 4
** votes on the merged row (it overlaps it most): one disagreement there, the tone, and her
** row 5's reflection is nowhere; her reference to row 5 goes to the merged row, so both
** refer to [4, 5, 6] on gold row 6: agreed in curation and in `adjudicate` (on the previous
** main adjudicate dropped it: [5, 6], row 6 undecided).
*/
START_TEST(gold_merges_rows_kept_apart) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_curate_state s;
  const rescue_curate_value_set *v;
  char *out, *g;
  int p;
  make_corpus();
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  merge_at(st, "bob", 4);
  save_shown(st, "bob", 4, "\"tone_of_voice\": \"", "\"tone_of_voice\": \"calm; ");
  save_shown(st, "bob", 6, "\"relation_pattern_evidence_rows\": [5, 6]",
             "\"relation_pattern_evidence_rows\": [4, 5, 6]");
  save_shown(st, "ann", 7, "\"relation_pattern_evidence_rows\": [6, 7]",
             "\"relation_pattern_evidence_rows\": [5, 6, 7]");
  rescue_store_close(&st);
  /* adjudicate: rows 1 and 4 undecided (row 4 in the tone only), row 6 agreed */
  out = majority("bob");
  ck_assert_msg(strstr(out, "6 gold versions written, 0 already gold, 2 undecided") &&
                    strstr(out, SAMPLE ":4: no majority in 1 field (tone_of_voice)"),
                "%s", out);
  ck_assert_msg(!strstr(out, "reflection"), "%s", out);
  free(out);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  g = gold_at(st, 6);
  ck_assert_msg(g && strstr(g, "\"relation_pattern_evidence_rows\": [4, 5, 6]"), "%s",
                g ? g : "no gold");
  free(g);
  ck_assert_ptr_null(gold_at(st, 4));
  /* curation: the same */
  ck_assert_int_eq(rescue_curate_load(st, SAMPLE, &s), 0);
  ck_assert_int_eq(s.n_rows, 8);
  ck_assert_int_eq(s.rows[0].undecided, 3);
  ck_assert_int_eq(s.rows[3].undecided, 1);
  v = value_at(&s, 4, "/tone_of_voice");
  ck_assert(!v->decided && v->differ);
  ck_assert_ptr_nonnull(strstr(v->values[1].value, "calm; "));
  ck_assert_ptr_null(strstr(v->values[0].value, "calm; "));
  v = value_at(&s, 4, "/utterance_type");
  ck_assert_ptr_nonnull(v);
  ck_assert(v->decided && !v->differ);
  ck_assert_ptr_null(strstr(v->values[0].value, "reflection"));
  ck_assert_ptr_nonnull(source_of(&s, 4, "ann")); /* her row 4, 14.2-21.05 s */
  ck_assert_double_eq_tol(source_of(&s, 4, "ann")->end_time, 21.05, 1e-6);
  v = value_at(&s, 6, "/relation_pattern_evidence_rows");
  ck_assert_str_eq(v->values[0].value, "[4, 5, 6]");
  ck_assert_str_eq(v->values[1].value, "[4, 5, 6]");
  ck_assert(v->decided && !v->differ);
  for (p = 5; p <= s.n_rows; p++)
    ck_assert_int_eq(s.rows[p - 1].undecided, 0);
  rescue_curate_state_clear(&s);
  rescue_store_close(&st);
  drop_corpus();
}
END_TEST

int main(void) {
  Suite *s = suite_create("curate");
  TCase *t = tcase_create("curate");
  tcase_set_timeout(t, 120);
  tcase_add_test(t, state_of_two_coders);
  tcase_add_test(t, split_is_no_disagreement);
  tcase_add_test(t, agreed_rows_get_gold);
  tcase_add_test(t, api_statuses);
  tcase_add_test(t, cli_same_rules);
  tcase_add_test(t, cli_no_policy_rerun);
  tcase_add_test(t, policy_keeps_part_decision);
  tcase_add_test(t, whole_row_on_aligned_half);
  tcase_add_test(t, halves_align_one_to_one);
  tcase_add_test(t, cli_decide_writes_agreed_rows);
  tcase_add_test(t, retired_gold_id_not_reused);
  tcase_add_test(t, ref_to_unpaired_half);
  tcase_add_test(t, carried_rows_vote_as_in_adjudicate);
  tcase_add_test(t, gold_merges_rows_kept_apart);
  suite_add_tcase(s, t);
  return tu_run_suite(s);
}
