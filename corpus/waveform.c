/*
** waveform.c: the peaks of a media file's sound for the review page's time line
** (rescue_waveform.h): one decode of the best audio stream into min/max per 10 ms, then
** any number of coarser buckets from those.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_waveform.h"

void rescue_peaks_clear(rescue_peaks *p) {
  if (!p)
    return;
  rescue_free(p->min);
  rescue_free(p->max);
  memset(p, 0, sizeof *p);
}

/* Sample j of channel c of a decoded frame, scaled to -1..1 (0 for formats we do not read). */
static float sample_at(const AVFrame *f, int c, int j, int channels) {
  enum AVSampleFormat fmt = (enum AVSampleFormat)f->format;
  int planar = av_sample_fmt_is_planar(fmt);
  const uint8_t *base = f->extended_data[planar ? c : 0];
  int k = planar ? j : j * channels + c;
  switch (av_get_packed_sample_fmt(fmt)) {
  case AV_SAMPLE_FMT_U8: return ((float)base[k] - 128.0f) / 128.0f;
  case AV_SAMPLE_FMT_S16: return (float)((const int16_t *)base)[k] / 32768.0f;
  case AV_SAMPLE_FMT_S32: return (float)((const int32_t *)base)[k] / 2147483648.0f;
  case AV_SAMPLE_FMT_S64:
    return (float)((double)((const int64_t *)base)[k] / 9223372036854775808.0);
  case AV_SAMPLE_FMT_FLT: return ((const float *)base)[k];
  case AV_SAMPLE_FMT_DBL: return (float)((const double *)base)[k];
  default: return 0;
  }
}

/* Make room for fine bucket k (new buckets hold 0, 0); 0 or RESCUE_ENOMEM. */
static int peaks_reserve(rescue_peaks *p, int64_t *cap, int64_t k) {
  if (k < *cap)
    return 0;
  int64_t nc = *cap ? *cap : 1024;
  while (nc <= k)
    nc *= 2;
  float *mn = rescue_realloc(p->min, (size_t)nc * sizeof *mn);
  if (!mn)
    return RESCUE_ENOMEM;
  p->min = mn;
  float *mx = rescue_realloc(p->max, (size_t)nc * sizeof *mx);
  if (!mx)
    return RESCUE_ENOMEM;
  p->max = mx;
  memset(p->min + *cap, 0, (size_t)(nc - *cap) * sizeof *mn);
  memset(p->max + *cap, 0, (size_t)(nc - *cap) * sizeof *mx);
  *cap = nc;
  return 0;
}

/* Fold one decoded frame, whose first sample is at t0 seconds, into p. */
static int fold_frame(rescue_peaks *p, int64_t *cap, const AVFrame *f, double t0) {
  int channels = f->ch_layout.nb_channels, c, j, rc;
  for (j = 0; j < f->nb_samples; j++) {
    double t = t0 + (double)j / f->sample_rate;
    int64_t k;
    if (t < 0)
      continue; /* priming the container hides */
    k = (int64_t)(t * p->rate);
    if ((rc = peaks_reserve(p, cap, k)))
      return rc;
    for (c = 0; c < channels; c++) {
      float v = sample_at(f, c, j, channels);
      if (v < p->min[k])
        p->min[k] = v;
      if (v > p->max[k])
        p->max[k] = v;
    }
    if (k + 1 > p->n)
      p->n = k + 1;
  }
  return 0;
}

/* Receive every frame the decoder has ready and fold it in; 0 or an error code. */
static int drain(rescue_peaks *p, int64_t *cap, AVCodecContext *dec, AVFrame *f, AVStream *st,
                 double start, double *next) {
  int rc;
  while ((rc = avcodec_receive_frame(dec, f)) >= 0) {
    int64_t ts = f->best_effort_timestamp;
    double t0 = ts == AV_NOPTS_VALUE ? *next : ts * av_q2d(st->time_base) - start;
    rc = fold_frame(p, cap, f, t0);
    *next = t0 + (double)f->nb_samples / f->sample_rate;
    av_frame_unref(f);
    if (rc)
      return rc;
  }
  return 0; /* EAGAIN, EOF, or a bad frame: skipped */
}

int rescue_peaks_compute(const char *path, rescue_peaks *out, rescue_error *err) {
  AVFormatContext *ic = NULL;
  AVCodecContext *dec = NULL;
  const AVCodec *codec = NULL;
  AVPacket *pkt = NULL;
  AVFrame *f = NULL;
  AVStream *st;
  int64_t cap = 0;
  double start = 0, next = 0;
  int rc, ai;

  memset(out, 0, sizeof *out);
  out->rate = RESCUE_PEAKS_RATE;
  if ((rc = media_open_input(path, &ic, err)))
    return rc;
  ai = av_find_best_stream(ic, AVMEDIA_TYPE_AUDIO, -1, -1, &codec, 0);
  if (ai < 0 || !codec) {
    rc = rescue_seterr(err, RESCUE_ENOMEDIA, "'%s' has no sound to draw", path);
    goto end;
  }
  st = ic->streams[ai];
  if (ic->start_time != AV_NOPTS_VALUE)
    start = (double)ic->start_time / AV_TIME_BASE;
  dec = avcodec_alloc_context3(codec);
  pkt = av_packet_alloc();
  f = av_frame_alloc();
  if (!dec || !pkt || !f) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, "out of memory");
    goto end;
  }
  if ((rc = avcodec_parameters_to_context(dec, st->codecpar)) < 0 ||
      (rc = avcodec_open2(dec, codec, NULL)) < 0) {
    rc = media_averr(err, RESCUE_EMEDIA, rc, "'%s': cannot open the %s decoder", path, codec->name);
    goto end;
  }
  dec->pkt_timebase = st->time_base;
  rc = 0;
  while (!rc && av_read_frame(ic, pkt) >= 0) {
    if (pkt->stream_index == ai && avcodec_send_packet(dec, pkt) >= 0)
      rc = drain(out, &cap, dec, f, st, start, &next);
    av_packet_unref(pkt);
  }
  if (!rc && avcodec_send_packet(dec, NULL) >= 0)
    rc = drain(out, &cap, dec, f, st, start, &next);
  if (rc)
    rc = rescue_seterr(err, RESCUE_ENOMEM, "out of memory");
  out->duration = (double)out->n / out->rate;
end:
  av_frame_free(&f);
  av_packet_free(&pkt);
  avcodec_free_context(&dec);
  avformat_close_input(&ic);
  if (rc)
    rescue_peaks_clear(out);
  return rc;
}

int rescue_peaks_bucket(const rescue_peaks *p, double from, double to, int buckets, float *min,
                        float *max) {
  int i;
  if (buckets < 1 || !isfinite(from) || !isfinite(to) || !(to > from))
    return RESCUE_EINVAL;
  for (i = 0; i < buckets; i++) {
    double a = from + (to - from) * i / buckets, b = from + (to - from) * (i + 1) / buckets;
    int64_t k0 = (int64_t)floor(a * p->rate), k1 = (int64_t)ceil(b * p->rate), k;
    float mn = 0, mx = 0;
    if (k1 <= k0)
      k1 = k0 + 1;
    for (k = k0 < 0 ? 0 : k0; k < k1 && k < p->n; k++) {
      if (p->min[k] < mn)
        mn = p->min[k];
      if (p->max[k] > mx)
        mx = p->max[k];
    }
    min[i] = mn;
    max[i] = mx;
  }
  return 0;
}
