/*
** cmd_workflow.c: `rescue status`, `rescue comment` and `rescue comments`: the review
** workflow's state, shared with the review server. None of it enters exports.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"

static const char *reason, *annotator;
static int json;
static const cli_option status_options[] = {
    CLI_STRING(0, "reason", &reason, "<text>", "why (required for discarded)"),
    CLI_STRING(0, "annotator", &annotator, "<name>", "who changes it (a registered annotator)"),
    CLI_JSON(&json, "one JSON document: the sample's status history"), CLI_END};
static const cli_spec status_spec = {
    .synopsis = "rescue status <db> <sample_id> new|in_review|reviewed|discarded\n"
                "                     [--reason <text>] [--annotator <name>] [--json]\n"
                "       rescue status <db> <sample_id> [--json]",
    .description =
        "Set a sample's review status, or (without a status) show its status history. Every\n"
        "change is kept in the history with its time, reason and annotator. Discarding needs\n"
        "a reason; a discarded sample stays in the corpus, and exports and statistics leave\n"
        "it out. Statuses are never written into exports.\n"
        "",
    .options = status_options,
    .min_args = 2,
    .max_args = 3,
    .arg_name = "<db> <sample_id>"};

static const cli_option comment_options[] = {
    CLI_STRING(0, "annotator", &annotator, "<name>", "who writes it (a registered annotator)"),
    CLI_END};
static const cli_spec comment_spec = {
    .synopsis = "rescue comment <db> <sample_id>[:<row>] <text> [--annotator <name>]",
    .description =
        "Add a comment on a sample, or on one of its rows (<row> is the 1-based position in\n"
        "the sample's current row set). Comments are kept in the corpus with their time and\n"
        "author, listed by 'rescue comments' and the review server, and never written into\n"
        "exports (write notes here, not as extra keys in rows).\n"
        "",
    .options = comment_options,
    .min_args = 3,
    .max_args = -1,
    .arg_name = "<db> <sample_id> <text>"};

static cli_list samples;
static const cli_option comments_options[] = {
    CLI_SAMPLES_HELP(&samples, "only these samples"),
    CLI_JSON(&json, "one JSON document: {\"comments\": [{\"id\", \"sample_id\", \"row\",\n"
                    "\"annotator\", \"text\", \"created_at\"}]}"),
    CLI_END};
static const cli_spec comments_spec = {
    .synopsis = "rescue comments <db> [--samples <id>,...] [--json]",
    .description = "List comments in sample order, oldest first.\n"
                   "",
    .options = comments_options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

/* The registered annotator's id, or print the error and return 1. */
static int who(rescue_store *st, const char *name, int64_t *id) {
  *id = 0;
  if (!name)
    return 0;
  if (rescue_annotator_lookup(st, name, id, NULL, NULL))
    return cli_fail_path(rescue_store_err(st), rescue_store_path(st));
  return 0;
}

static void status_json(const char *sample_id, const rescue_status_entry *h, int n,
                        rescue_buf *out) {
  rescue_jw w;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "sample_id");
  rescue_jw_str(&w, sample_id);
  rescue_jw_key(&w, "status");
  rescue_jw_str(&w, n ? h[n - 1].status : "new");
  rescue_jw_key(&w, "reason");
  rescue_jw_str_or_null(&w, n ? h[n - 1].reason : NULL);
  rescue_jw_key(&w, "history");
  rescue_status_history_jw(&w, h, n);
  rescue_jw_end(&w);
  rescue_buf_putc(out, '\n');
}

int cmd_status(int argc, char **argv) {
  const char *status = NULL, *sample;
  rescue_store *st = NULL;
  rescue_status_entry *h = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int64_t id = 0;
  int rc, first, n = 0, i;
  if ((rc = cli_parse(argc, argv, &status_spec, &first)) != CLI_PARSED)
    return rc;
  sample = argv[first + 1];
  if (argc - first == 3) {
    status = argv[first + 2];
    if (!rescue_status_valid(status))
      return cli_spec_error(&status_spec,
                            "unknown status '%s' (expected new, in_review, reviewed or discarded)",
                            status);
    if (strcmp(status, "discarded") == 0 && (!reason || !*reason))
      return cli_spec_error(&status_spec, "discarding a sample needs a reason (--reason <text>)");
  } else if (reason || annotator) {
    return cli_spec_error(&status_spec, "--reason and --annotator go with a new status");
  }
  if ((rc = cli_open_store(argv[first], status ? 0 : RESCUE_OPEN_READONLY, &st)))
    return rc;
  if ((rc = who(st, annotator, &id)))
    goto end;
  if (status && rescue_sample_set_status(st, sample, status, reason, id)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (rescue_status_history(st, sample, &h, &n)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    status_json(sample, h, n, &out);
  } else if (status) {
    rescue_buf_printf(&out, "%s: %s%s%s%s\n", sample, status, reason ? " (" : "",
                      reason ? reason : "", reason ? ")" : "");
  } else {
    rescue_buf_printf(&out, "%s: %s\n", sample, n ? h[n - 1].status : "new");
    for (i = 0; i < n; i++)
      rescue_buf_printf(&out, "  %s  %-10s %s%s%s%s\n", h[i].created_at, h[i].status,
                        h[i].annotator ? "by " : "", h[i].annotator ? h[i].annotator : "",
                        h[i].reason ? (h[i].annotator ? ": " : "") : "",
                        h[i].reason ? h[i].reason : "");
  }
  rc = cli_print(&out);
end:
  rescue_status_history_free(&h, n);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}

int cmd_comment(int argc, char **argv) {
  const char *colon;
  char *sample = NULL;
  rescue_store *st = NULL;
  int64_t id = 0, cid = 0;
  long row = 0;
  int rc, first;
  if ((rc = cli_parse(argc, argv, &comment_spec, &first)) != CLI_PARSED)
    return rc;
  if (argc - first > 3)
    return cli_spec_error(&comment_spec, "too many arguments (quote the text)");
  /* sample ids never contain ':' followed only by digits at their end: that is the row */
  colon = strrchr(argv[first + 1], ':');
  if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1)) {
    row = strtol(colon + 1, NULL, 10);
    if (row < 1 || row > 1000000)
      return cli_spec_error(&comment_spec, "row '%s' is not a row position (1, 2, ...)", colon + 1);
    sample = strndup(argv[first + 1], (size_t)(colon - argv[first + 1]));
  } else {
    sample = strdup(argv[first + 1]);
  }
  if (!sample) {
    cli_error("out of memory");
    return 1;
  }
  if ((rc = cli_open_store(argv[first], 0, &st)))
    goto end;
  if ((rc = who(st, annotator, &id)))
    goto end;
  if (rescue_comment_add(st, sample, (int)row, argv[first + 2], id, &cid)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (row)
    printf("comment %lld added to %s row %ld\n", (long long)cid, sample, row);
  else
    printf("comment %lld added to %s\n", (long long)cid, sample);
  rc = cli_finish(0);
end:
  free(sample);
  rescue_store_close(&st);
  return rc;
}

int cmd_comments(int argc, char **argv) {
  rescue_store *st = NULL;
  rescue_comment *list = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, first, n = 0, i;
  if ((rc = cli_parse(argc, argv, &comments_spec, &first)) != CLI_PARSED)
    goto end;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    goto end;
  if (rescue_comments_list(st, (const char *const *)samples.v, samples.n, &list, &n)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  if (json) {
    rescue_comments_json(list, n, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    if (!n)
      rescue_buf_puts(&out, "no comments\n");
    for (i = 0; i < n; i++) {
      rescue_buf_printf(&out, "%s", list[i].sample_id);
      if (list[i].row)
        rescue_buf_printf(&out, ":%d", list[i].row);
      rescue_buf_printf(&out, "  %s  %s: %s\n", list[i].created_at,
                        list[i].annotator ? list[i].annotator : "(no name)", list[i].text);
    }
  }
  rc = cli_print(&out);
end:
  rescue_comments_free(&list, n);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  cli_list_clear(&samples);
  return rc;
}
