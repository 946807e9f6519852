/*
** draft_int.h: private to `rescue draft` (annotate/draft*.c): the model command runner
** (annotate/draft_run.c) that the workers of annotate/draft.c call.
*/
#ifndef RESCUE_DRAFT_INT_H
#define RESCUE_DRAFT_INT_H

#include <stddef.h>

#include "rescue_buf.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

#define ERR_TAIL 2000 /* bytes of a command's standard error reported */

/* What a run of the command gave. */
typedef struct d_exec {
  int status; /* exit code, 128+signal, -1 timed out, -2 could not start */
  rescue_buf out, err;
} d_exec;

/* Seconds on the monotonic clock. */
double draft_now(void);

/* "k=v" in a new string (the caller frees it), or NULL when out of memory. */
char *draft_env_entry(const char *k, const char *v);

void draft_run_command(const char *cmd, char *const *extra, int n_extra, const char *in,
                       size_t inlen, double timeout, d_exec *x);

/* The last line(s) of a command's standard error, for a message. */
void draft_err_tail(const rescue_buf *b, char *out, size_t cap);

#pragma GCC visibility pop

#endif
