/*
** check_segagree.c: agreement across row sets: aligning two coders' rows (a split, a merge,
** a missing row, the overlap threshold, greatest overlap, ties), alpha-u of the primary
** speaker on synthetic rows (hand-computed, merges, time lines laid end to end, one figure
** per set of coders), and `rescue agree` on corpora whose coders segmented differently (two
** and three coders), checked against each coder's view.
*/
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_alloc.h"
#include "rescue_edit.h"
#include "testutil.h"

#define N(a) ((int)(sizeof(a) / sizeof((a)[0])))

/* Align a with b and compare with the expected partners. */
static void check_align(const double *as, const double *ae, int na, const double *bs,
                        const double *be, int nb, const int *want_a, const int *want_b,
                        int want_pairs) {
  int am[16], bm[16], i;
  ck_assert_int_eq(rescue_align_rows(as, ae, na, bs, be, nb, am, bm), want_pairs);
  for (i = 0; i < na; i++)
    ck_assert_msg(am[i] == want_a[i], "a row %d: partner %d, want %d", i, am[i], want_a[i]);
  for (i = 0; i < nb; i++)
    ck_assert_msg(bm[i] == want_b[i], "b row %d: partner %d, want %d", i, bm[i], want_b[i]);
}

START_TEST(test_align_split) {
  /* b split a's row 1 at 3 s: both halves overlap it by 1 s; the earlier half wins */
  const double as[] = {0, 2, 4}, ae[] = {2, 4, 6};
  const double bs[] = {0, 2, 3, 4}, be[] = {2, 3, 4, 6};
  const int wa[] = {0, 1, 3}, wb[] = {0, 1, -1, 2};
  check_align(as, ae, 3, bs, be, 4, wa, wb, 3);
  /* and the other way round */
  check_align(bs, be, 4, as, ae, 3, wb, wa, 3);
}
END_TEST

START_TEST(test_align_merge_missing) {
  /* b merged a's rows 0 and 1: both overlap the merged row by 2 s; the earlier one wins */
  const double as[] = {0, 2, 4}, ae[] = {2, 4, 6};
  const double bs[] = {0, 4}, be[] = {4, 6};
  const int wa[] = {0, -1, 1}, wb[] = {0, 2};
  /* c has no row where a has row 1 */
  const double cs[] = {0, 4}, ce[] = {2, 6};
  const int wa2[] = {0, -1, 1}, wc[] = {0, 2};
  check_align(as, ae, 3, bs, be, 2, wa, wb, 2);
  check_align(as, ae, 3, cs, ce, 2, wa2, wc, 2);
  /* nobody: every row unaligned */
  check_align(as, ae, 3, cs, ce, 0, (const int[]){-1, -1, -1}, NULL, 0);
}
END_TEST

START_TEST(test_align_threshold_and_greatest) {
  /* [0, 4) and [3, 5): 1 s of overlap, half of the shorter (2 s): the same row */
  const double as[] = {0}, ae[] = {4};
  const double bs[] = {3}, be[] = {5};
  /* [3.5, 5.5): 0.5 s, less than half of 2 s: not */
  const double cs[] = {3.5}, ce[] = {5.5};
  /* [0, 3) against [0, 1.6) (1.6 s) and [1.2, 3) (1.8 s): the greater overlap wins */
  const double ds[] = {0}, de[] = {3};
  const double es[] = {0, 1.2}, ee[] = {1.6, 3};
  check_align(as, ae, 1, bs, be, 1, (const int[]){0}, (const int[]){0}, 1);
  check_align(as, ae, 1, cs, ce, 1, (const int[]){-1}, (const int[]){-1}, 0);
  check_align(ds, de, 1, es, ee, 2, (const int[]){1}, (const int[]){-1, 0}, 1);
}
END_TEST

/* A report with coders named as given, for the alpha-u path. */
static rescue_agree_report *report_of(int n, const char *const *names) {
  rescue_agree_report *r = calloc(1, sizeof *r);
  int i;
  r->n_coders = n;
  r->coders = rescue_calloc((size_t)n, sizeof *r->coders);
  for (i = 0; i < n; i++)
    r->coders[i] = rescue_strdup(names[i]);
  return r;
}

/*
** Hand-computed alpha-u (annotate/AGREEMENT.md "Segmentation"): a time line of 4 ms, one
** category X; coder A marks [0, 2), coder B [1, 3). D_o = 2 / (2 * 1 * 16) * ((0 - 1)^2 + (2 -
** 3)^2) = 1/8. Units l = 2, 2; gaps 2 (A), 1, 1 (B); Q = sum of l (l - 1) over the units = 4
** (as in annotate/agree_unitize.c); each unit: (2 - 1) * (16 - 12 + 2) / 3 + 4 * (2 - 2 + 1) =
** 6; D_e = (2 / 4) * 12 / (8 * 7 - 4) = 3/26. alpha-u = 1 - (1/8) / (3/26) = -1/12.
*/
START_TEST(test_alpha_u_by_hand) {
  const char *names[] = {"A", "B", "C"};
  rescue_agree_report *r = report_of(3, names);
  const unsigned char two[] = {1, 1, 0}, three[] = {1, 1, 1};
  /* sample 1: A [0, 2) X, B [1, 3) X; duration 4 ms */
  const double a1s[] = {0}, a1e[] = {0.002}, b1s[] = {0.001}, b1e[] = {0.003};
  const char *x1[] = {"X"};
  const double *s1[] = {a1s, b1s, NULL}, *e1[] = {a1e, b1e, NULL};
  const char *const *k1[] = {x1, x1, NULL};
  const int n1[] = {1, 1, 0};
  /* sample 2: A marks [0, 2) and [1, 3) of X (overlapping: one merge into [0, 3)), B [0, 3) */
  const double a2s[] = {0, 0.001}, a2e[] = {0.002, 0.003}, b2s[] = {0}, b2e[] = {0.003};
  const char *x2[] = {"X", "X"};
  const double *s2[] = {a2s, b2s, NULL}, *e2[] = {a2e, b2e, NULL};
  const char *const *k2[] = {x2, x2, NULL};
  const int n2[] = {2, 1, 0};
  /* sample 3: three coders, identical */
  const double *s3[] = {b2s, b2s, b2s}, *e3[] = {b2e, b2e, b2e};
  const char *const *k3[] = {x1, x1, x1};
  const int n3[] = {1, 1, 1};
  rescue_unitize *u = NULL;
  rescue_unitize_result want;
  int a, b, c;
  ck_assert_int_eq(agree_unitizing_sample(r, "s1", 0.004, two, s1, e1, k1, n1), 0);
  ck_assert_int_eq(agree_unitizing_sample(r, "s2", 0.004, two, s2, e2, k2, n2), 0);
  ck_assert_int_eq(agree_unitizing_sample(r, "s3", 0.003, three, s3, e3, k3, n3), 0);
  ck_assert_int_eq(agree_unitizing_overall(r), 0);
  ck_assert_int_eq(r->n_unitizing, 3);
  ck_assert_int_eq((int)rescue_unitize_length(r->unitizing[0].u), 4);
  ck_assert_int_eq(r->unitizing[0].res.status, RESCUE_AGREE_OK);
  ck_assert_msg(fabs(r->unitizing[0].res.alpha - (-1.0 / 12.0)) < 1e-12, "alpha-u %.15g",
                r->unitizing[0].res.alpha);
  ck_assert_int_eq((int)r->unitizing[0].res.merges, 0);
  /* sample 2: A's two rows merge into [0, 3), the same as B's: alpha-u 1, one merge */
  ck_assert_int_eq((int)r->unitizing[1].res.merges, 1);
  ck_assert_int_eq((int)r->unitizing[1].res.coders[0].merges, 1);
  ck_assert(r->unitizing[1].res.alpha == 1.0);
  ck_assert(r->unitizing[2].res.alpha == 1.0);
  /* one figure per set of coders: {A, B} over s1 and s2 end to end (8 ms), {A, B, C} */
  ck_assert_int_eq(r->n_overall, 2);
  ck_assert_int_eq((int)r->overall[0].samples, 2);
  ck_assert_int_eq((int)rescue_unitize_length(r->overall[0].u), 8);
  ck_assert_int_eq((int)r->overall[0].res.merges, 1);
  ck_assert_int_eq((int)r->overall[1].samples, 1);
  ck_assert_int_eq(rescue_unitize_n_coders(r->overall[1].u), 3);
  /* the end-to-end figure is the engine's on the laid-out units: A [0,2) [4,7), B [1,3) [4,7) */
  ck_assert_int_eq(rescue_unitize_new(0, 8, 0.001, &u), 0);
  a = rescue_unitize_coder(u, "A");
  b = rescue_unitize_coder(u, "B");
  c = rescue_unitize_category(u, "X");
  ck_assert_int_eq(rescue_unitize_add(u, a, c, 0, 2), 0);
  ck_assert_int_eq(rescue_unitize_add(u, a, c, 4, 7), 0);
  ck_assert_int_eq(rescue_unitize_add(u, b, c, 1, 3), 0);
  ck_assert_int_eq(rescue_unitize_add(u, b, c, 4, 7), 0);
  ck_assert_int_eq(rescue_unitize_compute(u, &want), 0);
  ck_assert_msg(fabs(r->overall[0].res.alpha - want.alpha) < 1e-12, "%.15g vs %.15g",
                r->overall[0].res.alpha, want.alpha);
  ck_assert(r->overall[0].res.alpha > -1.0 / 12.0 && r->overall[0].res.alpha < 1.0);
  rescue_unitize_result_clear(&want);
  rescue_unitize_free(&u);
  rescue_agree_report_free(&r);
}
END_TEST

/* ---- corpora whose coders segmented differently ---- */

/* A row of a test sample. */
static void row(rescue_buf *b, int first, double s, double e, const char *spk, const char *utt,
                int idx) {
  rescue_buf_printf(b,
                    "%s{\"start_time\": %.1f, \"end_time\": %.1f, \"primary_speaker\": \"%s\", "
                    "\"target\": [], \"dialogue_cleaned\": \"line %d\", \"utterance_type\": "
                    "\"%s\", \"row_index\": %d}",
                    first ? "" : ", ", s, e, spk, idx, utt, idx);
}

/* The sample g1/s1 with rows given as (start, end, speaker, utterance) into path. */
static void write_sample(const char *path, int n, const double *s, const double *e,
                         const char *const *spk, const char *const *utt) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  rescue_buf_puts(&b, "{\"sample_id\": \"g1/s1\", \"rows\": [");
  for (i = 0; i < n; i++)
    row(&b, i == 0, s[i], e[i], spk[i], utt[i], i + 1);
  rescue_buf_puts(&b, "]}\n");
  tu_write(path, b.s);
  rescue_buf_clear(&b);
}

/* Coder name's rows of g1/s1 as their view shows them (their own row set). */
static int view_rows(rescue_store *st, const char *name, double *s, double *e) {
  rescue_view_sample vs;
  int64_t id;
  int i, n = 0;
  memset(&vs, 0, sizeof vs);
  ck_assert_int_eq(rescue_annotator_lookup(st, name, &id, NULL, NULL), 0);
  ck_assert_int_eq(rescue_view_sample_load(st, "g1/s1", id, &vs), 0);
  for (i = 0; i < vs.n; i++) {
    s[n] = rescue_jget(vs.rows[i], "start_time")->num;
    e[n++] = rescue_jget(vs.rows[i], "end_time")->num;
  }
  rescue_view_sample_clear(&vs);
  return n;
}

/* The alignment entry of coders a and b in the agree JSON. */
static json_t *pair_of(json_t *j, const char *a, const char *b) {
  json_t *al = json_object_get(json_object_get(j, "segmentation"), "alignment");
  size_t i;
  for (i = 0; i < json_array_size(al); i++) {
    json_t *p = json_array_get(al, i), *c = json_object_get(p, "coders");
    if (strcmp(json_string_value(json_array_get(c, 0)), a) == 0 &&
        strcmp(json_string_value(json_array_get(c, 1)), b) == 0)
      return p;
  }
  return NULL;
}

/* The pair's figures are those of each coder's view, aligned. */
static void check_pair_from_views(rescue_store *st, json_t *j, const char *a, const char *b) {
  double as[16], ae[16], bs[16], be[16];
  int am[16], bm[16], na = view_rows(st, a, as, ae), nb = view_rows(st, b, bs, be), pairs;
  json_t *p = pair_of(j, a, b), *un;
  ck_assert_msg(p != NULL, "no pair %s / %s", a, b);
  pairs = rescue_align_rows(as, ae, na, bs, be, nb, am, bm);
  un = json_object_get(p, "unaligned");
  ck_assert_int_eq(json_integer_value(json_object_get(p, "aligned_pairs")), pairs);
  ck_assert_int_eq(json_integer_value(json_object_get(un, a)), na - pairs);
  ck_assert_int_eq(json_integer_value(json_object_get(un, b)), nb - pairs);
  ck_assert_int_eq(json_integer_value(json_object_get(p, "samples")), 1);
}

START_TEST(test_corpus_resegmented) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL;
  /* the draft: 4 rows; ann1 splits row 3 at 5 s; ann2 relabels row 3; ann3 merges 3 and 4 */
  const double ds[] = {0, 2, 4, 6}, de[] = {2, 4, 6, 8};
  const char *dspk[] = {"Ann", "Therapist", "Bo", "Ann"};
  const char *dutt[] = {"accusation", "", "defense", "request"};
  const double s1[] = {0, 2, 4, 5, 6}, e1[] = {2, 4, 5, 6, 8};
  const char *spk1[] = {"Ann", "Therapist", "Bo", "Bo", "Ann"};
  const char *utt1[] = {"accusation", "", "defense", "defense", "request"};
  const char *utt2[] = {"accusation", "", "disclosure", "request"};
  const double s3[] = {0, 2, 4}, e3[] = {2, 4, 8};
  const char *spk3[] = {"Ann", "Therapist", "Bo"};
  const char *utt3[] = {"accusation", "", "defense"};
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  json_t *j, *seg, *au, *ov;
  json_error_t je;
  size_t i;
  int n3 = 0;
  *strrchr(dir, '/') = 0;
  write_sample(tu_path(dir, "draft.jsonl"), 4, ds, de, dspk, dutt);
  write_sample(tu_path(dir, "ann1.jsonl"), 5, s1, e1, spk1, utt1);
  write_sample(tu_path(dir, "ann2.jsonl"), 4, ds, de, dspk, utt2);
  write_sample(tu_path(dir, "ann3.jsonl"), 3, s3, e3, spk3, utt3);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft.jsonl"), NULL), 0);
  for (i = 1; i <= 3; i++) {
    char name[8];
    snprintf(name, sizeof name, "ann%zu", i);
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, name, NULL), 0);
  }
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann2.jsonl"), "--annotator", "ann2", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann1.jsonl"), "--annotator",
                             "ann1", "--resegment", NULL),
                   0);
  /* two coders: the split is a segmentation disagreement, measured from each view */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "ann1,ann2", "--json", NULL), 0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  check_pair_from_views(st, j, "ann1", "ann2");
  /* ann1's view holds the split: 5 rows, at least one (a half) without a partner in ann2's */
  {
    json_t *p = pair_of(j, "ann1", "ann2"), *un = json_object_get(p, "unaligned");
    /* each coder keeps their own row set: ann1's 5 rows (one split) against ann2's 4 */
    ck_assert_int_eq(json_integer_value(json_object_get(p, "aligned_pairs")), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(un, "ann1")), 1);
    ck_assert_int_eq(json_integer_value(json_object_get(un, "ann2")), 0);
    ck_assert_int_eq(json_integer_value(json_object_get(p, "aligned_pairs")) +
                         json_integer_value(json_object_get(un, "ann1")),
                     5);
  }
  seg = json_object_get(j, "segmentation");
  au = json_object_get(seg, "alpha_u");
  ck_assert_str_eq(json_string_value(json_object_get(au, "category")), "primary_speaker");
  ov = json_array_get(json_object_get(au, "overall"), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(ov, "samples")), 1);
  {
    json_t *res = json_object_get(ov, "result");
    double a = json_real_value(json_object_get(res, "alpha_u"));
    ck_assert_str_eq(json_string_value(json_object_get(res, "status")), "ok");
    /* the halves touch (no merge); they and ann2's row agree on Bo over 4-6 s only when the
       view shows ann2's own row there */
    ck_assert_int_eq(json_integer_value(json_object_get(res, "merges")), 0);
    ck_assert(a < 1.0 && a > 0.0);
    ck_assert_int_eq(
        json_integer_value(json_object_get(json_object_get(res, "continuum"), "steps")), 8000);
  }
  ck_assert_int_eq((int)json_array_size(json_object_get(au, "samples")), 1);
  json_decref(j);
  free(out);
  free(err);
  /* the text report says it too */
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "ann1,ann2", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "ann1 / ann2: 1 sample"));
  ck_assert_ptr_nonnull(strstr(out, "rows without a partner: ann1 "));
  ck_assert_ptr_nonnull(strstr(out, "alpha-u "));
  free(out);
  free(err);
  /* three coders: ann3 merged rows 3 and 4; units are the draft's rows */
  rescue_store_close(&st);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann3.jsonl"), "--annotator",
                             "ann3", "--resegment", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--coders", "ann1,ann2,ann3", "--json", NULL),
                   0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  check_pair_from_views(st, j, "ann1", "ann2");
  check_pair_from_views(st, j, "ann1", "ann3");
  check_pair_from_views(st, j, "ann2", "ann3");
  n3 = (int)json_array_size(json_object_get(json_object_get(j, "segmentation"), "alignment"));
  ck_assert_int_eq(n3, 3);
  ov = json_object_get(json_object_get(json_object_get(j, "segmentation"), "alpha_u"), "overall");
  ck_assert_int_eq((int)json_array_size(ov), 1);
  ck_assert_int_eq(json_integer_value(json_object_get(json_array_get(ov, 0), "samples")), 1);
  ck_assert_int_eq((int)json_array_size(
                       json_object_get(json_object_get(json_array_get(ov, 0), "result"), "coders")),
                   3);
  json_decref(j);
  free(out);
  free(err);
  rescue_store_close(&st);
  free(dir);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("segagree");
  TCase *tc = tcase_create("segagree");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_align_split);
  tcase_add_test(tc, test_align_merge_missing);
  tcase_add_test(tc, test_align_threshold_and_greatest);
  tcase_add_test(tc, test_alpha_u_by_hand);
  tcase_add_test(tc, test_corpus_resegmented);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
