/*
** serve.h: the review web server (an application over the library's public calls, in
** tools/serve/): annotators sign in with their token, read their view of a sample, watch
** each row's clip, edit and save rows, segment, set a sample's status; leads watch
** progress and agreement. A JSON API over libmicrohttpd with the page (HTML, CSS,
** JavaScript) built into the server.
*/
#ifndef RESCUE_SERVE_H
#define RESCUE_SERVE_H

#include "rescue_error.h"

typedef struct rescue_server rescue_server;

typedef struct rescue_serve_opts {
  const char *db;     /* corpus path */
  const char *listen; /* "host:port", "[v6]:port" or ":port" (NULL: 127.0.0.1:8080; port 0:
                          any free port, see rescue_serve_port) */
  const char *assets; /* folder served under /clips/ (clip output), or NULL */
  int connections;    /* workers for reads, each with its own store connection (0: 6);
                          writes have SRV_WRITERS more (tools/serve/serve_impl.h) and one
                          connection that commits them in groups */
  const char *tls_cert, *tls_key; /* PEM files: serve HTTPS (both or neither) */
  const char *public_hosts;       /* names (comma-separated) the Host header may carry
                                     beside loopback names when listening on loopback; the
                                     only ones otherwise (NULL: none) */
  int insecure_listen;            /* allow a non-loopback address without TLS */
  int session_idle, session_life; /* seconds a session lasts unused, and in all (0: 2 hours
                                     and 12 hours, README "Reviewing in the browser") */
} rescue_serve_opts;

/*
** Parse a listen address: *loopback (may be NULL) says whether it is a loopback address
** (127.0.0.0/8, ::1 or "localhost"). RESCUE_EINVAL with the reason otherwise.
*/
int rescue_serve_parse_listen(const char *listen, int *loopback, rescue_error *err);

/*
** Open the corpus and start serving in background threads. *out owns the server; stop it
** with rescue_serve_stop. Errors (a corpus that cannot be opened, an address in use, an
** assets folder that is missing, a TLS key or certificate that cannot be read, a
** non-loopback address without TLS and without insecure_listen) in err.
*/
int rescue_serve_start(const rescue_serve_opts *o, rescue_server **out, rescue_error *err);
/* The TCP port listened on (useful with port 0). */
int rescue_serve_port(const rescue_server *s);
/*
** Stop accepting, let requests in flight finish (every save is one transaction: none is
** left half-written), close the corpus and free the server; NULLs *s, accepts NULL.
*/
void rescue_serve_stop(rescue_server **s);

#endif
