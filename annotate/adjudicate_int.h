/*
** adjudicate_int.h: private to adjudication (annotate/adjudicate.c, annotate/gold_seg.c)
** and curation (annotate/curate.c): settling a sample's gold segmentation inside the
** caller's transaction, and aligning a coder's rows to the gold rows.
*/
#ifndef RESCUE_ADJUDICATE_INT_H
#define RESCUE_ADJUDICATE_INT_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_json.h"
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
** *gm (ng entries): per gold row the coder's row (index) or -1.
** *rt (ng + nc entries): where the coder's references go in gold (rescue_gold_refs_write).
** rt[i], gold row i: the coder's row whose references go to it: its partner, else the row
** of theirs it overlaps most (the earlier on a tie), else -1; so a reference to a row they
** kept whole that gold split goes to both halves. rt[ng + j], coder row j that no gold row
** names so (the other half of their split, the other of two rows gold merged): the gold
** row it overlaps most (the earlier on a tie), else -1 (it overlaps none, or a gold row
** names it). The caller frees both. 0 or RESCUE_ENOMEM (nothing allocated).
*/
int rescue_gold_align(const double *gs, const double *ge, int ng, const double *cs,
                      const double *ce, int nc, int **gm, int **rt);

/*
** Append to out the row-number list v (an array) of a coder's row as the gold row set
** numbers rows, through rt (rescue_gold_align; ng gold rows): row_at(ctx, n) gives the
** index of their row n, or -1 when they have none (the number never resolved: written as
** it is); gold_pos(ctx, i) the position of gold row i. A reference goes to every gold row
** rt names for it, in gold order, else to its rt[ng + j], else it is left out; each gold
** row is written once. 0 or RESCUE_ENOMEM.
*/
int rescue_gold_refs_write(rescue_buf *out, const rescue_jnode *v, const int *rt, int ng,
                           int (*row_at)(void *ctx, int pos), int (*gold_pos)(void *ctx, int i),
                           void *ctx);

/*
** 1 when a coder's row shown with origin (rescue_row.origin, RESCUE_ROW_*) votes in gold,
** in adjudication and curation alike: not a split or merged row carrying a version its
** annotator saved on another span (they never judged this one).
*/
int rescue_gold_votes(int origin);

#pragma GCC visibility pop

#endif
