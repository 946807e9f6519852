/*
** bench_elan.c: ELAN interchange speed, in one process. Parses the MPI sample_3.0.eaf
** (2.4 MB, 8,778 annotations) into a sample (--tiers text) and exports the four real
** release samples as EAF, printing ms per file and MB/s beside references on the same
** bytes: a plain libxml2 xmlReadMemory parse, and the sample's release JSON writer.
** Then times the refusal of hostile documents (billion laughs, external entity, deep
** nesting) beside the time of parsing the real file.
**
** Times are CPU time of this process (the machine it runs on is shared and loaded, so
** wall time mostly measures the neighbours); MB/s is bytes of the EAF file per CPU second.
**
** usage: bench_elan [--fixtures DIR] [--repeat N]
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libxml/parser.h>

#include "benchutil.h"
#include "rescue.h"

/* CPU seconds used by this process. */
static double cpu_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void row(const char *what, double secs, int n, double bytes) {
  printf("  %-46s %9.3f ms/file (CPU) %9.1f MB/s\n", what, secs * 1000.0 / n,
         bytes * n / secs / 1e6);
}

int main(int argc, char **argv) {
  const char *fx = getenv("RESCUE_FIXTURES");
  char path[4096], db[4096], dir[] = "/tmp/rescue-bench-elan-XXXXXX";
  char *data = NULL;
  size_t len = 0;
  int repeat = 50, i, k;
  rescue_error err;
  double t0, t_ours, t_ref;

  for (i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--fixtures") && i + 1 < argc)
      fx = argv[++i];
    else if (!strcmp(argv[i], "--repeat") && i + 1 < argc)
      repeat = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_elan [--fixtures DIR] [--repeat N]\n");
      return 2;
    }
  }
  if (repeat < 1)
    repeat = 1;
  if (!fx)
    fx = RESCUE_SOURCE_DIR "/../shared/fixtures";
  memset(&err, 0, sizeof err);

  /* ---- parse ---- */
  snprintf(path, sizeof path, "%s/elan/sample_3.0.eaf", fx);
  if (rescue_read_file(path, &data, &len, &err)) {
    fprintf(stderr, "bench_elan: %s\n", err.msg);
    return 1;
  }
  printf("parse %s (%zu bytes), %d runs each\n", path, len, repeat);
  t0 = cpu_now();
  for (k = 0; k < repeat; k++) {
    xmlDocPtr d = xmlReadMemory(data, (int)len, path, NULL, XML_PARSE_NONET);
    if (!d)
      return 1;
    xmlFreeDoc(d);
  }
  t_ref = cpu_now() - t0;
  t0 = cpu_now();
  for (k = 0; k < repeat; k++) {
    rescue_eaf_read_opts o = {.sample = "mpi/sample_3.0", .tiers = "text"};
    rescue_eaf_sample s;
    if (rescue_eaf_parse(path, data, len, &o, &s, &err)) {
      fprintf(stderr, "bench_elan: %s\n", err.msg);
      return 1;
    }
    if (k == 0)
      printf("  (%ld rows, %zu bytes of sample JSON)\n", s.rows, s.json_len);
    rescue_eaf_sample_clear(&s);
  }
  t_ours = cpu_now() - t0;
  row("reference: xmlReadMemory only", t_ref, repeat, (double)len);
  row("rescue_eaf_parse (safe parse + rows)", t_ours, repeat, (double)len);
  printf("  ratio %.2fx the plain parse\n", t_ours / t_ref);
  rescue_free(data);

  /* ---- hostile documents: refused, and how fast ---- */
  {
    rescue_buf h[3] = {RESCUE_BUF_INIT, RESCUE_BUF_INIT, RESCUE_BUF_INIT};
    const char *names[3] = {"billion laughs (10^9 expansions)", "external entity (/etc/passwd)",
                            "100,000 nested elements"};
    int j;
    rescue_buf_puts(&h[0], "<?xml version=\"1.0\"?>\n<!DOCTYPE l [<!ENTITY l0 \"lol\">");
    for (j = 1; j < 10; j++) {
      int m;
      rescue_buf_printf(&h[0], "<!ENTITY l%d \"", j);
      for (m = 0; m < 10; m++)
        rescue_buf_printf(&h[0], "&l%d;", j - 1);
      rescue_buf_puts(&h[0], "\">");
    }
    rescue_buf_puts(&h[0], "]>\n<ANNOTATION_DOCUMENT>&l9;</ANNOTATION_DOCUMENT>\n");
    rescue_buf_puts(&h[1], "<?xml version=\"1.0\"?>\n<!DOCTYPE d [<!ENTITY x SYSTEM "
                           "\"file:///etc/passwd\">]>\n<ANNOTATION_DOCUMENT>&x;"
                           "</ANNOTATION_DOCUMENT>\n");
    rescue_buf_puts(&h[2], "<?xml version=\"1.0\"?>\n<ANNOTATION_DOCUMENT>");
    for (j = 0; j < 100000; j++)
      rescue_buf_puts(&h[2], "<a>");
    for (j = 0; j < 100000; j++)
      rescue_buf_puts(&h[2], "</a>");
    rescue_buf_puts(&h[2], "</ANNOTATION_DOCUMENT>\n");
    printf("refusals, %d runs each (reference: the real file above, %.3f ms)\n", repeat,
           t_ours * 1000.0 / repeat);
    for (j = 0; j < 3; j++) {
      rescue_eaf_read_opts o = {.sample = "x/y"};
      rescue_eaf_sample s;
      int refused = 1;
      t0 = cpu_now();
      for (k = 0; k < repeat; k++)
        refused &=
            rescue_eaf_parse("hostile.eaf", h[j].s, h[j].len, &o, &s, &err) == RESCUE_EBADINPUT;
      printf("  %-40s %9.3f ms  %s\n", names[j], (cpu_now() - t0) * 1000.0 / repeat,
             refused ? "refused" : "NOT REFUSED");
      printf("    (%s)\n", err.msg);
      rescue_buf_clear(&h[j]);
    }
  }

  /* ---- export ---- */
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(db, sizeof db, "%s/bench.db", dir);
  {
    rescue_store *st = NULL;
    rescue_import_opts io = {.format = RESCUE_FMT_JSONL};
    char a[4096], b[4096];
    const char *paths[2] = {a, b};
    rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
    rescue_sample_iter *it = NULL;
    const rescue_sample *s;
    rescue_buf out = RESCUE_BUF_INIT, ref = RESCUE_BUF_INIT;
    rescue_eaf_write_opts wo = {.date = "2026-11-30T00:00:00+00:00"};
    snprintf(a, sizeof a, "%s/rescue-bench/couple-first3.jsonl", fx);
    snprintf(b, sizeof b, "%s/rescue-bench/family-first1.jsonl", fx);
    if (rescue_store_create(db, NULL, 0, &err) || rescue_store_open(&st, db, 0, &err) ||
        rescue_import(st, paths, 2, &io, NULL)) {
      fprintf(stderr, "bench_elan: %s\n", st ? rescue_store_errmsg(st) : err.msg);
      return 1;
    }
    printf("export the 4 real release samples, %d runs each\n", repeat);
    if (rescue_sample_iter_new(st, &view, NULL, 0, &it))
      return 1;
    while (rescue_sample_iter_next(it, &s) == 1) {
      double t_json, t_xml;
      long fine;
      rescue_buf_reset(&out);
      t0 = cpu_now();
      for (k = 0; k < repeat; k++) {
        rescue_buf_reset(&out);
        if (rescue_eaf_write_sample(rescue_store_scheme(st), s, &wo, &out, &fine, &err)) {
          fprintf(stderr, "bench_elan: %s\n", err.msg);
          return 1;
        }
      }
      t_ours = cpu_now() - t0;
      t0 = cpu_now();
      for (k = 0; k < repeat; k++) {
        rescue_buf_reset(&ref);
        rescue_sample_write_json(rescue_store_scheme(st), s, &ref);
      }
      t_json = cpu_now() - t0;
      t0 = cpu_now();
      for (k = 0; k < repeat; k++) {
        xmlDocPtr d = xmlReadMemory(out.s, (int)out.len, "x.eaf", NULL, XML_PARSE_NONET);
        xmlFreeDoc(d);
      }
      t_xml = cpu_now() - t0;
      printf(" %s: %d rows, %zu bytes of EAF (%zu of JSON)\n", s->sample_id, s->n, out.len,
             ref.len);
      row("rescue_eaf_write_sample", t_ours, repeat, (double)out.len);
      row("reference: release JSON line (copies stored text)", t_json, repeat, (double)ref.len);
      row("reference: xmlReadMemory of the EAF bytes", t_xml, repeat, (double)out.len);
    }
    rescue_sample_iter_free(&it);
    rescue_buf_clear(&out);
    rescue_buf_clear(&ref);
    rescue_store_close(&st);
  }
  unlink(db);
  {
    char wal[4200];
    snprintf(wal, sizeof wal, "%s-wal", db);
    unlink(wal);
    snprintf(wal, sizeof wal, "%s-shm", db);
    unlink(wal);
  }
  rmdir(dir);
  return 0;
}
