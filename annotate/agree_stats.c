/*
** agree_stats.c: the coefficients: Krippendorff's alpha at every level through the
** coincidence of value pairs within units, one-vs-rest alpha per label, Cohen's kappa
** (plain and weighted) per coder pair, Fleiss' kappa, Gwet's AC1, percent agreement, text
** overlap, the bootstrap interval and per-group alpha. Formulas: annotate/AGREEMENT.md.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "agree_int.h"
#include "prim_int.h"
#include "rescue_alloc.h"

/* Dense tables (distances, coincidences) are kept only up to this many values. */
#define DELTA_TABLE_MAX 1024
#define MATRIX_MAX 64

/*
** The distance function of one computation. Ordinal distances depend on the marginal
** counts of the values (cum, over the values in rank order), so they are rebuilt for
** each set of marginals (a bootstrap replicate).
*/
typedef struct metric {
  rescue_agree_level level;
  const rescue_agree_data *d;
  int V;
  const double *x;    /* value numbers */
  int *rank;          /* ordinal: value -> rank (ascending number) */
  int *by_rank;       /* ordinal: rank -> value */
  double *cum;        /* ordinal: cum[r] = sum of marginals of ranks <= r */
  const double *marg; /* ordinal: marginals by value */
  double *table;      /* V x V distances, or NULL */
} metric;

/* |A n B| for two ascending element lists. */
static int intersect(const int32_t *a, int na, const int32_t *b, int nb) {
  int i = 0, j = 0, k = 0;
  while (i < na && j < nb) {
    if (a[i] < b[j])
      i++;
    else if (a[i] > b[j])
      j++;
    else
      k++, i++, j++;
  }
  return k;
}

/* Distance between two set values: Jaccard or MASI (exact thirds). */
static double set_distance(const rescue_agree_data *d, int masi, int c, int k) {
  const int32_t *a = d->set_el + d->set_off[c], *b = d->set_el + d->set_off[k];
  int na = d->set_off[c + 1] - d->set_off[c], nb = d->set_off[k + 1] - d->set_off[k];
  int in = intersect(a, na, b, nb), un = na + nb - in;
  double j = un ? (double)in / un : 1.0, m;
  if (!masi)
    return 1.0 - j;
  if (in == na && in == nb)
    m = 1.0;
  else if (in == na || in == nb)
    m = 2.0 / 3.0;
  else if (in > 0)
    m = 1.0 / 3.0;
  else
    m = 0.0;
  return 1.0 - j * m;
}

/* delta(c, k) computed from scratch. */
static double delta_raw(const metric *mt, int c, int k) {
  switch (mt->level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_TEXT: return c != k;
  case RESCUE_LEVEL_INTERVAL: {
    double t = mt->x[c] - mt->x[k];
    return t * t;
  }
  case RESCUE_LEVEL_RATIO: {
    double s = mt->x[c] + mt->x[k], t;
    if (s == 0)
      return 0;
    t = (mt->x[c] - mt->x[k]) / s;
    return t * t;
  }
  case RESCUE_LEVEL_ORDINAL: {
    int a = mt->rank[c], b = mt->rank[k];
    double t;
    if (a > b) {
      int s = a;
      a = b;
      b = s;
    }
    t = mt->cum[b] - (a ? mt->cum[a - 1] : 0) - (mt->marg[c] + mt->marg[k]) / 2;
    return t * t;
  }
  case RESCUE_LEVEL_MASI: return set_distance(mt->d, 1, c, k);
  case RESCUE_LEVEL_JACCARD: return set_distance(mt->d, 0, c, k);
  }
  return 0;
}

static inline double delta(const metric *mt, int c, int k) {
  if (mt->table)
    return mt->table[(size_t)c * (size_t)mt->V + (size_t)k];
  return delta_raw(mt, c, k);
}

static void metric_free(metric *mt) {
  rescue_free(mt->rank);
  rescue_free(mt->by_rank);
  rescue_free(mt->cum);
  rescue_free(mt->table);
  memset(mt, 0, sizeof *mt);
}

typedef struct numidx {
  double x;
  int v;
} numidx;

static int by_numidx(const void *a, const void *b) {
  const numidx *p = a, *q = b;
  return p->x < q->x ? -1 : p->x > q->x ? 1 : p->v - q->v;
}

/* order[0..V) = d's value indexes by ascending number (ties by index). */
static int order_by_number(const rescue_agree_data *d, int *order) {
  int V = (int)d->values.n, i;
  numidx *t = rescue_malloc(((size_t)V + 1) * sizeof *t);
  if (!t)
    return RESCUE_ENOMEM;
  for (i = 0; i < V; i++) {
    t[i].x = d->value_num[i];
    t[i].v = i;
  }
  qsort(t, (size_t)V, sizeof *t, by_numidx);
  for (i = 0; i < V; i++)
    order[i] = t[i].v;
  rescue_free(t);
  return 0;
}

/* Set up the metric of `level` over d's values (ordinal: ranks only; see metric_marg). */
static int metric_init(metric *mt, const rescue_agree_data *d, rescue_agree_level level) {
  int V = (int)d->values.n, i;
  memset(mt, 0, sizeof *mt);
  mt->level = level;
  mt->d = d;
  mt->V = V;
  mt->x = d->value_num;
  if (level == RESCUE_LEVEL_ORDINAL) {
    mt->rank = rescue_malloc((size_t)(V ? V : 1) * sizeof *mt->rank);
    mt->by_rank = rescue_malloc((size_t)(V ? V : 1) * sizeof *mt->by_rank);
    mt->cum = rescue_malloc((size_t)(V ? V : 1) * sizeof *mt->cum);
    if (!mt->rank || !mt->by_rank || !mt->cum)
      return RESCUE_ENOMEM;
    if (order_by_number(d, mt->by_rank))
      return RESCUE_ENOMEM;
    for (i = 0; i < V; i++)
      mt->rank[mt->by_rank[i]] = i;
  }
  if (V <= DELTA_TABLE_MAX && level != RESCUE_LEVEL_NOMINAL && level != RESCUE_LEVEL_TEXT) {
    mt->table = rescue_malloc((size_t)V * (size_t)V * sizeof *mt->table + 1);
    if (!mt->table)
      return RESCUE_ENOMEM;
    if (level != RESCUE_LEVEL_ORDINAL) {
      int c, k;
      metric raw = *mt;
      raw.table = NULL;
      for (c = 0; c < V; c++)
        for (k = c; k < V; k++)
          mt->table[(size_t)c * V + k] = mt->table[(size_t)k * V + c] =
              c == k ? 0 : delta_raw(&raw, c, k);
    }
  }
  return 0;
}

/* Ordinal: rebuild the cumulative marginals (and the table) for marginals marg[V]. */
static void metric_marg(metric *mt, const double *marg) {
  int r, V = mt->V;
  double acc = 0;
  if (mt->level != RESCUE_LEVEL_ORDINAL)
    return;
  mt->marg = marg;
  for (r = 0; r < V; r++) {
    acc += marg[mt->by_rank[r]];
    mt->cum[r] = acc;
  }
  if (mt->table) {
    int c, k;
    metric raw = *mt;
    raw.table = NULL;
    for (c = 0; c < V; c++)
      for (k = c; k < V; k++)
        mt->table[(size_t)c * V + k] = mt->table[(size_t)k * V + c] =
            c == k ? 0 : delta_raw(&raw, c, k);
  }
}

/*
** sum over c, k of n_c n_k delta(c, k) for marginals marg over the values in `used`
** (those with a positive count): the expected disagreement times n(n - 1).
*/
static double expected(const metric *mt, const double *marg, const int *used, int n_used,
                       double n) {
  double s = 0;
  int i, j;
  switch (mt->level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_TEXT:
    for (i = 0; i < n_used; i++)
      s += marg[used[i]] * marg[used[i]];
    return n * n - s;
  case RESCUE_LEVEL_INTERVAL: {
    double mean = 0;
    for (i = 0; i < n_used; i++)
      mean += marg[used[i]] * mt->x[used[i]];
    mean /= n;
    for (i = 0; i < n_used; i++) {
      double t = mt->x[used[i]] - mean;
      s += marg[used[i]] * t * t;
    }
    return 2 * n * s;
  }
  case RESCUE_LEVEL_ORDINAL:
  case RESCUE_LEVEL_RATIO:
  case RESCUE_LEVEL_MASI:
  case RESCUE_LEVEL_JACCARD:
    for (i = 0; i < n_used; i++)
      for (j = i + 1; j < n_used; j++)
        s += marg[used[i]] * marg[used[j]] * delta(mt, used[i], used[j]);
    return 2 * s;
  }
  return 0;
}

/* Observed disagreement sum over pairable units: sum_u sum_{i != j} delta / (m_u - 1). */
static double observed(const rescue_agree_data *d, const metric *mt) {
  double s = 0;
  uint32_t u;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], i, j;
    double t = 0;
    if (b - a < 2)
      continue;
    for (i = a; i < b; i++)
      for (j = i + 1; j < b; j++)
        t += delta(mt, d->e_value[i], d->e_value[j]);
    s += 2 * t / (double)(b - a - 1);
  }
  return s;
}

/* The observed sum for nominal distances: disagreeing pairs, without a distance function. */
static double observed_nominal(const rescue_agree_data *d) {
  uint32_t u;
  double s = 0;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], i, j, dis = 0;
    if (b - a < 2)
      continue;
    if (b - a == 3) {
      int32_t x = d->e_value[a], y = d->e_value[a + 1], z = d->e_value[a + 2];
      dis = (x != y) + (x != z) + (y != z);
    } else {
      for (i = a; i < b; i++)
        for (j = i + 1; j < b; j++)
          dis += d->e_value[i] != d->e_value[j];
    }
    s += 2.0 * dis / (double)(b - a - 1);
  }
  return s;
}

/* Marginals of the pairable values; fills used[] (values with a count) and returns n. */
static double marginals(const rescue_agree_data *d, double *marg, int *used, int *n_used,
                        long *units, long *single, int *mixed_sign) {
  uint32_t u, i;
  double n = 0;
  int neg = 0, pos = 0, k = 0, v;
  memset(marg, 0, (size_t)d->values.n * sizeof *marg);
  *units = *single = 0;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1];
    if (b - a == 1)
      (*single)++;
    if (b - a < 2)
      continue;
    (*units)++;
    n += b - a;
    for (i = a; i < b; i++)
      marg[d->e_value[i]]++;
  }
  for (v = 0; v < (int)d->values.n; v++)
    if (marg[v] > 0) {
      used[k++] = v;
      if (d->level == RESCUE_LEVEL_RATIO) {
        neg |= d->value_num[v] < 0;
        pos |= d->value_num[v] > 0;
      }
    }
  *n_used = k;
  *mixed_sign = neg && pos;
  return n;
}

/* Status and alpha from the totals. */
static rescue_agree_status alpha_from(double n, int n_used, int mixed, double do_sum, double de_sum,
                                      double *alpha) {
  *alpha = NAN;
  if (n < 2)
    return RESCUE_AGREE_NO_DATA;
  if (mixed)
    return RESCUE_AGREE_INVALID_LEVEL;
  if (n_used < 2 || !(de_sum > 0))
    return RESCUE_AGREE_NO_VARIATION;
  *alpha = 1.0 - (n - 1) * do_sum / de_sum;
  return RESCUE_AGREE_OK;
}

/* Everything alpha needs, at `level`, in one go. */
typedef struct alpha_parts {
  double n, do_sum, de_sum;
  long units, single;
  int n_used, mixed;
  rescue_agree_status status;
  double alpha;
} alpha_parts;

static int alpha_at(const rescue_agree_data *d, rescue_agree_level level, double *marg, int *used,
                    alpha_parts *p) {
  metric mt;
  int rc;
  memset(p, 0, sizeof *p);
  p->n = marginals(d, marg, used, &p->n_used, &p->units, &p->single, &p->mixed);
  if ((rc = metric_init(&mt, d, level))) {
    metric_free(&mt);
    return rc;
  }
  metric_marg(&mt, marg);
  if (p->n >= 2 && !p->mixed && p->n_used >= 2) {
    p->do_sum = level == RESCUE_LEVEL_NOMINAL || level == RESCUE_LEVEL_TEXT ? observed_nominal(d)
                                                                            : observed(d, &mt);
    p->de_sum = expected(&mt, marg, used, p->n_used, p->n);
  }
  p->status = alpha_from(p->n, p->n_used, p->mixed, p->do_sum, p->de_sum, &p->alpha);
  metric_free(&mt);
  return 0;
}

rescue_agree_status rescue_agree_alpha(const rescue_agree_data *d, double *alpha) {
  double *marg = rescue_malloc(((size_t)d->values.n + 1) * sizeof *marg);
  int *used = rescue_malloc(((size_t)d->values.n + 1) * sizeof *used);
  alpha_parts p;
  *alpha = NAN;
  memset(&p, 0, sizeof p);
  p.alpha = NAN;
  p.status = RESCUE_AGREE_NO_DATA;
  if (marg && used && d->level == RESCUE_LEVEL_NOMINAL) {
    /* the common case, without a distance function: count disagreeing pairs */
    double s;
    memset(&p, 0, sizeof p);
    p.n = marginals(d, marg, used, &p.n_used, &p.units, &p.single, &p.mixed);
    s = observed_nominal(d);
    p.do_sum = s;
    {
      double sq = 0;
      int i;
      for (i = 0; i < p.n_used; i++)
        sq += marg[used[i]] * marg[used[i]];
      p.de_sum = p.n * p.n - sq;
    }
    p.status = alpha_from(p.n, p.n_used, p.mixed, p.do_sum, p.de_sum, &p.alpha);
  } else if (marg && used && alpha_at(d, d->level, marg, used, &p) != 0) {
    p.status = RESCUE_AGREE_NO_DATA;
    p.alpha = NAN;
  }
  rescue_free(marg);
  rescue_free(used);
  *alpha = p.alpha;
  return p.status;
}

/* ---- per-label alpha, coincidences, percent agreement, Fleiss, AC1 ---- */

/* One-vs-rest binary alpha from a label's count and its coincidences with itself. */
static double binary_alpha(double n, double count, double o11) {
  if (n < 2 || count <= 0 || count >= n)
    return NAN;
  return 1.0 - (n - 1) * (count - o11) / (count * (n - count));
}

/* Label names: for sets the elements, else the values. */
static int label_stats(const rescue_agree_data *d, double n, rescue_agree_result *r) {
  int sets = d->level == RESCUE_LEVEL_MASI || d->level == RESCUE_LEVEL_JACCARD;
  int L = sets ? (int)d->elems.n : (int)d->values.n, l;
  double *diag = rescue_calloc((size_t)L + 1, sizeof *diag);
  double *count = rescue_calloc((size_t)L + 1, sizeof *count);
  int *seen = rescue_calloc((size_t)L + 1, sizeof *seen);
  int *touched = rescue_malloc(((size_t)L + 1) * sizeof *touched);
  uint32_t u;
  int rc = RESCUE_ENOMEM;
  if (!diag || !count || !seen || !touched)
    goto end;
  if (!sets && r->n_matrix == L) {
    /* the coincidence matrix has it all: n_c is a row sum, o_cc the diagonal */
    int i, k;
    for (i = 0; i < L; i++) {
      int c = r->matrix_values[i];
      for (k = 0; k < L; k++)
        count[c] += r->matrix[(size_t)i * L + k];
      diag[c] = r->matrix[(size_t)i * L + i];
    }
  } else
    for (u = 0; u < d->n_units; u++) {
      uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], i;
      int nt = 0, t;
      double w;
      if (b - a < 2)
        continue;
      w = 1.0 / (double)(b - a - 1);
      for (i = a; i < b; i++) {
        int v = d->e_value[i];
        if (sets) {
          int32_t k;
          for (k = d->set_off[v]; k < d->set_off[v + 1]; k++) {
            int e = d->set_el[k];
            if (!seen[e]++)
              touched[nt++] = e;
          }
        } else if (!seen[v]++) {
          touched[nt++] = v;
        }
      }
      for (t = 0; t < nt; t++) {
        int e = touched[t];
        double k = seen[e];
        count[e] += k;
        diag[e] += k * (k - 1) * w;
        seen[e] = 0;
      }
    }
  r->labels = rescue_calloc((size_t)L + 1, sizeof *r->labels);
  if (!r->labels)
    goto end;
  for (l = 0; l < L; l++) {
    rescue_agree_label_stat *s = &r->labels[r->n_labels++];
    s->value = l;
    s->name = sets ? agree_name(d, &d->elems, (uint32_t)l) : agree_name(d, &d->values, (uint32_t)l);
    s->count = (long)(count[l] + 0.5);
    s->alpha = binary_alpha(n, count[l], diag[l]);
  }
  rc = 0;
end:
  rescue_free(diag);
  rescue_free(count);
  rescue_free(seen);
  rescue_free(touched);
  return rc;
}

/* The coincidence matrix over all values (ordinal: in rank order), when small enough. */
static int coincidences(const rescue_agree_data *d, rescue_agree_result *r) {
  int V = (int)d->values.n, i, *pos;
  uint32_t u;
  if (V > MATRIX_MAX || V == 0)
    return 0;
  r->matrix = rescue_calloc((size_t)V * (size_t)V, sizeof *r->matrix);
  r->matrix_values = rescue_malloc((size_t)V * sizeof *r->matrix_values);
  pos = rescue_malloc((size_t)V * sizeof *pos);
  if (!r->matrix || !r->matrix_values || !pos) {
    rescue_free(pos);
    return RESCUE_ENOMEM;
  }
  for (i = 0; i < V; i++)
    r->matrix_values[i] = i;
  if ((d->level == RESCUE_LEVEL_ORDINAL || d->level == RESCUE_LEVEL_INTERVAL ||
       d->level == RESCUE_LEVEL_RATIO) &&
      order_by_number(d, r->matrix_values)) {
    rescue_free(pos);
    return RESCUE_ENOMEM;
  }
  for (i = 0; i < V; i++)
    pos[r->matrix_values[i]] = i;
  /*
  ** When every pairable unit has 2, 3, 5, 9, ... values (each coder coding each unit, with
  ** 2 or 3 coders, is the usual table), each weight 1 / (m - 1) is 2^-k, so every partial
  ** sum of a cell is a multiple of 2^-K (K the largest k) far below 2^53 of them, hence
  ** exact: counting in integers of 2^-K gives the very same doubles, without a chain of
  ** floating-point additions to memory.
  */
  {
    int K = 0, exact = 1;
    for (u = 0; u < d->n_units && exact; u++) {
      uint32_t q = d->unit_off[u + 1] - d->unit_off[u] - 1;
      if (d->unit_off[u + 1] - d->unit_off[u] < 2)
        continue;
      if ((q & (q - 1)) || q > (1u << 20))
        exact = 0;
      else if (__builtin_ctz(q) > K)
        K = __builtin_ctz(q);
    }
    if (exact) {
      uint64_t *cnt = rescue_calloc((size_t)V * (size_t)V, sizeof *cnt);
      if (!cnt) {
        rescue_free(pos);
        return RESCUE_ENOMEM;
      }
      for (u = 0; u < d->n_units; u++) {
        uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], x, y;
        uint64_t inc;
        if (b - a < 2)
          continue;
        inc = (uint64_t)1 << (K - __builtin_ctz(b - a - 1));
        for (x = a; x < b; x++) {
          size_t row = (size_t)pos[d->e_value[x]] * V;
          for (y = a; y < b; y++)
            if (x != y)
              cnt[row + pos[d->e_value[y]]] += inc;
        }
      }
      for (i = 0; i < V * V; i++)
        r->matrix[i] = ldexp((double)cnt[i], -K);
      rescue_free(cnt);
    } else {
      for (u = 0; u < d->n_units; u++) {
        uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], x, y;
        double w;
        if (b - a < 2)
          continue;
        w = 1.0 / (double)(b - a - 1);
        for (x = a; x < b; x++)
          for (y = a; y < b; y++)
            if (x != y)
              r->matrix[(size_t)pos[d->e_value[x]] * V + pos[d->e_value[y]]] += w;
      }
    }
  }
  rescue_free(pos);
  r->n_matrix = V;
  return 0;
}

/*
** Percent agreement, Fleiss' kappa and Gwet's AC1 over the pairable units (two values or
** more; annotate/AGREEMENT.md "Fleiss' kappa and Gwet's AC1 with missing values"). p_a is
** the mean share of agreeing pairs per unit; the chance terms use pi_k, the mean over those
** units of the share of the unit's values that are k. On complete data this is Fleiss's
** (1971) kappa and Gwet's AC1 as usual (pi_k is then the share of all values). The units
** every coder coded are counted in complete_units.
*/
static int chance_corrected(const rescue_agree_data *d, rescue_agree_result *r) {
  int C = (int)d->coders.n, V = (int)d->values.n, v;
  double *p = rescue_calloc((size_t)V + 1, sizeof *p), pa_all = 0;
  long n_pair = 0, n_full = 0;
  uint32_t u;
  if (!p)
    return RESCUE_ENOMEM;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], i, j, agree = 0, m = b - a;
    if (m < 2)
      continue;
    for (i = a; i < b; i++)
      for (j = i + 1; j < b; j++)
        agree += d->e_value[i] == d->e_value[j];
    pa_all += 2.0 * agree / ((double)m * (m - 1));
    n_pair++;
    n_full += (int)m == C;
    for (i = a; i < b; i++)
      p[d->e_value[i]] += 1.0 / (double)m;
  }
  r->percent_agreement = n_pair ? pa_all / (double)n_pair : NAN;
  r->complete_units = n_full;
  r->fleiss_kappa = r->gwet_ac1 = NAN;
  if (n_pair > 0 && C >= 2) {
    double pbar = pa_all / (double)n_pair, pe = 0, pg = 0;
    for (v = 0; v < V; v++) {
      p[v] /= (double)n_pair;
      pe += p[v] * p[v];
      pg += p[v] * (1 - p[v]);
    }
    if (pe < 1)
      r->fleiss_kappa = (pbar - pe) / (1 - pe);
    if (V >= 2) {
      pg /= (double)(V - 1);
      if (pg < 1)
        r->gwet_ac1 = (pbar - pg) / (1 - pg);
    }
  }
  rescue_free(p);
  return 0;
}

/* ---- Cohen's kappa per coder pair ---- */

typedef struct wsum_item {
  double x, ra, rb;
} wsum_item;

static int by_x(const void *a, const void *b) {
  double x = ((const wsum_item *)a)->x, y = ((const wsum_item *)b)->x;
  return x < y ? -1 : x > y;
}

/*
** sum_i sum_j ra_i rb_j |x_i - x_j|^power (power 1 or 2) over n items, in O(n log n):
** sorted by x, with running sums of rb and rb * x on either side.
*/
static double weighted_expected(wsum_item *it, int n, int power) {
  double s = 0, tot_c = 0, tot_cx = 0, lo_c = 0, lo_cx = 0;
  int i;
  if (power == 2) {
    double sa = 0, sax = 0, saxx = 0, sb = 0, sbx = 0, sbxx = 0;
    for (i = 0; i < n; i++) {
      sa += it[i].ra, sax += it[i].ra * it[i].x, saxx += it[i].ra * it[i].x * it[i].x;
      sb += it[i].rb, sbx += it[i].rb * it[i].x, sbxx += it[i].rb * it[i].x * it[i].x;
    }
    return saxx * sb + sbxx * sa - 2 * sax * sbx;
  }
  qsort(it, (size_t)n, sizeof *it, by_x);
  for (i = 0; i < n; i++)
    tot_c += it[i].rb, tot_cx += it[i].rb * it[i].x;
  for (i = 0; i < n; i++) {
    /* items at the same x contribute 0 either way */
    double hi_c = tot_c - lo_c - it[i].rb, hi_cx = tot_cx - lo_cx - it[i].rb * it[i].x;
    s += it[i].ra * ((it[i].x * lo_c - lo_cx) + (hi_cx - it[i].x * hi_c));
    lo_c += it[i].rb;
    lo_cx += it[i].rb * it[i].x;
  }
  return s;
}

#define AGREE_MAX_PAIR_CODERS 4096

static int pair_kappas(const rescue_agree_data *d, rescue_agree_result *r) {
  int C = (int)d->coders.n, V = (int)d->values.n, P, a, b, k, v;
  int weighted = d->level == RESCUE_LEVEL_ORDINAL || d->level == RESCUE_LEVEL_INTERVAL ||
                 d->level == RESCUE_LEVEL_RATIO;
  /* counts as integers: cheaper to add to, and the same numbers once made doubles */
  uint32_t *ra = NULL, *rb = NULL;
  uint64_t *agree = NULL;
  double *wl = NULL, *wq = NULL, *xw = NULL;
  long *both = NULL, *coded = NULL;
  int *pidx = NULL, *order = NULL;
  wsum_item *items = NULL;
  uint32_t u;
  int rc = RESCUE_ENOMEM;
  if (C < 2)
    return 0;
  /*
  ** Every pair of coders gets a table over the values: past 4,096 coders, or 64 Mi cells,
  ** that is more than memory should hold (5,000 coders took 1.85 GB), so the pairwise
  ** kappas are left out, and the result says how many.
  */
  if (C > AGREE_MAX_PAIR_CODERS ||
      (size_t)C * (size_t)(C - 1) / 2 * (size_t)(V ? V : 1) > (size_t)64 << 20) {
    r->pairs_left_out = (long)((size_t)C * (size_t)(C - 1) / 2);
    return 0;
  }
  P = C * (C - 1) / 2;
  ra = rescue_calloc((size_t)P * V + 1, sizeof *ra);
  rb = rescue_calloc((size_t)P * V + 1, sizeof *rb);
  agree = rescue_calloc((size_t)P, sizeof *agree);
  wl = rescue_calloc((size_t)P, sizeof *wl);
  wq = rescue_calloc((size_t)P, sizeof *wq);
  both = rescue_calloc((size_t)P, sizeof *both);
  coded = rescue_calloc((size_t)C, sizeof *coded);
  pidx = rescue_malloc((size_t)C * C * sizeof *pidx);
  xw = rescue_malloc(((size_t)V + 1) * sizeof *xw);
  items = rescue_malloc(((size_t)V + 1) * sizeof *items);
  r->pairs = rescue_calloc((size_t)P, sizeof *r->pairs);
  if (!ra || !rb || !agree || !wl || !wq || !both || !coded || !pidx || !xw || !items || !r->pairs)
    goto end;
  /* weights use numbers (interval, ratio) or ranks (ordinal) */
  if (weighted) {
    if (d->level == RESCUE_LEVEL_ORDINAL) {
      order = rescue_malloc(((size_t)V + 1) * sizeof *order);
      if (!order)
        goto end;
      if (order_by_number(d, order))
        goto end;
      for (v = 0; v < V; v++)
        xw[order[v]] = v;
    } else {
      for (v = 0; v < V; v++)
        xw[v] = d->value_num[v];
    }
  }
  for (a = k = 0; a < C; a++)
    for (b = a + 1; b < C; b++) {
      pidx[a * C + b] = k;
      r->pairs[k].a = a;
      r->pairs[k].b = b;
      k++;
    }
  for (u = 0; u < d->n_units; u++) {
    uint32_t s = d->unit_off[u], e = d->unit_off[u + 1], i, j;
    for (i = s; i < e; i++)
      coded[d->e_coder[i]]++;
    for (i = s; i < e; i++)
      for (j = i + 1; j < e; j++) {
        int ca = d->e_coder[i], cb = d->e_coder[j], va = d->e_value[i], vb = d->e_value[j], p;
        if (ca > cb) {
          int t = ca;
          ca = cb, cb = t;
          t = va;
          va = vb, vb = t;
        }
        p = pidx[ca * C + cb];
        both[p]++;
        agree[p] += va == vb;
        ra[(size_t)p * V + va]++;
        rb[(size_t)p * V + vb]++;
        if (weighted) {
          double t = xw[va] - xw[vb];
          wl[p] += fabs(t);
          wq[p] += t * t;
        }
      }
  }
  for (k = 0; k < P; k++) {
    rescue_agree_pair *pr = &r->pairs[k];
    double N = (double)both[k], pe = 0;
    const uint32_t *A = ra + (size_t)k * V, *B = rb + (size_t)k * V;
    pr->units = both[k];
    pr->skipped = coded[pr->a] + coded[pr->b] - 2 * both[k];
    pr->kappa = pr->kappa_linear = pr->kappa_quadratic = NAN;
    if (!both[k])
      continue;
    for (v = 0; v < V; v++)
      pe += (double)A[v] * (double)B[v];
    pe /= N * N;
    if (pe < 1)
      pr->kappa = ((double)agree[k] / N - pe) / (1 - pe);
    if (weighted) {
      int n = 0;
      double el, eq;
      for (v = 0; v < V; v++)
        if (A[v] > 0 || B[v] > 0) {
          items[n].x = xw[v];
          items[n].ra = (double)A[v];
          items[n].rb = (double)B[v];
          n++;
        }
      eq = weighted_expected(items, n, 2);
      el = weighted_expected(items, n, 1);
      if (el > 0)
        pr->kappa_linear = 1 - wl[k] * N / el;
      if (eq > 0)
        pr->kappa_quadratic = 1 - wq[k] * N / eq;
    }
  }
  r->n_pairs = P;
  rc = 0;
end:
  rescue_free(ra);
  rescue_free(rb);
  rescue_free(agree);
  rescue_free(wl);
  rescue_free(wq);
  rescue_free(both);
  rescue_free(coded);
  rescue_free(pidx);
  rescue_free(xw);
  rescue_free(items);
  rescue_free(order);
  return rc;
}

/* ---- free text: share identical and token-overlap F1 ---- */

static int by_u64(const void *a, const void *b) {
  uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
  return (x > y) - (x < y);
}

/* Sorted 64-bit hashes of the lower-cased alphanumeric tokens of s (bytes >= 0x80 count). */
static int tokens(const char *s, uint64_t **out, int *n) {
  int cap = 0, k = 0;
  uint64_t *t = NULL;
  const unsigned char *p = (const unsigned char *)s;
  while (*p) {
    uint64_t h = RESCUE_FNV1A64_BASIS;
    int len = 0;
    while (*p && !((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') ||
                   (*p >= 'A' && *p <= 'Z') || *p >= 0x80))
      p++;
    while ((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
           *p >= 0x80) {
      unsigned char c = *p >= 'A' && *p <= 'Z' ? (unsigned char)(*p + 32) : *p;
      h = rescue_fnv1a64_step(h, c);
      p++;
      len++;
    }
    if (!len)
      continue;
    if (RESCUE_ALLOC_GROW(t, k + 1, cap)) {
      rescue_free(t);
      return RESCUE_ENOMEM;
    }
    t[k++] = h;
  }
  if (k > 1) /* (a text may be long: no insertion sort) */
    qsort(t, (size_t)k, sizeof *t, by_u64);
  *out = t;
  *n = k;
  return 0;
}

static double token_f1(const uint64_t *a, int na, const uint64_t *b, int nb) {
  int i = 0, j = 0, common = 0;
  if (!na && !nb)
    return 1.0;
  while (i < na && j < nb) {
    if (a[i] < b[j])
      i++;
    else if (a[i] > b[j])
      j++;
    else
      common++, i++, j++;
  }
  return 2.0 * common / (na + nb);
}

static int text_stats(const rescue_agree_data *d, rescue_agree_result *r) {
  int V = (int)d->values.n, v, rc = RESCUE_ENOMEM;
  uint64_t **tok = rescue_calloc((size_t)V + 1, sizeof *tok);
  int *ntok = rescue_calloc((size_t)V + 1, sizeof *ntok);
  double same = 0, f1 = 0;
  long pairs = 0;
  uint32_t u;
  if (!tok || !ntok)
    goto end;
  for (v = 0; v < V; v++)
    if (tokens(agree_name(d, &d->values, (uint32_t)v), &tok[v], &ntok[v]))
      goto end;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1], i, j;
    for (i = a; i < b; i++)
      for (j = i + 1; j < b; j++) {
        int x = d->e_value[i], y = d->e_value[j];
        same += x == y;
        f1 += x == y ? 1.0 : token_f1(tok[x], ntok[x], tok[y], ntok[y]);
        pairs++;
      }
  }
  r->text_pairs = pairs;
  r->share_identical = pairs ? same / (double)pairs : NAN;
  r->token_f1 = pairs ? f1 / (double)pairs : NAN;
  rc = 0;
end:
  for (v = 0; tok && v < V; v++)
    rescue_free(tok[v]);
  rescue_free(tok);
  rescue_free(ntok);
  return rc;
}

/* ---- bootstrap and groups: alpha over weighted sums of clusters ---- */

/*
** Per resampling cluster b (a sample, or one pairable unit): its pairable units and values,
** its observed disagreement sum (fixed-distance levels) and its value counts; at the
** ordinal level its unit pairs (value, value, weight), since distances move with the
** marginals.
*/
typedef struct boot {
  int B;
  double *do_b, *n_b;
  long *units_b;
  int32_t *stratum_b; /* by stratum: the cluster's stratum, else -1 */
  uint32_t *m_off;    /* B + 1 */
  int32_t *m_val;
  double *m_cnt;
  uint32_t *p_off; /* ordinal: B + 1 */
  int32_t *p_c, *p_k;
  double *p_w;
} boot;

static void boot_free(boot *bs) {
  rescue_free(bs->do_b);
  rescue_free(bs->n_b);
  rescue_free(bs->units_b);
  rescue_free(bs->stratum_b);
  rescue_free(bs->m_off);
  rescue_free(bs->m_val);
  rescue_free(bs->m_cnt);
  rescue_free(bs->p_off);
  rescue_free(bs->p_c);
  rescue_free(bs->p_k);
  rescue_free(bs->p_w);
  memset(bs, 0, sizeof *bs);
}

/*
** Build per-cluster parts. by_unit: each pairable unit is a cluster; else units go by
** their cluster (a unit without one is its own). mt: the metric (fixed distances; the
** ordinal one is only used for ranks here).
*/
static int boot_build(const rescue_agree_data *d, const metric *mt, int by_unit, boot *bs) {
  uint32_t u, i, j, n_pair_units = 0, *order = NULL, *start = NULL, n_ent = 0, n_pairs = 0;
  int32_t *cl = NULL;
  double *cnt = NULL;
  int *touched = NULL, V = (int)d->values.n, B = 0, b, ordinal = mt->level == RESCUE_LEVEL_ORDINAL;
  int rc = RESCUE_ENOMEM;
  memset(bs, 0, sizeof *bs);
  cl = rescue_malloc(((size_t)d->n_units + 1) * sizeof *cl);
  if (!cl)
    goto end;
  /* number the clusters that have a pairable unit, densely */
  {
    int32_t *map = NULL;
    uint32_t nc = d->clusters.n;
    if (!by_unit && nc) {
      map = rescue_malloc((size_t)nc * sizeof *map);
      if (!map)
        goto end;
      for (i = 0; i < nc; i++)
        map[i] = -1;
    }
    for (u = 0; u < d->n_units; u++) {
      uint32_t m = d->unit_off[u + 1] - d->unit_off[u];
      cl[u] = -1;
      if (m < 2)
        continue;
      n_pair_units++;
      n_ent += m;
      n_pairs += m * (m - 1) / 2;
      if (by_unit || d->unit_cluster[u] < 0 || !map)
        cl[u] = B++;
      else {
        if (map[d->unit_cluster[u]] < 0)
          map[d->unit_cluster[u]] = B++;
        cl[u] = map[d->unit_cluster[u]];
      }
    }
    bs->stratum_b = rescue_malloc(((size_t)B + 1) * sizeof *bs->stratum_b);
    if (!bs->stratum_b) {
      rescue_free(map);
      goto end;
    }
    for (b = 0; b < B; b++)
      bs->stratum_b[b] = -1;
    for (u = 0; u < d->n_units; u++)
      if (cl[u] >= 0 && d->unit_cluster[u] >= 0 && d->cluster_stratum)
        bs->stratum_b[cl[u]] = d->cluster_stratum[d->unit_cluster[u]];
    rescue_free(map);
  }
  bs->B = B;
  /* units grouped by cluster (counting sort) */
  start = rescue_calloc((size_t)B + 2, sizeof *start);
  order = rescue_malloc(((size_t)n_pair_units + 1) * sizeof *order);
  bs->do_b = rescue_calloc((size_t)B + 1, sizeof *bs->do_b);
  bs->n_b = rescue_calloc((size_t)B + 1, sizeof *bs->n_b);
  bs->units_b = rescue_calloc((size_t)B + 1, sizeof *bs->units_b);
  bs->m_off = rescue_malloc(((size_t)B + 1) * sizeof *bs->m_off);
  bs->m_val = rescue_malloc(((size_t)n_ent + 1) * sizeof *bs->m_val);
  bs->m_cnt = rescue_malloc(((size_t)n_ent + 1) * sizeof *bs->m_cnt);
  cnt = rescue_calloc((size_t)V + 1, sizeof *cnt);
  touched = rescue_malloc(((size_t)V + 1) * sizeof *touched);
  if (!start || !order || !bs->do_b || !bs->n_b || !bs->units_b || !bs->m_off || !bs->m_val ||
      !bs->m_cnt || !cnt || !touched)
    goto end;
  if (ordinal) {
    bs->p_off = rescue_malloc(((size_t)B + 1) * sizeof *bs->p_off);
    bs->p_c = rescue_malloc(((size_t)n_pairs + 1) * sizeof *bs->p_c);
    bs->p_k = rescue_malloc(((size_t)n_pairs + 1) * sizeof *bs->p_k);
    bs->p_w = rescue_malloc(((size_t)n_pairs + 1) * sizeof *bs->p_w);
    if (!bs->p_off || !bs->p_c || !bs->p_k || !bs->p_w)
      goto end;
  }
  for (u = 0; u < d->n_units; u++)
    if (cl[u] >= 0)
      start[cl[u] + 2]++;
  for (b = 0; b < B; b++)
    start[b + 2] += start[b + 1];
  for (u = 0; u < d->n_units; u++)
    if (cl[u] >= 0)
      order[start[cl[u] + 1]++] = u;
  {
    uint32_t mo = 0, po = 0;
    for (b = 0; b < B; b++) {
      uint32_t q;
      int nt = 0, t;
      bs->m_off[b] = mo;
      if (ordinal)
        bs->p_off[b] = po;
      for (q = start[b]; q < start[b + 1]; q++) {
        uint32_t a, e, m;
        double s = 0, w;
        u = order[q];
        a = d->unit_off[u];
        e = d->unit_off[u + 1];
        m = e - a;
        w = 2.0 / (double)(m - 1);
        bs->units_b[b]++;
        bs->n_b[b] += m;
        for (i = a; i < e; i++) {
          int v = d->e_value[i];
          if (cnt[v] == 0)
            touched[nt++] = v;
          cnt[v]++;
          for (j = i + 1; j < e; j++) {
            if (ordinal) {
              bs->p_c[po] = v;
              bs->p_k[po] = d->e_value[j];
              bs->p_w[po++] = w;
            } else {
              s += delta(mt, v, d->e_value[j]);
            }
          }
        }
        bs->do_b[b] += s * w;
      }
      for (t = 0; t < nt; t++) {
        bs->m_val[mo] = touched[t];
        bs->m_cnt[mo++] = cnt[touched[t]];
        cnt[touched[t]] = 0;
      }
    }
    bs->m_off[B] = mo;
    if (ordinal)
      bs->p_off[B] = po;
  }
  rc = 0;
end:
  rescue_free(cl);
  rescue_free(start);
  rescue_free(order);
  rescue_free(cnt);
  rescue_free(touched);
  if (rc)
    boot_free(bs);
  return rc;
}

/* Scratch for alpha over a weighted sum of clusters. */
typedef struct boot_acc {
  double *marg; /* V, zero between uses */
  int *used;    /* values touched */
  int *is_used;
} boot_acc;

/*
** Alpha of the clusters weighted by w[0..B) (counts of draws). mt is the metric (ordinal:
** its cumulative marginals are rebuilt here).
*/
static rescue_agree_status boot_alpha(const boot *bs, metric *mt, const int *w, boot_acc *acc,
                                      double *alpha, double *n_out, long *units_out) {
  double n = 0, dsum = 0, de;
  long units = 0;
  int b, nu = 0, i, mixed = 0, neg = 0, pos = 0, live = 0;
  for (b = 0; b < bs->B; b++) {
    uint32_t k;
    if (!w[b])
      continue;
    n += w[b] * bs->n_b[b];
    units += w[b] * bs->units_b[b];
    dsum += w[b] * bs->do_b[b];
    for (k = bs->m_off[b]; k < bs->m_off[b + 1]; k++) {
      int v = bs->m_val[k];
      if (!acc->is_used[v]) {
        acc->is_used[v] = 1;
        acc->used[nu++] = v;
      }
      acc->marg[v] += w[b] * bs->m_cnt[k];
    }
  }
  if (mt->level == RESCUE_LEVEL_RATIO)
    for (i = 0; i < nu; i++) {
      neg |= mt->x[acc->used[i]] < 0;
      pos |= mt->x[acc->used[i]] > 0;
    }
  mixed = neg && pos;
  for (i = 0; i < nu; i++)
    live += acc->marg[acc->used[i]] > 0;
  de = 0;
  if (n >= 2 && !mixed && live >= 2) {
    if (mt->level == RESCUE_LEVEL_ORDINAL) {
      metric_marg(mt, acc->marg);
      dsum = 0;
      for (b = 0; b < bs->B; b++) {
        uint32_t k;
        double s = 0;
        if (!w[b])
          continue;
        for (k = bs->p_off[b]; k < bs->p_off[b + 1]; k++)
          s += bs->p_w[k] * delta(mt, bs->p_c[k], bs->p_k[k]);
        dsum += w[b] * s;
      }
    }
    de = expected(mt, acc->marg, acc->used, nu, n);
  }
  for (i = 0; i < nu; i++) {
    acc->marg[acc->used[i]] = 0;
    acc->is_used[acc->used[i]] = 0;
  }
  if (n_out)
    *n_out = n;
  if (units_out)
    *units_out = units;
  return alpha_from(n, live, mixed, dsum, de, alpha);
}

/*
** xoshiro256** seeded by SplitMix64 (prim_int.h): the bootstrap's generator, the same on
** every machine (xoshiro is kept for the bootstrap's millions of draws).
*/
typedef struct rng {
  uint64_t s[4];
} rng;

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

static void rng_seed(rng *g, uint64_t seed) {
  int i;
  for (i = 0; i < 4; i++)
    g->s[i] = rescue_splitmix64(&seed);
}

static uint64_t rng_next(rng *g) {
  uint64_t r = rotl(g->s[1] * 5, 7) * 9, t = g->s[1] << 17;
  g->s[2] ^= g->s[0];
  g->s[3] ^= g->s[1];
  g->s[1] ^= g->s[2];
  g->s[0] ^= g->s[3];
  g->s[2] ^= t;
  g->s[3] = rotl(g->s[3], 45);
  return r;
}

/* Uniform in [0, n), without modulo bias. */
static uint32_t rng_below(rng *g, uint32_t n) {
  uint64_t lim = UINT64_MAX - UINT64_MAX % n, r;
  do
    r = rng_next(g);
  while (r >= lim);
  return (uint32_t)(r % n);
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* Quantile q of sorted a[0..n) with linear interpolation (numpy's default). */
static double quantile(const double *a, int n, double q) {
  double h = (n - 1) * q;
  int lo = (int)floor(h);
  if (lo >= n - 1)
    return a[n - 1];
  return a[lo] + (h - lo) * (a[lo + 1] - a[lo]);
}

static int acc_init(boot_acc *acc, int V) {
  acc->marg = rescue_calloc((size_t)V + 1, sizeof *acc->marg);
  acc->used = rescue_malloc(((size_t)V + 1) * sizeof *acc->used);
  acc->is_used = rescue_calloc((size_t)V + 1, sizeof *acc->is_used);
  return acc->marg && acc->used && acc->is_used ? 0 : RESCUE_ENOMEM;
}

static void acc_free(boot_acc *acc) {
  rescue_free(acc->marg);
  rescue_free(acc->used);
  rescue_free(acc->is_used);
}

static int bootstrap(const rescue_agree_data *d, const rescue_agree_opts *o,
                     rescue_agree_result *r) {
  metric mt;
  boot bs;
  boot_acc acc = {0};
  rng g;
  int *w = NULL, rep, R = o->ci_replicates, k = 0, rc, by_unit = o->ci_unit || !d->clusters.n;
  double *alphas = NULL;
  memset(&bs, 0, sizeof bs);
  if ((rc = metric_init(&mt, d, d->level)))
    goto end;
  rc = RESCUE_ENOMEM;
  if (boot_build(d, &mt, by_unit, &bs) || acc_init(&acc, (int)d->values.n))
    goto end;
  w = rescue_calloc((size_t)bs.B + 1, sizeof *w);
  alphas = rescue_malloc(((size_t)R + 1) * sizeof *alphas);
  if (!w || !alphas)
    goto end;
  rng_seed(&g, o->seed);
  for (rep = 0; rep < R && bs.B > 0; rep++) {
    double a;
    int i;
    memset(w, 0, (size_t)bs.B * sizeof *w);
    for (i = 0; i < bs.B; i++)
      w[rng_below(&g, (uint32_t)bs.B)]++;
    if (boot_alpha(&bs, &mt, w, &acc, &a, NULL, NULL) == RESCUE_AGREE_OK)
      alphas[k++] = a;
  }
  qsort(alphas, (size_t)k, sizeof *alphas, cmp_double);
  r->has_ci = 1;
  r->ci_level = o->ci_level > 0 && o->ci_level < 1 ? o->ci_level : 0.95;
  r->ci_replicates = R;
  r->ci_defined = k;
  r->ci_seed = o->seed;
  r->ci_scheme = by_unit ? "unit" : "sample";
  r->ci_low = k ? quantile(alphas, k, (1 - r->ci_level) / 2) : NAN;
  r->ci_high = k ? quantile(alphas, k, 1 - (1 - r->ci_level) / 2) : NAN;
  rc = 0;
end:
  metric_free(&mt);
  boot_free(&bs);
  acc_free(&acc);
  rescue_free(w);
  rescue_free(alphas);
  return rc;
}

/* Alpha per stratum or per cluster. */
static int groups(const rescue_agree_data *d, rescue_agree_by by, rescue_agree_result *r) {
  metric mt;
  boot bs;
  boot_acc acc = {0};
  int *w = NULL, G, g, b, rc;
  memset(&bs, 0, sizeof bs);
  G = by == RESCUE_BY_STRATUM ? (int)d->strata.n : (int)d->clusters.n;
  if ((rc = metric_init(&mt, d, d->level)))
    goto end;
  rc = RESCUE_ENOMEM;
  if (boot_build(d, &mt, 0, &bs) || acc_init(&acc, (int)d->values.n))
    goto end;
  w = rescue_calloc((size_t)bs.B + 1, sizeof *w);
  r->groups = rescue_calloc((size_t)G + 1, sizeof *r->groups);
  if (!w || !r->groups)
    goto end;
  /* which resampling cluster is which data cluster: boot_build numbers them in unit order */
  {
    int32_t *cl_of_b = rescue_malloc(((size_t)bs.B + 1) * sizeof *cl_of_b);
    int32_t *seen = rescue_malloc(((size_t)d->clusters.n + 1) * sizeof *seen);
    uint32_t u;
    int nb = 0;
    if (!cl_of_b || !seen) {
      rescue_free(cl_of_b);
      rescue_free(seen);
      goto end;
    }
    for (g = 0; g < (int)d->clusters.n; g++)
      seen[g] = -1;
    for (u = 0; u < d->n_units; u++) {
      int c = d->unit_cluster[u];
      if (d->unit_off[u + 1] - d->unit_off[u] < 2)
        continue;
      if (c < 0) {
        cl_of_b[nb++] = -1;
      } else if (seen[c] < 0) {
        seen[c] = nb;
        cl_of_b[nb++] = c;
      }
    }
    for (g = 0; g < G; g++) {
      rescue_agree_group_stat *gs = &r->groups[r->n_groups++];
      double n;
      gs->name = by == RESCUE_BY_STRATUM ? agree_name(d, &d->strata, (uint32_t)g)
                                         : agree_name(d, &d->clusters, (uint32_t)g);
      for (b = 0; b < bs.B; b++) {
        int c = cl_of_b[b];
        w[b] = c >= 0 && (by == RESCUE_BY_STRATUM ? d->cluster_stratum[c] == g : c == g);
      }
      gs->status = boot_alpha(&bs, &mt, w, &acc, &gs->alpha, &n, &gs->units);
      gs->pairable_values = (long)n;
    }
    rescue_free(cl_of_b);
    rescue_free(seen);
  }
  rc = 0;
end:
  metric_free(&mt);
  boot_free(&bs);
  acc_free(&acc);
  rescue_free(w);
  return rc;
}

/* ---- everything ---- */

int rescue_agree_compute(const rescue_agree_data *d, const rescue_agree_opts *o,
                         rescue_agree_result *r) {
  static const rescue_agree_opts none = {.by = RESCUE_BY_NONE};
  double *marg = NULL;
  int *used = NULL, rc = RESCUE_ENOMEM;
  alpha_parts p;
  if (!o)
    o = &none;
  memset(r, 0, sizeof *r);
  r->level = d->level;
  r->alpha = r->alpha_other = r->d_o = r->d_e = NAN;
  r->fleiss_kappa = r->gwet_ac1 = r->percent_agreement = NAN;
  r->share_identical = r->token_f1 = NAN;
  marg = rescue_malloc(((size_t)d->values.n + 1) * sizeof *marg);
  used = rescue_malloc(((size_t)d->values.n + 1) * sizeof *used);
  if (!marg || !used)
    goto end;
  if (d->level == RESCUE_LEVEL_TEXT) {
    p.n = marginals(d, marg, used, &p.n_used, &r->units, &r->units_single, &p.mixed);
    r->pairable_values = (long)p.n;
    if ((rc = text_stats(d, r)) || (rc = chance_corrected(d, r)))
      goto end;
    r->fleiss_kappa = r->gwet_ac1 = NAN;
    r->status = r->text_pairs ? RESCUE_AGREE_OK : RESCUE_AGREE_NO_DATA;
    rc = 0;
    goto end;
  }
  if ((rc = alpha_at(d, d->level, marg, used, &p)))
    goto end;
  r->status = p.status;
  r->alpha = p.alpha;
  r->units = p.units;
  r->units_single = p.single;
  r->pairable_values = (long)p.n;
  if (p.status == RESCUE_AGREE_OK || p.status == RESCUE_AGREE_NO_VARIATION) {
    r->d_o = p.n > 0 ? p.do_sum / p.n : NAN;
    r->d_e = p.n > 1 ? p.de_sum / (p.n * (p.n - 1)) : NAN;
  }
  if (d->level == RESCUE_LEVEL_MASI || d->level == RESCUE_LEVEL_JACCARD) {
    alpha_parts q;
    if ((rc = alpha_at(d, d->level == RESCUE_LEVEL_MASI ? RESCUE_LEVEL_JACCARD : RESCUE_LEVEL_MASI,
                       marg, used, &q)))
      goto end;
    r->alpha_other = q.alpha;
  }
  if ((rc = chance_corrected(d, r)) || (rc = pair_kappas(d, r)))
    goto end;
  if ((rc = coincidences(d, r)))
    goto end;
  if (d->level != RESCUE_LEVEL_INTERVAL && d->level != RESCUE_LEVEL_RATIO) {
    if ((rc = label_stats(d, p.n, r)))
      goto end;
  }
  if (o->ci_replicates > 0 && r->status == RESCUE_AGREE_OK && (rc = bootstrap(d, o, r)))
    goto end;
  if (o->by != RESCUE_BY_NONE && d->clusters.n && (rc = groups(d, o->by, r)))
    goto end;
  rc = 0;
end:
  rescue_free(marg);
  rescue_free(used);
  return rc;
}

void rescue_agree_result_clear(rescue_agree_result *r) {
  if (!r)
    return;
  rescue_free(r->pairs);
  rescue_free(r->labels);
  rescue_free(r->matrix);
  rescue_free(r->matrix_values);
  rescue_free(r->groups);
  memset(r, 0, sizeof *r);
}
