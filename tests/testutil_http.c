/*
** testutil_http.c: the suites' HTTP/1.1 client (testutil_http.h).
*/
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "rescue_buf.h"
#include "testutil_http.h"

int tu_http_dial(int port, const char *from, int secs) {
  struct sockaddr_in a;
  struct timeval tv = {secs, 0};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  if (secs) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  if (from) {
    inet_pton(AF_INET, from, &a.sin_addr);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof a), 0);
  }
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int tu_http_send_all(int fd, const char *s, size_t n) {
  while (n) {
    ssize_t k = send(fd, s, n, MSG_NOSIGNAL);
    if (k <= 0)
      return 0;
    s += k;
    n -= (size_t)k;
  }
  return 1;
}

char *tu_http_read(int fd, size_t *len, int *closed) {
  rescue_buf in = RESCUE_BUF_INIT;
  char buf[65536];
  ssize_t n;
  while ((n = recv(fd, buf, sizeof buf, 0)) > 0)
    rescue_buf_putn(&in, buf, (size_t)n);
  if (closed)
    *closed = n == 0 || errno == ECONNRESET;
  rescue_buf_puts(&in, "");
  if (len)
    *len = in.len;
  return rescue_buf_detach(&in);
}

char *tu_http_request(int port, int secs, const char *method, const char *path, const char *headers,
                      const char *body, size_t blen, size_t *len) {
  rescue_buf req = RESCUE_BUF_INIT;
  int fd = tu_http_dial(port, NULL, secs);
  char *out;
  ck_assert_msg(fd >= 0, "no connection for %s %s", method, path);
  rescue_buf_printf(&req, "%s %s HTTP/1.1\r\n%sConnection: close\r\n%s", method, path,
                    headers && strstr(headers, "Host:") ? "" : "Host: 127.0.0.1\r\n",
                    headers ? headers : "");
  if (body)
    rescue_buf_printf(&req, "Content-Length: %zu\r\nContent-Type: application/json\r\n", blen);
  rescue_buf_puts(&req, "\r\n");
  if (body)
    rescue_buf_putn(&req, body, blen);
  tu_http_send_all(fd, req.s, req.len);
  rescue_buf_clear(&req);
  out = tu_http_read(fd, len, NULL);
  close(fd);
  return out;
}

tu_resp tu_http(int port, const char *method, const char *path, const char *headers,
                const char *body, size_t blen) {
  tu_resp r;
  size_t len;
  char *in = tu_http_request(port, 0, method, path, headers, body, blen, &len), *sep;
  memset(&r, 0, sizeof r);
  ck_assert_msg(len > 12, "no response to %s %s", method, path);
  r.status = atoi(in + 9);
  sep = strstr(in, "\r\n\r\n");
  ck_assert_ptr_nonnull(sep);
  r.head = strndup(in, (size_t)(sep - in) + 2);
  r.body_len = len - (size_t)(sep + 4 - in);
  r.body = malloc(r.body_len + 1);
  memcpy(r.body, sep + 4, r.body_len);
  r.body[r.body_len] = 0;
  free(in);
  return r;
}

void tu_resp_free(tu_resp *r) {
  free(r->head);
  free(r->body);
  memset(r, 0, sizeof *r);
}

int tu_http_status(const char *text) {
  return strncmp(text, "HTTP/1.", 7) == 0 ? atoi(text + 9) : -1;
}

const char *tu_http_header(const char *text, const char *name) {
  static char val[512];
  const char *p = text, *end = strstr(text, "\r\n\r\n");
  size_t n = strlen(name);
  while ((p = strstr(p, "\r\n")) && (!end || p < end)) {
    p += 2;
    if (strncasecmp(p, name, n) == 0 && p[n] == ':') {
      const char *e = strstr(p, "\r\n");
      p += n + 1;
      while (*p == ' ')
        p++;
      snprintf(val, sizeof val, "%.*s", (int)(e - p), p);
      return val;
    }
  }
  return NULL;
}

const char *tu_bearer(const char *tok) {
  static _Thread_local char buf[4][128];
  static _Thread_local int k;
  k = (k + 1) % 4;
  snprintf(buf[k], sizeof buf[k], "Authorization: Bearer %s\r\n", tok);
  return buf[k];
}
