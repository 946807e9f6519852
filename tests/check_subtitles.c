/*
** check_subtitles.c: SRT and WebVTT parsing (tolerances and refusals), speaker prefixes,
** and `rescue import` of subtitles: cues, draft rows, warnings, store unchanged on errors.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Parse text; returns the error message (static) or NULL, cues in *out. */
static const char *parse(const char *text, int vtt, rescue_cues *out) {
  static rescue_error e;
  memset(&e, 0, sizeof e);
  if (rescue_subtitles_parse("t.sub", text, strlen(text), vtt, out, &e))
    return e.msg;
  return NULL;
}

START_TEST(test_srt_tolerances) {
  rescue_cues c;
  /* BOM, CRLF, ',' and '.', hours over 99, coordinates, no final blank line, markup */
  const char *t = "\xEF\xBB\xBF"
                  "1\r\n00:00:01,000 --> 00:00:03,500\r\nTHERAPIST: So what brings you here?\r\n\r\n"
                  "2\r\n00:00:03.2 --> 00:00:06,000 X1:10 X2:20 Y1:5 Y2:9\r\n[Maya] <i>He never</i>"
                  "\r\nlistens &amp; never {\\an8}stops.\r\n\r\n"
                  "3\r\n123:04:05,678 --> 123:04:07,000\r\nDaniel: That is not true.";
  const char *msg = parse(t, 0, &c);
  ck_assert_msg(msg == NULL, "%s", msg);
  ck_assert_int_eq(c.n, 3);
  ck_assert_int_eq(c.reordered, 0);
  ck_assert(c.v[0].start == 1.0 && c.v[0].end == 3.5);
  ck_assert_str_eq(c.v[0].speaker, "Therapist");
  ck_assert_str_eq(c.v[0].text, "So what brings you here?");
  ck_assert(c.v[1].start == 3.2 && c.v[1].end == 6.0);
  ck_assert_str_eq(c.v[1].speaker, "Maya");
  ck_assert_str_eq(c.v[1].text, "He never listens & never stops.");
  ck_assert_int_eq(c.v[1].line, 6);
  ck_assert(fabs(c.v[2].start - (123 * 3600 + 4 * 60 + 5.678)) < 1e-9);
  ck_assert_str_eq(c.v[2].speaker, "Daniel");
  ck_assert_int_eq(c.v[2].number, 3);
  rescue_cues_free(&c);
}
END_TEST

START_TEST(test_vtt_tolerances) {
  rescue_cues c;
  const char *t = "WEBVTT - a title\nKind: captions\n\n"
                  "NOTE a comment\nthat spans lines\n\nSTYLE\n::cue { color: red }\n\n"
                  "intro\n00:01.000 --> 00:02.500 align:start position:10%\n"
                  "<v Therapist>Hello, <b>welcome</b>.\n\n"
                  "00:00:02.000 --> 00:00:04.000 line:0\n<v.loud Maya Lee>We came <00:00:03.000>because...\n\n"
                  "NOTE\n\n"
                  "00:03.000 --> 00:05.000\ntherapist: (overlapping) go on\n\n"
                  "00:04.000 --> 00:04.000\nzero length is fine\n";
  const char *msg = parse(t, 1, &c);
  ck_assert_msg(msg == NULL, "%s", msg);
  ck_assert_int_eq(c.n, 4);
  ck_assert_str_eq(c.v[0].speaker, "Therapist");
  ck_assert_str_eq(c.v[0].text, "Hello, welcome.");
  ck_assert_str_eq(c.v[1].speaker, "Maya Lee");
  ck_assert_str_eq(c.v[1].text, "We came because...");
  /* overlapping cues are kept, in order */
  ck_assert(c.v[2].start == 3.0 && c.v[2].end == 5.0);
  ck_assert_str_eq(c.v[2].speaker, "Therapist");
  ck_assert_str_eq(c.v[2].text, "(overlapping) go on");
  ck_assert(c.v[3].start == 4.0 && c.v[3].end == 4.0);
  ck_assert_str_eq(c.v[3].speaker, "");
  rescue_cues_free(&c);
}
END_TEST

START_TEST(test_speaker_prefixes) {
  static const struct {
    const char *line, *speaker, *text;
  } cases[] = {
      {"Maya: I know.", "Maya", "I know."},
      {"[Daniel] Fine.", "Daniel", "Fine."},
      {"[THERAPIST]: Okay.", "Therapist", "Okay."},
      {"tHeRaPiSt: Okay.", "Therapist", "Okay."},
      {"Dr. Ann Smith: Welcome back.", "Dr. Ann Smith", "Welcome back."},
      {"No prefix here.", "", "No prefix here."},
      {"We met at 10:30 that day.", "", "We met at 10:30 that day."},
      {"This sentence is far too long to be a name: it has words.", "",
       "This sentence is far too long to be a name: it has words."},
      {"\xc3\x89lodie: Bonjour.", "\xc3\x89lodie", "Bonjour."},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char text[256];
    rescue_cues c;
    const char *msg;
    snprintf(text, sizeof text, "1\n00:00:00,000 --> 00:00:01,000\n%s\n", cases[i].line);
    msg = parse(text, 0, &c);
    ck_assert_msg(msg == NULL, "%s", msg);
    ck_assert_msg(strcmp(c.v[0].speaker, cases[i].speaker) == 0, "'%s': speaker '%s'",
                  cases[i].line, c.v[0].speaker);
    ck_assert_str_eq(c.v[0].text, cases[i].text);
    rescue_cues_free(&c);
  }
}
END_TEST

START_TEST(test_out_of_order_sorted) {
  rescue_cues c;
  const char *t = "1\n00:00:05,000 --> 00:00:06,000\nthird\n\n"
                  "2\n00:00:01,000 --> 00:00:02,000\nfirst\n\n"
                  "3\n00:00:03,000 --> 00:00:04,000\nsecond\n\n"
                  "4\n00:00:03,000 --> 00:00:03,500\nsecond too\n";
  const char *msg = parse(t, 0, &c);
  ck_assert_msg(msg == NULL, "%s", msg);
  ck_assert_int_eq(c.reordered, 1);
  ck_assert_int_eq(c.first_late, 2);
  ck_assert_int_eq(c.first_late_line, 6);
  ck_assert_str_eq(c.v[0].text, "first");
  ck_assert_str_eq(c.v[1].text, "second");
  ck_assert_str_eq(c.v[2].text, "second too"); /* equal starts keep file order */
  ck_assert_str_eq(c.v[3].text, "third");
  rescue_cues_free(&c);
}
END_TEST

START_TEST(test_refusals) {
  static const struct {
    const char *text;
    int vtt;
    const char *msg;
  } bad[] = {
      {"1\n00:00:01,000 -> 00:00:02,000\nx\n", 0,
       "t.sub:2:1: cue 1: bad timing line '00:00:01,000 -> 00:00:02,000'"},
      {"1\n00:00:01,000 --> 00:00:02,000\nok\n\n7\n00:00:05,000 --> 00:00:04,999\nbad\n", 0,
       "t.sub:6:1: cue 7: ends at 4.999 s, before it starts (5.000 s)"},
      {"1\n00:00:01,000 --> 00:00:02,000\nok\n\n2\n00:61:00,000 --> 00:62:00,000\nx\n", 0,
       "t.sub:6:1: cue 2: bad timing line"},
      {"1\n00:00:01,0000 --> 00:00:02,000\nx\n", 0, "t.sub:2:1: cue 1: bad timing line"},
      {"1\n00:00:01,000 --> 00:00:02,000junk\nx\n", 0, "t.sub:2:1: cue 1: bad timing line"},
      {"hello\nworld\n", 0, "t.sub:1:1: cue 1: expected a cue number or a timing line"},
      {"5\n", 0, "t.sub:1:1: cue 5: no timing line"},
      {"", 0, "t.sub: no cues in this file"},
      {"\n\n  \n", 0, "t.sub: no cues in this file"},
      {"1\n00:00:01,000 --> 00:00:02,000\ncaf\xe9\n", 0, "t.sub:3:4: invalid UTF-8"},
      {"00:01.000 --> 00:02.000\nx\n", 1, "t.sub:1:1: not a WebVTT file"},
      {"WEBVTTX\n\n00:01.000 --> 00:02.000\nx\n", 1, "t.sub:1:1: not a WebVTT file"},
      {"WEBVTT\n\nid\nnot a timing line\n", 1, "t.sub:4:1: cue 1: bad timing line"},
      {"WEBVTT\n\n00:02.000 --> 00:01.000\nx\n", 1, "t.sub:3:1: cue 1: ends at 1.000 s"},
  };
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    rescue_cues c;
    const char *msg = parse(bad[i].text, bad[i].vtt, &c);
    ck_assert_msg(msg != NULL, "case %zu parsed", i);
    ck_assert_msg(strncmp(msg, bad[i].msg, strlen(bad[i].msg)) == 0, "case %zu: '%s'", i, msg);
    ck_assert_ptr_null(c.v);
  }
}
END_TEST

/* Run the CLI on a corpus copy check: the store must be byte-identical after a refusal. */
START_TEST(test_import_cli) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db), copy[4096];
  const char *srt, *vtt, *bad;
  rescue_store *st = NULL;
  rescue_error e = {0, ""};
  rescue_cues c;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {RESCUE_VIEW_CORPUS, 0};
  const char *only[1] = {"couple_a/seg01"};
  *strrchr(dir, '/') = 0;
  srt = tu_path(dir, "seg01.srt");
  tu_write(srt, "1\n00:00:05,000 --> 00:00:07,000\nMaya: later\n\n"
                "2\n00:00:01,000 --> 00:00:04,500\n[therapist] earlier\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, srt, "--sample", "couple_a/seg01", NULL), 0);
  ck_assert_msg(strstr(out, "2 rows") && strstr(out, "2 subtitle cues"), "%s", out);
  ck_assert_msg(strstr(err, "rescue: import: warning: ") && strstr(err, "seg01.srt:6:1: cue 2"),
                "%s", err);
  free(out);
  free(err);

  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &view, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_int_eq(s->n, 2);
  ck_assert(s->rows[0].start_time == 1.0 && s->rows[0].end_time == 4.5);
  ck_assert_str_eq(s->rows[0].speaker, "Therapist");
  ck_assert_str_eq(s->rows[0].content,
                   "{\"start_time\": 1.0, \"end_time\": 4.5, \"primary_speaker\": \"Therapist\", "
                   "\"target\": [], \"dialogue_cleaned\": \"earlier\", \"utterance_type\": \"\", "
                   "\"background_dialogue\": [], \"tone_of_voice\": \"\", \"body_posture\": [], "
                   "\"facial_expressions\": [], \"self_directed_behavior\": [], "
                   "\"interaction_behavior\": [], \"internal_emotion\": [], "
                   "\"viewpoints_attitudes\": [], \"support_strategy\": [], \"row_index\": 1}");
  rescue_sample_iter_free(&it);
  ck_assert_int_eq(rescue_sample_cues(st, "couple_a/seg01", &c), 0);
  ck_assert_int_eq(c.n, 2);
  ck_assert_str_eq(c.v[1].text, "later");
  rescue_cues_free(&c);
  rescue_store_close(&st);

  /* a second subtitle file for a sample that has rows: new cues, rows untouched */
  vtt = tu_path(dir, "seg01.vtt");
  tu_write(vtt, "WEBVTT\n\n00:01.000 --> 00:04.000\n<v Daniel>one\n\n00:04.000 --> 00:06.000\ntwo\n\n"
                "00:06.000 --> 00:08.000\nthree\n");
  ck_assert_int_eq(tu_rescue(&out, NULL, "import", db, vtt, "--sample", "couple_a/seg01", NULL), 0);
  ck_assert_msg(strstr(out, "(0 rows)") && strstr(out, "3 subtitle cues"), "%s", out);
  free(out);
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &e), 0);
  ck_assert_int_eq(rescue_sample_cues(st, "couple_a/seg01", &c), 0);
  ck_assert_int_eq(c.n, 3);
  ck_assert_str_eq(c.v[0].speaker, "Daniel");
  rescue_cues_free(&c);
  ck_assert_int_eq(rescue_sample_iter_new(st, &view, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_int_eq(s->n, 2);
  rescue_sample_iter_free(&it);
  rescue_store_close(&st);

  /* refusals leave the store byte-identical */
  snprintf(copy, sizeof copy, "%s.copy", db);
  tu_write_n(copy, "", 0);
  {
    size_t n;
    char *bytes = tu_read(db, &n);
    tu_write_n(copy, bytes, n);
    free(bytes);
  }
  bad = tu_path(dir, "bad.srt");
  tu_write(bad, "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:03,000 --> 00:00:02,000\nbad\n");
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, bad, "--sample", "other/seg", NULL), 1);
  ck_assert_msg(strstr(err, "rescue: import: ") && strstr(err, "bad.srt:6:1: cue 2: ends at 2.000 s"),
                "%s", err);
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, srt, NULL), 2);
  ck_assert_msg(strstr(err, "give --sample"), "%s", err);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, srt, "--sample", "../x", NULL), 2);
  ck_assert_msg(strstr(err, "unsafe sample_id"), "%s", err);
  free(err);
  ck_assert(tu_same_file(db, copy));
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("subtitles");
  TCase *tc = tcase_create("subtitles");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_srt_tolerances);
  tcase_add_test(tc, test_vtt_tolerances);
  tcase_add_test(tc, test_speaker_prefixes);
  tcase_add_test(tc, test_out_of_order_sorted);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_import_cli);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
