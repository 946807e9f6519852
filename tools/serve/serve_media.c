/*
** serve_media.c: what each row of a sample plays (corpus/FORMAT.md §7). A row plays a file
** and a span inside it: the sample's review copy (review.mp4, 1 s between keyframes) or
** its segment.mp4 with the row's own times, or else a row
** clip whose manifest span contains the row's span, at the row's offset inside the clip.
** Clips are found by their manifest's row ids and spans, never by the row's position; a
** clip whose row (its manifest's row id) is no longer in the corpus view, or has other
** times there, is stale and never offered.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_alloc.h"
#include "rescue_buf.h"
#include "rescue_json.h"
#include "serve_impl.h"

/* Spans agree when their ends differ by at most this (the manifest keeps milliseconds). */
#define SPAN_SLACK 0.0015

/* Is <assets>/<rel> a regular file? Its mtime into *mtime when not NULL. */
static int asset_file_at(srv_req *r, const char *rel, struct timespec *mtime) {
  rescue_buf p = RESCUE_BUF_INIT;
  struct stat sb;
  int ok;
  rescue_buf_printf(&p, "%s/%s", r->srv->assets_real, rel);
  ok = rescue_buf_ok(&p) && stat(p.s, &sb) == 0 && S_ISREG(sb.st_mode);
  if (ok && mtime)
    *mtime = sb.st_mtim;
  rescue_buf_clear(&p);
  return ok;
}

static int asset_file(srv_req *r, const char *rel) { return asset_file_at(r, rel, NULL); }

/*
** The sample's review copy and segment: m->review when review.mp4 is there and not older
** than segment.mp4 (`rescue clip --review-copy` writes it after the segment; an older one
** was cut for another span). 0 or RESCUE_ENOMEM.
*/
static int whole_files(srv_req *r, srv_media *m) {
  rescue_buf rel = RESCUE_BUF_INIT;
  struct timespec rt = {0}, st = {0};
  rescue_buf_printf(&rel, "%s/segment.mp4", r->sample_id);
  if (!rescue_buf_ok(&rel))
    return RESCUE_ENOMEM;
  m->segment = asset_file_at(r, rel.s, &st);
  rescue_buf_reset(&rel);
  rescue_buf_printf(&rel, "%s/review.mp4", r->sample_id);
  if (!rescue_buf_ok(&rel))
    return RESCUE_ENOMEM;
  m->review =
      asset_file_at(r, rel.s, &rt) && (!m->segment || rt.tv_sec > st.tv_sec ||
                                       (rt.tv_sec == st.tv_sec && rt.tv_nsec >= st.tv_nsec));
  rescue_buf_clear(&rel);
  return 0;
}

/*
** The file the rows play from start to end, by whole_files' rule: the review copy when it is
** not older than the segment, else segment.mp4. Its path under the assets into *path and its
** kind ("review" or "segment") into *kind: 1, or 0 when the sample has neither or memory ran
** out.
*/
int srv_media_whole_file(srv_req *r, rescue_buf *path, const char **kind) {
  srv_media m = {0};
  if (whole_files(r, &m) || (!m.review && !m.segment))
    return 0;
  rescue_buf_printf(path, "%s/%s/%s", r->srv->assets_real, r->sample_id,
                    m.review ? "review.mp4" : "segment.mp4");
  *kind = m.review ? "review" : "segment";
  return rescue_buf_ok(path);
}

static int num_member(const rescue_jnode *o, const char *key, double *out) {
  const rescue_jnode *n = rescue_jget(o, key);
  if (!n || n->type != RESCUE_JNUMBER || !isfinite(n->num))
    return 0;
  *out = n->num;
  return 1;
}

/*
** One sample's rows through a view: row ids and spans by position (rows[k] at position
** k + 1). n is 0 when the sample shows no rows there.
*/
typedef struct view_rows {
  int n;
  int64_t *id;
  double *start, *end;
} view_rows;

static void view_rows_clear(view_rows *v) {
  rescue_free(v->id);
  rescue_free(v->start);
  rescue_free(v->end);
  memset(v, 0, sizeof *v);
}

/* Read the rows of r->sample_id through view into *v. 0, or an error code. */
static int view_rows_load(srv_req *r, const rescue_view *view, view_rows *v) {
  const char *only[1] = {r->sample_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  int rc, k;
  memset(v, 0, sizeof *v);
  if ((rc = rescue_sample_iter_new(r->st, view, only, 1, &it)))
    return rc;
  if ((rc = rescue_sample_iter_next(it, &smp)) == 1 && smp->n > 0) {
    v->id = rescue_calloc((size_t)smp->n_rows + 1, sizeof *v->id);
    v->start = rescue_calloc((size_t)smp->n_rows + 1, sizeof *v->start);
    v->end = rescue_calloc((size_t)smp->n_rows + 1, sizeof *v->end);
    if (!v->id || !v->start || !v->end) {
      rc = RESCUE_ENOMEM;
    } else {
      v->n = smp->n_rows;
      for (k = 0; k < smp->n; k++) {
        const rescue_row *row = &smp->rows[k];
        if (row->position < 1 || row->position > v->n)
          continue;
        v->id[row->position - 1] = row->row_id;
        v->start[row->position - 1] = row->start_time;
        v->end[row->position - 1] = row->end_time;
      }
      rc = 0;
    }
  }
  rescue_sample_iter_free(&it);
  if (rc < 0)
    view_rows_clear(v);
  return rc < 0 ? rc : 0;
}

/* A clip the manifest describes and that still matches its row. */
typedef struct media_clip {
  int index;         /* its position: <sample>/clips/NNN.mp4 */
  int64_t row_id;    /* the row it was cut for */
  double start, end; /* that row's span, seconds of the sample */
  double clip_start; /* the second of the sample at the clip's start */
} media_clip;

void srv_media_clear(srv_media *m) {
  rescue_free(m->clips);
  rescue_free(m->row_id);
  memset(m, 0, sizeof *m);
}

/*
** Keep entry e of the manifest when it is a current video clip: the corpus view still has
** its row (row id) with its span, and its file is there. A clip whose row moved to another
** position still shows that row (`rescue clip` recuts it under its new name).
*/
static int keep_entry(srv_req *r, const rescue_jnode *e, const view_rows *corpus, media_clip *c) {
  const rescue_jnode *ix = rescue_jget(e, "index"), *id = rescue_jget(e, "row_id");
  rescue_buf rel = RESCUE_BUF_INIT;
  int ok, k;
  if (!ix || ix->type != RESCUE_JNUMBER || !ix->is_int || !id || id->type != RESCUE_JNUMBER ||
      !id->is_int || !num_member(e, "start", &c->start) || !num_member(e, "end", &c->end) ||
      !num_member(e, "clip_start", &c->clip_start))
    return 0;
  c->index = (int)strtoll(ix->s, NULL, 10);
  c->row_id = (int64_t)strtoll(id->s, NULL, 10);
  for (k = 0; k < corpus->n && corpus->id[k] != c->row_id; k++)
    ;
  if (c->index < 1 || k == corpus->n || fabs(corpus->start[k] - c->start) > SPAN_SLACK ||
      fabs(corpus->end[k] - c->end) > SPAN_SLACK)
    return 0; /* stale: its row is gone or has other times */
  rescue_buf_printf(&rel, "%s/clips/%03d.mp4", r->sample_id, c->index);
  ok = rescue_buf_ok(&rel) && asset_file(r, rel.s);
  rescue_buf_clear(&rel);
  return ok;
}

/* Read <assets>/<sample>/manifest.json's current clips into m. 0 or an error code. */
static int load_clips(srv_req *r, srv_media *m) {
  rescue_buf path = RESCUE_BUF_INIT;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_jdoc *doc = NULL;
  rescue_jerror jerr;
  rescue_view cv = {.kind = RESCUE_VIEW_CORPUS};
  view_rows corpus;
  const rescue_jnode *root, *rows, *e;
  char *text = NULL;
  size_t len = 0;
  int rc = 0, n = 0;

  memset(&corpus, 0, sizeof corpus);
  rescue_buf_printf(&path, "%s/%s/manifest.json", r->srv->assets_real, r->sample_id);
  if (!rescue_buf_ok(&path)) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  if (rescue_read_file(path.s, &text, &len, &err) || !text)
    goto end; /* no manifest: no clips */
  if (!(doc = rescue_jdoc_new())) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  root = rescue_jparse(doc, text, len, &jerr);
  rows = rescue_jget(root, "rows");
  if (!rows || rows->type != RESCUE_JARRAY)
    goto end; /* not a manifest we can read: no clips */
  for (e = rows->child; e; e = e->next)
    n++;
  if (!n || (rc = view_rows_load(r, &cv, &corpus)))
    goto end;
  if (!(m->clips = rescue_calloc((size_t)n, sizeof *m->clips))) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  for (e = rows->child; e; e = e->next)
    if (e->type == RESCUE_JOBJECT && keep_entry(r, e, &corpus, &m->clips[m->n_clips]))
      m->n_clips++;
end:
  view_rows_clear(&corpus);
  rescue_jdoc_free(&doc);
  rescue_free(text);
  rescue_buf_clear(&path);
  return rc;
}

int srv_media_load(srv_req *r, srv_media *m) {
  rescue_view av = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = r->view_id};
  view_rows mine;
  int rc;

  memset(m, 0, sizeof *m);
  if (!r->srv->assets_real)
    return 0;
  if ((rc = whole_files(r, m)))
    return rc;
  if ((rc = view_rows_load(r, &av, &mine)))
    return rc;
  m->n_rows = mine.n;
  m->row_id = mine.id;
  mine.id = NULL;
  view_rows_clear(&mine);
  return m->segment || m->review ? 0 : load_clips(r, m);
}

/*
** The clip row i (span [a, b]) plays: the one cut for this row (same row id and span),
** else the tightest current clip whose span contains [a, b]; NULL when none does.
*/
static const media_clip *pick_clip(const srv_media *m, int i, double a, double b) {
  const media_clip *best = NULL;
  int k;
  for (k = 0; k < m->n_clips; k++) {
    const media_clip *c = &m->clips[k];
    if (c->start > a + SPAN_SLACK || c->end < b - SPAN_SLACK)
      continue;
    if (i < m->n_rows && c->row_id == m->row_id[i] && fabs(c->start - a) <= SPAN_SLACK &&
        fabs(c->end - b) <= SPAN_SLACK)
      return c;
    if (!best || c->end - c->start < best->end - best->start)
      best = c;
  }
  return best;
}

void srv_put_row_media(srv_req *r, rescue_jw *w, const srv_media *m, int i, double a, double b) {
  const media_clip *c = NULL;
  rescue_buf rel = RESCUE_BUF_INIT;
  char *plain;
  double off = 0;
  const char *kind = m->review ? "review" : "segment";
  if (!(a >= 0) || !(b >= a) || (!m->review && !m->segment && !(c = pick_clip(m, i, a, b)))) {
    rescue_jw_null(w);
    return;
  }
  if (c) {
    rescue_buf_printf(&rel, "%s/clips/%03d.mp4", r->sample_id, c->index);
    off = c->clip_start;
    kind = "clip";
  } else {
    rescue_buf_printf(&rel, "%s/%s.mp4", r->sample_id, kind);
  }
  plain = rescue_buf_ok(&rel) ? rescue_strdup(rel.s) : NULL;
  if (plain) /* the media URL's signature, bound to the session */
    srv_media_sign(r, plain, &rel);
  rescue_free(plain);
  if (!plain || !rescue_buf_ok(&rel)) {
    rescue_jw_null(w);
    rescue_buf_clear(&rel);
    return;
  }
  rescue_jw_obj(w);
  rescue_jw_key(w, "path");
  rescue_jw_str(w, rel.s);
  rescue_jw_key(w, "kind");
  rescue_jw_str(w, kind);
  rescue_jw_key(w, "start");
  rescue_jw_double(w, floor((a - off) * 1000 + 0.5) / 1000);
  rescue_jw_key(w, "end");
  rescue_jw_double(w, floor((b - off) * 1000 + 0.5) / 1000);
  rescue_jw_key(w, "offset");
  rescue_jw_double(w, off);
  if (c) {
    rescue_jw_key(w, "clip_row_id");
    rescue_jw_int(w, c->row_id);
  }
  rescue_jw_end(w);
  rescue_buf_clear(&rel);
}
