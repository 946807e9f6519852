/*
** agree_segment.c: the segmentation part of a corpus agreement report (agree_int.h):
** Krippendorff's alpha-u of the primary speaker on each sample's time line and on the time
** lines of the samples one set of coders covered laid end to end, and the report's lines
** for it and for the rows the alignment left without a partner (annotate/AGREEMENT.md
** "Segmentation across row sets").
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_alloc.h"

void agree_unitizing_clear(agree_unitizing *x) {
  rescue_free(x->sample);
  rescue_free(x->set);
  rescue_unitize_result_clear(&x->res);
  rescue_unitize_free(&x->u);
  rescue_free(x->units);
  memset(x, 0, sizeof *x);
}

/* Register the coders of set in report order (unitize coder i = i-th coder of the set). */
static int add_coders(const rescue_agree_report *r, const unsigned char *set, rescue_unitize *u,
                      int *index) {
  int k, c;
  for (k = 0; k < r->n_coders; k++) {
    index[k] = -1;
    if (!set[k])
      continue;
    if ((c = rescue_unitize_coder(u, r->coders[k])) < 0)
      return c;
    index[k] = c;
  }
  return 0;
}

/* Record one unit of coder k in x (and in u). */
static int add_unit(agree_unitizing *x, int k, int coder, const char *cat, int64_t b, int64_t e) {
  int c, rc;
  if ((c = rescue_unitize_category(x->u, cat)) < 0)
    return c;
  if ((rc = rescue_unitize_add(x->u, coder, c, b, e)))
    return rc;
  if (RESCUE_ALLOC_GROW(x->units, x->n_units + 1, x->cap_units))
    return RESCUE_ENOMEM;
  x->units[x->n_units].coder = k;
  x->units[x->n_units].cat = c;
  x->units[x->n_units].b = b;
  x->units[x->n_units++].e = e;
  return 0;
}

/* Seconds to the nearest millisecond (halves away from zero). */
static int64_t to_ms(double t) { return (int64_t)llround(t * 1000.0); }

int agree_unitizing_sample(rescue_agree_report *r, const char *sample, double duration,
                           const unsigned char *set, const double *const *start,
                           const double *const *end, const char *const *const *spk, const int *n) {
  agree_unitizing *x;
  int64_t len = isfinite(duration) && duration > 0 ? to_ms(duration) : 0;
  int *index = rescue_calloc((size_t)r->n_coders + 1, sizeof *index), k, i, rc;
  if (!index || RESCUE_ALLOC_GROW(r->unitizing, r->n_unitizing + 1, r->cap_unitizing)) {
    rescue_free(index);
    return RESCUE_ENOMEM;
  }
  x = &r->unitizing[r->n_unitizing++];
  memset(x, 0, sizeof *x);
  x->samples = 1;
  for (k = 0; k < r->n_coders; k++)
    for (i = 0; set[k] && i < n[k]; i++)
      if (end[k][i] > 0 && to_ms(end[k][i]) > len)
        len = to_ms(end[k][i]);
  if (!(x->sample = rescue_strdup(sample)) ||
      !(x->set = rescue_calloc((size_t)r->n_coders + 1, 1))) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  memcpy(x->set, set, (size_t)r->n_coders);
  if ((rc = rescue_unitize_new(0, len > 0 ? len : 1, 0.001, &x->u)) ||
      (rc = add_coders(r, set, x->u, index)))
    goto end;
  for (k = 0; k < r->n_coders; k++)
    for (i = 0; set[k] && i < n[k]; i++) {
      int64_t b = to_ms(start[k][i]), e = to_ms(end[k][i]);
      if (b < 0)
        b = 0;
      if (e <= b || !spk[k][i] || !*spk[k][i])
        continue; /* shorter than a step, inverted (lint's R02) or without a speaker */
      if ((rc = add_unit(x, k, index[k], spk[k][i], b, e)))
        goto end;
    }
  rc = rescue_unitize_compute(x->u, &x->res);
end:
  rescue_free(index);
  return rc;
}

/* The overall entry of set, added when new; NULL when out of memory. */
static agree_unitizing *overall_of(rescue_agree_report *r, const unsigned char *set) {
  agree_unitizing *x;
  int i;
  for (i = 0; i < r->n_overall; i++)
    if (memcmp(r->overall[i].set, set, (size_t)r->n_coders) == 0)
      return &r->overall[i];
  if (RESCUE_ALLOC_GROW(r->overall, r->n_overall + 1, r->cap_overall))
    return NULL;
  x = &r->overall[r->n_overall++];
  memset(x, 0, sizeof *x);
  if (!(x->set = rescue_calloc((size_t)r->n_coders + 1, 1)))
    return NULL;
  memcpy(x->set, set, (size_t)r->n_coders);
  return x;
}

/* The overall entries (one per set of coders, with its samples) and their lengths in *len. */
static int overall_lengths(rescue_agree_report *r, int64_t **len) {
  int i;
  *len = NULL;
  for (i = 0; i < r->n_unitizing; i++) {
    const agree_unitizing *s = &r->unitizing[i];
    agree_unitizing *o = overall_of(r, s->set);
    if (!o)
      return RESCUE_ENOMEM;
    o->samples++;
  }
  if (!(*len = rescue_calloc((size_t)r->n_overall + 1, sizeof **len)))
    return RESCUE_ENOMEM;
  for (i = 0; i < r->n_unitizing; i++) {
    const agree_unitizing *s = &r->unitizing[i];
    (*len)[overall_of(r, s->set) - r->overall] += rescue_unitize_length(s->u);
  }
  return 0;
}

int agree_unitizing_overall(rescue_agree_report *r) {
  int64_t *len = NULL, *off = NULL;
  int *index = NULL, i, rc;
  long j;
  if ((rc = overall_lengths(r, &len)))
    goto end;
  off = rescue_calloc((size_t)r->n_overall + 1, sizeof *off);
  index = rescue_calloc((size_t)r->n_coders + 1, sizeof *index);
  if (!off || !index) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  for (i = 0; i < r->n_overall; i++)
    if ((rc = rescue_unitize_new(0, len[i], 0.001, &r->overall[i].u)) ||
        (rc = add_coders(r, r->overall[i].set, r->overall[i].u, index)))
      goto end;
  for (i = 0; i < r->n_unitizing; i++) {
    const agree_unitizing *s = &r->unitizing[i];
    agree_unitizing *o = overall_of(r, s->set);
    int g = (int)(o - r->overall);
    add_coders(r, s->set, o->u, index); /* looks the coders up: no new ones */
    for (j = 0; j < s->n_units; j++) {
      const struct agree_unit_rec *t = &s->units[j];
      if ((rc = add_unit(o, t->coder, index[t->coder], rescue_unitize_category_name(s->u, t->cat),
                         off[g] + t->b, off[g] + t->e)))
        goto end;
    }
    off[g] += rescue_unitize_length(s->u);
  }
  for (i = 0; i < r->n_overall; i++)
    if ((rc = rescue_unitize_compute(r->overall[i].u, &r->overall[i].res)))
      goto end;
end:
  rescue_free(len);
  rescue_free(off);
  rescue_free(index);
  return rc;
}

/* The coders of a set as a JSON array. */
static void jw_set(const rescue_agree_report *r, const unsigned char *set, rescue_jw *w) {
  int k;
  rescue_jw_arr(w);
  for (k = 0; k < r->n_coders; k++)
    if (set[k])
      rescue_jw_str(w, r->coders[k]);
  rescue_jw_end(w);
}

/* The aligned pairs and unaligned rows per coder pair, as the "alignment" member. */
static void alignment_json(const rescue_agree_report *r, rescue_jw *w) {
  int i;
  rescue_jw_key(w, "alignment");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_seg_pairs; i++) {
    const agree_seg_pair *p = &r->seg_pairs[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "coders");
    rescue_jw_arr(w);
    rescue_jw_str(w, r->coders[p->a]);
    rescue_jw_str(w, r->coders[p->b]);
    rescue_jw_end(w);
    rescue_jw_key(w, "samples");
    rescue_jw_int(w, p->samples);
    rescue_jw_key(w, "aligned_pairs");
    rescue_jw_int(w, p->aligned);
    rescue_jw_key(w, "unaligned");
    rescue_jw_obj(w);
    rescue_jw_key(w, r->coders[p->a]);
    rescue_jw_int(w, p->unaligned_a);
    rescue_jw_key(w, r->coders[p->b]);
    rescue_jw_int(w, p->unaligned_b);
    rescue_jw_end(w);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void agree_segmentation_json(const rescue_agree_report *r, rescue_jw *w) {
  int i;
  rescue_jw_key(w, "segmentation");
  rescue_jw_obj(w);
  alignment_json(r, w);
  rescue_jw_key(w, "alpha_u");
  rescue_jw_obj(w);
  rescue_jw_key(w, "category");
  rescue_jw_str(w, "primary_speaker");
  rescue_jw_key(w, "overall");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_overall; i++) {
    const agree_unitizing *x = &r->overall[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "coders");
    jw_set(r, x->set, w);
    rescue_jw_key(w, "samples");
    rescue_jw_int(w, x->samples);
    rescue_jw_key(w, "result");
    rescue_unitize_result_json(x->u, &x->res, NULL, w);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "samples");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_unitizing; i++) {
    const agree_unitizing *x = &r->unitizing[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "sample");
    rescue_jw_str(w, x->sample);
    rescue_jw_key(w, "coders");
    jw_set(r, x->set, w);
    rescue_jw_key(w, "result");
    rescue_unitize_result_json(x->u, &x->res, NULL, w);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_end(w);
  rescue_jw_end(w);
}

/* The coders of a set, ", "-separated. */
static void set_text(const rescue_agree_report *r, const unsigned char *set, rescue_buf *out) {
  int k, first = 1;
  for (k = 0; k < r->n_coders; k++)
    if (set[k]) {
      rescue_buf_printf(out, "%s%s", first ? "" : ", ", r->coders[k]);
      first = 0;
    }
}

/* alpha-u to 4 places, or the status. */
static void alpha_text(const agree_unitizing *x, rescue_buf *out) {
  if (x->res.status == RESCUE_AGREE_NO_DATA || isnan(x->res.alpha))
    rescue_buf_printf(out, "alpha-u %s", rescue_agree_status_name(x->res.status));
  else
    rescue_buf_printf(out, "alpha-u %.4f", x->res.alpha);
  rescue_buf_printf(out, ", %ld merge%s of overlapping rows", x->res.merges,
                    x->res.merges == 1 ? "" : "s");
}

void agree_segmentation_text(const rescue_agree_report *r, rescue_buf *out) {
  int i, apart = 0, named = 0;
  rescue_buf_puts(out, "\nsegmentation: rows aligned one to one by the overlap rule; rows "
                       "without a partner are segmentation disagreements\n");
  for (i = 0; i < r->n_seg_pairs; i++) {
    const agree_seg_pair *p = &r->seg_pairs[i];
    if (!p->samples) {
      apart++;
      continue;
    }
    rescue_buf_printf(out,
                      "  %s / %s: %ld sample%s, %ld aligned pair%s, rows without a partner: "
                      "%s %ld, %s %ld\n",
                      r->coders[p->a], r->coders[p->b], p->samples, p->samples == 1 ? "" : "s",
                      p->aligned, p->aligned == 1 ? "" : "s", r->coders[p->a], p->unaligned_a,
                      r->coders[p->b], p->unaligned_b);
  }
  /* pairs that shared no sample: one line, not one each */
  if (apart) {
    rescue_buf_printf(out, "  %d coder pair%s covered no sample together: ", apart,
                      apart == 1 ? "" : "s");
    for (i = 0; i < r->n_seg_pairs && named < 6; i++)
      if (!r->seg_pairs[i].samples)
        rescue_buf_printf(out, "%s%s / %s", named++ ? ", " : "", r->coders[r->seg_pairs[i].a],
                          r->coders[r->seg_pairs[i].b]);
    if (apart > named)
      rescue_buf_printf(out, " and %d more", apart - named);
    rescue_buf_putc(out, '\n');
  }
  rescue_buf_puts(out, "alpha-u of the primary speaker on the time line (milliseconds):\n");
  for (i = 0; i < r->n_overall; i++) {
    const agree_unitizing *x = &r->overall[i];
    rescue_buf_puts(out, "  ");
    set_text(r, x->set, out);
    rescue_buf_printf(out, " (%ld sample%s end to end): ", x->samples, x->samples == 1 ? "" : "s");
    alpha_text(x, out);
    rescue_buf_putc(out, '\n');
  }
  for (i = 0; i < r->n_unitizing; i++) {
    const agree_unitizing *x = &r->unitizing[i];
    rescue_buf_printf(out, "    %s (", x->sample);
    set_text(r, x->set, out);
    rescue_buf_puts(out, "): ");
    alpha_text(x, out);
    rescue_buf_putc(out, '\n');
  }
}
