/*
** serve_clips.c: GET /clips/<path>: regular files under the server's clip folder (after
** resolving symlinks; nothing outside it), with a single byte Range.
*/
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "serve_impl.h"

/* The Content-Type of a clip by its extension. */
static const char *media_type(const char *path) {
  const char *dot = strrchr(path, '.');
  if (!dot)
    return "application/octet-stream";
  if (strcmp(dot, ".mp4") == 0 || strcmp(dot, ".m4v") == 0)
    return "video/mp4";
  if (strcmp(dot, ".webm") == 0)
    return "video/webm";
  if (strcmp(dot, ".wav") == 0)
    return "audio/wav";
  if (strcmp(dot, ".m4a") == 0)
    return "audio/mp4";
  if (strcmp(dot, ".vtt") == 0)
    return "text/vtt";
  if (strcmp(dot, ".json") == 0)
    return "application/json";
  return "application/octet-stream";
}

/*
** Parse a single "bytes=a-b" range against size: 1 with [*from, *to] set, 0 when there is
** none or it is not one we understand (serve the whole file), -1 when unsatisfiable.
*/
static int parse_range(const char *h, int64_t size, int64_t *from, int64_t *to) {
  char *end;
  long long a, b;
  if (!h || strncmp(h, "bytes=", 6) != 0 || strchr(h, ','))
    return 0;
  h += 6;
  if (*h == '-') {
    b = strtoll(h + 1, &end, 10);
    if (end == h + 1 || *end || b <= 0)
      return 0;
    if (size == 0)
      return -1;
    *from = b >= size ? 0 : size - b;
    *to = size - 1;
    return 1;
  }
  a = strtoll(h, &end, 10);
  if (end == h || *end != '-' || a < 0)
    return 0;
  h = end + 1;
  if (!*h) {
    b = size - 1;
  } else {
    b = strtoll(h, &end, 10);
    if (*end || b < a)
      return 0;
    if (b >= size)
      b = size - 1;
  }
  if (a >= size)
    return -1;
  *from = a;
  *to = b;
  return 1;
}

/*
** Open the clip `rel` under the clip folder (after resolving symlinks; never outside it)
** as a regular file: its descriptor (the caller closes it) with *sb, or -1 after setting
** the error response.
*/
static int clip_open(srv_req *r, const char *rel, struct stat *sb) {
  char *full = NULL, *real = NULL;
  size_t rootlen;
  int fd;
  const char *p;

  if (!r->srv->assets_real) {
    srv_error(r, 404, "no clip folder is served (the server was started without one)");
    return -1;
  }
  for (p = rel; *p; p++)
    if ((p == rel || p[-1] == '/') && p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
      break;
  if (*p || !*rel || rel[0] == '/' || strchr(rel, '\\')) {
    srv_error(r, 403, "clip paths are relative to the clip folder and never leave it");
    return -1;
  }
  full = rescue_malloc(strlen(r->srv->assets_real) + strlen(rel) + 2);
  if (!full) {
    srv_error(r, 500, "out of memory");
    return -1;
  }
  sprintf(full, "%s/%s", r->srv->assets_real, rel);
  real = realpath(full, NULL);
  rescue_free(full);
  rootlen = strlen(r->srv->assets_real);
  if (!real) {
    srv_error(r, 404, "no clip '%s'", rel);
    return -1;
  }
  if (strncmp(real, r->srv->assets_real, rootlen) != 0 || real[rootlen] != '/') {
    free(real);
    srv_error(r, 403, "'%s' leads out of the clip folder", rel);
    return -1;
  }
  fd = open(real, O_RDONLY | O_CLOEXEC);
  free(real);
  if (fd < 0 || fstat(fd, sb) != 0 || !S_ISREG(sb->st_mode)) {
    if (fd >= 0)
      close(fd);
    srv_error(r, 404, "no clip '%s'", rel);
    return -1;
  }
  return fd;
}

/*
** GET /clips/<path>: a regular file under --assets, with a single byte Range. The response
** (r->resp, queued by serve.c) owns the open file and streams it after the request has
** given its store connection back: a slow download holds none.
*/
void srv_clip(srv_req *r) {
  const char *rel = r->rest;
  struct stat sb;
  struct MHD_Response *resp;
  int64_t from = 0, to = 0;
  int fd, range;

  if ((fd = clip_open(r, rel, &sb)) < 0)
    return;
  range = parse_range(MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Range"),
                      (int64_t)sb.st_size, &from, &to);
  if (range < 0) {
    char cr[64];
    close(fd);
    srv_error(r, 416, "the requested range is outside the file (%lld bytes)",
              (long long)sb.st_size);
    resp = MHD_create_response_from_buffer(r->out.len, r->out.s, MHD_RESPMEM_MUST_COPY);
    if (!resp) {
      srv_error(r, 500, "out of memory");
      return;
    }
    snprintf(cr, sizeof cr, "bytes */%lld", (long long)sb.st_size);
    MHD_add_response_header(resp, "Content-Range", cr);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    r->resp = resp;
    return;
  }
  if (range == 0) {
    from = 0;
    to = (int64_t)sb.st_size - 1;
  }
  /* the response owns fd from here */
  resp = MHD_create_response_from_fd_at_offset64((uint64_t)(to - from + 1), fd, (uint64_t)from);
  if (!resp) {
    close(fd);
    srv_error(r, 500, "out of memory");
    return;
  }
  MHD_add_response_header(resp, "Content-Type", media_type(rel));
  MHD_add_response_header(resp, "Accept-Ranges", "bytes");
  if (range == 1) {
    char cr[96];
    snprintf(cr, sizeof cr, "bytes %lld-%lld/%lld", (long long)from, (long long)to,
             (long long)sb.st_size);
    MHD_add_response_header(resp, "Content-Range", cr);
  }
  r->resp = resp;
  r->status = range == 1 ? 206 : 200;
}
