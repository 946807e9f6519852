/*
** store_int.h: the store's SQL access and low-level writers, shared by the library's
** modules and private to the library (tools/ and programs outside the tree use the
** verbs of the public headers). All SQL text lives in schema/: modules ask for a prepared
** statement by name (rescue_store_stmt) and bind parameters by :name.
*/
#ifndef RESCUE_STORE_INT_H
#define RESCUE_STORE_INT_H

#include <stdint.h>

#include <sqlite3.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_json.h"
#include "rescue_scheme.h"
#include "rescue_audit.h"
#include "rescue_store.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/* ---- SQL access ---- */

/* The underlying connection. */
sqlite3 *rescue_store_db(rescue_store *st);
/*
** The statement called `name` in schema/queries.sql, prepared once and cached; it comes
** back reset with bindings cleared. NULL (with the error on the handle) if unknown.
*/
sqlite3_stmt *rescue_store_stmt(rescue_store *st, const char *name);
/* Bind helpers by parameter name (":name"); a missing parameter is a caller bug. */
void rescue_bind_int(sqlite3_stmt *s, const char *name, int64_t v);
void rescue_bind_double(sqlite3_stmt *s, const char *name, double v);
void rescue_bind_text(sqlite3_stmt *s, const char *name, const char *v, int len);
void rescue_bind_null(sqlite3_stmt *s, const char *name);
/* Record an SQLite failure on the handle ("what: sqlite message"); returns the code. */
int rescue_store_sqlerr(rescue_store *st, const char *what);

/*
** Writers: BEGIN IMMEDIATE (waiting up to the busy timeout, then RESCUE_EBUSY),
** COMMIT, ROLLBACK. Inside an open transaction they nest as savepoints (see
** rescue_store_group_begin in rescue_store.h).
*/
int rescue_store_begin(rescue_store *st);
/*
** The audit context set by rescue_store_set_audit (rescue_audit.h): the command line, and
** in *os_user (when os_user is not NULL) the account name given; either NULL when none.
** The store owns both strings.
*/
const char *rescue_store_audit_command(const rescue_store *st, const char **os_user);
/*
** Write an audit record (rescue_audit.h) inside the caller's open transaction, so that it
** commits or rolls back with the change it records. e->command NULL: the handle's audit
** context; the OS user is the context's, else the effective user's account.
*/
int rescue_audit_write(rescue_store *st, const rescue_audit_entry *e);
/* rescue_audit_write with the record's time given (ISO 8601 as rescue_now_iso; NULL: now). */
int rescue_audit_write_at(rescue_store *st, const rescue_audit_entry *e, const char *at);
int rescue_store_commit(rescue_store *st);
void rescue_store_rollback(rescue_store *st);

/*
** Bulk writes: when no other connection has the corpus open, switch it to a rollback
** journal for the duration (pages are then written once instead of to the WAL and again
** at the checkpoint: measured 20-25% of an import). *bulk says whether it switched; it is
** 0, and nothing changed, when anyone else is connected. rescue_store_bulk_end switches
** back to WAL. Call both outside a transaction. Note the switch updates the file's
** change counter, so callers validate their input before switching.
*/
void rescue_store_bulk_begin(rescue_store *st, int *bulk);
void rescue_store_bulk_end(rescue_store *st, int bulk);

/*
** A write by annotator_id to a sample that is "reviewed" or "discarded" reopens it: inside
** the caller's open transaction its status becomes "in_review", recorded in the status
** history under annotator_id with the reason `why` (NULL: "reopened: a row was saved"), so
** a lead sees who reopened it and why. *reopened (may be NULL) says whether it did. A
** sample that does not exist is left alone (0).
*/
int rescue_sample_reopen(rescue_store *st, const char *sample_id, int64_t annotator_id,
                         const char *why, int *reopened);

/*
** The duration in seconds of the media linked to a sample (its segment's span, else its
** source's duration; the latest link counts), into *d: 1 when known, 0 when the sample has
** no linked media or no known duration (*d untouched), a negative code on an SQLite error
** ("reading media durations"). corpus/media_link.c.
*/
int rescue_sample_media_duration(rescue_store *st, int64_t sample_ref, double *d);

/* Current UTC time as ISO-8601 with milliseconds ("2026-11-29T19:04:18.123Z"). */
void rescue_now_iso(char out[32]);

/* ---- writing samples ---- */

/* One row to store: canonical JSON and the typed copies (see rescue_row). */
typedef struct rescue_row_input {
  rescue_buf content; /* canonical JSON object */
  rescue_buf extra;   /* speaker\0entities\0utterance\0cycle\0pattern\0 */
  double start_time, end_time;
  int has_utterance, has_cycle, has_pattern;
  /*
  ** The row set whose positions the row-number lists (the scheme's ints fields) count in,
  ** for storing them as row ids (corpus/row_ref.c); 0: the row set the writer works in
  ** when it holds the row, else the one the row was made in.
  */
  int64_t ref_rowset_id;
  /*
  ** The parsed row that content was written from, when its writer keeps it alive until the
  ** row is stored: rescue_store_put_refs reads the lists there instead of parsing content.
  ** NULL: not kept (rescue_row_input_from_json leaves it as it is).
  */
  const rescue_jnode *tree;
} rescue_row_input;

/*
** Build a row input from a parsed row object: checks the structural types import
** refuses (object, finite start_time/end_time, target a list of strings), writes the
** canonical JSON and extracts the typed copies (in == NULL: only checks). On a type error returns
** RESCUE_EBADINPUT, sets *bad to the offending node, and writes the reason to err.
*/
int rescue_row_input_from_json(const rescue_scheme *sc, const rescue_jnode *row,
                               rescue_row_input *in, const rescue_jnode **bad, rescue_error *err);
void rescue_row_input_clear(rescue_row_input *in);

/* A whole sample to store. */
typedef struct rescue_sample_input {
  const char *sample_id;
  const char *head, *tail; /* see sample_version */
  int has_rows, given_keys;
  int n_rows;
  rescue_row_input *rows;
} rescue_sample_input;

enum {
  RESCUE_PUT_RESEGMENT = 1, /* a different row count, or rows that no longer line up,
                               records a new row set */
  RESCUE_PUT_EDIT = 2,      /* an edit of an existing sample: compare with the version
                                the annotator sees (theirs, else the first), not only theirs */
};

/*
** Store one sample under an annotator, inside the caller's transaction. A new sample
** gets its row set and a first version of every row. For an existing sample, each row
** whose content differs from this annotator's own latest version of it (or that this
** annotator never versioned) gets a new version; the sample-level keys likewise. Rows
** are matched by identity, not just position: with the same row count, each input row's
** span must overlap the span of the row it replaces (as this annotator sees it) by at
** least half of the shorter one. A different row count or a misaligned row is refused
** (RESCUE_EBADINPUT, naming the first misaligned row) unless RESCUE_PUT_RESEGMENT, which
** records a new row set and, per new row, the old rows it came from (same span, split
** from, merged from). `kind` is "import", "edit" or "gold". A person's new versions reopen
** a reviewed or discarded sample ("reopened: a row was saved"); a person's new row set
** reopens a reviewed one ("reopened: the rows were resegmented by an import") and is
** refused on a discarded one (rescue_store_reseg_allowed), as the page's split and merge.
*/
int rescue_store_put_sample(rescue_store *st, const rescue_sample_input *in, int64_t annotator_id,
                            const char *kind, int flags, rescue_put_stats *stats);

/*
** Whether a new row set of annotator_id's (an import's resegmentation) may be recorded
** for sample_id: a person's is refused while the sample is discarded, as the review page
** refuses a split or merge there (RESCUE_ECONFLICT: "sample '<id>' is discarded: ...", on
** the handle); a draft's, a model's and one of a sample not in the store are allowed (0).
** Reads the status as the caller's transaction sees it (none: the latest committed).
*/
int rescue_store_reseg_allowed(rescue_store *st, const char *sample_id, int64_t annotator_id);

/*
** The row identity check of rescue_store_put_sample on its own, reading only: when
** sample_id is in the store with n rows, each input span (start[i]..end[i]) must overlap
** the span annotator_id sees for row i+1 by at least half of the shorter one. 0 when it
** does (or the sample is new, or the counts differ); RESCUE_EBADINPUT naming the first
** misaligned row (*bad_row, may be NULL, gets it) otherwise. Importers call it in their
** checking pass, before anything is written.
*/
int rescue_store_check_rows(rescue_store *st, const char *sample_id, int n, const double *start,
                            const double *end, int64_t annotator_id, int *bad_row);

/*
** Add one version of an existing row (row.id) inside the caller's transaction. For
** kind "gold", gold_policy and gold_sources (a JSON array of row_version ids) say how it
** was decided; pass NULL otherwise. *version_id (may be NULL) gets the new id.
*/
int rescue_store_add_row_version(rescue_store *st, int64_t row_id, int64_t annotator_id,
                                 const char *kind, const rescue_row_input *in,
                                 const char *gold_policy, const char *gold_sources,
                                 int64_t *version_id);

/* Add row_id at `position` (1-based) of rowset_id, inside the caller's transaction. */
int rescue_store_member_insert(rescue_store *st, int64_t rowset_id, int position, int64_t row_id);

/*
** Make rowset_id the row set annotator_id works in on sample_ref (annotator_rowset), or
** with annotator_id 0 the sample's base row set; inside the caller's transaction.
*/
int rescue_store_point_rowset(rescue_store *st, int64_t sample_ref, int64_t annotator_id,
                              int64_t rowset_id);

/* ---- references follow rows (corpus/row_ref.c) ---- */

/*
** Might content (a row's JSON, NUL-terminated) hold a non-empty list in one of the scheme's
** ints fields? A cheap look at the text: 0 means certainly not.
*/
int rescue_refs_maybe(const rescue_scheme *sc, const char *content);
/*
** Store, for version_id of row_id written by annotator_id from *in, the row id of every
** number of its ints fields that names a row of in->ref_rowset_id (see there), inside the
** caller's transaction. Numbers that name no row are not stored (they stay verbatim).
** Only rescue_store_add_row_version calls it, right after the version's insert, whose trigger
** moves the sample's generation: the reference lines need none of their own (migration 14).
*/
int rescue_store_put_refs(rescue_store *st, int64_t version_id, int64_t row_id,
                          int64_t annotator_id, const rescue_row_input *in);
/*
** The references of version_id, whose content is content[0..len) (NUL-terminated), as
** positions of rowset_id: when any differs from the number written, *out gets the content
** with those lists rewritten (each position once, numbers that never resolved verbatim);
** otherwise *out is left empty. References to rows the row set holds in no form are left
** out and described in *lost as a JSON object {field: [[number as written, row id], ...]}.
*/
int rescue_store_refs_in(rescue_store *st, int64_t rowset_id, int64_t version_id,
                         const char *content, size_t len, rescue_buf *out, rescue_buf *lost);
/*
** Append row (an object) to out with its members keys[0..n) replaced by the raw JSON
** vals[], every other member written with its original spelling (edit.c).
*/
void rescue_row_write_with(rescue_buf *out, const rescue_jnode *row, const char *const *keys,
                           const char *const *vals, int n);
/*
** The tree rescue_jparse reads from what rescue_row_write_like(row, old, position) writes,
** built without writing and reading that text (rescue_jwrite of it writes the same bytes):
** a row saved through a form costs no second parse (edit.c). row must be an object. Returns
** 0 with *tree, one rescue_malloc'ed block the caller frees with rescue_free, or
** RESCUE_ENOMEM with *tree NULL. The tree points into the strings of row's and old's
** documents: they must outlive it.
*/
int rescue_row_like(const rescue_jnode *row, const rescue_jnode *old, int position,
                    rescue_jnode **tree);

#pragma GCC visibility pop

#endif
