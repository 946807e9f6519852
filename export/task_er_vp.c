/*
** task_er_vp.c: ER (emotion recognition) and VP (viewpoint prediction) in the
** release's own record layout (export/TASKS.md §2.5, §2.6, §3): eligible client rows, the
** early cutoff (ER), the even-spacing checkpoint picker, all prior rows as context.
*/
#include <string.h>

#include "intensity_int.h"
#include "tasks_int.h"

/*
** ER gold of row i: the first internal_emotion item of the speaker with a non-empty
** emotion_description and a valid intensity. Emotion into t->tmp2. Returns 1 if found.
*/
static int er_gold(tk_sample *t, int i, long *intensity) {
  const rescue_jnode *items = rescue_tk_get(t, i, "internal_emotion"), *c;
  const char *speaker = t->rows[i].speaker, *why;
  int x;
  if (!items || items->type != RESCUE_JARRAY)
    return 0;
  for (c = items->child; c; c = c->next) {
    if (c->type != RESCUE_JOBJECT || !rescue_tk_clean(&t->tmp2, rescue_jget(c, "person")) ||
        strcmp(t->tmp2.s, speaker) != 0)
      continue;
    if (rescue_tk_clean(&t->tmp2, rescue_jget(c, "emotion_description")) &&
        (x = rescue_intensity(rescue_jget(c, "intensity"), &t->tmp3, &why)) >= 0) {
      *intensity = x;
      return 1;
    }
  }
  return 0;
}

/* Is row i an ER candidate (export/TASKS.md §2.5)? */
static int er_eligible(tk_sample *t, int i, int min_words) {
  long intensity;
  size_t len;
  if (!t->rows[i].client || !er_gold(t, i, &intensity))
    return 0;
  len = rescue_tk_clean(&t->tmp, rescue_tk_get(t, i, "dialogue_cleaned"));
  return rescue_tk_word_count(t->tmp.s ? t->tmp.s : "", len) >= min_words;
}

/*
** VP gold of row i as a JSON array in out: every viewpoints_attitudes object whose
** cleaned source is the speaker, with a non-empty target and viewpoint. Returns the count.
*/
static int vp_gold(tk_sample *t, int i, rescue_buf *out) {
  const rescue_jnode *items = rescue_tk_get(t, i, "viewpoints_attitudes"), *c;
  const char *speaker = t->rows[i].speaker;
  rescue_jw w;
  int n = 0;
  if (out) {
    rescue_buf_reset(out);
    rescue_jw_init(&w, out);
    rescue_jw_arr(&w);
  }
  if (items && items->type == RESCUE_JARRAY)
    for (c = items->child; c; c = c->next) {
      if (c->type != RESCUE_JOBJECT || !rescue_tk_clean(&t->tmp, rescue_jget(c, "source")) ||
          strcmp(t->tmp.s, speaker) != 0 || !rescue_tk_clean(&t->tmp2, rescue_jget(c, "target")) ||
          !rescue_tk_clean(&t->tmp3, rescue_jget(c, "viewpoint")))
        continue;
      n++;
      if (!out)
        continue;
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "source");
      rescue_jw_strn(&w, t->tmp.s, t->tmp.len);
      rescue_jw_key(&w, "target");
      rescue_jw_strn(&w, t->tmp2.s, t->tmp2.len);
      rescue_jw_key(&w, "viewpoint");
      rescue_jw_strn(&w, t->tmp3.s, t->tmp3.len);
      rescue_jw_key(&w, "attitude");
      rescue_tk_clean(&t->tmp, rescue_jget(c, "attitude"));
      rescue_jw_strn(&w, t->tmp.s, t->tmp.len);
      rescue_jw_end(&w);
    }
  if (out)
    rescue_jw_end(&w);
  return n;
}

/* The fields ER and VP records share after the speaker: target ... interaction_behavior. */
static void put_row_fields(rescue_jw *w, const tk_sample *t, int i) {
  rescue_tk_put_value(w, t, i, TK_TARGET, "target");
  rescue_tk_put_value(w, t, i, TK_DIALOGUE, "dialogue");
  rescue_tk_put_value(w, t, i, TK_BACKGROUND, "background_dialogue");
  rescue_tk_put_value(w, t, i, TK_TONE, "tone_of_voice");
  rescue_tk_put_value(w, t, i, TK_POSTURE, "body_posture");
  rescue_tk_put_value(w, t, i, TK_FACIAL, "facial_expressions");
  rescue_tk_put_value(w, t, i, TK_SELF, "self_directed_behavior");
  rescue_tk_put_value(w, t, i, TK_INTERACTION, "interaction_behavior");
}

/* clip_path ... source_file: the common end of ER and VP records. */
static void put_release_tail(rescue_jw *w, tk_sample *t, int i, rescue_task task) {
  const tk_span *clip = &t->rows[i].v[TK_CLIP_PATH];
  t->clip_missing = clip->b - clip->a <= 2; /* "" */
  rescue_tk_put_value(w, t, i, TK_CLIP_PATH, "clip_path");
  rescue_tk_put_value(w, t, i, TK_CLIP_DURATION, "clip_duration_sec");
  rescue_jw_key(w, "task");
  rescue_jw_str(w, rescue_task_name(task));
  rescue_tk_instance_id(&t->id, t, "row", i + 1);
  rescue_jw_key(w, "instance_id");
  rescue_jw_strn(w, t->id.s, t->id.len);
  rescue_jw_key(w, "scenario");
  rescue_jw_str(w, t->scenario);
  rescue_tk_put_tail(w, t);
}

/* sample_id, couple, row_index, timestamp, speaker: the common start. */
static void put_release_head(rescue_jw *w, const tk_sample *t, int i) {
  rescue_jw_key(w, "sample_id");
  rescue_jw_str(w, t->s->sample_id);
  rescue_jw_key(w, "couple");
  rescue_jw_strn(w, t->couple.s, t->couple.len);
  rescue_jw_key(w, "row_index");
  rescue_jw_int(w, i + 1);
  rescue_tk_put_value(w, t, i, TK_TIMESTAMP, "timestamp");
  rescue_tk_put_value(w, t, i, TK_SPEAKER, "speaker");
}

int rescue_tk_build_er(tk_sample *t, const tk_opts *o, tk_sink *k) {
  int n = t->n, nc = 0, np, i, j, rc = 0, first_kept = 0;
  int *mem = rescue_tk_ints(t, (size_t)(2 * (n + 1))), *cand, *pick;
  if (!mem)
    return rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  cand = mem;
  pick = mem + n + 1;
  /* early cutoff: keep rows r >= drop + 1 with drop = min(N-1, ceil(3N/10)) */
  if (n > 1) {
    int drop = (3 * n + 9) / 10;
    if (drop > n - 1)
      drop = n - 1;
    first_kept = drop; /* 0-based index of row drop + 1 */
  }
  for (i = first_kept; i < n; i++)
    if (er_eligible(t, i, o->min_words))
      cand[nc++] = i;
  np = rescue_tk_pick(nc, o->checkpoints, 0, pick);
  for (j = 0; j < np && rc == 0; j++) {
    rescue_jw w;
    long intensity = 0;
    i = cand[pick[j]];
    er_gold(t, i, &intensity);
    rescue_tk_begin(k, &w);
    put_release_head(&w, t, i);
    put_row_fields(&w, t, i);
    rescue_tk_put_prior(&w, t, i);
    rescue_jw_key(&w, "gold_internal_emotion");
    rescue_jw_strn(&w, t->tmp2.s, t->tmp2.len);
    rescue_jw_key(&w, "gold_intensity_score");
    rescue_jw_int(&w, intensity);
    put_release_tail(&w, t, i, RESCUE_TASK_ER);
    rc = rescue_tk_end(k, &w, RESCUE_TASK_ER, 0);
  }
  return rc;
}

int rescue_tk_build_vp(tk_sample *t, const tk_opts *o, tk_sink *k) {
  rescue_buf gold = RESCUE_BUF_INIT;
  int n = t->n, nc = 0, np, i, j, rc = 0;
  int *mem = rescue_tk_ints(t, (size_t)(2 * (n + 1))), *cand, *pick;
  if (!mem)
    return rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  cand = mem;
  pick = mem + n + 1;
  for (i = 0; i < n; i++)
    if (t->rows[i].client && vp_gold(t, i, NULL) > 0)
      cand[nc++] = i;
  np = rescue_tk_pick(nc, o->checkpoints, 0, pick);
  for (j = 0; j < np && rc == 0; j++) {
    rescue_jw w;
    i = cand[pick[j]];
    vp_gold(t, i, &gold);
    if (!rescue_buf_ok(&gold) || !rescue_tk_sample_ok(t))
      break; /* out of memory: reported below */
    rescue_tk_begin(k, &w);
    put_release_head(&w, t, i);
    rescue_jw_key(&w, "participants");
    rescue_jw_raw(&w, t->vp_participants.s, t->vp_participants.len);
    put_row_fields(&w, t, i);
    rescue_tk_put_prior(&w, t, i);
    rescue_jw_key(&w, "gold_viewpoints");
    rescue_jw_raw(&w, gold.s, gold.len);
    put_release_tail(&w, t, i, RESCUE_TASK_VP);
    rc = rescue_tk_end(k, &w, RESCUE_TASK_VP, 0);
  }
  if (rc == 0 && !rescue_buf_ok(&gold))
    rc = rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  rescue_buf_clear(&gold);
  return rc;
}
