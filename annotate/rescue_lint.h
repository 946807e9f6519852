/*
** rescue_lint.h: the annotation guideline as checks (public): rules R01-R19 of annotate/LINT.md,
** driven by the corpus's scheme (types, closed label sets per scenario, entity fields,
** ranges). Each finding names its rule, severity, sample, row, field and a one-line reason.
*/
#ifndef RESCUE_LINT_H
#define RESCUE_LINT_H

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_scheme.h"
#include "rescue_store.h"

typedef enum rescue_lint_severity { RESCUE_LINT_ERROR, RESCUE_LINT_WARNING } rescue_lint_severity;

#define RESCUE_LINT_RULES 19

typedef struct rescue_lint_finding {
  int rule;                      /* 1..19 (R01..R19) */
  rescue_lint_severity severity;
  char *sample_id;
  int row;                       /* 1-based position; 0: the sample as a whole */
  char *field;                   /* "target", "internal_emotion[2].intensity", "participants" */
  char *reason;                  /* one line */
} rescue_lint_finding;

typedef struct rescue_lint_result {
  int n, cap;
  rescue_lint_finding *findings; /* by sample, then row, then rule */
  long samples, rows;            /* what was checked */
  long errors, warnings;
  long by_rule[RESCUE_LINT_RULES + 1];
} rescue_lint_result;

/* The severity of rule 1..19 and its one-line description. */
rescue_lint_severity rescue_lint_rule_severity(int rule);
const char *rescue_lint_rule_text(int rule);

/* What one sample brings besides its JSON: media and subtitle facts, when known. */
typedef struct rescue_lint_cue {
  int seq;
  double start, end;
  const char *text;
} rescue_lint_cue;

typedef struct rescue_lint_media {
  double duration;               /* seconds; NAN when no media is linked */
  int n_cues;                    /* subtitle cues (0: none stored) */
  const rescue_lint_cue *cues;
} rescue_lint_media;

/*
** Check one sample given as JSON: `sample` is the sample object (its sample-level keys;
** may be NULL), rows[i] the rows at positions pos[i] (pos NULL: 1..n), n_rows the size of
** the row set (for evidence rows; n < n_rows, a partial view, skips R14 and R19).
** Findings are appended to res. media may be NULL.
** Returns 0 or RESCUE_ENOMEM. This is what the review server runs on a save.
*/
int rescue_lint_sample(const rescue_scheme *sc, const char *sample_id, const rescue_jnode *sample,
                       const rescue_jnode *const *rows, const int *pos, int n, int n_rows,
                       const rescue_lint_media *media, rescue_lint_result *res);

typedef struct rescue_lint_opts {
  rescue_view view;              /* corpus view by default (zeroed) */
  const char *const *samples;    /* only these (discarded ones are linted when named) */
  int n_samples;
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_lint_opts;

/*
** Lint every sample of the store (not discarded) through the view, with media durations
** (R03) and stored subtitle cues (R14). Errors on the store handle.
*/
int rescue_lint(rescue_store *st, const rescue_lint_opts *o, rescue_lint_result *res);
void rescue_lint_result_free(rescue_lint_result *res);

/* "<sample>:<row>: error: R05 target: <reason>" (no row for the sample as a whole). */
void rescue_lint_finding_text(const rescue_lint_finding *f, rescue_buf *out);
/* {"samples", "rows", "errors", "warnings", "by_rule": {...}, "findings": [...]} */
void rescue_lint_result_json(const rescue_lint_result *res, rescue_buf *out);

#endif
