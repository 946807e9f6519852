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

void rescue_agree_result_json(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_jw *w) {
  int i, j, set = r->level == RESCUE_LEVEL_MASI || r->level == RESCUE_LEVEL_JACCARD;
  int C = rescue_agree_n_coders(d);
  rescue_jw_obj(w);
  rescue_jw_key(w, "field");
  rescue_jw_str(w, field);
  rescue_jw_key(w, "level");
  rescue_jw_str(w, rescue_agree_level_name(r->level));
  rescue_jw_key(w, "status");
  rescue_jw_str(w, rescue_agree_status_name(r->status));
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
  if (r->n_groups)
    jw_groups(w, r);
  rescue_jw_end(w);
}

/* "0.7131" or "-" for an undefined number. */
static const char *fmt4(char buf[32], double x) {
  if (isnan(x) || isinf(x))
    return "-";
  snprintf(buf, 32, "%.4f", x);
  return buf;
}

void rescue_agree_result_text(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_buf *out) {
  char a[32], b[32], c[32];
  int i, shown;
  rescue_buf_printf(out, "%s (%s): ", field, rescue_agree_level_name(r->level));
  if (r->level == RESCUE_LEVEL_TEXT) {
    rescue_buf_printf(out, "%s\n", rescue_agree_status_name(r->status));
    rescue_buf_printf(out, "  %ld units, %ld value pairs: share identical %s, token F1 %s "
                           "(not chance-corrected)\n",
                      r->units, r->text_pairs, fmt4(a, r->share_identical), fmt4(b, r->token_f1));
  } else {
    rescue_buf_printf(out, "alpha %s", fmt4(a, r->alpha));
    if (r->has_ci)
      rescue_buf_printf(out, " [%s, %s] (%g%%, %d %s replicates, seed %llu)", fmt4(b, r->ci_low),
                        fmt4(c, r->ci_high), r->ci_level * 100, r->ci_replicates, r->ci_scheme,
                        (unsigned long long)r->ci_seed);
    rescue_buf_printf(out, "  %s\n", rescue_agree_status_name(r->status));
    if (r->level == RESCUE_LEVEL_MASI || r->level == RESCUE_LEVEL_JACCARD)
      rescue_buf_printf(out, "  alpha with %s distance %s\n",
                        r->level == RESCUE_LEVEL_MASI ? "Jaccard" : "MASI",
                        fmt4(a, r->alpha_other));
    rescue_buf_printf(out, "  %ld unit%s with two or more values (%ld pairable values; %ld unit%s "
                           "with one value left out)\n",
                      r->units, r->units == 1 ? "" : "s", r->pairable_values, r->units_single,
                      r->units_single == 1 ? "" : "s");
    rescue_buf_printf(out, "  percent agreement %s; Fleiss' kappa %s, Gwet's AC1 %s (%ld units "
                           "every coder coded)\n",
                      fmt4(a, r->percent_agreement), fmt4(b, r->fleiss_kappa),
                      fmt4(c, r->gwet_ac1), r->complete_units);
    for (i = 0; i < r->n_pairs; i++) {
      const rescue_agree_pair *p = &r->pairs[i];
      rescue_buf_printf(out, "  Cohen's kappa %s / %s: %s", rescue_agree_coder_name(d, p->a),
                        rescue_agree_coder_name(d, p->b), fmt4(a, p->kappa));
      if (r->level == RESCUE_LEVEL_ORDINAL || r->level == RESCUE_LEVEL_INTERVAL ||
          r->level == RESCUE_LEVEL_RATIO)
        rescue_buf_printf(out, " (linear %s, quadratic %s)", fmt4(b, p->kappa_linear),
                          fmt4(c, p->kappa_quadratic));
      rescue_buf_printf(out, " on %ld units (%ld coded by one of the two only)\n", p->units,
                        p->skipped);
    }
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
  if (r->n_groups) {
    rescue_buf_puts(out, "  by group:");
    for (i = 0; i < r->n_groups; i++)
      rescue_buf_printf(out, "%s %s %s (%ld units)", i ? "," : "", r->groups[i].name,
                        r->groups[i].status == RESCUE_AGREE_OK
                            ? fmt4(a, r->groups[i].alpha)
                            : rescue_agree_status_name(r->groups[i].status),
                        r->groups[i].units);
    rescue_buf_putc(out, '\n');
  }
}

/* ---- reports ---- */

agree_field *agree_report_add_field(rescue_agree_report *r, const char *name,
                                    const char *level_name) {
  agree_field *nf = rescue_realloc(r->fields, ((size_t)r->n_fields + 1) * sizeof *nf), *f;
  if (!nf)
    return NULL;
  r->fields = nf;
  f = &nf[r->n_fields];
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
    rescue_agree_result_free(&r->fields[i].res);
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
  }
  rescue_jw_end(&w);
}

void rescue_agree_report_text(const rescue_agree_report *r, rescue_buf *out) {
  int i, k;
  char a[32];
  if (r->table)
    rescue_buf_printf(out, "agreement in %s\n\n", r->input);
  else {
    rescue_buf_printf(out, "agreement between %d coder%s (", r->n_coders,
                      r->n_coders == 1 ? "" : "s");
    for (i = 0; i < r->n_coders; i++)
      rescue_buf_printf(out, "%s%s", i ? ", " : "", r->coders[i]);
    rescue_buf_printf(out, ") over %ld sample%s\n\n", r->samples, r->samples == 1 ? "" : "s");
  }
  for (i = 0; i < r->n_fields; i++) {
    const agree_field *f = &r->fields[i];
    if (f->data)
      rescue_agree_result_text(f->data, &f->res, f->name, out);
    else
      rescue_buf_printf(out, "%s (%s): invalid_level (the scheme's level does not fit this "
                             "field)\n",
                        f->name, f->level_name);
  }
  for (i = 0; i < r->n_rev; i++) {
    const agree_revision *v = &r->rev[i];
    rescue_buf_printf(out, "\nmodel %s revised by %s (%ld sample%s): share of units changed\n",
                      v->model, v->human, v->samples, v->samples == 1 ? "" : "s");
    for (k = 0; k < v->n; k++) {
      const agree_change *c = &v->fields[k];
      rescue_buf_printf(out, "  %-22s %6.1f%%  (%ld of %ld units)  alpha %s\n", c->field,
                        c->units ? 100.0 * (double)c->changed / (double)c->units : 0.0,
                        c->changed, c->units,
                        c->status == RESCUE_AGREE_OK ? fmt4(a, c->alpha)
                                                     : rescue_agree_status_name(c->status));
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
