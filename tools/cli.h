/*
** cli.h: what every `rescue` subcommand shares: messages, usage, option helpers,
** progress bars. The CLI is a client of the library's public headers only.
*/
#ifndef RESCUE_CLI_H
#define RESCUE_CLI_H

#include <stdint.h>

#include "rescue.h"

/* A subcommand: `name` may be two words ("media add"). Returns the exit status. */
typedef struct cli_command {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} cli_command;

/* The subcommand being run, for message prefixes ("import", "media add"). */
extern const char *cli_name;

/* "rescue: <cmd>: <message>" on stderr. */
void cli_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A warning: "rescue: <cmd>: warning: <message>" on stderr. */
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/*
** The error's message with the CLI's hint for its code (the table in tools/cli.c) into out,
** cut to fit cap; path is the value of a hint's {path} (the corpus, an output) or NULL.
*/
void cli_message(const rescue_error *err, const char *path, char *out, size_t cap);
/* Print the error's message, with the CLI's hint for its code (tools/cli.c), and return 1. */
int cli_fail(const rescue_error *err);
/* The same for a failure about `path` (hints that name the path, as "rescue init <path>"). */
int cli_fail_path(const rescue_error *err, const char *path);
/*
** The failure of a call whose arguments came from the command line: an invalid argument
** (RESCUE_EINVAL) and an option that does not fit the corpus (a retired annotator, a lead
** to choose, a split asked of a corpus without one: RETIRED, NOLEAD, LEADS, NOSPLIT) are
** usage errors (message with its hint, then usage; returns 2), anything else is
** cli_fail_path (path: the corpus for hints that name it, or NULL; returns 1).
*/
int cli_fail_usage(const rescue_error *err, const char *path, const char *usage);
/* A usage error: message, then the usage text, on stderr; returns 2. */
int cli_usage_error(const char *usage, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* -h: usage on stdout; returns 0. */
int cli_help(const char *usage);
/*
** Print a report built in b on stdout and finish (cli_finish(0)); an incomplete buffer
** (allocation failed) prints nothing and returns 1.
*/
int cli_print(const rescue_buf *b);
/* Flush stdout and turn a write error into exit 1; returns rc otherwise. */
int cli_finish(int rc);

/*
** Parse options with getopt_long. Returns the option character, -1 at the end, or
** '?' after printing a usage error (the caller returns 2). Long options only are fine:
** give each a distinct value.
*/
struct option;
int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *usage);

/*
** ---- Declaring a command's options (git's parse-options is the model) ----
**
** A command declares its synopsis, its description, its positional arguments and one
** table of options; parsing, the -h text and validation all come from that table, so
** they cannot drift apart. -h/--help is added by cli_parse. A command:
**
**   static int json;
**   static const char *view;
**   static const cli_option opts[] = {
**       CLI_VIEW(&view),
**       CLI_JSON(&json, "print one JSON document"),
**       CLI_LONG(0, "seed", &seed, "<n>", "seed of the shuffle", 0, LONG_MAX),
**       CLI_END};
**   static const cli_spec spec = {"rescue stats <db> [--json]", "Corpus statistics...\n",
**                                 opts, 1, 1, "<db>"};
**   int first;
**   if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
**     return rc;                      // 0 after -h, 2 after a usage error
**   ... argv[first] is <db> ...
**
** Option values are written to the pointed-to variables (FLAG sets an int to 1, STRING a
** const char *, LONG a long, DOUBLE a double, SAMPLES a cli_list). A help text may hold
** '\n': its next lines are indented under the first. Options shared by several commands
** (CLI_SAMPLES, CLI_VIEW, CLI_JSON) are declared here once, with their help text and
** validation. Commands not yet converted still use cli_getopt below.
*/
typedef enum cli_opt_type {
  CLI_OPT_END,
  CLI_OPT_FLAG,   /* int: set to 1 */
  CLI_OPT_STRING, /* const char *: the argument */
  CLI_OPT_LONG,   /* long: a whole number in [min, max] */
  CLI_OPT_DOUBLE, /* double */
  CLI_OPT_SAMPLES /* cli_list: comma-separated sample ids */
} cli_opt_type;

/* A list option's value: n strings (release with cli_list_clear). */
typedef struct cli_list {
  char **v;
  int n;
} cli_list;
void cli_list_clear(cli_list *l);

typedef struct cli_option {
  cli_opt_type type;
  int short_name;        /* 0: none */
  const char *long_name; /* without "--" */
  void *value;
  const char *argh; /* the argument's placeholder ("<n>"); NULL for flags */
  const char *help;
  long min, max; /* CLI_OPT_LONG: accepted range */
  int required;  /* "missing --<name>" when absent */
} cli_option;

#define CLI_FLAG(s, l, v, h)                                                                       \
  { CLI_OPT_FLAG, (s), (l), (v), NULL, (h), 0, 0, 0 }
#define CLI_STRING(s, l, v, a, h)                                                                  \
  { CLI_OPT_STRING, (s), (l), (v), (a), (h), 0, 0, 0 }
#define CLI_STRING_REQ(s, l, v, a, h)                                                              \
  { CLI_OPT_STRING, (s), (l), (v), (a), (h), 0, 0, 1 }
#define CLI_LONG(s, l, v, a, h, lo, hi)                                                            \
  { CLI_OPT_LONG, (s), (l), (v), (a), (h), (lo), (hi), 0 }
#define CLI_LONG_REQ(s, l, v, a, h, lo, hi)                                                        \
  { CLI_OPT_LONG, (s), (l), (v), (a), (h), (lo), (hi), 1 }
#define CLI_DOUBLE(s, l, v, a, h)                                                                  \
  { CLI_OPT_DOUBLE, (s), (l), (v), (a), (h), 0, 0, 0 }
/* The shared options. */
#define CLI_JSON(v, h) CLI_FLAG(0, "json", (v), (h))
#define CLI_SAMPLES(v)                                                                             \
  {                                                                                                \
    CLI_OPT_SAMPLES, 0, "samples", (v), "<id,...>", "only these sample ids (comma-separated)", 0,  \
        0, 0                                                                                       \
  }
#define CLI_VIEW(v)                                                                                \
  CLI_STRING(0, "view", (v), "<view>",                                                             \
             "which version of each row: corpus (default), gold, latest or\nannotator:<name>")
#define CLI_END                                                                                    \
  { CLI_OPT_END, 0, NULL, NULL, NULL, NULL, 0, 0, 0 }

typedef struct cli_spec {
  const char *synopsis;    /* "rescue stats <db> [--json]" */
  const char *description; /* paragraphs, each line ending in '\n'; may be NULL */
  const cli_option *options;
  int min_args, max_args; /* positional arguments (max -1: any number) */
  const char *arg_name;   /* "<db>": the message for too few is "missing <db>" */
} cli_spec;

enum { CLI_PARSED = -1 };
/*
** Parse argv by spec: fills the option variables and sets *first to the index of the first
** positional argument. Returns CLI_PARSED, or the exit status to return at once: 0 after
** printing the help (-h), 2 after a usage error (message and usage on stderr).
*/
int cli_parse(int argc, char **argv, const cli_spec *spec, int *first);
/* cli_fail_usage for a command declared with a cli_spec. */
int cli_fail_spec(const rescue_error *err, const char *path, const cli_spec *spec);
/* A usage error found after parsing: message, then spec's usage, on stderr; returns 2. */
int cli_spec_error(const cli_spec *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The usage text of spec (as -h prints it) into b. */
void cli_usage_text(const cli_spec *spec, rescue_buf *b);

/* Split "a,b,c" into a NULL-terminated array (free with cli_free_list); NULL on error. */
char **cli_split_list(const char *s, int *n);
void cli_free_list(char **list);

/* Parse a number option; prints a usage error and returns -1 when it is not one. */
int cli_parse_double(const char *opt, const char *s, double *out, const char *usage);
int cli_parse_long(const char *opt, const char *s, long *out, const char *usage);

/* Open a corpus, printing the error (with the 'rescue init' hint) on failure. */
int cli_open_store(const char *path, int flags, rescue_store **st);

/*
** A progress bar on stderr, shown only when stderr is a terminal and the work has run
** for more than a second; cleared when done.
*/
typedef struct cli_progress cli_progress;
cli_progress *cli_progress_start(const char *title);
void cli_progress_update(void *progress, uint64_t done, uint64_t total);
void cli_progress_done(cli_progress **p);

/* The whole command line as given (before option parsing reorders argv), for logs. */
extern char *cli_cmdline;
/* The command line as one shell-quoted string ("rescue export c.db ..."); caller frees
** it with rescue_free; NULL when out of memory. argv[0] is the subcommand. */
char *cli_command_line(int argc, char **argv);
/*
** Record a finished command in the corpus's audit trail (rescue log) with the
** operating-system user; a failure to record is a warning, never an error.
*/
void cli_audit(const char *db, const char *action, int argc, char **argv, const char *annotator,
               const char *detail);

/* Subcommands. */
int cmd_init(int argc, char **argv);
int cmd_import(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_stats(int argc, char **argv);
int cmd_split(int argc, char **argv);
int cmd_score(int argc, char **argv);
int cmd_demo(int argc, char **argv);
int cmd_agree(int argc, char **argv);
int cmd_lint(int argc, char **argv);
int cmd_annotator_add(int argc, char **argv);
int cmd_annotator_list(int argc, char **argv);
int cmd_assign(int argc, char **argv);
int cmd_adjudicate(int argc, char **argv);
int cmd_draft(int argc, char **argv);
/* export without the --pseudonymise wrapper and the audit record (tools/export_safe.c) */
int export_run(int argc, char **argv);
int cmd_pseudonyms(int argc, char **argv);
int cmd_leakcheck(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_annotator_retire(int argc, char **argv);
int cmd_annotator_unretire(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_comment(int argc, char **argv);
int cmd_comments(int argc, char **argv);

/* Demo steps of the modules (tools/demo_<module>.c); 0 or 1 after a message. */
int demo_agree(const char *dir, rescue_store *st);

/* Demo steps of the modules (each prints where its results are). */
int demo_tasks(const char *dir, rescue_store *st);
int cmd_media_add(int argc, char **argv);
int cmd_media_list(int argc, char **argv);
int cmd_clip(int argc, char **argv);

/* The demo's media step (tools/demo_media.c): synthetic video, links, clips. */
int demo_media(const char *dir, rescue_store *st);

#endif
