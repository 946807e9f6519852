/*
** check_cli_options.c: every command's options as its table declares them (tools/cli.h):
** -h lists each option, each is accepted, and the usage errors the table gives (unknown
** option, missing value, bad number, value out of range or outside a choice set, missing
** required option, options that need or exclude another) exit 2 with
** "rescue: <cmd>: <message>" and the usage; --samples behaves the same in every command.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/*
** Every command with the options it takes (the contract: README lists them). A name
** ending in '=' takes a value; the others are flags. `missing` is the message with no
** argument at all.
*/
typedef struct command {
  const char *name; /* "media add" */
  const char *options[20];
  const char *missing;
} command;

static const command commands[] = {
    {"init", {"scheme="}, "missing <db>"},
    {"backup", {NULL}, "missing <db> and <file>"},
    {"import",
     {"format=", "annotator=", "sample=", "tiers=", "resegment", "strict", "json"},
     "missing <db> and <path>"},
    {"export",
     {"format=", "out=", "force", "view=", "samples=", "include-discarded", "annotator=",
      "pseudonymise", "with-media", "tasks=", "clip-root=", "split=", "checkpoints-per-sample=",
      "min-dialogue-words=", "itp-cap-per-class=", "blind", "answers=", "require-clips"},
     "missing <db>"},
    {"stats", {"json"}, "missing <db>"},
    {"media add", {"sample=", "start=", "end=", "map=", "media-root="}, "missing <db>"},
    {"media list", {NULL}, "missing <db>"},
    {"clip",
     {"out=", "mode=", "pad=", "jobs=", "shard=", "samples=", "rows=", "path-base=", "check",
      "json"},
     "missing <db>"},
    {"annotator add", {"role="}, "missing <db> and <name>"},
    {"annotator list", {"json"}, "missing <db>"},
    {"annotator retire", {"reason="}, "missing <db> and <name>"},
    {"annotator unretire", {"reason="}, "missing <db> and <name>"},
    {"annotator token", {"rotate"}, "missing <db> and <name>"},
    {"assign", {"annotators=", "overlap=", "seed=", "list", "annotator=", "json"}, "missing <db>"},
    {"status", {"reason=", "annotator=", "json"}, "missing <db> and <sample_id>"},
    {"comment", {"annotator="}, "missing <db>, <sample_id> and <text>"},
    {"comments", {"samples=", "json"}, "missing <db>"},
    {"lint", {"samples=", "view=", "json", "waive=", "reason=", "by=", "unwaive="}, "missing <db>"},
    {"agree",
     {"field=", "coders=", "samples=", "by=", "ci=", "ci-unit=", "seed=", "input=", "level=",
      "continuum=", "grid=", "format=", "json"},
     "missing <db> or --input"},
    {"adjudicate",
     {"policy=", "lead=", "coders=", "samples=", "decide=", "dry-run", "json"},
     "missing <db>"},
    {"serve",
     {"listen=", "assets=", "tls-cert=", "tls-key=", "public-host=", "insecure-listen"},
     "missing <db>"},
    {"split", {"ratios=", "seed=", "no-stratify"}, "missing <db>"},
    {"draft",
     {"model-cmd=", "annotator=", "samples=", "rows-per-request=", "jobs=", "timeout=", "retries=",
      "prompt=", "shard=", "out=", "merge", "print-prompt", "json"},
     "missing <db>"},
    {"score", {"gold=", "pred=", "protocol=", "allow-missing", "json"}, "missing <task>"},
    {"pseudonyms", {"set=", "auto", "list", "json"}, "missing <db>"},
    {"leakcheck", {"db=", "json"}, "missing <export path>"},
    {"log", {"json"}, "missing <db>"},
    {"demo", {"out="}, NULL},
};
enum { N_COMMANDS = sizeof commands / sizeof commands[0] };

/* Run `rescue <cmd words> <args...>` (args NULL-terminated, at most 16). */
static int run(const char *cmd, char **out, char **err, const char *const *args) {
  const char *argv[24];
  char words[64];
  char *sp;
  int n = 0, i;
  snprintf(words, sizeof words, "%s", cmd);
  argv[n++] = words;
  if ((sp = strchr(words, ' ')) != NULL) {
    *sp = 0;
    argv[n++] = sp + 1;
  }
  for (i = 0; args[i]; i++)
    argv[n++] = args[i];
  argv[n] = NULL;
  return tu_rescue_argv(argv, out, err);
}

#define RUN(cmd, out, err, ...) run((cmd), (out), (err), (const char *const[]){__VA_ARGS__, NULL})

/* A usage error: exit 2, "rescue: <cmd>: <want>" and then the usage on stderr. */
static void usage_error(const char *cmd, int rc, char *out, char *err, const char *want) {
  char prefix[256], usage[128];
  snprintf(prefix, sizeof prefix, "rescue: %s: %s", cmd, want);
  snprintf(usage, sizeof usage, "rescue %s ", cmd); /* in the synopsis (may be its 2nd line) */
  ck_assert_msg(rc == 2, "%s (%s): exit %d, stderr: %s", cmd, want, rc, err);
  ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "%s: wanted '%s', got: %s", cmd, prefix,
                err);
  ck_assert_msg(strstr(err, "\n\nusage: rescue ") && strstr(strstr(err, "\nusage: "), usage),
                "%s: no usage after the message: %s", cmd, err);
  ck_assert_msg(strcmp(out, "") == 0, "%s: stdout on a usage error: %s", cmd, out);
  free(out);
  free(err);
}

/* Whether the help text lists option --name (at a line's option column). */
static int lists_option(const char *help, const char *name, size_t len) {
  const char *p = help;
  while ((p = strstr(p, "\n  --")) != NULL) {
    p += 5;
    if (strncmp(p, name, len) == 0 && (p[len] == ' ' || p[len] == '\n'))
      return 1;
  }
  return 0;
}

/* Every command in `rescue --help` is in the table above, and the other way round. */
START_TEST(test_every_command_listed) {
  char *out, *err, *line;
  int seen[N_COMMANDS], n = 0, i;
  memset(seen, 0, sizeof seen);
  ck_assert_int_eq(tu_rescue(&out, &err, "--help", NULL), 0);
  line = strstr(out, "commands:\n");
  ck_assert_ptr_nonnull(line);
  for (line = strchr(line, '\n') + 1; strncmp(line, "   ", 3) == 0; line = strchr(line, '\n') + 1) {
    char name[32];
    int len = 18;
    while (len > 0 && line[3 + len - 1] == ' ')
      len--;
    snprintf(name, sizeof name, "%.*s", len, line + 3);
    for (i = 0; i < N_COMMANDS && strcmp(commands[i].name, name) != 0; i++)
      ;
    ck_assert_msg(i < N_COMMANDS, "command '%s' has no entry in check_cli_options.c", name);
    seen[i] = 1;
    n++;
  }
  for (i = 0; i < N_COMMANDS; i++)
    ck_assert_msg(seen[i], "'%s' is not in 'rescue --help'", commands[i].name);
  ck_assert_int_eq(n, N_COMMANDS);
  free(out);
  free(err);
}
END_TEST

/* -h and --help: exit 0, the usage on stdout, every option listed, nothing on stderr. */
START_TEST(test_help_lists_every_option) {
  const command *c = &commands[_i];
  char *out, *err, *out2, *err2, usage[64];
  int i;
  snprintf(usage, sizeof usage, "rescue %s ", c->name);
  ck_assert_int_eq(RUN(c->name, &out, &err, "-h"), 0);
  ck_assert_msg(strncmp(out, "usage: rescue ", 14) == 0 && strstr(out, usage) &&
                    strstr(out, usage) < strstr(out, "\n\n"),
                "%s -h: %s", c->name, out);
  ck_assert_str_eq(err, "");
  ck_assert_msg(strstr(out, "\noptions:\n") != NULL, "%s -h: no options section", c->name);
  ck_assert_msg(strstr(out, "\n  -h, --help ") != NULL, "%s -h: no -h line", c->name);
  for (i = 0; c->options[i]; i++) {
    const char *o = c->options[i];
    size_t len = strcspn(o, "=");
    ck_assert_msg(lists_option(out, o, len), "%s -h does not list --%.*s:\n%s", c->name, (int)len,
                  o, out);
  }
  ck_assert_int_eq(RUN(c->name, &out2, &err2, "--help"), 0);
  ck_assert_str_eq(out2, out);
  free(out);
  free(err);
  free(out2);
  free(err2);
}
END_TEST

/* An unknown option, a missing value, a value given to a flag, too few arguments. */
START_TEST(test_usage_errors_of_every_command) {
  const command *c = &commands[_i];
  char *out, *err, opt[64], want[96];
  int i, rc;
  rc = RUN(c->name, &out, &err, "--no-such-option");
  usage_error(c->name, rc, out, err, "unknown option '--no-such-option'");
  rc = RUN(c->name, &out, &err, "-Z");
  usage_error(c->name, rc, out, err, "unknown option '-Z'");
  for (i = 0; c->options[i]; i++) {
    const char *o = c->options[i];
    size_t len = strcspn(o, "=");
    snprintf(opt, sizeof opt, "--%.*s", (int)len, o);
    if (o[len] == '=') {
      /* the option last, without its value */
      rc = RUN(c->name, &out, &err, opt);
      snprintf(want, sizeof want, "option '%s' needs a value", opt);
    } else {
      snprintf(opt, sizeof opt, "--%.*s=x", (int)len, o);
      rc = RUN(c->name, &out, &err, opt);
      snprintf(want, sizeof want, "option '--%.*s' takes no value", (int)len, o);
    }
    usage_error(c->name, rc, out, err, want);
  }
  if (c->missing) {
    /* no arguments at all */
    {
      const char *argv[4] = {NULL};
      char words[64], *sp;
      snprintf(words, sizeof words, "%s", c->name);
      argv[0] = words;
      if ((sp = strchr(words, ' ')) != NULL) {
        *sp = 0;
        argv[1] = sp + 1;
      }
      rc = tu_rescue_argv(argv, &out, &err);
      usage_error(c->name, rc, out, err, c->missing);
    }
  }
}
END_TEST

/* Numbers, ranges, choice sets, required options, needs and exclusions from the tables. */
START_TEST(test_values_checked_by_the_tables) {
  static const struct {
    const char *cmd, *args[8], *want;
  } cases[] = {
      /* not a number */
      {"split", {"x.db", "--ratios", "1,1,1", "--seed", "ten"}, "--seed expects a whole number"},
      {"agree", {"x.db", "--ci", "1e3"}, "--ci expects a whole number, not '1e3'"},
      {"draft", {"x.db", "--jobs", "two"}, "--jobs expects a whole number, not 'two'"},
      {"clip", {"x.db", "--out", "o", "--pad", "0.5s"}, "--pad expects a number, not '0.5s'"},
      {"clip", {"x.db", "--out", "o", "--pad", "nan"}, "--pad expects a number, not 'nan'"},
      {"assign", {"x.db", "--overlap", ""}, "--overlap expects a number, not ''"},
      {"draft", {"x.db", "--timeout", "inf"}, "--timeout expects a number, not 'inf'"},
      {"export",
       {"x.db", "--format", "tasks", "--out", "o", "--itp-cap-per-class", "2.5"},
       "--itp-cap-per-class expects a whole number, not '2.5'"},
      /* out of range */
      {"split",
       {"x.db", "--ratios", "1,1,1", "--seed", "-1"},
       "--seed expects a whole number >= 0"},
      {"agree", {"x.db", "--ci", "0"}, "--ci expects a whole number from 1 to 1000000, not '0'"},
      {"agree", {"x.db", "--seed", "-3"}, "--seed expects a whole number >= 0, not '-3'"},
      {"assign", {"x.db", "--overlap", "1.5"}, "--overlap is a share from 0 to 1, not '1.5'"},
      {"clip", {"x.db", "--out", "o", "--jobs", "257"}, "--jobs must be between 1 and 256"},
      {"clip", {"x.db", "--out", "o", "--pad", "-0.1"}, "--pad must be >= 0"},
      {"draft", {"x.db", "--jobs", "65"}, "--jobs must be between 1 and 64"},
      {"draft", {"x.db", "--retries", "-1"}, "--retries must be 0 or more"},
      {"draft", {"x.db", "--rows-per-request", "0"}, "--rows-per-request must be 1 or more"},
      {"draft", {"x.db", "--timeout", "0"}, "--timeout must be more than 0 seconds"},
      {"export",
       {"x.db", "--format", "tasks", "--out", "o", "--min-dialogue-words", "-1"},
       "--min-dialogue-words expects a whole number from 0 to 1000000, not '-1'"},
      /* outside the choice set: the message lists the choices */
      {"agree", {"x.db", "--by", "couple"}, "--by expects scenario or sample, not 'couple'"},
      {"agree", {"x.db", "--format", "xml"}, "--format expects text, json or csv, not 'xml'"},
      {"agree", {"x.db", "--ci", "9", "--ci-unit", "row"}, "--ci-unit expects sample or unit"},
      {"score",
       {"itp", "--gold", "g", "--pred", "p", "--protocol", "paper"},
       "unknown protocol 'paper' (expected rescue or release)"},
      {"clip", {"x.db", "--out", "o", "--mode", "fast"}, "unknown mode 'fast' (expected copy"},
      {"export",
       {"x.db", "--format", "xml", "--out", "o"},
       "unknown format 'xml' (expected samples, data-root, tasks or eaf)"},
      {"export",
       {"x.db", "--format", "tasks", "--out", "o", "--split", "dev"},
       "unknown split 'dev' (expected train, validation or test)"},
      {"export",
       {"x.db", "--format", "tasks", "--out", "o", "--tasks", "itp,xyz"},
       "unknown task 'xyz'"},
      {"import", {"x.db", "y", "--format", "csv"}, "unknown format 'csv' (expected auto, jsonl"},
      {"annotator add", {"x.db", "ann", "--role", "boss"}, "unknown role 'boss'"},
      {"adjudicate", {"x.db", "--policy", "vote"}, "unknown policy 'vote'"},
      /* callbacks */
      {"clip", {"x.db", "--out", "o", "--shard", "4/3"}, "--shard expects i/n"},
      {"clip", {"x.db", "--out", "o", "--rows", "0"}, "--rows expects row numbers from 1"},
      {"pseudonyms", {"x.db", "--set", "Ana"}, "--set expects <real>=<pseudonym>, not 'Ana'"},
      {"import", {"x.db", "y", "--annotator", ""}, "invalid annotator name"},
      /* required options */
      {"split", {"x.db", "--seed", "1"}, "missing --ratios"},
      {"split", {"x.db", "--ratios", "1,1,1"}, "missing --seed"},
      {"export", {"x.db", "--out", "o"}, "missing --format"},
      {"export", {"x.db", "--format", "samples"}, "missing --out"},
      {"clip", {"x.db"}, "missing --out"},
      {"leakcheck", {"out.jsonl"}, "missing --db"},
      /* needs, exclusive groups, too many arguments */
      {"agree", {"x.db", "--ci-unit", "unit"}, "--ci-unit needs --ci"},
      {"agree",
       {"--input", "x.tsv", "--level", "unitizing"},
       "--level unitizing needs --continuum <start>,<end>"},
      {"agree", {"x.db", "--continuum", "0,1"}, "--continuum applies to --input with --level"},
      {"export",
       {"x.db", "--format", "tasks", "--out", "o", "--with-media"},
       "--with-media needs --pseudonymise"},
      {"lint",
       {"x.db", "--waive", "R01:a:1", "--unwaive", "R01:a:1"},
       "give --waive or --unwaive, not both"},
      {"export",
       {"x.db", "--format", "samples", "--out", "o", "--blind"},
       "--blind applies to --format tasks only"},
      {"stats", {"x.db", "y.db"}, "unexpected argument 'y.db'"},
      {"comment", {"x.db", "s", "two", "words"}, "too many arguments (quote the text)"},
  };
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char *out, *err;
    int rc = run(cases[i].cmd, &out, &err, cases[i].args);
    usage_error(cases[i].cmd, rc, out, err, cases[i].want);
  }
}
END_TEST

/*
** --samples, in every command that takes it: an empty list is refused with the same
** message; empty items are skipped; the last --samples counts. Parsing passes on to
** opening the corpus (exit 1 for a missing one), never a usage error.
*/
START_TEST(test_samples_the_same_everywhere) {
  static const struct {
    const char *cmd, *args[8];
  } takers[] = {
      {"export", {"--format", "samples", "--out", "o.jsonl"}},
      {"lint", {NULL}},
      {"agree", {NULL}},
      {"adjudicate", {"--policy", "latest"}},
      {"clip", {"--out", "clips"}},
      {"draft", {"--annotator", "m", "--model-cmd", "true"}},
      {"comments", {NULL}},
  };
  static const char *const empty[] = {"", ",", ",,"};
  static const char *const fine[] = {"a", "a,,b", "a,b,", ",a"};
  char *dir = tu_tmpdir(), *out, *err, help_line[] = "\n  --samples <id,...>";
  const char *db = tu_path(dir, "none.db");
  size_t t, k;
  for (t = 0; t < sizeof takers / sizeof takers[0]; t++) {
    const char *argv[16];
    int n = 0, j, rc;
    argv[n++] = takers[t].cmd;
    argv[n++] = db;
    for (j = 0; takers[t].args[j]; j++)
      argv[n++] = takers[t].args[j];
    argv[n + 2] = NULL;
    argv[n] = "--samples";
    for (k = 0; k < sizeof empty / sizeof empty[0]; k++) {
      argv[n + 1] = empty[k];
      rc = tu_rescue_argv(argv, &out, &err);
      usage_error(takers[t].cmd, rc, out, err, "--samples needs at least one sample id");
    }
    for (k = 0; k < sizeof fine / sizeof fine[0]; k++) {
      argv[n + 1] = fine[k];
      rc = tu_rescue_argv(argv, &out, &err);
      ck_assert_msg(rc == 1 && !strstr(err, "usage:"), "%s --samples '%s': exit %d: %s",
                    takers[t].cmd, fine[k], rc, err);
      free(out);
      free(err);
    }
    /* given twice: the last one counts (an empty last one is refused) */
    argv[n + 1] = "a";
    argv[n + 2] = "--samples";
    argv[n + 3] = "";
    argv[n + 4] = NULL;
    rc = tu_rescue_argv(argv, &out, &err);
    usage_error(takers[t].cmd, rc, out, err, "--samples needs at least one sample id");
    /* one help line, the same placeholder everywhere */
    ck_assert_int_eq(RUN(takers[t].cmd, &out, &err, "-h"), 0);
    ck_assert_msg(strstr(out, help_line) != NULL, "%s -h: %s", takers[t].cmd, out);
    free(out);
    free(err);
  }
  free(dir);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("cli_options");
  TCase *t = tcase_create("tables");
  tcase_set_timeout(t, 300);
  tcase_add_test(t, test_every_command_listed);
  tcase_add_loop_test(t, test_help_lists_every_option, 0, N_COMMANDS);
  tcase_add_loop_test(t, test_usage_errors_of_every_command, 0, N_COMMANDS);
  tcase_add_test(t, test_values_checked_by_the_tables);
  tcase_add_test(t, test_samples_the_same_everywhere);
  suite_add_tcase(s, t);
  return s;
}

int main(void) { return tu_run_suite(suite()); }
