#include <sqlite3.h>
/*
** testutil.c: see testutil.h.
*/
#include <errno.h>
#include <jansson.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

/*
** Folders made by tu_tmpdir in this process, removed when it exits (Check runs each test
** in a child process, so a test's folders go when the test ends). RESCUE_KEEP_TEST_DIRS=1
** keeps them for a look after a failure.
*/
static char *made[512];
static int n_made;
static pid_t made_by;

static void remove_made(void) {
  int i;
  if (getpid() != made_by ||
      (getenv("RESCUE_KEEP_TEST_DIRS") && strcmp(getenv("RESCUE_KEEP_TEST_DIRS"), "1") == 0))
    return;
  for (i = 0; i < n_made; i++)
    rescue_remove_tree(made[i]);
}

char *tu_tmpdir(void) {
  const char *base = getenv("TMPDIR");
  char *p;
  if (!base || !*base)
    base = "/tmp";
  p = malloc(strlen(base) + 32);
  ck_assert_ptr_nonnull(p);
  sprintf(p, "%s/rescue-test-XXXXXX", base);
  ck_assert_msg(mkdtemp(p) != NULL, "mkdtemp: %s", strerror(errno));
  if (made_by != getpid()) {
    /* first folder in this process (a forked test child starts a fresh list) */
    for (int i = 0; i < n_made; i++)
      free(made[i]);
    n_made = 0;
    if (!made_by)
      atexit(remove_made);
    made_by = getpid();
  }
  if (n_made < (int)(sizeof made / sizeof made[0]))
    made[n_made++] = strdup(p);
  return p;
}

const char *tu_path(const char *dir, const char *name) {
  static char ring[8][4096];
  static int k;
  char *b = ring[k++ & 7];
  snprintf(b, 4096, "%s/%s", dir, name);
  return b;
}

char *tu_read(const char *path, size_t *len) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t n = 0, cap = 0, got;
  if (!f)
    return NULL;
  do {
    if (cap - n < 65536) {
      cap = cap ? cap * 2 : 131072;
      buf = realloc(buf, cap + 1);
      ck_assert_ptr_nonnull(buf);
    }
    got = fread(buf + n, 1, cap - n, f);
    n += got;
  } while (got > 0);
  fclose(f);
  buf[n] = 0;
  if (len)
    *len = n;
  return buf;
}

void tu_write_n(const char *path, const void *data, size_t len) {
  FILE *f;
  ck_assert_int_eq(rescue_make_parents(path), 0);
  f = fopen(path, "wb");
  ck_assert_msg(f != NULL, "cannot write %s", path);
  ck_assert_uint_eq(fwrite(data, 1, len, f), len);
  ck_assert_int_eq(fclose(f), 0);
}

void tu_write(const char *path, const char *text) { tu_write_n(path, text, strlen(text)); }

int tu_same_file(const char *a, const char *b) {
  size_t la, lb;
  char *x = tu_read(a, &la), *y = tu_read(b, &lb);
  int same = x && y && la == lb && memcmp(x, y, la) == 0;
  free(x);
  free(y);
  return same;
}

/* Read everything from fd into a malloc'd string. */
static char *drain(int fd) {
  char *buf = NULL;
  size_t n = 0, cap = 0;
  for (;;) {
    ssize_t got;
    if (cap - n < 4096) {
      cap = cap ? cap * 2 : 8192;
      buf = realloc(buf, cap + 1);
    }
    got = read(fd, buf + n, cap - n);
    if (got < 0 && errno == EINTR)
      continue;
    if (got <= 0)
      break;
    n += (size_t)got;
  }
  buf[n] = 0;
  return buf;
}

const char *tu_rescue_bin = RESCUE_BIN;

int tu_rescue_argv(const char *const *args, char **out, char **err) {
  char outname[] = "/tmp/rescue-out-XXXXXX", errname[] = "/tmp/rescue-err-XXXXXX";
  int fo = mkstemp(outname), fe = mkstemp(errname), status = 0, n = 0;
  const char *argv[64];
  pid_t pid;
  ck_assert(fo >= 0 && fe >= 0);
  argv[n++] = tu_rescue_bin;
  while (args[n - 1] && n < 63) {
    argv[n] = args[n - 1];
    n++;
  }
  argv[n] = NULL;
  pid = fork();
  ck_assert(pid >= 0);
  if (pid == 0) {
    dup2(fo, 1);
    dup2(fe, 2);
    execv(tu_rescue_bin, (char *const *)argv);
    _exit(127);
  }
  waitpid(pid, &status, 0);
  lseek(fo, 0, SEEK_SET);
  lseek(fe, 0, SEEK_SET);
  if (out)
    *out = drain(fo);
  if (err)
    *err = drain(fe);
  close(fo);
  close(fe);
  unlink(outname);
  unlink(errname);
  if (WIFEXITED(status))
    return WEXITSTATUS(status);
  return 128 + WTERMSIG(status);
}

int tu_rescue(char **out, char **err, ...) {
  const char *args[64];
  int n = 0;
  va_list ap;
  va_start(ap, err);
  while (n < 63 && (args[n] = va_arg(ap, const char *)) != NULL)
    n++;
  va_end(ap);
  args[n] = NULL;
  return tu_rescue_argv(args, out, err);
}

/* The fixtures folder as configured (RESCUE_FIXTURES, else the default); 1 when it exists. */
static int fixtures_path(char path[4096]) {
  const char *env = getenv("RESCUE_FIXTURES");
  struct stat sb;
  snprintf(path, 4096, "%s", env && *env ? env : RESCUE_DEFAULT_FIXTURES);
  return stat(path, &sb) == 0 && S_ISDIR(sb.st_mode);
}

/* Exit 1 when fixtures are required (RESCUE_REQUIRE_FIXTURES=1) but absent at path. */
static void fixtures_required(const char *path) {
  if (getenv("RESCUE_REQUIRE_FIXTURES") && strcmp(getenv("RESCUE_REQUIRE_FIXTURES"), "1") == 0) {
    fprintf(stderr, "fixtures not found at %s (RESCUE_REQUIRE_FIXTURES=1)\n", path);
    exit(1);
  }
}

const char *tu_fixtures(void) {
  static char path[4096];
  if (fixtures_path(path))
    return path;
  fixtures_required(path);
  fprintf(stderr, "fixtures not found at %s: skipping\n", path);
  exit(77);
}

const char *tu_fixtures_if_present(void) {
  static char path[4096];
  if (fixtures_path(path))
    return path;
  fixtures_required(path);
  fprintf(stderr, "fixtures not found at %s: the tests that need them are skipped\n", path);
  return NULL;
}

char *tu_new_corpus(void) {
  char *dir = tu_tmpdir();
  char *db = malloc(strlen(dir) + 16);
  rescue_error err = RESCUE_ERROR_INIT;
  sprintf(db, "%s/c.db", dir);
  free(dir);
  ck_assert_msg(rescue_store_create(db, NULL, 0, &err) == 0, "create: %s", err.msg);
  return db;
}

int tu_run_suite(Suite *s) {
  SRunner *sr = srunner_create(s);
  int failed;
  srunner_run_all(sr, CK_NORMAL);
  failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

int tu_run_suite_skipping(Suite *s, int skipped) {
  int rc = tu_run_suite(s);
  if (rc == 0 && skipped) {
    fprintf(stderr, "%d tests left out (no fixtures): SKIPPED\n", skipped);
    return 77;
  }
  return rc;
}

int tu_same_corpus_except_log(const char *a, const char *b) {
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL, *t = NULL;
  char sql[1024];
  int same = 1;
  if (sqlite3_open_v2(a, &h, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK)
    return 0;
  snprintf(sql, sizeof sql, "ATTACH '%s' AS other", b);
  if (sqlite3_exec(h, sql, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(h,
                         "SELECT name FROM main.sqlite_master WHERE type = 'table' AND name != "
                         "'audit' AND name NOT LIKE 'sqlite_%'",
                         -1, &q, NULL) != SQLITE_OK) {
    sqlite3_close(h);
    return 0;
  }
  while (same && sqlite3_step(q) == SQLITE_ROW) {
    const char *name = (const char *)sqlite3_column_text(q, 0);
    snprintf(sql, sizeof sql,
             "SELECT (SELECT count(*) FROM (SELECT * FROM main.\"%s\" EXCEPT SELECT * FROM "
             "other.\"%s\")) + (SELECT count(*) FROM (SELECT * FROM other.\"%s\" EXCEPT "
             "SELECT * FROM main.\"%s\")) + abs((SELECT count(*) FROM main.\"%s\") - "
             "(SELECT count(*) FROM other.\"%s\"))",
             name, name, name, name, name, name);
    same = sqlite3_prepare_v2(h, sql, -1, &t, NULL) == SQLITE_OK && sqlite3_step(t) == SQLITE_ROW &&
           sqlite3_column_int64(t, 0) == 0;
    sqlite3_finalize(t);
    t = NULL;
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  return same;
}

void tu_link_media(const char *db, const char *video, const char *sample, const char *start,
                   const char *end) {
  char *out = NULL, *err = NULL;
  int rc = start ? tu_rescue(&out, &err, "media", "add", db, video, "--sample", sample, "--start",
                             start, "--end", end, NULL)
                 : tu_rescue(&out, &err, "media", "add", db, video, "--sample", sample, NULL);
  ck_assert_msg(rc == 0, "%s%s", out, err);
  free(out);
  free(err);
}

double tu_ffprobe_duration(const char *path) {
  char cmd[4400], line[128] = "";
  FILE *p;
  double d = -1;
  snprintf(cmd, sizeof cmd, "ffprobe -v error -show_entries format=duration -of csv=p=0 '%s'",
           path);
  p = popen(cmd, "r");
  ck_assert_ptr_nonnull(p);
  if (fgets(line, sizeof line, p))
    d = atof(line);
  pclose(p);
  return d;
}

char *tu_make_media(const char *tag, int threads, ...) {
  rescue_synth_opts o;
  rescue_error e = RESCUE_ERROR_INIT;
  char tmpl[4096], *dir;
  const char *name, *ext;
  va_list ap;
  rescue_media_quiet();
  snprintf(tmpl, sizeof tmpl, "/tmp/rescue-%s-XXXXXX", tag);
  if (!mkdtemp(tmpl) || !(dir = strdup(tmpl))) {
    fprintf(stderr, "cannot make a folder for test media: %s\n", strerror(errno));
    return NULL;
  }
  va_start(ap, threads);
  while ((name = va_arg(ap, const char *)) != NULL) {
    rescue_synth_defaults(&o);
    o.threads = threads;
    ext = strrchr(name, '.');
    if (ext && strcmp(ext, ".ts") == 0)
      o.start_offset = 10;
    if (ext && strcmp(ext, ".m4a") == 0)
      o.width = 0;
    if (rescue_synth_media(tu_path(dir, name), &o, &e)) {
      fprintf(stderr, "cannot make test media %s: %s\n", name, e.msg);
      va_end(ap);
      rescue_remove_tree(dir);
      free(dir);
      return NULL;
    }
  }
  va_end(ap);
  return dir;
}

int tu_run_media_suite(Suite *s, char *media_dir) {
  int rc = tu_run_suite(s);
  if (rescue_remove_tree(media_dir) != 0)
    fprintf(stderr, "could not remove %s\n", media_dir);
  free(media_dir);
  return rc;
}

void tu_snapshot(const char *db, char *copy, size_t n) {
  size_t len;
  char *bytes = tu_read(db, &len);
  ck_assert_msg((size_t)snprintf(copy, n, "%s.before", db) < n, "path too long: %s", db);
  ck_assert_ptr_nonnull(bytes);
  tu_write_n(copy, bytes, len);
  free(bytes);
}

char *tu_run_err(int want, const char *const *argv) {
  char *out = NULL, *err = NULL;
  int rc = tu_rescue_argv(argv, &out, &err);
  ck_assert_msg(rc == want, "exit %d (want %d): %s%s", rc, want, out, err);
  free(out);
  return err;
}

/* Renumber rows from 1 and map each row's evidence references through map (old -> new). */
static void renumber(json_t *rows, int (*map)(int)) {
  size_t i, k;
  json_t *r, *e;
  json_array_foreach(rows, i, r) {
    json_t *ev = json_object_get(r, "relation_pattern_evidence_rows");
    json_object_set_new(r, "row_index", json_integer((json_int_t)i + 1));
    json_array_foreach(ev, k, e)
        json_array_set_new(ev, k, json_integer(map((int)json_integer_value(e))));
  }
}

static int merge_map(int x) { return x <= 7 ? x : x - 1; }
static int split_map(int x) { return x <= 6 ? x : x + 1; }

/* Set row `index` (1-based, after renumbering) key to a string. */
static void set_str(json_t *rows, int index, const char *key, const char *value) {
  json_object_set_new(json_array_get(rows, (size_t)index - 1), key, json_string(value));
}

/* Write sample s (one JSONL line) to dir/name. */
static void write_sample(const char *dir, const char *name, json_t *s) {
  char *text = json_dumps(s, JSON_PRESERVE_ORDER), *line = malloc(strlen(text) + 2);
  sprintf(line, "%s\n", text);
  tu_write(tu_path(dir, name), line);
  free(line);
  free(text);
}

char *tu_fixture_coders(void) {
  char *db = tu_new_corpus(), *dir = strdup(db), *text, *nl;
  json_t *draft, *c, *rows, *a, *b;
  json_error_t je;
  *strrchr(dir, '/') = 0;
  {
    const char *fx = tu_fixtures();
    char *path = malloc(strlen(fx) + 48);
    sprintf(path, "%s/rescue-bench/couple-first3.jsonl", fx);
    text = tu_read(path, NULL);
    free(path);
  }
  ck_assert_ptr_nonnull(text);
  if ((nl = strchr(text, '\n')))
    *nl = 0;
  draft = json_loads(text, JSON_DECODE_ANY, &je);
  ck_assert_msg(draft != NULL, "%s", je.text);
  free(text);
  write_sample(dir, "draft.jsonl", draft);
  /* ann: neither splits nor merges; relabels rows 2 and 9, retones row 5 */
  c = json_deep_copy(draft);
  rows = json_object_get(c, "rows");
  set_str(rows, 2, "utterance_type", "disclosure");
  set_str(rows, 5, "tone_of_voice", "flat");
  set_str(rows, 9, "utterance_type", "recollection");
  write_sample(dir, "ann.jsonl", c);
  json_decref(c);
  /* bob: merges rows 7 and 8 (both Evelyn's); row 9 (his 8) stays a disclosure */
  c = json_deep_copy(draft);
  rows = json_object_get(c, "rows");
  a = json_array_get(rows, 6);
  b = json_array_get(rows, 7);
  json_object_set(a, "end_time", json_object_get(b, "end_time"));
  {
    char joined[4096];
    snprintf(joined, sizeof joined, "%s %s",
             json_string_value(json_object_get(a, "dialogue_cleaned")),
             json_string_value(json_object_get(b, "dialogue_cleaned")));
    json_object_set_new(a, "dialogue_cleaned", json_string(joined));
  }
  json_array_remove(rows, 7);
  renumber(rows, merge_map);
  write_sample(dir, "bob.jsonl", c);
  json_decref(c);
  /* cat: splits row 6 at 37.5 s; relabels rows 2 and 9 (her 10) as ann did */
  c = json_deep_copy(draft);
  rows = json_object_get(c, "rows");
  a = json_array_get(rows, 5);
  b = json_deep_copy(a);
  json_object_set_new(a, "end_time", json_real(37.5));
  json_object_set_new(b, "start_time", json_real(37.5));
  {
    const char *d = json_string_value(json_object_get(a, "dialogue_cleaned"));
    const char *mid = strchr(d + strlen(d) / 2, ' ');
    ck_assert_ptr_nonnull(mid);
    json_object_set_new(b, "dialogue_cleaned", json_string(mid + 1));
    json_object_set_new(a, "dialogue_cleaned", json_stringn(d, (size_t)(mid - d)));
  }
  json_array_insert_new(rows, 6, b);
  renumber(rows, split_map);
  set_str(rows, 2, "utterance_type", "disclosure");
  set_str(rows, 10, "utterance_type", "recollection");
  write_sample(dir, "cat.jsonl", c);
  json_decref(c);
  json_decref(draft);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "draft.jsonl"), NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "ann", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "bob", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "cat", NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "lea", "--role", "lead", NULL), 0);
  ck_assert_int_eq(
      tu_rescue(NULL, NULL, "import", db, tu_path(dir, "ann.jsonl"), "--annotator", "ann", NULL),
      0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "bob.jsonl"), "--annotator",
                             "bob", "--resegment", NULL),
                   0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "cat.jsonl"), "--annotator",
                             "cat", "--resegment", NULL),
                   0);
  free(dir);
  return db;
}

char *tu_row_with(const rescue_jnode *row, const char *key, const char *raw) {
  rescue_buf b = RESCUE_BUF_INIT;
  const rescue_jnode *m;
  rescue_jw w;
  rescue_jw_init(&w, &b);
  rescue_jw_obj(&w);
  for (m = row->child; m; m = m->next) {
    rescue_jw_key(&w, m->key);
    if (strcmp(m->key, key) == 0)
      rescue_jw_raw(&w, raw, strlen(raw));
    else
      rescue_jw_node(&w, m);
  }
  rescue_jw_end(&w);
  ck_assert(rescue_buf_ok(&b));
  return rescue_buf_detach(&b);
}
