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

/* What the phases of rescue_pseudo_corpus share. */
typedef struct pctx {
  rescue_store *st;
  const rescue_pseudo_opts *o;
  rescue_error *err;
  rescue_pseudonym_map m;
  repl *r;            /* room for every entry of the map */
  rescue_jdoc *doc;   /* reused for each sample */
  rescue_buf jsonl;   /* the pseudonymised samples, one per line */
  rescue_buf missing; /* "Name in group, ..." without a pseudonym, each once */
  char *missed;       /* per map entry: listed in missing already */
  int n_missing;
  pv_id_pairs *ids; /* the copy's sample ids with their real ones, or NULL */
} pctx;

/*
** The sample id under the pseudonyms of g (whose sample_id and sample_ps are then set):
** the group's pseudonym, then the last component with names replaced.
*/
static void pseudo_sample_id(gctx *g, const char *sample_id, rescue_buf *sid) {
  const char *last = strrchr(sample_id, '/');
  rescue_buf_reset(sid);
  g->sample_ps = "";
  g->sample_id = "";
  if (last) {
    rescue_buf_puts(sid, g->group_ps);
    rescue_buf_putc(sid, '/');
    pseudo_string(g, last + 1, strlen(last + 1), sid);
  } else {
    pseudo_string(g, sample_id, strlen(sample_id), sid);
  }
  g->sample_id = sample_id;
  g->sample_ps = sid->s ? sid->s : "";
}

/*
** The replacements of sample s's group into P->r, longest first, and g's group fields:
** 1 when the group is covered, 0 when it is unknown or lacks a pseudonym (added to
** P->missing).
*/
static int group_repl(pctx *P, const rescue_sample *s, gctx *g, rescue_buf *gname) {
  int i, first = -1, n = 0;
  rescue_buf_reset(gname);
  rescue_sample_group(s->sample_id, gname);
  for (i = 0; i < P->m.n; i++) {
    const rescue_pseudonym *it = &P->m.items[i];
    if (strcmp(it->group, gname->s ? gname->s : "") != 0)
      continue;
    if (first < 0)
      first = i;
    if (!it->pseudonym) {
      if (P->missed[i]++)
        continue; /* named once, not once per sample */
      rescue_buf_printf(&P->missing, "%s%s%s%s", P->n_missing++ ? ", " : "",
                        it->real ? it->real : "group ", it->real ? " in " : "", it->group);
    } else if (it->real) {
      P->r[n].real = it->real;
      P->r[n].rlen = strlen(it->real);
      P->r[n].pseudo = it->pseudonym;
      n++;
    }
  }
  if (first < 0 || P->n_missing)
    return 0;
  qsort(P->r, (size_t)n, sizeof *P->r, pv_by_length_desc);
  g->group = P->m.items[first].group;
  g->group_ps = P->m.items[first].pseudonym;
  g->r = P->r;
  g->n = n;
  return 1;
}

/* Copy the current row clips of sample s to <media_dir>/<pseudonymised id>/clips/. */
static int copy_clips(pctx *P, const rescue_sample *s, const gctx *g, rescue_buf *path) {
  sqlite3_stmt *q = rescue_store_stmt(P->st, "pseudo_clips");
  int rc = 0;
  if (!q)
    return rescue_seterr(P->err, RESCUE_ESQL, "%s", rescue_store_errmsg(P->st));
  rescue_bind_int(q, ":sample_ref", s->ref);
  while (!rc && sqlite3_step(q) == SQLITE_ROW) {
    const char *from = (const char *)sqlite3_column_text(q, 1), *ext = strrchr(from, '.');
    rescue_buf_reset(path);
    rescue_buf_printf(path, "%s/%s/clips/%03d%s", P->o->media_dir, g->sample_ps,
                      sqlite3_column_int(q, 0), ext && !strchr(ext, '/') ? ext : "");
    if (copy_file(from, path->s))
      rc = rescue_seterr(P->err, RESCUE_EIO, "%s: cannot copy the clip to %s: %s", from, path->s,
                         strerror(errno));
  }
  sqlite3_reset(q);
  return rc;
}

/* Note that sample real is the copy's pseudo in p; 0 or RESCUE_ENOMEM. */
static int id_pair_add(pv_id_pairs *p, const char *real, const char *pseudo) {
  long cap = p->cap;
  if (RESCUE_ALLOC_GROW(p->real, p->n + 1, cap) || RESCUE_ALLOC_GROW(p->pseudo, p->n + 1, p->cap))
    return RESCUE_ENOMEM;
  p->real[p->n] = rescue_strdup(real);
  p->pseudo[p->n] = rescue_strdup(pseudo);
  p->n++;
  return p->real[p->n - 1] && p->pseudo[p->n - 1] ? 0 : RESCUE_ENOMEM;
}

void pv_id_pairs_clear(pv_id_pairs *p) {
  long i;
  for (i = 0; i < p->n; i++) {
    rescue_free(p->real[i]);
    rescue_free(p->pseudo[i]);
  }
  rescue_free(p->real);
  rescue_free(p->pseudo);
  memset(p, 0, sizeof *p);
}

/* What phase 1's step needs (pseudo_one): the run and its scratch buffers. */
typedef struct pseudo_loop {
  pctx *P;
  rescue_buf one, gname, sid, path;
  int step_failed; /* the error came from pseudo_one, its message is on P->err */
} pseudo_loop;

/*
** The export loop's step of phase 1: sample s pseudonymised onto P->jsonl (and its clips
** copied); skipped (RESCUE_EXPORT_SKIP) when its group names no one the map covers.
*/
static int pseudo_one(void *arg, const rescue_sample *s) {
  pseudo_loop *l = arg;
  pctx *P = l->P;
  gctx g;
  rescue_jw w;
  const rescue_jnode *obj;
  rescue_jerror je;
  int rc = 0;
  memset(&g, 0, sizeof g);
  if (!group_repl(P, s, &g, &l->gname))
    return RESCUE_EXPORT_SKIP;
  pseudo_sample_id(&g, s->sample_id, &l->sid);
  /* the sample as the view shows it, rewritten string by string */
  rescue_buf_reset(&l->one);
  rescue_sample_write_json(rescue_store_scheme(P->st), s, &l->one);
  if (!rescue_buf_ok(&l->one) || !(obj = rescue_jparse(P->doc, l->one.s, l->one.len, &je)))
    rc = rescue_seterr(P->err, RESCUE_EINTERNAL, "sample '%s' does not read back", s->sample_id);
  if (!rc) {
    rescue_jw_init(&w, &P->jsonl);
    pseudo_value(&g, obj, &w, 1);
    rescue_buf_putc(&P->jsonl, '\n');
    if (P->ids && id_pair_add(P->ids, s->sample_id, g.sample_ps))
      rc = rescue_seterr(P->err, RESCUE_ENOMEM, NULL);
    if (!rc && P->o->media_dir)
      rc = copy_clips(P, s, &g, &l->path);
  }
  l->step_failed = rc != 0;
  return rc;
}

/*
** Phase 1: every exported sample of the view, pseudonymised, into P->jsonl (and its clips
** under the media folder). Discarded and incomplete samples are left out, as exports do
** (the export loop, rescue_export_each).
*/
static int pseudo_samples(pctx *P) {
  pseudo_loop l = {P, RESCUE_BUF_INIT, RESCUE_BUF_INIT, RESCUE_BUF_INIT, RESCUE_BUF_INIT, 0};
  rescue_export_loop loop = {.view = &P->o->view,
                             .samples = P->o->samples,
                             .n_samples = P->o->n_samples,
                             .each = pseudo_one,
                             .arg = &l};
  rescue_export_tally tally;
  int rc = rescue_export_each(P->st, &loop, &tally);
  if (rc && !l.step_failed && P->err != rescue_store_err(P->st))
    rescue_seterr(P->err, rc, "%s", rescue_store_errmsg(P->st));
  else if (rc == 0 && !rescue_buf_ok(&l.sid))
    rc = rescue_seterr(P->err, RESCUE_ENOMEM, NULL);
  rescue_buf_clear(&l.one);
  rescue_buf_clear(&l.gname);
  rescue_buf_clear(&l.sid);
  rescue_buf_clear(&l.path);
  return rc;
}

/*
** Phase 2: the copy, a corpus of its own at dest_db with the scheme of st and the notice
** every dataset card made from it shows. *dst is the open copy.
*/
static int copy_create(pctx *P, const char *dest_db, rescue_store **dst) {
  sqlite3_stmt *q = rescue_store_stmt(P->st, "meta_get");
  char *scheme_xml = NULL;
  size_t scheme_len = 0;
  int rc = 0;
  if (q) {
    rescue_bind_text(q, ":key", "scheme", -1);
    if (sqlite3_step(q) == SQLITE_ROW) {
      scheme_len = (size_t)sqlite3_column_bytes(q, 0);
      scheme_xml = rescue_strndup((const char *)sqlite3_column_text(q, 0), scheme_len);
    }
    sqlite3_reset(q);
  }
  if ((rc = rescue_store_create(dest_db, scheme_xml, scheme_xml ? scheme_len : 0, P->err)) ||
      (rc = rescue_store_open(dst, dest_db, 0, P->err)))
    goto end;
  if (!(q = rescue_store_stmt(*dst, "meta_put"))) {
    rc = rescue_seterr(P->err, RESCUE_ESQL, "%s", rescue_store_errmsg(*dst));
    goto end;
  }
  rescue_bind_text(q, ":key", "card_notice", -1);
  rescue_bind_text(
      q, ":value",
      P->o->media_dir
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
    rc = rescue_seterr(P->err, RESCUE_ESQL, "%s", sqlite3_errmsg(rescue_store_db(*dst)));
  sqlite3_reset(q);
end:
  rescue_free(scheme_xml);
  return rc;
}

/* Phase 3: import the pseudonymised samples into the copy (through <dest_db>.jsonl). */
static int copy_import(pctx *P, rescue_store *dst, const char *dest_db) {
  rescue_import_opts io = {0};
  rescue_import_result ir;
  FILE *f;
  const char *paths[1];
  size_t plen = strlen(dest_db) + 8;
  char *tmp_jsonl = rescue_malloc(plen);
  int rc = 0;
  memset(&ir, 0, sizeof ir);
  if (!tmp_jsonl)
    return rescue_seterr(P->err, RESCUE_ENOMEM, NULL);
  snprintf(tmp_jsonl, plen, "%s.jsonl", dest_db);
  if (!(f = fopen(tmp_jsonl, "wx")) || fwrite(P->jsonl.s, 1, P->jsonl.len, f) != P->jsonl.len ||
      fclose(f)) {
    rc = rescue_seterr(P->err, RESCUE_EIO, "%s: %s", tmp_jsonl, strerror(errno));
    goto end;
  }
  io.format = RESCUE_FMT_JSONL;
  paths[0] = tmp_jsonl;
  if ((rc = rescue_import(dst, paths, 1, &io, &ir)))
    rescue_seterr(P->err, rc, "the pseudonymised samples: %s", rescue_store_errmsg(dst));
end:
  unlink(tmp_jsonl);
  rescue_free(tmp_jsonl);
  return rc;
}

/* The split run of the latest split of the source (row q of pseudo_split_groups) in dst. */
static int split_run_insert(rescue_store *dst, sqlite3_stmt *q, int64_t *run) {
  sqlite3_stmt *w = rescue_store_stmt(dst, "pseudo_split_run_insert");
  int rc = 0;
  if (!w)
    return RESCUE_ESQL;
  rescue_bind_text(w, ":now", (const char *)sqlite3_column_text(q, 2), -1);
  rescue_bind_int(w, ":seed", sqlite3_column_int64(q, 3));
  rescue_bind_text(w, ":ratios", (const char *)sqlite3_column_text(q, 4), -1);
  rescue_bind_int(w, ":stratify", sqlite3_column_int64(q, 5));
  if (sqlite3_step(w) != SQLITE_DONE)
    rc = RESCUE_ESQL;
  sqlite3_reset(w);
  *run = sqlite3_last_insert_rowid(rescue_store_db(dst));
  return rc;
}

/* Phase 4: carry the latest split over to the copy, group by group, in one transaction. */
static int copy_split(pctx *P, rescue_store *dst) {
  sqlite3_stmt *q = rescue_store_stmt(P->st, "pseudo_split_groups"), *w;
  int64_t run = 0;
  int started = 0, rc = 0, i;
  if (!q)
    return rescue_seterr(P->err, RESCUE_ESQL, "%s", rescue_store_errmsg(P->st));
  while (!rc && sqlite3_step(q) == SQLITE_ROW) {
    const char *g = (const char *)sqlite3_column_text(q, 0);
    const char *ps = NULL;
    int64_t gid = 0;
    for (i = 0; i < P->m.n; i++)
      if (!P->m.items[i].real && strcmp(P->m.items[i].group, g) == 0)
        ps = P->m.items[i].pseudonym;
    if (!ps || pv_group_id(dst, ps, &gid))
      continue; /* a group with no exported sample */
    if (!started) {
      if ((rc = rescue_store_begin(dst)))
        break;
      started = 1;
      if ((rc = split_run_insert(dst, q, &run)))
        break;
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
  }
  sqlite3_reset(q);
  if (started)
    rc = rc ? (rescue_store_rollback(dst), rc) : rescue_store_commit(dst);
  if (rc)
    rescue_seterr(P->err, rc, "carrying the split over: %s", rescue_store_errmsg(dst));
  return rc;
}

/* Remove a corpus file and its WAL side files. */
static void remove_corpus(const char *db) {
  char side[4096];
  unlink(db);
  snprintf(side, sizeof side, "%s-wal", db);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", db);
  unlink(side);
}

int pv_pseudo_corpus(rescue_store *st, const rescue_pseudo_opts *o, const rescue_pseudonym_map *m,
                     const char *dest_db, pv_id_pairs *ids, rescue_error *err) {
  pctx P;
  rescue_store *dst = NULL;
  int rc, made = 0;
  memset(&P, 0, sizeof P);
  P.st = st;
  P.o = o;
  P.err = err;
  P.m = *m; /* borrowed: the caller clears it */
  P.ids = ids;
  if (!(P.doc = rescue_jdoc_new()))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (!(P.r = rescue_calloc((size_t)P.m.n + 1, sizeof *P.r)) ||
      !(P.missed = rescue_calloc((size_t)P.m.n + 1, 1))) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if ((rc = pseudo_samples(&P)))
    goto end;
  if (P.n_missing) {
    rc = rescue_seterr_arg(err, RESCUE_EINVAL, "pseudonyms", "no pseudonym for %s", P.missing.s);
    goto end;
  }
  if (!rescue_buf_ok(&P.jsonl) || !rescue_buf_ok(&P.missing)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  made = 1;
  if ((rc = copy_create(&P, dest_db, &dst)))
    goto end;
  if (P.jsonl.len && (rc = copy_import(&P, dst, dest_db)))
    goto end;
  rc = copy_split(&P, dst);
end:
  rescue_store_close(&dst);
  if (rc && made)
    remove_corpus(dest_db);
  rescue_jdoc_free(&P.doc);
  rescue_free(P.r);
  rescue_free(P.missed);
  rescue_buf_clear(&P.jsonl);
  rescue_buf_clear(&P.missing);
  return rc;
}

int rescue_pseudo_corpus(rescue_store *st, const rescue_pseudo_opts *o, const char *dest_db,
                         rescue_error *err) {
  rescue_pseudonym_map m;
  int rc;
  if ((rc = pv_map_of_view(st, &o->view, o->samples, o->n_samples, &m)))
    return rescue_seterr(err, rc, "%s", rescue_store_errmsg(st));
  rc = pv_pseudo_corpus(st, o, &m, dest_db, NULL, err);
  rescue_pseudonym_map_clear(&m);
  return rc;
}
