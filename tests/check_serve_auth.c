/*
** check_serve_auth.c: who may do what on the review server (issue 25, items 3-5): every
** route and method for two annotators with different assignments, a lead and a model
** account; sessions that belong to one server (a CSRF token sign-in alone hands out, cookie
** names of their own, the cookie alone never enough, another origin refused, signed media
** URLs); the cap per user; token rotation, retiring and unretiring; sign-in failures
** rate-limited and logged; a corpus deleted or replaced under the running server.
*/
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rescue_annotators.h"
#include "serve.h"
#include "store_int.h"
#include "testutil.h"
#include "testutil_http.h"

/* The shared client (tests/testutil_http.h) under the names the tests below use. */
typedef tu_resp resp;
#define resp_free tu_resp_free
#define header(r, name) tu_http_header((r)->head, name)
#define expect TU_EXPECT
#define bearer tu_bearer

/* One request on a fresh connection, the body (NULL: none) a string. */
static resp http(int port, const char *method, const char *path, const char *headers,
                 const char *body) {
  return tu_http(port, method, path, headers, body, body ? strlen(body) : 0);
}

/* A string member of a JSON body (caller frees), or NULL. */
static char *jstr(const char *body, const char *key) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root = rescue_jparse(d, body, strlen(body), &je), *n;
  char *v = NULL;
  if (root && (n = rescue_jget(root, key)) && n->type == RESCUE_JSTRING)
    v = strdup(n->s);
  rescue_jdoc_free(&d);
  return v;
}

/* ---- the world: two samples in two groups, ann and bob each given one, a lead, a model ---- */

static char *dir, *db;
static char tok_ann[65], tok_bob[65], tok_lead[65], tok_model[65];
static char sample_a[128], sample_b[128]; /* ann's and bob's */
static rescue_server *srv;
static int port;

static void add_annotator(rescue_store *st, const char *name, const char *role, char tok[65]) {
  int existed;
  ck_assert_msg(rescue_annotator_add(st, name, role, tok, &existed) == 0, "%s",
                rescue_store_errmsg(st));
}

/* The one sample the latest assignment gives `name`, into out. */
static void assigned_to(rescue_store *st, const char *name, char out[128]) {
  int64_t id;
  char **ids = NULL;
  int n = 0;
  ck_assert_int_eq(rescue_annotator_lookup(st, name, &id, NULL, NULL), 0);
  ck_assert_int_eq(rescue_assigned_samples(st, id, &ids, &n), 0);
  ck_assert_int_eq(n, 1);
  snprintf(out, 128, "%s", ids[0]);
  rescue_assigned_samples_free(&ids, n);
}

static rescue_server *start(int *p) {
  rescue_serve_opts o = {0};
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_server *s = NULL;
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.assets = tu_path(dir, "assets");
  ck_assert_msg(rescue_serve_start(&o, &s, &err) == 0, "%s", err.msg);
  *p = rescue_serve_port(s);
  return s;
}

static void setup(void) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  char path[4096], *text, *two;
  const char *one = "maya_and_daniel/001_s01e01_segment01";
  rescue_buf b = RESCUE_BUF_INIT;
  const char *p, *q;
  db = tu_new_corpus();
  dir = strdup(db);
  *strrchr(dir, '/') = 0;
  /* the demo sample twice, in two groups, so an assignment splits them */
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  text = tu_read(path, NULL);
  for (p = text; (q = strstr(p, one)); p = q + strlen(one)) {
    rescue_buf_putn(&b, p, (size_t)(q - p));
    rescue_buf_puts(&b, "alex_and_sam/001_s01e01_segment01");
  }
  rescue_buf_puts(&b, p);
  rescue_buf_puts(&b, text);
  two = strdup(tu_path(dir, "two.jsonl"));
  tu_write(two, b.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, two, NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  add_annotator(st, "ann", NULL, tok_ann);
  add_annotator(st, "bob", NULL, tok_bob);
  add_annotator(st, "lea", "lead", tok_lead);
  add_annotator(st, "mod", "model", tok_model);
  rescue_store_close(&st);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann,bob", "--overlap", "0",
                             "--seed", "1", NULL),
                   0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  assigned_to(st, "ann", sample_a);
  assigned_to(st, "bob", sample_b);
  rescue_store_close(&st);
  ck_assert_str_ne(sample_a, sample_b);
  snprintf(path, sizeof path, "assets/%s/segment.mp4", sample_a);
  tu_write(tu_path(dir, path), "clip of a\n");
  snprintf(path, sizeof path, "assets/%s/segment.mp4", sample_b);
  tu_write(tu_path(dir, path), "clip of b\n");
  srv = start(&port);
  rescue_buf_clear(&b);
  free(text);
  free(two);
}

static void teardown(void) {
  rescue_serve_stop(&srv);
  free(db);
  free(dir);
}

/* A session on server port p for tok: the "name=value" cookie and the CSRF token. */
typedef struct session {
  char cookie[160], csrf[80], hdr[400]; /* hdr: both as request headers */
} session;

static session sign_in(int p, const char *tok) {
  session s;
  char body[128];
  const char *sc;
  char *c;
  resp r;
  memset(&s, 0, sizeof s);
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok);
  r = http(p, "POST", "/api/login", NULL, body);
  expect(&r, 200);
  sc = header(&r, "Set-Cookie");
  ck_assert_ptr_nonnull(sc);
  snprintf(s.cookie, sizeof s.cookie, "%.*s", (int)strcspn(sc, ";"), sc);
  c = jstr(r.body, "csrf");
  ck_assert_ptr_nonnull(c);
  snprintf(s.csrf, sizeof s.csrf, "%s", c);
  snprintf(s.hdr, sizeof s.hdr, "Cookie: %s\r\nX-CSRF-Token: %s\r\n", s.cookie, s.csrf);
  free(c);
  resp_free(&r);
  return s;
}

/* ---- every route and method, per caller ---- */

typedef struct route_case {
  const char *method;
  const char *path; /* "%s": the sample given by `which` */
  char which;       /* 'a': ann's sample, 'b': bob's, 0: none */
  const char *body;
  int want[4]; /* ann, bob, lead, model (0: the handler ran: no 401 or 403; the clips
                  here are no media, so a waveform gets the handler's error) */
} route_case;

/* clang-format off */
static const route_case cases[] = {
  {"GET",  "/api/me",                          0,   NULL,                  {200, 200, 200, 403}},
  {"GET",  "/api/scheme",                      0,   NULL,                  {200, 200, 200, 403}},
  {"GET",  "/api/dashboard",                   0,   NULL,                  {403, 403, 200, 403}},
  {"GET",  "/api/samples",                     0,   NULL,                  {200, 200, 200, 403}},
  {"GET",  "/api/samples/%s",                  'a', NULL,                  {200, 403, 200, 403}},
  {"GET",  "/api/samples/%s",                  'b', NULL,                  {403, 200, 200, 403}},
  {"GET",  "/api/samples/%s?view=bob",         'a', NULL,                  {403, 403, 200, 403}},
  {"POST", "/api/samples/%s/status",           'a', "{\"status\": 3}",     {400, 403, 400, 403}},
  {"POST", "/api/samples/%s/status",           'b', "{\"status\": 3}",     {403, 400, 400, 403}},
  {"POST", "/api/samples/%s/comments",         'a', "{\"text\": \"hi\"}",  {200, 403, 200, 403}},
  {"POST", "/api/samples/%s/comments",         'b', "{\"text\": \"hi\"}",  {403, 200, 200, 403}},
  {"POST", "/api/samples/%s/segmentation",     'a', "{\"op\": \"cut\"}",   {400, 403, 400, 403}},
  {"POST", "/api/samples/%s/segmentation",     'b', "{\"op\": \"cut\"}",   {403, 400, 400, 403}},
  {"PUT",  "/api/samples/%s/rows/1",           'a', "{}",                  {400, 403, 400, 403}},
  {"PUT",  "/api/samples/%s/rows/1",           'b', "{}",                  {403, 400, 400, 403}},
  {"GET",  "/clips/%s/segment.mp4",            'a', NULL,                  {200, 403, 200, 403}},
  {"HEAD", "/clips/%s/segment.mp4",            'a', NULL,                  {200, 403, 200, 403}},
  {"GET",  "/clips/%s/segment.mp4",            'b', NULL,                  {403, 200, 200, 403}},
  {"HEAD", "/clips/%s/segment.mp4",            'b', NULL,                  {403, 200, 200, 403}},
  {"GET",  "/api/samples/%s/waveform",         'a', NULL,                  {0,   403, 0,   403}},
  {"GET",  "/api/samples/%s/waveform",         'b', NULL,                  {403, 0,   0,   403}},
  {"GET",  "/api/curate",                      0,   NULL,                  {403, 403, 200, 403}},
  {"GET",  "/api/curate/%s",                   'a', NULL,                  {403, 403, 200, 403}},
  {"PUT",  "/api/curate/%s/segmentation",      'a', "{}",                  {403, 403, 400, 403}},
  {"PUT",  "/api/curate/%s/rows/1",            'b', "{}",                  {403, 403, 400, 403}},
  {"POST", "/api/logout",                      0,   NULL,                  {200, 200, 200, 403}},
};
/* clang-format on */

START_TEST(test_route_authorization) {
  const char *toks[4] = {tok_ann, tok_bob, tok_lead, tok_model};
  const char *names[4] = {"ann", "bob", "lea", "mod"};
  char path[512], body[128];
  size_t i;
  int who;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++)
    for (who = 0; who < 4; who++) {
      const route_case *c = &cases[i];
      resp r;
      snprintf(path, sizeof path, c->path, c->which == 'a' ? sample_a : sample_b);
      r = http(port, c->method, path, bearer(toks[who]), c->body);
      ck_assert_msg(c->want[who] ? r.status == c->want[who] : r.status != 401 && r.status != 403,
                    "%s %s as %s: %d, want %d: %s", c->method, path, names[who], r.status,
                    c->want[who], r.body);
      if (c->want[who] == 403 && strcmp(c->method, "HEAD") != 0)
        ck_assert_msg(!strstr(r.body, "clip of") && !strstr(r.body, "\"rows\""),
                      "a refusal shows nothing: %s", r.body);
      resp_free(&r);
    }
  /* the work lists: each annotator their own sample, the lead both */
  for (who = 0; who < 3; who++) {
    resp r = http(port, "GET", "/api/samples", bearer(toks[who]), NULL);
    expect(&r, 200);
    ck_assert_int_eq(strstr(r.body, sample_a) != NULL, who != 1);
    ck_assert_int_eq(strstr(r.body, sample_b) != NULL, who != 0);
    resp_free(&r);
  }
  /* the page's sign-in: model accounts refused, the others answered with a session */
  for (who = 0; who < 4; who++) {
    resp r;
    snprintf(body, sizeof body, "{\"token\": \"%s\"}", toks[who]);
    r = http(port, "POST", "/api/login", NULL, body);
    expect(&r, who == 3 ? 403 : 200);
    ck_assert_int_eq(header(&r, "Set-Cookie") != NULL, who != 3);
    resp_free(&r);
  }
  /* the same through a session: bob's cookie reaches only bob's sample */
  {
    session s = sign_in(port, tok_bob);
    resp r;
    snprintf(path, sizeof path, "/api/samples/%s", sample_a);
    r = http(port, "GET", path, s.hdr, NULL);
    expect(&r, 403);
    resp_free(&r);
    snprintf(path, sizeof path, "/api/samples/%s", sample_b);
    r = http(port, "GET", path, s.hdr, NULL);
    expect(&r, 200);
    resp_free(&r);
  }
}
END_TEST

/* ---- sessions that belong to one server ---- */

START_TEST(test_cookie_alone_is_not_enough) {
  session s = sign_in(port, tok_ann);
  char hdr[1024], path[512];
  resp r;
  /* /api/me names the user and nothing more: the CSRF token comes from sign-in only */
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", s.cookie);
  r = http(port, "GET", "/api/me", hdr, NULL);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"ann\""));
  ck_assert_ptr_null(strstr(r.body, "csrf"));
  ck_assert_ptr_null(strstr(r.body, s.csrf));
  resp_free(&r);
  /* reads need the CSRF token too */
  r = http(port, "GET", "/api/samples", hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(path, sizeof path, "/api/samples/%s", sample_a);
  r = http(port, "GET", path, hdr, NULL);
  expect(&r, 403);
  ck_assert_ptr_null(strstr(r.body, "\"rows\""));
  resp_free(&r);
  r = http(port, "GET", "/api/samples", s.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  /* a cookie request from another origin (another port is another origin, same site) */
  snprintf(hdr, sizeof hdr, "%sOrigin: http://127.0.0.1:1\r\n", s.hdr);
  r = http(port, "GET", "/api/samples", hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "%sSec-Fetch-Site: same-site\r\n", s.hdr);
  r = http(port, "GET", "/api/samples", hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "%sOrigin: http://127.0.0.1\r\nSec-Fetch-Site: same-origin\r\n", s.hdr);
  r = http(port, "GET", "/api/samples", hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  /* Bearer scripts are unaffected */
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL);
  expect(&r, 200);
  resp_free(&r);
}
END_TEST

START_TEST(test_cookie_on_another_port) {
  int port2;
  rescue_server *srv2 = start(&port2);
  session s1 = sign_in(port, tok_ann), s2 = sign_in(port2, tok_ann);
  char n1[64], n2[64], hdr[1024];
  resp r;
  /* each server's cookie has a name of its own: signing in to one keeps the other */
  snprintf(n1, sizeof n1, "%.*s", (int)strcspn(s1.cookie, "="), s1.cookie);
  snprintf(n2, sizeof n2, "%.*s", (int)strcspn(s2.cookie, "="), s2.cookie);
  ck_assert_str_ne(n1, n2);
  r = http(port, "GET", "/api/samples", s1.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  /* the browser sends both cookies to both ports: each server takes its own */
  snprintf(hdr, sizeof hdr, "Cookie: %s; %s\r\nX-CSRF-Token: %s\r\n", s2.cookie, s1.cookie,
           s1.csrf);
  r = http(port, "GET", "/api/samples", hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  /* server 2 (another port: it may be anyone's) receives server 1's cookie: it learns
     nothing that works on server 1 */
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", s1.cookie);
  r = http(port2, "GET", "/api/me", hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/me", hdr, NULL);
  ck_assert_ptr_null(strstr(r.body, s1.csrf));
  resp_free(&r);
  r = http(port, "POST", "/api/logout", hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", s1.hdr, NULL);
  expect(&r, 200); /* still signed in */
  resp_free(&r);
  rescue_serve_stop(&srv2);
}
END_TEST

START_TEST(test_signin_csrf) {
  char body[128], hdr[256];
  const char *bad[] = {"Origin: http://127.0.0.1:1\r\n", "Origin: null\r\n",
                       "Sec-Fetch-Site: same-site\r\n", "Sec-Fetch-Site: cross-site\r\n",
                       "Origin: http://evil.example\r\nSec-Fetch-Site: cross-site\r\n"};
  size_t i;
  resp r;
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_bob);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    r = http(port, "POST", "/api/login", bad[i], body);
    ck_assert_msg(r.status == 403, "sign-in with %s: %d", bad[i], r.status);
    ck_assert_ptr_null(header(&r, "Set-Cookie"));
    resp_free(&r);
  }
  snprintf(hdr, sizeof hdr, "Origin: http://127.0.0.1\r\nSec-Fetch-Site: same-origin\r\n");
  r = http(port, "POST", "/api/login", hdr, body);
  expect(&r, 200);
  resp_free(&r);
}
END_TEST

START_TEST(test_signed_media) {
  session a = sign_in(port, tok_ann), l = sign_in(port, tok_lead);
  char path[512], url[768], hdr[1024], *seg, *q;
  resp r;
  snprintf(path, sizeof path, "/api/samples/%s", sample_a);
  r = http(port, "GET", path, a.hdr, NULL);
  expect(&r, 200);
  seg = jstr(r.body, "segment");
  resp_free(&r);
  ck_assert_ptr_nonnull(seg);
  q = strchr(seg, '?');
  ck_assert_ptr_nonnull(q);
  ck_assert_ptr_nonnull(strstr(q, "sig="));
  ck_assert_ptr_nonnull(strstr(q, "exp="));
  /* the cookie with the signed URL: the clip (no CSRF header: media elements send none) */
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", a.cookie);
  snprintf(url, sizeof url, "/clips/%s", seg);
  r = http(port, "GET", url, hdr, NULL);
  expect(&r, 200);
  ck_assert_str_eq(r.body, "clip of a\n");
  resp_free(&r);
  /* unsigned, signed for another session, tampered or for another file: refused */
  snprintf(url, sizeof url, "/clips/%.*s", (int)(q - seg), seg);
  r = http(port, "GET", url, a.hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", l.cookie);
  snprintf(url, sizeof url, "/clips/%s", seg);
  r = http(port, "GET", url, hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", a.cookie);
  url[strlen(url) - 1] = url[strlen(url) - 1] == '0' ? '1' : '0';
  r = http(port, "GET", url, hdr, NULL);
  expect(&r, 403);
  resp_free(&r);
  snprintf(url, sizeof url, "/clips/%s/segment.mp4%s", sample_b, q);
  r = http(port, "GET", url, hdr, NULL);
  expect(&r, 403);
  ck_assert_ptr_null(strstr(r.body, "clip of"));
  resp_free(&r);
  /* Bearer scripts need no signature */
  snprintf(url, sizeof url, "/clips/%.*s", (int)(q - seg), seg);
  r = http(port, "GET", url, bearer(tok_ann), NULL);
  expect(&r, 200);
  resp_free(&r);
  free(seg);
}
END_TEST

START_TEST(test_session_cap) {
  session b = sign_in(port, tok_bob), first = sign_in(port, tok_ann), last = first;
  resp r;
  int i;
  for (i = 0; i < 8; i++)
    last = sign_in(port, tok_ann);
  r = http(port, "GET", "/api/samples", first.hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", last.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  /* the cap is per user: bob's session, older than all of ann's, goes on */
  r = http(port, "GET", "/api/samples", b.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
}
END_TEST

/* Seconds on the monotonic clock. */
static double mono_s(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Wait until the monotonic clock reads `until` (a lower bound: waiting longer is no harm). */
static void wait_until(double until) {
  double now;
  while ((now = mono_s()) < until)
    usleep((useconds_t)((until - now) * 1e6) + 1000);
}

/* A server of its own with session limits of idle and life seconds (0: the defaults). */
static rescue_server *start_limits(int idle, int life, int *p) {
  rescue_serve_opts o = {0};
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_server *s = NULL;
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.session_idle = idle;
  o.session_life = life;
  ck_assert_msg(rescue_serve_start(&o, &s, &err) == 0, "%s", err.msg);
  *p = rescue_serve_port(s);
  return s;
}

/*
** The idle timeout and the absolute lifetime, each shortened to 3 s on a server of its own
** (the defaults are 2 and 12 hours). Only lower bounds on time are relied on: a session is
** checked once more than its limit has passed (whole seconds, so 2 s more), and the other
** annotator's session, opened just before, shows the server still signs people in.
*/
START_TEST(test_session_limits) {
  int p, k;
  rescue_server *s = start_limits(3, 0, &p);
  session a = sign_in(p, tok_ann), b;
  double t;
  resp r;
  /* ann leaves her session unused for more than 3 s */
  wait_until(mono_s() + 5);
  b = sign_in(p, tok_bob);
  r = http(p, "GET", "/api/samples", a.hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(p, "GET", "/api/samples", b.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  rescue_serve_stop(&s);
  /* a session in use all the time (never idle for an hour) still ends 3 s after sign-in */
  s = start_limits(3600, 3, &p);
  a = sign_in(p, tok_ann);
  t = mono_s();
  for (k = 0; mono_s() < t + 5; k++) {
    r = http(p, "GET", "/api/me", a.hdr, NULL);
    resp_free(&r);
    wait_until(mono_s() + 0.25);
  }
  b = sign_in(p, tok_bob);
  r = http(p, "GET", "/api/samples", a.hdr, NULL);
  expect(&r, 401);
  ck_assert_ptr_nonnull(strstr(r.body, "sign in again"));
  resp_free(&r);
  r = http(p, "GET", "/api/samples", b.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  ck_assert_int_gt(k, 1);
  rescue_serve_stop(&s);
}
END_TEST

/* The token printed by `rescue annotator token <db> <name> --rotate` into tok. */
static void rotate(const char *name, char tok[65]) {
  char *out = NULL, *p;
  ck_assert_int_eq(tu_rescue(&out, NULL, "annotator", "token", db, name, "--rotate", NULL), 0);
  p = strstr(out, ": ");
  ck_assert_ptr_nonnull(p);
  snprintf(tok, 65, "%.64s", p + 2);
  free(out);
}

START_TEST(test_rotation_and_retiring) {
  session s = sign_in(port, tok_ann), b = sign_in(port, tok_bob);
  char tok[65], tok2[65], *err = NULL;
  resp r;
  /* without --rotate a token cannot be shown again */
  ck_assert_int_ne(tu_rescue(NULL, &err, "annotator", "token", db, "ann", NULL), 0);
  ck_assert_ptr_nonnull(strstr(err, "--rotate"));
  free(err);
  /* the token has been used (the server may keep who it belongs to) */
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL);
  expect(&r, 200);
  resp_free(&r);
  rotate("ann", tok);
  ck_assert_str_ne(tok, tok_ann);
  /* the old token and its session have ended; bob's session goes on */
  r = http(port, "GET", "/api/samples", s.hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", b.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok), NULL);
  expect(&r, 200);
  resp_free(&r);
  s = sign_in(port, tok);
  /* retiring ends the session; unretiring brings back neither it nor the token */
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "ann", "--reason", "leak", NULL), 0);
  r = http(port, "GET", "/api/samples", s.hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  ck_assert_int_ne(tu_rescue(NULL, NULL, "annotator", "token", db, "ann", "--rotate", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "unretire", db, "ann", NULL), 0);
  r = http(port, "GET", "/api/samples", s.hdr, NULL);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok), NULL);
  expect(&r, 401);
  resp_free(&r);
  rotate("ann", tok2);
  r = http(port, "GET", "/api/samples", bearer(tok2), NULL);
  expect(&r, 200);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", b.hdr, NULL);
  expect(&r, 200);
  resp_free(&r);
}
END_TEST

/* The status of `method path` (sample given) by the Bearer token and by the session. */
static void expect_both(const char *method, const char *path_fmt, const char *sample,
                        const char *tok, const session *s, int want) {
  char path[512];
  resp r;
  snprintf(path, sizeof path, path_fmt, sample);
  r = http(port, method, path, bearer(tok), strcmp(method, "GET") ? "{}" : NULL);
  ck_assert_msg(r.status == want, "%s %s by token: %d, want %d: %.200s", method, path, r.status,
                want, r.body);
  resp_free(&r);
  r = http(port, method, path, s->hdr, strcmp(method, "GET") ? "{}" : NULL);
  ck_assert_msg(r.status == want, "%s %s by session: %d, want %d: %.200s", method, path, r.status,
                want, r.body);
  resp_free(&r);
}

/*
** Two annotators while the lead reassigns their samples and imports one more from the
** command line, with the server running: who may read and write what follows the store at
** the next request, though the server has answered the same questions before (it keeps
** what it learned while nothing it depends on was written).
*/
START_TEST(test_access_follows_the_store) {
  session a = sign_in(port, tok_ann), b = sign_in(port, tok_bob);
  const char *fresh = "new_pair/001_s01e01_segment01", *one = "maya_and_daniel";
  char path[4096], *text, *p;
  rescue_buf jl = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < 2; i++) { /* twice: the second answers may come from what was kept */
    expect_both("GET", "/api/samples/%s", sample_a, tok_ann, &a, 200);
    expect_both("GET", "/api/samples/%s", sample_a, tok_bob, &b, 403);
    expect_both("PUT", "/api/samples/%s/rows/1", sample_a, tok_bob, &b, 403);
    expect_both("GET", "/api/samples/%s", fresh, tok_ann, &a, 404);
  }
  /* everything to bob */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "assign", db, "--annotators", "bob", "--overlap", "0",
                             "--seed", "1", NULL),
                   0);
  expect_both("GET", "/api/samples/%s", sample_a, tok_ann, &a, 403);
  expect_both("PUT", "/api/samples/%s/rows/1", sample_a, tok_ann, &a, 403);
  expect_both("GET", "/api/samples/%s", sample_a, tok_bob, &b, 200);
  expect_both("PUT", "/api/samples/%s/rows/1", sample_a, tok_bob, &b, 400); /* allowed: {} */
  /* everything to ann */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann", "--overlap", "0",
                             "--seed", "1", NULL),
                   0);
  expect_both("GET", "/api/samples/%s", sample_a, tok_ann, &a, 200);
  expect_both("GET", "/api/samples/%s", sample_b, tok_ann, &a, 200);
  expect_both("GET", "/api/samples/%s", sample_a, tok_bob, &b, 403);
  expect_both("GET", "/api/samples/%s", sample_b, tok_bob, &b, 403);
  /* a sample imported now exists at once, open to both (no run gives it to anyone) */
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  text = tu_read(path, NULL);
  for (p = text; *p; p++)
    if (strncmp(p, one, strlen(one)) == 0) {
      rescue_buf_puts(&jl, "new_pair");
      p += strlen(one) - 1;
    } else {
      rescue_buf_putc(&jl, *p);
    }
  ck_assert_ptr_nonnull(strstr(jl.s, fresh));
  tu_write(tu_path(dir, "fresh.jsonl"), jl.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "fresh.jsonl"), NULL), 0);
  expect_both("GET", "/api/samples/%s", fresh, tok_ann, &a, 200);
  expect_both("GET", "/api/samples/%s", fresh, tok_bob, &b, 200);
  rescue_buf_clear(&jl);
  free(text);
}
END_TEST

/* ---- stderr captured while a test runs ---- */

static int saved_err = -1;
static char *err_path;

static void capture_stderr(void) {
  int fd;
  err_path = strdup(tu_path(dir, "stderr.txt"));
  fflush(stderr);
  saved_err = dup(2);
  fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  ck_assert_int_ge(fd, 0);
  dup2(fd, 2);
  close(fd);
}

/* What went to stderr since capture_stderr (caller frees); stderr is restored. */
static char *captured(void) {
  char *s;
  fflush(stderr);
  dup2(saved_err, 2);
  close(saved_err);
  s = tu_read(err_path, NULL);
  free(err_path);
  return s;
}

/* One request from client address `from` (127.0.0.x), answered within 30 s: its status
   (-1 when none came), the response text into *text when given (caller frees). */
static int http_from(const char *from, const char *method, const char *path, const char *headers,
                     const char *body, char **text) {
  rescue_buf req = RESCUE_BUF_INIT;
  int fd = tu_http_dial(port, from, 30), st;
  char *in;
  ck_assert_int_ge(fd, 0);
  rescue_buf_printf(&req, "%s %s HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s", method,
                    path, headers ? headers : "");
  if (body)
    rescue_buf_printf(&req, "Content-Length: %zu\r\nContent-Type: application/json\r\n",
                      strlen(body));
  rescue_buf_printf(&req, "\r\n%s", body ? body : "");
  ck_assert(tu_http_send_all(fd, req.s, req.len));
  rescue_buf_clear(&req);
  in = tu_http_read(fd, NULL, NULL);
  close(fd);
  st = tu_http_status(in);
  if (text)
    *text = in;
  else
    free(in);
  return st;
}

/*
** Wrong tokens, by the page's sign-in and by Bearer, from three addresses while a
** command-line writer holds the corpus: each is refused at once (no wait on the writer),
** said on stderr, held off per address after 10, and written to `rescue log` once the
** writer lets go. Another address, and another person, signs in meanwhile.
*/
START_TEST(test_signin_failures) {
  char body[128], *log = NULL, *err, *text;
  sqlite3 *h = NULL;
  int i;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(h, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
  capture_stderr();
  for (i = 0; i < 10; i++)
    ck_assert_int_eq(
        http_from("127.0.0.1", "POST", "/api/login", NULL, "{\"token\": \"guess\"}", NULL), 401);
  /* the address is held off, even with a good token, by sign-in and Bearer alike */
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_ann);
  ck_assert_int_eq(http_from("127.0.0.1", "POST", "/api/login", NULL, body, &text), 429);
  ck_assert_ptr_nonnull(header(&(resp){.head = text}, "Retry-After"));
  free(text);
  ck_assert_int_eq(
      http_from("127.0.0.1", "POST", "/api/login", NULL, "{\"token\": \"guess\"}", NULL), 429);
  ck_assert_int_eq(http_from("127.0.0.1", "GET", "/api/samples", bearer(tok_ann), NULL, NULL), 429);
  /* another address (bob's machine) is not */
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_bob);
  ck_assert_int_eq(http_from("127.0.0.2", "POST", "/api/login", NULL, body, NULL), 200);
  ck_assert_int_eq(http_from("127.0.0.2", "GET", "/api/samples", bearer(tok_bob), NULL, NULL), 200);
  /* Bearer guesses count the same */
  for (i = 0; i < 10; i++)
    ck_assert_int_eq(http_from("127.0.0.3", "GET", "/api/samples", bearer("guess"), NULL, NULL),
                     401);
  ck_assert_int_eq(http_from("127.0.0.3", "GET", "/api/samples", bearer(tok_ann), NULL, NULL), 429);
  ck_assert_int_eq(http_from("127.0.0.2", "GET", "/api/samples", bearer(tok_ann), NULL, NULL), 200);
  err = captured();
  ck_assert_ptr_nonnull(strstr(err, "sign-in refused from 127.0.0.1: unknown token"));
  ck_assert_ptr_nonnull(strstr(err, "sign-in refused from 127.0.0.3: unknown Bearer token"));
  ck_assert_ptr_null(strstr(err, "from 127.0.0.2"));
  free(err);
  ck_assert_int_eq(sqlite3_exec(h, "COMMIT", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(h);
  /* the log thread writes them to the audit trail once it can (a bounded wait: it runs
     beside, and retries each second while the corpus is busy) */
  for (i = 0; i < 300; i++) {
    free(log);
    log = NULL;
    ck_assert_int_eq(tu_rescue(&log, NULL, "log", db, NULL), 0);
    if (strstr(log, "127.0.0.1: unknown token") && strstr(log, "127.0.0.3: unknown Bearer"))
      break;
    usleep(100000);
  }
  ck_assert_msg(strstr(log, "signin-failed") && strstr(log, "127.0.0.1: unknown token") &&
                    strstr(log, "127.0.0.3: unknown Bearer token"),
                "not in rescue log: %s", log);
  free(log);
}
END_TEST

/* ---- the corpus file watched ---- */

/* Comments stored in the corpus file at path. */
static int comments_in(const char *path) {
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  int n = -1;
  /* read-write: a WAL-mode file opened without its -wal file needs to make one */
  ck_assert_int_eq(sqlite3_open_v2(path, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h, "SELECT count(*) FROM comment", -1, &q, NULL), SQLITE_OK);
  if (sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/* Comment on ann's sample as ann: the status. */
static int comment(void) {
  char path[512];
  resp r;
  int st;
  snprintf(path, sizeof path, "/api/samples/%s/comments", sample_a);
  r = http(port, "POST", path, bearer(tok_ann), "{\"text\": \"still here?\"}");
  st = r.status;
  if (st == 503)
    ck_assert_ptr_nonnull(strstr(r.body, "deleted or replaced"));
  resp_free(&r);
  return st;
}

/* Swap the corpus under the running server (replace: by another file with `mv`; else
   delete it) and check that no write is acknowledged from then on. */
static void corpus_swapped(int replace) {
  char moved[4096], *err;
  int before, acked = 0, i;
  resp r;
  ck_assert_int_eq(comment(), 200);
  ck_assert_int_eq(comment(), 200);
  /* the WAL into the file, so the copy and the moved file hold what was acknowledged */
  {
    sqlite3 *h = NULL;
    int nl = -1, nc = -1;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    /* a server connection may be between its read and its reset: a FULL checkpoint waits for
       readers through the busy handler, so give it one */
    sqlite3_busy_timeout(h, 10000);
    ck_assert_int_eq(sqlite3_exec(h, "SELECT count(*) FROM comment", NULL, NULL, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_wal_checkpoint_v2(h, NULL, SQLITE_CHECKPOINT_FULL, &nl, &nc),
                     SQLITE_OK);
    ck_assert_int_eq(nl, nc);
    sqlite3_close(h);
  }
  before = comments_in(db);
  ck_assert_int_eq(before, 2);
  capture_stderr();
  snprintf(moved, sizeof moved, "%s.moved", db);
  if (replace) {
    char *copy;
    size_t len;
    copy = tu_read(db, &len);
    tu_write_n(tu_path(dir, "other.db"), copy, len);
    free(copy);
    ck_assert_int_eq(rename(tu_path(dir, "other.db"), db), 0);
  } else {
    ck_assert_int_eq(rename(db, moved), 0);
  }
  for (i = 0; i < 5; i++)
    acked += comment() == 200;
  ck_assert_int_eq(acked, 0);
  /* reads go on */
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL);
  expect(&r, 200);
  resp_free(&r);
  err = captured();
  ck_assert_ptr_nonnull(strstr(err, replace ? "was replaced" : "was deleted"));
  ck_assert_ptr_nonnull(strstr(err, "writes are refused"));
  free(err);
  rescue_serve_stop(&srv);
  /* nothing acknowledged is missing: what the server took before is in the file it had */
  ck_assert_int_eq(comments_in(replace ? db : moved), before);
}

/* The server opens its store connections RESCUE_OPEN_DURABLE: synchronous FULL (2), so a
   200 survives a power cut; other handles keep NORMAL (1). Its group writer defers the
   sync (NORMAL, then rescue_store_sync of the log before any 200). */
START_TEST(test_durable_open) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  sqlite3_stmt *q;
  int flags[2] = {0, RESCUE_OPEN_DURABLE}, i;
  for (i = 0; i < 2; i++) {
    ck_assert_int_eq(rescue_store_open(&st, db, flags[i], &err), 0);
    ck_assert_int_eq(sqlite3_prepare_v2(rescue_store_db(st), "PRAGMA synchronous", -1, &q, NULL),
                     SQLITE_OK);
    ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
    ck_assert_int_eq(sqlite3_column_int(q, 0), i ? 2 : 1);
    sqlite3_finalize(q);
    rescue_store_close(&st);
  }
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_DURABLE, &err), 0);
  ck_assert_int_eq(rescue_store_defer_sync(st), 0);
  ck_assert_int_eq(sqlite3_prepare_v2(rescue_store_db(st), "PRAGMA synchronous", -1, &q, NULL),
                   SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_int(q, 0), 1);
  sqlite3_finalize(q);
  ck_assert_int_eq(sqlite3_exec(rescue_store_db(st),
                                "UPDATE meta SET value = value WHERE key = 'scheme'", NULL, NULL,
                                NULL),
                   SQLITE_OK);
  ck_assert_int_eq(rescue_store_sync(st), 0);
  rescue_store_close(&st);
}
END_TEST

START_TEST(test_corpus_deleted) { corpus_swapped(0); }
END_TEST

START_TEST(test_corpus_replaced) { corpus_swapped(1); }
END_TEST

int main(void) {
  Suite *s = suite_create("serve_auth");
  TCase *tc = tcase_create("auth");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_route_authorization);
  tcase_add_test(tc, test_cookie_alone_is_not_enough);
  tcase_add_test(tc, test_cookie_on_another_port);
  tcase_add_test(tc, test_signin_csrf);
  tcase_add_test(tc, test_signed_media);
  tcase_add_test(tc, test_session_cap);
  tcase_add_test(tc, test_session_limits);
  tcase_add_test(tc, test_rotation_and_retiring);
  tcase_add_test(tc, test_access_follows_the_store);
  tcase_add_test(tc, test_signin_failures);
  tcase_add_test(tc, test_durable_open);
  tcase_add_test(tc, test_corpus_deleted);
  tcase_add_test(tc, test_corpus_replaced);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
