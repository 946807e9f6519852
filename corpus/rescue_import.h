/*
** rescue_import.h: reading samples into the store (public).
** Release JSONL (one sample per line), a data-root folder (<root>/<group>/<sample>.json)
** or one single-sample JSON file. One import is one transaction: any bad input refuses
** the whole import and leaves the store exactly as it was.
*/
#ifndef RESCUE_IMPORT_H
#define RESCUE_IMPORT_H

#include <stdint.h>

#include "rescue_store.h"

typedef enum rescue_format {
  RESCUE_FMT_AUTO,     /* by path: folder = data-root, .jsonl/.ndjson = jsonl, .json = json,
                          .srt = srt, .vtt = vtt */
  RESCUE_FMT_JSONL,
  RESCUE_FMT_JSON,
  RESCUE_FMT_DATAROOT,
  RESCUE_FMT_SRT,      /* subtitles of one sample (--sample): cues, and draft rows when the
                          sample has none (rescue_subtitles.h) */
  RESCUE_FMT_VTT       /* the same from WebVTT */
} rescue_format;

/* "auto", "jsonl", "json", "data-root", "srt", "vtt" -> *out; RESCUE_EINVAL otherwise. */
int rescue_format_parse(const char *name, rescue_format *out);

typedef struct rescue_import_opts {
  rescue_format format;
  const char *annotator;   /* NULL: "import" */
  const char *sample;      /* sample_id for a single JSON file without one, or of a
                              subtitle file (required there), or NULL */
  int resegment;           /* allow a different row count (records a new row set) */
  /* progress: bytes read so far of `total`; called now and then; may be NULL */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_import_opts;

typedef struct rescue_import_result {
  long files;              /* input files read */
  long samples;            /* samples read */
  long rows;               /* rows read */
  rescue_put_stats put;    /* what changed in the store */
  long cues;               /* subtitle cues stored */
  char warning[512];       /* the last warning ("file:line:col: ..."), "" when none */
} rescue_import_result;

/*
** Import paths[0..n) into the store in one transaction. On bad input returns
** RESCUE_EBADINPUT with "file:line:column: what" on the handle, and the store is as before.
*/
int rescue_import(rescue_store *st, const char *const *paths, int n,
                  const rescue_import_opts *opts, rescue_import_result *res);

/*
** Import paths[0..n) as edits by opts->annotator (NULL: "import") of samples already in
** the corpus: a row gets a new version (kind "edit") only where its content differs from
** the version that annotator sees now (their latest, else the row's first version), and
** the sample-level keys likewise. Same checks and single transaction as rescue_import. A
** sample that is not in the corpus, or whose row count differs, is refused
** (RESCUE_EBADINPUT); opts->resegment is ignored.
*/
int rescue_import_edits(rescue_store *st, const char *const *paths, int n,
                        const rescue_import_opts *opts, rescue_import_result *res);

#endif
