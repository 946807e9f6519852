/*
** gold_seg.c: a sample's gold segmentation (issue 22, item 7): which row set gold is
** written in, chosen as the draft's, one coder's or the majority's before any field is
** decided (rescue_gold_segmentation_set in rescue_adjudicate.h; adjudicate_int.h).
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "adjudicate_int.h"
#include "rescue_adjudicate.h"
#include "rescue_alloc.h"
#include "rescue_audit.h"
#include "store_int.h"

const char *const rescue_gold_seg_fields[] = {"start_time",       "end_time",  "primary_speaker",
                                              "dialogue_cleaned", "row_index", NULL};

/* Two row sets are the same segmentation within this many seconds per boundary. */
#define SAME_SEG_TOLERANCE 0.010

/* One coder's segmentation of the sample: their row set and its rows' times. */
typedef struct seg {
  int64_t rowset_id;
  int n;
  double *start, *end;
} seg;

static void seg_clear(seg *g) {
  rescue_free(g->start);
  rescue_free(g->end);
  memset(g, 0, sizeof *g);
}

/* Load annotator_id's view of the sample (their row set and times) into *g. */
static int seg_load(rescue_store *st, const char *sample_id, int64_t annotator_id, seg *g) {
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR, .annotator_id = annotator_id};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  const char *one[1] = {sample_id};
  int rc, i;
  memset(g, 0, sizeof *g);
  if ((rc = rescue_sample_iter_new(st, &v, one, 1, &it)))
    return rc;
  if ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    g->rowset_id = s->rowset_id;
    g->start = rescue_calloc((size_t)s->n + 1, sizeof *g->start);
    g->end = rescue_calloc((size_t)s->n + 1, sizeof *g->end);
    if (!g->start || !g->end) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto end;
    }
    for (i = 0; i < s->n; i++) {
      g->start[i] = s->rows[i].start_time;
      g->end[i] = s->rows[i].end_time;
    }
    g->n = s->n;
    rc = 0;
  }
end:
  rescue_sample_iter_free(&it);
  return rc < 0 ? rc : 0;
}

/* Same segmentation: as many rows, every start and end within the tolerance. */
static int seg_same(const seg *a, const seg *b) {
  int i;
  if (a->n != b->n)
    return 0;
  for (i = 0; i < a->n; i++)
    if (fabs(a->start[i] - b->start[i]) > SAME_SEG_TOLERANCE + 1e-9 ||
        fabs(a->end[i] - b->end[i]) > SAME_SEG_TOLERANCE + 1e-9)
      return 0;
  return 1;
}

/* 1 when annotator_id saved a version (not gold) of sample ref, 0 if not, or an error. */
static int saved_sample(rescue_store *st, int64_t ref, int64_t annotator_id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_annotator_saved");
  int rc, yes = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW)
    yes = sqlite3_column_int(s, 0);
  sqlite3_reset(s);
  return rc == SQLITE_ROW ? yes : rescue_store_sqlerr(st, "reading versions");
}

int rescue_gold_rowset(rescue_store *st, int64_t ref, int64_t *rowset_id, int64_t *segmenter) {
  sqlite3_stmt *s = rescue_store_stmt(st, "gold_rowset");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    *rowset_id = sqlite3_column_int64(s, 0);
    *segmenter = sqlite3_column_int64(s, 1);
  }
  sqlite3_reset(s);
  if (rc == SQLITE_ROW)
    return 1;
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading the gold row set");
}

/*
** The majority's segmentation among the coders who saved a version of the sample: sets
** *who (the first coder of the largest group) and *rowset_id, or *waits with the reason
** in why. Returns 0 or an error on the handle.
*/
static int pick_majority(rescue_store *st, int64_t ref, const char *sample_id, const int64_t *ids,
                         char *const *names, int n, int64_t *who, int64_t *rowset_id, int *waits,
                         rescue_buf *why) {
  seg *g = rescue_calloc((size_t)n + 1, sizeof *g);
  int *group = rescue_calloc((size_t)n + 1, sizeof *group), *count = NULL;
  int i, j, rc = 0, best = -1, runner = 0, voters = 0;
  if (!g || !group || !(count = rescue_calloc((size_t)n + 1, sizeof *count))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < n; i++) {
    group[i] = -1;
    if ((rc = saved_sample(st, ref, ids[i])) < 0)
      goto end;
    if (!rc)
      continue;
    if ((rc = seg_load(st, sample_id, ids[i], &g[i])))
      goto end;
    voters++;
    for (j = 0; j < i && group[i] < 0; j++)
      if (group[j] == j && seg_same(&g[i], &g[j]))
        group[i] = j;
    if (group[i] < 0)
      group[i] = i;
    count[group[i]]++;
  }
  for (i = 0; i < n; i++)
    if (group[i] == i && (best < 0 || count[i] > count[best]))
      best = i;
  for (i = 0; i < n; i++)
    if (group[i] == i && i != best && count[i] > runner)
      runner = count[i];
  if (best >= 0 && count[best] > runner) {
    *who = ids[best];
    *rowset_id = g[best].rowset_id;
    goto end;
  }
  *waits = 1;
  if (!voters)
    rescue_buf_puts(why, "no coder saved a version of it");
  else {
    rescue_buf_puts(why, "no row set is shared by more coders than any other (");
    for (i = 0, j = 0; i < n; i++)
      if (group[i] >= 0)
        rescue_buf_printf(why, "%s%s: %d rows", j++ ? ", " : "", names[i], g[i].n);
    rescue_buf_puts(why, "); a lead chooses a coder's or the draft's");
  }
end:
  for (i = 0; g && i < n; i++)
    seg_clear(&g[i]);
  rescue_free(g);
  rescue_free(group);
  rescue_free(count);
  return rc;
}

/*
** The segmentation `from` names for sample ref: *who (whose it is) and *rowset_id, or
** *waits (majority without one). Returns 0 or an error on the handle.
*/
static int pick_segmentation(rescue_store *st, int64_t ref, const char *sample_id, const char *from,
                             const int64_t *ids, char *const *names, int n, int64_t *who,
                             int64_t *rowset_id, int *waits, rescue_buf *why) {
  sqlite3_stmt *s;
  seg g;
  int rc;
  if (strcmp(from, "majority") == 0)
    return pick_majority(st, ref, sample_id, ids, names, n, who, rowset_id, waits, why);
  if (strcmp(from, "draft") == 0) {
    /* the base row set, in the view of whoever made it (the draft's importer) */
    if (!(s = rescue_store_stmt(st, "sample_find")))
      return rescue_store_err(st)->code;
    rescue_bind_text(s, ":sample_id", sample_id, -1);
    if (sqlite3_step(s) == SQLITE_ROW)
      *rowset_id = sqlite3_column_int64(s, 1);
    sqlite3_reset(s);
    if (!(s = rescue_store_stmt(st, "gold_rowset_maker")))
      return rescue_store_err(st)->code;
    rescue_bind_int(s, ":rowset_id", *rowset_id);
    if (sqlite3_step(s) == SQLITE_ROW)
      *who = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (!*rowset_id || !*who)
      return rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL,
                           "sample '%s' has no draft row set", sample_id);
    return 0;
  }
  if ((rc = rescue_annotator_lookup(st, from, who, NULL, NULL)))
    return rc;
  if (strcmp(from, RESCUE_ADJUDICATION_ANNOTATOR) == 0 || strcmp(from, RESCUE_DRAFT_ANNOTATOR) == 0)
    return rescue_seterr(
        rescue_store_err(st), RESCUE_EINVAL,
        "a gold segmentation comes from a coder, the draft or the majority, not '%s'", from);
  if ((rc = saved_sample(st, ref, *who)) < 0)
    return rc;
  if (!rc)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND,
                         "annotator '%s' has no version of sample '%s' to take its segmentation "
                         "from",
                         from, sample_id);
  if ((rc = seg_load(st, sample_id, *who, &g)))
    return rc;
  *rowset_id = g.rowset_id;
  seg_clear(&g);
  return 0;
}

/* Do row sets a and b list the same rows? 1, 0, or an error on the handle. */
static int same_members(rescue_store *st, int64_t a, int64_t b) {
  sqlite3_stmt *s = rescue_store_stmt(st, "rowset_same_members");
  int rc, yes = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":a", a);
  rescue_bind_int(s, ":b", b);
  if ((rc = sqlite3_step(s)) == SQLITE_ROW)
    yes = sqlite3_column_int(s, 0);
  sqlite3_reset(s);
  return rc == SQLITE_ROW ? yes : rescue_store_sqlerr(st, "comparing row sets");
}

/* A new gold row set for sample ref listing rowset_id's rows, made by who; point gold at it. */
static int make_gold_rowset(rescue_store *st, int64_t ref, int64_t rowset_id, int64_t who) {
  sqlite3_stmt *s = rescue_store_stmt(st, "rowset_insert");
  int64_t gold_id, adj_id;
  char now[32];
  int n_rows = 0, rc;
  if (!s)
    return rescue_store_err(st)->code;
  {
    sqlite3_stmt *q = rescue_store_stmt(st, "rowset_info");
    if (!q)
      return rescue_store_err(st)->code;
    rescue_bind_int(q, ":rowset_id", rowset_id);
    if (sqlite3_step(q) == SQLITE_ROW)
      n_rows = sqlite3_column_int(q, 0);
    sqlite3_reset(q);
  }
  rescue_now_iso(now);
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":annotator_id", who);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_int(s, ":n_rows", n_rows);
  rescue_bind_text(s, ":note", "gold", -1);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "writing the gold row set");
  gold_id = sqlite3_last_insert_rowid(rescue_store_db(st));
  if (!(s = rescue_store_stmt(st, "rowset_member_copy")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":to_id", gold_id);
  rescue_bind_int(s, ":from_id", rowset_id);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "writing the gold row set");
  if ((rc = rescue_annotator_id(st, RESCUE_ADJUDICATION_ANNOTATOR, "lead", 1, &adj_id)))
    return rc;
  return rescue_store_point_rowset(st, ref, adj_id, gold_id);
}

int rescue_gold_seg_apply(rescue_store *st, int64_t ref, const char *sample_id, const char *from,
                          const int64_t *ids, char *const *names, int n, int *waits, int *changed,
                          rescue_buf *why) {
  int64_t who = 0, rowset_id = 0, cur = 0, cur_who = 0;
  int rc;
  *waits = 0;
  *changed = 0;
  if ((rc = pick_segmentation(st, ref, sample_id, from, ids, names, n, &who, &rowset_id, waits,
                              why)) ||
      *waits)
    return rc;
  if ((rc = rescue_gold_rowset(st, ref, &cur, &cur_who)) < 0)
    return rc;
  if (rc == 1 && cur_who == who && (rc = same_members(st, cur, rowset_id)) != 0)
    return rc < 0 ? rc : 0;
  *changed = 1;
  return make_gold_rowset(st, ref, rowset_id, who);
}

/* Add coder (id, name) to *ids and *names (n of them, room for *cap); 0 or RESCUE_ENOMEM. */
static int add_coder(int64_t **ids, char ***names, int *n, int *cap, int64_t id, const char *name) {
  int room = *cap;
  if (RESCUE_ALLOC_GROW(*ids, *n + 1, *cap))
    return RESCUE_ENOMEM;
  if (*cap != room) {
    char **nn = rescue_realloc(*names, (size_t)*cap * sizeof *nn);
    if (!nn)
      return RESCUE_ENOMEM;
    *names = nn;
  }
  if (!((*names)[*n] = rescue_strdup(name)))
    return RESCUE_ENOMEM;
  (*ids)[(*n)++] = id;
  return 0;
}

/*
** The coders counted: those named (registered), else every annotator or lead with a saved
** version. *ids and *names (copies) belong to the caller, n of them. 0 or an error.
*/
static int load_coders(rescue_store *st, const char *const *coders, int n_coders, int64_t **ids,
                       char ***names, int *n) {
  sqlite3_stmt *s;
  int i, rc, cap = 0;
  for (i = 0; i < n_coders; i++) {
    int64_t id;
    if ((rc = rescue_annotator_lookup(st, coders[i], &id, NULL, NULL)))
      return rc;
    if (add_coder(ids, names, n, &cap, id, coders[i]))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  if (n_coders > 0)
    return 0;
  if (!(s = rescue_store_stmt(st, "default_coders")))
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  rescue_bind_text(s, ":adjudication", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW)
    if (add_coder(ids, names, n, &cap, sqlite3_column_int64(s, 0),
                  (const char *)sqlite3_column_text(s, 1))) {
      sqlite3_reset(s);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading coders");
}

int rescue_gold_segmentation_set(rescue_store *st, const char *sample_id, const char *from,
                                 const char *const *coders, int n_coders, int *waits,
                                 rescue_buf *why) {
  return rescue_gold_segmentation_set_by(st, sample_id, from, coders, n_coders, NULL, waits, why);
}

int rescue_gold_segmentation_set_by(rescue_store *st, const char *sample_id, const char *from,
                                    const char *const *coders, int n_coders, const char *lead,
                                    int *waits, rescue_buf *why) {
  int64_t ref, *ids = NULL;
  rescue_buf none = RESCUE_BUF_INIT;
  char **names = NULL;
  int i, n = 0, rc, changed = 0;
  *waits = 0;
  if ((rc = rescue_sample_ref(st, sample_id, &ref)))
    return rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  if (!(rc = load_coders(st, coders, n_coders, &ids, &names, &n)))
    rc = rescue_gold_seg_apply(st, ref, sample_id, from, ids, names, n, waits, &changed,
                               why ? why : &none);
  if (!rc && changed) {
    rescue_audit_entry e = {0};
    char detail[300];
    snprintf(detail, sizeof detail, "gold segmentation of '%s': %s", sample_id, from);
    e.action = "adjudicate";
    e.annotator = lead;
    e.detail = detail;
    rc = rescue_audit_write(st, &e);
  }
  if (rc || !changed)
    rescue_store_rollback(st);
  else
    rc = rescue_store_commit(st);
  for (i = 0; i < n; i++)
    rescue_free(names[i]);
  rescue_free(names);
  rescue_free(ids);
  rescue_buf_clear(&none);
  return rc;
}
