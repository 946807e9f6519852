/*
** score_int.h: private to `rescue score` (export/score*.c): the report's layout and the
** calls its files share.
*/
#ifndef RESCUE_SCORE_INT_H
#define RESCUE_SCORE_INT_H

#include <limits.h>
#include <stdio.h>

#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_score.h"
#include "strmap_int.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

typedef struct pair_count {
  int gold, pred; /* label ids (-1: none) or, for ER, intensities */
  long count;
} pair_count;

typedef struct acc {
  long n;
  long tp, fp, tn, fn; /* ITP */
  long r[3];           /* rank tasks: hits at 1, 2, 3 */
  double rr;           /* sum of reciprocal ranks */
  long scored, exact;  /* ER */
  double match, abs_err;
  /* RPP top-1 per label, over label ids; in_tax marks the taxonomy of the group */
  long *ltp, *lfp, *lfn, *lsup;
  unsigned char *in_tax;
  int nlab;
} acc;

enum { ST_NONE, ST_PRED, ST_EMPTY };

typedef struct inst {
  int sample, couple, family;
  int gold;              /* ITP 1/0; label id; ER intensity */
  int cands;             /* candidate list (rank tasks) */
  unsigned char state;   /* ST_* */
  unsigned char invalid; /* the prediction taken cannot be used */
  unsigned char stop;    /* release: the scripts stop with an error on this prediction */
  int pred[3];           /* ITP: pred[0] 1/0; rank: label ids or -1; ER: intensity */
} inst;

typedef struct cand_list {
  int n;
  int *labels;
} cand_list;

/* An invalid line, or an invalid prediction of an instance, with its line number. */
typedef struct problem {
  long line;
  long inst; /* instance index, or -1 for a line */
  char *reason;
} problem;

struct rescue_score_report {
  rescue_task task;
  rescue_score_protocol proto;
  char *gold_path, *pred_path;
  rescue_strmap ids, samples, couples, labels, list_keys;
  inst *v;
  long n, cap;
  cand_list *lists;
  int nlists, caplists;
  rescue_score_counts c;
  unsigned char *failed; /* ER release: per sample */
  acc overall, scen[2];
  acc *by_couple, *by_sample;
  pair_count *conf;
  int nconf, capconf;
  problem *probs;
  long nprobs, capprobs;
  long stops_missing, stops_type; /* release: why the scripts would stop */
  long list_tail, string_dropped, other_values;
  /* wrong-task detection */
  long own_field, other_field[RESCUE_TASK_COUNT], other_task_key[RESCUE_TASK_COUNT];
  long ids_after_row, ids_row;
  /* reading */
  rescue_jdoc **docs;
  int ndocs;
  rescue_buf tmp;
  long lineno;
  int oom;
};

typedef struct line_reader {
  FILE *f;
  const char *path;
  char *buf;
  size_t cap;
  long lineno;
} line_reader;

#define RELEASE(r) ((r)->proto == RESCUE_PROTOCOL_RELEASE)

/*
** Each table (instance ids, samples, couples, labels, candidate-list keys) is the library's
** string table with its own copies of the keys: an id is the key's entry number, in the
** order first seen, and tab_s gives its NUL-terminated text.
*/

static inline const char *tab_s(const rescue_strmap *t, int i) {
  return rescue_strmap_key(t, (uint32_t)i);
}

static inline int tab_n(const rescue_strmap *t) { return (int)rescue_strmap_count(t); }

static inline double f1(double p, double r) { return p + r != 0 ? 2 * p * r / (p + r) : 0.0; }

static inline double ratio(double a, double b) { return b != 0 ? a / b : 0.0; }

extern const char *const score_pred_keys[RESCUE_TASK_COUNT];

int score_intern(rescue_strmap *t, const char *s, size_t len, int create);
void score_problem_add(rescue_score_report *r, long inst_ix, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
rescue_jdoc *score_doc_at(rescue_score_report *r, int depth);
size_t score_clean(rescue_score_report *r, const rescue_jnode *v);
int score_truthy(const rescue_jnode *v);
int score_nonfinite(const rescue_jnode *v);
int score_parse_should_speak(rescue_score_report *r, const rescue_jnode *v);
int score_read_gold(rescue_score_report *r, line_reader *lr, rescue_error *err);
int score_read_predictions(rescue_score_report *r, line_reader *lr, rescue_error *err);
int score_compute(rescue_score_report *r);
double score_acc_metric(const rescue_score_report *r, const acc *a, const char *key);
const char *const *score_metric_keys(const rescue_score_report *r);

#pragma GCC visibility pop

#endif
