/*
** alloc_grow.c: the one growth step for arrays (RESCUE_ALLOC_GROW in rescue_alloc.h), over
** rescue_realloc, with its size checked against the capacity's type and size_t.
*/
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "rescue_alloc.h"

/*
** Read the capacity at capp, of the type kind names (RESCUE_ALLOC_KIND_), into *cap and the
** largest value that type holds into *max.
*/
static void cap_get(const void *capp, int kind, size_t *cap, size_t *max) {
  switch (kind) {
  case 0:
    *cap = *(const int *)capp < 0 ? 0 : (size_t) * (const int *)capp;
    *max = INT_MAX;
    return;
  case 1:
    *cap = *(const unsigned *)capp;
    *max = UINT_MAX;
    return;
  case 2:
    *cap = *(const long *)capp < 0 ? 0 : (size_t) * (const long *)capp;
    *max = (size_t)LONG_MAX;
    return;
  case 3:
    *cap = *(const unsigned long *)capp;
    *max = (size_t)ULONG_MAX;
    return;
  case 4:
    *cap = *(const long long *)capp < 0 ? 0 : (size_t) * (const long long *)capp;
    *max = (size_t)LLONG_MAX;
    return;
  default:
    *cap = (size_t) * (const unsigned long long *)capp;
    *max = (size_t)ULLONG_MAX;
    return;
  }
}

/* Store cap (at most the type's largest value, checked by the caller) at capp. */
static void cap_set(void *capp, int kind, size_t cap) {
  switch (kind) {
  case 0: *(int *)capp = (int)cap; return;
  case 1: *(unsigned *)capp = (unsigned)cap; return;
  case 2: *(long *)capp = (long)cap; return;
  case 3: *(unsigned long *)capp = (unsigned long)cap; return;
  case 4: *(long long *)capp = (long long)cap; return;
  default: *(unsigned long long *)capp = (unsigned long long)cap; return;
  }
}

/*
** The new capacity: double cap (16 at first) but at least need, never above max elements
** nor above what a size_t counts in bytes of elem. Returns 0 when need itself is beyond.
*/
static size_t grown(size_t cap, size_t need, size_t max, size_t elem) {
  size_t n;
  if (elem && max > SIZE_MAX / elem)
    max = SIZE_MAX / elem;
  if (need > max)
    return 0;
  n = cap < 8 ? 16 : cap > max / 2 ? max : cap * 2;
  return n < need ? need : n;
}

int rescue_alloc_grow(void *pp, size_t elem, size_t need, void *capp, int kind) {
  size_t cap, max, n;
  void *old, *p;
  cap_get(capp, kind, &cap, &max);
  if (need <= cap)
    return 0;
  if (!(n = grown(cap, need, max, elem)))
    return -1;
  /* the caller's pointer may be of any object pointer type: copy it, not cast it */
  memcpy(&old, pp, sizeof old);
  if (!(p = rescue_realloc(old, n * (elem ? elem : 1))))
    return -1;
  memcpy(pp, &p, sizeof p);
  cap_set(capp, kind, n);
  return 0;
}
