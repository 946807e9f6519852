/*
** cmd_adjudicate.c: `rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]
** [--coders a,b] [--dry-run]` and `rescue adjudicate <db> --decide <file.jsonl> --lead <name>`.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const policies[] = {"lead", "majority", "latest", NULL};
static int policy_index = -1, json;
static const char *lead, *decide_file, *segmentation;
static int dry_run;
static cli_list samples, coders;
static const cli_option options[] = {
    {.type = CLI_OPT_CHOICE,
     .long_name = "policy",
     .value = &policy_index,
     .argh = "<p>",
     .help = "lead, majority or latest",
     .choices = policies,
     .bad = "unknown policy '%s'"},
    CLI_STRING(0, "lead", &lead, "<name>",
               "the lead (policy lead: default the corpus's only annotator with\n"
               "role lead; --decide: required)"),
    {.type = CLI_OPT_LIST,
     .long_name = "coders",
     .value = &coders,
     .argh = "<names>",
     .help = "the coders, comma-separated (registered, not retired)",
     .bad = "--coders needs at least one name"},
    CLI_SAMPLES_HELP(&samples, "only these samples (discarded ones are skipped unless named)"),
    CLI_STRING(0, "segmentation", &segmentation, "<from>",
               "settle each sample's gold row set first: <annotator>, draft or\n"
               "majority (see above)"),
    CLI_STRING(0, "decide", &decide_file, "<file>", "apply a lead's decisions (see above)"),
    CLI_FLAG(0, "dry-run", &dry_run, "decide and report what would be written; write nothing"),
    CLI_JSON(&json, "one JSON document"),
    CLI_END};
static const cli_spec spec = {
    .synopsis =
        "rescue adjudicate <db> --policy lead|majority|latest [--lead <name>]\n"
        "                         [--segmentation <annotator>|draft|majority]\n"
        "                         [--coders <a>,<b>...] [--samples <id>,...] [--dry-run] [--json]\n"
        "       rescue adjudicate <db> --decide <decisions.jsonl> --lead <name>\n"
        "                         [--coders <a>,<b>...] [--dry-run] [--json]",
    .description =
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
        "Segmentation comes first. Gold rows live in a row set of their own, chosen per\n"
        "sample with --segmentation: an annotator's row set (they must have a version of the\n"
        "sample), the draft's, or the majority's (the row set strictly more coders share than\n"
        "any other; two row sets are the same when every row's start and end agree within\n"
        "10 ms; with no majority the sample waits for a lead, and the report says so). Times,\n"
        "speaker, text and row_index of gold rows come from that row set; the other fields\n"
        "are decided as above, each coder's value taken from their row aligned to the gold\n"
        "row (one to one by greatest overlap, at least half the shorter span), their row\n"
        "references renumbered to gold rows. Without --segmentation a sample keeps its gold\n"
        "row set, if any; a sample whose coders' row sets differ and that has none is left\n"
        "out and listed, waiting for --segmentation. The option applies to the --samples\n"
        "named, else to every sample whose coders' row sets differ.\n"
        "\n"
        "--decide applies a lead's decisions, one JSON object per line:\n"
        "  {\"sample_id\": \"...\", \"row_index\": 3, \"field\": \"utterance_type\", \"value\": "
        "\"defense\"}\n"
        "  {\"sample_id\": \"...\", \"row_index\": 3, \"field\": \"target\", \"take\": \"ann1\"}\n"
        "  {\"sample_id\": \"...\", \"row_index\": 3, \"field\": "
        "\"/internal_emotion/Alan/intensity\",\n"
        "   \"undo\": true}\n"
        "(\"take\" copies that coder's value, \"draft\" the draft's; \"undo\" takes back the\n"
        "latest decision on that field). \"field\" is a field name or a pointer to one item of a\n"
        "list field, keyed by its person (\"source>target\" for viewpoints), or to one part of\n"
        "it. Each decision is linted with its row first and changes that value only: a row's\n"
        "gold is written once none of its values is undecided (a row already gold gets a new\n"
        "gold version at once), with who decided each value, when and how; `rescue log` lists\n"
        "each decision under the lead. An unknown key, field, item or coder, a coder without a\n"
        "version of the sample or a value lint refuses stops the whole file (file:line:column)\n"
        "and writes nothing; --dry-run writes nothing, the log included. The review server's\n"
        "curation page decides the same way.\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

/* The readable report. */
static void report(const rescue_adjudicate_opts *o, const rescue_adjudicate_result *res, int decide,
                   rescue_buf *out) {
  int i, f, k;
  if (decide) {
    rescue_buf_printf(out, "%s%ld decision%s by %s %s in %ld sample%s: %ld gold version%s %s\n",
                      o->dry_run ? "(dry run: nothing written) " : "", res->decisions,
                      res->decisions == 1 ? "" : "s", res->lead,
                      o->dry_run ? "checked" : "recorded", res->samples,
                      res->samples == 1 ? "" : "s", res->written, res->written == 1 ? "" : "s",
                      o->dry_run ? "would be written" : "written");
    return;
  }
  if (o->dry_run)
    rescue_buf_puts(out, "(dry run: nothing written) ");
  rescue_buf_printf(out, "adjudicated %ld sample%s (%ld row%s) by policy %s", res->samples,
                    res->samples == 1 ? "" : "s", res->rows, res->rows == 1 ? "" : "s",
                    rescue_adj_policy_name(o->policy));
  if (res->lead)
    rescue_buf_printf(out, " (lead %s)", res->lead);
  rescue_buf_printf(out, ": %ld gold version%s %s, %ld already gold, %d undecided\n", res->written,
                    res->written == 1 ? "" : "s", o->dry_run ? "would be written" : "written",
                    res->unchanged, res->n_undecided);
  rescue_buf_puts(out, "coders:");
  for (i = 0; i < res->n_coders; i++)
    rescue_buf_printf(out, "%s%s", i ? ", " : " ", res->coders[i]);
  if (!res->n_coders)
    rescue_buf_puts(out, " none");
  rescue_buf_printf(out, "; fields agreed %ld, decided %ld\n", res->fields_agreed,
                    res->fields_decided);
  if (o->segmentation)
    rescue_buf_printf(out, "gold segmentation (%s): %ld sample%s set\n", o->segmentation,
                      res->segmentations, res->segmentations == 1 ? "" : "s");
  if (res->waiting) {
    rescue_buf_printf(out, "\n%ld sample%s wait%s for a lead (no gold segmentation):\n",
                      res->waiting, res->waiting == 1 ? "" : "s", res->waiting == 1 ? "s" : "");
    for (i = 0; i < res->n_undecided; i++)
      if (res->undecided[i].row == 0)
        rescue_buf_printf(out, "  %s: %s\n", res->undecided[i].sample_id, res->undecided[i].reason);
    rescue_buf_puts(out, "choose with --segmentation <annotator>|draft|majority "
                         "[--samples <id>,...]\n");
  }
  if (res->n_undecided > res->waiting)
    rescue_buf_puts(out, "\nundecided rows (left as they are):\n");
  for (i = 0; i < res->n_undecided; i++) {
    const rescue_adj_undecided *u = &res->undecided[i];
    if (u->row == 0)
      continue;
    rescue_buf_printf(out, "  %s:%d: %s\n", u->sample_id, u->row, u->reason);
    for (f = 0; f < u->n_fields; f++) {
      rescue_buf_printf(out, "      %s:", u->fields[f].field);
      for (k = 0; k < u->fields[f].n_values; k++)
        rescue_buf_printf(out, "%s %s %s", k ? " |" : "", u->fields[f].values[k].coder,
                          u->fields[f].values[k].value ? u->fields[f].values[k].value : "(absent)");
      rescue_buf_putc(out, '\n');
    }
  }
}

int cmd_adjudicate(int argc, char **argv) {
  rescue_adjudicate_opts o = {0};
  rescue_adjudicate_result res;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, first;
  memset(&res, 0, sizeof res);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  rc = 2;
  o.lead = lead;
  o.dry_run = dry_run;
  o.segmentation = segmentation;
  if (segmentation && !*segmentation) {
    cli_spec_error(&spec, "--segmentation needs an annotator's name, draft or majority");
    goto end;
  }
  if (decide_file) {
    if (policy_index >= 0 || samples.n || segmentation) {
      cli_spec_error(&spec, "--decide does not go with --policy, --samples or --segmentation "
                            "(the file says which rows)");
      goto end;
    }
    if (!o.lead) {
      cli_spec_error(&spec, "--decide needs --lead <name>: decisions are recorded with the lead");
      goto end;
    }
    o.policy = RESCUE_ADJ_MAJORITY;
  } else {
    if (policy_index < 0) {
      cli_spec_error(&spec, "missing --policy (or --decide)");
      goto end;
    }
    if (rescue_adj_policy_parse(policies[policy_index], &o.policy)) {
      cli_error("unknown policy '%s'", policies[policy_index]);
      rc = 1;
      goto end;
    }
    if (o.lead && o.policy != RESCUE_ADJ_LEAD) {
      cli_spec_error(&spec, "--lead applies to --policy lead only");
      goto end;
    }
  }
  if ((rc = cli_open_store(argv[first], 0, &st)))
    goto end;
  o.samples = (const char *const *)samples.v;
  o.n_samples = samples.n;
  o.coders = (const char *const *)coders.v;
  o.n_coders = coders.n;
  rc = decide_file ? rescue_adjudicate_decide(st, decide_file, o.lead, &o, &res)
                   : rescue_adjudicate(st, &o, &res);
  if (rc) {
    rc = cli_fail_spec(rescue_store_err(st), argv[first], &spec);
    goto end;
  }
  if (json) {
    rescue_adjudicate_result_json(&o, &res, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    report(&o, &res, decide_file != NULL, &out);
  }
  rc = cli_print(&out);
end:
  rescue_buf_clear(&out);
  rescue_adjudicate_result_clear(&res);
  rescue_store_close(&st);
  cli_list_clear(&samples);
  cli_list_clear(&coders);
  return rc;
}
