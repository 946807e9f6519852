/*
** rescue_json.h: the strict JSON reader and the Python-style JSON writer (public).
**
** The reader parses one document into a tree of rescue_jnode allocated from an arena
** owned by a rescue_jdoc. It keeps what a lossless round trip needs: member order,
** duplicate keys, and every number exactly as spelled in the input (the token). It
** refuses exactly what jansson's json_loadb(..., 0) refuses: bad syntax, invalid UTF-8,
** control characters in strings, \u0000, unpaired surrogates, integers outside int64,
** reals that overflow a double, nesting deeper than 2048, a top level that is not an
** object or array, and trailing garbage. (A differential test and a libFuzzer driver in
** tools/fuzz hold it to that; 10 million fuzzed inputs agreed.) It is stricter in one
** place: jansson drops a NUL byte that directly follows a number or literal ("[1\0]").
**
** The writer prints what Python's json.dumps(obj, ensure_ascii=False) prints: ", " and
** ": " separators, raw UTF-8, only `"` `\` and control characters escaped, and reals as
** Python's repr (shortest round trip, ".0" on integral values).
*/
#ifndef RESCUE_JSON_H
#define RESCUE_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "rescue_buf.h"

typedef enum rescue_jtype {
  RESCUE_JNULL,
  RESCUE_JFALSE,
  RESCUE_JTRUE,
  RESCUE_JNUMBER,
  RESCUE_JSTRING,
  RESCUE_JARRAY,
  RESCUE_JOBJECT
} rescue_jtype;

typedef struct rescue_jnode rescue_jnode;
struct rescue_jnode {
  rescue_jtype type;
  unsigned char is_int;   /* NUMBER: the token has no fraction and no exponent */
  unsigned char plain;    /* STRING: s needs no escaping when written (fast path) */
  unsigned char keyplain; /* object members: key needs no escaping when written */
  unsigned char unique;   /* OBJECT: no key appears twice (rescue_jget stops at the first) */
  uint32_t len;           /* STRING: bytes of s; NUMBER: bytes of token; ARRAY/OBJECT: children */
  uint32_t keylen;        /* object members: bytes of key */
  size_t offset;          /* byte offset of this value in the parsed input */
  const char *s;   /* STRING: decoded UTF-8, NUL-terminated; NUMBER: the token, NUL-terminated */
  const char *key; /* object members: decoded key, NUL-terminated; else NULL */
  double num;      /* NUMBER: the value as a double */
  rescue_jnode *child; /* ARRAY/OBJECT: first element or member */
  rescue_jnode *next;  /* next element or member of the parent */
};

/* A parsed document; owns every node and string of its tree. */
typedef struct rescue_jdoc rescue_jdoc;

/* Where and why a parse failed. `offset` is a byte offset into the input. */
typedef struct rescue_jerror {
  size_t offset;
  char msg[160];
} rescue_jerror;

rescue_jdoc *rescue_jdoc_new(void);
/*
** Checking mode: strings (and keys) without escapes are not copied but point into the
** parsed input, and are then NOT NUL-terminated: use len/keylen (rescue_jget does).
** Faster for a pass that only validates; off by default.
*/
void rescue_jdoc_nocopy(rescue_jdoc *doc, int on);
/* Free the document and its tree; accepts NULL and NULLs the pointer. */
void rescue_jdoc_free(rescue_jdoc **doc);

/*
** Parse `len` bytes at `text` into doc (whose previous tree is discarded). Returns the
** root, or NULL with *err filled (a failed allocation reports "out of memory").
** The returned tree lives until the next parse into doc or its free.
*/
const rescue_jnode *rescue_jparse(rescue_jdoc *doc, const char *text, size_t len,
                                  rescue_jerror *err);

/*
** rescue_jparse with options, for model output (what Python's json module accepts):
**   RESCUE_JPARSE_PYTHON  NaN, Infinity and -Infinity (NUMBER nodes, token = the word);
**                         integers beyond int64 (the token kept, num the nearest double);
**                         reals that overflow (num infinite); a lone surrogate escape
**                         (decoded as U+FFFD); a top-level value of any type.
**   RESCUE_JPARSE_PREFIX  read one value starting exactly at text (no leading whitespace)
**                         and stop after it, like Python's raw_decode: *used (may be
**                         NULL) receives the bytes read; what follows is not looked at.
** Nesting deeper than 2048 is refused in every mode (never silently cut).
*/
#define RESCUE_JPARSE_PYTHON 1
#define RESCUE_JPARSE_PREFIX 2
const rescue_jnode *rescue_jparse_ex(rescue_jdoc *doc, const char *text, size_t len, int flags,
                                     size_t *used, rescue_jerror *err);

/*
** Member `key` of an object, or NULL. When the key repeats, the last one: the value
** Python's json.loads (the release's scripts) and jansson keep.
*/
const rescue_jnode *rescue_jget(const rescue_jnode *obj, const char *key);

/* 1 when s[0..len) is valid UTF-8 as the reader requires it (no overlongs, no surrogates). */
int rescue_utf8_valid(const char *s, size_t len);

/* 1-based line and column (in characters) of byte `offset` within text. */
void rescue_jposition(const char *text, size_t len, size_t offset, long *line, long *col);

/* ---- a JSON value inside prose (model replies) ---- */

/*
** rescue_jfind: the first bracketed value inside text (prose, fences, anything) that
** parses with `flags` (RESCUE_JPARSE_PYTHON or 0) and that `accept` takes; its tree lives
** in doc like rescue_jparse's. Candidates are tried in text order, as if a parse were
** tried at every '{' and '[' in turn, with a bound on the work:
**
**   1. one pass over the text matches brackets with a stack, aware of JSON strings
**      inside brackets (a quote in the prose outside any bracket is prose). A bracket
**      whose match is of the other kind, or whose value would hold a control character
**      inside a string, or that never closes, cannot start a value and is not tried.
**      (A bracket that sits inside what an earlier, never-closed bracket's scan reads as
**      a string on the same line is not seen either.)
**   2. parses are tried only on balanced spans [open, close], each handed exactly its
**      span. A failed parse at p failing at f also rules out the brackets between p and f
**      whose span reaches f: they fail at the same byte (not when the failure was the
**      nesting limit, which a shallower start can pass).
**   3. at most RESCUE_JFIND_MAX_ATTEMPTS parses, and no parse once the bytes handed to
**      the parser would pass RESCUE_JFIND_BUDGET(len); then the finder gives up.
**
** So the work is one pass over len bytes plus at most 8 * len + 64 KiB bytes parsed,
** whatever the text holds. *st (may be NULL) receives the figures; st->oom is set when
** an allocation failed (NULL is then returned). NULL when no candidate is taken.
*/
#define RESCUE_JFIND_MAX_ATTEMPTS 256
#define RESCUE_JFIND_BUDGET(len) (8 * (size_t)(len) + 65536)

typedef struct rescue_jfind_stats {
  size_t scanned;    /* bytes of the bracket pass (the text's length) */
  size_t candidates; /* brackets with a balanced span */
  size_t attempts;   /* parses tried */
  size_t parsed;     /* bytes handed to the parser over all attempts */
  int oom;           /* an allocation failed */
} rescue_jfind_stats;

/* 1 when the parsed value is the one sought. */
typedef int (*rescue_jfind_accept)(const rescue_jnode *root, void *ctx);

const rescue_jnode *rescue_jfind(rescue_jdoc *doc, const char *text, size_t len, int flags,
                                 rescue_jfind_accept accept, void *ctx, rescue_jfind_stats *st);

/* ---- writing (Python json.dumps(..., ensure_ascii=False) style) ---- */

/* Write a whole value. Numbers are written as their original tokens. */
void rescue_jwrite(rescue_buf *b, const rescue_jnode *n);
/* Write a JSON string literal of `len` bytes of UTF-8. */
void rescue_jwrite_string(rescue_buf *b, const char *s, size_t len);
/* Write a double as Python's repr does (also NaN, Infinity, -Infinity). */
void rescue_jwrite_double(rescue_buf *b, double d);

/*
** Format d as Python's repr(float) does: the shortest digits that read back to the same
** double, fixed notation for 1e-4 <= |d| < 1e16 (with ".0" when integral), otherwise
** d.ddde+XX. Returns the length written to out (at most 31 bytes plus NUL).
*/
int rescue_format_double(double d, char out[32]);

/*
** A small streaming writer for building records: tracks commas itself.
**   rescue_jw w; rescue_jw_init(&w, &buf);
**   rescue_jw_obj(&w); rescue_jw_key(&w, "a"); rescue_jw_int(&w, 1); rescue_jw_end(&w);
** gives {"a": 1}.
*/
typedef struct rescue_jw {
  rescue_buf *b;
  int depth;
  unsigned char first[128]; /* per depth: nothing written yet */
  unsigned char after_key;
} rescue_jw;

void rescue_jw_init(rescue_jw *w, rescue_buf *b);
void rescue_jw_obj(rescue_jw *w);
void rescue_jw_arr(rescue_jw *w);
void rescue_jw_end(rescue_jw *w); /* closes the innermost object or array */
void rescue_jw_key(rescue_jw *w, const char *key);
void rescue_jw_str(rescue_jw *w, const char *s);
/* A string, or null when s is NULL. */
void rescue_jw_str_or_null(rescue_jw *w, const char *s);
void rescue_jw_strn(rescue_jw *w, const char *s, size_t len);
void rescue_jw_int(rescue_jw *w, long long v);
void rescue_jw_double(rescue_jw *w, double d);
void rescue_jw_bool(rescue_jw *w, int v);
void rescue_jw_null(rescue_jw *w);
void rescue_jw_node(rescue_jw *w, const rescue_jnode *n);
/* An already serialised value (must be valid JSON in the same style). */
void rescue_jw_raw(rescue_jw *w, const char *json, size_t len);

/* ---- the scripts' value cleaning (corpus/FORMAT.md §6.1) ---- */

/*
** Range [*start, *end) of s[0..len) without the characters Python's str.strip() removes
** (ASCII whitespace, U+001C-U+001F, U+0085, U+00A0, U+1680, U+2000-U+200A, U+2028, U+2029,
** U+202F, U+205F, U+3000; not U+200B or U+FEFF).
*/
void rescue_pystrip(const char *s, size_t len, size_t *start, size_t *end);

/*
** Append the cleaned string form of a value: NULL (missing), null, "", false, 0, 0.0,
** [] and {} give ""; strings are stripped; true gives "True"; numbers give Python's
** str() of the parsed value (nan, inf, -inf for the Python-mode constants); a list or
** object with content gives Python's str() of it (its repr, e.g. ['yes']). Returns the
** number of bytes appended. Every module that cleans values (task builders, scoring)
** uses this one rule.
*/
size_t rescue_jclean(rescue_buf *out, const rescue_jnode *n);

/*
** What a JSON value is, for messages: "null", "a boolean", "a number", "a string", "a list",
** "an object"; "absent" for NULL.
*/
const char *rescue_jtype_name(const rescue_jnode *v);

#endif
