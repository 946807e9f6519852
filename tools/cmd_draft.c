/*
** cmd_draft.c: `rescue draft <db> --model-cmd <command> --annotator <model>`: pre-annotate
** rows with any model command, its answers checked with the lint rules.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue draft <db> --model-cmd '<command>' --annotator <model> [--samples <id>,...]\n"
    "                    [--rows-per-request <n>] [--jobs <n>] [--timeout <s>] [--retries <n>]\n"
    "                    [--prompt <file>] [--print-prompt] [--json]\n"
    "\n"
    "Pre-annotate rows with a model. For each sample (or each window of rows) a prompt is\n"
    "built from the corpus's annotation scheme: the scenario's label sets with their\n"
    "meanings, every row field, the sample's people, the guideline rules, the rows with\n"
    "their current values, and the JSON shape to answer with. The command runs with\n"
    "/bin/sh -c, the prompt on its standard input and RESCUE_SAMPLE_ID, RESCUE_SCENARIO,\n"
    "RESCUE_ROW_FROM, RESCUE_ROW_TO (row_index, inclusive) and RESCUE_ATTEMPT in its\n"
    "environment; its standard output is the answer.\n"
    "\n"
    "The answer may be bare JSON, a fenced ```json block or JSON inside prose: a list of\n"
    "rows or an object with \"rows\". Rows are matched by row_index, else by time span.\n"
    "Times, text and row_index stay as stored; the other fields come from the model. Every\n"
    "row is checked with the lint rules: an answer with errors (or a failed, silent or\n"
    "timed-out command, or output without usable JSON) is asked again with the problems\n"
    "listed, up to --retries times; rows still in error after that are kept back, the rest\n"
    "are stored as the model's versions with the command, the prompt's SHA-256, the\n"
    "attempts, the wall time and the exit status. Exits 1 when any request failed or kept\n"
    "rows back (the others are stored).\n"
    "\n"
    "options:\n"
    "  --model-cmd <c>         the command to run (required unless --print-prompt)\n"
    "  --annotator <model>     a registered annotator with role model\n"
    "                          (rescue annotator add <db> <model> --role model)\n"
    "  --samples <ids>         only these samples (comma-separated)\n"
    "  --rows-per-request <n>  windows of n rows, with up to 20 earlier rows as context\n"
    "                          (default: a whole sample per request)\n"
    "  --jobs <n>              requests run at once (default 1)\n"
    "  --timeout <s>           seconds per run of the command (default 300)\n"
    "  --retries <n>           extra runs after a failed or faulty answer (default 2)\n"
    "  --prompt <file>         the prompt template (default: the built-in one; placeholders\n"
    "                          {{scenario}} {{sample_id}} {{row_from}} {{row_to}}\n"
    "                          {{participants}} {{entities}} {{therapist}} {{group_label}}\n"
    "                          {{fields}} {{labels}} {{rules}} {{context}} {{rows}} {{shape}})\n"
    "  --print-prompt          write the prompts to standard output; run nothing, store nothing\n"
    "  --json                  one JSON document: counts and every request's outcome\n"
    "  -h, --help              show this help\n";

typedef struct draft_cli {
  int json, tty;
} draft_cli;

static void on_prompt(void *arg, const char *sample_id, int from, int to, const char *prompt,
                      size_t len) {
  (void)arg;
  printf("=== %s rows %d-%d ===\n", sample_id, from, to);
  fwrite(prompt, 1, len, stdout);
  if (len && prompt[len - 1] != '\n')
    putchar('\n');
}

static void on_done(void *arg, const rescue_draft_outcome *o, long done, long total) {
  draft_cli *c = arg;
  int i;
  if (c->json)
    return;
  fprintf(stderr, "[%ld/%ld] %s rows %d-%d: %s, %d stored", done, total, o->sample_id,
          o->row_from, o->row_to, o->status, o->rows_imported);
  if (o->rows_kept_back)
    fprintf(stderr, ", %d kept back", o->rows_kept_back);
  fprintf(stderr, " (%d attempt%s, %.1f s)\n", o->attempts, o->attempts == 1 ? "" : "s",
          (double)o->wall_ms / 1000);
  if (o->error)
    fprintf(stderr, "  %s\n", o->error);
  for (i = 0; i < o->n_findings; i++)
    fprintf(stderr, "  %s\n", o->findings[i]);
}

int cmd_draft(int argc, char **argv) {
  static const struct option opts[] = {{"model-cmd", required_argument, NULL, 'm'},
                                       {"annotator", required_argument, NULL, 'a'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"rows-per-request", required_argument, NULL, 'r'},
                                       {"jobs", required_argument, NULL, 'j'},
                                       {"timeout", required_argument, NULL, 't'},
                                       {"retries", required_argument, NULL, 'R'},
                                       {"prompt", required_argument, NULL, 'p'},
                                       {"print-prompt", no_argument, NULL, 'P'},
                                       {"json", no_argument, NULL, 'J'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_draft_opts o;
  rescue_draft_report rep;
  draft_cli dc = {0, 0};
  char **samples = NULL, *tmpl = NULL;
  const char *prompt_file = NULL;
  int c, rc = 2, n_samples = 0, print_only = 0;
  long v;
  size_t tmpl_len = 0;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_error err;

  memset(&o, 0, sizeof o);
  memset(&rep, 0, sizeof rep);
  o.jobs = 1;
  o.timeout = 300;
  o.retries = 2;
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': cli_free_list(samples); return cli_help(usage);
    case 'm': o.model_cmd = optarg; break;
    case 'a': o.annotator = optarg; break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_usage_error(usage, "--samples needs at least one sample id");
        goto end;
      }
      break;
    case 'r':
    case 'j':
    case 'R':
      if (cli_parse_long(c == 'r' ? "--rows-per-request" : c == 'j' ? "--jobs" : "--retries",
                         optarg, &v, usage))
        goto end;
      if (v < (c == 'R' ? 0 : 1) || v > (c == 'j' ? 64 : 100000)) {
        cli_usage_error(usage, "%s must be %s", c == 'r' ? "--rows-per-request" : c == 'j' ? "--jobs" : "--retries",
                        c == 'j' ? "between 1 and 64" : c == 'R' ? "0 or more" : "1 or more");
        goto end;
      }
      if (c == 'r')
        o.rows_per_request = (int)v;
      else if (c == 'j')
        o.jobs = (int)v;
      else
        o.retries = (int)v;
      break;
    case 't':
      if (cli_parse_double("--timeout", optarg, &o.timeout, usage))
        goto end;
      if (!(o.timeout > 0)) {
        cli_usage_error(usage, "--timeout must be more than 0 seconds");
        goto end;
      }
      break;
    case 'p': prompt_file = optarg; break;
    case 'P': print_only = 1; break;
    case 'J': dc.json = 1; break;
    default: goto end;
    }
  }
  if (argc - optind != 1) {
    cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if (!o.annotator) {
    cli_usage_error(usage, "--annotator <model> is required");
    goto end;
  }
  if (!o.model_cmd && !print_only) {
    cli_usage_error(usage, "--model-cmd is required (or --print-prompt)");
    goto end;
  }
  if (prompt_file) {
    memset(&err, 0, sizeof err);
    if (rescue_read_file(prompt_file, &tmpl, &tmpl_len, &err)) {
      rc = cli_fail(&err);
      goto end;
    }
    o.prompt_template = tmpl;
    o.prompt_template_len = tmpl_len;
    o.template_name = prompt_file;
  }
  if ((rc = cli_open_store(argv[optind], print_only ? RESCUE_OPEN_READONLY : 0, &st)))
    goto end;
  o.samples = (const char *const *)samples;
  o.n_samples = n_samples;
  o.arg = &dc;
  o.on_done = on_done;
  if (print_only)
    o.on_prompt = on_prompt;
  dc.tty = isatty(2);
  rc = rescue_draft(st, &o, &rep);
  if (rc && rc != RESCUE_EPARTIAL) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (print_only) {
    rc = cli_finish(0);
    goto end;
  }
  if (dc.json) {
    rescue_draft_report_json(&rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_buf_printf(&out,
                      "%s: %ld request%s: %ld ok, %ld partial, %ld failed; %ld row%s stored "
                      "as %s's versions, %ld kept back\n",
                      argv[optind], rep.requests, rep.requests == 1 ? "" : "s", rep.ok,
                      rep.partial, rep.failed, rep.rows_imported,
                      rep.rows_imported == 1 ? "" : "s", o.annotator, rep.rows_kept_back);
  }
  {
    int failed = rc == RESCUE_EPARTIAL;
    char detail[200];
    snprintf(detail, sizeof detail, "%ld requests: %ld ok, %ld partial, %ld failed; %ld rows stored",
             rep.requests, rep.ok, rep.partial, rep.failed, rep.rows_imported);
    rescue_store_close(&st);
    cli_audit(argv[optind], "draft", argc, argv, o.annotator, detail);
    rc = cli_print(&out);
    if (rc == 0 && failed) {
      cli_error("of %ld request%s, %ld failed and %ld kept rows back", rep.requests,
                rep.requests == 1 ? "" : "s", rep.failed, rep.partial);
      rc = 1;
    }
  }
end:
  rescue_draft_report_clear(&rep);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  cli_free_list(samples);
  rescue_free(tmpl);
  return rc;
}
