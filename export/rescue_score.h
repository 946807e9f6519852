/*
** rescue_score.h: scoring model predictions against an exported task file (public):
** the paper's metrics (export/TASKS.md §4), overall, per scenario, per couple and per sample, with confusion
** tables, under one of two protocols: `release` (the arithmetic of the benchmark's own
** evaluation scripts, their quirks reported instead of copied where they would leak the
** answer) and `rescue` (the default: a missing prediction is wrong, every tolerance of
** model output counted). A missing prediction is never filled in with gold.
*/
#ifndef RESCUE_SCORE_H
#define RESCUE_SCORE_H

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_tasks.h"

typedef struct rescue_score_report rescue_score_report;

typedef enum rescue_score_protocol {
  RESCUE_PROTOCOL_RESCUE, /* default */
  RESCUE_PROTOCOL_RELEASE
} rescue_score_protocol;

/* "rescue" or "release". */
const char *rescue_score_protocol_name(rescue_score_protocol p);
/* Parse "rescue" or "release"; RESCUE_EINVAL otherwise. */
int rescue_score_protocol_parse(const char *s, rescue_score_protocol *out);

/*
** Above this share of gold instances without a usable prediction (missing or invalid),
** scoring fails (RESCUE_EBADINPUT, with the counts) unless allow_missing is set.
*/
#define RESCUE_SCORE_MAX_UNUSABLE 0.2

typedef struct rescue_score_opts {
  rescue_score_protocol protocol;
  int allow_missing; /* score whatever the share of missing or invalid predictions */
} rescue_score_opts;

/*
** Read the gold task file (JSONL written by `rescue export --format tasks`, or the
** answer file of a --blind export) and the predictions (JSONL: one model reply per
** line; see `rescue score -h`), and score them. opts may be NULL (rescue protocol, no
** allowance). A malformed prediction line is counted, never fatal. Bad gold gives
** RESCUE_EBADINPUT with "file:line:column: what"; a predictions file that belongs to
** another task, or too many unusable predictions, RESCUE_EBADINPUT with the reason; VP
** gives RESCUE_EINVAL (it needs an LLM judge). *out owns the report (rescue_score_free).
*/
int rescue_score_files(rescue_task task, const char *gold_path, const char *pred_path,
                       const rescue_score_opts *opts, rescue_score_report **out, rescue_error *err);

/* The report as one JSON document (keys listed in `rescue score -h`). */
void rescue_score_json(const rescue_score_report *r, rescue_buf *out);
/* The report as tables for people. */
void rescue_score_text(const rescue_score_report *r, rescue_buf *out);

/* Headline numbers, for programs and tests. */
typedef struct rescue_score_counts {
  long instances;      /* gold instances */
  long predicted;      /* instances with a prediction taken */
  long missing;        /* instances without one */
  long invalid;        /* predictions taken but unusable (ill-typed field, NaN, bad intensity) */
  long empty;          /* instances whose only reply was an object with an empty field */
  long coerced;        /* fields coerced: a string as a one-item list, a list/object yes/no */
  long unknown_ids;    /* predictions for ids not in the gold file */
  long duplicates;     /* later predictions for an id already seen (the last one counts) */
  long no_id;          /* prediction objects without an id (and not attributable) */
  long one_instance;   /* predictions without an id given to the file's only instance */
  long invalid_lines;  /* lines in which no reply object could be found */
  long recovered;      /* replies read by stripping fences or prose, or from a truncated batch */
  long reply_strings;  /* replies given as JSON strings (lines or nested strings) */
  long reply_fields;   /* replies found inside response/output/text fields (rescue) */
  long string_items;   /* JSON strings inside "predictions" parsed as items */
  long dropped_items;  /* items of a reply that were not used (see the report's notes) */
  long dropped_labels; /* label entries dropped as not valid for their instance */
  long failed_samples; /* ER, release protocol: samples left out */
  long gold_fills;     /* release, RPP: missing predictions the scripts fill with the gold */
  long release_stops;  /* release: instances where the scripts stop with an error */
} rescue_score_counts;
void rescue_score_get_counts(const rescue_score_report *r, rescue_score_counts *out);
/* An overall metric by its JSON key ("f1_yes", "relation_mrr", ...); NAN when absent. */
double rescue_score_metric(const rescue_score_report *r, const char *key);
/* A metric of one scenario ("couple", "family"); NAN when absent. */
double rescue_score_scenario_metric(const rescue_score_report *r, const char *scenario,
                                    const char *key);
/* A metric of one sample; NAN when absent (or, ER release, when the sample failed). */
double rescue_score_sample_metric(const rescue_score_report *r, const char *sample_id,
                                  const char *key);

void rescue_score_free(rescue_score_report **r);

#endif
