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

/* Record a finished export in the corpus's log; a failure to record is a warning. */
static void audit(const export_args *s, int pseudonymised) {
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
  e.detail = export_formats[s->format];
  if (rescue_store_open(&st, s->db, 0, &err) || rescue_audit_add(st, &e))
    cli_warn("the export is not recorded in the corpus's log: %s",
             st ? rescue_store_errmsg(st) : err.msg);
  rescue_store_close(&st);
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
static int export_pseudonymised(const export_args *sc) {
  rescue_store *st = NULL;
  rescue_output *o = NULL;
  rescue_error err;
  rescue_pseudo_opts po = {0};
  rescue_leak_report rep;
  export_args inner;
  char *work = NULL, db[4096], media[4096], outp[4096];
  int rc = 1, i, is_dir, to_stdout, saved = -1;
  memset(&err, 0, sizeof err);
  memset(&rep, 0, sizeof rep);
  to_stdout = strcmp(sc->out, "-") == 0;
  is_dir = sc->format != 0;
  if (to_stdout && is_dir)
    return cli_spec_error(&export_spec, "--pseudonymise with --out - writes --format samples only");
  if (sc->with_media && sc->format != 2)
    return cli_spec_error(&export_spec, "--with-media applies to --format tasks only");
  if ((rc = export_check(sc)))
    return rc;
  if ((rc = cli_open_store(sc->db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  rc = 1;
  if (rescue_view_parse(st, sc->view, &po.view)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  po.samples = (const char *const *)sc->samples.v;
  po.n_samples = sc->samples.n;
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
  /*
  ** the same export of the copy, into the work folder, its own report silenced; the copy
  ** holds just the view's samples, and clip roots would name real ids
  */
  inner = *sc;
  inner.db = db;
  inner.out = outp;
  inner.force = 0;
  inner.view = NULL;
  memset(&inner.samples, 0, sizeof inner.samples);
  inner.annotator = NULL;
  inner.clip_root = sc->with_media ? "media" : NULL;
  inner.pseudonymise = inner.with_media = 0;
  fflush(stdout);
  saved = dup(1);
  if (saved >= 0 && !freopen("/dev/null", "w", stdout)) {
    close(saved);
    saved = -1;
  }
  rc = export_run(&inner);
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
           export_formats[sc->format], sc->out, rep.files, rep.files == 1 ? "" : "s");
    if (rep.n_review) {
      printf("names to review (neither participants nor pseudonyms):");
      for (i = 0; i < rep.n_review && i < 20; i++)
        printf("%s %s", i ? "," : "", rep.review[i]);
      printf("\n");
    }
  }
  rescue_store_close(&st);
  audit(sc, 1);
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
  rescue_leak_report_clear(&rep);
  rescue_store_close(&st);
  return rc;
}

int cmd_export(int argc, char **argv) {
  export_args a;
  int rc;
  if ((rc = export_parse(argc, argv, &a)) != CLI_PARSED)
    return rc;
  if (a.pseudonymise) {
    rc = export_pseudonymised(&a);
  } else {
    rc = export_run(&a);
    if (rc == 0)
      audit(&a, 0);
  }
  export_args_clear(&a);
  return rc;
}
