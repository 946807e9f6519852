/*
** stats.c: the paper's Table 3 (samples, duration, turns, speakers, therapist share)
** per scenario and overall.
*/
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_stats.h"
#include "store_int.h"

/* Distinct non-empty speakers of a sample (small n: a linear scan is fine). */
static long distinct_speakers(const rescue_sample *s) {
  long n = 0;
  int i, j;
  for (i = 0; i < s->n; i++) {
    int seen = 0;
    if (!s->rows[i].speaker[0])
      continue;
    for (j = 0; j < i && !seen; j++)
      seen = strcmp(s->rows[j].speaker, s->rows[i].speaker) == 0;
    n += !seen;
  }
  return n;
}

static void add(rescue_table3_col *c, const rescue_table3_col *x) {
  c->samples += x->samples;
  c->turns += x->turns;
  c->therapist_turns += x->therapist_turns;
  c->speakers += x->speakers;
  c->duration_sec += x->duration_sec;
  c->media_durations += x->media_durations;
}

int rescue_stats_table3(rescue_store *st, const rescue_view *view, rescue_table3 *out) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  int rc, i;
  memset(out, 0, sizeof *out);
  if ((rc = rescue_sample_iter_new(st, view, NULL, 0, &it)))
    return rc;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    rescue_table3_col one = {0};
    double d = 0;
    int m;
    if (strcmp(s->status, "discarded") == 0) {
      out->discarded++;
      continue;
    }
    if (!s->complete) {
      out->incomplete++;
      continue;
    }
    one.samples = 1;
    one.turns = s->n;
    for (i = 0; i < s->n; i++)
      one.therapist_turns += strcmp(s->rows[i].speaker, sc->therapist) == 0;
    one.speakers = distinct_speakers(s);
    m = rescue_sample_media_duration(st, s->ref, &d);
    if (m < 0) {
      rc = m;
      break;
    }
    if (m) {
      one.duration_sec = d;
      one.media_durations = 1;
    } else if (s->n) {
      one.duration_sec = s->rows[s->n - 1].end_time;
    }
    add(strcmp(rescue_sample_scenario(sc, s), "family") == 0 ? &out->family : &out->couple, &one);
    add(&out->all, &one);
  }
  rescue_sample_iter_free(&it);
  return rc < 0 ? rc : 0;
}

static void col_json(rescue_jw *w, const char *name, const rescue_table3_col *c) {
  rescue_jw_key(w, name);
  rescue_jw_obj(w);
  rescue_jw_key(w, "samples");
  rescue_jw_int(w, c->samples);
  rescue_jw_key(w, "turns");
  rescue_jw_int(w, c->turns);
  rescue_jw_key(w, "duration_min");
  rescue_jw_double(w, c->duration_sec / 60.0);
  rescue_jw_key(w, "avg_duration_min");
  if (c->samples)
    rescue_jw_double(w, c->duration_sec / 60.0 / (double)c->samples);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "avg_turns");
  if (c->samples)
    rescue_jw_double(w, (double)c->turns / (double)c->samples);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "avg_speakers");
  if (c->samples)
    rescue_jw_double(w, (double)c->speakers / (double)c->samples);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "therapist_share");
  if (c->turns)
    rescue_jw_double(w, (double)c->therapist_turns / (double)c->turns);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "therapist_turns");
  rescue_jw_int(w, c->therapist_turns);
  rescue_jw_end(w);
}

void rescue_stats_table3_json(const rescue_table3 *t, rescue_buf *out) {
  rescue_jw w;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  col_json(&w, "couple", &t->couple);
  col_json(&w, "family", &t->family);
  col_json(&w, "all", &t->all);
  rescue_jw_end(&w);
}

/* One line: a label and three cells formatted by kind. */
static void text_line(rescue_buf *b, const char *label, const rescue_table3_col *c[3], int kind) {
  int i;
  rescue_buf_printf(b, "%-30s", label);
  for (i = 0; i < 3; i++) {
    const rescue_table3_col *x = c[i];
    switch (kind) {
    case 0: rescue_buf_printf(b, "%10ld", x->samples); break;
    case 1: rescue_buf_printf(b, "%10.1f", x->duration_sec / 60.0); break;
    case 2: rescue_buf_printf(b, "%10ld", x->turns); break;
    case 3:
      if (x->samples)
        rescue_buf_printf(b, "%10.2f", x->duration_sec / 60.0 / (double)x->samples);
      else
        rescue_buf_printf(b, "%10s", "-");
      break;
    case 4:
      if (x->samples)
        rescue_buf_printf(b, "%10.2f", (double)x->turns / (double)x->samples);
      else
        rescue_buf_printf(b, "%10s", "-");
      break;
    case 5:
      if (x->samples)
        rescue_buf_printf(b, "%10.2f", (double)x->speakers / (double)x->samples);
      else
        rescue_buf_printf(b, "%10s", "-");
      break;
    case 6:
      if (x->turns)
        rescue_buf_printf(b, "%9.1f%%", 100.0 * (double)x->therapist_turns / (double)x->turns);
      else
        rescue_buf_printf(b, "%10s", "-");
      break;
    }
  }
  rescue_buf_putc(b, '\n');
}

void rescue_stats_table3_text(const rescue_table3 *t, rescue_buf *out) {
  const rescue_table3_col *c[3] = {&t->couple, &t->family, &t->all};
  static const char *labels[] = {"samples",
                                 "total duration (min)",
                                 "total turns (rows)",
                                 "avg duration / sample (min)",
                                 "avg turns / sample",
                                 "avg speakers / sample",
                                 "therapist turn share"};
  int k;
  rescue_buf_printf(out, "%-30s%10s%10s%10s\n", "", "couple", "family", "all");
  for (k = 0; k < 7; k++)
    text_line(out, labels[k], c, k);
  if (t->all.samples && t->all.media_durations < t->all.samples)
    rescue_buf_printf(out,
                      "\n%ld of %ld samples have no linked media: their duration is the "
                      "last row's end_time.\n",
                      t->all.samples - t->all.media_durations, t->all.samples);
  if (t->discarded)
    rescue_buf_printf(out, "%ld discarded sample%s left out.\n", t->discarded,
                      t->discarded == 1 ? "" : "s");
  if (t->incomplete)
    rescue_buf_printf(out, "%ld sample%s left out: not every row has a version in this view.\n",
                      t->incomplete, t->incomplete == 1 ? "" : "s");
}
