/*
** rescue_media.h: source videos and segment references (public).
** Probing (libavformat), a cheap fingerprint that notices a replaced file, linking a
** sample to a span of a source (`rescue media add`), listing what is linked and what is
** missing or changed on disk (`rescue media list`), decoding checks, and a synthetic test
** video generator (test pattern + tone) for the demo, the tests and the benchmark.
*/
#ifndef RESCUE_MEDIA_H
#define RESCUE_MEDIA_H

#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_error.h"
#include "rescue_store.h"

#define RESCUE_MEDIA_MAX_STREAMS 32

/* One stream of a probed file. */
typedef struct rescue_media_stream {
  int index;         /* stream index in the container */
  char type[12];     /* "video", "audio", "subtitle", "data", "attachment" or "unknown" */
  char codec[32];    /* libavcodec's codec name ("h264", "aac") */
  int width, height; /* video */
  double fps;        /* video: average frame rate, 0 when unknown */
  int sample_rate;   /* audio */
  int channels;      /* audio */
} rescue_media_stream;

/* What a probe found. */
typedef struct rescue_media_info {
  int64_t size;         /* bytes */
  int64_t mtime;        /* seconds since the epoch */
  char fingerprint[65]; /* see rescue_media_fingerprint */
  char container[64];   /* libavformat's short name ("mov,mp4,m4a,3gp,3g2,mj2") */
  double duration;      /* seconds; 0 when unknown */
  double start_time;    /* container start time, seconds (0 when unset) */
  int n_streams;        /* streams described (at most RESCUE_MEDIA_MAX_STREAMS) */
  rescue_media_stream streams[RESCUE_MEDIA_MAX_STREAMS];
  int video, audio; /* position in streams[] of the main video / audio, -1: none */
} rescue_media_info;

/*
** The fingerprint of a file: lowercase hex SHA-256 over its size as 8 little-endian
** bytes, its first MiB and its last MiB (the whole file when smaller). Reads at most
** 2 MiB, so it is cheap on long episodes, and it changes when a file is replaced,
** truncated, extended, or damaged at either end (where container indexes live).
** *size (may be NULL) gets the size.
*/
int rescue_media_fingerprint(const char *path, int64_t *size, char hex[65], rescue_error *err);

/* Lowercase hex SHA-256 of a whole file; *size (may be NULL) gets its size. */
int rescue_sha256_file(const char *path, char hex[65], int64_t *size, rescue_error *err);

/*
** Probe a media file with libavformat: container, duration, start time, streams, size,
** mtime and fingerprint. A file libavformat cannot read gives RESCUE_EMEDIA with
** "'<path>' is not a media file: <libav's reason>"; a missing file RESCUE_EIO.
*/
int rescue_media_probe(const char *path, rescue_media_info *info, rescue_error *err);

/* Append the streams as a JSON array of {index, type, codec, ...} (as stored). */
void rescue_media_streams_json(const rescue_media_info *info, rescue_buf *out);

/* ---- linking samples to sources ---- */

/* One link to make: sample sample_id covers [start, end) of video (or all of it). */
typedef struct rescue_media_link {
  const char *sample_id; /* NULL: only register (probe) the source */
  const char *video;     /* path as given (relative to the current folder) */
  int has_span;          /* 0: the whole file is the sample's clip */
  double start, end;     /* seconds into the source */
  /* where the link came from, for messages (file NULL: the command line) */
  const char *file;
  long line;
  int col_sample, col_video, col_start, col_end;
} rescue_media_link;

typedef struct rescue_media_add_result {
  long sources_new;   /* files probed and recorded for the first time (or changed) */
  long sources_known; /* files already recorded with the same fingerprint */
  long segments;      /* segment references written */
  long unchanged;     /* links that were already the sample's reference */
  long samples_new;   /* samples created (empty, no rows yet) */
} rescue_media_add_result;

/*
** Probe each link's video and record the source and (with a sample_id) the sample's new
** segment reference, all in one transaction: any failure leaves the store as it was.
** A sample that is not in the corpus yet is created empty. Re-linking a sample adds a
** new reference (the old ones stay as history); linking it to the same span of the
** same unchanged file again changes nothing. Paths under media_root (NULL: the corpus
** file's folder) are stored relative to it, others absolute. Errors name
** file:line:column for links read from a map.
*/
int rescue_media_add(rescue_store *st, const rescue_media_link *links, int n,
                     const char *media_root, rescue_media_add_result *res);

/* A parsed map file; release with rescue_media_map_clear. */
typedef struct rescue_media_map {
  rescue_media_link *links;
  int n;
  char *text; /* owns the strings the links point to */
  char *file;
} rescue_media_map;

/*
** Read a TSV map: lines "sample_id<TAB>video<TAB>start<TAB>end" (start and end both empty:
** the whole file). A first line starting with "sample_id" is a header; blank lines and
** lines starting with '#' are skipped. Relative video paths are relative to the map
** file's folder. Bad lines give RESCUE_EBADINPUT with "file:line:column: what".
*/
int rescue_media_map_read(const char *path, rescue_media_map *map, rescue_error *err);
void rescue_media_map_clear(rescue_media_map *map);

/* One line of `rescue media list`. Strings live until the callback returns. */
typedef struct rescue_media_entry {
  const char *sample_id; /* NULL: a source that no sample's current reference uses */
  int has_span;
  double start, end;    /* the span, when has_span */
  const char *path;     /* as stored */
  const char *resolved; /* where it is looked for on this machine */
  int64_t size;
  const char *fingerprint;
  const char *container;
  double duration;
  const char *state;  /* "ok", "missing" or "changed" */
  const char *detail; /* why, for missing or changed; "" otherwise */
  int relinks;        /* earlier references of the sample (history) */
} rescue_media_entry;

/*
** Call fn for every linked sample (sample_id order), then every recorded source no
** sample uses, checking each file on disk (size and fingerprint). fn returns non-zero to
** stop. *n_bad (may be NULL) gets the number of entries that are missing or changed.
*/
int rescue_media_list(rescue_store *st, int (*fn)(void *arg, const rescue_media_entry *e),
                      void *arg, long *n_bad);

/*
** Where a stored source path is on this machine: root '' is the corpus file's folder, a
** relative root is under it, an absolute path stays as it is.
*/
int rescue_media_resolve(rescue_store *st, const char *root, const char *path, rescue_buf *out);

/* ---- decoding checks ---- */

/* What decoding a whole file shows (after its edit lists). */
typedef struct rescue_media_decoded {
  double duration;           /* container duration, seconds */
  int64_t video_frames;      /* frames output by the decoder */
  double video_start;        /* first frame's time, seconds (relative to the container start) */
  double video_end;          /* last frame's time plus its duration */
  int first_code, last_code; /* frame numbers drawn by rescue_synth_media into the first and
                               last frames (-1: none readable) */
  int64_t audio_samples;     /* samples per channel output by the decoder */
  int sample_rate;
  double audio_start, audio_end;
  int decode_errors; /* packets or frames the decoders refused or flagged corrupt */
} rescue_media_decoded;

/* Decode every video and audio frame of the main streams of path. */
int rescue_media_decode_check(const char *path, rescue_media_decoded *d, rescue_error *err);

/*
** Silence libav's own logging (it prints to stderr by itself; our messages say what went
** wrong). Process-wide; the CLI calls it once.
*/
void rescue_media_quiet(void);

/*
** Parse a time in a source: seconds ("83.5") or [h:]m:s[.frac] ("1:23.5", "0:01:23.500",
** "00:01:23,500"). Returns 0 and *out, or -1 (not a time, negative, minutes or seconds
** fields of 60 or more).
*/
int rescue_media_parse_time(const char *s, double *out);

/* ---- synthetic media ---- */

typedef struct rescue_synth_opts {
  double duration;    /* seconds */
  int width, height;  /* video size; width 0: no video stream */
  int fps;            /* frames per second */
  int gop;            /* frames between keyframes */
  int bframes;        /* consecutive B-frames (0: none) */
  int video_kbps;     /* 0: constant quality (crf 23) */
  int cbr;            /* pad to video_kbps with filler data, like a broadcast file */
  int noise;          /* add grain so the encoder has something to spend bits on */
  const char *preset; /* libx264 preset ("veryfast" when NULL) */
  int sample_rate;    /* 0: no audio stream */
  int channels;
  int audio_kbps;      /* AAC bit rate */
  int threads;         /* encoder threads (0: automatic) */
  double start_offset; /* seconds added to every timestamp (a non-zero container start
                               time, as broadcast MPEG-TS files have) */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
} rescue_synth_opts;

/* Small defaults: 160x96, 25 fps, 2 s GOP, 3 B-frames, AAC 44.1 kHz stereo, 4 s. */
void rescue_synth_defaults(rescue_synth_opts *o);

/*
** Write a synthetic media file: a moving test pattern with the frame number drawn into
** the top band of every frame (16 bits, read back by rescue_media_decode_check), and a
** tone whose pitch changes every second. H.264 (libx264) + AAC; the container follows
** the file name (.mp4, .mkv, .ts, .m4a, ...). The file is written to a temporary name
** and renamed when complete.
*/
int rescue_synth_media(const char *path, const rescue_synth_opts *o, rescue_error *err);

#endif
