/*
** cmd_assign.c: `rescue assign <db> --annotators a,b,c [--overlap 0.2] [--seed N]`, and
** `rescue assign <db> --list [--annotator <name>] [--json]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue assign <db> --annotators <a>,<b>... [--overlap <share>] [--seed <n>]\n"
    "       rescue assign <db> --list [--annotator <name>] [--json]\n"
    "\n"
    "Deal the samples (not discarded) out to annotators for review: every sample gets one\n"
    "reviewer, and about <share> of them get two, which is what agreement needs. A couple's\n"
    "or family's samples stay together; the double-reviewed share is taken in each scenario;\n"
    "the load is balanced by samples and pairs rotate. The same seed gives the same deal.\n"
    "Each run is recorded; the latest is the one in use (rescue annotator list shows it,\n"
    "the review page's \"assigned to me\" uses it).\n"
    "\n"
    "--list shows the assignment in use: each (sample, annotator) with the sample's status\n"
    "and how many of its rows that annotator has saved so far.\n"
    "\n"
    "options:\n"
    "  --annotators <names>  existing annotators (people, not models), comma-separated\n"
    "  --overlap <share>     share of samples reviewed twice, 0 to 1 (default 0.2)\n"
    "  --seed <n>            shuffle seed (default 1)\n"
    "  --list                list the assignment in use instead of dealing\n"
    "  --annotator <name>    with --list: only this annotator's samples\n"
    "  --json                with --list: one JSON document {\"run\", \"assignments\":\n"
    "                        [{\"sample_id\", \"annotator\", \"status\", \"status_reason\",\n"
    "                        \"rows\", \"rows_saved\", \"comments\"}]}\n"
    "  -h, --help            show this help\n";

/* --list: the assignment in use, optionally for one annotator. */
static int assign_list(const char *db, const char *annotator, int json) {
  rescue_store *st = NULL;
  rescue_assignment_info *list = NULL;
  rescue_assign_run run;
  rescue_buf out = RESCUE_BUF_INIT;
  int64_t id = 0;
  int rc, n = 0, i;
  memset(&run, 0, sizeof run);
  if ((rc = cli_open_store(db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  if ((annotator && rescue_annotator_lookup(st, annotator, &id, NULL, NULL)) ||
      rescue_assign_list(st, id, &list, &n, &run)) {
    rc = cli_fail_path(rescue_store_err(st), db);
    goto end;
  }
  if (json) {
    rescue_assign_list_json(list, n, &run, &out);
    rescue_buf_putc(&out, '\n');
  } else if (!run.id) {
    rescue_buf_puts(&out, "no assignment yet (rescue assign <db> --annotators ...)\n");
  } else {
    rescue_buf_printf(&out, "assignment run %lld of %s (seed %llu, overlap %g)\n",
                      (long long)run.id, run.created_at, (unsigned long long)run.seed, run.overlap);
    rescue_buf_printf(&out, "%-40s %-20s %-10s %11s %8s\n", "sample", "annotator", "status",
                      "rows saved", "comments");
    for (i = 0; i < n; i++)
      rescue_buf_printf(&out, "%-40s %-20s %-10s %5ld/%-5d %8ld\n", list[i].sample_id,
                        list[i].annotator, list[i].status, list[i].rows_saved, list[i].n_rows,
                        list[i].comments);
  }
  rc = cli_print(&out);
end:
  rescue_assign_list_free(&list, n, &run);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}

int cmd_assign(int argc, char **argv) {
  static const struct option opts[] = {{"annotators", required_argument, NULL, 'a'},
                                       {"list", no_argument, NULL, 'l'},
                                       {"annotator", required_argument, NULL, 'A'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"overlap", required_argument, NULL, 'o'},
                                       {"seed", required_argument, NULL, 's'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  char **names = NULL;
  const char *one = NULL;
  int c, rc = 2, n = 0, i, list = 0, json = 0, dealing = 0;
  long seed = 1;
  double overlap = 0.2;
  rescue_store *st = NULL;
  rescue_assign_opts o;
  rescue_assign_result res;
  memset(&res, 0, sizeof res);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': cli_free_list(names); return cli_help(usage);
    case 'a':
      cli_free_list(names);
      names = cli_split_list(optarg, &n);
      if (!names || !n) {
        cli_usage_error(usage, "--annotators needs at least one name");
        goto end;
      }
      break;
    case 'l': list = 1; break;
    case 'A': one = optarg; break;
    case 'j': json = 1; break;
    case 'o':
      dealing = 1;
      if (cli_parse_double("--overlap", optarg, &overlap, usage))
        goto end;
      if (overlap < 0 || overlap > 1) {
        cli_usage_error(usage, "--overlap is a share from 0 to 1, not '%s'", optarg);
        goto end;
      }
      break;
    case 's':
      dealing = 1;
      if (cli_parse_long("--seed", optarg, &seed, usage))
        goto end;
      if (seed < 0) {
        cli_usage_error(usage, "--seed expects a whole number >= 0");
        goto end;
      }
      break;
    default: goto end;
    }
  }
  if (argc - optind != 1) {
    cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if (list) {
    if (names || dealing) {
      cli_usage_error(usage, "--list does not go with --annotators, --overlap or --seed");
      goto end;
    }
    rc = assign_list(argv[optind], one, json);
    goto end;
  }
  if (one || json) {
    cli_usage_error(usage, "%s goes with --list", one ? "--annotator" : "--json");
    goto end;
  }
  if (!names) {
    cli_usage_error(usage, "missing --annotators (or --list)");
    goto end;
  }
  if (overlap > 0 && n < 2) {
    cli_usage_error(usage, "double review (--overlap above 0) needs at least two annotators; "
                           "give --overlap 0 for one");
    goto end;
  }
  if ((rc = cli_open_store(argv[optind], 0, &st)))
    goto end;
  o.annotators = (const char *const *)names;
  o.n_annotators = n;
  o.overlap = overlap;
  o.seed = (uint64_t)seed;
  if (rescue_assign(st, &o, &res)) {
    rc = cli_fail_path(rescue_store_err(st), argv[optind]);
    goto end;
  }
  printf("assignment run %lld (seed %ld, overlap %g): %ld sample%s in %ld group%s; %ld sample%s "
         "(%ld group%s) reviewed twice\n",
         (long long)res.run_id, seed, overlap, res.samples, res.samples == 1 ? "" : "s",
         res.groups, res.groups == 1 ? "" : "s", res.double_samples,
         res.double_samples == 1 ? "" : "s", res.double_groups, res.double_groups == 1 ? "" : "s");
  for (i = 0; i < n; i++)
    printf("  %-20s %5ld sample%s (%ld shared)\n", names[i], res.per_annotator[i],
           res.per_annotator[i] == 1 ? " " : "s", res.shared_per_annotator[i]);
  rc = cli_finish(0);
end:
  rescue_assign_result_clear(&res);
  rescue_store_close(&st);
  cli_free_list(names);
  return rc;
}
