/*
** task_rpp.c: RPP, relation pattern prediction (export/TASKS.md §2.2, §3): every row with
** a non-empty in-taxonomy relation_pattern, context up to and including that row; a
** sample without any relation_pattern key falls back to therapist rows with a
** relation_cycle_state, context strictly before the row.
*/
#include <string.h>

#include "tasks_int.h"

/* One RPP record for row r (1-based). */
static int write_rpp(tk_sample *t, tk_sink *k, int r, const char *gold, int context,
                     const char *reason_key, const char *evidence_key) {
  const rescue_jnode *ev = rescue_tk_get(t, r - 1, evidence_key);
  rescue_jw w;
  rescue_tk_begin(k, &w);
  rescue_tk_put_head(&w, t, RESCUE_TASK_RPP, "row", r);
  rescue_jw_key(&w, "row_index");
  rescue_jw_int(&w, r);
  rescue_tk_put_value(&w, t, r - 1, TK_TIMESTAMP, "timestamp");
  rescue_tk_put_value(&w, t, r - 1, TK_SPEAKER, "target_primary_speaker");
  rescue_jw_key(&w, "candidate_relation_labels");
  rescue_jw_raw(&w, t->labels.s, t->labels.len);
  rescue_tk_put_prior(&w, t, context);
  rescue_jw_key(&w, "gold_relation_pattern");
  rescue_jw_str(&w, gold);
  rescue_jw_key(&w, "gold_reason");
  rescue_tk_clean(&t->tmp, rescue_tk_get(t, r - 1, reason_key));
  rescue_jw_strn(&w, t->tmp.s, t->tmp.len);
  rescue_jw_key(&w, "gold_evidence_rows");
  if (ev && ev->type == RESCUE_JARRAY)
    rescue_jw_node(&w, ev);
  else
    rescue_jw_raw(&w, "[]", 2);
  rescue_tk_put_tail(&w, t);
  return rescue_tk_end(k, &w, RESCUE_TASK_RPP, 0);
}

int rescue_tk_build_rpp(tk_sample *t, const tk_opts *o, tk_sink *k) {
  int i, rc = 0, has_pattern = 0;
  (void)o;
  if (!t->relations)
    return 0;
  for (i = 0; i < t->n; i++)
    has_pattern |= t->s->rows[i].relation_pattern != NULL;
  rescue_tk_labels_json(&t->labels, t->relations);
  if (!rescue_buf_ok(&t->labels))
    return rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  for (i = 0; i < t->n && rc == 0; i++) {
    const rescue_row *sr = &t->s->rows[i];
    if (has_pattern) {
      if (sr->relation_pattern && sr->relation_pattern[0] &&
          rescue_tk_in_set(t->relations, sr->relation_pattern))
        rc = write_rpp(t, k, i + 1, sr->relation_pattern, i + 1, "relation_pattern_reason",
                       "relation_pattern_evidence_rows");
    } else if (t->rows[i].therapist && sr->relation_cycle_state && sr->relation_cycle_state[0] &&
               rescue_tk_in_set(t->relations, sr->relation_cycle_state)) {
      rc = write_rpp(t, k, i + 1, sr->relation_cycle_state, i, "relation_cycle_reason",
                     "relation_cycle_evidence_rows");
    }
  }
  return rc;
}
