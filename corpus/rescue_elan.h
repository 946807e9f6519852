/*
** rescue_elan.h: ELAN annotation files (.eaf, EAF 3.0) in and out (public).
**
** Export writes one EAF 3.0 file per sample: a turn tier per speaker (overflow tiers
** for one speaker's overlapping rows), a dependent tier per row field, a bookkeeping
** tier that lets rescue rebuild every row exactly, controlled vocabularies from the
** scheme's closed label sets and reference links for viewpoints and relation-pattern
** evidence. Import reads such a file back as a sample, or turns the time-aligned tiers
** of any EAF 2.7-3.0 file into rows. Parsing is hardened: no network, no DTD, no
** entities; a document with a DOCTYPE is refused.
*/
#ifndef RESCUE_ELAN_H
#define RESCUE_ELAN_H

#include <stddef.h>
#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_store.h"

/* Largest .eaf file import reads (bytes). */
#define RESCUE_EAF_MAX_BYTES ((size_t)256 << 20)

/* ---- export ---- */

/* Where a sample's media is, for the file's MEDIA_DESCRIPTOR (all may be NULL/0). */
typedef struct rescue_eaf_media {
  const char *path;     /* the source video as resolved on this machine (absolute or not) */
  int has_span;         /* the sample is the span [start, end) of the source */
  double start;         /* seconds: written as TIME_ORIGIN */
  const char *relative; /* the path from the .eaf file's folder, or NULL */
} rescue_eaf_media;

typedef struct rescue_eaf_write_opts {
  const char *date;              /* xsd:dateTime for DATE, e.g. "2026-11-30T10:00:00+00:00" */
  const char *annotator;         /* recorded as the tiers' ANNOTATOR and read back on import,
                             or NULL */
  const rescue_eaf_media *media; /* or NULL */
} rescue_eaf_write_opts;

/*
** Append the EAF 3.0 document of sample s (rows as its view shows them) to out.
** *fine_times (may be NULL) gets the number of row times with more than three
** decimals: ELAN shows them rounded to the millisecond (the file still keeps them for
** rescue). Errors (RESCUE_ENOMEM, RESCUE_EBADINPUT for a row that is not a JSON
** object) go to err.
*/
int rescue_eaf_write_sample(const rescue_scheme *sc, const rescue_sample *s,
                            const rescue_eaf_write_opts *o, rescue_buf *out, long *fine_times,
                            rescue_error *err);

typedef struct rescue_eaf_export_opts {
  rescue_view view;
  const char *annotator;      /* name of view.annotator_id for RESCUE_VIEW_ANNOTATOR */
  const char *const *samples; /* only these sample ids (n_samples may be 0: all) */
  int n_samples;
  int force; /* replace a non-empty output folder */
  int include_discarded;
  const char *date; /* DATE of every file; NULL: now */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_eaf_export_opts;

typedef struct rescue_eaf_export_result {
  long samples, rows;
  long incomplete; /* left out: not every row has a version in this view */
  long discarded;  /* left out: discarded */
  long fine_times; /* row times with more than 3 decimals (ELAN shows them rounded) */
} rescue_eaf_export_result;

/*
** Write <out_dir>/<sample_id>.eaf for every sample, all or nothing (a temporary folder
** renamed at the end; an existing non-empty folder needs force).
*/
int rescue_export_eaf(rescue_store *st, const char *out_dir, const rescue_eaf_export_opts *o,
                      rescue_eaf_export_result *res);

/* ---- import ---- */

typedef struct rescue_eaf_read_opts {
  const char *sample;      /* sample_id: required for files rescue did not write */
  const char *tiers;       /* comma-separated tier ids to take rows from, or NULL */
  const char *head, *tail; /* sample-level JSON of the sample already in the store (as
                              rescue_sample keeps it, has_rows form), or NULL for a new one */
} rescue_eaf_read_opts;

/*
** What a file rescue did not write held that the sample does not keep: a whole tier, the
** annotations of a tier that fall in no turn, or the times of a time-aligned tier whose
** values became a field.
*/
typedef struct rescue_eaf_left_out {
  char *tier;         /* the tier id; owned */
  long line;          /* the tier's line in the file */
  long annotations;   /* how many annotations this concerns */
  int times_only;     /* 1: their values are kept (as a field), only their times are not */
  const char *reason; /* static text, one line */
} rescue_eaf_left_out;

typedef struct rescue_eaf_sample {
  char *sample_id; /* owned */
  char *annotator; /* recorded in a file rescue wrote, else NULL; owned */
  char *json;      /* the sample as one release JSON object; owned */
  size_t json_len;
  long rows;
  long interpolated; /* rows whose times came from unaligned slots (flagged on the row) */
  int own;           /* the file was written by rescue */
  rescue_eaf_left_out *left_out; /* foreign files: what was not imported; owned */
  int n_left_out;
} rescue_eaf_sample;

/*
** Parse EAF bytes (`name` names them in messages) into a sample. Refuses, with
** "name:line: reason" and RESCUE_EBADINPUT: a DOCTYPE, malformed XML, another root,
** dangling references, an annotation that ends before it starts, a foreign file
** without --sample or without rows tiers. out is filled only on success.
*/
int rescue_eaf_parse(const char *name, const char *data, size_t len, const rescue_eaf_read_opts *o,
                     rescue_eaf_sample *out, rescue_error *err);
/* Read a file (at most RESCUE_EAF_MAX_BYTES) and parse it. */
int rescue_eaf_read(const char *path, const rescue_eaf_read_opts *o, rescue_eaf_sample *out,
                    rescue_error *err);
void rescue_eaf_sample_clear(rescue_eaf_sample *s);

#endif
