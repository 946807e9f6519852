/*
** media_link.c: `rescue media add` (sources and segment references, from the command
** line or a TSV map), `rescue media list` (what is linked, missing or changed) and the
** duration of a sample's linked media (rescue_sample_media_duration).
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "media_int.h"
#include "rescue_alloc.h"
#include "rescue_media.h"
#include "store_int.h"
#include "strmap_int.h"

/* Span end may pass the probed duration by this much (container rounding). */
#define END_SLACK 0.001

/* ---- TSV maps ---- */

/* Number of UTF-8 characters in s[0..n) (for 1-based columns). */
static int chars(const char *s, size_t n) {
  int c = 0;
  size_t i;
  for (i = 0; i < n; i++)
    c += ((unsigned char)s[i] & 0xC0) != 0x80;
  return c;
}

int rescue_media_parse_time(const char *s, double *out) {
  double parts[3] = {0, 0, 0}, v;
  int n = 0;
  const char *p = s;
  char *end;
  if (!*s)
    return -1;
  for (;;) {
    if (*p < '0' || *p > '9')
      return -1;
    if (n < 2 && strchr(p, ':')) {
      long x = strtol(p, &end, 10);
      if (*end != ':' || x < 0)
        return -1;
      parts[n++] = (double)x;
      p = end + 1;
      continue;
    }
    {
      char buf[64];
      size_t len = strlen(p), i;
      if (len >= sizeof buf)
        return -1;
      memcpy(buf, p, len + 1);
      for (i = 0; i < len; i++)
        if (buf[i] == ',')
          buf[i] = '.';
      errno = 0;
      v = strtod(buf, &end);
      if (*end || errno || !isfinite(v) || v < 0 || (n > 0 && v >= 60))
        return -1;
      if (n == 2 && parts[1] >= 60)
        return -1;
    }
    break;
  }
  *out = n == 2 ? parts[0] * 3600 + parts[1] * 60 + v : n == 1 ? parts[0] * 60 + v : v;
  return 0;
}

void rescue_media_map_clear(rescue_media_map *map) {
  int i;
  for (i = 0; map->links && i < map->n; i++)
    rescue_free((char *)map->links[i].video);
  rescue_free(map->links);
  rescue_free(map->text);
  rescue_free(map->file);
  memset(map, 0, sizeof *map);
}

/*
** Split a map line at its tabs: fields[] (at most 5 kept) with their 1-based character
** columns. Returns the number of fields, counting those past the fifth.
*/
static int split_fields(char *p, char *fields[5], int col[5]) {
  int nf = 0, i;
  fields[nf] = p;
  col[nf++] = 1;
  for (i = 0; p[i]; i++)
    if (p[i] == '\t') {
      p[i] = 0;
      if (nf < 5) {
        fields[nf] = p + i + 1;
        col[nf++] = chars(p, (size_t)i + 1) + 1;
      } else {
        nf++;
      }
    }
  return nf;
}

/*
** Add the link of map line `lineno` (nf fields: sample_id and video, then start and end
** or none): the video relative to dir (the map's folder, "" or ending with '/'), the
** span checked. *cap: map->links' capacity.
*/
static int map_line(rescue_media_map *map, int *cap, const char *path, const char *dir, long lineno,
                    char *const fields[5], const int col[5], int nf, rescue_error *err) {
  rescue_media_link *lk;
  const char *why;
  int i;
  if (nf != 2 && nf != 4)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: expected 4 tab-separated columns (sample_id, video, start, "
                         "end), found %d",
                         path, lineno, nf);
  if ((why = rescue_sample_id_unsafe(fields[0], strlen(fields[0]))) != NULL)
    return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: unsafe sample_id '%s': %s", path,
                         lineno, col[0], fields[0], why);
  if (!*fields[1])
    return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: empty video path", path, lineno,
                         col[1]);
  if (RESCUE_ALLOC_GROW(map->links, map->n + 1, *cap))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  lk = &map->links[map->n];
  memset(lk, 0, sizeof *lk);
  lk->sample_id = fields[0];
  lk->file = map->file;
  lk->line = lineno;
  lk->col_sample = col[0];
  lk->col_video = col[1];
  if (fields[1][0] == '/' || !*dir) {
    lk->video = rescue_strdup(fields[1]);
  } else {
    rescue_buf v = RESCUE_BUF_INIT;
    rescue_buf_printf(&v, "%s%s", dir, fields[1]);
    lk->video = rescue_buf_ok(&v) ? rescue_buf_detach(&v) : NULL;
    rescue_buf_clear(&v);
  }
  if (!lk->video)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  map->n++;
  if (nf != 4)
    return 0;
  lk->col_start = col[2];
  lk->col_end = col[3];
  if (!*fields[2] && !*fields[3])
    return 0;
  if (!*fields[2] || !*fields[3])
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:%d: start and end must both be given or both be empty", path,
                         lineno, *fields[2] ? col[3] : col[2]);
  for (i = 2; i <= 3; i++) {
    double *t = i == 2 ? &lk->start : &lk->end;
    if (rescue_media_parse_time(fields[i], t))
      return rescue_seterr(err, RESCUE_EBADINPUT,
                           "%s:%ld:%d: %s '%s' is not a time (seconds, or h:mm:ss.fff)", path,
                           lineno, col[i], i == 2 ? "start" : "end", fields[i]);
  }
  if (lk->end <= lk->start)
    return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: end %s is not after start %s", path,
                         lineno, col[3], fields[3], fields[2]);
  lk->has_span = 1;
  return 0;
}

int rescue_media_map_read(const char *path, rescue_media_map *map, rescue_error *err) {
  char *line, *dir = NULL, *slash;
  size_t textlen;
  long lineno = 0;
  int cap = 0, rc = 0;

  memset(map, 0, sizeof *map);
  if ((rc = rescue_read_file(path, &map->text, &textlen, err)))
    return rc;
  map->file = rescue_strdup(path);
  dir = rescue_strdup(path);
  if (!map->text || !map->file || !dir) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  slash = strrchr(dir, '/');
  if (slash)
    slash[1] = 0;
  else
    dir[0] = 0;
  line = map->text;
  if ((unsigned char)line[0] == 0xEF && (unsigned char)line[1] == 0xBB &&
      (unsigned char)line[2] == 0xBF)
    line += 3;
  while (!rc && line && *line) {
    char *nl = strchr(line, '\n'), *fields[5], *p;
    int col[5];
    lineno++;
    if (nl)
      *nl = 0;
    if (nl && nl > line && nl[-1] == '\r')
      nl[-1] = 0;
    p = line;
    line = nl ? nl + 1 : NULL;
    if (!*p || *p == '#' || strspn(p, " \t") == strlen(p))
      continue;
    if (lineno == 1 && strncmp(p, "sample_id", 9) == 0)
      continue;
    rc = map_line(map, &cap, path, dir, lineno, fields, col, split_fields(p, fields, col), err);
  }
  if (!rc && map->n == 0)
    rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s: no links in the map", path);
end:
  rescue_free(dir);
  if (rc)
    rescue_media_map_clear(map);
  return rc;
}

/* ---- adding ---- */

/* "file:line:col: " for a link from a map, "" for the command line. */
static void where(const rescue_media_link *lk, int col, char *buf, size_t n) {
  if (lk->file)
    snprintf(buf, n, "%s:%ld:%d: ", lk->file, lk->line, col ? col : 1);
  else
    buf[0] = 0;
}

/* Make an empty sample (no rows yet) so a segment can point at it. */
static int create_sample(rescue_store *st, const char *sample_id, int64_t annotator, int64_t *ref) {
  rescue_buf head = RESCUE_BUF_INIT;
  rescue_sample_input in;
  rescue_put_stats stats;
  int rc;
  memset(&in, 0, sizeof in);
  memset(&stats, 0, sizeof stats);
  rescue_buf_puts(&head, "{\"sample_id\": ");
  rescue_jwrite_string(&head, sample_id, strlen(sample_id));
  rescue_buf_puts(&head, ", \"rows\": ");
  if (!rescue_buf_ok(&head)) {
    rescue_buf_clear(&head);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  in.sample_id = sample_id;
  in.head = head.s;
  in.tail = "}";
  in.has_rows = 1;
  in.given_keys = RESCUE_GIVEN_SAMPLE_ID;
  rc = rescue_store_put_sample(st, &in, annotator, "import", 0, &stats);
  rescue_buf_clear(&head);
  return rc ? rc : rescue_sample_ref(st, sample_id, ref);
}

/* What one link resolved to before anything is written. */
typedef struct prepared {
  rescue_media_info info;
  char *real;   /* the file's absolute path without symlinks */
  char *stored; /* path as stored */
  int same_as;  /* index of an earlier link to the same file (probed there), or -1 */
} prepared;

/*
** The links' sample ids and their resolved files are indexed in string tables (borrowed
** keys, value: link number), so a map of n lines costs O(n), not O(n^2). Both tables are
** reserved for n links up front, where running out of memory is reported; adding then
** never allocates, so it cannot fail.
**
** index_add: the earlier link whose string equals s, or -1 after adding link i under s.
*/
static int index_add(rescue_strmap *x, const char *s, int i) {
  int added;
  int64_t e = rescue_strmap_put(x, s, strlen(s), i, &added);
  return added || e < 0 ? -1 : (int)rescue_strmap_value(x, (uint32_t)e);
}

/*
** The media root, absolute (*root_abs, free()) and as recorded (rootrel: relative to the
** corpus's folder when inside it, empty for that folder itself, else absolute).
** media_root NULL: the corpus's folder.
*/
static int resolve_root(rescue_store *st, const rescue_buf *corpus, const char *media_root,
                        char **root_abs, rescue_buf *rootrel) {
  if (!media_root) {
    *root_abs = realpath(corpus->s, NULL);
    return 0;
  }
  if (!(*root_abs = realpath(media_root, NULL)))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "cannot use the media root '%s': %s",
                         media_root, strerror(errno));
  if (strcmp(*root_abs, corpus->s) == 0) {
    /* the default root */
  } else if (strncmp(*root_abs, corpus->s, corpus->len) == 0 && (*root_abs)[corpus->len] == '/') {
    rescue_buf_puts(rootrel, *root_abs + corpus->len + 1);
  } else {
    rescue_buf_puts(rootrel, *root_abs);
  }
  return 0;
}

/* The links being added, what they resolved to, and the indexes that find repeats. */
typedef struct adding {
  const rescue_media_link *links;
  prepared *pre;
  rescue_strmap by_sample, by_file;
  const char *root_abs;
} adding;

/*
** Check and probe link i before anything is written: its sample named once and safe, its
** file probed (once per file, however many links name it, by any path: they are
** compared resolved), its span inside the file, its path as stored under the root.
*/
static int prepare_link(rescue_error *err, adding *A, int i) {
  const rescue_media_link *lk = &A->links[i];
  prepared *pre = A->pre;
  size_t rl = strlen(A->root_abs);
  char *real, loc[600];
  int k;
  where(lk, lk->col_video, loc, sizeof loc);
  pre[i].same_as = -1;
  if (lk->sample_id && (k = index_add(&A->by_sample, lk->sample_id, i)) >= 0) {
    where(lk, lk->col_sample, loc, sizeof loc);
    return rescue_seterr(err, RESCUE_EBADINPUT, "%ssample '%s' is linked twice (first at line %ld)",
                         loc, lk->sample_id, A->links[k].line);
  }
  if (lk->sample_id && rescue_sample_id_unsafe(lk->sample_id, strlen(lk->sample_id))) {
    where(lk, lk->col_sample, loc, sizeof loc);
    return rescue_seterr(err, RESCUE_EBADINPUT, "%sunsafe sample_id '%s': %s", loc, lk->sample_id,
                         rescue_sample_id_unsafe(lk->sample_id, strlen(lk->sample_id)));
  }
  pre[i].real = realpath(lk->video, NULL);
  if (pre[i].real && (k = index_add(&A->by_file, pre[i].real, i)) >= 0) {
    pre[i].info = pre[k].info;
    pre[i].same_as = k;
  } else {
    int rc = rescue_media_probe(lk->video, &pre[i].info, err);
    if (rc) {
      if (*loc) /* loc ends with ": ", which rescue_err_prefix adds itself */
        rescue_err_prefix(err, "%.*s", (int)strlen(loc) - 2, loc);
      return rc;
    }
  }
  if (lk->has_span) {
    double dur = pre[i].info.duration;
    where(lk, lk->col_end, loc, sizeof loc);
    if (!(lk->start >= 0) || !(lk->end > lk->start))
      return rescue_seterr(err, RESCUE_EBADINPUT, "%sthe span %.3f-%.3f s is empty", loc, lk->start,
                           lk->end);
    if (dur > 0 && lk->end > dur + END_SLACK)
      return rescue_seterr(err, RESCUE_EBADINPUT,
                           "%send %.3f s is past the end of '%s' (%.3f s long)", loc, lk->end,
                           lk->video, dur);
  }
  if (!(real = pre[i].real))
    return rescue_seterr(err, RESCUE_EIO, "%scannot resolve '%s': %s", loc, lk->video,
                         strerror(errno));
  if (strncmp(real, A->root_abs, rl) == 0 && real[rl] == '/')
    pre[i].stored = rescue_strdup(real + rl + 1);
  else if (strcmp(A->root_abs, "/") == 0)
    pre[i].stored = rescue_strdup(real + 1);
  else
    pre[i].stored = rescue_strdup(real);
  if (!pre[i].stored)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  return 0;
}

/*
** The source row of a prepared file (p) under root: the one recorded with the same path,
** size and fingerprint, else a new one (counted in res unless an earlier link of this
** run named the same file). *source_id gets it.
*/
static int record_source(rescue_store *st, const prepared *p, const char *root, const char *now,
                         rescue_media_add_result *res, int64_t *source_id) {
  const rescue_media_info *mi = &p->info;
  sqlite3_stmt *s = rescue_store_stmt(st, "source_find_same");
  rescue_buf streams = RESCUE_BUF_INIT;
  int step;
  *source_id = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":root", root, -1);
  rescue_bind_text(s, ":path", p->stored, -1);
  rescue_bind_int(s, ":size", mi->size);
  rescue_bind_text(s, ":fingerprint", mi->fingerprint, -1);
  step = sqlite3_step(s);
  if (step == SQLITE_ROW)
    *source_id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  if (step != SQLITE_ROW && step != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up a source");
  if (p->same_as >= 0) {
    /* recorded (or found) for an earlier link of this run: counted there */
    return 0;
  }
  if (*source_id) {
    res->sources_known++;
    return 0;
  }
  if (!(s = rescue_store_stmt(st, "source_insert")))
    return rescue_store_err(st)->code;
  rescue_media_streams_json(mi, &streams);
  rescue_bind_text(s, ":root", root, -1);
  rescue_bind_text(s, ":path", p->stored, -1);
  rescue_bind_int(s, ":size", mi->size);
  rescue_bind_int(s, ":mtime", mi->mtime);
  rescue_bind_text(s, ":fingerprint", mi->fingerprint, -1);
  rescue_bind_text(s, ":container", mi->container, -1);
  rescue_bind_double(s, ":duration", mi->duration);
  rescue_bind_double(s, ":start_time", mi->start_time);
  rescue_bind_text(s, ":streams", streams.s ? streams.s : "[]", -1);
  rescue_bind_text(s, ":now", now, -1);
  step = sqlite3_step(s);
  rescue_buf_clear(&streams);
  if (step != SQLITE_ROW)
    return rescue_store_sqlerr(st, "recording a source");
  *source_id = sqlite3_column_int64(s, 0);
  sqlite3_reset(s);
  res->sources_new++;
  return 0;
}

/*
** Point sample `ref` at source_id (lk's span, or the whole file): a new segment
** reference unless the current one already says the same.
*/
static int record_segment(rescue_store *st, const rescue_media_link *lk, int64_t ref,
                          int64_t source_id, const char *now, rescue_media_add_result *res) {
  sqlite3_stmt *s = rescue_store_stmt(st, "segment_current");
  int step;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  step = sqlite3_step(s);
  if (step == SQLITE_ROW && sqlite3_column_int64(s, 1) == source_id &&
      (lk->has_span
           ? sqlite3_column_type(s, 2) != SQLITE_NULL && sqlite3_column_double(s, 2) == lk->start &&
                 sqlite3_column_double(s, 3) == lk->end
           : sqlite3_column_type(s, 2) == SQLITE_NULL)) {
    sqlite3_reset(s);
    res->unchanged++;
    return 0;
  }
  sqlite3_reset(s);
  if (step != SQLITE_ROW && step != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a segment reference");
  if (!(s = rescue_store_stmt(st, "segment_insert")))
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":source_id", source_id);
  if (lk->has_span) {
    rescue_bind_double(s, ":start", lk->start);
    rescue_bind_double(s, ":end", lk->end);
  } else {
    rescue_bind_null(s, ":start");
    rescue_bind_null(s, ":end");
  }
  rescue_bind_text(s, ":now", now, -1);
  if (sqlite3_step(s) != SQLITE_ROW)
    return rescue_store_sqlerr(st, "recording a segment reference");
  sqlite3_reset(s);
  res->segments++;
  return 0;
}

/*
** Write the prepared links in one transaction: each file's source, and for a link with a
** sample (made empty when the store has none yet) its segment reference.
*/
static int record_links(rescue_store *st, const adding *A, int n, const char *root,
                        rescue_media_add_result *res) {
  int64_t annotator = 0;
  int i, rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  for (i = 0; i < n && !rc; i++) {
    const rescue_media_link *lk = &A->links[i];
    int64_t source_id, ref = 0;
    char now[32];
    rescue_now_iso(now);
    if ((rc = record_source(st, &A->pre[i], root, now, res, &source_id)) || !lk->sample_id)
      continue;
    if ((rc = rescue_sample_ref(st, lk->sample_id, &ref)) == RESCUE_ENOTFOUND) {
      if (!annotator && (rc = rescue_annotator_id(st, "import", "annotator", 1, &annotator)))
        break;
      if ((rc = create_sample(st, lk->sample_id, annotator, &ref)))
        break;
      res->samples_new++;
    } else if (rc) {
      break;
    }
    rc = record_segment(st, lk, ref, source_id, now, res);
  }
  if (rc)
    rescue_store_rollback(st);
  else
    rc = rescue_store_commit(st);
  return rc;
}

int rescue_media_add(rescue_store *st, const rescue_media_link *links, int n,
                     const char *media_root, rescue_media_add_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_media_add_result dummy;
  rescue_buf corpus = RESCUE_BUF_INIT, rootrel = RESCUE_BUF_INIT;
  char *root_abs = NULL;
  adding A = {links, NULL, RESCUE_STRMAP_BORROW, RESCUE_STRMAP_BORROW, NULL};
  int i, rc;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  if ((rc = media_corpus_dir(st, &corpus)))
    return rc;
  if ((rc = resolve_root(st, &corpus, media_root, &root_abs, &rootrel)))
    goto end;
  A.root_abs = root_abs;
  A.pre = rescue_calloc((size_t)(n ? n : 1), sizeof *A.pre);
  if (!root_abs || !A.pre || !rescue_buf_ok(&rootrel) ||
      rescue_strmap_reserve(&A.by_sample, (uint32_t)n) ||
      rescue_strmap_reserve(&A.by_file, (uint32_t)n)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  /* probe everything first: nothing is written unless every link is good */
  for (i = 0; i < n && !rc; i++)
    rc = prepare_link(err, &A, i);
  if (!rc)
    rc = record_links(st, &A, n, rootrel.s ? rootrel.s : "", res);
end:
  for (i = 0; A.pre && i < n; i++) {
    free(A.pre[i].real);
    rescue_free(A.pre[i].stored);
  }
  rescue_strmap_clear(&A.by_sample);
  rescue_strmap_clear(&A.by_file);
  rescue_free(A.pre);
  free(root_abs);
  rescue_buf_clear(&corpus);
  rescue_buf_clear(&rootrel);
  return rc;
}

/* ---- listing ---- */

/* Check a stored source against the file on disk: fills state and detail. */
static void check_file(const char *resolved, int64_t size, const char *fp, const char **state,
                       rescue_buf *detail) {
  struct stat sb;
  char now[65];
  rescue_buf_reset(detail);
  if (stat(resolved, &sb) != 0) {
    *state = "missing";
    rescue_buf_printf(detail, "%s", strerror(errno));
    return;
  }
  if ((int64_t)sb.st_size != size) {
    *state = "changed";
    rescue_buf_printf(detail, "%lld bytes, was %lld", (long long)sb.st_size, (long long)size);
    return;
  }
  if (rescue_media_fingerprint(resolved, NULL, now, NULL) != 0) {
    *state = "missing";
    rescue_buf_printf(detail, "cannot read it");
    return;
  }
  if (strcmp(now, fp) != 0) {
    *state = "changed";
    rescue_buf_printf(detail, "content differs (fingerprint %.12s, was %.12s)", now, fp);
    return;
  }
  *state = "ok";
}

int rescue_media_list(rescue_store *st, int (*fn)(void *arg, const rescue_media_entry *e),
                      void *arg, long *n_bad) {
  rescue_buf resolved = RESCUE_BUF_INIT, detail = RESCUE_BUF_INIT;
  sqlite3_stmt *s;
  long bad = 0;
  int rc = 0, step, pass;
  for (pass = 0; pass < 2 && !rc; pass++) {
    s = rescue_store_stmt(st, pass == 0 ? "media_linked" : "media_unlinked");
    if (!s) {
      rc = rescue_store_err(st)->code;
      break;
    }
    if (pass == 0)
      rescue_bind_null(s, ":sample_ref");
    while ((step = sqlite3_step(s)) == SQLITE_ROW) {
      rescue_media_entry e;
      int b = pass == 0 ? 4 : 0; /* first source column */
      memset(&e, 0, sizeof e);
      if (pass == 0) {
        e.sample_id = (const char *)sqlite3_column_text(s, 0);
        e.has_span = sqlite3_column_type(s, 2) != SQLITE_NULL;
        e.start = sqlite3_column_double(s, 2);
        e.end = sqlite3_column_double(s, 3);
        e.relinks = sqlite3_column_int(s, 13) - 1;
      }
      e.path = (const char *)sqlite3_column_text(s, b + 2);
      e.size = sqlite3_column_int64(s, b + 3);
      e.fingerprint = (const char *)sqlite3_column_text(s, b + 4);
      e.duration = sqlite3_column_double(s, b + 5);
      e.container = (const char *)sqlite3_column_text(s, b + 6);
      if ((rc = rescue_media_resolve(st, (const char *)sqlite3_column_text(s, b + 1), e.path,
                                     &resolved)))
        break;
      e.resolved = resolved.s;
      check_file(resolved.s, e.size, e.fingerprint ? e.fingerprint : "", &e.state, &detail);
      e.detail = detail.s ? detail.s : "";
      if (strcmp(e.state, "ok") != 0)
        bad++;
      if (fn && fn(arg, &e))
        break;
    }
    if (!rc && step != SQLITE_ROW && step != SQLITE_DONE)
      rc = rescue_store_sqlerr(st, "listing media");
    sqlite3_reset(s);
  }
  if (n_bad)
    *n_bad = bad;
  rescue_buf_clear(&resolved);
  rescue_buf_clear(&detail);
  return rc;
}

/* ---- durations ---- */

/* rescue_sample_media_duration: see store_int.h. */
int rescue_sample_media_duration(rescue_store *st, int64_t sample_ref, double *d) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_media_duration");
  int rc, found = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", sample_ref);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL) {
    *d = sqlite3_column_double(s, 0);
    found = 1;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading media durations");
  return found;
}
