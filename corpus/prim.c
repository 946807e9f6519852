/*
** prim.c: the shared primitives of prim_int.h (FNV-1a, SplitMix64, hex, the UTF-8 step),
** each the one copy in the library.
*/
#include "prim_int.h"

uint64_t rescue_fnv1a64_n(const void *p, size_t n) {
  const unsigned char *s = p;
  uint64_t h = RESCUE_FNV1A64_BASIS;
  while (n--)
    h = rescue_fnv1a64_step(h, *s++);
  return h;
}

/* The shard hash (rescue_clip.h): FNV-1a of the NUL-terminated string. */
uint64_t rescue_fnv1a64(const char *s) {
  uint64_t h = RESCUE_FNV1A64_BASIS;
  for (; *s; s++)
    h = rescue_fnv1a64_step(h, (unsigned char)*s);
  return h;
}

uint64_t rescue_splitmix64(uint64_t *state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

uint64_t rescue_splitmix64_below(uint64_t *state, uint64_t n) {
  uint64_t limit = UINT64_MAX - UINT64_MAX % n, x;
  do
    x = rescue_splitmix64(state);
  while (x >= limit);
  return x % n;
}

void rescue_hex(const void *data, size_t n, char *out) {
  static const char digits[] = "0123456789abcdef";
  const unsigned char *d = data;
  size_t i;
  for (i = 0; i < n; i++) {
    out[2 * i] = digits[d[i] >> 4];
    out[2 * i + 1] = digits[d[i] & 15];
  }
  out[2 * n] = 0;
}

int rescue_utf8_step(const unsigned char *p, const unsigned char *end, uint32_t *cp) {
  unsigned c = p[0];
  int n, i;
  uint32_t v;
  if (c < 0x80) {
    if (cp)
      *cp = c;
    return 1;
  }
  if (c < 0xC2 || c > 0xF4)
    return 0; /* a continuation byte, an overlong lead (C0, C1), or beyond U+10FFFF */
  n = c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4;
  if (end - p < n)
    return 0;
  v = c & (0x7Fu >> n);
  for (i = 1; i < n; i++) {
    if ((p[i] & 0xC0) != 0x80)
      return 0;
    v = v << 6 | (p[i] & 0x3Fu);
  }
  if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000))
    return 0; /* overlong */
  if ((v >= 0xD800 && v <= 0xDFFF) || v > 0x10FFFF)
    return 0;
  if (cp)
    *cp = v;
  return n;
}
