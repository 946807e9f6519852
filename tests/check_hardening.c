/*
** check_hardening.c: hostile input around the store: special files given to `media add`
** and the file readers, a source probed once per map, values the store cannot hold,
** sample ids the exporters and the clip layout could not write, huge sets and many coders
** in `agree --input`, `export --force` and leftovers of killed exports, control characters
** in messages, and a byte order mark before a TSV header.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <sqlite3.h>

#include "rescue_import.h"
#include "store_int.h"
#include "testutil.h"

static char *media_dir; /* made once in main(): src.mp4 */

/* Make a listening-free Unix socket file at path. */
static void make_socket(const char *path) {
  struct sockaddr_un a;
  int fd = socket(AF_UNIX, SOCK_STREAM, 0);
  ck_assert_int_ge(fd, 0);
  memset(&a, 0, sizeof a);
  a.sun_family = AF_UNIX;
  ck_assert_uint_lt(strlen(path), sizeof a.sun_path);
  strcpy(a.sun_path, path);
  ck_assert_msg(bind(fd, (struct sockaddr *)&a, sizeof a) == 0, "bind: %s", strerror(errno));
  close(fd);
}

/* ---- 3: special files ---- */

/*
** A FIFO, a device, a folder and a socket given as a video, as a map line's video, or as
** the map itself are refused by kind before anything opens them (a FIFO used to block
** forever in open()); the corpus is left byte for byte as it was.
*/
START_TEST(test_media_add_special_files) {
  char *dir = tu_tmpdir(), *db = NULL, copy[4096], sock[256], fifo[4096];
  static const struct {
    const char *name, *kind;
  } kinds[] = {
      {"f.mp4", "named pipe"}, {"/dev/null", "device"}, {"d.mp4", "folder"}, {NULL, "socket"}};
  size_t i;
  char *out = NULL, *err = NULL;
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "c.db"), NULL), 0);
  free(out);
  free(err);
  db = strdup(tu_path(dir, "c.db"));
  snprintf(fifo, sizeof fifo, "%s", tu_path(dir, "f.mp4"));
  ck_assert_int_eq(mkfifo(fifo, 0600), 0);
  ck_assert_int_eq(mkdir(tu_path(dir, "d.mp4"), 0700), 0);
  /* sun_path is short: the socket goes in a short folder of its own */
  snprintf(sock, sizeof sock, "/tmp/rescue-sock-%ld", (long)getpid());
  unlink(sock);
  make_socket(sock);
  tu_snapshot(db, copy, sizeof copy);
  for (i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
    char video[4096];
    const char *argv[] = {"media", "add", db, video, "--sample", "g/x", NULL};
    const char *margv[] = {"media", "add", db, "--map", NULL, NULL};
    if (!kinds[i].name)
      snprintf(video, sizeof video, "%s", sock);
    else if (kinds[i].name[0] == '/')
      snprintf(video, sizeof video, "%s", kinds[i].name);
    else
      snprintf(video, sizeof video, "%s", tu_path(dir, kinds[i].name));
    err = tu_run_err(1, argv);
    ck_assert_msg(strstr(err, kinds[i].kind) && strstr(err, video), "%s: %s", kinds[i].kind, err);
    free(err);
    ck_assert_msg(tu_same_file(db, copy), "%s changed the store", kinds[i].kind);
    /* the same file named by a map line */
    {
      char line[4200];
      snprintf(line, sizeof line, "g/x\t%s\t\t\n", video);
      tu_write(tu_path(dir, "map.tsv"), line);
      margv[4] = tu_path(dir, "map.tsv");
      err = tu_run_err(1, margv);
      ck_assert_msg(strstr(err, "map.tsv:1:5: ") && strstr(err, kinds[i].kind), "%s", err);
      free(err);
    }
    /* and as the map itself */
    margv[4] = video;
    err = tu_run_err(1, margv);
    ck_assert_msg(strstr(err, kinds[i].kind), "map %s: %s", kinds[i].kind, err);
    free(err);
    ck_assert_msg(tu_same_file(db, copy), "%s changed the store", kinds[i].kind);
  }
  /* import and init --scheme read files the same way */
  {
    const char *argv[] = {"import", db, fifo, "--format", "json", "--sample", "g/y", NULL};
    err = tu_run_err(2, argv); /* (refused with the reason as a usage error) */
    ck_assert_msg(strstr(err, "pipe"), "%s", err);
    free(err);
  }
  {
    const char *argv[] = {"init", tu_path(dir, "d.db"), "--scheme", fifo, NULL};
    err = tu_run_err(1, argv);
    ck_assert_msg(strstr(err, "named pipe"), "%s", err);
    free(err);
  }
  unlink(sock);
  free(db);
  free(dir);
}
END_TEST

/*
** A map naming one video on many lines probes it once (it used to probe it once per line:
** 8,000 lines took a minute): the report counts one source probed.
*/
START_TEST(test_map_probes_once) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, link[4096];
  rescue_buf map = RESCUE_BUF_INIT;
  int i;
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "c.db"), NULL), 0);
  free(out);
  free(err);
  /* a second name (symlink) of the same file is the same source too */
  snprintf(link, sizeof link, "%s", tu_path(dir, "alias.mp4"));
  ck_assert_int_eq(symlink(tu_path(media_dir, "src.mp4"), link), 0);
  rescue_buf_puts(&map, "sample_id\tvideo\tstart\tend\n");
  for (i = 0; i < 3000; i++)
    rescue_buf_printf(&map, "g/s%d\t%s\t%d.%03d\t%d.5\n", i,
                      i % 2 ? link : tu_path(media_dir, "src.mp4"), i % 3, i % 1000, i % 3 + 1);
  tu_write(tu_path(dir, "map.tsv"), map.s);
  rescue_buf_clear(&map);
  ck_assert_int_eq(tu_rescue(&out, &err, "media", "add", tu_path(dir, "c.db"), "--map",
                             tu_path(dir, "map.tsv"), NULL),
                   0);
  ck_assert_msg(strstr(out, "1 source probed (1 new, 0 already known); 3000 samples linked"),
                "%s%s", out, err);
  free(out);
  free(err);
  free(dir);
}
END_TEST

/* ---- 4: values the store cannot hold ---- */

/*
** Import into a corpus whose handle holds at most `limit` bytes per value (SQLite's
** length limit, lowered on the handle so the test needs no gigabyte): returns the
** import's code, the message in msg.
*/
static int import_limited(const char *db, const char *path, int limit, char *msg, size_t n) {
  rescue_store *st = NULL;
  rescue_error e = RESCUE_ERROR_INIT;
  rescue_import_opts o = {0};
  const char *paths[1];
  int rc;
  ck_assert_int_eq(rescue_store_open(&st, db, 0, &e), 0);
  sqlite3_limit(rescue_store_db(st), SQLITE_LIMIT_LENGTH, limit);
  o.format = RESCUE_FMT_AUTO;
  paths[0] = path;
  rc = rescue_import(st, paths, 1, &o, NULL);
  snprintf(msg, n, "%s", rescue_store_err(st)->msg);
  rescue_store_close(&st);
  return rc;
}

/*
** A value longer than the store holds (a row, the sample's other members, a whole line or
** file) is refused by the checking pass with the limit named, and the corpus file stays
** byte for byte as it was (a 1 GB string used to pass the check and fail in the write
** with "NOT NULL constraint failed", changing two bytes of the file's header).
*/
START_TEST(test_values_past_the_limit) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, db[4096], copy[4096], msg[1100];
  rescue_buf big = RESCUE_BUF_INIT, line = RESCUE_BUF_INIT;
  static const struct {
    const char *where, *file, *msg;
  } cases[] = {
      {"row", "row.jsonl", "row.jsonl:1:33: sample 'g/big': row 1 is 12"},
      {"head", "head.jsonl", "head.jsonl:1:33: sample 'g/big' is 12"},
      {"line", "line.jsonl", "line.jsonl:2: the line is longer than 100000 bytes"},
      {"file", "big.json", "big.json: the file is longer than 100000 bytes"},
  };
  size_t i;
  int k;
  snprintf(db, sizeof db, "%s", tu_path(dir, "c.db"));
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 0);
  free(out);
  free(err);
  tu_write(tu_path(dir, "ok.jsonl"), "{\"sample_id\": \"g/ok\", \"rows\": []}\n");
  ck_assert_int_eq(import_limited(db, tu_path(dir, "ok.jsonl"), 100000, msg, sizeof msg), 0);
  /*
  ** Compact JSON grows in the canonical form the store keeps (", " between elements): a
  ** line of 80,000 bytes holds a value of 120,000.
  */
  rescue_buf_putc(&big, '[');
  for (k = 0; k < 40000; k++)
    rescue_buf_puts(&big, k ? ",1" : "1");
  rescue_buf_putc(&big, ']');
  /* a row */
  rescue_buf_printf(&line,
                    "{\"sample_id\": \"g/big\", \"rows\": [{\"start_time\": 0, "
                    "\"end_time\": 1, \"target\": [], \"x\": %s}]}\n",
                    big.s);
  tu_write(tu_path(dir, "row.jsonl"), line.s);
  /* a sample member outside the rows */
  rescue_buf_reset(&line);
  rescue_buf_printf(&line, "{\"sample_id\": \"g/big\", \"notes\": %s, \"rows\": []}\n", big.s);
  tu_write(tu_path(dir, "head.jsonl"), line.s);
  rescue_buf_reset(&big);
  for (k = 0; k < 150000; k++)
    rescue_buf_putc(&big, (char)('a' + k % 26));
  /* a line of many small rows, longer than the limit */
  rescue_buf_reset(&line);
  rescue_buf_puts(&line, "{\"sample_id\": \"g/one\", \"rows\": []}\n{\"sample_id\": \"g/two\", "
                         "\"rows\": [");
  for (k = 0; k < 3000; k++)
    rescue_buf_printf(&line, "%s{\"start_time\": %d, \"end_time\": %d, \"target\": []}",
                      k ? ", " : "", k, k + 1);
  rescue_buf_puts(&line, "]}\n");
  tu_write(tu_path(dir, "line.jsonl"), line.s);
  /* a single-sample file */
  rescue_buf_reset(&line);
  rescue_buf_printf(&line, "{\"sample_id\": \"g/f\", \"x\": \"%s\", \"rows\": []}", big.s);
  tu_write(tu_path(dir, "big.json"), line.s);
  ck_assert(rescue_buf_ok(&line) && rescue_buf_ok(&big));
  rescue_buf_clear(&line);
  rescue_buf_clear(&big);
  tu_snapshot(db, copy, sizeof copy);
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int rc = import_limited(db, tu_path(dir, cases[i].file), 100000, msg, sizeof msg);
    ck_assert_msg(rc == RESCUE_EBADINPUT, "%s: %d %s", cases[i].where, rc, msg);
    ck_assert_msg(strstr(msg, cases[i].msg) && strstr(msg, "100000 bytes"), "%s: %s",
                  cases[i].where, msg);
    ck_assert_msg(tu_same_file(db, copy), "%s changed the corpus file", cases[i].where);
  }
  /* under the default limit the same row imports */
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "row.jsonl"), NULL), 0);
  free(out);
  free(err);
  free(dir);
}
END_TEST

/* ---- 5: sample ids the exporters and the clip layout could not write ---- */

/*
** Ids whose files a data-root export or the clip folder layout could not write, or a
** data-root import would not read back, are refused by the import's checking pass (they
** used to import, and then broke `export --format data-root` for the whole corpus).
*/
START_TEST(test_id_rules) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, copy[4096], long_id[600];
  static const struct {
    const char *id, *why;
  } bad[] = {{".hidden/x", "starts with '.'"}, {"g/.x", "starts with '.'"},
             {"g/manifest", "reserved"},       {"g/clips/s1", "reserved"},
             {"g/manifest.json", "reserved"},  {"g/segment.mp4", "reserved"},
             {NULL, "longer than 250 bytes"}};
  size_t i;
  const char *db;
  memset(long_id, 'a', 2);
  long_id[2] = '/';
  memset(long_id + 3, 'b', 251);
  long_id[254] = 0;
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "c.db"), NULL), 0);
  free(out);
  free(err);
  db = strdup(tu_path(dir, "c.db"));
  tu_write(tu_path(dir, "ok.jsonl"), "{\"sample_id\": \"g/s1\", \"rows\": []}\n");
  tu_snapshot(db, copy, sizeof copy);
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *id = bad[i].id ? bad[i].id : long_id;
    char *line = malloc(strlen(id) + 64);
    const char *argv[] = {"import", db, tu_path(dir, "ok.jsonl"), tu_path(dir, "bad.jsonl"), NULL};
    const char *margv[] = {"media", "add", db, tu_path(media_dir, "src.mp4"), "--sample", id, NULL};
    sprintf(line, "{\"sample_id\": \"%s\", \"rows\": []}\n", id);
    tu_write(tu_path(dir, "bad.jsonl"), line);
    free(line);
    err = tu_run_err(1, argv);
    ck_assert_msg(strstr(err, "bad.jsonl:1:15: unsafe sample_id") && strstr(err, bad[i].why),
                  "%s: %s", id, err);
    free(err);
    ck_assert_msg(tu_same_file(db, copy), "%s changed the store", id);
    err = tu_run_err(1, margv);
    ck_assert_msg(strstr(err, "unsafe sample_id") && strstr(err, bad[i].why), "%s: %s", id, err);
    free(err);
    ck_assert_msg(tu_same_file(db, copy), "%s changed the store", id);
  }
  /* at the limits: a 250-byte component, a dot inside a name, 'clips' inside a name */
  long_id[253] = 0;
  {
    char *line = malloc(strlen(long_id) + 200);
    sprintf(line,
            "{\"sample_id\": \"%s\", \"rows\": []}\n"
            "{\"sample_id\": \"g/a.b..c\", \"rows\": []}\n"
            "{\"sample_id\": \"g/myclips/manifests\", \"rows\": []}\n",
            long_id);
    tu_write(tu_path(dir, "fine.jsonl"), line);
    free(line);
  }
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "fine.jsonl"), NULL), 0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "export", db, "--format", "data-root", "--out",
                             tu_path(dir, "root"), NULL),
                   0);
  free(out);
  free(err);
  free((char *)db);
  free(dir);
}
END_TEST

/* ---- 6: huge sets, many coders ---- */

/*
** One 200,000-element set per coder: sets used to be sorted by insertion (one did not
** finish in two minutes); now O(n log n). Elements are written in descending order, the
** worst case for an insertion sort. The 1-element difference between the two sets gives
** known distances: Jaccard 1/200000, MASI 1 - (199999/200000) * 2/3.
*/
START_TEST(test_huge_sets) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  rescue_buf t = RESCUE_BUF_INIT;
  int i, c, lvl;
  for (c = 0; c < 2; c++) {
    rescue_buf_printf(&t, "big\t%s\t[", c ? "b" : "a");
    for (i = 200000 - 1; i >= c; i--)
      rescue_buf_printf(&t, "%s\"e%06d\"", i == 200000 - 1 ? "" : ",", i);
    rescue_buf_puts(&t, "]\n");
  }
  rescue_buf_puts(&t, "u2\ta\t[\"x\"]\nu2\tb\t[\"y\"]\n");
  ck_assert(rescue_buf_ok(&t));
  tu_write(tu_path(dir, "sets.tsv"), t.s);
  rescue_buf_clear(&t);
  for (lvl = 0; lvl < 2; lvl++) {
    ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", tu_path(dir, "sets.tsv"), "--level",
                               lvl ? "jaccard" : "masi", "--json", NULL),
                     0);
    ck_assert_msg(strstr(out, "\"units\": 2"), "%s%s", out, err);
    free(out);
    free(err);
  }
  free(dir);
}
END_TEST

/*
** 70,000 coders (each unit coded by two of them): more than 65,536 used to be reported as
** "out of memory", and 5,000 took 1.85 GB for the pairwise kappas. The coefficients come
** out; pairwise kappas are left out past what can be held, and the report says so.
*/
START_TEST(test_many_coders) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  rescue_buf t = RESCUE_BUF_INIT;
  int u;
  for (u = 0; u < 35000; u++)
    rescue_buf_printf(&t, "u%d\tc%d\t%d\nu%d\tc%d\t%d\n", u, 2 * u, u % 3, u, 2 * u + 1,
                      u % 7 ? u % 3 : (u + 1) % 3);
  tu_write(tu_path(dir, "coders.tsv"), t.s);
  rescue_buf_clear(&t);
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", tu_path(dir, "coders.tsv"), "--level",
                             "nominal", "--json", NULL),
                   0);
  ck_assert_msg(strstr(out, "\"units\": 35000") && strstr(out, "\"alpha\": 0.7") &&
                    strstr(out, "\"pairwise_left_out\": 2449965000"),
                "%.2000s%s", out, err);
  free(out);
  free(err);
  free(dir);
}
END_TEST

/* ---- 8: control characters in messages, a BOM before a TSV header ---- */

/*
** Messages quote file names, subtitle lines and TSV unit names: their control characters
** are escaped (\u001b), never sent raw to the terminal.
*/
START_TEST(test_messages_escape_controls) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, name[4096];
  const char *db;
  size_t i;
  ck_assert_int_eq(tu_rescue(&out, &err, "init", tu_path(dir, "c.db"), NULL), 0);
  free(out);
  free(err);
  db = strdup(tu_path(dir, "c.db"));
  /* a file name */
  snprintf(name, sizeof name, "%s", tu_path(dir, "\x1b[2Jx.jsonl"));
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, name, NULL), 1);
  ck_assert_msg(strstr(err, "\\u001b[2Jx.jsonl"), "%s", err);
  for (i = 0; err[i]; i++)
    ck_assert_msg((unsigned char)err[i] >= 0x20 || err[i] == '\n', "raw control in: %s", err);
  free(out);
  free(err);
  /* a subtitle line */
  tu_write(tu_path(dir, "s.srt"), "1\n\x1b]0;pwned\x07 not a timing line\n\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "import", db, tu_path(dir, "s.srt"), "--sample", "g/s", NULL), 1);
  ck_assert_msg(strstr(err, "\\u001b]0;pwned\\u0007"), "%s", err);
  for (i = 0; err[i]; i++)
    ck_assert_msg((unsigned char)err[i] >= 0x20 || err[i] == '\n', "raw control in: %s", err);
  free(out);
  free(err);
  /* a TSV unit name (a coder giving a unit two values), and a C1 control (U+009B, CSI) */
  tu_write(tu_path(dir, "a.tsv"), "\x1b[31mu\xc2\x9b\ta\t1\n\x1b[31mu\xc2\x9b\ta\t2\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "agree", "--input", tu_path(dir, "a.tsv"), "--level", "nominal", NULL),
      1);
  ck_assert_msg(strstr(err, "unit '\\u001b[31mu\\u009b'"), "%s", err);
  for (i = 0; err[i]; i++)
    ck_assert_msg((unsigned char)err[i] >= 0x20 || err[i] == '\n', "raw control in: %s", err);
  ck_assert_msg(!strstr(err, "\xc2\x9b"), "%s", err);
  free(out);
  free(err);
  free((char *)db);
  free(dir);
}
END_TEST

/* A TSV header after a UTF-8 byte order mark is a header (it was read as data). */
START_TEST(test_tsv_bom_header) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL;
  tu_write(tu_path(dir, "b.tsv"), "\xef\xbb\xbfunit\tcoder\tvalue\nu1\ta\t1\nu1\tb\t2\n"
                                  "u2\ta\t3\nu2\tb\t3\nu3\ta\t1\nu3\tb\t1\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "agree", "--input", tu_path(dir, "b.tsv"), "--level",
                             "interval", "--json", NULL),
                   0);
  ck_assert_msg(strstr(out, "\"units\": 3"), "%s%s", out, err);
  free(out);
  free(err);
  free(dir);
}
END_TEST

/* ---- 7: --force and leftovers ---- */

/*
** --force replaces rescue's own output only: a user's notes.txt given as --out stays (it
** used to be overwritten). A samples export of rescue's is replaced.
*/
START_TEST(test_force_refuses_foreign_files) {
  char *dir = tu_tmpdir(), *out = NULL, *err = NULL, *text, db[4096], notes[4096];
  snprintf(db, sizeof db, "%s", tu_path(dir, "c.db"));
  snprintf(notes, sizeof notes, "%s", tu_path(dir, "notes.txt"));
  ck_assert_int_eq(tu_rescue(&out, &err, "init", db, NULL), 0);
  free(out);
  free(err);
  tu_write(tu_path(dir, "a.jsonl"), "{\"sample_id\": \"g/s1\", \"rows\": []}\n");
  ck_assert_int_eq(tu_rescue(&out, &err, "import", db, tu_path(dir, "a.jsonl"), NULL), 0);
  free(out);
  free(err);
  tu_write(notes, "my notes: call Ana on Monday\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", notes, "--force", NULL),
      1);
  ck_assert_msg(strstr(err, "notes.txt' was not written by rescue"), "%s", err);
  free(out);
  free(err);
  text = tu_read(notes, NULL);
  ck_assert_str_eq(text, "my notes: call Ana on Monday\n");
  free(text);
  /* an earlier samples export is rescue's: replaced */
  tu_write(notes, "{\"sample_id\": \"old/x\", \"rows\": []}\n");
  ck_assert_int_eq(
      tu_rescue(&out, &err, "export", db, "--format", "samples", "--out", notes, "--force", NULL),
      0);
  free(out);
  free(err);
  text = tu_read(notes, NULL);
  ck_assert_msg(strstr(text, "g/s1") && !strstr(text, "old/x"), "%s", text);
  free(text);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("hardening");
  TCase *tc = tcase_create("hardening");
  media_dir = tu_make_media("hard", 0, "src.mp4", NULL);
  if (!media_dir)
    return 1;
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, test_media_add_special_files);
  tcase_add_test(tc, test_map_probes_once);
  tcase_add_test(tc, test_values_past_the_limit);
  tcase_add_test(tc, test_id_rules);
  tcase_add_test(tc, test_huge_sets);
  tcase_add_test(tc, test_many_coders);
  tcase_add_test(tc, test_messages_escape_controls);
  tcase_add_test(tc, test_tsv_bom_header);
  tcase_add_test(tc, test_force_refuses_foreign_files);
  suite_add_tcase(s, tc);
  return tu_run_media_suite(s, media_dir); /* and removes the generated sources */
}
