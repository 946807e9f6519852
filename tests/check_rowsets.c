/*
** check_rowsets.c: each annotator's own row set and stable row ids (issue 22), through the
** library with two annotators: ann splits, merges and moves times while bob reviews the
** same sample. Bob's view, lint, progress and saves stay exactly as they were; ann's view
** numbers its rows consecutively; merging the two halves back restores the parent row
** (its id and versions); progress counts only rows an annotator saved.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_annotators.h"
#include "rescue_edit.h"
#include "rescue_import.h"
#include "rescue_review.h"
#include "rescue_workflow.h"
#include <jansson.h>
#include <sqlite3.h>

#include "testutil.h"

#define COUPLE "maya_and_daniel/001_s01e01_segment01"

static char *db;
static rescue_store *st;
static int64_t ann, bob;

static int64_t add(const char *name) {
  char tok[65];
  int existed;
  int64_t id;
  ck_assert_msg(rescue_annotator_add(st, name, NULL, tok, &existed) == 0, "%s",
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
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ann = add("ann");
  bob = add("bob");
}

static void teardown(void) {
  rescue_store_close(&st);
  free(db);
}

/* What one annotator sees of the sample: the JSON, row ids, versions, lint, progress. */
typedef struct seen {
  char *json;
  int n;
  int64_t ids[64], versions[64];
  long errors, warnings, rows_saved;
  int mine, rows;
} seen;

static void look(int64_t who, seen *s) {
  rescue_view_sample L;
  rescue_lint_result lr;
  rescue_progress p;
  rescue_work_item *list = NULL;
  int i, n = 0, assignments = 0;
  memset(s, 0, sizeof *s);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  ck_assert_int_le(L.n, 64);
  s->json = strdup(L.json.s);
  s->n = L.n;
  for (i = 0; i < L.n; i++) {
    s->ids[i] = L.row_ids[i];
    s->versions[i] = L.versions[i];
  }
  memset(&lr, 0, sizeof lr);
  ck_assert_int_eq(rescue_review_lint(st, COUPLE, &L, &lr), 0);
  s->errors = lr.errors;
  s->warnings = lr.warnings;
  rescue_lint_result_clear(&lr);
  rescue_view_sample_clear(&L);
  memset(&p, 0, sizeof p);
  ck_assert_int_eq(rescue_progress_get(st, &p), 0);
  for (i = 0; i < p.n_people; i++)
    if (strcmp(p.people[i].name, who == ann ? "ann" : "bob") == 0)
      s->rows_saved = p.people[i].rows_saved;
  rescue_progress_clear(&p);
  ck_assert_int_eq(rescue_work_list(st, who, 1, &list, &n, &assignments), 0);
  for (i = 0; i < n; i++)
    if (strcmp(list[i].sample_id, COUPLE) == 0) {
      s->mine = list[i].mine;
      s->rows = list[i].rows;
    }
  rescue_work_list_free(&list, n);
}

static void forget(seen *s) { free(s->json); }

/* row_index of every row of who's view is its position. */
static void consecutive(int64_t who) {
  rescue_view_sample L;
  int i;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  for (i = 0; i < L.n; i++) {
    const rescue_jnode *ri = rescue_jget(L.rows[i], "row_index");
    ck_assert_ptr_nonnull(ri);
    ck_assert_int_eq((int)ri->num, i + 1);
  }
  rescue_view_sample_clear(&L);
}

/*
** Resegment who's view: split row `row` (at `at`, or mid-row when at <= 0) or merge it
** with the next one, on the versions the view shows; the view's row count after.
*/
static int reseg(int64_t who, rescue_reseg_op kind, int row, double at) {
  rescue_view_sample L;
  rescue_resegment op;
  int n = 0;
  int64_t v = 0;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  memset(&op, 0, sizeof op);
  op.op = kind;
  op.row = row;
  op.base_version = L.versions[row - 1];
  if (kind == RESCUE_RESEG_MERGE)
    op.next_version = L.versions[row];
  else
    op.at = at > 0 ? at
                   : (rescue_jget(L.rows[row - 1], "start_time")->num +
                      rescue_jget(L.rows[row - 1], "end_time")->num) /
                         2;
  rescue_view_sample_clear(&L);
  ck_assert_msg(rescue_sample_resegment(st, COUPLE, who, &op, &n, &v) == 0, "%s",
                rescue_store_errmsg(st));
  return n;
}

static int do_split(int64_t who, int row, double at) {
  return reseg(who, RESCUE_RESEG_SPLIT, row, at);
}

static int do_merge(int64_t who, int row) { return reseg(who, RESCUE_RESEG_MERGE, row, 0); }

/* Save row `pos` of who's view with member key set to the raw JSON val; the new version. */
static int64_t save_member(int64_t who, int pos, const char *key, const char *val) {
  rescue_view_sample L;
  char *row;
  int64_t base, v = 0;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  base = L.versions[pos - 1];
  row = tu_row_with(L.rows[pos - 1], key, val);
  rescue_view_sample_clear(&L);
  ck_assert_msg(rescue_row_save(st, COUPLE, pos, who, base, row, strlen(row), &v, NULL) == 0, "%s",
                rescue_store_errmsg(st));
  free(row);
  return v;
}

/* Member key of row pos of who's view, as written (JSON). */
static char *member_of(int64_t who, int pos, const char *key) {
  rescue_view_sample L;
  rescue_buf b = RESCUE_BUF_INIT;
  char *r;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  ck_assert_int_le(pos, L.n);
  rescue_jwrite(&b, rescue_jget(L.rows[pos - 1], key));
  rescue_view_sample_clear(&L);
  r = strdup(b.s);
  rescue_buf_clear(&b);
  return r;
}

#define MEMBER(who, pos, key, want)                                                                \
  do {                                                                                             \
    char *got_ = member_of(who, pos, key);                                                         \
    ck_assert_msg(strcmp(got_, want) == 0, "row %d %s: %s, want %s", pos, key, got_, want);        \
    free(got_);                                                                                    \
  } while (0)

/* The member that names a row's evidence rows ("[1, 2]"), as positions of the view. */
#define EVIDENCE "relation_pattern_evidence_rows"
#define REFS(who, pos, want) MEMBER(who, pos, EVIDENCE, want)

START_TEST(test_split_leaves_others_alone) {
  seen b0, b1, a0, a1;
  int i;
  save_member(bob, 1, "dialogue_cleaned", "\"bob was here\"");
  look(bob, &b0);
  look(ann, &a0);
  ck_assert_int_eq(b0.rows_saved, 1);
  ck_assert_int_eq(a0.rows_saved, 0);
  ck_assert_int_eq(do_split(ann, 2, 0), a0.n + 1);
  look(bob, &b1);
  look(ann, &a1);
  /* bob: exactly as before */
  ck_assert_str_eq(b1.json, b0.json);
  ck_assert_int_eq(b1.n, b0.n);
  ck_assert_int_eq(b1.errors, b0.errors);
  ck_assert_int_eq(b1.warnings, b0.warnings);
  ck_assert_int_eq(b1.rows_saved, b0.rows_saved);
  ck_assert_int_eq(b1.mine, b0.mine);
  ck_assert_int_eq(b1.rows, b0.n);
  for (i = 0; i < b0.n; i++)
    ck_assert(b1.ids[i] == b0.ids[i] && b1.versions[i] == b0.versions[i]);
  /* ann: one more row, the unchanged rows keep their ids and versions */
  ck_assert_int_eq(a1.n, a0.n + 1);
  ck_assert_int_eq(a1.rows, a0.n + 1);
  ck_assert(a1.ids[0] == a0.ids[0] && a1.versions[0] == a0.versions[0]);
  ck_assert(a1.ids[1] != a0.ids[1] && a1.ids[2] != a0.ids[1]);
  for (i = 2; i < a0.n; i++)
    ck_assert(a1.ids[i + 1] == a0.ids[i] && a1.versions[i + 1] == a0.versions[i]);
  consecutive(ann);
  consecutive(bob);
  /* progress: the two halves are ann's work, the renumbered rows are not */
  ck_assert_int_eq(a1.rows_saved, 2);
  ck_assert_int_eq(a1.mine, 2);
  ck_assert_int_eq(a1.errors, a0.errors);
  /* bob's saves go through as before, on his own rows */
  save_member(bob, 3, "dialogue_cleaned", "\"bob after ann's split\"");
  forget(&b1);
  look(bob, &b1);
  ck_assert_int_eq(b1.n, b0.n);
  ck_assert_int_eq(b1.rows_saved, 2);
  ck_assert_ptr_nonnull(strstr(b1.json, "bob after ann's split"));
  forget(&a1);
  look(ann, &a1);
  ck_assert_ptr_null(strstr(a1.json, "bob"));
  /* ann saves a row her split moved (row 3 of the base row set is her row 4): her view
     numbers it 4, the base row set still 3; the latest view, their row sets differing
     and ann having saved last, is ann's whole view (issue 22 item 8) */
  save_member(ann, 4, "dialogue_cleaned", "\"ann on a moved row\"");
  consecutive(ann);
  {
    rescue_view v;
    rescue_sample_iter *it = NULL;
    const rescue_sample *smp;
    ck_assert_int_eq(rescue_view_parse(st, "latest", &v), 0);
    v.base = 1;
    ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
    ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
    ck_assert_int_eq(smp->n, b0.n);
    ck_assert_ptr_nonnull(strstr(smp->rows[2].content, "ann on a moved row"));
    ck_assert_ptr_nonnull(strstr(smp->rows[2].content, "\"row_index\": 3"));
    rescue_sample_iter_free(&it);
    v.base = 0;
    ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
    ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
    ck_assert_int_eq(smp->n, b0.n + 1);
    ck_assert(smp->view_of == ann);
    ck_assert_ptr_nonnull(strstr(smp->rows[3].content, "ann on a moved row"));
    ck_assert_ptr_nonnull(strstr(smp->rows[3].content, "\"row_index\": 4"));
    ck_assert_ptr_null(strstr(smp->rows[3].content, "bob"));
    rescue_sample_iter_free(&it);
  }
  forget(&a0);
  forget(&a1);
  forget(&b0);
  forget(&b1);
}
END_TEST

START_TEST(test_merge_back_restores_parent) {
  seen a0, a1, a2;
  int64_t v;
  int i;
  v = save_member(ann, 2, "dialogue_cleaned", "\"ann's own words\"");
  look(ann, &a0);
  ck_assert_int_eq(a0.versions[1], v);
  do_split(ann, 2, 0);
  look(ann, &a1);
  ck_assert_int_eq(a1.n, a0.n + 1);
  ck_assert_int_eq(do_merge(ann, 2), a0.n);
  look(ann, &a2);
  /* the parent again: its id, its versions, no doubled text */
  ck_assert_int_eq(a2.n, a0.n);
  for (i = 0; i < a0.n; i++)
    ck_assert(a2.ids[i] == a0.ids[i] && a2.versions[i] == a0.versions[i]);
  ck_assert_str_eq(a2.json, a0.json);
  ck_assert_ptr_null(strstr(a2.json, "ann's own words ann's own words"));
  ck_assert_int_eq(a2.rows_saved, 1);
  consecutive(ann);
  /* another merge makes a new row */
  ck_assert_int_eq(do_merge(ann, 3), a0.n - 1);
  forget(&a1);
  look(ann, &a1);
  ck_assert(a1.ids[2] != a0.ids[2] && a1.ids[2] != a0.ids[3]);
  ck_assert_int_eq(a1.ids[3], a0.ids[4]);
  consecutive(ann);
  forget(&a0);
  forget(&a1);
  forget(&a2);
}
END_TEST

/*
** A merged row split where its two rows met, before anyone saved it, gives those two rows
** back with their ids and versions (the page's undo of a merge); bob's view stays as it
** was. Split elsewhere, or saved since the merge, it gives new rows.
*/
START_TEST(test_split_undoes_merge) {
  seen a0, a1, a2, b0, b1;
  rescue_view_sample L;
  double at;
  int i;
  save_member(ann, 3, "dialogue_cleaned", "\"ann before the merge\"");
  look(ann, &a0);
  look(bob, &b0);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  at = rescue_jget(L.rows[2], "end_time")->num;
  rescue_view_sample_clear(&L);
  ck_assert_int_eq(do_merge(ann, 3), a0.n - 1);
  ck_assert_int_eq(do_split(ann, 3, at), a0.n);
  look(ann, &a1);
  for (i = 0; i < a0.n; i++)
    ck_assert(a1.ids[i] == a0.ids[i] && a1.versions[i] == a0.versions[i]);
  ck_assert_str_eq(a1.json, a0.json);
  ck_assert_int_eq(a1.rows_saved, a0.rows_saved);
  consecutive(ann);
  look(bob, &b1);
  ck_assert_str_eq(b1.json, b0.json);
  for (i = 0; i < b0.n; i++)
    ck_assert(b1.ids[i] == b0.ids[i] && b1.versions[i] == b0.versions[i]);
  forget(&a1);
  /* split elsewhere: two new rows */
  do_merge(ann, 3);
  ck_assert_int_eq(do_split(ann, 3, at + 0.25), a0.n);
  look(ann, &a1);
  ck_assert(a1.ids[2] != a0.ids[2] && a1.ids[3] != a0.ids[3]);
  ck_assert_int_eq(a1.ids[4], a0.ids[4]);
  consecutive(ann);
  /* merged again and saved since: split where they met, it makes new rows too */
  do_merge(ann, 3);
  save_member(ann, 3, "dialogue_cleaned", "\"ann after the merge\"");
  ck_assert_int_eq(do_split(ann, 3, at), a0.n);
  look(ann, &a2);
  ck_assert(a2.ids[2] != a0.ids[2] && a2.ids[2] != a1.ids[2] && a2.ids[3] != a0.ids[3]);
  consecutive(ann);
  forget(&a0);
  forget(&a1);
  forget(&a2);
  forget(&b0);
  forget(&b1);
}
END_TEST

START_TEST(test_times_and_comments_by_id) {
  seen b0, b1, a0, a1;
  rescue_view_sample L;
  rescue_resegment op;
  int64_t id = 0, v = 0;
  int n = 0;
  look(bob, &b0);
  do_split(ann, 1, 0);
  look(ann, &a0);
  /* new times: a new version of the same row */
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  memset(&op, 0, sizeof op);
  op.op = RESCUE_RESEG_TIMES;
  op.row = 4;
  op.base_version = L.versions[3];
  op.start = rescue_jget(L.rows[3], "start_time")->num + 0.1;
  op.end = rescue_jget(L.rows[3], "end_time")->num;
  rescue_view_sample_clear(&L);
  ck_assert_int_eq(rescue_sample_resegment(st, COUPLE, ann, &op, &n, &v), 0);
  look(ann, &a1);
  ck_assert_int_eq(a1.ids[3], a0.ids[3]);
  ck_assert_int_eq(a1.versions[3], v);
  consecutive(ann);
  /* a comment on row 4 lands on the row ann sees there */
  ck_assert_int_eq(rescue_comment_add(st, COUPLE, 4, "check this", ann, &id), 0);
  {
    sqlite3 *h;
    sqlite3_stmt *q;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT row_id FROM comment WHERE id = ?", -1, &q, NULL),
                     SQLITE_OK);
    sqlite3_bind_int64(q, 1, id);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int64(q, 0), a0.ids[3]);
    ck_assert_int_ne(sqlite3_column_int64(q, 0), b0.ids[3]);
    sqlite3_finalize(q);
    sqlite3_close(h);
  }
  look(bob, &b1);
  ck_assert_str_eq(b1.json, b0.json);
  forget(&a0);
  forget(&a1);
  forget(&b0);
  forget(&b1);
}
END_TEST

/* relation_pattern_evidence_rows of row pos in the latest view (the base row set). */
static char *latest_refs(int pos) {
  rescue_view v;
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  rescue_buf b = RESCUE_BUF_INIT;
  const rescue_jnode *row;
  char *r;
  ck_assert_int_eq(rescue_view_parse(st, "latest", &v), 0);
  v.base = 1;
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  row = rescue_jparse(d, smp->rows[pos - 1].content, smp->rows[pos - 1].content_len, &je);
  ck_assert_ptr_nonnull(row);
  rescue_jwrite(&b, rescue_jget(row, EVIDENCE));
  r = strdup(b.s);
  rescue_buf_clear(&b);
  rescue_jdoc_free(&d);
  rescue_sample_iter_free(&it);
  return r;
}

/* Findings of rule `rule` in who's view (what the page's lint shows). */
static int view_rule_count(int64_t who, int rule) {
  rescue_view_sample L;
  rescue_lint_result lr;
  int i, n = 0;
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, who, &L), 0);
  memset(&lr, 0, sizeof lr);
  ck_assert_int_eq(rescue_review_lint(st, COUPLE, &L, &lr), 0);
  for (i = 0; i < lr.n; i++)
    n += lr.findings[i].rule == rule;
  rescue_lint_result_clear(&lr);
  rescue_view_sample_clear(&L);
  return n;
}

/*
** References follow rows (issue 22 item 3). The draft's row 3 names rows [1, 2, 3] and row
** 7 rows [6, 7]; bob (ann2) writes his own evidence rows on row 9. ann splits row 2, saves
** references in her view, merges two rows, then merges the split back: her view writes every
** reference as a position of her row set; bob's view, its references and lint never change;
** the latest view (the base row set) writes ann's references as its own positions.
*/
START_TEST(test_references_follow_rows) {
  seen b0, b1;
  char *r;
  save_member(bob, 9, EVIDENCE, "[2, 3, 7]");
  look(bob, &b0);
  REFS(ann, 3, "[1, 2, 3]");
  /* ann splits row 2 (5.4-9.86): both halves are named where row 2 was */
  do_split(ann, 2, 7.0);
  REFS(ann, 4, "[1, 2, 3, 4]");
  REFS(ann, 8, "[7, 8]");
  consecutive(ann);
  /* ann saves references in her view: rows 5 and 6 (the draft's 4 and 5) and 8 (its 7) */
  save_member(ann, 10, EVIDENCE, "[5, 6, 8]");
  REFS(ann, 10, "[5, 6, 8]");
  r = latest_refs(9);
  ck_assert_str_eq(r, "[4, 5, 7]");
  free(r);
  /* ann merges her rows 5 and 6: both references name the merged row, once */
  do_merge(ann, 5);
  REFS(ann, 9, "[5, 7]");
  REFS(ann, 4, "[1, 2, 3, 4]");
  REFS(ann, 7, "[6, 7]");
  /* merging the halves back restores row 2: the draft's references as written */
  do_merge(ann, 2);
  REFS(ann, 3, "[1, 2, 3]");
  REFS(ann, 8, "[4, 6]");
  consecutive(ann);
  ck_assert_int_eq(view_rule_count(ann, 13), 0);
  /* bob: his view, his references and his lint exactly as before */
  look(bob, &b1);
  ck_assert_str_eq(b1.json, b0.json);
  ck_assert_int_eq(b1.errors, b0.errors);
  ck_assert_int_eq(b1.warnings, b0.warnings);
  REFS(bob, 9, "[2, 3, 7]");
  REFS(bob, 3, "[1, 2, 3]");
  ck_assert_int_eq(view_rule_count(bob, 13), 0);
  /* the base row set still reads ann's version in its own positions */
  r = latest_refs(9);
  ck_assert_str_eq(r, "[4, 5, 7]");
  free(r);
  forget(&b0);
  forget(&b1);
}
END_TEST

/*
** A reference to a row that a resegmentation removed is an R13 finding, and is left out of
** the list: ann names rows [1, 2] on row 3; the draft is imported again with --resegment
** without row 2. ann's view carries her version to the new row 2 and reports the lost
** reference (the page's lint and `rescue lint --view annotator:ann`); bob's view has none.
*/
START_TEST(test_reference_to_removed_row) {
  rescue_view_sample L;
  rescue_lint_result lr;
  rescue_lint_opts o;
  char *dir = tu_tmpdir(), path[4096], *err = NULL;
  FILE *f;
  size_t a, b;
  int i, found = 0;
  save_member(ann, 3, EVIDENCE, "[1, 2]");
  ck_assert_int_eq(view_rule_count(ann, 13), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, bob, &L), 0); /* the draft's rows */
  a = L.rows[1]->offset;
  b = L.rows[2]->offset;
  snprintf(path, sizeof path, "%s/without_row2.jsonl", dir);
  ck_assert_ptr_nonnull(f = fopen(path, "w"));
  fwrite(L.json.s, 1, a, f);
  fwrite(L.json.s + b, 1, L.json.len - b, f);
  fputc('\n', f);
  fclose(f);
  rescue_view_sample_clear(&L);
  rescue_store_close(&st);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, path, "--resegment", NULL) == 0, "%s", err);
  free(err);
  {
    rescue_error e = RESCUE_ERROR_INIT;
    ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  }
  /* ann's row 2 is her version of the old row 3: row 1 followed, row 2 gone */
  REFS(ann, 2, "[1]");
  ck_assert_int_eq(view_rule_count(ann, 13), 1);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  memset(&lr, 0, sizeof lr);
  ck_assert_int_eq(rescue_review_lint(st, COUPLE, &L, &lr), 0);
  for (i = 0; i < lr.n; i++)
    if (lr.findings[i].rule == 13) {
      found = 1;
      ck_assert_int_eq(lr.findings[i].row, 2);
      ck_assert_str_eq(lr.findings[i].field, "relation_pattern_evidence_rows");
      ck_assert_msg(strstr(lr.findings[i].reason, "not in this row set"), "%s",
                    lr.findings[i].reason);
    }
  ck_assert(found);
  rescue_lint_result_clear(&lr);
  rescue_view_sample_clear(&L);
  memset(&o, 0, sizeof o);
  ck_assert_int_eq(rescue_view_parse(st, "annotator:ann", &o.view), 0);
  memset(&lr, 0, sizeof lr);
  ck_assert_int_eq(rescue_lint(st, &o, &lr), 0);
  for (i = 0, found = 0; i < lr.n; i++)
    found += lr.findings[i].rule == 13 && lr.findings[i].row == 2;
  ck_assert_int_eq(found, 1);
  rescue_lint_result_clear(&lr);
  /* bob has no reference to the removed row */
  ck_assert_int_eq(view_rule_count(bob, 13), 0);
  free(dir);
}
END_TEST

/* Findings of rule `rule` in who's view: the page's lint and `rescue lint --view`. */
static int rule_count(int64_t who, int rule) {
  rescue_lint_result lr;
  rescue_lint_opts o;
  char view[64];
  int i, n = view_rule_count(who, rule), m = 0;
  memset(&o, 0, sizeof o);
  snprintf(view, sizeof view, "annotator:%s", who == ann ? "ann" : "bob");
  ck_assert_int_eq(rescue_view_parse(st, view, &o.view), 0);
  memset(&lr, 0, sizeof lr);
  ck_assert_int_eq(rescue_lint(st, &o, &lr), 0);
  for (i = 0; i < lr.n; i++)
    m += lr.findings[i].rule == rule;
  rescue_lint_result_clear(&lr);
  ck_assert_int_eq(m, n);
  return n;
}

/*
** The draft imported again with --resegment (`rescue import --resegment`, no annotator;
** tests/data/couple_resegmented.jsonl) splits row 2 (5.4-9.86) at 7.5 and merges rows 4
** and 5 (14.2-21.05, 21.05-25.3). ann, who has no row set of her own, had saved her
** tone of voice on rows 2, 4 and 5; bob saved nothing. ann's view: both halves carry her
** label with the halves' own times and text (not the parent's), the merged row her label
** with the merged times and text, row_index 1..9, no R16 overlap; bob's view is the new
** draft's rows; the exports (default and ann's view) hold one row set, times increasing.
*/
START_TEST(test_draft_resegment_keeps_labels_on_new_spans) {
  rescue_view_sample L;
  char path[4096], *err = NULL, *out = NULL;
  json_t *ex, *rows;
  json_error_t je;
  size_t i;
  int view;
  save_member(ann, 2, "tone_of_voice", "\"ann: guarded\"");
  save_member(ann, 4, "tone_of_voice", "\"ann: calm\"");
  save_member(ann, 5, "tone_of_voice", "\"ann: rueful\"");
  snprintf(path, sizeof path, "%s/tests/data/couple_resegmented.jsonl", RESCUE_SOURCE_DIR);
  rescue_store_close(&st);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, path, "--resegment", NULL) == 0, "%s", err);
  free(err);
  {
    rescue_error e = RESCUE_ERROR_INIT;
    ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  }
  /* ann: her labels on the new spans */
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_eq(L.n, 9);
  ck_assert_int_eq(L.origin[1], RESCUE_ROW_SPLIT);
  ck_assert_int_eq(L.origin[2], RESCUE_ROW_SPLIT);
  ck_assert_int_eq(L.origin[4], RESCUE_ROW_MERGED);
  rescue_view_sample_clear(&L);
  consecutive(ann);
  MEMBER(ann, 2, "start_time", "5.4");
  MEMBER(ann, 2, "end_time", "7.5");
  MEMBER(ann, 2, "dialogue_cleaned", "\"I go quiet\"");
  MEMBER(ann, 2, "tone_of_voice", "\"ann: guarded\"");
  MEMBER(ann, 3, "start_time", "7.5");
  MEMBER(ann, 3, "end_time", "9.86");
  MEMBER(ann, 3, "dialogue_cleaned", "\"because it always turns into a fight.\"");
  MEMBER(ann, 3, "tone_of_voice", "\"ann: guarded\"");
  MEMBER(ann, 5, "start_time", "14.2");
  MEMBER(ann, 5, "end_time", "25.3");
  MEMBER(ann, 5, "tone_of_voice", "\"ann: calm\"");
  MEMBER(ann, 5, "primary_speaker", "\"Therapist\"");
  {
    char *d = member_of(ann, 5, "dialogue_cleaned");
    ck_assert_msg(strstr(d, "familiar? Yeah. That's pretty much every Sunday."), "%s", d);
    free(d);
  }
  REFS(ann, 4, "[1, 2, 3, 4]");
  ck_assert_int_eq(rule_count(ann, 16), 0);
  ck_assert_int_eq(rule_count(ann, 13), 0);
  /* the iterator's row times (lint, agreement, exports read them) are the halves' too */
  {
    rescue_view v;
    rescue_sample_iter *it = NULL;
    const rescue_sample *smp;
    ck_assert_int_eq(rescue_view_parse(st, "annotator:ann", &v), 0);
    ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
    ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
    ck_assert_int_eq(smp->n, 9);
    ck_assert(smp->rows[1].start_time == 5.4 && smp->rows[1].end_time == 7.5);
    ck_assert(smp->rows[2].start_time == 7.5 && smp->rows[2].end_time == 9.86);
    ck_assert(smp->rows[4].start_time == 14.2 && smp->rows[4].end_time == 25.3);
    ck_assert_str_eq(smp->rows[4].speaker, "Therapist");
    rescue_sample_iter_free(&it);
  }
  /* bob: the new draft's rows, nothing of ann's */
  consecutive(bob);
  MEMBER(bob, 2, "end_time", "7.5");
  MEMBER(bob, 3, "start_time", "7.5");
  MEMBER(bob, 2, "tone_of_voice", "\"low, guarded\"");
  MEMBER(bob, 5, "end_time", "25.3");
  MEMBER(bob, 5, "tone_of_voice", "\"calm, steady\"");
  ck_assert_int_eq(rule_count(bob, 16), 0);
  /* exports: one row set per sample, each row at its own time */
  for (view = 0; view < 2; view++) {
    int rc = view ? tu_rescue(&out, &err, "export", db, "--format", "samples", "--view",
                              "annotator:ann", "--out", "-", NULL)
                  : tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", "-", NULL);
    ck_assert_msg(rc == 0, "%s", err);
    ck_assert_ptr_nonnull(ex = json_loads(out, JSON_DISABLE_EOF_CHECK, &je));
    rows = json_object_get(ex, "rows");
    ck_assert_int_eq(json_array_size(rows), 9);
    for (i = 0; i < 9; i++) {
      json_t *r = json_array_get(rows, i);
      ck_assert_int_eq(json_integer_value(json_object_get(r, "row_index")), (json_int_t)i + 1);
      if (i > 0)
        ck_assert(json_number_value(json_object_get(r, "start_time")) >=
                  json_number_value(json_object_get(json_array_get(rows, i - 1), "end_time")));
    }
    ck_assert(json_number_value(json_object_get(json_array_get(rows, 1), "end_time")) == 7.5);
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(rows, 2), "tone_of_voice")),
                     view ? "ann: guarded" : "low, guarded");
    json_decref(ex);
    free(out);
    free(err);
    out = err = NULL;
  }
}
END_TEST

/*
** Re-saving a row whose references a split renumbered, unchanged, is not a new version:
** ann names rows [1, 2, 3] on row 3, splits row 2 (her row 4 now shows [1, 2, 3, 4]) and
** saves that row as shown; bob's save of his unchanged draft row is his first version.
*/
START_TEST(test_resave_renumbered_is_noop) {
  rescue_view_sample L;
  rescue_buf b = RESCUE_BUF_INIT;
  int64_t v1, v2 = 0;
  int unchanged = 0;
  v1 = save_member(ann, 3, EVIDENCE, "[1, 2, 3]");
  do_split(ann, 2, 7.0);
  REFS(ann, 4, "[1, 2, 3, 4]");
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert(L.versions[3] == v1);
  rescue_jwrite(&b, L.rows[3]);
  rescue_view_sample_clear(&L);
  ck_assert_msg(rescue_row_save(st, COUPLE, 4, ann, v1, b.s, b.len, &v2, &unchanged) == 0, "%s",
                rescue_store_errmsg(st));
  ck_assert_int_eq(unchanged, 1);
  ck_assert(v2 == v1);
  REFS(ann, 4, "[1, 2, 3, 4]");
  /* a real change after it is a new version, its references as shown */
  ck_assert(save_member(ann, 4, EVIDENCE, "[1, 2, 4]") != v1);
  REFS(ann, 4, "[1, 2, 4]");
  rescue_buf_clear(&b);
}
END_TEST

/* row_index of row pos (1-based) of the base row set in the latest view. */
static int latest_row_index(int pos) {
  rescue_view v;
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *row;
  int r;
  ck_assert_int_eq(rescue_view_parse(st, "latest", &v), 0);
  v.base = 1;
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, NULL, 0, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &smp), 1);
  row = rescue_jparse(d, smp->rows[pos - 1].content, smp->rows[pos - 1].content_len, &je);
  ck_assert_ptr_nonnull(row);
  r = (int)rescue_jget(row, "row_index")->num;
  rescue_jdoc_free(&d);
  rescue_sample_iter_free(&it);
  return r;
}

/*
** An edit file imported into ann's own row set (rescue_import_edits, as ann): she split row
** 2, so her row 4 is the base row set's row 3. Her export with tone_of_voice changed on
** row 4 is stored numbered where the row was made: her view numbers it 4, the base row set
** 3 (not the file's 4 in both); importing the same file again adds nothing; bob's view is
** as before.
*/
START_TEST(test_edit_import_into_own_rowset) {
  rescue_view_sample L;
  rescue_import_opts io;
  rescue_import_result ir;
  rescue_buf b = RESCUE_BUF_INIT;
  char *dir = tu_tmpdir(), path[4096], *tone;
  const char *paths[1] = {path};
  const char *key = "\"tone_of_voice\": \"";
  seen b0, b1;
  char *at;
  look(bob, &b0);
  do_split(ann, 2, 7.0);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_int_eq(L.n, 10);
  rescue_buf_putn(&b, L.json.s, L.json.len);
  /* row 4's tone of voice, in the file's own text */
  at = strstr(b.s + L.rows[3]->offset, key);
  ck_assert_ptr_nonnull(at);
  memcpy(at + strlen(key), "ANN", 3);
  rescue_view_sample_clear(&L);
  snprintf(path, sizeof path, "%s/ann.json", dir);
  tu_write(path, b.s);
  memset(&io, 0, sizeof io);
  io.annotator = "ann";
  memset(&ir, 0, sizeof ir);
  ck_assert_msg(rescue_import_edits(st, paths, 1, &io, &ir) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(ir.put.row_versions, 1);
  consecutive(ann);
  ck_assert_int_eq(latest_row_index(3), 3);
  tone = member_of(ann, 4, "tone_of_voice");
  ck_assert_ptr_nonnull(strstr(tone, "ANN"));
  free(tone);
  /* the same file again: nothing new */
  memset(&ir, 0, sizeof ir);
  ck_assert_msg(rescue_import_edits(st, paths, 1, &io, &ir) == 0, "%s", rescue_store_errmsg(st));
  ck_assert_int_eq(ir.put.row_versions, 0);
  look(bob, &b1);
  ck_assert_str_eq(b1.json, b0.json);
  forget(&b0);
  forget(&b1);
  rescue_buf_clear(&b);
  free(dir);
}
END_TEST

/* One number from an SQL query on the corpus file. */
static long long sql_num(const char *path, const char *sql) {
  sqlite3 *h;
  sqlite3_stmt *q;
  long long v;
  ck_assert_int_eq(sqlite3_open(path, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  v = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return v;
}

/*
** A corpus written before row sets were lists (tests/data/corpus_v6.sql: the draft, ann's
** edit of row 3, bob's import --resegment splitting row 2, ann's comment on row 4) opens,
** upgrades in place and shows the same rows, versions and lineage.
*/
START_TEST(test_upgrade_from_v6) {
  rescue_error err = RESCUE_ERROR_INIT;
  char path[4096], *dir = tu_tmpdir(), *sql, *msg = NULL;
  sqlite3 *h;
  seen a, b, a1, b1;
  rescue_view_sample L;
  snprintf(path, sizeof path, "%s/tests/data/corpus_v6.sql", RESCUE_SOURCE_DIR);
  sql = tu_read(path, NULL);
  db = strdup(tu_path(dir, "old.db"));
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_msg(sqlite3_exec(h, sql, NULL, NULL, &msg) == SQLITE_OK, "%s", msg);
  sqlite3_close(h);
  free(sql);
  ck_assert_int_eq(sql_num(db, "PRAGMA user_version"), 6);
  ck_assert_msg(rescue_store_open(&st, db, 0, &err) == 0, "%s", err.msg);
  ck_assert_int_ge(sql_num(db, "PRAGMA user_version"), 7);
  ck_assert_int_eq(rescue_annotator_lookup(st, "ann", &ann, NULL, NULL), 0);
  ck_assert_int_eq(rescue_annotator_lookup(st, "bob", &bob, NULL, NULL), 0);
  /* every row a member of the row set it was made in, at its position; nothing else */
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM row"), 19);
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM rowset_member m JOIN row r ON r.id = "
                               "m.row_id AND r.rowset_id = m.rowset_id AND "
                               "r.position = m.position"),
                   19);
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM rowset_member"), 19);
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM annotator_rowset"), 0);
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM row_origin"), 10);
  /* the comment still names row 4 of the current row set, by id */
  ck_assert_int_eq(sql_num(db, "SELECT m.position FROM comment c JOIN rowset_member m ON "
                               "m.row_id = c.row_id AND m.rowset_id = 2"),
                   4);
  /* the views: 10 rows each; ann's label carried over bob's split; bob's halves */
  look(ann, &a);
  look(bob, &b);
  ck_assert_int_eq(a.n, 10);
  ck_assert_int_eq(b.n, 10);
  consecutive(ann);
  consecutive(bob);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, ann, &L), 0);
  ck_assert_str_eq(rescue_jget(L.rows[3], "utterance_type")->s, "request");
  rescue_view_sample_clear(&L);
  ck_assert_int_eq(rescue_view_sample_load(st, COUPLE, bob, &L), 0);
  ck_assert_str_eq(rescue_jget(L.rows[2], "dialogue_cleaned")->s, "second half");
  rescue_view_sample_clear(&L);
  /* references as row ids (migration 9): each number of the six versions with evidence
     rows names a row of the row set it was written in. ann's version of the old row 3
     ([1, 2, 3] of the first row set) names both halves of bob's split; bob's own, written in
     his row set, reads as written */
  ck_assert_int_eq(sql_num(db, "SELECT count(*) FROM row_ref"), 15);
  REFS(ann, 4, "[1, 2, 3, 4]");
  REFS(ann, 8, "[7, 8]");
  REFS(bob, 4, "[1, 2, 3]");
  REFS(bob, 8, "[6, 7]");
  /* and the upgraded corpus works the new way: ann's split is ann's alone */
  ck_assert_int_eq(do_split(ann, 1, 0), 11);
  REFS(ann, 5, "[1, 2, 3, 4, 5]");
  look(ann, &a1);
  look(bob, &b1);
  ck_assert_str_eq(b1.json, b.json);
  ck_assert_int_eq(a1.n, 11);
  ck_assert_int_eq(a1.ids[4], a.ids[3]);
  consecutive(ann);
  forget(&a);
  forget(&b);
  forget(&a1);
  forget(&b1);
  rescue_store_close(&st);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("rowsets");
  TCase *tc = tcase_create("two annotators");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_split_leaves_others_alone);
  tcase_add_test(tc, test_merge_back_restores_parent);
  tcase_add_test(tc, test_split_undoes_merge);
  tcase_add_test(tc, test_times_and_comments_by_id);
  tcase_add_test(tc, test_references_follow_rows);
  tcase_add_test(tc, test_reference_to_removed_row);
  tcase_add_test(tc, test_draft_resegment_keeps_labels_on_new_spans);
  tcase_add_test(tc, test_resave_renumbered_is_noop);
  tcase_add_test(tc, test_edit_import_into_own_rowset);
  suite_add_tcase(s, tc);
  tc = tcase_create("upgrade");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_upgrade_from_v6);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
