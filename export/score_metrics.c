/*
** score_metrics.c: the per-task metrics of `rescue score`, overall, per scenario, per
** couple and per sample.
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

/* ---- metrics ---- */

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
  if (RESCUE_ALLOC_GROW(r->conf, r->nconf + 1, r->capconf))
    return RESCUE_ENOMEM;
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

int score_compute(rescue_score_report *r) {
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
double score_acc_metric(const rescue_score_report *r, const acc *a, const char *key) {
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
const char *const *score_metric_keys(const rescue_score_report *r) {
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
  return score_acc_metric(r, &r->overall, key);
}

double rescue_score_scenario_metric(const rescue_score_report *r, const char *scenario,
                                    const char *key) {
  int f = strcmp(scenario, "family") == 0;
  if (!f && strcmp(scenario, "couple") != 0)
    return NAN;
  return r->scen[f].n ? score_acc_metric(r, &r->scen[f], key) : NAN;
}

double rescue_score_sample_metric(const rescue_score_report *r, const char *sample_id,
                                  const char *key) {
  int s = score_intern((rescue_strmap *)&r->samples, sample_id, strlen(sample_id), 0);
  if (s < 0 || (r->task == RESCUE_TASK_ER && r->failed[s]))
    return NAN;
  return score_acc_metric(r, &r->by_sample[s], key);
}

void rescue_score_get_counts(const rescue_score_report *r, rescue_score_counts *out) {
  *out = r->c;
}
