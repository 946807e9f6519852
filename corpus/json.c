/*
** json.c: strict JSON reader (arena tree, tokens kept) and Python-style writer.
** See rescue_json.h for what is accepted and how output is spelled.
*/
#include <errno.h>
#include <float.h>
#include <stdarg.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "prim_int.h"
#include "rescue_json.h"

/* jansson's JSON_PARSER_MAX_DEPTH: deeper nesting is refused. */
#define JSON_MAX_DEPTH 2048

/* ------------------------------------------------------------------------ */
/* Arena: a chain of blocks; the first block is kept across parses.          */

typedef struct arena_block {
  struct arena_block *next;
  size_t used, cap;
  /* data follows, aligned for any node */
  max_align_t data[];
} arena_block;

struct rescue_jdoc {
  arena_block *head; /* current block (newest first) */
  const char *text;  /* input being parsed */
  const char *end;
  const char *p;
  rescue_jerror *err;
  int depth;
  int failed;
  int nocopy; /* strings without escapes point into the input (see header) */
  int python; /* RESCUE_JPARSE_PYTHON: Python json.loads leniency */
};

static void *arena_alloc(rescue_jdoc *d, size_t n) {
  arena_block *b = d->head;
  n = (n + sizeof(max_align_t) - 1) & ~(sizeof(max_align_t) - 1);
  if (!b || b->used + n > b->cap) {
    /* the first block fits what the input usually needs (a row: a few KiB), so parsing
       a small text does not take and fault in 64 KiB each time */
    size_t len = d->text && d->end > d->text ? (size_t)(d->end - d->text) : 0;
    size_t cap = b ? b->cap * 2 : len < 15 * 1024 ? 4 * len + 4096 : 64 * 1024;
    arena_block *nb;
    while (cap < n)
      cap *= 2;
    nb = rescue_malloc(sizeof *nb + cap);
    if (!nb)
      return NULL;
    nb->next = b;
    nb->used = 0;
    nb->cap = cap;
    d->head = nb;
    b = nb;
  }
  b->used += n;
  return (char *)b->data + b->used - n;
}

/* Drop every block but the largest (the newest), and empty it. */
static void arena_reset(rescue_jdoc *d) {
  arena_block *b = d->head;
  if (!b)
    return;
  while (b->next) {
    arena_block *old = b->next;
    b->next = old->next;
    rescue_free(old);
  }
  b->used = 0;
}

rescue_jdoc *rescue_jdoc_new(void) { return rescue_calloc(1, sizeof(rescue_jdoc)); }

void rescue_jdoc_nocopy(rescue_jdoc *doc, int on) { doc->nocopy = on; }

void rescue_jdoc_free(rescue_jdoc **doc) {
  arena_block *b;
  if (!doc || !*doc)
    return;
  b = (*doc)->head;
  while (b) {
    arena_block *n = b->next;
    rescue_free(b);
    b = n;
  }
  rescue_free(*doc);
  *doc = NULL;
}

/* ------------------------------------------------------------------------ */
/* Reader                                                                    */

static void *fail(rescue_jdoc *d, const char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void *fail(rescue_jdoc *d, const char *at, const char *fmt, ...) {
  va_list ap;
  if (d->failed)
    return NULL;
  d->failed = 1;
  d->err->offset = (size_t)(at - d->text);
  va_start(ap, fmt);
  vsnprintf(d->err->msg, sizeof d->err->msg, fmt, ap);
  va_end(ap);
  return NULL;
}

static void skip_ws(rescue_jdoc *d) {
  const char *p = d->p;
  while (p < d->end && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t'))
    p++;
  d->p = p;
}

static rescue_jnode *new_node(rescue_jdoc *d, rescue_jtype t, const char *at) {
  rescue_jnode *n = arena_alloc(d, sizeof *n);
  if (!n)
    return fail(d, at, "out of memory");
  memset(n, 0, sizeof *n);
  n->type = t;
  n->offset = (size_t)(at - d->text);
  return n;
}

static int hexval(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* Read 4 hex digits at p into *v; 0 on success. */
static int read_hex4(const char *p, const char *end, unsigned *v) {
  unsigned r = 0;
  int i;
  if (end - p < 4)
    return -1;
  for (i = 0; i < 4; i++) {
    int h = hexval((unsigned char)p[i]);
    if (h < 0)
      return -1;
    r = r * 16 + (unsigned)h;
  }
  *v = r;
  return 0;
}

int rescue_utf8_valid(const char *s, size_t len) {
  const unsigned char *p = (const unsigned char *)s, *end = p + len;
  while (p < end) {
    int n = rescue_utf8_step(p, end, NULL);
    if (!n)
      return 0;
    p += n;
  }
  return 1;
}

static char *put_utf8(char *o, unsigned cp) {
  if (cp < 0x80) {
    *o++ = (char)cp;
  } else if (cp < 0x800) {
    *o++ = (char)(0xC0 | (cp >> 6));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    *o++ = (char)(0xE0 | (cp >> 12));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  } else {
    *o++ = (char)(0xF0 | (cp >> 18));
    *o++ = (char)(0x80 | ((cp >> 12) & 0x3F));
    *o++ = (char)(0x80 | ((cp >> 6) & 0x3F));
    *o++ = (char)(0x80 | (cp & 0x3F));
  }
  return o;
}

/*
** Parse a string literal at d->p (which is at the opening quote). The decoded text
** goes to the arena, NUL-terminated; *out and *outlen receive it.
*/
static int parse_string(rescue_jdoc *d, const char **out, uint32_t *outlen, unsigned char *plain) {
  const char *start = d->p;
  const char *p = d->p + 1, *end = d->end;
  const char *q;
  char *buf, *o;
  size_t raw;
  int escapes = 0;

  /* First pass: find the closing quote and validate, so the output size is known. */
  q = p;
  for (;;) {
    unsigned char c;
    /* eight plain ASCII bytes at a time: no quote, backslash, control or high byte */
    while (end - q >= 8) {
      uint64_t v, t;
      memcpy(&v, q, 8);
      t = ((v - 0x2020202020202020ULL) | v) & 0x8080808080808080ULL; /* < 0x20 or >= 0x80 */
      t |= (((v ^ 0x2222222222222222ULL) - 0x0101010101010101ULL) & ~(v ^ 0x2222222222222222ULL));
      t |= (((v ^ 0x5C5C5C5C5C5C5C5CULL) - 0x0101010101010101ULL) & ~(v ^ 0x5C5C5C5C5C5C5C5CULL));
      if (t & 0x8080808080808080ULL)
        break;
      q += 8;
    }
    if (q >= end)
      return fail(d, start, "premature end of input in string"), -1;
    c = (unsigned char)*q;
    if (c == '"')
      break;
    if (c == '\\') {
      escapes = 1;
      q++;
      if (q >= end)
        return fail(d, start, "premature end of input in string"), -1;
      if (*q == 'u') {
        unsigned v, lo;
        if (read_hex4(q + 1, end, &v))
          return fail(d, q - 1, "invalid escape"), -1;
        if (v == 0)
          return fail(d, q - 1, "\\u0000 (NUL) is not allowed in strings"), -1;
        q += 5;
        if (v >= 0xD800 && v <= 0xDBFF) {
          if (end - q < 6 || q[0] != '\\' || q[1] != 'u' || read_hex4(q + 2, end, &lo) ||
              lo < 0xDC00 || lo > 0xDFFF) {
            if (!d->python)
              return fail(d, q - 6, "invalid Unicode '\\u%04X'", v), -1;
          } else {
            q += 6;
          }
        } else if (v >= 0xDC00 && v <= 0xDFFF && !d->python) {
          return fail(d, q - 6, "invalid Unicode '\\u%04X'", v), -1;
        }
        continue;
      }
      if (!strchr("\"\\/bfnrt", *q) || *q == 0)
        return fail(d, q - 1, "invalid escape"), -1;
      q++;
      continue;
    }
    if (c < 0x20)
      return fail(d, q, "control character 0x%x in string", c), -1;
    if (c < 0x80) {
      q++;
    } else {
      int n = rescue_utf8_step((const unsigned char *)q, (const unsigned char *)end, NULL);
      if (!n)
        return fail(d, q, "invalid UTF-8 in string"), -1;
      q += n;
    }
  }
  raw = (size_t)(q - p);
  if (raw > UINT32_MAX - 1)
    return fail(d, start, "string too long"), -1;
  if (!escapes && d->nocopy) {
    *plain = 1;
    *out = p;
    *outlen = (uint32_t)raw;
    d->p = q + 1;
    return 0;
  }
  buf = arena_alloc(d, raw + 1);
  if (!buf)
    return fail(d, start, "out of memory"), -1;
  *plain = 1;
  if (!escapes) {
    memcpy(buf, p, raw);
    buf[raw] = 0;
    *out = buf;
    *outlen = (uint32_t)raw;
    d->p = q + 1;
    return 0;
  }
  /* Second pass: decode (escapes only shrink the text). */
  o = buf;
  while (p < q) {
    const char *bs = memchr(p, '\\', (size_t)(q - p));
    size_t run = bs ? (size_t)(bs - p) : (size_t)(q - p);
    memcpy(o, p, run);
    o += run;
    p += run;
    if (p >= q)
      break;
    p++; /* backslash */
    switch (*p) {
    case 'b':
      *o++ = '\b';
      p++;
      *plain = 0;
      break;
    case 'f':
      *o++ = '\f';
      p++;
      *plain = 0;
      break;
    case 'n':
      *o++ = '\n';
      p++;
      *plain = 0;
      break;
    case 'r':
      *o++ = '\r';
      p++;
      *plain = 0;
      break;
    case 't':
      *o++ = '\t';
      p++;
      *plain = 0;
      break;
    case 'u': {
      unsigned v = 0, lo = 0xDC00; /* the first pass checked both escapes */
      read_hex4(p + 1, q, &v);
      p += 5;
      if (v >= 0xD800 && v <= 0xDBFF && q - p >= 6 && p[0] == '\\' && p[1] == 'u' &&
          read_hex4(p + 2, q, &lo) == 0 && lo >= 0xDC00 && lo <= 0xDFFF) {
        p += 6;
        v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
      } else if (v >= 0xD800 && v <= 0xDFFF) {
        v = 0xFFFD; /* a lone surrogate (Python mode only): the replacement character */
        *plain = 0;
      }
      if (v < 0x20)
        *plain = 0;
      o = put_utf8(o, v);
      break;
    }
    default: /* " \ / */
      if (*p != '/')
        *plain = 0;
      *o++ = *p++;
      break;
    }
  }
  *o = 0;
  *out = buf;
  *outlen = (uint32_t)(o - buf);
  d->p = q + 1;
  return 0;
}

static rescue_jnode *parse_value(rescue_jdoc *d);

static rescue_jnode *parse_number(rescue_jdoc *d) {
  const char *start = d->p, *p = d->p, *end = d->end;
  rescue_jnode *n;
  char *tok;
  size_t len;
  int is_int = 1;

  if (p < end && *p == '-')
    p++;
  if (p >= end)
    return fail(d, start, "invalid token");
  if (*p == '0') {
    p++;
    if (p < end && *p >= '0' && *p <= '9')
      return fail(d, start, "invalid token");
  } else if (*p >= '1' && *p <= '9') {
    while (p < end && *p >= '0' && *p <= '9')
      p++;
  } else {
    return fail(d, start, "invalid token");
  }
  if (p < end && *p == '.') {
    is_int = 0;
    p++;
    if (p >= end || !(*p >= '0' && *p <= '9'))
      return fail(d, start, "invalid token");
    while (p < end && *p >= '0' && *p <= '9')
      p++;
  }
  if (p < end && (*p == 'e' || *p == 'E')) {
    is_int = 0;
    p++;
    if (p < end && (*p == '+' || *p == '-'))
      p++;
    if (p >= end || !(*p >= '0' && *p <= '9'))
      return fail(d, start, "invalid token");
    while (p < end && *p >= '0' && *p <= '9')
      p++;
  }
  len = (size_t)(p - start);
  n = new_node(d, RESCUE_JNUMBER, start);
  if (!n)
    return NULL;
  tok = arena_alloc(d, len + 1);
  if (!tok)
    return fail(d, start, "out of memory");
  memcpy(tok, start, len);
  tok[len] = 0;
  errno = 0;
  if (is_int) {
    long long v = strtoll(tok, NULL, 10);
    if (errno == ERANGE && !d->python)
      return fail(d, start, v < 0 ? "too big negative integer" : "too big integer");
    n->num = errno == ERANGE ? strtod(tok, NULL) : (double)v;
  } else {
    double v = strtod(tok, NULL);
    if (errno == ERANGE && (v == HUGE_VAL || v == -HUGE_VAL) && !d->python)
      return fail(d, start, "real number overflow");
    n->num = v;
  }
  n->is_int = is_int;
  n->s = tok;
  n->len = (uint32_t)len;
  d->p = p;
  return n;
}

static int literal(rescue_jdoc *d, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(d->end - d->p) >= n && memcmp(d->p, word, n) == 0) {
    d->p += n;
    return 1;
  }
  return 0;
}

/*
** Python mode: NaN, Infinity and -Infinity, which Python's json module reads as floats.
** A NUMBER node whose token is the word; NULL (without failing) when there is none here.
*/
static rescue_jnode *python_constant(rescue_jdoc *d) {
  static const struct {
    const char *word;
    double value;
  } k[] = {{"NaN", NAN}, {"Infinity", INFINITY}, {"-Infinity", -INFINITY}};
  const char *at = d->p;
  size_t i;
  for (i = 0; i < sizeof k / sizeof k[0]; i++)
    if (literal(d, k[i].word)) {
      rescue_jnode *n = new_node(d, RESCUE_JNUMBER, at);
      if (!n)
        return NULL;
      n->num = k[i].value;
      n->s = k[i].word;
      n->len = (uint32_t)strlen(k[i].word);
      return n;
    }
  return NULL;
}

/* One of 64 bits for a key (its length, first and last byte): equal keys share it. */
static uint64_t key_bit(const char *key, uint32_t len) {
  unsigned h = len * 31u;
  if (len)
    h += (unsigned char)key[0] * 7u + (unsigned char)key[len - 1];
  return (uint64_t)1 << (h & 63u);
}

static rescue_jnode *parse_container(rescue_jdoc *d, int is_object) {
  const char *start = d->p;
  rescue_jnode *n = new_node(d, is_object ? RESCUE_JOBJECT : RESCUE_JARRAY, start), *last = NULL;
  char close = is_object ? '}' : ']';
  uint64_t seen = 0; /* objects: one bit per hash of the keys so far (duplicates) */
  if (!n)
    return NULL;
  n->unique = 1;
  if (++d->depth > JSON_MAX_DEPTH)
    return fail(d, start, "maximum parsing depth reached");
  d->p++;
  skip_ws(d);
  if (d->p < d->end && *d->p == close) {
    d->p++;
    d->depth--;
    return n;
  }
  for (;;) {
    rescue_jnode *v;
    const char *key = NULL;
    uint32_t keylen = 0;
    unsigned char keyplain = 0;
    if (is_object) {
      if (d->p >= d->end)
        return fail(d, d->p, "premature end of input, '}' expected");
      if (*d->p != '"')
        return fail(d, d->p, "string or '}' expected");
      if (parse_string(d, &key, &keylen, &keyplain))
        return NULL;
      skip_ws(d);
      if (d->p >= d->end)
        return fail(d, d->p, "premature end of input, ':' expected");
      if (*d->p != ':')
        return fail(d, d->p, "':' expected");
      d->p++;
      skip_ws(d);
    }
    v = parse_value(d);
    if (!v)
      return NULL;
    v->key = key;
    v->keylen = keylen;
    v->keyplain = keyplain;
    if (is_object && n->unique) {
      uint64_t bit = key_bit(key, keylen);
      if (seen & bit) /* maybe seen: compare with the keys before */
        for (const rescue_jnode *c = n->child; c; c = c->next)
          if (c->keylen == keylen && memcmp(c->key, key, keylen) == 0)
            n->unique = 0;
      seen |= bit;
    }
    if (last)
      last->next = v;
    else
      n->child = v;
    last = v;
    n->len++;
    skip_ws(d);
    if (d->p >= d->end)
      return fail(d, d->p,
                  is_object ? "premature end of input, '}' expected"
                            : "premature end of input, ']' expected");
    if (*d->p == ',') {
      d->p++;
      skip_ws(d);
      continue;
    }
    if (*d->p == close) {
      d->p++;
      break;
    }
    return fail(d, d->p, is_object ? "'}' expected" : "']' expected");
  }
  d->depth--;
  return n;
}

static rescue_jnode *parse_value(rescue_jdoc *d) {
  const char *at = d->p;
  rescue_jnode *n;
  if (at >= d->end)
    return fail(d, at, "premature end of input");
  switch (*at) {
  case '{': return parse_container(d, 1);
  case '[': return parse_container(d, 0);
  case '"':
    n = new_node(d, RESCUE_JSTRING, at);
    if (!n || parse_string(d, &n->s, &n->len, &n->plain))
      return NULL;
    return n;
  case 't':
    if (literal(d, "true"))
      return new_node(d, RESCUE_JTRUE, at);
    break;
  case 'f':
    if (literal(d, "false"))
      return new_node(d, RESCUE_JFALSE, at);
    break;
  case 'n':
    if (literal(d, "null"))
      return new_node(d, RESCUE_JNULL, at);
    break;
  case 'N':
  case 'I':
  case '-':
    if (d->python && (n = python_constant(d)) != NULL)
      return n;
    if (d->failed)
      return NULL;
    if (*at == '-')
      return parse_number(d);
    break;
  default:
    if (*at >= '0' && *at <= '9')
      return parse_number(d);
    break;
  }
  if ((unsigned char)*at >= 0x80 &&
      !rescue_utf8_step((const unsigned char *)at, (const unsigned char *)d->end, NULL))
    return fail(d, at, "invalid UTF-8");
  return fail(d, at, "invalid token");
}

const rescue_jnode *rescue_jparse(rescue_jdoc *d, const char *text, size_t len,
                                  rescue_jerror *err) {
  return rescue_jparse_ex(d, text, len, 0, NULL, err);
}

const rescue_jnode *rescue_jparse_ex(rescue_jdoc *d, const char *text, size_t len, int flags,
                                     size_t *used, rescue_jerror *err) {
  rescue_jerror dummy;
  rescue_jnode *root;
  d->err = err ? err : &dummy;
  d->err->offset = 0;
  d->err->msg[0] = 0;
  d->failed = 0;
  d->depth = 0;
  d->text = text;
  d->p = text;
  d->end = text + len;
  d->python = (flags & RESCUE_JPARSE_PYTHON) != 0;
  arena_reset(d);
  if (!(flags & RESCUE_JPARSE_PREFIX))
    skip_ws(d);
  if (d->p >= d->end)
    return fail(d, d->p, "'[' or '{' expected near end of file");
  if (!d->python && *d->p != '{' && *d->p != '[')
    return fail(d, d->p, "'[' or '{' expected");
  root = parse_value(d);
  d->python = 0;
  if (!root)
    return NULL;
  if (flags & RESCUE_JPARSE_PREFIX) {
    if (used)
      *used = (size_t)(d->p - d->text);
    return root;
  }
  skip_ws(d);
  if (d->p != d->end)
    return fail(d, d->p, "end of file expected");
  return root;
}

/* The last match: a repeated key counts with its last value, as in Python and jansson. */
const rescue_jnode *rescue_jget(const rescue_jnode *obj, const char *key) {
  const rescue_jnode *c, *found = NULL;
  size_t kl;
  if (!obj || obj->type != RESCUE_JOBJECT)
    return NULL;
  kl = strlen(key);
  /* the last of duplicate keys counts (as Python's json module); without duplicates the
     first match is the one */
  for (c = obj->child; c; c = c->next)
    if (c->keylen == kl && memcmp(c->key, key, kl) == 0) {
      found = c;
      if (obj->unique)
        break;
    }
  return found;
}

void rescue_jposition(const char *text, size_t len, size_t offset, long *line, long *col) {
  long l = 1, c = 1;
  size_t i;
  if (offset > len)
    offset = len;
  for (i = 0; i < offset; i++) {
    unsigned char ch = (unsigned char)text[i];
    if (ch == '\n') {
      l++;
      c = 1;
    } else if ((ch & 0xC0) != 0x80) {
      c++; /* count characters, not continuation bytes */
    }
  }
  *line = l;
  *col = c;
}

/* ------------------------------------------------------------------------ */
/* Writer                                                                    */

void rescue_jwrite_string(rescue_buf *b, const char *s, size_t len) {
  static const char hex[] = "0123456789abcdef";
  const char *p = s, *end = len ? s + len : s; /* s may be NULL when len is 0 */
  if (rescue_buf_grow(b, len + 2))
    return;
  rescue_buf_putc(b, '"');
  while (p < end) {
    const char *run = p;
    while (p < end && (unsigned char)*p >= 0x20 && *p != '"' && *p != '\\')
      p++;
    if (p > run)
      rescue_buf_putn(b, run, (size_t)(p - run));
    if (p >= end)
      break;
    switch (*p) {
    case '"': rescue_buf_putn(b, "\\\"", 2); break;
    case '\\': rescue_buf_putn(b, "\\\\", 2); break;
    case '\n': rescue_buf_putn(b, "\\n", 2); break;
    case '\r': rescue_buf_putn(b, "\\r", 2); break;
    case '\t': rescue_buf_putn(b, "\\t", 2); break;
    case '\b': rescue_buf_putn(b, "\\b", 2); break;
    case '\f': rescue_buf_putn(b, "\\f", 2); break;
    default: {
      char u[6] = {'\\', 'u', '0', '0', hex[((unsigned char)*p) >> 4], hex[*p & 15]};
      rescue_buf_putn(b, u, 6);
    }
    }
    p++;
  }
  rescue_buf_putc(b, '"');
}

void rescue_jwrite(rescue_buf *b, const rescue_jnode *n) {
  const rescue_jnode *c;
  switch (n->type) {
  case RESCUE_JNULL: rescue_buf_putn(b, "null", 4); return;
  case RESCUE_JFALSE: rescue_buf_putn(b, "false", 5); return;
  case RESCUE_JTRUE: rescue_buf_putn(b, "true", 4); return;
  case RESCUE_JNUMBER: rescue_buf_putn(b, n->s, n->len); return;
  case RESCUE_JSTRING:
    if (n->plain) {
      rescue_buf_putc(b, '"');
      rescue_buf_putn(b, n->s, n->len);
      rescue_buf_putc(b, '"');
    } else {
      rescue_jwrite_string(b, n->s, n->len);
    }
    return;
  case RESCUE_JARRAY:
    rescue_buf_putc(b, '[');
    for (c = n->child; c; c = c->next) {
      if (c != n->child)
        rescue_buf_putn(b, ", ", 2);
      rescue_jwrite(b, c);
    }
    rescue_buf_putc(b, ']');
    return;
  case RESCUE_JOBJECT:
    rescue_buf_putc(b, '{');
    for (c = n->child; c; c = c->next) {
      if (c != n->child)
        rescue_buf_putn(b, ", ", 2);
      if (c->keyplain) {
        rescue_buf_putc(b, '"');
        rescue_buf_putn(b, c->key, c->keylen);
        rescue_buf_putn(b, "\": ", 3);
      } else {
        rescue_jwrite_string(b, c->key, c->keylen);
        rescue_buf_putn(b, ": ", 2);
      }
      rescue_jwrite(b, c);
    }
    rescue_buf_putc(b, '}');
    return;
  }
}

/*
** Shortest round-trip digits: a decimal with at most 15 significant digits always
** survives double -> text -> double, and if any such decimal reads back as d then the
** correctly rounded 15-digit form of d is that decimal padded with zeros. So: try 15
** digits and strip zeros; else 16; else 17 (always enough). Among several 16-digit
** candidates the correctly rounded one is the nearest, which is what Python picks.
*/
int rescue_format_double(double d, char out[32]) {
  char tmp[40], digits[20];
  int prec, ndig = 0, exp10, i, n = 0;
  char *e, *p;

  if (isnan(d))
    return snprintf(out, 32, "NaN");
  if (isinf(d))
    return snprintf(out, 32, d < 0 ? "-Infinity" : "Infinity");
  if (d == 0)
    return snprintf(out, 32, signbit(d) ? "-0.0" : "0.0");
  /* Subnormals carry fewer digits than the argument above needs: search from 1. */
  for (prec = fabs(d) < DBL_MIN ? 1 : 15; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*e", prec - 1, d);
    if (prec == 17 || strtod(tmp, NULL) == d)
      break;
  }
  /* tmp is [-]D.DDDDe[+-]XX: collect digits and exponent */
  p = tmp;
  if (*p == '-') {
    out[n++] = '-';
    p++;
  }
  for (; *p && *p != 'e'; p++)
    if (*p != '.')
      digits[ndig++] = *p;
  exp10 = (int)strtol(p + 1, &e, 10);
  while (ndig > 1 && digits[ndig - 1] == '0')
    ndig--;
  /* decimal point position: value = 0.DIGITS x 10^(exp10+1) */
  if (exp10 >= -4 && exp10 < 16) {
    int decpt = exp10 + 1;
    if (decpt <= 0) {
      out[n++] = '0';
      out[n++] = '.';
      for (i = 0; i < -decpt; i++)
        out[n++] = '0';
      for (i = 0; i < ndig; i++)
        out[n++] = digits[i];
    } else {
      for (i = 0; i < decpt; i++)
        out[n++] = i < ndig ? digits[i] : '0';
      out[n++] = '.';
      if (ndig > decpt)
        for (i = decpt; i < ndig; i++)
          out[n++] = digits[i];
      else
        out[n++] = '0';
    }
    out[n] = 0;
    return n;
  }
  out[n++] = digits[0];
  if (ndig > 1) {
    out[n++] = '.';
    for (i = 1; i < ndig; i++)
      out[n++] = digits[i];
  }
  n += snprintf(out + n, (size_t)(32 - n), "e%c%02d", exp10 < 0 ? '-' : '+', abs(exp10));
  return n;
}

void rescue_jwrite_double(rescue_buf *b, double d) {
  char tmp[32];
  int n = rescue_format_double(d, tmp);
  rescue_buf_putn(b, tmp, (size_t)n);
}

/* ---- streaming writer ---- */

void rescue_jw_init(rescue_jw *w, rescue_buf *b) {
  memset(w, 0, sizeof *w);
  w->b = b;
  w->first[0] = 1;
}

/* Emit the separator a new value needs at the current position. */
static void jw_sep(rescue_jw *w) {
  if (w->after_key) {
    w->after_key = 0;
    return;
  }
  if (w->depth > 0) {
    if (!(w->first[w->depth] & 1))
      rescue_buf_putn(w->b, ", ", 2);
    w->first[w->depth] &= (unsigned char)~1u;
  }
}

static void jw_open(rescue_jw *w, char c) {
  jw_sep(w);
  rescue_buf_putc(w->b, c);
  if (w->depth + 1 < (int)sizeof w->first)
    w->depth++;
  w->first[w->depth] = (unsigned char)(1 | (c == '[' ? 2 : 0));
}

void rescue_jw_obj(rescue_jw *w) { jw_open(w, '{'); }
void rescue_jw_arr(rescue_jw *w) { jw_open(w, '['); }

void rescue_jw_end(rescue_jw *w) {
  rescue_buf_putc(w->b, (w->first[w->depth] & 2) ? ']' : '}');
  if (w->depth > 0)
    w->depth--;
}

void rescue_jw_key(rescue_jw *w, const char *key) {
  jw_sep(w);
  rescue_jwrite_string(w->b, key, strlen(key));
  rescue_buf_putn(w->b, ": ", 2);
  w->after_key = 1;
}

void rescue_jw_str(rescue_jw *w, const char *s) {
  jw_sep(w);
  rescue_jwrite_string(w->b, s ? s : "", s ? strlen(s) : 0);
}

void rescue_jw_str_or_null(rescue_jw *w, const char *s) {
  if (s)
    rescue_jw_str(w, s);
  else
    rescue_jw_null(w);
}

void rescue_jw_strn(rescue_jw *w, const char *s, size_t len) {
  jw_sep(w);
  rescue_jwrite_string(w->b, s, len);
}

void rescue_jw_int(rescue_jw *w, long long v) {
  /* the digits from the right, as printf's %lld writes them (no printf: a sample's answer
     writes several numbers per row) */
  char d[24], *p = d + sizeof d;
  unsigned long long u = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
  do
    *--p = (char)('0' + u % 10);
  while (u /= 10);
  if (v < 0)
    *--p = '-';
  jw_sep(w);
  rescue_buf_putn(w->b, p, (size_t)(d + sizeof d - p));
}

void rescue_jw_double(rescue_jw *w, double d) {
  jw_sep(w);
  rescue_jwrite_double(w->b, d);
}

void rescue_jw_bool(rescue_jw *w, int v) {
  jw_sep(w);
  rescue_buf_puts(w->b, v ? "true" : "false");
}

void rescue_jw_null(rescue_jw *w) {
  jw_sep(w);
  rescue_buf_putn(w->b, "null", 4);
}

void rescue_jw_node(rescue_jw *w, const rescue_jnode *n) {
  jw_sep(w);
  rescue_jwrite(w->b, n);
}

void rescue_jw_raw(rescue_jw *w, const char *json, size_t len) {
  jw_sep(w);
  rescue_buf_putn(w->b, json, len);
}

/* ------------------------------------------------------------------------ */
/* Cleaning (corpus/FORMAT.md §6.1)                                                  */

/* Length of a Python str.strip() whitespace character at p, or 0. */
static int pyspace(const unsigned char *p, const unsigned char *end) {
  unsigned c = p[0];
  if ((c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20))
    return 1;
  if (c == 0xC2 && end - p >= 2 && (p[1] == 0x85 || p[1] == 0xA0))
    return 2;
  if (end - p >= 3) {
    unsigned cp;
    if ((c & 0xF0) != 0xE0)
      return 0;
    cp = ((c & 0x0F) << 12) | ((p[1] & 0x3Fu) << 6) | (p[2] & 0x3Fu);
    if (cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 || cp == 0x2029 ||
        cp == 0x202F || cp == 0x205F || cp == 0x3000)
      return 3;
  }
  return 0;
}

void rescue_pystrip(const char *s, size_t len, size_t *start, size_t *end) {
  const unsigned char *p = (const unsigned char *)s, *e = p + len;
  int n;
  while (p < e && (n = pyspace(p, e)) > 0)
    p += n;
  /* from the end: step back over whole characters */
  while (e > p) {
    const unsigned char *c = e - 1;
    while (c > p && (*c & 0xC0) == 0x80)
      c--;
    if ((n = pyspace(c, e)) > 0 && c + n == e)
      e = c;
    else
      break;
  }
  *start = (size_t)((const char *)p - s);
  *end = (size_t)((const char *)e - s);
}

/* Python repr() of a string, as str(list) shows its items. */
static void py_repr_str(rescue_buf *b, const char *s, size_t len) {
  char q = (memchr(s, '\'', len) && !memchr(s, '"', len)) ? '"' : '\'';
  size_t i;
  rescue_buf_putc(b, q);
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == (unsigned char)q || c == '\\') {
      rescue_buf_putc(b, '\\');
      rescue_buf_putc(b, (char)c);
    } else if (c == '\n') {
      rescue_buf_puts(b, "\\n");
    } else if (c == '\r') {
      rescue_buf_puts(b, "\\r");
    } else if (c == '\t') {
      rescue_buf_puts(b, "\\t");
    } else if (c < 0x20 || c == 0x7f) {
      rescue_buf_printf(b, "\\x%02x", c);
    } else {
      rescue_buf_putc(b, (char)c);
    }
  }
  rescue_buf_putc(b, q);
}

static void py_number_str(rescue_buf *b, const rescue_jnode *n) {
  if (isnan(n->num) && !n->is_int) {
    rescue_buf_puts(b, "nan");
  } else if (isinf(n->num) && !n->is_int) {
    rescue_buf_puts(b, n->num < 0 ? "-inf" : "inf");
  } else if (n->is_int) {
    const char *t = n->s;
    if (strcmp(t, "-0") == 0)
      t = "0";
    rescue_buf_puts(b, t);
  } else {
    rescue_jwrite_double(b, n->num);
  }
}

/* Python str() of a list or dict (its repr). */
static void py_repr(rescue_buf *b, const rescue_jnode *n) {
  const rescue_jnode *c;
  switch (n->type) {
  case RESCUE_JNULL: rescue_buf_puts(b, "None"); return;
  case RESCUE_JFALSE: rescue_buf_puts(b, "False"); return;
  case RESCUE_JTRUE: rescue_buf_puts(b, "True"); return;
  case RESCUE_JNUMBER: py_number_str(b, n); return;
  case RESCUE_JSTRING: py_repr_str(b, n->s, n->len); return;
  case RESCUE_JARRAY:
    rescue_buf_putc(b, '[');
    for (c = n->child; c; c = c->next) {
      if (c != n->child)
        rescue_buf_puts(b, ", ");
      py_repr(b, c);
    }
    rescue_buf_putc(b, ']');
    return;
  case RESCUE_JOBJECT:
    rescue_buf_putc(b, '{');
    for (c = n->child; c; c = c->next) {
      if (c != n->child)
        rescue_buf_puts(b, ", ");
      py_repr_str(b, c->key, c->keylen);
      rescue_buf_puts(b, ": ");
      py_repr(b, c);
    }
    rescue_buf_putc(b, '}');
    return;
  }
}

size_t rescue_jclean(rescue_buf *out, const rescue_jnode *n) {
  size_t before = out->len, a, e;
  if (!n)
    return 0;
  switch (n->type) {
  case RESCUE_JNULL:
  case RESCUE_JFALSE: return 0;
  case RESCUE_JTRUE: rescue_buf_puts(out, "True"); return 4;
  case RESCUE_JNUMBER:
    if (n->num == 0)
      return 0;
    py_number_str(out, n);
    return out->len - before;
  case RESCUE_JSTRING:
    rescue_pystrip(n->s, n->len, &a, &e);
    rescue_buf_putn(out, n->s + a, e - a);
    return e - a;
  case RESCUE_JARRAY:
  case RESCUE_JOBJECT:
    if (!n->len)
      return 0;
    py_repr(out, n);
    return out->len - before;
  }
  return 0;
}

const char *rescue_jtype_name(const rescue_jnode *v) {
  if (!v)
    return "absent";
  switch (v->type) {
  case RESCUE_JNULL: return "null";
  case RESCUE_JFALSE:
  case RESCUE_JTRUE: return "a boolean";
  case RESCUE_JNUMBER: return "a number";
  case RESCUE_JSTRING: return "a string";
  case RESCUE_JARRAY: return "a list";
  case RESCUE_JOBJECT: return "an object";
  }
  return "?";
}
