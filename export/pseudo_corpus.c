/*
** pseudo_corpus.c: the pseudonymised copy of a corpus, a new corpus holding the samples
** of a view with every name replaced by the pseudonym map (rescue_privacy.h).
*/
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privacy_int.h"
#include "rescue_alloc.h"
#include "rescue_import.h"
#include "rescue_json.h"
#include "rescue_output.h"
#include "rescue_privacy.h"
#include "store_int.h"

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
      } else if (gl && pv_word_at(s, len, i, g->group, gl)) {
        rescue_buf_putn(&t, s + start, i - start);
        rescue_buf_puts(&t, g->group_ps);
        i += gl;
        start = i;
      } else {
        i++;
      }
    }
    rescue_buf_putn(&t, s + start, len - start);
    pv_replace_words(g->r, g->n, t.s ? t.s : "", t.len, out);
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
    qsort(r, (size_t)n, sizeof *r, pv_by_length_desc);
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
      if (!ps || pv_group_id(dst, ps, &gid))
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
