/*
** serve_auth.c: signing in to the review server: annotator tokens (Bearer or POST
** /api/login), sessions in memory (idle and absolute limits, a cap per user, a cookie name
** of this instance's own) with a CSRF token for every API request, same-origin checks,
** signed media URLs, sign-in failures rate-limited per address and logged, and who is
** calling.
*/
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <time.h>

#include "rescue_alloc.h"
#include "rescue_audit.h"
#include "rescue_review.h"
#include "rescue_sha256.h"
#include "serve_impl.h"

/* Session limits (README "Reviewing in the browser"): a session ends after this long idle,
   after this long in all, and a user's oldest session ends when they open one more. */
#define SESSION_IDLE_SEC (2 * 3600)
#define SESSION_LIFE_SEC (12 * 3600)
#define SESSIONS_PER_USER 8
/* A signed media URL works for 15 to 20 minutes (expiry rounded to 5 minutes, so a
   sample's URLs stay the same while it is reloaded). */
#define MEDIA_SIGN_SEC (15 * 60)
#define MEDIA_SIGN_STEP (5 * 60)
/* Sign-in failures allowed per address key (srv_addr_key: an IPv6 client by its /64) and
   window before sign-ins from it get 429. */
#define FAIL_MAX 10
#define FAIL_WINDOW_SEC 60

static void client_addr(srv_req *r, char out[64], char key[SRV_ADDR_KEY]);
static int fail_wait(rescue_server *s, const char *key);
static void fail_note(rescue_server *s, const char *addr, const char *key, const char *why);

/* n random bytes into out; 0, or -1 when there is no entropy. */
static int random_bytes(unsigned char *out, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t k = getrandom(out + got, n - got, 0);
    if (k < 0 && errno == EINTR)
      continue;
    if (k < 0)
      return -1;
    got += (size_t)k;
  }
  return 0;
}

/* 64 random hex digits (a session id or CSRF token); 0, or -1 when there is no entropy. */
static int random_hex(char out[65]) {
  unsigned char raw[32];
  int i;
  if (random_bytes(raw, sizeof raw))
    return -1;
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

/* 1 when session x of server s has ended by idling or by age at time now. */
static int session_over(const rescue_server *s, const srv_session *x, time_t now) {
  return now - x->last_used > s->session_idle || now - x->created > s->session_life;
}

/* Find a live session by id, refreshing it; copies it to *out. 1 when found. */
static int session_find(rescue_server *s, const char *id, srv_session *out) {
  time_t now = time(NULL);
  int i, found = 0;
  pthread_mutex_lock(&s->sess_mu);
  for (i = 0; i < s->n_sessions; i++) {
    srv_session *x = &s->sessions[i];
    if (session_over(s, x, now)) {
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

/* Under sess_mu: end annotator_id's least recently used session when they have
   SESSIONS_PER_USER already. */
static void session_cap(rescue_server *s, int64_t annotator_id) {
  int i, n = 0, oldest = -1;
  for (i = 0; i < s->n_sessions; i++) {
    if (s->sessions[i].annotator_id != annotator_id)
      continue;
    n++;
    if (oldest < 0 || s->sessions[i].last_used < s->sessions[oldest].last_used)
      oldest = i;
  }
  if (n >= SESSIONS_PER_USER)
    s->sessions[oldest] = s->sessions[--s->n_sessions];
}

/* A new session for annotator_id signed in with the token of hash token_hash into *out;
   0, or -1 (no entropy or memory). */
static int session_new(rescue_server *s, int64_t annotator_id, const char *token_hash,
                       srv_session *out) {
  srv_session x;
  int rc = 0;
  memset(&x, 0, sizeof x);
  if (random_hex(x.id) || random_hex(x.csrf))
    return -1;
  snprintf(x.token_hash, sizeof x.token_hash, "%s", token_hash);
  x.annotator_id = annotator_id;
  x.created = x.last_used = time(NULL);
  pthread_mutex_lock(&s->sess_mu);
  session_cap(s, annotator_id);
  if (RESCUE_ALLOC_GROW(s->sessions, s->n_sessions + 1, s->cap_sessions))
    rc = -1;
  else
    s->sessions[s->n_sessions++] = x;
  pthread_mutex_unlock(&s->sess_mu);
  *out = x;
  return rc;
}

/* Forget the session with this id (signing out, or its token was rotated). */
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

/*
** Fill who->name and ->role for who->id. 0; 401 for a retired annotator or a session
** signed in with a token that is no longer theirs (token_hash: the session's, NULL for a
** Bearer token); 403 for a model account; after setting the error.
*/
static int who_fill(srv_req *r, const char *token_hash) {
  rescue_reviewer rv;
  srv_who *who = &r->who;
  int rc = srv_access_reviewer(r, who->id, &rv);
  if (rc && rc != RESCUE_ENOTFOUND)
    return srv_fail(r, rc, rescue_store_errmsg(r->st));
  if (rc || rv.retired)
    return srv_error(r, 401, "unknown or retired annotator");
  if (token_hash && !secret_eq(token_hash, rv.token_hash)) {
    session_drop(r->srv, who->session_id);
    return srv_error(r, 401,
                     "the session has ended (the sign-in token was replaced): sign in "
                     "again");
  }
  if (strcmp(rv.role, "model") == 0)
    return srv_error(r, 403, "model accounts cannot sign in to the review server");
  snprintf(who->name, sizeof who->name, "%s", rv.name);
  snprintf(who->role, sizeof who->role, "%s", rv.role);
  return 0;
}

/*
** 1 when the request comes from this server's own page or from no page at all: an Origin
** header must name the Host the request was sent to, and Sec-Fetch-Site must be
** same-origin or none (browsers send cookies to every port of a host, and another port is
** another origin but the same site).
*/
static int same_origin(srv_req *r) {
  const char *site = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Sec-Fetch-Site");
  const char *origin = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Origin");
  const char *host = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Host"), *o;
  if (site && strcmp(site, "same-origin") != 0 && strcmp(site, "none") != 0)
    return 0;
  if (!origin)
    return 1;
  o = strstr(origin, "://");
  return o && host && strcasecmp(o + 3, host) == 0;
}

/* The caller's session from this server's cookie (with the proof asked for); 1, or 0
   after setting the error. */
static int by_cookie(srv_req *r, const char *cookie, int proof, srv_session *ss) {
  const char *csrf;
  if (!same_origin(r)) {
    srv_error(r, 403, "a signed-in request from another origin is refused");
    return 0;
  }
  if (!session_find(r->srv, cookie, ss)) {
    srv_error(r, 401, "the session has ended: sign in again");
    return 0;
  }
  if (proof == SRV_PROOF_CSRF) {
    csrf = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "X-CSRF-Token");
    if (!csrf || !secret_eq(csrf, ss->csrf)) {
      srv_error(r, 403, "missing or wrong CSRF token (X-CSRF-Token)");
      return 0;
    }
  }
  r->who.id = ss->annotator_id;
  r->who.session = 1;
  snprintf(r->who.session_id, sizeof r->who.session_id, "%s", ss->id);
  return 1;
}

int srv_authenticate(srv_req *r, int proof) {
  const char *auth = MHD_lookup_connection_value(r->c, MHD_HEADER_KIND, "Authorization");
  const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, r->srv->cookie);
  srv_session ss;
  memset(&r->who, 0, sizeof r->who);
  if (auth) {
    char addr[64], key[SRV_ADDR_KEY];
    int64_t id;
    int rc, wait;
    if (strncmp(auth, "Bearer ", 7) != 0 || !auth[7]) {
      srv_error(r, 401, "the Authorization header must be 'Bearer <token>'");
      return 0;
    }
    /* a Bearer token is a sign-in: guesses count, and are held off, like the page's */
    client_addr(r, addr, key);
    if ((wait = fail_wait(r->srv, key)) > 0) {
      r->retry_after = wait;
      srv_error(r, 429, "too many failed sign-ins from %s: try again in %d s", key, wait);
      return 0;
    }
    rc = srv_access_token(r, auth + 7, &id);
    if (rc == RESCUE_ENOTFOUND) {
      fail_note(r->srv, addr, key, "unknown Bearer token");
      srv_error(r, 401, "unknown token");
      return 0;
    }
    if (rc) {
      srv_fail(r, rc, rescue_store_errmsg(r->st));
      return 0;
    }
    r->who.id = id;
  } else if (cookie) {
    if (!by_cookie(r, cookie, proof, &ss))
      return 0;
  } else {
    srv_error(r, 401, "sign in first (session cookie or 'Authorization: Bearer <token>')");
    return 0;
  }
  return who_fill(r, r->who.session ? ss.token_hash : NULL) == 0;
}

/* ---- signed media URLs ---- */

/* HMAC-SHA256 (RFC 2104) of msg under the server's key, as 64 hex digits. */
static void hmac_hex(const rescue_server *s, const char *msg, char out[65]) {
  unsigned char pad[64], inner[32];
  rescue_sha256 h;
  int i;
  for (i = 0; i < 64; i++)
    pad[i] = (unsigned char)((i < 32 ? s->key[i] : 0) ^ 0x36);
  rescue_sha256_init(&h);
  rescue_sha256_update(&h, pad, sizeof pad);
  rescue_sha256_update(&h, msg, strlen(msg));
  rescue_sha256_final(&h, inner);
  for (i = 0; i < 64; i++)
    pad[i] = (unsigned char)((i < 32 ? s->key[i] : 0) ^ 0x5c);
  rescue_sha256_init(&h);
  rescue_sha256_update(&h, pad, sizeof pad);
  rescue_sha256_update(&h, inner, sizeof inner);
  rescue_sha256_hex(&h, out);
}

/* The signature of rel for session until exp (0 when out of memory). */
static int media_sig(const srv_req *r, const char *rel, long long exp, char out[65]) {
  rescue_buf msg = RESCUE_BUF_INIT;
  int ok;
  rescue_buf_printf(&msg, "%s\n%lld\n%s", r->who.session_id, exp, rel);
  if ((ok = rescue_buf_ok(&msg)))
    hmac_hex(r->srv, msg.s, out);
  rescue_buf_clear(&msg);
  return ok;
}

void srv_media_sign(srv_req *r, const char *rel, rescue_buf *url) {
  long long exp = ((long long)time(NULL) + MEDIA_SIGN_SEC) / MEDIA_SIGN_STEP * MEDIA_SIGN_STEP +
                  MEDIA_SIGN_STEP;
  char sig[65];
  if (r->who.session && media_sig(r, rel, exp, sig))
    rescue_buf_printf(url, "?exp=%lld&sig=%s", exp, sig);
}

int srv_media_check(srv_req *r) {
  const char *exp = srv_arg(r, "exp"), *sig = srv_arg(r, "sig");
  char want[65], *end;
  long long e = exp ? strtoll(exp, &end, 10) : 0, now = (long long)time(NULL);
  if (!exp || !sig || *end || e < now || e > now + MEDIA_SIGN_SEC + 2 * MEDIA_SIGN_STEP ||
      !media_sig(r, r->rest, e, want) || !secret_eq(sig, want)) {
    srv_error(r, 403,
              "this media link has expired or belongs to another session: reload the "
              "sample");
    return 0;
  }
  return 1;
}

/* ---- sign-in failures: rate limit, stderr, the audit trail ---- */

/* The caller's address as text ("?" when unknown), and its key for the limits. */
static void client_addr(srv_req *r, char out[64], char key[SRV_ADDR_KEY]) {
  const union MHD_ConnectionInfo *ci =
      MHD_get_connection_info(r->c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr *sa = ci ? ci->client_addr : NULL;
  snprintf(out, 64, "?");
  if (sa && sa->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)sa)->sin_addr, out, 64);
  else if (sa && sa->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)sa)->sin6_addr, out, 64);
  srv_addr_key(sa, key);
}

/* Under sess_mu: the failure record of an address key (a new one when add), or NULL. */
static srv_failures *failures_of(rescue_server *s, const char *key, int add) {
  time_t now = time(NULL);
  int i;
  for (i = 0; i < s->n_failures; i++) {
    if (now - s->failures[i].since > FAIL_WINDOW_SEC) {
      s->failures[i--] = s->failures[--s->n_failures];
      continue;
    }
    if (strcmp(s->failures[i].addr, key) == 0)
      return &s->failures[i];
  }
  if (!add || RESCUE_ALLOC_GROW(s->failures, s->n_failures + 1, s->cap_failures))
    return NULL;
  memset(&s->failures[s->n_failures], 0, sizeof *s->failures);
  snprintf(s->failures[s->n_failures].addr, sizeof s->failures->addr, "%s", key);
  s->failures[s->n_failures].since = now;
  return &s->failures[s->n_failures++];
}

/* Seconds until an address key may try again (0: now). */
static int fail_wait(rescue_server *s, const char *key) {
  srv_failures *f;
  int wait = 0;
  pthread_mutex_lock(&s->sess_mu);
  if ((f = failures_of(s, key, 0)) && f->n >= FAIL_MAX) {
    wait = (int)(f->since + FAIL_WINDOW_SEC + 1 - time(NULL));
    if (wait < 1)
      wait = 1;
  }
  pthread_mutex_unlock(&s->sess_mu);
  return wait;
}

/* A failed sign-in from addr: counted against its key, said on stderr and queued for the
   audit trail. */
static void fail_note(rescue_server *s, const char *addr, const char *key, const char *why) {
  srv_failures *f;
  srv_logged e;
  memset(&e, 0, sizeof e);
  snprintf(e.addr, sizeof e.addr, "%s", addr);
  snprintf(e.why, sizeof e.why, "%s", why);
  pthread_mutex_lock(&s->sess_mu);
  if ((f = failures_of(s, key, 1)))
    f->n++;
  pthread_mutex_unlock(&s->sess_mu);
  fprintf(stderr, "rescue serve: sign-in refused from %s: %s\n", addr, why);
  pthread_mutex_lock(&s->log_mu);
  if (s->n_logq < 10000 && !RESCUE_ALLOC_GROW(s->logq, s->n_logq + 1, s->cap_logq))
    s->logq[s->n_logq++] = e;
  pthread_cond_signal(&s->log_cv);
  pthread_mutex_unlock(&s->log_mu);
}

/* Write the queued failures to the audit trail; 0, or -1 when the store is busy (those
   left stay queued). Called with log_mu held; drops it while writing. */
static int log_flush(rescue_server *s, rescue_store *st) {
  while (s->n_logq) {
    srv_logged e = s->logq[0];
    char detail[256];
    rescue_audit_entry a = {.action = "signin-failed", .detail = detail};
    int rc;
    snprintf(detail, sizeof detail, "sign-in refused from %s: %s", e.addr, e.why);
    pthread_mutex_unlock(&s->log_mu);
    rc = rescue_audit_add(st, &a);
    pthread_mutex_lock(&s->log_mu);
    if (rc == RESCUE_EBUSY || rc == RESCUE_ELOCKED)
      return -1;
    if (rc)
      fprintf(stderr, "rescue serve: cannot log a sign-in failure: %s\n", rescue_store_errmsg(st));
    memmove(s->logq, s->logq + 1, (size_t)--s->n_logq * sizeof *s->logq);
  }
  return 0;
}

/* The sign-in failure log's thread: writes what fail_note queues, so that sign-in never
   waits on a writer; retries every second while the store is busy. */
static void *log_main(void *arg) {
  rescue_server *s = arg;
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_audit_context ctx = {.command = "rescue serve"};
  if (rescue_store_open(&st, s->db, 0, &err) || rescue_store_set_audit(st, &ctx))
    fprintf(stderr, "rescue serve: sign-in failures will not be logged: %s\n", err.msg);
  pthread_mutex_lock(&s->log_mu);
  while (!s->log_stop || s->n_logq) {
    if (st && s->n_logq && log_flush(s, st) == 0)
      continue;
    if (s->log_stop)
      break;
    if (s->n_logq) {
      struct timespec t;
      clock_gettime(CLOCK_REALTIME, &t);
      t.tv_sec += 1;
      pthread_cond_timedwait(&s->log_cv, &s->log_mu, &t);
    } else {
      pthread_cond_wait(&s->log_cv, &s->log_mu);
    }
  }
  if (s->n_logq)
    fprintf(stderr, "rescue serve: %d sign-in failures not logged (the corpus was busy)\n",
            s->n_logq);
  pthread_mutex_unlock(&s->log_mu);
  rescue_store_close(&st);
  return NULL;
}

int srv_auth_start(rescue_server *s, const rescue_serve_opts *o) {
  char hex[65];
  pthread_mutex_init(&s->log_mu, NULL);
  pthread_cond_init(&s->log_cv, NULL);
  s->auth_init = 1;
  s->session_idle = o->session_idle > 0 ? o->session_idle : SESSION_IDLE_SEC;
  s->session_life = o->session_life > 0 ? o->session_life : SESSION_LIFE_SEC;
  if (random_bytes(s->key, sizeof s->key) || random_hex(hex))
    return -1;
  /* a name of this instance's own: two servers on one host keep their own sessions */
  snprintf(s->cookie, sizeof s->cookie, "rescue_%.16s", hex);
  if (pthread_create(&s->log_thread, NULL, log_main, s))
    return -1;
  s->log_running = 1;
  return 0;
}

void srv_auth_stop(rescue_server *s) {
  if (!s->auth_init)
    return;
  if (s->log_running) {
    pthread_mutex_lock(&s->log_mu);
    s->log_stop = 1;
    pthread_cond_signal(&s->log_cv);
    pthread_mutex_unlock(&s->log_mu);
    pthread_join(s->log_thread, NULL);
    s->log_running = 0;
  }
  pthread_mutex_destroy(&s->log_mu);
  pthread_cond_destroy(&s->log_cv);
  rescue_free(s->logq);
  rescue_free(s->failures);
}

/* ---- the routes ---- */

/* The caller's name and role, with the CSRF token when ss (their new session) is given. */
static void put_me(srv_req *r, const srv_session *ss) {
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

/* The token of a sign-in body; NULL after setting 400. */
static const char *login_token(srv_req *r, rescue_jdoc *doc) {
  const rescue_jnode *root = srv_body_json(r, doc), *tok;
  if (!root)
    return NULL;
  tok = rescue_jget(root, "token");
  if (!tok || tok->type != RESCUE_JSTRING || !tok->len) {
    srv_error(r, 400, "'token' must be a non-empty string");
    return NULL;
  }
  return tok->s;
}

/*
** POST /api/login {"token": "..."}: a session cookie and the session's CSRF token (served
** only here). Refused from another origin, and with 429 from an address key (an IPv6
** client by its /64) after FAIL_MAX failures in FAIL_WINDOW_SEC.
*/
void api_login(srv_req *r) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const char *tok;
  char addr[64], key[SRV_ADDR_KEY], hash[65];
  srv_session ss;
  int64_t id;
  int rc, wait;
  if (!doc) {
    srv_error(r, 500, "out of memory");
    return;
  }
  client_addr(r, addr, key);
  if (!same_origin(r)) {
    srv_error(r, 403, "signing in from another origin is refused");
    goto done;
  }
  if ((wait = fail_wait(r->srv, key)) > 0) {
    r->retry_after = wait;
    srv_error(r, 429, "too many failed sign-ins from %s: try again in %d s", key, wait);
    goto done;
  }
  if (!(tok = login_token(r, doc)))
    goto done;
  rc = rescue_annotator_by_token(r->st, tok, &id);
  if (rc == RESCUE_ENOTFOUND) {
    fail_note(r->srv, addr, key, "unknown token");
    srv_error(r, 401, "unknown token");
    goto done;
  }
  if (rc) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    goto done;
  }
  r->who.id = id;
  if (who_fill(r, NULL)) {
    fail_note(r->srv, addr, key, r->status == 403 ? "a model account" : "a retired annotator");
    goto done;
  }
  rescue_token_hash(tok, hash);
  if (session_new(r->srv, id, hash, &ss)) {
    srv_error(r, 500, "cannot start a session");
    goto done;
  }
  snprintf(r->set_cookie, sizeof r->set_cookie,
           "%s=%s; Path=/; HttpOnly; SameSite=Strict; Max-Age=%d", r->srv->cookie, ss.id,
           r->srv->session_life);
  put_me(r, &ss);
done:
  rescue_jdoc_free(&doc);
}

/* POST /api/logout: the session ends and its cookie is cleared. */
void api_logout(srv_req *r) {
  if (r->who.session)
    session_drop(r->srv, r->who.session_id);
  snprintf(r->set_cookie, sizeof r->set_cookie, "%s=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
           r->srv->cookie);
  rescue_buf_puts(&r->out, "{}");
  r->status = 200;
}

/* GET /api/me: who is signed in (never the CSRF token: sign-in alone hands it out). */
void api_me(srv_req *r) { put_me(r, NULL); }
