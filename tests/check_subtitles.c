/*
** check_subtitles.c: SRT and WebVTT parsing (tolerances and refusals), speaker prefixes,
** and `rescue import` of subtitles: cues, draft rows, warnings, store unchanged on errors.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

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
  const char *t =
      "\xEF\xBB\xBF"
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
  rescue_cues_clear(&c);
}
END_TEST

START_TEST(test_vtt_tolerances) {
  rescue_cues c;
  const char *t =
      "WEBVTT - a title\nKind: captions\n\n"
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
  rescue_cues_clear(&c);
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
    rescue_cues_clear(&c);
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
  rescue_cues_clear(&c);
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
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_cues c;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
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
  rescue_cues_clear(&c);
  rescue_store_close(&st);

  /* a second subtitle file for a sample that has rows: new cues, rows untouched */
  vtt = tu_path(dir, "seg01.vtt");
  tu_write(vtt,
           "WEBVTT\n\n00:01.000 --> 00:04.000\n<v Daniel>one\n\n00:04.000 --> 00:06.000\ntwo\n\n"
           "00:06.000 --> 00:08.000\nthree\n");
  ck_assert_int_eq(tu_rescue(&out, NULL, "import", db, vtt, "--sample", "couple_a/seg01", NULL), 0);
  ck_assert_msg(strstr(out, "(0 rows)") && strstr(out, "3 subtitle cues"), "%s", out);
  free(out);
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &e), 0);
  ck_assert_int_eq(rescue_sample_cues(st, "couple_a/seg01", &c), 0);
  ck_assert_int_eq(c.n, 3);
  ck_assert_str_eq(c.v[0].speaker, "Daniel");
  rescue_cues_clear(&c);
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
  tu_write(bad,
           "1\n00:00:01,000 --> 00:00:02,000\nfine\n\n2\n00:00:03,000 --> 00:00:02,000\nbad\n");
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, bad, "--sample", "other/seg", NULL), 1);
  ck_assert_msg(strstr(err, "rescue: import: ") &&
                    strstr(err, "bad.srt:6:1: cue 2: ends at 2.000 s"),
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

/*
** Draft rows as a real SRT gives them: ANNA and Anna one speaker (first spelling), a
** two-speaker cue split with proportional times, a cue without a speaker continuing the
** row before, sound descriptions out of the text, a cue of sounds only making no row; and
** every decision listed, as text and per cue in --json.
*/
START_TEST(test_draft_decisions) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db);
  const char *srt;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  const char *only[1] = {"anna_and_ben/seg01"};
  json_t *j, *cues, *c;
  json_error_t je;
  static const struct {
    double start, end;
    const char *speaker, *text;
  } want[] = {
      {1.0, 3.0, "Anna", "I told you already."},
      {3.5, 4.0, "Anna", "Hi."},
      {4.0, 6.5, "Ben", "I'm right here."},
      {7.0, 8.0, "Ben", "And you never listen."},
      {10.0, 12.0, "Therapist", "What do you hear?"},
      {12.5, 13.5, "Therapist", "No way."},
      {14.0, 15.0, "Ben", "Fine."},
  };
  size_t i;
  *strrchr(dir, '/') = 0;
  srt = tu_path(dir, "seg01.srt");
  tu_write(srt, "1\n00:00:01,000 --> 00:00:03,000\nAnna: I told you (crying) already.\n\n"
                "2\n00:00:03,500 --> 00:00:06,500\n- ANNA: Hi.\n- Ben: I'm right here.\n\n"
                "3\n00:00:07,000 --> 00:00:08,000\nAnd you never listen.\n\n"
                "4\n00:00:08,500 --> 00:00:09,500\n[laughs]\n\n"
                "5\n00:00:10,000 --> 00:00:12,000\nTHERAPIST: What do you hear?\n\n"
                "6\n00:00:12,500 --> 00:00:13,500\n[LAUGHS] No way.\n\n"
                "7\n00:00:14,000 --> 00:00:15,000\n[Ben] Fine.\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, srt, "--sample", "anna_and_ben/seg01", NULL),
                   0);
  ck_assert_msg(strstr(out, "seg01.srt:2: sound: cue 1: (crying) taken out of dialogue_cleaned"),
                "%s", out);
  ck_assert_msg(strstr(out, "seg01.srt:6: split: cue 2 has 2 speakers' turns: rows 2-3"), "%s",
                out);
  ck_assert_msg(strstr(out, "speaker_case: cue 2: speaker 'ANNA' taken as 'Anna'"), "%s", out);
  ck_assert_msg(strstr(out, "seg01.srt:11: continued: cue 3 has no speaker: row 4 continues 'Ben'"),
                "%s", out);
  ck_assert_msg(strstr(out, "sound_only: cue 4 holds no speech ([laughs]): no draft row"), "%s",
                out);
  ck_assert_msg(strstr(out, "sound: cue 6: [LAUGHS] taken out"), "%s", out);
  ck_assert_msg(strstr(out, "imported 1 sample (7 rows)") && strstr(out, "7 subtitle cues"), "%s",
                out);
  free(out);
  free(err);

  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &view, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_int_eq(s->n, 7);
  for (i = 0; i < sizeof want / sizeof want[0]; i++) {
    json_t *row = json_loadb(s->rows[i].content, s->rows[i].content_len, 0, &je);
    ck_assert_ptr_nonnull(row);
    ck_assert_msg(fabs(s->rows[i].start_time - want[i].start) < 1e-9 &&
                      fabs(s->rows[i].end_time - want[i].end) < 1e-9,
                  "row %zu: %g-%g", i + 1, s->rows[i].start_time, s->rows[i].end_time);
    ck_assert_str_eq(s->rows[i].speaker, want[i].speaker);
    ck_assert_str_eq(json_string_value(json_object_get(row, "dialogue_cleaned")), want[i].text);
    json_decref(row);
  }
  rescue_sample_iter_free(&it);
  {
    /* the stored cues keep their whole text; "[LAUGHS]" is not a speaker there either */
    rescue_cues cs;
    ck_assert_int_eq(rescue_sample_cues(st, "anna_and_ben/seg01", &cs), 0);
    ck_assert_int_eq(cs.n, 7);
    ck_assert_str_eq(cs.v[0].text, "I told you (crying) already.");
    ck_assert_str_eq(cs.v[5].speaker, "");
    ck_assert_str_eq(cs.v[5].text, "[LAUGHS] No way.");
    ck_assert_str_eq(cs.v[6].speaker, "Ben");
    rescue_cues_clear(&cs);
  }
  rescue_store_close(&st);

  /* --json: one entry per cue with its rows and decisions (a second sample, same file) */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, srt, "--sample", "anna_and_ben/seg02", "--json", NULL),
      0);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "%s", out);
  cues = json_object_get(j, "subtitle_cues");
  ck_assert_int_eq(json_array_size(cues), 7);
  c = json_array_get(cues, 1);
  ck_assert_int_eq(json_integer_value(json_object_get(c, "cue")), 2);
  ck_assert_int_eq(json_array_size(json_object_get(c, "rows")), 2);
  ck_assert_str_eq(json_string_value(
                       json_object_get(json_array_get(json_object_get(c, "decisions"), 0), "kind")),
                   "split");
  ck_assert_str_eq(
      json_string_value(json_object_get(json_array_get(json_object_get(c, "decisions"), 1), "was")),
      "ANNA");
  c = json_array_get(cues, 3);
  ck_assert_int_eq(json_array_size(json_object_get(c, "rows")), 0);
  ck_assert_str_eq(json_string_value(
                       json_object_get(json_array_get(json_object_get(c, "decisions"), 0), "kind")),
                   "sound_only");
  c = json_array_get(cues, 6);
  ck_assert_int_eq(json_array_size(json_object_get(c, "decisions")), 0);
  ck_assert_int_eq(json_integer_value(json_object_get(j, "rows")), 7);
  json_decref(j);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/* Speakers are matched against the participants a sample already gives (their spelling). */
START_TEST(test_draft_given_participants) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db);
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  const char *only[1] = {"g/seg"};
  *strrchr(dir, '/') = 0;
  tu_write(tu_path(dir, "s.json"), "{\"sample_id\": \"g/seg\", \"participants\": [\"Mary Ann\"]}");
  tu_write(tu_path(dir, "s.srt"), "1\n00:00:01,000 --> 00:00:02,000\nMARYANN: Yes.\n\n"
                                  "2\n00:00:02,000 --> 00:00:03,000\nmary ann: No.\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "s.json"), NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "s.srt"), "--sample", "g/seg", NULL), 0);
  ck_assert_msg(strstr(out, "speaker 'MARYANN' taken as 'Mary Ann'"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &view, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_int_eq(s->n, 2);
  ck_assert_str_eq(s->rows[0].speaker, "Mary Ann");
  ck_assert_str_eq(s->rows[1].speaker, "Mary Ann");
  rescue_sample_iter_free(&it);
  rescue_store_close(&st);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/* WebVTT: a second <v Name> in a cue is another speaker's turn, so the draft splits there. */
START_TEST(test_vtt_voices_split) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db);
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  const char *only[1] = {"g/v"};
  *strrchr(dir, '/') = 0;
  tu_write(tu_path(dir, "v.vtt"), "WEBVTT\n\n00:01.000 --> 00:04.000\n<v Anna>Where were you?</v>\n"
                                  "<v Ben>At work.\n\n00:05.000 --> 00:06.000\n<v ANNA>Again.\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "v.vtt"), "--sample", "g/v", NULL), 0);
  ck_assert_msg(strstr(out, "v.vtt:3: split: cue 1 has 2 speakers' turns: rows 1-2"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_sample_iter_new(st, &view, only, 1, &it), 0);
  ck_assert_int_eq(rescue_sample_iter_next(it, &s), 1);
  ck_assert_int_eq(s->n, 3);
  ck_assert_str_eq(s->rows[0].speaker, "Anna");
  ck_assert_str_eq(s->rows[1].speaker, "Ben");
  ck_assert_str_eq(s->rows[2].speaker, "Anna");
  /* 15 and 8 characters share 3 s: 1.0-2.957 and 2.957-4.0 */
  ck_assert(fabs(s->rows[0].end_time - 2.957) < 1e-9 &&
            s->rows[1].start_time == s->rows[0].end_time);
  ck_assert(s->rows[1].end_time == 4.0);
  rescue_sample_iter_free(&it);
  rescue_store_close(&st);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/*
** The parser is linear in its input: 2 MB cues of unclosed '<' and '{\' once took a
** minute (each one rescanned the rest of the cue). The alarm fails the test long before
** that; the text must come through whole.
*/
START_TEST(test_parse_linear) {
  size_t n = 2u << 20, i, k;
  static const char *const fill[] = {"<", "{\\", "(", "["};
  for (k = 0; k < sizeof fill / sizeof fill[0]; k++) {
    size_t fl = strlen(fill[k]), head = strlen("1\n00:00:01,000 --> 00:00:02,000\n");
    char *t = malloc(head + n + 2);
    rescue_cues c;
    rescue_error e = RESCUE_ERROR_INIT;
    ck_assert_ptr_nonnull(t);
    memcpy(t, "1\n00:00:01,000 --> 00:00:02,000\n", head);
    for (i = 0; i + fl <= n; i += fl)
      memcpy(t + head + i, fill[k], fl);
    t[head + i] = '\n';
    alarm(20);
    ck_assert_int_eq(rescue_subtitles_parse("big.srt", t, head + i + 1, 0, &c, &e), 0);
    alarm(0);
    ck_assert_int_eq(c.n, 1);
    ck_assert_uint_eq(strlen(c.v[0].text), i);
    rescue_cues_clear(&c);
    free(t);
  }
}
END_TEST

/*
** The draft-making pass (turns, sounds) is linear too: one 256 KB cue of 24,000 "- A:"
** turns, each with an unclosed '(' and '[', makes its rows well within the alarm.
*/
START_TEST(test_draft_linear) {
  char *db = tu_new_corpus(), *out = NULL, *err = NULL, *dir = strdup(db), *t;
  size_t n = 256u << 10, i, head;
  const char *unit = "- A: (x [y ";
  *strrchr(dir, '/') = 0;
  head = strlen("1\n00:00:01,000 --> 00:01:00,000\n");
  t = malloc(head + n + 2);
  ck_assert_ptr_nonnull(t);
  memcpy(t, "1\n00:00:01,000 --> 00:01:00,000\n", head);
  for (i = 0; i + strlen(unit) <= n; i += strlen(unit))
    memcpy(t + head + i, unit, strlen(unit));
  t[head + i] = '\n';
  tu_write_n(tu_path(dir, "big.srt"), t, head + i + 1);
  free(t);
  alarm(60);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "big.srt"), "--sample", "g/big", NULL), 0);
  alarm(0);
  ck_assert_msg(strstr(out, "split: cue 1 has"), "%.200s", out);
  free(out);
  free(err);
  rescue_remove_tree(dir);
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
  tcase_add_test(tc, test_draft_decisions);
  tcase_add_test(tc, test_draft_given_participants);
  tcase_add_test(tc, test_vtt_voices_split);
  tcase_add_test(tc, test_parse_linear);
  tcase_add_test(tc, test_draft_linear);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
