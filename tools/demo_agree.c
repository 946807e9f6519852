/*
** demo_agree.c: the demo's annotation step: a second annotator revises a few rows of the
** demo sessions (fictional edits written here), a lead settles one, then lint, agreement
** and adjudication run on the demo corpus, their reports left under <dir>/agree/.
*/
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"

/* One fictional revision: in row `position` of `sample`, `from` becomes `to`. */
typedef struct demo_edit {
  const char *annotator;
  const char *sample;
  int position;
  const char *from, *to;
} demo_edit;

static const demo_edit edits[] = {
    {"noor", "maya_and_daniel/001_s01e01_segment01", 3, "\"utterance_type\": \"accusation\"",
     "\"utterance_type\": \"request\""},
    {"noor", "maya_and_daniel/001_s01e01_segment01", 3, "\"intensity\": 8", "\"intensity\": 7"},
    {"noor", "maya_and_daniel/001_s01e01_segment01", 5, "\"utterance_type\": \"reflection\"",
     "\"utterance_type\": \"disclosure\""},
    {"noor", "maya_and_daniel/001_s01e01_segment01", 6, "\"strategy_type\": \"evoke\"",
     "\"strategy_type\": \"join\""},
    {"noor", "family_therapy/demo01/merged", 2, "\"utterance_type\": \"accusation\"",
     "\"utterance_type\": \"defense\""},
    {"noor", "family_therapy/demo01/merged", 9, "\"target\": [\"Rosa\", \"Tomas\"]",
     "\"target\": [\"Rosa\"]"},
    {"noor", "family_therapy/demo01/merged", 10, "\"intensity\": 4", "\"intensity\": 5"},
    /* the lead reviews both sessions too: she agrees with some of noor's changes */
    {"lena", "maya_and_daniel/001_s01e01_segment01", 3, "\"utterance_type\": \"accusation\"",
     "\"utterance_type\": \"request\""},
    {"lena", "family_therapy/demo01/merged", 2, "\"utterance_type\": \"accusation\"",
     "\"utterance_type\": \"defense\""},
};

/*
** Apply the edits of one annotator to the imported rows and save them as that annotator's
** versions: the samples they touched go to a JSONL file under dir, imported under their
** name (every row of those samples gets their version: they reviewed the whole sample and
** kept what they did not change), and the file is removed again.
*/
static int revise(rescue_store *st, const char *dir, const char *annotator) {
  rescue_view v = {.kind = RESCUE_VIEW_ANNOTATOR};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_row *rows = NULL;
  rescue_buf text = RESCUE_BUF_INIT, out = RESCUE_BUF_INIT;
  rescue_import_opts io = {0};
  char path[4096];
  const char *paths[1] = {path};
  int rc, i, k, cap = 0, n_edited = 0;
  FILE *f = NULL;

  io.format = RESCUE_FMT_JSONL;
  io.annotator = annotator;
  snprintf(path, sizeof path, "%s/agree/.%s-edits.jsonl", dir, annotator);
  if ((rc = rescue_annotator_id(st, "import", NULL, 0, &v.annotator_id)) ||
      (rc = rescue_sample_iter_new(st, &v, NULL, 0, &it)))
    return cli_fail(rescue_store_err(st));
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    rescue_sample copy = *s;
    int changed = 0;
    if (s->n > cap) {
      rescue_row *r = realloc(rows, (size_t)s->n * sizeof *rows);
      if (!r) {
        rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
        goto fail;
      }
      rows = r;
      cap = s->n;
    }
    rescue_buf_reset(&text);
    for (i = 0; i < s->n; i++) {
      const rescue_row *row = &s->rows[i];
      size_t at0 = text.len;
      rows[i] = *row;
      rescue_buf_putn(&text, row->content, row->content_len);
      for (k = 0; k < (int)(sizeof edits / sizeof edits[0]); k++) {
        const demo_edit *e = &edits[k];
        char *at;
        size_t fl = strlen(e->from), tl = strlen(e->to);
        if (strcmp(e->annotator, annotator) != 0 || strcmp(e->sample, s->sample_id) != 0 ||
            e->position != row->position)
          continue;
        if (!text.s || !(at = strstr(text.s + at0, e->from))) {
          rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL, "demo: row %d of %s has no %s",
                        e->position, e->sample, e->from);
          rc = RESCUE_EINTERNAL;
          goto fail;
        }
        if (rescue_buf_grow(&text, tl) != 0) {
          rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
          goto fail;
        }
        at = strstr(text.s + at0, e->from);
        memmove(at + tl, at + fl, text.len - (size_t)(at - text.s) - fl + 1);
        memcpy(at, e->to, tl);
        text.len = text.len - fl + tl;
        changed = 1;
      }
      /* offsets for now: text may move while it grows */
      rows[i].content = (const char *)(uintptr_t)at0;
      rows[i].content_len = text.len - at0;
    }
    if (!changed)
      continue;
    if (!rescue_buf_ok(&text)) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto fail;
    }
    for (i = 0; i < s->n; i++)
      rows[i].content = text.s + (uintptr_t)rows[i].content;
    copy.rows = rows;
    rescue_sample_write_json(rescue_store_scheme(st), &copy, &out);
    rescue_buf_putc(&out, '\n');
    n_edited++;
  }
  if (rc < 0)
    goto fail;
  rescue_sample_iter_free(&it);
  rc = 0;
  if (n_edited) {
    if (!rescue_buf_ok(&out) || !(f = fopen(path, "wb")) ||
        fwrite(out.s, 1, out.len, f) != out.len || fclose(f) != 0) {
      if (f)
        fclose(f);
      cli_error("cannot write '%s'", path);
      rc = 1;
    } else if (rescue_import(st, paths, 1, &io, NULL)) {
      rc = cli_fail(rescue_store_err(st));
    }
    remove(path);
  }
  free(rows);
  rescue_buf_clear(&text);
  rescue_buf_clear(&out);
  return rc;
fail:
  rescue_sample_iter_free(&it);
  free(rows);
  rescue_buf_clear(&text);
  rescue_buf_clear(&out);
  return cli_fail(rescue_store_err(st));
}

/* Write buf to path; returns 1 (after a message) on failure. */
static int save(const char *path, const rescue_buf *b) {
  FILE *f = fopen(path, "wb");
  if (!f || fwrite(b->s, 1, b->len, f) != b->len || fclose(f) != 0) {
    if (f)
      fclose(f);
    cli_error("cannot write '%s'", path);
    return 1;
  }
  return 0;
}

/*
** Keep the sign-in tokens of the demo's two people in <dir>/DEMO_TOKENS, readable by the
** owner only (0600): the review page asks for one, and the demo never prints them, so a
** captured log of the demo holds none. Returns 1 (after a message) on failure.
*/
static int save_tokens(const char *dir, const char *noor, const char *lena) {
  char path[4096], text[512];
  int fd, n;
  snprintf(path, sizeof path, "%s/%s", dir, DEMO_TOKENS);
  n = snprintf(text, sizeof text,
               "# Sign-in tokens of the demo corpus (rescue annotator add shows a token once).\n"
               "# Paste one into the review page's Token field; keep this file private.\n"
               "lena (lead)       %s\n"
               "noor (annotator)  %s\n",
               lena, noor);
  fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0 || fchmod(fd, 0600) != 0 || write(fd, text, (size_t)n) != n) {
    cli_error("cannot write '%s': %s", path, strerror(errno));
    if (fd >= 0)
      close(fd);
    return 1;
  }
  if (close(fd) != 0) {
    cli_error("cannot write '%s': %s", path, strerror(errno));
    return 1;
  }
  printf("   sign-in tokens of noor (annotator) and lena (lead): %s (owner-only, not shown "
         "here)\n",
         path);
  return 0;
}

int demo_agree(const char *dir, rescue_store *st) {
  char path[4096], token[65], lead_token[65];
  const char *fields[] = {"utterance_type", "target", "support_strategy", "emotion_intensity"};
  rescue_lint_opts lo = {0};
  rescue_lint_result lr;
  rescue_agree_corpus_opts ao = {0};
  rescue_agree_report *rep = NULL;
  rescue_adjudicate_opts jo = {0};
  rescue_adjudicate_result jr;
  rescue_buf b = RESCUE_BUF_INIT;
  int existed, rc = 1, i;

  memset(&lr, 0, sizeof lr);
  memset(&jr, 0, sizeof jr);
  if (rescue_annotator_add(st, "noor", "annotator", token, &existed) ||
      rescue_annotator_add(st, "lena", "lead", lead_token, &existed))
    return cli_fail(rescue_store_err(st));
  rc = save_tokens(dir, token, lead_token);
  memset(token, 0, sizeof token);
  memset(lead_token, 0, sizeof lead_token);
  if (rc)
    return 1;
  rc = 1;
  snprintf(path, sizeof path, "%s/agree/lint.json", dir);
  if (rescue_make_parents(path) != 0) {
    cli_error("cannot create '%s/agree'", dir);
    return 1;
  }
  if (revise(st, dir, "noor") || revise(st, dir, "lena"))
    return 1;
  printf("   two people reviewed the draft: noor revised 7 things in 6 rows of both sessions, a "
         "lead (lena) reviewed both too and changed 2\n");

  if (rescue_lint(st, &lo, &lr)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  rescue_lint_result_json(&lr, &b);
  rescue_buf_putc(&b, '\n');
  if (save(path, &b))
    goto end;
  printf("   lint (rescue lint): %ld samples: %ld error%s, %ld warning%s -> %s\n", lr.samples,
         lr.errors, lr.errors == 1 ? "" : "s", lr.warnings, lr.warnings == 1 ? "" : "s", path);
  for (i = 0; i < lr.n && i < 5; i++) {
    rescue_buf_reset(&b);
    rescue_lint_finding_text(&lr.findings[i], &b);
    printf("     %s", b.s);
  }

  ao.stats.ci_replicates = 1000;
  ao.stats.seed = 7;
  ao.stats.by = RESCUE_BY_STRATUM;
  if (rescue_agree_corpus(st, &ao, &rep)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  rescue_buf_reset(&b);
  rescue_agree_report_json(rep, &b);
  rescue_buf_putc(&b, '\n');
  snprintf(path, sizeof path, "%s/agree/agreement.json", dir);
  if (save(path, &b))
    goto end;
  rescue_buf_reset(&b);
  rescue_agree_report_text(rep, &b);
  snprintf(path, sizeof path, "%s/agree/agreement.txt", dir);
  if (save(path, &b))
    goto end;
  rescue_agree_report_free(&rep);
  printf("   agreement (rescue agree) between noor and lena (the draft is no coder) -> "
         "%s/agree/agreement.txt\n",
         dir);
  ao.fields = fields;
  ao.n_fields = 4;
  ao.stats.ci_replicates = 0;
  ao.stats.by = RESCUE_BY_NONE;
  if (rescue_agree_corpus(st, &ao, &rep)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  rescue_buf_reset(&b);
  rescue_agree_report_text(rep, &b);
  /* the report's summary table: its lines up to the first blank one */
  for (i = 0; b.s && i < (int)b.len && b.s[i] != '\n';) {
    const char *e = strchr(b.s + i, '\n');
    int len = e ? (int)(e - (b.s + i)) : (int)b.len - i;
    printf("     %.*s\n", len, b.s + i);
    i += len + 1;
  }

  jo.policy = RESCUE_ADJ_LEAD;
  jo.lead = "lena";
  if (rescue_adjudicate(st, &jo, &jr)) {
    rc = cli_fail(rescue_store_err(st));
    goto end;
  }
  rescue_buf_reset(&b);
  rescue_adjudicate_result_json(&jo, &jr, &b);
  rescue_buf_putc(&b, '\n');
  snprintf(path, sizeof path, "%s/agree/adjudication.json", dir);
  if (save(path, &b))
    goto end;
  printf("   adjudicated (rescue adjudicate --policy lead --lead lena): %ld gold rows, %d left "
         "undecided -> %s\n",
         jr.written, jr.n_undecided, path);
  for (i = 0; i < jr.n_undecided; i++)
    printf("     undecided %s:%d: %s\n", jr.undecided[i].sample_id, jr.undecided[i].row,
           jr.undecided[i].reason);
  rc = 0;
end:
  rescue_buf_clear(&b);
  rescue_lint_result_clear(&lr);
  rescue_agree_report_free(&rep);
  rescue_adjudicate_result_clear(&jr);
  return rc;
}
