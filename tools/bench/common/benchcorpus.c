/*
** benchcorpus.c: the server benchmarks' corpus set-up (benchcorpus.h).
*/
#include <stdio.h>
#include <unistd.h>

#include "benchcorpus.h"
#include "benchutil.h"

rescue_store *bench_corpus(const char *prog, const char *db, const char *jsonl) {
  char *init[] = {(char *)RESCUE_BIN, "init", (char *)db, NULL};
  char *import[] = {(char *)RESCUE_BIN, "import", (char *)db, (char *)jsonl, NULL};
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  char **steps[] = {init, import};
  double secs, rss;
  int i, rc;
  unlink(db);
  for (i = 0; i < 2; i++)
    if ((rc = bench_run(steps[i], &secs, &rss)) != 0) {
      fprintf(stderr, "%s: rescue %s %s: exit status %d\n", prog, steps[i][1], db, rc);
      return NULL;
    }
  if (rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "%s: %s\n", prog, err.msg);
    return NULL;
  }
  return st;
}

int bench_annotators(const char *prog, rescue_store *st, const char *fmt, int first, int n,
                     char *tokens, size_t stride) {
  int i, existed;
  for (i = 0; i < n; i++) {
    char name[64];
    snprintf(name, sizeof name, fmt, first + i);
    if (rescue_annotator_add(st, name, NULL, tokens + (size_t)i * stride, &existed)) {
      fprintf(stderr, "%s: %s\n", prog, rescue_store_errmsg(st));
      return -1;
    }
  }
  return 0;
}
