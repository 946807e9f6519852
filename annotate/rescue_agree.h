/*
** rescue_agree.h: inter-annotator agreement (public): one engine for any long-format
** reliability data (unit, coder, value), fed from a RESCUE corpus or a TSV table.
** What is computed and why: annotate/AGREEMENT.md.
**
** Build a data set unit by unit (rescue_agree_unit, then rescue_agree_value per coder),
** compute it (rescue_agree_compute), print the result (rescue_agree_result_json). The
** corpus and table front ends (rescue_agree_corpus, rescue_agree_table) wrap all of it into
** a report whose JSON is the document of annotate/AGREEMENT.md "Output".
*/
#ifndef RESCUE_AGREE_H
#define RESCUE_AGREE_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_json.h"
#include "rescue_store.h"

/* Measurement levels. TEXT is the corpus's free text (share identical, token F1). */
typedef enum rescue_agree_level {
  RESCUE_LEVEL_NOMINAL,
  RESCUE_LEVEL_ORDINAL,
  RESCUE_LEVEL_INTERVAL,
  RESCUE_LEVEL_RATIO,
  RESCUE_LEVEL_MASI,
  RESCUE_LEVEL_JACCARD,
  RESCUE_LEVEL_TEXT
} rescue_agree_level;

/* "nominal", ... ; parse returns RESCUE_EINVAL for an unknown name. */
const char *rescue_agree_level_name(rescue_agree_level level);
int rescue_agree_level_parse(const char *name, rescue_agree_level *out);

/* A result's status: anything but OK comes with a null alpha (annotate/AGREEMENT.md). */
typedef enum rescue_agree_status {
  RESCUE_AGREE_OK,
  RESCUE_AGREE_NO_DATA,      /* no unit has two values */
  RESCUE_AGREE_NO_VARIATION, /* fewer than two distinct pairable values (D_e = 0) */
  RESCUE_AGREE_INVALID_LEVEL /* the level does not fit the values (ratio with mixed signs) */
} rescue_agree_status;

const char *rescue_agree_status_name(rescue_agree_status s);

/* ---- reliability data ---- */

typedef struct rescue_agree_data rescue_agree_data;

/* A new, empty data set at `level`; NULL when out of memory. */
rescue_agree_data *rescue_agree_data_new(rescue_agree_level level);
/* Free and NULL; accepts NULL. */
void rescue_agree_data_free(rescue_agree_data **d);
rescue_agree_level rescue_agree_data_level(const rescue_agree_data *d);

/*
** The index of coder `name` (added when new), RESCUE_ENOMEM, or RESCUE_EINVAL past
** RESCUE_AGREE_MAX_CODERS coders.
*/
#define RESCUE_AGREE_MAX_CODERS (1 << 24)
int rescue_agree_coder(rescue_agree_data *d, const char *name);
int rescue_agree_n_coders(const rescue_agree_data *d);
const char *rescue_agree_coder_name(const rescue_agree_data *d, int coder);

/*
** Values are interned: each call returns the index of an equal value seen before, or a
** new one (negative: RESCUE_ENOMEM or RESCUE_EINVAL). Every value interned counts in the
** category domain (Gwet's AC1 uses its size), so declaring the scheme's labels up front
** makes unused labels count.
**   label:  a category name (nominal, ordinal, text). At the ordinal level labels are
**           ordered as first interned.
**   number: a number (interval, ratio, ordinal; also nominal, as its shortest spelling).
**   set:    a set of element names (masi, jaccard); order and repeats do not matter,
**           n = 0 is RESCUE_EINVAL (an empty set is a missing value, not a category).
*/
int rescue_agree_label(rescue_agree_data *d, const char *s, size_t len);
int rescue_agree_number(rescue_agree_data *d, double x);
int rescue_agree_set(rescue_agree_data *d, const char *const *elems, const size_t *lens, int n);
int rescue_agree_n_values(const rescue_agree_data *d);
/* The value as text: the label, the number's shortest spelling, or the set as JSON. */
const char *rescue_agree_value_name(const rescue_agree_data *d, int value);

/*
** A cluster is a group of units resampled together by the bootstrap (a sample), with its
** stratum for --by (a scenario). Returns its index (existing or new) or RESCUE_ENOMEM.
*/
int rescue_agree_cluster(rescue_agree_data *d, const char *name, const char *stratum);

/* Start a new unit in cluster (-1: none). Returns its index or RESCUE_ENOMEM. */
int rescue_agree_unit(rescue_agree_data *d, int cluster);
/*
** Coder's value for the current unit. RESCUE_EEXISTS when that coder already has one
** there (a coder gives a unit one value), RESCUE_EINVAL without a current unit.
*/
int rescue_agree_value(rescue_agree_data *d, int coder, int value);
long rescue_agree_n_units(const rescue_agree_data *d);

/* ---- computing ---- */

typedef enum rescue_agree_by {
  RESCUE_BY_NONE,
  RESCUE_BY_STRATUM, /* --by scenario */
  RESCUE_BY_CLUSTER  /* --by sample */
} rescue_agree_by;

typedef struct rescue_agree_opts {
  int ci_replicates; /* 0: no interval */
  uint64_t seed;     /* bootstrap seed */
  int ci_unit;       /* 1: resample units; 0: resample clusters (units when there are none) */
  double ci_level;   /* 0: 0.95 */
  rescue_agree_by by;
} rescue_agree_opts;

typedef struct rescue_agree_pair {
  int a, b;            /* coder indexes, a < b */
  long units;          /* units both coded */
  long skipped;        /* units only one of the two coded */
  double kappa;        /* Cohen's kappa; NAN when undefined */
  double kappa_linear; /* weighted (ordinal, interval, ratio); NAN otherwise */
  double kappa_quadratic;
} rescue_agree_pair;

typedef struct rescue_agree_label_stat {
  int value; /* value index (nominal, ordinal) or element index (sets) */
  const char *name;
  long count;   /* pairable values equal to / containing it */
  double alpha; /* one-vs-rest binary alpha; NAN when undefined */
} rescue_agree_label_stat;

typedef struct rescue_agree_group_stat {
  const char *name; /* stratum or cluster name */
  rescue_agree_status status;
  double alpha;
  long units, pairable_values;
} rescue_agree_group_stat;

typedef struct rescue_agree_result {
  rescue_agree_level level;
  rescue_agree_status status;
  long units;        /* pairable units (two values or more) */
  long units_single; /* units with one value (they drop out) */
  long pairable_values;
  double alpha;             /* NAN unless status is OK */
  double alpha_other;       /* set levels: alpha with the other set distance (MASI <-> Jaccard) */
  double d_o, d_e;          /* observed and expected disagreement */
  double percent_agreement; /* mean share of agreeing pairs per pairable unit; NAN if none */
  long complete_units;      /* units every coder coded (Fleiss, AC1) */
  double fleiss_kappa, gwet_ac1; /* NAN when undefined */
  int n_pairs;
  rescue_agree_pair *pairs;
  long pairs_left_out; /* coder pairs without a kappa: too many coders to hold them all */
  int n_labels;
  rescue_agree_label_stat *labels;
  int n_matrix; /* coincidence matrix over n_matrix values (0: not kept) */
  int *matrix_values;
  double *matrix; /* n_matrix x n_matrix, row-major */
  /* TEXT level */
  long text_pairs;
  double share_identical, token_f1;
  /* bootstrap */
  int has_ci;
  double ci_low, ci_high, ci_level;
  int ci_replicates, ci_defined;
  uint64_t ci_seed;
  const char *ci_scheme; /* "sample" or "unit" */
  /* --by */
  int n_groups;
  rescue_agree_group_stat *groups;
} rescue_agree_result;

/*
** Compute every coefficient of d. Returns 0 (a status other than OK is a result, not an
** error) or RESCUE_ENOMEM. r owns what it points to (release with rescue_agree_result_clear);
** names point into d, which must outlive r.
*/
int rescue_agree_compute(const rescue_agree_data *d, const rescue_agree_opts *o,
                         rescue_agree_result *r);
void rescue_agree_result_clear(rescue_agree_result *r);

/*
** The judgement of r's alpha by Krippendorff's guidelines (annotate/AGREEMENT.md
** "Reliability"): "reliable" (0.8 or more), "tentative" (0.667 up to 0.8), "unreliable"
** (below 0.667); NULL when there is no alpha to judge (free text, a status other than OK).
** A static string.
*/
const char *rescue_agree_reliability(const rescue_agree_result *r);

/* Only Krippendorff's alpha (the fast path the benchmark times). */
rescue_agree_status rescue_agree_alpha(const rescue_agree_data *d, double *alpha);

/*
** Write the result as one JSON object (annotate/AGREEMENT.md "Output") under `field`; `coders`
** names the coders in the order given (NULL: the data's coders). A field on thin data
** ends with "warnings": [{"kind": "few_resampled_groups", "groups", "minimum": 20},
** {"kind": "few_pairable_units", "units", "minimum": 30}] (either or both).
*/
void rescue_agree_result_json(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_jw *w);
/* A few readable lines. */
void rescue_agree_result_text(const rescue_agree_data *d, const rescue_agree_result *r,
                              const char *field, rescue_buf *out);

/* ---- table mode ---- */

/*
** Read long-format TSV `unit<TAB>coder<TAB>value` (an optional first line
** "unit<TAB>coder<TAB>value" is a header; an empty value is missing; set levels take a JSON
** array of strings, [] being missing). Bad input: RESCUE_EBADINPUT with
** "file:line:column: what" in err. *out owns the new data set.
*/
int rescue_agree_read_tsv(const char *path, rescue_agree_level level, rescue_agree_data **out,
                          rescue_error *err);

/* ---- corpus mode ---- */

/* The fields of a RESCUE corpus (annotate/AGREEMENT.md), in report order; NULL-terminated. */
extern const char *const rescue_agree_fields[];

typedef struct rescue_agree_corpus_opts {
  const char *const *fields; /* names from rescue_agree_fields; NULL or 0: all */
  int n_fields;
  const char *const *coders; /* annotator names; NULL or 0: every human annotator with versions */
  int n_coders;
  const char *const *samples; /* sample ids; NULL or 0: every sample not discarded */
  int n_samples;
  rescue_agree_opts stats;
} rescue_agree_corpus_opts;

typedef struct rescue_agree_report rescue_agree_report;

/*
** Agreement between the coders' views of each sample for each field (rows aligned by
** overlap, never by position), the segmentation (rows without a partner per coder pair,
** alpha-u of the primary speaker: annotate/AGREEMENT.md "Segmentation across row sets"),
** plus, for every model annotator and human coder who both covered samples, the share of
** units the human changed. On failure the message is on the store handle.
*/
int rescue_agree_corpus(rescue_store *st, const rescue_agree_corpus_opts *o,
                        rescue_agree_report **out);
/* One table: read path at level and compute it. Errors in err. */
int rescue_agree_table(const char *path, rescue_agree_level level, const rescue_agree_opts *o,
                       rescue_agree_report **out, rescue_error *err);
/* The whole report as one JSON document (annotate/AGREEMENT.md "Output"), no trailing newline. */
void rescue_agree_report_json(const rescue_agree_report *r, rescue_buf *out);
/*
** The readable report: a summary table (field, level, coders, units, alpha with its
** interval, percent agreement, status), warnings where an interval rests on fewer than
** 20 resampled groups or a field has fewer than 30 pairable units, then each field in
** detail (pairwise kappas, labels, the coincidence matrix as a table, --by groups as a
** table) and the model revisions.
*/
void rescue_agree_report_text(const rescue_agree_report *r, rescue_buf *out);
/*
** The fields as CSV (RFC 4180, CRLF): one line per field, plus one per --by group (its
** name in `group`); undefined numbers are empty.
*/
void rescue_agree_report_csv(const rescue_agree_report *r, rescue_buf *out);
void rescue_agree_report_free(rescue_agree_report **r);

/* ---- segmentation: Krippendorff's unitizing alpha (annotate/agree_unitize.c) ---- */

/*
** A unitizing data set: a continuum [begin, begin + length) on an integer grid, the coders,
** and the units each coder marked on it, each unit [begin, end) of one category. Positions
** are grid steps; `step` is what one step is in the caller's units (0.001 for milliseconds
** of seconds, 1 when the caller counts steps), kept for the reports only. The definitions,
** the worked examples and the cost are in annotate/agree_unitize.c and annotate/AGREEMENT.md.
*/
typedef struct rescue_unitize rescue_unitize;

/* The longest continuum (2^40 steps: 34 years of milliseconds) and the most coders. */
#define RESCUE_UNITIZE_MAX_LENGTH ((int64_t)1 << 40)
#define RESCUE_UNITIZE_MAX_CODERS (1 << 20)

/*
** A new, empty data set in *out (free with rescue_unitize_free). RESCUE_EINVAL when length
** is not in [1, RESCUE_UNITIZE_MAX_LENGTH], begin + length overflows, or step is not a
** finite number > 0; RESCUE_ENOMEM.
*/
int rescue_unitize_new(int64_t begin, int64_t length, double step, rescue_unitize **out);
/* Free and NULL; accepts NULL. */
void rescue_unitize_free(rescue_unitize **u);
/* The continuum and the step as given to rescue_unitize_new. */
int64_t rescue_unitize_begin(const rescue_unitize *u);
int64_t rescue_unitize_length(const rescue_unitize *u);
double rescue_unitize_step(const rescue_unitize *u);

/*
** The index of coder / category `name` (added when new: a coder who marked no unit still
** counts in m), RESCUE_ENOMEM, or RESCUE_EINVAL past RESCUE_UNITIZE_MAX_CODERS coders or
** 2^31 - 1 categories.
*/
int rescue_unitize_coder(rescue_unitize *u, const char *name);
int rescue_unitize_category(rescue_unitize *u, const char *name);
int rescue_unitize_n_coders(const rescue_unitize *u);
int rescue_unitize_n_categories(const rescue_unitize *u);
const char *rescue_unitize_coder_name(const rescue_unitize *u, int coder);
const char *rescue_unitize_category_name(const rescue_unitize *u, int category);

/*
** Coder's unit [begin, end) of category. Units of one coder and one category may overlap:
** rescue_unitize_compute merges them first and counts the merges. RESCUE_EINVAL when end
** <= begin, the unit leaves the continuum, or coder or category is not an index given out;
** RESCUE_ENOMEM.
*/
int rescue_unitize_add(rescue_unitize *u, int coder, int category, int64_t begin, int64_t end);
long rescue_unitize_n_rows(const rescue_unitize *u);

typedef struct rescue_unitize_coder_stat {
  long rows;   /* units as added */
  long units;  /* after merging the overlapping ones of a category */
  long merges; /* rows - units */
} rescue_unitize_coder_stat;

typedef struct rescue_unitize_category_stat {
  int category;               /* index (rescue_unitize_category_name) */
  rescue_agree_status status; /* NO_DATA below two coders; NO_VARIATION when D_e is 0 */
  int coders;                 /* coders with a unit of it */
  long units;                 /* after merging, all coders */
  long merges;
  double d_o, d_e; /* observed and expected disagreement */
  double alpha;    /* 1 - d_o / d_e; 0 when they are equal (NO_VARIATION); NAN for NO_DATA */
} rescue_unitize_category_stat;

typedef struct rescue_unitize_result {
  rescue_agree_status status; /* NO_DATA: fewer than 2 coders or no unit at all */
  int n_coders;
  rescue_unitize_coder_stat *coders; /* per coder index */
  long rows, units, merges;
  double d_o, d_e;  /* sums over the categories present */
  double alpha;     /* 1 - d_o / d_e, as in the categories */
  int n_categories; /* categories with at least one unit, in index order */
  rescue_unitize_category_stat *categories;
} rescue_unitize_result;

/*
** Krippendorff's alpha-u of each category with a unit, and overall. Returns 0 (a status
** other than OK is a result) or RESCUE_ENOMEM; r owns its arrays (rescue_unitize_result_clear).
** Cost O(n log n + m n) time, O(n + m) memory, for n units and m coders.
*/
int rescue_unitize_compute(const rescue_unitize *u, rescue_unitize_result *r);
void rescue_unitize_result_clear(rescue_unitize_result *r);

/*
** The result as one JSON object (annotate/AGREEMENT.md "Segmentation"); input names the
** data (a file) or is NULL. Undefined numbers are null.
*/
void rescue_unitize_result_json(const rescue_unitize *u, const rescue_unitize_result *r,
                                const char *input, rescue_jw *w);
/* A few readable lines: the overall figure, a table of categories, a table of coders. */
void rescue_unitize_result_text(const rescue_unitize *u, const rescue_unitize_result *r,
                                const char *input, rescue_buf *out);
/* CSV (RFC 4180, CRLF): the overall line (category empty), then one per category. */
void rescue_unitize_result_csv(const rescue_unitize *u, const rescue_unitize_result *r,
                               rescue_buf *out);

/* Reading a table of units: the continuum and the grid in the file's units. */
typedef struct rescue_unitize_tsv_opts {
  double start, end; /* the continuum [start, end) */
  double grid;       /* one step; 0: 1 when the continuum and every time are whole, else 0.001 */
} rescue_unitize_tsv_opts;

/*
** Read a TSV table of units ("-": standard input): a header line naming the columns
** coder, start, end and category in any order (others are ignored), then one unit per
** line. Times are rounded to the nearest step of the grid (halves away from zero). Bad
** input: RESCUE_EBADINPUT with "file:line:column: what" in err (a missing column, a
** number that does not parse, end <= start, a unit outside the continuum or shorter than
** a step, a blank coder or category); RESCUE_EINVAL for a continuum or grid that cannot
** be (end <= start, grid <= 0, too many steps). *out owns the new data set.
*/
int rescue_unitize_read_tsv(const char *path, const rescue_unitize_tsv_opts *o,
                            rescue_unitize **out, rescue_error *err);

#endif
