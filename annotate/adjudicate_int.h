/*
** adjudicate_int.h: private to adjudication (annotate/adjudicate.c, annotate/gold_seg.c)
** and curation (annotate/curate.c): settling a sample's gold segmentation inside the
** caller's transaction, and aligning a coder's rows to the gold rows.
*/
#ifndef RESCUE_ADJUDICATE_INT_H
#define RESCUE_ADJUDICATE_INT_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_store.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/*
** Make the row set `from` names the gold row set of sample (ref, sample_id), inside the
** caller's transaction: "draft" (the base row set), "majority" (the row set of strictly
** more of the n coders ids[]/names[] who saved a version of the sample than of any
** other; two row sets are the same when every row's start and end agree within 10 ms) or
** a coder's name (their row set; they must have saved a version of the sample). The gold
** row set lists the chosen rows in their order, made by the coder whose segmentation it
** is (rowset.annotator_id: the first of a majority, or the draft's importer); the gold
** pseudo-annotator's annotator_rowset points at it. Nothing is written when it already is
** so (*changed 0). No majority: *waits 1, the reason in why, nothing written. Bad input
** (unknown name, no version of the sample): RESCUE_EINVAL or RESCUE_ENOTFOUND on the
** handle.
*/
int rescue_gold_seg_apply(rescue_store *st, int64_t ref, const char *sample_id, const char *from,
                          const int64_t *ids, char *const *names, int n, int *waits, int *changed,
                          rescue_buf *why);

/*
** The gold row set of sample ref: 1 with *rowset_id and *segmenter (whose segmentation it
** is) set, 0 when adjudication chose none, or a negative error on the handle.
*/
int rescue_gold_rowset(rescue_store *st, int64_t ref, int64_t *rowset_id, int64_t *segmenter);
/*
** rescue_gold_segmentation_set (rescue_adjudicate.h) by the lead `lead` (NULL: none), who
** is recorded with the audit entry.
*/
int rescue_gold_segmentation_set_by(rescue_store *st, const char *sample_id, const char *from,
                                    const char *const *coders, int n_coders, const char *lead,
                                    int *waits, rescue_buf *why);

/*
** The fields of a row that its segmentation decides (times, speaker, text, row_index):
** gold takes them from the gold row set's own row, never from a vote. NULL-terminated.
*/
extern const char *const rescue_gold_seg_fields[];

/*
** Align one coder's rows (their own row set: start and end times cs, ce; nc rows) to the
** rows of the gold row set (gs, ge; ng rows), the one rule adjudication and curation
** share: rows pair off one to one by greatest overlap among the pairs that overlap by at
** least half of the shorter span (rescue_align_rows, annotate/agree_int.h). So a row a
** coder kept whole that gold split goes to the half it overlaps most (the earlier on a
** tie), and of rows gold merged the one overlapping it most goes to the merged row.
** *gm (ng entries): per gold row the coder's row (index) or -1; *cm (nc): per coder row
** the gold row or -1; the caller frees both. 0 or RESCUE_ENOMEM (nothing allocated).
*/
int rescue_gold_align(const double *gs, const double *ge, int ng, const double *cs,
                      const double *ce, int nc, int **gm, int **cm);

#pragma GCC visibility pop

#endif
