/*
** clip.c: `rescue clip`: per-row clips of the selected samples, worker threads (one
** sample at a time each), deterministic shards, resume, manifests, and clip records.
** Only the calling thread touches the store; workers get everything they need in a job.
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_clip.h"
#include "rescue_json.h"
#include "rescue_media.h"
#include "rescue_output.h"
#include "store_int.h"

/* Row times further than this past the source's end fail the sample before cutting. */
#define LEN_SLACK 0.050

int rescue_clip_mode_parse(const char *name, rescue_clip_mode *out) {
  if (strcmp(name, "copy") == 0)
    *out = RESCUE_CLIP_COPY;
  else if (strcmp(name, "exact") == 0)
    *out = RESCUE_CLIP_EXACT;
  else if (strcmp(name, "audio") == 0)
    *out = RESCUE_CLIP_AUDIO;
  else
    return RESCUE_EINVAL;
  return 0;
}

const char *rescue_clip_mode_name(rescue_clip_mode mode) {
  switch (mode) {
  case RESCUE_CLIP_COPY: return "copy";
  case RESCUE_CLIP_EXACT: return "exact";
  case RESCUE_CLIP_AUDIO: return "audio";
  }
  return "copy";
}

/* A clip recorded by an earlier run (the current record of its position and mode). */
typedef struct prior {
  char *path, *sha256;
  double req_start, req_end;
  int64_t bytes, segment_id;
  double act_start, act_end; /* what the clip presents, as recorded */
  int64_t frames, audio_samples;
  int64_t row_id; /* row.id it was cut for; 0: recorded before clips knew their rows */
} prior;

/* One sample's work. Filled by the calling thread, cut by a worker, recorded by the caller. */
typedef struct job {
  char *sample_id;
  int64_t ref, segment_id;
  char *src_path, *src_label, *fingerprint;
  int64_t src_size;
  double src_duration;
  int has_span;
  double seg_start, seg_end;
  int n_rows; /* rows of the sample; reqs[0..n_rows) are rows, reqs[n_rows] the
                               segment when has_span (and not audio mode) */
  double *row_start, *row_end;
  int64_t *row_id;     /* row.id of each row (the corpus view's row set) */
  prior *priors;       /* per position 0..n_rows (0: segment), recorded for this folder */
  prior *shard_priors; /* per position: what a shard cut into this folder (not recorded) */
  int *adopted;        /* per request: kept from a shard, to record now */
  /* worker results */
  cut_req *reqs;
  int n_reqs;
  int *kept; /* per request: kept from an earlier run */
  int *skip; /* per request: not asked for in this run (--rows) */
  char **paths, **tmps;
  char **finals;  /* --rows: final names (paths[] are then staging names) */
  char err[1024]; /* sample-level failure */
  int err_code;   /* its code (RESCUE_EMEDIA when not set) */
  int failed;
  int started, finished;
} job;

typedef struct runner {
  rescue_store *st;
  const rescue_clip_opts *o;
  rescue_clip_result *res;
  char *out_abs, *base_abs;
  job *jobs;
  int n_jobs;
  int next; /* next job to hand out */
  int n_finished;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  int threads;            /* encoder threads per worker */
  int split;              /* parts the rows of one sample are cut in (spare workers) */
  _Atomic long settled;   /* requests finished, failed or kept so far */
  struct shard_rec *recs; /* clips shards cut into this folder (their note files) */
  int n_recs;
} runner;

/* One clip a shard cut, from <out>/.rescue-clip-shard-<i>of<n>.jsonl. */
typedef struct shard_rec {
  char *sample_id;
  int position;
  char mode[8];
  prior p;
} shard_rec;

static void job_free(job *j) {
  int i;
  rescue_free(j->sample_id);
  rescue_free(j->src_path);
  rescue_free(j->src_label);
  rescue_free(j->fingerprint);
  rescue_free(j->row_start);
  rescue_free(j->row_end);
  rescue_free(j->row_id);
  for (i = 0; j->priors && i <= j->n_rows; i++) {
    rescue_free(j->priors[i].path);
    rescue_free(j->priors[i].sha256);
  }
  rescue_free(j->priors);
  for (i = 0; j->shard_priors && i <= j->n_rows; i++) {
    rescue_free(j->shard_priors[i].path);
    rescue_free(j->shard_priors[i].sha256);
  }
  rescue_free(j->shard_priors);
  rescue_free(j->adopted);
  for (i = 0; i < j->n_reqs; i++) {
    rescue_free(j->paths ? j->paths[i] : NULL);
    rescue_free(j->tmps ? j->tmps[i] : NULL);
    rescue_free(j->finals ? j->finals[i] : NULL);
  }
  rescue_free(j->paths);
  rescue_free(j->tmps);
  rescue_free(j->finals);
  rescue_free(j->reqs);
  rescue_free(j->kept);
  rescue_free(j->skip);
}

/* ---- paths ---- */

/* mkdir -p for a folder. */
static int make_dir(const char *dir) {
  rescue_buf b = RESCUE_BUF_INIT;
  int rc;
  rescue_buf_printf(&b, "%s/x", dir);
  rc = b.s ? rescue_make_parents(b.s) : -1;
  rescue_buf_clear(&b);
  return rc;
}

/* target relative to base (both absolute, without symlinks), into out. */
static void relative_path(const char *base, const char *target, rescue_buf *out) {
  size_t i = 0, common = 0;
  const char *p;
  rescue_buf_reset(out);
  while (base[i] && base[i] == target[i]) {
    if (base[i] == '/')
      common = i;
    i++;
  }
  if (!base[i] && (target[i] == '/' || !target[i]))
    common = i;
  if (strcmp(base, "/") == 0)
    common = 0;
  for (p = base + common; *p; p++)
    if (*p == '/' && p[1])
      rescue_buf_puts(out, "../");
  p = target + common;
  if (*p == '/')
    p++;
  rescue_buf_puts(out, p);
}

/*
** Remove what a killed run left in a folder: our temporary names (".<name>.part" and
** ".<name>.<pid>.part"). Only called while holding the output folder's lock, so no other
** run is writing them.
*/
static void remove_leftovers(const char *dir) {
  DIR *d = opendir(dir);
  struct dirent *e;
  rescue_buf p = RESCUE_BUF_INIT;
  if (!d)
    return;
  while ((e = readdir(d)) != NULL) {
    size_t n = strlen(e->d_name);
    if (e->d_name[0] != '.' || n < 6 || strcmp(e->d_name + n - 5, ".part") != 0)
      continue;
    rescue_buf_reset(&p);
    rescue_buf_printf(&p, "%s/%s", dir, e->d_name);
    if (rescue_buf_ok(&p))
      remove(p.s);
  }
  closedir(d);
  rescue_buf_clear(&p);
}

/*
** Take the output folder for this run: an exclusive lock on <out>/.rescue-clip.lock (the
** kernel drops it when the process ends, however it ends). A second run on the same
** folder is refused at once with the first run's process id.
*/
static int lock_out(const char *out, int *fd_out, rescue_error *err) {
  rescue_buf p = RESCUE_BUF_INIT;
  char pid[32] = "";
  int fd, rc = 0;
  rescue_buf_printf(&p, "%s/.rescue-clip.lock", out);
  if (!rescue_buf_ok(&p))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  fd = open(p.s, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot create '%s': %s", p.s, strerror(errno));
  } else if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int busy = errno == EWOULDBLOCK;
    ssize_t got = busy ? read(fd, pid, sizeof pid - 1) : -1;
    if (got > 0) {
      pid[got] = 0;
      pid[strcspn(pid, "\n")] = 0;
    }
    rc = busy
             ? rescue_seterr(err, RESCUE_ELOCKED, "'%s' is being written by another clip run%s%s%s",
                             out, pid[0] ? " (process " : "", pid, pid[0] ? ")" : "")
             : rescue_seterr(err, RESCUE_EIO, "cannot lock '%s': %s", p.s, strerror(errno));
    close(fd);
    fd = -1;
  } else {
    char line[32];
    int n = snprintf(line, sizeof line, "%ld\n", (long)getpid());
    if (ftruncate(fd, 0) != 0 || pwrite(fd, line, (size_t)n, 0) != n) {
      /* the pid is only for the message a second run prints */
    }
  }
  rescue_buf_clear(&p);
  *fd_out = fd;
  return rc;
}

/* ---- the worker's part ---- */

static double round3(double x) { return floor(x * 1000 + 0.5) / 1000; }

/* Copy a prior's fields (new strings) into *to, replacing what it held. -1: out of memory. */
static int prior_set(prior *to, const prior *from) {
  rescue_free(to->path);
  rescue_free(to->sha256);
  *to = *from;
  to->path = rescue_strdup(from->path);
  to->sha256 = rescue_strdup(from->sha256);
  return to->path && to->sha256 ? 0 : -1;
}

/*
** Is the clip recorded by an earlier run still on disk, for the same request? A clip whose
** span matches but that was recorded for another row (or before clips knew their rows) is
** the same file: it is kept, and record_job records it again under this row's id.
*/
static int still_valid(const prior *pr, const cut_req *r, const char *path, int64_t segment_id) {
  char hex[65];
  int64_t size;
  struct stat sb;
  if (!pr->path || strcmp(pr->path, path) != 0 || pr->segment_id != segment_id ||
      fabs(pr->req_start - r->start) > 1e-6 || fabs(pr->req_end - r->end) > 1e-6)
    return 0;
  if (stat(path, &sb) != 0 || (int64_t)sb.st_size != pr->bytes)
    return 0;
  if (rescue_sha256_file(path, hex, &size, NULL) != 0)
    return 0;
  return strcmp(hex, pr->sha256) == 0;
}

/* Check the source on disk against what was linked: present, same size and fingerprint. */
static int check_source(job *j) {
  struct stat sb;
  char fp[65];
  int64_t size;
  rescue_error e = RESCUE_ERROR_INIT;
  if (stat(j->src_path, &sb) != 0) {
    snprintf(j->err, sizeof j->err, "'%s' is missing (%s)", j->src_label, strerror(errno));
    return -1;
  }
  if ((int64_t)sb.st_size != j->src_size) {
    snprintf(j->err, sizeof j->err, "'%s' changed since it was linked (%lld bytes, was %lld)",
             j->src_label, (long long)sb.st_size, (long long)j->src_size);
    j->err_code = RESCUE_EMEDIACHANGED;
    return -1;
  }
  if (rescue_media_fingerprint(j->src_path, &size, fp, &e)) {
    snprintf(j->err, sizeof j->err, "%.1000s", e.msg);
    return -1;
  }
  if (strcmp(fp, j->fingerprint) != 0) {
    snprintf(j->err, sizeof j->err, "'%s' changed since it was linked (its content differs)",
             j->src_label);
    j->err_code = RESCUE_EMEDIACHANGED;
    return -1;
  }
  return 0;
}

/* Build the requests of a job (rows, then the segment), checking row times. */
static int plan(runner *rn, job *j) {
  const rescue_clip_opts *o = rn->o;
  const char *ext = o->mode == RESCUE_CLIP_AUDIO ? "wav" : "mp4";
  int with_segment = j->has_span && o->mode != RESCUE_CLIP_AUDIO, i;
  double limit = j->src_duration > 0 ? j->src_duration : INFINITY;
  j->n_reqs = j->n_rows + with_segment;
  j->reqs = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->reqs);
  j->kept = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->kept);
  j->paths = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->paths);
  j->tmps = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->tmps);
  j->skip = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->skip);
  j->finals = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->finals);
  j->adopted = rescue_calloc((size_t)j->n_reqs + 1, sizeof *j->adopted);
  if (!j->reqs || !j->kept || !j->paths || !j->tmps || !j->skip || !j->finals || !j->adopted) {
    snprintf(j->err, sizeof j->err, "out of memory");
    return -1;
  }
  for (i = 0; i < j->n_reqs; i++) {
    cut_req *r = &j->reqs[i];
    rescue_buf p = RESCUE_BUF_INIT, t = RESCUE_BUF_INIT;
    if (o->rows) {
      int k;
      j->skip[i] = 1;
      for (k = 0; k < o->n_rows && i < j->n_rows; k++)
        j->skip[i] &= o->rows[k] != i + 1;
    }
    if (i < j->n_rows) {
      double s = j->row_start[i], e = j->row_end[i];
      if (!isfinite(s) || !isfinite(e) || s < 0 || e <= s) {
        snprintf(j->err, sizeof j->err,
                 "row %d: cannot cut %g-%g s (end_time must be after "
                 "start_time, both >= 0)",
                 i + 1, s, e);
        return -1;
      }
      s += j->seg_start;
      e += j->seg_start;
      if (e > limit + LEN_SLACK) {
        snprintf(j->err, sizeof j->err,
                 "'%s' is %.3f s long, %.3f s short of row %d's end (%.3f s into the source)",
                 j->src_label, limit, e - limit, i + 1, e);
        return -1;
      }
      r->start = s - o->pad > 0 ? s - o->pad : 0;
      r->end = e + o->pad < limit ? e + o->pad : (e > limit ? e : limit);
      rescue_buf_printf(&p, "%s/%s/clips/%03d.%s", o->out, j->sample_id, i + 1, ext);
    } else {
      r->start = j->seg_start;
      r->end = j->seg_end;
      rescue_buf_printf(&p, "%s/%s/segment.mp4", o->out, j->sample_id);
    }
    if (rescue_buf_ok(&p)) {
      char *tn = rescue_file_tmpname(p.s);
      rescue_buf_puts(&t, tn ? tn : "");
      rescue_free(tn);
      if (!tn)
        t.oom = 1;
    }
    if (!rescue_buf_ok(&p) || !rescue_buf_ok(&t)) {
      rescue_buf_clear(&p);
      rescue_buf_clear(&t);
      snprintf(j->err, sizeof j->err, "out of memory");
      return -1;
    }
    if (o->rows && i < j->n_rows) {
      /* all or nothing: clips wait under a second temporary name until every one is done */
      rescue_buf s = RESCUE_BUF_INIT;
      rescue_buf_printf(&s, "%.*s.ready.part", (int)t.len - 5, t.s ? t.s : "");
      j->finals[i] = rescue_buf_detach(&p);
      if (!rescue_buf_ok(&s) || !j->finals[i]) {
        rescue_buf_clear(&s);
        rescue_buf_clear(&t);
        snprintf(j->err, sizeof j->err, "out of memory");
        return -1;
      }
      p = s;
    }
    j->paths[i] = rescue_buf_detach(&p);
    j->tmps[i] = rescue_buf_detach(&t);
    r->path = j->paths[i];
    r->tmp = j->tmps[i];
  }
  return 0;
}

/*
** A manifest entry being merged: its members in order, each either a value read from the
** earlier manifest (node, in the jdoc) or one this run sets (raw: its JSON text, owned).
** Keys are unique, as in a JSON object read the usual way: a key repeated in the file is
** one member at its first place with its last value.
*/
typedef struct mfield {
  const char *key;          /* a string literal or the earlier manifest's (in the jdoc) */
  const rescue_jnode *node; /* the earlier value, or NULL */
  char *raw;                /* this run's value as JSON, or NULL */
} mfield;

typedef struct mentry {
  mfield *f;
  int n, cap;
  int used; /* the entry exists (rows by index) */
} mentry;

static int ment_find(const mentry *e, const char *key) {
  int i;
  for (i = 0; i < e->n; i++)
    if (strcmp(e->f[i].key, key) == 0)
      return i;
  return -1;
}

/* Set key to node or raw (raw is taken over, freed on failure): in place, else at the end. */
static int ment_put(mentry *e, const char *key, const rescue_jnode *node, char *raw) {
  int i = ment_find(e, key);
  if (i < 0) {
    if (RESCUE_ALLOC_GROW(e->f, e->n + 1, e->cap)) {
      rescue_free(raw);
      return -1;
    }
    i = e->n++;
    e->f[i].key = key;
    e->f[i].raw = NULL;
  }
  rescue_free(e->f[i].raw);
  e->f[i].node = node;
  e->f[i].raw = raw;
  e->used = 1;
  return 0;
}

static void ment_del(mentry *e, const char *key) {
  int i = ment_find(e, key);
  if (i < 0)
    return;
  rescue_free(e->f[i].raw);
  memmove(&e->f[i], &e->f[i + 1], (size_t)(e->n - i - 1) * sizeof *e->f);
  e->n--;
}

static void ment_clear(mentry *e) {
  int i;
  for (i = 0; i < e->n; i++)
    rescue_free(e->f[i].raw);
  rescue_free(e->f);
  memset(e, 0, sizeof *e);
}

/* The entry as the earlier manifest has it (an object node). 0 or -1 (out of memory). */
static int ment_load(mentry *e, const rescue_jnode *obj) {
  const rescue_jnode *m;
  ment_clear(e);
  e->used = 1;
  for (m = obj->child; m; m = m->next)
    if (ment_put(e, m->key, m, NULL))
      return -1;
  return 0;
}

/*
** Set key to a string, an integer or a real this run computed. A value JSON cannot carry
** (a string that is not UTF-8, a real that is not finite) leaves the member as it was,
** as the manifest has always done. 0 or -1 (out of memory).
*/
static int ment_set(mentry *e, const char *key, const char *s, long long i, double d, int kind) {
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  char *raw;
  if ((kind == 's' && !rescue_utf8_valid(s, strlen(s))) || (kind == 'd' && !isfinite(d)))
    return 0;
  rescue_jw_init(&w, &b);
  if (kind == 's')
    rescue_jw_str(&w, s);
  else if (kind == 'i')
    rescue_jw_int(&w, i);
  else
    rescue_jw_double(&w, d);
  if (!rescue_buf_ok(&b) || !(raw = rescue_buf_detach(&b))) {
    rescue_buf_clear(&b);
    return -1;
  }
  return ment_put(e, key, NULL, raw);
}
static int ment_str(mentry *e, const char *key, const char *s) {
  return ment_set(e, key, s, 0, 0, 's');
}
static int ment_int(mentry *e, const char *key, long long v) {
  return ment_set(e, key, NULL, v, 0, 'i');
}
static int ment_real(mentry *e, const char *key, double d) {
  return ment_set(e, key, NULL, 0, d, 'd');
}

/*
** Write a value read from the earlier manifest as the manifest writes values: integers
** as integers, reals in Python's repr, strings re-escaped, a repeated key once (first
** place, last value).
*/
static void write_node(rescue_jw *w, const rescue_jnode *n) {
  const rescue_jnode *c, *p;
  switch (n->type) {
  case RESCUE_JOBJECT:
    rescue_jw_obj(w);
    for (c = n->child; c; c = c->next) {
      for (p = n->child; p != c && strcmp(p->key, c->key) != 0; p = p->next)
        ;
      if (p != c)
        continue; /* written at its first place */
      rescue_jw_key(w, c->key);
      write_node(w, rescue_jget(n, c->key));
    }
    rescue_jw_end(w);
    break;
  case RESCUE_JARRAY:
    rescue_jw_arr(w);
    for (c = n->child; c; c = c->next)
      write_node(w, c);
    rescue_jw_end(w);
    break;
  case RESCUE_JSTRING: rescue_jw_strn(w, n->s, n->len); break;
  case RESCUE_JNUMBER:
    if (n->is_int)
      rescue_jw_int(w, strtoll(n->s, NULL, 10));
    else
      rescue_jw_double(w, n->num);
    break;
  case RESCUE_JTRUE: rescue_jw_bool(w, 1); break;
  case RESCUE_JFALSE: rescue_jw_bool(w, 0); break;
  case RESCUE_JNULL: rescue_jw_null(w); break;
  }
}

static void write_entry(rescue_jw *w, const mentry *e) {
  int i;
  rescue_jw_obj(w);
  for (i = 0; i < e->n; i++) {
    rescue_jw_key(w, e->f[i].key);
    if (e->f[i].raw)
      rescue_jw_raw(w, e->f[i].raw, strlen(e->f[i].raw));
    else
      write_node(w, e->f[i].node);
  }
  rescue_jw_end(w);
}

/*
** The seconds at a clip's start before the source's sound begins (a recording whose audio
** starts after its picture): "no_audio_sec" for the mp4, "wav_no_audio_sec" for the WAV,
** present only when there are any. A clip kept from an earlier run keeps what its entry says.
*/
static int no_audio_field(mentry *e, const char *key, const cut_req *r, int kept) {
  if (kept)
    return 0;
  if (round3(r->no_audio) > 0)
    return ment_real(e, key, round3(r->no_audio));
  ment_del(e, key);
  return 0;
}

/*
** The row a video clip was cut for (corpus/FORMAT.md §7): "row_id" (row.id), "start" and
** "end" (the row's span, seconds of the sample, without the pad) and "clip_start" (the
** second of the sample the clip's first presented instant shows). i < 0: the segment,
** which has none. 0 or -1 (out of memory).
*/
static int row_fields(mentry *e, const job *j, int i, const cut_req *r) {
  if (i < 0)
    return 0;
  return ment_int(e, "row_id", j->row_id[i]) || ment_real(e, "start", round3(j->row_start[i])) ||
         ment_real(e, "end", round3(j->row_end[i])) ||
         ment_real(e, "clip_start", round3(r->act_start - j->seg_start));
}

/*
** Set the fields one request contributes to its manifest entry: request i of job j (the
** segment when i >= j->n_rows). 0 or -1 (out of memory).
*/
static int entry_fields(runner *rn, mentry *e, const job *j, int i, const char *rel, int kept) {
  rescue_clip_mode m = rn->o->mode;
  const cut_req *r = &j->reqs[i];
  if (m == RESCUE_CLIP_AUDIO)
    return ment_str(e, "audio_path", rel) || ment_str(e, "audio_sha256", r->sha256) ||
           ment_int(e, "wav_samples", r->audio_samples) ||
           no_audio_field(e, "wav_no_audio_sec", r, kept) ||
           (ment_find(e, "duration_sec") < 0 &&
            ment_real(e, "duration_sec", round3(r->end - r->start)));
  return ment_str(e, "clip_path", rel) || ment_real(e, "duration_sec", round3(r->end - r->start)) ||
         ment_str(e, "mode", rescue_clip_mode_name(m)) ||
         ment_real(e, "requested_start", round3(r->start)) ||
         ment_real(e, "requested_end", round3(r->end)) ||
         ment_real(e, "actual_start", round3(r->act_start)) ||
         ment_real(e, "actual_end", round3(r->act_end)) || ment_int(e, "frames", r->frames) ||
         ment_int(e, "audio_samples", r->audio_samples) ||
         row_fields(e, j, i < j->n_rows ? i : -1, r) ||
         no_audio_field(e, "no_audio_sec", r, kept) || ment_str(e, "sha256", r->sha256);
}

/*
** Load the row entries of an earlier manifest (old, NULL for none) into byidx[1..n_rows],
** keyed by their "index"; entries without a valid index in range are dropped. 0, or -1
** when out of memory.
*/
static int load_old_rows(const rescue_jnode *old, mentry *byidx, int n_rows) {
  if (rescue_jget(old, "rows") && rescue_jget(old, "rows")->type == RESCUE_JARRAY) {
    const rescue_jnode *e;
    for (e = rescue_jget(old, "rows")->child; e; e = e->next) {
      const rescue_jnode *ix = rescue_jget(e, "index");
      long long n = !ix                                        ? 0
                    : ix->type == RESCUE_JNUMBER && ix->is_int ? strtoll(ix->s, NULL, 10)
                    : ix->type == RESCUE_JSTRING               ? atoll(ix->s)
                                                               : 0;
      if (e->type == RESCUE_JOBJECT && n >= 1 && n <= n_rows && ment_load(&byidx[n], e))
        return -1;
    }
  }
  return 0;
}

/*
** Drop from byidx the fields of this run's mode for every row this run could neither keep
** nor cut, and the whole entry when no clip of either mode is left in it.
*/
static void drop_stale_rows(runner *rn, job *j, mentry *byidx) {
  int i;
  /* a row this run could neither keep nor cut: its earlier entry no longer describes a
     valid clip for the request (the request or the file changed), so it goes */
  for (i = 0; i < j->n_rows; i++) {
    static const char *const video_keys[] = {"clip_path",       "duration_sec",  "mode",
                                             "requested_start", "requested_end", "actual_start",
                                             "actual_end",      "frames",        "audio_samples",
                                             "sha256",          "no_audio_sec",  "row_id",
                                             "start",           "end",           "clip_start"};
    static const char *const audio_keys[] = {"audio_path", "audio_sha256", "wav_samples",
                                             "wav_no_audio_sec"};
    mentry *e = &byidx[i + 1];
    size_t k;
    if (!e->used || j->skip[i] || j->reqs[i].done)
      continue;
    if (rn->o->mode == RESCUE_CLIP_AUDIO) {
      for (k = 0; k < sizeof audio_keys / sizeof *audio_keys; k++)
        ment_del(e, audio_keys[k]);
    } else {
      for (k = 0; k < sizeof video_keys / sizeof *video_keys; k++)
        ment_del(e, video_keys[k]);
    }
    if (ment_find(e, "clip_path") < 0 && ment_find(e, "audio_path") < 0)
      ment_clear(e);
  }
}

/*
** Merge every request this run cut or kept into byidx (rows) and seg (the segment, unless
** the earlier entry old_seg stands). 0, or -1 when out of memory.
*/
static int merge_run(runner *rn, job *j, mentry *byidx, mentry *seg, const rescue_jnode *old_seg) {
  rescue_buf abs = RESCUE_BUF_INIT, rel = RESCUE_BUF_INIT;
  int i, rc = -1;
  for (i = 0; i < j->n_reqs; i++) {
    cut_req *r = &j->reqs[i];
    mentry *e = &byidx[i + 1];
    int had; /* its earlier entry describes this mode's file */
    if (!r->done)
      continue;
    rescue_buf_reset(&abs);
    rescue_buf_printf(&abs, "%s/%s/%s", rn->out_abs, j->sample_id, i < j->n_rows ? "clips" : "");
    if (i < j->n_rows)
      rescue_buf_puts(&abs, strrchr(r->path, '/'));
    else
      rescue_buf_puts(&abs, "segment.mp4");
    relative_path(rn->base_abs, abs.s ? abs.s : "", &rel);
    if (i >= j->n_rows) {
      if (j->kept[i] && old_seg && old_seg->type == RESCUE_JOBJECT)
        continue; /* the same file: its earlier entry stands */
      ment_clear(seg);
      seg->used = 1;
      if (entry_fields(rn, seg, j, i, rel.s ? rel.s : "", 0))
        goto end;
      continue;
    }
    had =
        e->used && ment_find(e, rn->o->mode == RESCUE_CLIP_AUDIO ? "audio_sha256" : "sha256") >= 0;
    if (!e->used) {
      e->used = 1;
      if (ment_int(e, "index", i + 1))
        goto end;
      if (rn->o->mode == RESCUE_CLIP_AUDIO) {
        /* the release readers want a clip_path; point it where the video clip goes */
        rescue_buf v = RESCUE_BUF_INIT;
        char *dot;
        int bad;
        rescue_buf_puts(&v, rel.s ? rel.s : "");
        dot = v.s ? strrchr(v.s, '.') : NULL;
        if (dot)
          strcpy(dot, ".mp4");
        bad = !rescue_buf_ok(&v) || ment_str(e, "clip_path", v.s ? v.s : "");
        rescue_buf_clear(&v);
        if (bad)
          goto end;
      }
    }
    if (entry_fields(rn, e, j, i, rel.s ? rel.s : "", j->kept[i] && had))
      goto end;
  }
  if (rescue_buf_ok(&abs) && rescue_buf_ok(&rel))
    rc = 0;
end:
  rescue_buf_clear(&abs);
  rescue_buf_clear(&rel);
  return rc;
}

/*
** Write the manifest's text to text: sample_id, segment (seg when this run set it, else
** the earlier old_seg), rows in index order. Failures show in rescue_buf_ok(text).
*/
static void render_manifest(job *j, const mentry *byidx, const mentry *seg,
                            const rescue_jnode *old_seg, rescue_buf *text) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, text);
  rescue_jw_obj(&w);
  if (rescue_utf8_valid(j->sample_id, strlen(j->sample_id))) {
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, j->sample_id);
  }
  if (seg->used || old_seg) {
    rescue_jw_key(&w, "segment");
    if (seg->used)
      write_entry(&w, seg);
    else
      write_node(&w, old_seg);
  }
  rescue_jw_key(&w, "rows");
  rescue_jw_arr(&w);
  for (i = 1; i <= j->n_rows; i++)
    if (byidx[i].used)
      write_entry(&w, &byidx[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}

/*
** Merge this run into <out>/<sample>/manifest.json: entries are keyed by index; fields of
** other modes and unknown fields stay; rows past the sample's row count are dropped. An
** earlier manifest that is not valid JSON counts as none.
*/
static int write_manifest(runner *rn, job *j) {
  rescue_buf path = RESCUE_BUF_INIT, text = RESCUE_BUF_INIT;
  rescue_jdoc *doc = NULL;
  const rescue_jnode *old = NULL, *old_seg = NULL;
  char *old_text = NULL;
  size_t old_len = 0;
  mentry *byidx = NULL, seg = {NULL, 0, 0, 0};
  rescue_error rerr = RESCUE_ERROR_INIT;
  rescue_jerror jerr;
  int i, rc = -1;
  byidx = rescue_calloc((size_t)j->n_rows + 1, sizeof *byidx);
  if (!byidx)
    goto nomem;
  rescue_buf_printf(&path, "%s/%s/manifest.json", rn->o->out, j->sample_id);
  if (!rescue_buf_ok(&path))
    goto nomem;
  if (rescue_read_file(path.s, &old_text, &old_len, &rerr) == RESCUE_ENOMEM)
    goto nomem;
  if (old_text) {
    if (!(doc = rescue_jdoc_new()))
      goto nomem;
    if (!(old = rescue_jparse(doc, old_text, old_len, &jerr)) &&
        strcmp(jerr.msg, "out of memory") == 0)
      goto nomem;
  }
  old_seg = rescue_jget(old, "segment");
  if (load_old_rows(old, byidx, j->n_rows))
    goto nomem;
  drop_stale_rows(rn, j, byidx);
  if (merge_run(rn, j, byidx, &seg, old_seg))
    goto nomem;
  render_manifest(j, byidx, &seg, old_seg, &text);
  rescue_buf_putc(&text, '\n');
  if (!rescue_buf_ok(&text))
    goto nomem;
  if (rescue_file_write_atomic(path.s, text.s, text.len, &rerr))
    goto end; /* errno says why */
  rc = 0;
  goto end;
nomem:
  errno = ENOMEM;
end:
  if (rc)
    snprintf(j->err, sizeof j->err, "cannot write '%s': %s", path.s ? path.s : "manifest.json",
             strerror(errno));
  for (i = 0; byidx && i <= j->n_rows; i++)
    ment_clear(&byidx[i]);
  rescue_free(byidx);
  ment_clear(&seg);
  rescue_jdoc_free(&doc);
  rescue_free(old_text);
  rescue_buf_clear(&path);
  rescue_buf_clear(&text);
  return rc;
}

/* One part of a sample's requests, cut on its own thread (its own pass over the source). */
typedef struct part {
  const cut_source *src;
  rescue_clip_mode mode;
  cut_req *reqs;
  int n, threads;
  pthread_t tid;
} part;

static void *cut_part(void *arg) {
  part *pt = arg;
  rescue_error e = RESCUE_ERROR_INIT;
  switch (pt->mode) {
  case RESCUE_CLIP_COPY: cut_copy(pt->src, pt->reqs, pt->n, 1, &e); break;
  case RESCUE_CLIP_EXACT: cut_exact(pt->src, pt->reqs, pt->n, pt->threads, &e); break;
  case RESCUE_CLIP_AUDIO: cut_audio(pt->src, pt->reqs, pt->n, &e); break;
  }
  return NULL;
}

/* Requests by start time (with their positions), for splitting into contiguous parts. */
typedef struct by_start {
  cut_req r;
  int pos;
} by_start;

static int cmp_start(const void *x, const void *y) {
  const by_start *a = x, *b = y;
  return a->r.start < b->r.start ? -1 : a->r.start > b->r.start ? 1 : a->pos - b->pos;
}

/*
** Cut n requests: in one pass, or (spare workers, enough rows) in rn->split parts of
** consecutive spans, each its own pass on its own thread. map[] follows the requests.
*/
static void cut_all(runner *rn, const cut_source *src, cut_req *todo, int *map, int n) {
  int parts = rn->split, i, k, from = 0;
  part pt[64];
  if (parts > 64)
    parts = 64;
  if (parts > 1 && n >= 4 * parts) {
    by_start *bs = rescue_calloc((size_t)n, sizeof *bs);
    if (bs) {
      for (i = 0; i < n; i++) {
        bs[i].r = todo[i];
        bs[i].pos = map[i];
      }
      qsort(bs, (size_t)n, sizeof *bs, cmp_start);
      for (i = 0; i < n; i++) {
        todo[i] = bs[i].r;
        map[i] = bs[i].pos;
      }
      rescue_free(bs);
    } else {
      parts = 1;
    }
  } else {
    parts = 1;
  }
  for (k = 0; k < parts; k++) {
    int to = (int)((long long)n * (k + 1) / parts);
    pt[k].src = src;
    pt[k].mode = rn->o->mode;
    pt[k].reqs = todo + from;
    pt[k].n = to - from;
    pt[k].threads = parts > 1 ? 1 : rn->threads;
    from = to;
  }
  for (k = 1; k < parts; k++)
    if (pthread_create(&pt[k].tid, NULL, cut_part, &pt[k]) != 0)
      pt[k].tid = 0, cut_part(&pt[k]);
  cut_part(&pt[0]);
  for (k = 1; k < parts; k++)
    if (pt[k].tid)
      pthread_join(pt[k].tid, NULL);
}

/*
** --rows: every chosen clip is complete under its staging name. Move them all to their
** final names; when one is missing, remove them all and fail the sample instead.
*/
static void settle_rows(job *j) {
  rescue_error e = RESCUE_ERROR_INIT;
  int i, all = 1;
  for (i = 0; i < j->n_reqs; i++)
    if (!j->skip[i] && !j->reqs[i].done)
      all = 0;
  for (i = 0; i < j->n_reqs; i++) {
    cut_req *r = &j->reqs[i];
    if (j->skip[i] || !r->done)
      continue;
    if (all && rescue_file_commit(r->path, j->finals[i], &e)) {
      snprintf(r->err, sizeof r->err, "%.500s", e.msg);
      all = 0;
    }
    if (!all)
      remove(r->path);
    r->path = j->finals[i];
  }
  if (all)
    return;
  /* the sample's message names the row that failed, not one that was held back */
  for (i = 0; i < j->n_reqs && !j->failed; i++)
    if (!j->skip[i] && !j->reqs[i].done) {
      j->failed = 1;
      snprintf(j->err, sizeof j->err, "row %d: %.900s", i + 1, j->reqs[i].err);
    }
  for (i = 0; i < j->n_reqs; i++)
    if (!j->skip[i] && j->reqs[i].done) {
      j->reqs[i].done = 0;
      snprintf(j->reqs[i].err, sizeof j->reqs[i].err,
               "not replaced: another chosen row failed (all or nothing)");
    }
}

/*
** The review copy (opts->review_copy): <out>/<sample>/review.mp4, the sample's whole span
** (its segment, or the whole source) re-encoded with a keyframe every
** RESCUE_REVIEW_KEYINT s, so the page's seeks decode at most that much. Kept while it is
** newer than the segment.mp4 beside it (a recut segment means a new span). 0, or -1 with
** j->err set.
*/
static int write_review(runner *rn, job *j, const cut_source *src) {
  rescue_buf p = RESCUE_BUF_INIT, seg = RESCUE_BUF_INIT;
  rescue_error e = RESCUE_ERROR_INIT;
  struct stat rs, ss;
  cut_req r;
  char *tmp = NULL;
  int rc = 0;

  rescue_buf_printf(&p, "%s/%s/review.mp4", rn->o->out, j->sample_id);
  rescue_buf_printf(&seg, "%s/%s/segment.mp4", rn->o->out, j->sample_id);
  if (!rescue_buf_ok(&p) || !rescue_buf_ok(&seg) || !(tmp = rescue_file_tmpname(p.s))) {
    snprintf(j->err, sizeof j->err, "out of memory");
    rc = -1;
    goto end;
  }
  if (stat(p.s, &rs) == 0 &&
      (!j->has_span || (stat(seg.s, &ss) == 0 && (rs.st_mtim.tv_sec > ss.st_mtim.tv_sec ||
                                                  (rs.st_mtim.tv_sec == ss.st_mtim.tv_sec &&
                                                   rs.st_mtim.tv_nsec >= ss.st_mtim.tv_nsec)))))
    goto end; /* current */
  memset(&r, 0, sizeof r);
  r.start = j->has_span ? j->seg_start : 0;
  r.end = j->has_span ? j->seg_end : j->src_duration;
  r.path = p.s;
  r.tmp = tmp;
  r.keyint = RESCUE_REVIEW_KEYINT;
  cut_exact(src, &r, 1, rn->threads, &e);
  if (!r.done) {
    snprintf(j->err, sizeof j->err, "review copy: %.900s", r.err);
    rc = -1;
  }
end:
  rescue_free(tmp);
  rescue_buf_clear(&p);
  rescue_buf_clear(&seg);
  return rc;
}

/*
** Request i (position pos) of job j: is the clip a shard cut into this folder still valid
** for it? Then it becomes the request's prior, marked adopted (recorded by this run).
*/
static int adopt_shard_clip(job *j, int i, int pos) {
  const prior *sp = &j->shard_priors[pos];
  if (!j->adopted || !sp->path || !still_valid(sp, &j->reqs[i], j->paths[i], j->segment_id))
    return 0;
  if (prior_set(&j->priors[pos], sp))
    return 0; /* out of memory: cut it again */
  j->adopted[i] = 1;
  return 1;
}

/* Cut one sample: check its source, keep valid earlier clips, cut the rest, manifest. */
static void run_job(runner *rn, job *j) {
  const rescue_clip_opts *o = rn->o;
  rescue_buf dir = RESCUE_BUF_INIT;
  cut_req *todo = NULL;
  int *map = NULL, n = 0, i, seg = -1;
  cut_source src;
  rescue_error e = RESCUE_ERROR_INIT;

  if (plan(rn, j) || check_source(j))
    goto fail;
  rescue_buf_printf(&dir, "%s/%s/clips", o->out, j->sample_id);
  if (!rescue_buf_ok(&dir) || make_dir(dir.s) != 0) {
    snprintf(j->err, sizeof j->err, "cannot create '%s': %s", dir.s ? dir.s : o->out,
             strerror(errno));
    goto fail;
  }
  remove_leftovers(dir.s);
  rescue_buf_reset(&dir);
  rescue_buf_printf(&dir, "%s/%s", o->out, j->sample_id);
  if (rescue_buf_ok(&dir))
    remove_leftovers(dir.s);
  todo = rescue_calloc((size_t)j->n_reqs + 1, sizeof *todo);
  map = rescue_calloc((size_t)j->n_reqs + 1, sizeof *map);
  if (!todo || !map) {
    snprintf(j->err, sizeof j->err, "out of memory");
    goto fail;
  }
  for (i = 0; i < j->n_reqs; i++) {
    int pos = i < j->n_rows ? i + 1 : 0;
    if (j->skip[i])
      continue;
    if (!o->rows && (still_valid(&j->priors[pos], &j->reqs[i], j->paths[i], j->segment_id) ||
                     adopt_shard_clip(j, i, pos))) {
      j->kept[i] = 1;
      rn->settled++;
      continue;
    }
    if (i >= j->n_rows && o->mode == RESCUE_CLIP_EXACT) {
      seg = i; /* the segment is always a stream copy */
      continue;
    }
    todo[n] = j->reqs[i];
    map[n++] = i;
  }
  src.path = j->src_path;
  src.label = j->src_label;
  src.duration = j->src_duration;
  src.settled = &rn->settled;
  if (n) {
    cut_all(rn, &src, todo, map, n);
    for (i = 0; i < n; i++)
      j->reqs[map[i]] = todo[i];
  }
  if (seg >= 0)
    cut_copy(&src, &j->reqs[seg], 1, 1, &e);
  if (o->rows)
    settle_rows(j);
  for (i = 0; i < j->n_reqs; i++) {
    cut_req *r = &j->reqs[i];
    if (j->skip[i])
      continue;
    if (j->kept[i]) {
      const prior *pr = &j->priors[i < j->n_rows ? i + 1 : 0];
      r->done = 1;
      snprintf(r->sha256, sizeof r->sha256, "%s", pr->sha256);
      r->bytes = pr->bytes;
      r->act_start = pr->act_start;
      r->act_end = pr->act_end;
      r->frames = pr->frames;
      r->audio_samples = pr->audio_samples;
    } else if (!r->done && !j->failed) {
      j->failed = 1;
      if (i < j->n_rows)
        snprintf(j->err, sizeof j->err, "row %d: %.900s", i + 1, r->err);
      else
        snprintf(j->err, sizeof j->err, "segment: %.900s", r->err);
    }
  }
  if (o->rows && j->failed)
    goto end; /* all or nothing: the manifest stays as it was */
  if (write_manifest(rn, j))
    j->failed = 1;
  if (!j->failed && o->review_copy && write_review(rn, j, &src))
    j->failed = 1;
  goto end;
fail:
  j->failed = 1;
end:
  rescue_free(todo);
  rescue_free(map);
  rescue_buf_clear(&dir);
}

static void *worker(void *arg) {
  runner *rn = arg;
  for (;;) {
    job *j;
    pthread_mutex_lock(&rn->mu);
    if (rn->next >= rn->n_jobs) {
      pthread_mutex_unlock(&rn->mu);
      return NULL;
    }
    j = &rn->jobs[rn->next++];
    j->started = 1;
    pthread_mutex_unlock(&rn->mu);
    run_job(rn, j);
    pthread_mutex_lock(&rn->mu);
    j->finished = 1;
    rn->n_finished++;
    pthread_cond_broadcast(&rn->cv);
    pthread_mutex_unlock(&rn->mu);
  }
}

/* ---- the calling thread's part: reading the store, recording results ---- */

static char *dup_col(sqlite3_stmt *s, int col) {
  const char *t = (const char *)sqlite3_column_text(s, col);
  return rescue_strdup(t ? t : "");
}

/*
** Where this run writes position pos of job j (0: the segment), into out (the path the
** store and the shard files record, as plan() builds it).
*/
static void clip_path_at(const runner *rn, const job *j, int pos, rescue_buf *out) {
  rescue_buf_reset(out);
  if (pos == 0)
    rescue_buf_printf(out, "%s/%s/segment.mp4", rn->o->out, j->sample_id);
  else
    rescue_buf_printf(out, "%s/%s/clips/%03d.%s", rn->o->out, j->sample_id, pos,
                      rn->o->mode == RESCUE_CLIP_AUDIO ? "wav" : "mp4");
}

/*
** The priors of job j: for each position, the latest clip the store recorded at the path
** this run writes (clips are remembered per output folder: a run into another folder does
** not make this folder's clips look stale), and the latest one a shard cut there
** (rn->recs). 0, or an error code kept on the store.
*/
static int load_priors(runner *rn, job *j) {
  rescue_store *st = rn->st;
  sqlite3_stmt *s;
  rescue_buf want = RESCUE_BUF_INIT;
  int rc, i;
  j->shard_priors = rescue_calloc((size_t)j->n_rows + 1, sizeof *j->shard_priors);
  if (!j->shard_priors)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (!(s = rescue_store_stmt(st, "clip_records")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", j->ref);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int pos = sqlite3_column_int(s, 0);
    const char *mode = (const char *)sqlite3_column_text(s, 1);
    const char *path = (const char *)sqlite3_column_text(s, 2);
    prior pr;
    if (pos < 0 || pos > j->n_rows || !mode || !path)
      continue;
    /* the segment is recorded as a copy whatever the run's mode */
    if (strcmp(mode, pos == 0 ? "copy" : rescue_clip_mode_name(rn->o->mode)) != 0)
      continue;
    clip_path_at(rn, j, pos, &want);
    if (!rescue_buf_ok(&want) || strcmp(want.s, path) != 0)
      continue;
    pr.path = (char *)path;
    pr.req_start = sqlite3_column_double(s, 3);
    pr.req_end = sqlite3_column_double(s, 4);
    pr.sha256 = (char *)sqlite3_column_text(s, 5);
    pr.bytes = sqlite3_column_int64(s, 6);
    pr.segment_id = sqlite3_column_int64(s, 7);
    pr.act_start = sqlite3_column_double(s, 8);
    pr.act_end = sqlite3_column_double(s, 9);
    pr.frames = sqlite3_column_int64(s, 10);
    pr.audio_samples = sqlite3_column_int64(s, 11);
    pr.row_id = sqlite3_column_int64(s, 12);
    if (!pr.sha256 || prior_set(&j->priors[pos], &pr)) {
      rc = SQLITE_NOMEM;
      break;
    }
  }
  sqlite3_reset(s);
  for (i = 0; rc == SQLITE_DONE && i < rn->n_recs; i++) {
    const shard_rec *r = &rn->recs[i];
    if (r->position > j->n_rows || strcmp(r->sample_id, j->sample_id) != 0 ||
        strcmp(r->mode, r->position == 0 ? "copy" : rescue_clip_mode_name(rn->o->mode)) != 0)
      continue;
    clip_path_at(rn, j, r->position, &want);
    if (rescue_buf_ok(&want) && strcmp(want.s, r->p.path) == 0 &&
        prior_set(&j->shard_priors[r->position], &r->p))
      rc = SQLITE_NOMEM;
  }
  if (!rescue_buf_ok(&want))
    rc = SQLITE_NOMEM;
  rescue_buf_clear(&want);
  if (rc == SQLITE_NOMEM)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading clip records");
  return 0;
}

/* Fill a job from the store; returns 1 when the sample has linked media, 0 when not. */
static int load_job(runner *rn, const rescue_sample *smp, job *j) {
  rescue_store *st = rn->st;
  sqlite3_stmt *s = rescue_store_stmt(st, "media_linked");
  rescue_buf where = RESCUE_BUF_INIT;
  int rc, i;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", smp->ref);
  rc = sqlite3_step(s);
  if (rc == SQLITE_DONE) {
    sqlite3_reset(s);
    return 0;
  }
  if (rc != SQLITE_ROW)
    return rescue_store_sqlerr(st, "reading segment references");
  j->sample_id = rescue_strdup(smp->sample_id);
  j->ref = smp->ref;
  j->segment_id = sqlite3_column_int64(s, 1);
  j->has_span =
      sqlite3_column_type(s, 2) != SQLITE_NULL && sqlite3_column_type(s, 3) != SQLITE_NULL;
  j->seg_start = j->has_span ? sqlite3_column_double(s, 2) : 0;
  j->seg_end = j->has_span ? sqlite3_column_double(s, 3) : 0;
  j->src_label = dup_col(s, 6);
  j->src_size = sqlite3_column_int64(s, 7);
  j->fingerprint = dup_col(s, 8);
  j->src_duration = sqlite3_column_double(s, 9);
  rc = rescue_media_resolve(st, (const char *)sqlite3_column_text(s, 5),
                            (const char *)sqlite3_column_text(s, 6), &where);
  sqlite3_reset(s);
  if (rc)
    return rc;
  j->src_path = rescue_buf_detach(&where);
  j->n_rows = smp->n;
  j->row_start = rescue_calloc((size_t)smp->n + 1, sizeof *j->row_start);
  j->row_end = rescue_calloc((size_t)smp->n + 1, sizeof *j->row_end);
  j->row_id = rescue_calloc((size_t)smp->n + 1, sizeof *j->row_id);
  j->priors = rescue_calloc((size_t)smp->n + 1, sizeof *j->priors);
  if (!j->sample_id || !j->src_label || !j->fingerprint || !j->src_path || !j->row_start ||
      !j->row_end || !j->row_id || !j->priors)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (i = 0; i < smp->n; i++) {
    j->row_start[i] = smp->rows[i].start_time;
    j->row_end[i] = smp->rows[i].end_time;
    j->row_id[i] = smp->rows[i].row_id;
  }
  return load_priors(rn, j) ? rescue_store_err(st)->code : 1;
}

/* Record the clips a finished job wrote (one transaction). */
static int record_job(runner *rn, job *j) {
  rescue_store *st = rn->st;
  char now[32];
  int i, rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  rescue_now_iso(now);
  for (i = 0; i < j->n_reqs; i++) {
    cut_req *r = &j->reqs[i];
    sqlite3_stmt *s;
    int segment = i >= j->n_rows;
    /* a kept clip is recorded again only to name its row (recorded for another one) */
    if (!r->done ||
        (j->kept[i] && !j->adopted[i] && (segment || j->priors[i + 1].row_id == j->row_id[i])))
      continue;
    if (!(s = rescue_store_stmt(st, "clip_insert"))) {
      rescue_store_rollback(st);
      return rescue_store_err(st)->code;
    }
    rescue_bind_int(s, ":sample_ref", j->ref);
    rescue_bind_int(s, ":position", segment ? 0 : i + 1);
    rescue_bind_text(s, ":mode", segment ? "copy" : rescue_clip_mode_name(rn->o->mode), -1);
    rescue_bind_int(s, ":segment_id", j->segment_id);
    rescue_bind_text(s, ":path", r->path, -1);
    rescue_bind_double(s, ":req_start", r->start);
    rescue_bind_double(s, ":req_end", r->end);
    rescue_bind_double(s, ":act_start", r->act_start);
    rescue_bind_double(s, ":act_end", r->act_end);
    rescue_bind_int(s, ":frames", r->frames);
    rescue_bind_int(s, ":audio_samples", r->audio_samples);
    rescue_bind_int(s, ":bytes", r->bytes);
    rescue_bind_text(s, ":sha256", r->sha256, -1);
    rescue_bind_text(s, ":now", now, -1);
    if (!segment)
      rescue_bind_int(s, ":row_id", j->row_id[i]);
    if (sqlite3_step(s) != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "recording a clip");
      rescue_store_rollback(st);
      return rc;
    }
  }
  return rescue_store_commit(st);
}

/* ---- shards: clips noted in the output folder instead of the store ---- */

#define SHARD_PREFIX ".rescue-clip-shard-"

/*
** A shard's record of the clips job j cut or kept, appended to
** <out>/.rescue-clip-shard-<i>of<n>.jsonl in one write (one line per clip, every number
** exact), for the run without a shard that records them. The store is not touched.
** 0, or RESCUE_EIO / RESCUE_ENOMEM with the message on the store's handle.
*/
static int note_shard_clips(runner *rn, job *j) {
  const rescue_clip_opts *o = rn->o;
  rescue_buf b = RESCUE_BUF_INIT, path = RESCUE_BUF_INIT;
  int i, fd, rc = 0;
  for (i = 0; i < j->n_reqs; i++) {
    const cut_req *r = &j->reqs[i];
    int segment = i >= j->n_rows;
    rescue_jw w;
    if (!r->done)
      continue;
    rescue_jw_init(&w, &b);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "sample_id");
    rescue_jw_str(&w, j->sample_id);
    rescue_jw_key(&w, "path");
    rescue_jw_str(&w, r->path);
    rescue_jw_key(&w, "mode");
    rescue_jw_str(&w, segment ? "copy" : rescue_clip_mode_name(o->mode));
    rescue_jw_key(&w, "sha256");
    rescue_jw_str(&w, r->sha256);
    rescue_jw_end(&w);
    b.len--; /* reopen the object for the numbers, each written exactly */
    rescue_buf_printf(&b,
                      ",\"position\":%d,\"segment_id\":%lld,\"row_id\":%lld,\"req_start\":%.17g,"
                      "\"req_end\":%.17g,\"act_start\":%.17g,\"act_end\":%.17g,\"frames\":%lld,"
                      "\"audio_samples\":%lld,\"bytes\":%lld}\n",
                      segment ? 0 : i + 1, (long long)j->segment_id,
                      (long long)(segment ? 0 : j->row_id[i]), r->start, r->end, r->act_start,
                      r->act_end, (long long)r->frames, (long long)r->audio_samples,
                      (long long)r->bytes);
  }
  rescue_buf_printf(&path, "%s/" SHARD_PREFIX "%dof%d.jsonl", o->out, o->shard_i, o->shard_n);
  if (!rescue_buf_ok(&b) || !rescue_buf_ok(&path)) {
    rc = rescue_seterr(rescue_store_err(rn->st), RESCUE_ENOMEM, NULL);
  } else if (b.len) {
    fd = open(path.s, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0 || write(fd, b.s, b.len) != (ssize_t)b.len || fsync(fd) != 0)
      rc = rescue_seterr(rescue_store_err(rn->st), RESCUE_EIO, "cannot write '%s': %s", path.s,
                         strerror(errno));
    if (fd >= 0)
      close(fd);
  }
  rescue_buf_clear(&b);
  rescue_buf_clear(&path);
  return rc;
}

/* One line of a shard file into rn->recs; a line that does not read is skipped. */
static int read_shard_line(runner *rn, const rescue_jnode *n, int *cap) {
  static const char *const keys[] = {
      "sample_id", "path",    "mode",   "sha256",        "position", "req_start",  "req_end",
      "act_start", "act_end", "frames", "audio_samples", "bytes",    "segment_id", "row_id"};
  shard_rec *r;
  size_t k;
  for (k = 0; k < sizeof keys / sizeof *keys; k++) {
    const rescue_jnode *v = rescue_jget(n, keys[k]);
    if (!v || v->type != (k < 4 ? RESCUE_JSTRING : RESCUE_JNUMBER))
      return 0;
  }
  if (strlen(rescue_jget(n, "mode")->s) >= sizeof r->mode)
    return 0;
  if (RESCUE_ALLOC_GROW(rn->recs, rn->n_recs + 1, *cap))
    return -1;
  r = &rn->recs[rn->n_recs];
  memset(r, 0, sizeof *r);
  r->sample_id = rescue_strdup(rescue_jget(n, "sample_id")->s);
  r->p.path = rescue_strdup(rescue_jget(n, "path")->s);
  r->p.sha256 = rescue_strdup(rescue_jget(n, "sha256")->s);
  snprintf(r->mode, sizeof r->mode, "%s", rescue_jget(n, "mode")->s);
  r->position = (int)rescue_jget(n, "position")->num;
  r->p.req_start = strtod(rescue_jget(n, "req_start")->s, NULL);
  r->p.req_end = strtod(rescue_jget(n, "req_end")->s, NULL);
  r->p.act_start = strtod(rescue_jget(n, "act_start")->s, NULL);
  r->p.act_end = strtod(rescue_jget(n, "act_end")->s, NULL);
  r->p.frames = strtoll(rescue_jget(n, "frames")->s, NULL, 10);
  r->p.audio_samples = strtoll(rescue_jget(n, "audio_samples")->s, NULL, 10);
  r->p.bytes = strtoll(rescue_jget(n, "bytes")->s, NULL, 10);
  r->p.segment_id = strtoll(rescue_jget(n, "segment_id")->s, NULL, 10);
  r->p.row_id = strtoll(rescue_jget(n, "row_id")->s, NULL, 10);
  rn->n_recs++;
  return r->sample_id && r->p.path && r->p.sha256 ? 0 : -1;
}

/*
** Read every shard file in the output folder into rn->recs, in file-name order and line
** order (a later line wins). A line a killed shard cut off is skipped: each clip is
** checked against its file's hash before it is kept anyway. 0 or -1 (out of memory).
*/
static int read_shard_recs(runner *rn) {
  struct dirent **names = NULL;
  int n = scandir(rn->o->out, &names, NULL, alphasort), i, cap = 0, rc = 0;
  for (i = 0; i < n; i++) {
    const char *nm = names[i]->d_name;
    size_t len = strlen(nm);
    rescue_buf p = RESCUE_BUF_INIT;
    char *text = NULL, *line, *eol;
    size_t tlen = 0;
    rescue_error e = RESCUE_ERROR_INIT;
    if (!rc && strncmp(nm, SHARD_PREFIX, strlen(SHARD_PREFIX)) == 0 && len > 6 &&
        strcmp(nm + len - 6, ".jsonl") == 0) {
      rescue_buf_printf(&p, "%s/%s", rn->o->out, nm);
      if (rescue_buf_ok(&p) && rescue_read_file(p.s, &text, &tlen, &e) == 0) {
        for (line = text; !rc && line < text + tlen; line = eol + 1) {
          rescue_jdoc *doc = rescue_jdoc_new();
          rescue_jerror je;
          const rescue_jnode *node;
          if (!(eol = memchr(line, '\n', (size_t)(text + tlen - line))))
            eol = text + tlen;
          node = doc ? rescue_jparse(doc, line, (size_t)(eol - line), &je) : NULL;
          if (!doc || (node && node->type == RESCUE_JOBJECT && read_shard_line(rn, node, &cap)))
            rc = -1;
          rescue_jdoc_free(&doc);
        }
      }
      rescue_free(text);
    }
    rescue_buf_clear(&p);
    free(names[i]);
  }
  free(names);
  return rc;
}

static void free_shard_recs(runner *rn) {
  int i;
  for (i = 0; i < rn->n_recs; i++) {
    rescue_free(rn->recs[i].sample_id);
    rescue_free(rn->recs[i].p.path);
    rescue_free(rn->recs[i].p.sha256);
  }
  rescue_free(rn->recs);
}

/*
** Take the output folder for shard i of n: a shared lock on <out>/.rescue-clip.lock
** (shards write disjoint samples, so they share the folder; a run without a shard, which
** takes it exclusively, waits for none of them and is refused while one runs) and an
** exclusive one on <out>/.rescue-clip-shard-<i>of<n>.lock (the same shard twice is refused).
*/
static int lock_shard(const rescue_clip_opts *o, int fds[2], rescue_error *err) {
  rescue_buf p = RESCUE_BUF_INIT;
  int k, rc = 0;
  fds[0] = fds[1] = -1;
  for (k = 0; k < 2 && !rc; k++) {
    rescue_buf_reset(&p);
    if (k == 0)
      rescue_buf_printf(&p, "%s/.rescue-clip.lock", o->out);
    else
      rescue_buf_printf(&p, "%s/" SHARD_PREFIX "%dof%d.lock", o->out, o->shard_i, o->shard_n);
    if (!rescue_buf_ok(&p)) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      break;
    }
    fds[k] = open(p.s, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fds[k] < 0)
      rc = rescue_seterr(err, RESCUE_EIO, "cannot create '%s': %s", p.s, strerror(errno));
    else if (flock(fds[k], (k == 0 ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0)
      rc = errno == EWOULDBLOCK
               ? rescue_seterr(err, RESCUE_ELOCKED,
                               k == 0 ? "'%s' is being written by a clip run that is not a shard"
                                      : "'%s' is being written by another run of shard %d/%d",
                               o->out, o->shard_i, o->shard_n)
               : rescue_seterr(err, RESCUE_EIO, "cannot lock '%s': %s", p.s, strerror(errno));
  }
  rescue_buf_clear(&p);
  if (rc)
    for (k = 0; k < 2; k++)
      if (fds[k] >= 0) {
        close(fds[k]);
        fds[k] = -1;
      }
  return rc;
}

/*
** --check: for every clip of the selection, present (complete, as the store or a shard
** recorded it for this folder), missing (no file) or stale (a file that is not the clip
** the rows now ask for), into rn->res; nothing is cut or written. Samples whose rows
** cannot be cut count as failed.
*/
static void check_all(runner *rn) {
  rescue_clip_result *res = rn->res;
  int k, i;
  for (k = 0; k < rn->n_jobs; k++) {
    job *j = &rn->jobs[k];
    if (plan(rn, j)) {
      rescue_error e;
      res->samples_failed++;
      rescue_seterr(&e, RESCUE_EMEDIA, "%s", j->err);
      if (rn->o->failed)
        rn->o->failed(rn->o->failed_arg, j->sample_id, &e);
      continue;
    }
    for (i = 0; i < j->n_reqs; i++) {
      int pos = i < j->n_rows ? i + 1 : 0;
      struct stat sb;
      if (j->skip[i])
        continue;
      if (stat(j->paths[i], &sb) != 0)
        res->clips_missing++;
      else if (still_valid(&j->priors[pos], &j->reqs[i], j->paths[i], j->segment_id) ||
               still_valid(&j->shard_priors[pos], &j->reqs[i], j->paths[i], j->segment_id))
        res->clips_present++;
      else
        res->clips_stale++;
    }
    res->samples_ok++;
  }
}

/* Account for a finished job in the result and tell the caller about failures. */
static void account(runner *rn, job *j) {
  rescue_clip_result *res = rn->res;
  int i;
  for (i = 0; i < j->n_reqs; i++) {
    const cut_req *r = &j->reqs[i];
    if (j->skip && j->skip[i])
      continue;
    if (j->kept[i]) {
      res->clips_kept++;
    } else if (r->done) {
      double err = fabs((r->act_end - r->act_start) - (r->end - r->start));
      res->clips_written++;
      if (err > res->max_error)
        res->max_error = err;
    } else {
      res->clips_failed++;
    }
  }
  if (j->failed) {
    res->samples_failed++;
    if (rn->o->failed) {
      rescue_error e;
      rescue_seterr(&e, j->err_code ? j->err_code : RESCUE_EMEDIA, "%s", j->err);
      rn->o->failed(rn->o->failed_arg, j->sample_id, &e);
    }
  } else {
    res->samples_ok++;
  }
}

static double now_sec(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Tell the caller where the run is; finished: a job just recorded, or NULL. Holds rn->mu. */
static void report(runner *rn, rescue_clip_status *stt, double t0, const job *finished) {
  const rescue_clip_opts *o = rn->o;
  int i;
  long settled = rn->settled;
  if (!o->status)
    return;
  stt->elapsed = now_sec() - t0;
  stt->current = NULL;
  for (i = 0; i < rn->n_jobs; i++)
    if (rn->jobs[i].started && !rn->jobs[i].finished) {
      stt->current = rn->jobs[i].sample_id;
      break;
    }
  stt->rows_done = (uint64_t)settled < stt->rows_total ? (uint64_t)settled : stt->rows_total;
  stt->finished = finished ? finished->sample_id : NULL;
  stt->finished_ok = finished && !finished->failed;
  stt->finished_clips = stt->finished_written = stt->finished_kept = 0;
  for (i = 0; finished && i < finished->n_reqs; i++) {
    if (finished->skip[i])
      continue;
    stt->finished_clips++;
    stt->finished_kept += finished->kept[i];
    stt->finished_written += finished->reqs[i].done && !finished->kept[i];
  }
  o->status(o->status_arg, stt);
}

/*
** Check the options of rescue_clip() that do not need the store or the
** disk: the shard, the pad and the chosen rows. Returns 0, or
** RESCUE_EINVAL with the message on err.
*/
static int check_opts(const rescue_clip_opts *o, rescue_error *err) {
  int i;
  if (o->shard_n < 0 || (o->shard_n > 0 && (o->shard_i < 1 || o->shard_i > o->shard_n)))
    return rescue_seterr(err, RESCUE_EINVAL, "shard %d/%d is not i/n with 1 <= i <= n", o->shard_i,
                         o->shard_n);
  if (o->pad < 0 || !isfinite(o->pad))
    return rescue_seterr(err, RESCUE_EINVAL, "the pad %g is not a number of seconds >= 0", o->pad);
  if (o->rows && o->n_samples != 1)
    return rescue_seterr(err, RESCUE_EINVAL, "chosen rows need exactly one chosen sample");
  for (i = 0; o->rows && i < o->n_rows; i++)
    if (o->rows[i] < 1)
      return rescue_seterr(err, RESCUE_EINVAL, "%d is not a row (rows count from 1)", o->rows[i]);
  return 0;
}

/*
** Read every job of the run into rn->jobs before any worker starts (workers
** never touch the store): skips discarded samples and those of other shards,
** counts samples without media, and adds the rows to cut to stt->rows_total
** and to *total_rows (rows plus one per sample, for the progress callback).
** Returns 0 or a negative error code with the message on the store's handle;
** the jobs read so far stay in rn->jobs for the caller to free.
*/
static int gather_jobs(runner *rn, rescue_clip_status *stt, uint64_t *total_rows) {
  const rescue_clip_opts *o = rn->o;
  rescue_clip_result *res = rn->res;
  rescue_error *err = rescue_store_err(rn->st);
  rescue_sample_iter *it = NULL;
  const rescue_sample *smp;
  rescue_view view = {.kind = RESCUE_VIEW_CORPUS};
  int rc, i, cap = 0;

  if ((rc = rescue_sample_iter_new(rn->st, &view, o->samples, o->n_samples, &it)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &smp)) == 1) {
    job *j;
    int has;
    if (strcmp(smp->status, "discarded") == 0)
      continue;
    if (o->shard_n > 0 &&
        rescue_fnv1a64(smp->sample_id) % (uint64_t)o->shard_n != (uint64_t)(o->shard_i - 1))
      continue;
    res->samples++;
    if (RESCUE_ALLOC_GROW(rn->jobs, rn->n_jobs + 1, cap)) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    j = &rn->jobs[rn->n_jobs];
    memset(j, 0, sizeof *j);
    has = load_job(rn, smp, j);
    if (has < 0) {
      job_free(j);
      rc = has;
      goto end;
    }
    if (has == 0) {
      job_free(j);
      if (o->n_samples > 0) {
        /* asked for by name: not having media is this sample's failure */
        res->samples_failed++;
        if (o->failed) {
          rescue_error e;
          rescue_seterr(&e, RESCUE_ENOMEDIA, "no media linked");
          o->failed(o->failed_arg, smp->sample_id, &e);
        }
      } else {
        res->samples_no_media++;
      }
      continue;
    }
    for (i = 0; o->rows && i < o->n_rows; i++)
      if (o->rows[i] > j->n_rows) {
        rc = rescue_seterr(err, RESCUE_EINVAL, "sample '%s' has %d row%s, no row %d", j->sample_id,
                           j->n_rows, j->n_rows == 1 ? "" : "s", o->rows[i]);
        job_free(j);
        goto end;
      }
    *total_rows += (uint64_t)j->n_rows + 1;
    stt->rows_total += o->rows
                           ? (uint64_t)o->n_rows
                           : (uint64_t)j->n_rows + (j->has_span && o->mode != RESCUE_CLIP_AUDIO);
    rn->n_jobs++;
  }
end:
  rescue_sample_iter_free(&it);
  return rc < 0 ? rc : 0;
}

/*
** Record the jobs in job order as the workers finish them, reporting
** progress and status meanwhile. After a store failure it keeps waiting
** for (and accounting) every job, so the workers can be joined, and
** returns that first failure; otherwise 0.
*/
static int record_all(runner *rn, rescue_clip_status *stt, double t0, uint64_t total_rows) {
  const rescue_clip_opts *o = rn->o;
  uint64_t done_rows = 0;
  int rc = 0, recorded = 0;

  while (recorded < rn->n_jobs) {
    job *j = &rn->jobs[recorded];
    pthread_mutex_lock(&rn->mu);
    while (!j->finished) {
      struct timespec until;
      clock_gettime(CLOCK_REALTIME, &until);
      until.tv_nsec += 250000000L;
      if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
      }
      if (pthread_cond_timedwait(&rn->cv, &rn->mu, &until) != 0 && !j->finished)
        report(rn, stt, t0, NULL);
    }
    pthread_mutex_unlock(&rn->mu);
    if (!rc) /* after a store failure keep joining the workers; report it at the end */
      rc = o->shard_n > 0 ? note_shard_clips(rn, j) : record_job(rn, j);
    account(rn, j);
    done_rows += (uint64_t)j->n_rows + 1;
    if (o->progress)
      o->progress(o->progress_arg, done_rows, total_rows);
    recorded++;
    stt->samples_done = recorded;
    pthread_mutex_lock(&rn->mu);
    report(rn, stt, t0, j);
    pthread_mutex_unlock(&rn->mu);
  }
  return rc;
}

/*
** Start up to nthreads workers over the gathered jobs, record their results
** with record_all() and join them. Returns 0 or a negative error code with
** the message on the store's handle.
*/
static int run_workers(runner *rn, int nthreads, rescue_clip_status *stt, double t0,
                       uint64_t total_rows) {
  const rescue_clip_opts *o = rn->o;
  rescue_error *err = rescue_store_err(rn->st);
  pthread_t *tids = NULL;
  int rc = 0, i, started = 0;

  pthread_mutex_init(&rn->mu, NULL);
  pthread_cond_init(&rn->cv, NULL);
  tids = rescue_calloc((size_t)nthreads, sizeof *tids);
  if (!tids) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto destroy;
  }
  /* fewer samples than workers: the spare ones cut parts of a sample's rows */
  rn->split = rn->n_jobs > 0 && nthreads > rn->n_jobs ? nthreads / rn->n_jobs : 1;
  for (i = 0; i < nthreads && i < rn->n_jobs; i++)
    if (pthread_create(&tids[i], NULL, worker, rn) == 0)
      started++;
  if (rn->n_jobs && !started) {
    rc = rescue_seterr(err, RESCUE_EINTERNAL, "cannot start worker threads");
    goto destroy;
  }
  if (o->progress)
    o->progress(o->progress_arg, 0, total_rows);
  stt->samples_total = rn->n_jobs;
  rc = record_all(rn, stt, t0, total_rows);
  for (i = 0; i < started; i++)
    pthread_join(tids[i], NULL);
destroy:
  pthread_mutex_destroy(&rn->mu);
  pthread_cond_destroy(&rn->cv);
  rescue_free(tids);
  return rc;
}

int rescue_clip(rescue_store *st, const rescue_clip_opts *o, rescue_clip_result *res) {
  rescue_clip_result dummy;
  runner rn;
  int rc = 0, i, nthreads = o->jobs > 1 ? o->jobs : 1;
  int lock_fd = -1, shard_fds[2] = {-1, -1};
  rescue_clip_status stt;
  double t0 = now_sec();
  uint64_t total_rows = 0;
  rescue_error *err = rescue_store_err(st);

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  memset(&rn, 0, sizeof rn);
  rn.st = st;
  rn.o = o;
  rn.res = res;
  if ((rc = check_opts(o, err)))
    return rc;
  memset(&stt, 0, sizeof stt);
  if (make_dir(o->out) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot create '%s': %s", o->out, strerror(errno));
  if (o->check)
    lock_fd = -1; /* reads only */
  else if ((rc = o->shard_n > 0 ? lock_shard(o, shard_fds, err) : lock_out(o->out, &lock_fd, err)))
    return rc;
  rn.out_abs = realpath(o->out, NULL);
  rn.base_abs = realpath(o->path_base ? o->path_base : o->out, NULL);
  if (!rn.out_abs || !rn.base_abs) {
    rc = rescue_seterr(err, RESCUE_EINVAL, "cannot use the path base '%s': %s",
                       o->path_base ? o->path_base : o->out, strerror(errno));
    goto end;
  }
  rn.threads = nthreads > 1 ? 1 : 0;
  rn.settled = 0;

  /* keep what shards cut into this folder: a run without a shard records it, a shard run
     again (after a kill) notes it again */
  if (read_shard_recs(&rn)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if ((rc = gather_jobs(&rn, &stt, &total_rows)))
    goto end;
  if (o->check) {
    check_all(&rn);
    goto end;
  }
  rc = run_workers(&rn, nthreads, &stt, t0, total_rows);
  if (!rc && res->samples_failed)
    rc = rescue_seterr(err, RESCUE_EPARTIAL,
                       "%ld of %ld sample%s failed; %ld clip%s written, "
                       "%ld kept from an earlier run",
                       res->samples_failed, res->samples, res->samples == 1 ? "" : "s",
                       res->clips_written, res->clips_written == 1 ? "" : "s", res->clips_kept);
end:
  for (i = 0; i < rn.n_jobs; i++)
    job_free(&rn.jobs[i]);
  rescue_free(rn.jobs);
  free(rn.out_abs);
  free(rn.base_abs);
  if (lock_fd >= 0)
    close(lock_fd);
  for (i = 0; i < 2; i++)
    if (shard_fds[i] >= 0)
      close(shard_fds[i]);
  free_shard_recs(&rn);
  return rc;
}
