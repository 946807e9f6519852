/*
** rescue_subtitles.h: SRT and WebVTT subtitles as timing ground truth (public).
** `rescue import <db> <file.srt|file.vtt> --sample <id>` stores a file's cues for a sample
** (and, when the sample has no rows yet, one draft row per cue for review); lint's
** subtitle-coverage rule reads them back with rescue_sample_cues.
*/
#ifndef RESCUE_SUBTITLES_H
#define RESCUE_SUBTITLES_H

#include <stdint.h>

#include "rescue_error.h"
#include "rescue_import.h"
#include "rescue_store.h"

/* One cue. Strings are owned by the rescue_cues that holds it. */
typedef struct rescue_cue {
  int number;        /* as the file numbers it (SRT index; else its position in the file) */
  long line;         /* line of its timing line */
  double start, end; /* seconds */
  char *speaker;     /* from "Name:", "[Name]" or WebVTT "<v Name>"; "therapist" in any case
                        is "Therapist"; "" when none */
  char *text;        /* without the speaker prefix and markup, lines joined by one space */
  int bracket;       /* the speaker came from a "[Name]" prefix */
} rescue_cue;

typedef struct rescue_cues {
  rescue_cue *v; /* in start order */
  int n;
  int reordered;  /* the file had cues out of order (they were sorted) */
  int first_late; /* number of the first cue that started before the one above it */
  long first_late_line;
} rescue_cues;

/*
** Parse SRT (vtt = 0) or WebVTT (vtt = 1) text. Tolerates a UTF-8 BOM, CRLF, a missing
** final blank line, ',' or '.' before the milliseconds, hours over 99, WebVTT cue settings
** and NOTE/STYLE/REGION blocks; keeps overlapping cues; sorts cues that are out of order
** (and says so in out->reordered). Refuses (RESCUE_EBADINPUT, "file:line:column: cue N:
** what") a timing line that does not parse, a cue that ends before it starts, invalid
** UTF-8, and a file without cues. `file` names the input in messages.
*/
int rescue_subtitles_parse(const char *file, const char *text, size_t len, int vtt,
                           rescue_cues *out, rescue_error *err);
void rescue_cues_clear(rescue_cues *cues);

/* Read and parse a subtitle file without storing anything (import's checking pass). */
int rescue_subtitles_check(const char *path, int vtt, rescue_error *err);

/*
** Import a subtitle file for sample_id inside the caller's transaction (rescue_import
** does this for the srt and vtt formats): the cues are stored as a new cue set of the
** sample (the latest set is the one in use), the sample is created when absent, and when
** it has no rows yet draft rows are added under annotator_id: one per cue, or per
** speaker's turn of a cue, with times, speaker and speech and every other field empty
** (how speakers, turns and sound descriptions are decided: the rescue_import_note kinds;
** each decision goes to opts->note when set). res->cues, ->samples, ->rows and ->warning
** are updated. opts may be NULL.
*/
int rescue_subtitles_import(rescue_store *st, const char *path, int vtt, const char *sample_id,
                            int64_t annotator_id, rescue_import_result *res,
                            const rescue_import_opts *opts);

/* The cues of a sample's latest subtitle import (none: out->n == 0). */
int rescue_sample_cues(rescue_store *st, const char *sample_id, rescue_cues *out);

#endif
