/*
** check_cli.c: the rescue command line: usage and exit codes, messages, and every class
** of bad input refused with exit 1, a file:line:column message and the corpus file
** byte for byte as it was; exports that leave nothing half-written.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "testutil.h"

static const char good_line[] =
    "{\"sample_id\": \"g/s1\", \"scenario\": \"couple\", \"participants\": [\"Ana\", \"Ben\"], "
    "\"source_file\": \"x.json\", \"rows\": [{\"start_time\": 0.0, \"end_time\": 1.5, "
    "\"primary_speaker\": \"Ana\", \"target\": [\"Ben\"], \"dialogue_cleaned\": \"hi\"}, "
    "{\"start_time\": 1.5, \"end_time\": 3.0, \"primary_speaker\": \"Therapist\", \"target\": "
    "[\"Ana\"], \"dialogue_cleaned\": \"hello\"}]}\n";

/* A corpus holding good_line, plus a byte copy of it for comparisons. */
typedef struct fixture {
  char *dir;
  char db[4096], copy[4096];
} fixture;

static void setup(fixture *f) {
  char *out = NULL, *err = NULL;
  f->dir = tu_tmpdir();
  snprintf(f->db, sizeof f->db, "%s/c.db", f->dir);
  snprintf(f->copy, sizeof f->copy, "%s/copy.db", f->dir);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "init", f->db, NULL), 0);
  tu_write(tu_path(f->dir, "good.jsonl"), good_line);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f->db, tu_path(f->dir, "good.jsonl"), NULL), 0);
  free(out);
  free(err);
  {
    size_t n;
    char *bytes = tu_read(f->db, &n);
    tu_write_n(f->copy, bytes, n);
    free(bytes);
  }
}

static void teardown(fixture *f) {
  rescue_remove_tree(f->dir);
  free(f->dir);
}

/*
** Import `text` as file `name`; it must fail with exit 1 and a message containing each of
** the wanted fragments, and the corpus must be byte-identical afterwards.
*/
static void refuse(const char *name, const char *text, size_t len, const char *want1,
                   const char *want2) {
  fixture f;
  char *out = NULL, *err = NULL;
  const char *path;
  int rc;
  setup(&f);
  path = tu_path(f.dir, name);
  tu_write_n(path, text, len);
  rc = tu_rescue(&out, &err, "import", f.db, path, NULL);
  ck_assert_msg(rc == 1, "exit %d for %s; stderr: %s", rc, name, err);
  ck_assert_msg(strncmp(err, "rescue: import: ", 16) == 0, "prefix: %s", err);
  ck_assert_msg(strstr(err, want1) != NULL, "want '%s' in: %s", want1, err);
  if (want2)
    ck_assert_msg(strstr(err, want2) != NULL, "want '%s' in: %s", want2, err);
  ck_assert_msg(tu_same_file(f.db, f.copy), "corpus changed by a refused import (%s)", name);
  ck_assert_str_eq(out, "");
  free(out);
  free(err);
  teardown(&f);
}

static void refuse_s(const char *name, const char *text, const char *w1, const char *w2) {
  refuse(name, text, strlen(text), w1, w2);
}

/* good_line with `from` replaced by `to` (first occurrence), as a new string. */
static char *variant(const char *from, const char *to) {
  const char *p = strstr(good_line, from);
  char *r;
  ck_assert_ptr_nonnull(p);
  r = malloc(strlen(good_line) + strlen(to) + 1);
  sprintf(r, "%.*s%s%s", (int)(p - good_line), good_line, to, p + strlen(from));
  return r;
}

START_TEST(test_bad_json) {
  char *two = malloc(2 * sizeof good_line + 64);
  /* a malformed second line refuses the whole file, even the good first line */
  sprintf(two, "%s%s", good_line, "{\"sample_id\": \"g/s2\", \"rows\": [}\n");
  refuse_s("a.jsonl", two, ":2:32: invalid JSON", NULL);
  /* truncated */
  refuse("t.jsonl", good_line, 100, ":1:", "premature end");
  /* not an object */
  refuse_s("arr.jsonl", "[1, 2]\n", ":1:1: a sample must be a JSON object", NULL);
  free(two);
}
END_TEST

START_TEST(test_bad_types) {
  char *v;
  v = variant("\"rows\": [", "\"rows\": {\"a\": [");
  v[strlen(v) - 2] = '}';
  strcat(v, "}\n");
  free(v);
  v = variant("\"rows\": [{\"start_time\": 0.0, \"end_time\": 1.5, \"primary_speaker\": \"Ana\", "
              "\"target\": [\"Ben\"], \"dialogue_cleaned\": \"hi\"}, ",
              "\"rows\": \"no\", \"x\": [");
  refuse_s("rows.jsonl", v, "rows is not a list", ":1:");
  free(v);
  v = variant("[{\"start_time\": 0.0", "[7, {\"start_time\": 0.0");
  refuse_s("row.jsonl", v, "row 1: row is not an object", ":1:");
  free(v);
  v = variant("\"start_time\": 0.0", "\"start_time\": \"0.0\"");
  refuse_s("st.jsonl", v, "row 1: start_time is not a finite number", NULL);
  free(v);
  v = variant("\"end_time\": 3.0", "\"end_time\": null");
  refuse_s("et.jsonl", v, "row 2: end_time is not a finite number", NULL);
  free(v);
  v = variant("\"end_time\": 1.5", "\"end_time\": 1e999");
  refuse_s("inf.jsonl", v, "real number overflow", NULL);
  free(v);
  v = variant("\"target\": [\"Ben\"]", "\"target\": \"Ben\"");
  refuse_s("tg.jsonl", v, "row 1: target is not a list of strings", NULL);
  free(v);
  v = variant("\"target\": [\"Ana\"]", "\"target\": [\"Ana\", 3]");
  refuse_s("tg2.jsonl", v, "row 2: target is not a list of strings", NULL);
  free(v);
  /* the column points at the offending value */
  v = variant("\"start_time\": 0.0", "\"start_time\": true");
  refuse_s("col.jsonl", v, ":1:126: sample 'g/s1': row 1: start_time", NULL);
  free(v);
}
END_TEST

START_TEST(test_bad_utf8) {
  char *v = variant("\"hi\"", "\"h\xff\"");
  refuse_s("u.jsonl", v, "invalid UTF-8", ":1:");
  free(v);
  v = variant("\"hi\"", "\"\xed\xa0\x80\"");
  refuse_s("u2.jsonl", v, "invalid UTF-8", NULL);
  free(v);
}
END_TEST

START_TEST(test_duplicates) {
  char *two = malloc(2 * sizeof good_line);
  sprintf(two, "%s%s", good_line, good_line);
  refuse_s("d.jsonl", two, "duplicate sample_id 'g/s1'", ":1)");
  free(two);
  /* across two files of one import */
  {
    fixture f;
    char *out = NULL, *err = NULL;
    setup(&f);
    tu_write(tu_path(f.dir, "x1.jsonl"), good_line);
    tu_write(tu_path(f.dir, "x2.jsonl"), good_line);
    ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "x1.jsonl"),
                               tu_path(f.dir, "x2.jsonl"), NULL),
                     1);
    ck_assert_ptr_nonnull(strstr(err, "x2.jsonl:1:"));
    ck_assert_ptr_nonnull(strstr(err, "duplicate sample_id"));
    ck_assert(tu_same_file(f.db, f.copy));
    free(out);
    free(err);
    teardown(&f);
  }
}
END_TEST

START_TEST(test_sample_ids) {
  static const struct {
    const char *id, *why;
  } bad[] = {{"", "empty"},          {"/etc/x", "absolute"},   {"a//b", "empty path component"},
             {"../x", "'..'"},       {"a/./b", "'.'"},         {"a\\\\b", "backslash"},
             {"a\\tb", "control"},   {"a/", "empty path component"}};
  size_t i;
  char *v;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    char from[64];
    snprintf(from, sizeof from, "\"sample_id\": \"%s\"", bad[i].id);
    v = variant("\"sample_id\": \"g/s1\"", from);
    refuse_s("id.jsonl", v, "unsafe sample_id", bad[i].why);
    free(v);
  }
  v = variant("\"sample_id\": \"g/s1\", ", "");
  refuse_s("noid.jsonl", v, ":1:1: sample has no string sample_id", NULL);
  free(v);
  v = variant("\"sample_id\": \"g/s1\"", "\"sample_id\": 12");
  refuse_s("numid.jsonl", v, "sample_id is not a string", ":1:15:");
  free(v);
}
END_TEST

START_TEST(test_row_count_change) {
  char *v = variant(", {\"start_time\": 1.5, \"end_time\": 3.0, \"primary_speaker\": \"Therapist\", "
                    "\"target\": [\"Ana\"], \"dialogue_cleaned\": \"hello\"}",
                    "");
  refuse_s("rc.jsonl", v, "has 2 rows in the corpus but 1", "--resegment");
  free(v);
}
END_TEST

START_TEST(test_data_root_mismatch) {
  fixture f;
  char *out = NULL, *err = NULL;
  setup(&f);
  tu_write(tu_path(f.dir, "root/grp/one.json"), "{\"sample_id\": \"grp/other\", \"rows\": []}");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "root"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "root/grp/one.json:1:15: sample_id 'grp/other' disagrees"));
  ck_assert(tu_same_file(f.db, f.copy));
  free(out);
  free(err);
  teardown(&f);
}
END_TEST

START_TEST(test_not_a_corpus) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *missing = tu_path(dir, "nope.db"), *text = tu_path(dir, "text.db");
  tu_write(tu_path(dir, "in.jsonl"), good_line);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", missing, tu_path(dir, "in.jsonl"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: import: "));
  ck_assert_ptr_nonnull(strstr(err, "is not a rescue corpus"));
  ck_assert_ptr_nonnull(strstr(err, "rescue init"));
  ck_assert_int_ne(access(missing, F_OK), 0); /* nothing created */
  free(out);
  free(err);
  tu_write(text, "hello, I am not a database at all, and I am long enough to be read\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "stats", text, NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: stats: "));
  ck_assert_ptr_nonnull(strstr(err, "is not a rescue corpus"));
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

START_TEST(test_usage) {
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "usage: rescue"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "--help", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "import"));
  ck_assert_str_eq(err, "");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "--version", NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "rescue "));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "frobnicate", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "'frobnicate' is not a rescue command"));
  free(out);
  free(err);
  {
    const char *cmds[] = {"init", "import", "export", "stats", "demo"};
    size_t i;
    for (i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
      ck_assert_int_eq(tu_rescue(&out, &err, cmds[i], "-h", NULL), 0);
      ck_assert_msg(strncmp(out, "usage: rescue ", 14) == 0, "%s -h: %s", cmds[i], out);
      ck_assert_str_eq(err, "");
      free(out);
      free(err);
      ck_assert_int_eq(tu_rescue(&out, &err, cmds[i], "--no-such-option", NULL), 2);
      ck_assert_msg(strstr(err, "unknown option '--no-such-option'") != NULL, "%s", err);
      ck_assert_ptr_nonnull(strstr(err, "usage: rescue "));
      free(out);
      free(err);
    }
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "import", "x.db", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "rescue: import: missing <path>"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", "x.db", "y", "--format", "xml", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "unknown format 'xml'"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", "x.db", "--out", "y", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "missing --format"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", "x.db", "--format", NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "needs a value"));
  free(out);
  free(err);
}
END_TEST

START_TEST(test_init) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *db = tu_path(dir, "c.db");
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "created corpus"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "rescue: init: "));
  ck_assert_ptr_nonnull(strstr(err, "already exists"));
  free(out);
  free(err);
  /* a scheme that breaks the grammar: refused, nothing created */
  tu_write(tu_path(dir, "bad.xml"), "<scheme xmlns=\"urn:rescue:scheme:1\"/>");
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "d.db"), "--scheme",
                             tu_path(dir, "bad.xml"), NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "bad.xml: does not follow the scheme grammar"));
  ck_assert_int_ne(access(tu_path(dir, "d.db"), F_OK), 0);
  free(out);
  free(err);
  /* a valid custom scheme */
  tu_write(tu_path(dir, "ok.xml"),
           "<scheme xmlns=\"urn:rescue:scheme:1\" name=\"mini\" version=\"1\"><entities>"
           "<reserved name=\"Coach\" role=\"practitioner\"/><group scenario=\"couple\" "
           "label=\"Couple\"/></entities><labelset name=\"u\"><label name=\"a\">x</label>"
           "</labelset><fields><field key=\"start_time\" type=\"number\">s</field></fields>"
           "</scheme>");
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "e.db"), "--scheme",
                             tu_path(dir, "ok.xml"), NULL),
                   0);
  free(out);
  free(err);
  {
    rescue_store *st = NULL;
    rescue_error e = {0, ""};
    ck_assert_int_eq(rescue_store_open(&st, tu_path(dir, "e.db"), RESCUE_OPEN_READONLY, &e), 0);
    ck_assert_str_eq(rescue_store_scheme(st)->therapist, "Coach");
    rescue_store_close(&st);
  }
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

START_TEST(test_export_outputs) {
  fixture f;
  char *out = NULL, *err = NULL, *text;
  const char *jl;
  setup(&f);
  jl = tu_path(f.dir, "out.jsonl");
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out", jl, NULL),
                   0);
  text = tu_read(jl, NULL);
  ck_assert_str_eq(text, good_line);
  free(text);
  free(out);
  free(err);
  /* an existing, non-empty output is refused and left alone */
  tu_write(jl, "precious\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out", jl, NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "already exists"));
  ck_assert_ptr_nonnull(strstr(err, "--force"));
  text = tu_read(jl, NULL);
  ck_assert_str_eq(text, "precious\n");
  free(text);
  free(out);
  free(err);
  /* a failing export (unknown sample) leaves the old output and no temporary file */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out", jl,
                             "--force", "--samples", "g/s1,nope/x", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no sample 'nope/x'"));
  text = tu_read(jl, NULL);
  ck_assert_str_eq(text, "precious\n");
  free(text);
  free(out);
  free(err);
  /* --force replaces */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out", jl,
                             "--force", NULL),
                   0);
  text = tu_read(jl, NULL);
  ck_assert_str_eq(text, good_line);
  free(text);
  free(out);
  free(err);
  /* data-root: one file per sample; then the folder is refused without --force */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "data-root", "--out",
                             tu_path(f.dir, "root"), NULL),
                   0);
  text = tu_read(tu_path(f.dir, "root/g/s1.json"), NULL);
  ck_assert_str_eq(text, good_line);
  free(text);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "data-root", "--out",
                             tu_path(f.dir, "root"), NULL),
                   1);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "data-root", "--out",
                             tu_path(f.dir, "root"), "--force", NULL),
                   0);
  free(out);
  free(err);
  /* no temporary leftovers */
  {
    char cmd[4300];
    snprintf(cmd, sizeof cmd, "ls -a '%s' | grep -q '\\.tmp-\\|\\.old-'", f.dir);
    ck_assert_int_ne(system(cmd), 0);
  }
  /* views: unknown annotator */
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out",
                             tu_path(f.dir, "v.jsonl"), "--view", "annotator:zed", NULL),
                   1);
  ck_assert_ptr_nonnull(strstr(err, "no annotator named 'zed'"));
  free(out);
  free(err);
  teardown(&f);
}
END_TEST

START_TEST(test_import_formats) {
  fixture f;
  char *out = NULL, *err = NULL, *text;
  setup(&f);
  /* single JSON file with --sample, data-root with a manifest.json to skip */
  tu_write(tu_path(f.dir, "one.json"), "{\"rows\": []}");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "one.json"), "--sample",
                             "h/one", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "imported 1 sample"));
  free(out);
  free(err);
  tu_write(tu_path(f.dir, "dr/k/a.json"),
           "{\n  \"rows\": [{\"start_time\": 0, \"end_time\": 1, \"primary_speaker\": \"Family\", "
           "\"target\": [\"Therapist\"]}]\n}\n");
  tu_write(tu_path(f.dir, "dr/k/manifest.json"), "not json at all");
  tu_write(tu_path(f.dir, "dr/k/notes.txt"), "ignored");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "dr"), NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", f.db, "--format", "samples", "--out",
                             tu_path(f.dir, "all.jsonl"), "--samples", "k/a,h/one", NULL),
                   0);
  text = tu_read(tu_path(f.dir, "all.jsonl"), NULL);
  ck_assert_str_eq(text, "{\"sample_id\": \"h/one\", \"scenario\": \"couple\", \"participants\": "
                         "[], \"rows\": []}\n"
                         "{\"sample_id\": \"k/a\", \"scenario\": \"family\", \"participants\": [], "
                         "\"rows\": [{\"start_time\": 0, \"end_time\": 1, \"primary_speaker\": "
                         "\"Family\", \"target\": [\"Therapist\"]}]}\n");
  free(text);
  free(out);
  free(err);
  /* a JSON file without sample_id and without --sample */
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "one.json"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "one.json:1:1: sample has no string sample_id"));
  free(out);
  free(err);
  /* unknown extension */
  tu_write(tu_path(f.dir, "x.dat"), good_line);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "x.dat"), NULL), 2);
  ck_assert_ptr_nonnull(strstr(err, "use --format"));
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "import", f.db, tu_path(f.dir, "x.dat"), "--format",
                             "jsonl", "--annotator", "bob", NULL),
                   0);
  ck_assert_ptr_nonnull(strstr(out, "2 row versions added"));
  free(out);
  free(err);
  teardown(&f);
}
END_TEST

START_TEST(test_stats_json) {
  fixture f;
  char *out = NULL, *err = NULL;
  setup(&f);
  ck_assert_int_eq(tu_rescue(&out, &err, "stats", f.db, "--json", NULL), 0);
  ck_assert_str_eq(out,
                   "{\"couple\": {\"samples\": 1, \"turns\": 2, \"duration_min\": 0.05, "
                   "\"avg_duration_min\": 0.05, \"avg_turns\": 2.0, \"avg_speakers\": 2.0, "
                   "\"therapist_share\": 0.5, \"therapist_turns\": 1}, \"family\": {\"samples\": "
                   "0, \"turns\": 0, \"duration_min\": 0.0, \"avg_duration_min\": null, "
                   "\"avg_turns\": null, \"avg_speakers\": null, \"therapist_share\": null, "
                   "\"therapist_turns\": 0}, \"all\": {\"samples\": 1, \"turns\": 2, "
                   "\"duration_min\": 0.05, \"avg_duration_min\": 0.05, \"avg_turns\": 2.0, "
                   "\"avg_speakers\": 2.0, \"therapist_share\": 0.5, \"therapist_turns\": 1}}\n");
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "stats", f.db, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "therapist turn share"));
  ck_assert_ptr_nonnull(strstr(out, "50.0%"));
  free(out);
  free(err);
  teardown(&f);
}
END_TEST

START_TEST(test_demo) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  const char *demo = tu_path(dir, "demo");
  ck_assert_int_eq(tu_rescue(&out, &err, "demo", "--out", demo, NULL), 0);
  ck_assert_ptr_nonnull(strstr(out, "corpus.db"));
  free(out);
  free(err);
  ck_assert_int_eq(access(tu_path(demo, "export/samples.jsonl"), F_OK), 0);
  /* a rerun replaces its own folder */
  ck_assert_int_eq(tu_rescue(&out, &err, "demo", "--out", demo, NULL), 0);
  free(out);
  free(err);
  /* a folder it did not make is refused */
  tu_write(tu_path(dir, "mine/file.txt"), "keep me");
  ck_assert_int_eq(tu_rescue(&out, &err, "demo", "--out", tu_path(dir, "mine"), NULL), 1);
  ck_assert_ptr_nonnull(strstr(err, "was not made by 'rescue demo'"));
  ck_assert_int_eq(access(tu_path(dir, "mine/file.txt"), F_OK), 0);
  free(out);
  free(err);
  rescue_remove_tree(dir);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cli");
  TCase *tc = tcase_create("cli");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, test_bad_json);
  tcase_add_test(tc, test_bad_types);
  tcase_add_test(tc, test_bad_utf8);
  tcase_add_test(tc, test_duplicates);
  tcase_add_test(tc, test_sample_ids);
  tcase_add_test(tc, test_row_count_change);
  tcase_add_test(tc, test_data_root_mismatch);
  tcase_add_test(tc, test_not_a_corpus);
  tcase_add_test(tc, test_usage);
  tcase_add_test(tc, test_init);
  tcase_add_test(tc, test_export_outputs);
  tcase_add_test(tc, test_import_formats);
  tcase_add_test(tc, test_stats_json);
  tcase_add_test(tc, test_demo);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
