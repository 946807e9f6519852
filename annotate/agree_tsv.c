/*
** agree_tsv.c: the table-mode reader: long-format TSV `unit<TAB>coder<TAB>value` read in
** one pass over the whole file in memory, interning units, coders and value spellings
** with hash maps keyed by the file's own bytes. Set values are JSON arrays (read with the
** library's JSON reader, rescue_json.h).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

#include "agree_int.h"
#include "prim_int.h"
#include "rescue_alloc.h"

/*
** Read a whole file (or standard input for "-"). A regular file is mapped (no copy);
** *mapped says so, for slurp_free.
*/
static int slurp(const char *path, char **out, size_t *len, int *mapped, rescue_error *err) {
  int fd = strcmp(path, "-") == 0 ? 0 : open(path, O_RDONLY);
  struct stat sb;
  size_t cap, n = 0;
  char *buf = NULL;
  *mapped = 0;
  if (fd < 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  if (fd && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size > 0) {
    if ((uint64_t)sb.st_size >= UINT32_MAX - 1) {
      close(fd);
      return rescue_seterr(err, RESCUE_EBADINPUT, "%s: the table is larger than 4 GB", path);
    }
    buf = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    if (buf != MAP_FAILED) {
      close(fd);
      *out = buf;
      *len = (size_t)sb.st_size;
      *mapped = 1;
      return 0;
    }
    buf = NULL;
  }
  cap = 1 << 20;
  buf = rescue_malloc(cap + 1);
  if (!buf)
    goto nomem;
  for (;;) {
    ssize_t got;
    if (n == cap) {
      char *nb = rescue_realloc(buf, cap * 2 + 1);
      if (!nb)
        goto nomem;
      buf = nb;
      cap *= 2;
    }
    got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      rescue_free(buf);
      if (fd)
        close(fd);
      return rescue_seterr(err, RESCUE_EIO, "cannot read '%s': %s", path, strerror(e));
    }
    if (got == 0)
      break;
    n += (size_t)got;
  }
  if (fd)
    close(fd);
  if (n >= UINT32_MAX - 1) {
    rescue_free(buf);
    return rescue_seterr(err, RESCUE_EBADINPUT, "%s: the table is larger than 4 GB", path);
  }
  buf[n] = 0;
  *out = buf;
  *len = n;
  return 0;
nomem:
  rescue_free(buf);
  if (fd)
    close(fd);
  return rescue_seterr(err, RESCUE_ENOMEM, NULL);
}

static void slurp_free(char *buf, size_t len, int mapped) {
  if (mapped)
    munmap(buf, len);
  else
    rescue_free(buf);
}

/* Column (1-based, in characters) of byte p within the line starting at line. */
static long column(const char *line, const char *p) {
  long col = 1;
  for (; line < p; line++)
    col += ((unsigned char)*line & 0xC0) != 0x80;
  return col;
}

/* NULL when s[0..n) is valid UTF-8 without control characters, else the reason. */
static const char *bad_text(const char *s, size_t n, size_t *at) {
  const unsigned char *p = (const unsigned char *)s;
  size_t i = 0;
  while (i < n) {
    unsigned c = p[i];
    int len;
    if (c < 0x20 || c == 0x7f) {
      *at = i;
      return "control character";
    }
    if (c < 0x80) {
      i++;
      continue;
    }
    if (!(len = rescue_utf8_step(p + i, p + n, NULL))) {
      *at = i;
      return "invalid UTF-8";
    }
    i += (size_t)len;
  }
  return NULL;
}

/*
** The first tab or newline in p[0..end), or end, 8 bytes at a time: a byte of w equal to c
** is a zero byte of w ^ (c repeated), and (x - 0x01..) & ~x & 0x80.. marks the lowest zero
** byte of x exactly (a borrow can only mark bytes above it). For reading a line again.
*/
static inline const char *tab_or_nl(const char *p, const char *end) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
  const uint64_t ones = 0x0101010101010101ULL, highs = 0x8080808080808080ULL;
  while (end - p >= 8) {
    uint64_t w, t, n;
    memcpy(&w, p, 8);
    t = w ^ (ones * '\t');
    n = w ^ (ones * '\n');
    t = ((t - ones) & ~t) | ((n - ones) & ~n);
    if (t & highs)
      return p + (__builtin_ctzll(t & highs) >> 3);
    p += 8;
  }
#endif
  while (p < end && *p != '\t' && *p != '\n')
    p++;
  return p;
}

/*
** The tabs and newlines of the table, in order, found 64 bytes at a time: bit i of bits is
** set when base[i] is one not yet handed out, so the next one is a count of trailing zeros
** away. Splitting a line then costs no loop over its bytes and no call per column, and the
** next delimiter does not wait on where the last one was.
*/
typedef struct delims {
  const char *base, *end;
  uint64_t bits;
} delims;

/* The delimiter bits of p[0..64), or of p[0..end) when that is shorter. */
static uint64_t delim_bits(const char *p, const char *end) {
  uint64_t bits = 0;
  int i;
#ifdef __SSE2__
  if (end - p >= 64) {
    const __m128i tab = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n');
    for (i = 0; i < 4; i++) {
      __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
      __m128i hit = _mm_or_si128(_mm_cmpeq_epi8(v, tab), _mm_cmpeq_epi8(v, nl));
      bits |= (uint64_t)(uint32_t)_mm_movemask_epi8(hit) << (16 * i);
    }
    return bits;
  }
#endif
  for (i = 0; i < 64 && i < end - p; i++)
    bits |= (uint64_t)(p[i] == '\t' || p[i] == '\n') << i;
  return bits;
}

static void delims_init(delims *s, const char *p, const char *end) {
  s->base = p;
  s->end = end;
  s->bits = p < end ? delim_bits(p, end) : 0;
}

/* The next tab or newline, or end when there is none. */
static inline const char *delims_next(delims *s) {
  const char *at;
  while (!s->bits) {
    if (s->end - s->base <= 64)
      return s->end;
    s->base += 64;
    s->bits = delim_bits(s->base, s->end);
  }
  at = s->base + __builtin_ctzll(s->bits);
  s->bits &= s->bits - 1;
  return at;
}

/* Lines are split into columns a batch at a time (see rescue_agree_read_tsv). */
#define BATCH 64

typedef struct tsv_line {
  const char *line, *t1, *t2, *eol; /* start, the two tabs, end (before \r\n) */
  long lineno;
  uint32_t ulen, uh; /* unit length and hash */
  int same;          /* same unit as the line before in the batch */
} tsv_line;

typedef struct reader {
  const char *path, *buf;
  rescue_agree_data *d;
  rescue_error *err;
  /* keys borrowed (the file's bytes); coders and tokens map to their index in d (value: -1
     missing) */
  rescue_strmap units, coders, tokens;
  rescue_buf tmp;
  rescue_jdoc *jdoc; /* set values; made on first use */
} reader;

static int fail_at(reader *r, const char *line, const char *p, long lineno, const char *fmt,
                   const char *what, size_t wlen) {
  return rescue_seterr(r->err, RESCUE_EBADINPUT, "%s:%ld:%ld: %s%.*s%s", r->path, lineno,
                       column(line, p), fmt, (int)(wlen > 60 ? 60 : wlen), what ? what : "",
                       what ? "'" : "");
}

/* Parse a value spelling into d (first time it is seen). *v = value index or -1 (missing). */
static int parse_value(reader *r, const char *line, const char *tok, size_t len, long lineno,
                       int32_t *v) {
  rescue_agree_data *d = r->d;
  size_t at;
  const char *why;
  int rc = RESCUE_EINVAL;
  *v = -1;
  if ((why = bad_text(tok, len, &at)))
    return fail_at(r, line, tok + at, lineno, why, NULL, 0);
  switch (d->level) {
  case RESCUE_LEVEL_NOMINAL:
  case RESCUE_LEVEL_TEXT: rc = rescue_agree_label(d, tok, len); break;
  case RESCUE_LEVEL_ORDINAL:
  case RESCUE_LEVEL_INTERVAL:
  case RESCUE_LEVEL_RATIO: {
    char *end;
    double x;
    size_t i;
    for (i = 0; i < len; i++)
      if (!strchr("0123456789+-.eE", tok[i]))
        break;
    rescue_buf_reset(&r->tmp);
    rescue_buf_putn(&r->tmp, tok, len);
    if (!rescue_buf_ok(&r->tmp))
      return rescue_seterr(r->err, RESCUE_ENOMEM, NULL);
    errno = 0;
    x = strtod(r->tmp.s, &end);
    if (i < len || end != r->tmp.s + len || errno == ERANGE)
      return fail_at(r, line, tok, lineno, "expected a number at this level, not '", tok, len);
    rc = rescue_agree_number(d, x);
    break;
  }
  case RESCUE_LEVEL_MASI:
  case RESCUE_LEVEL_JACCARD: {
    rescue_jerror je;
    const rescue_jnode *a, *e;
    const char *stack_el[64], **el = stack_el;
    size_t stack_len[64], *lens = stack_len, k, n;
    if (tok[0] != '[')
      return fail_at(r, line, tok, lineno, "expected a JSON array of strings, not '", tok, len);
    if (!r->jdoc && !(r->jdoc = rescue_jdoc_new()))
      return rescue_seterr(r->err, RESCUE_ENOMEM, NULL);
    a = rescue_jparse(r->jdoc, tok, len, &je);
    if (!a)
      return rescue_seterr(r->err, RESCUE_EBADINPUT,
                           "%s:%ld:%ld: expected a JSON array of "
                           "strings: %s",
                           r->path, lineno, column(line, tok) + (long)je.offset, je.msg);
    if (a->type != RESCUE_JARRAY)
      return fail_at(r, line, tok, lineno, "expected a JSON array of strings, not '", tok, len);
    n = a->len;
    if (n == 0)
      return 0; /* [] is a missing value */
    if (n > 64) {
      el = rescue_malloc(n * sizeof *el);
      lens = rescue_malloc(n * sizeof *lens);
      if (!el || !lens) {
        if (el != stack_el)
          rescue_free(el);
        if (lens != stack_len)
          rescue_free(lens);
        return rescue_seterr(r->err, RESCUE_ENOMEM, NULL);
      }
    }
    rc = 0;
    for (k = 0, e = a->child; e; e = e->next, k++) {
      if (e->type != RESCUE_JSTRING) {
        rc = fail_at(r, line, tok, lineno, "set elements must be strings: '", tok, len);
        break;
      }
      el[k] = e->s;
      lens[k] = e->len;
    }
    if (!rc)
      rc = rescue_agree_set(d, el, lens, (int)n);
    if (el != stack_el)
      rescue_free(el);
    if (lens != stack_len)
      rescue_free(lens);
    if (rc == RESCUE_EBADINPUT)
      return rc;
    break;
  }
  }
  if (rc < 0)
    return rescue_seterr(r->err, RESCUE_ENOMEM, NULL);
  *v = rc;
  return 0;
}

/*
** Grow the per-unit value counts to at least need entries, the new ones 0. 0, or -1 when
** out of memory (the counts are then as they were).
*/
static int grow_counts(uint32_t **count, uint32_t *cap, uint32_t need) {
  uint32_t old = *cap;
  if (RESCUE_ALLOC_GROW(*count, need > 1024 ? need : 1024, *cap))
    return -1;
  memset(*count + old, 0, (size_t)(*cap - old) * sizeof **count);
  rescue_huge_pages(*count, (size_t)*cap * sizeof **count);
  return 0;
}

/*
** The line of raw value `want` (0-based, in the order the values were kept), found by
** reading the table again as rescue_agree_read_tsv did once it had read it all without
** error. Line numbers are only needed for the message about a coder's second value, so
** they are not kept for every value.
*/
static uint32_t entry_line(const reader *r, const char *buf, size_t len, uint32_t want) {
  const char *p = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? buf + 3 : buf;
  const char *end = buf + len;
  uint32_t lineno = 0, k = 0;
  while (p < end) {
    const char *line = p, *t1 = tab_or_nl(p, end), *t2, *eol;
    uint32_t vlen;
    int64_t ti;
    lineno++;
    if (t1 == end || *t1 != '\t') { /* a blank line: every other line has 3 columns */
      p = t1 < end ? t1 + 1 : end;
      continue;
    }
    t2 = tab_or_nl(t1 + 1, end);
    eol = tab_or_nl(t2 + 1, end);
    p = eol < end ? eol + 1 : end;
    if (eol[-1] == '\r') /* eol > t2, a tab */
      eol--;
    vlen = (uint32_t)(eol - t2 - 1);
    if (lineno == 1 && t1 - line == 4 && t2 - t1 == 6 && vlen == 5 &&
        memcmp(line, "unit\tcoder\tvalue", 16) == 0)
      continue; /* header */
    if (!vlen || (ti = rescue_strmap_find(&r->tokens, t2 + 1, vlen)) < 0 ||
        rescue_strmap_value(&r->tokens, (uint32_t)ti) < 0)
      continue; /* missing value */
    if (k++ == want)
      return lineno;
  }
  return 0;
}

/*
** Units in the table, estimated from the first 4096 lines (bytes per unit there), with
** room to spare: the unit map is sized from it once, as rehashing a large table is slow.
*/
static size_t estimate_units(const char *buf, size_t len) {
  const char *prev = NULL, *p, *end = buf + len;
  size_t prev_len = 0, seen = 0, runs = 0;
  for (p = buf; p < end && seen < 4096; seen++) {
    const char *nl = memchr(p, '\n', (size_t)(end - p)), *eol = nl ? nl : end;
    const char *tab = memchr(p, '\t', (size_t)(eol - p));
    size_t ul = tab ? (size_t)(tab - p) : 0;
    if (!prev || ul != prev_len || !rescue_bytes_eq(p, prev, (uint32_t)ul))
      runs++;
    prev = p;
    prev_len = ul;
    p = nl ? nl + 1 : end;
  }
  /* units ~ bytes / (bytes per unit in the sample) */
  if (p > buf && runs)
    runs = (size_t)((double)len / ((double)(p - buf) / (double)runs) * 1.25) + 64;
  return runs;
}

/*
** Split the next lines (at most BATCH, from *pp) into columns, into batch[0..*nb), and
** prefetch each new unit's hash slot; blank lines and the header are skipped. *pp and
** *lineno move on. Returns 0, or the error of a line with a wrong number of columns
** (the lines before it in the batch still stand).
*/
static int read_batch(reader *r, delims *ds, const char **pp, const char *end, long *lineno_p,
                      tsv_line *batch, int *nb_out) {
  const char *p = *pp;
  long lineno = *lineno_p;
  int nb = 0, pending = 0;
  while (nb < BATCH && p < end) {
    tsv_line *L = &batch[nb];
    const char *line = p, *eol, *t1 = NULL, *t2 = NULL, *t3 = NULL;
    /* each stop is the line's next tab, or its newline (or the end of the table) */
    eol = delims_next(ds);
    if (eol < end && *eol == '\t') {
      t1 = eol;
      eol = delims_next(ds);
      if (eol < end && *eol == '\t') {
        t2 = eol;
        eol = delims_next(ds);
        if (eol < end && *eol == '\t')
          t3 = eol;
      }
    }
    lineno++;
    if (t3) {
      pending = fail_at(r, line, t3, lineno, "more than 3 columns (unit, coder, value)", NULL, 0);
      break;
    }
    p = eol < end ? eol + 1 : end;
    if (eol > line && eol[-1] == '\r')
      eol--;
    if (eol == line)
      continue; /* blank line */
    L->line = line;
    L->lineno = lineno;
    L->t1 = t1;
    L->t2 = t2;
    if (!t2) {
      pending = fail_at(r, line, eol, lineno,
                        "expected 3 tab-separated columns (unit, coder, value)", NULL, 0);
      break;
    }
    L->eol = eol;
    if (lineno == 1 && L->t1 - line == 4 && L->t2 - L->t1 == 6 && eol - L->t2 == 6 &&
        memcmp(line, "unit\tcoder\tvalue", 16) == 0)
      continue; /* header */
    L->ulen = (uint32_t)(L->t1 - line);
    if (nb && L->ulen == batch[nb - 1].ulen && rescue_bytes_eq(line, batch[nb - 1].line, L->ulen)) {
      L->same = 1;
    } else {
      L->same = 0;
      L->uh = rescue_strmap_hash(line, L->ulen);
      rescue_strmap_prefetch(&r->units, L->uh);
    }
    nb++;
  }
  *pp = p;
  *lineno_p = lineno;
  *nb_out = nb;
  return pending;
}

/*
** A coder not seen before, at s (clen bytes, hash h) on line `line`: checked, added to
** the data and to r->coders; *ci its entry there. 0, RESCUE_EBADINPUT or RESCUE_ENOMEM.
*/
static int new_coder(reader *r, const char *line, const char *s, uint32_t clen, uint32_t h,
                     long lineno, int64_t *ci) {
  size_t at;
  const char *why = bad_text(s, clen, &at);
  int c = -1;
  if (why)
    return fail_at(r, line, s + at, lineno, why, NULL, 0);
  rescue_buf_reset(&r->tmp);
  rescue_buf_putn(&r->tmp, s, clen);
  if (rescue_buf_ok(&r->tmp) && (c = rescue_agree_coder(r->d, r->tmp.s)) == RESCUE_EINVAL)
    return fail_at(r, line, s, lineno, "too many coders (at most 16777216)", NULL, 0);
  if (!rescue_buf_ok(&r->tmp) || c < 0 ||
      (*ci = rescue_strmap_add_h(&r->coders, s, clen, h, c)) < 0)
    return RESCUE_ENOMEM;
  return 0;
}

/*
** The unit of each of the first n_raw values, written out from count[] (the values so far
** came unit after unit: count[0] of unit 0, then count[1] of unit 1, ...), in an array
** with room for `lines` + 1 values. NULL when out of memory; the caller frees it.
*/
static uint32_t *units_so_far(const uint32_t *count, uint32_t n_raw, size_t lines) {
  uint32_t *raw_unit = rescue_malloc((lines + 1) * sizeof *raw_unit), k = 0, u = 0;
  if (!raw_unit)
    return NULL;
  for (; k < n_raw; u++)
    for (uint32_t j = 0; j < count[u]; j++)
      raw_unit[k++] = u;
  return raw_unit;
}

/*
** A coder's second value for a unit: seen[c] is the last unit (+1) where coder c gave
** a value and at[c] that entry, so the check is linear however many coders a unit has.
** Values were kept in line order, so the earliest line is the smallest raw index
** (raw_of_entry[x], or x when NULL). 0, RESCUE_EBADINPUT with the two lines, or
** RESCUE_ENOMEM.
*/
static int check_second_values(reader *r, size_t len, const uint32_t *raw_of_entry) {
  rescue_agree_data *d = r->d;
  uint32_t C = (uint32_t)rescue_agree_n_coders(d), U = d->n_units, u, x;
  uint32_t dup_raw = UINT32_MAX, dup_first = 0, dup_unit = 0;
  int32_t dup_coder = -1;
  uint32_t *seen = rescue_calloc((size_t)C + 1, sizeof *seen);
  uint32_t *at = rescue_malloc(((size_t)C + 1) * sizeof *at);
  if (!seen || !at) {
    rescue_free(seen);
    rescue_free(at);
    return RESCUE_ENOMEM;
  }
  for (u = 0; u < U; u++)
    for (x = d->unit_off[u]; x < d->unit_off[u + 1]; x++) {
      int32_t c = d->e_coder[x];
      if (seen[c] == u + 1) {
        uint32_t rx = raw_of_entry ? raw_of_entry[x] : x;
        if (rx < dup_raw) {
          dup_raw = rx;
          dup_first = raw_of_entry ? raw_of_entry[at[c]] : at[c];
          dup_coder = c;
          dup_unit = u;
        }
      } else {
        seen[c] = u + 1;
        at[c] = x;
      }
    }
  rescue_free(seen);
  rescue_free(at);
  if (dup_raw == UINT32_MAX)
    return 0;
  return rescue_seterr(r->err, RESCUE_EBADINPUT,
                       "%s:%u:1: coder '%s' gave unit '%.*s' a second value (the first is on "
                       "line %u)",
                       r->path, entry_line(r, r->buf, len, dup_raw),
                       rescue_agree_coder_name(d, dup_coder),
                       (int)(r->units.ent[dup_unit].len > 60 ? 60 : r->units.ent[dup_unit].len),
                       r->units.ent[dup_unit].key, entry_line(r, r->buf, len, dup_first));
}

/*
** Group the n_raw values by unit into r->d (count[u]: the values of unit u; count has
** room for every unit + 1). Units are numbered as first seen, so a table that lists each
** unit's lines together (the usual case, raw_unit NULL) is already grouped: its arrays
** (room for `lines` + 1 values) are taken over as they are and *raw_coder, *raw_value
** NULLed. Otherwise a stable counting sort groups them. Then a coder's second value for
** a unit is refused. 0, RESCUE_EBADINPUT or RESCUE_ENOMEM.
*/
static int group_by_unit(reader *r, size_t len, int32_t **raw_coder, int32_t **raw_value,
                         const uint32_t *raw_unit, uint32_t *count, uint32_t n_raw, size_t lines) {
  rescue_agree_data *d = r->d;
  uint32_t U = r->units.n, i, u, *raw_of_entry = NULL; /* NULL: entry x is raw value x */
  int rc;
  if (agree_data_reserve(d, U + 1, 0))
    return RESCUE_ENOMEM;
  d->unit_off[0] = 0;
  for (u = 0; u < U; u++) {
    d->unit_off[u + 1] = d->unit_off[u] + count[u];
    d->unit_cluster[u] = -1;
  }
  if (!raw_unit) {
    rescue_free(d->e_coder);
    rescue_free(d->e_value);
    d->e_coder = *raw_coder;
    d->e_value = *raw_value;
    d->cap_ent = (uint32_t)lines + 1;
    *raw_coder = *raw_value = NULL;
  } else {
    if (agree_data_reserve(d, U + 1, n_raw + 1) ||
        !(raw_of_entry = rescue_malloc(((size_t)n_raw + 1) * sizeof *raw_of_entry)))
      return RESCUE_ENOMEM;
    memcpy(count, d->unit_off, (size_t)(U + 1) * sizeof *count);
    for (i = 0; i < n_raw; i++) {
      uint32_t at = count[raw_unit[i]]++;
      d->e_coder[at] = (*raw_coder)[i];
      d->e_value[at] = (*raw_value)[i];
      raw_of_entry[at] = i;
    }
  }
  d->n_units = U;
  d->n_ent = n_raw;
  rc = check_second_values(r, len, raw_of_entry);
  rescue_free(raw_of_entry);
  return rc;
}

int rescue_agree_read_tsv(const char *path, rescue_agree_level level, rescue_agree_data **out,
                          rescue_error *err) {
  reader r;
  char *buf = NULL;
  size_t len = 0, lines = 0, runs = 0;
  int mapped = 0;
  tsv_line batch[BATCH];
  delims ds;
  const char *p, *end, *last_unit = NULL;
  uint32_t last_unit_len = 0, last_unit_idx = 0, n_raw = 0;
  uint32_t *raw_unit = NULL, *count = NULL, cap_count = 0, last_raw_unit = 0;
  int32_t *raw_coder = NULL, *raw_value = NULL;
  long lineno = 0;
  int rc;

  *out = NULL;
  memset(&r, 0, sizeof r);
  r.path = path;
  r.err = err;
  if ((rc = slurp(path, &buf, &len, &mapped, err)))
    return rc;
  r.buf = buf;
  rc = RESCUE_ENOMEM;
  if (!(r.d = rescue_agree_data_new(level)))
    goto fail;
  /*
  ** Size things without a pass over the file: a line takes at least 6 bytes, so len / 6
  ** bounds the values (untouched pages of these arrays cost nothing); the unit map, which
  ** must not grow (rehashing a large table is slow), is sized from the lines per unit in the
  ** first 4096 lines, with room to spare.
  */
  lines = len / 6 + 2;
  runs = estimate_units(buf, len);
  raw_coder = rescue_malloc((lines + 1) * sizeof *raw_coder);
  raw_value = rescue_malloc((lines + 1) * sizeof *raw_value);
  if (!raw_coder || !raw_value ||
      (runs > UINT32_MAX / 4 ? 1 : rescue_strmap_reserve(&r.units, (uint32_t)runs + 16)) ||
      grow_counts(&count, &cap_count, (uint32_t)runs + 17))
    goto fail;
  rescue_huge_pages(raw_coder, (lines + 1) * sizeof *raw_coder);
  rescue_huge_pages(raw_value, (lines + 1) * sizeof *raw_value);

  /*
  ** Lines go in batches: the first loop splits a batch into columns and prefetches each
  ** new unit's hash slot, the second interns them, so the unit table's cache misses
  ** overlap instead of coming one after another.
  */
  /* a UTF-8 byte order mark is not part of the first line (nor of its header) */
  p = len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0 ? buf + 3 : buf;
  end = buf + len;
  delims_init(&ds, p, end);
  for (; p < end;) {
    int nb = 0, b, pending = 0;
    pending = read_batch(&r, &ds, &p, end, &lineno, batch, &nb);
    for (b = 0; b < nb; b++) {
      tsv_line *L = &batch[b];
      const char *line = L->line, *t1 = L->t1, *t2 = L->t2;
      uint32_t ulen = L->ulen, clen = (uint32_t)(t2 - t1 - 1), vlen = (uint32_t)(L->eol - t2 - 1);
      uint32_t h, ui;
      int64_t ci, ti;
      int32_t coder, value;
      lineno = L->lineno;
      if (!ulen) {
        rc = fail_at(&r, line, line, lineno, "empty unit", NULL, 0);
        goto fail;
      }
      if (!clen) {
        rc = fail_at(&r, line, t1 + 1, lineno, "empty coder", NULL, 0);
        goto fail;
      }
      /* unit: most tables list a unit's lines together, so try the previous one first */
      if (last_unit &&
          (L->same || (ulen == last_unit_len && rescue_bytes_eq(line, last_unit, ulen)))) {
        ui = last_unit_idx;
      } else {
        int64_t f = rescue_strmap_find_h(&r.units, line, ulen, L->uh);
        if (f < 0 &&
            ((f = rescue_strmap_add_h(&r.units, line, ulen, L->uh, 0)) < 0 ||
             ((uint32_t)f >= cap_count && grow_counts(&count, &cap_count, (uint32_t)f + 1))))
          goto fail;
        ui = (uint32_t)f;
        last_unit = line;
        last_unit_len = ulen;
        last_unit_idx = ui;
      }
      /* coder */
      h = rescue_strmap_hash(t1 + 1, clen);
      ci = rescue_strmap_find_h(&r.coders, t1 + 1, clen, h);
      if (ci < 0 && (rc = new_coder(&r, line, t1 + 1, clen, h, lineno, &ci)))
        goto fail;
      coder = (int32_t)rescue_strmap_value(&r.coders, (uint32_t)ci);
      if (!vlen)
        continue; /* missing value: the unit and the coder still count */
      h = rescue_strmap_hash(t2 + 1, vlen);
      ti = rescue_strmap_find_h(&r.tokens, t2 + 1, vlen, h);
      if (ti < 0) {
        if ((rc = parse_value(&r, line, t2 + 1, vlen, lineno, &value)))
          goto fail;
        rc = RESCUE_ENOMEM;
        if ((ti = rescue_strmap_add_h(&r.tokens, t2 + 1, vlen, h, value)) < 0)
          goto fail;
      }
      value = (int32_t)rescue_strmap_value(&r.tokens, (uint32_t)ti);
      if (value < 0)
        continue;
      /*
      ** While the values come unit after unit, count[] says it all: the units of the values
      ** so far are count[0] times unit 0, then count[1] times unit 1, and so on. The first
      ** value that goes back to an earlier unit writes that out, and from then on each
      ** value's unit is kept for the sort below.
      */
      if (!raw_unit && ui < last_raw_unit && !(raw_unit = units_so_far(count, n_raw, lines)))
        goto fail;
      if (raw_unit)
        raw_unit[n_raw] = ui;
      last_raw_unit = ui;
      count[ui]++;
      raw_coder[n_raw] = coder;
      raw_value[n_raw] = value;
      n_raw++;
    }
    if (pending) {
      rc = pending; /* the earlier lines were fine: this line's error stands */
      goto fail;
    }
  }

  rc = RESCUE_ENOMEM;
  if (cap_count < r.units.n + 1 && grow_counts(&count, &cap_count, r.units.n + 1))
    goto fail;
  if ((rc = group_by_unit(&r, len, &raw_coder, &raw_value, raw_unit, count, n_raw, lines)))
    goto fail;
  *out = r.d;
  r.d = NULL;
  rc = 0;
fail:
  if (rc == RESCUE_ENOMEM)
    rescue_seterr(err, RESCUE_ENOMEM, "%s: out of memory", path);
  rescue_agree_data_free(&r.d);
  rescue_strmap_clear(&r.units);
  rescue_strmap_clear(&r.coders);
  rescue_strmap_clear(&r.tokens);
  rescue_buf_clear(&r.tmp);
  rescue_jdoc_free(&r.jdoc);
  rescue_free(raw_unit);
  rescue_free(raw_coder);
  rescue_free(raw_value);
  rescue_free(count);
  slurp_free(buf, len, mapped);
  return rc;
}
