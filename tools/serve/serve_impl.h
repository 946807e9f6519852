/*
** serve_impl.h: what the review server's files share (private to the files of
** tools/serve/, which use the library's public headers only): the server, one request
** with its caller, its route's parameters and its response, the route table's types and
** the handlers it names.
*/
#ifndef RESCUE_SERVE_IMPL_H
#define RESCUE_SERVE_IMPL_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include <microhttpd.h>

#include "rescue_annotators.h"
#include "rescue_buf.h"
#include "rescue_edit.h"
#include "rescue_json.h"
#include "rescue_lint.h"
#include "rescue_review.h"
#include "rescue_store.h"
#include "rescue_subtitles.h"
#include "serve.h"

#pragma GCC visibility push(hidden)

/* Request bodies above this get 413 (chunked ones as soon as they pass it). */
#define SRV_MAX_BODY (1024 * 1024)
/* Text members of a request body (a status reason, a comment) longer than this get 400. */
#define SRV_MAX_TEXT 4000
/* The longest a request waits for the store (a worker, the write lock, SQLite's lock) before
   503 "corpus busy" with Retry-After. */
#define SRV_WAIT_S 10
/* Workers that run writes (each with a store connection of its own for the checks before
   the write; the writes themselves go one at a time through the group writer, so this is
   how many saves one commit can acknowledge at once). */
#define SRV_WRITERS 16

/* libmicrohttpd's threads (each an epoll loop over many connections; none waits for the
   store), its connection cap, the cap per client address, and the seconds of silence after
   which a connection is closed (a client trickling its head or body included). */
#define SRV_THREADS 2
#define SRV_MAX_CONNECTIONS 1000
#define SRV_PER_ADDRESS 32
#define SRV_IDLE_S 10
/* The seconds a connection has to send a whole request, head and body (a client that
   trickles it a byte at a time, never silent for SRV_IDLE_S, is cut off after this). */
#define SRV_HEAD_S 20

typedef struct srv_req srv_req;

/* A queue of requests waiting for a worker: reads and writes have one each, so a read
   never waits behind writes that wait for another writer. */
typedef struct srv_lane {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  srv_req *head, *tail;
  int stopping;
} srv_lane;

typedef struct srv_session {
  char id[65];         /* cookie value */
  char csrf[65];       /* must come back in X-CSRF-Token on every API request */
  char token_hash[65]; /* of the token signed in with: a rotated token ends the session */
  int64_t annotator_id;
  time_t created, last_used;
} srv_session;

/* The length of an address key (srv_addr_key) with its NUL: an IPv6 address and "/64". */
#define SRV_ADDR_KEY 64

/* Sign-in failures from one address key (srv_addr_key) in the current window
   (serve_auth.c). */
typedef struct srv_failures {
  char addr[SRV_ADDR_KEY];
  time_t since;
  int n;
} srv_failures;

/* A sign-in failure waiting to be written to the audit trail. */
typedef struct srv_logged {
  char addr[64];
  char why[64];
} srv_logged;

struct rescue_server {
  struct MHD_Daemon *daemon;
  char *db, *assets, *assets_real; /* assets_real: realpath of assets, NULL when none */
  int port;
  int loopback;       /* listening on a loopback address */
  char *public_hosts; /* --public-host names, comma-separated, or NULL */
  int tls;            /* serving HTTPS */
  /* store connections: pool[0] is the group writer (every write of the server goes
     through it, under write_mu), worker i uses pool[i + 1] */
  rescue_store **pool;
  int n_pool;
  /* the workers that run API requests while their connections are suspended (so the
     threads serving connections never wait for the store): lane[0] reads, lane[1] writes */
  srv_lane lane[2];
  struct srv_worker *workers;
  /* the store connections of quick reads (srv_route.quick) on libmicrohttpd's threads:
     one per thread, taken with trylock so that no such thread ever waits for another;
     each never waits for a lock (rescue_store_never_wait) and notes when it would have */
  struct srv_quick {
    pthread_mutex_t mu;
    rescue_store *st;
    int would_wait;
  } quick[SRV_THREADS];
  int n_workers, n_started;
  /* open connections waiting for a request head, watched by the reaper thread */
  pthread_mutex_t conn_mu;
  pthread_cond_t conn_cv;
  struct srv_conn *conns;
  pthread_t reaper;
  int reaper_started, reaper_stop;
  /* writes from this process go one at a time: SQLite allows one writer, and waiting on
     a mutex is fairer and faster than on SQLite's busy handler */
  pthread_mutex_t write_mu;
  /* group commit (serve.c, under write_mu): writes join the transaction open on pool[0]
     and wait for its commit; whoever finds no writer waiting commits it, so one sync of
     the log acknowledges every write made while the previous commit ran */
  pthread_cond_t commit_cv;
  int write_waiting; /* workers waiting for write_mu to write (atomic) */
  int group_open;    /* a transaction is open on pool[0] */
  srv_req *group;    /* the requests whose writes it holds */
  /* pool[0] commits without waiting for the disk (rescue_store_defer_sync): the thread
     that commits a group syncs the log after letting go of write_mu, so the next group
     writes meanwhile; the group's requests count as committed only after the sync */
  int sync_deferred;
  /* sessions (in memory: a restart signs everyone out) */
  pthread_mutex_t sess_mu;
  srv_session *sessions;
  int n_sessions, cap_sessions;
  /* the seconds a session lasts unused, and in all (serve_auth.c) */
  int session_idle, session_life;
  char cookie[40];        /* this instance's session cookie name (serve_auth.c) */
  unsigned char key[32];  /* signs media URLs (serve_auth.c) */
  srv_failures *failures; /* sign-in failures per address (under sess_mu) */
  int n_failures, cap_failures;
  /* sign-in failures for `rescue log`, written by their own thread (serve_auth.c) */
  pthread_mutex_t log_mu;
  pthread_cond_t log_cv;
  pthread_t log_thread;
  int auth_init, log_running, log_stop;
  srv_logged *logq;
  int n_logq, cap_logq;
  /* the corpus file as opened (serve_watch.c): writes stop once it is gone or replaced */
  dev_t db_dev;
  ino_t db_ino;
  int db_lost; /* 1 once seen deleted or replaced (read and set under write_mu) */
  /* decoded peaks of the files the time line drew (serve_waveform.c), under wave_mu */
  pthread_mutex_t wave_mu;
  struct srv_wave *waves; /* SRV_WAVE_SLOTS, or NULL before the first */
  unsigned wave_next;
  /* loaded and linted samples (serve_cache.c), under cache_mu */
  pthread_mutex_t cache_mu;
  struct srv_cached **cache; /* SRV_CACHE_SLOTS, or NULL before the first */
  unsigned long cache_tick;
  /* callers and their samples as of an access generation (serve_access.c), under access_mu */
  pthread_mutex_t access_mu;
  struct srv_access *access;
};

/* Who is calling. */
typedef struct srv_who {
  int64_t id; /* 0: nobody */
  char name[128];
  char role[16];       /* annotator | lead | model */
  int session;         /* authenticated by the session cookie (API requests need CSRF) */
  char session_id[65]; /* that session's id (media URLs are signed for it) */
} srv_who;

/* ---- the route table (serve_routes.c) ---- */

/* Who may call a route. */
typedef enum srv_role {
  SRV_PUBLIC,    /* anyone (signing in) */
  SRV_ME,        /* any signed-in account, by cookie without the CSRF token (who you are) */
  SRV_SIGNED_IN, /* any signed-in annotator or lead (model accounts never sign in) */
  SRV_LEAD       /* leads only (403 for others) */
} srv_role;

/* Which samples a route reaches, checked before its handler runs. */
typedef enum srv_scope {
  SRV_NO_SAMPLE,    /* the route names no sample */
  SRV_WORK_LIST,    /* lists samples: leads every sample, others those assigned to them (every
                      sample while nothing is assigned): sets srv_req.every */
  SRV_READ_VIEW,    /* reads {id} (assigned to the caller or to nobody; leads any) through
                      the caller's own view; leads may name another annotator's
                      (?view=<name>, read-only): sets view_id and view_name */
  SRV_ASSIGNED,     /* {id} must exist and be assigned to the caller or to nobody; leads
                      any (comments) */
  SRV_OWN_ASSIGNED, /* writes {id} in the caller's own view (no ?view= of someone else);
                      it must exist and be assigned to them or to nobody; leads any */
  SRV_CLIP          /* {path} is a file of a sample's clip folder that SRV_ASSIGNED allows;
                      leads any file; by cookie only with a signed URL (srv_media_sign) */
} srv_scope;

/* Methods, as bits of srv_route.methods. */
enum { SRV_GET = 1, SRV_HEAD = 2, SRV_PUT = 4, SRV_POST = 8 };

typedef struct srv_route {
  unsigned methods; /* SRV_GET | ... */
  /* the URL: literal, or a literal prefix then {id} (a sample id, which contains '/':
     matched from the right) with an optional literal tail that may end in {n} (a row
     number), or a prefix then {path} (the rest of the URL) */
  const char *path;
  srv_role role;
  srv_scope scope;
  void (*handler)(srv_req *r);
  const char *what;    /* in messages ("the dashboard is for leads") */
  const char *refused; /* the 405 message for another method; NULL: 405 on sample paths,
                          "no API endpoint" elsewhere */
  /* a read that can be answered on the connection's own thread when the store need not
     wait and no slow work is due (a kept sample): no hand-off to a worker and back
     (serve.c run_quick) */
  int quick;
} srv_route;

/* Find the route for the request, authenticate and authorize the caller, run it. */
void srv_dispatch(srv_req *r);
/* 1 when the request's route is a quick one (srv_route.quick). */
int srv_route_quick(srv_req *r);

struct srv_req {
  rescue_server *srv;
  struct MHD_Connection *c;
  const char *method, *url;
  rescue_buf body;
  int too_big;
  /* running on the connection's thread (srv_route.quick): nothing may wait */
  int quick;
  /* a quick run met a wait or slow work: a worker runs the request again */
  int handoff;
  rescue_store *st;         /* the worker's store connection while the handler runs (the
                               group writer between srv_write_lock and srv_write_unlock) */
  rescue_store *own_st;     /* the worker's own, while st is the group writer */
  srv_req *group_next;      /* in the server's commit group */
  int in_group, committed;  /* waiting for the group's commit; it happened */
  int commit_failed;        /* the commit of a write failed: answer 503, nothing stored */
  int sync_failed;          /* committed, but the log could not be synced: answer 503 */
  srv_req *next;            /* in a lane's queue */
  struct timespec deadline; /* CLOCK_REALTIME: the store waits end here (503) */
  int done;                 /* a worker answered: queue the response when resumed */
  srv_who who;
  /* the store's access generation in this request's snapshot, plus one (0: not read yet;
     serve_access.c) */
  int64_t access_gen;
  /* what the route table resolved */
  char *sample_id;       /* {id} */
  int position;          /* {n} */
  const char *rest;      /* {path} */
  int every;             /* SRV_WORK_LIST: every sample */
  int64_t view_id;       /* SRV_READ_VIEW: whose view */
  const char *view_name; /* its annotator's name */
  /* the response */
  int status;
  rescue_buf out;
  const char *ctype;
  char set_cookie[256];
  int retry_after;
  struct MHD_Response *resp; /* the handler built its own response (a clip) */
};

/* ---- responses and requests (serve.c) ---- */

/* Set an error response {"error": message} with status; returns status. */
int srv_error(srv_req *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Set the response for a library error code (busy 503, not found 404, bad input 400...). */
int srv_fail(srv_req *r, int code, const char *msg);
/* The query argument `name`, or NULL. */
const char *srv_arg(srv_req *r, const char *name);
/* 1 when the caller is a lead. */
int srv_is_lead(const srv_req *r);
/* Parse the request body as a JSON object; NULL after setting a 400. */
const rescue_jnode *srv_body_json(srv_req *r, rescue_jdoc *doc);
/* An integer member of obj; 0 after setting 400 when missing or of the wrong type. */
int srv_int_member(srv_req *r, const rescue_jnode *obj, const char *key, int64_t *out);
/* A finite number member of obj; 0 after setting 400 otherwise. */
int srv_num_member(srv_req *r, const rescue_jnode *obj, const char *key, double *out);
/* The Content-Security-Policy every response carries. */
/*
** The key under which the per-address limits (connections, sign-in failures) count a
** client: an IPv4 address itself, an IPv4-mapped IPv6 address (::ffff:a.b.c.d, a client
** of a dual-stack socket) as that IPv4 address, any other IPv6 address as its /64
** ("2001:db8:1:2::/64": one client is routinely given a whole /64, so counting each
** address alone would let it open connections and guess tokens without limit); "?" for
** anything else. A pure function of sa.
*/
void srv_addr_key(const struct sockaddr *sa, char out[SRV_ADDR_KEY]);

extern const char srv_csp[];
/* Add the headers every response carries (CSP, nosniff, frames, referrer, no-store). */
void srv_security_headers(struct MHD_Response *resp);
/*
** Take the server's write lock, waiting until the request's deadline at most, and bound
** SQLite's wait for other processes' writers by what is left: 1 when held, with r->st the
** group writer until srv_write_unlock, 0 after setting 503 "corpus busy". srv_write_unlock
** returns once the write is committed (group commit); a failed commit makes the request's
** answer 503.
*/
int srv_write_lock(srv_req *r);
void srv_write_unlock(srv_req *r);

/* Lint findings as a JSON array [{row, field, rule, severity, reason}] (only_row > 0: only
   that row's). serve_samples.c */
void srv_put_findings(rescue_jw *w, const rescue_lint_result *res, int only_row);

/*
** What a read of a sample (GET /api/samples/<id>) shows besides its view, the same for
** every reader and every view: the members "comments", "history" and "cues" of the answer
** as JSON text, and the cues themselves (for a save's check). None of them changes without
** the sample's generation moving (triggers gen_comment_ins, gen_sample_upd, which a status
** change fires with its history line, gen_cue_ins and gen_cue_del in schema/store.sql), so
** the cache keeps them with a view (serve_cache.c). serve_samples.c
*/
typedef struct srv_notes {
  rescue_cues cues;    /* the sample's subtitle cues (rescue_sample_cues) */
  rescue_buf comments; /* [{row, annotator, text, created_at}]: comments on it and its rows */
  rescue_buf history;  /* [{status, reason, annotator, created_at}]: its status history */
  rescue_buf cue_text; /* [{start, end, speaker, text}]: the cues */
} srv_notes;

/*
** Read sample_id's notes on r->st into *n (the caller clears it with srv_notes_clear): 0,
** or an error code (detail on r->st) with *n empty.
*/
int srv_notes_read(srv_req *r, const char *sample_id, srv_notes *n);
void srv_notes_clear(srv_notes *n);
/* sample_id's status history as srv_notes_read writes it (its "history"), appended to b,
   read on r->st: 0 or an error code. */
int srv_notes_history(srv_req *r, const char *sample_id, rescue_buf *b);

/* 409 for a save that found a newer version cur of row position: the library's message,
   the current version and its row. serve_rows.c */
void srv_conflict(srv_req *r, int position, int64_t cur);

/* The members "status" (the sample's status after a write, `now`) and "reopened" (true when
   the write took it from `was`, reviewed or discarded, back to in review; then also
   "reopened_from": was). serve_rows.c */
void srv_put_reopened(rescue_jw *w, const char *was, const char *now);

/* ---- signing in (serve_auth.c) ---- */

/* What a cookie request must show besides the cookie (srv_authenticate). */
enum { SRV_PROOF_CSRF, SRV_PROOF_NONE, SRV_PROOF_SIGNED };

/*
** Who is calling: a Bearer token, else this server's session cookie from this origin with
** `proof` (the X-CSRF-Token header, nothing, or a media signature checked by the SRV_CLIP
** scope). Model accounts and ended sessions (rotated token, retired) are refused.
** 1 when known; 0 after setting 401 or 403.
*/
int srv_authenticate(srv_req *r, int proof);
/* The query "?exp=<unix time>&sig=<hex>" that lets the caller's session fetch /clips/<rel>
   for a while, appended to url (nothing when the caller is not signed in by cookie). */
void srv_media_sign(srv_req *r, const char *rel, rescue_buf *url);
/* 1 when the request's exp and sig sign r->rest for the caller's session; 0 after 403. */
int srv_media_check(srv_req *r);
/* Session keys and limits (o's, else the defaults), the cookie name and the sign-in
   failure log's thread; 0 or -1. */
int srv_auth_start(rescue_server *s, const rescue_serve_opts *o);
/* Flush the sign-in failure log and free what srv_auth_start made. */
void srv_auth_stop(rescue_server *s);

/* ---- the time line's peaks (serve_waveform.c) ---- */

/* Files whose peaks the server keeps decoded (a few samples open at once). */
#define SRV_WAVE_SLOTS 8
/* Free the kept peaks (rescue_server_free). */
void srv_wave_drop(rescue_server *s);

/* ---- the corpus file (serve_watch.c) ---- */

/* Remember which file the store opened; RESCUE_EIO when it cannot be examined. */
int srv_watch_start(rescue_server *s, rescue_error *err);
/*
** 1 while the corpus file is the one the server opened; else 0 after setting 503 (and,
** the first time, saying so on stderr): from then on no write is accepted. Any thread.
*/
int srv_watch_ok(srv_req *r);

/* ---- handlers, one file per resource ---- */

void api_login(srv_req *r);        /* serve_auth.c */
void api_logout(srv_req *r);       /* serve_auth.c */
void api_me(srv_req *r);           /* serve_auth.c */
void api_scheme(srv_req *r);       /* serve_scheme.c */
void api_samples(srv_req *r);      /* serve_samples.c */
void api_sample(srv_req *r);       /* serve_samples.c */
void api_save_row(srv_req *r);     /* serve_rows.c */
void api_status(srv_req *r);       /* serve_rows.c */
void api_segmentation(srv_req *r); /* serve_segment.c */
void api_comments(srv_req *r);     /* serve_comments.c */
void api_dashboard(srv_req *r);    /* serve_dashboard.c */
void api_waveform(srv_req *r);     /* serve_waveform.c */
void srv_clip(srv_req *r);         /* serve_clips.c */

/* curation for leads: serve_curate.c */
void api_curate_queue(srv_req *r);
void api_curate_sample(srv_req *r);
void api_curate_segmentation(srv_req *r);
void api_curate_decide(srv_req *r);

/* ---- what rows play (serve_media.c) ---- */

typedef struct media_clip media_clip;

/* A sample's media as its rows see it: the segment, the current clips, the view's row ids. */
typedef struct srv_media {
  int review;        /* <sample>/review.mp4 (`rescue clip --review-copy`) is there and
                        newer than segment.mp4: every row plays it */
  int segment;       /* <sample>/segment.mp4 is there: every row plays it */
  media_clip *clips; /* manifest entries whose row id and span still match (not stale) */
  int n_clips;
  int64_t *row_id; /* n_rows: row.id of the view's rows by position */
  int n_rows;
} srv_media;

/* ---- samples kept loaded between requests (serve_cache.c) ---- */

#define SRV_CACHE_SLOTS 64    /* views kept */
#define SRV_CACHE_ROWS 40000  /* rows they hold together */
#define SRV_CACHE_PATCHES 256 /* saved rows put into one view before it is loaded again */

typedef struct srv_cached srv_cached;

/*
** sample_id as view_id's view shows it, with its whole-sample lint, current as of the
** sample's generation read now on r->st (its status into status, 16 bytes): from the cache
** or loaded into it. On success *out is referenced and read-locked: read it with
** srv_cache_view, then srv_cache_unread and srv_cache_release. 0 or an error code (detail
** on r->st). A quick request (srv_req.quick) never loads and never waits for a save's
** patch: RESCUE_EBUSY with srv_req.handoff set instead.
*/
int srv_cache_get(srv_req *r, const char *sample_id, int64_t view_id, char *status,
                  srv_cached **out);
/* The entry's view and (lint not NULL) its whole-sample lint, while read-locked. */
const rescue_view_sample *srv_cache_view(srv_cached *e, const rescue_lint_result **lint);
/* The entry's rows as JSON text (what rescue_jwrite makes of each), while read-locked. */
const rescue_buf *srv_cache_row_text(srv_cached *e);
/* The sample's comments, status history and cues (srv_notes_read at the load; the history
   as a save that moved the status left it: srv_cache_saved), while read-locked. */
const srv_notes *srv_cache_notes(srv_cached *e);
/* The length of the last answer a read made from e (srv_cache_answered), 0 before the
   first: what the next one reserves. Any thread. */
size_t srv_cache_answer_size(srv_cached *e);
/* Note that a read made an answer of len bytes from e. Any thread. */
void srv_cache_answered(srv_cached *e, size_t len);
/* The entry's rows' start_time and end_time (2 per row; NAN when not a number), while
   read-locked. */
const double *srv_cache_spans(srv_cached *e);
void srv_cache_unread(srv_cached *e);
/* Drop the reference srv_cache_get gave; *e becomes NULL. */
void srv_cache_release(rescue_server *s, srv_cached **e);
/* The generation e's view and lint are current for; call while read-locked. */
int64_t srv_cache_gen(rescue_server *s, srv_cached *e);
/*
** After e's annotator saved the row *ch holds (rescue_review_check_change against e's view
** when e was at generation gen_checked; version; unchanged: rescue_row_save said so) and its
** group committed: with gen_before and gen_after the sample's generation read on the writer
** just before and after the save, put the row into e when e was current at gen_before
** (with the check's lint when gen_checked is gen_before, else linting it again), else take
** e out of the cache. history: when the save also moved the sample's status (and so wrote
** a line of its status history), the history as srv_notes_history read it on the writer
** at gen_after, which e takes (*history is left with what the caller clears); else NULL.
** e referenced, not locked; ch's lint may be moved into e.
*/
void srv_cache_saved(srv_req *r, srv_cached *e, int64_t gen_before, int64_t gen_after,
                     int64_t gen_checked, rescue_review_change *ch, int64_t version, int unchanged,
                     rescue_buf *history);
/*
** When e is current at generation gen (read on the writer inside its transaction): what
** it shows of row `position` into *k for rescue_row_save_known (the content written into
** content, k->row the view's parsed row, valid while the caller holds e) and 1; else 0.
*/
int srv_cache_known(rescue_server *s, srv_cached *e, int64_t gen, int position, rescue_buf *content,
                    rescue_row_known *k);
/* Free every entry (the server is stopping). */
void srv_cache_drop(rescue_server *s);

/* ---- callers and their samples, kept (serve_access.c) ---- */

/* Set up s's tables (at start) and free them (at the end). 0 or RESCUE_ENOMEM. */
int srv_access_init(rescue_server *s);
void srv_access_free(rescue_server *s);
/*
** As rescue_annotator_by_token, rescue_reviewer_get, and rescue_sample_ref with
** rescue_review_assigned (for r->sample_id and r->who.id: *exists, then *any and *mine),
** in r's snapshot: answered from what an earlier request read in the same access
** generation when there is one. 0 or a library error code (the store's message set).
*/
int srv_access_token(srv_req *r, const char *token, int64_t *id);
int srv_access_reviewer(srv_req *r, int64_t id, rescue_reviewer *rv);
int srv_access_sample(srv_req *r, int *exists, int *any, int *mine);

/* Load r->sample_id's media for the view r->view_id into *m. 0 or an error code. */
int srv_media_load(srv_req *r, srv_media *m);
void srv_media_clear(srv_media *m);
/* The review copy or segment.mp4 the rows play whole (path under the assets): 1, or 0. */
int srv_media_whole_file(srv_req *r, rescue_buf *path, const char **kind);
/*
** Write row i's media (its span [a, b], seconds of the sample): {"path", "kind" ("review"
** | "segment" | "clip"), "start", "end" (seconds inside the file), "offset" (the second of the sample
** at the file's start), "clip_row_id"} or null when nothing plays it.
*/
void srv_put_row_media(srv_req *r, rescue_jw *w, const srv_media *m, int i, double a, double b);

#pragma GCC visibility pop

#endif
