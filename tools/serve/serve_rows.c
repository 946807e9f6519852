/*
** serve_rows.c: writing a sample: saving one row (PUT /api/samples/<id>/rows/<n>: linted,
** then conflict-checked by rescue_row_save) and its status (POST .../status).
*/
#include <stdio.h>
#include <string.h>

#include "rescue_review.h"
#include "serve_impl.h"

void srv_conflict(srv_req *r, int position, int64_t cur) {
  rescue_buf content = RESCUE_BUF_INIT;
  int64_t v = cur;
  char msg[1024];
  rescue_jw w;
  snprintf(msg, sizeof msg, "%s", rescue_store_errmsg(r->st));
  rescue_row_current(r->st, r->sample_id, position, r->who.id, &v, &content);
  rescue_buf_reset(&r->out);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "error");
  rescue_jw_str(&w, msg);
  rescue_jw_key(&w, "version");
  rescue_jw_int(&w, v);
  rescue_jw_key(&w, "row");
  if (content.len)
    rescue_jw_raw(&w, content.s, content.len);
  else
    rescue_jw_null(&w);
  rescue_jw_end(&w);
  rescue_buf_clear(&content);
  r->status = 409;
}

/* 400 with the lint findings on the row that block its save. */
static void lint_refusal(srv_req *r, const rescue_lint_result *res) {
  rescue_jw w;
  rescue_buf_reset(&r->out);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "error");
  rescue_jw_str(&w, rescue_store_errmsg(r->st));
  rescue_jw_key(&w, "findings");
  srv_put_findings(&w, res, r->position);
  rescue_jw_end(&w);
  r->status = 400;
}

void srv_put_reopened(rescue_jw *w, const char *was, const char *now) {
  int reopened = (strcmp(was, "reviewed") == 0 || strcmp(was, "discarded") == 0) &&
                 strcmp(now, "in_review") == 0;
  rescue_jw_key(w, "status");
  rescue_jw_str(w, now);
  rescue_jw_key(w, "reopened");
  rescue_jw_bool(w, reopened);
  if (reopened) {
    rescue_jw_key(w, "reopened_from");
    rescue_jw_str(w, was);
  }
}

/*
** Save `row` (its JSON text) as row r->position: lint first against the caller's view
** from the cache (rescue_review_check_change_known, with the cached lint's names, so an
** edit that leaves the row's names alone reads no other row for them, and the cached
** cues, so the check reads nothing from the store; an error blocks the save), then
** rescue_row_save with base as the version the edit started from (409 with the current row
** when someone saved it since); once the group committed, the saved row goes into the
** cached view with the lint the check made (srv_cache_saved), so the next read costs one
** row's work and the row is linted once per save. The answer says the sample's status
** after the save and whether the save reopened it (srv_put_reopened).
*/
static void save_row(srv_req *r, int64_t base, const rescue_buf *row) {
  const rescue_view_sample *view;
  const rescue_lint_result *kept;
  rescue_review_change ch;
  rescue_buf cur = RESCUE_BUF_INIT, history = RESCUE_BUF_INIT;
  rescue_row_known known;
  srv_cached *e = NULL;
  int64_t version = 0, gen0 = 0, gen1 = 0, checked;
  char was[16] = "", now[16] = "";
  int rc, unchanged = 0, moved = 0;
  rescue_jw w;

  memset(&ch, 0, sizeof ch);
  if ((rc = srv_cache_get(r, r->sample_id, r->who.id, NULL, &e))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  checked = srv_cache_gen(r->srv, e);
  view = srv_cache_view(e, &kept);
  rc = rescue_review_check_change_known(r->st, r->sample_id, view, kept, &srv_cache_notes(e)->cues,
                                        r->position, row->s, row->len, &ch);
  srv_cache_unread(e);
  if (rc == RESCUE_EBADINPUT && ch.lint.errors) {
    lint_refusal(r, &ch.lint);
    goto done;
  }
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  if (!srv_write_lock(r))
    goto done;
  rc = rescue_sample_generation(r->st, r->sample_id, &gen0, was);
  /* the cached view, when nobody wrote the sample since it was loaded, says what the
     current version is without reading the whole sample */
  if (!rc && srv_cache_known(r->srv, e, gen0, r->position, &cur, &known))
    rc = rescue_row_save_known(r->st, r->sample_id, r->position, r->who.id, base, row->s, row->len,
                               &known, &version, &unchanged);
  else if (!rc)
    rc = rescue_row_save(r->st, r->sample_id, r->position, r->who.id, base, row->s, row->len,
                         &version, &unchanged);
  if (!rc && rescue_sample_generation(r->st, r->sample_id, &gen1, now))
    gen1 = -1; /* not known: the cached view is dropped */
  /* a save that moved the status (the first of a new sample, or one that reopened it) wrote
     a line of the status history the kept notes show: read here, as of gen1 */
  moved = strcmp(was, now) != 0;
  if (!rc && gen1 >= 0 && moved &&
      (srv_notes_history(r, r->sample_id, &history) || !rescue_buf_ok(&history)))
    gen1 = -1;
  srv_write_unlock(r);
  if (rc == RESCUE_ECONFLICT) {
    srv_conflict(r, r->position, version);
    goto done;
  }
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  /* the answer first: the cached view takes the check's findings */
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "version");
  rescue_jw_int(&w, version);
  rescue_jw_key(&w, "unchanged");
  rescue_jw_bool(&w, unchanged);
  srv_put_reopened(&w, was, now);
  rescue_jw_key(&w, "warnings");
  srv_put_findings(&w, &ch.lint, r->position);
  rescue_jw_end(&w);
  r->status = 200;
  if (!r->commit_failed)
    srv_cache_saved(r, e, gen1 < 0 ? -1 : gen0, gen1, checked, &ch, version, unchanged,
                    moved ? &history : NULL);
done:
  srv_cache_release(r->srv, &e);
  rescue_buf_clear(&cur);
  rescue_buf_clear(&history);
  rescue_review_change_clear(&ch);
}

/* PUT /api/samples/<id>/rows/<n> {"base_version": V, "row": {...}} */
void api_save_row(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf text = RESCUE_BUF_INIT;
  const rescue_jnode *root, *row;
  int64_t base;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)) || !srv_int_member(r, root, "base_version", &base))
    goto done;
  row = rescue_jget(root, "row");
  if (!row || row->type != RESCUE_JOBJECT) {
    srv_error(r, 400, "'row' must be a JSON object");
    goto done;
  }
  rescue_jwrite(&text, row);
  if (!rescue_buf_ok(&text)) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  save_row(r, base, &text);
done:
  rescue_buf_clear(&text);
  rescue_jdoc_free(&doc);
}

/* POST /api/samples/<id>/status {"status": "...", "reason": "..."} */
void api_status(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *st, *reason;
  int rc;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  st = rescue_jget(root, "status");
  reason = rescue_jget(root, "reason");
  if (!st || st->type != RESCUE_JSTRING) {
    srv_error(r, 400, "'status' must be a string (new, in_review, reviewed or discarded)");
    goto done;
  }
  if (reason && reason->type != RESCUE_JSTRING && reason->type != RESCUE_JNULL) {
    srv_error(r, 400, "'reason' must be a string");
    goto done;
  }
  if (!srv_write_lock(r))
    goto done;
  rc = rescue_sample_set_status(
      r->st, r->sample_id, st->s,
      reason && reason->type == RESCUE_JSTRING && reason->len ? reason->s : NULL, r->who.id);
  srv_write_unlock(r);
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  rescue_buf_printf(&r->out, "{\"status\": ");
  rescue_jwrite_string(&r->out, st->s, st->len);
  rescue_buf_puts(&r->out, "}");
  r->status = 200;
done:
  rescue_jdoc_free(&doc);
}
