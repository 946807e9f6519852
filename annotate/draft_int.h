/*
** draft_int.h: private to `rescue draft` (annotate/draft*.c): the model command runner
** (annotate/draft_run.c) that the workers of annotate/draft.c call.
*/
#ifndef RESCUE_DRAFT_INT_H
#define RESCUE_DRAFT_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_draft.h"
#include "rescue_json.h"
#include "rescue_store.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

#define ERR_TAIL 2000 /* bytes of a command's standard error reported */

/* ---- what the workers read: copies of the samples, made before they start ---- */

typedef struct d_row {
  int pos;
  int64_t row_id;
  char *content; /* the row as the model's view shows it */
} d_row;

typedef struct d_sample {
  char *sample_id;
  int64_t ref, rowset_id;
  const char *scenario;
  char *head, *tail; /* sample-level JSON around the rows */
  int has_rows;
  char *participants; /* JSON array */
  int n;
  d_row *rows;
  char draft_sha256[65]; /* of the rows as the model saw them (draft_sample_digest) */
} d_sample;

typedef struct d_request {
  d_sample *s;
  int from, to; /* positions, inclusive */
  /* filled by the worker */
  rescue_buf answer; /* JSON array of the merged rows to store, "" when none */
  int *store_pos;    /* positions of those rows */
  int n_store;
  int done;
  const char *created_at; /* a merged request's time (from its answers file); NULL: now */
} d_request;

typedef struct d_run {
  const rescue_scheme *sc;
  const rescue_draft_opts *o;
  const char *tmpl;
  size_t tmpl_len;
  d_request *req;
  rescue_draft_outcome *out;
  int n_req;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int next;      /* next request to take */
  int *finished; /* queue of finished request indexes */
  int n_finished;
} d_run;

/* ---- annotate/draft.c, for the answers files of annotate/draft_shard.c ---- */

/* The model annotator `name` (role model) into *id; 0 or an error kept on the store. */
int draft_check_model(rescue_store *st, const char *name, int64_t *id);
/*
** The samples o selects (o->samples, o->shard_i/n) as the model's view shows them, each with
** its draft_sha256. 0 or an error kept on the store; free with draft_free_samples.
*/
int draft_load_samples(rescue_store *st, const rescue_draft_opts *o, int64_t model_id,
                       d_sample **out, int *n_out);
void draft_free_samples(d_sample *list, int n);
/*
** Store request idx of R (its provenance, its versions, its audit record) inside the
** caller's transaction. 0 or an error kept on the store (the caller rolls back).
*/
int draft_store_in_txn(rescue_store *st, d_run *R, int idx, int64_t model_id);
/*
** A request's provenance as members of the open object of w, in the order of keys (NULL
** ends it): any of "status", "attempts", "wall_ms", "exit_status" (null before any attempt),
** "error", "prompt_sha256", "tolerances", "findings". The report JSON (draft.c) and the
** answers file (draft_shard.c) write them in orders of their own.
*/
void draft_outcome_put(rescue_jw *w, const rescue_draft_outcome *o, const char *const *keys);

/* ---- annotate/draft_shard.c ---- */

/* The first line of an answers file (the run's model and command) into R->o->answers. */
void draft_answers_head(const d_run *R);
/* Request idx as one line of the answers file (R->o->answers); nothing is stored. */
void draft_answers_put(const d_run *R, int idx);
/* The closing line: the number of request lines (a file without it is truncated). */
void draft_answers_end(const d_run *R);

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
