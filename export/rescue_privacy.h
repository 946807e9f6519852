/*
** rescue_privacy.h: sharing a corpus without the names in it (public).
**
** A pseudonym map lives in the corpus: per group (a couple or a family), each participant's
** real name and pseudonym, and the group's own opaque name. A pseudonymised copy of the
** corpus rewrites sample ids, participants, speakers, targets, every person field and
** whole-word, case-insensitive occurrences in every string; exports of that copy are what
** `export --pseudonymise` writes. The leak check scans an export for every real name in the
** map; rescue_export_pseudonymised writes such an export whole. The audit trail that records
** who exported what is the store's (rescue_audit.h).
** README "Sharing a corpus safely" describes it for users.
*/
#ifndef RESCUE_PRIVACY_H
#define RESCUE_PRIVACY_H

#include <stdint.h>

#include <stdio.h>

#include "rescue_buf.h"
#include "rescue_elan.h"
#include "rescue_export.h"
#include "rescue_store.h"
#include "rescue_tasks.h"

/* ---- the pseudonym map ---- */

typedef struct rescue_pseudonym {
  char *group;     /* the group's real name ("alan_and_evelyn") */
  char *real;      /* a participant's real name, or NULL for the group's own pseudonym */
  char *pseudonym; /* NULL: none yet (a participant the map does not cover) */
  char *how;       /* "auto" or "set"; NULL when none */
  char *created_at;
} rescue_pseudonym;

typedef struct rescue_pseudonym_map {
  int n;
  rescue_pseudonym *items; /* by group, the group's own entry first, then participants in
                              first-seen order */
  long missing;            /* entries without a pseudonym */
} rescue_pseudonym_map;

/*
** The map as it stands, with every group and every participant the corpus has ever named
** (in any version of any row, or a sample's participants list), covered or not.
*/
int rescue_pseudonym_map_load(rescue_store *st, rescue_pseudonym_map *m);
void rescue_pseudonym_map_clear(rescue_pseudonym_map *m);

/*
** Give every group and participant without a pseudonym one: participants of a couple
** become "Partner A", "Partner B", ...; of a family "Member 1", "Member 2", ... (the scheme
** does not tell parents from children); each unique within its group and never a real
** name of it; groups get "<scenario>_<6 hex digits>" from a random key kept in the corpus.
** Existing pseudonyms are kept, so later samples of a group reuse them. *added counts new
** entries. One transaction.
*/
int rescue_pseudonym_auto(rescue_store *st, long *added);

/*
** Set a pseudonym: `real` is a group name (the group's pseudonym, which must be a safe
** path component), or a participant name (in every group that has that participant; with
** "<group>:<name>", in that group only). Refused (RESCUE_EINVAL) when the pseudonym is
** already another participant's in the same group, or is a real name of the group; the
** previous pseudonym stays in history. *changed counts the entries set.
*/
int rescue_pseudonym_set(rescue_store *st, const char *real, const char *pseudonym, long *changed);

/*
** Several changes to the map as one: rescue_pseudonym_set for real[i] = pseudonym[i] in
** order (changed[i] counts each one's entries), then rescue_pseudonym_auto when auto_too
** (*added, may be NULL otherwise). One transaction: when any step is refused, nothing is
** written and the counts are 0. rescue_pseudonym_set and _auto are this with one step.
*/
int rescue_pseudonym_update(rescue_store *st, const char *const *real, const char *const *pseudonym,
                            int n, int auto_too, long *changed, long *added);

/* {"groups": [{"group", "pseudonym", "participants": [{"real", "pseudonym", "how"}]}], "missing"} */
void rescue_pseudonym_map_json(const rescue_pseudonym_map *m, rescue_buf *out);

/* ---- the pseudonymised copy ---- */

typedef struct rescue_pseudo_opts {
  rescue_view view;           /* rows as this view shows them */
  const char *const *samples; /* only these (real ids), or NULL */
  int n_samples;
  const char *media_dir; /* NULL: no media; else copy each sample's current row clips
                                   to <media_dir>/<pseudonymised id>/clips/NNN.<ext> */
} rescue_pseudo_opts;

/*
** Write a new corpus at dest_db holding the samples of `st` as the view shows them,
** pseudonymised by the map, with the latest split carried over by group. Refuses
** (RESCUE_EINVAL, naming them) when a participant of an exported group has no pseudonym.
** dest_db must not exist. Errors go to err.
*/
int rescue_pseudo_corpus(rescue_store *st, const rescue_pseudo_opts *o, const char *dest_db,
                         rescue_error *err);

/* ---- the leak check ---- */

typedef struct rescue_leak {
  char *file;  /* path of the file, as found under the scanned path */
  long line;   /* 1-based */
  char *field; /* JSON path of the string ("rows[3].dialogue_cleaned"), or "" */
  char *name;  /* the real name found (as the map spells it) */
} rescue_leak;

typedef struct rescue_leak_report {
  long files, lines; /* scanned */
  int n;
  rescue_leak *leaks; /* real names found, in file and line order */
  int n_review;
  char **review; /* names worth a look: "Name (n times)" */
} rescue_leak_report;

/*
** Scan every regular file under path (a file or a folder) for the map's real names
** (participants and groups; whole words, any case). Also lists as "review" the values of
** person fields that are neither participants, pseudonyms nor reserved entities, and
** capitalised words inside sentences that the map does not know.
*/
int rescue_leakcheck(rescue_store *st, const char *path, rescue_leak_report *rep);
void rescue_leak_report_clear(rescue_leak_report *rep);
void rescue_leak_report_json(const rescue_leak_report *rep, rescue_buf *out);

/* ---- the pseudonymised export ---- */

typedef enum rescue_safe_format {
  RESCUE_SAFE_SAMPLES,   /* one JSONL file (rescue_export_samples), or a stream */
  RESCUE_SAFE_DATA_ROOT, /* a folder of <sample_id>.json files */
  RESCUE_SAFE_TASKS,     /* task datasets (rescue_export_tasks) */
  RESCUE_SAFE_EAF        /* ELAN files (rescue_export_eaf) */
} rescue_safe_format;

typedef struct rescue_safe_export_opts {
  rescue_safe_format format;
  rescue_view view;           /* rows as this view of the corpus shows them */
  const char *view_name;      /* for the audit record ("corpus", "latest", ...); NULL: corpus */
  const char *const *samples; /* only these (real ids), or NULL */
  int n_samples;
  int force;                      /* replace an existing output (rescue_output_begin) */
  int include_discarded;          /* samples, data root and eaf formats */
  int with_media;                 /* tasks only: the row clips, copied into <out>/media */
  FILE *stream;                   /* samples only: write the records here instead of `out` */
  const rescue_tasks_opts *tasks; /* task settings, or NULL for the defaults; the view,
                                     samples, force, stream and clip root are the call's */
  const char *eaf_date;           /* DATE of the ELAN files; NULL: now */
  const char *annotator;          /* who asked, for the audit record, or NULL */
  const char *format_name;        /* the audit record's detail (NULL: the format's name) */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_safe_export_opts;

typedef struct rescue_safe_export_result {
  rescue_leak_report leaks;     /* the leak check of the export; file paths start with `out` */
  rescue_export_result samples; /* what the export of the copy reported, by format */
  rescue_tasks_result tasks;
  rescue_eaf_export_result eaf;
  int logged;           /* 1: recorded in the corpus's audit trail */
  rescue_error log_err; /* when not logged: why (a read-only corpus) */
} rescue_safe_export_result;

/*
** The export `rescue export --pseudonymise` writes: a pseudonymised copy of the corpus as
** the view shows it (rescue_pseudo_corpus), exported in the format into a work folder
** beside `out`, leak-checked against the real names, and only then moved to `out` (all
** or nothing) or copied to o->stream. Real names found: RESCUE_EBADINPUT, nothing
** written, and res->leaks lists them. Once the output is in place the export is recorded
** in the audit trail in a short transaction; a corpus opened read-only cannot log, which
** res->logged and res->log_err report without failing the export. Errors are on st.
** Clear res with rescue_safe_export_result_clear.
*/
int rescue_export_pseudonymised(rescue_store *st, const char *out, const rescue_safe_export_opts *o,
                                rescue_safe_export_result *res);
void rescue_safe_export_result_clear(rescue_safe_export_result *res);

#endif
