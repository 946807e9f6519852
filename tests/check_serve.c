/*
** check_serve.c: the review server's API over real HTTP on a loopback port: every status
** code the API promises (200, 206, 400, 401, 403, 404, 405, 409, 413, 416, 503), sign-in
** and sessions with CSRF, malformed and wrongly typed bodies, lint blocking a save,
** segmentation, clips with Range, path traversal and symlinks out of the clip folder, the
** Content-Security-Policy on every response, and 20 concurrent writers with the versions
** counted in the store afterwards.
*/
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"
#include "store_int.h"
#include "testutil.h"
#include "testutil_http.h"

#define SAMPLE "maya_and_daniel/001_s01e01_segment01"
#define SPATH "/api/samples/" SAMPLE

/* The shared client (tests/testutil_http.h) under the names the tests below use. */
typedef tu_resp resp;
#define resp_free tu_resp_free
#define http tu_http
#define header(r, name) tu_http_header((r)->head, name)
#define expect TU_EXPECT
#define bearer tu_bearer

/* ---- the world: a corpus, annotators, clips, a server ---- */

static char *dir, *db;
static char tok_ann[65], tok_bob[65], tok_lead[65];
static rescue_server *srv;
static int port;

static void add_annotator(rescue_store *st, const char *name, const char *role, char tok[65]) {
  int existed;
  ck_assert_msg(rescue_annotator_add(st, name, role, tok, &existed) == 0, "%s",
                rescue_store_errmsg(st));
}

static void setup(void) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  char path[4096], *assets;
  unsigned char bytes[1000];
  int i;
  db = tu_new_corpus();
  dir = strdup(db);
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  add_annotator(st, "ann", NULL, tok_ann);
  add_annotator(st, "bob", NULL, tok_bob);
  add_annotator(st, "lea", "lead", tok_lead);
  rescue_store_close(&st);
  /* clips: a 1000-byte file with a known pattern, a file outside, symlinks in and out */
  for (i = 0; i < 1000; i++)
    bytes[i] = (unsigned char)(i % 251);
  tu_write_n(tu_path(dir, "assets/" SAMPLE "/segment.mp4"), bytes, sizeof bytes);
  tu_write(tu_path(dir, "secret.txt"), "outside the clip folder\n");
  assets = strdup(tu_path(dir, "assets"));
  ck_assert_int_eq(symlink("../secret.txt", tu_path(dir, "assets/escape.txt")), 0);
  ck_assert_int_eq(symlink(SAMPLE "/segment.mp4", tu_path(dir, "assets/inside.mp4")), 0);
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.assets = assets;
  ck_assert_msg(rescue_serve_start(&o, &srv, &err) == 0, "%s", err.msg);
  port = rescue_serve_port(srv);
  ck_assert_int_gt(port, 0);
  free(assets);
}

static void teardown(void) {
  rescue_serve_stop(&srv);
  free(db);
  free(dir);
}

/* A member of a JSON body as an integer (-1 when absent). */
static long long jint(const char *body, const char *key) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root = rescue_jparse(d, body, strlen(body), &je), *n;
  long long v = -1;
  if (root && (n = rescue_jget(root, key)) && n->type == RESCUE_JNUMBER)
    v = (long long)n->num;
  rescue_jdoc_free(&d);
  return v;
}

/*
** The save body for row `pos` as `tok` sees it: its version as base and its row with
** tone_of_voice set to tone. Caller frees.
*/
static char *edit_body(const char *tok, int pos, const char *tone, long long *base) {
  resp r = http(port, "GET", SPATH, bearer(tok), NULL, 0);
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root, *rows, *row, *m;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  int i;
  expect(&r, 200);
  root = rescue_jparse(d, r.body, r.body_len, &je);
  ck_assert_ptr_nonnull(root);
  rows = rescue_jget(root, "rows");
  for (row = rows->child, i = 1; i < pos; i++)
    row = row->next;
  *base = (long long)rescue_jget(row, "version")->num;
  rescue_jw_init(&w, &b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "base_version");
  rescue_jw_int(&w, *base);
  rescue_jw_key(&w, "row");
  rescue_jw_obj(&w);
  for (m = rescue_jget(row, "row")->child; m; m = m->next) {
    rescue_jw_key(&w, m->key);
    if (strcmp(m->key, "tone_of_voice") == 0)
      rescue_jw_str(&w, tone);
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_jdoc_free(&d);
  resp_free(&r);
  return rescue_buf_detach(&b);
}

static int put_row(const char *headers, int pos, const char *body, resp *out) {
  char path[256];
  snprintf(path, sizeof path, SPATH "/rows/%d", pos);
  *out = http(port, "PUT", path, headers, body, strlen(body));
  return out->status;
}

/* ---- tests ---- */

START_TEST(test_auth_and_headers) {
  resp r = http(port, "GET", "/api/samples", NULL, NULL, 0);
  expect(&r, 401);
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  ck_assert_ptr_nonnull(strstr(header(&r, "Content-Security-Policy"), "default-src 'none'"));
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer("0123"), NULL, 0);
  expect(&r, 401);
  ck_assert_ptr_nonnull(strstr(r.body, "unknown token"));
  resp_free(&r);
  r = http(port, "GET", "/api/samples", "Authorization: Basic abc\r\n", NULL, 0);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, SAMPLE));
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  resp_free(&r);
  /* the page itself: no auth, CSP, nothing from elsewhere */
  r = http(port, "GET", "/", NULL, NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(header(&r, "Content-Type"), "text/html"));
  ck_assert_ptr_null(strstr(r.body, "http://"));
  ck_assert_ptr_null(strstr(r.body, "https://"));
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  resp_free(&r);
  r = http(port, "GET", "/js/main.js", NULL, NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_null(strstr(r.body, "https://"));
  resp_free(&r);
  r = http(port, "GET", "/nothing", NULL, NULL, 0);
  expect(&r, 404);
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  resp_free(&r);
  r = http(port, "GET", "/api/nothing", bearer(tok_ann), NULL, 0);
  expect(&r, 404);
  resp_free(&r);
  r = http(port, "DELETE", SPATH, bearer(tok_ann), NULL, 0);
  expect(&r, 405);
  resp_free(&r);
  r = http(port, "GET", "/api/samples/no/such_sample", bearer(tok_ann), NULL, 0);
  expect(&r, 404);
  resp_free(&r);
  /* a retired annotator cannot sign in any more */
  r = http(port, "GET", "/api/samples", bearer(tok_bob), NULL, 0);
  expect(&r, 200);
  resp_free(&r);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "bob", "--reason", "left", NULL), 0);
  r = http(port, "GET", "/api/samples", bearer(tok_bob), NULL, 0);
  expect(&r, 401);
  ck_assert_ptr_nonnull(strstr(r.body, "retired"));
  resp_free(&r);
}
END_TEST

/*
** Every module under tools/serve/web/js/ is served at /js/<name> with its bytes, the
** JavaScript type and the security headers (a module missing from RESCUE_WEB_FILES fails
** here); the page loads the entry module; an unknown module path is 404.
*/
START_TEST(test_page_modules) {
  char path[PATH_MAX], url[300];
  struct dirent *de;
  struct stat sb;
  DIR *d;
  int n = 0;
  snprintf(path, sizeof path, "%s/tools/serve/web/js", RESCUE_SOURCE_DIR);
  d = opendir(path);
  ck_assert_ptr_nonnull(d);
  while ((de = readdir(d))) {
    size_t len = strlen(de->d_name);
    if (len < 4 || strcmp(de->d_name + len - 3, ".js") != 0)
      continue;
    snprintf(path, sizeof path, "%s/tools/serve/web/js/%s", RESCUE_SOURCE_DIR, de->d_name);
    ck_assert_int_eq(stat(path, &sb), 0);
    snprintf(url, sizeof url, "/js/%s", de->d_name);
    resp r = http(port, "GET", url, NULL, NULL, 0);
    expect(&r, 200);
    ck_assert_uint_eq(r.body_len, (size_t)sb.st_size);
    ck_assert_str_eq(header(&r, "Content-Type"), "text/javascript; charset=utf-8");
    ck_assert_ptr_nonnull(strstr(header(&r, "Content-Security-Policy"), "script-src 'self';"));
    ck_assert_str_eq(header(&r, "X-Content-Type-Options"), "nosniff");
    resp_free(&r);
    n++;
  }
  closedir(d);
  ck_assert_int_ge(n, 2);
  resp r = http(port, "GET", "/index.html", NULL, NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "<script type=\"module\" src=\"/js/main.js\">"));
  resp_free(&r);
  r = http(port, "GET", "/app.css", NULL, NULL, 0);
  expect(&r, 200);
  ck_assert_str_eq(header(&r, "Content-Type"), "text/css; charset=utf-8");
  resp_free(&r);
  r = http(port, "GET", "/js/x.js", NULL, NULL, 0);
  expect(&r, 404);
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  resp_free(&r);
}
END_TEST

START_TEST(test_login_session_csrf) {
  resp r;
  char cookie[256], csrf[80], hdr[512], *body;
  const char *sc, *p;
  long long base;
  r = http(port, "POST", "/api/login", NULL, "{\"token\": ", 10);
  expect(&r, 400);
  ck_assert_ptr_nonnull(strstr(r.body, "malformed JSON"));
  resp_free(&r);
  r = http(port, "POST", "/api/login", NULL, "{\"token\": 12}", 13);
  expect(&r, 400);
  ck_assert_ptr_nonnull(strstr(r.body, "'token' must be a non-empty string"));
  resp_free(&r);
  r = http(port, "POST", "/api/login", NULL, "[1, 2]", 6);
  expect(&r, 400);
  resp_free(&r);
  r = http(port, "POST", "/api/login", NULL, "{\"token\": \"nope\"}", 17);
  expect(&r, 401);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "{\"token\": \"%s\"}", tok_ann);
  r = http(port, "POST", "/api/login", NULL, hdr, strlen(hdr));
  expect(&r, 200);
  sc = header(&r, "Set-Cookie");
  ck_assert_ptr_nonnull(sc);
  ck_assert_ptr_nonnull(strstr(sc, "HttpOnly"));
  ck_assert_ptr_nonnull(strstr(sc, "SameSite=Strict"));
  snprintf(cookie, sizeof cookie, "%.*s", (int)strcspn(sc, ";"), sc);
  p = strstr(r.body, "\"csrf\": \"");
  ck_assert_ptr_nonnull(p);
  snprintf(csrf, sizeof csrf, "%.64s", p + 9);
  resp_free(&r);

  /* who you are needs only the cookie, and never hands the CSRF token out again */
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", cookie);
  r = http(port, "GET", "/api/me", hdr, NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_null(strstr(r.body, csrf));
  resp_free(&r);
  /* writes (and reads: check_serve_auth.c) need the CSRF token too */
  body = edit_body(tok_ann, 1, "csrf test", &base);
  ck_assert_int_eq(put_row(hdr, 1, body, &r), 403);
  ck_assert_ptr_nonnull(strstr(r.body, "CSRF"));
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\nX-CSRF-Token: %064d\r\n", cookie, 0);
  ck_assert_int_eq(put_row(hdr, 1, body, &r), 403);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\nX-CSRF-Token: %s\r\n", cookie, csrf);
  ck_assert_int_eq(put_row(hdr, 1, body, &r), 200);
  resp_free(&r);
  free(body);
  /* sign-out ends the session */
  r = http(port, "POST", "/api/logout", hdr, NULL, 0);
  expect(&r, 200);
  resp_free(&r);
  snprintf(hdr, sizeof hdr, "Cookie: %s\r\n", cookie);
  r = http(port, "GET", "/api/me", hdr, NULL, 0);
  expect(&r, 401);
  resp_free(&r);
  /* a forged cookie */
  r = http(port, "GET", "/api/me", "Cookie: rescue_session=abcdef\r\n", NULL, 0);
  expect(&r, 401);
  resp_free(&r);
}
END_TEST

START_TEST(test_save_conflict_lint) {
  resp r, g;
  char *body, *stale;
  long long base;
  int64_t v1, v2, ann_id;
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_buf out = RESCUE_BUF_INIT;
  body = edit_body(tok_ann, 3, "first save", &base);
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 200);
  v1 = jint(r.body, "version");
  ck_assert_int_gt(v1, base);
  resp_free(&r);
  /* the same body again is based on a version that is no longer current: 409 with the newer */
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 409);
  ck_assert_int_eq(jint(r.body, "version"), v1);
  ck_assert_ptr_nonnull(strstr(r.body, "\"row\": {"));
  ck_assert_ptr_nonnull(strstr(r.body, "first save"));
  resp_free(&r);
  stale = body;
  /* based on the current version it saves */
  body = edit_body(tok_ann, 3, "second save", &base);
  ck_assert_int_eq(base, v1);
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 200);
  v2 = jint(r.body, "version");
  ck_assert_int_gt(v2, v1);
  resp_free(&r);
  free(body);
  free(stale);
  /* bob's view is his own: his base is still the draft, and ann's save is not in it */
  body = edit_body(tok_bob, 3, "bob's", &base);
  ck_assert_int_lt(base, v1);
  ck_assert_int_eq(put_row(bearer(tok_bob), 3, body, &r), 200);
  resp_free(&r);
  free(body);
  g = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  ck_assert_ptr_nonnull(strstr(g.body, "second save"));
  ck_assert_ptr_null(strstr(g.body, "bob's"));
  resp_free(&g);
  /* saving the current content again writes nothing */
  body = edit_body(tok_ann, 3, "second save", &base);
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 200);
  ck_assert_int_eq(jint(r.body, "version"), v2);
  ck_assert_ptr_nonnull(strstr(r.body, "\"unchanged\": true"));
  resp_free(&r);
  free(body);
  /* a lint error (R05: target contains the speaker) blocks the save with the reason */
  body = edit_body(tok_ann, 3, "x", &base);
  {
    char *t = strstr(body, "\"target\": [\"Daniel\"]");
    ck_assert_ptr_nonnull(t);
    memcpy(t, "\"target\": [\"Maya\"]  ", 20);
  }
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 400);
  ck_assert_ptr_nonnull(strstr(r.body, "\"rule\": \"R05\""));
  ck_assert_ptr_nonnull(strstr(r.body, "\"field\": \"target\""));
  resp_free(&r);
  free(body);
  /* numbers the page sends back respelled (0.0 as 0) keep the stored spelling */
  body = edit_body(tok_ann, 1, "respell", &base);
  {
    char *t = strstr(body, "\"start_time\": 0.0,");
    ck_assert_ptr_nonnull(t);
    memcpy(t, "\"start_time\": 0,  ", 18);
  }
  ck_assert_int_eq(put_row(bearer(tok_ann), 1, body, &r), 200);
  resp_free(&r);
  free(body);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(rescue_annotator_id(st, "ann", NULL, 0, &ann_id), 0);
  ck_assert_int_eq(rescue_row_current(st, SAMPLE, 1, ann_id, &v1, &out), 0);
  ck_assert_ptr_nonnull(strstr(out.s, "\"start_time\": 0.0,"));
  rescue_buf_clear(&out);
  rescue_store_close(&st);
}
END_TEST

/* Row `pos` of a GET /api/samples/<id> body: its "row" member written out, and version. */
static char *got_row(const char *body, int pos, long long *version) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  rescue_buf b = RESCUE_BUF_INIT;
  const rescue_jnode *root = rescue_jparse(d, body, strlen(body), &je), *row;
  int i;
  ck_assert_ptr_nonnull(root);
  for (row = rescue_jget(root, "rows")->child, i = 1; row && i < pos; i++)
    row = row->next;
  ck_assert_ptr_nonnull(row);
  rescue_jwrite(&b, rescue_jget(row, "row"));
  if (version)
    *version = (long long)rescue_jget(row, "version")->num;
  rescue_jdoc_free(&d);
  return rescue_buf_detach(&b);
}

/* The rows and lint of a GET body, written out (media paths carry a per-server signature). */
static char *rows_and_lint(const char *body) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  rescue_buf b = RESCUE_BUF_INIT;
  const rescue_jnode *root = rescue_jparse(d, body, strlen(body), &je), *row;
  ck_assert_ptr_nonnull(root);
  for (row = rescue_jget(root, "rows")->child; row; row = row->next) {
    rescue_jwrite(&b, rescue_jget(row, "row"));
    rescue_buf_printf(&b, " v%lld %d %s\n", (long long)rescue_jget(row, "version")->num,
                      rescue_jget(row, "mine")->type == RESCUE_JTRUE,
                      rescue_jget(row, "origin")->s);
  }
  rescue_jwrite(&b, rescue_jget(root, "lint"));
  rescue_jwrite(&b, rescue_jget(root, "status"));
  rescue_jdoc_free(&d);
  return rescue_buf_detach(&b);
}

/*
** What this server answers ann, bob and the lead (ann's view) for the sample equals what a
** freshly started server on the same corpus (assets: its clip folder, or NULL) answers, with
** nothing kept: byte for byte when whole, else the rows, lint and status (rows_and_lint).
*/
static void same_as_fresh(const char *assets, int whole) {
  rescue_server *srv2 = NULL;
  rescue_serve_opts o = {0};
  rescue_error err = RESCUE_ERROR_INIT;
  int i;
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.assets = assets;
  ck_assert_msg(rescue_serve_start(&o, &srv2, &err) == 0, "%s", err.msg);
  for (i = 0; i < 3; i++) {
    const char *tok = i == 0 ? tok_ann : i == 1 ? tok_bob : tok_lead;
    const char *p = i == 2 ? SPATH "?view=ann" : SPATH;
    resp g = http(port, "GET", p, bearer(tok), NULL, 0);
    resp r = http(rescue_serve_port(srv2), "GET", p, bearer(tok), NULL, 0);
    expect(&g, 200);
    expect(&r, 200);
    if (whole) {
      ck_assert_msg(g.body_len == r.body_len && memcmp(g.body, r.body, g.body_len) == 0,
                    "kept and fresh differ (%d):\n%s\n----\n%s", i, g.body, r.body);
    } else {
      char *a = rows_and_lint(g.body), *b = rows_and_lint(r.body);
      ck_assert_msg(strcmp(a, b) == 0, "kept and fresh differ (%d):\n%s\n----\n%s", i, a, b);
      free(a);
      free(b);
    }
    resp_free(&g);
    resp_free(&r);
  }
  rescue_serve_stop(&srv2);
}

/*
** The server keeps samples loaded between requests (serve_cache.c), and no read is stale:
** ann's saves through the API show in her next read and in the lead's read of her view,
** bob's view stays his, and writes from the command line (bob's import, a status) show in
** the next read of both; after all that, what the server answers equals what a freshly
** started server (nothing kept) answers.
*/
START_TEST(test_cache_no_stale_reads) {
  resp r, g;
  char *body, *row, *line = NULL, *a, path[4096], jsonl[4096];
  long long base, v;
  size_t len;
  FILE *f;
  int i;
  /* everyone reads first: ann's, bob's and the lead's view of ann are kept */
  for (i = 0; i < 2; i++) {
    g = http(port, "GET", SPATH, bearer(i ? tok_bob : tok_ann), NULL, 0);
    expect(&g, 200);
    resp_free(&g);
  }
  g = http(port, "GET", SPATH "?view=ann", bearer(tok_lead), NULL, 0);
  expect(&g, 200);
  resp_free(&g);
  /* ann saves rows 2 and 4 twice each */
  for (i = 0; i < 4; i++) {
    char tone[64];
    snprintf(tone, sizeof tone, "ann cached %d", i);
    body = edit_body(tok_ann, 2 + 2 * (i % 2), tone, &base);
    ck_assert_int_eq(put_row(bearer(tok_ann), 2 + 2 * (i % 2), body, &r), 200);
    v = jint(r.body, "version");
    resp_free(&r);
    free(body);
    g = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
    row = got_row(g.body, 2 + 2 * (i % 2), &base);
    ck_assert_msg(strstr(row, tone) != NULL, "ann's read after her save: %s", row);
    ck_assert_int_eq(base, v);
    free(row);
    resp_free(&g);
  }
  g = http(port, "GET", SPATH "?view=ann", bearer(tok_lead), NULL, 0);
  ck_assert_ptr_nonnull(strstr(g.body, "ann cached 3"));
  ck_assert_ptr_nonnull(strstr(g.body, "ann cached 2"));
  resp_free(&g);
  g = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  ck_assert_ptr_null(strstr(g.body, "ann cached"));
  resp_free(&g);
  /* bob's versions from the command line: his row 1 gets a new tone */
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  f = fopen(path, "r");
  ck_assert_ptr_nonnull(f);
  while (getline(&line, &len, f) > 0 && !strstr(line, "\"" SAMPLE "\""))
    ;
  fclose(f);
  ck_assert_ptr_nonnull(strstr(line, "\"" SAMPLE "\""));
  a = strstr(line, "\"tone_of_voice\": \"");
  ck_assert_ptr_nonnull(a);
  snprintf(jsonl, sizeof jsonl, "%s/bob.jsonl", dir);
  f = fopen(jsonl, "w");
  fprintf(f, "%.*s\"tone_of_voice\": \"from the CLI %s", (int)(a - line), line,
          a + strlen("\"tone_of_voice\": \""));
  fclose(f);
  free(line);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, jsonl, "--annotator", "bob", NULL), 0);
  g = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  row = got_row(g.body, 1, NULL);
  ck_assert_msg(strstr(row, "from the CLI") != NULL, "bob's read after his CLI import: %s", row);
  free(row);
  resp_free(&g);
  /* a status set from the command line shows in ann's next read */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, SAMPLE, "reviewed", NULL), 0);
  g = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  ck_assert_ptr_nonnull(strstr(g.body, "\"status\": \"reviewed\""));
  resp_free(&g);
  /* and ann saves again (reopening it) through her kept view */
  body = edit_body(tok_ann, 2, "after the CLI", &base);
  ck_assert_int_eq(put_row(bearer(tok_ann), 2, body, &r), 200);
  resp_free(&r);
  free(body);
  /* a server that keeps nothing answers the same */
  same_as_fresh(NULL, 0);
}
END_TEST

/* The member `key` of a GET /api/samples/<id> body, written out. */
static char *member(const char *body, const char *key) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  rescue_buf b = RESCUE_BUF_INIT;
  const rescue_jnode *root = rescue_jparse(d, body, strlen(body), &je);
  ck_assert_ptr_nonnull(root);
  ck_assert_ptr_nonnull(rescue_jget(root, key));
  rescue_jwrite(&b, rescue_jget(root, key));
  rescue_jdoc_free(&d);
  return rescue_buf_detach(&b);
}

/* ann's read holds `want` in its member `key` (ann's view is kept between reads). */
static void ann_reads(const char *key, const char *want) {
  resp g = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  char *got;
  expect(&g, 200);
  got = member(g.body, key);
  ck_assert_msg(strstr(got, want) != NULL, "ann's \"%s\" lacks %s: %s", key, want, got);
  free(got);
  resp_free(&g);
}

/* ann saves row pos with a new tone through her kept view. */
static void ann_saves(int pos, const char *tone) {
  long long base;
  char *body = edit_body(tok_ann, pos, tone, &base);
  resp r;
  ck_assert_int_eq(put_row(bearer(tok_ann), pos, body, &r), 200);
  resp_free(&r);
  free(body);
}

/*
** What a read shows besides the rows is kept with the view too (the comments, the status
** history and the cues: serve_cache.c), and is never stale either: ann reads, and bob's
** comment through the API, a comment, a status and subtitles from the command line, and
** ann's own saves that move the status (the first save, a reopening) all show in her next
** read; a save's check judges with the kept cues (R14 stays); and every answer equals,
** byte for byte, what a freshly started server answers.
*/
START_TEST(test_cache_notes_follow_writes) {
  const char *note = "{\"text\": \"bob says\", \"row\": 3}";
  char srt[4096], assets[4096];
  resp r, g;
  ann_reads("history", "[]");
  ann_reads("comments", "[]");
  ann_reads("cues", "[]");
  g = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  expect(&g, 200);
  resp_free(&g);
  /* ann's first save starts the review: a line of the history */
  ann_saves(1, "ann first");
  ann_reads("history", "{\"status\": \"in_review\", \"reason\": null, \"annotator\": \"ann\"");
  /* bob comments through the API, someone from the command line */
  r = http(port, "POST", SPATH "/comments", bearer(tok_bob), note, strlen(note));
  expect(&r, 200);
  resp_free(&r);
  ann_reads("comments", "{\"row\": 3, \"annotator\": \"bob\", \"text\": \"bob says\"");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "comment", db, SAMPLE ":2", "from the CLI", NULL), 0);
  ann_reads("comments", "\"text\": \"from the CLI\"");
  /* a status from the command line, then ann's save reopens the sample */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, SAMPLE, "reviewed", NULL), 0);
  ann_reads("history", "{\"status\": \"reviewed\"");
  ann_saves(2, "ann reopens");
  ann_reads("history", "\"reason\": \"reopened: a row was saved\"");
  ann_reads("status", "in_review");
  /* subtitles from the command line: a cue at 900 s no row covers (R14) */
  snprintf(srt, sizeof srt, "%s/late.srt", dir);
  tu_write(srt, "1\n00:15:00,000 --> 00:15:02,000\nMaya: words nobody annotated\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, srt, "--sample", SAMPLE, NULL), 0);
  ann_reads("cues", "\"text\": \"words nobody annotated\"");
  ann_reads("lint", "\"rule\": \"R14\"");
  /* a save's check judges the sample-level rules with the kept cues: R14 stays */
  ann_saves(4, "ann after the cues");
  ann_reads("lint", "\"rule\": \"R14\"");
  /* byte for byte what a server that keeps nothing answers */
  snprintf(assets, sizeof assets, "%s", tu_path(dir, "assets"));
  same_as_fresh(assets, 1);
}
END_TEST

START_TEST(test_bad_bodies) {
  resp r;
  char *big;
  const char *bodies[] = {
      "{\"base_version\": 1, \"row\": ",                         /* malformed */
      "{\"base_version\": \"1\", \"row\": {}}",                  /* wrong type */
      "{\"base_version\": 1.5, \"row\": {}}",                    /* not an integer */
      "{\"base_version\": 1, \"row\": [1]}",                     /* row not an object */
      "{\"base_version\": 1}",                                   /* row missing */
      "[]",                                                      /* not an object */
      "{\"base_version\": 1, \"row\": {\"start_time\": \"x\"}}", /* row with a bad type */
      "\xff\xfe",                                                /* not UTF-8 */
  };
  size_t i;
  for (i = 0; i < sizeof bodies / sizeof bodies[0]; i++) {
    ck_assert_msg(put_row(bearer(tok_ann), 1, bodies[i], &r) == 400, "body %zu: %d %s", i, r.status,
                  r.body);
    ck_assert_ptr_nonnull(strstr(r.body, "\"error\": "));
    resp_free(&r);
  }
  ck_assert_int_eq(put_row(bearer(tok_ann), 1, "", &r), 400);
  resp_free(&r);
  /* unknown row, unknown sample, bad row numbers */
  ck_assert_int_eq(put_row(bearer(tok_ann), 99,
                           "{\"base_version\": 1, \"row\": {\"start_time\": 0.0, \"end_time\": "
                           "1.0, \"target\": []}}",
                           &r),
                   404);
  resp_free(&r);
  r = http(port, "PUT", SPATH "/rows/abc", bearer(tok_ann), "{}", 2);
  expect(&r, 404);
  resp_free(&r);
  r = http(port, "PUT", "/api/samples/nope/x/rows/1", bearer(tok_ann),
           "{\"base_version\": 1, \"row\": {}}", 30);
  expect(&r, 404);
  resp_free(&r);
  /* a body over 1 MiB: 413, and the server stays up */
  big = malloc(1024 * 1024 + 100);
  memset(big, ' ', 1024 * 1024 + 100);
  big[0] = '{';
  big[1024 * 1024 + 99] = '}';
  r = http(port, "PUT", SPATH "/rows/1", bearer(tok_ann), big, 1024 * 1024 + 100);
  expect(&r, 413);
  resp_free(&r);
  free(big);
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL, 0);
  expect(&r, 200);
  resp_free(&r);
}
END_TEST

START_TEST(test_forbidden) {
  resp r;
  char *body;
  long long base;
  body = edit_body(tok_ann, 2, "x", &base);
  /* writing through someone else's view */
  r = http(port, "PUT", SPATH "/rows/2?view=bob", bearer(tok_ann), body, strlen(body));
  expect(&r, 403);
  resp_free(&r);
  /* reading someone else's view: leads only */
  r = http(port, "GET", SPATH "?view=bob", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", SPATH "?view=bob", bearer(tok_lead), NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"readonly\": true"));
  resp_free(&r);
  r = http(port, "GET", "/api/dashboard", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", "/api/dashboard", bearer(tok_lead), NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"agreement\": "));
  ck_assert_ptr_nonnull(strstr(r.body, "\"relation_transitions\": "));
  resp_free(&r);
  /* once samples are assigned, a sample given to someone else is not yours to write */
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "bob", "--overlap", "0", NULL), 0);
  ck_assert_int_eq(put_row(bearer(tok_ann), 2, body, &r), 403);
  ck_assert_ptr_nonnull(strstr(r.body, "not assigned"));
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL, 0);
  ck_assert_ptr_null(strstr(r.body, SAMPLE));
  resp_free(&r);
  free(body);
  body = edit_body(tok_bob, 2, "x", &base);
  ck_assert_int_eq(put_row(bearer(tok_bob), 2, body, &r), 200);
  resp_free(&r);
  free(body);
}
END_TEST

/*
** After test_status_comments_segmentation's edits: lea (a lead) marks the sample reviewed;
** ann's split reopens it, under ann, as a save does: the answer says so, both ann's and
** bob's views show it in review with the reopening in its history (bob's rows unchanged),
** `rescue log` names ann. Discarded by lea, it refuses ann's merge (409, saying why) and
** bob's save reopens it.
*/
static void seg_on_closed_sample(void) {
  char b[256], *out = NULL, *line, *bob_before, *body;
  long long v1, v2;
  resp r;
  r = http(port, "POST", SPATH "/status", bearer(tok_lead), "{\"status\": \"reviewed\"}", 22);
  expect(&r, 200);
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  expect(&r, 200);
  bob_before = strdup(strstr(r.body, "\"rows\""));
  *strstr(bob_before, "\"history\"") = 0;
  resp_free(&r);
  free(edit_body(tok_ann, 2, "x", &v1));
  snprintf(b, sizeof b, "{\"op\": \"split\", \"row\": 2, \"at\": 7.0, \"base_version\": %lld}", v1);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 200);
  ck_assert_msg(strstr(r.body, "\"rows\": 10, \"status\": \"in_review\", \"reopened\": true"), "%s",
                r.body);
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"status\": \"in_review\""));
  ck_assert_ptr_nonnull(strstr(r.body, "\"n_rows\": 10"));
  ck_assert_ptr_nonnull(strstr(r.body, "\"reason\": \"reopened: a row was split\""));
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"status\": \"in_review\""));
  ck_assert_ptr_nonnull(strstr(r.body, "\"reason\": \"reopened: a row was split\""));
  ck_assert_int_eq(strncmp(strstr(r.body, "\"rows\""), bob_before, strlen(bob_before)), 0);
  resp_free(&r);
  ck_assert_int_eq(tu_rescue(&out, NULL, "log", db, NULL), 0);
  ck_assert_ptr_nonnull(line = strstr(out, SAMPLE ": in_review (reopened: a row was split)"));
  while (line > out && line[-1] != '\n')
    line--;
  ck_assert_msg(strstr(line, "(ann)") && strstr(line, "(ann)") < strchr(line, '\n'), "%s", out);
  free(out);

  /* discarded by lea: ann's merge is refused and says why; bob's save reopens it */
  r = http(port, "POST", SPATH "/status", bearer(tok_lead),
           "{\"status\": \"discarded\", \"reason\": \"noise\"}", 42);
  expect(&r, 200);
  resp_free(&r);
  free(edit_body(tok_ann, 2, "x", &v1));
  free(edit_body(tok_ann, 3, "x", &v2));
  snprintf(b, sizeof b,
           "{\"op\": \"merge\", \"row\": 2, \"base_version\": %lld, \"next_version\": %lld}", v1,
           v2);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 409);
  ck_assert_msg(strstr(r.body, "the sample is discarded"), "%s", r.body);
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  ck_assert_ptr_nonnull(strstr(r.body, "\"status\": \"discarded\""));
  ck_assert_ptr_nonnull(strstr(r.body, "\"n_rows\": 10"));
  resp_free(&r);
  body = edit_body(tok_bob, 2, "bob on a discarded sample", &v1);
  put_row(bearer(tok_bob), 2, body, &r);
  expect(&r, 200);
  ck_assert_msg(strstr(r.body, "\"status\": \"in_review\", \"reopened\": true"), "%s", r.body);
  resp_free(&r);
  free(body);
  free(bob_before);
}

START_TEST(test_status_comments_segmentation) {
  resp r;
  char b[512];
  long long v1, v2;
  char *bob_before;
  r = http(port, "POST", SPATH "/status", bearer(tok_ann), "{\"status\": \"discarded\"}", 23);
  expect(&r, 400);
  resp_free(&r);
  r = http(port, "POST", SPATH "/status", bearer(tok_ann), "{\"status\": \"done\"}", 18);
  expect(&r, 400);
  resp_free(&r);
  r = http(port, "POST", SPATH "/status", bearer(tok_ann), "{\"status\": 3}", 13);
  expect(&r, 400);
  resp_free(&r);
  r = http(port, "POST", SPATH "/comments", bearer(tok_ann),
           "{\"text\": \"check row 2\", \"row\": 2}", 33);
  expect(&r, 200);
  resp_free(&r);
  r = http(port, "POST", SPATH "/comments", bearer(tok_ann), "{\"text\": \"x\", \"row\": 99}", 25);
  ck_assert_int_ge(r.status, 400);
  ck_assert_int_lt(r.status, 500);
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  ck_assert_ptr_nonnull(strstr(r.body, "check row 2"));
  resp_free(&r);
  /* bob's view before ann splits, to compare with after */
  r = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  expect(&r, 200);
  bob_before = strdup(r.body);
  resp_free(&r);
  /* split row 1 at 2.0 s */
  {
    char *body = edit_body(tok_ann, 1, "x", &v1);
    free(body);
  }
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), "{\"op\": \"cut\"}", 13);
  expect(&r, 400);
  resp_free(&r);
  snprintf(b, sizeof b, "{\"op\": \"split\", \"row\": 1, \"at\": 9.0, \"base_version\": %lld}", v1);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 400); /* outside the row */
  resp_free(&r);
  snprintf(b, sizeof b, "{\"op\": \"split\", \"row\": 1, \"at\": 2.0, \"base_version\": %lld}",
           v1 + 1000);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 409);
  resp_free(&r);
  snprintf(b, sizeof b, "{\"op\": \"split\", \"row\": 1, \"at\": 2.0, \"base_version\": %lld}", v1);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"rows\": 10"));
  resp_free(&r);
  r = http(port, "GET", SPATH, bearer(tok_ann), NULL, 0);
  /* rows carry their ids: row 2 of ann's view (the old row 2, after the halves of row 1)
     is the same row as row 2 of bob's */
  {
    const char *p = strstr(bob_before, "\"index\": 2, \"row_id\": "), *q;
    char want[64];
    ck_assert_ptr_nonnull(p);
    q = strchr(p + 22, ',');
    snprintf(want, sizeof want, "\"index\": 3, \"row_id\": %.*s,", (int)(q - (p + 22)), p + 22);
    ck_assert_msg(strstr(r.body, want) != NULL, "%s", want);
  }
  ck_assert_ptr_nonnull(strstr(r.body, "\"end_time\": 2.0, "));
  ck_assert_ptr_nonnull(strstr(r.body, "\"start_time\": 2.0, "));
  ck_assert_ptr_nonnull(strstr(r.body, "\"n_rows\": 10"));
  resp_free(&r);
  /* ann's split made ann a row set of their own: bob's view is exactly as before it, and
     his saves go through */
  r = http(port, "GET", SPATH, bearer(tok_bob), NULL, 0);
  expect(&r, 200);
  /* (the sample's status is shared: ann's split started the review) */
  ck_assert_ptr_nonnull(strstr(bob_before, "\"rows\""));
  {
    const char *x = strstr(r.body, "\"rows\""), *y = strstr(bob_before, "\"rows\"");
    size_t d = 0;
    while (x[d] && x[d] == y[d])
      d++;
    /* the status history that follows the rows grew by ann's start of the review */
    ck_assert_msg(strstr(y, "\"history\"") &&
                      strstr(x, "\"history\"") - x == strstr(y, "\"history\"") - y &&
                      d >= (size_t)(strstr(y, "\"history\"") - y),
                  "bob's rows changed at byte %zu: %.120s", d, x + (d > 40 ? d - 40 : 0));
  }
  ck_assert_ptr_null(strstr(r.body, "\"seg_changed\": true"));
  ck_assert_ptr_nonnull(strstr(r.body, "\"n_rows\": 9"));
  free(bob_before);
  resp_free(&r);
  {
    char *body = edit_body(tok_bob, 2, "bob after the split", &v1);
    put_row(bearer(tok_bob), 2, body, &r);
    expect(&r, 200);
    resp_free(&r);
    free(body);
    body = edit_body(tok_bob, 2, "bob again", &v2);
    ck_assert_int_gt(v2, v1);
    ck_assert_int_eq(put_row(bearer(tok_bob), 2, body, &r), 200);
    resp_free(&r);
    free(body);
  }
  /* merge rows 1 and 2 back */
  {
    char *body = edit_body(tok_ann, 1, "x", &v1);
    free(body);
    body = edit_body(tok_ann, 2, "x", &v2);
    free(body);
  }
  snprintf(b, sizeof b,
           "{\"op\": \"merge\", \"row\": 1, \"base_version\": %lld, \"next_version\": %lld}", v1,
           v2);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"rows\": 9"));
  resp_free(&r);
  /* times */
  {
    char *body = edit_body(tok_ann, 2, "x", &v1);
    free(body);
  }
  snprintf(b, sizeof b,
           "{\"op\": \"times\", \"row\": 2, \"start\": 5.5, \"end\": 9.5, \"base_version\": %lld}",
           v1);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), b, strlen(b));
  expect(&r, 200);
  ck_assert_ptr_nonnull(strstr(r.body, "\"status\": \"in_review\", \"reopened\": false"));
  resp_free(&r);
  seg_on_closed_sample();
}
END_TEST

/*
** The save body for row `pos` as `tok` sees it with relation_pattern_evidence_rows set to
** refs (raw JSON). Caller frees.
*/
static char *refs_body(const char *tok, int pos, const char *refs) {
  resp r = http(port, "GET", SPATH, bearer(tok), NULL, 0);
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root, *row, *m;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  int i;
  expect(&r, 200);
  root = rescue_jparse(d, r.body, r.body_len, &je);
  ck_assert_ptr_nonnull(root);
  for (row = rescue_jget(root, "rows")->child, i = 1; i < pos; i++)
    row = row->next;
  rescue_jw_init(&w, &b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "base_version");
  rescue_jw_int(&w, (long long)rescue_jget(row, "version")->num);
  rescue_jw_key(&w, "row");
  rescue_jw_obj(&w);
  for (m = rescue_jget(row, "row")->child; m; m = m->next) {
    rescue_jw_key(&w, m->key);
    if (strcmp(m->key, "relation_pattern_evidence_rows") == 0)
      rescue_jw_raw(&w, refs, strlen(refs));
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_jdoc_free(&d);
  resp_free(&r);
  return rescue_buf_detach(&b);
}

/* What the page shows `tok`: member `key` of the sample, or of row pos's row (pos > 0). */
static char *page_part(const char *tok, int pos, const char *key) {
  resp r = http(port, "GET", SPATH, bearer(tok), NULL, 0);
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root, *row;
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  expect(&r, 200);
  root = rescue_jparse(d, r.body, r.body_len, &je);
  ck_assert_ptr_nonnull(root);
  if (pos > 0) {
    for (row = rescue_jget(root, "rows")->child, i = 1; row && i < pos; i++)
      row = row->next;
    ck_assert_ptr_nonnull(row);
    ck_assert_int_eq((int)rescue_jget(rescue_jget(row, "row"), "row_index")->num, pos);
    root = rescue_jget(row, "row");
  }
  rescue_jwrite(&b, rescue_jget(root, key));
  rescue_jdoc_free(&d);
  resp_free(&r);
  return rescue_buf_detach(&b);
}

#define PAGE_REFS(tok, pos, want)                                                                  \
  do {                                                                                             \
    char *got_ = page_part(tok, pos, "relation_pattern_evidence_rows");                            \
    ck_assert_msg(strcmp(got_, want) == 0, "row %d: %s, want %s", pos, got_, want);                \
    free(got_);                                                                                    \
  } while (0)

/* POST a split or merge through the page's API as tok, with the versions it shows. */
static void page_reseg(const char *tok, const char *op, int row, double at) {
  long long v1, v2 = 0;
  char b[256];
  resp r;
  free(edit_body(tok, row, "x", &v1));
  if (strcmp(op, "merge") == 0)
    free(edit_body(tok, row + 1, "x", &v2));
  snprintf(b, sizeof b,
           "{\"op\": \"%s\", \"row\": %d, \"at\": %.3f, \"base_version\": %lld, "
           "\"next_version\": %lld}",
           op, row, at, v1, v2);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok), b, strlen(b));
  expect(&r, 200);
  resp_free(&r);
}

/*
** References follow rows through the page's API (issue 22 item 3): bob (ann2) saves evidence
** rows on row 9; ann splits row 2, saves references in her view, merges two rows and merges
** the split back. ann's page writes every reference as a position of her row set; bob's
** rows, references and lint are exactly as before.
*/
START_TEST(test_references_follow_rows) {
  char *body, *bob_rows, *bob_lint, *x;
  resp r;
  body = refs_body(tok_bob, 9, "[2, 3, 7]");
  ck_assert_int_eq(put_row(bearer(tok_bob), 9, body, &r), 200);
  resp_free(&r);
  free(body);
  bob_rows = page_part(tok_bob, 0, "rows");
  bob_lint = page_part(tok_bob, 0, "lint");
  PAGE_REFS(tok_ann, 3, "[1, 2, 3]");
  page_reseg(tok_ann, "split", 2, 7.0);
  PAGE_REFS(tok_ann, 4, "[1, 2, 3, 4]");
  PAGE_REFS(tok_ann, 8, "[7, 8]");
  body = refs_body(tok_ann, 10, "[5, 6, 8]");
  ck_assert_int_eq(put_row(bearer(tok_ann), 10, body, &r), 200);
  resp_free(&r);
  free(body);
  PAGE_REFS(tok_ann, 10, "[5, 6, 8]");
  page_reseg(tok_ann, "merge", 5, 0);
  PAGE_REFS(tok_ann, 9, "[5, 7]");
  PAGE_REFS(tok_ann, 4, "[1, 2, 3, 4]");
  page_reseg(tok_ann, "merge", 2, 0);
  PAGE_REFS(tok_ann, 3, "[1, 2, 3]");
  PAGE_REFS(tok_ann, 8, "[4, 6]");
  x = page_part(tok_ann, 0, "lint");
  ck_assert_msg(!strstr(x, "\"R13\"") && !strstr(x, "\"rule\": 13"), "%s", x);
  free(x);
  /* bob: his rows and his lint exactly as before */
  x = page_part(tok_bob, 0, "rows");
  ck_assert_str_eq(x, bob_rows);
  free(x);
  x = page_part(tok_bob, 0, "lint");
  ck_assert_str_eq(x, bob_lint);
  free(x);
  PAGE_REFS(tok_bob, 9, "[2, 3, 7]");
  free(bob_rows);
  free(bob_lint);
}
END_TEST

/* Member key of row pos of what the page shows tok, compared with want (JSON as written). */
#define PAGE_MEMBER(tok, pos, key, want)                                                           \
  do {                                                                                             \
    char *got_ = page_part(tok, pos, key);                                                         \
    ck_assert_msg(strcmp(got_, want) == 0, "row %d %s: %s, want %s", pos, key, got_, want);        \
    free(got_);                                                                                    \
  } while (0)

/*
** A draft imported again with `rescue import --resegment` (tests/data/couple_resegmented.jsonl:
** row 2, 5.4-9.86, split at 7.5; rows 4 and 5 merged into 14.2-25.3) while the server runs.
** ann had saved her tone of voice on rows 2, 4 and 5 through the page; bob saved nothing.
** ann's page: both halves with her label and their own times and text, the merged row with
** her label and the merged span, rows numbered 1..9, no R16; bob's page: the new draft.
*/
START_TEST(test_draft_resegment_through_page) {
  char *body, path[4096], *err = NULL, *x;
  long long base;
  int pos;
  resp r;
  static const int rows[3] = {2, 4, 5};
  static const char *const tones[3] = {"ann: guarded", "ann: calm", "ann: rueful"};
  for (pos = 0; pos < 3; pos++) {
    body = edit_body(tok_ann, rows[pos], tones[pos], &base);
    ck_assert_int_eq(put_row(bearer(tok_ann), rows[pos], body, &r), 200);
    resp_free(&r);
    free(body);
  }
  snprintf(path, sizeof path, "%s/tests/data/couple_resegmented.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, path, "--resegment", NULL) == 0, "%s", err);
  free(err);
  for (pos = 1; pos <= 9; pos++) /* page_part checks row_index == pos */
    free(page_part(tok_ann, pos, "row_index"));
  PAGE_MEMBER(tok_ann, 2, "start_time", "5.4");
  PAGE_MEMBER(tok_ann, 2, "end_time", "7.5");
  PAGE_MEMBER(tok_ann, 2, "dialogue_cleaned", "\"I go quiet\"");
  PAGE_MEMBER(tok_ann, 2, "tone_of_voice", "\"ann: guarded\"");
  PAGE_MEMBER(tok_ann, 3, "start_time", "7.5");
  PAGE_MEMBER(tok_ann, 3, "end_time", "9.86");
  PAGE_MEMBER(tok_ann, 3, "tone_of_voice", "\"ann: guarded\"");
  PAGE_MEMBER(tok_ann, 5, "start_time", "14.2");
  PAGE_MEMBER(tok_ann, 5, "end_time", "25.3");
  PAGE_MEMBER(tok_ann, 5, "tone_of_voice", "\"ann: calm\"");
  PAGE_REFS(tok_ann, 4, "[1, 2, 3, 4]");
  x = page_part(tok_ann, 0, "lint");
  ck_assert_msg(!strstr(x, "\"R16\"") && !strstr(x, "\"R13\""), "%s", x);
  free(x);
  /* ann saves a half: her new version keeps the half's span */
  body = edit_body(tok_ann, 3, "ann: second half", &base);
  ck_assert_int_eq(put_row(bearer(tok_ann), 3, body, &r), 200);
  resp_free(&r);
  free(body);
  PAGE_MEMBER(tok_ann, 3, "start_time", "7.5");
  PAGE_MEMBER(tok_ann, 3, "tone_of_voice", "\"ann: second half\"");
  PAGE_MEMBER(tok_ann, 2, "tone_of_voice", "\"ann: guarded\"");
  /* bob: the new draft */
  for (pos = 1; pos <= 9; pos++)
    free(page_part(tok_bob, pos, "row_index"));
  PAGE_MEMBER(tok_bob, 2, "end_time", "7.5");
  PAGE_MEMBER(tok_bob, 2, "tone_of_voice", "\"low, guarded\"");
  PAGE_MEMBER(tok_bob, 5, "end_time", "25.3");
  PAGE_MEMBER(tok_bob, 5, "tone_of_voice", "\"calm, steady\"");
  x = page_part(tok_bob, 0, "lint");
  ck_assert_msg(!strstr(x, "\"R16\""), "%s", x);
  free(x);
}
END_TEST

START_TEST(test_clips) {
  resp r;
  char h[512];
  int i;
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", NULL, NULL, 0);
  expect(&r, 401);
  resp_free(&r);
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", bearer(tok_ann), NULL, 0);
  expect(&r, 200);
  ck_assert_int_eq(r.body_len, 1000);
  ck_assert_str_eq(header(&r, "Accept-Ranges"), "bytes");
  ck_assert_str_eq(header(&r, "Content-Type"), "video/mp4");
  ck_assert_ptr_nonnull(header(&r, "Content-Security-Policy"));
  resp_free(&r);
  snprintf(h, sizeof h, "%sRange: bytes=10-19\r\n", bearer(tok_ann));
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", h, NULL, 0);
  expect(&r, 206);
  ck_assert_int_eq(r.body_len, 10);
  for (i = 0; i < 10; i++)
    ck_assert_int_eq((unsigned char)r.body[i], (10 + i) % 251);
  ck_assert_str_eq(header(&r, "Content-Range"), "bytes 10-19/1000");
  resp_free(&r);
  snprintf(h, sizeof h, "%sRange: bytes=990-\r\n", bearer(tok_ann));
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", h, NULL, 0);
  expect(&r, 206);
  ck_assert_int_eq(r.body_len, 10);
  ck_assert_str_eq(header(&r, "Content-Range"), "bytes 990-999/1000");
  resp_free(&r);
  snprintf(h, sizeof h, "%sRange: bytes=-4\r\n", bearer(tok_ann));
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", h, NULL, 0);
  expect(&r, 206);
  ck_assert_int_eq(r.body_len, 4);
  ck_assert_int_eq((unsigned char)r.body[0], 996 % 251);
  resp_free(&r);
  snprintf(h, sizeof h, "%sRange: bytes=5000-6000\r\n", bearer(tok_ann));
  r = http(port, "GET", "/clips/" SAMPLE "/segment.mp4", h, NULL, 0);
  expect(&r, 416);
  ck_assert_str_eq(header(&r, "Content-Range"), "bytes */1000");
  resp_free(&r);
  /* traversal, plain and percent-encoded, and symlinks */
  r = http(port, "GET", "/clips/../secret.txt", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  ck_assert_ptr_null(strstr(r.body, "outside the clip folder"));
  resp_free(&r);
  r = http(port, "GET", "/clips/%2e%2e/secret.txt", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", "/clips/" SAMPLE "/../../../secret.txt", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", "/clips//etc/passwd", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "GET", "/clips/escape.txt", bearer(tok_ann), NULL, 0);
  expect(&r, 403);
  ck_assert_ptr_null(strstr(r.body, "outside the clip folder"));
  resp_free(&r);
  r = http(port, "GET", "/clips/inside.mp4", bearer(tok_ann), NULL, 0);
  expect(&r, 200);
  ck_assert_int_eq(r.body_len, 1000);
  resp_free(&r);
  r = http(port, "GET", "/clips/missing.mp4", bearer(tok_ann), NULL, 0);
  expect(&r, 404);
  resp_free(&r);
  r = http(port, "GET", "/clips/" SAMPLE, bearer(tok_ann), NULL, 0);
  expect(&r, 404); /* a folder */
  resp_free(&r);
}
END_TEST

/*
** The route table's answers: the method refused per route, sign-in before anything but
** signing in, and each scope (own view for writes, assigned samples for reads, writes and
** comments) checked before the handler reads the body.
*/
START_TEST(test_route_table) {
  const char *seg = "{\"op\": \"split\", \"row\": 1, \"at\": 1.0, \"base_version\": 1}";
  resp r;
  r = http(port, "GET", "/api/login", NULL, NULL, 0);
  expect(&r, 405);
  ck_assert_ptr_nonnull(strstr(r.body, "sign in with POST"));
  resp_free(&r);
  r = http(port, "POST", "/api/me", NULL, "{}", 2);
  expect(&r, 401); /* signed in first */
  resp_free(&r);
  r = http(port, "POST", "/api/me", bearer(tok_ann), "{}", 2);
  expect(&r, 404);
  resp_free(&r);
  r = http(port, "HEAD", "/api/me", bearer(tok_ann), NULL, 0);
  expect(&r, 405);
  resp_free(&r);
  r = http(port, "POST", "/clips/" SAMPLE "/segment.mp4", bearer(tok_ann), "{}", 2);
  expect(&r, 405);
  ck_assert_ptr_nonnull(strstr(r.body, "read-only"));
  resp_free(&r);
  r = http(port, "POST", SPATH "/status?view=bob", bearer(tok_ann), "{\"status\": \"reviewed\"}",
           22);
  expect(&r, 403);
  resp_free(&r);
  r = http(port, "POST", "/api/samples/no/such/comments", bearer(tok_ann), "{\"text\": \"x\"}", 13);
  expect(&r, 404);
  resp_free(&r);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_lead), "[]", 2);
  expect(&r, 400); /* a lead passes the scope; the body is wrong */
  resp_free(&r);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "bob", "--overlap", "0", NULL), 0);
  r = http(port, "POST", SPATH "/segmentation", bearer(tok_ann), seg, strlen(seg));
  expect(&r, 403);
  ck_assert_ptr_nonnull(strstr(r.body, "not assigned"));
  resp_free(&r);
  r = http(port, "POST", SPATH "/status", bearer(tok_ann), "{\"status\": \"reviewed\"}", 22);
  expect(&r, 403);
  resp_free(&r);
  /* comments, like reads, reach only samples assigned to the caller or to nobody */
  r = http(port, "POST", SPATH "/comments", bearer(tok_ann), "{\"text\": \"x\"}", 13);
  expect(&r, 403);
  resp_free(&r);
  /* a lead's view of the work list is every sample, an annotator's their own */
  r = http(port, "GET", "/api/samples", bearer(tok_lead), NULL, 0);
  ck_assert_ptr_nonnull(strstr(r.body, SAMPLE));
  resp_free(&r);
  r = http(port, "GET", "/api/samples", bearer(tok_ann), NULL, 0);
  ck_assert_ptr_null(strstr(r.body, SAMPLE));
  resp_free(&r);
}
END_TEST

/*
** Hold the corpus's write lock from another connection for `ms`, or until the save's answer
** is in (answered), whichever comes first, then let go. Holding until the answer makes the
** 503 case independent of how late a loaded machine gets the save to its wait.
*/
typedef struct holder {
  int ms;
  int ready, answered, released; /* released: about to commit (under mu) */
  pthread_mutex_t mu;
  pthread_cond_t cv;
} holder;

static void *hold_lock(void *arg) {
  holder *h = arg;
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  struct timespec until;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(rescue_store_begin(st), 0);
  clock_gettime(CLOCK_REALTIME, &until);
  until.tv_sec += h->ms / 1000;
  until.tv_nsec += (long)(h->ms % 1000) * 1000000L;
  if (until.tv_nsec >= 1000000000L) {
    until.tv_sec++;
    until.tv_nsec -= 1000000000L;
  }
  pthread_mutex_lock(&h->mu);
  h->ready = 1;
  pthread_cond_broadcast(&h->cv);
  while (!h->answered && pthread_cond_timedwait(&h->cv, &h->mu, &until) == 0)
    ;
  h->released = 1;
  pthread_mutex_unlock(&h->mu);
  ck_assert_int_eq(rescue_store_commit(st), 0);
  rescue_store_close(&st);
  return NULL;
}

static void locked_save(int ms, int want) {
  holder h = {ms, 0, 0, 0, PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER};
  pthread_t th;
  resp r;
  long long base;
  char tone[32];
  char *body;
  int status;
  int released;
  snprintf(tone, sizeof tone, "held %d", ms);
  body = edit_body(tok_ann, 4, tone, &base);
  pthread_create(&th, NULL, hold_lock, &h);
  pthread_mutex_lock(&h.mu);
  while (!h.ready)
    pthread_cond_wait(&h.cv, &h.mu);
  pthread_mutex_unlock(&h.mu);
  status = put_row(bearer(tok_ann), 4, body, &r);
  pthread_mutex_lock(&h.mu);
  h.answered = 1;
  released = h.released;
  pthread_cond_broadcast(&h.cv);
  pthread_mutex_unlock(&h.mu);
  ck_assert_msg(status == want, "status %d, want %d: %s", status, want, r.body);
  if (want == 200)
    /* an order, not a duration: the save was answered after the other writer let go */
    ck_assert_msg(released, "the save did not wait for the other writer");
  else {
    ck_assert_ptr_nonnull(strstr(r.body, "corpus busy"));
    ck_assert_ptr_nonnull(header(&r, "Retry-After"));
  }
  resp_free(&r);
  pthread_join(th, NULL);
  free(body);
}

START_TEST(test_busy_waits_then_503) {
  /* a command-line writer holding the corpus for 1.5 s: the save waits and succeeds */
  locked_save(1500, 200);
  /* held past the server's 10 s wait (until the answer, 60 s at most): 503 "corpus busy",
     nothing half-written */
  locked_save(60000, 503);
}
END_TEST

#define WRITERS 20
#define CYCLES 15
static char writer_tok[WRITERS][65];
/* rows without lint errors in the demo sample (row 7 has an R10 error, which blocks saves) */
static const int writer_rows[8] = {1, 2, 3, 4, 5, 6, 8, 9};

static void *writer(void *arg) {
  int k = (int)(intptr_t)arg, i, errors = 0;
  for (i = 0; i < CYCLES; i++) {
    long long base;
    char tone[64];
    char *body;
    resp r;
    snprintf(tone, sizeof tone, "writer %d cycle %d", k, i);
    body = edit_body(writer_tok[k], writer_rows[k % 8], tone, &base);
    if (put_row(bearer(writer_tok[k]), writer_rows[k % 8], body, &r) != 200) {
      fprintf(stderr, "writer %d (base %lld): %d %.300s\n", k, base, r.status, r.body);
      errors++;
    }
    resp_free(&r);
    free(body);
  }
  return (void *)(intptr_t)errors;
}

START_TEST(test_concurrent_writers) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  pthread_t th[WRITERS];
  sqlite3 *h = NULL;
  sqlite3_stmt *s = NULL;
  int k, errors = 0;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  for (k = 0; k < WRITERS; k++) {
    char name[16];
    snprintf(name, sizeof name, "w%02d", k);
    add_annotator(st, name, NULL, writer_tok[k]);
  }
  rescue_store_close(&st);
  for (k = 0; k < WRITERS; k++)
    pthread_create(&th[k], NULL, writer, (void *)(intptr_t)k);
  for (k = 0; k < WRITERS; k++) {
    void *e;
    pthread_join(th[k], &e);
    errors += (int)(intptr_t)e;
  }
  ck_assert_int_eq(errors, 0);
  /* every save is a version: WRITERS * CYCLES edits, CYCLES per writer, none lost */
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h,
                                      "SELECT count(*), count(DISTINCT v.annotator_id), "
                                      "count(DISTINCT v.content) FROM row_version v "
                                      "JOIN annotator a ON a.id = v.annotator_id "
                                      "WHERE v.kind = 'edit' AND a.name LIKE 'w%'",
                                      -1, &s, NULL),
                   SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
  ck_assert_int_eq(sqlite3_column_int(s, 0), WRITERS * CYCLES);
  ck_assert_int_eq(sqlite3_column_int(s, 1), WRITERS);
  ck_assert_int_eq(sqlite3_column_int(s, 2), WRITERS * CYCLES);
  sqlite3_finalize(s);
  sqlite3_close(h);
}
END_TEST

START_TEST(test_listen_addresses) {
  rescue_error err = RESCUE_ERROR_INIT;
  int lb = -1;
  ck_assert_int_eq(rescue_serve_parse_listen("127.0.0.1:8080", &lb, &err), 0);
  ck_assert_int_eq(lb, 1);
  ck_assert_int_eq(rescue_serve_parse_listen("[::1]:80", &lb, &err), 0);
  ck_assert_int_eq(lb, 1);
  ck_assert_int_eq(rescue_serve_parse_listen("localhost:0", &lb, &err), 0);
  ck_assert_int_eq(lb, 1);
  ck_assert_int_eq(rescue_serve_parse_listen("0.0.0.0:8080", &lb, &err), 0);
  ck_assert_int_eq(lb, 0);
  ck_assert_int_eq(rescue_serve_parse_listen("192.168.1.5:8080", &lb, &err), 0);
  ck_assert_int_eq(lb, 0);
  ck_assert_int_eq(rescue_serve_parse_listen("8080", &lb, &err), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_serve_parse_listen("127.0.0.1:99999", &lb, &err), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_serve_parse_listen("example.org:80", &lb, &err), RESCUE_EINVAL);
}
END_TEST

/* The CLI: usage errors, the non-loopback warning, and Ctrl-C stopping it cleanly. */
START_TEST(test_cli) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "serve", NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "serve", "x.db", "--listen", "nowhere", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: serve: --listen"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "serve", tu_path(dir, "missing.db"), "--listen", "127.0.0.1:0", NULL),
      1);
  ck_assert_ptr_nonnull(strstr(err, "rescue init"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "serve", "-h", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "--assets"));
  free(out);
  free(err);
  /* run it, then SIGINT once it says it is serving (it blocks SIGINT for sigwait before
     that; a signal sent earlier would be lost, since a background job of sh ignores SIGINT,
     and the server would run until the test's timeout on a loaded machine): it says it
     stopped and exits 0 */
  {
    char cmd[8192], line[512] = "";
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "'%s' serve '%s' --listen 127.0.0.1:0 > '%s/serve.out' & pid=$!; i=0; "
             "while ! grep -q serving '%s/serve.out' && [ $i -lt 600 ]; do sleep 0.1; "
             "i=$((i+1)); done; kill -INT $pid; wait $pid; echo exit=$?; cat '%s/serve.out'",
             RESCUE_BIN, db, dir, dir, dir);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    {
      rescue_buf all = RESCUE_BUF_INIT;
      while (fgets(line, sizeof line, p))
        rescue_buf_puts(&all, line);
      pclose(p);
      ck_assert_ptr_nonnull(strstr(all.s, "serving "));
      ck_assert_ptr_nonnull(strstr(all.s, "stopped"));
      ck_assert_ptr_nonnull(strstr(all.s, "exit=0"));
      rescue_buf_clear(&all);
    }
  }
}
END_TEST

/* The number of lines of s (a last line without its newline counts). */
static int lines_of(const char *s) {
  int n = 0;
  for (; *s; s++)
    n += *s == '\n' || !s[1];
  return n;
}

/*
** Listening beyond loopback without TLS: refused with one line and exit 1 (nothing
** listens); with --insecure-listen the server starts and says on stderr that tokens and
** cookies travel in clear, and answers until Ctrl-C.
*/
START_TEST(test_cli_insecure_listen) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "serve", db, "--listen", "0.0.0.0:0", NULL), 1);
  ck_assert_msg(lines_of(err) == 1, "not one line: %s", err);
  ck_assert_ptr_nonnull(strstr(err, "rescue: serve: --listen 0.0.0.0:0: "));
  ck_assert_ptr_nonnull(strstr(err, "travel in clear"));
  ck_assert_ptr_nonnull(strstr(err, "--tls-cert"));
  ck_assert_ptr_nonnull(strstr(err, "--insecure-listen"));
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  {
    char cmd[8192], line[512] = "";
    rescue_buf all = RESCUE_BUF_INIT;
    FILE *p;
    snprintf(cmd, sizeof cmd,
             "'%s' serve '%s' --listen 0.0.0.0:0 --insecure-listen --public-host localhost "
             "> '%s/insecure.out' 2> '%s/insecure.err' & pid=$!; i=0; "
             "while ! grep -q serving '%s/insecure.out' && [ $i -lt 600 ]; do sleep 0.1; "
             "i=$((i+1)); done; kill -INT $pid; wait $pid; echo exit=$?; cat '%s/insecure.out'; "
             "echo stderr:; cat '%s/insecure.err'",
             RESCUE_BIN, db, dir, dir, dir, dir, dir);
    p = popen(cmd, "r");
    ck_assert_ptr_nonnull(p);
    while (fgets(line, sizeof line, p))
      rescue_buf_puts(&all, line);
    pclose(p);
    ck_assert_msg(strstr(all.s, "serving ") && strstr(all.s, "stopped") && strstr(all.s, "exit=0"),
                  "%s", all.s);
    ck_assert_msg(strstr(all.s, "stderr:\nrescue: serve: warning: listening on 0.0.0.0:0 "
                                "without TLS (--insecure-listen): sign-in tokens and session "
                                "cookies travel in clear"),
                  "no warning: %s", all.s);
    rescue_buf_clear(&all);
  }
}
END_TEST

/* ---- clips follow spans: each row's media is found by span and row id ---- */

/* A real member of a JSON object (NAN when absent). */
static double jnum(const rescue_jnode *o, const char *key) {
  const rescue_jnode *n = rescue_jget(o, key);
  return n && n->type == RESCUE_JNUMBER ? n->num : NAN;
}

/* The manifest entry of clip `index` in <assets>/<sid>/manifest.json (parsed into d). */
static const rescue_jnode *manifest_entry(rescue_jdoc *d, const char *assets, const char *sid,
                                          int index) {
  rescue_jerror je;
  char p[4096], *text;
  size_t len;
  const rescue_jnode *root, *e;
  snprintf(p, sizeof p, "%s/%s/manifest.json", assets, sid);
  text = tu_read(p, &len);
  ck_assert_ptr_nonnull(text);
  root = rescue_jparse(d, text, len, &je);
  free(text);
  ck_assert_ptr_nonnull(root);
  for (e = rescue_jget(root, "rows")->child; e; e = e->next)
    if ((int)jnum(e, "index") == index)
      return e;
  return NULL;
}

/* The corpus view's row of sample sid with row id `id`: its position and span (0 when none). */
static int corpus_row(rescue_store *st, const char *sid, int64_t id, double *a, double *b) {
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  const char *only[1] = {sid};
  int k, pos = 0;
  ck_assert_int_eq(rescue_sample_iter_new(st, &v, only, 1, &it), 0);
  k = rescue_sample_iter_next(it, &smp);
  ck_assert_msg(k == 1, "%d: %s", k, rescue_store_errmsg(st));
  for (k = 0; k < smp->n; k++)
    if (smp->rows[k].row_id == id) {
      pos = smp->rows[k].position;
      *a = smp->rows[k].start_time;
      *b = smp->rows[k].end_time;
    }
  rescue_sample_iter_free(&it);
  return pos;
}

typedef struct media_count {
  int rows, segment, clip, none;
  int own; /* clips cut for the row itself (same row id, same span) */
} media_count;

/*
** GET sample sid as tok sees it and check every row's media against the row's own times:
** the segment plays the row's times; a clip's manifest entry (found by the clip's name)
** names the row id the API says, its span contains the row's and is current (the corpus
** view still has that row with that span), and the span inside the clip is the
** row's shifted by the clip's start. Returns what the rows play.
*/
static media_count check_media(int p, const char *tok, rescue_store *st, const char *assets,
                               const char *sid) {
  char path[512];
  rescue_jdoc *d = rescue_jdoc_new(), *md = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *root, *row;
  media_count c = {0, 0, 0, 0, 0};
  resp r;
  snprintf(path, sizeof path, "/api/samples/%s", sid);
  r = http(p, "GET", path, bearer(tok), NULL, 0);
  expect(&r, 200);
  root = rescue_jparse(d, r.body, r.body_len, &je);
  ck_assert_ptr_nonnull(root);
  for (row = rescue_jget(root, "rows")->child; row; row = row->next) {
    const rescue_jnode *m = rescue_jget(row, "media"), *data = rescue_jget(row, "row"), *e;
    double a = jnum(data, "start_time"), b = jnum(data, "end_time"), off, ca = 0, cb = 0;
    int index = (int)jnum(row, "index"), clip = 0;
    int64_t cid = 0;
    char want[512];
    c.rows++;
    ck_assert_msg(m != NULL, "row %d has no media member: %s", index, r.body);
    if (m->type == RESCUE_JNULL) {
      c.none++;
      continue;
    }
    off = jnum(m, "offset");
    ck_assert_msg(fabs(jnum(m, "start") - (a - off)) < 0.0015 &&
                      fabs(jnum(m, "end") - (b - off)) < 0.0015,
                  "%s row %d (%.3f-%.3f s) plays %.3f-%.3f of %s (offset %.3f)", sid, index, a, b,
                  jnum(m, "start"), jnum(m, "end"), rescue_jget(m, "path")->s, off);
    if (strcmp(rescue_jget(m, "kind")->s, "segment") == 0) {
      snprintf(want, sizeof want, "%s/segment.mp4", sid);
      ck_assert_str_eq(rescue_jget(m, "path")->s, want);
      ck_assert(fabs(off) < 1e-9);
      c.segment++;
      continue;
    }
    ck_assert_str_eq(rescue_jget(m, "kind")->s, "clip");
    ck_assert_int_eq(sscanf(rescue_jget(m, "path")->s + strlen(sid), "/clips/%d.mp4", &clip), 1);
    e = manifest_entry(md, assets, sid, clip);
    ck_assert_msg(e != NULL, "%s row %d plays clip %d, which the manifest lacks", sid, index, clip);
    ck_assert_int_eq((int64_t)jnum(e, "row_id"), (int64_t)jnum(m, "clip_row_id"));
    ck_assert(fabs(jnum(e, "clip_start") - off) < 1e-9);
    ck_assert_msg(jnum(e, "start") <= a + 0.0015 && jnum(e, "end") >= b - 0.0015,
                  "%s row %d (%.3f-%.3f s) plays clip %d of %.3f-%.3f s", sid, index, a, b, clip,
                  jnum(e, "start"), jnum(e, "end"));
    cid = (int64_t)jnum(e, "row_id");
    ck_assert_msg(corpus_row(st, sid, cid, &ca, &cb) > 0 && fabs(ca - jnum(e, "start")) < 0.0015 &&
                      fabs(cb - jnum(e, "end")) < 0.0015,
                  "%s row %d plays stale clip %d (cut for row %lld at %.3f-%.3f s, which the "
                  "corpus view no longer has with those times)",
                  sid, index, clip, (long long)cid, jnum(e, "start"), jnum(e, "end"));
    c.clip++;
    c.own += (int64_t)jnum(row, "row_id") == cid && fabs(ca - a) < 0.0015 && fabs(cb - b) < 0.0015;
  }
  resp_free(&r);
  rescue_jdoc_free(&d);
  rescue_jdoc_free(&md);
  return c;
}

/* POST a segmentation op (members `what`) on row `row` of sid as tok (its current version
   as base). */
static void segment_op(int p, const char *tok, const char *sid, int row, const char *what) {
  char path[512], body[512];
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const rescue_jnode *n;
  resp r;
  int i;
  snprintf(path, sizeof path, "/api/samples/%s", sid);
  r = http(p, "GET", path, bearer(tok), NULL, 0);
  expect(&r, 200);
  n = rescue_jget(rescue_jparse(d, r.body, r.body_len, &je), "rows")->child;
  for (i = 1; i < row; i++)
    n = n->next;
  snprintf(body, sizeof body, "{\"row\": %d, \"base_version\": %lld, %s}", row,
           (long long)jnum(n, "version"), what);
  resp_free(&r);
  rescue_jdoc_free(&d);
  snprintf(path, sizeof path, "/api/samples/%s/segmentation", sid);
  r = http(p, "POST", path, bearer(tok), body, strlen(body));
  expect(&r, 200);
  resp_free(&r);
}

/* `rescue clip` into assets; its summary line must hold `want`. */
static void run_clip(const char *cdb, const char *assets, const char *want) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", cdb, "--out", assets, NULL), 0);
  ck_assert_msg(strstr(out, want), "want '%s': %s%s", want, out, err);
  free(out);
  free(err);
}

/*
** Clips follow spans, with two annotators: clips are cut, ann splits a row of a sample
** with per-row clips (w) and of one with a segment (s) through the API; every row, as ann
** and as bob see it, plays media whose span is its own times, never the clip at its
** position (old row 3's clip after row 2 is split); `rescue clip` recuts the stale clips
** and then every row plays its own clip; moving a row's end makes its clip stale: not
** offered until `rescue clip` recuts it.
*/
START_TEST(test_clips_follow_spans) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  rescue_synth_opts so;
  rescue_server *s2 = NULL;
  char *cdb = tu_new_corpus(), *cdir = strdup(cdb), t_ann[65], t_bob[65], *assets;
  media_count c;
  int p;
  *strrchr(cdir, '/') = 0;
  tu_write(tu_path(cdir, "in.jsonl"),
           "{\"sample_id\": \"c/s\", \"rows\": ["
           "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"A\", \"target\": "
           "[\"B\"], \"row_index\": 1}, "
           "{\"start_time\": 1.0, \"end_time\": 2.0, \"primary_speaker\": \"B\", \"target\": "
           "[\"A\"], \"row_index\": 2}, "
           "{\"start_time\": 2.0, \"end_time\": 3.0, \"primary_speaker\": \"A\", \"target\": "
           "[\"B\"], \"row_index\": 3}]}\n"
           "{\"sample_id\": \"c/w\", \"rows\": ["
           "{\"start_time\": 0.0, \"end_time\": 1.0, \"primary_speaker\": \"A\", \"target\": "
           "[\"B\"], \"row_index\": 1}, "
           "{\"start_time\": 1.0, \"end_time\": 2.0, \"primary_speaker\": \"B\", \"target\": "
           "[\"A\"], \"row_index\": 2}, "
           "{\"start_time\": 2.0, \"end_time\": 3.0, \"primary_speaker\": \"A\", \"target\": "
           "[\"B\"], \"row_index\": 3}, "
           "{\"start_time\": 3.0, \"end_time\": 3.9, \"primary_speaker\": \"B\", \"target\": "
           "[\"A\"], \"row_index\": "
           "4}]}\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", cdb, tu_path(cdir, "in.jsonl"), NULL), 0);
  rescue_synth_defaults(&so);
  so.threads = 1;
  ck_assert_msg(rescue_synth_media(tu_path(cdir, "src.mp4"), &so, &err) == 0, "%s", err.msg);
  tu_link_media(cdb, tu_path(cdir, "src.mp4"), "c/w", NULL, NULL);
  tu_link_media(cdb, tu_path(cdir, "src.mp4"), "c/s", "0.5", "3.5");
  ck_assert_int_eq(rescue_store_open(&st, cdb, 0, &err), 0);
  add_annotator(st, "ann", NULL, t_ann);
  add_annotator(st, "bob", NULL, t_bob);
  rescue_store_close(&st);
  assets = strdup(tu_path(cdir, "assets"));
  run_clip(cdb, assets, "8 clips written");
  ck_assert_int_eq(rescue_store_open(&st, cdb, 0, &err), 0);
  o.db = cdb;
  o.listen = "127.0.0.1:0";
  o.assets = assets;
  ck_assert_msg(rescue_serve_start(&o, &s2, &err) == 0, "%s", err.msg);
  p = rescue_serve_port(s2);

  /* before any change: every row plays its own clip, or the segment at its times */
  c = check_media(p, t_ann, st, assets, "c/w");
  ck_assert_int_eq(c.own, 4);
  c = check_media(p, t_ann, st, assets, "c/s");
  ck_assert_int_eq(c.segment, 3);

  /* ann splits row 2 (1-2 s) at 1.5 s: the halves and the later rows keep their times */
  segment_op(p, t_ann, "c/w", 2, "\"op\": \"split\", \"at\": 1.5");
  segment_op(p, t_ann, "c/s", 2, "\"op\": \"split\", \"at\": 1.5");
  c = check_media(p, t_ann, st, assets, "c/w");
  ck_assert_int_eq(c.rows, 5);
  check_media(p, t_bob, st, assets, "c/w");
  c = check_media(p, t_ann, st, assets, "c/s");
  ck_assert_int_eq(c.segment, 4);
  c = check_media(p, t_bob, st, assets, "c/s");
  ck_assert_int_eq(c.segment, c.rows);

  /* rescue clip recuts what is stale; then every row of ann's view plays a clip */
  run_clip(cdb, assets, "clips written");
  c = check_media(p, t_ann, st, assets, "c/w");
  ck_assert_int_eq(c.clip, 5);
  /* bob's rows play only media that hold their times (a row whose span no clip holds plays
     nothing until its clip is cut) */
  check_media(p, t_bob, st, assets, "c/w");

  /* moving the last row's start makes its clip stale: not offered, then recut */
  segment_op(p, t_ann, "c/w", 5, "\"op\": \"times\", \"start\": 3.2, \"end\": 3.9");
  c = check_media(p, t_ann, st, assets, "c/w");
  ck_assert_int_eq(c.clip, 4);
  ck_assert_int_eq(c.none, 1);
  run_clip(cdb, assets, "1 clip written");
  c = check_media(p, t_ann, st, assets, "c/w");
  ck_assert_int_eq(c.clip, 5);
  ck_assert_int_eq(c.none, 0);

  rescue_serve_stop(&s2);
  rescue_store_close(&st);
  free(assets);
  free(cdb);
  free(cdir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("serve");
  TCase *tc = tcase_create("api");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_auth_and_headers);
  tcase_add_test(tc, test_page_modules);
  tcase_add_test(tc, test_login_session_csrf);
  tcase_add_test(tc, test_save_conflict_lint);
  tcase_add_test(tc, test_cache_no_stale_reads);
  tcase_add_test(tc, test_cache_notes_follow_writes);
  tcase_add_test(tc, test_bad_bodies);
  tcase_add_test(tc, test_forbidden);
  tcase_add_test(tc, test_status_comments_segmentation);
  tcase_add_test(tc, test_references_follow_rows);
  tcase_add_test(tc, test_draft_resegment_through_page);
  tcase_add_test(tc, test_clips);
  tcase_add_test(tc, test_route_table);
  tcase_add_test(tc, test_busy_waits_then_503);
  tcase_add_test(tc, test_concurrent_writers);
  tcase_add_test(tc, test_listen_addresses);
  tcase_add_test(tc, test_cli);
  tcase_add_test(tc, test_cli_insecure_listen);
  suite_add_tcase(s, tc);
  tc = tcase_create("clips follow spans");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_clips_follow_spans);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
