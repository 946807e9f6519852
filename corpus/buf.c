/*
** buf.c: the growable buffer of rescue_buf.h.
*/
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "rescue_alloc.h"
#include "rescue_buf.h"

/* Make room for `extra` more bytes plus the NUL; returns 0 or -1 (and sets oom). */
int rescue_buf_grow(rescue_buf *b, size_t extra) {
  size_t need, cap;
  char *p;
  if (b->oom)
    return -1;
  need = b->len + extra + 1;
  if (need <= b->cap)
    return 0;
  cap = b->cap ? b->cap : 64;
  while (cap < need)
    cap *= 2;
  p = rescue_realloc(b->s, cap);
  if (!p) {
    b->oom = 1;
    return -1;
  }
  b->s = p;
  b->cap = cap;
  return 0;
}

void rescue_buf_putn_slow(rescue_buf *b, const void *p, size_t n) {
  if (rescue_buf_grow(b, n))
    return;
  memcpy(b->s + b->len, p, n);
  b->len += n;
  b->s[b->len] = 0;
}

void rescue_buf_printf(rescue_buf *b, const char *fmt, ...) {
  va_list ap;
  int n;
  char small[256];
  va_start(ap, fmt);
  n = vsnprintf(small, sizeof small, fmt, ap);
  va_end(ap);
  if (n < 0)
    return;
  if ((size_t)n < sizeof small) {
    rescue_buf_putn(b, small, (size_t)n);
    return;
  }
  if (rescue_buf_grow(b, (size_t)n))
    return;
  va_start(ap, fmt);
  vsnprintf(b->s + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void rescue_buf_free(rescue_buf *b) {
  rescue_free(b->s);
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
}

char *rescue_buf_detach(rescue_buf *b) {
  char *s = b->s;
  if (!s)
    s = rescue_strdup("");
  b->s = NULL;
  b->len = b->cap = 0;
  b->oom = 0;
  return s;
}

int rescue_read_file(const char *path, char **out, size_t *len, rescue_error *err) {
  FILE *f = fopen(path, "rb");
  rescue_buf b = RESCUE_BUF_INIT;
  char chunk[65536];
  size_t n;
  *out = NULL;
  if (!f)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    rescue_buf_putn(&b, chunk, n);
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    rescue_buf_free(&b);
    return rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", path, strerror(e));
  }
  fclose(f);
  if (!rescue_buf_ok(&b)) {
    rescue_buf_free(&b);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  *len = b.len;
  *out = b.s ? rescue_buf_detach(&b) : rescue_strdup("");
  return *out ? 0 : rescue_seterr(err, RESCUE_ENOMEM, NULL);
}
