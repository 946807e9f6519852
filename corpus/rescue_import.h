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
  RESCUE_FMT_AUTO, /* by path: folder = data-root, .jsonl/.ndjson = jsonl, .json = json,
                          .srt = srt, .vtt = vtt, .eaf = eaf */
  RESCUE_FMT_JSONL,
  RESCUE_FMT_JSON,
  RESCUE_FMT_DATAROOT,
  RESCUE_FMT_SRT, /* subtitles of one sample (--sample): cues, and draft rows when the
                          sample has none (rescue_subtitles.h) */
  RESCUE_FMT_VTT, /* the same from WebVTT */
  RESCUE_FMT_EAF  /* an ELAN .eaf file: one sample (rescue_elan.h) */
} rescue_format;

/* "auto", "jsonl", "json", "data-root", "srt", "vtt", "eaf" -> *out; RESCUE_EINVAL otherwise. */
int rescue_format_parse(const char *name, rescue_format *out);

/*
** Something import decided or noticed, for the person who runs it (nothing here refuses
** an import; a refusal is an error). Kinds:
**   "typo"        an unknown key close to a field of the scheme: `key` resembles
**                 `resembles` (kept as it is: import is lossless)
**   "cue"         one subtitle cue and the draft rows made from it (row_first..row_last;
**                 0 when it made none); sent for every cue, before its decisions
**   "speaker_case"  the cue's speaker differs from a known spelling only by case or
**                 spacing: `speaker` (the spelling kept) is used for `was`
**   "split"       several "- Name:" turns (or WebVTT voices) in one cue: one draft row per turn, times split
**                 in proportion to the length of each turn's text (check them)
**   "continued"   no speaker prefix: the row continues the previous row's speaker
**   "no_speaker"  no speaker prefix and no row before it: primary_speaker is ""
**   "sound"       sound descriptions ("(crying)", "[laughs]") taken out of
**                 dialogue_cleaned; `was` lists them (the stored cue keeps its full text)
**   "sound_only"  the cue holds only sound descriptions: no draft row
**   "not_imported"  an ELAN file rescue did not write held something the sample does not
**                 keep: `count` annotations of tier `key` (at line), or only their times
**                 when `was` is "times", `message` says why (rescue_eaf_left_out)
** Strings are valid during the callback only.
*/
typedef struct rescue_import_note {
  const char *kind;
  const char *file;
  long line, col;              /* 0 when not known */
  const char *sample_id;       /* or NULL */
  int cue;                     /* the cue's number (subtitle notes), else 0 */
  int row_first, row_last;     /* draft rows the cue made (1-based), 0 when none */
  const char *message;         /* one line for people */
  const char *key, *resembles; /* "typo" */
  const char *speaker, *was;   /* "speaker_case", "continued", "sound" */
  long count;                  /* "not_imported": annotations left out */
} rescue_import_note;

typedef struct rescue_import_opts {
  rescue_format format;
  const char *annotator; /* a registered annotator (RESCUE_ENOANNOTATOR otherwise, with
                              the closest names; RESCUE_ERETIRED when retired; RESCUE_EINVAL
                              for a name rescue_annotator_add refuses); NULL: the draft
                              ("import"), where every annotator's view starts */
  const char *sample;    /* sample_id for a single JSON file without one, or of a
                              subtitle file (required there), or NULL */
  int resegment;         /* allow a different row count (records a new row set) */
  /* progress: bytes read so far of `total`; called now and then; may be NULL */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
  /* notes (may be NULL): typos from the checking pass, subtitle decisions from the
     writing pass (when the import fails later, some may have been sent) */
  void (*note)(void *arg, const rescue_import_note *note);
  void *note_arg;
  int strict;        /* unknown keys that look like typos of a field refuse the import */
  const char *tiers; /* eaf: comma-separated tiers that hold the turns, or NULL */
} rescue_import_opts;

typedef struct rescue_import_result {
  long files;           /* input files read */
  long samples;         /* samples read */
  long rows;            /* rows read */
  rescue_put_stats put; /* what changed in the store */
  long cues;            /* subtitle cues stored */
  char warning[512];    /* the last warning ("file:line:col: ..."), "" when none */
  char owner[256];      /* the annotators that EAF files named and whose versions these
                           are (without --annotator), comma-separated; "" when none */
  long not_imported;    /* annotations of EAF files left out ("not_imported" notes) */
  long times_dropped;   /* annotations of EAF files kept without their times */
} rescue_import_result;

/*
** Import paths[0..n) into the store in one transaction. On bad input returns
** RESCUE_EBADINPUT with "file:line:column: what" on the handle, and the store is as before;
** rows that do not line up with a sample's rows in the store (without resegment) are
** RESCUE_ERESEGMENT, a file naming a retired annotator RESCUE_EFILERETIRED.
*/
int rescue_import(rescue_store *st, const char *const *paths, int n, const rescue_import_opts *opts,
                  rescue_import_result *res);

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
