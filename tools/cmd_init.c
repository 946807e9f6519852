/*
** cmd_init.c: `rescue init <db> [--scheme <file.xml>]`.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *scheme_path;
static const cli_option options[] = {
    CLI_STRING(0, "scheme", &scheme_path, "<file.xml>",
               "the annotation scheme (default: the built-in RESCUE scheme,\n"
               "schema/rescue.xml); it is checked against schema/rescue.rng"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue init <db> [--scheme <file.xml>]",
    .description = "Create an empty corpus (one SQLite file). An existing file is never touched.\n",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_init(int argc, char **argv) {
  char *xml = NULL;
  size_t len = 0;
  rescue_error err = RESCUE_ERROR_INIT;
  int rc, first;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if (scheme_path && rescue_read_file(scheme_path, &xml, &len, &err))
    return cli_fail(&err);
  rc = rescue_store_create(argv[first], xml, len, &err);
  rescue_free(xml);
  if (rc) {
    if (rc == RESCUE_ESCHEME && scheme_path)
      rescue_err_prefix(&err, "%s", scheme_path);
    return cli_fail(&err);
  }
  printf("created corpus %s\n", argv[first]);
  return cli_finish(0);
}
