/*
** cut_encode.c: clip cutting that decodes. Exact mode re-encodes each span (H.264 with
** libx264 + AAC) from the keyframe before it, dropping earlier frames, so every player
** starts on the requested frame; audio mode writes each span as 16 kHz mono 16-bit WAV,
** cut at sample precision. Both count decode errors and refuse short or damaged spans.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/audio_fifo.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>
#include <libswresample/swresample.h>
#include <libswscale/swscale.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_media.h"

#define WAV_RATE 16000
/* Decoding starts this long (seconds) before an audio span, so AAC is primed. */
#define AUDIO_LEAD 1.0
/* A span may end this much (seconds) early at a source's very end. */
#define END_SLACK 0.050
/* Exact mode's encoder settings (the CLI equivalent: -c:v libx264 -preset veryfast
   -crf 20 -c:a aac -b:a 128k). */
#define X264_PRESET "veryfast"
#define X264_CRF "20"
#define AAC_KBPS 128

/* The source opened for decoding. */
typedef struct dsrc {
  const cut_source *src;
  AVFormatContext *ic;
  int vi, ai;
  AVCodecContext *vdec, *adec;
  double t0;      /* container start, seconds */
  double a0;      /* the audio stream's first time (source seconds), NAN: unknown */
  AVRational fps; /* video frame rate */
} dsrc;

static void dsrc_close(dsrc *d) {
  avcodec_free_context(&d->vdec);
  avcodec_free_context(&d->adec);
  avformat_close_input(&d->ic);
}

static AVCodecContext *open_dec(AVStream *st, int threads, rescue_error *err) {
  const AVCodec *codec = avcodec_find_decoder(st->codecpar->codec_id);
  AVCodecContext *c = codec ? avcodec_alloc_context3(codec) : NULL;
  int rc;
  if (!c) {
    rescue_seterr(err, RESCUE_EMEDIA, "no decoder for %s",
                  avcodec_get_name(st->codecpar->codec_id));
    return NULL;
  }
  c->thread_count = threads;
  if ((rc = avcodec_parameters_to_context(c, st->codecpar)) < 0 ||
      (rc = avcodec_open2(c, codec, NULL)) < 0) {
    media_averr(err, RESCUE_EMEDIA, rc, "cannot open the %s decoder", codec->name);
    avcodec_free_context(&c);
    return NULL;
  }
  c->pkt_timebase = st->time_base;
  return c;
}

/* Open the source and the decoders the mode needs (video: exact mode only). */
static int dsrc_open(dsrc *d, const cut_source *src, int want_video, int threads,
                     rescue_error *err) {
  int rc;
  memset(d, 0, sizeof *d);
  d->src = src;
  if ((rc = media_open_input(src->path, &d->ic, err)))
    return rc;
  d->vi = av_find_best_stream(d->ic, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
  d->ai = av_find_best_stream(d->ic, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
  d->t0 = d->ic->start_time != AV_NOPTS_VALUE ? (double)d->ic->start_time / AV_TIME_BASE : 0;
  if (want_video && d->vi < 0)
    return rescue_seterr(err, RESCUE_EMEDIA, "'%s' has no video stream", src->label);
  if (!want_video && d->ai < 0)
    return rescue_seterr(err, RESCUE_EMEDIA, "'%s' has no audio stream", src->label);
  if (want_video) {
    AVStream *vs = d->ic->streams[d->vi];
    d->fps = vs->avg_frame_rate.num ? vs->avg_frame_rate : vs->r_frame_rate;
    if (!d->fps.num || !d->fps.den)
      d->fps = (AVRational){25, 1};
    if (!(d->vdec = open_dec(vs, threads, err)))
      return err->code;
  } else {
    d->vi = -1;
  }
  if (d->ai >= 0 && !(d->adec = open_dec(d->ic->streams[d->ai], 1, err)))
    return err->code;
  if (d->ai < 0)
    d->ai = -1;
  d->a0 = NAN;
  if (d->ai >= 0 && d->ic->streams[d->ai]->start_time != AV_NOPTS_VALUE) {
    AVStream *as = d->ic->streams[d->ai];
    d->a0 = (double)as->start_time * av_q2d(as->time_base) - d->t0;
  }
  return 0;
}

/* Seek so decoding resumes at a keyframe at or before sec (source seconds). */
static void dsrc_seek(dsrc *d, double sec) {
  int idx = d->vi >= 0 ? d->vi : d->ai;
  AVStream *st = d->ic->streams[idx];
  int64_t ts = av_rescale_q(llround((sec + d->t0) * AV_TIME_BASE), AV_TIME_BASE_Q, st->time_base);
  if (sec <= 0 || avformat_seek_file(d->ic, idx, INT64_MIN, ts, ts, 0) < 0)
    avformat_seek_file(d->ic, -1, INT64_MIN, 0, 0, 0);
  if (d->vdec)
    avcodec_flush_buffers(d->vdec);
  if (d->adec)
    avcodec_flush_buffers(d->adec);
}

static double frame_sec(const dsrc *d, int stream, const AVFrame *f) {
  int64_t ts = f->best_effort_timestamp;
  if (ts == AV_NOPTS_VALUE)
    ts = f->pts;
  if (ts == AV_NOPTS_VALUE)
    return NAN;
  return (double)ts * av_q2d(d->ic->streams[stream]->time_base) - d->t0;
}

/* ---- WAV (audio mode) ---- */

static void le16(unsigned char *p, unsigned v) {
  p[0] = (unsigned char)v;
  p[1] = (unsigned char)(v >> 8);
}
static void le32(unsigned char *p, uint32_t v) {
  le16(p, v & 0xffff);
  le16(p + 2, v >> 16);
}

/* Write a 16 kHz mono 16-bit WAV of n samples. */
static int write_wav(const char *path, const int16_t *pcm, int64_t n) {
  unsigned char h[44];
  uint32_t bytes = (uint32_t)(n * 2);
  FILE *f = fopen(path, "wb");
  int64_t i;
  if (!f)
    return -1;
  memcpy(h, "RIFF", 4);
  le32(h + 4, 36 + bytes);
  memcpy(h + 8, "WAVEfmt ", 8);
  le32(h + 16, 16);
  le16(h + 20, 1);
  le16(h + 22, 1);
  le32(h + 24, WAV_RATE);
  le32(h + 28, WAV_RATE * 2);
  le16(h + 32, 2);
  le16(h + 34, 16);
  memcpy(h + 36, "data", 4);
  le32(h + 40, bytes);
  fwrite(h, 1, 44, f);
  for (i = 0; i < n; i++) {
    unsigned char b[2];
    le16(b, (unsigned)(uint16_t)pcm[i]);
    fwrite(b, 1, 2, f);
  }
  if (ferror(f)) {
    fclose(f);
    return -1;
  }
  return fclose(f) == 0 ? 0 : -1;
}

/* Finish a written file: hash it and move it to its final name. */
static int finish_file(cut_req *r) {
  rescue_error e = RESCUE_ERROR_INIT;
  if (rescue_sha256_file(r->tmp, r->sha256, &r->bytes, &e)) {
    snprintf(r->err, sizeof r->err, "%.500s", e.msg);
    remove(r->tmp);
    return -1;
  }
  if (rescue_file_commit(r->tmp, r->path, &e)) {
    snprintf(r->err, sizeof r->err, "%.500s", e.msg);
    return -1;
  }
  r->done = 1;
  return 0;
}

/*
** One audio span: decode from AUDIO_LEAD before it, resample everything to 16 kHz mono
** (so the resampler's filter is warm), keep the output samples whose time falls in
** [start, end). Output sample k of a run that began at input time t_in is at t_in + k/16000.
** Where the source's sound starts after the span's start (recordings whose audio begins
** a few seconds after the picture), the WAV is silent until it does: its length is the
** span's either way, and r->no_audio says how much of it is silence.
*/
static void audio_one(dsrc *d, cut_req *r, AVPacket *pkt, AVFrame *f) {
  SwrContext *swr = NULL;
  AVChannelLayout mono = AV_CHANNEL_LAYOUT_MONO;
  int16_t *pcm = NULL;
  int64_t want = llround((r->end - r->start) * WAV_RATE), have = 0, produced = 0, skip = -1;
  double t_in = NAN;
  int errors = 0, eof = 0, rc;
  AVCodecContext *c = d->adec;
  int16_t chunk[8192];

  pcm = rescue_calloc((size_t)want + 1, sizeof *pcm);
  if (!pcm) {
    snprintf(r->err, sizeof r->err, "out of memory");
    return;
  }
  if (!isnan(d->a0) && d->a0 >= r->end) {
    have = want; /* the sound starts after the span: all silence, nothing to read */
    r->no_audio = r->end - r->start;
  } else {
    dsrc_seek(d, r->start - AUDIO_LEAD);
  }
  while (have < want && !eof) {
    rc = av_read_frame(d->ic, pkt);
    if (rc == AVERROR_EOF) {
      eof = 1;
      avcodec_send_packet(c, NULL);
    } else if (rc < 0) {
      errors++;
      break;
    } else if (pkt->stream_index != d->ai) {
      av_packet_unref(pkt);
      continue;
    } else {
      if ((pkt->flags & AV_PKT_FLAG_CORRUPT) || avcodec_send_packet(c, pkt) < 0)
        errors++;
      av_packet_unref(pkt);
    }
    while (have < want && avcodec_receive_frame(c, f) == 0) {
      int got, i;
      if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT))
        errors++;
      if (!swr) {
        t_in = frame_sec(d, d->ai, f);
        if (isnan(t_in)) {
          av_frame_unref(f);
          continue;
        }
        if (t_in > r->start) { /* no sound before t_in: silence (pcm is zeroed) */
          have = llround((t_in - r->start) * WAV_RATE);
          if (have > want)
            have = want;
          r->no_audio = (double)have / WAV_RATE;
        }
        if (swr_alloc_set_opts2(&swr, &mono, AV_SAMPLE_FMT_S16, WAV_RATE, &f->ch_layout,
                                (enum AVSampleFormat)f->format, f->sample_rate, 0, NULL) < 0 ||
            swr_init(swr) < 0) {
          snprintf(r->err, sizeof r->err, "cannot resample the audio of '%.300s'", d->src->label);
          goto end;
        }
        skip = llround((r->start - t_in) * WAV_RATE);
        if (skip < 0)
          skip = 0;
      }
      {
        uint8_t *out[1] = {(uint8_t *)chunk};
        const uint8_t **in = (const uint8_t **)f->extended_data;
        int left = f->nb_samples;
        do {
          got =
              swr_convert(swr, out, (int)(sizeof chunk / sizeof chunk[0]), left ? in : NULL, left);
          left = 0;
          for (i = 0; i < got && have < want; i++, produced++)
            if (produced >= skip)
              pcm[have++] = chunk[i];
        } while (got == (int)(sizeof chunk / sizeof chunk[0]));
      }
      av_frame_unref(f);
    }
  }
  if (swr && have < want) { /* the resampler's tail */
    uint8_t *out[1] = {(uint8_t *)chunk};
    int got = swr_convert(swr, out, (int)(sizeof chunk / sizeof chunk[0]), NULL, 0), i;
    for (i = 0; i < got && have < want; i++, produced++)
      if (produced >= skip)
        pcm[have++] = chunk[i];
  }
  if (errors) {
    snprintf(r->err, sizeof r->err, "'%.300s' is damaged: %d audio decode errors in %.3f-%.3f s",
             d->src->label, errors, r->start, r->end);
    goto end;
  }
  if (!swr && r->no_audio <= 0) {
    snprintf(r->err, sizeof r->err, "'%.300s' has no audio at %.3f s", d->src->label, r->start);
    goto end;
  }
  if (have < want - llround(END_SLACK * WAV_RATE)) {
    double at = r->start + (double)have / WAV_RATE;
    snprintf(r->err, sizeof r->err,
             "'%.300s' ends at %.3f s, %.3f s short of the requested end %.3f s", d->src->label, at,
             r->end - at, r->end);
    goto end;
  }
  /* a few missing samples at the very end of a source are silence */
  if (write_wav(r->tmp, pcm, want) != 0) {
    snprintf(r->err, sizeof r->err, "cannot write '%.300s': %s", r->tmp, strerror(errno));
    remove(r->tmp);
    goto end;
  }
  r->act_start = r->start;
  r->act_end = r->start + (double)want / WAV_RATE;
  r->frames = 0;
  r->audio_samples = want;
  finish_file(r);
end:
  swr_free(&swr);
  rescue_free(pcm);
}

int cut_audio(const cut_source *src, cut_req *reqs, int n, rescue_error *err) {
  dsrc d;
  AVPacket *pkt = av_packet_alloc();
  AVFrame *f = av_frame_alloc();
  int i, rc, failed = 0;
  if (!pkt || !f) {
    av_packet_free(&pkt);
    av_frame_free(&f);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  rc = dsrc_open(&d, src, 0, 1, err);
  for (i = 0; i < n; i++) {
    reqs[i].done = 0;
    reqs[i].err[0] = 0;
    reqs[i].no_audio = 0;
    if (rc)
      snprintf(reqs[i].err, sizeof reqs[i].err, "%.500s", err->msg);
    else if (!(reqs[i].end > reqs[i].start))
      snprintf(reqs[i].err, sizeof reqs[i].err, "empty span %.3f-%.3f s", reqs[i].start,
               reqs[i].end);
    else
      audio_one(&d, &reqs[i], pkt, f);
    if (!reqs[i].done && !failed++ && !rc)
      rc = rescue_seterr(err, RESCUE_EMEDIA, "%.500s", reqs[i].err);
    if (src->settled)
      (*src->settled)++;
  }
  dsrc_close(&d);
  av_packet_free(&pkt);
  av_frame_free(&f);
  return rc;
}

/* ---- exact mode ---- */

/* One clip's encoders and muxer. */
typedef struct enc_out {
  AVFormatContext *oc;
  AVCodecContext *venc, *aenc;
  AVStream *vst, *ast;
  struct SwsContext *sws;
  AVFrame *vframe; /* converted picture when the decoder's format differs */
  SwrContext *swr;
  AVAudioFifo *fifo;
  AVFrame *aframe;
  int64_t vcount, acount; /* frames encoded, samples sent to the encoder */
  int64_t a_next;         /* next audio pts (samples) */
} enc_out;

static void enc_close(enc_out *o) {
  if (o->oc) {
    if (o->oc->pb)
      avio_closep(&o->oc->pb);
    avformat_free_context(o->oc);
  }
  avcodec_free_context(&o->venc);
  avcodec_free_context(&o->aenc);
  sws_freeContext(o->sws);
  av_frame_free(&o->vframe);
  av_frame_free(&o->aframe);
  swr_free(&o->swr);
  if (o->fifo)
    av_audio_fifo_free(o->fifo);
  memset(o, 0, sizeof *o);
}

static int enc_open(enc_out *o, const dsrc *d, const cut_req *r, int threads, char *why,
                    size_t whylen) {
  const AVCodec *x264 = avcodec_find_encoder_by_name("libx264");
  const AVCodec *aac = avcodec_find_encoder(AV_CODEC_ID_AAC);
  AVDictionary *opts = NULL;
  int rc;
  memset(o, 0, sizeof *o);
  if (!x264 || !aac) {
    snprintf(why, whylen, "exact mode needs libavcodec with libx264 and aac encoders");
    return -1;
  }
  if ((rc = avformat_alloc_output_context2(&o->oc, NULL, "mp4", r->tmp)) < 0)
    goto averr;
  o->venc = avcodec_alloc_context3(x264);
  o->vst = avformat_new_stream(o->oc, NULL);
  if (!o->venc || !o->vst)
    goto nomem;
  o->venc->width = d->vdec->width;
  o->venc->height = d->vdec->height;
  o->venc->pix_fmt = AV_PIX_FMT_YUV420P;
  o->venc->sample_aspect_ratio = d->vdec->sample_aspect_ratio;
  o->venc->time_base = av_inv_q(d->fps);
  o->venc->framerate = d->fps;
  o->venc->thread_count = threads;
  o->venc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  av_dict_set(&opts, "preset", X264_PRESET, 0);
  av_dict_set(&opts, "crf", X264_CRF, 0);
  if (r->keyint > 0) { /* a keyframe every keyint seconds, no others: seeks decode little */
    int gop = (int)lround(r->keyint * av_q2d(d->fps));
    o->venc->gop_size = o->venc->keyint_min = gop > 1 ? gop : 1;
    av_dict_set(&opts, "x264-params", "scenecut=0", 0);
  }
  rc = avcodec_open2(o->venc, x264, &opts);
  av_dict_free(&opts);
  if (rc < 0 || (rc = avcodec_parameters_from_context(o->vst->codecpar, o->venc)) < 0)
    goto averr;
  o->vst->time_base = o->venc->time_base;
  if (d->adec) {
    o->aenc = avcodec_alloc_context3(aac);
    o->ast = avformat_new_stream(o->oc, NULL);
    if (!o->aenc || !o->ast)
      goto nomem;
    o->aenc->sample_fmt = AV_SAMPLE_FMT_FLTP;
    o->aenc->sample_rate = d->adec->sample_rate;
    if ((rc = av_channel_layout_copy(&o->aenc->ch_layout, &d->adec->ch_layout)) < 0)
      goto averr;
    if (o->aenc->ch_layout.order == AV_CHANNEL_ORDER_UNSPEC)
      av_channel_layout_default(&o->aenc->ch_layout, o->aenc->ch_layout.nb_channels);
    o->aenc->bit_rate = AAC_KBPS * 1000;
    o->aenc->time_base = (AVRational){1, o->aenc->sample_rate};
    o->aenc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
    if ((rc = avcodec_open2(o->aenc, aac, NULL)) < 0 ||
        (rc = avcodec_parameters_from_context(o->ast->codecpar, o->aenc)) < 0)
      goto averr;
    o->ast->time_base = o->aenc->time_base;
    o->fifo = av_audio_fifo_alloc(AV_SAMPLE_FMT_FLTP, o->aenc->ch_layout.nb_channels, 4096);
    o->aframe = av_frame_alloc();
    if (!o->fifo || !o->aframe)
      goto nomem;
  }
  if ((rc = avio_open(&o->oc->pb, r->tmp, AVIO_FLAG_WRITE)) < 0 ||
      (rc = avformat_write_header(o->oc, NULL)) < 0)
    goto averr;
  return 0;
nomem:
  snprintf(why, whylen, "out of memory");
  return -1;
averr : {
  char e[AV_ERROR_MAX_STRING_SIZE];
  av_strerror(rc, e, sizeof e);
  snprintf(why, whylen, "cannot start an exact clip: %s", e);
  return -1;
}
}

/* Send a frame (NULL: flush) to an encoder and mux what comes out. */
static int enc_send(enc_out *o, AVCodecContext *enc, AVStream *st, AVFrame *fr, AVPacket *pkt) {
  int rc = avcodec_send_frame(enc, fr);
  if (rc < 0 && rc != AVERROR_EOF)
    return rc;
  for (;;) {
    rc = avcodec_receive_packet(enc, pkt);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
      return 0;
    if (rc < 0)
      return rc;
    av_packet_rescale_ts(pkt, enc->time_base, st->time_base);
    pkt->stream_index = st->index;
    if ((rc = av_interleaved_write_frame(o->oc, pkt)) < 0)
      return rc;
  }
}

/* Move whole encoder frames (or, at the end, the rest) from the fifo to the encoder. */
static int audio_drain(enc_out *o, AVPacket *pkt, int final) {
  int fs = o->aenc->frame_size > 0 ? o->aenc->frame_size : 1024, rc;
  while (av_audio_fifo_size(o->fifo) >= fs || (final && av_audio_fifo_size(o->fifo) > 0)) {
    int n = av_audio_fifo_size(o->fifo) < fs ? av_audio_fifo_size(o->fifo) : fs;
    av_frame_unref(o->aframe);
    o->aframe->nb_samples = n;
    o->aframe->format = AV_SAMPLE_FMT_FLTP;
    o->aframe->sample_rate = o->aenc->sample_rate;
    if ((rc = av_channel_layout_copy(&o->aframe->ch_layout, &o->aenc->ch_layout)) < 0 ||
        (rc = av_frame_get_buffer(o->aframe, 0)) < 0)
      return rc;
    av_audio_fifo_read(o->fifo, (void **)o->aframe->data, n);
    o->aframe->pts = o->a_next;
    o->a_next += n;
    if ((rc = enc_send(o, o->aenc, o->ast, o->aframe, pkt)) < 0)
      return rc;
  }
  return 0;
}

/* Send n samples of silence to the encoder (the source has no sound there). */
static int audio_silence(enc_out *o, AVPacket *pkt, int64_t n) {
  uint8_t **z = NULL;
  int nch = o->aenc->ch_layout.nb_channels, rc;
  if (n <= 0)
    return 0;
  if ((rc = av_samples_alloc_array_and_samples(&z, NULL, nch, 4096, AV_SAMPLE_FMT_FLTP, 0)) < 0)
    return rc;
  av_samples_set_silence(z, 0, 4096, nch, AV_SAMPLE_FMT_FLTP);
  while (n > 0 && rc >= 0) {
    int k = n < 4096 ? (int)n : 4096;
    if ((rc = av_audio_fifo_write(o->fifo, (void **)z, k)) >= 0) {
      o->acount += k;
      n -= k;
      rc = audio_drain(o, pkt, 0);
    }
  }
  av_freep(&z[0]);
  av_freep(&z);
  return rc < 0 ? rc : 0;
}

/* Add the part of a decoded audio frame (at time t) inside [start, end) to the fifo. */
static int audio_take(enc_out *o, AVFrame *f, double t, const cut_req *r) {
  int64_t sr = f->sample_rate, first = llround((r->start - t) * (double)sr),
          last = llround((r->end - t) * (double)sr), n;
  uint8_t **conv = NULL;
  int rc;
  if (first < 0)
    first = 0;
  if (last > f->nb_samples)
    last = f->nb_samples;
  n = last - first;
  if (n <= 0)
    return 0;
  if (!o->swr) {
    if ((rc = swr_alloc_set_opts2(&o->swr, &o->aenc->ch_layout, AV_SAMPLE_FMT_FLTP,
                                  o->aenc->sample_rate, &f->ch_layout,
                                  (enum AVSampleFormat)f->format, f->sample_rate, 0, NULL)) < 0 ||
        (rc = swr_init(o->swr)) < 0)
      return rc;
  }
  if ((rc = av_samples_alloc_array_and_samples(&conv, NULL, o->aenc->ch_layout.nb_channels,
                                               f->nb_samples, AV_SAMPLE_FMT_FLTP, 0)) < 0)
    return rc;
  rc = swr_convert(o->swr, conv, f->nb_samples, (const uint8_t **)f->extended_data, f->nb_samples);
  if (rc >= 0) {
    int ch;
    if (last > rc)
      last = rc;
    n = last - first;
    for (ch = 0; n > 0 && ch < o->aenc->ch_layout.nb_channels; ch++)
      conv[ch] += first * (int64_t)sizeof(float);
    if (n > 0 && (rc = av_audio_fifo_write(o->fifo, (void **)conv, (int)n)) >= 0)
      o->acount += n;
    for (ch = 0; n > 0 && ch < o->aenc->ch_layout.nb_channels; ch++)
      conv[ch] -= first * (int64_t)sizeof(float);
  }
  av_freep(&conv[0]);
  av_freep(&conv);
  return rc < 0 ? rc : 0;
}

/* Encode one video frame that is inside the span. */
static int video_take(enc_out *o, AVFrame *f, double t, const cut_req *r, AVPacket *pkt) {
  AVFrame *src = f;
  int rc;
  if (f->format != AV_PIX_FMT_YUV420P || f->width != o->venc->width ||
      f->height != o->venc->height) {
    if (!o->sws) {
      o->sws = sws_getContext(f->width, f->height, (enum AVPixelFormat)f->format, o->venc->width,
                              o->venc->height, AV_PIX_FMT_YUV420P, SWS_BILINEAR, NULL, NULL, NULL);
      o->vframe = av_frame_alloc();
      if (!o->sws || !o->vframe)
        return AVERROR(ENOMEM);
      o->vframe->format = AV_PIX_FMT_YUV420P;
      o->vframe->width = o->venc->width;
      o->vframe->height = o->venc->height;
      if ((rc = av_frame_get_buffer(o->vframe, 0)) < 0)
        return rc;
    }
    if ((rc = av_frame_make_writable(o->vframe)) < 0)
      return rc;
    sws_scale(o->sws, (const uint8_t *const *)f->data, f->linesize, 0, f->height, o->vframe->data,
              o->vframe->linesize);
    src = o->vframe;
  }
  src->pts = llround((t - r->start) * av_q2d(o->venc->framerate));
  if (src->pts < o->vcount)
    src->pts = o->vcount; /* strictly increasing */
  src->pict_type = AV_PICTURE_TYPE_NONE;
  o->vcount = src->pts + 1;
  return enc_send(o, o->venc, o->vst, src, pkt);
}

/*
** One exact clip: decode from the keyframe before start to the end, encode the span.
** Where the source's sound starts after the span's start (audio beginning a few seconds
** after the picture), the clip's audio is silence until it does, so its audio and video
** both cover the span; r->no_audio says how much is silence. A span wholly before the
** sound reads no audio at all.
*/
static void exact_one(dsrc *d, cut_req *r, int threads, AVPacket *pkt, AVFrame *f) {
  enc_out o;
  double fdur = 1.0 / av_q2d(d->fps), half = fdur / 2, vlast = -1, alast = -1;
  int64_t want_frames = llround((r->end - r->start) * av_q2d(d->fps)), frames = 0;
  int before_audio = d->adec && !isnan(d->a0) && d->a0 >= r->end, audio_after = before_audio;
  int errors = 0, eof = 0, vdone = 0, adone = d->adec == NULL || before_audio, rc = 0, asr;
  rescue_error e = RESCUE_ERROR_INIT;

  if (enc_open(&o, d, r, threads, r->err, sizeof r->err)) {
    enc_close(&o);
    remove(r->tmp);
    return;
  }
  dsrc_seek(d, r->start - (d->adec && !before_audio ? AUDIO_LEAD : 0));
  while (!eof && !(vdone && adone) && rc >= 0) {
    AVCodecContext *c;
    int is_v, si;
    rc = av_read_frame(d->ic, pkt);
    if (rc == AVERROR_EOF) {
      eof = 1;
      rc = 0;
      avcodec_send_packet(d->vdec, NULL);
      if (d->adec)
        avcodec_send_packet(d->adec, NULL);
    } else if (rc < 0) {
      errors++;
      break;
    }
    /* the packet's stream now: encoding a frame reuses pkt for its output */
    si = eof ? -1 : pkt->stream_index;
    for (is_v = 1; is_v >= 0; is_v--) {
      int idx = is_v ? d->vi : d->ai;
      c = is_v ? d->vdec : d->adec;
      if (!c || (!eof && (si != idx || (is_v ? vdone : adone))))
        continue;
      if (!eof && ((pkt->flags & AV_PKT_FLAG_CORRUPT) || avcodec_send_packet(c, pkt) < 0))
        errors++;
      while (rc >= 0 && avcodec_receive_frame(c, f) == 0) {
        double t = frame_sec(d, idx, f);
        if (f->decode_error_flags || (f->flags & AV_FRAME_FLAG_CORRUPT))
          errors++;
        if (!isnan(t)) {
          if (is_v) {
            if (t >= r->end - half)
              vdone = 1;
            else if (t >= r->start - half && frames < want_frames) {
              rc = video_take(&o, f, t, r, pkt);
              frames++;
              vlast = t + fdur;
            }
          } else {
            if (t >= r->end) {
              adone = 1;
              audio_after = 1;
            } else {
              if (!o.acount && t > r->start) { /* no sound before t */
                rc = audio_silence(&o, pkt, llround((t - r->start) * o.aenc->sample_rate));
                r->no_audio = (double)o.acount / o.aenc->sample_rate;
              }
              if (rc >= 0)
                rc = audio_take(&o, f, t, r);
              if (rc >= 0)
                rc = audio_drain(&o, pkt, 0);
              alast = t + (double)f->nb_samples / f->sample_rate;
            }
          }
        }
        av_frame_unref(f);
      }
    }
    if (!eof)
      av_packet_unref(pkt);
  }
  if (rc >= 0 && o.aenc && !o.acount && audio_after) { /* the sound starts after the span */
    rc = audio_silence(&o, pkt, llround((r->end - r->start) * o.aenc->sample_rate));
    r->no_audio = (double)o.acount / o.aenc->sample_rate;
  }
  if (rc >= 0 && o.aenc)
    rc = audio_drain(&o, pkt, 1);
  if (rc >= 0)
    rc = enc_send(&o, o.venc, o.vst, NULL, pkt);
  if (rc >= 0 && o.aenc)
    rc = enc_send(&o, o.aenc, o.ast, NULL, pkt);
  if (rc >= 0)
    rc = av_write_trailer(o.oc);
  if (rc < 0) {
    char why[AV_ERROR_MAX_STRING_SIZE];
    av_strerror(rc, why, sizeof why);
    snprintf(r->err, sizeof r->err, "encoding the clip: %s", why);
  } else if (errors) {
    snprintf(r->err, sizeof r->err, "'%.300s' is damaged: %d decode errors in %.3f-%.3f s",
             d->src->label, errors, r->start, r->end);
  } else if (frames < want_frames - 1 ||
             (o.aenc &&
              o.acount < llround((r->end - r->start - END_SLACK) * o.aenc->sample_rate))) {
    double have = vlast;
    if (o.aenc && (alast < have || have < 0))
      have = alast < r->end ? alast : have;
    if (have < r->start)
      have = r->start;
    if (vdone && frames >= want_frames - 1) /* pictures past the end: only the sound stops */
      snprintf(r->err, sizeof r->err,
               "'%.300s' has sound only to %.3f s, %.3f s short of the requested end %.3f s "
               "(its picture goes on)",
               d->src->label, have, r->end - have, r->end);
    else
      snprintf(r->err, sizeof r->err,
               "'%.300s' ends at %.3f s, %.3f s short of the requested end %.3f s", d->src->label,
               have, r->end - have, r->end);
  }
  r->frames = frames;
  r->audio_samples = o.acount;
  asr = o.aenc ? o.aenc->sample_rate : 0;
  enc_close(&o);
  if (r->err[0]) {
    remove(r->tmp);
    return;
  }
  r->act_start = r->start;
  r->act_end = r->start + (double)frames * fdur;
  if (mp4_set_edits(r->tmp, (double)frames * fdur, asr ? (double)r->audio_samples / asr : 0, &e)) {
    snprintf(r->err, sizeof r->err, "%.500s", e.msg);
    remove(r->tmp);
    return;
  }
  finish_file(r);
}

int cut_exact(const cut_source *src, cut_req *reqs, int n, int threads, rescue_error *err) {
  dsrc d;
  AVPacket *pkt = av_packet_alloc();
  AVFrame *f = av_frame_alloc();
  int i, rc, failed = 0;
  if (!pkt || !f) {
    av_packet_free(&pkt);
    av_frame_free(&f);
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  rc = dsrc_open(&d, src, 1, threads, err);
  for (i = 0; i < n; i++) {
    reqs[i].done = 0;
    reqs[i].err[0] = 0;
    reqs[i].no_audio = 0;
    if (rc)
      snprintf(reqs[i].err, sizeof reqs[i].err, "%.500s", err->msg);
    else if (!(reqs[i].end > reqs[i].start))
      snprintf(reqs[i].err, sizeof reqs[i].err, "empty span %.3f-%.3f s", reqs[i].start,
               reqs[i].end);
    else
      exact_one(&d, &reqs[i], threads, pkt, f);
    if (!reqs[i].done && !failed++ && !rc)
      rc = rescue_seterr(err, RESCUE_EMEDIA, "%.500s", reqs[i].err);
    if (src->settled)
      (*src->settled)++;
  }
  dsrc_close(&d);
  av_packet_free(&pkt);
  av_frame_free(&f);
  return rc;
}
