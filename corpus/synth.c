/*
** synth.c: synthetic media files (moving test pattern with each frame's number drawn in,
** and a stepped tone) for the demo, the tests and the clip benchmark.
*/
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libavcodec/avcodec.h>
#include <libavformat/avformat.h>
#include <libavutil/channel_layout.h>
#include <libavutil/opt.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_output.h"
#include "rescue_media.h"

/* The frame-number band: 16 bits, most significant first, in the top 16 rows. */
#define CODE_BITS 16
#define CODE_ROWS 16

void rescue_synth_defaults(rescue_synth_opts *o) {
  memset(o, 0, sizeof *o);
  o->duration = 4.0;
  o->width = 160;
  o->height = 96;
  o->fps = 25;
  o->gop = 50;
  o->bframes = 3;
  o->sample_rate = 44100;
  o->channels = 2;
  o->audio_kbps = 96;
}

/* Draw frame n: the code band, a diagonal gradient that moves, colour bars, grain. */
static void draw_frame(AVFrame *f, int64_t n, int noise, uint32_t *rng) {
  int w = f->width, h = f->height, x, y, bw = w / CODE_BITS;
  for (y = 0; y < h; y++) {
    uint8_t *row = f->data[0] + (size_t)y * (size_t)f->linesize[0];
    if (y < CODE_ROWS && bw >= 4) {
      for (x = 0; x < w; x++) {
        int bit = x / bw;
        row[x] = bit < CODE_BITS && ((n >> (CODE_BITS - 1 - bit)) & 1) ? 235 : 16;
      }
      continue;
    }
    for (x = 0; x < w; x++) {
      int v = (int)((x + y + 3 * n) & 0xff) / 2 + 64;
      if (noise) {
        *rng ^= *rng << 13;
        *rng ^= *rng >> 17;
        *rng ^= *rng << 5;
        v += (int)(*rng % 33) - 16;
      }
      row[x] = (uint8_t)(v < 16 ? 16 : v > 235 ? 235 : v);
    }
  }
  for (y = 0; y < h / 2; y++) {
    uint8_t *u = f->data[1] + (size_t)y * (size_t)f->linesize[1];
    uint8_t *v = f->data[2] + (size_t)y * (size_t)f->linesize[2];
    for (x = 0; x < w / 2; x++) {
      int bar = ((x * 8) / (w / 2 ? w / 2 : 1) + (int)(n / 25)) & 7;
      if (y < CODE_ROWS / 2) {
        u[x] = v[x] = 128;
      } else {
        u[x] = (uint8_t)(64 + 20 * bar);
        v[x] = (uint8_t)(200 - 18 * bar);
      }
    }
  }
}

int media_frame_code(const AVFrame *f) {
  int bw = f->width / CODE_BITS, bit, code = 0, x, y;
  if (bw < 4 || f->height < CODE_ROWS || f->format != AV_PIX_FMT_YUV420P)
    return -1;
  for (bit = 0; bit < CODE_BITS; bit++) {
    long sum = 0, cnt = 0;
    for (y = 4; y < CODE_ROWS - 4; y++)
      for (x = bit * bw + bw / 4; x < bit * bw + 3 * bw / 4; x++) {
        sum += f->data[0][(size_t)y * (size_t)f->linesize[0] + (size_t)x];
        cnt++;
      }
    code = code << 1 | (cnt && sum / cnt > 128);
  }
  return code;
}

/* One output stream being encoded. */
typedef struct synth_stream {
  AVStream *st;
  AVCodecContext *enc;
  AVFrame *frame;
  int64_t next_pts; /* in enc->time_base */
  int64_t total;    /* frames (video) or samples (audio) to produce */
  int finished;
} synth_stream;

static int open_video(AVFormatContext *oc, synth_stream *vs, const rescue_synth_opts *o,
                      rescue_error *err) {
  const AVCodec *codec = avcodec_find_encoder_by_name("libx264");
  AVDictionary *opts = NULL;
  char params[256];
  int rc;
  if (!codec)
    return rescue_seterr(err, RESCUE_EMEDIA, "this libavcodec has no libx264 encoder");
  vs->st = avformat_new_stream(oc, NULL);
  vs->enc = avcodec_alloc_context3(codec);
  vs->frame = av_frame_alloc();
  if (!vs->st || !vs->enc || !vs->frame)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  vs->enc->width = o->width;
  vs->enc->height = o->height;
  vs->enc->time_base = (AVRational){1, o->fps};
  vs->enc->framerate = (AVRational){o->fps, 1};
  vs->enc->pix_fmt = AV_PIX_FMT_YUV420P;
  vs->enc->gop_size = o->gop;
  vs->enc->keyint_min = o->gop;
  vs->enc->max_b_frames = o->bframes;
  vs->enc->thread_count = o->threads;
  if (o->video_kbps > 0) {
    vs->enc->bit_rate = (int64_t)o->video_kbps * 1000;
    if (o->cbr) {
      vs->enc->rc_max_rate = vs->enc->bit_rate;
      vs->enc->rc_min_rate = vs->enc->bit_rate;
      vs->enc->rc_buffer_size = (int)(vs->enc->bit_rate * 2);
    }
  } else {
    av_dict_set(&opts, "crf", "23", 0);
  }
  if (oc->oformat->flags & AVFMT_GLOBALHEADER)
    vs->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  av_dict_set(&opts, "preset", o->preset ? o->preset : "veryfast", 0);
  snprintf(params, sizeof params, "scenecut=0:bframes=%d%s", o->bframes,
           o->cbr && o->video_kbps > 0 ? ":nal-hrd=cbr:force-cfr=1" : "");
  av_dict_set(&opts, "x264-params", params, 0);
  rc = avcodec_open2(vs->enc, codec, &opts);
  av_dict_free(&opts);
  if (rc < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "cannot open the libx264 encoder");
  if ((rc = avcodec_parameters_from_context(vs->st->codecpar, vs->enc)) < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "video stream parameters");
  vs->st->time_base = vs->enc->time_base;
  vs->st->avg_frame_rate = vs->enc->framerate;
  vs->frame->format = AV_PIX_FMT_YUV420P;
  vs->frame->width = o->width;
  vs->frame->height = o->height;
  if ((rc = av_frame_get_buffer(vs->frame, 0)) < 0)
    return media_averr(err, RESCUE_ENOMEM, rc, "video frame");
  vs->total = (int64_t)llround(o->duration * o->fps);
  return 0;
}

static int open_audio(AVFormatContext *oc, synth_stream *as, const rescue_synth_opts *o,
                      rescue_error *err) {
  const AVCodec *codec = avcodec_find_encoder(AV_CODEC_ID_AAC);
  int rc;
  if (!codec)
    return rescue_seterr(err, RESCUE_EMEDIA, "this libavcodec has no AAC encoder");
  as->st = avformat_new_stream(oc, NULL);
  as->enc = avcodec_alloc_context3(codec);
  as->frame = av_frame_alloc();
  if (!as->st || !as->enc || !as->frame)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  as->enc->sample_fmt = AV_SAMPLE_FMT_FLTP;
  as->enc->sample_rate = o->sample_rate;
  av_channel_layout_default(&as->enc->ch_layout, o->channels > 0 ? o->channels : 1);
  as->enc->bit_rate = (int64_t)(o->audio_kbps > 0 ? o->audio_kbps : 96) * 1000;
  as->enc->time_base = (AVRational){1, o->sample_rate};
  if (oc->oformat->flags & AVFMT_GLOBALHEADER)
    as->enc->flags |= AV_CODEC_FLAG_GLOBAL_HEADER;
  if ((rc = avcodec_open2(as->enc, codec, NULL)) < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "cannot open the AAC encoder");
  if ((rc = avcodec_parameters_from_context(as->st->codecpar, as->enc)) < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "audio stream parameters");
  as->st->time_base = as->enc->time_base;
  as->frame->format = AV_SAMPLE_FMT_FLTP;
  as->frame->sample_rate = o->sample_rate;
  as->frame->nb_samples = as->enc->frame_size ? as->enc->frame_size : 1024;
  if ((rc = av_channel_layout_copy(&as->frame->ch_layout, &as->enc->ch_layout)) < 0 ||
      (rc = av_frame_get_buffer(as->frame, 0)) < 0)
    return media_averr(err, RESCUE_ENOMEM, rc, "audio frame");
  as->total = (int64_t)llround(o->duration * o->sample_rate);
  return 0;
}

/* Send a frame (NULL: flush) and write every packet the encoder gives back. */
static int encode_write(AVFormatContext *oc, synth_stream *s, AVFrame *frame, AVPacket *pkt,
                        rescue_error *err) {
  int rc = avcodec_send_frame(s->enc, frame);
  if (rc < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "encoding");
  for (;;) {
    rc = avcodec_receive_packet(s->enc, pkt);
    if (rc == AVERROR(EAGAIN) || rc == AVERROR_EOF)
      return 0;
    if (rc < 0)
      return media_averr(err, RESCUE_EMEDIA, rc, "encoding");
    av_packet_rescale_ts(pkt, s->enc->time_base, s->st->time_base);
    pkt->stream_index = s->st->index;
    if ((rc = av_interleaved_write_frame(oc, pkt)) < 0)
      return media_averr(err, RESCUE_EIO, rc, "writing");
  }
}

int rescue_synth_media(const char *path, const rescue_synth_opts *o, rescue_error *err) {
  const AVOutputFormat *ofmt = av_guess_format(NULL, path, NULL);
  AVFormatContext *oc = NULL;
  AVPacket *pkt = NULL;
  synth_stream vs, as;
  char *tmp = NULL;
  uint32_t rng = 2463534242u;
  double phase = 0;
  int rc = 0, opened = 0, header = 0;
  uint64_t total_units, done = 0;

  memset(&vs, 0, sizeof vs);
  memset(&as, 0, sizeof as);
  if (!ofmt)
    return rescue_seterr(err, RESCUE_EINVAL, "cannot tell a container from the name '%s'", path);
  if (o->duration <= 0 || (o->width <= 0 && o->sample_rate <= 0) || (o->width > 0 && o->fps <= 0))
    return rescue_seterr(err, RESCUE_EINVAL, "synthetic media needs a duration and a stream");
  if (!(tmp = rescue_file_tmpname(path)))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if ((rc = avformat_alloc_output_context2(&oc, ofmt, NULL, tmp)) < 0) {
    rc = media_averr(err, RESCUE_EMEDIA, rc, "cannot create '%s'", path);
    goto end;
  }
  if ((o->width > 0 && (rc = open_video(oc, &vs, o, err))) ||
      (o->sample_rate > 0 && (rc = open_audio(oc, &as, o, err))))
    goto end;
  if ((rc = avio_open(&oc->pb, tmp, AVIO_FLAG_WRITE)) < 0) {
    rc = media_averr(err, RESCUE_EIO, rc, "cannot write '%s'", tmp);
    goto end;
  }
  opened = 1;
  oc->output_ts_offset = llround(o->start_offset * AV_TIME_BASE);
  if ((rc = avformat_write_header(oc, NULL)) < 0) {
    rc = media_averr(err, RESCUE_EMEDIA, rc, "writing the header of '%s'", path);
    goto end;
  }
  header = 1;
  pkt = av_packet_alloc();
  if (!pkt) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  vs.finished = !vs.enc;
  as.finished = !as.enc;
  total_units = (uint64_t)(vs.total + (as.enc ? as.total / as.frame->nb_samples : 0));
  rc = 0;
  while (!rc && (!vs.finished || !as.finished)) {
    int video_next =
        !vs.finished && (as.finished || av_compare_ts(vs.next_pts, vs.enc->time_base, as.next_pts,
                                                      as.enc->time_base) <= 0);
    synth_stream *s = video_next ? &vs : &as;
    if (s->next_pts >= s->total) {
      rc = encode_write(oc, s, NULL, pkt, err);
      s->finished = 1;
      continue;
    }
    if ((rc = av_frame_make_writable(s->frame)) < 0) {
      rc = media_averr(err, RESCUE_ENOMEM, rc, "frame");
      break;
    }
    if (video_next) {
      draw_frame(s->frame, s->next_pts, o->noise, &rng);
      s->frame->pts = s->next_pts++;
    } else {
      int i, c, n = s->frame->nb_samples;
      for (i = 0; i < n; i++) {
        int64_t t = s->next_pts + i;
        double f = 440.0 * (1.0 + (double)((t / o->sample_rate) % 4) / 4.0);
        float v = (float)(0.3 * sin(phase));
        phase += 2 * M_PI * f / o->sample_rate;
        if (phase > 2 * M_PI)
          phase -= 2 * M_PI;
        if (t >= s->total)
          v = 0;
        for (c = 0; c < s->frame->ch_layout.nb_channels; c++)
          ((float *)s->frame->data[c])[i] = v;
      }
      s->frame->pts = s->next_pts;
      s->next_pts += n;
    }
    rc = encode_write(oc, s, s->frame, pkt, err);
    done++;
    if (o->progress && (done & 63) == 0)
      o->progress(o->progress_arg, done, total_units);
  }
  if (!rc && (rc = av_write_trailer(oc)) < 0)
    rc = media_averr(err, RESCUE_EIO, rc, "finishing '%s'", path);
  header = 0;
end:
  if (header)
    av_write_trailer(oc);
  if (opened && avio_closep(&oc->pb) < 0 && !rc)
    rc = rescue_seterr(err, RESCUE_EIO, "cannot write '%s'", tmp);
  if (!rc)
    rc = rescue_file_commit(tmp, path, err);
  else
    remove(tmp);
  av_packet_free(&pkt);
  avcodec_free_context(&vs.enc);
  avcodec_free_context(&as.enc);
  av_frame_free(&vs.frame);
  av_frame_free(&as.frame);
  avformat_free_context(oc);
  rescue_free(tmp);
  if (rc > 0)
    rc = RESCUE_EMEDIA;
  return rc;
}
