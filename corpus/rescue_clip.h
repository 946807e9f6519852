/*
** rescue_clip.h: cutting one clip per row (and a sample's segment) out of its linked
** source (public). `rescue clip` is a thin client of rescue_clip().
**
** Layout (corpus/FORMAT.md §7): <out>/<sample_id>/clips/NNN.mp4 (NNN = row
** position, 3 digits; NNN.wav in audio mode), <out>/<sample_id>/segment.mp4 for a sample
** that is a span of a longer source, and <out>/<sample_id>/manifest.json in the release
** format {"rows": [{"index", "clip_path", "duration_sec", ...}]} with clip_path relative
** to the path base; each video entry names its row ("row_id", "start", "end",
** "clip_start"); a clip whose position now holds other times is recut, one whose
** position holds another row with the same times is kept and named again. Every file is written under a temporary name and renamed when
** complete and checked; the store records each clip (path, span, counts, sha256), and a
** rerun keeps clips whose file still has the hash recorded for that output folder (each
** folder's clips are remembered on their own).
*/
#ifndef RESCUE_CLIP_H
#define RESCUE_CLIP_H

#include <stdint.h>

#include "rescue_store.h"

typedef enum rescue_clip_mode {
  RESCUE_CLIP_COPY,  /* stream copy, edit lists hide pre-roll and overhang (default) */
  RESCUE_CLIP_EXACT, /* re-encode (libx264 + AAC): within one frame in every player */
  RESCUE_CLIP_AUDIO  /* 16 kHz mono 16-bit WAV beside the video clips */
} rescue_clip_mode;

/* "copy", "exact", "audio" -> *out; RESCUE_EINVAL otherwise. */
int rescue_clip_mode_parse(const char *name, rescue_clip_mode *out);
const char *rescue_clip_mode_name(rescue_clip_mode mode);

/* Where a run is (for progress lines); see rescue_clip_opts.status. */
typedef struct rescue_clip_status {
  long samples_done, samples_total; /* samples with media, finished / in the run */
  uint64_t rows_done, rows_total;   /* clips (rows and segments) settled / asked for */
  double elapsed;                   /* seconds since the run started */
  const char *current;              /* a sample being cut now, or NULL */
  const char *finished;             /* the sample this call reports finished, or NULL */
  int finished_ok;                  /* it succeeded */
  long finished_clips, finished_written, finished_kept;
} rescue_clip_status;

/* Seconds between the review copy's keyframes (rescue_clip_opts.review_copy). */
#define RESCUE_REVIEW_KEYINT 1.0

typedef struct rescue_clip_opts {
  const char *out;       /* output folder (created when missing) */
  const char *path_base; /* manifest clip_path values are relative to it (NULL: out) */
  rescue_clip_mode mode;
  double pad; /* seconds added on both sides of each row, clamped to the source */
  int jobs;   /* worker threads (0 or 1: one) */
  /* only samples with fnv1a64(sample_id) % n == i - 1 (n 0: all). A shard writes clips
     and manifests and records nothing in the store (which may be a read-only snapshot):
     its clips go to <out>/.rescue-clip-shard-<i>of<n>.jsonl instead, and shards of one
     run may write one folder at the same time. A later run without a shard keeps every
     clip a shard cut (its file still has the recorded hash) and records it. */
  int shard_i, shard_n;
  /* cut nothing, write nothing: count the clips of the selection that are present
     (complete, as recorded for this folder by the store or a shard), missing or stale
     (a file that is not the clip the rows now ask for) into the result */
  int check;
  const char *const *samples; /* only these (NULL: every sample) */
  int n_samples;
  /* only these rows (1-based positions) of the one sample in samples[], cut again even
     when an earlier clip is still valid; all or nothing: when one fails, no clip file and
     no manifest entry changes (NULL: every row) */
  const int *rows;
  int n_rows;
  /* also write <out>/<sample_id>/review.mp4: the sample's whole span (its segment, or the
     whole source) re-encoded (libx264 + AAC) with a keyframe every RESCUE_REVIEW_KEYINT
     seconds, which `rescue serve` plays instead of segment.mp4 and clips, so a seek on the
     review page decodes at most that much; kept while newer than the sample's
     segment.mp4 */
  int review_copy;
  /* progress in rows; called from the calling thread; may be NULL */
  void (*progress)(void *arg, uint64_t done, uint64_t total);
  void *progress_arg;
  /* called from the calling thread about four times a second while clips are cut, and
     once for every finished sample (status->finished set); may be NULL */
  void (*status)(void *arg, const rescue_clip_status *status);
  void *status_arg;
  /* one call per sample that failed (err: a code, RESCUE_EMEDIACHANGED or RESCUE_ENOMEDIA
     among others, and a message naming the file and what is wrong), from the calling
     thread; may be NULL */
  void (*failed)(void *arg, const char *sample_id, const rescue_error *err);
  void *failed_arg;
} rescue_clip_opts;

typedef struct rescue_clip_result {
  long samples;    /* samples in this run (after --samples and --shard) */
  long samples_ok; /* every clip written or kept */
  long samples_failed;
  long samples_no_media; /* no linked source: nothing to cut (not a failure) */
  long clips_written;
  long clips_kept; /* complete and verified from an earlier run */
  long clips_failed;
  double max_error; /* largest |presented - requested| duration of a written clip, s */
  long clips_present, clips_missing, clips_stale; /* opts.check */
} rescue_clip_result;

/*
** Cut clips for the selected samples with opts->jobs worker threads (each sample is one
** unit of work; its source is opened once; when there are fewer samples than workers, the
** rows of a sample are split among the spare ones). Samples that fail do not stop the
** others. The output folder is locked for the run: a second run on it is refused
** (RESCUE_EBUSY) while the first lasts, and temporaries a killed run left are removed.
** Returns 0 when every sample succeeded, RESCUE_EPARTIAL when some failed (a summary on
** the handle), or another code when nothing could be done (bad options, the store).
*/
int rescue_clip(rescue_store *st, const rescue_clip_opts *opts, rescue_clip_result *res);

/* 64-bit FNV-1a of a string (the shard hash). */
uint64_t rescue_fnv1a64(const char *s);

#endif
