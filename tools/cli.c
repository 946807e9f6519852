/*
** cli.c: message prefixes, option tables (parsing, help and validation from one
** declaration), progress and the audit record for the rescue CLI.
*/
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"

const char *cli_name = "";
char *cli_cmdline = NULL;

/*
** Write s to stderr with control characters (C0, DEL and the C1 range U+0080..U+009F)
** escaped as \u00XX: messages quote file names, subtitle lines and table cells, which must
** neither drive the terminal nor fake a line of their own.
*/
static void put_escaped(const char *s) {
  const unsigned char *p = (const unsigned char *)s;
  for (; *p; p++) {
    if (*p < 0x20 || *p == 0x7f)
      fprintf(stderr, "\\u%04x", *p);
    else if (*p == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f)
      fprintf(stderr, "\\u%04x", *++p);
    else
      fputc(*p, stderr);
  }
}

static void vmessage(const char *kind, const char *fmt, va_list ap) {
  char small[1024], *msg = small;
  va_list ap2;
  int n;
  va_copy(ap2, ap);
  n = vsnprintf(small, sizeof small, fmt, ap);
  if (n >= (int)sizeof small && (msg = malloc((size_t)n + 1)) != NULL)
    vsnprintf(msg, (size_t)n + 1, fmt, ap2);
  va_end(ap2);
  fflush(stdout);
  fprintf(stderr, "rescue: %s: %s", cli_name, kind);
  put_escaped(msg ? msg : small);
  fputc('\n', stderr);
  if (msg != small)
    free(msg);
}

void cli_error(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmessage("", fmt, ap);
  va_end(ap);
}

void cli_warn(const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmessage("warning: ", fmt, ap);
  va_end(ap);
}

/*
** The CLI's hints, the one place that maps a library failure to what to do next in the
** CLI's terms (commands, flags). The library's messages only describe the failure; a hint
** is added by error code, for every command or only for `command`, and for every failure
** of that code or only for those whose err->arg is `arg` (for RESCUE_EINVAL and
** RESCUE_EBADINPUT the library names there the option at fault, as its options struct
** calls it: "tasks", "sample"). The first entry that fits wins. The hint is appended to
** the message as written, so it carries its own separator. In a hint, {path} is the path
** the failure is about (the corpus, an output), given by the caller, and {arg} the name
** the library recorded with the error (the retired annotator, the other task); an entry
** whose placeholder has no value is passed over, so a plainer entry for the same code
** may follow.
*/
static const struct cli_hint {
  int code;
  const char *command; /* NULL: any */
  const char *arg;     /* NULL: any */
  const char *hint;
} cli_hints[] = {
    {RESCUE_ENOTCORPUS, NULL, NULL, " (create one with 'rescue init {path}')"},
    /* outputs */
    {RESCUE_ENOTEMPTY, NULL, NULL, " (use --force to replace it)"},
    {RESCUE_ENOTOURS, NULL, NULL,
     "; --force only replaces rescue's own output: choose another --out"},
    {RESCUE_ELOCKED, NULL, NULL, ": wait for it to finish, or cut into another --out folder"},
    /* import */
    {RESCUE_ERESEGMENT, NULL, NULL, " (use --resegment to record a new row set)"},
    {RESCUE_EINVAL, "import", "format", "; use --format"},
    {RESCUE_EINVAL, "import", "sample", ": give --sample <id> for it"},
    {RESCUE_EBADINPUT, "import", "sample", ": give the sample it belongs to with --sample <id>"},
    {RESCUE_EBADINPUT, "import", "tiers",
     "; name the tiers that hold the turns with --tiers <t1>,<t2>"},
    /* annotators */
    {RESCUE_ERETIRED, NULL, NULL, " (rescue annotator unretire {path} {arg} brings them back)"},
    {RESCUE_ERETIRED, NULL, NULL, " (rescue annotator unretire brings them back)"},
    {RESCUE_EFILERETIRED, NULL, NULL,
     " (rescue annotator unretire {path} {arg} brings them back, or give --annotator)"},
    {RESCUE_EFILERETIRED, NULL, NULL,
     " (rescue annotator unretire brings them back, or give --annotator)"},
    {RESCUE_ENOANNOTATOR, NULL, NULL, "; add one with 'rescue annotator add {path} <name>'"},
    {RESCUE_ENOANNOTATOR, NULL, NULL, "; add one with 'rescue annotator add <db> <name>'"},
    {RESCUE_EINVAL, NULL, "reason", " (--reason <text>)"},
    {RESCUE_ENOLEAD, NULL, NULL,
     ": give --lead <name>, or add one with 'rescue annotator add {path} <name> --role lead'"},
    {RESCUE_ENOLEAD, NULL, NULL,
     ": give --lead <name>, or add one with 'rescue annotator add <db> <name> --role lead'"},
    {RESCUE_ELEADS, NULL, NULL, ": choose one with --lead"},
    /* media and clips */
    {RESCUE_EMEDIACHANGED, NULL, NULL, ": link it again with 'rescue media add'"},
    {RESCUE_ENOMEDIA, NULL, NULL, " (use 'rescue media add ... --sample <id>')"},
    /* export */
    {RESCUE_ENOSPLIT, NULL, NULL, "; run 'rescue split' first"},
    {RESCUE_ENOGOLD, NULL, NULL, ": see 'rescue adjudicate'"},
    {RESCUE_EINVAL, NULL, "tasks", ": choose it with --tasks"},
    {RESCUE_EINVAL, NULL, "split", ", choose it with --split"},
    {RESCUE_EBADINPUT, NULL, "require_clips",
     " (--require-clips): cut the clips with 'rescue clip' or give --clip-root"},
    {RESCUE_EBADINPUT, NULL, "format", " (export it with --format samples)"},
    {RESCUE_EINVAL, NULL, "pseudonyms", " (run rescue pseudonyms with --auto or --set)"},
    {RESCUE_EINVAL, NULL, "answers_out", " (--answers <dir>)"},
    /* score */
    {RESCUE_EOTHERTASK, NULL, NULL, ": score it with 'rescue score {arg}'"},
    {RESCUE_EPREDTASK, NULL, NULL, ": score them with 'rescue score {arg}'"},
    {RESCUE_EUNUSABLE, NULL, NULL, ": check the file, or score anyway with --allow-missing"},
};

void cli_message(const rescue_error *err, const char *path, char *out, size_t cap) {
  const char *msg = err->msg[0] ? err->msg : rescue_strerror(err->code);
  size_t i, n;
  snprintf(out, cap, "%s", msg);
  for (i = 0; i < sizeof cli_hints / sizeof cli_hints[0]; i++) {
    const struct cli_hint *h = &cli_hints[i];
    const char *p;
    if (h->code != err->code || (h->command && strcmp(h->command, cli_name) != 0) ||
        (h->arg && strcmp(h->arg, err->arg) != 0))
      continue;
    if ((strstr(h->hint, "{path}") && !path) || (strstr(h->hint, "{arg}") && !err->arg[0]))
      continue;
    for (p = h->hint, n = strlen(out); *p && n + 1 < cap;) {
      int is_path = strncmp(p, "{path}", 6) == 0, is_arg = strncmp(p, "{arg}", 5) == 0;
      if (is_path || is_arg) {
        snprintf(out + n, cap - n, "%s", is_path ? path : err->arg);
        n += strnlen(out + n, cap - n);
        p += is_path ? 6 : 5;
        continue;
      }
      out[n++] = *p++;
      out[n] = 0;
    }
    return;
  }
}

/* Print err with its hint (path: the value of {path}, or NULL); returns 1. */
static int fail_with_hint(const rescue_error *err, const char *path) {
  char text[sizeof err->msg + 512];
  cli_message(err, path, text, sizeof text);
  cli_error("%s", text);
  return 1;
}

int cli_fail(const rescue_error *err) { return fail_with_hint(err, NULL); }

int cli_fail_path(const rescue_error *err, const char *path) { return fail_with_hint(err, path); }

/*
** 1 when a failure of this code is the command line's (an exit status 2 usage error). A
** retired annotator is not: the name is right, the corpus refuses it (exit 1, no usage).
*/
static int usage_code(int code) {
  return code == RESCUE_EINVAL || code == RESCUE_ENOLEAD || code == RESCUE_ELEADS ||
         code == RESCUE_ENOSPLIT;
}

int cli_fail_spec(const rescue_error *err, const char *path, const cli_spec *spec) {
  char text[sizeof err->msg + 512];
  if (!usage_code(err->code))
    return fail_with_hint(err, path);
  cli_message(err, path, text, sizeof text);
  return cli_spec_error(spec, "%s", text);
}

int cli_finish(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "rescue: %s: cannot write to standard output: %s\n", cli_name, strerror(errno));
    return 1;
  }
  return rc;
}

int cli_print(const rescue_buf *b) {
  if (!rescue_buf_ok(b)) {
    cli_error("out of memory");
    return 1;
  }
  if (b->len)
    fwrite(b->s, 1, b->len, stdout);
  return cli_finish(0);
}

int cli_open_store(const char *path, int flags, rescue_store **st) {
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_audit_context ctx = {cli_cmdline, NULL};
  if (rescue_store_open(st, path, flags, &err))
    return cli_fail_path(&err, path);
  /* every record the library writes through this handle names the command line */
  if (rescue_store_set_audit(*st, &ctx)) {
    rescue_store_close(st);
    cli_error("out of memory");
    return 1;
  }
  return 0;
}

/* ---- progress ---- */

struct cli_progress {
  const char *title;
  struct timespec start;
  int shown;
  int tty;
  int last_pct;
};

static double since(const struct timespec *t0) {
  struct timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return (double)(now.tv_sec - t0->tv_sec) + (double)(now.tv_nsec - t0->tv_nsec) / 1e9;
}

cli_progress *cli_progress_start(const char *title) {
  cli_progress *p = calloc(1, sizeof *p);
  if (!p)
    return NULL;
  p->title = title;
  p->tty = isatty(STDERR_FILENO);
  p->last_pct = -1;
  clock_gettime(CLOCK_MONOTONIC, &p->start);
  return p;
}

void cli_progress_update(void *arg, uint64_t done, uint64_t total) {
  cli_progress *p = arg;
  int pct, i, width = 30, fill;
  if (!p || !p->tty || !total)
    return;
  if (!p->shown && since(&p->start) < 1.0)
    return;
  pct = (int)(done * 100 / total);
  if (pct > 100)
    pct = 100;
  if (p->shown && pct == p->last_pct)
    return;
  p->shown = 1;
  p->last_pct = pct;
  fill = pct * width / 100;
  fprintf(stderr, "\r%s [", p->title);
  for (i = 0; i < width; i++)
    fputc(i < fill ? '#' : ' ', stderr);
  fprintf(stderr, "] %3d%%", pct);
  fflush(stderr);
}

void cli_progress_done(cli_progress **pp) {
  cli_progress *p = pp ? *pp : NULL;
  if (!p)
    return;
  if (p->shown)
    fprintf(stderr, "\r\033[K");
  free(p);
  *pp = NULL;
}

char *cli_command_line(int argc, char **argv) {
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  rescue_buf_puts(&b, "rescue");
  for (i = 0; i < argc; i++) {
    const char *a = argv[i], *p;
    int plain = *a != 0;
    for (p = a; *p && plain; p++)
      plain = strchr("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./:,=@%+",
                     *p) != NULL;
    rescue_buf_putc(&b, ' ');
    if (plain) {
      rescue_buf_puts(&b, a);
      continue;
    }
    rescue_buf_putc(&b, '\'');
    for (p = a; *p; p++) {
      if (*p == '\'')
        rescue_buf_puts(&b, "'\\''");
      else
        rescue_buf_putc(&b, *p);
    }
    rescue_buf_putc(&b, '\'');
  }
  if (!rescue_buf_ok(&b)) {
    rescue_buf_clear(&b);
    return NULL;
  }
  return rescue_buf_detach(&b);
}

/* ---- option tables (cli.h) ---- */

void cli_list_clear(cli_list *l) {
  int i;
  for (i = 0; i < l->n; i++)
    free(l->v[i]);
  free(l->v);
  l->v = NULL;
  l->n = 0;
}

/* "  -x, --name <arg>" of o, the left column of the help. */
static void option_head(const cli_option *o, rescue_buf *b) {
  rescue_buf_puts(b, "  ");
  if (o->short_name)
    rescue_buf_printf(b, "-%c, ", o->short_name);
  rescue_buf_printf(b, "--%s", o->long_name);
  if (o->argh)
    rescue_buf_printf(b, " %s", o->argh);
}

/* A left column longer than this puts its help on the next line. */
#define HEAD_MAX 24

/* One option's line(s) of the help, its left column `width` wide. */
static void option_help(const cli_option *o, size_t width, rescue_buf *head, rescue_buf *b) {
  const char *h = o->help, *nl;
  rescue_buf_reset(head);
  option_head(o, head);
  if (head->len > width)
    rescue_buf_printf(b, "%s\n%*s", head->s, (int)width + 2, "");
  else
    rescue_buf_printf(b, "%-*s  ", (int)width, head->s ? head->s : "");
  while ((nl = strchr(h, '\n')) != NULL) {
    rescue_buf_printf(b, "%.*s\n%*s", (int)(nl - h), h, (int)width + 2, "");
    h = nl + 1;
  }
  rescue_buf_printf(b, "%s\n", h);
}

void cli_usage_text(const cli_spec *spec, rescue_buf *b) {
  static const cli_option help = CLI_FLAG('h', "help", NULL, "show this help");
  const cli_option *o;
  rescue_buf head = RESCUE_BUF_INIT;
  size_t width;
  int help_done = 0;
  rescue_buf_printf(b, "usage: %s\n", spec->synopsis);
  if (spec->description)
    rescue_buf_printf(b, "\n%s", spec->description);
  option_head(&help, &head);
  width = head.len; /* "  -h, --help" */
  for (o = spec->options; o->type != CLI_OPT_END; o++) {
    if (o->type == CLI_OPT_HEADING)
      continue;
    rescue_buf_reset(&head);
    option_head(o, &head);
    if (head.len > width && head.len <= HEAD_MAX)
      width = head.len;
  }
  rescue_buf_puts(b, "\noptions:\n");
  /* -h closes the first section */
  for (o = spec->options;; o++) {
    if ((o->type == CLI_OPT_HEADING || o->type == CLI_OPT_END) && !help_done) {
      option_help(&help, width, &head, b);
      help_done = 1;
    }
    if (o->type == CLI_OPT_END)
      break;
    if (o->type == CLI_OPT_HEADING)
      rescue_buf_printf(b, "\n%s\n", o->help);
    else
      option_help(o, width, &head, b);
  }
  if (spec->epilogue)
    rescue_buf_printf(b, "\n%s", spec->epilogue);
  rescue_buf_clear(&head);
}

/* Print the usage (on stdout for -h, stderr after an error). */
static void print_usage(const cli_spec *spec, FILE *f) {
  rescue_buf b = RESCUE_BUF_INIT;
  cli_usage_text(spec, &b);
  if (b.s)
    fputs(b.s, f);
  rescue_buf_clear(&b);
}

int cli_spec_error(const cli_spec *spec, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmessage("", fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  print_usage(spec, stderr);
  return 2;
}

/* "a, b or c" of a NULL-terminated list into b. */
static void choice_list(const char *const *c, rescue_buf *b) {
  int i;
  for (i = 0; c[i]; i++)
    rescue_buf_printf(b, "%s%s", i == 0 ? "" : c[i + 1] ? ", " : " or ", c[i]);
}

/* The option's own message for a refused value (its %s: the value), then `tail`. */
static int bad_value(const cli_spec *spec, const cli_option *o, const char *arg, const char *tail) {
  const char *p = strstr(o->bad, "%s");
  if (!p)
    return cli_spec_error(spec, "%s%s", o->bad, tail);
  return cli_spec_error(spec, "%.*s%s%s%s", (int)(p - o->bad), o->bad, arg, p + 2, tail);
}

/* Append a copy of s to list l; -1 when out of memory. */
static int list_add(cli_list *l, const char *s, size_t len) {
  char **v = realloc(l->v, (size_t)(l->n + 2) * sizeof *v);
  if (!v)
    return -1;
  l->v = v;
  if (!(v[l->n] = strndup(s, len)))
    return -1;
  v[++l->n] = NULL;
  return 0;
}

int cli_list_add(cli_list *l, const char *s) { return list_add(l, s, strlen(s)); }

/* Store arg into option o; returns 0 or 2 after a usage error. */
static int set_value(const cli_spec *spec, const cli_option *o, const char *arg) {
  char *end;
  switch (o->type) {
  case CLI_OPT_FLAG: *(int *)o->value = 1; return 0;
  case CLI_OPT_STRING: *(const char **)o->value = arg; return 0;
  case CLI_OPT_LONG: {
    long v;
    errno = 0;
    v = strtol(arg, &end, 10);
    if (!*arg || *end || errno == ERANGE)
      return cli_spec_error(spec, "--%s expects a whole number, not '%s'", o->long_name, arg);
    if (o->min < o->max && (v < o->min || v > o->max)) {
      if (o->bad)
        return bad_value(spec, o, arg, "");
      if (o->max == LONG_MAX)
        return cli_spec_error(spec, "--%s expects a whole number >= %ld, not '%s'", o->long_name,
                              o->min, arg);
      return cli_spec_error(spec, "--%s expects a whole number from %ld to %ld, not '%s'",
                            o->long_name, o->min, o->max, arg);
    }
    *(long *)o->value = v;
    return 0;
  }
  case CLI_OPT_DOUBLE: {
    double v;
    errno = 0;
    v = strtod(arg, &end);
    if (!*arg || *end || errno == ERANGE || !isfinite(v))
      return cli_spec_error(spec, "--%s expects a number, not '%s'", o->long_name, arg);
    if (o->lo < o->hi && (v < o->lo || v > o->hi)) {
      if (o->bad)
        return bad_value(spec, o, arg, "");
      return cli_spec_error(spec, "--%s expects a number from %g to %g, not '%s'", o->long_name,
                            o->lo, o->hi, arg);
    }
    *(double *)o->value = v;
    return 0;
  }
  case CLI_OPT_SAMPLES:
  case CLI_OPT_LIST: {
    cli_list *l = o->value;
    const char *p = arg, *e;
    cli_list_clear(l);
    for (;; p = e + 1) {
      e = strchr(p, ',');
      if ((e ? e > p : *p != 0) && list_add(l, p, e ? (size_t)(e - p) : strlen(p))) {
        cli_error("out of memory");
        return 2;
      }
      if (!e)
        break;
    }
    if (l->n)
      return 0;
    if (o->bad)
      return bad_value(spec, o, arg, "");
    return cli_spec_error(spec, "--%s needs at least one %s", o->long_name,
                          o->type == CLI_OPT_SAMPLES ? "sample id" : "value");
  }
  case CLI_OPT_APPEND:
    if (list_add(o->value, arg, strlen(arg))) {
      cli_error("out of memory");
      return 2;
    }
    return 0;
  case CLI_OPT_CHOICE: {
    rescue_buf b = RESCUE_BUF_INIT;
    int i, rc;
    for (i = 0; o->choices[i]; i++)
      if (strcmp(arg, o->choices[i]) == 0) {
        *(int *)o->value = i;
        return 0;
      }
    if (o->bad) {
      rescue_buf_puts(&b, " (expected ");
      choice_list(o->choices, &b);
      rescue_buf_putc(&b, ')');
      rc = bad_value(spec, o, arg, b.s ? b.s : "");
    } else {
      choice_list(o->choices, &b);
      rc = cli_spec_error(spec, "--%s expects %s, not '%s'", o->long_name, b.s ? b.s : "", arg);
    }
    rescue_buf_clear(&b);
    return rc;
  }
  case CLI_OPT_CALLBACK: return o->callback(spec, o, arg);
  case CLI_OPT_HEADING:
  case CLI_OPT_END: break;
  }
  return 0;
}

/* The options seen by the last cli_parse (for cli_given). */
static const cli_spec *seen_spec;
static unsigned char seen[64];

/* The index of option `name` in spec, or -1. */
static int option_index(const cli_spec *spec, const char *name) {
  int i;
  for (i = 0; spec->options[i].type != CLI_OPT_END; i++)
    if (spec->options[i].long_name && strcmp(spec->options[i].long_name, name) == 0)
      return i;
  return -1;
}

int cli_given(const cli_spec *spec, const char *long_name) {
  int i = option_index(spec, long_name);
  return spec == seen_spec && i >= 0 && seen[i];
}

/* "missing <path>" or "missing <db> and <path>": arg_name's names from the nargs-th on. */
static int missing_args(const cli_spec *spec, int nargs) {
  rescue_buf b = RESCUE_BUF_INIT;
  const char *name[16], *p = spec->arg_name;
  int len[16], n = 0, i, rc;
  while (p && *p && n < 16) {
    const char *e = strchr(*p == '<' && strchr(p, '>') ? strchr(p, '>') : p, ' ');
    name[n] = p;
    len[n++] = e ? (int)(e - p) : (int)strlen(p);
    p = e ? e + 1 : "";
  }
  if (n > spec->min_args)
    n = spec->min_args;
  for (i = nargs; i < n; i++)
    rescue_buf_printf(&b, "%s%.*s", i == nargs ? "" : i + 1 < n ? ", " : " and ", len[i], name[i]);
  rc = cli_spec_error(spec, "missing %s",
                      b.s              ? b.s
                      : spec->arg_name ? spec->arg_name
                                       : "arguments");
  rescue_buf_clear(&b);
  return rc;
}

/* Flags, and callbacks without a placeholder, take no value. */
static int takes_value(const cli_option *o) {
  return o->type != CLI_OPT_FLAG && !(o->type == CLI_OPT_CALLBACK && !o->argh);
}

int cli_parse(int argc, char **argv, const cli_spec *spec, int *first) {
  struct option longopts[64];
  char shortopts[130] = "h";
  const cli_option *o;
  int n = 0, k = 1, c, nargs, i, j, nopt = 0;

  memset(seen, 0, sizeof seen);
  seen_spec = spec;
  for (o = spec->options; o->type != CLI_OPT_END; o++, n++) {
    if (n >= 62) {
      cli_error("too many options in the command's table");
      return 2;
    }
    if (o->type == CLI_OPT_HEADING)
      continue;
    longopts[nopt].name = o->long_name;
    longopts[nopt].has_arg = takes_value(o) ? required_argument : no_argument;
    longopts[nopt].flag = NULL;
    longopts[nopt].val = 1000 + n;
    nopt++;
    if (o->short_name && k < (int)sizeof shortopts - 3) {
      shortopts[k++] = (char)o->short_name;
      if (takes_value(o))
        shortopts[k++] = ':';
    }
  }
  shortopts[k] = 0;
  longopts[nopt].name = "help";
  longopts[nopt].has_arg = no_argument;
  longopts[nopt].flag = NULL;
  longopts[nopt].val = 'h';
  memset(&longopts[nopt + 1], 0, sizeof longopts[nopt + 1]);

  opterr = 0;
  optind = 0; /* 0: getopt starts afresh (a command may be parsed twice in one process) */
  while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
    int idx = -1;
    if (c == 'h') {
      print_usage(spec, stdout);
      return cli_finish(0);
    }
    if (c == '?' || c == ':') {
      const char *bad = argv[optind - 1];
      if (bad && strncmp(bad, "--", 2) == 0 && optopt && strchr(bad, '='))
        return cli_spec_error(spec, "option '%.*s' takes no value", (int)(strchr(bad, '=') - bad),
                              bad);
      if (bad && strncmp(bad, "--", 2) == 0)
        return cli_spec_error(spec, optopt ? "option '%s' needs a value" : "unknown option '%s'",
                              bad);
      if (optopt && strchr(shortopts, optopt) && optopt != ':')
        return cli_spec_error(spec, "option '-%c' needs a value", optopt);
      return cli_spec_error(spec, "unknown option '-%c'", optopt ? optopt : '?');
    }
    if (c >= 1000)
      idx = c - 1000;
    else
      for (i = 0; i < n; i++)
        if (spec->options[i].short_name == c && spec->options[i].type != CLI_OPT_HEADING)
          idx = i;
    if (idx < 0)
      return cli_spec_error(spec, "unknown option '-%c'", c);
    seen[idx] = 1;
    if (set_value(spec, &spec->options[idx], optarg))
      return 2;
  }
  nargs = argc - optind;
  if (nargs < spec->min_args)
    return missing_args(spec, nargs);
  if (spec->max_args >= 0 && nargs > spec->max_args)
    return cli_spec_error(spec, "unexpected argument '%s'", argv[optind + spec->max_args]);
  for (i = 0; i < n; i++) {
    const cli_option *x = &spec->options[i];
    if (x->required && !seen[i])
      return cli_spec_error(spec, "missing --%s", x->long_name);
  }
  for (i = 0; i < n; i++) {
    const cli_option *x = &spec->options[i];
    if (!seen[i])
      continue;
    if (x->needs && !cli_given(spec, x->needs))
      return cli_spec_error(spec, "--%s needs --%s", x->long_name, x->needs);
    for (j = i + 1; x->group && j < n; j++)
      if (seen[j] && spec->options[j].group == x->group)
        return cli_spec_error(spec, "give --%s or --%s, not both", x->long_name,
                              spec->options[j].long_name);
  }
  *first = optind;
  return CLI_PARSED;
}
