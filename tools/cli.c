/*
** cli.c: message prefixes, usage, option parsing and progress for the rescue CLI.
*/
#include <errno.h>
#include <getopt.h>
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

int cli_fail(const rescue_error *err) {
  cli_error("%s", err->msg[0] ? err->msg : rescue_strerror(err->code));
  return 1;
}

int cli_usage_error(const char *usage, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  vmessage("", fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s", usage);
  return 2;
}

int cli_help(const char *usage) {
  fputs(usage, stdout);
  return cli_finish(0);
}

int cli_finish(int rc) {
  if (fflush(stdout) != 0 || ferror(stdout)) {
    fprintf(stderr, "rescue: %s: cannot write to standard output: %s\n", cli_name,
            strerror(errno));
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

int cli_getopt(int argc, char **argv, const char *shortopts, const struct option *longopts,
               const char *usage) {
  int c;
  opterr = 0;
  c = getopt_long(argc, argv, shortopts, longopts, NULL);
  if (c == '?' || c == ':') {
    const char *bad = argv[optind - 1];
    if (optopt && optopt < 256 && strchr(shortopts, optopt) && c == '?' && bad &&
        bad[0] == '-' && bad[1] != '-')
      cli_usage_error(usage, "option '-%c' needs a value", optopt);
    else if (bad && strncmp(bad, "--", 2) == 0 && optopt)
      cli_usage_error(usage, "option '%s' needs a value", bad);
    else if (bad && strncmp(bad, "--", 2) == 0)
      cli_usage_error(usage, "unknown option '%s'", bad);
    else
      cli_usage_error(usage, "unknown option '-%c'", optopt ? optopt : '?');
    return '?';
  }
  return c;
}

char **cli_split_list(const char *s, int *n) {
  char **v;
  const char *p = s;
  int cap = 1, i = 0;
  for (p = s; *p; p++)
    cap += *p == ',';
  v = calloc((size_t)cap + 1, sizeof *v);
  if (!v)
    return NULL;
  p = s;
  for (;;) {
    const char *e = strchr(p, ',');
    size_t len = e ? (size_t)(e - p) : strlen(p);
    if (len) {
      v[i] = strndup(p, len);
      if (!v[i]) {
        cli_free_list(v);
        return NULL;
      }
      i++;
    }
    if (!e)
      break;
    p = e + 1;
  }
  *n = i;
  return v;
}

void cli_free_list(char **list) {
  char **p;
  for (p = list; p && *p; p++)
    free(*p);
  free(list);
}

int cli_parse_double(const char *opt, const char *s, double *out, const char *usage) {
  char *end;
  errno = 0;
  *out = strtod(s, &end);
  if (!*s || *end || errno || !isfinite(*out)) {
    cli_usage_error(usage, "%s expects a number, not '%s'", opt, s);
    return -1;
  }
  return 0;
}

int cli_parse_long(const char *opt, const char *s, long *out, const char *usage) {
  char *end;
  errno = 0;
  *out = strtol(s, &end, 10);
  if (!*s || *end || errno) {
    cli_usage_error(usage, "%s expects a whole number, not '%s'", opt, s);
    return -1;
  }
  return 0;
}

int cli_open_store(const char *path, int flags, rescue_store **st) {
  rescue_error err = {0, ""};
  if (rescue_store_open(st, path, flags, &err))
    return cli_fail(&err);
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
    rescue_buf_free(&b);
    return NULL;
  }
  return rescue_buf_detach(&b);
}

void cli_audit(const char *db, const char *action, int argc, char **argv, const char *annotator,
               const char *detail) {
  rescue_store *st = NULL;
  rescue_error err;
  rescue_audit_entry e;
  memset(&err, 0, sizeof err);
  memset(&e, 0, sizeof e);
  (void)argc;
  (void)argv;
  e.action = action;
  e.annotator = annotator;
  e.command = cli_cmdline;
  e.detail = detail;
  if (rescue_store_open(&st, db, 0, &err) || rescue_audit_add(st, &e))
    cli_warn("not recorded in the corpus's log: %s", st ? rescue_store_errmsg(st) : err.msg);
  rescue_store_close(&st);
}
