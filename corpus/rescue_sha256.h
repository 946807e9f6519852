/*
** rescue_sha256.h: SHA-256 (FIPS 180-4) for manifests and checksums (public).
** Portable C, with the x86 SHA extensions used when the CPU has them (chosen at run
** time), so hashing keeps up with writing a multi-gigabyte export.
**
**   rescue_sha256 h; char hex[65];
**   rescue_sha256_init(&h); rescue_sha256_update(&h, "abc", 3); rescue_sha256_hex(&h, hex);
**   // hex = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
*/
#ifndef RESCUE_SHA256_H
#define RESCUE_SHA256_H

#include <stddef.h>
#include <stdint.h>

typedef struct rescue_sha256 {
  uint32_t h[8];
  uint64_t total;        /* bytes hashed */
  unsigned char buf[64]; /* pending partial block */
  size_t n;              /* bytes in buf */
} rescue_sha256;

void rescue_sha256_init(rescue_sha256 *c);
void rescue_sha256_update(rescue_sha256 *c, const void *data, size_t len);
/* Finish: 32-byte digest; the context must be initialised again before reuse. */
void rescue_sha256_final(rescue_sha256 *c, unsigned char out[32]);
/* Finish into 64 lowercase hex digits and a NUL. */
void rescue_sha256_hex(rescue_sha256 *c, char out[65]);
/* 1 when the hardware path is in use (for benchmarks and tests). */
int rescue_sha256_accelerated(void);
/* Test hook: 0 forces the portable path, 1 restores the automatic choice. */
void rescue_sha256_allow_hw(int allow);

#endif
