/*
** serve_cache.c: samples as views show them, kept loaded and linted between requests, so
** a read of a sample and a save of one row cost about one row's work, not the whole
** sample's (issue 25).
**
** An entry is one sample through one annotator's view (rescue_view_sample_load) with the
** whole-sample lint of it (rescue_review_lint, with the names it was judged by, which a
** save's check reuses: rescue_review_check_change_known) and the sample's notes (its
** comments, status history and cues as a read sends them, and the cues, which the check
** takes too: srv_notes_read), labelled with the sample's generation
** (rescue_sample_generation, schema migration 13) read before the load. Every write to a
** sample, by this server or by the command line, adds one to that number in its own
** transaction, so an entry is used only while the stored number is still its label: no
** request is answered from a copy older than what it could read from the store.
**
** A save through the server puts the saved row into its annotator's entry
** (rescue_review_put_row: the row, its version, and the lint of the rows the edit can
** change) and relabels the entry with the generation after the save, but only when the
** generation before the save, read inside the writing transaction, was still the entry's
** label (nobody else wrote the sample in between) and the group commit succeeded; a save
** that moved the status (the first of a new sample, a reopening) also wrote a line of the
** status history, which the saver reads in its transaction and the entry takes.
**
** Bounds: at most SRV_CACHE_SLOTS entries holding at most SRV_CACHE_ROWS rows together
** (the least recently used go first), and an entry is loaded again after
** SRV_CACHE_PATCHES saved rows (each keeps its parsed row until then).
**
** Threads: cache_mu guards the slot table, each entry's label, reference count and use
** tick; an entry's rwlock guards its view and lint (readers share it, a save's patch
** takes it alone). Nobody takes cache_mu and then waits on an entry's lock while holding
** it. An entry pushed out while in use is freed by its last user.
*/
#include <math.h>
#include <pthread.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_review.h"
#include "serve_impl.h"

struct srv_cached {
  char *sample_id;
  int64_t view_id;
  int64_t gen;           /* the generation the view and lint are current for (cache_mu) */
  int refs;              /* requests using it (cache_mu) */
  int dead;              /* out of the table: freed by its last user (cache_mu) */
  unsigned long used;    /* tick of its last use (cache_mu) */
  int broken;            /* a patch failed half way: never read again (under lock) */
  pthread_rwlock_t lock; /* guards L, lint and broken */
  rescue_view_sample L;
  rescue_lint_result lint;
  rescue_buf *text; /* L.n: each row as JSON text, what a read sends (under lock) */
  double *span;     /* 2 * L.n: each row's start_time and end_time, NAN when not a number */
  srv_notes notes;  /* comments, history and cues, read at the load; a save that moves the
                       status replaces the history (under lock) */
  size_t answer;    /* bytes of the last answer a read made of it (atomic: a hint) */
};

static void entry_free(srv_cached *e) {
  int i;
  if (!e)
    return;
  for (i = 0; e->text && i < e->L.n; i++)
    rescue_buf_clear(&e->text[i]);
  rescue_free(e->text);
  rescue_free(e->span);
  srv_notes_clear(&e->notes);
  rescue_view_sample_clear(&e->L);
  rescue_lint_result_clear(&e->lint);
  pthread_rwlock_destroy(&e->lock);
  rescue_free(e->sample_id);
  rescue_free(e);
}

void srv_cache_drop(rescue_server *s) {
  int i;
  for (i = 0; s->cache && i < SRV_CACHE_SLOTS; i++)
    entry_free(s->cache[i]);
  rescue_free(s->cache);
  s->cache = NULL;
}

/* Take slot i's entry out of the table (under cache_mu); freed now when unused. */
static void unlink_slot(rescue_server *s, int i) {
  srv_cached *e = s->cache[i];
  s->cache[i] = NULL;
  e->dead = 1;
  if (!e->refs)
    entry_free(e);
}

/* The slot holding (sample_id, view_id), or -1 (under cache_mu). */
static int find_slot(rescue_server *s, const char *sample_id, int64_t view_id) {
  int i;
  for (i = 0; i < SRV_CACHE_SLOTS; i++)
    if (s->cache[i] && s->cache[i]->view_id == view_id &&
        strcmp(s->cache[i]->sample_id, sample_id) == 0)
      return i;
  return -1;
}

/*
** Put e into the table (under cache_mu) in place of any entry for its key, pushing out
** the least recently used entries while the table is full or holds too many rows.
*/
static void insert(rescue_server *s, srv_cached *e) {
  int i, k, rows, lru;
  if ((k = find_slot(s, e->sample_id, e->view_id)) >= 0)
    unlink_slot(s, k);
  for (;;) {
    rows = e->L.n;
    lru = -1;
    k = -1;
    for (i = 0; i < SRV_CACHE_SLOTS; i++) {
      if (!s->cache[i]) {
        k = i;
        continue;
      }
      rows += s->cache[i]->L.n;
      if (lru < 0 || s->cache[i]->used < s->cache[lru]->used)
        lru = i;
    }
    if (k >= 0 && (rows <= SRV_CACHE_ROWS || lru < 0))
      break;
    unlink_slot(s, lru);
  }
  s->cache[k] = e;
}

/* A number member of row, NAN when absent or not a number. */
static double num_member(const rescue_jnode *row, const char *key) {
  const rescue_jnode *n = row->type == RESCUE_JOBJECT ? rescue_jget(row, key) : NULL;
  return n && n->type == RESCUE_JNUMBER ? n->num : NAN;
}

/* Rows [from, to) of e's view as JSON text into e->text, their spans into e->span; 0 when
   out of memory. */
static int write_rows(srv_cached *e, int from, int to) {
  int i, ok = 1;
  for (i = from; i < to; i++) {
    rescue_buf_reset(&e->text[i]);
    rescue_jwrite(&e->text[i], e->L.rows[i]);
    ok &= rescue_buf_ok(&e->text[i]);
    e->span[2 * i] = num_member(e->L.rows[i], "start_time");
    e->span[2 * i + 1] = num_member(e->L.rows[i], "end_time");
  }
  return ok;
}

/* Load sample_id as view_id's view shows it, linted, with its notes, labelled gen, into a
   new entry. */
static int load(srv_req *r, const char *sample_id, int64_t view_id, int64_t gen, srv_cached **out) {
  srv_cached *e = rescue_calloc(1, sizeof *e);
  int rc;
  *out = NULL;
  if (!e || !(e->sample_id = rescue_strdup(sample_id))) {
    rescue_free(e);
    return rescue_seterr(rescue_store_err(r->st), RESCUE_ENOMEM, NULL);
  }
  pthread_rwlock_init(&e->lock, NULL);
  e->view_id = view_id;
  e->gen = gen;
  if ((rc = rescue_view_sample_load(r->st, sample_id, view_id, &e->L)) ||
      (rescue_review_lint(r->st, sample_id, &e->L, &e->lint) &&
       (rc = rescue_seterr(rescue_store_err(r->st), RESCUE_ENOMEM, NULL))) ||
      (rc = srv_notes_read(r, sample_id, &e->notes))) {
    entry_free(e);
    return rc;
  }
  if (!(e->text = rescue_calloc((size_t)(e->L.n ? e->L.n : 1), sizeof *e->text)) ||
      !(e->span = rescue_calloc((size_t)(e->L.n ? e->L.n : 1), 2 * sizeof *e->span)) ||
      !write_rows(e, 0, e->L.n)) {
    entry_free(e);
    return rescue_seterr(rescue_store_err(r->st), RESCUE_ENOMEM, NULL);
  }
  *out = e;
  return 0;
}

/* The entry for (sample_id, view_id) at generation gen, referenced (NULL: none). */
static srv_cached *lookup(rescue_server *s, const char *sample_id, int64_t view_id, int64_t gen) {
  srv_cached *e = NULL;
  int k;
  if ((k = find_slot(s, sample_id, view_id)) >= 0 && s->cache[k]->gen == gen) {
    e = s->cache[k];
    e->refs++;
    e->used = ++s->cache_tick;
  }
  return e;
}

int srv_cache_get(srv_req *r, const char *sample_id, int64_t view_id, char *status,
                  srv_cached **out) {
  rescue_server *s = r->srv;
  srv_cached *e;
  int64_t gen;
  int rc;
  *out = NULL;
  for (;;) {
    /* the label first, then the load: a copy never holds less than its label says */
    if ((rc = rescue_sample_generation(r->st, sample_id, &gen, status)))
      return rc;
    pthread_mutex_lock(&s->cache_mu);
    if (!s->cache && !(s->cache = rescue_calloc(SRV_CACHE_SLOTS, sizeof *s->cache))) {
      pthread_mutex_unlock(&s->cache_mu);
      return rescue_seterr(rescue_store_err(r->st), RESCUE_ENOMEM, NULL);
    }
    e = lookup(s, sample_id, view_id, gen);
    pthread_mutex_unlock(&s->cache_mu);
    if (!e && r->quick) {
      /* loading and linting a whole sample is slow work: not on a connection's thread */
      r->handoff = 1;
      return rescue_seterr(rescue_store_err(r->st), RESCUE_EBUSY, "the sample is not kept");
    }
    if (!e) {
      if ((rc = load(r, sample_id, view_id, gen, &e)))
        return rc;
      pthread_mutex_lock(&s->cache_mu);
      e->refs = 1;
      e->used = ++s->cache_tick;
      insert(s, e);
      pthread_mutex_unlock(&s->cache_mu);
    }
    if (r->quick) {
      if (pthread_rwlock_tryrdlock(&e->lock) != 0) { /* a save is patching it */
        srv_cache_release(s, &e);
        r->handoff = 1;
        return rescue_seterr(rescue_store_err(r->st), RESCUE_EBUSY, "the sample is being saved");
      }
    } else {
      pthread_rwlock_rdlock(&e->lock);
    }
    if (!e->broken)
      break;
    pthread_rwlock_unlock(&e->lock);
    srv_cache_release(s, &e);
  }
  *out = e;
  return 0;
}

const rescue_view_sample *srv_cache_view(srv_cached *e, const rescue_lint_result **lint) {
  if (lint)
    *lint = &e->lint;
  return &e->L;
}

const rescue_buf *srv_cache_row_text(srv_cached *e) { return e->text; }

const double *srv_cache_spans(srv_cached *e) { return e->span; }

const srv_notes *srv_cache_notes(srv_cached *e) { return &e->notes; }

size_t srv_cache_answer_size(srv_cached *e) {
  return __atomic_load_n(&e->answer, __ATOMIC_RELAXED);
}

void srv_cache_answered(srv_cached *e, size_t len) {
  __atomic_store_n(&e->answer, len, __ATOMIC_RELAXED);
}

void srv_cache_unread(srv_cached *e) { pthread_rwlock_unlock(&e->lock); }

void srv_cache_release(rescue_server *s, srv_cached **e) {
  if (!*e)
    return;
  pthread_mutex_lock(&s->cache_mu);
  if (--(*e)->refs == 0 && (*e)->dead)
    entry_free(*e);
  pthread_mutex_unlock(&s->cache_mu);
  *e = NULL;
}

int srv_cache_known(rescue_server *s, srv_cached *e, int64_t gen, int position, rescue_buf *content,
                    rescue_row_known *k) {
  int current;
  pthread_rwlock_rdlock(&e->lock);
  pthread_mutex_lock(&s->cache_mu);
  current = !e->dead && !e->broken && e->gen == gen && position >= 1 && position <= e->L.n;
  pthread_mutex_unlock(&s->cache_mu);
  if (current) {
    rescue_buf_reset(content); /* the kept text: what rescue_jwrite makes of the row */
    rescue_buf_putn(content, e->text[position - 1].s, e->text[position - 1].len);
    k->row_id = e->L.row_ids[position - 1];
    k->version = e->L.versions[position - 1];
    k->mine = e->L.mine[position - 1];
    k->content = content->s;
    k->len = content->len;
    /* the entry (referenced by the caller) keeps a row put over this one until it is freed */
    k->row = e->L.rows[position - 1];
    current = rescue_buf_ok(content);
  }
  pthread_rwlock_unlock(&e->lock);
  return current;
}

/* Take e out of the table (it is no longer current and cannot be made so). */
static void forget(rescue_server *s, srv_cached *e) {
  int i;
  pthread_mutex_lock(&s->cache_mu);
  for (i = 0; s->cache && i < SRV_CACHE_SLOTS; i++)
    if (s->cache[i] == e) {
      s->cache[i] = NULL;
      e->dead = 1; /* the caller holds a reference: its release frees it */
    }
  pthread_mutex_unlock(&s->cache_mu);
}

int64_t srv_cache_gen(rescue_server *s, srv_cached *e) {
  int64_t gen;
  pthread_mutex_lock(&s->cache_mu);
  gen = e->gen;
  pthread_mutex_unlock(&s->cache_mu);
  return gen;
}

void srv_cache_saved(srv_req *r, srv_cached *e, int64_t gen_before, int64_t gen_after,
                     int64_t gen_checked, rescue_review_change *ch, int64_t version, int unchanged,
                     rescue_buf *history) {
  rescue_server *s = r->srv;
  int current, rc = 0;
  pthread_rwlock_wrlock(&e->lock);
  pthread_mutex_lock(&s->cache_mu);
  current = !e->dead && e->gen == gen_before;
  pthread_mutex_unlock(&s->cache_mu);
  if (current && e->L.n_patched >= SRV_CACHE_PATCHES)
    current = 0;
  /* checked against this very view (no save put into it since): its lint holds; else
     the row is linted again against the view as it is now */
  if (current && !unchanged && gen_checked == gen_before)
    rc = rescue_review_put_change(r->st, e->sample_id, &e->L, ch, version, &e->lint);
  else if (current && !unchanged)
    rc = rescue_review_put_row(r->st, e->sample_id, &e->L, ch->position, ch->shown.s, ch->shown.len,
                               version, &e->lint);
  if (current && !unchanged && !rc && !write_rows(e, ch->position - 1, ch->position))
    rc = RESCUE_ENOMEM;
  e->broken |= rc != 0;
  if (current && !rc && history) { /* the caller's buffer takes the old one, to clear */
    rescue_buf old = e->notes.history;
    e->notes.history = *history;
    *history = old;
  }
  if (current && !rc) {
    pthread_mutex_lock(&s->cache_mu);
    e->gen = gen_after;
    pthread_mutex_unlock(&s->cache_mu);
  }
  pthread_rwlock_unlock(&e->lock);
  if (!current || rc)
    forget(s, e);
}
