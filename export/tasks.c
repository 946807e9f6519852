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
#include "store_int.h"

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
  o->agreement_replicates = 200;
}

/* The state of one export run. */
typedef struct exporter {
  rescue_store *st;
  rescue_error *err;
  const char *dir;  /* the temporary output folder */
  const char *adir; /* --blind: the temporary answers folder */
  tk_summary sum;
  const tk_prov_source *ps; /* a pseudonymised copy's real provenance, or NULL */
  rescue_tasks_result *res;
  int slot;            /* split slot of the current sample */
  int family;          /* the current sample is a family sample */
  const tk_sample *ts; /* the sample being built (its last ER/VP record's clip) */
  rescue_jdoc *doc;    /* --blind: records parsed to split off their answers */
  rescue_buf tmp, tmp2;
} exporter;

/* Create file rel under the temporary folder dir for writing. */
static int file_open_in(exporter *x, const char *dir, tk_file *f, const char *rel) {
  rescue_buf path = RESCUE_BUF_INIT;
  int rc = 0;
  f->rel = rescue_strdup(rel);
  rescue_buf_printf(&path, "%s/%s", dir, rel);
  if (!f->rel || !rescue_buf_ok(&path)) {
    rc = rescue_seterr(x->err, RESCUE_ENOMEM, NULL);
  } else if (rescue_make_parents(path.s) != 0 || !(f->f = fopen(path.s, "wb"))) {
    rc = rescue_seterr(x->err, RESCUE_EIO, "cannot write '%s': %s", path.s, strerror(errno));
  } else {
    setvbuf(f->f, NULL, _IOFBF, 1 << 18);
    rescue_sha256_init(&f->h);
  }
  rescue_buf_clear(&path);
  return rc;
}

/* Create file rel under the temporary output folder for writing. */
static int file_open(exporter *x, tk_file *f, const char *rel) {
  return file_open_in(x, x->dir, f, rel);
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

/*
** --blind: the record without its gold_* keys into x->tmp, and its answer (the keys
** scoring needs: task, ids, scenario, candidate labels, and the gold_* keys) into x->tmp2.
*/
static int split_answers(exporter *x, const rescue_buf *line) {
  static const char *const keep[] = {"task",
                                     "instance_id",
                                     "sample_id",
                                     "couple",
                                     "scenario",
                                     "candidate_relation_labels",
                                     "candidate_target_labels",
                                     "candidate_strategy_labels"};
  rescue_jerror je;
  const rescue_jnode *o = rescue_jparse(x->doc, line->s, line->len - 1, &je), *c;
  rescue_jw a, b;
  size_t k;
  if (!o)
    return rescue_seterr(x->err, strcmp(je.msg, "out of memory") ? RESCUE_EINTERNAL : RESCUE_ENOMEM,
                         "a task record does not parse: %s", je.msg);
  rescue_buf_reset(&x->tmp);
  rescue_buf_reset(&x->tmp2);
  rescue_jw_init(&a, &x->tmp);
  rescue_jw_init(&b, &x->tmp2);
  rescue_jw_obj(&a);
  rescue_jw_obj(&b);
  for (c = o->child; c; c = c->next) {
    int gold = c->keylen > 5 && memcmp(c->key, "gold_", 5) == 0, answer = gold;
    for (k = 0; k < sizeof keep / sizeof keep[0]; k++)
      answer |= strcmp(c->key, keep[k]) == 0;
    if (!gold) {
      rescue_jw_key(&a, c->key);
      rescue_jw_node(&a, c);
    }
    if (answer) {
      rescue_jw_key(&b, c->key);
      rescue_jw_node(&b, c);
    }
  }
  rescue_jw_end(&a);
  rescue_jw_end(&b);
  rescue_buf_putc(&x->tmp, '\n');
  rescue_buf_putc(&x->tmp2, '\n');
  if (!rescue_buf_ok(&x->tmp) || !rescue_buf_ok(&x->tmp2))
    return rescue_seterr(x->err, RESCUE_ENOMEM, NULL);
  return 0;
}

/* tk_sink callback: one record into the file of its task and the sample's split. */
static int emit(void *arg, rescue_task task, int gold_yes, const rescue_buf *line) {
  exporter *x = arg;
  tk_file *f = &x->sum.files[task][x->slot];
  int rc;
  if ((task == RESCUE_TASK_ER || task == RESCUE_TASK_VP) && x->ts->clip_missing)
    x->res->missing_clips++;
  if (x->sum.o->stream) {
    if (fwrite(line->s, 1, line->len, x->sum.o->stream) != line->len)
      return rescue_seterr(x->err, RESCUE_EIO, "writing the output: %s", strerror(errno));
    f->lines++;
    f->bytes += line->len;
    x->res->bytes += line->len;
    rc = 0;
  } else if (x->sum.o->blind) {
    if (!(rc = split_answers(x, line)) && !(rc = file_write(x, f, x->tmp.s, x->tmp.len, 1)))
      rc = file_write(x, &x->sum.answers[task][x->slot], x->tmp2.s, x->tmp2.len, 1);
  } else {
    rc = file_write(x, f, line->s, line->len, 1);
  }
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
      snprintf(rel, sizeof rel, "%s.answers.jsonl", task_names[t]);
      if (x->sum.o->blind && (rc = file_open_in(x, x->adir, &x->sum.answers[t][0], rel)))
        return rc;
      continue;
    }
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
      if (!x->sum.active[sp])
        continue;
      snprintf(rel, sizeof rel, "%s/%s.jsonl", task_names[t], rescue_split_name(sp));
      if ((rc = file_open(x, &x->sum.files[t][sp], rel)))
        return rc;
      snprintf(rel, sizeof rel, "%s/%s.answers.jsonl", task_names[t], rescue_split_name(sp));
      if (x->sum.o->blind && (rc = file_open_in(x, x->adir, &x->sum.answers[t][sp], rel)))
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
      return rescue_seterr(x->err, RESCUE_ENOSPLIT, "the corpus has no split yet");
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
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++) {
      file_free(&x->sum.files[t][sp]);
      file_free(&x->sum.answers[t][sp]);
    }
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    file_free(&x->sum.splits[sp]);
  file_free(&x->sum.readme);
}

/*
** Why an export would write no record: RESCUE_ENOTFOUND with the reason (RESCUE_ENOGOLD
** when rows of the gold view lack gold).
*/
static int empty_export(exporter *x) {
  const rescue_tasks_result *r = x->res;
  const char *view = x->sum.o->view_name ? x->sum.o->view_name : "corpus";
  if (r->samples)
    return rescue_seterr(x->err, RESCUE_ENOTFOUND,
                         "nothing to export: the %ld sample%s used give%s no instance of the "
                         "selected tasks",
                         r->samples, r->samples == 1 ? "" : "s", r->samples == 1 ? "s" : "");
  return rescue_seterr(
      x->err,
      x->sum.o->view.kind == RESCUE_VIEW_GOLD && r->incomplete ? RESCUE_ENOGOLD : RESCUE_ENOTFOUND,
      "nothing to export: no sample can be used (%ld without a version of every row in view "
      "'%s'%s, %ld discarded, %ld outside the split run, %ld in other splits)",
      r->incomplete, view,
      x->sum.o->view.kind == RESCUE_VIEW_GOLD && r->incomplete ? ": nothing adjudicated yet?" : "",
      r->discarded, r->unassigned, r->other_split);
}

/* The store's file name without its folders. */
static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/*
** A stream (o->stream, one file's records on a FILE) holds one task and one split, and no
** answers: RESCUE_EINVAL otherwise. Called once the splits are planned.
*/
static int check_stream(exporter *x) {
  const rescue_tasks_opts *o = x->sum.o;
  int ntasks = 0, nsplits = 0, t, sp;
  if (!o->stream)
    return 0;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    ntasks += (o->tasks >> t) & 1;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    nsplits += x->sum.active[sp];
  if (ntasks != 1)
    return rescue_seterr_arg(x->err, RESCUE_EINVAL, "tasks", "a stream holds one task's records");
  if (x->sum.split_mode && nsplits != 1)
    return rescue_seterr_arg(x->err, RESCUE_EINVAL, "split",
                             "the corpus has a split run: a stream holds one split");
  if (o->blind)
    return rescue_seterr(x->err, RESCUE_EINVAL,
                         "a blind export writes two files (records and answers): give a folder");
  return 0;
}

/*
** path made absolute and normal: the longest existing prefix through realpath (symbolic
** links resolved), the rest with "." and ".." applied and repeated slashes dropped. A new
** string (rescue_free it), or NULL when out of memory or the working folder is unknown.
*/
static char *normal_path(const char *path) {
  rescue_buf whole = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
  char cwd[4096], *real = NULL, *p, *tok, *save = NULL, *cut;
  size_t at;
  if (path[0] != '/' && !getcwd(cwd, sizeof cwd))
    return NULL;
  rescue_buf_printf(&whole, "%s/%s", path[0] == '/' ? "" : cwd, path);
  if (!rescue_buf_ok(&whole))
    return NULL;
  /* the longest prefix that exists, cut at a slash */
  for (at = whole.len;;) {
    char c = whole.s[at];
    whole.s[at] = 0;
    real = realpath(at ? whole.s : "/", NULL);
    whole.s[at] = c;
    if (real || at == 0)
      break;
    while (at > 0 && whole.s[--at] != '/')
      ;
  }
  rescue_buf_puts(&b, real ? real : "/");
  free(real);
  for (p = whole.s + at; (tok = strtok_r(p, "/", &save)) != NULL; p = NULL) {
    if (strcmp(tok, ".") == 0)
      continue;
    if (strcmp(tok, "..") == 0) {
      cut = strrchr(b.s, '/');
      b.len = cut && cut != b.s ? (size_t)(cut - b.s) : 1;
      b.s[b.len] = 0;
      continue;
    }
    if (b.len > 1)
      rescue_buf_putc(&b, '/');
    rescue_buf_puts(&b, tok);
  }
  rescue_buf_clear(&whole);
  if (!rescue_buf_ok(&b)) {
    rescue_buf_clear(&b);
    return NULL;
  }
  return b.s;
}

/* Is folder a the folder b or inside it (both normal_path)? */
static int path_within(const char *a, const char *b) {
  size_t n = strlen(b);
  return strncmp(a, b, n) == 0 && (a[n] == 0 || a[n] == '/' || (n == 1 && b[0] == '/'));
}

int rescue_tk_answers_apart(const char *answers, const char *out, rescue_error *err) {
  char *a = normal_path(answers), *b = normal_path(out);
  int rc = 0;
  if (!a || !b)
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  else if (path_within(a, b) || path_within(b, a))
    rc = rescue_seterr(err, RESCUE_EINVAL,
                       "the answers folder '%s' %s the output folder '%s': one copy of the "
                       "published folder would carry the answers; give a folder outside it",
                       answers,
                       strcmp(a, b) == 0   ? "is"
                       : path_within(a, b) ? "is inside"
                                           : "holds",
                       out);
  rescue_free(a);
  rescue_free(b);
  return rc;
}

/*
** --blind writes the answers to their own folder (o->answers_out), apart from the output
** folder (rescue_tk_answers_apart); RESCUE_EINVAL otherwise. Nothing is written before.
*/
static int check_answers(exporter *x, const char *out) {
  const rescue_tasks_opts *o = x->sum.o;
  if (o->stream || !o->blind) {
    if (o->answers_out && !o->stream)
      return rescue_seterr_arg(x->err, RESCUE_EINVAL, "answers_out",
                               "an answers folder goes with a blind export only");
    return 0;
  }
  if (!o->answers_out || !*o->answers_out)
    return rescue_seterr_arg(x->err, RESCUE_EINVAL, "answers_out",
                             "a blind export needs a folder of its own for the answers, apart "
                             "from the files to publish");
  return rescue_tk_answers_apart(o->answers_out, out, x->err);
}

/* What the export loop's steps need (open_output, export_sample). */
typedef struct task_loop {
  exporter *x;
  tk_sample *ts;
  const tk_opts *to;
  tk_sink *sink;
  rescue_buf *text; /* scratch */
  const char *out;
  rescue_output **dest, **adest; /* the output folder; --blind: the answers' folder */
} task_loop;

/* The loop's begin step: the output folder and its record files, unless streaming. */
static int open_output(void *arg) {
  task_loop *l = arg;
  exporter *x = l->x;
  int rc;
  if (x->sum.o->stream)
    return 0;
  if ((rc = rescue_output_begin(l->out, 1, x->sum.o->force, l->dest, x->err)))
    return rc;
  x->dir = rescue_output_path(*l->dest);
  if (x->sum.o->blind) {
    if ((rc = rescue_output_begin(x->sum.o->answers_out, 1, x->sum.o->force, l->adest, x->err)))
      return rc;
    x->adir = rescue_output_path(*l->adest);
  }
  return open_files(x);
}

/*
** Count where sample s's rows come from (rescue_tk_prov_sample): in the exported store, or,
** for a pseudonymised copy, in the real store x->ps on the real sample s was made from (a
** whole-view note keeps the copy's id). Errors on x->err.
*/
static int prov_sample(exporter *x, const rescue_sample *s) {
  const tk_prov_source *ps = x->ps;
  rescue_sample_iter *it = NULL;
  const rescue_sample *real = NULL;
  const char *id;
  long i, whole = x->sum.n_whole;
  int rc;
  if (!ps)
    return rescue_tk_prov_sample(&x->sum, x->st, s);
  for (i = 0; i < ps->n && strcmp(ps->pseudo[i], s->sample_id) != 0; i++)
    ;
  if (i == ps->n)
    return rescue_seterr(x->err, RESCUE_EINTERNAL, "sample '%s' of the copy has no real sample",
                         s->sample_id);
  id = ps->real[i];
  if ((rc = rescue_sample_iter_new(ps->st, ps->view, &id, 1, &it)) == 0) {
    rc = rescue_sample_iter_next(it, &real);
    rc = rc == 1   ? rescue_tk_prov_sample(&x->sum, ps->st, real)
         : rc == 0 ? rescue_seterr(rescue_store_err(ps->st), RESCUE_ENOTFOUND, "no sample '%s'", id)
                   : rc;
  }
  rescue_sample_iter_free(&it);
  if (rc)
    return rescue_seterr(x->err, rc < 0 ? RESCUE_EINTERNAL : rc, "%s", rescue_store_errmsg(ps->st));
  if (x->sum.n_whole > whole) {
    char *p = rescue_strdup(ps->pseudo[i]);
    if (!p)
      return rescue_seterr(x->err, RESCUE_ENOMEM, NULL);
    rescue_free(x->sum.whole[whole].sample_id);
    x->sum.whole[whole].sample_id = p;
  }
  return 0;
}

/*
** Finish the provenance (rescue_tk_prov_finish) on the store it was counted in; a
** pseudonymised copy's card names the real store's people (annotators and leads) "person
** 1", "person 2", ... in table order (the draft, the adjudication and models keep their
** names). Errors on x->err.
*/
static int prov_finish(exporter *x) {
  rescue_store *st = x->ps ? x->ps->st : x->st;
  int rc, i, k = 0;
  if ((rc = rescue_tk_prov_finish(&x->sum, st, rescue_store_err(st))))
    return st == x->st ? rc : rescue_seterr(x->err, rc, "%s", rescue_store_errmsg(st));
  for (i = 0; x->ps && i < x->sum.n_annotators; i++) {
    tk_prov_annotator *a = &x->sum.annotators[i];
    char name[32];
    if (!a->name || !a->role || strcmp(a->name, RESCUE_DRAFT_ANNOTATOR) == 0 ||
        strcmp(a->name, RESCUE_ADJUDICATION_ANNOTATOR) == 0 || strcmp(a->role, "model") == 0)
      continue; /* not a person: the draft, the adjudication, a model */
    snprintf(name, sizeof name, "person %d", ++k);
    rescue_free(a->name);
    if (!(a->name = rescue_strdup(name)))
      return rescue_seterr(x->err, RESCUE_ENOMEM, NULL);
  }
  return 0;
}

/*
** One kept sample of the export (the loop's step): skipped (RESCUE_EXPORT_SKIP) when outside
** the split run's active splits; else prepared and every selected task's records built
** (emitted through l->sink) from l->ts, x->ts.
*/
static int export_sample(void *arg, const rescue_sample *s) {
  task_loop *l = arg;
  exporter *x = l->x;
  tk_sample *ts = l->ts;
  const tk_opts *to = l->to;
  tk_sink *sink = l->sink;
  rescue_buf *text = l->text;
  const rescue_tasks_opts *o = x->sum.o;
  rescue_tasks_result *res = x->res;
  rescue_store *st = x->st;
  rescue_error *err = x->err;
  int rc = 0, t;
  x->slot = 0;
  if (x->sum.split_mode) {
    if ((rc = rescue_split_of_sample(st, x->sum.run.id, s->ref, &x->slot)))
      return rc;
    if (x->slot < 0) {
      res->unassigned++;
      return RESCUE_EXPORT_SKIP;
    }
    if (!x->sum.active[x->slot]) {
      res->other_split++;
      return RESCUE_EXPORT_SKIP;
    }
  }
  if ((rc = rescue_tk_sample_prepare(ts, st, s, o->clip_root, err)) || (rc = prov_sample(x, s)))
    return rc;
  x->family = strcmp(ts->scenario, "family") == 0;
  x->sum.samples[x->slot][x->family]++;
  res->samples++;
  /* a stream carries records only: the split list is a file of a folder export */
  if (x->sum.split_mode && !o->stream) {
    rescue_buf_reset(text);
    rescue_buf_printf(text, "%s\n", s->sample_id);
    if (!rescue_buf_ok(text))
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
    if ((rc = file_write(x, &x->sum.splits[x->slot], text->s, text->len, 1)))
      return rc;
  }
  for (t = 0; t < RESCUE_TASK_COUNT && rc == 0; t++) {
    if (!(o->tasks & (1u << t)))
      continue;
    switch ((rescue_task)t) {
    case RESCUE_TASK_ITP: rc = rescue_tk_build_itp(ts, to, sink); break;
    case RESCUE_TASK_RPP: rc = rescue_tk_build_rpp(ts, to, sink); break;
    case RESCUE_TASK_STP: rc = rescue_tk_build_stp(ts, to, sink); break;
    case RESCUE_TASK_SSP: rc = rescue_tk_build_ssp(ts, to, sink); break;
    case RESCUE_TASK_ER: rc = rescue_tk_build_er(ts, to, sink); break;
    case RESCUE_TASK_VP: rc = rescue_tk_build_vp(ts, to, sink); break;
    }
    if (rc == 0 && !rescue_tk_sample_ok(ts))
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  return rc;
}

/*
** After the last sample of a folder export: the record and split files closed, the
** provenance finished, README.md (the dataset card) and manifest.json written. text is
** scratch.
*/
static int finish_files(exporter *x, rescue_buf *text) {
  rescue_error *err = x->err;
  int rc, t, sp;
  for (t = 0; t < RESCUE_TASK_COUNT; t++)
    for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
      if ((rc = file_close(x, &x->sum.files[t][sp])) ||
          (rc = file_close(x, &x->sum.answers[t][sp])))
        return rc;
  for (sp = 0; sp < RESCUE_SPLIT_COUNT; sp++)
    if ((rc = file_close(x, &x->sum.splits[sp])))
      return rc;
  if ((rc = prov_finish(x)))
    return rc;
  rescue_buf_reset(text);
  rescue_tk_card(&x->sum, text);
  if (!rescue_buf_ok(text))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if ((rc = file_whole(x, &x->sum.readme, "README.md", text)))
    return rc;
  rescue_buf_reset(text);
  rescue_tk_manifest(&x->sum, text);
  rescue_buf_putc(text, '\n');
  if (!rescue_buf_ok(text))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  {
    tk_file mf;
    memset(&mf, 0, sizeof mf);
    rc = file_whole(x, &mf, "manifest.json", text);
    file_free(&mf);
  }
  return rc;
}

int rescue_export_tasks(rescue_store *st, const char *out, const rescue_tasks_opts *o,
                        rescue_tasks_result *res) {
  return rescue_tk_export(st, out, o, res, NULL);
}

int rescue_tk_export(rescue_store *st, const char *out, const rescue_tasks_opts *o,
                     rescue_tasks_result *res, const tk_prov_source *ps) {
  rescue_error *err = rescue_store_err(st);
  rescue_tasks_result dummy;
  rescue_output *dest = NULL, *adest = NULL;
  rescue_buf text = RESCUE_BUF_INIT;
  tk_sample ts;
  tk_sink sink;
  tk_opts to;
  exporter x;
  task_loop tl = {&x, &ts, &to, &sink, &text, out, &dest, &adest};
  rescue_export_loop loop = {.view = &o->view,
                             .samples = o->samples,
                             .n_samples = o->n_samples,
                             .progress_every = 16,
                             .progress = o->progress,
                             .progress_arg = o->progress_arg,
                             .begin = open_output,
                             .each = export_sample,
                             .arg = &tl};
  rescue_export_tally tally;
  int rc, t;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  memset(&x, 0, sizeof x);
  memset(&sink, 0, sizeof sink);
  rescue_tk_sample_init(&ts, rescue_store_scheme(st));
  x.st = st;
  x.err = err;
  x.ps = ps;
  x.res = res;
  x.sum.o = o;
  x.sum.sc = rescue_store_scheme(st);
  x.sum.res = res;
  x.sum.corpus = o->corpus_name ? o->corpus_name : base_name(rescue_store_path(st));
  {
    /* a corpus made for sharing (a pseudonymised copy) says so on every card */
    sqlite3_stmt *q = rescue_store_stmt(st, "meta_get");
    if (q) {
      rescue_bind_text(q, ":key", "card_notice", -1);
      if (sqlite3_step(q) == SQLITE_ROW)
        snprintf(x.sum.notice, sizeof x.sum.notice, "%s", (const char *)sqlite3_column_text(q, 0));
      sqlite3_reset(q);
    }
  }
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
  if ((rc = plan_splits(&x)) || (rc = check_stream(&x)) || (rc = check_answers(&x, out)))
    return rc;
  x.ts = &ts;
  if (o->blind && !(x.doc = rescue_jdoc_new()))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  rc = rescue_export_each(st, &loop, &tally);
  res->discarded = tally.discarded;
  res->incomplete = tally.incomplete;
  if (rc)
    goto fail;
  {
    long records = 0;
    for (t = 0; t < RESCUE_TASK_COUNT; t++)
      records += res->instances[t];
    if (records == 0) {
      rc = empty_export(&x);
      goto fail;
    }
  }
  if (o->require_clips && res->missing_clips) {
    rc = rescue_seterr_arg(err, RESCUE_EBADINPUT, "require_clips",
                           "%ld ER/VP record%s would have no clip_path", res->missing_clips,
                           res->missing_clips == 1 ? "" : "s");
    goto fail;
  }
  if (o->stream) {
    if (fflush(o->stream) != 0)
      rc = rescue_seterr(err, RESCUE_EIO, "writing the output: %s", strerror(errno));
    goto end;
  }
  if ((rc = finish_files(&x, &text)))
    goto fail;
  /* the answers first: a published folder never stands without its answers */
  if (adest && (rc = rescue_output_commit(&adest, err)))
    goto fail;
  rc = rescue_output_commit(&dest, err);
  goto end;
fail:
  if (o->stream && o->stream != stdout)
    fflush(o->stream);
  free_files(&x);
  rescue_output_abort(&adest);
  rescue_output_abort(&dest);
end:
  free_files(&x);
  rescue_tk_prov_clear(&x.sum);
  rescue_jdoc_free(&x.doc);
  rescue_buf_clear(&x.tmp);
  rescue_buf_clear(&x.tmp2);
  rescue_tk_sample_clear(&ts);
  rescue_buf_clear(&text);
  rescue_buf_clear(&sink.line);
  return rc;
}
