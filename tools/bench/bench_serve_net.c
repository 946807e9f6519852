/*
** bench_serve_net.c: what it takes to deny the review server to others, and what slow
** clients cost an annotator. Against a server in the same process on loopback:
**   idle sockets and slowloris sockets (each trickling a header byte every 200 ms) are
**   opened 32 at a time, from one client address (127.0.0.2) and then from many
**   (127.0.0.2, .3, ...: 32 sockets each, the per-address limit), and after each batch an
**   annotator from 127.0.0.1 asks GET /api/me with 2 s to answer: printed is the number
**   of attacking sockets open when the first answer did not come (or that none failed up
**   to --max sockets);
**   8 clip downloads that stop reading (a 64 MiB clip, 4 KiB receive buffers), then a third
**   annotator signs in (POST /api/login) and loads a sample (GET /api/samples/<id>): the
**   time both take.
** The figures for the server before (tests/check_serve_net.c covers the same
** attacks): 256 idle or slow sockets stopped it; the third annotator waited 15-20 s.
**
** usage: bench_serve_net [--max N] [--dir DIR]
*/
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "benchcorpus.h"
#include "benchhttp.h"
#include "benchutil.h"
#include "rescue.h"
#include "serve.h"

#define SAMPLE "maya_and_daniel/001_s01e01_segment01"

static int port;

/* A connection from 127.0.0.<from> (0: any), receive/send timeouts of secs; -1 if refused. */
static int dial(int from, int secs) { return bench_dial(port, from, secs); }

/* One request (Connection: close) answered within secs: the status, -1 for none. */
static int request(int secs, const char *method, const char *path, const char *token,
                   const char *body) {
  return bench_request(port, secs, method, path, token, body);
}

/*
** Open attacking sockets 32 per batch (from 127.0.0.2 only, or a new address per batch)
** until the annotator's GET /api/me gets no answer within 2 s or max are open; slow: each
** sends a request head's start and then a byte per round. Returns the sockets open at
** the first failure, or 0 when none failed.
*/
static int deny(const char *token, int many, int slow, int max, int *opened) {
  int *fds = calloc((size_t)max, sizeof *fds), n = 0, denied = 0, i, b;
  for (b = 0; n < max && !denied; b++) {
    int from = many ? 2 + b : 2;
    for (i = 0; i < 32 && n < max; i++) {
      int fd = dial(from, 2);
      if (fd < 0)
        continue; /* refused (the per-address limit): not open */
      if (slow)
        send(fd, "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n", 33, MSG_NOSIGNAL);
      fds[n++] = fd;
    }
    for (i = 0; slow && i < n; i++) /* one more header byte each */
      send(fds[i], "X", 1, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (request(2, "GET", "/api/me", token, NULL) != 200)
      denied = n;
    if (!many && b >= 2)
      break; /* one address: further batches are refused alike */
  }
  *opened = n;
  for (i = 0; i < n; i++)
    close(fds[i]);
  free(fds);
  return denied;
}

/* A clip download that reads nothing after its first bytes. */
static int stalled_download(const char *token) {
  int fd, small = 4096;
  char req[512], buf[64];
  if ((fd = dial(0, 5)) < 0)
    return -1;
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, sizeof small);
  snprintf(req, sizeof req,
           "GET /clips/" SAMPLE "/segment.mp4 HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           "Authorization: Bearer %s\r\n\r\n",
           token);
  send(fd, req, strlen(req), MSG_NOSIGNAL);
  if (recv(fd, buf, sizeof buf, MSG_WAITALL) <= 0) {
    close(fd);
    return -1;
  }
  return fd;
}

int main(int argc, char **argv) {
  char tmpl[] = "/tmp/bench_serve_net.XXXXXX", db[4096], path[4200], jsonl[4200];
  char tok[3][65], body[256];
  const char *dir = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  rescue_server *srv = NULL;
  rescue_serve_opts o;
  int max = 1100, i, fd, opened, fds[8], s1, s2;
  double t0;
  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--max") && i + 1 < argc)
      max = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else {
      fprintf(stderr, "usage: bench_serve_net [--max N] [--dir DIR]\n");
      return 2;
    }
  }
  if (!dir && !(dir = mkdtemp(tmpl)))
    return 1;
  snprintf(db, sizeof db, "%s/net.db", dir);
  snprintf(jsonl, sizeof jsonl, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  if (!(st = bench_corpus("bench_serve_net", db, jsonl)) ||
      bench_annotators("bench_serve_net", st, "annotator%d", 1, 3, tok[0], sizeof tok[0]))
    return 1;
  rescue_store_close(&st);
  /* a 64 MiB clip (sparse): more than the kernel buffers of a client that stops reading */
  snprintf(path, sizeof path, "%s/assets", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/assets/maya_and_daniel", dir);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/assets/%s", dir, SAMPLE);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/assets/%s/segment.mp4", dir, SAMPLE);
  if ((fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600)) < 0 || ftruncate(fd, 64 << 20)) {
    fprintf(stderr, "bench_serve_net: cannot write %s\n", path);
    return 1;
  }
  close(fd);
  memset(&o, 0, sizeof o);
  o.db = db;
  o.listen = "127.0.0.1:0";
  snprintf(path, sizeof path, "%s/assets", dir);
  o.assets = path;
  if (rescue_serve_start(&o, &srv, &err)) {
    fprintf(stderr, "bench_serve_net: %s\n", err.msg);
    return 1;
  }
  port = rescue_serve_port(srv);

  printf("bench_serve_net: attacking sockets open when an annotator's GET /api/me first got "
         "no answer within 2 s (0: never, up to the count tried)\n");
  s1 = deny(tok[0], 0, 0, max, &opened);
  printf("  idle sockets, one address:       %5d   (%d connected)\n", s1, opened);
  s2 = deny(tok[0], 0, 1, max, &opened);
  printf("  slowloris sockets, one address:  %5d   (%d connected)\n", s2, opened);
  sleep(1);
  s1 = deny(tok[0], 1, 0, max, &opened);
  printf("  idle sockets, many addresses:    %5d   (%d opened, 32 per address)\n", s1, opened);
  sleep(1);
  s2 = deny(tok[0], 1, 1, max, &opened);
  printf("  slowloris, many addresses:       %5d   (%d opened, 32 per address)\n", s2, opened);
  sleep(1);

  for (i = 0; i < 8; i++)
    fds[i] = stalled_download(i < 4 ? tok[0] : tok[1]);
  t0 = bench_now();
  snprintf(body, sizeof body, "{\"token\": \"%s\"}", tok[2]);
  s1 = request(30, "POST", "/api/login", NULL, body);
  s2 = request(30, "GET", "/api/samples/" SAMPLE, tok[2], NULL);
  printf("  a third annotator during 8 stalled clip downloads: sign-in %d and sample %d in "
         "%.1f ms\n",
         s1, s2, (bench_now() - t0) * 1e3);
  for (i = 0; i < 8; i++)
    if (fds[i] >= 0)
      close(fds[i]);
  rescue_serve_stop(&srv);
  return 0;
}
