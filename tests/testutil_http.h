/*
** testutil_http.h: the HTTP/1.1 client of the suites that talk to the review server on a
** loopback port (check_serve.c, check_serve_auth.c, check_serve_net.c, check_waveform.c,
** check_curate.c):
** one request per connection ("Connection: close"), read until the server closes.
*/
#ifndef RESCUE_TESTUTIL_HTTP_H
#define RESCUE_TESTUTIL_HTTP_H

#include <check.h>
#include <stddef.h>

/* A parsed response. */
typedef struct tu_resp {
  int status;
  char *head; /* status line and headers, each line ending in "\r\n" */
  char *body; /* body_len bytes and a NUL */
  size_t body_len;
} tu_resp;

/*
** A TCP connection to 127.0.0.1:port from source address `from` (127.0.0.x; NULL: any),
** with send and receive timeouts of `secs` seconds (0: none); -1 when refused.
*/
int tu_http_dial(int port, const char *from, int secs);
/* Send all of s; 0 when the peer closed or the send timed out. */
int tu_http_send_all(int fd, const char *s, size_t n);
/*
** Read until the server closes or the timeout: what came, NUL-terminated (caller frees),
** its length in *len (may be NULL); *closed (may be NULL) says whether the server closed
** the connection (not a timeout).
*/
char *tu_http_read(int fd, size_t *len, int *closed);
/*
** One request on a fresh connection with timeouts of `secs` (0: none): Host 127.0.0.1
** unless headers ("Name: value\r\n" lines) give one; a body (blen bytes; NULL: none) is
** sent as application/json. The response text (caller frees; "" when none came), its length
** in *len (may be NULL). The send stops early when the server answers (413) and closes.
*/
char *tu_http_request(int port, int secs, const char *method, const char *path, const char *headers,
                      const char *body, size_t blen, size_t *len);
/* tu_http_request without timeouts, parsed; fails the test when no response came. */
tu_resp tu_http(int port, const char *method, const char *path, const char *headers,
                const char *body, size_t blen);
void tu_resp_free(tu_resp *r);
/* The status of a response text, -1 when there is none (no answer before the timeout). */
int tu_http_status(const char *text);
/*
** The value of header `name` (case-insensitive) in a response text or a tu_resp's head, in
** a static buffer; NULL when absent.
*/
const char *tu_http_header(const char *text, const char *name);
/* "Authorization: Bearer <tok>\r\n" in a ring of 4 thread-local buffers. */
const char *tu_bearer(const char *tok);

/* The status of tu_resp *r must be `want`; the body is shown when it is not. */
#define TU_EXPECT(r, want)                                                                         \
  ck_assert_msg((r)->status == (want), "status %d, want %d: %s", (r)->status, (want), (r)->body)

#endif
