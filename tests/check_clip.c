/*
** check_clip.c: `rescue clip` on sources made here with libav (H.264 with B-frames and a
** 2 s GOP + AAC in mp4, MKV and MPEG-TS with a 10 s start time, audio-only m4a). Clips are
** checked by decoding them (durations, frame counts, the frame numbers drawn into the
** pictures, decode errors) and by ffprobe; broken sources (truncated, damaged, changed,
** missing, no video, too short) fail per sample; shards partition the samples exactly;
** reruns keep verified clips.
*/
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "store_int.h"
#include "testutil.h"

#define FPS 25.0

static char *media_dir;

static const char *media(const char *name) { return tu_path(media_dir, name); }

/* Copy a file. */
static void copy_file(const char *from, const char *to) {
  size_t n;
  char *b = tu_read(from, &n);
  ck_assert_ptr_nonnull(b);
  tu_write_n(to, b, n);
  free(b);
}

/* A corpus with samples given as (sample_id, rows "s-e,s-e,...") in a fresh folder. */
static char *corpus(char **dir_out, const char *const *samples, int n) {
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL;
  rescue_buf j = RESCUE_BUF_INIT;
  int i;
  *strrchr(dir, '/') = 0;
  for (i = 0; i < n; i++) {
    const char *p = samples[2 * i + 1];
    int k = 0;
    rescue_buf_printf(&j, "{\"sample_id\": \"%s\", \"rows\": [", samples[2 * i]);
    while (*p) {
      double s, e;
      int used = 0;
      ck_assert_int_eq(sscanf(p, "%lf-%lf%n", &s, &e, &used), 2);
      rescue_buf_printf(&j,
                        "%s{\"start_time\": %.3f, \"end_time\": %.3f, \"primary_speaker\": "
                        "\"A\", \"target\": [\"B\"], \"row_index\": %d}",
                        k ? ", " : "", s, e, k + 1);
      k++;
      p += used;
      if (*p == ',')
        p++;
    }
    rescue_buf_puts(&j, "]}\n");
  }
  tu_write(tu_path(dir, "in.jsonl"), j.s);
  rescue_buf_clear(&j);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "in.jsonl"), NULL), 0);
  free(out);
  free(err);
  *dir_out = dir;
  return db;
}

/*
** Check one video clip of the span [s, e) of a 25 fps synthetic source whose frame k is at
** k/25 s (plus the container start, which clips must honour). exact: re-encoded clip.
*/
static void check_video_clip_at(const char *path, double s, double e, int exact, double off) {
  rescue_media_decoded d;
  rescue_error err = RESCUE_ERROR_INIT;
  long first_at_or_after = (long)ceil((s - off) * FPS - 1e-6), want_frames;
  ck_assert_msg(rescue_media_decode_check(path, &d, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(d.decode_errors, 0);
  ck_assert_msg(fabs(d.duration - (e - s)) <= 0.050, "%s: duration %.3f, asked %.3f", path,
                d.duration, e - s);
  ck_assert_msg(fabs(tu_ffprobe_duration(path) - (e - s)) <= 0.050, "%s: ffprobe %.3f", path,
                tu_ffprobe_duration(path));
  if (exact) {
    /* the frame nearest the start comes first; one frame per 1/25 s */
    ck_assert_msg(fabs(d.first_code - (s - off) * FPS) <= 0.5 + 1e-6,
                  "%s: first frame %d for %.3f s", path, d.first_code, s);
    ck_assert_msg(fabs((double)d.video_frames - (e - s) * FPS) <= 1.0, "%s: %ld frames", path,
                  (long)d.video_frames);
  } else {
    /* first shown frame at or after the requested start; every frame of the span */
    want_frames = (long)ceil((e - off) * FPS - 1e-6) - first_at_or_after;
    ck_assert_msg(d.first_code == first_at_or_after, "%s: first frame %d, want %ld", path,
                  d.first_code, first_at_or_after);
    ck_assert_msg(d.video_frames == want_frames, "%s: %ld frames, want %ld", path,
                  (long)d.video_frames, want_frames);
  }
  ck_assert_int_eq(d.last_code, d.first_code + (int)d.video_frames - 1);
  ck_assert_msg(d.audio_samples >= (int64_t)((e - s - 0.05) * 44100), "%s: %ld audio samples", path,
                (long)d.audio_samples);
}

/* The same for a source whose first picture is at 0 s. */
static void check_video_clip(const char *path, double s, double e, int exact) {
  check_video_clip_at(path, s, e, exact, 0);
}

/* Where a source's first picture is, relative to its container start (audio priming can
   start MKV and MPEG-TS files a little before their first picture). */
static double picture_offset(const char *source) {
  rescue_media_decoded d;
  rescue_error err = RESCUE_ERROR_INIT;
  ck_assert_int_eq(rescue_media_decode_check(source, &d, &err), 0);
  ck_assert_int_eq(d.first_code, 0);
  return d.video_start;
}

/* Temporary files (".<name>.part") in a folder. */
static int count_parts(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  ck_assert_msg(d != NULL, "no folder %s", dir);
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    n += e->d_name[0] == '.' && len > 5 && strcmp(e->d_name + len - 5, ".part") == 0;
  }
  closedir(d);
  return n;
}

static json_t *manifest(const char *out, const char *sample) {
  char p[4096];
  json_t *m;
  ck_assert_int_lt(snprintf(p, sizeof p, "%s/%s/manifest.json", out, sample), (int)sizeof p);
  m = json_load_file(p, 0, NULL);
  ck_assert_msg(m != NULL, "no manifest %s", p);
  return m;
}

START_TEST(test_copy_mp4_with_span) {
  static const char *const samples[] = {"c/a", "0-1.1,0.95-2.2,2.2-3.6"};
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  json_t *m, *rows;
  size_t i;
  static const double span[3][2] = {{0, 1.1}, {0.95, 2.2}, {2.2, 3.6}};
  tu_link_media(db, media("src.mp4"), "c/a", "0.3", "3.9");
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  ck_assert_msg(strstr(out, "1 sample: 1 done, 0 failed, 0 without media; 4 clips written"), "%s%s",
                out, err);
  free(out);
  free(err);
  for (i = 0; i < 3; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/c/a/clips/%03zu.mp4", o, i + 1);
    check_video_clip(p, 0.3 + span[i][0], 0.3 + span[i][1], 0);
  }
  check_video_clip(tu_path(o, "c/a/segment.mp4"), 0.3, 3.9, 0);
  m = manifest(o, "c/a");
  rows = json_object_get(m, "rows");
  ck_assert_int_eq(json_array_size(rows), 3);
  for (i = 0; i < 3; i++) {
    json_t *r = json_array_get(rows, i);
    char want[64], hex[65], p[4096];
    rescue_error e = RESCUE_ERROR_INIT;
    snprintf(want, sizeof want, "c/a/clips/%03zu.mp4", i + 1);
    ck_assert_int_eq(json_integer_value(json_object_get(r, "index")), (json_int_t)i + 1);
    ck_assert_str_eq(json_string_value(json_object_get(r, "clip_path")), want);
    ck_assert(fabs(json_real_value(json_object_get(r, "duration_sec")) -
                   (span[i][1] - span[i][0])) < 1e-9);
    ck_assert_str_eq(json_string_value(json_object_get(r, "mode")), "copy");
    snprintf(p, sizeof p, "%s/%s", o, want);
    ck_assert_int_eq(rescue_sha256_file(p, hex, NULL, &e), 0);
    ck_assert_str_eq(json_string_value(json_object_get(r, "sha256")), hex);
  }
  ck_assert_str_eq(json_string_value(json_object_get(json_object_get(m, "segment"), "clip_path")),
                   "c/a/segment.mp4");
  json_decref(m);
  /* no temporary files left behind */
  ck_assert_int_eq(count_parts(tu_path(o, "c/a/clips")), 0);
  ck_assert_int_eq(count_parts(tu_path(o, "c/a")), 0);
  free(o);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_copy_mkv_and_ts) {
  static const char *const samples[] = {"k/mkv", "0.5-1.7,1.7-3.05", "t/ts", "0.5-1.7,1.7-3.05"};
  char *dir, *db = corpus(&dir, samples, 2), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  double off;
  tu_link_media(db, media("src.mkv"), "k/mkv", NULL, NULL);
  tu_link_media(db, media("src.ts"), "t/ts", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--jobs", "2", NULL), 0);
  ck_assert_msg(strstr(out, "2 done") && strstr(out, "4 clips written"), "%s%s", out, err);
  free(out);
  free(err);
  /* MKV and MPEG-TS timestamps are relative to the container start (10 s for the TS) */
  off = picture_offset(media("src.mkv"));
  ck_assert(off >= 0 && off < 0.05);
  check_video_clip_at(tu_path(o, "k/mkv/clips/001.mp4"), 0.5, 1.7, 0, off);
  check_video_clip_at(tu_path(o, "k/mkv/clips/002.mp4"), 1.7, 3.05, 0, off);
  off = picture_offset(media("src.ts"));
  ck_assert(off >= 0 && off < 0.05);
  check_video_clip_at(tu_path(o, "t/ts/clips/001.mp4"), 0.5, 1.7, 0, off);
  check_video_clip_at(tu_path(o, "t/ts/clips/002.mp4"), 1.7, 3.05, 0, off);
  free(o);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_exact_and_audio) {
  static const char *const samples[] = {"c/x", "0.13-1.21,1.21-2.9,2.5-3.9"};
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  json_t *m, *r;
  rescue_media_decoded d;
  rescue_error e = RESCUE_ERROR_INIT;
  tu_link_media(db, media("src.mp4"), "c/x", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--mode", "exact", NULL), 0);
  free(out);
  free(err);
  check_video_clip(tu_path(o, "c/x/clips/001.mp4"), 0.13, 1.21, 1);
  check_video_clip(tu_path(o, "c/x/clips/002.mp4"), 1.21, 2.9, 1);
  check_video_clip(tu_path(o, "c/x/clips/003.mp4"), 2.5, 3.9, 1);
  /* audio beside them; the video entries stay in the manifest */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--mode", "audio", NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(rescue_media_decode_check(tu_path(o, "c/x/clips/002.wav"), &d, &e), 0);
  ck_assert_int_eq(d.sample_rate, 16000);
  ck_assert_int_eq(d.audio_samples, lround((2.9 - 1.21) * 16000));
  ck_assert_int_eq(d.video_frames, 0);
  m = manifest(o, "c/x");
  r = json_array_get(json_object_get(m, "rows"), 1);
  ck_assert_str_eq(json_string_value(json_object_get(r, "clip_path")), "c/x/clips/002.mp4");
  ck_assert_str_eq(json_string_value(json_object_get(r, "audio_path")), "c/x/clips/002.wav");
  ck_assert_str_eq(json_string_value(json_object_get(r, "mode")), "exact");
  ck_assert_ptr_nonnull(json_object_get(r, "sha256"));
  ck_assert_int_eq(json_integer_value(json_object_get(r, "wav_samples")),
                   lround((2.9 - 1.21) * 16000));
  json_decref(m);
  free(o);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_audio_only_source) {
  static const char *const samples[] = {"v/a", "0.2-1.5,1.5-3.0"};
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  tu_link_media(db, media("voice.m4a"), "v/a", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 1);
  ck_assert_msg(strstr(err, "rescue: clip: sample 'v/a': row 1: 'voice.m4a' has no video stream") ||
                    strstr(err, "voice.m4a' has no video stream"),
                "%s", err);
  ck_assert_msg(strstr(err, "1 of 1 sample failed"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--mode", "audio", NULL), 0);
  ck_assert_msg(strstr(out, "2 clips written"), "%s%s", out, err);
  free(out);
  free(err);
  free(o);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_broken_sources) {
  static const char *const samples[] = {"a/good",          "0.2-1.4,1.4-3.6", "b/truncated",
                                        "0.2-1.4,1.4-3.6", "c/damaged",       "0.2-3.6",
                                        "d/changed",       "0.2-1.4",         "e/missing",
                                        "0.2-1.4",         "f/short",         "0.2-1.4,3.0-5.5"};
  char *dir, *db = corpus(&dir, samples, 6), *out = NULL, *err = NULL, cmd[8400];
  char *o = strdup(tu_path(dir, "assets")), *fs = strdup(tu_path(dir, "v/faststart.mp4"));
  char trunc[4096], damaged[4096], changed[4096], missing[4096];
  size_t n, i;
  char *b;
  struct stat sb;
  snprintf(trunc, sizeof trunc, "%s", tu_path(dir, "v/truncated.mp4"));
  snprintf(damaged, sizeof damaged, "%s", tu_path(dir, "v/damaged.mp4"));
  snprintf(changed, sizeof changed, "%s", tu_path(dir, "v/changed.mp4"));
  snprintf(missing, sizeof missing, "%s", tu_path(dir, "v/missing.mp4"));
  /* an mp4 with its index at the front opens fine when cut short, and claims full length */
  copy_file(media("src.mp4"), tu_path(dir, "v/plain.mp4"));
  snprintf(cmd, sizeof cmd, "ffmpeg -v error -y -i '%s' -c copy -movflags +faststart '%s'",
           tu_path(dir, "v/plain.mp4"), fs);
  ck_assert_int_eq(system(cmd), 0);
  b = tu_read(fs, &n);
  tu_write_n(trunc, b, n * 6 / 10);
  free(b);
  /* damage in the middle of the media data */
  b = tu_read(media("src.mp4"), &n);
  for (i = n * 4 / 10; i < n * 4 / 10 + 3000; i++)
    b[i] = (char)(0xA5 ^ (i * 7));
  tu_write_n(damaged, b, n);
  free(b);
  copy_file(media("src.mp4"), changed);
  copy_file(media("src.mp4"), missing);
  tu_link_media(db, media("src.mp4"), "a/good", NULL, NULL);
  tu_link_media(db, trunc, "b/truncated", NULL, NULL);
  tu_link_media(db, damaged, "c/damaged", NULL, NULL);
  tu_link_media(db, changed, "d/changed", NULL, NULL);
  tu_link_media(db, missing, "e/missing", NULL, NULL);
  tu_link_media(db, media("src.mp4"), "f/short", NULL, NULL);
  tu_write(changed, "replaced by something else");
  ck_assert_int_eq(unlink(missing), 0);

  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--jobs", "2", NULL), 1);
  ck_assert_msg(strstr(out, "6 samples: 1 done, 5 failed"), "%s%s", out, err);
  ck_assert_msg(strstr(err, "sample 'b/truncated': row 2: 'v/truncated.mp4' ends at ") &&
                    strstr(err, "short of the requested end 3.600 s"),
                "%s", err);
  ck_assert_msg(strstr(err, "sample 'c/damaged': row 1: 'v/damaged.mp4' is damaged at "), "%s",
                err);
  ck_assert_msg(strstr(err, "sample 'd/changed': 'v/changed.mp4' changed since it was linked"),
                "%s", err);
  /* the CLI's hint for that code */
  ck_assert_msg(strstr(err, "): link it again with 'rescue media add'\n"), "%s", err);
  ck_assert_msg(strstr(err, "sample 'e/missing': 'v/missing.mp4' is missing"), "%s", err);
  ck_assert_msg(strstr(err, "sample 'f/short': '") && strstr(err, "short of row 2's end"), "%s",
                err);
  ck_assert_msg(strstr(err, "rescue: clip: 5 of 6 samples failed"), "%s", err);
  free(out);
  free(err);
  /* the good sample is complete; failed clips never appear under their final names */
  check_video_clip(tu_path(o, "a/good/clips/002.mp4"), 1.4, 3.6, 0);
  ck_assert_int_eq(stat(tu_path(o, "b/truncated/clips/002.mp4"), &sb), -1);
  ck_assert_int_eq(stat(tu_path(o, "c/damaged/clips/001.mp4"), &sb), -1);
  ck_assert_int_eq(count_parts(tu_path(o, "b/truncated/clips")), 0);
  /* the truncated sample's first row is before the damage: cut and checked */
  check_video_clip(tu_path(o, "b/truncated/clips/001.mp4"), 0.2, 1.4, 0);
  free(o);
  free(fs);
  free(db);
  free(dir);
}
END_TEST

/* FNV-1a 64, written out again here so the test does not trust the library's. */
static uint64_t fnv(const char *s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  while (*s) {
    h ^= (unsigned char)*s++;
    h *= 0x100000001b3ULL;
  }
  return h;
}

START_TEST(test_shards_partition) {
  static const char *const samples[] = {"g1/s1", "0-1",  "g1/s2", "1-2",  "g2/s1", "2-3",  "g2/s2",
                                        "0.5-1", "g3/a", "1-3",   "g3/b", "0-0.5", "g4/x", "3-3.9"};
  char *dir, *db = corpus(&dir, samples, 7), *out = NULL, *err = NULL;
  int seen[7] = {0}, i, k;
  for (i = 0; i < 7; i++)
    tu_link_media(db, media("src.mp4"), samples[2 * i], NULL, NULL);
  for (k = 1; k <= 3; k++) {
    char shard[16], o[4096];
    snprintf(shard, sizeof shard, "%d/3", k);
    snprintf(o, sizeof o, "%s/shard%d", dir, k);
    ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--shard", shard, NULL), 0);
    free(out);
    free(err);
    for (i = 0; i < 7; i++) {
      char p[4200];
      struct stat sb;
      int here;
      snprintf(p, sizeof p, "%s/%s/manifest.json", o, samples[2 * i]);
      here = stat(p, &sb) == 0;
      ck_assert_int_eq(here, (int)(fnv(samples[2 * i]) % 3) == k - 1);
      ck_assert_uint_eq(rescue_fnv1a64(samples[2 * i]), fnv(samples[2 * i]));
      seen[i] += here;
    }
  }
  for (i = 0; i < 7; i++)
    ck_assert_int_eq(seen[i], 1);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_resume_pad_and_path_base) {
  static const char *const samples[] = {"c/r", "0.2-1.0,1.0-2.5,2.5-3.8"};
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL, o[4096];
  json_t *m, *r;
  FILE *f;
  snprintf(o, sizeof o, "%s/repo/manual_review_system/review_assets", dir);
  tu_link_media(db, media("src.mp4"), "c/r", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--pad", "0.5", "--path-base",
                             tu_path(dir, "repo"), NULL),
                   0);
  ck_assert_msg(strstr(out, "3 clips written, 0 kept"), "%s%s", out, err);
  free(out);
  free(err);
  m = manifest(o, "c/r");
  r = json_array_get(json_object_get(m, "rows"), 0);
  ck_assert_str_eq(json_string_value(json_object_get(r, "clip_path")),
                   "manual_review_system/review_assets/c/r/clips/001.mp4");
  /* padding clamps at the source's start; duration_sec includes it */
  ck_assert(json_real_value(json_object_get(r, "requested_start")) == 0.0);
  ck_assert(fabs(json_real_value(json_object_get(r, "duration_sec")) - 1.5) < 1e-9);
  r = json_array_get(json_object_get(m, "rows"), 1);
  ck_assert(fabs(json_real_value(json_object_get(r, "requested_start")) - 0.5) < 1e-9);
  json_decref(m);
  check_video_clip(tu_path(o, "c/r/clips/002.mp4"), 0.5, 3.0, 0);

  /* a rerun keeps every verified clip; a tampered one is cut again */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--pad", "0.5", "--path-base",
                             tu_path(dir, "repo"), NULL),
                   0);
  ck_assert_msg(strstr(out, "0 clips written, 3 kept"), "%s%s", out, err);
  free(out);
  free(err);
  f = fopen(tu_path(o, "c/r/clips/003.mp4"), "ab");
  fputs("x", f);
  fclose(f);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--pad", "0.5", "--path-base",
                             tu_path(dir, "repo"), "--jobs", "3", NULL),
                   0);
  ck_assert_msg(strstr(out, "1 clip written, 2 kept"), "%s%s", out, err);
  free(out);
  free(err);
  check_video_clip(tu_path(o, "c/r/clips/003.mp4"), 2.0, 4.0, 0);
  /* different padding is a different request: everything again */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  ck_assert_msg(strstr(out, "3 clips written, 0 kept"), "%s%s", out, err);
  free(out);
  free(err);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_usage_and_selection) {
  static const char *const samples[] = {"c/m", "0.2-1.0", "c/none", "0.2-1.0"};
  char *dir, *db = corpus(&dir, samples, 2), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  static const char *const bad[][3] = {
      {"--shard", "0/3", "--shard expects i/n"}, {"--shard", "4/3", "--shard expects i/n"},
      {"--shard", "1", "--shard expects i/n"},   {"--mode", "fast", "unknown mode 'fast'"},
      {"--jobs", "0", "--jobs must be"},         {"--pad", "-1", "--pad must be >= 0"},
  };
  size_t i;
  tu_link_media(db, media("src.mp4"), "c/m", NULL, NULL);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, bad[i][0], bad[i][1], NULL), 2);
    ck_assert_msg(strstr(err, bad[i][2]), "%s", err);
    free(out);
    free(err);
  }
  /* span times: seconds or h:mm:ss.fff, nothing else */
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", db, media("src.mp4"), "--sample", "c/m",
                             "--start", "0:00:75", "--end", "3", NULL),
                   2);
  ck_assert_msg(strstr(err, "--start expects seconds or h:mm:ss.fff, not '0:00:75'"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", db, media("src.mp4"), "--sample", "c/m",
                             "--start", "0:00:00.500", "--end", "1h", NULL),
                   2);
  ck_assert_msg(strstr(err, "--end expects seconds or h:mm:ss.fff, not '1h'"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, NULL), 2);
  ck_assert_msg(strstr(err, "missing --out"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", "-h", NULL), 0);
  ck_assert_msg(strncmp(out, "usage: rescue clip <db> --out <dir>", 35) == 0, "%s", out);
  free(out);
  free(err);
  /* a sample without media is skipped, unless asked for by name */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  ck_assert_msg(strstr(out, "2 samples: 1 done, 0 failed, 1 without media"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/none,c/m", NULL),
                   1);
  ck_assert_msg(strstr(err, "sample 'c/none': no media linked (use 'rescue media add ... --sample "
                            "<id>')\n"),
                "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/unknown", NULL),
                   1);
  ck_assert_msg(strstr(err, "c/unknown"), "%s", err);
  free(out);
  free(err);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* --rows recuts chosen rows of one sample in place; all or nothing. */
START_TEST(test_rows_recut) {
  static const char *const samples[] = {"c/r", "0.2-1.0,1.0-2.5,2.5-3.8", "t/r", "0.2-1.4,1.4-3.6"};
  char *dir, *db = corpus(&dir, samples, 2), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets")), *fs = strdup(tu_path(dir, "v/faststart.mp4"));
  char *before, *after, cmd[8400], trunc[4096];
  struct stat s1, s2, s3;
  size_t n;
  char *b;
  json_t *m;
  /* a source cut short after 60 %: row 1 of t/r can be cut, row 2 cannot */
  snprintf(trunc, sizeof trunc, "%s", tu_path(dir, "v/truncated.mp4"));
  copy_file(media("src.mp4"), tu_path(dir, "v/plain.mp4"));
  snprintf(cmd, sizeof cmd, "ffmpeg -nostdin -v error -y -i '%s' -c copy -movflags +faststart '%s'",
           tu_path(dir, "v/plain.mp4"), fs);
  ck_assert_int_eq(system(cmd), 0);
  b = tu_read(fs, &n);
  tu_write_n(trunc, b, n * 6 / 10);
  free(b);
  tu_link_media(db, media("src.mp4"), "c/r", NULL, NULL);
  tu_link_media(db, trunc, "t/r", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 1);
  free(out);
  free(err);
  ck_assert_int_eq(stat(tu_path(o, "c/r/clips/001.mp4"), &s1), 0);
  ck_assert_int_eq(stat(tu_path(o, "c/r/clips/002.mp4"), &s2), 0);
  /* row 2 again: only it is cut, the manifest keeps the other entries */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/r", "--rows", "2", NULL), 0);
  ck_assert_msg(strstr(out, "1 sample: 1 done, 0 failed, 0 without media; 1 clip written, 0 kept"),
                "%s%s", out, err);
  free(out);
  free(err);
  ck_assert_int_eq(stat(tu_path(o, "c/r/clips/001.mp4"), &s3), 0);
  ck_assert(s3.st_ino == s1.st_ino);
  ck_assert_int_eq(stat(tu_path(o, "c/r/clips/002.mp4"), &s3), 0);
  ck_assert(s3.st_ino != s2.st_ino);
  check_video_clip(tu_path(o, "c/r/clips/002.mp4"), 1.0, 2.5, 0);
  m = manifest(o, "c/r");
  ck_assert_int_eq(json_array_size(json_object_get(m, "rows")), 3);
  json_decref(m);
  /* rows 1 and 2 of the truncated source: row 2 fails, so row 1 is not replaced either */
  ck_assert_int_eq(stat(tu_path(o, "t/r/clips/001.mp4"), &s1), 0);
  before = tu_read(tu_path(o, "t/r/manifest.json"), NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "t/r", "--rows",
                             "1,2", "--json", NULL),
                   1);
  ck_assert_msg(strstr(out, "\"clips_cut\": 0") && strstr(out, "\"clips_failed\": 2") &&
                    strstr(out, "\"failed\": [{\"sample_id\": \"t/r\", \"reason\": \"row 2: "),
                "%s", out);
  ck_assert_msg(strstr(err, "sample 't/r': row 2: 'v/truncated.mp4' ends at "), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(stat(tu_path(o, "t/r/clips/001.mp4"), &s3), 0);
  ck_assert(s3.st_ino == s1.st_ino);
  after = tu_read(tu_path(o, "t/r/manifest.json"), NULL);
  ck_assert_str_eq(before, after);
  ck_assert_int_eq(count_parts(tu_path(o, "t/r/clips")), 0);
  free(before);
  free(after);
  /* usage */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--rows", "1", NULL), 2);
  ck_assert_msg(strstr(err, "--rows needs exactly one sample"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/r", "--rows", "0", NULL), 2);
  ck_assert_msg(strstr(err, "--rows expects row numbers from 1"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/r", "--rows", "4", NULL), 2);
  ck_assert_msg(strstr(err, "sample 'c/r' has 3 rows, no row 4"), "%s", err);
  free(out);
  free(err);
  free(o);
  free(fs);
  free(db);
  free(dir);
}
END_TEST

/* Progress: one line per finished sample without a terminal, a redrawn line on one. */
START_TEST(test_progress_and_json) {
  static const char *const samples[] = {"p/a", "0.2-1.0,1.0-2.5", "p/b", "0.5-1.5"};
  char *dir, *db = corpus(&dir, samples, 2), *out = NULL, *err = NULL, cmd[8400], line[1024];
  char *o = strdup(tu_path(dir, "assets"));
  rescue_buf got = RESCUE_BUF_INIT;
  FILE *p;
  tu_link_media(db, media("src.mp4"), "p/a", NULL, NULL);
  tu_link_media(db, media("src.mp4"), "p/b", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  ck_assert_msg(strstr(err, "clip: [1/2] p/a: done, 2 clips (2 written, 0 kept)\n") &&
                    strstr(err, "clip: [2/2] p/b: done, 1 clip (1 written, 0 kept)\n"),
                "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--json", NULL), 0);
  ck_assert_str_eq(out, "{\"samples\": 2, \"samples_done\": 2, \"samples_failed\": 0, "
                        "\"samples_without_media\": 0, \"clips_cut\": 0, \"clips_kept\": 3, "
                        "\"clips_failed\": 0, \"max_duration_error_sec\": 0.0, \"failed\": []}\n");
  free(out);
  free(err);
  /* on a terminal (script(1) gives the run one) */
  snprintf(cmd, sizeof cmd, "script -qec \"'%s' clip '%s' --out '%s/tty'\" /dev/null 2>&1",
           RESCUE_BIN, db, dir);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  while (fgets(line, sizeof line, p))
    rescue_buf_puts(&got, line);
  ck_assert_int_eq(pclose(p), 0);
  ck_assert_msg(got.s && strstr(got.s, "\r\033[Kclip: 2/2 samples, 3/3 rows, ") &&
                    strstr(got.s, " clips/s") && !strstr(got.s, "clip: [1/2]"),
                "%s", got.s ? got.s : "");
  rescue_buf_clear(&got);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* --jobs with one sample: its rows are split among the workers, same clips. */
START_TEST(test_jobs_split_one_sample) {
  static const char *const samples[] = {
      "j/one", "0.1-0.5,0.5-0.9,0.9-1.3,1.3-1.7,1.7-2.1,2.1-2.5,2.5-2.9,2.9-3.3,3.3-3.7,"
               "0.3-3.9,1.1-1.6,2.2-2.6"};
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL;
  char *o = strdup(tu_path(dir, "assets"));
  static const double span[12][2] = {{0.1, 0.5}, {0.5, 0.9}, {0.9, 1.3}, {1.3, 1.7},
                                     {1.7, 2.1}, {2.1, 2.5}, {2.5, 2.9}, {2.9, 3.3},
                                     {3.3, 3.7}, {0.3, 3.9}, {1.1, 1.6}, {2.2, 2.6}};
  int i;
  tu_link_media(db, media("src.mp4"), "j/one", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, "--jobs", "3", NULL), 0);
  ck_assert_msg(strstr(out, "12 clips written"), "%s%s", out, err);
  free(out);
  free(err);
  for (i = 0; i < 12; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/j/one/clips/%03d.mp4", o, i + 1);
    check_video_clip(p, span[i][0], span[i][1], 0);
  }
  free(o);
  free(db);
  free(dir);
}
END_TEST

/*
** An earlier manifest edited by hand: what the merge keeps is written as the manifest
** writer writes values (a repeated key once, at its first place, with its last value;
** numbers and escapes normalised), unknown root members go, a kept row stays as it was,
** and the recut row keeps its unknown member and the place of its clip_path.
*/
START_TEST(test_manifest_merge_bytes) {
  static const char *const samples[] = {"c/m", "0-1,1-2"};
  static const char want[] =
      "{\"sample_id\": \"c/m\", \"segment\": {\"a\": 2.5, \"b\": [100.0, 0, \"\xc3\xa9\\t\"]}, "
      "\"rows\": [{\"index\": 1, \"clip_path\": \"c/m/clips/001.mp4\", \"w\": {\"k\": 0.1}, "
      "\"n\": 12.0}, {\"index\": \"2\", \"custom\": \"v\", \"clip_path\": "
      "\"c/m/clips/002.mp4\", \"duration_sec\": 1.0, \"mode\": \"copy\", "
      "\"requested_start\": 1.0, \"requested_end\": 2.0, \"actual_start\": ";
  char *dir, *db = corpus(&dir, samples, 1), *out = NULL, *err = NULL, *m;
  char *o = strdup(tu_path(dir, "assets"));
  tu_link_media(db, media("src.mp4"), "c/m", NULL, NULL);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  free(out);
  free(err);
  tu_write(tu_path(o, "c/m/manifest.json"),
           "{\"sample_id\": \"c/m\", \"extra\": 1, \"segment\": {\"a\": 1, \"a\": 2.50, \"b\": "
           "[1E2, -0, \"\\u00e9\\t\"]}, \"rows\": [{\"index\": 1, \"clip_path\": "
           "\"c/m/clips/001.mp4\", \"w\": {\"k\": true, \"k\": 0.10}, \"n\": 12.0e0}, "
           "{\"index\": \"2\", \"custom\": \"v\", \"clip_path\": \"old\", \"clip_path\": "
           "\"older\"}, {\"index\": 3, \"clip_path\": \"past the rows\"}]}\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "clip", db, "--out", o, "--samples", "c/m", "--rows", "2", NULL), 0);
  free(out);
  free(err);
  m = tu_read(tu_path(o, "c/m/manifest.json"), NULL);
  ck_assert_ptr_nonnull(m);
  ck_assert_msg(strncmp(m, want, strlen(want)) == 0, "%s", m);
  ck_assert_msg(strstr(m, "\"sha256\": \"") && !strstr(m, "past the rows"), "%s", m);
  ck_assert_str_eq(m + strlen(m) - 5, "\"}]}\n");
  free(m);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* Run `rescue clip` on db into o; its output must hold want. */
static void clip_run(const char *db, const char *o, const char *want) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", o, NULL), 0);
  ck_assert_msg(strstr(out, want), "want '%s': %s%s", want, out, err);
  free(out);
  free(err);
}

/* How many clip records of the store match an SQL condition. */
static int clip_records(const char *db, const char *where) {
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  sqlite3_stmt *q;
  char sql[512];
  int n;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  snprintf(sql, sizeof sql, "SELECT count(*) FROM clip WHERE %s", where);
  ck_assert_int_eq(sqlite3_prepare_v2(rescue_store_db(st), sql, -1, &q, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  n = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  rescue_store_close(&st);
  return n;
}

/*
** Clips name their rows: each manifest entry and clip record carries the row's row.id and
** span. Clips recorded before that (no row id: a corpus upgraded from an older rescue) are
** kept while their span matches, and get their row; so is a clip recorded for another
** row with the same times (the same file): the manifest and the store then name the row
** now at its position.
*/
START_TEST(test_clips_name_rows) {
  static const char *const samples[] = {"c/n", "0-1,1-2.5"};
  char *dir, *db = corpus(&dir, samples, 1), *o = strdup(tu_path(dir, "assets"));
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  json_t *m, *r;
  size_t i;
  json_int_t ids[2];
  char where[128];
  tu_link_media(db, media("src.mp4"), "c/n", "0.5", "3.5");
  clip_run(db, o, "3 clips written");
  m = manifest(o, "c/n");
  for (i = 0; i < 2; i++) {
    r = json_array_get(json_object_get(m, "rows"), i);
    ids[i] = json_integer_value(json_object_get(r, "row_id"));
    ck_assert_int_gt(ids[i], 0);
    ck_assert(fabs(json_real_value(json_object_get(r, "start")) - (i ? 1.0 : 0.0)) < 1e-9);
    ck_assert(fabs(json_real_value(json_object_get(r, "end")) - (i ? 2.5 : 1.0)) < 1e-9);
    ck_assert(fabs(json_number_value(json_object_get(r, "clip_start")) - (i ? 1.0 : 0.0)) < 0.05);
  }
  json_decref(m);
  ck_assert_int_eq(clip_records(db, "position > 0 AND row_id IS NOT NULL"), 2);
  /* as an older rescue left it: no row ids */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(
      sqlite3_exec(rescue_store_db(st), "UPDATE clip SET row_id = NULL", NULL, NULL, NULL),
      SQLITE_OK);
  rescue_store_close(&st);
  clip_run(db, o, "0 clips written, 3 kept");
  ck_assert_int_eq(clip_records(db, "position > 0 AND row_id IS NOT NULL"), 2);
  clip_run(db, o, "0 clips written, 3 kept");
  /* the same times recorded for the other row (each clip's row id swapped): named again */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(
      sqlite3_exec(rescue_store_db(st),
                   "UPDATE clip SET row_id = (SELECT min(row_id) + max(row_id) FROM clip) - row_id",
                   NULL, NULL, NULL),
      SQLITE_OK);
  rescue_store_close(&st);
  clip_run(db, o, "0 clips written, 3 kept");
  m = manifest(o, "c/n");
  for (i = 0; i < 2; i++)
    ck_assert_int_eq(json_integer_value(
                         json_object_get(json_array_get(json_object_get(m, "rows"), i), "row_id")),
                     ids[i]);
  json_decref(m);
  snprintf(where, sizeof where,
           "id IN (SELECT max(id) FROM clip GROUP BY position) AND row_id = %lld + position - 1",
           (long long)ids[0]);
  ck_assert_int_eq(ids[1], ids[0] + 1);
  ck_assert_int_eq(clip_records(db, where), 2);
  free(o);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("clip");
  TCase *tc = tcase_create("clip");
  media_dir = tu_make_media("clip", 1, "src.mp4", "src.mkv", "src.ts", "voice.m4a", NULL);
  if (!media_dir)
    return 1;
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_copy_mp4_with_span);
  tcase_add_test(tc, test_copy_mkv_and_ts);
  tcase_add_test(tc, test_exact_and_audio);
  tcase_add_test(tc, test_audio_only_source);
  tcase_add_test(tc, test_broken_sources);
  tcase_add_test(tc, test_shards_partition);
  tcase_add_test(tc, test_resume_pad_and_path_base);
  tcase_add_test(tc, test_usage_and_selection);
  tcase_add_test(tc, test_rows_recut);
  tcase_add_test(tc, test_progress_and_json);
  tcase_add_test(tc, test_jobs_split_one_sample);
  tcase_add_test(tc, test_manifest_merge_bytes);
  tcase_add_test(tc, test_clips_name_rows);
  suite_add_tcase(s, tc);
  return tu_run_media_suite(s, media_dir); /* and removes the generated sources */
}
