/*
** rescue_workflow.h: the review workflow's shared state (public): sample statuses with
** their history, comments on samples and rows, and what is assigned to whom with how far
** each annotator has got. The command line and the review server call the same verbs.
** None of this is ever written into sample or task exports.
*/
#ifndef RESCUE_WORKFLOW_H
#define RESCUE_WORKFLOW_H

#include <stdint.h>

#include "rescue_annotators.h"
#include "rescue_store.h"

/* ---- sample status (rescue_sample_set_status in rescue_store.h changes it) ---- */

/* 1 for "new", "in_review", "reviewed", "discarded". */
int rescue_status_valid(const char *status);

typedef struct rescue_status_entry {
  char *status;
  char *reason;    /* NULL: none given */
  char *annotator; /* who changed it; NULL: not recorded */
  char *created_at;
} rescue_status_entry;

/*
** The status history of one sample, oldest first (RESCUE_ENOTFOUND for an unknown
** sample). *out is owned by the caller: free with rescue_status_history_free.
*/
int rescue_status_history(rescue_store *st, const char *sample_id, rescue_status_entry **out,
                          int *n);
void rescue_status_history_free(rescue_status_entry **list, int n);

/* ---- comments ---- */

typedef struct rescue_comment {
  int64_t id;
  char *sample_id;
  int row;         /* 1-based row position; 0: a comment on the whole sample */
  char *annotator; /* NULL: not given */
  char *text;
  char *created_at;
} rescue_comment;

/*
** Add a comment on sample_id (row 0) or on one of its current rows (1..n_rows), by
** annotator_id (0: not given), in its own transaction. Refuses an unknown sample
** (RESCUE_ENOTFOUND), a row outside the sample and an empty or unsafe text
** (RESCUE_EINVAL). *id (may be NULL) gets the comment's id.
*/
int rescue_comment_add(rescue_store *st, const char *sample_id, int row, const char *text,
                       int64_t annotator_id, int64_t *id);
/*
** Comments in sample order, then oldest first; samples (n_samples ids, may be 0)
** restricts them (an unknown id is RESCUE_ENOTFOUND). Free with rescue_comments_free.
*/
int rescue_comments_list(rescue_store *st, const char *const *samples, int n_samples,
                         rescue_comment **out, int *n);
void rescue_comments_free(rescue_comment **list, int n);
/*
** {"comments": [{"id", "sample_id", "row" (null for the sample), "annotator" (or null),
** "text", "created_at"}]}, no trailing newline.
*/
void rescue_comments_json(const rescue_comment *list, int n, rescue_buf *out);
/*
** A status history as a JSON array in w: [{"status", "reason" (or null), "annotator" (or
** null), "created_at"}], oldest first.
*/
void rescue_status_history_jw(rescue_jw *w, const rescue_status_entry *h, int n);

/* ---- what is assigned to whom ---- */

typedef struct rescue_assignment_info {
  char *sample_id;
  char *annotator;
  char *status;        /* the sample's status */
  char *status_reason; /* NULL: none */
  int n_rows;          /* rows in the sample's current row set */
  long rows_saved;     /* of those, rows this annotator has saved a version of */
  long comments;       /* comments on the sample (by anyone) */
} rescue_assignment_info;

/*
** The latest assignment run's (sample, annotator) pairs in sample order then annotator
** name; annotator_id restricts them to one annotator (0: everyone). *run describes the run
** (run->id 0: no assignment yet, and the list is empty). Free with rescue_assign_list_free.
*/
int rescue_assign_list(rescue_store *st, int64_t annotator_id, rescue_assignment_info **out, int *n,
                       rescue_assign_run *run);
void rescue_assign_list_free(rescue_assignment_info **list, int n, rescue_assign_run *run);
/*
** {"run": {...} or null, "assignments": [{"sample_id", "annotator", "status",
** "status_reason", "rows", "rows_saved", "comments"}]}, no trailing newline.
*/
void rescue_assign_list_json(const rescue_assignment_info *list, int n,
                             const rescue_assign_run *run, rescue_buf *out);

#endif
