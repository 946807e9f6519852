/*
** privacy_text.c: names in text for the privacy modules (privacy_int.h): whole-word,
** ASCII-case-folded matching and replacement, and a small list of distinct names.
*/
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "prim_int.h"
#include "privacy_int.h"
#include "rescue_alloc.h"

/*
** Is code point cp part of a word? ASCII letters and digits, and every other character
** except the punctuation, symbols and spaces that surround names in text (curly quotes,
** dashes, ellipses, no-break and ideographic spaces): so "Evelyn's" and "Evelyn\u2019s"
** both hold the word "Evelyn", and "Zoë" is one word.
*/
static int word_cp(uint32_t cp) {
  if (cp < 0x80)
    return (cp >= '0' && cp <= '9') || (cp >= 'a' && cp <= 'z') || (cp >= 'A' && cp <= 'Z');
  if (cp <= 0xBF || cp == 0xD7 || cp == 0xF7)
    return 0;
  if ((cp >= 0x2000 && cp <= 0x206F) || (cp >= 0x2E00 && cp <= 0x2E7F) ||
      (cp >= 0x3000 && cp <= 0x303F) || (cp >= 0xFE30 && cp <= 0xFE4F) ||
      (cp >= 0xFF00 && cp <= 0xFF0F) || (cp >= 0xFF1A && cp <= 0xFF20) ||
      (cp >= 0xFF3B && cp <= 0xFF40) || (cp >= 0xFF5B && cp <= 0xFF65))
    return 0;
  return 1;
}

/* The code point starting at s[i] (i < len); a broken sequence reads as one byte. */
static uint32_t cp_at(const char *s, size_t len, size_t i) {
  const unsigned char *u = (const unsigned char *)s + i;
  uint32_t cp = u[0];
  rescue_utf8_step(u, (const unsigned char *)s + len, &cp);
  return cp;
}

/* Is the character before byte i (or at byte i) part of a word? */
int pv_word_before(const char *s, size_t i) {
  size_t j = i, back = 0;
  if (i == 0)
    return 0;
  j--;
  while (j > 0 && back < 3 && ((unsigned char)s[j] & 0xC0) == 0x80) {
    j--;
    back++;
  }
  return word_cp(cp_at(s, i, j));
}

int pv_word_after(const char *s, size_t len, size_t i) {
  return i < len && word_cp(cp_at(s, len, i));
}

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* 1 when name (nlen bytes) occurs in s at i as a whole word, any ASCII case. */
int pv_word_at(const char *s, size_t len, size_t i, const char *name, size_t nlen) {
  size_t k;
  if (nlen == 0 || i + nlen > len)
    return 0;
  for (k = 0; k < nlen; k++)
    if (fold((unsigned char)s[i + k]) != fold((unsigned char)name[k]))
      return 0;
  if (pv_word_after(name, nlen, 0) && pv_word_before(s, i))
    return 0;
  if (pv_word_before(name, nlen) && pv_word_after(s, len, i + nlen))
    return 0;
  return 1;
}

int pv_by_length_desc(const void *a, const void *b) {
  const repl *x = a, *y = b;
  return x->rlen < y->rlen ? 1 : x->rlen > y->rlen ? -1 : strcmp(x->real, y->real);
}

/* Append s with every whole-word occurrence of a real name replaced (longest first). */
void pv_replace_words(const repl *r, int n, const char *s, size_t len, rescue_buf *out) {
  size_t i = 0, start = 0;
  while (i < len) {
    int k, hit = -1;
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      for (k = 0; k < n && hit < 0; k++)
        if (pv_word_at(s, len, i, r[k].real, r[k].rlen))
          hit = k;
    if (hit < 0) {
      i++;
      continue;
    }
    rescue_buf_putn(out, s + start, i - start);
    rescue_buf_puts(out, r[hit].pseudo);
    i += r[hit].rlen;
    start = i;
  }
  rescue_buf_putn(out, s + start, len - start);
}

/* ---- a list of distinct names ---- */

int pv_names_add(names *ns, const char *s, size_t len) {
  int i;
  for (i = 0; i < ns->n; i++)
    if (strlen(ns->v[i]) == len && memcmp(ns->v[i], s, len) == 0)
      return 0;
  if (RESCUE_ALLOC_GROW(ns->v, ns->n + 1, ns->cap))
    return RESCUE_ENOMEM;
  if (!(ns->v[ns->n] = rescue_strndup(s, len)))
    return RESCUE_ENOMEM;
  ns->n++;
  return 0;
}

void pv_names_free(names *ns) {
  int i;
  for (i = 0; i < ns->n; i++)
    rescue_free(ns->v[i]);
  rescue_free(ns->v);
  memset(ns, 0, sizeof *ns);
}

/*
** Compare a against b (blen bytes) as names: ASCII case folded, spaces, tabs and
** underscores around and between the words ignored as to kind and count ("couple
** therapist" matches "Couple  Therapist" and "couple_therapist").
*/
static int same_name(const char *a, const char *b, size_t blen) {
  size_t i = 0, j = 0, alen = strlen(a);
#define PV_GAP(c) ((c) == ' ' || (c) == '\t' || (c) == '_' || (c) == '\n' || (c) == '\r')
  while (i < alen && PV_GAP(a[i]))
    i++;
  while (j < blen && PV_GAP(b[j]))
    j++;
  while (i < alen && j < blen) {
    int ga = PV_GAP(a[i]), gb = PV_GAP(b[j]);
    if (ga || gb) {
      if (!ga || !gb)
        return 0;
      while (i < alen && PV_GAP(a[i]))
        i++;
      while (j < blen && PV_GAP(b[j]))
        j++;
      continue;
    }
    if (fold((unsigned char)a[i]) != fold((unsigned char)b[j]))
      return 0;
    i++;
    j++;
  }
  while (i < alen && PV_GAP(a[i]))
    i++;
  while (j < blen && PV_GAP(b[j]))
    j++;
#undef PV_GAP
  return i == alen && j == blen;
}

int pv_reserved(const rescue_scheme *sc, const char *s, size_t len) {
  int i;
  if (sc->therapist && same_name(sc->therapist, s, len))
    return 1;
  for (i = 0; i < sc->n_groups; i++)
    if (same_name(sc->group_labels[i], s, len))
      return 1;
  return 0;
}
