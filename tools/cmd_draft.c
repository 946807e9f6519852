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

/* --shard i/n: shards count from 1 (a Slurm array --array=1-n gives i) */
static int shard_i, shard_n;
static int shard(const cli_spec *spec, const cli_option *o, const char *arg) {
  const char *slash = strchr(arg, '/');
  char *end1 = NULL, *end2 = NULL;
  long i = slash ? strtol(arg, &end1, 10) : 0, n = slash ? strtol(slash + 1, &end2, 10) : 0;
  (void)o;
  if (!slash || end1 != slash || end1 == arg || !end2 || *end2 || end2 == slash + 1 || n < 1 ||
      i < 1 || i > n || n > 1000000)
    return cli_spec_error(spec, "--shard expects i/n with 1 <= i <= n, not '%s'", arg);
  shard_i = (int)i;
  shard_n = (int)n;
  return 0;
}

static const char *model_cmd, *annotator, *prompt_file, *answers_out;
static int merge;
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
    CLI_CALLBACK(0, "shard", NULL, "<i>/<n>",
                 "only the samples of shard i of n (the same samples as\n"
                 "rescue clip --shard i/n); with --out",
                 shard),
    CLI_STRING(0, "out", &answers_out, "<answers.jsonl>",
               "store nothing: write the checked answers and their provenance\n"
               "here (a shard on a snapshot from rescue backup, opened read-only)"),
    CLI_FLAG(0, "merge", &merge,
             "store the answers files given after <db> (from --out) in one\n"
             "transaction, as a local run would have"),
    CLI_FLAG(0, "print-prompt", &print_only,
             "write the prompts to standard output; run nothing, store nothing"),
    CLI_JSON(&json, "one JSON document: counts and every request's outcome"),
    CLI_END};
static const cli_spec spec = {
    .synopsis =
        "rescue draft <db> --model-cmd '<command>' --annotator <model> [--samples <id>,...]\n"
        "                    [--rows-per-request <n>] [--jobs <n>] [--timeout <s>] [--retries "
        "<n>]\n"
        "                    [--prompt <file>] [--print-prompt] [--json]\n"
        "                    [--shard <i>/<n>] [--out <answers.jsonl>]\n"
        "       rescue draft <db> --merge <answers.jsonl>... [--json]",
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
        "\n"
        "On a cluster (README \"Running on a cluster\"): each worker runs with --shard i/n\n"
        "--out <answers.jsonl> on a snapshot written by `rescue backup`, which it opens\n"
        "read-only and immutable (no lock, no -wal or -shm file, so the snapshot may sit on a\n"
        "network file system and be read-only); it writes nothing to the snapshot. Then\n"
        "--merge stores every answers file into the live corpus on one machine. A request\n"
        "merged before adds nothing; a sample whose draft changed since the snapshot is\n"
        "refused with a message (the rest merge; exit 1); a damaged or truncated answers\n"
        "file is refused with its line, and nothing is stored.\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = -1,
    .arg_name = "<db>"};

typedef struct draft_cli {
  int json, tty, shard;
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
  fprintf(stderr, "[%ld/%ld] %s rows %d-%d: %s, %d %s", done, total, o->sample_id, o->row_from,
          o->row_to, o->status, o->rows_imported, c->shard ? "answered" : "stored");
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

/* rescue draft <db> --merge <answers.jsonl>... */
static int draft_merge(int argc, char **argv, int first) {
  rescue_draft_merge_report rep;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, i;
  memset(&rep, 0, sizeof rep);
  if (argc - first < 2)
    return cli_spec_error(&spec, "--merge needs answers files after <db>");
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  rc = rescue_draft_merge(st, (const char *const *)argv + first + 1, argc - first - 1, &rep);
  if (rc && rc != RESCUE_EPARTIAL) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  for (i = 0; i < rep.n_refusals; i++)
    cli_error("%s", rep.refusals[i]);
  if (json) {
    rescue_jw w;
    rescue_jw_init(&w, &out);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "files");
    rescue_jw_int(&w, rep.files);
    rescue_jw_key(&w, "requests");
    rescue_jw_int(&w, rep.requests);
    rescue_jw_key(&w, "merged");
    rescue_jw_int(&w, rep.merged);
    rescue_jw_key(&w, "already_merged");
    rescue_jw_int(&w, rep.already);
    rescue_jw_key(&w, "refused");
    rescue_jw_int(&w, rep.refused);
    rescue_jw_key(&w, "rows_imported");
    rescue_jw_int(&w, rep.rows_imported);
    rescue_jw_key(&w, "rows_unchanged");
    rescue_jw_int(&w, rep.rows_unchanged);
    rescue_jw_key(&w, "rows_kept_back");
    rescue_jw_int(&w, rep.rows_kept_back);
    rescue_jw_key(&w, "refusals");
    rescue_jw_arr(&w);
    for (i = 0; i < rep.n_refusals; i++)
      rescue_jw_str(&w, rep.refusals[i]);
    rescue_jw_end(&w);
    rescue_jw_end(&w);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_buf_printf(&out,
                      "%s: %ld answers file%s, %ld request%s: %ld merged, %ld merged before, "
                      "%ld refused; %ld row%s stored, %ld unchanged, %ld kept back\n",
                      argv[first], rep.files, rep.files == 1 ? "" : "s", rep.requests,
                      rep.requests == 1 ? "" : "s", rep.merged, rep.already, rep.refused,
                      rep.rows_imported, rep.rows_imported == 1 ? "" : "s", rep.rows_unchanged,
                      rep.rows_kept_back);
  }
  {
    int refused = rc == RESCUE_EPARTIAL;
    rc = cli_print(&out);
    if (rc == 0 && refused) {
      cli_error("%s", rescue_store_errmsg(st));
      rc = 1;
    }
  }
end:
  rescue_draft_merge_report_clear(&rep);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}

/* Write the answers of a shard to answers_out, all or nothing. */
static int write_answers(const rescue_buf *b) {
  rescue_error err = RESCUE_ERROR_INIT;
  if (!rescue_buf_ok(b)) {
    cli_error("out of memory");
    return 1;
  }
  if (rescue_file_write_atomic(answers_out, b->s, b->len, &err))
    return cli_fail_path(&err, answers_out);
  return 0;
}

int cmd_draft(int argc, char **argv) {
  rescue_draft_opts o = {0};
  rescue_draft_report rep;
  draft_cli dc = {0, 0, 0};
  char *tmpl = NULL;
  int rc, first;
  size_t tmpl_len = 0;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT, answers = RESCUE_BUF_INIT;
  rescue_error err;

  memset(&rep, 0, sizeof rep);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  rc = 2;
  if (merge) {
    if (model_cmd || annotator || shard_n || answers_out || print_only) {
      cli_spec_error(&spec, "--merge takes only answers files (and --json)");
      goto end;
    }
    rc = draft_merge(argc, argv, first);
    goto end;
  }
  if (argc - first > 1) {
    cli_spec_error(&spec, "unexpected argument '%s'", argv[first + 1]);
    goto end;
  }
  if (shard_n && !answers_out) {
    cli_spec_error(&spec, "--shard needs --out <answers.jsonl> (a shard stores nothing)");
    goto end;
  }
  o.shard_i = shard_i;
  o.shard_n = shard_n;
  if (answers_out && !print_only)
    o.answers = &answers;
  dc.shard = o.answers != NULL;
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
  /* a shard reads a snapshot: read-only and immutable (rescue_store_backup says why) */
  if ((rc = cli_open_store(argv[first],
                           o.answers    ? RESCUE_OPEN_SNAPSHOT
                           : print_only ? RESCUE_OPEN_READONLY
                                        : 0,
                           &st)))
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
  if (o.answers && (rc = write_answers(o.answers)))
    goto end;
  if (dc.json) {
    rescue_draft_report_json(&rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_buf_printf(&out,
                      "%s: %ld request%s: %ld ok, %ld partial, %ld failed; %ld row%s %s "
                      "as %s's versions, %ld kept back, %ld unchanged\n",
                      o.answers ? answers_out : argv[first], rep.requests,
                      rep.requests == 1 ? "" : "s", rep.ok, rep.partial, rep.failed,
                      rep.rows_imported, rep.rows_imported == 1 ? "" : "s",
                      o.answers ? "answered, to merge" : "stored", o.annotator, rep.rows_kept_back,
                      rep.rows_unchanged);
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
  rescue_buf_clear(&answers);
  rescue_store_close(&st);
  cli_list_clear(&samples);
  rescue_free(tmpl);
  return rc;
}
