/*
** rescue_alloc.h: the one allocation wrapper (public).
** Every allocation in the library goes through these, so the test build can make the Nth
** allocation fail (testhooks_int.h) and check that the error path cleans up.
*/
#ifndef RESCUE_ALLOC_H
#define RESCUE_ALLOC_H

#include <stddef.h>

void *rescue_malloc(size_t n);
void *rescue_calloc(size_t count, size_t size);
void *rescue_realloc(void *p, size_t n);
char *rescue_strdup(const char *s);
char *rescue_strndup(const char *s, size_t n);
void rescue_free(void *p);

/*
** Growing an array, as git's ALLOC_GROW: make room for at least `need` elements in the
** array p (a pointer variable, NULL at first) whose capacity in elements is the variable
** cap (any integer type). The capacity doubles (16 elements at first, or need when that is
** more), so n appends cost O(n). Evaluates to 0, or -1 when the memory is not there or the
** size would not fit cap's type or a size_t; then p and cap are unchanged (p still owns the
** old elements, so the caller frees it as before).
**
**   if (RESCUE_ALLOC_GROW(v, n + 1, cap))
**     goto nomem;
**   v[n++] = x;
*/
#define RESCUE_ALLOC_GROW(p, need, cap)                                                            \
  (rescue_alloc_fits_((size_t)(need), (size_t)(cap))                                               \
       ? 0                                                                                         \
       : rescue_alloc_grow(&(p), sizeof *(p), (size_t)(need), &(cap), RESCUE_ALLOC_KIND_(cap)))
/* need <= cap, as a function so that a constant need draws no -Wtype-limits warning. */
static inline int rescue_alloc_fits_(size_t need, size_t cap) { return need <= cap; }
/* The integer type of a capacity variable, for rescue_alloc_grow. */
#define RESCUE_ALLOC_KIND_(cap)                                                                    \
  _Generic((cap), int : 0, unsigned : 1, long : 2, unsigned long : 3, long long : 4,               \
           unsigned long long : 5)
/*
** The worker behind RESCUE_ALLOC_GROW: pp is the address of the array pointer (any object
** pointer type), elem the element size, capp the address of the capacity, kind its type
** (RESCUE_ALLOC_KIND_). Call it through the macro.
*/
int rescue_alloc_grow(void *pp, size_t elem, size_t need, void *capp, int kind);

#endif
