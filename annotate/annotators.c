/*
** annotators.c: adding annotators with a role and a sign-in token (only its SHA-256 is
** stored, computed with libavutil), looking a token up, and listing annotators with
** their versions and assignments.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "rescue_alloc.h"
#include "rescue_annotators.h"
#include "prim_int.h"
#include "rescue_sha256.h"
#include "store_int.h"

int rescue_annotator_role_valid(const char *role) {
  return strcmp(role, "annotator") == 0 || strcmp(role, "lead") == 0 || strcmp(role, "model") == 0;
}

void rescue_token_hash(const char *token, char hex[65]) {
  rescue_sha256 h;
  rescue_sha256_init(&h);
  rescue_sha256_update(&h, token, strlen(token));
  rescue_sha256_hex(&h, hex);
}

/* 32 random bytes as 64 hex characters. */
static int new_token(char token[65]) {
  unsigned char raw[32];
  size_t got = 0;
  while (got < sizeof raw) {
    ssize_t r = getrandom(raw + got, sizeof raw - got, 0);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    got += (size_t)r;
  }
  rescue_hex(raw, sizeof raw, token);
  return 0;
}

/*
** The audit record of a change to the annotator `name` (rescue_audit.h), inside the
** caller's transaction: "<what> (role <role>)" or "<what> (<reason>)" as its detail.
*/
static int annotator_audit(rescue_store *st, const char *name, const char *what, const char *role,
                           const char *reason) {
  rescue_audit_entry e = {0};
  char detail[600];
  if (role)
    snprintf(detail, sizeof detail, "%s '%s' (role %s)", what, name, role);
  else
    snprintf(detail, sizeof detail, "%s '%s'%s%s%s", what, name, reason ? " (" : "",
             reason ? reason : "", reason ? ")" : "");
  e.action = "annotator";
  e.annotator = name;
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

int rescue_annotator_add(rescue_store *st, const char *name, const char *role, char token[65],
                         int *existed) {
  sqlite3_stmt *s;
  char hash[65];
  const char *why;
  int64_t id = 0;
  int rc, found = 0, has_token = 0;
  char cur_role[16] = "";
  *existed = 0;
  if ((why = rescue_annotator_name_invalid(name)))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "invalid annotator name '%s': %s",
                         name, why);
  if (role && !rescue_annotator_role_valid(role))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "unknown role '%s' (expected annotator, lead or model)", role);
  if (new_token(token))
    return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "cannot read random bytes: %s",
                         strerror(errno));
  rescue_token_hash(token, hash);
  if ((rc = rescue_store_begin(st)))
    return rc;
  if (!(s = rescue_store_stmt(st, "annotator_get"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_text(s, ":name", name, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    found = 1;
    id = sqlite3_column_int64(s, 0);
    snprintf(cur_role, sizeof cur_role, "%s", (const char *)sqlite3_column_text(s, 1));
    has_token = sqlite3_column_type(s, 2) != SQLITE_NULL;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "looking up an annotator");
    goto fail;
  }
  if (found && has_token) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EEXISTS,
                       "annotator '%s' already exists and has a sign-in token", name);
    goto fail;
  }
  if (!found && (rc = rescue_annotator_id(st, name, role ? role : "annotator", 1, &id)))
    goto fail;
  if (!(s = rescue_store_stmt(st, "annotator_issue_token"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_text(s, ":token_hash", hash, -1);
  rescue_bind_text(s, ":role", role ? role : found ? cur_role : "annotator", -1);
  rescue_bind_int(s, ":id", id);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "issuing a token");
    sqlite3_reset(s);
    goto fail;
  }
  sqlite3_reset(s);
  if ((rc = annotator_audit(
           st, name, found ? "a sign-in token issued to the existing annotator" : "annotator added",
           role    ? role
           : found ? cur_role
                   : "annotator",
           NULL)) ||
      (rc = rescue_store_commit(st)))
    goto fail;
  *existed = found;
  return 0;
fail:
  rescue_store_rollback(st);
  memset(token, 0, 65);
  return rc;
}

int rescue_annotator_rotate(rescue_store *st, const char *name, char token[65]) {
  sqlite3_stmt *s;
  char hash[65];
  int64_t id;
  int rc, retired = 0;
  if (new_token(token))
    return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "cannot read random bytes: %s",
                         strerror(errno));
  rescue_token_hash(token, hash);
  if ((rc = rescue_store_begin(st)))
    goto out;
  if ((rc = rescue_annotator_lookup(st, name, &id, NULL, &retired)))
    goto fail;
  if (retired) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ERETIRED,
                       "annotator '%s' is retired: unretire them first", name);
    goto fail;
  }
  if (!(s = rescue_store_stmt(st, "annotator_rotate_token"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_text(s, ":token_hash", hash, -1);
  rescue_bind_int(s, ":id", id);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "issuing a token");
    goto fail;
  }
  if (!(rc = rescue_store_commit(st)))
    return 0;
fail:
  rescue_store_rollback(st);
out:
  memset(token, 0, 65);
  return rc;
}

int rescue_annotator_by_token(rescue_store *st, const char *token, int64_t *id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "annotator_by_token");
  char hash[65];
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_token_hash(token, hash);
  rescue_bind_text(s, ":token_hash", hash, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    *id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  if (rc == SQLITE_ROW)
    return 0;
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "checking a token");
  return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "unknown sign-in token");
}

/* A column as a new string ("" for NULL); NULL when out of memory. */
static char *col_dup(sqlite3_stmt *s, int i) {
  const unsigned char *t = sqlite3_column_text(s, i);
  return rescue_strdup(t ? (const char *)t : "");
}

int rescue_annotator_list(rescue_store *st, rescue_annotator_info **out, int *n,
                          rescue_assign_run *run) {
  sqlite3_stmt *s = rescue_store_stmt(st, "annotator_list");
  rescue_annotator_info *list = NULL;
  int cap = 0, k = 0, rc;
  *out = NULL;
  *n = 0;
  memset(run, 0, sizeof *run);
  if (!s)
    return rescue_store_err(st)->code;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    rescue_annotator_info *a;
    if (RESCUE_ALLOC_GROW(list, k + 1, cap))
      break;
    a = &list[k];
    memset(a, 0, sizeof *a);
    a->id = sqlite3_column_int64(s, 0);
    a->name = col_dup(s, 1);
    a->role = col_dup(s, 2);
    a->has_token = sqlite3_column_int(s, 3);
    a->created_at = col_dup(s, 4);
    a->versions = (long)sqlite3_column_int64(s, 5);
    a->gold = (long)sqlite3_column_int64(s, 6);
    a->samples = (long)sqlite3_column_int64(s, 7);
    a->assigned = (long)sqlite3_column_int64(s, 8);
    a->shared = (long)sqlite3_column_int64(s, 9);
    a->retired = sqlite3_column_int(s, 10);
    k++;
    if (!a->name || !a->role || !a->created_at)
      break;
  }
  sqlite3_reset(s);
  if (rc == SQLITE_ROW) {
    rescue_annotator_list_free(&list, k, NULL);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  if (rc != SQLITE_DONE) {
    rescue_annotator_list_free(&list, k, NULL);
    return rescue_store_sqlerr(st, "listing annotators");
  }
  if (!(s = rescue_store_stmt(st, "assign_run_latest"))) {
    rescue_annotator_list_free(&list, k, NULL);
    return rescue_store_err(st)->code;
  }
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    run->id = sqlite3_column_int64(s, 0);
    run->seed = (uint64_t)sqlite3_column_int64(s, 1);
    run->overlap = sqlite3_column_double(s, 2);
    run->annotators = col_dup(s, 3);
    run->created_at = col_dup(s, 4);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE) {
    rescue_annotator_list_free(&list, k, run);
    return rescue_store_sqlerr(st, "reading the assignment");
  }
  if (run->id && (!run->annotators || !run->created_at)) {
    rescue_annotator_list_free(&list, k, run);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  *out = list;
  *n = k;
  return 0;
}

void rescue_annotator_list_free(rescue_annotator_info **list, int n, rescue_assign_run *run) {
  int i;
  if (list && *list) {
    for (i = 0; i < n; i++) {
      rescue_free((*list)[i].name);
      rescue_free((*list)[i].role);
      rescue_free((*list)[i].created_at);
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

int rescue_assigned_samples(rescue_store *st, int64_t annotator_id, char ***ids, int *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, "assigned_samples");
  char **v = NULL;
  int cap = 0, k = 0, rc;
  *ids = NULL;
  *n = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":annotator_id", annotator_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(v, k + 1, cap))
      break;
    if (!(v[k] = col_dup(s, 0)))
      break;
    k++;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_assigned_samples_free(&v, k);
    return rc == SQLITE_ROW ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
                            : rescue_store_sqlerr(st, "reading assignments");
  }
  *ids = v;
  *n = k;
  return 0;
}

void rescue_assigned_samples_free(char ***ids, int n) {
  int i;
  if (!ids || !*ids)
    return;
  for (i = 0; i < n; i++)
    rescue_free((*ids)[i]);
  rescue_free(*ids);
  *ids = NULL;
}

/* ---- registered annotators ---- */

/* Retire (retired = 1) or bring back (0) an annotator, with the change recorded. */
static int set_retired(rescue_store *st, const char *name, int retired, const char *reason) {
  sqlite3_stmt *s;
  char now[32];
  int64_t id;
  int rc, was = 0;
  if (retired && (!reason || !*reason))
    return rescue_seterr_arg(rescue_store_err(st), RESCUE_EINVAL, "reason",
                             "retiring an annotator needs a reason");
  if (reason && rescue_name_unsafe(reason) && *reason)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "the reason %s",
                         rescue_name_unsafe(reason));
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = rescue_annotator_lookup(st, name, &id, NULL, &was)))
    goto fail;
  if (was == retired) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "annotator '%s' is %s", name,
                       retired ? "already retired" : "not retired");
    goto fail;
  }
  rescue_now_iso(now);
  if (!(s = rescue_store_stmt(st, "annotator_retirement_insert"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_int(s, ":annotator_id", id);
  rescue_bind_int(s, ":retired", retired);
  rescue_bind_text(s, ":reason", reason && *reason ? reason : NULL, -1);
  rescue_bind_text(s, ":now", now, -1);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "recording a retirement");
    goto fail;
  }
  if (!(s = rescue_store_stmt(st, "annotator_set_retired"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_int(s, ":retired", retired);
  rescue_bind_int(s, ":id", id);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "recording a retirement");
    goto fail;
  }
  if ((rc = annotator_audit(st, name, retired ? "retired" : "unretired", NULL,
                            reason && *reason ? reason : NULL)))
    goto fail;
  return rescue_store_commit(st);
fail:
  rescue_store_rollback(st);
  return rc;
}

int rescue_annotator_retire(rescue_store *st, const char *name, const char *reason) {
  return set_retired(st, name, 1, reason);
}

int rescue_annotator_unretire(rescue_store *st, const char *name, const char *reason) {
  return set_retired(st, name, 0, reason);
}
