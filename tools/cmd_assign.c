/*
** cmd_assign.c: `rescue assign <db> --annotators a,b,c [--overlap 0.2] [--seed N]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue assign <db> --annotators <a>,<b>... [--overlap <share>] [--seed <n>]\n"
    "\n"
    "Deal the samples (not discarded) out to annotators for review: every sample gets one\n"
    "reviewer, and about <share> of them get two, which is what agreement needs. A couple's\n"
    "or family's samples stay together; the double-reviewed share is taken in each scenario;\n"
    "the load is balanced by samples and pairs rotate. The same seed gives the same deal.\n"
    "Each run is recorded; the latest is the one in use (rescue annotator list shows it,\n"
    "the review page's \"assigned to me\" uses it).\n"
    "\n"
    "options:\n"
    "  --annotators <names>  existing annotators (people, not models), comma-separated\n"
    "  --overlap <share>     share of samples reviewed twice, 0 to 1 (default 0.2)\n"
    "  --seed <n>            shuffle seed (default 1)\n"
    "  -h, --help            show this help\n";

int cmd_assign(int argc, char **argv) {
  static const struct option opts[] = {{"annotators", required_argument, NULL, 'a'},
                                       {"overlap", required_argument, NULL, 'o'},
                                       {"seed", required_argument, NULL, 's'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  char **names = NULL;
  int c, rc = 2, n = 0, i;
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
    case 'o':
      if (cli_parse_double("--overlap", optarg, &overlap, usage))
        goto end;
      if (overlap < 0 || overlap > 1) {
        cli_usage_error(usage, "--overlap is a share from 0 to 1, not '%s'", optarg);
        goto end;
      }
      break;
    case 's':
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
  if (!names) {
    cli_usage_error(usage, "missing --annotators");
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
    rc = cli_fail(rescue_store_err(st));
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
  rescue_assign_result_free(&res);
  rescue_store_close(&st);
  cli_free_list(names);
  return rc;
}
