/*
** prim_int.h: the small primitives every module shares, each written once (private to
** the library): the FNV-1a hash, the SplitMix64 generator and its bounded draw, and hex
** encoding.
*/
#ifndef RESCUE_PRIM_INT_H
#define RESCUE_PRIM_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rescue_clip.h" /* rescue_fnv1a64, public: the shard hash */

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

/*
** 64-bit FNV-1a (Fowler, Noll, Vo): h = offset basis; for each byte, h ^= byte, h *= prime.
** Hash tables and token sets use it; so does `rescue clip --shard` (rescue_fnv1a64 in
** rescue_clip.h, part of the shard contract), hence the exact constants.
**   rescue_fnv1a64("a") == 0xaf63dc4c8601ec8c
*/
#define RESCUE_FNV1A64_BASIS 14695981039346656037ULL
#define RESCUE_FNV1A64_PRIME 1099511628211ULL
/* One step: the hash of the bytes so far, then byte c. */
static inline uint64_t rescue_fnv1a64_step(uint64_t h, unsigned char c) {
  return (h ^ c) * RESCUE_FNV1A64_PRIME;
}
/* The hash of n bytes. */
uint64_t rescue_fnv1a64_n(const void *p, size_t n);

/*
** SplitMix64 (Steele, Lea and Flood, 2014): the library's seeded generator. Part of the
** user-facing contract "the same seed gives the same result on every machine": splits,
** annotator assignment and the bootstrap's seeding draw from it. The state starts at the
** seed; each call adds 0x9e3779b97f4a7c15 to it and returns the mixed state:
**   state = seed = 0: 0xe220a8397b1dcdaf, 0x6e789e6aa1b965f4, 0x06c45d188009454f, ...
** Changing it changes every split and assignment users have published: don't.
*/
uint64_t rescue_splitmix64(uint64_t *state);
/*
** Uniform draw in [0, n) (n > 0) from SplitMix64 without modulo bias: draws until the
** value is below the largest multiple of n, then takes it modulo n.
*/
uint64_t rescue_splitmix64_below(uint64_t *state, uint64_t n);

/* n bytes as 2n lowercase hex digits and a NUL (out holds 2n + 1). */
void rescue_hex(const void *data, size_t n, char *out);

/*
** One UTF-8 step: the character that starts at p (p < end). Returns its length in bytes
** (1 to 4) and, when cp is not NULL, its code point in *cp; or 0 when the bytes at p are not
** a well-formed character (RFC 3629, as jansson and Python read it): a stray continuation
** byte, C0/C1 or F5-FF, an overlong form, a surrogate (U+D800-DFFF), a value above
** U+10FFFF, or a sequence cut short by end. *cp is untouched then.
**   "\xC3\xA9" -> 2, U+00E9;  "\xE0\x80\x80" (overlong) -> 0;  "\xF0\x9F\x98\x80" -> 4, U+1F600
*/
int rescue_utf8_step(const unsigned char *p, const unsigned char *end, uint32_t *cp);

#pragma GCC visibility pop

#endif
