/*
** rescue_alloc.h: the one allocation wrapper (public).
** Every allocation in the library goes through these, so a test can make the Nth
** allocation fail (rescue_alloc_fail_at) and check the error path cleans up.
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
** Test hook: make the nth allocation from now (1 = the next one) and every later one
** return NULL; 0 turns failures off. Returns how many allocations happened since the
** previous call, so a test can loop over every failure point.
*/
unsigned long rescue_alloc_fail_at(unsigned long nth);

#endif
