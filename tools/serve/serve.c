/*
** serve.c: the review server's HTTP side (libmicrohttpd): the listen address, the Host
** check, request heads (a deadline) and bodies (1 MiB at most), the workers that run API
** requests with their store connections while the connections wait suspended, bounded
** waits for the store, writes committed in groups (one sync for the saves waiting at
** once), the built-in page, the security headers on every response, TLS, starting and
** stopping. Routes are in serve_routes.c, signing in in serve_auth.c, clips in
** serve_clips.c, the API's resources in serve_<resource>.c.
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
#include <strings.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

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

void srv_addr_key(const struct sockaddr *sa, char out[SRV_ADDR_KEY]) {
  snprintf(out, SRV_ADDR_KEY, "?");
  if (sa && sa->sa_family == AF_INET) {
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, SRV_ADDR_KEY);
  } else if (sa && sa->sa_family == AF_INET6) {
    struct in6_addr a = ((const struct sockaddr_in6 *)sa)->sin6_addr;
    if (IN6_IS_ADDR_V4MAPPED(&a)) {
      inet_ntop(AF_INET, &a.s6_addr[12], out, SRV_ADDR_KEY);
      return;
    }
    memset(&a.s6_addr[8], 0, 8);
    if (inet_ntop(AF_INET6, &a, out, SRV_ADDR_KEY - 3))
      strcat(out, "/64");
  }
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
  case RESCUE_EBUSY:
    r->handoff |= r->quick; /* a worker may wait where the connection's thread may not */
    r->retry_after = 2;
    return srv_error(r, 503, "%s", msg);
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
  const rescue_jnode *root, *n;
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
  for (n = root->child; n; n = n->next)
    if (n->type == RESCUE_JSTRING && n->len > SRV_MAX_TEXT) {
      srv_error(r, 400, "'%s' is longer than %d bytes", n->key, SRV_MAX_TEXT);
      return NULL;
    }
  return root;
}

void srv_security_headers(struct MHD_Response *resp) {
  MHD_add_response_header(resp, "Content-Security-Policy", srv_csp);
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(resp, "X-Frame-Options", "DENY");
  MHD_add_response_header(resp, "Referrer-Policy", "no-referrer");
  MHD_add_response_header(resp, "Cross-Origin-Resource-Policy", "same-origin");
  MHD_add_response_header(resp, "Cache-Control", "private, no-store");
}

/* Queue the response (the handler's own, or r->out) with the headers every response carries. */
static enum MHD_Result send_response(srv_req *r) {
  struct MHD_Response *resp = r->resp;
  enum MHD_Result ret;
  if (!resp) {
    /* the body's buffer goes to libmicrohttpd as it is (no copy), freed when sent */
    size_t len = r->out.len;
    char *body = rescue_buf_detach(&r->out);
    if (!body)
      return MHD_NO;
    resp = MHD_create_response_from_buffer_with_free_callback(len, body, rescue_free);
    if (!resp) {
      rescue_free(body);
      return MHD_NO;
    }
    MHD_add_response_header(resp, "Content-Type", r->ctype ? r->ctype : "application/json");
  }
  r->resp = NULL;
  srv_security_headers(resp);
  if (r->set_cookie[0]) {
    /* over HTTPS the browser never sends the cookie over plain HTTP */
    if (r->srv->tls && !strstr(r->set_cookie, "; Secure"))
      strncat(r->set_cookie, "; Secure", sizeof r->set_cookie - strlen(r->set_cookie) - 1);
    MHD_add_response_header(resp, "Set-Cookie", r->set_cookie);
  }
  if (r->retry_after) {
    char ra[16];
    snprintf(ra, sizeof ra, "%d", r->retry_after);
    MHD_add_response_header(resp, "Retry-After", ra);
  }
  ret = MHD_queue_response(r->c, (unsigned)r->status, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- waiting for the store ---- */

/* 1 when the request's deadline has passed. */
static int past_deadline(const srv_req *r) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return now.tv_sec > r->deadline.tv_sec ||
         (now.tv_sec == r->deadline.tv_sec && now.tv_nsec >= r->deadline.tv_nsec);
}

/* Set the 503 for a request that waited its SRV_WAIT_S for the store; returns 0. */
static int corpus_busy(srv_req *r) {
  r->retry_after = 2;
  srv_error(r, 503, "corpus busy: another writer held it for more than %d s; try again",
            SRV_WAIT_S);
  return 0;
}

/* The time left before the request's deadline, in milliseconds. */
static long long ms_left(const srv_req *r) {
  struct timespec now;
  clock_gettime(CLOCK_REALTIME, &now);
  return (long long)(r->deadline.tv_sec - now.tv_sec) * 1000 +
         (r->deadline.tv_nsec - now.tv_nsec) / 1000000;
}

int srv_write_lock(srv_req *r) {
  rescue_server *s = r->srv;
  rescue_store *w = s->pool[0];
  long long ms;
  int rc;
  /* the request's reads so far were one snapshot; what it reads after its write is the
     latest store */
  rescue_store_read_end(r->st);
  __atomic_add_fetch(&s->write_waiting, 1, __ATOMIC_SEQ_CST);
  rc = pthread_mutex_timedlock(&s->write_mu, &r->deadline);
  __atomic_sub_fetch(&s->write_waiting, 1, __ATOMIC_SEQ_CST);
  if (rc != 0) {
    pthread_cond_broadcast(&s->commit_cv); /* a group left open for this writer commits */
    return corpus_busy(r);
  }
  if ((ms = ms_left(r)) <= 0) {
    pthread_mutex_unlock(&s->write_mu);
    pthread_cond_broadcast(&s->commit_cv);
    return corpus_busy(r);
  }
  rescue_store_busy_timeout(w, (int)ms);
  if (!s->group_open && rescue_store_group_begin(w) != 0) {
    rescue_store_busy_timeout(w, 0);
    pthread_mutex_unlock(&s->write_mu);
    pthread_cond_broadcast(&s->commit_cv);
    return corpus_busy(r);
  }
  s->group_open = 1;
  r->own_st = r->st;
  r->st = w;
  return 1;
}

/*
** Commit the open group (under write_mu): one sync of the log for every write it holds;
** each request of it learns whether its write is stored.
*/
static void group_commit(rescue_server *s) {
  srv_req *q, *next, *group = s->group;
  int rc, synced = 1;
  if (!s->group_open)
    return; /* committed while its syncing thread let go of write_mu */
  if ((rc = rescue_store_group_commit(s->pool[0])))
    fprintf(stderr, "rescue serve: a commit failed, %s: its saves were answered 503\n",
            rescue_store_errmsg(s->pool[0]));
  s->group = NULL;
  s->group_open = 0;
  rescue_store_busy_timeout(s->pool[0], 0);
  if (!rc && s->sync_deferred) {
    /* the log is synced without the lock: the next group writes meanwhile */
    pthread_mutex_unlock(&s->write_mu);
    if (rescue_store_sync(s->pool[0])) {
      synced = 0;
      fprintf(stderr, "rescue serve: syncing the log failed (%s): its saves were answered 503\n",
              strerror(errno));
    }
    pthread_mutex_lock(&s->write_mu);
  }
  for (q = group; q; q = next) {
    next = q->group_next;
    q->group_next = NULL;
    q->in_group = 0;
    q->committed = 1;
    q->commit_failed |= rc != 0;
    q->sync_failed |= !synced;
  }
  pthread_cond_broadcast(&s->commit_cv);
}

void srv_write_unlock(srv_req *r) {
  rescue_server *s = r->srv;
  struct timespec t;
  *rescue_store_err(r->own_st) = *rescue_store_err(r->st); /* the handler reads it after */
  r->st = r->own_st;
  r->own_st = NULL;
  r->committed = 0;
  if (!r->in_group) {
    r->group_next = s->group;
    s->group = r;
    r->in_group = 1;
  }
  /* the last writer of a burst commits; the others wait for it */
  if (!__atomic_load_n(&s->write_waiting, __ATOMIC_SEQ_CST))
    group_commit(s);
  while (!r->committed) {
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_nsec += 20 * 1000000; /* a writer that gave up waiting sends no signal in time */
    if (t.tv_nsec >= 1000000000)
      t.tv_sec++, t.tv_nsec -= 1000000000;
    pthread_cond_timedwait(&s->commit_cv, &s->write_mu, &t);
    if (!r->committed && !__atomic_load_n(&s->write_waiting, __ATOMIC_SEQ_CST))
      group_commit(s);
  }
  pthread_mutex_unlock(&s->write_mu);
}

/*
** A worker: takes requests from its lane, runs each with its own store connection and
** resumes the connection, whose thread then queues the response. A request that waited
** past its deadline in the queue gets 503 without running.
*/
struct srv_worker {
  rescue_server *s;
  pthread_t th;
  int lane, store;
};

static void *worker_main(void *arg) {
  struct srv_worker *w = arg;
  srv_lane *l = &w->s->lane[w->lane];
  srv_req *r;
  for (;;) {
    pthread_mutex_lock(&l->mu);
    while (!l->head && !l->stopping)
      pthread_cond_wait(&l->cv, &l->mu);
    if (!(r = l->head)) {
      pthread_mutex_unlock(&l->mu);
      return NULL;
    }
    if (!(l->head = r->next))
      l->tail = NULL;
    pthread_mutex_unlock(&l->mu);
    if (past_deadline(r)) {
      corpus_busy(r);
    } else {
      r->st = w->s->pool[w->store];
      /* one snapshot for the request's reads (its write, if any, ends it: srv_write_lock) */
      rescue_store_read_begin(r->st);
      srv_dispatch(r);
      rescue_store_read_end(w->s->pool[w->store]);
      r->st = NULL; /* a clip streams after this, holding no store connection */
      if (r->commit_failed || r->sync_failed) {
        if (r->resp)
          MHD_destroy_response(r->resp), r->resp = NULL;
        r->retry_after = 2;
        if (r->commit_failed)
          srv_error(r, 503,
                    "the write could not be committed: nothing of it was stored; try "
                    "again");
        else
          srv_error(r, 503,
                    "the write could not be synced to disk: it may be lost in a power cut; "
                    "check the disk and save again");
      }
    }
    r->done = 1;
    MHD_resume_connection(r->c);
  }
}

/*
** Hand the request to a worker of its lane: reads (GET, HEAD, signing in and out) and
** writes wait apart. The connection is suspended first (under the lane's lock, so no
** worker resumes it before): 0 when the server is stopping and nothing was queued.
*/
static int enqueue(srv_req *r) {
  int write = strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0 &&
              strcmp(r->url, "/api/login") != 0 && strcmp(r->url, "/api/logout") != 0;
  srv_lane *l = &r->srv->lane[write];
  pthread_mutex_lock(&l->mu);
  if (l->stopping) {
    pthread_mutex_unlock(&l->mu);
    return 0;
  }
  clock_gettime(CLOCK_REALTIME, &r->deadline);
  r->deadline.tv_sec += SRV_WAIT_S;
  MHD_suspend_connection(r->c);
  if (l->tail)
    l->tail->next = r;
  else
    l->head = r;
  l->tail = r;
  pthread_cond_signal(&l->cv);
  pthread_mutex_unlock(&l->mu);
  return 1;
}

/*
** Undo what a quick run left in r (the caller, the route's parts, the answer), so that a
** worker runs the request again from its start.
*/
static void req_reset(srv_req *r) {
  if (r->resp)
    MHD_destroy_response(r->resp), r->resp = NULL;
  rescue_buf_reset(&r->out);
  rescue_free(r->sample_id);
  r->sample_id = NULL;
  memset(&r->who, 0, sizeof r->who);
  r->position = 0;
  r->rest = NULL;
  r->every = 0;
  r->view_id = 0;
  r->view_name = NULL;
  r->status = 0;
  r->ctype = NULL;
  r->set_cookie[0] = 0;
  r->retry_after = 0;
  r->handoff = 0;
  r->access_gen = 0;
}

/*
** A quick read (srv_route.quick, e.g. a kept sample) on the connection's own thread, with
** a store connection of its own that never waits for a lock: 1 when answered. 0 when the
** route is not quick, both quick connections are in use, or the run met a lock it would
** have waited for or work too slow for this thread (a sample to load): r is as it came,
** for a worker. Saves the two hand-offs (to a worker and back) a read costs otherwise.
*/
static int run_quick(srv_req *r) {
  rescue_server *s = r->srv;
  struct srv_quick *q = NULL;
  int i, handoff;
  if (strcmp(r->method, "GET") != 0 || !srv_route_quick(r))
    return 0;
  for (i = 0; i < SRV_THREADS && !q; i++)
    if (s->quick[i].st && pthread_mutex_trylock(&s->quick[i].mu) == 0)
      q = &s->quick[i];
  if (!q)
    return 0;
  q->would_wait = 0;
  r->quick = 1;
  r->st = q->st;
  clock_gettime(CLOCK_REALTIME, &r->deadline);
  r->deadline.tv_sec += SRV_WAIT_S;
  if (rescue_store_read_begin(r->st) == 0)
    srv_dispatch(r);
  else
    r->handoff = 1;
  rescue_store_read_end(r->st);
  r->st = NULL;
  r->quick = 0;
  handoff = r->handoff || q->would_wait;
  pthread_mutex_unlock(&q->mu);
  if (handoff)
    req_reset(r);
  return !handoff;
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

/* ---- the request head's deadline ---- */

/* An open connection: since when it has been waiting for a whole request, head and body
   (0: it has one), and its client's address key (srv_addr_key). */
struct srv_conn {
  struct srv_conn *next, **prev;
  int fd;
  time_t head_since;
  char key[SRV_ADDR_KEY];
  int over; /* past SRV_PER_ADDRESS: shut down at once, not counted */
};

/* Under conn_mu: the open connections counted against key. */
static int conns_from(const rescue_server *s, const char *key) {
  const struct srv_conn *k;
  int n = 0;
  for (k = s->conns; k; k = k->next)
    n += !k->over && strcmp(k->key, key) == 0;
  return n;
}

/*
** libmicrohttpd's accept policy: a client with SRV_PER_ADDRESS connections open under its
** address key (an IPv6 client by its /64) gets no more; the socket is closed at once.
*/
static enum MHD_Result conn_accept(void *cls, const struct sockaddr *addr, socklen_t addrlen) {
  rescue_server *s = cls;
  char key[SRV_ADDR_KEY];
  int n;
  (void)addrlen;
  srv_addr_key(addr, key);
  pthread_mutex_lock(&s->conn_mu);
  n = conns_from(s, key);
  pthread_mutex_unlock(&s->conn_mu);
  return n < SRV_PER_ADDRESS ? MHD_YES : MHD_NO;
}

/* The connection's srv_conn, or NULL. */
static struct srv_conn *conn_of(struct MHD_Connection *c) {
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return ci ? (struct srv_conn *)ci->socket_context : NULL;
}

/* The connection has its whole request (at == 0), or waits for the next one from at. */
static void conn_head(rescue_server *s, struct MHD_Connection *c, time_t at) {
  struct srv_conn *k = conn_of(c);
  if (!k)
    return;
  pthread_mutex_lock(&s->conn_mu);
  k->head_since = at;
  pthread_mutex_unlock(&s->conn_mu);
}

/*
** libmicrohttpd's connection notification: track each connection from its start. The
** count per address key is made here, under conn_mu (conn_accept only looks, so two
** threads accepting at once may both pass it): a connection past SRV_PER_ADDRESS is shut
** down before it is read.
*/
static void conn_notify(void *cls, struct MHD_Connection *c, void **socket_context,
                        enum MHD_ConnectionNotificationCode code) {
  rescue_server *s = cls;
  struct srv_conn *k = *socket_context;
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    const union MHD_ConnectionInfo *ci =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *ca =
        MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    if (!ci || !(k = rescue_calloc(1, sizeof *k)))
      return;
    k->fd = ci->connect_fd;
    k->head_since = time(NULL);
    srv_addr_key(ca ? ca->client_addr : NULL, k->key);
    pthread_mutex_lock(&s->conn_mu);
    if (conns_from(s, k->key) >= SRV_PER_ADDRESS) {
      k->over = 1;
      k->head_since = 0;
      shutdown(k->fd, SHUT_RDWR);
    }
    k->next = s->conns;
    k->prev = &s->conns;
    if (s->conns)
      s->conns->prev = &k->next;
    s->conns = k;
    pthread_mutex_unlock(&s->conn_mu);
    *socket_context = k;
  } else if (k) {
    /* before libmicrohttpd closes the socket: the reaper never touches a reused fd */
    pthread_mutex_lock(&s->conn_mu);
    *k->prev = k->next;
    if (k->next)
      k->next->prev = k->prev;
    pthread_mutex_unlock(&s->conn_mu);
    rescue_free(k);
    *socket_context = NULL;
  }
}

/*
** The reaper: once a second, shut down connections that have waited SRV_HEAD_S for a
** whole request, head and body (libmicrohttpd then closes them); the inactivity timeout
** alone would let a client that sends a byte every few seconds keep a connection forever.
*/
static void *reaper_main(void *arg) {
  rescue_server *s = arg;
  pthread_mutex_lock(&s->conn_mu);
  while (!s->reaper_stop) {
    struct timespec t;
    struct srv_conn *k;
    time_t now = time(NULL);
    for (k = s->conns; k; k = k->next)
      if (k->head_since && now - k->head_since >= SRV_HEAD_S) {
        shutdown(k->fd, SHUT_RDWR);
        k->head_since = 0;
      }
    clock_gettime(CLOCK_REALTIME, &t);
    t.tv_sec += 1;
    pthread_cond_timedwait(&s->conn_cv, &s->conn_mu, &t);
  }
  pthread_mutex_unlock(&s->conn_mu);
  return NULL;
}

static void req_free(srv_req *r) {
  if (!r)
    return;
  if (r->resp)
    MHD_destroy_response(r->resp);
  rescue_buf_clear(&r->body);
  rescue_buf_clear(&r->out);
  rescue_free(r->sample_id);
  rescue_free(r);
}

/* 1 when name (a Host header without its port) is one of the comma-separated names. */
static int host_listed(const char *names, const char *name, size_t len) {
  const char *p = names;
  while (p && *p) {
    size_t n = strcspn(p, ",");
    if (n == len && strncasecmp(p, name, len) == 0)
      return 1;
    p += n;
    if (*p == ',')
      p++;
  }
  return 0;
}

/*
** Is the Host header one this server answers to? On loopback any loopback name with any
** port (an SSH tunnel forwards another port); otherwise the --public-host names. A page
** reached under another name (DNS rebinding) gets 421.
*/
static int host_ok(const rescue_server *s, const char *host) {
  size_t len;
  if (!host || !*host)
    return 0;
  if (host[0] == '[') {
    const char *e = strchr(host, ']');
    if (!e)
      return 0;
    len = (size_t)(e - host) + 1;
  } else {
    len = strcspn(host, ":");
  }
  if (s->public_hosts && host_listed(s->public_hosts, host, len))
    return 1;
  if (!s->loopback)
    return 0;
  if ((len == 9 && strncasecmp(host, "localhost", 9) == 0) ||
      (len == 5 && strncmp(host, "[::1]", 5) == 0))
    return 1;
  {
    char v4[16];
    struct in_addr a;
    if (len >= sizeof v4)
      return 0;
    memcpy(v4, host, len);
    v4[len] = 0;
    return inet_pton(AF_INET, v4, &a) == 1 && (ntohl(a.s_addr) >> 24) == 127;
  }
}

/* The first call for a request (its head is in): Host, an announced oversize body. */
static enum MHD_Result request_head(rescue_server *s, struct MHD_Connection *c, const char *url,
                                    const char *method, void **con_cls) {
  const char *cl = MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Content-Length");
  srv_req *r = rescue_calloc(1, sizeof *r);
  if (!r)
    return MHD_NO;
  r->srv = s;
  r->c = c;
  r->method = method;
  r->url = url;
  *con_cls = r;
  if (!host_ok(s, MHD_lookup_connection_value(c, MHD_HEADER_KIND, "Host"))) {
    srv_error(r, 421, "this server does not answer to that Host name (see --public-host)");
    return send_response(r);
  }
  if (cl && strtoull(cl, NULL, 10) > SRV_MAX_BODY) {
    /* answered before the body is read: the connection closes after it */
    srv_error(r, 413, "the request body is larger than 1 MiB");
    return send_response(r);
  }
  return MHD_YES;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  rescue_server *s = cls;
  srv_req *r = *con_cls;

  if (!r)
    return request_head(s, c, url, method, con_cls);
  if (r->done)
    return send_response(r); /* a worker answered and resumed the connection */
  if (*upload_size) {
    size_t n = *upload_size;
    *upload_size = 0;
    if (r->status)
      return MHD_YES; /* answered already (421, 413 up front) */
    if (r->body.len + n > SRV_MAX_BODY)
      /* a chunked body past the limit: libmicrohttpd 0.9.75 cannot queue a response while
         it reads a body, so the connection is closed at once and the rest never read */
      return MHD_NO;
    rescue_buf_putn(&r->body, upload, n);
    return MHD_YES;
  }
  conn_head(s, c, 0); /* the whole request is in: its deadline is over */
  if (r->status)
    return MHD_YES; /* answered already */
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
  if (run_quick(r))
    return send_response(r);
  if (enqueue(r))
    return MHD_YES;
  r->retry_after = 2;
  srv_error(r, 503, "the server is stopping");
  return send_response(r);
}

static void completed(void *cls, struct MHD_Connection *c, void **con_cls,
                      enum MHD_RequestTerminationCode toe) {
  req_free(*con_cls);
  *con_cls = NULL;
  conn_head(cls, c, time(NULL)); /* kept alive: the next head has its own deadline */
}

/* ---- start / stop ---- */

/* Stop the workers once their queues are empty (every queued request is answered). */
static void workers_stop(rescue_server *s) {
  int i, k;
  for (k = 0; k < 2; k++) {
    pthread_mutex_lock(&s->lane[k].mu);
    s->lane[k].stopping = 1;
    pthread_cond_broadcast(&s->lane[k].cv);
    pthread_mutex_unlock(&s->lane[k].mu);
  }
  for (i = 0; i < s->n_started; i++)
    pthread_join(s->workers[i].th, NULL);
  s->n_started = 0;
}

static void server_free(rescue_server *s) {
  int i;
  if (!s)
    return;
  workers_stop(s);
  if (s->reaper_started) {
    pthread_mutex_lock(&s->conn_mu);
    s->reaper_stop = 1;
    pthread_cond_signal(&s->conn_cv);
    pthread_mutex_unlock(&s->conn_mu);
    pthread_join(s->reaper, NULL);
  }
  for (i = 0; i < s->n_pool; i++)
    rescue_store_close(&s->pool[i]);
  rescue_free(s->pool);
  for (i = 0; i < SRV_THREADS; i++) {
    rescue_store_close(&s->quick[i].st);
    pthread_mutex_destroy(&s->quick[i].mu);
  }
  rescue_free(s->workers);
  srv_auth_stop(s);
  rescue_free(s->sessions);
  rescue_free(s->db);
  rescue_free(s->assets);
  rescue_free(s->public_hosts);
  free(s->assets_real);
  for (i = 0; i < 2; i++) {
    pthread_mutex_destroy(&s->lane[i].mu);
    pthread_cond_destroy(&s->lane[i].cv);
  }
  srv_wave_drop(s);
  pthread_mutex_destroy(&s->wave_mu);
  srv_cache_drop(s);
  pthread_mutex_destroy(&s->cache_mu);
  srv_access_free(s);
  pthread_mutex_destroy(&s->write_mu);
  pthread_cond_destroy(&s->commit_cv);
  pthread_mutex_destroy(&s->sess_mu);
  pthread_mutex_destroy(&s->conn_mu);
  pthread_cond_destroy(&s->conn_cv);
  rescue_free(s);
}

/*
** Start the workers, each with a store connection of its own (pool[i + 1]): SRV_WRITERS
** for writes (they check a save with their own connection, write through the group writer
** one at a time and wait for the group's commit together), the others for reads.
*/
static int workers_start(rescue_server *s, rescue_error *err) {
  int i;
  s->n_workers = s->n_pool - 1;
  if (!(s->workers = rescue_calloc((size_t)s->n_workers, sizeof *s->workers)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  for (i = 0; i < s->n_workers; i++) {
    s->workers[i].s = s;
    s->workers[i].lane = i < SRV_WRITERS ? 1 : 0;
    s->workers[i].store = i + 1;
    if (pthread_create(&s->workers[i].th, NULL, worker_main, &s->workers[i]) != 0)
      return rescue_seterr(err, RESCUE_EIO, "cannot start the server's worker threads");
    s->n_started++;
  }
  return 0;
}

/* Read a PEM file into a NUL-terminated buffer (caller frees); NULL after setting err. */
static char *read_pem(const char *path, const char *what, rescue_error *err) {
  FILE *f = fopen(path, "rb");
  rescue_buf b = RESCUE_BUF_INIT;
  char chunk[4096];
  size_t n;
  if (!f) {
    rescue_seterr(err, RESCUE_EIO, "%s '%s': %s", what, path, strerror(errno));
    return NULL;
  }
  while ((n = fread(chunk, 1, sizeof chunk, f)) > 0)
    rescue_buf_putn(&b, chunk, n);
  fclose(f);
  if (!rescue_buf_ok(&b) || !b.len) {
    rescue_buf_clear(&b);
    rescue_seterr(err, RESCUE_EIO, "%s '%s' is empty or unreadable", what, path);
    return NULL;
  }
  return rescue_buf_detach(&b);
}

/*
** Start libmicrohttpd: its event loop (epoll) in a pool of threads that never wait for the
** store, at most SRV_PER_ADDRESS connections from one address key (conn_accept and
** conn_notify count them: libmicrohttpd's own per-IP limit counts each IPv6 address
** alone, so one client with a /64 would escape it), SRV_IDLE_S of silence
** closes a connection, 32 KiB for the request head (431/414 beyond), HTTPS with the key
** and certificate when given.
*/
static int daemon_start(rescue_server *s, const rescue_serve_opts *o, struct sockaddr_storage *ss,
                        rescue_error *err) {
  unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME;
  char *cert = NULL, *key = NULL;
  int rc = 0;
  if (ss->ss_family == AF_INET6)
    flags |= MHD_USE_IPv6;
  if (o->tls_cert || o->tls_key) {
    if (!o->tls_cert || !o->tls_key)
      return rescue_seterr(err, RESCUE_EINVAL, "TLS needs both a certificate and its key");
    if (!(cert = read_pem(o->tls_cert, "the TLS certificate", err)) ||
        !(key = read_pem(o->tls_key, "the TLS key", err))) {
      rescue_free(cert);
      return RESCUE_EIO;
    }
    flags |= MHD_USE_TLS;
    s->tls = 1;
  }
  s->daemon = MHD_start_daemon(
      flags, 0, conn_accept, s, handle, s, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)ss,
      MHD_OPTION_NOTIFY_COMPLETED, completed, s, MHD_OPTION_NOTIFY_CONNECTION, conn_notify, s,
      MHD_OPTION_THREAD_POOL_SIZE, (unsigned)SRV_THREADS, MHD_OPTION_CONNECTION_TIMEOUT,
      (unsigned)SRV_IDLE_S, MHD_OPTION_CONNECTION_LIMIT, (unsigned)SRV_MAX_CONNECTIONS,
      MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)(32 * 1024),
      s->tls ? MHD_OPTION_HTTPS_MEM_CERT : MHD_OPTION_END, cert, MHD_OPTION_HTTPS_MEM_KEY, key,
      MHD_OPTION_END);
  if (!s->daemon)
    rc = rescue_seterr(err, RESCUE_EIO,
                       s->tls ? "cannot listen on %s (address in use or not available, or the "
                                "TLS certificate and key do not match)"
                              : "cannot listen on %s (address in use or not available)",
                       o->listen ? o->listen : "127.0.0.1:8080");
  rescue_free(cert);
  rescue_free(key);
  return rc;
}

/* The clip folder: kept with its real path (clips never leave it). */
static int assets_open(rescue_server *s, const char *assets, rescue_error *err) {
  struct stat sb;
  s->assets = rescue_strdup(assets);
  s->assets_real = realpath(assets, NULL);
  if (!s->assets_real || stat(s->assets_real, &sb) != 0 || !S_ISDIR(sb.st_mode))
    return rescue_seterr(err, RESCUE_EIO, "the clip folder '%s' %s", assets,
                         s->assets_real ? "is not a folder" : strerror(errno));
  return 0;
}

int rescue_serve_start(const rescue_serve_opts *o, rescue_server **out, rescue_error *err) {
  rescue_server *s;
  struct sockaddr_storage ss;
  const union MHD_DaemonInfo *info;
  int i, rc, loopback = 0;

  *out = NULL;
  if ((rc = resolve_listen(o->listen ? o->listen : "127.0.0.1:8080", &ss, &loopback, err)))
    return rc;
  if (!loopback && !(o->tls_cert && o->tls_key) && !o->insecure_listen)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "%s can be reached from other machines and without TLS sign-in "
                         "tokens and session cookies would travel in clear: give a "
                         "certificate and key, or allow it explicitly",
                         o->listen);
  if (!(s = rescue_calloc(1, sizeof *s)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  for (i = 0; i < 2; i++) {
    pthread_mutex_init(&s->lane[i].mu, NULL);
    pthread_cond_init(&s->lane[i].cv, NULL);
  }
  pthread_mutex_init(&s->write_mu, NULL);
  pthread_cond_init(&s->commit_cv, NULL);
  for (i = 0; i < SRV_THREADS; i++)
    pthread_mutex_init(&s->quick[i].mu, NULL);
  pthread_mutex_init(&s->wave_mu, NULL);
  pthread_mutex_init(&s->cache_mu, NULL);
  pthread_mutex_init(&s->sess_mu, NULL);
  pthread_mutex_init(&s->conn_mu, NULL);
  pthread_cond_init(&s->conn_cv, NULL);
  s->loopback = loopback;
  s->db = rescue_strdup(o->db);
  if (srv_access_init(s)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  if (o->public_hosts && !(s->public_hosts = rescue_strdup(o->public_hosts))) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  if (o->assets && (rc = assets_open(s, o->assets, err)))
    goto fail;
  /* the group writer, the write workers', the read workers' */
  s->n_pool = 1 + SRV_WRITERS + (o->connections > 0 ? o->connections : 6);
  s->pool = rescue_calloc((size_t)s->n_pool, sizeof *s->pool);
  if (!s->db || !s->pool) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  for (i = 0; i < s->n_pool; i++)
    if ((rc = rescue_store_open(&s->pool[i], o->db, RESCUE_OPEN_DURABLE, err)))
      goto fail;
  /* commits write the log; the group syncs it after letting go of the write lock */
  s->sync_deferred = rescue_store_defer_sync(s->pool[0]) == 0;
  for (i = 0; i < SRV_THREADS; i++) {
    if ((rc = rescue_store_open(&s->quick[i].st, o->db, RESCUE_OPEN_DURABLE, err)))
      goto fail;
    rescue_store_never_wait(s->quick[i].st, &s->quick[i].would_wait);
  }
  if ((rc = srv_watch_start(s, err)))
    goto fail;
  if (srv_auth_start(s, o)) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot start signing in (no entropy or threads)");
    goto fail;
  }
  if ((rc = workers_start(s, err)))
    goto fail;
  if (pthread_create(&s->reaper, NULL, reaper_main, s) != 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot start the server's threads");
    goto fail;
  }
  s->reaper_started = 1;
  if ((rc = daemon_start(s, o, &ss, err)))
    goto fail;
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
  {
    /* no new connections; the workers answer what is queued and resume those connections,
     then the daemon stops (every save is one transaction: none is left half-written) */
    MHD_socket lfd = MHD_quiesce_daemon(s->daemon);
    workers_stop(s);
    MHD_stop_daemon(s->daemon);
    if (lfd != MHD_INVALID_SOCKET)
      close(lfd);
  }
  server_free(s);
  *sp = NULL;
}
