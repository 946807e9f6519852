/*
** rescue_buf.h: a growable byte buffer, always NUL-terminated (public).
** A failed allocation sets `oom` and turns later appends into no-ops, so a writer
** can append freely and check once at the end (rescue_buf_ok).
**
**   rescue_buf b = RESCUE_BUF_INIT;
**   rescue_buf_puts(&b, "abc"); rescue_buf_printf(&b, "%d", 4);   // b.s = "abc4"
**   if (!rescue_buf_ok(&b)) ...;  rescue_buf_clear(&b);
*/
#ifndef RESCUE_BUF_H
#define RESCUE_BUF_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "rescue_error.h"

typedef struct rescue_buf {
  char *s;    /* bytes, NUL-terminated when cap > 0; owned */
  size_t len; /* bytes used, excluding the NUL */
  size_t cap; /* bytes allocated */
  int oom;    /* an allocation failed: content is incomplete */
} rescue_buf;

#define RESCUE_BUF_INIT                                                                            \
  { NULL, 0, 0, 0 }

int rescue_buf_grow(rescue_buf *b, size_t extra);
void rescue_buf_putn_slow(rescue_buf *b, const void *p, size_t n);
void rescue_buf_printf(rescue_buf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void rescue_buf_clear(rescue_buf *b);
/* Hand the bytes to the caller (who frees them with rescue_free); b is reset. */
char *rescue_buf_detach(rescue_buf *b);

/*
** Read a whole file into a new NUL-terminated string (*out, freed with rescue_free) of
** *len bytes. Errors: RESCUE_EIO ("cannot open 'path': ...", "reading 'path': ...") or
** RESCUE_ENOMEM, with the message in err.
*/
int rescue_read_file(const char *path, char **out, size_t *len, rescue_error *err);

/* What a file of this st_mode is, for messages ("a folder", "a named pipe (FIFO)", ...). */
const char *rescue_file_kind(unsigned mode);
/*
** Open a regular file for reading without ever blocking: a folder, FIFO, device or
** socket is refused by kind ("'path' is a named pipe (FIFO), not a file") before it is
** opened. Returns the descriptor (the caller closes it) and its size in *size (may be
** NULL), or a negative code with the message in err.
*/
int rescue_open_regular(const char *path, int64_t *size, rescue_error *err);

static inline void rescue_buf_reset(rescue_buf *b) {
  b->len = 0;
  if (b->s)
    b->s[0] = 0;
}
static inline void rescue_buf_putn(rescue_buf *b, const void *p, size_t n) {
  if (b->len + n < b->cap) {
    memcpy(b->s + b->len, p, n);
    b->len += n;
    b->s[b->len] = 0;
  } else {
    rescue_buf_putn_slow(b, p, n);
  }
}
static inline void rescue_buf_puts(rescue_buf *b, const char *s) {
  rescue_buf_putn(b, s, strlen(s));
}
static inline void rescue_buf_putc(rescue_buf *b, char c) {
  if (b->len + 1 < b->cap || rescue_buf_grow(b, 1) == 0) {
    b->s[b->len++] = c;
    b->s[b->len] = 0;
  }
}
static inline int rescue_buf_ok(const rescue_buf *b) { return !b->oom; }

#endif
