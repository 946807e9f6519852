/*
** score.c: `rescue score`: predictions against an exported task file, by the paper's
** metrics (export/TASKS.md §4). Both files are read with jansson, one line at a time;
** the report keeps a few integers per instance, never the records.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_score.h"

/* ---- interned strings ---- */

typedef struct strtab {
  char **s;
  int n, cap;
  int *slot; /* open addressing: index + 1, 0 empty */
  size_t nslot;
} strtab;

static uint64_t hash_bytes(const char *s, size_t n) {
  uint64_t h = 1469598103934665603ULL;
  while (n--) {
    h ^= (unsigned char)*s++;
    h *= 1099511628211ULL;
  }
  return h;
}

static void strtab_free(strtab *t) {
  int i;
  for (i = 0; i < t->n; i++)
    rescue_free(t->s[i]);
  rescue_free(t->s);
  rescue_free(t->slot);
  memset(t, 0, sizeof *t);
}

/* Id of s (len bytes, no NUL inside); with create, adds it. -1 when absent, -2 out of memory. */
static int intern(strtab *t, const char *s, size_t len, int create) {
  size_t i;
  if (t->nslot) {
    for (i = hash_bytes(s, len) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1)) {
      const char *x = t->s[t->slot[i] - 1];
      if (strlen(x) == len && memcmp(x, s, len) == 0)
        return t->slot[i] - 1;
    }
  }
  if (!create)
    return -1;
  if ((size_t)(t->n + 1) * 2 > t->nslot) {
    size_t ns = t->nslot ? t->nslot * 2 : 64, j;
    int *nsl = rescue_calloc(ns, sizeof *nsl);
    if (!nsl)
      return -2;
    for (j = 0; j < (size_t)t->n; j++) {
      size_t k = hash_bytes(t->s[j], strlen(t->s[j])) & (ns - 1);
      while (nsl[k])
        k = (k + 1) & (ns - 1);
      nsl[k] = (int)j + 1;
    }
    rescue_free(t->slot);
    t->slot = nsl;
    t->nslot = ns;
  }
  if (t->n == t->cap) {
    int nc = t->cap ? t->cap * 2 : 64;
    char **n = rescue_realloc(t->s, (size_t)nc * sizeof *n);
    if (!n)
      return -2;
    t->s = n;
    t->cap = nc;
  }
  if (!(t->s[t->n] = rescue_strndup(s, len)))
    return -2;
  for (i = hash_bytes(s, len) & (t->nslot - 1); t->slot[i]; i = (i + 1) & (t->nslot - 1))
    ;
  t->slot[i] = t->n + 1;
  return t->n++;
}

/* ---- accumulators ---- */

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
  /* top-1 per label (RPP macro): arrays over label ids, only for overall and scenarios */
  long *ltp, *lfp, *lfn, *lsup;
  unsigned char *in_tax;
  int nlab;
} acc;

typedef struct inst {
  int id, sample, couple, family;
  int gold;  /* ITP 1/0; label id; ER intensity */
  int cands; /* candidate list (rank tasks) */
  unsigned char has_pred, invalid;
  int pred[3]; /* ITP: pred[0] 1/0; rank: label ids or -1; ER: intensity */
} inst;

typedef struct cand_list {
  int n;
  int *labels;
} cand_list;

struct rescue_score_report {
  rescue_task task;
  char *gold_path, *pred_path;
  strtab ids, samples, couples, labels, list_keys;
  inst *v;
  long n, cap;
  cand_list *lists;
  int nlists, caplists;
  rescue_score_counts c;
  unsigned char *failed; /* ER: per sample */
  acc overall, scen[2];
  acc *by_couple, *by_sample;
  pair_count *conf;
  int nconf, capconf;
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
  strtab_free(&r->ids);
  strtab_free(&r->samples);
  strtab_free(&r->couples);
  strtab_free(&r->labels);
  strtab_free(&r->list_keys);
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
  rescue_free(r);
  *rp = NULL;
}

/* ---- values ---- */

/*
** The §0.1 cleaning of a jansson value into b (reset first): strings stripped as Python
** does, numbers as Python's str(), true as "True"; null, false, 0, "" and empty
** containers as "". Containers with content are not labels: they give "" too.
*/
static size_t jclean(rescue_buf *b, const json_t *v) {
  char num[40];
  size_t a, e;
  rescue_buf_reset(b);
  rescue_buf_putn(b, "", 0);
  if (!v)
    return 0;
  switch (json_typeof(v)) {
  case JSON_STRING:
    rescue_pystrip(json_string_value(v), json_string_length(v), &a, &e);
    rescue_buf_putn(b, json_string_value(v) + a, e - a);
    break;
  case JSON_INTEGER:
    if (json_integer_value(v) != 0) {
      snprintf(num, sizeof num, "%lld", (long long)json_integer_value(v));
      rescue_buf_puts(b, num);
    }
    break;
  case JSON_REAL:
    if (json_real_value(v) != 0) {
      rescue_format_double(json_real_value(v), num);
      rescue_buf_puts(b, num);
    }
    break;
  case JSON_TRUE:
    rescue_buf_puts(b, "True");
    break;
  case JSON_FALSE:
  case JSON_NULL:
  case JSON_OBJECT:
  case JSON_ARRAY:
    break;
  }
  return b->len;
}

/* An intensity as the scripts parse it (number, numeric string, boolean): 0..10 or -1. */
static int parse_intensity(const json_t *v) {
  double d;
  char buf[64], *end;
  size_t a, e, i;
  if (!v)
    return -1;
  switch (json_typeof(v)) {
  case JSON_INTEGER:
    d = (double)json_integer_value(v);
    break;
  case JSON_REAL:
    d = json_real_value(v);
    break;
  case JSON_TRUE:
    d = 1;
    break;
  case JSON_FALSE:
    d = 0;
    break;
  case JSON_STRING:
    rescue_pystrip(json_string_value(v), json_string_length(v), &a, &e);
    if (e - a == 0 || e - a >= sizeof buf)
      return -1;
    for (i = a; i < e; i++)
      if (!strchr("0123456789.eE+-", json_string_value(v)[i]))
        return -1;
    memcpy(buf, json_string_value(v) + a, e - a);
    buf[e - a] = 0;
    d = strtod(buf, &end);
    if (*end || end == buf)
      return -1;
    break;
  case JSON_NULL:
  case JSON_OBJECT:
  case JSON_ARRAY:
  default:
    return -1;
  }
  if (!isfinite(d))
    return -1;
  d = rint(d);
  return d >= 0 && d <= 10 ? (int)d : -1;
}

/* ITP §2.1: 1 yes, 0 no, -1 invalid (which then counts as no). */
static int parse_should_speak(const json_t *v, rescue_buf *tmp) {
  static const char *const yes[] = {"yes", "y", "true", "1", "speak", "should_speak"};
  static const char *const no[] = {"no",          "n", "false", "0", "listen", "keep_listening",
                                   "do_not_speak"};
  size_t i;
  if (v && json_is_boolean(v))
    return json_is_true(v) ? 1 : 0;
  jclean(tmp, v);
  for (i = 0; i < tmp->len; i++)
    tmp->s[i] = (char)tolower((unsigned char)tmp->s[i]);
  for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (strcmp(tmp->s, yes[i]) == 0)
      return 1;
  for (i = 0; i < sizeof no / sizeof no[0]; i++)
    if (strcmp(tmp->s, no[i]) == 0)
      return 0;
  if (strstr(tmp->s, "yes"))
    return 1;
  if (strstr(tmp->s, "no"))
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
    "gold_support_strategy", "gold_intensity_score",  NULL};
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

/* A string member that must be present. */
static const char *need_string(const json_t *o, const char *key) {
  const json_t *v = json_object_get(o, key);
  return v && json_is_string(v) ? json_string_value(v) : NULL;
}

/* Intern the candidate list of a gold record; returns its index or a negative error. */
static int intern_list(rescue_score_report *r, const json_t *arr, rescue_buf *key) {
  size_t i;
  int id, *labels;
  rescue_buf_reset(key);
  for (i = 0; i < json_array_size(arr); i++) {
    const json_t *x = json_array_get(arr, i);
    if (!json_is_string(x))
      return -3;
    rescue_buf_putn(key, json_string_value(x), json_string_length(x) + 1);
  }
  rescue_buf_putc(key, 1); /* non-empty key even for an empty list */
  if (!rescue_buf_ok(key))
    return -2;
  id = intern(&r->list_keys, key->s, key->len, 0);
  if (id >= 0)
    return id;
  if (memchr(key->s, 1, key->len - 1))
    return -3;
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
  labels = rescue_calloc(json_array_size(arr) + 1, sizeof *labels);
  if (!labels)
    return -2;
  for (i = 0; i < json_array_size(arr); i++) {
    const json_t *x = json_array_get(arr, i);
    int l = intern(&r->labels, json_string_value(x), json_string_length(x), 1);
    if (l < 0) {
      rescue_free(labels);
      return -2;
    }
    labels[i] = l;
  }
  r->lists[r->nlists].n = (int)json_array_size(arr);
  r->lists[r->nlists].labels = labels;
  return r->nlists++;
}

/* Read the gold file into r->v. */
static int read_gold(rescue_score_report *r, line_reader *lr, rescue_error *err) {
  const char *tname = rescue_task_name(r->task);
  rescue_buf key = RESCUE_BUF_INIT;
  char *line;
  size_t len;
  int rc = 0;
  while (rc == 0 && (line = next_line(lr, &len)) != NULL) {
    json_error_t je;
    json_t *o;
    const char *id, *sample, *couple, *scen, *task;
    inst *in;
    if (blank(line, len))
      continue;
    o = json_loadb(line, len, 0, &je);
    if (!o) {
      rc = BAD(lr, je.column > 0 ? je.column : 1, "%s", je.text);
      break;
    }
    if (!json_is_object(o)) {
      rc = BAD(lr, 1, "expected a task record (a JSON object)");
    } else if (!(task = need_string(o, "task"))) {
      rc = BAD(lr, 1, "record has no \"task\": not a file of 'rescue export --format tasks'");
    } else if (strcmp(task, tname) != 0) {
      rc = BAD(lr, 1, "this is a %s record, not %s", task, tname);
    } else if (!(id = need_string(o, "instance_id")) || !*id) {
      rc = BAD(lr, 1, "record has no instance_id");
    } else if (!(sample = need_string(o, "sample_id")) || !(couple = need_string(o, "couple")) ||
               !(scen = need_string(o, "scenario"))) {
      rc = BAD(lr, 1, "record lacks sample_id, couple or scenario");
    } else {
      const json_t *g = json_object_get(o, gold_keys[r->task]);
      if (r->n == r->cap) {
        long nc = r->cap ? r->cap * 2 : 1024;
        inst *nv = rescue_realloc(r->v, (size_t)nc * sizeof *nv);
        if (!nv) {
          rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
          json_decref(o);
          break;
        }
        r->v = nv;
        r->cap = nc;
      }
      in = &r->v[r->n];
      memset(in, 0, sizeof *in);
      in->cands = -1;
      in->family = strcmp(scen, "family") == 0;
      if (intern(&r->ids, id, strlen(id), 0) >= 0) {
        rc = BAD(lr, 1, "instance_id '%s' appears twice", id);
      } else if ((in->id = intern(&r->ids, id, strlen(id), 1)) < 0 ||
                 (in->sample = intern(&r->samples, sample, strlen(sample), 1)) < 0 ||
                 (in->couple = intern(&r->couples, couple, strlen(couple), 1)) < 0) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      } else if (r->task == RESCUE_TASK_ITP) {
        const char *gs = g && json_is_string(g) ? json_string_value(g) : "";
        if (strcmp(gs, "yes") != 0 && strcmp(gs, "no") != 0)
          rc = BAD(lr, 1, "gold_should_speak must be \"yes\" or \"no\"");
        in->gold = strcmp(gs, "yes") == 0;
      } else if (r->task == RESCUE_TASK_ER) {
        if (!g || !json_is_integer(g) || json_integer_value(g) < 0 || json_integer_value(g) > 10)
          rc = BAD(lr, 1, "gold_intensity_score must be a whole number from 0 to 10");
        else
          in->gold = (int)json_integer_value(g);
      } else {
        const json_t *cl = json_object_get(o, cand_keys[r->task]);
        if (!g || !json_is_string(g) || !json_string_length(g)) {
          rc = BAD(lr, 1, "%s must be a non-empty string", gold_keys[r->task]);
        } else if (!cl || !json_is_array(cl)) {
          rc = BAD(lr, 1, "%s must be a list of labels", cand_keys[r->task]);
        } else {
          in->gold = intern(&r->labels, json_string_value(g), json_string_length(g), 1);
          in->cands = intern_list(r, cl, &key);
          if (in->gold == -2 || in->cands == -2)
            rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
          else if (in->cands == -3)
            rc = BAD(lr, 1, "%s must be a list of labels", cand_keys[r->task]);
        }
      }
      if (rc == 0)
        r->n++;
    }
    json_decref(o);
  }
  if (rc == 0 && ferror(lr->f))
    rc = rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", lr->path, strerror(errno));
  rescue_buf_free(&key);
  return rc;
}

/* ---- predictions ---- */

/* Parse a list prediction of a rank task into in->pred (§2.2-§2.4). */
static void parse_top3(rescue_score_report *r, inst *in, const json_t *v, rescue_buf *tmp) {
  const cand_list *cl = &r->lists[in->cands];
  int got = 0, i, j;
  size_t k;
  in->pred[0] = in->pred[1] = in->pred[2] = -1;
  if (!v || !json_is_array(v)) {
    in->invalid = 1;
    return;
  }
  for (k = 0; k < json_array_size(v); k++) {
    int l, member = 0, dup = 0;
    if (!jclean(tmp, json_array_get(v, k)))
      continue;
    l = intern(&r->labels, tmp->s, tmp->len, 0);
    for (i = 0; l >= 0 && i < cl->n; i++)
      member |= cl->labels[i] == l;
    for (i = 0; i < got; i++)
      dup |= in->pred[i] == l;
    if (dup)
      continue;
    if (!member) {
      r->c.dropped_labels++;
      continue;
    }
    if (got < 3)
      in->pred[got++] = l;
  }
  if (r->task == RESCUE_TASK_RPP) /* pad with taxonomy labels in order */
    for (i = 0; got < 3 && i < cl->n; i++) {
      int present = 0;
      for (j = 0; j < got; j++)
        present |= in->pred[j] == cl->labels[i];
      if (!present)
        in->pred[got++] = cl->labels[i];
    }
}

/* Record one prediction object. */
static int take_prediction(rescue_score_report *r, const json_t *o, rescue_buf *tmp) {
  static const char *const id_keys[] = {"instance_id", "candidate_id", "turn_id", "checkpoint_id"};
  const json_t *idv = NULL;
  inst *in;
  long x;
  size_t k;
  int id;
  for (k = 0; k < sizeof id_keys / sizeof id_keys[0] && !idv; k++)
    idv = json_object_get(o, id_keys[k]);
  if (!jclean(tmp, idv)) {
    r->c.no_id++;
    return 0;
  }
  id = intern(&r->ids, tmp->s, tmp->len, 0);
  if (id < 0) {
    r->c.unknown_ids++;
    return 0;
  }
  /* ids were interned in gold order: instance index == id */
  x = id;
  in = &r->v[x];
  if (in->has_pred)
    r->c.duplicates++;
  in->has_pred = 1;
  in->invalid = 0;
  switch (r->task) {
  case RESCUE_TASK_ITP: {
    int p = parse_should_speak(json_object_get(o, pred_keys[r->task]), tmp);
    in->invalid = p < 0;
    in->pred[0] = p > 0;
    break;
  }
  case RESCUE_TASK_RPP:
  case RESCUE_TASK_STP:
  case RESCUE_TASK_SSP:
    parse_top3(r, in, json_object_get(o, pred_keys[r->task]), tmp);
    break;
  case RESCUE_TASK_ER:
    in->pred[0] = parse_intensity(json_object_get(o, pred_keys[r->task]));
    in->invalid = in->pred[0] < 0;
    break;
  case RESCUE_TASK_VP:
    break;
  }
  return 0;
}

/*
** A model reply as text (§6.2): strip a leading ```json or ``` fence and a trailing
** fence, parse the whole; failing that, the first {...} or [...] that parses.
*/
static json_t *parse_reply(const char *s, size_t n) {
  const char *end = s + n, *p;
  json_t *v;
  while (s < end && isspace((unsigned char)*s))
    s++;
  while (end > s && isspace((unsigned char)end[-1]))
    end--;
  if (end - s >= 3 && memcmp(s, "```", 3) == 0) {
    s += 3;
    if (end - s >= 4 && strncasecmp(s, "json", 4) == 0)
      s += 4;
  }
  if (end - s >= 3 && memcmp(end - 3, "```", 3) == 0)
    end -= 3;
  if ((v = json_loadb(s, (size_t)(end - s), JSON_DECODE_ANY, NULL)) != NULL)
    return v;
  for (p = s; p < end; p++) {
    if (*p != '{' && *p != '[')
      continue;
    v = json_loadb(p, (size_t)(end - p), JSON_DISABLE_EOF_CHECK, NULL);
    if (v && json_is_object(v))
      return v;
    json_decref(v);
  }
  return NULL;
}

/* The prediction objects in one value: an object (with or without "predictions"), a list. */
static int take_value(rescue_score_report *r, const json_t *v, rescue_buf *tmp, int depth) {
  size_t i;
  if (depth > 3)
    return 0;
  if (json_is_string(v)) {
    json_t *inner = parse_reply(json_string_value(v), json_string_length(v));
    if (!inner) {
      r->c.bad_replies++;
      return 0;
    }
    take_value(r, inner, tmp, depth + 1);
    json_decref(inner);
    return 0;
  }
  if (json_is_array(v)) {
    for (i = 0; i < json_array_size(v); i++) {
      const json_t *x = json_array_get(v, i);
      if (json_is_object(x) || json_is_string(x))
        take_value(r, x, tmp, depth + 1);
      else
        r->c.no_id++;
    }
    return 0;
  }
  if (json_is_object(v)) {
    const json_t *p = json_object_get(v, "predictions");
    if (p && (json_is_array(p) || json_is_object(p)) && !json_object_get(v, pred_keys[r->task]))
      return take_value(r, p, tmp, depth + 1);
    return take_prediction(r, v, tmp);
  }
  r->c.no_id++;
  return 0;
}

static int read_predictions(rescue_score_report *r, line_reader *lr, rescue_error *err) {
  rescue_buf tmp = RESCUE_BUF_INIT;
  char *line;
  size_t len;
  int rc = 0;
  while (rc == 0 && (line = next_line(lr, &len)) != NULL) {
    json_error_t je;
    json_t *v;
    if (blank(line, len))
      continue;
    v = json_loadb(line, len, JSON_DECODE_ANY, &je);
    if (!v) {
      rc = BAD(lr, je.column > 0 ? je.column : 1, "%s", je.text);
      break;
    }
    if (!json_is_object(v) && !json_is_array(v) && !json_is_string(v))
      rc = BAD(lr, 1, "expected a prediction object with \"instance_id\" and \"%s\"",
               pred_keys[r->task]);
    else
      rc = take_value(r, v, &tmp, 0);
    json_decref(v);
  }
  if (rc == 0 && ferror(lr->f))
    rc = rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", lr->path, strerror(errno));
  if (rc == 0 && !rescue_buf_ok(&tmp))
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  rescue_buf_free(&tmp);
  return rc;
}

/* ---- metrics ---- */

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
  case RESCUE_TASK_VP:
    break;
  }
}

static int compute(rescue_score_report *r) {
  long i;
  int rc = 0;
  r->by_couple = rescue_calloc((size_t)r->couples.n + 1, sizeof *r->by_couple);
  r->by_sample = rescue_calloc((size_t)r->samples.n + 1, sizeof *r->by_sample);
  r->failed = rescue_calloc((size_t)r->samples.n + 1, 1);
  if (!r->by_couple || !r->by_sample || !r->failed)
    return RESCUE_ENOMEM;
  if (r->task == RESCUE_TASK_RPP &&
      (acc_labels(&r->overall, r->labels.n) || acc_labels(&r->scen[0], r->labels.n) ||
       acc_labels(&r->scen[1], r->labels.n)))
    return RESCUE_ENOMEM;
  for (i = 0; i < r->n; i++) {
    inst *in = &r->v[i];
    if (!in->has_pred)
      r->c.missing++;
    else
      r->c.predicted++;
    if (in->has_pred && in->invalid)
      r->c.invalid++;
    if (r->task == RESCUE_TASK_ER && in->has_pred && in->invalid && !r->failed[in->sample]) {
      r->failed[in->sample] = 1;
      r->c.failed_samples++;
    }
  }
  for (i = 0; i < r->n && rc == 0; i++) {
    inst *in = &r->v[i];
    int usable = in->has_pred && !in->invalid;
    int yes = 0, rank = 0, top1 = -1, pint = -1, k;
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
    case RESCUE_TASK_VP:
      break;
    }
    acc_add(&r->overall, r, in, yes, rank, top1, pint);
    acc_add(&r->scen[in->family], r, in, yes, rank, top1, pint);
    acc_add(&r->by_couple[in->couple], r, in, yes, rank, top1, pint);
    acc_add(&r->by_sample[in->sample], r, in, yes, rank, top1, pint);
  }
  return rc;
}

static double ratio(double a, double b) { return b != 0 ? a / b : 0.0; }
static double f1(double p, double r) { return p + r != 0 ? 2 * p * r / (p + r) : 0.0; }

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
    if (r->task == RESCUE_TASK_RPP && a->nlab &&
        (!strcmp(key, "macro_precision") || !strcmp(key, "macro_recall") ||
         !strcmp(key, "macro_f1"))) {
      double sp = 0, sr = 0, sf = 0;
      int nl = 0;
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
    if (!strcmp(key, "avg_intensity_match"))
      return a->match / (double)a->scored;
    if (!strcmp(key, "intensity_exact_rate"))
      return (double)a->exact / (double)a->scored;
    if (!strcmp(key, "intensity_mae"))
      return a->abs_err / (double)a->scored;
    return NAN;
  case RESCUE_TASK_VP:
    return NAN;
  }
  return NAN;
}

/* The metric keys of a task, in report order (NULL-terminated). */
static const char *const *metric_keys(rescue_task t, int macro) {
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
  static const char *const rpp_plain[] = {"n",
                                          "accuracy",
                                          "relation_recall_at_1",
                                          "relation_recall_at_2",
                                          "relation_recall_at_3",
                                          "relation_mrr",
                                          NULL};
  switch (t) {
  case RESCUE_TASK_ITP:
    return itp;
  case RESCUE_TASK_RPP:
    return macro ? rpp : rpp_plain;
  case RESCUE_TASK_STP:
    return stp;
  case RESCUE_TASK_SSP:
    return ssp;
  case RESCUE_TASK_ER:
    return er;
  case RESCUE_TASK_VP:
    return er + 5;
  }
  return er + 5;
}

double rescue_score_metric(const rescue_score_report *r, const char *key) {
  return acc_metric(r, &r->overall, key);
}

void rescue_score_get_counts(const rescue_score_report *r, rescue_score_counts *out) {
  *out = r->c;
}

int rescue_score_files(rescue_task task, const char *gold_path, const char *pred_path,
                       rescue_score_report **out, rescue_error *err) {
  rescue_score_report *r = NULL;
  line_reader lr = {NULL, NULL, NULL, 0, 0};
  int rc;
  *out = NULL;
  if (task == RESCUE_TASK_VP)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "VP has no offline metric: its scores come from an LLM judge "
                         "(source-target, viewpoint and total scores, export/TASKS.md §4)");
  if (!(r = rescue_calloc(1, sizeof *r)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  r->task = task;
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
  return l >= 0 ? r->labels.s[l] : "";
}

/* Confusion pairs ordered most frequent first, then by gold, then by prediction. */
static int conf_cmp_task; /* qsort has no context argument */
static const rescue_score_report *conf_cmp_r;
static int conf_cmp(const void *a, const void *b) {
  const pair_count *x = a, *y = b;
  int c;
  if (x->count != y->count)
    return x->count > y->count ? -1 : 1;
  if (conf_cmp_task == RESCUE_TASK_ER)
    return x->gold != y->gold ? x->gold - y->gold : x->pred - y->pred;
  c = strcmp(label_name(conf_cmp_r, x->gold), label_name(conf_cmp_r, y->gold));
  return c ? c : strcmp(label_name(conf_cmp_r, x->pred), label_name(conf_cmp_r, y->pred));
}

static void sort_conf(const rescue_score_report *r) {
  conf_cmp_task = (int)r->task;
  conf_cmp_r = r;
  qsort(r->conf, (size_t)r->nconf, sizeof *r->conf, conf_cmp);
}

static void acc_json(rescue_jw *w, const rescue_score_report *r, const acc *a, int macro) {
  const char *const *k = metric_keys(r->task, macro);
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
    rescue_jw_key(w, r->labels.s[i]);
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

void rescue_score_json(const rescue_score_report *r, rescue_buf *out) {
  static const char *const scen_names[2] = {"couple", "family"};
  rescue_jw w;
  int i;
  sort_conf(r);
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "task");
  rescue_jw_str(&w, rescue_task_name(r->task));
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
  COUNT(unknown_ids);
  COUNT(duplicates);
  COUNT(no_id);
  COUNT(bad_replies);
  COUNT(dropped_labels);
  COUNT(failed_samples);
#undef COUNT
  rescue_jw_end(&w);
  rescue_jw_key(&w, "overall");
  acc_json(&w, r, &r->overall, 1);
  rescue_jw_key(&w, "scenarios");
  rescue_jw_obj(&w);
  for (i = 0; i < 2; i++)
    if (r->scen[i].n) {
      rescue_jw_key(&w, scen_names[i]);
      acc_json(&w, r, &r->scen[i], 1);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "couples");
  rescue_jw_obj(&w);
  for (i = 0; i < r->couples.n; i++) {
    rescue_jw_key(&w, r->couples.s[i]);
    acc_json(&w, r, &r->by_couple[i], 0);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_obj(&w);
  for (i = 0; i < r->samples.n; i++) {
    if (r->task == RESCUE_TASK_ER && r->failed[i])
      continue;
    rescue_jw_key(&w, r->samples.s[i]);
    acc_json(&w, r, &r->by_sample[i], 0);
  }
  rescue_jw_end(&w);
  if (r->task == RESCUE_TASK_ER) {
    rescue_jw_key(&w, "failed");
    rescue_jw_arr(&w);
    for (i = 0; i < r->samples.n; i++)
      if (r->failed[i])
        rescue_jw_str(&w, r->samples.s[i]);
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
    class_metrics_json(&w, r, &r->overall);
  }
  rescue_jw_end(&w);
}

/* One table row: name and the metrics of a group. */
static void text_row(rescue_buf *b, const rescue_score_report *r, const char *name, const acc *a,
                     int macro) {
  const char *const *k = metric_keys(r->task, macro);
  rescue_buf_printf(b, "  %-44.44s", name);
  for (; *k; k++) {
    double v = acc_metric(r, a, *k);
    if (!strcmp(*k, "n") || !strcmp(*k, "scored"))
      rescue_buf_printf(b, " %7ld", (long)v);
    else if (isnan(v))
      rescue_buf_printf(b, " %7s", "-");
    else
      rescue_buf_printf(b, " %7.4f", v);
  }
  rescue_buf_putc(b, '\n');
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

static void text_header(rescue_buf *b, const rescue_score_report *r, const char *title, int macro) {
  const char *const *k = metric_keys(r->task, macro);
  rescue_buf_printf(b, "  %-44s", title);
  for (; *k; k++)
    rescue_buf_printf(b, " %7s", short_key(*k));
  rescue_buf_putc(b, '\n');
}

void rescue_score_text(const rescue_score_report *r, rescue_buf *b) {
  static const char *const scen_names[2] = {"couple", "family"};
  int i;
  sort_conf(r);
  rescue_buf_printf(b, "%s: %ld instances, %ld predicted, %ld missing", rescue_task_name(r->task),
                    r->c.instances, r->c.predicted, r->c.missing);
  if (r->task == RESCUE_TASK_ITP)
    rescue_buf_puts(b, " (counted as no)");
  else if (r->task == RESCUE_TASK_ER)
    rescue_buf_puts(b, " (left out of the means)");
  else
    rescue_buf_puts(b, " (counted as wrong)");
  rescue_buf_printf(b, ", %ld invalid", r->c.invalid);
  if (r->c.unknown_ids)
    rescue_buf_printf(b, ", %ld for unknown ids", r->c.unknown_ids);
  if (r->c.duplicates)
    rescue_buf_printf(b, ", %ld duplicates (last kept)", r->c.duplicates);
  if (r->c.no_id)
    rescue_buf_printf(b, ", %ld without an id", r->c.no_id);
  if (r->c.bad_replies)
    rescue_buf_printf(b, ", %ld replies without JSON", r->c.bad_replies);
  if (r->c.dropped_labels)
    rescue_buf_printf(b, ", %ld labels dropped", r->c.dropped_labels);
  if (r->c.failed_samples)
    rescue_buf_printf(b, ", %ld samples failed (unparseable intensity)", r->c.failed_samples);
  rescue_buf_puts(b, "\n\n");
  text_header(b, r, "overall", 1);
  text_row(b, r, "all", &r->overall, 1);
  for (i = 0; i < 2; i++)
    if (r->scen[i].n)
      text_row(b, r, scen_names[i], &r->scen[i], 1);
  rescue_buf_putc(b, '\n');
  text_header(b, r, "per couple", 0);
  for (i = 0; i < r->couples.n; i++)
    text_row(b, r, r->couples.s[i], &r->by_couple[i], 0);
  rescue_buf_putc(b, '\n');
  text_header(b, r, "per sample", 0);
  for (i = 0; i < r->samples.n; i++)
    if (!(r->task == RESCUE_TASK_ER && r->failed[i]))
      text_row(b, r, r->samples.s[i], &r->by_sample[i], 0);
  if (r->task == RESCUE_TASK_RPP) {
    const acc *a = &r->overall;
    rescue_buf_printf(b, "\n  %-32s %9s %9s %9s %8s\n", "top-1 per label", "precision", "recall",
                      "f1", "support");
    for (i = 0; i < a->nlab; i++) {
      double p, rc;
      if (!a->in_tax[i])
        continue;
      p = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfp[i]));
      rc = ratio((double)a->ltp[i], (double)(a->ltp[i] + a->lfn[i]));
      rescue_buf_printf(b, "  %-32s %9.4f %9.4f %9.4f %8ld\n", r->labels.s[i], p, rc, f1(p, rc),
                        a->lsup[i]);
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
  if (r->task == RESCUE_TASK_ER) {
    rescue_buf_puts(b, "\n  The emotion score needs an LLM judge and BERTScore a model: only the "
                       "intensity match is computed here.\n");
    for (i = 0; i < r->samples.n; i++)
      if (r->failed[i])
        rescue_buf_printf(b, "  failed: %s\n", r->samples.s[i]);
  }
}
