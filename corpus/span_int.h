/*
** span_int.h: the overlap rule of rows (private to the library): when two spans are the
** same row. The import's row matching (corpus/sample.c) and the alignment of coders' rows
** (annotate/agree_align.c) follow it.
*/
#ifndef RESCUE_SPAN_INT_H
#define RESCUE_SPAN_INT_H

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/*
** The overlap rule: are [s1, e1] and [s2, e2] the same row? They are when they overlap
** by at least half of the shorter one (zero-length spans: when they touch; an inverted
** span counts as its reverse; equal times always). *overlap (may be NULL) gets the length
** of the overlap, 0 when they do not overlap.
*/
int rescue_span_same_row(double s1, double e1, double s2, double e2, double *overlap);

#pragma GCC visibility pop

#endif
