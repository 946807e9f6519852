/*
** cmd_draft.c: `rescue draft <db> --model-cmd <command> --annotator <model>`: pre-annotate
** rows with any model command, its answers checked with the lint rules.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* --timeout: seconds, more than 0. */
static int positive_seconds(const cli_spec *spec, const cli_option *o, const char *arg) {
  char *end;
  double v;
  errno = 0;
  v = strtod(arg, &end);
  if (!*arg || *end || errno || !isfinite(v))
    return cli_spec_error(spec, "--%s expects a number, not '%s'", o->long_name, arg);
  if (!(v > 0))
    return cli_spec_error(spec, "--%s must be more than 0 seconds", o->long_name);
  *(double *)o->value = v;
  return 0;
}

static const char *model_cmd, *annotator, *prompt_file;
static cli_list samples;
static long rows_per_request, jobs = 1, retries = 2;
static double timeout = 300;
static int print_only, json;
static const cli_option options[] = {
    CLI_STRING(0, "model-cmd", &model_cmd, "<c>",
               "the command to run (required unless --print-prompt)"),
    CLI_STRING(0, "annotator", &annotator, "<model>",
               "a registered annotator with role model\n"
               "(rescue annotator add <db> <model> --role model)"),
    CLI_SAMPLES_HELP(&samples, "only these samples (comma-separated)"),
    {.type = CLI_OPT_LONG,
     .long_name = "rows-per-request",
     .value = &rows_per_request,
     .argh = "<n>",
     .help = "windows of n rows, with up to 20 earlier rows as context\n"
             "(default: a whole sample per request)",
     .min = 1,
     .max = 100000,
     .bad = "--rows-per-request must be 1 or more"},
    {.type = CLI_OPT_LONG,
     .long_name = "jobs",
     .value = &jobs,
     .argh = "<n>",
     .help = "requests run at once (default 1)",
     .min = 1,
     .max = 64,
     .bad = "--jobs must be between 1 and 64"},
    CLI_CALLBACK(0, "timeout", &timeout, "<s>", "seconds per run of the command (default 300)",
                 positive_seconds),
    {.type = CLI_OPT_LONG,
     .long_name = "retries",
     .value = &retries,
     .argh = "<n>",
     .help = "extra runs after a failed or faulty answer (default 2)",
     .min = 0,
     .max = 100000,
     .bad = "--retries must be 0 or more"},
    CLI_STRING(0, "prompt", &prompt_file, "<file>",
               "the prompt template (default: the built-in one; placeholders\n"
               "{{scenario}} {{sample_id}} {{row_from}} {{row_to}}\n"
               "{{participants}} {{entities}} {{therapist}} {{group_label}}\n"
               "{{fields}} {{labels}} {{rules}} {{context}} {{rows}} {{shape}})"),
    CLI_FLAG(0, "print-prompt", &print_only,
             "write the prompts to standard output; run nothing, store nothing"),
    CLI_JSON(&json, "one JSON document: counts and every request's outcome"),
    CLI_END};
static const cli_spec spec = {
    .synopsis =
        "rescue draft <db> --model-cmd '<command>' --annotator <model> [--samples <id>,...]\n"
        "                    [--rows-per-request <n>] [--jobs <n>] [--timeout <s>] [--retries "
        "<n>]\n"
        "                    [--prompt <file>] [--print-prompt] [--json]",
    .description =
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
        "attempts, the wall time and the exit status; a row whose answer equals the model's\n"
        "latest version of it is counted as unchanged and stores nothing. Exits 1 when any\n"
        "request failed or kept rows back (the others are stored).\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

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
  fprintf(stderr, "[%ld/%ld] %s rows %d-%d: %s, %d stored", done, total, o->sample_id, o->row_from,
          o->row_to, o->status, o->rows_imported);
  if (o->rows_unchanged)
    fprintf(stderr, ", %d unchanged", o->rows_unchanged);
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
  rescue_draft_opts o = {0};
  rescue_draft_report rep;
  draft_cli dc = {0, 0};
  char *tmpl = NULL;
  int rc, first;
  size_t tmpl_len = 0;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_error err;

  memset(&rep, 0, sizeof rep);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  rc = 2;
  o.model_cmd = model_cmd;
  o.annotator = annotator;
  o.rows_per_request = (int)rows_per_request;
  o.jobs = (int)jobs;
  o.timeout = timeout;
  o.retries = (int)retries;
  dc.json = json;
  if (!o.annotator) {
    cli_spec_error(&spec, "--annotator <model> is required");
    goto end;
  }
  if (!o.model_cmd && !print_only) {
    cli_spec_error(&spec, "--model-cmd is required (or --print-prompt)");
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
  if ((rc = cli_open_store(argv[first], print_only ? RESCUE_OPEN_READONLY : 0, &st)))
    goto end;
  o.samples = (const char *const *)samples.v;
  o.n_samples = samples.n;
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
                      "as %s's versions, %ld kept back, %ld unchanged\n",
                      argv[first], rep.requests, rep.requests == 1 ? "" : "s", rep.ok, rep.partial,
                      rep.failed, rep.rows_imported, rep.rows_imported == 1 ? "" : "s", o.annotator,
                      rep.rows_kept_back, rep.rows_unchanged);
  }
  {
    int failed = rc == RESCUE_EPARTIAL;
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
  cli_list_clear(&samples);
  rescue_free(tmpl);
  return rc;
}
