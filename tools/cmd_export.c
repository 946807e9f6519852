/*
** cmd_export.c: `rescue export <db> --format samples|data-root --out <path> [options]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue export <db> --format samples|data-root --out <path> [--force]\n"
    "                     [--view gold|latest|annotator:<name>] [--samples <id>,...]\n"
    "\n"
    "Write the corpus out, all or nothing (a temporary name renamed at the end).\n"
    "\n"
    "  samples    release JSONL: one sample per line in sample_id order (path components\n"
    "             compared bytewise), Python json.dumps style; an imported release line\n"
    "             comes back byte for byte\n"
    "  data-root  a folder of <sample_id>.json files, each the JSONL line plus a newline,\n"
    "             as the authors' evaluation scripts read with --data-root\n"
    "\n"
    "options:\n"
    "  --out <path>        the file (samples) or folder (data-root) to write\n"
    "  --force             replace an existing, non-empty output once the new one is done\n"
    "  --view <v>          which version of each row: the corpus view by default (gold\n"
    "                      where adjudicated, else the latest by anyone); gold (samples\n"
    "                      without gold on every row are left out), latest, or\n"
    "                      annotator:<name> (that annotator's view)\n"
    "  --samples <ids>     only these samples (comma-separated sample ids)\n"
    "  --include-discarded also write discarded samples\n"
    "  -h, --help          show this help\n";

int cmd_export(int argc, char **argv) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"out", required_argument, NULL, 'o'},
                                       {"force", no_argument, NULL, 'F'},
                                       {"view", required_argument, NULL, 'v'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"include-discarded", no_argument, NULL, 'D'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  const char *format = NULL, *out = NULL, *view_spec = NULL;
  char **samples = NULL;
  rescue_export_opts o;
  rescue_export_result res;
  rescue_store *st = NULL;
  cli_progress *bar = NULL;
  int c, rc, n_samples = 0, data_root;

  memset(&o, 0, sizeof o);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': cli_free_list(samples); return cli_help(usage);
    case 'f': format = optarg; break;
    case 'o': out = optarg; break;
    case 'F': o.force = 1; break;
    case 'v': view_spec = optarg; break;
    case 'D': o.include_discarded = 1; break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_free_list(samples);
        return cli_usage_error(usage, "--samples needs at least one sample id");
      }
      break;
    default: cli_free_list(samples); return 2;
    }
  }
  rc = 2;
  if (argc - optind != 1) {
    cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if (!format) {
    cli_usage_error(usage, "missing --format");
    goto end;
  }
  if (strcmp(format, "samples") != 0 && strcmp(format, "data-root") != 0) {
    cli_usage_error(usage, "unknown format '%s' (expected samples or data-root)", format);
    goto end;
  }
  if (!out) {
    cli_usage_error(usage, "missing --out");
    goto end;
  }
  data_root = strcmp(format, "data-root") == 0;
  if ((rc = cli_open_store(argv[optind], RESCUE_OPEN_READONLY, &st)))
    goto end;
  if (rescue_view_parse(st, view_spec, &o.view)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  o.samples = (const char *const *)samples;
  o.n_samples = n_samples;
  bar = cli_progress_start("exporting");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  rc = rescue_export_samples(st, out, data_root, &o, &res);
  cli_progress_done(&bar);
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  printf("wrote %ld sample%s (%ld rows) to %s\n", res.samples, res.samples == 1 ? "" : "s",
         res.rows, out);
  if (res.incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res.incomplete,
             res.incomplete == 1 ? "" : "s");
  if (res.discarded)
    printf("left out %ld discarded sample%s (--include-discarded writes them)\n", res.discarded,
           res.discarded == 1 ? "" : "s");
  rc = cli_finish(0);
end:
  rescue_store_close(&st);
  cli_free_list(samples);
  return rc;
}
