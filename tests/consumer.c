/*
** consumer.c: a program written against the public headers alone, as a user outside the
** tree would write it: compiled with <build>/include as its only include folder and linked
** to librescue.so, which exports only the public API. It creates a corpus, imports two
** samples, saves one row version as a second annotator (rescue_import_edits), exports the
** corpus and the task datasets, and computes agreement; each step's result is checked.
** Usage: consumer <scratch folder>. Exit 0 when every check holds.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rescue/rescue.h>

static int failures;

#define CHECK(cond, ...)                                                                           \
  do {                                                                                             \
    if (!(cond)) {                                                                                 \
      fprintf(stderr, "consumer: %s:%d: ", __FILE__, __LINE__);                                    \
      fprintf(stderr, __VA_ARGS__);                                                                \
      fputc('\n', stderr);                                                                         \
      failures++;                                                                                  \
      goto end;                                                                                    \
    }                                                                                              \
  } while (0)

static const char sample_a[] =
    "{\"sample_id\": \"pat_and_sam/s01\", \"rows\": ["
    "{\"start_time\": 0.0, \"end_time\": 2.0, \"primary_speaker\": \"Pat\", \"target\": "
    "[\"Sam\"], \"dialogue_cleaned\": \"You never listen.\", \"utterance_type\": "
    "\"accusation\"}, "
    "{\"start_time\": 2.0, \"end_time\": 4.5, \"primary_speaker\": \"Sam\", \"target\": "
    "[\"Pat\"], \"dialogue_cleaned\": \"I do listen.\", \"utterance_type\": \"defense\"}]}";
static const char sample_b[] =
    "{\"sample_id\": \"pat_and_sam/s02\", \"rows\": ["
    "{\"start_time\": 0.0, \"end_time\": 3.0, \"primary_speaker\": \"Therapist\", \"target\": "
    "[\"Pat\", \"Sam\"], \"dialogue_cleaned\": \"What happened this week?\", "
    "\"utterance_type\": \"request\", \"support_strategy\": [{\"provider\": \"Therapist\", "
    "\"target\": [\"Pat\"], \"strategy_type\": \"track\", \"strategy_content\": \"asks\"}]}, "
    "{\"start_time\": 3.0, \"end_time\": 6.0, \"primary_speaker\": \"Pat\", \"target\": "
    "[\"Therapist\"], \"dialogue_cleaned\": \"We argued again.\", \"utterance_type\": "
    "\"disclosure\"}]}";

/* Write text to path; 0 on success. */
static int write_file(const char *path, const char *a, const char *b) {
  FILE *f = fopen(path, "wb");
  int bad;
  if (!f)
    return -1;
  bad = fprintf(f, "%s\n%s\n", a, b) < 0;
  return fclose(f) != 0 || bad ? -1 : 0;
}

/* Count lines of a file (-1 when it cannot be read). */
static long count_lines(const char *path) {
  FILE *f = fopen(path, "rb");
  long n = 0;
  int c;
  if (!f)
    return -1;
  while ((c = fgetc(f)) != EOF)
    n += c == '\n';
  fclose(f);
  return n;
}

int main(int argc, char **argv) {
  char db[4096], in[4096], edits[4096], out[4096], tasks[4096];
  const char *paths[1];
  rescue_error err;
  rescue_store *st = NULL;
  rescue_import_opts io = {0};
  rescue_import_result ir;
  rescue_export_opts eo = {0};
  rescue_export_result er;
  rescue_tasks_opts to;
  rescue_tasks_result tr;
  rescue_agree_corpus_opts ao = {0};
  rescue_agree_report *rep = NULL;
  rescue_buf b = RESCUE_BUF_INIT;
  char *edited = NULL, *at;
  const char *fields[] = {"utterance_type"};

  if (argc != 2) {
    fprintf(stderr, "usage: consumer <scratch folder>\n");
    return 2;
  }
  memset(&err, 0, sizeof err);
  snprintf(db, sizeof db, "%s/c.rescue", argv[1]);
  snprintf(in, sizeof in, "%s/in.jsonl", argv[1]);
  snprintf(edits, sizeof edits, "%s/edits.jsonl", argv[1]);
  snprintf(out, sizeof out, "%s/out.jsonl", argv[1]);
  snprintf(tasks, sizeof tasks, "%s/tasks", argv[1]);
  remove(db);

  CHECK(rescue_store_create(db, NULL, 0, &err) == 0, "create: %s", err.msg);
  CHECK(rescue_store_open(&st, db, 0, &err) == 0, "open: %s", err.msg);

  /* import */
  CHECK(write_file(in, sample_a, sample_b) == 0, "cannot write %s", in);
  io.format = RESCUE_FMT_JSONL;
  paths[0] = in;
  CHECK(rescue_import(st, paths, 1, &io, &ir) == 0, "import: %s", rescue_store_errmsg(st));
  CHECK(ir.samples == 2 && ir.put.samples_new == 2 && ir.rows == 4, "import: %ld samples",
        ir.samples);

  /* save a row version: annotator "lee" relabels row 1 of s01 */
  edited = malloc(sizeof sample_a + 16);
  CHECK(edited != NULL, "out of memory");
  at = strstr(strcpy(edited, sample_a), "\"accusation\"");
  memcpy(at, "\"withdrawal\"", 12);
  CHECK(write_file(edits, edited, sample_b) == 0, "cannot write %s", edits);
  {
    /* only registered annotators save under a name */
    char token[65];
    int existed = 0;
    CHECK(rescue_annotator_add(st, "lee", "annotator", token, &existed) == 0, "annotator: %s",
          rescue_store_errmsg(st));
    CHECK(rescue_annotator_add(st, "kim", "annotator", token, &existed) == 0, "annotator: %s",
          rescue_store_errmsg(st));
  }
  /* kim codes every row as the draft has it (the draft itself is never a coder) */
  io.annotator = "kim";
  CHECK(rescue_import(st, paths, 1, &io, &ir) == 0, "kim: %s", rescue_store_errmsg(st));
  CHECK(ir.put.row_versions == 4, "kim: %ld row versions (want 4)", ir.put.row_versions);
  io.annotator = "lee";
  paths[0] = edits;
  CHECK(rescue_import_edits(st, paths, 1, &io, &ir) == 0, "edit: %s", rescue_store_errmsg(st));
  CHECK(ir.put.row_versions == 1, "edit: %ld row versions (want 1)", ir.put.row_versions);

  /* export the latest versions: the edit shows */
  CHECK(rescue_view_parse(st, "latest", &eo.view) == 0, "view: %s", rescue_store_errmsg(st));
  CHECK(rescue_export_samples(st, out, 0, &eo, &er) == 0, "export: %s", rescue_store_errmsg(st));
  CHECK(er.samples == 2 && count_lines(out) == 2, "export: %ld samples", er.samples);
  {
    FILE *f = fopen(out, "rb");
    char line[4096];
    CHECK(f && fgets(line, sizeof line, f), "cannot read %s", out);
    fclose(f);
    CHECK(strstr(line, "\"withdrawal\"") && !strstr(line, "\"accusation\""),
          "export does not show the edit: %s", line);
  }
  rescue_tasks_opts_init(&to);
  CHECK(rescue_export_tasks(st, tasks, &to, &tr) == 0, "tasks: %s", rescue_store_errmsg(st));

  /*
  ** agreement between kim and lee on utterance_type, over the sample both reviewed (s01):
  ** they agree on row 2 and not on row 1
  */
  ao.fields = fields;
  ao.n_fields = 1;
  CHECK(rescue_agree_corpus(st, &ao, &rep) == 0, "agree: %s", rescue_store_errmsg(st));
  rescue_agree_report_json(rep, &b);
  CHECK(rescue_buf_ok(&b) && b.s && strstr(b.s, "\"utterance_type\"") && strstr(b.s, "\"lee\""),
        "agreement report: %s", b.s ? b.s : "(empty)");
  CHECK(strstr(b.s, "\"units\": 2,") && strstr(b.s, "\"percent_agreement\": 0.5,") &&
            strstr(b.s, "\"coders\": [\"lee\", \"kim\"]"),
        "agreement report: not 2 units with observed agreement 0.5 between lee and kim: %s", b.s);

end:
  rescue_agree_report_free(&rep);
  rescue_buf_clear(&b);
  free(edited);
  rescue_store_close(&st);
  if (!failures)
    printf("consumer: import, edit, export, tasks and agreement through the public API: ok\n");
  return failures ? 1 : 0;
}
