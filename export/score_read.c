/*
** score_read.c: reading the gold file and the predictions for `rescue score`: lines,
** gold records, and model replies in every shape the protocols accept.
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_score.h"
#include "intensity_int.h"
#include "prim_int.h"
#include "strmap_int.h"

#include "score_int.h"

/* ---- reading lines ---- */

/* Next line (without its newline) or NULL at the end; *len its length. */
static char *next_line(line_reader *lr, size_t *len) {
  ssize_t n = getline(&lr->buf, &lr->cap, lr->f);
  if (n < 0)
    return NULL;
  lr->lineno++;
  while (n > 0 && (lr->buf[n - 1] == '\n' || lr->buf[n - 1] == '\r'))
    lr->buf[--n] = 0;
  *len = (size_t)n;
  return lr->buf;
}

static int blank(const char *s, size_t n) {
  while (n && isspace((unsigned char)*s))
    s++, n--;
  return n == 0;
}

/* ---- gold ---- */

static const char *const gold_keys[RESCUE_TASK_COUNT] = {
    "gold_should_speak",     "gold_relation_pattern", "gold_support_target",
    "gold_support_strategy", "gold_intensity_score",  "gold_viewpoints"};
static const char *const cand_keys[RESCUE_TASK_COUNT] = {
    NULL, "candidate_relation_labels", "candidate_target_labels", "candidate_strategy_labels", NULL,
    NULL};
const char *const score_pred_keys[RESCUE_TASK_COUNT] = {"should_speak",
                                                        "relation_top3",
                                                        "target_top3",
                                                        "strategy_top3",
                                                        "predicted_intensity_score",
                                                        "predicted_viewpoints"};

#define BAD(lr, col, ...) bad_input(err, (lr)->path, (lr)->lineno, col, __VA_ARGS__)

static int bad_input(rescue_error *err, const char *path, long line, long col, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
static int bad_input(rescue_error *err, const char *path, long line, long col, const char *fmt,
                     ...) {
  char msg[700];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%ld: %s", path, line, col, msg);
}

/* A string member, or NULL when absent or not a string. */
static const char *need_string(const rescue_jnode *o, const char *key) {
  const rescue_jnode *v = rescue_jget(o, key);
  return v && v->type == RESCUE_JSTRING ? v->s : NULL;
}

/* Intern the candidate list of a gold record; its index, -2 out of memory, -3 not strings. */
static int intern_list(rescue_score_report *r, const rescue_jnode *arr, rescue_buf *key) {
  const rescue_jnode *x;
  int id, *labels, i;
  rescue_buf_reset(key);
  for (x = arr->child; x; x = x->next) {
    if (x->type != RESCUE_JSTRING || memchr(x->s, 1, x->len))
      return -3;
    rescue_buf_putn(key, x->s, (size_t)x->len + 1);
  }
  rescue_buf_putc(key, 1); /* non-empty key even for an empty list */
  if (!rescue_buf_ok(key))
    return -2;
  id = score_intern(&r->list_keys, key->s, key->len, 0);
  if (id >= 0)
    return id;
  id = score_intern(&r->list_keys, key->s, key->len, 1);
  if (id < 0)
    return id;
  if (RESCUE_ALLOC_GROW(r->lists, r->nlists + 1, r->caplists))
    return -2;
  labels = rescue_calloc(arr->len + 1, sizeof *labels);
  if (!labels)
    return -2;
  for (x = arr->child, i = 0; x; x = x->next, i++) {
    int l = score_intern(&r->labels, x->s, x->len, 1);
    if (l < 0) {
      rescue_free(labels);
      return -2;
    }
    labels[i] = l;
  }
  r->lists[r->nlists].n = (int)arr->len;
  r->lists[r->nlists].labels = labels;
  return r->nlists++;
}

/* Check one gold record and append it to r->v. */
static int gold_record(rescue_score_report *r, line_reader *lr, const rescue_jnode *o,
                       rescue_buf *key, rescue_error *err) {
  const char *tname = rescue_task_name(r->task);
  const char *id, *sample, *couple, *scen, *task;
  const rescue_jnode *g;
  rescue_task other;
  inst *in;
  int x;
  if (o->type != RESCUE_JOBJECT)
    return BAD(lr, 1, "expected a task record (a JSON object)");
  if (!(task = need_string(o, "task")))
    return BAD(lr, 1, "record has no \"task\": not a task dataset file");
  if (strcmp(task, tname) != 0) {
    if (rescue_task_parse(task, &other) == 0)
      return BAD(lr, 1, "this is a %s record, not %s", task, tname),
             rescue_err_recode(err, RESCUE_EOTHERTASK, task);
    return BAD(lr, 1, "this is a '%s' record, not %s", task, tname);
  }
  if (!(id = need_string(o, "instance_id")) || !*id)
    return BAD(lr, 1, "record has no instance_id");
  if (!(sample = need_string(o, "sample_id")) || !(couple = need_string(o, "couple")) ||
      !(scen = need_string(o, "scenario")))
    return BAD(lr, 1, "record lacks sample_id, couple or scenario");
  if (!(g = rescue_jget(o, gold_keys[r->task])))
    return BAD(lr, 1,
               "record has no %s: a blind test file holds no answers; score against its "
               "answer file (<task>.answers.jsonl or <task>/<split>.answers.jsonl)",
               gold_keys[r->task]);
  if (RESCUE_ALLOC_GROW(r->v, r->n + 1, r->cap))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  in = &r->v[r->n];
  memset(in, 0, sizeof *in);
  x = score_intern(&r->ids, id, strlen(id), 0);
  if (x >= 0)
    return BAD(lr, 1, "instance_id '%s' appears twice", id);
  if ((x = score_intern(&r->ids, id, strlen(id), 1)) < 0 ||
      (in->sample = score_intern(&r->samples, sample, strlen(sample), 1)) < 0 ||
      (in->couple = score_intern(&r->couples, couple, strlen(couple), 1)) < 0)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  in->family = strcmp(scen, "family") == 0;
  switch (r->task) {
  case RESCUE_TASK_ITP:
    if (g->type != RESCUE_JSTRING || (strcmp(g->s, "yes") && strcmp(g->s, "no")))
      return BAD(lr, 1, "gold_should_speak must be \"yes\" or \"no\"");
    in->gold = strcmp(g->s, "yes") == 0;
    break;
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP: {
    const rescue_jnode *cl = rescue_jget(o, cand_keys[r->task]);
    if (g->type != RESCUE_JSTRING || !g->len)
      return BAD(lr, 1, "%s must be a non-empty string", gold_keys[r->task]);
    if (!cl || cl->type != RESCUE_JARRAY)
      return BAD(lr, 1, "record has no %s list", cand_keys[r->task]);
    if ((in->gold = score_intern(&r->labels, g->s, g->len, 1)) < 0)
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    in->cands = intern_list(r, cl, key);
    if (in->cands == -3)
      return BAD(lr, 1, "%s must be a list of labels", cand_keys[r->task]);
    if (in->cands < 0)
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    break;
  }
  case RESCUE_TASK_ER:
    if (g->type != RESCUE_JNUMBER || !g->is_int || g->num < 0 || g->num > 10)
      return BAD(lr, 1, "gold_intensity_score must be a whole number from 0 to 10");
    in->gold = (int)g->num;
    break;
  case RESCUE_TASK_VP: break;
  }
  r->n++;
  return 0;
}

/* Read the gold file into r->v (strict JSON, one record per line). */
int score_read_gold(rescue_score_report *r, line_reader *lr, rescue_error *err) {
  rescue_buf key = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  char *line;
  size_t len;
  int rc = 0;
  if (!doc)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  while (rc == 0 && (line = next_line(lr, &len)) != NULL) {
    rescue_jerror je;
    const rescue_jnode *o;
    if (blank(line, len))
      continue;
    if (!(o = rescue_jparse(doc, line, len, &je))) {
      long l, c;
      if (strcmp(je.msg, "out of memory") == 0) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        break;
      }
      rescue_jposition(line, len, je.offset, &l, &c);
      rc = BAD(lr, c, "%s", je.msg);
      break;
    }
    rc = gold_record(r, lr, o, &key, err);
  }
  if (rc == 0 && ferror(lr->f))
    rc = rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", lr->path, strerror(errno));
  rescue_buf_clear(&key);
  rescue_jdoc_free(&doc);
  return rc;
}

/* ---- predictions ---- */

/* Parse with the reader's options; a failed allocation is remembered in r->oom. */
static const rescue_jnode *jparse(rescue_score_report *r, rescue_jdoc *doc, const char *s, size_t n,
                                  int flags, rescue_jerror *je) {
  rescue_jerror local;
  const rescue_jnode *root;
  if (!je)
    je = &local;
  root = rescue_jparse_ex(doc, s, n, flags, NULL, je);
  if (!root && strcmp(je->msg, "out of memory") == 0)
    r->oom = 1;
  return root;
}

static int handle_value(rescue_score_report *r, const rescue_jnode *v, int depth,
                        const rescue_jnode *inh);
static int handle_obj(rescue_score_report *r, const rescue_jnode *o, int depth,
                      const rescue_jnode *inh);

/* The id member of a prediction object, or NULL. */
static const rescue_jnode *id_node(const rescue_jnode *o) {
  static const char *const id_keys[] = {"instance_id", "candidate_id", "turn_id", "checkpoint_id"};
  const rescue_jnode *v = NULL;
  size_t k;
  for (k = 0; k < sizeof id_keys / sizeof id_keys[0] && !v; k++)
    v = rescue_jget(o, id_keys[k]);
  return v;
}

/*
** The instance a prediction object is for: its cleaned id, else the id inherited from
** an enclosing object (a response field's owner), else, when the gold file holds one
** instance, that one (the scripts' one-instance rule). -1 when none (counted).
*/
static long item_instance(rescue_score_report *r, const rescue_jnode *o, const rescue_jnode *inh) {
  int x;
  if (!score_clean(r, id_node(o)) && inh)
    score_clean(r, inh);
  if (!r->tmp.len) {
    if (r->n == 1) {
      r->c.one_instance++;
      return 0;
    }
    r->c.no_id++;
    return -1;
  }
  x = score_intern(&r->ids, r->tmp.s, r->tmp.len, 0);
  if (x < 0) {
    r->c.unknown_ids++;
    if (strstr(r->tmp.s, "__after_row"))
      r->ids_after_row++;
    else if (strstr(r->tmp.s, "__row"))
      r->ids_row++;
    return -1;
  }
  return x; /* ids were interned in gold order: the id is the instance index */
}

/* Mark the prediction of instance ix unusable, with the reason listed in the report. */
static void set_invalid(rescue_score_report *r, long ix, const char *why) {
  r->v[ix].invalid = 1;
  score_problem_add(r, ix, "%s", why);
}

/* One top-3 entry (already cleaned into r->tmp): kept when a new member of the list;
   a non-member is counted as a dropped label when count_dropped. */
static void top3_entry(rescue_score_report *r, inst *in, int *got, int count_dropped) {
  const cand_list *cl = &r->lists[in->cands];
  int l, i, member = 0;
  if (!r->tmp.len)
    return;
  l = score_intern(&r->labels, r->tmp.s, r->tmp.len, 0);
  for (i = 0; l >= 0 && i < *got; i++)
    if (in->pred[i] == l)
      return;
  for (i = 0; l >= 0 && i < cl->n; i++)
    member |= cl->labels[i] == l;
  if (!member) {
    r->c.dropped_labels += count_dropped;
    return;
  }
  if (*got < 3)
    in->pred[(*got)++] = l;
}

/*
** A top-3 field (RPP, STP, SSP) into in->pred: entries cleaned, empties dropped, kept
** when a member of the instance's candidate list, duplicates dropped; RPP pads with the
** taxonomy in order, STP and SSP with nothing (""); three at most. Ill-typed fields as
** the protocol says (the README's table).
*/
static void parse_top3(rescue_score_report *r, long ix, const rescue_jnode *v) {
  inst *in = &r->v[ix];
  const cand_list *cl = &r->lists[in->cands];
  const rescue_jnode *c;
  int got = 0, i, j;
  const char *field = score_pred_keys[r->task];
  char why[160];
  in->pred[0] = in->pred[1] = in->pred[2] = -1;
  if (!RELEASE(r) && score_nonfinite(v)) {
    snprintf(why, sizeof why, "%s holds NaN or Infinity", field);
    set_invalid(r, ix, why);
    return;
  }
  switch (v ? v->type : RESCUE_JNULL) {
  case RESCUE_JARRAY:
    for (c = v->child; c; c = c->next) {
      score_clean(r, c);
      top3_entry(r, in, &got, 1);
    }
    break;
  case RESCUE_JSTRING:
    r->c.coerced++;
    if (RELEASE(r)) { /* Python iterates a string by characters */
      const unsigned char *p = (const unsigned char *)v->s, *e = p + v->len;
      while (p < e) {
        int n = rescue_utf8_step(p, e, NULL);
        if (!n) /* cannot happen: the JSON reader (corpus/json.c) keeps strings UTF-8 */
          n = 1;
        rescue_jnode ch;
        memset(&ch, 0, sizeof ch);
        ch.type = RESCUE_JSTRING;
        ch.s = (const char *)p;
        ch.len = (uint32_t)n;
        score_clean(r, &ch);
        top3_entry(r, in, &got, 0); /* characters are not labels: not counted as dropped */
        p += n;
      }
    } else {
      score_clean(r, v);
      top3_entry(r, in, &got, 1);
    }
    break;
  case RESCUE_JOBJECT:
    if (!RELEASE(r)) {
      snprintf(why, sizeof why, "%s is an object, not a list", field);
      set_invalid(r, ix, why);
      return;
    }
    r->c.coerced++; /* Python iterates a dict by its keys */
    for (c = v->child; c; c = c->next) {
      rescue_buf_reset(&r->tmp);
      rescue_buf_putn(&r->tmp, "", 0);
      {
        size_t a, e;
        rescue_pystrip(c->key, c->keylen, &a, &e);
        rescue_buf_putn(&r->tmp, c->key + a, e - a);
      }
      top3_entry(r, in, &got, 1);
    }
    break;
  case RESCUE_JNULL:
    if (RELEASE(r) && r->task == RESCUE_TASK_RPP)
      break; /* padded below */
    if (RELEASE(r)) {
      in->stop = 1;
      snprintf(why, sizeof why, "%s is %s: the release scripts stop here (TypeError)", field,
               rescue_jtype_name(v));
    } else {
      snprintf(why, sizeof why, "%s is %s", field, rescue_jtype_name(v));
    }
    set_invalid(r, ix, why);
    return;
  case RESCUE_JNUMBER:
  case RESCUE_JTRUE:
  case RESCUE_JFALSE:
    if (RELEASE(r)) {
      in->stop = 1;
      snprintf(why, sizeof why, "%s is %s: the release scripts stop here (TypeError)", field,
               rescue_jtype_name(v));
    } else {
      snprintf(why, sizeof why, "%s is %s, not a list", field, rescue_jtype_name(v));
    }
    set_invalid(r, ix, why);
    return;
  }
  if (r->task == RESCUE_TASK_RPP)
    for (i = 0; got < 3 && i < cl->n; i++) {
      int present = 0;
      for (j = 0; j < got; j++)
        present |= in->pred[j] == cl->labels[i];
      if (!present)
        in->pred[got++] = cl->labels[i];
    }
}

/* Take one prediction object for its instance (the last one for an id counts). */
static void take_item(rescue_score_report *r, const rescue_jnode *o, const rescue_jnode *inh) {
  const rescue_jnode *v;
  long ix = item_instance(r, o, inh);
  inst *in;
  char why[160];
  if (ix < 0)
    return;
  in = &r->v[ix];
  if (in->state != ST_NONE)
    r->c.duplicates++;
  in->state = ST_PRED;
  in->invalid = in->stop = 0;
  in->pred[0] = in->pred[1] = in->pred[2] = -1;
  v = rescue_jget(o, score_pred_keys[r->task]);
  switch (r->task) {
  case RESCUE_TASK_ITP: {
    int p;
    if (!RELEASE(r) && score_nonfinite(v)) {
      set_invalid(r, ix, "should_speak holds NaN or Infinity");
      break;
    }
    if (v && (v->type == RESCUE_JARRAY || v->type == RESCUE_JOBJECT))
      r->c.coerced++;
    p = score_parse_should_speak(r, v);
    if (p < 0) {
      snprintf(why, sizeof why,
               "should_speak is %s that reads as neither yes nor no (counted as no)",
               rescue_jtype_name(v));
      set_invalid(r, ix, why);
    }
    in->pred[0] = p > 0;
    break;
  }
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP: parse_top3(r, ix, v); break;
  case RESCUE_TASK_ER: {
    const char *w;
    in->pred[0] = rescue_intensity(v, &r->tmp, &w);
    if (in->pred[0] < 0) {
      snprintf(why, sizeof why, "predicted_intensity_score is %s", w);
      set_invalid(r, ix, why);
    }
    break;
  }
  case RESCUE_TASK_VP: break;
  }
}

/* Is the object's prediction field set the way the scripts require of a bare object? */
static int bare_taken(rescue_score_report *r, const rescue_jnode *o, int *present) {
  if (r->task == RESCUE_TASK_ER) {
    const rescue_jnode *e = rescue_jget(o, "predicted_internal_emotion");
    const rescue_jnode *i = rescue_jget(o, score_pred_keys[r->task]);
    *present = e || i;
    return score_clean(r, e) > 0 || (i && i->type != RESCUE_JNULL);
  }
  *present = rescue_jget(o, score_pred_keys[r->task]) != NULL;
  return score_truthy(rescue_jget(o, score_pred_keys[r->task]));
}

/* A reply found inside prose: an object, or a list holding one (rescue_jfind's test). */
static int holds_object(const rescue_jnode *root, void *ctx) {
  const rescue_jnode *c;
  (void)ctx;
  if (root->type == RESCUE_JOBJECT)
    return 1;
  for (c = root->child; c; c = c->next)
    if (c->type == RESCUE_JOBJECT)
      return 1;
  return 0;
}

/*
** Parse the text of a model reply: surrounding whitespace and a ```json or ``` fence
** stripped, the whole text read as JSON; failing that, the first '{' or '[' from which
** an object (or a list holding one) reads (rescue_jfind, with its bound on the work). The tree lives in the document of `depth`.
** A list is returned whole (the caller applies the protocol's rule); the rescue
** protocol also returns a JSON string (a reply inside a reply). NULL when none.
*/
static const rescue_jnode *find_reply(rescue_score_report *r, const char *s, size_t len,
                                      int depth) {
  rescue_jdoc *doc = score_doc_at(r, depth);
  const rescue_jnode *root, *c;
  rescue_jfind_stats st;
  const char *t, *e;
  size_t a, b;
  int fenced = 0;
  if (!doc) {
    r->oom = 1;
    return NULL;
  }
  rescue_pystrip(s, len, &a, &b);
  t = s + a;
  e = s + b;
  if (e - t >= 7 && strncasecmp(t, "```json", 7) == 0)
    t += 7, fenced = 1;
  else if (e - t >= 3 && memcmp(t, "```", 3) == 0)
    t += 3, fenced = 1;
  if (e - t >= 3 && memcmp(e - 3, "```", 3) == 0)
    e -= 3, fenced = 1;
  rescue_pystrip(t, (size_t)(e - t), &a, &b);
  e = t + b;
  t += a;
  root = jparse(r, doc, t, (size_t)(e - t), RESCUE_JPARSE_PYTHON, NULL);
  if (root) {
    if (root->type == RESCUE_JOBJECT || (root->type == RESCUE_JSTRING && !RELEASE(r))) {
      r->c.recovered += fenced;
      return root;
    }
    if (root->type == RESCUE_JARRAY)
      for (c = root->child; c; c = c->next)
        if (c->type == RESCUE_JOBJECT || (c->type == RESCUE_JSTRING && !RELEASE(r))) {
          r->c.recovered += fenced;
          return root;
        }
  }
  root = rescue_jfind(doc, t, (size_t)(e - t), RESCUE_JPARSE_PYTHON, holds_object, NULL, &st);
  if (st.oom)
    r->oom = 1;
  r->c.recovered += root != NULL;
  return root;
}

/* A string that should hold a reply (a line, an item, a field): 1 when something was read. */
static int handle_reply_text(rescue_score_report *r, const rescue_jnode *str, int depth,
                             const rescue_jnode *inh) {
  const rescue_jnode *inner = find_reply(r, str->s, str->len, depth);
  return inner ? handle_value(r, inner, depth, inh) : 0;
}

static int handle_value(rescue_score_report *r, const rescue_jnode *v, int depth,
                        const rescue_jnode *inh) {
  const rescue_jnode *c;
  int found = 0;
  switch (v->type) {
  case RESCUE_JOBJECT: return handle_obj(r, v, depth, inh);
  case RESCUE_JARRAY:
    for (c = v->child; c; c = c->next) {
      if (RELEASE(r)) { /* the first object of a list reply only */
        if (c->type != RESCUE_JOBJECT)
          continue;
        if (found) {
          r->list_tail++;
          r->c.dropped_items++;
          continue;
        }
        found = handle_obj(r, c, depth, inh) || 1;
        continue;
      }
      if (c->type == RESCUE_JOBJECT) {
        found |= handle_obj(r, c, depth, inh);
      } else if (c->type == RESCUE_JSTRING) {
        r->c.reply_strings++;
        found |= handle_reply_text(r, c, depth + 1, inh);
      } else {
        r->other_values++;
        r->c.dropped_items++;
      }
    }
    return found;
  case RESCUE_JSTRING:
    if (RELEASE(r))
      return 0;
    r->c.reply_strings++;
    return handle_reply_text(r, v, depth + 1, inh);
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JNUMBER: return 0;
  }
  return 0;
}

/* The string items of a "predictions" list. */
static void string_item(rescue_score_report *r, const rescue_jnode *x, int depth,
                        const rescue_jnode *inh) {
  if (RELEASE(r)) {
    /* the scripts parse them (plain json.loads, no fences) in SSP and ER only */
    rescue_jdoc *doc;
    const rescue_jnode *o;
    if (r->task != RESCUE_TASK_SSP && r->task != RESCUE_TASK_ER) {
      r->string_dropped++;
      r->c.dropped_items++;
      return;
    }
    if (!(doc = score_doc_at(r, depth + 1))) {
      r->oom = 1;
      return;
    }
    o = jparse(r, doc, x->s, x->len, RESCUE_JPARSE_PYTHON, NULL);
    if (o && o->type == RESCUE_JOBJECT) {
      r->c.string_items++;
      take_item(r, o, inh);
    } else {
      r->string_dropped++;
      r->c.dropped_items++;
    }
    return;
  }
  r->c.string_items++;
  if (!handle_reply_text(r, x, depth + 1, inh)) {
    r->c.dropped_items++;
    score_problem_add(r, -1, "a string item of \"predictions\" holds no prediction object");
  }
}

static int handle_obj(rescue_score_report *r, const rescue_jnode *o, int depth,
                      const rescue_jnode *inh) {
  static const char *const reply_keys[] = {"response", "output", "text"};
  const rescue_jnode *p = rescue_jget(o, "predictions"), *own_id = id_node(o), *x;
  const char *tk;
  rescue_task t;
  size_t k;
  int present;
  /* what the object looks like, for the wrong-task check */
  if (rescue_jget(o, score_pred_keys[r->task]))
    r->own_field++;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (t != r->task && rescue_jget(o, score_pred_keys[t]))
      r->other_field[t]++;
  if ((tk = need_string(o, "task")) && rescue_task_parse(tk, &t) == 0 && t != r->task)
    r->other_task_key[t]++;
  if (own_id && score_truthy(own_id))
    inh = own_id;
  if (p && p->type == RESCUE_JARRAY && p->len) {
    for (x = p->child; x; x = x->next) {
      if (x->type == RESCUE_JOBJECT) {
        take_item(r, x, inh);
      } else if (x->type == RESCUE_JSTRING) {
        string_item(r, x, depth, inh);
      } else {
        r->other_values++;
        r->c.dropped_items++;
      }
    }
    return 1;
  }
  if (p && p->type == RESCUE_JOBJECT && p->len) {
    take_item(r, p, inh);
    return 1;
  }
  if (bare_taken(r, o, &present)) {
    take_item(r, o, inh);
    return 1;
  }
  if (present) { /* an empty answer never replaces an earlier one */
    long ix = item_instance(r, o, inh);
    if (ix >= 0 && r->v[ix].state == ST_NONE)
      r->v[ix].state = ST_EMPTY;
    return 1;
  }
  if (!RELEASE(r))
    for (k = 0; k < sizeof reply_keys / sizeof reply_keys[0]; k++) {
      const rescue_jnode *f = rescue_jget(o, reply_keys[k]);
      long ix;
      if (!f || (f->type != RESCUE_JSTRING && f->type != RESCUE_JOBJECT))
        continue;
      r->c.reply_fields++;
      if (f->type == RESCUE_JOBJECT ? handle_obj(r, f, depth, inh)
                                    : handle_reply_text(r, f, depth + 1, inh))
        return 1;
      if ((ix = item_instance(r, o, inh)) < 0)
        return 0;
      if (r->v[ix].state != ST_NONE)
        r->c.duplicates++;
      r->v[ix].state = ST_PRED;
      r->v[ix].stop = 0;
      r->v[ix].pred[0] = r->v[ix].pred[1] = r->v[ix].pred[2] = -1;
      set_invalid(r, ix, "the reply text holds no prediction object");
      return 1;
    }
  if (own_id && score_truthy(own_id)) {
    long ix = item_instance(r, o, inh);
    if (ix < 0)
      return 1;
    if (RELEASE(r)) { /* the scripts do not take it: the instance stays without a prediction */
      r->c.dropped_items++;
      return 1;
    }
    if (r->v[ix].state != ST_NONE)
      r->c.duplicates++;
    r->v[ix].state = ST_PRED;
    r->v[ix].stop = 0;
    r->v[ix].pred[0] = r->v[ix].pred[1] = r->v[ix].pred[2] = -1;
    {
      char why[120];
      snprintf(why, sizeof why, "no \"%s\" in the prediction", score_pred_keys[r->task]);
      set_invalid(r, ix, why);
    }
    return 1;
  }
  return 0;
}

/* One line of the predictions file: one model reply. */
static void handle_line(rescue_score_report *r, const char *line, size_t len) {
  rescue_jdoc *doc = score_doc_at(r, 0);
  const rescue_jnode *root, *inner;
  rescue_jerror je;
  int found = 0;
  if (!doc) {
    r->oom = 1;
    return;
  }
  root = jparse(r, doc, line, len, RESCUE_JPARSE_PYTHON, &je);
  if (r->oom)
    return;
  if (root && root->type == RESCUE_JSTRING) {
    r->c.reply_strings++;
    if (!(inner = find_reply(r, root->s, root->len, 1))) {
      r->c.invalid_lines++;
      score_problem_add(r, -1, "a reply string without a JSON object");
      return;
    }
    found = handle_value(r, inner, 1, NULL);
  } else if (root && (root->type == RESCUE_JOBJECT || root->type == RESCUE_JARRAY)) {
    found = handle_value(r, root, 0, NULL);
  } else if (root) {
    r->c.invalid_lines++;
    score_problem_add(r, -1, "%s, not a prediction object", rescue_jtype_name(root));
    return;
  } else {
    long l, c;
    char msg[200];
    rescue_jposition(line, len, je.offset, &l, &c);
    snprintf(msg, sizeof msg, "column %ld: %s", c, je.msg);
    if (!(inner = find_reply(r, line, len, 0))) {
      r->c.invalid_lines++;
      score_problem_add(r, -1, "no JSON object (%s)", msg);
      return;
    }
    found = handle_value(r, inner, 0, NULL);
  }
  if (!found) {
    r->c.invalid_lines++;
    score_problem_add(r, -1, "no prediction (an object with an id and \"%s\", or \"predictions\")",
                      score_pred_keys[r->task]);
  }
}

int score_read_predictions(rescue_score_report *r, line_reader *lr, rescue_error *err) {
  char *line;
  size_t len;
  while ((line = next_line(lr, &len)) != NULL) {
    if (blank(line, len))
      continue;
    r->lineno = lr->lineno;
    handle_line(r, line, len);
    if (r->oom || !rescue_buf_ok(&r->tmp))
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  if (ferror(lr->f))
    return rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", lr->path, strerror(errno));
  return 0;
}
