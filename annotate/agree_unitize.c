/*
** agree_unitize.c: segmentation agreement, Krippendorff's unitizing alpha (alpha-u): how far
** coders who cut one continuum into units of categories agree on where the units are. The
** engine and its reports; the TSV front end is annotate/agree_unitize_tsv.c.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_agree.h"
#include "rescue_alloc.h"
#include "strmap_int.h"

/* One unit as added: coder and category indexes, [b, e) in grid steps. */
typedef struct unit_row {
  int32_t coder, category;
  int64_t b, e;
} unit_row;

struct rescue_unitize {
  int64_t begin, length;
  double step;
  rescue_strmap coders;     /* coder names, copied */
  rescue_strmap categories; /* category names, copied */
  unit_row *rows;
  size_t n, cap;
};

/* ---- the data set ---- */

int rescue_unitize_new(int64_t begin, int64_t length, double step, rescue_unitize **out) {
  rescue_unitize *u;
  int64_t end;
  *out = NULL;
  if (length < 1 || length > RESCUE_UNITIZE_MAX_LENGTH ||
      __builtin_add_overflow(begin, length, &end) || !isfinite(step) || step <= 0)
    return RESCUE_EINVAL;
  u = rescue_calloc(1, sizeof *u);
  if (!u)
    return RESCUE_ENOMEM;
  u->begin = begin;
  u->length = length;
  u->step = step;
  u->coders = (rescue_strmap)RESCUE_STRMAP_COPY;
  u->categories = (rescue_strmap)RESCUE_STRMAP_COPY;
  *out = u;
  return 0;
}

void rescue_unitize_free(rescue_unitize **pu) {
  rescue_unitize *u = pu ? *pu : NULL;
  if (!u)
    return;
  rescue_strmap_clear(&u->coders);
  rescue_strmap_clear(&u->categories);
  rescue_free(u->rows);
  rescue_free(u);
  *pu = NULL;
}

int64_t rescue_unitize_begin(const rescue_unitize *u) { return u->begin; }
int64_t rescue_unitize_length(const rescue_unitize *u) { return u->length; }
double rescue_unitize_step(const rescue_unitize *u) { return u->step; }

/* The index of name in m (added when new), or a negative code past `max` names. */
static int intern(rescue_strmap *m, const char *name, uint32_t max) {
  size_t len = strlen(name);
  int64_t i = rescue_strmap_find(m, name, len);
  if (i >= 0)
    return (int)i;
  if (m->n >= max)
    return RESCUE_EINVAL;
  i = rescue_strmap_put(m, name, len, 0, NULL);
  return i < 0 ? RESCUE_ENOMEM : (int)i;
}

int rescue_unitize_coder(rescue_unitize *u, const char *name) {
  return intern(&u->coders, name, RESCUE_UNITIZE_MAX_CODERS);
}

int rescue_unitize_category(rescue_unitize *u, const char *name) {
  return intern(&u->categories, name, INT32_MAX);
}

int rescue_unitize_n_coders(const rescue_unitize *u) { return (int)u->coders.n; }
int rescue_unitize_n_categories(const rescue_unitize *u) { return (int)u->categories.n; }

const char *rescue_unitize_coder_name(const rescue_unitize *u, int coder) {
  return rescue_strmap_key(&u->coders, (uint32_t)coder);
}

const char *rescue_unitize_category_name(const rescue_unitize *u, int category) {
  return rescue_strmap_key(&u->categories, (uint32_t)category);
}

int rescue_unitize_add(rescue_unitize *u, int coder, int category, int64_t begin, int64_t end) {
  if (coder < 0 || (uint32_t)coder >= u->coders.n || category < 0 ||
      (uint32_t)category >= u->categories.n || end <= begin || begin < u->begin ||
      end > u->begin + u->length)
    return RESCUE_EINVAL;
  if (u->n == u->cap) {
    size_t cap = u->cap ? u->cap * 2 : 64;
    unit_row *rows = rescue_realloc(u->rows, cap * sizeof *rows);
    if (!rows)
      return RESCUE_ENOMEM;
    u->rows = rows;
    u->cap = cap;
  }
  u->rows[u->n++] = (unit_row){coder, category, begin, end};
  return 0;
}

long rescue_unitize_n_rows(const rescue_unitize *u) { return (long)u->n; }

/* ---- computing ---- */

/*
** THE DEFINITION (Krippendorff 1995, "On the reliability of unitizing contiguous data";
** Krippendorff 2004, Content Analysis, section 12.4; DKPro Agreement implements it), as
** the project's agreement spec states it. Each category k is measured on its own. m coders
** cut the continuum [B, B+L); for k, each coder's continuum falls into sections: the
** coder's units of k and the gaps between them (everything else, to B and to B+L).
**
** Distance of a section g of coder i and a section h of coder j that overlap (b begin,
** e end, l length):
**   both units:                 (b_g - b_h)^2 + (e_g - e_h)^2
**   a unit inside a gap:        l_unit^2
**   otherwise (gap and gap, a unit only partly in a gap): 0
**
** Observed disagreement: over coder pairs i < j, every pair of overlapping sections once:
**   D_o(k) = 2 / (m (m-1) L^2) x sum of their distances.
**
** Expected disagreement, with N_k the units of k over all coders, Q = sum of l (l - 1) over
** them and G the gaps of all coders:
**   D_e(k) = (2 / L) x sum over units u of
**              [ (N_k - 1)(2 l_u^3 - 3 l_u^2 + l_u) / 3
**                + l_u^2 x sum over gaps g with l_g >= l_u of (l_g - l_u + 1) ]
**            / (m L (m L - 1) - Q)
** The first term is u against every other unit slid across it (sum of d^2 for shifts d
** from -(l-1) to l-1 is l (l-1)(2l-1) / 3 = (2l^3 - 3l^2 + l) / 3), the second u at each
** of the (l_g - l_u + 1) places it fits inside a gap.
**
**   alpha-u(k) = 1 - D_o(k) / D_e(k), 0 when the two are equal;
**   overall alpha-u = 1 - sum of D_o(k) / sum of D_e(k) over the categories with a unit.
**
** WORKED EXAMPLE (Krippendorff 2004, p. 254), category c on [150, 450), L = 300, m = 2:
**   coder 1: c [225,295) c [370,400)      coder 2: c [220,300) c [355,375) c [400,420)
**   Overlapping sections with a distance: the units [225,295) and [220,300): 5^2 + 5^2 =
**   50; [370,400) and [355,375): 15^2 + 25^2 = 850; coder 2's [400,420) inside coder 1's
**   gap [400,450): 20^2 = 400 (coder 1's [370,400) is only partly in coder 2's gap
**   [375,400): 0). D_o = 2 x 1300 / (2 x 1 x 300^2) = 0.014444.
**   Units 70, 30, 80, 20, 20 (N = 5, Q = 12780); gaps 75, 50, 75 and 70, 55, 25, 30. The
**   unit of 70 gives 4 x 70 x 69 x 139 / 3 = 895160 plus 70^2 x (75-69 + 75-69 + 70-69)
**   = 63700; all five give 2767160, so D_e = 2 / 300 x 2767160 / (600 x 599 - 12780)
**   = 0.053222 and alpha-u(c) = 1 - 0.014444 / 0.053222 = 0.7286 (published 0.7286).
**   Category k, where both coders agree exactly, has D_o = 0, D_e = 0.048979 and alpha-u
**   1; overall 1 - (0.014444 + 0) / (0.053222 + 0.048979) = 0.8587 (published, from
**   rounded intermediate figures: 0.8591).
**
** BEFORE MEASURING: units of one coder and one category that overlap are merged into one
** (their union), since the definition cuts each coder's continuum into disjoint sections;
** each merge is counted and reported. Units that only touch stay apart.
**
** COST. Sorting the units by (category, coder, begin) is O(n log n). D_o walks the two
** section lists of each pair of coders who both used k, side by side: the section that
** ends first moves on, so each overlapping pair is met once, in O(s_i + s_j). A coder
** without a unit of k has one gap, the whole continuum, in which each unit of the other
** coder lies whole: that pair adds the other's sum of l^2 without a walk. D_e sorts the
** gap lengths once and keeps suffix sums, so for each unit the gaps with l_g >= l_u are a
** binary search away: sum (l_g - l_u + 1) = (suffix sum of l_g) - count x (l_u - 1), and
** coders without a unit of k add (m - c_k)(L - l_u + 1). In all O(n log n + m n) time
** (m n only when every coder uses every category) and O(n + m) memory, never O(units x
** gaps) nor O(L).
**
** PRECISION. Lengths and positions are int64 grid steps; the sums are long double. Cubes
** of lengths overflow int64 early: an hour in milliseconds is l = 3.6e6 and l^3 = 4.7e19
** > 9.2e18, and N_k times such cubes goes far beyond; __int128 would hold a term but needs
** bounds on N_k x m x L^3 to hold the sum. long double (a 64-bit mantissa on x86-64, 113
** bits on aarch64) has the range for any sum here and a relative error near 1e-19 per
** term, far below the four decimals reported. Gap sums stay exact in int64 (at most
** m x L < 2^60 by the limits in rescue_agree.h).
*/

/* A section of one coder's continuum: [b, e), a unit or a gap. */
typedef struct section {
  int64_t b, e;
  int unit;
} section;

/* Units by category, then coder, then begin, then end. */
static int row_cmp(const void *pa, const void *pb) {
  const unit_row *a = pa, *b = pb;
  if (a->category != b->category)
    return a->category < b->category ? -1 : 1;
  if (a->coder != b->coder)
    return a->coder < b->coder ? -1 : 1;
  if (a->b != b->b)
    return a->b < b->b ? -1 : 1;
  return (a->e > b->e) - (a->e < b->e);
}

static int i64_cmp(const void *pa, const void *pb) {
  int64_t a = *(const int64_t *)pa, b = *(const int64_t *)pb;
  return (a > b) - (a < b);
}

/*
** Merge the overlapping units of each (category, coder) run of the sorted rows w[0..n) in
** place; counts merges per coder. Returns the units left.
*/
static size_t merge_units(unit_row *w, size_t n, rescue_unitize_coder_stat *cs) {
  size_t i, k = 0;
  for (i = 0; i < n; i++) {
    if (k && w[k - 1].category == w[i].category && w[k - 1].coder == w[i].coder &&
        w[i].b < w[k - 1].e) {
      if (w[i].e > w[k - 1].e)
        w[k - 1].e = w[i].e;
      cs[w[i].coder].merges++;
      continue;
    }
    w[k++] = w[i];
  }
  return k;
}

/* The sections of one coder's units u[0..n) (sorted, disjoint) on [B, end) into s. */
static size_t cut_sections(const unit_row *u, size_t n, int64_t B, int64_t end, section *s) {
  size_t i, k = 0;
  int64_t pos = B;
  for (i = 0; i < n; i++) {
    if (u[i].b > pos)
      s[k++] = (section){pos, u[i].b, 0};
    s[k++] = (section){u[i].b, u[i].e, 1};
    pos = u[i].e;
  }
  if (pos < end)
    s[k++] = (section){pos, end, 0};
  return k;
}

/* Distance of two overlapping sections (the table in THE DEFINITION). */
static long double section_distance(const section *g, const section *h) {
  if (g->unit && h->unit) {
    long double db = (long double)(g->b - h->b), de = (long double)(g->e - h->e);
    return db * db + de * de;
  }
  if (g->unit && !h->unit && h->b <= g->b && g->e <= h->e) {
    long double l = (long double)(g->e - g->b);
    return l * l;
  }
  if (h->unit && !g->unit && g->b <= h->b && h->e <= g->e) {
    long double l = (long double)(h->e - h->b);
    return l * l;
  }
  return 0;
}

/* The distances of every overlapping pair of sections of two coders, walking both lists. */
static long double walk_pair(const section *s, size_t ns, const section *t, size_t nt) {
  size_t p = 0, q = 0;
  long double sum = 0;
  while (p < ns && q < nt) {
    sum += section_distance(&s[p], &t[q]);
    if (s[p].e < t[q].e)
      p++;
    else if (t[q].e < s[p].e)
      q++;
    else
      p++, q++;
  }
  return sum;
}

/* Scratch space for one category, sized for all units once. */
typedef struct scratch {
  section *sec;    /* sections of the coders with units, coder after coder */
  size_t *sec_off; /* per such coder: its first section; one more at the end */
  int64_t *gap;    /* gap lengths, sorted */
  int64_t *suffix; /* suffix[i] = gap[i] + ... + gap[ng - 1] */
} scratch;

/*
** D_o and D_e of one category: its merged units w[0..n) sorted by coder and begin, m
** coders on [B, B+L). Fills c (all but category, status and alpha).
*/
static void category_disagreement(const unit_row *w, size_t n, int m, int64_t B, int64_t L,
                                  scratch *x, rescue_unitize_category_stat *c) {
  size_t i, j, ns = 0, ng = 0;
  int nc = 0;
  long double obs = 0, cubes = 0, squares = 0, lengths2 = 0, q = 0, num, den;
  for (i = 0; i < n; i = j) {
    for (j = i; j < n && w[j].coder == w[i].coder; j++) {
      long double l = (long double)(w[j].e - w[j].b);
      squares += l * l;
    }
    x->sec_off[nc++] = ns;
    ns += cut_sections(w + i, j - i, B, B + L, x->sec + ns);
  }
  x->sec_off[nc] = ns;
  /* observed: pairs of coders with units walk; a coder with none adds the other's l^2 */
  for (i = 0; i < (size_t)nc; i++)
    for (j = i + 1; j < (size_t)nc; j++)
      obs += walk_pair(x->sec + x->sec_off[i], x->sec_off[i + 1] - x->sec_off[i],
                       x->sec + x->sec_off[j], x->sec_off[j + 1] - x->sec_off[j]);
  obs += (long double)(m - nc) * squares;
  /* expected: the gaps sorted, with suffix sums */
  for (i = 0; i < ns; i++)
    if (!x->sec[i].unit)
      x->gap[ng++] = x->sec[i].e - x->sec[i].b;
  qsort(x->gap, ng, sizeof *x->gap, i64_cmp);
  x->suffix[ng] = 0;
  for (i = ng; i-- > 0;)
    x->suffix[i] = x->suffix[i + 1] + x->gap[i];
  for (i = 0; i < n; i++) {
    int64_t l = w[i].e - w[i].b, fit;
    size_t lo = 0, hi = ng;
    long double ll = (long double)l;
    while (lo < hi) { /* the first gap >= l */
      size_t mid = lo + (hi - lo) / 2;
      if (x->gap[mid] < l)
        lo = mid + 1;
      else
        hi = mid;
    }
    fit = x->suffix[lo] - (int64_t)(ng - lo) * (l - 1) + (int64_t)(m - nc) * (L - l + 1);
    cubes += ll * (ll - 1) * (2 * ll - 1);
    lengths2 += ll * ll * (long double)fit;
    q += ll * (ll - 1);
  }
  num = (long double)((long)n - 1) * cubes / 3 + lengths2;
  den = (long double)m * L * ((long double)m * L - 1) - q;
  c->coders = nc;
  c->units = (long)n;
  c->d_o = m > 1 ? (double)(2 * obs / ((long double)m * (m - 1) * L * L)) : 0;
  c->d_e = m > 1 ? (double)(2 / (long double)L * num / den) : 0;
}

/* Status and alpha from D_o and D_e (the spec: 0 when they are equal). */
static void alpha_of(int m, double d_o, double d_e, rescue_agree_status *status, double *alpha) {
  if (m < 2) {
    *status = RESCUE_AGREE_NO_DATA;
    *alpha = NAN;
  } else if (d_e == 0) {
    /* D_e is 0 only when every coder covers the whole continuum with one-step units of
       the category; D_o is 0 then too */
    *status = RESCUE_AGREE_NO_VARIATION;
    *alpha = 0;
  } else {
    *status = RESCUE_AGREE_OK;
    *alpha = d_o == d_e ? 0 : 1 - d_o / d_e;
  }
}

void rescue_unitize_result_clear(rescue_unitize_result *r) {
  if (!r)
    return;
  rescue_free(r->coders);
  rescue_free(r->categories);
  memset(r, 0, sizeof *r);
}

int rescue_unitize_compute(const rescue_unitize *u, rescue_unitize_result *r) {
  int m = (int)u->coders.n, rc = RESCUE_ENOMEM;
  size_t n = u->n, k, i, j, ncat = 0;
  unit_row *w = NULL;
  long *cat_rows = NULL; /* rows per category index, before merging */
  scratch x = {0};
  long double so = 0, se = 0;

  memset(r, 0, sizeof *r);
  r->n_coders = m;
  r->rows = (long)n;
  r->coders = rescue_calloc(m ? (size_t)m : 1, sizeof *r->coders);
  w = rescue_malloc((n ? n : 1) * sizeof *w);
  cat_rows = rescue_calloc(u->categories.n + 1, sizeof *cat_rows);
  if (!r->coders || !w || !cat_rows)
    goto end;
  if (n)
    memcpy(w, u->rows, n * sizeof *w);
  qsort(w, n, sizeof *w, row_cmp);
  for (i = 0; i < n; i++) {
    r->coders[w[i].coder].rows++;
    cat_rows[w[i].category]++;
  }
  k = merge_units(w, n, r->coders);
  r->units = (long)k;
  r->merges = (long)(n - k);
  for (i = 0; i < k; i++)
    r->coders[w[i].coder].units++;
  for (i = 0; i < k; i++)
    ncat += i == 0 || w[i].category != w[i - 1].category;
  /* at most 2 sections per unit plus one per coder of a category; as many gaps */
  r->categories = rescue_calloc(ncat ? ncat : 1, sizeof *r->categories);
  x.sec = rescue_malloc((2 * k + (size_t)m + 1) * sizeof *x.sec);
  x.sec_off = rescue_malloc(((size_t)m + 2) * sizeof *x.sec_off);
  x.gap = rescue_malloc((k + (size_t)m + 1) * sizeof *x.gap);
  x.suffix = rescue_malloc((k + (size_t)m + 2) * sizeof *x.suffix);
  if (!r->categories || !x.sec || !x.sec_off || !x.gap || !x.suffix)
    goto end;
  for (i = 0; i < k; i = j) {
    rescue_unitize_category_stat *c = &r->categories[r->n_categories++];
    for (j = i; j < k && w[j].category == w[i].category; j++)
      ;
    c->category = w[i].category;
    category_disagreement(w + i, j - i, m, u->begin, u->length, &x, c);
    c->merges = cat_rows[c->category] - c->units;
    alpha_of(m, c->d_o, c->d_e, &c->status, &c->alpha);
    so += c->d_o;
    se += c->d_e;
  }
  r->d_o = (double)so;
  r->d_e = (double)se;
  alpha_of(r->n_categories ? m : 0, r->d_o, r->d_e, &r->status, &r->alpha);
  rc = 0;
end:
  rescue_free(w);
  rescue_free(cat_rows);
  rescue_free(x.sec);
  rescue_free(x.sec_off);
  rescue_free(x.gap);
  rescue_free(x.suffix);
  if (rc)
    rescue_unitize_result_clear(r);
  return rc;
}

/* ---- reports ---- */

/*
** Position v of the grid in the caller's units: v / (1 / step) when a step is the inverse
** of a whole number (0.001 -> 1234 / 1000 = 1.234 exactly, where 1234 x 0.001 is not).
*/
static double in_units(int64_t v, double step) {
  double inv = 1 / step, whole = nearbyint(inv);
  if (step < 1 && fabs(inv - whole) < 1e-9 * whole)
    return (double)v / whole;
  return (double)v * step;
}

/* v on the grid in the caller's units, shortest ("150", "1.234"), for the text report. */
static const char *spell(int64_t v, double step, char buf[32]) {
  double x = in_units(v, step);
  if (x == floor(x) && fabs(x) < 1e15)
    snprintf(buf, 32, "%.0f", x);
  else
    rescue_format_double(x, buf);
  return buf;
}

/* A number, or null when undefined. */
static void jw_num(rescue_jw *w, const char *key, double x) {
  rescue_jw_key(w, key);
  if (isnan(x) || isinf(x))
    rescue_jw_null(w);
  else
    rescue_jw_double(w, x);
}

void rescue_unitize_result_json(const rescue_unitize *u, const rescue_unitize_result *r,
                                const char *input, rescue_jw *w) {
  int i;
  rescue_jw_obj(w);
  rescue_jw_key(w, "level");
  rescue_jw_str(w, "unitizing");
  if (input) {
    rescue_jw_key(w, "input");
    rescue_jw_str(w, input);
  }
  rescue_jw_key(w, "status");
  rescue_jw_str(w, rescue_agree_status_name(r->status));
  rescue_jw_key(w, "continuum");
  rescue_jw_obj(w);
  jw_num(w, "start", in_units(u->begin, u->step));
  jw_num(w, "end", in_units(u->begin + u->length, u->step));
  jw_num(w, "grid", u->step);
  rescue_jw_key(w, "steps");
  rescue_jw_int(w, u->length);
  rescue_jw_end(w);
  rescue_jw_key(w, "coders");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_coders; i++)
    rescue_jw_str(w, rescue_unitize_coder_name(u, i));
  rescue_jw_end(w);
  rescue_jw_key(w, "rows");
  rescue_jw_int(w, r->rows);
  rescue_jw_key(w, "units");
  rescue_jw_int(w, r->units);
  rescue_jw_key(w, "merges");
  rescue_jw_int(w, r->merges);
  rescue_jw_key(w, "units_per_coder");
  rescue_jw_obj(w);
  for (i = 0; i < r->n_coders; i++) {
    rescue_jw_key(w, rescue_unitize_coder_name(u, i));
    rescue_jw_int(w, r->coders[i].units);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "merges_per_coder");
  rescue_jw_obj(w);
  for (i = 0; i < r->n_coders; i++) {
    rescue_jw_key(w, rescue_unitize_coder_name(u, i));
    rescue_jw_int(w, r->coders[i].merges);
  }
  rescue_jw_end(w);
  jw_num(w, "alpha_u", r->alpha);
  jw_num(w, "d_o", r->d_o);
  jw_num(w, "d_e", r->d_e);
  rescue_jw_key(w, "categories");
  rescue_jw_arr(w);
  for (i = 0; i < r->n_categories; i++) {
    const rescue_unitize_category_stat *c = &r->categories[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "category");
    rescue_jw_str(w, rescue_unitize_category_name(u, c->category));
    rescue_jw_key(w, "status");
    rescue_jw_str(w, rescue_agree_status_name(c->status));
    rescue_jw_key(w, "coders_with_units");
    rescue_jw_int(w, c->coders);
    rescue_jw_key(w, "units");
    rescue_jw_int(w, c->units);
    rescue_jw_key(w, "merges");
    rescue_jw_int(w, c->merges);
    jw_num(w, "alpha_u", c->alpha);
    jw_num(w, "d_o", c->d_o);
    jw_num(w, "d_e", c->d_e);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_end(w);
}

/* "0.7286" (fixed) or "0.01444" (significant digits) or "-" for an undefined number. */
static const char *fmt(char buf[32], double x, int fixed) {
  if (isnan(x) || isinf(x))
    return "-";
  snprintf(buf, 32, fixed ? "%.4f" : "%.4g", x);
  return buf;
}

/* The widest of the names of a table's first column, at least `min`. */
static int name_width(const rescue_unitize *u, const rescue_unitize_result *r, int coders,
                      int min) {
  int i, w = min, n = coders ? r->n_coders : r->n_categories;
  for (i = 0; i < n; i++) {
    const char *s = coders ? rescue_unitize_coder_name(u, i)
                           : rescue_unitize_category_name(u, r->categories[i].category);
    int l = (int)strlen(s);
    if (l > w)
      w = l > 40 ? 40 : l;
  }
  return w;
}

void rescue_unitize_result_text(const rescue_unitize *u, const rescue_unitize_result *r,
                                const char *input, rescue_buf *out) {
  char a[32], b[32], c[32], s0[32], s1[32];
  int i, wc;
  spell(u->begin, u->step, s0);
  spell(u->begin + u->length, u->step, s1);
  rescue_buf_printf(out, "segmentation agreement (Krippendorff's unitizing alpha)%s%s\n",
                    input ? " in " : "", input ? input : "");
  if (u->step == floor(u->step) && u->step < 1e15)
    snprintf(a, sizeof a, "%.0f", u->step);
  else
    rescue_format_double(u->step, a);
  rescue_buf_printf(out,
                    "continuum [%s, %s) on a grid of %s: %lld steps; %d coder%s, %ld unit%s "
                    "(%ld merged from overlapping rows)\n",
                    s0, s1, a, (long long)u->length, r->n_coders, r->n_coders == 1 ? "" : "s",
                    r->units, r->units == 1 ? "" : "s", r->merges);
  rescue_buf_printf(out, "alpha-u %s (status %s; D_o %s, D_e %s)\n", fmt(a, r->alpha, 1),
                    rescue_agree_status_name(r->status), fmt(b, r->d_o, 0), fmt(c, r->d_e, 0));
  if (r->n_categories) {
    wc = name_width(u, r, 0, 8);
    rescue_buf_printf(out, "\n%-*s  %-12s  %6s  %7s  %6s  %7s  %10s  %10s\n", wc, "category",
                      "status", "coders", "units", "merges", "alpha-u", "D_o", "D_e");
    for (i = 0; i < r->n_categories; i++) {
      const rescue_unitize_category_stat *k = &r->categories[i];
      rescue_buf_printf(out, "%-*.*s  %-12s  %6d  %7ld  %6ld  %7s  %10s  %10s\n", wc, wc,
                        rescue_unitize_category_name(u, k->category),
                        rescue_agree_status_name(k->status), k->coders, k->units, k->merges,
                        fmt(a, k->alpha, 1), fmt(b, k->d_o, 0), fmt(c, k->d_e, 0));
    }
  }
  if (r->n_coders) {
    wc = name_width(u, r, 1, 5);
    rescue_buf_printf(out, "\n%-*s  %7s  %7s  %6s\n", wc, "coder", "rows", "units", "merges");
    for (i = 0; i < r->n_coders; i++)
      rescue_buf_printf(out, "%-*.*s  %7ld  %7ld  %6ld\n", wc, wc, rescue_unitize_coder_name(u, i),
                        r->coders[i].rows, r->coders[i].units, r->coders[i].merges);
  }
}

/* ",x" with x empty when undefined. */
static void csv_comma_num(rescue_buf *out, double x) {
  rescue_buf_putc(out, ',');
  agree_csv_num(out, x);
}

void rescue_unitize_result_csv(const rescue_unitize *u, const rescue_unitize_result *r,
                               rescue_buf *out) {
  int i;
  rescue_buf_puts(out, "category,status,coders,units,merges,alpha_u,d_o,d_e\r\n");
  rescue_buf_printf(out, ",%s,%d,%ld,%ld", rescue_agree_status_name(r->status), r->n_coders,
                    r->units, r->merges);
  csv_comma_num(out, r->alpha);
  csv_comma_num(out, r->d_o);
  csv_comma_num(out, r->d_e);
  rescue_buf_puts(out, "\r\n");
  for (i = 0; i < r->n_categories; i++) {
    const rescue_unitize_category_stat *c = &r->categories[i];
    agree_csv_str(out, rescue_unitize_category_name(u, c->category));
    rescue_buf_printf(out, ",%s,%d,%ld,%ld", rescue_agree_status_name(c->status), c->coders,
                      c->units, c->merges);
    csv_comma_num(out, c->alpha);
    csv_comma_num(out, c->d_o);
    csv_comma_num(out, c->d_e);
    rescue_buf_puts(out, "\r\n");
  }
}
