/*
** cmd_export.c: `rescue export <db> --format samples|data-root|tasks|eaf --out <path> [options]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue export <db> --format samples|data-root|tasks|eaf --out <path>|- [--force]\n"
    "                     [--view gold|latest|annotator:<name>] [--samples <id>,...]\n"
    "                     [--tasks itp,rpp,stp,ssp,er,vp] [--clip-root <prefix>] [--split <name>]\n"
    "                     [--checkpoints-per-sample <n>] [--min-dialogue-words <n>]\n"
    "                     [--itp-cap-per-class <m>] [--blind] [--require-clips]\n"
    "                     [--annotator <name>] [--pseudonymise [--with-media]]\n"
    "\n"
    "Write the corpus out, all or nothing (a temporary name renamed at the end).\n"
    "\n"
    "  samples    release JSONL: one sample per line in sample_id order (path components\n"
    "             compared bytewise), Python json.dumps style; an imported release line\n"
    "             comes back byte for byte\n"
    "  data-root  a folder of <sample_id>.json files, each the JSONL line plus a newline,\n"
    "             as the authors' evaluation scripts read with --data-root\n"
    "  tasks      a folder with the six task datasets (export/TASKS.md): <task>.jsonl each, or\n"
    "             <task>/<split>.jsonl and splits/<split>.txt once 'rescue split' ran;\n"
    "             README.md (dataset card) and manifest.json (sizes, lines, sha256)\n"
    "  eaf        a folder of <sample_id>.eaf ELAN files (EAF 3.0): a turn tier per\n"
    "             speaker, a tier per row field, controlled vocabularies from the scheme;\n"
    "             'rescue import' reads them back exactly, with the edits made in ELAN\n"
    "\n"
    "An export that would write nothing fails with the reason (e.g. --view gold before\n"
    "anything is adjudicated).\n"
    "\n"
    "options:\n"
    "  --out <path>        the file (samples) or folder (data-root, tasks, eaf) to write;\n"
    "                      '-' streams samples JSONL, or the records of one task (--tasks\n"
    "                      <task>, and --split <name> after 'rescue split'), to stdout\n"
    "  --force             replace an existing, non-empty output once the new one is done\n"
    "                      (only rescue's own earlier output: never a corpus, a folder\n"
    "                      without .rescue-output, or a file that is not a samples export)\n"
    "  --view <v>          which version of each row: the corpus view by default (gold\n"
    "                      where adjudicated, else the latest by anyone); gold (samples\n"
    "                      without gold on every row are left out), latest, or\n"
    "                      annotator:<name> (that annotator's view)\n"
    "  --samples <ids>     only these samples (comma-separated sample ids)\n"
    "  --include-discarded also write discarded samples (samples, data-root, eaf)\n"
    "  --annotator <name>  who runs the export, for the corpus's log (rescue log); the\n"
    "                      operating-system user is recorded in any case\n"
    "  --pseudonymise      replace every real name by the corpus's pseudonym map (rescue\n"
    "                      pseudonyms) in ids, people fields and free text; the output is\n"
    "                      leak-checked and nothing is written when a real name survives\n"
    "  --with-media        with --pseudonymise and --format tasks: copy the row clips into\n"
    "                      <out>/media/ (faces and voices are NOT anonymised); without it a\n"
    "                      pseudonymised export has no clips and empty clip paths\n"
    "\n"
    "options of --format tasks:\n"
    "  --tasks <list>      which tasks (default: all six): itp, rpp, stp, ssp, er, vp\n"
    "  --clip-root <p>     clip_path = <p>/<sample_id>/clips/NNN.mp4 (the release's form,\n"
    "                      not checked); default: the clips 'rescue clip' recorded\n"
    "  --split <name>      write only this split (train, validation or test)\n"
    "  --checkpoints-per-sample <n>\n"
    "                      ER and VP checkpoints per sample (default 5; 0: all)\n"
    "  --min-dialogue-words <n>\n"
    "                      ER: fewest words in the row's dialogue (default 5)\n"
    "  --itp-cap-per-class <m>\n"
    "                      ITP: at most m candidates per class and sample before\n"
    "                      balancing (default 0: no cap)\n"
    "  --blind             task files without their gold_* keys (nothing else in a\n"
    "                      record reveals the answer; ids are opaque), and the answers\n"
    "                      in <task>.answers.jsonl (or <task>/<split>.answers.jsonl),\n"
    "                      which 'rescue score --gold' reads\n"
    "  --require-clips     fail when an ER or VP record would have no clip_path (by\n"
    "                      default: a warning with the count)\n"
    "The dataset card and manifest.json say where the rows come from: how many are\n"
    "adjudicated gold and how many the latest version, by which policy, whose versions,\n"
    "agreement per field with a bootstrap interval, the rescue version and this command.\n"
    "  -h, --help          show this help\n";

/* Parse "itp,er" into a task bit set; prints a usage error and returns 0 when bad. */
static unsigned parse_tasks(const char *list) {
  char **names;
  unsigned bits = 0;
  int n = 0, i;
  names = cli_split_list(list, &n);
  if (!names || !n) {
    cli_free_list(names);
    cli_usage_error(usage, "--tasks needs at least one task (itp, rpp, stp, ssp, er, vp)");
    return 0;
  }
  for (i = 0; i < n; i++) {
    rescue_task t;
    if (rescue_task_parse(names[i], &t)) {
      cli_usage_error(usage, "unknown task '%s' (expected itp, rpp, stp, ssp, er or vp)",
                      names[i]);
      cli_free_list(names);
      return 0;
    }
    bits |= 1u << t;
  }
  cli_free_list(names);
  return bits;
}

/* A count option: a whole number >= 0 that fits an int; -1 after a usage error. */
static int parse_count(const char *opt, const char *s, int *out) {
  long v;
  if (cli_parse_long(opt, s, &v, usage))
    return -1;
  if (v < 0 || v > 1000000) {
    cli_usage_error(usage, "%s expects a whole number from 0 to 1000000, not '%s'", opt, s);
    return -1;
  }
  *out = (int)v;
  return 0;
}

/*
** The eaf format. DATE in the files is now, or SOURCE_DATE_EPOCH when set (the
** reproducible-builds convention), so two exports of the same corpus can be compared.
*/
static int export_eaf(rescue_store *st, const char *out, const char *view_spec,
                      const rescue_export_opts *o) {
  rescue_eaf_export_opts eo;
  rescue_eaf_export_result res;
  cli_progress *bar;
  const char *sde = getenv("SOURCE_DATE_EPOCH");
  char date[40];
  int rc;
  memset(&eo, 0, sizeof eo);
  eo.view = o->view;
  if (view_spec && strncmp(view_spec, "annotator:", 10) == 0)
    eo.annotator = view_spec + 10;
  eo.samples = o->samples;
  eo.n_samples = o->n_samples;
  eo.force = o->force;
  eo.include_discarded = o->include_discarded;
  if (sde && *sde) {
    char *end;
    long long t = strtoll(sde, &end, 10);
    time_t tt = (time_t)t;
    struct tm tm;
    if (*end || t < 0 || !gmtime_r(&tt, &tm))
      return cli_usage_error(usage, "SOURCE_DATE_EPOCH is not a number of seconds: '%s'", sde);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
    eo.date = date;
  }
  bar = cli_progress_start("exporting");
  eo.progress = cli_progress_update;
  eo.progress_arg = bar;
  rc = rescue_export_eaf(st, out, &eo, &res);
  cli_progress_done(&bar);
  if (rc)
    return cli_fail(rescue_store_err(st));
  printf("wrote %ld ELAN file%s (%ld rows) to %s/\n", res.samples, res.samples == 1 ? "" : "s",
         res.rows, out);
  if (res.fine_times)
    cli_warn("%ld row time%s more than 3 decimals: ELAN shows %s to the millisecond (the "
             "files keep the exact numbers for 'rescue import')",
             res.fine_times, res.fine_times == 1 ? " has" : "s have",
             res.fine_times == 1 ? "it" : "them");
  if (res.incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res.incomplete,
             res.incomplete == 1 ? "" : "s");
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
    fprintf(msg, "; blind: answers in *.answers.jsonl");
  fprintf(msg, "\n");
  if (res.rows_gold + res.rows_latest && !res.rows_gold)
    cli_warn("no row is adjudicated gold: every row is the latest version by one annotator "
             "(see the dataset card)");
  if (res.missing_clips)
    cli_warn("%ld ER/VP record%s written without a clip_path (cut clips with 'rescue clip' or "
             "give --clip-root; --require-clips makes this an error)",
             res.missing_clips, res.missing_clips == 1 ? "" : "s");
  if (res.incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res.incomplete,
             res.incomplete == 1 ? "" : "s");
  if (res.unassigned)
    cli_warn("left out %ld sample%s whose group the split run does not cover; run 'rescue "
             "split' again",
             res.unassigned, res.unassigned == 1 ? "" : "s");
  if (res.discarded)
    fprintf(msg, "left out %ld discarded sample%s\n", res.discarded,
            res.discarded == 1 ? "" : "s");
  return cli_finish(0);
}

/* The export itself (tools/export_safe.c wraps it with --pseudonymise and the audit). */
int export_run(int argc, char **argv) {
  enum { O_TASKS = 256, O_CLIP_ROOT, O_SPLIT, O_CHECKPOINTS, O_MIN_WORDS, O_ITP_CAP, O_BLIND,
         O_REQUIRE_CLIPS };
  static const struct option opts[] = {{"format", required_argument, NULL, 'f'},
                                       {"out", required_argument, NULL, 'o'},
                                       {"force", no_argument, NULL, 'F'},
                                       {"view", required_argument, NULL, 'v'},
                                       {"samples", required_argument, NULL, 's'},
                                       {"include-discarded", no_argument, NULL, 'D'},
                                       {"tasks", required_argument, NULL, O_TASKS},
                                       {"clip-root", required_argument, NULL, O_CLIP_ROOT},
                                       {"split", required_argument, NULL, O_SPLIT},
                                       {"checkpoints-per-sample", required_argument, NULL,
                                        O_CHECKPOINTS},
                                       {"min-dialogue-words", required_argument, NULL,
                                        O_MIN_WORDS},
                                       {"itp-cap-per-class", required_argument, NULL, O_ITP_CAP},
                                       {"annotator", required_argument, NULL, 'a'},
                                       {"blind", no_argument, NULL, O_BLIND},
                                       {"require-clips", no_argument, NULL, O_REQUIRE_CLIPS},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  const char *format = NULL, *out = NULL, *view_spec = NULL, *task_only = NULL;
  char **samples = NULL;
  rescue_export_opts o;
  rescue_tasks_opts to;
  rescue_export_result res;
  rescue_store *st = NULL;
  cli_progress *bar = NULL;
  int c, rc, n_samples = 0, data_root, tasks_format;

  memset(&o, 0, sizeof o);
  rescue_tasks_opts_init(&to);
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h': cli_free_list(samples); return cli_help(usage);
    case 'f': format = optarg; break;
    case 'o': out = optarg; break;
    case 'F': o.force = 1; break;
    case 'a': break; /* for the audit record (tools/export_safe.c) */
    case 'v': view_spec = optarg; break;
    case 'D': o.include_discarded = 1; break;
    case 's':
      cli_free_list(samples);
      samples = cli_split_list(optarg, &n_samples);
      if (!samples || !n_samples) {
        cli_free_list(samples);
        return cli_usage_error(usage, "--samples needs at least one sample id");
      }
      break;
    case O_TASKS:
      task_only = "--tasks";
      if (!(to.tasks = parse_tasks(optarg)))
        goto usage_fail;
      break;
    case O_CLIP_ROOT:
      task_only = "--clip-root";
      to.clip_root = optarg;
      break;
    case O_SPLIT:
      task_only = "--split";
      if (rescue_split_index(optarg) < 0) {
        cli_usage_error(usage, "unknown split '%s' (expected train, validation or test)", optarg);
        goto usage_fail;
      }
      to.split = optarg;
      break;
    case O_CHECKPOINTS:
      task_only = "--checkpoints-per-sample";
      if (parse_count("--checkpoints-per-sample", optarg, &to.checkpoints_per_sample))
        goto usage_fail;
      break;
    case O_MIN_WORDS:
      task_only = "--min-dialogue-words";
      if (parse_count("--min-dialogue-words", optarg, &to.min_dialogue_words))
        goto usage_fail;
      break;
    case O_BLIND:
      task_only = "--blind";
      to.blind = 1;
      break;
    case O_REQUIRE_CLIPS:
      task_only = "--require-clips";
      to.require_clips = 1;
      break;
    case O_ITP_CAP:
      task_only = "--itp-cap-per-class";
      if (parse_count("--itp-cap-per-class", optarg, &to.itp_cap_per_class))
        goto usage_fail;
      break;
    default: goto usage_fail;
    }
  }
  rc = 2;
  if (argc - optind != 1) {
    cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if (!format) {
    cli_usage_error(usage, "missing --format");
    goto end;
  }
  if (strcmp(format, "samples") != 0 && strcmp(format, "data-root") != 0 &&
      strcmp(format, "tasks") != 0 && strcmp(format, "eaf") != 0) {
    cli_usage_error(usage, "unknown format '%s' (expected samples, data-root, tasks or eaf)",
                    format);
    goto end;
  }
  if (!out) {
    cli_usage_error(usage, "missing --out");
    goto end;
  }
  tasks_format = strcmp(format, "tasks") == 0;
  if (!tasks_format && task_only) {
    cli_usage_error(usage, "%s applies to --format tasks only", task_only);
    goto end;
  }
  if (tasks_format && o.include_discarded) {
    cli_usage_error(usage, "--include-discarded does not apply to --format tasks");
    goto end;
  }
  data_root = strcmp(format, "data-root") == 0;
  if ((rc = cli_open_store(argv[optind], RESCUE_OPEN_READONLY, &st)))
    goto end;
  if (rescue_view_parse(st, view_spec, &o.view)) {
    rc = cli_fail_usage(rescue_store_err(st), argv[optind], usage);
    goto end;
  }
  o.samples = (const char *const *)samples;
  o.n_samples = n_samples;
  if (strcmp(out, "-") == 0) {
    if (data_root) {
      rc = cli_usage_error(usage, "--out - streams JSONL: a data-root is a folder");
      goto end;
    }
    o.stream = stdout;
    to.stream = stdout;
  }
  if (tasks_format) {
    to.command_line = cli_cmdline;
    to.view = o.view;
    to.view_name = view_spec ? view_spec : "corpus";
    to.samples = o.samples;
    to.n_samples = o.n_samples;
    to.force = o.force;
    rc = export_tasks(st, out, &to);
    goto end;
  }
  if (strcmp(format, "eaf") == 0) {
    rc = export_eaf(st, out, view_spec, &o);
    goto end;
  }
  bar = cli_progress_start("exporting");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  rc = rescue_export_samples(st, out, data_root, &o, &res);
  cli_progress_done(&bar);
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  fprintf(o.stream ? stderr : stdout, "wrote %ld sample%s (%ld rows) to %s\n", res.samples,
          res.samples == 1 ? "" : "s", res.rows, o.stream ? "stdout" : out);
  if (res.incomplete)
    cli_warn("left out %ld sample%s without a version of every row in this view", res.incomplete,
             res.incomplete == 1 ? "" : "s");
  if (res.discarded)
    fprintf(o.stream ? stderr : stdout,
            "left out %ld discarded sample%s (--include-discarded writes them)\n", res.discarded,
            res.discarded == 1 ? "" : "s");
  rc = cli_finish(0);
end:
  rescue_store_close(&st);
  cli_free_list(samples);
  return rc;
usage_fail:
  cli_free_list(samples);
  return 2;
}
