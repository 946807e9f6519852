/*
** bench_serve.c: load on the review server: C concurrent clients (default 20), each signed
** in as its own annotator and working on its own sample, doing read-modify-save cycles
** (GET the sample, change one row, PUT it with its base version, on one kept-alive
** connection per client, as a browser does) for D seconds; prints
** saves/s, p50/p99 save latency, lost writes (successful saves minus the versions counted
** in the store afterwards) and errors. The reference run, in the same process, does the
** same cycles single-threaded straight through the library (rescue_row_save), so the ratio
** shows what HTTP, JSON and the server add. Then the same with S clients (default 32,
** SRV_PER_ADDRESS in tools/serve/serve_impl.h), the saturation throughput; then the save
** latency of one client alone on a 16-row sample (the reference) and on a 432-row one,
** which should be about the same (a save re-checks the row and what depends on it,
** rescue_lint_row_change in annotate/rescue_lint.h), with the GET of each sample in the
** same cycles (what the page's open costs on the server; the server keeps samples loaded
** between requests, tools/serve/serve_cache.c). Then the CPU the check before a save
** costs on each of the two samples, through the library, with the names the server keeps
** beside a loaded sample's lint and, as the reference, derived from every row
** (rescue_review_check_change with and without the kept lint). The load average is
** printed before and after: on a shared machine compare the ratios.
**
** usage: bench_serve [--clients C] [--saturation S] [--seconds D] [--dir DIR]
*/
#include <pthread.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "benchcorpus.h"
#include "benchhttp.h"
#include "benchutil.h"
#include "rescue.h"
#include "rescue_review.h"
#include "serve.h"

static int port;
static double t_end;

typedef struct client {
  int k;
  char token[65];
  char sample[256];
  long saves, errors, unchanged;
  double *lat; /* save latencies, seconds */
  long n_lat, cap_lat;
  double *glat; /* GET /api/samples/<id> latencies, seconds */
  long n_glat, cap_glat;
  char first_error[300];
} client;

/*
** One request on the client's kept-alive connection (*fd; reconnects when the server
** closed it), as a browser does; returns the status with the body in *resp
** (tools/bench/common/benchhttp.c).
*/
static int http(int *fd, const char *method, const char *path, const char *token, const char *body,
                size_t blen, rescue_buf *resp) {
  return bench_http(port, fd, method, path, token, body, blen, resp);
}

/* Write row with tone_of_voice replaced by tone. */
static void edited(rescue_buf *b, const rescue_jnode *row, const char *tone) {
  rescue_jw w;
  const rescue_jnode *m;
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  for (m = row->child; m; m = m->next) {
    rescue_jw_key(&w, m->key);
    if (strcmp(m->key, "tone_of_voice") == 0)
      rescue_jw_str(&w, tone);
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
}

/* Rows (1-based) of a GET /api/samples/<id> body without lint errors, into ok[]. */
static int clean_rows(const rescue_jnode *root, int *ok, int max) {
  const rescue_jnode *rows = rescue_jget(root, "rows"), *lint = rescue_jget(root, "lint"), *r, *f;
  int n = 0, i = 0;
  for (r = rows ? rows->child : NULL; r && n < max; r = r->next) {
    int bad = 0;
    i++;
    for (f = lint ? lint->child : NULL; f; f = f->next) {
      const rescue_jnode *fr = rescue_jget(f, "row"), *sv = rescue_jget(f, "severity");
      if (fr && (int)fr->num == i && sv && strcmp(sv->s, "error") == 0)
        bad = 1;
    }
    if (!bad)
      ok[n++] = i;
  }
  return n;
}

/*
** Entry pos (1-based) of the "rows" list of a GET /api/samples/<id> answer, parsed alone:
** the object that starts with "index": pos (the server writes that key first). NULL when
** not found or not JSON.
*/
static const rescue_jnode *row_entry(rescue_jdoc *doc, const rescue_buf *resp, int pos) {
  char key[32];
  const char *p, *open;
  const rescue_jnode *e, *idx;
  rescue_jerror je;
  snprintf(key, sizeof key, "{\"index\": %d,", pos);
  if (!(p = strstr(resp->s, "\"rows\": [")) || !(open = strstr(p, key)))
    return NULL;
  e = rescue_jparse_ex(doc, open, resp->len - (size_t)(open - resp->s), RESCUE_JPARSE_PREFIX, NULL,
                       &je);
  idx = e && e->type == RESCUE_JOBJECT ? rescue_jget(e, "index") : NULL;
  return idx && idx->num == pos && rescue_jget(e, "row") && rescue_jget(e, "version") ? e : NULL;
}

static void *run_client(void *arg) {
  client *c = arg;
  rescue_buf resp = RESCUE_BUF_INIT, body = RESCUE_BUF_INIT, path = RESCUE_BUF_INIT,
             put = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  int ok[512], n_ok = 0, cycle = 0, fd = -1;
  rescue_buf_printf(&path, "/api/samples/%s", c->sample);
  while (bench_now() < t_end) {
    rescue_jerror je;
    const rescue_jnode *root, *row;
    char tone[64];
    int pos, st;
    double t0;
    t0 = bench_now();
    st = http(&fd, "GET", path.s, c->token, NULL, 0, &resp);
    if (RESCUE_ALLOC_GROW(c->glat, c->n_glat + 1, c->cap_glat)) {
      fprintf(stderr, "bench_serve: out of memory\n");
      exit(1);
    }
    c->glat[c->n_glat++] = bench_now() - t0;
    if (!n_ok) { /* the first answer is read whole: which rows can be saved */
      root = st == 200 ? rescue_jparse(doc, resp.s, resp.len, &je) : NULL;
      if (!root) {
        c->errors++;
        continue;
      }
      n_ok = clean_rows(root, ok, 512);
      if (!n_ok)
        break;
    }
    /* then only the row this cycle edits is parsed, as a page's editor would touch one
       row: the clients share the server's two cores, and parsing every answer whole was
       a tenth of all the CPU the bench used */
    pos = ok[cycle % n_ok];
    row = st == 200 ? row_entry(doc, &resp, pos) : NULL;
    if (!row) {
      c->errors++;
      continue;
    }
    snprintf(tone, sizeof tone, "client %d cycle %d", c->k, cycle++);
    rescue_buf_reset(&body);
    rescue_buf_printf(
        &body, "{\"base_version\": %lld, \"row\": ", (long long)rescue_jget(row, "version")->num);
    edited(&body, rescue_jget(row, "row"), tone);
    rescue_buf_puts(&body, "}");
    rescue_buf_reset(&put);
    rescue_buf_printf(&put, "%s/rows/%d", path.s, pos);
    t0 = bench_now();
    st = http(&fd, "PUT", put.s, c->token, body.s, body.len, &resp);
    if (RESCUE_ALLOC_GROW(c->lat, c->n_lat + 1, c->cap_lat)) {
      fprintf(stderr, "bench_serve: out of memory\n");
      exit(1);
    }
    c->lat[c->n_lat++] = bench_now() - t0;
    if (st == 200) {
      c->saves++;
      if (strstr(resp.s, "\"unchanged\": true"))
        c->unchanged++;
    } else {
      if (!c->errors)
        snprintf(c->first_error, sizeof c->first_error, "%d %.280s", st, resp.s ? resp.s : "");
      c->errors++;
    }
  }
  if (fd >= 0)
    close(fd);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&resp);
  rescue_buf_clear(&body);
  rescue_buf_clear(&path);
  rescue_buf_clear(&put);
  return NULL;
}

static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

/* The same cycle through the library, single-threaded, for `secs` seconds. */
static void reference(const char *db, const char *sample, int64_t annotator, double secs,
                      long *saves, double *p50, double *p99) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_buf cur = RESCUE_BUF_INIT, text = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  double end, *lat = NULL;
  long n = 0, cap = 0;
  int pos = 1, rows = 0;
  *saves = 0;
  if (rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "bench_serve: %s\n", err.msg);
    return;
  }
  rescue_sample_rowcount(st, sample, &rows);
  end = bench_now() + secs;
  while (bench_now() < end && rows > 0) {
    int64_t v = 0, nv = 0;
    rescue_jerror je;
    const rescue_jnode *row;
    char tone[64];
    double t0 = bench_now();
    rescue_buf_reset(&cur);
    rescue_buf_reset(&text);
    if (rescue_row_current(st, sample, pos, annotator, &v, &cur))
      break;
    row = rescue_jparse(doc, cur.s, cur.len, &je);
    snprintf(tone, sizeof tone, "reference %ld", n);
    edited(&text, row, tone);
    if (rescue_row_save(st, sample, pos, annotator, v, text.s, text.len, &nv, NULL) == 0)
      (*saves)++;
    if (RESCUE_ALLOC_GROW(lat, n + 1, cap)) {
      fprintf(stderr, "bench_serve: out of memory\n");
      exit(1);
    }
    lat[n++] = bench_now() - t0;
    pos = pos % rows + 1;
  }
  if (n) {
    qsort(lat, (size_t)n, sizeof *lat, cmp_double);
    *p50 = lat[n / 2];
    *p99 = lat[(long)(n * 0.99)];
  }
  rescue_free(lat);
  rescue_buf_clear(&cur);
  rescue_buf_clear(&text);
  rescue_jdoc_free(&doc);
  rescue_store_close(&st);
}

/* CPU seconds the calling thread has used. */
static double thread_cpu(void) {
  struct timespec t;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/*
** What the check before a save costs on sample (rescue_review_check_change of a new tone
** on row 1 against annotator's loaded view), through the library in this thread: with the
** names the view's kept lint holds (what the server does) and without them (derived from
** every row of the sample, as before they were kept), alternating, for about secs seconds
** (at most CHECK_ROUNDS rounds). The median CPU seconds of each into *kept and *derived
** (0 when it could not run).
*/
#define CHECK_ROUNDS 20000
static void check_cost(const char *db, const char *sample, int64_t annotator, double secs,
                       double *kept, double *derived) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_view_sample L;
  rescue_lint_result lint;
  rescue_buf text = RESCUE_BUF_INIT;
  double *t[2], end;
  long n = 0;
  int k;
  *kept = *derived = 0;
  memset(&L, 0, sizeof L);
  memset(&lint, 0, sizeof lint);
  t[0] = rescue_calloc(CHECK_ROUNDS, sizeof *t[0]);
  t[1] = rescue_calloc(CHECK_ROUNDS, sizeof *t[1]);
  if (!t[0] || !t[1] || rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "bench_serve: %s\n", err.msg[0] ? err.msg : "out of memory");
    goto done;
  }
  if (rescue_view_sample_load(st, sample, annotator, &L) || L.n < 1 ||
      rescue_review_lint(st, sample, &L, &lint))
    goto done;
  edited(&text, L.rows[0], "checked, not saved");
  end = bench_now() + secs;
  while (n < CHECK_ROUNDS && bench_now() < end && rescue_buf_ok(&text)) {
    for (k = 0; k < 2; k++) {
      rescue_review_change ch;
      double t0 = thread_cpu();
      rescue_review_check_change(st, sample, &L, k ? NULL : &lint, 1, text.s, text.len, &ch);
      t[k][n] = thread_cpu() - t0;
      rescue_review_change_clear(&ch);
    }
    n++;
  }
  if (n) {
    qsort(t[0], (size_t)n, sizeof *t[0], cmp_double);
    qsort(t[1], (size_t)n, sizeof *t[1], cmp_double);
    *kept = t[0][n / 2];
    *derived = t[1][n / 2];
  }
done:
  rescue_free(t[0]);
  rescue_free(t[1]);
  rescue_buf_clear(&text);
  rescue_lint_result_clear(&lint);
  rescue_view_sample_clear(&L);
  rescue_store_close(&st);
}

/* What one phase of client threads did. */
typedef struct phase {
  int clients;
  double elapsed;
  long saves, errors, unchanged;
  double p50, p99; /* save latency, seconds */
  double g50, g99; /* sample GET latency, seconds */
  double cpu;      /* CPU seconds the process (server and clients) used, user + system */
} phase;

/* CPU seconds this process has used, user + system. */
static double cpu_now(void) {
  struct rusage u;
  getrusage(RUSAGE_SELF, &u);
  return (double)u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + (double)u.ru_stime.tv_sec +
         u.ru_stime.tv_usec / 1e6;
}

/* Run clients cs[0..n) for `seconds`, each on its own sample, into *ph. */
static void run_phase(client *cs, int n, double seconds, phase *ph) {
  pthread_t *th = calloc((size_t)n, sizeof *th);
  double *all, t0;
  long n_all = 0;
  int i;
  memset(ph, 0, sizeof *ph);
  ph->clients = n;
  for (i = 0; i < n; i++) {
    cs[i].saves = cs[i].errors = cs[i].unchanged = cs[i].n_lat = cs[i].n_glat = 0;
    cs[i].first_error[0] = 0;
  }
  t0 = bench_now();
  ph->cpu = cpu_now();
  t_end = t0 + seconds;
  for (i = 0; i < n; i++)
    pthread_create(&th[i], NULL, run_client, &cs[i]);
  for (i = 0; i < n; i++)
    pthread_join(th[i], NULL);
  ph->elapsed = bench_now() - t0;
  ph->cpu = cpu_now() - ph->cpu;
  for (i = 0; i < n; i++) {
    ph->saves += cs[i].saves;
    ph->errors += cs[i].errors;
    ph->unchanged += cs[i].unchanged;
    n_all += cs[i].n_lat;
  }
  all = malloc((size_t)(n_all ? n_all : 1) * sizeof *all);
  n_all = 0;
  for (i = 0; i < n; i++) {
    memcpy(all + n_all, cs[i].lat, (size_t)cs[i].n_lat * sizeof *all);
    n_all += cs[i].n_lat;
  }
  qsort(all, (size_t)n_all, sizeof *all, cmp_double);
  if (n_all) {
    ph->p50 = all[n_all / 2];
    ph->p99 = all[(long)(n_all * 0.99)];
  }
  if (n == 1 && cs[0].n_glat) {
    qsort(cs[0].glat, (size_t)cs[0].n_glat, sizeof *cs[0].glat, cmp_double);
    ph->g50 = cs[0].glat[cs[0].n_glat / 2];
    ph->g99 = cs[0].glat[(long)(cs[0].n_glat * 0.99)];
  }
  for (i = 0; i < n; i++)
    if (cs[i].first_error[0]) {
      printf("  first error (client %d): %s\n", i, cs[i].first_error);
      break;
    }
  free(all);
  free(th);
}

static void print_phase(const char *what, const phase *ph) {
  printf("  %-11s %8.1f cycles/s   p50 %6.2f ms   p99 %6.2f ms   (%d clients, %ld saves, "
         "%ld errors)\n",
         what, ph->saves / ph->elapsed, ph->p50 * 1e3, ph->p99 * 1e3, ph->clients, ph->saves,
         ph->errors);
  /* CPU per cycle does not depend on what else the machine runs as the rate does */
  printf("  %-11s %8.3f ms of CPU per cycle (server and clients, %.1f cores busy)\n", "",
         ph->saves ? ph->cpu * 1e3 / ph->saves : 0, ph->cpu / ph->elapsed);
}

/* The 1-, 5- and 15-minute load averages, to judge figures taken on a shared machine. */
static void print_load(const char *when) {
  char line[128] = "?";
  FILE *f = fopen("/proc/loadavg", "r");
  if (f) {
    if (!fgets(line, sizeof line, f))
      snprintf(line, sizeof line, "?\n");
    fclose(f);
  }
  printf("  load average %s: %s", when, line);
}

/* Write a JSONL corpus of samples 0..n-1 (generated) and the two sized ones to path. */
static int write_corpus(const char *path, int n, int small_rows, int big_rows) {
  rescue_buf b = RESCUE_BUF_INIT;
  FILE *f;
  int i, ok;
  for (i = 0; i < n; i++) {
    bench_gen_sample(&b, i, 0);
    rescue_buf_putc(&b, '\n');
  }
  /* couple ids (k % 11 != 10), after every generated one in store order */
  bench_gen_sample_rows(&b, 1000001, 0, small_rows);
  rescue_buf_putc(&b, '\n');
  bench_gen_sample_rows(&b, 1000002, 0, big_rows);
  rescue_buf_putc(&b, '\n');
  f = fopen(path, "w");
  ok = f && rescue_buf_ok(&b) && fwrite(b.s, 1, b.len, f) == b.len;
  if (f && fclose(f))
    ok = 0;
  rescue_buf_clear(&b);
  return ok ? 0 : -1;
}

/* Versions the clients saved, counted in the store. */
static long stored_versions(const char *db) {
  sqlite3 *h = NULL;
  sqlite3_stmt *s = NULL;
  long versions = -1;
  if (sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL) == SQLITE_OK &&
      sqlite3_prepare_v2(h,
                         "SELECT count(*) FROM row_version v JOIN annotator a ON "
                         "a.id = v.annotator_id WHERE v.kind = 'edit' AND a.name LIKE 'client%'",
                         -1, &s, NULL) == SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW)
    versions = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return versions;
}

int main(int argc, char **argv) {
  int clients = 20, saturation = 32, small_rows = 16, big_rows = 432, i, n_cs, made_dir = 0;
  double seconds = 30, ref_p50 = 0, ref_p99 = 0, ref_secs, lat_secs;
  const char *dir = NULL;
  char tmpl[] = "/tmp/bench_serve.XXXXXX", db[4096], jsonl[4096], ref_sample[256] = "";
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  rescue_server *srv = NULL;
  rescue_serve_opts o;
  client *cs;
  phase ph20, phsat, phsmall, phbig;
  double chk_small[2] = {0, 0}, chk_big[2] = {0, 0};
  long saves, unchanged, versions, ref_saves = 0;
  int64_t ref_annotator = 0;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--clients") && i + 1 < argc)
      clients = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--saturation") && i + 1 < argc)
      saturation = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
      seconds = atof(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc)
      dir = argv[++i];
    else {
      fprintf(stderr, "usage: bench_serve [--clients C] [--saturation S] [--seconds D] "
                      "[--dir DIR]\n");
      return 2;
    }
  }
  /* the server takes 32 connections per address (SRV_PER_ADDRESS), and every client
     here comes from 127.0.0.1 */
  if (clients < 1 || clients > 32 || saturation < 1 || saturation > 32 || seconds <= 0) {
    fprintf(stderr, "bench_serve: --clients and --saturation 1..32 (the server's connections "
                    "per address), --seconds > 0\n");
    return 2;
  }
  n_cs = (clients > saturation ? clients : saturation) + 2; /* + the two sized samples */
  ref_secs = lat_secs = seconds / 10 > 2 ? seconds / 10 : 2;
  if (!dir) {
    dir = mkdtemp(tmpl);
    made_dir = 1;
  }
  snprintf(db, sizeof db, "%s/bench.db", dir);
  snprintf(jsonl, sizeof jsonl, "%s/bench.jsonl", dir);
  /* one generated sample per client, one for the reference run, then the 16- and 432-row
     samples for the save latency */
  if (write_corpus(jsonl, n_cs - 1, small_rows, big_rows)) {
    fprintf(stderr, "bench_serve: cannot write %s\n", jsonl);
    return 1;
  }
  if (!(st = bench_corpus("bench_serve", db, jsonl)))
    return 1;

  cs = calloc((size_t)n_cs, sizeof *cs);
  {
    /* sample ids in store order: client k gets the k-th, the reference the one after the
       clients' (n_cs - 2), the sized ones the last two (by their ids) */
    rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
    rescue_sample_iter *it = NULL;
    const rescue_sample *s;
    int k = 0;
    rescue_sample_iter_new(st, &v, NULL, 0, &it);
    while (rescue_sample_iter_next(it, &s) == 1) {
      int rows = s->n;
      if (strstr(s->sample_id, "group_142857/") && rows == big_rows)
        snprintf(cs[n_cs - 1].sample, sizeof cs[0].sample, "%s", s->sample_id);
      else if (strstr(s->sample_id, "group_142857/"))
        snprintf(cs[n_cs - 2].sample, sizeof cs[0].sample, "%s", s->sample_id);
      else if (k < n_cs - 2)
        snprintf(cs[k++].sample, sizeof cs[0].sample, "%s", s->sample_id);
      else if (!ref_sample[0])
        snprintf(ref_sample, sizeof ref_sample, "%s", s->sample_id);
    }
    rescue_sample_iter_free(&it);
  }
  for (i = 0; i < n_cs; i++)
    cs[i].k = i;
  if (bench_annotators("bench_serve", st, "client%03d", 0, n_cs, cs[0].token, sizeof *cs))
    return 1;
  {
    char tok[65];
    int existed;
    rescue_annotator_add(st, "reference", NULL, tok, &existed);
    rescue_annotator_id(st, "reference", NULL, 0, &ref_annotator);
  }
  rescue_store_close(&st);
  if (!cs[n_cs - 1].sample[0] || !cs[n_cs - 2].sample[0] || !ref_sample[0]) {
    fprintf(stderr, "bench_serve: the generated samples were not all imported\n");
    return 1;
  }

  printf("bench_serve: read-modify-save cycles (GET the sample, change one row, PUT it) on "
         "distinct samples\n");
  print_load("before");
  /* reference: the library alone, single-threaded, a tenth of the time (at least 2 s) */
  reference(db, ref_sample, ref_annotator, ref_secs, &ref_saves, &ref_p50, &ref_p99);

  memset(&o, 0, sizeof o);
  o.db = db;
  o.listen = "127.0.0.1:0";
  if (rescue_serve_start(&o, &srv, &err)) {
    fprintf(stderr, "bench_serve: %s\n", err.msg);
    return 1;
  }
  port = rescue_serve_port(srv);
  run_phase(cs, clients, seconds, &ph20);
  run_phase(cs, saturation, seconds, &phsat);
  /* save latency by sample size: one client alone, the 16-row sample then the 432-row one */
  run_phase(cs + n_cs - 2, 1, lat_secs, &phsmall);
  run_phase(cs + n_cs - 1, 1, lat_secs, &phbig);
  rescue_serve_stop(&srv);
  /* the check before a save, through the library: kept names against deriving them */
  check_cost(db, cs[n_cs - 2].sample, ref_annotator, 1, &chk_small[0], &chk_small[1]);
  check_cost(db, cs[n_cs - 1].sample, ref_annotator, 1, &chk_big[0], &chk_big[1]);
  print_load("after");

  print_phase("server:", &ph20);
  print_phase("saturation:", &phsat);
  printf("  reference: %8.1f cycles/s   p50 %6.2f ms   p99 %6.2f ms   (library, 1 thread, "
         "read + save, no HTTP)\n",
         ref_saves / ref_secs, ref_p50 * 1e3, ref_p99 * 1e3);
  printf("  save, 1 client alone (PUT round trip):\n");
  printf("    %3d rows:  p50 %6.2f ms   p99 %6.2f ms   (%ld saves, reference)\n", small_rows,
         phsmall.p50 * 1e3, phsmall.p99 * 1e3, phsmall.saves);
  printf("    %3d rows:  p50 %6.2f ms   p99 %6.2f ms   (%ld saves)   %.2fx the %d-row p50\n",
         big_rows, phbig.p50 * 1e3, phbig.p99 * 1e3, phbig.saves,
         phsmall.p50 > 0 ? phbig.p50 / phsmall.p50 : 0, small_rows);
  printf("  check before a save (library, 1 thread, CPU per check, median; names kept with the "
         "view's lint | derived from every row):\n");
  printf("    %3d-row sample: %7.1f us | %7.1f us\n", small_rows, chk_small[0] * 1e6,
         chk_small[1] * 1e6);
  printf("    %3d-row sample: %7.1f us | %7.1f us   kept: %.2fx the %d-row check\n", big_rows,
         chk_big[0] * 1e6, chk_big[1] * 1e6, chk_small[0] > 0 ? chk_big[0] / chk_small[0] : 0,
         small_rows);
  printf("  read the sample, 1 client alone (GET /api/samples/<id> round trip, the page's "
         "open):\n");
  printf("    %3d rows:  p50 %6.2f ms   p99 %6.2f ms\n", small_rows, phsmall.g50 * 1e3,
         phsmall.g99 * 1e3);
  printf("    %3d rows:  p50 %6.2f ms   p99 %6.2f ms\n", big_rows, phbig.g50 * 1e3,
         phbig.g99 * 1e3);
  saves = ph20.saves + phsat.saves + phsmall.saves + phbig.saves;
  unchanged = ph20.unchanged + phsat.unchanged + phsmall.unchanged + phbig.unchanged;
  versions = stored_versions(db);
  printf("  lost writes: %ld (saves answered 200 and not unchanged: %ld; versions in the store: "
         "%ld)\n",
         (saves - unchanged) - versions, saves - unchanged, versions);
  printf("  errors: %ld\n", ph20.errors + phsat.errors + phsmall.errors + phbig.errors);
  for (i = 0; i < n_cs; i++) {
    rescue_free(cs[i].lat);
    rescue_free(cs[i].glat);
  }
  free(cs);
  if (made_dir) {
    unlink(db);
    {
      char side[4200];
      snprintf(side, sizeof side, "%s-wal", db);
      unlink(side);
      snprintf(side, sizeof side, "%s-shm", db);
      unlink(side);
    }
    unlink(jsonl);
    rmdir(dir);
  }
  return ph20.errors + phsat.errors + phsmall.errors + phbig.errors ||
                 (saves - unchanged) != versions
             ? 1
             : 0;
}
