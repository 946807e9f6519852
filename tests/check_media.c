/*
** check_media.c: probing (mp4, MKV, MPEG-TS, audio-only, not media), the fingerprint
** against an independent computation, `rescue media add` (one link, spans, maps, bad
** input with file:line:column and the store unchanged, relinking history, media roots)
** and `rescue media list` (ok, missing, changed, unlinked).
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

static char *media_dir; /* made once in main(): src.mp4, src.mkv, src.ts, voice.m4a */

static const char *media(const char *name) { return tu_path(media_dir, name); }

START_TEST(test_probe) {
  rescue_media_info mi;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_buf js = RESCUE_BUF_INIT;
  ck_assert_int_eq(rescue_media_probe(media("src.mp4"), &mi, &e), 0);
  ck_assert_msg(strstr(mi.container, "mp4") != NULL, "%s", mi.container);
  ck_assert_msg(fabs(mi.duration - 4.0) < 0.06, "%f", mi.duration);
  ck_assert_int_ge(mi.video, 0);
  ck_assert_int_ge(mi.audio, 0);
  ck_assert_str_eq(mi.streams[mi.video].codec, "h264");
  ck_assert_int_eq(mi.streams[mi.video].width, 160);
  ck_assert_int_eq(mi.streams[mi.video].height, 96);
  ck_assert(fabs(mi.streams[mi.video].fps - 25.0) < 1e-9);
  ck_assert_str_eq(mi.streams[mi.audio].codec, "aac");
  ck_assert_int_eq(mi.streams[mi.audio].sample_rate, 44100);
  ck_assert_int_eq(mi.streams[mi.audio].channels, 2);
  rescue_media_streams_json(&mi, &js);
  ck_assert_str_eq(js.s,
                   "[{\"index\": 0, \"type\": \"video\", \"codec\": \"h264\", \"width\": 160, "
                   "\"height\": 96, \"fps\": 25.0}, {\"index\": 1, \"type\": \"audio\", "
                   "\"codec\": \"aac\", \"sample_rate\": 44100, \"channels\": 2}]");
  rescue_buf_clear(&js);

  ck_assert_int_eq(rescue_media_probe(media("src.mkv"), &mi, &e), 0);
  ck_assert_str_eq(mi.container, "matroska,webm");
  ck_assert_int_eq(rescue_media_probe(media("src.ts"), &mi, &e), 0);
  ck_assert_str_eq(mi.container, "mpegts");
  ck_assert_msg(mi.start_time > 9.9 && mi.start_time < 10.2, "MPEG-TS start time %f",
                mi.start_time);
  ck_assert_msg(fabs(mi.duration - 4.0) < 0.1, "%f", mi.duration);
  ck_assert_int_eq(rescue_media_probe(media("voice.m4a"), &mi, &e), 0);
  ck_assert_int_eq(mi.video, -1);
  ck_assert_int_ge(mi.audio, 0);

  tu_write(media("notes.mp4"), "these are not moving pictures\n");
  ck_assert_int_eq(rescue_media_probe(media("notes.mp4"), &mi, &e), RESCUE_EMEDIA);
  ck_assert_msg(strstr(e.msg, "notes.mp4' is not a media file"), "%s", e.msg);
  ck_assert_int_eq(rescue_media_probe(media("absent.mp4"), &mi, &e), RESCUE_EIO);
  ck_assert_msg(strstr(e.msg, "cannot open"), "%s", e.msg);
}
END_TEST

/*
** SHA-256 of (size as 8 bytes LE, first MiB, last MiB) computed independently: the bytes
** go to a file that coreutils' sha256sum reads.
*/
static void expected_fp(const unsigned char *d, size_t n, char hex[65]) {
  unsigned char le[8];
  size_t mib = 1 << 20, i, head = n < mib ? n : mib;
  char *dir = tu_tmpdir(), cmd[4300];
  const char *path = tu_path(dir, "fp.bin");
  FILE *f;
  for (i = 0; i < 8; i++)
    le[i] = (unsigned char)((uint64_t)n >> (8 * i));
  f = fopen(path, "wb");
  ck_assert_ptr_nonnull(f);
  fwrite(le, 1, 8, f);
  fwrite(d, 1, head, f);
  fwrite(d + (n > mib ? n - mib : 0), 1, head, f);
  fclose(f);
  snprintf(cmd, sizeof cmd, "sha256sum '%s'", path);
  f = popen(cmd, "r");
  ck_assert_ptr_nonnull(f);
  ck_assert_int_eq(fscanf(f, "%64s", hex), 1);
  ck_assert_int_eq(pclose(f), 0);
  rescue_remove_tree(dir);
  free(dir);
}

START_TEST(test_fingerprint) {
  size_t n = 3 * (1 << 20) + 12345, i;
  unsigned char *d = malloc(n);
  char want[65], got[65];
  int64_t size = 0;
  rescue_error e = RESCUE_ERROR_INIT;
  const char *p = media("big.bin");
  for (i = 0; i < n; i++)
    d[i] = (unsigned char)(i * 2654435761u >> 13);
  tu_write_n(p, d, n);
  expected_fp(d, n, want);
  ck_assert_int_eq(rescue_media_fingerprint(p, &size, got, &e), 0);
  ck_assert_str_eq(got, want);
  ck_assert_int_eq(size, (int64_t)n);
  /* a change at the end shows; one in the middle (outside both MiB) does not, by design */
  d[n - 1] ^= 1;
  tu_write_n(p, d, n);
  ck_assert_int_eq(rescue_media_fingerprint(p, NULL, got, &e), 0);
  ck_assert_str_ne(got, want);
  expected_fp(d, n, want);
  ck_assert_str_eq(got, want);
  d[n / 2] ^= 1;
  tu_write_n(p, d, n);
  ck_assert_int_eq(rescue_media_fingerprint(p, NULL, got, &e), 0);
  ck_assert_str_eq(got, want);
  /* small files: the whole file, hashed twice (first and last MiB overlap) */
  tu_write(p, "abc");
  expected_fp((const unsigned char *)"abc", 3, want);
  ck_assert_int_eq(rescue_media_fingerprint(p, NULL, got, &e), 0);
  ck_assert_str_eq(got, want);
  free(d);
}
END_TEST

/* A corpus in a fresh folder with src.mp4 copied beside it; returns the db path. */
static char *corpus_with_video(char **dir_out) {
  char *db = tu_new_corpus(), *dir = strdup(db);
  size_t n;
  char *bytes = tu_read(media("src.mp4"), &n);
  *strrchr(dir, '/') = 0;
  tu_write_n(tu_path(dir, "videos/ep1.mp4"), bytes, n);
  free(bytes);
  *dir_out = dir;
  return db;
}

START_TEST(test_add_and_list) {
  char *dir, *db = corpus_with_video(&dir), *out = NULL, *err = NULL, video[4096], copy[4096];
  snprintf(video, sizeof video, "%s", tu_path(dir, "videos/ep1.mp4"));
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", db, video, "--sample", "c/s1", "--start",
                             "0.5", "--end", "3.5", NULL),
                   0);
  ck_assert_msg(strstr(out, "1 source probed (1 new, 0 already known); 1 sample linked (1 new, "
                            "empty sample)"),
                "%s", out);
  free(out);
  free(err);
  /* the same link again changes nothing */
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "add", db, video, "--sample", "c/s1", "--start",
                             "0.5", "--end", "3.5", NULL),
                   0);
  ck_assert_msg(strstr(out, "0 samples linked, 1 unchanged"), "%s", out);
  free(out);
  /* relinking keeps history; the whole file */
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "add", db, video, "--sample", "c/s1", NULL), 0);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "list", db, NULL), 0);
  ck_assert_msg(strstr(out, "ok       c/s1") && strstr(out, "whole (4.0") &&
                    strstr(out, "videos/ep1.mp4") && strstr(out, "(relinked 1 time)") &&
                    strstr(out, "0 problems"),
                "%s", out);
  free(out);
  free(err);

  /* refusals: the store stays byte-identical */
  tu_snapshot(db, copy, sizeof copy);
  {
    const char *a1[] = {"media",   "add", db,      video, "--sample", "c/s2",
                        "--start", "1",   "--end", "9",   NULL};
    err = tu_run_err(1, a1);
    ck_assert_msg(strstr(err, "rescue: media add: end 9.000 s is past the end of"), "%s", err);
    free(err);
  }
  {
    const char *a2[] = {"media", "add", db, video, "--start", "1", "--end", "2", NULL};
    err = tu_run_err(2, a2);
    ck_assert_msg(strstr(err, "--start and --end need --sample"), "%s", err);
    free(err);
  }
  {
    const char *a3[] = {"media", "add", db, video, "--sample", "c/s2", "--start", "1", NULL};
    err = tu_run_err(2, a3);
    ck_assert_msg(strstr(err, "both --start and --end"), "%s", err);
    free(err);
  }
  tu_write(tu_path(dir, "videos/notes.mp4"), "not a video at all");
  {
    const char *a4[] = {"media",    "add",  db,  tu_path(dir, "videos/notes.mp4"),
                        "--sample", "c/s3", NULL};
    err = tu_run_err(1, a4);
    ck_assert_msg(strstr(err, "notes.mp4' is not a media file"), "%s", err);
    free(err);
  }
  {
    const char *a5[] = {"media", "add", db, tu_path(dir, "videos/none.mp4"), NULL};
    err = tu_run_err(1, a5);
    ck_assert_msg(strstr(err, "cannot open") && strstr(err, "none.mp4"), "%s", err);
    free(err);
  }
  ck_assert(tu_same_file(db, copy));

  /* missing and changed files; a source no sample uses */
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "add", db, video, NULL), 0);
  free(out);
  rename(video, tu_path(dir, "videos/moved.mp4"));
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "list", db, NULL), 0);
  ck_assert_msg(strstr(out, "missing  c/s1") && strstr(out, "1 problem "), "%s", out);
  free(out);
  rename(tu_path(dir, "videos/moved.mp4"), video);
  {
    FILE *f = fopen(video, "ab");
    fputc(0, f);
    fclose(f);
  }
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "list", db, NULL), 0);
  ck_assert_msg(strstr(out, "changed  c/s1") && strstr(out, "bytes, was"), "%s", out);
  free(out);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_map) {
  char *dir, *db = corpus_with_video(&dir), *out = NULL, *err = NULL, copy[4096];
  const char *map = tu_path(dir, "videos/map.tsv");
  tu_write(map, "sample_id\tvideo\tstart\tend\n"
                "# one episode, two scenes and a whole-file sample\n"
                "c/s1\tep1.mp4\t0.5\t2\n"
                "c/s2\tep1.mp4\t0:02.000\t0:03,5\n"
                "\n"
                "c/s3\tep1.mp4\t\t\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", db, "--map", map, NULL), 0);
  ck_assert_msg(strstr(out, "3 samples linked (3 new, empty samples)"), "%s%s", out, err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "list", db, NULL), 0);
  ck_assert_msg(strstr(out, "c/s2") && strstr(out, "2.000-3.500") && strstr(out, "whole"), "%s",
                out);
  free(out);

  tu_snapshot(db, copy, sizeof copy);
  {
    static const struct {
      const char *text, *msg;
    } bad[] = {
        {"c/s4\tep1.mp4\t1\n", "map.tsv:1:1: expected 4 tab-separated columns (sample_id, video, "
                               "start, end), found 3"},
        {"c/s4\tep1.mp4\t1\t2\nc/s5\tep1.mp4\tabc\t2\n", "map.tsv:2:14: start 'abc' is not a time"},
        {"c/s4\tep1.mp4\t3\t2\n", "map.tsv:1:16: end 2 is not after start 3"},
        {"c/s4\tep1.mp4\t\t2\n", "map.tsv:1:14: start and end must both be given"},
        {"../up\tep1.mp4\t1\t2\n", "map.tsv:1:1: unsafe sample_id '../up'"},
        {"c/s4\tep1.mp4\t1\t2\nc/s5\tmissing.mp4\t1\t2\n", "map.tsv:2:6: cannot open"},
        {"c/s4\tep1.mp4\t1\t2\nc/s4\tep1.mp4\t2\t3\n",
         "map.tsv:2:1: sample 'c/s4' is linked twice"},
        {"c/s4\tep1.mp4\t1\t12\n", "map.tsv:1:16: end 12.000 s is past the end"},
        {"c/s4\t\t1\t2\n", "map.tsv:1:6: empty video path"},
        {"# nothing\n", "map.tsv: no links in the map"},
    };
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      const char *argv[] = {"media", "add", db, "--map", map, NULL};
      tu_write(map, bad[i].text);
      err = tu_run_err(1, argv);
      ck_assert_msg(strstr(err, bad[i].msg) && strncmp(err, "rescue: media add: ", 19) == 0,
                    "case %zu: %s", i, err);
      free(err);
      ck_assert_msg(tu_same_file(db, copy), "case %zu changed the store", i);
    }
  }
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_media_root_moves) {
  char *dir, *db = corpus_with_video(&dir), *out = NULL, *err = NULL, moved[4096], mdb[4200];
  char *outside = tu_tmpdir();
  size_t n;
  char *bytes = tu_read(media("src.mp4"), &n);
  tu_write_n(tu_path(outside, "far.mp4"), bytes, n);
  free(bytes);
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", db, tu_path(dir, "videos/ep1.mp4"),
                             "--sample", "c/s1", "--media-root", tu_path(dir, "videos"), NULL),
                   0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "add", db, tu_path(outside, "far.mp4"),
                             "--sample", "c/s2", NULL),
                   0);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "list", db, NULL), 0);
  /* under the root: relative to it; elsewhere: absolute */
  ck_assert_msg(strstr(out, " ep1.mp4\n") && strstr(out, outside), "%s", out);
  free(out);
  /* the corpus folder moves with its videos: still found */
  snprintf(moved, sizeof moved, "%s-moved", dir);
  ck_assert_int_eq(rename(dir, moved), 0);
  snprintf(mdb, sizeof mdb, "%s/c.db", moved);
  ck_assert_int_eq(tu_rescue(&out, NULL, "media", "list", mdb, NULL), 0);
  ck_assert_msg(strstr(out, "ok       c/s1") && strstr(out, "ok       c/s2") &&
                    strstr(out, "0 problems"),
                "%s", out);
  free(out);
  free(db);
  free(dir);
  free(outside);
}
END_TEST

int main(void) {
  Suite *s = suite_create("media");
  TCase *tc = tcase_create("media");
  media_dir = tu_make_media("media", 0, "src.mp4", "src.mkv", "src.ts", "voice.m4a", NULL);
  if (!media_dir)
    return 1;
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_probe);
  tcase_add_test(tc, test_fingerprint);
  tcase_add_test(tc, test_add_and_list);
  tcase_add_test(tc, test_map);
  tcase_add_test(tc, test_media_root_moves);
  suite_add_tcase(s, tc);
  return tu_run_media_suite(s, media_dir); /* and removes the generated sources */
}
