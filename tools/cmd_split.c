/*
** cmd_split.c: `rescue split <db> --ratios <train>,<validation>,<test> --seed <n> [--no-stratify]`.
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *ratios;
static long seed = -1;
static int no_stratify;
static const cli_option options[] = {
    CLI_STRING_REQ(0, "ratios", &ratios, "<r,r,r>",
                   "shares of groups for train, validation and test, used in proportion\n"
                   "(0.8,0.1,0.1 and 8,1,1 are the same); 0 leaves a split out\n"
                   "(0,0,1 makes a test-only release, like RESCUE-BENCH)"),
    CLI_LONG_REQ(0, "seed", &seed, "<n>",
                 "seed of the shuffle, a whole number from 0 to 9223372036854775807", 0, LONG_MAX),
    CLI_FLAG(0, "no-stratify", &no_stratify,
             "one draw over all groups instead of one per scenario (couple,\n"
             "family); by default each scenario's group counts follow the ratios\n"
             "(largest remainder)"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue split <db> --ratios <train>,<validation>,<test> --seed <n> [--no-stratify]",
    .description =
        "Assign every group (a couple, a family: the sample_id without its last part) to train,\n"
        "validation or test, so that no group's sessions appear in two splits. The same corpus\n"
        "and seed give the same assignment, on every machine and in every version (the shuffle\n"
        "draws from SplitMix64 started at the seed). Each run is recorded as a new split run\n"
        "(earlier ones stay in the history); 'rescue export --format tasks' then writes one\n"
        "file per split of the latest run.\n",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

/*
** Warn about each split that was given a share but got no group: groups (a couple, a
** family) are kept whole, so a corpus with few of them cannot fill every split.
*/
static void split_warnings(const rescue_split_result *res, const double *share) {
  long total = 0;
  int sp;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    total += res->groups[sp];
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if (share[sp] > 0 && res->groups[sp] == 0)
      cli_warn("%s is empty although its ratio is %g: the corpus has %ld group%s (couples and "
               "families, each kept whole in one split); add data, or give it ratio 0",
               rescue_split_name(sp), share[sp], total, total == 1 ? "" : "s");
}

int cmd_split(int argc, char **argv) {
  rescue_split_opts o = {0};
  rescue_split_result res;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  int rc, sp, first;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  o.stratify = !no_stratify;
  if (rescue_split_parse_ratios(ratios, o.ratios, &err))
    return cli_spec_error(&spec, "%s", err.msg);
  o.ratios_text = ratios;
  o.seed = (uint64_t)seed;
  if ((rc = cli_open_store(argv[first], 0, &st)))
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
  split_warnings(&res, o.ratios);
  rescue_store_close(&st);
  return cli_finish(0);
}
