#!/usr/bin/python3
"""A stand-in for a model command in the `rescue draft` tests.

Reads the prompt on standard input the way a model would see it, and answers in one of
several deterministic ways chosen by the first argument:
  perfect     bare JSON {"rows": [...]} with valid labels for every requested row
  prose       the same answer inside prose and a ```json fence, after a broken attempt
  inline      the same answer on one line inside a sentence, with no fence, after a
              bracket that is not JSON
  badlabels   an out-of-set utterance_type on client rows, fixed once the prompt lists
              the problems (a retry)
  wrongcount  leaves the last requested row out
  timeout     sleeps far longer than the test's --timeout
  crash       writes to stderr and exits with status 3
  garbage     prose without any JSON
  slow        like perfect, after a short sleep (for --jobs)
  onechange   like perfect, but the first requested row's tone_of_voice differs
Labels are marked so that the tests can tell them from the stored draft's.
"""
import json
import os
import re
import sys
import time

mode = sys.argv[1] if len(sys.argv) > 1 else "perfect"
prompt = sys.stdin.read()

if mode == "timeout":
    time.sleep(60)
    sys.exit(0)
if mode == "crash":
    sys.stderr.write("loading weights...\nmodel exploded: CUDA out of memory\n")
    sys.exit(3)
if mode == "garbage":
    print("I'm sorry, but I can't annotate this conversation. {not json at all")
    sys.exit(0)

m = re.search(r"^The participants are (\[.*?\])\.", prompt, re.M)
participants = json.loads(m.group(1)) if m else []
section = prompt.split("## Rows to annotate", 1)[1].split("## Answer", 1)[0]
rows = [json.loads(line) for line in section.splitlines() if line.startswith("{")]
env_from, env_to = int(os.environ["RESCUE_ROW_FROM"]), int(os.environ["RESCUE_ROW_TO"])
assert [r["row_index"] for r in rows] == list(range(env_from, env_to + 1)), "rows/env mismatch"
retry = "had these problems" in prompt

answer = []
for r in rows:
    speaker = r.get("primary_speaker") or (participants[0] if participants else "Therapist")
    therapist = speaker == "Therapist"
    other = [p for p in participants if p != speaker][:1] or ["Therapist"]
    out = {
        "row_index": r["row_index"],
        "start_time": r["start_time"], "end_time": r["end_time"],
        "primary_speaker": speaker,
        "target": other if therapist else ["Therapist"],
        "utterance_type": "" if therapist else ("accusatory" if mode == "badlabels" and not retry
                                                 else "disclosure"),
        "background_dialogue": [],
        "tone_of_voice": "model: even",
        "body_posture": [{"person": speaker, "description": "model: seated"}],
        "facial_expressions": [],
        "self_directed_behavior": [],
        "interaction_behavior": [],
        "internal_emotion": [] if therapist else
            [{"person": speaker, "emotion_description": "model: tense", "intensity": 5}],
        "viewpoints_attitudes": [],
        "support_strategy": [{"provider": "Therapist", "target": other,
                              "strategy_type": "track",
                              "strategy_content": "model: follows the sequence"}]
            if therapist else [],
        "relation_pattern_evidence_rows": [],
        "model_note": "keys the scheme does not know are left out",
    }
    answer.append(out)
if mode == "wrongcount":
    answer = answer[:-1]
if mode == "onechange" and answer:
    answer[0]["tone_of_voice"] = "model: sharp"
if mode == "slow":
    time.sleep(0.5)

text = json.dumps({"rows": answer}, indent=1)
if mode == "inline":
    print("Rows [1-n] annotated as asked: " + json.dumps({"rows": answer}) + " (done).")
elif mode == "prose":
    print("Sure! First a quick sketch: {\"rows\": [{\"row_index\": 1, \"tone\n")
    print("Here is the full annotation:\n```json\n" + text + "\n```\nLet me know if you need more.")
else:
    print(text)
