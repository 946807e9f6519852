/*
** row_ref.c: references follow rows (issue 22). The numbers of a row's row-number lists
** (the scheme's `ints` fields: relation_pattern_evidence_rows, relation_cycle_evidence_rows)
** are positions in the row set their writer saw. When a version is written, each number
** that names a row of that row set is stored as the row's stable id (table row_ref); the
** content keeps the numbers verbatim. When a version is shown in a row set, each stored id
** is written as its position there: a row that was split as both halves, rows that were
** merged as the merged row, a row that is in no form in the row set is left out and
** reported (lint R13). A list is rewritten only when a number changes, so a version shown
** in the row set it was written in comes back byte for byte (corpus/FORMAT.md §4.1).
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "rescue_alloc.h"
#include "store_int.h"

/* Lineage is followed at most this deep (a row split again and again). */
#define REF_DEPTH 16

/* Is `key` one of the scheme's top-level row-number lists? */
static int ints_field(const rescue_scheme *sc, const char *key) {
  const rescue_field *f = sc ? rescue_scheme_field(sc, key) : NULL;
  return f && f->type == RESCUE_F_INTS;
}

int rescue_refs_maybe(const rescue_scheme *sc, const char *content) {
  int i;
  if (!sc || !content)
    return 0;
  for (i = 0; i < sc->n_fields; i++) {
    const rescue_field *f = &sc->fields[i];
    size_t kl = strlen(f->key);
    const char *p = content;
    if (f->type != RESCUE_F_INTS)
      continue;
    while ((p = strstr(p, f->key)) != NULL) {
      const char *q = p + kl;
      p = q;
      if (q - kl == content || q[-(long)kl - 1] != '"' || *q != '"')
        continue;
      for (q++; *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r' || *q == ':'; q++)
        ;
      if (*q != '[')
        continue;
      for (q++; *q == ' ' || *q == '\t' || *q == '\n' || *q == '\r'; q++)
        ;
      if (*q && *q != ']')
        return 1;
    }
  }
  return 0;
}

/* The row set a new version of row_id by annotator_id counts positions in (ref_rowset_for). */
static int ref_rowset(rescue_store *st, int64_t row_id, int64_t annotator_id, int64_t *rowset) {
  sqlite3_stmt *s = rescue_store_stmt(st, "ref_rowset_for");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rc = sqlite3_step(s);
  *rowset = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  sqlite3_reset(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a row set");
}

/* The row at `position` of rowset_id, or 0. */
static int member_at(rescue_store *st, int64_t rowset_id, int position, int64_t *row_id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "member_at");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":position", position);
  rc = sqlite3_step(s);
  *row_id = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  sqlite3_reset(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a row set");
}

/* The number an element of an ints list names, or 0 when it names no row. */
static int ref_number(const rescue_jnode *e) {
  if (e->type != RESCUE_JNUMBER || !e->is_int || e->num < 1 || e->num > INT_MAX)
    return 0;
  return (int)e->num;
}

/* Store one row_ref line per number of `list` that names a row of rowset_id. */
static int put_list(rescue_store *st, int64_t version_id, int64_t rowset_id,
                    const rescue_jnode *list) {
  const rescue_jnode *e;
  int ord = 0, rc = 0;
  for (e = list->child; e && !rc; e = e->next, ord++) {
    int64_t row_id;
    sqlite3_stmt *s;
    int n = ref_number(e);
    if (!n || (rc = member_at(st, rowset_id, n, &row_id)) || !row_id)
      continue;
    if (!(s = rescue_store_stmt(st, "row_ref_insert")))
      return rescue_store_err(st)->code;
    rescue_bind_int(s, ":version_id", version_id);
    rescue_bind_text(s, ":field", list->key, -1);
    rescue_bind_int(s, ":ord", ord);
    rescue_bind_int(s, ":row_id", row_id);
    if (sqlite3_step(s) != SQLITE_DONE)
      rc = rescue_store_sqlerr(st, "writing a row reference");
  }
  return rc;
}

int rescue_store_put_refs(rescue_store *st, int64_t version_id, int64_t row_id,
                          int64_t annotator_id, const rescue_row_input *in) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_jdoc *doc = NULL;
  const rescue_jnode *row = in->tree, *m;
  rescue_jerror je;
  int64_t rowset = in->ref_rowset_id;
  int rc = 0;
  if (!in->content.s || !rescue_refs_maybe(sc, in->content.s))
    return 0;
  if (!rowset && (rc = ref_rowset(st, row_id, annotator_id, &rowset)))
    return rc;
  if (!rowset)
    return 0;
  if (!row) { /* the writer kept no tree: read the content again */
    if (!(doc = rescue_jdoc_new()))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    row = rescue_jparse(doc, in->content.s, in->content.len, &je);
  }
  for (m = row && row->type == RESCUE_JOBJECT ? row->child : NULL; m && !rc; m = m->next)
    if (m->type == RESCUE_JARRAY && ints_field(sc, m->key))
      rc = put_list(st, version_id, rowset, m);
  rescue_jdoc_free(&doc);
  return rc;
}

/* ---- reading: ids as positions of a row set ---- */

/* A growing list of positions. */
typedef struct poslist {
  int *v;
  int n, cap;
} poslist;

static int pos_add(poslist *p, int v) {
  if (RESCUE_ALLOC_GROW(p->v, p->n + 1, p->cap))
    return -1;
  p->v[p->n++] = v;
  return 0;
}

/* The position of row_id in rowset_id, or 0. */
static int member_pos(rescue_store *st, int64_t rowset_id, int64_t row_id, int *pos) {
  sqlite3_stmt *s = rescue_store_stmt(st, "member_position");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":row_id", row_id);
  rc = sqlite3_step(s);
  *pos = rc == SQLITE_ROW ? sqlite3_column_int(s, 0) : 0;
  sqlite3_reset(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a row set");
}

/* The rows statement `name` gives for row_id (children or parents), in *ids (caller frees). */
static int lineage(rescue_store *st, const char *name, int64_t row_id, int64_t **ids, int *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, name);
  int rc, cap = 0;
  *ids = NULL;
  *n = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    if (RESCUE_ALLOC_GROW(*ids, *n + 1, cap)) {
      sqlite3_reset(s);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    } else {
      (*ids)[(*n)++] = sqlite3_column_int64(s, 0);
    }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading lineage");
}

/*
** Append to *out the positions in rowset_id of row_id, or of what it became: the rows made
** from it (down, dir <= 0: split halves, the merged row, a row of a later row set with its
** span), else the rows it was made from (up, dir >= 0: the parent a split was merged back
** into, the rows another row set did not merge).
*/
static int resolve(rescue_store *st, int64_t rowset_id, int64_t row_id, int dir, int depth,
                   poslist *out) {
  int64_t *ids = NULL;
  int pos, n, i, rc, before = out->n;
  if ((rc = member_pos(st, rowset_id, row_id, &pos)))
    return rc;
  if (pos)
    return pos_add(out, pos) ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL) : 0;
  if (depth >= REF_DEPTH)
    return 0;
  if (dir <= 0) {
    if ((rc = lineage(st, "row_children", row_id, &ids, &n)))
      goto done;
    for (i = 0; i < n && !rc; i++)
      rc = resolve(st, rowset_id, ids[i], -1, depth + 1, out);
    rescue_free(ids);
    ids = NULL;
  }
  if (!rc && dir >= 0 && out->n == before) {
    if ((rc = lineage(st, "row_parents", row_id, &ids, &n)))
      goto done;
    for (i = 0; i < n && !rc; i++)
      rc = resolve(st, rowset_id, ids[i], 1, depth + 1, out);
  }
done:
  rescue_free(ids);
  return rc;
}

/* One stored reference of a version. */
typedef struct ref {
  char field[128];
  int ord;
  int64_t row_id;
} ref;

static int load_refs(rescue_store *st, int64_t version_id, ref **refs, int *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, "row_refs_of");
  int rc, cap = 0;
  *refs = NULL;
  *n = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":version_id", version_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ref *r;
    if (RESCUE_ALLOC_GROW(*refs, *n + 1, cap)) {
      sqlite3_reset(s);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
    r = &(*refs)[(*n)++];
    snprintf(r->field, sizeof r->field, "%s", (const char *)sqlite3_column_text(s, 0));
    r->ord = sqlite3_column_int(s, 1);
    r->row_id = sqlite3_column_int64(s, 2);
  }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading row references");
}

static const ref *find_ref(const ref *refs, int n, const char *field, int ord) {
  int i;
  for (i = 0; i < n; i++)
    if (refs[i].ord == ord && strcmp(refs[i].field, field) == 0)
      return &refs[i];
  return NULL;
}

static int seen(const poslist *p, int v) {
  int i;
  for (i = 0; i < p->n; i++)
    if (p->v[i] == v)
      return 1;
  return 0;
}

/*
** The list `list` as positions of rowset_id into *val (a JSON array); a reference that
** moved adds only positions not already there. *changed set when it differs from the list
** as written. References to rows that are not
** in the row set are left out and appended to *lost as [number as written, row id].
*/
static int rewrite_list(rescue_store *st, int64_t rowset_id, const rescue_jnode *list,
                        const ref *refs, int n_refs, rescue_buf *val, rescue_buf *lost,
                        int *changed) {
  poslist out = {0}, one = {0};
  const rescue_jnode *e;
  int ord = 0, rc = 0, n_lost = 0, i, same;
  rescue_buf_putc(val, '[');
  for (e = list->child; e && !rc; e = e->next, ord++) {
    const ref *r = find_ref(refs, n_refs, list->key, ord);
    if (!r) { /* never resolved: verbatim */
      if (val->len > 1)
        rescue_buf_puts(val, ", ");
      rescue_jwrite(val, e);
      continue;
    }
    one.n = 0;
    if ((rc = resolve(st, rowset_id, r->row_id, 0, 0, &one)))
      break;
    same = one.n == 1 && one.v[0] == ref_number(e);
    if (!same)
      *changed = 1;
    if (!one.n) {
      rescue_buf_printf(lost, "%s[%d, %lld]", n_lost++ ? ", " : "", ref_number(e),
                        (long long)r->row_id);
      continue;
    }
    for (i = 0; i < one.n; i++) {
      if (!same && seen(&out, one.v[i]))
        continue; /* a reference that moved: each position once (a list as written stays) */
      if (pos_add(&out, one.v[i])) {
        rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
        break;
      }
      if (val->len > 1)
        rescue_buf_puts(val, ", ");
      rescue_buf_printf(val, "%d", one.v[i]);
    }
  }
  rescue_buf_putc(val, ']');
  rescue_free(out.v);
  rescue_free(one.v);
  return rc;
}

int rescue_store_refs_in(rescue_store *st, int64_t rowset_id, int64_t version_id,
                         const char *content, size_t len, rescue_buf *out, rescue_buf *lost) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  const char *keys[16];
  rescue_buf vals[16];
  const char *valp[16];
  rescue_jdoc *doc = NULL;
  const rescue_jnode *row, *m;
  rescue_jerror je;
  ref *refs = NULL;
  int n_refs = 0, n = 0, changed = 0, rc, i;
  if (!rescue_refs_maybe(sc, content))
    return 0;
  if ((rc = load_refs(st, version_id, &refs, &n_refs)) || !n_refs)
    goto done;
  if (!(doc = rescue_jdoc_new())) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  row = rescue_jparse(doc, content, len, &je);
  for (m = row && row->type == RESCUE_JOBJECT ? row->child : NULL; m && !rc && n < 16;
       m = m->next) {
    size_t before = lost->len;
    if (m->type != RESCUE_JARRAY || !ints_field(sc, m->key))
      continue;
    memset(&vals[n], 0, sizeof vals[n]);
    rescue_buf_printf(lost, "%s", lost->len ? ", " : "{");
    rescue_jwrite_string(lost, m->key, m->keylen);
    rescue_buf_puts(lost, ": [");
    {
      size_t items = lost->len;
      rc = rewrite_list(st, rowset_id, m, refs, n_refs, &vals[n], lost, &changed);
      if (lost->len == items) { /* nothing lost in this list */
        lost->len = before;
        if (lost->s)
          lost->s[before] = 0;
      } else
        rescue_buf_putc(lost, ']');
    }
    keys[n] = m->key;
    n++;
  }
  if (lost->len)
    rescue_buf_putc(lost, '}');
  if (!rc && changed) {
    for (i = 0; i < n; i++)
      valp[i] = vals[i].s ? vals[i].s : "[]";
    rescue_row_write_with(out, row, keys, valp, n);
  }
  for (i = 0; i < n; i++)
    rescue_buf_clear(&vals[i]);
  if (!rc && (!rescue_buf_ok(out) || !rescue_buf_ok(lost)))
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
done:
  rescue_jdoc_free(&doc);
  rescue_free(refs);
  return rc;
}
