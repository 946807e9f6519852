/*
** curate.c: a sample's curation state and a lead's decisions (rescue_curate.h). A row's
** state is a list of values ("leaves"), each addressed by a JSON pointer: first the
** baseline (the latest gold a policy wrote, else what every coder shares, the rest
** undecided), then the lead's decisions in force replayed in order. A decision changes
** its own value only; a gold version is written once no value is undecided, and retired
** when an undo reopens the row. Policy runs replay the decisions over their gold
** (rescue_curate_keep_decisions, curate_int.h).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_annotators.h"
#include "rescue_adjudicate.h"
#include "rescue_audit.h"
#include "rescue_curate.h"
#include "adjudicate_int.h"
#include "curate_int.h"
#include "rescue_edit.h"
#include "store_int.h"

enum { HOW_UNDECIDED, HOW_AGREED, HOW_POLICY, HOW_TAKEN, HOW_EDITED };
static const char *const how_names[] = {"undecided", "agreed", "policy", "taken", "edited"};

/* One value of the row being curated. */
typedef struct leaf {
  char *path;
  char *val; /* canonical JSON; NULL: absent (or undecided) */
  int how;   /* HOW_* */
  char *policy;
  const char *from; /* a coder's name (cur owns it) */
  char *by, *at;
  int64_t decision_id;
} leaf;

typedef struct ccoder {
  int64_t id;
  char *name, *kind;
  int person; /* annotator or lead: votes */
  rescue_view_sample vs;
  const rescue_jnode *row; /* their row for the row being curated, or NULL */
  rescue_jdoc *rdoc;       /* owns row when as_gold rewrote it */
  int64_t version;
  int *gm;   /* per gold row: their row aligned to it (index into vs), or -1 */
  int *rt;   /* where their references go in gold (rescue_gold_align) */
  int src;   /* the index of row, or -1 */
  int votes; /* row votes (rescue_gold_votes: not a split or merged row they never saved) */
} ccoder;

/* A stored decision. */
typedef struct cdec {
  int64_t id, undoes;
  char *field, *path, *value, *take, *lead, *at, *how;
  int undone;
} cdec;

typedef struct cur {
  rescue_store *st;
  const char *sample_id;
  ccoder *c;
  int K, cap_c;
  rescue_view_sample gv; /* the gold row set: gold where written, else the draft */
  rescue_jdoc *doc;      /* parses of values and gold */
  leaf *lv;
  int n, cap;
  cdec *dec;
  int n_dec, cap_dec;
  int64_t gold_id; /* latest gold version of the row */
  char *gold_text;
  int64_t segmenter; /* whose segmentation the chosen gold row set is; 0: none chosen */
  int64_t row_id;    /* the gold row row_state built */
} cur;

static int nomem(rescue_store *st) {
  return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
}

static char *dup_col(sqlite3_stmt *s, int i) {
  const char *t = (const char *)sqlite3_column_text(s, i);
  return t ? rescue_strdup(t) : NULL;
}

static void leaf_free(leaf *l) {
  rescue_free(l->path);
  rescue_free(l->val);
  rescue_free(l->policy);
  rescue_free(l->by);
  rescue_free(l->at);
  memset(l, 0, sizeof *l);
}

static void leaves_clear(cur *c) {
  for (int i = 0; i < c->n; i++)
    leaf_free(&c->lv[i]);
  c->n = 0;
}

static void decs_clear(cur *c) {
  for (int i = 0; i < c->n_dec; i++) {
    cdec *d = &c->dec[i];
    rescue_free(d->field);
    rescue_free(d->path);
    rescue_free(d->value);
    rescue_free(d->take);
    rescue_free(d->lead);
    rescue_free(d->at);
    rescue_free(d->how);
  }
  c->n_dec = 0;
}

static void cur_free(cur *c) {
  int i;
  for (i = 0; i < c->K; i++) {
    rescue_free(c->c[i].name);
    rescue_free(c->c[i].kind);
    rescue_view_sample_clear(&c->c[i].vs);
    rescue_jdoc_free(&c->c[i].rdoc);
    rescue_free(c->c[i].gm);
    rescue_free(c->c[i].rt);
  }
  rescue_free(c->c);
  rescue_view_sample_clear(&c->gv);
  rescue_jdoc_free(&c->doc);
  leaves_clear(c);
  rescue_free(c->lv);
  decs_clear(c);
  rescue_free(c->dec);
  rescue_free(c->gold_text);
  memset(c, 0, sizeof *c);
}

/* ---- paths ---- */

/* Append s to b as one JSON pointer token (~ and / escaped). */
static void put_token(rescue_buf *b, const char *s) {
  for (; *s; s++) {
    if (*s == '~')
      rescue_buf_puts(b, "~0");
    else if (*s == '/')
      rescue_buf_puts(b, "~1");
    else
      rescue_buf_putc(b, *s);
  }
}

/*
** Split pointer p into at most 3 unescaped tokens (tok owns the copies): a bare name is
** one token. The count, or -1 when malformed.
*/
static int split_path(const char *p, char *tok[3]) {
  int n = 0;
  if (*p != '/') {
    tok[0] = rescue_strdup(p);
    return tok[0] && *p ? 1 : -1;
  }
  while (*p == '/') {
    const char *e = strchr(p + 1, '/');
    size_t len = e ? (size_t)(e - p - 1) : strlen(p + 1);
    char *t;
    size_t i, j = 0;
    if (n == 3 || !len)
      return -1;
    if (!(t = rescue_malloc(len + 1)))
      return -1;
    for (i = 0; i < len; i++) {
      if (p[1 + i] == '~' && i + 1 < len && (p[2 + i] == '0' || p[2 + i] == '1')) {
        t[j++] = p[2 + i] == '0' ? '~' : '/';
        i++;
      } else {
        t[j++] = p[1 + i];
      }
    }
    t[j] = 0;
    tok[n++] = t;
    p = e ? e : p + 1 + len;
  }
  return *p ? -1 : n;
}

static void free_tokens(char *tok[3]) {
  for (int i = 0; i < 3; i++) {
    rescue_free(tok[i]);
    tok[i] = NULL;
  }
}

/* The person an item of a list field is keyed by (the base of its key), or NULL. */
static const char *item_person(const rescue_jnode *it, rescue_buf *tmp) {
  static const char *const keys[] = {"person", "initiator", "speaker", "provider"};
  const rescue_jnode *s, *t;
  size_t i;
  if (!it || it->type != RESCUE_JOBJECT)
    return NULL;
  s = rescue_jget(it, "source");
  t = rescue_jget(it, "target");
  if (s && t && s->type == RESCUE_JSTRING && t->type == RESCUE_JSTRING) {
    rescue_buf_reset(tmp);
    rescue_buf_printf(tmp, "%s>%s", s->s, t->s);
    return rescue_buf_ok(tmp) ? tmp->s : NULL;
  }
  for (i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if ((s = rescue_jget(it, keys[i])) && s->type == RESCUE_JSTRING && s->len)
      return s->s;
  return NULL;
}

/* The key of item number idx (0-based) of list arr into out: "Alan", "Alan#2", "#3". */
static void item_key(const rescue_jnode *arr, int idx, rescue_buf *out) {
  rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
  const rescue_jnode *it = arr->child, *x;
  const char *p;
  int i, same = 1;
  for (i = 0; i < idx && it; i++)
    it = it->next;
  rescue_buf_reset(out);
  if (!(p = item_person(it, &a))) {
    rescue_buf_printf(out, "#%d", idx + 1);
    goto end;
  }
  for (x = arr->child, i = 0; i < idx && x; x = x->next, i++) {
    const char *q = item_person(x, &b);
    same += q && strcmp(q, p) == 0;
  }
  if (same > 1)
    rescue_buf_printf(out, "%s#%d", p, same);
  else
    rescue_buf_puts(out, p);
end:
  rescue_buf_clear(&a);
  rescue_buf_clear(&b);
}

/* The item of arr whose key is key, or NULL. */
static const rescue_jnode *find_item(const rescue_jnode *arr, const char *key) {
  rescue_buf k = RESCUE_BUF_INIT;
  const rescue_jnode *it, *found = NULL;
  int i = 0;
  if (!arr || arr->type != RESCUE_JARRAY)
    return NULL;
  for (it = arr->child; it && !found; it = it->next, i++) {
    item_key(arr, i, &k);
    if (k.s && strcmp(k.s, key) == 0)
      found = it;
  }
  rescue_buf_clear(&k);
  return found;
}

/* The node of row at the path's tokens, or NULL. */
static const rescue_jnode *resolve(const rescue_jnode *row, char *const tok[3], int n) {
  const rescue_jnode *v;
  if (!row || !(v = rescue_jget(row, tok[0])))
    return NULL;
  if (n > 1 && !(v = find_item(v, tok[1])))
    return NULL;
  if (n > 2 && (v->type != RESCUE_JOBJECT || !(v = rescue_jget(v, tok[2]))))
    return NULL;
  return v;
}

/* The canonical text of a node (NULL node: NULL). Caller frees. */
static char *canon(const rescue_jnode *v) {
  rescue_buf b = RESCUE_BUF_INIT;
  if (!v)
    return NULL;
  rescue_jwrite(&b, v);
  if (!rescue_buf_ok(&b)) {
    rescue_buf_clear(&b);
    return NULL;
  }
  return b.s;
}

static int same_text(const char *a, const char *b) {
  return (!a || !b) ? a == b : strcmp(a, b) == 0;
}

/* ---- leaves ---- */

/* Insert a leaf at index at (path copied); NULL when out of memory. */
static leaf *leaf_insert(cur *c, int at, const char *path) {
  leaf *l;
  if (RESCUE_ALLOC_GROW(c->lv, c->n + 1, c->cap))
    return NULL;
  memmove(&c->lv[at + 1], &c->lv[at], (size_t)(c->n - at) * sizeof *c->lv);
  c->n++;
  l = &c->lv[at];
  memset(l, 0, sizeof *l);
  if (!(l->path = rescue_strdup(path))) {
    memmove(&c->lv[at], &c->lv[at + 1], (size_t)(c->n - at - 1) * sizeof *c->lv);
    c->n--;
    return NULL;
  }
  return l;
}

static void leaf_remove(cur *c, int at) {
  leaf_free(&c->lv[at]);
  memmove(&c->lv[at], &c->lv[at + 1], (size_t)(c->n - at - 1) * sizeof *c->lv);
  c->n--;
}

/* The index of the leaf with path p, or -1. */
static int leaf_find(const cur *c, const char *p) {
  for (int i = 0; i < c->n; i++)
    if (strcmp(c->lv[i].path, p) == 0)
      return i;
  return -1;
}

/* 1 when path a is strictly inside path p ("/f/k" inside "/f"). */
static int inside(const char *a, const char *p) {
  size_t n = strlen(p);
  return strncmp(a, p, n) == 0 && a[n] == '/';
}

/* Fields a gold row takes from the chosen segmentation (rescue_adjudicate.h). */
static int seg_field(const char *key) {
  static const char *const f[] = {"start_time", "end_time", "primary_speaker", "dialogue_cleaned"};
  for (int i = 0; i < 4; i++)
    if (strcmp(key, f[i]) == 0)
      return 1;
  return 0;
}

/* The policy name of values from the chosen segmentation (provenance "segmentation of X"). */
#define SEG_POLICY "segmentation"

/*
** 1 when coder i votes on field key of the row being curated (NULL: on some field): a
** person with a row there that votes as in adjudication (rescue_gold_votes), and for
** times, speaker and text that row itself (a row of theirs aligned to it that is another
** row has its own span: the segmentation decides those, not a vote).
*/
static int votes_on(const cur *c, int i, const char *key) {
  const ccoder *k = &c->c[i];
  if (!k->person || !k->row || !k->votes)
    return 0;
  if (!key)
    return 1;
  return !seg_field(key) || k->src < 0 || k->vs.row_ids[k->src] == c->row_id;
}

/* The values of the voting coders at tok[0..n): *all_same, *all_present; values[k] owned. */
static int votes(cur *c, char *const tok[3], int n, char **vals, int *all_same, int *all_present) {
  int i, first = -1;
  *all_same = 1;
  *all_present = 1;
  for (i = 0; i < c->K; i++) {
    vals[i] = NULL;
    if (!votes_on(c, i, tok[0]))
      continue;
    vals[i] = canon(resolve(c->c[i].row, tok, n));
    if (!vals[i])
      *all_present = 0;
    if (first < 0)
      first = i;
    else if (!same_text(vals[i], vals[first]))
      *all_same = 0;
  }
  return first;
}

/* Add leaf for pointer text p (after the leaves of its parent): agreed or undecided. */
static int add_voted(cur *c, const char *p, const char *val, int agreed) {
  leaf *l = leaf_insert(c, c->n, p);
  if (!l)
    return nomem(c->st);
  l->how = agreed ? HOW_AGREED : HOW_UNDECIDED;
  if (agreed && val && !(l->val = rescue_strdup(val)))
    return nomem(c->st);
  return 0;
}

static void free_vals(char **vals, int k) {
  for (int i = 0; i < k; i++)
    rescue_free(vals[i]);
}

/*
** Leaves of field tok[0] (depth 1), of its item tok[1] (2) or of that item's parts (3)
** from the voters: agreed where they share it, else split further where every voter has
** it as a list of objects (an object), else undecided.
*/
static int vote_path(cur *c, char *tok[3], int depth, const char *p) {
  char **vals = rescue_calloc((size_t)c->K + 1, sizeof *vals);
  int rc = 0, same, present, first, i;
  if (!vals)
    return nomem(c->st);
  first = votes(c, tok, depth, vals, &same, &present);
  if (first < 0 || same || !present || depth == 3) {
    rc = add_voted(c, p, first >= 0 ? vals[first] : NULL, first >= 0 && same);
    goto end;
  }
  {
    /* the children, in first-seen order */
    rescue_buf key = RESCUE_BUF_INIT, sub = RESCUE_BUF_INIT;
    char **seen = NULL;
    int n_seen = 0, cap_seen = 0, ok = 1;
    for (i = 0; i < c->K && ok; i++) {
      const rescue_jnode *v, *it;
      int j = 0;
      if (!votes_on(c, i, NULL))
        continue;
      v = resolve(c->c[i].row, tok, depth);
      if (!v || (depth == 1 && v->type != RESCUE_JARRAY) ||
          (depth == 2 && v->type != RESCUE_JOBJECT))
        ok = 0;
      for (it = v ? v->child : NULL; it && ok; it = it->next, j++) {
        int k, dup = 0;
        if (depth == 1 && it->type != RESCUE_JOBJECT)
          ok = 0;
        if (depth == 1)
          item_key(v, j, &key);
        else {
          rescue_buf_reset(&key);
          rescue_buf_puts(&key, it->key);
        }
        for (k = 0; k < n_seen && !dup; k++)
          dup = strcmp(seen[k], key.s) == 0;
        if (dup)
          continue;
        if (RESCUE_ALLOC_GROW(seen, n_seen + 1, cap_seen) || !(seen[n_seen] = rescue_strdup(key.s)))
          ok = -1;
        else
          n_seen++;
      }
    }
    if (ok == 1) {
      for (i = 0; i < n_seen && !rc; i++) {
        tok[depth] = seen[i];
        rescue_buf_reset(&sub);
        rescue_buf_puts(&sub, p);
        rescue_buf_putc(&sub, '/');
        put_token(&sub, seen[i]);
        rc = rescue_buf_ok(&sub) ? vote_path(c, tok, depth + 1, sub.s) : nomem(c->st);
        tok[depth] = NULL;
      }
    } else if (ok == 0) {
      rc = add_voted(c, p, NULL, 0);
    } else {
      rc = nomem(c->st);
    }
    for (i = 0; i < n_seen; i++)
      rescue_free(seen[i]);
    rescue_free(seen);
    rescue_buf_clear(&key);
    rescue_buf_clear(&sub);
  }
end:
  free_vals(vals, c->K);
  rescue_free(vals);
  return rc;
}

/* The baseline from the voters: every field any voter's row has, in first-seen order. */
static int baseline_votes(cur *c) {
  rescue_buf p = RESCUE_BUF_INIT;
  int i, rc = 0;
  for (i = 0; i < c->K && !rc; i++) {
    const rescue_jnode *m;
    if (!votes_on(c, i, NULL))
      continue;
    for (m = c->c[i].row->child; m && !rc; m = m->next) {
      char *tok[3] = {(char *)m->key, NULL, NULL};
      int k, dup = 0;
      rescue_buf_reset(&p);
      rescue_buf_putc(&p, '/');
      put_token(&p, m->key);
      for (k = 0; k < c->n && !dup; k++)
        dup = strcmp(c->lv[k].path, p.s) == 0 || inside(c->lv[k].path, p.s);
      if (!dup)
        rc = rescue_buf_ok(&p) ? vote_path(c, tok, 1, p.s) : nomem(c->st);
    }
  }
  rescue_buf_clear(&p);
  return rc;
}

/*
** The baseline of row p when no coder's row votes on it (adjudication leaves it undecided:
** "no coder worked on this sample"): every field of the gold row set's row, undecided, for
** the lead to decide.
*/
static int baseline_open(cur *c, int p) {
  rescue_buf path = RESCUE_BUF_INIT;
  const rescue_jnode *m;
  int rc = 0;
  for (m = c->gv.rows[p - 1] ? c->gv.rows[p - 1]->child : NULL; m && !rc; m = m->next) {
    rescue_buf_reset(&path);
    rescue_buf_putc(&path, '/');
    put_token(&path, m->key);
    rc = rescue_buf_ok(&path) ? add_voted(c, path.s, NULL, 0) : nomem(c->st);
  }
  rescue_buf_clear(&path);
  return rc;
}

/*
** The provenance recorded for path of gold version vid into l (1), or 0 when none was
** recorded (gold written before migration 9); negative on error.
*/
static int recorded_prov(cur *c, int64_t vid, const char *path, leaf *l) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "curate_provenance_of");
  int rc, i;
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":version_id", vid);
  rescue_bind_text(s, ":path", path, -1);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *how = (const char *)sqlite3_column_text(s, 0);
    const char *from = (const char *)sqlite3_column_text(s, 2);
    for (i = 0; i < 5; i++)
      if (strcmp(how, how_names[i]) == 0)
        l->how = i;
    l->policy = dup_col(s, 1);
    l->by = dup_col(s, 3);
    l->at = dup_col(s, 4);
    if (from && strcmp(from, RESCUE_DRAFT_ANNOTATOR) == 0)
      from = "draft";
    for (i = 0; from && i < c->K; i++)
      if (strcmp(c->c[i].name, from) == 0)
        l->from = c->c[i].name;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(c->st, "reading provenance");
  return rc == SQLITE_ROW;
}

/* The baseline from a gold version a policy wrote (its id, content, policy and time). */
static int baseline_gold(cur *c, int64_t vid, const char *text, const char *policy,
                         const char *at) {
  rescue_jerror je;
  rescue_buf p = RESCUE_BUF_INIT;
  const rescue_jnode *g = rescue_jparse(c->doc, text, strlen(text), &je), *m;
  int rc = 0;
  if (!g || g->type != RESCUE_JOBJECT)
    return rescue_seterr(rescue_store_err(c->st), RESCUE_EINTERNAL, "gold does not parse");
  for (m = g->child; m && !rc; m = m->next) {
    char *tok[3] = {(char *)m->key, NULL, NULL}, **vals;
    int same, present, first;
    leaf *l;
    rescue_buf_reset(&p);
    rescue_buf_putc(&p, '/');
    put_token(&p, m->key);
    if (!rescue_buf_ok(&p) || !(l = leaf_insert(c, c->n, p.s)) || !(l->val = canon(m)) ||
        !(vals = rescue_calloc((size_t)c->K + 1, sizeof *vals))) {
      rc = nomem(c->st);
      break;
    }
    if ((rc = recorded_prov(c, vid, p.s, l)) == 0) {
      /* gold from before provenance was recorded: agreed where the coders share it */
      first = votes(c, tok, 1, vals, &same, &present);
      l->how = first >= 0 && same && same_text(vals[first], l->val) ? HOW_AGREED : HOW_POLICY;
      if (l->how == HOW_POLICY && !(l->policy = rescue_strdup(policy ? policy : "unknown")))
        rc = nomem(c->st);
      if (at && !(l->at = rescue_strdup(at)))
        rc = nomem(c->st);
    } else if (rc == 1) {
      rc = 0;
    }
    free_vals(vals, c->K);
    rescue_free(vals);
  }
  rescue_buf_clear(&p);
  return rc;
}

/*
** Put value val (NULL: absent) with provenance at path p (tokens tok, n of them): replaces
** the leaf there or the leaves inside it, or opens up a decided leaf around it. 0, or
** RESCUE_EBADINPUT with the reason (why) when p cannot be decided now.
*/
static int put_value(cur *c, const char *p, char *const tok[3], int n, leaf *with, char *why,
                     size_t whysz) {
  int i, at;
  for (;;) {
    if ((at = leaf_find(c, p)) >= 0)
      break;
    for (i = 0; i < c->n && !inside(c->lv[i].path, p); i++)
      ;
    if (i < c->n) {
      at = i;
      while (at + 1 < c->n && inside(c->lv[at + 1].path, p))
        leaf_remove(c, at + 1);
      rescue_free(c->lv[at].path);
      if (!(c->lv[at].path = rescue_strdup(p)))
        return nomem(c->st);
      break;
    }
    for (i = 0; i < c->n && !inside(p, c->lv[i].path); i++)
      ;
    if (i == c->n) {
      if (n > 1) {
        snprintf(why, whysz, "'/%s' is absent from gold: decide the field first", tok[0]);
        return RESCUE_EBADINPUT;
      }
      if (!leaf_insert(c, c->n, p))
        return nomem(c->st);
      at = c->n - 1;
      break;
    }
    {
      /* open up the decided leaf i around p into its items or parts */
      leaf a = c->lv[i];
      rescue_jerror je;
      const rescue_jnode *v, *it;
      rescue_buf key = RESCUE_BUF_INIT, sub = RESCUE_BUF_INIT;
      int j = 0, k = i, depth = 1 + (strchr(a.path + 1, '/') != NULL), rc = 0, found = 0;
      if (a.how == HOW_UNDECIDED) {
        snprintf(why, whysz, "decide '%s' first: the coders differ on it", a.path);
        return RESCUE_EBADINPUT;
      }
      v = a.val ? rescue_jparse(c->doc, a.val, strlen(a.val), &je) : NULL;
      if (!v || v->type != (depth == 1 ? RESCUE_JARRAY : RESCUE_JOBJECT)) {
        snprintf(why, whysz, "'%s' in gold is %s: decide it whole", a.path,
                 v ? "not a list of items" : "absent");
        return RESCUE_EBADINPUT;
      }
      memset(&c->lv[i], 0, sizeof c->lv[i]);
      leaf_remove(c, i);
      for (it = v->child; it && !rc; it = it->next, j++) {
        leaf *l;
        if (depth == 1)
          item_key(v, j, &key);
        else {
          rescue_buf_reset(&key);
          rescue_buf_puts(&key, it->key);
        }
        rescue_buf_reset(&sub);
        rescue_buf_puts(&sub, a.path);
        rescue_buf_putc(&sub, '/');
        put_token(&sub, key.s);
        if (!rescue_buf_ok(&sub) || !(l = leaf_insert(c, k++, sub.s)) || !(l->val = canon(it))) {
          rc = nomem(c->st);
          break;
        }
        found |= strcmp(sub.s, p) == 0 || inside(p, sub.s);
        l->how = a.how;
        l->from = a.from;
        l->decision_id = a.decision_id;
        if ((a.policy && !(l->policy = rescue_strdup(a.policy))) ||
            (a.by && !(l->by = rescue_strdup(a.by))) || (a.at && !(l->at = rescue_strdup(a.at))))
          rc = nomem(c->st);
      }
      if (!rc && !found && n > depth + 1) {
        snprintf(why, whysz, "'%s' has no such item in gold: decide the item first", a.path);
        rc = RESCUE_EBADINPUT;
      } else if (!rc && !found && !leaf_insert(c, k, p)) {
        rc = nomem(c->st);
      }
      leaf_free(&a);
      rescue_buf_clear(&key);
      rescue_buf_clear(&sub);
      if (rc)
        return rc;
    }
  }
  {
    leaf *l = &c->lv[at];
    char *path = l->path;
    l->path = NULL;
    leaf_free(l);
    l->path = path;
    l->how = with->how;
    l->from = with->from;
    l->decision_id = with->decision_id;
    if ((with->val && !(l->val = rescue_strdup(with->val))) ||
        (with->by && !(l->by = rescue_strdup(with->by))) ||
        (with->at && !(l->at = rescue_strdup(with->at))))
      return nomem(c->st);
  }
  return 0;
}

/* ---- writing a row from its leaves ---- */

/* The first voter's value at path p (for linting a row with undecided values), or NULL. */
static char *first_vote(cur *c, const char *p) {
  char *tok[3] = {0};
  char *v = NULL;
  int n = split_path(p, tok), i;
  for (i = 0; n > 0 && i < c->K && !v; i++)
    if (votes_on(c, i, tok[0]))
      v = canon(resolve(c->c[i].row, tok, n));
  free_tokens(tok);
  return v;
}

/* The last token of a pointer, unescaped into out. */
static void last_token(const char *p, rescue_buf *out) {
  const char *s = strrchr(p, '/') + 1;
  rescue_buf_reset(out);
  for (; *s; s++) {
    if (s[0] == '~' && (s[1] == '0' || s[1] == '1')) {
      rescue_buf_putc(out, s[1] == '0' ? '~' : '/');
      s++;
    } else {
      rescue_buf_putc(out, *s);
    }
  }
}

/*
** Write the row the leaves make into out: undecided values left out, or (fill) the first
** voter's value in their place. Item order is leaf order.
*/
static int build_row(cur *c, int fill, rescue_buf *out) {
  rescue_buf name = RESCUE_BUF_INIT;
  int i = 0, nf = 0;
  rescue_buf_reset(out);
  rescue_buf_putc(out, '{');
  while (i < c->n) {
    const char *fp = c->lv[i].path;
    size_t flen = strchr(fp + 1, '/') ? (size_t)(strchr(fp + 1, '/') - fp) : strlen(fp);
    char *field = rescue_strndup(fp, flen);
    int j = i, in_list = strlen(fp) != flen, n_items = 0;
    if (!field)
      break;
    while (j < c->n && (strcmp(c->lv[j].path, field) == 0 || inside(c->lv[j].path, field)))
      j++;
    if (!in_list) {
      char *v = c->lv[i].how == HOW_UNDECIDED && fill ? first_vote(c, field) : NULL;
      const char *w = c->lv[i].how == HOW_UNDECIDED ? v : c->lv[i].val;
      if (w) {
        last_token(field, &name);
        rescue_buf_puts(out, nf++ ? ", " : "");
        rescue_jwrite_string(out, name.s, name.len);
        rescue_buf_puts(out, ": ");
        rescue_buf_puts(out, w);
      }
      rescue_free(v);
    } else {
      last_token(field, &name);
      rescue_buf_puts(out, nf++ ? ", " : "");
      rescue_jwrite_string(out, name.s, name.len);
      rescue_buf_puts(out, ": [");
      for (int k = i; k < j;) {
        const char *ip = c->lv[k].path;
        const char *slash = strchr(ip + flen + 1, '/');
        size_t ilen = slash ? (size_t)(slash - ip) : strlen(ip);
        int m = k, np = 0;
        while (m < j && strncmp(c->lv[m].path, ip, ilen) == 0 &&
               (c->lv[m].path[ilen] == 0 || c->lv[m].path[ilen] == '/'))
          m++;
        if (!slash) {
          char *v = c->lv[k].how == HOW_UNDECIDED && fill ? first_vote(c, ip) : NULL;
          const char *w = c->lv[k].how == HOW_UNDECIDED ? v : c->lv[k].val;
          if (w) {
            rescue_buf_puts(out, n_items++ ? ", " : "");
            rescue_buf_puts(out, w);
          }
          rescue_free(v);
        } else {
          rescue_buf_puts(out, n_items++ ? ", {" : "{");
          for (int q = k; q < m; q++) {
            char *v = c->lv[q].how == HOW_UNDECIDED && fill ? first_vote(c, c->lv[q].path) : NULL;
            const char *w = c->lv[q].how == HOW_UNDECIDED ? v : c->lv[q].val;
            if (w) {
              last_token(c->lv[q].path, &name);
              rescue_buf_puts(out, np++ ? ", " : "");
              rescue_jwrite_string(out, name.s, name.len);
              rescue_buf_puts(out, ": ");
              rescue_buf_puts(out, w);
            }
            rescue_free(v);
          }
          rescue_buf_putc(out, '}');
        }
        k = m;
      }
      rescue_buf_putc(out, ']');
    }
    rescue_free(field);
    i = j;
  }
  rescue_buf_putc(out, '}');
  rescue_buf_clear(&name);
  return rescue_buf_ok(out) && i >= c->n ? 0 : nomem(c->st);
}

/* ---- loading ---- */

/* The coders of sample ref (c->st set), in the state's order, into c. */
static int cur_coders(cur *c, int64_t ref) {
  rescue_store *st = c->st;
  sqlite3_stmt *s;
  int rc;
  if (!(s = rescue_store_stmt(st, "curate_coders")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ccoder *k;
    const char *name = (const char *)sqlite3_column_text(s, 1);
    const char *role = (const char *)sqlite3_column_text(s, 2);
    if (RESCUE_ALLOC_GROW(c->c, c->K + 1, c->cap_c)) {
      sqlite3_reset(s);
      return nomem(st);
    }
    k = &c->c[c->K++];
    memset(k, 0, sizeof *k);
    k->id = sqlite3_column_int64(s, 0);
    k->name = rescue_strdup(strcmp(name, RESCUE_DRAFT_ANNOTATOR) == 0 ? "draft" : name);
    k->kind = rescue_strdup(strcmp(name, RESCUE_DRAFT_ANNOTATOR) == 0 ? "draft" : role);
    k->person = strcmp(k->kind ? k->kind : "", "annotator") == 0 ||
                strcmp(k->kind ? k->kind : "", "lead") == 0;
    if (!k->name || !k->kind) {
      sqlite3_reset(s);
      return nomem(st);
    }
  }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading coders");
}

/* The start and end times of row i of vs (NaN, aligned with nothing, where it has none). */
static void row_times(const rescue_view_sample *vs, int i, double *start, double *end) {
  const rescue_jnode *s = vs->rows[i] ? rescue_jget(vs->rows[i], "start_time") : NULL;
  const rescue_jnode *e = vs->rows[i] ? rescue_jget(vs->rows[i], "end_time") : NULL;
  *start = s && s->type == RESCUE_JNUMBER ? s->num : NAN;
  *end = e && e->type == RESCUE_JNUMBER ? e->num : NAN;
}

/*
** Align every coder's rows (their own row set) to the gold row set's rows as adjudication
** does (rescue_gold_align, adjudicate_int.h): each k->gm, and where references to their
** rows go in gold, k->rt. The gold rows' times are those
** the segmenter's view shows (as adjudication reads them: a row of a split has no gold
** or draft version, so the gold view shows it with the times of the row it was split
** from), else the gold view's.
*/
static int cur_align(cur *c) {
  const rescue_view_sample *g = &c->gv;
  double *gs = rescue_calloc((size_t)c->gv.n + 1, sizeof *gs);
  double *ge = rescue_calloc((size_t)c->gv.n + 1, sizeof *ge);
  double *cs = NULL, *ce = NULL;
  int i, k, rc = gs && ge ? 0 : nomem(c->st);
  for (k = 0; k < c->K && c->segmenter; k++)
    if (c->c[k].id == c->segmenter && c->c[k].vs.n == c->gv.n) {
      for (i = 0; i < c->gv.n && c->c[k].vs.row_ids[i] == c->gv.row_ids[i]; i++)
        ;
      if (i == c->gv.n)
        g = &c->c[k].vs; /* the same rows (the gold row set is a copy of theirs) */
    }
  for (i = 0; i < c->gv.n && !rc; i++)
    row_times(g, i, &gs[i], &ge[i]);
  for (k = 0; k < c->K && !rc; k++) {
    ccoder *x = &c->c[k];
    cs = rescue_calloc((size_t)x->vs.n + 1, sizeof *cs);
    ce = rescue_calloc((size_t)x->vs.n + 1, sizeof *ce);
    if (!cs || !ce) {
      rc = nomem(c->st);
    } else {
      for (i = 0; i < x->vs.n; i++)
        row_times(&x->vs, i, &cs[i], &ce[i]);
      if (rescue_gold_align(gs, ge, c->gv.n, cs, ce, x->vs.n, &x->gm, &x->rt))
        rc = nomem(c->st);
    }
    rescue_free(cs);
    rescue_free(ce);
    cs = ce = NULL;
  }
  rescue_free(gs);
  rescue_free(ge);
  return rc;
}

/* The sample's coders and their views, and the gold row set's view. */
static int cur_open(cur *c, rescue_store *st, const char *sample_id) {
  int64_t ref, adj = 0;
  int rc;
  memset(c, 0, sizeof *c);
  c->st = st;
  c->sample_id = sample_id;
  if ((rc = rescue_sample_ref(st, sample_id, &ref)))
    return rc;
  if (!(c->doc = rescue_jdoc_new()))
    return nomem(st);
  if ((rc = cur_coders(c, ref)))
    return rc;
  for (int i = 0; i < c->K; i++)
    if ((rc = rescue_view_sample_load(st, sample_id, c->c[i].id, &c->c[i].vs)))
      return rc;
  if (rescue_annotator_id(st, RESCUE_ADJUDICATION_ANNOTATOR, NULL, 0, &adj))
    adj = 0;
  {
    int64_t rs = 0;
    if ((rc = rescue_gold_rowset(st, ref, &rs, &c->segmenter)) < 0)
      return rc;
    if (!rc)
      c->segmenter = 0;
  }
  if ((rc = rescue_view_sample_load(st, sample_id, adj, &c->gv)))
    return rc;
  return cur_align(c);
}

/* The row's stored decisions, with those undone marked. */
static int load_decisions(cur *c, int64_t row_id) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "curate_decisions");
  int rc, i;
  decs_clear(c);
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    cdec *d;
    if (RESCUE_ALLOC_GROW(c->dec, c->n_dec + 1, c->cap_dec)) {
      sqlite3_reset(s);
      return nomem(c->st);
    }
    d = &c->dec[c->n_dec++];
    memset(d, 0, sizeof *d);
    d->id = sqlite3_column_int64(s, 0);
    d->field = dup_col(s, 1);
    d->path = dup_col(s, 2);
    d->value = dup_col(s, 3);
    d->take = dup_col(s, 5);
    d->lead = dup_col(s, 7);
    d->at = dup_col(s, 8);
    d->how = dup_col(s, 9);
    d->undoes = sqlite3_column_int64(s, 10);
    if (!d->how)
      d->how = rescue_strdup(d->take ? "take" : "value");
    if (!d->path) {
      rescue_buf p = RESCUE_BUF_INIT;
      rescue_buf_putc(&p, '/');
      put_token(&p, d->field ? d->field : "");
      d->path = p.s;
    }
    if (d->take && strcmp(d->take, RESCUE_DRAFT_ANNOTATOR) == 0) {
      rescue_free(d->take);
      d->take = rescue_strdup("draft");
    }
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(c->st, "reading decisions");
  for (i = 0; i < c->n_dec; i++)
    if (c->dec[i].undoes)
      for (int j = 0; j < i; j++)
        if (c->dec[j].id == c->dec[i].undoes)
          c->dec[j].undone = 1;
  return 0;
}

/* The coder named name (the draft as "draft"), or NULL. */
static ccoder *coder_named(cur *c, const char *name) {
  for (int i = 0; i < c->K; i++)
    if (strcmp(c->c[i].name, name) == 0)
      return &c->c[i];
  return NULL;
}

/* The index of coder k's (ctx) row at position pos, or -1 (rescue_gold_refs_write). */
static int row_at(void *ctx, int pos) {
  const ccoder *k = ctx;
  for (int j = 0; j < k->vs.n; j++) {
    const rescue_jnode *ri = k->vs.rows[j] ? rescue_jget(k->vs.rows[j], "row_index") : NULL;
    if (ri && ri->type == RESCUE_JNUMBER && (int)ri->num == pos)
      return j;
  }
  return -1;
}

/* The position of gold row i (rescue_gold_refs_write). */
static int gold_pos(void *ctx, int i) {
  (void)ctx;
  return i + 1;
}

/*
** Coder k's row as row p of the gold row set shows it: its row_index is p and its row-number
** lists, as their view numbers rows, are renumbered to gold rows the way adjudication does
** it (rescue_gold_refs_write with k->rt), so that a coder who split a row earlier does not
** differ by position alone.
*/
static int as_gold(cur *c, ccoder *k, int p) {
  const rescue_scheme *sc = rescue_store_scheme(c->st);
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_buf vals[17];
  const char *keys[17], *valp[17];
  const rescue_jnode *m, *row;
  rescue_jerror je;
  int n = 0, rc = 0, i;
  memset(vals, 0, sizeof vals);
  for (m = k->row->child; m && n < 17 && !rc; m = m->next) {
    const rescue_field *f = sc ? rescue_scheme_field(sc, m->key) : NULL;
    if (strcmp(m->key, "row_index") == 0 && m->type == RESCUE_JNUMBER)
      rescue_buf_printf(&vals[n], "%d", p);
    else if (f && f->type == RESCUE_F_INTS && m->type == RESCUE_JARRAY && k->rt)
      rc = rescue_gold_refs_write(&vals[n], m, k->rt, c->gv.n, row_at, gold_pos, k);
    else
      continue;
    keys[n] = m->key;
    valp[n] = vals[n].s ? vals[n].s : "null";
    n++;
  }
  if (rc) {
    rc = nomem(c->st);
  } else if (n) {
    rescue_row_write_with(&b, k->row, keys, valp, n);
    if (!rescue_buf_ok(&b))
      rc = nomem(c->st);
    else if (!k->rdoc && !(k->rdoc = rescue_jdoc_new()))
      rc = nomem(c->st);
    else if (!(row = rescue_jparse(k->rdoc, b.s, b.len, &je)))
      rc = rescue_seterr(rescue_store_err(c->st), RESCUE_EINTERNAL, "a coder's row: %s", je.msg);
    else
      k->row = row;
  }
  for (i = 0; i < n; i++)
    rescue_buf_clear(&vals[i]);
  rescue_buf_clear(&b);
  return rc;
}

/*
** Times, speaker and text of the row from the chosen segmentation's coder (when one was
** chosen and has the row): policy "segmentation", from that coder.
*/
static int seg_values(cur *c) {
  ccoder *k = NULL;
  int i;
  for (i = 0; i < c->K && c->segmenter; i++)
    if (c->c[i].id == c->segmenter && c->c[i].row)
      k = &c->c[i];
  for (i = 0; k && i < c->n; i++) {
    leaf *l = &c->lv[i];
    char *v;
    if (strchr(l->path + 1, '/') || !seg_field(l->path + 1))
      continue;
    if (!(v = canon(rescue_jget(k->row, l->path + 1))))
      continue;
    rescue_free(l->val);
    rescue_free(l->policy);
    l->val = v;
    l->how = HOW_POLICY;
    l->from = k->name;
    if (!(l->policy = rescue_strdup(SEG_POLICY)))
      return nomem(c->st);
  }
  return 0;
}

/*
** Build the leaves of row position p (1-based): baseline, then the decisions in force.
** Each coder's row is the one of their row set aligned to it (cur_align), as adjudication
** counts it: a row they kept whole that gold split shows on the half it aligns to.
*/
static int row_state(cur *c, int p, int64_t skip_decision) {
  sqlite3_stmt *s;
  int64_t row_id = c->gv.row_ids[p - 1];
  int i, rc;
  char *base = NULL, *policy = NULL, *at = NULL;
  int64_t base_id = 0;
  c->row_id = row_id;
  leaves_clear(c);
  rescue_free(c->gold_text);
  c->gold_text = NULL;
  c->gold_id = 0;
  for (i = 0; i < c->K; i++) {
    ccoder *k = &c->c[i];
    int j = k->gm ? k->gm[p - 1] : -1;
    k->row = j >= 0 ? k->vs.rows[j] : NULL;
    k->version = j >= 0 ? k->vs.versions[j] : 0;
    k->src = k->row ? j : -1;
    k->votes = k->row && (!k->vs.origin || rescue_gold_votes(k->vs.origin[j])); /* flat: own */
    if (k->row && (rc = as_gold(c, k, p)))
      return rc;
  }
  if (!(s = rescue_store_stmt(c->st, "curate_gold")))
    return rescue_store_err(c->st)->code;
  for (int baseline = 0; baseline < 2; baseline++) {
    rescue_bind_int(s, ":row_id", row_id);
    rescue_bind_int(s, ":baseline", baseline);
    if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      if (!baseline) {
        c->gold_id = sqlite3_column_int64(s, 0);
        c->gold_text = dup_col(s, 1);
      } else {
        base_id = sqlite3_column_int64(s, 0);
        base = dup_col(s, 1);
        policy = dup_col(s, 2);
        at = dup_col(s, 3);
      }
    }
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      return rescue_store_sqlerr(c->st, "reading gold");
  }
  rc = base ? baseline_gold(c, base_id, base, policy, at) : baseline_votes(c);
  if (!rc && !base && !c->n)
    rc = baseline_open(c, p);
  if (!rc && !base)
    rc = seg_values(c);
  rescue_free(base);
  rescue_free(policy);
  rescue_free(at);
  if (rc || (rc = load_decisions(c, row_id)))
    return rc;
  for (i = 0; i < c->n_dec && !rc; i++) {
    cdec *d = &c->dec[i];
    char *tok[3] = {0}, why[300];
    leaf with = {0};
    int n;
    if (d->undone || d->undoes || d->id == skip_decision)
      continue;
    with.val = d->value;
    with.how = strcmp(d->how, "take") == 0 ? HOW_TAKEN : HOW_EDITED;
    with.from = d->take ? coder_named(c, d->take) ? coder_named(c, d->take)->name : NULL : NULL;
    with.by = d->lead;
    with.at = d->at;
    with.decision_id = d->id;
    if ((n = split_path(d->path, tok)) > 0)
      rc = put_value(c, d->path, tok, n, &with, why, sizeof why);
    free_tokens(tok);
    if (rc == RESCUE_EBADINPUT)
      rc = 0; /* a decision the row no longer has room for (the coders changed) */
  }
  return rc;
}

/* Lint the row text as row p of the gold row set into res. */
static int lint_text(cur *c, int p, const rescue_buf *text, rescue_lint_result *res) {
  rescue_jerror je;
  const rescue_jnode *row = rescue_jparse(c->doc, text->s, text->len, &je);
  int pos = p;
  if (!row)
    return rescue_seterr(rescue_store_err(c->st), RESCUE_EINTERNAL, "the row does not parse");
  if (rescue_lint_sample(rescue_store_scheme(c->st), c->sample_id, c->gv.sample, &row, &pos, 1,
                         c->gv.n_rows, NULL, res))
    return nomem(c->st);
  return 0;
}

/* The curation version of a row. */
static int row_version(cur *c, int64_t row_id, int64_t *v) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "curate_version");
  int rc;
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  rc = sqlite3_step(s);
  *v = rc == SQLITE_ROW ? sqlite3_column_int64(s, 0) : 0;
  sqlite3_reset(s);
  return rc == SQLITE_ROW ? 0 : rescue_store_sqlerr(c->st, "reading a row's version");
}

/* 1 when finding f lies in the value at path (its field, item or part). */
static int finding_under(const rescue_lint_finding *f, const char *field) {
  size_t n = strlen(field);
  return f->field && strncmp(f->field, field, n) == 0 &&
         (f->field[n] == 0 || f->field[n] == '[' || f->field[n] == '.');
}

/* Copy of finding f appended to res. */
static int finding_copy(rescue_lint_result *res, const rescue_lint_finding *f) {
  rescue_lint_finding *g;
  if (RESCUE_ALLOC_GROW(res->findings, res->n + 1, res->cap))
    return RESCUE_ENOMEM;
  g = &res->findings[res->n++];
  *g = *f;
  g->sample_id = rescue_strdup(f->sample_id);
  g->field = f->field ? rescue_strdup(f->field) : NULL;
  g->reason = rescue_strdup(f->reason);
  g->suggestions = f->suggestions ? rescue_strdup(f->suggestions) : NULL;
  if (f->severity == RESCUE_LINT_ERROR)
    res->errors++;
  else
    res->warnings++;
  return 0;
}

/* ---- the state ---- */

static int prov_fill(rescue_curate_prov *p, const leaf *l) {
  p->how = rescue_strdup(how_names[l->how]);
  p->policy = l->policy ? rescue_strdup(l->policy) : NULL;
  p->from = l->from ? rescue_strdup(l->from) : NULL;
  p->by = l->by ? rescue_strdup(l->by) : NULL;
  p->at = l->at ? rescue_strdup(l->at) : NULL;
  return p->how && (!l->policy || p->policy) && (!l->from || p->from) && (!l->by || p->by) &&
         (!l->at || p->at);
}

/* Everyone's comments on row r (its row_id set) into r, in time order. */
static int row_comments(cur *c, rescue_curate_row *r) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "curate_row_comments");
  int rc, cap = 0;
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":row_id", r->row_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    rescue_curate_comment *k;
    if (RESCUE_ALLOC_GROW(r->comments, r->n_comments + 1, cap)) {
      sqlite3_reset(s);
      return nomem(c->st);
    }
    k = &r->comments[r->n_comments++];
    k->annotator = dup_col(s, 0);
    k->text = dup_col(s, 1);
    k->created_at = dup_col(s, 2);
    if ((sqlite3_column_type(s, 0) != SQLITE_NULL && !k->annotator) || !k->text || !k->created_at) {
      sqlite3_reset(s);
      return nomem(c->st);
    }
  }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(c->st, "reading comments");
}

/* The coders whose row aligned to row r (r->row_id set) is another row of theirs, into r. */
static int row_sources(cur *c, const rescue_curate_state *s, rescue_curate_row *r) {
  if (!(r->sources = rescue_calloc((size_t)c->K + 1, sizeof *r->sources)))
    return nomem(c->st);
  for (int i = 0; i < c->K; i++) {
    const ccoder *k = &c->c[i];
    rescue_curate_source *x;
    if (k->src < 0 || k->vs.row_ids[k->src] == r->row_id)
      continue;
    x = &r->sources[r->n_sources++];
    x->coder = s->coders[i].name;
    x->row_id = k->vs.row_ids[k->src];
    row_times(&k->vs, k->src, &x->start_time, &x->end_time);
  }
  return 0;
}

/* The state of row p (the leaves built) into r. */
static int row_out(cur *c, int p, rescue_curate_state *s, rescue_curate_row *r) {
  rescue_buf text = RESCUE_BUF_INIT;
  rescue_lint_result all;
  int i, rc;
  memset(&all, 0, sizeof all);
  r->position = p;
  r->row_id = c->gv.row_ids[p - 1];
  r->gold_version = c->gold_id;
  if ((rc = row_version(c, r->row_id, &r->version)) || (rc = row_comments(c, r)))
    return rc;
  if (!(r->values = rescue_calloc((size_t)c->n + 1, sizeof *r->values)) ||
      (rc = row_sources(c, s, r)))
    return rc ? rc : nomem(c->st);
  for (i = 0; i < c->n; i++) {
    rescue_curate_value_set *v = &r->values[r->n_values++];
    char *tok[3] = {0}, **vals = rescue_calloc((size_t)c->K + 1, sizeof *vals);
    int n = split_path(c->lv[i].path, tok), same = 1, first = -1, k;
    if (!vals || !(v->path = rescue_strdup(c->lv[i].path)) || !prov_fill(&v->prov, &c->lv[i]) ||
        !(v->values = rescue_calloc((size_t)c->K + 1, sizeof *v->values))) {
      rescue_free(vals);
      free_tokens(tok);
      return nomem(c->st);
    }
    v->decided = c->lv[i].how != HOW_UNDECIDED;
    if (v->decided && c->lv[i].val && !(v->gold = rescue_strdup(c->lv[i].val)))
      rc = nomem(c->st);
    for (k = 0; k < c->K && n > 0; k++) {
      rescue_curate_value *x = &v->values[v->n_values++];
      x->coder = s->coders[k].name;
      x->has_row = c->c[k].row != NULL;
      x->value = canon(resolve(c->c[k].row, tok, n));
      if (votes_on(c, k, tok[0])) {
        if (first < 0)
          first = k;
        else
          same &= same_text(x->value, v->values[first].value);
      }
    }
    v->differ = !same;
    r->undecided += !v->decided;
    s->values++;
    s->decided += v->decided;
    free_tokens(tok);
    rescue_free(vals);
  }
  if (!rc && !(rc = build_row(c, 1, &text)) && !(rc = lint_text(c, p, &text, &all)))
    for (i = 0; i < all.n && !rc; i++) {
      int open = all.findings[i].row != p;
      for (int j = 0; j < c->n && !open; j++)
        if (c->lv[j].how == HOW_UNDECIDED) {
          char *tk[3] = {0};
          if (split_path(c->lv[j].path, tk) > 0)
            open = finding_under(&all.findings[i], tk[0]);
          free_tokens(tk);
        }
      if (!open && finding_copy(&r->lint, &all.findings[i]))
        rc = nomem(c->st);
    }
  rescue_lint_result_clear(&all);
  rescue_buf_clear(&text);
  return rc;
}

int rescue_curate_load(rescue_store *st, const char *sample_id, rescue_curate_state *out) {
  cur c;
  int rc, p;
  memset(out, 0, sizeof *out);
  if ((rc = cur_open(&c, st, sample_id)))
    goto end;
  if (!(out->sample_id = rescue_strdup(sample_id)) ||
      !(out->coders = rescue_calloc((size_t)c.K + 1, sizeof *out->coders)) ||
      !(out->rows = rescue_calloc((size_t)c.gv.n + 1, sizeof *out->rows))) {
    rc = nomem(st);
    goto end;
  }
  out->rowset_id = c.gv.rowset_id;
  for (int i = 0; i < c.K; i++) {
    out->coders[i].name = rescue_strdup(c.c[i].name);
    out->coders[i].kind = rescue_strdup(c.c[i].kind);
    out->n_coders++;
    if (!out->coders[i].name || !out->coders[i].kind) {
      rc = nomem(st);
      goto end;
    }
  }
  for (p = 1; p <= c.gv.n && !rc; p++) {
    if (!(rc = row_state(&c, p, 0)))
      rc = row_out(&c, p, out, &out->rows[out->n_rows++]);
  }
end:
  cur_free(&c);
  return rc;
}

void rescue_curate_state_clear(rescue_curate_state *s) {
  int i, j, k;
  for (i = 0; i < s->n_rows; i++) {
    rescue_curate_row *r = &s->rows[i];
    for (j = 0; j < r->n_values; j++) {
      rescue_curate_value_set *v = &r->values[j];
      rescue_free(v->path);
      rescue_free(v->gold);
      rescue_free(v->prov.how);
      rescue_free(v->prov.policy);
      rescue_free(v->prov.from);
      rescue_free(v->prov.by);
      rescue_free(v->prov.at);
      for (k = 0; k < v->n_values; k++)
        rescue_free(v->values[k].value);
      rescue_free(v->values);
    }
    rescue_free(r->values);
    rescue_lint_result_clear(&r->lint);
    for (j = 0; j < r->n_comments; j++) {
      rescue_free(r->comments[j].annotator);
      rescue_free(r->comments[j].text);
      rescue_free(r->comments[j].created_at);
    }
    rescue_free(r->comments);
    rescue_free(r->sources);
  }
  rescue_free(s->rows);
  for (i = 0; i < s->n_coders; i++) {
    rescue_free(s->coders[i].name);
    rescue_free(s->coders[i].kind);
  }
  rescue_free(s->coders);
  rescue_free(s->sample_id);
  memset(s, 0, sizeof *s);
}

static void raw_or_null(rescue_jw *w, const char *v) {
  if (v)
    rescue_jw_raw(w, v, strlen(v));
  else
    rescue_jw_null(w);
}

/* "aligned": the coders' other rows shown on row r (rescue_curate_source). */
static void put_sources_json(rescue_jw *w, const rescue_curate_row *r) {
  rescue_jw_key(w, "aligned");
  rescue_jw_arr(w);
  for (int j = 0; j < r->n_sources; j++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "coder");
    rescue_jw_str(w, r->sources[j].coder);
    rescue_jw_key(w, "row_id");
    rescue_jw_int(w, r->sources[j].row_id);
    rescue_jw_key(w, "start_time");
    rescue_jw_double(w, r->sources[j].start_time);
    rescue_jw_key(w, "end_time");
    rescue_jw_double(w, r->sources[j].end_time);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

static void put_row_json(rescue_jw *w, const rescue_curate_row *r) {
  rescue_buf f = RESCUE_BUF_INIT;
  int j, k;
  rescue_jw_obj(w);
  rescue_jw_key(w, "row");
  rescue_jw_int(w, r->position);
  rescue_jw_key(w, "row_id");
  rescue_jw_int(w, r->row_id);
  rescue_jw_key(w, "version");
  rescue_jw_int(w, r->version);
  rescue_jw_key(w, "gold_version");
  if (r->gold_version)
    rescue_jw_int(w, r->gold_version);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "undecided");
  rescue_jw_int(w, r->undecided);
  rescue_jw_key(w, "findings");
  rescue_jw_arr(w);
  for (j = 0; j < r->lint.n; j++) {
    const rescue_lint_finding *x = &r->lint.findings[j];
    char rule[8];
    snprintf(rule, sizeof rule, "R%02d", x->rule);
    rescue_jw_obj(w);
    rescue_jw_key(w, "rule");
    rescue_jw_str(w, rule);
    rescue_jw_key(w, "severity");
    rescue_jw_str(w, x->severity == RESCUE_LINT_ERROR ? "error" : "warning");
    rescue_jw_key(w, "field");
    rescue_jw_str_or_null(w, x->field);
    rescue_jw_key(w, "reason");
    rescue_jw_str(w, x->reason);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "comments");
  rescue_jw_arr(w);
  for (j = 0; j < r->n_comments; j++) {
    rescue_jw_obj(w);
    rescue_jw_key(w, "annotator");
    rescue_jw_str_or_null(w, r->comments[j].annotator);
    rescue_jw_key(w, "text");
    rescue_jw_str(w, r->comments[j].text);
    rescue_jw_key(w, "created_at");
    rescue_jw_str(w, r->comments[j].created_at);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  put_sources_json(w, r);
  rescue_jw_key(w, "values");
  rescue_jw_arr(w);
  for (j = 0; j < r->n_values; j++) {
    const rescue_curate_value_set *v = &r->values[j];
    rescue_jw_obj(w);
    rescue_jw_key(w, "path");
    rescue_jw_str(w, v->path);
    rescue_jw_key(w, "field");
    {
      const char *e = strchr(v->path + 1, '/');
      rescue_buf_reset(&f);
      rescue_buf_putn(&f, v->path + 1, e ? (size_t)(e - v->path - 1) : strlen(v->path + 1));
      rescue_jw_strn(w, f.s ? f.s : "", f.len);
    }
    rescue_jw_key(w, "decided");
    rescue_jw_bool(w, v->decided);
    rescue_jw_key(w, "differ");
    rescue_jw_bool(w, v->differ);
    rescue_jw_key(w, "gold");
    raw_or_null(w, v->gold);
    rescue_jw_key(w, "provenance");
    rescue_jw_obj(w);
    rescue_jw_key(w, "how");
    rescue_jw_str(w, v->prov.how);
    rescue_jw_key(w, "policy");
    rescue_jw_str_or_null(w, v->prov.policy);
    rescue_jw_key(w, "from");
    rescue_jw_str_or_null(w, v->prov.from);
    rescue_jw_key(w, "by");
    rescue_jw_str_or_null(w, v->prov.by);
    rescue_jw_key(w, "at");
    rescue_jw_str_or_null(w, v->prov.at);
    rescue_jw_end(w);
    rescue_jw_key(w, "coders");
    rescue_jw_arr(w);
    for (k = 0; k < v->n_values; k++) {
      rescue_jw_obj(w);
      rescue_jw_key(w, "coder");
      rescue_jw_str(w, v->values[k].coder);
      rescue_jw_key(w, "value");
      raw_or_null(w, v->values[k].value);
      rescue_jw_key(w, "present");
      rescue_jw_bool(w, v->values[k].value != NULL);
      rescue_jw_key(w, "has_row");
      rescue_jw_bool(w, v->values[k].has_row);
      rescue_jw_end(w);
    }
    rescue_jw_end(w);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_end(w);
  rescue_buf_clear(&f);
}

void rescue_curate_state_json(const rescue_curate_state *s, int only_row, rescue_buf *out) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, s->sample_id);
  rescue_jw_key(&w, "rowset");
  rescue_jw_int(&w, s->rowset_id);
  rescue_jw_key(&w, "coders");
  rescue_jw_arr(&w);
  for (i = 0; i < s->n_coders; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "name");
    rescue_jw_str(&w, s->coders[i].name);
    rescue_jw_key(&w, "kind");
    rescue_jw_str(&w, s->coders[i].kind);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "values");
  rescue_jw_int(&w, s->values);
  rescue_jw_key(&w, "decided");
  rescue_jw_int(&w, s->decided);
  rescue_jw_key(&w, "rows");
  rescue_jw_arr(&w);
  for (i = 0; i < s->n_rows; i++)
    if (only_row <= 0 || s->rows[i].position == only_row)
      put_row_json(&w, &s->rows[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}

/* One sample of the queue: its counts as rescue_curate_load gives them, without lint. */
typedef struct queue_counts {
  long rows, gold, values, undecided;
} queue_counts;

/*
** Annotator id's view of row set rowset_id, read flat (view_rows_annotator_flat, the query
** the sample iterator runs for such a row set) into *vs: row ids, versions and the rows,
** parsed as one array into vs->doc. 0 or an error on the handle.
*/
static int flat_view(cur *c, int64_t rowset_id, int64_t id, rescue_view_sample *vs) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "view_rows_annotator_flat");
  const rescue_jnode *arr, *e;
  rescue_jerror je;
  int rc, i, cap = 0, cap2 = 0;
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":annotator_id", id);
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  rescue_buf_putc(&vs->json, '[');
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(vs->row_ids, vs->n + 1, cap) ||
        RESCUE_ALLOC_GROW(vs->versions, vs->n + 1, cap2)) {
      sqlite3_reset(s);
      return nomem(c->st);
    }
    vs->row_ids[vs->n] = sqlite3_column_int64(s, 0);
    vs->versions[vs->n] = sqlite3_column_int64(s, 2);
    if (vs->n++)
      rescue_buf_putc(&vs->json, ',');
    if (sqlite3_column_text(s, 5))
      rescue_buf_putn(&vs->json, sqlite3_column_text(s, 5), (size_t)sqlite3_column_bytes(s, 5));
    else
      rescue_buf_puts(&vs->json, "null");
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(c->st, "reading rows");
  rescue_buf_putc(&vs->json, ']');
  vs->rowset_id = rowset_id;
  vs->n_rows = vs->n;
  if (!rescue_buf_ok(&vs->json) || !(vs->doc = rescue_jdoc_new()) ||
      !(vs->rows = rescue_calloc((size_t)vs->n + 1, sizeof *vs->rows)))
    return nomem(c->st);
  if (!(arr = rescue_jparse(vs->doc, vs->json.s, vs->json.len, &je)))
    return rescue_seterr(rescue_store_err(c->st), RESCUE_EINTERNAL, "stored rows: %s", je.msg);
  for (i = 0, e = arr->child; e && i < vs->n; e = e->next, i++)
    vs->rows[i] = e->type == RESCUE_JOBJECT ? e : NULL;
  return 0;
}

/* cur_open for a sample whose rows read flat (curate_queue_samples), views flat_view's. */
static int cur_open_flat(cur *c, rescue_store *st, const char *sample_id, int64_t ref,
                         int64_t rowset_id) {
  int64_t adj = 0;
  int rc;
  memset(c, 0, sizeof *c);
  c->st = st;
  c->sample_id = sample_id;
  if (!(c->doc = rescue_jdoc_new()))
    return nomem(st);
  if ((rc = cur_coders(c, ref)))
    return rc;
  for (int i = 0; i < c->K; i++)
    if ((rc = flat_view(c, rowset_id, c->c[i].id, &c->c[i].vs)))
      return rc;
  if (rescue_annotator_id(st, RESCUE_ADJUDICATION_ANNOTATOR, NULL, 0, &adj))
    adj = 0;
  if ((rc = flat_view(c, rowset_id, adj, &c->gv)))
    return rc;
  c->gv.ref = ref;
  return cur_align(c);
}

/*
** The counts of sample_id for the queue: the leaves of each row of the gold row set (as
** rescue_curate_load builds them) counted, without the lint, the coders' values per leaf
** or the comments the state carries. flat: its rows read flat (rowset_id the base one).
*/
static int queue_sample(rescue_store *st, const char *sample_id, int64_t ref, int64_t rowset_id,
                        int flat, queue_counts *q, cur *c) {
  int rc, p, i;
  memset(q, 0, sizeof *q);
  if ((rc = flat ? cur_open_flat(c, st, sample_id, ref, rowset_id) : cur_open(c, st, sample_id)))
    return rc;
  q->rows = c->gv.n;
  for (p = 1; p <= c->gv.n && !rc; p++) {
    if ((rc = row_state(c, p, 0)))
      break;
    q->gold += c->gold_id != 0;
    q->values += c->n;
    for (i = 0; i < c->n; i++)
      q->undecided += c->lv[i].how == HOW_UNDECIDED;
  }
  return rc;
}

int rescue_curate_queue_json(rescue_store *st, int open_only, rescue_buf *out) {
  sqlite3_stmt *s = rescue_store_stmt(st, "curate_queue_samples");
  char **ids = NULL;
  int64_t *refs = NULL; /* per sample: ref, base row set, rows read flat */
  int n = 0, cap = 0, cap_r = 0, rc, i;
  rescue_jw w;
  if (!s)
    return rescue_store_err(st)->code;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(ids, n + 1, cap) || RESCUE_ALLOC_GROW(refs, 3 * (n + 1), cap_r) ||
        !(ids[n] = dup_col(s, 1))) {
      rc = SQLITE_NOMEM;
      break;
    }
    refs[3 * n] = sqlite3_column_int64(s, 0);
    refs[3 * n + 1] = sqlite3_column_int64(s, 2);
    refs[3 * n + 2] = sqlite3_column_int64(s, 3);
    n++;
  }
  sqlite3_reset(s);
  rc = rc == SQLITE_DONE ? 0 : rc == SQLITE_NOMEM ? nomem(st) : rescue_store_sqlerr(st, "samples");
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_arr(&w);
  for (i = 0; i < n && !rc; i++) {
    queue_counts q;
    cur c;
    if ((rc = queue_sample(st, ids[i], refs[3 * i], refs[3 * i + 1], (int)refs[3 * i + 2], &q,
                           &c)) == 0 &&
        (!open_only || q.undecided)) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "sample_id");
      rescue_jw_str(&w, ids[i]);
      rescue_jw_key(&w, "rows");
      rescue_jw_int(&w, q.rows);
      rescue_jw_key(&w, "gold_rows");
      rescue_jw_int(&w, q.gold);
      rescue_jw_key(&w, "values");
      rescue_jw_int(&w, q.values);
      rescue_jw_key(&w, "undecided");
      rescue_jw_int(&w, q.undecided);
      rescue_jw_key(&w, "coders");
      rescue_jw_arr(&w);
      for (int k = 0; k < c.K; k++)
        rescue_jw_str(&w, c.c[k].name);
      rescue_jw_end(&w);
      rescue_jw_end(&w);
    }
    cur_free(&c);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  for (i = 0; i < n; i++)
    rescue_free(ids[i]);
  rescue_free(ids);
  rescue_free(refs);
  if (!rc && !rescue_buf_ok(out))
    rc = nomem(st);
  return rc;
}

/* ---- deciding ---- */

/* The lead: a registered annotator with role lead (another: RESCUE_EBADINPUT). */
static int lead_of(rescue_store *st, const char *lead, int64_t *id) {
  const char *role = NULL;
  int rc;
  if (!lead)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "decisions are a lead's: name one");
  if ((rc = rescue_annotator_lookup(st, lead, id, &role, NULL)))
    return rc;
  /* the name is right, the corpus refuses it (exit 1, as for a retired annotator) */
  if (strcmp(role, "lead") != 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT,
                         "'%s' is not a lead (role %s): decisions are a lead's", lead, role);
  return 0;
}

/* Write a gold version of the row the leaves make, with every value's provenance. */
static int write_gold(cur *c, int p, const char *now, int64_t *gold_version) {
  rescue_buf text = RESCUE_BUF_INIT, src = RESCUE_BUF_INIT;
  rescue_row_input in;
  rescue_jerror je;
  const rescue_jnode *root, *bad;
  sqlite3_stmt *s;
  int64_t adj, vid = 0;
  int rc, i, n = 0;
  memset(&in, 0, sizeof in);
  if ((rc = build_row(c, 0, &text)))
    goto end;
  if (c->gold_text && strcmp(c->gold_text, text.s) == 0)
    goto end;
  if (!(root = rescue_jparse(c->doc, text.s, text.len, &je))) {
    rc =
        rescue_seterr(rescue_store_err(c->st), RESCUE_EINTERNAL, "gold does not parse: %s", je.msg);
    goto end;
  }
  if ((rc = rescue_row_input_from_json(rescue_store_scheme(c->st), root, &in, &bad,
                                       rescue_store_err(c->st))) ||
      (rc = rescue_annotator_id(c->st, RESCUE_ADJUDICATION_ANNOTATOR, "lead", 1, &adj)))
    goto end;
  rescue_buf_putc(&src, '[');
  for (i = 0; i < c->K; i++)
    if (votes_on(c, i, NULL))
      rescue_buf_printf(&src, "%s%lld", n++ ? ", " : "", (long long)c->c[i].version);
  rescue_buf_putc(&src, ']');
  if (!rescue_buf_ok(&src)) {
    rc = nomem(c->st);
    goto end;
  }
  if ((rc = rescue_store_add_row_version(c->st, c->gv.row_ids[p - 1], adj, "gold", &in,
                                         RESCUE_CURATE_POLICY, src.s, &vid)))
    goto end;
  if (!(s = rescue_store_stmt(c->st, "curate_provenance_insert"))) {
    rc = rescue_store_err(c->st)->code;
    goto end;
  }
  for (i = 0; i < c->n && !rc; i++) {
    const leaf *l = &c->lv[i];
    ccoder *from = l->from ? coder_named(c, l->from) : NULL;
    int64_t by = 0;
    rescue_bind_int(s, ":version_id", vid);
    rescue_bind_text(s, ":path", l->path, -1);
    rescue_bind_text(s, ":how", how_names[l->how], -1);
    rescue_bind_text(s, ":policy", l->policy, -1);
    if (from)
      rescue_bind_int(s, ":coder_id", from->id);
    else
      rescue_bind_null(s, ":coder_id");
    if (l->by && rescue_annotator_id(c->st, l->by, NULL, 0, &by) == 0)
      rescue_bind_int(s, ":decided_by", by);
    else
      rescue_bind_null(s, ":decided_by");
    if (l->decision_id)
      rescue_bind_int(s, ":decision_id", l->decision_id);
    else
      rescue_bind_null(s, ":decision_id");
    rescue_bind_text(s, ":at", l->at ? l->at : now, -1);
    if (sqlite3_step(s) != SQLITE_DONE)
      rc = rescue_store_sqlerr(c->st, "recording provenance");
    sqlite3_reset(s);
  }
  *gold_version = vid;
end:
  rescue_row_input_clear(&in);
  rescue_buf_clear(&text);
  rescue_buf_clear(&src);
  return rc;
}

/* Record the decision (value NULL: absent). */
static int record(cur *c, int64_t row_id, char *const tok[3], int n, const char *path,
                  const char *value, const ccoder *take, int64_t lead_id, const char *how,
                  int64_t undoes, const char *now) {
  sqlite3_stmt *s = rescue_store_stmt(c->st, "curate_decision_insert");
  if (!s)
    return rescue_store_err(c->st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  rescue_bind_text(s, ":field", tok[0], -1);
  rescue_bind_text(s, ":value", value, -1);
  if (take)
    rescue_bind_int(s, ":take_id", take->id);
  else
    rescue_bind_null(s, ":take_id");
  rescue_bind_int(s, ":lead_id", lead_id);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_text(s, ":path", n > 1 ? path : NULL, -1);
  rescue_bind_text(s, ":how", how, -1);
  if (undoes)
    rescue_bind_int(s, ":undoes", undoes);
  else
    rescue_bind_null(s, ":undoes");
  if (sqlite3_step(s) != SQLITE_DONE) {
    sqlite3_reset(s);
    return rescue_store_sqlerr(c->st, "recording a decision");
  }
  sqlite3_reset(s);
  return 0;
}

/*
** Undo `undo_id` left a value of row_id undecided: the gold versions curation wrote since
** the row's last policy gold no longer match the decisions. They are retired (kept in
** gold_retired, deleted from row_version with their provenance and references), so the
** row shows the policy's gold, or none. 0 or an error on the handle.
*/
static int retire_gold(cur *c, int64_t row_id, int64_t undo_id, const char *now) {
  static const char *const steps[] = {"curate_retire_gold", "curate_retired_provenance",
                                      "curate_retired_refs", "curate_retired_versions"};
  for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
    sqlite3_stmt *s = rescue_store_stmt(c->st, steps[i]);
    int rc;
    if (!s)
      return rescue_store_err(c->st)->code;
    rescue_bind_int(s, ":undo_id", undo_id);
    if (i == 0) {
      rescue_bind_int(s, ":row_id", row_id);
      rescue_bind_text(s, ":now", now, -1);
    }
    rc = sqlite3_step(s);
    sqlite3_reset(s);
    if (rc != SQLITE_DONE)
      return rescue_store_sqlerr(c->st, "retiring a gold version");
  }
  return 0;
}

/* 1 when any coder's row, or the leaves, know the path. */
static int known_path(cur *c, const char *path, char *const tok[3], int n) {
  int i;
  for (i = 0; i < c->n; i++)
    if (strcmp(c->lv[i].path, path) == 0 || inside(c->lv[i].path, path) ||
        inside(path, c->lv[i].path))
      return 1;
  for (i = 0; i < c->K; i++)
    if (resolve(c->c[i].row, tok, n))
      return 1;
  return 0;
}

/* The canonical path of a field name or pointer into out; tok filled. The count or -1. */
static int norm_path(const char *field, char *tok[3], rescue_buf *out) {
  int n = split_path(field, tok), i;
  rescue_buf_reset(out);
  for (i = 0; i < n; i++) {
    rescue_buf_putc(out, '/');
    put_token(out, tok[i]);
  }
  return rescue_buf_ok(out) ? n : -1;
}

/*
** The value coder d->take has at the path (tok, n) into *value (NULL: absent there), the
** coder into *take (the value of their row aligned to it). RESCUE_EBADINPUT for a name
** that is no coder of the sample or a coder without a row aligned to it.
*/
static int taken_value(cur *c, const rescue_curate_decision *d, char *const tok[3], int n,
                       ccoder **take, char **value) {
  rescue_error *err = rescue_store_err(c->st);
  int64_t id;
  if (!d->take || !(*take = coder_named(c, d->take))) {
    if (d->take && strcmp(d->take, "draft") != 0 &&
        rescue_annotator_lookup(c->st, d->take, &id, NULL, NULL)) {
      char msg[400]; /* the lookup's message names the closest names */
      snprintf(msg, sizeof msg, "%s", rescue_store_errmsg(c->st));
      return rescue_seterr(err, RESCUE_EBADINPUT, "%s", msg);
    }
    return rescue_seterr(err, RESCUE_EBADINPUT, "'%s' has no version of sample '%s'",
                         d->take ? d->take : "", d->sample_id);
  }
  if (!(*take)->row)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "no row of %s's row set aligns with row %d of the gold row set",
                         (*take)->name, d->row);
  *value = canon(resolve((*take)->row, tok, n));
  return 0;
}

/* The value d gives, canonical, into *value; RESCUE_EBADINPUT when it is not JSON. */
static int given_value(cur *c, const rescue_curate_decision *d, char **value) {
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jerror je;
  const rescue_jnode *j = NULL;
  rescue_buf_putc(&b, '['); /* a value of any type, parsed as the one item of a list */
  if (d->value)
    rescue_buf_putn(&b, d->value, d->value_len);
  rescue_buf_putc(&b, ']');
  if (d->value && rescue_buf_ok(&b) && (j = rescue_jparse(c->doc, b.s, b.len, &je)))
    j = j->len == 1 ? j->child : NULL;
  if (j && !(*value = canon(j))) {
    rescue_buf_clear(&b);
    return nomem(c->st);
  }
  rescue_buf_clear(&b);
  return j ? 0 : rescue_seterr(rescue_store_err(c->st), RESCUE_EBADINPUT, "the value is not JSON");
}

/*
** RESCUE_EBADINPUT (the rule's reason on the handle) when the row as it would be (lint
** `after`) has an error on row p that it had not before (pre), or one under field; else 0.
*/
static int lint_refuses(cur *c, int p, const rescue_lint_result *pre,
                        const rescue_lint_result *after, const char *field) {
  int i, j;
  for (i = 0; i < after->n; i++) {
    const rescue_lint_finding *f = &after->findings[i];
    int old = 0;
    if (f->severity != RESCUE_LINT_ERROR || f->row != p)
      continue;
    for (j = 0; j < pre->n && !old; j++)
      old = pre->findings[j].rule == f->rule && same_text(pre->findings[j].field, f->field);
    if (!old || finding_under(f, field))
      return rescue_seterr(rescue_store_err(c->st), RESCUE_EBADINPUT, "R%02d %s: %s", f->rule,
                           f->field ? f->field : "", f->reason);
  }
  return 0;
}

/*
** One decision inside the caller's transaction (the API's and the decisions file's): the
** version and the path checked, the value found, the row linted before and after, the
** decision recorded, gold written when nothing is left undecided. A refusal is
** RESCUE_EBADINPUT or RESCUE_ECONFLICT with the reason on the handle; out->lint holds the
** findings when lint refused.
*/
static int decide_one(rescue_store *st, int64_t lead_id, const char *lead,
                      const rescue_curate_decision *d, const char *now,
                      rescue_curate_outcome *out) {
  cur c;
  char *tok[3] = {0}, *value = NULL;
  rescue_buf path = RESCUE_BUF_INIT, before = RESCUE_BUF_INIT, after = RESCUE_BUF_INIT;
  rescue_lint_result pre;
  rescue_error *err = rescue_store_err(st);
  ccoder *take = NULL;
  int64_t row_id, v, undoes = 0, undo_id;
  int rc, n, i;
  memset(&pre, 0, sizeof pre);
  if ((rc = cur_open(&c, st, d->sample_id)))
    goto end;
  if (d->row < 1 || d->row > c.gv.n) {
    rc = rescue_seterr(err, RESCUE_ENOTFOUND, "sample '%s' has no row %d", d->sample_id, d->row);
    goto end;
  }
  row_id = c.gv.row_ids[d->row - 1];
  if ((rc = row_version(&c, row_id, &v)))
    goto end;
  if (d->base_version >= 0 && d->base_version != v) {
    rc = rescue_seterr(err, RESCUE_ECONFLICT,
                       "row %d was decided since (version %lld, you saw %lld): look again", d->row,
                       (long long)v, (long long)d->base_version);
    goto end;
  }
  if ((n = norm_path(d->field ? d->field : "", tok, &path)) < 1) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT,
                       "'%s' is not a field name or a pointer /field[/item[/part]]",
                       d->field ? d->field : "");
    goto end;
  }
  if (strcmp(tok[0], "row_index") == 0) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT,
                       "row_index is the row's position in the gold row set (%d), not a decision",
                       d->row);
    goto end;
  }
  if ((rc = row_state(&c, d->row, 0)))
    goto end;
  if (!known_path(&c, path.s, tok, n)) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT, "row %d has no %s '%s'", d->row,
                       n == 1   ? "field"
                       : n == 2 ? "item"
                                : "part",
                       path.s);
    goto end;
  }
  if ((rc = build_row(&c, 1, &before)) || (rc = lint_text(&c, d->row, &before, &pre)))
    goto end;
  switch (d->op) {
  case RESCUE_CURATE_TAKE: rc = taken_value(&c, d, tok, n, &take, &value); break;
  case RESCUE_CURATE_VALUE: rc = given_value(&c, d, &value); break;
  case RESCUE_CURATE_UNDO:
    for (i = c.n_dec - 1; i >= 0 && !undoes; i--)
      if (!c.dec[i].undone && !c.dec[i].undoes && strcmp(c.dec[i].path, path.s) == 0)
        undoes = c.dec[i].id;
    if (!undoes)
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "row %d has no decision on '%s' to undo", d->row,
                         path.s);
    break;
  }
  if (rc)
    goto end;
  if (d->op == RESCUE_CURATE_UNDO) {
    if ((rc = row_state(&c, d->row, undoes)))
      goto end;
  } else {
    leaf with = {0};
    char why[300];
    with.val = value;
    with.how = take ? HOW_TAKEN : HOW_EDITED;
    with.from = take ? take->name : NULL;
    with.by = (char *)lead;
    with.at = (char *)now;
    if ((rc = put_value(&c, path.s, tok, n, &with, why, sizeof why))) {
      if (rc == RESCUE_EBADINPUT)
        rescue_seterr(err, RESCUE_EBADINPUT, "%s", why);
      goto end;
    }
  }
  if ((rc = build_row(&c, 1, &after)) || (rc = lint_text(&c, d->row, &after, &out->lint)))
    goto end;
  if (d->op != RESCUE_CURATE_UNDO && (rc = lint_refuses(&c, d->row, &pre, &out->lint, tok[0])))
    goto end;
  if ((rc = record(&c, row_id, tok, n, path.s, value, take, lead_id,
                   d->op == RESCUE_CURATE_TAKE    ? "take"
                   : d->op == RESCUE_CURATE_VALUE ? "value"
                                                  : "undo",
                   undoes, now)))
    goto end;
  undo_id = d->op == RESCUE_CURATE_UNDO ? sqlite3_last_insert_rowid(rescue_store_db(st)) : 0;
  if ((rc = row_state(&c, d->row, 0)))
    goto end;
  for (i = 0; i < c.n && c.lv[i].how != HOW_UNDECIDED; i++)
    ;
  if (i == c.n && c.n && (rc = write_gold(&c, d->row, now, &out->gold_version)))
    goto end;
  /* an undo that reopens the row takes back the gold its decisions no longer make */
  if (i < c.n && undo_id && (rc = retire_gold(&c, row_id, undo_id, now)))
    goto end;
  rc = row_version(&c, row_id, &out->version);
end:
  free_tokens(tok);
  rescue_free(value);
  rescue_buf_clear(&path);
  rescue_buf_clear(&before);
  rescue_buf_clear(&after);
  rescue_lint_result_clear(&pre);
  cur_free(&c);
  return rc;
}

/*
** Write a gold version of every row of c's sample that has none and nothing undecided
** (values agreed by all coders), inside the caller's transaction; *written counts them.
*/
static int gold_complete(cur *c, const char *now, int *written) {
  int p, i, rc = 0;
  for (p = 1; p <= c->gv.n && !rc; p++) {
    int64_t vid = 0;
    if ((rc = row_state(c, p, 0)) || c->gold_id || !c->n)
      continue;
    for (i = 0; i < c->n && c->lv[i].how != HOW_UNDECIDED; i++)
      ;
    if (i == c->n && !(rc = write_gold(c, p, now, &vid)) && vid)
      ++*written;
  }
  return rc;
}

/* gold_complete for sample_id in its own cur. */
static int gold_complete_sample(rescue_store *st, const char *sample_id, const char *now,
                                int *written) {
  cur c;
  int rc = cur_open(&c, st, sample_id);
  if (!rc)
    rc = gold_complete(&c, now, written);
  cur_free(&c);
  return rc;
}

/* Log decision d by lead in the audit log (inside the caller's transaction). */
static int log_decision(rescue_store *st, const char *lead, const rescue_curate_decision *d) {
  rescue_audit_entry e = {0};
  rescue_buf detail = RESCUE_BUF_INIT;
  int rc;
  rescue_buf_printf(&detail, "%s row %d %s: ", d->sample_id, d->row, d->field ? d->field : "");
  if (d->op == RESCUE_CURATE_TAKE)
    rescue_buf_printf(&detail, "take %s", d->take ? d->take : "");
  else if (d->op == RESCUE_CURATE_VALUE)
    rescue_buf_printf(&detail, "value %.*s", (int)(d->value_len > 200 ? 200 : d->value_len),
                      d->value ? d->value : "");
  else
    rescue_buf_puts(&detail, "undo");
  e.action = "curate";
  e.annotator = lead;
  e.detail = detail.s;
  rc = rescue_buf_ok(&detail) ? rescue_audit_write(st, &e) : nomem(st);
  rescue_buf_clear(&detail);
  return rc;
}

int rescue_curate_decide(rescue_store *st, const char *lead, const rescue_curate_decision *d,
                         rescue_curate_outcome *out) {
  int64_t lead_id;
  char now[32];
  int rc, written = 0;
  memset(out, 0, sizeof *out);
  if ((rc = lead_of(st, lead, &lead_id)) || (rc = rescue_store_begin(st)))
    return rc;
  rescue_now_iso(now);
  if ((rc = decide_one(st, lead_id, lead, d, now, out)) ||
      (rc = gold_complete_sample(st, d->sample_id, now, &written)) ||
      (rc = log_decision(st, lead, d))) {
    rescue_store_rollback(st);
    return rc;
  }
  return rescue_store_commit(st);
}

void rescue_curate_outcome_clear(rescue_curate_outcome *o) {
  rescue_lint_result_clear(&o->lint);
  memset(o, 0, sizeof *o);
}

int rescue_curate_segmentation(rescue_store *st, const char *lead, const char *sample_id,
                               const char *from) {
  cur c;
  ccoder *k;
  int64_t lead_id;
  int rc;
  if ((rc = lead_of(st, lead, &lead_id)))
    return rc;
  if ((rc = cur_open(&c, st, sample_id)))
    goto end;
  if (!from || !(k = coder_named(&c, from))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "'%s' has no version of sample '%s'",
                       from ? from : "", sample_id);
    goto end;
  }
  {
    /* the coder's (or the draft's) whole row set becomes gold's (annotate/gold_seg.c) */
    rescue_buf why = RESCUE_BUF_INIT;
    int waits = 0;
    char *name = rescue_strdup(k->name);
    cur_free(&c);
    memset(&c, 0, sizeof c);
    if (!name)
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    char now[32];
    int written = 0;
    rescue_now_iso(now);
    if (!name)
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    if ((rc = rescue_store_begin(st)))
      goto seg_end;
    rc = rescue_gold_segmentation_set_by(st, sample_id, name, NULL, 0, lead, &waits, &why);
    if (!rc && waits)
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT, "%s",
                         why.s ? why.s : "no gold segmentation");
    /* rows every coder agrees on get their gold now: nothing is left to decide there */
    if (!rc)
      rc = gold_complete_sample(st, sample_id, now, &written);
    if (rc)
      rescue_store_rollback(st);
    else
      rc = rescue_store_commit(st);
  seg_end:
    rescue_free(name);
    rescue_buf_clear(&why);
    return rc;
  }
end:
  cur_free(&c);
  return rc;
}

/* ---- the provenance of gold a policy wrote (curate_int.h) ---- */

/* Whose segmentation the chosen gold row set of row_id's sample is into *who (0: none). */
static int row_segmenter(rescue_store *st, int64_t row_id, int64_t *who) {
  sqlite3_stmt *s = rescue_store_stmt(st, "curate_sample_of_row");
  char *sid = NULL;
  int64_t ref, rs;
  int rc;
  *who = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW)
    sid = dup_col(s, 0);
  sqlite3_reset(s);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a row's sample");
  rc = sid ? rescue_sample_ref(st, sid, &ref) : nomem(st);
  if (!rc && (rc = rescue_gold_rowset(st, ref, &rs, who)) > 0)
    rc = 0;
  else if (!rc)
    *who = 0;
  rescue_free(sid);
  return rc;
}

int rescue_curate_policy_provenance(rescue_store *st, int64_t version_id, int64_t row_id,
                                    const rescue_jnode *gold, const rescue_jnode *const *rows,
                                    int n, const char *policy, int64_t lead_id) {
  sqlite3_stmt *dq = rescue_store_stmt(st, "curate_decision_in_force");
  sqlite3_stmt *ins = rescue_store_stmt(st, "curate_provenance_insert");
  rescue_buf path = RESCUE_BUF_INIT;
  const rescue_jnode *m;
  char now[32];
  int rc = 0;
  int64_t segmenter = 0;
  if (!dq || !ins)
    return rescue_store_err(st)->code;
  if ((rc = row_segmenter(st, row_id, &segmenter)))
    return rc;
  rescue_now_iso(now);
  for (m = gold->child; m && !rc; m = m->next) {
    char *g = canon(m), *at = NULL;
    int64_t did = 0, take = 0, lead = 0;
    const char *how = "policy";
    int i, agreed = n > 0, step;
    rescue_bind_int(dq, ":row_id", row_id);
    rescue_bind_text(dq, ":field", m->key, -1);
    if ((step = sqlite3_step(dq)) == SQLITE_ROW) {
      did = sqlite3_column_int64(dq, 0);
      take = sqlite3_column_int64(dq, 2);
      lead = sqlite3_column_int64(dq, 3);
      at = dup_col(dq, 4);
      how = take ? "taken" : "edited";
    }
    sqlite3_reset(dq);
    if (step != SQLITE_ROW && step != SQLITE_DONE)
      rc = rescue_store_sqlerr(st, "reading decisions");
    for (i = 0; i < n && agreed && !did; i++) {
      char *v = canon(rescue_jget(rows[i], m->key));
      agreed = same_text(v, g);
      rescue_free(v);
    }
    if (!did && agreed)
      how = "agreed";
    if (!did && segmenter && seg_field(m->key)) {
      how = "policy";
      take = segmenter;
    }
    rescue_buf_reset(&path);
    rescue_buf_putc(&path, '/');
    put_token(&path, m->key);
    if (!rc && (!g || !rescue_buf_ok(&path)))
      rc = nomem(st);
    if (!rc) {
      int policy_how = strcmp(how, "policy") == 0;
      rescue_bind_int(ins, ":version_id", version_id);
      rescue_bind_text(ins, ":path", path.s, -1);
      rescue_bind_text(ins, ":how", how, -1);
      rescue_bind_text(ins, ":policy", policy_how ? (take ? SEG_POLICY : policy) : NULL, -1);
      if (take)
        rescue_bind_int(ins, ":coder_id", take);
      else
        rescue_bind_null(ins, ":coder_id");
      if (did || (policy_how && lead_id && !take))
        rescue_bind_int(ins, ":decided_by", did ? lead : lead_id);
      else
        rescue_bind_null(ins, ":decided_by");
      if (did)
        rescue_bind_int(ins, ":decision_id", did);
      else
        rescue_bind_null(ins, ":decision_id");
      rescue_bind_text(ins, ":at", at ? at : now, -1);
      if (sqlite3_step(ins) != SQLITE_DONE)
        rc = rescue_store_sqlerr(st, "recording provenance");
      sqlite3_reset(ins);
    }
    rescue_free(g);
    rescue_free(at);
  }
  rescue_buf_clear(&path);
  return rc;
}

int rescue_curate_decisions_live(rescue_store *st, int64_t row_id, int *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, "curate_decisions_live");
  int rc;
  *n = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW)
    *n = sqlite3_column_int(s, 0);
  sqlite3_reset(s);
  return rc == SQLITE_ROW ? 0 : rescue_store_sqlerr(st, "reading decisions");
}

int rescue_curate_keep_decisions(rescue_store *st, int64_t row_id, int *written) {
  sqlite3_stmt *s = rescue_store_stmt(st, "curate_sample_of_row");
  char *sample_id = NULL, now[32];
  int64_t vid = 0;
  cur c;
  int rc, p, i;
  *written = 0;
  memset(&c, 0, sizeof c);
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":row_id", row_id);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW && !(sample_id = dup_col(s, 0)))
    rc = SQLITE_NOMEM;
  sqlite3_reset(s);
  if (rc != SQLITE_ROW)
    return rc == SQLITE_NOMEM ? nomem(st) : rescue_store_sqlerr(st, "reading a row's sample");
  if ((rc = cur_open(&c, st, sample_id)))
    goto end;
  for (p = 1; p <= c.gv.n && c.gv.row_ids[p - 1] != row_id; p++)
    ;
  if (p > c.gv.n || (rc = row_state(&c, p, 0)))
    goto end; /* a row outside the gold row set has no curation state */
  for (i = 0; i < c.n && c.lv[i].how != HOW_UNDECIDED; i++)
    ;
  rescue_now_iso(now);
  if (i == c.n && c.n && (rc = write_gold(&c, p, now, &vid)) == 0)
    *written = vid != 0;
end:
  cur_free(&c);
  rescue_free(sample_id);
  return rc;
}

/* ---- a decisions file (rescue adjudicate --decide) ---- */

/* "file:line:col: " + the message on the handle, as bad input. */
static int bad_line(rescue_store *st, const char *path, long line, const rescue_jnode *at,
                    const char *msg) {
  char m[600];
  snprintf(m, sizeof m, "%s", msg);
  return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "%s:%ld:%ld: %s", path, line,
                       at ? (long)at->offset + 1 : 1L, m);
}

/* 1 when key is a member a decision line may have. */
static int decision_key(const char *key) {
  static const char *const keys[] = {"sample_id", "row_index", "field", "value", "take", "undo"};
  for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
    if (strcmp(key, keys[i]) == 0)
      return 1;
  return 0;
}

/*
** Read one line's decision into *d (pointing into the parse) and *at (the member a
** refusal points at). 0, or RESCUE_EBADINPUT with the reason on the handle.
*/
static int read_line(rescue_store *st, const rescue_jnode *root, rescue_curate_decision *d,
                     const rescue_jnode **at) {
  const rescue_jnode *sid = rescue_jget(root, "sample_id"), *ri = rescue_jget(root, "row_index");
  const rescue_jnode *fld = rescue_jget(root, "field"), *value = rescue_jget(root, "value");
  const rescue_jnode *take = rescue_jget(root, "take"), *undo = rescue_jget(root, "undo");
  rescue_error *err = rescue_store_err(st);
  memset(d, 0, sizeof *d);
  for (*at = root->child; *at; *at = (*at)->next)
    if (!decision_key((*at)->key))
      return rescue_seterr(err, RESCUE_EBADINPUT,
                           "unknown key '%s' (a decision has sample_id, row_index, field and "
                           "one of value, take, undo)",
                           (*at)->key);
  *at = root;
  if (!sid || sid->type != RESCUE_JSTRING)
    return rescue_seterr(err, RESCUE_EBADINPUT, "\"sample_id\" must be a string");
  *at = ri ? ri : root;
  if (!ri || ri->type != RESCUE_JNUMBER || !ri->is_int || ri->num < 1 || ri->num > 1e9)
    return rescue_seterr(err, RESCUE_EBADINPUT, "\"row_index\" must be a row position (1, 2, ...)");
  *at = fld ? fld : root;
  if (!fld || fld->type != RESCUE_JSTRING || !fld->len)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "\"field\" must name a field of the row (or a pointer into it)");
  *at = root;
  if (!!value + !!take + !!undo != 1)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "give one of \"value\", \"take\" (a coder's name) or \"undo\": true");
  if (take && take->type != RESCUE_JSTRING) {
    *at = take;
    return rescue_seterr(err, RESCUE_EBADINPUT, "\"take\" must be a coder's name");
  }
  if (undo && undo->type != RESCUE_JTRUE) {
    *at = undo;
    return rescue_seterr(err, RESCUE_EBADINPUT, "\"undo\" must be true");
  }
  d->sample_id = sid->s;
  d->row = (int)ri->num;
  d->field = fld->s;
  d->base_version = -1;
  d->op = take ? RESCUE_CURATE_TAKE : value ? RESCUE_CURATE_VALUE : RESCUE_CURATE_UNDO;
  d->take = take ? take->s : NULL;
  *at = value ? value : take ? take : fld;
  return 0;
}

/* Add sample id sid to list (once). */
static int touch(rescue_store *st, char ***list, int *n, int *cap, const char *sid) {
  for (int i = 0; i < *n; i++)
    if (strcmp((*list)[i], sid) == 0)
      return 0;
  if (RESCUE_ALLOC_GROW(*list, *n + 1, *cap) || !((*list)[*n] = rescue_strdup(sid)))
    return nomem(st);
  (*n)++;
  return 0;
}

/* Decide every line of f inside the open transaction; counts into res. */
static int decide_lines(rescue_store *st, FILE *f, const char *path, int64_t lead_id,
                        const char *lead, rescue_adjudicate_result *res) {
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf val = RESCUE_BUF_INIT;
  char *line = NULL, now[32], **touched = NULL;
  size_t cap = 0;
  ssize_t len;
  long lineno = 0;
  int rc = 0, n_touched = 0, cap_touched = 0, i;
  if (!doc)
    return nomem(st);
  rescue_now_iso(now);
  while (!rc && (len = getline(&line, &cap, f)) >= 0) {
    rescue_curate_decision d;
    rescue_curate_outcome out;
    const rescue_jnode *root, *at;
    rescue_jerror je;
    int64_t ref;
    lineno++;
    while (len > 0 && (line[len - 1] == '\n' || line[len - 1] == '\r'))
      line[--len] = 0;
    if (len == 0 || strspn(line, " \t") == (size_t)len)
      continue;
    if (!(root = rescue_jparse(doc, line, (size_t)len, &je))) {
      long lc, cc;
      rescue_jposition(line, (size_t)len, je.offset, &lc, &cc);
      rc = rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "%s:%ld:%ld: %s", path, lineno, cc,
                         je.msg);
      break;
    }
    if (root->type != RESCUE_JOBJECT) {
      rc = bad_line(st, path, lineno, root, "a decision is a JSON object");
      break;
    }
    if ((rc = read_line(st, root, &d, &at))) {
      rc = bad_line(st, path, lineno, at, rescue_store_errmsg(st));
      break;
    }
    if (d.op == RESCUE_CURATE_VALUE) {
      rescue_buf_reset(&val);
      rescue_jwrite(&val, rescue_jget(root, "value"));
      if (!rescue_buf_ok(&val)) {
        rc = nomem(st);
        break;
      }
      d.value = val.s;
      d.value_len = val.len;
    }
    if (rescue_sample_ref(st, d.sample_id, &ref)) {
      char m[300];
      snprintf(m, sizeof m, "sample '%s' has no row %d: there is no such sample", d.sample_id,
               d.row);
      rc = bad_line(st, path, lineno, rescue_jget(root, "sample_id"), m);
      break;
    }
    memset(&out, 0, sizeof out);
    if (!(rc = decide_one(st, lead_id, lead, &d, now, &out)))
      rc = log_decision(st, lead, &d);
    if (rc == RESCUE_EBADINPUT || rc == RESCUE_ENOTFOUND || rc == RESCUE_ECONFLICT)
      rc = bad_line(st, path, lineno, rc == RESCUE_ENOTFOUND ? rescue_jget(root, "row_index") : at,
                    rescue_store_errmsg(st));
    if (!rc) {
      res->decisions++;
      res->fields_decided++;
      res->written += out.gold_version != 0;
      rc = touch(st, &touched, &n_touched, &cap_touched, d.sample_id);
    }
    rescue_curate_outcome_clear(&out);
  }
  if (!rc && !res->decisions)
    rc =
        rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "%s: no decisions in the file", path);
  /* rows every coder agrees on get their gold, as after a decision in the browser */
  for (i = 0; i < n_touched && !rc; i++) {
    int written = 0;
    rc = gold_complete_sample(st, touched[i], now, &written);
    res->written += written;
  }
  res->samples = n_touched;
  for (i = 0; i < n_touched; i++)
    rescue_free(touched[i]);
  rescue_free(touched);
  free(line);
  rescue_buf_clear(&val);
  rescue_jdoc_free(&doc);
  return rc;
}

/*
** The lead's decisions of a file, one rescue_curate decision per line, all in one
** transaction: the first bad line refuses the file and nothing is written. A dry run
** writes nothing, the audit log included. o->policy, o->samples and o->coders are not
** used: a decision changes its own value only, never re-running a policy.
*/
int rescue_adjudicate_decide(rescue_store *st, const char *path, const char *lead,
                             const rescue_adjudicate_opts *o, rescue_adjudicate_result *res) {
  FILE *f = NULL;
  int64_t lead_id;
  int rc;
  memset(res, 0, sizeof *res);
  if ((rc = lead_of(st, lead, &lead_id)))
    return rc;
  if (!(f = fopen(path, "r")))
    return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "cannot read '%s'", path);
  if ((rc = rescue_store_begin(st)))
    goto end;
  if ((rc = decide_lines(st, f, path, lead_id, lead, res)) || o->dry_run) {
    rescue_store_rollback(st);
    goto end;
  }
  {
    rescue_audit_entry e = {0};
    char detail[200];
    snprintf(detail, sizeof detail, "%ld decision%s by %s: %ld gold version%s written",
             res->decisions, res->decisions == 1 ? "" : "s", lead, res->written,
             res->written == 1 ? "" : "s");
    e.action = "adjudicate";
    e.annotator = lead;
    e.detail = detail;
    if ((rc = rescue_audit_write(st, &e)) || (rc = rescue_store_commit(st))) {
      rescue_store_rollback(st);
      goto end;
    }
  }
end:
  fclose(f);
  if (!rc && !(res->lead = rescue_strdup(lead)))
    rc = nomem(st);
  if (rc)
    rescue_adjudicate_result_clear(res);
  return rc;
}
