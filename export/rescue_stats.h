/*
** rescue_stats.h: corpus statistics (public): the paper's Table 3 per scenario.
*/
#ifndef RESCUE_STATS_H
#define RESCUE_STATS_H

#include "rescue_buf.h"
#include "rescue_store.h"

/* One column of Table 3. */
typedef struct rescue_table3_col {
  long samples;
  long turns;            /* rows */
  long therapist_turns;  /* rows whose cleaned primary_speaker is the practitioner */
  long speakers;         /* sum over samples of distinct primary speakers (practitioner included) */
  double duration_sec;   /* media segment length when known, else the last row's end_time */
  long media_durations;  /* samples whose duration came from linked media */
} rescue_table3_col;

typedef struct rescue_table3 {
  rescue_table3_col couple, family, all;
  long discarded;        /* samples left out because they are discarded */
  long incomplete;       /* samples left out: a row has no version in the view */
} rescue_table3;

/* Compute Table 3 over the view (scenario derived by tasks.md §1.2; discarded left out). */
int rescue_stats_table3(rescue_store *st, const rescue_view *view, rescue_table3 *out);
/* {"couple": {...}, "family": {...}, "all": {...}} with the keys of rescue stats --json. */
void rescue_stats_table3_json(const rescue_table3 *t, rescue_buf *out);
/* A table for people, one line per statistic. */
void rescue_stats_table3_text(const rescue_table3 *t, rescue_buf *out);

#endif
