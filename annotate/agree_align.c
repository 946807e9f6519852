/*
** agree_align.c: aligning two coders' rows of one sample (agree_int.h). Rows pair off one
** to one by greatest overlap, among the pairs the overlap rule (corpus/span_int.h) calls
** the same row; of pairs that overlap equally, the one with the earlier row wins.
*/
#include <stdlib.h>

#include "agree_int.h"
#include "rescue_alloc.h"
#include "span_int.h"

typedef struct cand {
  int a, b;
  double ov;
} cand;

/* Greatest overlap first; then the earlier row of a, then of b. */
static int cand_cmp(const void *x, const void *y) {
  const cand *p = x, *q = y;
  if (p->ov != q->ov)
    return p->ov > q->ov ? -1 : 1;
  if (p->a != q->a)
    return p->a < q->a ? -1 : 1;
  return (p->b > q->b) - (p->b < q->b);
}

int rescue_align_rows(const double *a_start, const double *a_end, int na, const double *b_start,
                      const double *b_end, int nb, int *a_match, int *b_match) {
  cand *c = NULL;
  size_t n = 0, cap = 0, k;
  int i, j, pairs = 0;
  for (i = 0; i < na; i++)
    a_match[i] = -1;
  for (j = 0; j < nb; j++)
    b_match[j] = -1;
  for (i = 0; i < na; i++)
    for (j = 0; j < nb; j++) {
      double ov;
      if (!rescue_span_same_row(a_start[i], a_end[i], b_start[j], b_end[j], &ov))
        continue;
      if (RESCUE_ALLOC_GROW(c, n + 1, cap)) {
        rescue_free(c);
        return RESCUE_ENOMEM;
      }
      c[n].a = i, c[n].b = j, c[n].ov = ov;
      n++;
    }
  if (n > 1)
    qsort(c, n, sizeof *c, cand_cmp);
  for (k = 0; k < n; k++) {
    if (a_match[c[k].a] >= 0 || b_match[c[k].b] >= 0)
      continue;
    a_match[c[k].a] = c[k].b;
    b_match[c[k].b] = c[k].a;
    pairs++;
  }
  rescue_free(c);
  return pairs;
}
