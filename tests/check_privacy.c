/*
** check_privacy.c: sharing a corpus safely on the real fixture samples: the pseudonym map
** (--auto, --set, stability across exports and later imports), pseudonymised exports in
** every format checked by the leak check and by an independent scan, names in unusual
** places, media, the same scores for the same predictions, and the audit log.
*/
#include <ctype.h>
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static const char *const real_names[] = {"alan",  "evelyn",          "maria", "joel",
                                         "laura", "alan_and_evelyn", NULL};

/*
** The corpus with the four real fixture samples, imported once per run by the parent
** process (an unchecked fixture: make_template) and copied byte for byte into each test's
** folder: one import fewer per test.
*/
static char template_db[4096];

/* Make template_db: a new corpus, and the fixture files imported into it with the CLI. */
static void make_template(void) {
  const char *fx = tu_fixtures();
  char *db = tu_new_corpus(), couple[1024], family[1024], wal[4200], *err = NULL;
  snprintf(couple, sizeof couple, "%s/rescue-bench/couple-first3.jsonl", fx);
  snprintf(family, sizeof family, "%s/rescue-bench/family-first1.jsonl", fx);
  ck_assert_msg(tu_rescue(NULL, &err, "import", db, couple, family, NULL) == 0, "%s", err);
  /* the whole corpus is in the one file once the CLI has closed it */
  snprintf(wal, sizeof wal, "%s-wal", db);
  ck_assert_msg(access(wal, F_OK) != 0, "%s was left behind", wal);
  snprintf(template_db, sizeof template_db, "%s", db);
  free(err);
  free(db);
}

/* A corpus with the four real fixture samples (a copy of the template), in a new folder. */
static char *fixture_corpus(char **dir) {
  size_t n;
  char *bytes = tu_read(template_db, &n), *db;
  ck_assert_ptr_nonnull(bytes);
  *dir = tu_tmpdir();
  db = strdup(tu_path(*dir, "c.db"));
  tu_write_n(db, bytes, n);
  free(bytes);
  return db;
}

/*
** An independent scan: does any file under path hold a real name as a whole word (letters
** around it end it; any case)? Returns how many hits, printing the first few.
*/
static int scan_names(const char *path) {
  struct stat sb;
  int hits = 0;
  ck_assert_int_eq(lstat(path, &sb), 0);
  if (S_ISDIR(sb.st_mode)) {
    DIR *d = opendir(path);
    struct dirent *e;
    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
      char sub[4096];
      if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2])))
        continue;
      snprintf(sub, sizeof sub, "%s/%s", path, e->d_name);
      hits += scan_names(sub);
    }
    closedir(d);
    return hits;
  }
  {
    size_t len, i;
    char *text = tu_read(path, &len);
    int k;
    ck_assert_ptr_nonnull(text);
    for (i = 0; i < len; i++)
      for (k = 0; real_names[k]; k++) {
        size_t n = strlen(real_names[k]);
        if (i + n <= len && strncasecmp(text + i, real_names[k], n) == 0 &&
            (i == 0 || !isalpha((unsigned char)text[i - 1])) &&
            (i + n == len || !isalpha((unsigned char)text[i + n]))) {
          if (hits++ < 3)
            fprintf(stderr, "%s: '%.40s'\n", path, text + (i > 10 ? i - 10 : 0));
        }
      }
    free(text);
  }
  return hits;
}

/* A byte copy of the corpus at db beside it ("<db>.copy"); caller frees the path. */
static char *copy_of(const char *db) {
  char *copy = malloc(strlen(db) + 8);
  size_t n;
  char *bytes = tu_read(db, &n);
  ck_assert_ptr_nonnull(bytes);
  sprintf(copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  return copy;
}

static long count(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  long n = -1;
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h, sql, -1, &q, NULL), SQLITE_OK);
  if (sqlite3_step(q) == SQLITE_ROW)
    n = sqlite3_column_int64(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

START_TEST(test_map_auto_and_set) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *err = NULL, *copy;
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "  Alan                     -> (none)"));
  ck_assert_ptr_nonnull(strstr(out, "7 without a pseudonym"));
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "gave 7 new pseudonyms"));
  ck_assert_ptr_nonnull(strstr(out, "  Alan                     -> Partner A  auto"));
  ck_assert_ptr_nonnull(strstr(out, "  Evelyn                   -> Partner B  auto"));
  ck_assert_ptr_nonnull(strstr(out, "  Maria                    -> Member 1  auto"));
  ck_assert_ptr_nonnull(strstr(out, "alan_and_evelyn -> couple_"));
  ck_assert_ptr_nonnull(strstr(out, "family_therapy/003 -> family_"));
  free(out);
  /* --set: a participant, then a refusal for a name already used in the group */
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, "--set", "Joel=Son", "--json", NULL), 0);
  ck_assert_ptr_nonnull(
      strstr(out, "{\"real\": \"Joel\", \"pseudonym\": \"Son\", \"how\": \"set\"}"));
  ck_assert_ptr_nonnull(strstr(out, "\"missing\": 0}"));
  free(out);
  /* every refusal leaves the corpus as it was, byte for byte */
  copy = copy_of(db);
  ck_assert_int_eq(tu_rescue(NULL, &err, "pseudonyms", db, "--set", "Laura=Son", NULL), 1);
  ck_assert_str_eq(err, "rescue: pseudonyms: 'Son' is already a name or pseudonym of another "
                        "participant of group 'family_therapy/003'\n");
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(NULL, &err, "pseudonyms", db, "--set", "Laura=Joel", NULL), 1);
  ck_assert_str_eq(err, "rescue: pseudonyms: 'Joel' is already a name or pseudonym of another "
                        "participant of group 'family_therapy/003'\n");
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(NULL, &err, "pseudonyms", db, "--set", "alan_and_evelyn=a/b", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "not a safe path component"));
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(NULL, &err, "pseudonyms", db, "--set", "Nobody=X", NULL), 1);
  ck_assert_str_eq(err,
                   "rescue: pseudonyms: no group or participant named 'Nobody' in the corpus\n");
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(NULL, &err, "pseudonyms", db, "--set", "Joel", NULL), 2);
  free(err);
  ck_assert(tu_same_file(db, copy));
  /* several --set: one refused, none applied (the first is not left half-done) */
  ck_assert_int_eq(tu_rescue(&out, &err, "pseudonyms", db, "--set", "Laura=Daughter", "--set",
                             "Maria=Son", NULL),
                   1);
  ck_assert_str_eq(err, "rescue: pseudonyms: 'Son' is already a name or pseudonym of another "
                        "participant of group 'family_therapy/003'\n");
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(&out, &err, "pseudonyms", db, "--set", "Laura=Daughter", "--set",
                             "Nobody=X", "--auto", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no group or participant named 'Nobody'"));
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(count(db, "SELECT count(*) FROM pseudonym WHERE pseudonym = 'Daughter'"), 0);
  free(copy);
  /* history kept: Joel's auto pseudonym is still in the table */
  ck_assert_int_eq(count(db, "SELECT count(*) FROM pseudonym WHERE real = 'Joel'"), 2);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_export_every_format_without_names) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *err = NULL, *a, *b;
  const char *formats[] = {"samples", "data-root", "tasks", "eaf"};
  int f;
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "split", db, "--ratios", "0.5,0.0,0.5", "--seed", "3", NULL), 0);
  /* without a map, a pseudonymised export is refused, naming who has no pseudonym */
  ck_assert_int_eq(tu_rescue(NULL, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "x.jsonl"), "--pseudonymise", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no pseudonym for group alan_and_evelyn, Alan in "
                                    "alan_and_evelyn, Evelyn in alan_and_evelyn"));
  ck_assert_int_eq(access(tu_path(dir, "x.jsonl"), F_OK), -1);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  for (f = 0; f < 4; f++) {
    char name[64];
    snprintf(name, sizeof name, "p-%s", formats[f]);
    ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", formats[f], "--out",
                               tu_path(dir, name), "--pseudonymise", NULL),
                     0);
    ck_assert_ptr_nonnull(strstr(out, "no real name"));
    free(out);
    free(err);
    ck_assert_int_eq(scan_names(tu_path(dir, name)), 0);
    ck_assert_int_eq(tu_rescue(&out, NULL, "leakcheck", tu_path(dir, name), "--db", db, NULL), 0);
    ck_assert_ptr_nonnull(strstr(out, ": 0 real names found"));
    free(out);
  }
  /* the split came along: tasks by split */
  ck_assert_int_eq(access(tu_path(dir, "p-tasks/rpp/test.jsonl"), F_OK) == 0 ||
                       access(tu_path(dir, "p-tasks/rpp/train.jsonl"), F_OK) == 0,
                   1);
  /* stable: a second export gives the same bytes */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "p2.jsonl"), "--pseudonymise", NULL),
                   0);
  a = tu_read(tu_path(dir, "p-samples"), NULL);
  b = tu_read(tu_path(dir, "p2.jsonl"), NULL);
  ck_assert_str_eq(a, b);
  ck_assert_ptr_nonnull(strstr(a, "\"participants\": [\"Partner A\", \"Partner B\"]"));
  ck_assert_ptr_nonnull(strstr(a, "\"source_file\": \"data/therapy_merged_all/couple_"));
  ck_assert_ptr_null(strstr(a, "Therapist\": ")); /* keys untouched, values replaced */
  free(a);
  free(b);
  /* the raw fixture is full of names, with file, line and field */
  {
    char raw[1024];
    snprintf(raw, sizeof raw, "%s/rescue-bench/couple-first3.jsonl", tu_fixtures());
    ck_assert_int_eq(tu_rescue(&out, NULL, "leakcheck", raw, "--db", db, NULL), 1);
    ck_assert_ptr_nonnull(
        strstr(out, "couple-first3.jsonl:1: sample_id: real name 'alan_and_evelyn'"));
    ck_assert_ptr_nonnull(
        strstr(out, "couple-first3.jsonl:1: rows[0].primary_speaker: real name 'Alan'"));
    free(out);
  }
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_names_in_text_and_new_samples) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *err = NULL, *before, *after;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "before.jsonl"), "--pseudonymise", NULL),
                   0);
  /* a later sample of the same couple, with a new person and names in every spelling */
  tu_write(tu_path(dir, "new.jsonl"),
           "{\"sample_id\": \"alan_and_evelyn/099_s02e01_segment01\", \"rows\": [{\"start_time\": "
           "0.0, \"end_time\": 2.0, \"primary_speaker\": \"Evelyn\", \"target\": [\"Alan\", "
           "\"Zoe\"], \"dialogue_cleaned\": \"EVELYN here. That is Evelyn's car, and "
           "Evelyn\xe2\x80\x99s "
           "too; alan and Zoe know.\", \"internal_emotion\": [{\"person\": \"Zoe\", "
           "\"emotion_description\": \"Alan and Evelyn upset Zoe\", \"intensity\": 4}]}]}\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "new.jsonl"), NULL), 0);
  /* Zoe has no pseudonym yet: refused, naming her */
  ck_assert_int_eq(tu_rescue(NULL, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "x.jsonl"), "--pseudonymise", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no pseudonym for Zoe in alan_and_evelyn"));
  free(err);
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "gave 1 new pseudonym\n"));
  ck_assert_ptr_nonnull(strstr(out, "  Zoe                      -> Partner C  auto"));
  free(out);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "after.jsonl"), "--pseudonymise", NULL),
                   0);
  before = tu_read(tu_path(dir, "before.jsonl"), NULL);
  after = tu_read(tu_path(dir, "after.jsonl"), NULL);
  /* the earlier samples keep their pseudonyms: the old lines are all still there */
  {
    char *line = before, *nl;
    while ((nl = strchr(line, '\n')) != NULL) {
      *nl = 0;
      ck_assert_ptr_nonnull(strstr(after, line));
      line = nl + 1;
    }
  }
  ck_assert_ptr_nonnull(strstr(after, "/099_s02e01_segment01\""));
  ck_assert_ptr_nonnull(strstr(after, "\"dialogue_cleaned\": \"Partner B here. That is Partner "
                                      "B's car, and Partner B\xe2\x80\x99s too; Partner A and "
                                      "Partner C know.\""));
  ck_assert_ptr_nonnull(strstr(after, "\"emotion_description\": \"Partner A and Partner B upset "
                                      "Partner C\""));
  ck_assert_ptr_nonnull(strstr(after, "\"target\": [\"Partner A\", \"Partner C\"]"));
  free(before);
  free(after);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_planted_name_fails_export) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *err = NULL;
  size_t n1, n2;
  char *b1, *b2;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  /* a name where no rewriting looks: an object key of an unknown field */
  tu_write(tu_path(dir, "odd.jsonl"),
           "{\"sample_id\": \"alan_and_evelyn/098_odd\", \"rows\": [{\"start_time\": 0.0, "
           "\"end_time\": 2.0, \"primary_speaker\": \"Alan\", \"target\": [\"Evelyn\"], "
           "\"dialogue_cleaned\": \"Hello.\", \"notes\": {\"for_Evelyn\": \"call back\"}}]}\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "odd.jsonl"), NULL), 0);
  mkdir(tu_path(dir, "out"), 0755);
  tu_write(tu_path(dir, "out/keep.txt"), "a user's file");
  b1 = tu_read(db, &n1);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "data-root", "--out",
                             tu_path(dir, "out2"), "--pseudonymise", NULL),
                   1);
  ck_assert_msg(strstr(err, "098_odd.json:1: rows[0].notes.for_Evelyn: real name 'Evelyn'"), "%s",
                err);
  ck_assert_ptr_nonnull(strstr(err, "1 real name survived pseudonymisation"));
  /* the advice names a step that works: the name is in the map already */
  ck_assert_msg(strstr(err, "correct those rows, or leave their samples out with --samples, and "
                            "export again\n"),
                "%s", err);
  ck_assert_ptr_null(strstr(err, "pseudonyms --set"));
  ck_assert_int_eq(access(tu_path(dir, "out2"), F_OK), -1); /* nothing at the final name */
  free(out);
  free(err);
  /* nothing left beside it either, and the corpus is as it was */
  {
    DIR *d = opendir(dir);
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
      ck_assert_msg(!strstr(e->d_name, "rescue-pseudo"), "left behind: %s", e->d_name);
    closedir(d);
  }
  b2 = tu_read(db, &n2);
  ck_assert(n1 == n2 && memcmp(b1, b2, n1) == 0);
  free(b1);
  free(b2);
  free(db);
  free(dir);
}
END_TEST

/* The family fixture sample with the first Therapist row's speaker written as `speaker`. */
static void family_with_speaker(const char *path, const char *speaker) {
  char fam[1024], *text, *at;
  rescue_buf b = RESCUE_BUF_INIT;
  snprintf(fam, sizeof fam, "%s/rescue-bench/family-first1.jsonl", tu_fixtures());
  text = tu_read(fam, NULL);
  at = strstr(text, "\"primary_speaker\": \"Therapist\"");
  ck_assert_ptr_nonnull(at);
  rescue_buf_putn(&b, text, (size_t)(at - text));
  rescue_buf_printf(&b, "\"primary_speaker\": \"%s\"", speaker);
  rescue_buf_puts(&b, at + strlen("\"primary_speaker\": \"Therapist\""));
  tu_write(path, b.s);
  rescue_buf_clear(&b);
  free(text);
}

/*
** Issue 26 item 2, with two coders: carl types `therapist` as a speaker, dana and the gold
** have `Therapist`. The map gives no pseudonym to a reserved entity in any case and spacing,
** the pseudonymised export succeeds, and a later slip that no exported version holds needs
** no pseudonym; a missing one is named once, not once per sample.
*/
START_TEST(test_reserved_any_case) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *err = NULL, *copy;
  char fam[1024];
  snprintf(fam, sizeof fam, "%s/rescue-bench/family-first1.jsonl", tu_fixtures());
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "carl", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "dana", NULL), 0);
  family_with_speaker(tu_path(dir, "slip.jsonl"), "therapist");
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "slip.jsonl"), "--annotator", "carl", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, fam, "--annotator", "dana", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "adjudicate", db, "--policy", "latest", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "gave 7 new pseudonyms"));
  ck_assert_msg(!strstr(out, "therapist ") && !strstr(out, "Therapist "), "%s", out);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "tasks", "--out",
                             tu_path(dir, "t"), "--pseudonymise", NULL),
                   0);
  ck_assert_msg(strstr(out, "wrote a pseudonymised tasks export to"), "%s%s", out, err);
  /* the clips are left out by design: no advice to cut them */
  ck_assert_msg(!strstr(err, "clip_path"), "%s", err);
  ck_assert_int_eq(scan_names(tu_path(dir, "t")), 0);
  free(out);
  free(err);
  /* the leak check agrees: the export holds no real name, `therapist` is no one's */
  ck_assert_int_eq(tu_rescue(&out, NULL, "leakcheck", tu_path(dir, "t"), "--db", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, ": 0 real names found\n"));
  free(out);
  /* a new slip in other spacing and case, and a name only carl's versions hold */
  family_with_speaker(tu_path(dir, "slip2.jsonl"), " THERAPIST ");
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "slip2.jsonl"), "--annotator", "carl", NULL),
      0);
  family_with_speaker(tu_path(dir, "slip3.jsonl"), "Jooel");
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "slip3.jsonl"), "--annotator", "carl", NULL),
      0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "pseudonyms", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "  Jooel                    -> (none)\n"));
  ck_assert_ptr_nonnull(strstr(out, "1 without a pseudonym"));
  free(out);
  /* the gold (the exported view) names neither: the export needs no pseudonym for them */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "s.jsonl"), "--pseudonymise", NULL),
                   0);
  ck_assert_int_eq(scan_names(tu_path(dir, "s.jsonl")), 0);
  free(out);
  free(err);
  /* carl's view names Jooel: refused, naming him once, with the step that works */
  copy = copy_of(db);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "c.jsonl"), "--view", "annotator:carl", "--pseudonymise",
                             NULL),
                   1);
  ck_assert_str_eq(err, "rescue: export: no pseudonym for Jooel in family_therapy/003 (run rescue "
                        "pseudonyms with --auto or --set)\n");
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_ne(access(tu_path(dir, "c.jsonl"), F_OK), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "c.jsonl"), "--view", "annotator:carl", "--pseudonymise",
                             NULL),
                   0);
  free(out);
  free(err);
  free(copy);
  free(db);
  free(dir);
}
END_TEST

/*
** Issue 26 item 10: leakcheck's names to review leave out common words written with a
** capital inside a sentence (Liked, Chose, Suddenly...) and keep the one real mention.
*/
START_TEST(test_review_names) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, NULL, "export", db, "--format", "tasks", "--out",
                             tu_path(dir, "t"), "--pseudonymise", NULL),
                   0);
  ck_assert_msg(strstr(out, "names to review (neither participants nor pseudonyms): Julian ("),
                "%s", out);
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "leakcheck", tu_path(dir, "t"), "--db", db, NULL), 0);
  ck_assert_msg(strstr(out, "review these (neither participants nor pseudonyms):\n  Julian ("),
                "%s", out);
  ck_assert_msg(!strstr(out, "Liked") && !strstr(out, "Chose") && !strstr(out, "Suddenly") &&
                    !strstr(out, "Which") && !strstr(out, "Daughters"),
                "%s", out);
  free(out);
  free(db);
  free(dir);
}
END_TEST

/* Predictions for every RPP record of a file: the gold label first on even lines, a wrong one
** on odd lines. */
static void rpp_preds(const char *gold, const char *pred) {
  char *text = tu_read(gold, NULL), *line = text, *nl;
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  int i = 0;
  while ((nl = strchr(line, '\n')) != NULL) {
    rescue_jerror je;
    const rescue_jnode *r = rescue_jparse(doc, line, (size_t)(nl - line), &je);
    const rescue_jnode *id = rescue_jget(r, "instance_id"),
                       *g = rescue_jget(r, "gold_relation_pattern");
    const rescue_jnode *cand = rescue_jget(r, "candidate_relation_labels");
    const char *wrong = strcmp(cand->child->s, g->s) ? cand->child->s : cand->child->next->s;
    rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"relation_top3\": [\"%s\"]}\n", id->s,
                      i++ % 2 ? wrong : g->s);
    line = nl + 1;
  }
  tu_write(pred, b.s);
  rescue_buf_clear(&b);
  rescue_jdoc_free(&doc);
  free(text);
}

START_TEST(test_same_scores) {
  char *dir, *db = fixture_corpus(&dir), *o1 = NULL, *o2 = NULL;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--out", tu_path(dir, "real"), NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--out",
                             tu_path(dir, "pseudo"), "--pseudonymise", NULL),
                   0);
  rpp_preds(tu_path(dir, "real/rpp.jsonl"), tu_path(dir, "real.pred"));
  rpp_preds(tu_path(dir, "pseudo/rpp.jsonl"), tu_path(dir, "pseudo.pred"));
  ck_assert_int_eq(tu_rescue(&o1, NULL, "score", "rpp", "--gold", tu_path(dir, "real/rpp.jsonl"),
                             "--pred", tu_path(dir, "real.pred"), "--json", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(&o2, NULL, "score", "rpp", "--gold", tu_path(dir, "pseudo/rpp.jsonl"),
                             "--pred", tu_path(dir, "pseudo.pred"), "--json", NULL),
                   0);
  {
    /* every number the same; only the names of couples and samples differ */
    rescue_jdoc *d1 = rescue_jdoc_new(), *d2 = rescue_jdoc_new();
    rescue_jerror je;
    const rescue_jnode *j1 = rescue_jparse(d1, o1, strlen(o1), &je);
    const rescue_jnode *j2 = rescue_jparse(d2, o2, strlen(o2), &je);
    const char *keys[] = {"counts", "overall", "scenarios", "confusions", "top1_class_metrics"};
    size_t k;
    ck_assert_ptr_nonnull(j1);
    ck_assert_ptr_nonnull(j2);
    for (k = 0; k < sizeof keys / sizeof keys[0]; k++) {
      rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
      ck_assert_ptr_nonnull(rescue_jget(j1, keys[k]));
      rescue_jwrite(&a, rescue_jget(j1, keys[k]));
      rescue_jwrite(&b, rescue_jget(j2, keys[k]));
      ck_assert_msg(strcmp(a.s, b.s) == 0, "%s differs", keys[k]);
      rescue_buf_clear(&a);
      rescue_buf_clear(&b);
    }
    ck_assert_int_eq((int)rescue_jget(j1, "couples")->len, (int)rescue_jget(j2, "couples")->len);
    ck_assert_ptr_nonnull(strstr(o1, "\"accuracy\": 0.5"));
    rescue_jdoc_free(&d1);
    rescue_jdoc_free(&d2);
  }
  free(o1);
  free(o2);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_media_copied_only_when_asked) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *rec;
  char sql[2048];
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  /* a clip recorded for every row of the first couple sample */
  tu_write(tu_path(dir, "clip.mp4"), "not really a video");
  snprintf(sql, sizeof sql,
           "INSERT INTO clip(sample_ref, position, mode, path, req_start, req_end, bytes, "
           "sha256, created_at) SELECT s.id, r.position, 'copy', '%s', 0, 1, 18, 'x', 'now' "
           "FROM sample s JOIN row r ON r.rowset_id = s.rowset_id WHERE s.sample_id = "
           "'alan_and_evelyn/001_s01e01_ct25_segment04' RETURNING 0",
           tu_path(dir, "clip.mp4"));
  ck_assert_int_eq(count(db, sql), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--tasks", "er",
                             "--out", tu_path(dir, "plain"), "--pseudonymise", NULL),
                   0);
  rec = tu_read(tu_path(dir, "plain/er.jsonl"), NULL);
  ck_assert_ptr_nonnull(strstr(rec, "\"clip_path\": \"\""));
  ck_assert_ptr_null(strstr(rec, "clip.mp4"));
  free(rec);
  ck_assert_int_eq(access(tu_path(dir, "plain/media"), F_OK), -1);
  rec = tu_read(tu_path(dir, "plain/README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(rec, "## Privacy\n\nPseudonymised: "));
  ck_assert_ptr_nonnull(strstr(rec, "No clips are included and clip paths are empty."));
  free(rec);
  ck_assert_int_eq(tu_rescue(&out, NULL, "export", db, "--format", "tasks", "--tasks", "er",
                             "--out", tu_path(dir, "media"), "--pseudonymise", "--with-media",
                             NULL),
                   0);
  free(out);
  rec = tu_read(tu_path(dir, "media/er.jsonl"), NULL);
  ck_assert_ptr_nonnull(strstr(rec, "\"clip_path\": \"media/couple_"));
  free(rec);
  rec = tu_read(tu_path(dir, "media/README.md"), NULL);
  ck_assert_ptr_nonnull(strstr(rec, "faces and voices in them are NOT anonymised"));
  free(rec);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "s.jsonl"), "--with-media", NULL),
                   2);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_audit_log) {
  char *dir, *db = fixture_corpus(&dir), *out = NULL, *manifest;
  rescue_sha256 h;
  char hex[65];
  size_t len;
  rescue_store *st = NULL;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "tasks", "--out",
                             tu_path(dir, "t"), "--pseudonymise", "--annotator", "lena", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "s.jsonl"), "--view", "latest", NULL),
                   0);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, NULL), 0);
  ck_assert_int_eq(rescue_sample_set_status(st, "family_therapy/003/merged", "discarded",
                                            "consent withdrawn", 0),
                   0);
  rescue_store_close(&st);
  manifest = tu_read(tu_path(dir, "t/manifest.json"), &len);
  rescue_sha256_init(&h);
  rescue_sha256_update(&h, manifest, len);
  rescue_sha256_hex(&h, hex);
  free(manifest);
  ck_assert_int_eq(tu_rescue(&out, NULL, "log", db, "--json", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"action\": \"pseudonyms\""));
  ck_assert_ptr_nonnull(strstr(out, "\"action\": \"import\""));
  ck_assert_ptr_nonnull(strstr(out, "\"annotator\": \"lena\""));
  ck_assert_ptr_nonnull(strstr(out, "\"pseudonymised\": true"));
  ck_assert_ptr_nonnull(strstr(out, hex));
  ck_assert_ptr_nonnull(strstr(out, "\"view\": \"latest\", \"pseudonymised\": false"));
  ck_assert_ptr_nonnull(strstr(out, "--format tasks --out"));
  ck_assert_ptr_nonnull(strstr(out, "family_therapy/003/merged: discarded (consent withdrawn)"));
  /* in time order: the pseudonyms before the exports, the status change last */
  ck_assert(strstr(out, "\"pseudonyms\"") < strstr(out, "\"pseudonymised\": true"));
  ck_assert(strstr(out, "\"pseudonymised\": true") < strstr(out, "consent withdrawn"));
  free(out);
  ck_assert_int_eq(tu_rescue(&out, NULL, "log", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "export      "));
  ck_assert_ptr_nonnull(strstr(out, "pseudonymised  tasks  -> "));
  free(out);
  free(db);
  free(dir);
}
END_TEST

/* ---- the audit trail, on the demo samples (no fixtures needed) ---- */

/* A corpus with the demo couple sample imported; *dir is its folder (caller frees). */
static char *demo_corpus(char **dir) {
  char *db = tu_new_corpus(), src[1024];
  snprintf(src, sizeof src, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, src, NULL), 0);
  *dir = strdup(db);
  *strrchr(*dir, '/') = 0;
  return db;
}

/* How many audit records of this action the corpus holds. */
static long audit_count(const char *db, const char *action) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM audit WHERE action = '%s'", action);
  return count(db, sql);
}

START_TEST(test_audit_with_each_change) {
  char *dir, *db = demo_corpus(&dir), *out = NULL, *err = NULL, src[1024];
  snprintf(src, sizeof src, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  /* the import: one record, with the command line */
  ck_assert_int_eq(audit_count(db, "import"), 1);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM audit WHERE action = 'import' AND command "
                             "LIKE '%import%couple.jsonl' AND detail LIKE '1 samples, %'"),
                   1);
  /* a refused import (bad input, then an unknown annotator) leaves none */
  tu_write(tu_path(dir, "bad.jsonl"), "{\"sample_id\": \"x/1\", \"rows\": 3}\n");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bad.jsonl"), NULL), 1);
  ck_assert_int_ne(tu_rescue(NULL, NULL, "import", db, src, "--annotator", "zoe", NULL), 0);
  ck_assert_int_eq(audit_count(db, "import"), 1);
  /* pseudonyms: a refusal leaves none, a change one */
  ck_assert_int_ne(tu_rescue(NULL, NULL, "pseudonyms", db, "--set", "Maya=Daniel", NULL), 0);
  ck_assert_int_eq(audit_count(db, "pseudonyms"), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(audit_count(db, "pseudonyms"), 1);
  /* status: an unknown sample leaves none; a change one, shown once by rescue log */
  ck_assert_int_ne(tu_rescue(NULL, NULL, "status", db, "nobody/1", "reviewed", NULL), 0);
  ck_assert_int_eq(audit_count(db, "status"), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "status", db, "maya_and_daniel/001_s01e01_segment01",
                             "discarded", "--reason", "consent withdrawn", NULL),
                   0);
  ck_assert_int_eq(audit_count(db, "status"), 1);
  ck_assert_int_eq(tu_rescue(&out, NULL, "log", db, NULL), 0);
  {
    const char *hit = strstr(out, "segment01: discarded (consent withdrawn)");
    ck_assert_ptr_nonnull(hit);
    ck_assert_ptr_null(strstr(hit + 1, "segment01: discarded (consent withdrawn)"));
    ck_assert_ptr_nonnull(strstr(out, "rescue status"));
  }
  free(out);
  /* assignment: an unknown annotator leaves none, a run one */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann1", NULL), 0);
  ck_assert_int_ne(
      tu_rescue(NULL, NULL, "assign", db, "--annotators", "zoe", "--overlap", "0", NULL), 0);
  ck_assert_int_eq(audit_count(db, "assign"), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "status", db, "maya_and_daniel/001_s01e01_segment01", "new", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "assign", db, "--annotators", "ann1", "--overlap", "0", NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(audit_count(db, "assign"), 1);
  /* adjudication: a dry run writes none, a run one */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, src, "--annotator", "ann1", NULL), 0);
  ck_assert_int_eq(audit_count(db, "import"), 2);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "adjudicate", db, "--policy", "latest", "--dry-run", NULL),
                   0);
  ck_assert_int_eq(audit_count(db, "adjudicate"), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "adjudicate", db, "--policy", "latest", NULL), 0);
  ck_assert_int_eq(audit_count(db, "adjudicate"), 1);
  free(db);
  free(dir);
}
END_TEST

/* A change whose audit record cannot be written is not made: both or neither. */
START_TEST(test_audit_failure_rolls_back) {
  char *dir, *db = demo_corpus(&dir), *err = NULL, src[1024];
  snprintf(src, sizeof src, "%s/tools/demo/family.jsonl", RESCUE_SOURCE_DIR);
  {
    sqlite3 *h = NULL;
    ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h,
                                  "CREATE TRIGGER no_audit BEFORE INSERT ON audit BEGIN SELECT "
                                  "RAISE(ABORT, 'audit refused'); END",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(h);
  }
  ck_assert_int_eq(tu_rescue(NULL, &err, "import", db, src, NULL), 1);
  ck_assert_msg(strstr(err, "audit refused"), "%s", err);
  free(err);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM sample"), 1);
  ck_assert_int_ne(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM pseudonym"), 0);
  ck_assert_int_ne(
      tu_rescue(NULL, NULL, "status", db, "maya_and_daniel/001_s01e01_segment01", "reviewed", NULL),
      0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM sample_status"), 0);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM audit"), 1); /* the first import's */
  free(db);
  free(dir);
}
END_TEST

/* Through the library: the handle's audit context, and a refused update leaves no record. */
START_TEST(test_audit_context) {
  char *dir, *db = demo_corpus(&dir);
  rescue_store *st = NULL;
  rescue_audit_context ctx = {"review-tool --auto", "alice"};
  const char *real[] = {"Maya", "Maya"}, *ps[] = {"Partner X", "Daniel"};
  long changed[2], added = 0;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, NULL), 0);
  ck_assert_int_eq(rescue_store_set_audit(st, &ctx), 0);
  /* the second step is refused (a real name of the group): nothing, not even the first */
  ck_assert_int_eq(rescue_pseudonym_update(st, real, ps, 2, 0, changed, NULL), RESCUE_EINVAL);
  ck_assert_int_eq(rescue_pseudonym_auto(st, &added), 0);
  rescue_store_close(&st);
  ck_assert_int_eq(added, 3);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM pseudonym WHERE pseudonym = 'Partner X'"), 0);
  ck_assert_int_eq(audit_count(db, "pseudonyms"), 1);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM audit WHERE action = 'pseudonyms' AND "
                             "os_user = 'alice' AND command = 'review-tool --auto'"),
                   1);
  free(db);
  free(dir);
}
END_TEST

/* An export is logged once its output is in place; a read-only corpus says it cannot log. */
START_TEST(test_audit_export) {
  char *dir, *db = demo_corpus(&dir), *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "pseudonyms", db, "--auto", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "a.jsonl"), NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "b.jsonl"), "--pseudonymise", NULL),
                   0);
  ck_assert_int_eq(audit_count(db, "export"), 2);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM audit WHERE action = 'export' AND "
                             "length(output_sha256) = 64"),
                   2);
  /* a refused export (the output exists) is not logged */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "b.jsonl"), "--pseudonymise", NULL),
                   1);
  ck_assert_int_eq(audit_count(db, "export"), 2);
  /* a read-only corpus: the export succeeds with a warning */
  ck_assert_int_eq(chmod(db, 0444), 0);
  if (access(db, W_OK) == 0) { /* root writes anyway: nothing to check */
    free(db);
    free(dir);
    return;
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "c.jsonl"), NULL),
                   0);
  ck_assert_msg(strstr(err, "rescue: export: warning: the export is not recorded in the "
                            "corpus's log: the corpus is opened read-only"),
                "%s", err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "samples", "--out",
                             tu_path(dir, "d.jsonl"), "--pseudonymise", NULL),
                   0);
  ck_assert_msg(strstr(err, "warning: the export is not recorded in the corpus's log: the "
                            "corpus is opened read-only"),
                "%s", err);
  ck_assert_ptr_nonnull(strstr(out, "wrote a pseudonymised samples export"));
  free(out);
  free(err);
  ck_assert_int_eq(access(tu_path(dir, "c.jsonl"), F_OK), 0);
  ck_assert_int_eq(access(tu_path(dir, "d.jsonl"), F_OK), 0);
  ck_assert_int_eq(audit_count(db, "export"), 2);
  free(db);
  free(dir);
}
END_TEST

/*
** `check_privacy audit` runs the audit tests, which need no fixtures; `check_privacy` the
** fixture tests, SKIPPED (77) without the fixtures unless RESCUE_REQUIRE_FIXTURES=1.
*/
int main(int argc, char **argv) {
  Suite *s = suite_create("privacy");
  TCase *tc = tcase_create("privacy");
  tcase_set_timeout(tc, 120);
  if (argc > 1 && strcmp(argv[1], "audit") == 0) {
    tcase_add_test(tc, test_audit_with_each_change);
    tcase_add_test(tc, test_audit_failure_rolls_back);
    tcase_add_test(tc, test_audit_context);
    tcase_add_test(tc, test_audit_export);
    suite_add_tcase(s, tc);
    return tu_run_suite(s);
  }
  tu_fixtures(); /* here, not in a forked test: a missing folder skips the suite */
  tcase_add_unchecked_fixture(tc, make_template, NULL);
  tcase_add_test(tc, test_map_auto_and_set);
  tcase_add_test(tc, test_export_every_format_without_names);
  tcase_add_test(tc, test_names_in_text_and_new_samples);
  tcase_add_test(tc, test_planted_name_fails_export);
  tcase_add_test(tc, test_same_scores);
  tcase_add_test(tc, test_media_copied_only_when_asked);
  tcase_add_test(tc, test_audit_log);
  tcase_add_test(tc, test_reserved_any_case);
  tcase_add_test(tc, test_review_names);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
