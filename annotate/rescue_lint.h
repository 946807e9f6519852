/*
** rescue_lint.h: the annotation guideline as checks (public): rules R01-R21 of annotate/LINT.md
** (among them R20, a name that differs from a participant only by case or spacing, and R21, in
** an annotator's view, a row someone else's resegmentation changed), driven by the corpus's
** scheme (types, closed label sets per scenario, entity fields, ranges). Each finding names
** its rule, severity, sample, row, field and a one-line reason.
*/
#ifndef RESCUE_LINT_H
#define RESCUE_LINT_H

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_scheme.h"
#include "rescue_store.h"

typedef enum rescue_lint_severity { RESCUE_LINT_ERROR, RESCUE_LINT_WARNING } rescue_lint_severity;

#define RESCUE_LINT_RULES 21 /* R21: in an annotator view, a row someone else resegmented */

typedef struct rescue_lint_finding {
  int rule; /* 1..20 (R01..R20) */
  rescue_lint_severity severity;
  char *sample_id;
  int row;           /* 1-based position; 0: the sample as a whole */
  char *field;       /* "target", "internal_emotion[2].intensity", "participants" */
  char *reason;      /* one line */
  char *suggestions; /* out-of-set values: the closest allowed ones, ", "-separated
                                    (NULL when none) */
  int waiver;        /* 1 + index in the result's waivers when waived, else 0 */
  int cause_rule;    /* a consequence of another finding (R06 and R11 of a speaker written
                        'therapist', R19 listing that name): its rule and row; 0 for a root */
  int cause_row;
} rescue_lint_finding;

/* An accepted finding (`rescue lint --waive`): rule, sample and row (0: the sample). */
typedef struct rescue_lint_waiver {
  int rule;
  char *sample_id;
  int row;
  char *reason, *by, *at; /* why, who, when (UTC ISO-8601) */
  long matched;           /* findings of this lint run it covers */
} rescue_lint_waiver;

typedef struct rescue_lint_result {
  int n, cap;
  rescue_lint_finding *findings;       /* by sample, then row, then rule */
  long samples, rows;                  /* what was checked */
  long errors, warnings;               /* findings not waived */
  long by_rule[RESCUE_LINT_RULES + 1]; /* findings not waived */
  long waived;                         /* findings covered by a waiver */
  int n_waivers;
  rescue_lint_waiver *waivers;   /* every waiver of the corpus (rescue_lint only) */
  struct rescue_lint_ents *ents; /* the sample's derived names the findings were judged by
                                    (rescue_review_lint, rescue_review_check_change; NULL
                                    otherwise); owned, freed by rescue_lint_result_clear */
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
  double duration; /* seconds; NAN when no media is linked */
  int n_cues;      /* subtitle cues (0: none stored) */
  const rescue_lint_cue *cues;
} rescue_lint_media;

/*
** R13 for references a view could not follow (rescue_row.lost_refs, a JSON object {field:
** [[number as written, row id], ...]}; NULL adds nothing): one error per reference, on row
** `position` of sample_id. rescue_lint and rescue_review_lint call it; 0 or RESCUE_ENOMEM.
*/
int rescue_lint_lost_refs(const char *sample_id, int position, const char *lost_refs,
                          rescue_lint_result *res);

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

/*
** Lint the sample after one edit: rows[0..n) hold the edited row at index `at`, which
** replaced old_row (rows[at] is swapped for old_row while the call runs, then put back). The row rules run on that row and
** on the rows whose time rules look back at it (R17, R18); the sample-level rules (R03,
** R14, R19) on the whole sample; and when the edit changes the sample's entity set or
** scenario (a new name, a case slip), every row is checked, since R04 and R20 then judge
** every row differently. The findings are those a full rescue_lint_sample of the edited
** sample gives on those rows and on the sample. Returns 0 or RESCUE_ENOMEM.
*/
int rescue_lint_row_change(const rescue_scheme *sc, const char *sample_id,
                           const rescue_jnode *sample, const rescue_jnode **rows, int n, int n_rows,
                           int at, const rescue_jnode *old_row, const rescue_lint_media *media,
                           rescue_lint_result *res);
/*
** rescue_lint_row_change, and judged[0..n) (when not NULL; n bytes) says which rows it
** judged: 1 for each row whose findings res now holds, 0 for rows whose findings are as
** before the edit. Sample-level findings (row 0) are always judged.
*/
int rescue_lint_row_change_rows(const rescue_scheme *sc, const char *sample_id,
                                const rescue_jnode *sample, const rescue_jnode **rows, int n,
                                int n_rows, int at, const rescue_jnode *old_row,
                                const rescue_lint_media *media, rescue_lint_result *res,
                                unsigned char *judged);

/*
** What the sample-level rules derive from every row of one sample, kept between row
** checks: the scenario and the entity set R04 and R20 judge every row by (in their order:
** the closest name and the one a case slip is measured against depend on it), and the
** sample-level findings made with them (R19, row 0). They come from the sample object and
** three members of each row only, primary_speaker, target and support_strategy (their
** targets), so they hold for as long as no row's three members change; an edit that
** leaves them alone is then checked without reading every row (rescue_lint_row_change_kept).
** Opaque; freed with rescue_lint_ents_free.
*/
typedef struct rescue_lint_ents rescue_lint_ents;

/* Free *e (NULL is fine) and set *e to NULL. */
void rescue_lint_ents_free(rescue_lint_ents **e);

/*
** rescue_lint_sample, and (ents not NULL) the sample's derived names into *ents, a new
** object the caller frees with rescue_lint_ents_free (NULL after a failure). 0 or
** RESCUE_ENOMEM.
*/
int rescue_lint_sample_ents(const rescue_scheme *sc, const char *sample_id,
                            const rescue_jnode *sample, const rescue_jnode *const *rows,
                            const int *pos, int n, int n_rows, const rescue_lint_media *media,
                            rescue_lint_result *res, rescue_lint_ents **ents);

/*
** rescue_lint_row_change_rows with the sample's derived names kept by the caller: before
** holds those of rows[0..n) with old_row at `at` (from rescue_lint_sample_ents or an
** earlier call's *after; NULL, or derived for another sample or row count: derived here
** from every row, as rescue_lint_row_change_rows does). When the edit leaves
** primary_speaker, target and support_strategy of the row as they were, before is used as
** it is and no other row is read for it: the check costs the row and its followers, not
** the sample. The findings are the same as rescue_lint_row_change_rows's, byte for byte.
** *after (when after is not NULL) receives the names of the edited sample when they may
** differ from before (the edit changed those members, or before was NULL), a new object
** the caller frees; NULL when before still holds. Returns 0 or RESCUE_ENOMEM.
*/
int rescue_lint_row_change_kept(const rescue_scheme *sc, const char *sample_id,
                                const rescue_jnode *sample, const rescue_jnode **rows, int n,
                                int n_rows, int at, const rescue_jnode *old_row,
                                const rescue_lint_media *media, rescue_lint_result *res,
                                unsigned char *judged, const rescue_lint_ents *before,
                                rescue_lint_ents **after);

typedef struct rescue_lint_opts {
  rescue_view view;           /* corpus view by default (zeroed) */
  const char *const *samples; /* only these (discarded ones are linted when named) */
  int n_samples;
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_lint_opts;

/*
** Lint every sample of the store (not discarded) through the view, with media durations
** (R03) and stored subtitle cues (R14). Findings covered by a waiver are marked (their
** `waiver`) and counted in res->waived instead of errors, warnings and by_rule. Errors on
** the store handle.
*/
int rescue_lint(rescue_store *st, const rescue_lint_opts *o, rescue_lint_result *res);
void rescue_lint_result_clear(rescue_lint_result *res);

/*
** Record a waiver for findings of `rule` on sample_id's row (0: the sample as a whole). The
** sample must exist, the rule be 1..RESCUE_LINT_RULES and the row 0..its row count
** (RESCUE_EINVAL or RESCUE_ENOTFOUND otherwise), and the rule must have a finding there in
** the corpus view (RESCUE_ENOTFOUND, the message naming the findings the row does have).
** An existing waiver of the same finding is replaced: its author, date and reason are
** appended to replaced (when not NULL) and stay in the waiver history. `by` is who waives
** it. Messages on the handle; nothing is recorded on a failure.
*/
int rescue_lint_waive(rescue_store *st, int rule, const char *sample_id, int row,
                      const char *reason, const char *by, rescue_buf *replaced);
/* Remove a waiver, by `by` (kept in the history); RESCUE_ENOTFOUND when there is none. */
int rescue_lint_unwaive(rescue_store *st, int rule, const char *sample_id, int row, const char *by);
/*
** Append the waiver history (every waive and unwaive, oldest first; of sample_id only when
** not NULL) to out, one line each: "<when>  waive|unwaive R13 <sample>:<row>  by <who>[:
** <reason>]".
*/
int rescue_lint_waiver_history(rescue_store *st, const char *sample_id, rescue_buf *out);
/*
** Parse "<rule>:<sample_id>:<row>" ("R13:alan_and_evelyn/003:2"; the rule as R13 or 13):
** *sample_id points into a copy the caller frees with rescue_free. RESCUE_EINVAL with a
** message in err when malformed.
*/
int rescue_lint_waiver_parse(const char *spec, int *rule, char **sample_id, int *row,
                             rescue_error *err);

/* "<sample>:<row>: error: R05 target: <reason>" (no row for the sample as a whole). */
void rescue_lint_finding_text(const rescue_lint_finding *f, rescue_buf *out);
/*
** {"samples", "rows", "errors", "warnings", "by_rule": {...}, "findings": [...],
**  "waived", "waived_findings": [...], "waivers": [...]}: findings not waived, then the
** waived ones (each with its waiver), then every waiver with how many findings it covered.
** A finding with suggestions has "suggestions": [...].
*/
void rescue_lint_result_json(const rescue_lint_result *res, rescue_buf *out);

#endif
