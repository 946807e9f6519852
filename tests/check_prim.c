/*
** check_prim.c: the shared primitives of prim_int.h and the one string hash table
** (strmap_int.h): FNV-1a vectors, many keys, keys with NULs and common prefixes, growth,
** borrowed and copied keys, insertion order, and every allocation failure.
*/
#include <dirent.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "prim_int.h"
#include "strmap_int.h"
#include "testutil.h"

START_TEST(test_fnv1a) {
  /* published FNV-1a 64 vectors */
  ck_assert_uint_eq(rescue_fnv1a64_n("", 0), 0xcbf29ce484222325ULL);
  ck_assert_uint_eq(rescue_fnv1a64_n("a", 1), 0xaf63dc4c8601ec8cULL);
  ck_assert_uint_eq(rescue_fnv1a64_n("foobar", 6), 0x85944171f73967e8ULL);
  ck_assert_uint_eq(rescue_fnv1a64("foobar"), 0x85944171f73967e8ULL);
  /* a NUL inside counts as a byte */
  ck_assert_uint_ne(rescue_fnv1a64_n("a\0b", 3), rescue_fnv1a64_n("a", 1));
}
END_TEST

/* key number i: "k<i>" */
static int key_of(char *out, int i) { return snprintf(out, 32, "k%d", i); }

START_TEST(test_many_keys) {
  rescue_strmap m = RESCUE_STRMAP_COPY;
  char k[32];
  int i, added, n = 100000;
  for (i = 0; i < n; i++) {
    int len = key_of(k, i);
    int64_t e = rescue_strmap_put(&m, k, (size_t)len, i * 3, &added);
    ck_assert_int_eq(e, i);
    ck_assert_int_eq(added, 1);
  }
  ck_assert_uint_eq(rescue_strmap_count(&m), (unsigned)n);
  for (i = 0; i < n; i++) {
    int len = key_of(k, i);
    int64_t e = rescue_strmap_find(&m, k, (size_t)len);
    ck_assert_int_eq(e, i);
    ck_assert_int_eq(rescue_strmap_value(&m, (uint32_t)e), i * 3);
    /* insert again: found, value unchanged */
    ck_assert_int_eq(rescue_strmap_put(&m, k, (size_t)len, -1, &added), i);
    ck_assert_int_eq(added, 0);
    ck_assert_int_eq(rescue_strmap_value(&m, (uint32_t)i), i * 3);
    /* copied keys are C strings */
    ck_assert_str_eq(rescue_strmap_key(&m, (uint32_t)i), k);
    ck_assert_uint_eq(rescue_strmap_len(&m, (uint32_t)i), (unsigned)len);
  }
  ck_assert_uint_eq(rescue_strmap_count(&m), (unsigned)n);
  /* absent keys, including near misses */
  ck_assert_int_eq(rescue_strmap_find(&m, "k", 1), -1);
  ck_assert_int_eq(rescue_strmap_find(&m, "k100000", 7), -1);
  ck_assert_int_eq(rescue_strmap_find(&m, "k-1", 3), -1);
  ck_assert_int_eq(rescue_strmap_find(&m, "", 0), -1);
  /* the slots stay at most half full */
  ck_assert_uint_ge((uint64_t)m.mask + 1, 2 * (uint64_t)n);
  rescue_strmap_clear(&m);
  ck_assert_uint_eq(rescue_strmap_count(&m), 0);
  ck_assert_int_eq(rescue_strmap_find(&m, "k1", 2), -1);
  ck_assert_int_eq(m.copy, 1); /* clear keeps the mode: the map can be used again */
  ck_assert_int_eq(rescue_strmap_put(&m, "k1", 2, 5, NULL), 0);
  rescue_strmap_clear(&m);
}
END_TEST

START_TEST(test_nuls_and_prefixes) {
  /* keys that differ only after a NUL, by length, or in their last byte */
  static const char *const keys[] = {"",
                                     "a",
                                     "a\0",
                                     "a\0b",
                                     "a\0c",
                                     "ab",
                                     "abc",
                                     "abcd",
                                     "abcde",
                                     "abcdefgh",
                                     "abcdefgi",
                                     "abcdefghi",
                                     "\0",
                                     "\0\0",
                                     "abcdefghijklmnopqrstuvwxyz0123456789",
                                     "abcdefghijklmnopqrstuvwxyz0123456788"};
  static const size_t lens[] = {0, 1, 2, 3, 3, 2, 3, 4, 5, 8, 8, 9, 1, 2, 36, 36};
  rescue_strmap c = RESCUE_STRMAP_COPY, b = RESCUE_STRMAP_BORROW;
  size_t i, n = sizeof lens / sizeof lens[0];
  int added;
  for (i = 0; i < n; i++) {
    ck_assert_int_eq(rescue_strmap_put(&c, keys[i], lens[i], (intptr_t)i, &added), (int64_t)i);
    ck_assert_int_eq(added, 1);
    ck_assert_int_eq(rescue_strmap_put(&b, keys[i], lens[i], (intptr_t)i, &added), (int64_t)i);
    ck_assert_int_eq(added, 1);
  }
  for (i = 0; i < n; i++) {
    ck_assert_int_eq(rescue_strmap_find(&c, keys[i], lens[i]), (int64_t)i);
    ck_assert_int_eq(rescue_strmap_find(&b, keys[i], lens[i]), (int64_t)i);
    /* the copy holds the same bytes, NUL-terminated; the borrowed map the caller's pointer */
    ck_assert_uint_eq(rescue_strmap_len(&c, (uint32_t)i), lens[i]);
    ck_assert_int_eq(memcmp(rescue_strmap_key(&c, (uint32_t)i), keys[i], lens[i]), 0);
    ck_assert_int_eq(rescue_strmap_key(&c, (uint32_t)i)[lens[i]], 0);
    ck_assert_ptr_ne(rescue_strmap_key(&c, (uint32_t)i), keys[i]);
    ck_assert_ptr_eq(rescue_strmap_key(&b, (uint32_t)i), keys[i]);
  }
  ck_assert_int_eq(rescue_strmap_find(&c, "a\0d", 3), -1);
  ck_assert_int_eq(rescue_strmap_find(&c, "abcdefgj", 8), -1);
  ck_assert_int_eq(rescue_strmap_find(&c, "\0\0\0", 3), -1);
  /* an unterminated slice of a longer string finds its key */
  ck_assert_int_eq(rescue_strmap_find(&c, "abcdefghXYZ", 8), 9);
  rescue_strmap_clear(&c);
  rescue_strmap_clear(&b);
  ck_assert_int_eq(b.copy, 0);
}
END_TEST

/* Every slot holds a live entry once, and each entry is in exactly one slot. */
static void check_slots(const rescue_strmap *m) {
  uint64_t i, used = 0;
  for (i = 0; m->mask && i <= m->mask; i++)
    if (m->slots[i]) {
      uint32_t e = (uint32_t)m->slots[i] - 1;
      ck_assert_uint_lt(e, m->n);
      ck_assert_uint_eq((uint32_t)(m->slots[i] >> 32),
                        rescue_strmap_hash(m->ent[e].key, m->ent[e].len));
      used++;
    }
  ck_assert_uint_eq(used, m->n);
}

START_TEST(test_growth) {
  /* across many sizes, with and without a reservation; all keys found after each growth */
  static const int sizes[] = {1, 7, 8, 9, 15, 16, 17, 63, 64, 65, 1000, 4097};
  size_t s;
  for (s = 0; s < sizeof sizes / sizeof sizes[0]; s++) {
    int reserve;
    for (reserve = 0; reserve < 2; reserve++) {
      rescue_strmap m = RESCUE_STRMAP_COPY;
      char k[32];
      int i, j;
      uint32_t mask = 0;
      if (reserve) {
        ck_assert_int_eq(rescue_strmap_reserve(&m, (uint32_t)sizes[s]), 0);
        mask = m.mask;
        ck_assert_uint_ge(m.cap, (unsigned)sizes[s]);
      }
      for (i = 0; i < sizes[s]; i++) {
        int len = key_of(k, i * 7919);
        ck_assert_int_eq(rescue_strmap_put(&m, k, (size_t)len, i, NULL), i);
        if (!reserve && m.mask != mask) {
          /* it grew: every key so far is still there */
          mask = m.mask;
          check_slots(&m);
          for (j = 0; j <= i; j++) {
            len = key_of(k, j * 7919);
            ck_assert_int_eq(rescue_strmap_find(&m, k, (size_t)len), j);
          }
        }
      }
      if (reserve)
        ck_assert_uint_eq(m.mask, mask); /* a reservation means no growth */
      check_slots(&m);
      ck_assert_uint_eq(rescue_strmap_count(&m), (unsigned)sizes[s]);
      rescue_strmap_clear(&m);
    }
  }
}
END_TEST

START_TEST(test_order_and_values) {
  /* iteration is insertion order; values hold numbers or pointers */
  static const char *const names[] = {"zeta", "alpha", "mu", "beta"};
  static int targets[4];
  rescue_strmap m = RESCUE_STRMAP_BORROW;
  uint32_t i;
  for (i = 0; i < 4; i++)
    ck_assert_int_eq(rescue_strmap_put(&m, names[i], strlen(names[i]), (intptr_t)&targets[i], NULL),
                     (int64_t)i);
  ck_assert_int_eq(rescue_strmap_put(&m, "alpha", 5, 0, NULL), 1);
  for (i = 0; i < rescue_strmap_count(&m); i++) {
    ck_assert_str_eq(rescue_strmap_key(&m, i), names[i]);
    ck_assert_ptr_eq((int *)rescue_strmap_value(&m, i), &targets[i]);
  }
  rescue_strmap_set_value(&m, 2, -7);
  ck_assert_int_eq(rescue_strmap_value(&m, 2), -7);
  /* add_h after a miss */
  {
    uint32_t h = rescue_strmap_hash("omega", 5);
    ck_assert_int_eq(rescue_strmap_find_h(&m, "omega", 5, h), -1);
    ck_assert_int_eq(rescue_strmap_add_h(&m, "omega", 5, h, 9), 4);
    ck_assert_int_eq(rescue_strmap_find(&m, "omega", 5), 4);
  }
  rescue_strmap_clear(&m);
}
END_TEST

START_TEST(test_alloc_failures) {
  /*
  ** Fail each allocation in turn while 300 keys go in: a failed put returns -1 and leaves
  ** the map as it was (every earlier key found, the failed one absent); after the failure
  ** is lifted the same map takes the rest.
  */
  unsigned long nth;
  int failures = 0;
  for (nth = 1; nth < 40; nth++) {
    rescue_strmap m = RESCUE_STRMAP_COPY;
    char k[32];
    int i, j, failed_at = -1;
    rescue_alloc_fail_at(nth);
    for (i = 0; i < 300; i++) {
      int len = key_of(k, i);
      int64_t e = rescue_strmap_put(&m, k, (size_t)len, i, NULL);
      if (e < 0) {
        ck_assert_int_eq(e, -1);
        failed_at = i;
        break;
      }
      ck_assert_int_eq(e, i);
    }
    rescue_alloc_fail_at(0);
    if (failed_at < 0) {
      rescue_strmap_clear(&m);
      break; /* nth is past the last allocation */
    }
    failures++;
    ck_assert_uint_eq(rescue_strmap_count(&m), (unsigned)failed_at);
    for (j = 0; j < failed_at; j++) {
      int len = key_of(k, j);
      ck_assert_int_eq(rescue_strmap_find(&m, k, (size_t)len), j);
    }
    key_of(k, failed_at);
    ck_assert_int_eq(rescue_strmap_find(&m, k, strlen(k)), -1);
    for (i = failed_at; i < 300; i++) {
      int len = key_of(k, i);
      ck_assert_int_eq(rescue_strmap_put(&m, k, (size_t)len, i, NULL), i);
    }
    check_slots(&m);
    rescue_strmap_clear(&m);
  }
  ck_assert_int_gt(failures, 5);
  ck_assert_uint_lt(nth, 40);
  /* a failed reservation is reported too */
  {
    rescue_strmap m = RESCUE_STRMAP_BORROW;
    rescue_alloc_fail_at(1);
    ck_assert_int_eq(rescue_strmap_reserve(&m, 100), -1);
    rescue_alloc_fail_at(0);
    ck_assert_int_eq(rescue_strmap_reserve(&m, 1u << 31), -1); /* more than the table holds */
    rescue_strmap_clear(&m);
  }
}
END_TEST

/* ---- RESCUE_ALLOC_GROW ---- */

START_TEST(test_alloc_grow_appends) {
  int *v = NULL, cap = 0, n, reallocs = 0;
  size_t *w = NULL, wcap = 0;
  uint32_t *u = NULL, ucap = 0;
  long long *ll = NULL;
  long llcap = 0;
  for (n = 0; n < 200000; n++) {
    int old = cap;
    ck_assert_int_eq(RESCUE_ALLOC_GROW(v, n + 1, cap), 0);
    reallocs += cap != old;
    ck_assert_int_ge(cap, n + 1);
    v[n] = n * 7;
  }
  for (n = 0; n < 200000; n++)
    ck_assert_int_eq(v[n], n * 7); /* growth keeps what was there */
  /* doubling: about log2(2e5 / 16) growth steps, not one per append */
  ck_assert_int_le(reallocs, 20);
  /* room already there: nothing changes */
  {
    int *same = v, c0 = cap;
    ck_assert_int_eq(RESCUE_ALLOC_GROW(v, 10, cap), 0);
    ck_assert_ptr_eq(v, same);
    ck_assert_int_eq(cap, c0);
  }
  /* a jump past double takes exactly what is asked */
  ck_assert_int_eq(RESCUE_ALLOC_GROW(w, 5000, wcap), 0);
  ck_assert_uint_eq(wcap, 5000);
  w[4999] = 1;
  /* other capacity types */
  ck_assert_int_eq(RESCUE_ALLOC_GROW(u, 1, ucap), 0);
  ck_assert_uint_eq(ucap, 16);
  ck_assert_int_eq(RESCUE_ALLOC_GROW(u, 17, ucap), 0);
  ck_assert_uint_eq(ucap, 32);
  ck_assert_int_eq(RESCUE_ALLOC_GROW(ll, 3, llcap), 0);
  ck_assert_int_eq(llcap, 16);
  /* need 0 with nothing allocated allocates nothing */
  {
    char *c = NULL;
    unsigned ccap = 0;
    ck_assert_int_eq(RESCUE_ALLOC_GROW(c, 0, ccap), 0);
    ck_assert_ptr_null(c);
  }
  rescue_free(v);
  rescue_free(w);
  rescue_free(u);
  rescue_free(ll);
}
END_TEST

START_TEST(test_alloc_grow_refuses) {
  typedef struct {
    char b[1 << 20];
  } big;
  int *v = NULL, cap = 0;
  big *b = NULL;
  size_t bcap = 0;
  unsigned char *c = NULL;
  unsigned ccap = 0;
  long lcap = 0;
  double *d = NULL;
  /* beyond the capacity's type: refused, nothing changed */
  ck_assert_int_eq(RESCUE_ALLOC_GROW(v, 4, cap), 0);
  v[3] = 42;
  ck_assert_int_eq(RESCUE_ALLOC_GROW(v, (size_t)INT_MAX + 1, cap), -1);
  ck_assert_int_eq(cap, 16);
  ck_assert_int_eq(v[3], 42);
  ck_assert_int_eq(RESCUE_ALLOC_GROW(c, (size_t)UINT_MAX + 1, ccap), -1);
  ck_assert_ptr_null(c);
  ck_assert_uint_eq(ccap, 0);
  /* a negative count (an int that went wrong) is refused, not wrapped */
  ck_assert_int_eq(RESCUE_ALLOC_GROW(d, -1, lcap), -1);
  ck_assert_int_eq(lcap, 0);
  /* bytes beyond a size_t: refused before asking for memory */
  ck_assert_int_eq(RESCUE_ALLOC_GROW(b, SIZE_MAX / sizeof *b + 1, bcap), -1);
  ck_assert_ptr_null(b);
  ck_assert_uint_eq(bcap, 0);
  /* the first allocation failing leaves the array absent */
  {
    unsigned char *e = NULL;
    unsigned ecap = 0;
    rescue_alloc_fail_at(1);
    ck_assert_int_eq(RESCUE_ALLOC_GROW(e, 1, ecap), -1); /* the allocation failed */
    rescue_alloc_fail_at(0);
    ck_assert_ptr_null(e);
    ck_assert_uint_eq(ecap, 0);
  }
  /* out of memory: p and cap as they were, the old block still owned */
  rescue_alloc_fail_at(1);
  ck_assert_int_eq(RESCUE_ALLOC_GROW(v, 17, cap), -1);
  rescue_alloc_fail_at(0);
  ck_assert_int_eq(cap, 16);
  ck_assert_int_eq(v[3], 42);
  rescue_free(v);
}
END_TEST

/* ---- the UTF-8 step ---- */

/* rescue_utf8_step over the n bytes of s; *cp gets the code point (0xFFFFFFFF when refused). */
static int step(const char *s, size_t n, uint32_t *cp) {
  *cp = 0xFFFFFFFFu;
  return rescue_utf8_step((const unsigned char *)s, (const unsigned char *)s + n, cp);
}

START_TEST(test_utf8_step) {
  uint32_t cp;
  size_t i;
  /* valid: one of each length, and the edges of each range */
  static const struct {
    const char *s;
    int len;
    uint32_t cp;
  } ok[] = {{"A", 1, 0x41},
            {"\x7F", 1, 0x7F},
            {"\xC2\x80", 2, 0x80},
            {"\xC3\xA9", 2, 0xE9},
            {"\xDF\xBF", 2, 0x7FF},
            {"\xE0\xA0\x80", 3, 0x800},
            {"\xE2\x82\xAC", 3, 0x20AC},
            {"\xED\x9F\xBF", 3, 0xD7FF},
            {"\xEE\x80\x80", 3, 0xE000},
            {"\xEF\xBF\xBF", 3, 0xFFFF},
            {"\xF0\x90\x80\x80", 4, 0x10000},
            {"\xF0\x9F\x98\x80", 4, 0x1F600},
            {"\xF4\x8F\xBF\xBF", 4, 0x10FFFF}};
  /* refused: stray continuation, overlongs, surrogates, above U+10FFFF, bad leads */
  static const char *const bad[] = {
      "\x80",         "\xBF",         "\xC0\x80",         "\xC1\xBF",
      "\xE0\x80\x80", "\xE0\x9F\xBF", "\xF0\x80\x80\x80", "\xF0\x8F\xBF\xBF",
      "\xED\xA0\x80", "\xED\xBF\xBF", "\xF4\x90\x80\x80", "\xF5\x80\x80\x80",
      "\xFF",         "\xC3\x41",     "\xE2\x82\x41",     "\xF0\x9F\x98\xC3"};
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    ck_assert_int_eq(step(ok[i].s, strlen(ok[i].s), &cp), ok[i].len);
    ck_assert_uint_eq(cp, ok[i].cp);
    /* trailing bytes after the character do not matter */
    {
      char b[8];
      memcpy(b, ok[i].s, (size_t)ok[i].len);
      b[ok[i].len] = '\x80';
      ck_assert_int_eq(step(b, (size_t)ok[i].len + 1, &cp), ok[i].len);
    }
    /* cp may be NULL */
    ck_assert_int_eq(rescue_utf8_step((const unsigned char *)ok[i].s,
                                      (const unsigned char *)ok[i].s + ok[i].len, NULL),
                     ok[i].len);
  }
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    ck_assert_msg(step(bad[i], strlen(bad[i]), &cp) == 0, "bad[%zu] taken", i);
    ck_assert_uint_eq(cp, 0xFFFFFFFFu);
  }
  /* truncated: every valid multi-byte character cut short by end */
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++) {
    int k;
    for (k = 1; k < ok[i].len; k++)
      ck_assert_msg(step(ok[i].s, (size_t)k, &cp) == 0, "ok[%zu] cut at %d taken", i, k);
  }
  /* the NUL byte is a character of its own */
  ck_assert_int_eq(step("\0", 1, &cp), 1);
  ck_assert_uint_eq(cp, 0);
  /* rescue_utf8_valid (rescue_json.h) agrees with the step */
  ck_assert_int_eq(rescue_utf8_valid("a\xC3\xA9\xF0\x9F\x98\x80", 7), 1);
  ck_assert_int_eq(rescue_utf8_valid("a\xED\xA0\x80", 4), 0);
  ck_assert_int_eq(rescue_utf8_valid("\xE2\x82", 2), 0);
}
END_TEST

/* ---- one file, all or nothing (rescue_output.h) ---- */

/* Entries of dir other than "." and "..", and how many end in ".part". */
static int entries(const char *dir, int *parts) {
  DIR *d = opendir(dir);
  struct dirent *e;
  int n = 0;
  *parts = 0;
  ck_assert_ptr_nonnull(d);
  while ((e = readdir(d))) {
    size_t len = strlen(e->d_name);
    if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
      continue;
    n++;
    *parts += len > 5 && !strcmp(e->d_name + len - 5, ".part");
  }
  closedir(d);
  return n;
}

START_TEST(test_atomic_write) {
  char *dir = tu_tmpdir(), *t, want[64], *got;
  const char *path = tu_path(dir, "data.json");
  rescue_error err = RESCUE_ERROR_INIT;
  int parts;
  size_t len;
  /* the temporary name: hidden, same folder, the pid */
  snprintf(want, sizeof want, "a/b/.c.json.%ld.part", (long)getpid());
  ck_assert_str_eq(t = rescue_file_tmpname("a/b/c.json"), want);
  rescue_free(t);
  snprintf(want, sizeof want, ".c.%ld.part", (long)getpid());
  ck_assert_str_eq(t = rescue_file_tmpname("c"), want);
  rescue_free(t);
  /* a 250-byte name (the limit is 255): the temporary's name is cut to fit, and the
     write goes through */
  {
    char longname[251];
    const char *lp;
    memset(longname, 'n', 250);
    longname[250] = 0;
    lp = tu_path(dir, longname);
    t = rescue_file_tmpname(lp);
    ck_assert_uint_le(strlen(strrchr(t, '/') + 1), 255);
    rescue_free(t);
    ck_assert_int_eq(rescue_file_write_atomic(lp, "long", 4, &err), 0);
    ck_assert_str_eq(got = tu_read(lp, &len), "long");
    free(got);
    ck_assert_int_eq(unlink(lp), 0);
  }
  /* a new file, then replaced; no temporary left */
  ck_assert_int_eq(rescue_file_write_atomic(path, "first\n", 6, &err), 0);
  ck_assert_str_eq(got = tu_read(path, &len), "first\n");
  free(got);
  ck_assert_int_eq(rescue_file_write_atomic(path, "second", 6, &err), 0);
  ck_assert_str_eq(got = tu_read(path, &len), "second");
  free(got);
  ck_assert_int_eq(rescue_file_write_atomic(path, "", 0, &err), 0);
  ck_assert_ptr_nonnull(got = tu_read(path, &len));
  ck_assert_uint_eq(len, 0);
  free(got);
  ck_assert_int_eq(entries(dir, &parts), 1);
  ck_assert_int_eq(parts, 0);
  /* the rename fails (a folder stands at the path): the folder stays, no temporary */
  {
    const char *sub = tu_path(dir, "taken");
    tu_write(tu_path(sub, "inside"), "kept");
    ck_assert_int_eq(rescue_file_write_atomic(sub, "new", 3, &err), RESCUE_EIO);
    ck_assert_msg(strstr(err.msg, "cannot rename") != NULL, "%s", err.msg);
    ck_assert_str_eq(got = tu_read(tu_path(sub, "inside"), &len), "kept");
    free(got);
    ck_assert_int_eq(entries(dir, &parts), 2);
    ck_assert_int_eq(parts, 0);
  }
  /* the folder is missing: nothing written anywhere */
  ck_assert_int_eq(rescue_file_write_atomic(tu_path(dir, "no/such.json"), "x", 1, &err),
                   RESCUE_EIO);
  ck_assert_int_eq(entries(dir, &parts), 2);
  /* out of memory for the name: the old file as it was */
  rescue_alloc_fail_at(1);
  ck_assert_int_eq(rescue_file_write_atomic(path, "third", 5, &err), RESCUE_ENOMEM);
  rescue_alloc_fail_at(0);
  ck_assert_ptr_nonnull(got = tu_read(path, &len));
  ck_assert_uint_eq(len, 0);
  free(got);
  /* commit of a written temporary; a missing one fails and leaves the file */
  t = rescue_file_tmpname(path);
  tu_write(t, "by hand");
  ck_assert_int_eq(rescue_file_commit(t, path, &err), 0);
  ck_assert_int_eq(access(t, F_OK), -1);
  ck_assert_str_eq(got = tu_read(path, &len), "by hand");
  free(got);
  ck_assert_int_eq(rescue_file_commit(t, path, &err), RESCUE_EIO);
  ck_assert_str_eq(got = tu_read(path, &len), "by hand");
  free(got);
  ck_assert_int_eq(entries(dir, &parts), 2);
  ck_assert_int_eq(parts, 0);
  rescue_free(t);
  free(dir);
}
END_TEST

/* ---- the blank row (rescue_scheme.h) ---- */

/* The blank row of scheme sc from seed, as JSON text (caller frees). */
static char *blank_row(const rescue_scheme *sc, const rescue_row_seed *seed) {
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  rescue_jw_init(&w, &b);
  rescue_jw_obj(&w);
  rescue_scheme_blank_row(sc, seed, &w);
  rescue_jw_end(&w);
  ck_assert(rescue_buf_ok(&b));
  return rescue_buf_detach(&b);
}

START_TEST(test_blank_row) {
  rescue_scheme *sc = NULL;
  rescue_error err = RESCUE_ERROR_INIT;
  size_t n;
  const char *xml = rescue_scheme_default_xml(&n);
  rescue_row_seed seed = {1.5, 3, "Ann \"A\"", "Hi.", 7};
  char *row;
  ck_assert_int_eq(rescue_scheme_load(xml, n, &sc, &err), 0);
  /* the default scheme: every required field and row_index, in release key order */
  row = blank_row(sc, &seed);
  ck_assert_str_eq(
      row, "{\"start_time\": 1.5, \"end_time\": 3.0, \"primary_speaker\": \"Ann \\\"A\\\"\", "
           "\"target\": [], \"dialogue_cleaned\": \"Hi.\", \"utterance_type\": \"\", "
           "\"background_dialogue\": [], \"tone_of_voice\": \"\", \"body_posture\": [], "
           "\"facial_expressions\": [], \"self_directed_behavior\": [], "
           "\"interaction_behavior\": [], \"internal_emotion\": [], "
           "\"viewpoints_attitudes\": [], \"support_strategy\": [], \"row_index\": 7}");
  rescue_free(row);
  /* no speaker or text: empty strings */
  seed.speaker = seed.text = NULL;
  row = blank_row(sc, &seed);
  ck_assert_ptr_nonnull(strstr(row, "\"primary_speaker\": \"\", "));
  ck_assert_ptr_nonnull(strstr(row, "\"dialogue_cleaned\": \"\", "));
  rescue_free(row);
  rescue_scheme_free(&sc);
  /* another scheme: built from its fields (order, types, optional ones left out) */
  {
    rescue_field f[] = {
        {.key = "row_index", .type = RESCUE_F_INT},
        {.key = "score", .type = RESCUE_F_NUMBER, .required = 1},
        {.key = "note", .type = RESCUE_F_TEXT},
        {.key = "who", .type = RESCUE_F_ENTITY, .required = 1},
        {.key = "refs", .type = RESCUE_F_INTS, .required = 1},
        {.key = "end_time", .type = RESCUE_F_NUMBER, .required = 1},
    };
    rescue_scheme s2 = {.n_fields = 6, .fields = f};
    rescue_row_seed sd = {0, 2.25, "x", "y", 1};
    row = blank_row(&s2, &sd);
    ck_assert_str_eq(row, "{\"row_index\": 1, \"score\": null, \"who\": \"\", \"refs\": [], "
                          "\"end_time\": 2.25}");
    rescue_free(row);
  }
}
END_TEST

int main(void) {
  Suite *s = suite_create("prim");
  TCase *tc = tcase_create("prim");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_fnv1a);
  tcase_add_test(tc, test_many_keys);
  tcase_add_test(tc, test_nuls_and_prefixes);
  tcase_add_test(tc, test_growth);
  tcase_add_test(tc, test_order_and_values);
  tcase_add_test(tc, test_alloc_failures);
  tcase_add_test(tc, test_alloc_grow_appends);
  tcase_add_test(tc, test_alloc_grow_refuses);
  tcase_add_test(tc, test_utf8_step);
  tcase_add_test(tc, test_atomic_write);
  tcase_add_test(tc, test_blank_row);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
