/*
** agree_data.c: building reliability data sets: coders, interned values (labels, numbers,
** sets), clusters, and units with their values.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_alloc.h"

/* ---- names ---- */

static const char *const level_names[] = {"nominal", "ordinal", "interval", "ratio",
                                          "masi",    "jaccard", "text"};

const char *rescue_agree_level_name(rescue_agree_level level) {
  switch (level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_ORDINAL:
  case RESCUE_LEVEL_INTERVAL:
  case RESCUE_LEVEL_RATIO:
  case RESCUE_LEVEL_MASI:
  case RESCUE_LEVEL_JACCARD:
  case RESCUE_LEVEL_TEXT: return level_names[level];
  }
  return "unknown";
}

int rescue_agree_level_parse(const char *name, rescue_agree_level *out) {
  int i;
  for (i = 0; i < (int)(sizeof level_names / sizeof level_names[0]); i++)
    if (strcmp(name, level_names[i]) == 0) {
      *out = (rescue_agree_level)i;
      return 0;
    }
  return RESCUE_EINVAL;
}

const char *rescue_agree_status_name(rescue_agree_status s) {
  switch (s) {
  case RESCUE_AGREE_OK: return "ok";
  case RESCUE_AGREE_NO_DATA: return "no_data";
  case RESCUE_AGREE_NO_VARIATION: return "no_variation";
  case RESCUE_AGREE_INVALID_LEVEL: return "invalid_level";
  }
  return "unknown";
}

/* ---- the data set ---- */

rescue_agree_data *rescue_agree_data_new(rescue_agree_level level) {
  rescue_agree_data *d = rescue_calloc(1, sizeof *d);
  if (!d)
    return NULL;
  d->level = level;
  d->coders.copy = d->values.copy = d->elems.copy = d->clusters.copy = d->strata.copy = 1;
  d->unit_off = rescue_calloc(1, sizeof *d->unit_off);
  d->cap_units = 0;
  if (!d->unit_off) {
    rescue_free(d);
    return NULL;
  }
  return d;
}

void rescue_agree_data_free(rescue_agree_data **dp) {
  rescue_agree_data *d = dp ? *dp : NULL;
  if (!d)
    return;
  rescue_strmap_clear(&d->coders);
  rescue_strmap_clear(&d->values);
  rescue_strmap_clear(&d->elems);
  rescue_strmap_clear(&d->clusters);
  rescue_strmap_clear(&d->strata);
  rescue_free(d->value_num);
  rescue_free(d->set_off);
  rescue_free(d->set_el);
  rescue_free(d->cluster_stratum);
  rescue_free(d->unit_off);
  rescue_free(d->unit_cluster);
  rescue_free(d->e_coder);
  rescue_free(d->e_value);
  rescue_free(d);
  *dp = NULL;
}

rescue_agree_level rescue_agree_data_level(const rescue_agree_data *d) { return d->level; }

/*
** Intern key[0..len) in map m (which keeps its own copy). Returns its index, *added = 1 when
** it is new; -1 when out of memory.
*/
static int64_t intern(rescue_strmap *m, const char *key, size_t len, int *added) {
  *added = 0;
  if (len > UINT32_MAX / 2)
    return -1;
  return rescue_strmap_put(m, key, len, 0, added);
}

int rescue_agree_coder(rescue_agree_data *d, const char *name) {
  int added;
  int64_t i = intern(&d->coders, name, strlen(name), &added);
  if (i > RESCUE_AGREE_MAX_CODERS - 1)
    return RESCUE_EINVAL;
  return i < 0 ? RESCUE_ENOMEM : (int)i;
}

int rescue_agree_n_coders(const rescue_agree_data *d) { return (int)d->coders.n; }

const char *rescue_agree_coder_name(const rescue_agree_data *d, int coder) {
  return agree_name(d, &d->coders, (uint32_t)coder);
}

/* Record value v's number (growing the array); -1 when out of memory. */
static int set_value_num(rescue_agree_data *d, uint32_t v, double x) {
  if (RESCUE_ALLOC_GROW(d->value_num, (size_t)v + 1, d->cap_value_num))
    return -1;
  d->value_num[v] = x;
  return 0;
}

int rescue_agree_label(rescue_agree_data *d, const char *s, size_t len) {
  int added;
  int64_t v;
  switch (d->level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_ORDINAL:
  case RESCUE_LEVEL_TEXT: break;
  case RESCUE_LEVEL_INTERVAL:
  case RESCUE_LEVEL_RATIO:
  case RESCUE_LEVEL_MASI:
  case RESCUE_LEVEL_JACCARD: return RESCUE_EINVAL;
  }
  v = intern(&d->values, s, len, &added);
  if (v < 0 || v > INT32_MAX - 1)
    return RESCUE_ENOMEM;
  if (added && set_value_num(d, (uint32_t)v, (double)v))
    return RESCUE_ENOMEM;
  return (int)v;
}

/* The shortest spelling of x, without Python's ".0" on integral values. */
static int number_key(double x, char out[32]) {
  int n;
  if (x == 0)
    x = 0; /* -0.0 and 0.0 are one value */
  n = rescue_format_double(x, out);
  if (n > 2 && out[n - 2] == '.' && out[n - 1] == '0')
    out[n -= 2] = 0;
  return n;
}

int rescue_agree_number(rescue_agree_data *d, double x) {
  char key[32];
  int added, n;
  int64_t v;
  if (!isfinite(x))
    return RESCUE_EINVAL;
  switch (d->level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_ORDINAL:
  case RESCUE_LEVEL_INTERVAL:
  case RESCUE_LEVEL_RATIO:
  case RESCUE_LEVEL_TEXT: break;
  case RESCUE_LEVEL_MASI:
  case RESCUE_LEVEL_JACCARD: return RESCUE_EINVAL;
  }
  n = number_key(x, key);
  v = intern(&d->values, key, (size_t)n, &added);
  if (v < 0 || v > INT32_MAX - 1)
    return RESCUE_ENOMEM;
  if (added && set_value_num(d, (uint32_t)v, x == 0 ? 0.0 : x))
    return RESCUE_ENOMEM;
  return (int)v;
}

/* Compare two element names for the canonical order of a set (bytewise). */
static int name_cmp(const char *a, size_t la, const char *b, size_t lb) {
  int c = memcmp(a, b, la < lb ? la : lb);
  return c ? c : (la < lb ? -1 : la > lb);
}

/* An element of a set being made canonical: its name and its index. */
typedef struct named {
  const char *s;
  uint32_t len;
  int32_t idx;
} named;

static int by_name(const void *a, const void *b) {
  const named *x = a, *y = b;
  return name_cmp(x->s, x->len, y->s, y->len);
}

static int by_index(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

int rescue_agree_set(rescue_agree_data *d, const char *const *elems, const size_t *lens, int n) {
  int32_t stack_idx[32], *idx = stack_idx;
  rescue_buf key = RESCUE_BUF_INIT;
  rescue_jw w;
  int i, k, added, rc = RESCUE_ENOMEM;
  int64_t v;
  if (d->level != RESCUE_LEVEL_MASI && d->level != RESCUE_LEVEL_JACCARD)
    return RESCUE_EINVAL;
  if (n <= 0)
    return RESCUE_EINVAL;
  if (n > 32 && !(idx = rescue_malloc((size_t)n * sizeof *idx)))
    return RESCUE_ENOMEM;
  /* intern the elements, then sort by name and drop repeats: the canonical spelling */
  for (i = 0; i < n; i++) {
    int64_t e = intern(&d->elems, elems[i], lens[i], &added);
    if (e < 0)
      goto end;
    idx[i] = (int32_t)e;
  }
  /* O(n log n): a set may hold hundreds of thousands of elements */
  if (n > 1) {
    named *by = rescue_malloc((size_t)n * sizeof *by);
    if (!by)
      goto end;
    for (i = 0; i < n; i++) {
      by[i].s = rescue_strmap_key(&d->elems, (uint32_t)idx[i]);
      by[i].len = rescue_strmap_len(&d->elems, (uint32_t)idx[i]);
      by[i].idx = idx[i];
    }
    qsort(by, (size_t)n, sizeof *by, by_name);
    for (i = 0; i < n; i++)
      idx[i] = by[i].idx;
    rescue_free(by);
  }
  for (i = k = 0; i < n; i++)
    if (!k || idx[k - 1] != idx[i])
      idx[k++] = idx[i];
  rescue_jw_init(&w, &key);
  rescue_jw_arr(&w);
  for (i = 0; i < k; i++)
    rescue_jw_strn(&w, rescue_strmap_key(&d->elems, (uint32_t)idx[i]),
                   rescue_strmap_len(&d->elems, (uint32_t)idx[i]));
  rescue_jw_end(&w);
  if (!rescue_buf_ok(&key))
    goto end;
  v = intern(&d->values, key.s, key.len, &added);
  if (v < 0 || v > INT32_MAX - 1)
    goto end;
  if (added) {
    uint32_t nv = d->values.n;
    /* set_off has nv + 1 entries; element lists are kept ascending by element index */
    if (nv + 1 > d->cap_set_off) {
      int first = !d->set_off;
      if (RESCUE_ALLOC_GROW(d->set_off, (size_t)nv + 1, d->cap_set_off))
        goto end;
      if (first)
        d->set_off[0] = 0;
    }
    if (set_value_num(d, (uint32_t)v, NAN))
      goto end;
    if (RESCUE_ALLOC_GROW(d->set_el, (size_t)d->n_set_el + (size_t)k, d->cap_set_el))
      goto end;
    memcpy(d->set_el + d->n_set_el, idx, (size_t)k * sizeof *idx);
    qsort(d->set_el + d->n_set_el, (size_t)k, sizeof *idx, by_index);
    d->n_set_el += (uint32_t)k;
    d->set_off[v + 1] = (int32_t)d->n_set_el;
  }
  rc = (int)v;
end:
  rescue_buf_clear(&key);
  if (idx != stack_idx)
    rescue_free(idx);
  return rc;
}

int rescue_agree_n_values(const rescue_agree_data *d) { return (int)d->values.n; }

const char *rescue_agree_value_name(const rescue_agree_data *d, int value) {
  return agree_name(d, &d->values, (uint32_t)value);
}

int rescue_agree_cluster(rescue_agree_data *d, const char *name, const char *stratum) {
  int added, added_s;
  int64_t c = intern(&d->clusters, name, strlen(name), &added), s;
  if (c < 0 || c > INT32_MAX - 1)
    return RESCUE_ENOMEM;
  if (!added)
    return (int)c;
  s = intern(&d->strata, stratum ? stratum : "", stratum ? strlen(stratum) : 0, &added_s);
  if (s < 0)
    return RESCUE_ENOMEM;
  if (RESCUE_ALLOC_GROW(d->cluster_stratum, (size_t)c + 1, d->cap_cluster_stratum))
    return RESCUE_ENOMEM;
  d->cluster_stratum[c] = (int32_t)s;
  return (int)c;
}

int agree_data_reserve(rescue_agree_data *d, uint32_t units, uint32_t entries) {
  if (units > d->cap_units) {
    uint32_t *uo = rescue_realloc(d->unit_off, ((size_t)units + 1) * sizeof *uo);
    int32_t *uc;
    if (!uo)
      return -1;
    d->unit_off = uo;
    uc = rescue_realloc(d->unit_cluster, (size_t)units * sizeof *uc);
    if (!uc)
      return -1;
    d->unit_cluster = uc;
    d->cap_units = units;
  }
  if (entries > d->cap_ent) {
    int32_t *ec = rescue_realloc(d->e_coder, (size_t)entries * sizeof *ec), *ev;
    if (!ec)
      return -1;
    d->e_coder = ec;
    ev = rescue_realloc(d->e_value, (size_t)entries * sizeof *ev);
    if (!ev)
      return -1;
    d->e_value = ev;
    d->cap_ent = entries;
  }
  return 0;
}

int rescue_agree_unit(rescue_agree_data *d, int cluster) {
  if (d->n_units == INT32_MAX - 1)
    return RESCUE_ENOMEM;
  if (d->n_units == d->cap_units &&
      agree_data_reserve(d, d->cap_units ? d->cap_units * 2 : 256, d->cap_ent))
    return RESCUE_ENOMEM;
  d->unit_cluster[d->n_units] = cluster;
  d->n_units++;
  d->unit_off[d->n_units] = d->n_ent;
  return (int)d->n_units - 1;
}

int rescue_agree_value(rescue_agree_data *d, int coder, int value) {
  uint32_t i;
  if (!d->n_units || coder < 0 || coder >= (int)d->coders.n || value < 0 ||
      value >= (int)d->values.n)
    return RESCUE_EINVAL;
  for (i = d->unit_off[d->n_units - 1]; i < d->n_ent; i++)
    if (d->e_coder[i] == coder)
      return RESCUE_EEXISTS;
  if (d->n_ent == INT32_MAX - 1)
    return RESCUE_ENOMEM;
  if (d->n_ent == d->cap_ent &&
      agree_data_reserve(d, d->cap_units, d->cap_ent ? d->cap_ent * 2 : 1024))
    return RESCUE_ENOMEM;
  d->e_coder[d->n_ent] = coder;
  d->e_value[d->n_ent] = value;
  d->n_ent++;
  d->unit_off[d->n_units] = d->n_ent;
  return 0;
}

long rescue_agree_n_units(const rescue_agree_data *d) { return (long)d->n_units; }
