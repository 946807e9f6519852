/*
** serve_dashboard.c: GET /api/dashboard (leads): review progress (rescue_progress_get),
** agreement with intervals (rescue_agree_corpus) and label statistics (rescue_stats_*).
*/
#include <string.h>

#include "rescue_agree.h"
#include "rescue_review.h"
#include "rescue_stats.h"
#include "serve_impl.h"

static void put_progress(rescue_jw *w, const rescue_progress *p) {
  int i;
  rescue_jw_key(w, "status");
  rescue_jw_obj(w);
  for (i = 0; i < p->n_status; i++) {
    rescue_jw_key(w, p->by_status[i].status);
    rescue_jw_int(w, p->by_status[i].n);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "samples");
  rescue_jw_int(w, p->samples);
  rescue_jw_key(w, "prepared");
  rescue_jw_int(w, p->prepared);
  rescue_jw_key(w, "rows");
  rescue_jw_int(w, p->rows);
  rescue_jw_key(w, "rows_reviewed");
  rescue_jw_int(w, p->rows_reviewed);
  rescue_jw_key(w, "rows_remaining");
  rescue_jw_int(w, p->rows - p->rows_reviewed);
  rescue_jw_key(w, "people");
  rescue_jw_arr(w);
  for (i = 0; i < p->n_people; i++) {
    const rescue_progress_person *x = &p->people[i];
    rescue_jw_obj(w);
    rescue_jw_key(w, "name");
    rescue_jw_str(w, x->name);
    rescue_jw_key(w, "role");
    rescue_jw_str(w, x->role);
    rescue_jw_key(w, "assigned");
    rescue_jw_int(w, x->assigned);
    rescue_jw_key(w, "assigned_rows");
    rescue_jw_int(w, x->assigned_rows);
    rescue_jw_key(w, "rows_saved");
    rescue_jw_int(w, x->rows_saved);
    rescue_jw_key(w, "reviewed");
    rescue_jw_int(w, x->reviewed);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
  rescue_jw_key(w, "commented_samples");
  rescue_jw_int(w, p->commented_samples);
}

/* Agreement (200 bootstrap replicates, seed 1) and label statistics, null when unavailable. */
static void put_agreement_stats(srv_req *r, rescue_jw *w) {
  rescue_agree_corpus_opts ao;
  rescue_agree_report *rep = NULL;
  rescue_label_stats *ls = NULL;
  rescue_table3 t3;
  rescue_view corpus = {.kind = RESCUE_VIEW_CORPUS};
  rescue_buf tmp = RESCUE_BUF_INIT;
  memset(&ao, 0, sizeof ao);
  ao.stats.ci_replicates = 200;
  ao.stats.seed = 1;
  rescue_jw_key(w, "agreement");
  if (rescue_agree_corpus(r->st, &ao, &rep) == 0) {
    rescue_agree_report_json(rep, &tmp);
    rescue_jw_raw(w, tmp.s ? tmp.s : "null", tmp.s ? tmp.len : 4);
  } else {
    rescue_jw_null(w);
  }
  rescue_agree_report_free(&rep);
  rescue_jw_key(w, "stats");
  if (rescue_stats_table3(r->st, &corpus, &t3) == 0 &&
      rescue_stats_labels(r->st, &corpus, &ls) == 0) {
    rescue_buf_reset(&tmp);
    rescue_stats_json(&t3, ls, &tmp);
    rescue_jw_raw(w, tmp.s ? tmp.s : "null", tmp.s ? tmp.len : 4);
  } else {
    rescue_jw_null(w);
  }
  rescue_stats_labels_free(&ls);
  rescue_buf_clear(&tmp);
}

/* GET /api/dashboard (leads): progress, people, agreement with intervals, label charts. */
void api_dashboard(srv_req *r) {
  rescue_progress p;
  rescue_jw w;
  int rc;
  if ((rc = rescue_progress_get(r->st, &p))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    rescue_progress_clear(&p);
    return;
  }
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  put_progress(&w, &p);
  put_agreement_stats(r, &w);
  rescue_jw_end(&w);
  rescue_progress_clear(&p);
  r->status = 200;
}
