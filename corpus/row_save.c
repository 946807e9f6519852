/*
** row_save.c: saving one row with a check that nobody saved it first (optimistic
** concurrency for the review server): the caller names the version its edit started
** from, and the save is refused with the current version when that is stale.
*/
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_edit.h"
#include "rescue_store.h"
#include "store_int.h"

/*
** The annotator's current version of a row: their own latest version of it, else what
** their view shows (the draft, or a version carried over a resegmentation) inside whatever transaction is open:
** *row_id, *version, whether that version is their own, and its content (appended when
** content is not NULL): as stored, with *rowset_id the row set their view shows, or
** already as that view shows it, with *rowset_id 0.
*/
static int current(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                   int64_t *row_id, int64_t *version, rescue_buf *content, int *mine,
                   int64_t *rowset_id) {
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = annotator_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s = NULL;
  const char *only[1] = {sample_id};
  const rescue_row *r;
  sqlite3_stmt *q = rescue_store_stmt(st, "row_save_mine");
  int rc;
  /* the usual case, cheaply: the annotator has a version of this row, and a view always
     shows its own latest first */
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rescue_bind_int(q, ":position", position);
  rescue_bind_int(q, ":annotator_id", annotator_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW && sqlite3_column_type(q, 1) != SQLITE_NULL) {
    if (row_id)
      *row_id = sqlite3_column_int64(q, 0);
    *version = sqlite3_column_int64(q, 1);
    if (mine)
      *mine = 1;
    if (content)
      rescue_buf_putn(content, sqlite3_column_text(q, 2), (size_t)sqlite3_column_bytes(q, 2));
    if (rowset_id)
      *rowset_id = sqlite3_column_int64(q, 3);
    sqlite3_reset(q);
    return 0;
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a row");
  if ((rc = rescue_sample_iter_new(st, &v, only, 1, &it)))
    return rc;
  rc = rescue_sample_iter_next(it, &s);
  if (rc < 0)
    goto done;
  if (rc == 0 || position < 1 || position > s->n) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "sample '%s' has no row %d",
                       sample_id, position);
    goto done;
  }
  r = &s->rows[position - 1];
  if (row_id)
    *row_id = r->row_id;
  *version = r->version_id;
  if (mine)
    *mine = r->annotator_id == annotator_id && r->origin == RESCUE_ROW_OWN;
  if (content)
    rescue_buf_putn(content, r->content, r->content_len);
  if (rowset_id) /* 0: the content is already as the view shows it */
    *rowset_id = 0;
  rc = 0;
done:
  rescue_sample_iter_free(&it);
  return rc;
}

int rescue_row_current(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                       int64_t *version, rescue_buf *content) {
  return current(st, sample_id, position, annotator_id, NULL, version, content, NULL, NULL);
}

/*
** The position row_id was made at (row.position): a version is stored numbered for it, so
** every row set that holds the row shows it right (a view renumbers a row it shows
** elsewhere, corpus/FORMAT.md §4).
*/
static int made_position(rescue_store *st, int64_t row_id, int *position) {
  sqlite3_stmt *q = rescue_store_stmt(st, "row_made_position");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":row_id", row_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *position = sqlite3_column_int(q, 0);
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a row");
}

/* Whether sample_id is still "new" (nobody has started it); 0 or a code. */
static int sample_is_new(rescue_store *st, const char *sample_id, int *is_new) {
  sqlite3_stmt *q = rescue_store_stmt(st, "row_save_status");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rc = sqlite3_step(q);
  *is_new = rc == SQLITE_ROW && strcmp((const char *)sqlite3_column_text(q, 0), "new") == 0;
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a status");
}

/*
** Parse row_json as one row object into *doc, checked as an import checks a row (before
** any lock is taken: a bad row never waits for one). *root gets the row.
*/
static int parse_row(rescue_store *st, const char *row_json, size_t len, rescue_jdoc **doc,
                     const rescue_jnode **root) {
  rescue_jerror je;
  const rescue_jnode *bad = NULL;
  if (!(*doc = rescue_jdoc_new()))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  *root = rescue_jparse(*doc, row_json, len, &je);
  if (!*root) {
    long line, col;
    rescue_jposition(row_json, len, je.offset, &line, &col);
    return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "row:%ld:%ld: %s", line, col,
                         je.msg);
  }
  if ((*root)->type != RESCUE_JOBJECT)
    return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "a row must be a JSON object");
  return rescue_row_input_from_json(rescue_store_scheme(st), *root, NULL, &bad,
                                    rescue_store_err(st));
}

/*
** The row to store: `row` written like the current version `cur` (rescue_row_write_like),
** as a row input in *in whose tree (in->tree, for rescue_store_put_refs) is *like, built
** by rescue_row_like instead of writing the row and parsing it again. `old` is cur parsed
** when the caller has it; else *olddoc gets cur parsed. *like and *olddoc (the caller
** frees both) must live until the row is stored, and so must row's document and old.
*/
static int row_like_current(rescue_store *st, const rescue_jnode *row, const rescue_buf *cur,
                            const rescue_jnode *old, int position, rescue_jdoc **olddoc,
                            rescue_jnode **like, rescue_row_input *in) {
  const rescue_jnode *bad = NULL;
  rescue_jerror je;
  int rc;
  if (!old && cur->len) {
    if (!(*olddoc = rescue_jdoc_new()))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    old = rescue_jparse(*olddoc, cur->s, cur->len, &je);
  }
  if (rescue_row_like(row, old, position, like))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if ((rc = rescue_row_input_from_json(rescue_store_scheme(st), *like, in, &bad,
                                       rescue_store_err(st))))
    return rc;
  in->tree = *like;
  return 0;
}

/* rescue_row_save, with the current version from *known when not NULL. */
static int row_save(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                    int64_t base_version, const char *row_json, size_t len,
                    const rescue_row_known *known, int64_t *version, int *unchanged) {
  rescue_jdoc *doc = NULL, *olddoc = NULL;
  const rescue_jnode *root = NULL;
  rescue_jnode *like = NULL;
  rescue_row_input in;
  rescue_buf cur = RESCUE_BUF_INIT, shown = RESCUE_BUF_INIT, lost = RESCUE_BUF_INIT;
  int64_t row_id = 0, cur_version = 0, rowset_id = 0;
  int rc, mine = 0, is_new = 0, made;

  memset(&in, 0, sizeof in);
  if (unchanged)
    *unchanged = 0;
  if ((rc = parse_row(st, row_json, len, &doc, &root)))
    goto done;
  if ((rc = rescue_store_begin(st)))
    goto done;
  if (known) { /* as the view shows it: rowset_id stays 0 */
    row_id = known->row_id;
    cur_version = known->version;
    mine = known->mine;
    rescue_buf_putn(&cur, known->content, known->len);
  } else if ((rc = current(st, sample_id, position, annotator_id, &row_id, &cur_version, &cur,
                           &mine, &rowset_id))) {
    goto rollback;
  }
  if (!rescue_buf_ok(&cur)) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto rollback;
  }
  if (cur_version != base_version) {
    *version = cur_version;
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT,
                       "row %d of '%s' was saved again (version %lld) after version %lld that "
                       "this edit started from",
                       position, sample_id, (long long)cur_version, (long long)base_version);
    goto rollback;
  }
  made = position;
  if ((rc = made_position(st, row_id, &made)) ||
      (rc = row_like_current(st, root, &cur, known ? known->row : NULL, made, &olddoc, &like,
                             &in)) ||
      (rc = sample_is_new(st, sample_id, &is_new)))
    goto rollback;
  /* unchanged: the row as their view shows their version (its references renumbered
     after a resegmentation, corpus/row_ref.c) */
  if (mine && rowset_id &&
      (rc = rescue_store_refs_in(st, rowset_id, cur_version, cur.s ? cur.s : "", cur.len, &shown,
                                 &lost)))
    goto rollback;
  if (!shown.len && cur.len)
    rescue_buf_putn(&shown, cur.s, cur.len);
  if (!rescue_buf_ok(&shown)) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto rollback;
  }
  if (mine && shown.len == in.content.len && memcmp(shown.s, in.content.s, shown.len) == 0) {
    *version = cur_version;
    if (unchanged)
      *unchanged = 1;
    rescue_store_rollback(st);
  } else if ((rc = rescue_store_add_row_version(st, row_id, annotator_id, "edit", &in, NULL, NULL,
                                                version)) ||
             (rc = rescue_sample_reopen(st, sample_id, annotator_id, NULL, NULL)) ||
             (rc = rescue_store_commit(st))) {
    goto rollback;
  }
  /* the first save (even of an unchanged row: the annotator reviewed it) starts the
     review; its own transaction, so the saved row stands even if the status cannot be
     written */
  if (is_new)
    rescue_sample_set_status(st, sample_id, "in_review", NULL, annotator_id);
  goto done;
rollback:
  rescue_store_rollback(st);
done:
  rescue_buf_clear(&cur);
  rescue_buf_clear(&shown);
  rescue_buf_clear(&lost);
  rescue_row_input_clear(&in);
  rescue_free(like);
  rescue_jdoc_free(&olddoc);
  rescue_jdoc_free(&doc);
  return rc;
}

int rescue_row_save(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                    int64_t base_version, const char *row_json, size_t len, int64_t *version,
                    int *unchanged) {
  return row_save(st, sample_id, position, annotator_id, base_version, row_json, len, NULL, version,
                  unchanged);
}

int rescue_row_save_known(rescue_store *st, const char *sample_id, int position,
                          int64_t annotator_id, int64_t base_version, const char *row_json,
                          size_t len, const rescue_row_known *known, int64_t *version,
                          int *unchanged) {
  return row_save(st, sample_id, position, annotator_id, base_version, row_json, len, known,
                  version, unchanged);
}
