/*
** stats_labels.c: label distributions per scenario (support strategies, relation
** patterns, utterance types, intensities) and the relation-pattern transition matrix
** (the paper's Figure 3) for `rescue stats`.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_stats.h"
#include "intensity_int.h"
#include "tasks_int.h"

static const char *const field_keys[RESCUE_DIST_FIELDS] = {"support_strategy", "relation_pattern",
                                                           "utterance_type", "intensity"};
static const char *const scen_names[2] = {"couple", "family"};
static const char *const intensity_labels[11] = {"0", "1", "2", "3", "4", "5",
                                                 "6", "7", "8", "9", "10"};

void rescue_stats_labels_free(rescue_label_stats **sp) {
  rescue_label_stats *s = sp ? *sp : NULL;
  int i, f, k;
  if (!s)
    return;
  for (i = 0; i < 2; i++) {
    for (f = 0; f < RESCUE_DIST_FIELDS; f++) {
      for (k = 0; k < s->dist[i][f].n; k++)
        rescue_free(s->dist[i][f].v[k].label);
      rescue_free(s->dist[i][f].v);
    }
    rescue_free(s->trans[i].counts);
  }
  rescue_free(s);
  *sp = NULL;
}

/* Append a label (copied) to a distribution; returns its index or -1 out of memory. */
static int dist_append(rescue_label_dist *d, const char *label, size_t len, int in_set) {
  rescue_label_count *nv;
  if (RESCUE_ALLOC_GROW(d->v, d->n + 1, d->cap))
    return -1;
  nv = d->v;
  nv[d->n].label = rescue_strndup(label, len);
  nv[d->n].count = 0;
  nv[d->n].in_set = in_set;
  if (!nv[d->n].label)
    return -1;
  return d->n++;
}

/* Count one value; a label not seen before is added as out of set. 0 or RESCUE_ENOMEM. */
static int dist_add(rescue_label_dist *d, const char *label, size_t len) {
  int i;
  for (i = 0; i < d->n; i++)
    if (strlen(d->v[i].label) == len && memcmp(d->v[i].label, label, len) == 0)
      break;
  if (i == d->n && (i = dist_append(d, label, len, 0)) < 0)
    return RESCUE_ENOMEM;
  d->v[i].count++;
  d->total++;
  d->out_of_set += !d->v[i].in_set;
  return 0;
}

/* Seed the distributions with the scheme's label sets so zero counts show. */
static int seed(rescue_label_stats *s, const rescue_scheme *sc) {
  static const char *const sets[RESCUE_DIST_FIELDS] = {"support_strategy", "relation_pattern",
                                                       "utterance_type", NULL};
  int i, f, k;
  for (i = 0; i < 2; i++) {
    const rescue_labelset *rel = rescue_scheme_labelset(sc, "relation_pattern", scen_names[i]);
    for (f = 0; f < RESCUE_DIST_FIELDS; f++) {
      const rescue_labelset *ls =
          sets[f] ? rescue_scheme_labelset(sc, sets[f], scen_names[i]) : NULL;
      if (f == RESCUE_DIST_INTENSITY) {
        for (k = 0; k <= 10; k++)
          if (dist_append(&s->dist[i][f], intensity_labels[k], strlen(intensity_labels[k]), 1) < 0)
            return RESCUE_ENOMEM;
      }
      for (k = 0; ls && k < ls->n; k++)
        if (dist_append(&s->dist[i][f], ls->labels[k], strlen(ls->labels[k]), 1) < 0)
          return RESCUE_ENOMEM;
    }
    s->trans[i].n = rel ? rel->n : 0;
    s->trans[i].labels = rel ? (const char *const *)rel->labels : NULL;
    s->trans[i].counts = rescue_calloc((size_t)(s->trans[i].n * s->trans[i].n + 1), sizeof(long));
    if (!s->trans[i].counts)
      return RESCUE_ENOMEM;
  }
  return 0;
}

/* Count one sample. */
static int count_sample(rescue_label_stats *s, tk_sample *t) {
  int fam = strcmp(t->scenario, "family") == 0, i, prev = -1, has_pattern = 0, rc = 0;
  const rescue_labelset *rel = t->relations;
  rescue_transitions *tr = &s->trans[fam];
  s->samples[fam]++;
  for (i = 0; i < t->n; i++)
    has_pattern |= t->s->rows[i].relation_pattern != NULL;
  for (i = 0; i < t->n && rc == 0; i++) {
    const rescue_row *sr = &t->s->rows[i];
    const rescue_jnode *items = rescue_tk_get(t, i, "support_strategy"), *c;
    const char *relation = has_pattern ? sr->relation_pattern
                                       : (t->rows[i].therapist ? sr->relation_cycle_state : NULL);
    if (items && items->type == RESCUE_JARRAY)
      for (c = items->child; c && rc == 0; c = c->next)
        if (c->type == RESCUE_JOBJECT && rescue_tk_clean(&t->tmp, rescue_jget(c, "strategy_type")))
          rc = dist_add(&s->dist[fam][RESCUE_DIST_SUPPORT_STRATEGY], t->tmp.s, t->tmp.len);
    if (rc == 0 && relation && relation[0]) {
      int k = rel ? rescue_labelset_find(rel, relation) : -1;
      rc = dist_add(&s->dist[fam][RESCUE_DIST_RELATION_PATTERN], relation, strlen(relation));
      if (k >= 0) {
        if (prev >= 0 && prev != k) {
          tr->counts[prev * tr->n + k]++;
          tr->total++;
        }
        prev = k;
      }
    }
    if (rc == 0 && sr->utterance_type && sr->utterance_type[0])
      rc = dist_add(&s->dist[fam][RESCUE_DIST_UTTERANCE_TYPE], sr->utterance_type,
                    strlen(sr->utterance_type));
    items = rescue_tk_get(t, i, "internal_emotion");
    if (items && items->type == RESCUE_JARRAY)
      for (c = items->child; c && rc == 0; c = c->next) {
        const rescue_jnode *v = c->type == RESCUE_JOBJECT ? rescue_jget(c, "intensity") : NULL;
        const char *why;
        int x;
        if (!v || v->type == RESCUE_JNULL)
          continue;
        if ((x = rescue_intensity(v, &t->tmp3, &why)) >= 0)
          rc = dist_add(&s->dist[fam][RESCUE_DIST_INTENSITY], intensity_labels[x],
                        strlen(intensity_labels[x]));
        else
          rc = dist_add(&s->dist[fam][RESCUE_DIST_INTENSITY], "invalid", 7);
      }
  }
  return rc;
}

int rescue_stats_labels(rescue_store *st, const rescue_view *view, rescue_label_stats **out) {
  rescue_label_stats *s = rescue_calloc(1, sizeof *s);
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  tk_sample t;
  int rc;
  *out = NULL;
  rescue_tk_sample_init(&t, rescue_store_scheme(st));
  t.rows_only = 1;
  if (!s || seed(s, rescue_store_scheme(st))) {
    rescue_stats_labels_free(&s);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  if ((rc = rescue_sample_iter_new(st, view, NULL, 0, &it)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &smp)) == 1) {
    if (strcmp(smp->status, "discarded") == 0 || !smp->complete)
      continue;
    if ((rc = rescue_tk_sample_prepare(&t, st, smp, NULL, rescue_store_err(st))))
      break;
    if ((rc = count_sample(s, &t))) {
      rc = rescue_seterr(rescue_store_err(st), rc, NULL);
      break;
    }
  }
end:
  rescue_sample_iter_free(&it);
  rescue_tk_sample_clear(&t);
  if (rc < 0) {
    rescue_stats_labels_free(&s);
    return rc;
  }
  *out = s;
  return 0;
}

double rescue_transition_p(const rescue_transitions *t, int from, int to) {
  long row = 0;
  int k;
  for (k = 0; k < t->n; k++)
    row += t->counts[from * t->n + k];
  return row ? (double)t->counts[from * t->n + to] / (double)row : 0.0;
}

static void dist_json(rescue_jw *w, const rescue_label_dist *d) {
  int k;
  rescue_jw_obj(w);
  rescue_jw_key(w, "total");
  rescue_jw_int(w, d->total);
  rescue_jw_key(w, "out_of_set");
  rescue_jw_int(w, d->out_of_set);
  rescue_jw_key(w, "counts");
  rescue_jw_obj(w);
  for (k = 0; k < d->n; k++) {
    rescue_jw_key(w, d->v[k].label);
    rescue_jw_int(w, d->v[k].count);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "shares");
  rescue_jw_obj(w);
  for (k = 0; k < d->n; k++) {
    rescue_jw_key(w, d->v[k].label);
    rescue_jw_double(w, d->total ? (double)d->v[k].count / (double)d->total : 0.0);
  }
  rescue_jw_end(w);
  rescue_jw_end(w);
}

static void trans_json(rescue_jw *w, const rescue_transitions *t) {
  int a, b;
  rescue_jw_obj(w);
  rescue_jw_key(w, "labels");
  rescue_jw_arr(w);
  for (a = 0; a < t->n; a++)
    rescue_jw_str(w, t->labels[a]);
  rescue_jw_end(w);
  rescue_jw_key(w, "transitions");
  rescue_jw_int(w, t->total);
  rescue_jw_key(w, "counts");
  rescue_jw_arr(w);
  for (a = 0; a < t->n; a++) {
    rescue_jw_arr(w);
    for (b = 0; b < t->n; b++)
      rescue_jw_int(w, t->counts[a * t->n + b]);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "probabilities");
  rescue_jw_arr(w);
  for (a = 0; a < t->n; a++) {
    rescue_jw_arr(w);
    for (b = 0; b < t->n; b++)
      rescue_jw_double(w, rescue_transition_p(t, a, b));
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_end(w);
}

void rescue_stats_json(const rescue_table3 *t3, const rescue_label_stats *ls, rescue_buf *out) {
  rescue_jw w;
  int i, f;
  /* Table 3's document, reopened: its keys stay exactly as rescue_stats_table3_json writes them */
  rescue_stats_table3_json(t3, out);
  if (!out->len || out->s[out->len - 1] != '}')
    return;
  out->len--;
  out->s[out->len] = 0;
  rescue_jw_init(&w, out);
  w.depth = 1; /* inside the reopened object, after its members */
  w.first[1] = 0;
  rescue_jw_key(&w, "label_distributions");
  rescue_jw_obj(&w);
  for (i = 0; i < 2; i++) {
    rescue_jw_key(&w, scen_names[i]);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "samples");
    rescue_jw_int(&w, ls->samples[i]);
    for (f = 0; f < RESCUE_DIST_FIELDS; f++) {
      rescue_jw_key(&w, field_keys[f]);
      dist_json(&w, &ls->dist[i][f]);
    }
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "relation_transitions");
  rescue_jw_obj(&w);
  for (i = 0; i < 2; i++) {
    rescue_jw_key(&w, scen_names[i]);
    trans_json(&w, &ls->trans[i]);
  }
  rescue_jw_end(&w);
  rescue_buf_putc(out, '}');
}

void rescue_stats_labels_text(const rescue_label_stats *ls, rescue_buf *out) {
  static const char *const titles[RESCUE_DIST_FIELDS] = {
      "support strategies (every support_strategy item)", "relation patterns", "utterance types",
      "intensities (internal_emotion items)"};
  int i, f, k, a, b;
  for (f = 0; f < RESCUE_DIST_FIELDS; f++) {
    rescue_buf_printf(out, "\n%s\n%-32s%10s%8s%10s%8s\n", titles[f], "", "couple", "", "family",
                      "");
    /* the union of both scenarios' labels: couple's first, then family's new ones */
    for (i = 0; i < 2; i++)
      for (k = 0; k < ls->dist[i][f].n; k++) {
        const char *label = ls->dist[i][f].v[k].label;
        long cnt[2] = {0, 0};
        int j, s2, seen_before = 0, in_any = 0;
        for (j = 0; i == 1 && j < ls->dist[0][f].n; j++)
          seen_before |= strcmp(ls->dist[0][f].v[j].label, label) == 0;
        if (seen_before)
          continue;
        for (s2 = 0; s2 < 2; s2++)
          for (j = 0; j < ls->dist[s2][f].n; j++)
            if (strcmp(ls->dist[s2][f].v[j].label, label) == 0) {
              cnt[s2] = ls->dist[s2][f].v[j].count;
              in_any |= ls->dist[s2][f].v[j].in_set;
            }
        rescue_buf_printf(out, "  %-30.30s", label);
        for (s2 = 0; s2 < 2; s2++) {
          long tot = ls->dist[s2][f].total;
          rescue_buf_printf(out, "%10ld", cnt[s2]);
          if (tot)
            rescue_buf_printf(out, "%7.1f%%", 100.0 * (double)cnt[s2] / (double)tot);
          else
            rescue_buf_printf(out, "%8s", "-");
        }
        rescue_buf_puts(out, in_any ? "\n" : "  (not in the label set)\n");
      }
    rescue_buf_printf(out, "  %-30s%10ld%8s%10ld\n", "total", ls->dist[0][f].total, "",
                      ls->dist[1][f].total);
  }
  for (i = 0; i < 2; i++) {
    const rescue_transitions *t = &ls->trans[i];
    rescue_buf_printf(out,
                      "\nrelation-pattern transitions, %s (%ld; row = from, share of that row's "
                      "transitions to each column; self-transitions left out)\n%-32s",
                      scen_names[i], t->total, "");
    for (b = 0; b < t->n; b++)
      rescue_buf_printf(out, "%6d", b + 1);
    rescue_buf_putc(out, '\n');
    for (a = 0; a < t->n; a++) {
      rescue_buf_printf(out, "  %2d %-27.27s", a + 1, t->labels[a]);
      for (b = 0; b < t->n; b++) {
        if (a == b)
          rescue_buf_printf(out, "%6s", "-");
        else
          rescue_buf_printf(out, "%6.2f", rescue_transition_p(t, a, b));
      }
      rescue_buf_putc(out, '\n');
    }
  }
}
