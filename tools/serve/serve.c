/*
** serve.c: the review server's HTTP side (libmicrohttpd): the listen address, request
** bodies (1 MiB at most), store connections, the built-in page, the security headers on
** every response, starting and stopping. Routes are in serve_routes.c, signing in in
** serve_auth.c, clips in serve_clips.c, the API's resources in serve_<resource>.c.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <math.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>

#include "assets.h"
#include "rescue_alloc.h"
#include "serve_impl.h"

const char srv_csp[] =
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
    "media-src 'self'; connect-src 'self'; form-action 'self'; base-uri 'none'; "
    "frame-ancestors 'none'";

/* ---- listen addresses ---- */

/* Split "host:port" / "[v6]:port" / ":port" into host (may be "") and port. */
static int split_listen(const char *listen, char *host, size_t hostsz, long *port,
                        rescue_error *err) {
  const char *colon, *h = listen, *hend;
  char *end;
  if (listen[0] == '[') {
    hend = strchr(listen, ']');
    if (!hend || hend[1] != ':')
      return rescue_seterr(err, RESCUE_EINVAL, "'%s' is not an address: expected [addr]:port",
                           listen);
    h = listen + 1;
    colon = hend + 1;
  } else {
    colon = strrchr(listen, ':');
    if (!colon)
      return rescue_seterr(err, RESCUE_EINVAL, "'%s' is not an address: expected host:port",
                           listen);
    hend = colon;
  }
  if ((size_t)(hend - h) >= hostsz)
    return rescue_seterr(err, RESCUE_EINVAL, "'%s': host name too long", listen);
  memcpy(host, h, (size_t)(hend - h));
  host[hend - h] = 0;
  errno = 0;
  *port = strtol(colon + 1, &end, 10);
  if (!colon[1] || *end || errno || *port < 0 || *port > 65535)
    return rescue_seterr(err, RESCUE_EINVAL, "'%s': the port must be a number 0..65535", listen);
  return 0;
}

/* Resolve the listen address into ss (numeric addresses and "localhost" only). */
static int resolve_listen(const char *listen, struct sockaddr_storage *ss, int *loopback,
                          rescue_error *err) {
  char host[256];
  long port = 0;
  int rc;
  memset(ss, 0, sizeof *ss);
  if ((rc = split_listen(listen, host, sizeof host, &port, err)))
    return rc;
  if (!*host)
    strcpy(host, "0.0.0.0");
  if (strcmp(host, "localhost") == 0)
    strcpy(host, "127.0.0.1");
  {
    struct sockaddr_in *v4 = (struct sockaddr_in *)ss;
    struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)ss;
    if (inet_pton(AF_INET, host, &v4->sin_addr) == 1) {
      v4->sin_family = AF_INET;
      v4->sin_port = htons((uint16_t)port);
      *loopback = (ntohl(v4->sin_addr.s_addr) >> 24) == 127;
      return 0;
    }
    if (inet_pton(AF_INET6, host, &v6->sin6_addr) == 1) {
      v6->sin6_family = AF_INET6;
      v6->sin6_port = htons((uint16_t)port);
      *loopback = IN6_IS_ADDR_LOOPBACK(&v6->sin6_addr);
      return 0;
    }
  }
  return rescue_seterr(err, RESCUE_EINVAL,
                       "'%s': the host must be a numeric IPv4 or IPv6 address or localhost",
                       listen);
}

int rescue_serve_parse_listen(const char *listen, int *loopback, rescue_error *err) {
  struct sockaddr_storage ss;
  int lb = 0, rc = resolve_listen(listen, &ss, &lb, err);
  if (!rc && loopback)
    *loopback = lb;
  return rc;
}

/* ---- responses ---- */

int srv_error(srv_req *r, int status, const char *fmt, ...) {
  char msg[1200];
  va_list ap;
  rescue_jw w;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  rescue_buf_reset(&r->out);
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "error");
  rescue_jw_str(&w, msg);
  rescue_jw_end(&w);
  r->status = status;
  r->ctype = "application/json";
  return status;
}

/* The codes that split an older one off (NOGOLD from NOTFOUND, RESEGMENT from BADINPUT,
   RETIRED from INVAL, ...) answer with the older one's status. */
int srv_fail(srv_req *r, int code, const char *msg) {
  switch (code) {
  case RESCUE_ELOCKED:
  case RESCUE_EBUSY: r->retry_after = 2; return srv_error(r, 503, "%s", msg);
  case RESCUE_ENOANNOTATOR:
  case RESCUE_ENOGOLD:
  case RESCUE_ENOTFOUND: return srv_error(r, 404, "%s", msg);
  case RESCUE_EBADINPUT:
  case RESCUE_ERESEGMENT:
  case RESCUE_EFILERETIRED:
  case RESCUE_EOTHERTASK:
  case RESCUE_EPREDTASK:
  case RESCUE_EUNUSABLE:
  case RESCUE_ERETIRED:
  case RESCUE_ENOLEAD:
  case RESCUE_ELEADS:
  case RESCUE_ENOSPLIT:
  case RESCUE_EINVAL: return srv_error(r, 400, "%s", msg);
  case RESCUE_ECONFLICT: return srv_error(r, 409, "%s", msg);
  case RESCUE_ENOMEM: return srv_error(r, 500, "out of memory");
  default: return srv_error(r, 500, "%s", msg);
  }
}

int srv_is_lead(const srv_req *r) { return strcmp(r->who.role, "lead") == 0; }

int srv_int_member(srv_req *r, const rescue_jnode *obj, const char *key, int64_t *out) {
  const rescue_jnode *n = rescue_jget(obj, key);
  if (!n || n->type != RESCUE_JNUMBER || !n->is_int) {
    srv_error(r, 400, "'%s' must be an integer", key);
    return 0;
  }
  *out = strtoll(n->s, NULL, 10);
  return 1;
}

int srv_num_member(srv_req *r, const rescue_jnode *obj, const char *key, double *out) {
  const rescue_jnode *n = rescue_jget(obj, key);
  if (!n || n->type != RESCUE_JNUMBER || !isfinite(n->num)) {
    srv_error(r, 400, "'%s' must be a number", key);
    return 0;
  }
  *out = n->num;
  return 1;
}

const char *srv_arg(srv_req *r, const char *name) {
  return MHD_lookup_connection_value(r->c, MHD_GET_ARGUMENT_KIND, name);
}

const rescue_jnode *srv_body_json(srv_req *r, rescue_jdoc *doc) {
  rescue_jerror je;
  const rescue_jnode *root;
  if (!r->body.len) {
    srv_error(r, 400, "the request needs a JSON body");
    return NULL;
  }
  root = rescue_jparse(doc, r->body.s, r->body.len, &je);
  if (!root) {
    long line, col;
    rescue_jposition(r->body.s, r->body.len, je.offset, &line, &col);
    srv_error(r, 400, "malformed JSON at line %ld, column %ld: %s", line, col, je.msg);
    return NULL;
  }
  if (root->type != RESCUE_JOBJECT) {
    srv_error(r, 400, "the body must be a JSON object");
    return NULL;
  }
  return root;
}

/* Queue the response with the headers every response carries. */
static enum MHD_Result send_response(srv_req *r) {
  struct MHD_Response *resp = MHD_create_response_from_buffer(
      r->out.len, r->out.s ? r->out.s : (char *)"", MHD_RESPMEM_MUST_COPY);
  enum MHD_Result ret;
  if (!resp)
    return MHD_NO;
  MHD_add_response_header(resp, "Content-Type", r->ctype ? r->ctype : "application/json");
  MHD_add_response_header(resp, "Content-Security-Policy", srv_csp);
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(resp, "X-Frame-Options", "DENY");
  MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
  MHD_add_response_header(resp, "Cache-Control", "no-store");
  if (r->set_cookie[0])
    MHD_add_response_header(resp, "Set-Cookie", r->set_cookie);
  if (r->retry_after) {
    char ra[16];
    snprintf(ra, sizeof ra, "%d", r->retry_after);
    MHD_add_response_header(resp, "Retry-After", ra);
  }
  ret = MHD_queue_response(r->c, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- store connections ---- */

static rescue_store *pool_get(rescue_server *s) {
  rescue_store *st = NULL;
  int i;
  pthread_mutex_lock(&s->pool_mu);
  for (;;) {
    for (i = 0; i < s->n_pool; i++)
      if (!s->pool_busy[i]) {
        s->pool_busy[i] = 1;
        st = s->pool[i];
        break;
      }
    if (st)
      break;
    pthread_cond_wait(&s->pool_cv, &s->pool_mu);
  }
  pthread_mutex_unlock(&s->pool_mu);
  return st;
}

static void pool_put(rescue_server *s, rescue_store *st) {
  int i;
  if (!st)
    return;
  pthread_mutex_lock(&s->pool_mu);
  for (i = 0; i < s->n_pool; i++)
    if (s->pool[i] == st)
      s->pool_busy[i] = 0;
  pthread_cond_signal(&s->pool_cv);
  pthread_mutex_unlock(&s->pool_mu);
}

/* ---- the page ---- */

/*
** A GET or HEAD of one of the page's built-in files (tools/serve/assets.c): its bytes and
** Content-Type go into r's response and 1 is returned; 0 when url names none of them.
*/
static int serve_static(srv_req *r) {
  const srv_asset *a = srv_asset_find(r->url);
  if (!a)
    return 0;
  rescue_buf_putn(&r->out, a->data, *a->len);
  r->ctype = a->ctype;
  r->status = 200;
  return 1;
}

static void req_free(srv_req *r) {
  if (!r)
    return;
  if (r->st)
    pool_put(r->srv, r->st);
  rescue_buf_clear(&r->body);
  rescue_buf_clear(&r->out);
  rescue_free(r->sample_id);
  rescue_free(r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  rescue_server *s = cls;
  srv_req *r = *con_cls;

  if (!r) {
    const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
    r = rescue_calloc(1, sizeof *r);
    if (!r)
      return MHD_NO;
    r->srv = s;
    r->c = c;
    r->method = method;
    r->url = url;
    *con_cls = r;
    if (cl && strtoull(cl, NULL, 10) > SRV_MAX_BODY) {
      /* answered before the body is read: the connection closes after it */
      srv_error(r, 413, "the request body is larger than 1 MiB");
      return send_response(r);
    }
    return MHD_YES;
  }
  if (*upload_size) {
    if (!r->too_big && r->body.len + *upload_size > SRV_MAX_BODY)
      r->too_big = 1;
    if (!r->too_big)
      rescue_buf_putn(&r->body, upload, *upload_size);
    *upload_size = 0;
    return MHD_YES;
  }
  if (r->status)
    return MHD_YES; /* answered already (413 up front) */
  if (r->too_big) {
    srv_error(r, 413, "the request body is larger than 1 MiB");
    return send_response(r);
  }
  if (!rescue_buf_ok(&r->body)) {
    srv_error(r, 500, "out of memory");
    return send_response(r);
  }
  /* the page */
  if ((strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) && serve_static(r))
    return send_response(r);
  if (strncmp(url, "/api/", 5) != 0 && strncmp(url, "/clips/", 7) != 0) {
    srv_error(r, 404, "nothing at %s", url);
    return send_response(r);
  }
  r->st = pool_get(s);
  srv_dispatch(r);
  if (r->queued)
    return r->queued_result;
  if (!r->status)
    srv_error(r, 500, "no response");
  if (!rescue_buf_ok(&r->out))
    srv_error(r, 500, "out of memory");
  return send_response(r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  req_free(*con_cls);
  *con_cls = NULL;
}

/* ---- start / stop ---- */

static void server_free(rescue_server *s) {
  int i;
  if (!s)
    return;
  for (i = 0; i < s->n_pool; i++)
    rescue_store_close(&s->pool[i]);
  rescue_free(s->pool);
  rescue_free(s->pool_busy);
  srv_auth_stop(s);
  rescue_free(s->sessions);
  rescue_free(s->db);
  rescue_free(s->assets);
  free(s->assets_real);
  pthread_mutex_destroy(&s->pool_mu);
  pthread_cond_destroy(&s->pool_cv);
  pthread_mutex_destroy(&s->write_mu);
  pthread_mutex_destroy(&s->sess_mu);
  rescue_free(s);
}

int rescue_serve_start(const rescue_serve_opts *o, rescue_server **out, rescue_error *err) {
  rescue_server *s;
  struct sockaddr_storage ss;
  const union MHD_DaemonInfo *info;
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION | MHD_USE_POLL;
  int i, rc, loopback = 0;

  *out = NULL;
  if ((rc = resolve_listen(o->listen ? o->listen : "127.0.0.1:8080", &ss, &loopback, err)))
    return rc;
  if (!(s = rescue_calloc(1, sizeof *s)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  pthread_mutex_init(&s->pool_mu, NULL);
  pthread_cond_init(&s->pool_cv, NULL);
  pthread_mutex_init(&s->write_mu, NULL);
  pthread_mutex_init(&s->sess_mu, NULL);
  s->db = rescue_strdup(o->db);
  if (o->assets) {
    struct stat sb;
    s->assets = rescue_strdup(o->assets);
    s->assets_real = realpath(o->assets, NULL);
    if (!s->assets_real || stat(s->assets_real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
      rc = rescue_seterr(err, RESCUE_EIO, "the clip folder '%s' %s", o->assets,
                         s->assets_real ? "is not a folder" : strerror(errno));
      goto fail;
    }
  }
  s->n_pool = o->connections > 0 ? o->connections : 8;
  s->pool = rescue_calloc((size_t)s->n_pool, sizeof *s->pool);
  s->pool_busy = rescue_calloc((size_t)s->n_pool, sizeof *s->pool_busy);
  if (!s->db || !s->pool || !s->pool_busy) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  for (i = 0; i < s->n_pool; i++)
    if ((rc = rescue_store_open(&s->pool[i], o->db, RESCUE_OPEN_DURABLE, err)))
      goto fail;
  if ((rc = srv_watch_start(s, err)))
    goto fail;
  if (srv_auth_start(s)) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot start signing in (no entropy or threads)");
    goto fail;
  }
  if (ss.ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  s->daemon = MHD_start_daemon(flags, 0, NULL, NULL, handle, s, MHD_OPTION_SOCK_ADDR,
                               (struct sockaddr *)&ss, MHD_OPTION_NOTIFY_COMPLETED, completed, s,
                               MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)120,
                               MHD_OPTION_CONNECTION_LIMIT, (unsigned)256, MHD_OPTION_END);
  if (!s->daemon) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot listen on %s (address in use or not available)",
                       o->listen ? o->listen : "127.0.0.1:8080");
    goto fail;
  }
  info = MHD_get_daemon_info(s->daemon, MHD_DAEMON_INFO_BIND_PORT);
  s->port = info ? info->port : 0;
  *out = s;
  return 0;
fail:
  server_free(s);
  return rc;
}

int rescue_serve_port(const rescue_server *s) { return s->port; }

void rescue_serve_stop(rescue_server **sp) {
  rescue_server *s;
  if (!sp || !*sp)
    return;
  s = *sp;
  /* joins every connection thread: requests in flight finish first */
  MHD_stop_daemon(s->daemon);
  server_free(s);
  *sp = NULL;
}
