/*
** curate_int.h: what adjudication shares with curation (private to annotate/): recording
** the provenance of the values of a gold version a policy wrote.
*/
#ifndef RESCUE_CURATE_INT_H
#define RESCUE_CURATE_INT_H

#include "rescue_json.h"
#include "rescue_store.h"

#pragma GCC visibility push(hidden)

/*
** Record, inside the caller's transaction, where each field of gold version version_id
** (of row row_id, content gold) came from: a lead's decision in force on it (taken or
** edited), else agreed when every voter's row (rows[0..n)) has that value, else the
** policy (lead_id, may be 0: the lead of the lead policy). 0 or an error on the handle.
*/
int rescue_curate_policy_provenance(rescue_store *st, int64_t version_id, int64_t row_id,
                                    const rescue_jnode *gold, const rescue_jnode *const *rows,
                                    int n, const char *policy, int64_t lead_id);

/*
** The number of lead decisions in force on row row_id (*n: on fields, items or parts); a
** policy run that decides such a row compares its gold with the last gold a policy wrote
** and then calls rescue_curate_keep_decisions. 0 or an error on the handle.
*/
int rescue_curate_decisions_live(rescue_store *st, int64_t row_id, int *n);

/*
** After a policy run decided row row_id: the gold its lead decisions make over the
** policy's gold (every decision in force replayed, as curation shows the row) written as
** a curation gold version, unless the row's gold already is that or a value is left
** undecided; inside the caller's transaction. *written is 1 when a version was written.
*/
int rescue_curate_keep_decisions(rescue_store *st, int64_t row_id, int *written);

#pragma GCC visibility pop

#endif
