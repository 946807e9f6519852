/*
** buf.c: the growable buffer of rescue_buf.h.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_buf.h"

/* Make room for `extra` more bytes plus the NUL; returns 0 or -1 (and sets oom). */
int rescue_buf_grow(rescue_buf *b, size_t extra) {
  if (b->oom)
    return -1;
  if (extra > SIZE_MAX - b->len - 1 || RESCUE_ALLOC_GROW(b->s, b->len + extra + 1, b->cap)) {
    b->oom = 1;
    return -1;
  }
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

void rescue_buf_clear(rescue_buf *b) {
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

const char *rescue_file_kind(unsigned mode) {
  if (S_ISDIR(mode))
    return "a folder";
  if (S_ISFIFO(mode))
    return "a named pipe (FIFO)";
  if (S_ISCHR(mode))
    return "a character device";
  if (S_ISBLK(mode))
    return "a block device";
  if (S_ISSOCK(mode))
    return "a socket";
  return "not a regular file";
}

int rescue_open_regular(const char *path, int64_t *size, rescue_error *err) {
  struct stat sb;
  int fd;
  /* stat first: opening a FIFO for reading blocks until a writer comes, forever */
  if (stat(path, &sb) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return rescue_seterr(err, RESCUE_EIO, "'%s' is %s, not a file", path,
                         rescue_file_kind((unsigned)sb.st_mode));
  /* O_NONBLOCK in case the name was swapped for a FIFO since; fstat settles it */
  fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    close(fd);
    return rescue_seterr(err, RESCUE_EIO, "'%s' is %s, not a file", path,
                         rescue_file_kind((unsigned)sb.st_mode));
  }
  /* a regular file ignores O_NONBLOCK; clear it all the same for plain reads */
  fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  if (size)
    *size = (int64_t)sb.st_size;
  return fd;
}

int rescue_read_file(const char *path, char **out, size_t *len, rescue_error *err) {
  int fd = rescue_open_regular(path, NULL, err);
  FILE *f = fd >= 0 ? fdopen(fd, "rb") : NULL;
  rescue_buf b = RESCUE_BUF_INIT;
  char chunk[65536];
  size_t n;
  *out = NULL;
  if (fd < 0)
    return fd;
  if (!f) {
    int e = errno;
    close(fd);
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(e));
  }
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    rescue_buf_putn(&b, chunk, n);
  if (ferror(f)) {
    int e = errno;
    fclose(f);
    rescue_buf_clear(&b);
    return rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", path, strerror(e));
  }
  fclose(f);
  if (!rescue_buf_ok(&b)) {
    rescue_buf_clear(&b);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  *len = b.len;
  *out = b.s ? rescue_buf_detach(&b) : rescue_strdup("");
  return *out ? 0 : rescue_seterr(err, RESCUE_ENOMEM, NULL);
}
