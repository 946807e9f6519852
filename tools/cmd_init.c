/*
** cmd_init.c: `rescue init <db> [--scheme <file.xml>]`.
*/
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue init <db> [--scheme <file.xml>]\n"
    "\n"
    "Create an empty corpus (one SQLite file). An existing file is never touched.\n"
    "\n"
    "options:\n"
    "  --scheme <file.xml>  the annotation scheme (default: the built-in RESCUE scheme,\n"
    "                       schema/rescue.xml); it is checked against schema/rescue.rng\n"
    "  -h, --help           show this help\n";

/* Read a whole file into a malloc'd buffer. */
static char *slurp(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 0, n = 0, got;
  if (!f)
    return NULL;
  do {
    if (n == cap) {
      char *nb = realloc(buf, cap ? cap * 2 : 65536);
      if (!nb) {
        free(buf);
        fclose(f);
        errno = ENOMEM;
        return NULL;
      }
      buf = nb;
      cap = cap ? cap * 2 : 65536;
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  if (ferror(f)) {
    free(buf);
    fclose(f);
    return NULL;
  }
  fclose(f);
  *len = n;
  return buf;
}

int cmd_init(int argc, char **argv) {
  static const struct option opts[] = {
      {"scheme", required_argument, NULL, 's'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  const char *scheme_path = NULL;
  char *xml = NULL;
  size_t len = 0;
  rescue_error err = {0, ""};
  int c, rc;

  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage);
    case 's': scheme_path = optarg; break;
    default: return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
  if (scheme_path) {
    xml = slurp(scheme_path, &len);
    if (!xml) {
      cli_error("cannot read '%s': %s", scheme_path, strerror(errno));
      return 1;
    }
  }
  rc = rescue_store_create(argv[optind], xml, len, &err);
  free(xml);
  if (rc) {
    if (rc == RESCUE_ESCHEME && scheme_path)
      rescue_err_prefix(&err, "%s", scheme_path);
    return cli_fail(&err);
  }
  printf("created corpus %s\n", argv[optind]);
  return cli_finish(0);
}
