/*
** cmd_stats.c: `rescue stats <db> [--json]`.
*/
#include <getopt.h>
#include <stdio.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue stats <db> [--json]\n"
    "\n"
    "Corpus statistics in the form of the paper's Table 3, per scenario (couple, family;\n"
    "derived by tasks.md §1.2) and overall, over the corpus view (gold where adjudicated,\n"
    "else the latest version). Discarded samples are left out. A sample's duration is its\n"
    "linked media segment's length when known, else its last row's end_time; speakers are\n"
    "the distinct primary speakers, Therapist included.\n"
    "\n"
    "options:\n"
    "  --json      print one JSON document: {\"couple\": {...}, \"family\": {...}, \"all\": {...}},\n"
    "              each with samples, turns, duration_min, avg_duration_min, avg_turns,\n"
    "              avg_speakers, therapist_share (a fraction) and therapist_turns;\n"
    "              averages are null when there are no samples\n"
    "  -h, --help  show this help\n";

int cmd_stats(int argc, char **argv) {
  static const struct option opts[] = {
      {"json", no_argument, NULL, 'j'}, {"help", no_argument, NULL, 'h'}, {0, 0, 0, 0}};
  rescue_store *st = NULL;
  rescue_view view = {RESCUE_VIEW_CORPUS, 0};
  rescue_table3 t;
  rescue_buf out = RESCUE_BUF_INIT;
  int c, rc, json = 0;

  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage);
    case 'j': json = 1; break;
    default: return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
  if ((rc = cli_open_store(argv[optind], RESCUE_OPEN_READONLY, &st)))
    return rc;
  rc = rescue_stats_table3(st, &view, &t);
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  if (json) {
    rescue_stats_table3_json(&t, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_stats_table3_text(&t, &out);
  }
  fwrite(out.s, 1, out.len, stdout);
  rescue_buf_free(&out);
  rescue_store_close(&st);
  return cli_finish(0);
}
