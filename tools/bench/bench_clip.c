/*
** bench_clip.c: clip cutting against the ffmpeg CLI, side by side, on two sources
** (M minutes, 1280x720, 25 fps, H.264 with B-frames at 2.5 Mb/s, AAC 128 kb/s):
**   1. a 2 s GOP with contiguous rows of 2-16 s covering it;
**   2. x264's default 10 s GOP with rows of 2-16 s separated by pauses of 0.1-60 s (the
**      interview shape that used to make copy mode seek back forever).
**
**   bench_clip [--minutes M] [--sample-clips K] [--jobs N] [--exact-rows R]
**
** Sources are generated once into $RESCUE_BENCH_CACHE (default /tmp/rescue-bench-cache).
** For each: clips/s for `rescue clip` (copy mode, in process, hashing and recording
** included), for (a) `ffmpeg -ss S -to E -i SRC -c copy` spawned once per clip (K clips
** spread over the file), and (b) one `ffmpeg -i SRC -c copy` of the whole file; the
** largest duration error of every clip as ffprobe reports it. Then exact mode on the
** first R rows of source 2 as one sample, with --jobs 1 and --jobs 2 (the rows of the one
** sample split between the two workers); --exact-rows 0 skips it.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "rescue.h"

static double now(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void progress(void *arg, uint64_t done, uint64_t total) {
  static int last = -1;
  int pct = total ? (int)(done * 100 / total) : 0;
  (void)arg;
  if (pct != last && pct % 5 == 0) {
    fprintf(stderr, "\r  generating the source: %3d%%", pct);
    last = pct;
  }
}

static double ffprobe_duration(const char *path) {
  char cmd[8400], line[128] = "";
  FILE *p;
  double d = -1;
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'",
           path);
  p = popen(cmd, "r");
  if (!p)
    return -1;
  if (fgets(line, sizeof line, p))
    d = atof(line);
  pclose(p);
  return d;
}

static int run(const char *cmd) {
  fflush(stdout);
  int rc = system(cmd);
  if (rc != 0)
    fprintf(stderr, "bench_clip: command failed (%d): %s\n", rc, cmd);
  return rc;
}

/* Generate (once) the benchmark source with a keyframe every gop_s seconds. */
static int make_source(char *src, size_t len, const char *cache, double minutes, int gop_s) {
  struct stat sb;
  rescue_error err = RESCUE_ERROR_INIT;
  if (gop_s == 2)
    snprintf(src, len, "%s/clip-source-%gmin-720p.mp4", cache, minutes);
  else
    snprintf(src, len, "%s/clip-source-%gmin-720p-gop%ds.mp4", cache, minutes, gop_s);
  if (stat(src, &sb) != 0) {
    rescue_synth_opts so;
    double t;
    rescue_synth_defaults(&so);
    so.duration = minutes * 60;
    so.width = 1280;
    so.height = 720;
    so.fps = 25;
    so.gop = 25 * gop_s;
    so.bframes = 3;
    so.video_kbps = 2500;
    so.cbr = 1;
    so.preset = "ultrafast";
    so.sample_rate = 48000;
    so.channels = 2;
    so.audio_kbps = 128;
    so.progress = progress;
    fprintf(stderr, "bench_clip: generating %s (once; it is cached)\n", src);
    t = now();
    if (rescue_make_parents(src) != 0 || rescue_synth_media(src, &so, &err)) {
      fprintf(stderr, "\nbench_clip: %s\n", err.msg);
      return -1;
    }
    fprintf(stderr, "\n  generated in %.0f s\n", now() - t);
  }
  return 0;
}

/* Rows of 2-16 s from 0 to the end of the source; gaps: pauses of 0.1-60 s between. */
static int make_rows(double secs, int gaps, double **rs, double **re) {
  uint32_t rng = 12345;
  double total = 0;
  int n = 0, cap_s = 0, cap_e = 0;
  while (total < secs - 2) {
    double d, g = 0;
    rng = rng * 1664525u + 1013904223u;
    d = 2 + 14 * (double)(rng >> 8) / (double)(1u << 24);
    if (gaps) {
      double u;
      rng = rng * 1664525u + 1013904223u;
      u = (double)(rng >> 8) / (double)(1u << 24);
      g = u < 0.6 ? 0.1 + 3 * u : u < 0.9 ? 2 + 26 * (u - 0.6) : 10 + 500 * (u - 0.9);
      if (total + g + 2 > secs - 0.1)
        break;
    }
    total += g;
    if (total + d > secs - 0.1)
      d = secs - 0.1 - total;
    if (RESCUE_ALLOC_GROW(*rs, n + 1, cap_s) || RESCUE_ALLOC_GROW(*re, n + 1, cap_e)) {
      fprintf(stderr, "bench_clip: out of memory\n");
      exit(1);
    }
    (*rs)[n] = floor(total * 1000) / 1000;
    (*re)[n] = floor((total + d) * 1000) / 1000;
    total = (*re)[n];
    n++;
  }
  return n;
}

/* A corpus in dir with sample id holding rows [0, n) of rs/re, linked to src. */
static rescue_store *make_corpus(const char *dir, const char *id, const char *src, const double *rs,
                                 const double *re, int n) {
  char db[4200], jsonl[4200];
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  rescue_import_opts io = {.format = RESCUE_FMT_JSONL};
  rescue_import_result ir;
  rescue_media_link lk;
  rescue_media_add_result ar;
  const char *inputs[1];
  FILE *f;
  int i;
  snprintf(db, sizeof db, "%s/bench.db", dir);
  snprintf(jsonl, sizeof jsonl, "%s/rows.jsonl", dir);
  f = fopen(jsonl, "w");
  if (!f)
    return NULL;
  fprintf(f, "{\"sample_id\": \"%s\", \"rows\": [", id);
  for (i = 0; i < n; i++)
    fprintf(f, "%s{\"start_time\": %.3f, \"end_time\": %.3f, \"target\": []}", i ? ", " : "", rs[i],
            re[i]);
  fprintf(f, "]}\n");
  fclose(f);
  if (rescue_store_create(db, NULL, 0, &err) || rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "bench_clip: %s\n", err.msg);
    return NULL;
  }
  inputs[0] = jsonl;
  memset(&lk, 0, sizeof lk);
  lk.sample_id = id;
  lk.video = src;
  if (rescue_import(st, inputs, 1, &io, &ir) || rescue_media_add(st, &lk, 1, NULL, &ar)) {
    fprintf(stderr, "bench_clip: %s\n", rescue_store_errmsg(st));
    rescue_store_close(&st);
    return NULL;
  }
  return st;
}

/* One copy-mode case, printed. Returns 0, or 1 when something failed. */
static int bench_copy(const char *label, const char *src, double minutes, int gaps,
                      int sample_clips, int jobs) {
  char dir[] = "/tmp/rescue-bench-XXXXXX", out[4200], cmd[16384], whole[4200];
  double *rs = NULL, *re = NULL, t, t_ours, t_whole, t_each = 0, max_err = 0, max_err_ff = 0;
  int n, i, k, rc = 1, step;
  struct stat sb;
  rescue_store *st = NULL;
  rescue_clip_opts co = {0};
  rescue_clip_result cr;

  n = make_rows(minutes * 60, gaps, &rs, &re);
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(out, sizeof out, "%s/clips", dir);
  snprintf(whole, sizeof whole, "%s/whole.mp4", dir);
  if (!(st = make_corpus(dir, "bench/episode01", src, rs, re, n)))
    goto end;
  stat(src, &sb);
  printf("\n== %s\nsource: %s (%.1f min, %.0f MB), %d rows of 2-16 s%s\n", label, src, minutes,
         (double)sb.st_size / 1e6, n, gaps ? " with pauses of 0.1-60 s" : " covering it");

  /* warm the page cache so every contender reads from memory alike */
  snprintf(cmd, sizeof cmd, "cat '%s' > /dev/null", src);
  run(cmd);

  /* (b) one ffmpeg -c copy of the whole file: the I/O ceiling */
  snprintf(cmd, sizeof cmd, "ffmpeg -v error -y -i '%s' -c copy '%s'", src, whole);
  t = now();
  if (run(cmd))
    goto end;
  t_whole = now() - t;
  unlink(whole);

  /* rescue clip (copy mode), in process */
  co.out = out;
  co.mode = RESCUE_CLIP_COPY;
  co.jobs = jobs;
  t = now();
  if (rescue_clip(st, &co, &cr)) {
    fprintf(stderr, "bench_clip: %s\n", rescue_store_errmsg(st));
    goto end;
  }
  t_ours = now() - t;

  /* (a) one ffmpeg process per clip, on every (n/K)-th row */
  k = 0;
  step = n / sample_clips > 0 ? n / sample_clips : 1;
  for (i = 0; i < n && k < sample_clips; i += step, k++) {
    char clip[4300];
    double d;
    snprintf(clip, sizeof clip, "%s/ff-%03d.mp4", dir, i + 1);
    snprintf(cmd, sizeof cmd, "ffmpeg -v error -y -ss %.3f -to %.3f -i '%s' -c copy '%s'", rs[i],
             re[i], src, clip);
    t = now();
    if (run(cmd))
      goto end;
    t_each += now() - t;
    d = ffprobe_duration(clip);
    if (fabs(d - (re[i] - rs[i])) > max_err_ff)
      max_err_ff = fabs(d - (re[i] - rs[i]));
    unlink(clip);
  }

  /* every clip of ours, measured by ffprobe */
  for (i = 0; i < n; i++) {
    char clip[4300];
    double d;
    snprintf(clip, sizeof clip, "%s/bench/episode01/clips/%03d.mp4", out, i + 1);
    d = ffprobe_duration(clip);
    if (d < 0 || fabs(d - (re[i] - rs[i])) > max_err)
      max_err = d < 0 ? INFINITY : fabs(d - (re[i] - rs[i]));
  }

  printf("%-46s %9s %10s\n", "", "seconds", "clips/s");
  printf("%-46s %9.2f %10.1f\n", "rescue clip --mode copy (all rows)", t_ours, n / t_ours);
  printf("%-46s %9.3f %10.1f   (%d clips sampled)\n", "(a) ffmpeg -ss -to -c copy, one per clip",
         t_each / k, k / t_each, k);
  printf("%-46s %9.2f %10s\n", "(b) ffmpeg -c copy of the whole file", t_whole, "-");
  printf("speed-up over (a): %.1fx (target >= 10x)\n", (n / t_ours) / (k / t_each));
  printf("time against (b): %.2fx (target <= 1.2x)\n", t_ours / t_whole);
  printf("largest |duration - requested|: %.3f s over %d clips (target <= 0.050 s); "
         "ffmpeg -ss/-to: %.3f s\n",
         max_err, n, max_err_ff);
  printf("rescue's own check: %ld clips written, %ld failed, largest error %.3f s\n",
         cr.clips_written, cr.clips_failed, cr.max_error);
  fflush(stdout);
  rc = cr.clips_failed ? 1 : 0;
end:
  rescue_store_close(&st);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "bench_clip: could not remove %s\n", dir);
  rescue_free(rs);
  rescue_free(re);
  return rc;
}

/* Exact mode on the first `rows` rows of the paused layout, as one sample: --jobs 1, 2. */
static int bench_exact(const char *src, double minutes, int rows) {
  char dir[] = "/tmp/rescue-bench-XXXXXX", out[4200], cmd[4300];
  double *rs = NULL, *re = NULL, secs[2] = {0, 0}, span = 0;
  int n, i, rc = 1, jobs;
  rescue_store *st = NULL;
  n = make_rows(minutes * 60, 1, &rs, &re);
  if (rows > n)
    rows = n;
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  if (!(st = make_corpus(dir, "bench/exact", src, rs, re, rows)))
    goto end;
  for (i = 0; i < rows; i++)
    span += re[i] - rs[i];
  printf("\n== exact mode (re-encode), one sample of %d rows (%.0f s of video) from the "
         "10 s GOP source\n",
         rows, span);
  for (jobs = 1; jobs <= 2; jobs++) {
    rescue_clip_opts co = {0};
    rescue_clip_result cr;
    double t;
    snprintf(out, sizeof out, "%s/exact-jobs%d", dir, jobs);
    co.out = out;
    co.mode = RESCUE_CLIP_EXACT;
    co.jobs = jobs;
    t = now();
    if (rescue_clip(st, &co, &cr) || cr.clips_written != rows) {
      fprintf(stderr, "bench_clip: exact --jobs %d: %s\n", jobs, rescue_store_errmsg(st));
      goto end;
    }
    secs[jobs - 1] = now() - t;
    printf("%-46s %9.2f s %8.2f clips/s   largest error %.3f s\n",
           jobs == 1 ? "rescue clip --mode exact --jobs 1" : "rescue clip --mode exact --jobs 2",
           secs[jobs - 1], rows / secs[jobs - 1], cr.max_error);
    fflush(stdout);
  }
  printf("--jobs 2 against --jobs 1: %.2fx the speed\n", secs[0] / secs[1]);
  fflush(stdout);
  rc = 0;
end:
  rescue_store_close(&st);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "bench_clip: could not remove %s\n", dir);
  rescue_free(rs);
  rescue_free(re);
  return rc;
}

int main(int argc, char **argv) {
  const char *cache = getenv("RESCUE_BENCH_CACHE");
  char src2[4096], src10[4096];
  double minutes = 60;
  int sample_clips = 40, jobs = 1, exact_rows = 24, i, rc = 0;

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--minutes") == 0 && i + 1 < argc)
      minutes = atof(argv[++i]);
    else if (strcmp(argv[i], "--sample-clips") == 0 && i + 1 < argc)
      sample_clips = atoi(argv[++i]);
    else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
      jobs = atoi(argv[++i]);
    else if (strcmp(argv[i], "--exact-rows") == 0 && i + 1 < argc)
      exact_rows = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_clip [--minutes M] [--sample-clips K] [--jobs N] "
                      "[--exact-rows R]\n");
      return 2;
    }
  }
  if (minutes <= 0 || sample_clips < 1 || jobs < 1 || exact_rows < 0) {
    fprintf(stderr, "bench_clip: --minutes, --sample-clips and --jobs must be positive, "
                    "--exact-rows >= 0 (0: no exact run)\n");
    return 2;
  }
  rescue_media_quiet();
  if (!cache || !*cache)
    cache = "/tmp/rescue-bench-cache";
  if (make_source(src2, sizeof src2, cache, minutes, 2) ||
      make_source(src10, sizeof src10, cache, minutes, 10))
    return 1;
  rc |= bench_copy("2 s GOP, contiguous rows", src2, minutes, 0, sample_clips, jobs);
  rc |= bench_copy("10 s GOP (x264's default), rows with pauses", src10, minutes, 1, sample_clips,
                   jobs);
  if (exact_rows > 0)
    rc |= bench_exact(src10, minutes, exact_rows);
  return rc;
}
