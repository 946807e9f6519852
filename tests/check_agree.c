/*
** check_agree.c: the agreement engine: published values (Krippendorff's example at four
** levels, the krippendorff package example, MASI, kappas), every degenerate status, missing
** data, random data against Debian's NLTK / scikit-learn / statsmodels to 1e-9, the TSV
** reader's errors, the bootstrap, and corpus mode (views, coverage, model revisions).
*/
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define NA -1

/* Build a data set at level from vals[coder][unit] (NA = missing), numbers as values. */
static rescue_agree_data *matrix(rescue_agree_level level, int coders, int units, const int *vals) {
  rescue_agree_data *d = rescue_agree_data_new(level);
  int c, u;
  char name[16];
  ck_assert_ptr_nonnull(d);
  for (c = 0; c < coders; c++) {
    snprintf(name, sizeof name, "c%d", c + 1);
    ck_assert_int_eq(rescue_agree_coder(d, name), c);
  }
  for (u = 0; u < units; u++) {
    ck_assert_int_ge(rescue_agree_unit(d, -1), 0);
    for (c = 0; c < coders; c++) {
      int x = vals[c * units + u], v;
      if (x == NA)
        continue;
      v = rescue_agree_number(d, x);
      ck_assert_int_ge(v, 0);
      ck_assert_int_eq(rescue_agree_value(d, c, v), 0);
    }
  }
  return d;
}

static int close_to(double a, double b, double tol) {
  return fabs(a - b) <= tol * (fabs(b) > 1 ? fabs(b) : 1);
}

#define ASSERT_NEAR(a, b, tol)                                                                     \
  ck_assert_msg(close_to((a), (b), (tol)), "%s = %.15g, expected %.15g", #a, (double)(a),          \
                (double)(b))

/* Krippendorff's canonical example: 4 coders x 12 units with missing cells. */
static const int kripp[4 * 12] = {
    1,  2, 3, 3, 2, 1, 4, 1, 2, NA, NA, NA, /* A */
    1,  2, 3, 3, 2, 2, 4, 1, 2, 5,  NA, 3,  /* B */
    NA, 3, 3, 3, 2, 3, 4, 2, 2, 5,  1,  NA, /* C */
    1,  2, 3, 3, 2, 4, 4, 1, 2, 5,  1,  NA, /* D */
};

START_TEST(test_krippendorff_example) {
  static const struct {
    rescue_agree_level level;
    double alpha;
  } want[] = {{RESCUE_LEVEL_NOMINAL, 0.743},
              {RESCUE_LEVEL_ORDINAL, 0.815},
              {RESCUE_LEVEL_INTERVAL, 0.849},
              {RESCUE_LEVEL_RATIO, 0.797}};
  size_t i;
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    rescue_agree_data *d = matrix(want[i].level, 4, 12, kripp);
    rescue_agree_result r;
    double fast;
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    ck_assert_msg(fabs(r.alpha - want[i].alpha) < 0.0005, "%s: alpha %.6f, published %.3f",
                  rescue_agree_level_name(want[i].level), r.alpha, want[i].alpha);
    ck_assert_int_eq(r.units, 11); /* unit 12 has one value: it drops out */
    ck_assert_int_eq(r.units_single, 1);
    ck_assert_int_eq(r.pairable_values, 40);
    ck_assert_int_eq(rescue_agree_alpha(d, &fast), RESCUE_AGREE_OK);
    ASSERT_NEAR(fast, r.alpha, 1e-12);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
}
END_TEST

START_TEST(test_krippendorff_package_example) {
  static const int v[3 * 15] = {
      NA, NA, NA, NA, NA, 3,  4,  1,  2,  1, 1, 3, 3, NA, 3,  1, NA, 2, 1, 3, 3,  4, 3,
      NA, NA, NA, NA, NA, NA, NA, NA, NA, 2, 1, 3, 4, 4,  NA, 2, 1,  1, 3, 3, NA, 4,
  };
  rescue_agree_data *d = matrix(RESCUE_LEVEL_NOMINAL, 3, 15, v);
  double a;
  ck_assert_int_eq(rescue_agree_alpha(d, &a), RESCUE_AGREE_OK);
  ASSERT_NEAR(a, 0.691358, 1e-6);
  rescue_agree_data_free(&d);
  d = matrix(RESCUE_LEVEL_INTERVAL, 3, 15, v);
  ck_assert_int_eq(rescue_agree_alpha(d, &a), RESCUE_AGREE_OK);
  ASSERT_NEAR(a, 0.810845, 1e-6);
  rescue_agree_data_free(&d);
}
END_TEST

/* One unit, two coders, two sets: D_o is the distance itself. */
static double set_pair_distance(rescue_agree_level level, const char *const *a, int na,
                                const char *const *b, int nb) {
  rescue_agree_data *d = rescue_agree_data_new(level);
  rescue_agree_result r;
  size_t la[8], lb[8];
  int i, va, vb;
  double out;
  for (i = 0; i < na; i++)
    la[i] = strlen(a[i]);
  for (i = 0; i < nb; i++)
    lb[i] = strlen(b[i]);
  rescue_agree_coder(d, "x");
  rescue_agree_coder(d, "y");
  rescue_agree_unit(d, -1);
  va = rescue_agree_set(d, a, la, na);
  vb = rescue_agree_set(d, b, lb, nb);
  ck_assert_int_ge(va, 0);
  ck_assert_int_ge(vb, 0);
  rescue_agree_value(d, 0, va);
  rescue_agree_value(d, 1, vb);
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  out = r.d_o;
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
  return out;
}

START_TEST(test_set_distances) {
  const char *a[] = {"1", "2"}, *b[] = {"1", "2", "3", "4"}, *c[] = {"2", "5"}, *e[] = {"7"};
  const char *a2[] = {"2", "1", "2"};
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_MASI, a, 2, b, 4), 1 - (2.0 / 4) * (2.0 / 3), 1e-15);
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_MASI, a, 2, b, 4), 0.6667, 1e-4);
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_JACCARD, a, 2, b, 4), 0.5, 1e-15);
  /* overlap without containment: J = 1/3, M = 1/3 */
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_MASI, a, 2, c, 2), 1 - (1.0 / 3) * (1.0 / 3), 1e-15);
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_MASI, a, 2, e, 1), 1.0, 1e-15);
  /* order and repeats do not matter: the same set */
  ASSERT_NEAR(set_pair_distance(RESCUE_LEVEL_MASI, a, 2, a2, 3), 0.0, 1e-15);
}
END_TEST

START_TEST(test_kappas_known) {
  static const int two[2 * 9] = {1, 2, 4, 1, 2, 1, 1, 1, 2, 1, 2, 3, 1, 2, 2, 1, 1, 2};
  static const int three[3 * 9] = {1, 2, 4, 1, 2, 1, 1, 1, 2, 1, 2, 3, 1, 2,
                                   2, 1, 1, 2, 1, 2, 3, 1, 2, 1, 1, 2, 2};
  rescue_agree_data *d = matrix(RESCUE_LEVEL_NOMINAL, 2, 9, two);
  rescue_agree_result r;
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  ck_assert_int_eq(r.n_pairs, 1);
  ck_assert_msg(fabs(r.pairs[0].kappa - 0.633) < 0.0005, "cohen %f", r.pairs[0].kappa);
  ck_assert_msg(fabs(r.fleiss_kappa - 0.625) < 0.0005, "fleiss %f", r.fleiss_kappa);
  ck_assert_int_eq(r.complete_units, 9);
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
  d = matrix(RESCUE_LEVEL_NOMINAL, 3, 9, three);
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  ck_assert_msg(fabs(r.fleiss_kappa - 0.627) < 0.0005, "fleiss %f", r.fleiss_kappa);
  ck_assert_int_eq(r.n_pairs, 3);
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
}
END_TEST

START_TEST(test_degenerate) {
  rescue_agree_data *d;
  rescue_agree_result r;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  /* no pairable unit: each unit has one value */
  {
    static const int v[2 * 3] = {1, NA, 2, NA, 3, NA};
    d = matrix(RESCUE_LEVEL_NOMINAL, 2, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
    ck_assert(isnan(r.alpha));
    ck_assert_int_eq(r.units, 0);
    ck_assert_int_eq(r.units_single, 3);
    ck_assert(isnan(r.pairs[0].kappa));
    ck_assert_int_eq(r.pairs[0].units, 0);
    ck_assert_int_eq(r.pairs[0].skipped, 3);
    ck_assert(isnan(r.fleiss_kappa));
    rescue_jw_init(&w, &b);
    rescue_agree_result_json(d, &r, "f", &w);
    ck_assert_ptr_nonnull(strstr(b.s, "\"status\": \"no_data\""));
    ck_assert_ptr_nonnull(strstr(b.s, "\"alpha\": null"));
    ck_assert_ptr_nonnull(strstr(b.s, "\"fleiss_kappa\": null"));
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* no unit at all */
  d = rescue_agree_data_new(RESCUE_LEVEL_INTERVAL);
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
  /* every value identical: D_e = 0 */
  {
    static const int v[3 * 4] = {2, 2, 2, 2, 2, 2, NA, 2, 2, 2, 2, 2};
    rescue_agree_level lv[] = {RESCUE_LEVEL_NOMINAL, RESCUE_LEVEL_ORDINAL, RESCUE_LEVEL_INTERVAL,
                               RESCUE_LEVEL_RATIO};
    size_t i;
    for (i = 0; i < 4; i++) {
      d = matrix(lv[i], 3, 4, v);
      ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
      ck_assert_int_eq(r.status, RESCUE_AGREE_NO_VARIATION);
      ck_assert(isnan(r.alpha));
      ck_assert(isnan(r.fleiss_kappa)); /* p_e = 1 */
      ck_assert(isnan(r.pairs[0].kappa));
      ASSERT_NEAR(r.percent_agreement, 1.0, 1e-15);
      rescue_agree_result_clear(&r);
      rescue_agree_data_free(&d);
    }
  }
  /* perfect agreement with two distinct values: ok and 1 */
  {
    static const int v[2 * 4] = {1, 2, 1, 2, 1, 2, 1, 2};
    d = matrix(RESCUE_LEVEL_NOMINAL, 2, 4, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    ASSERT_NEAR(r.alpha, 1.0, 1e-15);
    ASSERT_NEAR(r.pairs[0].kappa, 1.0, 1e-15);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* ratio with mixed signs */
  {
    static const int v[2 * 3] = {-2, 2, 3, 1, 2, 3};
    d = matrix(RESCUE_LEVEL_RATIO, 2, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_INVALID_LEVEL);
    ck_assert(isnan(r.alpha));
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
    /* the same values at interval level are fine */
    d = matrix(RESCUE_LEVEL_INTERVAL, 2, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* zeros are fine at ratio level (0 and 0 are 0 apart) */
  {
    static const int v[2 * 3] = {0, 2, 3, 0, 2, 4};
    d = matrix(RESCUE_LEVEL_RATIO, 2, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    ck_assert(r.alpha > 0.5 && r.alpha < 1);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* one coder: nothing pairs */
  {
    static const int v[3] = {1, 2, 3};
    d = matrix(RESCUE_LEVEL_NOMINAL, 1, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_NO_DATA);
    ck_assert_int_eq(r.n_pairs, 0);
    ck_assert(isnan(r.fleiss_kappa));
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* no unit every coder coded: Fleiss and AC1 over the pairable units, like alpha */
  {
    static const int v[3 * 3] = {1, 2, NA, 1, NA, 3, NA, 2, 3};
    d = matrix(RESCUE_LEVEL_NOMINAL, 3, 3, v);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    ck_assert_int_eq(r.complete_units, 0);
    ASSERT_NEAR(r.fleiss_kappa, 1.0, 1e-15);
    ASSERT_NEAR(r.gwet_ac1, 1.0, 1e-15);
    ASSERT_NEAR(r.alpha, 1.0, 1e-15);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
  /* a coder gives a unit one value; the API refuses a second */
  d = rescue_agree_data_new(RESCUE_LEVEL_NOMINAL);
  rescue_agree_coder(d, "a");
  ck_assert_int_eq(rescue_agree_value(d, 0, 0), RESCUE_EINVAL); /* no unit yet */
  rescue_agree_unit(d, -1);
  ck_assert_int_eq(rescue_agree_value(d, 0, rescue_agree_label(d, "x", 1)), 0);
  ck_assert_int_eq(rescue_agree_value(d, 0, rescue_agree_label(d, "y", 1)), RESCUE_EEXISTS);
  ck_assert_int_eq(rescue_agree_set(d, NULL, NULL, 0), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_agree_number(d, NAN), RESCUE_EINVAL);
  rescue_agree_data_free(&d);
  rescue_buf_clear(&b);
}
END_TEST

/* Missing data: kappas skip (and count) units one of the pair did not code. */
START_TEST(test_missing_data_kappa) {
  static const int v[2 * 6] = {1, 2, 1, 2, NA, 1, 1, 2, 2, NA, 1, NA};
  rescue_agree_data *d = matrix(RESCUE_LEVEL_NOMINAL, 2, 6, v);
  rescue_agree_result r;
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  ck_assert_int_eq(r.pairs[0].units, 3);
  ck_assert_int_eq(r.pairs[0].skipped, 3);
  ck_assert_int_eq(r.units, 3);
  ck_assert_int_eq(r.units_single, 3);
  /* 3 units: (1,1) (2,2) (1,2): p_o = 2/3, p_e = (2*1 + 1*2)/9 = 4/9 */
  ASSERT_NEAR(r.pairs[0].kappa, (2.0 / 3 - 4.0 / 9) / (1 - 4.0 / 9), 1e-15);
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
}
END_TEST

/* Grouped alpha over all clusters equals alpha: the bootstrap's summation path is exact. */
START_TEST(test_groups_and_bootstrap) {
  rescue_agree_level lv[] = {RESCUE_LEVEL_NOMINAL, RESCUE_LEVEL_ORDINAL, RESCUE_LEVEL_INTERVAL,
                             RESCUE_LEVEL_RATIO,   RESCUE_LEVEL_MASI,    RESCUE_LEVEL_JACCARD};
  const char *names[] = {"a", "b", "c", "d"};
  size_t i;
  for (i = 0; i < sizeof lv / sizeof lv[0]; i++) {
    rescue_agree_data *d = rescue_agree_data_new(lv[i]);
    rescue_agree_opts o = {0};
    rescue_agree_result r, r2, r3;
    unsigned s = 12345;
    int u, c, g;
    int set = lv[i] == RESCUE_LEVEL_MASI || lv[i] == RESCUE_LEVEL_JACCARD;
    for (c = 0; c < 3; c++)
      rescue_agree_coder(d, names[c]);
    for (u = 0; u < 300; u++) {
      char cl[16];
      snprintf(cl, sizeof cl, "s%d", u / 10);
      g = rescue_agree_cluster(d, cl, "only");
      rescue_agree_unit(d, g);
      for (c = 0; c < 3; c++) {
        int v;
        s = s * 1103515245 + 12345;
        if ((s >> 16) % 7 == 0)
          continue; /* missing */
        if (set) {
          const char *el[4];
          size_t len[4];
          int k, n = 0;
          for (k = 0; k < 4; k++)
            if ((s >> (20 + k)) & 1 || (k == 0 && u % 2)) {
              el[n] = names[k];
              len[n++] = 1;
            }
          if (!n)
            continue;
          v = rescue_agree_set(d, el, len, n);
        } else {
          v = rescue_agree_number(d, 1 + (u % 4 + (int)((s >> 16) % 3)) % 5);
        }
        ck_assert_int_ge(v, 0);
        rescue_agree_value(d, c, v);
      }
    }
    o.by = RESCUE_BY_STRATUM;
    o.ci_replicates = 200;
    o.seed = 7;
    ck_assert_int_eq(rescue_agree_compute(d, &o, &r), 0);
    ck_assert_int_eq(r.status, RESCUE_AGREE_OK);
    ck_assert_int_eq(r.n_groups, 1);
    ck_assert_str_eq(r.groups[0].name, "only");
    ASSERT_NEAR(r.groups[0].alpha, r.alpha, 1e-12);
    ck_assert_int_eq(r.groups[0].units, r.units);
    ck_assert_int_eq(r.groups[0].pairable_values, r.pairable_values);
    ck_assert(r.has_ci);
    ck_assert_str_eq(r.ci_scheme, "sample");
    ck_assert_int_eq(r.ci_replicates, 200);
    ck_assert_int_eq(r.ci_defined, 200);
    ck_assert_msg(r.ci_low <= r.alpha && r.alpha <= r.ci_high, "%s: %f not in [%f, %f]",
                  rescue_agree_level_name(lv[i]), r.alpha, r.ci_low, r.ci_high);
    ck_assert(r.ci_high - r.ci_low > 0.001);
    /* the same seed gives the same interval; another seed another one */
    ck_assert_int_eq(rescue_agree_compute(d, &o, &r2), 0);
    ck_assert(r2.ci_low == r.ci_low && r2.ci_high == r.ci_high);
    o.seed = 8;
    o.ci_unit = 1;
    o.by = RESCUE_BY_CLUSTER;
    ck_assert_int_eq(rescue_agree_compute(d, &o, &r3), 0);
    ck_assert_str_eq(r3.ci_scheme, "unit");
    ck_assert(r3.ci_low != r.ci_low || r3.ci_high != r.ci_high);
    ck_assert_int_eq(r3.n_groups, 30);
    {
      long units = 0;
      for (g = 0; g < r3.n_groups; g++)
        units += r3.groups[g].units;
      ck_assert_int_eq(units, r.units);
    }
    rescue_agree_result_clear(&r);
    rescue_agree_result_clear(&r2);
    rescue_agree_result_clear(&r3);
    rescue_agree_data_free(&d);
  }
}
END_TEST

/* ---- random data against the Python references ---- */

static const char py_reference[] =
    "import json, sys, itertools\n"
    "from nltk.metrics.agreement import AnnotationTask\n"
    "from nltk.metrics.distance import binary_distance, interval_distance, jaccard_distance\n"
    "from sklearn.metrics import cohen_kappa_score\n"
    "from statsmodels.stats.inter_rater import fleiss_kappa, aggregate_raters\n"
    "def read(path, sets):\n"
    "    rows = []\n"
    "    for line in open(path):\n"
    "        u, c, v = line.rstrip('\\n').split('\\t')\n"
    "        if v == '': continue\n"
    "        rows.append((c, u, frozenset(json.loads(v)) if sets else float(v)))\n"
    "    return rows\n"
    "def alpha(rows, dist):\n"
    "    try: return AnnotationTask(rows, distance=dist).alpha()\n"
    "    except ZeroDivisionError: return None\n"
    "def masi_exact(a, b):\n"
    "    j = len(a & b) / len(a | b)\n"
    "    m = 1 if a == b else 2/3 if (a <= b or b <= a) else 1/3 if a & b else 0\n"
    "    return 1 - j * m\n"
    "def alpha_pairs(rows, dist):\n"
    "    units = {}\n"
    "    for c, u, v in rows: units.setdefault(u, []).append(v)\n"
    "    vals = [v for vs in units.values() if len(vs) > 1 for v in vs]\n"
    "    n = len(vals)\n"
    "    do = sum(dist(a, b) / (len(vs) - 1) for vs in units.values() if len(vs) > 1\n"
    "             for i, a in enumerate(vs) for j, b in enumerate(vs) if i != j)\n"
    "    de = sum(dist(a, b) for i, a in enumerate(vals) for j, b in enumerate(vals) if i != j)\n"
    "    return 1 - (n - 1) * do / de\n"
    "out = {}\n"
    "for spec in sys.argv[1:]:\n"
    "    path, kind = spec.split(':')\n"
    "    r = {}\n"
    "    if kind == 'sets':\n"
    "        rows = read(path, True)\n"
    "        r['jaccard'] = alpha(rows, jaccard_distance)\n"
    "        r['masi'] = alpha_pairs(rows, masi_exact)\n"
    "        elems = sorted(set().union(*[v for _, _, v in rows]))\n"
    "        r['labels'] = {e: alpha([(c, u, e in v) for c, u, v in rows], binary_distance)\n"
    "                       for e in elems}\n"
    "    else:\n"
    "        rows = read(path, False)\n"
    "        r['nominal'] = alpha(rows, binary_distance)\n"
    "        r['interval'] = alpha(rows, interval_distance)\n"
    "        labels = sorted(set(v for _, _, v in rows))\n"
    "        r['labels'] = {str(int(l)): alpha([(c, u, v == l) for c, u, v in rows], "
    "binary_distance)\n"
    "                       for l in labels}\n"
    "        coders = sorted(set(c for c, _, _ in rows))\n"
    "        by = {}\n"
    "        for c, u, v in rows: by.setdefault(u, {})[c] = v\n"
    "        full = [u for u in sorted(by) if len(by[u]) == len(coders)]\n"
    "        pair = [list(by[u].values()) for u in sorted(by) if len(by[u]) >= 2]\n"
    "        if len(full) == len(by):\n"
    "            mat = [[by[u][c] for c in coders] for u in full]\n"
    "            r['fleiss'] = fleiss_kappa(aggregate_raters(mat)[0], method='fleiss')\n"
    "        elif pair:\n"
    "            pa = sum(sum(vs.count(k) * (vs.count(k) - 1) for k in set(vs))\n"
    "                     / (len(vs) * (len(vs) - 1)) for vs in pair) / len(pair)\n"
    "            pi = {k: sum(vs.count(k) / len(vs) for vs in pair) / len(pair) for k in labels}\n"
    "            pe = sum(x * x for x in pi.values())\n"
    "            r['fleiss'] = (pa - pe) / (1 - pe)\n"
    "            pg = sum(x * (1 - x) for x in pi.values()) / (len(labels) - 1)\n"
    "            r['ac1'] = (pa - pg) / (1 - pg)\n"
    "        r['cohen'] = {}\n"
    "        dom = list(range(int(max(labels)) + 1))\n"
    "        for a, b in itertools.combinations(coders, 2):\n"
    "            both = [u for u in sorted(by) if a in by[u] and b in by[u]]\n"
    "            x = [int(by[u][a]) for u in both]; y = [int(by[u][b]) for u in both]\n"
    "            r['cohen'][a + '|' + b] = [cohen_kappa_score(x, y, labels=dom),\n"
    "                cohen_kappa_score(x, y, labels=dom, weights='linear'),\n"
    "                cohen_kappa_score(x, y, labels=dom, weights='quadratic')]\n"
    "    out[path] = r\n"
    "print(json.dumps(out))\n";

static unsigned long long rs = 0x243F6A8885A308D3ULL;
static unsigned rnd(unsigned n) {
  rs ^= rs << 13;
  rs ^= rs >> 7;
  rs ^= rs << 17;
  return (unsigned)((rs >> 20) % n);
}

/* Random table: units x coders, values 0..k-1 with some agreement, share missing in %. */
static void write_random(const char *path, int units, int coders, int k, int missing) {
  FILE *f = fopen(path, "w");
  int u, c;
  ck_assert_ptr_nonnull(f);
  for (u = 0; u < units; u++) {
    int truth = (int)rnd((unsigned)k);
    for (c = 0; c < coders; c++) {
      int v = rnd(100) < 60 ? truth : (int)rnd((unsigned)k);
      if ((int)rnd(100) < missing)
        fprintf(f, "u%d\tc%d\t\n", u, c);
      else
        fprintf(f, "u%d\tc%d\t%d\n", u, c, v);
    }
  }
  fclose(f);
}

static void write_random_sets(const char *path, int units, int coders) {
  static const char *el[] = {"Alan", "Evelyn", "Therapist", "Couple"};
  FILE *f = fopen(path, "w");
  int u, c, e;
  ck_assert_ptr_nonnull(f);
  for (u = 0; u < units; u++) {
    unsigned truth = 1 + rnd(15);
    for (c = 0; c < coders; c++) {
      unsigned m = rnd(100) < 55 ? truth : rnd(16);
      int first = 1;
      if (!m || rnd(100) < 10)
        continue;
      fprintf(f, "u%d\tc%d\t[", u, c);
      for (e = 0; e < 4; e++)
        if (m >> e & 1) {
          fprintf(f, "%s\"%s\"", first ? "" : ", ", el[e]);
          first = 0;
        }
      fprintf(f, "]\n");
    }
  }
  fclose(f);
}

/* Run the reference script; returns its parsed JSON output. */
static json_t *run_python(const char *dir, const char *args) {
  char cmd[8192], *out;
  FILE *p;
  size_t n = 0;
  json_t *j;
  json_error_t je;
  tu_write(tu_path(dir, "ref.py"), py_reference);
  snprintf(cmd, sizeof cmd, "/usr/bin/python3 %s %s 2>&1", tu_path(dir, "ref.py"), args);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  out = malloc(1 << 20);
  n = fread(out, 1, (1 << 20) - 1, p);
  out[n] = 0;
  ck_assert_msg(pclose(p) == 0, "the Python reference (nltk, sklearn, statsmodels) failed: %s",
                out);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "reference output: %s", out);
  free(out);
  return j;
}

static rescue_agree_data *read_tsv(const char *path, rescue_agree_level level) {
  rescue_agree_data *d = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  ck_assert_msg(rescue_agree_read_tsv(path, level, &d, &err) == 0, "%s", err.msg);
  return d;
}

static double alpha_of(const char *path, rescue_agree_level level) {
  rescue_agree_data *d = read_tsv(path, level);
  rescue_agree_result r;
  double a;
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  a = r.alpha;
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
  return a;
}

/* Compare labels: name -> alpha (null in Python = undefined here). */
static void check_labels(const rescue_agree_result *r, json_t *labels) {
  const char *key;
  json_t *v;
  int seen = 0;
  json_object_foreach(labels, key, v) {
    int i, found = 0;
    for (i = 0; i < r->n_labels; i++)
      if (strcmp(r->labels[i].name, key) == 0) {
        found = 1;
        if (json_is_null(v))
          ck_assert_msg(isnan(r->labels[i].alpha), "label %s: %f, Python undefined", key,
                        r->labels[i].alpha);
        else
          ASSERT_NEAR(r->labels[i].alpha, json_real_value(v), 1e-9);
      }
    ck_assert_msg(found, "label %s missing", key);
    seen++;
  }
  ck_assert_int_ge(seen, 2);
}

START_TEST(test_random_against_python) {
  char *dir = tu_tmpdir();
  char args[4096];
  const char *files[] = {"complete.tsv", "missing.tsv", "binary.tsv", "wide.tsv"};
  json_t *ref, *sets;
  size_t i;
  write_random(tu_path(dir, files[0]), 400, 3, 5, 0);
  write_random(tu_path(dir, files[1]), 300, 4, 6, 25);
  write_random(tu_path(dir, files[2]), 250, 2, 2, 0);
  write_random(tu_path(dir, files[3]), 200, 6, 11, 10);
  write_random_sets(tu_path(dir, "sets.tsv"), 300, 3);
  snprintf(args, sizeof args, "%s:n %s:n %s:n %s:n %s:sets", tu_path(dir, files[0]),
           tu_path(dir, files[1]), tu_path(dir, files[2]), tu_path(dir, files[3]),
           tu_path(dir, "sets.tsv"));
  ref = run_python(dir, args);
  for (i = 0; i < 4; i++) {
    const char *path = tu_path(dir, files[i]);
    json_t *r = json_object_get(ref, path), *cohen;
    rescue_agree_data *d;
    rescue_agree_result res;
    const char *key;
    json_t *v;
    ck_assert_ptr_nonnull(r);
    ASSERT_NEAR(alpha_of(path, RESCUE_LEVEL_NOMINAL),
                json_real_value(json_object_get(r, "nominal")), 1e-9);
    ASSERT_NEAR(alpha_of(path, RESCUE_LEVEL_INTERVAL),
                json_real_value(json_object_get(r, "interval")), 1e-9);
    d = read_tsv(path, RESCUE_LEVEL_ORDINAL);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &res), 0);
    if (json_object_get(r, "fleiss"))
      ASSERT_NEAR(res.fleiss_kappa, json_real_value(json_object_get(r, "fleiss")), 1e-9);
    else
      ck_assert(isnan(res.fleiss_kappa));
    if (json_object_get(r, "ac1")) /* missing values: the pairable units' shares (by hand) */
      ASSERT_NEAR(res.gwet_ac1, json_real_value(json_object_get(r, "ac1")), 1e-9);
    check_labels(&res, json_object_get(r, "labels"));
    cohen = json_object_get(r, "cohen");
    ck_assert_int_eq((int)json_object_size(cohen), res.n_pairs);
    json_object_foreach(cohen, key, v) {
      int p, found = 0;
      for (p = 0; p < res.n_pairs; p++) {
        char name[64];
        snprintf(name, sizeof name, "%s|%s", rescue_agree_coder_name(d, res.pairs[p].a),
                 rescue_agree_coder_name(d, res.pairs[p].b));
        if (strcmp(name, key) != 0)
          continue;
        found = 1;
        ASSERT_NEAR(res.pairs[p].kappa, json_real_value(json_array_get(v, 0)), 1e-9);
        ASSERT_NEAR(res.pairs[p].kappa_linear, json_real_value(json_array_get(v, 1)), 1e-9);
        ASSERT_NEAR(res.pairs[p].kappa_quadratic, json_real_value(json_array_get(v, 2)), 1e-9);
      }
      ck_assert_msg(found, "pair %s", key);
    }
    rescue_agree_result_clear(&res);
    rescue_agree_data_free(&d);
  }
  sets = json_object_get(ref, tu_path(dir, "sets.tsv"));
  {
    rescue_agree_data *d = read_tsv(tu_path(dir, "sets.tsv"), RESCUE_LEVEL_MASI);
    rescue_agree_result res;
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &res), 0);
    ASSERT_NEAR(res.alpha, json_real_value(json_object_get(sets, "masi")), 1e-9);
    ASSERT_NEAR(res.alpha_other, json_real_value(json_object_get(sets, "jaccard")), 1e-9);
    check_labels(&res, json_object_get(sets, "labels"));
    rescue_agree_result_clear(&res);
    rescue_agree_data_free(&d);
  }
  ASSERT_NEAR(alpha_of(tu_path(dir, "sets.tsv"), RESCUE_LEVEL_JACCARD),
              json_real_value(json_object_get(sets, "jaccard")), 1e-9);
  json_decref(ref);
  free(dir);
}
END_TEST

/* Gwet's AC1 and percent agreement by hand on a small complete table. */
START_TEST(test_ac1_by_hand) {
  /* 3 coders, 4 units, categories {1, 2, 3} */
  static const int v[3 * 4] = {1, 1, 2, 3, 1, 2, 2, 3, 1, 1, 2, 1};
  rescue_agree_data *d = matrix(RESCUE_LEVEL_NOMINAL, 3, 4, v);
  rescue_agree_result r;
  /* per unit agreeing pairs / 3: u1 3/3, u2 1/3, u3 3/3, u4 1/3 -> pa = 2/3 */
  /* shares: 1: 6/12, 2: 4/12, 3: 2/12; pe = sum p(1-p) / (Q - 1) */
  double p1 = 6.0 / 12, p2 = 4.0 / 12, p3 = 2.0 / 12;
  double pa = 2.0 / 3, pe = (p1 * (1 - p1) + p2 * (1 - p2) + p3 * (1 - p3)) / 2;
  double fe = p1 * p1 + p2 * p2 + p3 * p3;
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  ASSERT_NEAR(r.percent_agreement, pa, 1e-15);
  ASSERT_NEAR(r.gwet_ac1, (pa - pe) / (1 - pe), 1e-15);
  ASSERT_NEAR(r.fleiss_kappa, (pa - fe) / (1 - fe), 1e-15);
  rescue_agree_result_clear(&r);
  /* a declared but unused category raises Q */
  ck_assert_int_ge(rescue_agree_number(d, 9), 0);
  ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
  pe = (p1 * (1 - p1) + p2 * (1 - p2) + p3 * (1 - p3)) / 3;
  ASSERT_NEAR(r.gwet_ac1, (pa - pe) / (1 - pe), 1e-15);
  rescue_agree_result_clear(&r);
  rescue_agree_data_free(&d);
  /*
  ** 3 coders, one unit of four coded by all three (each sample went to two or three):
  ** units {1,1} {1,2,2} {2,2} {3,3}. p_a = (1 + 1/3 + 1 + 1) / 4 = 5/6; pi_1 = (1 + 1/3) / 4
  ** = 1/3, pi_2 = (2/3 + 1) / 4 = 5/12, pi_3 = 1/4. Fleiss: p_e = 1/9 + 25/144 + 1/16 = 25/72,
  ** kappa = (5/6 - 25/72) / (47/72) = 35/47. AC1: p_e = (2/9 + 35/144 + 3/16) / 2 = 47/144,
  ** AC1 = (5/6 - 47/144) / (97/144) = 73/97.
  */
  {
    static const int w[3 * 4] = {1, 1, 2, NA, 1, 2, NA, 3, NA, 2, 2, 3};
    d = matrix(RESCUE_LEVEL_NOMINAL, 3, 4, w);
    ck_assert_int_eq(rescue_agree_compute(d, NULL, &r), 0);
    ck_assert_int_eq(r.complete_units, 1);
    ASSERT_NEAR(r.percent_agreement, 5.0 / 6, 1e-15);
    ASSERT_NEAR(r.fleiss_kappa, 35.0 / 47, 1e-15);
    ASSERT_NEAR(r.gwet_ac1, 73.0 / 97, 1e-15);
    rescue_agree_result_clear(&r);
    rescue_agree_data_free(&d);
  }
}
END_TEST

/* ---- the TSV reader and the command line ---- */

static void tsv_error(const char *dir, const char *text, const char *level, const char *want) {
  const char *path = tu_path(dir, "bad.tsv");
  char *out = NULL, *err = NULL;
  int rc;
  tu_write(path, text);
  rc = tu_rescue(&out, &err, "agree", "--input", path, "--level", level, NULL);
  ck_assert_msg(rc == 1, "exit %d for %s", rc, text);
  ck_assert_msg(strstr(err, want) != NULL, "got '%s', want '%s'", err, want);
  ck_assert_msg(strncmp(err, "rescue: agree: ", 15) == 0, "%s", err);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
}

START_TEST(test_tsv_errors) {
  char *dir = tu_tmpdir();
  char want[4096];
  snprintf(want, sizeof want, "%s:2:5: expected 3 tab-separated columns", tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t1\nu1\tb\n", "nominal", want);
  snprintf(want, sizeof want, "%s:1:7: more than 3 columns", tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t1\tx\n", "nominal", want);
  snprintf(want, sizeof want, "%s:3:6: expected a number at this level, not 'abc'",
           tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t1\nu1\tb\t2\nu\xc3\xa9\tb\tabc\n", "interval", want);
  snprintf(want, sizeof want,
           "%s:3:1: coder 'a' gave unit 'u1' a second value (the first is on "
           "line 1)",
           tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t1\nu2\ta\t2\nu1\ta\t3\n", "nominal", want);
  /* line numbers found again past a mark, a header, blank lines, CRLF and missing values */
  snprintf(want, sizeof want,
           "%s:8:1: coder 'a' gave unit 'u1' a second value (the first is on "
           "line 3)",
           tu_path(dir, "bad.tsv"));
  tsv_error(dir,
            "\xef\xbb\xbfunit\tcoder\tvalue\r\n\r\nu1\ta\tx\r\nu2\tb\t\r\nu2\ta\ty\r\n\nu1\tb\t"
            "z\r\nu1\ta\tw\r\nu2\ta\tq\r\n",
            "nominal", want);
  /* unit by unit (a second value within its unit), then a unit again later */
  snprintf(want, sizeof want,
           "%s:4:1: coder 'b' gave unit 'u2' a second value (the first is on "
           "line 3)",
           tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t1\nu1\tb\t1\nu2\tb\t2\nu2\tb\t2\nu1\tc\t3\nu1\tc\t4\n", "nominal", want);
  tsv_error(dir, "u1\ta\t1\nu1\tb\t1\nu2\tb\t2\nu2\tb\t2\n", "nominal",
            "4:1: coder 'b' gave unit 'u2' a second value (the first is on line 3)");
  snprintf(want, sizeof want, "%s:1:1: empty unit", tu_path(dir, "bad.tsv"));
  tsv_error(dir, "\ta\t1\n", "nominal", want);
  snprintf(want, sizeof want, "%s:1:4: empty coder", tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\t\t1\n", "nominal", want);
  snprintf(want, sizeof want, "%s:1:10: expected a JSON array of strings", tu_path(dir, "bad.tsv"));
  tsv_error(dir, "u1\ta\t[\"x\"\n", "masi", want);
  tsv_error(dir, "u1\ta\t\"x\"\n", "masi", "expected a JSON array of strings, not '\"x\"'");
  tsv_error(dir, "u1\ta\t[1]\n", "jaccard", "set elements must be strings");
  tsv_error(dir, "u1\ta\tx\xff\n", "nominal", "1:7: invalid UTF-8");
  tsv_error(dir, "u1\ta\t0x10\n", "ratio", "expected a number");
  {
    char *out = NULL, *err = NULL;
    ck_assert_int_eq(
        tu_rescue(&out, &err, "agree", "--input", "/nonexistent/x.tsv", "--level", "nominal", NULL),
        1);
    ck_assert_ptr_nonnull(strstr(err, "cannot open '/nonexistent/x.tsv'"));
    free(out);
    free(err);
  }
  free(dir);
}
END_TEST

START_TEST(test_cli_table) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *path = tu_path(dir, "k.tsv");
  json_t *j, *f;
  json_error_t je;
  FILE *fp = fopen(path, "w");
  int c, u;
  fputs("unit\tcoder\tvalue\r\n", fp);
  for (c = 0; c < 4; c++)
    for (u = 0; u < 12; u++)
      if (kripp[c * 12 + u] != NA)
        fprintf(fp, "unit %d\t%c\t%d\n", u, 'A' + c, kripp[c * 12 + u]);
      else if (u == 11)
        fprintf(fp, "unit %d\t%c\t\n", u, 'A' + c);
  fprintf(fp, "\n");
  fclose(fp);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", path, "--level", "interval", "--json",
                             "--ci", "100", "--seed", "3", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  ck_assert_str_eq(json_string_value(json_object_get(j, "input")), path);
  f = json_array_get(json_object_get(j, "fields"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(f, "level")), "interval");
  ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "ok");
  ck_assert(fabs(json_real_value(json_object_get(f, "alpha")) - 0.849) < 0.0005);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 11);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "pairable_values")), 40);
  ck_assert_int_eq((int)json_array_size(json_object_get(f, "coders")), 4);
  ck_assert_int_eq((int)json_array_size(json_object_get(f, "pairwise_cohen_kappa")), 6);
  ck_assert_int_eq((int)json_array_size(json_object_get(f, "pairwise_weighted_kappa")), 12);
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(f, "ci"), "scheme")), "unit");
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "ci"), "seed")), 3);
  ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(f, "ci"), "replicates")),
                   100);
  json_decref(j);
  free(out);
  free(err);
  /* readable report */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", path, "--level", "nominal", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "value (nominal): alpha 0.7434  tentative (status ok)"));
  free(out);
  free(err);
  /* usage errors */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", path, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: agree: table mode needs --level"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", path, "--level", "fuzzy", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown level 'fuzzy'"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", "x.db", "--input", path, "--level", "nominal", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "either <db> or --input"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", path, "--level", "nominal", "--by",
                             "scenario", NULL),
                   2);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", "--input", path, "--level", "nominal", "--ci", "0", NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "-h", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "usage: rescue agree <db>"));
  free(out);
  free(err);
  /* a non-ok status is a result: exit 0 */
  tu_write(tu_path(dir, "same.tsv"), "u1\ta\tx\nu1\tb\tx\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", tu_path(dir, "same.tsv"), "--level",
                             "nominal", "--json", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "\"status\": \"no_variation\", "));
  ck_assert_ptr_nonnull(strstr(out, "\"alpha\": null"));
  free(out);
  free(err);
  free(dir);
}
END_TEST

/* ---- corpus mode ---- */

/* Row i (0-based) of the couple sample of sample_line. */
static void row_json(rescue_buf *b, int i, const char *utt, const char *targets, int intensity) {
  static const char *speakers[] = {"Ann", "Therapist", "Bo", "Ann"};
  rescue_buf_printf(
      b,
      "{\"start_time\": %d.0, \"end_time\": %d.5, \"primary_speaker\": \"%s\", "
      "\"target\": %s, \"dialogue_cleaned\": \"line %d\", \"utterance_type\": \"%s\", "
      "\"background_dialogue\": [], \"tone_of_voice\": \"calm\", \"body_posture\": [], "
      "\"facial_expressions\": [], \"self_directed_behavior\": [], "
      "\"interaction_behavior\": [], \"internal_emotion\": [{\"person\": \"%s\", "
      "\"emotion_description\": \"tense\", \"intensity\": %d}], \"viewpoints_attitudes\": [], "
      "\"support_strategy\": [], \"row_index\": %d}",
      i * 2, i * 2 + 1, speakers[i], targets, i + 1, utt, speakers[i], intensity, i + 1);
}

/* A couple sample line with 4 rows; utt[i], targets and an intensity per row vary. */
static void sample_line(rescue_buf *b, const char *id, const char *const *utt,
                        const char *const *targets, const int *intensity) {
  int i;
  rescue_buf_printf(b, "{\"sample_id\": \"%s\", \"rows\": [", id);
  for (i = 0; i < 4; i++) {
    rescue_buf_puts(b, i ? ", " : "");
    row_json(b, i, utt[i], targets[i], intensity[i]);
  }
  rescue_buf_puts(b, "]}\n");
}

START_TEST(test_corpus_mode) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, copy[4096];
  const char *t1[] = {"[\"Therapist\"]", "[\"Ann\"]", "[\"Ann\"]", "[\"Bo\"]"};
  const char *t2[] = {"[\"Therapist\"]", "[\"Ann\", \"Bo\"]", "[\"Ann\"]", "[\"Bo\"]"};
  const char *u_model[] = {"accusation", "", "defense", "request"};
  const char *u_ann[] = {"accusation", "", "defense", "disclosure"};
  const char *u_bob[] = {"defense", "", "defense", "disclosure"};
  const int i_model[] = {5, 3, 6, 2}, i_ann[] = {5, 3, 7, 2}, i_bob[] = {6, 3, 7, 2};
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_buf b = RESCUE_BUF_INIT;
  char *dir = strdup(db);
  int64_t id;
  json_t *j, *fields, *f, *rev;
  json_error_t je;
  size_t i;
  *strrchr(dir, '/') = 0;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_annotator_id(st, "gpt", "model", 1, &id), 0);
  rescue_store_close(&st);
  sample_line(&b, "g1/s1", u_model, t1, i_model);
  sample_line(&b, "g2/s2", u_model, t1, i_model);
  tu_write(tu_path(dir, "model.jsonl"), b.s);
  rescue_buf_reset(&b);
  sample_line(&b, "g1/s1", u_ann, t2, i_ann);
  sample_line(&b, "g2/s2", u_ann, t1, i_ann);
  tu_write(tu_path(dir, "ann.jsonl"), b.s);
  rescue_buf_reset(&b);
  sample_line(&b, "g1/s1", u_bob, t2, i_bob);
  tu_write(tu_path(dir, "bob.jsonl"), b.s);
  /* people import under registered names */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "model.jsonl"), "--annotator", "gpt", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann.jsonl"), "--annotator", "ann", NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bob.jsonl"), "--annotator", "bob", NULL),
      0);
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, "", 0);
  {
    size_t n;
    char *bytes = tu_read(db, &n);
    tu_write_n(copy, bytes, n);
    free(bytes);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--json", "--by", "sample", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  /* the model is not a coder by default; bob covered one sample, ann two */
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "coders")), 2);
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "coders"), 0)), "ann");
  ck_assert_int_eq(json_integer_value(json_object_get(j, "samples")), 2);
  fields = json_object_get(j, "fields");
  ck_assert_int_eq((int)json_array_size(fields), 15);
  for (i = 0; i < json_array_size(fields); i++) {
    const char *name;
    f = json_array_get(fields, i);
    name = json_string_value(json_object_get(f, "field"));
    ck_assert_str_eq(name, rescue_agree_fields[i]);
    if (strcmp(name, "utterance_type") == 0) {
      /* 3 client rows in g1/s1 pair; the therapist row is missing; g2/s2 has ann only */
      ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 3);
      ck_assert_int_eq(json_integer_value(json_object_get(f, "units_single")), 3);
      ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "ok");
      ck_assert_ptr_nonnull(json_object_get(json_object_get(f, "labels"), "withdrawal"));
      ck_assert_ptr_nonnull(json_object_get(json_object_get(f, "by"), "g1/s1"));
      ck_assert_str_eq(json_string_value(json_object_get(
                           json_object_get(json_object_get(f, "by"), "g2/s2"), "status")),
                       "no_data");
    } else if (strcmp(name, "target") == 0) {
      ck_assert_str_eq(json_string_value(json_object_get(f, "level")), "masi");
      /* ann and bob gave the same (varied) targets on g1/s1 */
      ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "ok");
      ck_assert(json_real_value(json_object_get(f, "alpha")) == 1.0);
      ck_assert(json_real_value(json_object_get(f, "alpha_jaccard")) == 1.0);
      ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 4);
    } else if (strcmp(name, "emotion_intensity") == 0) {
      ck_assert_str_eq(json_string_value(json_object_get(f, "level")), "interval");
      ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 4);
      ck_assert_ptr_nonnull(json_object_get(f, "pairwise_weighted_kappa"));
    } else if (strcmp(name, "support_strategy") == 0) {
      ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "no_data");
    } else if (strcmp(name, "tone_of_voice") == 0) {
      ck_assert_str_eq(json_string_value(json_object_get(f, "level")), "text");
      ck_assert(json_real_value(json_object_get(f, "share_identical")) == 1.0);
    }
  }
  /* model revisions: gpt vs ann over 2 samples, gpt vs bob over 1 */
  rev = json_object_get(j, "model_revisions");
  ck_assert_int_eq((int)json_array_size(rev), 2);
  for (i = 0; i < 2; i++) {
    json_t *r = json_array_get(rev, i), *fl = json_object_get(r, "fields");
    size_t k;
    const char *human = json_string_value(json_object_get(r, "human"));
    ck_assert_str_eq(json_string_value(json_object_get(r, "model")), "gpt");
    ck_assert_int_eq(json_integer_value(json_object_get(r, "samples")),
                     strcmp(human, "ann") == 0 ? 2 : 1);
    for (k = 0; k < json_array_size(fl); k++) {
      json_t *c = json_array_get(fl, k);
      const char *fn = json_string_value(json_object_get(c, "field"));
      if (strcmp(fn, "utterance_type") == 0) {
        /* ann changed row 4 in both samples (of 6 client rows); bob rows 1 and 4 of 3 */
        ck_assert_int_eq(json_integer_value(json_object_get(c, "units")),
                         strcmp(human, "ann") == 0 ? 6 : 3);
        ck_assert_int_eq(json_integer_value(json_object_get(c, "changed")), 2);
      } else if (strcmp(fn, "target") == 0) {
        ck_assert_int_eq(json_integer_value(json_object_get(c, "changed")), 1);
      } else if (strcmp(fn, "primary_speaker") == 0) {
        ck_assert_int_eq(json_integer_value(json_object_get(c, "changed")), 0);
        ck_assert(json_real_value(json_object_get(c, "share_changed")) == 0.0);
      }
    }
  }
  json_decref(j);
  free(out);
  free(err);
  /* agree never writes */
  ck_assert(tu_same_file(db, copy));
  /* --coders with the model; --field; --samples */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "gpt,bob", "--field",
                             "utterance_type", "--samples", "g1/s1", "--json", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_ptr_nonnull(j);
  fields = json_object_get(j, "fields");
  ck_assert_int_eq((int)json_array_size(fields), 1);
  f = json_array_get(fields, 0);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 3);
  /* gpt vs bob: (accusation, defense) (defense, defense) (request, disclosure) */
  ck_assert_int_eq((int)json_array_size(json_object_get(j, "model_revisions")), 1);
  json_decref(j);
  free(out);
  free(err);
  /* errors */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "ann,zed", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: agree: no registered annotator named 'zed'"));
  ck_assert_ptr_nonnull(strstr(err, "rescue annotator add"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--field", "mood", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown field 'mood'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--samples", "g9/none", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'g9/none'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--level", "nominal", NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", tu_path(dir, "nothing.db"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue init"));
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  rescue_buf_clear(&b);
  free(dir);
  free(db);
}
END_TEST

/*
** A report a lead can act on: three coders who each shared a sample with each other but never
** all three on one (assign's usual overlap), and a fourth who shared none. Client rows of
** utterance_type (2 values each, 18 values): disclosure 3, recollection 5, defense 4,
** request 5, accusation 1; 5 of 9 units agree. p_a = 5/9; pi_k = count / 18.
**   alpha = 1 - (8/18) / ((324 - 76) / 306) = 1 - 2448/4464 (0.4516): unreliable.
**   Fleiss: p_e = 76/324 = 19/81, kappa = (5/9 - 19/81) / (62/81) = 13/31.
**   AC1 over the scheme's 10 labels: p_e = (45 + 65 + 56 + 65 + 17) / 324 / 9 = 62/729,
**   AC1 = (5/9 - 62/729) / (667/729) = 343/667.
** Failed on the previous main: Fleiss and AC1 were null (no unit every coder coded), no
** reliability, no confusions, and dan's pairs were listed one by one.
*/
START_TEST(test_report_for_a_lead) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db);
  const char *t[] = {"[\"Therapist\"]", "[\"Ann\"]", "[\"Ann\"]", "[\"Bo\"]"};
  const char *u_draft[] = {"accusation", "", "defense", "request"};
  const char *u_ann1[] = {"disclosure", "", "defense", "request"};
  const char *u_ann3[] = {"disclosure", "", "recollection", "request"};
  const char *u_bob1[] = {"recollection", "", "defense", "request"};
  const char *u_bob2[] = {"disclosure", "", "defense", "accusation"};
  const char *u_cyd2[] = {"recollection", "", "defense", "request"};
  const char *u_cyd3[] = {"recollection", "", "recollection", "request"};
  const int in[] = {5, 3, 6, 2};
  const char *coders[] = {"ann", "bob", "cyd", "dan"};
  rescue_buf b = RESCUE_BUF_INIT;
  json_t *j, *f = NULL, *c;
  json_error_t je;
  size_t i;
  *strrchr(dir, '/') = 0;
  sample_line(&b, "g1/s1", u_draft, t, in);
  sample_line(&b, "g2/s2", u_draft, t, in);
  sample_line(&b, "g3/s3", u_draft, t, in);
  sample_line(&b, "g4/s4", u_draft, t, in);
  tu_write(tu_path(dir, "draft.jsonl"), b.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft.jsonl"), NULL), 0);
  for (i = 0; i < 4; i++) {
    rescue_buf_reset(&b);
    if (i == 0) {
      sample_line(&b, "g1/s1", u_ann1, t, in);
      sample_line(&b, "g3/s3", u_ann3, t, in);
    } else if (i == 1) {
      sample_line(&b, "g1/s1", u_bob1, t, in);
      sample_line(&b, "g2/s2", u_bob2, t, in);
    } else if (i == 2) {
      sample_line(&b, "g2/s2", u_cyd2, t, in);
      sample_line(&b, "g3/s3", u_cyd3, t, in);
    } else {
      sample_line(&b, "g4/s4", u_ann1, t, in);
    }
    tu_write(tu_path(dir, "c.jsonl"), b.s);
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, coders[i], NULL), 0);
    ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "c.jsonl"), "--annotator",
                               coders[i], NULL),
                     0);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--json", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  for (i = 0; i < json_array_size(json_object_get(j, "fields")); i++)
    if (strcmp(json_string_value(
                   json_object_get(json_array_get(json_object_get(j, "fields"), i), "field")),
               "utterance_type") == 0)
      f = json_array_get(json_object_get(j, "fields"), i);
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq((int)json_array_size(json_object_get(f, "coders")), 4);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "units")), 9);
  ck_assert_int_eq(json_integer_value(json_object_get(f, "complete_units")), 0);
  ASSERT_NEAR(json_real_value(json_object_get(f, "alpha")), 1 - 2448.0 / 4464, 1e-12);
  ASSERT_NEAR(json_real_value(json_object_get(f, "fleiss_kappa")), 13.0 / 31, 1e-12);
  ASSERT_NEAR(json_real_value(json_object_get(f, "gwet_ac1")), 343.0 / 667, 1e-12);
  /* status keeps its meaning (the data); reliability is the judgement */
  ck_assert_str_eq(json_string_value(json_object_get(f, "status")), "ok");
  ck_assert_str_eq(json_string_value(json_object_get(f, "reliability")), "unreliable");
  c = json_array_get(json_object_get(f, "confusions"), 0);
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(c, "values"), 0)),
                   "disclosure");
  ck_assert_str_eq(json_string_value(json_array_get(json_object_get(c, "values"), 1)),
                   "recollection");
  ck_assert_int_eq(json_integer_value(json_object_get(c, "count")), 3);
  c = json_array_get(json_object_get(f, "confusions"), 1);
  ck_assert_int_eq(json_integer_value(json_object_get(c, "count")), 1);
  ck_assert_int_eq((int)json_array_size(json_object_get(f, "confusions")), 2);
  ASSERT_NEAR(
      json_real_value(json_object_get(json_object_get(j, "reliability_thresholds"), "tentative")),
      0.667, 1e-12);
  ASSERT_NEAR(
      json_real_value(json_object_get(json_object_get(j, "reliability_thresholds"), "reliable")),
      0.8, 1e-12);
  json_decref(j);
  free(out);
  free(err);

  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, NULL), 0);
  /* the opening summary: thresholds, the field to fix first, its confusions */
  ck_assert_msg(strstr(out, "\nreliability (Krippendorff's guidelines for alpha: 0.800 or more "
                            "reliable, 0.667 up to 0.800 tentative, below 0.667 unreliable):\n"
                            "  weakest: utterance_type (alpha 0.4516, unreliable): fix it first\n"
                            "  unreliable: utterance_type (0.4516)"),
                "%.3000s", out);
  ck_assert_msg(strstr(out, "most confused values where agreement is short of reliable (pairs of "
                            "coders' values in a unit):\n  utterance_type: disclosure / "
                            "recollection 3, accusation / request 1\n"),
                "%.3000s", out);
  ck_assert_msg(strstr(out, "utterance_type        nominal       4       9   0.4516  -        "
                            "             0.5556  unreliable  ok\n"),
                "%.3000s", out);
  ck_assert_msg(strstr(out, "Fleiss' kappa 0.4194, Gwet's AC1 0.5142"), "%.3000s", out);
  /* the field's own heading judges it too: never "ok" alone next to an unreliable alpha */
  ck_assert_msg(strstr(out, "utterance_type (nominal): alpha 0.4516  unreliable (status ok)\n"),
                "%.3000s", strstr(out, "per field:"));
  /* pairs that never met: one line each place, never a kappa of "-" per pair */
  ck_assert_msg(strstr(out, "  3 coder pairs never coded the same unit (no kappa): ann / dan, "
                            "bob / dan, cyd / dan\n"),
                "%.3000s", out);
  ck_assert_msg(!strstr(out, "Cohen's kappa ann / dan"), "%.3000s", out);
  /* utterance_type, ann / bob on g1/s1: p_o = 2/3, p_e = 2/9, kappa = 4/7 */
  ck_assert_msg(strstr(out, "Cohen's kappa ann / bob: 0.5714 on 3 units"), "%.3000s",
                strstr(out, "utterance_type (nominal)"));
  ck_assert_msg(strstr(out, "  3 coder pairs covered no sample together: ann / dan, bob / dan, "
                            "cyd / dan\n"),
                "%.3000s", out);
  ck_assert_msg(!strstr(out, "  ann / dan: 0 samples"), "%.3000s", out);
  free(out);
  free(err);
  rescue_buf_clear(&b);
  free(dir);
  free(db);
}
END_TEST

/*
** Model versus human on the rows the model answered: the model drafted rows 1 and 3 of 4,
** after ann and before bob annotated. Row 4 shows the draft in the model's view: comparing
** it credited the draft to the model (main: 3 client units, 1 changed for ann) and called
** both humans revisers although ann annotated first.
*/
START_TEST(test_model_rows_only) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db), cmd[4200];
  const char *t[] = {"[\"Therapist\"]", "[\"Ann\"]", "[\"Ann\"]", "[\"Bo\"]"};
  const char *u_draft[] = {"accusation", "", "defense", "request"};
  const char *u_ann[] = {"disclosure", "", "defense", "validation"};
  const char *u_bob[] = {"recollection", "", "defense", "request"};
  const int in[] = {5, 3, 6, 2};
  rescue_buf b = RESCUE_BUF_INIT;
  json_t *j, *rev;
  json_error_t je;
  size_t i, k;
  *strrchr(dir, '/') = 0;
  sample_line(&b, "g1/s1", u_draft, t, in);
  tu_write(tu_path(dir, "draft.jsonl"), b.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft.jsonl"), NULL), 0);
  rescue_buf_reset(&b);
  sample_line(&b, "g1/s1", u_ann, t, in);
  tu_write(tu_path(dir, "ann.jsonl"), b.s);
  rescue_buf_reset(&b);
  sample_line(&b, "g1/s1", u_bob, t, in);
  tu_write(tu_path(dir, "bob.jsonl"), b.s);
  /* the model answers rows 1 and 3 only */
  rescue_buf_reset(&b);
  rescue_buf_puts(&b, "{\"rows\": [");
  row_json(&b, 0, "disclosure", t[0], in[0]);
  rescue_buf_puts(&b, ", ");
  row_json(&b, 2, "defense", t[2], in[2]);
  rescue_buf_puts(&b, "]}\n");
  tu_write(tu_path(dir, "answer.json"), b.s);
  snprintf(cmd, sizeof cmd, "cat '%s'", tu_path(dir, "answer.json"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "gpt", "--role", "model", NULL),
                   0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann.jsonl"), "--annotator", "ann", NULL),
      0);
  /* rows 2 and 4 are kept back (exit 1), rows 1 and 3 stored: a model that answered part */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--annotator", "gpt", "--model-cmd", cmd,
                             "--retries", "0", NULL),
                   1);
  ck_assert_msg(strstr(out, "2 rows stored as gpt's versions, 2 kept back"), "%s%s", out, err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bob.jsonl"), "--annotator", "bob", NULL),
      0);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--json", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  rev = json_object_get(j, "model_revisions");
  ck_assert_int_eq((int)json_array_size(rev), 2);
  for (i = 0; i < 2; i++) {
    json_t *r = json_array_get(rev, i), *fl = json_object_get(r, "fields");
    int is_ann = strcmp(json_string_value(json_object_get(r, "human")), "ann") == 0;
    ck_assert_int_eq(json_integer_value(json_object_get(r, "rows")), 2);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "human_later")), is_ann ? 0 : 2);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "model_later")), is_ann ? 2 : 0);
    for (k = 0; k < json_array_size(fl); k++) {
      json_t *c = json_array_get(fl, k);
      if (strcmp(json_string_value(json_object_get(c, "field")), "utterance_type") != 0)
        continue;
      /* rows 1 and 3 (both client rows); ann agrees with both, bob changed row 1 */
      ck_assert_int_eq(json_integer_value(json_object_get(c, "units")), 2);
      ck_assert_int_eq(json_integer_value(json_object_get(c, "changed")), is_ann ? 0 : 1);
    }
  }
  json_decref(j);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--field", "utterance_type", NULL), 0);
  ck_assert_msg(strstr(out, "\nmodel gpt and ann: 2 rows the model answered, in 1 sample both "
                            "covered; the model's answer came after ann's\n"),
                "%s", out);
  ck_assert_msg(strstr(out, "\nmodel gpt and bob: 2 rows the model answered, in 1 sample both "
                            "covered; bob revised the model's draft (bob's version is the later "
                            "one)\n"),
                "%s", out);
  ck_assert_msg(!strstr(out, "revised by"), "%s", out);
  free(out);
  free(err);
  rescue_buf_clear(&b);
  free(dir);
  free(db);
}
END_TEST

/* A scheme whose level does not fit a field gives invalid_level for that field. */
START_TEST(test_corpus_invalid_level) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  size_t len;
  const char *xml = rescue_scheme_default_xml(&len);
  char *bad = malloc(len + 64), *p;
  const char *from = "type=\"entities\" required=\"true\" level=\"masi\"";
  const char *to = "type=\"entities\" required=\"true\" level=\"interval\"";
  memcpy(bad, xml, len);
  bad[len] = 0;
  p = strstr(bad, from);
  ck_assert_ptr_nonnull(p);
  memmove(p + strlen(to), p + strlen(from), strlen(p + strlen(from)) + 1);
  memcpy(p, to, strlen(to));
  tu_write(tu_path(dir, "s.xml"), bad);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "init", tu_path(dir, "c.db"), "--scheme", tu_path(dir, "s.xml"), NULL),
      0);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", tu_path(dir, "c.db"), "--field", "target", "--json", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"field\": \"target\", \"level\": \"interval\", \"status\": "
                                    "\"invalid_level\""));
  free(out);
  free(err);
  free(bad);
  free(dir);
}
END_TEST

/*
** The text report of the demo corpus opens with the summary table, warns about thin data,
** prints coincidences and --by groups as tables; csv for spreadsheets; json unchanged.
*/
START_TEST(test_report_for_people) {
  static const char csv_head[] = "field,level,group,status,coders,units,pairable_values,alpha,"
                                 "ci_low,ci_high,percent_agreement,fleiss_kappa,gwet_ac1,"
                                 "share_identical,token_f1\r\n";
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, *json1 = NULL, *txt, *line2;
  const char *demo = tu_path(dir, "demo"), *db;
  int lines = 0;
  char *p;
  ck_assert_int_eq(tu_rescue(&out, &err, "demo", "--out", demo, NULL), 0);
  free(out);
  free(err);
  db = tu_path(demo, "corpus.db");
  txt = tu_read(tu_path(demo, "agree/agreement.txt"), NULL);
  ck_assert_ptr_nonnull(txt);
  ck_assert_msg(strncmp(txt, "field ", 6) == 0, "%.300s", txt);
  free(txt);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", db, "--ci", "200", "--seed", "7", "--by", "scenario", NULL),
      0);
  ck_assert_msg(strncmp(out, "field ", 6) == 0 && strstr(out, "level") && strstr(out, "coders") &&
                    strstr(out, "units") && strstr(out, "alpha") && strstr(out, "95% interval") &&
                    strstr(out, "agreement") && strstr(out, "status\n"),
                "%.400s", out);
  line2 = strchr(out, '\n') + 1;
  ck_assert_msg(strncmp(line2, "primary_speaker ", 16) == 0 && strstr(line2, " nominal ") &&
                    strstr(line2, " ok\n"),
                "%.200s", line2);
  /* one line per field before the first blank line */
  for (p = out; *p && !(p[0] == '\n' && p[1] == '\n'); p++)
    lines += *p == '\n';
  ck_assert_int_eq(lines + 1, 16); /* header + 15 fields */
  ck_assert_msg(strstr(out, "\nwarnings (thin data: read these numbers as rough):\n") &&
                    strstr(out, "  utterance_type: the interval rests on 2 resampled samples "
                                "(fewer than 20); 13 pairable units (fewer than 30)\n"),
                "%.2000s", out);
  ck_assert_msg(strstr(out, "\nper field:\nprimary_speaker (nominal): alpha 1.0000"), "%.2000s",
                out);
  ck_assert_msg(strstr(out, "  coincidences (pairs of values within units"), "%.2000s", out);
  ck_assert_msg(strstr(out, "     1  accusation       4.0       .       .       .       .       .  "
                            "     .       .       .       ."),
                "%.2000s", out);
  ck_assert_msg(strstr(out, "  by group:\n    group    units     alpha  status\n    family       7 "
                            "   1.0000  ok\n    couple       6    0.8136  ok\n"),
                "%.300s", out);
  free(out);
  free(err);

  /* --by sample: one line per sample */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", db, "--field", "utterance_type", "--by", "sample", NULL), 0);
  ck_assert_msg(strstr(out, "    family_therapy/demo01/merged               7    1.0000  ok\n") &&
                    strstr(out, "    maya_and_daniel/001_s01e01_segment01       6    0.8136  ok\n"),
                "%.2000s", out);
  free(out);
  free(err);

  /* csv */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--format", "csv", "--by", "scenario", NULL),
                   0);
  ck_assert_msg(strncmp(out, csv_head, strlen(csv_head)) == 0, "%.300s", out);
  ck_assert_msg(strstr(out, "\r\nutterance_type,nominal,,ok,\"noor lena\",13,26,"
                            "0.9134948097,,,0.9230769231,"),
                "%.2000s", out);
  ck_assert_msg(strstr(out, "\r\nutterance_type,nominal,family,ok,,7,14,1,,,,,,,\r\n"), "%.2000s",
                out);
  ck_assert_msg(strstr(out, "\r\ntone_of_voice,text,,ok,\"noor lena\",19,"), "%.2000s", out);
  for (lines = 0, p = out; *p; p++)
    lines += *p == '\n';
  ck_assert_int_eq(lines, 1 + 15 + 12 * 2); /* header, each field, per scenario (not text) */
  free(out);
  free(err);

  /* json: --format json is --json, and its shape is the documented one */
  ck_assert_int_eq(tu_rescue(&json1, &err, "agree", db, "--json", "--ci", "50", NULL), 0);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--format", "json", "--ci", "50", NULL), 0);
  ck_assert_str_eq(out, json1);
  ck_assert_ptr_nonnull(strstr(out, "{\"coders\": [\"noor\", \"lena\"], \"samples\": 2, "
                                    "\"fields\": [{\"field\": \"primary_speaker\""));
  /* the thin-data warnings as a key added at the end of a field */
  ck_assert_ptr_nonnull(strstr(out, "\"scheme\": \"sample\"}, \"warnings\": [{\"kind\": "
                                    "\"few_resampled_groups\", \"groups\": 2, \"minimum\": 20}, "
                                    "{\"kind\": \"few_pairable_units\", \"units\": 19, "
                                    "\"minimum\": 30}]}"));
  free(out);
  free(err);
  free(json1);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--format", "xml", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "--format expects text, json or csv, not 'xml'"));
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/*
** The report on the real fixture with three coders who disagree (ann; bob merges rows 7 and
** 8; cat splits row 6): thresholds, the weakest field named and judged next to its alpha
** (on the previous main its heading said "alpha 0.7993  ok"), the most confused labels,
** Fleiss and Gwet over the 9 units all three coded, no line of pairs that never met (every
** pair overlapped), and the segmentation agreement of each pair.
*/
START_TEST(test_fixture_three_coders) {
  char *db = tu_fixture_coders(), *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, NULL), 0);
  ck_assert_msg(strstr(out, "agreement between 3 coders (ann, bob, cat) over 1 sample"), "%s", out);
  ck_assert_msg(strstr(out, "(Krippendorff's guidelines for alpha: 0.800 or more reliable, "
                            "0.667 up to 0.800 tentative, below 0.667 unreliable):\n"
                            "  weakest: utterance_type (alpha 0.7993, tentative): fix it first\n"
                            "  tentative: utterance_type (0.7993)\n"),
                "%.2500s", out);
  ck_assert_msg(strstr(out, "  utterance_type: accusation / disclosure 2, disclosure / "
                            "recollection 2\n"),
                "%.2500s", out);
  ck_assert_msg(strstr(out, "utterance_type (nominal): alpha 0.7993  tentative (status ok)\n"),
                "%.2500s", strstr(out, "per field:"));
  ck_assert_msg(strstr(out, "Fleiss' kappa 0.8013, Gwet's AC1 0.8559 (9 units every coder "
                            "coded)"),
                "%.2500s", strstr(out, "utterance_type (nominal)"));
  ck_assert_msg(strstr(out, "(1 unit every coder coded)"), "%.2500s", out);
  ck_assert_msg(!strstr(out, "never coded the same unit") && !strstr(out, "covered no sample"),
                "%.2500s", out);
  ck_assert_msg(strstr(out, "  ann / bob: 1 sample, 15 aligned pairs, rows without a partner: "
                            "ann 1, bob 0\n") &&
                    strstr(out, "  ann / cat: 1 sample, 16 aligned pairs, rows without a partner: "
                                "ann 0, cat 1\n") &&
                    strstr(out, "  bob / cat: 1 sample, 15 aligned pairs, rows without a partner: "
                                "bob 0, cat 2\n"),
                "%.2500s", strstr(out, "segmentation:"));
  ck_assert_msg(strstr(out, "alpha-u of the primary speaker on the time line"), "%.2500s",
                strstr(out, "segmentation:"));
  free(out);
  free(err);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("agree");
  TCase *tc = tcase_create("agree");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_krippendorff_example);
  tcase_add_test(tc, test_report_for_people);
  tcase_add_test(tc, test_krippendorff_package_example);
  tcase_add_test(tc, test_set_distances);
  tcase_add_test(tc, test_kappas_known);
  tcase_add_test(tc, test_degenerate);
  tcase_add_test(tc, test_missing_data_kappa);
  tcase_add_test(tc, test_groups_and_bootstrap);
  tcase_add_test(tc, test_random_against_python);
  tcase_add_test(tc, test_ac1_by_hand);
  tcase_add_test(tc, test_tsv_errors);
  tcase_add_test(tc, test_cli_table);
  tcase_add_test(tc, test_corpus_mode);
  tcase_add_test(tc, test_corpus_invalid_level);
  tcase_add_test(tc, test_report_for_a_lead);
  tcase_add_test(tc, test_model_rows_only);
  if (tu_fixtures_if_present())
    tcase_add_test(tc, test_fixture_three_coders);
  suite_add_tcase(s, tc);
  return tu_run_suite_skipping(s, !tu_fixtures_if_present());
}
