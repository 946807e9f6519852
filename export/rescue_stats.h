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
  long turns;           /* rows */
  long therapist_turns; /* rows whose cleaned primary_speaker is the practitioner */
  long speakers;        /* sum over samples of distinct primary speakers (practitioner included) */
  double duration_sec;  /* media segment length when known, else the last row's end_time */
  long media_durations; /* samples whose duration came from linked media */
} rescue_table3_col;

typedef struct rescue_table3 {
  rescue_table3_col couple, family, all;
  long discarded;  /* samples left out because they are discarded */
  long incomplete; /* samples left out: a row has no version in the view */
} rescue_table3;

/* Compute Table 3 over the view (scenario derived by corpus/FORMAT.md §6.3; discarded left out). */
int rescue_stats_table3(rescue_store *st, const rescue_view *view, rescue_table3 *out);
/* {"couple": {...}, "family": {...}, "all": {...}} with the keys of rescue stats --json. */
void rescue_stats_table3_json(const rescue_table3 *t, rescue_buf *out);
/* A table for people, one line per statistic. */
void rescue_stats_table3_text(const rescue_table3 *t, rescue_buf *out);

/* ---- label distributions and relation transitions (export/stats_labels.c) ---- */

/* Fields whose labels are counted, in report order. */
typedef enum rescue_dist_field {
  RESCUE_DIST_SUPPORT_STRATEGY, /* strategy_type of every support_strategy item */
  RESCUE_DIST_RELATION_PATTERN, /* the labels RPP reads (relation_pattern; else therapist rows'
                                   relation_cycle_state in samples without that key) */
  RESCUE_DIST_UTTERANCE_TYPE,   /* utterance_type of every row */
  RESCUE_DIST_INTENSITY         /* intensity of every internal_emotion item, 0..10 */
} rescue_dist_field;
#define RESCUE_DIST_FIELDS 4

typedef struct rescue_label_count {
  char *label;
  long count;
  int in_set; /* a label of the scheme's set for the scenario (intensity: 0..10) */
} rescue_label_count;

typedef struct rescue_label_dist {
  int n;
  rescue_label_count *v; /* the set's labels in scheme order, then others as first seen */
  long total;            /* every non-empty value */
  long out_of_set;       /* values outside the set (intensity: not a number in 0..10) */
  int cap;               /* room in v (the library's own bookkeeping) */
} rescue_label_dist;

/* Relation-pattern transitions of one scenario (the paper's Figure 3). */
typedef struct rescue_transitions {
  int n; /* labels of the scenario's relation_pattern set */
  const char *const *labels;
  long *counts; /* n x n, row = from, column = to; the diagonal stays 0 */
  long total;
} rescue_transitions;

typedef struct rescue_label_stats {
  long samples[2];                               /* couple, family */
  rescue_label_dist dist[2][RESCUE_DIST_FIELDS]; /* [scenario][field] */
  rescue_transitions trans[2];
} rescue_label_stats;

/*
** Count labels per scenario over the view (discarded and incomplete samples left out),
** and the transitions between consecutive non-empty in-set relation labels within each
** sample, self-transitions excluded. *out owns the result (rescue_stats_labels_free).
*/
int rescue_stats_labels(rescue_store *st, const rescue_view *view, rescue_label_stats **out);
void rescue_stats_labels_free(rescue_label_stats **s);
/* Row-normalised probability of from -> to (0 when the row has no transitions). */
double rescue_transition_p(const rescue_transitions *t, int from, int to);
/* The whole `rescue stats --json` document: Table 3's keys plus label_distributions and
   relation_transitions. */
void rescue_stats_json(const rescue_table3 *t, const rescue_label_stats *ls, rescue_buf *out);
/* Distributions and transition matrices as tables for people. */
void rescue_stats_labels_text(const rescue_label_stats *ls, rescue_buf *out);

#endif
