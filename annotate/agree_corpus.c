/*
** agree_corpus.c: corpus mode: turn the coders' views of a RESCUE corpus into reliability
** data, one data set per field (annotate/AGREEMENT.md "Fields of a RESCUE corpus"), and measure
** how much of a model's draft each human changed.
**
** Coders: as named, else every annotator or lead (not retired) who saved a version; the
** draft is never one, and models are compared with the humans who revised them.
** Coverage: a coder takes part in a sample when they saved a version (not gold) of one of
** its current rows or of a row those came from; within it, every row is read through
** their view (rescue_sample_iter on their annotator view). Rows are aligned by overlap
** (agree_align.c) to a reference row set, never matched by position; a row someone else's
** resegmentation changed in their view is not theirs and is left out (annotate/AGREEMENT.md
** "Segmentation across row sets").
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agree_int.h"
#include "rescue_alloc.h"

/* The most coder pairs whose rows are aligned one by one (segmentation figures). */
#define RESCUE_AGREE_MAX_PAIRS 100000
#include "store_int.h"

typedef enum unit_kind { U_ROW, U_PERSON, U_PAIR } unit_kind;
typedef enum val_kind { V_LABEL, V_NUMBER, V_SET, V_PRESENCE, V_TEXT } val_kind;
typedef enum field_id {
  F_SPEAKER,
  F_UTTERANCE,
  F_PATTERN,
  F_CYCLE,
  F_SUPPORT,
  F_TARGET,
  F_SUPPORT_TARGET,
  F_EMO_PRESENCE,
  F_EMO_INTENSITY,
  F_VP_PRESENCE,
  F_START,
  F_END,
  F_TONE,
  F_EMO_DESC,
  F_VIEWPOINT
} field_id;

/* Each field: its unit, its kind of value, where the scheme says its level, the default. */
typedef struct fspec {
  const char *name;
  field_id id;
  unit_kind unit;
  val_kind val;
  const char *key, *child;
  const char *level;
} fspec;

static const fspec specs[] = {
    {"primary_speaker", F_SPEAKER, U_ROW, V_LABEL, "primary_speaker", NULL, "nominal"},
    {"utterance_type", F_UTTERANCE, U_ROW, V_LABEL, "utterance_type", NULL, "nominal"},
    {"relation_pattern", F_PATTERN, U_ROW, V_LABEL, "relation_pattern", NULL, "nominal"},
    {"relation_cycle_state", F_CYCLE, U_ROW, V_LABEL, "relation_cycle_state", NULL, "nominal"},
    {"support_strategy", F_SUPPORT, U_ROW, V_LABEL, "support_strategy", "strategy_type", "nominal"},
    {"target", F_TARGET, U_ROW, V_SET, "target", NULL, "masi"},
    {"support_target", F_SUPPORT_TARGET, U_ROW, V_SET, "support_strategy", "target", "masi"},
    {"emotion_presence", F_EMO_PRESENCE, U_PERSON, V_PRESENCE, NULL, NULL, "nominal"},
    {"emotion_intensity", F_EMO_INTENSITY, U_PERSON, V_NUMBER, "internal_emotion", "intensity",
     "interval"},
    {"viewpoint_presence", F_VP_PRESENCE, U_PAIR, V_PRESENCE, NULL, NULL, "nominal"},
    {"start_time", F_START, U_ROW, V_NUMBER, "start_time", NULL, "interval"},
    {"end_time", F_END, U_ROW, V_NUMBER, "end_time", NULL, "interval"},
    {"tone_of_voice", F_TONE, U_ROW, V_TEXT, "tone_of_voice", NULL, "text"},
    {"emotion_description", F_EMO_DESC, U_PERSON, V_TEXT, "internal_emotion", "emotion_description",
     "text"},
    {"viewpoint", F_VIEWPOINT, U_PAIR, V_TEXT, "viewpoints_attitudes", "viewpoint", "text"},
};
#define N_SPECS ((int)(sizeof specs / sizeof specs[0]))

const char *const rescue_agree_fields[] = {"primary_speaker",   "utterance_type",
                                           "relation_pattern",  "relation_cycle_state",
                                           "support_strategy",  "target",
                                           "support_target",    "emotion_presence",
                                           "emotion_intensity", "viewpoint_presence",
                                           "start_time",        "end_time",
                                           "tone_of_voice",     "emotion_description",
                                           "viewpoint",         NULL};

/* Does a level fit a kind of value? */
static int level_fits(val_kind v, const char *level, rescue_agree_level *out) {
  if (rescue_agree_level_parse(level, out))
    return 0;
  switch (v) {
  case V_LABEL:
  case V_PRESENCE: return *out == RESCUE_LEVEL_NOMINAL || *out == RESCUE_LEVEL_ORDINAL;
  case V_NUMBER:
    return *out != RESCUE_LEVEL_MASI && *out != RESCUE_LEVEL_JACCARD && *out != RESCUE_LEVEL_TEXT;
  case V_SET: return *out == RESCUE_LEVEL_MASI || *out == RESCUE_LEVEL_JACCARD;
  case V_TEXT: return *out == RESCUE_LEVEL_TEXT || *out == RESCUE_LEVEL_NOMINAL;
  }
  return 0;
}

/* The scheme field behind a spec (or NULL). */
static const rescue_field *spec_field(const rescue_scheme *sc, const fspec *s) {
  const rescue_field *f = s->key ? rescue_scheme_field(sc, s->key) : NULL;
  if (f && s->child)
    f = rescue_field_child(f, s->child);
  return f;
}

/* ---- a small list of strings (candidate persons of a sample or row) ---- */

typedef struct strlist {
  char **v;
  int n, cap;
} strlist;

/* Add s (n bytes) unless present; -1 when out of memory. */
static int strlist_add(strlist *l, const char *s, size_t n) {
  char *c;
  int i;
  for (i = 0; i < l->n; i++)
    if (strlen(l->v[i]) == n && memcmp(l->v[i], s, n) == 0)
      return 0;
  if (RESCUE_ALLOC_GROW(l->v, l->n + 1, l->cap))
    return -1;
  if (!(c = rescue_strndup(s, n)))
    return -1;
  l->v[l->n++] = c;
  return 0;
}

static void strlist_clear(strlist *l) {
  int i;
  for (i = 0; i < l->n; i++)
    rescue_free(l->v[i]);
  l->n = 0;
}

static void strlist_free(strlist *l) {
  strlist_clear(l);
  rescue_free(l->v);
  memset(l, 0, sizeof *l);
}

/* ---- extraction ---- */

typedef struct xfield {
  const fspec *spec;
  agree_field *out; /* data NULL: the level does not fit */
  int cluster;
  int present, absent; /* presence values */
} xfield;

/* One segmentation of a sample: the rows taken, their spans and speakers. */
typedef struct coder_rows {
  int n, cap, rev_cap;
  int *idx;         /* index in the view's rows */
  int *match;       /* the aligned reference row, or -1 */
  double *s, *e;    /* start and end times */
  const char **spk; /* cleaned primary speakers */
  int *rev;         /* per reference row: the aligned row here, or -1 */
} coder_rows;

typedef struct xctx {
  rescue_store *st;
  const rescue_scheme *sc;
  int K; /* coders */
  const int64_t *ids;
  rescue_sample_iter **its;
  const rescue_sample **cur;
  rescue_sample_iter *ref_its[2]; /* K >= 3: gold and draft views */
  const rescue_sample *ref_cur[2];
  coder_rows ref, *seg;     /* the reference rows; each coder's */
  int *row_of;              /* per coder: the row of the unit being emitted */
  rescue_agree_report *rep; /* segmentation figures go here (NULL: none) */
  int *ma, *mb, ma_cap, mb_cap;
  unsigned char *set;
  const double **starts, **ends;
  const char ***spks;
  int *ns;
  rescue_jdoc **docs;
  const rescue_jnode **rows; /* per coder: the current row, or NULL when not covered */
  int *covers;
  int nx;
  xfield *xf;
  /*
  ** Model revisions (coder 0 a model, coder 1 a human): only rows the model answered (its own
  ** version) count, with the human's own version or no partner; which of the two was written
  ** later is counted per row.
  */
  int model_rows;
  long rows_answered, human_later, model_later;
  strlist persons, groups, row_persons, row_sources, row_targets;
  rescue_buf a, b; /* cleaning scratch */
  const char **el; /* set element scratch */
  size_t *el_len;
  int el_cap, el_len_cap;
} xctx;

/* The cleaned string of a value (corpus/FORMAT.md §6.1) in buffer b; "" for missing. */
static const char *clean(rescue_buf *b, const rescue_jnode *n) {
  rescue_buf_reset(b);
  rescue_jclean(b, n);
  return b->s ? b->s : "";
}

/* The first object item of list `key` of row, or NULL. */
static const rescue_jnode *first_item(const rescue_jnode *row, const char *key) {
  const rescue_jnode *l = row ? rescue_jget(row, key) : NULL;
  if (!l || l->type != RESCUE_JARRAY || !l->child || l->child->type != RESCUE_JOBJECT)
    return NULL;
  return l->child;
}

/* A set value from a list of strings (cleaned, empties dropped); -1 for missing. */
static int set_value(xctx *x, rescue_agree_data *d, const rescue_jnode *list, int *v) {
  const rescue_jnode *c;
  rescue_buf all = RESCUE_BUF_INIT;
  size_t *offs = NULL;
  int n = 0, cap = 0, i, rc = 0;
  *v = -1;
  if (!list || list->type != RESCUE_JARRAY)
    return 0;
  for (c = list->child; c; c = c->next) {
    size_t s, e;
    if (c->type != RESCUE_JSTRING)
      continue;
    rescue_pystrip(c->s, c->len, &s, &e);
    if (s == e)
      continue;
    if (RESCUE_ALLOC_GROW(offs, 2 * (size_t)n + 2, cap)) {
      rc = RESCUE_ENOMEM;
      goto end;
    }
    offs[2 * n] = all.len;
    offs[2 * n + 1] = e - s;
    rescue_buf_putn(&all, c->s + s, e - s);
    n++;
  }
  if (!n)
    goto end;
  if (!rescue_buf_ok(&all)) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  if (RESCUE_ALLOC_GROW(x->el, n, x->el_cap) || RESCUE_ALLOC_GROW(x->el_len, n, x->el_len_cap)) {
    rc = RESCUE_ENOMEM;
    goto end;
  }
  for (i = 0; i < n; i++) {
    x->el[i] = all.s + offs[2 * i];
    x->el_len[i] = offs[2 * i + 1];
  }
  rc = rescue_agree_set(d, x->el, x->el_len, n);
  if (rc >= 0) {
    *v = rc;
    rc = 0;
  }
end:
  rescue_buf_clear(&all);
  rescue_free(offs);
  return rc;
}

/* A label or text value from a cleaned string; -1 for "". */
static int label_value(rescue_agree_data *d, const char *s, int *v) {
  int rc;
  *v = -1;
  if (!*s)
    return 0;
  if ((rc = rescue_agree_label(d, s, strlen(s))) < 0)
    return rc;
  *v = rc;
  return 0;
}

static int number_value(rescue_agree_data *d, const rescue_jnode *n, int *v) {
  int rc;
  *v = -1;
  if (!n || n->type != RESCUE_JNUMBER)
    return 0;
  if ((rc = rescue_agree_number(d, n->num)) < 0)
    return rc;
  *v = rc;
  return 0;
}

/* Value of a row-unit field for one coder's row. */
static int row_value(xctx *x, xfield *f, const rescue_jnode *row, int *v) {
  rescue_agree_data *d = f->out->data;
  const rescue_jnode *it;
  *v = -1;
  switch (f->spec->id) {
  case F_SPEAKER: return label_value(d, clean(&x->a, rescue_jget(row, "primary_speaker")), v);
  case F_UTTERANCE:
    if (strcmp(clean(&x->a, rescue_jget(row, "primary_speaker")), x->sc->therapist) == 0)
      return 0; /* not applicable on therapist rows: missing */
    return label_value(d, clean(&x->a, rescue_jget(row, "utterance_type")), v);
  case F_PATTERN: return label_value(d, clean(&x->a, rescue_jget(row, "relation_pattern")), v);
  case F_CYCLE: return label_value(d, clean(&x->a, rescue_jget(row, "relation_cycle_state")), v);
  case F_SUPPORT:
    it = first_item(row, "support_strategy");
    return it ? label_value(d, clean(&x->a, rescue_jget(it, "strategy_type")), v) : 0;
  case F_TARGET: return set_value(x, d, rescue_jget(row, "target"), v);
  case F_SUPPORT_TARGET:
    it = first_item(row, "support_strategy");
    return it ? set_value(x, d, rescue_jget(it, "target"), v) : 0;
  case F_START: return number_value(d, rescue_jget(row, "start_time"), v);
  case F_END: return number_value(d, rescue_jget(row, "end_time"), v);
  case F_TONE: return label_value(d, clean(&x->a, rescue_jget(row, "tone_of_voice")), v);
  case F_EMO_PRESENCE:
  case F_EMO_INTENSITY:
  case F_VP_PRESENCE:
  case F_EMO_DESC:
  case F_VIEWPOINT: break;
  }
  return 0;
}

/* The first item of list `key` whose cleaned `k1` is s1 (and `k2` is s2, when given). */
static const rescue_jnode *find_item(xctx *x, const rescue_jnode *row, const char *key,
                                     const char *k1, const char *s1, const char *k2,
                                     const char *s2) {
  const rescue_jnode *l = row ? rescue_jget(row, key) : NULL, *c;
  if (!l || l->type != RESCUE_JARRAY)
    return NULL;
  for (c = l->child; c; c = c->next) {
    if (c->type != RESCUE_JOBJECT)
      continue;
    if (strcmp(clean(&x->a, rescue_jget(c, k1)), s1) != 0)
      continue;
    if (k2 && strcmp(clean(&x->a, rescue_jget(c, k2)), s2) != 0)
      continue;
    return c;
  }
  return NULL;
}

/* Value of a person or pair unit for one coder's row. */
static int item_value(xctx *x, xfield *f, const rescue_jnode *row, const char *p, const char *q,
                      int *v) {
  rescue_agree_data *d = f->out->data;
  const rescue_jnode *it;
  *v = -1;
  switch (f->spec->id) {
  case F_EMO_PRESENCE:
    *v = find_item(x, row, "internal_emotion", "person", p, NULL, NULL) ? f->present : f->absent;
    return 0;
  case F_EMO_INTENSITY:
    it = find_item(x, row, "internal_emotion", "person", p, NULL, NULL);
    return it ? number_value(d, rescue_jget(it, "intensity"), v) : 0;
  case F_EMO_DESC:
    it = find_item(x, row, "internal_emotion", "person", p, NULL, NULL);
    return it ? label_value(d, clean(&x->b, rescue_jget(it, "emotion_description")), v) : 0;
  case F_VP_PRESENCE:
    *v = find_item(x, row, "viewpoints_attitudes", "source", p, "target", q) ? f->present
                                                                             : f->absent;
    return 0;
  case F_VIEWPOINT:
    it = find_item(x, row, "viewpoints_attitudes", "source", p, "target", q);
    return it ? label_value(d, clean(&x->b, rescue_jget(it, "viewpoint")), v) : 0;
  case F_SPEAKER:
  case F_UTTERANCE:
  case F_PATTERN:
  case F_CYCLE:
  case F_SUPPORT:
  case F_TARGET:
  case F_SUPPORT_TARGET:
  case F_START:
  case F_END:
  case F_TONE: break;
  }
  return 0;
}

/* One unit: every covered coder's value. p, q: the person or the (source, target) pair. */
static int emit_unit(xctx *x, xfield *f, const char *p, const char *q) {
  rescue_agree_data *d = f->out->data;
  int k, rc, v;
  if ((rc = rescue_agree_unit(d, f->cluster)) < 0)
    return rc;
  for (k = 0; k < x->K; k++) {
    if (!x->rows[k])
      continue;
    rc = f->spec->unit == U_ROW ? row_value(x, f, x->rows[k], &v)
                                : item_value(x, f, x->rows[k], p, q, &v);
    if (rc)
      return rc;
    if (v >= 0 && (rc = rescue_agree_value(d, k, v)))
      return rc;
  }
  return 0;
}

/* Add the cleaned entity names of list `key` items' member `m` (strings) to l. */
static int add_item_names(xctx *x, strlist *l, const rescue_jnode *row, const char *key,
                          const char *m) {
  const rescue_jnode *lst = rescue_jget(row, key), *c;
  if (!lst || lst->type != RESCUE_JARRAY)
    return 0;
  for (c = lst->child; c; c = c->next) {
    const char *s;
    if (c->type != RESCUE_JOBJECT)
      continue;
    s = clean(&x->a, rescue_jget(c, m));
    if (*s && strlist_add(l, s, strlen(s)))
      return RESCUE_ENOMEM;
  }
  return 0;
}

/* Units of one row position for every field. */
static int emit_row(xctx *x) {
  int i, k, rc;
  int need_person = 0, need_pair = 0;
  for (i = 0; i < x->nx; i++) {
    if (!x->xf[i].out->data)
      continue;
    need_person |= x->xf[i].spec->unit == U_PERSON;
    need_pair |= x->xf[i].spec->unit == U_PAIR;
  }
  /* the row's candidates: the sample's persons plus anyone a coder named in this row */
  strlist_clear(&x->row_persons);
  strlist_clear(&x->row_sources);
  strlist_clear(&x->row_targets);
  for (i = 0; i < x->persons.n; i++) {
    if (strlist_add(&x->row_persons, x->persons.v[i], strlen(x->persons.v[i])) ||
        strlist_add(&x->row_sources, x->persons.v[i], strlen(x->persons.v[i])) ||
        strlist_add(&x->row_targets, x->persons.v[i], strlen(x->persons.v[i])))
      return RESCUE_ENOMEM;
  }
  for (i = 0; i < x->groups.n; i++)
    if (strlist_add(&x->row_targets, x->groups.v[i], strlen(x->groups.v[i])))
      return RESCUE_ENOMEM;
  for (k = 0; k < x->K; k++) {
    if (!x->rows[k])
      continue;
    if ((need_person &&
         (rc = add_item_names(x, &x->row_persons, x->rows[k], "internal_emotion", "person"))) ||
        (need_pair &&
         ((rc = add_item_names(x, &x->row_sources, x->rows[k], "viewpoints_attitudes", "source")) ||
          (rc = add_item_names(x, &x->row_targets, x->rows[k], "viewpoints_attitudes", "target")))))
      return rc;
  }
  for (i = 0; i < x->nx; i++) {
    xfield *f = &x->xf[i];
    int s, t;
    if (!f->out->data)
      continue;
    switch (f->spec->unit) {
    case U_ROW:
      if ((rc = emit_unit(x, f, NULL, NULL)))
        return rc;
      break;
    case U_PERSON:
      for (s = 0; s < x->row_persons.n; s++)
        if ((rc = emit_unit(x, f, x->row_persons.v[s], NULL)))
          return rc;
      break;
    case U_PAIR:
      for (s = 0; s < x->row_sources.n; s++)
        for (t = 0; t < x->row_targets.n; t++)
          if (strcmp(x->row_sources.v[s], x->row_targets.v[t]) != 0 &&
              (rc = emit_unit(x, f, x->row_sources.v[s], x->row_targets.v[t])))
            return rc;
      break;
    }
  }
  return 0;
}

/*
** Which coders (of x->ids) cover the sample: those who wrote a version of a row of the row
** set their own view shows (or of a row it came from). Each coder is asked about their own
** row set: one who resegmented works in rows nobody else's row set holds.
*/
static int coverage(xctx *x, int *n_cov) {
  sqlite3_stmt *s = rescue_store_stmt(x->st, "rowset_coders");
  int k, rc = SQLITE_DONE;
  *n_cov = 0;
  if (!s)
    return rescue_store_err(x->st)->code;
  for (k = 0; k < x->K; k++) {
    x->covers[k] = 0;
    rescue_bind_int(s, ":rowset_id", x->cur[k]->rowset_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
      if (sqlite3_column_int64(s, 0) == x->ids[k])
        x->covers[k] = 1;
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
      break;
    *n_cov += x->covers[k];
  }
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(x->st, "reading coders");
}

/* The sample's persons (entities other than group labels) and group labels, first seen. */
static int sample_entities(xctx *x) {
  int k, i;
  strlist_clear(&x->persons);
  strlist_clear(&x->groups);
  for (k = 0; k < x->K; k++) {
    const rescue_sample *s = x->cur[k];
    if (!x->covers[k])
      continue;
    for (i = 0; i < s->n; i++) {
      const char *p = s->rows[i].entities;
      while (p && *p) {
        const char *e = strchr(p, '\x1f');
        size_t n = e ? (size_t)(e - p) : strlen(p);
        int g, is_group = 0;
        for (g = 0; g < x->sc->n_groups; g++)
          is_group |=
              strlen(x->sc->group_labels[g]) == n && memcmp(x->sc->group_labels[g], p, n) == 0;
        if (n && strlist_add(is_group ? &x->groups : &x->persons, p, n))
          return RESCUE_ENOMEM;
        p = e ? e + 1 : NULL;
      }
    }
  }
  return 0;
}

/* Is id among the explicitly requested samples? */
static int requested(const rescue_agree_corpus_opts *o, const char *id) {
  int i;
  for (i = 0; i < o->n_samples; i++)
    if (strcmp(o->samples[i], id) == 0)
      return 1;
  return 0;
}

/*
** Register the K coders (in order) and the category domain of every field whose level fits:
** presence values for presence fields, every label of the scheme's sets for label fields.
** Returns 0, or -1 when memory ran out (the caller sets the error).
*/
static int prepare_fields(xctx *x, agree_field *fields, const fspec *const *fs,
                          const char *const *names) {
  int i, k;
  for (i = 0; i < x->nx; i++) {
    x->xf[i].spec = fs[i];
    x->xf[i].out = &fields[i];
    if (!fields[i].data)
      continue;
    for (k = 0; k < x->K; k++)
      if (rescue_agree_coder(fields[i].data, names[k]) != k)
        return -1;
    if (fs[i]->val == V_PRESENCE) {
      if ((x->xf[i].absent = rescue_agree_label(fields[i].data, "absent", 6)) < 0 ||
          (x->xf[i].present = rescue_agree_label(fields[i].data, "present", 7)) < 0)
        return -1;
    } else if (fs[i]->val == V_LABEL) {
      /* the category domain: every label of the scheme's sets for this field */
      const rescue_field *sf = spec_field(x->sc, fs[i]);
      int l, j;
      for (l = 0; sf && sf->labels && l < x->sc->n_labelsets; l++) {
        const rescue_labelset *ls = &x->sc->labelsets[l];
        if (strcmp(ls->name, sf->labels) != 0)
          continue;
        for (j = 0; j < ls->n; j++)
          if (rescue_agree_label(fields[i].data, ls->labels[j], strlen(ls->labels[j])) < 0)
            return -1;
      }
    }
  }
  return 0;
}

/*
** Open the cluster of sample s0 in every field with data, under the scenario of the first
** coder covering it. Returns 0, or -1 when memory ran out (the caller sets the error).
*/
static int open_clusters(xctx *x, const rescue_sample *s0, agree_field *fields) {
  const rescue_sample *sc0 = NULL;
  int i, k;
  for (k = 0; k < x->K && !sc0; k++)
    if (x->covers[k])
      sc0 = x->cur[k];
  for (i = 0; i < x->nx; i++) {
    if (!fields[i].data)
      continue;
    if ((x->xf[i].cluster = rescue_agree_cluster(fields[i].data, s0->sample_id,
                                                 rescue_sample_scenario(x->sc, sc0))) < 0)
      return -1;
  }
  return 0;
}

/* Parse coder k's row j (index in the view's rows; -1: none) into x->rows[k]. */
static int parse_row(xctx *x, int k, int j) {
  const rescue_sample *s = x->cur[k];
  const rescue_row *row;
  rescue_jerror je;
  x->rows[k] = NULL;
  if (j < 0)
    return 0;
  row = &s->rows[j];
  x->rows[k] = rescue_jparse(x->docs[k], row->content, row->content_len, &je);
  if (!x->rows[k])
    return rescue_seterr(rescue_store_err(x->st), RESCUE_EINTERNAL,
                         "sample '%s' row %d: stored content does not parse: %s", s->sample_id,
                         row->position, je.msg);
  return 0;
}

/*
** Model revisions: does the unit at row_of count? Only when the model (coder 0) wrote the
** version its view shows, and the human's row is their own version or absent (a row the
** human's view shows from the draft is not the human's answer). Counts the rows and which
** of the two versions came later (row_version ids grow with time).
*/
static int answered_by_model(xctx *x, const int *row_of) {
  const rescue_row *m, *h;
  if (row_of[0] < 0 || !x->covers[0])
    return 0;
  m = &x->cur[0]->rows[row_of[0]];
  h = row_of[1] >= 0 && x->covers[1] ? &x->cur[1]->rows[row_of[1]] : NULL;
  if (m->annotator_id != x->ids[0] || (h && h->annotator_id != x->ids[1]))
    return 0;
  x->rows_answered++;
  if (h && h->version_id > m->version_id)
    x->human_later++;
  else if (h)
    x->model_later++;
  return 1;
}

/* One unit: coder k's value from their row row_of[k] (-1: none). */
static int emit_at(xctx *x, const int *row_of) {
  int k, rc;
  if (x->model_rows && !answered_by_model(x, row_of))
    return 0;
  for (k = 0; k < x->K; k++)
    if ((rc = parse_row(x, k, x->covers[k] ? row_of[k] : -1)))
      return rc;
  return emit_row(x);
}

/* Room for n rows in c; -1 when out of memory. */
static int rows_reserve(coder_rows *c, int n) {
  c->n = 0;
  if (n <= c->cap)
    return 0;
  rescue_free(c->idx);
  rescue_free(c->match);
  rescue_free(c->s);
  rescue_free(c->e);
  rescue_free(c->spk);
  c->idx = rescue_calloc((size_t)n, sizeof *c->idx);
  c->match = rescue_calloc((size_t)n, sizeof *c->match);
  c->s = rescue_calloc((size_t)n, sizeof *c->s);
  c->e = rescue_calloc((size_t)n, sizeof *c->e);
  c->spk = rescue_calloc((size_t)n, sizeof *c->spk);
  c->cap = c->idx && c->match && c->s && c->e && c->spk ? n : 0;
  return c->cap ? 0 : -1;
}

static void rows_free(coder_rows *c) {
  rescue_free(c->idx);
  rescue_free(c->match);
  rescue_free(c->s);
  rescue_free(c->e);
  rescue_free(c->spk);
  rescue_free(c->rev);
  memset(c, 0, sizeof *c);
}

/*
** The rows of s that make a segmentation into c: all but those someone else's
** resegmentation changed (they are not this view's own rows). -1 when out of memory.
*/
static int take_rows(coder_rows *c, const rescue_sample *s) {
  int j;
  if (rows_reserve(c, s->n))
    return -1;
  for (j = 0; j < s->n; j++) {
    if (s->rows[j].seg_changed)
      continue;
    c->idx[c->n] = j;
    c->s[c->n] = s->rows[j].start_time;
    c->e[c->n] = s->rows[j].end_time;
    c->spk[c->n++] = s->rows[j].speaker;
  }
  return 0;
}

/*
** The reference rows of the current sample: with three coders or more the gold row set
** where the sample has gold, else the draft's; otherwise (or when those have no row) the
** first covering coder's. -1 when out of memory.
*/
static int take_reference(xctx *x) {
  int k;
  if (x->K >= 3 && x->ref_cur[0] && x->ref_cur[0]->complete && x->ref_cur[0]->n > 0)
    return take_rows(&x->ref, x->ref_cur[0]);
  if (x->K >= 3 && x->ref_cur[1]) {
    if (take_rows(&x->ref, x->ref_cur[1]))
      return -1;
    if (x->ref.n)
      return 0;
  }
  for (k = 0; k < x->K; k++)
    if (x->covers[k])
      return take_rows(&x->ref, x->cur[k]);
  return 0;
}

/* Align every covering coder's rows to the reference (coder_rows match and rev). */
static int align_to_reference(xctx *x) {
  int k, rc;
  for (k = 0; k < x->K; k++) {
    coder_rows *c = &x->seg[k];
    c->n = 0;
    if (!x->covers[k])
      continue;
    if (take_rows(c, x->cur[k]) || RESCUE_ALLOC_GROW(c->rev, x->ref.n + 1, c->rev_cap))
      return RESCUE_ENOMEM;
    rc = rescue_align_rows(c->s, c->e, c->n, x->ref.s, x->ref.e, x->ref.n, c->match, c->rev);
    if (rc < 0)
      return rc;
  }
  return 0;
}

/*
** Units of the current sample: one per reference row, each coder's value from their row
** aligned to it; then one per coder row aligned to none (a value of that coder alone).
*/
static int extract_sample(xctx *x) {
  int r, k, i, rc;
  if (take_reference(x) || (rc = align_to_reference(x)))
    return rescue_seterr(rescue_store_err(x->st), RESCUE_ENOMEM, NULL);
  for (r = 0; r < x->ref.n; r++) {
    for (k = 0; k < x->K; k++)
      x->row_of[k] = x->seg[k].n && x->seg[k].rev[r] >= 0 ? x->seg[k].idx[x->seg[k].rev[r]] : -1;
    if ((rc = emit_at(x, x->row_of)))
      return rc;
  }
  for (k = 0; k < x->K; k++)
    for (i = 0; i < x->seg[k].n; i++) {
      int j;
      if (x->seg[k].match[i] >= 0)
        continue;
      for (j = 0; j < x->K; j++)
        x->row_of[j] = j == k ? x->seg[k].idx[i] : -1;
      if ((rc = emit_at(x, x->row_of)))
        return rc;
    }
  return 0;
}

/*
** The segmentation of the current sample: per coder pair both covering, the rows aligned
** and those without a partner; alpha-u of the primary speaker on its time line.
*/
static int segment_sample(xctx *x, const rescue_sample *s0) {
  rescue_agree_report *r = x->rep;
  int a, b, i, p = 0, rc;
  double d;
  for (a = 0; a < x->K; a++)
    for (b = a + 1; b < x->K; b++, p++) {
      agree_seg_pair *sp = &r->seg_pairs[p];
      coder_rows *ca = &x->seg[a], *cb = &x->seg[b];
      if (!x->covers[a] || !x->covers[b])
        continue;
      if (RESCUE_ALLOC_GROW(x->ma, ca->n + 1, x->ma_cap) ||
          RESCUE_ALLOC_GROW(x->mb, cb->n + 1, x->mb_cap))
        return rescue_seterr(rescue_store_err(x->st), RESCUE_ENOMEM, NULL);
      if ((rc = rescue_align_rows(ca->s, ca->e, ca->n, cb->s, cb->e, cb->n, x->ma, x->mb)) < 0)
        return rescue_seterr(rescue_store_err(x->st), rc, NULL);
      sp->samples++;
      sp->aligned += rc;
      sp->unaligned_a += ca->n - rc;
      sp->unaligned_b += cb->n - rc;
    }
  d = 0; /* the sample's linked media's duration, or 0 */
  if ((rc = rescue_sample_media_duration(x->st, s0->ref, &d)) < 0)
    return rc;
  for (i = 0; i < x->K; i++) {
    x->set[i] = (unsigned char)(x->covers[i] != 0);
    x->starts[i] = x->seg[i].s;
    x->ends[i] = x->seg[i].e;
    x->spks[i] = x->seg[i].spk;
    x->ns[i] = x->covers[i] ? x->seg[i].n : 0;
  }
  if ((rc = agree_unitizing_sample(r, s0->sample_id, d, x->set, x->starts, x->ends,
                                   (const char *const *const *)x->spks, x->ns)))
    return rescue_seterr(rescue_store_err(x->st), rc, NULL);
  return 0;
}

/* Free what extract allocated in x. */
static void xctx_clear(xctx *x) {
  int k;
  for (k = 0; k < x->K; k++) {
    if (x->its)
      rescue_sample_iter_free(&x->its[k]);
    if (x->docs)
      rescue_jdoc_free(&x->docs[k]);
    if (x->seg)
      rows_free(&x->seg[k]);
  }
  rescue_sample_iter_free(&x->ref_its[0]);
  rescue_sample_iter_free(&x->ref_its[1]);
  rows_free(&x->ref);
  rescue_free(x->its);
  rescue_free(x->cur);
  rescue_free(x->docs);
  rescue_free(x->rows);
  rescue_free(x->covers);
  rescue_free(x->xf);
  rescue_free(x->seg);
  rescue_free(x->row_of);
  rescue_free(x->ma);
  rescue_free(x->mb);
  rescue_free(x->set);
  rescue_free(x->starts);
  rescue_free(x->ends);
  rescue_free(x->spks);
  rescue_free(x->ns);
  rescue_free(x->el);
  rescue_free(x->el_len);
  strlist_free(&x->persons);
  strlist_free(&x->groups);
  strlist_free(&x->row_persons);
  strlist_free(&x->row_sources);
  strlist_free(&x->row_targets);
  rescue_buf_clear(&x->a);
  rescue_buf_clear(&x->b);
}

/* The per-coder arrays of x (K coders, nf fields); -1 when out of memory. */
static int xctx_alloc(xctx *x, int K, int nf) {
  size_t n = (size_t)K + 1;
  x->its = rescue_calloc(n, sizeof *x->its);
  x->cur = rescue_calloc(n, sizeof *x->cur);
  x->docs = rescue_calloc(n, sizeof *x->docs);
  x->rows = rescue_calloc(n, sizeof *x->rows);
  x->covers = rescue_calloc(n, sizeof *x->covers);
  x->xf = rescue_calloc((size_t)nf + 1, sizeof *x->xf);
  x->seg = rescue_calloc(n, sizeof *x->seg);
  x->row_of = rescue_calloc(n, sizeof *x->row_of);
  x->set = rescue_calloc(n, sizeof *x->set);
  x->starts = rescue_calloc(n, sizeof *x->starts);
  x->ends = rescue_calloc(n, sizeof *x->ends);
  x->spks = rescue_calloc(n, sizeof *x->spks);
  x->ns = rescue_calloc(n, sizeof *x->ns);
  return x->its && x->cur && x->docs && x->rows && x->covers && x->xf && x->seg && x->row_of &&
                 x->set && x->starts && x->ends && x->spks && x->ns
             ? 0
             : -1;
}

/*
** With three coders or more, iterators over the gold view and the draft's view (when the
** store has a draft), the reference row sets. Returns 0 or an error kept on the store.
*/
static int open_reference(xctx *x, const rescue_agree_corpus_opts *o) {
  rescue_view gold = {.kind = RESCUE_VIEW_GOLD, .annotator_id = 0};
  rescue_view draft = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = 0};
  int rc;
  if (x->K < 3)
    return 0;
  if ((rc = rescue_sample_iter_new(x->st, &gold, o->samples, o->n_samples, &x->ref_its[0])))
    return rc;
  rc = rescue_annotator_id(x->st, RESCUE_DRAFT_ANNOTATOR, NULL, 0, &draft.annotator_id);
  if (rc == RESCUE_ENOTFOUND)
    return 0;
  if (rc)
    return rc;
  return rescue_sample_iter_new(x->st, &draft, o->samples, o->n_samples, &x->ref_its[1]);
}

/* Step every iterator: 1 when each gave a sample, 0 at the end, or a negative error. */
static int step_all(xctx *x) {
  int k, rc, got = 0;
  for (k = 0; k < x->K; k++) {
    if ((rc = rescue_sample_iter_next(x->its[k], &x->cur[k])) < 0)
      return rc;
    got += rc;
  }
  for (k = 0; k < 2; k++) {
    x->ref_cur[k] = NULL;
    if (x->ref_its[k] && (rc = rescue_sample_iter_next(x->ref_its[k], &x->ref_cur[k])) < 0)
      return rc;
  }
  return x->K && got == x->K;
}

/*
** Walk the corpus with one iterator per coder and fill every field's data (created here
** with the coders registered in order); with rep, also its segmentation figures.
** require_all: only samples every coder covered.
*/
static int extract(rescue_store *st, const int64_t *ids, const char *const *names, int K,
                   int require_all, const rescue_agree_corpus_opts *o, agree_field *fields,
                   const fspec *const *fs, int nf, long *samples, rescue_agree_report *rep,
                   agree_revision *rev) {
  xctx x;
  int k, rc = 0;
  memset(&x, 0, sizeof x);
  x.model_rows = rev != NULL;
  x.st = st;
  x.sc = rescue_store_scheme(st);
  x.K = K;
  x.ids = ids;
  x.nx = nf;
  x.rep = rep;
  *samples = 0;
  if (xctx_alloc(&x, K, nf) || prepare_fields(&x, fields, fs, names))
    goto nomem;
  for (k = 0; k < K; k++) {
    rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = ids[k]};
    if (!(x.docs[k] = rescue_jdoc_new()))
      goto nomem;
    if ((rc = rescue_sample_iter_new(st, &v, o->samples, o->n_samples, &x.its[k])))
      goto end;
  }
  if ((rc = open_reference(&x, o)))
    goto end;
  while ((rc = step_all(&x)) == 1) {
    const rescue_sample *s0 = x.cur[0];
    int n_cov;
    rc = 0;
    if (strcmp(s0->status, "discarded") == 0 && !requested(o, s0->sample_id))
      continue;
    if ((rc = coverage(&x, &n_cov)))
      goto end;
    if (!n_cov || (require_all && n_cov < K))
      continue;
    (*samples)++;
    if ((rc = sample_entities(&x)))
      goto end;
    if (open_clusters(&x, s0, fields))
      goto nomem;
    if ((rc = extract_sample(&x)) || (rep && (rc = segment_sample(&x, s0))))
      goto end;
  }
  goto end;
nomem:
  rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
end:
  if (rc == RESCUE_ENOMEM && rescue_store_err(st)->code != RESCUE_ENOMEM)
    rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (rev) {
    rev->rows = x.rows_answered;
    rev->human_later = x.human_later;
    rev->model_later = x.model_later;
  }
  xctx_clear(&x);
  return rc;
}

/* Set up report fields (data sets at their level, or none when it does not fit). */
static int make_fields(rescue_store *st, rescue_agree_report *r, const fspec *const *fs, int nf) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  int i;
  for (i = 0; i < nf; i++) {
    const rescue_field *sf = spec_field(sc, fs[i]);
    const char *level = sf && sf->level ? sf->level : fs[i]->level;
    rescue_agree_level lv;
    agree_field *f = agree_report_add_field(r, fs[i]->name, level);
    if (!f)
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    if (level_fits(fs[i]->val, level, &lv) && !(f->data = rescue_agree_data_new(lv)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  return 0;
}

/* Units either coder coded, and of those the ones whose values differ. */
static void changes(const rescue_agree_data *d, long *units, long *changed) {
  uint32_t u;
  *units = *changed = 0;
  for (u = 0; u < d->n_units; u++) {
    uint32_t a = d->unit_off[u], b = d->unit_off[u + 1];
    if (b == a)
      continue;
    (*units)++;
    if (b - a < 2 || d->e_value[a] != d->e_value[a + 1])
      (*changed)++;
  }
}

/*
** Fill fs[] with the fields to measure: those named in o->fields (each once, in the order
** given), else every field. Sets *nf. Returns 0 or RESCUE_EINVAL for an unknown name.
*/
static int pick_fields(rescue_store *st, const rescue_agree_corpus_opts *o, const fspec **fs,
                       int *nf) {
  int i, j;
  *nf = 0;
  if (o->n_fields > 0) {
    for (i = 0; i < o->n_fields; i++) {
      int found = 0;
      for (j = 0; j < N_SPECS && !found; j++)
        if (strcmp(o->fields[i], specs[j].name) == 0) {
          int dup = 0, k;
          for (k = 0; k < *nf; k++)
            dup |= fs[k] == &specs[j];
          if (!dup)
            fs[(*nf)++] = &specs[j];
          found = 1;
        }
      if (!found)
        return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                             "unknown field '%s' (one of primary_speaker, utterance_type, "
                             "relation_pattern, relation_cycle_state, support_strategy, target, "
                             "support_target, emotion_presence, emotion_intensity, "
                             "viewpoint_presence, start_time, end_time, tone_of_voice, "
                             "emotion_description, viewpoint)",
                             o->fields[i]);
    }
  } else {
    for (j = 0; j < N_SPECS; j++)
      fs[(*nf)++] = &specs[j];
  }
  return 0;
}

/*
** Read the annotators with versions. Model annotators (all, or those among o->coders) go to
** *models and *model_names (*n_models of them); without o->coders every human one goes to
** *ids and r->coders. The arrays are the caller's to free, on failure too. Returns 0 or an
** error code kept on the store handle.
*/
static int list_annotators(rescue_store *st, const rescue_agree_corpus_opts *o,
                           rescue_agree_report *r, int64_t **ids, int64_t **models,
                           char ***model_names, int *n_models) {
  sqlite3_stmt *s = rescue_store_stmt(st, "agree_annotators");
  int cap = 0, cap_coders = 0, n = 0, mcap = 0, mcap_names = 0, i, rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(s, 1);
    const char *role = (const char *)sqlite3_column_text(s, 2);
    int model = strcmp(role, "model") == 0, want = !model;
    if (o->n_coders > 0) {
      want = 0;
      for (i = 0; i < o->n_coders; i++)
        want |= strcmp(o->coders[i], name) == 0;
    }
    if (model && (o->n_coders == 0 || want)) {
      if (RESCUE_ALLOC_GROW(*models, *n_models + 1, mcap) ||
          RESCUE_ALLOC_GROW(*model_names, *n_models + 1, mcap_names))
        break;
      (*models)[*n_models] = sqlite3_column_int64(s, 0);
      if (!((*model_names)[(*n_models)++] = rescue_strdup(name)))
        break;
    }
    if (o->n_coders == 0 && want) {
      if (RESCUE_ALLOC_GROW(*ids, n + 1, cap) || RESCUE_ALLOC_GROW(r->coders, n + 1, cap_coders))
        break;
      (*ids)[n] = sqlite3_column_int64(s, 0);
      if (!(r->coders[n++] = rescue_strdup(name)))
        break;
      r->n_coders = n;
    }
  }
  sqlite3_reset(s);
  if (rc == SQLITE_ROW)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading annotators");
  return 0;
}

/*
** The coders given in o->coders: each listed once, registered and not retired. Allocates
** *ids and r->coders (the caller's to free, on failure too). Returns 0 or an error code
** kept on the store handle.
*/
static int resolve_coders(rescue_store *st, const rescue_agree_corpus_opts *o,
                          rescue_agree_report *r, int64_t **ids) {
  int i, j, rc;
  *ids = rescue_calloc((size_t)o->n_coders, sizeof **ids);
  r->coders = rescue_calloc((size_t)o->n_coders, sizeof *r->coders);
  if (!*ids || !r->coders)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (i = 0; i < o->n_coders; i++) {
    int retired = 0;
    for (j = 0; j < i; j++)
      if (strcmp(o->coders[i], o->coders[j]) == 0)
        return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "coder '%s' is listed twice",
                             o->coders[i]);
    if ((rc = rescue_annotator_lookup(st, o->coders[i], &(*ids)[i], NULL, &retired)))
      return rc;
    if (retired)
      return rescue_seterr_arg(rescue_store_err(st), RESCUE_ERETIRED, o->coders[i],
                               "coder '%s' is retired", o->coders[i]);
    if (!(r->coders[i] = rescue_strdup(o->coders[i])))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    r->n_coders = i + 1;
  }
  return 0;
}

/*
** Model `m` against human `h` over the samples both covered, on the rows the model answered
** (answered_by_model); nothing is added when it answered none of them.
*/
static int revision(rescue_store *st, int64_t m, const char *mname, int64_t h, const char *hname,
                    const rescue_agree_corpus_opts *o, const fspec *const *fs, int nf,
                    rescue_agree_report *r) {
  rescue_agree_report tmp;
  int64_t ids[2] = {m, h};
  const char *names[2] = {mname, hname};
  agree_revision *v, order;
  long samples = 0;
  int i, rc;
  memset(&tmp, 0, sizeof tmp);
  memset(&order, 0, sizeof order);
  if ((rc = make_fields(st, &tmp, fs, nf)) ||
      (rc = extract(st, ids, names, 2, 1, o, tmp.fields, fs, nf, &samples, NULL, &order)))
    goto end;
  if (!samples || !order.rows)
    goto end;
  if (RESCUE_ALLOC_GROW(r->rev, r->n_rev + 1, r->cap_rev))
    goto nomem;
  v = &r->rev[r->n_rev];
  memset(v, 0, sizeof *v);
  v->model = rescue_strdup(mname);
  v->human = rescue_strdup(hname);
  v->fields = rescue_calloc((size_t)nf + 1, sizeof *v->fields);
  r->n_rev++;
  if (!v->model || !v->human || !v->fields)
    goto nomem;
  v->samples = samples;
  v->rows = order.rows;
  v->human_later = order.human_later;
  v->model_later = order.model_later;
  for (i = 0; i < nf; i++) {
    agree_change *c = &v->fields[v->n++];
    c->field = fs[i]->name;
    c->alpha = NAN;
    c->status = RESCUE_AGREE_INVALID_LEVEL;
    if (!tmp.fields[i].data)
      continue;
    changes(tmp.fields[i].data, &c->units, &c->changed);
    if (tmp.fields[i].data->level == RESCUE_LEVEL_TEXT) {
      c->status = c->units ? RESCUE_AGREE_OK : RESCUE_AGREE_NO_DATA;
      continue;
    }
    c->status = rescue_agree_alpha(tmp.fields[i].data, &c->alpha);
  }
  goto end;
nomem:
  rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
end:
  for (i = 0; i < tmp.n_fields; i++) {
    rescue_agree_data_free(&tmp.fields[i].data);
    rescue_free(tmp.fields[i].name);
    rescue_free(tmp.fields[i].level_name);
  }
  rescue_free(tmp.fields);
  return rc;
}

/* The report's coder pairs (a < b, in order) for the segmentation figures. */
static int seg_pairs_alloc(rescue_store *st, rescue_agree_report *r) {
  int a, b, p = 0;
  long n = (long)r->n_coders * (r->n_coders - 1) / 2;
  if (n <= 0)
    return 0;
  if (n > RESCUE_AGREE_MAX_PAIRS)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "%d coders are too many to align pair by pair", r->n_coders);
  if (!(r->seg_pairs = rescue_calloc((size_t)n, sizeof *r->seg_pairs)))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (a = 0; a < r->n_coders; a++)
    for (b = a + 1; b < r->n_coders; b++, p++) {
      r->seg_pairs[p].a = a;
      r->seg_pairs[p].b = b;
    }
  r->n_seg_pairs = p;
  return 0;
}

int rescue_agree_corpus(rescue_store *st, const rescue_agree_corpus_opts *o,
                        rescue_agree_report **out) {
  rescue_agree_report *r = rescue_calloc(1, sizeof *r);
  const fspec *fs[N_SPECS];
  int64_t *ids = NULL, *models = NULL;
  char **model_names = NULL;
  int *is_model = NULL, nf = 0, n_models = 0, i, j, rc = 0;
  *out = NULL;
  if (!r)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if ((rc = pick_fields(st, o, fs, &nf)))
    goto end;
  /* coders: as given, else every human annotator with versions; models with versions */
  if ((rc = list_annotators(st, o, r, &ids, &models, &model_names, &n_models)))
    goto end;
  if (o->n_coders > 0 && (rc = resolve_coders(st, o, r, &ids)))
    goto end;
  if ((rc = make_fields(st, r, fs, nf)) || (rc = seg_pairs_alloc(st, r)) ||
      (rc = extract(st, ids, (const char *const *)r->coders, r->n_coders, 0, o, r->fields, fs, nf,
                    &r->samples, r, NULL)))
    goto end;
  if (agree_unitizing_overall(r)) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < nf; i++)
    if (r->fields[i].data &&
        rescue_agree_compute(r->fields[i].data, &o->stats, &r->fields[i].res)) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto end;
    }
  /* every model against every human coder who revised it */
  is_model = rescue_calloc((size_t)r->n_coders + 1, sizeof *is_model);
  if (!is_model) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < r->n_coders; i++)
    for (j = 0; j < n_models; j++)
      is_model[i] |= ids[i] == models[j];
  for (j = 0; j < n_models; j++)
    for (i = 0; i < r->n_coders; i++)
      if (!is_model[i] &&
          (rc = revision(st, models[j], model_names[j], ids[i], r->coders[i], o, fs, nf, r)))
        goto end;
  *out = r;
  r = NULL;
end:
  rescue_agree_report_free(&r);
  rescue_free(ids);
  rescue_free(models);
  for (i = 0; i < n_models; i++)
    rescue_free(model_names[i]);
  rescue_free(model_names);
  rescue_free(is_model);
  return rc;
}
