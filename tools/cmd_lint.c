/*
** cmd_lint.c: `rescue lint <db>`: the annotation guideline's rules R01-R20 over the corpus,
** and the waivers that settle accepted findings.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char description[] =
    "Check every sample against the annotation guideline (annotate/LINT.md), driven by the\n"
    "corpus's scheme: JSON types, times, entity sets, closed label sets per scenario,\n"
    "ranges, evidence rows, subtitle coverage, scenario and participants. One line per\n"
    "finding: <sample>:<row>: error|warning: <rule> <field>: <reason>; a value outside its\n"
    "closed set names the closest allowed ones. Exits 1 when there is an error finding\n"
    "that is not waived, 0 otherwise.\n"
    "\n"
    "A finding that is known and accepted can be waived: --waive R13:<sample_id>:2\n"
    "--reason '...' records who, when and why in the corpus (row 0: the sample as a whole).\n"
    "Waived findings are listed apart, after the others, and never fail the run;\n"
    "--unwaive removes the waiver. A waiver needs a finding to cover (the row's findings are\n"
    "named otherwise); --by must name a registered annotator or lead. Waiving the same\n"
    "finding again replaces the waiver and says whose it was; every waive and unwaive is\n"
    "kept, and --waiver-history lists them (of --samples only when given).\n"
    "\n"
    "rules:\n"
    "";

static const char *view_spec, *waive, *unwaive, *reason, *by;
static int json, history;
static cli_list samples;
static const cli_option options[] = {
    CLI_SAMPLES_HELP(&samples, "only these samples (comma-separated; discarded samples are\n"
                               "skipped unless named here)"),
    CLI_VIEW_HELP(&view_spec, "which version of each row: the corpus view by default (gold where\n"
                              "adjudicated, else the latest), gold, latest or annotator:<name>"),
    CLI_JSON(&json, "one JSON document: counts, every finding, the waived findings\n"
                    "and the waivers"),
    {.type = CLI_OPT_STRING,
     .long_name = "waive",
     .value = &waive,
     .argh = "<w>",
     .help = "record a waiver <rule>:<sample_id>:<row> (needs --reason)",
     .group = 1},
    CLI_STRING(0, "reason", &reason, "<text>", "why the finding is accepted"),
    CLI_STRING(0, "by", &by, "<name>",
               "who waives or unwaives it, a registered annotator or lead\n"
               "(default: the login name, $USER)"),
    {.type = CLI_OPT_STRING,
     .long_name = "unwaive",
     .value = &unwaive,
     .argh = "<w>",
     .help = "remove a waiver",
     .group = 1},
    CLI_FLAG(0, "waiver-history", &history, "every waive and unwaive, oldest first"),
    CLI_END};
static cli_spec spec = {
    .synopsis =
        "rescue lint <db> [--samples <id>,...] [--view gold|latest|annotator:<name>] [--json]\n"
        "   or: rescue lint <db> --waive <rule>:<sample_id>:<row> --reason <text> [--by <name>]\n"
        "   or: rescue lint <db> --unwaive <rule>:<sample_id>:<row> [--by <name>]\n"
        "   or: rescue lint <db> --waiver-history [--samples <id>]",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

/* The description with the rule list (the spec's, once). */
static void describe_rules(void) {
  static char text[8192];
  size_t n;
  int r;
  if (text[0])
    return;
  n = (size_t)snprintf(text, sizeof text, "%s", description);
  for (r = 1; r <= RESCUE_LINT_RULES && n < sizeof text; r++)
    n += (size_t)snprintf(text + n, sizeof text - n, "  R%02d %-7s  %s\n", r,
                          rescue_lint_rule_severity(r) == RESCUE_LINT_ERROR ? "error" : "warning",
                          rescue_lint_rule_text(r));
  spec.description = text;
}

/* Refuse a --by that names nobody registered, or a model account (its message on st). */
static int registered(rescue_store *st, const char *name) {
  const char *role = NULL;
  int64_t id;
  int rc = rescue_annotator_lookup(st, name, &id, &role, NULL);
  if (rc == RESCUE_ENOANNOTATOR)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOANNOTATOR,
                         "--by %s: %s; nothing was recorded", name, rescue_store_errmsg(st));
  if (rc == 0 && strcmp(role, "model") == 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "--by %s is a model account; a waiver is a person's decision", name);
  return rc;
}

/* --waive / --unwaive: change the corpus's waivers and say what was done. */
static int waiver_command(const char *db, int lint_opts) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_buf replaced = RESCUE_BUF_INIT;
  char *sample = NULL;
  const char *why;
  int rule, row, rc, given_by;
  if (!waive == !unwaive)
    return cli_spec_error(&spec, waive ? "give --waive or --unwaive, not both"
                                       : "--reason and --by go with --waive");
  if (lint_opts)
    return cli_spec_error(&spec,
                          "--samples, --view and --json do not apply to --waive or --unwaive");
  if (waive && (!reason || !*reason))
    return cli_spec_error(&spec, "--waive needs --reason <text> (why the finding is accepted)");
  if (unwaive && reason)
    return cli_spec_error(&spec, "--reason goes with --waive");
  given_by = by != NULL;
  if (!by)
    by = getenv("USER") && *getenv("USER") ? getenv("USER") : "unknown";
  if ((why = rescue_annotator_name_invalid(by)) != NULL)
    return cli_spec_error(&spec, "invalid name for --by: %s", why);
  if (rescue_lint_waiver_parse(waive ? waive : unwaive, &rule, &sample, &row, &err)) {
    rc = err.code == RESCUE_EINVAL ? cli_spec_error(&spec, "%s", err.msg) : cli_fail(&err);
    rescue_free(sample);
    return rc;
  }
  if ((rc = cli_open_store(db, 0, &st))) {
    rescue_free(sample);
    return rc;
  }
  if (given_by && (rc = registered(st, by)) != 0) {
    rc = cli_fail(rescue_store_err(st));
  } else if ((rc = waive ? rescue_lint_waive(st, rule, sample, row, reason, by, &replaced)
                         : rescue_lint_unwaive(st, rule, sample, row, by))) {
    rc = cli_fail(rescue_store_err(st));
  } else {
    if (row)
      printf("%s R%02d on %s row %d\n", waive ? "waived" : "removed the waiver of", rule, sample,
             row);
    else
      printf("%s R%02d on %s (the sample as a whole)\n", waive ? "waived" : "removed the waiver of",
             rule, sample);
    if (replaced.len)
      printf("  (replacing the waiver by %s; kept in --waiver-history)\n", replaced.s);
    rc = cli_finish(0);
  }
  rescue_buf_clear(&replaced);
  rescue_store_close(&st);
  rescue_free(sample);
  return rc;
}

/* --waiver-history: every waive and unwaive, of the --samples when given. */
static int history_command(const char *db) {
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc;
  if (waive || unwaive || reason || by || view_spec || json || samples.n > 1)
    return cli_spec_error(&spec, "--waiver-history takes at most one sample (--samples <id>)");
  if ((rc = cli_open_store(db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  rc = rescue_lint_waiver_history(st, samples.n ? samples.v[0] : NULL, &out);
  if (rc)
    rc = cli_fail(rescue_store_err(st));
  else {
    if (!out.len)
      rescue_buf_puts(&out, "no waiver was ever recorded\n");
    rc = cli_print(&out);
  }
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}

int cmd_lint(int argc, char **argv) {
  int c, rc, first, i;
  rescue_lint_opts o = {0};
  rescue_lint_result res;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  cli_progress *bar = NULL;

  memset(&res, 0, sizeof res);
  describe_rules();
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  if (history) {
    rc = history_command(argv[first]);
    goto end;
  }
  if (waive || unwaive || reason || by) {
    rc = waiver_command(argv[first], samples.n || view_spec || json);
    goto end;
  }
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    goto end;
  if (rescue_view_parse(st, view_spec, &o.view)) {
    rc = cli_fail_spec(rescue_store_err(st), argv[first], &spec);
    goto end;
  }
  o.samples = (const char *const *)samples.v;
  o.n_samples = samples.n;
  bar = cli_progress_start("linting");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  rc = rescue_lint(st, &o, &res);
  cli_progress_done(&bar);
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_lint_result_json(&res, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    for (i = 0; i < res.n; i++)
      if (!res.findings[i].waiver)
        rescue_lint_finding_text(&res.findings[i], &out);
    if (res.waived) {
      rescue_buf_printf(&out, "%swaived (accepted findings; they do not fail lint):\n",
                        res.n > res.waived ? "\n" : "");
      for (i = 0; i < res.n; i++) {
        const rescue_lint_finding *f = &res.findings[i];
        const rescue_lint_waiver *w = f->waiver ? &res.waivers[f->waiver - 1] : NULL;
        if (!w)
          continue;
        rescue_buf_puts(&out, "  ");
        rescue_lint_finding_text(f, &out);
        rescue_buf_printf(&out, "    waived by %s on %.10s: %s\n", w->by, w->at, w->reason);
      }
    }
    rescue_buf_printf(&out, "%s%ld sample%s, %ld row%s: %ld error%s, %ld warning%s",
                      res.n ? "\n" : "", res.samples, res.samples == 1 ? "" : "s", res.rows,
                      res.rows == 1 ? "" : "s", res.errors, res.errors == 1 ? "" : "s",
                      res.warnings, res.warnings == 1 ? "" : "s");
    if (res.waived)
      rescue_buf_printf(&out, ", %ld waived", res.waived);
    for (i = 1, c = 0; i <= RESCUE_LINT_RULES; i++)
      if (res.by_rule[i])
        rescue_buf_printf(&out, "%sR%02d %ld", c++ ? ", " : " (", i, res.by_rule[i]);
    rescue_buf_puts(&out, c ? ")\n" : "\n");
  }
  rc = cli_print(&out);
  if (rc == 0 && res.errors)
    rc = 1; /* error findings fail the run */
end:
  rescue_buf_clear(&out);
  rescue_lint_result_clear(&res);
  rescue_store_close(&st);
  cli_list_clear(&samples);
  return rc;
}
