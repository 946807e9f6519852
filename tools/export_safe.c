/*
** export_safe.c: `rescue export` as users run it: the export itself (cmd_export.c's
** export_run), pseudonymised and leak-checked with --pseudonymise, and recorded in the
** corpus's audit trail (rescue log) when it succeeds.
*/
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* Options of `rescue export` that take a value (for scanning argv before getopt). */
static const char *const valued[] = {"format", "out", "view", "samples", "tasks", "clip-root",
                                     "split", "checkpoints-per-sample", "min-dialogue-words",
                                     "itp-cap-per-class", "annotator", NULL};

static int takes_value(const char *name, size_t len) {
  int i;
  for (i = 0; valued[i]; i++)
    if (strlen(valued[i]) == len && memcmp(valued[i], name, len) == 0)
      return 1;
  return 0;
}

/* What the wrapper needs to know of a command line. */
typedef struct scanned {
  const char *db, *out, *format, *view, *samples, *annotator, *clip_root;
  int force, pseudonymise, with_media, help;
} scanned;

static void scan(int argc, char **argv, scanned *s) {
  int i;
  memset(s, 0, sizeof *s);
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *eq, *val = NULL;
    size_t n;
    if (strcmp(a, "--") == 0)
      break;
    if (strncmp(a, "--", 2) != 0) {
      if (strcmp(a, "-h") == 0)
        s->help = 1;
      else if (a[0] != '-' && !s->db)
        s->db = a;
      continue;
    }
    a += 2;
    eq = strchr(a, '=');
    n = eq ? (size_t)(eq - a) : strlen(a);
    if (takes_value(a, n)) {
      val = eq ? eq + 1 : i + 1 < argc ? argv[++i] : NULL;
#define OPT(x) (n == sizeof(x) - 1 && memcmp(a, x, n) == 0)
      if (OPT("out"))
        s->out = val;
      else if (OPT("format"))
        s->format = val;
      else if (OPT("view"))
        s->view = val;
      else if (OPT("samples"))
        s->samples = val;
      else if (OPT("annotator"))
        s->annotator = val;
      else if (OPT("clip-root"))
        s->clip_root = val;
    } else if (OPT("force")) {
      s->force = 1;
    } else if (OPT("pseudonymise")) {
      s->pseudonymise = 1;
    } else if (OPT("with-media")) {
      s->with_media = 1;
    } else if (OPT("help")) {
      s->help = 1;
    }
#undef OPT
  }
}

/* Record a finished export in the corpus's log; a failure to record is a warning. */
static void audit(const scanned *s, int argc, char **argv, int pseudonymised) {
  rescue_store *st = NULL;
  rescue_error err;
  char hex[65] = "";
  rescue_audit_entry e;
  memset(&err, 0, sizeof err);
  memset(&e, 0, sizeof e);
  e.action = "export";
  e.annotator = s->annotator;
  e.command = cli_cmdline;
  e.view = s->view ? s->view : "corpus";
  e.pseudonymised = pseudonymised;
  e.output = s->out;
  if (s->out && strcmp(s->out, "-") != 0 && rescue_output_digest(s->out, hex, &err) == 0)
    e.output_sha256 = hex;
  e.detail = s->format;
  if (rescue_store_open(&st, s->db, 0, &err) || rescue_audit_add(st, &e))
    cli_warn("the export is not recorded in the corpus's log: %s",
             st ? rescue_store_errmsg(st) : err.msg);
  rescue_store_close(&st);
  (void)argc;
  (void)argv;
}

/* Move every entry of folder `from` into folder `to` (same file system); 0 or -1. */
static int move_entries(const char *from, const char *to) {
  DIR *d = opendir(from);
  struct dirent *e;
  int rc = 0;
  if (!d)
    return -1;
  while (!rc && (e = readdir(d)) != NULL) {
    char a[4096], b[4096];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if ((size_t)snprintf(a, sizeof a, "%s/%s", from, e->d_name) >= sizeof a ||
        (size_t)snprintf(b, sizeof b, "%s/%s", to, e->d_name) >= sizeof b) {
      errno = ENAMETOOLONG;
      rc = -1;
    } else {
      rc = rename(a, b);
    }
  }
  closedir(d);
  return rc;
}

/* Make a fresh work folder beside `out` (same file system, so renames work). */
static char *work_dir(const char *out) {
  size_t n = strlen(out) + 32;
  char *d = malloc(n);
  if (!d)
    return NULL;
  snprintf(d, n, "%s.rescue-pseudo-XXXXXX", out);
  if (!mkdtemp(d)) {
    free(d);
    return NULL;
  }
  return d;
}

/*
** --pseudonymise: build a pseudonymised copy of the corpus as the view shows it, export
** that copy into a work folder with the same options, leak-check the result against the
** real names, and only then move it to --out (all or nothing, --force as usual).
*/
static int export_pseudonymised(int argc, char **argv, const scanned *sc) {
  rescue_store *st = NULL;
  rescue_output *o = NULL;
  rescue_error err;
  rescue_pseudo_opts po;
  rescue_leak_report rep;
  char *work = NULL, **inner = NULL, **samples = NULL, db[4096], media[4096], outp[4096];
  int rc = 1, i, n_inner = 0, n_samples = 0, is_dir, to_stdout, saved = -1;
  memset(&err, 0, sizeof err);
  memset(&po, 0, sizeof po);
  memset(&rep, 0, sizeof rep);
  if (!sc->db || !sc->out || !sc->format) /* let the export say what is missing */
    return export_run(argc, argv);
  to_stdout = strcmp(sc->out, "-") == 0;
  is_dir = strcmp(sc->format, "samples") != 0;
  if (to_stdout && is_dir)
    return cli_usage_error("see 'rescue export -h'\n",
                           "--pseudonymise with --out - writes --format samples only");
  if (sc->with_media && strcmp(sc->format, "tasks") != 0)
    return cli_usage_error("see 'rescue export -h'\n",
                           "--with-media applies to --format tasks only");
  if ((rc = cli_open_store(sc->db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  rc = 1;
  if (rescue_view_parse(st, sc->view, &po.view)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (sc->samples) {
    samples = cli_split_list(sc->samples, &n_samples);
    po.samples = (const char *const *)samples;
    po.n_samples = n_samples;
  }
  if (!to_stdout && rescue_output_begin(sc->out, is_dir, sc->force, &o, &err)) {
    rc = cli_fail(&err);
    goto end;
  }
  if (!(work = work_dir(to_stdout ? "rescue-export" : sc->out))) {
    cli_error("cannot make a work folder beside '%s': %s", sc->out, strerror(errno));
    goto end;
  }
  snprintf(db, sizeof db, "%s/corpus.db", work);
  snprintf(media, sizeof media, "%s/media", work);
  snprintf(outp, sizeof outp, "%s/out", work);
  po.media_dir = sc->with_media ? media : NULL;
  if (rescue_pseudo_corpus(st, &po, db, &err)) {
    rc = cli_fail(&err);
    goto end;
  }
  /* the same export of the copy, into the work folder, its own report silenced */
  inner = calloc((size_t)argc + 8, sizeof *inner);
  if (!inner) {
    cli_error("out of memory");
    goto end;
  }
  inner[n_inner++] = argv[0];
  inner[n_inner++] = db;
  for (i = 1; i < argc; i++) {
    const char *a = argv[i], *eq;
    size_t n;
    if (a == sc->db)
      continue;
    if (strncmp(a, "--", 2) != 0) {
      inner[n_inner++] = argv[i];
      continue;
    }
    eq = strchr(a + 2, '=');
    n = eq ? (size_t)(eq - a - 2) : strlen(a + 2);
#define OPT(x) (n == sizeof(x) - 1 && memcmp(a + 2, x, n) == 0)
    if (OPT("pseudonymise") || OPT("with-media") || OPT("force"))
      continue;
    if (OPT("out") || OPT("view") || OPT("samples") || OPT("annotator") || OPT("clip-root")) {
      if (!eq)
        i++; /* the copy holds just the view's samples; clip roots would name real ids */
      continue;
    }
#undef OPT
    inner[n_inner++] = argv[i];
    if (!eq && takes_value(a + 2, n) && i + 1 < argc)
      inner[n_inner++] = argv[++i];
  }
  inner[n_inner++] = "--out";
  inner[n_inner++] = outp;
  if (sc->with_media) {
    inner[n_inner++] = "--clip-root";
    inner[n_inner++] = "media";
  }
  fflush(stdout);
  saved = dup(1);
  if (saved >= 0 && !freopen("/dev/null", "w", stdout)) {
    close(saved);
    saved = -1;
  }
  optind = 0;
  rc = export_run(n_inner, inner);
  fflush(stdout);
  if (saved >= 0) {
    dup2(saved, 1);
    close(saved);
    saved = -1;
  }
  if (rc)
    goto end;
  rc = 1;
  if (sc->with_media) {
    char dest[4200];
    struct stat sb;
    snprintf(dest, sizeof dest, "%s/media", outp);
    if (stat(media, &sb) == 0 && rename(media, dest)) {
      cli_error("cannot move the clips into the export: %s", strerror(errno));
      goto end;
    }
  }
  /* the leak check: no real name may leave */
  if (rescue_leakcheck(st, outp, &rep)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (rep.n) {
    size_t wl = strlen(outp);
    for (i = 0; i < rep.n && i < 50; i++) {
      const rescue_leak *l = &rep.leaks[i];
      const char *rel = strncmp(l->file, outp, wl) == 0 ? l->file + wl : "";
      fprintf(stderr, "rescue: export: %s%s:%ld: %s%sreal name '%s'\n", sc->out, rel, l->line,
              l->field, *l->field ? ": " : "", l->name);
    }
    cli_error("%d real name%s survived pseudonymisation (add them to the map with rescue "
              "pseudonyms --set); nothing was written",
              rep.n, rep.n == 1 ? "" : "s");
    goto end;
  }
  if (to_stdout) {
    char *text;
    size_t len;
    if (rescue_read_file(outp, &text, &len, &err)) {
      rc = cli_fail(&err);
      goto end;
    }
    fwrite(text, 1, len, stdout);
    rescue_free(text);
  } else {
    const char *tmp = rescue_output_path(o);
    if (is_dir ? move_entries(outp, tmp) : rename(outp, tmp)) {
      cli_error("cannot move the export into place: %s", strerror(errno));
      goto end;
    }
    if (rescue_output_commit(&o, &err)) {
      rc = cli_fail(&err);
      goto end;
    }
    printf("wrote a pseudonymised %s export to %s (leak check: %ld file%s, no real name)\n",
           sc->format, sc->out, rep.files, rep.files == 1 ? "" : "s");
    if (rep.n_review) {
      printf("names to review (neither participants nor pseudonyms):");
      for (i = 0; i < rep.n_review && i < 20; i++)
        printf("%s %s", i ? "," : "", rep.review[i]);
      printf("\n");
    }
  }
  rescue_store_close(&st);
  audit(sc, argc, argv, 1);
  rc = cli_finish(0);
end:
  if (saved >= 0) {
    dup2(saved, 1);
    close(saved);
  }
  rescue_output_abort(&o);
  if (work) {
    rescue_remove_tree(work);
    free(work);
  }
  free(inner);
  cli_free_list(samples);
  rescue_leak_report_clear(&rep);
  rescue_store_close(&st);
  return rc;
}

int cmd_export(int argc, char **argv) {
  scanned sc;
  int rc;
  scan(argc, argv, &sc);
  if (sc.help)
    return export_run(argc, argv);
  if (sc.with_media && !sc.pseudonymise)
    return cli_usage_error("see 'rescue export -h'\n", "--with-media needs --pseudonymise");
  if (sc.pseudonymise)
    return export_pseudonymised(argc, argv, &sc);
  rc = export_run(argc, argv);
  if (rc == 0 && sc.db && sc.out)
    audit(&sc, argc, argv, 0);
  return rc;
}
