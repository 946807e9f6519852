/*
** edit.c: editing a sample through one annotator's view: the sample loaded and parsed as
** the view shows it, an edited row written in the spelling of the version it replaces,
** and resegmenting (split, merge, new times) as that annotator's segmentation.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_edit.h"
#include "store_int.h"

/* ---- a sample through a view ---- */

void rescue_view_sample_clear(rescue_view_sample *vs) {
  rescue_buf_clear(&vs->json);
  rescue_jdoc_free(&vs->doc);
  for (int i = 0; vs->patches && i < vs->n_patched; i++)
    rescue_jdoc_free(&vs->patches[i]);
  rescue_free(vs->patches);
  rescue_free(vs->rows);
  rescue_free(vs->versions);
  rescue_free(vs->row_ids);
  rescue_free(vs->mine);
  rescue_free(vs->origin);
  rescue_free(vs->seg_changed);
  for (int i = 0; vs->lost_refs && i < vs->n; i++)
    rescue_free(vs->lost_refs[i]);
  rescue_free(vs->lost_refs);
  rescue_free(vs->group);
  rescue_free(vs->head);
  rescue_free(vs->tail);
  memset(vs, 0, sizeof *vs);
}

/* Copy what the iterator's sample holds into *L (the rows' nodes come later). */
static int copy_sample(rescue_store *st, const rescue_sample *s, int64_t annotator_id,
                       rescue_view_sample *L) {
  size_t n = (size_t)s->n + 1;
  int i;
  rescue_sample_write_json(rescue_store_scheme(st), s, &L->json);
  snprintf(L->status, sizeof L->status, "%s", s->status);
  snprintf(L->scenario, sizeof L->scenario, "%s",
           rescue_sample_scenario(rescue_store_scheme(st), s));
  L->group = rescue_strdup(s->group ? s->group : "");
  L->head = rescue_strdup(s->head ? s->head : "");
  L->tail = rescue_strdup(s->tail ? s->tail : "");
  L->has_rows = s->has_rows;
  L->given_keys = s->given_keys;
  L->n = s->n;
  L->n_rows = s->n_rows;
  L->rows = rescue_calloc(n, sizeof *L->rows);
  L->versions = rescue_calloc(n, sizeof *L->versions);
  L->row_ids = rescue_calloc(n, sizeof *L->row_ids);
  L->ref = s->ref;
  L->rowset_id = s->rowset_id;
  L->mine = rescue_calloc(n, sizeof *L->mine);
  L->origin = rescue_calloc(n, sizeof *L->origin);
  L->seg_changed = rescue_calloc(n, sizeof *L->seg_changed);
  L->lost_refs = rescue_calloc(n, sizeof *L->lost_refs);
  L->doc = rescue_jdoc_new();
  if (!L->rows || !L->versions || !L->row_ids || !L->mine || !L->origin || !L->seg_changed ||
      !L->lost_refs || !L->doc || !L->group || !L->head || !L->tail || !rescue_buf_ok(&L->json))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (i = 0; i < s->n; i++) {
    L->versions[i] = s->rows[i].version_id;
    L->row_ids[i] = s->rows[i].row_id;
    L->mine[i] = s->rows[i].annotator_id == annotator_id && s->rows[i].origin == RESCUE_ROW_OWN;
    L->origin[i] = s->rows[i].origin;
    L->seg_changed[i] = s->rows[i].seg_changed;
    if (s->rows[i].lost_refs && !(L->lost_refs[i] = rescue_strdup(s->rows[i].lost_refs)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  return 0;
}

int rescue_view_sample_load(rescue_store *st, const char *sample_id, int64_t annotator_id,
                            rescue_view_sample *L) {
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = annotator_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  const char *only[1] = {sample_id};
  const rescue_jnode *rows, *e;
  rescue_jerror je;
  int rc, i;
  memset(L, 0, sizeof *L);
  if ((rc = rescue_sample_iter_new(st, &v, only, 1, &it)))
    return rc;
  rc = rescue_sample_iter_next(it, &s);
  if (rc <= 0) {
    rescue_sample_iter_free(&it);
    return rc ? rc
              : rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no sample '%s'", sample_id);
  }
  rc = copy_sample(st, s, annotator_id, L);
  rescue_sample_iter_free(&it);
  if (rc)
    return rc;
  L->sample = rescue_jparse(L->doc, L->json.s, L->json.len, &je);
  if (!L->sample)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL, "stored sample: %s", je.msg);
  rows = rescue_jget(L->sample, "rows");
  for (i = 0, e = rows && rows->type == RESCUE_JARRAY ? rows->child : NULL; e && i < L->n;
       e = e->next, i++)
    L->rows[i] = e;
  for (int k = i; k < L->n; k++) /* rows the JSON did not hold (never: kept to free) */
    rescue_free(L->lost_refs[k]), L->lost_refs[k] = NULL;
  L->n = i;
  return 0;
}

int rescue_sample_generation(rescue_store *st, const char *sample_id, int64_t *gen, char *status) {
  sqlite3_stmt *q = rescue_store_stmt(st, "sample_generation");
  int rc;
  *gen = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    *gen = sqlite3_column_int64(q, 0);
    if (status)
      snprintf(status, 16, "%s", (const char *)sqlite3_column_text(q, 1));
  }
  sqlite3_reset(q);
  if (rc == SQLITE_ROW)
    return 0;
  if (rc == SQLITE_DONE)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no sample '%s'", sample_id);
  return rescue_store_sqlerr(st, "reading a sample's generation");
}

int rescue_view_sample_put_row(rescue_view_sample *L, int position, const char *row_json,
                               size_t len, int64_t version) {
  rescue_jdoc **g, *doc;
  const rescue_jnode *row;
  rescue_jerror je;
  if (position < 1 || position > L->n)
    return RESCUE_EINVAL;
  if (!(g = rescue_realloc(L->patches, (size_t)(L->n_patched + 1) * sizeof *g)))
    return RESCUE_ENOMEM;
  L->patches = g;
  if (!(doc = rescue_jdoc_new()))
    return RESCUE_ENOMEM;
  row = rescue_jparse(doc, row_json, len, &je);
  if (!row || row->type != RESCUE_JOBJECT) {
    int oom = !row && strcmp(je.msg, "out of memory") == 0;
    rescue_jdoc_free(&doc);
    return oom ? RESCUE_ENOMEM : RESCUE_EINVAL;
  }
  L->patches[L->n_patched++] = doc;
  L->rows[position - 1] = row;
  L->versions[position - 1] = version;
  L->mine[position - 1] = 1;
  L->origin[position - 1] = RESCUE_ROW_OWN;
  L->seg_changed[position - 1] = 0;
  rescue_free(L->lost_refs[position - 1]);
  L->lost_refs[position - 1] = NULL;
  return 0;
}

/* ---- writing an edited row like the version it replaces ---- */

/* One value of rescue_row_write_like (see there). */
static void write_like(rescue_buf *b, const rescue_jnode *n, const rescue_jnode *old) {
  const rescue_jnode *c, *o;
  int first = 1;
  switch (n->type) {
  case RESCUE_JNUMBER:
    if (old && old->type == RESCUE_JNUMBER && old->num == n->num)
      rescue_buf_putn(b, old->s, old->len);
    else if (old && old->type == RESCUE_JNUMBER && !old->is_int && n->is_int)
      rescue_jwrite_double(b, n->num);
    else
      rescue_jwrite(b, n);
    return;
  case RESCUE_JOBJECT:
    rescue_buf_putc(b, '{');
    for (c = n->child; c; c = c->next) {
      if (!first)
        rescue_buf_puts(b, ", ");
      first = 0;
      rescue_jwrite_string(b, c->key, c->keylen);
      rescue_buf_puts(b, ": ");
      write_like(b, c, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, c->key) : NULL);
    }
    rescue_buf_putc(b, '}');
    return;
  case RESCUE_JARRAY:
    rescue_buf_putc(b, '[');
    o = old && old->type == RESCUE_JARRAY ? old->child : NULL;
    for (c = n->child; c; c = c->next) {
      if (!first)
        rescue_buf_puts(b, ", ");
      first = 0;
      write_like(b, c, o);
      if (o)
        o = o->next;
    }
    rescue_buf_putc(b, ']');
    return;
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JSTRING: rescue_jwrite(b, n); return;
  }
}

void rescue_row_write_like(rescue_buf *b, const rescue_jnode *row, const rescue_jnode *old,
                           int position) {
  const rescue_jnode *c;
  int first = 1;
  rescue_buf_putc(b, '{');
  for (c = row->child; c; c = c->next) {
    if (!first)
      rescue_buf_puts(b, ", ");
    first = 0;
    rescue_jwrite_string(b, c->key, c->keylen);
    rescue_buf_puts(b, ": ");
    if (strcmp(c->key, "row_index") == 0 && c->type == RESCUE_JNUMBER)
      rescue_buf_printf(b, "%d", position);
    else
      write_like(b, c, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, c->key) : NULL);
  }
  rescue_buf_putc(b, '}');
}

void rescue_row_write_with(rescue_buf *b, const rescue_jnode *row, const char *const *keys,
                           const char *const *vals, int n) {
  const rescue_jnode *c;
  int first = 1, i;
  rescue_buf_putc(b, '{');
  for (c = row->child; c; c = c->next) {
    if (!first)
      rescue_buf_puts(b, ", ");
    first = 0;
    rescue_jwrite_string(b, c->key, c->keylen);
    rescue_buf_puts(b, ": ");
    for (i = 0; i < n && strcmp(c->key, keys[i]); i++)
      ;
    if (i < n)
      rescue_buf_puts(b, vals[i]);
    else
      write_like(b, c, c);
  }
  rescue_buf_putc(b, '}');
}

/* ---- the same, as the tree its text reads back as ---- */

/* Where rescue_row_like puts the next node and the next respelled number. */
typedef struct like_mem {
  rescue_jnode *node;
  char (*tok)[32];
} like_mem;

/* Nodes of the tree under n (n included), and how many of them are numbers. */
static void like_count(const rescue_jnode *n, size_t *nodes, size_t *numbers) {
  const rescue_jnode *c;
  (*nodes)++;
  if (n->type == RESCUE_JNUMBER)
    (*numbers)++;
  if (n->type == RESCUE_JOBJECT || n->type == RESCUE_JARRAY)
    for (c = n->child; c; c = c->next)
      like_count(c, nodes, numbers);
}

/*
** A copy of n as rescue_jparse reads what write_like(n, old) writes: the same node but for a
** number write_like respells, which takes old's token with its is_int and its value (equal
** to n's: that is when write_like keeps it) or, an integer where old was a real, the real's
** shortest spelling (always with a '.' or an exponent, so not an integer token, and read
** back as n->num). Children are copied the same way against the old value write_like pairs
** them with.
*/
static rescue_jnode *like_value(like_mem *m, const rescue_jnode *n, const rescue_jnode *old) {
  rescue_jnode *c = m->node++, **link = &c->child;
  const rescue_jnode *k, *o;
  *c = *n;
  c->child = c->next = NULL;
  switch (n->type) {
  case RESCUE_JNUMBER:
    if (old && old->type == RESCUE_JNUMBER && old->num == n->num) {
      c->s = old->s;
      c->len = old->len;
      c->is_int = old->is_int;
      c->num = old->num;
    } else if (old && old->type == RESCUE_JNUMBER && !old->is_int && n->is_int) {
      c->len = (uint32_t)rescue_format_double(n->num, *m->tok);
      c->s = *m->tok++;
      c->is_int = 0;
    }
    return c;
  case RESCUE_JOBJECT:
    for (k = n->child; k; k = k->next, link = &(*link)->next)
      *link =
          like_value(m, k, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, k->key) : NULL);
    return c;
  case RESCUE_JARRAY:
    o = old && old->type == RESCUE_JARRAY ? old->child : NULL;
    for (k = n->child; k; k = k->next, link = &(*link)->next) {
      *link = like_value(m, k, o);
      if (o)
        o = o->next;
    }
    return c;
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JSTRING: return c;
  }
  return c;
}

int rescue_row_like(const rescue_jnode *row, const rescue_jnode *old, int position,
                    rescue_jnode **tree) {
  size_t nodes = 0, numbers = 0;
  like_mem m;
  rescue_jnode *root, **link;
  const rescue_jnode *k;
  *tree = NULL;
  like_count(row, &nodes, &numbers);
  if (!(root = rescue_malloc(nodes * sizeof *root + numbers * sizeof *m.tok)))
    return RESCUE_ENOMEM;
  m.node = root + 1;
  m.tok = (char(*)[32])(void *)(root + nodes);
  *root = *row;
  root->child = root->next = NULL;
  link = &root->child;
  for (k = row->child; k; k = k->next, link = &(*link)->next) {
    if (strcmp(k->key, "row_index") == 0 && k->type == RESCUE_JNUMBER) {
      rescue_jnode *c = m.node++;
      *c = *k;
      c->next = NULL;
      c->len = (uint32_t)snprintf(*m.tok, sizeof *m.tok, "%d", position);
      c->s = *m.tok++;
      c->is_int = 1;
      c->num = position;
      *link = c;
    } else {
      *link =
          like_value(&m, k, old && old->type == RESCUE_JOBJECT ? rescue_jget(old, k->key) : NULL);
    }
  }
  *tree = root;
  return 0;
}

/* ---- resegmenting ---- */

static const char *op_name(rescue_reseg_op op) {
  switch (op) {
  case RESCUE_RESEG_SPLIT: return "split";
  case RESCUE_RESEG_MERGE: return "merge";
  case RESCUE_RESEG_TIMES: return "times";
  }
  return "?";
}

/*
** Write `row` with the members named in keys[] replaced by the raw JSON vals[] (members
** that are absent stay absent).
*/
static void write_row_with(rescue_buf *b, const rescue_jnode *row, const char *const *keys,
                           const char *const *vals, int n) {
  rescue_jw w;
  const rescue_jnode *m;
  int i;
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  for (m = row->child; m; m = m->next) {
    for (i = 0; i < n; i++)
      if (strcmp(m->key, keys[i]) == 0)
        break;
    rescue_jw_key(&w, m->key);
    if (i < n)
      rescue_jw_raw(&w, vals[i], strlen(vals[i]));
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
}

static void fmt_time(double t, char out[32]) {
  rescue_format_double(round(t * 1000.0) / 1000.0, out);
}

/* The text of a string member, "" otherwise. */
static const char *str_of(const rescue_jnode *row, const char *key, size_t *len) {
  const rescue_jnode *n = rescue_jget(row, key);
  if (n && n->type == RESCUE_JSTRING) {
    *len = n->len;
    return n->s;
  }
  *len = 0;
  return "";
}

static double num_of(const rescue_jnode *row, const char *key) {
  const rescue_jnode *n = rescue_jget(row, key);
  return n && n->type == RESCUE_JNUMBER ? n->num : 0;
}

/*
** The checks every operation shares: the row exists and nobody changed it. (Whether the
** sample's status allows a split or merge is reseg_store's to decide, in its transaction.)
*/
static int reseg_check(rescue_store *st, const rescue_view_sample *L, const rescue_resegment *op) {
  int merge = op->op == RESCUE_RESEG_MERGE;
  if (op->row < 1 || op->row > L->n || (merge && op->row >= L->n))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         merge ? "row %d has no next row to merge with" : "no row %d", op->row);
  if (L->versions[op->row - 1] != op->base_version ||
      (merge && L->versions[op->row] != op->next_version))
    return rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT,
                         "row %d changed since it was read: reload the sample", op->row);
  return 0;
}

/*
** The sample's status as the open transaction sees it, into status (16 bytes): a split or
** merge is refused on a discarded sample (RESCUE_ECONFLICT); a reviewed one is reopened by
** reseg_store, as a save reopens it. Read here rather than from the view loaded before the
** transaction, so a status another program set meanwhile (`rescue status`) counts.
*/
static int reseg_status(rescue_store *st, const char *sample_id, char status[16]) {
  int64_t gen;
  int rc = rescue_sample_generation(st, sample_id, &gen, status);
  if (rc)
    return rc;
  if (strcmp(status, "discarded") == 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT,
                         "the sample is discarded: rows are not split or merged in a discarded "
                         "sample; set it back to in review first");
  return 0;
}

/* TIMES: the row with its new span, saved as a new version. */
static int reseg_times(rescue_store *st, const char *sample_id, int64_t annotator_id,
                       const rescue_view_sample *L, const rescue_resegment *op, int64_t *version) {
  const char *keys[] = {"start_time", "end_time"};
  char a[32], b[32];
  const char *vals[] = {a, b};
  rescue_buf text = RESCUE_BUF_INIT;
  int rc;
  if (!isfinite(op->start) || !isfinite(op->end) || op->start < 0 || op->end <= op->start)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "the row must start at 0 or later and end after it starts");
  fmt_time(op->start, a);
  fmt_time(op->end, b);
  write_row_with(&text, L->rows[op->row - 1], keys, vals, 2);
  if (!rescue_buf_ok(&text))
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  else
    rc = rescue_row_save(st, sample_id, op->row, annotator_id, op->base_version, text.s, text.len,
                         version, NULL);
  rescue_buf_clear(&text);
  return rc;
}

/* SPLIT of row ri at op->at: two rows into texts[0..1], numbered position and position + 1. */
static int split_row(rescue_store *st, const rescue_jnode *ri, const rescue_resegment *op,
                     rescue_buf *texts, int position) {
  double s0 = num_of(ri, "start_time"), e0 = num_of(ri, "end_time");
  double at = round(op->at * 1000.0) / 1000.0;
  const char *k1[2] = {"row_index", "end_time"}, *k2[2] = {"row_index", "start_time"};
  char idx[24], t[32];
  const char *v[2] = {idx, t};
  if (!(at > s0 && at < e0))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "the split time %.3f is not inside row %d (%.3f to %.3f)", at, op->row, s0,
                         e0);
  fmt_time(at, t);
  snprintf(idx, sizeof idx, "%d", position);
  write_row_with(&texts[0], ri, k1, v, 2); /* ends at the split */
  snprintf(idx, sizeof idx, "%d", position + 1);
  write_row_with(&texts[1], ri, k2, v, 2); /* starts at the split */
  return 0;
}

/*
** MERGE of ri and nx: one row from ri's start to nx's end, the texts joined by a space,
** numbered position, into *out.
*/
static void merge_rows(const rescue_jnode *ri, const rescue_jnode *nx, rescue_buf *out,
                       int position) {
  const rescue_jnode *en = rescue_jget(nx, "end_time"), *sn = rescue_jget(ri, "start_time");
  rescue_buf t = RESCUE_BUF_INIT, joined = RESCUE_BUF_INIT, sa = RESCUE_BUF_INIT,
             q = RESCUE_BUF_INIT;
  const char *mkeys[4] = {"row_index", "start_time", "end_time", "dialogue_cleaned"};
  const char *mvals[4];
  char idx[24];
  size_t l1, l2;
  const char *d1 = str_of(ri, "dialogue_cleaned", &l1), *d2 = str_of(nx, "dialogue_cleaned", &l2);
  if (sn)
    rescue_jwrite(&sa, sn);
  if (en)
    rescue_jwrite(&t, en);
  rescue_buf_putn(&joined, d1, l1);
  if (l1 && l2)
    rescue_buf_putc(&joined, ' ');
  rescue_buf_putn(&joined, d2, l2);
  rescue_jwrite_string(&q, joined.s ? joined.s : "", joined.len);
  snprintf(idx, sizeof idx, "%d", position);
  mvals[0] = idx;
  mvals[1] = sa.s ? sa.s : "0";
  mvals[2] = t.s ? t.s : "0";
  mvals[3] = q.s ? q.s : "\"\"";
  write_row_with(out, ri, mkeys, mvals, 4);
  rescue_buf_clear(&q);
  rescue_buf_clear(&sa);
  rescue_buf_clear(&t);
  rescue_buf_clear(&joined);
}

/* The parent row_id was split from (one part, relation split), else 0. */
static int split_parent(rescue_store *st, int64_t row_id, int64_t *parent) {
  sqlite3_stmt *q = rescue_store_stmt(st, "row_split_parent");
  int rc;
  *parent = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":row_id", row_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *parent = sqlite3_column_int64(q, 0);
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading lineage");
}

/*
** The two rows row_id was merged from, into p[0] and p[1], when splitting it at `at` gives
** them back (row_merge_parents: unchanged since the merge, split where they met); else
** both 0.
*/
static int merge_parents(rescue_store *st, int64_t row_id, double at, int64_t p[2]) {
  sqlite3_stmt *q = rescue_store_stmt(st, "row_merge_parents");
  int rc;
  p[0] = p[1] = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":row_id", row_id);
  rescue_bind_double(q, ":at", at);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    p[0] = sqlite3_column_int64(q, 0);
    p[1] = sqlite3_column_int64(q, 1);
  }
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading lineage");
}

/*
** A new row made at `position` of rowset_id from the JSON text, with its first version by
** annotator_id and its lineage: parents[0..n_parents) with relation rel (parts in order).
** The text's row references are positions of L's row set (the view it was copied from).
*/
static int reseg_new_row(rescue_store *st, const rescue_view_sample *L, int64_t rowset_id,
                         int position, int64_t annotator_id, const rescue_buf *text,
                         const int64_t *parents, int n_parents, const char *rel, int64_t *row_id) {
  rescue_jdoc *rd = rescue_jdoc_new();
  rescue_row_input in;
  const rescue_jnode *rn, *bad = NULL;
  rescue_jerror je;
  sqlite3_stmt *s;
  int rc = 0, i;
  memset(&in, 0, sizeof in);
  if (!rd || !rescue_buf_ok(text)) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  rn = rescue_jparse(rd, text->s ? text->s : "", text->len, &je);
  if (!rn ||
      rescue_row_input_from_json(rescue_store_scheme(st), rn, &in, &bad, rescue_store_err(st))) {
    char why[512];
    snprintf(why, sizeof why, "%s", rn ? rescue_store_errmsg(st) : je.msg);
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "row %d after %s: %s", position, rel,
                       why);
    goto done;
  }
  if (!(s = rescue_store_stmt(st, "row_insert"))) {
    rc = rescue_store_err(st)->code;
    goto done;
  }
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":position", position);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "writing a row");
    goto done;
  }
  *row_id = sqlite3_last_insert_rowid(rescue_store_db(st));
  in.ref_rowset_id = L->rowset_id;
  if ((rc = rescue_store_add_row_version(st, *row_id, annotator_id, "edit", &in, NULL, NULL, NULL)))
    goto done;
  for (i = 0; i < n_parents && !rc; i++) {
    if (!(s = rescue_store_stmt(st, "row_origin_insert"))) {
      rc = rescue_store_err(st)->code;
      break;
    }
    rescue_bind_int(s, ":row_id", *row_id);
    rescue_bind_int(s, ":part", i + 1);
    rescue_bind_int(s, ":parent_id", parents[i]);
    rescue_bind_text(s, ":relation", rel, -1);
    if (sqlite3_step(s) != SQLITE_DONE)
      rc = rescue_store_sqlerr(st, "recording where a row came from");
  }
done:
  rescue_row_input_clear(&in);
  rescue_jdoc_free(&rd);
  return rc;
}

/*
** The row ids of the annotator's new row set after a SPLIT or MERGE (ids holds L->n + 1),
** new rows made as needed: a split row gives two new rows (lineage split); two halves of
** one split row merged back give the parent again (its id and versions); any other merge
** gives a new row (lineage merged); a merged row not changed since, split where its two
** rows met, gives those two again (their ids and versions: the merge undone). Inside the
** caller's transaction.
*/
static int reseg_ids(rescue_store *st, int64_t annotator_id, const rescue_view_sample *L,
                     const rescue_resegment *op, int64_t rowset_id, int64_t *ids, int *n_out) {
  rescue_buf texts[2] = {RESCUE_BUF_INIT, RESCUE_BUF_INIT};
  int k = op->row - 1, i, rc = 0, n = 0;
  for (i = 0; i < L->n && !rc; i++) {
    if (i != k) {
      ids[n++] = L->row_ids[i];
      continue;
    }
    if (op->op == RESCUE_RESEG_SPLIT) {
      int64_t p[2];
      if ((rc = merge_parents(st, L->row_ids[i], op->at, p)))
        break;
      if (p[0] && p[1]) { /* the merge undone: the two rows again */
        ids[n++] = p[0];
        ids[n++] = p[1];
        continue;
      }
      if ((rc = split_row(st, L->rows[i], op, texts, n + 1)))
        break;
      if (!(rc = reseg_new_row(st, L, rowset_id, n + 1, annotator_id, &texts[0], &L->row_ids[i], 1,
                               "split", &ids[n])))
        rc = reseg_new_row(st, L, rowset_id, n + 2, annotator_id, &texts[1], &L->row_ids[i], 1,
                           "split", &ids[n + 1]);
      n += 2;
    } else {
      int64_t p1, p2;
      if ((rc = split_parent(st, L->row_ids[i], &p1)) ||
          (rc = split_parent(st, L->row_ids[i + 1], &p2)))
        break;
      if (p1 && p1 == p2) {
        ids[n++] = p1; /* the two halves of one row: that row again */
      } else {
        merge_rows(L->rows[i], L->rows[i + 1], &texts[0], n + 1);
        rc = reseg_new_row(st, L, rowset_id, n + 1, annotator_id, &texts[0], &L->row_ids[i], 2,
                           "merged", &ids[n]);
        n++;
      }
      i++; /* the next row is merged in */
    }
  }
  rescue_buf_clear(&texts[0]);
  rescue_buf_clear(&texts[1]);
  *n_out = n;
  return rc;
}

/*
** Store a SPLIT or MERGE as annotator_id's own row set, in one transaction: a new row set
** of the rows of their view with the changed ones replaced, which becomes theirs
** (annotator_rowset). Nobody else's row set, versions or progress changes. The status,
** read in the transaction (reseg_status), decides the rest: a discarded sample refuses, a
** reviewed one is reopened (rescue_sample_reopen), as a save reopens it, and a new one is
** in review (a resegmentation is a first save too; a savepoint of its own, so the new row
** set stands even if the status cannot be written).
*/
static int reseg_store(rescue_store *st, const char *sample_id, int64_t annotator_id,
                       const rescue_view_sample *L, const rescue_resegment *op, int *n_out) {
  int64_t *ids = rescue_calloc((size_t)L->n + 2, sizeof *ids), rowset_id;
  sqlite3_stmt *s;
  char now[32], status[16];
  int rc, i;
  if (!ids)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if ((rc = rescue_store_begin(st)))
    goto done;
  if ((rc = reseg_status(st, sample_id, status)))
    goto fail;
  if (!(s = rescue_store_stmt(st, "rowset_insert"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_now_iso(now);
  rescue_bind_int(s, ":sample_ref", L->ref);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_int(s, ":n_rows", L->n + (op->op == RESCUE_RESEG_SPLIT ? 1 : -1));
  rescue_bind_text(s, ":note", op_name(op->op), -1);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "writing a row set");
    goto fail;
  }
  rowset_id = sqlite3_last_insert_rowid(rescue_store_db(st));
  if ((rc = reseg_ids(st, annotator_id, L, op, rowset_id, ids, n_out)))
    goto fail;
  for (i = 0; i < *n_out; i++)
    if ((rc = rescue_store_member_insert(st, rowset_id, i + 1, ids[i])))
      goto fail;
  if ((rc = rescue_store_point_rowset(st, L->ref, annotator_id, rowset_id)) ||
      (rc = rescue_sample_reopen(st, sample_id, annotator_id,
                                 op->op == RESCUE_RESEG_SPLIT ? "reopened: a row was split"
                                                              : "reopened: two rows were merged",
                                 NULL)))
    goto fail;
  if (strcmp(status, "new") == 0)
    rescue_sample_set_status(st, sample_id, "in_review", NULL, annotator_id);
  if ((rc = rescue_store_commit(st)))
    goto fail;
  goto done;
fail:
  rescue_store_rollback(st);
done:
  rescue_free(ids);
  return rc;
}

int rescue_sample_resegment(rescue_store *st, const char *sample_id, int64_t annotator_id,
                            const rescue_resegment *op, int *n_rows, int64_t *version) {
  rescue_view_sample L;
  int rc, n_out = 0;
  if (n_rows)
    *n_rows = 0;
  if (version)
    *version = 0;
  if ((rc = rescue_view_sample_load(st, sample_id, annotator_id, &L)) ||
      (rc = reseg_check(st, &L, op)))
    goto done;
  if (op->op == RESCUE_RESEG_TIMES) {
    if (!(rc = reseg_times(st, sample_id, annotator_id, &L, op, version)) && n_rows)
      *n_rows = L.n;
    goto done;
  }
  if ((rc = reseg_store(st, sample_id, annotator_id, &L, op, &n_out)))
    goto done;
  if (n_rows)
    *n_rows = n_out;
done:
  rescue_view_sample_clear(&L);
  return rc;
}
