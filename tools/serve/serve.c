/*
** serve.c: the review server's HTTP side (libmicrohttpd): the listen address, request
** bodies (1 MiB at most), routing (sample ids contain '/', so endings are matched from
** the right), sign-in with annotator tokens, sessions with a CSRF token, the built-in
** page, clips under --assets with Range, and the security headers on every response.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "assets.h"
#include "rescue_alloc.h"
#include "serve_int.h"

/* Sessions unused this long are forgotten. */
#define SESSION_IDLE_SEC (12 * 3600)

static const char csp[] =
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
  MHD_add_response_header(resp, "Content-Security-Policy", csp);
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

/* ---- sessions and callers ---- */

static int random_hex(char out[65]) {
  unsigned char raw[32];
  size_t got = 0;
  int i;
  while (got < sizeof raw) {
    ssize_t n = getrandom(raw + got, sizeof raw - got, 0);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0)
      return -1;
    got += (size_t)n;
  }
  for (i = 0; i < 32; i++)
    snprintf(out + 2 * i, 3, "%02x", raw[i]);
  return 0;
}

/* Constant-time comparison of two NUL-terminated secrets. */
static int secret_eq(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), i;
  unsigned char d = la != lb;
  for (i = 0; i < la && i < lb; i++)
    d |= (unsigned char)(a[i] ^ b[i]);
  return d == 0;
}

/* Find a live session by id, refreshing it; copies it to *out. 1 when found. */
static int session_find(rescue_server *s, const char *id, srv_session *out) {
  time_t now = time(NULL);
  int i, found = 0;
  pthread_mutex_lock(&s->sess_mu);
  for (i = 0; i < s->n_sessions; i++) {
    srv_session *x = &s->sessions[i];
    if (now - x->last_used > SESSION_IDLE_SEC) {
      s->sessions[i--] = s->sessions[--s->n_sessions];
      continue;
    }
    if (secret_eq(x->id, id)) {
      x->last_used = now;
      *out = *x;
      found = 1;
      break;
    }
  }
  pthread_mutex_unlock(&s->sess_mu);
  return found;
}

static int session_new(rescue_server *s, int64_t annotator_id, srv_session *out) {
  srv_session x;
  int rc = 0;
  memset(&x, 0, sizeof x);
  if (random_hex(x.id) || random_hex(x.csrf))
    return -1;
  x.annotator_id = annotator_id;
  x.last_used = time(NULL);
  pthread_mutex_lock(&s->sess_mu);
  if (s->n_sessions == s->cap_sessions) {
    int nc = s->cap_sessions ? s->cap_sessions * 2 : 16;
    srv_session *n = rescue_realloc(s->sessions, (size_t)nc * sizeof *n);
    if (n) {
      s->sessions = n;
      s->cap_sessions = nc;
    } else {
      rc = -1;
    }
  }
  if (!rc)
    s->sessions[s->n_sessions++] = x;
  pthread_mutex_unlock(&s->sess_mu);
  *out = x;
  return rc;
}

static void session_drop(rescue_server *s, const char *id) {
  int i;
  pthread_mutex_lock(&s->sess_mu);
  for (i = 0; i < s->n_sessions; i++)
    if (secret_eq(s->sessions[i].id, id)) {
      s->sessions[i] = s->sessions[--s->n_sessions];
      break;
    }
  pthread_mutex_unlock(&s->sess_mu);
}

/* Fill who->name and ->role for who->id; 0 or an error code. */
static int who_fill(rescue_store *st, srv_who *who) {
  sqlite3_stmt *q = rescue_store_stmt(st, "serve_annotator");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", who->id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    snprintf(who->name, sizeof who->name, "%s", (const char *)sqlite3_column_text(q, 0));
    snprintf(who->role, sizeof who->role, "%s", (const char *)sqlite3_column_text(q, 1));
    if (sqlite3_column_int(q, 2)) {
      sqlite3_reset(q);
      return RESCUE_EINVAL; /* retired: signed out everywhere */
    }
  }
  sqlite3_reset(q);
  if (rc == SQLITE_ROW)
    return 0;
  return rc == SQLITE_DONE ? RESCUE_ENOTFOUND : rescue_store_sqlerr(st, "reading an annotator");
}

/*
** Who is calling: a Bearer token, else the session cookie (with the CSRF token on writes).
** 1 when known; 0 after setting 401 or 403.
*/
static int authenticate(srv_req *r, int write) {
  const char *auth = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Authorization");
  const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, "rescue_session");
  memset(&r->who, 0, sizeof r->who);
  if (auth) {
    int64_t id;
    int rc;
    if (strncmp(auth, "Bearer ", 7) != 0 || !auth[7]) {
      srv_error(r, 401, "the Authorization header must be 'Bearer <token>'");
      return 0;
    }
    rc = rescue_annotator_by_token(r->st, auth + 7, &id);
    if (rc == RESCUE_ENOTFOUND) {
      srv_error(r, 401, "unknown token");
      return 0;
    }
    if (rc) {
      srv_fail(r, rc, rescue_store_errmsg(r->st));
      return 0;
    }
    r->who.id = id;
  } else if (cookie) {
    srv_session ss;
    const char *csrf;
    if (!session_find(r->srv, cookie, &ss)) {
      srv_error(r, 401, "the session has ended: sign in again");
      return 0;
    }
    if (write) {
      csrf = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "X-CSRF-Token");
      if (!csrf || !secret_eq(csrf, ss.csrf)) {
        srv_error(r, 403, "missing or wrong CSRF token (X-CSRF-Token)");
        return 0;
      }
    }
    r->who.id = ss.annotator_id;
    r->who.session = 1;
  } else {
    srv_error(r, 401, "sign in first (session cookie or 'Authorization: Bearer <token>')");
    return 0;
  }
  if (who_fill(r->st, &r->who)) {
    srv_error(r, 401, "unknown or retired annotator");
    return 0;
  }
  return 1;
}

int srv_may_write(srv_req *r, const char *sample_id) {
  sqlite3_stmt *q;
  int rc, any = 0, mine = 0;
  if (strcmp(r->who.role, "lead") == 0)
    return 1;
  q = rescue_store_stmt(r->st, "serve_assigned");
  if (!q) {
    srv_fail(r, rescue_store_err(r->st)->code, rescue_store_errmsg(r->st));
    return 0;
  }
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rescue_bind_int(q, ":annotator_id", r->who.id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    any = sqlite3_column_int(q, 0);
    mine = sqlite3_column_int(q, 1);
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW) {
    srv_fail(r, rescue_store_sqlerr(r->st, "reading assignments"), rescue_store_errmsg(r->st));
    return 0;
  }
  if (!any || mine)
    return 1;
  srv_error(r, 403, "'%s' is not assigned to %s", sample_id, r->who.name);
  return 0;
}

static void api_me(srv_req *r, const srv_session *ss) {
  rescue_jw w;
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "name");
  rescue_jw_str(&w, r->who.name);
  rescue_jw_key(&w, "role");
  rescue_jw_str(&w, r->who.role);
  if (ss) {
    rescue_jw_key(&w, "csrf");
    rescue_jw_str(&w, ss->csrf);
  }
  rescue_jw_end(&w);
  r->status = 200;
}

/* POST /api/login {"token": "..."}: a session cookie and the CSRF token. */
static void api_login(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *root, *tok;
  srv_session ss;
  int64_t id;
  int rc;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  if (!(root = srv_body_json(r, doc)))
    goto done;
  tok = rescue_jget(root, "token");
  if (!tok || tok->type != RESCUE_JSTRING || !tok->len) {
    srv_error(r, 400, "'token' must be a non-empty string");
    goto done;
  }
  rc = rescue_annotator_by_token(r->st, tok->s, &id);
  if (rc == RESCUE_ENOTFOUND) {
    srv_error(r, 401, "unknown token");
    goto done;
  }
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  r->who.id = id;
  if (who_fill(r->st, &r->who)) {
    srv_error(r, 401, "this annotator is retired");
    goto done;
  }
  if (session_new(r->srv, id, &ss)) {
    srv_error(r, 500, "cannot start a session");
    goto done;
  }
  snprintf(r->set_cookie, sizeof r->set_cookie,
           "rescue_session=%s; Path=/; HttpOnly; SameSite=Strict", ss.id);
  api_me(r, &ss);
done:
  rescue_jdoc_free(&doc);
}

static void api_logout(srv_req *r) {
  const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, "rescue_session");
  if (cookie)
    session_drop(r->srv, cookie);
  snprintf(r->set_cookie, sizeof r->set_cookie,
           "rescue_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  rescue_buf_puts(&r->out, "{}");
  r->status = 200;
}

/* ---- the page and clips ---- */

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

/* GET /clips/<path>: a regular file under --assets (after resolving symlinks), with Range. */
static enum MHD_Result serve_clip(srv_req *r, const char *rel) {
  char *full = NULL, *real = NULL;
  struct stat sb;
  struct MHD_Response *resp;
  enum MHD_Result ret;
  int64_t from = 0, to = 0;
  size_t rootlen;
  int fd = -1, range;
  const char *p;

  if (!r->srv->assets_real) {
    srv_error(r, 404, "no clip folder is served (the server was started without one)");
    return send_response(r);
  }
  for (p = rel; *p; p++)
    if ((p == rel || p[-1] == '/') && p[0] == '.' && p[1] == '.' && (p[2] == '/' || !p[2]))
      break;
  if (*p || !*rel || rel[0] == '/' || strchr(rel, '\\')) {
    srv_error(r, 403, "clip paths are relative to the clip folder and never leave it");
    return send_response(r);
  }
  full = rescue_malloc(strlen(r->srv->assets_real) + strlen(rel) + 2);
  if (!full) {
    srv_error(r, 500, "out of memory");
    return send_response(r);
  }
  sprintf(full, "%s/%s", r->srv->assets_real, rel);
  real = realpath(full, NULL);
  rescue_free(full);
  rootlen = strlen(r->srv->assets_real);
  if (!real) {
    srv_error(r, 404, "no clip '%s'", rel);
    return send_response(r);
  }
  if (strncmp(real, r->srv->assets_real, rootlen) != 0 || real[rootlen] != '/') {
    free(real);
    srv_error(r, 403, "'%s' leads out of the clip folder", rel);
    return send_response(r);
  }
  fd = open(real, O_RDONLY | O_CLOEXEC);
  free(real);
  if (fd < 0 || fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
    if (fd >= 0)
      close(fd);
    srv_error(r, 404, "no clip '%s'", rel);
    return send_response(r);
  }
  range = parse_range(MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Range"),
                      (int64_t)sb.st_size, &from, &to);
  if (range < 0) {
    char cr[64];
    close(fd);
    srv_error(r, 416, "the requested range is outside the file (%lld bytes)",
              (long long)sb.st_size);
    resp = MHD_create_response_from_buffer(r->out.len, r->out.s, MHD_RESPMEM_MUST_COPY);
    if (!resp)
      return MHD_NO;
    snprintf(cr, sizeof cr, "bytes */%lld", (long long)sb.st_size);
    MHD_add_response_header(resp, "Content-Range", cr);
    MHD_add_response_header(resp, "Content-Type", "application/json");
    MHD_add_response_header(resp, "Content-Security-Policy", csp);
    MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
    ret = MHD_queue_response(r->c, 416, resp);
    MHD_destroy_response(resp);
    return ret;
  }
  if (range == 0) {
    from = 0;
    to = (int64_t)sb.st_size - 1;
  }
  /* the response owns fd from here */
  resp = MHD_create_response_from_fd_at_offset64((uint64_t)(to - from + 1), fd, (uint64_t)from);
  if (!resp) {
    close(fd);
    return MHD_NO;
  }
  MHD_add_response_header(resp, "Content-Type", media_type(rel));
  MHD_add_response_header(resp, "Accept-Ranges", "bytes");
  MHD_add_response_header(resp, "Content-Security-Policy", csp);
  MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
  MHD_add_response_header(resp, "Cache-Control", "private, max-age=3600");
  if (range == 1) {
    char cr[96];
    snprintf(cr, sizeof cr, "bytes %lld-%lld/%lld", (long long)from, (long long)to,
             (long long)sb.st_size);
    MHD_add_response_header(resp, "Content-Range", cr);
  }
  ret = MHD_queue_response(r->c, range == 1 ? 206 : 200, resp);
  MHD_destroy_response(resp);
  return ret;
}

/* ---- routing ---- */

static int ends_with(const char *s, size_t len, const char *tail, size_t *cut) {
  size_t n = strlen(tail);
  if (len > n && memcmp(s + len - n, tail, n) == 0) {
    *cut = len - n;
    return 1;
  }
  return 0;
}

/* Route /api/... (the caller is authenticated already). */
static void route_api(srv_req *r, const char *path) {
  int get = strcmp(r->method, "GET") == 0, put = strcmp(r->method, "PUT") == 0,
      post = strcmp(r->method, "POST") == 0;
  if (strcmp(path, "me") == 0 && get) {
    srv_session ss;
    const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, "rescue_session");
    api_me(r, r->who.session && cookie && session_find(r->srv, cookie, &ss) ? &ss : NULL);
  } else if (strcmp(path, "logout") == 0 && post) {
    api_logout(r);
  } else if (strcmp(path, "scheme") == 0 && get) {
    api_scheme(r);
  } else if (strcmp(path, "dashboard") == 0 && get) {
    api_dashboard(r);
  } else if (strcmp(path, "samples") == 0 && get) {
    api_samples(r);
  } else if (strncmp(path, "samples/", 8) == 0) {
    const char *rest = path + 8;
    size_t len = strlen(rest), cut;
    char *id = NULL;
    const char *slash;
    /* sample ids contain '/': match the known endings from the right */
    if (post && ends_with(rest, len, "/status", &cut)) {
      id = rescue_strndup(rest, cut);
      if (id)
        api_status(r, id);
    } else if (post && ends_with(rest, len, "/comments", &cut)) {
      id = rescue_strndup(rest, cut);
      if (id)
        api_comments(r, id);
    } else if (post && ends_with(rest, len, "/segmentation", &cut)) {
      id = rescue_strndup(rest, cut);
      if (id)
        api_segmentation(r, id);
    } else if (put && (slash = strrchr(rest, '/')) != NULL && slash - rest >= 5 &&
               memcmp(slash - 5, "/rows", 5) == 0) {
      char *end;
      long pos;
      errno = 0;
      pos = strtol(slash + 1, &end, 10);
      if (!slash[1] || *end || errno || pos < 1 || pos > INT_MAX) {
        srv_error(r, 404, "'%s' is not a row number", slash + 1);
        return;
      }
      id = rescue_strndup(rest, (size_t)(slash - 5 - rest));
      if (id)
        api_save_row(r, id, (int)pos);
    } else if (get) {
      id = rescue_strndup(rest, len);
      if (id)
        api_sample(r, id);
    } else {
      srv_error(r, 405, "%s is not allowed on %s", r->method, r->url);
      return;
    }
    if (!id)
      srv_error(r, 500, "out of memory");
    rescue_free(id);
  } else {
    srv_error(r, get || put || post ? 404 : 405, "no API endpoint %s %s", r->method, r->url);
  }
}

static void req_free(srv_req *r) {
  if (!r)
    return;
  if (r->st)
    pool_put(r->srv, r->st);
  rescue_buf_clear(&r->body);
  rescue_buf_clear(&r->out);
  rescue_free(r);
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url,
                              const char *method, const char *version, const char *upload,
                              size_t *upload_size, void **con_cls) {
  rescue_server *s = cls;
  srv_req *r = *con_cls;
  enum MHD_Result ret;
  int write;

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
  if (strcmp(method, "GET") == 0 || strcmp(method, "HEAD") == 0) {
    if (serve_static(r))
      return send_response(r);
    write = 0;
  } else {
    write = 1;
  }
  if (strncmp(url, "/api/", 5) != 0 && strncmp(url, "/clips/", 7) != 0) {
    srv_error(r, 404, "nothing at %s", url);
    return send_response(r);
  }
  r->st = pool_get(s);
  if (strcmp(url, "/api/login") == 0) {
    if (strcmp(method, "POST") == 0)
      api_login(r);
    else
      srv_error(r, 405, "sign in with POST");
    return send_response(r);
  }
  if (!authenticate(r, write))
    return send_response(r);
  if (strncmp(url, "/clips/", 7) == 0) {
    if (write) {
      srv_error(r, 405, "clips are read-only");
      return send_response(r);
    }
    ret = serve_clip(r, url + 7);
    return ret;
  }
  route_api(r, url + 5);
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
    if ((rc = rescue_store_open(&s->pool[i], o->db, 0, err)))
      goto fail;
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
