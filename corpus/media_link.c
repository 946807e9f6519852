/*
** media_link.c: `rescue media add` (sources and segment references, from the command
** line or a TSV map) and `rescue media list` (what is linked, missing or changed).
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
  while (line && *line) {
    char *nl = strchr(line, '\n'), *fields[5], *p;
    int nf = 0, col[5], i;
    rescue_media_link *lk;
    const char *why;
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
    if (nf != 2 && nf != 4) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s:%ld:1: expected 4 tab-separated columns (sample_id, video, start, "
                         "end), found %d",
                         path, lineno, nf);
      goto end;
    }
    if ((why = rescue_sample_id_unsafe(fields[0], strlen(fields[0]))) != NULL) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: unsafe sample_id '%s': %s", path,
                         lineno, col[0], fields[0], why);
      goto end;
    }
    if (!*fields[1]) {
      rc =
          rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: empty video path", path, lineno, col[1]);
      goto end;
    }
    if (map->n == cap) {
      int nc = cap ? cap * 2 : 64;
      rescue_media_link *nl2 = rescue_realloc(map->links, (size_t)nc * sizeof *nl2);
      if (!nl2) {
        rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
        goto end;
      }
      map->links = nl2;
      cap = nc;
    }
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
    if (!lk->video) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    map->n++;
    if (nf == 4) {
      lk->col_start = col[2];
      lk->col_end = col[3];
      if (!*fields[2] && !*fields[3])
        continue;
      if (!*fields[2] || !*fields[3]) {
        rc = rescue_seterr(err, RESCUE_EBADINPUT,
                           "%s:%ld:%d: start and end must both be given or both be empty", path,
                           lineno, *fields[2] ? col[3] : col[2]);
        goto end;
      }
      for (i = 2; i <= 3; i++) {
        double *t = i == 2 ? &lk->start : &lk->end;
        if (rescue_media_parse_time(fields[i], t)) {
          rc = rescue_seterr(err, RESCUE_EBADINPUT,
                             "%s:%ld:%d: %s '%s' is not a time (seconds, or h:mm:ss.fff)", path,
                             lineno, col[i], i == 2 ? "start" : "end", fields[i]);
          goto end;
        }
      }
      if (lk->end <= lk->start) {
        rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s:%ld:%d: end %s is not after start %s", path,
                           lineno, col[3], fields[3], fields[2]);
        goto end;
      }
      lk->has_span = 1;
    }
  }
  if (map->n == 0)
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

int rescue_media_add(rescue_store *st, const rescue_media_link *links, int n,
                     const char *media_root, rescue_media_add_result *res) {
  rescue_error *err = rescue_store_err(st);
  rescue_media_add_result dummy;
  rescue_buf corpus = RESCUE_BUF_INIT, rootrel = RESCUE_BUF_INIT, streams = RESCUE_BUF_INIT;
  prepared *pre = NULL;
  rescue_strmap by_sample = RESCUE_STRMAP_BORROW, by_file = RESCUE_STRMAP_BORROW;
  char *root_abs = NULL, loc[600];
  int64_t annotator = 0;
  int i, k, rc = 0, in_txn = 0;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  if ((rc = media_corpus_dir(st, &corpus)))
    return rc;
  if (media_root) {
    root_abs = realpath(media_root, NULL);
    if (!root_abs) {
      rc = rescue_seterr(err, RESCUE_EINVAL, "cannot use the media root '%s': %s", media_root,
                         strerror(errno));
      goto end;
    }
    if (strcmp(root_abs, corpus.s) == 0) {
      /* the default root */
    } else if (strncmp(root_abs, corpus.s, corpus.len) == 0 && root_abs[corpus.len] == '/') {
      rescue_buf_puts(&rootrel, root_abs + corpus.len + 1);
    } else {
      rescue_buf_puts(&rootrel, root_abs);
    }
  } else {
    root_abs = realpath(corpus.s, NULL);
  }
  pre = rescue_calloc((size_t)(n ? n : 1), sizeof *pre);
  if (!root_abs || !pre || !rescue_buf_ok(&rootrel) ||
      rescue_strmap_reserve(&by_sample, (uint32_t)n) ||
      rescue_strmap_reserve(&by_file, (uint32_t)n)) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  /*
  ** Probe everything first: nothing is written unless every link is good. Each file is
  ** probed once, however many links name it (by any path: they are compared resolved).
  */
  for (i = 0; i < n; i++) {
    const rescue_media_link *lk = &links[i];
    char *real;
    size_t rl = strlen(root_abs);
    where(lk, lk->col_video, loc, sizeof loc);
    pre[i].same_as = -1;
    if (lk->sample_id && (k = index_add(&by_sample, lk->sample_id, i)) >= 0) {
      where(lk, lk->col_sample, loc, sizeof loc);
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "%ssample '%s' is linked twice (first at line %ld)",
                         loc, lk->sample_id, links[k].line);
      goto end;
    }
    if (lk->sample_id && rescue_sample_id_unsafe(lk->sample_id, strlen(lk->sample_id))) {
      where(lk, lk->col_sample, loc, sizeof loc);
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "%sunsafe sample_id '%s': %s", loc, lk->sample_id,
                         rescue_sample_id_unsafe(lk->sample_id, strlen(lk->sample_id)));
      goto end;
    }
    pre[i].real = realpath(lk->video, NULL);
    if (pre[i].real && (k = index_add(&by_file, pre[i].real, i)) >= 0) {
      pre[i].info = pre[k].info;
      pre[i].same_as = k;
    } else if ((rc = rescue_media_probe(lk->video, &pre[i].info, err))) {
      if (*loc) /* loc ends with ": ", which rescue_err_prefix adds itself */
        rescue_err_prefix(err, "%.*s", (int)strlen(loc) - 2, loc);
      goto end;
    }
    if (lk->has_span) {
      double dur = pre[i].info.duration;
      where(lk, lk->col_end, loc, sizeof loc);
      if (!(lk->start >= 0) || !(lk->end > lk->start)) {
        rc = rescue_seterr(err, RESCUE_EBADINPUT, "%sthe span %.3f-%.3f s is empty", loc, lk->start,
                           lk->end);
        goto end;
      }
      if (dur > 0 && lk->end > dur + END_SLACK) {
        rc = rescue_seterr(err, RESCUE_EBADINPUT,
                           "%send %.3f s is past the end of '%s' (%.3f s long)", loc, lk->end,
                           lk->video, dur);
        goto end;
      }
    }
    real = pre[i].real;
    if (!real) {
      rc = rescue_seterr(err, RESCUE_EIO, "%scannot resolve '%s': %s", loc, lk->video,
                         strerror(errno));
      goto end;
    }
    if (strncmp(real, root_abs, rl) == 0 && real[rl] == '/')
      pre[i].stored = rescue_strdup(real + rl + 1);
    else if (strcmp(root_abs, "/") == 0)
      pre[i].stored = rescue_strdup(real + 1);
    else
      pre[i].stored = rescue_strdup(real);
    if (!pre[i].stored) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
  }

  if ((rc = rescue_store_begin(st)))
    goto end;
  in_txn = 1;
  for (i = 0; i < n && !rc; i++) {
    const rescue_media_link *lk = &links[i];
    const rescue_media_info *mi = &pre[i].info;
    const char *root = rootrel.s ? rootrel.s : "";
    sqlite3_stmt *s = rescue_store_stmt(st, "source_find_same");
    int64_t source_id = 0, ref = 0;
    char now[32];
    int step;
    if (!s) {
      rc = err->code;
      break;
    }
    rescue_now_iso(now);
    rescue_bind_text(s, ":root", root, -1);
    rescue_bind_text(s, ":path", pre[i].stored, -1);
    rescue_bind_int(s, ":size", mi->size);
    rescue_bind_text(s, ":fingerprint", mi->fingerprint, -1);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW)
      source_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "looking up a source");
      break;
    }
    if (pre[i].same_as >= 0) {
      /* recorded (or found) for an earlier link of this run: counted there */
    } else if (source_id) {
      res->sources_known++;
    } else {
      rescue_buf_reset(&streams);
      rescue_media_streams_json(mi, &streams);
      if (!(s = rescue_store_stmt(st, "source_insert"))) {
        rc = err->code;
        break;
      }
      rescue_bind_text(s, ":root", root, -1);
      rescue_bind_text(s, ":path", pre[i].stored, -1);
      rescue_bind_int(s, ":size", mi->size);
      rescue_bind_int(s, ":mtime", mi->mtime);
      rescue_bind_text(s, ":fingerprint", mi->fingerprint, -1);
      rescue_bind_text(s, ":container", mi->container, -1);
      rescue_bind_double(s, ":duration", mi->duration);
      rescue_bind_double(s, ":start_time", mi->start_time);
      rescue_bind_text(s, ":streams", streams.s ? streams.s : "[]", -1);
      rescue_bind_text(s, ":now", now, -1);
      if (sqlite3_step(s) != SQLITE_ROW) {
        rc = rescue_store_sqlerr(st, "recording a source");
        break;
      }
      source_id = sqlite3_column_int64(s, 0);
      sqlite3_reset(s);
      res->sources_new++;
    }
    if (!lk->sample_id)
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
    if (!(s = rescue_store_stmt(st, "segment_current"))) {
      rc = err->code;
      break;
    }
    rescue_bind_int(s, ":sample_ref", ref);
    step = sqlite3_step(s);
    if (step == SQLITE_ROW && sqlite3_column_int64(s, 1) == source_id &&
        (lk->has_span ? sqlite3_column_type(s, 2) != SQLITE_NULL &&
                            sqlite3_column_double(s, 2) == lk->start &&
                            sqlite3_column_double(s, 3) == lk->end
                      : sqlite3_column_type(s, 2) == SQLITE_NULL)) {
      sqlite3_reset(s);
      res->unchanged++;
      continue;
    }
    sqlite3_reset(s);
    if (step != SQLITE_ROW && step != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "reading a segment reference");
      break;
    }
    if (!(s = rescue_store_stmt(st, "segment_insert"))) {
      rc = err->code;
      break;
    }
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
    if (sqlite3_step(s) != SQLITE_ROW) {
      rc = rescue_store_sqlerr(st, "recording a segment reference");
      break;
    }
    sqlite3_reset(s);
    res->segments++;
  }
  if (rc)
    rescue_store_rollback(st);
  else
    rc = rescue_store_commit(st);
  in_txn = 0;
end:
  if (in_txn)
    rescue_store_rollback(st);
  for (i = 0; pre && i < n; i++) {
    free(pre[i].real);
    rescue_free(pre[i].stored);
  }
  rescue_strmap_clear(&by_sample);
  rescue_strmap_clear(&by_file);
  rescue_free(pre);
  free(root_abs);
  rescue_buf_clear(&corpus);
  rescue_buf_clear(&rootrel);
  rescue_buf_clear(&streams);
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
