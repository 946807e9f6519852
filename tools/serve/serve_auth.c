/*
** serve_auth.c: signing in to the review server: annotator tokens (Bearer or POST
** /api/login), sessions in memory with a CSRF token for writes, and who is calling.
*/
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "rescue_alloc.h"
#include "rescue_review.h"
#include "serve_impl.h"

/* Sessions unused this long are forgotten. */
#define SESSION_IDLE_SEC (12 * 3600)

/* 64 random hex digits (a session id or CSRF token); 0, or -1 when there is no entropy. */
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

/* A new session for annotator_id into *out; 0, or -1 (no entropy or memory). */
static int session_new(rescue_server *s, int64_t annotator_id, srv_session *out) {
  srv_session x;
  int rc = 0;
  memset(&x, 0, sizeof x);
  if (random_hex(x.id) || random_hex(x.csrf))
    return -1;
  x.annotator_id = annotator_id;
  x.last_used = time(NULL);
  pthread_mutex_lock(&s->sess_mu);
  if (RESCUE_ALLOC_GROW(s->sessions, s->n_sessions + 1, s->cap_sessions))
    rc = -1;
  else
    s->sessions[s->n_sessions++] = x;
  pthread_mutex_unlock(&s->sess_mu);
  *out = x;
  return rc;
}

/* Forget the session with this id (signing out). */
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

/* Fill who->name and ->role for who->id; 0, or an error code (a retired annotator is
   signed out everywhere: RESCUE_EINVAL). */
static int who_fill(rescue_store *st, srv_who *who) {
  rescue_reviewer rv;
  int rc = rescue_reviewer_get(st, who->id, &rv);
  if (rc)
    return rc;
  if (rv.retired)
    return RESCUE_EINVAL;
  snprintf(who->name, sizeof who->name, "%s", rv.name);
  snprintf(who->role, sizeof who->role, "%s", rv.role);
  return 0;
}

int srv_authenticate(srv_req *r, int write) {
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

/* The caller's name and role, with the CSRF token when ss (their session) is given. */
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

/* POST /api/login {"token": "..."}: a session cookie and the CSRF token. */
void api_login(srv_req *r) {
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
  put_me(r, &ss);
done:
  rescue_jdoc_free(&doc);
}

/* POST /api/logout: the session ends and its cookie is cleared. */
void api_logout(srv_req *r) {
  const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, "rescue_session");
  if (cookie)
    session_drop(r->srv, cookie);
  snprintf(r->set_cookie, sizeof r->set_cookie,
           "rescue_session=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0");
  rescue_buf_puts(&r->out, "{}");
  r->status = 200;
}

/* GET /api/me: who is signed in (with the CSRF token when by session cookie). */
void api_me(srv_req *r) {
  srv_session ss;
  const char *cookie = MHD_lookup_connection_value(r->c, MHD_COOKIE_KIND, "rescue_session");
  put_me(r, r->who.session && cookie && session_find(r->srv, cookie, &ss) ? &ss : NULL);
}
