/*
** agree_report.c: agreement results as the JSON document of annotate/AGREEMENT.md ("Output") and
** as a readable report; the report container; table mode end to end.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_alloc.h"

/* A number, or null when undefined. */
static void jw_num(rescue_jw *w, double x) {
  if (isnan(x) || isinf(x))
    rescue_jw_null(w);
  else
    rescue_jw_double(w, x);
}

static void jw_coders(rescue_jw *w, const rescue_agree_data *d, int a, int b) {
  rescue_jw_arr(w);
  rescue_jw_str(w, rescue_agree_coder_name(d, a));
  rescue_jw_str(w, rescue_agree_coder_name(d, b));
  rescue_jw_end(w);
}

/* Krippendorff's guidelines for alpha (annotate/AGREEMENT.md "Reliability"). */
#define RELIABLE_FROM 0.8
#define TENTATIVE_FROM 0.667

const char *rescue_agree_reliability(const rescue_agree_result *r) {
  if (r->level == RESCUE_LEVEL_TEXT || r->status != RESCUE_AGREE_OK || isnan(r->alpha))
    return NULL;
  if (r->alpha >= RELIABLE_FROM)
    return "reliable";
  return r->alpha >= TENTATIVE_FROM ? "tentative" : "unreliable";
}

/* The most value pairs confusions() reports, and the most values it counts pairs of. */
#define MAX_CONFUSIONS 5
#define MAX_CONFUSION_VALUES 1024

typedef struct confusion {
  int a, b; /* value indexes, a < b */
  long count;
} confusion;

/*
** The most frequent pairs of different values within a unit, most frequent first (then in
** value order), at most MAX_CONFUSIONS into top; returns how many. A unit with values x, y,
** z counts each of its pairs of coders once ((x, y), (x, z), (y, z)), so two coders who
** disagree on 13 units give the pair 13. Only label levels (nominal, ordinal) have pairs a
** reader can act on; others, and over MAX_CONFUSION_VALUES values, give 0 (so does no
** memory: the list is a reading aid, not a result).
*/
static int confusions(const rescue_agree_data *d, confusion *top) {
  int V = (int)d->values.n, n = 0, i, j, k;
  long *cnt;
  uint32_t u;
  if ((d->level != RESCUE_LEVEL_NOMINAL && d->level != RESCUE_LEVEL_ORDINAL) || V < 2 ||
      V > MAX_CONFUSION_VALUES || !(cnt = rescue_calloc((size_t)V * V, sizeof *cnt)))
    return 0;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], x, y;
    for (x = a; x + 1 < b; x++)
      for (y = x + 1; y < b; y++) {
        int p = d->e_value[x], q = d->e_value[y];
        if (p != q)
          cnt[p < q ? (size_t)p * V + q : (size_t)q * V + p]++;
      }
  }
  for (i = 0; i < V; i++)
    for (j = i + 1; j < V; j++) {
      long c = cnt[(size_t)i * V + j];
      if (!c || (n == MAX_CONFUSIONS && c <= top[n - 1].count))
        continue;
      for (k = n < MAX_CONFUSIONS ? n++ : n - 1; k > 0 && top[k - 1].count < c; k--)
        top[k] = top[k - 1];
      top[k].a = i;
      top[k].b = j;
      top[k].count = c;
    }
  rescue_free(cnt);
  return n;
}

/* "confusions": [{"values": ["a", "b"], "count": n}, ...] at the label levels. */
static void jw_confusions(rescue_jw *w, const rescue_agree_data *d) {
  confusion top[MAX_CONFUSIONS];
  int i, n;
  if (d->level != RESCUE_LEVEL_NOMINAL && d->level != RESCUE_LEVEL_ORDINAL)
    return;
  n = confusions(d, top);
  rescue_jw_key(w, "confusions");
  rescue_jw_arr(w);
  for (i = 0; i < n; i++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "values");
    rescue_jw_arr(w);
    rescue_jw_str(w, rescue_agree_value_name(d, top[i].a));
    rescue_jw_str(w, rescue_agree_value_name(d, top[i].b));
    rescue_jw_end(w);
    rescue_jw_key(w, "count");
    rescue_jw_int(w, top[i].count);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/* The `by` object: {"couple": {"alpha": ..., "units": ..., ...}, ...}. */
static void jw_groups(rescue_jw *w, const rescue_agree_result *r) {
  int g;
  rescue_jw_key(w, "by");
  rescue_jw_obj(w);
  for (g = 0; g < r->n_groups; g++) {
    const rescue_agree_group_stat *s = &r->groups[g];
    rescue_jw_key(w, s->name);
    rescue_jw_obj(w);
    rescue_jw_key(w, "alpha");
    jw_num(w, s->alpha);
    rescue_jw_key(w, "units");
    rescue_jw_int(w, s->units);
    rescue_jw_key(w, "pairable_values");
    rescue_jw_int(w, s->pairable_values);
    rescue_jw_key(w, "status");
    rescue_jw_str(w, rescue_agree_status_name(s->status));
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/* How many resampling groups an interval rests on: clusters (samples) with a pairable
   unit under the sample scheme, pairable units under the unit scheme. */
static long resampled_groups(const rescue_agree_data *d, const rescue_agree_result *r) {
  unsigned char *seen;
  long n = 0;
  uint32_t u;
  if (!r->ci_scheme || strcmp(r->ci_scheme, "sample") != 0 || !d->clusters.n)
    return r->units;
  if (!(seen = rescue_calloc(d->clusters.n, 1)))
    return -1;
  for (u = 0; u < d->n_units; u++) {
    int32_t c = d->unit_cluster[u];
    if (d->unit_off[u + 1] - d->unit_off[u] >= 2 && c >= 0 && !seen[c]) {
      seen[c] = 1;
      n++;
    }
  }
  rescue_free(seen);
  return n;
}

/* Thin data: *groups (an interval from fewer than 20 resampled groups, else -1) and
   whether the field has fewer than 30 pairable units. Returns 1 when either holds. */
static int thin_data(const rescue_agree_data *d, const rescue_agree_result *r, long *groups,
                     int *few) {
  *groups = -1;
  if (r->has_ci && r->level != RESCUE_LEVEL_TEXT) {
    long g = resampled_groups(d, r);
    if (g >= 0 && g < 20)
      *groups = g;
  }
  *few = r->units > 0 && r->units < 30;
  return *groups >= 0 || *few;
}

/*
** The pairwise Cohen kappas of r, the count of pairs left out, and for ordinal, interval
** and ratio levels the linear and quadratic weighted kappas of every pair.
*/
static void jw_pairwise(rescue_jw *w, const rescue_agree_data *d, const rescue_agree_result *r) {
  int i, j;
  rescue_jw_key(w, "pairwise_cohen_kappa");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_pairs; i++) {
    const rescue_agree_pair *p = &r->pairs[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "coders");
    jw_coders(w, d, p->a, p->b);
    rescue_jw_key(w, "kappa");
    jw_num(w, p->kappa);
    rescue_jw_key(w, "units");
    rescue_jw_int(w, p->units);
    rescue_jw_key(w, "skipped");
    rescue_jw_int(w, p->skipped);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  if (r->pairs_left_out) {
    rescue_jw_key(w, "pairwise_left_out");
    rescue_jw_int(w, r->pairs_left_out);
  }
  if (r->level == RESCUE_LEVEL_ORDINAL || r->level == RESCUE_LEVEL_INTERVAL ||
      r->level == RESCUE_LEVEL_RATIO) {
    rescue_jw_key(w, "pairwise_weighted_kappa");
    rescue_jw_arr(w);
    for (i = 0; i < r->n_pairs; i++)
      for (j = 0; j < 2; j++) {
        const rescue_agree_pair *p = &r->pairs[i];
        rescue_jw_obj(w);
        rescue_jw_key(w, "coders");
        jw_coders(w, d, p->a, p->b);
        rescue_jw_key(w, "weights");
        rescue_jw_str(w, j ? "quadratic" : "linear");
        rescue_jw_key(w, "kappa");
        jw_num(w, j ? p->kappa_quadratic : p->kappa_linear);
        rescue_jw_key(w, "units");
        rescue_jw_int(w, p->units);
        rescue_jw_end(w);
      }
    rescue_jw_end(w);
  }
}

/*
** The per-label alphas of r as an object keyed by label, if it has any.
*/
static void jw_labels(rescue_jw *w, const rescue_agree_result *r) {
  int i;
  if (r->n_labels) {
    rescue_jw_key(w, "labels");
    rescue_jw_obj(w);
    for (i = 0; i < r->n_labels; i++) {
      rescue_jw_key(w, r->labels[i].name);
      rescue_jw_obj(w);
      rescue_jw_key(w, "alpha");
      jw_num(w, r->labels[i].alpha);
      rescue_jw_key(w, "count");
      rescue_jw_int(w, r->labels[i].count);
      rescue_jw_end(w);
    }
    rescue_jw_end(w);
  }
}

/*
** The coincidence matrix of r with the names of its values, if it has one.
*/
static void jw_coincidence(rescue_jw *w, const rescue_agree_data *d, const rescue_agree_result *r) {
  int i, j;
  if (r->n_matrix) {
    rescue_jw_key(w, "coincidence");
    rescue_jw_obj(w);
    rescue_jw_key(w, "values");
    rescue_jw_arr(w);
    for (i = 0; i < r->n_matrix; i++)
      rescue_jw_str(w, rescue_agree_value_name(d, r->matrix_values[i]));
    rescue_jw_end(w);
    rescue_jw_key(w, "matrix");
    rescue_jw_arr(w);
    for (i = 0; i < r->n_matrix; i++) {
      rescue_jw_arr(w);
      for (j = 0; j < r->n_matrix; j++)
        rescue_jw_double(w, r->matrix[(size_t)i * r->n_matrix + j]);
      rescue_jw_end(w);
    }
    rescue_jw_end(w);
    rescue_jw_end(w);
  }
}

/*
** The bootstrap confidence interval of alpha and how it was drawn, if r has one.
*/
static void jw_ci(rescue_jw *w, const rescue_agree_result *r) {
  if (r->has_ci) {
    rescue_jw_key(w, "ci");
    rescue_jw_obj(w);
    rescue_jw_key(w, "low");
    jw_num(w, r->ci_low);
    rescue_jw_key(w, "high");
    jw_num(w, r->ci_high);
    rescue_jw_key(w, "level");
    rescue_jw_double(w, r->ci_level);
    rescue_jw_key(w, "replicates");
    rescue_jw_int(w, r->ci_replicates);
    rescue_jw_key(w, "defined");
    rescue_jw_int(w, r->ci_defined);
    rescue_jw_key(w, "seed");
    rescue_jw_int(w, (long long)r->ci_seed);
    rescue_jw_key(w, "scheme");
    rescue_jw_str(w, r->ci_scheme);
    rescue_jw_end(w);
  }
}

/* The "warnings" member of a field with thin data (a key added to the documented shape). */
static void jw_warnings(rescue_jw *w, const rescue_agree_data *d, const rescue_agree_result *r) {
  long g;
  int few;
  if (!thin_data(d, r, &g, &few))
    return;
  rescue_jw_key(w, "warnings");
  rescue_jw_arr(w);
  if (g >= 0) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "kind");
    rescue_jw_str(w, "few_resampled_groups");
    rescue_jw_key(w, "groups");
    rescue_jw_int(w, g);
    rescue_jw_key(w, "minimum");
    rescue_jw_int(w, 20);
    rescue_jw_end(w);
  }
  if (few) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "kind");
    rescue_jw_str(w, "few_pairable_units");
    rescue_jw_key(w, "units");
    rescue_jw_int(w, r->units);
    rescue_jw_key(w, "minimum");
    rescue_jw_int(w, 30);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void rescue_agree_result_json(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_jw *w) {
  int i, set = r->level == RESCUE_LEVEL_MASI || r->level == RESCUE_LEVEL_JACCARD;
  int C = rescue_agree_n_coders(d);
  rescue_jw_obj(w);
  rescue_jw_key(w, "field");
  rescue_jw_str(w, field);
  rescue_jw_key(w, "level");
  rescue_jw_str(w, rescue_agree_level_name(r->level));
  rescue_jw_key(w, "status");
  rescue_jw_str(w, rescue_agree_status_name(r->status));
  rescue_jw_key(w, "reliability");
  if (rescue_agree_reliability(r))
    rescue_jw_str(w, rescue_agree_reliability(r));
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "coders");
  rescue_jw_arr(w);
  for (i = 0; i < C; i++)
    rescue_jw_str(w, rescue_agree_coder_name(d, i));
  rescue_jw_end(w);
  rescue_jw_key(w, "units");
  rescue_jw_int(w, r->units);
  rescue_jw_key(w, "units_single");
  rescue_jw_int(w, r->units_single);
  rescue_jw_key(w, "pairable_values");
  rescue_jw_int(w, r->pairable_values);
  if (r->level == RESCUE_LEVEL_TEXT) {
    rescue_jw_key(w, "pairs");
    rescue_jw_int(w, r->text_pairs);
    rescue_jw_key(w, "share_identical");
    jw_num(w, r->share_identical);
    rescue_jw_key(w, "token_f1");
    jw_num(w, r->token_f1);
    rescue_jw_key(w, "percent_agreement");
    jw_num(w, r->percent_agreement);
    if (r->n_groups)
      jw_groups(w, r);
    jw_warnings(w, d, r);
    rescue_jw_end(w);
    return;
  }
  rescue_jw_key(w, "alpha");
  jw_num(w, r->alpha);
  if (set) {
    rescue_jw_key(w, r->level == RESCUE_LEVEL_MASI ? "alpha_jaccard" : "alpha_masi");
    jw_num(w, r->alpha_other);
  }
  rescue_jw_key(w, "d_o");
  jw_num(w, r->d_o);
  rescue_jw_key(w, "d_e");
  jw_num(w, r->d_e);
  rescue_jw_key(w, "fleiss_kappa");
  jw_num(w, r->fleiss_kappa);
  rescue_jw_key(w, "gwet_ac1");
  jw_num(w, r->gwet_ac1);
  rescue_jw_key(w, "complete_units");
  rescue_jw_int(w, r->complete_units);
  rescue_jw_key(w, "percent_agreement");
  jw_num(w, r->percent_agreement);
  jw_pairwise(w, d, r);
  jw_confusions(w, d);
  jw_labels(w, r);
  jw_coincidence(w, d, r);
  jw_ci(w, r);
  if (r->n_groups)
    jw_groups(w, r);
  jw_warnings(w, d, r);
  rescue_jw_end(w);
}

/* "0.7131" or "-" for an undefined number. */
static const char *fmt4(char buf[32], double x) {
  if (isnan(x) || isinf(x))
    return "-";
  snprintf(buf, 32, "%.4f", x);
  return buf;
}

/*
** The coincidence matrix as a table: rows named in full and numbered, columns by number
** (label names are too long for column heads). Left out over 20 values (see --json).
*/
static void coincidence_text(const rescue_agree_data *d, const rescue_agree_result *r,
                             rescue_buf *out) {
  int i, j, n = r->n_matrix;
  size_t w = 5;
  if (n > 20) {
    rescue_buf_printf(
        out, "  coincidences: %d values, too many to print (the JSON report has them)\n", n);
    return;
  }
  for (i = 0; i < n; i++) {
    size_t l = strlen(rescue_agree_value_name(d, r->matrix_values[i]));
    if (l > w)
      w = l;
  }
  if (w > 40)
    w = 40;
  rescue_buf_printf(out,
                    "  coincidences (pairs of values within units, each unit weighted "
                    "1/(values - 1)):\n    %*s",
                    (int)w + 4, "");
  for (j = 0; j < n; j++)
    rescue_buf_printf(out, " %7d", j + 1);
  rescue_buf_putc(out, '\n');
  for (i = 0; i < n; i++) {
    rescue_buf_printf(out, "    %2d  %-*.*s", i + 1, (int)w, (int)w,
                      rescue_agree_value_name(d, r->matrix_values[i]));
    for (j = 0; j < n; j++) {
      double x = r->matrix[(size_t)i * n + j];
      if (x == 0)
        rescue_buf_printf(out, " %7s", ".");
      else
        rescue_buf_printf(out, " %7.1f", x);
    }
    rescue_buf_putc(out, '\n');
  }
}

/* The most coder pairs named on a "never coded the same unit" line. */
#define MAX_NAMED_PAIRS 6

/*
** One line for the coder pairs with no unit in common (no kappa to give): how many, and
** the first MAX_NAMED_PAIRS of them. Nothing when every pair overlapped.
*/
static void pairs_without_overlap(const rescue_agree_data *d, const rescue_agree_result *r,
                                  rescue_buf *out) {
  int i, n = 0, named = 0;
  for (i = 0; i < r->n_pairs; i++)
    n += !r->pairs[i].units;
  if (!n)
    return;
  rescue_buf_printf(out, "  %d coder pair%s never coded the same unit (no kappa): ", n,
                    n == 1 ? "" : "s");
  for (i = 0; i < r->n_pairs && named < MAX_NAMED_PAIRS; i++)
    if (!r->pairs[i].units)
      rescue_buf_printf(out, "%s%s / %s", named++ ? ", " : "",
                        rescue_agree_coder_name(d, r->pairs[i].a),
                        rescue_agree_coder_name(d, r->pairs[i].b));
  if (n > named)
    rescue_buf_printf(out, " and %d more", n - named);
  rescue_buf_putc(out, '\n');
}

/* "a / b 13, c / d 4": the most confused value pairs of d (nothing when none). */
static int confusions_line(const rescue_agree_data *d, int most, rescue_buf *out) {
  confusion top[MAX_CONFUSIONS];
  int i, n = confusions(d, top);
  for (i = 0; i < n && i < most; i++)
    rescue_buf_printf(out, "%s%s / %s %ld", i ? ", " : "", rescue_agree_value_name(d, top[i].a),
                      rescue_agree_value_name(d, top[i].b), top[i].count);
  return n;
}

/* The field's most confused value pairs on one line, if it has any. */
static void confusions_text(const rescue_agree_data *d, rescue_buf *out) {
  rescue_buf line = RESCUE_BUF_INIT;
  if (confusions_line(d, MAX_CONFUSIONS, &line) && line.s)
    rescue_buf_printf(out, "  most confused values (pairs of coders' values in a unit): %s\n",
                      line.s);
  rescue_buf_clear(&line);
}

void rescue_agree_result_text(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_buf *out) {
  char a[32], b[32], c[32];
  int i, shown;
  rescue_buf_printf(out, "%s (%s): ", field, rescue_agree_level_name(r->level));
  if (r->level == RESCUE_LEVEL_TEXT) {
    rescue_buf_printf(out, "%s\n", rescue_agree_status_name(r->status));
    rescue_buf_printf(out,
                      "  %ld units, %ld value pairs: share identical %s, token F1 %s "
                      "(not chance-corrected)\n",
                      r->units, r->text_pairs, fmt4(a, r->share_identical), fmt4(b, r->token_f1));
  } else {
    rescue_buf_printf(out, "alpha %s", fmt4(a, r->alpha));
    if (r->has_ci)
      rescue_buf_printf(out, " [%s, %s] (%g%%, %d %s replicates, seed %llu)", fmt4(b, r->ci_low),
                        fmt4(c, r->ci_high), r->ci_level * 100, r->ci_replicates, r->ci_scheme,
                        (unsigned long long)r->ci_seed);
    if (rescue_agree_reliability(r))
      rescue_buf_printf(out, "  %s (status %s)\n", rescue_agree_reliability(r),
                        rescue_agree_status_name(r->status));
    else
      rescue_buf_printf(out, "  %s\n", rescue_agree_status_name(r->status));
    if (r->level == RESCUE_LEVEL_MASI || r->level == RESCUE_LEVEL_JACCARD)
      rescue_buf_printf(out, "  alpha with %s distance %s\n",
                        r->level == RESCUE_LEVEL_MASI ? "Jaccard" : "MASI",
                        fmt4(a, r->alpha_other));
    rescue_buf_printf(out,
                      "  %ld unit%s with two or more values (%ld pairable values; %ld unit%s "
                      "with one value left out)\n",
                      r->units, r->units == 1 ? "" : "s", r->pairable_values, r->units_single,
                      r->units_single == 1 ? "" : "s");
    rescue_buf_printf(out,
                      "  percent agreement %s; Fleiss' kappa %s, Gwet's AC1 %s (%ld unit%s "
                      "every coder coded)\n",
                      fmt4(a, r->percent_agreement), fmt4(b, r->fleiss_kappa), fmt4(c, r->gwet_ac1),
                      r->complete_units, r->complete_units == 1 ? "" : "s");
    if (r->pairs_left_out)
      rescue_buf_printf(out,
                        "  pairwise Cohen's kappas left out: %ld coder pairs are more than "
                        "fit in memory (at most 4096 coders)\n",
                        r->pairs_left_out);
    for (i = 0; i < r->n_pairs; i++) {
      const rescue_agree_pair *p = &r->pairs[i];
      if (!p->units)
        continue;
      rescue_buf_printf(out, "  Cohen's kappa %s / %s: %s", rescue_agree_coder_name(d, p->a),
                        rescue_agree_coder_name(d, p->b), fmt4(a, p->kappa));
      if (r->level == RESCUE_LEVEL_ORDINAL || r->level == RESCUE_LEVEL_INTERVAL ||
          r->level == RESCUE_LEVEL_RATIO)
        rescue_buf_printf(out, " (linear %s, quadratic %s)", fmt4(b, p->kappa_linear),
                          fmt4(c, p->kappa_quadratic));
      rescue_buf_printf(out, " on %ld units (%ld coded by one of the two only)\n", p->units,
                        p->skipped);
    }
    pairs_without_overlap(d, r, out);
    confusions_text(d, out);
    for (i = shown = 0; i < r->n_labels; i++) {
      if (!r->labels[i].count)
        continue;
      rescue_buf_puts(out, shown++ % 4 ? ", " : shown > 1 ? "\n    " : "  per label: ");
      rescue_buf_printf(out, "%s %s (%ld)", r->labels[i].name, fmt4(a, r->labels[i].alpha),
                        r->labels[i].count);
    }
    if (shown)
      rescue_buf_putc(out, '\n');
  }
  if (r->n_matrix)
    coincidence_text(d, r, out);
  if (r->n_groups) {
    size_t w = 5;
    for (i = 0; i < r->n_groups; i++)
      if (strlen(r->groups[i].name) > w)
        w = strlen(r->groups[i].name);
    if (w > 60)
      w = 60;
    rescue_buf_printf(out, "  by group:\n    %-*s %7s %9s  %s\n", (int)w, "group", "units", "alpha",
                      "status");
    for (i = 0; i < r->n_groups; i++)
      rescue_buf_printf(out, "    %-*.*s %7ld %9s  %s\n", (int)w, (int)w, r->groups[i].name,
                        r->groups[i].units, fmt4(a, r->groups[i].alpha),
                        rescue_agree_status_name(r->groups[i].status));
  }
}

/* ---- reports ---- */

agree_field *agree_report_add_field(rescue_agree_report *r, const char *name,
                                    const char *level_name) {
  agree_field *f;
  if (RESCUE_ALLOC_GROW(r->fields, r->n_fields + 1, r->cap_fields))
    return NULL;
  f = &r->fields[r->n_fields];
  memset(f, 0, sizeof *f);
  f->name = rescue_strdup(name);
  f->level_name = rescue_strdup(level_name);
  if (!f->name || !f->level_name) {
    rescue_free(f->name);
    rescue_free(f->level_name);
    return NULL;
  }
  r->n_fields++;
  return f;
}

void rescue_agree_report_free(rescue_agree_report **rp) {
  rescue_agree_report *r = rp ? *rp : NULL;
  int i;
  if (!r)
    return;
  for (i = 0; i < r->n_fields; i++) {
    rescue_agree_result_clear(&r->fields[i].res);
    rescue_agree_data_free(&r->fields[i].data);
    rescue_free(r->fields[i].name);
    rescue_free(r->fields[i].level_name);
  }
  rescue_free(r->fields);
  for (i = 0; i < r->n_coders; i++)
    rescue_free(r->coders[i]);
  rescue_free(r->coders);
  for (i = 0; i < r->n_rev; i++) {
    rescue_free(r->rev[i].model);
    rescue_free(r->rev[i].human);
    rescue_free(r->rev[i].fields);
  }
  rescue_free(r->rev);
  for (i = 0; i < r->n_unitizing; i++)
    agree_unitizing_clear(&r->unitizing[i]);
  rescue_free(r->unitizing);
  for (i = 0; i < r->n_overall; i++)
    agree_unitizing_clear(&r->overall[i]);
  rescue_free(r->overall);
  rescue_free(r->seg_pairs);
  rescue_free(r->input);
  rescue_free(r);
  *rp = NULL;
}

/* A field whose declared level does not fit: status invalid_level and nothing else. */
static void invalid_field_json(const rescue_agree_report *rep, const agree_field *f, rescue_jw *w) {
  int i;
  rescue_jw_obj(w);
  rescue_jw_key(w, "field");
  rescue_jw_str(w, f->name);
  rescue_jw_key(w, "level");
  rescue_jw_str(w, f->level_name);
  rescue_jw_key(w, "status");
  rescue_jw_str(w, "invalid_level");
  rescue_jw_key(w, "reliability");
  rescue_jw_null(w);
  rescue_jw_key(w, "coders");
  rescue_jw_arr(w);
  for (i = 0; i < rep->n_coders; i++)
    rescue_jw_str(w, rep->coders[i]);
  rescue_jw_end(w);
  rescue_jw_key(w, "alpha");
  rescue_jw_null(w);
  rescue_jw_end(w);
}

void rescue_agree_report_json(const rescue_agree_report *r, rescue_buf *out) {
  rescue_jw w;
  int i, k;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  if (r->table) {
    rescue_jw_key(&w, "input");
    rescue_jw_str(&w, r->input);
  } else {
    rescue_jw_key(&w, "coders");
    rescue_jw_arr(&w);
    for (i = 0; i < r->n_coders; i++)
      rescue_jw_str(&w, r->coders[i]);
    rescue_jw_end(&w);
    rescue_jw_key(&w, "samples");
    rescue_jw_int(&w, r->samples);
  }
  rescue_jw_key(&w, "fields");
  rescue_jw_arr(&w);
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    if (f->data)
      rescue_agree_result_json(f->data, &f->res, f->name, &w);
    else
      invalid_field_json(r, f, &w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "reliability_thresholds");
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "tentative");
  rescue_jw_double(&w, TENTATIVE_FROM);
  rescue_jw_key(&w, "reliable");
  rescue_jw_double(&w, RELIABLE_FROM);
  rescue_jw_end(&w);
  if (!r->table) {
    rescue_jw_key(&w, "model_revisions");
    rescue_jw_arr(&w);
    for (i = 0; i < r->n_rev; i++) {
      const agree_revision *v = &r->rev[i];
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "model");
      rescue_jw_str(&w, v->model);
      rescue_jw_key(&w, "human");
      rescue_jw_str(&w, v->human);
      rescue_jw_key(&w, "samples");
      rescue_jw_int(&w, v->samples);
      rescue_jw_key(&w, "rows");
      rescue_jw_int(&w, v->rows);
      rescue_jw_key(&w, "human_later");
      rescue_jw_int(&w, v->human_later);
      rescue_jw_key(&w, "model_later");
      rescue_jw_int(&w, v->model_later);
      rescue_jw_key(&w, "fields");
      rescue_jw_arr(&w);
      for (k = 0; k < v->n; k++) {
        const agree_change *c = &v->fields[k];
        rescue_jw_obj(&w);
        rescue_jw_key(&w, "field");
        rescue_jw_str(&w, c->field);
        rescue_jw_key(&w, "units");
        rescue_jw_int(&w, c->units);
        rescue_jw_key(&w, "changed");
        rescue_jw_int(&w, c->changed);
        rescue_jw_key(&w, "share_changed");
        jw_num(&w, c->units ? (double)c->changed / (double)c->units : NAN);
        rescue_jw_key(&w, "alpha");
        jw_num(&w, c->alpha);
        rescue_jw_key(&w, "status");
        rescue_jw_str(&w, rescue_agree_status_name(c->status));
        rescue_jw_end(&w);
      }
      rescue_jw_end(&w);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    agree_segmentation_json(r, &w);
  }
  rescue_jw_end(&w);
}

/* The small-sample warnings of one field, on one line (nothing when none). */
static void field_warnings(const agree_field *f, rescue_buf *out) {
  const rescue_agree_result *r = &f->res;
  long g;
  int few;
  if (!f->data || !thin_data(f->data, r, &g, &few))
    return;
  rescue_buf_printf(out, "  %s:", f->name);
  if (g >= 0)
    rescue_buf_printf(out, " the interval rests on %ld resampled %s (fewer than 20)%s", g,
                      strcmp(r->ci_scheme, "sample") == 0 ? "samples" : "units", few ? ";" : "");
  if (few)
    rescue_buf_printf(out, " %ld pairable unit%s (fewer than 30)", r->units,
                      r->units == 1 ? "" : "s");
  rescue_buf_puts(out, "\n");
}

/* The summary table: one line per field. */
static void summary_table(const rescue_agree_report *r, rescue_buf *out) {
  int i, ci = 0;
  size_t w = 5;
  char a[32], b[32], c[32], iv[80];
  for (i = 0; i < r->n_fields; i++) {
    if (strlen(r->fields[i].name) > w)
      w = strlen(r->fields[i].name);
    ci |= r->fields[i].res.has_ci;
  }
  rescue_buf_printf(out, "%-*s  %-8s %6s %7s %8s  %-18s %9s  %-11s %s\n", (int)w, "field", "level",
                    "coders", "units", "alpha", ci ? "95% interval" : "interval", "agreement",
                    "reliability", "status");
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    const rescue_agree_result *x = &f->res;
    if (!f->data) {
      rescue_buf_printf(out, "%-*s  %-8s %6d %7s %8s  %-18s %9s  %-11s %s\n", (int)w, f->name,
                        f->level_name, r->n_coders, "-", "-", "-", "-", "-", "invalid_level");
      continue;
    }
    if (x->has_ci && x->level != RESCUE_LEVEL_TEXT)
      snprintf(iv, sizeof iv, "[%s, %s]", fmt4(b, x->ci_low), fmt4(c, x->ci_high));
    else
      snprintf(iv, sizeof iv, "-");
    rescue_buf_printf(out, "%-*s  %-8s %6d %7ld %8s  %-18s %9s  %-11s %s\n", (int)w, f->name,
                      rescue_agree_level_name(x->level), rescue_agree_n_coders(f->data), x->units,
                      x->level == RESCUE_LEVEL_TEXT ? "-" : fmt4(a, x->alpha), iv,
                      fmt4(c, x->percent_agreement),
                      rescue_agree_reliability(x) ? rescue_agree_reliability(x) : "-",
                      rescue_agree_status_name(x->status));
  }
}

/*
** The fields judged `verdict`, as "a (0.5600), b (0.6100)", or by name only for the
** reliable ones (the ones to act on carry their alpha); returns how many.
*/
static int fields_judged(const rescue_agree_report *r, const char *verdict, rescue_buf *out) {
  char a[32];
  int i, n = 0;
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    const char *v = f->data ? rescue_agree_reliability(&f->res) : NULL;
    if (!v || strcmp(v, verdict) != 0)
      continue;
    rescue_buf_printf(out, "%s%s", n++ ? ", " : "", f->name);
    if (strcmp(v, "reliable") != 0)
      rescue_buf_printf(out, " (%s)", fmt4(a, f->res.alpha));
  }
  return n;
}

/* "  weakest: f (alpha 0.5600, unreliable)": the field below reliable with the lowest alpha. */
static void weakest_field(const rescue_agree_report *r, rescue_buf *out) {
  const agree_field *w = NULL;
  char a[32];
  int i;
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    const char *v = f->data ? rescue_agree_reliability(&f->res) : NULL;
    if (v && strcmp(v, "reliable") != 0 && (!w || f->res.alpha < w->res.alpha))
      w = f;
  }
  if (w)
    rescue_buf_printf(out, "  weakest: %s (alpha %s, %s): fix it first\n", w->name,
                      fmt4(a, w->res.alpha), rescue_agree_reliability(&w->res));
}

/*
** The verdict a lead acts on: the thresholds, the fields below them (unreliable, then
** tentative), the reliable ones, those without an alpha to judge, and the most confused
** value pairs of every field that is not reliable.
*/
static void reliability_text(const rescue_agree_report *r, rescue_buf *out) {
  static const char *const verdicts[] = {"unreliable", "tentative", "reliable"};
  rescue_buf line = RESCUE_BUF_INIT;
  int i, n = 0;
  rescue_buf_printf(out,
                    "\nreliability (Krippendorff's guidelines for alpha: %.3f or more reliable, "
                    "%.3f up to %.3f tentative, below %.3f unreliable):\n",
                    RELIABLE_FROM, TENTATIVE_FROM, RELIABLE_FROM, TENTATIVE_FROM);
  weakest_field(r, out);
  for (i = 0; i < 3; i++) {
    rescue_buf_reset(&line);
    if (fields_judged(r, verdicts[i], &line) && line.s)
      rescue_buf_printf(out, "  %s: %s\n", verdicts[i], line.s);
  }
  rescue_buf_reset(&line);
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    if (f->data && f->res.level == RESCUE_LEVEL_TEXT)
      continue;
    if (!f->data || f->res.status != RESCUE_AGREE_OK)
      rescue_buf_printf(&line, "%s%s (%s)", n++ ? ", " : "", f->name,
                        f->data ? rescue_agree_status_name(f->res.status) : "invalid_level");
  }
  if (n && line.s)
    rescue_buf_printf(out, "  no alpha to judge: %s\n", line.s);
  for (i = n = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    const char *v = f->data ? rescue_agree_reliability(&f->res) : NULL;
    if (!v || strcmp(v, "reliable") == 0)
      continue;
    rescue_buf_reset(&line);
    if (confusions_line(f->data, 3, &line) && line.s)
      rescue_buf_printf(out, "%s  %s: %s\n",
                        n++ ? ""
                            : "most confused values where agreement is short of reliable (pairs "
                              "of coders' values in a unit):\n",
                        f->name, line.s);
  }
  rescue_buf_clear(&line);
}

/*
** The heading of a model revision, worded by time order: "carl revised the model's draft"
** only on rows where carl's version came later; where the model's came later, it says so.
*/
static void revision_heading(const agree_revision *v, rescue_buf *out) {
  rescue_buf_printf(out,
                    "\nmodel %s and %s: %ld row%s the model answered, in %ld sample%s both "
                    "covered",
                    v->model, v->human, v->rows, v->rows == 1 ? "" : "s", v->samples,
                    v->samples == 1 ? "" : "s");
  if (v->human_later && !v->model_later)
    rescue_buf_printf(out, "; %s revised the model's draft (%s's version is the later one)",
                      v->human, v->human);
  else if (v->model_later && !v->human_later)
    rescue_buf_printf(out, "; the model's answer came after %s's", v->human);
  else if (v->human_later)
    rescue_buf_printf(out,
                      "; %s revised the model's draft on %ld row%s, the model's answer came "
                      "after %s's on %ld",
                      v->human, v->human_later, v->human_later == 1 ? "" : "s", v->human,
                      v->model_later);
  rescue_buf_puts(out, "\n  share of units changed between the two:\n");
}

void rescue_agree_report_text(const rescue_agree_report *r, rescue_buf *out) {
  int i, k;
  char a[32];
  rescue_buf warn = RESCUE_BUF_INIT;
  summary_table(r, out);
  if (r->table)
    rescue_buf_printf(out, "\nagreement in %s", r->input);
  else {
    rescue_buf_printf(out, "\nagreement between %d coder%s (", r->n_coders,
                      r->n_coders == 1 ? "" : "s");
    for (i = 0; i < r->n_coders; i++)
      rescue_buf_printf(out, "%s%s", i ? ", " : "", r->coders[i]);
    rescue_buf_printf(out, ") over %ld sample%s", r->samples, r->samples == 1 ? "" : "s");
  }
  rescue_buf_puts(out, "; alpha is Krippendorff's, agreement the share of agreeing pairs\n");
  reliability_text(r, out);
  for (i = 0; i < r->n_fields; i++)
    field_warnings(&r->fields[i], &warn);
  if (warn.len) {
    rescue_buf_puts(out, "\nwarnings (thin data: read these numbers as rough):\n");
    rescue_buf_putn(out, warn.s, warn.len);
  }
  rescue_buf_clear(&warn);
  rescue_buf_puts(out, "\nper field:\n");
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    if (i)
      rescue_buf_putc(out, '\n');
    if (f->data)
      rescue_agree_result_text(f->data, &f->res, f->name, out);
    else
      rescue_buf_printf(out,
                        "%s (%s): invalid_level (the scheme's level does not fit this "
                        "field)\n",
                        f->name, f->level_name);
  }
  for (i = 0; i < r->n_rev; i++) {
    const agree_revision *v = &r->rev[i];
    revision_heading(v, out);
    for (k = 0; k < v->n; k++) {
      const agree_change *c = &v->fields[k];
      rescue_buf_printf(
          out, "  %-22s %6.1f%%  (%ld of %ld units)  alpha %s\n", c->field,
          c->units ? 100.0 * (double)c->changed / (double)c->units : 0.0, c->changed, c->units,
          c->status == RESCUE_AGREE_OK ? fmt4(a, c->alpha) : rescue_agree_status_name(c->status));
    }
  }
  if (!r->table)
    agree_segmentation_text(r, out);
}

/* A CSV field, quoted when it holds a comma, a quote or a line break (agree_int.h). */
void agree_csv_str(rescue_buf *out, const char *s) {
  if (!strpbrk(s, ",\"\r\n")) {
    rescue_buf_puts(out, s);
    return;
  }
  rescue_buf_putc(out, '"');
  for (; *s; s++) {
    if (*s == '"')
      rescue_buf_putc(out, '"');
    rescue_buf_putc(out, *s);
  }
  rescue_buf_putc(out, '"');
}

/* A CSV number with full precision, or nothing when undefined (agree_int.h). */
void agree_csv_num(rescue_buf *out, double x) {
  if (!isnan(x) && !isinf(x))
    rescue_buf_printf(out, "%.10g", x);
}

void rescue_agree_report_csv(const rescue_agree_report *r, rescue_buf *out) {
  int i, g, k;
  rescue_buf_puts(out, "field,level,group,status,coders,units,pairable_values,alpha,ci_low,"
                       "ci_high,percent_agreement,fleiss_kappa,gwet_ac1,share_identical,"
                       "token_f1\r\n");
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    const rescue_agree_result *x = &f->res;
    int text;
    agree_csv_str(out, f->name);
    rescue_buf_putc(out, ',');
    if (!f->data) {
      agree_csv_str(out, f->level_name);
      rescue_buf_printf(out, ",,invalid_level,%d,,,,,,,,,,\r\n", r->n_coders);
      continue;
    }
    text = x->level == RESCUE_LEVEL_TEXT;
    rescue_buf_printf(out, "%s,,%s,", rescue_agree_level_name(x->level),
                      rescue_agree_status_name(x->status));
    rescue_buf_putc(out, '"');
    for (k = 0; k < rescue_agree_n_coders(f->data); k++) {
      const char *p = rescue_agree_coder_name(f->data, k);
      if (k)
        rescue_buf_putc(out, ' ');
      for (; *p; p++) {
        if (*p == '"')
          rescue_buf_putc(out, '"');
        rescue_buf_putc(out, *p);
      }
    }
    rescue_buf_printf(out, "\",%ld,%ld,", x->units, x->pairable_values);
    agree_csv_num(out, text ? NAN : x->alpha);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, x->has_ci && !text ? x->ci_low : NAN);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, x->has_ci && !text ? x->ci_high : NAN);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, x->percent_agreement);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, text ? NAN : x->fleiss_kappa);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, text ? NAN : x->gwet_ac1);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, text ? x->share_identical : NAN);
    rescue_buf_putc(out, ',');
    agree_csv_num(out, text ? x->token_f1 : NAN);
    rescue_buf_puts(out, "\r\n");
    for (g = 0; g < x->n_groups; g++) {
      const rescue_agree_group_stat *s = &x->groups[g];
      agree_csv_str(out, f->name);
      rescue_buf_printf(out, ",%s,", rescue_agree_level_name(x->level));
      agree_csv_str(out, s->name);
      rescue_buf_printf(out, ",%s,,%ld,%ld,", rescue_agree_status_name(s->status), s->units,
                        s->pairable_values);
      agree_csv_num(out, s->alpha);
      rescue_buf_puts(out, ",,,,,,,\r\n");
    }
  }
}

int rescue_agree_table(const char *path, rescue_agree_level level, const rescue_agree_opts *o,
                       rescue_agree_report **out, rescue_error *err) {
  rescue_agree_report *r = rescue_calloc(1, sizeof *r);
  agree_field *f;
  int rc;
  *out = NULL;
  if (!r || !(r->input = rescue_strdup(path)))
    goto nomem;
  r->table = 1;
  if (!(f = agree_report_add_field(r, "value", rescue_agree_level_name(level))))
    goto nomem;
  if ((rc = rescue_agree_read_tsv(path, level, &f->data, err))) {
    rescue_agree_report_free(&r);
    return rc;
  }
  if (rescue_agree_compute(f->data, o, &f->res))
    goto nomem;
  *out = r;
  return 0;
nomem:
  rescue_agree_report_free(&r);
  return rescue_seterr(err, RESCUE_ENOMEM, NULL);
}
