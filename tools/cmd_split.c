/*
** cmd_split.c: `rescue split <db> --ratios <train>,<validation>,<test> --seed <n> [--no-stratify]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue split <db> --ratios <train>,<validation>,<test> --seed <n> [--no-stratify]\n"
    "\n"
    "Assign every group (a couple, a family: the sample_id without its last part) to train,\n"
    "validation or test, so that no group's sessions appear in two splits. The same corpus\n"
    "and seed give the same assignment. Each run is recorded as a new split run (earlier\n"
    "ones stay in the history); 'rescue export --format tasks' then writes one file per\n"
    "split of the latest run.\n"
    "\n"
    "options:\n"
    "  --ratios <r,r,r>  shares of groups for train, validation and test, used in proportion\n"
    "                    (0.8,0.1,0.1 and 8,1,1 are the same); 0 leaves a split out\n"
    "                    (0,0,1 makes a test-only release, like RESCUE-BENCH)\n"
    "  --seed <n>        seed of the shuffle, a whole number from 0 to 9223372036854775807\n"
    "  --no-stratify     one draw over all groups instead of one per scenario (couple,\n"
    "                    family); by default each scenario's group counts follow the ratios\n"
    "                    (largest remainder)\n"
    "  -h, --help        show this help\n";

int cmd_split(int argc, char **argv) {
  static const struct option opts[] = {{"ratios", required_argument, NULL, 'r'},
                                       {"seed", required_argument, NULL, 's'},
                                       {"no-stratify", no_argument, NULL, 'n'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_split_opts o;
  rescue_split_result res;
  rescue_error err = {0, ""};
  rescue_store *st = NULL;
  const char *ratios = NULL;
  long seed = -1;
  int c, rc, sp;

  memset(&o, 0, sizeof o);
  o.stratify = 1;
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h':
      return cli_help(usage);
    case 'r':
      ratios = optarg;
      break;
    case 's':
      if (cli_parse_long("--seed", optarg, &seed, usage))
        return 2;
      if (seed < 0)
        return cli_usage_error(usage, "--seed expects a whole number >= 0, not '%s'", optarg);
      break;
    case 'n':
      o.stratify = 0;
      break;
    default:
      return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
  if (!ratios)
    return cli_usage_error(usage, "missing --ratios");
  if (seed < 0)
    return cli_usage_error(usage, "missing --seed");
  if (rescue_split_parse_ratios(ratios, o.ratios, &err))
    return cli_usage_error(usage, "%s", err.msg);
  o.ratios_text = ratios;
  o.seed = (uint64_t)seed;
  if ((rc = cli_open_store(argv[optind], 0, &st)))
    return rc;
  if (rescue_split_assign(st, &o, &res)) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  printf("split run %lld (seed %ld, ratios %s, %s):\n", (long long)res.run_id, seed, ratios,
         o.stratify ? "stratified by scenario" : "not stratified");
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    printf("  %-10s %5ld group%s (%ld couple, %ld family), %ld sample%s\n", rescue_split_name(sp),
           res.groups[sp], res.groups[sp] == 1 ? " " : "s", res.scenario_groups[0][sp],
           res.scenario_groups[1][sp], res.samples[sp], res.samples[sp] == 1 ? "" : "s");
  rescue_store_close(&st);
  return cli_finish(0);
}
