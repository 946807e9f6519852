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
  if (scheme_path && rescue_read_file(scheme_path, &xml, &len, &err))
    return cli_fail(&err);
  rc = rescue_store_create(argv[optind], xml, len, &err);
  rescue_free(xml);
  if (rc) {
    if (rc == RESCUE_ESCHEME && scheme_path)
      rescue_err_prefix(&err, "%s", scheme_path);
    return cli_fail(&err);
  }
  printf("created corpus %s\n", argv[optind]);
  return cli_finish(0);
}
