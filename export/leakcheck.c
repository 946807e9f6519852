/*
** leakcheck.c: the leak check, a scan of exported files for the real names of the
** pseudonym map, with names worth a second look (rescue_privacy.h).
*/
#include <dirent.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "privacy_int.h"
#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_privacy.h"
#include "store_int.h"

typedef struct lctx {
  const repl *r; /* real names (replacement unused), longest first */
  int n;
  const rescue_pseudonym_map *m;
  const rescue_scheme *sc;
  rescue_leak_report *rep;
  const char *file;
  long line;
  names review; /* candidates */
  long *review_count;
  int review_cap;
  int leak_cap;       /* capacity of rep->leaks */
  long *review_lower; /* per candidate: sightings in lower case (second pass) */
  int pass2;          /* second pass: only lower-case sightings of candidates */
  int rc;
} lctx;

static void leak_add(lctx *L, const char *field, const char *name) {
  rescue_leak *nl;
  if (L->rc)
    return;
  if (RESCUE_ALLOC_GROW(L->rep->leaks, L->rep->n + 1, L->leak_cap)) {
    L->rc = RESCUE_ENOMEM;
    return;
  }
  nl = L->rep->leaks + L->rep->n;
  nl->file = rescue_strdup(L->file);
  nl->line = L->line;
  nl->field = rescue_strdup(field);
  nl->name = rescue_strdup(name);
  L->rep->n++;
  if (!nl->file || !nl->field || !nl->name)
    L->rc = RESCUE_ENOMEM;
}

/* 1 when s is a known name: a participant, a pseudonym or a reserved entity. */
static int known_name(const lctx *L, const char *s, size_t len) {
  int i;
  char tmp[256];
  if (len >= sizeof tmp)
    return 0;
  memcpy(tmp, s, len);
  tmp[len] = 0;
  if (pv_reserved(L->sc, s, len))
    return 1;
  for (i = 0; i < L->m->n; i++) {
    const char *ps = L->m->items[i].pseudonym;
    if ((L->m->items[i].real && strcasecmp(L->m->items[i].real, tmp) == 0) ||
        (ps && strcasecmp(ps, tmp) == 0))
      return 1;
    /* a word of a pseudonym ("Partner" of "Partner A") */
    for (; ps && *ps; ps++)
      if ((ps == L->m->items[i].pseudonym || ps[-1] == ' ') && strncasecmp(ps, tmp, len) == 0 &&
          (ps[len] == ' ' || ps[len] == 0))
        return 1;
  }
  return 0;
}

static void review_add(lctx *L, const char *s, size_t len) {
  int i;
  if (L->rc || len == 0 || len > 64)
    return;
  for (i = 0; i < L->review.n; i++)
    if (strlen(L->review.v[i]) == len && memcmp(L->review.v[i], s, len) == 0) {
      L->review_count[i]++;
      return;
    }
  if (RESCUE_ALLOC_GROW(L->review_count, L->review.n + 1, L->review_cap)) {
    L->rc = RESCUE_ENOMEM;
    return;
  }
  if (pv_names_add(&L->review, s, len)) {
    L->rc = RESCUE_ENOMEM;
    return;
  }
  L->review_count[L->review.n - 1] = 1;
}

/*
** Capitalised words inside sentences (not after . ! ? or a quote or at the start) that
** the map does not know; the second pass (L->pass2) only notes which of them also occur
** written in lower case, which makes them ordinary words rather than names.
*/
static void review_words(lctx *L, const char *s, size_t len) {
  size_t i = 0;
  int sentence_start = 1;
  while (i < len) {
    unsigned char c = (unsigned char)s[i];
    if (((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) && !pv_word_before(s, i)) {
      size_t j = i + 1;
      while (j < len && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
        j++;
      if (pv_word_after(s, len, j)) { /* a word with other letters: not a candidate */
        while (j < len && pv_word_after(s, len, j))
          j++;
      } else if (L->pass2 && c >= 'a' && c <= 'z') {
        int k;
        for (k = 0; k < L->review.n; k++)
          if (strlen(L->review.v[k]) == j - i && strncasecmp(L->review.v[k], s + i, j - i) == 0)
            L->review_lower[k]++;
      } else if (!L->pass2 && c <= 'Z' && !sentence_start && j - i >= 3 &&
                 !pv_common_word(s + i, j - i) && !known_name(L, s + i, j - i)) {
        review_add(L, s + i, j - i);
      }
      sentence_start = 0;
      i = j;
      continue;
    }
    if (c == '.' || c == '!' || c == '?' || c == '"' || c == '\n' || c == ':' || c == '-')
      sentence_start = 1;
    else if (pv_word_after(s, len, i))
      sentence_start = 0;
    i++;
  }
}

static void leak_string(lctx *L, const char *field, const char *key, const char *s, size_t len) {
  size_t i;
  int k;
  if (L->pass2) {
    review_words(L, s, len);
    return;
  }
  for (i = 0; i < len; i++)
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      for (k = 0; k < L->n; k++)
        if (pv_word_at(s, len, i, L->r[k].real, L->r[k].rlen)) {
          leak_add(L, field, L->r[k].real);
          i += L->r[k].rlen - 1;
          break;
        }
  if (!key)
    return;
  {
    /* person fields: a value that is no one the map or the scheme knows */
    const rescue_field *f = NULL;
    int i2;
    for (i2 = 0; i2 < L->sc->n_fields && !f; i2++) {
      const rescue_field *t = &L->sc->fields[i2];
      if (strcmp(t->key, key) == 0)
        f = t;
      else if (rescue_field_child(t, key))
        f = rescue_field_child(t, key);
    }
    if (f && (f->type == RESCUE_F_ENTITY || f->type == RESCUE_F_ENTITIES)) {
      size_t a, b;
      rescue_pystrip(s, len, &a, &b);
      if (b > a && !known_name(L, s + a, b - a))
        review_add(L, s + a, b - a);
    } else if (f && f->type == RESCUE_F_TEXT) {
      review_words(L, s, len);
    }
  }
}

static void leak_node(lctx *L, const rescue_jnode *n, rescue_buf *path, const char *key) {
  const rescue_jnode *c;
  size_t at = path->len;
  int i = 0;
  switch (n->type) {
  case RESCUE_JSTRING: leak_string(L, path->s ? path->s : "", key, n->s, n->len); return;
  case RESCUE_JARRAY:
    for (c = n->child; c; c = c->next, i++) {
      rescue_buf_printf(path, "[%d]", i);
      leak_node(L, c, path, key);
      path->len = at;
      path->s[at] = 0;
    }
    return;
  case RESCUE_JOBJECT:
    for (c = n->child; c; c = c->next) {
      if (path->len)
        rescue_buf_putc(path, '.');
      rescue_buf_puts(path, c->key);
      leak_string(L, path->s, NULL, c->key, c->keylen); /* keys can hold names too */
      leak_node(L, c, path, c->key);
      path->len = at;
      if (path->s)
        path->s[at] = 0;
    }
    return;
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JNUMBER: return;
  }
}

static int leak_file(lctx *L, const char *file) {
  char *text = NULL;
  size_t len = 0, i = 0;
  rescue_error e;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf path = RESCUE_BUF_INIT;
  memset(&e, 0, sizeof e);
  if (!doc)
    return RESCUE_ENOMEM;
  if (rescue_read_file(file, &text, &len, &e)) {
    rescue_jdoc_free(&doc);
    return 0; /* unreadable: nothing to report */
  }
  L->file = file;
  if (!L->pass2)
    L->rep->files++;
  L->line = 0;
  if (len > 0 && memchr(text, 0, len > 8000 ? 8000 : len)) {
    /* a binary file (a clip): only names in it, byte for byte */
    L->line = 1;
    if (!L->pass2)
      leak_string(L, "", NULL, text, len);
  } else {
    /* JSON documents whole (manifest.json), JSONL and text line by line */
    rescue_jerror je;
    const rescue_jnode *whole = NULL;
    size_t flen = strlen(file);
    if (flen > 5 && strcmp(file + flen - 5, ".json") == 0)
      whole = rescue_jparse(doc, text, len, &je);
    if (whole) {
      L->line = 1;
      leak_node(L, whole, &path, NULL);
      L->rep->lines += !L->pass2;
    } else {
      while (i < len) {
        const char *nl = memchr(text + i, '\n', len - i);
        size_t end = nl ? (size_t)(nl - text) : len;
        const rescue_jnode *n;
        L->line++;
        L->rep->lines += !L->pass2;
        rescue_buf_reset(&path);
        n = text[i] == '{' ? rescue_jparse(doc, text + i, end - i, &je) : NULL;
        if (n)
          leak_node(L, n, &path, NULL);
        else
          leak_string(L, "", NULL, text + i, end - i);
        i = end + 1;
      }
    }
  }
  rescue_free(text);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&path);
  return L->rc;
}

static int by_name(const void *a, const void *b) {
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static int leak_walk(lctx *L, const char *path) {
  struct stat sb;
  DIR *d;
  struct dirent *de;
  char **kids = NULL;
  int n = 0, cap = 0, i, rc = 0;
  if (lstat(path, &sb))
    return RESCUE_EIO;
  if (S_ISREG(sb.st_mode))
    return leak_file(L, path);
  if (!S_ISDIR(sb.st_mode))
    return 0;
  if (!(d = opendir(path)))
    return RESCUE_EIO;
  while ((de = readdir(d)) != NULL) {
    size_t len;
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    if (RESCUE_ALLOC_GROW(kids, n + 1, cap)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    len = strlen(path) + strlen(de->d_name) + 2;
    if (!(kids[n] = rescue_malloc(len))) {
      rc = RESCUE_ENOMEM;
      break;
    }
    snprintf(kids[n++], len, "%s/%s", path, de->d_name);
  }
  closedir(d);
  if (!rc)
    qsort(kids, (size_t)n, sizeof *kids, by_name);
  for (i = 0; i < n && !rc; i++)
    rc = leak_walk(L, kids[i]);
  for (i = 0; i < n; i++)
    rescue_free(kids[i]);
  rescue_free(kids);
  return rc;
}

/*
** Does candidate a come before b among the names to review? Those seen only in lower case
** more often (count -1) go last; then the larger share of capitalised sightings, then
** more sightings, then the name.
*/
static int review_before(const lctx *L, int a, int b) {
  long ca = L->review_count[a], cb = L->review_count[b];
  long la = L->review_lower ? L->review_lower[a] : 0, lb = L->review_lower ? L->review_lower[b] : 0;
  if ((ca < 0) != (cb < 0))
    return cb < 0;
  if (ca < 0)
    return 0;
  if (ca * (cb + lb) != cb * (ca + la))
    return ca * (cb + lb) > cb * (ca + la);
  if (ca != cb)
    return ca > cb;
  return strcmp(L->review.v[a], L->review.v[b]) < 0;
}

int rescue_leakcheck(rescue_store *st, const char *path, rescue_leak_report *rep) {
  rescue_pseudonym_map m;
  int rc;
  memset(rep, 0, sizeof *rep);
  if ((rc = rescue_pseudonym_map_load(st, &m)))
    return rc;
  rc = pv_leakcheck(st, &m, path, rep);
  rescue_pseudonym_map_clear(&m);
  return rc;
}

int pv_leakcheck(rescue_store *st, const rescue_pseudonym_map *mp, const char *path,
                 rescue_leak_report *rep) {
  const rescue_pseudonym_map m = *mp;
  lctx L;
  repl *r = NULL;
  int rc, i, n = 0, review_cap = 0;
  struct stat sb;
  memset(rep, 0, sizeof *rep);
  memset(&L, 0, sizeof L);
  if (stat(path, &sb))
    return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "%s: %s", path, strerror(errno));
  r = rescue_calloc((size_t)m.n + 1, sizeof *r);
  if (!r) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < m.n; i++) {
    const char *real = m.items[i].real ? m.items[i].real : m.items[i].group;
    int k, dup = 0;
    for (k = 0; k < n; k++)
      dup |= strcmp(r[k].real, real) == 0;
    /* a reserved entity in any case is no one's name: the map does not give it one */
    if (dup || !*real || pv_reserved(L.sc ? L.sc : rescue_store_scheme(st), real, strlen(real)))
      continue;
    r[n].real = real;
    r[n].rlen = strlen(real);
    n++;
  }
  qsort(r, (size_t)n, sizeof *r, pv_by_length_desc);
  L.r = r;
  L.n = n;
  L.m = &m;
  L.sc = rescue_store_scheme(st);
  L.rep = rep;
  rc = leak_walk(&L, path);
  if (!rc && L.rc)
    rc = L.rc;
  if (!rc && L.review.n) {
    if (!(L.review_lower = rescue_calloc((size_t)L.review.n, sizeof *L.review_lower)))
      rc = RESCUE_ENOMEM;
    L.pass2 = 1;
    if (!rc)
      rc = leak_walk(&L, path);
    /* a word written in lower case more often than capitalised is an ordinary word */
    for (i = 0; !rc && i < L.review.n; i++)
      if (L.review_lower[i] > L.review_count[i])
        L.review_count[i] = -1;
  }
  if (rc) {
    rescue_seterr(rescue_store_err(st), rc, "%s: cannot scan: %s", path,
                  rc == RESCUE_ENOMEM ? "out of memory" : strerror(errno));
    goto end;
  }
  /* names to review, most name-like first: written capitalised in the largest share of
     their sightings, then the most often */
  for (i = 0; i < L.review.n; i++) {
    char line[128];
    int k, best = i;
    for (k = i + 1; k < L.review.n; k++)
      if (review_before(&L, k, best))
        best = k;
    if (best != i) {
      char *t = L.review.v[i];
      long c = L.review_count[i], lo = L.review_lower ? L.review_lower[i] : 0;
      L.review.v[i] = L.review.v[best];
      L.review_count[i] = L.review_count[best];
      L.review.v[best] = t;
      L.review_count[best] = c;
      if (L.review_lower) {
        L.review_lower[i] = L.review_lower[best];
        L.review_lower[best] = lo;
      }
    }
    if (L.review_count[i] < 0)
      break; /* the rest were all seen in lower case: ordinary words */
    if (RESCUE_ALLOC_GROW(rep->review, rep->n_review + 1, review_cap))
      break;
    snprintf(line, sizeof line, "%s (%ld)", L.review.v[i], L.review_count[i]);
    if ((rep->review[rep->n_review] = rescue_strdup(line)) != NULL)
      rep->n_review++;
  }
end:
  pv_names_free(&L.review);
  rescue_free(L.review_count);
  rescue_free(L.review_lower);
  rescue_free(r);
  return rc;
}

void rescue_leak_report_clear(rescue_leak_report *rep) {
  int i;
  if (!rep)
    return;
  for (i = 0; i < rep->n; i++) {
    rescue_free(rep->leaks[i].file);
    rescue_free(rep->leaks[i].field);
    rescue_free(rep->leaks[i].name);
  }
  rescue_free(rep->leaks);
  for (i = 0; i < rep->n_review; i++)
    rescue_free(rep->review[i]);
  rescue_free(rep->review);
  memset(rep, 0, sizeof *rep);
}

void rescue_leak_report_json(const rescue_leak_report *rep, rescue_buf *out) {
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "files");
  rescue_jw_int(&w, rep->files);
  rescue_jw_key(&w, "lines");
  rescue_jw_int(&w, rep->lines);
  rescue_jw_key(&w, "leaks");
  rescue_jw_arr(&w);
  for (i = 0; i < rep->n; i++) {
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "file");
    rescue_jw_str(&w, rep->leaks[i].file);
    rescue_jw_key(&w, "line");
    rescue_jw_int(&w, rep->leaks[i].line);
    rescue_jw_key(&w, "field");
    rescue_jw_str(&w, rep->leaks[i].field);
    rescue_jw_key(&w, "name");
    rescue_jw_str(&w, rep->leaks[i].name);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "review");
  rescue_jw_arr(&w);
  for (i = 0; i < rep->n_review; i++)
    rescue_jw_str(&w, rep->review[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}
