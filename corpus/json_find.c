/*
** json_find.c: rescue_jfind, the one finder of a JSON value inside a model's prose reply
** (annotate/draft.c and export/score_read.c call it). rescue_json.h states its rules and
** its bound on the work.
*/
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_json.h"

/*
** Open brackets kept on the scan's stack. A bracket with more than this many open ones
** above it would nest deeper than the reader's limit (2048 levels) and can never parse,
** so when the stack is full its lower half is dropped.
*/
#define STACK_MAX 4096

typedef struct jf_span {
  size_t open, close; /* offsets of a bracket and of its match */
} jf_span;

typedef struct jf_scan {
  size_t *stack; /* offsets of the open brackets, innermost last */
  size_t depth, cap;
  size_t dropped; /* brackets dropped from the bottom of the stack, still open */
  jf_span *spans; /* balanced spans, in the order they close */
  size_t n, spans_cap;
} jf_scan;

/* Push the bracket at offset i; -1 when out of memory. */
static int scan_push(jf_scan *s, size_t i) {
  if (s->depth == STACK_MAX) {
    memmove(s->stack, s->stack + STACK_MAX / 2, STACK_MAX / 2 * sizeof *s->stack);
    s->depth -= STACK_MAX / 2;
    s->dropped += STACK_MAX / 2;
  }
  if (RESCUE_ALLOC_GROW(s->stack, s->depth + 1, s->cap))
    return -1;
  s->stack[s->depth++] = i;
  return 0;
}

/* Record the balanced span [open, close]; -1 when out of memory. */
static int scan_span(jf_scan *s, size_t open, size_t close) {
  if (RESCUE_ALLOC_GROW(s->spans, s->n + 1, s->spans_cap))
    return -1;
  s->spans[s->n].open = open;
  s->spans[s->n].close = close;
  s->n++;
  return 0;
}

/*
** The bracket pass: every balanced span of text, one pass with a stack. Strings are
** read only inside brackets (JSON's rules: a backslash escapes the next byte, a control
** character cannot occur, so the brackets still open cannot start a value). A closing
** bracket of the other kind than the innermost open one means none of the open ones can
** start a value: the stack empties. Returns -1 when out of memory.
*/
static int scan_brackets(jf_scan *s, const char *text, size_t len) {
  int in_string = 0;
  size_t i;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)text[i];
    if (in_string) {
      if (c == '\\')
        i++;
      else if (c == '"')
        in_string = 0;
      else if (c < 0x20)
        in_string = 0, s->depth = s->dropped = 0;
      continue;
    }
    switch (c) {
    case '"': in_string = s->depth + s->dropped > 0; break;
    case '{':
    case '[':
      if (scan_push(s, i))
        return -1;
      break;
    case '}':
    case ']':
      if (s->depth == 0) {
        s->dropped -= s->dropped > 0;
        break;
      }
      s->depth--;
      if (text[s->stack[s->depth]] != (c == '}' ? '{' : '['))
        s->depth = s->dropped = 0;
      else if (scan_span(s, s->stack[s->depth], i))
        return -1;
      break;
    default: break;
    }
  }
  return 0;
}

static int span_cmp(const void *a, const void *b) {
  const jf_span *x = a, *y = b;
  return x->open < y->open ? -1 : x->open > y->open;
}

const rescue_jnode *rescue_jfind(rescue_jdoc *doc, const char *text, size_t len, int flags,
                                 rescue_jfind_accept accept, void *ctx, rescue_jfind_stats *st) {
  jf_scan s;
  rescue_jfind_stats local;
  const rescue_jnode *found = NULL;
  size_t fails[RESCUE_JFIND_MAX_ATTEMPTS], nfails = 0, k, budget = RESCUE_JFIND_BUDGET(len);
  int sorted = 1;
  memset(&s, 0, sizeof s);
  if (!st)
    st = &local;
  memset(st, 0, sizeof *st);
  st->scanned = len;
  if (scan_brackets(&s, text, len)) {
    st->oom = 1;
    goto end;
  }
  st->candidates = s.n;
  /* spans were recorded as they closed: an inner one before the one around it */
  for (k = 1; k < s.n && sorted; k++)
    sorted = s.spans[k - 1].open < s.spans[k].open;
  if (!sorted)
    qsort(s.spans, s.n, sizeof *s.spans, span_cmp);
  for (k = 0; k < s.n; k++) {
    size_t p = s.spans[k].open, n = s.spans[k].close - p + 1;
    const rescue_jnode *root;
    rescue_jerror je;
    /* fails[] holds the failure points of the failed parses still around p, innermost last */
    while (nfails && fails[nfails - 1] <= p)
      nfails--;
    if (nfails && s.spans[k].close >= fails[nfails - 1])
      continue; /* its parse would stop at the same byte */
    if (st->attempts == RESCUE_JFIND_MAX_ATTEMPTS || st->parsed + n > budget)
      break;
    st->attempts++;
    st->parsed += n;
    root = rescue_jparse_ex(doc, text + p, n, flags | RESCUE_JPARSE_PREFIX, NULL, &je);
    if (root) {
      if (accept(root, ctx)) {
        found = root;
        break;
      }
      continue;
    }
    if (strcmp(je.msg, "out of memory") == 0) {
      st->oom = 1;
      break;
    }
    if (strcmp(je.msg, "maximum parsing depth reached") != 0)
      fails[nfails++] = p + je.offset;
  }
end:
  rescue_free(s.stack);
  rescue_free(s.spans);
  return found;
}
