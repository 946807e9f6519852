/*
** check_annotators.c: annotator add (token printed once, only its SHA-256 stored, checked
** with sha256sum), token sign-in, roles and names, annotator list, and assignment runs
** (whole groups, every sample covered, the double share per scenario, balance, seeds,
** history, refusals that leave the store as it was).
*/
#include <jansson.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"
#include "store_int.h"

/* A minimal valid row set of n rows. */
static void rows(rescue_buf *b, int n, const char *speaker, const char *target) {
  int i;
  rescue_buf_puts(b, "\"rows\": [");
  for (i = 0; i < n; i++)
    rescue_buf_printf(b,
                      "%s{\"start_time\": %d.0, \"end_time\": %d.5, \"primary_speaker\": \"%s\", "
                      "\"target\": [\"%s\"], \"utterance_type\": \"other\"}",
                      i ? ", " : "", i, i, speaker, target);
  rescue_buf_puts(b, "]");
}

static long n_rows;

/* A corpus with couple groups c00..c11 (1-4 samples each) and family groups f0..f3. */
static char *make_corpus(long *n_samples) {
  char *db = tu_new_corpus(), *dir = strdup(db);
  rescue_buf b = RESCUE_BUF_INIT;
  int g, s;
  *strrchr(dir, '/') = 0;
  *n_samples = 0;
  n_rows = 0;
  for (g = 0; g < 12; g++)
    for (s = 0; s < 1 + g % 4; s++) {
      rescue_buf_printf(&b, "{\"sample_id\": \"c%02d/seg%02d\", ", g, s);
      rows(&b, 3, "Ann", "Therapist");
      n_rows += 3;
      rescue_buf_puts(&b, "}\n");
      (*n_samples)++;
    }
  for (g = 0; g < 4; g++)
    for (s = 0; s < 1 + g % 2; s++) {
      rescue_buf_printf(&b, "{\"sample_id\": \"family_therapy/f%d/seg%02d\", ", g, s);
      rows(&b, 2, "Mia", "Family");
      n_rows += 2;
      rescue_buf_puts(&b, "}\n");
      (*n_samples)++;
    }
  tu_write(tu_path(dir, "in.jsonl"), b.s);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "in.jsonl"), NULL), 0);
  rescue_buf_clear(&b);
  free(dir);
  return db;
}

static char *copy_of(const char *db) {
  char *copy = malloc(strlen(db) + 8);
  size_t n;
  char *bytes = tu_read(db, &n);
  sprintf(copy, "%s.copy", db);
  tu_write_n(copy, bytes, n);
  free(bytes);
  return copy;
}

START_TEST(test_add_and_token) {
  long n;
  char *db = make_corpus(&n), *out = NULL, *err = NULL, *copy, token[65], cmd[512], hash[65];
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  sqlite3 *h;
  sqlite3_stmt *q;
  int64_t id = 0, want = 0;
  FILE *p;
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(sscanf(strstr(out, "sign-in token: "), "sign-in token: %64s", token), 1);
  ck_assert_int_eq((int)strlen(token), 64);
  ck_assert_int_eq((int)strspn(token, "0123456789abcdef"), 64);
  ck_assert_ptr_nonnull(strstr(out, "added annotator 'ann' (role annotator)"));
  ck_assert_ptr_null(strstr(err, "rescue"));
  free(out);
  free(err);
  /* the store keeps sha256(token), as sha256sum computes it, and not the token */
  snprintf(cmd, sizeof cmd, "printf %%s %s | sha256sum", token);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  ck_assert_int_eq(fscanf(p, "%64s", hash), 1);
  pclose(p);
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  sqlite3_prepare_v2(h, "SELECT id, token_hash, role FROM annotator WHERE name = 'ann'", -1, &q,
                     NULL);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  want = sqlite3_column_int64(q, 0);
  ck_assert_str_eq((const char *)sqlite3_column_text(q, 1), hash);
  sqlite3_finalize(q);
  sqlite3_close(h);
  {
    size_t len;
    char *bytes = tu_read(db, &len);
    size_t k;
    for (k = 0; k + 64 <= len; k++)
      ck_assert_msg(memcmp(bytes + k, token, 64) != 0, "the token is in the store");
    free(bytes);
  }
  /* sign-in by token */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  ck_assert_int_eq(rescue_annotator_by_token(st, token, &id), 0);
  ck_assert_int_eq(id, want);
  token[0] = token[0] == 'a' ? 'b' : 'a';
  ck_assert_int_eq(rescue_annotator_by_token(st, token, &id), RESCUE_ENOTFOUND);
  rescue_store_close(&st);
  /* a second add is refused and changes nothing */
  copy = copy_of(db);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "ann", "--role", "lead", NULL), 1);
  ck_assert_str_eq(err, "rescue: annotator add: annotator 'ann' already exists and has a sign-in "
                        "token\n");
  ck_assert(tu_same_file(db, copy));
  free(out);
  free(err);
  /* the draft pseudo-annotator 'import' is reserved: drafts are never a person or model */
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "import", "--role", "model", NULL),
                   2);
  ck_assert_ptr_nonnull(strstr(err, "reserved for drafts"));
  free(out);
  free(err);
  /* bad names and roles: usage errors, store unchanged */
  free(copy);
  copy = copy_of(db);
  {
    static const char *bad[] = {"", "a,b", "adjudication", "import", " ann", "x\ty"};
    size_t i;
    for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
      ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, bad[i], NULL), 2);
      ck_assert_ptr_nonnull(strstr(err, "rescue: annotator add: invalid annotator name"));
      free(out);
      free(err);
    }
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, "zoe", "--role", "boss", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown role 'boss'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "add", db, NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "'annotator add'"));
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(
      tu_rescue(&out, &err, "annotator", "add", tu_path("/nonexistent", "c.db"), "x", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue init"));
  free(out);
  free(err);
  free(copy);
  free(db);
}
END_TEST

/* The annotator set of every sample in the latest run: sample_id -> "a,b". */
static json_t *assignment(const char *db) {
  sqlite3 *h;
  sqlite3_stmt *q;
  json_t *m = json_object();
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(sqlite3_prepare_v2(h,
                                      "SELECT s.sample_id, group_concat(a.name, ',') FROM "
                                      "(SELECT * FROM assignment ORDER BY annotator_id) x "
                                      "JOIN sample s ON s.id = x.sample_ref "
                                      "JOIN annotator a ON a.id = x.annotator_id "
                                      "WHERE x.run_id = (SELECT max(id) FROM assign_run) "
                                      "GROUP BY s.sample_id",
                                      -1, &q, NULL),
                   SQLITE_OK);
  while (sqlite3_step(q) == SQLITE_ROW)
    json_object_set_new(m, (const char *)sqlite3_column_text(q, 0),
                        json_string((const char *)sqlite3_column_text(q, 1)));
  sqlite3_finalize(q);
  sqlite3_close(h);
  return m;
}

START_TEST(test_assign) {
  long n;
  char *db = make_corpus(&n), *out = NULL, *err = NULL, *copy;
  json_t *m1, *m2, *m3, *v;
  const char *key;
  long per[3] = {0, 0, 0}, doubles = 0, dcouple = 0, dfamily = 0, couple = 0, family = 0;
  int i;
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "cyd", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "gpt", "--role", "model", NULL),
                   0);
  /* a discarded sample is not dealt out */
  {
    sqlite3 *h;
    ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
    ck_assert_int_eq(sqlite3_exec(h,
                                  "UPDATE sample SET status = 'discarded' WHERE sample_id = "
                                  "'c00/seg00'",
                                  NULL, NULL, NULL),
                     SQLITE_OK);
    sqlite3_close(h);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,bob,cyd", "--overlap",
                             "0.3", "--seed", "5", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "assignment run 1 (seed 5, overlap 0.3): "));
  free(out);
  free(err);
  m1 = assignment(db);
  ck_assert_int_eq((int)json_object_size(m1), (int)n - 1);
  ck_assert_ptr_null(json_object_get(m1, "c00/seg00"));
  json_object_foreach(m1, key, v) {
    const char *who = json_string_value(v);
    int fam = strncmp(key, "family_therapy/", 15) == 0, twice = strchr(who, ',') != NULL;
    char group[64];
    const char *k2;
    json_t *v2;
    if (fam)
      family++;
    else
      couple++;
    if (twice) {
      doubles++;
      if (fam)
        dfamily++;
      else
        dcouple++;
    }
    per[0] += strstr(who, "ann") != NULL;
    per[1] += strstr(who, "bob") != NULL;
    per[2] += strstr(who, "cyd") != NULL;
    /* whole groups: every sample of the group has the same annotators */
    snprintf(group, sizeof group, "%.*s", (int)(strrchr(key, '/') - key), key);
    json_object_foreach(m1, k2, v2) {
      if (strncmp(k2, group, strlen(group)) == 0 && k2[strlen(group)] == '/')
        ck_assert_str_eq(json_string_value(v2), who);
    }
  }
  /* the double share is taken in both scenarios, near 30% (groups hold up to 4 samples) */
  ck_assert_int_gt(dcouple, 0);
  ck_assert_int_gt(dfamily, 0);
  ck_assert_msg(labs(dcouple - (long)(0.3 * couple + 0.5)) <= 2, "couple %ld of %ld", dcouple,
                couple);
  ck_assert_msg(labs(dfamily - (long)(0.3 * family + 0.5)) <= 1, "family %ld of %ld", dfamily,
                family);
  /* balanced by samples */
  for (i = 0; i < 3; i++)
    ck_assert_msg(per[i] >= (n - 1 + doubles) / 3 - 4 && per[i] <= (n - 1 + doubles) / 3 + 4,
                  "annotator %d has %ld", i, per[i]);
  /* the same seed deals the same; another seed another deal; history is kept */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann,bob,cyd", "--overlap",
                             "0.3", "--seed", "5", NULL),
                   0);
  m2 = assignment(db);
  ck_assert(json_equal(m1, m2));
  ck_assert_int_eq(tu_rescue(NULL, NULL, "assign", db, "--annotators", "ann,bob,cyd", "--overlap",
                             "0.3", "--seed", "6", NULL),
                   0);
  m3 = assignment(db);
  ck_assert(!json_equal(m1, m3));
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "list", db, "--json", NULL), 0);
  {
    json_error_t je;
    json_t *j = json_loads(out, 0, &je), *a;
    size_t k;
    long total = 0;
    ck_assert_ptr_nonnull(j);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "assignment"), "run")),
                     3);
    ck_assert_int_eq(json_integer_value(json_object_get(json_object_get(j, "assignment"), "seed")),
                     6);
    json_array_foreach(json_object_get(j, "annotators"), k, a) {
      const char *name = json_string_value(json_object_get(a, "name"));
      total += json_integer_value(json_object_get(a, "assigned"));
      if (strcmp(name, "import") == 0) {
        ck_assert_int_eq(json_integer_value(json_object_get(a, "versions")), n_rows);
        ck_assert_int_eq(json_integer_value(json_object_get(a, "samples")), n);
        ck_assert(json_is_false(json_object_get(a, "token")));
      } else {
        ck_assert(json_is_true(json_object_get(a, "token")));
      }
      if (strcmp(name, "gpt") == 0)
        ck_assert_int_eq(json_integer_value(json_object_get(a, "assigned")), 0);
    }
    {
      long d3 = 0;
      json_object_foreach(m3, key, v) d3 += strchr(json_string_value(v), ',') != NULL;
      ck_assert_int_eq(total, n - 1 + d3);
    }
    json_decref(j);
  }
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "annotator", "list", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "assignment in use: run 3"));
  free(out);
  free(err);
  /* "assigned to me" */
  ck_assert_int_eq(rescue_store_open(&st, db, RESCUE_OPEN_READONLY, &e), 0);
  {
    int64_t id;
    char **ids;
    int k, cnt = 0;
    ck_assert_int_eq(rescue_annotator_id(st, "bob", NULL, 0, &id), 0);
    ck_assert_int_eq(rescue_assigned_samples(st, id, &ids, &k), 0);
    json_object_foreach(m3, key, v) cnt += strstr(json_string_value(v), "bob") != NULL;
    ck_assert_int_eq(k, cnt);
    for (i = 0; i < k; i++)
      ck_assert_ptr_nonnull(strstr(json_string_value(json_object_get(m3, ids[i])), "bob"));
    for (i = 1; i < k; i++)
      ck_assert(strcmp(ids[i - 1], ids[i]) < 0);
    rescue_assigned_samples_free(&ids, k);
  }
  rescue_store_close(&st);
  /* refusals leave the store as it was */
  copy = copy_of(db);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,gpt", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "'gpt' is a model annotator"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,zed", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no registered annotator named 'zed'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,ann", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "listed twice"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "needs at least two annotators"));
  free(out);
  free(err);
  ck_assert_int_eq(
      tu_rescue(&out, &err, "assign", db, "--annotators", "ann,bob", "--overlap", "1.5", NULL), 2);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "missing --annotators"));
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  /* one annotator, no overlap: everything to ann */
  ck_assert_int_eq(
      tu_rescue(&out, &err, "assign", db, "--annotators", "ann", "--overlap", "0", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "0 samples (0 groups) reviewed twice"));
  free(out);
  free(err);
  json_decref(m1);
  json_decref(m2);
  json_decref(m3);
  m1 = assignment(db);
  json_object_foreach(m1, key, v) ck_assert_str_eq(json_string_value(v), "ann");
  json_decref(m1);
  free(copy);
  free(db);
}
END_TEST

/*
** assign deals only to registered annotators who are not retired: an unknown name is
** refused with the closest registered names (the draft pseudo-annotator is not one), a
** retired one with RESCUE_ERETIRED and how to bring them back; the store stays as it was,
** in the library and from the command line.
*/
START_TEST(test_assign_unknown_and_retired) {
  long n;
  char *db = make_corpus(&n), *out = NULL, *err = NULL, *copy, want[1024];
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_assign_opts o = {0};
  rescue_assign_result res;
  const char *typo[] = {"ann", "Bobb"}, *draft[] = {"import", "ann"}, *gone[] = {"ann", "cyd"};
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "cyd", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "gpt", "--role", "model", NULL),
                   0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "annotator", "retire", db, "cyd", "--reason", "left", NULL), 0);
  copy = copy_of(db);
  /* the library */
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  o.overlap = 0.2;
  o.seed = 1;
  o.n_annotators = 2;
  o.annotators = typo;
  ck_assert_int_eq(rescue_assign(st, &o, &res), RESCUE_ENOANNOTATOR);
  ck_assert_str_eq(rescue_store_err(st)->msg,
                   "no registered annotator named 'Bobb' (closest: bob, ann, cyd)");
  ck_assert_str_eq(rescue_store_err(st)->arg, "Bobb");
  ck_assert_ptr_null(res.per_annotator);
  o.annotators = draft;
  ck_assert_int_eq(rescue_assign(st, &o, &res), RESCUE_ENOANNOTATOR);
  ck_assert_str_eq(rescue_store_err(st)->msg,
                   "no registered annotator named 'import' (closest: gpt, bob, ann)");
  o.annotators = gone;
  ck_assert_int_eq(rescue_assign(st, &o, &res), RESCUE_ERETIRED);
  ck_assert_str_eq(rescue_store_err(st)->msg, "annotator 'cyd' is retired");
  ck_assert_str_eq(rescue_store_err(st)->arg, "cyd");
  ck_assert_ptr_null(res.per_annotator);
  rescue_store_close(&st);
  ck_assert(tu_same_corpus_except_log(db, copy));
  ck_assert(tu_same_file(db, copy));
  /* the command line: message with its hint, exit status, the store untouched */
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,Bobb", NULL), 1);
  snprintf(want, sizeof want,
           "rescue: assign: no registered annotator named 'Bobb' (closest: bob, ann, cyd); add "
           "one with 'rescue annotator add %s <name>'\n",
           db);
  ck_assert_str_eq(err, want);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "import,ann", NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "no registered annotator named 'import'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,cyd", NULL), 1);
  snprintf(want, sizeof want,
           "rescue: assign: annotator 'cyd' is retired (rescue annotator unretire %s cyd brings "
           "them back)\n",
           db);
  ck_assert_str_eq(err, want); /* a failure, not a usage error: no usage after it */
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  ck_assert(tu_same_file(db, copy));
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--list", "--json", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "\"run\": null"));
  free(out);
  free(err);
  /* unretired, the same call deals */
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "unretire", db, "cyd", NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "assign", db, "--annotators", "ann,cyd", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "assignment run 1 "));
  free(out);
  free(err);
  free(copy);
  free(db);
}
END_TEST

/* How many annotators are named `name` in the corpus at db. */
static int annotators_named(const char *db, const char *name) {
  sqlite3 *h;
  sqlite3_stmt *q;
  int n;
  ck_assert_int_eq(sqlite3_open(db, &h), SQLITE_OK);
  ck_assert_int_eq(
      sqlite3_prepare_v2(h, "SELECT count(*) FROM annotator WHERE name = ?", -1, &q, NULL),
      SQLITE_OK);
  sqlite3_bind_text(q, 1, name, -1, SQLITE_STATIC);
  ck_assert_int_eq(sqlite3_step(q), SQLITE_ROW);
  n = sqlite3_column_int(q, 0);
  sqlite3_finalize(q);
  sqlite3_close(h);
  return n;
}

/*
** The annotator-name rule (rescue_annotator_name_invalid) is the library's, on every path
** that could bring a name in: rescue_annotator_add, rescue_import's annotator, an EAF file
** naming its annotator, a draft's model annotator. None of them stores a name the rule
** refuses, and the messages say what is wrong without naming a CLI flag.
*/
START_TEST(test_name_rule_in_library) {
  long n;
  char *db = make_corpus(&n), *dir = strdup(db), *copy, *eaf_text, *p, token[65];
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_import_opts io = {0};
  rescue_draft_opts dopt = {0};
  rescue_draft_report rep;
  const char *in, *eaf;
  int existed = 0;
  *strrchr(dir, '/') = 0;
  in = tu_path(dir, "in.jsonl");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  /* an EAF export of one sample as ann sees it: the file names ann as its annotator */
  eaf = tu_path(dir, "eaf");
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "eaf", "--samples", "c00/seg00",
                             "--view", "annotator:ann", "--out", eaf, NULL),
                   0);
  eaf = tu_path(dir, "eaf/c00/seg00.eaf");
  eaf_text = tu_read(eaf, NULL);
  p = strstr(eaf_text, "NAME=\"rescue:annotator\">ann<");
  ck_assert_msg(p != NULL, "%s", eaf_text);
  {
    /* the file now names "a,b" */
    rescue_buf b = RESCUE_BUF_INIT;
    const char *v = strchr(p, '>') + 1;
    rescue_buf_printf(&b, "%.*sa,b%s", (int)(v - eaf_text), eaf_text, v + 3);
    tu_write(eaf, b.s);
    rescue_buf_clear(&b);
  }
  free(eaf_text);
  copy = copy_of(db);
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);

  /* annotator add */
  ck_assert_int_eq(rescue_annotator_add(st, "a,b", NULL, token, &existed), RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "comma"));
  ck_assert_int_eq(rescue_annotator_add(st, RESCUE_DRAFT_ANNOTATOR, "model", token, &existed),
                   RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "reserved for drafts"));
  ck_assert_ptr_null(strstr(rescue_store_errmsg(st), "--"));

  /* rescue_import: the same rule, before anything is read */
  io.format = RESCUE_FMT_AUTO;
  io.annotator = "a,b";
  ck_assert_int_eq(rescue_import(st, &in, 1, &io, NULL), RESCUE_EINVAL);
  ck_assert_str_eq(rescue_store_errmsg(st),
                   "invalid annotator name: it contains a comma (lists of names are "
                   "comma-separated)");
  ck_assert_str_eq(rescue_store_err(st)->arg, "annotator");
  io.annotator = " ann";
  ck_assert_int_eq(rescue_import(st, &in, 1, &io, NULL), RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "starts or ends with a space"));
  io.annotator = RESCUE_ADJUDICATION_ANNOTATOR;
  ck_assert_int_eq(rescue_import(st, &in, 1, &io, NULL), RESCUE_EINVAL);
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "reserved for adjudicated gold"));
  /* a name the rule allows but nobody registered: its own code, the name in arg */
  io.annotator = "zed";
  ck_assert_int_eq(rescue_import(st, &in, 1, &io, NULL), RESCUE_ENOANNOTATOR);
  ck_assert_str_eq(rescue_store_err(st)->arg, "zed");
  ck_assert_ptr_nonnull(strstr(rescue_store_errmsg(st), "no registered annotator named 'zed'"));
  ck_assert_ptr_null(strstr(rescue_store_errmsg(st), "rescue annotator"));

  /* an EAF file naming "a,b": refused, nothing registered under it */
  memset(&io, 0, sizeof io);
  io.format = RESCUE_FMT_AUTO;
  ck_assert_int_ne(rescue_import(st, &eaf, 1, &io, NULL), 0);
  ck_assert_msg(strstr(rescue_store_errmsg(st), "a,b"), "%s", rescue_store_errmsg(st));

  /* a draft under "a,b": refused before the model runs */
  dopt.model_cmd = "false";
  dopt.annotator = "a,b";
  memset(&rep, 0, sizeof rep);
  ck_assert_int_ne(rescue_draft(st, &dopt, &rep), 0);
  ck_assert_msg(strstr(rescue_store_errmsg(st), "a,b"), "%s", rescue_store_errmsg(st));
  rescue_draft_report_clear(&rep);

  rescue_store_close(&st);
  ck_assert_int_eq(annotators_named(db, "a,b"), 0);
  ck_assert_int_eq(annotators_named(db, " ann"), 0);
  ck_assert_int_eq(annotators_named(db, "zed"), 0);
  ck_assert(tu_same_corpus_except_log(db, copy));
  free(copy);
  free(dir);
  free(db);
}
END_TEST

int main(void) {
  Suite *s = suite_create("annotators");
  TCase *tc = tcase_create("annotators");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_add_and_token);
  tcase_add_test(tc, test_assign);
  tcase_add_test(tc, test_assign_unknown_and_retired);
  tcase_add_test(tc, test_name_rule_in_library);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
