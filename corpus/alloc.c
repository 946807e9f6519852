/*
** alloc.c: the one allocation wrapper. In the test build (testhooks_int.h) it can be made
** to fail from the Nth allocation on, and crash points live here.
*/
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "testhooks_int.h"

#if RESCUE_TEST_HOOKS
#include <signal.h>
#include <stdatomic.h>
#include <unistd.h>

static atomic_ulong alloc_count;
static atomic_ulong alloc_fail_at; /* 0 = never fail */

/* 1 when this allocation is to fail (counted either way). */
static int alloc_should_fail(void) {
  unsigned long n = atomic_fetch_add(&alloc_count, 1) + 1;
  unsigned long f = atomic_load(&alloc_fail_at);
  return f && n >= f;
}

unsigned long rescue_alloc_fail_at(unsigned long nth) {
  unsigned long done = atomic_exchange(&alloc_count, 0);
  atomic_store(&alloc_fail_at, nth);
  return done;
}

void rescue_crash_point(const char *name) {
  const char *at = getenv("RESCUE_CRASH_AT");
  if (at && strcmp(at, name) == 0)
    kill(getpid(), SIGKILL); /* as `kill -9` would: no cleanup of any kind */
}
#else
#define alloc_should_fail() 0
#endif

void *rescue_malloc(size_t n) {
  if (alloc_should_fail())
    return NULL;
  return malloc(n ? n : 1);
}

void *rescue_calloc(size_t count, size_t size) {
  if (alloc_should_fail())
    return NULL;
  return calloc(count ? count : 1, size ? size : 1);
}

void *rescue_realloc(void *p, size_t n) {
  if (alloc_should_fail())
    return NULL;
  return realloc(p, n ? n : 1);
}

char *rescue_strndup(const char *s, size_t n) {
  char *d = rescue_malloc(n + 1);
  if (d) {
    memcpy(d, s, n);
    d[n] = 0;
  }
  return d;
}

char *rescue_strdup(const char *s) { return rescue_strndup(s, strlen(s)); }

void rescue_free(void *p) { free(p); }
