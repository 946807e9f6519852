/*
** serve_waveform.c: GET /api/samples/<id>/waveform?buckets=N[&from=s&to=s]: the peaks of
** the sample's sound, min/max per bucket, for the page's time line (js/timeline.js). The
** file is the one the rows play from start to end (srv_media_whole_file): the review copy
** (review.mp4) when `rescue clip --review-copy` wrote one after the segment, else
** segment.mp4. Peaks are decoded once per file (rescue_peaks_compute) and kept in memory keyed
** by the file's real path, size and mtime, so a recut file is decoded again and a reload
** costs one bucketing pass.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_alloc.h"
#include "rescue_waveform.h"
#include "serve_impl.h"

/* The most buckets one request may ask for (a 4K screen's width, twice). */
#define WAVE_MAX_BUCKETS 8192

/* One decoded file in the cache. */
typedef struct srv_wave {
  char *path; /* realpath */
  off_t size;
  struct timespec mtime;
  rescue_peaks peaks;
} srv_wave;

void srv_wave_drop(rescue_server *s) {
  int i;
  for (i = 0; s->waves && i < SRV_WAVE_SLOTS; i++) {
    rescue_free(s->waves[i].path);
    rescue_peaks_clear(&s->waves[i].peaks);
  }
  rescue_free(s->waves);
  s->waves = NULL;
}

/*
** Bucket the cached peaks of `path` (decoding them first when the cache has none for this
** size and mtime) into mn/mx; *duration gets the file's seconds of sound. Holds wave_mu
** throughout, so two requests for a new file decode it once. 0 or an error code (err).
*/
static int wave_peaks(rescue_server *s, const char *path, double from, double to, int buckets,
                      float *mn, float *mx, double *duration, rescue_error *err) {
  struct stat sb;
  char *real = realpath(path, NULL);
  srv_wave *w = NULL;
  int i, rc = 0;
  if (!real || stat(real, &sb) != 0) {
    free(real);
    return rescue_seterr(err, RESCUE_EIO, "cannot read '%s'", path);
  }
  pthread_mutex_lock(&s->wave_mu);
  if (!s->waves && !(s->waves = rescue_calloc(SRV_WAVE_SLOTS, sizeof *s->waves))) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, "out of memory");
    goto end;
  }
  for (i = 0; i < SRV_WAVE_SLOTS && !w; i++)
    if (s->waves[i].path && strcmp(s->waves[i].path, real) == 0)
      w = &s->waves[i];
  if (w && (w->size != sb.st_size || w->mtime.tv_sec != sb.st_mtim.tv_sec ||
            w->mtime.tv_nsec != sb.st_mtim.tv_nsec)) {
    rescue_peaks_clear(&w->peaks);
    rescue_free(w->path);
    w->path = NULL;
    w = NULL;
  }
  if (!w) {
    /* the slot after the last one filled, round robin: a few samples are open at once */
    w = &s->waves[s->wave_next++ % SRV_WAVE_SLOTS];
    rescue_peaks_clear(&w->peaks);
    rescue_free(w->path);
    w->path = NULL;
    if ((rc = rescue_peaks_compute(real, &w->peaks, err)))
      goto end;
    if (!(w->path = rescue_strdup(real))) {
      rescue_peaks_clear(&w->peaks);
      rc = rescue_seterr(err, RESCUE_ENOMEM, "out of memory");
      goto end;
    }
    w->size = sb.st_size;
    w->mtime = sb.st_mtim;
  }
  *duration = w->peaks.duration;
  if (!(to > from))
    to = from + (w->peaks.duration > 0 ? w->peaks.duration : 1);
  rc = rescue_peaks_bucket(&w->peaks, from, to, buckets, mn, mx);
end:
  pthread_mutex_unlock(&s->wave_mu);
  free(real);
  return rc;
}

/* A number query argument (def when absent); 0 after setting 400 when not a number. */
static int num_arg(srv_req *r, const char *name, double def, double *out) {
  const char *v = srv_arg(r, name);
  char *end;
  *out = def;
  if (!v)
    return 1;
  *out = strtod(v, &end);
  if (!*v || *end || !isfinite(*out) || *out < 0) {
    srv_error(r, 400, "'%s' must be a number of seconds >= 0, not '%s'", name, v);
    return 0;
  }
  return 1;
}

/* The 200 answer: the file drawn, its length, the span and the buckets' min and max. */
static void put_wave(srv_req *r, const char *kind, double duration, double from, double to, int n,
                     const float *mn, const float *mx) {
  rescue_jw w;
  int i, pass;
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "file");
  rescue_jw_str(&w, kind);
  rescue_jw_key(&w, "duration");
  rescue_jw_double(&w, duration);
  rescue_jw_key(&w, "from");
  rescue_jw_double(&w, from);
  rescue_jw_key(&w, "to");
  rescue_jw_double(&w, to);
  rescue_jw_key(&w, "buckets");
  rescue_jw_int(&w, n);
  for (pass = 0; pass < 2; pass++) {
    const float *v = pass ? mx : mn;
    rescue_jw_key(&w, pass ? "max" : "min");
    rescue_jw_arr(&w);
    for (i = 0; i < n; i++)
      rescue_jw_double(&w, floor(v[i] * 1000 + 0.5) / 1000);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
}

/*
** 200 {"file": "review"|"segment", "duration": s, "from": s, "to": s, "buckets": N,
** "min": [...], "max": [...]} (values rounded to 1/1000); 404 when the sample has no file
** that spans it, 400 for a bad argument.
*/
void api_waveform(srv_req *r) {
  rescue_buf rel = RESCUE_BUF_INIT;
  rescue_error err = RESCUE_ERROR_INIT;
  const char *kind = NULL;
  float *mn = NULL, *mx = NULL;
  double nb, from, to, duration = 0;
  int n, rc;

  if (!num_arg(r, "buckets", 1000, &nb) || !num_arg(r, "from", 0, &from) ||
      !num_arg(r, "to", 0, &to))
    return;
  if (nb < 1 || nb > WAVE_MAX_BUCKETS || nb != floor(nb)) {
    srv_error(r, 400, "'buckets' must be a whole number from 1 to %d", WAVE_MAX_BUCKETS);
    return;
  }
  if (srv_arg(r, "to") && !(to > from)) {
    srv_error(r, 400, "'to' must be after 'from'");
    return;
  }
  n = (int)nb;
  if (!r->srv->assets_real || !srv_media_whole_file(r, &rel, &kind)) {
    srv_error(r, 404,
              "'%s' has no media spanning the sample (segment.mp4, or the review copy "
              "`rescue clip --review-copy` writes)",
              r->sample_id);
    return;
  }
  mn = rescue_malloc((size_t)n * sizeof *mn);
  mx = rescue_malloc((size_t)n * sizeof *mx);
  if (!mn || !mx) {
    srv_error(r, 500, "out of memory");
    goto end;
  }
  if ((rc = wave_peaks(r->srv, rel.s, from, to, n, mn, mx, &duration, &err))) {
    /* the reason names the file on the server's disk: the log gets it, the client the sample */
    if (rc != RESCUE_ENOMEM && rc != RESCUE_EBUSY && rc != RESCUE_ELOCKED)
      fprintf(stderr, "rescue serve: waveform of '%s': %s\n", r->sample_id, err.msg);
    if (rc == RESCUE_ENOMEDIA)
      srv_error(r, 404, "'%s' has no sound to draw", r->sample_id);
    else if (rc == RESCUE_ENOMEM || rc == RESCUE_EBUSY || rc == RESCUE_ELOCKED)
      srv_fail(r, rc, err.msg);
    else
      srv_error(r, 500, "cannot read the media of '%s' (the server's log says why)", r->sample_id);
    goto end;
  }
  if (!srv_arg(r, "to"))
    to = from + (duration > 0 ? duration : 1);
  put_wave(r, kind, duration, from, to, n, mn, mx);
  r->status = 200;
end:
  rescue_free(mn);
  rescue_free(mx);
  rescue_buf_clear(&rel);
}
