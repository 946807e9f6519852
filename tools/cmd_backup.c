/*
** cmd_backup.c: `rescue backup <db> <file>`: a consistent copy of a live corpus (SQLite's
** online backup API, rescue_store_backup), also the snapshot cluster shards read.
*/
#include <stdio.h>

#include "cli.h"

static const cli_option options[] = {CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue backup <db> <file>",
    .description =
        "Copy a corpus to a new file, consistent while annotators save: every change\n"
        "committed before the copy started is in it, none after. Copying a live corpus with\n"
        "cp is not a backup: it is a WAL-mode SQLite file whose latest changes may still sit\n"
        "in <db>-wal. The copy is one self-contained file (rollback-journal mode), written\n"
        "under a temporary name and renamed when complete; an existing <file> is refused.\n"
        "\n"
        "The copy is also the snapshot that `rescue draft --shard` and `rescue clip --shard`\n"
        "read on other machines: they open it read-only and immutable, so it may sit on a\n"
        "network file system and be read-only (chmod 0444).\n",
    .options = options,
    .min_args = 2,
    .max_args = 2,
    .arg_name = "<db> <file>"};

int cmd_backup(int argc, char **argv) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  int64_t pages = 0;
  int rc, first;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    return rc;
  if (rescue_store_backup(st, argv[first + 1], &pages, &err)) {
    rescue_store_close(&st);
    return cli_fail(&err);
  }
  rescue_store_close(&st);
  printf("%s: copied to %s (%lld pages)\n", argv[first], argv[first + 1], (long long)pages);
  return cli_finish(0);
}
