/*
** check_cluster.c: heavy jobs on a cluster (README "Running on a cluster"). A snapshot
** from `rescue backup` (read-only, chmod 0444) is read by 4 draft shards and 4 clip shards
** running at once as separate processes; their work is merged into the live corpus and
** compared with single runs: the model's exported view byte for byte, the provenance rows
** apart from their times, every clip's bytes and manifest, the clip records apart from
** their times. The snapshot's bytes never change. Every refusal of a merge (malformed or
** truncated answers files, a sample whose draft changed since the snapshot, a second
** merge) asserts its message and what it left unchanged. Also: backup refusals, clip
** --check (present, missing, stale) and clips remembered per output folder (issue 26
** item 11). The model is the stand-in tests/draft/model.py.
*/
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "testutil.h"

#define PY "/usr/bin/python3"
#define N_SAMPLES 8

static char model_cmd[1024];
static char ids[N_SAMPLES][128];
static int n_rows[N_SAMPLES];

static const char *model(const char *mode) {
  ck_assert_msg(access(PY, X_OK) == 0, "%s is needed by these tests (.ci/deps installs it)", PY);
  snprintf(model_cmd, sizeof model_cmd, "%s %s/tests/draft/model.py %s", PY, RESCUE_SOURCE_DIR,
           mode);
  return model_cmd;
}

/*
** A corpus of 8 samples (the two demo sessions of tools/demo, four copies of each under
** other sample ids), a model annotator "m", and every sample linked to one synthetic
** 60 s video in the corpus's folder. Returns the corpus path; *dir_out its folder.
*/
static char *cluster_corpus(char **dir_out) {
  static const char *const files[] = {"couple.jsonl", "family.jsonl"};
  char *db = tu_new_corpus(), *dir = strdup(db), path[4096];
  rescue_buf in = RESCUE_BUF_INIT;
  rescue_synth_opts so;
  rescue_error e = RESCUE_ERROR_INIT;
  int f, k, n = 0;
  *strrchr(dir, '/') = 0;
  for (f = 0; f < 2; f++) {
    char *text, *id, *end;
    snprintf(path, sizeof path, "%s/tools/demo/%s", RESCUE_SOURCE_DIR, files[f]);
    ck_assert_ptr_nonnull(text = tu_read(path, NULL));
    id = strstr(text, "\"sample_id\": \"") + 14;
    end = strchr(id, '"');
    for (k = 1; k <= 4; k++, n++) {
      const char *p;
      snprintf(ids[n], sizeof ids[n], "%.*s_v%d", (int)(end - id), id, k);
      rescue_buf_printf(&in, "%.*s%s%.*s", (int)(id - text), text, ids[n], (int)strcspn(end, "\n"),
                        end);
      rescue_buf_putc(&in, '\n');
      n_rows[n] = 0;
      for (p = end; (p = strstr(p, "\"row_index\"")) != NULL; p++)
        n_rows[n]++;
      if (n_rows[n] == 0)
        for (p = end; (p = strstr(p, "\"start_time\"")) != NULL; p++)
          n_rows[n]++;
    }
    free(text);
  }
  tu_write(tu_path(dir, "in.jsonl"), in.s);
  rescue_buf_clear(&in);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, tu_path(dir, "in.jsonl"), NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", db, "m", "--role", "model", NULL), 0);
  rescue_media_quiet();
  rescue_synth_defaults(&so);
  so.duration = 60;
  ck_assert_msg(rescue_synth_media(tu_path(dir, "src.mp4"), &so, &e) == 0, "%s", e.msg);
  for (k = 0; k < N_SAMPLES; k++)
    tu_link_media(db, tu_path(dir, "src.mp4"), ids[k], NULL, NULL);
  *dir_out = dir;
  return db;
}

/* Every row of a query, columns joined by '|', one line per row (caller frees). */
static char *query_text(const char *db, const char *sql) {
  sqlite3 *h = NULL;
  sqlite3_stmt *q = NULL;
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  ck_assert_int_eq(sqlite3_open_v2(db, &h, SQLITE_OPEN_READONLY, NULL), SQLITE_OK);
  ck_assert_msg(sqlite3_prepare_v2(h, sql, -1, &q, NULL) == SQLITE_OK, "%s", sqlite3_errmsg(h));
  while (sqlite3_step(q) == SQLITE_ROW) {
    for (i = 0; i < sqlite3_column_count(q); i++) {
      const char *t = (const char *)sqlite3_column_text(q, i);
      rescue_buf_printf(&b, "%s%s", i ? "|" : "", t ? t : "NULL");
    }
    rescue_buf_putc(&b, '\n');
  }
  sqlite3_finalize(q);
  sqlite3_close(h);
  if (!b.s)
    rescue_buf_puts(&b, "");
  return rescue_buf_detach(&b);
}

static long count(const char *db, const char *sql) {
  char *t = query_text(db, sql);
  long n = atol(t);
  free(t);
  return n;
}

/* The provenance of the model's work, apart from times: requests and the rows they wrote. */
static char *provenance(const char *db) {
  char *a = query_text(db, "SELECT s.sample_id, r.row_from, r.row_to, r.command, r.prompt_sha256, "
                           "r.attempts, r.exit_status, r.outcome, r.error, a.name FROM "
                           "model_request r JOIN sample s ON s.id = r.sample_ref JOIN annotator a "
                           "ON a.id = r.annotator_id ORDER BY 1, 2");
  char *b = query_text(db, "SELECT s.sample_id, r.row_from, v.row_id, v.content FROM "
                           "model_version m JOIN row_version v ON v.id = m.version_id JOIN "
                           "model_request r ON r.id = m.request_id JOIN sample s ON s.id = "
                           "r.sample_ref ORDER BY 1, 3");
  rescue_buf t = RESCUE_BUF_INIT;
  rescue_buf_printf(&t, "%s--\n%s", a, b);
  free(a);
  free(b);
  return rescue_buf_detach(&t);
}

/* The clip records, apart from times, with the output folder's path left out. */
static char *clip_records(const char *db, const char *out) {
  char sql[4600];
  snprintf(sql, sizeof sql,
           "SELECT s.sample_id, c.position, c.mode, c.segment_id, replace(c.path, '%s', ''), "
           "c.req_start, c.req_end, c.act_start, c.act_end, c.frames, c.audio_samples, c.bytes, "
           "c.sha256, c.row_id FROM clip c JOIN sample s ON s.id = c.sample_ref ORDER BY 1, 2",
           out);
  return query_text(db, sql);
}

/* The samples as one view shows them, as JSONL text (caller frees). */
static char *export_view(const char *db, const char *view, const char *dir) {
  const char *out = tu_path(dir, "view.jsonl");
  unlink(out);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "export", db, "--format", "samples", "--view", view,
                             "--out", out, "--force", NULL),
                   0);
  return tu_read(out, NULL);
}

/* Run the argument lists at once, each as its own rescue process; each must exit 0. */
static void run_parallel(const char *const argvs[][16], int n) {
  pid_t pids[16];
  int i, status;
  for (i = 0; i < n; i++) {
    pids[i] = fork();
    ck_assert_int_ge(pids[i], 0);
    if (pids[i] == 0)
      _exit(tu_rescue_argv(argvs[i], NULL, NULL));
  }
  for (i = 0; i < n; i++) {
    ck_assert_int_eq(waitpid(pids[i], &status, 0), pids[i]);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "process %d: status %d", i,
                  status);
  }
}

/* A consistent copy of db at path (rescue backup); fails the test when it fails. */
static void backup(const char *db, const char *path) {
  char *out = NULL, *err = NULL;
  ck_assert_msg(tu_rescue(&out, &err, "backup", db, path, NULL) == 0, "%s%s", out, err);
  free(out);
  free(err);
}

/* Every clip and manifest of the samples is the same file in folders a and b. */
static void same_clips(const char *a, const char *b) {
  int k, r;
  for (k = 0; k < N_SAMPLES; k++) {
    char pa[8192], pb[8192];
    snprintf(pa, sizeof pa, "%s/%s/manifest.json", a, ids[k]);
    snprintf(pb, sizeof pb, "%s/%s/manifest.json", b, ids[k]);
    ck_assert_msg(tu_same_file(pa, pb), "%s and %s differ", pa, pb);
    for (r = 1; r <= n_rows[k]; r++) {
      snprintf(pa, sizeof pa, "%s/%s/clips/%03d.mp4", a, ids[k], r);
      snprintf(pb, sizeof pb, "%s/%s/clips/%03d.mp4", b, ids[k], r);
      ck_assert_msg(tu_same_file(pa, pb), "%s and %s differ", pa, pb);
    }
  }
}

/* A merge that is refused: exit 1, the message, and the corpus exactly as before. */
static void merge_refused(const char *db, const char *file, const char *expect, const char *dir) {
  char *out = NULL, *err = NULL, *before, *after;
  size_t n1, n2;
  backup(db, tu_path(dir, "before.db"));
  before = tu_read(db, &n1);
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--merge", file, NULL), 1);
  ck_assert_msg(strstr(err, expect), "expected '%s' in: %s", expect, err);
  ck_assert_str_eq(out, "");
  after = tu_read(db, &n2);
  ck_assert(n1 == n2 && memcmp(before, after, n1) == 0);
  ck_assert(tu_same_corpus_except_log(db, tu_path(dir, "before.db")));
  unlink(tu_path(dir, "before.db"));
  free(before);
  free(after);
  free(out);
  free(err);
}

START_TEST(test_shards_equal_single_runs) {
  char *dir, *db = cluster_corpus(&dir), *out = NULL, *err = NULL, *snap_before, *snap_after;
  char snap[4096], single[4096], a[4][4096], shard[4][16], sh_out[4096], one_out[4096];
  const char *argvs[8][16];
  char *v1, *v2, *p1, *p2;
  size_t n1, n2;
  int i;
  snprintf(snap, sizeof snap, "%s", tu_path(dir, "snap.db"));
  snprintf(single, sizeof single, "%s", tu_path(dir, "single.db"));
  snprintf(sh_out, sizeof sh_out, "%s", tu_path(dir, "clips"));
  snprintf(one_out, sizeof one_out, "%s", tu_path(dir, "clips-one"));
  backup(db, snap);
  backup(db, single);
  ck_assert_int_eq(chmod(snap, 0444), 0);
  snap_before = tu_read(snap, &n1);
  model("perfect");
  /* 4 draft shards and 4 clip shards at once, on the one read-only snapshot */
  for (i = 0; i < 4; i++) {
    snprintf(a[i], sizeof a[i], "%s", tu_path(dir, "a0.jsonl"));
    a[i][strlen(a[i]) - 7] = (char)('1' + i);
    snprintf(shard[i], sizeof shard[i], "%d/4", i + 1);
    {
      const char *d[16] = {"draft",   snap,     "--annotator", "m",  "--model-cmd", model_cmd,
                           "--shard", shard[i], "--out",       a[i], NULL};
      const char *c[16] = {"clip", snap, "--out", sh_out, "--shard", shard[i], NULL};
      memcpy(argvs[i], d, sizeof d);
      memcpy(argvs[4 + i], c, sizeof c);
    }
  }
  run_parallel(argvs, 8);
  snap_after = tu_read(snap, &n2);
  ck_assert(n1 == n2 && memcmp(snap_before, snap_after, n1) == 0);
  {
    struct stat sb;
    ck_assert_int_ne(stat(tu_path(dir, "snap.db-wal"), &sb), 0);
  }
  /* the single runs */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", single, "--annotator", "m", "--model-cmd",
                             model_cmd, "--jobs", "2", NULL),
                   0);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "clip", single, "--out", one_out, NULL), 0);
  /* the merges */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--merge", a[0], a[1], a[2], a[3], NULL), 0);
  ck_assert_msg(strstr(out, "4 answers files, 8 requests: 8 merged, 0 merged before, 0 refused"),
                "%s%s", out, err);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", sh_out, "--check", NULL), 0);
  ck_assert_msg(strstr(out, "clips present, 0 missing, 0 stale"), "%s", out);
  free(out);
  free(err);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM clip"), 0); /* shards recorded nothing */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", sh_out, NULL), 0);
  ck_assert_msg(strstr(out, "8 samples: 8 done, 0 failed, 0 without media; 0 clips written"), "%s",
                out);
  free(out);
  free(err);
  /* equal to the single runs */
  v1 = export_view(db, "annotator:m", dir);
  v2 = export_view(single, "annotator:m", dir);
  ck_assert_str_eq(v1, v2);
  free(v1);
  free(v2);
  p1 = provenance(db);
  p2 = provenance(single);
  ck_assert_int_eq(count(db, "SELECT count(*) FROM model_request"), N_SAMPLES);
  ck_assert_str_eq(p1, p2);
  free(p1);
  free(p2);
  same_clips(sh_out, one_out);
  p1 = clip_records(db, sh_out);
  p2 = clip_records(single, one_out);
  ck_assert_str_eq(p1, p2);
  ck_assert_int_gt((long)strlen(p1), 100);
  free(p1);
  free(p2);

  /* merging again adds nothing */
  ck_assert_int_eq(tu_rescue(&out, &err, "draft", db, "--merge", a[0], a[2], NULL), 0);
  ck_assert_msg(strstr(out, "2 answers files, 4 requests: 0 merged, 4 merged before, 0 refused; "
                            "0 rows stored"),
                "%s", out);
  free(out);
  free(err);
  p1 = provenance(db);
  p2 = provenance(single);
  ck_assert_str_eq(p1, p2);
  free(p1);
  free(p2);

  /* refusals, on the corpus before any merge (a fresh copy of the snapshot) */
  {
    char fresh[4096], bad[4096], *text, *nl;
    size_t len;
    snprintf(fresh, sizeof fresh, "%s", tu_path(dir, "fresh.db"));
    backup(snap, fresh);
    /* the first command that writes puts a copy back in WAL mode: do that first, with a
       second person */
    ck_assert_int_eq(tu_rescue(NULL, NULL, "annotator", "add", fresh, "carl", NULL), 0);
    snprintf(bad, sizeof bad, "%s", tu_path(dir, "bad.jsonl"));
    text = tu_read(a[0], &len);
    /* a malformed line: line 2 cut short and closed */
    nl = strchr(strchr(text, '\n') + 1, '\n');
    {
      rescue_buf b = RESCUE_BUF_INIT;
      const char *l2 = strchr(text, '\n') + 1;
      rescue_buf_printf(&b, "%.*s%.*s\n%s", (int)(l2 - text), text, 40, l2, nl + 1);
      tu_write(bad, b.s);
      rescue_buf_clear(&b);
    }
    merge_refused(fresh, bad, "bad.jsonl:2:", dir);
    merge_refused(fresh, bad, "not JSON", dir);
    /* truncated: the closing line lost */
    tu_write_n(bad, text, (size_t)(strrchr(text, '{') - text));
    merge_refused(fresh, bad, "bad.jsonl:3: the file ends without its closing line", dir);
    /* truncated in the middle of a line */
    tu_write_n(bad, text, (size_t)(nl - text) - 10);
    merge_refused(fresh, bad, "bad.jsonl:2: the line is cut off", dir);
    /* not an answers file */
    tu_write(bad, "{\"end\": true, \"requests\": 0}\n");
    merge_refused(fresh, bad, "bad.jsonl:1: not an answers file", dir);
    free(text);
    ck_assert_int_eq(count(fresh, "SELECT count(*) FROM model_request"), 0);

    /* a sample whose draft changed since the snapshot: refused alone, the rest merge */
    {
      char *in = tu_read(tu_path(dir, "in.jsonl"), NULL), *line = in, *end;
      char changed_id[160];
      rescue_buf b = RESCUE_BUF_INIT;
      /* the first sample of shard 1's file, with its first row's text changed */
      char *a1 = tu_read(a[0], NULL), *sid = strstr(a1, "\"sample_id\": \"") + 14;
      snprintf(changed_id, sizeof changed_id, "%.*s", (int)(strchr(sid, '"') - sid), sid);
      for (; *line; line = end + 1) {
        end = strchr(line, '\n');
        if (strstr(line, changed_id) && strstr(line, changed_id) < end &&
            strstr(line, "\"dialogue_cleaned\": \"")) {
          char *dc = strstr(line, "\"dialogue_cleaned\": \"") + 21;
          rescue_buf_printf(&b, "%.*sEDITED %.*s\n", (int)(dc - line), line, (int)(end - dc), dc);
        }
      }
      tu_write(tu_path(dir, "edit.jsonl"), b.s);
      rescue_buf_clear(&b);
      ck_assert_int_eq(tu_rescue(NULL, NULL, "import", fresh, tu_path(dir, "edit.jsonl"), NULL), 0);
      ck_assert_int_eq(tu_rescue(&out, &err, "draft", fresh, "--merge", a[0], a[1], NULL), 1);
      {
        char want[600];
        snprintf(want, sizeof want,
                 "a1.jsonl:2: sample '%s': its draft changed since the snapshot the shard read; "
                 "its answers were not merged (draft it again)",
                 changed_id);
        ck_assert_msg(strstr(err, want), "%s", err);
      }
      ck_assert_msg(strstr(out, "4 requests: 3 merged, 0 merged before, 1 refused"), "%s", out);
      free(out);
      free(err);
      {
        char sql[400];
        snprintf(sql, sizeof sql,
                 "SELECT count(*) FROM model_request r JOIN sample s ON s.id = r.sample_ref "
                 "WHERE s.sample_id = '%s'",
                 changed_id);
        ck_assert_int_eq(count(fresh, sql), 0);
      }
      ck_assert_int_eq(count(fresh, "SELECT count(*) FROM model_request"), 3);
      free(in);
      free(a1);
    }
  }
  free(snap_before);
  free(snap_after);
  free(db);
  free(dir);
}
END_TEST

START_TEST(test_backup) {
  char *dir, *db = tu_new_corpus(), *out = NULL, *err = NULL, *v1, *v2, path[4200];
  dir = strdup(db);
  *strrchr(dir, '/') = 0;
  snprintf(path, sizeof path, "%s/tools/demo/couple.jsonl", RESCUE_SOURCE_DIR);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "import", db, path, NULL), 0);
  ck_assert_int_eq(tu_rescue(&out, &err, "backup", db, tu_path(dir, "copy.db"), NULL), 0);
  ck_assert_msg(strstr(out, "copied to"), "%s", out);
  free(out);
  free(err);
  /* a self-contained file: rollback journal, not WAL (until a command writes to it) */
  v1 = query_text(tu_path(dir, "copy.db"), "PRAGMA journal_mode");
  ck_assert_str_eq(v1, "delete\n");
  free(v1);
  ck_assert(tu_same_corpus_except_log(db, tu_path(dir, "copy.db")));
  v1 = export_view(db, "latest", dir);
  v2 = export_view(tu_path(dir, "copy.db"), "latest", dir);
  ck_assert_str_eq(v1, v2);
  free(v1);
  free(v2);
  /* an existing file is refused, untouched */
  tu_write(tu_path(dir, "taken.db"), "mine");
  ck_assert_int_eq(tu_rescue(&out, &err, "backup", db, tu_path(dir, "taken.db"), NULL), 1);
  ck_assert_msg(strstr(err, "taken.db' already exists (a backup is a new file)"), "%s", err);
  free(out);
  free(err);
  v1 = tu_read(tu_path(dir, "taken.db"), NULL);
  ck_assert_str_eq(v1, "mine");
  free(v1);
  free(db);
  free(dir);
}
END_TEST

/* clip --check, and clips remembered per output folder (issue 26 item 11). */
START_TEST(test_clip_check_and_folders) {
  char *dir, *db = cluster_corpus(&dir), *out = NULL, *err = NULL, a[4096], b[4096], p[4400];
  long total = 0;
  int k;
  for (k = 0; k < N_SAMPLES; k++)
    total += n_rows[k];
  snprintf(a, sizeof a, "%s", tu_path(dir, "A"));
  snprintf(b, sizeof b, "%s", tu_path(dir, "B"));
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", a, "--check", NULL), 0);
  snprintf(p, sizeof p, "8 samples (0 without media): 0 clips present, %ld missing, 0 stale\n",
           total);
  ck_assert_str_eq(out, p);
  free(out);
  free(err);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "clip", db, "--out", a, NULL), 0);
  ck_assert_int_eq(tu_rescue(NULL, NULL, "clip", db, "--out", b, NULL), 0);
  /* a second copy elsewhere does not make the first folder's clips stale */
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", a, NULL), 0);
  snprintf(p, sizeof p, "0 clips written, %ld kept from an earlier run", total);
  ck_assert_msg(strstr(out, p), "%s", out);
  free(out);
  free(err);
  /* one clip gone, one overwritten: missing and stale, nothing written */
  snprintf(p, sizeof p, "%s/%s/clips/001.mp4", a, ids[0]);
  ck_assert_int_eq(unlink(p), 0);
  snprintf(p, sizeof p, "%s/%s/clips/002.mp4", a, ids[1]);
  tu_write(p, "not a clip");
  ck_assert_int_eq(tu_rescue(&out, &err, "clip", db, "--out", a, "--check", "--json", NULL), 0);
  snprintf(p, sizeof p,
           "{\"samples\": 8, \"samples_without_media\": 0, \"clips_present\": %ld, "
           "\"clips_missing\": 1, \"clips_stale\": 1}\n",
           total - 2);
  ck_assert_str_eq(out, p);
  free(out);
  free(err);
  snprintf(p, sizeof p, "%s/%s/clips/001.mp4", a, ids[0]);
  ck_assert_int_ne(access(p, F_OK), 0);
  free(db);
  free(dir);
}
END_TEST

int main(void) {
  Suite *s = suite_create("cluster");
  TCase *tc = tcase_create("cluster");
  tcase_set_timeout(tc, 500);
  tcase_add_test(tc, test_backup);
  tcase_add_test(tc, test_clip_check_and_folders);
  tcase_add_test(tc, test_shards_equal_single_runs);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
