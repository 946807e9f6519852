/*
** demo_tasks.c: the demo's task-dataset step: a split of the demo corpus, then the six
** task datasets with their card and manifest.
*/
#include <stdio.h>
#include <string.h>

#include "cli.h"

int demo_tasks(const char *dir, rescue_store *st) {
  rescue_split_opts so = {0};
  rescue_split_result sr;
  rescue_tasks_opts to;
  rescue_tasks_result tr;
  char out[4096];
  int t, sp, first = 1;

  so.ratios[0] = 0.5;
  so.ratios[2] = 0.5;
  so.ratios_text = "0.5,0,0.5";
  so.seed = 7;
  so.stratify = 0; /* two groups, one per scenario: one draw so both splits get one */
  if (rescue_split_assign(st, &so, &sr))
    return cli_fail(rescue_store_err(st));
  printf("   split (rescue split --ratios 0.5,0,0.5 --seed 7 --no-stratify): run %lld,",
         (long long)sr.run_id);
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if (sr.groups[sp]) {
      printf("%s %s %ld group%s", first ? "" : ",", rescue_split_name(sp), sr.groups[sp],
             sr.groups[sp] == 1 ? "" : "s");
      first = 0;
    }
  printf("\n");

  snprintf(out, sizeof out, "%s/export/tasks", dir);
  rescue_tasks_opts_init(&to);
  to.corpus_name = "rescue demo";
  if (rescue_export_tasks(st, out, &to, &tr))
    return cli_fail(rescue_store_err(st));
  printf("   task datasets (rescue export --format tasks):");
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    printf(" %s %ld", rescue_task_name((rescue_task)t), tr.instances[t]);
  printf("\n                           %s/<task>/<split>.jsonl, README.md (card), manifest.json\n",
         out);
  return 0;
}
