/*
** rescue_draft.h: pre-annotation by any model command (public).
**
** For each sample (or each window of rows), a prompt is built from the corpus's scheme
** and a template (schema/draft_prompt.txt unless another is given), the command is run
** with the prompt on its standard input, and its answer is read tolerantly, matched to
** the requested rows, checked with the lint rules, retried with the findings when it has
** errors, and stored as the model annotator's versions with their provenance (command,
** prompt SHA-256, attempts, wall time, exit status). README "Pre-annotating with a model"
** describes the whole procedure for users.
*/
#ifndef RESCUE_DRAFT_H
#define RESCUE_DRAFT_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_store.h"

/* One request: a window of one sample's rows, and what became of it. */
typedef struct rescue_draft_outcome {
  char *sample_id;
  int row_from, row_to; /* row_index (1-based, inclusive) */
  const char *status;   /* "ok", "partial" (some rows kept back), "failed" */
  int attempts;         /* runs of the command */
  long wall_ms;         /* wall time of all attempts */
  int exit_status;      /* of the last run: exit code, 128+signal, -1 timed out */
  char *error;          /* why the request failed, or NULL */
  char *prompt_sha256;  /* hex SHA-256 of the first attempt's prompt */
  int rows_imported;    /* versions written */
  int rows_kept_back;   /* requested rows not written (errors or no answer) */
  int rows_unchanged;   /* answered rows identical to the model's latest version: not written */
  int n_findings;
  char **findings; /* "row 3: error: R06 utterance_type: ..." still present */
  long coerced;    /* answer-shape tolerances used (fenced/prose JSON, by order) */
} rescue_draft_outcome;

typedef struct rescue_draft_report {
  const char *model; /* the annotator name given */
  int n;
  rescue_draft_outcome *outcomes; /* in request order */
  long requests, ok, partial, failed;
  long rows_imported, rows_kept_back, rows_unchanged;
} rescue_draft_report;

typedef struct rescue_draft_opts {
  const char *model_cmd;      /* run with /bin/sh -c */
  const char *annotator;      /* a registered annotator with role model */
  const char *const *samples; /* only these (NULL/0: every sample not discarded) */
  int n_samples;
  int rows_per_request;        /* 0: a whole sample per request */
  int jobs;                    /* requests run at once (>= 1) */
  double timeout;              /* seconds per run of the command */
  int retries;                 /* extra runs after a failed or faulty answer */
  const char *prompt_template; /* NULL: the built-in template */
  size_t prompt_template_len;
  const char *template_name; /* for messages ("prompt.txt"); NULL: "built-in" */
  /* print-only mode: no command is run and nothing is stored; each prompt goes here */
  void (*on_prompt)(void *arg, const char *sample_id, int from, int to, const char *prompt,
                    size_t len);
  /* only the samples whose rescue_fnv1a64(sample_id) % shard_n is shard_i - 1, the same
     assignment as rescue_clip's (shard_n 0: all) */
  int shard_i, shard_n;
  /* non-NULL: store nothing (the store may be a read-only snapshot); write an answers file
     here instead, for rescue_draft_merge: a first line naming the model and the command,
     one JSON line per request (its checked rows, named by row id and position, and its
     provenance), and a closing line with the number of requests */
  rescue_buf *answers;
  /* called in the calling thread after each request is stored (or failed) */
  void (*on_done)(void *arg, const rescue_draft_outcome *o, long done, long total);
  void *arg;
} rescue_draft_opts;

/* The built-in prompt template (schema/draft_prompt.txt); *len gets its size. */
const char *rescue_draft_default_template(size_t *len);

/*
** Run the draft. Returns 0 when every request succeeded, RESCUE_EPARTIAL when some
** failed or kept rows back (the report says which; what succeeded is stored), or another
** error (nothing stored by the failing step) with the detail on the store handle: an
** unknown or non-model annotator, a sample that does not exist, a bad template.
** Each request's versions are stored in their own transaction, one request at a time.
** The report is filled in every case; release it with rescue_draft_report_clear.
*/
int rescue_draft(rescue_store *st, const rescue_draft_opts *o, rescue_draft_report *rep);
void rescue_draft_report_clear(rescue_draft_report *rep);

/* What rescue_draft_merge did. */
typedef struct rescue_draft_merge_report {
  long files, requests; /* answers files read, request lines in them */
  long merged, already; /* requests stored now; requests a merge stored before */
  long refused;         /* requests of refused samples (nothing of them stored) */
  long samples_refused; /* samples whose draft changed since the snapshot */
  long rows_imported, rows_unchanged, rows_kept_back;
  char **refusals; /* one message per refused sample, naming the file and line */
  int n_refusals;
} rescue_draft_merge_report;

/*
** Apply answers files that `rescue_draft` wrote with opts.answers (shards on other
** machines) to st, in one transaction: the same provenance records and versions as a
** local run, with the shards' times. A request already merged (same model, sample, rows,
** prompt hash, attempts, time) adds nothing. A sample whose row set or rows as the model
** sees them differ from those the shard read is refused (a message in rep->refusals;
** its requests add nothing, the rest merge). A file that is not an answers file, has a
** line that is not valid, or lacks its closing line (truncated) refuses the whole merge
** with RESCUE_EINVAL and "<file>:<line>: ..." on the handle; nothing is written. An
** unknown model annotator is refused too. Returns 0, RESCUE_EPARTIAL when samples were
** refused (the rest stored), or an error. Free rep with rescue_draft_merge_report_clear.
*/
int rescue_draft_merge(rescue_store *st, const char *const *files, int n_files,
                       rescue_draft_merge_report *rep);
void rescue_draft_merge_report_clear(rescue_draft_merge_report *rep);

/*
** {"model", "requests", "ok", "partial", "failed", "rows_imported", "rows_kept_back",
**  "rows_unchanged", "outcomes": [...]}; each outcome has its own three row counts.
*/
void rescue_draft_report_json(const rescue_draft_report *rep, rescue_buf *out);

#endif
