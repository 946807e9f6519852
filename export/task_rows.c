/*
** task_rows.c: a sample made ready for the task builders: rows parsed once, row
** records (export/TASKS.md §1) built once and kept as spans, derived facts (§1), and
** the small helpers (cleaning, intensity, word count, picker, record framing).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "tasks_int.h"
#include "store_int.h"

/* ---- small helpers ---- */

size_t rescue_tk_clean(rescue_buf *b, const rescue_jnode *n) {
  rescue_buf_reset(b);
  rescue_jclean(b, n);
  if (!b->s)
    rescue_buf_putn(b, "", 0);
  return b->len;
}

const rescue_jnode *rescue_tk_get(const tk_sample *t, int i, const char *key) {
  return rescue_jget(t->rows[i].obj, key);
}

int rescue_tk_in_set(const rescue_labelset *ls, const char *label) {
  return ls && label && rescue_labelset_find(ls, label) >= 0;
}

long rescue_tk_word_count(const char *s, size_t len) {
  long n = 0;
  int in = 0;
  size_t i;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    int w = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '\'';
    if (w && !in)
      n++;
    in = w;
  }
  return n;
}

/*
** The even-spacing picker. Positions rint(rank*(n-1) / (m-1)) are computed as the
** integer product converted to double divided by the double (m-1), rounded half to even
** (export/TASKS.md §2.1). With n > m the positions are distinct, so the scripts' dedupe and
** top-up steps never fire; they are kept for m > n only in name (n <= m returns all).
*/
int rescue_tk_pick(int n, int m, int itp, int *pick) {
  int rank, k = 0;
  if (m <= 0 || n <= m) {
    for (k = 0; k < n; k++)
      pick[k] = k;
    return n;
  }
  if (m == 1) {
    pick[0] = itp ? n / 2 : 0;
    return 1;
  }
  for (rank = 0; rank < m; rank++) {
    double p = rint((double)((long long)rank * (n - 1)) / (double)(m - 1));
    int pos = (int)p;
    if (k == 0 || pick[k - 1] != pos)
      pick[k++] = pos;
  }
  /* top up from the start with unused items (never reached when n > m) */
  for (rank = 0; k < m && rank < n; rank++) {
    int used = 0, j;
    for (j = 0; j < k; j++)
      used |= pick[j] == rank;
    if (!used)
      pick[k++] = rank;
  }
  return k;
}

int rescue_tk_sample_ok(const tk_sample *t) {
  const rescue_buf *const bufs[] = {
      &t->couple, &t->source_file, &t->participants, &t->vp_participants,
      &t->recs,   &t->rows_text,   &t->clip_text,    &t->tmp,
      &t->tmp2,   &t->tmp3,        &t->id,           &t->labels};
  size_t i;
  for (i = 0; i < sizeof bufs / sizeof bufs[0]; i++)
    if (!rescue_buf_ok(bufs[i]))
      return 0;
  return 1;
}

int *rescue_tk_ints(tk_sample *t, size_t n) {
  if (RESCUE_ALLOC_GROW(t->ints, n, t->cap_ints))
    return NULL;
  return t->ints;
}

void rescue_tk_labels_json(rescue_buf *b, const rescue_labelset *ls) {
  rescue_jw w;
  int i;
  rescue_buf_reset(b);
  rescue_jw_init(&w, b);
  rescue_jw_arr(&w);
  for (i = 0; ls && i < ls->n; i++)
    rescue_jw_str(&w, ls->labels[i]);
  rescue_jw_end(&w);
}

/* ---- record framing ---- */

void rescue_tk_instance_id(rescue_buf *b, const tk_sample *t, const char *suffix, int row) {
  rescue_buf_reset(b);
  rescue_buf_printf(b, "%s__%s%d", t->s->sample_id, suffix, row);
}

void rescue_tk_begin(tk_sink *k, rescue_jw *w) {
  rescue_buf_reset(&k->line);
  rescue_jw_init(w, &k->line);
  rescue_jw_obj(w);
}

int rescue_tk_end(tk_sink *k, rescue_jw *w, rescue_task task, int gold_yes) {
  rescue_jw_end(w);
  rescue_buf_putc(&k->line, '\n');
  if (!rescue_buf_ok(&k->line))
    return rescue_seterr(k->err, RESCUE_ENOMEM, NULL);
  return k->emit(k->arg, task, gold_yes, &k->line);
}

void rescue_tk_put_value(rescue_jw *w, const tk_sample *t, int i, int which, const char *key) {
  const tk_span *sp = &t->rows[i].v[which];
  rescue_jw_key(w, key);
  rescue_jw_raw(w, t->recs.s + sp->a, sp->b - sp->a);
}

void rescue_tk_put_prior(rescue_jw *w, const tk_sample *t, int k) {
  rescue_jw_key(w, "prior_context");
  rescue_jw_raw(w, "[", 1);
  if (k > 0)
    rescue_buf_putn(w->b, t->recs.s + t->rows[0].rec.a, t->rows[k - 1].rec.b - t->rows[0].rec.a);
  rescue_buf_putc(w->b, ']');
}

void rescue_tk_put_head(rescue_jw *w, tk_sample *t, rescue_task task, const char *id_suffix,
                        int row) {
  rescue_buf *id = &t->id;
  rescue_jw_key(w, "task");
  rescue_jw_str(w, rescue_task_name(task));
  rescue_tk_instance_id(id, t, id_suffix, row);
  rescue_jw_key(w, "instance_id");
  rescue_jw_strn(w, id->s, id->len);
  rescue_jw_key(w, "sample_id");
  rescue_jw_str(w, t->s->sample_id);
  rescue_jw_key(w, "couple");
  rescue_jw_strn(w, t->couple.s, t->couple.len);
  rescue_jw_key(w, "scenario");
  rescue_jw_str(w, t->scenario);
  rescue_jw_key(w, "participants");
  rescue_jw_raw(w, t->participants.s, t->participants.len);
}

void rescue_tk_put_tail(rescue_jw *w, const tk_sample *t) {
  rescue_jw_key(w, "source_sample_id");
  rescue_jw_str(w, t->s->sample_id);
  rescue_jw_key(w, "source_file");
  rescue_jw_strn(w, t->source_file.s, t->source_file.len);
}

/* ---- preparing a sample ---- */

void rescue_tk_sample_init(tk_sample *t, const rescue_scheme *sc) {
  memset(t, 0, sizeof *t);
  t->sc = sc;
}

void rescue_tk_sample_clear(tk_sample *t) {
  rescue_free(t->rows);
  rescue_free(t->clip_at);
  rescue_buf_clear(&t->couple);
  rescue_buf_clear(&t->source_file);
  rescue_buf_clear(&t->participants);
  rescue_buf_clear(&t->vp_participants);
  rescue_buf_clear(&t->recs);
  rescue_buf_clear(&t->rows_text);
  rescue_buf_clear(&t->clip_text);
  rescue_buf_clear(&t->tmp);
  rescue_buf_clear(&t->tmp2);
  rescue_buf_clear(&t->tmp3);
  rescue_buf_clear(&t->id);
  rescue_buf_clear(&t->labels);
  rescue_free(t->ints);
  rescue_jdoc_free(&t->doc);
  memset(t, 0, sizeof *t);
}

/* Write a cleaned string value. */
static void put_clean(rescue_jw *w, rescue_buf *tmp, const rescue_jnode *n) {
  rescue_tk_clean(tmp, n);
  rescue_jw_strn(w, tmp->s, tmp->len);
}

/* A list of cleaned, non-empty strings (export/TASKS.md §1.1, target). */
static void put_names(rescue_jw *w, rescue_buf *tmp, const rescue_jnode *list) {
  const rescue_jnode *c;
  rescue_jw_arr(w);
  if (list && list->type == RESCUE_JARRAY)
    for (c = list->child; c; c = c->next)
      if (rescue_tk_clean(tmp, c))
        rescue_jw_strn(w, tmp->s, tmp->len);
  rescue_jw_end(w);
}

/* Does a list hold at least one name that is non-empty after cleaning? */
static int has_names(rescue_buf *tmp, const rescue_jnode *list) {
  const rescue_jnode *c;
  if (!list || list->type != RESCUE_JARRAY)
    return 0;
  for (c = list->child; c; c = c->next)
    if (rescue_tk_clean(tmp, c))
      return 1;
  return 0;
}

/*
** A normalised object list (export/TASKS.md §1.1): items that are objects whose `who` member is
** non-empty, whose `text` member is non-empty, and (when with_target) whose target list
** holds a name; written as {who, [target,] text}.
*/
static void put_items(rescue_jw *w, tk_sample *t, const rescue_jnode *list, const char *who,
                      const char *text, int with_target) {
  const rescue_jnode *c;
  rescue_jw_arr(w);
  if (list && list->type == RESCUE_JARRAY)
    for (c = list->child; c; c = c->next) {
      const rescue_jnode *tg = with_target ? rescue_jget(c, "target") : NULL;
      if (c->type != RESCUE_JOBJECT || !rescue_tk_clean(&t->tmp, rescue_jget(c, who)) ||
          !rescue_tk_clean(&t->tmp2, rescue_jget(c, text)) ||
          (with_target && !has_names(&t->tmp3, tg)))
        continue;
      rescue_jw_obj(w);
      rescue_jw_key(w, who);
      rescue_jw_strn(w, t->tmp.s, t->tmp.len);
      if (with_target) {
        rescue_jw_key(w, "target");
        put_names(w, &t->tmp3, tg);
      }
      rescue_jw_key(w, text);
      rescue_jw_strn(w, t->tmp2.s, t->tmp2.len);
      rescue_jw_end(w);
    }
  rescue_jw_end(w);
}

/* Key `name` into the current record, remembering where its value starts. */
#define VALUE_BEGIN(key_, slot_)                                                                   \
  do {                                                                                             \
    rescue_jw_key(&w, key_);                                                                       \
    row->v[slot_].a = t->recs.len;                                                                 \
  } while (0)
#define VALUE_END(slot_) (row->v[slot_].b = t->recs.len)

/* Build the row record of row i (export/TASKS.md §1.2) at the end of t->recs. */
static void build_record(tk_sample *t, int i, const char *clip, size_t clip_len) {
  tk_row *row = &t->rows[i];
  const rescue_jnode *o = row->obj;
  const rescue_row *sr = &t->s->rows[i];
  rescue_jw w;
  char ts[96];
  int n;

  if (i > 0)
    rescue_buf_putn(&t->recs, ", ", 2);
  row->rec.a = t->recs.len;
  rescue_jw_init(&w, &t->recs);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "row_index");
  rescue_jw_int(&w, i + 1);
  n = snprintf(ts, sizeof ts, "%.3f-%.3f", sr->start_time, sr->end_time);
  VALUE_BEGIN("timestamp", TK_TIMESTAMP);
  rescue_jw_strn(&w, ts, (size_t)(n < (int)sizeof ts ? n : (int)sizeof ts - 1));
  VALUE_END(TK_TIMESTAMP);
  VALUE_BEGIN("primary_speaker", TK_SPEAKER);
  rescue_jw_str(&w, row->speaker);
  VALUE_END(TK_SPEAKER);
  VALUE_BEGIN("target", TK_TARGET);
  put_names(&w, &t->tmp, rescue_jget(o, "target"));
  VALUE_END(TK_TARGET);
  VALUE_BEGIN("dialogue_cleaned", TK_DIALOGUE);
  put_clean(&w, &t->tmp, rescue_jget(o, "dialogue_cleaned"));
  VALUE_END(TK_DIALOGUE);
  VALUE_BEGIN("background_dialogue", TK_BACKGROUND);
  put_items(&w, t, rescue_jget(o, "background_dialogue"), "speaker", "content", 1);
  VALUE_END(TK_BACKGROUND);
  VALUE_BEGIN("tone_of_voice", TK_TONE);
  put_clean(&w, &t->tmp, rescue_jget(o, "tone_of_voice"));
  VALUE_END(TK_TONE);
  VALUE_BEGIN("body_posture", TK_POSTURE);
  put_items(&w, t, rescue_jget(o, "body_posture"), "person", "description", 0);
  VALUE_END(TK_POSTURE);
  VALUE_BEGIN("facial_expressions", TK_FACIAL);
  put_items(&w, t, rescue_jget(o, "facial_expressions"), "person", "description", 0);
  VALUE_END(TK_FACIAL);
  VALUE_BEGIN("self_directed_behavior", TK_SELF);
  put_items(&w, t, rescue_jget(o, "self_directed_behavior"), "person", "description", 0);
  VALUE_END(TK_SELF);
  VALUE_BEGIN("interaction_behavior", TK_INTERACTION);
  put_items(&w, t, rescue_jget(o, "interaction_behavior"), "initiator", "description", 1);
  VALUE_END(TK_INTERACTION);
  VALUE_BEGIN("clip_path", TK_CLIP_PATH);
  rescue_jw_strn(&w, clip ? clip : "", clip ? clip_len : 0);
  VALUE_END(TK_CLIP_PATH);
  VALUE_BEGIN("clip_duration_sec", TK_CLIP_DURATION);
  rescue_jw_double(&w, clip ? sr->end_time - sr->start_time : 0.0);
  VALUE_END(TK_CLIP_DURATION);
  rescue_jw_end(&w);
  row->rec.b = t->recs.len;
}

#undef VALUE_BEGIN
#undef VALUE_END

/* Is name (len bytes) among the NUL-terminated names packed in seen? */
static int seen_name(const rescue_buf *seen, const char *name, size_t len) {
  size_t p = 0;
  while (p < seen->len) {
    size_t l = strlen(seen->s + p);
    if (l == len && memcmp(seen->s + p, name, len) == 0)
      return 1;
    p += l + 1;
  }
  return 0;
}

/* Add the cleaned value of n to the VP participant list (export/TASKS.md §2.6, VP variant). */
static void vp_add(tk_sample *t, rescue_jw *w, rescue_buf *seen, const rescue_jnode *n) {
  size_t len = rescue_tk_clean(&t->tmp, n);
  const char *name = t->tmp.s;
  int i;
  if (!len)
    return;
  for (i = 0; i < t->sc->n_groups; i++)
    if (strcmp(name, t->sc->group_labels[i]) == 0)
      return;
  if (seen_name(seen, name, len))
    return;
  rescue_buf_putn(seen, name, len);
  rescue_buf_putc(seen, 0);
  rescue_jw_strn(w, name, len);
}

/* The VP participant list: speaker, targets, then viewpoint sources and targets. */
static void build_vp_participants(tk_sample *t) {
  rescue_buf seen = RESCUE_BUF_INIT;
  rescue_jw w;
  int i;
  rescue_buf_reset(&t->vp_participants);
  rescue_jw_init(&w, &t->vp_participants);
  rescue_jw_arr(&w);
  for (i = 0; i < t->n; i++) {
    const rescue_jnode *o = t->rows[i].obj, *c, *va;
    vp_add(t, &w, &seen, rescue_jget(o, "primary_speaker"));
    c = rescue_jget(o, "target");
    if (c && c->type == RESCUE_JARRAY)
      for (c = c->child; c; c = c->next)
        vp_add(t, &w, &seen, c);
    va = rescue_jget(o, "viewpoints_attitudes");
    if (va && va->type == RESCUE_JARRAY)
      for (c = va->child; c; c = c->next)
        if (c->type == RESCUE_JOBJECT) {
          vp_add(t, &w, &seen, rescue_jget(c, "source"));
          vp_add(t, &w, &seen, rescue_jget(c, "target"));
        }
  }
  rescue_jw_end(&w);
  if (!rescue_buf_ok(&seen))
    t->vp_participants.oom = 1;
  rescue_buf_clear(&seen);
}

/* The sample's own source_file (from its stored sample-level keys), else the release's. */
static int find_source_file(tk_sample *t) {
  const rescue_sample *s = t->s;
  const rescue_jnode *root, *sf;
  rescue_jerror je;
  rescue_buf_reset(&t->rows_text);
  rescue_buf_puts(&t->rows_text, s->head);
  if (s->has_rows) {
    rescue_buf_puts(&t->rows_text, "[]");
    rescue_buf_puts(&t->rows_text, s->tail);
  }
  if (!rescue_buf_ok(&t->rows_text))
    return RESCUE_ENOMEM;
  rescue_buf_reset(&t->source_file);
  root = rescue_jparse(t->doc, t->rows_text.s, t->rows_text.len, &je);
  if (!root && strstr(je.msg, "out of memory"))
    return RESCUE_ENOMEM;
  sf = root ? rescue_jget(root, "source_file") : NULL;
  if (sf && sf->type == RESCUE_JSTRING && rescue_tk_clean(&t->tmp, sf))
    rescue_buf_putn(&t->source_file, t->tmp.s, t->tmp.len);
  else
    rescue_buf_printf(&t->source_file, "data/therapy_merged_all/%s.json", s->sample_id);
  return 0;
}

/* The clips recorded for this sample (latest copy/exact clip per row). */
static int load_clips(tk_sample *t, rescue_store *st) {
  sqlite3_stmt *q = rescue_store_stmt(st, "task_clips");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_buf_reset(&t->clip_text);
  if (t->n > 0)
    memset(t->clip_at, 0, (size_t)t->n * sizeof *t->clip_at);
  rescue_bind_int(q, ":sample_ref", t->s->ref);
  while ((rc = sqlite3_step(q)) == SQLITE_ROW) {
    int pos = sqlite3_column_int(q, 0);
    if (pos < 1 || pos > t->n)
      continue;
    t->clip_at[pos - 1] = t->clip_text.len + 1;
    rescue_buf_putn(&t->clip_text, sqlite3_column_text(q, 1), (size_t)sqlite3_column_bytes(q, 1));
    rescue_buf_putc(&t->clip_text, 0);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading clips");
  return rescue_buf_ok(&t->clip_text) ? 0 : RESCUE_ENOMEM;
}

int rescue_tk_sample_prepare(tk_sample *t, rescue_store *st, const rescue_sample *s,
                             const char *clip_root, rescue_error *err) {
  const rescue_jnode *root, *c;
  rescue_jerror je;
  const char *slash;
  rescue_buf clip = RESCUE_BUF_INIT;
  size_t root_len = 0;
  int i, rc = 0;

  t->s = s;
  t->n = s->n;
  if (!t->doc && !(t->doc = rescue_jdoc_new()))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (RESCUE_ALLOC_GROW(t->rows, t->n, t->cap_rows) ||
      RESCUE_ALLOC_GROW(t->clip_at, t->n, t->cap_clips))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  t->scenario = rescue_sample_scenario(t->sc, s);
  t->group_label = rescue_scheme_group_label(t->sc, t->scenario);
  if (!t->group_label)
    t->group_label = strcmp(t->scenario, "family") == 0 ? "Family" : "Couple";
  t->relations = rescue_scheme_labelset(t->sc, "relation_pattern", t->scenario);
  t->strategies = rescue_scheme_labelset(t->sc, "support_strategy", t->scenario);

  /* couple = the immediate parent folder of the sample (corpus/FORMAT.md §1) */
  rescue_buf_reset(&t->couple);
  slash = strrchr(s->sample_id, '/');
  if (slash) {
    const char *p = slash;
    while (p > s->sample_id && p[-1] != '/')
      p--;
    rescue_buf_putn(&t->couple, p, (size_t)(slash - p));
  } else {
    rescue_buf_puts(&t->couple, "therapy_merged_all");
  }
  if ((rc = find_source_file(t)))
    return rescue_seterr(err, rc, NULL);

  /* rows: one parse of "[row, row, ...]" */
  rescue_buf_reset(&t->rows_text);
  rescue_buf_putc(&t->rows_text, '[');
  for (i = 0; i < t->n; i++) {
    if (i)
      rescue_buf_putc(&t->rows_text, ',');
    rescue_buf_putn(&t->rows_text, s->rows[i].content, s->rows[i].content_len);
  }
  rescue_buf_putc(&t->rows_text, ']');
  if (!rescue_buf_ok(&t->rows_text))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  root = rescue_jparse(t->doc, t->rows_text.s, t->rows_text.len, &je);
  if (!root)
    return rescue_seterr(err, strstr(je.msg, "out of memory") ? RESCUE_ENOMEM : RESCUE_EINTERNAL,
                         "sample '%s': stored rows do not parse: %s", s->sample_id, je.msg);
  for (i = 0, c = root->child; i < t->n && c; i++, c = c->next) {
    tk_row *row = &t->rows[i];
    memset(row, 0, sizeof *row);
    row->obj = c;
    row->speaker = s->rows[i].speaker ? s->rows[i].speaker : "";
    row->therapist = strcmp(row->speaker, t->sc->therapist) == 0;
    row->client = row->speaker[0] && !rescue_scheme_is_reserved(t->sc, row->speaker);
  }

  rescue_buf_reset(&t->participants);
  rescue_sample_participants_json(t->sc, s, &t->participants);
  build_vp_participants(t);

  if (t->rows_only) {
    rescue_buf_reset(&t->recs);
  } else if (clip_root) {
    root_len = strlen(clip_root);
    while (root_len > 0 && clip_root[root_len - 1] == '/')
      root_len--;
  } else if ((rc = load_clips(t, st))) {
    return rc == RESCUE_ENOMEM ? rescue_seterr(err, rc, NULL) : rc;
  }
  if (!t->rows_only)
    rescue_buf_reset(&t->recs);
  for (i = 0; i < t->n && !t->rows_only; i++) {
    const char *path = NULL;
    size_t len = 0;
    if (clip_root) {
      rescue_buf_reset(&clip);
      rescue_buf_putn(&clip, clip_root, root_len);
      rescue_buf_printf(&clip, "/%s/clips/%03d.mp4", s->sample_id, i + 1);
      path = clip.s;
      len = clip.len;
    } else if (t->clip_at[i]) {
      path = t->clip_text.s + t->clip_at[i] - 1;
      len = strlen(path);
    }
    build_record(t, i, path, len);
  }
  if (!rescue_buf_ok(&clip) || !rescue_tk_sample_ok(t))
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  rescue_buf_clear(&clip);
  return rc;
}
