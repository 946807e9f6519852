/*
** cmd_adjudicate.c: `rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]\n"
    "                         [--samples <id>,...] [--json]\n"
    "\n"
    "Decide each row's gold content (the whole row) and write it as a gold version, marked\n"
    "with the policy and the versions it came from, under the annotator 'adjudication'.\n"
    "The coders of a sample are the people with a version of one of its rows; a coder's\n"
    "content for a row is their latest version of it, else the row's first version.\n"
    "\n"
    "  lead      the lead's version where the lead made one, else the content every other\n"
    "            coder shares\n"
    "  majority  the content most coders share\n"
    "  latest    the latest version by anyone\n"
    "\n"
    "Rows that cannot be decided (coders disagree and the lead made no version; ties) are\n"
    "listed and left as they are; that is a result, not a failure (exit 0). Running it\n"
    "again writes only what changed. Exports use gold where it exists.\n"
    "\n"
    "options:\n"
    "  --policy <p>     lead, majority or latest\n"
    "  --lead <name>    the lead (policy lead; default: the corpus's only annotator with\n"
    "                   role lead)\n"
    "  --samples <ids>  only these samples (discarded ones are skipped unless named)\n"
    "  --json           one JSON document\n"
    "  -h, --help       show this help\n";

int cmd_adjudicate(int argc, char **argv) {
  static const struct option opts[] = {{"policy", required_argument, NULL, 'p'},
                                       {"lead", required_argument, NULL, 'l'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_adjudicate_opts o;
  rescue_adjudicate_result res;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  char **samples = NULL;
  const char *policy = NULL;
  int c, rc = 2, json = 0, n_samples = 0, i;
  memset(&o, 0, sizeof o);
  memset(&res, 0, sizeof res);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': cli_free_list(samples); return cli_help(usage);
    case 'p': policy = optarg; break;
    case 'l': o.lead = optarg; break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_usage_error(usage, "--samples needs at least one sample id");
        goto end;
      }
      break;
    case 'j': json = 1; break;
    default: goto end;
    }
  }
  if (argc - optind != 1) {
    cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if (!policy) {
    cli_usage_error(usage, "missing --policy");
    goto end;
  }
  if (rescue_adj_policy_parse(policy, &o.policy)) {
    cli_usage_error(usage, "unknown policy '%s' (expected lead, majority or latest)", policy);
    goto end;
  }
  if (o.lead && o.policy != RESCUE_ADJ_LEAD) {
    cli_usage_error(usage, "--lead applies to --policy lead only");
    goto end;
  }
  if ((rc = cli_open_store(argv[optind], 0, &st)))
    goto end;
  o.samples = (const char *const *)samples;
  o.n_samples = n_samples;
  if ((rc = rescue_adjudicate(st, &o, &res))) {
    rc = rc == RESCUE_EINVAL ? cli_usage_error(usage, "%s", rescue_store_errmsg(st))
                             : cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_adjudicate_result_json(&o, &res, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_buf_printf(&out, "adjudicated %ld sample%s (%ld row%s) by policy %s", res.samples,
                      res.samples == 1 ? "" : "s", res.rows, res.rows == 1 ? "" : "s",
                      rescue_adj_policy_name(o.policy));
    if (res.lead)
      rescue_buf_printf(&out, " (lead %s)", res.lead);
    rescue_buf_printf(&out, ": %ld gold version%s written, %ld already gold, %d undecided\n",
                      res.written, res.written == 1 ? "" : "s", res.unchanged, res.n_undecided);
    if (res.n_undecided)
      rescue_buf_puts(&out, "\nundecided rows (left as they are):\n");
    for (i = 0; i < res.n_undecided; i++)
      rescue_buf_printf(&out, "  %s:%d: %s\n", res.undecided[i].sample_id, res.undecided[i].row,
                        res.undecided[i].reason);
  }
  rc = cli_print(&out);
  if (rc == 0) {
    char detail[200];
    rescue_store_close(&st);
    snprintf(detail, sizeof detail, "policy %s: %ld gold versions written, %d undecided",
             rescue_adj_policy_name(o.policy), res.written, res.n_undecided);
    cli_audit(argv[optind], "adjudicate", argc, argv, o.lead, detail);
  }
end:
  rescue_buf_free(&out);
  rescue_adjudicate_result_free(&res);
  rescue_store_close(&st);
  cli_free_list(samples);
  return rc;
}
