/*
** media_check.c: decode a whole file and report what a viewer gets: frame and sample
** counts, first and last timestamps, the synthetic frame numbers, decode errors.
*/
#include <stdio.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>

#include "media_int.h"
#include "rescue_media.h"

/* A decoder for one stream, or NULL (with err set) when it cannot be opened. */
static AVCodecContext *open_decoder(AVStream *st, rescue_error *err) {
  const AVCodec *codec = avcodec_find_decoder(st->codecpar->codec_id);
  AVCodecContext *c;
  int rc;
  if (!codec) {
    rescue_seterr(err, RESCUE_EMEDIA, "no decoder for %s",
                  avcodec_get_name(st->codecpar->codec_id));
    return NULL;
  }
  c = avcodec_alloc_context3(codec);
  if (!c) {
    rescue_seterr(err, RESCUE_ENOMEM, NULL);
    return NULL;
  }
  if ((rc = avcodec_parameters_to_context(c, st->codecpar)) < 0 ||
      (rc = avcodec_open2(c, codec, NULL)) < 0) {
    media_averr(err, RESCUE_EMEDIA, rc, "cannot open the %s decoder", codec->name);
    avcodec_free_context(&c);
    return NULL;
  }
  c->pkt_timebase = st->time_base;
  return c;
}

/* Take every frame the decoder has ready and account for it. */
static void drain(AVCodecContext *c, AVStream *st, AVFrame *f, double t0, rescue_media_decoded *d,
                  int is_video) {
  while (avcodec_receive_frame(c, f) == 0) {
    int64_t ts = f->best_effort_timestamp;
    double t = ts == AV_NOPTS_VALUE ? 0 : (double)ts * av_q2d(st->time_base) - t0;
    if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT))
      d->decode_errors++;
    if (is_video) {
      double dur = f->pkt_duration > 0      ? (double)f->pkt_duration * av_q2d(st->time_base)
                   : st->avg_frame_rate.num ? 1.0 / av_q2d(st->avg_frame_rate)
                                            : 0;
      if (d->video_frames == 0) {
        d->video_start = t;
        d->first_code = media_frame_code(f);
      }
      d->video_frames++;
      if (t + dur > d->video_end)
        d->video_end = t + dur;
      d->last_code = media_frame_code(f);
    } else {
      if (d->audio_samples == 0)
        d->audio_start = t;
      d->audio_samples += f->nb_samples;
      d->sample_rate = f->sample_rate;
      if (t + (double)f->nb_samples / f->sample_rate > d->audio_end)
        d->audio_end = t + (double)f->nb_samples / f->sample_rate;
    }
    av_frame_unref(f);
  }
}

int rescue_media_decode_check(const char *path, rescue_media_decoded *d, rescue_error *err) {
  AVFormatContext *fmt = NULL;
  AVCodecContext *vc = NULL, *ac = NULL;
  AVPacket *pkt = NULL;
  AVFrame *f = NULL;
  int rc, vi, ai;
  double t0 = 0;

  memset(d, 0, sizeof *d);
  d->first_code = d->last_code = -1;
  if ((rc = media_open_input(path, &fmt, err)))
    return rc;
  if (fmt->duration != AV_NOPTS_VALUE)
    d->duration = (double)fmt->duration / AV_TIME_BASE;
  if (fmt->start_time != AV_NOPTS_VALUE)
    t0 = (double)fmt->start_time / AV_TIME_BASE;
  vi = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
  ai = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
  rc = 0;
  if ((vi >= 0 && !(vc = open_decoder(fmt->streams[vi], err))) ||
      (ai >= 0 && !(ac = open_decoder(fmt->streams[ai], err)))) {
    rc = err ? err->code : RESCUE_EMEDIA;
    goto end;
  }
  pkt = av_packet_alloc();
  f = av_frame_alloc();
  if (!pkt || !f) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (;;) {
    int r = av_read_frame(fmt, pkt);
    AVCodecContext *c;
    if (r == AVERROR_EOF)
      break;
    if (r < 0) {
      d->decode_errors++;
      break;
    }
    c = pkt->stream_index == vi ? vc : pkt->stream_index == ai ? ac : NULL;
    if (c) {
      if (pkt->flags & AV_PKT_FLAG_CORRUPT)
        d->decode_errors++;
      if (avcodec_send_packet(c, pkt) < 0)
        d->decode_errors++;
      drain(c, fmt->streams[pkt->stream_index], f, t0, d, c == vc);
    }
    av_packet_unref(pkt);
  }
  if (vc) {
    avcodec_send_packet(vc, NULL);
    drain(vc, fmt->streams[vi], f, t0, d, 1);
  }
  if (ac) {
    avcodec_send_packet(ac, NULL);
    drain(ac, fmt->streams[ai], f, t0, d, 0);
  }
end:
  av_frame_free(&f);
  av_packet_free(&pkt);
  avcodec_free_context(&vc);
  avcodec_free_context(&ac);
  avformat_close_input(&fmt);
  return rc;
}
