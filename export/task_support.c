/*
** task_support.c: STP (whom does the therapist support?) and SSP (with which strategy,
** the target given), export/TASKS.md §2.3, §2.4, §3: therapist rows whose first
** support_strategy item resolves to a target; context strictly before the row.
*/
#include <string.h>

#include "tasks_int.h"

/* A resolved support target of a therapist row. */
typedef struct support_gold {
  const char *source; /* "support_strategy" or "row_target_fallback" */
  int members;        /* names in the tuple */
} support_gold;

/*
** Append the cleaned names of list to tuple (a JSON array in tuple_json, the names
** NUL-separated in names) leaving out empties and the practitioner; returns the count.
*/
static int clean_tuple(tk_sample *t, const rescue_jnode *list, rescue_buf *names,
                       rescue_buf *tuple_json) {
  const rescue_jnode *c;
  rescue_jw w;
  int n = 0;
  rescue_buf_reset(names);
  rescue_buf_reset(tuple_json);
  rescue_jw_init(&w, tuple_json);
  rescue_jw_arr(&w);
  if (list && list->type == RESCUE_JARRAY)
    for (c = list->child; c; c = c->next) {
      size_t len = rescue_tk_clean(&t->tmp3, c);
      if (!len || strcmp(t->tmp3.s, t->sc->therapist) == 0)
        continue;
      rescue_buf_putn(names, t->tmp3.s, len);
      rescue_buf_putc(names, 0);
      rescue_jw_strn(&w, t->tmp3.s, len);
      n++;
    }
  rescue_jw_end(&w);
  return n;
}

/* The label of a cleaned tuple: its one name, or the group label for two or more. */
static const char *tuple_label(const tk_sample *t, int n, const rescue_buf *names) {
  if (n == 0 || !names->s)
    return "";
  return n == 1 ? names->s : t->group_label;
}

/*
** Resolve therapist row i: first support_strategy item, its cleaned strategy_type into
** *strategy (t->tmp2), the target tuple (item target, else row target) into t->tmp
** (names) and tuple_json. Returns 1 when the row is an instance.
*/
static int resolve(tk_sample *t, int i, rescue_buf *tuple_json, support_gold *g) {
  const rescue_jnode *items = rescue_tk_get(t, i, "support_strategy"), *first;
  if (!t->rows[i].therapist || !items || items->type != RESCUE_JARRAY || !items->child)
    return 0;
  first = items->child;
  if (first->type != RESCUE_JOBJECT)
    return 0; /* counts as {}: no strategy_type */
  if (!rescue_tk_clean(&t->tmp2, rescue_jget(first, "strategy_type")))
    return 0;
  g->members = clean_tuple(t, rescue_jget(first, "target"), &t->tmp, tuple_json);
  g->source = "support_strategy";
  if (!g->members) {
    g->members = clean_tuple(t, rescue_tk_get(t, i, "target"), &t->tmp, tuple_json);
    g->source = "row_target_fallback";
  }
  return g->members > 0;
}

/* Append label to the JSON array being built in b unless seen (NUL-separated in seen). */
static void add_label(rescue_jw *w, rescue_buf *seen, const char *label) {
  size_t len = strlen(label), p = 0;
  if (!len)
    return;
  while (p < seen->len) {
    size_t l = strlen(seen->s + p);
    if (l == len && memcmp(seen->s + p, label, len) == 0)
      return;
    p += l + 1;
  }
  rescue_buf_putn(seen, label, len);
  rescue_buf_putc(seen, 0);
  rescue_jw_strn(w, label, len);
}

/*
** The sample's STP candidate labels (export/TASKS.md §2.3): each participant, the group label, then for
** every therapist row its target tuple and each support item's target tuple, mapped to
** labels; de-duplicated in order (dropping duplicate tuples first cannot change that).
** Built into t->labels (JSON) with the labels NUL-separated in seen.
*/
static void stp_candidates(tk_sample *t, rescue_buf *seen, rescue_buf *tuple_json) {
  rescue_jw w;
  int i;
  rescue_buf_reset(&t->labels);
  rescue_buf_reset(seen);
  rescue_jw_init(&w, &t->labels);
  rescue_jw_arr(&w);
  for (i = 0; i < t->n; i++) { /* the shared participant list, as rescue_sample_participants_json */
    const char *p = t->s->rows[i].entities;
    while (p && *p) {
      const char *e = strchr(p, '\x1f');
      size_t len = e ? (size_t)(e - p) : strlen(p);
      rescue_buf_reset(&t->tmp3);
      rescue_buf_putn(&t->tmp3, p, len);
      if (len && t->tmp3.s && !rescue_scheme_is_reserved(t->sc, t->tmp3.s))
        add_label(&w, seen, t->tmp3.s);
      p = e ? e + 1 : NULL;
    }
  }
  add_label(&w, seen, t->group_label);
  for (i = 0; i < t->n; i++) {
    const rescue_jnode *items, *c;
    int n;
    if (!t->rows[i].therapist)
      continue;
    n = clean_tuple(t, rescue_tk_get(t, i, "target"), &t->tmp, tuple_json);
    add_label(&w, seen, tuple_label(t, n, &t->tmp));
    items = rescue_tk_get(t, i, "support_strategy");
    if (items && items->type == RESCUE_JARRAY)
      for (c = items->child; c; c = c->next) {
        n = clean_tuple(t, c->type == RESCUE_JOBJECT ? rescue_jget(c, "target") : NULL, &t->tmp,
                        tuple_json);
        add_label(&w, seen, tuple_label(t, n, &t->tmp));
      }
  }
  rescue_jw_end(&w);
}

int rescue_tk_build_stp(tk_sample *t, const tk_opts *o, tk_sink *k) {
  rescue_buf seen = RESCUE_BUF_INIT, tuple = RESCUE_BUF_INIT, cands = RESCUE_BUF_INIT;
  support_gold g;
  int i, rc = 0, have_candidates = 0;
  (void)o;
  for (i = 0; i < t->n && rc == 0; i++) {
    rescue_jw w;
    const char *label;
    size_t p, found = 0;
    if (!t->rows[i].therapist)
      continue;
    if (!have_candidates) {
      stp_candidates(t, &seen, &tuple);
      have_candidates = 1;
    }
    if (!resolve(t, i, &tuple, &g))
      continue;
    if (!rescue_buf_ok(&seen) || !rescue_buf_ok(&tuple) || !rescue_tk_sample_ok(t))
      break; /* out of memory: reported below */
    label = tuple_label(t, g.members, &t->tmp);
    /* per instance: the sample's list, plus the gold label when absent (never, in practice) */
    for (p = 0; p < seen.len; p += strlen(seen.s + p) + 1)
      found |= strcmp(seen.s + p, label) == 0;
    rescue_buf_reset(&cands);
    rescue_buf_putn(&cands, t->labels.s, t->labels.len);
    if (!rescue_buf_ok(&cands))
      break;
    if (!found) {
      cands.len--; /* reopen the array */
      if (cands.len > 1)
        rescue_buf_puts(&cands, ", ");
      rescue_jwrite_string(&cands, label, strlen(label));
      rescue_buf_putc(&cands, ']');
    }
    rescue_tk_begin(k, &w);
    rescue_tk_put_head(&w, t, RESCUE_TASK_STP, "row", i + 1);
    rescue_jw_key(&w, "row_index");
    rescue_jw_int(&w, i + 1);
    rescue_tk_put_value(&w, t, i, TK_TIMESTAMP, "timestamp");
    rescue_jw_key(&w, "candidate_target_labels");
    rescue_jw_raw(&w, cands.s, cands.len);
    rescue_tk_put_prior(&w, t, i);
    rescue_jw_key(&w, "gold_support_target");
    rescue_jw_str(&w, label);
    rescue_jw_key(&w, "gold_target_tuple");
    rescue_jw_raw(&w, tuple.s, tuple.len);
    rescue_jw_key(&w, "gold_target_source");
    rescue_jw_str(&w, g.source);
    rescue_tk_put_tail(&w, t);
    rc = rescue_tk_end(k, &w, RESCUE_TASK_STP, 0);
  }
  if (rc == 0 && (!rescue_buf_ok(&seen) || !rescue_buf_ok(&tuple) || !rescue_buf_ok(&cands)))
    rc = rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  rescue_buf_clear(&seen);
  rescue_buf_clear(&tuple);
  rescue_buf_clear(&cands);
  return rc;
}

int rescue_tk_build_ssp(tk_sample *t, const tk_opts *o, tk_sink *k) {
  rescue_buf tuple = RESCUE_BUF_INIT, strategies = RESCUE_BUF_INIT;
  support_gold g;
  int i, rc = 0;
  (void)o;
  if (!t->strategies)
    return 0;
  rescue_tk_labels_json(&strategies, t->strategies);
  for (i = 0; i < t->n && rc == 0 && rescue_buf_ok(&strategies); i++) {
    rescue_jw w;
    if (!resolve(t, i, &tuple, &g) || !rescue_tk_in_set(t->strategies, t->tmp2.s))
      continue;
    if (!rescue_buf_ok(&tuple) || !rescue_tk_sample_ok(t))
      break; /* out of memory: reported below */
    rescue_tk_begin(k, &w);
    rescue_tk_put_head(&w, t, RESCUE_TASK_SSP, "row", i + 1);
    rescue_jw_key(&w, "row_index");
    rescue_jw_int(&w, i + 1);
    rescue_tk_put_value(&w, t, i, TK_TIMESTAMP, "timestamp");
    rescue_jw_key(&w, "known_support_target");
    rescue_jw_str(&w, tuple_label(t, g.members, &t->tmp));
    rescue_jw_key(&w, "candidate_strategy_labels");
    rescue_jw_raw(&w, strategies.s, strategies.len);
    rescue_tk_put_prior(&w, t, i);
    rescue_jw_key(&w, "gold_support_strategy");
    rescue_jw_strn(&w, t->tmp2.s, t->tmp2.len);
    rescue_tk_put_tail(&w, t);
    rc = rescue_tk_end(k, &w, RESCUE_TASK_SSP, 0);
  }
  if (rc == 0 && (!rescue_buf_ok(&tuple) || !rescue_buf_ok(&strategies)))
    rc = rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  rescue_buf_clear(&tuple);
  rescue_buf_clear(&strategies);
  return rc;
}
