/*
** tasks.c: `rescue export --format tasks`: streams the corpus one sample at a time
** through the six task builders into <task>.jsonl (or <task>/<split>.jsonl), hashing
** as it writes, then adds the dataset card and the manifest; all or nothing.
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "rescue_output.h"
#include "tasks_int.h"

static const char *const task_names[RESCUE_TASK_COUNT] = {"itp", "rpp", "stp", "ssp", "er", "vp"};

static const char *const task_summaries[RESCUE_TASK_COUNT] = {
    "Intervention Time Prediction: after the last context row, should the therapist "
    "speak next (yes/no)?",
    "Relation Pattern Prediction: the dominant relation pattern of the couple or family "
    "at a row (rank the taxonomy, top 3).",
    "Support Target Prediction: whom the therapist's next turn supports (rank the "
    "candidates, top 3).",
    "Support Strategy Prediction: which strategy the therapist's next turn uses, its "
    "target given (rank the taxonomy, top 3).",
    "Emotion Recognition: the speaker's internal emotion at a client row, in words, with "
    "an intensity from 0 to 10.",
    "Viewpoint Prediction: the viewpoints and attitudes the speaker holds toward others "
    "at a client row."};

const char *rescue_task_name(rescue_task t) {
  return (unsigned)t < RESCUE_TASK_COUNT ? task_names[t] : "?";
}

const char *rescue_task_summary(rescue_task t) {
  return (unsigned)t < RESCUE_TASK_COUNT ? task_summaries[t] : "";
}

int rescue_task_parse(const char *name, rescue_task *out) {
  int i;
  for (i = 0; name && i < RESCUE_TASK_COUNT; i++)
    if (strcmp(name, task_names[i]) == 0) {
      *out = (rescue_task)i;
      return 0;
    }
  return RESCUE_EINVAL;
}

void rescue_tasks_opts_init(rescue_tasks_opts *o) {
  memset(o, 0, sizeof *o);
  o->view.kind = RESCUE_VIEW_CORPUS;
  o->tasks = RESCUE_TASKS_ALL;
  o->checkpoints_per_sample = 5;
  o->min_dialogue_words = 5;
}

/* The state of one export run. */
typedef struct exporter {
  rescue_store *st;
  rescue_error *err;
  const char *dir; /* the temporary output folder */
  tk_summary sum;
  rescue_tasks_result *res;
  int slot;   /* split slot of the current sample */
  int family; /* the current sample is a family sample */
} exporter;

/* Create file rel under the temporary folder for writing. */
static int file_open(exporter *x, tk_file *f, const char *rel) {
  rescue_buf path = RESCUE_BUF_INIT;
  int rc = 0;
  f->rel = rescue_strdup(rel);
  rescue_buf_printf(&path, "%s/%s", x->dir, rel);
  if (!f->rel || !rescue_buf_ok(&path)) {
    rc = rescue_seterr(x->err, RESCUE_ENOMEM, NULL);
  } else if (rescue_make_parents(path.s) != 0 || !(f->f = fopen(path.s, "wb"))) {
    rc = rescue_seterr(x->err, RESCUE_EIO, "cannot write '%s': %s", path.s, strerror(errno));
  } else {
    setvbuf(f->f, NULL, _IOFBF, 1 << 18);
    rescue_sha256_init(&f->h);
  }
  rescue_buf_free(&path);
  return rc;
}

/* Append bytes to an open file, hashing and counting them. */
static int file_write(exporter *x, tk_file *f, const char *p, size_t n, long lines) {
  if (fwrite(p, 1, n, f->f) != n)
    return rescue_seterr(x->err, RESCUE_EIO, "writing '%s': %s", f->rel, strerror(errno));
  rescue_sha256_update(&f->h, p, n);
  f->bytes += n;
  f->lines += lines;
  x->res->bytes += n;
  return 0;
}

/* Flush, sync and close; the digest is final afterwards. */
static int file_close(exporter *x, tk_file *f) {
  int bad;
  if (!f->f)
    return 0;
  bad = fflush(f->f) != 0 || fsync(fileno(f->f)) != 0;
  bad |= fclose(f->f) != 0;
  f->f = NULL;
  if (bad)
    return rescue_seterr(x->err, RESCUE_EIO, "writing '%s': %s", f->rel, strerror(errno));
  rescue_sha256_hex(&f->h, f->sha256);
  return 0;
}

static void file_free(tk_file *f) {
  if (f->f)
    fclose(f->f);
  rescue_free(f->rel);
  memset(f, 0, sizeof *f);
}

/* A whole small file (card, manifest): written, synced, counted. */
static int file_whole(exporter *x, tk_file *f, const char *rel, const rescue_buf *b) {
  long lines = 0;
  size_t i;
  int rc;
  for (i = 0; i < b->len; i++)
    lines += b->s[i] == '\n';
  if ((rc = file_open(x, f, rel)) || (rc = file_write(x, f, b->s, b->len, lines)))
    return rc;
  return file_close(x, f);
}

/* tk_sink callback: one record into the file of its task and the sample's split. */
static int emit(void *arg, rescue_task task, int gold_yes, const rescue_buf *line) {
  exporter *x = arg;
  tk_file *f = &x->sum.files[task][x->slot];
  int rc = file_write(x, f, line->s, line->len, 1);
  if (rc)
    return rc;
  f->scenario[x->family]++;
  f->yes += gold_yes;
  x->res->instances[task]++;
  x->res->itp_yes += gold_yes;
  return 0;
}

/* Open every output file of the run: per task (and split), and the split lists. */
static int open_files(exporter *x) {
  char rel[64];
  int t, sp, rc;
  for (t = 0; t < RESCUE_TASK_COUNT; t++) {
    if (!(x->sum.o->tasks & (1u << t)))
      continue;
    if (!x->sum.split_mode) {
      snprintf(rel, sizeof rel, "%s.jsonl", task_names[t]);
      if ((rc = file_open(x, &x->sum.files[t][0], rel)))
        return rc;
      continue;
    }
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
      if (!x->sum.active[sp])
        continue;
      snprintf(rel, sizeof rel, "%s/%s.jsonl", task_names[t], rescue_split_name(sp));
      if ((rc = file_open(x, &x->sum.files[t][sp], rel)))
        return rc;
    }
  }
  for (sp = 0; x->sum.split_mode && sp < RESCUE_SPLIT_COUNT; sp++) {
    if (!x->sum.active[sp])
      continue;
    snprintf(rel, sizeof rel, "splits/%s.txt", rescue_split_name(sp));
    if ((rc = file_open(x, &x->sum.splits[sp], rel)))
      return rc;
  }
  return 0;
}

/* Decide the split files from the latest split run and --split. */
static int plan_splits(exporter *x) {
  const rescue_tasks_opts *o = x->sum.o;
  int sp, rc, want = -1;
  if ((rc = rescue_split_latest(x->st, &x->sum.run)))
    return rc;
  if (o->split) {
    want = rescue_split_index(o->split);
    if (want < 0)
      return rescue_seterr(x->err, RESCUE_EINVAL,
                           "unknown split '%s' (expected train, validation or test)", o->split);
    if (!x->sum.run.id)
      return rescue_seterr(x->err, RESCUE_EINVAL,
                           "the corpus has no split yet; run 'rescue split' first");
    if (!(x->sum.run.r[want] > 0))
      return rescue_seterr(x->err, RESCUE_EINVAL,
                           "split '%s' is left out of split run %lld (ratios %s)", o->split,
                           (long long)x->sum.run.id, x->sum.run.ratios);
  }
  if (!x->sum.run.id)
    return 0;
  x->sum.split_mode = 1;
  x->res->split_run = x->sum.run.id;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    x->sum.active[sp] = x->sum.run.r[sp] > 0 && (want < 0 || want == sp);
  return 0;
}

/* Close (if still open) and forget every file of the run. */
static void free_files(exporter *x) {
  int t, sp;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
      file_free(&x->sum.files[t][sp]);
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    file_free(&x->sum.splits[sp]);
  file_free(&x->sum.readme);
}

/* The store's file name without its folders. */
static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

int rescue_export_tasks(rescue_store *st, const char *out, const rescue_tasks_opts *o,
                        rescue_tasks_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_tasks_result dummy;
  rescue_sample_iter *it = NULL;
  rescue_output *dest = NULL;
  rescue_buf text = RESCUE_BUF_INIT;
  const rescue_sample *s;
  tk_sample ts;
  tk_sink sink;
  tk_opts to;
  exporter x;
  long total = 0, done = 0;
  int rc, t, sp;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  memset(&x, 0, sizeof x);
  memset(&sink, 0, sizeof sink);
  rescue_tk_sample_init(&ts, rescue_store_scheme(st));
  x.st = st;
  x.err = err;
  x.res = res;
  x.sum.o = o;
  x.sum.sc = rescue_store_scheme(st);
  x.sum.res = res;
  x.sum.corpus = o->corpus_name ? o->corpus_name : base_name(rescue_store_path(st));
  sink.emit = emit;
  sink.arg = &x;
  sink.err = err;
  to.checkpoints = o->checkpoints_per_sample;
  to.min_words = o->min_dialogue_words;
  to.itp_cap = o->itp_cap_per_class;
  if (o->checkpoints_per_sample < 0 || o->min_dialogue_words < 0 || o->itp_cap_per_class < 0)
    return rescue_seterr(err, RESCUE_EINVAL, "counts must not be negative");
  if (!(o->tasks & RESCUE_TASKS_ALL))
    return rescue_seterr(err, RESCUE_EINVAL, "no task selected");
  if ((rc = plan_splits(&x)))
    return rc;
  if ((rc = rescue_sample_iter_new(st, &o->view, o->samples, o->n_samples, &it)))
    return rc;
  if ((rc = rescue_store_sample_count(st, &total)))
    goto fail;
  if (o->n_samples)
    total = o->n_samples;
  if ((rc = rescue_output_begin(out, 1, o->force, &dest, err)))
    goto fail;
  x.dir = rescue_output_path(dest);
  if ((rc = open_files(&x)))
    goto fail;

  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    done++;
    if (o->progress && (done & 15) == 0)
      o->progress(o->progress_arg, (uint64_t)done, (uint64_t)total);
    if (strcmp(s->status, "discarded") == 0) {
      res->discarded++;
      continue;
    }
    if (!s->complete) {
      res->incomplete++;
      continue;
    }
    x.slot = 0;
    if (x.sum.split_mode) {
      if ((rc = rescue_split_of_sample(st, x.sum.run.id, s->ref, &x.slot)))
        goto fail;
      if (x.slot < 0) {
        res->unassigned++;
        continue;
      }
      if (!x.sum.active[x.slot]) {
        res->other_split++;
        continue;
      }
    }
    if ((rc = rescue_tk_sample_prepare(&ts, st, s, o->clip_root, err)))
      goto fail;
    x.family = strcmp(ts.scenario, "family") == 0;
    x.sum.samples[x.slot][x.family]++;
    res->samples++;
    if (x.sum.split_mode) {
      rescue_buf_reset(&text);
      rescue_buf_printf(&text, "%s\n", s->sample_id);
      if (!rescue_buf_ok(&text)) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto fail;
      }
      if ((rc = file_write(&x, &x.sum.splits[x.slot], text.s, text.len, 1)))
        goto fail;
    }
    for (t = 0; t < RESCUE_TASK_COUNT && rc == 0; t++) {
      if (!(o->tasks & (1u << t)))
        continue;
      switch ((rescue_task)t) {
      case RESCUE_TASK_ITP:
        rc = rescue_tk_build_itp(&ts, &to, &sink);
        break;
      case RESCUE_TASK_RPP:
        rc = rescue_tk_build_rpp(&ts, &to, &sink);
        break;
      case RESCUE_TASK_STP:
        rc = rescue_tk_build_stp(&ts, &to, &sink);
        break;
      case RESCUE_TASK_SSP:
        rc = rescue_tk_build_ssp(&ts, &to, &sink);
        break;
      case RESCUE_TASK_ER:
        rc = rescue_tk_build_er(&ts, &to, &sink);
        break;
      case RESCUE_TASK_VP:
        rc = rescue_tk_build_vp(&ts, &to, &sink);
        break;
      }
      if (rc == 0 && !rescue_tk_sample_ok(&ts))
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    }
    if (rc)
      goto fail;
  }
  if (rc < 0)
    goto fail;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
      if ((rc = file_close(&x, &x.sum.files[t][sp])))
        goto fail;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if ((rc = file_close(&x, &x.sum.splits[sp])))
      goto fail;
  rescue_buf_reset(&text);
  rescue_tk_card(&x.sum, &text);
  if (!rescue_buf_ok(&text)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  if ((rc = file_whole(&x, &x.sum.readme, "README.md", &text)))
    goto fail;
  rescue_buf_reset(&text);
  rescue_tk_manifest(&x.sum, &text);
  rescue_buf_putc(&text, '\n');
  if (!rescue_buf_ok(&text)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto fail;
  }
  {
    tk_file mf;
    memset(&mf, 0, sizeof mf);
    rc = file_whole(&x, &mf, "manifest.json", &text);
    file_free(&mf);
    if (rc)
      goto fail;
  }
  if (o->progress)
    o->progress(o->progress_arg, (uint64_t)total, (uint64_t)total);
  rc = rescue_output_commit(&dest, err);
  goto end;
fail:
  free_files(&x);
  rescue_output_abort(&dest);
end:
  free_files(&x);
  rescue_sample_iter_free(&it);
  rescue_tk_sample_free(&ts);
  rescue_buf_free(&text);
  rescue_buf_free(&sink.line);
  return rc;
}
