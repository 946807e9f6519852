/*
** rescue_review.h: reviewing samples one annotator at a time (public): who a reviewer is,
** whether a sample is theirs to write, their work list, the leads' progress figures, and
** lint for a sample as a view shows it and for one row before it is saved. The review
** server (tools/serve/) is one client of these; a script or another front end can be
** another. Editing rows and segments is rescue_edit.h, saving rescue_row_save.
*/
#ifndef RESCUE_REVIEW_H
#define RESCUE_REVIEW_H

#include <stdint.h>

#include "rescue_edit.h"
#include "rescue_lint.h"
#include "rescue_store.h"
#include "rescue_subtitles.h"

/* ---- reviewers ---- */

typedef struct rescue_reviewer {
  int64_t id;
  char name[128]; /* cut at 127 bytes */
  char role[16];  /* annotator | lead | model */
  int retired;
  char token_hash[65]; /* hex SHA-256 of their sign-in token ("" when none): a session
                          signed in with another token has ended (rotation) */
} rescue_reviewer;

/* The annotator with id `id` into *out; RESCUE_ENOTFOUND when there is none. */
int rescue_reviewer_get(rescue_store *st, int64_t id, rescue_reviewer *out);

/*
** Who may write sample_id under the latest assignment run: *any says whether the run gives
** the sample to anyone, *mine whether it gives it to annotator_id (no run yet: both 0). A
** sample nobody is assigned is open to everyone; leads decide for themselves.
*/
int rescue_review_assigned(rescue_store *st, const char *sample_id, int64_t annotator_id, int *any,
                           int *mine);

/*
** The access generation into *gen: a number that moves with every write to the annotators
** (names, roles, tokens, retirement), the assignments or the set of samples, by any
** program. What rescue_reviewer_get, rescue_annotator_by_token, rescue_review_assigned and
** rescue_sample_ref answered in a read of generation g holds in every later read of g.
*/
int rescue_access_generation(rescue_store *st, int64_t *gen);

/* ---- an annotator's work list ---- */

typedef struct rescue_work_item {
  char *sample_id;
  char *group;
  const char *scenario; /* "couple" or "family" (static) */
  char *status;
  char *status_reason; /* NULL: none */
  int rows;            /* rows in the current row set */
  int mine;            /* of those, rows annotator_id has a version of */
  int assigned;        /* the latest assignment run gives the sample to annotator_id */
  char *assignees;     /* who the run gives it to, comma-separated ("" when nobody) */
} rescue_work_item;

/*
** The samples annotator_id works on, in sample order: with every set, every sample (what a
** lead sees); otherwise the samples the latest assignment run gives them, or every sample
** while no assignment exists. *assignments (may be NULL) says whether any assignment run
** exists. The scenario follows corpus/FORMAT.md §6.3 over every version of the rows. *out
** is the caller's: free with rescue_work_list_free.
*/
int rescue_work_list(rescue_store *st, int64_t annotator_id, int every, rescue_work_item **out,
                     int *n, int *assignments);
void rescue_work_list_free(rescue_work_item **list, int n);

/* ---- the leads' progress figures ---- */

typedef struct rescue_progress_person {
  char *name;
  char *role;
  long assigned;      /* samples the latest assignment run gives them */
  long assigned_rows; /* rows of those samples */
  long rows_saved;    /* rows of current row sets they wrote a version of (saved or imported) */
  long reviewed;      /* of their assigned samples, those reviewed */
} rescue_progress_person;

typedef struct rescue_progress {
  struct {
    char status[16];
    long n;
  } by_status[8]; /* samples per status, in status order; n_status used */
  int n_status;
  long samples;                   /* samples not discarded */
  long prepared;                  /* of those, samples with rows */
  long rows;                      /* rows of the samples not discarded */
  long rows_reviewed;             /* rows of reviewed samples */
  long commented_samples;         /* samples not discarded with at least one comment */
  rescue_progress_person *people; /* registered people (no models, no pseudo-annotators) */
  int n_people;
} rescue_progress;

/*
** Fill *out with the corpus's review progress (agreement and label statistics are
** rescue_agree_corpus and rescue_stats_*). Free with rescue_progress_clear, also after
** a failure.
*/
int rescue_progress_get(rescue_store *st, rescue_progress *out);
void rescue_progress_clear(rescue_progress *p);

/* ---- lint while reviewing ---- */

/*
** Lint a whole sample as the view *vs shows it, with its subtitle cues (what a review
** page marks), into *res (cleared by the caller with rescue_lint_result_clear), with the
** names the findings were judged by in res->ents (rescue_lint_sample_ents): kept beside
** the view, they spare each later row check (rescue_review_check_change) and put
** (rescue_review_put_*) a walk over every row.
*/
int rescue_review_lint(rescue_store *st, const char *sample_id, const rescue_view_sample *vs,
                       rescue_lint_result *res);

/*
** Lint the row an annotator is about to save as row `position` of sample_id, written as
** rescue_row_save will store it (rescue_row_write_like against their view): only that row
** and the one before it (for the time-order rules) are checked, a small fraction of the
** work on a long sample. 0 when the row may be saved (its warnings in *res);
** RESCUE_EBADINPUT when a finding on the row is an error (nothing should be saved; the
** findings in *res) or row_json is not a JSON object; RESCUE_ENOTFOUND for an unknown
** sample or row. *res is cleared by the caller with rescue_lint_result_clear.
*/
int rescue_review_check_row(rescue_store *st, const char *sample_id, int position,
                            int64_t annotator_id, const char *row_json, size_t len,
                            rescue_lint_result *res);

/*
** rescue_review_check_row against a view already loaded (*L, for the annotator who saves;
** not changed, so it may be shared with readers), and the row as checked (written like
** the view's row) into *shown when not NULL: what rescue_review_put_row takes after the
** save. Reads the sample's cues from st.
*/
int rescue_review_check_row_in(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                               int position, const char *row_json, size_t len,
                               rescue_lint_result *res, rescue_buf *shown);

/*
** A row checked for saving against a loaded view (rescue_review_check_change): the row as
** the view will show it, the lint of the rows the change can affect (the row's own
** findings among them: what to answer the save with), and which rows those are, so that
** after the save rescue_review_put_change brings the view's whole-sample lint up to date
** without linting again. Cleared with rescue_review_change_clear.
*/
typedef struct rescue_review_change {
  int position;            /* the row, 1-based */
  int n;                   /* rows of the view it was checked against */
  rescue_buf shown;        /* the row as the view will show it */
  rescue_lint_result lint; /* findings on the rows judged */
  unsigned char *judged;   /* n flags: the rows the change can affect */
} rescue_review_change;

/*
** rescue_review_check_row_in into *ch (its lint and shown), with the rows it judged.
** kept: *L's whole-sample lint as rescue_review_lint made it and rescue_review_put_* kept
** it current (NULL when there is none): its names (kept->ents) spare the check a walk
** over every row when the edit leaves the row's primary_speaker, target and
** support_strategy as they were (rescue_lint_row_change_kept); the findings are the same
** with or without it. ch->lint.ents takes the edited view's names when they may differ
** from kept's (for rescue_review_put_change). Same returns; *ch is to be cleared whatever
** the return.
*/
int rescue_review_check_change(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                               const rescue_lint_result *kept, int position, const char *row_json,
                               size_t len, rescue_review_change *ch);
void rescue_review_change_clear(rescue_review_change *ch);

/*
** rescue_review_check_change with the sample's subtitle cues given instead of read from
** st (NULL: read, as rescue_review_check_change does): *cues as rescue_sample_cues gives
** them, read at the same state of the store as *L, e.g. kept beside a loaded view and
** used while the sample's generation (rescue_sample_generation) is the one both were read
** at. Like rescue_row_known for a save, the caller answers for them being current; the
** findings are then those rescue_review_check_change would make. *cues is only read.
*/
int rescue_review_check_change_known(rescue_store *st, const char *sample_id,
                                     const rescue_view_sample *L, const rescue_lint_result *kept,
                                     const rescue_cues *cues, int position, const char *row_json,
                                     size_t len, rescue_review_change *ch);

/*
** After the view's annotator saved row `position` as `version` (row_json: the row as their
** view shows it, rescue_review_check_row_in's shown): put it into *L
** (rescue_view_sample_put_row) and bring *full, the whole-sample lint of *L before the save
** (rescue_review_lint), to what rescue_review_lint of the new view gives, judging again
** only the rows the edit can change (rescue_lint_row_change_kept, with full->ents, the
** names of *L before the save, when rescue_review_lint left them there; full->ents then
** becomes those of the new view); findings come sorted by
** row. RESCUE_ECONFLICT when the edit changed the sample's entity set (participants or
** scenario, which the loaded sample object holds): then load the view again. On any
** failure *L and *full are no longer to be used.
*/
int rescue_review_put_row(rescue_store *st, const char *sample_id, rescue_view_sample *L,
                          int position, const char *row_json, size_t len, int64_t version,
                          rescue_lint_result *full);

/*
** rescue_review_put_row for a row checked with rescue_review_check_change against this same
** view, unchanged since (the caller knows: nothing was put into *L in between): the lint
** of the check is used, not made again; ch->lint's findings move into *full, and its
** names (ch->lint.ents, when the edit gave new ones) replace full->ents.
** RESCUE_EINVAL when *ch was not checked against a view of this size.
*/
int rescue_review_put_change(rescue_store *st, const char *sample_id, rescue_view_sample *L,
                             rescue_review_change *ch, int64_t version, rescue_lint_result *full);

#endif
