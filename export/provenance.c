/*
** provenance.c: where the rows of a task export come from, for its dataset card and
** manifest: rows shown from adjudicated gold or from the latest version, the policies
** that decided the gold, whose versions the rows show, and agreement per field (with a
** bootstrap interval) between the coders over the samples used.
*/
#include <math.h>
#include <string.h>

#include "rescue_agree.h"
#include "rescue_alloc.h"
#include "rescue_curate.h"
#include "tasks_int.h"
#include "store_int.h"

/* The gold policy of a row version: 0 lead, 1 majority, 2 latest, 3 other or unknown. */
static int gold_policy(rescue_store *st, int64_t version_id, int *which) {
  static const char *const names[] = {"lead", "majority", "latest"};
  sqlite3_stmt *q = rescue_store_stmt(st, "prov_gold_policy");
  int rc, i;
  *which = 3;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", version_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW && sqlite3_column_text(q, 0))
    for (i = 0; i < 3; i++)
      if (strcmp((const char *)sqlite3_column_text(q, 0), names[i]) == 0)
        *which = i;
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a gold version's policy");
  return 0;
}

/* The entry of annotator id (added when new), or NULL when out of memory. */
static tk_prov_annotator *annotator_entry(tk_summary *s, int64_t id) {
  int k;
  for (k = 0; k < s->n_annotators && s->annotators[k].id != id; k++)
    ;
  if (k == s->n_annotators) {
    if (RESCUE_ALLOC_GROW(s->annotators, s->n_annotators + 1, s->cap_annotators))
      return NULL;
    memset(&s->annotators[k], 0, sizeof s->annotators[k]);
    s->annotators[k].id = id;
    s->n_annotators++;
  }
  return &s->annotators[k];
}

/* 1 when gold version vid was made from a version lead wrote, 0 when not, or an error. */
static int from_lead_version(rescue_store *st, int64_t vid, int64_t lead) {
  sqlite3_stmt *q = rescue_store_stmt(st, "prov_gold_sources");
  int rc, yes = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", vid);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW)
    yes = sqlite3_column_int64(q, 2) == lead;
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a gold version's sources");
  return yes;
}

/*
** Count gold version vid, whose values carry their provenance (rescue_gold_how_of): agreed;
** a lead's decision, or policy lead taking that lead's own version, counts for the lead;
** otherwise its policy p. 0 or an error kept on the store handle.
*/
static int gold_how_recorded(tk_summary *s, rescue_store *st, int64_t vid,
                             const rescue_gold_how *how, int p) {
  tk_prov_annotator *a;
  int rc = 0;
  if (how->by == RESCUE_GOLD_AGREED) {
    s->gold_agreed++;
    return 0;
  }
  if (how->by == RESCUE_GOLD_BY_POLICY && how->lead_id && strcmp(how->policy, "lead") == 0 &&
      (rc = from_lead_version(st, vid, how->lead_id)) < 0)
    return rc;
  if (how->lead_id && (how->by == RESCUE_GOLD_BY_LEAD || rc == 1)) {
    if (!(a = annotator_entry(s, how->lead_id)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    a->decided++;
    return 0;
  }
  s->how_policy[p]++;
  return 0;
}

/*
** How gold row r was decided, counted in s: by a lead when the store holds a lead's decision
** on the row (the latest decision's lead, who also enters the annotator table); agreed when
** every version it was decided from (two or more) has the same content; under policy lead,
** by the lead whose version was taken; otherwise by its policy p. Gold whose values carry
** their provenance is counted from it (rescue_gold_how_of, gold_how_recorded); the rules
** after it are for gold written before provenance was recorded. 0 or an error kept on the
** store handle.
*/
static int gold_how(tk_summary *s, rescue_store *st, const rescue_row *r, int p) {
  sqlite3_stmt *q;
  tk_prov_annotator *a;
  int64_t lead = 0;
  long n = 0, distinct = 0;
  int rc;
  rescue_gold_how how;
  if ((rc = rescue_gold_how_of(st, r->version_id, &how)))
    return rc;
  if (how.by != RESCUE_GOLD_BY_UNKNOWN)
    return gold_how_recorded(s, st, r->version_id, &how, p);
  if (!(q = rescue_store_stmt(st, "prov_gold_lead")))
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":row_id", r->row_id);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW)
    lead = sqlite3_column_int64(q, 0);
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a row's decisions");
  if (lead) {
    if (!(a = annotator_entry(s, lead)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    a->decided++;
    return 0;
  }
  if (!(q = rescue_store_stmt(st, "prov_gold_sources")))
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", r->version_id);
  if ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    n = (long)sqlite3_column_int64(q, 0);
    distinct = (long)sqlite3_column_int64(q, 1);
    if (p == 0) /* policy lead: the lead whose version was taken */
      lead = sqlite3_column_int64(q, 2);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a gold version's sources");
  if (n >= 2 && distinct == 1) {
    s->gold_agreed++;
  } else if (lead) {
    if (!(a = annotator_entry(s, lead)))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    a->decided++;
  } else {
    s->how_policy[p]++;
  }
  return 0;
}

/*
** Note that smp is shown whole from one annotator's view (its annotators' row sets differ
** and there is no gold row set), for the card. Returns 0 or RESCUE_ENOMEM.
*/
static int whole_view(tk_summary *s, const rescue_sample *smp) {
  struct tk_whole_view *w;
  if (RESCUE_ALLOC_GROW(s->whole, s->n_whole + 1, s->cap_whole) ||
      !annotator_entry(s, smp->view_of))
    return RESCUE_ENOMEM;
  w = &s->whole[s->n_whole];
  w->annotator_id = smp->view_of;
  if (!(w->sample_id = rescue_strdup(smp->sample_id)))
    return RESCUE_ENOMEM;
  s->n_whole++;
  return 0;
}

/*
** Count whose segmentation smp's gold rows are in: a gold row set chosen from an
** annotator's (or the draft's) row set, or the row set every coder shares. Samples without
** gold rows count nowhere. 0 or an error kept on the store handle.
*/
static int gold_segmentation(tk_summary *s, rescue_store *st, const rescue_sample *smp) {
  tk_prov_annotator *a;
  int64_t who;
  int i, rc;
  for (i = 0; i < smp->n && strcmp(smp->rows[i].kind, "gold") != 0; i++)
    ;
  if (i == smp->n)
    return 0;
  if ((rc = rescue_gold_segmenter(st, smp->rowset_id, &who)) < 0)
    return rc;
  if (!rc) {
    s->seg_base++;
    return 0;
  }
  if (!(a = annotator_entry(s, who)))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  a->segmented++;
  return 0;
}

int rescue_tk_prov_sample(tk_summary *s, rescue_store *st, const rescue_sample *smp) {
  rescue_error *err = rescue_store_err(st);
  sqlite3_stmt *q = rescue_store_stmt(st, "prov_sample_annotators");
  tk_prov_annotator *a;
  int i, rc;
  if (!q)
    return err->code;
  rescue_bind_int(q, ":rowset_id", smp->rowset_id);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    if (!(a = annotator_entry(s, sqlite3_column_int64(q, 0)))) {
      sqlite3_reset(q);
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    a->annotated += (long)sqlite3_column_int64(q, 1);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "counting the annotators of a sample");
  if (RESCUE_ALLOC_GROW(s->used_ids, s->n_used + 1, s->cap_used))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (!(s->used_ids[s->n_used] = rescue_strdup(smp->sample_id)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  s->n_used++;
  if (smp->view_of && whole_view(s, smp))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if ((rc = gold_segmentation(s, st, smp)))
    return rc;
  for (i = 0; i < smp->n; i++) {
    const rescue_row *r = &smp->rows[i];
    if (strcmp(r->kind, "gold") == 0) {
      int p;
      s->res->rows_gold++;
      if ((rc = gold_policy(st, r->version_id, &p)) || (rc = gold_how(s, st, r, p)))
        return rc;
      s->policies[p]++;
    } else {
      s->res->rows_latest++;
    }
    if (!(a = annotator_entry(s, r->annotator_id)))
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    a->rows++;
  }
  return 0;
}

/* A number member of an object (NAN when absent or null). */
static double num_of(const rescue_jnode *o, const char *key) {
  const rescue_jnode *v = rescue_jget(o, key);
  return v && v->type == RESCUE_JNUMBER ? v->num : NAN;
}

/* Keep, per field, the headline of the agreement report (parsed back from its JSON). */
static int agreement_summary(tk_summary *s, const rescue_buf *report, rescue_error *err) {
  static const char *const copy[] = {"field", "level", "status", "reliability", "coders", "units"};
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *fields, *f;
  rescue_jerror je;
  rescue_jw w;
  size_t k;
  if (!doc)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  root = rescue_jparse(doc, report->s, report->len, &je);
  fields = rescue_jget(root, "fields");
  if (!fields || fields->type != RESCUE_JARRAY) {
    rescue_jdoc_free(&doc);
    return rescue_seterr(err, strcmp(je.msg, "out of memory") ? RESCUE_EINTERNAL : RESCUE_ENOMEM,
                         "the agreement report has no fields");
  }
  rescue_jw_init(&w, &s->agreement);
  rescue_jw_arr(&w);
  for (f = fields->child; f; f = f->next) {
    const rescue_jnode *ci = rescue_jget(f, "ci");
    double a = num_of(f, "alpha");
    rescue_jw_obj(&w);
    for (k = 0; k < sizeof copy / sizeof copy[0]; k++) {
      const rescue_jnode *v = rescue_jget(f, copy[k]);
      rescue_jw_key(&w, copy[k]);
      if (v)
        rescue_jw_node(&w, v);
      else
        rescue_jw_null(&w);
    }
    rescue_jw_key(&w, "alpha");
    if (isnan(a))
      rescue_jw_null(&w);
    else
      rescue_jw_double(&w, a);
    rescue_jw_key(&w, "ci_low");
    if (ci && !isnan(num_of(ci, "low")))
      rescue_jw_double(&w, num_of(ci, "low"));
    else
      rescue_jw_null(&w);
    rescue_jw_key(&w, "ci_high");
    if (ci && !isnan(num_of(ci, "high")))
      rescue_jw_double(&w, num_of(ci, "high"));
    else
      rescue_jw_null(&w);
    rescue_jw_key(&w, "ci_level");
    if (ci && !isnan(num_of(ci, "level")))
      rescue_jw_double(&w, num_of(ci, "level"));
    else
      rescue_jw_null(&w);
    if (rescue_jget(f, "warnings")) {
      /* thin data, as rescue agree warns about it (annotate/agree_report.c) */
      rescue_jw_key(&w, "warnings");
      rescue_jw_node(&w, rescue_jget(f, "warnings"));
    }
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jdoc_free(&doc);
  return rescue_buf_ok(&s->agreement) ? 0 : rescue_seterr(err, RESCUE_ENOMEM, NULL);
}

int rescue_tk_prov_finish(tk_summary *s, rescue_store *st, rescue_error *err) {
  rescue_agree_corpus_opts ao = {0};
  rescue_agree_report *rep = NULL;
  rescue_buf json = RESCUE_BUF_INIT;
  int i, rc;
  for (i = 0; i < s->n_annotators; i++) {
    sqlite3_stmt *q = rescue_store_stmt(st, "prov_annotator");
    if (!q)
      return rescue_store_err(st)->code;
    rescue_bind_int(q, ":id", s->annotators[i].id);
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW) {
      s->annotators[i].name = rescue_strdup((const char *)sqlite3_column_text(q, 0));
      s->annotators[i].role = rescue_strdup((const char *)sqlite3_column_text(q, 1));
    }
    sqlite3_reset(q);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      return rescue_store_sqlerr(st, "reading an annotator");
    if (rc == SQLITE_ROW && (!s->annotators[i].name || !s->annotators[i].role))
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  /* agreement between the coders over the samples used; its absence is reported, not fatal */
  ao.samples = (const char *const *)s->used_ids;
  ao.n_samples = (int)s->n_used;
  ao.stats.ci_replicates = s->o->agreement_replicates;
  ao.stats.seed = 1;
  rescue_buf_reset(&s->agreement);
  s->agreement_note[0] = 0;
  {
    sqlite3_stmt *q = rescue_store_stmt(st, "prov_coder_count");
    long coders = 0;
    if (!q)
      return rescue_store_err(st)->code;
    rc = sqlite3_step(q);
    if (rc == SQLITE_ROW)
      coders = (long)sqlite3_column_int64(q, 0);
    sqlite3_reset(q);
    if (rc != SQLITE_ROW)
      return rescue_store_sqlerr(st, "counting coders");
    if (coders < 2) {
      snprintf(s->agreement_note, sizeof s->agreement_note,
               "not computed: the corpus has %ld human coder%s (agreement needs two)", coders,
               coders == 1 ? "" : "s");
      return 0;
    }
  }
  rc = rescue_agree_corpus(st, &ao, &rep);
  if (rc == RESCUE_ENOMEM)
    return rc;
  if (rc) {
    snprintf(s->agreement_note, sizeof s->agreement_note, "not computed: %s",
             rescue_store_errmsg(st));
    return 0;
  }
  rescue_agree_report_json(rep, &json);
  rescue_agree_report_free(&rep);
  if (!rescue_buf_ok(&json))
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  else
    rc = agreement_summary(s, &json, err);
  rescue_buf_clear(&json);
  return rc;
}

void rescue_tk_prov_clear(tk_summary *s) {
  long i;
  for (i = 0; i < s->n_annotators; i++) {
    rescue_free(s->annotators[i].name);
    rescue_free(s->annotators[i].role);
  }
  rescue_free(s->annotators);
  s->annotators = NULL;
  s->n_annotators = s->cap_annotators = 0;
  for (i = 0; i < s->n_used; i++)
    rescue_free(s->used_ids[i]);
  rescue_free(s->used_ids);
  s->used_ids = NULL;
  s->n_used = s->cap_used = 0;
  for (i = 0; i < s->n_whole; i++)
    rescue_free(s->whole[i].sample_id);
  rescue_free(s->whole);
  s->whole = NULL;
  s->n_whole = s->cap_whole = 0;
  rescue_buf_clear(&s->agreement);
}
