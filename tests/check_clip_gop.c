/*
** check_clip_gop.c: `rescue clip` on footage shaped like real interviews: keyframes 1, 2,
** 10 and 12 s apart, rows separated by pauses of 0.1-60 s, samples that are spans of a
** longer source starting mid-GOP, and re-clips after row times change. Every clip is
** checked by ffprobe (duration within one frame of the request) and by decoding it (no
** errors; the frame numbers drawn into the synthetic pictures say which frames it shows).
** Every run of the binary has its own deadline (SIGALRM in the child), so a clip pass that
** never ends fails its test instead of stalling the suite.
*/
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
#define CLIP(want, out, err, db, o, ...)                                                       \
  do {                                                                                         \
    int rc_ = run_timed(RUN_DEADLINE, &(out), &(err), "clip", db, "--out", o, ##__VA_ARGS__,   \
                        NULL);                                                                 \
    ck_assert_msg(rc_ != 128 + SIGALRM, "rescue clip did not finish in %d s", RUN_DEADLINE);   \
    ck_assert_msg(rc_ == (want), "exit %d\n%s%s", rc_, out, err);                              \
  } while (0)

/* Append one sample's JSONL line with rows (start, end pairs, n rows) to j. */
static void sample_line(rescue_buf *j, const char *id, const double *se, int n) {
  int k;
  rescue_buf_printf(j, "{\"sample_id\": \"%s\", \"rows\": [", id);
  for (k = 0; k < n; k++)
    rescue_buf_printf(j, "%s{\"start_time\": %.3f, \"end_time\": %.3f, \"primary_speaker\": "
                         "\"A\", \"target\": [\"B\"], \"row_index\": %d}",
                      k ? ", " : "", se[2 * k], se[2 * k + 1], k + 1);
  rescue_buf_puts(j, "]}\n");
}

static void import_jsonl(const char *db, const char *dir, const char *text) {
  char *out, *err;
  tu_write(tu_path(dir, "in.jsonl"), text);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "in.jsonl"), NULL), 0);
  free(out);
  free(err);
}

static void link_media(const char *db, const char *video, const char *sample, const char *start,
                       const char *end) {
  char *out = NULL, *err = NULL;
  int rc = start ? tu_rescue(&out, &err, "media", "add", db, video, "--sample", sample, "--start",
                             start, "--end", end, NULL)
                 : tu_rescue(&out, &err, "media", "add", db, video, "--sample", sample, NULL);
  ck_assert_msg(rc == 0, "%s%s", out, err);
  free(out);
  free(err);
}

/* ffprobe's container duration of a file (the independent check). */
static double ffprobe_duration(const char *path) {
  char cmd[4400], line[128] = "";
  FILE *p;
  double d = -1;
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'", path);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  if (fgets(line, sizeof line, p))
    d = atof(line);
  pclose(p);
  return d;
}

/*
** A copy-mode clip of [s, e) seconds of a synthetic source (frame k at k/fps s): ffprobe's
** duration within one frame of the request, no decode errors, the first frame shown is
** the first at or after s, and every frame of the span is there.
*/
static void check_synth_clip(const char *path, double s, double e, double fps) {
  rescue_media_decoded d;
  rescue_error err = {0, ""};
  long first = (long)ceil(s * fps - 1e-6), want = (long)ceil(e * fps - 1e-6) - first;
  double probed = ffprobe_duration(path);
  ck_assert_msg(rescue_media_decode_check(path, &d, &err) == 0, "%s: %s", path, err.msg);
  ck_assert_msg(d.decode_errors == 0, "%s: %d decode errors", path, d.decode_errors);
  ck_assert_msg(fabs(probed - (e - s)) <= 1.0 / fps + 1e-3, "%s: ffprobe %.3f s, asked %.3f s",
                path, probed, e - s);
  ck_assert_msg(d.first_code == first, "%s: first frame %d, want %ld", path, d.first_code, first);
  ck_assert_msg(d.video_frames == want, "%s: %ld frames, want %ld", path, (long)d.video_frames,
                want);
  ck_assert_int_eq(d.last_code, d.first_code + (int)d.video_frames - 1);
}

/* Rows separated by pauses of 0.1 to 60 s, some starting right after a keyframe. */
static const double gap_rows[] = {1.0,   3.0,   3.1,   5.0,   5.5,   7.0,   8.0,   9.5,
                                  12.5,  14.0,  18.1,  20.0,  27.0,  29.0,  42.0,  45.0,
                                  75.0,  77.0,  137.0, 140.0};
#define N_GAP_ROWS ((int)(sizeof gap_rows / sizeof gap_rows[0] / 2))

/* The reproduction: 10 s keyframe interval, two rows with a pause between them. */
START_TEST(test_ten_second_gop_pause) {
  static const double rows[] = {1.0, 5.0, 17.0, 20.0};
  char *dir = tu_tmpdir(), *db = strdup(tu_path(dir, "c.db")), *o = strdup(tu_path(dir, "out"));
  char *out, *err;
  rescue_buf j = RESCUE_BUF_INIT;
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 0);
  free(out);
  free(err);
  sample_line(&j, "a_and_b/s1", rows, 2);
  import_jsonl(db, dir, j.s);
  rescue_buf_free(&j);
  link_media(db, media("g10.mp4"), "a_and_b/s1", NULL, NULL);
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
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 0);
  free(out);
  free(err);
  sample_line(&j, "g/s", gap_rows, N_GAP_ROWS);
  import_jsonl(db, dir, j.s);
  rescue_buf_free(&j);
  link_media(db, media(source), "g/s", NULL, NULL);
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

/* A synthetic source of `secs` seconds with a keyframe every gop_s seconds. */
static int make_synth(const char *name, double secs, int gop_frames) {
  rescue_synth_opts o;
  rescue_error e = {0, ""};
  rescue_synth_defaults(&o);
  o.duration = secs;
  o.width = 64;
  o.height = 48;
  o.gop = gop_frames;
  o.preset = "ultrafast";
  o.bframes = 2;
  o.threads = 1;
  o.sample_rate = 16000;
  o.channels = 1;
  o.audio_kbps = 32;
  if (rescue_synth_media(media(name), &o, &e)) {
    fprintf(stderr, "cannot make test media %s: %s\n", name, e.msg);
    return -1;
  }
  return 0;
}

int main(void) {
  Suite *s = suite_create("clip_gop");
  TCase *tc = tcase_create("gop");
  static char tmpl[] = "/tmp/rescue-clipgop-XXXXXX";
  rescue_media_quiet();
  media_dir = mkdtemp(tmpl);
  if (!media_dir)
    return 1;
  if (make_synth("g1.mp4", 150, 25) || make_synth("g2.mp4", 150, 50) ||
      make_synth("g10.mp4", 150, 250) || make_synth("g12.mp4", 150, 300))
    return 1;
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_ten_second_gop_pause);
  tcase_add_test(tc, test_gaps_gop_1s);
  tcase_add_test(tc, test_gaps_gop_2s);
  tcase_add_test(tc, test_gaps_gop_10s);
  tcase_add_test(tc, test_gaps_gop_12s);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
