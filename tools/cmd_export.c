/*
** cmd_export.c: `rescue export <db> --format samples|data-root|tasks|eaf --out <path> [options]`.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

/* --tasks itp,er: a task bit set. */
static int tasks_option(const cli_spec *spec, const cli_option *o, const char *arg) {
  const char *p = arg, *e;
  unsigned bits = 0;
  for (;; p = e + 1) {
    char name[16];
    rescue_task t;
    e = strchr(p, ',');
    if (e ? e > p : *p != 0) {
      snprintf(name, sizeof name, "%.*s", (int)(e ? e - p : (long)strlen(p)), p);
      if ((size_t)(e ? e - p : (long)strlen(p)) >= sizeof name || rescue_task_parse(name, &t))
        return cli_spec_error(spec, "unknown task '%.*s' (expected itp, rpp, stp, ssp, er or vp)",
                              (int)(e ? e - p : (long)strlen(p)), p);
      bits |= 1u << t;
    }
    if (!e)
      break;
  }
  if (!bits)
    return cli_spec_error(spec, "--tasks needs at least one task (itp, rpp, stp, ssp, er, vp)");
  *(unsigned *)o->value = bits;
  return 0;
}

const char *const export_formats[] = {"samples", "data-root", "tasks", "eaf", NULL};
static const char *const splits[] = {"train", "validation", "test", NULL};
static export_args A;
static int split_index = -1;
static long checkpoints = -1, min_words = -1, itp_cap = -1;
static const cli_option options[] = {
    {.type = CLI_OPT_CHOICE,
     .long_name = "format",
     .value = &A.format,
     .argh = "<f>",
     .help = "samples, data-root, tasks or eaf (above)",
     .required = 1,
     .choices = export_formats,
     .bad = "unknown format '%s'"},
    CLI_STRING_REQ(0, "out", &A.out, "<path>",
                   "the file (samples) or folder (data-root, tasks, eaf) to write;\n"
                   "'-' streams samples JSONL, or the records of one task (--tasks\n"
                   "<task>, and --split <name> after 'rescue split'), to stdout"),
    CLI_FLAG(0, "force", &A.force,
             "replace an existing, non-empty output once the new one is done\n"
             "(only rescue's own earlier output: never a corpus, a folder\n"
             "without .rescue-output, or a file that is not a samples export)"),
    CLI_VIEW_HELP(&A.view, "which version of each row: the corpus view by default (gold\n"
                           "where adjudicated, else the latest by anyone); gold (samples\n"
                           "without gold on every row are left out), latest, or\n"
                           "annotator:<name> (that annotator's view)"),
    CLI_SAMPLES_HELP(&A.samples, "only these samples (comma-separated sample ids)"),
    CLI_FLAG(0, "include-discarded", &A.include_discarded,
             "also write discarded samples (samples, data-root, eaf)"),
    CLI_STRING(0, "annotator", &A.annotator, "<name>",
               "who runs the export, for the corpus's log (rescue log); the\n"
               "operating-system user is recorded in any case"),
    CLI_FLAG(0, "pseudonymise", &A.pseudonymise,
             "replace every real name by the corpus's pseudonym map (rescue\n"
             "pseudonyms) in ids, people fields and free text; the output is\n"
             "leak-checked and nothing is written when a real name survives"),
    {.type = CLI_OPT_FLAG,
     .long_name = "with-media",
     .value = &A.with_media,
     .help = "with --pseudonymise and --format tasks: copy the row clips into\n"
             "<out>/media/ (faces and voices are NOT anonymised); without it a\n"
             "pseudonymised export has no clips and empty clip paths",
     .needs = "pseudonymise"},
    CLI_HEADING("options of --format tasks:"),
    CLI_CALLBACK(0, "tasks", &A.tasks, "<list>",
                 "which tasks (default: all six): itp, rpp, stp, ssp, er, vp", tasks_option),
    CLI_STRING(0, "clip-root", &A.clip_root, "<p>",
               "clip_path = <p>/<sample_id>/clips/NNN.mp4 (the release's form,\n"
               "not checked); default: the clips 'rescue clip' recorded"),
    {.type = CLI_OPT_CHOICE,
     .long_name = "split",
     .value = &split_index,
     .argh = "<name>",
     .help = "write only this split (train, validation or test)",
     .choices = splits,
     .bad = "unknown split '%s'"},
    CLI_LONG(0, "checkpoints-per-sample", &checkpoints, "<n>",
             "ER and VP checkpoints per sample (default 5; 0: all)", 0, 1000000),
    CLI_LONG(0, "min-dialogue-words", &min_words, "<n>",
             "ER: fewest words in the row's dialogue (default 5)", 0, 1000000),
    CLI_LONG(0, "itp-cap-per-class", &itp_cap, "<m>",
             "ITP: at most m candidates per class and sample before\n"
             "balancing (default 0: no cap)",
             0, 1000000),
    CLI_FLAG(0, "blind", &A.blind,
             "task files without their gold_* keys (nothing else in a\n"
             "record gives the answer; the ids, <sample_id>__row<n>, name\n"
             "the sample and row, so rows of published samples can be\n"
             "looked up), and the answers in <task>.answers.jsonl (or\n"
             "<task>/<split>.answers.jsonl) in the --answers folder,\n"
             "which 'rescue score --gold' reads"),
    CLI_STRING(0, "answers", &A.answers, "<dir>",
               "with --blind (required): the folder for the answer files, apart\n"
               "from --out (refused inside it or around it); --force replaces it"),
    CLI_FLAG(0, "require-clips", &A.require_clips,
             "fail when an ER or VP record would have no clip_path (by\n"
             "default: a warning with the count)"),
    CLI_END};
const cli_spec export_spec = {
    .synopsis = "rescue export <db> --format samples|data-root|tasks|eaf --out <path>|- [--force]\n"
                "                     [--view gold|latest|annotator:<name>] [--samples <id>,...]\n"
                "                     [--tasks itp,rpp,stp,ssp,er,vp] [--clip-root <prefix>] "
                "[--split <name>]\n"
                "                     [--checkpoints-per-sample <n>] [--min-dialogue-words <n>]\n"
                "                     [--itp-cap-per-class <m>] [--blind --answers <dir>]\n"
                "                     [--require-clips]\n"
                "                     [--annotator <name>] [--pseudonymise [--with-media]]",
    .description =
        "Write the corpus out, all or nothing (a temporary name renamed at the end).\n"
        "\n"
        "  samples    release JSONL: one sample per line in sample_id order (path components\n"
        "             compared bytewise), Python json.dumps style; an imported release line\n"
        "             comes back byte for byte\n"
        "  data-root  a folder of <sample_id>.json files, each the JSONL line plus a newline,\n"
        "             as the authors' evaluation scripts read with --data-root\n"
        "  tasks      a folder with the six task datasets (export/TASKS.md): <task>.jsonl each, "
        "or\n"
        "             <task>/<split>.jsonl and splits/<split>.txt once 'rescue split' ran;\n"
        "             README.md (dataset card) and manifest.json (sizes, lines, sha256)\n"
        "  eaf        a folder of <sample_id>.eaf ELAN files (EAF 3.0): a turn tier per\n"
        "             speaker, a tier per row field, controlled vocabularies from the scheme;\n"
        "             'rescue import' reads them back exactly, with the edits made in ELAN\n"
        "\n"
        "An export that would write nothing fails with the reason (e.g. --view gold before\n"
        "anything is adjudicated).\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>",
    .epilogue =
        "The dataset card and manifest.json say where the rows come from: how many are\n"
        "adjudicated gold and how many the latest version, by which policy, whose versions,\n"
        "agreement per field with a bootstrap interval, the rescue version and this command.\n"};

int export_parse(int argc, char **argv, export_args *a) {
  const cli_option *o;
  int rc, first;
  memset(&A, 0, sizeof A);
  A.format = -1;
  if ((rc = cli_parse(argc, argv, &export_spec, &first)) != CLI_PARSED) {
    cli_list_clear(&A.samples);
    return rc;
  }
  A.db = argv[first];
  A.split = split_index >= 0 ? splits[split_index] : NULL;
  A.checkpoints_per_sample = (int)checkpoints;
  A.min_dialogue_words = (int)min_words;
  A.itp_cap_per_class = (int)itp_cap;
  /* the options after the heading are those of --format tasks only */
  for (o = options; o->type != CLI_OPT_HEADING; o++)
    ;
  for (o++; o->type != CLI_OPT_END; o++)
    if (!A.task_only && cli_given(&export_spec, o->long_name))
      A.task_only = o->long_name;
  *a = A;
  return CLI_PARSED;
}

int export_check(const export_args *a) {
  int tasks_format = a->format == 2;
  if (!tasks_format && a->task_only)
    return cli_spec_error(&export_spec, "--%s applies to --format tasks only", a->task_only);
  if (tasks_format && a->include_discarded)
    return cli_spec_error(&export_spec, "--include-discarded does not apply to --format tasks");
  if (tasks_format && a->blind && !a->answers && strcmp(a->out, "-") != 0)
    return cli_spec_error(&export_spec, "--blind needs --answers <dir>: the answers go to a "
                                        "folder of their own, apart from the files to publish");
  if (a->answers && !a->blind)
    return cli_spec_error(&export_spec, "--answers goes with --blind");
  if (strcmp(a->out, "-") == 0 && a->format == 1)
    return cli_spec_error(&export_spec, "--out - streams JSONL: a data-root is a folder");
  return 0;
}

void export_args_clear(export_args *a) { cli_list_clear(&a->samples); }

/* The warnings of an ELAN export (stderr). */
void export_eaf_warn(const rescue_eaf_export_result *res) {
  if (res->fine_times)
    cli_warn("%ld row time%s more than 3 decimals: ELAN shows %s to the millisecond (the "
             "files keep the exact numbers for 'rescue import')",
             res->fine_times, res->fine_times == 1 ? " has" : "s have",
             res->fine_times == 1 ? "it" : "them");
  if (res->incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res->incomplete,
             res->incomplete == 1 ? "" : "s");
}

/* The warnings of a tasks export (stderr). */
void export_tasks_warn(const rescue_tasks_result *res) {
  if (res->rows_gold + res->rows_latest && !res->rows_gold)
    cli_warn("no row is adjudicated gold: every row is the latest version by one annotator "
             "(see the dataset card)");
  if (res->missing_clips)
    cli_warn("%ld ER/VP record%s written without a clip_path (cut clips with 'rescue clip' or "
             "give --clip-root; --require-clips makes this an error)",
             res->missing_clips, res->missing_clips == 1 ? "" : "s");
  if (res->incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res->incomplete,
             res->incomplete == 1 ? "" : "s");
  if (res->unassigned)
    cli_warn("left out %ld sample%s whose group the split run does not cover; run 'rescue "
             "split' again",
             res->unassigned, res->unassigned == 1 ? "" : "s");
}

/* The warnings of a samples or data-root export (stderr). */
void export_samples_warn(const rescue_export_result *res) {
  if (res->incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res->incomplete,
             res->incomplete == 1 ? "" : "s");
}

/*
** The DATE of ELAN files: SOURCE_DATE_EPOCH when set (the reproducible-builds convention),
** formatted into date, else NULL (now). 0, or 2 after a usage error.
*/
int export_eaf_date(char date[40], const char **out) {
  const char *sde = getenv("SOURCE_DATE_EPOCH");
  *out = NULL;
  if (sde && *sde) {
    char *end;
    long long t = strtoll(sde, &end, 10);
    time_t tt = (time_t)t;
    struct tm tm;
    if (*end || t < 0 || !gmtime_r(&tt, &tm))
      return cli_spec_error(&export_spec, "SOURCE_DATE_EPOCH is not a number of seconds: '%s'",
                            sde);
    strftime(date, 40, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    *out = date;
  }
  return 0;
}

/*
** The eaf format. DATE in the files is now, or SOURCE_DATE_EPOCH when set (the
** reproducible-builds convention), so two exports of the same corpus can be compared.
*/
static int export_eaf(rescue_store *st, const char *out, const char *view_spec,
                      const rescue_export_opts *o) {
  rescue_eaf_export_opts eo = {0};
  rescue_eaf_export_result res;
  cli_progress *bar;
  char date[40];
  int rc;
  eo.view = o->view;
  if (view_spec && strncmp(view_spec, "annotator:", 10) == 0)
    eo.annotator = view_spec + 10;
  eo.samples = o->samples;
  eo.n_samples = o->n_samples;
  eo.force = o->force;
  eo.include_discarded = o->include_discarded;
  if ((rc = export_eaf_date(date, &eo.date)))
    return rc;
  bar = cli_progress_start("exporting");
  eo.progress = cli_progress_update;
  eo.progress_arg = bar;
  rc = rescue_export_eaf(st, out, &eo, &res);
  cli_progress_done(&bar);
  if (rc)
    return cli_fail(rescue_store_err(st));
  printf("wrote %ld ELAN file%s (%ld rows) to %s/\n", res.samples, res.samples == 1 ? "" : "s",
         res.rows, out);
  export_eaf_warn(&res);
  if (res.discarded)
    printf("left out %ld discarded sample%s (--include-discarded writes them)\n", res.discarded,
           res.discarded == 1 ? "" : "s");
  return cli_finish(0);
}

/* The tasks format: run the exporter and report. */

/* The tasks format: run the exporter and report (on stderr when the records go to stdout). */
static int export_tasks(rescue_store *st, const char *out, rescue_tasks_opts *to) {
  rescue_tasks_result res;
  cli_progress *bar = cli_progress_start("exporting tasks");
  FILE *msg = to->stream ? stderr : stdout;
  int rc, t, first = 1;
  to->progress = cli_progress_update;
  to->progress_arg = bar;
  rc = rescue_export_tasks(st, out, to, &res);
  cli_progress_done(&bar);
  if (rc)
    return cli_fail(rescue_store_err(st));
  fprintf(msg, "wrote ");
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    if (to->tasks & (1u << t)) {
      fprintf(msg, "%s%s %ld", first ? "" : ", ", rescue_task_name((rescue_task)t),
              res.instances[t]);
      first = 0;
    }
  fprintf(msg, " instances from %ld sample%s to %s%s", res.samples, res.samples == 1 ? "" : "s",
          to->stream ? "stdout" : out, to->stream ? "" : "/");
  if (res.split_run)
    fprintf(msg, " (split run %lld%s%s)", (long long)res.split_run, to->split ? ", split " : "",
            to->split ? to->split : "");
  if (to->blind)
    fprintf(msg, "; blind: answers in %s/", to->answers_out);
  fprintf(msg, "\n");
  export_tasks_warn(&res);
  if (res.discarded)
    fprintf(msg, "left out %ld discarded sample%s\n", res.discarded, res.discarded == 1 ? "" : "s");
  return cli_finish(0);
}

/* The task settings of the command line, over the defaults. */
void export_tasks_opts(const export_args *a, rescue_tasks_opts *to) {
  rescue_tasks_opts_init(to);
  if (a->tasks)
    to->tasks = a->tasks;
  to->clip_root = a->clip_root;
  to->split = a->split;
  if (a->checkpoints_per_sample >= 0)
    to->checkpoints_per_sample = a->checkpoints_per_sample;
  if (a->min_dialogue_words >= 0)
    to->min_dialogue_words = a->min_dialogue_words;
  if (a->itp_cap_per_class >= 0)
    to->itp_cap_per_class = a->itp_cap_per_class;
  to->blind = a->blind;
  to->answers_out = a->answers;
  to->require_clips = a->require_clips;
  to->command_line = cli_cmdline;
}

/* The export itself, from the open corpus st (tools/export_safe.c opens it and logs). */
int export_run(const export_args *a, rescue_store *st) {
  rescue_export_opts o = {0};
  rescue_tasks_opts to;
  rescue_export_result res;
  cli_progress *bar = NULL;
  int rc, data_root = a->format == 1;

  if ((rc = export_check(a)))
    return rc;
  export_tasks_opts(a, &to);
  o.force = a->force;
  o.include_discarded = a->include_discarded;
  if (rescue_view_parse(st, a->view, &o.view))
    return cli_fail_spec(rescue_store_err(st), a->db, &export_spec);
  o.samples = (const char *const *)a->samples.v;
  o.n_samples = a->samples.n;
  if (strcmp(a->out, "-") == 0) {
    o.stream = stdout;
    to.stream = stdout;
  }
  if (a->format == 2) {
    to.view = o.view;
    to.view_name = a->view ? a->view : "corpus";
    to.samples = o.samples;
    to.n_samples = o.n_samples;
    to.force = o.force;
    return export_tasks(st, a->out, &to);
  }
  if (a->format == 3)
    return export_eaf(st, a->out, a->view, &o);
  bar = cli_progress_start("exporting");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  rc = rescue_export_samples(st, a->out, data_root, &o, &res);
  cli_progress_done(&bar);
  if (rc)
    return cli_fail(rescue_store_err(st));
  fprintf(o.stream ? stderr : stdout, "wrote %ld sample%s (%ld rows) to %s\n", res.samples,
          res.samples == 1 ? "" : "s", res.rows, o.stream ? "stdout" : a->out);
  export_samples_warn(&res);
  if (res.discarded)
    fprintf(o.stream ? stderr : stdout,
            "left out %ld discarded sample%s (--include-discarded writes them)\n", res.discarded,
            res.discarded == 1 ? "" : "s");
  return cli_finish(0);
}
