/*
** score_report.c: the `rescue score` report as JSON and as text.
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
  const char *const *k = score_metric_keys(r);
  rescue_jw_obj(w);
  for (; *k; k++) {
    double v = score_acc_metric(r, a, *k);
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

/* The "counts" member: how the predictions were read. */
static void counts_json(rescue_jw *wp, const rescue_score_report *r) {
#define COUNT(name)                                                                                \
  rescue_jw_key(wp, #name);                                                                        \
  rescue_jw_int(wp, r->c.name)
  rescue_jw_key(wp, "counts");
  rescue_jw_obj(wp);
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
  rescue_jw_end(wp);
}

/* "notes" (one string per line of build_notes), "invalid_lines", "invalid_predictions". */
static void problems_json(rescue_jw *w, const rescue_score_report *r, rescue_buf *out) {
  rescue_buf notes = RESCUE_BUF_INIT;
  const char *p, *nl;
  long i;
  rescue_jw_key(w, "notes");
  rescue_jw_arr(w);
  build_notes(r, &notes);
  if (!rescue_buf_ok(&notes))
    out->oom = 1;
  for (p = notes.s; p && *p; p = nl + 1) {
    nl = strchr(p, '\n');
    rescue_jw_strn(w, p, (size_t)(nl - p));
  }
  rescue_jw_end(w);
  rescue_buf_clear(&notes);
  rescue_jw_key(w, "invalid_lines");
  rescue_jw_arr(w);
  for (i = 0; i < r->nprobs; i++)
    if (r->probs[i].inst < 0) {
      rescue_jw_obj(w);
      rescue_jw_key(w, "line");
      rescue_jw_int(w, r->probs[i].line);
      rescue_jw_key(w, "reason");
      rescue_jw_str(w, r->probs[i].reason);
      rescue_jw_end(w);
    }
  rescue_jw_end(w);
  rescue_jw_key(w, "invalid_predictions");
  rescue_jw_arr(w);
  for (i = 0; i < r->nprobs; i++)
    if (r->probs[i].inst >= 0) {
      rescue_jw_obj(w);
      rescue_jw_key(w, "line");
      rescue_jw_int(w, r->probs[i].line);
      rescue_jw_key(w, "instance_id");
      rescue_jw_str(w, tab_s(&r->ids, r->probs[i].inst));
      rescue_jw_key(w, "reason");
      rescue_jw_str(w, r->probs[i].reason);
      rescue_jw_end(w);
    }
  rescue_jw_end(w);
}

/* The metrics: "overall", "scenarios", "couples", "samples" and, for ER, "failed". */
static void groups_json(rescue_jw *w, const rescue_score_report *r) {
  int er_release = r->task == RESCUE_TASK_ER && RELEASE(r);
  long i;
  rescue_jw_key(w, "overall");
  acc_json(w, r, &r->overall);
  rescue_jw_key(w, "scenarios");
  rescue_jw_obj(w);
  for (i = 0; i < 2; i++)
    if (r->scen[i].n) {
      rescue_jw_key(w, scen_names[i]);
      acc_json(w, r, &r->scen[i]);
    }
  rescue_jw_end(w);
  rescue_jw_key(w, "couples");
  rescue_jw_obj(w);
  for (i = 0; !er_release && i < tab_n(&r->couples); i++) {
    rescue_jw_key(w, tab_s(&r->couples, i));
    acc_json(w, r, &r->by_couple[i]);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "samples");
  rescue_jw_obj(w);
  for (i = 0; i < tab_n(&r->samples); i++) {
    if (r->task == RESCUE_TASK_ER && r->failed[i])
      continue;
    rescue_jw_key(w, tab_s(&r->samples, i));
    acc_json(w, r, &r->by_sample[i]);
  }
  rescue_jw_end(w);
  if (r->task == RESCUE_TASK_ER) {
    rescue_jw_key(w, "failed");
    rescue_jw_arr(w);
    for (i = 0; i < tab_n(&r->samples); i++)
      if (r->failed[i])
        rescue_jw_str(w, tab_s(&r->samples, i));
    rescue_jw_end(w);
  }
}

/* "confusions" (gold, pred, count; sorted by sort_conf) and, for RPP, top-1 class metrics. */
static void confusions_json(rescue_jw *w, const rescue_score_report *r) {
  long i;
  rescue_jw_key(w, "confusions");
  rescue_jw_arr(w);
  for (i = 0; i < r->nconf; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "gold");
    if (r->task == RESCUE_TASK_ER)
      rescue_jw_int(w, r->conf[i].gold);
    else
      rescue_jw_str(w, label_name(r, r->conf[i].gold));
    rescue_jw_key(w, "pred");
    if (r->task == RESCUE_TASK_ER)
      rescue_jw_int(w, r->conf[i].pred);
    else if (r->conf[i].pred < 0 && r->task != RESCUE_TASK_ITP)
      rescue_jw_null(w);
    else
      rescue_jw_str(w, label_name(r, r->conf[i].pred));
    rescue_jw_key(w, "count");
    rescue_jw_int(w, r->conf[i].count);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  if (r->task == RESCUE_TASK_RPP) {
    rescue_jw_key(w, "top1_class_metrics");
    rescue_jw_obj(w);
    for (i = 0; i < 2; i++)
      if (r->scen[i].n) {
        rescue_jw_key(w, scen_names[i]);
        class_metrics_json(w, r, &r->scen[i]);
      }
    rescue_jw_end(w);
  }
}

void rescue_score_json(const rescue_score_report *r, rescue_buf *out) {
  rescue_jw w;
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
  counts_json(&w, r);
  problems_json(&w, r, out);
  groups_json(&w, r);
  confusions_json(&w, r);
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
  const char *const *k = score_metric_keys(r);
  rescue_buf_printf(b, "  %-44.44s", name);
  for (; *k; k++) {
    double v = score_acc_metric(r, a, *k);
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
  const char *const *k = score_metric_keys(r);
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
