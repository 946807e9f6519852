/*
** cmd_score.c: `rescue score <task> --gold <file.jsonl> --pred <file.jsonl> [--json]`.
*/
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

static const char usage[] =
    "usage: rescue score <task> --gold <file.jsonl> --pred <file.jsonl> [--json]\n"
    "\n"
    "Score predictions against a task file written by 'rescue export --format tasks', with\n"
    "the paper's metrics, overall, per scenario, per couple and per sample, plus a\n"
    "confusion table. <task> is itp, rpp, stp, ssp or er (vp has only LLM-judge scores).\n"
    "\n"
    "Predictions: JSONL, one object per line with \"instance_id\" and the task's field:\n"
    "  itp  should_speak               yes/no (also y, true, 1, speak; n, false, 0, listen,\n"
    "                                  keep_listening, do_not_speak; a boolean)\n"
    "  rpp  relation_top3              up to three relation labels, best first; invalid\n"
    "                                  ones dropped, then padded in taxonomy order\n"
    "  stp  target_top3                up to three candidate target labels\n"
    "  ssp  strategy_top3              up to three strategy labels of the sample's taxonomy\n"
    "  er   predicted_intensity_score  0-10 (rounded half to even)\n"
    "A line may also hold a list of such objects, an object with a \"predictions\" list, or\n"
    "a model reply as a JSON string (code fences stripped, first JSON object used).\n"
    "Labels are compared exactly (no case folding). A missing prediction counts as no (itp)\n"
    "or as an empty list (rpp, stp, ssp: every recall 0); er leaves it out of the mean,\n"
    "and an intensity that does not parse fails the whole sample (left out, listed). The\n"
    "gold label is never filled in. Every report says how many were missing or invalid.\n"
    "\n"
    "options:\n"
    "  --gold <file>  the task's exported JSONL (<task>.jsonl or <task>/<split>.jsonl)\n"
    "  --pred <file>  the predictions\n"
    "  --json         print one JSON document with the keys task, gold, pred,\n"
    "                 counts {instances, predicted, missing, invalid, unknown_ids,\n"
    "                 duplicates, no_id, bad_replies, dropped_labels, failed_samples},\n"
    "                 overall, scenarios {couple, family}, couples {<couple>: ...},\n"
    "                 samples {<sample_id>: ...}, confusions [{gold, pred, count}] and,\n"
    "                 for rpp, top1_class_metrics {<label>: {precision, recall, f1,\n"
    "                 support}}; for er, failed [<sample_id>]. Metric objects hold n and:\n"
    "                   itp  precision_yes, recall_yes, f1_yes, precision_no, recall_no,\n"
    "                        f1_no, accuracy, balanced_accuracy, tp, fp, tn, fn\n"
    "                   rpp  accuracy, relation_recall_at_1..3, relation_mrr, and\n"
    "                        macro_precision, macro_recall, macro_f1 (overall, scenarios)\n"
    "                   stp  target_recall_at_1..3, target_mrr\n"
    "                   ssp  strategy_recall_at_1..3, strategy_mrr\n"
    "                   er   scored, avg_intensity_match, intensity_exact_rate,\n"
    "                        intensity_mae (null when nothing was scored)\n"
    "  -h, --help     show this help\n";

int cmd_score(int argc, char **argv) {
  static const struct option opts[] = {{"gold", required_argument, NULL, 'g'},
                                       {"pred", required_argument, NULL, 'p'},
                                       {"json", no_argument, NULL, 'j'},
                                       {"help", no_argument, NULL, 'h'},
                                       {0, 0, 0, 0}};
  const char *gold = NULL, *pred = NULL;
  rescue_score_report *rep = NULL;
  rescue_error err = {0, ""};
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_task task;
  int c, rc, json = 0;

  while ((c = cli_getopt(argc, argv, "h", opts, usage)) != -1) {
    switch (c) {
    case 'h':
      return cli_help(usage);
    case 'g':
      gold = optarg;
      break;
    case 'p':
      pred = optarg;
      break;
    case 'j':
      json = 1;
      break;
    default:
      return 2;
    }
  }
  if (argc - optind != 1)
    return cli_usage_error(usage, argc - optind ? "too many arguments" : "missing <task>");
  if (rescue_task_parse(argv[optind], &task))
    return cli_usage_error(usage, "unknown task '%s' (expected itp, rpp, stp, ssp, er or vp)",
                           argv[optind]);
  if (task == RESCUE_TASK_VP) {
    cli_error("vp cannot be scored offline: its scores come from an LLM judge "
              "(source-target, viewpoint and total scores; export/TASKS.md §4)");
    return 1;
  }
  if (!gold)
    return cli_usage_error(usage, "missing --gold");
  if (!pred)
    return cli_usage_error(usage, "missing --pred");
  if (rescue_score_files(task, gold, pred, &rep, &err))
    return cli_fail(&err);
  if (json) {
    rescue_score_json(rep, &out);
    rescue_buf_putc(&out, '\n');
  } else {
    rescue_score_text(rep, &out);
  }
  rescue_score_free(&rep);
  rc = cli_print(&out);
  rescue_buf_free(&out);
  return rc;
}
