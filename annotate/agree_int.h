/*
** agree_int.h: private to the agreement engine (annotate/agree_*.c): the layout of a
** reliability data set and the small string-interning hash map its files share.
*/
#ifndef RESCUE_AGREE_IMPL_H
#define RESCUE_AGREE_IMPL_H

#include <stdint.h>
#include <string.h>

#include "rescue_agree.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/*
** An open-addressing map from byte strings to dense indexes 0..n-1 (insertion order).
** Keys are not copied: entry i is (off[i], len[i]) into a base pointer the caller passes
** to every lookup (the data set's name arena, or a whole input file kept in memory).
*/
typedef struct agree_map {
  uint64_t *slots;   /* hash << 32 | (entry index + 1); 0 = empty: one cache line per probe */
  uint32_t mask;     /* number of slots - 1 (a power of two minus one), 0 before the first add */
  uint32_t *off, *len, *hash;
  uint32_t n, cap;   /* entries used and allocated */
} agree_map;

/* A fast 32-bit hash of n bytes. */
static inline uint32_t agree_hash(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = 0x9E3779B97F4A7C15ULL ^ (n * 0xff51afd7ed558ccdULL);
  while (n >= 8) {
    uint64_t k;
    memcpy(&k, s, 8);
    h = (h ^ k) * 0xbf58476d1ce4e5b9ULL;
    h ^= h >> 31;
    s += 8;
    n -= 8;
  }
  if (n >= 4) {
    /* two overlapping 4-byte loads: no byte loop, no store-to-load stall */
    uint32_t a, b;
    memcpy(&a, s, 4);
    memcpy(&b, s + n - 4, 4);
    h = (h ^ ((uint64_t)a << 32 | b)) * 0x94d049bb133111ebULL;
  } else if (n) {
    uint64_t k = (uint64_t)s[0] << 16 | (uint64_t)s[n >> 1] << 8 | s[n - 1];
    h = (h ^ k) * 0x94d049bb133111ebULL;
  }
  h ^= h >> 29;
  h *= 0xbf58476d1ce4e5b9ULL;
  h ^= h >> 32;
  return (uint32_t)h;
}

/* a[0..n) == b[0..n), inline for the short keys of tables (units, coders, values). */
static inline int agree_key_eq(const char *a, const char *b, uint32_t n) {
  if (n >= 4 && n <= 8) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, a, 4);
    memcpy(&b0, b, 4);
    memcpy(&a1, a + n - 4, 4);
    memcpy(&b1, b + n - 4, 4);
    return a0 == b0 && a1 == b1;
  }
  if (n < 4) {
    uint32_t i;
    for (i = 0; i < n; i++)
      if (a[i] != b[i])
        return 0;
    return 1;
  }
  return memcmp(a, b, n) == 0;
}

/* Index of key in m (comparing against base), or -1. */
static inline int64_t agree_map_find(const agree_map *m, const char *base, const char *key,
                                     uint32_t len, uint32_t h) {
  uint32_t i;
  if (!m->mask)
    return -1;
  for (i = h & m->mask;; i = (i + 1) & m->mask) {
    uint64_t sl = m->slots[i];
    uint32_t e;
    if (!sl)
      return -1;
    if ((uint32_t)(sl >> 32) != h)
      continue;
    e = (uint32_t)sl - 1;
    if (m->len[e] == len && agree_key_eq(base + m->off[e], key, len))
      return e;
  }
}

/* Hint that key hash h is about to be looked up in m (a large table misses the cache). */
static inline void agree_map_prefetch(const agree_map *m, uint32_t h) {
  if (m->mask)
    __builtin_prefetch(&m->slots[h & m->mask]);
}

/* Add a new entry (the caller checked it is absent). Returns its index or -1 (no memory). */
int64_t agree_map_add(agree_map *m, uint32_t off, uint32_t len, uint32_t h);
/* Make room for n entries in one step (a hint; returns -1 when out of memory). */
int agree_map_reserve(agree_map *m, uint32_t n);
void agree_map_clear(agree_map *m);

struct rescue_agree_data {
  rescue_agree_level level;
  rescue_buf names;          /* every name and value key, NUL-terminated, by offset */
  agree_map coders;          /* coder names */
  agree_map values;          /* value keys: label, shortest number spelling, canonical set JSON */
  double *value_num;         /* per value: the number (interval, ratio), rank (ordinal labels) */
  uint32_t cap_value_num;
  int32_t *set_off;          /* set levels: value v's elements are set_el[set_off[v]..set_off[v+1]) */
  int32_t *set_el;           /* element indexes, ascending */
  uint32_t cap_set_off;
  uint32_t n_set_el, cap_set_el;
  agree_map elems;           /* set element names */
  agree_map clusters;        /* cluster names */
  int32_t *cluster_stratum;  /* per cluster: index in strata */
  uint32_t cap_cluster_stratum;
  agree_map strata;          /* stratum names */
  /* units in order, each with its values as CSR: entries unit_off[u]..unit_off[u+1] */
  uint32_t n_units, cap_units;
  uint32_t *unit_off;        /* n_units + 1 */
  int32_t *unit_cluster;     /* -1: none */
  uint32_t n_ent, cap_ent;
  int32_t *e_coder, *e_value;
};

/* A name in the arena. */
static inline const char *agree_name(const rescue_agree_data *d, const agree_map *m, uint32_t i) {
  return d->names.s + m->off[i];
}

/* Grow the unit and entry arrays to hold at least units / entries (-1: no memory). */
int agree_data_reserve(rescue_agree_data *d, uint32_t units, uint32_t entries);

/* ---- reports (agree_report.c writes them, agree_corpus.c and agree_table fill them) ---- */

typedef struct agree_field {
  char *name;                  /* "utterance_type", or "value" in table mode */
  char *level_name;            /* the level as declared (may be unknown: invalid_level) */
  rescue_agree_data *data;     /* NULL when the level does not fit the field */
  rescue_agree_result res;
} agree_field;

/* A model annotator versus a human who revised its draft, per field. */
typedef struct agree_change {
  const char *field;
  long units;                  /* units either of the two coded */
  long changed;                /* of those, units whose values differ (or one is missing) */
  rescue_agree_status status;
  double alpha;
} agree_change;

typedef struct agree_revision {
  char *model, *human;
  long samples;                /* samples both covered */
  int n;
  agree_change *fields;
} agree_revision;

struct rescue_agree_report {
  int table;                   /* table mode */
  char *input;                 /* table mode: the file */
  int n_coders;
  char **coders;               /* corpus mode: coder names in order */
  long samples;                /* corpus mode: samples that contributed */
  int n_fields;
  agree_field *fields;
  int n_rev;
  agree_revision *rev;
};

/* Append a field to a report (taking over nothing); returns it or NULL (no memory). */
agree_field *agree_report_add_field(rescue_agree_report *r, const char *name,
                                    const char *level_name);

#pragma GCC visibility pop

#endif
