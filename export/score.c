/*
** score.c: `rescue score`: model predictions against an exported task file, under the
** `release` protocol (the benchmark scripts' arithmetic) or the `rescue` one (the
** default). Both files are read one line at a time with the project's JSON reader (the
** gold strictly, the predictions as Python's json module would); the report keeps a few
** integers per instance, never the records. This file holds the report's life cycle and
** the driver; score_read.c reads the files, score_values.c reads values as each protocol
** does, score_metrics.c counts, score_report.c prints.
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

#include "score_int.h"

/* ---- interned strings ---- */

/* Id of s (len bytes; list keys hold NULs); with create, adds it. -1 absent, -2 out of memory. */
int score_intern(rescue_strmap *t, const char *s, size_t len, int create) {
  int64_t i = create ? rescue_strmap_put(t, s, len, 0, NULL) : rescue_strmap_find(t, s, len);
  if (i > INT_MAX - 1)
    return -2;
  return i >= 0 ? (int)i : create ? -2 : -1;
}

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

/* Record a problem (reason formatted); a failed allocation is remembered in r->oom. */
void score_problem_add(rescue_score_report *r, long inst_ix, const char *fmt, ...) {
  char msg[300];
  va_list ap;
  if (RESCUE_ALLOC_GROW(r->probs, r->nprobs + 1, r->capprobs)) {
    r->oom = 1;
    return;
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
rescue_jdoc *score_doc_at(rescue_score_report *r, int depth) {
  if (depth >= r->ndocs) { /* ndocs is the capacity: every slot holds a document or NULL */
    int i = r->ndocs;
    if (RESCUE_ALLOC_GROW(r->docs, depth + 1, r->ndocs))
      return NULL;
    for (; i < r->ndocs; i++)
      r->docs[i] = NULL;
  }
  if (!r->docs[depth])
    r->docs[depth] = rescue_jdoc_new();
  return r->docs[depth];
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
                             score_pred_keys[best], rescue_task_name((rescue_task)best), name,
                             score_pred_keys[r->task]);
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
  rc = score_read_gold(r, &lr, err);
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
  rc = score_read_predictions(r, &lr, err);
  fclose(lr.f);
  if (rc)
    goto fail;
  if ((rc = score_compute(r))) {
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
