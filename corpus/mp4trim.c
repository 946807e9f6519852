/*
** mp4trim.c: set the presentation length of each track of a finished mp4 file in place
** by editing its edit lists (elst), track headers (tkhd) and movie header (mvhd); sizes
** never change.
**
** Why: stream copy must keep every packet decoded before the last frame it shows, and
** with B-frames some of those (the next P-frame, a pyramid B-frame) show after the
** requested end. FFmpeg's mp4 muxer sizes each edit list to the last frame it was given,
** so without this a clip can run up to three frames long; with it, players and decoders
** present exactly the requested span (the muxer's edit list already hides the pre-roll
** before the requested start).
*/
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "media_int.h"
#include "rescue_alloc.h"

static uint32_t rd32(const unsigned char *p) {
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}
static uint64_t rd64(const unsigned char *p) { return (uint64_t)rd32(p) << 32 | rd32(p + 4); }
static void wr32(unsigned char *p, uint32_t v) {
  p[0] = (unsigned char)(v >> 24);
  p[1] = (unsigned char)(v >> 16);
  p[2] = (unsigned char)(v >> 8);
  p[3] = (unsigned char)v;
}
static void wr64(unsigned char *p, uint64_t v) {
  wr32(p, (uint32_t)(v >> 32));
  wr32(p + 4, (uint32_t)v);
}

/*
** Find the child box `type` inside [p, end): returns its payload start and sets *len,
** or NULL. Boxes with a size that does not fit are treated as absent.
*/
static unsigned char *child(unsigned char *p, unsigned char *end, const char *type, size_t *len) {
  while (end - p >= 8) {
    uint64_t size = rd32(p);
    size_t hdr = 8;
    if (size == 1) {
      if (end - p < 16)
        return NULL;
      size = rd64(p + 8);
      hdr = 16;
    } else if (size == 0) {
      size = (uint64_t)(end - p);
    }
    if (size < hdr || size > (uint64_t)(end - p))
      return NULL;
    if (memcmp(p + 4, type, 4) == 0) {
      *len = (size_t)size - hdr;
      return p + hdr;
    }
    p += size;
  }
  return NULL;
}

/* Set one trak's presentation to `want` movie-timescale units; returns the new length. */
static uint64_t trim_trak(unsigned char *trak, size_t len, uint64_t want) {
  size_t tl, el, hl;
  unsigned char *tkhd = child(trak, trak + len, "tkhd", &hl);
  unsigned char *edts = child(trak, trak + len, "edts", &tl);
  unsigned char *elst = edts ? child(edts, edts + tl, "elst", &el) : NULL;
  uint64_t total = 0, cur;
  uint32_t n, i, esz;
  int v;
  unsigned char *e, *last = NULL;

  if (!tkhd || hl < 4)
    return 0;
  v = tkhd[0];
  if ((v == 1 && hl < 36) || (v == 0 && hl < 24))
    return 0;
  cur = v == 1 ? rd64(tkhd + 28) : rd32(tkhd + 20);
  if (!elst || el < 8)
    return cur; /* no edit list: nothing to trim here */
  v = elst[0];
  n = rd32(elst + 4);
  esz = v == 1 ? 20 : 12;
  if ((uint64_t)n * esz > el - 8)
    return cur;
  for (i = 0, e = elst + 8; i < n; i++, e += esz) {
    uint64_t d = v == 1 ? rd64(e) : rd32(e);
    int64_t media = v == 1 ? (int64_t)rd64(e + 8) : (int64_t)(int32_t)rd32(e + 4);
    total += d;
    if (media != -1)
      last = e;
  }
  if (total != want && last) {
    uint64_t d = v == 1 ? rd64(last) : rd32(last), other = total - d;
    d = want > other ? want - other : 0;
    if (v == 1)
      wr64(last, d);
    else
      wr32(last, (uint32_t)d);
    total = other + d;
  }
  if (tkhd[0] == 1)
    wr64(tkhd + 28, total);
  else
    wr32(tkhd + 20, (uint32_t)total);
  return total;
}

/* The handler type of a trak ("vide", "soun", ...) or "" when it cannot be read. */
static void handler(unsigned char *trak, size_t len, char out[5]) {
  size_t ml, hl;
  unsigned char *mdia = child(trak, trak + len, "mdia", &ml);
  unsigned char *hdlr = mdia ? child(mdia, mdia + ml, "hdlr", &hl) : NULL;
  out[0] = 0;
  if (hdlr && hl >= 12) {
    memcpy(out, hdlr + 8, 4);
    out[4] = 0;
  }
}

int mp4_set_edits(const char *path, double video, double audio, rescue_error *err) {
  FILE *f = fopen(path, "r+b");
  unsigned char hdr[16], *moov = NULL, *p, *end, *mvhd;
  long long pos = 0, moov_pos = -1;
  uint64_t moov_len = 0, longest = 0;
  uint32_t timescale;
  size_t ml;
  int rc = 0;

  if (!f)
    return rescue_seterr(err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  /* find the top-level moov box */
  for (;;) {
    uint64_t size;
    size_t hl = 8;
    if (fseeko(f, (off_t)pos, SEEK_SET) != 0 || fread(hdr, 1, 8, f) != 8)
      break;
    size = rd32(hdr);
    if (size == 1) {
      if (fread(hdr + 8, 1, 8, f) != 8)
        break;
      size = rd64(hdr + 8);
      hl = 16;
    }
    if (size == 0 || size < hl)
      break;
    if (memcmp(hdr + 4, "moov", 4) == 0) {
      moov_pos = pos + (long long)hl;
      moov_len = size - hl;
      break;
    }
    pos += (long long)size;
  }
  if (moov_pos < 0 || moov_len > (64u << 20)) {
    rc = rescue_seterr(err, RESCUE_EMEDIA, "'%s': no movie header to trim", path);
    goto end;
  }
  moov = rescue_malloc((size_t)moov_len);
  if (!moov) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if (fseeko(f, (off_t)moov_pos, SEEK_SET) != 0 ||
      fread(moov, 1, (size_t)moov_len, f) != moov_len) {
    rc = rescue_seterr(err, RESCUE_EIO, "reading '%s'", path);
    goto end;
  }
  end = moov + moov_len;
  mvhd = child(moov, end, "mvhd", &ml);
  if (!mvhd || ml < 32) {
    rc = rescue_seterr(err, RESCUE_EMEDIA, "'%s': bad movie header", path);
    goto end;
  }
  timescale = mvhd[0] == 1 ? rd32(mvhd + 20) : rd32(mvhd + 12);
  for (p = moov; end - p >= 8;) {
    size_t tl;
    unsigned char *trak = child(p, end, "trak", &tl);
    uint64_t got;
    char h[5];
    if (!trak)
      break;
    handler(trak, tl, h);
    got =
        trim_trak(trak, tl, (uint64_t)((strcmp(h, "soun") == 0 ? audio : video) * timescale + 0.5));
    if (got > longest)
      longest = got;
    p = trak + tl;
  }
  if (mvhd[0] == 1)
    wr64(mvhd + 24, longest);
  else
    wr32(mvhd + 16, (uint32_t)longest);
  if (fseeko(f, (off_t)moov_pos, SEEK_SET) != 0 || fwrite(moov, 1, (size_t)moov_len, f) != moov_len)
    rc = rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(errno));
end:
  rescue_free(moov);
  if (fclose(f) != 0 && !rc)
    rc = rescue_seterr(err, RESCUE_EIO, "writing '%s': %s", path, strerror(errno));
  return rc;
}
