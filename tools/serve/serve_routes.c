/*
** serve_routes.c: the review server's routes in one table. Each row names the method(s),
** the URL pattern, who may call it (srv_role) and which samples it reaches (srv_scope);
** srv_dispatch finds the row, signs the caller in and checks both before the handler
** runs, so a new route is a new row and its handler never repeats a permission check.
** An annotator reaches only the samples assigned to them or to nobody (rescue_review_assigned:
** every sample while nothing is assigned), leads every sample; writes stop once the corpus
** file is gone (serve_watch.c).
*/
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_alloc.h"
#include "rescue_review.h"
#include "serve_impl.h"

/* clang-format off */
static const srv_route routes[] = {
  /* methods  path                                role           scope            handler           what             refused  quick */
  {SRV_POST, "/api/login",                       SRV_PUBLIC,    SRV_NO_SAMPLE,    api_login,        "signing in",    "sign in with POST", 0},
  {SRV_GET,  "/api/me",                          SRV_ME,        SRV_NO_SAMPLE,    api_me,           "who you are",   NULL, 1},
  {SRV_POST, "/api/logout",                      SRV_SIGNED_IN, SRV_NO_SAMPLE,    api_logout,       "signing out",   NULL, 0},
  {SRV_GET,  "/api/scheme",                      SRV_SIGNED_IN, SRV_NO_SAMPLE,    api_scheme,       "the scheme",    NULL, 0},
  {SRV_GET,  "/api/dashboard",                   SRV_LEAD,      SRV_NO_SAMPLE,    api_dashboard,    "the dashboard", NULL, 0},
  {SRV_GET,  "/api/samples",                     SRV_SIGNED_IN, SRV_WORK_LIST,    api_samples,      "the work list", NULL, 0},
  {SRV_POST, "/api/samples/{id}/status",         SRV_SIGNED_IN, SRV_OWN_ASSIGNED, api_status,       "a status",      NULL, 0},
  {SRV_POST, "/api/samples/{id}/comments",       SRV_SIGNED_IN, SRV_ASSIGNED,     api_comments,     "a comment",     NULL, 0},
  {SRV_POST, "/api/samples/{id}/segmentation",   SRV_SIGNED_IN, SRV_OWN_ASSIGNED, api_segmentation, "segmentation",  NULL, 0},
  {SRV_PUT,  "/api/samples/{id}/rows/{n}",       SRV_SIGNED_IN, SRV_OWN_ASSIGNED, api_save_row,     "a row",         NULL, 0},
  {SRV_GET,  "/api/samples/{id}/waveform",       SRV_SIGNED_IN, SRV_ASSIGNED,     api_waveform,     "a waveform",    NULL, 0},
  {SRV_GET,  "/api/samples/{id}",                SRV_SIGNED_IN, SRV_READ_VIEW,    api_sample,       "a sample",      NULL, 1},
  {SRV_GET,  "/api/curate",                      SRV_LEAD,      SRV_NO_SAMPLE,    api_curate_queue, "curation",      NULL, 0},
  {SRV_PUT,  "/api/curate/{id}/segmentation",    SRV_LEAD,      SRV_ASSIGNED,     api_curate_segmentation, "curation", NULL, 0},
  {SRV_PUT,  "/api/curate/{id}/rows/{n}",        SRV_LEAD,      SRV_ASSIGNED,     api_curate_decide, "curation",     NULL, 0},
  {SRV_GET,  "/api/curate/{id}",                 SRV_LEAD,      SRV_ASSIGNED,     api_curate_sample, "curation",     NULL, 0},
  {SRV_GET | SRV_HEAD, "/clips/{path}",          SRV_SIGNED_IN, SRV_CLIP,         srv_clip,         "clips",         "clips are read-only", 0},
};
/* clang-format on */

/* What a URL matched: the {id}, {n} and {path} parts (pointers into the URL). */
typedef struct srv_match {
  const char *id, *n, *rest;
  size_t id_len;
} srv_match;

static unsigned method_bit(const char *m) {
  if (strcmp(m, "GET") == 0)
    return SRV_GET;
  if (strcmp(m, "HEAD") == 0)
    return SRV_HEAD;
  if (strcmp(m, "PUT") == 0)
    return SRV_PUT;
  if (strcmp(m, "POST") == 0)
    return SRV_POST;
  return 0;
}

/*
** Does url match the route's pattern? Sample ids contain '/', so the tail after {id} is
** matched from the right: "/status" must end the URL, "/rows/{n}" must be its last two
** components. 1 with *m filled, else 0.
*/
static int match(const srv_route *rt, const char *url, srv_match *m) {
  const char *open = strchr(rt->path, '{'), *tail, *rest;
  size_t plen, len, tlen;
  memset(m, 0, sizeof *m);
  if (!open)
    return strcmp(url, rt->path) == 0;
  plen = (size_t)(open - rt->path);
  if (strncmp(url, rt->path, plen) != 0)
    return 0;
  rest = url + plen;
  if (strncmp(open, "{path}", 6) == 0) {
    m->rest = rest;
    return 1;
  }
  tail = open + 4; /* after "{id}" */
  len = strlen(rest);
  if (!*tail) {
    m->id = rest;
    m->id_len = len;
    return 1;
  }
  tlen = strlen(tail);
  if (tlen > 3 && strcmp(tail + tlen - 3, "{n}") == 0) {
    const char *slash = strrchr(rest, '/');
    size_t lit = tlen - 4; /* "/rows" of "/rows/{n}" */
    if (!slash || (size_t)(slash - rest) < lit || memcmp(slash - lit, tail, lit) != 0)
      return 0;
    m->id = rest;
    m->id_len = (size_t)(slash - lit - rest);
    m->n = slash + 1;
    return 1;
  }
  if (len <= tlen || memcmp(rest + len - tlen, tail, tlen) != 0)
    return 0;
  m->id = rest;
  m->id_len = len - tlen;
  return 1;
}

/*
** The route for the request: *other gets the first route whose URL matched under
** another method (for the 405), when none matched under this one.
*/
static const srv_route *find_route(srv_req *r, srv_match *m, const srv_route **other) {
  unsigned bit = method_bit(r->method);
  size_t i;
  srv_match mm;
  *other = NULL;
  for (i = 0; i < sizeof routes / sizeof routes[0]; i++) {
    if (!match(&routes[i], r->url, &mm))
      continue;
    if (routes[i].methods & bit) {
      *m = mm;
      return &routes[i];
    }
    if (!*other)
      *other = &routes[i];
  }
  return NULL;
}

/* The answer when no route takes this method on this URL. */
static void no_route(srv_req *r, const srv_route *other) {
  int known = method_bit(r->method) && strcmp(r->method, "HEAD") != 0;
  if (other && other->refused)
    srv_error(r, 405, "%s", other->refused);
  else if (other && strstr(other->path, "{id}"))
    srv_error(r, 405, "%s is not allowed on %s", r->method, r->url);
  else
    srv_error(r, known ? 404 : 405, "no API endpoint %s %s", r->method, r->url);
}

/* Take {id} and {n} into the request; 0 after setting an error. */
static int take_params(srv_req *r, const srv_match *m) {
  if (m->n) {
    char *end;
    long pos;
    errno = 0;
    pos = strtol(m->n, &end, 10);
    if (!*m->n || *end || errno || pos < 1 || pos > INT_MAX) {
      srv_error(r, 404, "'%s' is not a row number", m->n);
      return 0;
    }
    r->position = (int)pos;
  }
  r->rest = m->rest;
  if (m->id && !(r->sample_id = rescue_strndup(m->id, m->id_len))) {
    srv_error(r, 500, "out of memory");
    return 0;
  }
  return 1;
}

/* SRV_ASSIGNED: {id} exists and is the caller's to work on: assigned to them or to nobody,
   or they are a lead. 1, or 0 after setting 404 or 403. */
static int assigned(srv_req *r) {
  int rc, exists = 0, any = 0, mine = 0;
  if ((rc = srv_access_sample(r, &exists, &any, &mine))) {
    srv_fail(r, rc, rescue_store_errmsg(r->st));
    return 0;
  }
  if (!exists) {
    srv_error(r, 404, "no sample '%s'", r->sample_id);
    return 0;
  }
  if (srv_is_lead(r) || !any || mine)
    return 1;
  srv_error(r, 403, "'%s' is not assigned to %s", r->sample_id, r->who.name);
  return 0;
}

/* SRV_READ_VIEW: a sample of the caller's (SRV_ASSIGNED) in the view asked for
   (?view=<name>): the caller's own unless a lead asks. */
static int read_view(srv_req *r) {
  const char *v = srv_arg(r, "view");
  r->view_id = r->who.id;
  r->view_name = r->who.name;
  if (v && *v && strcmp(v, r->who.name) != 0 && !srv_is_lead(r)) {
    srv_error(r, 403, "only leads may open another annotator's view");
    return 0;
  }
  if (!assigned(r))
    return 0;
  if (!v || !*v || strcmp(v, r->who.name) == 0)
    return 1;
  if (rescue_annotator_id(r->st, v, NULL, 0, &r->view_id)) {
    srv_error(r, 404, "no annotator named '%s'", v);
    return 0;
  }
  r->view_name = v;
  return 1;
}

/* SRV_OWN_ASSIGNED: the caller's own view of a sample that is theirs to write. */
static int own_assigned(srv_req *r) {
  const char *v = srv_arg(r, "view");
  if (v && strcmp(v, r->who.name) != 0) {
    srv_error(r, 403, "only your own view can be written; '%s' is another annotator's", v);
    return 0;
  }
  return assigned(r);
}

/*
** SRV_CLIP: by cookie, a URL signed for the session; for others than leads, a file that
** resolves (symlinks followed) into the clip folder of a sample they may work on. Paths
** that resolve nowhere, outside the folder or to no regular file are left to srv_clip
** (404, 403).
*/
static int clip_scope(srv_req *r) {
  const char *root = r->srv->assets_real;
  char *full, *real, *cut;
  struct stat sb;
  size_t rootlen;
  int ok = -1;
  if (r->who.session && !srv_media_check(r))
    return 0;
  if (srv_is_lead(r) || !root)
    return 1;
  if (!(full = rescue_malloc(strlen(root) + strlen(r->rest) + 2))) {
    srv_error(r, 500, "out of memory");
    return 0;
  }
  sprintf(full, "%s/%s", root, r->rest);
  real = realpath(full, NULL);
  rescue_free(full);
  rootlen = strlen(root);
  if (!real || strncmp(real, root, rootlen) != 0 || real[rootlen] != '/' || stat(real, &sb) != 0 ||
      !S_ISREG(sb.st_mode)) {
    free(real);
    return 1;
  }
  /* the longest leading part of the path that is a sample id */
  while (ok < 0 && (cut = strrchr(real + rootlen + 1, '/'))) {
    *cut = 0;
    if (rescue_sample_ref(r->st, real + rootlen + 1, &(int64_t){0}) == 0) {
      rescue_free(r->sample_id);
      if ((r->sample_id = rescue_strdup(real + rootlen + 1)))
        ok = assigned(r);
      else
        ok = srv_error(r, 500, "out of memory") == 0;
    }
  }
  free(real);
  if (ok < 0)
    srv_error(r, 403, "'%s' is not a clip of a sample assigned to %s", r->rest, r->who.name);
  return ok > 0;
}

/* The route's role and scope for the signed-in caller; 1 when allowed, 0 after an error. */
static int authorize(srv_req *r, const srv_route *rt) {
  switch (rt->role) {
  case SRV_PUBLIC:
  case SRV_ME:
  case SRV_SIGNED_IN: break;
  case SRV_LEAD:
    if (!srv_is_lead(r)) {
      srv_error(r, 403, "%s is for leads", rt->what);
      return 0;
    }
    break;
  }
  switch (rt->scope) {
  case SRV_NO_SAMPLE: return 1;
  case SRV_WORK_LIST: r->every = srv_is_lead(r); return 1;
  case SRV_READ_VIEW: return read_view(r);
  case SRV_ASSIGNED: return assigned(r);
  case SRV_OWN_ASSIGNED: return own_assigned(r);
  case SRV_CLIP: return clip_scope(r);
  }
  return 0;
}

/* What a cookie request to rt must show besides the cookie (rt NULL: no route). */
static int proof_for(const srv_route *rt) {
  if (rt && rt->role == SRV_ME)
    return SRV_PROOF_NONE;
  if (rt && rt->scope == SRV_CLIP)
    return SRV_PROOF_SIGNED;
  return SRV_PROOF_CSRF;
}

int srv_route_quick(srv_req *r) {
  const srv_route *other, *rt;
  srv_match m;
  rt = find_route(r, &m, &other);
  return rt && rt->quick;
}

void srv_dispatch(srv_req *r) {
  const srv_route *rt, *other;
  srv_match m;
  int write = strcmp(r->method, "GET") != 0 && strcmp(r->method, "HEAD") != 0;
  rt = find_route(r, &m, &other);
  if (!rt && other && other->role == SRV_PUBLIC) {
    no_route(r, other); /* signing in needs no signing in */
    return;
  }
  if (!(rt && rt->role == SRV_PUBLIC) && !srv_authenticate(r, proof_for(rt)))
    return;
  if (!rt) {
    no_route(r, other);
    return;
  }
  if (!take_params(r, &m) || !authorize(r, rt))
    return;
  /* a write is acknowledged only while the corpus file is the one opened, after it too */
  write = write && rt->role != SRV_PUBLIC && rt->handler != api_logout;
  if (write && !srv_watch_ok(r))
    return;
  rt->handler(r);
  if (write && r->status < 300)
    srv_watch_ok(r);
}
