/*
** benchhttp.c: the server benchmarks' HTTP client (benchhttp.h).
*/
#define _GNU_SOURCE /* strcasestr */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "benchhttp.h"

int bench_dial(int port, int from, int secs) {
  struct sockaddr_in a;
  struct timeval tv = {secs, 0};
  int fd = socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0)
    return -1;
  if (secs) {
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  }
  memset(&a, 0, sizeof a);
  a.sin_family = AF_INET;
  if (from) {
    a.sin_addr.s_addr = htonl(0x7f000000u | (unsigned)from);
    if (bind(fd, (struct sockaddr *)&a, sizeof a) != 0) {
      close(fd);
      return -1;
    }
  }
  a.sin_port = htons((uint16_t)port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/*
** Send req on fd and read one response into resp, the lengths of its head and body into
** *head and *need: 1 when the whole response (to its Content-Length) came, 0 when the
** connection closed or timed out first.
*/
static int exchange(int fd, const rescue_buf *req, rescue_buf *resp, size_t *head, size_t *need) {
  char buf[65536], *sep = NULL;
  size_t off;
  *need = 0;
  for (off = 0; off < req->len;) {
    ssize_t n = send(fd, req->s + off, req->len - off, MSG_NOSIGNAL);
    if (n <= 0)
      break;
    off += (size_t)n;
  }
  for (;;) {
    ssize_t n;
    if (sep && resp->len >= *head + *need)
      break;
    n = recv(fd, buf, sizeof buf, 0);
    if (n <= 0)
      break;
    rescue_buf_putn(resp, buf, (size_t)n);
    if (!sep && (sep = strstr(resp->s, "\r\n\r\n")) != NULL) {
      const char *cl = strcasestr(resp->s, "\r\nContent-Length:");
      *head = (size_t)(sep + 4 - resp->s);
      *need = cl && cl < sep ? (size_t)strtoul(cl + 17, NULL, 10) : 0;
    }
  }
  return sep && resp->len >= *head + *need;
}

int bench_http(int port, int *fd, const char *method, const char *path, const char *token,
               const char *body, size_t blen, rescue_buf *resp) {
  rescue_buf req = RESCUE_BUF_INIT;
  size_t head = 0, need = 0;
  int ok = 0, attempt, status;
  rescue_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\n", method, path);
  if (token)
    rescue_buf_printf(&req, "Authorization: Bearer %s\r\n", token);
  if (body)
    rescue_buf_printf(&req, "Content-Length: %zu\r\n", blen);
  rescue_buf_puts(&req, "\r\n");
  if (body)
    rescue_buf_putn(&req, body, blen);
  for (attempt = 0; attempt < 2 && !ok; attempt++) {
    rescue_buf_reset(resp);
    if (*fd < 0 && (*fd = bench_dial(port, 0, 0)) < 0)
      break;
    if (!(ok = exchange(*fd, &req, resp, &head, &need))) {
      close(*fd); /* closed under us (a kept-alive connection timed out): once more */
      *fd = -1;
    }
  }
  rescue_buf_clear(&req);
  if (!ok)
    return -1;
  status = atoi(resp->s + 9);
  memmove(resp->s, resp->s + head, need);
  resp->len = need;
  resp->s[need] = 0;
  return status;
}

int bench_request(int port, int secs, const char *method, const char *path, const char *token,
                  const char *body) {
  rescue_buf req = RESCUE_BUF_INIT, resp = RESCUE_BUF_INIT;
  size_t head = 0, need = 0;
  int fd = bench_dial(port, 0, secs), status = -1;
  if (fd < 0)
    return -1;
  rescue_buf_printf(&req,
                    "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s%s%s"
                    "Content-Length: %zu\r\nContent-Type: application/json\r\n\r\n%s",
                    method, path, token ? "Authorization: Bearer " : "", token ? token : "",
                    token ? "\r\n" : "", body ? strlen(body) : 0, body ? body : "");
  exchange(fd, &req, &resp, &head, &need);
  if (resp.len > 12 && strncmp(resp.s, "HTTP/1.", 7) == 0)
    status = atoi(resp.s + 9);
  close(fd);
  rescue_buf_clear(&req);
  rescue_buf_clear(&resp);
  return status;
}
