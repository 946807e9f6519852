/*
** check_waveform.c: the time line's peaks (corpus/waveform.c) on files made with ffmpeg
** whose loudness is known, and GET /api/samples/<id>/waveform (tools/serve/
** serve_waveform.c): its answer, who may ask, bad arguments, the cache following a
** recut file, and the review copy taking over from segment.mp4.
*/
#include <arpa/inet.h>
#include <fcntl.h>
#include <math.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_json.h"
#include "rescue_media.h"
#include "rescue_waveform.h"
#include "serve.h"
#include "testutil.h"
#include "testutil_http.h"

#define SAMPLE "maya_and_daniel/001_s01e01_segment01"
#define OTHER "family_therapy/demo01/merged"

/* A sine at 440 Hz, 0.25 loud for 1 s, 0.8 for 1 s, then 1 s of silence. */
#define STEPS "aevalsrc='if(lt(t,1),0.25,if(lt(t,2),0.8,0))*sin(2*PI*440*t)':s=16000:d=3"

static char *dir;

/* Run ffmpeg with `args` (after the common flags) writing to name in dir; its path. */
static const char *make(const char *name, const char *args) {
  char cmd[2048];
  const char *out = tu_path(dir, name);
  snprintf(cmd, sizeof cmd, "ffmpeg -nostdin -v error -y %s '%s'", args, out);
  ck_assert_msg(system(cmd) == 0, "ffmpeg failed: %s", cmd);
  return out;
}

static void setup(void) {
  dir = tu_tmpdir();
  rescue_media_quiet(); /* the damaged file would print libav's complaint */
}
static void teardown(void) { free(dir); }

/* min and max of bucket i must be within tol of -want and want. */
static void near(const float *mn, const float *mx, int i, double want, double tol) {
  ck_assert_msg(mx[i] > want - tol && mx[i] < want + tol, "bucket %d: max %g, want %g", i, mx[i],
                want);
  ck_assert_msg(mn[i] < -want + tol && mn[i] > -want - tol, "bucket %d: min %g, want %g", i, mn[i],
                -want);
}

START_TEST(test_peaks_pcm) {
  rescue_peaks p;
  rescue_error err = RESCUE_ERROR_INIT;
  float mn[5], mx[5];
  const char *wav = make("steps.wav", "-f lavfi -i \"" STEPS "\" -c:a pcm_s16le");
  ck_assert_msg(rescue_peaks_compute(wav, &p, &err) == 0, "%s", err.msg);
  ck_assert_int_eq(p.rate, RESCUE_PEAKS_RATE);
  ck_assert_int_eq(p.n, 300);
  ck_assert_double_eq_tol(p.duration, 3.0, 1e-9);
  ck_assert_int_eq(rescue_peaks_bucket(&p, 0, 3, 3, mn, mx), 0);
  near(mn, mx, 0, 0.25, 0.005);
  near(mn, mx, 1, 0.80, 0.005);
  near(mn, mx, 2, 0.00, 0.0001);
  /* a zoomed span: every bucket of the loud second */
  ck_assert_int_eq(rescue_peaks_bucket(&p, 1.0, 1.5, 5, mn, mx), 0);
  for (int i = 0; i < 5; i++)
    near(mn, mx, i, 0.80, 0.005);
  /* past the end: silence, not garbage */
  ck_assert_int_eq(rescue_peaks_bucket(&p, 3.0, 4.0, 2, mn, mx), 0);
  near(mn, mx, 1, 0.0, 0.0001);
  ck_assert_int_eq(rescue_peaks_bucket(&p, 0, 3, 0, mn, mx), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_peaks_bucket(&p, 2, 1, 3, mn, mx), RESCUE_EINVAL);
  rescue_peaks_clear(&p);
  rescue_peaks_clear(&p); /* twice is harmless */
}
END_TEST

START_TEST(test_peaks_mp4) {
  rescue_peaks p;
  rescue_error err = RESCUE_ERROR_INIT;
  float mn[3], mx[3];
  /* H.264 + AAC in mp4, as the clips are: AAC changes the samples a little */
  const char *mp4 =
      make("steps.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=3 -f lavfi -i \"" STEPS
                        "\" -c:v libx264 -g 250 -c:a aac -b:a 128k -shortest");
  ck_assert_msg(rescue_peaks_compute(mp4, &p, &err) == 0, "%s", err.msg);
  ck_assert_msg(p.duration > 2.9 && p.duration < 3.1, "duration %g", p.duration);
  ck_assert_int_eq(rescue_peaks_bucket(&p, 0, 3, 3, mn, mx), 0);
  near(mn, mx, 0, 0.25, 0.06);
  near(mn, mx, 1, 0.80, 0.06);
  near(mn, mx, 2, 0.00, 0.06);
  rescue_peaks_clear(&p);
}
END_TEST

START_TEST(test_peaks_errors) {
  rescue_peaks p;
  rescue_error err = RESCUE_ERROR_INIT;
  const char *silent =
      make("picture.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=1 -c:v libx264");
  ck_assert_int_eq(rescue_peaks_compute(silent, &p, &err), RESCUE_ENOMEDIA);
  ck_assert_ptr_nonnull(strstr(err.msg, "picture.mp4"));
  ck_assert_ptr_null(p.min);
  ck_assert_int_eq(rescue_peaks_compute(tu_path(dir, "missing.mp4"), &p, &err), RESCUE_EIO);
  tu_write(tu_path(dir, "text.mp4"), "not a media file\n");
  ck_assert_int_eq(rescue_peaks_compute(tu_path(dir, "text.mp4"), &p, &err), RESCUE_EMEDIA);
}
END_TEST

/* ---- the endpoint ---- */

/* One GET with a bearer token on a fresh connection: the status; the body into *body. */
static int get(int port, const char *path, const char *tok, char **body) {
  tu_resp r = tu_http(port, "GET", path, tu_bearer(tok), NULL, 0);
  int status = r.status;
  *body = r.body;
  r.body = NULL;
  tu_resp_free(&r);
  return status;
}

/* The JSON object text parsed into d (d owns it). */
static const rescue_jnode *parse(rescue_jdoc *d, const char *text) {
  rescue_jerror je;
  const rescue_jnode *root = rescue_jparse(d, text, strlen(text), &je);
  ck_assert_msg(root != NULL, "not JSON: %s", text);
  return root;
}

/* The waveform's max array must be near want[0..n). */
static void wave_is(const char *body, const char *file, const double *want, int n) {
  rescue_jdoc *d = rescue_jdoc_new();
  const rescue_jnode *root = parse(d, body), *mx = rescue_jget(root, "max"), *f, *e;
  int i = 0;
  f = rescue_jget(root, "file");
  ck_assert_ptr_nonnull(f);
  ck_assert_str_eq(f->s, file);
  ck_assert_ptr_nonnull(mx);
  for (e = mx->child; e; e = e->next, i++) {
    ck_assert_int_lt(i, n);
    ck_assert_msg(e->num > want[i] - 0.06 && e->num < want[i] + 0.06, "bucket %d: %g, want %g", i,
                  e->num, want[i]);
  }
  ck_assert_int_eq(i, n);
  rescue_jdoc_free(&d);
}

/* What the first row of SAMPLE plays, as GET /api/samples/<id> names it. */
static char *first_kind(int port, const char *tok) {
  char *body, *k, *out;
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE, tok, &body), 200);
  k = strstr(body, "\"kind\": \"");
  ck_assert_msg(k != NULL, "no media kind: %.300s", body);
  k += 9;
  out = strndup(k, strcspn(k, "\""));
  free(body);
  return out;
}

START_TEST(test_endpoint) {
  rescue_store *st = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_serve_opts o = {0};
  rescue_server *srv = NULL;
  char tok_ann[65], tok_bob[65], tok_lea[65], path[4096], *body, *kind;
  char *db = tu_new_corpus(), *assets, *sdir;
  const double steps[3] = {0.25, 0.8, 0}, loud[3] = {0.5, 0.5, 0.5};
  int existed, port;
  struct stat sb;

  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  snprintf(path, sizeof path, "%s/tools/demo/family.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &err), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "ann", NULL, tok_ann, &existed), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "bob", NULL, tok_bob, &existed), 0);
  ck_assert_int_eq(rescue_annotator_add(st, "lea", "lead", tok_lea, &existed), 0);
  rescue_store_close(&st);
  /* every sample goes to ann: bob may not draw them */
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann", "--overlap", "0", NULL), 0);
  assets = strdup(tu_path(dir, "assets"));
  sdir = strdup(tu_path(assets, SAMPLE));
  make("steps.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=3 -f lavfi -i \"" STEPS
                    "\" -c:v libx264 -c:a aac -b:a 128k -shortest");
  tu_write(tu_path(sdir, "keep"), ""); /* makes the folder */
  ck_assert_int_eq(rename(tu_path(dir, "steps.mp4"), tu_path(sdir, "segment.mp4")), 0);
  o.db = db;
  o.listen = "127.0.0.1:0";
  o.assets = assets;
  ck_assert_msg(rescue_serve_start(&o, &srv, &err) == 0, "%s", err.msg);
  port = rescue_serve_port(srv);

  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_ann, &body),
                   200);
  wave_is(body, "segment", steps, 3);
  free(body);
  /* a lead may draw it too; bob, who has other work (none), may not */
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_lea, &body),
                   200);
  free(body);
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_bob, &body),
                   403);
  ck_assert_ptr_nonnull(strstr(body, "not assigned to bob"));
  free(body);
  /* a zoomed span, and bad arguments */
  ck_assert_int_eq(
      get(port, "/api/samples/" SAMPLE "/waveform?buckets=2&from=1&to=2", tok_ann, &body), 200);
  wave_is(body, "segment", (const double[]){0.8, 0.8}, 2);
  free(body);
  for (const char *const *q = (const char *const[]){"buckets=0", "buckets=abc", "buckets=9999999",
                                                    "buckets=2.5", "from=2&to=1", "from=-1", NULL};
       *q; q++) {
    snprintf(path, sizeof path, "/api/samples/" SAMPLE "/waveform?%s", *q);
    ck_assert_int_eq(get(port, path, tok_ann, &body), 400);
    ck_assert_ptr_nonnull(strstr(body, "\"error\""));
    free(body);
  }
  /* a sample without media, and one that does not exist */
  ck_assert_int_eq(get(port, "/api/samples/" OTHER "/waveform", tok_ann, &body), 404);
  ck_assert_msg(strstr(body, "--review-copy") != NULL, "%s", body);
  free(body);
  ck_assert_int_eq(get(port, "/api/samples/nope/waveform", tok_ann, &body), 404);
  free(body);

  /* the segment is recut louder: the cache follows the file, not its name */
  make("loud.mp4",
       "-f lavfi -i testsrc=size=64x48:rate=25:d=3 -f lavfi -i "
       "\"aevalsrc='0.5*sin(2*PI*440*t)':s=16000:d=3\" -c:v libx264 -c:a aac -shortest");
  ck_assert_int_eq(rename(tu_path(dir, "loud.mp4"), tu_path(sdir, "segment.mp4")), 0);
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_ann, &body),
                   200);
  wave_is(body, "segment", loud, 3);
  free(body);
  kind = first_kind(port, tok_ann);
  ck_assert_str_eq(kind, "segment");
  free(kind);

  /* a review copy newer than the segment takes over: rows play it, the time line draws it */
  make("review.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=3 -f lavfi -i \"" STEPS
                     "\" -c:v libx264 -g 25 -c:a aac -shortest");
  ck_assert_int_eq(rename(tu_path(dir, "review.mp4"), tu_path(sdir, "review.mp4")), 0);
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_ann, &body),
                   200);
  wave_is(body, "review", steps, 3);
  free(body);
  kind = first_kind(port, tok_ann);
  ck_assert_str_eq(kind, "review");
  free(kind);
  /* an older review copy (the segment was recut since) is not offered */
  ck_assert_int_eq(stat(tu_path(sdir, "segment.mp4"), &sb), 0);
  {
    struct timespec ts[2] = {{sb.st_mtim.tv_sec - 60, 0}, {sb.st_mtim.tv_sec - 60, 0}};
    ck_assert_int_eq(utimensat(AT_FDCWD, tu_path(sdir, "review.mp4"), ts, 0), 0);
  }
  kind = first_kind(port, tok_ann);
  ck_assert_str_eq(kind, "segment");
  free(kind);

  /* the older review copy is not drawn either: a segment that cannot be decoded is what the
     time line reads, and the client is told so without the server's file path */
  tu_write(tu_path(sdir, "segment.mp4"), "not a video at all\n");
  ck_assert_int_eq(get(port, "/api/samples/" SAMPLE "/waveform?buckets=3&to=3", tok_ann, &body),
                   500);
  ck_assert_msg(strstr(body, "cannot read the media of") != NULL, "%s", body);
  ck_assert_msg(strstr(body, dir) == NULL && strstr(body, "segment.mp4") == NULL, "%s", body);
  free(body);

  rescue_serve_stop(&srv);
  free(assets);
  free(sdir);
  free(db);
}
END_TEST

/* ---- the review copy ---- */

/* The keyframe times of path's video (ffprobe), up to max; their count. */
static int keyframes(const char *path, double *t, int max) {
  char cmd[4400], line[128];
  FILE *p;
  int n = 0;
  snprintf(cmd, sizeof cmd,
           "ffprobe -v error -select_streams v -skip_frame nokey -show_entries frame=pts_time "
           "-of csv=p=0 '%s'",
           path);
  ck_assert_ptr_nonnull(p = popen(cmd, "r"));
  while (fgets(line, sizeof line, p))
    if (line[0] >= '0' && line[0] <= '9' && n < max)
      t[n++] = atof(line);
  pclose(p);
  return n;
}

START_TEST(test_review_copy) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, path[4096];
  const char *src, *seg, *whole;
  double kt[64];
  struct stat a, b;
  int n, i;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  snprintf(path, sizeof path, "%s/tools/demo/family.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  /* 60 s with a keyframe every 10 s, as recordings often are */
  src = make("src.mp4", "-f lavfi -i testsrc=size=64x48:rate=25:d=60 -f lavfi -i "
                        "sine=frequency=440:duration=60 -c:v libx264 -g 250 -c:a aac -shortest");
  tu_link_media(db, src, SAMPLE, "5", "55");
  tu_link_media(db, src, OTHER, NULL, NULL);
  ck_assert_msg(tu_rescue(&out, &err, "clip", db, "--out", tu_path(dir, "assets"), "--review-copy",
                          NULL) == 0,
                "%s%s", out, err);
  free(out);
  free(err);
  seg = strdup(tu_path(dir, "assets/" SAMPLE "/review.mp4"));
  whole = strdup(tu_path(dir, "assets/" OTHER "/review.mp4"));
  /* the segment's span, and the whole source for a sample linked to the whole file */
  ck_assert_double_eq_tol(tu_ffprobe_duration(seg), 50.0, 0.1);
  ck_assert_double_eq_tol(tu_ffprobe_duration(whole), 60.0, 0.1);
  n = keyframes(seg, kt, 64);
  ck_assert_int_eq(n, 50);
  for (i = 0; i < n; i++)
    ck_assert_msg(fabs(kt[i] - i) < 0.001, "keyframe %d at %g s", i, kt[i]);
  ck_assert_int_eq(keyframes(whole, kt, 64), 60);
  /* a rerun keeps a current copy */
  ck_assert_int_eq(stat(seg, &a), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "clip", db, "--out", tu_path(dir, "assets"), "--review-copy", NULL), 0);
  ck_assert_int_eq(stat(seg, &b), 0);
  ck_assert_int_eq(a.st_mtim.tv_nsec, b.st_mtim.tv_nsec);
  ck_assert_int_eq(a.st_ino, b.st_ino);
  /* without the option no copy is written */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "clip", db, "--out", tu_path(dir, "plain"), NULL), 0);
  ck_assert_int_ne(stat(tu_path(dir, "plain/" SAMPLE "/review.mp4"), &a), 0);
  ck_assert_int_eq(stat(tu_path(dir, "plain/" SAMPLE "/segment.mp4"), &a), 0);
  /* the name is the folder's own: no sample may be called so */
  tu_write(tu_path(dir, "bad.jsonl"),
           "{\"sample_id\": \"g/review.mp4\", \"scenario\": \"couple\", \"rows\": []}\n");
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, tu_path(dir, "bad.jsonl"), NULL), 1);
  ck_assert_msg(strstr(err, "'review.mp4'") != NULL, "%s", err);
  free(err);
  free((char *)seg);
  free((char *)whole);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("waveform");
  TCase *tc = tcase_create("peaks");
  tcase_add_checked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_peaks_pcm);
  tcase_add_test(tc, test_peaks_mp4);
  tcase_add_test(tc, test_peaks_errors);
  tcase_add_test(tc, test_endpoint);
  tcase_add_test(tc, test_review_copy);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
