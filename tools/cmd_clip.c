/*
** cmd_clip.c: `rescue clip <db> --out <dir> ...`: one clip per row of every linked sample.
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue clip <db> --out <dir> [--mode copy|exact|audio] [--pad <s>] [--jobs <n>]\n"
    "                   [--shard <i>/<n>] [--samples <id>,...] [--path-base <dir>]\n"
    "\n"
    "Cut one clip per row of every sample linked to a source ('rescue media add'):\n"
    "<dir>/<sample_id>/clips/NNN.mp4 (NNN = row index, 3 digits), <dir>/<sample_id>/segment.mp4\n"
    "for a sample that is a span of a longer source, and <dir>/<sample_id>/manifest.json\n"
    "({\"rows\": [{\"index\", \"clip_path\", \"duration_sec\", ...}]}, the release format, with the\n"
    "requested and actual span, frame and sample counts, sha256 and mode of each clip).\n"
    "Files appear under their final names only when complete and checked; a rerun keeps\n"
    "clips whose file still matches the hash the corpus recorded. A sample whose source is\n"
    "missing, changed, damaged or shorter than its rows fails with the reason; the others\n"
    "are still cut, and the exit status is 1.\n"
    "\n"
    "options:\n"
    "  --out <dir>         where to write (created when missing)\n"
    "  --mode <m>          copy (default): stream copy in one pass over each source; the\n"
    "                      mp4 edit list starts each clip on the requested frame\n"
    "                      exact: re-encode (H.264 + AAC), within one frame in any player\n"
    "                      audio: clips/NNN.wav, 16 kHz mono 16-bit PCM, added to the manifest\n"
    "                      as audio_path\n"
    "  --pad <s>           widen every clip by s seconds on both sides (clamped to the source)\n"
    "  --jobs <n>          worker threads, one sample each (default 1)\n"
    "  --shard <i>/<n>     only the samples whose FNV-1a 64 hash of the sample_id, modulo n,\n"
    "                      is i-1 (stable as samples are added: Slurm arrays, GNU parallel)\n"
    "  --samples <ids>     only these samples (comma-separated)\n"
    "  --path-base <dir>   manifest clip_path values are relative to it (default: --out);\n"
    "                      for the authors' scripts cut into\n"
    "                      <repo>/manual_review_system/review_assets with --path-base <repo>\n"
    "  -h, --help          show this help\n";

/* Print each failed sample as it is reported. */
static void on_failed(void *arg, const char *sample_id, const char *msg) {
  (void)arg;
  cli_error("sample '%s': %s", sample_id, msg);
}

int cmd_clip(int argc, char **argv) {
  static const struct option opts[] = {{"out", required_argument, NULL, 'o'},
                                       {"mode", required_argument, NULL, 'm'},
                                       {"pad", required_argument, NULL, 'p'},
                                       {"jobs", required_argument, NULL, 'j'},
                                       {"shard", required_argument, NULL, 's'},
                                       {"samples", required_argument, NULL, 'S'},
                                       {"path-base", required_argument, NULL, 'b'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  rescue_clip_opts o;
  rescue_clip_result res;
  rescue_store *st = NULL;
  cli_progress *bar = NULL;
  char **ids = NULL;
  long jobs = 1;
  int c, rc, n_ids = 0;

  memset(&o, 0, sizeof o);
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
    default: cli_free_list(ids); return 2;
    }
  }
  if (argc - optind != 1 || !o.out) {
    cli_free_list(ids);
    return cli_usage_error(usage, argc - optind > 1 ? "unexpected argument '%s'"
                                  : argc - optind == 0 ? "missing <db>%s"
                                                       : "missing --out <dir>%s",
                           argc - optind > 1 ? argv[optind + 1] : "");
  }
  if ((rc = cli_open_store(argv[optind], 0, &st))) {
    cli_free_list(ids);
    return rc;
  }
  rescue_media_quiet();
  o.jobs = (int)jobs;
  o.samples = (const char *const *)ids;
  o.n_samples = n_ids;
  bar = cli_progress_start("cutting");
  o.progress = cli_progress_update;
  o.progress_arg = bar;
  o.failed = on_failed;
  rc = rescue_clip(st, &o, &res);
  cli_progress_done(&bar);
  if (rc && rc != RESCUE_EPARTIAL) {
    rc = rc == RESCUE_EINVAL ? cli_usage_error(usage, "%s", rescue_store_errmsg(st))
                             : cli_fail(rescue_store_err(st));
    goto end;
  }
  printf("%ld sample%s: %ld done, %ld failed, %ld without media; %ld clip%s written, %ld kept "
         "from an earlier run, %ld failed",
         res.samples, res.samples == 1 ? "" : "s", res.samples_ok, res.samples_failed,
         res.samples_no_media, res.clips_written, res.clips_written == 1 ? "" : "s",
         res.clips_kept, res.clips_failed);
  if (res.clips_written)
    printf("; largest duration error %.3f s", res.max_error);
  printf("\n");
  if (rc == RESCUE_EPARTIAL) {
    cli_error("%s", rescue_store_errmsg(st));
    rc = cli_finish(1);
  } else {
    rc = cli_finish(0);
  }
end:
  cli_free_list(ids);
  rescue_store_close(&st);
  return rc;
}
