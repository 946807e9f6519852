/*
** assign.c: dealing samples out to annotators. Whole groups (a couple's or a family's
** samples) go together; a seeded shuffle orders the groups; in each scenario a share of
** the samples is picked for double review (what agreement needs); then groups go, double
** ones first and larger ones first, to the least-loaded annotators, pairs rotating.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_annotators.h"
#include "store_int.h"
#include "prim_int.h"

typedef struct agroup {
  char *name;
  int family;      /* scenario: any sample reads as family */
  int n, cap_refs; /* samples */
  int64_t *refs;
  int order; /* position after the seeded shuffle */
  int twice; /* goes to two annotators */
  int who[2];
} agroup;

/* Twice first, then larger, then shuffled order. */
static int by_deal(const void *a, const void *b) {
  const agroup *x = *(agroup *const *)a, *y = *(agroup *const *)b;
  if (x->twice != y->twice)
    return y->twice - x->twice;
  if (x->n != y->n)
    return y->n - x->n;
  return x->order - y->order;
}

static int by_name(const void *a, const void *b) {
  return strcmp(((const agroup *)a)->name, ((const agroup *)b)->name);
}

/* Collect the groups of the samples not discarded (corpus view for the scenario). */
static int collect(rescue_store *st, agroup **out, int *n_out, long *samples) {
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  agroup *g = NULL;
  int n = 0, cap = 0, rc, i;
  *samples = 0;
  if ((rc = rescue_sample_iter_new(st, &v, NULL, 0, &it)))
    return rc;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    agroup *cur = NULL;
    if (strcmp(s->status, "discarded") == 0)
      continue;
    for (i = n - 1; i >= 0 && !cur; i--)
      if (strcmp(g[i].name, s->group) == 0)
        cur = &g[i];
    if (!cur) {
      if (RESCUE_ALLOC_GROW(g, n + 1, cap))
        goto nomem;
      cur = &g[n];
      memset(cur, 0, sizeof *cur);
      if (!(cur->name = rescue_strdup(s->group)))
        goto nomem;
      n++;
    }
    if (RESCUE_ALLOC_GROW(cur->refs, cur->n + 1, cur->cap_refs))
      goto nomem;
    cur->refs[cur->n++] = s->ref;
    cur->family |= strcmp(rescue_sample_scenario(rescue_store_scheme(st), s), "family") == 0;
    (*samples)++;
  }
  rescue_sample_iter_free(&it);
  if (rc < 0)
    goto fail;
  *out = g;
  *n_out = n;
  return 0;
nomem:
  rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
fail:
  rescue_sample_iter_free(&it);
  for (i = 0; i < n; i++) {
    rescue_free(g[i].name);
    rescue_free(g[i].refs);
  }
  rescue_free(g);
  return rc;
}

/*
** In one scenario, pick groups (in shuffled order) for double review so that their
** samples come as close as possible to `share` of the scenario's samples.
*/
static void pick_doubles(agroup **by_order, int n, int family, double share) {
  long total = 0, chosen = 0, target;
  int i;
  for (i = 0; i < n; i++)
    if (by_order[i]->family == family)
      total += by_order[i]->n;
  target = lround(share * (double)total);
  for (i = 0; i < n && chosen < target; i++) {
    agroup *g = by_order[i];
    if (g->family != family)
      continue;
    if (labs(chosen + g->n - target) < labs(chosen - target)) {
      g->twice = 1;
      chosen += g->n;
    }
  }
}

/*
** Check the annotators of an assignment: none listed twice, each registered, not retired
** and a person, not a model. Fills ids[i] with the store id of o->annotators[i] and appends
** the comma-separated names to `names`. Returns 0 or an error code kept on the store handle.
*/
static int resolve_annotators(rescue_store *st, const rescue_assign_opts *o, int64_t *ids,
                              rescue_buf *names) {
  int i, j, rc;
  for (i = 0; i < o->n_annotators; i++) {
    const char *role = NULL;
    int retired = 0;
    for (j = 0; j < i; j++)
      if (strcmp(o->annotators[i], o->annotators[j]) == 0)
        return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "annotator '%s' is listed twice",
                             o->annotators[i]);
    /* a registered annotator only: an unknown name is refused with the closest ones */
    if ((rc = rescue_annotator_lookup(st, o->annotators[i], &ids[i], &role, &retired)))
      return rc;
    if (retired)
      return rescue_seterr_arg(rescue_store_err(st), RESCUE_ERETIRED, o->annotators[i],
                               "annotator '%s' is retired", o->annotators[i]);
    if (strcmp(role, "model") == 0)
      return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                           "'%s' is a model annotator; assign samples to people", o->annotators[i]);
    rescue_buf_printf(names, "%s%s", i ? "," : "", o->annotators[i]);
  }
  return 0;
}

/*
** Put the n groups of g in dealing order: a seeded shuffle from name order (so the result
** depends on the seed only), the double-review picks of each scenario, then by_deal.
** order[] (n slots, owned by the caller) receives pointers into g; g itself is re-sorted.
*/
static void order_groups(agroup *g, agroup **order, int n, uint64_t seed, double overlap) {
  int i, j;
  qsort(g, (size_t)n, sizeof *g, by_name);
  for (i = 0; i < n; i++)
    order[i] = &g[i];
  for (i = n - 1; i > 0; i--) {
    agroup *t;
    j = (int)rescue_splitmix64_below(&seed, (uint64_t)i + 1);
    t = order[i];
    order[i] = order[j];
    order[j] = t;
  }
  for (i = 0; i < n; i++)
    order[i]->order = i;
  if (overlap > 0) {
    pick_doubles(order, n, 0, overlap);
    pick_doubles(order, n, 1, overlap);
  }
  qsort(order, (size_t)n, sizeof *order, by_deal);
}

/*
** Deal the groups in order to the A annotators: least load first; a double group's second
** annotator is the one paired least often with the first. Sets each group's who[], and
** updates load[A], pairs[A*A] and the counts of res.
*/
static void deal_groups(agroup **order, int n, int A, long *load, long *pairs,
                        rescue_assign_result *res) {
  int i, k;
  for (i = 0; i < n; i++) {
    agroup *cur = order[i];
    int a = 0, b = -1;
    for (k = 1; k < A; k++)
      if (load[k] < load[a])
        a = k;
    if (cur->twice)
      for (k = 0; k < A; k++) {
        if (k == a)
          continue;
        if (b < 0 || pairs[a * A + k] < pairs[a * A + b] ||
            (pairs[a * A + k] == pairs[a * A + b] && load[k] < load[b]))
          b = k;
      }
    cur->who[0] = a;
    cur->who[1] = b;
    load[a] += cur->n;
    res->per_annotator[a] += cur->n;
    if (b >= 0) {
      load[b] += cur->n;
      res->per_annotator[b] += cur->n;
      res->shared_per_annotator[a] += cur->n;
      res->shared_per_annotator[b] += cur->n;
      pairs[a * A + b]++;
      pairs[b * A + a]++;
      res->double_groups++;
      res->double_samples += cur->n;
    }
  }
}

/*
** Record the run and one assignment row per sample and dealt annotator, inside the caller's
** transaction. Sets *run_id to the new run's id. Returns 0 or an error code kept on the
** store handle.
*/
static int record_run(rescue_store *st, const rescue_assign_opts *o, const agroup *g, int n,
                      const int64_t *ids, const rescue_buf *names, int64_t *run_id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "assign_run_insert");
  char now[32];
  int i, j, k, rc;
  if (!s || !rescue_buf_ok(names))
    return s ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
             : rescue_store_err(st)->code;
  rescue_now_iso(now);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_int(s, ":seed", (int64_t)o->seed);
  rescue_bind_double(s, ":overlap", o->overlap);
  rescue_bind_text(s, ":annotators", names->s, (int)names->len);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    *run_id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  if (rc != SQLITE_ROW)
    return rescue_store_sqlerr(st, "recording the assignment");
  for (i = 0; i < n; i++)
    for (k = 0; k < 2; k++) {
      int who = g[i].who[k];
      if (who < 0)
        continue;
      for (j = 0; j < g[i].n; j++) {
        if (!(s = rescue_store_stmt(st, "assignment_insert")))
          return rescue_store_err(st)->code;
        rescue_bind_int(s, ":run_id", *run_id);
        rescue_bind_int(s, ":sample_ref", g[i].refs[j]);
        rescue_bind_int(s, ":annotator_id", ids[who]);
        rc = sqlite3_step(s);
        sqlite3_reset(s);
        if (rc != SQLITE_DONE)
          return rescue_store_sqlerr(st, "recording the assignment");
      }
    }
  return 0;
}

/* The audit record of an assignment run, inside its transaction (rescue_audit.h). */
static int assign_audit(rescue_store *st, const rescue_assign_opts *o, int64_t run_id, long samples,
                        int groups, const rescue_buf *names) {
  rescue_audit_entry e = {0};
  char detail[600];
  snprintf(detail, sizeof detail,
           "run %lld: %ld samples in %d groups to %s (overlap %g, seed %llu)", (long long)run_id,
           samples, groups, names->s ? names->s : "", o->overlap, (unsigned long long)o->seed);
  e.action = "assign";
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

int rescue_assign(rescue_store *st, const rescue_assign_opts *o, rescue_assign_result *res) {
  agroup *g = NULL, **order = NULL;
  int64_t *ids = NULL, run_id = 0;
  long *load = NULL, *pairs = NULL, samples = 0;
  int n = 0, i, A = o->n_annotators, rc = 0, in_txn = 0;
  rescue_buf names = RESCUE_BUF_INIT;
  memset(res, 0, sizeof *res);
  if (A < 1)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "no annotators to assign to");
  if (!(o->overlap >= 0 && o->overlap <= 1))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "the overlap is a share of samples from 0 to 1");
  if (o->overlap > 0 && A < 2)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "double review (an overlap above 0) needs at least two annotators");
  ids = rescue_calloc((size_t)A, sizeof *ids);
  load = rescue_calloc((size_t)A, sizeof *load);
  pairs = rescue_calloc((size_t)A * A, sizeof *pairs);
  res->per_annotator = rescue_calloc((size_t)A, sizeof *res->per_annotator);
  res->shared_per_annotator = rescue_calloc((size_t)A, sizeof *res->shared_per_annotator);
  if (!ids || !load || !pairs || !res->per_annotator || !res->shared_per_annotator)
    goto nomem;
  if ((rc = resolve_annotators(st, o, ids, &names)))
    goto end;
  if ((rc = rescue_store_begin(st)))
    goto end;
  in_txn = 1;
  if ((rc = collect(st, &g, &n, &samples)))
    goto end;
  if (!n) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "the corpus has no samples to assign");
    goto end;
  }
  if (!(order = rescue_malloc((size_t)n * sizeof *order)))
    goto nomem;
  order_groups(g, order, n, o->seed, o->overlap);
  deal_groups(order, n, A, load, pairs, res);
  if ((rc = record_run(st, o, g, n, ids, &names, &run_id)))
    goto end;
  if ((rc = assign_audit(st, o, run_id, samples, n, &names)) || (rc = rescue_store_commit(st)))
    goto end;
  in_txn = 0;
  res->run_id = run_id;
  res->samples = samples;
  res->groups = n;
  rc = 0;
  goto end;
nomem:
  rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
end:
  if (in_txn)
    rescue_store_rollback(st);
  for (i = 0; i < n; i++) {
    rescue_free(g[i].name);
    rescue_free(g[i].refs);
  }
  rescue_free(g);
  rescue_free(order);
  rescue_free(ids);
  rescue_free(load);
  rescue_free(pairs);
  rescue_buf_clear(&names);
  if (rc)
    rescue_assign_result_clear(res);
  return rc;
}

void rescue_assign_result_clear(rescue_assign_result *res) {
  rescue_free(res->per_annotator);
  rescue_free(res->shared_per_annotator);
  memset(res, 0, sizeof *res);
}
