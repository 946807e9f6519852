/*
** pseudonym.c: the pseudonym map of a corpus: loading it, giving pseudonyms automatically
** or by hand, and its JSON (rescue_privacy.h).
*/
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privacy_int.h"
#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_output.h"
#include "rescue_privacy.h"
#include "rescue_sha256.h"
#include "store_int.h"

/* A value of a person field worth a pseudonym: not empty, not a reserved entity. */
static int is_entity_to_map(const rescue_scheme *sc, const char *s, size_t len) {
  size_t a, b;
  rescue_pystrip(s, len, &a, &b);
  if (a == b)
    return 0; /* "" is no one */
  return !pv_reserved(sc, s + a, b - a);
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
          rc = pv_names_add(ns, c->s + a, e - a);
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
        rc = pv_names_add(ns, p, len);
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

/* Append an entry (strings copied) to m, whose items have room for *cap. 0 or RESCUE_ENOMEM. */
static int map_add(rescue_pseudonym_map *m, int *cap, const char *group, const char *real,
                   const char *ps, const char *how, const char *at) {
  rescue_pseudonym *it;
  if (RESCUE_ALLOC_GROW(m->items, m->n + 1, *cap))
    return RESCUE_ENOMEM;
  it = &m->items[m->n];
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
  int n_g = 0, cap_ids = 0, cap_names = 0, cap_items = 0, i, j, rc = 0, found;
  memset(m, 0, sizeof *m);
  if (!(q = rescue_store_stmt(st, "split_groups")))
    return rescue_store_err(st)->code;
  while (sqlite3_step(q) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(gids, n_g + 1, cap_ids) ||
        RESCUE_ALLOC_GROW(gnames, n_g + 1, cap_names) ||
        !(gnames[n_g] = rescue_strdup((const char *)sqlite3_column_text(q, 1)))) {
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
    rc = map_add(m, &cap_items, gnames[i], NULL, found ? ps.s : NULL, found ? how.s : NULL,
                 found ? at.s : NULL);
    if (!rc)
      rc = group_participants(st, gids[i], &ns);
    for (j = 0; j < ns.n && !rc; j++) {
      if ((rc = lookup(st, gids[i], ns.v[j], &ps, &how, &at, &found)))
        break;
      rc = map_add(m, &cap_items, gnames[i], ns.v[j], found ? ps.s : NULL, found ? how.s : NULL,
                   found ? at.s : NULL);
    }
    pv_names_free(&ns);
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

int pv_group_id(rescue_store *st, const char *name, int64_t *id) {
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
    if ((rc = pv_group_id(st, it->group, &gid)))
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
    if ((rc = pv_group_id(st, it->group, &gid)) || (rc = put(st, gid, it->real, pseudonym, "set")))
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
  if (!rc) {
    rescue_audit_entry e = {0};
    e.action = "pseudonyms";
    e.detail = auto_too ? "auto" : "set";
    rc = rescue_audit_write(st, &e);
  }
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

/* The person fields of the scheme: is `key` one (an entity or entities field, or child)? */
static int person_key(const rescue_scheme *sc, const char *key) {
  int i;
  for (i = 0; key && i < sc->n_fields; i++) {
    const rescue_field *f = &sc->fields[i], *c = NULL;
    if (strcmp(f->key, key) != 0 && !(c = rescue_field_child(f, key)))
      continue;
    f = c ? c : f;
    return f->type == RESCUE_F_ENTITY || f->type == RESCUE_F_ENTITIES;
  }
  return 0;
}

/* Add every person named in JSON value n (under key) to ns: participants and person fields. */
static int view_names_walk(const rescue_scheme *sc, const rescue_jnode *n, const char *key,
                           names *ns) {
  const rescue_jnode *c;
  int rc = 0;
  switch (n->type) {
  case RESCUE_JSTRING:
    if (key && (strcmp(key, "participants") == 0 || person_key(sc, key)) &&
        is_entity_to_map(sc, n->s, n->len)) {
      size_t a, b;
      rescue_pystrip(n->s, n->len, &a, &b);
      rc = pv_names_add(ns, n->s + a, b - a);
    }
    return rc;
  case RESCUE_JARRAY:
    for (c = n->child; c && !rc; c = c->next)
      rc = view_names_walk(sc, c, key, ns);
    return rc;
  case RESCUE_JOBJECT:
    for (c = n->child; c && !rc; c = c->next)
      rc = view_names_walk(sc, c, c->key, ns);
    return rc;
  default: return 0;
  }
}

/* What the export loop's step of pv_map_of_view collects: "<group>\x1F<name>" and groups. */
typedef struct view_names {
  rescue_store *st;
  rescue_jdoc *doc;
  rescue_buf json, key;
  names sample, used; /* one sample's names; every group and group\x1Fname seen */
} view_names;

/* The export loop's step: the group and the names of sample s as the view shows it. */
static int view_names_one(void *arg, const rescue_sample *s) {
  view_names *vn = arg;
  const rescue_scheme *sc = rescue_store_scheme(vn->st);
  const rescue_jnode *obj;
  rescue_jerror je;
  int rc, i;
  rescue_buf_reset(&vn->json);
  rescue_sample_write_json(sc, s, &vn->json);
  if (!rescue_buf_ok(&vn->json))
    return RESCUE_ENOMEM;
  if (!(obj = rescue_jparse(vn->doc, vn->json.s, vn->json.len, &je)))
    return rescue_seterr(rescue_store_err(vn->st), RESCUE_EINTERNAL,
                         "sample '%s' does not read back", s->sample_id);
  pv_names_free(&vn->sample);
  if ((rc = view_names_walk(sc, obj, NULL, &vn->sample)))
    return rc;
  rescue_buf_reset(&vn->key);
  rescue_sample_group(s->sample_id, &vn->key);
  if (!rescue_buf_ok(&vn->key) || pv_names_add(&vn->used, vn->key.s, vn->key.len))
    return RESCUE_ENOMEM;
  for (i = 0; i < vn->sample.n; i++) {
    rescue_buf_reset(&vn->key);
    rescue_sample_group(s->sample_id, &vn->key);
    rescue_buf_printf(&vn->key, "\x1F%s", vn->sample.v[i]);
    if (!rescue_buf_ok(&vn->key) || pv_names_add(&vn->used, vn->key.s, vn->key.len))
      return RESCUE_ENOMEM;
  }
  return 0;
}

/* Is s in ns? */
static int names_has(const names *ns, const char *s) {
  int i;
  for (i = 0; i < ns->n; i++)
    if (strcmp(ns->v[i], s) == 0)
      return 1;
  return 0;
}

int pv_map_of_view(rescue_store *st, const rescue_view *v, const char *const *samples, int n,
                   rescue_pseudonym_map *m) {
  view_names vn = {st, NULL, RESCUE_BUF_INIT, RESCUE_BUF_INIT, {0, 0, NULL}, {0, 0, NULL}};
  rescue_export_loop loop = {
      .view = v, .samples = samples, .n_samples = n, .each = view_names_one, .arg = &vn};
  rescue_export_tally tally;
  rescue_pseudonym_map all;
  int rc, i, cap = 0;
  memset(m, 0, sizeof *m);
  if ((rc = rescue_pseudonym_map_load(st, &all)))
    return rc;
  if (!(vn.doc = rescue_jdoc_new()))
    rc = RESCUE_ENOMEM;
  if (!rc)
    rc = rescue_export_each(st, &loop, &tally);
  for (i = 0; i < all.n && !rc; i++) {
    /* a name of an exported group that already has a pseudonym stays (it is still
       replaced in free text); one without is needed only where the export names it */
    const rescue_pseudonym *it = &all.items[i];
    int keep = names_has(&vn.used, it->group) && it->pseudonym;
    rescue_buf_reset(&vn.key);
    rescue_buf_puts(&vn.key, it->group);
    if (it->real)
      rescue_buf_printf(&vn.key, "\x1F%s", it->real);
    if (!rescue_buf_ok(&vn.key))
      rc = RESCUE_ENOMEM;
    else if (keep || names_has(&vn.used, vn.key.s))
      rc = map_add(m, &cap, it->group, it->real, it->pseudonym, it->how, it->created_at);
  }
  if (rc == RESCUE_ENOMEM)
    rescue_seterr(rescue_store_err(st), rc, NULL);
  if (rc)
    rescue_pseudonym_map_clear(m);
  rescue_pseudonym_map_clear(&all);
  rescue_jdoc_free(&vn.doc);
  rescue_buf_clear(&vn.json);
  rescue_buf_clear(&vn.key);
  pv_names_free(&vn.sample);
  pv_names_free(&vn.used);
  return rc;
}
