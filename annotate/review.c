/*
** review.c: reviewing samples one annotator at a time: reviewers, who may write a sample
** under the latest assignment, an annotator's work list, the leads' progress figures, and
** lint of a sample as a view shows it and of one row before it is saved.
*/
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_review.h"
#include "rescue_subtitles.h"
#include "store_int.h"

/* ---- reviewers ---- */

int rescue_reviewer_get(rescue_store *st, int64_t id, rescue_reviewer *out) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_annotator");
  int rc;
  memset(out, 0, sizeof *out);
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    out->id = id;
    snprintf(out->name, sizeof out->name, "%s", (const char *)sqlite3_column_text(q, 0));
    snprintf(out->role, sizeof out->role, "%s", (const char *)sqlite3_column_text(q, 1));
    out->retired = sqlite3_column_int(q, 2);
    if (sqlite3_column_type(q, 3) != SQLITE_NULL)
      snprintf(out->token_hash, sizeof out->token_hash, "%s",
               (const char *)sqlite3_column_text(q, 3));
  }
  sqlite3_reset(q);
  if (rc == SQLITE_ROW)
    return 0;
  if (rc == SQLITE_DONE)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no annotator with id %lld",
                         (long long)id);
  return rescue_store_sqlerr(st, "reading an annotator");
}

int rescue_review_assigned(rescue_store *st, const char *sample_id, int64_t annotator_id, int *any,
                           int *mine) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_assigned");
  int rc;
  *any = *mine = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rescue_bind_int(q, ":annotator_id", annotator_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    *any = sqlite3_column_int(q, 0);
    *mine = sqlite3_column_int(q, 1);
  }
  sqlite3_reset(q);
  return rc == SQLITE_ROW ? 0 : rescue_store_sqlerr(st, "reading assignments");
}

int rescue_access_generation(rescue_store *st, int64_t *gen) {
  sqlite3_stmt *q = rescue_store_stmt(st, "access_generation");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *gen = sqlite3_column_int64(q, 0);
  sqlite3_reset(q);
  return rc == SQLITE_ROW ? 0 : rescue_store_sqlerr(st, "reading the access generation");
}

/* ---- an annotator's work list ---- */

static int any_assignment(rescue_store *st, int *any) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_any_assignment");
  if (!q)
    return rescue_store_err(st)->code;
  if (sqlite3_step(q) != SQLITE_ROW) {
    sqlite3_reset(q);
    return rescue_store_sqlerr(st, "reading assignments");
  }
  *any = sqlite3_column_int(q, 0);
  sqlite3_reset(q);
  return 0;
}

/* The scenario rule on a sample id alone (the entity part is done in SQL). */
static int family_id(const char *id) {
  size_t i, n = strlen(id);
  char *low = rescue_malloc(n + 1);
  int fam;
  if (!low)
    return 0;
  for (i = 0; i <= n; i++)
    low[i] = (char)(id[i] >= 'A' && id[i] <= 'Z' ? id[i] + 32 : id[i]);
  fam = strncmp(low, "family_therapy/", 15) == 0 || strstr(low, "/family_therapy/") != NULL;
  rescue_free(low);
  return fam;
}

static char *col_dup(sqlite3_stmt *q, int i) {
  return rescue_strdup(
      sqlite3_column_type(q, i) == SQLITE_NULL ? "" : (const char *)sqlite3_column_text(q, i));
}

/* One row of review_work_list into *it; 0 or RESCUE_ENOMEM. */
static int work_item(sqlite3_stmt *q, rescue_work_item *it) {
  memset(it, 0, sizeof *it);
  it->sample_id = col_dup(q, 0);
  it->group = col_dup(q, 1);
  it->status = col_dup(q, 2);
  if (sqlite3_column_type(q, 3) != SQLITE_NULL)
    it->status_reason = col_dup(q, 3);
  it->rows = sqlite3_column_int(q, 4);
  it->mine = sqlite3_column_int(q, 5);
  it->assigned = sqlite3_column_int(q, 6);
  it->assignees = col_dup(q, 7);
  if (!it->sample_id || !it->group || !it->status || !it->assignees ||
      (sqlite3_column_type(q, 3) != SQLITE_NULL && !it->status_reason))
    return RESCUE_ENOMEM;
  it->scenario = family_id(it->sample_id) || sqlite3_column_int(q, 8) ? "family" : "couple";
  return 0;
}

int rescue_work_list(rescue_store *st, int64_t annotator_id, int every, rescue_work_item **out,
                     int *n, int *assignments) {
  const char *fam = rescue_scheme_group_label(rescue_store_scheme(st), "family");
  rescue_work_item *v = NULL;
  sqlite3_stmt *q;
  int rc, any = 0, cap = 0, k = 0;
  *out = NULL;
  *n = 0;
  if ((rc = any_assignment(st, &any)))
    return rc;
  if (assignments)
    *assignments = any;
  if (!(q = rescue_store_stmt(st, "review_work_list")))
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":annotator_id", annotator_id);
  rescue_bind_text(q, ":family", fam ? fam : "Family", -1);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (!every && any && !sqlite3_column_int(q, 6))
      continue;
    if (k == cap) {
      int nc = cap ? cap * 2 : 32;
      rescue_work_item *g = rescue_realloc(v, (size_t)nc * sizeof *v);
      if (!g)
        break;
      v = g;
      cap = nc;
    }
    if (work_item(q, &v[k++]))
      break;
  }
  sqlite3_reset(q);
  if (rc == SQLITE_ROW) {
    rescue_work_list_free(&v, k);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  if (rc != SQLITE_DONE) {
    rescue_work_list_free(&v, k);
    return rescue_store_sqlerr(st, "listing samples");
  }
  *out = v;
  *n = k;
  return 0;
}

void rescue_work_list_free(rescue_work_item **list, int n) {
  int i;
  if (!list || !*list)
    return;
  for (i = 0; i < n; i++) {
    rescue_free((*list)[i].sample_id);
    rescue_free((*list)[i].group);
    rescue_free((*list)[i].status);
    rescue_free((*list)[i].status_reason);
    rescue_free((*list)[i].assignees);
  }
  rescue_free(*list);
  *list = NULL;
}

/* ---- the leads' progress figures ---- */

static int progress_status(rescue_store *st, rescue_progress *p) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_dash_status");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    const char *status = (const char *)sqlite3_column_text(q, 0);
    long n = sqlite3_column_int(q, 1), nr = sqlite3_column_int(q, 2);
    if (p->n_status < (int)(sizeof p->by_status / sizeof p->by_status[0])) {
      snprintf(p->by_status[p->n_status].status, sizeof p->by_status[0].status, "%s", status);
      p->by_status[p->n_status++].n = n;
    }
    if (strcmp(status, "discarded") != 0) {
      p->samples += n;
      p->rows += nr;
      p->prepared += sqlite3_column_int(q, 3);
    }
    if (strcmp(status, "reviewed") == 0)
      p->rows_reviewed += nr;
  }
  sqlite3_reset(q);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading progress");
}

static int progress_people(rescue_store *st, rescue_progress *p) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_dash_people");
  int rc, cap = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":reserved", RESCUE_ADJUDICATION_ANNOTATOR, -1);
  rescue_bind_text(q, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    rescue_progress_person *x;
    if (p->n_people == cap) {
      int nc = cap ? cap * 2 : 16;
      rescue_progress_person *g = rescue_realloc(p->people, (size_t)nc * sizeof *g);
      if (!g)
        break;
      p->people = g;
      cap = nc;
    }
    x = &p->people[p->n_people++];
    x->name = rescue_strdup((const char *)sqlite3_column_text(q, 0));
    x->role = rescue_strdup((const char *)sqlite3_column_text(q, 1));
    x->assigned = sqlite3_column_int(q, 2);
    x->assigned_rows = sqlite3_column_int(q, 3);
    x->rows_saved = sqlite3_column_int(q, 4);
    x->reviewed = sqlite3_column_int(q, 5);
    if (!x->name || !x->role)
      break;
  }
  sqlite3_reset(q);
  if (rc == SQLITE_ROW)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading progress");
}

int rescue_progress_get(rescue_store *st, rescue_progress *p) {
  sqlite3_stmt *q;
  int rc;
  memset(p, 0, sizeof *p);
  if ((rc = progress_status(st, p)) || (rc = progress_people(st, p)))
    return rc;
  if (!(q = rescue_store_stmt(st, "review_commented")))
    return rescue_store_err(st)->code;
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    p->commented_samples = sqlite3_column_int(q, 0);
  sqlite3_reset(q);
  return rc == SQLITE_ROW ? 0 : rescue_store_sqlerr(st, "reading progress");
}

void rescue_progress_clear(rescue_progress *p) {
  int i;
  for (i = 0; i < p->n_people; i++) {
    rescue_free(p->people[i].name);
    rescue_free(p->people[i].role);
  }
  rescue_free(p->people);
  memset(p, 0, sizeof *p);
}

/* ---- lint while reviewing ---- */

/*
** The sample's subtitle cues as the linter takes them into *media (*lc to free): given's
** when the caller kept them (not NULL), else read from st into *cues (cleared by the
** caller either way). *media points into them: keep both until the lint is done.
*/
static void review_media(rescue_store *st, const char *sample_id, const rescue_cues *given,
                         rescue_cues *cues, rescue_lint_cue **lc, rescue_lint_media *media) {
  const rescue_cues *from = given ? given : cues;
  int i;
  memset(cues, 0, sizeof *cues);
  *lc = NULL;
  media->duration = NAN;
  media->n_cues = 0;
  media->cues = NULL;
  if ((given || rescue_sample_cues(st, sample_id, cues) == 0) && from->n > 0) {
    *lc = rescue_calloc((size_t)from->n, sizeof **lc);
    if (*lc) {
      for (i = 0; i < from->n; i++) {
        (*lc)[i].seq = i + 1;
        (*lc)[i].start = from->v[i].start;
        (*lc)[i].end = from->v[i].end;
        (*lc)[i].text = from->v[i].text;
      }
      media->n_cues = from->n;
      media->cues = *lc;
    }
  }
}

int rescue_review_lint(rescue_store *st, const char *sample_id, const rescue_view_sample *vs,
                       rescue_lint_result *res) {
  rescue_cues cues;
  rescue_lint_cue *lc;
  rescue_lint_media media;
  int rc, i;
  review_media(st, sample_id, NULL, &cues, &lc, &media);
  rescue_lint_ents_free(&res->ents);
  rc = rescue_lint_sample_ents(rescue_store_scheme(st), sample_id, vs->sample, vs->rows, NULL,
                               vs->n, vs->n_rows, &media, res, &res->ents);
  for (i = 0; !rc && vs->lost_refs && i < vs->n; i++)
    rc = rescue_lint_lost_refs(sample_id, i + 1, vs->lost_refs[i], res);
  rescue_free(lc);
  rescue_cues_clear(&cues);
  return rc;
}

/*
** Lint `row` as row `position` of the loaded view: that row, the rows whose time rules
** look back at it, and the sample-level rules (rescue_lint_row_change; old: the row it
** replaces), on a copy of the view's row list (the view may be shared with readers). judged: as
** rescue_lint_row_change_rows (may be NULL). kept: the names derived from the view with
** old in place (the kept lint's, NULL when none); *after (when not NULL): those of the
** edited view when they may differ (rescue_lint_row_change_kept). given: the sample's cues
** when the caller kept them, NULL to read them (review_media).
*/
static int lint_one_row(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                        int position, const rescue_jnode *row, const rescue_jnode *old,
                        rescue_lint_result *res, unsigned char *judged,
                        const rescue_lint_ents *kept, rescue_lint_ents **after,
                        const rescue_cues *given) {
  rescue_cues cues;
  rescue_lint_cue *lc;
  rescue_lint_media media;
  const rescue_jnode **rows = rescue_malloc((size_t)(L->n ? L->n : 1) * sizeof *rows);
  int rc;
  if (!rows)
    return RESCUE_ENOMEM;
  memcpy(rows, L->rows, (size_t)L->n * sizeof *rows);
  rows[position - 1] = row;
  review_media(st, sample_id, given, &cues, &lc, &media);
  rc = rescue_lint_row_change_kept(rescue_store_scheme(st), sample_id, L->sample, rows, L->n,
                                   L->n_rows, position - 1, old, &media, res, judged, kept, after);
  rescue_free(rows);
  rescue_free(lc);
  rescue_cues_clear(&cues);
  return rc;
}

/*
** rescue_review_check_row_in, and (judged not NULL) into *judged, rescue_calloc'ed with
** L->n flags, the rows the lint judged (rescue_lint_row_change_rows). kept: L's lint kept
** with its names (may be NULL); when judged is not NULL, res->ents takes the edited
** view's names when they may differ from kept's (rescue_lint_row_change_kept). cues: the
** sample's, kept by the caller, or NULL to read them.
*/
static int check_row(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                     const rescue_lint_result *kept, const rescue_cues *cues, int position,
                     const char *row_json, size_t len, rescue_lint_result *res, rescue_buf *shown,
                     unsigned char **judged) {
  rescue_buf text = RESCUE_BUF_INIT;
  rescue_jdoc *doc = NULL;
  const rescue_jnode *row;
  rescue_jerror je;
  int rc = 0, i, errors = 0;
  if (position < 1 || position > L->n) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "sample '%s' has no row %d",
                       sample_id, position);
    goto done;
  }
  if (!(doc = rescue_jdoc_new())) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  row = rescue_jparse(doc, row_json, len, &je);
  if (!row || row->type != RESCUE_JOBJECT) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "a row must be a JSON object");
    goto done;
  }
  rescue_row_write_like(&text, row, L->rows[position - 1], position);
  if (judged && !(*judged = rescue_calloc((size_t)L->n, 1))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  if (!rescue_buf_ok(&text) || !(row = rescue_jparse(doc, text.s, text.len, &je)) ||
      (rc = lint_one_row(st, sample_id, L, position, row, L->rows[position - 1], res,
                         judged ? *judged : NULL, kept ? kept->ents : NULL,
                         judged ? &res->ents : NULL, cues))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  for (i = 0; i < res->n; i++)
    errors += res->findings[i].row == position && res->findings[i].severity == RESCUE_LINT_ERROR;
  if (errors)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT,
                       "the row breaks the annotation guideline: nothing was saved");
  if (shown) {
    rescue_buf_reset(shown);
    rescue_buf_putn(shown, text.s, text.len);
  }
done:
  rescue_buf_clear(&text);
  rescue_jdoc_free(&doc);
  return rc;
}

int rescue_review_check_row_in(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                               int position, const char *row_json, size_t len,
                               rescue_lint_result *res, rescue_buf *shown) {
  return check_row(st, sample_id, L, NULL, NULL, position, row_json, len, res, shown, NULL);
}

int rescue_review_check_change(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                               const rescue_lint_result *kept, int position, const char *row_json,
                               size_t len, rescue_review_change *ch) {
  return rescue_review_check_change_known(st, sample_id, L, kept, NULL, position, row_json, len,
                                          ch);
}

int rescue_review_check_change_known(rescue_store *st, const char *sample_id,
                                     const rescue_view_sample *L, const rescue_lint_result *kept,
                                     const rescue_cues *cues, int position, const char *row_json,
                                     size_t len, rescue_review_change *ch) {
  memset(ch, 0, sizeof *ch);
  ch->position = position;
  ch->n = L->n;
  return check_row(st, sample_id, L, kept, cues, position, row_json, len, &ch->lint, &ch->shown,
                   &ch->judged);
}

void rescue_review_change_clear(rescue_review_change *ch) {
  rescue_lint_result_clear(&ch->lint);
  rescue_buf_clear(&ch->shown);
  rescue_free(ch->judged);
  memset(ch, 0, sizeof *ch);
}

int rescue_review_check_row(rescue_store *st, const char *sample_id, int position,
                            int64_t annotator_id, const char *row_json, size_t len,
                            rescue_lint_result *res) {
  rescue_view_sample L;
  int rc;
  if (!(rc = rescue_view_sample_load(st, sample_id, annotator_id, &L)))
    rc = rescue_review_check_row_in(st, sample_id, &L, position, row_json, len, res, NULL);
  rescue_view_sample_clear(&L);
  return rc;
}

/* ---- a whole-sample lint kept current one saved row at a time ---- */

static void finding_free(rescue_lint_finding *f) {
  rescue_free(f->sample_id);
  rescue_free(f->field);
  rescue_free(f->reason);
  rescue_free(f->suggestions);
}

/* Findings by row, in the order they were made within a row (a stable sort). */
static void sort_by_row(rescue_lint_finding *v, int n) {
  int i, j;
  for (i = 1; i < n; i++) {
    rescue_lint_finding x = v[i];
    for (j = i; j > 0 && v[j - 1].row > x.row; j--)
      v[j] = v[j - 1];
    v[j] = x;
  }
}

/*
** Into *full (a whole-sample result before the edit): its findings on rows the change did
** not judge, then those of *delta (moved, *delta left empty), the lost references of the
** judged rows other than `at`, sorted by row; the counts made again.
*/
static int merge_change(const char *sample_id, const rescue_view_sample *L, int at,
                        const unsigned char *judged, rescue_lint_result *full,
                        rescue_lint_result *delta) {
  int i, k = 0, rc = 0;
  for (i = 0; i < full->n; i++) {
    rescue_lint_finding *f = &full->findings[i];
    if (f->row > 0 && f->row <= L->n && !judged[f->row - 1])
      full->findings[k++] = *f;
    else
      finding_free(f);
  }
  full->n = k;
  for (i = 0; i < delta->n; i++) {
    if (RESCUE_ALLOC_GROW(full->findings, full->n + 1, full->cap)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    full->findings[full->n++] = delta->findings[i];
    memset(&delta->findings[i], 0, sizeof delta->findings[i]);
  }
  for (i = 0; !rc && L->lost_refs && i < L->n; i++)
    if (judged[i] && i != at)
      rc = rescue_lint_lost_refs(sample_id, i + 1, L->lost_refs[i], full);
  sort_by_row(full->findings, full->n);
  full->errors = full->warnings = 0;
  memset(full->by_rule, 0, sizeof full->by_rule);
  for (i = 0; i < full->n; i++) {
    if (full->findings[i].severity == RESCUE_LINT_ERROR)
      full->errors++;
    else
      full->warnings++;
    full->by_rule[full->findings[i].rule]++;
  }
  return rc;
}

/*
** The end of a put: with the view already holding the saved row, bring *full to the new
** view's lint from *delta, the lint of the rows judged[] marks (moved out of *delta), and
** its kept names to delta's when the edit gave new ones (else they still hold).
*/
static int put_lint(rescue_store *st, const char *sample_id, const rescue_view_sample *L,
                    int position, const unsigned char *judged, rescue_lint_result *delta,
                    rescue_lint_result *full) {
  int i, all = 1;
  /* every row judged: the edit changed the sample's entity set, which the loaded sample
     object (participants, scenario) was derived from: load it again */
  for (i = 0; i < L->n && all; i++)
    all = judged[i];
  if (all && L->n > 1)
    return rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT,
                         "the edit changes the entities of '%s': load it again", sample_id);
  if (merge_change(sample_id, L, position - 1, judged, full, delta))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (delta->ents) {
    rescue_lint_ents_free(&full->ents);
    full->ents = delta->ents;
    delta->ents = NULL;
  }
  return 0;
}

int rescue_review_put_row(rescue_store *st, const char *sample_id, rescue_view_sample *L,
                          int position, const char *row_json, size_t len, int64_t version,
                          rescue_lint_result *full) {
  rescue_lint_result delta;
  unsigned char *judged = NULL;
  const rescue_jnode *old;
  int rc;
  memset(&delta, 0, sizeof delta);
  if (position < 1 || position > L->n)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "sample '%s' has no row %d",
                         sample_id, position);
  old = L->rows[position - 1];
  if ((rc = rescue_view_sample_put_row(L, position, row_json, len, version)))
    return rescue_seterr(rescue_store_err(st), rc, "putting row %d into the view", position);
  if (!(judged = rescue_calloc((size_t)L->n, 1))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  /* full's names were derived with old in place, as lint_one_row wants them */
  if ((rc = lint_one_row(st, sample_id, L, position, L->rows[position - 1], old, &delta, judged,
                         full->ents, &delta.ents, NULL))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto done;
  }
  rc = put_lint(st, sample_id, L, position, judged, &delta, full);
done:
  rescue_free(judged);
  rescue_lint_result_clear(&delta);
  return rc;
}

int rescue_review_put_change(rescue_store *st, const char *sample_id, rescue_view_sample *L,
                             rescue_review_change *ch, int64_t version, rescue_lint_result *full) {
  int rc;
  if (ch->position < 1 || ch->position > L->n || ch->n != L->n || !ch->judged)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "sample '%s': the checked change does not fit the view", sample_id);
  if ((rc = rescue_view_sample_put_row(L, ch->position, ch->shown.s, ch->shown.len, version)))
    return rescue_seterr(rescue_store_err(st), rc, "putting row %d into the view", ch->position);
  return put_lint(st, sample_id, L, ch->position, ch->judged, &ch->lint, full);
}
