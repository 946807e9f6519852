/*
** rescue_store.h: the corpus store, one SQLite file per corpus (public).
**
** A store holds samples (grouped by couple or family), their fixed row sets, and every
** version of every row's annotation with its annotator and time; nothing is overwritten.
** Which version a reader sees is a rescue_view (corpus/FORMAT.md §5, "Versions and views"). This header is the public part; the SQL access and the low-level
** writers the library modules share are in store_int.h.
**
** Error handling: functions return 0 or a negative rescue_errcode and leave the detail
** on the handle (rescue_store_errmsg). Nothing here prints or exits.
*/
#ifndef RESCUE_STORE_H
#define RESCUE_STORE_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_json.h"
#include "rescue_scheme.h"

#define RESCUE_APPLICATION_ID 0x52455343 /* "RESC" */

typedef struct rescue_store rescue_store;

enum {
  RESCUE_OPEN_READONLY = 1, /* no writes; also works on a read-only file */
  RESCUE_OPEN_DURABLE = 2,  /* every commit survives a power cut: synchronous = FULL, one
                               more fsync of the WAL per commit (the default, NORMAL, may
                               lose the last commits to a power cut, never to a crash) */
  RESCUE_OPEN_SNAPSHOT = 4, /* a snapshot `rescue backup` wrote, read-only and immutable
                               (implies RESCUE_OPEN_READONLY): see rescue_store_backup; a
                               live WAL-mode corpus is opened read-only, not immutable */
};

/*
** Create a new, empty corpus at path with the given scheme XML (NULL: the built-in
** RESCUE scheme). Refuses an existing file (RESCUE_EEXISTS). On failure nothing is left
** behind at path.
*/
int rescue_store_create(const char *path, const char *scheme_xml, size_t scheme_len,
                        rescue_error *err);

/*
** Open an existing corpus; never creates one. A path that does not exist or is not a
** rescue corpus gives RESCUE_ENOTCORPUS with a message that suggests `rescue init`.
** Runs pending migrations (unless read-only). *out owns the handle.
*/
int rescue_store_open(rescue_store **out, const char *path, int flags, rescue_error *err);
/* Close and NULL the handle; accepts NULL. */
void rescue_store_close(rescue_store **st);

/*
** Copy the corpus, consistent while others write to it, to a new file dest with SQLite's
** online backup API (the copy is one read transaction: every commit before it, none
** after). The copy is a self-contained file in rollback-journal mode, written under a
** temporary name and renamed when complete; an existing dest is refused
** (RESCUE_EEXISTS). Copying a live WAL-mode file with cp is not a backup: the last
** commits may sit in its -wal file. *pages gets the pages copied (NULL: not wanted).
**
** Open such a snapshot with RESCUE_OPEN_SNAPSHOT to read it from many processes and
** hosts at once (cluster shards): it is opened as "file:<path>?immutable=1", read-only,
** without locks and without a -wal or -shm file. SQLite can open a WAL-mode file
** read-only only when its -shm file exists or can be created beside it, and WAL's shared
** memory does not work across hosts (a network file system), so shards never use it; a
** snapshot no one writes is safe to read that way.
*/
int rescue_store_backup(rescue_store *st, const char *dest, int64_t *pages, rescue_error *err);

/* Detail of the last failure on this handle. */
const char *rescue_store_errmsg(const rescue_store *st);
/*
** How long the next writes on st wait for another process's writer before RESCUE_EBUSY,
** in milliseconds (ms > 0; a new store waits 10 s). A server bounds each request's total
** wait with it.
*/
void rescue_store_busy_timeout(rescue_store *st, int ms);
/*
** Never wait for a lock on st (a server thread that must stay free for its connections):
** from now on a statement that would wait for another connection fails at once with
** RESCUE_EBUSY and sets *would_wait to 1 (the caller clears it, runs its reads, and hands
** the work to a thread that may wait when it was set). rescue_store_busy_timeout undoes it.
*/
void rescue_store_never_wait(rescue_store *st, int *would_wait);
/*
** Group commit (a server's writer): open a transaction on st in which every later write
** through st nests (each call's own transaction becomes a savepoint: a refused or failed
** write undoes only itself), then commit them all at once with rescue_store_group_commit:
** one sync of the log for many writes, none of them stored before it returns 0. When it
** fails nothing of the group is stored. Waits for another process's writer like any write
** (rescue_store_busy_timeout).
*/
int rescue_store_group_begin(rescue_store *st);
int rescue_store_group_commit(rescue_store *st);
/* Undo the whole group (nothing of it is stored). */
void rescue_store_group_rollback(rescue_store *st);
/*
** Deferred sync (a server's group writer): from now on a commit on st writes the log but
** does not wait for the disk; rescue_store_sync(st) then syncs everything committed
** before it was called, and a write may be reported stored only after it returned 0. It
** may run on another thread while st goes on with the next writes (it only reads what
** rescue_store_defer_sync set), so a slow disk no longer holds the writer lock. 0, or
** an error code when the log cannot be opened (commits then stay synced as before).
*/
int rescue_store_defer_sync(rescue_store *st);
/* Sync what st committed since it deferred syncs (0; RESCUE_EIO with errno set). */
int rescue_store_sync(const rescue_store *st);
/*
** A read transaction (a server's request): every read on st until rescue_store_read_end
** sees one snapshot of the store, and the connection checks for other writers' changes
** once instead of at every statement. A write on st (rescue_store_begin) ends it first,
** so writes always start from the latest store. Never waits: 0, or an error code when the
** snapshot cannot be opened. read_end is a no-op when none is open.
*/
int rescue_store_read_begin(rescue_store *st);
void rescue_store_read_end(rescue_store *st);
/* The error record itself (to pass to helpers that take a rescue_error *). */
rescue_error *rescue_store_err(rescue_store *st);
/* The path given to open. */
const char *rescue_store_path(const rescue_store *st);
/* The corpus's annotation scheme (owned by the store). */
const rescue_scheme *rescue_store_scheme(const rescue_store *st);

/* ---- annotators ---- */

/*
** The pseudo-annotator of drafts: an import without --annotator (a release file, a
** subtitle draft). Its versions (and a model's) are where every annotator's view starts;
** it is never a coder.
*/
#define RESCUE_DRAFT_ANNOTATOR "import"
/* The pseudo-annotator that adjudicated gold versions are written under (role lead). */
#define RESCUE_ADJUDICATION_ANNOTATOR "adjudication"

/*
** Id of annotator `name`; when absent and create is set, adds it with `role`
** ("annotator", "lead" or "model"). RESCUE_ENOTFOUND when absent and not created.
*/
int rescue_annotator_id(rescue_store *st, const char *name, const char *role, int create,
                        int64_t *id);
/*
** Id of the registered annotator `name` (one added with rescue_annotator_add, or an older
** store's); the draft and adjudication pseudo-annotators are not registered annotators.
** An unknown name is RESCUE_ENOANNOTATOR (arg: the name) with a message naming the closest
** registered names. *role (may be NULL) gets a static copy of the
** role ("annotator", "lead", "model"), *retired (may be NULL) whether it is retired.
*/
int rescue_annotator_lookup(rescue_store *st, const char *name, int64_t *id, const char **role,
                            int *retired);

/*
** Why `name` cannot be stored as a name ("is empty", "is not valid UTF-8", "contains a
** control character"), or NULL when it can: names end up in JSON outputs and on
** terminals. rescue_annotator_id refuses such a name (RESCUE_EINVAL) when it would
** create an annotator; rescue_annotator_name_invalid adds the annotator rules.
*/
const char *rescue_name_unsafe(const char *name);
/*
** Why `name` cannot be an annotator's name (a sentence starting "it ..." or "the name
** ..."), or NULL when it can: rescue_name_unsafe's rules, at most 64 bytes, no space at
** either end, no comma, and neither pseudo-annotator's name. rescue_annotator_add and an
** import under a named annotator apply it; so can a client before either.
*/
const char *rescue_annotator_name_invalid(const char *name);

/* ---- views ---- */

typedef enum rescue_view_kind {
  RESCUE_VIEW_CORPUS,   /* gold where it exists, else the latest version by anyone */
  RESCUE_VIEW_GOLD,     /* adjudicated gold only (rows without gold are missing) */
  RESCUE_VIEW_LATEST,   /* the latest version by anyone, gold or not */
  RESCUE_VIEW_ANNOTATOR /* the annotator's own latest, else carried over from their version
                            before a resegmentation, else the draft (never anyone else's) */
} rescue_view_kind;

typedef struct rescue_view {
  rescue_view_kind kind;
  int64_t annotator_id; /* RESCUE_VIEW_ANNOTATOR */
  /*
  ** The row set shown. By default the annotator view shows the annotator's own row set
  ** (else the base one); the gold view the gold row set adjudication chose (else the base
  ** one); the corpus and latest views the gold row set, else, when annotators' row sets
  ** differ, the whole view of the annotator who saved last (ties by name;
  ** rescue_sample.view_of), else the base one. base: always the base row set. rowset_id
  ** (one sample at a time): that row set.
  */
  int base;
  int64_t rowset_id;
} rescue_view;

/* Parse "corpus", "gold", "latest" or "annotator:<name>" (NULL = corpus). */
int rescue_view_parse(rescue_store *st, const char *spec, rescue_view *out);

/* ---- reading samples through a view ---- */

/* One row as a view shows it. Strings belong to the iterator and live until its next step. */
typedef struct rescue_row {
  int position;         /* 1-based */
  int64_t row_id;       /* row.id: the row's stable id, the same in every row set holding it */
  int64_t version_id;   /* row_version.id shown */
  int64_t annotator_id; /* who wrote that version */
  const char *kind;     /* "import", "edit", "gold" */
  const char *content;  /* canonical JSON object */
  size_t content_len;
  double start_time, end_time;
  const char *speaker;              /* cleaned primary_speaker */
  const char *entities;             /* cleaned speaker, targets, support targets; 0x1F-separated */
  const char *utterance_type;       /* cleaned; NULL when the key is absent */
  const char *relation_cycle_state; /* cleaned; NULL when absent */
  const char *relation_pattern;     /* cleaned; NULL when absent */
  /*
  ** Annotator views only: how the shown version reached this row. RESCUE_ROW_OWN: the
  ** annotator's own version of it, or the draft's; otherwise it was carried over from the
  ** row set before a resegmentation: the annotator's version of the old row with its
  ** labels, and this row's times, speaker and text (those of its draft version, where it
  ** has one: the halves of a split row keep their own times).
  */
  int origin;
  /* Annotator views only: someone else's resegmentation changed this row's span. */
  int seg_changed;
  /*
  ** References of this version to rows the row set shown holds in no form (removed by a
  ** resegmentation; left out of `content`): NULL, or a JSON object {field: [[number as
  ** written, row id], ...]} (lint R13).
  */
  const char *lost_refs;
} rescue_row;

enum {
  RESCUE_ROW_OWN = 0, /* this row's own version (the annotator's or the draft) */
  RESCUE_ROW_CARRIED, /* the same span in the previous row set */
  RESCUE_ROW_SPLIT,   /* from the row it was split from */
  RESCUE_ROW_MERGED   /* from the first of the rows merged into it */
};

typedef struct rescue_sample {
  int64_t ref; /* sample.id */
  const char *sample_id;
  const char *group;  /* couple or family group name */
  const char *status; /* new | in_review | reviewed | discarded */
  const char *status_reason;
  int64_t rowset_id; /* the row set shown: the annotator's own in their view, else the base */
  int n_rows;        /* rows in the row set */
  int complete;      /* every row has a version in this view (gold view: all gold) */
  int64_t sample_version_id;
  const char *head, *tail; /* sample-level JSON around the rows array (rescue_store.sql) */
  int has_rows;
  int given_keys; /* RESCUE_GIVEN_* bits */
  int n;          /* rows shown (== n_rows when complete) */
  const rescue_row *rows;
  int64_t view_of; /* corpus and latest views: the annotator whose whole view is shown (their
                      row sets differ and there is no gold row set), else 0 */
} rescue_sample;

enum { RESCUE_GIVEN_SAMPLE_ID = 1, RESCUE_GIVEN_SCENARIO = 2, RESCUE_GIVEN_PARTICIPANTS = 4 };

typedef struct rescue_sample_iter rescue_sample_iter;

/*
** Iterate samples in sample_id order (path components compared bytewise), each with
** its rows as `view` shows them. `only` (n_only ids, may be 0) restricts the set; an id
** that is not in the store makes this fail with RESCUE_ENOTFOUND. Discarded samples are
** included; callers decide (sample->status).
*/
int rescue_sample_iter_new(rescue_store *st, const rescue_view *view, const char *const *only,
                           int n_only, rescue_sample_iter **out);
/* Step: 1 and *out set, 0 at the end, or a negative error. */
int rescue_sample_iter_next(rescue_sample_iter *it, const rescue_sample **out);
void rescue_sample_iter_free(rescue_sample_iter **it);

/* Look one sample up by id: its ref, or RESCUE_ENOTFOUND. */
int rescue_sample_ref(rescue_store *st, const char *sample_id, int64_t *ref);
/* Rows in the sample's current row set, or RESCUE_ENOTFOUND when there is no such sample. */
int rescue_sample_rowcount(rescue_store *st, const char *sample_id, int *n_rows);

/* ---- derived facts (corpus/FORMAT.md §6.3, §6.4) ---- */

/*
** The sample's scenario by corpus/FORMAT.md §6.3: "family" when sample_id, lower-cased, starts
** with "family_therapy/" or contains "/family_therapy/", or any entity equals a family
** group label; else "couple". (Uses the scheme's group labels.)
*/
const char *rescue_sample_scenario(const rescue_scheme *sc, const rescue_sample *s);
/*
** Append the shared participant list (corpus/FORMAT.md §6.4) to out as a JSON array in first-seen order:
** cleaned speakers, targets and support targets, without "", the practitioner and the
** group labels.
*/
void rescue_sample_participants_json(const rescue_scheme *sc, const rescue_sample *s,
                                     rescue_buf *out);
/* The group of a sample_id: everything before the last '/', or "" when there is none. */
void rescue_sample_group(const char *sample_id, rescue_buf *out);
/*
** Is sample_id safe as a relative path that every output layout can write and read back?
** Returns NULL when it is, else the reason: empty, absolute, an empty, '.' or '..'
** component, a control character, a backslash, invalid UTF-8, a component that starts
** with '.' or is longer than RESCUE_ID_COMPONENT_MAX bytes, or a reserved name ("clips",
** "manifest.json", "segment.mp4"; "manifest" as the last component).
*/
#define RESCUE_ID_COMPONENT_MAX 250
const char *rescue_sample_id_unsafe(const char *id, size_t len);

/*
** Append the sample as one JSON object in release form: the stored sample-level keys
** around the rows of the view, with sample_id, scenario and participants (derived)
** put first when the input did not give them. No trailing newline.
*/
void rescue_sample_write_json(const rescue_scheme *sc, const rescue_sample *s, rescue_buf *out);

/*
** Change a sample's review status ("new", "in_review", "reviewed" or "discarded"; a
** discarded sample needs a reason) in its own transaction; the change is recorded in
** the sample's status history. A discarded sample stays in the store: exports and stats
** leave it out.
*/
int rescue_sample_set_status(rescue_store *st, const char *sample_id, const char *status,
                             const char *reason, int64_t annotator_id);

/* Number of samples in the store. */
int rescue_store_sample_count(rescue_store *st, long *n);

/* What an import changed (rescue_import_result). */
typedef struct rescue_put_stats {
  long samples_new, samples_changed, samples_unchanged;
  long rows_new, row_versions, rowsets;
  long rows_carried; /* resegmentations: new rows that keep an old row's span */
} rescue_put_stats;

/* ---- saving one row (the review server's save) ---- */

/*
** Save a new version of row `position` (1-based) of sample_id under annotator_id, in
** its own transaction, given the version the caller's edit was based on. base_version
** must still be the annotator's current version of that row (their latest, else the
** row's first version, as their view shows it); otherwise nothing is written and
** RESCUE_ECONFLICT is returned with *version set to the current one (another tab or
** client saved first; the caller reads it and decides). row_json is one JSON object
** (the row), checked as an import checks a row (RESCUE_EBADINPUT with the reason).
** The row is stored as rescue_row_write_like (rescue_edit.h) writes it against the current
** version: a number whose value did not change keeps its old spelling (0 for 0.0 is the
** same number) and row_index is the position. Saving what the annotator's own latest
** version already holds (so spelled) writes nothing and gives it back in *version with
** *unchanged (may be NULL) set; saving the draft's content unchanged records the
** annotator's own version (they reviewed the row and kept it). The first save of a sample
** that is "new" moves it to "in_review" (also when the row was unchanged), in a
** transaction of its own after the save. A save that writes a version to a sample that is
** "reviewed" or "discarded" reopens it to "in_review" in the save's transaction, recorded in
** its status history under annotator_id (an import of a person's versions does the same).
** A sample or row that does not exist is RESCUE_ENOTFOUND; a store held by another writer
** past the busy timeout RESCUE_EBUSY.
*/
int rescue_row_save(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                    int64_t base_version, const char *row_json, size_t len, int64_t *version,
                    int *unchanged);

/*
** What the caller already knows, from a view of the annotator loaded at the store's
** current state (rescue_sample_generation unchanged since), of the row it saves: its id,
** the version the view shows, whether that version is the annotator's own, and its
** content as the view shows it, with that content parsed when the caller has it (the
** save then reads no JSON of the current version).
*/
typedef struct rescue_row_known {
  int64_t row_id, version;
  int mine;
  const char *content;
  size_t len;
  const rescue_jnode *row; /* what rescue_jparse reads from content, or NULL: parsed here */
} rescue_row_known;

/*
** rescue_row_save with the current version taken from *known instead of read through the
** annotator's view (which costs a read of the whole sample when the annotator has no
** version of the row yet). The caller answers for *known being current: read inside the
** same write transaction (e.g. by a generation that did not change); known->row, when
** given, is only read and must stay as it is until the call returns.
*/
int rescue_row_save_known(rescue_store *st, const char *sample_id, int position,
                          int64_t annotator_id, int64_t base_version, const char *row_json,
                          size_t len, const rescue_row_known *known, int64_t *version,
                          int *unchanged);

/*
** The annotator's current version of row `position` of sample_id (as rescue_row_save
** checks it): *version and, when content is not NULL, its JSON appended to content.
*/
int rescue_row_current(rescue_store *st, const char *sample_id, int position, int64_t annotator_id,
                       int64_t *version, rescue_buf *content);

#endif
