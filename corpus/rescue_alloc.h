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

/*
** Test hook: when the environment variable RESCUE_CRASH_AT equals name, the process
** kills itself with SIGKILL here (as `kill -9` at that moment would), so a test can check
** what a killed import or export leaves behind. The points: import-checked (checking
** pass done, nothing written), import-writing (first sample written, not committed),
** import-before-commit; export-started (temporary output made), export-complete (written
** and flushed, not renamed), export-replaced (new output in place, the old one not yet
** removed).
*/
void rescue_crash_point(const char *name);

#endif
