/*
** adjudicate.c: decide each row's gold content from the coders' views, field by field
** (fields the coders agree on at once; majority, or a lead's recorded decisions, for the
** rest; a lead's whole version only under the lead policy), and write a gold version once
** a row's last field is decided, all in one transaction. Undecided fields are reported
** with every coder's value, never settled silently.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "adjudicate_int.h"
#include "agree_int.h"
#include "rescue_adjudicate.h"
#include "rescue_alloc.h"
#include "rescue_annotators.h"
#include "curate_int.h"
#include "store_int.h"

static const char *const policy_names[] = {"lead", "majority", "latest"};

int rescue_adj_policy_parse(const char *name, rescue_adj_policy *out) {
  int i;
  for (i = 0; i < 3; i++)
    if (strcmp(name, policy_names[i]) == 0) {
      *out = (rescue_adj_policy)i;
      return 0;
    }
  return RESCUE_EINVAL;
}

const char *rescue_adj_policy_name(rescue_adj_policy p) {
  switch (p) {
  case RESCUE_ADJ_LEAD:
  case RESCUE_ADJ_MAJORITY:
  case RESCUE_ADJ_LATEST: return policy_names[p];
  }
  return "unknown";
}

/* A coder and their view of the sample being decided. */
typedef struct coder {
  int64_t id;
  char *name;
  int is_lead; /* lead policy: the lead (decides by a version, not a vote) */
  rescue_sample_iter *it;
  const rescue_sample *cur;
  int covers; /* saved a version of this sample's rows (or their origins) */
  rescue_jdoc *doc;
  const rescue_jnode *row; /* their row at the position being decided, or NULL */
  const rescue_row *vrow;
} coder;

typedef struct adj {
  rescue_store *st;
  const rescue_adjudicate_opts *o;
  rescue_adjudicate_result *res;
  int64_t lead_id, adj_id;
  coder *c;
  int K, cap_c;
  rescue_sample_iter *driver; /* the latest view: sample list, row ids, the latest policy */
  rescue_jdoc *gdoc;
  rescue_row_input in;
  rescue_buf msg, sources, gold, vals;
  const char **keys; /* fields of the row being decided */
  int n_keys, cap_keys, cap_decided, cap_state;
  size_t *voff; /* per (field, coder): offset into vals, or (size_t)-1 */
  int cap_voff;
  size_t *decided; /* per field: offset into vals of the decided value, or -1 */
  int *state;      /* per field: 0 undecided, 1 decided */
  int **rt;        /* in a gold row set: per coder, where references to their rows go (or NULL) */
  const rescue_sample *g; /* in a gold row set: the gold rows (or NULL) */
} adj;

static int nomem(adj *a) { return rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL); }

/* Append an undecided row; fields are added to it afterwards (add_field). */
static int undecided(adj *a, const char *sample_id, int row, const char *reason) {
  rescue_adjudicate_result *r = a->res;
  rescue_adj_undecided *u;
  if (RESCUE_ALLOC_GROW(r->undecided, r->n_undecided + 1, r->cap_undecided))
    return nomem(a);
  u = &r->undecided[r->n_undecided];
  memset(u, 0, sizeof *u);
  u->sample_id = rescue_strdup(sample_id);
  u->reason = rescue_strdup(reason);
  u->row = row;
  r->n_undecided++;
  if (!u->sample_id || !u->reason)
    return nomem(a);
  return 0;
}

/* Add field k of the current row, with every viewing coder's value, to the last undecided. */
static int add_field(adj *a, int k) {
  rescue_adj_undecided *u = &a->res->undecided[a->res->n_undecided - 1];
  rescue_adj_field *f, *nf = rescue_realloc(u->fields, ((size_t)u->n_fields + 1) * sizeof *nf);
  int c;
  if (!nf)
    return nomem(a);
  u->fields = nf;
  f = &u->fields[u->n_fields++];
  memset(f, 0, sizeof *f);
  if (!(f->field = rescue_strdup(a->keys[k])) ||
      !(f->values = rescue_calloc((size_t)a->K + 1, sizeof *f->values)))
    return nomem(a);
  for (c = 0; c < a->K; c++) {
    size_t off = a->voff[(size_t)k * (size_t)a->K + (size_t)c];
    rescue_adj_value *v;
    if (!a->c[c].row || a->c[c].is_lead)
      continue;
    v = &f->values[f->n_values++];
    v->coder = rescue_strdup(a->c[c].name);
    v->value = off == (size_t)-1 ? NULL : rescue_strdup(a->vals.s + off);
    if (!v->coder || (off != (size_t)-1 && !v->value))
      return nomem(a);
  }
  return 0;
}

/* Sort source ids ascending and drop repeats; returns the new count. */
static int uniq_ids(int64_t *v, int n) {
  int i, j, k = 0;
  for (i = 1; i < n; i++)
    for (j = i; j > 0 && v[j - 1] > v[j]; j--) {
      int64_t t = v[j];
      v[j] = v[j - 1];
      v[j - 1] = t;
    }
  for (i = 0; i < n; i++)
    if (!k || v[k - 1] != v[i])
      v[k++] = v[i];
  return k;
}

/* A coder of an adjudication, for rescue_gold_refs_write's look-ups. */
typedef struct coder_refs {
  const adj *a;
  int c;
} coder_refs;

/* The index of coder x->c's row at position pos, or -1 (rescue_gold_refs_write). */
static int coder_row_at(void *ctx, int pos) {
  const coder_refs *x = ctx;
  const rescue_sample *cs = x->a->c[x->c].cur;
  for (int i = 0; i < cs->n; i++)
    if (cs->rows[i].position == pos)
      return i;
  return -1;
}

/* The position of gold row i (rescue_gold_refs_write). */
static int gold_position(void *ctx, int i) {
  return ((const coder_refs *)ctx)->a->g->rows[i].position;
}

/*
** Write to out coder c's value v of an ints field (row numbers) as the gold row set numbers
** its rows (rescue_gold_refs_write, with where their references go in a->rt). Outside a
** gold row set the value as it is.
*/
static int remap_value(adj *a, int c, const rescue_jnode *v, rescue_buf *out) {
  coder_refs x = {a, c};
  if (!a->g || !a->rt || !a->rt[c] || v->type != RESCUE_JARRAY) {
    rescue_jwrite(out, v);
    return 0;
  }
  return rescue_gold_refs_write(out, v, a->rt[c], a->g->n, coder_row_at, gold_position, &x);
}

/*
** Write to out, as one JSON array, each voting coder's row as the gold row (root) numbers
** rows: its row_index the gold row's, its row references renumbered (remap_value). 0 or
** RESCUE_ENOMEM.
*/
static int voters_as_gold(adj *a, const rescue_jnode *root, rescue_buf *out) {
  const rescue_scheme *sc = rescue_store_scheme(a->st);
  const rescue_jnode *gi = rescue_jget(root, "row_index"), *m;
  int c, n = 0, k, rc = 0;
  rescue_buf_putc(out, '[');
  for (c = 0; c < a->K; c++) {
    if (!a->c[c].row || a->c[c].is_lead)
      continue;
    rescue_buf_puts(out, n++ ? ", {" : "{");
    for (m = a->c[c].row->child, k = 0; m && !rc; m = m->next, k++) {
      const rescue_field *f = rescue_scheme_field(sc, m->key);
      if (k)
        rescue_buf_puts(out, ", ");
      rescue_jwrite_string(out, m->key, strlen(m->key));
      rescue_buf_puts(out, ": ");
      if (gi && strcmp(m->key, "row_index") == 0)
        rescue_jwrite(out, gi);
      else if (f && f->type == RESCUE_F_INTS)
        rc = remap_value(a, c, m, out);
      else
        rescue_jwrite(out, m);
    }
    rescue_buf_putc(out, '}');
  }
  rescue_buf_putc(out, ']');
  return rc;
}

/*
** Record where each value of gold version vid (content root) came from (curate_int.h),
** each voter's row compared as the gold row set numbers rows (voters_as_gold): a value
** they agree on is agreed, whatever their own row numbers.
*/
static int gold_provenance(adj *a, int64_t vid, int64_t row_id, const rescue_jnode *root) {
  const rescue_jnode **rows = rescue_calloc((size_t)a->K + 1, sizeof *rows), *arr, *e;
  rescue_buf text = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_jerror je;
  int n = 0, rc;
  if (!rows || !doc) {
    rc = nomem(a);
    goto end;
  }
  if (voters_as_gold(a, root, &text) || !rescue_buf_ok(&text)) {
    rc = nomem(a);
    goto end;
  }
  if (!(arr = rescue_jparse(doc, text.s, text.len, &je))) {
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL,
                       "a coder's row does not parse: %s", je.msg);
    goto end;
  }
  for (e = arr->child; e; e = e->next)
    rows[n++] = e;
  rc = rescue_curate_policy_provenance(a->st, vid, row_id, root, rows, n,
                                       rescue_adj_policy_name(a->o->policy), a->lead_id);
end:
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&text);
  rescue_free(rows);
  return rc;
}

/*
** Write a gold version of row_id with content text[0..len) unless the current gold already
** is it (with lead decisions in force: unless the last gold a policy wrote is it, the
** decisions then replayed over it). src: the versions it was decided from.
*/
static int write_gold(adj *a, int64_t row_id, const char *text, size_t len, int64_t *src,
                      int n_src) {
  sqlite3_stmt *s;
  const rescue_jnode *root, *bad;
  rescue_jerror je;
  rescue_error *err = rescue_store_err(a->st);
  int64_t vid = 0;
  int i, rc, same = 0, parts = 0, kept = 0;
  /* a row with lead decisions in force (a field, an item, a part; whatever the policy): the
     policy's gold is compared with the last one a policy wrote, and the decisions are
     replayed over it (rescue_curate_keep_decisions) */
  if ((rc = rescue_curate_decisions_live(a->st, row_id, &parts)))
    return rc;
  if (!(s = rescue_store_stmt(a->st, parts ? "gold_baseline_of_row" : "gold_of_row")))
    return err->code;
  rescue_bind_int(s, ":row_id", row_id);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    same = (size_t)sqlite3_column_bytes(s, 0) == len &&
           memcmp(sqlite3_column_text(s, 0), text, len) == 0;
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(a->st, "reading gold");
  if (same) {
    a->res->unchanged++;
    return parts ? rescue_curate_keep_decisions(a->st, row_id, &kept) : 0;
  }
  root = rescue_jparse(a->gdoc, text, len, &je);
  if (!root)
    return rescue_seterr(err, RESCUE_EINTERNAL, "decided row does not parse: %s", je.msg);
  if ((rc = rescue_row_input_from_json(rescue_store_scheme(a->st), root, &a->in, &bad, err)))
    return rc;
  n_src = uniq_ids(src, n_src);
  rescue_buf_reset(&a->sources);
  rescue_buf_putc(&a->sources, '[');
  for (i = 0; i < n_src; i++)
    rescue_buf_printf(&a->sources, "%s%lld", i ? ", " : "", (long long)src[i]);
  rescue_buf_putc(&a->sources, ']');
  if (!rescue_buf_ok(&a->sources))
    return nomem(a);
  if ((rc = rescue_store_add_row_version(a->st, row_id, a->adj_id, "gold", &a->in,
                                         rescue_adj_policy_name(a->o->policy), a->sources.s,
                                         &vid)) ||
      (rc = gold_provenance(a, vid, row_id, root)))
    return rc;
  a->res->written++;
  return parts ? rescue_curate_keep_decisions(a->st, row_id, &kept) : 0;
}

/* The lead's latest decision on (row_id, field): 1 and *off set (or -1: key left out), 0 none. */
static int decision(adj *a, int64_t row_id, const char *field, size_t *off) {
  sqlite3_stmt *s = rescue_store_stmt(a->st, "field_decision_latest");
  int rc;
  if (!s)
    return rescue_store_err(a->st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  rescue_bind_text(s, ":field", field, -1);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    if (sqlite3_column_type(s, 0) == SQLITE_NULL) {
      *off = (size_t)-1;
    } else {
      *off = a->vals.len;
      rescue_buf_putn(&a->vals, sqlite3_column_text(s, 0), (size_t)sqlite3_column_bytes(s, 0));
      rescue_buf_putc(&a->vals, 0);
    }
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(a->st, "reading decisions");
  return rc == SQLITE_ROW;
}

/* Two value offsets hold the same value (-1: the key is absent). */
static int same_val(const adj *a, size_t x, size_t y) {
  if (x == (size_t)-1 || y == (size_t)-1)
    return x == y;
  return strcmp(a->vals.s + x, a->vals.s + y) == 0;
}

/* Collect the fields of the viewing voters' rows (first seen order) and their values. */
static int collect_fields(adj *a) {
  int c, k;
  a->n_keys = 0;
  rescue_buf_reset(&a->vals);
  rescue_buf_putc(&a->vals, 0);
  for (c = 0; c < a->K; c++) {
    const rescue_jnode *m;
    if (!a->c[c].row || a->c[c].is_lead)
      continue;
    for (m = a->c[c].row->child; m; m = m->next) {
      int dup = 0;
      for (k = 0; k < a->n_keys && !dup; k++)
        dup = strcmp(a->keys[k], m->key) == 0;
      if (dup)
        continue;
      if (RESCUE_ALLOC_GROW(a->keys, a->n_keys + 1, a->cap_keys) ||
          RESCUE_ALLOC_GROW(a->decided, a->n_keys + 1, a->cap_decided) ||
          RESCUE_ALLOC_GROW(a->state, a->n_keys + 1, a->cap_state))
        return nomem(a);
      a->keys[a->n_keys++] = m->key;
    }
  }
  if ((size_t)a->n_keys * (size_t)a->K > (size_t)a->cap_voff) {
    if (RESCUE_ALLOC_GROW(a->voff, (size_t)a->n_keys * (size_t)a->K, a->cap_voff))
      return nomem(a);
  }
  for (k = 0; k < a->n_keys; k++)
    for (c = 0; c < a->K; c++) {
      const rescue_jnode *v =
          a->c[c].row && !a->c[c].is_lead ? rescue_jget(a->c[c].row, a->keys[k]) : NULL;
      size_t *off = &a->voff[(size_t)k * (size_t)a->K + (size_t)c];
      *off = (size_t)-1;
      if (v) {
        *off = a->vals.len;
        rescue_jwrite(&a->vals, v);
        rescue_buf_putc(&a->vals, 0);
      }
    }
  return rescue_buf_ok(&a->vals) ? 0 : nomem(a);
}

/*
** Decide the fields of the current row: a lead's decision, else the value every voter
** shares, else (majority) the value most share. Returns the number still undecided, or
** a negative error.
*/
static int decide_fields(adj *a, int64_t row_id) {
  int k, c, open = 0, rc;
  for (k = 0; k < a->n_keys; k++) {
    size_t off = (size_t)-1;
    int best = -1, best_n = 0, tie = 0, all = 1, first = -1;
    a->state[k] = 0;
    if ((rc = decision(a, row_id, a->keys[k], &off)) < 0)
      return rc;
    if (rc == 1) {
      a->decided[k] = off;
      a->state[k] = 1;
      a->res->fields_decided++;
      continue;
    }
    for (c = 0; c < a->K; c++) {
      size_t v = a->voff[(size_t)k * (size_t)a->K + (size_t)c];
      int n = 0, d;
      if (!a->c[c].row || a->c[c].is_lead)
        continue;
      if (first < 0)
        first = c;
      else
        all &= same_val(a, v, a->voff[(size_t)k * (size_t)a->K + (size_t)first]);
      for (d = 0; d < a->K; d++)
        if (a->c[d].row && !a->c[d].is_lead &&
            same_val(a, v, a->voff[(size_t)k * (size_t)a->K + (size_t)d]))
          n++;
      if (n > best_n) {
        best = c;
        best_n = n;
        tie = 0;
      } else if (n == best_n && !same_val(a, v, a->voff[(size_t)k * (size_t)a->K + (size_t)best])) {
        tie = 1;
      }
    }
    if (first >= 0 && all) {
      a->decided[k] = a->voff[(size_t)k * (size_t)a->K + (size_t)first];
      a->state[k] = 1;
      a->res->fields_agreed++;
    } else if (a->o->policy == RESCUE_ADJ_MAJORITY && best >= 0 && !tie) {
      a->decided[k] = a->voff[(size_t)k * (size_t)a->K + (size_t)best];
      a->state[k] = 1;
      a->res->fields_decided++;
    } else {
      open++;
    }
  }
  return open;
}

/* The gold row from the decided fields, in field order (absent values left out). */
static void build_gold(adj *a) {
  int k, n = 0;
  rescue_buf_reset(&a->gold);
  rescue_buf_putc(&a->gold, '{');
  for (k = 0; k < a->n_keys; k++) {
    if (a->decided[k] == (size_t)-1)
      continue;
    if (n++)
      rescue_buf_puts(&a->gold, ", ");
    rescue_jwrite_string(&a->gold, a->keys[k], strlen(a->keys[k]));
    rescue_buf_puts(&a->gold, ": ");
    rescue_buf_puts(&a->gold, a->vals.s + a->decided[k]);
  }
  rescue_buf_putc(&a->gold, '}');
}

/*
** Find each covering coder's row at `position` of sample s and parse it (x->row, x->vrow;
** NULL for no vote). Sets *row_id to the row voted on (kept when nobody voted), *lead to
** the lead coder if they voted and *n_view to the other coders who voted. Returns 0 or an
** error code kept on the store handle.
*/
static int gather_votes(adj *a, const rescue_sample *s, int position, int64_t *row_id,
                        const coder **lead, int *n_view) {
  int c, i;
  for (c = 0; c < a->K; c++) {
    coder *x = &a->c[c];
    const rescue_sample *cs = x->cur;
    rescue_jerror je;
    x->row = NULL;
    x->vrow = NULL;
    if (!x->covers)
      continue;
    for (i = 0; i < cs->n && !x->vrow; i++)
      if (cs->rows[i].position == position)
        x->vrow = &cs->rows[i];
    if (!x->vrow || !rescue_gold_votes(x->vrow->origin)) {
      x->vrow = NULL;
      continue;
    }
    if (!(x->row = rescue_jparse(x->doc, x->vrow->content, x->vrow->content_len, &je)))
      return rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL,
                           "sample '%s' row %d: stored content does not parse: %s", s->sample_id,
                           position, je.msg);
    if (x->row->type != RESCUE_JOBJECT) {
      x->row = NULL;
      continue;
    }
    *row_id = x->vrow->row_id;
    if (x->is_lead)
      *lead = x;
    else
      (*n_view)++;
  }
  return 0;
}

/*
** The latest policy: the newest coder version of the row becomes gold; when nobody coded
** it, a non-gold version there is (drv, a model's draft), else the row is left undecided
** (or unchanged when it is gold already). src has room for one source. Returns 0 or an
** error code kept on the store handle.
*/
static int decide_latest(adj *a, const rescue_sample *s, int position, const rescue_row *drv,
                         int64_t row_id, int64_t *src) {
  const rescue_row *best = NULL;
  int c, rc = 0;
  for (c = 0; c < a->K; c++)
    if (a->c[c].vrow && (!best || a->c[c].vrow->version_id > best->version_id))
      best = a->c[c].vrow;
  if (!best && drv && strcmp(drv->kind, "gold") != 0)
    best = drv; /* nobody coded it: the latest version there is (a model's draft) */
  if (best) {
    src[0] = best->version_id;
    rc = write_gold(a, row_id, best->content, best->content_len, src, 1);
  } else if (!drv || strcmp(drv->kind, "gold") != 0) {
    rc = undecided(a, s->sample_id, position, "no coder worked on this sample");
  } else {
    a->res->unchanged++;
  }
  return rc;
}

/*
** A row with `open` fields the coders did not settle: say which in the undecided record
** and add those fields to it. Returns 0 or an error code kept on the store handle.
*/
static int leave_open(adj *a, const rescue_sample *s, int position, int open) {
  int c, i, rc;
  if (a->o->policy == RESCUE_ADJ_LEAD)
    rescue_buf_printf(&a->msg,
                      "the lead (%s) made no version and the coders differ in %d "
                      "field%s (",
                      a->res->lead, open, open == 1 ? "" : "s");
  else
    rescue_buf_printf(&a->msg, "no majority in %d field%s (", open, open == 1 ? "" : "s");
  for (i = 0, c = 0; i < a->n_keys; i++)
    if (!a->state[i])
      rescue_buf_printf(&a->msg, "%s%s", c++ ? ", " : "", a->keys[i]);
  rescue_buf_putc(&a->msg, ')');
  if (!rescue_buf_ok(&a->msg))
    return nomem(a);
  if ((rc = undecided(a, s->sample_id, position, a->msg.s)))
    return rc;
  for (i = 0; i < a->n_keys && !rc; i++)
    if (!a->state[i])
      rc = add_field(a, i);
  return rc;
}

/* Decide row `position` of the current sample; drv is the latest view's row (or NULL). */
static int decide_row(adj *a, const rescue_sample *s, int position, const rescue_row *drv) {
  int64_t *src = NULL, row_id = drv ? drv->row_id : 0;
  const coder *lead = NULL;
  int c, rc = 0, n_view = 0, n_src = 0, open;
  a->res->rows++;
  if ((rc = gather_votes(a, s, position, &row_id, &lead, &n_view)))
    return rc;
  if (!row_id)
    return 0;
  if (!(src = rescue_calloc((size_t)a->K + 2, sizeof *src)))
    return nomem(a);
  rescue_buf_reset(&a->msg);
  if (a->o->policy == RESCUE_ADJ_LATEST) {
    rc = decide_latest(a, s, position, drv, row_id, src);
    goto end;
  }
  if (lead && lead->vrow->annotator_id == a->lead_id) {
    src[0] = lead->vrow->version_id;
    rc = write_gold(a, row_id, lead->vrow->content, lead->vrow->content_len, src, 1);
    goto end;
  }
  if (!n_view) {
    if (a->o->policy == RESCUE_ADJ_LEAD)
      rescue_buf_printf(&a->msg,
                        "the lead (%s) made no version and no other coder worked on "
                        "this sample",
                        a->res->lead);
    else
      rescue_buf_puts(&a->msg, "no coder worked on this sample");
    rc = rescue_buf_ok(&a->msg) ? undecided(a, s->sample_id, position, a->msg.s) : nomem(a);
    goto end;
  }
  if ((rc = collect_fields(a)) || (open = decide_fields(a, row_id)) < 0) {
    rc = rc ? rc : open;
    goto end;
  }
  if (open == 0) {
    for (c = 0; c < a->K; c++)
      if (a->c[c].row && !a->c[c].is_lead)
        src[n_src++] = a->c[c].vrow->version_id;
    build_gold(a);
    rc = rescue_buf_ok(&a->gold) ? write_gold(a, row_id, a->gold.s, a->gold.len, src, n_src)
                                 : nomem(a);
    goto end;
  }
  rc = leave_open(a, s, position, open);
end:
  rescue_free(src);
  return rc;
}

/* Pick the lead for the lead policy: the one named (role lead), else the corpus's only lead. */
static int pick_lead(adj *a) {
  sqlite3_stmt *s;
  int rc, n = 0;
  rescue_buf names = RESCUE_BUF_INIT;
  if (a->o->lead) {
    if (strcmp(a->o->lead, RESCUE_ADJUDICATION_ANNOTATOR) == 0)
      return rescue_seterr(rescue_store_err(a->st), RESCUE_EINVAL,
                           "'%s' writes gold; name the person who leads", a->o->lead);
    const char *role = NULL;
    if ((rc = rescue_annotator_lookup(a->st, a->o->lead, &a->lead_id, &role, NULL)))
      return rc;
    /* the name is right, the corpus refuses it (exit 1, as for a retired annotator) */
    if (!role || strcmp(role, "lead") != 0)
      return rescue_seterr(rescue_store_err(a->st), RESCUE_EBADINPUT,
                           "'%s' is not a lead (role %s): the lead policy takes a lead's "
                           "versions",
                           a->o->lead, role ? role : "none");
    a->res->lead = rescue_strdup(a->o->lead);
    return a->res->lead ? 0 : nomem(a);
  }
  if (!(s = rescue_store_stmt(a->st, "annotator_leads")))
    return rescue_store_err(a->st)->code;
  rescue_bind_text(s, ":reserved", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (!n++) {
      a->lead_id = sqlite3_column_int64(s, 0);
      a->res->lead = rescue_strdup((const char *)sqlite3_column_text(s, 1));
    }
    rescue_buf_printf(&names, "%s%s", n > 1 ? ", " : "", (const char *)sqlite3_column_text(s, 1));
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_buf_clear(&names);
    return rescue_store_sqlerr(a->st, "reading leads");
  }
  if (n == 0)
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_ENOLEAD, "the corpus has no lead");
  else if (n > 1)
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_ELEADS, "the corpus has %d leads (%s)", n,
                       names.s ? names.s : "");
  else
    rc = a->res->lead ? 0 : nomem(a);
  rescue_buf_clear(&names);
  return rc;
}

/* Add a coder (id, name) to a->c; is_lead marks the lead of the lead policy. */
static int add_coder(adj *a, int64_t id, const char *name, int is_lead) {
  if (RESCUE_ALLOC_GROW(a->c, a->K + 1, a->cap_c))
    return nomem(a);
  memset(&a->c[a->K], 0, sizeof a->c[a->K]);
  a->c[a->K].id = id;
  a->c[a->K].is_lead = is_lead;
  a->c[a->K].name = rescue_strdup(name);
  a->K++;
  if (!a->c[a->K - 1].name || !(a->c[a->K - 1].doc = rescue_jdoc_new()))
    return nomem(a);
  return 0;
}

/* The coders: as named, else the default; under the lead policy the lead is added apart. */
static int pick_coders(adj *a) {
  int i, j, rc, have_lead = 0;
  if (a->o->n_coders > 0) {
    for (i = 0; i < a->o->n_coders; i++) {
      int64_t id;
      int retired = 0;
      for (j = 0; j < i; j++)
        if (strcmp(a->o->coders[i], a->o->coders[j]) == 0)
          return rescue_seterr(rescue_store_err(a->st), RESCUE_EINVAL, "coder '%s' is listed twice",
                               a->o->coders[i]);
      if ((rc = rescue_annotator_lookup(a->st, a->o->coders[i], &id, NULL, &retired)))
        return rc;
      if (retired)
        return rescue_seterr_arg(rescue_store_err(a->st), RESCUE_ERETIRED, a->o->coders[i],
                                 "coder '%s' is retired", a->o->coders[i]);
      if ((rc = add_coder(a, id, a->o->coders[i], a->lead_id && id == a->lead_id)))
        return rc;
      have_lead |= a->lead_id && id == a->lead_id;
    }
  } else {
    sqlite3_stmt *s = rescue_store_stmt(a->st, "default_coders");
    if (!s)
      return rescue_store_err(a->st)->code;
    rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
    rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      int64_t id = sqlite3_column_int64(s, 0);
      int is_lead = a->lead_id && id == a->lead_id;
      have_lead |= is_lead;
      if ((rc = add_coder(a, id, (const char *)sqlite3_column_text(s, 1), is_lead))) {
        sqlite3_reset(s);
        return rc;
      }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
      return rescue_store_sqlerr(a->st, "reading coders");
  }
  if (a->o->policy == RESCUE_ADJ_LEAD && !have_lead &&
      (rc = add_coder(a, a->lead_id, a->res->lead, 1)))
    return rc;
  if (!(a->res->coders = rescue_calloc((size_t)a->K + 1, sizeof *a->res->coders)))
    return nomem(a);
  for (i = 0; i < a->K; i++) {
    if (a->c[i].is_lead)
      continue;
    if (!(a->res->coders[a->res->n_coders] = rescue_strdup(a->c[i].name)))
      return nomem(a);
    a->res->n_coders++;
  }
  return 0;
}

/*
** Which coders saved a version of the rows of their own row set (the one their view
** shows: their own, else the base row set), or of the rows those came from.
*/
static int coverage(adj *a) {
  sqlite3_stmt *s = rescue_store_stmt(a->st, "rowset_coders");
  int c, rc = SQLITE_DONE;
  if (!s)
    return rescue_store_err(a->st)->code;
  for (c = 0; c < a->K; c++) {
    a->c[c].covers = 0;
    rescue_bind_int(s, ":rowset_id", a->c[c].cur->rowset_id);
    while ((rc = sqlite3_step(s)) == SQLITE_ROW)
      a->c[c].covers |= a->c[c].id == sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
      break;
  }
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(a->st, "reading coders");
}

/* ---- gold segmentation first (issue 22, item 7) ---- */

/* Index of key in a->keys, appended (undecided, no coder's value) when absent; or -1. */
static int key_slot(adj *a, const char *key) {
  int k;
  for (k = 0; k < a->n_keys; k++)
    if (strcmp(a->keys[k], key) == 0)
      return k;
  if (RESCUE_ALLOC_GROW(a->keys, a->n_keys + 1, a->cap_keys) ||
      RESCUE_ALLOC_GROW(a->decided, a->n_keys + 1, a->cap_decided) ||
      RESCUE_ALLOC_GROW(a->state, a->n_keys + 1, a->cap_state))
    return -1;
  a->keys[a->n_keys] = key;
  a->state[a->n_keys] = 0;
  return a->n_keys++;
}

/*
** Take the segmentation's fields from the gold row set's own row grow (at gold position
** `position`): they are decided whatever the coders say. Returns the number of other
** fields still undecided, or a negative error.
*/
static int seg_fields_from(adj *a, const rescue_jnode *grow, int position) {
  int i, k, open = 0;
  for (i = 0; rescue_gold_seg_fields[i]; i++) {
    const char *key = rescue_gold_seg_fields[i];
    const rescue_jnode *v = rescue_jget(grow, key);
    if (!v) {
      for (k = 0; k < a->n_keys; k++)
        if (strcmp(a->keys[k], key) == 0)
          a->decided[k] = (size_t)-1, a->state[k] = 1;
      continue;
    }
    if ((k = key_slot(a, v->key)) < 0)
      return nomem(a);
    a->decided[k] = a->vals.len;
    if (strcmp(key, "row_index") == 0)
      rescue_buf_printf(&a->vals, "%d", position);
    else
      rescue_jwrite(&a->vals, v);
    rescue_buf_putc(&a->vals, 0);
    a->state[k] = 1;
  }
  for (k = 0; k < a->n_keys; k++)
    open += !a->state[k];
  return rescue_buf_ok(&a->vals) ? open : nomem(a);
}

/*
** Decide every field as row's: coder c's whole version, its row references renumbered to
** gold positions (remap_value), or with c < 0 the gold row set's own row as it is.
*/
static int take_row(adj *a, const rescue_jnode *row, int c) {
  const rescue_jnode *m;
  int k;
  a->n_keys = 0;
  rescue_buf_reset(&a->vals);
  rescue_buf_putc(&a->vals, 0);
  for (m = row->child; m; m = m->next) {
    const rescue_field *f = c >= 0 ? rescue_scheme_field(rescue_store_scheme(a->st), m->key) : NULL;
    if ((k = key_slot(a, m->key)) < 0)
      return nomem(a);
    a->decided[k] = a->vals.len;
    a->state[k] = 1;
    if (f && f->type == RESCUE_F_INTS) {
      if (remap_value(a, c, m, &a->vals))
        return nomem(a);
    } else
      rescue_jwrite(&a->vals, m);
    rescue_buf_putc(&a->vals, 0);
  }
  return rescue_buf_ok(&a->vals) ? 0 : nomem(a);
}

/*
** Renumber the row references (fields of row numbers) of coder c's value to gold
** positions (remap_value, with a->rt and a->g).
*/
static int remap_refs(adj *a, int c) {
  int k;
  for (k = 0; k < a->n_keys; k++) {
    const rescue_field *f = rescue_scheme_field(rescue_store_scheme(a->st), a->keys[k]);
    const rescue_jnode *v = rescue_jget(a->c[c].row, a->keys[k]);
    if (!f || f->type != RESCUE_F_INTS || !v || v->type != RESCUE_JARRAY)
      continue;
    a->voff[(size_t)k * (size_t)a->K + (size_t)c] = a->vals.len;
    if (remap_value(a, c, v, &a->vals))
      return nomem(a);
    rescue_buf_putc(&a->vals, 0);
  }
  return rescue_buf_ok(&a->vals) ? 0 : nomem(a);
}

/* The alignment of one sample's coders to its gold row set. */
typedef struct seg_align {
  const rescue_sample *g; /* the gold row set, as its segmenter's view shows it */
  int **gm;               /* per coder: per gold row, their aligned row (index) or -1 */
  int **rt;               /* per coder: where references to their rows go (rescue_gold_align) */
  rescue_jdoc *gdoc;      /* the gold row set's own row being decided */
} seg_align;

/*
** Each covering coder's aligned row to gold row gi, parsed (x->row, x->vrow; a split or
** merged row they never saved does not vote: rescue_gold_votes). Sets *lead and *n_view
** as gather_votes does. Returns 0 or an error on the handle.
*/
static int aligned_votes(adj *a, const seg_align *al, int gi, const coder **lead, int *n_view) {
  int c;
  for (c = 0; c < a->K; c++) {
    coder *x = &a->c[c];
    const rescue_row *vr;
    rescue_jerror je;
    int j = x->covers && al->gm[c] ? al->gm[c][gi] : -1;
    x->row = NULL;
    x->vrow = NULL;
    if (j < 0)
      continue;
    vr = &x->cur->rows[j];
    if (!rescue_gold_votes(vr->origin))
      continue;
    if (!(x->row = rescue_jparse(x->doc, vr->content, vr->content_len, &je)))
      return rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL,
                           "sample '%s': stored content does not parse: %s", x->cur->sample_id,
                           je.msg);
    if (x->row->type != RESCUE_JOBJECT) {
      x->row = NULL;
      continue;
    }
    x->vrow = vr;
    if (x->is_lead)
      *lead = x;
    else
      (*n_view)++;
  }
  return 0;
}

/*
** Decide gold row gi of the gold row set: its segmentation's fields from the row itself,
** the others by the policy from the coders' aligned rows. Returns 0 or an error.
*/
static int decide_aligned_row(adj *a, const rescue_sample *s, const seg_align *al, int gi) {
  const rescue_row *gr = &al->g->rows[gi];
  const rescue_jnode *grow;
  const coder *lead = NULL;
  int64_t *src = NULL;
  rescue_jerror je;
  int c, rc = 0, n_view = 0, n_src = 0, open;
  a->res->rows++;
  if (!(grow = rescue_jparse(al->gdoc, gr->content, gr->content_len, &je)) ||
      grow->type != RESCUE_JOBJECT)
    return rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL,
                         "sample '%s' row %d: stored content does not parse", s->sample_id,
                         gr->position);
  if ((rc = aligned_votes(a, al, gi, &lead, &n_view)))
    return rc;
  if (!(src = rescue_calloc((size_t)a->K + 2, sizeof *src)))
    return nomem(a);
  src[n_src++] = gr->version_id;
  rescue_buf_reset(&a->msg);
  if (a->o->policy == RESCUE_ADJ_LATEST || (lead && lead->vrow->annotator_id == a->lead_id)) {
    const coder *best = lead;
    for (c = 0; c < a->K && a->o->policy == RESCUE_ADJ_LATEST; c++)
      if (a->c[c].vrow && (!best || a->c[c].vrow->version_id > best->vrow->version_id))
        best = &a->c[c];
    rc = take_row(a, best ? best->row : grow, best ? (int)(best - a->c) : -1);
    if (best)
      src[n_src++] = best->vrow->version_id;
  } else if (!n_view) {
    rc = undecided(a, s->sample_id, gr->position,
                   "no coder's row aligns with this row of the gold segmentation");
    goto end;
  } else {
    for (c = 0; c < a->K && !rc; c++)
      if (a->c[c].row && !a->c[c].is_lead)
        src[n_src++] = a->c[c].vrow->version_id;
    if (!(rc = collect_fields(a)))
      for (c = 0; c < a->K && !rc; c++)
        if (a->c[c].row && !a->c[c].is_lead)
          rc = remap_refs(a, c);
    if (!rc && (open = decide_fields(a, gr->row_id)) < 0)
      rc = open;
  }
  if (rc || (open = seg_fields_from(a, grow, gr->position)) < 0) {
    rc = rc ? rc : open;
    goto end;
  }
  if (open == 0) {
    build_gold(a);
    rc = rescue_buf_ok(&a->gold) ? write_gold(a, gr->row_id, a->gold.s, a->gold.len, src, n_src)
                                 : nomem(a);
  } else {
    rc = leave_open(a, s, gr->position, open);
  }
end:
  rescue_free(src);
  return rc;
}

/* Free what align_coders allocated. */
static void seg_align_clear(adj *a, seg_align *al) {
  int c;
  for (c = 0; c < a->K; c++) {
    if (al->gm)
      rescue_free(al->gm[c]);
    if (al->rt)
      rescue_free(al->rt[c]);
  }
  rescue_free(al->gm);
  rescue_free(al->rt);
  rescue_jdoc_free(&al->gdoc);
}

int rescue_gold_align(const double *gs, const double *ge, int ng, const double *cs,
                      const double *ce, int nc, int **gm, int **rt) {
  int *cm = rescue_calloc((size_t)nc + 1, sizeof *cm);
  *gm = rescue_calloc((size_t)ng + 1, sizeof **gm);
  *rt = rescue_calloc((size_t)ng + (size_t)nc + 1, sizeof **rt);
  if (!cm || !*gm || !*rt || rescue_align_rows(gs, ge, ng, cs, ce, nc, *gm, cm) < 0) {
    rescue_free(cm);
    rescue_free(*gm);
    rescue_free(*rt);
    *gm = *rt = NULL;
    return RESCUE_ENOMEM;
  }
  /* a gold row: its partner, else the coder's row it overlaps most */
  for (int i = 0; i < ng; i++) {
    double best = 0;
    (*rt)[i] = (*gm)[i];
    for (int j = 0; j < nc && (*gm)[i] < 0; j++) {
      double o = fmin(ce[j], ge[i]) - fmax(cs[j], gs[i]);
      if (o > best)
        best = o, (*rt)[i] = j;
    }
  }
  /* a coder's row no gold row takes: the gold row it overlaps most */
  for (int j = 0; j < nc; j++) {
    double best = 0;
    int taken = 0;
    (*rt)[ng + j] = -1;
    for (int i = 0; i < ng && !taken; i++)
      taken = (*rt)[i] == j;
    for (int i = 0; i < ng && !taken; i++) {
      double o = fmin(ce[j], ge[i]) - fmax(cs[j], gs[i]);
      if (o > best)
        best = o, (*rt)[ng + j] = i;
    }
  }
  rescue_free(cm);
  return 0;
}

int rescue_gold_votes(int origin) {
  /* a split or merged row they never saved holds their old row's labels: they never judged
     this span */
  return origin != RESCUE_ROW_SPLIT && origin != RESCUE_ROW_MERGED;
}

int rescue_gold_refs_write(rescue_buf *out, const rescue_jnode *v, const int *rt, int ng,
                           int (*row_at)(void *ctx, int pos), int (*gold_pos)(void *ctx, int i),
                           void *ctx) {
  unsigned char *done = rescue_calloc((size_t)ng + 1, 1);
  const rescue_jnode *e;
  int n = 0;
  if (!done)
    return RESCUE_ENOMEM;
  rescue_buf_putc(out, '[');
  for (e = v->child; e; e = e->next) {
    int j = e->type == RESCUE_JNUMBER && e->is_int ? row_at(ctx, (int)e->num) : -1, any = 0;
    if (j < 0) { /* no row of theirs: it never resolved, written as it is */
      rescue_buf_puts(out, n++ ? ", " : "");
      rescue_jwrite(out, e);
      continue;
    }
    for (int i = 0; i <= ng; i++) {
      int g = i < ng ? (rt[i] == j ? i : -1) : any ? -1 : rt[ng + j];
      if (g < 0)
        continue;
      any = 1;
      if (done[g])
        continue;
      done[g] = 1;
      rescue_buf_printf(out, "%s%d", n++ ? ", " : "", gold_pos(ctx, g));
    }
  }
  rescue_buf_putc(out, ']');
  rescue_free(done);
  return 0;
}

/* Align every covering coder's rows (their own row set) to the gold rows of al->g. */
static int align_coders(adj *a, seg_align *al) {
  const rescue_sample *g = al->g;
  double *gs = NULL, *ge = NULL, *cs = NULL, *ce = NULL;
  int c, i, rc = 0;
  al->gm = rescue_calloc((size_t)a->K + 1, sizeof *al->gm);
  al->rt = rescue_calloc((size_t)a->K + 1, sizeof *al->rt);
  gs = rescue_calloc((size_t)g->n + 1, sizeof *gs);
  ge = rescue_calloc((size_t)g->n + 1, sizeof *ge);
  if (!al->gm || !al->rt || !gs || !ge || !(al->gdoc = rescue_jdoc_new())) {
    rc = nomem(a);
    goto end;
  }
  for (i = 0; i < g->n; i++)
    gs[i] = g->rows[i].start_time, ge[i] = g->rows[i].end_time;
  for (c = 0; c < a->K && !rc; c++) {
    const rescue_sample *x = a->c[c].cur;
    if (!a->c[c].covers)
      continue;
    rescue_free(cs);
    rescue_free(ce);
    cs = rescue_calloc((size_t)x->n + 1, sizeof *cs);
    ce = rescue_calloc((size_t)x->n + 1, sizeof *ce);
    if (!cs || !ce) {
      rc = nomem(a);
      break;
    }
    for (i = 0; i < x->n; i++)
      cs[i] = x->rows[i].start_time, ce[i] = x->rows[i].end_time;
    if (rescue_gold_align(gs, ge, g->n, cs, ce, x->n, &al->gm[c], &al->rt[c]))
      rc = nomem(a);
  }
end:
  rescue_free(gs);
  rescue_free(ge);
  rescue_free(cs);
  rescue_free(ce);
  return rc;
}

/*
** Adjudicate sample s in its gold row set (gold_rowset, segmented by segmenter): the gold
** rows as the segmenter's view shows them, each decided from the coders' aligned rows.
*/
static int run_aligned(adj *a, const rescue_sample *s, int64_t gold_rowset, int64_t segmenter) {
  rescue_view v = {
      .kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = segmenter, .rowset_id = gold_rowset};
  rescue_sample_iter *it = NULL;
  const char *one[1] = {s->sample_id};
  seg_align al;
  int rc, i;
  memset(&al, 0, sizeof al);
  if ((rc = rescue_sample_iter_new(a->st, &v, one, 1, &it)))
    return rc;
  if ((rc = rescue_sample_iter_next(it, &al.g)) != 1) {
    rescue_sample_iter_free(&it);
    return rc < 0 ? rc
                  : rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL,
                                  "sample '%s': no gold row set", s->sample_id);
  }
  rc = align_coders(a, &al);
  a->rt = al.rt;
  a->g = al.g;
  for (i = 0; i < al.g->n && !rc; i++)
    rc = decide_aligned_row(a, s, &al, i);
  a->rt = NULL;
  a->g = NULL;
  seg_align_clear(a, &al);
  rescue_sample_iter_free(&it);
  return rc;
}

/*
** A sample that waits for a lead: an undecided entry with row 0 saying why (its coders'
** row sets differ, and the reason in a->msg).
*/
static int seg_waits(adj *a, const rescue_sample *s) {
  a->res->waiting++;
  return rescue_buf_ok(&a->msg) ? undecided(a, s->sample_id, 0, a->msg.s) : nomem(a);
}

/*
** Settle sample s's segmentation before its fields: set the gold row set when
** o->segmentation asks for it (named samples, or samples whose coders' row sets differ),
** then adjudicate in the gold row set when there is one (*done 1), else leave a sample
** whose coders' row sets differ for a lead (*done 1); *done 0: the base row set as before.
*/
static int seg_sample(adj *a, const rescue_sample *s, int named, int *done) {
  int64_t *ids = NULL, gold = 0, segmenter = 0;
  char **names = NULL;
  int c, rc, differ = 0, waits = 0, changed = 0;
  *done = 0;
  for (c = 0; c < a->K; c++)
    differ |= a->c[c].covers && a->c[c].cur->rowset_id != s->rowset_id;
  rescue_buf_reset(&a->msg);
  if (a->o->segmentation && (named || differ)) {
    ids = rescue_calloc((size_t)a->K + 1, sizeof *ids);
    names = rescue_calloc((size_t)a->K + 1, sizeof *names);
    for (c = 0; ids && names && c < a->K; c++)
      ids[c] = a->c[c].id, names[c] = a->c[c].name;
    rc = !ids || !names ? nomem(a)
                        : rescue_gold_seg_apply(a->st, s->ref, s->sample_id, a->o->segmentation,
                                                ids, names, a->K, &waits, &changed, &a->msg);
    rescue_free(ids);
    rescue_free(names);
    if (rc)
      return rc;
    a->res->segmentations += changed;
    if (waits) {
      *done = 1;
      return seg_waits(a, s);
    }
  }
  if ((rc = rescue_gold_rowset(a->st, s->ref, &gold, &segmenter)) < 0)
    return rc;
  if (rc == 1) {
    *done = 1;
    return run_aligned(a, s, gold, segmenter);
  }
  if (!differ)
    return 0;
  *done = 1;
  rescue_buf_puts(&a->msg, "the coders' row sets differ and the sample has no gold "
                           "segmentation: a lead chooses a coder's, the draft's or the majority's");
  return seg_waits(a, s);
}

/* Adjudicate the samples (all, or samples[0..n)) inside the caller's transaction. */
static int run(adj *a, const char *const *samples, int n_samples) {
  rescue_view latest = {.kind = RESCUE_VIEW_LATEST, .base = 1};
  const rescue_sample *s;
  int c, rc;
  if ((rc = rescue_sample_iter_new(a->st, &latest, samples, n_samples, &a->driver)))
    return rc;
  for (c = 0; c < a->K; c++) {
    rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = a->c[c].id};
    if ((rc = rescue_sample_iter_new(a->st, &v, samples, n_samples, &a->c[c].it)))
      return rc;
  }
  while ((rc = rescue_sample_iter_next(a->driver, &s)) == 1) {
    int i, p, named = 0, done = 0;
    for (c = 0; c < a->K; c++)
      if ((rc = rescue_sample_iter_next(a->c[c].it, &a->c[c].cur)) != 1)
        return rc < 0
                   ? rc
                   : rescue_seterr(rescue_store_err(a->st), RESCUE_EINTERNAL, "views out of step");
    for (i = 0; i < n_samples; i++)
      named |= strcmp(samples[i], s->sample_id) == 0;
    if (strcmp(s->status, "discarded") == 0 && !named)
      continue;
    a->res->samples++;
    if ((rc = coverage(a)) || (rc = seg_sample(a, s, named, &done)))
      return rc;
    if (done)
      continue;
    for (p = 1; p <= s->n_rows; p++) {
      const rescue_row *drv = NULL;
      for (i = 0; i < s->n && !drv; i++)
        if (s->rows[i].position == p)
          drv = &s->rows[i];
      if ((rc = decide_row(a, s, p, drv)))
        return rc;
    }
  }
  return rc < 0 ? rc : 0;
}

static void adj_free(adj *a) {
  int c;
  rescue_sample_iter_free(&a->driver);
  for (c = 0; c < a->K; c++) {
    rescue_sample_iter_free(&a->c[c].it);
    rescue_jdoc_free(&a->c[c].doc);
    rescue_free(a->c[c].name);
  }
  rescue_free(a->c);
  rescue_jdoc_free(&a->gdoc);
  rescue_row_input_clear(&a->in);
  rescue_buf_clear(&a->msg);
  rescue_buf_clear(&a->sources);
  rescue_buf_clear(&a->gold);
  rescue_buf_clear(&a->vals);
  rescue_free(a->keys);
  rescue_free(a->voff);
  rescue_free(a->decided);
  rescue_free(a->state);
}

/* Set up, pick the lead and coders, and begin the transaction. */
static int start(adj *a, rescue_store *st, const rescue_adjudicate_opts *o,
                 rescue_adjudicate_result *res) {
  int rc;
  memset(a, 0, sizeof *a);
  memset(res, 0, sizeof *res);
  a->st = st;
  a->o = o;
  a->res = res;
  if (!(a->gdoc = rescue_jdoc_new()))
    return nomem(a);
  if (o->policy == RESCUE_ADJ_LEAD && (rc = pick_lead(a)))
    return rc;
  if ((rc = pick_coders(a)))
    return rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = rescue_annotator_id(st, RESCUE_ADJUDICATION_ANNOTATOR, "lead", 1, &a->adj_id))) {
    rescue_store_rollback(st);
    return rc;
  }
  return 0;
}

/* The audit record of a run that writes, inside its transaction (rescue_audit.h). */
static int adj_audit(rescue_store *st, const rescue_adjudicate_opts *o, const char *lead,
                     const rescue_adjudicate_result *res) {
  rescue_audit_entry e = {0};
  char detail[300];
  snprintf(detail, sizeof detail, "policy %s%s%.64s: %ld gold versions written, %d undecided",
           rescue_adj_policy_name(o->policy), o->segmentation ? ", segmentation " : "",
           o->segmentation ? o->segmentation : "", res->written, res->n_undecided);
  e.action = "adjudicate";
  e.annotator = lead;
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

/* Commit (or roll back a dry run / a failure). */
static int finish(adj *a, int rc) {
  rescue_sample_iter_free(&a->driver);
  for (int c = 0; c < a->K; c++)
    rescue_sample_iter_free(&a->c[c].it);
  if (!rc && !a->o->dry_run)
    rc = adj_audit(a->st, a->o, a->res->lead ? a->res->lead : a->o->lead, a->res);
  if (rc || a->o->dry_run)
    rescue_store_rollback(a->st);
  else
    rc = rescue_store_commit(a->st);
  return rc;
}

int rescue_adjudicate(rescue_store *st, const rescue_adjudicate_opts *o,
                      rescue_adjudicate_result *res) {
  adj a;
  int rc = start(&a, st, o, res);
  if (!rc)
    rc = finish(&a, run(&a, o->samples, o->n_samples));
  adj_free(&a);
  if (rc)
    rescue_adjudicate_result_clear(res);
  return rc;
}

void rescue_adjudicate_result_clear(rescue_adjudicate_result *res) {
  int i, f, k;
  for (i = 0; i < res->n_undecided; i++) {
    rescue_adj_undecided *u = &res->undecided[i];
    rescue_free(u->sample_id);
    rescue_free(u->reason);
    for (f = 0; f < u->n_fields; f++) {
      for (k = 0; k < u->fields[f].n_values; k++) {
        rescue_free(u->fields[f].values[k].coder);
        rescue_free(u->fields[f].values[k].value);
      }
      rescue_free(u->fields[f].values);
      rescue_free(u->fields[f].field);
    }
    rescue_free(u->fields);
  }
  for (i = 0; i < res->n_coders; i++)
    rescue_free(res->coders[i]);
  rescue_free(res->coders);
  rescue_free(res->undecided);
  rescue_free(res->lead);
  memset(res, 0, sizeof *res);
}

void rescue_adjudicate_result_json(const rescue_adjudicate_opts *o,
                                   const rescue_adjudicate_result *res, rescue_buf *out) {
  rescue_jw w;
  int i, f, k;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "policy");
  rescue_jw_str(&w, rescue_adj_policy_name(o->policy));
  rescue_jw_key(&w, "lead");
  if (res->lead)
    rescue_jw_str(&w, res->lead);
  else
    rescue_jw_null(&w);
  rescue_jw_key(&w, "annotator");
  rescue_jw_str(&w, RESCUE_ADJUDICATION_ANNOTATOR);
  rescue_jw_key(&w, "dry_run");
  rescue_jw_bool(&w, o->dry_run);
  rescue_jw_key(&w, "coders");
  rescue_jw_arr(&w);
  for (i = 0; i < res->n_coders; i++)
    rescue_jw_str(&w, res->coders[i]);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_int(&w, res->samples);
  rescue_jw_key(&w, "rows");
  rescue_jw_int(&w, res->rows);
  rescue_jw_key(&w, "written");
  rescue_jw_int(&w, res->written);
  rescue_jw_key(&w, "unchanged");
  rescue_jw_int(&w, res->unchanged);
  rescue_jw_key(&w, "fields_agreed");
  rescue_jw_int(&w, res->fields_agreed);
  rescue_jw_key(&w, "fields_decided");
  rescue_jw_int(&w, res->fields_decided);
  rescue_jw_key(&w, "decisions");
  rescue_jw_int(&w, res->decisions);
  rescue_jw_key(&w, "segmentation");
  if (o->segmentation)
    rescue_jw_str(&w, o->segmentation);
  else
    rescue_jw_null(&w);
  rescue_jw_key(&w, "segmentations");
  rescue_jw_int(&w, res->segmentations);
  rescue_jw_key(&w, "waiting");
  rescue_jw_int(&w, res->waiting);
  rescue_jw_key(&w, "undecided");
  rescue_jw_arr(&w);
  for (i = 0; i < res->n_undecided; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "sample");
    rescue_jw_str(&w, res->undecided[i].sample_id);
    rescue_jw_key(&w, "row");
    rescue_jw_int(&w, res->undecided[i].row);
    rescue_jw_key(&w, "reason");
    rescue_jw_str(&w, res->undecided[i].reason);
    rescue_jw_key(&w, "fields");
    rescue_jw_arr(&w);
    for (f = 0; f < res->undecided[i].n_fields; f++) {
      const rescue_adj_field *fd = &res->undecided[i].fields[f];
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "field");
      rescue_jw_str(&w, fd->field);
      rescue_jw_key(&w, "values");
      rescue_jw_arr(&w);
      for (k = 0; k < fd->n_values; k++) {
        rescue_jw_obj(&w);
        rescue_jw_key(&w, "coder");
        rescue_jw_str(&w, fd->values[k].coder);
        rescue_jw_key(&w, "value");
        if (fd->values[k].value)
          rescue_jw_raw(&w, fd->values[k].value, strlen(fd->values[k].value));
        else
          rescue_jw_null(&w);
        rescue_jw_key(&w, "present");
        rescue_jw_bool(&w, fd->values[k].value != NULL);
        rescue_jw_end(&w);
      }
      rescue_jw_end(&w);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
