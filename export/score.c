/*
** score.c: `rescue score`: model predictions against an exported task file, under the
** `release` protocol (the benchmark scripts' arithmetic) or the `rescue` one (the
** default). Both files are read one line at a time with the project's JSON reader (the
** gold strictly, the predictions as Python's json module would); the report keeps a few
** integers per instance, never the records.
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
#include "strmap_int.h"

/* ---- interned strings ---- */

/*
** Each table (instance ids, samples, couples, labels, candidate-list keys) is the library's
** string table with its own copies of the keys: an id is the key's entry number, in the
** order first seen, and tab_s gives its NUL-terminated text.
*/
static int tab_n(const rescue_strmap *t) { return (int)rescue_strmap_count(t); }
static const char *tab_s(const rescue_strmap *t, int i) {
  return rescue_strmap_key(t, (uint32_t)i);
}

/* Id of s (len bytes; list keys hold NULs); with create, adds it. -1 absent, -2 out of memory. */
static int intern(rescue_strmap *t, const char *s, size_t len, int create) {
  int64_t i = create ? rescue_strmap_put(t, s, len, 0, NULL) : rescue_strmap_find(t, s, len);
  if (i > INT_MAX - 1)
    return -2;
  return i >= 0 ? (int)i : create ? -2 : -1;
}

/* ---- the report ---- */

typedef struct pair_count {
  int gold, pred; /* label ids (-1: none) or, for ER, intensities */
  long count;
} pair_count;

typedef struct acc {
  long n;
  long tp, fp, tn, fn; /* ITP */
  long r[3];           /* rank tasks: hits at 1, 2, 3 */
  double rr;           /* sum of reciprocal ranks */
  long scored, exact;  /* ER */
  double match, abs_err;
  /* RPP top-1 per label, over label ids; in_tax marks the taxonomy of the group */
  long *ltp, *lfp, *lfn, *lsup;
  unsigned char *in_tax;
  int nlab;
} acc;

enum { ST_NONE, ST_PRED, ST_EMPTY };

typedef struct inst {
  int sample, couple, family;
  int gold;              /* ITP 1/0; label id; ER intensity */
  int cands;             /* candidate list (rank tasks) */
  unsigned char state;   /* ST_* */
  unsigned char invalid; /* the prediction taken cannot be used */
  unsigned char stop;    /* release: the scripts stop with an error on this prediction */
  int pred[3];           /* ITP: pred[0] 1/0; rank: label ids or -1; ER: intensity */
} inst;

typedef struct cand_list {
  int n;
  int *labels;
} cand_list;

/* An invalid line, or an invalid prediction of an instance, with its line number. */
typedef struct problem {
  long line;
  long inst; /* instance index, or -1 for a line */
  char *reason;
} problem;

struct rescue_score_report {
  rescue_task task;
  rescue_score_protocol proto;
  char *gold_path, *pred_path;
  rescue_strmap ids, samples, couples, labels, list_keys;
  inst *v;
  long n, cap;
  cand_list *lists;
  int nlists, caplists;
  rescue_score_counts c;
  unsigned char *failed; /* ER release: per sample */
  acc overall, scen[2];
  acc *by_couple, *by_sample;
  pair_count *conf;
  int nconf, capconf;
  problem *probs;
  long nprobs, capprobs;
  long stops_missing, stops_type; /* release: why the scripts would stop */
  long list_tail, string_dropped, other_values;
  /* wrong-task detection */
  long own_field, other_field[RESCUE_TASK_COUNT], other_task_key[RESCUE_TASK_COUNT];
  long ids_after_row, ids_row;
  /* reading */
  rescue_jdoc **docs;
  int ndocs;
  rescue_buf tmp;
  long lineno;
  int oom;
};

static void acc_free(acc *a) {
  rescue_free(a->ltp);
  rescue_free(a->lfp);
  rescue_free(a->lfn);
  rescue_free(a->lsup);
  rescue_free(a->in_tax);
}

void rescue_score_free(rescue_score_report **rp) {
  rescue_score_report *r = rp ? *rp : NULL;
  long i;
  if (!r)
    return;
  rescue_free(r->gold_path);
  rescue_free(r->pred_path);
  /* the per-couple and per-sample tallies first: their counts live in the tables below */
  for (i = 0; r->by_couple && i < tab_n(&r->couples); i++)
    acc_free(&r->by_couple[i]);
  for (i = 0; r->by_sample && i < tab_n(&r->samples); i++)
    acc_free(&r->by_sample[i]);
  rescue_strmap_clear(&r->ids);
  rescue_strmap_clear(&r->samples);
  rescue_strmap_clear(&r->couples);
  rescue_strmap_clear(&r->labels);
  rescue_strmap_clear(&r->list_keys);
  rescue_free(r->v);
  for (i = 0; i < r->nlists; i++)
    rescue_free(r->lists[i].labels);
  rescue_free(r->lists);
  rescue_free(r->failed);
  acc_free(&r->overall);
  acc_free(&r->scen[0]);
  acc_free(&r->scen[1]);
  rescue_free(r->by_couple);
  rescue_free(r->by_sample);
  rescue_free(r->conf);
  for (i = 0; i < r->nprobs; i++)
    rescue_free(r->probs[i].reason);
  rescue_free(r->probs);
  for (i = 0; i < r->ndocs; i++)
    rescue_jdoc_free(&r->docs[i]);
  rescue_free(r->docs);
  rescue_buf_clear(&r->tmp);
  rescue_free(r);
  *rp = NULL;
}

const char *rescue_score_protocol_name(rescue_score_protocol p) {
  switch (p) {
  case RESCUE_PROTOCOL_RESCUE: return "rescue";
  case RESCUE_PROTOCOL_RELEASE: return "release";
  }
  return "?";
}

int rescue_score_protocol_parse(const char *s, rescue_score_protocol *out) {
  if (s && strcmp(s, "rescue") == 0)
    *out = RESCUE_PROTOCOL_RESCUE;
  else if (s && strcmp(s, "release") == 0)
    *out = RESCUE_PROTOCOL_RELEASE;
  else
    return RESCUE_EINVAL;
  return 0;
}

#define RELEASE(r) ((r)->proto == RESCUE_PROTOCOL_RELEASE)

/* Record a problem (reason formatted); a failed allocation is remembered in r->oom. */
static void problem_add(rescue_score_report *r, long inst_ix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void problem_add(rescue_score_report *r, long inst_ix, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  if (r->nprobs == r->capprobs) {
    long nc = r->capprobs ? r->capprobs * 2 : 16;
    problem *np = rescue_realloc(r->probs, (size_t)nc * sizeof *np);
    if (!np) {
      r->oom = 1;
      return;
    }
    r->probs = np;
    r->capprobs = nc;
  }
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (!(r->probs[r->nprobs].reason = rescue_strdup(msg))) {
    r->oom = 1;
    return;
  }
  r->probs[r->nprobs].line = r->lineno;
  r->probs[r->nprobs].inst = inst_ix;
  r->nprobs++;
}

/* The parse document of nesting level depth (a reply inside a reply gets its own). */
static rescue_jdoc *doc_at(rescue_score_report *r, int depth) {
  if (depth >= r->ndocs) {
    int nn = depth + 4, i;
    rescue_jdoc **nd = rescue_realloc(r->docs, (size_t)nn * sizeof *nd);
    if (!nd)
      return NULL;
    for (i = r->ndocs; i < nn; i++)
      nd[i] = NULL;
    r->docs = nd;
    r->ndocs = nn;
  }
  if (!r->docs[depth])
    r->docs[depth] = rescue_jdoc_new();
  return r->docs[depth];
}

/* ---- values ---- */

/* The one cleaning rule (rescue_jclean) into r->tmp, reset first; returns the length. */
static size_t clean(rescue_score_report *r, const rescue_jnode *v) {
  rescue_buf_reset(&r->tmp);
  rescue_buf_putn(&r->tmp, "", 0);
  return rescue_jclean(&r->tmp, v);
}

/* Python truthiness of a value (absent: false). */
static int truthy(const rescue_jnode *v) {
  if (!v)
    return 0;
  switch (v->type) {
  case RESCUE_JNULL:
  case RESCUE_JFALSE: return 0;
  case RESCUE_JTRUE: return 1;
  case RESCUE_JNUMBER: return v->num != 0;
  case RESCUE_JSTRING:
  case RESCUE_JARRAY:
  case RESCUE_JOBJECT: return v->len > 0;
  }
  return 0;
}

/* A NaN or an infinity anywhere in v. */
static int nonfinite(const rescue_jnode *v) {
  const rescue_jnode *c;
  if (!v)
    return 0;
  if (v->type == RESCUE_JNUMBER)
    return !isfinite(v->num);
  if (v->type == RESCUE_JARRAY || v->type == RESCUE_JOBJECT)
    for (c = v->child; c; c = c->next)
      if (nonfinite(c))
        return 1;
  return 0;
}

static const char *type_name(const rescue_jnode *v) {
  if (!v)
    return "absent";
  switch (v->type) {
  case RESCUE_JNULL: return "null";
  case RESCUE_JFALSE:
  case RESCUE_JTRUE: return "a boolean";
  case RESCUE_JNUMBER: return "a number";
  case RESCUE_JSTRING: return "a string";
  case RESCUE_JARRAY: return "a list";
  case RESCUE_JOBJECT: return "an object";
  }
  return "?";
}

/*
** Decimal digits other than ASCII that Python's float() reads as digits: the first code
** point of each block of ten (Unicode category Nd).
*/
static const unsigned digit_zeros[] = {
    0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,  0x0C66,
    0x0CE6,  0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,  0x1810,
    0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,  0xA8D0,
    0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066, 0x110F0,
    0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950,
    0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC,
    0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

/* Decode one UTF-8 character at p (valid UTF-8 assumed); returns its length. */
static int utf8_decode(const unsigned char *p, const unsigned char *end, unsigned *cp) {
  if (p[0] < 0x80 || end - p < 2) {
    *cp = p[0];
    return 1;
  }
  if (p[0] < 0xE0) {
    *cp = ((p[0] & 0x1Fu) << 6) | (p[1] & 0x3Fu);
    return 2;
  }
  if (p[0] < 0xF0 || end - p < 4) {
    *cp = end - p < 3 ? 0xFFFD : ((p[0] & 0x0Fu) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    return end - p < 3 ? (int)(end - p) : 3;
  }
  *cp = ((p[0] & 0x07u) << 18) | ((p[1] & 0x3Fu) << 12) | ((p[2] & 0x3Fu) << 6) | (p[3] & 0x3Fu);
  return 4;
}

/*
** Python's float() of a string: surrounding whitespace stripped, any Unicode decimal
** digits read as digits, single underscores between digits, inf/nan words. Returns 0
** and *out, or -1 when float() would raise.
*/
static int py_float_string(const char *s, size_t len, rescue_buf *tmp, double *out) {
  const unsigned char *p, *e;
  size_t a, b, i;
  char *end;
  int digits = 0;
  rescue_pystrip(s, len, &a, &b);
  rescue_buf_reset(tmp);
  for (p = (const unsigned char *)s + a, e = (const unsigned char *)s + b; p < e;) {
    unsigned cp;
    size_t k;
    int n = utf8_decode(p, e, &cp), found = 0;
    p += n;
    if (cp < 0x80) {
      rescue_buf_putc(tmp, (char)cp);
      continue;
    }
    for (k = 0; k < sizeof digit_zeros / sizeof digit_zeros[0]; k++)
      if (cp >= digit_zeros[k] && cp < digit_zeros[k] + 10) {
        rescue_buf_putc(tmp, (char)('0' + (cp - digit_zeros[k])));
        found = 1;
        break;
      }
    if (!found)
      return -1;
  }
  if (!rescue_buf_ok(tmp) || tmp->len == 0)
    return -1;
  /* the words: [+-](inf|infinity|nan), any case */
  {
    const char *w = tmp->s + (tmp->s[0] == '+' || tmp->s[0] == '-');
    if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity") || !strcasecmp(w, "nan")) {
      *out = strcasecmp(w, "nan") ? (tmp->s[0] == '-' ? -INFINITY : INFINITY) : NAN;
      return 0;
    }
  }
  /* [+-] digits [. digits] [e [+-] digits], underscores only between two digits */
  for (i = 0, b = 0; i < tmp->len; i++) {
    char c = tmp->s[i];
    if (c == '_') {
      if (i == 0 || i + 1 >= tmp->len || !isdigit((unsigned char)tmp->s[i - 1]) ||
          !isdigit((unsigned char)tmp->s[i + 1]))
        return -1;
      continue;
    }
    if (!strchr("0123456789.eE+-", c))
      return -1;
    digits |= isdigit((unsigned char)c) != 0;
    tmp->s[b++] = c;
  }
  tmp->s[b] = 0;
  if (!digits || strchr(tmp->s, 'x') || strchr(tmp->s, 'X'))
    return -1;
  *out = strtod(tmp->s, &end);
  if (*end || end == tmp->s)
    return -1;
  /* strtod also takes hex and "1e" with nothing after; Python does not */
  if (tmp->s[b - 1] == 'e' || tmp->s[b - 1] == 'E' || tmp->s[b - 1] == '+' || tmp->s[b - 1] == '-')
    return -1;
  return 0;
}

/*
** An intensity as the scripts read it, int(round(float(v))): numbers, booleans and
** numeric strings (Python's float() rules); 0..10, or -1 when it does not parse, is not
** finite or is out of range. *why says which.
*/
static int parse_intensity(const rescue_jnode *v, rescue_buf *tmp, const char **why) {
  double d = NAN;
  *why = "not a number";
  if (!v)
    return *why = "absent", -1;
  switch (v->type) {
  case RESCUE_JNUMBER: d = v->num; break;
  case RESCUE_JTRUE: d = 1; break;
  case RESCUE_JFALSE: d = 0; break;
  case RESCUE_JSTRING:
    if (py_float_string(v->s, v->len, tmp, &d))
      return *why = "a string that is not a number", -1;
    break;
  case RESCUE_JNULL:
  case RESCUE_JARRAY:
  case RESCUE_JOBJECT: return *why = type_name(v), -1;
  }
  if (!isfinite(d))
    return *why = "not finite", -1;
  d = rint(d);
  if (d < 0 || d > 10)
    return *why = "outside 0..10", -1;
  return (int)d;
}

/* ITP (export/TASKS.md §2.1): 1 yes, 0 no, -1 invalid (which then counts as no). */
static int parse_should_speak(rescue_score_report *r, const rescue_jnode *v) {
  static const char *const yes[] = {"yes", "y", "true", "1", "speak", "should_speak"};
  static const char *const no[] = {"no",          "n", "false", "0", "listen", "keep_listening",
                                   "do_not_speak"};
  rescue_buf *t = &r->tmp;
  size_t i;
  if (v && (v->type == RESCUE_JTRUE || v->type == RESCUE_JFALSE))
    return v->type == RESCUE_JTRUE;
  clean(r, v);
  for (i = 0; i < t->len; i++)
    t->s[i] = (char)tolower((unsigned char)t->s[i]);
  for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (strcmp(t->s, yes[i]) == 0)
      return 1;
  for (i = 0; i < sizeof no / sizeof no[0]; i++)
    if (strcmp(t->s, no[i]) == 0)
      return 0;
  if (strstr(t->s, "yes"))
    return 1;
  if (strstr(t->s, "no"))
    return 0;
  return -1;
}

/* ---- reading lines ---- */

typedef struct line_reader {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  long lineno;
} line_reader;

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
static const char *const pred_keys[RESCUE_TASK_COUNT] = {"should_speak",
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
  id = intern(&r->list_keys, key->s, key->len, 0);
  if (id >= 0)
    return id;
  id = intern(&r->list_keys, key->s, key->len, 1);
  if (id < 0)
    return id;
  if (r->nlists == r->caplists) {
    int nc = r->caplists ? r->caplists * 2 : 16;
    cand_list *nl = rescue_realloc(r->lists, (size_t)nc * sizeof *nl);
    if (!nl)
      return -2;
    r->lists = nl;
    r->caplists = nc;
  }
  labels = rescue_calloc(arr->len + 1, sizeof *labels);
  if (!labels)
    return -2;
  for (x = arr->child, i = 0; x; x = x->next, i++) {
    int l = intern(&r->labels, x->s, x->len, 1);
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
  if (r->n == r->cap) {
    long nc = r->cap ? r->cap * 2 : 1024;
    inst *nv = rescue_realloc(r->v, (size_t)nc * sizeof *nv);
    if (!nv)
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    r->v = nv;
    r->cap = nc;
  }
  in = &r->v[r->n];
  memset(in, 0, sizeof *in);
  x = intern(&r->ids, id, strlen(id), 0);
  if (x >= 0)
    return BAD(lr, 1, "instance_id '%s' appears twice", id);
  if ((x = intern(&r->ids, id, strlen(id), 1)) < 0 ||
      (in->sample = intern(&r->samples, sample, strlen(sample), 1)) < 0 ||
      (in->couple = intern(&r->couples, couple, strlen(couple), 1)) < 0)
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
    if ((in->gold = intern(&r->labels, g->s, g->len, 1)) < 0)
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
static int read_gold(rescue_score_report *r, line_reader *lr, rescue_error *err) {
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
  if (!clean(r, id_node(o)) && inh)
    clean(r, inh);
  if (!r->tmp.len) {
    if (r->n == 1) {
      r->c.one_instance++;
      return 0;
    }
    r->c.no_id++;
    return -1;
  }
  x = intern(&r->ids, r->tmp.s, r->tmp.len, 0);
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
  problem_add(r, ix, "%s", why);
}

/* One top-3 entry (already cleaned into r->tmp): kept when a new member of the list;
   a non-member is counted as a dropped label when count_dropped. */
static void top3_entry(rescue_score_report *r, inst *in, int *got, int count_dropped) {
  const cand_list *cl = &r->lists[in->cands];
  int l, i, member = 0;
  if (!r->tmp.len)
    return;
  l = intern(&r->labels, r->tmp.s, r->tmp.len, 0);
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
  const char *field = pred_keys[r->task];
  char why[160];
  in->pred[0] = in->pred[1] = in->pred[2] = -1;
  if (!RELEASE(r) && nonfinite(v)) {
    snprintf(why, sizeof why, "%s holds NaN or Infinity", field);
    set_invalid(r, ix, why);
    return;
  }
  switch (v ? v->type : RESCUE_JNULL) {
  case RESCUE_JARRAY:
    for (c = v->child; c; c = c->next) {
      clean(r, c);
      top3_entry(r, in, &got, 1);
    }
    break;
  case RESCUE_JSTRING:
    r->c.coerced++;
    if (RELEASE(r)) { /* Python iterates a string by characters */
      const unsigned char *p = (const unsigned char *)v->s, *e = p + v->len;
      while (p < e) {
        unsigned cp;
        int n = utf8_decode(p, e, &cp);
        rescue_jnode ch;
        memset(&ch, 0, sizeof ch);
        ch.type = RESCUE_JSTRING;
        ch.s = (const char *)p;
        ch.len = (uint32_t)n;
        clean(r, &ch);
        top3_entry(r, in, &got, 0); /* characters are not labels: not counted as dropped */
        p += n;
      }
    } else {
      clean(r, v);
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
               type_name(v));
    } else {
      snprintf(why, sizeof why, "%s is %s", field, type_name(v));
    }
    set_invalid(r, ix, why);
    return;
  case RESCUE_JNUMBER:
  case RESCUE_JTRUE:
  case RESCUE_JFALSE:
    if (RELEASE(r)) {
      in->stop = 1;
      snprintf(why, sizeof why, "%s is %s: the release scripts stop here (TypeError)", field,
               type_name(v));
    } else {
      snprintf(why, sizeof why, "%s is %s, not a list", field, type_name(v));
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
  v = rescue_jget(o, pred_keys[r->task]);
  switch (r->task) {
  case RESCUE_TASK_ITP: {
    int p;
    if (!RELEASE(r) && nonfinite(v)) {
      set_invalid(r, ix, "should_speak holds NaN or Infinity");
      break;
    }
    if (v && (v->type == RESCUE_JARRAY || v->type == RESCUE_JOBJECT))
      r->c.coerced++;
    p = parse_should_speak(r, v);
    if (p < 0) {
      snprintf(why, sizeof why,
               "should_speak is %s that reads as neither yes nor no (counted as no)", type_name(v));
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
    in->pred[0] = parse_intensity(v, &r->tmp, &w);
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
    const rescue_jnode *i = rescue_jget(o, pred_keys[r->task]);
    *present = e || i;
    return clean(r, e) > 0 || (i && i->type != RESCUE_JNULL);
  }
  *present = rescue_jget(o, pred_keys[r->task]) != NULL;
  return truthy(rescue_jget(o, pred_keys[r->task]));
}

/*
** Parse the text of a model reply: surrounding whitespace and a ```json or ``` fence
** stripped, the whole text read as JSON; failing that, the first '{' or '[' from which
** an object (or a list holding one) reads. The tree lives in the document of `depth`.
** A list is returned whole (the caller applies the protocol's rule); the rescue
** protocol also returns a JSON string (a reply inside a reply). NULL when none.
*/
static const rescue_jnode *find_reply(rescue_score_report *r, const char *s, size_t len,
                                      int depth) {
  rescue_jdoc *doc = doc_at(r, depth);
  const rescue_jnode *root, *c;
  const char *t, *e, *p;
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
  for (p = t; p < e; p++) {
    if (*p != '{' && *p != '[')
      continue;
    root = jparse(r, doc, p, (size_t)(e - p), RESCUE_JPARSE_PYTHON | RESCUE_JPARSE_PREFIX, NULL);
    if (!root)
      continue;
    if (root->type == RESCUE_JOBJECT) {
      r->c.recovered++;
      return root;
    }
    for (c = root->child; c; c = c->next)
      if (c->type == RESCUE_JOBJECT) {
        r->c.recovered++;
        return root;
      }
  }
  return NULL;
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
    if (!(doc = doc_at(r, depth + 1))) {
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
    problem_add(r, -1, "a string item of \"predictions\" holds no prediction object");
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
  if (rescue_jget(o, pred_keys[r->task]))
    r->own_field++;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (t != r->task && rescue_jget(o, pred_keys[t]))
      r->other_field[t]++;
  if ((tk = need_string(o, "task")) && rescue_task_parse(tk, &t) == 0 && t != r->task)
    r->other_task_key[t]++;
  if (own_id && truthy(own_id))
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
  if (own_id && truthy(own_id)) {
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
      snprintf(why, sizeof why, "no \"%s\" in the prediction", pred_keys[r->task]);
      set_invalid(r, ix, why);
    }
    return 1;
  }
  return 0;
}

/* One line of the predictions file: one model reply. */
static void handle_line(rescue_score_report *r, const char *line, size_t len) {
  rescue_jdoc *doc = doc_at(r, 0);
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
      problem_add(r, -1, "a reply string without a JSON object");
      return;
    }
    found = handle_value(r, inner, 1, NULL);
  } else if (root && (root->type == RESCUE_JOBJECT || root->type == RESCUE_JARRAY)) {
    found = handle_value(r, root, 0, NULL);
  } else if (root) {
    r->c.invalid_lines++;
    problem_add(r, -1, "%s, not a prediction object", type_name(root));
    return;
  } else {
    long l, c;
    char msg[200];
    rescue_jposition(line, len, je.offset, &l, &c);
    snprintf(msg, sizeof msg, "column %ld: %s", c, je.msg);
    if (!(inner = find_reply(r, line, len, 0))) {
      r->c.invalid_lines++;
      problem_add(r, -1, "no JSON object (%s)", msg);
      return;
    }
    found = handle_value(r, inner, 0, NULL);
  }
  if (!found) {
    r->c.invalid_lines++;
    problem_add(r, -1, "no prediction (an object with an id and \"%s\", or \"predictions\")",
                pred_keys[r->task]);
  }
}

static int read_predictions(rescue_score_report *r, line_reader *lr, rescue_error *err) {
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

/* ---- metrics ---- */

static double ratio(double a, double b) { return b != 0 ? a / b : 0.0; }
static double f1(double p, double r) { return p + r != 0 ? 2 * p * r / (p + r) : 0.0; }

/* Python's round(x, 3): correctly rounded, ties to even on the binary value (as printf). */
static double round3(double x) {
  char b[64];
  snprintf(b, sizeof b, "%.3f", x);
  return strtod(b, NULL);
}

static int acc_labels(acc *a, int nlab) {
  a->nlab = nlab;
  a->ltp = rescue_calloc((size_t)nlab + 1, sizeof *a->ltp);
  a->lfp = rescue_calloc((size_t)nlab + 1, sizeof *a->lfp);
  a->lfn = rescue_calloc((size_t)nlab + 1, sizeof *a->lfn);
  a->lsup = rescue_calloc((size_t)nlab + 1, sizeof *a->lsup);
  a->in_tax = rescue_calloc((size_t)nlab + 1, 1);
  return a->ltp && a->lfp && a->lfn && a->lsup && a->in_tax ? 0 : RESCUE_ENOMEM;
}

static int add_conf(rescue_score_report *r, int gold, int pred) {
  int i;
  for (i = 0; i < r->nconf; i++)
    if (r->conf[i].gold == gold && r->conf[i].pred == pred) {
      r->conf[i].count++;
      return 0;
    }
  if (r->nconf == r->capconf) {
    int nc = r->capconf ? r->capconf * 2 : 32;
    pair_count *n = rescue_realloc(r->conf, (size_t)nc * sizeof *n);
    if (!n)
      return RESCUE_ENOMEM;
    r->conf = n;
    r->capconf = nc;
  }
  r->conf[r->nconf].gold = gold;
  r->conf[r->nconf].pred = pred;
  r->conf[r->nconf].count = 1;
  r->nconf++;
  return 0;
}

/* Add one scored instance to an accumulator. */
static void acc_add(acc *a, const rescue_score_report *r, const inst *in, int pred_yes, int rank,
                    int top1, int pred_int) {
  int k;
  a->n++;
  switch (r->task) {
  case RESCUE_TASK_ITP:
    if (in->gold && pred_yes)
      a->tp++;
    else if (in->gold)
      a->fn++;
    else if (pred_yes)
      a->fp++;
    else
      a->tn++;
    break;
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP:
    for (k = 0; k < 3; k++)
      a->r[k] += rank >= 1 && rank <= k + 1;
    a->rr += rank ? 1.0 / rank : 0.0;
    if (a->nlab) {
      const cand_list *cl = &r->lists[in->cands];
      for (k = 0; k < cl->n; k++)
        a->in_tax[cl->labels[k]] = 1;
      a->lsup[in->gold]++;
      if (top1 == in->gold) {
        a->ltp[in->gold]++;
      } else {
        a->lfn[in->gold]++;
        if (top1 >= 0)
          a->lfp[top1]++;
      }
    }
    break;
  case RESCUE_TASK_ER:
    if (pred_int >= 0) {
      int d = abs(pred_int - in->gold);
      a->scored++;
      a->exact += d == 0;
      a->match += d >= 4 ? 1 : 5 - d;
      a->abs_err += d;
    }
    break;
  case RESCUE_TASK_VP: break;
  }
}

static int compute(rescue_score_report *r) {
  long i;
  int rc = 0, k;
  r->by_couple = rescue_calloc((size_t)tab_n(&r->couples) + 1, sizeof *r->by_couple);
  r->by_sample = rescue_calloc((size_t)tab_n(&r->samples) + 1, sizeof *r->by_sample);
  r->failed = rescue_calloc((size_t)tab_n(&r->samples) + 1, 1);
  if (!r->by_couple || !r->by_sample || !r->failed)
    return RESCUE_ENOMEM;
  if (r->task == RESCUE_TASK_RPP) {
    int L = tab_n(&r->labels);
    if (acc_labels(&r->overall, L) || acc_labels(&r->scen[0], L) || acc_labels(&r->scen[1], L))
      return RESCUE_ENOMEM;
    for (k = 0; k < tab_n(&r->couples); k++)
      if (acc_labels(&r->by_couple[k], L))
        return RESCUE_ENOMEM;
    for (k = 0; k < tab_n(&r->samples); k++)
      if (acc_labels(&r->by_sample[k], L))
        return RESCUE_ENOMEM;
  }
  for (i = 0; i < r->n; i++) {
    inst *in = &r->v[i];
    int usable = in->state == ST_PRED && !in->invalid;
    switch (in->state) {
    case ST_NONE: r->c.missing++; break;
    case ST_EMPTY: r->c.empty++; break;
    case ST_PRED:
      r->c.predicted++;
      r->c.invalid += in->invalid;
      r->stops_type += in->stop;
      break;
    }
    if (RELEASE(r) && in->state != ST_PRED) {
      if (r->task == RESCUE_TASK_RPP)
        r->c.gold_fills++;
      else if (r->task == RESCUE_TASK_STP || r->task == RESCUE_TASK_SSP)
        r->stops_missing++;
    }
    if (RELEASE(r) && r->task == RESCUE_TASK_ER && !usable && !r->failed[in->sample]) {
      r->failed[in->sample] = 1;
      r->c.failed_samples++;
    }
  }
  r->c.release_stops = r->stops_missing + r->stops_type;
  for (i = 0; i < r->n && rc == 0; i++) {
    inst *in = &r->v[i];
    int usable = in->state == ST_PRED && !in->invalid;
    int yes = 0, rank = 0, top1 = -1, pint = -1;
    switch (r->task) {
    case RESCUE_TASK_ITP:
      yes = usable && in->pred[0]; /* missing and invalid count as no */
      rc = add_conf(r, in->gold, yes);
      break;
    case RESCUE_TASK_RPP:
    case RESCUE_TASK_STP:
    case RESCUE_TASK_SSP:
      if (usable) {
        for (k = 0; k < 3 && !rank; k++)
          if (in->pred[k] == in->gold)
            rank = k + 1;
        top1 = in->pred[0];
      }
      rc = add_conf(r, in->gold, top1);
      break;
    case RESCUE_TASK_ER:
      if (r->failed[in->sample])
        continue;
      pint = usable ? in->pred[0] : -1;
      if (pint >= 0)
        rc = add_conf(r, in->gold, pint);
      break;
    case RESCUE_TASK_VP: break;
    }
    acc_add(&r->overall, r, in, yes, rank, top1, pint);
    acc_add(&r->scen[in->family], r, in, yes, rank, top1, pint);
    acc_add(&r->by_couple[in->couple], r, in, yes, rank, top1, pint);
    acc_add(&r->by_sample[in->sample], r, in, yes, rank, top1, pint);
  }
  return rc;
}

/* A metric of an accumulator by key; NAN when it does not apply. */
static double acc_metric(const rescue_score_report *r, const acc *a, const char *key) {
  static const char *const prefix[RESCUE_TASK_COUNT] = {"",         "relation", "target",
                                                        "strategy", "",         ""};
  const char *p = prefix[r->task];
  char k[64];
  double py = ratio((double)a->tp, (double)(a->tp + a->fp));
  double ry = ratio((double)a->tp, (double)(a->tp + a->fn));
  double pn = ratio((double)a->tn, (double)(a->tn + a->fn));
  double rn = ratio((double)a->tn, (double)(a->tn + a->fp));
  int i;
  if (strcmp(key, "n") == 0)
    return (double)a->n;
  switch (r->task) {
  case RESCUE_TASK_ITP:
    if (!strcmp(key, "precision_yes"))
      return py;
    if (!strcmp(key, "recall_yes"))
      return ry;
    if (!strcmp(key, "f1_yes"))
      return f1(py, ry);
    if (!strcmp(key, "precision_no"))
      return pn;
    if (!strcmp(key, "recall_no"))
      return rn;
    if (!strcmp(key, "f1_no"))
      return f1(pn, rn);
    if (!strcmp(key, "accuracy"))
      return ratio((double)(a->tp + a->tn), (double)a->n);
    if (!strcmp(key, "balanced_accuracy"))
      return (ry + rn) / 2;
    return NAN;
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP:
    for (i = 0; i < 3; i++) {
      snprintf(k, sizeof k, "%s_recall_at_%d", p, i + 1);
      if (!strcmp(key, k))
        return ratio((double)a->r[i], (double)a->n);
    }
    snprintf(k, sizeof k, "%s_mrr", p);
    if (!strcmp(key, k))
      return ratio(a->rr, (double)a->n);
    if (r->task == RESCUE_TASK_RPP && !strcmp(key, "accuracy"))
      return ratio((double)a->r[0], (double)a->n);
    if (r->task == RESCUE_TASK_RPP && (!strcmp(key, "macro_precision") ||
                                       !strcmp(key, "macro_recall") || !strcmp(key, "macro_f1"))) {
      double sp = 0, sr = 0, sf = 0;
      int nl = 0;
      /* a macro over the union of two taxonomies is no number anyone reports */
      if (!a->nlab || !a->n || (a == &r->overall && r->scen[0].n && r->scen[1].n))
        return NAN;
      for (i = 0; i < a->nlab; i++) {
        double lp, lr;
        if (!a->in_tax[i])
          continue;
        lp = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfp[i]));
        lr = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfn[i]));
        sp += lp;
        sr += lr;
        sf += f1(lp, lr);
        nl++;
      }
      if (!strcmp(key, "macro_precision"))
        return ratio(sp, nl);
      if (!strcmp(key, "macro_recall"))
        return ratio(sr, nl);
      return ratio(sf, nl);
    }
    return NAN;
  case RESCUE_TASK_ER:
    if (!strcmp(key, "scored"))
      return (double)a->scored;
    if (!a->scored)
      return NAN;
    if (RELEASE(r)) { /* per sample only, rounded as the scripts round */
      int sample = a >= r->by_sample && a < r->by_sample + tab_n(&r->samples);
      if (sample && !strcmp(key, "avg_intensity_match"))
        return round3(a->match / (double)a->scored);
      return NAN;
    }
    if (!strcmp(key, "avg_intensity_match"))
      return a->match / (double)a->scored;
    if (!strcmp(key, "intensity_exact_rate"))
      return (double)a->exact / (double)a->scored;
    if (!strcmp(key, "intensity_mae"))
      return a->abs_err / (double)a->scored;
    return NAN;
  case RESCUE_TASK_VP: return NAN;
  }
  return NAN;
}

/* The metric keys of a task, in report order (NULL-terminated). */
static const char *const *metric_keys(const rescue_score_report *r) {
  static const char *const itp[] = {
      "n",     "precision_yes", "recall_yes",        "f1_yes", "precision_no", "recall_no",
      "f1_no", "accuracy",      "balanced_accuracy", NULL};
  static const char *const rpp[] = {"n",
                                    "accuracy",
                                    "relation_recall_at_1",
                                    "relation_recall_at_2",
                                    "relation_recall_at_3",
                                    "relation_mrr",
                                    "macro_precision",
                                    "macro_recall",
                                    "macro_f1",
                                    NULL};
  static const char *const stp[] = {
      "n", "target_recall_at_1", "target_recall_at_2", "target_recall_at_3", "target_mrr", NULL};
  static const char *const ssp[] = {
      "n", "strategy_recall_at_1", "strategy_recall_at_2", "strategy_recall_at_3", "strategy_mrr",
      NULL};
  static const char *const er[] = {
      "n", "scored", "avg_intensity_match", "intensity_exact_rate", "intensity_mae", NULL};
  static const char *const er_release[] = {"n", "scored", "avg_intensity_match", NULL};
  switch (r->task) {
  case RESCUE_TASK_ITP: return itp;
  case RESCUE_TASK_RPP: return rpp;
  case RESCUE_TASK_STP: return stp;
  case RESCUE_TASK_SSP: return ssp;
  case RESCUE_TASK_ER: return RELEASE(r) ? er_release : er;
  case RESCUE_TASK_VP: return er + 5;
  }
  return er + 5;
}

double rescue_score_metric(const rescue_score_report *r, const char *key) {
  return acc_metric(r, &r->overall, key);
}

double rescue_score_scenario_metric(const rescue_score_report *r, const char *scenario,
                                    const char *key) {
  int f = strcmp(scenario, "family") == 0;
  if (!f && strcmp(scenario, "couple") != 0)
    return NAN;
  return r->scen[f].n ? acc_metric(r, &r->scen[f], key) : NAN;
}

double rescue_score_sample_metric(const rescue_score_report *r, const char *sample_id,
                                  const char *key) {
  int s = intern((rescue_strmap *)&r->samples, sample_id, strlen(sample_id), 0);
  if (s < 0 || (r->task == RESCUE_TASK_ER && r->failed[s]))
    return NAN;
  return acc_metric(r, &r->by_sample[s], key);
}

void rescue_score_get_counts(const rescue_score_report *r, rescue_score_counts *out) {
  *out = r->c;
}

/* After reading: refuse predictions that belong to another task, or too few usable ones. */
static int check_predictions(rescue_score_report *r, const rescue_score_opts *o,
                             rescue_error *err) {
  const char *name = rescue_task_name(r->task);
  long matched = 0, unusable, i, best_n = 0;
  int t, best = -1;
  for (i = 0; i < r->n; i++)
    matched += r->v[i].state != ST_NONE;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (r->other_field[t] + r->other_task_key[t] > best_n) {
      best_n = r->other_field[t] + r->other_task_key[t];
      best = t;
    }
  if (best >= 0 && r->own_field == 0)
    return rescue_seterr_arg(err, RESCUE_EPREDTASK, rescue_task_name((rescue_task)best),
                             "%s: these look like %s predictions (%ld objects with \"%s\" or "
                             "task %s), not %s ones (\"%s\")",
                             r->pred_path, rescue_task_name((rescue_task)best), best_n,
                             pred_keys[best], rescue_task_name((rescue_task)best), name,
                             pred_keys[r->task]);
  if (matched == 0 && r->ids_after_row && r->task != RESCUE_TASK_ITP)
    return rescue_seterr_arg(err, RESCUE_EPREDTASK, "itp",
                             "%s: no id matches the gold file; its ids "
                             "(<sample_id>__after_row<k>) are itp instance ids",
                             r->pred_path);
  if (matched == 0 && r->ids_row && r->task == RESCUE_TASK_ITP)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s: no id matches the gold file; its ids (<sample_id>__row<r>) belong "
                         "to rpp, stp, ssp, er or vp, not itp",
                         r->pred_path);
  unusable = r->c.missing + r->c.invalid;
  if (!o->allow_missing && (double)unusable > RESCUE_SCORE_MAX_UNUSABLE * (double)r->n)
    return rescue_seterr(
        err, RESCUE_EUNUSABLE,
        "%s: %ld of %ld %s instances (%.0f%%) have no usable prediction (%ld missing, %ld "
        "invalid; %ld invalid lines, %ld unknown ids, %ld without an id), more than %.0f%%",
        r->pred_path, unusable, r->n, name, 100.0 * (double)unusable / (double)r->n, r->c.missing,
        r->c.invalid, r->c.invalid_lines, r->c.unknown_ids, r->c.no_id,
        100.0 * RESCUE_SCORE_MAX_UNUSABLE);
  return 0;
}

int rescue_score_files(rescue_task task, const char *gold_path, const char *pred_path,
                       const rescue_score_opts *opts, rescue_score_report **out,
                       rescue_error *err) {
  static const rescue_score_opts defaults = {.protocol = RESCUE_PROTOCOL_RESCUE};
  rescue_score_report *r = NULL;
  line_reader lr = {NULL, NULL, NULL, 0, 0};
  int rc;
  *out = NULL;
  if (!opts)
    opts = &defaults;
  if (task == RESCUE_TASK_VP)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "VP has no offline metric: its scores come from an LLM judge "
                         "(source-target, viewpoint and total scores)");
  if (!(r = rescue_calloc(1, sizeof *r)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  r->ids.copy = r->samples.copy = r->couples.copy = r->labels.copy = r->list_keys.copy = 1;
  r->task = task;
  r->proto = opts->protocol;
  r->gold_path = rescue_strdup(gold_path);
  r->pred_path = rescue_strdup(pred_path);
  if (!r->gold_path || !r->pred_path) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  lr.path = gold_path;
  if (!(lr.f = fopen(gold_path, "rb"))) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot read '%s': %s", gold_path, strerror(errno));
    goto fail;
  }
  rc = read_gold(r, &lr, err);
  fclose(lr.f);
  if (rc)
    goto fail;
  if (r->n == 0) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s: no %s instances", gold_path,
                       rescue_task_name(task));
    goto fail;
  }
  r->c.instances = r->n;
  lr.path = pred_path;
  lr.lineno = 0;
  if (!(lr.f = fopen(pred_path, "rb"))) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot read '%s': %s", pred_path, strerror(errno));
    goto fail;
  }
  rc = read_predictions(r, &lr, err);
  fclose(lr.f);
  if (rc)
    goto fail;
  if ((rc = compute(r))) {
    rc = rescue_seterr(err, rc, NULL);
    goto fail;
  }
  if ((rc = check_predictions(r, opts, err)))
    goto fail;
  free(lr.buf);
  *out = r;
  return 0;
fail:
  free(lr.buf);
  rescue_score_free(&r);
  return rc;
}

/* ---- output ---- */

static const char *label_name(const rescue_score_report *r, int l) {
  if (r->task == RESCUE_TASK_ITP)
    return l ? "yes" : "no";
  return l >= 0 ? tab_s(&r->labels, l) : "";
}

/* Confusion pairs ordered most frequent first, then by gold, then by prediction. */
static const rescue_score_report *conf_cmp_r; /* qsort has no context argument */
static int conf_cmp(const void *a, const void *b) {
  const pair_count *x = a, *y = b;
  int c;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (conf_cmp_r->task == RESCUE_TASK_ER)
    return x->gold != y->gold ? x->gold - y->gold : x->pred - y->pred;
  c = strcmp(label_name(conf_cmp_r, x->gold), label_name(conf_cmp_r, y->gold));
  return c ? c : strcmp(label_name(conf_cmp_r, x->pred), label_name(conf_cmp_r, y->pred));
}

static void sort_conf(const rescue_score_report *r) {
  conf_cmp_r = r;
  qsort(r->conf, (size_t)r->nconf, sizeof *r->conf, conf_cmp);
}

/*
** What the reader should know about these numbers, one note per line: the protocol's
** rules that changed a score, and every tolerance used.
*/
static void build_notes(const rescue_score_report *r, rescue_buf *b) {
  const rescue_score_counts *c = &r->c;
  switch (r->task) {
  case RESCUE_TASK_ITP:
    rescue_buf_puts(b, "A missing or unreadable should_speak counts as no (both protocols).\n");
    break;
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP:
    rescue_buf_puts(b, "A missing or invalid prediction has rank 0 (every recall 0); the gold "
                       "label is never filled in.\n");
    break;
  case RESCUE_TASK_ER:
    rescue_buf_puts(b, "The emotion score needs an LLM judge and BERTScore a model: only the "
                       "intensity match is computed here.\n");
    if (RELEASE(r))
      rescue_buf_puts(b, "release: per-sample averages only, rounded to 3 decimals; a sample "
                         "with any checkpoint without a usable prediction fails and is left "
                         "out (the scripts report no overall average).\n");
    else
      rescue_buf_puts(b, "rescue: a checkpoint without a usable prediction is left out of the "
                         "means; averages are unrounded and instance-weighted.\n");
    break;
  case RESCUE_TASK_VP: break;
  }
  if (r->task == RESCUE_TASK_RPP && r->scen[0].n && r->scen[1].n)
    rescue_buf_puts(b, "The file holds both scenarios: macro precision, recall and F1 are per "
                       "scenario, each over its own taxonomy (none overall).\n");
  if (c->gold_fills)
    rescue_buf_printf(b,
                      "release: the scripts would fill %ld missing prediction%s with a list "
                      "that starts with the gold label (a leak); scored here as rank 0.\n",
                      c->gold_fills, c->gold_fills == 1 ? "" : "s");
  if (c->release_stops)
    rescue_buf_printf(b,
                      "release: the scripts stop here, on %ld instance%s (%ld without a "
                      "prediction, %ld with an ill-typed top-3 field); scored here as rank "
                      "0.\n",
                      c->release_stops, c->release_stops == 1 ? "" : "s", r->stops_missing,
                      r->stops_type);
  if (c->empty)
    rescue_buf_printf(b,
                      "%ld instance%s answered only by an object whose field is empty (\"\", "
                      "false, 0, [], null): not taken as a prediction, as in the scripts.\n",
                      c->empty, c->empty == 1 ? "" : "s");
  if (c->coerced)
    rescue_buf_printf(b, "%ld field%s of another shape read anyway (%s).\n", c->coerced,
                      c->coerced == 1 ? "" : "s",
                      r->task == RESCUE_TASK_ITP
                          ? "a list or object answer read as its text, e.g. [\"yes\"] is yes"
                      : RELEASE(r) ? "a string iterated by characters, an object by its keys"
                                   : "a string read as a one-label list");
  if (c->recovered)
    rescue_buf_printf(b,
                      "%ld repl%s read by stripping a code fence or surrounding prose, or from "
                      "the first complete object of a truncated batch.\n",
                      c->recovered, c->recovered == 1 ? "y" : "ies");
  if (c->reply_strings)
    rescue_buf_printf(b, "%ld repl%s given as JSON strings parsed.\n", c->reply_strings,
                      c->reply_strings == 1 ? "y" : "ies");
  if (c->reply_fields)
    rescue_buf_printf(b, "%ld repl%s read from a response, output or text field.\n",
                      c->reply_fields, c->reply_fields == 1 ? "y" : "ies");
  if (c->string_items)
    rescue_buf_printf(b, "%ld string item%s of \"predictions\" parsed as JSON.\n", c->string_items,
                      c->string_items == 1 ? "" : "s");
  if (r->string_dropped)
    rescue_buf_printf(b, "%ld string item%s of \"predictions\" dropped (%s).\n", r->string_dropped,
                      r->string_dropped == 1 ? "" : "s",
                      RELEASE(r) ? "the scripts parse them in ssp and er only, without fences"
                                 : "no object inside");
  if (r->list_tail)
    rescue_buf_printf(b,
                      "release: %ld further object%s of list replies not read (the scripts "
                      "read the first object of a reply).\n",
                      r->list_tail, r->list_tail == 1 ? "" : "s");
  if (c->one_instance)
    rescue_buf_printf(b, "%ld prediction%s without an id given to the file's only instance.\n",
                      c->one_instance, c->one_instance == 1 ? "" : "s");
  if (c->invalid_lines)
    rescue_buf_printf(b, "%ld line%s without a readable reply (listed in the JSON report).\n",
                      c->invalid_lines, c->invalid_lines == 1 ? "" : "s");
}

static void acc_json(rescue_jw *w, const rescue_score_report *r, const acc *a) {
  const char *const *k = metric_keys(r);
  rescue_jw_obj(w);
  for (; *k; k++) {
    double v = acc_metric(r, a, *k);
    rescue_jw_key(w, *k);
    if (!strcmp(*k, "n") || !strcmp(*k, "scored"))
      rescue_jw_int(w, (long long)v);
    else if (isnan(v))
      rescue_jw_null(w);
    else
      rescue_jw_double(w, v);
  }
  if (r->task == RESCUE_TASK_ITP) {
    rescue_jw_key(w, "tp");
    rescue_jw_int(w, a->tp);
    rescue_jw_key(w, "fp");
    rescue_jw_int(w, a->fp);
    rescue_jw_key(w, "tn");
    rescue_jw_int(w, a->tn);
    rescue_jw_key(w, "fn");
    rescue_jw_int(w, a->fn);
  }
  rescue_jw_end(w);
}

static void class_metrics_json(rescue_jw *w, const rescue_score_report *r, const acc *a) {
  int i;
  rescue_jw_obj(w);
  for (i = 0; i < a->nlab; i++) {
    double p, rc;
    if (!a->in_tax[i])
      continue;
    p = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfp[i]));
    rc = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfn[i]));
    rescue_jw_key(w, tab_s(&r->labels, i));
    rescue_jw_obj(w);
    rescue_jw_key(w, "precision");
    rescue_jw_double(w, p);
    rescue_jw_key(w, "recall");
    rescue_jw_double(w, rc);
    rescue_jw_key(w, "f1");
    rescue_jw_double(w, f1(p, rc));
    rescue_jw_key(w, "support");
    rescue_jw_int(w, a->lsup[i]);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

static const char *const scen_names[2] = {"couple", "family"};

void rescue_score_json(const rescue_score_report *r, rescue_buf *out) {
  rescue_buf notes = RESCUE_BUF_INIT;
  rescue_jw w;
  const char *p, *nl;
  long i;
  int er_release = r->task == RESCUE_TASK_ER && RELEASE(r);
  sort_conf(r);
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "task");
  rescue_jw_str(&w, rescue_task_name(r->task));
  rescue_jw_key(&w, "protocol");
  rescue_jw_str(&w, rescue_score_protocol_name(r->proto));
  rescue_jw_key(&w, "gold");
  rescue_jw_str(&w, r->gold_path);
  rescue_jw_key(&w, "pred");
  rescue_jw_str(&w, r->pred_path);
  rescue_jw_key(&w, "counts");
  rescue_jw_obj(&w);
#define COUNT(name)                                                                                \
  rescue_jw_key(&w, #name);                                                                        \
  rescue_jw_int(&w, r->c.name)
  COUNT(instances);
  COUNT(predicted);
  COUNT(missing);
  COUNT(invalid);
  COUNT(empty);
  COUNT(coerced);
  COUNT(unknown_ids);
  COUNT(duplicates);
  COUNT(no_id);
  COUNT(one_instance);
  COUNT(invalid_lines);
  COUNT(recovered);
  COUNT(reply_strings);
  COUNT(reply_fields);
  COUNT(string_items);
  COUNT(dropped_items);
  COUNT(dropped_labels);
  COUNT(failed_samples);
  COUNT(gold_fills);
  COUNT(release_stops);
#undef COUNT
  rescue_jw_end(&w);
  rescue_jw_key(&w, "notes");
  rescue_jw_arr(&w);
  build_notes(r, &notes);
  if (!rescue_buf_ok(&notes))
    out->oom = 1;
  for (p = notes.s; p && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    rescue_jw_strn(&w, p, (size_t)(nl - p));
  }
  rescue_jw_end(&w);
  rescue_buf_clear(&notes);
  rescue_jw_key(&w, "invalid_lines");
  rescue_jw_arr(&w);
  for (i = 0; i < r->nprobs; i++)
    if (r->probs[i].inst < 0) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "line");
      rescue_jw_int(&w, r->probs[i].line);
      rescue_jw_key(&w, "reason");
      rescue_jw_str(&w, r->probs[i].reason);
      rescue_jw_end(&w);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "invalid_predictions");
  rescue_jw_arr(&w);
  for (i = 0; i < r->nprobs; i++)
    if (r->probs[i].inst >= 0) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "line");
      rescue_jw_int(&w, r->probs[i].line);
      rescue_jw_key(&w, "instance_id");
      rescue_jw_str(&w, tab_s(&r->ids, r->probs[i].inst));
      rescue_jw_key(&w, "reason");
      rescue_jw_str(&w, r->probs[i].reason);
      rescue_jw_end(&w);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "overall");
  acc_json(&w, r, &r->overall);
  rescue_jw_key(&w, "scenarios");
  rescue_jw_obj(&w);
  for (i = 0; i < 2; i++)
    if (r->scen[i].n) {
      rescue_jw_key(&w, scen_names[i]);
      acc_json(&w, r, &r->scen[i]);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "couples");
  rescue_jw_obj(&w);
  for (i = 0; !er_release && i < tab_n(&r->couples); i++) {
    rescue_jw_key(&w, tab_s(&r->couples, i));
    acc_json(&w, r, &r->by_couple[i]);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_obj(&w);
  for (i = 0; i < tab_n(&r->samples); i++) {
    if (r->task == RESCUE_TASK_ER && r->failed[i])
      continue;
    rescue_jw_key(&w, tab_s(&r->samples, i));
    acc_json(&w, r, &r->by_sample[i]);
  }
  rescue_jw_end(&w);
  if (r->task == RESCUE_TASK_ER) {
    rescue_jw_key(&w, "failed");
    rescue_jw_arr(&w);
    for (i = 0; i < tab_n(&r->samples); i++)
      if (r->failed[i])
        rescue_jw_str(&w, tab_s(&r->samples, i));
    rescue_jw_end(&w);
  }
  rescue_jw_key(&w, "confusions");
  rescue_jw_arr(&w);
  for (i = 0; i < r->nconf; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "gold");
    if (r->task == RESCUE_TASK_ER)
      rescue_jw_int(&w, r->conf[i].gold);
    else
      rescue_jw_str(&w, label_name(r, r->conf[i].gold));
    rescue_jw_key(&w, "pred");
    if (r->task == RESCUE_TASK_ER)
      rescue_jw_int(&w, r->conf[i].pred);
    else if (r->conf[i].pred < 0 && r->task != RESCUE_TASK_ITP)
      rescue_jw_null(&w);
    else
      rescue_jw_str(&w, label_name(r, r->conf[i].pred));
    rescue_jw_key(&w, "count");
    rescue_jw_int(&w, r->conf[i].count);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  if (r->task == RESCUE_TASK_RPP) {
    rescue_jw_key(&w, "top1_class_metrics");
    rescue_jw_obj(&w);
    for (i = 0; i < 2; i++)
      if (r->scen[i].n) {
        rescue_jw_key(&w, scen_names[i]);
        class_metrics_json(&w, r, &r->scen[i]);
      }
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
}

/* Short column titles for the metric keys. */
static const char *short_key(const char *k) {
  static const struct {
    const char *key, *title;
  } t[] = {{"precision_yes", "P_yes"},
           {"recall_yes", "R_yes"},
           {"f1_yes", "F1_yes"},
           {"precision_no", "P_no"},
           {"recall_no", "R_no"},
           {"f1_no", "F1_no"},
           {"accuracy", "acc"},
           {"balanced_accuracy", "bal_acc"},
           {"macro_precision", "mP"},
           {"macro_recall", "mR"},
           {"macro_f1", "mF1"},
           {"avg_intensity_match", "int_match"},
           {"intensity_exact_rate", "exact"},
           {"intensity_mae", "MAE"}};
  size_t i;
  const char *u;
  for (i = 0; i < sizeof t / sizeof t[0]; i++)
    if (!strcmp(t[i].key, k))
      return t[i].title;
  if ((u = strstr(k, "recall_at_")))
    return u + 7; /* "at_1" */
  if (strstr(k, "_mrr"))
    return "MRR";
  return k;
}

/* One table row: name and the metrics of a group. */
static void text_row(rescue_buf *b, const rescue_score_report *r, const char *name, const acc *a) {
  const char *const *k = metric_keys(r);
  rescue_buf_printf(b, "  %-44.44s", name);
  for (; *k; k++) {
    double v = acc_metric(r, a, *k);
    if (!strcmp(*k, "n") || !strcmp(*k, "scored"))
      rescue_buf_printf(b, " %9ld", (long)v);
    else if (isnan(v))
      rescue_buf_printf(b, " %9s", "-");
    else
      rescue_buf_printf(b, " %9.4f", v);
  }
  rescue_buf_putc(b, '\n');
}

static void text_header(rescue_buf *b, const rescue_score_report *r, const char *title) {
  const char *const *k = metric_keys(r);
  rescue_buf_printf(b, "  %-44s", title);
  for (; *k; k++)
    rescue_buf_printf(b, " %9s", short_key(*k));
  rescue_buf_putc(b, '\n');
}

void rescue_score_text(const rescue_score_report *r, rescue_buf *b) {
  rescue_buf notes = RESCUE_BUF_INIT;
  const char *p, *nl;
  int i, er_release = r->task == RESCUE_TASK_ER && RELEASE(r);
  long k;
  sort_conf(r);
  rescue_buf_printf(b, "%s, protocol %s%s\n", rescue_task_name(r->task),
                    rescue_score_protocol_name(r->proto),
                    RELEASE(r) ? " (the release scripts' arithmetic)"
                               : " (a missing prediction is wrong; every tolerance counted)");
  rescue_buf_printf(b, "%ld instances: %ld predicted, %ld missing, %ld invalid", r->c.instances,
                    r->c.predicted, r->c.missing, r->c.invalid);
  if (r->c.empty)
    rescue_buf_printf(b, ", %ld empty answers", r->c.empty);
  if (r->c.coerced)
    rescue_buf_printf(b, ", %ld coerced", r->c.coerced);
  if (r->c.unknown_ids)
    rescue_buf_printf(b, ", %ld for unknown ids", r->c.unknown_ids);
  if (r->c.duplicates)
    rescue_buf_printf(b, ", %ld duplicates (last kept)", r->c.duplicates);
  if (r->c.no_id)
    rescue_buf_printf(b, ", %ld without an id", r->c.no_id);
  if (r->c.invalid_lines)
    rescue_buf_printf(b, ", %ld invalid lines", r->c.invalid_lines);
  if (r->c.dropped_labels)
    rescue_buf_printf(b, ", %ld labels dropped", r->c.dropped_labels);
  if (r->c.dropped_items)
    rescue_buf_printf(b, ", %ld reply items not used", r->c.dropped_items);
  if (r->c.failed_samples)
    rescue_buf_printf(b, ", %ld samples failed", r->c.failed_samples);
  rescue_buf_puts(b, "\n");
  build_notes(r, &notes);
  if (!rescue_buf_ok(&notes))
    b->oom = 1;
  for (p = notes.s; p && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    rescue_buf_printf(b, "  - %.*s\n", (int)(nl - p), p);
  }
  rescue_buf_clear(&notes);
  for (k = 0; k < r->nprobs && k < 20; k++)
    rescue_buf_printf(
        b, "  line %ld%s%s: %s\n", r->probs[k].line, r->probs[k].inst >= 0 ? ", " : "",
        r->probs[k].inst >= 0 ? tab_s(&r->ids, r->probs[k].inst) : "", r->probs[k].reason);
  if (r->nprobs > 20)
    rescue_buf_printf(b, "  ... %ld more problems (all in the JSON report)\n", r->nprobs - 20);
  rescue_buf_putc(b, '\n');
  text_header(b, r, "overall");
  text_row(b, r, "all", &r->overall);
  for (i = 0; i < 2; i++)
    if (r->scen[i].n)
      text_row(b, r, scen_names[i], &r->scen[i]);
  if (!er_release) {
    rescue_buf_putc(b, '\n');
    text_header(b, r, "per couple");
    for (i = 0; i < tab_n(&r->couples); i++)
      text_row(b, r, tab_s(&r->couples, i), &r->by_couple[i]);
  }
  rescue_buf_putc(b, '\n');
  text_header(b, r, "per sample");
  for (i = 0; i < tab_n(&r->samples); i++)
    if (!(r->task == RESCUE_TASK_ER && r->failed[i]))
      text_row(b, r, tab_s(&r->samples, i), &r->by_sample[i]);
  if (r->task == RESCUE_TASK_RPP) {
    int s;
    for (s = 0; s < 2; s++) {
      const acc *a = &r->scen[s];
      if (!a->n)
        continue;
      rescue_buf_printf(b, "\n  %-32s %9s %9s %9s %8s\n",
                        s ? "top-1 per label (family)" : "top-1 per label (couple)", "precision",
                        "recall", "f1", "support");
      for (i = 0; i < a->nlab; i++) {
        double pr, rc;
        if (!a->in_tax[i])
          continue;
        pr = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfp[i]));
        rc = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfn[i]));
        rescue_buf_printf(b, "  %-32s %9.4f %9.4f %9.4f %8ld\n", tab_s(&r->labels, i), pr, rc,
                          f1(pr, rc), a->lsup[i]);
      }
    }
  }
  rescue_buf_printf(b, "\n  confusions (gold -> %s, most frequent first)\n",
                    r->task == RESCUE_TASK_ITP ? "prediction" : "top-1");
  for (i = 0; i < r->nconf; i++) {
    if (r->task == RESCUE_TASK_ER)
      rescue_buf_printf(b, "  %8ld  %d -> %d\n", r->conf[i].count, r->conf[i].gold,
                        r->conf[i].pred);
    else
      rescue_buf_printf(b, "  %8ld  %s -> %s\n", r->conf[i].count, label_name(r, r->conf[i].gold),
                        r->conf[i].pred < 0 && r->task != RESCUE_TASK_ITP
                            ? "(none)"
                            : label_name(r, r->conf[i].pred));
  }
  if (r->task == RESCUE_TASK_ER)
    for (i = 0; i < tab_n(&r->samples); i++)
      if (r->failed[i])
        rescue_buf_printf(b, "  failed: %s\n", tab_s(&r->samples, i));
}
