/*
** cut.c: copy-mode clip cutting. One forward pass over a source cuts every requested
** span into its own mp4 by stream copy (FFmpeg's remux.c pattern, one muxer per clip),
** with timestamps relative to the requested start so the muxer's edit list hides the
** keyframe pre-roll, and mp4_trim_edits hiding frames kept past the end for decoding.
**
** The pass keeps the packets since the last video keyframe (and recent audio). When the
** next keyframe arrives, every waiting clip that starts before it is opened and given
** those buffered packets, then follows the live packets until both of its streams pass
** its end. Clips far apart are reached by seeking; a seek that lands after the start
** (MPEG-TS) is retried further back, one that lands far before (MKV) just reads more.
**
** The pass always ends: a clip gets at most one seek over a gap, and only when the source's
** index puts the keyframe before the clip's start past what has been read already (a
** keyframe at or before the read position is already in the buffer: reading on reaches
** the start), plus at most MAX_TRIES seeks further back when a seek lands after its start;
** after those the clip fails (naming the source, the start and the keyframe found) and
** the pass goes on to the next one. Between two seeks at least one packet is read.
*/
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_media.h"

/* A gap between clips longer than this (seconds) is skipped by seeking. */
#define SEEK_GAP 4.0
/* Seeks further back for one clip whose seek landed after its start, then it fails. */
#define MAX_TRIES 6
/* Clips may be this much (seconds) shorter than asked at a source's very end. */
#define END_SLACK 0.050

enum { V = 0, A = 1 };

/* One clip being cut. */
typedef struct cclip {
  cut_req *req;
  int state;                /* 0 waiting, 1 writing, 2 finished, 3 failed */
  int64_t start[2], end[2]; /* requested span in each input stream's time base */
  int64_t a_from;           /* audio packets ending after this are kept (one of pre-roll) */
  AVFormatContext *oc;
  int ost[2];          /* output stream of each input stream, -1: none */
  int64_t last_dts[2]; /* last dts written, output time base */
  int done[2];         /* stream passed the end */
  int wrote[2];
  int at_file_start;  /* started with no keyframe before it: the file begins later */
  int64_t key_pts;    /* pts of the keyframe it started from, INT64_MIN: none */
  int64_t first_vpts; /* input time base */
  int64_t first_apts; /* audio, input time base */
  int64_t vend, aend; /* furthest pts + duration written, input time base */
  int64_t frames, samples;
} cclip;

/* The pass over one source. */
typedef struct pass {
  const cut_source *src;
  rescue_error *err;
  AVFormatContext *ic;
  int in[2]; /* input stream index of video / audio (-1: none) */
  AVRational tb[2];
  int64_t t0;        /* container start time, AV_TIME_BASE units */
  int64_t frame_dur; /* video frame duration, video time base (guess) */
  int64_t apkt_dur;  /* audio packet duration, audio time base (guess) */
  AVPacket **buf;    /* packets since the last video keyframe, file order */
  int nbuf, capbuf;
  int have_key; /* buf starts with a video keyframe */
  cclip *clips;
  int n;
  int *order;  /* clips by start */
  int next;    /* next waiting clip in order[] */
  cclip **act; /* clips in state 1 */
  int nact;
  int from_start;  /* reading from the very start of the file */
  int seek_for;    /* order[] position of the clip the last seek was for, -1: none */
  int tries;       /* seeks back for that clip after landing past its start */
  int64_t read_to; /* furthest video time read (video time base), INT64_MIN: none */
  /* finishing written clips (edit lists, hash, rename) on a second thread */
  pthread_mutex_t mu;
  pthread_cond_t cv;
  pthread_t finisher;
  int finisher_running, closing;
  cut_req **fq; /* clips written and waiting to be finished */
  int fq_in, fq_out;
  int nal_len; /* H.264/HEVC length-prefixed NAL units: prefix size, else 0 */
  int annexb;  /* H.264/HEVC with start codes (MPEG-TS) */
  int hevc;
} pass;

static int64_t to_ts(const pass *p, int s, double sec) {
  return av_rescale_q(llround(sec * AV_TIME_BASE) + p->t0, AV_TIME_BASE_Q, p->tb[s]);
}
static double to_sec(const pass *p, int s, int64_t ts) {
  return (double)av_rescale_q(ts, p->tb[s], (AVRational){1, 1000000}) / 1e6 -
         (double)p->t0 / AV_TIME_BASE;
}

/* Packet time: pts when known, else dts (B-frames in some containers lack one of them). */
static int64_t pkt_time(const AVPacket *pkt) {
  return pkt->pts != AV_NOPTS_VALUE ? pkt->pts : pkt->dts;
}
static int64_t pkt_dts(const AVPacket *pkt) {
  return pkt->dts != AV_NOPTS_VALUE ? pkt->dts : pkt->pts;
}

/* Take a clip off the list of clips being written. */
static void deactivate(pass *p, cclip *c) {
  int i;
  for (i = 0; i < p->nact; i++)
    if (p->act[i] == c) {
      p->act[i] = p->act[--p->nact];
      return;
    }
}

/* Fail a clip: remember why, drop its muxer and its temporary file. */
static void clip_fail(pass *p, cclip *c, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void clip_fail(pass *p, cclip *c, const char *fmt, ...) {
  va_list ap;
  if (c->state == 3)
    return;
  va_start(ap, fmt);
  vsnprintf(c->req->err, sizeof c->req->err, fmt, ap);
  va_end(ap);
  if (c->state == 1)
    deactivate(p, c);
  if (c->oc) {
    if (c->oc->pb)
      avio_closep(&c->oc->pb);
    avformat_free_context(c->oc);
    c->oc = NULL;
  }
  remove(c->req->tmp);
  c->state = 3;
}

static void clip_fail_av(pass *p, cclip *c, int averr, const char *what) {
  char why[AV_ERROR_MAX_STRING_SIZE];
  av_strerror(averr, why, sizeof why);
  clip_fail(p, c, "%s: %s", what, why);
}

/* Open the clip's muxer (mp4, streams copied from the source) and write its header. */
static int clip_open(pass *p, cclip *c) {
  const AVOutputFormat *mp4 = av_guess_format("mp4", NULL, NULL);
  int s, rc;
  rc = avformat_alloc_output_context2(&c->oc, mp4, NULL, c->req->tmp);
  if (rc < 0) {
    clip_fail_av(p, c, rc, "cannot create a clip");
    return -1;
  }
  for (s = V; s <= A; s++) {
    AVStream *ist, *ost;
    c->ost[s] = -1;
    if (p->in[s] < 0)
      continue;
    ist = p->ic->streams[p->in[s]];
    ost = avformat_new_stream(c->oc, NULL);
    if (!ost || avcodec_parameters_copy(ost->codecpar, ist->codecpar) < 0) {
      clip_fail(p, c, "out of memory");
      return -1;
    }
    ost->codecpar->codec_tag = 0;
    ost->time_base = ist->time_base;
    ost->avg_frame_rate = ist->avg_frame_rate;
    c->ost[s] = ost->index;
    c->last_dts[s] = AV_NOPTS_VALUE;
  }
  if ((rc = avio_open(&c->oc->pb, c->req->tmp, AVIO_FLAG_WRITE)) < 0) {
    clip_fail_av(p, c, rc, "cannot write the clip");
    return -1;
  }
  /* Negative timestamps stay negative: the mp4 edit list then hides the pre-roll. */
  c->oc->avoid_negative_ts = AVFMT_AVOID_NEG_TS_DISABLED;
  if ((rc = avformat_write_header(c->oc, NULL)) < 0) {
    clip_fail_av(p, c, rc, "cannot start the clip (codec not allowed in mp4?)");
    return -1;
  }
  c->state = 1;
  p->act[p->nact++] = c;
  return 0;
}

/* Write one input packet into a writing clip if it falls in the clip's window. */
static void clip_feed(pass *p, cclip *c, const AVPacket *in, AVPacket *tmp) {
  int s = in->stream_index == p->in[V] ? V : A, rc;
  int64_t t = pkt_time(in), d = pkt_dts(in), dur, off;
  AVStream *ost;
  if (c->state != 1 || c->done[s] || t == AV_NOPTS_VALUE)
    return;
  if (s == V) {
    if (d >= c->end[V]) {
      c->done[V] = 1;
      return;
    }
    /* leading pictures of an open GOP refer to the GOP before, which the clip lacks;
       they come before the keyframe, so before the clip's start: never shown */
    if (in->pts != AV_NOPTS_VALUE && in->pts < c->key_pts)
      return;
    dur = in->duration > 0 ? in->duration : p->frame_dur;
  } else {
    dur = in->duration > 0 ? in->duration : p->apkt_dur;
    if (t >= c->end[A]) {
      c->done[A] = 1;
      return;
    }
    if (t + dur <= c->a_from)
      return;
  }
  if (av_packet_ref(tmp, in) < 0) {
    clip_fail(p, c, "out of memory");
    return;
  }
  ost = c->oc->streams[c->ost[s]];
  off = c->start[s];
  tmp->stream_index = c->ost[s];
  tmp->pts = in->pts == AV_NOPTS_VALUE ? AV_NOPTS_VALUE
                                       : av_rescale_q_rnd(in->pts - off, p->tb[s], ost->time_base,
                                                          AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
  tmp->dts =
      av_rescale_q_rnd(d - off, p->tb[s], ost->time_base, AV_ROUND_NEAR_INF | AV_ROUND_PASS_MINMAX);
  tmp->duration = av_rescale_q(dur, p->tb[s], ost->time_base);
  if (c->last_dts[s] != AV_NOPTS_VALUE && tmp->dts <= c->last_dts[s])
    tmp->dts = c->last_dts[s] + 1; /* strictly increasing per stream */
  if (tmp->pts != AV_NOPTS_VALUE && tmp->pts < tmp->dts)
    tmp->pts = tmp->dts;
  c->last_dts[s] = tmp->dts;
  tmp->pos = -1;
  rc = av_write_frame(c->oc, tmp);
  av_packet_unref(tmp);
  if (rc < 0) {
    clip_fail_av(p, c, rc, "writing the clip");
    return;
  }
  if (s == V) {
    if (!c->wrote[V])
      c->first_vpts = t;
    if (t < c->end[V] && t >= c->start[V])
      c->frames++;
    if (!c->wrote[V] || t + dur > c->vend)
      c->vend = t + dur;
  } else {
    int64_t a = t > c->start[A] ? t : c->start[A], b = t + dur < c->end[A] ? t + dur : c->end[A];
    if (!c->wrote[A])
      c->first_apts = t;
    if (b > a)
      c->samples += av_rescale_q(b - a, p->tb[A],
                                 (AVRational){1, p->ic->streams[p->in[A]]->codecpar->sample_rate});
    if (!c->wrote[A] || t + dur > c->aend)
      c->aend = t + dur;
  }
  c->wrote[s] = 1;
}

/*
** The last steps of a clip that was written and checked: edit lists, hash, rename. They
** read the whole clip back, so they run on a second thread beside the pass (the SHA-256
** alone would otherwise add half as much time again as copying).
*/
static void finish_clip(const cut_source *src, cut_req *r) {
  rescue_error e = RESCUE_ERROR_INIT;
  if (src->settled)
    (*src->settled)++;
  if (mp4_set_edits(r->tmp, r->act_end - r->act_start, r->act_end - r->act_start, &e) ||
      rescue_sha256_file(r->tmp, r->sha256, &r->bytes, &e)) {
    snprintf(r->err, sizeof r->err, "%.500s", e.msg);
    remove(r->tmp);
    return;
  }
  if (rescue_file_commit(r->tmp, r->path, &e)) {
    snprintf(r->err, sizeof r->err, "%.500s", e.msg);
    return;
  }
  r->done = 1;
}

static void *finisher_main(void *arg) {
  pass *p = arg;
  for (;;) {
    cut_req *r;
    pthread_mutex_lock(&p->mu);
    while (p->fq_out == p->fq_in && !p->closing)
      pthread_cond_wait(&p->cv, &p->mu);
    if (p->fq_out == p->fq_in) {
      pthread_mutex_unlock(&p->mu);
      return NULL;
    }
    r = p->fq[p->fq_out++];
    pthread_mutex_unlock(&p->mu);
    finish_clip(p->src, r);
  }
}

/* Finish a clip: trailer, checks against the request, then finish_clip. */
static void clip_close(pass *p, cclip *c) {
  cut_req *r = c->req;
  double vend, aend, first, have;
  int rc;
  if (c->state != 1)
    return;
  rc = av_write_trailer(c->oc);
  if (rc < 0) {
    clip_fail_av(p, c, rc, "finishing the clip");
    return;
  }
  deactivate(p, c);
  rc = avio_closep(&c->oc->pb);
  avformat_free_context(c->oc);
  c->oc = NULL;
  c->state = 2;
  if (rc < 0) {
    c->state = 1;
    p->act[p->nact++] = c;
    clip_fail_av(p, c, rc, "writing the clip");
    return;
  }
  c->state = 3; /* until it is checked */
  if (!c->wrote[V]) {
    snprintf(r->err, sizeof r->err, "'%s' has no picture in %.3f-%.3f s", p->src->label, r->start,
             r->end);
    remove(r->tmp);
    return;
  }
  first = to_sec(p, V, c->first_vpts);
  vend = to_sec(p, V, c->vend);
  /* audio that went past the end is not short, even when it starts after this clip (a
     late-starting audio stream leaves the clips before it without sound) */
  aend = p->in[A] < 0 ? vend : c->wrote[A] ? to_sec(p, A, c->aend) : r->start;
  if (p->in[A] >= 0 && c->done[A] && aend < r->end)
    aend = r->end;
  have = vend < aend ? vend : aend;
  r->act_start = c->at_file_start && first > r->start ? first : r->start;
  if (first > r->start + END_SLACK && !c->at_file_start) {
    snprintf(r->err, sizeof r->err,
             "'%s' has no picture before %.3f s, %.3f s after the requested start %.3f s",
             p->src->label, first, first - r->start, r->start);
    remove(r->tmp);
    return;
  }
  if (have < r->end - END_SLACK) {
    snprintf(r->err, sizeof r->err, "'%s' ends at %.3f s, %.3f s short of the requested end %.3f s",
             p->src->label, have, r->end - have, r->end);
    remove(r->tmp);
    return;
  }
  r->act_end = have < r->end ? have : r->end;
  /* a source whose sound starts late: the clip has none before it */
  r->no_audio = 0;
  if (p->in[A] >= 0) {
    double a0 = c->wrote[A] ? to_sec(p, A, c->first_apts) : r->act_end;
    if (a0 > r->act_end)
      a0 = r->act_end;
    if (a0 > r->act_start)
      r->no_audio = a0 - r->act_start;
  }
  r->frames = c->frames;
  r->audio_samples = c->samples;
  c->state = 2;
  if (p->finisher_running) {
    pthread_mutex_lock(&p->mu);
    p->fq[p->fq_in++] = r;
    pthread_cond_signal(&p->cv);
    pthread_mutex_unlock(&p->mu);
  } else {
    finish_clip(p->src, r);
  }
}

static int buf_push(pass *p, AVPacket *pkt) {
  if (RESCUE_ALLOC_GROW(p->buf, p->nbuf + 1, p->capbuf))
    return -1;
  p->buf[p->nbuf++] = pkt;
  return 0;
}

static void buf_clear(pass *p) {
  int i;
  for (i = 0; i < p->nbuf; i++)
    av_packet_free(&p->buf[i]);
  p->nbuf = 0;
  p->have_key = 0;
}

/* A new keyframe at time kt: drop video before it and audio that ended well before. */
static void buf_restart(pass *p, int64_t kt) {
  int i, j = 0;
  int64_t keep_a = p->in[A] >= 0 ? av_rescale_q(kt, p->tb[V], p->tb[A]) -
                                       av_rescale_q(AV_TIME_BASE / 2, AV_TIME_BASE_Q, p->tb[A])
                                 : 0;
  for (i = 0; i < p->nbuf; i++) {
    AVPacket *q = p->buf[i];
    int audio = q->stream_index == p->in[A];
    if (audio && pkt_time(q) != AV_NOPTS_VALUE &&
        pkt_time(q) + (q->duration > 0 ? q->duration : p->apkt_dur) > keep_a)
      p->buf[j++] = q;
    else
      av_packet_free(&q);
  }
  p->nbuf = j;
}

/* Start every waiting clip whose start is before `before` (video time base) from buf. */
static void start_clips(pass *p, int64_t before, AVPacket *tmp) {
  while (p->next < p->n) {
    cclip *c = &p->clips[p->order[p->next]];
    int i;
    if (c->state != 0) {
      p->next++;
      continue;
    }
    if (c->start[V] >= before)
      break;
    p->next++;
    if (clip_open(p, c))
      continue;
    c->at_file_start = p->from_start && !p->have_key;
    c->key_pts = INT64_MIN;
    for (i = 0; p->have_key && i < p->nbuf; i++)
      if (p->buf[i]->stream_index == p->in[V]) {
        c->key_pts = pkt_time(p->buf[i]);
        break;
      }
    for (i = 0; i < p->nbuf && c->state == 1; i++)
      clip_feed(p, c, p->buf[i], tmp);
  }
}

/* Seek so that reading resumes at a keyframe at or before `sec` (source seconds). */
static int seek_before(pass *p, double sec) {
  int64_t ts;
  buf_clear(p);
  p->read_to = INT64_MIN;
  if (sec <= 0) {
    p->from_start = 1;
    return avformat_seek_file(p->ic, p->in[V], INT64_MIN, to_ts(p, V, 0) - 1, to_ts(p, V, 0), 0) < 0
               ? av_seek_frame(p->ic, -1, 0, AVSEEK_FLAG_BYTE)
               : 0;
  }
  p->from_start = 0;
  ts = to_ts(p, V, sec);
  return avformat_seek_file(p->ic, p->in[V], INT64_MIN, ts, ts, 0);
}

/* Sort indices by clip start (insertion sort: few clips, often already in order). */
static void sort_order(pass *p) {
  int i, j;
  for (i = 0; i < p->n; i++)
    p->order[i] = i;
  for (i = 1; i < p->n; i++) {
    int k = p->order[i];
    for (j = i; j > 0 && p->clips[p->order[j - 1]].req->start > p->clips[k].req->start; j--)
      p->order[j] = p->order[j - 1];
    p->order[j] = k;
  }
}

/*
** Is this video packet's NAL framing broken? Stream copy never decodes, so this is the
** cheap check that catches damage the demuxer cannot see: length prefixes that do not add
** up to the packet, the forbidden bit, reserved NAL unit types. (Damage inside slice data
** that keeps the framing intact passes; exact and audio modes decode everything.)
*/
static int nal_broken(const pass *p, const AVPacket *pkt) {
  const uint8_t *d = pkt->data;
  size_t n = (size_t)pkt->size, i = 0;
  if (p->nal_len) {
    while (i < n) {
      size_t len = 0;
      int k;
      if (n - i < (size_t)p->nal_len + 1)
        return 1;
      for (k = 0; k < p->nal_len; k++)
        len = len << 8 | d[i + (size_t)k];
      i += (size_t)p->nal_len;
      if (len == 0 || len > n - i || (d[i] & 0x80))
        return 1;
      if (p->hevc ? ((d[i] >> 1) & 0x3f) > 40 || len < 2 || (d[i + 1] & 7) == 0
                  : (d[i] & 0x1f) == 0 || (d[i] & 0x1f) > 23)
        return 1;
      i += len;
    }
    return 0;
  }
  if (p->annexb) {
    size_t sc = n >= 4 && !d[0] && !d[1] && !d[2] && d[3] == 1 ? 4
                : n >= 3 && !d[0] && !d[1] && d[2] == 1        ? 3
                                                               : 0;
    return !sc || sc >= n || (d[sc] & 0x80);
  }
  return 0;
}

/* Fail every clip not finished yet (the source cannot be read further). */
static void fail_rest(pass *p, const char *why, double at) {
  int i;
  for (i = 0; i < p->n; i++)
    if (p->clips[i].state < 2)
      clip_fail(p, &p->clips[i], "'%s' cannot be read past %.3f s: %s", p->src->label, at, why);
}

/*
** Seek to reach the next clip (order[next], nothing being written)? Not when it is near
** (reading on is cheaper), not a second time for the same clip, and not when the index
** says its keyframe is at or before what has been read since the last seek: that
** keyframe's packets are in the buffer already, and a seek would only go back to them.
*/
static int want_seek(pass *p, double last_t) {
  cclip *c = &p->clips[p->order[p->next]];
  AVStream *vs = p->ic->streams[p->in[V]];
  int k;
  if (p->seek_for == p->next || c->req->start - last_t <= SEEK_GAP)
    return 0;
  k = av_index_search_timestamp(vs, c->start[V], AVSEEK_FLAG_BACKWARD);
  if (k >= 0) {
    const AVIndexEntry *e = avformat_index_get_entry(vs, k);
    if (e && e->timestamp <= p->read_to)
      return 0;
  }
  return 1;
}

/*
** The main loop: read packets in file order, start clips at keyframes from the buffer,
** feed the clips being written, seek over gaps, stop when every clip is finished.
*/
static int run_pass(pass *p) {
  AVPacket *pkt = NULL, *tmp = av_packet_alloc();
  int rc = 0, i;
  double last_t = 0;
  if (!tmp)
    return RESCUE_ENOMEM;
  p->seek_for = -1;
  p->read_to = INT64_MIN;
  if (p->n && p->clips[p->order[0]].req->start > SEEK_GAP) {
    p->seek_for = 0;
    seek_before(p, p->clips[p->order[0]].req->start);
  } else {
    p->from_start = 1;
  }
  for (;;) {
    int s, r;
    int64_t t;
    if (!pkt && !(pkt = av_packet_alloc())) {
      rc = RESCUE_ENOMEM;
      break;
    }
    r = av_read_frame(p->ic, pkt);
    if (r == AVERROR_EOF)
      break;
    if (r < 0) {
      char why[AV_ERROR_MAX_STRING_SIZE];
      av_strerror(r, why, sizeof why);
      fail_rest(p, why, last_t);
      break;
    }
    if (pkt->stream_index == p->in[V])
      s = V;
    else if (pkt->stream_index == p->in[A])
      s = A;
    else {
      av_packet_unref(pkt);
      continue;
    }
    t = pkt_time(pkt);
    if (t == AV_NOPTS_VALUE) {
      av_packet_unref(pkt);
      continue;
    }
    last_t = to_sec(p, s, t);
    if ((pkt->flags & AV_PKT_FLAG_CORRUPT) && p->ic->pb && avio_feof(p->ic->pb)) {
      av_packet_unref(pkt); /* cut short mid-packet: the file just ends here */
      break;
    }
    if ((pkt->flags & AV_PKT_FLAG_CORRUPT) || (s == V && nal_broken(p, pkt))) {
      for (i = 0; i < p->n; i++)
        if (p->clips[i].state < 2)
          clip_fail(p, &p->clips[i], "'%s' is damaged at %.3f s (broken %s packet)", p->src->label,
                    last_t, s == V ? "video" : "audio");
      break;
    }
    if (s == V && (pkt->flags & AV_PKT_FLAG_KEY)) {
      /* after a seek, the first keyframe must not be past the next clip's start */
      if (!p->have_key && !p->from_start && p->nact == 0 && p->next < p->n &&
          p->clips[p->order[p->next]].start[V] < t) {
        cclip *c = &p->clips[p->order[p->next]];
        av_packet_unref(pkt);
        if (p->tries < MAX_TRIES) {
          p->tries++;
          seek_before(p, c->req->start - (double)(1 << p->tries));
          continue;
        }
        clip_fail(p, c,
                  "'%s': cannot start a clip at %.3f s: %d seeks back from it still "
                  "land on the keyframe at %.3f s, after it",
                  p->src->label, c->req->start, MAX_TRIES, last_t);
        while (p->next < p->n && p->clips[p->order[p->next]].state != 0)
          p->next++;
        if (p->next >= p->n)
          break;
        /* the next clip gets its own tries */
        p->seek_for = p->next;
        p->tries = 0;
        seek_before(p, p->clips[p->order[p->next]].req->start);
        continue;
      }
      start_clips(p, t, tmp);
      buf_restart(p, t);
      p->have_key = 1;
    }
    if (s == V && !p->have_key) {
      av_packet_unref(pkt); /* not decodable without the keyframe before it */
      continue;
    }
    if (s == V && t > p->read_to)
      p->read_to = t;
    for (i = 0; i < p->nact; i++) {
      cclip *c = p->act[i];
      clip_feed(p, c, pkt, tmp);
      if (c->state == 1 && c->done[V] && (p->in[A] < 0 || c->done[A])) {
        clip_close(p, c);
        i--; /* act[i] now holds another clip */
      } else if (c->state != 1) {
        i--;
      }
    }
    if (buf_push(p, pkt)) {
      av_packet_free(&pkt);
      rc = RESCUE_ENOMEM;
      break;
    }
    pkt = NULL;
    if (p->nact == 0) {
      while (p->next < p->n && p->clips[p->order[p->next]].state != 0)
        p->next++;
      if (p->next >= p->n)
        break;
      /* nothing being written and the next clip is far ahead: seek to it */
      if (s == V && p->have_key && want_seek(p, last_t)) {
        p->seek_for = p->next;
        p->tries = 0;
        seek_before(p, p->clips[p->order[p->next]].req->start);
      }
    }
  }
  av_packet_free(&pkt);
  /* end of file: clips starting in the last GOP start now; then everyone finishes */
  if (!rc)
    start_clips(p, INT64_MAX, tmp);
  while (p->nact > 0)
    clip_close(p, p->act[0]);
  for (i = 0; i < p->n; i++)
    if (p->clips[i].state == 0)
      clip_fail(p, &p->clips[i], "'%s' ends before the requested start %.3f s", p->src->label,
                p->clips[i].req->start);
  av_packet_free(&tmp);
  buf_clear(p);
  return rc;
}

int cut_copy(const cut_source *src, cut_req *reqs, int n, int threads, rescue_error *err) {
  pass p;
  int i, rc = 0, failed = 0;
  (void)threads;
  memset(&p, 0, sizeof p);
  p.src = src;
  p.n = n;
  p.err = err;
  p.clips = rescue_calloc((size_t)(n ? n : 1), sizeof *p.clips);
  p.order = rescue_calloc((size_t)(n ? n : 1), sizeof *p.order);
  p.act = rescue_calloc((size_t)(n ? n : 1), sizeof *p.act);
  if (!p.clips || !p.order || !p.act) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < n; i++) {
    reqs[i].done = 0;
    reqs[i].err[0] = 0;
    reqs[i].no_audio = 0;
    p.clips[i].req = &reqs[i];
  }
  if ((rc = media_open_input(src->path, &p.ic, err)))
    goto end;
  p.in[V] = av_find_best_stream(p.ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
  p.in[A] = av_find_best_stream(p.ic, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
  if (p.in[V] < 0) {
    rc = rescue_seterr(err, RESCUE_EMEDIA, "'%s' has no video stream", src->label);
    goto end;
  }
  if (p.in[A] < 0)
    p.in[A] = -1;
  {
    AVCodecParameters *vp = p.ic->streams[p.in[V]]->codecpar;
    const uint8_t *x = vp->extradata;
    p.hevc = vp->codec_id == AV_CODEC_ID_HEVC;
    if (vp->codec_id == AV_CODEC_ID_H264 || p.hevc) {
      if (x && vp->extradata_size >= 7 && x[0] == 1 && !p.hevc)
        p.nal_len = (x[4] & 3) + 1;
      else if (x && vp->extradata_size >= 23 && x[0] == 1 && p.hevc)
        p.nal_len = (x[21] & 3) + 1;
      else
        p.annexb = 1;
    }
  }
  p.t0 = p.ic->start_time != AV_NOPTS_VALUE ? p.ic->start_time : 0;
  for (i = V; i <= A; i++)
    if (p.in[i] >= 0)
      p.tb[i] = p.ic->streams[p.in[i]]->time_base;
  {
    AVStream *vs = p.ic->streams[p.in[V]];
    AVRational fr = vs->avg_frame_rate.num ? vs->avg_frame_rate : vs->r_frame_rate;
    p.frame_dur = fr.num ? av_rescale_q(1, av_inv_q(fr), p.tb[V]) : 1;
    if (p.frame_dur < 1)
      p.frame_dur = 1;
  }
  if (p.in[A] >= 0) {
    AVCodecParameters *ap = p.ic->streams[p.in[A]]->codecpar;
    int fs = ap->frame_size > 0 ? ap->frame_size : 1024;
    p.apkt_dur =
        ap->sample_rate > 0 ? av_rescale_q(fs, (AVRational){1, ap->sample_rate}, p.tb[A]) : 1;
  }
  for (i = 0; i < n; i++) {
    cclip *c = &p.clips[i];
    int s;
    if (!(reqs[i].end > reqs[i].start)) {
      clip_fail(&p, c, "empty span %.3f-%.3f s", reqs[i].start, reqs[i].end);
      continue;
    }
    for (s = V; s <= A; s++)
      if (p.in[s] >= 0) {
        c->start[s] = to_ts(&p, s, reqs[i].start);
        c->end[s] = to_ts(&p, s, reqs[i].end);
      }
    c->a_from = p.in[A] >= 0 ? c->start[A] - p.apkt_dur : 0;
    c->first_vpts = AV_NOPTS_VALUE;
  }
  sort_order(&p);
  pthread_mutex_init(&p.mu, NULL);
  pthread_cond_init(&p.cv, NULL);
  p.fq = rescue_calloc((size_t)(n ? n : 1), sizeof *p.fq);
  p.finisher_running = p.fq && pthread_create(&p.finisher, NULL, finisher_main, &p) == 0;
  rc = run_pass(&p);
  if (p.finisher_running) {
    pthread_mutex_lock(&p.mu);
    p.closing = 1;
    pthread_cond_signal(&p.cv);
    pthread_mutex_unlock(&p.mu);
    pthread_join(p.finisher, NULL);
  }
  pthread_mutex_destroy(&p.mu);
  pthread_cond_destroy(&p.cv);
  if (rc)
    rescue_seterr(err, rc, NULL);
end:
  for (i = 0; p.clips && i < n; i++) {
    if (p.clips[i].state == 1 || p.clips[i].oc)
      clip_fail(&p, &p.clips[i], "interrupted");
    if (!reqs[i].done && p.clips[i].state != 2 && src->settled)
      (*src->settled)++; /* failed before it was finished */
    if (!reqs[i].done) {
      if (!reqs[i].err[0])
        snprintf(reqs[i].err, sizeof reqs[i].err, "%.500s",
                 err && err->msg[0] ? err->msg : "failed");
      if (!failed++ && !rc)
        rc = rescue_seterr(err, RESCUE_EMEDIA, "%s", reqs[i].err);
    }
  }
  avformat_close_input(&p.ic);
  rescue_free(p.clips);
  rescue_free(p.order);
  rescue_free(p.act);
  rescue_free(p.buf);
  rescue_free(p.fq);
  return rc;
}
