/*
** draft_shard.c: drafts on a cluster (rescue_draft.h): the answers file a shard writes
** instead of storing (rescue_draft with opts.answers), and rescue_draft_merge, which
** stores answers files on one machine as a local run would have.
**
** An answers file is JSON lines: a first line {"rescue_draft_answers": 1, "model",
** "command", "shard"}; one line per request {"sample_id", "rowset_id", "draft_sha256",
** "row_from", "row_to", "prompt_sha256", "attempts", "wall_ms", "exit_status", "status",
** "error", "tolerances", "findings", "created_at", "rows": [{"row_id", "position",
** "row"}]}; and a closing line {"end": true, "requests": <n>}.
*/
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_json.h"
#include "store_int.h"

#include "draft_int.h"

/* ---- writing (a shard) ---- */

void draft_answers_head(const d_run *R) {
  rescue_jw w;
  char shard[48];
  rescue_jw_init(&w, R->o->answers);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "rescue_draft_answers");
  rescue_jw_int(&w, 1);
  rescue_jw_key(&w, "model");
  rescue_jw_str(&w, R->o->annotator);
  rescue_jw_key(&w, "command");
  rescue_jw_str(&w, R->o->model_cmd);
  rescue_jw_key(&w, "shard");
  snprintf(shard, sizeof shard, "%d/%d", R->o->shard_i, R->o->shard_n);
  if (R->o->shard_n > 0)
    rescue_jw_str(&w, shard);
  else
    rescue_jw_null(&w);
  rescue_jw_end(&w);
  rescue_buf_putc(R->o->answers, '\n');
}

/* The checked rows of request r, each named by its row id and position. */
static void put_rows(rescue_jw *w, const d_request *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *arr = doc && r->n_store > 0
                                ? rescue_jparse(doc, r->answer.s, r->answer.len, &je)
                                : NULL,
                     *c;
  int i, k;
  rescue_jw_arr(w);
  for (c = arr ? arr->child : NULL, i = 0; c && i < r->n_store; c = c->next, i++) {
    int64_t row_id = 0;
    for (k = 0; k < r->s->n; k++)
      if (r->s->rows[k].pos == r->store_pos[i])
        row_id = r->s->rows[k].row_id;
    rescue_jw_obj(w);
    rescue_jw_key(w, "row_id");
    rescue_jw_int(w, row_id);
    rescue_jw_key(w, "position");
    rescue_jw_int(w, r->store_pos[i]);
    rescue_jw_key(w, "row");
    rescue_jw_node(w, c);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jdoc_free(&doc);
}

void draft_answers_put(const d_run *R, int idx) {
  static const char *const provenance[] = {"prompt_sha256", "attempts", "wall_ms",
                                           "exit_status",   "status",   "error",
                                           "tolerances",    "findings", NULL};
  const d_request *r = &R->req[idx];
  const rescue_draft_outcome *o = &R->out[idx];
  rescue_jw w;
  char now[32];
  rescue_now_iso(now);
  rescue_jw_init(&w, R->o->answers);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, r->s->sample_id);
  rescue_jw_key(&w, "rowset_id");
  rescue_jw_int(&w, r->s->rowset_id);
  rescue_jw_key(&w, "draft_sha256");
  rescue_jw_str(&w, r->s->draft_sha256);
  rescue_jw_key(&w, "row_from");
  rescue_jw_int(&w, r->from);
  rescue_jw_key(&w, "row_to");
  rescue_jw_int(&w, r->to);
  draft_outcome_put(&w, o, provenance);
  rescue_jw_key(&w, "created_at");
  rescue_jw_str(&w, now);
  rescue_jw_key(&w, "rows");
  put_rows(&w, r);
  rescue_jw_end(&w);
  rescue_buf_putc(R->o->answers, '\n');
}

void draft_answers_end(const d_run *R) {
  rescue_buf_printf(R->o->answers, "{\"end\": true, \"requests\": %d}\n", R->n_req);
}

/* ---- reading (the merge) ---- */

typedef struct m_line {
  long line;
  rescue_jdoc *doc;
  const rescue_jnode *n;
} m_line;

typedef struct m_file {
  const char *path;
  char *text;
  m_line head;
  m_line *req;
  int n_req, cap_req;
  int64_t model_id;
} m_file;

static const rescue_jnode *get_type(const rescue_jnode *n, const char *key, rescue_jtype t) {
  const rescue_jnode *v = rescue_jget(n, key);
  return v && v->type == t ? v : NULL;
}

static int get_int(const rescue_jnode *n, const char *key, long long lo, long long *out) {
  const rescue_jnode *v = get_type(n, key, RESCUE_JNUMBER);
  if (!v || !v->is_int || v->num < (double)lo)
    return -1;
  *out = strtoll(v->s, NULL, 10);
  return 0;
}

/* What is wrong with request line n, or NULL. */
static const char *bad_request(const rescue_jnode *n) {
  const rescue_jnode *v, *c;
  long long from, to, x;
  if (n->type != RESCUE_JOBJECT)
    return "not a JSON object";
  if (!get_type(n, "sample_id", RESCUE_JSTRING))
    return "no \"sample_id\"";
  if (get_int(n, "rowset_id", 1, &x))
    return "no \"rowset_id\"";
  if (!(v = get_type(n, "draft_sha256", RESCUE_JSTRING)) || v->len != 64)
    return "no \"draft_sha256\"";
  if (get_int(n, "row_from", 1, &from) || get_int(n, "row_to", from, &to))
    return "no \"row_from\" and \"row_to\" (1 <= row_from <= row_to)";
  if (!get_type(n, "prompt_sha256", RESCUE_JSTRING) || get_int(n, "attempts", 0, &x) ||
      get_int(n, "wall_ms", 0, &x) || get_int(n, "tolerances", 0, &x))
    return "no \"prompt_sha256\", \"attempts\", \"wall_ms\" or \"tolerances\"";
  v = rescue_jget(n, "exit_status");
  if (!v || (v->type != RESCUE_JNULL && (v->type != RESCUE_JNUMBER || !v->is_int)))
    return "no \"exit_status\"";
  v = get_type(n, "status", RESCUE_JSTRING);
  if (!v || (strcmp(v->s, "ok") && strcmp(v->s, "partial") && strcmp(v->s, "failed")))
    return "no \"status\" (ok, partial or failed)";
  v = rescue_jget(n, "error");
  if (!v || (v->type != RESCUE_JNULL && v->type != RESCUE_JSTRING))
    return "no \"error\"";
  if (!get_type(n, "created_at", RESCUE_JSTRING))
    return "no \"created_at\"";
  if (!(v = get_type(n, "findings", RESCUE_JARRAY)))
    return "no \"findings\"";
  for (c = v->child; c; c = c->next)
    if (c->type != RESCUE_JSTRING)
      return "a finding that is not a string";
  if (!(v = get_type(n, "rows", RESCUE_JARRAY)))
    return "no \"rows\"";
  for (c = v->child; c; c = c->next) {
    long long pos;
    if (c->type != RESCUE_JOBJECT || get_int(c, "row_id", 1, &x) ||
        get_int(c, "position", from, &pos) || pos > to || !get_type(c, "row", RESCUE_JOBJECT))
      return "a row without \"row_id\", \"position\" (inside the request) and \"row\"";
  }
  return NULL;
}

/*
** Read and check one answers file into f: every line valid, the first a head, the last
** the closing line with the right count. RESCUE_EINVAL with "<file>:<line>: ..." on err.
*/
static int read_answers(m_file *f, rescue_error *err) {
  size_t len = 0;
  char *p, *eol;
  long line = 0;
  int ended = 0, rc;
  if ((rc = rescue_read_file(f->path, &f->text, &len, err)))
    return rc;
  for (p = f->text; p < f->text + len; p = eol + 1) {
    m_line l = {++line, NULL, NULL};
    rescue_jerror je;
    const char *why = NULL;
    eol = memchr(p, '\n', (size_t)(f->text + len - p));
    if (!eol)
      return rescue_seterr(err, RESCUE_EINVAL,
                           "%s:%ld: the line is cut off (the file is truncated; run the "
                           "shard again); nothing merged",
                           f->path, line);
    if (eol == p)
      continue;
    if (ended)
      return rescue_seterr(err, RESCUE_EINVAL,
                           "%s:%ld: a line after the closing line; nothing "
                           "merged",
                           f->path, line);
    if (!(l.doc = rescue_jdoc_new()))
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    if (!(l.n = rescue_jparse(l.doc, p, (size_t)(eol - p), &je))) {
      rescue_jdoc_free(&l.doc);
      return rescue_seterr(err, RESCUE_EINVAL, "%s:%ld:%zu: not JSON: %s; nothing merged", f->path,
                           line, je.offset + 1, je.msg);
    }
    if (line == 1) {
      f->head = l;
      if (!get_type(l.n, "rescue_draft_answers", RESCUE_JNUMBER) ||
          !get_type(l.n, "model", RESCUE_JSTRING) || !get_type(l.n, "command", RESCUE_JSTRING))
        return rescue_seterr(err, RESCUE_EINVAL,
                             "%s:1: not an answers file of a draft shard (its first line names "
                             "the model and the command); nothing merged",
                             f->path);
      continue;
    }
    if (rescue_jget(l.n, "end")) {
      long long n = -1;
      ended = 1;
      get_int(l.n, "requests", 0, &n);
      rescue_jdoc_free(&l.doc);
      if (n != f->n_req)
        return rescue_seterr(err, RESCUE_EINVAL,
                             "%s:%ld: the closing line counts %lld requests, the file has %d "
                             "(the file is damaged); nothing merged",
                             f->path, line, n, f->n_req);
      continue;
    }
    why = bad_request(l.n);
    if (why || RESCUE_ALLOC_GROW(f->req, f->n_req + 1, f->cap_req)) {
      rescue_jdoc_free(&l.doc);
      return why ? rescue_seterr(err, RESCUE_EINVAL, "%s:%ld: %s; nothing merged", f->path, line,
                                 why)
                 : rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    f->req[f->n_req++] = l;
  }
  if (line == 0)
    return rescue_seterr(err, RESCUE_EINVAL, "%s: empty (not an answers file); nothing merged",
                         f->path);
  if (!ended)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "%s:%ld: the file ends without its closing line (it is truncated: the "
                         "shard did not finish; run it again); nothing merged",
                         f->path, line);
  return 0;
}

static void free_file(m_file *f) {
  int i;
  for (i = 0; i < f->n_req; i++)
    rescue_jdoc_free(&f->req[i].doc);
  rescue_free(f->req);
  rescue_jdoc_free(&f->head.doc);
  rescue_free(f->text);
}

static void refuse(rescue_draft_merge_report *rep, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void refuse(rescue_draft_merge_report *rep, const char *fmt, ...) {
  char msg[1200];
  char **grown;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  grown = rescue_realloc(rep->refusals, (size_t)(rep->n_refusals + 1) * sizeof *grown);
  if (!grown)
    return;
  rep->refusals = grown;
  if ((grown[rep->n_refusals] = rescue_strdup(msg)) != NULL)
    rep->n_refusals++;
}

/* 1 when a merge already stored request line n of the model's (in this sample), 0, or < 0. */
static int already_stored(rescue_store *st, int64_t model_id, int64_t sample_ref,
                          const rescue_jnode *n) {
  sqlite3_stmt *q = rescue_store_stmt(st, "draft_request_seen");
  long long from = 0, to = 0, att = 0, ms = 0;
  int rc, seen = 0;
  if (!q)
    return rescue_store_err(st)->code;
  get_int(n, "row_from", 1, &from);
  get_int(n, "row_to", 1, &to);
  get_int(n, "attempts", 0, &att);
  get_int(n, "wall_ms", 0, &ms);
  rescue_bind_int(q, ":annotator_id", model_id);
  rescue_bind_int(q, ":sample_ref", sample_ref);
  rescue_bind_int(q, ":row_from", from);
  rescue_bind_int(q, ":row_to", to);
  rescue_bind_text(q, ":prompt_sha256", rescue_jget(n, "prompt_sha256")->s, -1);
  rescue_bind_int(q, ":attempts", att);
  rescue_bind_int(q, ":wall_ms", ms);
  rescue_bind_text(q, ":created_at", rescue_jget(n, "created_at")->s, -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    seen = sqlite3_column_int(q, 0) > 0;
  sqlite3_reset(q);
  return rc == SQLITE_ROW ? seen : rescue_store_sqlerr(st, "looking for merged requests");
}

/* Request line n as R->req[i] / R->out[i] on sample s (its rows as the file gives them). */
static int load_request(d_run *R, int i, d_sample *s, const rescue_jnode *n) {
  d_request *r = &R->req[i];
  rescue_draft_outcome *o = &R->out[i];
  const rescue_jnode *rows = rescue_jget(n, "rows"), *c, *v;
  long long x = 0;
  rescue_jw w;
  int k = 0;
  r->s = s;
  get_int(n, "row_from", 1, &x);
  r->from = (int)x;
  get_int(n, "row_to", 1, &x);
  r->to = (int)x;
  r->created_at = rescue_jget(n, "created_at")->s;
  r->store_pos = rescue_calloc(rows->len + 1, sizeof *r->store_pos);
  o->sample_id = rescue_strdup(s->sample_id);
  o->prompt_sha256 = rescue_strdup(rescue_jget(n, "prompt_sha256")->s);
  v = rescue_jget(n, "error");
  o->error = v->type == RESCUE_JSTRING ? rescue_strdup(v->s) : NULL;
  o->findings = rescue_calloc(rescue_jget(n, "findings")->len + 1, sizeof *o->findings);
  if (!r->store_pos || !o->sample_id || !o->prompt_sha256 || !o->findings ||
      (v->type == RESCUE_JSTRING && !o->error))
    return RESCUE_ENOMEM;
  for (c = rescue_jget(n, "findings")->child; c; c = c->next)
    if (!(o->findings[o->n_findings++] = rescue_strdup(c->s)))
      return RESCUE_ENOMEM;
  o->row_from = r->from;
  o->row_to = r->to;
  o->status = strcmp(rescue_jget(n, "status")->s, "ok") == 0        ? "ok"
              : strcmp(rescue_jget(n, "status")->s, "partial") == 0 ? "partial"
                                                                    : "failed";
  get_int(n, "attempts", 0, &x);
  o->attempts = (int)x;
  get_int(n, "wall_ms", 0, &x);
  o->wall_ms = (long)x;
  get_int(n, "tolerances", 0, &x);
  o->coerced = (long)x;
  v = rescue_jget(n, "exit_status");
  o->exit_status = v->type == RESCUE_JNUMBER ? (int)v->num : 0;
  rescue_jw_init(&w, &r->answer);
  rescue_jw_arr(&w);
  for (c = rows->child; c; c = c->next) {
    get_int(c, "position", 1, &x);
    r->store_pos[k++] = (int)x;
    rescue_jw_node(&w, rescue_jget(c, "row"));
  }
  rescue_jw_end(&w);
  r->n_store = k;
  return rescue_buf_ok(&r->answer) ? 0 : RESCUE_ENOMEM;
}

static void free_run(d_run *R, int n) {
  int i, j;
  for (i = 0; i < n; i++) {
    rescue_buf_clear(&R->req[i].answer);
    rescue_free(R->req[i].store_pos);
    rescue_free(R->out[i].sample_id);
    rescue_free(R->out[i].prompt_sha256);
    rescue_free(R->out[i].error);
    for (j = 0; j < R->out[i].n_findings; j++)
      rescue_free(R->out[i].findings[j]);
    rescue_free(R->out[i].findings);
  }
  rescue_free(R->req);
  rescue_free(R->out);
}

/*
** Store the requests lines[0..n) of file f, all of one sample, that no merge stored
** before; refuse them all (a message in rep) when the sample's draft changed since the
** shard read it. 0 or an error kept on the store.
*/
static int merge_sample(rescue_store *st, const m_file *f, m_line **lines, int n,
                        rescue_draft_merge_report *rep) {
  const char *sid = rescue_jget(lines[0]->n, "sample_id")->s;
  rescue_draft_opts o = {0};
  d_sample *s = NULL;
  d_run R;
  int n_s = 0, rc, i, k = 0, seen_here = 0;
  memset(&R, 0, sizeof R);
  o.annotator = rescue_jget(f->head.n, "model")->s;
  o.model_cmd = rescue_jget(f->head.n, "command")->s;
  o.samples = &sid;
  o.n_samples = 1;
  if ((rc = draft_load_samples(st, &o, f->model_id, &s, &n_s)) == RESCUE_ENOTFOUND || n_s != 1) {
    refuse(rep,
           "%s:%ld: sample '%s' is not in the corpus (or has no rows); its answers were "
           "not merged",
           f->path, lines[0]->line, sid);
    rep->refused += n;
    rep->samples_refused++;
    draft_free_samples(s, n_s);
    return 0;
  }
  if (rc)
    goto end;
  R.sc = rescue_store_scheme(st);
  R.o = &o;
  R.req = rescue_calloc((size_t)n + 1, sizeof *R.req);
  R.out = rescue_calloc((size_t)n + 1, sizeof *R.out);
  if (!R.req || !R.out) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < n; i++) {
    int seen = already_stored(st, f->model_id, s->ref, lines[i]->n);
    if (seen < 0) {
      rc = seen;
      goto end;
    }
    if (seen) {
      rep->already++;
      seen_here++;
      continue;
    }
    if (strcmp(rescue_jget(lines[i]->n, "draft_sha256")->s, s->draft_sha256) != 0) {
      refuse(rep,
             "%s:%ld: sample '%s': its draft changed since the snapshot the shard read; "
             "its answers were not merged (draft it again)",
             f->path, lines[i]->line, sid);
      rep->refused += n - seen_here;
      rep->samples_refused++;
      goto end;
    }
    if ((rc = load_request(&R, k, s, lines[i]->n))) {
      R.n_req = k + 1;
      rc = rescue_seterr(rescue_store_err(st), rc, NULL);
      goto end;
    }
    R.n_req = ++k;
  }
  for (i = 0; i < R.n_req; i++) {
    rescue_draft_outcome *out = &R.out[i];
    if ((rc = draft_store_in_txn(st, &R, i, f->model_id)))
      goto end;
    out->rows_kept_back =
        R.req[i].to - R.req[i].from + 1 - out->rows_imported - out->rows_unchanged;
    rep->merged++;
    rep->rows_imported += out->rows_imported;
    rep->rows_unchanged += out->rows_unchanged;
    rep->rows_kept_back += out->rows_kept_back;
  }
end:
  free_run(&R, R.n_req);
  draft_free_samples(s, n_s);
  return rc;
}

/* Merge file f: its requests sample by sample, in the order the file first names them. */
static int merge_file(rescue_store *st, m_file *f, rescue_draft_merge_report *rep) {
  m_line **group = rescue_calloc((size_t)f->n_req + 1, sizeof *group);
  char *done = rescue_calloc((size_t)f->n_req + 1, 1);
  int i, j, rc = 0;
  if (!group || !done)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (i = 0; !rc && i < f->n_req; i++) {
    const char *sid = rescue_jget(f->req[i].n, "sample_id")->s;
    int n = 0;
    if (done[i])
      continue;
    for (j = i; j < f->n_req; j++)
      if (!done[j] && strcmp(rescue_jget(f->req[j].n, "sample_id")->s, sid) == 0) {
        done[j] = 1;
        group[n++] = &f->req[j];
      }
    rc = merge_sample(st, f, group, n, rep);
  }
  rescue_free(group);
  rescue_free(done);
  return rc;
}

int rescue_draft_merge(rescue_store *st, const char *const *files, int n_files,
                       rescue_draft_merge_report *rep) {
  m_file *f = rescue_calloc((size_t)n_files + 1, sizeof *f);
  int i, rc = 0;
  memset(rep, 0, sizeof *rep);
  if (!f)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  /* every file read and checked before anything is written */
  for (i = 0; i < n_files && !rc; i++) {
    f[i].path = files[i];
    if (!(rc = read_answers(&f[i], rescue_store_err(st))))
      rc = draft_check_model(st, rescue_jget(f[i].head.n, "model")->s, &f[i].model_id);
    rep->requests += f[i].n_req;
  }
  rep->files = n_files;
  if (rc || (rc = rescue_store_begin(st)))
    goto end;
  for (i = 0; i < n_files && !rc; i++)
    rc = merge_file(st, &f[i], rep);
  if (rc || (rc = rescue_store_commit(st))) {
    rescue_store_rollback(st);
    rep->merged = rep->rows_imported = rep->rows_unchanged = rep->rows_kept_back = 0;
    goto end;
  }
  if (rep->samples_refused)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EPARTIAL,
                       "%ld sample%s refused (%ld request%s); the rest merged",
                       rep->samples_refused, rep->samples_refused == 1 ? "" : "s", rep->refused,
                       rep->refused == 1 ? "" : "s");
end:
  for (i = 0; i < n_files; i++)
    free_file(&f[i]);
  rescue_free(f);
  return rc;
}

void rescue_draft_merge_report_clear(rescue_draft_merge_report *rep) {
  int i;
  if (!rep)
    return;
  for (i = 0; i < rep->n_refusals; i++)
    rescue_free(rep->refusals[i]);
  rescue_free(rep->refusals);
  memset(rep, 0, sizeof *rep);
}
