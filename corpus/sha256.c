/*
** sha256.c: SHA-256 (FIPS 180-4), portable, plus the x86 SHA-NI block function
** (Intel's published round structure) chosen at run time when the CPU has it.
*/
#include <string.h>

#include "rescue_sha256.h"

#include "prim_int.h"

#if defined(__x86_64__) || defined(__i386__)
#define RESCUE_SHA_X86 1
#include <cpuid.h>
#include <immintrin.h>
#endif

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

/* Hash nblocks 64-byte blocks into h, in plain C. */
static void blocks_c(uint32_t h[8], const unsigned char *p, size_t nblocks) {
  while (nblocks--) {
    uint32_t w[64], a, b, c, d, e, f, g, hh;
    int i;
    for (i = 0; i < 16; i++)
      w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 |
             (uint32_t)p[4 * i + 3];
    for (i = 16; i < 64; i++) {
      uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
      uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    a = h[0], b = h[1], c = h[2], d = h[3], e = h[4], f = h[5], g = h[6], hh = h[7];
    for (i = 0; i < 64; i++) {
      uint32_t t1 = hh + (ROR(e, 6) ^ ROR(e, 11) ^ ROR(e, 25)) + ((e & f) ^ (~e & g)) + K[i] + w[i];
      uint32_t t2 = (ROR(a, 2) ^ ROR(a, 13) ^ ROR(a, 22)) + ((a & b) ^ (a & c) ^ (b & c));
      hh = g, g = f, f = e, e = d + t1, d = c, c = b, b = a, a = t1 + t2;
    }
    h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e, h[5] += f, h[6] += g, h[7] += hh;
    p += 64;
  }
}

#ifdef RESCUE_SHA_X86
/*
** The same with the SHA extensions. The state lives as ABEF/CDGH; each group of four
** rounds adds K to four schedule words, runs two sha256rnds2, and advances the message
** schedule with sha256msg1/msg2 over a ring of four registers (words 4i..4i+3 in M[i%4]).
*/
__attribute__((target("sha,sse4.1,ssse3"))) static void
blocks_ni(uint32_t h[8], const unsigned char *p, size_t nblocks) {
  const __m128i mask = _mm_set_epi64x(0x0c0d0e0f08090a0bULL, 0x0405060700010203ULL);
  __m128i s0, s1, tmp, msg, m[4], abef, cdgh;
  int i;
  tmp = _mm_loadu_si128((const __m128i *)&h[0]);
  s1 = _mm_loadu_si128((const __m128i *)&h[4]);
  tmp = _mm_shuffle_epi32(tmp, 0xB1);
  s1 = _mm_shuffle_epi32(s1, 0x1B);
  s0 = _mm_alignr_epi8(tmp, s1, 8);
  s1 = _mm_blend_epi16(s1, tmp, 0xF0);
  while (nblocks--) {
    abef = s0;
    cdgh = s1;
    for (i = 0; i < 16; i++) {
      if (i < 4)
        m[i] = _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)(p + 16 * i)), mask);
      msg = _mm_add_epi32(m[i & 3], _mm_loadu_si128((const __m128i *)&K[4 * i]));
      s1 = _mm_sha256rnds2_epu32(s1, s0, msg);
      if (i >= 3 && i < 15) {
        tmp = _mm_alignr_epi8(m[i & 3], m[(i - 1) & 3], 4);
        m[(i + 1) & 3] = _mm_add_epi32(m[(i + 1) & 3], tmp);
        m[(i + 1) & 3] = _mm_sha256msg2_epu32(m[(i + 1) & 3], m[i & 3]);
      }
      msg = _mm_shuffle_epi32(msg, 0x0E);
      s0 = _mm_sha256rnds2_epu32(s0, s1, msg);
      if (i >= 1 && i < 13)
        m[(i - 1) & 3] = _mm_sha256msg1_epu32(m[(i - 1) & 3], m[i & 3]);
    }
    s0 = _mm_add_epi32(s0, abef);
    s1 = _mm_add_epi32(s1, cdgh);
    p += 64;
  }
  tmp = _mm_shuffle_epi32(s0, 0x1B);
  s1 = _mm_shuffle_epi32(s1, 0xB1);
  s0 = _mm_blend_epi16(tmp, s1, 0xF0);
  s1 = _mm_alignr_epi8(s1, tmp, 8);
  _mm_storeu_si128((__m128i *)&h[0], s0);
  _mm_storeu_si128((__m128i *)&h[4], s1);
}

/* CPUID: SSSE3 and SSE4.1 (leaf 1 ecx bits 9, 19) and SHA (leaf 7 ebx bit 29). */
static int cpu_has_sha(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid(1, &a, &b, &c, &d) || !(c & (1u << 9)) || !(c & (1u << 19)))
    return 0;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d))
    return 0;
  return (b >> 29) & 1;
}
#endif

static int hw_state = -1; /* -1 unknown, 0 portable, 1 SHA-NI */
static int hw_allowed = 1;

int rescue_sha256_accelerated(void) {
  if (hw_state < 0) {
#ifdef RESCUE_SHA_X86
    hw_state = cpu_has_sha();
#else
    hw_state = 0;
#endif
  }
  return hw_state && hw_allowed;
}

void rescue_sha256_allow_hw(int allow) { hw_allowed = allow != 0; }

static void blocks(uint32_t h[8], const unsigned char *p, size_t nblocks) {
#ifdef RESCUE_SHA_X86
  if (rescue_sha256_accelerated()) {
    blocks_ni(h, p, nblocks);
    return;
  }
#endif
  blocks_c(h, p, nblocks);
}

void rescue_sha256_init(rescue_sha256 *c) {
  static const uint32_t iv[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                                 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  memcpy(c->h, iv, sizeof iv);
  c->total = 0;
  c->n = 0;
}

void rescue_sha256_update(rescue_sha256 *c, const void *data, size_t len) {
  const unsigned char *p = data;
  c->total += len;
  if (c->n) {
    size_t take = 64 - c->n < len ? 64 - c->n : len;
    memcpy(c->buf + c->n, p, take);
    c->n += take;
    p += take;
    len -= take;
    if (c->n < 64)
      return;
    blocks(c->h, c->buf, 1);
    c->n = 0;
  }
  if (len >= 64) {
    blocks(c->h, p, len / 64);
    p += len & ~(size_t)63;
    len &= 63;
  }
  memcpy(c->buf, p, len);
  c->n = len;
}

void rescue_sha256_final(rescue_sha256 *c, unsigned char out[32]) {
  uint64_t bits = c->total * 8;
  int i;
  c->buf[c->n++] = 0x80;
  if (c->n > 56) {
    memset(c->buf + c->n, 0, 64 - c->n);
    blocks(c->h, c->buf, 1);
    c->n = 0;
  }
  memset(c->buf + c->n, 0, 56 - c->n);
  for (i = 0; i < 8; i++)
    c->buf[56 + i] = (unsigned char)(bits >> (56 - 8 * i));
  blocks(c->h, c->buf, 1);
  for (i = 0; i < 8; i++) {
    out[4 * i] = (unsigned char)(c->h[i] >> 24);
    out[4 * i + 1] = (unsigned char)(c->h[i] >> 16);
    out[4 * i + 2] = (unsigned char)(c->h[i] >> 8);
    out[4 * i + 3] = (unsigned char)c->h[i];
  }
}

void rescue_sha256_hex(rescue_sha256 *c, char out[65]) {
  unsigned char d[32];
  rescue_sha256_final(c, d);
  rescue_hex(d, sizeof d, out);
}
