/*
** bench_clip.c: copy-mode clip cutting against the ffmpeg CLI, side by side on the
** benchmark source the clip targets are stated for (60 min, 1280x720, 25 fps, H.264 with B-frames and a
** 2 s GOP at 2.5 Mb/s, AAC 128 kb/s; about 400 contiguous rows of 2-16 s).
**
**   bench_clip [--minutes M] [--sample-clips K] [--jobs N]
**
** The source is generated once into $RESCUE_BENCH_CACHE (default /tmp/rescue-bench-cache).
** Prints clips/s for `rescue clip` (in process, hashing and recording included), for
** (a) `ffmpeg -ss S -to E -i SRC -c copy` spawned once per clip (K clips, spread over the
** file), and (b) one `ffmpeg -i SRC -c copy` of the whole file, then the largest duration
** error of every clip as ffprobe reports it, and the targets.
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
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'", path);
  p = popen(cmd, "r");
  if (!p)
    return -1;
  if (fgets(line, sizeof line, p))
    d = atof(line);
  pclose(p);
  return d;
}

static int run(const char *cmd) {
  int rc = system(cmd);
  if (rc != 0)
    fprintf(stderr, "bench_clip: command failed (%d): %s\n", rc, cmd);
  return rc;
}

int main(int argc, char **argv) {
  const char *cache = getenv("RESCUE_BENCH_CACHE");
  char src[4096], dir[] = "/tmp/rescue-bench-XXXXXX", db[4200], jsonl[4200], out[4200],
      cmd[16384], whole[4200];
  double minutes = 60, *rs = NULL, *re = NULL, t, t_ours, t_whole, t_each = 0, max_err = 0,
         max_err_ff = 0, total = 0;
  int sample_clips = 40, jobs = 1, n = 0, cap = 0, i, k, rc = 1;
  struct stat sb;
  rescue_error err = {0, ""};
  rescue_store *st = NULL;
  rescue_clip_opts co;
  rescue_clip_result cr;
  rescue_import_opts io = {RESCUE_FMT_JSONL, NULL, NULL, 0, NULL, NULL};
  rescue_import_result ir;
  rescue_media_link lk;
  rescue_media_add_result ar;
  const char *inputs[1];
  uint32_t rng = 12345;
  FILE *f;

  for (i = 1; i < argc; i++) {
    if (strcmp(argv[i], "--minutes") == 0 && i + 1 < argc)
      minutes = atof(argv[++i]);
    else if (strcmp(argv[i], "--sample-clips") == 0 && i + 1 < argc)
      sample_clips = atoi(argv[++i]);
    else if (strcmp(argv[i], "--jobs") == 0 && i + 1 < argc)
      jobs = atoi(argv[++i]);
    else {
      fprintf(stderr, "usage: bench_clip [--minutes M] [--sample-clips K] [--jobs N]\n");
      return 2;
    }
  }
  rescue_media_quiet();
  if (!cache || !*cache)
    cache = "/tmp/rescue-bench-cache";
  snprintf(src, sizeof src, "%s/clip-source-%gmin-720p.mp4", cache, minutes);
  if (stat(src, &sb) != 0) {
    rescue_synth_opts so;
    rescue_synth_defaults(&so);
    so.duration = minutes * 60;
    so.width = 1280;
    so.height = 720;
    so.fps = 25;
    so.gop = 50;
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
      return 1;
    }
    fprintf(stderr, "\n  generated in %.0f s\n", now() - t);
    stat(src, &sb);
  }

  /* rows: contiguous, 2-16 s each, covering the file */
  while (total < minutes * 60 - 2) {
    double d;
    rng = rng * 1664525u + 1013904223u;
    d = 2 + 14 * (double)(rng >> 8) / (double)(1u << 24);
    if (total + d > minutes * 60 - 0.1)
      d = minutes * 60 - 0.1 - total;
    if (n == cap) {
      cap = cap ? cap * 2 : 512;
      rs = realloc(rs, (size_t)cap * sizeof *rs);
      re = realloc(re, (size_t)cap * sizeof *re);
    }
    rs[n] = floor(total * 1000) / 1000;
    re[n] = floor((total + d) * 1000) / 1000;
    total = re[n];
    n++;
  }
  if (!mkdtemp(dir)) {
    perror("mkdtemp");
    return 1;
  }
  snprintf(db, sizeof db, "%s/bench.db", dir);
  snprintf(jsonl, sizeof jsonl, "%s/rows.jsonl", dir);
  snprintf(out, sizeof out, "%s/clips", dir);
  snprintf(whole, sizeof whole, "%s/whole.mp4", dir);
  f = fopen(jsonl, "w");
  fprintf(f, "{\"sample_id\": \"bench/episode01\", \"rows\": [");
  for (i = 0; i < n; i++)
    fprintf(f, "%s{\"start_time\": %.3f, \"end_time\": %.3f, \"target\": []}", i ? ", " : "",
            rs[i], re[i]);
  fprintf(f, "]}\n");
  fclose(f);
  if (rescue_store_create(db, NULL, 0, &err) || rescue_store_open(&st, db, 0, &err)) {
    fprintf(stderr, "bench_clip: %s\n", err.msg);
    goto end;
  }
  inputs[0] = jsonl;
  memset(&lk, 0, sizeof lk);
  lk.sample_id = "bench/episode01";
  lk.video = src;
  if (rescue_import(st, inputs, 1, &io, &ir) || rescue_media_add(st, &lk, 1, NULL, &ar)) {
    fprintf(stderr, "bench_clip: %s\n", rescue_store_errmsg(st));
    goto end;
  }
  printf("source: %s (%.1f min, %.0f MB), %d rows of 2-16 s covering it\n", src, minutes,
         (double)sb.st_size / 1e6, n);

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
  memset(&co, 0, sizeof co);
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
  for (i = 0; i < n && k < sample_clips; i += (n / sample_clips > 0 ? n / sample_clips : 1), k++) {
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

  printf("\n%-46s %9s %10s\n", "", "seconds", "clips/s");
  printf("%-46s %9.2f %10.1f\n", "rescue clip --mode copy (all rows)", t_ours, n / t_ours);
  printf("%-46s %9.3f %10.1f   (%d clips sampled)\n", "(a) ffmpeg -ss -to -c copy, one per clip",
         t_each / k, k / t_each, k);
  printf("%-46s %9.2f %10s\n", "(b) ffmpeg -c copy of the whole file", t_whole, "-");
  printf("\nspeed-up over (a): %.1fx (target >= 10x)\n", (n / t_ours) / (k / t_each));
  printf("time against (b): %.2fx (target <= 1.2x)\n", t_ours / t_whole);
  printf("largest |duration - requested|: %.3f s over %d clips (target <= 0.050 s); "
         "ffmpeg -ss/-to: %.3f s\n",
         max_err, n, max_err_ff);
  printf("rescue's own check: %ld clips written, largest error %.3f s\n", cr.clips_written,
         cr.max_error);
  rc = 0;
end:
  rescue_store_close(&st);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0)
    fprintf(stderr, "bench_clip: could not remove %s\n", dir);
  free(rs);
  free(re);
  return rc;
}
