/*
** rescue_export.h: writing the corpus out (public).
** Samples as release JSONL or as a data-root tree, through a view, all or nothing.
*/
#ifndef RESCUE_EXPORT_H
#define RESCUE_EXPORT_H

#include <stdint.h>
#include <stdio.h>

#include "rescue_store.h"

typedef struct rescue_export_opts {
  rescue_view view;
  const char *const *samples; /* restrict to these sample ids (n_samples of them), or NULL */
  int n_samples;
  int force;             /* replace an existing, non-empty output */
  int include_discarded; /* also export samples whose status is discarded */
  FILE *stream;          /* non-NULL (JSONL only): write to this stream, `out` unused */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_export_opts;

typedef struct rescue_export_result {
  long samples; /* written */
  long rows;
  long incomplete; /* left out: some row has no version in the view (e.g. no gold yet) */
  long discarded;  /* left out: discarded */
} rescue_export_result;

/*
** Write samples in sample_id order to `out`: one JSONL file (data_root = 0), or a
** folder of <sample_id>.json files (data_root = 1), each holding the same object as the
** JSONL line plus a newline. Written to a temporary name and renamed at the end. An
** export that would write no sample fails (RESCUE_ENOTFOUND, with the reason).
*/
int rescue_export_samples(rescue_store *st, const char *out, int data_root,
                          const rescue_export_opts *opts, rescue_export_result *res);

#endif
