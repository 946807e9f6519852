/*
** serve_access.c: what the server learned about its callers, kept while the store's access
** generation (schema migration 15, rescue_access_generation) stays the same: an
** annotator's name, role, retirement and token (so who a Bearer token belongs to), and
** whether a sample exists and is assigned to a caller.
**
** Every request that asks reads the generation once, in its own snapshot, before its
** first answer from here; an entry of another generation is read again from the store and
** replaced. Any write that could change an answer (a token rotated, an annotator retired,
** an assignment run, a sample added), by the server or the command line, moves the
** generation in its own transaction, so the next request sees it exactly as if nothing
** were kept. What this saves is the reads: a request's store connection starts with an
** empty page cache whenever anyone committed since its last one (every save does), and
** the four lookups of signing in and authorizing touched about ten pages.
**
** Threads: access_mu guards both tables; nobody waits for anything while holding it.
*/
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_annotators.h"
#include "rescue_review.h"
#include "serve_impl.h"

/* Annotators kept (a corpus has a handful; more only cost a read each). */
#define SRV_ACCESS_WHO 64
/* (sample, caller) verdicts kept: a slot per hash of the pair, the newest wins. */
#define SRV_ACCESS_SAMPLES 1024

struct srv_access_who {
  int64_t gen; /* read in this generation; 0: empty (generations start at 1 once used) */
  rescue_reviewer rv;
};

struct srv_access_sample {
  int64_t gen; /* as above */
  int64_t annotator;
  char *sample_id;
  int exists, any, mine;
};

struct srv_access {
  struct srv_access_who who[SRV_ACCESS_WHO];
  unsigned who_next; /* the slot the next annotator takes when none is free */
  struct srv_access_sample samples[SRV_ACCESS_SAMPLES];
};

int srv_access_init(rescue_server *s) {
  pthread_mutex_init(&s->access_mu, NULL);
  s->access = rescue_calloc(1, sizeof *s->access);
  return s->access ? 0 : RESCUE_ENOMEM;
}

void srv_access_free(rescue_server *s) {
  int i;
  if (s->access)
    for (i = 0; i < SRV_ACCESS_SAMPLES; i++)
      rescue_free(s->access->samples[i].sample_id);
  rescue_free(s->access);
  s->access = NULL;
  pthread_mutex_destroy(&s->access_mu);
}

/*
** The access generation of r's snapshot, read once per request (+1, so that 0 never
** matches a kept entry); 0 or a library error code (the store's message set).
*/
static int generation(srv_req *r, int64_t *gen) {
  int rc;
  if (!r->access_gen) {
    if ((rc = rescue_access_generation(r->st, &r->access_gen)))
      return rc;
    r->access_gen++;
  }
  *gen = r->access_gen;
  return 0;
}

/* Keep rv as read in generation gen (in place of an older copy of the same annotator). */
static void keep_who(rescue_server *s, int64_t gen, const rescue_reviewer *rv) {
  struct srv_access *a = s->access;
  int i, slot = -1;
  pthread_mutex_lock(&s->access_mu);
  for (i = 0; i < SRV_ACCESS_WHO && slot < 0; i++)
    if (a->who[i].rv.id == rv->id || a->who[i].gen != gen)
      slot = i;
  if (slot < 0)
    slot = (int)(a->who_next++ % SRV_ACCESS_WHO);
  a->who[slot].gen = gen;
  a->who[slot].rv = *rv;
  pthread_mutex_unlock(&s->access_mu);
}

/* The kept annotator of generation gen with this token hash, or else with this id, into *out: 1, or 0. */
static int find_who(rescue_server *s, int64_t gen, int64_t id, const char *token_hash,
                    rescue_reviewer *out) {
  struct srv_access *a = s->access;
  int i, found = 0;
  pthread_mutex_lock(&s->access_mu);
  for (i = 0; i < SRV_ACCESS_WHO && !found; i++) {
    const struct srv_access_who *w = &a->who[i];
    if (w->gen != gen)
      continue;
    if (token_hash ? w->rv.token_hash[0] && strcmp(w->rv.token_hash, token_hash) == 0
                   : w->rv.id == id) {
      *out = w->rv;
      found = 1;
    }
  }
  pthread_mutex_unlock(&s->access_mu);
  return found;
}

int srv_access_reviewer(srv_req *r, int64_t id, rescue_reviewer *rv) {
  int64_t gen;
  int rc;
  if ((rc = generation(r, &gen)))
    return rc;
  if (find_who(r->srv, gen, id, NULL, rv))
    return 0;
  if ((rc = rescue_reviewer_get(r->st, id, rv)))
    return rc;
  keep_who(r->srv, gen, rv);
  return 0;
}

int srv_access_token(srv_req *r, const char *token, int64_t *id) {
  rescue_reviewer rv;
  char hash[65];
  int64_t gen;
  int rc;
  if ((rc = generation(r, &gen)))
    return rc;
  rescue_token_hash(token, hash);
  if (find_who(r->srv, gen, 0, hash, &rv)) {
    *id = rv.id;
    return 0;
  }
  if ((rc = rescue_annotator_by_token(r->st, token, id)))
    return rc;
  if (rescue_reviewer_get(r->st, *id, &rv) == 0)
    keep_who(r->srv, gen, &rv);
  return 0;
}

/* The slot of (sample_id, annotator): FNV-1a of both. */
static unsigned sample_slot(const char *sample_id, int64_t annotator) {
  uint32_t h = 2166136261u;
  const unsigned char *p;
  int i;
  for (p = (const unsigned char *)sample_id; *p; p++)
    h = (h ^ *p) * 16777619u;
  for (i = 0; i < 8; i++)
    h = (h ^ (unsigned char)((uint64_t)annotator >> (8 * i))) * 16777619u;
  return h % SRV_ACCESS_SAMPLES;
}

int srv_access_sample(srv_req *r, int *exists, int *any, int *mine) {
  rescue_server *s = r->srv;
  struct srv_access_sample *e;
  unsigned slot = sample_slot(r->sample_id, r->who.id);
  char *copy;
  int64_t gen, ref;
  int rc, found = 0;
  if ((rc = generation(r, &gen)))
    return rc;
  pthread_mutex_lock(&s->access_mu);
  e = &s->access->samples[slot];
  if (e->gen == gen && e->annotator == r->who.id && strcmp(e->sample_id, r->sample_id) == 0) {
    *exists = e->exists;
    *any = e->any;
    *mine = e->mine;
    found = 1;
  }
  pthread_mutex_unlock(&s->access_mu);
  if (found)
    return 0;
  *any = *mine = 0;
  rc = rescue_sample_ref(r->st, r->sample_id, &ref);
  if (rc && rc != RESCUE_ENOTFOUND)
    return rc;
  *exists = rc == 0;
  if (*exists && (rc = rescue_review_assigned(r->st, r->sample_id, r->who.id, any, mine)))
    return rc;
  if (!(copy = rescue_strdup(r->sample_id)))
    return 0; /* answered, only not kept */
  pthread_mutex_lock(&s->access_mu);
  e = &s->access->samples[slot];
  rescue_free(e->sample_id);
  e->sample_id = copy;
  e->gen = gen;
  e->annotator = r->who.id;
  e->exists = *exists;
  e->any = *any;
  e->mine = *mine;
  pthread_mutex_unlock(&s->access_mu);
  return 0;
}
