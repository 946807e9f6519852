/*
** check_messages.c: the library's messages describe a failure and never name a CLI flag or
** command (the CLI adds those hints, by error code, in tools/cli.c). The test reads every
** .c and .h file of corpus/, annotate/ and export/, joins adjacent string literals outside
** comments, and fails on any literal that holds "--<letter>" or "rescue <subcommand>",
** apart from the few texts written for users that document how something was made.
*/
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* The CLI's subcommands (a literal "rescue <one of these>" names a command). */
static const char *const commands[] = {
    "init",  "import",    "export",  "stats",      "split", "score",      "demo",      "agree",
    "lint",  "annotator", "assign",  "adjudicate", "draft", "pseudonyms", "leakcheck", "log",
    "serve", "status",    "comment", "comments",   "media", "clip"};

/*
** Texts allowed to name options or commands: a file (all its literals) or a file and a
** piece of the literal. export/card.c writes the dataset card, which records the options an
** export was built with; corpus/output.c writes a marker file into an export folder for
** people who find it; export/pseudo_corpus.c writes the pseudonymisation note of an export.
*/
static const struct allowed {
  const char *file;
  const char *piece; /* NULL: the whole file */
} allowed[] = {
    {"export/card.c", NULL},
    {"corpus/output.c", "written by rescue; 'rescue export --force' may replace this folder"},
    {"export/pseudo_corpus.c", "(rescue export --pseudonymise)"},
};

/* 1 when literal s names a flag ("--x") or a command ("rescue clip", "'rescue "). */
static int names_cli(const char *s) {
  const char *p;
  size_t i;
  for (p = s; (p = strstr(p, "--")) != NULL; p += 2)
    if (islower((unsigned char)p[2]) && (p == s || !isalnum((unsigned char)p[-1])))
      return 1;
  if (strstr(s, "'rescue "))
    return 1;
  for (p = s; (p = strstr(p, "rescue ")) != NULL; p += 7)
    for (i = 0; i < sizeof commands / sizeof commands[0]; i++) {
      size_t n = strlen(commands[i]);
      if (strncmp(p + 7, commands[i], n) == 0 && !isalnum((unsigned char)p[7 + n]) &&
          p[7 + n] != '_')
        return 1;
    }
  return 0;
}

static int is_allowed(const char *file, const char *lit) {
  size_t i;
  for (i = 0; i < sizeof allowed / sizeof allowed[0]; i++)
    if (strcmp(allowed[i].file, file) == 0 && (!allowed[i].piece || strstr(lit, allowed[i].piece)))
      return 1;
  return 0;
}

/*
** Scan the C text of one file: every run of adjacent string literals (separated only by
** space and comments) is joined and checked. Escapes are kept as written, which is enough
** for the patterns. Offenders are appended to report as "file:line: literal".
*/
static int scan(const char *file, const char *text, rescue_buf *report) {
  const char *p = text;
  int line = 1, bad = 0, lit_line = 0, in_lit = 0;
  rescue_buf lit = RESCUE_BUF_INIT;
  while (*p) {
    int ends_literal = 1;
    if (p[0] == '/' && p[1] == '*') {
      for (p += 2; *p && !(p[0] == '*' && p[1] == '/'); p++)
        line += *p == '\n';
      p += *p ? 2 : 0;
      ends_literal = 0;
    } else if (p[0] == '/' && p[1] == '/') {
      while (*p && *p != '\n')
        p++;
      ends_literal = 0;
    } else if (*p == '\'') {
      for (p++; *p && *p != '\''; p++)
        if (*p == '\\' && p[1])
          p++;
      p += *p ? 1 : 0;
    } else if (*p == '"') {
      if (!in_lit) {
        rescue_buf_reset(&lit);
        lit_line = line;
        in_lit = 1;
      }
      for (p++; *p && *p != '"' && *p != '\n'; p++) {
        if (*p == '\\' && p[1])
          rescue_buf_putc(&lit, *p++);
        rescue_buf_putc(&lit, *p);
      }
      p += *p == '"';
      ends_literal = 0;
    } else if (isspace((unsigned char)*p)) {
      line += *p == '\n';
      p++;
      ends_literal = 0;
    } else {
      p++;
    }
    if (ends_literal && in_lit) {
      in_lit = 0;
      if (lit.s && names_cli(lit.s) && !is_allowed(file, lit.s)) {
        rescue_buf_printf(report, "%s:%d: \"%s\"\n", file, lit_line, lit.s);
        bad++;
      }
    }
  }
  rescue_buf_clear(&lit);
  return bad;
}

/* The literal scanner itself, on made-up text. */
START_TEST(test_scanner) {
  rescue_buf r = RESCUE_BUF_INIT;
  ck_assert_int_eq(scan("x.c", "f(\"use --force\");", &r), 1);
  ck_assert_int_eq(scan("x.c", "f(\"run 'rescue \"\n  \"split' first\");", &r), 1);
  ck_assert_int_eq(scan("x.c", "f(\"(rescue annotator \" /* c */ \"unretire)\");", &r), 1);
  ck_assert_int_eq(scan("x.c", "f(\"rescue clip\");", &r), 1);
  ck_assert_int_eq(scan("x.c", "/* use --force */ f(\"a rescue corpus\", '\"');", &r), 0);
  ck_assert_int_eq(scan("x.c", "f(\"--\"); g(\"a-b--c\"); h(\"rescue row record\");", &r), 0);
  ck_assert_int_eq(scan("x.c", "// \"--force\"\nf(\"x\");", &r), 0);
  ck_assert_int_eq(scan("export/card.c", "f(\"`--tasks`\");", &r), 0);
  rescue_buf_clear(&r);
}
END_TEST

START_TEST(test_library_messages_name_no_cli) {
  static const char *const dirs[] = {"corpus", "annotate", "export"};
  rescue_buf report = RESCUE_BUF_INIT;
  int bad = 0, files = 0;
  size_t d;
  for (d = 0; d < sizeof dirs / sizeof dirs[0]; d++) {
    char path[4096];
    DIR *dir;
    struct dirent *e;
    snprintf(path, sizeof path, "%s/%s", RESCUE_SOURCE_DIR, dirs[d]);
    dir = opendir(path);
    ck_assert_msg(dir != NULL, "cannot open %s", path);
    while ((e = readdir(dir)) != NULL) {
      size_t n = strlen(e->d_name);
      char rel[512], *text;
      if (n < 3 || (strcmp(e->d_name + n - 2, ".c") != 0 && strcmp(e->d_name + n - 2, ".h") != 0))
        continue;
      snprintf(rel, sizeof rel, "%s/%s", dirs[d], e->d_name);
      snprintf(path, sizeof path, "%s/%s", RESCUE_SOURCE_DIR, rel);
      text = tu_read(path, NULL);
      bad += scan(rel, text, &report);
      files++;
      free(text);
    }
    closedir(dir);
  }
  ck_assert_int_gt(files, 30);
  if (bad)
    fputs(report.s, stderr); /* the whole list (a Check message is cut short) */
  ck_assert_msg(bad == 0,
                "%d library message(s) name a CLI flag or command (listed above): give the "
                "failure an error code and put the hint in tools/cli.c's cli_hints[]",
                bad);
  rescue_buf_clear(&report);
}
END_TEST

/* The error table: distinct codes, each with a name and a message; rescue_seterr_arg. */
START_TEST(test_error_table) {
  static const int codes[] = {
#define CODE_(name, code, msg) code,
      RESCUE_ERRORS(CODE_)
#undef CODE_
  };
  rescue_error e = RESCUE_ERROR_INIT;
  size_t i, j, n = sizeof codes / sizeof codes[0];
  for (i = 0; i < n; i++) {
    ck_assert_int_lt(codes[i], 0);
    ck_assert_str_ne(rescue_errname(codes[i]), "UNKNOWN");
    ck_assert_str_ne(rescue_strerror(codes[i]), "unknown error");
    for (j = 0; j < i; j++)
      ck_assert_int_ne(codes[i], codes[j]);
  }
  ck_assert_int_eq(
      rescue_seterr_arg(&e, RESCUE_ERETIRED, "ann", "annotator '%s' is retired", "ann"),
      RESCUE_ERETIRED);
  ck_assert_str_eq(e.msg, "annotator 'ann' is retired");
  ck_assert_str_eq(e.arg, "ann");
  /* a later error does not keep an earlier one's arg */
  rescue_seterr(&e, RESCUE_EIO, "x");
  ck_assert_str_eq(e.arg, "");
  rescue_seterr(&e, RESCUE_EBADINPUT, "f:1:1: a record of itp");
  ck_assert_int_eq(rescue_err_recode(&e, RESCUE_EOTHERTASK, "itp"), RESCUE_EOTHERTASK);
  ck_assert_str_eq(e.msg, "f:1:1: a record of itp");
  ck_assert_str_eq(e.arg, "itp");
}
END_TEST

/*
** Outputs: an existing output is RESCUE_ENOTEMPTY and one that is not rescue's own
** RESCUE_ENOTOURS, with messages that say so without the CLI's --force.
*/
START_TEST(test_output_codes) {
  char *dir = tu_tmpdir();
  const char *file = tu_path(dir, "notes.txt");
  rescue_output *o = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  tu_write(file, "mine\n");
  ck_assert_int_eq(rescue_output_begin(file, 0, 0, &o, &e), RESCUE_ENOTEMPTY);
  ck_assert_ptr_null(o);
  ck_assert_msg(strstr(e.msg, "already exists and is not empty") && !strstr(e.msg, "--"), "%s",
                e.msg);
  ck_assert_int_eq(rescue_output_begin(file, 0, 1, &o, &e), RESCUE_ENOTOURS);
  ck_assert_msg(strstr(e.msg, "was not written by rescue") && !strstr(e.msg, "--"), "%s", e.msg);
  ck_assert_int_eq(rescue_output_begin(dir, 1, 1, &o, &e), RESCUE_ENOTOURS);
  ck_assert_msg(!strstr(e.msg, "--"), "%s", e.msg);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("messages");
  TCase *tc = tcase_create("messages");
  tcase_add_test(tc, test_scanner);
  tcase_add_test(tc, test_library_messages_name_no_cli);
  tcase_add_test(tc, test_error_table);
  tcase_add_test(tc, test_output_codes);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
