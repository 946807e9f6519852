/*
** cmd_adjudicate.c: `rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]
** [--coders a,b] [--dry-run]` and `rescue adjudicate <db> --decide <file.jsonl> --lead <name>`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]\n"
    "                         [--coders <a>,<b>...] [--samples <id>,...] [--dry-run] [--json]\n"
    "       rescue adjudicate <db> --decide <decisions.jsonl> --lead <name>\n"
    "                         [--coders <a>,<b>...] [--dry-run] [--json]\n"
    "\n"
    "Decide each row's gold content field by field (a field is a top-level key of the row)\n"
    "and write it as a gold version, marked with the policy and the versions it came from,\n"
    "under the annotator 'adjudication'. The coders are the annotators and leads (not\n"
    "retired) who saved at least one version, or those --coders names; the draft (an\n"
    "import without --annotator) is never a coder, and models vote only when named. A\n"
    "coder's value for a row is their own view of it: their version, else the draft.\n"
    "\n"
    "The fields every coder agrees on are decided at once. The others:\n"
    "  majority  the value most coders share (a tie stays undecided)\n"
    "  lead      the lead's version, whole, where the lead saved one (the only way a lead\n"
    "            wins automatically); elsewhere only fields every other coder agrees on\n"
    "  latest    the latest version by any coder, whole row\n"
    "A lead's own import is a coder's version like any other under majority.\n"
    "\n"
    "A row's gold is written only when its last field is decided, so the gold view never\n"
    "holds a half-decided row. Undecided rows are listed with each undecided field and\n"
    "every coder's value; that is a result, not a failure (exit 0). Running it again\n"
    "writes only what changed. Exports use gold where it exists.\n"
    "\n"
    "--decide applies a lead's decisions, one JSON object per line:\n"
    "  {\"sample_id\": \"...\", \"row_index\": 3, \"field\": \"utterance_type\", \"value\": \"defense\"}\n"
    "  {\"sample_id\": \"...\", \"row_index\": 3, \"field\": \"target\", \"take\": \"ann1\"}\n"
    "(\"take\" copies that coder's value). Each is recorded with the lead's name, and the\n"
    "samples they touch are adjudicated again by majority with the decisions in force.\n"
    "A bad line refuses the whole file (file:line:column) and writes nothing.\n"
    "\n"
    "options:\n"
    "  --policy <p>       lead, majority or latest\n"
    "  --lead <name>      the lead (policy lead: default the corpus's only annotator with\n"
    "                     role lead; --decide: required)\n"
    "  --coders <names>   the coders, comma-separated (registered, not retired)\n"
    "  --samples <ids>    only these samples (discarded ones are skipped unless named)\n"
    "  --decide <file>    apply a lead's decisions (see above)\n"
    "  --dry-run          decide and report what would be written; write nothing\n"
    "  --json             one JSON document\n"
    "  -h, --help         show this help\n";

/* The readable report. */
static void report(const rescue_adjudicate_opts *o, const rescue_adjudicate_result *res,
                   int decide, rescue_buf *out) {
  int i, f, k;
  if (decide)
    rescue_buf_printf(&*out, "%s%ld decision%s by %s recorded; ", o->dry_run ? "(dry run) " : "",
                      res->decisions, res->decisions == 1 ? "" : "s", res->lead);
  else if (o->dry_run)
    rescue_buf_puts(out, "(dry run: nothing written) ");
  rescue_buf_printf(out, "adjudicated %ld sample%s (%ld row%s) by policy %s", res->samples,
                    res->samples == 1 ? "" : "s", res->rows, res->rows == 1 ? "" : "s",
                    rescue_adj_policy_name(decide ? RESCUE_ADJ_MAJORITY : o->policy));
  if (res->lead && !decide)
    rescue_buf_printf(out, " (lead %s)", res->lead);
  rescue_buf_printf(out, ": %ld gold version%s %s, %ld already gold, %d undecided\n",
                    res->written, res->written == 1 ? "" : "s",
                    o->dry_run ? "would be written" : "written", res->unchanged, res->n_undecided);
  rescue_buf_puts(out, "coders:");
  for (i = 0; i < res->n_coders; i++)
    rescue_buf_printf(out, "%s%s", i ? ", " : " ", res->coders[i]);
  if (!res->n_coders)
    rescue_buf_puts(out, " none");
  rescue_buf_printf(out, "; fields agreed %ld, decided %ld\n", res->fields_agreed,
                    res->fields_decided);
  if (res->n_undecided)
    rescue_buf_puts(out, "\nundecided rows (left as they are):\n");
  for (i = 0; i < res->n_undecided; i++) {
    const rescue_adj_undecided *u = &res->undecided[i];
    rescue_buf_printf(out, "  %s:%d: %s\n", u->sample_id, u->row, u->reason);
    for (f = 0; f < u->n_fields; f++) {
      rescue_buf_printf(out, "      %s:", u->fields[f].field);
      for (k = 0; k < u->fields[f].n_values; k++)
        rescue_buf_printf(out, "%s %s %s", k ? " |" : "", u->fields[f].values[k].coder,
                          u->fields[f].values[k].value ? u->fields[f].values[k].value
                                                       : "(absent)");
      rescue_buf_putc(out, '\n');
    }
  }
}

int cmd_adjudicate(int argc, char **argv) {
  static const struct option opts[] = {{"policy", required_argument, NULL, 'p'},
                                       {"lead", required_argument, NULL, 'l'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"coders", required_argument, NULL, 'c'},
                                       {"decide", required_argument, NULL, 'd'},
                                       {"dry-run", no_argument, NULL, 'n'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_adjudicate_opts o;
  rescue_adjudicate_result res;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  char **samples = NULL, **coders = NULL;
  const char *policy = NULL, *decide = NULL;
  int c, rc = 2, json = 0, n_samples = 0, n_coders = 0;
  memset(&o, 0, sizeof o);
  memset(&res, 0, sizeof res);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h':
      cli_free_list(samples);
      cli_free_list(coders);
      return cli_help(usage);
    case 'p': policy = optarg; break;
    case 'l': o.lead = optarg; break;
    case 'd': decide = optarg; break;
    case 'n': o.dry_run = 1; break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_usage_error(usage, "--samples needs at least one sample id");
        goto end;
      }
      break;
    case 'c':
      cli_free_list(coders);
      coders = cli_split_list(optarg, &n_coders);
      if (!coders || !n_coders) {
        cli_usage_error(usage, "--coders needs at least one name");
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
  if (decide) {
    if (policy || samples) {
      cli_usage_error(usage, "--decide does not go with --policy or --samples (the file says "
                             "which rows)");
      goto end;
    }
    if (!o.lead) {
      cli_usage_error(usage, "--decide needs --lead <name>: decisions are recorded with the lead");
      goto end;
    }
    o.policy = RESCUE_ADJ_MAJORITY;
  } else {
    if (!policy) {
      cli_usage_error(usage, "missing --policy (or --decide)");
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
  }
  if ((rc = cli_open_store(argv[optind], 0, &st)))
    goto end;
  o.samples = (const char *const *)samples;
  o.n_samples = n_samples;
  o.coders = (const char *const *)coders;
  o.n_coders = n_coders;
  rc = decide ? rescue_adjudicate_decide(st, decide, o.lead, &o, &res)
              : rescue_adjudicate(st, &o, &res);
  if (rc) {
    rc = cli_fail_usage(rescue_store_err(st), argv[optind], usage);
    goto end;
  }
  if (json) {
    rescue_adjudicate_result_json(&o, &res, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    report(&o, &res, decide != NULL, &out);
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
  rescue_buf_clear(&out);
  rescue_adjudicate_result_clear(&res);
  rescue_store_close(&st);
  cli_free_list(samples);
  cli_free_list(coders);
  return rc;
}
