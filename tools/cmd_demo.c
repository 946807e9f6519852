/*
** cmd_demo.c: `rescue demo [--out <dir>]`: a small corpus from two fictional sessions
** built into the binary, with every capability run on it and the results left on disk.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

extern const unsigned char rescue_demo_couple[];
extern const size_t rescue_demo_couple_len;
extern const unsigned char rescue_demo_family[];
extern const size_t rescue_demo_family_len;

/* A file in the output folder that says the demo made it (so a rerun may replace it). */
#define DEMO_MARK ".rescue-demo"

static const char *out_dir = "rescue-demo";
static const cli_option options[] = {
    CLI_STRING(0, "out", &out_dir, "<dir>",
               "where to put it (default: rescue-demo); a folder made by an earlier\n"
               "demo is replaced, any other non-empty folder is refused"),
    CLI_END};
static const cli_spec spec = {
    .synopsis = "rescue demo [--out <dir>]",
    .description =
        "Build a demo corpus from two short fictional sessions (a couple and a family) that\n"
        "are built into rescue, and run every capability on it: import, stats, export of the\n"
        "samples as JSONL and as a data-root, a synthetic episode video linked to both sessions\n"
        "and their row clips, a split and the six task datasets, a second annotator's\n"
        "revision, lint, agreement and adjudication. Prints where each result is.\n"
        "\n"
        "It registers an annotator (noor) and a lead (lena) and keeps their sign-in tokens in\n"
        "<dir>/" DEMO_TOKENS " (readable by you only; never printed), and ends with the\n"
        "'rescue serve' command and the address of the review page to open.\n",
    .options = options,
    .min_args = 0,
    .max_args = 0};

static int write_all(const char *path, const void *data, size_t len) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(data, 1, len, f) != len || fclose(f) != 0) {
    cli_error("cannot write '%s': %s", path, strerror(errno));
    if (f)
      fclose(f);
    return 1;
  }
  return 0;
}

/* Make dir ready: create it, or empty it when an earlier demo made it. */
static int prepare_dir(const char *dir) {
  struct stat sb;
  char mark[4096];
  snprintf(mark, sizeof mark, "%s/%s", dir, DEMO_MARK);
  if (stat(dir, &sb) == 0) {
    if (!S_ISDIR(sb.st_mode)) {
      cli_error("'%s' exists and is not a folder", dir);
      return 1;
    }
    if (access(mark, F_OK) == 0) {
      if (rescue_remove_tree(dir) != 0) {
        cli_error("cannot replace the earlier demo in '%s': %s", dir, strerror(errno));
        return 1;
      }
    } else if (rmdir(dir) != 0 && errno != ENOENT) {
      cli_error("'%s' exists and was not made by 'rescue demo'; choose another --out", dir);
      return 1;
    }
  }
  if (rescue_make_parents(mark) != 0) {
    cli_error("cannot create '%s': %s", dir, strerror(errno));
    return 1;
  }
  return write_all(mark, "made by rescue demo\n", 20);
}

/* Join dir and name into buf. */
static const char *at(char *buf, size_t n, const char *dir, const char *name) {
  snprintf(buf, n, "%s/%s", dir, name);
  return buf;
}

int cmd_demo(int argc, char **argv) {
  char db[4096], in_c[4096], in_f[4096], jsonl[4096], root[4096];
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_store *st = NULL;
  rescue_import_opts io = {.format = RESCUE_FMT_JSONL};
  rescue_import_result ir;
  rescue_export_opts eo = {0};
  rescue_export_result er;
  rescue_table3 t3;
  rescue_buf text = RESCUE_BUF_INIT;
  const char *inputs[2];
  const char *dir;
  int first, rc = 1;

  if ((rc = cli_parse(argc, argv, &spec, &first)) != CLI_PARSED)
    return rc;
  dir = out_dir;
  rc = 1;
  if (prepare_dir(dir))
    return 1;
  at(db, sizeof db, dir, "corpus.db");
  at(in_c, sizeof in_c, dir, "input/couple.jsonl");
  at(in_f, sizeof in_f, dir, "input/family.jsonl");
  at(jsonl, sizeof jsonl, dir, "export/samples.jsonl");
  at(root, sizeof root, dir, "export/data-root");
  if (rescue_make_parents(in_c) != 0 ||
      write_all(in_c, rescue_demo_couple, rescue_demo_couple_len) ||
      write_all(in_f, rescue_demo_family, rescue_demo_family_len))
    return 1;

  printf("rescue demo: two fictional sessions, everything written under %s/\n\n", dir);
  if (rescue_store_create(db, NULL, 0, &err))
    return cli_fail(&err);
  printf("1. created the corpus      %s\n", db);
  if (rescue_store_open(&st, db, 0, &err))
    return cli_fail(&err);
  inputs[0] = in_c;
  inputs[1] = in_f;
  if (rescue_import(st, inputs, 2, &io, &ir)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  printf("2. imported                %ld samples, %ld rows (from %s/input/)\n", ir.samples, ir.rows,
         dir);

  eo.view.kind = RESCUE_VIEW_CORPUS;
  if (rescue_export_samples(st, jsonl, 0, &eo, &er) ||
      rescue_export_samples(st, root, 1, &eo, &er)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  printf("3. exported the samples    %s (JSONL)\n", jsonl);
  printf("                           %s/ (data-root, one file per sample)\n", root);

  if (rescue_stats_table3(st, &eo.view, &t3)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  rescue_stats_table3_text(&t3, &text);
  printf("4. corpus statistics (rescue stats %s):\n\n%s\n", db, text.s ? text.s : "");
  if (demo_media(dir, st)) {
    rc = 1;
    goto end;
  }
  printf("6. splits and the six task datasets\n");
  if (demo_tasks(dir, st))
    goto end;
  printf("7. annotation: a second annotator, lint, agreement, adjudication\n");
  if ((rc = demo_agree(dir, st)))
    goto end;
  printf("\nOpen the review page, where annotators review rows and the lead adjudicates:\n"
         "  rescue serve %s\n"
         "then open http://%s/ and sign in with a token from %s/%s\n",
         db, SERVE_DEFAULT_LISTEN, dir, DEMO_TOKENS);
  printf("\nTry next:\n  rescue stats %s --json\n  rescue export %s --format samples --out "
         "my.jsonl\n",
         db, db);
  rc = cli_finish(0);
end:
  rescue_buf_clear(&text);
  rescue_store_close(&st);
  return rc;
}
