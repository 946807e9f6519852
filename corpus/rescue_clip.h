/*
** rescue_clip.h: cutting one clip per row (and a sample's segment) out of its linked
** source (public). `rescue clip` is a thin client of rescue_clip().
**
** Layout (corpus/FORMAT.md §7): <out>/<sample_id>/clips/NNN.mp4 (NNN = row
** position, 3 digits; NNN.wav in audio mode), <out>/<sample_id>/segment.mp4 for a sample
** that is a span of a longer source, and <out>/<sample_id>/manifest.json in the release
** format {"rows": [{"index", "clip_path", "duration_sec", ...}]} with clip_path relative
** to the path base. Every file is written under a temporary name and renamed when
** complete and checked; the store records each clip (path, span, counts, sha256), and a
** rerun keeps clips whose file still has the recorded hash.
*/
#ifndef RESCUE_CLIP_H
#define RESCUE_CLIP_H

#include <stdint.h>

#include "rescue_store.h"

typedef enum rescue_clip_mode {
  RESCUE_CLIP_COPY,   /* stream copy, edit lists hide pre-roll and overhang (default) */
  RESCUE_CLIP_EXACT,  /* re-encode (libx264 + AAC): within one frame in every player */
  RESCUE_CLIP_AUDIO   /* 16 kHz mono 16-bit WAV beside the video clips */
} rescue_clip_mode;

/* "copy", "exact", "audio" -> *out; RESCUE_EINVAL otherwise. */
int rescue_clip_mode_parse(const char *name, rescue_clip_mode *out);
const char *rescue_clip_mode_name(rescue_clip_mode mode);

typedef struct rescue_clip_opts {
  const char *out;          /* output folder (created when missing) */
  const char *path_base;    /* manifest clip_path values are relative to it (NULL: out) */
  rescue_clip_mode mode;
  double pad;               /* seconds added on both sides of each row, clamped to the source */
  int jobs;                 /* worker threads (0 or 1: one) */
  int shard_i, shard_n;     /* only samples with fnv1a64(sample_id) % n == i - 1 (n 0: all) */
  const char *const *samples; /* only these (NULL: every sample) */
  int n_samples;
  /* progress in rows; called from the calling thread; may be NULL */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
  /* one call per sample that failed (msg names the file and what is wrong), from the
     calling thread; may be NULL */
  void (*failed)(void *arg, const char *sample_id, const char *msg);
  void *failed_arg;
} rescue_clip_opts;

typedef struct rescue_clip_result {
  long samples;           /* samples in this run (after --samples and --shard) */
  long samples_ok;        /* every clip written or kept */
  long samples_failed;
  long samples_no_media;  /* no linked source: nothing to cut (not a failure) */
  long clips_written;
  long clips_kept;        /* complete and verified from an earlier run */
  long clips_failed;
  double max_error;       /* largest |presented - requested| duration of a written clip, s */
} rescue_clip_result;

/*
** Cut clips for the selected samples with opts->jobs worker threads (each sample is one
** unit of work; its source is opened once). Samples that fail do not stop the others.
** Returns 0 when every sample succeeded, RESCUE_EPARTIAL when some failed (a summary on
** the handle), or another code when nothing could be done (bad options, the store).
*/
int rescue_clip(rescue_store *st, const rescue_clip_opts *opts, rescue_clip_result *res);

/* 64-bit FNV-1a of a string (the shard hash). */
uint64_t rescue_fnv1a64(const char *s);

#endif
