/*
** rescue_edit.h: editing a sample through one annotator's view (public): the sample as
** their view shows it, parsed; the rule that writes an edited row in the spelling of the
** version it replaces; and resegmenting (split a row, merge two, move a row's times). The
** review server calls these, and so can any other client. Saving one row is
** rescue_row_save (rescue_store.h).
*/
#ifndef RESCUE_EDIT_H
#define RESCUE_EDIT_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_store.h"

/* A sample as one annotator's view shows it, in release form and parsed. */
typedef struct rescue_view_sample {
  rescue_buf json;            /* the sample in release form (rescue_sample_write_json) */
  rescue_jdoc *doc;           /* owns the parsed nodes below */
  const rescue_jnode *sample; /* the sample object */
  const rescue_jnode **rows;  /* n: each row object */
  int64_t *versions;          /* n: the row_version shown */
  int64_t *row_ids;           /* n: each row's stable id (row.id) */
  int64_t ref, rowset_id;     /* sample.id and the row set shown */
  int *mine;                  /* n: that version is the annotator's own, of this row */
  int *origin;                /* n: RESCUE_ROW_OWN, _CARRIED, _SPLIT, _MERGED */
  int *seg_changed;           /* n: someone else's resegmentation changed the row */
  char **lost_refs;           /* n: rescue_row.lost_refs, or NULL */
  int n, n_rows;              /* rows shown, rows in the row set */
  char status[16];            /* new | in_review | reviewed | discarded */
  char scenario[16];          /* couple | family (rescue_sample_scenario) */
  char *group;                /* "" when none */
  char *head, *tail;          /* the stored sample-level JSON around the rows (rescue_sample) */
  int has_rows, given_keys;
  rescue_jdoc **patches; /* n_patched: each owns a row put in by
                                 rescue_view_sample_put_row */
  int n_patched;         /* rows put in since the load */
} rescue_view_sample;

/*
** Load sample_id as annotator_id's view shows it (RESCUE_VIEW_ANNOTATOR) into *out, which
** the caller clears with rescue_view_sample_clear (also after a failure). An unknown sample
** is RESCUE_ENOTFOUND; the detail of any failure is on the store handle.
*/
int rescue_view_sample_load(rescue_store *st, const char *sample_id, int64_t annotator_id,
                            rescue_view_sample *out);
/* Free what *vs holds and zero it; accepts a zeroed struct. */
void rescue_view_sample_clear(rescue_view_sample *vs);

/*
** The generation of sample_id (schema migration 13: every write touching how a view shows
** the sample adds one, in the writing transaction, from any program) into *gen, and its
** status into status (when not NULL, at least 16 bytes). Read it before loading a view:
** while it stays the same, the loaded view is current. Unknown sample: RESCUE_ENOTFOUND.
*/
int rescue_sample_generation(rescue_store *st, const char *sample_id, int64_t *gen, char *status);

/*
** Put the row just saved by the view's own annotator into the loaded view *L: row_json (the
** row as that view shows it, e.g. written by rescue_row_write_like) at 1-based position, as
** their own version `version`. The replaced row stays readable until *L is cleared (so a
** caller can compare); each put row costs one parsed row until *L is cleared. Returns 0, RESCUE_EINVAL (bad
** position or row) or RESCUE_ENOMEM; *L is unchanged on a failure.
*/
int rescue_view_sample_put_row(rescue_view_sample *L, int position, const char *row_json,
                               size_t len, int64_t version);

/*
** Append to out the edited row `row` written like `old`, the version it replaces (may be
** NULL): a number whose value is unchanged keeps the old spelling (a browser sends 0.0
** back as 0), a changed number is written as a real where the old one was a real
** (end_time 3 becomes 3.0), and a numeric row_index becomes `position` (a position is not
** an annotation: a row that came from a split carries its parent's number). So saving
** through a form changes only what the annotator changed. row must be an object.
*/
void rescue_row_write_like(rescue_buf *out, const rescue_jnode *row, const rescue_jnode *old,
                           int position);

/* ---- resegmenting ---- */

typedef enum rescue_reseg_op {
  RESCUE_RESEG_SPLIT, /* row becomes [start, at) and [at, end), both with its annotation */
  RESCUE_RESEG_MERGE, /* row and the next one become one (texts joined with a space) */
  RESCUE_RESEG_TIMES  /* row gets new start and end times (a new version of the row) */
} rescue_reseg_op;

typedef struct rescue_resegment {
  rescue_reseg_op op;
  int row;              /* 1-based position in the annotator's view */
  int64_t base_version; /* the version of `row` the edit started from */
  int64_t next_version; /* MERGE: the version of row + 1 it started from */
  double at;            /* SPLIT: the time to split at (rounded to milliseconds) */
  double start, end;    /* TIMES: the new span (0 <= start < end) */
} rescue_resegment;

/*
** Resegment sample_id through annotator_id's view. SPLIT and MERGE record a new row set
** that becomes that annotator's own (in one transaction): the rows of their view with
** unchanged rows keeping their ids, a split row replaced by two new rows, two merged rows
** by a new row, or by their parent again when they are the two halves of one split
** (corpus/FORMAT.md §4); nobody else's row set changes. The sample's status is read in
** that transaction (a status another program set since the view was loaded counts): a
** sample that was new is then in review; a reviewed one is reopened to in review, as a
** save reopens it, recorded in its status history under annotator_id ("reopened: a row was
** split", "reopened: two rows were merged"); a discarded one refuses them. TIMES saves a
** new version of the row with rescue_row_save (and its rules, reopening included).
** Refusals: a row that does not exist, a merge without a next row, a split time outside
** the row, bad times (RESCUE_EINVAL); a base version that is no longer what the view
** shows, a split or merge in a discarded sample (RESCUE_ECONFLICT); a row the result would
** make invalid (RESCUE_EBADINPUT); an unknown sample (RESCUE_ENOTFOUND). *n_rows (may be
** NULL) gets the rows of the sample afterwards; *version (may be NULL) the new row version
** of TIMES, or, when rescue_row_save found a newer version (RESCUE_ECONFLICT), that version
** (0 when the conflict was found before saving).
*/
int rescue_sample_resegment(rescue_store *st, const char *sample_id, int64_t annotator_id,
                            const rescue_resegment *op, int *n_rows, int64_t *version);

#endif
