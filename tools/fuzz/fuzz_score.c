/*
** fuzz_score.c: libFuzzer driver for the prediction reader of `rescue score`, through
** the public entry point (rescue_score_files) so it follows any rewrite of the reader.
** The first byte picks the task (ITP, RPP, STP or SSP); the rest is the predictions
** file, scored against a small fixed gold file of that task. What scores must print.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON -DRESCUE_TESTS=OFF
**        && cmake --build build-fuzz --target fuzz_score
** run:   mkdir -p build-fuzz/corpus/score && ./build-fuzz/fuzz_score -max_total_time=120 -timeout=1
**        -artifact_prefix=build-fuzz/ build-fuzz/corpus/score tools/fuzz/score
**        (new inputs go to the first folder; the seeds in tools/fuzz/score stay as they are)
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzzutil.h"
#include "rescue_score.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define COUPLE "\"sample_id\": \"c1/s1\", \"couple\": \"c1\", \"scenario\": \"couple\""

static const struct {
  rescue_task task;
  const char *name, *gold, *pred;
} tasks[] = {
    {RESCUE_TASK_ITP, "itp",
     "{\"task\": \"itp\", \"instance_id\": \"a1\", " COUPLE ", \"gold_should_speak\": \"yes\"}\n"
     "{\"task\": \"itp\", \"instance_id\": \"a2\", " COUPLE ", \"gold_should_speak\": \"no\"}\n",
     "{\"instance_id\": \"a1\", \"should_speak\": \"yes\"}\n"},
    {RESCUE_TASK_RPP, "rpp",
     "{\"task\": \"rpp\", \"instance_id\": \"r1\", " COUPLE ", \"candidate_relation_labels\": "
     "[\"attack_attack\", \"pursue_withdraw\", \"withdraw_withdraw\", \"mixed_transition\"], "
     "\"gold_relation_pattern\": \"pursue_withdraw\"}\n",
     "{\"instance_id\": \"r1\", \"relation_top3\": [\"pursue_withdraw\"]}\n"},
    {RESCUE_TASK_STP, "stp",
     "{\"task\": \"stp\", \"instance_id\": \"t1\", " COUPLE ", \"candidate_target_labels\": "
     "[\"Alan\", \"Evelyn\", \"Couple\"], \"gold_support_target\": \"Alan\"}\n",
     "{\"instance_id\": \"t1\", \"target_top3\": [\"Alan\"]}\n"},
    {RESCUE_TASK_SSP, "ssp",
     "{\"task\": \"ssp\", \"instance_id\": \"p1\", " COUPLE ", \"candidate_strategy_labels\": "
     "[\"track\", \"reframe\", \"join\"], \"gold_support_strategy\": \"track\"}\n",
     "{\"instance_id\": \"p1\", \"strategy_top3\": [\"track\"]}\n"},
};

static char gold_path[4][512];

/* Score whatever share of the predictions is usable. */
static const rescue_score_opts every = {.allow_missing = 1};

/* Write the gold files once and check that each scores a good prediction. */
static void setup(void) {
  size_t i;
  for (i = 0; i < sizeof tasks / sizeof tasks[0]; i++) {
    rescue_score_report *r = NULL;
    rescue_error err;
    char pred[512], name[32];
    snprintf(name, sizeof name, "%s.gold.jsonl", tasks[i].name);
    fuzz_file(gold_path[i], sizeof gold_path[i], name, tasks[i].gold, strlen(tasks[i].gold));
    fuzz_file(pred, sizeof pred, "pred.jsonl", tasks[i].pred, strlen(tasks[i].pred));
    if (rescue_score_files(tasks[i].task, gold_path[i], pred, &every, &r, &err) != 0) {
      fprintf(stderr, "fuzz_score: the %s gold file no longer scores: %s\n", tasks[i].name,
              err.msg);
      abort();
    }
    rescue_score_free(&r);
  }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static int ready;
  rescue_score_report *r = NULL;
  rescue_buf out = RESCUE_BUF_INIT;
  rescue_error err;
  char pred[512];
  size_t t;
  rescue_score_opts o = {.allow_missing = 1};
  if (!ready) {
    setup();
    ready = 1;
  }
  if (size < 1)
    return 0;
  /* the first byte picks the task and the protocol; every prediction is scored */
  t = data[0] % (sizeof tasks / sizeof tasks[0]);
  o.protocol = (data[0] / (sizeof tasks / sizeof tasks[0])) & 1 ? RESCUE_PROTOCOL_RELEASE
                                                                : RESCUE_PROTOCOL_RESCUE;
  fuzz_file(pred, sizeof pred, "pred.jsonl", data + 1, size - 1);
  if (rescue_score_files(tasks[t].task, gold_path[t], pred, &o, &r, &err) != 0) {
    if (!*err.msg || r)
      abort();
    return 0;
  }
  rescue_score_json(r, &out);
  rescue_score_text(r, &out);
  rescue_buf_clear(&out);
  rescue_score_free(&r);
  return 0;
}
