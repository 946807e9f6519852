/*
** serve_samples.c: the caller's work list (GET /api/samples) and one sample as a view
** shows it (GET /api/samples/<id>): rows with versions and origins, lint marks, clips,
** comments, status history and subtitle cues (the last three written once per kept view:
** srv_notes_read).
*/
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_review.h"
#include "rescue_subtitles.h"
#include "rescue_workflow.h"
#include "serve_impl.h"

/* ---- the work list ---- */

static void put_item(rescue_jw *w, const rescue_work_item *it) {
  rescue_jw_obj(w);
  rescue_jw_key(w, "sample_id");
  rescue_jw_str(w, it->sample_id);
  rescue_jw_key(w, "group");
  rescue_jw_str(w, it->group);
  rescue_jw_key(w, "scenario");
  rescue_jw_str(w, it->scenario);
  rescue_jw_key(w, "status");
  rescue_jw_str(w, it->status);
  rescue_jw_key(w, "status_reason");
  rescue_jw_str_or_null(w, it->status_reason);
  rescue_jw_key(w, "rows");
  rescue_jw_int(w, it->rows);
  rescue_jw_key(w, "mine");
  rescue_jw_int(w, it->mine);
  rescue_jw_key(w, "assigned");
  rescue_jw_bool(w, it->assigned);
  rescue_jw_key(w, "assignees");
  rescue_jw_str(w, it->assignees);
  rescue_jw_end(w);
}

/*
** GET /api/samples: the caller's work list (rescue_work_list; the route's scope says
** whether it is every sample): each with status, scenario, group, rows, the rows the
** caller has saved, and who it is assigned to.
*/
void api_samples(srv_req *r) {
  rescue_work_item *items = NULL;
  rescue_jw w;
  int rc, i, n = 0, any = 0;
  if ((rc = rescue_work_list(r->st, r->who.id, r->every, &items, &n, &any))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "annotator");
  rescue_jw_str(&w, r->who.name);
  rescue_jw_key(&w, "assignments");
  rescue_jw_bool(&w, any);
  rescue_jw_key(&w, "samples");
  rescue_jw_arr(&w);
  for (i = 0; i < n; i++)
    put_item(&w, &items[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_work_list_free(&items, n);
  r->status = 200;
}

/* ---- one sample through a view ---- */

void srv_put_findings(rescue_jw *w, const rescue_lint_result *res, int only_row) {
  int i;
  rescue_jw_arr(w);
  for (i = 0; i < res->n; i++) {
    const rescue_lint_finding *f = &res->findings[i];
    char rule[8];
    if (only_row && f->row != only_row)
      continue;
    snprintf(rule, sizeof rule, "R%02d", f->rule);
    rescue_jw_obj(w);
    rescue_jw_key(w, "row");
    rescue_jw_int(w, f->row);
    rescue_jw_key(w, "field");
    rescue_jw_str(w, f->field ? f->field : "");
    rescue_jw_key(w, "rule");
    rescue_jw_str(w, rule);
    rescue_jw_key(w, "severity");
    rescue_jw_str(w, f->severity == RESCUE_LINT_ERROR ? "error" : "warning");
    rescue_jw_key(w, "reason");
    rescue_jw_str(w, f->reason ? f->reason : "");
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/* The clip <sample_id>/<tail> as that path when it is a regular file under the clip
   folder (signed for the caller's session: "<path>?exp=...&sig=..."), else null. */
static void put_clip(srv_req *r, rescue_jw *w, const char *tail) {
  struct stat sb;
  rescue_buf rel = RESCUE_BUF_INIT, p = RESCUE_BUF_INIT;
  int ok = 0;
  rescue_buf_printf(&rel, "%s/%s", r->sample_id, tail);
  if (r->srv->assets_real && rescue_buf_ok(&rel)) {
    rescue_buf_printf(&p, "%s/%s", r->srv->assets_real, rel.s);
    ok = rescue_buf_ok(&p) && stat(p.s, &sb) == 0 && S_ISREG(sb.st_mode);
    if (ok)
      srv_media_sign(r, p.s + strlen(r->srv->assets_real) + 1, &rel);
  }
  if (ok && rescue_buf_ok(&rel))
    rescue_jw_str(w, rel.s);
  else
    rescue_jw_null(w);
  rescue_buf_clear(&p);
  rescue_buf_clear(&rel);
}

/* The sample's entity set: participants, the practitioner, the scenario's group label. */
static void put_entities(rescue_jw *w, const rescue_scheme *sc, const rescue_view_sample *L) {
  const rescue_jnode *parts = rescue_jget(L->sample, "participants"), *e;
  rescue_jw_arr(w);
  if (parts && parts->type == RESCUE_JARRAY)
    for (e = parts->child; e; e = e->next)
      if (e->type == RESCUE_JSTRING)
        rescue_jw_strn(w, e->s, e->len);
  rescue_jw_str(w, sc->therapist);
  if (rescue_scheme_group_label(sc, L->scenario))
    rescue_jw_str(w, rescue_scheme_group_label(sc, L->scenario));
  rescue_jw_end(w);
}

/* The view's rows with their ids, versions, origin and media; text: each row's JSON, span:
   its start and end (the cache's). */
static void put_rows(srv_req *r, rescue_jw *w, const rescue_view_sample *L, const rescue_buf *text,
                     const double *span, const srv_media *m) {
  int i;
  rescue_jw_arr(w);
  for (i = 0; i < L->n; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "index");
    rescue_jw_int(w, i + 1);
    rescue_jw_key(w, "row_id");
    rescue_jw_int(w, L->row_ids[i]);
    rescue_jw_key(w, "version");
    rescue_jw_int(w, L->versions[i]);
    rescue_jw_key(w, "mine");
    rescue_jw_bool(w, L->mine[i]);
    rescue_jw_key(w, "origin");
    rescue_jw_str(w, L->origin[i] == RESCUE_ROW_CARRIED  ? "carried"
                     : L->origin[i] == RESCUE_ROW_SPLIT  ? "split"
                     : L->origin[i] == RESCUE_ROW_MERGED ? "merged"
                                                         : "own");
    rescue_jw_key(w, "seg_changed");
    rescue_jw_bool(w, L->seg_changed[i]);
    rescue_jw_key(w, "row");
    rescue_jw_raw(w, text[i].s, text[i].len);
    rescue_jw_key(w, "media");
    srv_put_row_media(r, w, m, i, span[2 * i], span[2 * i + 1]);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void srv_notes_clear(srv_notes *n) {
  rescue_cues_clear(&n->cues);
  rescue_buf_clear(&n->comments);
  rescue_buf_clear(&n->history);
  rescue_buf_clear(&n->cue_text);
}

/* The comments on the sample and its rows as a JSON array into b. */
static int write_comments(srv_req *r, const char *sample_id, rescue_buf *b) {
  rescue_comment *cl = NULL;
  const char *only[1] = {sample_id};
  rescue_jw w;
  int i, rc, nc = 0;
  if ((rc = rescue_comments_list(r->st, only, 1, &cl, &nc)))
    return rc;
  rescue_jw_init(&w, b);
  rescue_jw_arr(&w);
  for (i = 0; i < nc; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "row");
    rescue_jw_int(&w, cl[i].row);
    rescue_jw_key(&w, "annotator");
    rescue_jw_str_or_null(&w, cl[i].annotator);
    rescue_jw_key(&w, "text");
    rescue_jw_str(&w, cl[i].text);
    rescue_jw_key(&w, "created_at");
    rescue_jw_str(&w, cl[i].created_at);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_comments_free(&cl, nc);
  return 0;
}

int srv_notes_history(srv_req *r, const char *sample_id, rescue_buf *b) {
  rescue_status_entry *h = NULL;
  rescue_jw w;
  int rc, nh = 0;
  if ((rc = rescue_status_history(r->st, sample_id, &h, &nh)))
    return rc;
  rescue_jw_init(&w, b);
  rescue_status_history_jw(&w, h, nh);
  rescue_status_history_free(&h, nh);
  return 0;
}

/* The subtitle cues stored for the sample into *cues, and as a JSON array into b. */
static int write_cues(srv_req *r, const char *sample_id, rescue_cues *cues, rescue_buf *b) {
  rescue_jw w;
  int i, rc;
  if ((rc = rescue_sample_cues(r->st, sample_id, cues)))
    return rc;
  rescue_jw_init(&w, b);
  rescue_jw_arr(&w);
  for (i = 0; i < cues->n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "start");
    rescue_jw_double(&w, cues->v[i].start);
    rescue_jw_key(&w, "end");
    rescue_jw_double(&w, cues->v[i].end);
    rescue_jw_key(&w, "speaker");
    rescue_jw_str(&w, cues->v[i].speaker);
    rescue_jw_key(&w, "text");
    rescue_jw_str(&w, cues->v[i].text);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  return 0;
}

int srv_notes_read(srv_req *r, const char *sample_id, srv_notes *n) {
  int rc;
  memset(n, 0, sizeof *n);
  if (!(rc = write_comments(r, sample_id, &n->comments)) &&
      !(rc = srv_notes_history(r, sample_id, &n->history)) &&
      !(rc = write_cues(r, sample_id, &n->cues, &n->cue_text)) &&
      !(rescue_buf_ok(&n->comments) && rescue_buf_ok(&n->history) && rescue_buf_ok(&n->cue_text)))
    rc = rescue_seterr(rescue_store_err(r->st), RESCUE_ENOMEM, NULL);
  if (rc)
    srv_notes_clear(n);
  return rc;
}

/* Room in r->out for the whole answer before any of it is written: the length of the last
   answer made from the same kept view (what a read of it takes, give or take a changed
   row or finding), else an estimate from the view's row texts. */
static void reserve_answer(srv_req *r, srv_cached *e, const rescue_view_sample *L,
                           const rescue_lint_result *res, const srv_notes *notes) {
  const rescue_buf *text = srv_cache_row_text(e);
  size_t need = srv_cache_answer_size(e);
  int i;
  if (need) {
    need += need / 8 + 1024;
  } else {
    need = notes->comments.len + notes->history.len + notes->cue_text.len + 1024 +
           (size_t)res->n * 300;
    for (i = 0; i < L->n; i++)
      need += text[i].len + 400;
  }
  rescue_buf_grow(&r->out, need);
}

/*
** GET /api/samples/<id>[?view=<name>]: the sample as the view the route resolved shows it
** (read-only when it is not the caller's own). The view, its lint, and the comments, status
** history and cues as JSON text come from the cache (serve_cache.c), current as of the
** sample's generation; the status and the media (signed for the caller) are read for each
** request. The answer's buffer is sized once, from the last answer made from the same entry.
*/
void api_sample(srv_req *r) {
  const rescue_scheme *sc = rescue_store_scheme(r->st);
  const rescue_view_sample *L;
  const rescue_lint_result *res;
  const srv_notes *notes;
  srv_cached *e = NULL;
  srv_media media;
  char status[16] = "";
  rescue_jw w;
  int rc;

  memset(&media, 0, sizeof media);
  if ((rc = srv_cache_get(r, r->sample_id, r->view_id, status, &e))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  L = srv_cache_view(e, &res);
  notes = srv_cache_notes(e);
  if ((rc = srv_media_load(r, &media))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  reserve_answer(r, e, L, res, notes);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, r->sample_id);
  rescue_jw_key(&w, "group");
  rescue_jw_str(&w, L->group);
  rescue_jw_key(&w, "scenario");
  rescue_jw_str(&w, L->scenario);
  rescue_jw_key(&w, "status");
  rescue_jw_str(&w, status);
  rescue_jw_key(&w, "view");
  rescue_jw_str(&w, r->view_name);
  rescue_jw_key(&w, "readonly");
  rescue_jw_bool(&w, r->view_id != r->who.id);
  rescue_jw_key(&w, "n_rows");
  rescue_jw_int(&w, L->n_rows);
  rescue_jw_key(&w, "entities");
  put_entities(&w, sc, L);
  rescue_jw_key(&w, "rows");
  put_rows(r, &w, L, srv_cache_row_text(e), srv_cache_spans(e), &media);
  rescue_jw_key(&w, "segment");
  put_clip(r, &w, "segment.mp4");
  rescue_jw_key(&w, "lint");
  srv_put_findings(&w, res, 0);
  rescue_jw_key(&w, "comments");
  rescue_jw_raw(&w, notes->comments.s, notes->comments.len);
  rescue_jw_key(&w, "history");
  rescue_jw_raw(&w, notes->history.s, notes->history.len);
  rescue_jw_key(&w, "cues");
  rescue_jw_raw(&w, notes->cue_text.s, notes->cue_text.len);
  rescue_jw_end(&w);
  r->status = 200;
  if (rescue_buf_ok(&r->out))
    srv_cache_answered(e, r->out.len);
done:
  srv_cache_unread(e);
  srv_cache_release(r->srv, &e);
  srv_media_clear(&media);
}
