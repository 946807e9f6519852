/*
** import.c: release JSONL, data-root folders and single-sample JSON files into the
** store, streaming (one sample in memory at a time), in one transaction.
*/
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "rescue_alloc.h"
#include "rescue_elan.h"
#include "rescue_import.h"
#include "rescue_similar.h"
#include "rescue_subtitles.h"
#include "store_int.h"
#include "strmap_int.h"
#include "testhooks_int.h"

int rescue_format_parse(const char *name, rescue_format *out) {
  static const struct {
    const char *name;
    rescue_format f;
  } names[] = {{"auto", RESCUE_FMT_AUTO}, {"jsonl", RESCUE_FMT_JSONL},
               {"json", RESCUE_FMT_JSON}, {"data-root", RESCUE_FMT_DATAROOT},
               {"srt", RESCUE_FMT_SRT},   {"vtt", RESCUE_FMT_VTT},
               {"eaf", RESCUE_FMT_EAF}};
  size_t i;
  for (i = 0; i < sizeof names / sizeof names[0]; i++)
    if (strcmp(name, names[i].name) == 0) {
      *out = names[i].f;
      return 0;
    }
  return RESCUE_EINVAL;
}

/* ---- the sample ids seen in this import (duplicate detection) ---- */

/*
** The set maps each id (a copied key) to the "file:line" of its first occurrence (the
** value: a string the set owns). Returns NULL when id was added, its first location when
** it was seen before, or "" when out of memory.
*/
static const char *seen_add(rescue_strmap *set, const char *id, const char *where) {
  char *w = rescue_strdup(where);
  int added = 0;
  int64_t i = w ? rescue_strmap_put(set, id, strlen(id), (intptr_t)w, &added) : -1;
  if (!added)
    rescue_free(w);
  if (i < 0)
    return "";
  return added ? NULL : (const char *)rescue_strmap_value(set, (uint32_t)i);
}

static void seen_free(rescue_strmap *set) {
  uint32_t i;
  for (i = 0; i < rescue_strmap_count(set); i++)
    rescue_free((char *)rescue_strmap_value(set, i));
  rescue_strmap_clear(set);
}

/*
** s as a message shows it: control characters (C0 and DEL) escaped as \u00XX, so an
** unsafe sample_id can neither hide itself nor drive the terminal. Returns b's text.
*/
static const char *shown(rescue_buf *b, const char *s) {
  rescue_buf_reset(b);
  for (; *s; s++) {
    unsigned char c = (unsigned char)*s;
    if (c < 0x20 || c == 0x7f)
      rescue_buf_printf(b, "\\u%04x", c);
    else
      rescue_buf_putc(b, (char)c);
  }
  return rescue_buf_ok(b) && b->s ? b->s : "";
}

/* ---- the import context ---- */

typedef struct importer {
  rescue_store *st;
  rescue_error *err;
  const rescue_import_opts *o;
  rescue_import_result *res;
  int64_t annotator_id;
  int64_t check_annotator; /* the checking pass: who imports (0: a draft not stored yet) */
  rescue_jdoc *doc;
  rescue_strmap seen;
  rescue_row_input *rows; /* reused between samples */
  int cap_rows;
  rescue_buf head, tail, id, where, show1, show2;
  uint64_t done, total;
  int write;           /* 0: the checking pass (nothing is written); 1: the writing pass */
  long long max_value; /* the most bytes the store holds in one value (SQLite's limit) */
  int edit;            /* rescue_import_edits: rows are stored as edits of existing samples */
} importer;

/*
** Bytes of n as rescue_jwrite writes it (the canonical form the store keeps), counted
** without writing: the checking pass refuses what the store could not hold.
*/
static size_t string_len(const char *s, size_t len, int plain) {
  size_t n = len + 2, i;
  if (plain)
    return n;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c == '"' || c == '\\' || c == '\n' || c == '\r' || c == '\t' || c == '\b' || c == '\f')
      n += 1;
    else if (c < 0x20)
      n += 5;
  }
  return n;
}

static size_t canonical_len(const rescue_jnode *n) {
  const rescue_jnode *c;
  size_t len = 2;
  switch (n->type) {
  case RESCUE_JNULL: return 4;
  case RESCUE_JFALSE: return 5;
  case RESCUE_JTRUE: return 4;
  case RESCUE_JNUMBER: return n->len;
  case RESCUE_JSTRING: return string_len(n->s, n->len, n->plain);
  case RESCUE_JARRAY:
    for (c = n->child; c; c = c->next)
      len += canonical_len(c) + (c != n->child ? 2 : 0);
    return len;
  case RESCUE_JOBJECT:
    for (c = n->child; c; c = c->next)
      len += string_len(c->key, c->keylen, c->keyplain) + 2 + canonical_len(c) +
             (c != n->child ? 2 : 0);
    return len;
  }
  return 0;
}

/* "file:line:col: " prefix for a node of a text; the error's code is code. */
static int vbad_at(importer *im, int code, const char *file, long line0, const char *text,
                   size_t len, size_t offset, const char *fmt, va_list ap) {
  char msg[700];
  long line, col;
  vsnprintf(msg, sizeof msg, fmt, ap);
  rescue_jposition(text, len, offset, &line, &col);
  return rescue_seterr(im->err, code, "%s:%ld:%ld: %s", file, line0 + line - 1, col, msg);
}

/* Bad input at a node of a text (RESCUE_EBADINPUT). */
static int bad_at(importer *im, const char *file, long line0, const char *text, size_t len,
                  size_t offset, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

static int bad_at(importer *im, const char *file, long line0, const char *text, size_t len,
                  size_t offset, const char *fmt, ...) {
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = vbad_at(im, RESCUE_EBADINPUT, file, line0, text, len, offset, fmt, ap);
  va_end(ap);
  return rc;
}

/*
** A refusal with another code than bad input, at a node: RESCUE_ERESEGMENT for rows that do
** not line up with the corpus's row set, RESCUE_ECONFLICT for the state the sample is in
** (discarded).
*/
static int refuse_at(importer *im, int code, const char *file, long line0, const char *text,
                     size_t len, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));

static int refuse_at(importer *im, int code, const char *file, long line0, const char *text,
                     size_t len, size_t offset, const char *fmt, ...) {
  va_list ap;
  int rc;
  va_start(ap, fmt);
  rc = vbad_at(im, code, file, line0, text, len, offset, fmt, ap);
  va_end(ap);
  return rc;
}

/* Where check_object reports keys that look like typos of the scheme's names. */
typedef struct typo_ctx {
  importer *im;
  const char *id, *file, *text;
  long line0;
  size_t len;
  int rc;
} typo_ctx;

/* One typo'd key: a note, or under --strict the import's refusal (the first one). */
static void on_typo(void *arg, const rescue_jnode *v, const char *key, const char *resembles,
                    int row, const char *list) {
  typo_ctx *t = arg;
  char where[160], msg[500];
  long line, col;
  rescue_import_note nt;
  if (t->rc)
    return;
  if (row)
    snprintf(where, sizeof where, "row %d: %s%s", row, list, *list ? " item: " : "");
  else
    snprintf(where, sizeof where, "%s", "");
  snprintf(msg, sizeof msg, "sample '%s': %sunknown key '%s' looks like a typo of '%s'%s", t->id,
           where, key, resembles,
           t->im->o->strict ? "" : " (kept as it is; no task reads it under this name)");
  if (t->im->o->strict) {
    t->rc = bad_at(t->im, t->file, t->line0, t->text, t->len, v->offset, "%s", msg);
    return;
  }
  if (!t->im->o->note)
    return;
  rescue_jposition(t->text, t->len, v->offset, &line, &col);
  memset(&nt, 0, sizeof nt);
  nt.kind = "typo";
  nt.file = t->file;
  nt.line = t->line0 + line - 1;
  nt.col = col;
  nt.sample_id = t->id;
  nt.message = msg;
  nt.key = key;
  nt.resembles = resembles;
  t->im->o->note(t->im->o->note_arg, &nt);
}

/*
** The rows of sample id in the row set annotator_id works in (their own, else the base
** one; 0: the base one): *n_rows, or RESCUE_ENOTFOUND for a sample not in the store.
*/
static int rowcount_for(rescue_store *st, const char *id, int64_t annotator_id, int *n_rows) {
  sqlite3_stmt *q;
  int rc;
  if (!annotator_id)
    return rescue_sample_rowcount(st, id, n_rows);
  if (!(q = rescue_store_stmt(st, "sample_find_for")))
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", id, -1);
  rescue_bind_int(q, ":annotator_id", annotator_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *n_rows = sqlite3_column_int(q, 2);
  sqlite3_reset(q);
  return rc == SQLITE_ROW    ? 0
         : rc == SQLITE_DONE ? RESCUE_ENOTFOUND
                             : rescue_store_sqlerr(st, "looking up a sample");
}

/*
** The first row of rows (n of them) whose span does not line up with the row set `who`
** works in for sample id (RESCUE_ERESEGMENT from rescue_store_check_rows, *bad its
** 1-based position), 0 when every row does, or another negative code.
*/
static int misaligned_row(importer *im, const rescue_jnode *rows, const char *id, int n,
                          int64_t who, int *bad) {
  double *v = rescue_calloc(2 * (size_t)n, sizeof *v);
  const rescue_jnode *r;
  int i = 0, rc;
  if (!v)
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
  for (r = rows->child; r; r = r->next, i++) {
    const rescue_jnode *s0 = rescue_jget(r, "start_time"), *e0 = rescue_jget(r, "end_time");
    v[i] = s0 ? s0->num : 0;
    v[n + i] = e0 ? e0->num : 0;
  }
  rc = rescue_store_check_rows(im->st, id, n, v, v + n, who, bad);
  rescue_free(v);
  return rc;
}

/*
** The checking pass under --resegment: a sample a person's rows would resegment (a
** different row count, or rows that no longer line up) is refused while it is discarded,
** as the review page refuses a split or merge there, at its rows (at the first row that
** does not line up); rows that line up are a save, which reopens it. have: the rows of
** the row set the importer works in, n: the rows here.
*/
static int reseg_refused(importer *im, const rescue_jnode *root, const char *id, const char *file,
                         long line0, const char *text, size_t len, int have, int n) {
  const rescue_jnode *rows = rescue_jget(root, "rows"), *at = rows ? rows : root;
  /* an EAF file names who writes (im->annotator_id, set for its checks); else --annotator */
  int64_t who = im->annotator_id ? im->annotator_id : im->check_annotator;
  char why[sizeof im->err->msg];
  int rc, bad = 0, i;
  if (!who)
    return 0;
  if (who != im->check_annotator && (rc = rowcount_for(im->st, id, who, &have)))
    goto fail;
  if (have == n && n == 0)
    return 0;
  rc = rescue_store_reseg_allowed(im->st, id, who);
  if (rc == RESCUE_ECONFLICT) {
    snprintf(why, sizeof why, "%s", rescue_store_errmsg(im->st));
    if (have == n) {
      rc = misaligned_row(im, rows, id, n, who, &bad);
      if (rc == 0)
        return 0; /* no resegmentation: a save */
      for (at = rows->child, i = 1; rc == RESCUE_ERESEGMENT && i < bad && at->next; i++)
        at = at->next;
    }
    if (rc == RESCUE_ECONFLICT || rc == RESCUE_ERESEGMENT)
      return refuse_at(im, RESCUE_ECONFLICT, file, line0, text, len, at->offset, "%s", why);
  }
fail:
  if (rc && im->err != rescue_store_err(im->st))
    *im->err = *rescue_store_err(im->st);
  return rc;
}

/*
** The checking pass over one sample object (after its id checks): rows must be a list
** of rows with the structural types import refuses, and an existing sample must keep
** its row count unless --resegment (a person's resegmentation of a discarded one is
** refused all the same: reseg_refused).
*/
static int check_object(importer *im, const rescue_jnode *root, const char *id, const char *file,
                        long line0, const char *text, size_t len) {
  const rescue_jnode *rows = rescue_jget(root, "rows"), *c;
  int n = 0, rc, have;
  size_t rows_len = 0, other_len;
  typo_ctx typos = {im, id, file, text, line0, len, 0};
  if (rows && rows->type != RESCUE_JARRAY)
    return bad_at(im, file, line0, text, len, rows->offset, "rows is not a list");
  rescue_typos_scan(rescue_store_scheme(im->st), root, on_typo, &typos);
  if (typos.rc)
    return typos.rc;
  for (c = rows ? rows->child : NULL; c; c = c->next, n++) {
    const rescue_jnode *badnode = NULL;
    rescue_error e;
    size_t row_len;
    rc = rescue_row_input_from_json(rescue_store_scheme(im->st), c, NULL, &badnode, &e);
    if (rc == RESCUE_EBADINPUT)
      return bad_at(im, file, line0, text, len, badnode ? badnode->offset : c->offset,
                    "sample '%s': row %d: %s", id, n + 1, e.msg);
    if (rc)
      return rescue_seterr(im->err, rc, "%s", e.msg);
    /* the store keeps each row's canonical JSON as one value */
    row_len = canonical_len(c);
    if ((long long)row_len > im->max_value)
      return bad_at(im, file, line0, text, len, c->offset,
                    "sample '%s': row %d is %zu bytes as stored, more than the %lld bytes the "
                    "store holds in one value",
                    id, n + 1, row_len, im->max_value);
    rows_len += row_len;
  }
  /* and the sample's other members (outside the rows) as one more */
  other_len = canonical_len(root) - (rows ? 2 + rows_len : 0);
  if ((long long)other_len > im->max_value) {
    const rescue_jnode *largest = root->child;
    for (c = root->child; c; c = c->next)
      if (c != rows && canonical_len(c) > canonical_len(largest))
        largest = c;
    return bad_at(im, file, line0, text, len, largest ? largest->offset : root->offset,
                  "sample '%s' is %zu bytes as stored without its rows, more than the %lld "
                  "bytes the store holds in one value",
                  id, other_len, im->max_value);
  }
  im->res->samples++;
  im->res->rows += n;
  rc = rowcount_for(im->st, id, im->check_annotator, &have);
  if (rc == RESCUE_ENOTFOUND)
    return 0;
  if (rc) {
    if (im->err != rescue_store_err(im->st))
      *im->err = *rescue_store_err(im->st);
    return rc;
  }
  if (im->o->resegment && !im->edit) {
    rc = reseg_refused(im, root, id, file, line0, text, len, have, n);
    if (rc)
      return rc;
  }
  if (have != n && !im->o->resegment)
    return refuse_at(im, RESCUE_ERESEGMENT, file, line0, text, len,
                     rows ? rows->offset : root->offset,
                     "sample '%s' has %d rows in the corpus but %d here", id, have, n);
  if (have == n && n > 0 && !im->o->resegment) {
    /* row identity: the same count must also line up span by span */
    int i, bad = 0;
    rc = misaligned_row(im, rows, id, n, im->check_annotator, &bad);
    if (rc == RESCUE_ERESEGMENT) {
      const rescue_jnode *at = rows->child;
      for (i = 1; i < bad && at; i++)
        at = at->next;
      return refuse_at(im, RESCUE_ERESEGMENT, file, line0, text, len,
                       at ? at->offset : rows->offset, "%s", rescue_store_errmsg(im->st));
    }
    if (rc) {
      if (im->err != rescue_store_err(im->st))
        *im->err = *rescue_store_err(im->st);
      return rc;
    }
  }
  return 0;
}

/*
** Decide the id of the sample object root: fixed_id when given (the object's own string
** sample_id must then agree with it), else the object's own string sample_id. Refuses a
** root that is not an object and a missing, non-string or unsafe id. Sets *id to the id
** (fixed_id, or a copy in im->id) and *idnode to the node messages about the id point at.
** 0 or a negative error code with the message on im->err.
*/
static int object_id(importer *im, const rescue_jnode *root, const char *fixed_id, const char *file,
                     long line0, const char *text, size_t len, const char **id,
                     const rescue_jnode **idnode) {
  const rescue_jnode *sid = rescue_jget(root, "sample_id");
  const char *why, *sid_s = NULL;

  if (root->type != RESCUE_JOBJECT)
    return bad_at(im, file, line0, text, len, root->offset, "a sample must be a JSON object");
  if (sid && sid->type != RESCUE_JSTRING)
    return bad_at(im, file, line0, text, len, sid->offset, "sample_id is not a string");
  if (sid) {
    /* a NUL-terminated copy: the checking pass parses without copying strings */
    rescue_buf_reset(&im->id);
    rescue_buf_putn(&im->id, sid->s, sid->len);
    if (!rescue_buf_ok(&im->id))
      return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
    sid_s = im->id.s;
  }
  if (!fixed_id) {
    if (!sid)
      return bad_at(im, file, line0, text, len, root->offset, "sample has no string sample_id");
    fixed_id = sid_s;
  } else if (sid && strcmp(sid_s, fixed_id) != 0) {
    return bad_at(im, file, line0, text, len, sid->offset,
                  "sample_id '%s' disagrees with the sample's path '%s'", shown(&im->show1, sid_s),
                  shown(&im->show2, fixed_id));
  }
  if ((why = rescue_sample_id_unsafe(fixed_id, strlen(fixed_id))) != NULL)
    return bad_at(im, file, line0, text, len, sid ? sid->offset : root->offset,
                  "unsafe sample_id '%s': %s", shown(&im->show1, fixed_id), why);
  *id = fixed_id;
  *idnode = sid ? sid : root;
  return 0;
}

/*
** Write root in canonical form into im->head and im->tail, cut around its rows array (the
** last "rows" member, the one every reader takes; an earlier one stays in the head as
** written). Returns that member (NULL when none) and sets *given to the RESCUE_GIVEN_* keys
** the object has. Out of memory shows in rescue_buf_ok() of the two buffers.
*/
static const rescue_jnode *cut_head_tail(importer *im, const rescue_jnode *root, int *given) {
  const rescue_jnode *c, *rows = NULL, *last_rows;

  last_rows = rescue_jget(root, "rows");
  rescue_buf_reset(&im->head);
  rescue_buf_reset(&im->tail);
  rescue_buf_putc(&im->head, '{');
  for (c = root->child; c; c = c->next) {
    rescue_buf *b = rows ? &im->tail : &im->head;
    if (c != root->child)
      rescue_buf_putn(b, ", ", 2);
    rescue_jwrite_string(b, c->key, c->keylen);
    rescue_buf_putn(b, ": ", 2);
    if (c == last_rows) {
      rows = c;
      continue;
    }
    rescue_jwrite(b, c);
    if (strcmp(c->key, "scenario") == 0)
      *given |= RESCUE_GIVEN_SCENARIO;
    else if (strcmp(c->key, "participants") == 0)
      *given |= RESCUE_GIVEN_PARTICIPANTS;
    else if (strcmp(c->key, "sample_id") == 0)
      *given |= RESCUE_GIVEN_SAMPLE_ID;
  }
  rescue_buf_putc(rows ? &im->tail : &im->head, '}');
  return rows;
}

/*
** Read the rows array rows of sample id into im->rows (grown as needed); *n set to their
** count. A bad row is refused with its position in file. 0 or a negative error code with
** the message on im->err.
*/
static int read_rows(importer *im, const rescue_jnode *rows, const char *id, const char *file,
                     long line0, const char *text, size_t len, int *n) {
  const rescue_jnode *c;
  int rc, old_cap = im->cap_rows;

  if (RESCUE_ALLOC_GROW(im->rows, rows->len, im->cap_rows))
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
  if (im->cap_rows > old_cap)
    memset(im->rows + old_cap, 0, (size_t)(im->cap_rows - old_cap) * sizeof *im->rows);
  for (c = rows->child; c; c = c->next, (*n)++) {
    const rescue_jnode *badnode = NULL;
    rescue_error e;
    rc = rescue_row_input_from_json(rescue_store_scheme(im->st), c, &im->rows[*n], &badnode, &e);
    if (rc == RESCUE_EBADINPUT)
      return bad_at(im, file, line0, text, len, badnode ? badnode->offset : c->offset,
                    "sample '%s': row %d: %s", id, *n + 1, e.msg);
    if (rc)
      return rescue_seterr(im->err, rc, "%s", e.msg);
  }
  return 0;
}

/*
** Validate and store one sample object. `fixed_id` (data-root, --sample) is the id the
** sample must have; NULL means the object's own string sample_id is required.
** text/len/line0 locate the object for messages.
*/
static int import_object(importer *im, const rescue_jnode *root, const char *fixed_id,
                         const char *file, long line0, const char *text, size_t len) {
  const rescue_jnode *rows, *idnode = root;
  rescue_sample_input in;
  const char *first;
  int n = 0, rc, given = 0;

  if ((rc = object_id(im, root, fixed_id, file, line0, text, len, &fixed_id, &idnode)))
    return rc;
  if (!im->write) {
    rescue_buf_reset(&im->where);
    rescue_buf_printf(&im->where, "%s:%ld", file, line0);
    first = seen_add(&im->seen, fixed_id, im->where.s ? im->where.s : "");
    if (first && !*first)
      return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
    if (first)
      return bad_at(im, file, line0, text, len, idnode->offset,
                    "duplicate sample_id '%s' (first at %s)", fixed_id, first);
    return check_object(im, root, fixed_id, file, line0, text, len);
  }

  rows = cut_head_tail(im, root, &given);
  if (rows && rows->type != RESCUE_JARRAY)
    return bad_at(im, file, line0, text, len, rows->offset, "rows is not a list");

  if (rows && (rc = read_rows(im, rows, fixed_id, file, line0, text, len, &n)))
    return rc;
  if (!rescue_buf_ok(&im->head) || !rescue_buf_ok(&im->tail))
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);

  in.sample_id = fixed_id;
  in.head = im->head.s;
  in.tail = rows ? im->tail.s : "";
  in.has_rows = rows != NULL;
  in.given_keys = given;
  in.n_rows = n;
  in.rows = im->rows;
  rc = rescue_store_put_sample(im->st, &in, im->annotator_id, im->edit ? "edit" : "import",
                               im->edit           ? RESCUE_PUT_EDIT
                               : im->o->resegment ? RESCUE_PUT_RESEGMENT
                                                  : 0,
                               &im->res->put);
  if (rc) {
    if (im->err != rescue_store_err(im->st))
      *im->err = *rescue_store_err(im->st);
    if (rc == RESCUE_EBADINPUT || rc == RESCUE_ERESEGMENT || rc == RESCUE_ECONFLICT)
      rescue_err_prefix(im->err, "%s:%ld", file, line0);
    return rc;
  }
  im->res->samples++;
  im->res->rows += n;
  if (im->res->samples == 1)
    rescue_crash_point("import-writing");
  return 0;
}

static void progress(importer *im) {
  if (im->o->progress && im->write)
    im->o->progress(im->o->progress_arg, im->done, im->total);
}

/* Parse a whole text as one JSON object; report syntax errors at file:line:col. */
static const rescue_jnode *parse_text(importer *im, const char *file, long line0, const char *text,
                                      size_t len) {
  rescue_jerror je;
  const rescue_jnode *root;
  if (len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0) {
    bad_at(im, file, line0, text, len, 0,
           "a UTF-8 byte order mark (BOM) starts the text; JSON allows none "
           "(save the file as UTF-8 without BOM)");
    return NULL;
  }
  root = rescue_jparse(im->doc, text, len, &je);
  if (!root) {
    if (strcmp(je.msg, "out of memory") == 0)
      rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
    else
      bad_at(im, file, line0, text, len, je.offset, "%s%s",
             strstr(je.msg, "UTF-8") ? "" : "invalid JSON: ", je.msg);
  }
  return root;
}

/* ---- JSONL ---- */

static int import_jsonl(importer *im, const char *path) {
  FILE *f = fopen(path, "rb");
  char *buf = NULL;
  size_t cap = 1 << 20, start = 0, end = 0;
  long line = 0;
  int rc = 0, eof = 0;

  if (!f)
    return rescue_seterr(im->err, RESCUE_EIO, "cannot open '%s': %s", path, strerror(errno));
  buf = rescue_malloc(cap);
  if (!buf) {
    fclose(f);
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
  }
  for (;;) {
    char *nl = memchr(buf + start, '\n', end - start);
    size_t llen;
    const char *ltext;
    size_t i;
    if (!nl && !eof) {
      size_t got;
      /* move the partial line to the front, grow if a single line fills the buffer */
      memmove(buf, buf + start, end - start);
      end -= start;
      start = 0;
      /* a line the store could not hold is refused before it is all in memory */
      if ((long long)end > im->max_value) {
        rc = rescue_seterr(im->err, RESCUE_EBADINPUT,
                           "%s:%ld: the line is longer than %lld bytes, the most the store "
                           "holds in one value",
                           path, line + 1, im->max_value);
        break;
      }
      if (end == cap && RESCUE_ALLOC_GROW(buf, cap + 1, cap)) {
        rc = rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
        break;
      }
      got = fread(buf + end, 1, cap - end, f);
      if (got == 0) {
        if (ferror(f)) {
          rc = rescue_seterr(im->err, RESCUE_EIO, "reading '%s': %s", path, strerror(errno));
          break;
        }
        eof = 1;
      }
      end += got;
      continue;
    }
    if (!nl && start == end)
      break;
    llen = nl ? (size_t)(nl - (buf + start)) : end - start;
    ltext = buf + start;
    line++;
    if ((long long)llen > im->max_value) {
      rc = rescue_seterr(im->err, RESCUE_EBADINPUT,
                         "%s:%ld: the line is longer than %lld bytes, the most the store holds "
                         "in one value",
                         path, line, im->max_value);
      break;
    }
    start += llen + (nl ? 1 : 0);
    im->done += llen + (nl ? 1 : 0);
    if ((line & 255) == 0)
      progress(im);
    if (llen && ltext[llen - 1] == '\r')
      llen--;
    for (i = 0; i < llen; i++)
      if (ltext[i] != ' ' && ltext[i] != '\t' && ltext[i] != '\r')
        break; /* (not strchr: it would take a NUL byte for a blank) */
    if (i == llen)
      continue; /* blank line */
    {
      const rescue_jnode *root = parse_text(im, path, line, ltext, llen);
      if (!root) {
        rc = im->err->code;
        break;
      }
      if ((rc = import_object(im, root, NULL, path, line, ltext, llen)))
        break;
    }
  }
  rescue_free(buf);
  fclose(f);
  im->res->files++;
  return rc;
}

/* ---- single JSON files ---- */

static int import_json_file(importer *im, const char *path, const char *fixed_id) {
  char *text = NULL;
  size_t len = 0;
  const rescue_jnode *root;
  struct stat sb;
  int rc;
  if (stat(path, &sb) == 0 && (long long)sb.st_size > im->max_value)
    return rescue_seterr(im->err, RESCUE_EBADINPUT,
                         "%s: the file is longer than %lld bytes, the most the store holds in "
                         "one value",
                         path, im->max_value);
  if ((rc = rescue_read_file(path, &text, &len, im->err)))
    return rc;
  root = parse_text(im, path, 1, text, len);
  if (!root)
    rc = im->err->code;
  else
    rc = import_object(im, root, fixed_id, path, 1, text, len);
  im->done += len;
  progress(im);
  rescue_free(text);
  im->res->files++;
  return rc;
}

/* ---- ELAN files ---- */

/* Add name to res->owner (the annotators EAF files named) unless it is there. */
static void note_owner(rescue_import_result *res, const char *name) {
  size_t have = strlen(res->owner), l = strlen(name);
  const char *p = res->owner;
  while (*p) {
    const char *comma = strchr(p, ',');
    size_t pl = comma ? (size_t)(comma - p) : strlen(p);
    if (pl == l && memcmp(p, name, l) == 0)
      return;
    p += pl + (comma != NULL);
  }
  if (have + l + 2 < sizeof res->owner)
    snprintf(res->owner + have, sizeof res->owner - have, "%s%s", have ? "," : "", name);
}

/*
** One "not_imported" note per entry of es->left_out, counted in res->not_imported or
** res->times_dropped.
*/
static void note_left_out(importer *im, const char *path, const rescue_eaf_sample *es) {
  int i;
  for (i = 0; i < es->n_left_out; i++) {
    const rescue_eaf_left_out *lo = &es->left_out[i];
    rescue_import_note nt;
    if (lo->times_only)
      im->res->times_dropped += lo->annotations;
    else
      im->res->not_imported += lo->annotations;
    if (!im->o->note)
      continue;
    memset(&nt, 0, sizeof nt);
    nt.kind = "not_imported";
    nt.file = path;
    nt.line = lo->line;
    nt.sample_id = es->sample_id;
    nt.key = lo->tier;
    nt.count = lo->annotations;
    nt.was = lo->times_only ? "times" : "annotations";
    nt.message = lo->reason;
    im->o->note(im->o->note_arg, &nt);
  }
}

/*
** An .eaf file becomes the text of one sample object, which then goes the way of any
** single JSON sample (same checks, same row rules). A file rescue wrote lands under
** the annotator it records unless --annotator names another.
*/
static int import_eaf(importer *im, const char *path) {
  rescue_eaf_read_opts eo = {.sample = im->o->sample, .tiers = im->o->tiers};
  rescue_eaf_sample es = {0};
  rescue_sample_iter *it = NULL;
  rescue_buf head = RESCUE_BUF_INIT, tail = RESCUE_BUF_INIT;
  const rescue_jnode *root;
  int64_t saved = im->annotator_id;
  int rc;

  if (im->o->sample && rescue_sample_ref(im->st, im->o->sample, &(int64_t){0}) == 0) {
    /* a sample already in the corpus keeps its sample-level keys */
    rescue_view view = {.kind = RESCUE_VIEW_LATEST};
    const char *only[1] = {im->o->sample};
    const rescue_sample *s;
    if ((rc = rescue_sample_iter_new(im->st, &view, only, 1, &it)))
      goto end;
    if ((rc = rescue_sample_iter_next(it, &s)) < 0)
      goto end;
    if (rc == 1) {
      if (s->has_rows) {
        rescue_buf_puts(&head, s->head);
        rescue_buf_puts(&tail, s->tail);
      } else {
        size_t hl = strlen(s->head);
        rescue_buf_putn(&head, s->head, hl - 1);
        rescue_buf_puts(&head, hl > 2 ? ", \"rows\": " : "\"rows\": ");
        rescue_buf_puts(&tail, "}");
      }
      if (!rescue_buf_ok(&head) || !rescue_buf_ok(&tail)) {
        rc = rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
        goto end;
      }
      eo.head = head.s;
      eo.tail = tail.s;
    }
  }
  if ((rc = rescue_eaf_read(path, &eo, &es, im->err)))
    goto end;
  if (es.annotator && !im->o->annotator) {
    /* checked in the checking pass, so a bad name never reaches a transaction */
    const char *why = rescue_name_unsafe(es.annotator);
    if (why) {
      rc = rescue_seterr(im->err, RESCUE_EBADINPUT, "%s: the annotator name in the file %s", path,
                         why);
      goto end;
    }
    /* the annotator the file names must be registered, as --annotator must */
    if (strcmp(es.annotator, RESCUE_DRAFT_ANNOTATOR) == 0) {
      rc = rescue_annotator_id(im->st, es.annotator, NULL, 0, &im->annotator_id);
    } else {
      int retired = 0;
      rc = rescue_annotator_lookup(im->st, es.annotator, &im->annotator_id, NULL, &retired);
      if (!rc && retired)
        rc = rescue_seterr_arg(im->err, RESCUE_EFILERETIRED, es.annotator,
                               "%s: the file's annotator '%s' is retired", path, es.annotator);
    }
    if (rc) {
      if (rc == RESCUE_ENOANNOTATOR)
        rescue_err_prefix(im->err, "%s: the file's annotator", path);
      goto end;
    }
  }
  if (es.annotator && !im->o->annotator)
    note_owner(im->res, es.annotator);
  if (im->write)
    note_left_out(im, path, &es);
  root = parse_text(im, path, 1, es.json, es.json_len);
  if (!root) {
    rc = im->err->code;
    goto end;
  }
  rc = import_object(im, root, es.sample_id, path, 1, es.json, es.json_len);
  if (!rc && es.interpolated && !im->res->warning[0])
    snprintf(im->res->warning, sizeof im->res->warning,
             "%s: %ld row%s start or end on unaligned time slots: times interpolated "
             "(flagged elan_time_interpolated)",
             path, es.interpolated, es.interpolated == 1 ? "" : "s");
end:
  im->annotator_id = saved;
  {
    struct stat sb;
    if (stat(path, &sb) == 0)
      im->done += (uint64_t)sb.st_size; /* what detect() counted into total */
  }
  progress(im);
  im->res->files++;
  rescue_sample_iter_free(&it);
  rescue_buf_clear(&head);
  rescue_buf_clear(&tail);
  rescue_eaf_sample_clear(&es);
  return rc;
}

/* ---- data-root folders ---- */

typedef struct path_list {
  char **v;
  size_t n, cap;
} path_list;

static int path_push(path_list *l, const char *p) {
  if (RESCUE_ALLOC_GROW(l->v, l->n + 1, l->cap))
    return -1;
  if (!(l->v[l->n] = rescue_strdup(p)))
    return -1;
  l->n++;
  return 0;
}

static void path_free(path_list *l) {
  size_t i;
  for (i = 0; i < l->n; i++)
    rescue_free(l->v[i]);
  rescue_free(l->v);
}

/* Path-component order (corpus/FORMAT.md §6.2): '/' sorts before every other byte. */
static int cmp_paths(const void *a, const void *b) {
  const unsigned char *x = *(const unsigned char *const *)a, *y = *(const unsigned char *const *)b;
  for (;; x++, y++) {
    unsigned cx = *x == '/' ? 1 : *x, cy = *y == '/' ? 1 : *y;
    if (cx != cy || !cx)
      return (int)cx - (int)cy;
  }
}

/* Collect *.json files under dir (relative paths in rel), skipping dot entries. */
static int walk(importer *im, const char *root, const char *rel, path_list *out, int depth) {
  rescue_buf full = RESCUE_BUF_INIT;
  DIR *d;
  struct dirent *e;
  int rc = 0;
  if (depth > 64)
    return rescue_seterr(im->err, RESCUE_EBADINPUT, "%s/%s: folders nested too deeply", root, rel);
  rescue_buf_puts(&full, root);
  if (*rel) {
    rescue_buf_putc(&full, '/');
    rescue_buf_puts(&full, rel);
  }
  if (!rescue_buf_ok(&full))
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
  d = opendir(full.s);
  if (!d) {
    rc = rescue_seterr(im->err, RESCUE_EIO, "cannot read folder '%s': %s", full.s, strerror(errno));
    rescue_buf_clear(&full);
    return rc;
  }
  while (!rc && (e = readdir(d)) != NULL) {
    rescue_buf child = RESCUE_BUF_INIT, childfull = RESCUE_BUF_INIT;
    struct stat sb;
    size_t nl = strlen(e->d_name);
    if (e->d_name[0] == '.')
      continue;
    if (*rel) {
      rescue_buf_puts(&child, rel);
      rescue_buf_putc(&child, '/');
    }
    rescue_buf_puts(&child, e->d_name);
    rescue_buf_printf(&childfull, "%s/%s", full.s, e->d_name);
    if (!rescue_buf_ok(&child) || !rescue_buf_ok(&childfull)) {
      rc = rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
    } else if (lstat(childfull.s, &sb) == 0 && S_ISDIR(sb.st_mode)) {
      rc = walk(im, root, child.s, out, depth + 1);
    } else if (nl > 5 && strcmp(e->d_name + nl - 5, ".json") == 0 &&
               strcmp(e->d_name, "manifest.json") != 0 && stat(childfull.s, &sb) == 0 &&
               S_ISREG(sb.st_mode)) {
      if (path_push(out, child.s))
        rc = rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
      else if (!im->write)
        im->total += (uint64_t)sb.st_size;
    }
    rescue_buf_clear(&child);
    rescue_buf_clear(&childfull);
  }
  closedir(d);
  rescue_buf_clear(&full);
  return rc;
}

static int import_dataroot(importer *im, const char *root) {
  path_list files = {0};
  rescue_buf full = RESCUE_BUF_INIT, id = RESCUE_BUF_INIT;
  size_t i, rl = strlen(root);
  int rc;
  char *r = rescue_strdup(root);
  if (!r)
    return rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
  while (rl > 1 && r[rl - 1] == '/')
    r[--rl] = 0;
  rc = walk(im, r, "", &files, 0);
  if (!rc && files.n > 1) /* (qsort of a NULL array is undefined, even of 0 elements) */
    qsort(files.v, files.n, sizeof *files.v, cmp_paths);
  for (i = 0; !rc && i < files.n; i++) {
    rescue_buf_reset(&full);
    rescue_buf_reset(&id);
    rescue_buf_printf(&full, "%s/%s", r, files.v[i]);
    rescue_buf_putn(&id, files.v[i], strlen(files.v[i]) - 5);
    if (!rescue_buf_ok(&full) || !rescue_buf_ok(&id))
      rc = rescue_seterr(im->err, RESCUE_ENOMEM, NULL);
    else
      rc = import_json_file(im, full.s, id.s);
  }
  if (!rc && files.n == 0)
    rc = rescue_seterr(im->err, RESCUE_EBADINPUT, "%s: no sample files (*.json) in this folder",
                       root);
  path_free(&files);
  rescue_buf_clear(&full);
  rescue_buf_clear(&id);
  rescue_free(r);
  return rc;
}

static int ends_with(const char *s, const char *suffix) {
  size_t a = strlen(s), b = strlen(suffix);
  return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Decide the format of one path. */
static int detect(importer *im, const char *path, rescue_format *f) {
  struct stat sb;
  if (stat(path, &sb) != 0)
    return rescue_seterr(im->err, RESCUE_EIO, "cannot read '%s': %s", path, strerror(errno));
  if (*f == RESCUE_FMT_AUTO) {
    if (S_ISDIR(sb.st_mode))
      *f = RESCUE_FMT_DATAROOT;
    else if (ends_with(path, ".jsonl") || ends_with(path, ".ndjson"))
      *f = RESCUE_FMT_JSONL;
    else if (ends_with(path, ".json"))
      *f = RESCUE_FMT_JSON;
    else if (ends_with(path, ".srt") || ends_with(path, ".SRT"))
      *f = RESCUE_FMT_SRT;
    else if (ends_with(path, ".vtt") || ends_with(path, ".VTT"))
      *f = RESCUE_FMT_VTT;
    else if (ends_with(path, ".eaf") || ends_with(path, ".EAF"))
      *f = RESCUE_FMT_EAF;
    else
      return rescue_seterr_arg(im->err, RESCUE_EINVAL, "format",
                               "cannot tell the format of '%s' from its name", path);
  }
  if (*f == RESCUE_FMT_DATAROOT && !S_ISDIR(sb.st_mode))
    return rescue_seterr(im->err, RESCUE_EINVAL, "'%s' is not a folder (data-root)", path);
  if (*f != RESCUE_FMT_DATAROOT && !S_ISREG(sb.st_mode))
    return rescue_seterr(im->err, RESCUE_EINVAL,
                         S_ISFIFO(sb.st_mode)
                             ? "'%s' is a pipe: import reads its input twice (it checks "
                               "everything before writing), so save it to a file first"
                             : "'%s' is not a file",
                         path);
  if (*f != RESCUE_FMT_DATAROOT)
    im->total += (uint64_t)sb.st_size;
  return 0;
}

/* The import's audit record, written inside its transaction (rescue_audit.h). */
static int import_audit(rescue_store *st, const rescue_import_opts *opts,
                        const rescue_import_result *res) {
  rescue_audit_entry e = {0};
  char detail[600];
  int at = snprintf(detail, sizeof detail, "%ld samples, %ld rows: %ld row versions added",
                    res->samples, res->rows, res->put.row_versions);
  if (!opts->annotator && res->owner[0])
    at +=
        snprintf(detail + at, sizeof detail - (size_t)at, " as %s (named by the file)", res->owner);
  if (res->not_imported || res->times_dropped)
    snprintf(detail + at, sizeof detail - (size_t)at,
             "; ELAN: %ld annotations not imported, %ld kept without their times",
             res->not_imported, res->times_dropped);
  e.action = "import";
  e.annotator = opts->annotator ? opts->annotator : res->owner[0] ? res->owner : NULL;
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

/*
** Check the options of an import of n paths against each other and against the store:
** --sample and tier names apply to one file of a fitting format, and only a registered,
** active annotator imports under a name. Sets im->check_annotator. 0 or a negative error
** code with the message on im->err.
*/
static int check_import_opts(importer *im, int n) {
  const rescue_import_opts *opts = im->o;
  rescue_store *st = im->st;
  const char *why;
  int rc;

  if (opts->sample &&
      (n != 1 || (opts->format != RESCUE_FMT_AUTO && opts->format != RESCUE_FMT_JSON &&
                  opts->format != RESCUE_FMT_SRT && opts->format != RESCUE_FMT_VTT &&
                  opts->format != RESCUE_FMT_EAF)))
    return rescue_seterr(im->err, RESCUE_EINVAL,
                         "a sample id given for the input names the sample of one single-sample "
                         "JSON, subtitle or EAF file");
  if (opts->tiers &&
      (n != 1 || (opts->format != RESCUE_FMT_AUTO && opts->format != RESCUE_FMT_EAF)))
    return rescue_seterr(im->err, RESCUE_EINVAL,
                         "tier names given for the input apply to one EAF file");
  /* the rule of rescue_annotator_add, so no caller imports under a name it would refuse */
  if (opts->annotator && (why = rescue_annotator_name_invalid(opts->annotator)) != NULL)
    return rescue_seterr_arg(im->err, RESCUE_EINVAL, "annotator", "invalid annotator name: %s",
                             why);
  /* only registered annotators write under their name (a typo would become a new coder) */
  if (opts->annotator) {
    int64_t id;
    int retired = 0;
    if ((rc = rescue_annotator_lookup(st, opts->annotator, &id, NULL, &retired)))
      return rc;
    im->check_annotator = id;
    if (retired)
      return rescue_seterr_arg(im->err, RESCUE_ERETIRED, opts->annotator,
                               "annotator '%s' is retired", opts->annotator);
  }
  if (!opts->annotator &&
      rescue_annotator_id(st, RESCUE_DRAFT_ANNOTATOR, NULL, 0, &im->check_annotator))
    im->check_annotator = 0;
  return 0;
}

/*
** Decide the format of each of the n paths into fmts[] (opts->format unless auto) and check
** it against the options. 0 or a negative error code with the message on im->err.
*/
static int detect_formats(importer *im, const char *const *paths, int n, rescue_format *fmts) {
  const rescue_import_opts *opts = im->o;
  int i, rc = 0;

  for (i = 0; i < n && !rc; i++) {
    fmts[i] = opts->format;
    rc = detect(im, paths[i], &fmts[i]);
    if (!rc && opts->sample && fmts[i] != RESCUE_FMT_JSON && fmts[i] != RESCUE_FMT_SRT &&
        fmts[i] != RESCUE_FMT_VTT && fmts[i] != RESCUE_FMT_EAF)
      rc = rescue_seterr(im->err, RESCUE_EINVAL,
                         "a sample id given for the input names the sample of one single-sample "
                         "JSON, subtitle or EAF file");
    if (!rc && opts->tiers && fmts[i] != RESCUE_FMT_EAF)
      rc = rescue_seterr(im->err, RESCUE_EINVAL,
                         "tier names given for the input apply to one EAF file");
    if (!rc && !opts->sample && (fmts[i] == RESCUE_FMT_SRT || fmts[i] == RESCUE_FMT_VTT))
      rc = rescue_seterr_arg(im->err, RESCUE_EINVAL, "sample",
                             "subtitles belong to one sample, and '%s' does not name it", paths[i]);
    if (!rc && opts->sample && fmts[i] != RESCUE_FMT_JSON &&
        rescue_sample_id_unsafe(opts->sample, strlen(opts->sample)))
      rc = rescue_seterr(im->err, RESCUE_EINVAL, "unsafe sample_id '%s': %s", opts->sample,
                         rescue_sample_id_unsafe(opts->sample, strlen(opts->sample)));
  }
  return rc;
}

/*
** Run one pass (im->write says which) over the n paths of formats fmts[]. 0 or a negative
** error code with the message on im->err.
*/
static int import_files(importer *im, const char *const *paths, int n, const rescue_format *fmts) {
  const rescue_import_opts *opts = im->o;
  rescue_import_result *res = im->res;
  rescue_store *st = im->st;
  int i, rc = 0;

  for (i = 0; i < n && !rc; i++) {
    switch (fmts[i]) {
    case RESCUE_FMT_JSONL: rc = import_jsonl(im, paths[i]); break;
    case RESCUE_FMT_JSON: rc = import_json_file(im, paths[i], opts->sample); break;
    case RESCUE_FMT_DATAROOT: rc = import_dataroot(im, paths[i]); break;
    case RESCUE_FMT_EAF: rc = import_eaf(im, paths[i]); break;
    case RESCUE_FMT_SRT:
    case RESCUE_FMT_VTT:
      /* the checking pass parses; the writing pass stores cues and draft rows */
      rc = im->write ? rescue_subtitles_import(st, paths[i], fmts[i] == RESCUE_FMT_VTT,
                                               opts->sample, im->annotator_id, res, opts)
                     : rescue_subtitles_check(paths[i], fmts[i] == RESCUE_FMT_VTT, im->err);
      res->files++;
      if (!im->write && !rc)
        res->samples++;
      break;
    case RESCUE_FMT_AUTO:
      rc = rescue_seterr(im->err, RESCUE_EINTERNAL, "format not decided");
      break;
    }
  }
  return rc;
}

/*
** The writing pass: in one transaction, in bulk mode when nobody else has the corpus open,
** with the import's audit record; rolled back on any failure. 0 or a negative error code
** with the message on im->err.
*/
static int write_pass(importer *im, const char *const *paths, int n, const rescue_format *fmts) {
  const rescue_import_opts *opts = im->o;
  rescue_store *st = im->st;
  int bulk = 0, rc;

  rescue_jdoc_nocopy(im->doc, 0);
  rescue_crash_point("import-checked");
  im->done = 0;
  memset(im->res, 0, sizeof *im->res);
  rescue_store_bulk_begin(st, &bulk);
  /* a larger page cache keeps B-tree pages touched again and again in memory */
  sqlite3_exec(rescue_store_db(st), "PRAGMA cache_size = -16000", NULL, NULL, NULL);
  if ((rc = rescue_store_begin(st))) {
    rescue_store_bulk_end(st, bulk);
    return rc;
  }
  rc = opts->annotator
           ? rescue_annotator_lookup(st, opts->annotator, &im->annotator_id, NULL, NULL)
           : rescue_annotator_id(st, RESCUE_DRAFT_ANNOTATOR, "annotator", 1, &im->annotator_id);
  if (!rc)
    rc = import_files(im, paths, n, fmts);
  if (!rc)
    rc = import_audit(st, opts, im->res);
  if (rc) {
    rescue_store_rollback(st);
  } else {
    rescue_crash_point("import-before-commit");
    rc = rescue_store_commit(st);
  }
  sqlite3_exec(rescue_store_db(st), "PRAGMA cache_size = -2000", NULL, NULL, NULL);
  rescue_store_bulk_end(st, bulk);
  progress(im);
  return rc;
}

/* rescue_import and rescue_import_edits: edit says which. */
static int import_run(rescue_store *st, const char *const *paths, int n,
                      const rescue_import_opts *opts, rescue_import_result *res, int edit) {
  importer im;
  rescue_import_result dummy;
  rescue_format *fmts = NULL;
  int i, rc = 0;

  memset(&im, 0, sizeof im);
  im.seen.copy = 1;
  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  im.st = st;
  im.err = rescue_store_err(st);
  im.o = opts;
  im.res = res;
  im.max_value = sqlite3_limit(rescue_store_db(st), SQLITE_LIMIT_LENGTH, -1);
  im.edit = edit;
  if ((rc = check_import_opts(&im, n)))
    return rc;
  fmts = rescue_calloc((size_t)(n ? n : 1), sizeof *fmts);
  im.doc = rescue_jdoc_new();
  if (!fmts || !im.doc) {
    rc = rescue_seterr(im.err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  rc = detect_formats(&im, paths, n, fmts);
  if (rc)
    goto end;
  /*
  ** Two passes. The first reads and checks everything without writing, so bad input is
  ** refused before the corpus is touched at all (its file stays byte for byte the same).
  ** The second writes (write_pass).
  */
  im.write = 0;
  rescue_jdoc_nocopy(im.doc, 1);
  rc = import_files(&im, paths, n, fmts);
  if (!rc && res->samples == 0)
    rc = rescue_seterr(im.err, RESCUE_EBADINPUT, "no samples in the input");
  if (!rc) {
    im.write = 1;
    rc = write_pass(&im, paths, n, fmts);
  }
end:
  for (i = 0; i < im.cap_rows; i++)
    rescue_row_input_clear(&im.rows[i]);
  rescue_free(im.rows);
  rescue_buf_clear(&im.head);
  rescue_buf_clear(&im.tail);
  rescue_buf_clear(&im.id);
  rescue_buf_clear(&im.where);
  rescue_buf_clear(&im.show1);
  rescue_buf_clear(&im.show2);
  seen_free(&im.seen);
  rescue_jdoc_free(&im.doc);
  rescue_free(fmts);
  return rc;
}

int rescue_import(rescue_store *st, const char *const *paths, int n, const rescue_import_opts *opts,
                  rescue_import_result *res) {
  return import_run(st, paths, n, opts, res, 0);
}

int rescue_import_edits(rescue_store *st, const char *const *paths, int n,
                        const rescue_import_opts *opts, rescue_import_result *res) {
  return import_run(st, paths, n, opts, res, 1);
}
