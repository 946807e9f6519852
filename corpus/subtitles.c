/*
** subtitles.c: SRT and WebVTT parsing (tolerant where real files vary, strict where
** timing would be wrong), speaker prefixes, and importing cues and draft rows.
*/
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_subtitles.h"
#include "store_int.h"

/* A line of the input: [s, s + n), 1-based number. */
typedef struct line {
  const char *s;
  size_t n;
  long no;
} line;

static int blank(const line *l) {
  size_t i;
  for (i = 0; i < l->n; i++)
    if (!strchr(" \t\f\v", l->s[i]))
      return 0;
  return 1;
}

/* Length of the valid UTF-8 sequence at s (max n bytes), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n) {
  size_t len, i;
  uint32_t cp;
  if (s[0] < 0x80)
    return 1;
  if (s[0] >= 0xC2 && s[0] <= 0xDF)
    len = 2, cp = s[0] & 0x1F;
  else if (s[0] >= 0xE0 && s[0] <= 0xEF)
    len = 3, cp = s[0] & 0x0F;
  else if (s[0] >= 0xF0 && s[0] <= 0xF4)
    len = 4, cp = s[0] & 0x07;
  else
    return 0;
  if (len > n)
    return 0;
  for (i = 1; i < len; i++) {
    if ((s[i] & 0xC0) != 0x80)
      return 0;
    cp = cp << 6 | (s[i] & 0x3F);
  }
  if ((len == 3 && (cp < 0x800 || (cp >= 0xD800 && cp <= 0xDFFF))) ||
      (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)))
    return 0;
  return len;
}

/* ---- timing lines ---- */

/* Parse a timestamp at *p: [h+:]mm:ss[(,|.)f{1,3}]; advances *p. Returns 0 or -1. */
static int parse_ts(const char **p, const char *end, double *out) {
  long long parts[3];
  int n = 0, digits;
  long long ms = 0;
  const char *q = *p;
  for (;;) {
    long long v = 0;
    digits = 0;
    while (q < end && isdigit((unsigned char)*q) && digits < 12) {
      v = v * 10 + (*q++ - '0');
      digits++;
    }
    if (!digits)
      return -1;
    parts[n++] = v;
    if (q < end && *q == ':' && n < 3) {
      q++;
      continue;
    }
    break;
  }
  if (n < 2)
    return -1;
  if (q < end && (*q == ',' || *q == '.')) {
    int k = 0;
    q++;
    while (q < end && isdigit((unsigned char)*q) && k < 3) {
      ms = ms * 10 + (*q++ - '0');
      k++;
    }
    if (!k || (q < end && isdigit((unsigned char)*q)))
      return -1;
    while (k++ < 3)
      ms *= 10;
  }
  if (parts[n - 1] >= 60 || (n == 3 && parts[1] >= 60))
    return -1;
  *out = (double)((n == 3 ? parts[0] * 3600 + parts[1] * 60 + parts[2] : parts[0] * 60 + parts[1]) *
                      1000 + ms) / 1000.0;
  *p = q;
  return 0;
}

/* Parse "start --> end[ settings]". Returns 0, or -1 when it is not a timing line. */
static int parse_timing(const line *l, double *start, double *end) {
  const char *p = l->s, *e = l->s + l->n;
  while (p < e && (*p == ' ' || *p == '\t'))
    p++;
  if (parse_ts(&p, e, start))
    return -1;
  while (p < e && (*p == ' ' || *p == '\t'))
    p++;
  if (e - p < 3 || memcmp(p, "-->", 3) != 0)
    return -1;
  p += 3;
  while (p < e && (*p == ' ' || *p == '\t'))
    p++;
  if (parse_ts(&p, e, end))
    return -1;
  if (p < e && *p != ' ' && *p != '\t')
    return -1; /* settings (WebVTT) or coordinates (SRT) need a space before them */
  return 0;
}

static int has_arrow(const line *l) {
  size_t i;
  for (i = 0; i + 3 <= l->n; i++)
    if (memcmp(l->s + i, "-->", 3) == 0)
      return 1;
  return 0;
}

/* ---- cue text ---- */

/* Append s[0..n) to out with markup removed; the first WebVTT voice goes to voice. */
static void strip_markup(const char *s, size_t n, rescue_buf *out, rescue_buf *voice) {
  size_t i = 0;
  static const struct {
    const char *ent, *rep;
  } ents[] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"}, {"&nbsp;", " "},
              {"&lrm;", ""},  {"&rlm;", ""},  {"&quot;", "\""}, {"&apos;", "'"}};
  while (i < n) {
    if (s[i] == '<') {
      const char *close = memchr(s + i, '>', n - i);
      if (close) {
        /* <v Name> or <v.loud Name>: the speaker */
        if (voice && !voice->len && close - (s + i) > 2 && s[i + 1] == 'v' &&
            (s[i + 2] == ' ' || s[i + 2] == '.')) {
          const char *nm = memchr(s + i + 2, ' ', (size_t)(close - (s + i + 2)));
          if (nm) {
            while (nm < close && *nm == ' ')
              nm++;
            rescue_buf_putn(voice, nm, (size_t)(close - nm));
          }
        }
        i = (size_t)(close - s) + 1;
        continue;
      }
    }
    if (s[i] == '{' && i + 1 < n && s[i + 1] == '\\') {
      const char *close = memchr(s + i, '}', n - i);
      if (close) {
        i = (size_t)(close - s) + 1;
        continue;
      }
    }
    if (s[i] == '&') {
      size_t k;
      for (k = 0; k < sizeof ents / sizeof ents[0]; k++) {
        size_t el = strlen(ents[k].ent);
        if (n - i >= el && memcmp(s + i, ents[k].ent, el) == 0) {
          rescue_buf_puts(out, ents[k].rep);
          i += el;
          break;
        }
      }
      if (k < sizeof ents / sizeof ents[0])
        continue;
    }
    rescue_buf_putc(out, s[i]);
    i++;
  }
}

/* Collapse runs of spaces and tabs into one space and trim both ends, in place. */
static void squeeze(rescue_buf *b) {
  size_t i, j = 0;
  int space = 1;
  for (i = 0; i < b->len; i++) {
    char c = b->s[i] == '\t' ? ' ' : b->s[i];
    if (c == ' ') {
      if (space)
        continue;
      space = 1;
    } else {
      space = 0;
    }
    b->s[j++] = c;
  }
  while (j > 0 && b->s[j - 1] == ' ')
    j--;
  b->len = j;
  if (b->s)
    b->s[j] = 0;
}

/* Is s[0..n) a plausible speaker name (letters first; letters, digits, . ' - _ and spaces)? */
static int name_like(const char *s, size_t n) {
  size_t i, words = 1, chars = 0;
  if (n == 0 || !(isalpha((unsigned char)s[0]) || (unsigned char)s[0] >= 0x80))
    return 0;
  for (i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == ' ') {
      if (i + 1 < n && s[i + 1] != ' ')
        words++;
      continue;
    }
    if (!(isalnum(c) || c >= 0x80 || c == '.' || c == '\'' || c == '-' || c == '_'))
      return 0;
    chars += (c & 0xC0) != 0x80;
  }
  return words <= 4 && chars <= 40;
}

/* Split a "Name: text" or "[Name] text" prefix off the joined cue text. */
static void split_speaker(rescue_buf *text, rescue_buf *speaker) {
  const char *s = text->s ? text->s : "";
  size_t n = text->len, cut = 0;
  if (!speaker->len) {
    if (n > 2 && s[0] == '[') {
      const char *close = memchr(s, ']', n);
      if (close && close - s > 1 && close - s <= 41) {
        rescue_buf_putn(speaker, s + 1, (size_t)(close - s - 1));
        cut = (size_t)(close - s) + 1;
        if (cut < n && s[cut] == ':')
          cut++;
      }
    } else {
      const char *colon = memchr(s, ':', n);
      if (colon && (colon + 1 == s + n || colon[1] == ' ') && name_like(s, (size_t)(colon - s))) {
        rescue_buf_putn(speaker, s, (size_t)(colon - s));
        cut = (size_t)(colon - s) + 1;
      }
    }
  }
  if (cut) {
    memmove(text->s, text->s + cut, n - cut + 1);
    text->len = n - cut;
  }
  squeeze(text);
  squeeze(speaker);
  if (speaker->len == 9 && strncasecmp(speaker->s, "therapist", 9) == 0)
    memcpy(speaker->s, "Therapist", 9);
}

/* ---- parsing ---- */

void rescue_cues_free(rescue_cues *c) {
  int i;
  for (i = 0; c->v && i < c->n; i++) {
    rescue_free(c->v[i].speaker);
    rescue_free(c->v[i].text);
  }
  rescue_free(c->v);
  memset(c, 0, sizeof *c);
}

/* Stable sort of cues by start (merge sort keeps file order for equal starts). */
static void sort_cues(rescue_cue *v, rescue_cue *tmp, int n) {
  int mid = n / 2, i = 0, j, k = 0;
  if (n < 2)
    return;
  sort_cues(v, tmp, mid);
  sort_cues(v + mid, tmp, n - mid);
  j = mid;
  while (i < mid && j < n)
    tmp[k++] = v[j].start < v[i].start ? v[j++] : v[i++];
  while (i < mid)
    tmp[k++] = v[i++];
  while (j < n)
    tmp[k++] = v[j++];
  memcpy(v, tmp, (size_t)n * sizeof *v);
}

int rescue_subtitles_parse(const char *file, const char *text, size_t len, int vtt,
                           rescue_cues *out, rescue_error *err) {
  line *lines = NULL;
  size_t i, nl = 0, cap = 0, pos = 0;
  int rc = 0, ordinal = 0, capc = 0;
  rescue_buf body = RESCUE_BUF_INIT, spk = RESCUE_BUF_INIT;
  long col;

  memset(out, 0, sizeof *out);
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    pos = 3;
  /* check the encoding and cut lines */
  {
    long lno = 1;
    size_t ls = pos;
    for (i = pos; i <= len; i++) {
      if (i < len && text[i] != '\n') {
        size_t k = utf8_len((const unsigned char *)text + i, len - i);
        if (!k || text[i] == 0) {
          size_t c;
          col = 1;
          for (c = ls; c < i; c++)
            col += ((unsigned char)text[c] & 0xC0) != 0x80;
          rescue_free(lines);
          return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%ld: %s", file, lno, col,
                               text[i] ? "invalid UTF-8 (save the file as UTF-8)"
                                       : "NUL byte in a text file");
        }
        i += k - 1;
        continue;
      }
      if (nl == cap) {
        size_t nc = cap ? cap * 2 : 256;
        line *nv = rescue_realloc(lines, nc * sizeof *nv);
        if (!nv) {
          rescue_free(lines);
          return rescue_seterr(err, RESCUE_ENOMEM, NULL);
        }
        lines = nv;
        cap = nc;
      }
      lines[nl].s = text + ls;
      lines[nl].n = i - ls;
      if (lines[nl].n && lines[nl].s[lines[nl].n - 1] == '\r')
        lines[nl].n--;
      lines[nl].no = lno++;
      nl++;
      ls = i + 1;
    }
  }
  i = 0;
  if (vtt) {
    if (nl == 0 || lines[0].n < 6 || memcmp(lines[0].s, "WEBVTT", 6) != 0 ||
        (lines[0].n > 6 && lines[0].s[6] != ' ' && lines[0].s[6] != '\t')) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s:1:1: not a WebVTT file (no WEBVTT header)",
                         file);
      goto end;
    }
    while (i < nl && !blank(&lines[i]))
      i++; /* the header block */
  }
  while (i < nl) {
    size_t first, t;
    rescue_cue *c;
    int number;
    while (i < nl && blank(&lines[i]))
      i++;
    if (i >= nl)
      break;
    first = i;
    while (i < nl && !blank(&lines[i]))
      i++;
    /* block = lines[first, i) */
    if (vtt && ((lines[first].n >= 4 && memcmp(lines[first].s, "NOTE", 4) == 0 &&
                 (lines[first].n == 4 || lines[first].s[4] == ' ' || lines[first].s[4] == '\t')) ||
                (lines[first].n == 5 && memcmp(lines[first].s, "STYLE", 5) == 0) ||
                (lines[first].n == 6 && memcmp(lines[first].s, "REGION", 6) == 0)))
      continue;
    ordinal++;
    number = ordinal;
    t = first;
    if (!has_arrow(&lines[first])) {
      /* an identifier (WebVTT) or the cue number (SRT) comes first */
      if (!vtt) {
        const char *p = lines[first].s;
        size_t k, n = lines[first].n;
        long v = 0;
        while (n && (p[n - 1] == ' ' || p[n - 1] == '\t'))
          n--;
        for (k = 0; k < n && isdigit((unsigned char)p[k]) && k < 9; k++)
          v = v * 10 + (p[k] - '0');
        if (k != n || n == 0) {
          rc = rescue_seterr(err, RESCUE_EBADINPUT,
                             "%s:%ld:1: cue %d: expected a cue number or a timing line, found "
                             "'%.*s'",
                             file, lines[first].no, number, (int)(lines[first].n > 60 ? 60 : lines[first].n),
                             lines[first].s);
          goto end;
        }
        number = (int)v;
      }
      t = first + 1;
      if (t >= i) {
        rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:1: cue %d: no timing line after '%.*s'",
                           file, lines[first].no, number,
                           (int)(lines[first].n > 60 ? 60 : lines[first].n), lines[first].s);
        goto end;
      }
    }
    if (out->n == capc) {
      int nc = capc ? capc * 2 : 64;
      rescue_cue *nv = rescue_realloc(out->v, (size_t)nc * sizeof *nv);
      if (!nv) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto end;
      }
      out->v = nv;
      capc = nc;
    }
    c = &out->v[out->n];
    memset(c, 0, sizeof *c);
    c->number = number;
    c->line = lines[t].no;
    if (parse_timing(&lines[t], &c->start, &c->end)) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: cue %d: bad timing line '%.*s' (expected "
                         "'00:00:01,000 --> 00:00:02,500')",
                         file, lines[t].no, number, (int)(lines[t].n > 80 ? 80 : lines[t].n),
                         lines[t].s);
      goto end;
    }
    if (c->end < c->start) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: cue %d: ends at %.3f s, before it starts (%.3f s)", file,
                         lines[t].no, number, c->end, c->start);
      goto end;
    }
    rescue_buf_reset(&body);
    rescue_buf_reset(&spk);
    for (t = t + 1; t < i; t++) {
      if (body.len)
        rescue_buf_putc(&body, ' ');
      strip_markup(lines[t].s, lines[t].n, &body, vtt ? &spk : NULL);
    }
    squeeze(&body);
    split_speaker(&body, &spk);
    c->text = rescue_strdup(body.s ? body.s : "");
    c->speaker = rescue_strdup(spk.s ? spk.s : "");
    out->n++;
    if (!c->text || !c->speaker || !rescue_buf_ok(&body) || !rescue_buf_ok(&spk)) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    if (out->n > 1 && c->start < out->v[out->n - 2].start && !out->reordered) {
      out->reordered = 1;
      out->first_late = c->number;
      out->first_late_line = c->line;
    }
  }
  if (out->n == 0) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s: no cues in this file", file);
    goto end;
  }
  if (out->reordered) {
    rescue_cue *tmp = rescue_malloc((size_t)out->n * sizeof *tmp);
    if (!tmp) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    sort_cues(out->v, tmp, out->n);
    rescue_free(tmp);
  }
end:
  if (rc)
    rescue_cues_free(out);
  rescue_free(lines);
  rescue_buf_free(&body);
  rescue_buf_free(&spk);
  return rc;
}

/* ---- storing ---- */


int rescue_subtitles_check(const char *path, int vtt, rescue_error *err) {
  rescue_cues cues;
  char *text = NULL;
  size_t len = 0;
  int rc = rescue_read_file(path, &text, &len, err);
  if (!rc)
    rc = rescue_subtitles_parse(path, text, len, vtt, &cues, err);
  if (!rc)
    rescue_cues_free(&cues);
  rescue_free(text);
  return rc;
}

/* The canonical JSON of a draft row: all 15 fields, empty but for times, speaker, text. */
static void draft_row(const rescue_cue *c, int index, rescue_buf *out) {
  static const char *const empty_lists[] = {"background_dialogue", "body_posture",
                                            "facial_expressions",  "self_directed_behavior",
                                            "interaction_behavior", "internal_emotion",
                                            "viewpoints_attitudes", "support_strategy"};
  rescue_jw w;
  size_t k;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "start_time");
  rescue_jw_double(&w, c->start);
  rescue_jw_key(&w, "end_time");
  rescue_jw_double(&w, c->end);
  rescue_jw_key(&w, "primary_speaker");
  rescue_jw_str(&w, c->speaker);
  rescue_jw_key(&w, "target");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "dialogue_cleaned");
  rescue_jw_str(&w, c->text);
  rescue_jw_key(&w, "utterance_type");
  rescue_jw_str(&w, "");
  rescue_jw_key(&w, "background_dialogue");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "tone_of_voice");
  rescue_jw_str(&w, "");
  for (k = 1; k < sizeof empty_lists / sizeof empty_lists[0]; k++) {
    rescue_jw_key(&w, empty_lists[k]);
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_key(&w, "row_index");
  rescue_jw_int(&w, index);
  rescue_jw_end(&w);
}

/* Head and tail of the sample object to store with draft rows (keeps its own keys). */
static int sample_frame(rescue_store *st, const char *sample_id, rescue_buf *head,
                        rescue_buf *tail, int *given, int64_t *ref, int *n_rows) {
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {RESCUE_VIEW_LATEST, 0};
  const char *only[1];
  int rc;
  *ref = 0;
  *n_rows = 0;
  if ((rc = rescue_sample_ref(st, sample_id, ref)) == RESCUE_ENOTFOUND) {
    *ref = 0;
    rescue_buf_puts(head, "{\"sample_id\": ");
    rescue_jwrite_string(head, sample_id, strlen(sample_id));
    rescue_buf_puts(head, ", \"rows\": ");
    rescue_buf_puts(tail, "}");
    *given = RESCUE_GIVEN_SAMPLE_ID;
    return 0;
  }
  if (rc)
    return rc;
  only[0] = sample_id;
  if ((rc = rescue_sample_iter_new(st, &view, only, 1, &it)))
    return rc;
  rc = rescue_sample_iter_next(it, &s);
  if (rc == 1) {
    rc = 0;
    *n_rows = s->n_rows;
    *given = s->given_keys;
    if (s->has_rows) {
      rescue_buf_puts(head, s->head);
      rescue_buf_puts(tail, s->tail);
    } else {
      /* "{...}" without rows: append a rows member */
      size_t hl = strlen(s->head);
      rescue_buf_putn(head, s->head, hl - 1);
      rescue_buf_puts(head, hl > 2 ? ", \"rows\": " : "\"rows\": ");
      rescue_buf_puts(tail, "}");
    }
  } else if (rc == 0) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL, "sample vanished");
  }
  rescue_sample_iter_free(&it);
  return rc;
}

int rescue_subtitles_import(rescue_store *st, const char *path, int vtt, const char *sample_id,
                            int64_t annotator_id, rescue_import_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_cues cues;
  rescue_buf head = RESCUE_BUF_INIT, tail = RESCUE_BUF_INIT, json = RESCUE_BUF_INIT;
  rescue_row_input *rows = NULL;
  rescue_jdoc *doc = NULL;
  char *text = NULL;
  size_t len = 0;
  int64_t ref = 0, import_id = 0;
  int rc, i, n_rows = 0, given = 0;
  sqlite3_stmt *s;

  memset(&cues, 0, sizeof cues);
  if ((rc = rescue_read_file(path, &text, &len, err)) ||
      (rc = rescue_subtitles_parse(path, text, len, vtt, &cues, err)))
    goto end;
  if ((rc = sample_frame(st, sample_id, &head, &tail, &given, &ref, &n_rows)))
    goto end;
  if (!rescue_buf_ok(&head) || !rescue_buf_ok(&tail)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if (ref == 0 || n_rows == 0) {
    rescue_sample_input in;
    doc = rescue_jdoc_new();
    rows = rescue_calloc((size_t)cues.n, sizeof *rows);
    if (!doc || !rows) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    for (i = 0; i < cues.n; i++) {
      rescue_jerror je;
      const rescue_jnode *root, *bad = NULL;
      rescue_error re = {0, ""};
      rescue_buf_reset(&json);
      draft_row(&cues.v[i], i + 1, &json);
      if (!rescue_buf_ok(&json) || !(root = rescue_jparse(doc, json.s, json.len, &je))) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto end;
      }
      if ((rc = rescue_row_input_from_json(rescue_store_scheme(st), root, &rows[i], &bad, &re))) {
        rescue_seterr(err, rc, "%s: cue %d: %s", path, cues.v[i].number, re.msg);
        goto end;
      }
    }
    memset(&in, 0, sizeof in);
    in.sample_id = sample_id;
    in.head = head.s;
    in.tail = tail.s;
    in.has_rows = 1;
    in.given_keys = given;
    in.n_rows = cues.n;
    in.rows = rows;
    if ((rc = rescue_store_put_sample(st, &in, annotator_id, "import",
                                      ref ? RESCUE_PUT_RESEGMENT : 0, &res->put)))
      goto end;
    if (!ref && (rc = rescue_sample_ref(st, sample_id, &ref)))
      goto end;
    res->rows += cues.n;
  }
  res->samples++;
  if (!(s = rescue_store_stmt(st, "cue_next_import"))) {
    rc = err->code;
    goto end;
  }
  if (sqlite3_step(s) != SQLITE_ROW) {
    rc = rescue_store_sqlerr(st, "numbering a subtitle import");
    goto end;
  }
  import_id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  for (i = 0; i < cues.n; i++) {
    const rescue_cue *c = &cues.v[i];
    if (!(s = rescue_store_stmt(st, "cue_insert"))) {
      rc = err->code;
      goto end;
    }
    rescue_bind_int(s, ":sample_ref", ref);
    rescue_bind_int(s, ":import_id", import_id);
    rescue_bind_int(s, ":seq", i + 1);
    rescue_bind_double(s, ":start", c->start);
    rescue_bind_double(s, ":end", c->end);
    rescue_bind_text(s, ":speaker", c->speaker, -1);
    rescue_bind_text(s, ":text", c->text, -1);
    rescue_bind_text(s, ":file", path, -1);
    rescue_bind_int(s, ":line", c->line);
    if (sqlite3_step(s) != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "storing a cue");
      goto end;
    }
  }
  res->cues += cues.n;
  if (cues.reordered)
    snprintf(res->warning, sizeof res->warning,
             "%s:%ld:1: cue %d starts before the cue above it: cues sorted by start time", path,
             cues.first_late_line, cues.first_late);
end:
  for (i = 0; rows && i < cues.n; i++)
    rescue_row_input_free(&rows[i]);
  rescue_free(rows);
  rescue_cues_free(&cues);
  rescue_jdoc_free(&doc);
  rescue_free(text);
  rescue_buf_free(&head);
  rescue_buf_free(&tail);
  rescue_buf_free(&json);
  return rc;
}

int rescue_sample_cues(rescue_store *st, const char *sample_id, rescue_cues *out) {
  sqlite3_stmt *s;
  int64_t ref;
  int rc, cap = 0;
  memset(out, 0, sizeof *out);
  if ((rc = rescue_sample_ref(st, sample_id, &ref)))
    return rc == RESCUE_ENOTFOUND
               ? rescue_seterr(rescue_store_err(st), rc, "unknown sample '%s'", sample_id)
               : rc;
  if (!(s = rescue_store_stmt(st, "cues_latest")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    rescue_cue *c;
    if (out->n == cap) {
      int nc = cap ? cap * 2 : 64;
      rescue_cue *nv = rescue_realloc(out->v, (size_t)nc * sizeof *nv);
      if (!nv) {
        sqlite3_reset(s);
        rescue_cues_free(out);
        return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      }
      out->v = nv;
      cap = nc;
    }
    c = &out->v[out->n++];
    c->number = sqlite3_column_int(s, 0);
    c->start = sqlite3_column_double(s, 1);
    c->end = sqlite3_column_double(s, 2);
    c->speaker = rescue_strdup((const char *)sqlite3_column_text(s, 3));
    c->text = rescue_strdup((const char *)sqlite3_column_text(s, 4));
    c->line = sqlite3_column_int64(s, 6);
    if (!c->speaker || !c->text) {
      sqlite3_reset(s);
      rescue_cues_free(out);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_cues_free(out);
    return rescue_store_sqlerr(st, "reading cues");
  }
  return 0;
}
