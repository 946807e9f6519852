/*
** cmd_stats.c: `rescue stats <db> [--json]`.
*/
#include <stdio.h>

#include "cli.h"

static int json;
static const cli_option options[] = {
    CLI_JSON(&json,
             "print one JSON document: {\"couple\": {...}, \"family\": {...}, \"all\": {...}},\n"
             "each with samples, turns, duration_min, avg_duration_min, avg_turns,\n"
             "avg_speakers, therapist_share (a fraction) and therapist_turns;\n"
             "averages are null when there are no samples; and\n"
             "\"label_distributions\": {\"couple\"|\"family\": {\"samples\": n,\n"
             "  \"support_strategy\"|\"relation_pattern\"|\"utterance_type\"|\"intensity\":\n"
             "  {\"total\", \"out_of_set\", \"counts\": {label: n}, \"shares\": {label: x}}}}\n"
             "(the scheme's labels in order, zeros included, then labels outside the\n"
             "set; intensities \"0\"..\"10\" and \"invalid\"), and\n"
             "\"relation_transitions\": {\"couple\"|\"family\": {\"labels\": [...],\n"
             "  \"transitions\": n, \"counts\": [[...]], \"probabilities\": [[...]]}}\n"
             "(row = from, column = to; probabilities row-normalised, 0 for a row\n"
             "without transitions)"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue stats <db> [--json]",
    .description =
        "Corpus statistics in the form of the paper's Table 3, per scenario (couple, family;\n"
        "derived as corpus/FORMAT.md §6.3 says) and overall, over the corpus view (gold where\n"
        "adjudicated, else the latest version). Discarded samples are left out. A sample's\n"
        "duration is its linked media segment's length when known, else its last row's\n"
        "end_time; speakers are the distinct primary speakers, Therapist included.\n"
        "\n"
        "Then label distributions per scenario: support strategies (every support_strategy\n"
        "item), relation patterns (relation_pattern; in samples without that key, therapist\n"
        "rows' relation_cycle_state, as RPP reads them), utterance types and intensities; and\n"
        "the relation-pattern transition matrix (the paper's Figure 3): over consecutive\n"
        "non-empty in-set relation labels within each sample, self-transitions left out,\n"
        "row-normalised.\n",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<db>"};

int cmd_stats(int argc, char **argv) {
  rescue_store *st = NULL;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  rescue_table3 t;
  rescue_label_stats *ls = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  int rc, first;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if ((rc = cli_open_store(argv[first], RESCUE_OPEN_READONLY, &st)))
    return rc;
  rc = rescue_stats_table3(st, &view, &t);
  if (!rc)
    rc = rescue_stats_labels(st, &view, &ls);
  if (rc) {
    rc = cli_fail(rescue_store_err(st));
    rescue_store_close(&st);
    return rc;
  }
  if (json) {
    rescue_stats_json(&t, ls, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_stats_table3_text(&t, &out);
    rescue_stats_labels_text(ls, &out);
  }
  rescue_stats_labels_free(&ls);
  rc = cli_print(&out);
  rescue_buf_clear(&out);
  rescue_store_close(&st);
  return rc;
}
