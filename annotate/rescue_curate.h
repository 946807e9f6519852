/*
** rescue_curate.h: a lead settling one sample into gold, value by value (public). The
** state of a sample's curation: its gold row set, per gold row and value each coder's
** value (people, the draft and models, marked as such), the gold value with its
** provenance, lint findings and the row's curation version; and the decisions that
** change it (take a coder's value, give a value, undo), each linted before it is stored.
** The review server's curation routes and `rescue adjudicate --decide` both decide here.
**
** Values are addressed by a field name ("target") or a JSON pointer into the row: one item
** of a list field keyed by its person ("/internal_emotion/Alan"; viewpoints by
** "source>target", "/viewpoints_attitudes/Alan>Beth"; a second item of the same person
** "Alan#2", an item without a person "#3", its position) or one part of an item
** ("/internal_emotion/Alan/intensity"). Where the coders differ on a list field, the
** undecided values are its items, or the parts of an item every coder has.
*/
#ifndef RESCUE_CURATE_H
#define RESCUE_CURATE_H

#include "rescue_buf.h"
#include "rescue_lint.h"
#include "rescue_store.h"

/* The policy name of gold versions written by curation (row_version.gold_policy). */
#define RESCUE_CURATE_POLICY "curate"

/* One coder's value at a path: canonical JSON, or NULL when their row has none there. */
typedef struct rescue_curate_value {
  const char *coder; /* the state's coder name */
  char *value;
  int has_row; /* 0: no row of the coder's row set aligns with it (they resegmented) */
} rescue_curate_value;

/* Where a gold value came from. */
typedef struct rescue_curate_prov {
  char *how;    /* agreed | policy | taken | edited | undecided */
  char *policy; /* how = policy: its name ("segmentation": times, speaker, text) */
  char *from;   /* how = taken: the coder; policy "segmentation": whose segmentation */
  char *by;     /* taken, edited: the lead */
  char *at;     /* when (UTC ISO-8601); NULL when unknown */
} rescue_curate_prov;

typedef struct rescue_curate_value_set {
  char *path;  /* JSON pointer ("/target", "/internal_emotion/Alan/intensity") */
  char *gold;  /* the gold value (canonical JSON), NULL when absent or undecided */
  int decided; /* 0: the coders differ and nobody decided yet */
  int differ;  /* the coders' values are not all the same */
  rescue_curate_prov prov;
  int n_values;
  rescue_curate_value *values; /* one per coder, in the state's coder order */
} rescue_curate_value_set;

/* A coder's comment on a row (the comment table). */
typedef struct rescue_curate_comment {
  char *annotator; /* who wrote it; NULL: not given */
  char *text;
  char *created_at;
} rescue_curate_comment;

/*
** A coder's row shown on a gold row although it is another row (their row set differs
** from gold's there): the row of theirs aligned to it as adjudication aligns rows (greatest
** overlap, at least half of the shorter span, one to one), e.g. a row they kept whole that
** gold split, shown on the half it aligns to. Their values and "take" are that row's.
*/
typedef struct rescue_curate_source {
  const char *coder; /* the state's coder name */
  int64_t row_id;    /* their row's row.id */
  double start_time, end_time;
} rescue_curate_source;

typedef struct rescue_curate_row {
  int position;         /* 1-based, in the gold row set */
  int64_t row_id;       /* row.id */
  int64_t version;      /* the row's curation version (base_version of a decision) */
  int64_t gold_version; /* the row's latest gold row_version.id, 0 when none */
  int undecided;        /* values still undecided */
  int n_values;
  rescue_curate_value_set *values; /* in row order */
  rescue_lint_result lint;         /* findings on the decided values */
  int n_comments;
  rescue_curate_comment *comments; /* everyone's comments on the row id, in time order */
  int n_sources;
  rescue_curate_source *sources; /* coders whose values come from another row of theirs */
} rescue_curate_row;

typedef struct rescue_curate_coder {
  char *name;
  char *kind; /* annotator | lead | model | draft */
} rescue_curate_coder;

typedef struct rescue_curate_state {
  char *sample_id;
  int64_t rowset_id; /* the gold row set (today: the sample's base row set) */
  int n_coders;
  rescue_curate_coder *coders;
  int n_rows;
  rescue_curate_row *rows;
  long values, decided; /* over all rows */
} rescue_curate_state;

/*
** Load sample_id's curation state into *out (cleared with rescue_curate_state_clear, also
** after a failure). RESCUE_ENOTFOUND for an unknown sample; errors on the store handle.
*/
int rescue_curate_load(rescue_store *st, const char *sample_id, rescue_curate_state *out);
void rescue_curate_state_clear(rescue_curate_state *s);
/*
** {"sample_id", "rowset", "coders": [{"name", "kind"}], "values", "decided",
**  "rows": [{"row", "row_id", "version", "gold_version", "undecided", "findings",
**  "aligned": [{"coder", "row_id", "start_time", "end_time"}] (rescue_curate_source),
**  "values": [{"path", "field", "decided", "differ", "gold", "provenance": {"how", "policy",
**  "from", "by", "at"}, "coders": [{"coder", "value", "present", "has_row"}]}]}]}
** only_row > 0: that row alone.
*/
void rescue_curate_state_json(const rescue_curate_state *s, int only_row, rescue_buf *out);

/*
** The queue: every sample not discarded with its rows, rows with gold, values and undecided
** values, as {"samples": [{"sample_id", "rows", "gold_rows", "values", "undecided",
** "coders"}]}; open_only: only samples with undecided values. The counts are the state's
** (rescue_curate_load), built without lint; a sample nobody resegmented has its rows read
** with one query per coder.
*/
int rescue_curate_queue_json(rescue_store *st, int open_only, rescue_buf *out);

typedef enum rescue_curate_op {
  RESCUE_CURATE_TAKE,  /* the coder's value (absent there: absent in gold) */
  RESCUE_CURATE_VALUE, /* the value given */
  RESCUE_CURATE_UNDO   /* take back the latest decision in force at the path */
} rescue_curate_op;

typedef struct rescue_curate_decision {
  const char *sample_id;
  int row;           /* 1-based position in the gold row set */
  const char *field; /* a field name or a JSON pointer */
  rescue_curate_op op;
  const char *take;     /* RESCUE_CURATE_TAKE: a coder's name, or "draft" */
  const char *value;    /* RESCUE_CURATE_VALUE: JSON text */
  size_t value_len;     /*   its length */
  int64_t base_version; /* the row's curation version the lead saw; -1: not checked */
} rescue_curate_decision;

typedef struct rescue_curate_outcome {
  int64_t version;         /* the row's curation version after the decision */
  int64_t gold_version;    /* a gold version written by it, else 0 */
  rescue_lint_result lint; /* refused by lint: the findings (errors among them) */
} rescue_curate_outcome;

/*
** Decide one value of one row as the lead `lead` (a registered annotator with role lead),
** in its own transaction. The decision is linted with the row as it would be: an error on
** the value decided, or one it would add, refuses it (RESCUE_EBADINPUT, findings in
** out->lint). An unknown field, item or coder, or a coder without a version of the sample,
** is RESCUE_EBADINPUT; a base_version that is not the row's current one RESCUE_ECONFLICT.
** Nothing else of the row changes. When the row has no undecided value left a gold version
** is written at once (out->gold_version), with the provenance of every value. An undo that
** leaves a value undecided retires the gold versions curation wrote since the row's last
** policy gold (kept in gold_retired): the row shows that gold, or none.
*/
int rescue_curate_decide(rescue_store *st, const char *lead, const rescue_curate_decision *d,
                         rescue_curate_outcome *out);
void rescue_curate_outcome_clear(rescue_curate_outcome *o);

/*
** Choose the gold row set of a sample: "draft" or a coder's row set (their own split or
** merged one included; rescue_gold_segmentation_set), recorded in the audit log with the
** lead. Choosing the current one again keeps it. Either way every row with nothing
** undecided and no gold yet gets a gold version (values agreed by all coders; times,
** speaker and text from the chosen segmentation). A coder without a version of the
** sample: RESCUE_EBADINPUT.
*/
int rescue_curate_segmentation(rescue_store *st, const char *lead, const char *sample_id,
                               const char *from);

/* How a gold version was decided, from the provenance of its values. */
typedef enum rescue_gold_by {
  RESCUE_GOLD_BY_UNKNOWN, /* no provenance recorded (gold written before it was) */
  RESCUE_GOLD_AGREED,     /* every value agreed by all coders */
  RESCUE_GOLD_BY_POLICY,  /* a policy chose a value the coders differed on */
  RESCUE_GOLD_BY_LEAD     /* a lead decided a value (taken from a coder or edited) */
} rescue_gold_by;

typedef struct rescue_gold_how {
  rescue_gold_by by;
  char policy[16]; /* BY_POLICY: lead, majority or latest */
  int64_t lead_id; /* BY_LEAD: the lead of the latest decision; BY_POLICY lead: the lead whose
                      version the policy took (0: none) */
} rescue_gold_how;

/*
** How gold version version_id was decided (rescue_gold_how), read from the provenance
** adjudication and curation record with every value: a lead's decision on any value makes
** it the lead's, else a policy's choice the policy's, else it was agreed. Returns 0 or an
** error kept on the handle.
*/
int rescue_gold_how_of(rescue_store *st, int64_t version_id, rescue_gold_how *how);

/*
** Whose segmentation row set rowset_id is, when it is a gold row set (chosen with
** `adjudicate --segmentation` or on the curation page): 1 with *segmenter the annotator
** whose row set was chosen (the draft's id for the draft), 0 when it is not a gold row set,
** or an error kept on the handle.
*/
int rescue_gold_segmenter(rescue_store *st, int64_t rowset_id, int64_t *segmenter);

#endif
