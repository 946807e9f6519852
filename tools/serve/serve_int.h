/*
** serve_int.h: what the review server's files share (private to the files of tools/serve/):
** the server, one request with its caller and its response, and the API handlers.
*/
#ifndef RESCUE_SERVE_INT_H
#define RESCUE_SERVE_INT_H

#include <pthread.h>
#include <stdint.h>

#include <microhttpd.h>

#include "rescue_annotators.h"
#include "rescue_buf.h"
#include "rescue_json.h"
#include "serve.h"
#include "rescue_store.h"
#include "store_int.h"

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

typedef struct srv_req {
  rescue_server *srv;
  struct MHD_Connection *c;
  const char *method, *url;
  rescue_buf body;
  int too_big;
  rescue_store *st; /* borrowed from the pool for the request */
  srv_who who;
  /* the response */
  int status;
  rescue_buf out;
  const char *ctype;
  char set_cookie[256];
  int retry_after;
} srv_req;

/* Set an error response {"error": message} with status; returns status. */
int srv_error(srv_req *r, int status, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
/* Set the response for a library error code (busy 503, not found 404, bad input 400...). */
int srv_fail(srv_req *r, int code, const char *msg);
/* The query argument `name`, or NULL. */
const char *srv_arg(srv_req *r, const char *name);
/* 1 when the caller may write to sample_id (assigned to them, or a lead, or no
   assignment exists yet); 0 after setting 403. */
int srv_may_write(srv_req *r, const char *sample_id);

/* Parse the request body as a JSON object; NULL after setting a 400. */
const rescue_jnode *srv_body_json(srv_req *r, rescue_jdoc *doc);

/* API handlers (serve_api.c). */
void api_scheme(srv_req *r);
void api_samples(srv_req *r);
void api_sample(srv_req *r, const char *sample_id);
void api_save_row(srv_req *r, const char *sample_id, int position);
void api_status(srv_req *r, const char *sample_id);
void api_segmentation(srv_req *r, const char *sample_id);
void api_comments(srv_req *r, const char *sample_id);
void api_dashboard(srv_req *r);

#pragma GCC visibility pop

#endif
