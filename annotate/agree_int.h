/*
** agree_int.h: private to the agreement engine (annotate/agree_*.c): the layout of a
** reliability data set (its names are interned in the library's string table, strmap_int.h).
*/
#ifndef RESCUE_AGREE_IMPL_H
#define RESCUE_AGREE_IMPL_H

#include <stdint.h>
#include <string.h>

#include "rescue_agree.h"
#include "strmap_int.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

struct rescue_agree_data {
  rescue_agree_level level;
  rescue_strmap coders; /* coder names */
  rescue_strmap values; /* value keys: label, shortest number spelling, canonical set JSON */
  double *value_num;    /* per value: the number (interval, ratio), rank (ordinal labels) */
  uint32_t cap_value_num;
  int32_t *set_off; /* set levels: value v's elements are set_el[set_off[v]..set_off[v+1]) */
  int32_t *set_el;  /* element indexes, ascending */
  uint32_t cap_set_off;
  uint32_t n_set_el, cap_set_el;
  rescue_strmap elems;      /* set element names */
  rescue_strmap clusters;   /* cluster names */
  int32_t *cluster_stratum; /* per cluster: index in strata */
  uint32_t cap_cluster_stratum;
  rescue_strmap strata; /* stratum names */
  /* units in order, each with its values as CSR: entries unit_off[u]..unit_off[u+1] */
  uint32_t n_units, cap_units;
  uint32_t *unit_off;    /* n_units + 1 */
  int32_t *unit_cluster; /* -1: none */
  uint32_t n_ent, cap_ent;
  int32_t *e_coder, *e_value;
};

/* Name i of map m (the map's own NUL-terminated copy). */
static inline const char *agree_name(const rescue_agree_data *d, const rescue_strmap *m,
                                     uint32_t i) {
  (void)d;
  return rescue_strmap_key(m, i);
}

/* Grow the unit and entry arrays to hold at least units / entries (-1: no memory). */
int agree_data_reserve(rescue_agree_data *d, uint32_t units, uint32_t entries);

/* ---- reports (agree_report.c writes them, agree_corpus.c and agree_table fill them) ---- */

typedef struct agree_field {
  char *name;              /* "utterance_type", or "value" in table mode */
  char *level_name;        /* the level as declared (may be unknown: invalid_level) */
  rescue_agree_data *data; /* NULL when the level does not fit the field */
  rescue_agree_result res;
} agree_field;

/* A model annotator versus a human, per field, on the rows the model answered. */
typedef struct agree_change {
  const char *field;
  long units;   /* units either of the two coded */
  long changed; /* of those, units whose values differ (or one is missing) */
  rescue_agree_status status;
  double alpha;
} agree_change;

typedef struct agree_revision {
  char *model, *human;
  long samples;     /* samples both covered */
  long rows;        /* rows of those the model answered (its own version) */
  long human_later; /* of those, rows whose human version is the later one */
  long model_later; /* rows whose model version is the later one */
  int n;
  agree_change *fields;
} agree_revision;

/*
** Align the rows of two coders of one sample (annotate/agree_align.c): rows pair off one to
** one by greatest overlap among the pairs the overlap rule (corpus/span_int.h) calls the
** same row; of equal overlaps the earlier row of a (then of b) wins. a_match[i] gets the
** partner of a's row i in b, or -1; b_match likewise. Returns the number of pairs or
** RESCUE_ENOMEM.
*/
int rescue_align_rows(const double *a_start, const double *a_end, int na, const double *b_start,
                      const double *b_end, int nb, int *a_match, int *b_match);

/* Segmentation of a coder pair over the samples both covered (rows aligned as above). */
typedef struct agree_seg_pair {
  int a, b;                      /* coder indexes in the report, a < b */
  long samples;                  /* samples both covered */
  long aligned;                  /* aligned row pairs */
  long unaligned_a, unaligned_b; /* rows of a (of b) without a partner */
} agree_seg_pair;

/*
** Alpha-u of the primary speaker on one sample's time line, or (sample NULL) on the time
** lines of the samples one set of coders covered, laid end to end.
*/
typedef struct agree_unitizing {
  char *sample;       /* NULL: overall */
  unsigned char *set; /* per report coder: 1 when in the set */
  long samples;       /* samples on the time line */
  rescue_unitize *u;
  rescue_unitize_result res;
  /* per sample: the units as added (for the overall time lines) */
  long n_units, cap_units;
  struct agree_unit_rec {
    int coder, cat; /* report coder index, category index in u */
    int64_t b, e;
  } * units;
} agree_unitizing;

struct rescue_agree_report {
  int table;   /* table mode */
  char *input; /* table mode: the file */
  int n_coders;
  char **coders; /* corpus mode: coder names in order */
  long samples;  /* corpus mode: samples that contributed */
  int n_fields, cap_fields;
  agree_field *fields;
  int n_rev, cap_rev;
  agree_revision *rev;
  /* corpus mode: segmentation (annotate/agree_segment.c) */
  int n_seg_pairs;
  agree_seg_pair *seg_pairs;
  int n_unitizing, cap_unitizing; /* per sample */
  agree_unitizing *unitizing;
  int n_overall, cap_overall; /* per set of coders */
  agree_unitizing *overall;
};

/*
** Add sample's alpha-u entry to r: the coders in set (per report coder), coder k's n[k] rows
** [start, end) in seconds with speaker spk[k][i] ("" rows are left out), on a millisecond
** grid from 0 to the longer of duration and the last end. 0 or RESCUE_ENOMEM.
*/
int agree_unitizing_sample(rescue_agree_report *r, const char *sample, double duration,
                           const unsigned char *set, const double *const *start,
                           const double *const *end, const char *const *const *spk, const int *n);
/* Free what a segmentation entry holds (not the entry). */
void agree_unitizing_clear(agree_unitizing *x);
/* The overall alpha-u per set of coders from the per-sample entries (0 or RESCUE_ENOMEM). */
int agree_unitizing_overall(rescue_agree_report *r);
/* The segmentation part of a corpus report, as a JSON member and as text. */
void agree_segmentation_json(const rescue_agree_report *r, rescue_jw *w);
void agree_segmentation_text(const rescue_agree_report *r, rescue_buf *out);

/* Append a field to a report (taking over nothing); returns it or NULL (no memory). */
agree_field *agree_report_add_field(rescue_agree_report *r, const char *name,
                                    const char *level_name);

/* A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
void agree_csv_str(rescue_buf *out, const char *s);
/* A CSV number with full precision ("%.10g"), or nothing when undefined (NaN, infinite). */
void agree_csv_num(rescue_buf *out, double x);

#pragma GCC visibility pop

#endif
