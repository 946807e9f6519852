/*
** draft.c: model pre-annotation (rescue_draft.h). Worker threads build prompts, run the
** model command (draft_run.c) and check its answers; the calling thread alone touches the
** store, one request's transaction at a time, so parallel requests never interleave their
** writes.
*/
#define _GNU_SOURCE /* memmem */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_clip.h"
#include "store_int.h"
#include "rescue_draft.h"
#include "rescue_json.h"
#include "rescue_lint.h"
#include "rescue_sha256.h"

#include "draft_int.h"

extern const unsigned char rescue_draft_prompt[];
extern const size_t rescue_draft_prompt_len;

#define CONTEXT_ROWS 20    /* earlier rows shown as context */
#define MAX_CANDIDATES 256 /* brackets tried when looking for JSON inside prose */

const char *rescue_draft_default_template(size_t *len) {
  if (len)
    *len = rescue_draft_prompt_len;
  return (const char *)rescue_draft_prompt;
}

/* ---- the prompt ---- */

static void put_field(rescue_buf *b, const rescue_field *f, int depth) {
  static const char *const tname[] = {"number",
                                      "integer",
                                      "text",
                                      "entity (one person)",
                                      "list of entities",
                                      "label",
                                      "list of row numbers",
                                      "list of objects"};
  int i;
  for (i = 0; i < depth; i++)
    rescue_buf_puts(b, "    ");
  rescue_buf_printf(b, "- %s: %s", f->key, tname[f->type]);
  if (f->type == RESCUE_F_LABEL)
    rescue_buf_printf(b, " from the set '%s' (or \"\")", f->labels);
  if (f->has_min && f->has_max)
    rescue_buf_printf(b, ", %g to %g", f->min, f->max);
  else if (f->has_min)
    rescue_buf_printf(b, ", at least %g", f->min);
  if (f->unit)
    rescue_buf_printf(b, " (%s)", f->unit);
  if (f->rows)
    rescue_buf_printf(b, ", %s rows only", f->rows);
  if (f->description)
    rescue_buf_printf(b, ": %s", f->description);
  rescue_buf_putc(b, '\n');
  for (i = 0; i < f->n_children; i++)
    put_field(b, &f->children[i], depth + 1);
}

static void put_labels(rescue_buf *b, const rescue_scheme *sc, const char *scenario) {
  int i, j;
  for (i = 0; i < sc->n_labelsets; i++) {
    const rescue_labelset *ls = rescue_scheme_labelset(sc, sc->labelsets[i].name, scenario);
    if (ls != &sc->labelsets[i])
      continue; /* another scenario's set, or shadowed by this scenario's */
    rescue_buf_printf(b, "%s:\n", ls->name);
    for (j = 0; j < ls->n; j++)
      rescue_buf_printf(b, "  - %s: %s\n", ls->labels[j],
                        ls->descriptions && ls->descriptions[j] ? ls->descriptions[j] : "");
  }
}

static void put_row_line(rescue_buf *b, const rescue_jnode *row) {
  const rescue_jnode *st = rescue_jget(row, "start_time"), *en = rescue_jget(row, "end_time"),
                     *sp = rescue_jget(row, "primary_speaker"),
                     *tx = rescue_jget(row, "dialogue_cleaned"),
                     *ri = rescue_jget(row, "row_index");
  rescue_buf_printf(b, "[%s] %s-%s %s: %s\n", ri ? ri->s ? ri->s : "?" : "?",
                    st && st->type == RESCUE_JNUMBER ? st->s : "?",
                    en && en->type == RESCUE_JNUMBER ? en->s : "?",
                    sp && sp->type == RESCUE_JSTRING ? sp->s : "?",
                    tx && tx->type == RESCUE_JSTRING ? tx->s : "");
}

/*
** The placeholder `name` for request r, appended to b. Returns 0, or -1 when the
** template names a placeholder that does not exist.
*/
static int put_placeholder(d_run *R, const d_request *r, const char *name, size_t nlen,
                           rescue_buf *b) {
  const rescue_scheme *sc = R->sc;
  const d_sample *s = r->s;
  const char *group = rescue_scheme_group_label(sc, s->scenario);
#define IS(x) (nlen == sizeof(x) - 1 && memcmp(name, x, nlen) == 0)
  if (IS("scenario")) {
    rescue_buf_puts(b, s->scenario);
  } else if (IS("sample_id")) {
    rescue_buf_puts(b, s->sample_id);
  } else if (IS("row_from") || IS("row_to")) {
    rescue_buf_printf(b, "%d", IS("row_from") ? r->from : r->to);
  } else if (IS("therapist")) {
    rescue_buf_puts(b, sc->therapist);
  } else if (IS("group_label")) {
    rescue_buf_puts(b, group ? group : "");
  } else if (IS("participants")) {
    rescue_buf_puts(b, s->participants);
  } else if (IS("entities")) {
    rescue_buf_printf(b, "%.*s, \"%s\", \"%s\"]", (int)strlen(s->participants) - 1, s->participants,
                      sc->therapist, group ? group : "");
  } else if (IS("fields")) {
    int i;
    for (i = 0; i < sc->n_fields; i++)
      put_field(b, &sc->fields[i], 0);
  } else if (IS("labels")) {
    put_labels(b, sc, s->scenario);
  } else if (IS("rules")) {
    int i;
    for (i = 1; i <= RESCUE_LINT_RULES; i++)
      rescue_buf_printf(b, "- R%02d (%s): %s\n", i,
                        rescue_lint_rule_severity(i) == RESCUE_LINT_ERROR ? "error" : "warning",
                        rescue_lint_rule_text(i));
  } else if (IS("context") || IS("rows")) {
    int i, from = IS("rows") ? r->from : r->from - CONTEXT_ROWS,
           to = IS("rows") ? r->to : r->from - 1;
    rescue_jdoc *doc = rescue_jdoc_new();
    rescue_jerror je;
    int any = 0;
    if (!doc)
      return -2;
    for (i = 0; i < s->n; i++) {
      const d_row *row = &s->rows[i];
      if (row->pos < from || row->pos > to)
        continue;
      any = 1;
      if (IS("rows")) {
        rescue_buf_puts(b, row->content);
        rescue_buf_putc(b, '\n');
      } else {
        const rescue_jnode *n = rescue_jparse(doc, row->content, strlen(row->content), &je);
        if (n)
          put_row_line(b, n);
      }
    }
    if (!any)
      rescue_buf_puts(b, "(none)\n");
    rescue_jdoc_free(&doc);
  } else if (IS("shape")) {
    rescue_buf_printf(b,
                      "Answer with one JSON object and nothing else:\n"
                      "{\"rows\": [{\"row_index\": %d, ...every field listed above...}, ...]}\n"
                      "with exactly one object per row_index from %d to %d, in order. Lists that "
                      "have nothing to hold are [], labels that do not apply are \"\".\n",
                      r->from, r->from, r->to);
  } else {
    return -1;
  }
#undef IS
  return 0;
}

/*
** Fill the template for request r into b. Returns 0, or RESCUE_EINVAL with err set when
** the template has an unknown or unclosed placeholder.
*/
static int build_prompt(d_run *R, const d_request *r, rescue_buf *b, rescue_error *err) {
  const char *p = R->tmpl, *end = R->tmpl + R->tmpl_len;
  long line = 1;
  while (p < end) {
    const char *open = memmem(p, (size_t)(end - p), "{{", 2), *close;
    const char *q;
    if (!open) {
      rescue_buf_putn(b, p, (size_t)(end - p));
      break;
    }
    for (q = p; q < open; q++)
      line += *q == '\n';
    rescue_buf_putn(b, p, (size_t)(open - p));
    close = memmem(open + 2, (size_t)(end - open - 2), "}}", 2);
    if (!close || memchr(open, '\n', (size_t)(close - open)))
      return rescue_seterr(err, RESCUE_EINVAL, "%s:%ld: '{{' without a closing '}}'",
                           R->o->template_name ? R->o->template_name : "prompt template", line);
    switch (put_placeholder(R, r, open + 2, (size_t)(close - open - 2), b)) {
    case 0: break;
    case -1:
      return rescue_seterr(err, RESCUE_EINVAL, "%s:%ld: unknown placeholder '{{%.*s}}'",
                           R->o->template_name ? R->o->template_name : "prompt template", line,
                           (int)(close - open - 2), open + 2);
    default: return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    p = close + 2;
  }
  return rescue_buf_ok(b) ? 0 : rescue_seterr(err, RESCUE_ENOMEM, NULL);
}

/* ---- reading the answer ---- */

/* An answer is a list of row objects, or an object with a "rows" list. Its rows, or NULL. */
static const rescue_jnode *answer_rows(const rescue_jnode *n) {
  if (!n)
    return NULL;
  if (n->type == RESCUE_JOBJECT) {
    n = rescue_jget(n, "rows");
    if (!n)
      return NULL;
  }
  if (n->type != RESCUE_JARRAY)
    return NULL;
  for (const rescue_jnode *c = n->child; c; c = c->next)
    if (c->type != RESCUE_JOBJECT)
      return NULL;
  return n;
}

/* rescue_jfind's test: a value that answer_rows takes. */
static int is_answer(const rescue_jnode *n, void *ctx) {
  (void)ctx;
  return answer_rows(n) != NULL;
}

/*
** Find the answer's rows in a command's output: the whole output as JSON, else a fenced
** block (```json ... ```), else the first bracketed value inside prose that reads as an
** answer (rescue_jfind, with its bound on the work). *shape counts the tolerances used. NULL when nothing usable is there.
*/
static const rescue_jnode *find_answer(rescue_jdoc *doc, const char *text, size_t len,
                                       long *shape) {
  const char *end = text + len, *p;
  const rescue_jnode *n;
  rescue_jerror je;
  if ((n = answer_rows(rescue_jparse(doc, text, len, &je))) != NULL)
    return n;
  for (p = text; (p = memmem(p, (size_t)(end - p), "```", 3)) != NULL;) {
    const char *body = memchr(p, '\n', (size_t)(end - p)), *close;
    if (!body)
      break;
    body++;
    close = memmem(body, (size_t)(end - body), "```", 3);
    if (!close)
      close = end;
    if ((n = answer_rows(rescue_jparse(doc, body, (size_t)(close - body), &je))) != NULL) {
      (*shape)++;
      return n;
    }
    if (close == end)
      break;
    p = close + 3;
  }
  if ((n = answer_rows(rescue_jfind(doc, text, len, 0, is_answer, NULL, NULL))) != NULL)
    (*shape)++;
  return n;
}

/* ---- merging and checking ---- */

static int kept_key(const char *k) {
  return strcmp(k, "start_time") == 0 || strcmp(k, "end_time") == 0 ||
         strcmp(k, "dialogue_cleaned") == 0 || strcmp(k, "row_index") == 0;
}

/*
** The stored row `draft` with the model's values: times, text and row_index stay the
** draft's (and the speaker, unless the draft has none); every other key the model gave
** that the scheme knows replaces or joins the draft's, in the draft's key order, new keys
** after. Keys the scheme does not know are left out of the model's side.
*/
static void merge_row(const rescue_scheme *sc, const rescue_jnode *draft, const rescue_jnode *model,
                      rescue_buf *out) {
  rescue_jw w;
  const rescue_jnode *c, *sp = rescue_jget(draft, "primary_speaker");
  int speaker_empty = !sp || (sp->type == RESCUE_JSTRING && sp->len == 0);
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  for (c = draft->child; c; c = c->next) {
    const rescue_jnode *m = rescue_jget(model, c->key);
    int keep = kept_key(c->key) || (strcmp(c->key, "primary_speaker") == 0 && !speaker_empty);
    rescue_jw_key(&w, c->key);
    rescue_jw_node(&w, keep || !m || !rescue_scheme_field(sc, c->key) ? c : m);
  }
  for (c = model->child; c; c = c->next) {
    if (rescue_jget(draft, c->key) || !rescue_scheme_field(sc, c->key) || kept_key(c->key))
      continue;
    {
      const rescue_jnode *c2; /* a repeated key: its last value, once */
      int later = 0;
      for (c2 = c->next; c2; c2 = c2->next)
        later |= strcmp(c2->key, c->key) == 0;
      if (later)
        continue;
    }
    rescue_jw_key(&w, c->key);
    rescue_jw_node(&w, c);
  }
  rescue_jw_end(&w);
}

/* Which requested position an answer row is for: by row_index, else by time span. */
static int match_row(const d_request *r, const rescue_jnode *row) {
  const rescue_jnode *ri = rescue_jget(row, "row_index"), *st, *en;
  int i, best = 0;
  double best_ov = 0;
  if (ri && ri->type == RESCUE_JNUMBER && ri->is_int && ri->num >= r->from && ri->num <= r->to)
    return (int)ri->num;
  st = rescue_jget(row, "start_time");
  en = rescue_jget(row, "end_time");
  if (!st || !en || st->type != RESCUE_JNUMBER || en->type != RESCUE_JNUMBER)
    return 0;
  for (i = 0; i < r->s->n; i++) {
    const d_row *d = &r->s->rows[i];
    rescue_jdoc *doc;
    const rescue_jnode *n, *ds, *de;
    rescue_jerror je;
    if (d->pos < r->from || d->pos > r->to || !(doc = rescue_jdoc_new()))
      continue;
    n = rescue_jparse(doc, d->content, strlen(d->content), &je);
    ds = n ? rescue_jget(n, "start_time") : NULL;
    de = n ? rescue_jget(n, "end_time") : NULL;
    if (ds && de && ds->type == RESCUE_JNUMBER && de->type == RESCUE_JNUMBER) {
      double ov = fmin(de->num, en->num) - fmax(ds->num, st->num);
      if (ov > best_ov) {
        best_ov = ov;
        best = d->pos;
      }
    }
    rescue_jdoc_free(&doc);
  }
  return best;
}

typedef struct d_check {
  int n_findings, cap_findings;
  char **findings;   /* owned */
  int *bad;          /* per requested row (index pos - from): 1 when it has an error */
  int *answered;     /* per requested row: 1 when the answer has it */
  rescue_buf merged; /* JSON array of the answered rows, merged, in position order */
  int *merged_pos;
  int n_merged;
} d_check;

static void check_free(d_check *c) {
  int i;
  for (i = 0; i < c->n_findings; i++)
    rescue_free(c->findings[i]);
  rescue_free(c->findings);
  rescue_free(c->bad);
  rescue_free(c->answered);
  rescue_free(c->merged_pos);
  rescue_buf_clear(&c->merged);
  memset(c, 0, sizeof *c);
}

static int add_finding(d_check *c, const char *text) {
  if (RESCUE_ALLOC_GROW(c->findings, c->n_findings + 1, c->cap_findings))
    return -1;
  if (!(c->findings[c->n_findings] = rescue_strdup(text)))
    return -1;
  c->n_findings++;
  return 0;
}

/* Lint the sample with `rows` (JSON array text of the whole row set) into res. */
static int lint_rows(const rescue_scheme *sc, const d_sample *s, const char *rows, size_t len,
                     rescue_lint_result *res) {
  rescue_jdoc *ds = rescue_jdoc_new(), *dr = rescue_jdoc_new();
  rescue_buf head = RESCUE_BUF_INIT;
  const rescue_jnode *sample = NULL, *arr, **nodes = NULL, *c;
  rescue_jerror je;
  int *pos = NULL, i = 0, rc = -1;
  if (!ds || !dr)
    goto end;
  rescue_buf_puts(&head, s->head);
  if (s->has_rows) {
    rescue_buf_puts(&head, "[]");
    rescue_buf_puts(&head, s->tail);
  }
  sample = rescue_jparse(ds, head.s ? head.s : "{}", head.len ? head.len : 2, &je);
  arr = rescue_jparse(dr, rows, len, &je);
  if (!arr)
    goto end;
  nodes = rescue_calloc((size_t)arr->len + 1, sizeof *nodes);
  pos = rescue_calloc((size_t)arr->len + 1, sizeof *pos);
  if (!nodes || !pos)
    goto end;
  for (c = arr->child; c; c = c->next, i++) {
    nodes[i] = c;
    pos[i] = s->rows[i].pos;
  }
  rc = rescue_lint_sample(sc, s->sample_id, sample, nodes, pos, i, s->n, NULL, res) ? -1 : 0;
end:
  rescue_jdoc_free(&ds);
  rescue_jdoc_free(&dr);
  rescue_buf_clear(&head);
  rescue_free(nodes);
  rescue_free(pos);
  return rc;
}

static int same_finding(const rescue_lint_finding *a, const rescue_lint_finding *b) {
  return a->rule == b->rule && a->row == b->row && strcmp(a->field, b->field) == 0 &&
         strcmp(a->reason, b->reason) == 0;
}

/*
** Check an answer for request r: match its rows, merge them into the draft rows, and
** lint the sample with them. Findings the draft rows already had are not the model's.
** Returns 0, or -1 when out of memory.
*/
/*
** The answer's object for each requested row into for_pos[pos - from]: matched by
** row_index or times (match_row); when nothing matched but the count fits, in order
** (counted in *shape).
*/
static void match_answer(const d_request *r, const rescue_jnode *rows, const rescue_jnode **for_pos,
                         long *shape) {
  const rescue_jnode *a;
  int nreq = r->to - r->from + 1, n_ans = 0, i, k;
  for (a = rows->child; a; a = a->next)
    n_ans++;
  for (a = rows->child; a; a = a->next) {
    int p = match_row(r, a);
    if (p && !for_pos[p - r->from])
      for_pos[p - r->from] = a;
  }
  for (i = 0, k = 0; i < nreq; i++)
    k += for_pos[i] != NULL;
  if (k == 0 && n_ans == nreq) {
    for (a = rows->child, i = 0; a; a = a->next, i++)
      for_pos[i] = a;
    (*shape)++;
  }
}

/*
** The lint findings on the answered rows that the sample as stored (base) did not have
** already, with the model's rows merged in (all): added to c, rows with an error marked
** bad. -1 when out of memory.
*/
static int new_findings(d_run *R, const d_request *r, const rescue_buf *base, const rescue_buf *all,
                        d_check *c) {
  rescue_lint_result lb, lm;
  char line[1400];
  int i, rc = -1;
  memset(&lb, 0, sizeof lb);
  memset(&lm, 0, sizeof lm);
  if (lint_rows(R->sc, r->s, base->s, base->len, &lb) ||
      lint_rows(R->sc, r->s, all->s, all->len, &lm))
    goto end;
  for (i = 0; i < lm.n; i++) {
    const rescue_lint_finding *f = &lm.findings[i];
    int j, old = 0;
    rescue_buf t = RESCUE_BUF_INIT;
    if (f->row < r->from || f->row > r->to || !c->answered[f->row - r->from])
      continue;
    for (j = 0; j < lb.n && !old; j++)
      old = same_finding(f, &lb.findings[j]);
    if (old)
      continue;
    if (f->severity == RESCUE_LINT_ERROR)
      c->bad[f->row - r->from] = 1;
    rescue_lint_finding_text(f, &t);
    snprintf(line, sizeof line, "row %d: %s", f->row, t.s ? t.s : "");
    rescue_buf_clear(&t);
    if (add_finding(c, line))
      goto end;
  }
  rc = 0;
end:
  rescue_lint_result_clear(&lb);
  rescue_lint_result_clear(&lm);
  return rc;
}

static int check_answer(d_run *R, const d_request *r, const rescue_jnode *rows, long *shape,
                        d_check *c) {
  const d_sample *s = r->s;
  int nreq = r->to - r->from + 1, i, rc = -1;
  const rescue_jnode **for_pos = rescue_calloc((size_t)nreq, sizeof *for_pos);
  rescue_jdoc **docs = rescue_calloc((size_t)s->n, sizeof *docs);
  rescue_buf all = RESCUE_BUF_INIT, base = RESCUE_BUF_INIT, one = RESCUE_BUF_INIT;
  char line[1400];
  c->bad = rescue_calloc((size_t)nreq, sizeof *c->bad);
  c->answered = rescue_calloc((size_t)nreq, sizeof *c->answered);
  c->merged_pos = rescue_calloc((size_t)nreq, sizeof *c->merged_pos);
  if (!for_pos || !docs || !c->bad || !c->answered || !c->merged_pos)
    goto end;
  match_answer(r, rows, for_pos, shape);
  rescue_buf_putc(&all, '[');
  rescue_buf_putc(&base, '[');
  rescue_buf_putc(&c->merged, '[');
  for (i = 0; i < s->n; i++) {
    const d_row *d = &s->rows[i];
    const rescue_jnode *dn;
    rescue_jerror je;
    if (i) {
      rescue_buf_putc(&all, ',');
      rescue_buf_putc(&base, ',');
    }
    rescue_buf_puts(&base, d->content);
    if (d->pos < r->from || d->pos > r->to || !for_pos[d->pos - r->from]) {
      rescue_buf_puts(&all, d->content);
      continue;
    }
    if (!(docs[i] = rescue_jdoc_new()))
      goto end;
    dn = rescue_jparse(docs[i], d->content, strlen(d->content), &je);
    if (!dn || dn->type != RESCUE_JOBJECT) {
      rescue_buf_puts(&all, d->content);
      continue;
    }
    rescue_buf_reset(&one);
    merge_row(R->sc, dn, for_pos[d->pos - r->from], &one);
    rescue_buf_putn(&all, one.s, one.len);
    if (c->n_merged)
      rescue_buf_putc(&c->merged, ',');
    rescue_buf_putn(&c->merged, one.s, one.len);
    c->merged_pos[c->n_merged++] = d->pos;
    c->answered[d->pos - r->from] = 1;
  }
  rescue_buf_putc(&all, ']');
  rescue_buf_putc(&base, ']');
  rescue_buf_putc(&c->merged, ']');
  if (!rescue_buf_ok(&all) || !rescue_buf_ok(&base) || !rescue_buf_ok(&c->merged) ||
      !rescue_buf_ok(&one))
    goto end;
  for (i = 0; i < nreq; i++)
    if (!c->answered[i]) {
      snprintf(line, sizeof line, "row %d: error: the answer has no object for row_index %d",
               r->from + i, r->from + i);
      c->bad[i] = 1;
      if (add_finding(c, line))
        goto end;
    }
  if (new_findings(R, r, &base, &all, c))
    goto end;
  rc = 0;
end:
  if (docs)
    for (i = 0; i < s->n; i++)
      rescue_jdoc_free(&docs[i]);
  rescue_free(docs);
  rescue_free(for_pos);
  rescue_buf_clear(&all);
  rescue_buf_clear(&base);
  rescue_buf_clear(&one);
  return rc;
}

/* ---- one request, start to finish (a worker) ---- */

static void set_error(rescue_draft_outcome *o, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void set_error(rescue_draft_outcome *o, const char *fmt, ...) {
  char msg[2600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  rescue_free(o->error);
  o->error = rescue_strdup(msg);
}

/*
** One run of the command on prompt (with env, 5 entries) and the check of its answer.
** Returns 1 when the answer was read (*c filled: the caller owns it; o->error cleared),
** 0 when the attempt failed (o->error says why).
*/
static int attempt_once(d_run *R, const d_request *r, rescue_draft_outcome *o,
                        const rescue_buf *prompt, char *const *env, d_check *c) {
  const rescue_draft_opts *op = R->o;
  d_exec x;
  rescue_jdoc *doc = NULL;
  const rescue_jnode *rows;
  char tail[ERR_TAIL + 600];
  int ok = 0;
  memset(&x, 0, sizeof x);
  draft_run_command(op->model_cmd, env, 5, prompt->s, prompt->len, op->timeout, &x);
  o->exit_status = x.status;
  draft_err_tail(&x.err, tail, sizeof tail);
  if (x.status == -2) {
    set_error(o, "the command could not be started: %s", tail);
  } else if (x.status == -1) {
    set_error(o, "timed out after %g s%s%s", op->timeout, *tail ? "; stderr: " : "", tail);
  } else if (x.status != 0) {
    set_error(o, "exit status %d%s%s", x.status, *tail ? "; stderr: " : "", tail);
  } else if (x.out.len == 0) {
    set_error(o, "the command printed nothing%s%s", *tail ? "; stderr: " : "", tail);
  } else if (!(doc = rescue_jdoc_new())) {
    set_error(o, "out of memory");
  } else if (!(rows = find_answer(doc, x.out.s, x.out.len, &o->coerced))) {
    set_error(o,
              "no usable JSON in the output (%zu bytes; a list of rows or an object "
              "with \"rows\" was expected)",
              x.out.len);
  } else if (check_answer(R, r, rows, &o->coerced, c)) {
    set_error(o, "out of memory");
    check_free(c);
  } else {
    rescue_free(o->error);
    o->error = NULL;
    ok = 1;
  }
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&x.out);
  rescue_buf_clear(&x.err);
  return ok;
}

/*
** What can be stored of the best answer: its rows without errors (and that the store
** takes) into r->answer and r->store_pos; its findings move to o.
*/
static void keep_answer(d_run *R, d_request *r, rescue_draft_outcome *o, d_check *best) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *arr = doc ? rescue_jparse(doc, best->merged.s, best->merged.len, &je) : NULL;
  const rescue_jnode *c;
  int i = 0;
  r->store_pos = rescue_calloc((size_t)best->n_merged + 1, sizeof *r->store_pos);
  if (arr && r->store_pos) {
    rescue_jw w;
    rescue_jw_init(&w, &r->answer);
    rescue_jw_arr(&w);
    for (c = arr->child; c; c = c->next, i++) {
      int p = best->merged_pos[i];
      const rescue_jnode *bad = NULL;
      rescue_error e;
      if (best->bad[p - r->from])
        continue;
      memset(&e, 0, sizeof e);
      if (rescue_row_input_from_json(R->sc, c, NULL, &bad, &e)) {
        /* a type the store refuses although lint let it through: keep the row back */
        char line[1200];
        snprintf(line, sizeof line, "row %d: error: %s", p, e.msg);
        add_finding(best, line);
        continue;
      }
      rescue_jw_node(&w, c);
      r->store_pos[r->n_store++] = p;
    }
    rescue_jw_end(&w);
  }
  rescue_jdoc_free(&doc);
  o->findings = best->findings;
  o->n_findings = best->n_findings;
  best->findings = NULL;
  best->n_findings = best->cap_findings = 0;
}

/* One request, start to finish (a worker): the prompt, the attempts, what can be stored. */
static void do_request(d_run *R, int idx) {
  d_request *r = &R->req[idx];
  rescue_draft_outcome *o = &R->out[idx];
  const rescue_draft_opts *op = R->o;
  rescue_buf prompt = RESCUE_BUF_INIT;
  rescue_error err;
  d_check best;
  char from_s[24], to_s[24], att_s[24], *env[5] = {NULL};
  double t0 = draft_now();
  size_t base_len;
  int attempt;
  memset(&best, 0, sizeof best);
  memset(&err, 0, sizeof err);
  if (build_prompt(R, r, &prompt, &err)) {
    set_error(o, "%s", err.msg);
    goto end;
  }
  {
    rescue_sha256 h;
    char hex[65];
    rescue_sha256_init(&h);
    rescue_sha256_update(&h, prompt.s, prompt.len);
    rescue_sha256_hex(&h, hex);
    o->prompt_sha256 = rescue_strdup(hex);
  }
  base_len = prompt.len;
  snprintf(from_s, sizeof from_s, "%d", r->from);
  snprintf(to_s, sizeof to_s, "%d", r->to);
  env[0] = draft_env_entry("RESCUE_SAMPLE_ID", r->s->sample_id);
  env[1] = draft_env_entry("RESCUE_SCENARIO", r->s->scenario);
  env[2] = draft_env_entry("RESCUE_ROW_FROM", from_s);
  env[3] = draft_env_entry("RESCUE_ROW_TO", to_s);
  for (attempt = 1; attempt <= op->retries + 1; attempt++) {
    d_check c;
    int i, n_bad = 0;
    memset(&c, 0, sizeof c);
    snprintf(att_s, sizeof att_s, "%d", attempt);
    rescue_free(env[4]);
    env[4] = draft_env_entry("RESCUE_ATTEMPT", att_s);
    if (!env[0] || !env[1] || !env[2] || !env[3] || !env[4]) {
      set_error(o, "out of memory");
      break;
    }
    o->attempts = attempt;
    if (!attempt_once(R, r, o, &prompt, env, &c))
      continue;
    for (i = 0; i <= r->to - r->from; i++)
      n_bad += c.bad[i];
    check_free(&best);
    best = c;
    if (n_bad == 0)
      break;
    /* ask again, with what was wrong */
    prompt.len = base_len;
    prompt.s[prompt.len] = 0;
    rescue_buf_puts(&prompt, "\n## Your previous answer had these problems; answer again, "
                             "whole, with them fixed\n\n");
    for (i = 0; i < best.n_findings; i++)
      rescue_buf_printf(&prompt, "- %s\n", best.findings[i]);
  }
  if (best.merged.s)
    keep_answer(R, r, o, &best);
end:
  o->wall_ms = (long)((draft_now() - t0) * 1000 + 0.5);
  check_free(&best);
  rescue_buf_clear(&prompt);
  for (int i = 0; i < 5; i++)
    rescue_free(env[i]);
}

static void *worker(void *arg) {
  d_run *R = arg;
  for (;;) {
    int idx;
    pthread_mutex_lock(&R->mu);
    idx = R->next < R->n_req ? R->next++ : -1;
    pthread_mutex_unlock(&R->mu);
    if (idx < 0)
      break;
    do_request(R, idx);
    pthread_mutex_lock(&R->mu);
    R->req[idx].done = 1;
    R->finished[R->n_finished++] = idx;
    pthread_cond_signal(&R->cv);
    pthread_mutex_unlock(&R->mu);
  }
  return NULL;
}

/* ---- the store side (calling thread only) ---- */

/*
** The SHA-256 of a sample's rows as the model's view shows them (row set, then each row's
** position, id and content): what a merge compares with the sample it stores into.
*/
static void sample_digest(d_sample *d) {
  rescue_sha256 h;
  char line[64];
  int i;
  rescue_sha256_init(&h);
  snprintf(line, sizeof line, "rowset %lld\n", (long long)d->rowset_id);
  rescue_sha256_update(&h, line, strlen(line));
  for (i = 0; i < d->n; i++) {
    snprintf(line, sizeof line, "%d %lld ", d->rows[i].pos, (long long)d->rows[i].row_id);
    rescue_sha256_update(&h, line, strlen(line));
    rescue_sha256_update(&h, d->rows[i].content, strlen(d->rows[i].content) + 1);
  }
  rescue_sha256_hex(&h, d->draft_sha256);
}

int draft_load_samples(rescue_store *st, const rescue_draft_opts *o, int64_t model_id,
                       d_sample **out, int *n_out) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = model_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  d_sample *list = NULL;
  int n = 0, cap = 0, rc, i;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  if (!doc)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if ((rc = rescue_sample_iter_new(st, &v, o->samples, o->n_samples, &it)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    d_sample *d;
    const rescue_jnode *head, *given;
    rescue_jerror je;
    if ((strcmp(s->status, "discarded") == 0 && o->n_samples == 0) || s->n == 0)
      continue;
    if (o->shard_n > 0 &&
        rescue_fnv1a64(s->sample_id) % (uint64_t)o->shard_n != (uint64_t)(o->shard_i - 1))
      continue;
    if (RESCUE_ALLOC_GROW(list, n + 1, cap)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    d = &list[n++];
    memset(d, 0, sizeof *d);
    d->sample_id = rescue_strdup(s->sample_id);
    d->ref = s->ref;
    d->rowset_id = s->rowset_id;
    d->scenario = rescue_sample_scenario(sc, s);
    d->head = rescue_strdup(s->head);
    d->tail = rescue_strdup(s->tail ? s->tail : "");
    d->has_rows = s->has_rows;
    d->rows = rescue_calloc((size_t)s->n + 1, sizeof *d->rows);
    /* participants: as the sample gives them, else derived from the rows */
    rescue_buf_reset(&b);
    rescue_buf_puts(&b, s->head);
    if (s->has_rows) {
      rescue_buf_puts(&b, "[]");
      rescue_buf_puts(&b, s->tail);
    }
    head = rescue_jparse(doc, b.s, b.len, &je);
    given = head ? rescue_jget(head, "participants") : NULL;
    rescue_buf_reset(&b);
    if (given && given->type == RESCUE_JARRAY)
      rescue_jwrite(&b, given);
    else
      rescue_sample_participants_json(sc, s, &b);
    d->participants = rescue_strdup(b.s ? b.s : "[]");
    if (!d->sample_id || !d->head || !d->tail || !d->rows || !d->participants ||
        !rescue_buf_ok(&b)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    for (i = 0; i < s->n; i++) {
      d->rows[i].pos = s->rows[i].position;
      d->rows[i].row_id = s->rows[i].row_id;
      if (!(d->rows[i].content = rescue_strndup(s->rows[i].content, s->rows[i].content_len))) {
        rc = RESCUE_ENOMEM;
        break;
      }
      d->n++;
    }
    if (rc < 0)
      break;
    sample_digest(d);
  }
  if (rc == RESCUE_ENOMEM)
    rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  else if (rc == 0 && n == 0)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no sample with rows to draft");
end:
  rescue_sample_iter_free(&it);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&b);
  *out = list;
  *n_out = n;
  return rc < 0 ? rc : 0;
}

void draft_free_samples(d_sample *list, int n) {
  int i, j;
  for (i = 0; i < n; i++) {
    for (j = 0; j < list[i].n; j++)
      rescue_free(list[i].rows[j].content);
    rescue_free(list[i].rows);
    rescue_free(list[i].sample_id);
    rescue_free(list[i].head);
    rescue_free(list[i].tail);
    rescue_free(list[i].participants);
  }
  rescue_free(list);
}

/*
** The model's own latest content of each row of request r, indexed by position - r->from
** (NULL where the model has no version of the row yet). *out (r->to - r->from + 1 entries)
** and its strings are owned by the caller: free_mine releases them.
*/
static int load_mine(rescue_store *st, const d_request *r, int64_t model_id, rescue_buf **out) {
  sqlite3_stmt *q = rescue_store_stmt(st, "rows_mine");
  rescue_buf *mine;
  int rc, n = r->to - r->from + 1;
  *out = NULL;
  if (!q)
    return rescue_store_err(st)->code;
  if (!(mine = rescue_calloc((size_t)n, sizeof *mine)))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  rescue_bind_int(q, ":annotator_id", model_id);
  rescue_bind_int(q, ":rowset_id", r->s->rowset_id);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    int p = sqlite3_column_int(q, 1);
    const char *c = (const char *)sqlite3_column_text(q, 2);
    if (p < r->from || p > r->to || !c)
      continue;
    rescue_buf_putn(&mine[p - r->from], c, (size_t)sqlite3_column_bytes(q, 2));
  }
  sqlite3_reset(q);
  *out = mine;
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading the model's versions");
  for (rc = 0; rc < n; rc++)
    if (!rescue_buf_ok(&mine[rc]))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  return 0;
}

static void free_mine(rescue_buf **mine, int n) {
  int i;
  if (!*mine)
    return;
  for (i = 0; i < n; i++)
    rescue_buf_clear(&(*mine)[i]);
  rescue_free(*mine);
  *mine = NULL;
}

/*
** The audit record of one stored request, inside its transaction (rescue_audit.h): each
** request commits on its own, so each has its record.
*/
static int draft_audit(rescue_store *st, const d_run *R, const d_request *r,
                       const rescue_draft_outcome *o) {
  rescue_audit_entry e = {0};
  char detail[600];
  snprintf(detail, sizeof detail, "%s rows %d-%d: %s; %d rows stored, %d unchanged",
           r->s->sample_id, r->from, r->to, o->status, o->rows_imported, o->rows_unchanged);
  e.action = "draft";
  e.annotator = R->o->annotator;
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

/*
** Refuse request idx (nothing to store, with an error on its outcome) when its sample's
** row set changed while the model ran, or when the request already failed.
** Returns 0 or an error code kept on the store handle.
*/
static int check_rowset(rescue_store *st, d_run *R, int idx) {
  d_request *r = &R->req[idx];
  rescue_draft_outcome *o = &R->out[idx];
  sqlite3_stmt *q;
  int64_t rowset = 0;
  if (!(q = rescue_store_stmt(st, "sample_find")))
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", r->s->sample_id, -1);
  if (sqlite3_step(q) == SQLITE_ROW)
    rowset = sqlite3_column_int64(q, 1);
  sqlite3_reset(q);
  if (rowset != r->s->rowset_id && !o->error) {
    set_error(o, "the sample was resegmented while the model ran; nothing stored");
    r->n_store = 0;
  }
  if (o->error)
    r->n_store = 0;
  return 0;
}

/*
** Record the provenance of request idx (command, prompt digest, attempts, outcome) and set
** *request_id to its id. Returns 0 or an error code kept on the store handle.
*/
static int insert_request(rescue_store *st, d_run *R, int idx, int64_t model_id,
                          int64_t *request_id) {
  d_request *r = &R->req[idx];
  rescue_draft_outcome *o = &R->out[idx];
  sqlite3_stmt *q;
  char now[32];
  if (!(q = rescue_store_stmt(st, "draft_request_insert")))
    return rescue_store_err(st)->code;
  rescue_now_iso(now);
  rescue_bind_int(q, ":annotator_id", model_id);
  rescue_bind_int(q, ":sample_ref", r->s->ref);
  rescue_bind_int(q, ":row_from", r->from);
  rescue_bind_int(q, ":row_to", r->to);
  rescue_bind_text(q, ":command", R->o->model_cmd, -1);
  rescue_bind_text(q, ":prompt_sha256", o->prompt_sha256 ? o->prompt_sha256 : "", -1);
  rescue_bind_int(q, ":attempts", o->attempts);
  rescue_bind_int(q, ":wall_ms", o->wall_ms);
  if (o->attempts)
    rescue_bind_int(q, ":exit_status", o->exit_status);
  else
    rescue_bind_null(q, ":exit_status");
  rescue_bind_text(q, ":outcome", o->status, -1);
  rescue_bind_text(q, ":error", o->error, -1);
  rescue_bind_text(q, ":now", r->created_at ? r->created_at : now, -1);
  if (sqlite3_step(q) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "recording a model request");
  *request_id = sqlite3_last_insert_rowid(rescue_store_db(st));
  return 0;
}

/*
** Store the checked answer row c of request r, the i-th row to store: a type error keeps
** the row back with a finding on o; content equal to the model's own latest version
** (mine, from load_mine) counts as unchanged; otherwise a new model version linked to
** request_id. *cap_findings is the capacity of o->findings. Returns 0 or an error code
** kept on the store handle.
*/
static int store_row(rescue_store *st, d_request *r, rescue_draft_outcome *o, const rescue_jnode *c,
                     int i, const rescue_buf *mine, int64_t model_id, int64_t request_id,
                     int *cap_findings) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  sqlite3_stmt *q;
  rescue_row_input in;
  const rescue_jnode *bad = NULL;
  rescue_error e;
  int64_t vid, row_id = 0;
  int k, rc;
  memset(&in, 0, sizeof in);
  memset(&e, 0, sizeof e);
  for (k = 0; k < r->s->n; k++)
    if (r->s->rows[k].pos == r->store_pos[i])
      row_id = r->s->rows[k].row_id;
  if (rescue_row_input_from_json(sc, c, &in, &bad, &e)) {
    /* a type error the lint rules let through: keep the row back, say why */
    char line[1200];
    snprintf(line, sizeof line, "row %d: error: %s", r->store_pos[i], e.msg);
    if (!RESCUE_ALLOC_GROW(o->findings, o->n_findings + 1, *cap_findings) &&
        (o->findings[o->n_findings] = rescue_strdup(line)) != NULL)
      o->n_findings++;
    rescue_row_input_clear(&in);
    return 0;
  }
  {
    int at = r->store_pos[i] - r->from;
    const rescue_buf *m = at >= 0 && at <= r->to - r->from ? &mine[at] : NULL;
    if (m && m->s && m->len == in.content.len && memcmp(m->s, in.content.s, m->len) == 0) {
      rescue_row_input_clear(&in);
      o->rows_unchanged++;
      return 0;
    }
  }
  rc = rescue_store_add_row_version(st, row_id, model_id, "import", &in, NULL, NULL, &vid);
  rescue_row_input_clear(&in);
  if (rc)
    return rc;
  if (!(q = rescue_store_stmt(st, "draft_version_insert")))
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":version_id", vid);
  rescue_bind_int(q, ":request_id", request_id);
  if (sqlite3_step(q) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "recording a model version");
  o->rows_imported++;
  return 0;
}

/*
** Store request idx inside the caller's transaction: its provenance record and one model
** version per accepted row whose content differs from the model's own latest version of
** that row (an identical answer is counted as unchanged and adds nothing to the history).
** A sample whose row set changed since the prompt was built is refused.
*/
int draft_store_in_txn(rescue_store *st, d_run *R, int idx, int64_t model_id) {
  d_request *r = &R->req[idx];
  rescue_draft_outcome *o = &R->out[idx];
  rescue_jdoc *doc = NULL;
  const rescue_jnode *arr = NULL, *c;
  rescue_buf *mine = NULL;
  int64_t request_id = 0;
  int rc, i, cap_findings = o->n_findings; /* o->findings holds at least n_findings */
  if ((rc = check_rowset(st, R, idx)) || (rc = insert_request(st, R, idx, model_id, &request_id)))
    goto end;
  if (r->n_store > 0) {
    rescue_jerror je;
    if (!(doc = rescue_jdoc_new()) ||
        !(arr = rescue_jparse(doc, r->answer.s, r->answer.len, &je))) {
      rc = rescue_seterr(rescue_store_err(st), doc ? RESCUE_EINTERNAL : RESCUE_ENOMEM,
                         "the checked answer does not parse");
      goto end;
    }
    if ((rc = load_mine(st, r, model_id, &mine)))
      goto end;
  }
  for (c = arr ? arr->child : NULL, i = 0; c; c = c->next, i++)
    if ((rc = store_row(st, r, o, c, i, mine, model_id, request_id, &cap_findings)))
      goto end;
  rc = draft_audit(st, R, r, o);
end:
  rescue_jdoc_free(&doc);
  free_mine(&mine, r->to - r->from + 1);
  return rc;
}

/* Store request idx in a transaction of its own (draft_store_in_txn). */
static int store_request(rescue_store *st, d_run *R, int idx, int64_t model_id) {
  rescue_draft_outcome *o = &R->out[idx];
  int rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  if (!(rc = draft_store_in_txn(st, R, idx, model_id)) && !(rc = rescue_store_commit(st)))
    return 0;
  rescue_store_rollback(st);
  o->rows_imported = 0;
  o->rows_unchanged = 0;
  return rc;
}

int draft_check_model(rescue_store *st, const char *name, int64_t *id) {
  sqlite3_stmt *q;
  int rc;
  char role[16] = "";
  if (!name || !*name)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "no model annotator given");
  if (!(q = rescue_store_stmt(st, "annotator_find")))
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":name", name, -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    *id = sqlite3_column_int64(q, 0);
    snprintf(role, sizeof role, "%s", (const char *)sqlite3_column_text(q, 1));
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up an annotator");
  if (rc == SQLITE_DONE)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND,
                         "no annotator named '%s' (register the model with role model first)",
                         name);
  if (strcmp(role, "model") != 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "annotator '%s' has role %s; drafts are written only under an "
                         "annotator with role model",
                         name, role);
  return 0;
}

/*
** The requests of the run into R (a whole sample each, or windows of rows_per_request
** rows), their outcomes "failed" until they are done. RESCUE_ENOMEM or 0.
*/
static int plan_requests(d_run *R, d_sample *samples, int n_samples) {
  const rescue_draft_opts *o = R->o;
  int i, j;
  for (i = 0; i < n_samples; i++) {
    int w = o->rows_per_request > 0 ? o->rows_per_request : samples[i].n;
    for (j = 0; j < samples[i].n; j += w)
      R->n_req++;
  }
  R->req = rescue_calloc((size_t)R->n_req + 1, sizeof *R->req);
  R->out = rescue_calloc((size_t)R->n_req + 1, sizeof *R->out);
  R->finished = rescue_calloc((size_t)R->n_req + 1, sizeof *R->finished);
  if (!R->req || !R->out || !R->finished)
    return RESCUE_ENOMEM;
  R->n_req = 0;
  for (i = 0; i < n_samples; i++) {
    int w = o->rows_per_request > 0 ? o->rows_per_request : samples[i].n;
    for (j = 0; j < samples[i].n; j += w) {
      d_request *r = &R->req[R->n_req];
      r->s = &samples[i];
      r->from = samples[i].rows[j].pos;
      r->to = samples[i].rows[j + w < samples[i].n ? j + w - 1 : samples[i].n - 1].pos;
      R->out[R->n_req].sample_id = rescue_strdup(samples[i].sample_id);
      R->out[R->n_req].row_from = r->from;
      R->out[R->n_req].row_to = r->to;
      R->out[R->n_req].status = "failed";
      R->n_req++;
    }
  }
  return 0;
}

/* Print-only: each request's prompt to o->on_prompt; nothing run, nothing stored. */
static int print_prompts(rescue_store *st, d_run *R) {
  int i, rc;
  for (i = 0; i < R->n_req; i++) {
    rescue_buf p = RESCUE_BUF_INIT;
    if ((rc = build_prompt(R, &R->req[i], &p, rescue_store_err(st)))) {
      rescue_buf_clear(&p);
      return rc;
    }
    R->o->on_prompt(R->o->arg, R->req[i].s->sample_id, R->req[i].from, R->req[i].to, p.s, p.len);
    R->out[i].status = "ok";
    rescue_buf_clear(&p);
  }
  return 0;
}

/*
** The calling thread's side while the workers run: each finished request stored
** (store_request, one transaction each) in the order they finish, its outcome settled
** and reported to o->on_done. When the store refuses a write no new request is taken;
** the first such error is returned.
*/
static int store_finished(rescue_store *st, d_run *R, int64_t model_id) {
  const rescue_draft_opts *o = R->o;
  int stored = 0, rc = 0, i;
  int limit = R->n_req; /* requests that will finish: all, or those taken before a stop */
  while (stored < limit) {
    int idx, src;
    rescue_draft_outcome *out;
    pthread_mutex_lock(&R->mu);
    while (stored >= R->n_finished)
      pthread_cond_wait(&R->cv, &R->mu);
    idx = R->finished[stored];
    pthread_mutex_unlock(&R->mu);
    out = &R->out[idx];
    out->status = out->error                                                    ? "failed"
                  : R->req[idx].n_store < R->req[idx].to - R->req[idx].from + 1 ? "partial"
                                                                                : "ok";
    if (o->answers) {
      /* a shard: the request goes to the answers file, counted as if stored */
      draft_answers_put(R, idx);
      out->rows_imported = R->req[idx].n_store;
    } else if ((src = store_request(st, R, idx, model_id))) {
      /* the store refused: take no new requests, let the running ones finish */
      if (!rc)
        rc = src;
      pthread_mutex_lock(&R->mu);
      limit = R->next;
      R->next = R->n_req;
      pthread_mutex_unlock(&R->mu);
      set_error(out, "not stored: %s", rescue_store_errmsg(st));
    }
    out->rows_kept_back =
        R->req[idx].to - R->req[idx].from + 1 - out->rows_imported - out->rows_unchanged;
    out->status = out->error ? "failed" : out->rows_kept_back ? "partial" : "ok";
    stored++;
    if (o->on_done)
      o->on_done(o->arg, out, stored, R->n_req);
  }
  for (i = limit; i < R->n_req; i++)
    if (!R->req[i].done)
      set_error(&R->out[i], "not run: the run stopped when the store refused a write");
  return rc;
}

/* The report's counts from the outcomes. */
static void tally(const d_run *R, rescue_draft_report *rep) {
  int i;
  for (i = 0; i < R->n_req; i++) {
    rescue_draft_outcome *out = &R->out[i];
    if (strcmp(out->status, "ok") == 0)
      rep->ok++;
    else if (strcmp(out->status, "partial") == 0)
      rep->partial++;
    else
      rep->failed++;
    rep->rows_imported += out->rows_imported;
    rep->rows_unchanged += out->rows_unchanged;
    rep->rows_kept_back += out->rows_kept_back;
  }
}

int rescue_draft(rescue_store *st, const rescue_draft_opts *o, rescue_draft_report *rep) {
  d_run R;
  d_sample *samples = NULL;
  int n_samples = 0, rc, i, n_threads = 0;
  int64_t model_id = 0;
  pthread_t *threads = NULL;
  sigset_t pipe_set, old_set;
  memset(rep, 0, sizeof *rep);
  memset(&R, 0, sizeof R);
  rep->model = o->annotator;
  R.sc = rescue_store_scheme(st);
  R.o = o;
  R.tmpl = o->prompt_template;
  R.tmpl_len = o->prompt_template_len;
  if (!R.tmpl)
    R.tmpl = rescue_draft_default_template(&R.tmpl_len);
  if (!o->on_prompt && (!o->model_cmd || !*o->model_cmd))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "no model command given");
  if ((rc = draft_check_model(st, o->annotator, &model_id)))
    return rc;
  if ((rc = draft_load_samples(st, o, model_id, &samples, &n_samples)))
    goto end;
  if ((rc = plan_requests(&R, samples, n_samples))) {
    rc = rescue_seterr(rescue_store_err(st), rc, NULL);
    goto end;
  }
  rep->n = R.n_req;
  rep->outcomes = R.out;
  rep->requests = R.n_req;
  if (o->on_prompt) { /* print-only: prompts, nothing run, nothing stored */
    rc = print_prompts(st, &R);
    goto end;
  }
  {
    /* a template error fails the run before anything is started */
    rescue_buf p = RESCUE_BUF_INIT;
    rc = build_prompt(&R, &R.req[0], &p, rescue_store_err(st));
    rescue_buf_clear(&p);
    if (rc)
      goto end;
  }
  pthread_mutex_init(&R.mu, NULL);
  pthread_cond_init(&R.cv, NULL);
  n_threads = o->jobs < 1 ? 1 : o->jobs > R.n_req ? R.n_req : o->jobs;
  threads = rescue_calloc((size_t)n_threads, sizeof *threads);
  if (!threads) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end_threads;
  }
  /*
  ** Workers write prompts into pipes of commands that may have exited: with SIGPIPE
  ** blocked in them (they inherit this thread's mask) the write fails with EPIPE instead
  ** of ending the process.
  */
  sigemptyset(&pipe_set);
  sigaddset(&pipe_set, SIGPIPE);
  pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
  for (i = 0; i < n_threads; i++)
    if (pthread_create(&threads[i], NULL, worker, &R)) {
      n_threads = i;
      break;
    }
  pthread_sigmask(SIG_SETMASK, &old_set, NULL);
  if (n_threads == 0) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL, "cannot start a worker thread");
    goto end_threads;
  }
  if (o->answers)
    draft_answers_head(&R);
  rc = store_finished(st, &R, model_id);
  if (o->answers)
    draft_answers_end(&R);
  for (i = 0; i < n_threads; i++)
    pthread_join(threads[i], NULL);
end_threads:
  pthread_mutex_destroy(&R.mu);
  pthread_cond_destroy(&R.cv);
  rescue_free(threads);
  tally(&R, rep);
  if (!rc && (rep->failed || rep->partial))
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EPARTIAL,
                       "of %ld request%s, %ld failed and %ld kept rows back", rep->requests,
                       rep->requests == 1 ? "" : "s", rep->failed, rep->partial);
end:
  if (R.req)
    for (i = 0; i < R.n_req; i++) {
      rescue_buf_clear(&R.req[i].answer);
      rescue_free(R.req[i].store_pos);
    }
  rescue_free(R.req);
  rescue_free(R.finished);
  draft_free_samples(samples, n_samples);
  if (!rep->outcomes)
    rescue_free(R.out);
  return rc;
}

void rescue_draft_report_clear(rescue_draft_report *rep) {
  int i, j;
  if (!rep)
    return;
  for (i = 0; i < rep->n; i++) {
    rescue_draft_outcome *o = &rep->outcomes[i];
    rescue_free(o->sample_id);
    rescue_free(o->error);
    rescue_free(o->prompt_sha256);
    for (j = 0; j < o->n_findings; j++)
      rescue_free(o->findings[j]);
    rescue_free(o->findings);
  }
  rescue_free(rep->outcomes);
  memset(rep, 0, sizeof *rep);
}

void draft_outcome_put(rescue_jw *w, const rescue_draft_outcome *o, const char *const *keys) {
  int j;
  for (; *keys; keys++) {
    const char *k = *keys;
    rescue_jw_key(w, k);
    if (strcmp(k, "status") == 0)
      rescue_jw_str(w, o->status);
    else if (strcmp(k, "attempts") == 0)
      rescue_jw_int(w, o->attempts);
    else if (strcmp(k, "wall_ms") == 0)
      rescue_jw_int(w, o->wall_ms);
    else if (strcmp(k, "exit_status") == 0 && o->attempts)
      rescue_jw_int(w, o->exit_status);
    else if (strcmp(k, "exit_status") == 0)
      rescue_jw_null(w);
    else if (strcmp(k, "error") == 0)
      rescue_jw_str_or_null(w, o->error);
    else if (strcmp(k, "prompt_sha256") == 0)
      rescue_jw_str(w, o->prompt_sha256 ? o->prompt_sha256 : "");
    else if (strcmp(k, "tolerances") == 0)
      rescue_jw_int(w, o->coerced);
    else if (strcmp(k, "findings") == 0) {
      rescue_jw_arr(w);
      for (j = 0; j < o->n_findings; j++)
        rescue_jw_str(w, o->findings[j]);
      rescue_jw_end(w);
    } else
      rescue_jw_null(w); /* not a provenance key: a caller's slip, visible in the output */
  }
}

void rescue_draft_report_json(const rescue_draft_report *rep, rescue_buf *out) {
  static const char *const provenance[] = {"status", "attempts",      "wall_ms", "exit_status",
                                           "error",  "prompt_sha256", NULL};
  static const char *const checks[] = {"tolerances", "findings", NULL};
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "model");
  rescue_jw_str(&w, rep->model ? rep->model : "");
  rescue_jw_key(&w, "requests");
  rescue_jw_int(&w, rep->requests);
  rescue_jw_key(&w, "ok");
  rescue_jw_int(&w, rep->ok);
  rescue_jw_key(&w, "partial");
  rescue_jw_int(&w, rep->partial);
  rescue_jw_key(&w, "failed");
  rescue_jw_int(&w, rep->failed);
  rescue_jw_key(&w, "rows_imported");
  rescue_jw_int(&w, rep->rows_imported);
  rescue_jw_key(&w, "rows_kept_back");
  rescue_jw_int(&w, rep->rows_kept_back);
  rescue_jw_key(&w, "rows_unchanged");
  rescue_jw_int(&w, rep->rows_unchanged);
  rescue_jw_key(&w, "outcomes");
  rescue_jw_arr(&w);
  for (i = 0; i < rep->n; i++) {
    const rescue_draft_outcome *o = &rep->outcomes[i];
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, o->sample_id ? o->sample_id : "");
    rescue_jw_key(&w, "row_from");
    rescue_jw_int(&w, o->row_from);
    rescue_jw_key(&w, "row_to");
    rescue_jw_int(&w, o->row_to);
    draft_outcome_put(&w, o, provenance);
    rescue_jw_key(&w, "rows_imported");
    rescue_jw_int(&w, o->rows_imported);
    rescue_jw_key(&w, "rows_kept_back");
    rescue_jw_int(&w, o->rows_kept_back);
    rescue_jw_key(&w, "rows_unchanged");
    rescue_jw_int(&w, o->rows_unchanged);
    draft_outcome_put(&w, o, checks);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
