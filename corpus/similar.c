/*
** similar.c: edit distance and closest-name search for "did you mean" messages.
*/
#include <ctype.h>
#include <string.h>

#include "rescue_similar.h"

static int lower(unsigned char c) { return c < 0x80 ? tolower(c) : c; }

int rescue_edit_distance(const char *a, const char *b, int max) {
  /* three rolling rows of the dynamic programme (OSA needs the row before the last) */
  int r0[65], r1[65], r2[65], *pp = r0, *p = r1, *c = r2, *t;
  size_t la = strlen(a), lb = strlen(b), i, j;
  if (la > 64 || lb > 64)
    return strcmp(a, b) == 0 ? 0 : max + 1;
  if ((la > lb ? la - lb : lb - la) > (size_t)max)
    return max + 1;
  for (j = 0; j <= lb; j++)
    p[j] = (int)j;
  for (i = 1; i <= la; i++) {
    int best;
    c[0] = (int)i;
    best = c[0];
    for (j = 1; j <= lb; j++) {
      int cost = lower((unsigned char)a[i - 1]) != lower((unsigned char)b[j - 1]);
      int v = p[j - 1] + cost;
      if (p[j] + 1 < v)
        v = p[j] + 1;
      if (c[j - 1] + 1 < v)
        v = c[j - 1] + 1;
      if (i > 1 && j > 1 && lower((unsigned char)a[i - 1]) == lower((unsigned char)b[j - 2]) &&
          lower((unsigned char)a[i - 2]) == lower((unsigned char)b[j - 1]) && pp[j - 2] + 1 < v)
        v = pp[j - 2] + 1;
      c[j] = v;
      if (v < best)
        best = v;
    }
    if (best > max)
      return max + 1;
    t = pp;
    pp = p;
    p = c;
    c = t;
  }
  return p[lb] > max ? max + 1 : p[lb];
}

/* Does one of a, b start with the other (without case), the shorter having >= 3 bytes? */
static int prefix_of(const char *a, const char *b) {
  size_t la = strlen(a), lb = strlen(b), n = la < lb ? la : lb, i;
  if (n < 3 || la == lb)
    return 0;
  for (i = 0; i < n; i++)
    if (lower((unsigned char)a[i]) != lower((unsigned char)b[i]))
      return 0;
  return 1;
}

int rescue_closest(const char *s, const char *const *cands, int n, int max_dist, int *out,
                   int max_out) {
  int i, best = max_dist + 1, k = 0;
  for (i = 0; i < n; i++) {
    int d = rescue_edit_distance(s, cands[i], max_dist);
    if (d > 1 && prefix_of(s, cands[i]))
      d = 1;
    if (d > max_dist)
      continue;
    if (d < best) {
      best = d;
      k = 0;
    }
    if (d == best && k < max_out)
      out[k++] = i;
  }
  return k;
}

int rescue_typo_budget(const char *s) {
  size_t n = strlen(s);
  return n <= 4 ? 1 : n <= 8 ? 2 : 3;
}

/* ---- typo'd keys ---- */

static const char *const sample_keys[] = {"sample_id", "scenario", "participants", "source_file",
                                          "rows"};

/* A key as a NUL-terminated string (keys of a checking parse are not terminated). */
static const char *key_of(const rescue_jnode *c, char buf[80]) {
  size_t n = c->keylen < 79 ? c->keylen : 79;
  memcpy(buf, c->key, n);
  buf[n] = 0;
  return buf;
}

/*
** Report c's key when it is not in names[0..n) but close to one of them. *hint is where
** the next key is looked for first: keys mostly come in the scheme's order, so a row's
** keys cost one comparison each.
*/
static int check_key(const rescue_jnode *c, const char *const *names, int n, rescue_typo_cb cb,
                     void *arg, int row, const char *list, int *hint) {
  char buf[80];
  const char *k;
  int i, hit;
  if (c->keylen >= 79)
    return 0;
  if (*hint < n && strlen(names[*hint]) == c->keylen &&
      memcmp(names[*hint], c->key, c->keylen) == 0) {
    ++*hint;
    return 0;
  }
  for (i = 0; i < n; i++)
    if (strlen(names[i]) == c->keylen && memcmp(names[i], c->key, c->keylen) == 0) {
      *hint = i + 1;
      return 0;
    }
  k = key_of(c, buf);
  if (rescue_closest(k, names, n, rescue_typo_budget(k), &hit, 1) != 1)
    return 0;
  cb(arg, c, k, names[hit], row, list);
  return 1;
}

int rescue_typos_scan(const rescue_scheme *sc, const rescue_jnode *sample, rescue_typo_cb cb,
                      void *arg) {
  const char *row_names[64], *child_names[32];
  const rescue_jnode *c, *rows = NULL, *r, *f, *it, *m;
  int n_row = 0, found = 0, pos, i, hint;
  if (!sample || sample->type != RESCUE_JOBJECT)
    return 0;
  for (i = 0; i < sc->n_fields && n_row < 64; i++)
    row_names[n_row++] = sc->fields[i].key;
  for (c = sample->child, hint = 0; c; c = c->next) {
    found += check_key(c, sample_keys, (int)(sizeof sample_keys / sizeof sample_keys[0]), cb, arg,
                       0, "", &hint);
    if (c->keylen == 4 && memcmp(c->key, "rows", 4) == 0)
      rows = c;
  }
  if (!rows || rows->type != RESCUE_JARRAY)
    return found;
  for (r = rows->child, pos = 1; r; r = r->next, pos++) {
    if (r->type != RESCUE_JOBJECT)
      continue;
    for (c = r->child, hint = 0; c; c = c->next)
      found += check_key(c, row_names, n_row, cb, arg, pos, "", &hint);
    for (i = 0; i < sc->n_fields; i++) {
      const rescue_field *lf = &sc->fields[i];
      int n_child = 0, j;
      if (lf->type != RESCUE_F_LIST || !(f = rescue_jget(r, lf->key)) || f->type != RESCUE_JARRAY)
        continue;
      for (j = 0; j < lf->n_children && n_child < 32; j++)
        child_names[n_child++] = lf->children[j].key;
      for (it = f->child; it; it = it->next)
        if (it->type == RESCUE_JOBJECT)
          for (m = it->child, hint = 0; m; m = m->next)
            found += check_key(m, child_names, n_child, cb, arg, pos, lf->key, &hint);
    }
  }
  return found;
}
