/*
** benchhttp.h: the HTTP client the server benchmarks share (bench_serve, bench_serve_net):
** connections to a server on loopback, a request on a kept-alive connection as a browser
** makes it, and a request on a connection of its own with a bound on the wait.
*/
#ifndef RESCUE_BENCHHTTP_H
#define RESCUE_BENCHHTTP_H

#include <stddef.h>

#include "rescue.h"

/*
** A connection to 127.0.0.1:port from 127.0.0.<from> (0: any address), with receive and
** send timeouts of secs (0: none); -1 when refused.
*/
int bench_dial(int port, int from, int secs);

/*
** One request on the kept-alive connection *fd (-1: connect first; reconnects once when
** the server closed it), as a browser does: with "Authorization: Bearer <token>" (token
** NULL: none) and the body of blen bytes (NULL: none). Returns the status with the body in
** *resp, or -1 when no whole response came.
*/
int bench_http(int port, int *fd, const char *method, const char *path, const char *token,
               const char *body, size_t blen, rescue_buf *resp);

/*
** One request (Connection: close, a JSON body or none) on a connection of its own with
** timeouts of secs: the status, -1 when none came.
*/
int bench_request(int port, int secs, const char *method, const char *path, const char *token,
                  const char *body);

#endif
