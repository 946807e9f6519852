/*
** split.c: `rescue split`: whole groups to train/validation/test, stratified by
** scenario, deterministic for a seed, recorded as a new split run.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_split.h"
#include "store_int.h"
#include "prim_int.h"

static const char *const split_names[RESCUE_SPLIT_COUNT] = {"train", "validation", "test"};

const char *rescue_split_name(int i) {
  return i >= 0 && i < RESCUE_SPLIT_COUNT ? split_names[i] : NULL;
}

int rescue_split_index(const char *name) {
  int i;
  for (i = 0; name && i < RESCUE_SPLIT_COUNT; i++)
    if (strcmp(name, split_names[i]) == 0)
      return i;
  return -1;
}

int rescue_split_parse_ratios(const char *text, double r[RESCUE_SPLIT_COUNT], rescue_error *err) {
  const char *p = text;
  double sum = 0;
  int i;
  for (i = 0; i < RESCUE_SPLIT_COUNT; i++) {
    char *end;
    errno = 0;
    r[i] = strtod(p, &end);
    if (end == p || errno || !isfinite(r[i]) || r[i] < 0 || (*end != ',' && *end != 0) ||
        (i < RESCUE_SPLIT_COUNT - 1 && *end != ',') || (i == RESCUE_SPLIT_COUNT - 1 && *end))
      return rescue_seterr(err, RESCUE_EINVAL,
                           "ratios must be three numbers >= 0 separated by commas "
                           "(train,validation,test), not '%s'",
                           text);
    sum += r[i];
    p = end + 1;
  }
  if (!(sum > 0))
    return rescue_seterr(err, RESCUE_EINVAL, "ratios '%s' add up to 0", text);
  return 0;
}

/*
** Group counts per split for g groups by the largest remainder method: floor of each
** quota, then one more to the splits with the largest fractional parts (ties go to the
** earlier split). A zero ratio gets nothing.
*/
static void largest_remainder(long g, const double r[RESCUE_SPLIT_COUNT],
                              long out[RESCUE_SPLIT_COUNT]) {
  double sum = 0, frac[RESCUE_SPLIT_COUNT];
  long given = 0;
  int i;
  for (i = 0; i < RESCUE_SPLIT_COUNT; i++)
    sum += r[i];
  for (i = 0; i < RESCUE_SPLIT_COUNT; i++) {
    double q = (double)g * r[i] / sum;
    out[i] = (long)floor(q);
    frac[i] = r[i] > 0 ? q - floor(q) : -1;
    given += out[i];
  }
  while (given < g) {
    int best = -1;
    for (i = 0; i < RESCUE_SPLIT_COUNT; i++)
      if (r[i] > 0 && (best < 0 || frac[i] > frac[best]))
        best = i;
    out[best]++;
    frac[best] = -1;
    given++;
    if (given < g) { /* more left than splits with a remainder: should not happen */
      int any = 0;
      for (i = 0; i < RESCUE_SPLIT_COUNT; i++)
        any |= frac[i] >= 0;
      if (!any)
        for (i = 0; i < RESCUE_SPLIT_COUNT; i++)
          frac[i] = r[i] > 0 ? 0 : -1;
    }
  }
}

typedef struct split_group {
  int64_t id;
  char *name;
  int family; /* some sample of the group is a family sample */
  long samples;
  int split;
} split_group;

/* Binary search of a group by name in the name-sorted array. */
static split_group *find_group(split_group *g, long n, const char *name) {
  long lo = 0, hi = n - 1;
  while (lo <= hi) {
    long mid = lo + (hi - lo) / 2;
    int c = strcmp(g[mid].name, name);
    if (c == 0)
      return &g[mid];
    if (c < 0)
      lo = mid + 1;
    else
      hi = mid - 1;
  }
  return NULL;
}

/* Load the groups that have samples (sorted by name) with their scenario and size. */
static int load_groups(rescue_store *st, split_group **out, long *nout) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  sqlite3_stmt *s = rescue_store_stmt(st, "split_groups");
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  split_group *g = NULL;
  long n = 0, cap = 0;
  int rc;
  *out = NULL;
  *nout = 0;
  if (!s)
    return rescue_store_err(st)->code;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(g, n + 1, cap)) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto fail;
    }
    memset(&g[n], 0, sizeof g[n]);
    g[n].id = sqlite3_column_int64(s, 0);
    g[n].name = rescue_strdup((const char *)sqlite3_column_text(s, 1));
    if (!g[n].name) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto fail;
    }
    n++;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "reading groups");
    goto fail;
  }
  if ((rc = rescue_sample_iter_new(st, &view, NULL, 0, &it)))
    goto fail;
  while ((rc = rescue_sample_iter_next(it, &smp)) == 1) {
    split_group *x = find_group(g, n, smp->group);
    if (!x)
      continue;
    x->samples++;
    if (strcmp(rescue_sample_scenario(sc, smp), "family") == 0)
      x->family = 1;
  }
  rescue_sample_iter_free(&it);
  if (rc < 0)
    goto fail;
  *out = g;
  *nout = n;
  return 0;
fail:
  while (n > 0)
    rescue_free(g[--n].name);
  rescue_free(g);
  sqlite3_reset(s);
  return rc;
}

/* The audit record of a split run, inside its transaction (rescue_audit.h). */
static int split_audit(rescue_store *st, const rescue_split_opts *o, const char *ratios,
                       const rescue_split_result *res) {
  rescue_audit_entry e = {0};
  char detail[400];
  snprintf(detail, sizeof detail,
           "split run %lld (seed %llu, ratios %s%s): train %ld, validation %ld, test %ld groups",
           (long long)res->run_id, (unsigned long long)o->seed, ratios,
           o->stratify ? ", stratified" : "", res->groups[0], res->groups[1], res->groups[2]);
  e.action = "split";
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

int rescue_split_assign(rescue_store *st, const rescue_split_opts *o, rescue_split_result *res) {
  split_group *g = NULL, **stratum = NULL;
  rescue_split_result dummy;
  sqlite3_stmt *s;
  uint64_t rng = o->seed;
  char now[32], ratios[128];
  long n = 0, i;
  int rc, fam, in_tx = 0;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  if (o->seed > (uint64_t)INT64_MAX)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "seed %llu is too large",
                         (unsigned long long)o->seed);
  if (o->ratios_text)
    snprintf(ratios, sizeof ratios, "%s", o->ratios_text);
  else
    snprintf(ratios, sizeof ratios, "%g,%g,%g", o->ratios[0], o->ratios[1], o->ratios[2]);
  if ((rc = load_groups(st, &g, &n)))
    return rc;
  stratum = rescue_calloc((size_t)(n ? n : 1), sizeof *stratum);
  if (!stratum) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  /* couple stratum first, then family; without stratification one stratum of all */
  for (fam = 0; fam < (o->stratify ? 2 : 1); fam++) {
    long m = 0, counts[RESCUE_SPLIT_COUNT], k = 0;
    int sp;
    for (i = 0; i < n; i++)
      if (!o->stratify || g[i].family == fam)
        stratum[m++] = &g[i];
    for (i = m - 1; i > 0; i--) { /* Fisher-Yates */
      long j = (long)rescue_splitmix64_below(&rng, (uint64_t)i + 1);
      split_group *t = stratum[i];
      stratum[i] = stratum[j];
      stratum[j] = t;
    }
    largest_remainder(m, o->ratios, counts);
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
      for (i = 0; i < counts[sp]; i++, k++) {
        stratum[k]->split = sp;
        res->groups[sp]++;
        res->samples[sp] += stratum[k]->samples;
        res->scenario_groups[stratum[k]->family][sp]++;
      }
  }

  if ((rc = rescue_store_begin(st)))
    goto end;
  in_tx = 1;
  rescue_now_iso(now);
  if (!(s = rescue_store_stmt(st, "split_run_insert"))) {
    rc = rescue_store_err(st)->code;
    goto end;
  }
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_int(s, ":seed", (int64_t)o->seed);
  rescue_bind_text(s, ":ratios", ratios, -1);
  rescue_bind_int(s, ":stratify", o->stratify ? 1 : 0);
  if (sqlite3_step(s) != SQLITE_ROW) {
    rc = rescue_store_sqlerr(st, "recording the split run");
    goto end;
  }
  res->run_id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  for (i = 0; i < n; i++) {
    if (!(s = rescue_store_stmt(st, "split_group_insert"))) {
      rc = rescue_store_err(st)->code;
      goto end;
    }
    rescue_bind_int(s, ":run_id", res->run_id);
    rescue_bind_int(s, ":group_id", g[i].id);
    rescue_bind_text(s, ":split", split_names[g[i].split], -1);
    if (sqlite3_step(s) != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "recording the split");
      goto end;
    }
  }
  if ((rc = split_audit(st, o, ratios, res)))
    goto end;
  rc = rescue_store_commit(st);
  in_tx = 0;
end:
  if (in_tx)
    rescue_store_rollback(st);
  if (rc)
    memset(res, 0, sizeof *res);
  for (i = 0; i < n; i++)
    rescue_free(g[i].name);
  rescue_free(g);
  rescue_free(stratum);
  return rc;
}

int rescue_split_latest(rescue_store *st, rescue_split_run *run) {
  sqlite3_stmt *s = rescue_store_stmt(st, "split_latest");
  int rc;
  memset(run, 0, sizeof *run);
  if (!s)
    return rescue_store_err(st)->code;
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    run->id = sqlite3_column_int64(s, 0);
    run->seed = sqlite3_column_int64(s, 1);
    snprintf(run->ratios, sizeof run->ratios, "%s", (const char *)sqlite3_column_text(s, 2));
    run->stratify = sqlite3_column_int(s, 3);
    snprintf(run->created_at, sizeof run->created_at, "%s",
             (const char *)sqlite3_column_text(s, 4));
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading the split run");
  if (run->id && rescue_split_parse_ratios(run->ratios, run->r, rescue_store_err(st)))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "split run %lld has unreadable ratios '%s'", (long long)run->id,
                         run->ratios);
  return 0;
}

int rescue_split_of_sample(rescue_store *st, int64_t run_id, int64_t sample_ref, int *split) {
  sqlite3_stmt *s = rescue_store_stmt(st, "split_of_sample");
  int rc;
  *split = -1;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":run_id", run_id);
  rescue_bind_int(s, ":sample_ref", sample_ref);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    *split = rescue_split_index((const char *)sqlite3_column_text(s, 0));
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a sample's split");
  return 0;
}
