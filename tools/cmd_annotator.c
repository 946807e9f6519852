/*
** cmd_annotator.c: `rescue annotator add` (with a sign-in token), `rescue annotator list`
** `rescue annotator retire|unretire` and `rescue annotator token --rotate`.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const roles[] = {"annotator", "lead", "model", NULL};
static int role_index = -1;
static const cli_option add_options[] = {{.type = CLI_OPT_CHOICE,
                                          .long_name = "role",
                                          .value = &role_index,
                                          .argh = "<role>",
                                          .help = "annotator (default), lead or model",
                                          .choices = roles,
                                          .bad = "unknown role '%s'"},
                                         CLI_END};
static const cli_spec add_spec = {
    .synopsis = "rescue annotator add <db> <name> [--role annotator|lead|model]",
    .description =
        "Add an annotator and print a sign-in token for the review server. The token is shown\n"
        "only now: the corpus keeps its SHA-256. A model annotator holds machine\n"
        "pre-annotations. An annotator that an older import created (without a token) gets\n"
        "one, and the role when --role is given.\n"
        "\n"
        "Only registered annotators can import (--annotator), comment, change statuses or be\n"
        "coders in agree and adjudicate; the names 'import' (drafts) and 'adjudication' (gold)\n"
        "are reserved.\n"
        "",
    .options = add_options,
    .min_args = 2,
    .max_args = 2,
    .arg_name = "<db> <name>"};

static int list_json;
static const cli_option list_options[] = {CLI_JSON(&list_json, "one JSON document"), CLI_END};
static const cli_spec list_spec = {
    .synopsis = "rescue annotator list <db> [--json]",
    .description =
        "Every annotator with their role, whether retired, row versions (and gold written\n"
        "under their name),\n"
        "the samples they have versions in, the samples the latest assignment gives them (and\n"
        "how many of those are shared for double review), and whether a token was issued.\n",
    .options = list_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_annotator_add(int argc, char **argv) {
  const char *role, *why;
  rescue_store *st = NULL;
  char token[65];
  int rc, first, existed = 0;
  if ((rc = cli_parse(argc, argv, &add_spec, &first)) != CLI_PARSED)
    return rc;
  role = role_index >= 0 ? roles[role_index] : NULL;
  if ((why = rescue_annotator_name_invalid(argv[first + 1])))
    return cli_spec_error(&add_spec, "invalid annotator name '%s': %s", argv[first + 1], why);
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  if (rescue_annotator_add(st, argv[first + 1], role, token, &existed)) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  rescue_store_close(&st);
  if (existed)
    printf("issued a sign-in token to the existing annotator '%s'%s%s%s\n", argv[first + 1],
           role ? " (role " : "", role ? role : "", role ? ")" : "");
  else
    printf("added annotator '%s' (role %s)\n", argv[first + 1], role ? role : "annotator");
  printf("sign-in token: %s\n", token);
  printf("(shown only now; the corpus keeps its SHA-256)\n");
  return cli_finish(0);
}

int cmd_annotator_list(int argc, char **argv) {
  rescue_store *st = NULL;
  rescue_annotator_info *list = NULL;
  rescue_assign_run run;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, n = 0, json, i, first;
  if ((rc = cli_parse(argc, argv, &list_spec, &first)) != CLI_PARSED)
    return rc;
  json = list_json;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    return rc;
  if (rescue_annotator_list(st, &list, &n, &run)) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  if (json) {
    rescue_jw w;
    rescue_jw_init(&w, &out);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "annotators");
    rescue_jw_arr(&w);
    for (i = 0; i < n; i++) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "name");
      rescue_jw_str(&w, list[i].name);
      rescue_jw_key(&w, "role");
      rescue_jw_str(&w, list[i].role);
      rescue_jw_key(&w, "versions");
      rescue_jw_int(&w, list[i].versions);
      rescue_jw_key(&w, "gold");
      rescue_jw_int(&w, list[i].gold);
      rescue_jw_key(&w, "samples");
      rescue_jw_int(&w, list[i].samples);
      rescue_jw_key(&w, "assigned");
      rescue_jw_int(&w, list[i].assigned);
      rescue_jw_key(&w, "shared");
      rescue_jw_int(&w, list[i].shared);
      rescue_jw_key(&w, "token");
      rescue_jw_bool(&w, list[i].has_token);
      rescue_jw_key(&w, "retired");
      rescue_jw_bool(&w, list[i].retired);
      rescue_jw_key(&w, "created_at");
      rescue_jw_str(&w, list[i].created_at);
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_key(&w, "assignment");
    if (run.id) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "run");
      rescue_jw_int(&w, run.id);
      rescue_jw_key(&w, "seed");
      rescue_jw_int(&w, (long long)run.seed);
      rescue_jw_key(&w, "overlap");
      rescue_jw_double(&w, run.overlap);
      rescue_jw_key(&w, "annotators");
      rescue_jw_str(&w, run.annotators);
      rescue_jw_key(&w, "created_at");
      rescue_jw_str(&w, run.created_at);
      rescue_jw_end(&w);
    } else {
      rescue_jw_null(&w);
    }
    rescue_jw_end(&w);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_buf_printf(&out, "%-20s %-9s %9s %6s %8s %9s %7s  %s\n", "name", "role", "versions",
                      "gold", "samples", "assigned", "shared", "token");
    for (i = 0; i < n; i++)
      rescue_buf_printf(&out, "%-20s %-9s %9ld %6ld %8ld %9ld %7ld  %s%s\n", list[i].name,
                        list[i].role, list[i].versions, list[i].gold, list[i].samples,
                        list[i].assigned, list[i].shared, list[i].has_token ? "yes" : "no",
                        list[i].retired ? "  (retired)" : "");
    if (run.id)
      rescue_buf_printf(&out,
                        "\nassignment in use: run %lld of %s (seed %llu, overlap %g, "
                        "annotators %s)\n",
                        (long long)run.id, run.created_at, (unsigned long long)run.seed,
                        run.overlap, run.annotators);
    else
      rescue_buf_puts(&out, "\nno assignment yet (rescue assign)\n");
  }
  rescue_annotator_list_free(&list, n, &run);
  rescue_store_close(&st);
  rc = cli_print(&out);
  rescue_buf_clear(&out);
  return rc;
}

static const char *reason;
static const cli_option retire_options[] = {
    CLI_STRING(0, "reason", &reason, "<text>", "why (required to retire)"), CLI_END};
static const cli_spec retire_spec = {
    .synopsis = "rescue annotator retire <db> <name> --reason <text>\n"
                "       rescue annotator unretire <db> <name> [--reason <text>]",
    .description =
        "Retire an annotator: their versions stay in the corpus and its history, but leave\n"
        "every view, agreement and adjudication (and they no longer count as a coder).\n"
        "Unretire brings them back. Both changes are recorded with the time and reason.\n"
        "Retiring ends their review-server sessions; unretiring leaves them without a sign-in\n"
        "token: issue a new one with `rescue annotator token <db> <name> --rotate`.\n"
        "",
    .options = retire_options,
    .min_args = 2,
    .max_args = 2,
    .arg_name = "<db> <name>"};

/* retire (1) or unretire (0) */
static int retire(int argc, char **argv, int on) {
  rescue_store *st = NULL;
  int rc, first;
  if ((rc = cli_parse(argc, argv, &retire_spec, &first)) != CLI_PARSED)
    return rc;
  if (on && (!reason || !*reason))
    return cli_spec_error(&retire_spec, "retiring an annotator needs a reason (--reason <text>)");
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  if (on ? rescue_annotator_retire(st, argv[first + 1], reason)
         : rescue_annotator_unretire(st, argv[first + 1], reason)) {
    rc = cli_fail_path(rescue_store_err(st), argv[first]);
    rescue_store_close(&st);
    return rc;
  }
  rescue_store_close(&st);
  if (on)
    printf("retired annotator '%s' (%s): their versions stay in the history but leave views, "
           "agreement and adjudication\n",
           argv[first + 1], reason);
  else
    printf("annotator '%s' is back: their versions are in views, agreement and adjudication "
           "again; their old sign-in token stays revoked (new one: rescue annotator token %s %s "
           "--rotate)\n",
           argv[first + 1], argv[first], argv[first + 1]);
  return cli_finish(0);
}

int cmd_annotator_retire(int argc, char **argv) { return retire(argc, argv, 1); }
int cmd_annotator_unretire(int argc, char **argv) { return retire(argc, argv, 0); }

static int rotate;
static const cli_option token_options[] = {
    CLI_FLAG(0, "rotate", &rotate, "replace the token (the only way: tokens are kept hashed)"),
    CLI_END};
static const cli_spec token_spec = {
    .synopsis = "rescue annotator token <db> <name> --rotate",
    .description =
        "Issue an annotator a new sign-in token in place of their current one and print it\n"
        "(shown only now). The old token stops working at once, and every review-server\n"
        "session signed in with it ends at its next request. A retired annotator must be\n"
        "unretired first.\n",
    .options = token_options,
    .min_args = 2,
    .max_args = 2,
    .arg_name = "<db> <name>"};

int cmd_annotator_token(int argc, char **argv) {
  rescue_store *st = NULL;
  char token[65];
  int rc, first;
  if ((rc = cli_parse(argc, argv, &token_spec, &first)) != CLI_PARSED)
    return rc;
  if (!rotate)
    return cli_spec_error(&token_spec, "tokens are kept hashed and cannot be shown again: "
                                       "--rotate issues a new one");
  if ((rc = cli_open_store(argv[first], 0, &st)))
    return rc;
  if (rescue_annotator_rotate(st, argv[first + 1], token)) {
    rc = cli_fail_path(rescue_store_err(st), argv[first]);
    rescue_store_close(&st);
    return rc;
  }
  rescue_store_close(&st);
  printf("new sign-in token for '%s': %s\n", argv[first + 1], token);
  printf("(shown only now; the old token and its sessions have ended)\n");
  return cli_finish(0);
}
