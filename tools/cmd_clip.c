/*
** cmd_clip.c: `rescue clip <db> --out <dir> ...`: one clip per row of every linked sample.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue clip <db> --out <dir> [--mode copy|exact|audio] [--pad <s>] [--jobs <n>]\n"
    "                   [--shard <i>/<n>] [--samples <id>,...] [--rows <n>,...]\n"
    "                   [--path-base <dir>] [--json]\n"
    "\n"
    "Cut one clip per row of every sample linked to a source ('rescue media add'):\n"
    "<dir>/<sample_id>/clips/NNN.mp4 (NNN = row index, 3 digits), <dir>/<sample_id>/segment.mp4\n"
    "for a sample that is a span of a longer source, and <dir>/<sample_id>/manifest.json\n"
    "({\"rows\": [{\"index\", \"clip_path\", \"duration_sec\", ...}]}, the release format, with the\n"
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
    "options:\n"
    "  --out <dir>         where to write (created when missing)\n"
    "  --mode <m>          copy (default): stream copy in one pass over each source; the\n"
    "                      mp4 edit list starts each clip on the requested frame\n"
    "                      exact: re-encode (H.264 + AAC), within one frame in any player\n"
    "                      audio: clips/NNN.wav, 16 kHz mono 16-bit PCM, added to the manifest\n"
    "                      as audio_path\n"
    "  --pad <s>           widen every clip by s seconds on both sides (clamped to the source)\n"
    "  --jobs <n>          worker threads, one sample each (default 1); with fewer samples\n"
    "                      than workers, the rows of a sample are split among them\n"
    "  --shard <i>/<n>     only the samples whose FNV-1a 64 hash of the sample_id, modulo n,\n"
    "                      is i-1 (stable as samples are added: Slurm arrays, GNU parallel)\n"
    "  --samples <ids>     only these samples (comma-separated)\n"
    "  --rows <n>,...      with one --samples id: cut these rows again (1-based), even when\n"
    "                      their clips are complete; all or nothing: if one fails, no clip\n"
    "                      and no manifest entry changes\n"
    "  --path-base <dir>   manifest clip_path values are relative to it (default: --out);\n"
    "                      for the authors' scripts cut into\n"
    "                      <repo>/manual_review_system/review_assets with --path-base <repo>\n"
    "  --json              print the run's summary as JSON (counts, failures with reasons)\n"
    "  -h, --help          show this help\n";

/* What the run shows while it goes, and the failures the --json summary lists. */
typedef struct clip_ui {
  int tty, json, shown;
  double last;
  rescue_buf fails;   /* JSON array items, comma-separated */
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

/* "3,1,12" -> rows; usage error (2) when it is not a list of positive whole numbers. */
static int parse_rows(const char *s, int **rows, int *n) {
  char **items = cli_split_list(s, n);
  int i;
  *rows = NULL;
  if (!items || *n == 0) {
    cli_free_list(items);
    return -1;
  }
  *rows = calloc((size_t)*n, sizeof **rows);
  for (i = 0; *rows && i < *n; i++) {
    char *end;
    long v = strtol(items[i], &end, 10);
    if (!*items[i] || *end || v < 1 || v > 1000000) {
      free(*rows);
      *rows = NULL;
      break;
    }
    (*rows)[i] = (int)v;
  }
  cli_free_list(items);
  return *rows ? 0 : -1;
}

int cmd_clip(int argc, char **argv) {
  static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
                                       {"mode", required_argument, NULL, 'm'},
                                       {"pad", required_argument, NULL, 'p'},
                                       {"jobs", required_argument, NULL, 'j'},
                                       {"shard", required_argument, NULL, 's'},
                                       {"samples", required_argument, NULL, 'S'},
                                       {"path-base", required_argument, NULL, 'b'},
                                       {"rows", required_argument, NULL, 'r'},
                                       {"json", no_argument, NULL, 'J'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_clip_opts o;
  rescue_clip_result res;
  rescue_store *st = NULL;
  clip_ui ui;
  int *rows = NULL, n_rows = 0;
  char **ids = NULL;
  long jobs = 1;
  int c, rc, n_ids = 0;

  memset(&o, 0, sizeof o);
  memset(&ui, 0, sizeof ui);
  o.mode = RESCUE_CLIP_COPY;
  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h':
      cli_free_list(ids);
      return cli_help(usage);
    case 'o': o.out = optarg; break;
    case 'm':
      if (rescue_clip_mode_parse(optarg, &o.mode)) {
        cli_free_list(ids);
        return cli_usage_error(usage, "unknown mode '%s' (copy, exact or audio)", optarg);
      }
      break;
    case 'p':
      if (cli_parse_double("--pad", optarg, &o.pad, usage)) {
        cli_free_list(ids);
        return 2;
      }
      if (o.pad < 0) {
        cli_free_list(ids);
        return cli_usage_error(usage, "--pad must be >= 0");
      }
      break;
    case 'j':
      if (cli_parse_long("--jobs", optarg, &jobs, usage)) {
        cli_free_list(ids);
        return 2;
      }
      if (jobs < 1 || jobs > 256) {
        cli_free_list(ids);
        return cli_usage_error(usage, "--jobs must be between 1 and 256");
      }
      break;
    case 's': {
      char *slash = strchr(optarg, '/'), *end1 = NULL, *end2 = NULL;
      long i = slash ? strtol(optarg, &end1, 10) : 0, n = slash ? strtol(slash + 1, &end2, 10) : 0;
      if (!slash || end1 != slash || end1 == optarg || !end2 || *end2 || end2 == slash + 1 ||
          n < 1 || i < 1 || i > n || n > 1000000) {
        cli_free_list(ids);
        return cli_usage_error(usage, "--shard expects i/n with 1 <= i <= n, not '%s'", optarg);
      }
      o.shard_i = (int)i;
      o.shard_n = (int)n;
      break;
    }
    case 'S':
      cli_free_list(ids);
      ids = cli_split_list(optarg, &n_ids);
      if (!ids || n_ids == 0) {
        cli_free_list(ids);
        return cli_usage_error(usage, "--samples needs at least one sample id");
      }
      break;
    case 'b': o.path_base = optarg; break;
    case 'J': ui.json = 1; break;
    case 'r':
      free(rows);
      if (parse_rows(optarg, &rows, &n_rows)) {
        cli_free_list(ids);
        return cli_usage_error(usage, "--rows expects row numbers from 1 (3,7,12), not '%s'",
                               optarg);
      }
      break;
    default: cli_free_list(ids); free(rows); return 2;
    }
  }
  if (rows && n_ids != 1) {
    cli_free_list(ids);
    free(rows);
    return cli_usage_error(usage, "--rows needs exactly one sample (--samples <id>)");
  }
  if (argc - optind != 1 || !o.out) {
    cli_free_list(ids);
    free(rows);
    return cli_usage_error(usage, argc - optind > 1 ? "unexpected argument '%s'"
                                  : argc - optind == 0 ? "missing <db>%s"
                                                       : "missing --out <dir>%s",
                           argc - optind > 1 ? argv[optind + 1] : "");
  }
  if ((rc = cli_open_store(argv[optind], 0, &st))) {
    cli_free_list(ids);
    free(rows);
    return rc;
  }
  rescue_media_quiet();
  o.jobs = (int)jobs;
  o.samples = (const char *const *)ids;
  o.n_samples = n_ids;
  o.rows = rows;
  o.n_rows = n_rows;
  ui.tty = isatty(STDERR_FILENO);
  o.status = on_status;
  o.status_arg = &ui;
  o.failed = on_failed;
  o.failed_arg = &ui;
  rc = rescue_clip(st, &o, &res);
  if (ui.shown)
    fprintf(stderr, "\n");
  if (rc && rc != RESCUE_EPARTIAL) {
    rc = cli_fail_usage(rescue_store_err(st), argv[optind], usage);
    goto end;
  }
  if (ui.json) {
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
  cli_free_list(ids);
  free(rows);
  rescue_buf_clear(&ui.fails);
  rescue_store_close(&st);
  return rc;
}
