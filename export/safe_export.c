/*
** safe_export.c: the pseudonymised export as one library call (rescue_privacy.h): the
** copy, its export into a work folder, the leak check, the move into place and the audit
** record. `rescue export --pseudonymise` (tools/export_safe.c) calls it and reports.
*/
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_audit.h"
#include "rescue_output.h"
#include "privacy_int.h"
#include "rescue_privacy.h"
#include "store_int.h"
#include "tasks_int.h"

static const char *const format_names[] = {"samples", "data-root", "tasks", "eaf"};

/* Move every entry of folder `from` into folder `to` (same file system); 0 or -1. */
static int move_entries(const char *from, const char *to) {
  DIR *d = opendir(from);
  struct dirent *e;
  int rc = 0;
  if (!d)
    return -1;
  while (!rc && (e = readdir(d)) != NULL) {
    char a[4096], b[4096];
    if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
      continue;
    if ((size_t)snprintf(a, sizeof a, "%s/%s", from, e->d_name) >= sizeof a ||
        (size_t)snprintf(b, sizeof b, "%s/%s", to, e->d_name) >= sizeof b) {
      errno = ENAMETOOLONG;
      rc = -1;
    } else {
      rc = rename(a, b);
    }
  }
  closedir(d);
  return rc;
}

/* A fresh work folder beside `out` (same file system, so renames work); caller frees. */
static char *work_dir(const char *out) {
  size_t n = strlen(out) + 32;
  char *d = rescue_malloc(n);
  if (!d)
    return NULL;
  snprintf(d, n, "%s.rescue-pseudo-XXXXXX", out);
  if (!mkdtemp(d)) {
    rescue_free(d);
    return NULL;
  }
  return d;
}

/*
** Export the pseudonymised copy at db into outp as o asks: the whole copy as its corpus
** view shows it, with clip paths under "media" when the clips come along. A failure's
** message is copied onto st.
*/
static int export_copy(rescue_store *st, const char *db, const char *outp, const char *answersp,
                       const pv_id_pairs *ids, const rescue_safe_export_opts *o,
                       rescue_safe_export_result *res) {
  rescue_store *cp = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  rescue_view corpus;
  int rc;
  if ((rc = rescue_store_open(&cp, db, RESCUE_OPEN_READONLY, &err))) {
    *rescue_store_err(st) = err;
    return rc;
  }
  if ((rc = rescue_view_parse(cp, NULL, &corpus)))
    goto end;
  switch (o->format) {
  case RESCUE_SAFE_SAMPLES:
  case RESCUE_SAFE_DATA_ROOT: {
    rescue_export_opts eo = {0};
    eo.view = corpus;
    eo.include_discarded = o->include_discarded;
    eo.progress = o->progress;
    eo.progress_arg = o->progress_arg;
    rc = rescue_export_samples(cp, outp, o->format == RESCUE_SAFE_DATA_ROOT, &eo, &res->samples);
    break;
  }
  case RESCUE_SAFE_TASKS: {
    rescue_tasks_opts to;
    if (o->tasks)
      to = *o->tasks;
    else
      rescue_tasks_opts_init(&to);
    to.view = corpus;
    to.view_name = NULL;
    to.samples = NULL;
    to.n_samples = 0;
    to.force = 0;
    to.stream = NULL;
    to.clip_root = o->with_media ? "media" : NULL; /* the copy's clips, not the real ids' */
    to.answers_out = to.blind ? answersp : NULL;   /* leak-checked too before placing */
    to.progress = o->progress;
    to.progress_arg = o->progress_arg;
    {
      /* the card counts the real store's gold and decisions, not the copy's import */
      tk_prov_source ps = {st, &o->view, ids->real, ids->pseudo, ids->n};
      rc = rescue_tk_export(cp, outp, &to, &res->tasks, &ps);
    }
    break;
  }
  case RESCUE_SAFE_EAF: {
    rescue_eaf_export_opts eo = {0};
    eo.view = corpus;
    eo.include_discarded = o->include_discarded;
    eo.date = o->eaf_date;
    eo.progress = o->progress;
    eo.progress_arg = o->progress_arg;
    rc = rescue_export_eaf(cp, outp, &eo, &res->eaf);
    break;
  }
  }
end:
  if (rc)
    *rescue_store_err(st) = *rescue_store_err(cp);
  rescue_store_close(&cp);
  return rc;
}

/*
** The leak check of the export at outp; real names found fail the export, their file
** paths rewritten as under `out`, where the export was to go.
*/
static int check_leaks(rescue_store *st, const rescue_pseudonym_map *m, const char *outp,
                       const char *out, rescue_leak_report *rep) {
  size_t wl = strlen(outp);
  int rc, i;
  if ((rc = pv_leakcheck(st, m, outp, rep)))
    return rc;
  for (i = 0; i < rep->n; i++) {
    rescue_leak *l = &rep->leaks[i];
    const char *rel = strncmp(l->file, outp, wl) == 0 ? l->file + wl : "";
    size_t n = strlen(out) + strlen(rel) + 1;
    char *f = rescue_malloc(n);
    if (!f)
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    snprintf(f, n, "%s%s", out, rel);
    rescue_free(l->file);
    l->file = f;
  }
  if (rep->n)
    return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT,
                         "%d real name%s survived pseudonymisation; nothing was written", rep->n,
                         rep->n == 1 ? "" : "s");
  return 0;
}

/* Put the checked export at outp where it goes: o->stream, or into the output `out_o`. */
static int place(rescue_store *st, const char *outp, const rescue_safe_export_opts *o,
                 rescue_output **out_o) {
  rescue_error *err = rescue_store_err(st);
  if (o->stream) {
    char *text = NULL;
    size_t len;
    int rc = rescue_read_file(outp, &text, &len, err);
    if (!rc && fwrite(text, 1, len, o->stream) != len)
      rc = rescue_seterr(err, RESCUE_EIO, "cannot write the export: %s", strerror(errno));
    rescue_free(text);
    return rc;
  }
  if (o->format != RESCUE_SAFE_SAMPLES ? move_entries(outp, rescue_output_path(*out_o))
                                       : rename(outp, rescue_output_path(*out_o)))
    return rescue_seterr(err, RESCUE_EIO, "cannot move the export into place: %s", strerror(errno));
  return rescue_output_commit(out_o, err);
}

/* Move the checked answers at answersp into the folder `answers` (all or nothing). */
static int place_answers(rescue_store *st, const char *answersp, const char *answers, int force) {
  rescue_error *err = rescue_store_err(st);
  rescue_output *ao = NULL;
  int rc;
  if ((rc = rescue_output_begin(answers, 1, force, &ao, err)))
    return rc;
  if (move_entries(answersp, rescue_output_path(ao))) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot move the answers into place: %s", strerror(errno));
    rescue_output_abort(&ao);
    return rc;
  }
  return rescue_output_commit(&ao, err);
}

/* The audit record of a finished export; a failure to log is reported in res only. */
static void log_export(rescue_store *st, const char *out, const rescue_safe_export_opts *o,
                       rescue_safe_export_result *res) {
  rescue_audit_entry e;
  rescue_error saved = *rescue_store_err(st);
  memset(&e, 0, sizeof e);
  e.action = "export";
  e.annotator = o->annotator;
  e.view = o->view_name ? o->view_name : "corpus";
  e.pseudonymised = 1;
  e.output = o->stream ? "-" : out;
  e.detail = o->format_name ? o->format_name : format_names[o->format];
  res->logged = rescue_audit_add(st, &e) == 0;
  if (!res->logged)
    res->log_err = *rescue_store_err(st);
  *rescue_store_err(st) = saved;
}

int rescue_export_pseudonymised(rescue_store *st, const char *out, const rescue_safe_export_opts *o,
                                rescue_safe_export_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_output *oo = NULL;
  const char *answers =
      o->format == RESCUE_SAFE_TASKS && o->tasks && o->tasks->blind ? o->tasks->answers_out : NULL;
  rescue_pseudo_opts po = {0};
  rescue_pseudonym_map m = {0, NULL, 0};
  pv_id_pairs ids = {0};
  char *work = NULL, db[4096], media[4096], outp[4096], answersp[4096];
  int rc, is_dir = o->format != RESCUE_SAFE_SAMPLES;
  memset(res, 0, sizeof *res);
  if (o->stream && is_dir)
    return rescue_seterr_arg(err, RESCUE_EINVAL, "stream",
                             "a stream takes the samples format only");
  if (o->with_media && o->format != RESCUE_SAFE_TASKS)
    return rescue_seterr_arg(err, RESCUE_EINVAL, "with_media",
                             "media go with the tasks format only");
  if (o->format == RESCUE_SAFE_TASKS && o->tasks && o->tasks->blind && !answers)
    return rescue_seterr_arg(err, RESCUE_EINVAL, "answers_out",
                             "a blind export needs a folder of its own for the answers");
  if (answers && (rc = rescue_tk_answers_apart(answers, out, err)))
    return rc;
  if (!o->stream && (rc = rescue_output_begin(out, is_dir, o->force, &oo, err)))
    return rc;
  if (!(work = work_dir(o->stream ? "rescue-export" : out))) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot make a work folder beside '%s': %s",
                       o->stream ? "-" : out, strerror(errno));
    goto end;
  }
  snprintf(db, sizeof db, "%s/corpus.db", work);
  snprintf(media, sizeof media, "%s/media", work);
  snprintf(outp, sizeof outp, "%s/out", work);
  snprintf(answersp, sizeof answersp, "%s/answers", work);
  po.view = o->view;
  po.samples = o->samples;
  po.n_samples = o->n_samples;
  po.media_dir = o->with_media ? media : NULL;
  /* one map, of the versions exported, for the copy and for its leak check */
  if ((rc = pv_map_of_view(st, &o->view, o->samples, o->n_samples, &m)) ||
      (rc = pv_pseudo_corpus(st, &po, &m, db, &ids, err)) ||
      (rc = export_copy(st, db, outp, answersp, &ids, o, res)))
    goto end;
  if (o->with_media) {
    char dest[4200];
    struct stat sb;
    snprintf(dest, sizeof dest, "%s/media", outp);
    if (stat(media, &sb) == 0 && rename(media, dest)) {
      rc = rescue_seterr(err, RESCUE_EIO, "cannot move the clips into the export: %s",
                         strerror(errno));
      goto end;
    }
  }
  if ((rc = check_leaks(st, &m, outp, out, &res->leaks)))
    goto end;
  if (answers) {
    /* the answers' report replaces the clean one, with the files of both counted */
    long files = res->leaks.files, lines = res->leaks.lines;
    rescue_leak_report_clear(&res->leaks);
    rc = check_leaks(st, &m, answersp, answers, &res->leaks);
    res->leaks.files += files;
    res->leaks.lines += lines;
    if (rc)
      goto end;
  }
  /* the answers into their folder first (checked above to be apart from out) */
  if (answers && (rc = place_answers(st, answersp, answers, o->force)))
    goto end;
  if ((rc = place(st, outp, o, &oo)))
    goto end;
  log_export(st, out, o, res);
end:
  rescue_pseudonym_map_clear(&m);
  pv_id_pairs_clear(&ids);
  rescue_output_abort(&oo);
  if (work) {
    rescue_remove_tree(work);
    rescue_free(work);
  }
  return rc;
}

void rescue_safe_export_result_clear(rescue_safe_export_result *res) {
  if (!res)
    return;
  rescue_leak_report_clear(&res->leaks);
  memset(res, 0, sizeof *res);
}
