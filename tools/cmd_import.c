/*
** cmd_import.c: `rescue import <db> <path>... [options]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue import <db> <path>... [--format auto|jsonl|json|data-root|srt|vtt|eaf]\n"
    "                     [--annotator <name>] [--sample <id>] [--tiers <t1>,<t2>]\n"
    "                     [--resegment]\n"
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
    "  eaf        an ELAN file. One that 'rescue export --format eaf' wrote (edited in ELAN\n"
    "             or not) names its sample and comes back row for row, under the annotator\n"
    "             it records unless --annotator; any other EAF needs --sample: each\n"
    "             annotation of a top-level time-aligned tier with a PARTICIPANT (or of the\n"
    "             --tiers named) is a row, in time order, with the values of the tiers below\n"
    "             it as extra fields named by tier. A file with a DOCTYPE is refused.\n"
    "\n"
    "A sample already in the corpus gets, under the annotator, a new version of each row\n"
    "whose content differs from that annotator's own latest version (every row, for an\n"
    "annotator who has none yet); importing the same file again changes nothing.\n"
    "\n"
    "options:\n"
    "  --format <f>        auto (default): a folder is a data-root, *.jsonl and *.ndjson\n"
    "                      are jsonl, *.json is json, *.srt is srt, *.vtt is vtt,\n"
    "                      *.eaf is eaf\n"
    "  --annotator <name>  whose versions these are (default: import); created if new,\n"
    "                      under the naming rules of 'rescue annotator add'\n"
    "  --sample <id>       the sample_id of a single JSON file, a subtitle or an EAF file\n"
    "  --tiers <list>      eaf: the tiers whose annotations are the rows (the tier id is\n"
    "                      then the speaker)\n"
    "  --resegment         a sample whose row count differs gets a new row set (the old\n"
    "                      rows and versions stay in its history) instead of a refusal\n"
    "  -h, --help          show this help\n";

int cmd_import(int argc, char **argv) {
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"annotator", required_argument, NULL, 'a'},
                                       {"sample", required_argument, NULL, 's'},
                                       {"resegment", no_argument, NULL, 'r'},
                                       {"tiers", required_argument, NULL, 't'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_import_opts o = {RESCUE_FMT_AUTO, NULL, NULL, 0, NULL, NULL, NULL};
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
    case 't': o.tiers = optarg; break;
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
  if (res.cues)
    printf("; %ld subtitle cue%s", res.cues, res.cues == 1 ? "" : "s");
  printf("\n");
  rescue_store_close(&st);
  return cli_finish(0);
}
