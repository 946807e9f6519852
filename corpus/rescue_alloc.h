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

#endif
