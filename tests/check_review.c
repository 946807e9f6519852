/*
** check_review.c: the review calls any client can make (corpus/rescue_edit.h,
** annotate/rescue_review.h) and the save rules of rescue_row_save, through the library
** alone: a sample through a view, saving with a number spelled differently, the first
** save starting the review, a save reopening a reviewed sample (two people), saves
** committed as a group, resegmenting (a split or merge reopening a reviewed sample, refused
** on a discarded one: two people and a lead),
** the work list, who may write, progress figures, and lint before a save.
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_annotators.h"
#include "rescue_edit.h"
#include "rescue_review.h"
#include "rescue_workflow.h"
#include "store_int.h"
#include "testutil.h"

#define COUPLE "maya_and_daniel/001_s01e01_segment01"
#define FAMILY "family_therapy/demo01/merged"

static char *db;
static rescue_store *st;
static int64_t ann, bob;

static int64_t add(const char *name, const char *role) {
  char tok[65];
  int existed;
  int64_t id;
  ck_assert_msg(rescue_annotator_add(st, name, role, tok, &existed) == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_int_eq(rescue_annotator_lookup(st, name, &id, NULL, NULL), 0);
  return id;
}

static void setup(void) {
  rescue_error err = RESCUE_ERROR_INIT;
  char path[4096];
  db = tu_new_corpus();
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  snprintf(path, sizeof path, "%s/tools/demo/family.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ann = add("ann", NULL);
  bob = add("bob", NULL);
  add("lea", "lead");
}

static void teardown(void) {
  rescue_store_close(&st);
  free(db);
}

/* Row `pos` of the sample as ann's view shows it: its JSON (caller frees) and version. */
static char *row_text(int pos, int64_t *version) {
  rescue_view_sample L;
  rescue_buf b = RESCUE_BUF_INIT;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_ge(L.n, pos);
  rescue_jwrite(&b, L.rows[pos - 1]);
  *version = L.versions[pos - 1];
  rescue_view_sample_clear(&L);
  return rescue_buf_detach(&b);
}

/* Replace the first `from` in *s by `to` (which must be there). */
static void replace(char **s, const char *from, const char *to) {
  char *at = strstr(*s, from), *n;
  ck_assert_msg(at != NULL, "'%s' not in %s", from, *s);
  n = malloc(strlen(*s) - strlen(from) + strlen(to) + 1);
  sprintf(n, "%.*s%s%s", (int)(at - *s), *s, to, at + strlen(from));
  free(*s);
  *s = n;
}

static const char *status_of(const char *sample_id) {
  static char status[16];
  rescue_view_sample L;
  ck_assert_int_eq(rescue_view_sample_load(st, sample_id, ann, &L), 0);
  snprintf(status, sizeof status, "%s", L.status);
  rescue_view_sample_clear(&L);
  return status;
}

START_TEST(test_view_sample) {
  rescue_view_sample L;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_eq(L.n, L.n_rows);
  ck_assert_int_gt(L.n, 3);
  ck_assert_str_eq(L.status, "new");
  ck_assert_str_eq(L.scenario, "couple");
  ck_assert_str_eq(L.group, "maya_and_daniel");
  ck_assert_int_eq(L.mine[0], 0); /* the draft's version */
  ck_assert_int_gt(L.versions[0], 0);
  ck_assert_ptr_nonnull(rescue_jget(L.rows[0], "start_time"));
  rescue_view_sample_clear(&L);
  ck_assert_int_eq(rescue_view_sample_load(st, "no/such", ann, &L), RESCUE_ENOTFOUND);
  rescue_view_sample_clear(&L);
}
END_TEST

/*
** rescue_row_save of ann's row `pos` of the couple sample, or (known) rescue_row_save_known
** with what a view loaded now shows of it, its parsed row included.
*/
static int save_as(int known, int pos, int64_t base, const char *row, int64_t *version,
                   int *unchanged) {
  rescue_view_sample L;
  rescue_buf cur = RESCUE_BUF_INIT;
  rescue_row_known k;
  int rc;
  if (!known)
    return rescue_row_save(st, COUPLE, pos, ann, base, row, strlen(row), version, unchanged);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  rescue_jwrite(&cur, L.rows[pos - 1]);
  k.row_id = L.row_ids[pos - 1];
  k.version = L.versions[pos - 1];
  k.mine = L.mine[pos - 1];
  k.content = cur.s;
  k.len = cur.len;
  k.row = L.rows[pos - 1];
  rc = rescue_row_save_known(st, COUPLE, pos, ann, base, row, strlen(row), &k, version, unchanged);
  rescue_buf_clear(&cur);
  rescue_view_sample_clear(&L);
  return rc;
}

/*
** The save rules: spelling, row_index, the first save starting the review, conflicts;
** through rescue_row_save (_i 0) and rescue_row_save_known with the view's parsed row (1).
*/
START_TEST(test_row_save_rules) {
  int64_t base, v1 = 0, v2 = 0, cur = 0;
  rescue_buf content = RESCUE_BUF_INIT;
  int unchanged = -1;
  char *row = row_text(1, &base);
  /* the browser sends 0.0 back as 0 and a stale row_index: neither is an edit */
  replace(&row, "\"start_time\": 0.0", "\"start_time\": 0");
  replace(&row, "\"row_index\": 1", "\"row_index\": 7");
  ck_assert_str_eq(status_of(COUPLE), "new");
  ck_assert_int_eq(save_as(_i, 1, base, row, &v1, &unchanged), 0);
  ck_assert_int_eq(unchanged, 0); /* the draft's row, now ann's own (reviewed and kept) */
  ck_assert_int_gt(v1, base);
  ck_assert_str_eq(status_of(COUPLE), "in_review"); /* the first save started the review */
  ck_assert_int_eq(rescue_row_current(st, COUPLE, 1, ann, &cur, &content), 0);
  ck_assert_int_eq(cur, v1);
  ck_assert_ptr_nonnull(strstr(content.s, "\"start_time\": 0.0"));
  ck_assert_ptr_nonnull(strstr(content.s, "\"row_index\": 1"));
  /* the same row again, 0 for 0.0: unchanged, nothing written */
  ck_assert_int_eq(save_as(_i, 1, v1, row, &v2, &unchanged), 0);
  ck_assert_int_eq(unchanged, 1);
  ck_assert_int_eq(v2, v1);
  /* a real change of a real number is written as a real */
  replace(&row, "\"end_time\": 5.4", "\"end_time\": 5");
  ck_assert_int_eq(save_as(_i, 1, v1, row, &v2, &unchanged), 0);
  ck_assert_int_eq(unchanged, 0);
  rescue_buf_reset(&content);
  ck_assert_int_eq(rescue_row_current(st, COUPLE, 1, ann, &cur, &content), 0);
  ck_assert_ptr_nonnull(strstr(content.s, "\"end_time\": 5.0"));
  /* an edit started from v1 after v2 was saved: refused with the current version */
  ck_assert_int_eq(save_as(_i, 1, v1, row, &cur, NULL), RESCUE_ECONFLICT);
  ck_assert_int_eq(cur, v2);
  rescue_buf_clear(&content);
  free(row);
}
END_TEST

/* The latest status history entry of the couple sample: "status by annotator: reason". */
static const char *last_status(void) {
  static char line[256];
  rescue_status_entry *h = NULL;
  int n = 0;
  ck_assert_int_eq(rescue_status_history(st, COUPLE, &h, &n), 0);
  ck_assert_int_gt(n, 0);
  snprintf(line, sizeof line, "%s by %s: %s", h[n - 1].status,
           h[n - 1].annotator ? h[n - 1].annotator : "?", h[n - 1].reason ? h[n - 1].reason : "");
  rescue_status_history_free(&h, n);
  return line;
}

/*
** Group commit (rescue_store_group_begin): ann's and bob's saves in one transaction, a
** refused save inside it undoing only itself; nothing is visible to another connection
** before the group commits, everything after; a group rolled back stores nothing.
*/
START_TEST(test_group_commit) {
  rescue_store *other = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  int64_t base1, base2, base3, va = 0, vb = 0, cur = 0, seen = 0;
  char *r1 = row_text(1, &base1), *r2 = row_text(2, &base2), *r3 = row_text(3, &base3);
  ck_assert_int_eq(rescue_store_open(&other, db, 0, &err), 0);
  replace(&r1, "\"tone_of_voice\": \"", "\"tone_of_voice\": \"ann in a group ");
  replace(&r2, "\"tone_of_voice\": \"", "\"tone_of_voice\": \"bob in a group ");
  ck_assert_int_eq(rescue_store_group_begin(st), 0);
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 1, ann, base1, r1, strlen(r1), &va, NULL), 0);
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 2, bob, base2, r2, strlen(r2), &vb, NULL), 0);
  /* ann again from the version she started from: refused, the group goes on */
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 1, ann, base1, r1, strlen(r1), &cur, NULL),
                   RESCUE_ECONFLICT);
  ck_assert_int_eq(cur, va);
  ck_assert_int_eq(rescue_row_current(other, COUPLE, 1, ann, &seen, NULL), 0);
  ck_assert_int_eq(seen, base1); /* not committed yet */
  ck_assert_int_eq(rescue_store_group_commit(st), 0);
  ck_assert_int_eq(rescue_row_current(other, COUPLE, 1, ann, &seen, NULL), 0);
  ck_assert_int_eq(seen, va);
  ck_assert_int_eq(rescue_row_current(other, COUPLE, 2, bob, &seen, NULL), 0);
  ck_assert_int_eq(seen, vb);
  /* a group rolled back stores nothing of it */
  replace(&r3, "\"tone_of_voice\": \"", "\"tone_of_voice\": \"never ");
  ck_assert_int_eq(rescue_store_group_begin(st), 0);
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 3, bob, base3, r3, strlen(r3), &cur, NULL), 0);
  rescue_store_group_rollback(st);
  ck_assert_int_eq(rescue_row_current(st, COUPLE, 3, bob, &seen, NULL), 0);
  ck_assert_int_eq(seen, base3);
  rescue_store_close(&other);
  free(r1);
  free(r2);
  free(r3);
}
END_TEST

/*
** Two people: a lead marks the sample reviewed (or discards it), then an annotator's save
** reopens it to in review, recorded under the annotator; a save that writes nothing does
** not; an import of a person's versions follows the same rule and counts as their work.
*/
START_TEST(test_save_reopens) {
  rescue_view_sample L;
  rescue_progress p;
  int64_t base, v = 0, lea;
  char *row = row_text(2, &base), *dir = tu_tmpdir(), *bobs;
  const char *file = tu_path(dir, "bob.jsonl");
  int unchanged = -1, i, bob_rows = -1, n_rows;
  FILE *f;
  ck_assert_int_eq(rescue_annotator_lookup(st, "lea", &lea, NULL, NULL), 0);
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 2, ann, base, row, strlen(row), &v, &unchanged), 0);
  ck_assert_int_eq(unchanged, 0); /* ann accepted the draft's row: a version of hers */
  ck_assert_str_eq(status_of(COUPLE), "in_review");
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: a row was saved");
  /* the same row again writes nothing and leaves the lead's status alone */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 2, ann, v, row, strlen(row), &v, &unchanged), 0);
  ck_assert_int_eq(unchanged, 1);
  ck_assert_str_eq(status_of(COUPLE), "reviewed");
  /* a discarded sample is reopened by a real edit too */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "discarded", "noise", lea), 0);
  replace(&row, "\"tone_of_voice\": \"low, guarded\"", "\"tone_of_voice\": \"low\"");
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 2, ann, v, row, strlen(row), &v, NULL), 0);
  ck_assert_str_eq(status_of(COUPLE), "in_review");

  /* bob's versions come by import: the reviewed sample reopens, under bob */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, bob, &L), 0);
  bobs = strdup(L.json.s);
  n_rows = L.n;
  rescue_view_sample_clear(&L);
  replace(&bobs, "\"tone_of_voice\": \"tight, frustrated\"", "\"tone_of_voice\": \"flat\"");
  ck_assert_ptr_nonnull(f = fopen(file, "w"));
  fprintf(f, "%s\n", bobs);
  fclose(f);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, file, "--annotator", "bob", NULL), 0);
  ck_assert_str_eq(status_of(COUPLE), "in_review");
  ck_assert_str_eq(last_status(), "in_review by bob: reopened: a row was saved");
  /* the dashboard counts bob's imported rows (every row: his first import) as his work */
  ck_assert_int_eq(rescue_progress_get(st, &p), 0);
  for (i = 0; i < p.n_people; i++)
    if (strcmp(p.people[i].name, "bob") == 0)
      bob_rows = (int)p.people[i].rows_saved;
  rescue_progress_clear(&p);
  ck_assert_int_eq(bob_rows, n_rows);
  free(bobs);
  free(row);
  free(dir);
}
END_TEST

START_TEST(test_resegment) {
  rescue_resegment op;
  rescue_view_sample L;
  int64_t base, next, v = -1;
  int n0, n = 0;
  char *row;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  n0 = L.n;
  base = L.versions[0];
  rescue_view_sample_clear(&L);
  /* a split outside the row, and one from a stale version */
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_SPLIT;
  op.row = 1;
  op.base_version = base;
  op.at = 7.0;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), RESCUE_EINVAL);
  op.at = 2.0;
  op.base_version = base + 1000;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), RESCUE_ECONFLICT);
  ck_assert_int_eq(v, 0);
  op.row = n0 + 1;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), RESCUE_EINVAL);
  /* split row 1 at 2 s: one more row, meeting at 2.0, and the review has started */
  op.row = 1;
  op.base_version = base;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), 0);
  ck_assert_int_eq(n, n0 + 1);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_eq(L.n, n0 + 1);
  ck_assert_double_eq(rescue_jget(L.rows[0], "end_time")->num, 2.0);
  ck_assert_double_eq(rescue_jget(L.rows[1], "start_time")->num, 2.0);
  ck_assert_str_eq(L.status, "in_review");
  base = L.versions[0];
  next = L.versions[1];
  rescue_view_sample_clear(&L);
  /* merge them back */
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_MERGE;
  op.row = 1;
  op.base_version = base;
  op.next_version = next;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), 0);
  ck_assert_int_eq(n, n0);
  /* new times for row 1: a new version of it */
  row = row_text(1, &base);
  free(row);
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_TIMES;
  op.row = 1;
  op.base_version = base;
  op.start = 0.5;
  op.end = 0.25;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), RESCUE_EINVAL);
  op.end = 5.0;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), 0);
  ck_assert_int_gt(v, base);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_double_eq(rescue_jget(L.rows[0], "start_time")->num, 0.5);
  ck_assert_int_eq(L.versions[0], v);
  rescue_view_sample_clear(&L);
}
END_TEST

/* The view of `who` as JSON text (caller frees); its row count and status into *n, status. */
static char *view_text(int64_t who, int *n, char *status) {
  rescue_view_sample L;
  char *text;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  text = strdup(L.json.s);
  *n = L.n;
  snprintf(status, 16, "%s", L.status);
  rescue_view_sample_clear(&L);
  return text;
}

/*
** Two people and a lead: the status is the sample's (one for everyone). lea marks it
** reviewed; ann's split reopens it to in review under ann, as a save does, and bob's view
** keeps its rows and shows the sample in review too; merging the halves back reopens it
** again. A discarded sample refuses a split and a merge, saying why, and nothing changes;
** new times for a row there are a save, which reopens it.
*/
START_TEST(test_resegment_reopens) {
  rescue_resegment op;
  int64_t lea, v1, v2;
  int n0, n = 0, nb0, nb, na;
  char status[16], *bob0, *bob1, *ann1, *ann2, *row;
  ck_assert_int_eq(rescue_annotator_lookup(st, "lea", &lea, NULL, NULL), 0);
  free(row_text(1, &v1));
  bob0 = view_text(bob, &nb0, status);
  free(view_text(ann, &n0, status));
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_SPLIT;
  op.row = 1;
  op.base_version = v1;
  op.at = 2.0;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, NULL), 0);
  ck_assert_int_eq(n, n0 + 1);
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: a row was split");
  free(view_text(ann, &na, status));
  ck_assert_int_eq(na, n0 + 1);
  ck_assert_str_eq(status, "in_review");
  bob1 = view_text(bob, &nb, status);
  ck_assert_int_eq(nb, nb0);
  ck_assert_str_eq(status, "in_review");
  ck_assert_str_eq(bob1, bob0); /* his rows are as they were */
  free(bob1);

  /* lea marks it reviewed again: ann merges the halves back, which reopens it again */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  free(row_text(1, &v1));
  free(row_text(2, &v2));
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_MERGE;
  op.row = 1;
  op.base_version = v1;
  op.next_version = v2;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, NULL), 0);
  ck_assert_int_eq(n, n0);
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: two rows were merged");
  ck_assert_str_eq(status_of(COUPLE), "in_review");

  /* discarded: a split and a merge are refused with the reason; nothing changes */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "discarded", "noise", lea), 0);
  ann1 = view_text(ann, &na, status);
  free(row_text(1, &v1));
  free(row_text(2, &v2));
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_SPLIT;
  op.row = 1;
  op.base_version = v1;
  op.at = 2.0;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, NULL), RESCUE_ECONFLICT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "the sample is discarded"));
  op.op = RESCUE_RESEG_MERGE;
  op.next_version = v2;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, bob, &op, &n, NULL), RESCUE_ECONFLICT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "discarded"));
  ck_assert_str_eq(last_status(), "discarded by lea: noise");
  ann2 = view_text(ann, &n, status);
  ck_assert_str_eq(ann2, ann1);
  free(view_text(bob, &nb, status));
  ck_assert_int_eq(nb, nb0);
  ck_assert_str_eq(status, "discarded");
  /* new times are a save: they reopen the discarded sample, as a save does */
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_TIMES;
  op.row = 1;
  op.base_version = v1;
  op.start = 0.25;
  op.end = 4.0;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, bob, &op, &n, NULL), 0);
  ck_assert_str_eq(last_status(), "in_review by bob: reopened: a row was saved");
  row = row_text(1, &v1); /* ann's row 1 is the draft's: bob's times are his alone */
  ck_assert_ptr_null(strstr(row, "\"start_time\": 0.25"));
  free(row);
  free(ann1);
  free(ann2);
  free(bob0);
}
END_TEST

/*
** who's view of sample_id as one JSONL line, through jansson: with row 1 split at `at`
** seconds (at > 0: a resegmentation, rows renumbered), else with edit_from replaced by
** edit_to in the text (NULL: as it is). Caller frees.
*/
static char *view_line(const char *sample_id, int64_t who, double at, const char *edit_from,
                       const char *edit_to) {
  rescue_view_sample L;
  json_error_t je;
  json_t *s, *rows, *half;
  char *text, *line;
  size_t i;
  ck_assert_int_eq(rescue_view_sample_load(st, sample_id, who, &L), 0);
  s = json_loads(L.json.s, 0, &je);
  rescue_view_sample_clear(&L);
  ck_assert_msg(s != NULL, "%s", je.text);
  rows = json_object_get(s, "rows");
  if (at > 0) {
    half = json_deep_copy(json_array_get(rows, 0));
    json_object_set_new(json_array_get(rows, 0), "end_time", json_real(at));
    json_object_set_new(half, "start_time", json_real(at));
    json_array_insert_new(rows, 1, half);
    for (i = 0; i < json_array_size(rows); i++)
      json_object_set_new(json_array_get(rows, i), "row_index", json_integer((json_int_t)i + 1));
  }
  text = json_dumps(s, JSON_PRESERVE_ORDER | JSON_COMPACT);
  json_decref(s);
  if (edit_from)
    replace(&text, edit_from, edit_to);
  line = malloc(strlen(text) + 2);
  sprintf(line, "%s\n", text);
  free(text);
  return line;
}

/* A copy of the whole store (every table) at path, made through the suite's handle. */
static void store_copy(const char *path) {
  char sql[4200];
  snprintf(sql, sizeof sql, "VACUUM INTO '%s'", path);
  ck_assert_int_eq(sqlite3_exec(rescue_store_db(st), sql, NULL, NULL, NULL), SQLITE_OK);
}

/* Lines in the store's audit log (tu_same_corpus_except_log leaves it out). */
static long audit_lines(void) {
  sqlite3_stmt *q = NULL;
  long n;
  ck_assert_int_eq(
      sqlite3_prepare_v2(rescue_store_db(st), "SELECT count(*) FROM audit", -1, &q, NULL),
      SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  n = (long)sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  return n;
}

/*
** Two people and a lead, by import as in the page. lea discards the sample; ann's import
** of her rows with row 1 split (--annotator ann --resegment) is refused as the page
** refuses a split, naming the file, the line and the sample (exit 1), and the store is
** as it was, her other sample on the line before included (all or nothing); bob's plain
** import of his rows is a save, which reopens it. lea marks it reviewed: ann's import
** reopens it, recorded as a resegmentation under ann, and bob's rows stay his. Her rows
** that line up, imported with --resegment, are a save on a discarded sample too.
*/
START_TEST(test_import_resegment_follows_the_page) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, *fam, *couple, *bobs, want[8192];
  const char *ann_file = tu_path(dir, "ann.jsonl"), *bob_file, *before, *after;
  int64_t lea;
  long audit0;
  int n0, nb0, n;
  char status[16];
  FILE *f;
  ck_assert_int_eq(rescue_annotator_lookup(st, "lea", &lea, NULL, NULL), 0);
  free(view_text(ann, &n0, status));
  free(view_text(bob, &nb0, status));
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "discarded", "noise", lea), 0);
  fam = view_line(FAMILY, ann, 0, NULL, NULL);
  couple = view_line(COUPLE, ann, 2.0, NULL, NULL);
  ck_assert_ptr_nonnull(f = fopen(ann_file, "w"));
  fprintf(f, "%s%s", fam, couple);
  fclose(f);
  before = tu_path(dir, "before.db");
  store_copy(before);
  audit0 = audit_lines();
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, ann_file, "--annotator", "ann", "--resegment", NULL), 1);
  snprintf(want, sizeof want, "rescue: import: %s:2:", ann_file);
  ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s", err);
  snprintf(want, sizeof want,
           ": sample '%s' is discarded: rows are not split or merged in a discarded sample; "
           "set it back to in review first\n",
           COUPLE);
  ck_assert_msg(strstr(err, want) != NULL, "%s", err);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  after = tu_path(dir, "after.db");
  store_copy(after);
  ck_assert_msg(tu_same_corpus_except_log(before, after), "a refused import changed the store");
  ck_assert_int_eq(audit_lines(), audit0);
  ck_assert_str_eq(last_status(), "discarded by lea: noise");
  free(view_text(ann, &n, status));
  ck_assert_int_eq(n, n0);
  ck_assert_str_eq(status, "discarded");

  /* bob's plain import of his rows is unaffected: a save, which reopens the sample */
  bob_file = tu_path(dir, "bob.jsonl");
  bobs = view_line(COUPLE, bob, 0, "\"tone_of_voice\":\"tight, frustrated\"",
                   "\"tone_of_voice\":\"flat\"");
  tu_write(bob_file, bobs);
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, bob_file, "--annotator", "bob", NULL), 0);
  free(err);
  ck_assert_str_eq(last_status(), "in_review by bob: reopened: a row was saved");

  /* reviewed: ann's resegmenting import reopens it, said to be a resegmentation */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "reviewed", NULL, lea), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, &err, "import", db, ann_file, "--annotator", "ann", "--resegment", NULL), 0);
  free(err);
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: the rows were resegmented by an "
                                  "import");
  free(view_text(ann, &n, status));
  ck_assert_int_eq(n, n0 + 1);
  ck_assert_str_eq(status, "in_review");
  free(view_text(bob, &n, status));
  ck_assert_int_eq(n, nb0);

  /* discarded again: her rows as they are now, with one edit, line up: a save reopens it */
  ck_assert_int_eq(rescue_sample_set_status(st, COUPLE, "discarded", "noise", lea), 0);
  free(couple);
  couple = view_line(COUPLE, ann, 0, "\"tone_of_voice\":\"", "\"tone_of_voice\":\"very ");
  tu_write(ann_file, couple);
  ck_assert_int_eq(
      tu_rescue(NULL, &err, "import", db, ann_file, "--annotator", "ann", "--resegment", NULL), 0);
  free(err);
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: a row was saved");
  free(view_text(ann, &n, status));
  ck_assert_int_eq(n, n0 + 1);
  free(bobs);
  free(fam);
  free(couple);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/*
** The status a split or merge goes by is the one its write transaction reads, not the one
** of the view it loaded first. ann's handle reads the sample in a read snapshot (as the
** server reads a request) while lea sets its status with `rescue status`, another
** program; ann then splits and merges through that handle. lea's "reviewed" is reopened
** by the split (one entry, the split's); lea's "discarded" refuses the merge and stands.
*/
START_TEST(test_resegment_reads_status_in_its_transaction) {
  rescue_resegment op;
  rescue_view_sample L;
  int64_t v1, v2;
  int n0, n = 0, entries;
  char status[16];
  rescue_status_entry *h = NULL;
  free(view_text(ann, &n0, status));
  ck_assert_str_eq(status, "new");
  free(row_text(1, &v1));
  ck_assert_int_eq(rescue_store_read_begin(st), 0);
  ck_assert_str_eq(status_of(COUPLE), "new"); /* the snapshot is taken */
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "status", db, COUPLE, "reviewed", "--annotator", "lea", NULL), 0);
  ck_assert_str_eq(status_of(COUPLE), "new"); /* still the snapshot */
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_SPLIT;
  op.row = 1;
  op.base_version = v1;
  op.at = 2.0;
  ck_assert_msg(rescue_sample_resegment(st, COUPLE, ann, &op, &n, NULL) == 0, "%s",
                rescue_store_errmsg(st));
  rescue_store_read_end(st);
  ck_assert_int_eq(n, n0 + 1);
  ck_assert_int_eq(rescue_status_history(st, COUPLE, &h, &entries), 0);
  rescue_status_history_free(&h, entries);
  ck_assert_int_eq(entries, 2); /* lea's and the split's, not a "new" sample started too */
  ck_assert_str_eq(last_status(), "in_review by ann: reopened: a row was split");

  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  v1 = L.versions[0];
  v2 = L.versions[1];
  rescue_view_sample_clear(&L);
  ck_assert_int_eq(rescue_store_read_begin(st), 0);
  ck_assert_str_eq(status_of(COUPLE), "in_review");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, COUPLE, "discarded", "--reason", "noise",
                             "--annotator", "lea", NULL),
                   0);
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_MERGE;
  op.row = 1;
  op.base_version = v1;
  op.next_version = v2;
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, NULL), RESCUE_ECONFLICT);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "the sample is discarded"));
  rescue_store_read_end(st);
  ck_assert_str_eq(last_status(), "discarded by lea: noise");
  free(view_text(ann, &n, status));
  ck_assert_int_eq(n, n0 + 1);
  ck_assert_str_eq(status, "discarded");
}
END_TEST

START_TEST(test_work_list_and_assignment) {
  rescue_work_item *items = NULL;
  int n = 0, any = -1, a = -1, m = -1, i, fam = 0;
  /* no assignment yet: everyone sees every sample and may write it */
  ck_assert_int_eq(rescue_work_list(st, ann, 0, &items, &n, &any), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(any, 0);
  for (i = 0; i < n; i++) {
    ck_assert_str_eq(items[i].status, "new");
    ck_assert_int_eq(items[i].assigned, 0);
    ck_assert_str_eq(items[i].assignees, "");
    fam += strcmp(items[i].scenario, "family") == 0;
  }
  ck_assert_int_eq(fam, 1);
  rescue_work_list_free(&items, n);
  ck_assert_ptr_null(items);
  ck_assert_int_eq(rescue_review_assigned(st, COUPLE, ann, &a, &m), 0);
  ck_assert_int_eq(a, 0);
  ck_assert_int_eq(m, 0);
  /* everything to bob: ann's list is empty, bob's holds both, a lead's list every sample */
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "bob", "--overlap", "0", NULL), 0);
  ck_assert_int_eq(rescue_work_list(st, ann, 0, &items, &n, &any), 0);
  ck_assert_int_eq(n, 0);
  ck_assert_int_eq(any, 1);
  rescue_work_list_free(&items, n);
  ck_assert_int_eq(rescue_work_list(st, bob, 0, &items, &n, NULL), 0);
  ck_assert_int_eq(n, 2);
  ck_assert_int_eq(items[0].assigned, 1);
  ck_assert_str_eq(items[0].assignees, "bob");
  rescue_work_list_free(&items, n);
  ck_assert_int_eq(rescue_work_list(st, ann, 1, &items, &n, NULL), 0);
  ck_assert_int_eq(n, 2);
  rescue_work_list_free(&items, n);
  ck_assert_int_eq(rescue_review_assigned(st, COUPLE, ann, &a, &m), 0);
  ck_assert_int_eq(a, 1);
  ck_assert_int_eq(m, 0);
  ck_assert_int_eq(rescue_review_assigned(st, COUPLE, bob, &a, &m), 0);
  ck_assert_int_eq(m, 1);
}
END_TEST

START_TEST(test_progress_and_reviewers) {
  rescue_progress p;
  rescue_reviewer rv;
  rescue_view_sample L;
  rescue_work_item *items = NULL;
  int64_t base, v;
  char *row = row_text(1, &base), family[256] = "";
  int i, n = 0, couple_rows, in_review = -1, discarded = -1;
  replace(&row, "\"tone_of_voice\": \"tight, frustrated\"", "\"tone_of_voice\": \"tight\"");
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 1, ann, base, row, strlen(row), &v, NULL), 0);
  free(row);
  ck_assert_int_eq(rescue_comment_add(st, COUPLE, 0, "look again", ann, NULL), 0);
  ck_assert_int_eq(rescue_work_list(st, ann, 1, &items, &n, NULL), 0);
  for (i = 0; i < n; i++)
    if (strcmp(items[i].scenario, "family") == 0)
      snprintf(family, sizeof family, "%s", items[i].sample_id);
  rescue_work_list_free(&items, n);
  ck_assert_int_eq(rescue_sample_set_status(st, family, "discarded", "unusable", bob), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  couple_rows = L.n_rows;
  rescue_view_sample_clear(&L);

  ck_assert_int_eq(rescue_progress_get(st, &p), 0);
  for (i = 0; i < p.n_status; i++) {
    if (strcmp(p.by_status[i].status, "in_review") == 0)
      in_review = (int)p.by_status[i].n;
    if (strcmp(p.by_status[i].status, "discarded") == 0)
      discarded = (int)p.by_status[i].n;
  }
  ck_assert_int_eq(in_review, 1);
  ck_assert_int_eq(discarded, 1);
  ck_assert_int_eq(p.samples, 1); /* the discarded one is left out */
  ck_assert_int_eq(p.rows, couple_rows);
  ck_assert_int_eq(p.rows_reviewed, 0);
  ck_assert_int_eq(p.commented_samples, 1);
  ck_assert_int_eq(p.n_people, 3); /* ann, bob, lea: no draft or adjudication pseudo-annotator */
  ck_assert_str_eq(p.people[0].name, "ann");
  ck_assert_int_eq(p.people[0].rows_saved, 1);
  ck_assert_str_eq(p.people[2].role, "lead");
  rescue_progress_clear(&p);
  ck_assert_int_eq(p.n_people, 0);

  ck_assert_int_eq(rescue_reviewer_get(st, ann, &rv), 0);
  ck_assert_str_eq(rv.name, "ann");
  ck_assert_str_eq(rv.role, "annotator");
  ck_assert_int_eq(rv.retired, 0);
  ck_assert_int_eq(rescue_reviewer_get(st, 99999, &rv), RESCUE_ENOTFOUND);
}
END_TEST

START_TEST(test_check_row) {
  rescue_lint_result res;
  int64_t base;
  char *row = row_text(1, &base);
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(rescue_review_check_row(st, COUPLE, 1, ann, row, strlen(row), &res), 0);
  rescue_lint_result_clear(&res);
  /* a target that includes the speaker (R05) is an error: nothing may be saved */
  replace(&row, "\"target\": [\"Therapist\"]", "\"target\": [\"Maya\"]");
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(rescue_review_check_row(st, COUPLE, 1, ann, row, strlen(row), &res),
                   RESCUE_EBADINPUT);
  ck_assert_int_gt(res.errors, 0);
  ck_assert_int_eq(res.findings[0].row, 1);
  rescue_lint_result_clear(&res);
  memset(&res, 0, sizeof res);
  ck_assert_int_eq(rescue_review_check_row(st, COUPLE, 99, ann, row, strlen(row), &res),
                   RESCUE_ENOTFOUND);
  ck_assert_int_eq(rescue_review_check_row(st, COUPLE, 1, ann, "[1]", 3, &res), RESCUE_EBADINPUT);
  rescue_lint_result_clear(&res);
  free(row);
}
END_TEST

/* row_json with the value of key replaced by the JSON text raw (caller frees). */
static char *with_value(const char *row_json, const char *key, const char *raw) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *row = rescue_jparse(doc, row_json, strlen(row_json), &je);
  char *out;
  ck_assert_ptr_nonnull(row);
  out = tu_row_with(row, key, raw);
  rescue_jdoc_free(&doc);
  return out;
}

/* Does res hold a finding equal to f (rule, row, field and reason)? */
static int holds(const rescue_lint_result *res, const rescue_lint_finding *f) {
  int i;
  for (i = 0; i < res->n; i++)
    if (res->findings[i].rule == f->rule && res->findings[i].row == f->row &&
        strcmp(res->findings[i].field, f->field) == 0 &&
        strcmp(res->findings[i].reason, f->reason) == 0)
      return 1;
  return 0;
}

/*
** The full lint of who's view of COUPLE with row pos replaced by edit (written as a save
** writes it), into *full.
*/
static void full_lint(int64_t who, int pos, const char *edit, rescue_lint_result *full) {
  rescue_view_sample L;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf text = RESCUE_BUF_INIT;
  rescue_jerror je;
  const rescue_jnode *row;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  row = rescue_jparse(doc, edit, strlen(edit), &je);
  rescue_row_write_like(&text, row, L.rows[pos - 1], pos);
  L.rows[pos - 1] = rescue_jparse(doc, text.s, text.len, &je);
  ck_assert_ptr_nonnull(L.rows[pos - 1]);
  memset(full, 0, sizeof *full);
  ck_assert_int_eq(rescue_review_lint(st, COUPLE, &L, full), 0);
  rescue_view_sample_clear(&L);
  rescue_buf_clear(&text);
  rescue_jdoc_free(&doc);
}

/*
** The check before a save re-lints only the saved row, the rows whose time rules look back
** at it and the sample as a whole, yet finds what a full lint of the edited sample finds
** there: for two annotators whose views differ, every row, and edits that move a row in
** time, change its speaker, or slip the case of a name.
*/
START_TEST(test_check_row_matches_full_lint) {
  static const char *const edits[][2] = {{NULL, NULL},
                                         {"start_time", "1000.0"},
                                         {"end_time", "0.5"},
                                         {"primary_speaker", "\"maya\""},
                                         {"primary_speaker", "\"Daniel\""},
                                         {"primary_speaker", "\"therapist\""}};
  int64_t who[2] = {ann, bob}, v, nv;
  int w, pos, e, n_rows = 9, seen_next = 0, seen_sample = 0;
  char *row;
  /* bob's view differs from ann's: he moved row 4 before row 3 */
  row = row_text(4, &v);
  {
    char *moved = with_value(row, "start_time", "1.0");
    ck_assert_int_eq(rescue_row_save(st, COUPLE, 4, bob, v, moved, strlen(moved), &nv, NULL), 0);
    free(moved);
  }
  free(row);
  for (w = 0; w < 2; w++)
    for (pos = 1; pos <= n_rows; pos++)
      for (e = 0; e < (int)(sizeof edits / sizeof edits[0]); e++) {
        rescue_view_sample L;
        rescue_buf cur = RESCUE_BUF_INIT;
        rescue_lint_result inc, full, base;
        char *edit;
        int i, rc;
        ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who[w], &L), 0);
        rescue_jwrite(&cur, L.rows[pos - 1]);
        rescue_view_sample_clear(&L);
        edit = edits[e][0] ? with_value(cur.s, edits[e][0], edits[e][1]) : strdup(cur.s);
        memset(&inc, 0, sizeof inc);
        rc = rescue_review_check_row(st, COUPLE, pos, who[w], edit, strlen(edit), &inc);
        ck_assert_msg(rc == 0 || rc == RESCUE_EBADINPUT, "%s", rescue_store_errmsg(st));
        full_lint(who[w], pos, edit, &full);
        full_lint(who[w], pos, cur.s, &base);
        /* what the check finds, a full lint finds */
        for (i = 0; i < inc.n; i++)
          ck_assert_msg(holds(&full, &inc.findings[i]), "%s row %d edit %d: R%02d on row %d: %s",
                        w ? "bob" : "ann", pos, e, inc.findings[i].rule, inc.findings[i].row,
                        inc.findings[i].reason);
        /* and everything a full lint finds on the row and the sample, and every finding
           the edit brings about elsewhere (a later row's time rules, a name) */
        for (i = 0; i < full.n; i++) {
          const rescue_lint_finding *f = &full.findings[i];
          int concerns = f->row == pos || f->row == 0 || !holds(&base, f);
          if (!concerns)
            continue;
          ck_assert_msg(holds(&inc, f), "%s row %d edit %d: check misses R%02d on row %d: %s",
                        w ? "bob" : "ann", pos, e, f->rule, f->row, f->reason);
          seen_next += f->row != pos && f->row != 0;
          seen_sample += f->row == 0;
        }
        rescue_lint_result_clear(&inc);
        rescue_lint_result_clear(&full);
        rescue_lint_result_clear(&base);
        rescue_buf_clear(&cur);
        free(edit);
      }
  /* the cases that matter were there: a finding the edit brought about on another row, and
     a sample-level one */
  ck_assert_int_gt(seen_next, 0);
  ck_assert_int_gt(seen_sample, 0);
}
END_TEST

/*
** The check before a save given the sample's cues (rescue_review_check_change_known, as a
** server that keeps them beside the view calls it) judges with those and reads none: given
** the cues as stored, it finds byte for byte what the check that reads them finds (R14 on
** a cue no row covers among it); given none, no R14, so the stored ones were not read.
*/
START_TEST(test_check_change_known_cues) {
  rescue_view_sample L;
  rescue_lint_result lint;
  rescue_review_change a, b, c;
  rescue_cues cues, none;
  rescue_buf ja = RESCUE_BUF_INIT, jb = RESCUE_BUF_INIT, jc = RESCUE_BUF_INIT;
  char srt[4096], *row, *edit, *dir = strdup(db);
  int64_t v;
  int rc;
  *strrchr(dir, '/') = 0;
  snprintf(srt, sizeof srt, "%s/late.srt", dir);
  tu_write(srt, "1\n00:15:00,000 --> 00:15:02,000\nMaya: words nobody annotated\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, srt, "--sample", COUPLE, NULL), 0);
  memset(&lint, 0, sizeof lint);
  memset(&none, 0, sizeof none);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_eq(rescue_review_lint(st, COUPLE, &L, &lint), 0);
  ck_assert_int_eq(rescue_sample_cues(st, COUPLE, &cues), 0);
  ck_assert_int_eq(cues.n, 1);
  row = row_text(2, &v);
  edit = with_value(row, "tone_of_voice", "\"calm\"");
  rc = rescue_review_check_change(st, COUPLE, &L, &lint, 2, edit, strlen(edit), &a);
  ck_assert_int_eq(
      rescue_review_check_change_known(st, COUPLE, &L, &lint, &cues, 2, edit, strlen(edit), &b),
      rc);
  ck_assert_int_eq(
      rescue_review_check_change_known(st, COUPLE, &L, &lint, &none, 2, edit, strlen(edit), &c),
      rc);
  rescue_lint_result_json(&a.lint, &ja);
  rescue_lint_result_json(&b.lint, &jb);
  rescue_lint_result_json(&c.lint, &jc);
  ck_assert_msg(strstr(ja.s, "\"R14\"") != NULL, "%s", ja.s);
  ck_assert_str_eq(jb.s, ja.s);
  ck_assert_msg(strstr(jc.s, "\"R14\"") == NULL, "%s", jc.s);
  ck_assert_str_eq(b.shown.s, a.shown.s);
  ck_assert_int_eq(b.n, a.n);
  ck_assert_mem_eq(b.judged, a.judged, (size_t)a.n);
  rescue_review_change_clear(&a);
  rescue_review_change_clear(&b);
  rescue_review_change_clear(&c);
  rescue_buf_clear(&ja);
  rescue_buf_clear(&jb);
  rescue_buf_clear(&jc);
  rescue_cues_clear(&cues);
  rescue_lint_result_clear(&lint);
  rescue_view_sample_clear(&L);
  free(row);
  free(edit);
  free(dir);
}
END_TEST

/* ---- a cached view kept current one saved row at a time ---- */

/* Findings in a canonical order (row, rule, field, reason), to compare two results. */
static int cmp_finding(const void *a, const void *b) {
  const rescue_lint_finding *x = a, *y = b;
  int c;
  if (x->row != y->row)
    return x->row < y->row ? -1 : 1;
  if (x->rule != y->rule)
    return x->rule < y->rule ? -1 : 1;
  if ((c = strcmp(x->field, y->field)))
    return c;
  return strcmp(x->reason, y->reason);
}

/* The view *C kept by rescue_review_put_row and its lint *CL equal a fresh load and lint. */
static void same_as_fresh(const char *sample_id, int64_t who, const rescue_view_sample *C,
                          rescue_lint_result *CL, const char *what) {
  rescue_view_sample F;
  rescue_lint_result FL;
  int i;
  memset(&FL, 0, sizeof FL);
  ck_assert_int_eq(rescue_view_sample_load(st, sample_id, who, &F), 0);
  ck_assert_int_eq(rescue_review_lint(st, sample_id, &F, &FL), 0);
  ck_assert_int_eq(C->n, F.n);
  for (i = 0; i < F.n; i++) {
    rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
    rescue_jwrite(&a, C->rows[i]);
    rescue_jwrite(&b, F.rows[i]);
    ck_assert_msg(strcmp(a.s, b.s) == 0, "%s: %s row %d:\n kept  %s\n fresh %s", what, sample_id,
                  i + 1, a.s, b.s);
    ck_assert_int_eq(C->versions[i], F.versions[i]);
    ck_assert_int_eq(C->row_ids[i], F.row_ids[i]);
    ck_assert_int_eq(C->mine[i], F.mine[i]);
    ck_assert_int_eq(C->origin[i], F.origin[i]);
    rescue_buf_clear(&a);
    rescue_buf_clear(&b);
  }
  /* the same verdicts as the whole-sample lint */
  ck_assert_msg(CL->n == FL.n, "%s: %s: %d findings kept, %d fresh", what, sample_id, CL->n, FL.n);
  if (FL.n) { /* (qsort is not given a NULL array) */
    qsort(CL->findings, (size_t)CL->n, sizeof *CL->findings, cmp_finding);
    qsort(FL.findings, (size_t)FL.n, sizeof *FL.findings, cmp_finding);
  }
  for (i = 0; i < FL.n; i++) {
    ck_assert_msg(cmp_finding(&CL->findings[i], &FL.findings[i]) == 0 &&
                      CL->findings[i].severity == FL.findings[i].severity,
                  "%s: %s: kept R%02d row %d %s, fresh R%02d row %d %s", what, sample_id,
                  CL->findings[i].rule, CL->findings[i].row, CL->findings[i].reason,
                  FL.findings[i].rule, FL.findings[i].row, FL.findings[i].reason);
  }
  ck_assert_int_eq(CL->errors, FL.errors);
  ck_assert_int_eq(CL->warnings, FL.warnings);
  rescue_lint_result_clear(&FL);
  rescue_view_sample_clear(&F);
}

/* A kept view of who's: loaded with its lint, labelled with the generation read first. */
typedef struct kept {
  int64_t who, gen;
  rescue_view_sample L;
  rescue_lint_result lint;
} kept;

static void keep_load(const char *sample_id, kept *k) {
  rescue_view_sample_clear(&k->L);
  rescue_lint_result_clear(&k->lint);
  ck_assert_int_eq(rescue_sample_generation(st, sample_id, &k->gen, NULL), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, sample_id, k->who, &k->L), 0);
  ck_assert_int_eq(rescue_review_lint(st, sample_id, &k->L, &k->lint), 0);
}

/* Checks that reused the kept lint's names (the row's names unchanged), and that made new ones. */
static int names_reused, names_new;

/*
** The check of edit as row pos against k's kept view, with the kept lint's names
** (rescue_review_check_change given k->lint), into *ch, and its return; the same check
** without them (every row read for the names, as before they were kept) must give the
** same return, the same findings byte for byte (JSON, causes and suggestions included),
** the same rows judged and the same row.
*/
static int check_kept(const char *sample_id, kept *k, int pos, const char *edit,
                      rescue_review_change *ch) {
  rescue_review_change ref;
  rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
  int rc, rc_ref;
  ck_assert_ptr_nonnull(k->lint.ents); /* rescue_review_lint and every put keep them */
  rc = rescue_review_check_change(st, sample_id, &k->L, &k->lint, pos, edit, strlen(edit), ch);
  rc_ref = rescue_review_check_change(st, sample_id, &k->L, NULL, pos, edit, strlen(edit), &ref);
  ck_assert_int_eq(rc, rc_ref);
  rescue_lint_result_json(&ch->lint, &a);
  rescue_lint_result_json(&ref.lint, &b);
  ck_assert_msg(strcmp(a.s, b.s) == 0, "%s row %d:\n kept names %s\n derived    %s", sample_id, pos,
                a.s, b.s);
  if (rc == 0 || rc == RESCUE_EBADINPUT) {
    ck_assert_int_eq(ch->n, ref.n);
    ck_assert_mem_eq(ch->judged, ref.judged, (size_t)ch->n);
    ck_assert_str_eq(ch->shown.s, ref.shown.s);
  }
  /* without kept names the check derives them and hands them on; with them, only when
     the edit changed the row's names */
  ck_assert_ptr_nonnull(ref.lint.ents);
  if (ch->lint.ents)
    names_new++;
  else
    names_reused++;
  rescue_buf_clear(&a);
  rescue_buf_clear(&b);
  rescue_review_change_clear(&ref);
  return rc;
}

/*
** One save by k's annotator of row pos as edit, as the server does it: the check against
** the kept view (check_kept), the save (with what the view knows when `known`), then the
** row put into the kept view when nobody else wrote the sample (else a new load): with the
** check's own lint (rescue_review_put_change) when `known`, else linted again
** (rescue_review_put_row). Returns 1 when saved.
*/
static int keep_save_row(const char *sample_id, kept *k, int pos, const char *edit, int known) {
  rescue_buf cur = RESCUE_BUF_INIT;
  rescue_review_change ch;
  int64_t gen0, gen1, v = 0;
  int rc, unchanged = 0;
  rescue_jwrite(&cur, k->L.rows[pos - 1]);
  rc = check_kept(sample_id, k, pos, edit, &ch);
  if (rc == RESCUE_EBADINPUT) {
    ck_assert_int_gt(ch.lint.errors, 0);
    rescue_buf_clear(&cur);
    rescue_review_change_clear(&ch);
    return 0;
  }
  ck_assert_msg(rc == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(rescue_sample_generation(st, sample_id, &gen0, NULL), 0);
  if (known && gen0 == k->gen) {
    rescue_row_known kn = {k->L.row_ids[pos - 1],
                           k->L.versions[pos - 1],
                           k->L.mine[pos - 1],
                           cur.s,
                           cur.len,
                           pos % 2 ? k->L.rows[pos - 1] : NULL};
    rc = rescue_row_save_known(st, sample_id, pos, k->who, k->L.versions[pos - 1], edit,
                               strlen(edit), &kn, &v, &unchanged);
  } else {
    rc = rescue_row_save(st, sample_id, pos, k->who, k->L.versions[pos - 1], edit, strlen(edit), &v,
                         &unchanged);
  }
  ck_assert_msg(rc == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(rescue_sample_generation(st, sample_id, &gen1, NULL), 0);
  ck_assert_msg(unchanged || gen1 > gen0, "a save leaves the generation as it was");
  if (gen0 != k->gen) {
    keep_load(sample_id, k); /* someone else wrote: a new load */
  } else if (!unchanged) {
    if (known)
      rc = rescue_review_put_change(st, sample_id, &k->L, &ch, v, &k->lint);
    else
      rc = rescue_review_put_row(st, sample_id, &k->L, pos, ch.shown.s, ch.shown.len, v, &k->lint);
    if (rc == RESCUE_ECONFLICT)
      keep_load(sample_id, k);
    else
      ck_assert_msg(rc == 0, "%s", rescue_store_errmsg(st));
    k->gen = gen1;
  } else {
    k->gen = gen1;
  }
  rescue_buf_clear(&cur);
  rescue_review_change_clear(&ch);
  return 1;
}

/* keep_save_row with row pos as k's view shows it, `key` set to raw. */
static int keep_save(const char *sample_id, kept *k, int pos, const char *key, const char *raw,
                     int known) {
  rescue_buf cur = RESCUE_BUF_INIT;
  char *edit;
  int saved;
  rescue_jwrite(&cur, k->L.rows[pos - 1]);
  edit = with_value(cur.s, key, raw);
  saved = keep_save_row(sample_id, k, pos, edit, known);
  free(edit);
  rescue_buf_clear(&cur);
  return saved;
}

/* A participant of k's sample other than row pos's speaker, as a JSON string, into raw. */
static void other_participant(const kept *k, int pos, char *raw, size_t size) {
  const rescue_jnode *pv = rescue_jget(k->L.sample, "participants"), *c;
  const rescue_jnode *sp = rescue_jget(k->L.rows[pos - 1], "primary_speaker");
  ck_assert_ptr_nonnull(pv);
  for (c = pv->child; c; c = c->next)
    if (!sp || sp->type != RESCUE_JSTRING || strcmp(c->s, sp->s) != 0)
      break;
  ck_assert_ptr_nonnull(c);
  snprintf(raw, size, "\"%s\"", c->s);
}

/*
** The view the server keeps between requests (one load, then each saved row put in with
** the save's own check, rescue_review_put_change, or linted again, rescue_review_put_row)
** shows what a fresh load shows and lints as the whole-sample lint does, on the real
** fixture samples, after a sequence of edits by two annotators on the same samples (new
** times, speakers, a tone, an emptied cleaned dialogue that adds a warning; the other
** one's saves and a split force a new load, seen by the generation). Every check goes
** through the kept lint's names (check_kept: the same findings as deriving them): an edit
** that leaves the row's names alone reuses them, one that changes a speaker to another
** participant makes new ones, which the put keeps for the checks after it.
*/
START_TEST(test_kept_view_matches_fresh) {
  static const char *const edits[][2] = {{"tone_of_voice", "\"calm, edited\""},
                                         {"start_time", "1000.0"},
                                         {"primary_speaker", NULL}, /* another participant */
                                         {"end_time", "0.5"},
                                         {"primary_speaker", "\"therapist\""},
                                         {"tone_of_voice", "\"flat\""},
                                         {"dialogue_cleaned", "\"\""}};
  const int n_edits = (int)(sizeof edits / sizeof edits[0]);
  const char *fx = tu_fixtures();
  char path[4096], ids[8][256];
  rescue_sample_iter *it = NULL;
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  const rescue_sample *s;
  int n_ids = 0, i, step, saved = 0, put = 0, reloads = 0;
  snprintf(path, sizeof path, "%s/rescue-bench/couple-first3.jsonl", fx);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  snprintf(path, sizeof path, "%s/rescue-bench/family-first1.jsonl", fx);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  while (rescue_sample_iter_next(it, &s) == 1 && n_ids < 8)
    if (s->n >= 4 && strncmp(s->sample_id, "maya_and_daniel", 15) != 0)
      snprintf(ids[n_ids++], sizeof ids[0], "%s", s->sample_id);
  rescue_sample_iter_free(&it);
  ck_assert_int_ge(n_ids, 2);
  for (i = 0; i < n_ids; i++) {
    kept k[2];
    memset(k, 0, sizeof k);
    k[0].who = ann;
    k[1].who = bob;
    keep_load(ids[i], &k[0]);
    keep_load(ids[i], &k[1]);
    for (step = 0; step < 12; step++) {
      kept *me = &k[step % 3 == 2]; /* ann twice, then bob */
      int pos = 1 + (step * 7) % me->L.n;
      const char *const *e = edits[step % n_edits];
      char speaker[300];
      int64_t before;
      if (step == 6) { /* bob splits a row: his row set, everyone's generation */
        rescue_resegment op = {.op = RESCUE_RESEG_SPLIT, .row = 2};
        double a = 0, b = 0;
        const rescue_jnode *st_ = rescue_jget(k[1].L.rows[1], "start_time"),
                           *et = rescue_jget(k[1].L.rows[1], "end_time");
        if (st_ && et) {
          a = st_->num;
          b = et->num;
        }
        op.base_version = k[1].L.versions[1];
        op.at = a + (b - a) / 2;
        if (b > a + 0.01) {
          int64_t g0 = k[0].gen;
          ck_assert_msg(rescue_sample_resegment(st, ids[i], bob, &op, NULL, NULL) == 0, "%s",
                        rescue_store_errmsg(st));
          ck_assert_int_eq(rescue_sample_generation(st, ids[i], &k[0].gen, NULL), 0);
          ck_assert_int_gt(k[0].gen, g0);
          keep_load(ids[i], &k[0]);
          keep_load(ids[i], &k[1]);
          same_as_fresh(ids[i], bob, &k[1].L, &k[1].lint, "after bob's split");
        }
        continue;
      }
      ck_assert_int_eq(rescue_sample_generation(st, ids[i], &before, NULL), 0);
      if (!e[1])
        other_participant(me, pos, speaker, sizeof speaker);
      if (!keep_save(ids[i], me, pos, e[0], e[1] ? e[1] : speaker, step % 2))
        continue;
      saved++;
      put += me->L.n_patched > 0;
      same_as_fresh(ids[i], me->who, &me->L, &me->lint, e[0]);
      /* the other one's kept view is no longer current: the generation says so */
      {
        kept *other = &k[me == &k[0]];
        int64_t g;
        ck_assert_int_eq(rescue_sample_generation(st, ids[i], &g, NULL), 0);
        if (g != before)
          ck_assert_int_ne(g, other->gen);
        keep_load(ids[i], other);
        reloads++;
      }
    }
    for (int w = 0; w < 2; w++) {
      same_as_fresh(ids[i], k[w].who, &k[w].L, &k[w].lint, "at the end");
      rescue_view_sample_clear(&k[w].L);
      rescue_lint_result_clear(&k[w].lint);
    }
  }
  ck_assert_int_gt(saved, 10);
  ck_assert_int_gt(put, 5);
  ck_assert_int_gt(reloads, 0);
  ck_assert_int_gt(names_reused, 0);
  ck_assert_int_gt(names_new, 0);
}
END_TEST

/*
** The kept names follow the edits that change them: on the demo family sample, ann moves
** every row of Tomas to Rosa, one save at a time (speakers, then a target and support
** target), so the sample-level R19 ("listed but absent 'Tomas'") appears with the last
** one, then gives them back, so it goes. The names stay the same all along (the
** participants are given), so no save reloads; after each change an edit of a tone, which
** reuses the kept names, must still find what a fresh whole-sample lint finds: kept names
** left as they were before the change would lose the R19, or keep it after it is gone.
** Through the check's own lint (rescue_review_put_change) and linting again
** (rescue_review_put_row) alike.
*/
START_TEST(test_kept_names_follow_edits) {
  static const struct {
    int pos;
    const char *from, *to; /* in the row's JSON text, the first occurrence */
  } steps[] = {
      {3, "\"primary_speaker\": \"Tomas\"", "\"primary_speaker\": \"Rosa\""},
      {10, "\"primary_speaker\": \"Tomas\"", "\"primary_speaker\": \"Rosa\""},
      {9, "\"Rosa\", \"Tomas\"]", "\"Rosa\"]"}, /* target, then the support's */
      {9, "\"Rosa\", \"Tomas\"]", "\"Rosa\"]"},
      {3, "\"primary_speaker\": \"Rosa\"", "\"primary_speaker\": \"Tomas\""},
  };
  kept k;
  int i, r19 = 0, tone = 0;
  memset(&k, 0, sizeof k);
  k.who = ann;
  keep_load(FAMILY, &k);
  names_reused = names_new = 0;
  for (i = 0; i < (int)(sizeof steps / sizeof steps[0]); i++) {
    rescue_buf cur = RESCUE_BUF_INIT;
    char *edit, tone_raw[32];
    int reused, j, absent = 0;
    rescue_jwrite(&cur, k.L.rows[steps[i].pos - 1]);
    edit = strdup(cur.s);
    replace(&edit, steps[i].from, steps[i].to);
    ck_assert_int_eq(keep_save_row(FAMILY, &k, steps[i].pos, edit, i % 2), 1);
    ck_assert_int_eq(k.L.n_patched, 2 * i + 1); /* put into the kept view, not loaded again */
    same_as_fresh(FAMILY, ann, &k.L, &k.lint, "a name moved");
    /* a tone edit reuses the names the put kept */
    reused = names_reused;
    snprintf(tone_raw, sizeof tone_raw, "\"tone %d\"", ++tone);
    ck_assert_int_eq(keep_save(FAMILY, &k, 1, "tone_of_voice", tone_raw, i % 2 == 0), 1);
    ck_assert_int_eq(names_reused, reused + 1);
    same_as_fresh(FAMILY, ann, &k.L, &k.lint, "a tone after a name moved");
    for (j = 0; j < k.lint.n; j++)
      absent |= k.lint.findings[j].rule == 19 && strstr(k.lint.findings[j].reason, "'Tomas'");
    ck_assert_int_eq(absent, i == 3);
    r19 += absent;
    free(edit);
    rescue_buf_clear(&cur);
  }
  ck_assert_int_eq(r19, 1);
  ck_assert_int_eq(names_new, 5); /* each name move made new names */
  rescue_view_sample_clear(&k.L);
  rescue_lint_result_clear(&k.lint);
}
END_TEST

/*
** Migration 13: every write that changes how a view shows a sample adds to its generation,
** from any program (the command line too), and a write to another sample does not.
*/
START_TEST(test_generation) {
  int64_t g0, g1, f0, f1, v, nv;
  char *row;
  rescue_resegment op = {.op = RESCUE_RESEG_TIMES, .row = 1};
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g0, NULL), 0);
  ck_assert_int_eq(rescue_sample_generation(st, FAMILY, &f0, NULL), 0);
  ck_assert_int_eq(rescue_sample_generation(st, "no/such_sample", &g1, NULL), RESCUE_ENOTFOUND);
  row = row_text(1, &v);
  replace(&row, "\"tone_of_voice\": \"", "\"tone_of_voice\": \"x");
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 1, ann, v, row, strlen(row), &nv, NULL), 0);
  free(row);
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g1, NULL), 0);
  ck_assert_int_gt(g1, g0);
  ck_assert_int_eq(rescue_sample_generation(st, FAMILY, &f1, NULL), 0);
  ck_assert_int_eq(f1, f0);
  /* a save whose only change is three references moves it once: the version's insert
     does, its reference lines add nothing (schema migration 14) */
  g0 = g1;
  row = row_text(1, &v);
  replace(&row, "\"relation_pattern_evidence_rows\": []",
          "\"relation_pattern_evidence_rows\": [1, 2, 3]");
  ck_assert_int_eq(rescue_row_save(st, COUPLE, 1, ann, v, row, strlen(row), &nv, NULL), 0);
  free(row);
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g1, NULL), 0);
  ck_assert_int_eq(g1, g0 + 1);
  /* status from the command line */
  g0 = g1;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, COUPLE, "reviewed", NULL), 0);
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g1, NULL), 0);
  ck_assert_int_gt(g1, g0);
  /* new times (a resegmentation) */
  g0 = g1;
  op.base_version = nv;
  op.start = 0.1;
  op.end = 0.9;
  rescue_sample_resegment(st, COUPLE, ann, &op, NULL, NULL);
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g1, NULL), 0);
  ck_assert_int_gt(g1, g0);
  /* retiring an annotator changes what views show of every sample */
  g0 = g1;
  f0 = f1;
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "bob", "--reason", "left", NULL), 0);
  ck_assert_int_eq(rescue_sample_generation(st, COUPLE, &g1, NULL), 0);
  ck_assert_int_gt(g1, g0);
  ck_assert_int_eq(rescue_sample_generation(st, FAMILY, &f1, NULL), 0);
  ck_assert_int_gt(f1, f0);
}
END_TEST

int main(void) {
  Suite *s = suite_create("review");
  TCase *tc = tcase_create("review");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_add_test(tc, test_view_sample);
  tcase_add_loop_test(tc, test_row_save_rules, 0, 2);
  tcase_add_test(tc, test_save_reopens);
  tcase_add_test(tc, test_group_commit);
  tcase_add_test(tc, test_resegment);
  tcase_add_test(tc, test_resegment_reopens);
  tcase_add_test(tc, test_import_resegment_follows_the_page);
  tcase_add_test(tc, test_resegment_reads_status_in_its_transaction);
  tcase_add_test(tc, test_work_list_and_assignment);
  tcase_add_test(tc, test_progress_and_reviewers);
  tcase_add_test(tc, test_check_row);
  tcase_add_test(tc, test_check_row_matches_full_lint);
  tcase_add_test(tc, test_check_change_known_cues);
  tcase_add_test(tc, test_kept_view_matches_fresh);
  tcase_add_test(tc, test_kept_names_follow_edits);
  tcase_add_test(tc, test_generation);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
