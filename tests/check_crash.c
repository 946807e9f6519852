/*
** check_crash.c: crash safety. `rescue import` and `rescue export` are killed (SIGKILL,
** as `kill -9` would) at named points through the test-only RESCUE_CRASH_AT variable,
** which only rescue-test (the CLI over the test build of the library) obeys; after each
** kill the corpus passes PRAGMA integrity_check, holds all of the killed import or none
** of it, and the next run of the same command succeeds and leaves no temporary output
** behind. The shipped `rescue` ignores the variable.
*/
#include <dirent.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "testutil.h"

#define KILLED (128 + 9)

/* n samples "<group>/s<i>" of three rows each, shaped like the release's. */
static void write_samples(const char *path, const char *group, int n) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < n; i++)
    rescue_buf_printf(
        &b,
        "{\"sample_id\": \"%s/s%d\", \"scenario\": \"couple\", \"participants\": [\"Ana\", "
        "\"Ben\"], \"rows\": [{\"start_time\": 0.0, \"end_time\": 11.5, \"primary_speaker\": "
        "\"Ana\", \"target\": [\"Ben\"], \"dialogue_cleaned\": \"You never listen.\"}, "
        "{\"start_time\": 11.5, \"end_time\": 40.0, \"primary_speaker\": \"Therapist\", "
        "\"target\": [\"Ana\", \"Ben\"], \"dialogue_cleaned\": \"Let us slow down.\", "
        "\"support_strategy\": [{\"provider\": \"Therapist\", \"target\": [\"Ana\"], "
        "\"strategy_type\": \"track\", \"strategy_content\": \"names the cycle\"}]}, "
        "{\"start_time\": 52.0, \"end_time\": 53.0, \"primary_speaker\": \"Ben\", \"target\": "
        "[\"Ana\"], \"dialogue_cleaned\": \"Fine.\"}]}\n",
        group, i);
  ck_assert(rescue_buf_ok(&b));
  tu_write(path, b.s);
  rescue_buf_clear(&b);
}

/*
** Open the corpus as the next command would (a hot journal left by the kill is rolled
** back), check its integrity and count the samples of a group.
*/
static long check_and_count(const char *db, const char *group) {
  sqlite3 *h = NULL;
  sqlite3_stmt *s = NULL;
  char like[64];
  long n = -1;
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READWRITE, NULL), SQLITE_OK);
  sqlite3_busy_timeout(h, 5000);
  ck_assert_int_eq(sqlite3_prepare_v2(h, "PRAGMA integrity_check", -1, &s, NULL), SQLITE_OK);
  ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
  ck_assert_str_eq((const char *)sqlite3_column_text(s, 0), "ok");
  sqlite3_finalize(s);
  snprintf(like, sizeof like, "%s/%%", group);
  ck_assert_int_eq(
      sqlite3_prepare_v2(h, "SELECT count(*) FROM sample WHERE sample_id LIKE ?1", -1, &s, NULL),
      SQLITE_OK);
  sqlite3_bind_text(s, 1, like, -1, SQLITE_TRANSIENT);
  ck_assert_int_eq(sqlite3_step(s), SQLITE_ROW);
  n = (long)sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  sqlite3_close(h);
  return n;
}

/* Names in dir that are temporaries or old outputs of rescue ("x.tmp-...", "x.old-..."). */
static int leftovers(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d)) != NULL)
    n += strstr(e->d_name, ".tmp-") != NULL || strstr(e->d_name, ".old-") != NULL;
  closedir(d);
  return n;
}

static int run(const char *crash_at, const char *const *argv, char **err) {
  int rc;
  if (crash_at)
    setenv("RESCUE_CRASH_AT", crash_at, 1);
  else
    unsetenv("RESCUE_CRASH_AT");
  rc = tu_rescue_argv(argv, NULL, err);
  unsetenv("RESCUE_CRASH_AT");
  return rc;
}

/* An import killed before, during and at the end of its write: all or nothing. */
START_TEST(test_import_killed) {
  static const char *const points[] = {"import-checked", "import-writing", "import-before-commit"};
  size_t i;
  for (i = 0; i < sizeof points / sizeof points[0]; i++) {
    char *dir = tu_tmpdir(), *err = NULL, db[4096], a[4096], b[4096];
    snprintf(db, sizeof db, "%s", tu_path(dir, "c.db"));
    snprintf(a, sizeof a, "%s", tu_path(dir, "a.jsonl"));
    snprintf(b, sizeof b, "%s", tu_path(dir, "b.jsonl"));
    write_samples(a, "first", 5);
    write_samples(b, "second", 300);
    {
      const char *init[] = {"init", db, NULL}, *imp[] = {"import", db, a, NULL};
      ck_assert_int_eq(run(NULL, init, NULL), 0);
      ck_assert_int_eq(run(NULL, imp, NULL), 0);
    }
    {
      const char *imp[] = {"import", db, b, NULL};
      ck_assert_msg(run(points[i], imp, &err) == KILLED, "%s: not killed: %s", points[i], err);
      free(err);
      ck_assert_int_eq(check_and_count(db, "first"), 5);
      ck_assert_msg(check_and_count(db, "second") == 0, "%s: a killed import left samples",
                    points[i]);
      /* the next run succeeds and brings all of it */
      ck_assert_int_eq(run(NULL, imp, &err), 0);
      free(err);
      ck_assert_int_eq(check_and_count(db, "second"), 300);
      ck_assert_int_eq(check_and_count(db, "first"), 5);
    }
    free(dir);
  }
}
END_TEST

/*
** An export killed at each point: the output is absent (first export) or the old one,
** untouched, or the new one complete; never half. The next run of the same command
** succeeds and removes what the killed run left (1.4 GB of temporaries once stayed).
*/
START_TEST(test_export_killed) {
  static const char *const points[] = {"export-started", "export-complete", "export-replaced"};
  static const char *const formats[] = {"data-root", "tasks", "samples"};
  size_t i, f;
  for (f = 0; f < sizeof formats / sizeof formats[0]; f++)
    for (i = 0; i < sizeof points / sizeof points[0]; i++) {
      char *dir = tu_tmpdir(), *err = NULL, db[4096], a[4096], out[4096], probe[4200];
      int is_file = strcmp(formats[f], "samples") == 0;
      snprintf(db, sizeof db, "%s", tu_path(dir, "c.db"));
      snprintf(a, sizeof a, "%s", tu_path(dir, "a.jsonl"));
      snprintf(out, sizeof out, "%s", tu_path(dir, is_file ? "out.jsonl" : "out"));
      write_samples(a, "first", 20);
      {
        const char *init[] = {"init", db, NULL}, *imp[] = {"import", db, a, NULL};
        ck_assert_int_eq(run(NULL, init, NULL), 0);
        ck_assert_int_eq(run(NULL, imp, NULL), 0);
      }
      {
        const char *exp[] = {"export", db, "--format", formats[f], "--out", out, NULL};
        const char *force[] = {"export", db, "--format", formats[f], "--out", out, "--force", NULL};
        int rc = run(points[i], exp, &err);
        /* a first export has nothing to replace: export-replaced is never reached */
        if (strcmp(points[i], "export-replaced") == 0) {
          ck_assert_msg(rc == 0, "%s %s: %d %s", formats[f], points[i], rc, err);
        } else {
          ck_assert_msg(rc == KILLED, "%s %s: %d %s", formats[f], points[i], rc, err);
          ck_assert_msg(access(out, F_OK) != 0, "%s %s: a half output", formats[f], points[i]);
          ck_assert_int_gt(leftovers(dir), 0); /* what a kill leaves ... */
          free(err);
          rc = run(NULL, exp, &err);
          ck_assert_msg(rc == 0, "%s", err);
          ck_assert_int_eq(leftovers(dir), 0); /* ... the next run removes */
        }
        free(err);
        /* replacing: killed at each point, the old output or the new one is whole */
        snprintf(probe, sizeof probe, "%s%s", out, is_file ? "" : "/.rescue-output");
        rc = run(points[i], force, &err);
        /* a file is replaced by one rename: export-replaced is a folder's point only */
        ck_assert_msg(rc == (is_file && strcmp(points[i], "export-replaced") == 0 ? 0 : KILLED),
                      "%s %s --force: %d %s", formats[f], points[i], rc, err);
        free(err);
        ck_assert_msg(access(probe, F_OK) == 0, "%s %s: nothing at the output's name", formats[f],
                      points[i]);
        ck_assert_int_eq(check_and_count(db, "first"), 20);
        rc = run(NULL, force, &err);
        ck_assert_msg(rc == 0, "%s %s: next run: %s", formats[f], points[i], err);
        free(err);
        ck_assert_msg(leftovers(dir) == 0, "%s %s: leftovers stay", formats[f], points[i]);
        ck_assert_int_eq(access(probe, F_OK), 0);
      }
      free(dir);
    }
}
END_TEST

/* The shipped CLI has no crash points: the variable changes nothing there. */
START_TEST(test_shipped_cli_ignores_crash_points) {
  static const char *const points[] = {"import-checked", "import-writing", "import-before-commit",
                                       "export-started", "export-complete"};
  char *dir = tu_tmpdir(), *err = NULL, db[4096], a[4096], out[4096];
  size_t i;
  snprintf(db, sizeof db, "%s", tu_path(dir, "c.db"));
  snprintf(a, sizeof a, "%s", tu_path(dir, "a.jsonl"));
  snprintf(out, sizeof out, "%s", tu_path(dir, "out"));
  write_samples(a, "first", 5);
  tu_rescue_bin = RESCUE_BIN;
  ck_assert_int_eq(run(NULL, (const char *[]){"init", db, NULL}, NULL), 0);
  for (i = 0; i < sizeof points / sizeof points[0]; i++) {
    const char *imp[] = {"import", db, a, NULL};
    const char *exp[] = {"export", db, "--format", "data-root", "--out", out, "--force", NULL};
    const char *const *argv = strncmp(points[i], "import", 6) == 0 ? imp : exp;
    ck_assert_msg(run(points[i], argv, &err) == 0, "%s: %s", points[i], err);
    free(err);
  }
  ck_assert_int_eq(check_and_count(db, "first"), 5);
  ck_assert_int_eq(leftovers(dir), 0);
  tu_rescue_bin = RESCUE_TEST_BIN;
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("crash");
  TCase *tc = tcase_create("crash");
  tu_rescue_bin = RESCUE_TEST_BIN;
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_import_killed);
  tcase_add_test(tc, test_export_killed);
  tcase_add_test(tc, test_shipped_cli_ignores_crash_points);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
