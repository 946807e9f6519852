/*
** rescue_split.h: leakage-free train/validation/test splits (public). Whole groups (a
** couple, a family) go to one split, deterministically for a seed, stratified by
** scenario with largest-remainder group counts; every run is kept as a new split_run.
*/
#ifndef RESCUE_SPLIT_H
#define RESCUE_SPLIT_H

#include <stdint.h>

#include "rescue_store.h"

/* The three split names, in this order: train, validation, test. */
#define RESCUE_SPLIT_COUNT 3
const char *rescue_split_name(int i);
/* Index of a split name, or -1. */
int rescue_split_index(const char *name);

/*
** Parse "0.8,0.1,0.1": three finite numbers >= 0 with a positive sum (they are used
** in proportion, so 8,1,1 is the same split). RESCUE_EINVAL with a message otherwise.
*/
int rescue_split_parse_ratios(const char *text, double ratios[RESCUE_SPLIT_COUNT],
                              rescue_error *err);

typedef struct rescue_split_opts {
  double ratios[RESCUE_SPLIT_COUNT];
  const char *ratios_text; /* recorded as given (NULL: formatted from ratios) */
  uint64_t seed;           /* at most INT64_MAX (stored in SQLite) */
  int stratify;            /* 1: group counts per scenario */
} rescue_split_opts;

typedef struct rescue_split_result {
  int64_t run_id;
  long groups[RESCUE_SPLIT_COUNT];
  long samples[RESCUE_SPLIT_COUNT];
  long scenario_groups[2][RESCUE_SPLIT_COUNT]; /* [0] couple, [1] family */
} rescue_split_result;

/*
** Assign every group that has samples to a split and record it as a new split run (one
** transaction). A group's scenario is family when any of its samples is (corpus/FORMAT.md §6.3,
** corpus view). Groups are sorted by name, shuffled per stratum with a generator seeded
** by `seed` (SplitMix64, Fisher-Yates), and dealt out: the first n_train to train, and so
** on, where the counts come from the ratios by largest remainder (ties: train first).
*/
int rescue_split_assign(rescue_store *st, const rescue_split_opts *o, rescue_split_result *res);

/* The split run in use (the latest), or id 0 when there is none. */
typedef struct rescue_split_run {
  int64_t id;
  int64_t seed;
  char ratios[128];             /* as recorded */
  double r[RESCUE_SPLIT_COUNT]; /* parsed */
  int stratify;
  char created_at[32];
} rescue_split_run;
int rescue_split_latest(rescue_store *st, rescue_split_run *run);

/* The split (index) of a sample in run `run_id`: 0..2, or -1 when its group has none. */
int rescue_split_of_sample(rescue_store *st, int64_t run_id, int64_t sample_ref, int *split);

#endif
