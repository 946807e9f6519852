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
#include "prim_int.h"
#include "rescue_subtitles.h"
#include "store_int.h"
#include "strmap_int.h"

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
                      1000 +
                  ms) /
         1000.0;
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

/*
** Append s[0..n) to out with markup removed; the first WebVTT voice goes to voice.
** Linear in n: once a search for a closing '>' or '}' fails, none is searched for again
** (a cue of a million unclosed '<' would otherwise rescan its tail for each one).
*/
static void strip_markup(const char *s, size_t n, rescue_buf *out, rescue_buf *voice) {
  size_t i = 0;
  int no_gt = 0, no_brace = 0;
  static const struct {
    const char *ent, *rep;
  } ents[] = {{"&amp;", "&"}, {"&lt;", "<"}, {"&gt;", ">"},    {"&nbsp;", " "},
              {"&lrm;", ""},  {"&rlm;", ""}, {"&quot;", "\""}, {"&apos;", "'"}};
  while (i < n) {
    if (s[i] == '<' && !no_gt) {
      const char *close = memchr(s + i, '>', n - i);
      if (close) {
        /* <v Name> or <v.loud Name>: the speaker; a later voice in the same cue is
           another speaker's turn, written as " - Name: " for the drafts to split */
        if (voice && close - (s + i) > 2 && s[i + 1] == 'v' &&
            (s[i + 2] == ' ' || s[i + 2] == '.')) {
          const char *nm = memchr(s + i + 2, ' ', (size_t)(close - (s + i + 2)));
          if (nm) {
            while (nm < close && *nm == ' ')
              nm++;
            if (!voice->len) {
              rescue_buf_putn(voice, nm, (size_t)(close - nm));
            } else if (close > nm) {
              rescue_buf_puts(out, " - ");
              rescue_buf_putn(out, nm, (size_t)(close - nm));
              rescue_buf_puts(out, ": ");
            }
          }
        }
        i = (size_t)(close - s) + 1;
        continue;
      }
      no_gt = 1;
    }
    if (s[i] == '{' && i + 1 < n && s[i + 1] == '\\' && !no_brace) {
      const char *close = memchr(s + i, '}', n - i);
      if (close) {
        i = (size_t)(close - s) + 1;
        continue;
      }
      no_brace = 1;
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

/*
** Split a "Name: text", "- Name: text" or "[Name] text" prefix off the joined cue text
** ("[name]" starting with a lower-case letter is a sound description, not a speaker,
** unless it is "[therapist]").
** *bracket is set when the speaker came from brackets.
*/
static void split_speaker(rescue_buf *text, rescue_buf *speaker, int *bracket) {
  const char *s = text->s ? text->s : "";
  size_t n = text->len, cut = 0, skip = 0;
  *bracket = 0;
  if (!speaker->len) {
    if (n > 2 && s[0] == '[' &&
        (!islower((unsigned char)s[1]) || (n > 10 && strncasecmp(s + 1, "therapist]", 10) == 0))) {
      const char *close = memchr(s, ']', n < 42 ? n : 42);
      if (close && close - s > 1 && name_like(s + 1, (size_t)(close - s - 1))) {
        rescue_buf_putn(speaker, s + 1, (size_t)(close - s - 1));
        cut = (size_t)(close - s) + 1;
        if (cut < n && s[cut] == ':')
          cut++;
        *bracket = 1;
      }
    } else {
      const char *colon;
      if (n > 2 && s[0] == '-' && s[1] == ' ')
        skip = 2; /* a dialogue dash before the name */
      colon = memchr(s + skip, ':', n - skip);
      if (colon && (colon + 1 == s + n || colon[1] == ' ') &&
          name_like(s + skip, (size_t)(colon - s - skip))) {
        rescue_buf_putn(speaker, s + skip, (size_t)(colon - s - skip));
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

void rescue_cues_clear(rescue_cues *c) {
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

/*
** Check that text[pos, len) is UTF-8 without NUL bytes and cut it into lines (without their
** "\n" or "\r\n"), numbered from 1. *lines (the caller frees it) and *nl set on success.
** 0, or RESCUE_EBADINPUT with file:line:column on err, or RESCUE_ENOMEM.
*/
static int cut_lines(const char *file, const char *text, size_t len, size_t pos, line **out,
                     size_t *out_n, rescue_error *err) {
  line *lines = NULL;
  size_t i, nl = 0, cap = 0, ls = pos;
  long lno = 1, col;

  for (i = pos; i <= len; i++) {
    if (i < len && text[i] != '\n') {
      size_t k = (size_t)rescue_utf8_step((const unsigned char *)text + i,
                                          (const unsigned char *)text + len, NULL);
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
    if (RESCUE_ALLOC_GROW(lines, nl + 1, cap)) {
      rescue_free(lines);
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    lines[nl].s = text + ls;
    lines[nl].n = i - ls;
    if (lines[nl].n && lines[nl].s[lines[nl].n - 1] == '\r')
      lines[nl].n--;
    lines[nl].no = lno++;
    nl++;
    ls = i + 1;
  }
  *out = lines;
  *out_n = nl;
  return 0;
}

/* Whether the block starting at l is a WebVTT NOTE, STYLE or REGION block, not a cue. */
static int vtt_meta_block(const line *l) {
  return (l->n >= 4 && memcmp(l->s, "NOTE", 4) == 0 &&
          (l->n == 4 || l->s[4] == ' ' || l->s[4] == '\t')) ||
         (l->n == 5 && memcmp(l->s, "STYLE", 5) == 0) ||
         (l->n == 6 && memcmp(l->s, "REGION", 6) == 0);
}

/*
** Read what comes before the timing line of the cue block lines[first, end): an identifier
** (WebVTT) or the cue number (SRT), when the first line is not the timing line. *number
** (the block's ordinal on entry) set to the SRT cue number, *t to the timing line. 0, or
** RESCUE_EBADINPUT with file:line:column on err.
*/
static int cue_head(const char *file, const line *lines, size_t first, size_t end, int vtt,
                    int *number, size_t *t, rescue_error *err) {
  *t = first;
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
        return rescue_seterr(err, RESCUE_EBADINPUT,
                             "%s:%ld:1: cue %d: expected a cue number or a timing line, found "
                             "'%.*s'",
                             file, lines[first].no, *number,
                             (int)(lines[first].n > 60 ? 60 : lines[first].n), lines[first].s);
      }
      *number = (int)v;
    }
    *t = first + 1;
    if (*t >= end) {
      return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:1: cue %d: no timing line after '%.*s'",
                           file, lines[first].no, *number,
                           (int)(lines[first].n > 60 ? 60 : lines[first].n), lines[first].s);
    }
  }
  return 0;
}

/*
** Fill cue c from its timing line lines[t] and its text lines[t+1, end), using body and spk
** as scratch. 0, or RESCUE_EBADINPUT with file:line:column on err (c then owns nothing).
** Out of memory is for the caller to see: c->text or c->speaker NULL, or a scratch buffer
** not rescue_buf_ok().
*/
static int read_cue(const char *file, const line *lines, size_t t, size_t end, int vtt,
                    rescue_cue *c, rescue_buf *body, rescue_buf *spk, rescue_error *err) {
  if (parse_timing(&lines[t], &c->start, &c->end)) {
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: cue %d: bad timing line '%.*s' (expected "
                         "'00:00:01,000 --> 00:00:02,500')",
                         file, lines[t].no, c->number, (int)(lines[t].n > 80 ? 80 : lines[t].n),
                         lines[t].s);
  }
  if (c->end < c->start) {
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: cue %d: ends at %.3f s, before it starts (%.3f s)", file,
                         lines[t].no, c->number, c->end, c->start);
  }
  rescue_buf_reset(body);
  rescue_buf_reset(spk);
  for (t = t + 1; t < end; t++) {
    if (body->len)
      rescue_buf_putc(body, ' ');
    strip_markup(lines[t].s, lines[t].n, body, vtt ? spk : NULL);
  }
  squeeze(body);
  split_speaker(body, spk, &c->bracket);
  c->text = rescue_strdup(body->s ? body->s : "");
  c->speaker = rescue_strdup(spk->s ? spk->s : "");
  return 0;
}

int rescue_subtitles_parse(const char *file, const char *text, size_t len, int vtt,
                           rescue_cues *out, rescue_error *err) {
  line *lines = NULL;
  size_t i, nl = 0, pos = 0;
  int rc = 0, ordinal = 0, capc = 0;
  rescue_buf body = RESCUE_BUF_INIT, spk = RESCUE_BUF_INIT;

  memset(out, 0, sizeof *out);
  if (len >= 3 && memcmp(text, "\xEF\xBB\xBF", 3) == 0)
    pos = 3;
  if ((rc = cut_lines(file, text, len, pos, &lines, &nl, err)))
    return rc;
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
    if (vtt && vtt_meta_block(&lines[first]))
      continue;
    ordinal++;
    number = ordinal;
    if ((rc = cue_head(file, lines, first, i, vtt, &number, &t, err)))
      goto end;
    if (RESCUE_ALLOC_GROW(out->v, out->n + 1, capc)) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    c = &out->v[out->n];
    memset(c, 0, sizeof *c);
    c->number = number;
    c->line = lines[t].no;
    if ((rc = read_cue(file, lines, t, i, vtt, c, &body, &spk, err)))
      goto end;
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
    rescue_cues_clear(out);
  rescue_free(lines);
  rescue_buf_clear(&body);
  rescue_buf_clear(&spk);
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
    rescue_cues_clear(&cues);
  rescue_free(text);
  return rc;
}

/* ---- draft rows ---- */

/*
** How draft rows are made from cues (every decision is sent as an import note):
**  - speakers are matched without case and spacing against the sample's participants,
**    the practitioner and the speakers seen before in the file: the first spelling wins
**    ("ANNA" after "Anna" is Anna);
**  - "- Name:" turns inside a cue make one row each, the cue's time shared out in
**    proportion to the length of each turn's text;
**  - a cue or turn without a speaker continues the speaker of the row before it;
**  - sound descriptions, a bracketed or parenthesised span of up to 60 bytes ("(crying)",
**    "[laughs]"), are taken out of dialogue_cleaned so it holds speech only; they stay
**    in the stored cue and are listed in the notes; a cue of sounds only makes no row;
**  - a "[Name]" prefix that is all capitals and names nobody known ("[LAUGHS] No.") is a
**    sound description too.
*/

typedef struct draft {
  double start, end;
  char *speaker; /* points into the speaker table */
  char *text;
} draft;

/*
** Speaker spellings by folded key (lower-case ASCII, no spaces): the first one wins. The
** table (a string table with copied keys) holds each spelling as its value, a string it
** owns: drafts point at it until spk_free.
*/
static char *fold_name(const char *s) {
  char *f = rescue_malloc(strlen(s) + 1), *o = f;
  if (!f)
    return NULL;
  for (; *s; s++)
    if (*s != ' ' && *s != '\t')
      *o++ = (char)((unsigned char)*s < 0x80 ? tolower((unsigned char)*s) : *s);
  *o = 0;
  return f;
}

/* The spelling kept for name (added when new). NULL when out of memory. */
static const char *spk_canon(rescue_strmap *t, const char *name) {
  char *f = fold_name(name), *kept = NULL;
  int64_t i;
  if (!f)
    return NULL;
  i = rescue_strmap_find(t, f, strlen(f));
  if (i < 0 && (kept = rescue_strdup(name)) &&
      (i = rescue_strmap_put(t, f, strlen(f), (intptr_t)kept, NULL)) < 0)
    rescue_free(kept);
  rescue_free(f);
  return i < 0 ? NULL : (const char *)rescue_strmap_value(t, (uint32_t)i);
}

/* The known spelling of name, or NULL when nobody folds to it. */
static const char *spk_find(const rescue_strmap *t, const char *name) {
  char *f;
  int64_t i;
  if (!rescue_strmap_count(t) || !(f = fold_name(name)))
    return NULL;
  i = rescue_strmap_find(t, f, strlen(f));
  rescue_free(f);
  return i < 0 ? NULL : (const char *)rescue_strmap_value(t, (uint32_t)i);
}

static void spk_free(rescue_strmap *t) {
  uint32_t i;
  for (i = 0; i < rescue_strmap_count(t); i++)
    rescue_free((char *)rescue_strmap_value(t, i));
  rescue_strmap_clear(t);
}

/* Has s an upper-case and no lower-case ASCII letter? */
static int all_caps(const char *s) {
  int up = 0;
  for (; *s; s++) {
    if (islower((unsigned char)*s))
      return 0;
    up |= isupper((unsigned char)*s) != 0;
  }
  return up;
}

/*
** Take sound descriptions out of t[0..n): the speech goes to speech (squeezed), the
** descriptions to sounds ("(crying) [laughs]"). Linear: a failed search for a closing
** bracket is not repeated.
*/
static void take_sounds(const char *t, size_t n, rescue_buf *speech, rescue_buf *sounds) {
  size_t i = 0;
  int no_paren = 0, no_square = 0;
  while (i < n) {
    char open = t[i];
    if ((open == '(' && !no_paren) || (open == '[' && !no_square)) {
      char closec = open == '(' ? ')' : ']';
      size_t lim = n - i < 62 ? n - i : 62;
      const char *close = memchr(t + i, closec, lim);
      if (close) {
        if (sounds->len)
          rescue_buf_putc(sounds, ' ');
        rescue_buf_putn(sounds, t + i, (size_t)(close - (t + i)) + 1);
        rescue_buf_putc(speech, ' ');
        i = (size_t)(close - t) + 1;
        continue;
      }
      if (!memchr(t + i, closec, n - i)) {
        if (open == '(')
          no_paren = 1;
        else
          no_square = 1;
      }
    }
    rescue_buf_putc(speech, t[i]);
    i++;
  }
  squeeze(speech);
  /* a dialogue dash left alone by a removed sound ("- (sighs) - Ben: ...") */
  if (speech->len == 1 && speech->s[0] == '-') {
    speech->len = 0;
    speech->s[0] = 0;
  }
}

/* Start of the next "- Name:" turn in t[from, n) (position of its '-'), or n. */
static size_t next_turn(const char *t, size_t n, size_t from, size_t *name, size_t *name_len,
                        size_t *text_at) {
  size_t p;
  for (p = from; p + 2 < n; p++) {
    const char *colon;
    size_t lim;
    if (t[p] != '-' || (p > 0 && t[p - 1] != ' ') || t[p + 1] != ' ')
      continue;
    lim = n - (p + 2) < 48 ? n - (p + 2) : 48;
    colon = memchr(t + p + 2, ':', lim);
    if (!colon || (colon + 1 != t + n && colon[1] != ' ') ||
        !name_like(t + p + 2, (size_t)(colon - (t + p + 2))))
      continue;
    *name = p + 2;
    *name_len = (size_t)(colon - (t + p + 2));
    *text_at = (size_t)(colon - t) + 1;
    return p;
  }
  return n;
}

/* Number of characters (UTF-8 lead bytes) of s. */
static size_t chars(const char *s) {
  size_t k = 0;
  for (; *s; s++)
    k += ((unsigned char)*s & 0xC0) != 0x80;
  return k;
}

typedef struct drafter {
  const char *file, *sample_id;
  const rescue_import_opts *o;
  rescue_strmap spk;
  draft *v;
  int n, cap;
  const char *prev; /* speaker of the last row */
} drafter;

static void note(drafter *D, const char *kind, const rescue_cue *c, int first, int last,
                 const char *speaker, const char *was, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static void note(drafter *D, const char *kind, const rescue_cue *c, int first, int last,
                 const char *speaker, const char *was, const char *fmt, ...) {
  rescue_import_note nt;
  char msg[400];
  va_list ap;
  if (!D->o || !D->o->note)
    return;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  memset(&nt, 0, sizeof nt);
  nt.kind = kind;
  nt.file = D->file;
  nt.line = c->line;
  nt.col = 1;
  nt.sample_id = D->sample_id;
  nt.cue = c->number;
  nt.row_first = first;
  nt.row_last = last;
  nt.message = msg;
  nt.speaker = speaker;
  nt.was = was;
  D->o->note(D->o->note_arg, &nt);
}

static int add_draft(drafter *D, double start, double end, const char *speaker, const char *text) {
  draft *d;
  if (RESCUE_ALLOC_GROW(D->v, D->n + 1, D->cap))
    return RESCUE_ENOMEM;
  d = &D->v[D->n];
  d->start = start;
  d->end = end;
  d->speaker = (char *)speaker;
  if (!(d->text = rescue_strdup(text)))
    return RESCUE_ENOMEM;
  D->n++;
  return 0;
}

static void drafter_free(drafter *D) {
  int i;
  for (i = 0; i < D->n; i++)
    rescue_free(D->v[i].text);
  rescue_free(D->v);
  spk_free(&D->spk);
}

/* One turn of a cue: where its name and text are in the cue text. */
typedef struct turn {
  char *name; /* "" when none */
  char *speech;
  char *sounds;
} turn;

/*
** Seed the speaker table D->spk with the therapist and the n_known known names, then mark
** as sounds (bracket 2) the cues whose all-caps "[NAME]" prefix is neither a known speaker
** nor spelled as a "Name:" prefix anywhere in the file. 0 or RESCUE_ENOMEM.
*/
static int mark_sound_cues(drafter *D, const rescue_cues *cues, const char *const *known,
                           int n_known, const char *therapist) {
  rescue_strmap named = RESCUE_STRMAP_COPY;
  int i, k;

  if (!spk_canon(&D->spk, therapist))
    return RESCUE_ENOMEM;
  for (k = 0; k < n_known; k++)
    if (!spk_canon(&D->spk, known[k]))
      return RESCUE_ENOMEM;
  /* the spellings of "Name:" prefixes, in file order, so "[ANNA]" can be told from "[LAUGHS]" */
  for (i = 0; i < cues->n; i++)
    if (cues->v[i].speaker[0] && !cues->v[i].bracket && !spk_canon(&named, cues->v[i].speaker)) {
      spk_free(&named);
      return RESCUE_ENOMEM;
    }
  for (i = 0; i < cues->n; i++) {
    rescue_cue *c = &cues->v[i];
    if (c->bracket && all_caps(c->speaker) && !spk_find(&D->spk, c->speaker) &&
        !spk_find(&named, c->speaker))
      c->bracket = 2; /* a sound description, not a speaker */
  }
  spk_free(&named);
  return 0;
}

/* Free the names and texts of the nt turns in tv (not tv itself). */
static void turns_clear(turn *tv, int nt) {
  int k;
  for (k = 0; k < nt; k++) {
    rescue_free(tv[k].name);
    rescue_free(tv[k].speech);
    rescue_free(tv[k].sounds);
  }
}

/*
** Cut a cue's text t (n bytes) into turns in *tv (grown, capacity *cap_t; *nt set to their
** count): turn 0 is named first_name (the cue's prefix), the others by "- Name:". Each
** turn's speech and sounds are taken apart (speech and sounds are scratch). 0 or
** RESCUE_ENOMEM; either way the caller frees the *nt turns with turns_clear().
*/
static int cut_turns(const char *t, size_t n, const char *first_name, turn **tv, int *cap_t,
                     int *nt, rescue_buf *speech, rescue_buf *sounds) {
  size_t at = 0, name = 0, name_len = 0, text_at = 0, next;
  const char *nm = first_name;
  size_t nm_len = strlen(first_name);
  for (;;) {
    turn *u;
    next = next_turn(t, n, at, &name, &name_len, &text_at);
    if (RESCUE_ALLOC_GROW(*tv, *nt + 1, *cap_t)) {
      return RESCUE_ENOMEM;
    }
    rescue_buf_reset(speech);
    rescue_buf_reset(sounds);
    take_sounds(t + at, next - at, speech, sounds);
    u = &(*tv)[(*nt)++];
    u->speech = rescue_strdup(speech->s ? speech->s : "");
    u->sounds = rescue_strdup(sounds->s ? sounds->s : "");
    u->name = rescue_malloc(nm_len + 1);
    if (!u->speech || !u->sounds || !u->name || !rescue_buf_ok(speech) || !rescue_buf_ok(sounds)) {
      return RESCUE_ENOMEM;
    }
    memcpy(u->name, nm, nm_len);
    u->name[nm_len] = 0;
    if (next == n)
      return 0;
    nm = t + name;
    nm_len = name_len;
    at = text_at;
  }
}

/*
** Tell the caller about cue c before its rows are added: how many rows its nt turns tv give
** (numbered from first_row), that it holds only sounds (sounds is scratch), or that it is
** split between speakers.
*/
static void note_cue(drafter *D, const rescue_cue *c, const turn *tv, int nt, int first_row,
                     int with_speech, rescue_buf *sounds) {
  int k;

  /* send the cue note first: its rows are the rows the turns with speech will get */
  note(D, "cue", c, with_speech ? first_row : 0, with_speech ? first_row + with_speech - 1 : 0,
       NULL, NULL, "cue %d: %d draft row%s", c->number, with_speech, with_speech == 1 ? "" : "s");
  if (!with_speech) {
    rescue_buf_reset(sounds);
    for (k = 0; k < nt; k++)
      if (tv[k].sounds[0])
        rescue_buf_printf(sounds, "%s%s", sounds->len ? " " : "", tv[k].sounds);
    note(D, "sound_only", c, 0, 0, NULL, sounds->s ? sounds->s : "",
         "cue %d holds no speech (%s): no draft row", c->number,
         sounds->s && sounds->len ? sounds->s : "empty");
  }
  if (with_speech > 1)
    note(D, "split", c, first_row, first_row + with_speech - 1, NULL, NULL,
         "cue %d has %d speakers' turns: rows %d-%d, times split in proportion to their text "
         "(check them)",
         c->number, with_speech, first_row, first_row + with_speech - 1);
}

/*
** Add a draft row for every one of the nt turns of cue c with speech (with_speech of them,
** total characters of speech in all): the speaker is the turn's name (in its canonical
** spelling), else the last row's; the cue's time is split between the rows in proportion to
** their text. 0 or a negative error code.
*/
static int add_turn_rows(drafter *D, const rescue_cue *c, const turn *tv, int nt, int with_speech,
                         int total) {
  double t0;
  int k, rc = 0;

  t0 = c->start;
  for (k = 0; k < nt && !rc; k++) {
    const turn *u = &tv[k];
    const char *spk;
    double t1;
    int row = D->n + 1;
    if (!u->speech[0]) {
      if (u->sounds[0] && with_speech)
        note(D, "sound", c, 0, 0, u->name, u->sounds,
             "cue %d: a turn of sounds only (%s) made no row", c->number, u->sounds);
      continue;
    }
    if (u->name[0]) {
      if (!(spk = spk_canon(&D->spk, u->name))) {
        rc = RESCUE_ENOMEM;
        break;
      }
      if (strcmp(spk, u->name) != 0)
        note(D, "speaker_case", c, row, row, spk, u->name,
             "cue %d: speaker '%s' taken as '%s' (same name but for case or spacing)", c->number,
             u->name, spk);
    } else if (D->prev) {
      spk = D->prev;
      note(D, "continued", c, row, row, spk, NULL,
           "cue %d has no speaker: row %d continues '%s' (check it)", c->number, row, spk);
    } else {
      spk = "";
      note(D, "no_speaker", c, row, row, NULL, NULL,
           "cue %d has no speaker and no row before it: row %d has an empty primary_speaker",
           c->number, row);
    }
    if (u->sounds[0])
      note(D, "sound", c, row, row, spk, u->sounds,
           "cue %d: %s taken out of dialogue_cleaned of row %d", c->number, u->sounds, row);
    with_speech--;
    t1 = with_speech == 0 ? c->end
                          : t0 + (c->end - c->start) * (double)chars(u->speech) / (double)total;
    t1 = with_speech == 0 ? t1 : round(t1 * 1000.0) / 1000.0;
    if ((rc = add_draft(D, t0, t1, spk, u->speech)))
      break;
    if (spk[0])
      D->prev = spk;
    t0 = t1;
  }
  return rc;
}

/*
** Make the draft rows of all cues into D->v (speakers resolved, times split), sending a
** note for every cue and every decision. known: the sample's given participants.
*/
static int make_drafts(drafter *D, const rescue_cues *cues, const char *const *known, int n_known,
                       const char *therapist) {
  rescue_buf speech = RESCUE_BUF_INIT, sounds = RESCUE_BUF_INIT, work = RESCUE_BUF_INIT;
  turn *tv = NULL;
  int i, k, rc = 0, cap_t = 0;

  if ((rc = mark_sound_cues(D, cues, known, n_known, therapist)))
    return rc;
  for (i = 0; i < cues->n && !rc; i++) {
    const rescue_cue *c = &cues->v[i];
    int nt = 0, first_row = D->n + 1, total = 0, with_speech = 0;

    rescue_buf_reset(&work);
    if (c->bracket == 2)
      rescue_buf_printf(&work, "[%s] ", c->speaker);
    rescue_buf_puts(&work, c->text);
    if (!rescue_buf_ok(&work)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    rc = cut_turns(work.s ? work.s : "", work.len, c->bracket == 2 ? "" : c->speaker, &tv, &cap_t,
                   &nt, &speech, &sounds);
    if (rc) {
      turns_clear(tv, nt);
      break;
    }
    /* the name of turn k > 0 was stored ahead in tv[k].name; turn 0's from the prefix */
    for (k = 0; k < nt; k++) {
      total += (int)chars(tv[k].speech);
      with_speech += tv[k].speech[0] != 0;
    }
    note_cue(D, c, tv, nt, first_row, with_speech, &sounds);
    rc = add_turn_rows(D, c, tv, nt, with_speech, total);
    turns_clear(tv, nt);
  }
  rescue_free(tv);
  rescue_buf_clear(&speech);
  rescue_buf_clear(&sounds);
  rescue_buf_clear(&work);
  return rc;
}

/* The canonical JSON of a draft row: the scheme's blank row with times, speaker and text. */
static void draft_row(const rescue_scheme *sc, const draft *c, int index, rescue_buf *out) {
  rescue_row_seed seed = {c->start, c->end, c->speaker, c->text, index};
  rescue_jw w;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_scheme_blank_row(sc, &seed, &w);
  rescue_jw_end(&w);
}

/* Head and tail of the sample object to store with draft rows (keeps its own keys). */
static int sample_frame(rescue_store *st, const char *sample_id, rescue_buf *head, rescue_buf *tail,
                        int *given, int64_t *ref, int *n_rows) {
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {.kind = RESCUE_VIEW_LATEST};
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

/*
** The given participants of a sample without rows, from its stored head and tail (into
** *names, pointing into doc). Returns how many; 0 when none are given.
*/
static int given_participants(rescue_jdoc *doc, const rescue_buf *head, const rescue_buf *tail,
                              rescue_buf *scratch, const char ***names) {
  const rescue_jnode *root, *p, *c;
  rescue_jerror je;
  int n = 0;
  *names = NULL;
  rescue_buf_reset(scratch);
  rescue_buf_puts(scratch, head->s ? head->s : "{");
  rescue_buf_puts(scratch, "[]");
  rescue_buf_puts(scratch, tail->s ? tail->s : "}");
  if (!rescue_buf_ok(scratch) || !(root = rescue_jparse(doc, scratch->s, scratch->len, &je)) ||
      !(p = rescue_jget(root, "participants")) || p->type != RESCUE_JARRAY || !p->len)
    return 0;
  if (!(*names = rescue_calloc(p->len, sizeof **names)))
    return 0;
  for (c = p->child; c; c = c->next)
    if (c->type == RESCUE_JSTRING && c->s[0])
      (*names)[n++] = c->s;
  return n;
}

/*
** Turn the drafts in D into row inputs rows[0..D->n) through their JSON form (parsed into
** doc; json is scratch). 0 or a negative error code with the message on the store's handle.
*/
static int draft_inputs(rescue_store *st, const char *path, const drafter *D, rescue_jdoc *doc,
                        rescue_buf *json, rescue_row_input *rows) {
  rescue_error *err = rescue_store_err(st);
  int i, rc;

  for (i = 0; i < D->n; i++) {
    rescue_jerror je;
    const rescue_jnode *root, *bad = NULL;
    rescue_error re = RESCUE_ERROR_INIT;
    rescue_buf_reset(json);
    draft_row(rescue_store_scheme(st), &D->v[i], i + 1, json);
    if (!rescue_buf_ok(json) || !(root = rescue_jparse(doc, json->s, json->len, &je))) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      return rc;
    }
    if ((rc = rescue_row_input_from_json(rescue_store_scheme(st), root, &rows[i], &bad, &re))) {
      rescue_seterr(err, rc, "%s: draft row %d: %s", path, i + 1, re.msg);
      return rc;
    }
  }
  return 0;
}

/*
** Store draft rows made from cues for sample_id, which has no rows yet (*ref 0: not in the
** corpus yet; then set to the new sample's ref). head/tail/given: the sample's frame from
** sample_frame(). Adds to res. 0 or a negative error code with the message on the store's
** handle.
*/
static int store_drafts(rescue_store *st, const char *path, const char *sample_id,
                        int64_t annotator_id, const rescue_import_opts *opts,
                        const rescue_cues *cues, const rescue_buf *head, const rescue_buf *tail,
                        int given, int64_t *ref, rescue_import_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_buf json = RESCUE_BUF_INIT;
  rescue_row_input *rows = NULL;
  rescue_jdoc *doc = NULL;
  rescue_sample_input in;
  const char **known = NULL;
  int rc, i, n_known;
  drafter D;

  memset(&D, 0, sizeof D);
  D.spk.copy = 1;
  doc = rescue_jdoc_new();
  if (!doc) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  n_known = given_participants(doc, head, tail, &json, &known);
  D.file = path;
  D.sample_id = sample_id;
  D.o = opts;
  rc = make_drafts(&D, cues, known, n_known, rescue_store_scheme(st)->therapist);
  rescue_free(known);
  if (rc) {
    rc = rescue_seterr(err, rc, NULL);
    goto end;
  }
  rows = rescue_calloc((size_t)(D.n ? D.n : 1), sizeof *rows);
  if (!rows) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if ((rc = draft_inputs(st, path, &D, doc, &json, rows)))
    goto end;
  memset(&in, 0, sizeof in);
  in.sample_id = sample_id;
  in.head = head->s;
  in.tail = tail->s;
  in.has_rows = 1;
  in.given_keys = given;
  in.n_rows = D.n;
  in.rows = rows;
  if ((rc = rescue_store_put_sample(st, &in, annotator_id, "import",
                                    *ref ? RESCUE_PUT_RESEGMENT : 0, &res->put)))
    goto end;
  if (!*ref && (rc = rescue_sample_ref(st, sample_id, ref)))
    goto end;
  res->rows += D.n;
  rc = 0;
end:
  for (i = 0; rows && i < D.n; i++)
    rescue_row_input_clear(&rows[i]);
  drafter_free(&D);
  rescue_free(rows);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&json);
  return rc;
}

/*
** Store the cues of path for the sample ref under a new import number; a cue read as a
** sound description ("[LAUGHS] No.") keeps it in its text. 0 or a negative error code with
** the message on the store's handle.
*/
static int store_cues(rescue_store *st, const char *path, int64_t ref, const rescue_cues *cues) {
  rescue_error *err = rescue_store_err(st);
  rescue_buf json = RESCUE_BUF_INIT;
  int64_t import_id;
  sqlite3_stmt *s;
  int rc = 0, i;

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
  for (i = 0; i < cues->n; i++) {
    const rescue_cue *c = &cues->v[i];
    if (!(s = rescue_store_stmt(st, "cue_insert"))) {
      rc = err->code;
      goto end;
    }
    rescue_bind_int(s, ":sample_ref", ref);
    rescue_bind_int(s, ":import_id", import_id);
    rescue_bind_int(s, ":seq", i + 1);
    rescue_bind_double(s, ":start", c->start);
    rescue_bind_double(s, ":end", c->end);
    if (c->bracket == 2) {
      /* "[LAUGHS] No." was read as a sound description, not a speaker: store it so */
      rescue_buf_reset(&json);
      rescue_buf_printf(&json, "[%s]%s%s", c->speaker, c->text[0] ? " " : "", c->text);
      if (!rescue_buf_ok(&json)) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto end;
      }
      rescue_bind_text(s, ":speaker", "", -1);
      rescue_bind_text(s, ":text", json.s, -1);
    } else {
      rescue_bind_text(s, ":speaker", c->speaker, -1);
      rescue_bind_text(s, ":text", c->text, -1);
    }
    rescue_bind_text(s, ":file", path, -1);
    rescue_bind_int(s, ":line", c->line);
    if (sqlite3_step(s) != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "storing a cue");
      goto end;
    }
  }
end:
  rescue_buf_clear(&json);
  return rc;
}

int rescue_subtitles_import(rescue_store *st, const char *path, int vtt, const char *sample_id,
                            int64_t annotator_id, rescue_import_result *res,
                            const rescue_import_opts *opts) {
  rescue_error *err = rescue_store_err(st);
  rescue_cues cues;
  rescue_buf head = RESCUE_BUF_INIT, tail = RESCUE_BUF_INIT;
  char *text = NULL;
  size_t len = 0;
  int64_t ref = 0;
  int rc, n_rows = 0, given = 0;

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
  if ((ref == 0 || n_rows == 0) && (rc = store_drafts(st, path, sample_id, annotator_id, opts,
                                                      &cues, &head, &tail, given, &ref, res)))
    goto end;
  res->samples++;
  if ((rc = store_cues(st, path, ref, &cues)))
    goto end;
  res->cues += cues.n;
  if (cues.reordered)
    snprintf(res->warning, sizeof res->warning,
             "%s:%ld:1: cue %d starts before the cue above it: cues sorted by start time", path,
             cues.first_late_line, cues.first_late);
end:
  rescue_cues_clear(&cues);
  rescue_free(text);
  rescue_buf_clear(&head);
  rescue_buf_clear(&tail);
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
    if (RESCUE_ALLOC_GROW(out->v, out->n + 1, cap)) {
      sqlite3_reset(s);
      rescue_cues_clear(out);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
    c = &out->v[out->n++];
    c->number = sqlite3_column_int(s, 0);
    c->start = sqlite3_column_double(s, 1);
    c->end = sqlite3_column_double(s, 2);
    c->speaker = rescue_strdup((const char *)sqlite3_column_text(s, 3));
    c->text = rescue_strdup((const char *)sqlite3_column_text(s, 4));
    c->line = sqlite3_column_int64(s, 6);
    c->bracket = 0;
    if (!c->speaker || !c->text) {
      sqlite3_reset(s);
      rescue_cues_clear(out);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_cues_clear(out);
    return rescue_store_sqlerr(st, "reading cues");
  }
  return 0;
}
