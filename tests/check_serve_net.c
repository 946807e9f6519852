/*
** check_serve_net.c: the review server against clients that try to stop it (issue 25):
** idle and slowloris sockets while a client keeps writing, a chunked body past the limit,
** slow clip downloads while another client signs in, a long command-line write while
** others read and save, the security headers and Host check, text length limits, file
** modes, and HTTPS with a certificate made in the test. Every socket has a receive and
** send timeout: a server that stops answering fails the test instead of hanging it.
*/
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "serve.h"
#include "serve_impl.h"
#include "testutil.h"
#include "testutil_http.h"

#define SAMPLE "maya_and_daniel/001_s01e01_segment01"
#define SPATH "/api/samples/" SAMPLE

static char *dir, *db;
static char tok_ann[65], tok_lead[65];
static rescue_server *srv;
static int port;

/* The shared client (tests/testutil_http.h) under the names the tests below use. */
#define send_all tu_http_send_all
#define status_of tu_http_status
#define header tu_http_header
#define bearer tu_bearer

/* A connection from `from` (127.0.0.x) with timeouts of `secs`; -1 when refused. */
static int dial(const char *from, int secs) { return tu_http_dial(port, from, secs); }

/* Read until the server closes or the timeout; *closed (may be NULL): the server closed. */
static char *read_until(int fd, int *closed) { return tu_http_read(fd, NULL, closed); }

static char *read_all(int fd) { return read_until(fd, NULL); }

/* One request answered within `secs`: the response text (caller frees; "" when none came). */
static char *request(int secs, const char *method, const char *path, const char *headers,
                     const char *body) {
  return tu_http_request(port, secs, method, path, headers, body, body ? strlen(body) : 0, NULL);
}

#define expect(resp, want)                                                                         \
  ck_assert_msg(status_of(resp) == (want), "status %d, want %d: %.300s", status_of(resp), (want),  \
                (resp))

static void start(const char *public_hosts) {
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.assets = tu_path(dir, "assets");
  o.public_hosts = public_hosts;
  ck_assert_msg(rescue_serve_start(&o, &srv, &err) == 0, "%s", err.msg);
  port = rescue_serve_port(srv);
}

static void setup(void) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  char path[4096];
  int existed, fd;
  db = tu_new_corpus();
  dir = strdup(db);
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "ann", NULL, tok_ann, &existed), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "lea", "lead", tok_lead, &existed), 0);
  rescue_store_close(&st);
  /* a 64 MiB clip (sparse): more than the kernel buffers of a client that stops reading */
  tu_write(tu_path(dir, "assets/" SAMPLE "/segment.mp4"), "");
  fd = open(tu_path(dir, "assets/" SAMPLE "/segment.mp4"), O_WRONLY);
  ck_assert_int_eq(ftruncate(fd, 64 << 20), 0);
  close(fd);
  start(NULL);
}

static void teardown(void) {
  rescue_serve_stop(&srv);
  free(db);
  free(dir);
}

/*
** A comment by the lead (a write), answered within 40 s (a write waits 10 s at most for
** the store; the rest is room for a loaded machine): its status.
*/
static int write_comment(int k) {
  char body[128];
  char *r;
  int status;
  snprintf(body, sizeof body, "{\"text\": \"keeps writing %d\"}", k);
  r = request(40, "POST", SPATH "/comments", bearer(tok_lead), body);
  status = status_of(r);
  if (status != 200 && status != 503)
    fprintf(stderr, "write %d: %.300s\n", k, r);
  free(r);
  return status;
}

/* ---- connections ---- */

typedef struct attack {
  int fds[320];
  int n;
  volatile int stop;
} attack;

/* Slowloris: each socket trickles one more header byte every 200 ms until told to stop. */
static void *trickle(void *arg) {
  attack *a = arg;
  int i, round = 0;
  while (!a->stop && round < 400) {
    for (i = 256; i < a->n; i++)
      if (a->fds[i] >= 0 && send(a->fds[i], "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0 &&
          errno != EAGAIN)
        a->fds[i] = -1;
    usleep(200 * 1000);
    round++;
  }
  return NULL;
}

/*
** 256 idle sockets and 64 slowloris ones (another client address: 127.0.0.2) while the
** lead keeps writing from 127.0.0.1: every write is answered.
*/
START_TEST(test_idle_and_slowloris) {
  attack a = {.n = 0};
  pthread_t th;
  int i, ok = 0;
  for (i = 0; i < 320; i++) {
    a.fds[i] = dial("127.0.0.2", 5);
    if (a.fds[i] >= 0 && i >= 256)
      send_all(a.fds[i], "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", 33);
    a.n++;
  }
  pthread_create(&th, NULL, trickle, &a);
  for (i = 0; i < 20; i++)
    ok += write_comment(i) == 200;
  a.stop = 1;
  pthread_join(th, NULL);
  for (i = 0; i < a.n; i++)
    if (a.fds[i] >= 0)
      close(a.fds[i]);
  ck_assert_int_eq(ok, 20);
}
END_TEST

/*
** Send start, then a byte every second (never silent long enough for the inactivity
** timeout) for 60 s at most: 1 when the server cut the connection off meanwhile.
*/
static int cut_off_while_trickling(const char *start) {
  int fd = dial(NULL, 5), i, closed = 0;
  char c;
  ck_assert_int_ge(fd, 0);
  ck_assert(send_all(fd, start, strlen(start)));
  for (i = 0; i < 60 && !closed; i++) {
    ssize_t n;
    sleep(1);
    n = recv(fd, &c, 1, MSG_DONTWAIT);
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) ||
        send(fd, "X", 1, MSG_NOSIGNAL) < 0)
      closed = 1;
  }
  close(fd);
  return closed;
}

/*
** A client that trickles its request head a byte every second is cut off once the
** request's deadline passes (20 s): within 60 bytes.
*/
START_TEST(test_head_deadline) {
  ck_assert_msg(cut_off_while_trickling("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n"),
                "a head trickled for 60 s kept its connection");
}
END_TEST

/* The same for a body: the deadline covers the whole request (head and body). */
START_TEST(test_body_deadline) {
  char head[512];
  snprintf(head, sizeof head,
           "POST " SPATH "/comments HTTP/1.1\r\nHost: 127.0.0.1\r\n%sContent-Type: "
           "application/json\r\nContent-Length: 1000\r\n\r\n{\"text\": \"",
           bearer(tok_lead));
  ck_assert_msg(cut_off_while_trickling(head), "a body trickled for 60 s kept its connection");
}
END_TEST

/*
** A chunked body past 1 MiB is cut off as soon as it passes (libmicrohttpd 0.9.75 cannot
** answer in the middle of a body, so the connection is closed), not read to its end.
*/
START_TEST(test_chunked_oversize) {
  static char chunk[65536 + 16];
  int fd = dial(NULL, 30), i, closed = 0;
  const char *head = "POST " SPATH "/comments HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                     "Transfer-Encoding: chunked\r\nContent-Type: application/json\r\n";
  char hdr[512], *resp;
  ck_assert_int_ge(fd, 0);
  snprintf(hdr, sizeof hdr, "%s%s\r\n", head, bearer(tok_lead));
  ck_assert(send_all(fd, hdr, strlen(hdr)));
  memcpy(chunk, "10000\r\n", 7);
  memset(chunk + 7, 'x', 65536);
  memcpy(chunk + 7 + 65536, "\r\n", 2);
  /* 17 chunks of 64 KiB, no last chunk: a server that waits for the end never answers */
  for (i = 0; i < 17; i++)
    if (!send_all(fd, chunk, 7 + 65536 + 2))
      break;
  resp = read_until(fd, &closed);
  close(fd);
  ck_assert_msg(closed, "the server waited for the rest of an oversize chunked body");
  ck_assert_int_ne(status_of(resp), 200);
  free(resp);
  /* announced with Content-Length: 413 before the body, with the headers */
  fd = dial(NULL, 30);
  snprintf(hdr, sizeof hdr,
           "POST " SPATH "/comments HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: %d\r\n%s\r\n",
           2 << 20, bearer(tok_lead));
  ck_assert(send_all(fd, hdr, strlen(hdr)));
  resp = read_all(fd);
  close(fd);
  expect(resp, 413);
  ck_assert_ptr_nonnull(header(resp, "Content-Security-Policy"));
  ck_assert_str_eq(header(resp, "X-Frame-Options"), "DENY");
  free(resp);
}
END_TEST

/* ---- no long-held store connection ---- */

/* A clip download that reads nothing: the server is left with most of 64 MiB to send. */
static int stalled_download(void) {
  int fd, small = 4096;
  char req[512];
  fd = socket(AF_INET, SOCK_STREAM, 0);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  close(fd);
  fd = dial(NULL, 30);
  ck_assert_int_ge(fd, 0);
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  snprintf(req, sizeof req,
           "GET /clips/" SAMPLE "/segment.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n%s\r\n",
           bearer(tok_ann));
  ck_assert(send_all(fd, req, strlen(req)));
  return fd;
}

/* 8 stalled clip downloads (as many as the store connections); another client signs in. */
START_TEST(test_slow_clips_signin) {
  int fds[8], i;
  char body[128], *r, buf[64];
  for (i = 0; i < 8; i++)
    fds[i] = stalled_download();
  for (i = 0; i < 8; i++) /* every download has started */
    ck_assert_int_gt(recv(fds[i], buf, sizeof buf, MSG_WAITALL), 0);
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_lead);
  r = request(20, "POST", "/api/login", NULL, body);
  expect(r, 200);
  free(r);
  r = request(20, "GET", "/api/samples", bearer(tok_lead), NULL);
  expect(r, 200);
  free(r);
  for (i = 0; i < 8; i++)
    close(fds[i]);
}
END_TEST

typedef struct holder {
  volatile int ready, release;
} holder;

/* A command-line writer: BEGIN IMMEDIATE on the corpus, held until released (60 s at most). */
static void *hold_write(void *arg) {
  holder *h = arg;
  sqlite3 *d = NULL;
  int i;
  ck_assert_int_eq(sqlite3_open(db, &d), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(d, "BEGIN IMMEDIATE", NULL, NULL, NULL), SQLITE_OK);
  h->ready = 1;
  for (i = 0; i < 600 && !h->release; i++)
    usleep(100 * 1000);
  sqlite3_exec(d, "COMMIT", NULL, NULL, NULL);
  sqlite3_close(d);
  return NULL;
}

static int writes_sent;

/* A comment by the lead sent on a connection of its own (writes_sent counts it once sent),
   answered within 40 s: its status. */
static void *one_write(void *arg) {
  char body[128], req[1024], *r;
  int fd = dial(NULL, 40), status;
  ck_assert_int_ge(fd, 0);
  snprintf(body, sizeof body, "{\"text\": \"waits %d\"}", (int)(intptr_t)arg);
  snprintf(req, sizeof req,
           "POST " SPATH "/comments HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n%s"
           "Content-Length: %zu\r\n\r\n%s",
           bearer(tok_lead), strlen(body), body);
  ck_assert(send_all(fd, req, strlen(req)));
  __atomic_add_fetch(&writes_sent, 1, __ATOMIC_SEQ_CST);
  r = read_all(fd);
  close(fd);
  status = status_of(r);
  if (status != 503)
    fprintf(stderr, "a write while the corpus was held: %.300s\n", r);
  free(r);
  return (void *)(intptr_t)status;
}

/*
** A long command-line write: 8 writes at once each get 503 "corpus busy" with Retry-After
** within the 10 s bound (answered within 40 s, while the writer holds on for 60), and
** meanwhile reads and sign-in answer (within 20 s: they wait for no writer).
*/
START_TEST(test_long_cli_write) {
  holder h = {0, 0};
  pthread_t hold, w[8];
  char body[128], *r;
  int i, busy = 0;
  pthread_create(&hold, NULL, hold_write, &h);
  while (!h.ready)
    usleep(10 * 1000);
  writes_sent = 0;
  for (i = 0; i < 8; i++)
    pthread_create(&w[i], NULL, one_write, (void *)(intptr_t)i);
  /* every write is sent before the reads (a bounded wait) */
  for (i = 0; i < 2000 && __atomic_load_n(&writes_sent, __ATOMIC_SEQ_CST) < 8; i++)
    usleep(10 * 1000);
  ck_assert_int_eq(__atomic_load_n(&writes_sent, __ATOMIC_SEQ_CST), 8);
  r = request(20, "GET", "/api/me", bearer(tok_ann), NULL);
  expect(r, 200);
  free(r);
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_ann);
  r = request(20, "POST", "/api/login", NULL, body);
  expect(r, 200);
  free(r);
  r = request(20, "GET", SPATH, bearer(tok_ann), NULL);
  expect(r, 200);
  free(r);
  for (i = 0; i < 8; i++) {
    void *st;
    pthread_join(w[i], &st);
    busy += (int)(intptr_t)st == 503;
  }
  h.release = 1;
  pthread_join(hold, NULL);
  ck_assert_int_eq(busy, 8);
  r = request(40, "POST", SPATH "/comments", bearer(tok_lead), "{\"text\": \"after\"}");
  expect(r, 200);
  free(r);
  /* the 503's form */
  h.release = 0;
  h.ready = 0;
  pthread_create(&hold, NULL, hold_write, &h);
  while (!h.ready)
    usleep(10 * 1000);
  r = request(40, "POST", SPATH "/comments", bearer(tok_lead), "{\"text\": \"busy\"}");
  h.release = 1;
  pthread_join(hold, NULL);
  expect(r, 503);
  ck_assert_ptr_nonnull(strstr(r, "corpus busy"));
  ck_assert_ptr_nonnull(header(r, "Retry-After"));
  free(r);
}
END_TEST

/* One read as `tok` while the corpus is held: answered (within 30 s) with want (0: any
   answer but 503). */
static void read_while_held(const char *tok, const char *method, const char *path, int want) {
  char *r = request(30, method, path, tok ? bearer(tok) : NULL, NULL);
  int st = status_of(r);
  if (want)
    ck_assert_msg(st == want, "%s %s: status %d, want %d: %.300s", method, path, st, want, r);
  else
    ck_assert_msg(st != 0 && st != 503, "%s %s: status %d: %.300s", method, path, st, r);
  free(r);
}

/*
** Reads never wait for the store's lock: while a command-line writer holds the corpus
** (BEGIN EXCLUSIVE, pages written, not committed) until every read here has answered,
** each read route answers as it would otherwise, for an annotator and a lead (a read that
** waited on the writer would get 503 after 10 s, or no answer). The corpus is in WAL mode
** (readers take no lock a writer holds) and no writer can take one that stops readers
** while the server has it open: exclusive locking mode is refused.
*/
START_TEST(test_reads_ignore_writer) {
  sqlite3 *w = NULL, *x = NULL;
  char body[128], *r;
  ck_assert_int_eq(sqlite3_open(db, &w), SQLITE_OK);
  ck_assert_int_eq(sqlite3_exec(w,
                                "BEGIN EXCLUSIVE; CREATE TABLE held(b); "
                                "INSERT INTO held VALUES (zeroblob(4 << 20));",
                                NULL, NULL, NULL),
                   SQLITE_OK);
  ck_assert_int_eq(sqlite3_open(db, &x), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_exec(x, "PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE", NULL, NULL, NULL),
      SQLITE_BUSY);
  sqlite3_close(x);
  read_while_held(tok_ann, "GET", "/api/me", 200);
  read_while_held(tok_ann, "GET", "/api/scheme", 200);
  read_while_held(tok_ann, "GET", "/api/samples", 200);
  read_while_held(tok_ann, "GET", SPATH, 200);
  read_while_held(tok_ann, "HEAD", "/clips/" SAMPLE "/segment.mp4", 200);
  read_while_held(tok_ann, "GET", SPATH "/waveform", 0); /* the clip is no media */
  read_while_held(tok_lead, "GET", "/api/dashboard", 200);
  read_while_held(tok_lead, "GET", "/api/samples", 200);
  read_while_held(tok_lead, "GET", SPATH "?view=ann", 200);
  read_while_held(tok_lead, "GET", "/api/curate", 200);
  read_while_held(tok_lead, "GET", "/api/curate/" SAMPLE, 200);
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok_ann);
  r = request(30, "POST", "/api/login", NULL, body);
  expect(r, 200);
  free(r);
  read_while_held(tok_lead, "POST", "/api/logout", 200);
  /* a write meanwhile gets the 503 */
  r = request(40, "POST", SPATH "/comments", bearer(tok_lead), "{\"text\": \"held\"}");
  expect(r, 503);
  ck_assert_ptr_nonnull(strstr(r, "corpus busy"));
  free(r);
  ck_assert_int_eq(sqlite3_exec(w, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
  sqlite3_close(w);
}
END_TEST

/* ---- headers, Host, sizes, modes ---- */

/* The headers every response the server builds carries. */
static void security_headers(const char *r) {
  ck_assert_ptr_nonnull(strstr(header(r, "Content-Security-Policy"), "frame-ancestors 'none'"));
  ck_assert_str_eq(header(r, "X-Frame-Options"), "DENY");
  ck_assert_str_eq(header(r, "Referrer-Policy"), "no-referrer");
  ck_assert_str_eq(header(r, "X-Content-Type-Options"), "nosniff");
  ck_assert_str_eq(header(r, "Cache-Control"), "private, no-store");
}

START_TEST(test_headers_host_sizes) {
  char *r, big[6000];
  const char *hosts[] = {"Host: localhost:9999\r\n", "Host: 127.0.0.5\r\n", "Host: [::1]:80\r\n"};
  size_t i;
  r = request(30, "GET", SPATH, bearer(tok_ann), NULL);
  expect(r, 200);
  security_headers(r);
  free(r);
  r = request(30, "GET", "/clips/" SAMPLE "/segment.mp4",
              "Range: bytes=0-9\r\nAuthorization: Bearer x\r\n", NULL);
  security_headers(r); /* 401 */
  free(r);
  {
    char h[256];
    snprintf(h, sizeof h, "Range: bytes=0-9\r\n%s", bearer(tok_ann));
    r = request(30, "GET", "/clips/" SAMPLE "/segment.mp4", h, NULL);
    expect(r, 206);
    security_headers(r);
    free(r);
  }
  r = request(30, "GET", "/nowhere", NULL, NULL);
  expect(r, 404);
  security_headers(r);
  free(r);
  /* any loopback name and port on a loopback server (an SSH tunnel keeps working) */
  for (i = 0; i < sizeof hosts / sizeof hosts[0]; i++) {
    char h[256];
    snprintf(h, sizeof h, "%s%s", hosts[i], bearer(tok_ann));
    r = request(30, "GET", "/api/me", h, NULL);
    expect(r, 200);
    free(r);
  }
  /* another name (DNS rebinding) is refused, with the headers */
  r = request(30, "GET", "/api/me", "Host: attacker.example\r\n", NULL);
  expect(r, 421);
  security_headers(r);
  free(r);
  r = request(30, "GET", "/", "Host: review.example.org\r\n", NULL);
  expect(r, 421);
  free(r);
  /* a comment past 4000 bytes */
  memcpy(big, "{\"text\": \"", 10);
  memset(big + 10, 'a', 4500);
  memcpy(big + 4510, "\"}", 3);
  r = request(30, "POST", SPATH "/comments", bearer(tok_lead), big);
  expect(r, 400);
  ck_assert_ptr_nonnull(strstr(r, "longer than 4000 bytes"));
  free(r);
  /* a status reason past 4000 bytes (the 900 kB one showed in every work list) */
  memcpy(big, "{\"status\": \"discarded\", \"reason\": \"", 35);
  memset(big + 35, 'a', 4500);
  memcpy(big + 4535, "\"}", 3);
  r = request(30, "POST", SPATH "/status", bearer(tok_lead), big);
  expect(r, 400);
  ck_assert_ptr_nonnull(strstr(r, "'reason' is longer than 4000 bytes"));
  free(r);
  /* a request head past 32 KiB: libmicrohttpd's own 431 (no security headers there in
     0.9.75, and no user data), and nothing served */
  {
    static char pad[40 * 1024 + 32];
    memcpy(pad, "X-Pad: ", 7);
    memset(pad + 7, 'a', 40 * 1024);
    memcpy(pad + 7 + 40 * 1024, "\r\n", 3);
    r = request(30, "GET", "/api/me", pad, NULL);
    expect(r, 431);
    free(r);
  }
  /* --public-host names */
  rescue_serve_stop(&srv);
  start("review.example.org,other.example.org");
  r = request(30, "GET", "/", "Host: review.example.org:8443\r\n", NULL);
  expect(r, 200);
  free(r);
  r = request(30, "GET", "/", "Host: localhost\r\n", NULL);
  expect(r, 200);
  free(r);
  r = request(30, "GET", "/", "Host: review.example.org.evil\r\n", NULL);
  expect(r, 421);
  free(r);
}
END_TEST

/* Fail unless path and, for a folder, everything under it is its owner's alone. */
static void owner_only(const char *path) {
  struct stat sb;
  DIR *d;
  struct dirent *e;
  ck_assert_msg(lstat(path, &sb) == 0, "%s is missing", path);
  ck_assert_msg((sb.st_mode & 077) == 0, "%s has mode %o", path, (unsigned)(sb.st_mode & 0777));
  if (!S_ISDIR(sb.st_mode))
    return;
  ck_assert_ptr_nonnull(d = opendir(path));
  while ((e = readdir(d))) {
    char sub[4200];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
    owner_only(sub);
  }
  closedir(d);
}

/*
** The corpus and its journal, exports (a file and a folder) and backups the CLI makes are
** readable by their owner only, whatever the mask of the process that runs it (this
** test's, usually 022).
*/
START_TEST(test_file_modes) {
  char p[4200], wal[4300], out[4200];
  mode_t old = umask(022);
  snprintf(p, sizeof p, "%s", tu_path(dir, "modes.db"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "init", p, NULL), 0);
  owner_only(p);
  snprintf(out, sizeof out, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", p, out, NULL), 0);
  owner_only(p);
  snprintf(wal, sizeof wal, "%s-wal", p);
  if (access(wal, F_OK) == 0)
    owner_only(wal);
  snprintf(out, sizeof out, "%s", tu_path(dir, "export.jsonl"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", p, "--format", "samples", "--out", out, NULL),
                   0);
  owner_only(out);
  snprintf(out, sizeof out, "%s", tu_path(dir, "tasks"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", p, "--format", "tasks", "--out", out, NULL), 0);
  owner_only(out);
  snprintf(out, sizeof out, "%s", tu_path(dir, "eaf"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", p, "--format", "eaf", "--out", out, NULL), 0);
  owner_only(out);
  snprintf(out, sizeof out, "%s", tu_path(dir, "backup.db"));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "backup", p, out, NULL), 0);
  owner_only(out);
  umask(old);
}
END_TEST

/* ---- TLS ---- */

/* Run a shell command; its exit status. */
static int sh(const char *cmd) {
  int rc = system(cmd);
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

START_TEST(test_tls) {
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  rescue_server *tls = NULL;
  char cert[4200], key[4200], cmd[16384], *out = NULL, *e = NULL;
  const char *reqf, *outf;
  FILE *f;
  size_t n;
  static char got[65536];
  snprintf(cert, sizeof cert, "%s", tu_path(dir, "cert.pem"));
  snprintf(key, sizeof key, "%s", tu_path(dir, "key.pem"));
  snprintf(cmd, sizeof cmd,
           "openssl req -x509 -newkey rsa:2048 -nodes -subj /CN=localhost -days 2 "
           "-keyout '%s' -out '%s' 2>/dev/null",
           key, cert);
  ck_assert_msg(sh(cmd) == 0, "openssl could not make a certificate (.ci/deps installs it)");
  /* beyond loopback without TLS: refused, saying why */
  o.db = db;
  o.listen = "0.0.0.0:0";
  ck_assert_int_eq(rescue_serve_start(&o, &tls, &err), RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(err.msg, "in clear"));
  ck_assert_int_eq(tu_rescue(&out, &e, "serve", db, "--listen", "0.0.0.0:0", NULL), 1);
  ck_assert_ptr_nonnull(strstr(e, "--insecure-listen"));
  ck_assert_ptr_nonnull(strstr(e, "in clear"));
  free(out);
  free(e);
  /* and without the names browsers use (every request would get 421) */
  ck_assert_int_eq(
      tu_rescue(&out, &e, "serve", db, "--listen", "0.0.0.0:0", "--insecure-listen", NULL), 2);
  ck_assert_ptr_nonnull(strstr(e, "--public-host"));
  free(out);
  free(e);
  /* HTTPS on loopback: sign in */
  o.listen = "127.0.0.1:0";
  o.tls_cert = cert;
  o.tls_key = key;
  ck_assert_msg(rescue_serve_start(&o, &tls, &err) == 0, "%s", err.msg);
  reqf = tu_path(dir, "login.http");
  snprintf(cmd, sizeof cmd,
           "POST /api/login HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n"
           "Content-Type: application/json\r\nContent-Length: %zu\r\n\r\n{\"token\": \"%s\"}",
           strlen(tok_ann) + 13, tok_ann);
  tu_write(reqf, cmd);
  outf = tu_path(dir, "login.out");
  {
    char r2[4200], o2[4200];
    snprintf(r2, sizeof r2, "%s", reqf);
    snprintf(o2, sizeof o2, "%s", outf);
    snprintf(cmd, sizeof cmd,
             "timeout 30 openssl s_client -connect 127.0.0.1:%d -servername localhost -quiet "
             "-ign_eof < '%s' > '%s' 2>/dev/null",
             rescue_serve_port(tls), r2, o2);
    sh(cmd);
    f = fopen(o2, "rb");
  }
  ck_assert_ptr_nonnull(f);
  n = fread(got, 1, sizeof got - 1, f);
  got[n] = 0;
  fclose(f);
  ck_assert_msg(strncmp(got, "HTTP/1.1 200", 12) == 0, "over HTTPS: %.300s", got);
  ck_assert_ptr_nonnull(strstr(got, "\"csrf\""));
  ck_assert_ptr_nonnull(strstr(header(got, "Set-Cookie"), "; Secure"));
  /* plain HTTP to the HTTPS port gets no answer */
  {
    int keep = port;
    port = rescue_serve_port(tls);
    out = request(5, "GET", "/api/me", bearer(tok_ann), NULL);
    ck_assert_int_ne(status_of(out), 200);
    free(out);
    port = keep;
  }
  rescue_serve_stop(&tls);
}
END_TEST

/* ---- per-address limits: an IPv6 client counts by its /64 ---- */

/* The address key of a textual IPv4 or IPv6 address. */
static const char *key_of(const char *text) {
  static char key[SRV_ADDR_KEY];
  struct sockaddr_storage ss;
  memset(&ss, 0, sizeof ss);
  if (inet_pton(AF_INET, text, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
    ss.ss_family = AF_INET;
  } else {
    ck_assert_int_eq(inet_pton(AF_INET6, text, &((struct sockaddr_in6 *)&ss)->sin6_addr), 1);
    ss.ss_family = AF_INET6;
  }
  srv_addr_key((struct sockaddr *)&ss, key);
  return key;
}

/*
** Several addresses of one /64 share a key, another /64 does not; an IPv4-mapped address
** counts as its IPv4 address (not as part of ::/64, where every mapped address lies).
*/
START_TEST(test_addr_key) {
  char k[SRV_ADDR_KEY];
  ck_assert_str_eq(key_of("2001:db8:1:2::1"), "2001:db8:1:2::/64");
  ck_assert_str_eq(key_of("2001:db8:1:2:ffff:ffff:ffff:ffff"), "2001:db8:1:2::/64");
  ck_assert_str_eq(key_of("2001:db8:1:2:abcd:0:12:7"), "2001:db8:1:2::/64");
  ck_assert_str_eq(key_of("2001:db8:1:3::1"), "2001:db8:1:3::/64");
  ck_assert_str_eq(key_of("fe80::1:2"), "fe80::/64");
  ck_assert_str_eq(key_of("::1"), "::/64");
  ck_assert_str_eq(key_of("192.0.2.7"), "192.0.2.7");
  ck_assert_str_eq(key_of("::ffff:192.0.2.7"), "192.0.2.7");
  ck_assert_str_eq(key_of("::ffff:192.0.2.8"), "192.0.2.8");
  ck_assert_str_eq(key_of("192.0.2.8"), "192.0.2.8");
  srv_addr_key(NULL, k);
  ck_assert_str_eq(k, "?");
}
END_TEST

/* A connection to [::1]:port with timeouts of secs; -1 when refused. */
static int dial6(int port6, int secs) {
  struct sockaddr_in6 a;
  struct timeval tv = {secs, 0};
  int fd = socket(AF_INET6, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  a.sin6_port = htons((uint16_t)port6);
  if (connect(fd, (struct sockaddr *)&a, sizeof a) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

/* One request on a connection to [::1]:port6: the response (caller frees). */
static char *request6(int port6, const char *path, const char *headers) {
  char req[1024];
  char *out;
  int fd = dial6(port6, 20);
  ck_assert_int_ge(fd, 0);
  snprintf(req, sizeof req, "GET %s HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n%s\r\n", path,
           headers ? headers : "");
  ck_assert(send_all(fd, req, strlen(req)));
  out = read_all(fd);
  close(fd);
  return out;
}

/* 1 when ::1 can be bound here (the machine has IPv6 loopback). */
static int have_ipv6_loopback(void) {
  struct sockaddr_in6 a;
  int fd = socket(AF_INET6, SOCK_STREAM, 0), ok;
  if (fd < 0)
    return 0;
  memset(&a, 0, sizeof a);
  a.sin6_family = AF_INET6;
  a.sin6_addr = in6addr_loopback;
  ok = bind(fd, (struct sockaddr *)&a, sizeof a) == 0;
  close(fd);
  return ok;
}

/*
** The limits on IPv6 loopback (::1, key ::/64): of 40 connections the server keeps
** SRV_PER_ADDRESS and closes the rest before reading them, and the ones it kept answer;
** wrong Bearer tokens from ::1 are held off after 10, naming the /64.
*/
START_TEST(test_per_address_ipv6) {
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  rescue_server *s6 = NULL;
  int fds[SRV_PER_ADDRESS + 8], open_[SRV_PER_ADDRESS + 8], n = SRV_PER_ADDRESS + 8;
  int i, round, closed = 0, answered = 0, port6;
  char *r;
  if (!have_ipv6_loopback()) {
    fprintf(stderr, "test_per_address_ipv6: SKIPPED, this machine has no IPv6 loopback (::1)\n");
    return;
  }
  o.db = db;
  o.listen = "[::1]:0";
  ck_assert_msg(rescue_serve_start(&o, &s6, &err) == 0, "%s", err.msg);
  port6 = rescue_serve_port(s6);
  for (i = 0; i < n; i++) {
    fds[i] = dial6(port6, 20);
    ck_assert_int_ge(fds[i], 0);
    open_[i] = 1;
  }
  /* the ones past the limit are closed at once (a bounded wait for it) */
  for (round = 0; round < 400 && closed < n - SRV_PER_ADDRESS; round++) {
    for (i = 0; i < n; i++) {
      char c;
      if (open_[i] && recv(fds[i], &c, 1, MSG_DONTWAIT) == 0)
        open_[i] = 0, closed++;
    }
    usleep(25 * 1000);
  }
  ck_assert_int_eq(closed, n - SRV_PER_ADDRESS);
  /* the ones kept were not counted twice: each answers */
  for (i = 0; i < n; i++) {
    static const char req[] = "GET /api/me HTTP/1.1\r\nHost: [::1]\r\nConnection: close\r\n\r\n";
    if (!open_[i])
      continue;
    ck_assert(send_all(fds[i], req, sizeof req - 1));
  }
  for (i = 0; i < n; i++) {
    if (open_[i]) {
      r = read_all(fds[i]);
      answered += status_of(r) == 401;
      free(r);
    }
    close(fds[i]);
  }
  ck_assert_int_eq(answered, SRV_PER_ADDRESS);
  /* once they are closed, ::1 connects again: the count goes down (libmicrohttpd tells
     of a close just after the client sees it, so a bounded wait for that) */
  for (i = 0, round = 0; i < 10 && round < 200; round++) {
    int st;
    r = request6(port6, "/api/samples", bearer("guess"));
    st = status_of(r);
    /* closed unanswered (no status line) while the count has not gone down yet */
    ck_assert_msg(st == 401 || (st < 0 && i == 0), "guess %d: %.300s", i, r);
    free(r);
    if (st == 401)
      i++;
    else
      usleep(25 * 1000);
  }
  ck_assert_int_eq(i, 10);
  r = request6(port6, "/api/samples", bearer(tok_ann));
  ck_assert_msg(status_of(r) == 429, "%.300s", r);
  ck_assert_ptr_nonnull(strstr(r, "too many failed sign-ins from ::/64"));
  free(r);
  rescue_serve_stop(&s6);
}
END_TEST

int main(void) {
  Suite *s = suite_create("serve_net");
  TCase *tc = tcase_create("net");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_idle_and_slowloris);
  tcase_add_test(tc, test_head_deadline);
  tcase_add_test(tc, test_body_deadline);
  tcase_add_test(tc, test_chunked_oversize);
  tcase_add_test(tc, test_slow_clips_signin);
  tcase_add_test(tc, test_long_cli_write);
  tcase_add_test(tc, test_headers_host_sizes);
  tcase_add_test(tc, test_file_modes);
  tcase_add_test(tc, test_tls);
  suite_add_tcase(s, tc);
  /* cases of their own, so that each can be run alone (CK_RUN_CASE=limits, reads) */
  tc = tcase_create("limits");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_addr_key);
  tcase_add_test(tc, test_per_address_ipv6);
  suite_add_tcase(s, tc);
  tc = tcase_create("reads");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_reads_ignore_writer);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
