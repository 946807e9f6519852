/*
** workflow.c: the review workflow's shared state: status histories, comments on samples
** and rows, and the list of what is assigned to whom with each annotator's progress.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_workflow.h"
#include "store_int.h"

int rescue_status_valid(const char *status) {
  return strcmp(status, "new") == 0 || strcmp(status, "in_review") == 0 ||
         strcmp(status, "reviewed") == 0 || strcmp(status, "discarded") == 0;
}

/* A text column as a new string; NULL for SQL NULL. *oom set when a copy failed. */
static char *col_or_null(sqlite3_stmt *s, int i, int *oom) {
  const unsigned char *t = sqlite3_column_text(s, i);
  char *c;
  if (!t)
    return NULL;
  if (!(c = rescue_strdup((const char *)t)))
    *oom = 1;
  return c;
}

/* ---- status history ---- */

int rescue_status_history(rescue_store *st, const char *sample_id, rescue_status_entry **out,
                          int *n) {
  sqlite3_stmt *s;
  rescue_status_entry *v = NULL;
  int64_t ref;
  int rc, k = 0, cap = 0, oom = 0;
  *out = NULL;
  *n = 0;
  if ((rc = rescue_sample_ref(st, sample_id, &ref)))
    return rc;
  if (!(s = rescue_store_stmt(st, "status_history")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(v, k + 1, cap)) {
      oom = 1;
      break;
    }
    v[k].status = col_or_null(s, 0, &oom);
    v[k].reason = col_or_null(s, 1, &oom);
    v[k].annotator = col_or_null(s, 2, &oom);
    v[k].created_at = col_or_null(s, 3, &oom);
    k++;
    if (oom)
      break;
  }
  sqlite3_reset(s);
  if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
    rescue_status_history_free(&v, k);
    return oom ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
               : rescue_store_sqlerr(st, "reading a status history");
  }
  *out = v;
  *n = k;
  return 0;
}

void rescue_status_history_free(rescue_status_entry **list, int n) {
  int i;
  if (!list || !*list)
    return;
  for (i = 0; i < n; i++) {
    rescue_free((*list)[i].status);
    rescue_free((*list)[i].reason);
    rescue_free((*list)[i].annotator);
    rescue_free((*list)[i].created_at);
  }
  rescue_free(*list);
  *list = NULL;
}

/* ---- comments ---- */

int rescue_comment_add(rescue_store *st, const char *sample_id, int row, const char *text,
                       int64_t annotator_id, int64_t *id) {
  sqlite3_stmt *s;
  const char *p;
  char now[32];
  int64_t ref, row_id = 0;
  int rc, only_space = 1;
  for (p = text; *p; p++)
    only_space &= *p == ' ' || *p == '\t' || *p == '\n' || *p == '\r';
  if (only_space)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "the comment is empty");
  if (!rescue_utf8_valid(text, strlen(text)))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "the comment is not valid UTF-8");
  for (p = text; *p; p++)
    if (((unsigned char)*p < 0x20 && *p != '\n' && *p != '\t') || *p == 0x7f)
      return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                           "the comment contains a control character");
  if (row < 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "row %d: rows count from 1", row);
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = rescue_sample_ref(st, sample_id, &ref)))
    goto fail;
  if (row > 0) {
    if (!(s = rescue_store_stmt(st, "comment_row"))) {
      rc = rescue_store_err(st)->code;
      goto fail;
    }
    rescue_bind_int(s, ":sample_ref", ref);
    rescue_bind_int(s, ":position", row);
    rescue_bind_int(s, ":annotator_id", annotator_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
      row_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc == SQLITE_DONE) {
      int n_rows = 0;
      rescue_sample_rowcount(st, sample_id, &n_rows);
      rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "sample '%s' has no row %d (it has %d row%s)", sample_id, row, n_rows,
                         n_rows == 1 ? "" : "s");
      goto fail;
    }
    if (rc != SQLITE_ROW) {
      rc = rescue_store_sqlerr(st, "looking up a row");
      goto fail;
    }
  }
  if (!(s = rescue_store_stmt(st, "comment_insert"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_now_iso(now);
  rescue_bind_int(s, ":sample_ref", ref);
  if (row > 0) {
    rescue_bind_int(s, ":row_id", row_id);
    rescue_bind_int(s, ":position", row);
  } else {
    rescue_bind_null(s, ":row_id");
    rescue_bind_null(s, ":position");
  }
  if (annotator_id)
    rescue_bind_int(s, ":annotator_id", annotator_id);
  else
    rescue_bind_null(s, ":annotator_id");
  rescue_bind_text(s, ":text", text, -1);
  rescue_bind_text(s, ":now", now, -1);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "writing a comment");
    goto fail;
  }
  if (id)
    *id = sqlite3_last_insert_rowid(rescue_store_db(st));
  return rescue_store_commit(st);
fail:
  rescue_store_rollback(st);
  return rc;
}

int rescue_comments_list(rescue_store *st, const char *const *samples, int n_samples,
                         rescue_comment **out, int *n) {
  sqlite3_stmt *s;
  rescue_comment *v = NULL;
  int64_t *refs = NULL;
  int rc = 0, i, k = 0, cap = 0, oom = 0;
  *out = NULL;
  *n = 0;
  if (n_samples > 0) {
    if (!(refs = rescue_calloc((size_t)n_samples, sizeof *refs)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    for (i = 0; i < n_samples; i++)
      if ((rc = rescue_sample_ref(st, samples[i], &refs[i]))) {
        rescue_free(refs);
        return rc;
      }
  }
  if (!(s = rescue_store_stmt(st, "comments_list"))) {
    rescue_free(refs);
    return rescue_store_err(st)->code;
  }
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int64_t ref = sqlite3_column_int64(s, 6);
    int want = n_samples == 0;
    for (i = 0; i < n_samples; i++)
      want |= refs[i] == ref;
    if (!want)
      continue;
    if (RESCUE_ALLOC_GROW(v, k + 1, cap)) {
      oom = 1;
      break;
    }
    v[k].id = sqlite3_column_int64(s, 0);
    v[k].sample_id = col_or_null(s, 1, &oom);
    v[k].row = sqlite3_column_int(s, 2);
    v[k].annotator = col_or_null(s, 3, &oom);
    v[k].text = col_or_null(s, 4, &oom);
    v[k].created_at = col_or_null(s, 5, &oom);
    k++;
    if (oom)
      break;
  }
  sqlite3_reset(s);
  rescue_free(refs);
  if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
    rescue_comments_free(&v, k);
    return oom ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
               : rescue_store_sqlerr(st, "reading comments");
  }
  *out = v;
  *n = k;
  return 0;
}

void rescue_comments_free(rescue_comment **list, int n) {
  int i;
  if (!list || !*list)
    return;
  for (i = 0; i < n; i++) {
    rescue_free((*list)[i].sample_id);
    rescue_free((*list)[i].annotator);
    rescue_free((*list)[i].text);
    rescue_free((*list)[i].created_at);
  }
  rescue_free(*list);
  *list = NULL;
}

void rescue_status_history_jw(rescue_jw *w, const rescue_status_entry *h, int n) {
  int i;
  rescue_jw_arr(w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "status");
    rescue_jw_str(w, h[i].status);
    rescue_jw_key(w, "reason");
    rescue_jw_str_or_null(w, h[i].reason);
    rescue_jw_key(w, "annotator");
    rescue_jw_str_or_null(w, h[i].annotator);
    rescue_jw_key(w, "created_at");
    rescue_jw_str(w, h[i].created_at);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void rescue_comments_json(const rescue_comment *list, int n, rescue_buf *out) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "comments");
  rescue_jw_arr(&w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "id");
    rescue_jw_int(&w, list[i].id);
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, list[i].sample_id);
    rescue_jw_key(&w, "row");
    if (list[i].row > 0)
      rescue_jw_int(&w, list[i].row);
    else
      rescue_jw_null(&w);
    rescue_jw_key(&w, "annotator");
    rescue_jw_str_or_null(&w, list[i].annotator);
    rescue_jw_key(&w, "text");
    rescue_jw_str(&w, list[i].text);
    rescue_jw_key(&w, "created_at");
    rescue_jw_str(&w, list[i].created_at);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}

/* ---- assignment lists ---- */

int rescue_assign_list(rescue_store *st, int64_t annotator_id, rescue_assignment_info **out, int *n,
                       rescue_assign_run *run) {
  sqlite3_stmt *s;
  rescue_assignment_info *v = NULL;
  int rc, k = 0, cap = 0, oom = 0;
  *out = NULL;
  *n = 0;
  memset(run, 0, sizeof *run);
  if (!(s = rescue_store_stmt(st, "assign_run_latest")))
    return rescue_store_err(st)->code;
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    run->id = sqlite3_column_int64(s, 0);
    run->seed = (uint64_t)sqlite3_column_int64(s, 1);
    run->overlap = sqlite3_column_double(s, 2);
    run->annotators = col_or_null(s, 3, &oom);
    run->created_at = col_or_null(s, 4, &oom);
  }
  sqlite3_reset(s);
  if (oom || (rc != SQLITE_ROW && rc != SQLITE_DONE)) {
    rescue_assign_list_free(NULL, 0, run);
    return oom ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
               : rescue_store_sqlerr(st, "reading the assignment");
  }
  if (!(s = rescue_store_stmt(st, "assign_list"))) {
    rescue_assign_list_free(NULL, 0, run);
    return rescue_store_err(st)->code;
  }
  rescue_bind_int(s, ":annotator_id", annotator_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(v, k + 1, cap)) {
      oom = 1;
      break;
    }
    v[k].sample_id = col_or_null(s, 0, &oom);
    v[k].annotator = col_or_null(s, 1, &oom);
    v[k].status = col_or_null(s, 2, &oom);
    v[k].status_reason = col_or_null(s, 3, &oom);
    v[k].n_rows = sqlite3_column_int(s, 4);
    v[k].rows_saved = (long)sqlite3_column_int64(s, 5);
    v[k].comments = (long)sqlite3_column_int64(s, 6);
    k++;
    if (oom)
      break;
  }
  sqlite3_reset(s);
  if (oom || (rc != SQLITE_DONE && rc != SQLITE_ROW)) {
    rescue_assign_list_free(&v, k, run);
    return oom ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
               : rescue_store_sqlerr(st, "reading assignments");
  }
  *out = v;
  *n = k;
  return 0;
}

void rescue_assign_list_free(rescue_assignment_info **list, int n, rescue_assign_run *run) {
  int i;
  if (list && *list) {
    for (i = 0; i < n; i++) {
      rescue_free((*list)[i].sample_id);
      rescue_free((*list)[i].annotator);
      rescue_free((*list)[i].status);
      rescue_free((*list)[i].status_reason);
    }
    rescue_free(*list);
    *list = NULL;
  }
  if (run) {
    rescue_free(run->annotators);
    rescue_free(run->created_at);
    memset(run, 0, sizeof *run);
  }
}

void rescue_assign_list_json(const rescue_assignment_info *list, int n,
                             const rescue_assign_run *run, rescue_buf *out) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "run");
  if (run && run->id) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "id");
    rescue_jw_int(&w, run->id);
    rescue_jw_key(&w, "seed");
    rescue_jw_int(&w, (long long)run->seed);
    rescue_jw_key(&w, "overlap");
    rescue_jw_double(&w, run->overlap);
    rescue_jw_key(&w, "annotators");
    rescue_jw_str_or_null(&w, run->annotators);
    rescue_jw_key(&w, "created_at");
    rescue_jw_str_or_null(&w, run->created_at);
    rescue_jw_end(&w);
  } else {
    rescue_jw_null(&w);
  }
  rescue_jw_key(&w, "assignments");
  rescue_jw_arr(&w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, list[i].sample_id);
    rescue_jw_key(&w, "annotator");
    rescue_jw_str(&w, list[i].annotator);
    rescue_jw_key(&w, "status");
    rescue_jw_str(&w, list[i].status);
    rescue_jw_key(&w, "status_reason");
    rescue_jw_str_or_null(&w, list[i].status_reason);
    rescue_jw_key(&w, "rows");
    rescue_jw_int(&w, list[i].n_rows);
    rescue_jw_key(&w, "rows_saved");
    rescue_jw_int(&w, list[i].rows_saved);
    rescue_jw_key(&w, "comments");
    rescue_jw_int(&w, list[i].comments);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
