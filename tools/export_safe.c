/*
** export_safe.c: `rescue export` as users run it: the export itself (cmd_export.c's
** export_run) and its record in the corpus's audit trail, or with --pseudonymise the
** library's pseudonymised, leak-checked export (rescue_export_pseudonymised) and its report.
*/
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* Record a finished plain export in the corpus's log; a failure to record is a warning. */
static void audit(rescue_store *st, const export_args *s) {
  rescue_audit_entry e;
  memset(&e, 0, sizeof e);
  e.action = "export";
  e.annotator = s->annotator;
  e.view = s->view ? s->view : "corpus";
  e.output = s->out;
  e.detail = export_formats[s->format];
  if (rescue_audit_add(st, &e))
    cli_warn("the export is not recorded in the corpus's log: %s", rescue_store_errmsg(st));
}

/* Print what rescue_export_pseudonymised reported for a finished export. */
static void report(const export_args *sc, const rescue_safe_export_result *res) {
  const rescue_leak_report *rep = &res->leaks;
  int i;
  switch ((rescue_safe_format)sc->format) {
  case RESCUE_SAFE_SAMPLES:
  case RESCUE_SAFE_DATA_ROOT: export_samples_warn(&res->samples); break;
  case RESCUE_SAFE_TASKS: {
    /* without --with-media the clips are left out by design (the card says so): no advice
       to cut them */
    rescue_tasks_result t = res->tasks;
    if (!sc->with_media)
      t.missing_clips = 0;
    export_tasks_warn(&t);
    break;
  }
  case RESCUE_SAFE_EAF: export_eaf_warn(&res->eaf); break;
  }
  if (strcmp(sc->out, "-") == 0)
    return;
  printf("wrote a pseudonymised %s export to %s (leak check: %ld file%s, no real name)\n",
         export_formats[sc->format], sc->out, rep->files, rep->files == 1 ? "" : "s");
  if (rep->n_review) {
    printf("names to review (neither participants nor pseudonyms):");
    for (i = 0; i < rep->n_review && i < 20; i++)
      printf("%s %s", i ? "," : "", rep->review[i]);
    printf("\n");
  }
}

/* The checks of --pseudonymise's own option combinations; 0 or 2 after a usage error. */
static int pseudonymise_check(const export_args *a) {
  if (strcmp(a->out, "-") == 0 && a->format != 0)
    return cli_spec_error(&export_spec, "--pseudonymise with --out - writes --format samples only");
  if (a->with_media && a->format != 2)
    return cli_spec_error(&export_spec, "--with-media applies to --format tasks only");
  return 0;
}

/*
** --pseudonymise: the library builds a pseudonymised copy of the corpus as the view shows
** it, exports that copy with the same options, leak-checks the result against the real
** names, and only then moves it to --out (all or nothing, --force as usual) and logs it.
*/
static int export_pseudonymised(const export_args *sc, rescue_store *st) {
  rescue_safe_export_opts o = {0};
  rescue_safe_export_result res;
  rescue_tasks_opts to;
  char date[40];
  int rc, i, to_stdout = strcmp(sc->out, "-") == 0;
  memset(&res, 0, sizeof res);
  if (sc->format == 3 && (rc = export_eaf_date(date, &o.eaf_date)))
    return rc;
  if (rescue_view_parse(st, sc->view, &o.view))
    return cli_fail(rescue_store_err(st));
  export_tasks_opts(sc, &to);
  o.format = (rescue_safe_format)sc->format;
  o.view_name = sc->view;
  o.samples = (const char *const *)sc->samples.v;
  o.n_samples = sc->samples.n;
  o.force = sc->force;
  o.include_discarded = sc->include_discarded;
  o.with_media = sc->with_media;
  o.stream = to_stdout ? stdout : NULL;
  o.tasks = &to;
  o.annotator = sc->annotator;
  rc = rescue_export_pseudonymised(st, sc->out, &o, &res);
  if (rc && res.leaks.n) {
    for (i = 0; i < res.leaks.n && i < 50; i++) {
      const rescue_leak *l = &res.leaks.leaks[i];
      fprintf(stderr, "rescue: export: %s:%ld: %s%sreal name '%s'\n", l->file, l->line, l->field,
              *l->field ? ": " : "", l->name);
    }
    cli_error("%d real name%s survived pseudonymisation; nothing was written. The map gives "
              "%s a pseudonym, but %s where the export does not rewrite names (an object key, "
              "a name of another group): correct those rows, or leave their samples out with "
              "--samples, and export again",
              res.leaks.n, res.leaks.n == 1 ? "" : "s", res.leaks.n == 1 ? "it" : "them",
              res.leaks.n == 1 ? "it stands" : "they stand");
    rc = 1;
  } else if (rc) {
    rc = cli_fail(rescue_store_err(st));
  } else {
    report(sc, &res);
    if (!res.logged)
      cli_warn("the export is not recorded in the corpus's log: %s", res.log_err.msg);
    rc = cli_finish(0);
  }
  rescue_safe_export_result_clear(&res);
  return rc;
}

int cmd_export(int argc, char **argv) {
  export_args a;
  rescue_store *st = NULL;
  int rc;
  if ((rc = export_parse(argc, argv, &a)) != CLI_PARSED)
    return rc;
  if ((a.pseudonymise && (rc = pseudonymise_check(&a))) || (rc = export_check(&a)))
    goto end;
  /* writable when the file is, so that the export can be logged */
  if ((rc = cli_open_store(a.db, access(a.db, W_OK) == 0 ? 0 : RESCUE_OPEN_READONLY, &st)))
    goto end;
  if (a.pseudonymise) {
    rc = export_pseudonymised(&a, st);
  } else {
    rc = export_run(&a, st);
    if (rc == 0)
      audit(st, &a);
  }
end:
  rescue_store_close(&st);
  export_args_clear(&a);
  return rc;
}
