/*
** cmd_privacy.c: `rescue pseudonyms` (the pseudonym map), `rescue leakcheck` (real names in
** an export) and `rescue log` (who imported, exported, adjudicated and changed what).
*/
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char usage_pseudonyms[] =
    "usage: rescue pseudonyms <db> [--set <real>=<pseudonym>]... [--auto] [--list] [--json]\n"
    "\n"
    "The corpus's pseudonym map, used by 'rescue export --pseudonymise'. Every group (a\n"
    "couple or a family) and every participant the corpus has ever named gets one\n"
    "pseudonym, unique within its group. --auto gives one to each that has none: couple\n"
    "partners become 'Partner A', 'Partner B', ...; family members 'Member 1', 'Member 2',\n"
    "...; groups '<scenario>_<6 hex digits>' from a secret key kept in the corpus (so the\n"
    "name cannot be guessed back). Pseudonyms already set are kept: later samples of a\n"
    "group reuse them. The therapist and the group labels (Therapist, Couple, Family) stay.\n"
    "\n"
    "options:\n"
    "  --set <real>=<p>  set a pseudonym: <real> is a group name, a participant's name (in\n"
    "                    every group that has one), or <group>:<name>; may repeat\n"
    "  --auto            give a pseudonym to every group and participant without one\n"
    "  --list            print the map (the default when nothing else is asked)\n"
    "  --json            print the map as one JSON document\n"
    "  -h, --help        show this help\n";

int cmd_pseudonyms(int argc, char **argv) {
  static const struct option opts[] = {{"set", required_argument, NULL, 's'},
                                       {"auto", no_argument, NULL, 'a'},
                                       {"list", no_argument, NULL, 'l'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  char **sets = NULL;
  int n_sets = 0, c, rc = 2, do_auto = 0, list = 0, json = 0, i;
  rescue_store *st = NULL;
  rescue_pseudonym_map m;
  rescue_buf out = RESCUE_BUF_INIT;
  memset(&m, 0, sizeof m);
  while ((c = cli_getopt(argc, argv, "h", opts, usage_pseudonyms)) != -1) {
    switch (c) {
    case 'h': free(sets); return cli_help(usage_pseudonyms);
    case 's': {
      char **ns = realloc(sets, (size_t)(n_sets + 1) * sizeof *ns);
      if (!ns || !strchr(optarg, '=') || optarg[0] == '=') {
        free(ns ? ns : sets);
        return cli_usage_error(usage_pseudonyms, "--set expects <real>=<pseudonym>, not '%s'",
                               optarg);
      }
      sets = ns;
      sets[n_sets++] = optarg;
      break;
    }
    case 'a': do_auto = 1; break;
    case 'l': list = 1; break;
    case 'j': json = 1; break;
    default: goto end;
    }
  }
  if (argc - optind != 1) {
    cli_usage_error(usage_pseudonyms, argc - optind ? "too many arguments" : "missing <db>");
    goto end;
  }
  if ((rc = cli_open_store(argv[optind], n_sets || do_auto ? 0 : RESCUE_OPEN_READONLY, &st)))
    goto end;
  rc = 1;
  for (i = 0; i < n_sets; i++) {
    char *eq = strchr(sets[i], '='), real[1024];
    long changed;
    snprintf(real, sizeof real, "%.*s", (int)(eq - sets[i]), sets[i]);
    if (rescue_pseudonym_set(st, real, eq + 1, &changed)) {
      rc = cli_fail(rescue_store_err(st));
      goto end;
    }
    if (!json)
      printf("set '%s' for %s (%ld entr%s)\n", eq + 1, real, changed, changed == 1 ? "y" : "ies");
  }
  if (do_auto) {
    long added;
    if (rescue_pseudonym_auto(st, &added)) {
      rc = cli_fail(rescue_store_err(st));
      goto end;
    }
    if (!json)
      printf("gave %ld new pseudonym%s\n", added, added == 1 ? "" : "s");
  }
  if (n_sets || do_auto)
    cli_audit(argv[optind], "pseudonyms", argc, argv, NULL, do_auto ? "auto" : "set");
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
  free(sets);
  return rc;
}

static const char usage_leakcheck[] =
    "usage: rescue leakcheck <export path> --db <db> [--json]\n"
    "\n"
    "Scan an export (a file or a folder, every file in it) for the real names in the\n"
    "corpus's pseudonym map: participants and group names, as whole words in any case\n"
    "(possessives and names inside paths included). Each hit is printed as\n"
    "<file>:<line>: <field>: real name '<name>' and makes the exit status 1. Names worth\n"
    "a look are listed too without failing: values of person fields that are neither\n"
    "participants, pseudonyms nor Therapist/Couple/Family, and capitalised words inside\n"
    "sentences of the free text that the map does not know.\n"
    "\n"
    "options:\n"
    "  --db <db>     the corpus whose map holds the real names\n"
    "  --json        one JSON document: counts, leaks, names to review\n"
    "  -h, --help    show this help\n";

int cmd_leakcheck(int argc, char **argv) {
  static const struct option opts[] = {{"db", required_argument, NULL, 'd'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  const char *db = NULL;
  int c, rc = 2, json = 0, i;
  rescue_store *st = NULL;
  rescue_leak_report rep;
  rescue_buf out = RESCUE_BUF_INIT;
  memset(&rep, 0, sizeof rep);
  while ((c = cli_getopt(argc, argv, "h", opts, usage_leakcheck)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage_leakcheck);
    case 'd': db = optarg; break;
    case 'j': json = 1; break;
    default: return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage_leakcheck, argc - optind ? "too many arguments"
                                                          : "missing <export path>");
  if (!db)
    return cli_usage_error(usage_leakcheck, "missing --db <db>");
  if ((rc = cli_open_store(db, RESCUE_OPEN_READONLY, &st)))
    return rc;
  if (rescue_leakcheck(st, argv[optind], &rep)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_leak_report_json(&rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    for (i = 0; i < rep.n; i++)
      rescue_buf_printf(&out, "%s:%ld: %s%sreal name '%s'\n", rep.leaks[i].file,
                        rep.leaks[i].line, rep.leaks[i].field, *rep.leaks[i].field ? ": " : "",
                        rep.leaks[i].name);
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

static const char usage_log[] =
    "usage: rescue log <db> [--json]\n"
    "\n"
    "The corpus's history in time order: every export (who ran it: the operating-system\n"
    "user and --annotator when given; the command line, the view, whether it was\n"
    "pseudonymised, the output and the SHA-256 of its manifest), import, adjudication,\n"
    "model draft and pseudonym change, and every sample status change.\n"
    "\n"
    "options:\n"
    "  --json        one JSON array of events\n"
    "  -h, --help    show this help\n";

int cmd_log(int argc, char **argv) {
  static const struct option opts[] = {{"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  int c, rc, json = 0;
  rescue_store *st = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  while ((c = cli_getopt(argc, argv, "h", opts, usage_log)) != -1) {
    switch (c) {
    case 'h': return cli_help(usage_log);
    case 'j': json = 1; break;
    default: return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage_log, argc - optind ? "too many arguments" : "missing <db>");
  if ((rc = cli_open_store(argv[optind], RESCUE_OPEN_READONLY, &st)))
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
