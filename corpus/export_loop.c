/*
** export_loop.c: the loop over samples that every exporter runs (rescue_export_each in
** rescue_output.h): which samples are left out and why, and progress.
*/
#include <string.h>

#include "rescue_output.h"

int rescue_export_each(rescue_store *st, const rescue_export_loop *l, rescue_export_tally *tally) {
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  unsigned every = l->progress_every ? l->progress_every : 64;
  long total = 0;
  int rc;
  memset(tally, 0, sizeof *tally);
  if ((rc = rescue_sample_iter_new(st, l->view, l->samples, l->n_samples, &it)))
    return rc;
  if ((rc = rescue_store_sample_count(st, &total)))
    goto end;
  if (l->n_samples)
    total = l->n_samples;
  if (l->begin && (rc = l->begin(l->arg)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    tally->seen++;
    if (l->progress && tally->seen % every == 0)
      l->progress(l->progress_arg, (uint64_t)tally->seen, (uint64_t)total);
    if (!l->include_discarded && strcmp(s->status, "discarded") == 0) {
      tally->discarded++;
      continue;
    }
    if (!s->complete) {
      tally->incomplete++;
      continue;
    }
    rc = l->each(l->arg, s);
    if (rc < 0)
      goto end;
    if (rc == RESCUE_EXPORT_SKIP)
      tally->skipped++;
    else
      tally->taken++;
  }
  if (rc < 0)
    goto end;
  rc = 0;
  if (l->progress)
    l->progress(l->progress_arg, (uint64_t)total, (uint64_t)total);
end:
  rescue_sample_iter_free(&it);
  return rc;
}
