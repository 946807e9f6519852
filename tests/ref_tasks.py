#!/usr/bin/python3
"""ref_tasks.py: an independent reading of export/TASKS.md in Python, used by
check_tasks as a differential oracle: it builds the six task files from release JSONL.

  ref_tasks.py <outdir> <clip-root or -> <samples.jsonl>...

Label sets are the paper's tables (not the scheme file), so the two readings share no code
or data."""
import json, math, re, sys

WS = "\t\n\x0b\x0c\r\x1c\x1d\x1e\x1f \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000"

def clean(v):
    if v is None or v is False or v == "" or (isinstance(v, (int, float)) and not isinstance(v, bool) and v == 0) or v == [] or v == {}:
        return ""
    if v is True:
        return "True"
    return str(v).strip(WS)

REL = {"couple": ["pursue_withdraw","attack_attack","withdraw_withdraw","repair_softening","constructive_alignment","mixed_transition"],
       "family": ["escalation_conflict","pursue_withdraw","mutual_disengagement","cross_generational_coalition","boundary_hierarchy_strain","repair_softening","cooperative_family_alliance","mixed_transition"]}
SSP = {"couple": ["counterbalance","safeguard","goal_align","track","reframe","evoke","enact","join","detach","repair"],
       "family": ["safeguard","join","track","counterbalance","enact","boundary","reframe","repair"]}

def dumps(o):
    return json.dumps(o, ensure_ascii=False)

def names(lst):
    return [clean(x) for x in (lst if isinstance(lst, list) else []) if clean(x)]

def items(lst, who, text, with_target):
    out = []
    for it in (lst if isinstance(lst, list) else []):
        if not isinstance(it, dict): continue
        w, t = clean(it.get(who)), clean(it.get(text))
        tg = names(it.get("target")) if with_target else None
        if not w or not t or (with_target and not tg): continue
        d = {who: w}
        if with_target: d["target"] = tg
        d[text] = t
        out.append(d)
    return out

def record(row, r, sid, clip_root):
    d = {"row_index": r, "timestamp": "%.3f-%.3f" % (row.get("start_time") or 0, row.get("end_time") or 0),
         "primary_speaker": clean(row.get("primary_speaker")), "target": names(row.get("target")),
         "dialogue_cleaned": clean(row.get("dialogue_cleaned")),
         "background_dialogue": items(row.get("background_dialogue"), "speaker", "content", True),
         "tone_of_voice": clean(row.get("tone_of_voice")),
         "body_posture": items(row.get("body_posture"), "person", "description", False),
         "facial_expressions": items(row.get("facial_expressions"), "person", "description", False),
         "self_directed_behavior": items(row.get("self_directed_behavior"), "person", "description", False),
         "interaction_behavior": items(row.get("interaction_behavior"), "initiator", "description", True)}
    if clip_root:
        d["clip_path"] = "%s/%s/clips/%03d.mp4" % (clip_root, sid, r)
        d["clip_duration_sec"] = float(row["end_time"]) - float(row["start_time"])
    else:
        d["clip_path"] = ""; d["clip_duration_sec"] = 0.0
    return d

def scenario(s):
    sid = s["sample_id"].lower()
    if sid.startswith("family_therapy/") or "/family_therapy/" in sid: return "family"
    for row in s["rows"]:
        ents = [clean(row.get("primary_speaker"))] + names(row.get("target"))
        for it in row.get("support_strategy") or []:
            if isinstance(it, dict): ents += names(it.get("target"))
        if "Family" in ents: return "family"
    return "couple"

def participants(s):
    out = []
    for row in s["rows"]:
        ents = [clean(row.get("primary_speaker"))] + [clean(x) for x in row.get("target") or []]
        for it in row.get("support_strategy") or []:
            if isinstance(it, dict): ents += [clean(x) for x in it.get("target") or []]
        for e in ents:
            if e and e not in ("Therapist", "Couple", "Family") and e not in out: out.append(e)
    return out

def vp_participants(s):
    out = []
    for row in s["rows"]:
        ents = [clean(row.get("primary_speaker"))] + [clean(x) for x in row.get("target") or []]
        for it in row.get("viewpoints_attitudes") or []:
            if isinstance(it, dict): ents += [clean(it.get("source")), clean(it.get("target"))]
        for e in ents:
            if e and e not in ("Couple", "Family") and e not in out: out.append(e)
    return out

def pick(L, m, itp):
    n = len(L)
    if m <= 0 or n <= m: return list(L)
    if m == 1: return [L[n // 2]] if itp else [L[0]]
    return [L[round(k * (n - 1) / (m - 1))] for k in range(m)]

def intensity(v):
    try:
        x = round(float(v))
    except Exception:
        return None
    return x if 0 <= x <= 10 else None

def words(s):
    return len(re.findall(r"[A-Za-z0-9']+", s))

def main():
    clip_root = None if sys.argv[2] == "-" else sys.argv[2]
    outdir = sys.argv[1]
    outs = {t: open("%s/%s.jsonl" % (outdir, t), "w", encoding="utf-8") for t in ["itp","rpp","stp","ssp","er","vp"]}
    samples = []
    for fn in sys.argv[3:]:
        for line in open(fn, encoding="utf-8"):
            samples.append(json.loads(line))
    samples.sort(key=lambda s: s["sample_id"].split("/"))
    for s in samples:
        sid = s["sample_id"]; rows = s["rows"]; n = len(rows)
        sc = scenario(s); group = "Couple" if sc == "couple" else "Family"
        couple = sid.split("/")[-2] if "/" in sid else "therapy_merged_all"
        sf = clean(s.get("source_file")) or "data/therapy_merged_all/%s.json" % sid
        parts = participants(s)
        recs = [record(rows[i], i + 1, sid, clip_root) for i in range(n)]
        spk = [clean(r.get("primary_speaker")) for r in rows]
        ther = [x == "Therapist" for x in spk]
        head = lambda task, iid: {"task": task, "instance_id": iid, "sample_id": sid, "couple": couple, "scenario": sc, "participants": parts}
        # ITP
        pos = [r - 1 for r in range(2, n + 1) if ther[r - 1] and not ther[r - 2]]
        neg = [r for r in range(1, n) if not ther[r - 1] and not ther[r]]
        b = min(len(pos), len(neg))
        if b:
            pos, neg = pick(pos, b, 1), pick(neg, b, 1)
            for ce, yes in sorted([(p, 1) for p in pos] + [(q, 0) for q in neg]):
                d = head("itp", "%s__after_row%d" % (sid, ce))
                d.update({"context_end_row_index": ce, "timestamp": recs[ce-1]["timestamp"], "speaker": spk[ce-1],
                          "dialogue": recs[ce-1]["dialogue_cleaned"], "prior_context": recs[:ce],
                          "gold_should_speak": "yes" if yes else "no",
                          "gold_candidate_type": "actual_therapist_entry" if yes else "continue_listening",
                          "gold_boundary_type": "therapist_entry" if yes else ("same_speaker_continuation" if spk[ce-1] == spk[ce] else "non_therapist_exchange"),
                          "gold_next_row_index": ce + 1, "source_sample_id": sid, "source_file": sf})
                outs["itp"].write(dumps(d) + "\n")
        # RPP
        has = any("relation_pattern" in r for r in rows)
        for i, row in enumerate(rows):
            if has:
                lab = clean(row.get("relation_pattern")); ctx = i + 1; rk, ek = "relation_pattern_reason", "relation_pattern_evidence_rows"
                ok = lab in REL[sc]
            else:
                lab = clean(row.get("relation_cycle_state")); ctx = i; rk, ek = "relation_cycle_reason", "relation_cycle_evidence_rows"
                ok = ther[i] and lab in REL[sc]
            if not ok: continue
            ev = row.get(ek)
            d = head("rpp", "%s__row%d" % (sid, i + 1))
            d.update({"row_index": i + 1, "timestamp": recs[i]["timestamp"], "target_primary_speaker": spk[i],
                      "candidate_relation_labels": REL[sc], "prior_context": recs[:ctx], "gold_relation_pattern": lab,
                      "gold_reason": clean(row.get(rk)), "gold_evidence_rows": ev if isinstance(ev, list) else [],
                      "source_sample_id": sid, "source_file": sf})
            outs["rpp"].write(dumps(d) + "\n")
        # STP / SSP
        def tup(lst):
            return [x for x in names(lst) if x != "Therapist"]
        def lab(t):
            return "" if not t else (t[0] if len(t) == 1 else group)
        cands = []
        def add(l):
            if l and l not in cands: cands.append(l)
        for p in parts: add(p)
        add(group)
        for i, row in enumerate(rows):
            if not ther[i]: continue
            add(lab(tup(row.get("target"))))
            for it in row.get("support_strategy") or []:
                add(lab(tup(it.get("target") if isinstance(it, dict) else None)))
        for i, row in enumerate(rows):
            if not ther[i]: continue
            ss = row.get("support_strategy")
            if not isinstance(ss, list) or not ss: continue
            first = ss[0] if isinstance(ss[0], dict) else {}
            st = clean(first.get("strategy_type"))
            if not st: continue
            t = tup(first.get("target")); src = "support_strategy"
            if not t:
                t = tup(row.get("target")); src = "row_target_fallback"
            if not t: continue
            g = lab(t)
            d = head("stp", "%s__row%d" % (sid, i + 1))
            d.update({"row_index": i + 1, "timestamp": recs[i]["timestamp"], "candidate_target_labels": cands + ([] if g in cands else [g]),
                      "prior_context": recs[:i], "gold_support_target": g, "gold_target_tuple": t, "gold_target_source": src,
                      "source_sample_id": sid, "source_file": sf})
            outs["stp"].write(dumps(d) + "\n")
            if st in SSP[sc]:
                d = head("ssp", "%s__row%d" % (sid, i + 1))
                d.update({"row_index": i + 1, "timestamp": recs[i]["timestamp"], "known_support_target": g,
                          "candidate_strategy_labels": SSP[sc], "prior_context": recs[:i], "gold_support_strategy": st,
                          "source_sample_id": sid, "source_file": sf})
                outs["ssp"].write(dumps(d) + "\n")
        # ER / VP
        def er_gold(i):
            for it in rows[i].get("internal_emotion") or []:
                if not isinstance(it, dict) or clean(it.get("person")) != spk[i]: continue
                e = clean(it.get("emotion_description")); x = intensity(it.get("intensity"))
                if e and x is not None: return e, x
            return None
        drop = min(n - 1, math.ceil(3 * n / 10)) if n > 1 else 0
        client = [bool(x) and x not in ("Therapist", "Couple", "Family") for x in spk]
        er = [i for i in range(n) if client[i] and er_gold(i) and words(recs[i]["dialogue_cleaned"]) >= 5 and i + 1 >= drop + 1]
        def common(i):
            return {"sample_id": sid, "couple": couple, "row_index": i + 1, "timestamp": recs[i]["timestamp"], "speaker": spk[i]}
        def rowf(i):
            r = recs[i]
            return {"target": r["target"], "dialogue": r["dialogue_cleaned"], "background_dialogue": r["background_dialogue"],
                    "tone_of_voice": r["tone_of_voice"], "body_posture": r["body_posture"], "facial_expressions": r["facial_expressions"],
                    "self_directed_behavior": r["self_directed_behavior"], "interaction_behavior": r["interaction_behavior"]}
        def tail(i, task):
            return {"clip_path": recs[i]["clip_path"], "clip_duration_sec": recs[i]["clip_duration_sec"], "task": task,
                    "instance_id": "%s__row%d" % (sid, i + 1), "scenario": sc, "source_sample_id": sid, "source_file": sf}
        for i in pick(er, 5, 0):
            e, x = er_gold(i)
            d = common(i); d.update(rowf(i)); d["prior_context"] = recs[:i]
            d["gold_internal_emotion"] = e; d["gold_intensity_score"] = x; d.update(tail(i, "er"))
            outs["er"].write(dumps(d) + "\n")
        def vp_gold(i):
            out = []
            for it in rows[i].get("viewpoints_attitudes") or []:
                if not isinstance(it, dict): continue
                so, tg, vw = clean(it.get("source")), clean(it.get("target")), clean(it.get("viewpoint"))
                if so == spk[i] and tg and vw:
                    out.append({"source": so, "target": tg, "viewpoint": vw, "attitude": clean(it.get("attitude"))})
            return out
        vp = [i for i in range(n) if client[i] and vp_gold(i)]
        vparts = vp_participants(s)
        for i in pick(vp, 5, 0):
            d = common(i); d["participants"] = vparts; d.update(rowf(i)); d["prior_context"] = recs[:i]
            d["gold_viewpoints"] = vp_gold(i); d.update(tail(i, "vp"))
            outs["vp"].write(dumps(d) + "\n")

main()
