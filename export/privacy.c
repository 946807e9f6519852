/*
** privacy.c: the pseudonym map, the pseudonymised copy of a corpus, the leak check and
** the audit trail (rescue_privacy.h).
*/
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rescue_alloc.h"
#include "store_int.h"
#include "rescue_import.h"
#include "rescue_json.h"
#include "rescue_output.h"
#include "rescue_privacy.h"
#include "rescue_sha256.h"

/* ---- names in text: whole words, ASCII case folded ---- */

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
  size_t left = len - i;
  if (u[0] < 0xC0 || left < 2)
    return u[0];
  if (u[0] < 0xE0)
    return (uint32_t)(u[0] & 0x1F) << 6 | (u[1] & 0x3F);
  if (u[0] < 0xF0 || left < 4)
    return left < 3 ? u[0]
                    : (uint32_t)(u[0] & 0x0F) << 12 | (uint32_t)(u[1] & 0x3F) << 6 | (u[2] & 0x3F);
  return (uint32_t)(u[0] & 0x07) << 18 | (uint32_t)(u[1] & 0x3F) << 12 |
         (uint32_t)(u[2] & 0x3F) << 6 | (u[3] & 0x3F);
}

/* Is the character before byte i (or at byte i) part of a word? */
static int word_before(const char *s, size_t i) {
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

static int word_after(const char *s, size_t len, size_t i) {
  return i < len && word_cp(cp_at(s, len, i));
}

static unsigned char fold(unsigned char c) { return c >= 'A' && c <= 'Z' ? c + 32 : c; }

/* 1 when name (nlen bytes) occurs in s at i as a whole word, any ASCII case. */
static int word_at(const char *s, size_t len, size_t i, const char *name, size_t nlen) {
  size_t k;
  if (nlen == 0 || i + nlen > len)
    return 0;
  for (k = 0; k < nlen; k++)
    if (fold((unsigned char)s[i + k]) != fold((unsigned char)name[k]))
      return 0;
  if (word_after(name, nlen, 0) && word_before(s, i))
    return 0;
  if (word_before(name, nlen) && word_after(s, len, i + nlen))
    return 0;
  return 1;
}

/* A replacement: real -> pseudonym. */
typedef struct repl {
  const char *real, *pseudo;
  size_t rlen;
} repl;

static int by_length_desc(const void *a, const void *b) {
  const repl *x = a, *y = b;
  return x->rlen < y->rlen ? 1 : x->rlen > y->rlen ? -1 : strcmp(x->real, y->real);
}

/* Append s with every whole-word occurrence of a real name replaced (longest first). */
static void replace_words(const repl *r, int n, const char *s, size_t len, rescue_buf *out) {
  size_t i = 0, start = 0;
  while (i < len) {
    int k, hit = -1;
    if (((unsigned char)s[i] & 0xC0) != 0x80)
      for (k = 0; k < n && hit < 0; k++)
        if (word_at(s, len, i, r[k].real, r[k].rlen))
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

/* ---- the map ---- */

typedef struct names {
  int n, cap;
  char **v;
} names;

static int names_add(names *ns, const char *s, size_t len) {
  int i;
  for (i = 0; i < ns->n; i++)
    if (strlen(ns->v[i]) == len && memcmp(ns->v[i], s, len) == 0)
      return 0;
  if (ns->n == ns->cap) {
    int cap = ns->cap ? 2 * ns->cap : 8;
    char **nv = rescue_realloc(ns->v, (size_t)cap * sizeof *nv);
    if (!nv)
      return RESCUE_ENOMEM;
    ns->v = nv;
    ns->cap = cap;
  }
  if (!(ns->v[ns->n] = rescue_strndup(s, len)))
    return RESCUE_ENOMEM;
  ns->n++;
  return 0;
}

static void names_free(names *ns) {
  int i;
  for (i = 0; i < ns->n; i++)
    rescue_free(ns->v[i]);
  rescue_free(ns->v);
  memset(ns, 0, sizeof *ns);
}

static int is_entity_to_map(const rescue_scheme *sc, const char *s, size_t len) {
  size_t a, b;
  char tmp[256];
  rescue_pystrip(s, len, &a, &b);
  if (a == b || b - a >= sizeof tmp)
    return b - a >= sizeof tmp; /* "" is no one; a very long value is kept (and checked) */
  memcpy(tmp, s + a, b - a);
  tmp[b - a] = 0;
  return !rescue_scheme_is_reserved(sc, tmp);
}

/*
** Every participant group `gid` has ever had, in first-seen order: the given participants
** of its samples' versions, then every entity of every row version.
*/
static int group_participants(rescue_store *st, int64_t gid, names *ns) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  sqlite3_stmt *q;
  rescue_jdoc *doc = rescue_jdoc_new();
  rescue_buf b = RESCUE_BUF_INIT;
  int rc = 0;
  if (!doc)
    return RESCUE_ENOMEM;
  if (!(q = rescue_store_stmt(st, "pseudo_group_heads"))) {
    rc = rescue_store_err(st)->code;
    goto end;
  }
  rescue_bind_int(q, ":group_id", gid);
  while (!rc && sqlite3_step(q) == SQLITE_ROW) {
    const rescue_jnode *obj, *p, *c;
    rescue_jerror je;
    rescue_buf_reset(&b);
    rescue_buf_puts(&b, (const char *)sqlite3_column_text(q, 0));
    if (sqlite3_column_int(q, 2)) {
      rescue_buf_puts(&b, "[]");
      rescue_buf_puts(&b, (const char *)sqlite3_column_text(q, 1));
    }
    if (!rescue_buf_ok(&b)) {
      rc = RESCUE_ENOMEM;
      break;
    }
    obj = rescue_jparse(doc, b.s, b.len, &je);
    p = obj ? rescue_jget(obj, "participants") : NULL;
    if (p && p->type == RESCUE_JARRAY)
      for (c = p->child; c && !rc; c = c->next)
        if (c->type == RESCUE_JSTRING && is_entity_to_map(sc, c->s, c->len)) {
          size_t a, e;
          rescue_pystrip(c->s, c->len, &a, &e);
          rc = names_add(ns, c->s + a, e - a);
        }
  }
  sqlite3_reset(q);
  if (rc)
    goto end;
  if (!(q = rescue_store_stmt(st, "pseudo_group_entities"))) {
    rc = rescue_store_err(st)->code;
    goto end;
  }
  rescue_bind_int(q, ":group_id", gid);
  while (!rc && sqlite3_step(q) == SQLITE_ROW) {
    const char *e = (const char *)sqlite3_column_text(q, 0), *p;
    if (!e)
      continue;
    for (p = e; !rc;) {
      const char *sep = strchr(p, 0x1F);
      size_t len = sep ? (size_t)(sep - p) : strlen(p);
      if (is_entity_to_map(sc, p, len))
        rc = names_add(ns, p, len);
      if (!sep)
        break;
      p = sep + 1;
    }
  }
  sqlite3_reset(q);
end:
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&b);
  return rc;
}

static int map_add(rescue_pseudonym_map *m, const char *group, const char *real, const char *ps,
                   const char *how, const char *at) {
  rescue_pseudonym *it;
  rescue_pseudonym *ni = rescue_realloc(m->items, (size_t)(m->n + 1) * sizeof *ni);
  if (!ni)
    return RESCUE_ENOMEM;
  m->items = ni;
  it = &ni[m->n];
  memset(it, 0, sizeof *it);
  it->group = rescue_strdup(group);
  it->real = real ? rescue_strdup(real) : NULL;
  it->pseudonym = ps ? rescue_strdup(ps) : NULL;
  it->how = how ? rescue_strdup(how) : NULL;
  it->created_at = at ? rescue_strdup(at) : NULL;
  m->n++;
  if (!it->group || (real && !it->real) || (ps && !it->pseudonym) || (how && !it->how) ||
      (at && !it->created_at))
    return RESCUE_ENOMEM;
  if (!ps)
    m->missing++;
  return 0;
}

/* The current pseudonym of (group, real) (real NULL: the group's), or 0 with *found = 0. */
static int lookup(rescue_store *st, int64_t gid, const char *real, rescue_buf *ps, rescue_buf *how,
                  rescue_buf *at, int *found) {
  sqlite3_stmt *q = rescue_store_stmt(st, "pseudo_get");
  *found = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":group_id", gid);
  rescue_bind_text(q, ":real", real ? real : "", -1);
  if (sqlite3_step(q) == SQLITE_ROW) {
    *found = 1;
    rescue_buf_reset(ps);
    rescue_buf_puts(ps, (const char *)sqlite3_column_text(q, 0));
    if (how) {
      rescue_buf_reset(how);
      rescue_buf_puts(how, (const char *)sqlite3_column_text(q, 1));
    }
    if (at) {
      rescue_buf_reset(at);
      rescue_buf_puts(at, (const char *)sqlite3_column_text(q, 2));
    }
  }
  sqlite3_reset(q);
  return 0;
}

int rescue_pseudonym_map_load(rescue_store *st, rescue_pseudonym_map *m) {
  sqlite3_stmt *q;
  rescue_buf ps = RESCUE_BUF_INIT, how = RESCUE_BUF_INIT, at = RESCUE_BUF_INIT;
  int64_t *gids = NULL;
  char **gnames = NULL;
  int n_g = 0, i, j, rc = 0, found;
  memset(m, 0, sizeof *m);
  if (!(q = rescue_store_stmt(st, "split_groups")))
    return rescue_store_err(st)->code;
  while (sqlite3_step(q) == SQLITE_ROW) {
    int64_t *ng = rescue_realloc(gids, (size_t)(n_g + 1) * sizeof *ng);
    char **nn = ng ? rescue_realloc(gnames, (size_t)(n_g + 1) * sizeof *nn) : NULL;
    if (ng)
      gids = ng;
    if (nn)
      gnames = nn;
    if (!ng || !nn || !(gnames[n_g] = rescue_strdup((const char *)sqlite3_column_text(q, 1)))) {
      rc = RESCUE_ENOMEM;
      break;
    }
    gids[n_g++] = sqlite3_column_int64(q, 0);
  }
  sqlite3_reset(q);
  for (i = 0; i < n_g && !rc; i++) {
    names ns = {0, 0, NULL};
    if ((rc = lookup(st, gids[i], NULL, &ps, &how, &at, &found)))
      break;
    rc =
        map_add(m, gnames[i], NULL, found ? ps.s : NULL, found ? how.s : NULL, found ? at.s : NULL);
    if (!rc)
      rc = group_participants(st, gids[i], &ns);
    for (j = 0; j < ns.n && !rc; j++) {
      if ((rc = lookup(st, gids[i], ns.v[j], &ps, &how, &at, &found)))
        break;
      rc = map_add(m, gnames[i], ns.v[j], found ? ps.s : NULL, found ? how.s : NULL,
                   found ? at.s : NULL);
    }
    names_free(&ns);
  }
  for (i = 0; i < n_g; i++)
    rescue_free(gnames[i]);
  rescue_free(gnames);
  rescue_free(gids);
  rescue_buf_clear(&ps);
  rescue_buf_clear(&how);
  rescue_buf_clear(&at);
  if (rc == RESCUE_ENOMEM)
    rescue_seterr(rescue_store_err(st), rc, NULL);
  return rc;
}

void rescue_pseudonym_map_clear(rescue_pseudonym_map *m) {
  int i;
  if (!m)
    return;
  for (i = 0; i < m->n; i++) {
    rescue_free(m->items[i].group);
    rescue_free(m->items[i].real);
    rescue_free(m->items[i].pseudonym);
    rescue_free(m->items[i].how);
    rescue_free(m->items[i].created_at);
  }
  rescue_free(m->items);
  memset(m, 0, sizeof *m);
}

static int group_id(rescue_store *st, const char *name, int64_t *id) {
  sqlite3_stmt *q = rescue_store_stmt(st, "group_find");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":name", name, -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *id = sqlite3_column_int64(q, 0);
  sqlite3_reset(q);
  return rc == SQLITE_ROW ? 0 : RESCUE_ENOTFOUND;
}

static int put(rescue_store *st, int64_t gid, const char *real, const char *ps, const char *how) {
  sqlite3_stmt *q = rescue_store_stmt(st, "pseudo_put");
  char now[32];
  if (!q)
    return rescue_store_err(st)->code;
  rescue_now_iso(now);
  rescue_bind_int(q, ":group_id", gid);
  rescue_bind_text(q, ":real", real ? real : "", -1);
  rescue_bind_text(q, ":pseudonym", ps, -1);
  rescue_bind_text(q, ":how", how, -1);
  rescue_bind_text(q, ":now", now, -1);
  if (sqlite3_step(q) != SQLITE_DONE) {
    sqlite3_reset(q);
    return rescue_store_sqlerr(st, "recording a pseudonym");
  }
  sqlite3_reset(q);
  return 0;
}

/* Is ps taken in group g of map m (by an entry other than `real`), or a real name there? */
static int taken(const rescue_pseudonym_map *m, const char *g, const char *real, const char *ps) {
  int i;
  for (i = 0; i < m->n; i++) {
    const rescue_pseudonym *it = &m->items[i];
    if (strcmp(it->group, g) != 0 || !it->real)
      continue;
    if (strcasecmp(it->real, ps) == 0 && (!real || strcmp(it->real, real) != 0))
      return 1;
    if (it->pseudonym && strcmp(it->pseudonym, ps) == 0 && (!real || strcmp(it->real, real) != 0))
      return 1;
  }
  return 0;
}

/* The corpus's secret key for group pseudonyms (made on first use). */
static int pseudo_key(rescue_store *st, char key[65]) {
  sqlite3_stmt *q = rescue_store_stmt(st, "meta_get");
  int rc;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":key", "pseudonym_key", -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    snprintf(key, 65, "%s", (const char *)sqlite3_column_text(q, 0));
  sqlite3_reset(q);
  if (rc != SQLITE_ROW) {
    unsigned char raw[32];
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), i;
    ssize_t got = fd >= 0 ? read(fd, raw, sizeof raw) : -1;
    if (fd >= 0)
      close(fd);
    if (got != (ssize_t)sizeof raw)
      return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "cannot read /dev/urandom");
    for (i = 0; i < 32; i++)
      snprintf(key + 2 * i, 3, "%02x", raw[i]);
    if (!(q = rescue_store_stmt(st, "meta_put")))
      return rescue_store_err(st)->code;
    rescue_bind_text(q, ":key", "pseudonym_key", -1);
    rescue_bind_text(q, ":value", key, -1);
    rc = sqlite3_step(q);
    sqlite3_reset(q);
    if (rc != SQLITE_DONE)
      return rescue_store_sqlerr(st, "storing the pseudonym key");
  }
  return 0;
}

/*
** The scenario of each group, by its samples in the corpus view ("family" when any sample
** of the group is a family sample): gs[i] for map entry i (NULL for participants).
*/
static int group_scenarios(rescue_store *st, const rescue_pseudonym_map *m, const char **gs) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_view v = {.kind = RESCUE_VIEW_CORPUS};
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_buf g = RESCUE_BUF_INIT;
  int rc, i;
  for (i = 0; i < m->n; i++)
    gs[i] = m->items[i].real ? NULL : "couple";
  if ((rc = rescue_sample_iter_new(st, &v, NULL, 0, &it)))
    return rc;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    const char *scen = rescue_sample_scenario(sc, s);
    rescue_buf_reset(&g);
    rescue_sample_group(s->sample_id, &g);
    for (i = 0; i < m->n; i++)
      if (!m->items[i].real && strcmp(m->items[i].group, g.s ? g.s : "") == 0 &&
          strcmp(scen, "couple") != 0)
        gs[i] = scen;
  }
  rescue_sample_iter_free(&it);
  rescue_buf_clear(&g);
  return rc < 0 ? rc : 0;
}

/* rescue_pseudonym_auto inside the caller's transaction (which rolls back on failure). */
static int auto_in_txn(rescue_store *st, long *added) {
  rescue_pseudonym_map m;
  const char **gs = NULL;
  char key[65];
  int rc, i;
  memset(&m, 0, sizeof m);
  *added = 0;
  if ((rc = rescue_pseudonym_map_load(st, &m)) || (rc = pseudo_key(st, key)))
    goto end;
  if (!(gs = rescue_calloc((size_t)m.n + 1, sizeof *gs))) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  if ((rc = group_scenarios(st, &m, gs)))
    goto end;
  for (i = 0; i < m.n && !rc; i++) {
    rescue_pseudonym *it = &m.items[i];
    int64_t gid = 0;
    char ps[160];
    if (it->pseudonym)
      continue;
    if ((rc = group_id(st, it->group, &gid)))
      break;
    if (!it->real) {
      /* "<scenario>_<hex>" from the corpus key and the group name; longer on a clash */
      rescue_sha256 h;
      char hex[65];
      int len, j, clash;
      rescue_sha256_init(&h);
      rescue_sha256_update(&h, key, strlen(key));
      rescue_sha256_update(&h, it->group, strlen(it->group));
      rescue_sha256_hex(&h, hex);
      for (len = 6; len <= 64; len += 2) {
        snprintf(ps, sizeof ps, "%s_%.*s", gs[i], len, hex);
        for (j = 0, clash = 0; j < m.n; j++)
          clash |=
              !m.items[j].real && m.items[j].pseudonym && strcmp(m.items[j].pseudonym, ps) == 0;
        if (!clash)
          break;
      }
    } else {
      /* role-style names in the group's own order, skipping any taken */
      int g0 = i, k = 0;
      const char *scen;
      while (g0 > 0 && strcmp(m.items[g0 - 1].group, it->group) == 0)
        g0--;
      scen = gs[g0];
      for (;; k++) {
        if (strcmp(scen, "couple") == 0 && k < 26)
          snprintf(ps, sizeof ps, "Partner %c", 'A' + k);
        else if (strcmp(scen, "couple") == 0)
          snprintf(ps, sizeof ps, "Partner %d", k + 1);
        else
          snprintf(ps, sizeof ps, "Member %d", k + 1);
        if (!taken(&m, it->group, it->real, ps))
          break;
      }
    }
    if ((rc = put(st, gid, it->real, ps, "auto")))
      break;
    if (!(it->pseudonym = rescue_strdup(ps))) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      break;
    }
    (*added)++;
  }
end:
  rescue_free(gs);
  rescue_pseudonym_map_clear(&m);
  if (rc)
    *added = 0;
  return rc;
}

/* rescue_pseudonym_set inside the caller's transaction (which rolls back on failure). */
static int set_in_txn(rescue_store *st, const char *real, const char *pseudonym, long *changed) {
  rescue_pseudonym_map m;
  const char *colon = strchr(real, ':'), *name = real;
  char only[512] = "";
  int rc, i, any = 0;
  *changed = 0;
  if (!*pseudonym || rescue_name_unsafe(pseudonym))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "the pseudonym '%s' is empty or holds a control character", pseudonym);
  if (colon && (size_t)(colon - real) < sizeof only) {
    snprintf(only, sizeof only, "%.*s", (int)(colon - real), real);
    name = colon + 1;
  }
  if ((rc = rescue_pseudonym_map_load(st, &m)))
    goto end;
  for (i = 0; i < m.n && !rc; i++) {
    const rescue_pseudonym *it = &m.items[i];
    int64_t gid = 0;
    int group_entry = !it->real && !colon && strcmp(it->group, real) == 0;
    int person =
        it->real && strcmp(it->real, name) == 0 && (!*only || strcmp(it->group, only) == 0);
    if (!group_entry && !person)
      continue;
    any = 1;
    if (group_entry) {
      const char *why = rescue_sample_id_unsafe(pseudonym, strlen(pseudonym));
      int j;
      if (why || strchr(pseudonym, '/')) {
        rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                           "a group pseudonym becomes part of sample ids: '%s' is not a safe "
                           "path component",
                           pseudonym);
        break;
      }
      for (j = 0; j < m.n; j++)
        if (!m.items[j].real && j != i && m.items[j].pseudonym &&
            strcmp(m.items[j].pseudonym, pseudonym) == 0) {
          rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                             "group '%s' already has the pseudonym '%s'", m.items[j].group,
                             pseudonym);
          break;
        }
      if (rc)
        break;
    } else if (taken(&m, it->group, it->real, pseudonym)) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "'%s' is already a name or pseudonym of another participant of group "
                         "'%s'",
                         pseudonym, it->group);
      break;
    }
    if ((rc = group_id(st, it->group, &gid)) || (rc = put(st, gid, it->real, pseudonym, "set")))
      break;
    (*changed)++;
  }
  if (!rc && !any)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND,
                       "no group or participant named '%s' in the corpus", real);
end:
  rescue_pseudonym_map_clear(&m);
  if (rc)
    *changed = 0;
  return rc;
}

int rescue_pseudonym_update(rescue_store *st, const char *const *real, const char *const *pseudonym,
                            int n, int auto_too, long *changed, long *added) {
  int rc, i;
  for (i = 0; i < n; i++)
    changed[i] = 0;
  if (added)
    *added = 0;
  if ((rc = rescue_store_begin(st)))
    return rc;
  for (i = 0; i < n && !rc; i++)
    rc = set_in_txn(st, real[i], pseudonym[i], &changed[i]);
  if (!rc && auto_too)
    rc = auto_in_txn(st, added);
  if (!rc)
    rc = rescue_store_commit(st);
  if (rc) {
    rescue_store_rollback(st);
    for (i = 0; i < n; i++)
      changed[i] = 0;
    if (added)
      *added = 0;
  }
  return rc;
}

int rescue_pseudonym_auto(rescue_store *st, long *added) {
  return rescue_pseudonym_update(st, NULL, NULL, 0, 1, NULL, added);
}

int rescue_pseudonym_set(rescue_store *st, const char *real, const char *pseudonym, long *changed) {
  return rescue_pseudonym_update(st, &real, &pseudonym, 1, 0, changed, NULL);
}

void rescue_pseudonym_map_json(const rescue_pseudonym_map *m, rescue_buf *out) {
  rescue_jw w;
  int i, open = 0;
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "groups");
  rescue_jw_arr(&w);
  for (i = 0; i < m->n; i++) {
    const rescue_pseudonym *it = &m->items[i];
    if (!it->real) {
      if (open) {
        rescue_jw_end(&w);
        rescue_jw_end(&w);
      }
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "group");
      rescue_jw_str(&w, it->group);
      rescue_jw_key(&w, "pseudonym");
      rescue_jw_str_or_null(&w, it->pseudonym);
      rescue_jw_key(&w, "participants");
      rescue_jw_arr(&w);
      open = 1;
      continue;
    }
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "real");
    rescue_jw_str(&w, it->real);
    rescue_jw_key(&w, "pseudonym");
    rescue_jw_str_or_null(&w, it->pseudonym);
    rescue_jw_key(&w, "how");
    rescue_jw_str_or_null(&w, it->how);
    rescue_jw_end(&w);
  }
  if (open) {
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "missing");
  rescue_jw_int(&w, m->missing);
  rescue_jw_end(&w);
}

/* ---- the pseudonymised copy ---- */

typedef struct gctx {
  const char *group, *group_ps;
  const char *sample_id; /* real */
  const char *sample_ps; /* pseudonymised */
  repl *r;               /* participants and the group, longest first */
  int n;
} gctx;

/* The pseudonymised form of a string value. */
static void pseudo_string(const gctx *g, const char *s, size_t len, rescue_buf *out) {
  int k;
  size_t a, b;
  rescue_pystrip(s, len, &a, &b);
  for (k = 0; k < g->n; k++) /* an exact person value keeps its surrounding spaces */
    if (b - a == g->r[k].rlen && memcmp(s + a, g->r[k].real, b - a) == 0) {
      rescue_buf_putn(out, s, a);
      rescue_buf_puts(out, g->r[k].pseudo);
      rescue_buf_putn(out, s + b, len - b);
      return;
    }
  {
    /* the sample id and the group name inside paths, then names as words */
    rescue_buf t = RESCUE_BUF_INIT;
    size_t i = 0, start = 0, sl = strlen(g->sample_id), gl = strlen(g->group);
    while (i < len) {
      if (sl && i + sl <= len && memcmp(s + i, g->sample_id, sl) == 0) {
        rescue_buf_putn(&t, s + start, i - start);
        rescue_buf_puts(&t, g->sample_ps);
        i += sl;
        start = i;
      } else if (gl && word_at(s, len, i, g->group, gl)) {
        rescue_buf_putn(&t, s + start, i - start);
        rescue_buf_puts(&t, g->group_ps);
        i += gl;
        start = i;
      } else {
        i++;
      }
    }
    rescue_buf_putn(&t, s + start, len - start);
    replace_words(g->r, g->n, t.s ? t.s : "", t.len, out);
    rescue_buf_clear(&t);
  }
}

static void pseudo_value(const gctx *g, const rescue_jnode *n, rescue_jw *w, int top) {
  const rescue_jnode *c;
  switch (n->type) {
  case RESCUE_JSTRING: {
    rescue_buf t = RESCUE_BUF_INIT;
    pseudo_string(g, n->s, n->len, &t);
    rescue_jw_strn(w, t.s ? t.s : "", t.len);
    rescue_buf_clear(&t);
    return;
  }
  case RESCUE_JARRAY:
    rescue_jw_arr(w);
    for (c = n->child; c; c = c->next)
      pseudo_value(g, c, w, 0);
    rescue_jw_end(w);
    return;
  case RESCUE_JOBJECT:
    rescue_jw_obj(w);
    for (c = n->child; c; c = c->next) {
      rescue_jw_key(w, c->key);
      if (top && strcmp(c->key, "sample_id") == 0 && c->type == RESCUE_JSTRING)
        rescue_jw_str(w, g->sample_ps);
      else
        pseudo_value(g, c, w, 0);
    }
    rescue_jw_end(w);
    return;
  case RESCUE_JNULL:
  case RESCUE_JFALSE:
  case RESCUE_JTRUE:
  case RESCUE_JNUMBER: rescue_jw_node(w, n); return;
  }
}

/* Copy a file (for media); 0 or -1 with errno. */
static int copy_file(const char *from, const char *to) {
  char buf[1 << 16];
  int in = open(from, O_RDONLY | O_CLOEXEC), out = -1, rc = -1;
  ssize_t r;
  if (in < 0)
    return -1;
  if (rescue_make_parents(to) ||
      (out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644)) < 0)
    goto end;
  while ((r = read(in, buf, sizeof buf)) > 0)
    if (write(out, buf, (size_t)r) != r)
      goto end;
  rc = r < 0 ? -1 : 0;
end:
  if (out >= 0 && close(out))
    rc = -1;
  close(in);
  return rc;
}

int rescue_pseudo_corpus(rescue_store *st, const rescue_pseudo_opts *o, const char *dest_db,
                         rescue_error *err) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_pseudonym_map m;
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_store *dst = NULL;
  rescue_buf jsonl = RESCUE_BUF_INIT, one = RESCUE_BUF_INIT, gname = RESCUE_BUF_INIT,
             missing = RESCUE_BUF_INIT, sid = RESCUE_BUF_INIT, path = RESCUE_BUF_INIT;
  rescue_jdoc *doc = rescue_jdoc_new();
  repl *r = NULL;
  char *tmp_jsonl = NULL;
  int rc = 0, i, n_missing = 0;
  size_t scheme_len;
  const char *scheme_xml = NULL;
  memset(&m, 0, sizeof m);
  if (!doc)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if ((rc = rescue_pseudonym_map_load(st, &m))) {
    rescue_seterr(err, rc, "%s", rescue_store_errmsg(st));
    goto end;
  }
  r = rescue_calloc((size_t)m.n + 1, sizeof *r);
  if (!r) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if ((rc = rescue_sample_iter_new(st, &o->view, o->samples, o->n_samples, &it))) {
    rescue_seterr(err, rc, "%s", rescue_store_errmsg(st));
    goto end;
  }
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    gctx g;
    int first = -1, n = 0, k;
    rescue_jw w;
    const rescue_jnode *obj;
    rescue_jerror je;
    const char *last;
    memset(&g, 0, sizeof g);
    if (strcmp(s->status, "discarded") == 0 || !s->complete)
      continue; /* exports leave these out too */
    rescue_buf_reset(&gname);
    rescue_sample_group(s->sample_id, &gname);
    for (i = 0; i < m.n; i++)
      if (strcmp(m.items[i].group, gname.s ? gname.s : "") == 0) {
        if (first < 0)
          first = i;
        if (!m.items[i].pseudonym) {
          rescue_buf_printf(&missing, "%s%s%s%s", n_missing++ ? ", " : "",
                            m.items[i].real ? m.items[i].real : "group ",
                            m.items[i].real ? " in " : "", m.items[i].group);
        } else if (m.items[i].real) {
          r[n].real = m.items[i].real;
          r[n].rlen = strlen(m.items[i].real);
          r[n].pseudo = m.items[i].pseudonym;
          n++;
        }
      }
    if (first < 0 || n_missing)
      continue;
    qsort(r, (size_t)n, sizeof *r, by_length_desc);
    g.group = m.items[first].group;
    g.group_ps = m.items[first].pseudonym;
    g.r = r;
    g.n = n;
    g.sample_id = s->sample_id;
    /* the sample id: the group's pseudonym, then the last component with names replaced */
    last = strrchr(s->sample_id, '/');
    rescue_buf_reset(&sid);
    if (last) {
      rescue_buf_puts(&sid, g.group_ps);
      rescue_buf_putc(&sid, '/');
      g.sample_ps = "";
      g.sample_id = "";
      pseudo_string(&g, last + 1, strlen(last + 1), &sid);
    } else {
      g.sample_ps = "";
      g.sample_id = "";
      pseudo_string(&g, s->sample_id, strlen(s->sample_id), &sid);
    }
    g.sample_id = s->sample_id;
    g.sample_ps = sid.s ? sid.s : "";
    /* the sample as the view shows it, rewritten string by string */
    rescue_buf_reset(&one);
    rescue_sample_write_json(sc, s, &one);
    if (!rescue_buf_ok(&one) || !(obj = rescue_jparse(doc, one.s, one.len, &je))) {
      rc = rescue_seterr(err, RESCUE_EINTERNAL, "sample '%s' does not read back", s->sample_id);
      break;
    }
    rescue_jw_init(&w, &jsonl);
    pseudo_value(&g, obj, &w, 1);
    rescue_buf_putc(&jsonl, '\n');
    /* media: the row clips, under the pseudonymised id */
    if (o->media_dir) {
      sqlite3_stmt *q = rescue_store_stmt(st, "pseudo_clips");
      if (!q) {
        rc = rescue_seterr(err, RESCUE_ESQL, "%s", rescue_store_errmsg(st));
        break;
      }
      rescue_bind_int(q, ":sample_ref", s->ref);
      while (sqlite3_step(q) == SQLITE_ROW) {
        const char *from = (const char *)sqlite3_column_text(q, 1), *ext = strrchr(from, '.');
        rescue_buf_reset(&path);
        rescue_buf_printf(&path, "%s/%s/clips/%03d%s", o->media_dir, g.sample_ps,
                          sqlite3_column_int(q, 0), ext && !strchr(ext, '/') ? ext : "");
        if (copy_file(from, path.s)) {
          rc = rescue_seterr(err, RESCUE_EIO, "%s: cannot copy the clip to %s: %s", from, path.s,
                             strerror(errno));
          break;
        }
      }
      sqlite3_reset(q);
      if (rc)
        break;
    }
    (void)k;
  }
  if (rc < 0)
    goto end;
  rc = 0;
  if (n_missing) {
    rc = rescue_seterr_arg(err, RESCUE_EINVAL, "pseudonyms", "no pseudonym for %s", missing.s);
    goto end;
  }
  if (!rescue_buf_ok(&jsonl) || !rescue_buf_ok(&sid) || !rescue_buf_ok(&missing)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  /* the copy: a corpus of its own with the same scheme */
  {
    sqlite3_stmt *q = rescue_store_stmt(st, "meta_get");
    if (q) {
      rescue_bind_text(q, ":key", "scheme", -1);
      if (sqlite3_step(q) == SQLITE_ROW) {
        scheme_len = (size_t)sqlite3_column_bytes(q, 0);
        scheme_xml = rescue_strndup((const char *)sqlite3_column_text(q, 0), scheme_len);
      }
      sqlite3_reset(q);
    }
  }
  if ((rc = rescue_store_create(dest_db, scheme_xml, scheme_xml ? scheme_len : 0, err)) ||
      (rc = rescue_store_open(&dst, dest_db, 0, err)))
    goto end;
  {
    /* what every dataset card made from the copy says about it */
    sqlite3_stmt *q = rescue_store_stmt(dst, "meta_put");
    if (!q) {
      rc = rescue_seterr(err, RESCUE_ESQL, "%s", rescue_store_errmsg(dst));
      goto end;
    }
    rescue_bind_text(q, ":key", "card_notice", -1);
    rescue_bind_text(
        q, ":value",
        o->media_dir
            ? "Pseudonymised: participants, group names and sample ids were replaced by "
              "pseudonyms in every field and in the free text (rescue export --pseudonymise), "
              "and the export passed rescue's leak check for real names. The clips in `media/` "
              "are the original recordings: faces and voices in them are NOT anonymised."
            : "Pseudonymised: participants, group names and sample ids were replaced by "
              "pseudonyms in every field and in the free text (rescue export --pseudonymise), "
              "and the export passed rescue's leak check for real names. No clips are "
              "included and clip paths are empty.",
        -1);
    if (sqlite3_step(q) != SQLITE_DONE)
      rc = rescue_seterr(err, RESCUE_ESQL, "%s", sqlite3_errmsg(rescue_store_db(dst)));
    sqlite3_reset(q);
    if (rc)
      goto end;
  }
  if (jsonl.len) {
    rescue_import_opts io = {0};
    rescue_import_result ir;
    FILE *f;
    const char *paths[1];
    size_t plen = strlen(dest_db) + 8;
    memset(&ir, 0, sizeof ir);
    tmp_jsonl = rescue_malloc(plen);
    if (!tmp_jsonl) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    snprintf(tmp_jsonl, plen, "%s.jsonl", dest_db);
    if (!(f = fopen(tmp_jsonl, "wx")) || fwrite(jsonl.s, 1, jsonl.len, f) != jsonl.len ||
        fclose(f)) {
      rc = rescue_seterr(err, RESCUE_EIO, "%s: %s", tmp_jsonl, strerror(errno));
      goto end;
    }
    io.format = RESCUE_FMT_JSONL;
    paths[0] = tmp_jsonl;
    if ((rc = rescue_import(dst, paths, 1, &io, &ir))) {
      rescue_seterr(err, rc, "the pseudonymised samples: %s", rescue_store_errmsg(dst));
      goto end;
    }
  }
  /* the latest split, group by group */
  {
    sqlite3_stmt *q = rescue_store_stmt(st, "pseudo_split_groups"), *w;
    int64_t run = 0;
    int started = 0;
    if (!q) {
      rc = rescue_seterr(err, RESCUE_ESQL, "%s", rescue_store_errmsg(st));
      goto end;
    }
    while (sqlite3_step(q) == SQLITE_ROW) {
      const char *g = (const char *)sqlite3_column_text(q, 0);
      const char *ps = NULL;
      int64_t gid = 0;
      for (i = 0; i < m.n; i++)
        if (!m.items[i].real && strcmp(m.items[i].group, g) == 0)
          ps = m.items[i].pseudonym;
      if (!ps || group_id(dst, ps, &gid))
        continue; /* a group with no exported sample */
      if (!started) {
        if ((rc = rescue_store_begin(dst)))
          break;
        started = 1;
        w = rescue_store_stmt(dst, "pseudo_split_run_insert");
        if (!w) {
          rc = RESCUE_ESQL;
          break;
        }
        rescue_bind_text(w, ":now", (const char *)sqlite3_column_text(q, 2), -1);
        rescue_bind_int(w, ":seed", sqlite3_column_int64(q, 3));
        rescue_bind_text(w, ":ratios", (const char *)sqlite3_column_text(q, 4), -1);
        rescue_bind_int(w, ":stratify", sqlite3_column_int64(q, 5));
        if (sqlite3_step(w) != SQLITE_DONE) {
          sqlite3_reset(w);
          rc = RESCUE_ESQL;
          break;
        }
        sqlite3_reset(w);
        run = sqlite3_last_insert_rowid(rescue_store_db(dst));
      }
      if (!(w = rescue_store_stmt(dst, "split_group_insert"))) {
        rc = RESCUE_ESQL;
        break;
      }
      rescue_bind_int(w, ":run_id", run);
      rescue_bind_int(w, ":group_id", gid);
      rescue_bind_text(w, ":split", (const char *)sqlite3_column_text(q, 1), -1);
      if (sqlite3_step(w) != SQLITE_DONE)
        rc = RESCUE_ESQL;
      sqlite3_reset(w);
      if (rc)
        break;
    }
    sqlite3_reset(q);
    if (started)
      rc = rc ? (rescue_store_rollback(dst), rc) : rescue_store_commit(dst);
    if (rc) {
      rescue_seterr(err, rc, "carrying the split over: %s", rescue_store_errmsg(dst));
      goto end;
    }
  }
end:
  if (tmp_jsonl) {
    unlink(tmp_jsonl);
    rescue_free(tmp_jsonl);
  }
  rescue_store_close(&dst);
  if (rc && dest_db) {
    char side[4096];
    unlink(dest_db);
    snprintf(side, sizeof side, "%s-wal", dest_db);
    unlink(side);
    snprintf(side, sizeof side, "%s-shm", dest_db);
    unlink(side);
  }
  rescue_sample_iter_free(&it);
  rescue_pseudonym_map_clear(&m);
  rescue_jdoc_free(&doc);
  rescue_free(r);
  rescue_free((void *)scheme_xml);
  rescue_buf_clear(&jsonl);
  rescue_buf_clear(&one);
  rescue_buf_clear(&gname);
  rescue_buf_clear(&missing);
  rescue_buf_clear(&sid);
  rescue_buf_clear(&path);
  return rc;
}

/* ---- the leak check ---- */

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
  long *review_lower; /* per candidate: sightings in lower case (second pass) */
  int pass2;          /* second pass: only lower-case sightings of candidates */
  int rc;
} lctx;

static void leak_add(lctx *L, const char *field, const char *name) {
  rescue_leak *nl;
  if (L->rc)
    return;
  nl = rescue_realloc(L->rep->leaks, (size_t)(L->rep->n + 1) * sizeof *nl);
  if (!nl) {
    L->rc = RESCUE_ENOMEM;
    return;
  }
  L->rep->leaks = nl;
  nl += L->rep->n;
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
  if (rescue_scheme_is_reserved(L->sc, tmp))
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
  if (L->review.n == L->review_cap) {
    int cap = L->review_cap ? 2 * L->review_cap : 16;
    long *nc = rescue_realloc(L->review_count, (size_t)cap * sizeof *nc);
    if (!nc) {
      L->rc = RESCUE_ENOMEM;
      return;
    }
    L->review_count = nc;
    L->review_cap = cap;
  }
  if (names_add(&L->review, s, len)) {
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
    if (((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z')) && !word_before(s, i)) {
      size_t j = i + 1;
      while (j < len && ((s[j] >= 'a' && s[j] <= 'z') || (s[j] >= 'A' && s[j] <= 'Z')))
        j++;
      if (word_after(s, len, j)) { /* a word with other letters: not a candidate */
        while (j < len && word_after(s, len, j))
          j++;
      } else if (L->pass2 && c >= 'a' && c <= 'z') {
        int k;
        for (k = 0; k < L->review.n; k++)
          if (strlen(L->review.v[k]) == j - i && strncasecmp(L->review.v[k], s + i, j - i) == 0)
            L->review_lower[k]++;
      } else if (!L->pass2 && c <= 'Z' && !sentence_start && j - i >= 3 &&
                 !known_name(L, s + i, j - i)) {
        review_add(L, s + i, j - i);
      }
      sentence_start = 0;
      i = j;
      continue;
    }
    if (c == '.' || c == '!' || c == '?' || c == '"' || c == '\n' || c == ':' || c == '-')
      sentence_start = 1;
    else if (word_after(s, len, i))
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
        if (word_at(s, len, i, L->r[k].real, L->r[k].rlen)) {
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
  int n = 0, i, rc = 0;
  if (lstat(path, &sb))
    return RESCUE_EIO;
  if (S_ISREG(sb.st_mode))
    return leak_file(L, path);
  if (!S_ISDIR(sb.st_mode))
    return 0;
  if (!(d = opendir(path)))
    return RESCUE_EIO;
  while ((de = readdir(d)) != NULL) {
    char **nk;
    size_t len;
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    nk = rescue_realloc(kids, (size_t)(n + 1) * sizeof *nk);
    if (!nk) {
      rc = RESCUE_ENOMEM;
      break;
    }
    kids = nk;
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

int rescue_leakcheck(rescue_store *st, const char *path, rescue_leak_report *rep) {
  rescue_pseudonym_map m;
  lctx L;
  repl *r = NULL;
  int rc, i, n = 0;
  struct stat sb;
  memset(rep, 0, sizeof *rep);
  memset(&L, 0, sizeof L);
  if (stat(path, &sb))
    return rescue_seterr(rescue_store_err(st), RESCUE_EIO, "%s: %s", path, strerror(errno));
  if ((rc = rescue_pseudonym_map_load(st, &m)))
    return rc;
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
    if (dup || !*real)
      continue;
    r[n].real = real;
    r[n].rlen = strlen(real);
    n++;
  }
  qsort(r, (size_t)n, sizeof *r, by_length_desc);
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
  /* names to review, most frequent first */
  for (i = 0; i < L.review.n; i++) {
    char **nr;
    char line[128];
    int k, best = i;
    for (k = i + 1; k < L.review.n; k++)
      if (L.review_count[k] > L.review_count[best])
        best = k;
    if (best != i) {
      char *t = L.review.v[i];
      long c = L.review_count[i];
      L.review.v[i] = L.review.v[best];
      L.review_count[i] = L.review_count[best];
      L.review.v[best] = t;
      L.review_count[best] = c;
    }
    if (L.review_count[i] < 0)
      break; /* the rest were all seen in lower case: ordinary words */
    if (!(nr = rescue_realloc(rep->review, (size_t)(rep->n_review + 1) * sizeof *nr)))
      break;
    rep->review = nr;
    snprintf(line, sizeof line, "%s (%ld)", L.review.v[i], L.review_count[i]);
    if ((nr[rep->n_review] = rescue_strdup(line)) != NULL)
      rep->n_review++;
  }
end:
  names_free(&L.review);
  rescue_free(L.review_count);
  rescue_free(L.review_lower);
  rescue_free(r);
  rescue_pseudonym_map_clear(&m);
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

/* ---- the audit trail ---- */

int rescue_audit_add(rescue_store *st, const rescue_audit_entry *e) {
  sqlite3_stmt *q;
  struct passwd *pw = getpwuid(geteuid());
  char now[32], uid[32];
  int rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  if (!(q = rescue_store_stmt(st, "audit_insert"))) {
    rescue_store_rollback(st);
    return rescue_store_err(st)->code;
  }
  snprintf(uid, sizeof uid, "uid %ld", (long)geteuid());
  rescue_now_iso(now);
  rescue_bind_text(q, ":now", now, -1);
  rescue_bind_text(q, ":action", e->action, -1);
  rescue_bind_text(q, ":os_user", pw && pw->pw_name ? pw->pw_name : uid, -1);
  rescue_bind_text(q, ":annotator", e->annotator, -1);
  rescue_bind_text(q, ":command", e->command ? e->command : "", -1);
  rescue_bind_text(q, ":view", e->view, -1);
  rescue_bind_int(q, ":pseudonymised", e->pseudonymised);
  rescue_bind_text(q, ":output", e->output, -1);
  rescue_bind_text(q, ":output_sha256", e->output_sha256, -1);
  rescue_bind_text(q, ":detail", e->detail, -1);
  rc = sqlite3_step(q) == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "recording the audit entry");
  sqlite3_reset(q);
  if (rc) {
    rescue_store_rollback(st);
    return rc;
  }
  return rescue_store_commit(st);
}

int rescue_audit_log(rescue_store *st, int text, rescue_buf *out) {
  sqlite3_stmt *q = rescue_store_stmt(st, "audit_log");
  rescue_jw w;
  static const char *const col[] = {"time", "action",        "os_user", "annotator",     "command",
                                    "view", "pseudonymised", "output",  "output_sha256", "detail"};
  if (!q)
    return rescue_store_err(st)->code;
  if (!text) {
    rescue_jw_init(&w, out);
    rescue_jw_arr(&w);
  }
  while (sqlite3_step(q) == SQLITE_ROW) {
    int i;
    if (text) {
      const char *user = (const char *)sqlite3_column_text(q, 2);
      const char *ann = (const char *)sqlite3_column_text(q, 3);
      rescue_buf_printf(out, "%s  %-10s  %s%s%s%s", sqlite3_column_text(q, 0),
                        sqlite3_column_text(q, 1), user ? user : "-", ann ? " (" : "",
                        ann ? ann : "", ann ? ")" : "");
      if (sqlite3_column_type(q, 5) != SQLITE_NULL)
        rescue_buf_printf(out, "  view %s", sqlite3_column_text(q, 5));
      if (sqlite3_column_int(q, 6))
        rescue_buf_puts(out, "  pseudonymised");
      if (sqlite3_column_type(q, 9) != SQLITE_NULL)
        rescue_buf_printf(out, "  %s", sqlite3_column_text(q, 9));
      if (sqlite3_column_type(q, 7) != SQLITE_NULL)
        rescue_buf_printf(out, "  -> %s", sqlite3_column_text(q, 7));
      if (sqlite3_column_type(q, 8) != SQLITE_NULL)
        rescue_buf_printf(out, " (sha256 %.12s)", sqlite3_column_text(q, 8));
      if (sqlite3_column_type(q, 4) != SQLITE_NULL && sqlite3_column_bytes(q, 4))
        rescue_buf_printf(out, "\n      %s", sqlite3_column_text(q, 4));
      rescue_buf_putc(out, '\n');
      continue;
    }
    rescue_jw_obj(&w);
    for (i = 0; i < 10; i++) {
      rescue_jw_key(&w, col[i]);
      if (i == 6)
        rescue_jw_bool(&w, sqlite3_column_int(q, i));
      else if (sqlite3_column_type(q, i) == SQLITE_NULL)
        rescue_jw_null(&w);
      else
        rescue_jw_str(&w, (const char *)sqlite3_column_text(q, i));
    }
    rescue_jw_end(&w);
  }
  sqlite3_reset(q);
  if (!text)
    rescue_jw_end(&w);
  return rescue_buf_ok(out) ? 0 : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
}

/* ---- output digests ---- */

static int file_digest(const char *path, char hex[65]) {
  int fd = open(path, O_RDONLY | O_CLOEXEC);
  char buf[1 << 16];
  ssize_t r;
  rescue_sha256 h;
  if (fd < 0)
    return -1;
  rescue_sha256_init(&h);
  while ((r = read(fd, buf, sizeof buf)) > 0)
    rescue_sha256_update(&h, buf, (size_t)r);
  close(fd);
  if (r < 0)
    return -1;
  rescue_sha256_hex(&h, hex);
  return 0;
}

static int list_files(const char *root, const char *rel, names *out) {
  char full[4096];
  DIR *d;
  struct dirent *de;
  snprintf(full, sizeof full, "%s%s%s", root, *rel ? "/" : "", rel);
  if (!(d = opendir(full)))
    return -1;
  while ((de = readdir(d)) != NULL) {
    char sub[4096];
    struct stat sb;
    if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
      continue;
    if ((size_t)snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", de->d_name) >=
            sizeof sub ||
        (size_t)snprintf(full, sizeof full, "%s/%s", root, sub) >= sizeof full)
      continue;
    if (lstat(full, &sb))
      continue;
    if (S_ISDIR(sb.st_mode))
      list_files(root, sub, out);
    else if (S_ISREG(sb.st_mode) && names_add(out, sub, strlen(sub)))
      break;
  }
  closedir(d);
  return 0;
}

int rescue_output_digest(const char *path, char hex[65], rescue_error *err) {
  struct stat sb;
  char manifest[4096];
  names files = {0, 0, NULL};
  rescue_sha256 h;
  int i;
  if (stat(path, &sb))
    return rescue_seterr(err, RESCUE_EIO, "%s: %s", path, strerror(errno));
  if (!S_ISDIR(sb.st_mode))
    return file_digest(path, hex) ? rescue_seterr(err, RESCUE_EIO, "%s: %s", path, strerror(errno))
                                  : 0;
  snprintf(manifest, sizeof manifest, "%s/manifest.json", path);
  if (file_digest(manifest, hex) == 0)
    return 0;
  list_files(path, "", &files);
  qsort(files.v, (size_t)files.n, sizeof *files.v, by_name);
  rescue_sha256_init(&h);
  for (i = 0; i < files.n; i++) {
    char one[65], full[4096];
    snprintf(full, sizeof full, "%s/%s", path, files.v[i]);
    if (file_digest(full, one))
      continue;
    rescue_sha256_update(&h, files.v[i], strlen(files.v[i]) + 1);
    rescue_sha256_update(&h, one, 64);
  }
  rescue_sha256_hex(&h, hex);
  names_free(&files);
  return 0;
}
