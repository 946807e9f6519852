/*
** cmd_assign.c: `rescue assign <db> --annotators a,b,c [--overlap 0.2] [--seed N]`, and
** `rescue assign <db> --list [--annotator <name>] [--json]`.
*/
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static cli_list names;
static const char *one;
static int list_only, json_out;
static long seed = 1;
static double overlap = 0.2;
static const cli_option options[] = {
    {.type = CLI_OPT_LIST,
     .long_name = "annotators",
     .value = &names,
     .argh = "<names>",
     .help = "registered annotators (people, not models, not retired), comma-separated",
     .bad = "--annotators needs at least one name"},
    CLI_DOUBLE_RANGE(0, "overlap", &overlap, "<share>",
                     "share of samples reviewed twice, 0 to 1 (default 0.2)", 0, 1,
                     "--overlap is a share from 0 to 1, not '%s'"),
    CLI_LONG(0, "seed", &seed, "<n>", "shuffle seed (default 1)", 0, LONG_MAX),
    CLI_FLAG(0, "list", &list_only, "list the assignment in use instead of dealing"),
    CLI_STRING(0, "annotator", &one, "<name>", "with --list: only this annotator's samples"),
    CLI_JSON(&json_out, "with --list: one JSON document {\"run\", \"assignments\":\n"
                        "[{\"sample_id\", \"annotator\", \"status\", \"status_reason\",\n"
                        "\"rows\", \"rows_saved\", \"comments\"}]}"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue assign <db> --annotators <a>,<b>... [--overlap <share>] [--seed <n>]\n"
                "       rescue assign <db> --list [--annotator <name>] [--json]",
    .description =
        "Deal the samples (not discarded) out to annotators for review: every sample gets one\n"
        "reviewer, and about <share> of them get two, which is what agreement needs. A couple's\n"
        "or family's samples stay together; the double-reviewed share is taken in each scenario;\n"
        "the load is balanced by samples and pairs rotate. The same seed gives the same deal.\n"
        "Each run is recorded; the latest is the one in use (rescue annotator list shows it,\n"
        "the review page's \"assigned to me\" uses it).\n"
        "\n"
        "--list shows the assignment in use: each (sample, annotator) with the sample's status\n"
        "and how many of its rows that annotator has saved so far.\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

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

/*
** Warn where the assignment will not serve its purpose: an overlap that gave no sample
** reviewed twice, an annotator who got nothing (samples of one couple or family go to
** one annotator together, so a small corpus has few units to deal).
*/
static void assign_warnings(const rescue_assign_result *res, double share, const char *const *who,
                            int n) {
  int i;
  if (share > 0 && res->double_samples == 0)
    cli_warn("--overlap %g gave 0 samples reviewed twice: each couple's or family's samples "
             "are shared together, and %g of %ld sample%s in %ld group%s rounds to no group; "
             "raise --overlap or assign more samples, or there is no agreement to measure",
             share, share, res->samples, res->samples == 1 ? "" : "s", res->groups,
             res->groups == 1 ? "" : "s");
  for (i = 0; i < n; i++)
    if (res->per_annotator[i] == 0)
      cli_warn("%s got 0 samples: %ld group%s dealt to %d annotators (a couple's or family's "
               "samples go to one annotator together); assign fewer annotators or more samples",
               who[i], res->groups, res->groups == 1 ? "" : "s", n);
}

int cmd_assign(int argc, char **argv) {
  int rc = 2, first, n, i, dealing;
  rescue_store *st = NULL;
  rescue_assign_opts o;
  rescue_assign_result res;
  memset(&res, 0, sizeof res);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  rc = 2;
  n = names.n;
  dealing = cli_given(&spec, "overlap") || cli_given(&spec, "seed");
  if (list_only) {
    if (n || dealing) {
      cli_spec_error(&spec, "--list does not go with --annotators, --overlap or --seed");
      goto end;
    }
    rc = assign_list(argv[first], one, json_out);
    goto end;
  }
  if (one || json_out) {
    cli_spec_error(&spec, "%s goes with --list", one ? "--annotator" : "--json");
    goto end;
  }
  if (!n) {
    cli_spec_error(&spec, "missing --annotators (or --list)");
    goto end;
  }
  if (overlap > 0 && n < 2) {
    cli_spec_error(&spec, "double review (--overlap above 0) needs at least two annotators; "
                          "give --overlap 0 for one");
    goto end;
  }
  if ((rc = cli_open_store(argv[first], 0, &st)))
    goto end;
  o.annotators = (const char *const *)names.v;
  o.n_annotators = n;
  o.overlap = overlap;
  o.seed = (uint64_t)seed;
  if (rescue_assign(st, &o, &res)) {
    /* a retired annotator is a failure (exit 1, no usage), as in import, agree and adjudicate */
    rc = cli_fail_path(rescue_store_err(st), argv[first]);
    goto end;
  }
  printf("assignment run %lld (seed %ld, overlap %g): %ld sample%s in %ld group%s; %ld sample%s "
         "(%ld group%s) reviewed twice\n",
         (long long)res.run_id, seed, overlap, res.samples, res.samples == 1 ? "" : "s", res.groups,
         res.groups == 1 ? "" : "s", res.double_samples, res.double_samples == 1 ? "" : "s",
         res.double_groups, res.double_groups == 1 ? "" : "s");
  for (i = 0; i < n; i++)
    printf("  %-20s %5ld sample%s (%ld shared)\n", names.v[i], res.per_annotator[i],
           res.per_annotator[i] == 1 ? " " : "s", res.shared_per_annotator[i]);
  assign_warnings(&res, overlap, (const char *const *)names.v, n);
  rc = cli_finish(0);
end:
  rescue_assign_result_clear(&res);
  rescue_store_close(&st);
  cli_list_clear(&names);
  return rc;
}
