/*
** check_score_protocols.c: the two scoring protocols, case by case, on task files
** exported from the real release samples (couple-first3, family-first1): how each reads
** real model output (prose, fences, lists, strings inside replies, ill-typed fields,
** broken lines) and what each does with missing predictions, ER checkpoints and RPP
** macro scores. Every case runs under both --protocol release and --protocol rescue.
*/
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "taskutil.h"

/* Does the JSON text of v contain needle? (the text is freed again) */
static int dump_has(const json_t *v, const char *needle) {
  char *t = json_dumps(v, 0);
  int found = t && strstr(t, needle) != NULL;
  free(t);
  return found;
}

static char *export_dir; /* the task export of both fixture files (built once) */
static char *work;       /* scratch folder */

static void build_export(void) {
  const char *fx = tu_fixtures();
  char path[4096], *a, *b, *all, *db;
  snprintf(path, sizeof path, "%s/rescue-bench/couple-first3.jsonl", fx);
  a = tu_read(path, NULL);
  snprintf(path, sizeof path, "%s/rescue-bench/family-first1.jsonl", fx);
  b = tu_read(path, NULL);
  ck_assert(a && b);
  all = malloc(strlen(a) + strlen(b) + 1);
  strcpy(all, a);
  strcat(all, b);
  db = tt_corpus(all);
  export_dir = tt_export(db, NULL, NULL);
  work = tu_tmpdir();
  free(a);
  free(b);
  free(all);
  free(db);
}

static const char *gold_path(const char *task) {
  static char p[4][4096];
  static int k;
  k = (k + 1) % 4;
  snprintf(p[k], sizeof p[k], "%s/%s.jsonl", export_dir, task);
  return p[k];
}

/* The gold records of a task, optionally only one scenario (caller decrefs). */
static json_t *gold(const char *task, const char *scenario) {
  json_t *all = tt_jsonl(gold_path(task)), *out = json_array(), *r;
  size_t i;
  json_array_foreach(all, i, r) if (!scenario || !strcmp(tt_str(r, "scenario"), scenario))
      json_array_append(out, r);
  json_decref(all);
  return out;
}

/* A path copied into a ring of its own (tu_path's ring is shared by every helper). */
static const char *keep(const char *path) {
  static char ring[8][4096];
  static int k;
  k = (k + 1) % 8;
  snprintf(ring[k], sizeof ring[k], "%s", path);
  return ring[k];
}

/* A gold file holding only these records. */
static const char *gold_file(const char *name, json_t *recs) {
  rescue_buf b = RESCUE_BUF_INIT;
  json_t *r;
  size_t i;
  const char *p;
  json_array_foreach(recs, i, r) {
    char *s = json_dumps(r, JSON_PRESERVE_ORDER | JSON_COMPACT);
    rescue_buf_printf(&b, "%s\n", s);
    free(s);
  }
  {
    /* a ring of paths that live for the test (no allocation for LeakSanitizer to report) */
    static char ring[16][4096];
    static int k;
    char *slot = ring[k++ & 15];
    snprintf(slot, sizeof ring[0], "%s", tu_path(work, name));
    p = slot;
  }
  tu_write(p, b.s ? b.s : "");
  rescue_buf_clear(&b);
  return p;
}

static const char *pred_field(const char *task) {
  if (!strcmp(task, "itp"))
    return "should_speak";
  if (!strcmp(task, "rpp"))
    return "relation_top3";
  if (!strcmp(task, "stp"))
    return "target_top3";
  if (!strcmp(task, "ssp"))
    return "strategy_top3";
  return "predicted_intensity_score";
}

/* The right answer of a record as JSON text (a top-3 list holds the gold label only). */
static void right_value(const char *task, json_t *r, rescue_buf *b) {
  if (!strcmp(task, "itp"))
    rescue_buf_printf(b, "\"%s\"", tt_str(r, "gold_should_speak"));
  else if (!strcmp(task, "rpp"))
    rescue_buf_printf(b, "[\"%s\"]", tt_str(r, "gold_relation_pattern"));
  else if (!strcmp(task, "stp"))
    rescue_buf_printf(b, "[\"%s\"]", tt_str(r, "gold_support_target"));
  else if (!strcmp(task, "ssp"))
    rescue_buf_printf(b, "[\"%s\"]", tt_str(r, "gold_support_strategy"));
  else
    rescue_buf_printf(b, "%lld", tt_int(r, "gold_intensity_score"));
}

/*
** Predictions for recs: the right answer for every record, except that the record at
** `special` gets the line `line` instead, where "@ID" stands for its id and "@GOLD" for
** its gold label (NULL line: no prediction at all for it). special -1: none.
*/
static const char *preds(const char *name, const char *task, json_t *recs, long special,
                         const char *line) {
  rescue_buf b = RESCUE_BUF_INIT, v = RESCUE_BUF_INIT;
  json_t *r;
  size_t i;
  const char *p;
  json_array_foreach(recs, i, r) {
    if ((long)i == special) {
      const char *s;
      if (!line)
        continue;
      for (s = line; *s; s++) {
        if (!strncmp(s, "@ID", 3)) {
          rescue_buf_puts(&b, tt_str(r, "instance_id"));
          s += 2;
        } else if (!strncmp(s, "@GOLD", 5)) {
          rescue_buf_reset(&v);
          right_value(task, r, &v);
          /* the bare label: strip [" "] or quotes */
          if (v.s[0] == '[')
            rescue_buf_printf(&b, "%.*s", (int)v.len - 4, v.s + 2);
          else if (v.s[0] == '"')
            rescue_buf_printf(&b, "%.*s", (int)v.len - 2, v.s + 1);
          else
            rescue_buf_puts(&b, v.s);
          s += 4;
        } else {
          rescue_buf_putc(&b, *s);
        }
      }
      rescue_buf_putc(&b, '\n');
      continue;
    }
    rescue_buf_reset(&v);
    right_value(task, r, &v);
    rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"%s\": %s}\n", tt_str(r, "instance_id"),
                      pred_field(task), v.s);
  }
  p = keep(tu_path(work, name));
  tu_write(p, b.s ? b.s : "");
  rescue_buf_clear(&b);
  rescue_buf_clear(&v);
  return p;
}

/* rescue score --json --allow-missing under a protocol; the report (asserts exit 0). */
static json_t *score(const char *task, const char *gold_p, const char *pred_p, const char *proto) {
  char *out = NULL, *err = NULL, g[4096], p[4096];
  json_error_t je;
  json_t *j;
  int rc;
  snprintf(g, sizeof g, "%s", gold_p);
  snprintf(p, sizeof p, "%s", pred_p);
  rc = tu_rescue(&out, &err, "score", task, "--gold", g, "--pred", p, "--protocol", proto,
                 "--allow-missing", "--json", NULL);
  ck_assert_msg(rc == 0, "score %s %s: %s", task, proto, err);
  j = json_loads(out, 0, &je);
  ck_assert_msg(j != NULL, "report: %s", je.text);
  ck_assert_str_eq(json_string_value(json_object_get(j, "protocol")), proto);
  free(out);
  free(err);
  return j;
}

static double num(json_t *j, ...) {
  va_list ap;
  const char *k;
  va_start(ap, j);
  while ((k = va_arg(ap, const char *)) != NULL) {
    j = json_object_get(j, k);
    ck_assert_msg(j != NULL, "no key %s", k);
  }
  va_end(ap);
  ck_assert_msg(json_is_number(j), "not a number");
  return json_number_value(j);
}

static int is_null(json_t *j, ...) {
  va_list ap;
  const char *k;
  va_start(ap, j);
  while ((k = va_arg(ap, const char *)) != NULL)
    j = json_object_get(j, k);
  va_end(ap);
  return j != NULL && json_is_null(j);
}

#define NEAR(a, b)                                                                                 \
  ck_assert_msg(fabs((double)(a) - (double)(b)) < 1e-12, "%.17g != %.17g", (double)(a), (double)(b))

static const char *const protos[2] = {"release", "rescue"};

/* The index of the first record whose gold label (of key) is not among the first three
   candidates of the list key, or -1. */
static long gold_not_in_first3(json_t *recs, const char *gold_key, const char *list_key) {
  json_t *r;
  size_t i;
  json_array_foreach(recs, i, r) {
    json_t *cl = json_object_get(r, list_key);
    const char *g = tt_str(r, gold_key);
    size_t k;
    int in = 0;
    for (k = 0; k < 3 && k < json_array_size(cl); k++)
      in |= !strcmp(json_string_value(json_array_get(cl, k)), g);
    if (!in)
      return (long)i;
  }
  return -1;
}

/* 1-based rank of the gold label among the first three taxonomy labels (RPP padding). */
static int padded_rank(json_t *r) {
  json_t *cl = json_object_get(r, "candidate_relation_labels");
  int k;
  for (k = 0; k < 3; k++)
    if (!strcmp(json_string_value(json_array_get(cl, (size_t)k)),
                tt_str(r, "gold_relation_pattern")))
      return k + 1;
  return 0;
}

/* ---- reply parsing ---- */

START_TEST(test_reply_shapes) {
  json_t *g = gold("itp", "couple"), *j;
  rescue_buf b = RESCUE_BUF_INIT;
  const char *gp = gold_file("itp-couple.jsonl", g), *pp;
  size_t n = json_array_size(g), i;
  int p;
#define ID(k) tt_str(json_array_get(g, k), "instance_id")
#define GS(k) tt_str(json_array_get(g, k), "gold_should_speak")
  /* 0: prose around the object; 1: a fenced reply as a JSON string; 2-3: a list reply;
     4: a predictions list; 5: a bare object, then a later one with an empty field (it
     must not replace the first); 6: the response shape; 7-8: a truncated batch whose
     first object is complete; then a line with nothing in it; the rest right */
  rescue_buf_printf(&b,
                    "Sure, here you go: {\"instance_id\": \"%s\", \"should_speak\": \"%s\"} "
                    "Hope this helps.\n",
                    ID(0), GS(0));
  rescue_buf_printf(&b,
                    "\"```json\\n{\\\"instance_id\\\": \\\"%s\\\", \\\"should_speak\\\": "
                    "\\\"%s\\\"}\\n```\"\n",
                    ID(1), GS(1));
  rescue_buf_printf(&b,
                    "[{\"instance_id\": \"%s\", \"should_speak\": \"%s\"}, {\"instance_id\": "
                    "\"%s\", \"should_speak\": \"%s\"}]\n",
                    ID(2), GS(2), ID(3), GS(3));
  rescue_buf_printf(&b,
                    "{\"predictions\": [{\"instance_id\": \"%s\", \"should_speak\": \"%s\"}]}\n",
                    ID(4), GS(4));
  rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"should_speak\": \"%s\"}\n", ID(5), GS(5));
  rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"should_speak\": \"\"}\n", ID(5));
  rescue_buf_printf(&b,
                    "{\"instance_id\": \"%s\", \"response\": \"Looking at the exchange, "
                    "```json\\n{\\\"should_speak\\\": \\\"%s\\\"}\\n```\"}\n",
                    ID(6), GS(6));
  rescue_buf_printf(&b,
                    "{\"predictions\": [{\"instance_id\": \"%s\", \"should_speak\": \"%s\"}, "
                    "{\"instance_id\": \"%s\", \"should_sp\n",
                    ID(7), GS(7), ID(8));
  rescue_buf_puts(&b, "I am sorry, I cannot help with that.\n");
  for (i = 9; i < n; i++)
    rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"should_speak\": \"%s\"}\n", ID(i), GS(i));
  pp = tu_path(work, "shapes.jsonl");
  tu_write(pp, b.s);
  for (p = 0; p < 2; p++) {
    json_t *bad;
    j = score("itp", gp, pp, protos[p]);
    /* release: 3 (the list's second object) and 6 (response field) are missing; rescue reads
       both; 8 is missing in both */
    NEAR(num(j, "counts", "predicted", NULL), p ? n - 1 : n - 3);
    NEAR(num(j, "counts", "missing", NULL), p ? 1 : 3);
    NEAR(num(j, "counts", "reply_fields", NULL), p ? 1 : 0);
    NEAR(num(j, "counts", "dropped_items", NULL),
         p ? 0 : 2); /* release: the list tail and the object that only has a response */
    NEAR(num(j, "counts", "recovered", NULL), p ? 4 : 3); /* prose, fence, truncated (+response) */
    NEAR(num(j, "counts", "reply_strings", NULL), 1);
    NEAR(num(j, "counts", "duplicates", NULL), 0);
    NEAR(num(j, "counts", "invalid_lines", NULL), 1);
    bad = json_array_get(json_object_get(j, "invalid_lines"), 0);
    NEAR(num(bad, "line", NULL), 9);
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(bad, "reason")), "no JSON object"));
    json_decref(j);
  }
#undef ID
#undef GS
  rescue_buf_clear(&b);
  json_decref(g);
}
END_TEST

/* ER: a bare object is taken when the emotion text is non-empty or the intensity is not
   null, so an intensity of 0 with no text counts; null with no text does not. */
START_TEST(test_er_bare_object) {
  json_t *g = gold("er", "couple"), *j;
  const char *gp = gold_file("er-couple.jsonl", g);
  int p;
  for (p = 0; p < 2; p++) {
    j = score("er", gp,
              preds("er0.jsonl", "er", g, 0,
                    "{\"instance_id\": \"@ID\", "
                    "\"predicted_internal_emotion\": \"\", \"predicted_intensity_score\": 0}"),
              protos[p]);
    NEAR(num(j, "counts", "predicted", NULL), json_array_size(g));
    json_decref(j);
    j = score("er", gp,
              preds("ern.jsonl", "er", g, 0,
                    "{\"instance_id\": \"@ID\", "
                    "\"predicted_internal_emotion\": \" \", \"predicted_intensity_score\": null}"),
              protos[p]);
    NEAR(num(j, "counts", "predicted", NULL), json_array_size(g) - 1);
    NEAR(num(j, "counts", "empty", NULL), 1);
    json_decref(j);
  }
  json_decref(g);
}
END_TEST

/* String items inside "predictions": the release drops them in ITP, RPP and STP and parses
   them without fence stripping in SSP and ER; rescue parses them everywhere. */
START_TEST(test_string_items) {
  static const char *const tasks[] = {"itp", "rpp", "stp", "ssp", "er"};
  size_t t;
  int p;
  for (t = 0; t < sizeof tasks / sizeof tasks[0]; t++) {
    json_t *g = gold(tasks[t], "couple"), *j, *r0 = json_array_get(g, 0),
           *r1 = json_array_get(g, 1);
    rescue_buf b = RESCUE_BUF_INIT, v0 = RESCUE_BUF_INIT, v1 = RESCUE_BUF_INIT;
    const char *gp = gold_file("s.gold.jsonl", g), *pp;
    int parses = !strcmp(tasks[t], "ssp") || !strcmp(tasks[t], "er");
    char *e0, *e1;
    json_t *s0, *s1;
    size_t i, n = json_array_size(g);
    right_value(tasks[t], r0, &v0);
    right_value(tasks[t], r1, &v1);
    /* item 0 plain JSON text, item 1 fenced */
    {
      rescue_buf x = RESCUE_BUF_INIT, y = RESCUE_BUF_INIT;
      rescue_buf_printf(&x, "{\"instance_id\": \"%s\", \"%s\": %s}", tt_str(r0, "instance_id"),
                        pred_field(tasks[t]), v0.s);
      rescue_buf_printf(&y, "```json\n{\"instance_id\": \"%s\", \"%s\": %s}\n```",
                        tt_str(r1, "instance_id"), pred_field(tasks[t]), v1.s);
      s0 = json_string(x.s);
      s1 = json_string(y.s);
      e0 = json_dumps(s0, JSON_ENCODE_ANY);
      e1 = json_dumps(s1, JSON_ENCODE_ANY);
      rescue_buf_clear(&x);
      rescue_buf_clear(&y);
    }
    rescue_buf_printf(&b, "{\"predictions\": [%s, %s]}\n", e0, e1);
    for (i = 2; i < n; i++) {
      rescue_buf_reset(&v0);
      right_value(tasks[t], json_array_get(g, i), &v0);
      rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"%s\": %s}\n",
                        tt_str(json_array_get(g, i), "instance_id"), pred_field(tasks[t]), v0.s);
    }
    pp = tu_path(work, "s.pred.jsonl");
    tu_write(pp, b.s);
    for (p = 0; p < 2; p++) {
      j = score(tasks[t], gp, pp, protos[p]);
      if (p) { /* rescue: both parsed */
        NEAR(num(j, "counts", "string_items", NULL), 2);
        NEAR(num(j, "counts", "missing", NULL), 0);
      } else { /* release: the plain one in ssp/er only; the fenced one never */
        NEAR(num(j, "counts", "string_items", NULL), parses ? 1 : 0);
        NEAR(num(j, "counts", "missing", NULL), parses ? 1 : 2);
        NEAR(num(j, "counts", "dropped_items", NULL), parses ? 1 : 2);
      }
      json_decref(j);
    }
    free(e0);
    free(e1);
    json_decref(s0);
    json_decref(s1);
    rescue_buf_clear(&b);
    rescue_buf_clear(&v0);
    rescue_buf_clear(&v1);
    json_decref(g);
  }
}
END_TEST

/* ITP: a list or object answer is read as its Python text, then by the substring rule. */
START_TEST(test_itp_container_answers) {
  json_t *g = gold("itp", "couple"), *j, *r;
  const char *gp = gold_file("itp-c.jsonl", g);
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i;
  int p;
  /* every answer as ["yes"]/["no"] or {"answer": "yes"}/{"answer": "no"}: all right */
  json_array_foreach(g, i, r) {
    const char *gs = tt_str(r, "gold_should_speak");
    if (i % 2)
      rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"should_speak\": [\"%s\"]}\n",
                        tt_str(r, "instance_id"), gs);
    else
      rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"should_speak\": {\"answer\": \"%s\"}}\n",
                        tt_str(r, "instance_id"), gs);
  }
  tu_write(tu_path(work, "itp-c.pred.jsonl"), b.s);
  for (p = 0; p < 2; p++) {
    j = score("itp", gp, tu_path(work, "itp-c.pred.jsonl"), protos[p]);
    NEAR(num(j, "overall", "accuracy", NULL), 1.0);
    NEAR(num(j, "counts", "coerced", NULL), json_array_size(g));
    NEAR(num(j, "counts", "invalid", NULL), 0);
    json_decref(j);
  }
  rescue_buf_clear(&b);
  json_decref(g);
}
END_TEST

/*
** One RPP instance (k) gets an ill-typed relation_top3 inside "predictions"; every other
** instance is right. Returns the report's MRR times n minus the others: that instance's
** reciprocal rank.
*/
static double rpp_case(json_t *g, const char *gp, long k, const char *line, const char *proto,
                       json_t **report) {
  size_t n = json_array_size(g);
  json_t *j = score("rpp", gp, preds("case.jsonl", "rpp", g, k, line), proto);
  double rr = num(j, "overall", "relation_mrr", NULL) * (double)n - (double)(n - 1);
  *report = j;
  return rr;
}

START_TEST(test_rpp_field_shapes) {
  json_t *g = gold("rpp", "couple"), *j, *r;
  const char *gp = gold_file("rpp-couple.jsonl", g);
  long k = gold_not_in_first3(g, "gold_relation_pattern", "candidate_relation_labels");
  long k1 = 0;
  int pr;
  ck_assert_int_ge(k, 0);
  r = json_array_get(g, (size_t)k);
  pr = padded_rank(json_array_get(g, 0));
  /* a string: rescue reads a one-label list (rank 1); the release iterates its characters,
     drops them all and pads with the first three labels (the gold is not among them) */
  NEAR(rpp_case(g, gp, k, "{\"instance_id\": \"@ID\", \"relation_top3\": \"@GOLD\"}", "rescue", &j),
       1.0);
  NEAR(num(j, "counts", "coerced", NULL), 1);
  json_decref(j);
  NEAR(
      rpp_case(g, gp, k, "{\"instance_id\": \"@ID\", \"relation_top3\": \"@GOLD\"}", "release", &j),
      0.0);
  NEAR(num(j, "counts", "coerced", NULL), 1);
  NEAR(num(j, "counts", "dropped_labels", NULL), 0);
  json_decref(j);
  (void)r;
  /* [] inside predictions: padded in both */
  NEAR(rpp_case(g, gp, k1, "{\"predictions\": [{\"instance_id\": \"@ID\", \"relation_top3\": []}]}",
                "rescue", &j),
       pr ? 1.0 / pr : 0);
  json_decref(j);
  NEAR(rpp_case(g, gp, k1, "{\"predictions\": [{\"instance_id\": \"@ID\", \"relation_top3\": []}]}",
                "release", &j),
       pr ? 1.0 / pr : 0);
  json_decref(j);
  /* null or absent inside predictions: padded by the release, invalid under rescue */
  NEAR(rpp_case(g, gp, k1,
                "{\"predictions\": [{\"instance_id\": \"@ID\", \"relation_top3\": null}]}",
                "release", &j),
       pr ? 1.0 / pr : 0);
  NEAR(num(j, "counts", "invalid", NULL), 0);
  json_decref(j);
  NEAR(rpp_case(g, gp, k1, "{\"predictions\": [{\"instance_id\": \"@ID\"}]}", "release", &j),
       pr ? 1.0 / pr : 0);
  json_decref(j);
  NEAR(rpp_case(g, gp, k1,
                "{\"predictions\": [{\"instance_id\": \"@ID\", \"relation_top3\": null}]}",
                "rescue", &j),
       0.0);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  json_decref(j);
  NEAR(rpp_case(g, gp, k1, "{\"predictions\": [{\"instance_id\": \"@ID\"}]}", "rescue", &j), 0.0);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  json_decref(j);
  /* an object: its keys in order (release), invalid (rescue) */
  NEAR(rpp_case(g, gp, k,
                "{\"instance_id\": \"@ID\", \"relation_top3\": {\"bogus\": 1, \"@GOLD\": 0.9}}",
                "release", &j),
       1.0);
  json_decref(j);
  NEAR(rpp_case(g, gp, k,
                "{\"instance_id\": \"@ID\", \"relation_top3\": {\"bogus\": 1, \"@GOLD\": 0.9}}",
                "rescue", &j),
       0.0);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  json_decref(j);
  /* a number: the release scripts stop (reported); rescue: invalid */
  NEAR(rpp_case(g, gp, k, "{\"instance_id\": \"@ID\", \"relation_top3\": 3}", "release", &j), 0.0);
  NEAR(num(j, "counts", "release_stops", NULL), 1);
  json_decref(j);
  NEAR(rpp_case(g, gp, k, "{\"instance_id\": \"@ID\", \"relation_top3\": 3}", "rescue", &j), 0.0);
  NEAR(num(j, "counts", "release_stops", NULL), 0);
  NEAR(num(j, "counts", "invalid", NULL), 1);
  json_decref(j);
  /* missing: rank 0 in both; the release counts the gold-label fallback it would use */
  NEAR(rpp_case(g, gp, k, NULL, "release", &j), 0.0);
  NEAR(num(j, "counts", "gold_fills", NULL), 1);
  ck_assert(dump_has(json_object_get(j, "notes"), "gold label (a leak)"));
  json_decref(j);
  NEAR(rpp_case(g, gp, k, NULL, "rescue", &j), 0.0);
  NEAR(num(j, "counts", "gold_fills", NULL), 0);
  NEAR(num(j, "counts", "missing", NULL), 1);
  json_decref(j);
  json_decref(g);
}
END_TEST

/* Padding order: RPP pads with the scenario's own taxonomy (the family file's first three
   family labels). */
START_TEST(test_rpp_family_padding) {
  json_t *g = gold("rpp", "family"), *j, *r = NULL;
  const char *gp = gold_file("rpp-family.jsonl", g);
  size_t i;
  int p;
  json_array_foreach(g, i, r) {
    int pr = padded_rank(r);
    if (!pr)
      continue;
    for (p = 0; p < 2; p++) {
      NEAR(rpp_case(g, gp, (long)i, "{\"instance_id\": \"@ID\", \"relation_top3\": [\"Bogus\"]}",
                    protos[p], &j),
           1.0 / pr);
      NEAR(num(j, "counts", "dropped_labels", NULL), 1);
      json_decref(j);
    }
    break;
  }
  ck_assert_int_lt((int)i, (int)json_array_size(g));
  ck_assert_str_eq(
      json_string_value(json_array_get(json_object_get(r, "candidate_relation_labels"), 0)),
      "escalation_conflict");
  json_decref(g);
}
END_TEST

/* STP and SSP: null and numbers stop the release scripts; a missing prediction too; an
   object is read by its keys; [] pads with "" (rank 0). */
START_TEST(test_stp_ssp_shapes) {
  static const char *const tasks[] = {"stp", "ssp"};
  size_t t;
  for (t = 0; t < 2; t++) {
    const char *gk = t ? "gold_support_strategy" : "gold_support_target";
    json_t *g = gold(tasks[t], "couple"), *j;
    const char *gp = gold_file("sx.jsonl", g);
    size_t n = json_array_size(g);
    int p;
    char line[300];
    (void)gk;
    for (p = 0; p < 2; p++) {
      int rel = p == 0;
      /* null inside predictions */
      snprintf(line, sizeof line, "{\"predictions\": [{\"instance_id\": \"@ID\", \"%s\": null}]}",
               pred_field(tasks[t]));
      j = score(tasks[t], gp, preds("sx.p.jsonl", tasks[t], g, 0, line), protos[p]);
      NEAR(num(j, "counts", "release_stops", NULL), rel ? 1 : 0);
      NEAR(num(j, "counts", "invalid", NULL), 1);
      json_decref(j);
      /* a number */
      snprintf(line, sizeof line, "{\"instance_id\": \"@ID\", \"%s\": 2}", pred_field(tasks[t]));
      j = score(tasks[t], gp, preds("sx.p.jsonl", tasks[t], g, 0, line), protos[p]);
      NEAR(num(j, "counts", "release_stops", NULL), rel ? 1 : 0);
      json_decref(j);
      /* missing */
      j = score(tasks[t], gp, preds("sx.p.jsonl", tasks[t], g, 0, NULL), protos[p]);
      NEAR(num(j, "counts", "release_stops", NULL), rel ? 1 : 0);
      NEAR(num(j, "counts", "missing", NULL), 1);
      ck_assert(rel == (dump_has(json_object_get(j, "notes"), "stop here") != 0));
      json_decref(j);
      /* an object keyed by the gold label: the release reads the key (rank 1) */
      snprintf(line, sizeof line, "{\"instance_id\": \"@ID\", \"%s\": {\"@GOLD\": 1}}",
               pred_field(tasks[t]));
      j = score(tasks[t], gp, preds("sx.p.jsonl", tasks[t], g, 0, line), protos[p]);
      NEAR(num(j, "overall", t ? "strategy_mrr" : "target_mrr", NULL) * (double)n,
           rel ? (double)n : (double)n - 1);
      json_decref(j);
      /* [] inside predictions: padded with "": rank 0 */
      snprintf(line, sizeof line, "{\"predictions\": [{\"instance_id\": \"@ID\", \"%s\": []}]}",
               pred_field(tasks[t]));
      j = score(tasks[t], gp, preds("sx.p.jsonl", tasks[t], g, 0, line), protos[p]);
      NEAR(num(j, "overall", t ? "strategy_mrr" : "target_mrr", NULL) * (double)n, (double)n - 1);
      NEAR(num(j, "counts", "invalid", NULL), 0);
      json_decref(j);
    }
    json_decref(g);
  }
}
END_TEST

/* ITP: a missing prediction is no in both protocols. */
START_TEST(test_itp_missing_is_no) {
  json_t *g = gold("itp", "couple"), *j, *r;
  const char *gp = gold_file("itp-m.jsonl", g);
  size_t i;
  int p;
  json_array_foreach(g, i, r) if (!strcmp(tt_str(r, "gold_should_speak"), "yes")) break;
  for (p = 0; p < 2; p++) {
    j = score("itp", gp, preds("itp-m.p.jsonl", "itp", g, (long)i, NULL), protos[p]);
    NEAR(num(j, "overall", "fn", NULL), 1);
    NEAR(num(j, "overall", "fp", NULL), 0);
    NEAR(num(j, "counts", "missing", NULL), 1);
    json_decref(j);
  }
  json_decref(g);
}
END_TEST

/* ER: a checkpoint without a usable prediction fails its sample under release, only itself
   under rescue; the release rounds each sample's average to 3 decimals. */
START_TEST(test_er_checkpoints_and_rounding) {
  json_t *g = gold("er", "couple"), *j, *r;
  const char *gp = gold_file("er-c.jsonl", g);
  const char *s0 = tt_str(json_array_get(g, 0), "sample_id");
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i, in_s0 = 0, n = json_array_size(g);
  int p;
  /* first sample: off by 1 on its first checkpoint, right elsewhere: (4 + 5 + 5) / 3 */
  json_array_foreach(g, i, r) {
    long long gi = tt_int(r, "gold_intensity_score");
    int first = i == 0;
    in_s0 += !strcmp(tt_str(r, "sample_id"), s0);
    rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"predicted_intensity_score\": %lld}\n",
                      tt_str(r, "instance_id"), first ? (gi < 10 ? gi + 1 : gi - 1) : gi);
  }
  ck_assert_int_eq((int)in_s0, 3);
  tu_write(tu_path(work, "er-c.p.jsonl"), b.s);
  j = score("er", gp, tu_path(work, "er-c.p.jsonl"), "release");
  NEAR(num(j, "samples", s0, "avg_intensity_match", NULL), 4.667);
  ck_assert(is_null(j, "overall", "avg_intensity_match", NULL));
  json_decref(j);
  j = score("er", gp, tu_path(work, "er-c.p.jsonl"), "rescue");
  NEAR(num(j, "samples", s0, "avg_intensity_match", NULL), 14.0 / 3);
  NEAR(num(j, "overall", "avg_intensity_match", NULL), (5.0 * (double)(n - 1) + 4) / (double)n);
  NEAR(num(j, "overall", "intensity_exact_rate", NULL), (double)(n - 1) / (double)n);
  NEAR(num(j, "overall", "intensity_mae", NULL), 1.0 / (double)n);
  json_decref(j);
  /* an unparseable intensity, then a missing checkpoint, on the first sample */
  for (p = 0; p < 2; p++) {
    int k;
    for (k = 0; k < 2; k++) {
      const char *line =
          k ? NULL : "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": \"very high\"}";
      j = score("er", gp, preds("er-x.jsonl", "er", g, 1, line), protos[p]);
      if (!p) {
        NEAR(num(j, "counts", "failed_samples", NULL), 1);
        ck_assert_str_eq(json_string_value(json_array_get(json_object_get(j, "failed"), 0)), s0);
        ck_assert_ptr_null(json_object_get(json_object_get(j, "samples"), s0));
      } else {
        NEAR(num(j, "counts", "failed_samples", NULL), 0);
        NEAR(num(j, "samples", s0, "scored", NULL), 2);
        NEAR(num(j, "samples", s0, "avg_intensity_match", NULL), 5.0);
        NEAR(num(j, "overall", "scored", NULL), n - 1);
      }
      NEAR(num(j, "counts", k ? "missing" : "invalid", NULL), 1);
      json_decref(j);
    }
  }
  rescue_buf_clear(&b);
  json_decref(g);
}
END_TEST

/* ER intensity parsing as Python's int(round(float(v))): underscores, other scripts'
   digits, long numeric strings; NaN and Infinity do not parse. */
START_TEST(test_er_intensity_strings) {
  json_t *g = gold("er", "couple"), *j;
  const char *gp = gold_file("er-i.jsonl", g);
  long k = -1;
  size_t i;
  int p;
  char line[400], digit[8];
  for (i = 0; i < json_array_size(g); i++)
    if (tt_int(json_array_get(g, i), "gold_intensity_score") == 5)
      k = (long)i;
  ck_assert_int_ge(k, 0);
  for (p = 0; p < 2; p++) {
    /* "0_5" is 5; U+0665 (Arabic-Indic five); 5.000...01 with 60 zeros; "4.5" -> 4 (half to even) */
    j = score("er", gp,
              preds("ei.jsonl", "er", g, k,
                    "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": \"0_5\"}"),
              protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), 0);
    NEAR(num(j, "overall", "scored", NULL) == (double)json_array_size(g) ? 1 : 0, 1);
    json_decref(j);
    snprintf(digit, sizeof digit, "\xd9\xa5");
    snprintf(line, sizeof line,
             "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": \" %s \"}", digit);
    j = score("er", gp, preds("ei.jsonl", "er", g, k, line), protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), 0);
    json_decref(j);
    snprintf(line, sizeof line,
             "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": "
             "\"5.%0*d1\"}",
             60, 0);
    j = score("er", gp, preds("ei.jsonl", "er", g, k, line), protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), 0);
    json_decref(j);
    j = score("er", gp,
              preds("ei.jsonl", "er", g, k,
                    "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": Infinity}"),
              protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), 1);
    json_decref(j);
    j = score("er", gp,
              preds("ei.jsonl", "er", g, k,
                    "{\"instance_id\": \"@ID\", \"predicted_intensity_score\": \"1__0\"}"),
              protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), 1);
    json_decref(j);
  }
  json_decref(g);
}
END_TEST

/*
** RPP macro scores: per scenario only on a file with both; per sample and per couple over
** the scenario's whole taxonomy, checked against a computation written out here.
*/
static void macro_of(json_t *recs, const char *sample, const char *couple, const char **top1,
                     double out[3]) {
  json_t *r, *tax = NULL;
  size_t i, l;
  double sp = 0, sr = 0, sf = 0;
  json_array_foreach(recs, i, r) if ((!sample || !strcmp(tt_str(r, "sample_id"), sample)) &&
                                     (!couple || !strcmp(tt_str(r, "couple"), couple))) {
    tax = json_object_get(r, "candidate_relation_labels");
    break;
  }
  ck_assert_ptr_nonnull(tax);
  for (l = 0; l < json_array_size(tax); l++) {
    const char *lab = json_string_value(json_array_get(tax, l));
    double tp = 0, fp = 0, fn = 0, p, rc;
    json_array_foreach(recs, i, r) {
      const char *gl = tt_str(r, "gold_relation_pattern");
      if ((sample && strcmp(tt_str(r, "sample_id"), sample)) ||
          (couple && strcmp(tt_str(r, "couple"), couple)))
        continue;
      if (!strcmp(top1[i], lab) && !strcmp(gl, lab))
        tp++;
      else if (!strcmp(top1[i], lab))
        fp++;
      else if (!strcmp(gl, lab))
        fn++;
    }
    p = tp + fp ? tp / (tp + fp) : 0;
    rc = tp + fn ? tp / (tp + fn) : 0;
    sp += p;
    sr += rc;
    sf += p + rc ? 2 * p * rc / (p + rc) : 0;
  }
  out[0] = sp / (double)json_array_size(tax);
  out[1] = sr / (double)json_array_size(tax);
  out[2] = sf / (double)json_array_size(tax);
}

START_TEST(test_rpp_macro) {
  json_t *g = gold("rpp", NULL), *j, *r;
  const char **top1 = calloc(json_array_size(g), sizeof *top1);
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i;
  int p;
  /* every third prediction wrong: its top-1 is the first label of the taxonomy that is
     not the gold */
  json_array_foreach(g, i, r) {
    json_t *cl = json_object_get(r, "candidate_relation_labels");
    const char *gl = tt_str(r, "gold_relation_pattern");
    top1[i] = gl;
    if (i % 3 == 0)
      top1[i] = json_string_value(
          json_array_get(cl, strcmp(json_string_value(json_array_get(cl, 0)), gl) ? 0 : 1));
    rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"relation_top3\": [\"%s\"]}\n",
                      tt_str(r, "instance_id"), top1[i]);
  }
  tu_write(tu_path(work, "rpp-macro.jsonl"), b.s);
  for (p = 0; p < 2; p++) {
    double m[3];
    const char *s_c = tt_str(json_array_get(g, 0), "sample_id");
    const char *c_c = tt_str(json_array_get(g, 0), "couple");
    const char *s_f = NULL;
    json_array_foreach(g, i, r) if (!strcmp(tt_str(r, "scenario"), "family")) {
      s_f = tt_str(r, "sample_id");
      break;
    }
    ck_assert_ptr_nonnull(s_f);
    j = score("rpp", gold_path("rpp"), tu_path(work, "rpp-macro.jsonl"), protos[p]);
    /* both scenarios: no overall macro */
    ck_assert(is_null(j, "overall", "macro_f1", NULL));
    ck_assert(is_null(j, "overall", "macro_precision", NULL));
    ck_assert(dump_has(json_object_get(j, "notes"), "per scenario"));
    ck_assert_int_eq(
        (int)json_object_size(json_object_get(json_object_get(j, "top1_class_metrics"), "couple")),
        6);
    ck_assert_int_eq(
        (int)json_object_size(json_object_get(json_object_get(j, "top1_class_metrics"), "family")),
        8);
    {
      json_t *gc = gold("rpp", "couple"), *gf = gold("rpp", "family");
      const char **t1c = calloc(json_array_size(gc), sizeof *t1c),
                 **t1f = calloc(json_array_size(gf), sizeof *t1f);
      size_t a = 0, c = 0;
      json_array_foreach(g, i, r) {
        if (!strcmp(tt_str(r, "scenario"), "family"))
          t1f[c++] = top1[i];
        else
          t1c[a++] = top1[i];
      }
      macro_of(gc, NULL, NULL, t1c, m);
      NEAR(num(j, "scenarios", "couple", "macro_precision", NULL), m[0]);
      NEAR(num(j, "scenarios", "couple", "macro_recall", NULL), m[1]);
      NEAR(num(j, "scenarios", "couple", "macro_f1", NULL), m[2]);
      macro_of(gf, NULL, NULL, t1f, m);
      NEAR(num(j, "scenarios", "family", "macro_f1", NULL), m[2]);
      macro_of(gc, s_c, NULL, t1c, m);
      NEAR(num(j, "samples", s_c, "macro_precision", NULL), m[0]);
      NEAR(num(j, "samples", s_c, "macro_recall", NULL), m[1]);
      NEAR(num(j, "samples", s_c, "macro_f1", NULL), m[2]);
      macro_of(gc, NULL, c_c, t1c, m);
      NEAR(num(j, "couples", c_c, "macro_f1", NULL), m[2]);
      macro_of(gf, s_f, NULL, t1f, m);
      NEAR(num(j, "samples", s_f, "macro_recall", NULL), m[1]);
      free(t1c);
      free(t1f);
      json_decref(gc);
      json_decref(gf);
    }
    json_decref(j);
  }
  /* one scenario only: the overall macro is that scenario's */
  {
    json_t *gc = gold("rpp", "couple");
    const char *gp = gold_file("rpp-c-only.jsonl", gc);
    j = score("rpp", gp, tu_path(work, "rpp-macro.jsonl"), "rescue");
    NEAR(num(j, "overall", "macro_f1", NULL), num(j, "scenarios", "couple", "macro_f1", NULL));
    json_decref(j);
    json_decref(gc);
  }
  free(top1);
  rescue_buf_clear(&b);
  json_decref(g);
}
END_TEST

/* Malformed lines: Python's json reads NaN, Infinity, huge integers and lone surrogates;
   NaN in a prediction field is invalid under rescue only. */
START_TEST(test_python_values) {
  json_t *g = gold("rpp", "couple"), *j;
  const char *gp = gold_file("rpp-pv.jsonl", g);
  int p;
  for (p = 0; p < 2; p++) {
    j = score("rpp", gp,
              preds("pv.jsonl", "rpp", g, 0,
                    "{\"instance_id\": \"@ID\", \"relation_top3\": "
                    "[\"@GOLD\"], \"confidence\": NaN, \"tokens\": 123456789012345678901234567890, "
                    "\"note\": \"\\ud800 half\"}"),
              protos[p]);
    NEAR(num(j, "overall", "accuracy", NULL), 1.0);
    NEAR(num(j, "counts", "invalid_lines", NULL), 0);
    json_decref(j);
    j = score("rpp", gp,
              preds("pv.jsonl", "rpp", g, 0,
                    "{\"instance_id\": \"@ID\", \"relation_top3\": "
                    "[\"@GOLD\", NaN]}"),
              protos[p]);
    NEAR(num(j, "counts", "invalid", NULL), p ? 1 : 0);
    NEAR(num(j, "overall", "accuracy", NULL) * (double)json_array_size(g),
         (double)json_array_size(g) - (p ? 1 : 0));
    json_decref(j);
  }
  json_decref(g);
}
END_TEST

/* One gold instance and a prediction without an id: attributed to it. */
START_TEST(test_one_instance_rule) {
  json_t *g = gold("stp", "couple"), *one = json_array(), *j;
  const char *gp;
  int p;
  json_array_append(one, json_array_get(g, 0));
  gp = gold_file("stp-one.jsonl", one);
  for (p = 0; p < 2; p++) {
    j = score("stp", gp, preds("one.jsonl", "stp", one, 0, "{\"target_top3\": [\"@GOLD\"]}"),
              protos[p]);
    NEAR(num(j, "counts", "one_instance", NULL), 1);
    NEAR(num(j, "overall", "target_recall_at_1", NULL), 1.0);
    json_decref(j);
  }
  json_decref(one);
  json_decref(g);
}
END_TEST

/* Predictions for another task are refused with the task they look like; too many
   unusable predictions exit 1 with the counts; --allow-missing scores anyway. */
START_TEST(test_wrong_task_and_share) {
  json_t *gi = gold("itp", "couple"), *gr = gold("rpp", "couple"), *r;
  const char *pi = preds("itp.p.jsonl", "itp", gi, -1, NULL), *pr;
  char *out = NULL, *err = NULL, g[4096], pp[4096];
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i;
  int rc;
  snprintf(g, sizeof g, "%s", gold_file("rpp-w.jsonl", gr));
  snprintf(pp, sizeof pp, "%s", pi);
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", pp, NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(err, "these look like itp predictions") &&
                    strstr(err, "score them with 'rescue score itp'"),
                "%s", err);
  free(out);
  free(err);
  /* itp ids with the rpp field */
  json_array_foreach(gi, i, r) rescue_buf_printf(
      &b, "{\"instance_id\": \"%s\", \"relation_top3\": [\"x\"]}\n", tt_str(r, "instance_id"));
  tu_write(tu_path(work, "ids.jsonl"), b.s);
  snprintf(pp, sizeof pp, "%s", tu_path(work, "ids.jsonl"));
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", pp, NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(err, "are itp instance ids"), "%s", err);
  free(out);
  free(err);
  /* a quarter of the predictions missing: exit 1 with counts, unless --allow-missing */
  rescue_buf_reset(&b);
  json_array_foreach(gr, i, r) if (i % 4)
      rescue_buf_printf(&b, "{\"instance_id\": \"%s\", \"relation_top3\": [\"%s\"]}\n",
                        tt_str(r, "instance_id"), tt_str(r, "gold_relation_pattern"));
  pr = tu_path(work, "quarter.jsonl");
  tu_write(pr, b.s);
  snprintf(pp, sizeof pp, "%s", pr);
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", pp, "--protocol", "release",
                 NULL);
  ck_assert_int_eq(rc, 1);
  ck_assert_msg(strstr(err, "have no usable prediction") && strstr(err, "--allow-missing"), "%s",
                err);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  rc = tu_rescue(&out, &err, "score", "rpp", "--gold", g, "--pred", pp, "--allow-missing", NULL);
  ck_assert_int_eq(rc, 0);
  ck_assert_ptr_nonnull(strstr(out, "rpp, protocol rescue"));
  free(out);
  free(err);
  rescue_buf_clear(&b);
  json_decref(gi);
  json_decref(gr);
}
END_TEST

/* Replies inside replies: JSON strings nested six deep in "predictions" items are all read
   under rescue (and counted); the release drops string items in ITP. */
START_TEST(test_nested_strings) {
  json_t *g = gold("itp", "couple"), *j, *obj;
  const char *gp = gold_file("itp-n.jsonl", g), *pp;
  char *line, *rest;
  rescue_buf b = RESCUE_BUF_INIT;
  size_t n = json_array_size(g);
  int level, p;
  obj = json_pack("{s:s, s:s}", "instance_id", tt_str(json_array_get(g, 0), "instance_id"),
                  "should_speak", tt_str(json_array_get(g, 0), "gold_should_speak"));
  for (level = 0; level < 6; level++) {
    char *text = json_dumps(obj, JSON_COMPACT);
    json_decref(obj);
    obj = json_pack("{s:[s]}", "predictions", level % 2 ? text : "");
    if (!(level % 2)) { /* every other level fenced, inside prose */
      rescue_buf f = RESCUE_BUF_INIT;
      rescue_buf_printf(&f, "Here:\n```json\n%s\n```", text);
      json_decref(obj);
      obj = json_pack("{s:[s]}", "predictions", f.s);
      rescue_buf_clear(&f);
    }
    free(text);
  }
  line = json_dumps(obj, JSON_COMPACT);
  json_decref(obj);
  rest = (char *)preds("n-rest.jsonl", "itp", g, 0, NULL);
  rest = tu_read(rest, NULL);
  rescue_buf_printf(&b, "%s\n%s", line, rest);
  pp = tu_path(work, "nested.jsonl");
  tu_write(pp, b.s);
  for (p = 0; p < 2; p++) {
    j = score("itp", gp, pp, protos[p]);
    NEAR(num(j, "counts", "predicted", NULL), p ? n : n - 1);
    NEAR(num(j, "counts", "string_items", NULL), p ? 6 : 0);
    json_decref(j);
  }
  free(line);
  free(rest);
  rescue_buf_clear(&b);
  json_decref(g);
}
END_TEST

static Suite *suite(void) {
  Suite *s = suite_create("score_protocols");
  TCase *t = tcase_create("table");
  tcase_set_timeout(t, 300);
  tcase_add_unchecked_fixture(t, build_export, NULL);
  tcase_add_test(t, test_reply_shapes);
  tcase_add_test(t, test_er_bare_object);
  tcase_add_test(t, test_string_items);
  tcase_add_test(t, test_itp_container_answers);
  tcase_add_test(t, test_rpp_field_shapes);
  tcase_add_test(t, test_rpp_family_padding);
  tcase_add_test(t, test_stp_ssp_shapes);
  tcase_add_test(t, test_itp_missing_is_no);
  tcase_add_test(t, test_er_checkpoints_and_rounding);
  tcase_add_test(t, test_er_intensity_strings);
  tcase_add_test(t, test_rpp_macro);
  tcase_add_test(t, test_python_values);
  tcase_add_test(t, test_one_instance_rule);
  tcase_add_test(t, test_wrong_task_and_share);
  tcase_add_test(t, test_nested_strings);
  suite_add_tcase(s, t);
  return s;
}

int main(void) {
  tu_fixtures(); /* skips (77) without the fixtures */
  return tu_run_suite(suite());
}
