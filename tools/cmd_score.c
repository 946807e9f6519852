/*
** cmd_score.c: `rescue score <task> --gold <file.jsonl> --pred <file.jsonl>
** [--protocol rescue|release] [--allow-missing] [--json]`.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char *const protocols[] = {"rescue", "release", NULL};
static const char *gold, *pred;
static int protocol_index, allow_missing, json;
static const cli_option options[] = {
    CLI_STRING(0, "gold", &gold, "<file>",
               "the task's exported JSONL (<task>.jsonl, <task>/<split>.jsonl, or\n"
               "the answers of a --blind export: <task>[/<split>].answers.jsonl)"),
    CLI_STRING(0, "pred", &pred, "<file>", "the predictions"),
    {.type = CLI_OPT_CHOICE,
     .long_name = "protocol",
     .value = &protocol_index,
     .argh = "<p>",
     .help = "rescue (default) or release",
     .choices = protocols,
     .bad = "unknown protocol '%s'"},
    CLI_FLAG(0, "allow-missing", &allow_missing,
             "score however many predictions are missing or invalid"),
    CLI_JSON(&json, "print one JSON document with the keys task, protocol, gold, pred,\n"
                    "counts {instances, predicted, missing, invalid, empty, coerced,\n"
                    "unknown_ids, duplicates, no_id, one_instance, invalid_lines,\n"
                    "recovered, reply_strings, reply_fields, string_items,\n"
                    "dropped_items, dropped_labels, failed_samples, gold_fills,\n"
                    "release_stops}, notes [text], invalid_lines [{line, reason}],\n"
                    "invalid_predictions [{line, instance_id, reason}], overall,\n"
                    "scenarios {couple, family}, couples {<couple>: ...}, samples\n"
                    "{<sample_id>: ...}, confusions [{gold, pred, count}] and, for\n"
                    "rpp, top1_class_metrics {<scenario>: {<label>: {precision,\n"
                    "recall, f1, support}}}; for er, failed [<sample_id>]. Metric\n"
                    "objects hold n and:\n"
                    "  itp  precision_yes, recall_yes, f1_yes, precision_no,\n"
                    "       recall_no, f1_no, accuracy, balanced_accuracy, tp, fp,\n"
                    "       tn, fn\n"
                    "  rpp  accuracy, relation_recall_at_1..3, relation_mrr,\n"
                    "       macro_precision, macro_recall, macro_f1 (top-1, over the\n"
                    "       scenario's taxonomy; null overall when the file holds\n"
                    "       both scenarios)\n"
                    "  stp  target_recall_at_1..3, target_mrr\n"
                    "  ssp  strategy_recall_at_1..3, strategy_mrr\n"
                    "  er   scored, avg_intensity_match, and under rescue\n"
                    "       intensity_exact_rate, intensity_mae (null when nothing\n"
                    "       was scored; release: per sample only)"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue score <task> --gold <file.jsonl> --pred <file.jsonl>\n"
                "                    [--protocol rescue|release] [--allow-missing] [--json]",
    .description =
        "Score model predictions against a task file written by 'rescue export --format tasks'\n"
        "(or the answer file of a --blind export), with the paper's metrics, overall, per\n"
        "scenario, per couple and per sample, plus a confusion table. <task> is itp, rpp, stp,\n"
        "ssp or er (vp has only LLM-judge scores). Every report names its protocol:\n"
        "  rescue   (default) a missing or invalid prediction is wrong (itp: no; rank tasks:\n"
        "           rank 0; er: that checkpoint left out); every tolerance below is counted\n"
        "  release  the benchmark scripts' arithmetic: top-3 fields of other types read as\n"
        "           Python reads them (a string by characters, an object by its keys), er\n"
        "           per-sample averages rounded to 3 decimals and a sample with any unusable\n"
        "           checkpoint failed; where the scripts would fill in the gold label (rpp) or\n"
        "           stop with an error (stp, ssp), the report says so and scores rank 0\n"
        "\n"
        "Predictions: one model reply per line, each an object with \"instance_id\" and the\n"
        "task's field, or an object with a \"predictions\" list (or object) of such objects:\n"
        "  itp  should_speak               yes/no (also y, true, 1, speak; n, false, 0, listen,\n"
        "                                  keep_listening, do_not_speak; a boolean; else the\n"
        "                                  text containing yes, then no)\n"
        "  rpp  relation_top3              up to three relation labels, best first; invalid\n"
        "                                  ones dropped, then padded in taxonomy order\n"
        "  stp  target_top3                up to three candidate target labels\n"
        "  ssp  strategy_top3              up to three strategy labels of the sample's taxonomy\n"
        "  er   predicted_intensity_score  0-10 (Python's int(round(float(v))))\n"
        "Tolerated and counted: a line that is a JSON string (the raw reply text); code fences\n"
        "and prose around the JSON (the first object found; a truncated batch gives its first\n"
        "complete object); NaN, Infinity, huge integers and lone surrogates as Python reads\n"
        "them (NaN or Infinity in a field makes the prediction invalid under rescue); rescue\n"
        "also reads replies inside \"response\", \"output\" or \"text\" fields (the outer id\n"
        "counts), JSON strings inside \"predictions\" (fenced too) and a single string where\n"
        "a top-3 list is expected; an itp answer given as a list or object is read as its\n"
        "text ([\"yes\"] is yes). A bare object whose field is empty (\"\", false, 0, [], null)\n"
        "is not a prediction, as in the scripts. Without an id, a prediction goes to the gold\n"
        "file's only instance when it has one. A line with no readable reply is counted with\n"
        "its line number, never fatal. Labels are compared exactly (no case folding).\n"
        "\n"
        "Fails (exit 1) when more than 20% of the instances have no usable prediction\n"
        "(missing or invalid), with the counts, unless --allow-missing; and when the\n"
        "predictions belong to another task (the message names it).\n"
        "",
    .options = options,
    .min_args = 1,
    .max_args = 1,
    .arg_name = "<task>"};

int cmd_score(int argc, char **argv) {
  rescue_score_report *rep = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_score_opts so = {.protocol = RESCUE_PROTOCOL_RESCUE};
  rescue_task task;
  int rc, first;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  if (rescue_score_protocol_parse(protocols[protocol_index], &so.protocol)) {
    cli_error("unknown protocol '%s'", protocols[protocol_index]);
    return 1;
  }
  so.allow_missing = allow_missing;
  if (rescue_task_parse(argv[first], &task))
    return cli_spec_error(&spec, "unknown task '%s' (expected itp, rpp, stp, ssp, er or vp)",
                          argv[first]);
  if (task == RESCUE_TASK_VP) {
    cli_error("vp cannot be scored offline: its scores come from an LLM judge "
              "(source-target, viewpoint and total scores)");
    return 1;
  }
  /* after the task's checks: vp fails (1) with or without files */
  if (!gold)
    return cli_spec_error(&spec, "missing --gold");
  if (!pred)
    return cli_spec_error(&spec, "missing --pred");
  if (rescue_score_files(task, gold, pred, &so, &rep, &err))
    return cli_fail(&err);
  if (json) {
    rescue_score_json(rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_score_text(rep, &out);
  }
  rescue_score_free(&rep);
  rc = cli_print(&out);
  rescue_buf_clear(&out);
  return rc;
}
