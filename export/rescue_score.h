/*
** rescue_score.h: scoring model predictions against an exported task file (public):
** the paper's metrics (export/TASKS.md §4), overall, per scenario, per couple and
** per sample, with confusion tables. A missing prediction is never filled in with gold.
*/
#ifndef RESCUE_SCORE_H
#define RESCUE_SCORE_H

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_tasks.h"

typedef struct rescue_score_report rescue_score_report;

/*
** Read the gold task file (JSONL written by `rescue export --format tasks`) and the
** predictions (JSONL: objects with instance_id and the task's field, or model replies as
** §6.2 describes), and score them. Bad input gives RESCUE_EBADINPUT with
** "file:line:column: what"; VP gives RESCUE_EINVAL (it needs an LLM judge). *out owns
** the report (rescue_score_free).
*/
int rescue_score_files(rescue_task task, const char *gold_path, const char *pred_path,
                       rescue_score_report **out, rescue_error *err);

/* The report as one JSON document (keys listed in `rescue score -h`). */
void rescue_score_json(const rescue_score_report *r, rescue_buf *out);
/* The report as tables for people. */
void rescue_score_text(const rescue_score_report *r, rescue_buf *out);

/* Headline numbers, for programs and tests. */
typedef struct rescue_score_counts {
  long instances;      /* gold instances */
  long predicted;      /* instances with a prediction */
  long missing;        /* instances without one */
  long invalid;        /* predictions whose field is absent, of the wrong type or unusable */
  long unknown_ids;    /* predictions for ids not in the gold file */
  long duplicates;     /* later predictions for an id already seen (the last one counts) */
  long no_id;          /* prediction objects without an id */
  long bad_replies;    /* reply strings that held no JSON object */
  long dropped_labels; /* label entries dropped as not valid for their instance */
  long failed_samples; /* ER: samples left out (an unparseable intensity) */
} rescue_score_counts;
void rescue_score_get_counts(const rescue_score_report *r, rescue_score_counts *out);
/* An overall metric by its JSON key ("f1_yes", "relation_mrr", ...); NAN when absent. */
double rescue_score_metric(const rescue_score_report *r, const char *key);

void rescue_score_free(rescue_score_report **r);

#endif
