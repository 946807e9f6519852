/*
** rescue_adjudicate.h: settling disagreements into gold (public), field by field. The
** fields (top-level keys of a row object) on which the coders agree are decided at once;
** a row is undecided only in the fields where they differ, and each such field is listed
** with every coder's value. A lead settles those with decisions (rescue_adjudicate_decide,
** rescue_curate.h), each recorded with the lead's name. A row's gold version (kind "gold",
** with the policy and the versions it came from, under the pseudo-annotator
** "adjudication") is written only once its last field is decided, so the gold view never
** holds a half-decided row; every value records its provenance (rescue_curate.h).
** A lead's own versions are a coder's like any other unless the policy is "lead".
*/
#ifndef RESCUE_ADJUDICATE_H
#define RESCUE_ADJUDICATE_H

#include "rescue_buf.h"
#include "rescue_store.h"

typedef enum rescue_adj_policy {
  RESCUE_ADJ_LEAD,     /* the lead's version where the lead made one, else field by field
                           what all other coders share */
  RESCUE_ADJ_MAJORITY, /* field by field, the value most coders share (a tie is undecided) */
  RESCUE_ADJ_LATEST    /* the latest version by any coder, whole row */
} rescue_adj_policy;

int rescue_adj_policy_parse(const char *name, rescue_adj_policy *out);
const char *rescue_adj_policy_name(rescue_adj_policy p);

typedef struct rescue_adjudicate_opts {
  rescue_adj_policy policy;
  const char *lead;           /* lead policy: the lead (NULL: the corpus's only lead) */
  const char *const *samples; /* only these (discarded ones only when named) */
  int n_samples;
  const char *const *coders; /* the coders (registered names); NULL or 0: every
                                     annotator or lead, not retired, with a saved version */
  int n_coders;
  int dry_run; /* decide and report, write nothing */
  /*
  ** Settle each sample's gold segmentation first (rescue_gold_segmentation_set): a coder's
  ** name, "draft" or "majority", for the named samples, else for every sample whose
  ** coders' row sets differ. NULL: keep the gold segmentation there is.
  */
  const char *segmentation;
} rescue_adjudicate_opts;

/* One coder's value of a field: canonical JSON, or NULL when their row lacks the key. */
typedef struct rescue_adj_value {
  char *coder;
  char *value;
} rescue_adj_value;

/* A field the coders differ on. */
typedef struct rescue_adj_field {
  char *field;
  int n_values;
  rescue_adj_value *values; /* one per coder, in coder order */
} rescue_adj_field;

typedef struct rescue_adj_undecided {
  char *sample_id;
  int row; /* position */
  char *reason;
  int n_fields; /* the fields still undecided (0: the reason says why) */
  rescue_adj_field *fields;
} rescue_adj_undecided;

typedef struct rescue_adjudicate_result {
  char *lead;          /* the lead used (lead policy) */
  long samples, rows;  /* looked at */
  long written;        /* gold versions written */
  long unchanged;      /* decided as the current gold already is */
  long fields_agreed;  /* fields decided because the coders agree */
  long fields_decided; /* fields decided by a lead's decision or by majority */
  long decisions;      /* decisions recorded (rescue_adjudicate_decide) */
  long segmentations;  /* gold row sets set (o->segmentation) */
  long waiting;        /* samples left for a lead: no majority, or row sets differ and no
                          gold segmentation (each an undecided entry with row 0) */
  char **coders;       /* the coders used, in order */
  int n_coders;
  int n_undecided, cap_undecided;
  rescue_adj_undecided *undecided;
} rescue_adjudicate_result;

/*
** Coders: o->coders, else every annotator or lead (not a model, not retired, not the
** draft) who saved at least one version. A coder takes part in a sample when they saved a
** version of one of its current rows; their content for a row is their view of it (their
** own version, else the draft). All in one transaction (rolled back for a dry run);
** errors on the store handle.
*/
int rescue_adjudicate(rescue_store *st, const rescue_adjudicate_opts *o,
                      rescue_adjudicate_result *res);
void rescue_adjudicate_result_clear(rescue_adjudicate_result *res);

/*
** Gold segmentation first (issue 22): gold rows live in a row set of their own, chosen
** before any field is decided. Times, speaker, text and row_index of each gold row come
** from the chosen row set; the other fields are decided by the policy, each coder's
** value taken from their row aligned to the gold row (one to one by greatest overlap,
** annotate/agree_align.c), their row references renumbered to gold positions.
**
** Make `from`'s row set the gold row set of sample_id, in its own transaction: `from` is
** a coder's name (they must have saved a version of the sample), "draft" (the base row
** set, the draft's) or "majority" (the row set shared by strictly more coders than any
** other; two row sets are the same when every row's start and end agree within 10 ms).
** coders (n_coders; NULL or 0: every annotator or lead with a saved version) are the ones
** counted. No majority: *waits = 1, the reason appended to why (may be NULL), nothing
** written. Bad input (no such sample or annotator, no version): an error on the handle,
** nothing written. The server's curation route and `adjudicate --segmentation` call it.
*/
int rescue_gold_segmentation_set(rescue_store *st, const char *sample_id, const char *from,
                                 const char *const *coders, int n_coders, int *waits,
                                 rescue_buf *why);

/*
** Apply a lead's decisions from a JSONL file, one object per line:
**   {"sample_id": "...", "row_index": n, "field": F, "value": <any JSON>}
**   {"sample_id": "...", "row_index": n, "field": F, "take": "<coder>"}   ("draft": the draft)
**   {"sample_id": "...", "row_index": n, "field": F, "undo": true}
** F is a field name or a pointer into the row (rescue_curate.h). Each line is one
** rescue_curate decision by `lead` (a registered annotator with role lead), linted first,
** changing that value only (no policy is re-run); a row's gold is written once none of its
** values is undecided, and, as in the browser, every row of a sample the file touched that
** has no gold and nothing undecided (every coder agrees) gets its gold. All lines in one transaction: the first refusal is RESCUE_EBADINPUT
** with "file:line:column: why" and nothing is written; o->dry_run writes nothing, the audit
** log included. res counts decisions, gold versions written (written) and samples touched.
** o->policy, o->samples and o->coders are not used (the file says which rows).
*/
int rescue_adjudicate_decide(rescue_store *st, const char *path, const char *lead,
                             const rescue_adjudicate_opts *o, rescue_adjudicate_result *res);
/*
** {"policy", "lead", "dry_run", "coders", "samples", "rows", "written", "unchanged",
**  "fields_agreed", "fields_decided", "decisions", "segmentation", "segmentations",
**  "waiting", "undecided" (row 0: a sample waiting for a gold segmentation): [{"sample", "row", "reason", "fields": [{"field", "values":
**  [{"coder", "value"}]}]}]}
*/
void rescue_adjudicate_result_json(const rescue_adjudicate_opts *o,
                                   const rescue_adjudicate_result *res, rescue_buf *out);

#endif
