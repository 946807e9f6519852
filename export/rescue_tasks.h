/*
** rescue_tasks.h: the six RESCUE task datasets (ITP, RPP, STP, SSP, ER, VP) built from
** the corpus exactly by export/TASKS.md, with a dataset card and a manifest (public).
*/
#ifndef RESCUE_TASKS_H
#define RESCUE_TASKS_H

#include <stdint.h>
#include <stdio.h>

#include "rescue_split.h"
#include "rescue_store.h"

typedef enum rescue_task {
  RESCUE_TASK_ITP,
  RESCUE_TASK_RPP,
  RESCUE_TASK_STP,
  RESCUE_TASK_SSP,
  RESCUE_TASK_ER,
  RESCUE_TASK_VP
} rescue_task;
#define RESCUE_TASK_COUNT 6
#define RESCUE_TASKS_ALL 0x3fu

/* "itp" ... "vp". */
const char *rescue_task_name(rescue_task t);
/* Parse a lowercase task name; RESCUE_EINVAL when unknown. */
int rescue_task_parse(const char *name, rescue_task *out);
/* One line saying what the task asks (for cards and help). */
const char *rescue_task_summary(rescue_task t);

typedef struct rescue_tasks_opts {
  rescue_view view;
  const char *view_name;      /* how the card and manifest name the view (NULL: corpus) */
  const char *const *samples; /* only these sample ids (n_samples), or NULL for all */
  int n_samples;
  unsigned tasks;             /* bit 1 << rescue_task for each task to write */
  const char *clip_root;      /* clip paths <clip_root>/<sample_id>/clips/NNN.mp4; NULL:
                                 the clips `rescue clip` recorded (copy or exact mode) */
  int checkpoints_per_sample; /* ER and VP picker limit (5); 0 keeps every candidate */
  int min_dialogue_words;     /* ER (5) */
  int itp_cap_per_class;      /* ITP per-class cap before balancing (0: off) */
  const char *split;          /* with a split run: write only this split; NULL: all */
  int force;                  /* replace an existing, non-empty output folder */
  const char *corpus_name;    /* how the card names the corpus (NULL: the store's file name) */
  int blind;                  /* records without their gold_* keys; the answers go to
                                 <task>[/<split>].answers.jsonl (which `rescue score --gold`
                                 reads) in the folder answers_out */
  const char *answers_out;    /* with blind (required): the answers' own folder, neither
                                 inside the output folder nor holding it; written all or
                                 nothing like it (force replaces it) */
  int require_clips;          /* an ER or VP record without a clip path is an error */
  FILE *stream;               /* non-NULL: write the records of the one selected task (and
                                 split) to this stream instead of a folder: no card, no
                                 manifest, `out` unused */
  const char *command_line;   /* how the export was asked for, for the card and manifest */
  int agreement_replicates;   /* bootstrap replicates of the card's agreement intervals
                                 (default 200; 0: no interval) */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_tasks_opts;

/* Defaults: corpus view, every task, 5 checkpoints, 5 words, no cap, no split filter. */
void rescue_tasks_opts_init(rescue_tasks_opts *o);

typedef struct rescue_tasks_result {
  long samples;      /* samples that went into the datasets */
  long discarded;    /* left out: discarded */
  long incomplete;   /* left out: a row has no version in the view */
  long unassigned;   /* left out: their group is not in the split run */
  long other_split;  /* left out by --split */
  int64_t split_run; /* the split run used, 0 when none */
  long instances[RESCUE_TASK_COUNT];
  long itp_yes;       /* ITP instances with gold yes */
  uint64_t bytes;     /* bytes of every file written */
  long missing_clips; /* ER and VP records written with an empty clip_path */
  long rows_gold;     /* rows of the samples used shown from adjudicated gold */
  long rows_latest;   /* ... from the latest version by anyone (or the view's annotator) */
} rescue_tasks_result;

/*
** Write the selected task datasets into the folder `out` (all or nothing; an existing,
** non-empty folder is refused unless opts->force): <task>.jsonl per task, or, when the
** store has a split run, <task>/<split>.jsonl and splits/<split>.txt per split of that
** run; then README.md (dataset card) and manifest.json, which say where every row came
** from (gold or latest, adjudication policies, annotators, agreement). Samples are
** streamed one at a time in sample_id order; discarded and incomplete samples are left
** out and counted. An export that would write no record fails (RESCUE_ENOTFOUND, with
** the reason); so does one with ER or VP records without a clip under require_clips.
*/
int rescue_export_tasks(rescue_store *st, const char *out, const rescue_tasks_opts *opts,
                        rescue_tasks_result *res);

#endif
