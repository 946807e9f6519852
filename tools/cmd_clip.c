/*
** cmd_clip.c: `rescue clip <db> --out <dir> ...`: one clip per row of every linked sample.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* The table's values (set before the functions below see them). */
static struct { int *v, n; } rows;
static int shard_i, shard_n;

/* What the run shows while it goes, and the failures the --json summary lists. */
typedef struct clip_ui {
  int tty, json, shown;
  double last;
  rescue_buf fails; /* JSON array items, comma-separated */
  int n_fails;
} clip_ui;

/* Print each failed sample as it is reported (and keep it for --json). */
static void on_failed(void *arg, const char *sample_id, const rescue_error *err) {
  clip_ui *ui = arg;
  rescue_jw w;
  char msg[sizeof err->msg + 512];
  cli_message(err, NULL, msg, sizeof msg);
  if (ui->shown) {
    fprintf(stderr, "\r\033[K");
    ui->shown = 0;
  }
  cli_error("sample '%s': %s", sample_id, msg);
  if (ui->n_fails++)
    rescue_buf_putc(&ui->fails, ',');
  rescue_jw_init(&w, &ui->fails);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, sample_id);
  rescue_jw_key(&w, "reason");
  rescue_jw_str(&w, msg);
  rescue_jw_end(&w);
}

/* Terminal: one progress line, redrawn; otherwise one line per finished sample. */
static void on_status(void *arg, const rescue_clip_status *st) {
  clip_ui *ui = arg;
  double rate = st->elapsed > 0 ? (double)st->rows_done / st->elapsed : 0;
  if (!ui->tty) {
    if (st->finished)
      fprintf(stderr, "clip: [%ld/%ld] %s: %s, %ld clip%s (%ld written, %ld kept)\n",
              st->samples_done, st->samples_total, st->finished,
              st->finished_ok ? "done" : "failed", st->finished_clips,
              st->finished_clips == 1 ? "" : "s", st->finished_written, st->finished_kept);
    return;
  }
  if (!st->finished && st->elapsed - ui->last < 0.2)
    return;
  ui->last = st->elapsed;
  fprintf(stderr, "\r\033[Kclip: %ld/%ld samples, %llu/%llu rows, %.1f clips/s%s%.60s",
          st->samples_done, st->samples_total, (unsigned long long)st->rows_done,
          (unsigned long long)st->rows_total, rate, st->current ? ", cutting " : "",
          st->current ? st->current : "");
  fflush(stderr);
  ui->shown = 1;
}

/* "3,1,12" -> rows (empty items skipped); -1 when it is not a list of row numbers from 1. */
static int parse_rows(const char *s, int **rows_out, int *n) {
  const char *p = s;
  int cap = 1;
  for (; *p; p++)
    cap += *p == ',';
  *n = 0;
  if (!(*rows_out = calloc((size_t)cap, sizeof **rows_out)))
    return -1;
  for (p = s; *p;) {
    char *end;
    long v;
    if (*p == ',') {
      p++;
      continue;
    }
    v = strtol(p, &end, 10);
    if (end == p || (*end && *end != ',') || v < 1 || v > 1000000) {
      free(*rows_out);
      *rows_out = NULL;
      return -1;
    }
    (*rows_out)[(*n)++] = (int)v;
    p = end;
  }
  if (!*n) {
    free(*rows_out);
    *rows_out = NULL;
    return -1;
  }
  return 0;
}

/* --shard i/n */
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

/* --rows 3,7,12 */
static int rows_option(const cli_spec *spec, const cli_option *o, const char *arg) {
  (void)o;
  free(rows.v);
  if (parse_rows(arg, &rows.v, &rows.n))
    return cli_spec_error(spec, "--rows expects row numbers from 1 (3,7,12), not '%s'", arg);
  return 0;
}

static const char *const modes[] = {"copy", "exact", "audio", NULL};
static const char *out_dir, *path_base;
static int mode_index, json, review_copy, check;
static double pad;
static long jobs = 1;
static cli_list ids;
static const cli_option options[] = {
    CLI_STRING_REQ(0, "out", &out_dir, "<dir>", "where to write (created when missing)"),
    {.type = CLI_OPT_CHOICE,
     .long_name = "mode",
     .value = &mode_index,
     .argh = "<m>",
     .help = "copy (default): stream copy in one pass over each source; the\n"
             "mp4 edit list starts each clip on the requested frame\n"
             "exact: re-encode (H.264 + AAC), within one frame in any player\n"
             "audio: clips/NNN.wav, 16 kHz mono 16-bit PCM, added to the manifest\n"
             "as audio_path",
     .choices = modes,
     .bad = "unknown mode '%s'"},
    CLI_DOUBLE_RANGE(0, "pad", &pad, "<s>",
                     "widen every clip by s seconds on both sides (clamped to the source)", 0,
                     HUGE_VAL, "--pad must be >= 0"),
    {.type = CLI_OPT_LONG,
     .long_name = "jobs",
     .value = &jobs,
     .argh = "<n>",
     .help = "worker threads, one sample each (default 1); with fewer samples\n"
             "than workers, the rows of a sample are split among them",
     .min = 1,
     .max = 256,
     .bad = "--jobs must be between 1 and 256"},
    CLI_CALLBACK(0, "shard", NULL, "<i>/<n>",
                 "only the samples whose FNV-1a 64 hash of the sample_id, modulo n,\n"
                 "is i-1 (stable as samples are added: Slurm arrays, GNU parallel)",
                 shard),
    CLI_SAMPLES_HELP(&ids, "only these samples (comma-separated)"),
    CLI_CALLBACK(0, "rows", NULL, "<n>,...",
                 "with one --samples id: cut these rows again (1-based), even when\n"
                 "their clips are complete; all or nothing: if one fails, no clip\n"
                 "and no manifest entry changes",
                 rows_option),
    CLI_STRING(0, "path-base", &path_base, "<dir>",
               "manifest clip_path values are relative to it (default: --out);\n"
               "for the authors' scripts cut into\n"
               "<repo>/manual_review_system/review_assets with --path-base <repo>"),
    CLI_FLAG(0, "review-copy", &review_copy,
             "also write <dir>/<sample_id>/review.mp4: the sample's whole span\n"
             "re-encoded (H.264 + AAC) with a keyframe every second, which\n"
             "'rescue serve' plays on the review page (row starts decode at most\n"
             "1 s; sources often have 10 s between keyframes) and draws the\n"
             "time line's waveform from; kept while newer than segment.mp4"),
    CLI_FLAG(0, "check", &check,
             "cut and write nothing: count the clips present (complete, as\n"
             "recorded for this folder or by a shard), missing and stale"),
    CLI_JSON(&json, "print the run's summary as JSON (counts, failures with reasons)"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue clip <db> --out <dir> [--mode copy|exact|audio] [--pad <s>] [--jobs <n>]\n"
                "                   [--shard <i>/<n>] [--samples <id>,...] [--rows <n>,...]\n"
                "                   [--path-base <dir>] [--review-copy] [--check] [--json]",
    .description =
        "Cut one clip per row of every sample linked to a source ('rescue media add'):\n"
        "<dir>/<sample_id>/clips/NNN.mp4 (NNN = row index, 3 digits), "
        "<dir>/<sample_id>/segment.mp4\n"
        "for a sample that is a span of a longer source, and <dir>/<sample_id>/manifest.json\n"
        "({\"rows\": [{\"index\", \"clip_path\", \"duration_sec\", ...}]}, the release format, "
        "with the\n"
        "requested and actual span, frame and sample counts, sha256 and mode of each clip).\n"
        "Files appear under their final names only when complete and checked; a rerun keeps\n"
        "clips whose file still matches the hash the corpus recorded. A sample whose source is\n"
        "missing, changed, damaged or shorter than its rows fails with the reason; the others\n"
        "are still cut, and the exit status is 1. One run at a time writes an output folder: a\n"
        "second run on it is refused while the first lasts, and temporary files a killed run\n"
        "left behind are removed by the next one.\n"
        "\n"
        "On a terminal a progress line shows samples and rows done, clips per second and the\n"
        "sample being cut; otherwise one line per finished sample goes to stderr.\n"
        "\n"
        "On a cluster (README \"Running on a cluster\"): shards (--shard i/n, counted from 1)\n"
        "read a snapshot from `rescue backup` read-only and immutable, write clips and\n"
        "manifests of their own samples into one shared folder at the same time, and record\n"
        "nothing in the corpus: each notes its clips in <dir>/.rescue-clip-shard-<i>of<n>.jsonl.\n"
        "A later run without --shard on the live corpus keeps every clip they cut whose file\n"
        "still has its hash, cuts nothing again, and records them all; --check counts clips\n"
        "present, missing and stale without writing anything. Each output folder's clips are\n"
        "remembered on their own: cutting a copy into another folder recuts nothing here.\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

/* The --check summary: clips present, missing and stale. */
static void print_check(const rescue_clip_result *res, int as_json) {
  if (as_json)
    printf("{\"samples\": %ld, \"samples_without_media\": %ld, \"clips_present\": %ld, "
           "\"clips_missing\": %ld, \"clips_stale\": %ld}\n",
           res->samples, res->samples_no_media, res->clips_present, res->clips_missing,
           res->clips_stale);
  else
    printf("%ld sample%s (%ld without media): %ld clip%s present, %ld missing, %ld stale\n",
           res->samples, res->samples == 1 ? "" : "s", res->samples_no_media, res->clips_present,
           res->clips_present == 1 ? "" : "s", res->clips_missing, res->clips_stale);
}

int cmd_clip(int argc, char **argv) {
  rescue_clip_opts o = {0};
  rescue_clip_result res;
  rescue_store *st = NULL;
  clip_ui ui;
  int rc, first;

  memset(&ui, 0, sizeof ui);
  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    goto end;
  if (rows.v && ids.n != 1) {
    rc = cli_spec_error(&spec, "--rows needs exactly one sample (--samples <id>)");
    goto end;
  }
  if (rescue_clip_mode_parse(modes[mode_index], &o.mode)) {
    cli_error("unknown mode '%s'", modes[mode_index]);
    rc = 1;
    goto end;
  }
  o.out = out_dir;
  o.pad = pad;
  o.shard_i = shard_i;
  o.shard_n = shard_n;
  o.path_base = path_base;
  o.review_copy = review_copy;
  ui.json = json;
  o.check = check;
  if (check && rows.v) {
    rc = cli_spec_error(&spec, "--check counts every clip; it takes no --rows");
    goto end;
  }
  /* a shard reads a snapshot: read-only and immutable (rescue_store_backup says why) */
  if ((rc = cli_open_store(argv[first],
                           shard_n ? RESCUE_OPEN_SNAPSHOT
                           : check ? RESCUE_OPEN_READONLY
                                   : 0,
                           &st)))
    goto end;
  rescue_media_quiet();
  o.jobs = (int)jobs;
  o.samples = (const char *const *)ids.v;
  o.n_samples = ids.n;
  o.rows = rows.v;
  o.n_rows = rows.n;
  ui.tty = isatty(STDERR_FILENO);
  o.status = on_status;
  o.status_arg = &ui;
  o.failed = on_failed;
  o.failed_arg = &ui;
  rc = rescue_clip(st, &o, &res);
  if (ui.shown)
    fprintf(stderr, "\n");
  if (rc && rc != RESCUE_EPARTIAL) {
    rc = cli_fail_spec(rescue_store_err(st), argv[first], &spec);
    goto end;
  }
  if (check) {
    print_check(&res, ui.json);
  } else if (ui.json) {
    rescue_buf b = RESCUE_BUF_INIT, arr = RESCUE_BUF_INIT;
    rescue_jw w;
    rescue_jw_init(&w, &b);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "samples");
    rescue_jw_int(&w, res.samples);
    rescue_jw_key(&w, "samples_done");
    rescue_jw_int(&w, res.samples_ok);
    rescue_jw_key(&w, "samples_failed");
    rescue_jw_int(&w, res.samples_failed);
    rescue_jw_key(&w, "samples_without_media");
    rescue_jw_int(&w, res.samples_no_media);
    rescue_jw_key(&w, "clips_cut");
    rescue_jw_int(&w, res.clips_written);
    rescue_jw_key(&w, "clips_kept");
    rescue_jw_int(&w, res.clips_kept);
    rescue_jw_key(&w, "clips_failed");
    rescue_jw_int(&w, res.clips_failed);
    rescue_jw_key(&w, "max_duration_error_sec");
    rescue_jw_double(&w, res.max_error);
    rescue_jw_key(&w, "failed");
    rescue_buf_printf(&arr, "[%s]", ui.fails.s ? ui.fails.s : "");
    rescue_jw_raw(&w, arr.s ? arr.s : "[]", arr.s ? arr.len : 2);
    rescue_buf_clear(&arr);
    rescue_jw_end(&w);
    rescue_buf_putc(&b, '\n');
    if (rescue_buf_ok(&b))
      fputs(b.s, stdout);
    rescue_buf_clear(&b);
  } else {
    printf("%ld sample%s: %ld done, %ld failed, %ld without media; %ld clip%s written, %ld kept "
           "from an earlier run, %ld failed",
           res.samples, res.samples == 1 ? "" : "s", res.samples_ok, res.samples_failed,
           res.samples_no_media, res.clips_written, res.clips_written == 1 ? "" : "s",
           res.clips_kept, res.clips_failed);
    if (res.clips_written)
      printf("; largest duration error %.3f s", res.max_error);
    printf("\n");
  }
  if (rc == RESCUE_EPARTIAL) {
    cli_error("%s", rescue_store_errmsg(st));
    rc = cli_finish(1);
  } else {
    rc = cli_finish(0);
  }
end:
  cli_list_clear(&ids);
  free(rows.v);
  rows.v = NULL;
  rescue_buf_clear(&ui.fails);
  rescue_store_close(&st);
  return rc;
}
