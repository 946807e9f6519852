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

#include <microhttpd.h>

#include "rescue_annotators.h"
#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_lint.h"
#include "rescue_store.h"
#include "serve.h"

#pragma GCC visibility push(hidden)

/* Request bodies above this get 413. */
#define SRV_MAX_BODY (1024 * 1024)

typedef struct srv_session {
  char id[65];   /* cookie value */
  char csrf[65]; /* must come back in X-CSRF-Token on every write */
  int64_t annotator_id;
  time_t last_used;
} srv_session;

struct rescue_server {
  struct MHD_Daemon *daemon;
  char *db, *assets, *assets_real; /* assets_real: realpath of assets, NULL when none */
  int port;
  /* store connections, one per request in flight */
  rescue_store **pool;
  int *pool_busy;
  int n_pool;
  pthread_mutex_t pool_mu;
  pthread_cond_t pool_cv;
  /* writes from this process go one at a time: SQLite allows one writer, and waiting on
     a mutex is fairer and faster than on SQLite's busy handler */
  pthread_mutex_t write_mu;
  /* sessions (in memory: a restart signs everyone out) */
  pthread_mutex_t sess_mu;
  srv_session *sessions;
  int n_sessions, cap_sessions;
};

/* Who is calling. */
typedef struct srv_who {
  int64_t id; /* 0: nobody */
  char name[128];
  char role[16]; /* annotator | lead | model */
  int session;   /* authenticated by the session cookie (writes need CSRF) */
} srv_who;

/* ---- the route table (serve_routes.c) ---- */

/* Who may call a route. */
typedef enum srv_role {
  SRV_PUBLIC,    /* anyone (signing in) */
  SRV_SIGNED_IN, /* any signed-in account: annotator, lead or model */
  SRV_LEAD       /* leads only (403 for others) */
} srv_role;

/* Which samples a route reaches, checked before its handler runs. */
typedef enum srv_scope {
  SRV_NO_SAMPLE,   /* the route names no sample */
  SRV_WORK_LIST,   /* lists samples: leads every sample, others those assigned to them (every
                      sample while nothing is assigned): sets srv_req.every */
  SRV_READ_VIEW,   /* reads {id} through the caller's own view; leads may name another
                      annotator's (?view=<name>, read-only): sets view_id and view_name */
  SRV_ANY_SAMPLE,  /* {id} must exist, whoever it is assigned to (comments) */
  SRV_OWN_ASSIGNED /* writes {id} in the caller's own view (no ?view= of someone else);
                      it must exist and be assigned to them or to nobody; leads any */
} srv_scope;

/* Methods, as bits of srv_route.methods. */
enum { SRV_GET = 1, SRV_HEAD = 2, SRV_PUT = 4, SRV_POST = 8 };

typedef struct srv_req srv_req;

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
} srv_route;

/* Find the route for the request, authenticate and authorize the caller, run it. */
void srv_dispatch(srv_req *r);

struct srv_req {
  rescue_server *srv;
  struct MHD_Connection *c;
  const char *method, *url;
  rescue_buf body;
  int too_big;
  rescue_store *st; /* borrowed from the pool for the request */
  srv_who who;
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
  int queued; /* the handler queued its own response (a clip) */
  enum MHD_Result queued_result;
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
extern const char srv_csp[];

/* Lint findings as a JSON array [{row, field, rule, severity, reason}] (only_row > 0: only
   that row's). serve_samples.c */
void srv_put_findings(rescue_jw *w, const rescue_lint_result *res, int only_row);

/* 409 for a save that found a newer version cur of row position: the library's message,
   the current version and its row. serve_rows.c */
void srv_conflict(srv_req *r, int position, int64_t cur);

/* ---- signing in (serve_auth.c) ---- */

/*
** Who is calling: a Bearer token, else the session cookie (with the CSRF token on writes).
** 1 when known; 0 after setting 401 or 403.
*/
int srv_authenticate(srv_req *r, int write);

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
void srv_clip(srv_req *r);         /* serve_clips.c */

/* ---- what rows play (serve_media.c) ---- */

typedef struct media_clip media_clip;

/* A sample's media as its rows see it: the segment, the current clips, the view's row ids. */
typedef struct srv_media {
  int segment;       /* <sample>/segment.mp4 is there: every row plays it */
  media_clip *clips; /* manifest entries whose row id and span still match (not stale) */
  int n_clips;
  int64_t *row_id; /* n_rows: row.id of the view's rows by position */
  int n_rows;
} srv_media;

/* Load r->sample_id's media for the view r->view_id into *m. 0 or an error code. */
int srv_media_load(srv_req *r, srv_media *m);
void srv_media_clear(srv_media *m);
/*
** Write row i's media (its span [a, b], seconds of the sample): {"path", "kind" ("segment"
** | "clip"), "start", "end" (seconds inside the file), "offset" (the second of the sample
** at the file's start), "clip_row_id"} or null when nothing plays it.
*/
void srv_put_row_media(srv_req *r, rescue_jw *w, const srv_media *m, int i, double a, double b);

#pragma GCC visibility pop

#endif
