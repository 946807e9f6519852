/*
** agree_unitize_tsv.c: the table front end of the unitizing alpha (agree_unitize.c): a TSV
** file of units `coder start end category` (columns named by a header, in any order), its
** times put on an integer grid. A client of the engine's public calls only.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_agree.h"
#include "rescue_alloc.h"

/* The columns the table needs, in the order of the messages. */
enum { COL_CODER, COL_START, COL_END, COL_CATEGORY, N_COLS };
static const char *const col_names[N_COLS] = {"coder", "start", "end", "category"};

/* A unit as read: names in the file's buffer (NUL-terminated in place), times as given. */
typedef struct raw_unit {
  const char *coder, *category;
  double start, end;
  long line, col_end; /* for the messages of the second pass */
} raw_unit;

/* What one read keeps: the file, where it is, the units read so far. */
typedef struct reader {
  const char *path;
  char *text;
  size_t len;
  int col[N_COLS]; /* 0-based column of each needed field */
  int need;        /* columns a line must have: 1 + the largest of col[] */
  raw_unit *units;
  size_t n, cap;
  rescue_error *err;
} reader;

/* Column (1-based, in characters) of byte p in the line starting at line. */
static long column(const char *line, const char *p) {
  long col = 1;
  for (; line < p; line++)
    col += ((unsigned char)*line & 0xC0) != 0x80;
  return col;
}

/* x in its shortest spelling ("0.1", "450"), for messages. */
static const char *spell(double x, char buf[32]) {
  if (x == floor(x) && fabs(x) < 1e15)
    snprintf(buf, 32, "%.0f", x);
  else
    rescue_format_double(x, buf);
  return buf;
}

/* The whole input: the file, or standard input for "-". */
static int read_input(reader *rd) {
  rescue_buf b = RESCUE_BUF_INIT;
  char chunk[65536];
  size_t got;
  if (strcmp(rd->path, "-") != 0)
    return rescue_read_file(rd->path, &rd->text, &rd->len, rd->err);
  while ((got = fread(chunk, 1, sizeof chunk, stdin)) > 0)
    rescue_buf_putn(&b, chunk, got);
  if (ferror(stdin)) {
    int e = errno;
    rescue_buf_clear(&b);
    return rescue_seterr(rd->err, RESCUE_EIO, "reading standard input: %s", strerror(e));
  }
  if (!rescue_buf_ok(&b)) {
    rescue_buf_clear(&b);
    return rescue_seterr(rd->err, RESCUE_ENOMEM, NULL);
  }
  rd->len = b.len;
  rd->text = b.s ? rescue_buf_detach(&b) : rescue_strdup("");
  return rd->text ? 0 : rescue_seterr(rd->err, RESCUE_ENOMEM, NULL);
}

/*
** Split the line [p, end) at tabs into at most max fields (start and length each); returns
** the number of fields the line has (which may be more than max).
*/
static int split_fields(char *p, char *end, char **f, size_t *flen, int max) {
  int n = 0;
  for (;;) {
    char *t = memchr(p, '\t', (size_t)(end - p));
    char *e = t ? t : end;
    if (n < max) {
      f[n] = p;
      flen[n] = (size_t)(e - p);
    }
    n++;
    if (!t)
      return n;
    p = t + 1;
  }
}

/*
** The number spelled by s[0..n): [+-]digits[.digits][(e|E)[+-]digits] (or .digits),
** finite. 0, or -1 when it is not one.
*/
static int parse_number(const char *s, size_t n, double *out) {
  size_t i = 0, digits = 0;
  char *end;
  if (i < n && (s[i] == '+' || s[i] == '-'))
    i++;
  for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
    digits++;
  if (i < n && s[i] == '.')
    for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      digits++;
  if (!digits)
    return -1;
  if (i < n && (s[i] == 'e' || s[i] == 'E')) {
    size_t exp_digits = 0;
    i++;
    if (i < n && (s[i] == '+' || s[i] == '-'))
      i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
      exp_digits++;
    if (!exp_digits)
      return -1;
  }
  if (i != n)
    return -1;
  *out = strtod(s, &end);
  return end == s + n && isfinite(*out) ? 0 : -1;
}

/* NULL when s[0..n) is valid UTF-8 without control characters, else what is wrong. */
static const char *bad_name(const char *s, size_t n) {
  size_t i;
  for (i = 0; i < n; i++)
    if ((unsigned char)s[i] < 0x20 || s[i] == 0x7f)
      return "a control character";
  return rescue_utf8_valid(s, n) ? NULL : "invalid UTF-8";
}

/* The header: where each needed column is. */
static int read_header(reader *rd, char *line, char *end) {
  char *f[256];
  size_t flen[256];
  int n = split_fields(line, end, f, flen, 256), i, k;
  for (k = 0; k < N_COLS; k++)
    rd->col[k] = -1;
  if (n > 256)
    n = 256;
  for (i = 0; i < n; i++)
    for (k = 0; k < N_COLS; k++)
      if (flen[i] == strlen(col_names[k]) && memcmp(f[i], col_names[k], flen[i]) == 0) {
        if (rd->col[k] >= 0)
          return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                               "%s:1:%ld: a second '%s' column (the first is column %d)", rd->path,
                               column(line, f[i]), col_names[k], rd->col[k] + 1);
        rd->col[k] = i;
      }
  rd->need = 0;
  for (k = 0; k < N_COLS; k++) {
    if (rd->col[k] < 0)
      return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                           "%s:1:1: the header names no '%s' column (a table of units needs "
                           "the columns coder, start, end and category)",
                           rd->path, col_names[k]);
    if (rd->col[k] + 1 > rd->need)
      rd->need = rd->col[k] + 1;
  }
  return 0;
}

/* A name field (coder, category): present and readable; NUL-terminated in place. */
static int name_field(reader *rd, long ln, const char *line, char *s, size_t n, int k) {
  const char *why = bad_name(s, n);
  if (n == 0)
    return rescue_seterr(rd->err, RESCUE_EBADINPUT, "%s:%ld:%ld: blank %s", rd->path, ln,
                         column(line, s), col_names[k]);
  if (why)
    return rescue_seterr(rd->err, RESCUE_EBADINPUT, "%s:%ld:%ld: %s in the %s", rd->path, ln,
                         column(line, s), why, col_names[k]);
  s[n] = 0;
  return 0;
}

/* One data line [line, end): a unit in the continuum [o->start, o->end). */
static int read_unit(reader *rd, long ln, char *line, char *end, const rescue_unitize_tsv_opts *o) {
  char *f[256];
  size_t flen[256];
  int n = split_fields(line, end, f, flen, rd->need), k, rc;
  double x[N_COLS];
  raw_unit *u;
  if (n < rd->need)
    for (k = 0; k < N_COLS; k++)
      if (rd->col[k] >= n)
        return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                             "%s:%ld:%ld: %d column%s, but the header puts '%s' in column %d",
                             rd->path, ln, column(line, end), n, n == 1 ? "" : "s", col_names[k],
                             rd->col[k] + 1);
  for (k = COL_START; k <= COL_END; k++) {
    int c = rd->col[k];
    if (parse_number(f[c], flen[c], &x[k]))
      return rescue_seterr(rd->err, RESCUE_EBADINPUT, "%s:%ld:%ld: %s is not a number: '%.*s'",
                           rd->path, ln, column(line, f[c]), col_names[k],
                           (int)(flen[c] > 64 ? 64 : flen[c]), f[c]);
  }
  if (x[COL_END] <= x[COL_START])
    return rescue_seterr(rd->err, RESCUE_EBADINPUT, "%s:%ld:%ld: end %.*s is not after start %.*s",
                         rd->path, ln, column(line, f[rd->col[COL_END]]),
                         (int)flen[rd->col[COL_END]], f[rd->col[COL_END]],
                         (int)flen[rd->col[COL_START]], f[rd->col[COL_START]]);
  if (x[COL_START] < o->start || x[COL_END] > o->end) {
    int c = rd->col[x[COL_START] < o->start ? COL_START : COL_END];
    char s0[32], s1[32];
    return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                         "%s:%ld:%ld: the unit [%.*s, %.*s) is outside the continuum [%s, %s)",
                         rd->path, ln, column(line, f[c]), (int)flen[rd->col[COL_START]],
                         f[rd->col[COL_START]], (int)flen[rd->col[COL_END]], f[rd->col[COL_END]],
                         spell(o->start, s0), spell(o->end, s1));
  }
  if ((rc = name_field(rd, ln, line, f[rd->col[COL_CODER]], flen[rd->col[COL_CODER]], COL_CODER)) ||
      (rc = name_field(rd, ln, line, f[rd->col[COL_CATEGORY]], flen[rd->col[COL_CATEGORY]],
                       COL_CATEGORY)))
    return rc;
  if (rd->n == rd->cap) {
    size_t cap = rd->cap ? rd->cap * 2 : 256;
    raw_unit *nu = rescue_realloc(rd->units, cap * sizeof *nu);
    if (!nu)
      return rescue_seterr(rd->err, RESCUE_ENOMEM, NULL);
    rd->units = nu;
    rd->cap = cap;
  }
  u = &rd->units[rd->n++];
  u->coder = f[rd->col[COL_CODER]];
  u->category = f[rd->col[COL_CATEGORY]];
  u->start = x[COL_START];
  u->end = x[COL_END];
  u->line = ln;
  u->col_end = column(line, f[rd->col[COL_END]]);
  return 0;
}

/*
** Every line of the table: the header, then the units (blank lines skipped). A byte order
** mark is skipped and CRLF line ends are read as LF.
*/
static int read_lines(reader *rd, const rescue_unitize_tsv_opts *o) {
  char *p = rd->text, *stop = rd->text + rd->len;
  long ln = 0;
  int rc;
  if (rd->len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
    p += 3;
  while (p < stop) {
    char *nl = memchr(p, '\n', (size_t)(stop - p)), *end = nl ? nl : stop,
         *next = nl ? nl + 1 : stop;
    if (end > p && end[-1] == '\r')
      end--;
    ln++;
    if (ln == 1)
      rc = read_header(rd, p, end);
    else
      rc = end == p ? 0 : read_unit(rd, ln, p, end, o);
    if (rc)
      return rc;
    p = next;
  }
  if (ln == 0)
    return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                         "%s:1:1: empty table: a header naming the columns coder, start, end "
                         "and category comes first",
                         rd->path);
  return 0;
}

/* Whether x is a whole number. */
static int whole(double x) { return x == floor(x); }

/* x on the grid: the nearest step, halves away from zero; -1 when too far out. */
static int to_steps(double x, double grid, int64_t *out) {
  double inv = 1 / grid, whole_inv = nearbyint(inv), y;
  /* a grid of 0.001 multiplies by 1000, so 0.0015 is 1.5 steps and rounds up */
  y = grid < 1 && fabs(inv - whole_inv) < 1e-9 * whole_inv ? x * whole_inv : x / grid;
  if (!(fabs(y) < 4.6e18))
    return -1;
  *out = llround(y);
  return 0;
}

/* The units read, on the grid, into a new data set. */
static int build(reader *rd, const rescue_unitize_tsv_opts *o, double grid, rescue_unitize **out) {
  int64_t b, e;
  size_t i;
  int rc;
  char s0[32], s1[32], g[32];
  spell(o->start, s0);
  spell(o->end, s1);
  spell(grid, g);
  if (to_steps(o->start, grid, &b) || to_steps(o->end, grid, &e) ||
      (double)e - (double)b > (double)RESCUE_UNITIZE_MAX_LENGTH)
    return rescue_seterr(rd->err, RESCUE_EINVAL,
                         "the continuum [%s, %s) has too many steps of %s (at most 2^40)", s0, s1,
                         g);
  if (e <= b)
    return rescue_seterr(rd->err, RESCUE_EINVAL,
                         "the continuum [%s, %s) is shorter than one step of the grid (%s)", s0, s1,
                         g);
  if ((rc = rescue_unitize_new(b, e - b, grid, out)))
    return rescue_seterr(rd->err, rc, NULL);
  for (i = 0; i < rd->n; i++) {
    const raw_unit *u = &rd->units[i];
    int64_t ub = 0, ue = 0;
    int coder, category;
    /* inside the continuum as read, so inside on the grid too (rounding keeps order) */
    to_steps(u->start, grid, &ub);
    to_steps(u->end, grid, &ue);
    if (ue <= ub)
      return rescue_seterr(rd->err, RESCUE_EBADINPUT,
                           "%s:%ld:%ld: the unit is shorter than one step of the grid (%s): "
                           "its start and end round to the same step",
                           rd->path, u->line, u->col_end, g);
    if ((coder = rescue_unitize_coder(*out, u->coder)) == RESCUE_EINVAL)
      return rescue_seterr(rd->err, RESCUE_EBADINPUT, "%s:%ld:%d: more than %d coders", rd->path,
                           u->line, rd->col[COL_CODER] + 1, RESCUE_UNITIZE_MAX_CODERS);
    if (coder < 0)
      return rescue_seterr(rd->err, coder, NULL);
    if ((category = rescue_unitize_category(*out, u->category)) < 0)
      return rescue_seterr(rd->err, category, NULL);
    if ((rc = rescue_unitize_add(*out, coder, category, ub, ue)))
      return rescue_seterr(rd->err, rc, NULL);
  }
  return 0;
}

int rescue_unitize_read_tsv(const char *path, const rescue_unitize_tsv_opts *o,
                            rescue_unitize **out, rescue_error *err) {
  reader rd = {0};
  double grid = o->grid;
  size_t i;
  int rc;
  *out = NULL;
  rd.path = path;
  rd.err = err;
  if (!isfinite(o->start) || !isfinite(o->end) || o->end <= o->start)
    return rescue_seterr(err, RESCUE_EINVAL, "the continuum [%g, %g) is empty", o->start, o->end);
  if (grid != 0 && !(isfinite(grid) && grid > 0))
    return rescue_seterr(err, RESCUE_EINVAL, "the grid step %g is not a number > 0", grid);
  if ((rc = read_input(&rd)) || (rc = read_lines(&rd, o)))
    goto end;
  if (grid == 0) {
    grid = whole(o->start) && whole(o->end) ? 1 : 0.001;
    for (i = 0; i < rd.n && grid == 1; i++)
      if (!whole(rd.units[i].start) || !whole(rd.units[i].end))
        grid = 0.001;
  }
  rc = build(&rd, o, grid, out);
end:
  if (rc)
    rescue_unitize_free(out);
  rescue_free(rd.units);
  rescue_free(rd.text);
  return rc;
}
