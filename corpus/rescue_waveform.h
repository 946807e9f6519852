/*
** rescue_waveform.h: the peaks of a media file's sound (public), decoded once with
** libavformat/libavcodec at a fine grid, then summed up into as many buckets as a page
** draws. The review page's time line (tools/serve/web/js/timeline.js) shows them.
*/
#ifndef RESCUE_WAVEFORM_H
#define RESCUE_WAVEFORM_H

#include <stdint.h>

#include "rescue_error.h"

/* Fine buckets per second that rescue_peaks_compute keeps (10 ms each). */
#define RESCUE_PEAKS_RATE 100

/*
** A file's sound as min/max per 1/RESCUE_PEAKS_RATE s, every channel together, samples
** scaled to -1..1. Bucket k covers [k / rate, (k + 1) / rate) seconds of the file's
** presentation time (container start subtracted); a bucket without sound holds 0, 0.
*/
typedef struct rescue_peaks {
  int rate;         /* fine buckets per second (RESCUE_PEAKS_RATE) */
  int64_t n;        /* fine buckets */
  double duration;  /* seconds of sound decoded (n / rate, rounded up) */
  float *min, *max; /* n values each; owned by the struct (rescue_peaks_clear frees) */
} rescue_peaks;

/*
** Decode the best audio stream of the file at path into *out (cleared first). Returns 0,
** RESCUE_ENOMEDIA when the file has no audio stream, or RESCUE_EIO/RESCUE_EMEDIA/
** RESCUE_ENOMEM with a message naming the file in err. Damaged packets are skipped.
*/
int rescue_peaks_compute(const char *path, rescue_peaks *out, rescue_error *err);

/* Free what *p holds and zero it; p may be NULL or already cleared. */
void rescue_peaks_clear(rescue_peaks *p);

/*
** Sum the fine peaks of [from, to) seconds up into `buckets` equal buckets: min[i] and
** max[i] are the extremes of the fine buckets that overlap bucket i (0 where there is no
** sound). The caller owns min and max (buckets values each). Returns 0, or RESCUE_EINVAL
** when buckets < 1 or the span is empty or not finite.
*/
int rescue_peaks_bucket(const rescue_peaks *p, double from, double to, int buckets, float *min,
                        float *max);

#endif
