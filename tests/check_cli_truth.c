/*
** check_cli_truth.c: what the command line tells its users is true and complete (issue 26):
** ELAN imports name the annotator they write for and list what they left out, `rescue log`
** holds every change, every command answers -h, the README and help describe task ids and
** thin agreement data as they are, and the demo leads to the review page.
*/
#include <jansson.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

/* Replace the first `from` in a file by `to`. */
static void edit_file(const char *path, const char *from, const char *to) {
  char *t = tu_read(path, NULL), *p, *nt;
  ck_assert_ptr_nonnull(t);
  p = strstr(t, from);
  ck_assert_msg(p != NULL, "'%s' not in %s", from, path);
  nt = malloc(strlen(t) + strlen(to) + 1);
  memcpy(nt, t, (size_t)(p - t));
  strcpy(nt + (p - t), to);
  strcat(nt, p + strlen(from));
  tu_write(path, nt);
  free(t);
  free(nt);
}

/* Copy a file byte for byte (a corpus before a command that must not change it). */
static void copy_file(const char *from, const char *to) {
  size_t n;
  char *bytes = tu_read(from, &n);
  ck_assert_ptr_nonnull(bytes);
  tu_write_n(to, bytes, n);
  free(bytes);
}

/* A corpus holding the real release samples of the fixtures; *dir gets its folder. */
static char *real_corpus(char **dir) {
  const char *fx = tu_fixtures();
  char *db = tu_new_corpus(), *err = NULL;
  char couple[1024], family[1024];
  snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family, sizeof family, "%s/rescue-bench/family-first1.jsonl", fx);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, couple, family, NULL) == 0, "%s", err);
  free(err);
  *dir = strdup(db);
  *strrchr(*dir, '/') = 0;
  return db;
}

/* The events of `rescue log <db> --json` (caller frees with json_decref). */
static json_t *log_events(const char *db) {
  char *out = NULL, *err = NULL;
  json_t *root;
  ck_assert_msg(tu_rescue(&out, &err, "log", db, "--json", NULL) == 0, "%s", err);
  root = json_loads(out, 0, NULL);
  ck_assert_msg(json_is_array(root), "%s", out);
  free(out);
  free(err);
  return root;
}

/* The first event of `action` whose detail contains `detail` (NULL: any), or NULL. */
static json_t *find_event(json_t *events, const char *action, const char *detail) {
  size_t i;
  json_t *e;
  json_array_foreach(events, i, e) {
    const char *a = json_string_value(json_object_get(e, "action"));
    const char *d = json_string_value(json_object_get(e, "detail"));
    if (a && strcmp(a, action) == 0 && (!detail || (d && strstr(d, detail))))
      return e;
  }
  return NULL;
}

/*
** Item 3: an ELAN file exported from one annotator's view and edited comes back under that
** annotator, and both the message and the log line say so (not "as the draft"); with
** --annotator the message names the one given.
*/
START_TEST(test_eaf_import_names_the_owner) {
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL;
  char eaf[1024], file[2048];
  const char *id = "alan_and_evelyn/001_s01e01_ct25_segment04";
  json_t *events, *e;
  snprintf(eaf, sizeof eaf, "%s/eaf", dir);
  snprintf(file, sizeof file, "%s/%s.eaf", eaf, id);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "noor", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--samples", id, "--view",
                             "annotator:noor", "--out", eaf, NULL),
                   0);
  edit_file(file, "Like I just wanna be better.", "Like, I just want to be better.");
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, NULL) == 0, "%s", err);
  ck_assert_msg(strstr(out, "row versions added as annotator 'noor' (named by the file)"), "%s",
                out);
  ck_assert_msg(!strstr(out, "as the draft"), "%s", out);
  free(out);
  free(err);
  events = log_events(db);
  e = find_event(events, "import", "named by the file");
  ck_assert_msg(e != NULL, "no import event naming the file's annotator");
  ck_assert_str_eq(json_string_value(json_object_get(e, "annotator")), "noor");
  ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(e, "detail")), "as noor"));
  json_decref(events);
  /* the JSON report names her too */
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, "--json", NULL) == 0, "%s", err);
  ck_assert_msg(strstr(out, "\"annotator\": \"noor\""), "%s", out);
  free(out);
  free(err);
  /* the lead takes the same file as hers: the message names lena, not the file's noor */
  ck_assert_msg(tu_rescue(&out, &err, "import", db, file, "--annotator", "lena", NULL) == 0, "%s",
                err);
  ck_assert_msg(strstr(out, "as annotator 'lena'") && !strstr(out, "noor"), "%s", out);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/*
** Item 5: a foreign ELAN file imported with --tiers text reports, per tier, the annotations
** it did not import (the top-level `gestures` tier, 1,197) and the time-aligned child tiers
** whose times it dropped (Time_Subdivision words, Included_In gestures), in text on stderr
** and in the JSON warnings; the count is in the log. A refused import leaves the corpus as
** it was.
*/
START_TEST(test_eaf_import_reports_what_it_left_out) {
  const char *fx = tu_fixtures();
  char *db = tu_new_corpus(), *dir = strdup(db), *out = NULL, *err = NULL;
  char path[1024], copy[1024];
  json_t *root, *w, *x;
  size_t i;
  int gestures = 0, timesub = 0, included = 0;
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/elan/sample_3.0.eaf", fx);
  snprintf(copy, sizeof copy, "%s/before.db", dir);
  /* refused (no PARTICIPANT, no --tiers): exit 1, corpus unchanged */
  copy_file(db, copy);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, path, "--sample", "mpi/a", NULL), 1);
  ck_assert_msg(strstr(err, "rescue: import: ") && strstr(err, "--tiers"), "%s", err);
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, path, "--sample", "mpi/a", "--tiers", "text", NULL), 0);
  ck_assert_msg(strstr(err,
                       "sample_3.0.eaf:29146: tier 'gestures': 1197 annotations not "
                       "imported: a top-level tier not among the tiers named to hold the turns"),
                "%s", err);
  ck_assert_msg(strstr(err, "tier 'words-timesub': the times of 1995 annotations not imported"),
                "%s", err);
  ck_assert_msg(strstr(err, "tier 'gest_included': the times of 1197 annotations not imported"),
                "%s", err);
  ck_assert_msg(strstr(out, "(399 rows)") &&
                    strstr(out, "ELAN: 1197 annotations not imported, 3192 kept without their "
                                "times"),
                "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, path, "--sample", "mpi/b", "--tiers", "text",
                             "--json", NULL),
                   0);
  root = json_loads(out, 0, NULL);
  ck_assert_msg(root != NULL, "%s", out);
  ck_assert_int_eq(json_integer_value(json_object_get(root, "not_imported")), 1197);
  ck_assert_int_eq(json_integer_value(json_object_get(root, "times_not_imported")), 3192);
  w = json_object_get(root, "warnings");
  ck_assert_int_eq(json_array_size(w), 3);
  json_array_foreach(w, i, x) {
    const char *tier = json_string_value(json_object_get(x, "tier"));
    const char *what = json_string_value(json_object_get(x, "not_imported"));
    long n = (long)json_integer_value(json_object_get(x, "annotations"));
    ck_assert_str_eq(json_string_value(json_object_get(x, "kind")), "not_imported");
    ck_assert_ptr_nonnull(json_string_value(json_object_get(x, "message")));
    if (strcmp(tier, "gestures") == 0)
      gestures += n == 1197 && strcmp(what, "annotations") == 0;
    else if (strcmp(tier, "words-timesub") == 0)
      timesub += n == 1995 && strcmp(what, "times") == 0;
    else if (strcmp(tier, "gest_included") == 0)
      included += n == 1197 && strcmp(what, "times") == 0;
  }
  ck_assert_int_eq(gestures + timesub + included, 3);
  json_decref(root);
  free(out);
  free(err);
  root = log_events(db);
  ck_assert_ptr_nonnull(find_event(root, "import", "1197 annotations not imported"));
  json_decref(root);
  /* naming both top-level tiers imports the gestures as rows: nothing left out but times */
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, path, "--sample", "mpi/c", "--tiers",
                             "text,gestures", NULL),
                   0);
  ck_assert_msg(!strstr(err, "'gestures'"), "%s", err);
  ck_assert_msg(strstr(out, "ELAN: 0 annotations not imported"), "%s", out);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/*
** Item 12: an annotator and a lead work on a corpus; `rescue log` records adding them,
** retiring and bringing one back, the assignment, a split run, a waiver and its removal,
** and a status change, each with the operating-system user. A refused change logs nothing
** and leaves the corpus as it was.
*/
START_TEST(test_log_records_every_change) {
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL, *text;
  char copy[1024];
  const char *id = "alan_and_evelyn/001_s01e01_ct25_segment04";
  struct passwd *pw = getpwuid(geteuid());
  json_t *events, *e;
  size_t i;
  snprintf(copy, sizeof copy, "%s/before.db", dir);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "noor", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "noor", "--reason", "on leave", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "unretire", db, "noor", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "noor,lena", "--overlap", "0.5", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "split", db, "--ratios", "0,0,1", "--seed", "3", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "status", db, id, "in_review", "--annotator", "lena", NULL), 0);
  ck_assert_msg(tu_rescue(&out, &err, "lint", db, "--waive",
                          "R13:alan_and_evelyn/"
                          "003_s01e02_ct81_segment02:2",
                          "--reason", "checked by the lead", "--by", "lena", NULL) == 0,
                "%s", err);
  free(out);
  free(err);
  ck_assert_msg(tu_rescue(&out, &err, "lint", db, "--unwaive",
                          "R13:alan_and_evelyn/003_s01e02_ct81_segment02:2", NULL) == 0,
                "%s", err);
  free(out);
  free(err);

  /* refusals: exit 1, nothing logged, the corpus byte for byte as it was */
  copy_file(db, copy);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "unretire", db, "noor", NULL), 1);
  ck_assert_msg(strstr(err, "annotator 'noor' is not retired"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "lena", NULL), 1);
  ck_assert_msg(strstr(err, "already exists"), "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "lint", db, "--unwaive",
                             "R13:alan_and_evelyn/001_s01e01_ct25_segment04:0", NULL),
                   1);
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));

  events = log_events(db);
  e = find_event(events, "annotator", "annotator added 'noor' (role annotator)");
  ck_assert_msg(e != NULL, "adding noor is not logged");
  ck_assert_str_eq(json_string_value(json_object_get(e, "annotator")), "noor");
  ck_assert_ptr_nonnull(find_event(events, "annotator", "annotator added 'lena' (role lead)"));
  ck_assert_ptr_nonnull(find_event(events, "annotator", "retired 'noor' (on leave)"));
  ck_assert_ptr_nonnull(find_event(events, "annotator", "unretired 'noor'"));
  ck_assert_ptr_nonnull(find_event(events, "assign", "to noor,lena"));
  ck_assert_ptr_nonnull(find_event(events, "split", "(seed 3, ratios 0,0,1"));
  e = find_event(events, "waive", "R13 on alan_and_evelyn/003_s01e02_ct81_segment02 row 2");
  ck_assert_msg(e != NULL, "the waiver is not logged");
  ck_assert_str_eq(json_string_value(json_object_get(e, "annotator")), "lena");
  ck_assert_ptr_nonnull(
      strstr(json_string_value(json_object_get(e, "detail")), "(checked by the lead)"));
  ck_assert_ptr_nonnull(find_event(events, "unwaive", "R13 on"));
  e = find_event(events, "status", id);
  ck_assert_msg(e != NULL, "the status change is not logged");
  ck_assert_str_eq(json_string_value(json_object_get(e, "annotator")), "lena");
  /* every event names the operating-system user who ran it */
  json_array_foreach(events, i, e) {
    const char *u = json_string_value(json_object_get(e, "os_user"));
    ck_assert_msg(u && pw && strcmp(u, pw->pw_name) == 0, "event %zu: os_user %s", i,
                  u ? u : "null");
  }
  /* the import, 2 annotators added, retired and back, assign, split, status, waive, unwaive */
  ck_assert_int_eq(json_array_size(events), 10);
  json_decref(events);
  ck_assert_int_eq(tu_rescue(&text, NULL, "log", db, NULL), 0);
  ck_assert_msg(strstr(text, "  status      ") && !strstr(text, "  -  "), "%s", text);
  free(text);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/*
** 1 when the README's command table (from "| command | what it does |" to the next blank
** line) names `rescue <name>`: followed by a space, a backquote or "\|" (a verb of
** "retire\|unretire").
*/
static int table_has(const char *readme, const char *name) {
  const char *start = strstr(readme, "| command | what it does |"), *end, *p;
  char want[256];
  ck_assert_ptr_nonnull(start);
  end = strstr(start, "\n\n");
  snprintf(want, sizeof want, "`rescue %s", name);
  for (p = strstr(start, want); p && (!end || p < end); p = strstr(p + 1, want)) {
    char c = p[strlen(want)];
    if (c == ' ' || c == '`' || c == '\\')
      return 1;
  }
  return 0;
}

/*
** Item 13: every command of `rescue --help`, two-word ones included, answers -h with its
** usage on stdout and exit 0; a group of two-word commands answers -h with its
** subcommands; the README's command table lists every command.
*/
START_TEST(test_every_command_answers_help) {
  char *help = NULL, *err = NULL, *readme, *line, *save = NULL, *copy;
  char path[2048];
  int n = 0;
  ck_assert_int_eq(tu_rescue(&help, &err, "--help", NULL), 0);
  free(err);
  snprintf(path, sizeof path, "%s/README.md", RESCUE_SOURCE_DIR);
  readme = tu_read(path, NULL);
  ck_assert_ptr_nonnull(readme);
  copy = strdup(help);
  for (line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[64], sub[64], want[160], *out = NULL, *e = NULL;
    int words;
    if (strncmp(line, "   ", 3) != 0 || line[3] == ' ')
      continue;
    words = sscanf(line, "%63s %63s", name, sub);
    ck_assert_int_eq(words, 2);
    {
      /* "   media add          ...": one space between the words of a two-word command */
      const char *rest = line + 3 + strlen(name);
      int two = rest[0] == ' ' && rest[1] != ' ';
      const char *argv2[] = {name, two ? sub : "-h", two ? "-h" : NULL, NULL};
      int rc = tu_rescue_argv(argv2, &out, &e);
      ck_assert_msg(rc == 0, "rescue %s%s%s -h: exit %d; %s", name, two ? " " : "", two ? sub : "",
                    rc, e);
      ck_assert_msg(strncmp(out, "usage: rescue ", 14) == 0, "%s: %s", name, out);
      ck_assert_str_eq(e, "");
      snprintf(want, sizeof want, "%s%s%s", name, two ? " " : "", two ? sub : "");
      if (two && strcmp(name, "annotator") == 0 && strcmp(sub, "unretire") == 0)
        snprintf(want, sizeof want, "annotator retire\\|unretire");
      ck_assert_msg(table_has(readme, want), "the README's command table has no 'rescue %s'", want);
      free(out);
      free(e);
      if (two) {
        /* the group itself answers -h with its subcommands */
        const char *argv3[] = {name, "-h", NULL};
        ck_assert_int_eq(tu_rescue_argv(argv3, &out, &e), 0);
        ck_assert_msg(strstr(out, "usage: rescue ") && strstr(out, sub), "%s -h: %s", name, out);
        ck_assert_str_eq(e, "");
        free(out);
        free(e);
      }
    }
    n++;
  }
  ck_assert_int_ge(n, 26);
  /* a group without a subcommand is still a usage error */
  {
    char *out = NULL, *e = NULL;
    ck_assert_int_eq(tu_rescue(&out, &e, "media", NULL), 2);
    ck_assert_msg(strstr(e, "rescue: media: expected a subcommand: 'media add' 'media list'"), "%s",
                  e);
    free(out);
    free(e);
    ck_assert_int_eq(tu_rescue(&out, &e, "annotator", "-h", NULL), 0);
    ck_assert_msg(strstr(out, "annotator retire") && strstr(out, "annotator unretire"), "%s", out);
    free(out);
    free(e);
  }
  free(copy);
  free(help);
  free(readme);
}
END_TEST

/*
** Item 13: task ids are described as what they are (they name the sample and row), in the
** README and in `export -h`, not as opaque.
*/
START_TEST(test_task_ids_described_truthfully) {
  char *out = NULL, *err = NULL, *readme;
  char path[2048];
  snprintf(path, sizeof path, "%s/README.md", RESCUE_SOURCE_DIR);
  readme = tu_read(path, NULL);
  ck_assert_ptr_nonnull(readme);
  ck_assert_msg(!strstr(readme, "ids are opaque") && !strstr(readme, "carry opaque ids"),
                "the README still calls task ids opaque");
  ck_assert_ptr_nonnull(strstr(readme, "`<sample_id>__row<n>`"));
  ck_assert_int_eq(tu_rescue(&out, &err, "export", "-h", NULL), 0);
  ck_assert_msg(!strstr(out, "opaque") && strstr(out, "<sample_id>__row<n>"), "%s", out);
  free(out);
  free(err);
  free(readme);
}
END_TEST

/*
** Item 13: a dataset card whose agreement intervals rest on 4 resampled samples carries the
** thin-data warning `rescue agree` prints for the same corpus (two coders: ana and ben).
*/
START_TEST(test_card_warns_about_thin_data) {
  const char *fx = tu_fixtures();
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL, *card, *b;
  char couple[1024], family[1024], mine[1024], tasks[1024], cardp[1200];
  snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family, sizeof family, "%s/rescue-bench/family-first1.jsonl", fx);
  snprintf(mine, sizeof mine, "%s/ben.jsonl", dir);
  snprintf(tasks, sizeof tasks, "%s/tasks", dir);
  snprintf(cardp, sizeof cardp, "%s/README.md", tasks);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ana", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ben", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, couple, family, "--annotator", "ana", NULL),
                   0);
  b = tu_read(couple, NULL);
  tu_write(mine, b);
  free(b);
  edit_file(mine, "\"utterance_type\": \"disclosure\"", "\"utterance_type\": \"complaint\"");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, mine, family, "--annotator", "ben", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", db, "--ci", "200", "--seed", "1", NULL), 0);
  ck_assert_msg(strstr(out, "utterance_type: the interval rests on 4 resampled samples (fewer "
                            "than 20)"),
                "%.800s", out);
  free(out);
  free(err);
  ck_assert_msg(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out", tasks, NULL) == 0,
                "%s", err);
  free(out);
  free(err);
  card = tu_read(cardp, NULL);
  ck_assert_ptr_nonnull(card);
  ck_assert_msg(strstr(card, "Thin data: `utterance_type`: the interval rests on 4 resampled "
                             "samples (fewer than 20)"),
                "%.800s", strstr(card, "Agreement between"));
  free(card);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

/*
** Item 14: the demo registers a lead and an annotator, keeps their sign-in tokens in a file
** of the demo folder readable by its owner only (tokens that sign them in), prints neither
** token, and ends with the exact `rescue serve` command and the address to open.
*/
START_TEST(test_demo_leads_to_the_review_page) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, *tokens, *line, *save = NULL;
  const char *demo = tu_path(dir, "demo");
  char db[2048], tokpath[2048], want[8192];
  struct stat sb;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  int found = 0;
  snprintf(db, sizeof db, "%s/corpus.db", demo);
  snprintf(tokpath, sizeof tokpath, "%s/tokens.txt", demo);
  ck_assert_int_eq(tu_rescue(&out, &err, "demo", "--out", demo, NULL), 0);
  ck_assert_int_eq(stat(tokpath, &sb), 0);
  ck_assert_int_eq(sb.st_mode & 0777, 0600);
  snprintf(want, sizeof want,
           "  rescue serve %s\nthen open http://127.0.0.1:8080/ and sign in with a token from "
           "%s\n",
           db, tokpath);
  ck_assert_msg(strstr(out, want), "%s", out);
  tokens = tu_read(tokpath, NULL);
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &e), 0);
  for (line = strtok_r(tokens, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
    char name[64], role[64], token[128];
    int64_t id = 0, want_id = 0;
    const char *have_role = NULL;
    if (line[0] == '#')
      continue;
    ck_assert_int_eq(sscanf(line, "%63s (%63[^)]) %127s", name, role, token), 3);
    ck_assert_int_eq(strlen(token), 64);
    /* never printed */
    ck_assert_msg(!strstr(out, token) && !strstr(err, token), "token of %s printed", name);
    ck_assert_int_eq(rescue_annotator_by_token(st, token, &id), 0);
    ck_assert_int_eq(rescue_annotator_lookup(st, name, &want_id, &have_role, NULL), 0);
    ck_assert_int_eq(id, want_id);
    ck_assert_str_eq(have_role, role);
    found |= strcmp(role, "lead") == 0 ? 1 : strcmp(role, "annotator") == 0 ? 2 : 0;
  }
  ck_assert_int_eq(found, 3);
  rescue_store_close(&st);
  free(tokens);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

/*
** Item 9: on the real samples (two groups: one couple, one family), a 0.2 overlap for two
** annotators shares nothing and leaves one of them without work, and 0.8/0.1/0.1 ratios
** leave a split empty: each result comes with a warning that says why (exit 0: the run
** is recorded as asked).
*/
START_TEST(test_useless_results_warn) {
  char *dir, *db = real_corpus(&dir), *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "noor", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lena", "--role", "lead", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "noor,lena", "--overlap",
                             "0.2", "--seed", "1", NULL),
                   0);
  ck_assert_msg(strstr(out, "0 samples (0 groups) reviewed twice"), "%s", out);
  ck_assert_msg(strstr(err, "warning: --overlap 0.2 gave 0 samples reviewed twice: each couple's "
                            "or family's samples are shared together, and 0.2 of 4 samples in 2 "
                            "groups rounds to no group"),
                "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "split", db, "--ratios", "0.8,0.1,0.1", "--seed", "1", NULL), 0);
  ck_assert_msg(strstr(err, "is empty although its ratio is 0.1: the corpus has 2 groups "
                            "(couples and families, each kept whole in one split)"),
                "%s", err);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  const TTest *fixture_tests[] = {test_useless_results_warn, test_eaf_import_names_the_owner,
                                  test_eaf_import_reports_what_it_left_out,
                                  test_log_records_every_change, test_card_warns_about_thin_data};
  int n_fixture_tests = (int)(sizeof fixture_tests / sizeof fixture_tests[0]), i;
  Suite *s = suite_create("cli_truth");
  TCase *tc = tcase_create("cli_truth");
  tcase_set_timeout(tc, 240);
  tcase_add_test(tc, test_every_command_answers_help);
  tcase_add_test(tc, test_task_ids_described_truthfully);
  tcase_add_test(tc, test_demo_leads_to_the_review_page);
  if (tu_fixtures_if_present()) {
    for (i = 0; i < n_fixture_tests; i++)
      tcase_add_test(tc, fixture_tests[i]);
    n_fixture_tests = 0;
  }
  suite_add_tcase(s, tc);
  return tu_run_suite_skipping(s, n_fixture_tests);
}
