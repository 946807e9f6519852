/*
** media.c: probing media files with libavformat, SHA-256 of files (sha256.c), the
** cheap fingerprint of rescue_media.h, and where stored source paths are on disk.
*/
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libavformat/avformat.h>
#include <libavutil/avutil.h>

#include "media_int.h"
#include "prim_int.h"
#include "rescue_alloc.h"
#include "rescue_sha256.h"
#include "rescue_media.h"

#define MIB (1 << 20)

int media_averr(rescue_error *err, int code, int averr, const char *fmt, ...) {
  char what[600], why[AV_ERROR_MAX_STRING_SIZE];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(what, sizeof what, fmt, ap);
  va_end(ap);
  av_strerror(averr, why, sizeof why);
  return rescue_seterr(err, code, "%s: %s", what, why);
}

/* Read exactly n bytes at offset (short only at end of file). */
static ssize_t read_at(int fd, void *buf, size_t n, off_t off) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = pread(fd, (char *)buf + got, n - got, off + (off_t)got);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0)
      return -1;
    if (r == 0)
      break;
    got += (size_t)r;
  }
  return (ssize_t)got;
}

int rescue_media_fingerprint(const char *path, int64_t *size, char hex[65], rescue_error *err) {
  unsigned char *buf = NULL, le[8], d[32];
  rescue_sha256 ctx;
  struct stat sb;
  int fd = -1, rc = 0, i;
  off_t tail;
  ssize_t n;

  if ((fd = rescue_open_regular(path, NULL, err)) < 0) {
    rc = fd;
    goto end;
  }
  if (fstat(fd, &sb) != 0) {
    rc = rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
    goto end;
  }
  buf = rescue_malloc(MIB);
  if (!buf) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  rescue_sha256_init(&ctx);
  for (i = 0; i < 8; i++)
    le[i] = (unsigned char)((uint64_t)sb.st_size >> (8 * i));
  rescue_sha256_update(&ctx, le, 8);
  n = read_at(fd, buf, MIB, 0);
  if (n < 0)
    goto ioerr;
  rescue_sha256_update(&ctx, buf, (size_t)n);
  tail = sb.st_size > MIB ? sb.st_size - MIB : 0;
  n = read_at(fd, buf, MIB, tail);
  if (n < 0)
    goto ioerr;
  rescue_sha256_update(&ctx, buf, (size_t)n);
  rescue_sha256_final(&ctx, d);
  rescue_hex(d, 32, hex);
  if (size)
    *size = (int64_t)sb.st_size;
  goto end;
ioerr:
  rc = rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", path, strerror(errno));
end:
  rescue_free(buf);
  if (fd >= 0)
    close(fd);
  return rc;
}

int rescue_sha256_file(const char *path, char hex[65], int64_t *size, rescue_error *err) {
  unsigned char *buf = NULL, d[32];
  rescue_sha256 ctx;
  int64_t total = 0;
  int fd = -1, rc = 0;

  if ((fd = rescue_open_regular(path, NULL, err)) < 0) {
    rc = fd;
    goto end;
  }
  buf = rescue_malloc(MIB);
  if (!buf) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  rescue_sha256_init(&ctx);
  for (;;) {
    ssize_t n = read(fd, buf, MIB);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      rc = rescue_seterr(err, RESCUE_EIO, "reading '%s': %s", path, strerror(errno));
      goto end;
    }
    if (n == 0)
      break;
    rescue_sha256_update(&ctx, buf, (size_t)n);
    total += n;
  }
  rescue_sha256_final(&ctx, d);
  rescue_hex(d, 32, hex);
  if (size)
    *size = total;
end:
  rescue_free(buf);
  if (fd >= 0)
    close(fd);
  return rc;
}

static const char *type_name(enum AVMediaType t) {
  switch (t) {
  case AVMEDIA_TYPE_VIDEO: return "video";
  case AVMEDIA_TYPE_AUDIO: return "audio";
  case AVMEDIA_TYPE_SUBTITLE: return "subtitle";
  case AVMEDIA_TYPE_DATA: return "data";
  case AVMEDIA_TYPE_ATTACHMENT: return "attachment";
  default: return "unknown";
  }
}

void rescue_media_quiet(void) { av_log_set_level(AV_LOG_QUIET); }

int media_open_input(const char *path, AVFormatContext **out, rescue_error *err) {
  AVFormatContext *fmt = NULL;
  int rc;
  struct stat sb;
  if (access(path, R_OK) != 0 || stat(path, &sb) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode))
    return rescue_seterr(err, RESCUE_EIO, "'%s' is %s, not a video file", path,
                         rescue_file_kind((unsigned)sb.st_mode));
  rc = avformat_open_input(&fmt, path, NULL, NULL);
  if (rc < 0)
    return media_averr(err, RESCUE_EMEDIA, rc, "'%s' is not a media file", path);
  rc = avformat_find_stream_info(fmt, NULL);
  if (rc < 0) {
    avformat_close_input(&fmt);
    return media_averr(err, RESCUE_EMEDIA, rc, "'%s': cannot read its streams", path);
  }
  *out = fmt;
  return 0;
}

int rescue_media_probe(const char *path, rescue_media_info *info, rescue_error *err) {
  AVFormatContext *fmt = NULL;
  struct stat sb;
  unsigned i;
  int rc, best_v, best_a;

  memset(info, 0, sizeof *info);
  info->video = info->audio = -1;
  if (stat(path, &sb) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  if (!S_ISREG(sb.st_mode)) /* before anything opens it: a FIFO would block the open */
    return rescue_seterr(err, RESCUE_EIO, "'%s' is %s, not a video file", path,
                         rescue_file_kind((unsigned)sb.st_mode));
  if ((rc = rescue_media_fingerprint(path, &info->size, info->fingerprint, err)))
    return rc;
  info->mtime = (int64_t)sb.st_mtime;
  if ((rc = media_open_input(path, &fmt, err)))
    return rc;
  snprintf(info->container, sizeof info->container, "%s", fmt->iformat->name);
  if (fmt->duration != AV_NOPTS_VALUE && fmt->duration > 0)
    info->duration = (double)fmt->duration / AV_TIME_BASE;
  if (fmt->start_time != AV_NOPTS_VALUE)
    info->start_time = (double)fmt->start_time / AV_TIME_BASE;
  best_v = av_find_best_stream(fmt, AVMEDIA_TYPE_VIDEO, -1, -1, NULL, 0);
  best_a = av_find_best_stream(fmt, AVMEDIA_TYPE_AUDIO, -1, -1, NULL, 0);
  for (i = 0; i < fmt->nb_streams && info->n_streams < RESCUE_MEDIA_MAX_STREAMS; i++) {
    AVStream *s = fmt->streams[i];
    AVCodecParameters *p = s->codecpar;
    rescue_media_stream *ms = &info->streams[info->n_streams];
    if (p->codec_type == AVMEDIA_TYPE_VIDEO && (s->disposition & AV_DISPOSITION_ATTACHED_PIC))
      continue; /* cover art, not a stream to cut */
    ms->index = (int)i;
    snprintf(ms->type, sizeof ms->type, "%s", type_name(p->codec_type));
    snprintf(ms->codec, sizeof ms->codec, "%s", avcodec_get_name(p->codec_id));
    if (p->codec_type == AVMEDIA_TYPE_VIDEO) {
      ms->width = p->width;
      ms->height = p->height;
      if (s->avg_frame_rate.num > 0 && s->avg_frame_rate.den > 0)
        ms->fps = av_q2d(s->avg_frame_rate);
      else if (s->r_frame_rate.num > 0 && s->r_frame_rate.den > 0)
        ms->fps = av_q2d(s->r_frame_rate);
    } else if (p->codec_type == AVMEDIA_TYPE_AUDIO) {
      ms->sample_rate = p->sample_rate;
      ms->channels = p->ch_layout.nb_channels;
    }
    if ((int)i == best_v)
      info->video = info->n_streams;
    if ((int)i == best_a)
      info->audio = info->n_streams;
    info->n_streams++;
  }
  avformat_close_input(&fmt);
  return 0;
}

void rescue_media_streams_json(const rescue_media_info *info, rescue_buf *out) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_arr(&w);
  for (i = 0; i < info->n_streams; i++) {
    const rescue_media_stream *s = &info->streams[i];
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "index");
    rescue_jw_int(&w, s->index);
    rescue_jw_key(&w, "type");
    rescue_jw_str(&w, s->type);
    rescue_jw_key(&w, "codec");
    rescue_jw_str(&w, s->codec);
    if (strcmp(s->type, "video") == 0) {
      rescue_jw_key(&w, "width");
      rescue_jw_int(&w, s->width);
      rescue_jw_key(&w, "height");
      rescue_jw_int(&w, s->height);
      rescue_jw_key(&w, "fps");
      rescue_jw_double(&w, (double)(int64_t)(s->fps * 1000 + 0.5) / 1000);
    } else if (strcmp(s->type, "audio") == 0) {
      rescue_jw_key(&w, "sample_rate");
      rescue_jw_int(&w, s->sample_rate);
      rescue_jw_key(&w, "channels");
      rescue_jw_int(&w, s->channels);
    }
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
}

/* The folder of the corpus file, absolute and without symlinks. */
int media_corpus_dir(rescue_store *st, rescue_buf *out) {
  char *copy = rescue_strdup(rescue_store_path(st)), *slash, *real = NULL;
  int rc = 0;
  if (!copy)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  slash = strrchr(copy, '/');
  if (slash == copy)
    copy[1] = 0;
  else if (slash)
    *slash = 0;
  real = realpath(slash ? copy : ".", NULL);
  if (!real)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_EIO, "cannot resolve the corpus folder: %s",
                       strerror(errno));
  else
    rescue_buf_puts(out, real);
  free(real);
  rescue_free(copy);
  return rc;
}

int rescue_media_resolve(rescue_store *st, const char *root, const char *path, rescue_buf *out) {
  int rc;
  rescue_buf_reset(out);
  if (path[0] == '/') {
    rescue_buf_puts(out, path);
    return rescue_buf_ok(out) ? 0 : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  if (root && root[0] == '/') {
    rescue_buf_puts(out, root);
  } else {
    if ((rc = media_corpus_dir(st, out)))
      return rc;
    if (root && *root) {
      rescue_buf_putc(out, '/');
      rescue_buf_puts(out, root);
    }
  }
  rescue_buf_putc(out, '/');
  rescue_buf_puts(out, path);
  return rescue_buf_ok(out) ? 0 : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
}
