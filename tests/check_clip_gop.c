/*
** check_clip_gop.c: `rescue clip` on footage shaped like real interviews: keyframes 1, 2,
** 10 and 12 s apart, rows separated by pauses of 0.1-60 s, samples that are spans of a
** longer source starting mid-GOP, and re-clips after row times change. Every clip is
** checked by ffprobe (duration within one frame of the request) and by decoding it (no
** errors; the frame numbers drawn into the synthetic pictures say which frames it shows).
** Every run of the binary has its own deadline (SIGALRM in the child), so a clip pass that
** never ends fails its test instead of stalling the suite.
*/
#include <dirent.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define FPS 25.0
/* seconds one `rescue clip` run may take here before it counts as hung */
#define RUN_DEADLINE 30
/* frame rate of the 60 min source (tiny and slow: cheap to make) */
#define LONG_FPS 5

static char *media_dir;

static const char *media(const char *name) { return tu_path(media_dir, name); }

/*
** Run the rescue binary like tu_rescue, but kill it after `secs` seconds (the alarm
** survives exec, and SIGALRM ends the process). Returns the exit status, or 128 + signal.
*/
static int run_timed(unsigned secs, char **out, char **err, ...) {
  char outname[] = "/tmp/rescue-out-XXXXXX", errname[] = "/tmp/rescue-err-XXXXXX";
  const char *argv[64];
  int fo = mkstemp(outname), fe = mkstemp(errname), status = 0, n = 1;
  va_list ap;
  pid_t pid;
  ck_assert(fo >= 0 && fe >= 0);
  argv[0] = RESCUE_BIN;
  va_start(ap, err);
  while (n < 63 && (argv[n] = va_arg(ap, const char *)) != NULL)
    n++;
  va_end(ap);
  argv[n] = NULL;
  pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    dup2(fo, 1);
    dup2(fe, 2);
    alarm(secs);
    execv(RESCUE_BIN, (char *const *)argv);
    _exit(127);
  }
  waitpid(pid, &status, 0);
  *out = tu_read(outname, NULL);
  *err = tu_read(errname, NULL);
  close(fo);
  close(fe);
  unlink(outname);
  unlink(errname);
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* `rescue clip <db> --out <o> [more...]` under the deadline; asserts the exit status. */
#define CLIP(want, out, err, db, o, ...)                                                           \
  do {                                                                                             \
    int rc_ =                                                                                      \
        run_timed(RUN_DEADLINE, &(out), &(err), "clip", db, "--out", o, ##__VA_ARGS__, NULL);      \
    ck_assert_msg(rc_ != 128 + SIGALRM, "rescue clip did not finish in %d s", RUN_DEADLINE);       \
    ck_assert_msg(rc_ == (want), "exit %d\n%s%s", rc_, out, err);                                  \
  } while (0)

/* Append one sample's JSONL line with rows (start, end pairs, n rows) to j. */
static void sample_line(rescue_buf *j, const char *id, const double *se, int n) {
  int k;
  rescue_buf_printf(j, "{\"sample_id\": \"%s\", \"rows\": [", id);
  for (k = 0; k < n; k++)
    rescue_buf_printf(j,
                      "%s{\"start_time\": %.3f, \"end_time\": %.3f, \"primary_speaker\": "
                      "\"A\", \"target\": [\"B\"], \"row_index\": %d}",
                      k ? ", " : "", se[2 * k], se[2 * k + 1], k + 1);
  rescue_buf_puts(j, "]}\n");
}

/*
** What `rescue init <db>` does (rescue_store_create, tools/cmd_init.c), in this process:
** each test's corpus without a run of the CLI (a third of a second under the sanitizers).
*/
static void init_corpus(const char *db) {
  rescue_error e = RESCUE_ERROR_INIT;
  ck_assert_msg(rescue_store_create(db, NULL, 0, &e) == 0, "create %s: %s", db, e.msg);
}

static void import_jsonl(const char *db, const char *dir, const char *text) {
  char *out, *err;
  tu_write(tu_path(dir, "in.jsonl"), text);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "in.jsonl"), NULL), 0);
  free(out);
  free(err);
}

/*
** A copy-mode clip of [s, e) seconds of a synthetic source (frame k at k/fps s): ffprobe's
** duration within one frame of the request, no decode errors, the first frame shown is
** the first at or after s, and every frame of the span is there.
*/
static void check_synth_clip_p(const char *path, double s, double e, double fps, int probe) {
  rescue_media_decoded d;
  rescue_error err = RESCUE_ERROR_INIT;
  long first = (long)ceil(s * fps - 1e-6), want = (long)ceil(e * fps - 1e-6) - first;
  double probed = probe ? tu_ffprobe_duration(path) : e - s;
  ck_assert_msg(rescue_media_decode_check(path, &d, &err) == 0, "%s: %s", path, err.msg);
  ck_assert_msg(d.decode_errors == 0, "%s: %d decode errors", path, d.decode_errors);
  ck_assert_msg(fabs(probed - (e - s)) <= 1.0 / fps + 1e-3, "%s: ffprobe %.3f s, asked %.3f s",
                path, probed, e - s);
  ck_assert_msg(fabs(d.duration - (e - s)) <= 1.0 / fps + 1e-3, "%s: %.3f s, asked %.3f s", path,
                d.duration, e - s);
  ck_assert_msg(d.first_code == first, "%s: first frame %d, want %ld", path, d.first_code, first);
  ck_assert_msg(d.video_frames == want, "%s: %ld frames, want %ld", path, (long)d.video_frames,
                want);
  ck_assert_int_eq(d.last_code, d.first_code + (int)d.video_frames - 1);
}

static void check_synth_clip(const char *path, double s, double e, double fps) {
  check_synth_clip_p(path, s, e, fps, 1);
}

/* Rows separated by pauses of 0.1 to 60 s, some starting right after a keyframe. */
static const double gap_rows[] = {1.0,  3.0,  3.1,  5.0,  5.5,  7.0,  8.0,  9.5,  12.5,  14.0,
                                  18.1, 20.0, 27.0, 29.0, 42.0, 45.0, 75.0, 77.0, 137.0, 140.0};
#define N_GAP_ROWS ((int)(sizeof gap_rows / sizeof gap_rows[0] / 2))

/* The reproduction: 10 s keyframe interval, two rows with a pause between them. */
START_TEST(test_ten_second_gop_pause) {
  static const double rows[] = {1.0, 5.0, 17.0, 20.0};
  char *dir = tu_tmpdir(), *db = strdup(tu_path(dir, "c.db")), *o = strdup(tu_path(dir, "out"));
  char *out, *err;
  rescue_buf j = RESCUE_BUF_INIT;
  init_corpus(db);
  sample_line(&j, "a_and_b/s1", rows, 2);
  import_jsonl(db, dir, j.s);
  rescue_buf_clear(&j);
  tu_link_media(db, media("g10.mp4"), "a_and_b/s1", NULL, NULL);
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "2 clips written"), "%s", out);
  free(out);
  free(err);
  check_synth_clip(tu_path(o, "a_and_b/s1/clips/001.mp4"), 1.0, 5.0, FPS);
  check_synth_clip(tu_path(o, "a_and_b/s1/clips/002.mp4"), 17.0, 20.0, FPS);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* Pauses of 0.1-60 s between rows, on every GOP length. */
static void gaps_on(const char *source) {
  char *dir = tu_tmpdir(), *db = strdup(tu_path(dir, "c.db")), *o = strdup(tu_path(dir, "out"));
  char *out, *err;
  rescue_buf j = RESCUE_BUF_INIT;
  int k;
  init_corpus(db);
  sample_line(&j, "g/s", gap_rows, N_GAP_ROWS);
  import_jsonl(db, dir, j.s);
  rescue_buf_clear(&j);
  tu_link_media(db, media(source), "g/s", NULL, NULL);
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "clips written"), "%s", out);
  free(out);
  free(err);
  for (k = 0; k < N_GAP_ROWS; k++) {
    char p[64];
    snprintf(p, sizeof p, "g/s/clips/%03d.mp4", k + 1);
    check_synth_clip(tu_path(o, p), gap_rows[2 * k], gap_rows[2 * k + 1], FPS);
  }
  free(o);
  free(db);
  free(dir);
}

START_TEST(test_gaps_gop_1s) { gaps_on("g1.mp4"); }
END_TEST
START_TEST(test_gaps_gop_2s) { gaps_on("g2.mp4"); }
END_TEST
START_TEST(test_gaps_gop_10s) { gaps_on("g10.mp4"); }
END_TEST
START_TEST(test_gaps_gop_12s) { gaps_on("g12.mp4"); }
END_TEST

/* A fresh corpus in a new folder holding one sample with these rows linked to source. */
static char *one_sample(char **dir_out, const char *id, const double *rows, int n,
                        const char *source, const char *start, const char *end) {
  char *dir = tu_tmpdir(), *db = strdup(tu_path(dir, "c.db"));
  rescue_buf j = RESCUE_BUF_INIT;
  init_corpus(db);
  sample_line(&j, id, rows, n);
  import_jsonl(db, dir, j.s);
  rescue_buf_clear(&j);
  tu_link_media(db, media(source), id, start, end);
  *dir_out = dir;
  return db;
}

/*
** A clip of a source made by ffmpeg (no frame numbers to read): ffprobe's duration within
** `frame` seconds of the request, decodes without errors, video from its start.
*/
static void check_plain_clip(const char *path, double s, double e, double frame) {
  rescue_media_decoded d;
  rescue_error err = RESCUE_ERROR_INIT;
  double probed = tu_ffprobe_duration(path);
  ck_assert_msg(rescue_media_decode_check(path, &d, &err) == 0, "%s: %s", path, err.msg);
  ck_assert_msg(d.decode_errors == 0, "%s: %d decode errors", path, d.decode_errors);
  ck_assert_msg(fabs(probed - (e - s)) <= frame + 1e-3, "%s: ffprobe %.3f s, asked %.3f s", path,
                probed, e - s);
  ck_assert_msg(d.video_frames > 0 && d.video_start < frame + 1e-3, "%s: video from %.3f s", path,
                d.video_start);
  ck_assert_msg(fabs(d.video_end - (e - s)) <= frame + 1e-3, "%s: video to %.3f s", path,
                d.video_end);
}

/* The gap rows that fit in the 90 s ffmpeg sources, cut and checked. */
static void plain_gaps_on(const char *source, double frame) {
  char *dir, *db = one_sample(&dir, "p/s", gap_rows, N_GAP_ROWS - 1, source, NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  int k;
  CLIP(0, out, err, db, o);
  free(out);
  free(err);
  for (k = 0; k < N_GAP_ROWS - 1; k++) {
    char p[64];
    snprintf(p, sizeof p, "p/s/clips/%03d.mp4", k + 1);
    check_plain_clip(tu_path(o, p), gap_rows[2 * k], gap_rows[2 * k + 1], frame);
  }
  free(o);
  free(db);
  free(dir);
}

START_TEST(test_open_gop) { plain_gaps_on("open.mp4", 1 / 25.0); }
END_TEST

/* frames are 1/30 s to 4/30 s apart: "one frame" is the longest */
START_TEST(test_variable_frame_rate) { plain_gaps_on("vfr.mp4", 4 / 30.0); }
END_TEST

/* Audio from 2.436 s: a row before it is cut without sound, one across it with a late
   start of the sound, the rest as usual. */
START_TEST(test_late_audio) {
  static const double rows[] = {0.2, 2.1, 1.0, 3.0, 3.1, 5.0, 18.1, 20.0, 42.0, 45.0};
  char *dir, *db = one_sample(&dir, "l/s", rows, 5, "late.mp4", NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  rescue_media_decoded src, d;
  rescue_error e = RESCUE_ERROR_INIT;
  int k;
  ck_assert_int_eq(rescue_media_decode_check(media("late.mp4"), &src, &e), 0);
  ck_assert(src.audio_start > 2.0);
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "5 clips written"), "%s", out);
  free(out);
  free(err);
  for (k = 0; k < 5; k++) {
    char p[64];
    snprintf(p, sizeof p, "l/s/clips/%03d.mp4", k + 1);
    check_plain_clip(tu_path(o, p), rows[2 * k], rows[2 * k + 1], 1 / 25.0);
  }
  ck_assert_int_eq(rescue_media_decode_check(tu_path(o, "l/s/clips/001.mp4"), &d, &e), 0);
  ck_assert_int_eq(d.audio_samples, 0);
  ck_assert_int_eq(rescue_media_decode_check(tu_path(o, "l/s/clips/002.mp4"), &d, &e), 0);
  ck_assert_msg(fabs(d.audio_start - (src.audio_start - 1.0)) < 0.03, "audio from %.3f s",
                d.audio_start);
  ck_assert_msg(d.audio_end > 1.95, "audio to %.3f s", d.audio_end);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* ffprobe's start and duration of a clip's first stream of a type ("audio"); 0 if none. */
static int ffprobe_stream(const char *path, const char *type, double *start, double *dur) {
  char cmd[4400], line[256] = "";
  FILE *p;
  int found = 0;
  snprintf(cmd, sizeof cmd,
           "ffprobe -v error -select_streams %c:0 -show_entries stream=start_time,duration "
           "-of csv=p=0 '%s'",
           type[0], path);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  if (fgets(line, sizeof line, p) && sscanf(line, "%lf,%lf", start, dur) == 2)
    found = 1;
  pclose(p);
  return found;
}

/*
** Where the sound starts in a file's audio: the time of its first sample louder than
** -40 dBFS, decoded by ffmpeg to 16 kHz mono (after the edit lists). *len gets the decoded
** length in seconds; returns -1 when the audio is silent throughout.
*/
static double first_sound(const char *path, double *len) {
  char cmd[4400];
  FILE *p;
  float buf[4096];
  size_t n, k;
  long total = 0, at = -1;
  snprintf(cmd, sizeof cmd,
           "ffmpeg -nostdin -v error -i '%s' -map 0:a:0 -f f32le -ac 1 -ar 16000 -", path);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  while ((n = fread(buf, sizeof *buf, sizeof buf / sizeof *buf, p)) > 0) {
    for (k = 0; k < n && at < 0; k++)
      if (fabsf(buf[k]) > 0.01f)
        at = total + (long)k;
    total += (long)n;
  }
  ck_assert_int_eq(pclose(p), 0);
  *len = total / 16000.0;
  return at < 0 ? -1 : at / 16000.0;
}

/* A manifest entry's number (-1 when it has no such member). */
static double entry_real(const char *o, const char *sample, int index, const char *key) {
  char p[4200];
  json_t *m, *v;
  double d = -1;
  size_t k;
  snprintf(p, sizeof p, "%s/%s/manifest.json", o, sample);
  m = json_load_file(p, 0, NULL);
  ck_assert_msg(m != NULL, "no manifest %s", p);
  for (k = 0; k < json_array_size(json_object_get(m, "rows")); k++) {
    json_t *r = json_array_get(json_object_get(m, "rows"), k);
    if (json_integer_value(json_object_get(r, "index")) == index &&
        (v = json_object_get(r, key)) != NULL)
      d = json_number_value(v);
  }
  json_decref(m);
  return d;
}

/*
** A 6 s source whose sound starts 2.4 s after its picture (rows: wholly before the sound,
** across its start, after it), cut in every mode. Exact clips and WAVs get silence where
** the source has no sound, so both tracks cover the row and the sound lands where it is
** in the source; copy clips have no sound there. The manifest says how much is missing.
*/
START_TEST(test_late_audio_every_mode) {
  static const double rows[] = {0.2, 2.1, 1.0, 3.0, 3.1, 5.0};
  static const char *const modes[] = {"exact", "copy", "audio"};
  char *dir, *db = one_sample(&dir, "la/s", rows, 3, "late6.mp4", NULL, NULL);
  char *out, *err;
  rescue_media_decoded src, d;
  rescue_error e = RESCUE_ERROR_INIT;
  double lead, onset, len;
  int m, k;
  ck_assert_int_eq(rescue_media_decode_check(media("late6.mp4"), &src, &e), 0);
  lead = src.audio_start - 1.0; /* where the audio starts in the row across it */
  ck_assert_msg(src.audio_start > 2.3 && src.audio_start < 2.6, "audio from %.3f s",
                src.audio_start);
  /* the sound itself starts a little later (AAC's first frame is near silent) */
  onset = src.audio_start + first_sound(media("late6.mp4"), &len);
  ck_assert_msg(onset > src.audio_start && onset < src.audio_start + 0.1, "sound from %.3f s",
                onset);
  for (m = 0; m < 3; m++) {
    char *o = strdup(tu_path(dir, modes[m]));
    CLIP(0, out, err, db, o, "--mode", modes[m]);
    ck_assert_msg(strstr(out, "3 clips written"), "%s: %s", modes[m], out);
    free(out);
    free(err);
    for (k = 0; k < 3; k++) {
      double s = rows[2 * k], en = rows[2 * k + 1], want_na = k == 0 ? en - s : k == 1 ? lead : 0;
      double na = entry_real(o, "la/s", k + 1, m == 2 ? "wav_no_audio_sec" : "no_audio_sec");
      double at, ast, adur;
      char p[64];
      snprintf(p, sizeof p, "la/s/clips/%03d.%s", k + 1, m == 2 ? "wav" : "mp4");
      ck_assert_int_eq(rescue_media_decode_check(tu_path(o, p), &d, &e), 0);
      ck_assert_msg(d.decode_errors == 0, "%s %s: %d decode errors", modes[m], p, d.decode_errors);
      /* the manifest: what is missing, absent when nothing is */
      if (want_na > 0)
        ck_assert_msg(fabs(na - want_na) < 0.03, "%s %s: no_audio %.3f s, want %.3f s", modes[m], p,
                      na, want_na);
      else
        ck_assert_msg(na < 0, "%s %s: no_audio %.3f s recorded", modes[m], p, na);
      if (m == 2) { /* the WAV: exactly the row, silent until the sound starts */
        ck_assert_int_eq(d.audio_samples, lround((en - s) * 16000));
        ck_assert_msg(fabs(tu_ffprobe_duration(tu_path(o, p)) - (en - s)) < 1e-3,
                      "%s: ffprobe %.3f s", p, tu_ffprobe_duration(tu_path(o, p)));
        at = first_sound(tu_path(o, p), &len);
      } else {
        check_plain_clip(tu_path(o, p), s, en, 1 / 25.0);
        if (m == 1 && k == 0) { /* a copy has no sound to copy */
          ck_assert_int_eq(d.audio_samples, 0);
          continue;
        }
        at = first_sound(tu_path(o, p), &len);
        ck_assert_msg(ffprobe_stream(tu_path(o, p), "audio", &ast, &adur), "%s %s: no audio",
                      modes[m], p);
        if (m == 0) { /* exact: the audio covers the clip, from its start to its end */
          ck_assert_msg(fabs(ast) < 1e-3 && fabs(adur - (en - s)) <= 1 / 25.0 + 1e-3,
                        "%s: audio %.3f s from %.3f s, asked %.3f s", p, adur, ast, en - s);
          ck_assert_msg(d.audio_start < 1e-3 && d.audio_end > en - s - 1 / 25.0,
                        "%s: audio decodes %.3f-%.3f s", p, d.audio_start, d.audio_end);
        }
      }
      if (k == 0) {
        ck_assert_msg(at < 0, "%s %s: sound at %.3f s", modes[m], p, at);
      } else {
        /* the sound lands where it is in the source (ffmpeg decodes a copy's late audio
           from its first sample on) */
        double want_at = k == 2 ? 0 : m == 1 ? onset - src.audio_start : onset - s;
        ck_assert_msg(fabs(at - want_at) < 0.01, "%s %s: sound from %.3f s, want %.3f s", modes[m],
                      p, at, want_at);
      }
      if (m != 1)
        ck_assert_msg(len > en - s - 1 / 25.0, "%s %s: %.3f s of audio", modes[m], p, len);
    }
    { /* a rerun keeps the clips, and their manifest entries as they were */
      char *before = tu_read(tu_path(o, "la/s/manifest.json"), NULL), *after;
      CLIP(0, out, err, db, o, "--mode", modes[m]);
      ck_assert_msg(strstr(out, "0 clips written, 3 kept"), "%s: %s", modes[m], out);
      free(out);
      free(err);
      after = tu_read(tu_path(o, "la/s/manifest.json"), NULL);
      ck_assert_str_eq(after, before);
      free(before);
      free(after);
    }
    free(o);
  }
  free(db);
  free(dir);
}
END_TEST

/* A source whose first stream is its audio: exact clips decode both (they once fed the
   audio decoder the encoder's output packet after every picture, and failed). */
START_TEST(test_exact_audio_first) {
  static const double rows[] = {1.1, 3.0};
  char *dir, *db = one_sample(&dir, "af/s", rows, 1, "afirst.mp4", NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  rescue_media_decoded d;
  rescue_error e = RESCUE_ERROR_INIT;
  CLIP(0, out, err, db, o, "--mode", "exact");
  ck_assert_msg(strstr(out, "1 clip written"), "%s", out);
  free(out);
  free(err);
  check_plain_clip(tu_path(o, "af/s/clips/001.mp4"), 1.1, 3.0, 1 / 25.0);
  ck_assert_int_eq(rescue_media_decode_check(tu_path(o, "af/s/clips/001.mp4"), &d, &e), 0);
  ck_assert_msg(d.audio_samples >= lround((3.0 - 1.1 - 1 / 25.0) * 16000), "%ld audio samples",
                (long)d.audio_samples);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* Sound that stops before the picture (not filled in): an exact clip past it fails, and
   the message says it is the sound that stops, not the file. */
START_TEST(test_exact_sound_ends_early) {
  static const double rows[] = {2.5, 3.5};
  char *dir, *db = one_sample(&dir, "se/s", rows, 1, "early.mp4", NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  CLIP(1, out, err, db, o, "--mode", "exact");
  ck_assert_msg(strstr(err, "sample 'se/s': row 1: '") && strstr(err, "' has sound only to 2.") &&
                    strstr(err, "short of the requested end 3.500 s (its picture goes on)"),
                "%s", err);
  free(out);
  free(err);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* A sample that is a span of a longer source starting mid-GOP (keyframes at 120, 130 s),
   given as h:mm:ss.fff. */
START_TEST(test_span_mid_gop) {
  static const double rows[] = {0.2, 2.0, 3.5, 4.0, 9.0, 12.0, 20.0, 23.4};
  char *dir, *db = one_sample(&dir, "m/s", rows, 4, "g10.mp4", "0:02:05.300", "0:02:28.700");
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  int k;
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "5 clips written"), "%s", out);
  free(out);
  free(err);
  for (k = 0; k < 4; k++) {
    char p[64];
    snprintf(p, sizeof p, "m/s/clips/%03d.mp4", k + 1);
    check_synth_clip(tu_path(o, p), 125.3 + rows[2 * k], 125.3 + rows[2 * k + 1], FPS);
  }
  check_synth_clip(tu_path(o, "m/s/segment.mp4"), 125.3, 148.7, FPS);
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* Row times edited after a first cut: the moved rows are cut again (one backwards, one
   into a later GOP), the others kept. */
START_TEST(test_reclip_after_time_edit) {
  static const double moved[] = {1.0, 3.0, 55.2, 57.0, 3.1, 5.0, 31.7, 33.0, 75.0, 77.0};
  char *dir, *db = one_sample(&dir, "r/s", gap_rows, 5, "g12.mp4", NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *out, *err;
  rescue_buf j = RESCUE_BUF_INIT;
  int k;
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "5 clips written"), "%s", out);
  free(out);
  free(err);
  sample_line(&j, "r/s", moved, 5);
  /* rows moved this far are other rows by the row-identity rule: a new row set */
  tu_write(tu_path(dir, "in.jsonl"), j.s);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "in.jsonl"), "--resegment", NULL), 0);
  free(out);
  free(err);
  rescue_buf_clear(&j);
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "4 clips written, 1 kept"), "%s", out);
  free(out);
  free(err);
  for (k = 0; k < 5; k++) {
    char p[64];
    snprintf(p, sizeof p, "r/s/clips/%03d.mp4", k + 1);
    check_synth_clip(tu_path(o, p), moved[2 * k], moved[2 * k + 1], FPS);
  }
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* One 60 min sample with 400 rows of 2-12 s and pauses of 0.1 s to a minute. */
START_TEST(test_long_sample) {
  double rows[800], t = 0.5;
  char *dir, *db, *o, *out, *err;
  int k;
  for (k = 0; k < 400; k++) {
    double len = 2 + (k * 7 % 11), gap = k % 50 == 49 ? 30 + k % 16 : 0.1 + (k * 13 % 7) * 0.3;
    rows[2 * k] = t;
    rows[2 * k + 1] = t + len;
    t += len + gap;
  }
  ck_assert_msg(t < 3600, "rows reach %.1f s", t);
  db = one_sample(&dir, "long/s", rows, 400, "long.mp4", NULL, NULL);
  o = strdup(tu_path(dir, "out"));
  CLIP(0, out, err, db, o);
  ck_assert_msg(strstr(out, "400 clips written"), "%s", out);
  free(out);
  free(err);
  /* every clip decoded and its frames counted; ffprobe (a process each) on every 8th
     and on the rows after the long pauses */
  for (k = 0; k < 400; k++) {
    char p[64];
    snprintf(p, sizeof p, "long/s/clips/%03d.mp4", k + 1);
    check_synth_clip_p(tu_path(o, p), rows[2 * k], rows[2 * k + 1], LONG_FPS,
                       k % 8 == 0 || k % 50 == 0);
  }
  free(o);
  free(db);
  free(dir);
}
END_TEST

/* Start `rescue clip <db> --out <o> --mode <mode>` in the background (its output to
   /dev/null) under the deadline; returns its pid. */
static pid_t start_clip(const char *db, const char *o, const char *mode) {
  pid_t pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    int fd = open("/dev/null", O_WRONLY);
    dup2(fd, 1);
    dup2(fd, 2);
    alarm(RUN_DEADLINE * 4);
    execl(RESCUE_BIN, RESCUE_BIN, "clip", db, "--out", o, "--mode", mode, (char *)NULL);
    _exit(127);
  }
  return pid;
}

/* Temporary files (".<name>.part") in a folder. */
static int count_parts(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  if (!d)
    return 0;
  while ((e = readdir(d)) != NULL) {
    size_t len = strlen(e->d_name);
    n += e->d_name[0] == '.' && len > 5 && strcmp(e->d_name + len - 5, ".part") == 0;
  }
  closedir(d);
  return n;
}

/* Wait (at most ~60 s) until a run has a temporary file in dir. */
static void wait_for_part(const char *dir, pid_t pid) {
  int k, status;
  for (k = 0; k < 6000 && count_parts(dir) == 0; k++) {
    ck_assert_msg(waitpid(pid, &status, WNOHANG) == 0, "the run ended before writing");
    usleep(10000);
  }
  ck_assert_msg(count_parts(dir) > 0, "no temporary file appeared in %s", dir);
}

/* Every clip the manifest lists has the recorded hash and decodes cleanly. */
static void check_manifest_hashes(const char *o, const char *sample, int n_rows) {
  char p[4096];
  json_t *m, *rows;
  size_t k;
  snprintf(p, sizeof p, "%s/%s/manifest.json", o, sample);
  m = json_load_file(p, 0, NULL);
  ck_assert_msg(m != NULL, "no manifest %s", p);
  rows = json_object_get(m, "rows");
  ck_assert_int_eq(json_array_size(rows), n_rows);
  for (k = 0; k < json_array_size(rows); k++) {
    json_t *r = json_array_get(rows, k);
    char hex[65];
    rescue_error e = RESCUE_ERROR_INIT;
    rescue_media_decoded d;
    snprintf(p, sizeof p, "%s/%s", o, json_string_value(json_object_get(r, "clip_path")));
    ck_assert_int_eq(rescue_sha256_file(p, hex, NULL, &e), 0);
    ck_assert_msg(strcmp(hex, json_string_value(json_object_get(r, "sha256"))) == 0,
                  "%s differs from its recorded hash", p);
    ck_assert_int_eq(rescue_media_decode_check(p, &d, &e), 0);
    ck_assert_int_eq(d.decode_errors, 0);
  }
  json_decref(m);
}

/*
** Two runs on the same output folder: the second is refused while the first writes, and
** the first's clips are intact. A run killed mid-way leaves temporaries, which the next
** run on that folder removes (and the dead run's lock does not stop it).
*/
START_TEST(test_concurrent_runs_and_leftovers) {
  char *dir, *db = one_sample(&dir, "c/s", gap_rows, N_GAP_ROWS, "g10.mp4", NULL, NULL);
  char *o = strdup(tu_path(dir, "out")), *o2 = strdup(tu_path(dir, "out2")), *out, *err;
  char clips[4200];
  int status;
  pid_t a;
  snprintf(clips, sizeof clips, "%s/c/s/clips", o);
  a = start_clip(db, o, "exact");
  wait_for_part(clips, a);
  /* stopped (not finished) while the second run tries: on a loaded machine the first run
     could otherwise end before the second starts, and the second would rightly succeed */
  ck_assert_int_eq(kill(a, SIGSTOP), 0);
  CLIP(1, out, err, db, o);
  ck_assert_int_eq(kill(a, SIGCONT), 0);
  ck_assert_msg(strstr(err, "is being written by another clip run (process "), "%s", err);
  /* the CLI's hint for the lock */
  ck_assert_msg(strstr(err, "wait for it to finish, or cut into another --out folder"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(waitpid(a, &status, 0), a);
  ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "first run: status %d", status);
  check_manifest_hashes(o, "c/s", N_GAP_ROWS);
  ck_assert_int_eq(count_parts(clips), 0);
  /* killed mid-way: temporaries stay behind until the next run on that folder */
  snprintf(clips, sizeof clips, "%s/c/s/clips", o2);
  a = start_clip(db, o2, "exact");
  wait_for_part(clips, a);
  kill(a, SIGKILL);
  ck_assert_int_eq(waitpid(a, &status, 0), a);
  ck_assert_int_gt(count_parts(clips), 0);
  CLIP(0, out, err, db, o2);
  free(out);
  free(err);
  ck_assert_int_eq(count_parts(clips), 0);
  check_manifest_hashes(o2, "c/s", N_GAP_ROWS);
  free(o);
  free(o2);
  free(db);
  free(dir);
}
END_TEST

/* A tiny synthetic source of `secs` seconds at fps with a keyframe every gop_frames. */
static int make_synth_fps(const char *name, double secs, int fps, int gop_frames, int audio) {
  rescue_synth_opts o;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_synth_defaults(&o);
  o.duration = secs;
  o.fps = fps;
  o.width = 64;
  o.height = 48;
  o.gop = gop_frames;
  o.preset = "ultrafast";
  o.bframes = 2;
  o.threads = 1;
  o.sample_rate = audio ? 16000 : 0;
  o.channels = 1;
  o.audio_kbps = 32;
  if (rescue_synth_media(media(name), &o, &e)) {
    fprintf(stderr, "cannot make test media %s: %s\n", name, e.msg);
    return -1;
  }
  return 0;
}

static int make_synth(const char *name, double secs, int gop_frames) {
  return make_synth_fps(name, secs, (int)FPS, gop_frames, 1);
}

/* A source made by the ffmpeg program (what the synthesizer cannot make). */
static int make_ffmpeg(const char *name, const char *args) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "cd '%s' && ffmpeg -nostdin -v error -y %s '%s'", media_dir, args,
           name);
  if (system(cmd) != 0) {
    fprintf(stderr, "cannot make test media %s: %s\n", name, cmd);
    return -1;
  }
  return 0;
}

int main(void) {
  Suite *s = suite_create("clip_gop");
  TCase *tc = tcase_create("gop");
  media_dir = tu_make_media("clipgop", 0, NULL);
  if (!media_dir)
    return 1;
  if (make_synth("g1.mp4", 150, 25) || make_synth("g2.mp4", 150, 50) ||
      make_synth("g10.mp4", 150, 250) || make_synth("g12.mp4", 150, 300))
    return 1;
  /* the 60 min source: pictures from the synthesizer, and 10 s of AAC repeated by stream
     copy (encoding an hour of sound would take most of the suite's time) */
  if (make_synth_fps("long_v.mp4", 3600, LONG_FPS, 10 * LONG_FPS, 0) ||
      make_ffmpeg("tone.m4a", "-f lavfi -i sine=r=16000:d=10 -c:a aac -b:a 32k") ||
      make_ffmpeg("long.mp4", "-i long_v.mp4 -stream_loop -1 -i tone.m4a -map 0:v -map 1:a "
                              "-c copy -t 3600"))
    return 1;
  /* open GOP (recovery-point I frames, leading B-frames), variable frame rate (frames
     dropped irregularly from 30 fps), audio starting 2.5 s after the video */
  if (make_ffmpeg("open.mp4", "-f lavfi -i testsrc=size=64x48:rate=25 -f lavfi -i sine=r=16000 "
                              "-t 90 -c:v libx264 -preset ultrafast -x264-params "
                              "keyint=250:min-keyint=250:scenecut=0:open-gop=1:bframes=3 "
                              "-c:a aac -b:a 32k") ||
      make_ffmpeg("vfr.mp4", "-f lavfi -i testsrc=size=64x48:rate=30 -f lavfi -i sine=r=16000 "
                             "-t 90 -vf select='lt(mod(n\\,7)\\,4)+not(mod(n\\,11))' "
                             "-fps_mode vfr -c:v libx264 -preset ultrafast -x264-params "
                             "keyint=150:scenecut=0 -c:a aac -b:a 32k") ||
      make_ffmpeg("late.mp4", "-f lavfi -i testsrc=size=64x48:rate=25 -itsoffset 2.5 -f lavfi "
                              "-i sine=r=16000 -t 90 -c:v libx264 -preset ultrafast -x264-params "
                              "keyint=250:scenecut=0 -c:a aac -b:a 32k -t 90") ||
      make_ffmpeg("late6.mp4", "-f lavfi -i testsrc=size=64x48:rate=25 -itsoffset 2.4 -f lavfi "
                               "-i sine=r=16000 -t 6 -c:v libx264 -preset ultrafast -x264-params "
                               "keyint=50:scenecut=0 -c:a aac -b:a 32k -t 6") ||
      make_ffmpeg("afirst.mp4", "-f lavfi -i testsrc=size=64x48:rate=25 -f lavfi -i sine=r=16000 "
                                "-map 1:a -map 0:v -t 4 -c:v libx264 -preset ultrafast "
                                "-x264-params keyint=50:scenecut=0 -c:a aac -b:a 32k") ||
      make_ffmpeg("early.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=4 -f lavfi "
                               "-i sine=r=16000:d=2 -c:v libx264 -preset ultrafast -c:a aac "
                               "-b:a 32k"))
    return 1;
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_ten_second_gop_pause);
  tcase_add_test(tc, test_gaps_gop_1s);
  tcase_add_test(tc, test_gaps_gop_2s);
  tcase_add_test(tc, test_gaps_gop_10s);
  tcase_add_test(tc, test_gaps_gop_12s);
  tcase_add_test(tc, test_open_gop);
  tcase_add_test(tc, test_variable_frame_rate);
  tcase_add_test(tc, test_late_audio);
  tcase_add_test(tc, test_late_audio_every_mode);
  tcase_add_test(tc, test_exact_audio_first);
  tcase_add_test(tc, test_exact_sound_ends_early);
  tcase_add_test(tc, test_span_mid_gop);
  tcase_add_test(tc, test_reclip_after_time_edit);
  tcase_add_test(tc, test_long_sample);
  tcase_add_test(tc, test_concurrent_runs_and_leftovers);
  suite_add_tcase(s, tc);
  return tu_run_media_suite(s, media_dir); /* and removes the generated sources */
}
