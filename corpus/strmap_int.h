/*
** strmap_int.h: the library's one string hash table (private): byte strings (pointer and
** length, so NULs and unterminated slices are fine) to dense indexes in insertion order,
** each entry carrying a small integer or pointer value.
**
**   rescue_strmap m = RESCUE_STRMAP_COPY;        // the map keeps its own copy of each key
**   int added;
**   int64_t i = rescue_strmap_put(&m, "anna", 4, 7, &added);   // 0, added = 1
**   rescue_strmap_find(&m, "anna", 4);           // 0; rescue_strmap_value(&m, 0) == 7
**   rescue_strmap_find(&m, "ben", 3);            // -1
**   for (i = 0; i < rescue_strmap_count(&m); i++) ... rescue_strmap_key(&m, i) ...
**   rescue_strmap_clear(&m);
**
** Open addressing with linear probing over a power-of-two slot array kept at most half
** full. A slot holds the key's 32-bit hash and its entry number, so a probe touches one
** 8-byte slot and reads the entry only when the hashes agree; growing rehashes from the
** slots alone. The hash is FNV-1a 64 (prim_int.h) folded to 32 bits.
*/
#ifndef RESCUE_STRMAP_INT_H
#define RESCUE_STRMAP_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "prim_int.h"

/* private to the library: not exported from librescue.so */
#pragma GCC visibility push(hidden)

typedef struct rescue_strmap_entry {
  const char *key; /* copied maps: the map's NUL-terminated copy; borrowed: the caller's */
  uint32_t len;    /* bytes of the key */
  intptr_t value;  /* whatever the caller stored: a number or a pointer */
} rescue_strmap_entry;

struct rescue_strmap_block; /* storage of copied keys (strmap.c) */

typedef struct rescue_strmap {
  uint64_t *slots;          /* hash << 32 | (entry + 1); 0: empty */
  uint32_t mask;            /* slots - 1; 0 while there are no slots */
  uint32_t n, cap;          /* entries used and allocated */
  rescue_strmap_entry *ent; /* the entries in insertion order */
  int copy;                 /* 1: keys are copied into the map, 0: borrowed */
  struct rescue_strmap_block *blocks;
} rescue_strmap;

/*
** Borrowed keys must stay where they are, unchanged, for as long as the map holds them;
** copied keys are the map's own (NUL-terminated, so rescue_strmap_key is a C string).
*/
#define RESCUE_STRMAP_BORROW                                                                       \
  { NULL, 0, 0, 0, NULL, 0, NULL }
#define RESCUE_STRMAP_COPY                                                                         \
  { NULL, 0, 0, 0, NULL, 1, NULL }

/* The table's hash of key[0..len): FNV-1a 64, upper half folded into the lower. */
static inline uint32_t rescue_strmap_hash(const void *key, size_t len) {
  uint64_t h = rescue_fnv1a64_n(key, len);
  return (uint32_t)(h ^ h >> 32);
}

/* a[0..n) == b[0..n), without a call for the short keys tables mostly hold. */
static inline int rescue_bytes_eq(const char *a, const char *b, size_t n) {
  if (n >= 4 && n <= 8) {
    uint32_t a0, a1, b0, b1;
    memcpy(&a0, a, 4);
    memcpy(&b0, b, 4);
    memcpy(&a1, a + n - 4, 4);
    memcpy(&b1, b + n - 4, 4);
    return a0 == b0 && a1 == b1;
  }
  if (n < 4) {
    size_t i;
    for (i = 0; i < n; i++)
      if (a[i] != b[i])
        return 0;
    return 1;
  }
  return memcmp(a, b, n) == 0;
}

/* The entry of key[0..len) whose hash is h (rescue_strmap_hash), or -1. */
static inline int64_t rescue_strmap_find_h(const rescue_strmap *m, const char *key, size_t len,
                                           uint32_t h) {
  uint32_t i;
  if (!m->mask)
    return -1;
  for (i = h & m->mask;; i = (i + 1) & m->mask) {
    uint64_t sl = m->slots[i];
    const rescue_strmap_entry *e;
    if (!sl)
      return -1;
    if ((uint32_t)(sl >> 32) != h)
      continue;
    e = &m->ent[(uint32_t)sl - 1];
    if (e->len == len && rescue_bytes_eq(e->key, key, len))
      return (uint32_t)sl - 1;
  }
}

/* The entry of key[0..len), or -1. */
static inline int64_t rescue_strmap_find(const rescue_strmap *m, const char *key, size_t len) {
  return rescue_strmap_find_h(m, key, len, rescue_strmap_hash(key, len));
}

/* Hint that hash h is about to be looked up (a large table misses the cache). */
static inline void rescue_strmap_prefetch(const rescue_strmap *m, uint32_t h) {
  if (m->mask)
    __builtin_prefetch(&m->slots[h & m->mask]);
}

/*
** Insert or find key[0..len) (hash h): its entry number, *added 1 when it was new (with
** value stored) and 0 when it was there (value left as it was; added may be NULL). -1 when
** out of memory or the key is longer than 4 GiB - 1; the map is then unchanged.
*/
int64_t rescue_strmap_put_h(rescue_strmap *m, const char *key, size_t len, uint32_t h,
                            intptr_t value, int *added);
static inline int64_t rescue_strmap_put(rescue_strmap *m, const char *key, size_t len,
                                        intptr_t value, int *added) {
  return rescue_strmap_put_h(m, key, len, rescue_strmap_hash(key, len), value, added);
}
/*
** Add key[0..len) (hash h) as a new entry without looking for it first: the caller has just
** seen rescue_strmap_find_h return -1. Its entry number, or -1 as rescue_strmap_put_h.
*/
int64_t rescue_strmap_add_h(rescue_strmap *m, const char *key, size_t len, uint32_t h,
                            intptr_t value);
/* Room for n entries without growing (0, or -1 when out of memory). */
int rescue_strmap_reserve(rescue_strmap *m, uint32_t n);
/*
** Hint that the n bytes at p, a large array about to be filled, are better backed by 2 MiB
** pages: a table of a million keys is then a few dozen page faults instead of thousands,
** and its random probes miss the TLB far less. Does nothing for arrays under 8 MiB or
** where the system has no such hint; changes no byte of the array.
*/
void rescue_huge_pages(void *p, size_t n);
/* Empty m and free what it holds (values are the caller's); it stays copying or borrowing. */
void rescue_strmap_clear(rescue_strmap *m);

/* Entries 0 .. count - 1, in the order they were added. */
static inline uint32_t rescue_strmap_count(const rescue_strmap *m) { return m->n; }
static inline const char *rescue_strmap_key(const rescue_strmap *m, uint32_t i) {
  return m->ent[i].key;
}
static inline uint32_t rescue_strmap_len(const rescue_strmap *m, uint32_t i) {
  return m->ent[i].len;
}
static inline intptr_t rescue_strmap_value(const rescue_strmap *m, uint32_t i) {
  return m->ent[i].value;
}
static inline void rescue_strmap_set_value(rescue_strmap *m, uint32_t i, intptr_t value) {
  m->ent[i].value = value;
}

#pragma GCC visibility pop

#endif
