/*
** tasks_int.h: private to the task exporters (export/task_*.c, export/tasks.c): one
** sample prepared for building task records, and the helpers every builder shares.
*/
#ifndef RESCUE_TASKS_INT_H
#define RESCUE_TASKS_INT_H

#include <stdio.h>

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_sha256.h"
#include "rescue_split.h"
#include "rescue_store.h"
#include "rescue_tasks.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/* A value span [a, b) inside tk_sample.recs. */
typedef struct tk_span {
  size_t a, b;
} tk_span;

/* The values of a row record (export/TASKS.md §1.2) kept as spans, so records reuse them. */
enum {
  TK_TIMESTAMP,
  TK_SPEAKER,
  TK_TARGET,
  TK_DIALOGUE,
  TK_BACKGROUND,
  TK_TONE,
  TK_POSTURE,
  TK_FACIAL,
  TK_SELF,
  TK_INTERACTION,
  TK_CLIP_PATH,
  TK_CLIP_DURATION,
  TK_NVALUES
};

typedef struct tk_row {
  const rescue_jnode *obj; /* the parsed row object */
  const char *speaker;     /* cleaned primary_speaker */
  int therapist;           /* speaker is exactly the practitioner label */
  int client;              /* speaker non-empty and not the practitioner or a group label */
  tk_span rec;             /* the whole row record */
  tk_span v[TK_NVALUES];
} tk_row;

/*
** One sample ready for the builders. Every buffer is reused from sample to sample, so
** memory follows the largest sample, never the corpus.
*/
typedef struct tk_sample {
  const rescue_scheme *sc;
  const rescue_sample *s;
  const char *scenario;              /* "couple" or "family" (corpus/FORMAT.md §6.3) */
  const char *group_label;           /* "Couple" or "Family" */
  const rescue_labelset *relations;  /* relation_pattern labels of the scenario, or NULL */
  const rescue_labelset *strategies; /* support_strategy labels of the scenario, or NULL */
  int n;                             /* rows */
  tk_row *rows;
  int cap_rows;
  rescue_buf couple;          /* the sample's group (corpus/FORMAT.md §1) */
  rescue_buf source_file;     /* export/TASKS.md §3 */
  rescue_buf participants;    /* JSON array, shared variant (corpus/FORMAT.md §6.4) */
  rescue_buf vp_participants; /* JSON array, VP variant (export/TASKS.md §2.6) */
  rescue_buf recs;            /* row records joined by ", " */
  rescue_buf rows_text;       /* "[row, row, ...]" parsed into doc */
  rescue_buf clip_text;       /* recorded clip paths, NUL-separated */
  size_t *clip_at;            /* per position: offset into clip_text + 1, or 0 */
  int cap_clips;              /* room in clip_at */
  rescue_buf tmp, tmp2, tmp3; /* scratch */
  rescue_buf id;              /* instance ids (rescue_tk_put_head) */
  rescue_buf labels;          /* per-sample candidate label list (JSON), builders' use */
  int *ints;                  /* scratch integers (rescue_tk_ints) */
  size_t cap_ints;
  rescue_jdoc *doc;
  int rows_only;    /* prepare parses rows and derives facts, but builds no
                    row records (for statistics) */
  int clip_missing; /* the last ER/VP record written has an empty clip_path */
} tk_sample;

/* Options a builder reads. */
typedef struct tk_opts {
  int checkpoints;
  int min_words;
  int itp_cap;
} tk_opts;

/* Where records go: emit() receives one line (with its newline). */
typedef struct tk_sink {
  int (*emit)(void *arg, rescue_task task, int gold_yes, const rescue_buf *line);
  void *arg;
  rescue_buf line;
  rescue_error *err;
} tk_sink;

void rescue_tk_sample_init(tk_sample *t, const rescue_scheme *sc);
void rescue_tk_sample_clear(tk_sample *t);
/*
** Prepare sample s: parse its rows, derive scenario, participants, couple, source_file,
** and build every row record once. clip_root non-NULL gives release-style clip paths;
** otherwise the clips recorded in the store are looked up. Returns 0 or an error code
** (with the message in err).
*/
int rescue_tk_sample_prepare(tk_sample *t, rescue_store *st, const rescue_sample *s,
                             const char *clip_root, rescue_error *err);

/* ---- shared helpers (task_rows.c) ---- */

/* Reset b and append the cleaned value of n (corpus/FORMAT.md §6.1); returns its length. */
size_t rescue_tk_clean(rescue_buf *b, const rescue_jnode *n);
/* The member key of row i (NULL when absent). */
const rescue_jnode *rescue_tk_get(const tk_sample *t, int i, const char *key);
/* Words: maximal runs of ASCII letters, digits and the straight apostrophe (export/TASKS.md §2.5). */
long rescue_tk_word_count(const char *s, size_t len);
/* Even-spacing picker (export/TASKS.md §2.1, §2.5): writes into pick[] the indices (0-based, ascending)
   of the items kept out of n with limit m; returns how many. itp = 1 is the ITP variant
   (m = 1 takes the middle item), else the ER/VP one (m = 1 takes the first). */
int rescue_tk_pick(int n, int m, int itp, int *pick);
/* 0 when an allocation failed in any of the sample's buffers (the builders' results are
   then incomplete and the export fails with RESCUE_ENOMEM). */
int rescue_tk_sample_ok(const tk_sample *t);
/* Scratch space for n integers (valid until the next call), or NULL when out of memory. */
int *rescue_tk_ints(tk_sample *t, size_t n);
/* A label set as a JSON array of its labels (empty array for NULL) into b (reset). */
void rescue_tk_labels_json(rescue_buf *b, const rescue_labelset *ls);
/* Is label in the set (exact match)? NULL set: never. */
int rescue_tk_in_set(const rescue_labelset *ls, const char *label);

/* Record writing: start a record in sink->line (task, instance_id, ...). */
void rescue_tk_begin(tk_sink *k, rescue_jw *w);
/* Finish the record (newline) and emit it. */
int rescue_tk_end(tk_sink *k, rescue_jw *w, rescue_task task, int gold_yes);
/* A value span of row i written as the value of key. */
void rescue_tk_put_value(rescue_jw *w, const tk_sample *t, int i, int which, const char *key);
/* "prior_context": the row records of rows 1..k (k may be 0). */
void rescue_tk_put_prior(rescue_jw *w, const tk_sample *t, int k);
/* task, instance_id, sample_id, couple, scenario, participants (shared) */
void rescue_tk_put_head(rescue_jw *w, tk_sample *t, rescue_task task, const char *id_suffix,
                        int row);
/* source_sample_id, source_file */
void rescue_tk_put_tail(rescue_jw *w, const tk_sample *t);
/* "<sample_id>__row<r>" into b (reset first). */
void rescue_tk_instance_id(rescue_buf *b, const tk_sample *t, const char *suffix, int row);

/* ---- the export as a whole (tasks.c), for the card and manifest (card.c) ---- */

/* One output file: where it is, what went in (records per scenario), its digest. */
typedef struct tk_file {
  char *rel; /* path relative to the output folder; NULL: not written */
  FILE *f;
  rescue_sha256 h;
  char sha256[65];
  long lines;
  uint64_t bytes;
  long scenario[2]; /* records of couple [0] and family [1] samples */
  long yes;         /* ITP: gold yes */
} tk_file;

/* Everything the card and the manifest describe. */
typedef struct tk_summary {
  const rescue_tasks_opts *o;
  const rescue_scheme *sc;
  const char *corpus; /* corpus name */
  char notice[1024];  /* the corpus's notice for every card made from it ("" if none) */
  int split_mode;     /* files per split (a split run exists) */
  rescue_split_run run;
  int active[RESCUE_SPLIT_COUNT];                         /* splits written (split mode) */
  tk_file files[RESCUE_TASK_COUNT][RESCUE_SPLIT_COUNT];   /* [task][split]; [task][0] otherwise */
  tk_file answers[RESCUE_TASK_COUNT][RESCUE_SPLIT_COUNT]; /* --blind: the answer files */
  tk_file splits[RESCUE_SPLIT_COUNT];                     /* splits/<split>.txt */
  tk_file readme;
  long samples[RESCUE_SPLIT_COUNT][2]; /* samples per split slot and scenario */
  rescue_tasks_result *res;
  /* provenance (provenance.c) */
  long policies[4]; /* gold rows decided by policy lead, majority, latest, other/unknown */
  /*
  ** Gold rows by how they were decided (rescue_tk_prov_sample's gold_how): agreed by every
  ** coder; by a policy (how_policy, as policies) where coders differed and no lead decided;
  ** decided by a lead (tk_prov_annotator.decided of that lead).
  */
  long gold_agreed, how_policy[4];
  long seg_base; /* samples used with gold rows on the row set every coder shares (no gold row
                    set chosen); the others count in tk_prov_annotator.segmented */
  struct tk_prov_annotator *annotators; /* whose versions the rows show, by rows */
  int n_annotators, cap_annotators;
  rescue_buf agreement;     /* per field: JSON array of {field, level, status, coders, units,
                           alpha, ci_low, ci_high, ci_level}; "" when not computed */
  char agreement_note[200]; /* why agreement is absent, or "" */
  char **used_ids;          /* sample ids used (agreement is computed over them) */
  long n_used, cap_used;
  /* samples exported from one annotator's whole view: their row sets differ, no gold row
     set (rescue_sample.view_of) */
  struct tk_whole_view {
    char *sample_id;
    int64_t annotator_id;
  } * whole;
  long n_whole, cap_whole;
} tk_summary;

typedef struct tk_prov_annotator {
  int64_t id;
  char *name, *role;
  long rows;      /* rows of the export showing this annotator's version */
  long annotated; /* rows of the samples used that this annotator versioned (not gold) */
  long decided;   /* gold rows shown whose last decision was this lead's */
  long segmented; /* samples used whose gold row set was chosen from this one's */
} tk_prov_annotator;

/*
** A blind export's answers folder must be apart from its output folder: neither the same,
** inside it, nor holding it (paths compared absolute, symbolic links of the existing part
** resolved). 0, or RESCUE_EINVAL with the reason on err.
*/
int rescue_tk_answers_apart(const char *answers, const char *out, rescue_error *err);

/*
** Where a pseudonymised copy's rows came from: the real store and view it was made from
** and the copy's sample ids (pseudo[i]) with their real ones (real[i]). Its export's card
** counts the real store's gold, decisions and agreement, people named "person N".
*/
typedef struct tk_prov_source {
  rescue_store *st;
  const rescue_view *view;
  char *const *real, *const *pseudo;
  long n;
} tk_prov_source;

/* rescue_export_tasks with the provenance of the rows taken from ps (NULL: from st). */
int rescue_tk_export(rescue_store *st, const char *out, const rescue_tasks_opts *o,
                     rescue_tasks_result *res, const tk_prov_source *ps);

/* Count where the rows of a used sample come from (gold or not, policy, annotator). */
int rescue_tk_prov_sample(tk_summary *s, rescue_store *st, const rescue_sample *smp);
/* Names of the annotators and agreement per field (rows of the store's coders). */
int rescue_tk_prov_finish(tk_summary *s, rescue_store *st, rescue_error *err);
void rescue_tk_prov_clear(tk_summary *s);

/* The dataset card (README.md) into out. */
void rescue_tk_card(const tk_summary *s, rescue_buf *out);
/* manifest.json into out. */
void rescue_tk_manifest(const tk_summary *s, rescue_buf *out);

/* ---- builders (one per task; each emits the sample's records in row order) ---- */

int rescue_tk_build_itp(tk_sample *t, const tk_opts *o, tk_sink *k);
int rescue_tk_build_rpp(tk_sample *t, const tk_opts *o, tk_sink *k);
int rescue_tk_build_stp(tk_sample *t, const tk_opts *o, tk_sink *k);
int rescue_tk_build_ssp(tk_sample *t, const tk_opts *o, tk_sink *k);
int rescue_tk_build_er(tk_sample *t, const tk_opts *o, tk_sink *k);
int rescue_tk_build_vp(tk_sample *t, const tk_opts *o, tk_sink *k);

#pragma GCC visibility pop

#endif
