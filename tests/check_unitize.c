/*
** check_unitize.c: Krippendorff's unitizing alpha (annotate/agree_unitize.c) through the
** library and `rescue agree --input --level unitizing`: both published worked examples
** (Krippendorff 2004 p. 254, 1995 p. 57) within the agreement spec's tolerances, identical
** segmentations, merges, degenerate cases, a brute-force reference from the definition on
** random data (equal to 1e-9), and the table reader's errors and the command's usage.
*/
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

#define ASSERT_NEAR(a, b, tol)                                                                     \
  ck_assert_msg(fabs((double)(a) - (double)(b)) <= (tol), "%s = %.10g, expected %.10g (+- %g)",    \
                #a, (double)(a), (double)(b), (double)(tol))

/* A unit as the tests write it: coder, category, [b, e). */
typedef struct tu_unit {
  const char *coder, *category;
  int64_t b, e;
} tu_unit;

/* A data set on [begin, begin + length) from units (coders and categories in first-seen order). */
static rescue_unitize *build(int64_t begin, int64_t length, const tu_unit *u, int n) {
  rescue_unitize *d = NULL;
  int i;
  ck_assert_int_eq(rescue_unitize_new(begin, length, 1, &d), 0);
  for (i = 0; i < n; i++) {
    int c = rescue_unitize_coder(d, u[i].coder), k = rescue_unitize_category(d, u[i].category);
    ck_assert_int_ge(c, 0);
    ck_assert_int_ge(k, 0);
    ck_assert_int_eq(rescue_unitize_add(d, c, k, u[i].b, u[i].e), 0);
  }
  return d;
}

/* The category named name in r, or NULL. */
static const rescue_unitize_category_stat *
category(const rescue_unitize *d, const rescue_unitize_result *r, const char *name) {
  int i;
  for (i = 0; i < r->n_categories; i++)
    if (strcmp(rescue_unitize_category_name(d, r->categories[i].category), name) == 0)
      return &r->categories[i];
  return NULL;
}

/* Krippendorff (2004, p. 254): continuum [150, 450), two coders, categories c and k. */
static const tu_unit k2004[] = {{"1", "c", 225, 295}, {"1", "c", 370, 400}, {"1", "k", 180, 240},
                                {"1", "k", 300, 350}, {"2", "c", 220, 300}, {"2", "c", 355, 375},
                                {"2", "c", 400, 420}, {"2", "k", 180, 240}, {"2", "k", 300, 350}};

START_TEST(test_krippendorff_2004) {
  rescue_unitize *d = build(150, 300, k2004, 9);
  rescue_unitize_result r;
  const rescue_unitize_category_stat *c, *k;
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
  ck_assert_int_eq(r.n_categories, 2);
  c = category(d, &r, "c");
  k = category(d, &r, "k");
  ck_assert_ptr_nonnull(c);
  ck_assert_ptr_nonnull(k);
  /* the published figures, within the spec's tolerances */
  ASSERT_NEAR(c->alpha, 0.7286, 1e-4);
  ASSERT_NEAR(k->alpha, 1.0, 1e-4);
  ASSERT_NEAR(r.alpha, 0.8591, 5e-4);
  /* and the worked example in agree_unitize.c, exactly */
  ASSERT_NEAR(c->d_o, 1300.0 / 90000, 1e-15);
  ASSERT_NEAR(c->d_e, 2.0 / 300 * 2767160 / (600.0 * 599 - 12780), 1e-15);
  ASSERT_NEAR(k->d_o, 0, 0);
  ASSERT_NEAR(r.alpha, 1 - c->d_o / (c->d_e + k->d_e), 1e-15);
  ck_assert_int_eq(c->units, 5);
  ck_assert_int_eq(k->units, 4);
  ck_assert_int_eq(c->coders, 2);
  ck_assert_int_eq(r.n_coders, 2);
  ck_assert_int_eq(r.coders[0].units, 4);
  ck_assert_int_eq(r.coders[1].units, 5);
  ck_assert_int_eq(r.merges, 0);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);
  ck_assert_ptr_null(d);
}
END_TEST

/*
** Krippendorff (1995, p. 57): four two-coder examples on 24 steps, units as (offset,
** length). The paper's expected disagreement carries a small error, so the spec holds the
** published figures on the fine grid (every number times 50,000) within 0.02.
*/
typedef struct example_1995 {
  const char *name;
  int n1, n2;
  int u1[5][2], u2[7][2];
  double alpha;
} example_1995;

static const example_1995 k1995[] = {
    {"A", 2, 2, {{2, 8}, {14, 6}}, {{4, 4}, {15, 2}}, 0.553},
    {"B", 1, 7, {{0, 18}}, {{0, 2}, {2, 1}, {3, 1}, {4, 1}, {5, 1}, {6, 3}, {9, 1}}, -0.926},
    {"C",
     4,
     5,
     {{2, 6}, {10, 2}, {14, 4}, {20, 2}},
     {{0, 2}, {4, 4}, {10, 4}, {16, 2}, {20, 2}},
     0.679},
    {"D",
     5,
     5,
     {{0, 2}, {2, 8}, {10, 4}, {14, 6}, {20, 4}},
     {{0, 4}, {4, 4}, {8, 7}, {15, 2}, {17, 7}},
     0.066},
};

/* The 1995 example x as a data set on the grid scaled by `scale`. */
static rescue_unitize *build_1995(const example_1995 *x, int64_t scale) {
  rescue_unitize *d = NULL;
  int i, c1, c2, k;
  ck_assert_int_eq(rescue_unitize_new(0, 24 * scale, 1, &d), 0);
  c1 = rescue_unitize_coder(d, "1");
  c2 = rescue_unitize_coder(d, "2");
  k = rescue_unitize_category(d, x->name);
  for (i = 0; i < x->n1; i++)
    ck_assert_int_eq(
        rescue_unitize_add(d, c1, k, x->u1[i][0] * scale, (x->u1[i][0] + x->u1[i][1]) * scale), 0);
  for (i = 0; i < x->n2; i++)
    ck_assert_int_eq(
        rescue_unitize_add(d, c2, k, x->u2[i][0] * scale, (x->u2[i][0] + x->u2[i][1]) * scale), 0);
  return d;
}

START_TEST(test_krippendorff_1995) {
  int i;
  for (i = 0; i < 4; i++) {
    rescue_unitize *d = build_1995(&k1995[i], 50000);
    rescue_unitize_result r;
    ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
    ck_assert_int_eq(r.n_categories, 1);
    ck_assert_int_eq(r.categories[0].status, RESCUE_AGREE_OK);
    ck_assert_msg(fabs(r.categories[0].alpha - k1995[i].alpha) <= 0.02,
                  "example %s: alpha-u %.4f, published %.3f", k1995[i].name, r.categories[0].alpha,
                  k1995[i].alpha);
    /* one category: the overall figure is that category's */
    ASSERT_NEAR(r.alpha, r.categories[0].alpha, 1e-15);
    rescue_unitize_result_clear(&r);
    rescue_unitize_free(&d);
  }
}
END_TEST

/* Identical segmentations agree perfectly, whatever the coders and categories. */
START_TEST(test_identical) {
  static const char *const coders[] = {"ann", "bob", "cyd"};
  static const int64_t spans[][2] = {{0, 10}, {10, 13}, {20, 50}, {50, 51}, {90, 100}};
  rescue_unitize *d = NULL;
  rescue_unitize_result r;
  int c, i;
  ck_assert_int_eq(rescue_unitize_new(0, 100, 1, &d), 0);
  ck_assert_int_eq(rescue_unitize_category(d, "P1"), 0);
  ck_assert_int_eq(rescue_unitize_category(d, "T"), 1);
  for (c = 0; c < 3; c++) {
    int k = rescue_unitize_coder(d, coders[c]);
    for (i = 0; i < 5; i++)
      ck_assert_int_eq(rescue_unitize_add(d, k, i % 2, spans[i][0], spans[i][1]), 0);
  }
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
  ck_assert_int_eq(r.n_categories, 2);
  for (i = 0; i < 2; i++) {
    ck_assert_int_eq(r.categories[i].status, RESCUE_AGREE_OK);
    ck_assert(r.categories[i].d_o == 0);
    ck_assert(r.categories[i].d_e > 0);
    ck_assert(r.categories[i].alpha == 1);
  }
  ck_assert(r.alpha == 1);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);
}
END_TEST

/*
** Overlapping units of one coder and one category are merged first and counted: the result
** is that of the merged units. Touching units and units of other categories stay apart.
*/
START_TEST(test_merges) {
  static const tu_unit rows[] = {
      {"1", "c", 225, 260}, {"1", "c", 250, 295},                       /* overlap: one merge */
      {"1", "c", 230, 240},                                             /* inside: a second merge */
      {"1", "c", 370, 400}, {"1", "k", 180, 240}, {"1", "k", 240, 241}, /* touching: kept */
      {"1", "k", 300, 350}, {"1", "k", 241, 242}, /* touching the previous: kept */
      {"2", "c", 220, 300}, {"2", "c", 355, 375}, {"2", "c", 400, 420},
      {"2", "c", 410, 420}, /* a third merge, coder 2 */
      {"2", "k", 180, 240}, {"2", "k", 300, 350}, {"2", "x", 180, 240}}; /* other category */
  static const tu_unit merged[] = {
      {"1", "c", 225, 295}, {"1", "c", 370, 400}, {"1", "k", 180, 240}, {"1", "k", 240, 241},
      {"1", "k", 300, 350}, {"1", "k", 241, 242}, {"2", "c", 220, 300}, {"2", "c", 355, 375},
      {"2", "c", 400, 420}, {"2", "k", 180, 240}, {"2", "k", 300, 350}, {"2", "x", 180, 240}};
  rescue_unitize *d = build(150, 300, rows, 15), *m = build(150, 300, merged, 12);
  rescue_unitize_result r, rm;
  int i;
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(rescue_unitize_compute(m, &rm), 0);
  ck_assert_int_eq(r.rows, 15);
  ck_assert_int_eq(r.units, 12);
  ck_assert_int_eq(r.merges, 3);
  ck_assert_int_eq(r.coders[0].rows, 8);
  ck_assert_int_eq(r.coders[0].units, 6);
  ck_assert_int_eq(r.coders[0].merges, 2);
  ck_assert_int_eq(r.coders[1].merges, 1);
  ck_assert_int_eq(category(d, &r, "c")->merges, 3);
  ck_assert_int_eq(category(d, &r, "k")->merges, 0);
  ck_assert_int_eq(category(d, &r, "k")->units, 6);
  ck_assert_int_eq(rm.merges, 0);
  ck_assert_int_eq(r.n_categories, 3);
  for (i = 0; i < 3; i++) {
    ASSERT_NEAR(r.categories[i].d_o, rm.categories[i].d_o, 0);
    ASSERT_NEAR(r.categories[i].d_e, rm.categories[i].d_e, 0);
  }
  ASSERT_NEAR(r.alpha, rm.alpha, 0);
  rescue_unitize_result_clear(&r);
  rescue_unitize_result_clear(&rm);
  rescue_unitize_free(&d);
  rescue_unitize_free(&m);
}
END_TEST

/* One coder, no coder, no unit, one coder's category, units at the ends, D_e = 0. */
START_TEST(test_edges) {
  static const tu_unit one[] = {{"a", "x", 0, 5}, {"a", "y", 5, 9}};
  static const tu_unit lone[] = {{"a", "x", 0, 5}, {"b", "x", 0, 4}, {"a", "y", 6, 9}};
  static const tu_unit ends[] = {
      {"a", "x", 0, 3}, {"a", "x", 7, 10}, {"b", "x", 0, 3}, {"b", "x", 7, 10}, {"c", "x", 0, 10}};
  static const tu_unit steps[] = {
      {"a", "x", 0, 1}, {"a", "x", 1, 2}, {"b", "x", 0, 1}, {"b", "x", 1, 2}};
  rescue_unitize *d;
  rescue_unitize_result r;
  const rescue_unitize_category_stat *y;

  /* one coder: no_data everywhere, alpha undefined */
  d = build(0, 10, one, 2);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
  ck_assert(isnan(r.alpha));
  ck_assert_int_eq(r.n_categories, 2);
  ck_assert_int_eq(r.categories[0].status, RESCUE_AGREE_NO_DATA);
  ck_assert(isnan(r.categories[0].alpha));
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);

  /* no coder at all; two coders without a unit */
  ck_assert_int_eq(rescue_unitize_new(0, 10, 1, &d), 0);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
  ck_assert_int_eq(r.n_categories, 0);
  rescue_unitize_result_clear(&r);
  ck_assert_int_eq(rescue_unitize_coder(d, "a"), 0);
  ck_assert_int_eq(rescue_unitize_coder(d, "b"), 1);
  ck_assert_int_eq(rescue_unitize_category(d, "x"), 0);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
  ck_assert_int_eq(r.n_categories, 0); /* declared, never used: not present */
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);

  /* a category only one coder used: measured (the other coder's gap is the continuum) */
  d = build(0, 10, lone, 3);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  y = category(d, &r, "y");
  ck_assert_int_eq(y->status, RESCUE_AGREE_OK);
  ck_assert_int_eq(y->coders, 1);
  /* D_o: [6,9) inside b's gap [0,10): 9, x 2 / (2 x 1 x 100) */
  ASSERT_NEAR(y->d_o, 9.0 / 100, 1e-15);
  /* D_e: N = 1; gaps 6, 1 (a) and 10 (b) >= 3: 9 x (4 + 8) = 108; 2/10 x 108 / (20 x 19 - 6) */
  ASSERT_NEAR(y->d_e, 2.0 / 10 * 108 / (20.0 * 19 - 6), 1e-15);
  ck_assert(y->alpha < 0);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);

  /* units touching both ends of the continuum, and one covering all of it */
  d = build(0, 10, ends, 5);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
  /* pairs: a-b agree; a-c and b-c: [0,3) vs [0,10): 0 + 49, [7,10): 49 + 0 -> 98 each */
  ASSERT_NEAR(r.categories[0].d_o, 2.0 * 196 / (3 * 2 * 100), 1e-15);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);

  /* D_e = 0: every coder covers the whole continuum with one-step units -> alpha 0 */
  d = build(0, 2, steps, 4);
  ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
  ck_assert_int_eq(r.categories[0].status, RESCUE_AGREE_NO_VARIATION);
  ck_assert(r.categories[0].d_e == 0 && r.categories[0].d_o == 0);
  ck_assert(r.categories[0].alpha == 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_NO_VARIATION);
  ck_assert(r.alpha == 0);
  rescue_unitize_result_clear(&r);
  rescue_unitize_free(&d);
}
END_TEST

/* What the data set refuses. */
START_TEST(test_refused) {
  rescue_unitize *d = NULL;
  ck_assert_int_eq(rescue_unitize_new(0, 0, 1, &d), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_unitize_new(0, RESCUE_UNITIZE_MAX_LENGTH + 1, 1, &d), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_unitize_new(INT64_MAX - 5, 10, 1, &d), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_unitize_new(0, 10, 0, &d), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_unitize_new(0, 10, NAN, &d), RESCUE_EINVAL);
  ck_assert_ptr_null(d);
  ck_assert_int_eq(rescue_unitize_new(-5, 10, 0.001, &d), 0);
  ck_assert_int_eq(rescue_unitize_begin(d), -5);
  ck_assert_int_eq(rescue_unitize_length(d), 10);
  ck_assert_int_eq(rescue_unitize_coder(d, "a"), 0);
  ck_assert_int_eq(rescue_unitize_category(d, "x"), 0);
  ck_assert_int_eq(rescue_unitize_add(d, 0, 0, -5, 5), 0);
  ck_assert_int_eq(rescue_unitize_add(d, 0, 0, -6, 0), RESCUE_EINVAL); /* before the start */
  ck_assert_int_eq(rescue_unitize_add(d, 0, 0, 0, 6), RESCUE_EINVAL);  /* past the end */
  ck_assert_int_eq(rescue_unitize_add(d, 0, 0, 2, 2), RESCUE_EINVAL);  /* empty */
  ck_assert_int_eq(rescue_unitize_add(d, 0, 0, 3, 2), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_unitize_add(d, 1, 0, 0, 1), RESCUE_EINVAL); /* no such coder */
  ck_assert_int_eq(rescue_unitize_add(d, 0, 1, 0, 1), RESCUE_EINVAL); /* no such category */
  ck_assert_int_eq(rescue_unitize_n_rows(d), 1);
  rescue_unitize_free(&d);
  rescue_unitize_free(&d); /* NULL is fine */
}
END_TEST

/* Every allocation that can fail, failing: ENOMEM, nothing leaked, then the same result. */
START_TEST(test_out_of_memory) {
  char *dir = tu_tmpdir();
  const char *p = tu_path(dir, "m.tsv");
  rescue_unitize_tsv_opts o = {150, 450, 0};
  rescue_unitize *d = build(150, 300, k2004, 9), *t = NULL;
  rescue_unitize_result r;
  rescue_error err = RESCUE_ERROR_INIT;
  unsigned long nth;
  int rc;
  for (nth = 1;; nth++) {
    rescue_alloc_fail_at(nth);
    rc = rescue_unitize_compute(d, &r);
    rescue_alloc_fail_at(0);
    if (rc == 0)
      break;
    ck_assert_int_eq(rc, RESCUE_ENOMEM);
  }
  ck_assert_int_gt(nth, 3);
  ASSERT_NEAR(r.alpha, 0.8586654051841702, 1e-15);
  rescue_unitize_result_clear(&r);
  tu_write(p, "coder\tstart\tend\tcategory\n1\t225\t295\tc\n2\t220\t300\tc\n");
  for (nth = 1;; nth++) {
    rescue_alloc_fail_at(nth);
    rc = rescue_unitize_read_tsv(p, &o, &t, &err);
    rescue_alloc_fail_at(0);
    if (rc == 0)
      break;
    ck_assert_int_eq(rc, RESCUE_ENOMEM);
    ck_assert_ptr_null(t);
  }
  ck_assert_int_eq(rescue_unitize_n_rows(t), 2);
  ck_assert_int_eq(rescue_unitize_n_coders(t), 2);
  ck_assert_str_eq(rescue_unitize_category_name(t, 0), "c");
  rescue_unitize_free(&t);
  rescue_unitize_free(&d);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/* ---- a brute-force reference, straight from the definition ---- */

typedef struct ref_unit {
  int coder, category;
  long b, e;
} ref_unit;

typedef struct ref_section {
  long b, e;
  int unit;
} ref_section;

/* Merge overlapping units of one coder and category pairwise until none overlap. */
static int ref_merge(ref_unit *u, int n) {
  int again = 1, i, j;
  while (again) {
    again = 0;
    for (i = 0; i < n && !again; i++)
      for (j = i + 1; j < n && !again; j++)
        if (u[i].coder == u[j].coder && u[i].category == u[j].category && u[i].b < u[j].e &&
            u[j].b < u[i].e) {
          u[i].b = u[i].b < u[j].b ? u[i].b : u[j].b;
          u[i].e = u[i].e > u[j].e ? u[i].e : u[j].e;
          u[j] = u[--n];
          again = 1;
        }
  }
  return n;
}

/*
** Coder c's sections for category k on [B, B+L), found one grid step at a time: a step
** inside a unit belongs to that unit's section, runs of the other steps are gaps.
*/
static int ref_sections(const ref_unit *u, int n, int c, int k, long B, long L, ref_section *s) {
  int ns = 0, i;
  long t;
  for (t = B; t < B + L; t++) {
    int in = -1;
    for (i = 0; i < n; i++)
      if (u[i].coder == c && u[i].category == k && u[i].b <= t && t < u[i].e)
        in = i;
    if (in >= 0) {
      if (!ns || !s[ns - 1].unit || s[ns - 1].b != u[in].b)
        s[ns++] = (ref_section){u[in].b, u[in].e, 1};
    } else if (ns && !s[ns - 1].unit) {
      s[ns - 1].e = t + 1;
    } else {
      s[ns++] = (ref_section){t, t + 1, 0};
    }
  }
  return ns;
}

/* D_o and D_e of category k, by the definition's sums over every pair and placement. */
static void ref_category(const ref_unit *u, int n, int m, int k, long B, long L, double *d_o,
                         double *d_e) {
  ref_section s[8][128];
  int ns[8], i, j, p, q, nk = 0;
  long double obs = 0, num = 0, qsum = 0;
  for (i = 0; i < m; i++)
    ns[i] = ref_sections(u, n, i, k, B, L, s[i]);
  for (i = 0; i < m; i++)
    for (j = i + 1; j < m; j++)
      for (p = 0; p < ns[i]; p++)
        for (q = 0; q < ns[j]; q++) {
          const ref_section *g = &s[i][p], *h = &s[j][q];
          if (!(g->b < h->e && h->b < g->e))
            continue;
          if (g->unit && h->unit)
            obs += (long double)(g->b - h->b) * (g->b - h->b) +
                   (long double)(g->e - h->e) * (g->e - h->e);
          else if (g->unit && h->b <= g->b && g->e <= h->e)
            obs += (long double)(g->e - g->b) * (g->e - g->b);
          else if (h->unit && g->b <= h->b && h->e <= g->e)
            obs += (long double)(h->e - h->b) * (h->e - h->b);
        }
  for (i = 0; i < n; i++)
    nk += u[i].category == k;
  for (i = 0; i < n; i++) {
    long l = u[i].e - u[i].b, d, at;
    if (u[i].category != k)
      continue;
    qsum += (long double)l * (l - 1);
    /* against each other unit of k slid across it: d^2 for every shift that overlaps */
    for (d = -(l - 1); d <= l - 1; d++)
      num += (long double)(nk - 1) * d * d;
    /* at each place it fits inside a gap of any coder: l^2 */
    for (j = 0; j < m; j++)
      for (p = 0; p < ns[j]; p++)
        if (!s[j][p].unit)
          for (at = s[j][p].b; at + l <= s[j][p].e; at++)
            num += (long double)l * l;
  }
  *d_o = (double)(2 * obs / ((long double)m * (m - 1) * L * L));
  *d_e = (double)(2 / (long double)L * num / ((long double)m * L * (m * L - 1) - qsum));
}

/* A tiny deterministic generator (SplitMix64), so a failure can be replayed. */
static uint64_t mix(uint64_t *s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

static int close_rel(double a, double b) {
  return fabs(a - b) <= 1e-9 * (fabs(b) > 1 ? fabs(b) : 1);
}

START_TEST(test_random_against_definition) {
  uint64_t seed = 22;
  int trial;
  for (trial = 0; trial < 400; trial++) {
    ref_unit u[40];
    int m = 2 + (int)(mix(&seed) % 3), K = 1 + (int)(mix(&seed) % 3), n, i, k, kept;
    long B = (long)(mix(&seed) % 21) - 10, L = 1 + (long)(mix(&seed) % 40);
    rescue_unitize *d = NULL;
    rescue_unitize_result r;
    long double so = 0, se = 0;
    char name[8];
    n = (int)(mix(&seed) % 25);
    ck_assert_int_eq(rescue_unitize_new(B, L, 1, &d), 0);
    for (i = 0; i < m; i++) {
      snprintf(name, sizeof name, "c%d", i);
      ck_assert_int_eq(rescue_unitize_coder(d, name), i);
    }
    for (k = 0; k < K; k++) {
      snprintf(name, sizeof name, "k%d", k);
      ck_assert_int_eq(rescue_unitize_category(d, name), k);
    }
    for (i = 0; i < n; i++) {
      long b = B + (long)(mix(&seed) % (uint64_t)L);
      long len = 1 + (long)(mix(&seed) % (uint64_t)(mix(&seed) % 2 ? 3 : L));
      u[i] = (ref_unit){(int)(mix(&seed) % (uint64_t)m), (int)(mix(&seed) % (uint64_t)K), b,
                        b + len > B + L ? B + L : b + len};
      ck_assert_int_eq(rescue_unitize_add(d, u[i].coder, u[i].category, u[i].b, u[i].e), 0);
    }
    ck_assert_int_eq(rescue_unitize_compute(d, &r), 0);
    kept = ref_merge(u, n);
    ck_assert_int_eq(r.units, kept);
    ck_assert_int_eq(r.merges, n - kept);
    for (i = 0; i < r.n_categories; i++) {
      const rescue_unitize_category_stat *c = &r.categories[i];
      double d_o, d_e;
      ref_category(u, kept, m, c->category, B, L, &d_o, &d_e);
      ck_assert_msg(close_rel(c->d_o, d_o) && close_rel(c->d_e, d_e),
                    "trial %d category %d: D_o %.17g / %.17g, D_e %.17g / %.17g", trial,
                    c->category, c->d_o, d_o, c->d_e, d_e);
      if (d_e > 0)
        ck_assert(close_rel(c->alpha, d_o == d_e ? 0 : 1 - d_o / d_e));
      so += d_o;
      se += d_e;
    }
    if (r.status == RESCUE_AGREE_OK)
      ck_assert_msg(close_rel(r.alpha, (double)(1 - so / se)), "trial %d: %.17g vs %.17g", trial,
                    r.alpha, (double)(1 - so / se));
    rescue_unitize_result_clear(&r);
    rescue_unitize_free(&d);
  }
}
END_TEST

/* ---- the command line ---- */

/* Run `rescue agree --input path --level unitizing <args...>`; returns the exit status. */
static int agree(char **out, char **err, const char *path, const char *a1, const char *a2,
                 const char *a3, const char *a4) {
  const char *argv[16] = {"agree", "--input", path, "--level", "unitizing", a1, a2, a3, a4, NULL};
  return tu_rescue_argv(argv, out, err);
}

/* The JSON report of a file on continuum (and grid, or NULL), parsed; the command succeeds. */
static json_t *report(const char *path, const char *continuum, const char *grid) {
  const char *argv[16] = {"agree",       "--input", path,     "--level", "unitizing",
                          "--continuum", continuum, "--json", NULL};
  char *out = NULL, *err = NULL;
  json_error_t je;
  json_t *j;
  int rc;
  if (grid) {
    argv[8] = "--grid";
    argv[9] = grid;
  }
  rc = tu_rescue_argv(argv, &out, &err);
  ck_assert_msg(rc == 0, "exit %d: %s", rc, err);
  ck_assert_str_eq(err, "");
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "not JSON: %s", out);
  free(out);
  free(err);
  return j;
}

/* The number at key of the category named name in a report. */
static double category_num(json_t *j, const char *name, const char *key) {
  size_t i;
  json_t *c;
  json_array_foreach(json_object_get(j, "categories"), i, c) {
    if (strcmp(json_string_value(json_object_get(c, "category")), name) == 0)
      return json_number_value(json_object_get(c, key));
  }
  ck_abort_msg("no category %s", name);
  return NAN;
}

START_TEST(test_cli_examples) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *p2004 = tu_path(dir, "k2004.tsv"), *p1995 = tu_path(dir, "k1995.tsv");
  const char *psec = tu_path(dir, "seconds.tsv");
  rescue_buf b = RESCUE_BUF_INIT;
  json_t *j;
  int i, n;

  /* 2004, columns in another order, an extra column, CRLF, a byte order mark */
  rescue_buf_puts(&b, "\xEF\xBB\xBF"
                      "category\tnote\tend\tcoder\tstart\r\n");
  for (i = 0; i < 9; i++)
    rescue_buf_printf(&b, "%s\tsome note\t%lld\t%s\t%lld\r\n", k2004[i].category,
                      (long long)k2004[i].e, k2004[i].coder, (long long)k2004[i].b);
  tu_write(p2004, b.s);
  j = report(p2004, "150,450", NULL);
  ASSERT_NEAR(category_num(j, "c", "alpha_u"), 0.7286, 1e-4);
  ASSERT_NEAR(category_num(j, "k", "alpha_u"), 1.0, 1e-4);
  ASSERT_NEAR(json_number_value(json_object_get(j, "alpha_u")), 0.8591, 5e-4);
  ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
  ck_assert_str_eq(json_string_value(json_object_get(j, "level")), "unitizing");
  ASSERT_NEAR(json_number_value(json_object_get(json_object_get(j, "continuum"), "grid")), 1, 0);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "continuum"), "steps")),
                   300);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "units_per_coder"), "2")),
                   5);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "merges")), 0);
  ck_assert(json_number_value(json_object_get(j, "d_o")) > 0);
  json_decref(j);

  /* the same in seconds: on the millisecond grid, the same steps and figures */
  rescue_buf_reset(&b);
  rescue_buf_puts(&b, "coder\tstart\tend\tcategory\n");
  for (i = 0; i < 9; i++)
    rescue_buf_printf(&b, "%s\t%.3f\t%.3f\t%s\n", k2004[i].coder, k2004[i].b / 1000.0,
                      k2004[i].e / 1000.0, k2004[i].category);
  tu_write(psec, b.s);
  j = report(psec, "0.15,0.45", NULL);
  ASSERT_NEAR(json_number_value(json_object_get(json_object_get(j, "continuum"), "grid")), 0.001,
              0);
  ASSERT_NEAR(json_number_value(json_object_get(json_object_get(j, "continuum"), "start")), 0.15,
              0);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "continuum"), "steps")),
                   300);
  ASSERT_NEAR(category_num(j, "c", "alpha_u"), 0.728598996805389, 1e-12);
  json_decref(j);
  /* --grid: a coarser grid (10 ms) rounds the times */
  j = report(psec, "0.15,0.45", "0.01");
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "continuum"), "steps")),
                   30);
  ASSERT_NEAR(json_number_value(json_object_get(json_object_get(j, "continuum"), "grid")), 0.01, 0);
  json_decref(j);

  /* 1995: the four examples as four categories of one file, on the fine grid */
  rescue_buf_reset(&b);
  rescue_buf_puts(&b, "coder\tstart\tend\tcategory\n");
  for (i = 0; i < 4; i++) {
    const example_1995 *x = &k1995[i];
    for (n = 0; n < x->n1; n++)
      rescue_buf_printf(&b, "1\t%d\t%d\t%s\n", x->u1[n][0] * 50000,
                        (x->u1[n][0] + x->u1[n][1]) * 50000, x->name);
    for (n = 0; n < x->n2; n++)
      rescue_buf_printf(&b, "2\t%d\t%d\t%s\n", x->u2[n][0] * 50000,
                        (x->u2[n][0] + x->u2[n][1]) * 50000, x->name);
  }
  tu_write(p1995, b.s);
  j = report(p1995, "0,1200000", NULL);
  for (i = 0; i < 4; i++)
    ck_assert_msg(fabs(category_num(j, k1995[i].name, "alpha_u") - k1995[i].alpha) <= 0.02,
                  "example %s: %.4f", k1995[i].name, category_num(j, k1995[i].name, "alpha_u"));
  json_decref(j);

  /* text and CSV */
  ck_assert_int_eq(agree(&out, &err, p2004, "--continuum", "150,450", NULL, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "continuum [150, 450) on a grid of 1: 300 steps; 2 coders, "
                                    "9 units (0 merged from overlapping rows)\n"
                                    "alpha-u 0.8587 (status ok; D_o 0.01444, D_e 0.1022)\n"));
  ck_assert_ptr_nonnull(strstr(out, "\nc         ok                 2        5       0   0.7286"));
  free(out);
  free(err);
  ck_assert_int_eq(agree(&out, &err, p2004, "--continuum", "150,450", "--format", "csv"), 0);
  ck_assert_ptr_nonnull(strstr(out, "category,status,coders,units,merges,alpha_u,d_o,d_e\r\n"
                                    ",ok,2,9,0,0.8586654052,"));
  ck_assert_ptr_nonnull(strstr(out, "\r\nk,ok,2,4,0,1,0,"));
  free(out);
  free(err);
  rescue_buf_clear(&b);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/* Overlapping rows of one coder are merged and counted in the report. */
START_TEST(test_cli_merges) {
  char *dir = tu_tmpdir();
  const char *p = tu_path(dir, "m.tsv");
  json_t *j;
  tu_write(p, "coder\tstart\tend\tcategory\n"
              "ann\t0\t5\tP1\nann\t3\t8\tP1\nann\t8\t9\tP1\nbob\t0\t8\tP1\nbob\t2\t4\tT\n");
  j = report(p, "0,10", NULL);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "rows")), 5);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "units")), 4);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "merges")), 1);
  ck_assert_int_eq(
      json_integer_value(json_object_get(json_object_get(j, "merges_per_coder"), "ann")), 1);
  ck_assert_int_eq(
      json_integer_value(json_object_get(json_object_get(j, "units_per_coder"), "ann")), 2);
  ASSERT_NEAR(category_num(j, "P1", "merges"), 1, 0);
  /* one coder's category T: bob's [2,4) inside ann's whole gap; 2 x 4 / (2 x 100) */
  ASSERT_NEAR(category_num(j, "T", "d_o"), 0.04, 1e-15);
  json_decref(j);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/* Identical segmentations, one coder, units at both ends, through the command. */
START_TEST(test_cli_edges) {
  char *dir = tu_tmpdir();
  const char *p = tu_path(dir, "e.tsv");
  json_t *j;
  tu_write(p, "coder\tstart\tend\tcategory\n"
              "ann\t0\t3\tP1\nann\t3\t7\tT\nann\t7\t10\tP1\n"
              "bob\t0\t3\tP1\nbob\t3\t7\tT\nbob\t7\t10\tP1\n");
  j = report(p, "0,10", NULL);
  ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
  ASSERT_NEAR(json_number_value(json_object_get(j, "alpha_u")), 1, 0);
  ASSERT_NEAR(category_num(j, "P1", "alpha_u"), 1, 0);
  ASSERT_NEAR(category_num(j, "T", "alpha_u"), 1, 0);
  json_decref(j);
  /* one coder: a result (exit 0) with status no_data and a null alpha-u */
  tu_write(p, "coder\tstart\tend\tcategory\nann\t0\t3\tP1\n");
  j = report(p, "0,10", NULL);
  ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "no_data");
  ck_assert(json_is_null(json_object_get(j, "alpha_u")));
  ck_assert_int_eq(json_array_size(json_object_get(j, "coders")), 1);
  json_decref(j);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/* A bad table: exit 1, "rescue: agree: file:line:column: what", nothing on stdout. */
static void bad_table(const char *dir, const char *text, const char *continuum, int line, int col,
                      const char *what) {
  const char *p = tu_path(dir, "bad.tsv");
  char want[4096], *out = NULL, *err = NULL;
  int rc;
  tu_write(p, text);
  snprintf(want, sizeof want, "rescue: agree: %s:%d:%d: %s\n", p, line, col, what);
  rc = agree(&out, &err, p, "--continuum", continuum, NULL, NULL);
  ck_assert_msg(rc == 1, "exit %d for %s", rc, text);
  ck_assert_str_eq(err, want);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
}

START_TEST(test_cli_bad_input) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *h = "coder\tstart\tend\tcategory\n";
  char t[512];
  bad_table(dir, "coder\tstart\tend\tkind\na\t1\t2\tx\n", "0,10", 1, 1,
            "the header names no 'category' column (a table of units needs the columns "
            "coder, start, end and category)");
  bad_table(dir, "", "0,10", 1, 1,
            "empty table: a header naming the columns coder, start, end and category comes "
            "first");
  bad_table(dir, "coder\tstart\tend\tcategory\tstart\n", "0,10", 1, 26,
            "a second 'start' column (the first is column 2)");
  snprintf(t, sizeof t, "%sa\t1\t2\tx\nb\t1\t2.5x\tx\n", h);
  bad_table(dir, t, "0,10", 3, 5, "end is not a number: '2.5x'");
  snprintf(t, sizeof t, "%s\xc3\xa9t\tnan\t2\tx\n", h);
  bad_table(dir, t, "0,10", 2, 4, "start is not a number: 'nan'");
  snprintf(t, sizeof t, "%sa\t1\t\tx\n", h);
  bad_table(dir, t, "0,10", 2, 5, "end is not a number: ''");
  snprintf(t, sizeof t, "%sa\t5\t5\tx\n", h);
  bad_table(dir, t, "0,10", 2, 5, "end 5 is not after start 5");
  snprintf(t, sizeof t, "%sa\t6\t5.5\tx\n", h);
  bad_table(dir, t, "0,10", 2, 5, "end 5.5 is not after start 6");
  snprintf(t, sizeof t, "%sa\t-1\t5\tx\n", h);
  bad_table(dir, t, "0,10", 2, 3, "the unit [-1, 5) is outside the continuum [0, 10)");
  snprintf(t, sizeof t, "%sa\t1\t10.5\tx\n", h);
  bad_table(dir, t, "0,10", 2, 5, "the unit [1, 10.5) is outside the continuum [0, 10)");
  snprintf(t, sizeof t, "%s\t1\t2\tx\n", h);
  bad_table(dir, t, "0,10", 2, 1, "blank coder");
  snprintf(t, sizeof t, "%sa\t1\t2\t\n", h);
  bad_table(dir, t, "0,10", 2, 7, "blank category");
  snprintf(t, sizeof t, "%sa\t1\t2\n", h);
  bad_table(dir, t, "0,10", 2, 6, "3 columns, but the header puts 'category' in column 4");
  snprintf(t, sizeof t, "%sa\t1.0001\t1.0002\tx\n", h);
  bad_table(dir, t, "0,10", 2, 10,
            "the unit is shorter than one step of the grid (0.001): its start and end round "
            "to the same step");

  /* usage errors: exit 2 */
  tu_write(tu_path(dir, "ok.tsv"), "coder\tstart\tend\tcategory\na\t1\t2\tx\n");
  ck_assert_int_eq(agree(&out, &err, tu_path(dir, "ok.tsv"), NULL, NULL, NULL, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: agree: --level unitizing needs --continuum "
                                    "<start>,<end>\n"));
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  ck_assert_int_eq(agree(&out, &err, tu_path(dir, "ok.tsv"), "--continuum", "5,1", NULL, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "--continuum expects <start>,<end> with start before end, "
                                    "not '5,1'"));
  free(out);
  free(err);
  ck_assert_int_eq(agree(&out, &err, tu_path(dir, "ok.tsv"), "--continuum", "0,10", "--ci", "5"),
                   2);
  free(out);
  free(err);
  ck_assert_int_eq(agree(&out, &err, tu_path(dir, "ok.tsv"), "--continuum", "0,10", "--grid", "0"),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "--grid expects a step > 0"));
  free(out);
  free(err);
  {
    const char *argv[] = {"agree",   "--input", tu_path(dir, "ok.tsv"),
                          "--level", "nominal", "--continuum",
                          "0,10",    NULL};
    ck_assert_int_eq(tu_rescue_argv(argv, &out, &err), 2);
    ck_assert_ptr_nonnull(strstr(err, "rescue: agree: --continuum applies to --input with "
                                      "--level unitizing\n"));
    free(out);
    free(err);
  }
  /* a missing file is a failure (exit 1), not a usage error */
  ck_assert_int_eq(agree(&out, &err, tu_path(dir, "none.tsv"), "--continuum", "0,10", NULL, NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: agree: "));
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("unitize");
  TCase *tc = tcase_create("unitize");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_krippendorff_2004);
  tcase_add_test(tc, test_krippendorff_1995);
  tcase_add_test(tc, test_identical);
  tcase_add_test(tc, test_merges);
  tcase_add_test(tc, test_edges);
  tcase_add_test(tc, test_refused);
  tcase_add_test(tc, test_out_of_memory);
  tcase_add_test(tc, test_random_against_definition);
  tcase_add_test(tc, test_cli_examples);
  tcase_add_test(tc, test_cli_merges);
  tcase_add_test(tc, test_cli_edges);
  tcase_add_test(tc, test_cli_bad_input);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
