/*
** rescue_adjudicate.h: settling disagreements into gold (public). Per row, the whole row
** content is decided by a policy and written as a gold version (kind "gold", with the
** policy and the versions it came from) under the pseudo-annotator "adjudication". Rows
** that cannot be decided are listed, never broken silently. Exports then use gold where
** it exists (the corpus view).
*/
#ifndef RESCUE_ADJUDICATE_H
#define RESCUE_ADJUDICATE_H

#include "rescue_buf.h"
#include "rescue_store.h"

typedef enum rescue_adj_policy {
  RESCUE_ADJ_LEAD,      /* the lead's version where the lead made one, else what all coders share */
  RESCUE_ADJ_MAJORITY,  /* the content most coders share (a tie is undecided) */
  RESCUE_ADJ_LATEST     /* the latest version by anyone */
} rescue_adj_policy;

int rescue_adj_policy_parse(const char *name, rescue_adj_policy *out);
const char *rescue_adj_policy_name(rescue_adj_policy p);

typedef struct rescue_adjudicate_opts {
  rescue_adj_policy policy;
  const char *lead;               /* lead policy: the lead (NULL: the corpus's only lead) */
  const char *const *samples;     /* only these (discarded ones only when named) */
  int n_samples;
} rescue_adjudicate_opts;

typedef struct rescue_adj_undecided {
  char *sample_id;
  int row;                        /* position */
  char *reason;
} rescue_adj_undecided;

typedef struct rescue_adjudicate_result {
  char *lead;                     /* the lead used (lead policy) */
  long samples, rows;             /* looked at */
  long written;                   /* gold versions written */
  long unchanged;                 /* decided as the current gold already is */
  int n_undecided, cap_undecided;
  rescue_adj_undecided *undecided;
} rescue_adjudicate_result;

/*
** Coders of a sample: the people (not models, not the adjudication pseudo-annotator) with
** a version of one of its rows; each one's content for a row is their latest version, else
** the row's first version (a row they left alone is one they accepted). All in one
** transaction; errors on the store handle.
*/
int rescue_adjudicate(rescue_store *st, const rescue_adjudicate_opts *o,
                      rescue_adjudicate_result *res);
void rescue_adjudicate_result_free(rescue_adjudicate_result *res);
/* {"policy", "lead", "samples", "rows", "written", "unchanged", "undecided": [...]} */
void rescue_adjudicate_result_json(const rescue_adjudicate_opts *o,
                                   const rescue_adjudicate_result *res, rescue_buf *out);

#endif
