/*
** cmd_import.c: `rescue import <db> <path>... [options]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue import <db> <path>... [--format auto|jsonl|json|data-root|srt|vtt]\n"
    "                     [--annotator <name>] [--sample <id>] [--resegment]\n"
    "\n"
    "Read samples into the corpus, all in one transaction: any bad input refuses the whole\n"
    "import and leaves the corpus exactly as it was.\n"
    "\n"
    "  jsonl      release JSONL, one sample object per line with a string sample_id\n"
    "  data-root  a folder of <group>/<sample>.json files; the sample_id is the path\n"
    "             without .json (manifest.json files are skipped)\n"
    "  json       one sample object; its sample_id key, or --sample\n"
    "  srt, vtt   subtitles of the sample --sample (created when new): its cues are stored\n"
    "             (timing ground truth), and when it has no rows yet, one draft row per cue\n"
    "             (times, speaker from a 'Name:' or '[Name]' prefix, text; the rest empty)\n"
    "\n"
    "A sample already in the corpus gets, under the annotator, a new version of each row\n"
    "whose content differs from that annotator's own latest version (every row, for an\n"
    "annotator who has none yet); importing the same file again changes nothing.\n"
    "\n"
    "options:\n"
    "  --format <f>        auto (default): a folder is a data-root, *.jsonl and *.ndjson\n"
    "                      are jsonl, *.json is json, *.srt is srt, *.vtt is vtt\n"
    "  --annotator <name>  whose versions these are: a registered annotator ('rescue\n"
    "                      annotator add'; an unknown name is refused with the closest\n"
    "                      registered names). Without it the file is the draft: where\n"
    "                      every annotator's view starts, never a coder\n"
    "  --sample <id>       the sample_id of a single JSON file or of a subtitle file\n"
    "  --resegment         a sample whose row count differs gets a new row set (the old\n"
    "                      rows and versions stay in its history) instead of a refusal\n"
    "  -h, --help          show this help\n";

int cmd_import(int argc, char **argv) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"annotator", required_argument, NULL, 'a'},
                                       {"sample", required_argument, NULL, 's'},
                                       {"resegment", no_argument, NULL, 'r'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_import_opts o = {RESCUE_FMT_AUTO, NULL, NULL, 0, NULL, NULL};
  rescue_import_result res;
  rescue_store *st = NULL;
  cli_progress *bar;
  int c, rc;

  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage);
    case 'f':
      if (rescue_format_parse(optarg, &o.format))
        return cli_usage_error(usage, "unknown format '%s'", optarg);
      break;
    case 'a': {
      /* the rules of 'rescue annotator add', so an import never makes a name it refuses */
      const char *why = rescue_annotator_name_invalid(optarg);
      if (why)
        return cli_usage_error(usage, "invalid annotator name: %s", why);
      o.annotator = optarg;
      break;
    }
    case 's': o.sample = optarg; break;
    case 'r': o.resegment = 1; break;
    default: return 2;
    }
  }
  if (argc - optind < 2)
    return cli_usage_error(usage, argc - optind ? "missing <path>" : "missing <db> and <path>");
  if ((rc = cli_open_store(argv[optind], 0, &st)))
    return rc;
  bar = cli_progress_start("importing");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  rc = rescue_import(st, (const char *const *)argv + optind + 1, argc - optind - 1, &o, &res);
  cli_progress_done(&bar);
  if (rc) {
    rc = rc == RESCUE_EINVAL ? cli_usage_error(usage, "%s", rescue_store_errmsg(st))
                             : cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  if (res.warning[0])
    cli_warn("%s", res.warning);
  printf("imported %ld sample%s (%ld rows) from %ld file%s: %ld new, %ld changed, "
         "%ld unchanged; %ld row versions added",
         res.samples, res.samples == 1 ? "" : "s", res.rows, res.files, res.files == 1 ? "" : "s",
         res.put.samples_new, res.put.samples_changed, res.put.samples_unchanged,
         res.put.row_versions);
  if (o.annotator)
    printf(" as annotator '%s'", o.annotator);
  else
    printf(" as the draft (no --annotator: where every annotator's view starts, never a coder)");
  if (res.put.rowsets && res.put.rows_carried)
    printf("; %ld row%s kept %s span across a new row set", res.put.rows_carried,
           res.put.rows_carried == 1 ? "" : "s", res.put.rows_carried == 1 ? "its" : "their");
  if (res.cues)
    printf("; %ld subtitle cue%s", res.cues, res.cues == 1 ? "" : "s");
  printf("\n");
  rescue_store_close(&st);
  return cli_finish(0);
}
