/*
** cmd_privacy.c: `rescue pseudonyms` (the pseudonym map), `rescue leakcheck` (real names in
** an export) and `rescue log` (who imported, exported, adjudicated and changed what).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

/* --set <real>=<pseudonym>, repeatable. */
static int add_set(const cli_spec *spec, const cli_option *o, const char *arg) {
  if (!strchr(arg, '=') || arg[0] == '=')
    return cli_spec_error(spec, "--set expects <real>=<pseudonym>, not '%s'", arg);
  if (cli_list_add(o->value, arg)) {
    cli_error("out of memory");
    return 2;
  }
  return 0;
}

static cli_list sets;
static int do_auto, list, pseudonyms_json;
static const cli_option pseudonyms_options[] = {
    CLI_CALLBACK(0, "set", &sets, "<real>=<p>",
                 "set a pseudonym: <real> is a group name, a participant's name (in\n"
                 "every group that has one), or <group>:<name>; may repeat (all are\n"
                 "applied, with --auto, or none when one is refused)",
                 add_set),
    CLI_FLAG(0, "auto", &do_auto, "give a pseudonym to every group and participant without one"),
    CLI_FLAG(0, "list", &list, "print the map (the default when nothing else is asked)"),
    CLI_JSON(&pseudonyms_json, "print the map as one JSON document"), CLI_END};
static const cli_spec pseudonyms_spec = {
    .synopsis = "rescue pseudonyms <db> [--set <real>=<pseudonym>]... [--auto] [--list] [--json]",
    .description =
        "The corpus's pseudonym map, used by 'rescue export --pseudonymise'. Every group (a\n"
        "couple or a family) and every participant the corpus has ever named gets one\n"
        "pseudonym, unique within its group. --auto gives one to each that has none: couple\n"
        "partners become 'Partner A', 'Partner B', ...; family members 'Member 1', 'Member 2',\n"
        "...; groups '<scenario>_<6 hex digits>' from a secret key kept in the corpus (so the\n"
        "name cannot be guessed back). Pseudonyms already set are kept: later samples of a\n"
        "group reuse them. The therapist and the group labels (Therapist, Couple, Family) stay.\n",
    .options = pseudonyms_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_pseudonyms(int argc, char **argv) {
  int n_sets, first, rc, json, i;
  rescue_store *st = NULL;
  rescue_pseudonym_map m;
  rescue_buf out = RESCUE_BUF_INIT;
  char **set_v;
  memset(&m, 0, sizeof m);
  if ((rc = cli_parse(argc, argv, &pseudonyms_spec, &first)) != CLI_PARSED) {
    cli_list_clear(&sets);
    return rc;
  }
  n_sets = sets.n;
  set_v = sets.v;
  json = pseudonyms_json;
  if ((rc = cli_open_store(argv[first], n_sets || do_auto ? 0 : RESCUE_OPEN_READONLY, &st)))
    goto end;
  rc = 1;
  if (n_sets || do_auto) {
    /* every --set and --auto in one transaction: a refused one leaves the map as it was */
    char **reals = calloc((size_t)n_sets + 1, sizeof *reals);
    const char **pseudos = calloc((size_t)n_sets + 1, sizeof *pseudos);
    long *changed = calloc((size_t)n_sets + 1, sizeof *changed), added = 0;
    int ok = reals && pseudos && changed, failed = 0;
    for (i = 0; ok && i < n_sets; i++) {
      char *eq = strchr(set_v[i], '=');
      ok = (reals[i] = strndup(set_v[i], (size_t)(eq - set_v[i]))) != NULL;
      pseudos[i] = eq + 1;
    }
    if (!ok)
      cli_error("out of memory");
    else if (rescue_pseudonym_update(st, (const char *const *)reals, pseudos, n_sets, do_auto,
                                     changed, &added))
      failed = cli_fail(rescue_store_err(st));
    else if (!json) {
      for (i = 0; i < n_sets; i++)
        printf("set '%s' for %s (%ld entr%s)\n", pseudos[i], reals[i], changed[i],
               changed[i] == 1 ? "y" : "ies");
      if (do_auto)
        printf("gave %ld new pseudonym%s\n", added, added == 1 ? "" : "s");
    }
    for (i = 0; reals && i < n_sets; i++)
      free(reals[i]);
    free(reals);
    free(pseudos);
    free(changed);
    if (!ok || failed)
      goto end;
  }
  if (rescue_pseudonym_map_load(st, &m)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_pseudonym_map_json(&m, &out);
    rescue_buf_putc(&out, '\n');
  } else if (list || !n_sets) {
    for (i = 0; i < m.n; i++) {
      const rescue_pseudonym *it = &m.items[i];
      if (!it->real)
        rescue_buf_printf(&out, "%s -> %s\n", it->group, it->pseudonym ? it->pseudonym : "(none)");
      else
        rescue_buf_printf(&out, "  %-24s -> %s%s%s\n", it->real,
                          it->pseudonym ? it->pseudonym : "(none)", it->how ? "  " : "",
                          it->how ? it->how : "");
    }
    rescue_buf_printf(&out, "%ld without a pseudonym%s\n", m.missing,
                      m.missing ? " (rescue pseudonyms --auto gives them one)" : "");
  }
  rc = cli_print(&out);
end:
  rescue_pseudonym_map_clear(&m);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  cli_list_clear(&sets);
  return rc;
}

static const char *leak_db;
static int leak_json;
static const cli_option leakcheck_options[] = {
    CLI_STRING_REQ(0, "db", &leak_db, "<db>", "the corpus whose map holds the real names"),
    CLI_JSON(&leak_json, "one JSON document: counts, leaks, names to review"), CLI_END};
static const cli_spec leakcheck_spec = {
    .synopsis = "rescue leakcheck <export path> --db <db> [--json]",
    .description =
        "Scan an export (a file or a folder, every file in it) for the real names in the\n"
        "corpus's pseudonym map: participants and group names, as whole words in any case\n"
        "(possessives and names inside paths included). Each hit is printed as\n"
        "<file>:<line>: <field>: real name '<name>' and makes the exit status 1. Names worth\n"
        "a look are listed too without failing: values of person fields that are neither\n"
        "participants, pseudonyms nor Therapist/Couple/Family, and capitalised words inside\n"
        "sentences of the free text that the map does not know.\n"
        "",
    .options = leakcheck_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<export path>"};

int cmd_leakcheck(int argc, char **argv) {
  const char *db;
  int rc, first, json, i;
  rescue_store *st = NULL;
  rescue_leak_report rep;
  rescue_buf out = RESCUE_BUF_INIT;
  memset(&rep, 0, sizeof rep);
  if ((rc = cli_parse(argc, argv, &leakcheck_spec, &first)) != CLI_PARSED)
    return rc;
  db = leak_db;
  json = leak_json;
  if ((rc = cli_open_store(db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  if (rescue_leakcheck(st, argv[first], &rep)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_leak_report_json(&rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    for (i = 0; i < rep.n; i++)
      rescue_buf_printf(&out, "%s:%ld: %s%sreal name '%s'\n", rep.leaks[i].file, rep.leaks[i].line,
                        rep.leaks[i].field, *rep.leaks[i].field ? ": " : "", rep.leaks[i].name);
    if (rep.n_review) {
      rescue_buf_puts(&out, "review these (neither participants nor pseudonyms):\n");
      for (i = 0; i < rep.n_review; i++)
        rescue_buf_printf(&out, "  %s\n", rep.review[i]);
    }
    rescue_buf_printf(&out, "%ld file%s, %ld line%s: %d real name%s found\n", rep.files,
                      rep.files == 1 ? "" : "s", rep.lines, rep.lines == 1 ? "" : "s", rep.n,
                      rep.n == 1 ? "" : "s");
  }
  rc = cli_print(&out);
  if (rc == 0 && rep.n)
    rc = 1;
end:
  rescue_leak_report_clear(&rep);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}

static int log_json;
static const cli_option log_options[] = {CLI_JSON(&log_json, "one JSON array of events"), CLI_END};
static const cli_spec log_spec = {
    .synopsis = "rescue log <db> [--json]",
    .description =
        "The corpus's history in time order: every export (who ran it: the operating-system\n"
        "user and --annotator when given; the command line, the view, whether it was\n"
        "pseudonymised, the output and the SHA-256 of its manifest), import, adjudication,\n"
        "model draft and pseudonym change, every sample status change, assignment and split\n"
        "run, every annotator added, retired or brought back, and every lint waiver given or\n"
        "taken back.\n"
        "",
    .options = log_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_log(int argc, char **argv) {
  int rc, first, json;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  if ((rc = cli_parse(argc, argv, &log_spec, &first)) != CLI_PARSED)
    return rc;
  json = log_json;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    return rc;
  if (rescue_audit_log(st, !json, &out)) {
    rc = cli_fail(rescue_store_err(st));
  } else {
    if (json)
      rescue_buf_putc(&out, '\n');
    rc = cli_print(&out);
  }
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}
