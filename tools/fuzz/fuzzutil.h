/*
** fuzzutil.h: what the file-reading fuzz drivers share: the input written to a file of
** this process (the readers under test take a path, as the CLI gives them).
*/
#ifndef RESCUE_FUZZUTIL_H
#define RESCUE_FUZZUTIL_H
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/*
** Write data to <TMPDIR>/rescue-fuzz-<pid>-<name> (one file per process, so parallel
** fuzzing jobs never share one) and put its path in path[0..n). Aborts when it cannot.
*/
static void fuzz_file(char *path, size_t n, const char *name, const void *data, size_t size) {
  const char *dir = getenv("TMPDIR");
  FILE *f;
  snprintf(path, n, "%s/rescue-fuzz-%ld-%s", dir && *dir ? dir : "/tmp", (long)getpid(), name);
  f = fopen(path, "wb");
  if (!f || (size && fwrite(data, 1, size, f) != size) || fclose(f) != 0)
    abort();
}
#endif
