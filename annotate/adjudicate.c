/*
** adjudicate.c: decide each row's gold content by a policy (lead, majority, latest) from
** the coders' views, and write it as gold versions in one transaction. Undecided rows
** (disagreement without a lead version, ties) are reported, never settled silently.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_adjudicate.h"
#include "rescue_alloc.h"
#include "rescue_annotators.h"
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
  case RESCUE_ADJ_LATEST:
    return policy_names[p];
  }
  return "unknown";
}

/* One stored version of a row of the sample being decided. */
typedef struct ver {
  int64_t row_id, id, annotator;
  int position;
  int person;        /* a coder: not a model, not the adjudication pseudo-annotator */
  int gold;
  size_t name, content, len;  /* offsets into the arena */
} ver;

typedef struct adj {
  rescue_store *st;
  const rescue_adjudicate_opts *o;
  rescue_adjudicate_result *res;
  int64_t lead_id, adj_id;
  rescue_buf arena;
  ver *v;
  int n, cap;
  int64_t *coders;    /* this sample's coders, by name */
  int n_coders;
  rescue_jdoc *doc;
  rescue_row_input in;
  rescue_buf msg, sources;
} adj;

static const char *A(const adj *a, size_t off) { return a->arena.s + off; }

static int undecided(adj *a, const char *sample_id, int row, const char *reason) {
  rescue_adjudicate_result *r = a->res;
  rescue_adj_undecided *u;
  if (r->n_undecided == r->cap_undecided) {
    int cap = r->cap_undecided ? r->cap_undecided * 2 : 32;
    rescue_adj_undecided *nu = rescue_realloc(r->undecided, (size_t)cap * sizeof *nu);
    if (!nu)
      return RESCUE_ENOMEM;
    r->undecided = nu;
    r->cap_undecided = cap;
  }
  u = &r->undecided[r->n_undecided];
  u->sample_id = rescue_strdup(sample_id);
  u->reason = rescue_strdup(reason);
  u->row = row;
  if (!u->sample_id || !u->reason) {
    rescue_free(u->sample_id);
    rescue_free(u->reason);
    return RESCUE_ENOMEM;
  }
  r->n_undecided++;
  return 0;
}

/* Read every version of the row set (gold too), in row then version order. */
static int load_versions(adj *a, int64_t rowset_id) {
  sqlite3_stmt *s = rescue_store_stmt(a->st, "adj_versions");
  int rc;
  a->n = 0;
  rescue_buf_reset(&a->arena);
  rescue_buf_putc(&a->arena, 0);
  if (!s)
    return rescue_store_err(a->st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    ver *x;
    const char *name = (const char *)sqlite3_column_text(s, 4);
    const char *role = (const char *)sqlite3_column_text(s, 5);
    const char *kind = (const char *)sqlite3_column_text(s, 6);
    if (a->n == a->cap) {
      int cap = a->cap ? a->cap * 2 : 256;
      ver *nv = rescue_realloc(a->v, (size_t)cap * sizeof *nv);
      if (!nv) {
        sqlite3_reset(s);
        return rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
      }
      a->v = nv;
      a->cap = cap;
    }
    x = &a->v[a->n++];
    x->row_id = sqlite3_column_int64(s, 0);
    x->position = sqlite3_column_int(s, 1);
    x->id = sqlite3_column_int64(s, 2);
    x->annotator = sqlite3_column_int64(s, 3);
    x->gold = strcmp(kind, "gold") == 0;
    x->person = strcmp(role, "model") != 0 && strcmp(name, RESCUE_ADJUDICATION_ANNOTATOR) != 0;
    x->name = a->arena.len;
    rescue_buf_puts(&a->arena, name);
    rescue_buf_putc(&a->arena, 0);
    x->content = a->arena.len;
    x->len = (size_t)sqlite3_column_bytes(s, 7);
    rescue_buf_putn(&a->arena, sqlite3_column_text(s, 7), x->len);
    rescue_buf_putc(&a->arena, 0);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(a->st, "reading versions");
  if (!rescue_buf_ok(&a->arena))
    return rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
  return 0;
}

/* The sample's coders: people with a version (not gold) of one of its rows, by name. */
static int find_coders(adj *a) {
  int i, j, k = 0;
  rescue_free(a->coders);
  a->coders = rescue_malloc(((size_t)a->n + 1) * sizeof *a->coders);
  if (!a->coders)
    return RESCUE_ENOMEM;
  for (i = 0; i < a->n; i++) {
    int dup = 0;
    if (a->v[i].gold || !a->v[i].person)
      continue;
    for (j = 0; j < k; j++)
      dup |= a->coders[j] == a->v[i].annotator;
    if (!dup)
      a->coders[k++] = a->v[i].annotator;
  }
  a->n_coders = k;
  return 0;
}

/* Name of annotator id as seen in the versions. */
static const char *name_of(const adj *a, int64_t id) {
  int i;
  for (i = 0; i < a->n; i++)
    if (a->v[i].annotator == id)
      return A(a, a->v[i].name);
  return "?";
}

static int same_content(const adj *a, const ver *x, const ver *y) {
  return x->len == y->len && memcmp(A(a, x->content), A(a, y->content), x->len) == 0;
}

/* Write a gold version of row (content of `chosen`) unless the current gold already is it. */
static int write_gold(adj *a, const ver *chosen, const ver *cur_gold, const int64_t *src, int n_src) {
  const rescue_jnode *root, *bad;
  rescue_jerror je;
  rescue_error *err = rescue_store_err(a->st);
  int i, rc;
  if (cur_gold && same_content(a, chosen, cur_gold)) {
    a->res->unchanged++;
    return 0;
  }
  root = rescue_jparse(a->doc, A(a, chosen->content), chosen->len, &je);
  if (!root)
    return rescue_seterr(err, RESCUE_EINTERNAL, "version %lld does not parse: %s",
                         (long long)chosen->id, je.msg);
  if ((rc = rescue_row_input_from_json(rescue_store_scheme(a->st), root, &a->in, &bad, err)))
    return rc;
  rescue_buf_reset(&a->sources);
  rescue_buf_putc(&a->sources, '[');
  for (i = 0; i < n_src; i++)
    rescue_buf_printf(&a->sources, "%s%lld", i ? ", " : "", (long long)src[i]);
  rescue_buf_putc(&a->sources, ']');
  if (!rescue_buf_ok(&a->sources))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if ((rc = rescue_store_add_row_version(a->st, chosen->row_id, a->adj_id, "gold", &a->in,
                                         rescue_adj_policy_name(a->o->policy), a->sources.s, NULL)))
    return rc;
  a->res->written++;
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

/* Decide one row: versions a->v[lo..hi). */
static int decide_row(adj *a, const char *sample_id, int lo, int hi) {
  const ver *first = NULL, *latest = NULL, *gold = NULL, *lead = NULL;
  const ver **view = NULL;
  int64_t *src = NULL, *view_coder = NULL;
  int i, c, rc = 0, position = a->v[lo].position, n_view = 0;
  for (i = lo; i < hi; i++) {
    const ver *x = &a->v[i];
    if (x->gold) {
      gold = x;
      continue;
    }
    if (!first)
      first = x;
    latest = x;
    if (a->lead_id && x->annotator == a->lead_id)
      lead = x;
  }
  a->res->rows++;
  if (!first)
    return 0; /* nothing but gold: nothing to decide from */
  view = rescue_calloc((size_t)a->n_coders + 1, sizeof *view);
  src = rescue_calloc((size_t)a->n_coders + 2, sizeof *src);
  view_coder = rescue_calloc((size_t)a->n_coders + 1, sizeof *view_coder);
  if (!view || !src || !view_coder) {
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  /* each coder's view of the row: their latest version, else the first one */
  for (c = 0; c < a->n_coders; c++) {
    const ver *own = NULL;
    if (a->o->policy == RESCUE_ADJ_LEAD && a->coders[c] == a->lead_id)
      continue; /* the lead decides with a version, or defers */
    for (i = lo; i < hi; i++)
      if (!a->v[i].gold && a->v[i].annotator == a->coders[c])
        own = &a->v[i];
    view_coder[n_view] = a->coders[c];
    view[n_view++] = own ? own : first;
  }
  rescue_buf_reset(&a->msg);
  switch (a->o->policy) {
  case RESCUE_ADJ_LATEST:
    src[0] = latest->id;
    rc = write_gold(a, latest, gold, src, 1);
    break;
  case RESCUE_ADJ_LEAD:
    if (lead) {
      src[0] = lead->id;
      rc = write_gold(a, lead, gold, src, 1);
      break;
    }
    /* fall through to "what every coder shares" */
    {
      int all = n_view > 0;
      for (c = 1; c < n_view; c++)
        all &= same_content(a, view[c], view[0]);
      if (all) {
        for (c = 0; c < n_view; c++)
          src[c] = view[c]->id;
        rc = write_gold(a, view[0], gold, src, uniq_ids(src, n_view));
        break;
      }
      if (!n_view)
        rescue_buf_printf(&a->msg, "the lead (%s) made no version and no other coder worked on "
                                   "this sample",
                          a->res->lead);
      else {
        rescue_buf_printf(&a->msg, "the lead (%s) made no version and the coders disagree (",
                          a->res->lead);
        for (c = 0; c < a->n_coders; c++)
          if (a->coders[c] != a->lead_id)
            rescue_buf_printf(&a->msg, "%s%s", a->msg.s[a->msg.len - 1] == '(' ? "" : ", ",
                              name_of(a, a->coders[c]));
        rescue_buf_putc(&a->msg, ')');
      }
    }
    break;
  case RESCUE_ADJ_MAJORITY: {
    /* the content with the most coders; a tie at the top is undecided */
    int best = -1, best_n = 0, tie = 0, k;
    for (c = 0; c < n_view; c++) {
      int cnt = 0;
      for (k = 0; k < n_view; k++)
        cnt += same_content(a, view[k], view[c]);
      if (cnt > best_n) {
        best = c;
        best_n = cnt;
        tie = 0;
      } else if (cnt == best_n && !same_content(a, view[c], view[best])) {
        tie = 1;
      }
    }
    if (best < 0) {
      rescue_buf_puts(&a->msg, "no coder worked on this sample");
      break;
    }
    if (tie) {
      /* name the groups: "ann, cyd | bob, dan" */
      int *done = rescue_calloc((size_t)n_view + 1, sizeof *done), g = 0;
      if (!done) {
        rc = rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
        goto end;
      }
      rescue_buf_printf(&a->msg, "a tie: %d coder%s each for different contents (", best_n,
                        best_n == 1 ? "" : "s");
      for (c = 0; c < n_view; c++) {
        int first_in = 1;
        if (done[c])
          continue;
        if (g++)
          rescue_buf_puts(&a->msg, " | ");
        for (k = c; k < n_view; k++)
          if (!done[k] && same_content(a, view[k], view[c])) {
            done[k] = 1;
            rescue_buf_printf(&a->msg, "%s%s", first_in ? "" : ", ", name_of(a, view_coder[k]));
            first_in = 0;
          }
      }
      rescue_buf_putc(&a->msg, ')');
      rescue_free(done);
      break;
    }
    for (c = k = 0; c < n_view; c++)
      if (same_content(a, view[c], view[best]))
        src[k++] = view[c]->id;
    rc = write_gold(a, view[best], gold, src, uniq_ids(src, k));
    break;
  }
  }
  if (!rc && a->msg.len) {
    if (!rescue_buf_ok(&a->msg) || undecided(a, sample_id, position, a->msg.s))
      rc = rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
  }
end:
  rescue_free(view);
  rescue_free(src);
  rescue_free(view_coder);
  return rc;
}

/* Pick the lead for the lead policy: the one named, else the corpus's only lead. */
static int pick_lead(adj *a) {
  sqlite3_stmt *s;
  int rc, n = 0;
  rescue_buf names = RESCUE_BUF_INIT;
  if (a->o->lead) {
    if (strcmp(a->o->lead, RESCUE_ADJUDICATION_ANNOTATOR) == 0)
      return rescue_seterr(rescue_store_err(a->st), RESCUE_EINVAL,
                           "'%s' writes gold; name the person who leads", a->o->lead);
    if ((rc = rescue_annotator_id(a->st, a->o->lead, NULL, 0, &a->lead_id)))
      return rc;
    a->res->lead = rescue_strdup(a->o->lead);
    return a->res->lead ? 0 : rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
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
    rescue_buf_free(&names);
    return rescue_store_sqlerr(a->st, "reading leads");
  }
  if (n == 0)
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_EINVAL,
                       "the corpus has no lead: give --lead <name>, or add one with 'rescue "
                       "annotator add <db> <name> --role lead'");
  else if (n > 1)
    rc = rescue_seterr(rescue_store_err(a->st), RESCUE_EINVAL,
                       "the corpus has %d leads (%s): choose one with --lead", n,
                       names.s ? names.s : "");
  else
    rc = a->res->lead ? 0 : rescue_seterr(rescue_store_err(a->st), RESCUE_ENOMEM, NULL);
  rescue_buf_free(&names);
  return rc;
}

int rescue_adjudicate(rescue_store *st, const rescue_adjudicate_opts *o,
                      rescue_adjudicate_result *res) {
  adj a;
  rescue_view corpus = {RESCUE_VIEW_CORPUS, 0};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  int rc, in_txn = 0;
  memset(&a, 0, sizeof a);
  memset(res, 0, sizeof *res);
  a.st = st;
  a.o = o;
  a.res = res;
  if (!(a.doc = rescue_jdoc_new())) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  if (o->policy == RESCUE_ADJ_LEAD && (rc = pick_lead(&a)))
    goto end;
  if ((rc = rescue_store_begin(st)))
    goto end;
  in_txn = 1;
  if ((rc = rescue_annotator_id(st, RESCUE_ADJUDICATION_ANNOTATOR, "lead", 1, &a.adj_id)))
    goto end;
  if ((rc = rescue_sample_iter_new(st, &corpus, o->samples, o->n_samples, &it)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    int i, lo, named = 0;
    for (i = 0; i < o->n_samples; i++)
      named |= strcmp(o->samples[i], s->sample_id) == 0;
    if (strcmp(s->status, "discarded") == 0 && !named)
      continue;
    res->samples++;
    if ((rc = load_versions(&a, s->rowset_id)) || (rc = find_coders(&a)))
      goto end;
    for (lo = 0; lo < a.n;) {
      int hi = lo;
      while (hi < a.n && a.v[hi].position == a.v[lo].position)
        hi++;
      if ((rc = decide_row(&a, s->sample_id, lo, hi)))
        goto end;
      lo = hi;
    }
  }
  if (rc < 0)
    goto end;
  rescue_sample_iter_free(&it);
  if ((rc = rescue_store_commit(st)))
    goto end;
  in_txn = 0;
  rc = 0;
end:
  rescue_sample_iter_free(&it);
  if (in_txn)
    rescue_store_rollback(st);
  rescue_jdoc_free(&a.doc);
  rescue_row_input_free(&a.in);
  rescue_buf_free(&a.arena);
  rescue_buf_free(&a.msg);
  rescue_buf_free(&a.sources);
  rescue_free(a.v);
  rescue_free(a.coders);
  if (rc)
    rescue_adjudicate_result_free(res);
  return rc;
}

void rescue_adjudicate_result_free(rescue_adjudicate_result *res) {
  int i;
  for (i = 0; i < res->n_undecided; i++) {
    rescue_free(res->undecided[i].sample_id);
    rescue_free(res->undecided[i].reason);
  }
  rescue_free(res->undecided);
  rescue_free(res->lead);
  memset(res, 0, sizeof *res);
}

void rescue_adjudicate_result_json(const rescue_adjudicate_opts *o,
                                   const rescue_adjudicate_result *res, rescue_buf *out) {
  rescue_jw w;
  int i;
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
  rescue_jw_key(&w, "samples");
  rescue_jw_int(&w, res->samples);
  rescue_jw_key(&w, "rows");
  rescue_jw_int(&w, res->rows);
  rescue_jw_key(&w, "written");
  rescue_jw_int(&w, res->written);
  rescue_jw_key(&w, "unchanged");
  rescue_jw_int(&w, res->unchanged);
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
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
