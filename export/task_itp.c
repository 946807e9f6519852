/*
** task_itp.c: ITP, intervention time prediction (export/TASKS.md §2.1, §3): after which
** client rows does the therapist step in? Balanced per sample with the even-spacing
** picker; ids name the sample and row (no answer), the candidate and boundary types
** gold-only.
*/
#include <string.h>

#include "tasks_int.h"

/* Reduce list[0..n) to at most m items with the ITP picker, in place; returns the count. */
static int reduce(int *list, int n, int m, int *pick) {
  int k = rescue_tk_pick(n, m, 1, pick), j;
  for (j = 0; j < k; j++)
    list[j] = list[pick[j]]; /* pick[] ascends, pick[j] >= j: safe in place */
  return k;
}

/* One ITP record for the decision after row ce (1-based); yes = gold. */
static int write_itp(tk_sample *t, tk_sink *k, int ce, int yes) {
  rescue_jw w;
  int i = ce - 1;
  rescue_tk_begin(k, &w);
  rescue_tk_put_head(&w, t, RESCUE_TASK_ITP, "after_row", ce);
  rescue_jw_key(&w, "context_end_row_index");
  rescue_jw_int(&w, ce);
  rescue_tk_put_value(&w, t, i, TK_TIMESTAMP, "timestamp");
  rescue_tk_put_value(&w, t, i, TK_SPEAKER, "speaker");
  rescue_tk_put_value(&w, t, i, TK_DIALOGUE, "dialogue");
  rescue_tk_put_prior(&w, t, ce);
  rescue_jw_key(&w, "gold_should_speak");
  rescue_jw_str(&w, yes ? "yes" : "no");
  rescue_jw_key(&w, "gold_candidate_type");
  rescue_jw_str(&w, yes ? "actual_therapist_entry" : "continue_listening");
  rescue_jw_key(&w, "gold_boundary_type");
  if (yes)
    rescue_jw_str(&w, "therapist_entry");
  else
    rescue_jw_str(&w, strcmp(t->rows[i].speaker, t->rows[i + 1].speaker) == 0
                          ? "same_speaker_continuation"
                          : "non_therapist_exchange");
  rescue_jw_key(&w, "gold_next_row_index");
  rescue_jw_int(&w, ce + 1);
  rescue_tk_put_tail(&w, t);
  return rescue_tk_end(k, &w, RESCUE_TASK_ITP, yes);
}

/*
** Positives: decision after row r-1 when row r is a therapist row and r-1 is not.
** Negatives: after row r when neither r nor r+1 is a therapist row. Optional per-class
** cap, then both classes cut to the smaller one's size; a sample with no positive or
** no negative contributes nothing. Records go out in decision-row order.
*/
int rescue_tk_build_itp(tk_sample *t, const tk_opts *o, tk_sink *k) {
  int n = t->n, np = 0, nn = 0, b, r, ip = 0, in = 0, rc = 0;
  int *mem = rescue_tk_ints(t, (size_t)(3 * (n + 1))), *pos, *neg, *pick;
  if (!mem)
    return rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  pos = mem;
  neg = mem + n + 1;
  pick = mem + 2 * (n + 1);
  for (r = 2; r <= n; r++)
    if (t->rows[r - 1].therapist && !t->rows[r - 2].therapist)
      pos[np++] = r - 1;
  for (r = 1; r < n; r++)
    if (!t->rows[r - 1].therapist && !t->rows[r].therapist)
      neg[nn++] = r;
  if (o->itp_cap > 0) {
    np = reduce(pos, np, o->itp_cap, pick);
    nn = reduce(neg, nn, o->itp_cap, pick);
  }
  b = np < nn ? np : nn;
  if (b == 0)
    return 0;
  np = reduce(pos, np, b, pick);
  nn = reduce(neg, nn, b, pick);
  while (rc == 0 && (ip < np || in < nn)) {
    if (in >= nn || (ip < np && pos[ip] < neg[in]))
      rc = write_itp(t, k, pos[ip++], 1);
    else
      rc = write_itp(t, k, neg[in++], 0);
  }
  return rc;
}
