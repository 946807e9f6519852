/*
** serve_api.c: the review server's JSON API: the scheme (which drives the form), the
** caller's samples, one sample as a view shows it (rows with versions, lint marks,
** subtitle cues, clips), saving a row (conflict-checked and linted), sample status,
** segmentation (split, merge, times) and the leads' dashboard.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_agree.h"
#include "rescue_alloc.h"
#include "rescue_lint.h"
#include "rescue_stats.h"
#include "rescue_subtitles.h"
#include "rescue_workflow.h"
#include "serve_int.h"

/* ---- the scheme ---- */

static void put_field(rescue_jw *w, const rescue_field *f) {
  static const char *const types[] = {"number",   "int",   "text", "entity",
                                      "entities", "label", "ints", "list"};
  int i;
  rescue_jw_obj(w);
  rescue_jw_key(w, "key");
  rescue_jw_str(w, f->key);
  rescue_jw_key(w, "type");
  rescue_jw_str(w, types[f->type]);
  if (f->labels) {
    rescue_jw_key(w, "labels");
    rescue_jw_str(w, f->labels);
  }
  if (f->has_min) {
    rescue_jw_key(w, "min");
    rescue_jw_double(w, f->min);
  }
  if (f->has_max) {
    rescue_jw_key(w, "max");
    rescue_jw_double(w, f->max);
  }
  if (f->rows) {
    rescue_jw_key(w, "rows");
    rescue_jw_str(w, f->rows);
  }
  rescue_jw_key(w, "required");
  rescue_jw_bool(w, f->required);
  rescue_jw_key(w, "description");
  rescue_jw_str(w, f->description ? f->description : "");
  if (f->n_children) {
    rescue_jw_key(w, "fields");
    rescue_jw_arr(w);
    for (i = 0; i < f->n_children; i++)
      put_field(w, &f->children[i]);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void api_scheme(srv_req *r) {
  const rescue_scheme *sc = rescue_store_scheme(r->st);
  rescue_jw w;
  int i, j;
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "therapist");
  rescue_jw_str(&w, sc->therapist);
  rescue_jw_key(&w, "groups");
  rescue_jw_obj(&w);
  for (i = 0; i < sc->n_groups; i++) {
    rescue_jw_key(&w, sc->group_scenarios[i]);
    rescue_jw_str(&w, sc->group_labels[i]);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "labelsets");
  rescue_jw_arr(&w);
  for (i = 0; i < sc->n_labelsets; i++) {
    const rescue_labelset *ls = &sc->labelsets[i];
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "name");
    rescue_jw_str(&w, ls->name);
    rescue_jw_key(&w, "scenario");
    rescue_jw_str_or_null(&w, ls->scenario);
    rescue_jw_key(&w, "labels");
    rescue_jw_arr(&w);
    for (j = 0; j < ls->n; j++) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "name");
      rescue_jw_str(&w, ls->labels[j]);
      rescue_jw_key(&w, "description");
      rescue_jw_str(&w, ls->descriptions[j] ? ls->descriptions[j] : "");
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "fields");
  rescue_jw_arr(&w);
  for (i = 0; i < sc->n_fields; i++)
    put_field(&w, &sc->fields[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  r->status = 200;
}

/* ---- the caller's samples ---- */

static int is_lead(const srv_req *r) { return strcmp(r->who.role, "lead") == 0; }

static int any_assignment(srv_req *r, int *any) {
  sqlite3_stmt *q = rescue_store_stmt(r->st, "serve_any_assignment");
  if (!q)
    return rescue_store_err(r->st)->code;
  if (sqlite3_step(q) != SQLITE_ROW) {
    sqlite3_reset(q);
    return rescue_store_sqlerr(r->st, "reading assignments");
  }
  *any = sqlite3_column_int(q, 0);
  sqlite3_reset(q);
  return 0;
}

static const char *family_label(const rescue_scheme *sc) {
  const char *l = rescue_scheme_group_label(sc, "family");
  return l ? l : "Family";
}

/* The scenario rule on a sample id alone (the entity part is done in SQL). */
static int family_id(const char *id) {
  size_t i, n = strlen(id);
  char *low = rescue_malloc(n + 1);
  int fam;
  if (!low)
    return 0;
  for (i = 0; i <= n; i++)
    low[i] = (char)(id[i] >= 'A' && id[i] <= 'Z' ? id[i] + 32 : id[i]);
  fam = strncmp(low, "family_therapy/", 15) == 0 || strstr(low, "/family_therapy/") != NULL;
  rescue_free(low);
  return fam;
}

/*
** GET /api/samples: annotators get the samples assigned to them (every sample while no
** assignment exists), leads every sample. Each with status, scenario, group, rows, the
** rows the caller has saved, and who it is assigned to.
*/
void api_samples(srv_req *r) {
  sqlite3_stmt *q;
  rescue_jw w;
  int rc, any = 0, all;
  if ((rc = any_assignment(r, &any))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  all = is_lead(r) || !any;
  if (!(q = rescue_store_stmt(r->st, "serve_samples"))) {
    srv_fail(r, rescue_store_err(r->st)->code, rescue_store_errmsg(r->st));
    return;
  }
  rescue_bind_int(q, ":annotator_id", r->who.id);
  rescue_bind_text(q, ":family", family_label(rescue_store_scheme(r->st)), -1);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "annotator");
  rescue_jw_str(&w, r->who.name);
  rescue_jw_key(&w, "assignments");
  rescue_jw_bool(&w, any);
  rescue_jw_key(&w, "samples");
  rescue_jw_arr(&w);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *id = (const char *)sqlite3_column_text(q, 0);
    int assigned = sqlite3_column_int(q, 6);
    if (!all && !assigned)
      continue;
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, id);
    rescue_jw_key(&w, "group");
    rescue_jw_str(&w, (const char *)sqlite3_column_text(q, 1));
    rescue_jw_key(&w, "scenario");
    rescue_jw_str(&w, family_id(id) || sqlite3_column_int(q, 8) ? "family" : "couple");
    rescue_jw_key(&w, "status");
    rescue_jw_str(&w, (const char *)sqlite3_column_text(q, 2));
    rescue_jw_key(&w, "status_reason");
    if (sqlite3_column_type(q, 3) == SQLITE_NULL)
      rescue_jw_null(&w);
    else
      rescue_jw_str(&w, (const char *)sqlite3_column_text(q, 3));
    rescue_jw_key(&w, "rows");
    rescue_jw_int(&w, sqlite3_column_int(q, 4));
    rescue_jw_key(&w, "mine");
    rescue_jw_int(&w, sqlite3_column_int(q, 5));
    rescue_jw_key(&w, "assigned");
    rescue_jw_bool(&w, assigned);
    rescue_jw_key(&w, "assignees");
    rescue_jw_str(&w, sqlite3_column_type(q, 7) == SQLITE_NULL
                          ? ""
                          : (const char *)sqlite3_column_text(q, 7));
    rescue_jw_end(&w);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_DONE) {
    srv_fail(r, rescue_store_sqlerr(r->st, "listing samples"), rescue_store_errmsg(r->st));
    return;
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  r->status = 200;
}

/* ---- one sample through a view ---- */

/* A sample as one annotator's view shows it, parsed. */
typedef struct loaded {
  rescue_buf json; /* the sample in release form */
  rescue_jdoc *doc;
  const rescue_jnode *sample;
  const rescue_jnode **rows; /* n */
  int64_t *versions;         /* n */
  int *mine;                 /* n: the version shown is the annotator's own, of this row */
  int *origin;               /* n: RESCUE_ROW_OWN, _CARRIED, _SPLIT, _MERGED */
  int *seg_changed;          /* n: someone else's resegmentation changed the row */
  int n, n_rows;
  char status[16];
  char scenario[16];
  char *group;
} loaded;

static void loaded_free(loaded *L) {
  rescue_buf_clear(&L->json);
  rescue_jdoc_free(&L->doc);
  rescue_free(L->rows);
  rescue_free(L->versions);
  rescue_free(L->mine);
  rescue_free(L->origin);
  rescue_free(L->seg_changed);
  rescue_free(L->group);
  memset(L, 0, sizeof *L);
}

/* Load sample_id through annotator_id's view; 0 or a code with the message on the store. */
static int load_view(rescue_store *st, const char *sample_id, int64_t annotator_id, loaded *L) {
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = annotator_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  const char *only[1] = {sample_id};
  const rescue_jnode *rows, *e;
  rescue_jerror je;
  int rc, i;
  memset(L, 0, sizeof *L);
  if ((rc = rescue_sample_iter_new(st, &v, only, 1, &it)))
    return rc;
  rc = rescue_sample_iter_next(it, &s);
  if (rc <= 0) {
    rescue_sample_iter_free(&it);
    return rc ? rc
              : rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no sample '%s'", sample_id);
  }
  rescue_sample_write_json(rescue_store_scheme(st), s, &L->json);
  snprintf(L->status, sizeof L->status, "%s", s->status);
  snprintf(L->scenario, sizeof L->scenario, "%s",
           rescue_sample_scenario(rescue_store_scheme(st), s));
  L->group = rescue_strdup(s->group ? s->group : "");
  L->n = s->n;
  L->n_rows = s->n_rows;
  L->rows = rescue_calloc((size_t)s->n + 1, sizeof *L->rows);
  L->versions = rescue_calloc((size_t)s->n + 1, sizeof *L->versions);
  L->mine = rescue_calloc((size_t)s->n + 1, sizeof *L->mine);
  L->origin = rescue_calloc((size_t)s->n + 1, sizeof *L->origin);
  L->seg_changed = rescue_calloc((size_t)s->n + 1, sizeof *L->seg_changed);
  L->doc = rescue_jdoc_new();
  if (!L->rows || !L->versions || !L->mine || !L->origin || !L->seg_changed || !L->doc ||
      !L->group || !rescue_buf_ok(&L->json)) {
    rescue_sample_iter_free(&it);
    loaded_free(L);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  for (i = 0; i < s->n; i++) {
    L->versions[i] = s->rows[i].version_id;
    L->mine[i] = s->rows[i].annotator_id == annotator_id && s->rows[i].origin == RESCUE_ROW_OWN;
    L->origin[i] = s->rows[i].origin;
    L->seg_changed[i] = s->rows[i].seg_changed;
  }
  rescue_sample_iter_free(&it);
  L->sample = rescue_jparse(L->doc, L->json.s, L->json.len, &je);
  if (!L->sample) {
    loaded_free(L);
    return rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL, "stored sample: %s", je.msg);
  }
  rows = rescue_jget(L->sample, "rows");
  for (i = 0, e = rows && rows->type == RESCUE_JARRAY ? rows->child : NULL; e && i < L->n;
       e = e->next, i++)
    L->rows[i] = e;
  L->n = i;
  return 0;
}

/*
** Lint the loaded sample. position 0: the whole sample, with its subtitle cues (what the
** sample view shows). position > 0: a save of `row` there; only that row and the one
** before it (for the time-order rules) are checked, which is what the save needs and a
** small fraction of the work on a long sample.
*/
static int lint_loaded(rescue_store *st, const char *sample_id, const loaded *L, int position,
                       const rescue_jnode *row, rescue_lint_result *res) {
  const rescue_jnode *rows[2];
  rescue_cues cues;
  rescue_lint_cue *lc = NULL;
  rescue_lint_media media;
  int pos[2], i, rc;
  if (position > 0) {
    int n = 0;
    if (position > 1) {
      rows[n] = L->rows[position - 2];
      pos[n++] = position - 1;
    }
    rows[n] = row;
    pos[n++] = position;
    return rescue_lint_sample(rescue_store_scheme(st), sample_id, L->sample, rows, pos, n,
                              L->n_rows, NULL, res);
  }
  memset(&cues, 0, sizeof cues);
  media.duration = NAN;
  media.n_cues = 0;
  media.cues = NULL;
  if (rescue_sample_cues(st, sample_id, &cues) == 0 && cues.n > 0) {
    lc = rescue_calloc((size_t)cues.n, sizeof *lc);
    if (lc) {
      for (i = 0; i < cues.n; i++) {
        lc[i].seq = i + 1;
        lc[i].start = cues.v[i].start;
        lc[i].end = cues.v[i].end;
        lc[i].text = cues.v[i].text;
      }
      media.n_cues = cues.n;
      media.cues = lc;
    }
  }
  rc = rescue_lint_sample(rescue_store_scheme(st), sample_id, L->sample, L->rows, NULL, L->n,
                          L->n_rows, &media, res);
  rescue_free(lc);
  rescue_cues_clear(&cues);
  return rc;
}

static void put_findings(rescue_jw *w, const rescue_lint_result *res, int only_row) {
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

/* "/clips/<rel>" when <assets>/<rel> is a regular file. */
static int clip_exists(srv_req *r, const char *rel) {
  struct stat sb;
  rescue_buf p = RESCUE_BUF_INIT;
  int ok;
  if (!r->srv->assets_real)
    return 0;
  rescue_buf_printf(&p, "%s/%s", r->srv->assets_real, rel);
  ok = rescue_buf_ok(&p) && stat(p.s, &sb) == 0 && S_ISREG(sb.st_mode);
  rescue_buf_clear(&p);
  return ok;
}

/* Resolve the view a request asks for (?view=<name>): the caller's own unless a lead asks. */
static int view_of(srv_req *r, int64_t *id, const char **name) {
  const char *v = srv_arg(r, "view");
  *id = r->who.id;
  *name = r->who.name;
  if (!v || !*v || strcmp(v, r->who.name) == 0)
    return 1;
  if (!is_lead(r)) {
    srv_error(r, 403, "only leads may open another annotator's view");
    return 0;
  }
  if (rescue_annotator_id(r->st, v, NULL, 0, id)) {
    srv_error(r, 404, "no annotator named '%s'", v);
    return 0;
  }
  *name = v;
  return 1;
}

void api_sample(srv_req *r, const char *sample_id) {
  loaded L;
  rescue_lint_result res;
  rescue_cues cues;
  rescue_buf rel = RESCUE_BUF_INIT;
  const rescue_jnode *parts;
  const rescue_scheme *sc = rescue_store_scheme(r->st);
  const char *vname;
  int64_t vid;
  rescue_jw w;
  int rc, i;

  if (!view_of(r, &vid, &vname))
    return;
  if ((rc = load_view(r->st, sample_id, vid, &L))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  memset(&res, 0, sizeof res);
  memset(&cues, 0, sizeof cues);
  if ((rc = lint_loaded(r->st, sample_id, &L, 0, NULL, &res))) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  rescue_sample_cues(r->st, sample_id, &cues);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, sample_id);
  rescue_jw_key(&w, "group");
  rescue_jw_str(&w, L.group);
  rescue_jw_key(&w, "scenario");
  rescue_jw_str(&w, L.scenario);
  rescue_jw_key(&w, "status");
  rescue_jw_str(&w, L.status);
  rescue_jw_key(&w, "view");
  rescue_jw_str(&w, vname);
  rescue_jw_key(&w, "readonly");
  rescue_jw_bool(&w, vid != r->who.id);
  rescue_jw_key(&w, "n_rows");
  rescue_jw_int(&w, L.n_rows);
  /* the sample's entity set: participants, the practitioner, the scenario's group label */
  rescue_jw_key(&w, "entities");
  rescue_jw_arr(&w);
  parts = rescue_jget(L.sample, "participants");
  if (parts && parts->type == RESCUE_JARRAY) {
    const rescue_jnode *e;
    for (e = parts->child; e; e = e->next)
      if (e->type == RESCUE_JSTRING)
        rescue_jw_strn(&w, e->s, e->len);
  }
  rescue_jw_str(&w, sc->therapist);
  if (rescue_scheme_group_label(sc, L.scenario))
    rescue_jw_str(&w, rescue_scheme_group_label(sc, L.scenario));
  rescue_jw_end(&w);
  rescue_jw_key(&w, "rows");
  rescue_jw_arr(&w);
  for (i = 0; i < L.n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "index");
    rescue_jw_int(&w, i + 1);
    rescue_jw_key(&w, "version");
    rescue_jw_int(&w, L.versions[i]);
    rescue_jw_key(&w, "mine");
    rescue_jw_bool(&w, L.mine[i]);
    rescue_jw_key(&w, "origin");
    rescue_jw_str(&w, L.origin[i] == RESCUE_ROW_CARRIED  ? "carried"
                      : L.origin[i] == RESCUE_ROW_SPLIT  ? "split"
                      : L.origin[i] == RESCUE_ROW_MERGED ? "merged"
                                                         : "own");
    rescue_jw_key(&w, "seg_changed");
    rescue_jw_bool(&w, L.seg_changed[i]);
    rescue_jw_key(&w, "row");
    rescue_jw_node(&w, L.rows[i]);
    rescue_jw_key(&w, "clip");
    rescue_buf_reset(&rel);
    rescue_buf_printf(&rel, "%s/clips/%03d.mp4", sample_id, i + 1);
    if (clip_exists(r, rel.s ? rel.s : ""))
      rescue_jw_str(&w, rel.s);
    else
      rescue_jw_null(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "segment");
  rescue_buf_reset(&rel);
  rescue_buf_printf(&rel, "%s/segment.mp4", sample_id);
  if (clip_exists(r, rel.s ? rel.s : ""))
    rescue_jw_str(&w, rel.s);
  else
    rescue_jw_null(&w);
  rescue_jw_key(&w, "lint");
  put_findings(&w, &res, 0);
  rescue_jw_key(&w, "comments");
  {
    rescue_comment *cl = NULL;
    int nc = 0;
    const char *only[1] = {sample_id};
    rescue_jw_arr(&w);
    if (rescue_comments_list(r->st, only, 1, &cl, &nc) == 0) {
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
      rescue_comments_free(&cl, nc);
    }
    rescue_jw_end(&w);
  }
  rescue_jw_key(&w, "history");
  {
    rescue_status_entry *h = NULL;
    int nh = 0;
    if (rescue_status_history(r->st, sample_id, &h, &nh) == 0) {
      rescue_status_history_jw(&w, h, nh);
      rescue_status_history_free(&h, nh);
    } else {
      rescue_status_history_jw(&w, NULL, 0);
    }
  }
  rescue_jw_key(&w, "cues");
  rescue_jw_arr(&w);
  for (i = 0; i < cues.n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "start");
    rescue_jw_double(&w, cues.v[i].start);
    rescue_jw_key(&w, "end");
    rescue_jw_double(&w, cues.v[i].end);
    rescue_jw_key(&w, "speaker");
    rescue_jw_str(&w, cues.v[i].speaker);
    rescue_jw_key(&w, "text");
    rescue_jw_str(&w, cues.v[i].text);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  r->status = 200;
done:
  rescue_buf_clear(&rel);
  rescue_cues_clear(&cues);
  rescue_lint_result_clear(&res);
  loaded_free(&L);
}

/* ---- saving ---- */

/* 409 body: the message, the current version and its row. */
static void conflict(srv_req *r, const char *sample_id, int position, int64_t cur) {
  rescue_buf content = RESCUE_BUF_INIT;
  int64_t v = cur;
  char msg[1024];
  rescue_jw w;
  snprintf(msg, sizeof msg, "%s", rescue_store_errmsg(r->st));
  rescue_row_current(r->st, sample_id, position, r->who.id, &v, &content);
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

/* Move a sample that nobody has started into review (after its first save). */
static void start_review(srv_req *r, const char *sample_id, const char *status) {
  if (strcmp(status, "new") == 0)
    rescue_sample_set_status(r->st, sample_id, "in_review", NULL, r->who.id);
}

/*
** Write n as JSON, keeping the spelling of numbers the old version had where the value is
** the same (a browser sends 0.0 back as 0), and writing a changed number as a real when
** the old one was a real (end_time 3 becomes 3.0): a save through the page changes only
** what the annotator changed.
*/
static void write_like(rescue_buf *b, const rescue_jnode *n, const rescue_jnode *old) {
  const rescue_jnode *c, *o;
  int first = 1, i;
  switch (n->type) {
  case RESCUE_JNUMBER:
    if (old && old->type == RESCUE_JNUMBER && old->num == n->num)
      rescue_buf_putn(b, old->s, old->len);
    else if (old && old->type == RESCUE_JNUMBER && !old->is_int && n->is_int)
      rescue_jwrite_double(b, n->num);
    else
      rescue_jwrite(b, n);
    return;
  case RESCUE_JOBJECT:
    rescue_buf_putc(b, '{');
    for (c = n->child; c; c = c->next) {
      if (!first)
        rescue_buf_puts(b, ", ");
      first = 0;
      rescue_jwrite_string(b, c->key, c->keylen);
      rescue_buf_puts(b, ": ");
      write_like(b, c, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, c->key) : NULL);
    }
    rescue_buf_putc(b, '}');
    return;
  case RESCUE_JARRAY:
    rescue_buf_putc(b, '[');
    o = old && old->type == RESCUE_JARRAY ? old->child : NULL;
    for (c = n->child, i = 0; c; c = c->next, i++) {
      if (!first)
        rescue_buf_puts(b, ", ");
      first = 0;
      write_like(b, c, o);
      if (o)
        o = o->next;
    }
    rescue_buf_putc(b, ']');
    return;
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JSTRING: rescue_jwrite(b, n); return;
  }
}

/*
** The row to store: write_like, with a row_index member set to the row's position (a
** position is not an annotation; a row that came from a split elsewhere carries its
** parent's number, which would otherwise block every save with R16).
*/
static void write_saved(rescue_buf *b, const rescue_jnode *row, const rescue_jnode *old,
                        int position) {
  const rescue_jnode *c;
  int first = 1;
  rescue_buf_putc(b, '{');
  for (c = row->child; c; c = c->next) {
    if (!first)
      rescue_buf_puts(b, ", ");
    first = 0;
    rescue_jwrite_string(b, c->key, c->keylen);
    rescue_buf_puts(b, ": ");
    if (strcmp(c->key, "row_index") == 0 && c->type == RESCUE_JNUMBER)
      rescue_buf_printf(b, "%d", position);
    else
      write_like(b, c, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, c->key) : NULL);
  }
  rescue_buf_putc(b, '}');
}

/* Save one row; r->out gets 200/400/409 bodies. Caller holds nothing. */
static void save_row(srv_req *r, const char *sample_id, int position, int64_t base,
                     const rescue_jnode *row) {
  loaded L;
  rescue_lint_result res;
  rescue_buf text = RESCUE_BUF_INIT;
  rescue_jdoc *fixed = NULL;
  rescue_jerror je;
  int64_t version = 0;
  int rc, unchanged = 0, errors = 0, i;
  rescue_jw w;

  memset(&res, 0, sizeof res);
  if ((rc = load_view(r->st, sample_id, r->who.id, &L))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return;
  }
  if (position > L.n) {
    srv_error(r, 404, "sample '%s' has no row %d", sample_id, position);
    goto done;
  }
  write_saved(&text, row, L.rows[position - 1], position);
  if (!rescue_buf_ok(&text) || !(fixed = rescue_jdoc_new()) ||
      !(row = rescue_jparse(fixed, text.s, text.len, &je))) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  if ((rc = lint_loaded(r->st, sample_id, &L, position, row, &res))) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  for (i = 0; i < res.n; i++)
    errors += res.findings[i].row == position && res.findings[i].severity == RESCUE_LINT_ERROR;
  if (errors) {
    rescue_jw_init(&w, &r->out);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "error");
    rescue_jw_str(&w, "the row breaks the annotation guideline: nothing was saved");
    rescue_jw_key(&w, "findings");
    put_findings(&w, &res, position);
    rescue_jw_end(&w);
    r->status = 400;
    goto done;
  }
  pthread_mutex_lock(&r->srv->write_mu);
  rc = rescue_row_save(r->st, sample_id, position, r->who.id, base, text.s, text.len, &version,
                       &unchanged);
  if (!rc)
    start_review(r, sample_id, L.status);
  pthread_mutex_unlock(&r->srv->write_mu);
  if (rc == RESCUE_ECONFLICT) {
    conflict(r, sample_id, position, version);
    goto done;
  }
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "version");
  rescue_jw_int(&w, version);
  rescue_jw_key(&w, "unchanged");
  rescue_jw_bool(&w, unchanged);
  rescue_jw_key(&w, "warnings");
  put_findings(&w, &res, position);
  rescue_jw_end(&w);
  r->status = 200;
done:
  rescue_jdoc_free(&fixed);
  rescue_buf_clear(&text);
  rescue_lint_result_clear(&res);
  loaded_free(&L);
}

/* An integer member; 0 after setting 400 when missing or of the wrong type. */
static int int_member(srv_req *r, const rescue_jnode *obj, const char *key, int64_t *out) {
  const rescue_jnode *n = rescue_jget(obj, key);
  if (!n || n->type != RESCUE_JNUMBER || !n->is_int) {
    srv_error(r, 400, "'%s' must be an integer", key);
    return 0;
  }
  *out = strtoll(n->s, NULL, 10);
  return 1;
}

static int num_member(srv_req *r, const rescue_jnode *obj, const char *key, double *out) {
  const rescue_jnode *n = rescue_jget(obj, key);
  if (!n || n->type != RESCUE_JNUMBER || !isfinite(n->num)) {
    srv_error(r, 400, "'%s' must be a number", key);
    return 0;
  }
  *out = n->num;
  return 1;
}

/* PUT /api/samples/<id>/rows/<n> {"base_version": V, "row": {...}} */
void api_save_row(srv_req *r, const char *sample_id, int position) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *row;
  int64_t base;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (srv_arg(r, "view") && strcmp(srv_arg(r, "view"), r->who.name) != 0) {
    srv_error(r, 403, "only your own view can be written; '%s' is another annotator's",
              srv_arg(r, "view"));
    goto done;
  }
  if (!(root = srv_body_json(r, doc)) || !int_member(r, root, "base_version", &base))
    goto done;
  row = rescue_jget(root, "row");
  if (!row || row->type != RESCUE_JOBJECT) {
    srv_error(r, 400, "'row' must be a JSON object");
    goto done;
  }
  if (rescue_sample_ref(r->st, sample_id, &(int64_t){0})) {
    srv_error(r, 404, "no sample '%s'", sample_id);
    goto done;
  }
  if (!srv_may_write(r, sample_id))
    goto done;
  save_row(r, sample_id, position, base, row);
done:
  rescue_jdoc_free(&doc);
}

/* POST /api/samples/<id>/status {"status": "...", "reason": "..."} */
void api_status(srv_req *r, const char *sample_id) {
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
  if (rescue_sample_ref(r->st, sample_id, &(int64_t){0})) {
    srv_error(r, 404, "no sample '%s'", sample_id);
    goto done;
  }
  if (!srv_may_write(r, sample_id))
    goto done;
  pthread_mutex_lock(&r->srv->write_mu);
  rc = rescue_sample_set_status(
      r->st, sample_id, st->s,
      reason && reason->type == RESCUE_JSTRING && reason->len ? reason->s : NULL, r->who.id);
  pthread_mutex_unlock(&r->srv->write_mu);
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

/* ---- segmentation ---- */

/*
** Write `row` with the members named in keys[] replaced by the raw JSON vals[] (members
** that are absent are left absent, except row_index replacements, which are skipped).
*/
static void write_row_with(rescue_buf *b, const rescue_jnode *row, const char *const *keys,
                           const char *const *vals, int n) {
  rescue_jw w;
  const rescue_jnode *m;
  int i;
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  for (m = row->child; m; m = m->next) {
    for (i = 0; i < n; i++)
      if (strcmp(m->key, keys[i]) == 0)
        break;
    rescue_jw_key(&w, m->key);
    if (i < n)
      rescue_jw_raw(&w, vals[i], strlen(vals[i]));
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
}

static void fmt_time(double t, char out[32]) {
  rescue_format_double(round(t * 1000.0) / 1000.0, out);
}

/* The text of a string member, "" otherwise. */
static const char *str_of(const rescue_jnode *row, const char *key, size_t *len) {
  const rescue_jnode *n = rescue_jget(row, key);
  if (n && n->type == RESCUE_JSTRING) {
    *len = n->len;
    return n->s;
  }
  *len = 0;
  return "";
}

/*
** POST /api/samples/<id>/segmentation:
**   {"op": "split", "row": n, "at": t, "base_version": V}   row n becomes [start, t) and [t, end)
**   {"op": "merge", "row": n, "base_version": V, "next_version": V2}   rows n and n+1 become one
**   {"op": "times", "row": n, "start": s, "end": e, "base_version": V}
** Split and merge record a new row set (the sample is re-segmented) while the sample is
** new or in review; times saves a new version of the row.
*/
void api_segmentation(srv_req *r, const char *sample_id) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *opn;
  rescue_buf *texts = NULL;
  rescue_sample_input in;
  loaded L;
  int64_t base, next_base = 0, pos64, version = 0;
  int rc, i, n_out = 0, locked = 0, split, merge;
  char op[16] = "";

  memset(&in, 0, sizeof in);
  memset(&L, 0, sizeof L);
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  opn = rescue_jget(root, "op");
  if (!opn || opn->type != RESCUE_JSTRING ||
      (strcmp(opn->s, "split") && strcmp(opn->s, "merge") && strcmp(opn->s, "times"))) {
    srv_error(r, 400, "'op' must be \"split\", \"merge\" or \"times\"");
    goto done;
  }
  snprintf(op, sizeof op, "%s", opn->s);
  split = strcmp(op, "split") == 0;
  merge = strcmp(op, "merge") == 0;
  if (!int_member(r, root, "row", &pos64) || !int_member(r, root, "base_version", &base))
    goto done;
  if (merge && !int_member(r, root, "next_version", &next_base))
    goto done;
  if (rescue_sample_ref(r->st, sample_id, &(int64_t){0})) {
    srv_error(r, 404, "no sample '%s'", sample_id);
    goto done;
  }
  if (!srv_may_write(r, sample_id))
    goto done;

  pthread_mutex_lock(&r->srv->write_mu);
  locked = 1;
  if ((rc = load_view(r->st, sample_id, r->who.id, &L))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  if (pos64 < 1 || pos64 > L.n || (merge && pos64 >= L.n)) {
    srv_error(r, 400, merge ? "row %lld has no next row to merge with" : "no row %lld",
              (long long)pos64);
    goto done;
  }
  if (L.versions[pos64 - 1] != base || (merge && L.versions[pos64] != next_base)) {
    srv_error(r, 409, "row %lld changed since it was read: reload the sample", (long long)pos64);
    goto done;
  }
  if ((split || merge) && strcmp(L.status, "new") && strcmp(L.status, "in_review")) {
    srv_error(r, 409, "the sample is %s: segmentation is open only while it is new or in review",
              L.status);
    goto done;
  }
  texts = rescue_calloc((size_t)L.n + 1, sizeof *texts);
  if (!texts) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  {
    const rescue_jnode *row = L.rows[pos64 - 1];
    const rescue_jnode *st_n = rescue_jget(row, "start_time"), *en_n = rescue_jget(row, "end_time");
    double s0 = st_n && st_n->type == RESCUE_JNUMBER ? st_n->num : 0;
    double e0 = en_n && en_n->type == RESCUE_JNUMBER ? en_n->num : 0;
    char a[32], b[32], idx[24];
    if (strcmp(op, "times") == 0) {
      double s, e;
      const char *keys[] = {"start_time", "end_time"};
      const char *vals[] = {a, b};
      if (!num_member(r, root, "start", &s) || !num_member(r, root, "end", &e))
        goto done;
      if (s < 0 || e <= s) {
        srv_error(r, 400, "the row must start at 0 or later and end after it starts");
        goto done;
      }
      fmt_time(s, a);
      fmt_time(e, b);
      write_row_with(&texts[0], row, keys, vals, 2);
      pthread_mutex_unlock(&r->srv->write_mu);
      locked = 0;
      if (!rescue_buf_ok(&texts[0])) {
        srv_error(r, 500, "out of memory");
        goto done;
      }
      rc = rescue_row_save(r->st, sample_id, (int)pos64, r->who.id, base, texts[0].s, texts[0].len,
                           &version, NULL);
      if (rc == RESCUE_ECONFLICT)
        conflict(r, sample_id, (int)pos64, version);
      else if (rc)
        srv_fail(r, rc, rescue_store_errmsg(r->st));
      else {
        rescue_buf_printf(&r->out, "{\"version\": %lld}", (long long)version);
        r->status = 200;
      }
      goto done;
    }
    for (i = 0; i < L.n; i++) {
      const rescue_jnode *ri = L.rows[i];
      const char *keys[3] = {"row_index", "start_time", "end_time"};
      const char *vals[3] = {idx, a, b};
      snprintf(idx, sizeof idx, "%d", n_out + 1);
      if (split && i + 1 == pos64) {
        double at;
        if (!num_member(r, root, "at", &at))
          goto done;
        at = round(at * 1000.0) / 1000.0;
        if (!(at > s0 && at < e0)) {
          srv_error(r, 400, "the split time %.3f is not inside row %lld (%.3f to %.3f)", at,
                    (long long)pos64, s0, e0);
          goto done;
        }
        {
          const char *k1[2] = {"row_index", "end_time"}, *k2[2] = {"row_index", "start_time"};
          const char *v1[2] = {idx, b}, *v2[2] = {idx, a};
          fmt_time(at, a);
          fmt_time(at, b);
          write_row_with(&texts[n_out++], ri, k1, v1, 2); /* ends at the split */
          snprintf(idx, sizeof idx, "%d", n_out + 1);
          write_row_with(&texts[n_out++], ri, k2, v2, 2); /* starts at the split */
        }
      } else if (merge && i + 1 == pos64) {
        const rescue_jnode *nx = L.rows[i + 1], *en = rescue_jget(nx, "end_time"),
                           *sn = rescue_jget(ri, "start_time");
        rescue_buf t = RESCUE_BUF_INIT, joined = RESCUE_BUF_INIT;
        const char *mkeys[4] = {"row_index", "start_time", "end_time", "dialogue_cleaned"};
        const char *mvals[4];
        size_t l1, l2;
        const char *d1 = str_of(ri, "dialogue_cleaned", &l1),
                   *d2 = str_of(nx, "dialogue_cleaned", &l2);
        rescue_buf sa = RESCUE_BUF_INIT;
        if (sn)
          rescue_jwrite(&sa, sn);
        if (en)
          rescue_jwrite(&t, en);
        rescue_buf_putn(&joined, d1, l1);
        if (l1 && l2)
          rescue_buf_putc(&joined, ' ');
        rescue_buf_putn(&joined, d2, l2);
        {
          rescue_buf q = RESCUE_BUF_INIT;
          rescue_jwrite_string(&q, joined.s ? joined.s : "", joined.len);
          mvals[0] = idx;
          mvals[1] = sa.s ? sa.s : "0";
          mvals[2] = t.s ? t.s : "0";
          mvals[3] = q.s ? q.s : "\"\"";
          write_row_with(&texts[n_out++], ri, mkeys, mvals, 4);
          rescue_buf_clear(&q);
        }
        rescue_buf_clear(&sa);
        rescue_buf_clear(&t);
        rescue_buf_clear(&joined);
        i++; /* the next row is merged in */
      } else {
        write_row_with(&texts[n_out++], ri, keys, vals, 1);
      }
    }
  }
  /* the new row set, stored as this annotator's segmentation */
  in.sample_id = sample_id;
  in.n_rows = n_out;
  in.rows = rescue_calloc((size_t)n_out, sizeof *in.rows);
  if (!in.rows) {
    srv_error(r, 500, "out of memory");
    goto done;
  }
  {
    /* the sample-level keys as the view shows them: head and tail around the rows */
    const rescue_jnode *rows = rescue_jget(L.sample, "rows");
    rescue_jdoc *rd = rescue_jdoc_new();
    if (!rd || !rows) {
      rescue_jdoc_free(&rd);
      srv_error(r, 500, "out of memory");
      goto done;
    }
    for (i = 0; i < n_out; i++) {
      const rescue_jnode *rn, *bad = NULL;
      rescue_jerror je;
      rn = rescue_jparse(rd, texts[i].s ? texts[i].s : "", texts[i].len, &je);
      if (!rn || rescue_row_input_from_json(rescue_store_scheme(r->st), rn, &in.rows[i], &bad,
                                            rescue_store_err(r->st))) {
        rescue_jdoc_free(&rd);
        srv_error(r, 400, "row %d after %s: %s", i + 1, op,
                  rn ? rescue_store_errmsg(r->st) : je.msg);
        goto done;
      }
    }
    rescue_jdoc_free(&rd);
  }
  {
    /* head/tail: the sample's own text up to '"rows": ' and after the array */
    rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = r->who.id};
    rescue_sample_iter *it = NULL;
    const rescue_sample *s = NULL;
    const char *only[1] = {sample_id};
    if ((rc = rescue_sample_iter_new(r->st, &v, only, 1, &it)) ||
        (rc = rescue_sample_iter_next(it, &s)) != 1) {
      rescue_sample_iter_free(&it);
      srv_fail(r, rc < 0 ? rc : RESCUE_ENOTFOUND, rescue_store_errmsg(r->st));
      goto done;
    }
    in.head = rescue_strdup(s->head);
    in.tail = rescue_strdup(s->tail);
    in.has_rows = s->has_rows;
    in.given_keys = s->given_keys;
    rescue_sample_iter_free(&it);
    if (!in.head || !in.tail) {
      srv_error(r, 500, "out of memory");
      goto done;
    }
  }
  if ((rc = rescue_store_begin(r->st)) ||
      (rc = rescue_store_put_sample(r->st, &in, r->who.id, "edit", RESCUE_PUT_RESEGMENT, NULL)) ||
      (rc = rescue_store_commit(r->st))) {
    rescue_store_rollback(r->st);
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  start_review(r, sample_id, L.status);
  rescue_buf_printf(&r->out, "{\"rows\": %d}", n_out);
  r->status = 200;
done:
  if (locked)
    pthread_mutex_unlock(&r->srv->write_mu);
  if (texts) {
    for (i = 0; i < L.n + 1; i++)
      rescue_buf_clear(&texts[i]);
    rescue_free(texts);
  }
  if (in.rows) {
    for (i = 0; i < in.n_rows; i++)
      rescue_row_input_clear(&in.rows[i]);
    rescue_free(in.rows);
  }
  rescue_free((char *)in.head);
  rescue_free((char *)in.tail);
  loaded_free(&L);
  rescue_jdoc_free(&doc);
}

/* POST /api/samples/<id>/comments {"text": "...", "row": n (optional; none: the sample)} */
void api_comments(srv_req *r, const char *sample_id) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *text, *row;
  int64_t id = 0, pos = 0;
  int rc;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  text = rescue_jget(root, "text");
  row = rescue_jget(root, "row");
  if (!text || text->type != RESCUE_JSTRING) {
    srv_error(r, 400, "'text' must be a string");
    goto done;
  }
  if (row && row->type != RESCUE_JNULL && !int_member(r, root, "row", &pos))
    goto done;
  if (rescue_sample_ref(r->st, sample_id, &(int64_t){0})) {
    srv_error(r, 404, "no sample '%s'", sample_id);
    goto done;
  }
  if (pos < 0 || pos > 1000000000) {
    srv_error(r, 400, "no row %lld", (long long)pos);
    goto done;
  }
  pthread_mutex_lock(&r->srv->write_mu);
  rc = rescue_comment_add(r->st, sample_id, (int)pos, text->s, r->who.id, &id);
  pthread_mutex_unlock(&r->srv->write_mu);
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  rescue_buf_printf(&r->out, "{\"id\": %lld}", (long long)id);
  r->status = 200;
done:
  rescue_jdoc_free(&doc);
}

/* ---- the dashboard ---- */

/* GET /api/dashboard (leads): progress, people, agreement with intervals, label charts. */
void api_dashboard(srv_req *r) {
  sqlite3_stmt *q;
  rescue_agree_corpus_opts ao;
  rescue_agree_report *rep = NULL;
  rescue_label_stats *ls = NULL;
  rescue_table3 t3;
  rescue_view corpus = {.kind = RESCUE_VIEW_CORPUS};
  rescue_buf tmp = RESCUE_BUF_INIT;
  rescue_jw w;
  long samples = 0, rows = 0, rows_reviewed = 0, prepared = 0;
  int rc;

  if (!is_lead(r)) {
    srv_error(r, 403, "the dashboard is for leads");
    return;
  }
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "status");
  rescue_jw_obj(&w);
  if (!(q = rescue_store_stmt(r->st, "serve_dash_status")))
    goto sqlfail;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *status = (const char *)sqlite3_column_text(q, 0);
    long n = sqlite3_column_int(q, 1), nr = sqlite3_column_int(q, 2);
    rescue_jw_key(&w, status);
    rescue_jw_int(&w, n);
    if (strcmp(status, "discarded") != 0) {
      samples += n;
      rows += nr;
      prepared += sqlite3_column_int(q, 3);
    }
    if (strcmp(status, "reviewed") == 0)
      rows_reviewed += nr;
  }
  sqlite3_reset(q);
  if (rc != SQLITE_DONE)
    goto sqlfail;
  rescue_jw_end(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_int(&w, samples);
  rescue_jw_key(&w, "prepared");
  rescue_jw_int(&w, prepared);
  rescue_jw_key(&w, "rows");
  rescue_jw_int(&w, rows);
  rescue_jw_key(&w, "rows_reviewed");
  rescue_jw_int(&w, rows_reviewed);
  rescue_jw_key(&w, "rows_remaining");
  rescue_jw_int(&w, rows - rows_reviewed);
  rescue_jw_key(&w, "people");
  rescue_jw_arr(&w);
  if (!(q = rescue_store_stmt(r->st, "serve_dash_people")))
    goto sqlfail;
  rescue_bind_text(q, ":reserved", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  rescue_bind_text(q, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "name");
    rescue_jw_str(&w, (const char *)sqlite3_column_text(q, 0));
    rescue_jw_key(&w, "role");
    rescue_jw_str(&w, (const char *)sqlite3_column_text(q, 1));
    rescue_jw_key(&w, "assigned");
    rescue_jw_int(&w, sqlite3_column_int(q, 2));
    rescue_jw_key(&w, "assigned_rows");
    rescue_jw_int(&w, sqlite3_column_int(q, 3));
    rescue_jw_key(&w, "rows_saved");
    rescue_jw_int(&w, sqlite3_column_int(q, 4));
    rescue_jw_key(&w, "reviewed");
    rescue_jw_int(&w, sqlite3_column_int(q, 5));
    rescue_jw_end(&w);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_DONE)
    goto sqlfail;
  rescue_jw_end(&w);

  rescue_jw_key(&w, "commented_samples");
  if (!(q = rescue_store_stmt(r->st, "serve_commented")))
    goto sqlfail;
  if (sqlite3_step(q) != SQLITE_ROW) {
    sqlite3_reset(q);
    goto sqlfail;
  }
  rescue_jw_int(&w, sqlite3_column_int(q, 0));
  sqlite3_reset(q);

  memset(&ao, 0, sizeof ao);
  ao.stats.ci_replicates = 200;
  ao.stats.seed = 1;
  rescue_jw_key(&w, "agreement");
  if (rescue_agree_corpus(r->st, &ao, &rep) == 0) {
    rescue_buf_reset(&tmp);
    rescue_agree_report_json(rep, &tmp);
    rescue_jw_raw(&w, tmp.s ? tmp.s : "null", tmp.s ? tmp.len : 4);
  } else {
    rescue_jw_null(&w);
  }
  rescue_agree_report_free(&rep);
  rescue_jw_key(&w, "stats");
  if (rescue_stats_table3(r->st, &corpus, &t3) == 0 &&
      rescue_stats_labels(r->st, &corpus, &ls) == 0) {
    rescue_buf_reset(&tmp);
    rescue_stats_json(&t3, ls, &tmp);
    rescue_jw_raw(&w, tmp.s ? tmp.s : "null", tmp.s ? tmp.len : 4);
  } else {
    rescue_jw_null(&w);
  }
  rescue_stats_labels_free(&ls);
  rescue_jw_end(&w);
  rescue_buf_clear(&tmp);
  r->status = 200;
  return;
sqlfail:
  rescue_buf_clear(&tmp);
  srv_fail(r, rescue_store_sqlerr(r->st, "reading progress"), rescue_store_errmsg(r->st));
}
