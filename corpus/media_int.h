/*
** media_int.h: what the media files of corpus/ share among themselves (private:
** media.c, media_link.c, media_check.c, synth.c, cut_*.c, clip.c).
*/
#ifndef RESCUE_MEDIA_INTERNAL_H
#define RESCUE_MEDIA_INTERNAL_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <libavformat/avformat.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_store.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/* rescue_seterr with libav's text for averr appended: "<fmt...>: <av_strerror>". */
int media_averr(rescue_error *err, int code, int averr, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* avformat_open_input + avformat_find_stream_info with our messages. */
int media_open_input(const char *path, AVFormatContext **out, rescue_error *err);
/* The corpus file's folder, absolute (appended to out). */
int media_corpus_dir(rescue_store *st, rescue_buf *out);

/* The frame number rescue_synth_media drew into a decoded frame, or -1. */
struct AVFrame;
int media_frame_code(const struct AVFrame *f);

/* ---- cutting (cut.c, cut_encode.c) ---- */

/* One clip to cut from a source, and what came of it. */
typedef struct cut_req {
  double start, end; /* requested span, seconds in the source (container time minus
                              its start_time), padding included */
  const char *path;  /* final file name */
  const char *tmp;   /* temporary name to write, renamed to path when complete */
  double keyint;     /* exact mode: seconds between keyframes (0: the encoder's choice) */
  /* results */
  int done; /* 1: written, checked and renamed */
  double act_start, act_end;
  int64_t frames, audio_samples;
  double no_audio; /* seconds of the span before the source's sound starts: silence in
                      exact and audio modes, no sound in copy mode */
  int64_t bytes;
  char sha256[65];
  char err[512]; /* why it failed ("" when it did not) */
} cut_req;

/* Facts about the source every cutter needs. */
typedef struct cut_source {
  const char *path;      /* file to read */
  const char *label;     /* how messages name it (the stored path) */
  double duration;       /* seconds, from the probe */
  _Atomic long *settled; /* when not NULL: +1 for every request finished or failed */
} cut_source;

/*
** Copy mode: open the source once and cut every request (sorted or not) in one forward
** pass, remuxing each into its own mp4 muxer. Returns 0 when every request is done, or a
** negative code with the first failure in err (requests keep their own messages). A
** failure that concerns the whole source (cannot open, no video) fails every request.
*/
int cut_copy(const cut_source *src, cut_req *reqs, int n, int threads, rescue_error *err);
/* Exact mode: decode and re-encode (libx264 + AAC) each request. */
int cut_exact(const cut_source *src, cut_req *reqs, int n, int threads, rescue_error *err);
/* Audio mode: 16 kHz mono 16-bit PCM WAV of each request, sample exact. */
int cut_audio(const cut_source *src, cut_req *reqs, int n, rescue_error *err);

/*
** Set the presentation length of the video tracks of a finished mp4 file to `video`
** seconds and of its audio tracks to `audio` (the last edit of each edit list, the track
** headers and the movie header), so frames a stream copy had to keep for decoding past
** the end are not shown, and the encoder's rounding does not hide the last frame.
** Tracks without an edit list keep their length.
*/
int mp4_set_edits(const char *path, double video, double audio, rescue_error *err);

#pragma GCC visibility pop

#endif
