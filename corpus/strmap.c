/*
** strmap.c: the string hash table of strmap_int.h, the one every module uses (sample ids,
** speaker names, ELAN ids, agreement names and values, score labels).
*/
#include "strmap_int.h"

#include <sys/mman.h>

#include "rescue_alloc.h"

void rescue_huge_pages(void *p, size_t n) {
#ifdef MADV_HUGEPAGE
  const uintptr_t huge = (uintptr_t)2 << 20;
  uintptr_t a = ((uintptr_t)p + huge - 1) & ~(huge - 1), e = ((uintptr_t)p + n) & ~(huge - 1);
  if (p && n >= (size_t)8 << 20 && e > a)
    (void)madvise((void *)a, e - a, MADV_HUGEPAGE); /* only a hint: failure changes nothing */
#else
  (void)p;
  (void)n;
#endif
}

/* Copied keys live in blocks that never move, so an entry's key pointer stays valid. */
struct rescue_strmap_block {
  struct rescue_strmap_block *next;
  size_t used, cap;
  char data[];
};

#define STRMAP_MAX_ENTRIES (1u << 30) /* slots (2 per entry) must fit the 32-bit mask */

/* Rehash into a slot array of at least 2 * need slots (a power of two). 0 or -1. */
static int strmap_rehash(rescue_strmap *m, uint32_t need) {
  uint64_t cap = 16, i;
  uint64_t *slots;
  while (cap < (uint64_t)need * 2)
    cap *= 2;
  if (m->mask && cap <= (uint64_t)m->mask + 1)
    return 0;
  if (!(slots = rescue_calloc((size_t)cap, sizeof *slots)))
    return -1;
  rescue_huge_pages(slots, (size_t)cap * sizeof *slots);
  for (i = 0; m->mask && i <= m->mask; i++) {
    uint64_t sl = m->slots[i];
    uint64_t j;
    if (!sl)
      continue;
    for (j = (sl >> 32) & (cap - 1); slots[j]; j = (j + 1) & (cap - 1))
      ;
    slots[j] = sl;
  }
  rescue_free(m->slots);
  m->slots = slots;
  m->mask = (uint32_t)(cap - 1);
  return 0;
}

int rescue_strmap_reserve(rescue_strmap *m, uint32_t n) {
  if (n > STRMAP_MAX_ENTRIES)
    return -1;
  if (n > m->cap) {
    rescue_strmap_entry *ent = rescue_realloc(m->ent, (size_t)n * sizeof *ent);
    if (!ent)
      return -1;
    m->ent = ent;
    m->cap = n;
    rescue_huge_pages(ent, (size_t)n * sizeof *ent);
  }
  return strmap_rehash(m, n);
}

/* A NUL-terminated copy of key[0..len) in m's blocks, or NULL when out of memory. */
static const char *strmap_copy(rescue_strmap *m, const char *key, size_t len) {
  struct rescue_strmap_block *b = m->blocks;
  char *at;
  if (!b || b->cap - b->used < len + 1) {
    size_t cap = b ? b->cap * 2 : 4096;
    if (cap > 1 << 20)
      cap = 1 << 20;
    if (cap < len + 1)
      cap = len + 1;
    if (!(b = rescue_malloc(sizeof *b + cap)))
      return NULL;
    b->next = m->blocks;
    b->used = 0;
    b->cap = cap;
    m->blocks = b;
  }
  at = b->data + b->used;
  if (len)
    memcpy(at, key, len);
  at[len] = 0;
  b->used += len + 1;
  return at;
}

int64_t rescue_strmap_add_h(rescue_strmap *m, const char *key, size_t len, uint32_t h,
                            intptr_t value) {
  rescue_strmap_entry *e;
  uint32_t i, j;
  if (len > UINT32_MAX - 1)
    return -1;
  if (m->n == m->cap || !m->mask || (uint64_t)(m->n + 1) * 2 > (uint64_t)m->mask + 1) {
    uint32_t want = m->n < m->cap ? m->cap : m->cap ? m->cap * 2 : 16;
    if (want > STRMAP_MAX_ENTRIES)
      want = STRMAP_MAX_ENTRIES;
    if (m->n == want || rescue_strmap_reserve(m, want))
      return -1;
  }
  if (m->copy && !(key = strmap_copy(m, key, len)))
    return -1;
  i = m->n++;
  e = &m->ent[i];
  e->key = key;
  e->len = (uint32_t)len;
  e->value = value;
  for (j = h & m->mask; m->slots[j]; j = (j + 1) & m->mask)
    ;
  m->slots[j] = (uint64_t)h << 32 | (i + 1);
  return i;
}

int64_t rescue_strmap_put_h(rescue_strmap *m, const char *key, size_t len, uint32_t h,
                            intptr_t value, int *added) {
  int64_t i = rescue_strmap_find_h(m, key, len, h);
  if (added)
    *added = 0;
  if (i >= 0)
    return i;
  if ((i = rescue_strmap_add_h(m, key, len, h, value)) >= 0 && added)
    *added = 1;
  return i;
}

void rescue_strmap_clear(rescue_strmap *m) {
  int copy = m->copy;
  while (m->blocks) {
    struct rescue_strmap_block *next = m->blocks->next;
    rescue_free(m->blocks);
    m->blocks = next;
  }
  rescue_free(m->slots);
  rescue_free(m->ent);
  memset(m, 0, sizeof *m);
  m->copy = copy;
}
