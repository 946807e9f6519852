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
** Print a report built in b on stdout and finish (cli_finish(0)); an incomplete buffer
** (allocation failed) prints nothing and returns 1.
*/
int cli_print(const rescue_buf *b);
/* Flush stdout and turn a write error into exit 1; returns rc otherwise. */
int cli_finish(int rc);

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
** Option values are written to the pointed-to variables; each kind says its variable's
** type below. A help text may hold '\n': its next lines are indented under the first.
** Options shared by several commands (CLI_SAMPLES, CLI_VIEW, CLI_JSON) are declared here
** once, with their help text and validation.
**
** Every usage error is "rescue: <cmd>: <message>", then the usage, on stderr, and exit
** status 2. The messages (an option's `bad` replaces the value message, its %s being the
** value):
**   unknown option '--x' / '-x'        option '--x' needs a value
**   --n expects a whole number, not 'v'           (LONG, not a number)
**   --n expects a whole number from A to B, not 'v' / >= A, not 'v'   (LONG, range)
**   --n expects a number, not 'v'                 (DOUBLE: not a finite number)
**   --n expects a number from A to B, not 'v'     (DOUBLE, range)
**   --n expects a, b or c, not 'v'     (CHOICE; with `bad`: bad + " (expected a, b or c)")
**   --n needs at least one value       (LIST with no item; SAMPLES says "sample id")
**   missing <db> and <path>            (too few positional arguments, named by arg_name)
**   unexpected argument 'x'            (too many)
**   missing --n                        (a required option absent)
**   --n needs --m                      (`needs`: an option given without the one it needs)
**   give --n or --m, not both          (`group`: two options of one exclusive group)
** A command checks what a table cannot say (combinations of values) after cli_parse and
** reports it with cli_spec_error, so it looks the same. A table holds at most 62 options.
*/
typedef enum cli_opt_type {
  CLI_OPT_END,
  CLI_OPT_FLAG,     /* int: set to 1 */
  CLI_OPT_STRING,   /* const char *: the argument */
  CLI_OPT_LONG,     /* long: a whole number, in [min, max] when min < max */
  CLI_OPT_DOUBLE,   /* double: a finite number, in [lo, hi] when lo < hi */
  CLI_OPT_SAMPLES,  /* cli_list: comma-separated sample ids, as LIST */
  CLI_OPT_LIST,     /* cli_list: comma-separated values, empty items skipped ("a,,b" is a, b),
                       at least one; given again, the last one counts */
  CLI_OPT_APPEND,   /* cli_list: repeatable, each argument appended as it is */
  CLI_OPT_CHOICE,   /* int: the index in choices (a NULL-terminated list) of the argument */
  CLI_OPT_CALLBACK, /* callback(spec, option, argument) stores and checks it itself; without
                       argh it takes no value (argument NULL) */
  CLI_OPT_HEADING   /* not an option: a heading in the -h text ("options of --format tasks:") */
} cli_opt_type;

/* A list option's value: n strings (release with cli_list_clear). */
typedef struct cli_list {
  char **v;
  int n;
} cli_list;
void cli_list_clear(cli_list *l);
/* Append a copy of s to l (for callbacks); -1 when out of memory. */
int cli_list_add(cli_list *l, const char *s);

typedef struct cli_spec cli_spec;
typedef struct cli_option cli_option;
/* A callback option: store arg through o->value; 0, or cli_spec_error's 2 when refused. */
typedef int (*cli_callback)(const cli_spec *spec, const cli_option *o, const char *arg);

struct cli_option {
  cli_opt_type type;
  int short_name;        /* 0: none */
  const char *long_name; /* without "--" */
  void *value;
  const char *argh; /* the argument's placeholder ("<n>"); NULL for flags */
  const char *help;
  long min, max;              /* CLI_OPT_LONG: accepted range (when min < max) */
  double lo, hi;              /* CLI_OPT_DOUBLE: accepted range (when lo < hi) */
  int required;               /* "missing --<name>" when absent */
  const char *const *choices; /* CLI_OPT_CHOICE: the accepted values, NULL-terminated */
  const char *bad;            /* the message for a refused value (%s: the value); NULL: the
                                 standard one */
  cli_callback callback;      /* CLI_OPT_CALLBACK */
  const char *needs;          /* long name of an option this one goes with only */
  int group;                  /* non-zero: at most one option of the same group */
};

#define CLI_FLAG(s, l, v, h)                                                                       \
  { .type = CLI_OPT_FLAG, .short_name = (s), .long_name = (l), .value = (v), .help = (h) }
#define CLI_STRING(s, l, v, a, h)                                                                  \
  {                                                                                                \
    .type = CLI_OPT_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h)                                                                                    \
  }
#define CLI_STRING_REQ(s, l, v, a, h)                                                              \
  {                                                                                                \
    .type = CLI_OPT_STRING, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h), .required = 1                                                                     \
  }
#define CLI_LONG(s, l, v, a, h, lo_, hi_)                                                          \
  {                                                                                                \
    .type = CLI_OPT_LONG, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),          \
    .help = (h), .min = (lo_), .max = (hi_)                                                        \
  }
#define CLI_LONG_REQ(s, l, v, a, h, lo_, hi_)                                                      \
  {                                                                                                \
    .type = CLI_OPT_LONG, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),          \
    .help = (h), .min = (lo_), .max = (hi_), .required = 1                                         \
  }
#define CLI_DOUBLE(s, l, v, a, h)                                                                  \
  {                                                                                                \
    .type = CLI_OPT_DOUBLE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h)                                                                                    \
  }
/* A number in [lo_, hi_]; bad_: the message when outside (NULL: the standard one). */
#define CLI_DOUBLE_RANGE(s, l, v, a, h, lo_, hi_, bad_)                                            \
  {                                                                                                \
    .type = CLI_OPT_DOUBLE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h), .lo = (lo_), .hi = (hi_), .bad = (bad_)                                           \
  }
#define CLI_LIST(s, l, v, a, h)                                                                    \
  {                                                                                                \
    .type = CLI_OPT_LIST, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),          \
    .help = (h)                                                                                    \
  }
#define CLI_APPEND(s, l, v, a, h)                                                                  \
  {                                                                                                \
    .type = CLI_OPT_APPEND, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h)                                                                                    \
  }
/* c: a NULL-terminated array of the accepted values; v: an int, set to the index. */
#define CLI_CHOICE(s, l, v, a, h, c)                                                               \
  {                                                                                                \
    .type = CLI_OPT_CHOICE, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),        \
    .help = (h), .choices = (c)                                                                    \
  }
#define CLI_CALLBACK(s, l, v, a, h, f)                                                             \
  {                                                                                                \
    .type = CLI_OPT_CALLBACK, .short_name = (s), .long_name = (l), .value = (v), .argh = (a),      \
    .help = (h), .callback = (f)                                                                   \
  }
#define CLI_HEADING(h)                                                                             \
  { .type = CLI_OPT_HEADING, .help = (h) }
/* The shared options. */
#define CLI_JSON(v, h) CLI_FLAG(0, "json", (v), (h))
#define CLI_SAMPLES(v) CLI_SAMPLES_HELP(v, "only these sample ids (comma-separated)")
/* --samples with a command's own help text (what happens to the samples named). */
#define CLI_SAMPLES_HELP(v, h)                                                                     \
  { .type = CLI_OPT_SAMPLES, .long_name = "samples", .value = (v), .argh = "<id,...>", .help = (h) }
#define CLI_VIEW(v)                                                                                \
  CLI_VIEW_HELP(v, "which version of each row: corpus (default), gold, latest "                    \
                   "or\nannotator:<name>")
/* --view with a command's own help text (what the view means for its output). */
#define CLI_VIEW_HELP(v, h) CLI_STRING(0, "view", (v), "<view>", (h))
#define CLI_END                                                                                    \
  { .type = CLI_OPT_END }

struct cli_spec {
  const char *synopsis;    /* "rescue stats <db> [--json]"; more lines may follow ("   or: ...") */
  const char *description; /* paragraphs, each line ending in '\n'; may be NULL */
  const cli_option *options;
  int min_args, max_args; /* positional arguments (max -1: any number) */
  const char *arg_name;   /* "<db> <path>": too few gives "missing <path>" (the names not given) */
  const char *epilogue;   /* after the options; may be NULL */
};

enum { CLI_PARSED = -1 };
/*
** Parse argv by spec: fills the option variables and sets *first to the index of the first
** positional argument. Returns CLI_PARSED, or the exit status to return at once: 0 after
** printing the help (-h), 2 after a usage error (message and usage on stderr). The option
** variables keep what they held for options not given (their defaults).
*/
int cli_parse(int argc, char **argv, const cli_spec *spec, int *first);
/*
** The failure of a call whose arguments came from the command line: an invalid argument
** (RESCUE_EINVAL) and an option that does not fit the corpus (a retired annotator, a lead
** to choose, a split asked of a corpus without one: RETIRED, NOLEAD, LEADS, NOSPLIT) are
** usage errors (message with its hint, then spec's usage; returns 2), anything else is
** cli_fail_path (path: the corpus for hints that name it, or NULL; returns 1).
*/
int cli_fail_spec(const rescue_error *err, const char *path, const cli_spec *spec);
/* Whether the option `long_name` was given in the last cli_parse. */
int cli_given(const cli_spec *spec, const char *long_name);
/* A usage error found after parsing: message, then spec's usage, on stderr; returns 2. */
int cli_spec_error(const cli_spec *spec, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* The usage text of spec (as -h prints it) into b. */
void cli_usage_text(const cli_spec *spec, rescue_buf *b);

/*
** Open a corpus, printing the error (with the 'rescue init' hint) on failure. The handle's
** audit context (rescue_store_set_audit) is the command line.
*/
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

/* Subcommands. */
int cmd_init(int argc, char **argv);
int cmd_backup(int argc, char **argv);
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
/*
** `rescue export`'s options, declared once in tools/cmd_export.c; tools/export_safe.c
** parses them (export_parse), then runs the export (export_run) plain or pseudonymised.
*/
typedef struct export_args {
  const char *db, *out, *view, *annotator, *clip_root, *split;
  const char *answers; /* --answers <dir>: a blind export's answers */
  int format;          /* index in export_formats: samples, data-root, tasks, eaf */
  cli_list samples;
  unsigned tasks;                                                    /* 0: all */
  int checkpoints_per_sample, min_dialogue_words, itp_cap_per_class; /* -1: default */
  int force, include_discarded, blind, require_clips, pseudonymise, with_media;
  const char *task_only; /* the first option of --format tasks given, or NULL */
} export_args;
extern const char *const export_formats[];
extern const cli_spec export_spec;
/* CLI_PARSED, or the exit status after -h (0) or a usage error (2). */
int export_parse(int argc, char **argv, export_args *a);
/* The checks of option combinations; 0 or 2 after a usage error. */
int export_check(const export_args *a);
/* The export from the open corpus st, without --pseudonymise and the audit record. */
int export_run(const export_args *a, rescue_store *st);
/* The task settings of the command line (--tasks, --clip-root, ...) over the defaults. */
void export_tasks_opts(const export_args *a, rescue_tasks_opts *to);
/* The warnings (stderr) of an export of each format, shared with --pseudonymise. */
void export_samples_warn(const rescue_export_result *res);
void export_tasks_warn(const rescue_tasks_result *res);
void export_eaf_warn(const rescue_eaf_export_result *res);
/* ELAN's DATE from SOURCE_DATE_EPOCH into date (*out NULL when unset); 0, or 2. */
int export_eaf_date(char date[40], const char **out);
void export_args_clear(export_args *a);
int cmd_pseudonyms(int argc, char **argv);
int cmd_leakcheck(int argc, char **argv);
int cmd_log(int argc, char **argv);
int cmd_serve(int argc, char **argv);
int cmd_annotator_retire(int argc, char **argv);
int cmd_annotator_unretire(int argc, char **argv);
int cmd_annotator_token(int argc, char **argv);
int cmd_status(int argc, char **argv);
int cmd_comment(int argc, char **argv);
int cmd_comments(int argc, char **argv);

/* The file in the demo folder that keeps the demo people's sign-in tokens (mode 0600). */
#define DEMO_TOKENS "tokens.txt"
/* The address `rescue serve` listens on by default (tools/cmd_serve.c). */
#define SERVE_DEFAULT_LISTEN "127.0.0.1:8080"

/*
** Demo steps of the modules (tools/demo_<module>.c); 0 or 1 after a message. demo_agree
** registers noor (annotator) and lena (lead) and keeps their tokens in <dir>/DEMO_TOKENS.
*/
int demo_agree(const char *dir, rescue_store *st);

/* Demo steps of the modules (each prints where its results are). */
int demo_tasks(const char *dir, rescue_store *st);
int cmd_media_add(int argc, char **argv);
int cmd_media_list(int argc, char **argv);
int cmd_clip(int argc, char **argv);

/* The demo's media step (tools/demo_media.c): synthetic video, links, clips. */
int demo_media(const char *dir, rescue_store *st);

#endif
