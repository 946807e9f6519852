/*
** span.c: the overlap rule of rows (span_int.h).
*/
#include "span_int.h"

/*
** Are two spans the same row (span_int.h)? Editing a row's times within the rule is an
** ordinary edit; rows that were split or merged shift their neighbours past it.
*/
int rescue_span_same_row(double s1, double e1, double s2, double e2, double *overlap) {
  double ov, t, d1, d2, shorter;
  int same = s1 == s2 && e1 == e2;
  if (e1 < s1) {
    t = s1, s1 = e1, e1 = t;
  }
  if (e2 < s2) {
    t = s2, s2 = e2, e2 = t;
  }
  ov = (e1 < e2 ? e1 : e2) - (s1 > s2 ? s1 : s2);
  if (overlap)
    *overlap = ov > 0 ? ov : 0;
  if (same)
    return 1; /* the same times (even an inverted span, which lint reports as R02) */
  d1 = e1 - s1, d2 = e2 - s2, shorter = d1 < d2 ? d1 : d2;
  if (shorter <= 0)
    return ov >= 0;
  return ov >= 0.5 * shorter;
}
