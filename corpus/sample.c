/*
** sample.c: writing samples into the store (versions, row sets) and the facts derived
** from a sample's rows (scenario, participants, group), plus sample_id safety.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_edit.h"
#include "rescue_store.h"
#include "span_int.h"
#include "store_int.h"

#define ENTITY_SEP '\x1f'

/* ---- sample ids and groups ---- */

/*
** 1 when the path component c[0..n) is a name the output layouts use themselves: a
** sample's clip folder holds clips/, manifest.json, segment.mp4 and review.mp4 (a sample
** "g/clips" would land inside sample "g"'s), and a data-root import skips files named
** manifest.json (the last component "manifest").
*/
static int reserved(const char *c, size_t n, int last) {
  static const char *const names[] = {"clips", "manifest.json", "segment.mp4", "review.mp4"};
  size_t k;
  for (k = 0; k < sizeof names / sizeof names[0]; k++)
    if (strlen(names[k]) == n && memcmp(c, names[k], n) == 0)
      return 1;
  return last && n == 8 && memcmp(c, "manifest", 8) == 0;
}

const char *rescue_sample_id_unsafe(const char *id, size_t len) {
  size_t i, comp = 0;
  if (len == 0)
    return "it is empty";
  if (id[0] == '/')
    return "it is an absolute path";
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)id[i];
    if (c == 0)
      return "it contains a NUL byte";
    if (c < 0x20 || c == 0x7f)
      return "it contains a control character";
    if (c == '\\')
      return "it contains a backslash";
  }
  /* ids from file names or --sample never went through the JSON reader */
  if (!rescue_utf8_valid(id, len))
    return "it is not valid UTF-8";
  for (i = 0; i <= len; i++) {
    if (i == len || id[i] == '/') {
      size_t n = i - comp;
      if (n == 0)
        return "it has an empty path component";
      if (n == 1 && id[comp] == '.')
        return "it has a '.' path component";
      if (n == 2 && id[comp] == '.' && id[comp + 1] == '.')
        return "it has a '..' path component";
      if (id[comp] == '.')
        return "a path component starts with '.' (a data-root import skips such names, and "
               "clip folders use them for temporary files)";
      if (n > RESCUE_ID_COMPONENT_MAX)
        return "a path component is longer than 250 bytes (a file name holds 255, and the "
               "data-root export adds '.json')";
      if (reserved(id + comp, n, i == len))
        return "a path component is a reserved name ('clips', 'manifest.json', "
               "'segment.mp4' and 'review.mp4' are names in a sample's clip folder; a last "
               "component 'manifest' would be a data-root's manifest.json)";
      comp = i + 1;
    }
  }
  return NULL;
}

void rescue_sample_group(const char *sample_id, rescue_buf *out) {
  const char *slash = strrchr(sample_id, '/');
  /* A sample directly at the top is its own group, so unrelated samples never merge. */
  if (slash)
    rescue_buf_putn(out, sample_id, (size_t)(slash - sample_id));
  else
    rescue_buf_puts(out, sample_id);
}

/* ---- derived facts ---- */

/* Call fn for each entity of a row's 0x1F-joined list. */
static int each_entity(const char *ents, int (*fn)(const char *, size_t, void *), void *arg) {
  const char *p = ents;
  while (p && *p) {
    const char *e = strchr(p, ENTITY_SEP);
    size_t n = e ? (size_t)(e - p) : strlen(p);
    if (n && fn(p, n, arg))
      return 1;
    p = e ? e + 1 : NULL;
  }
  return 0;
}

static int is_label(const char *p, size_t n, void *arg) {
  const char *label = arg;
  return strlen(label) == n && memcmp(p, label, n) == 0;
}

/* Does s, lower-cased (ASCII), start with word at position `at`? */
static int lower_match_at(const char *s, size_t at, const char *word) {
  size_t i;
  for (i = 0; word[i]; i++)
    if (!s[at + i] || tolower((unsigned char)s[at + i]) != word[i])
      return 0;
  return 1;
}

const char *rescue_sample_scenario(const rescue_scheme *sc, const rescue_sample *s) {
  const char *family = rescue_scheme_group_label(sc, "family");
  size_t i;
  int fam = lower_match_at(s->sample_id, 0, "family_therapy/");
  for (i = 0; !fam && s->sample_id[i]; i++)
    fam = s->sample_id[i] == '/' && lower_match_at(s->sample_id, i, "/family_therapy/");
  for (i = 0; !fam && family && i < (size_t)s->n; i++)
    fam = each_entity(s->rows[i].entities, is_label, (void *)family);
  return fam ? "family" : "couple";
}

typedef struct participants_acc {
  const rescue_scheme *sc;
  rescue_buf seen; /* entities seen so far, 0x1F-separated with a leading separator */
  rescue_jw *w;
} participants_acc;

static int add_participant(const char *p, size_t n, void *arg) {
  participants_acc *a = arg;
  char *name = rescue_strndup(p, n);
  if (!name) {
    a->w->b->oom = 1; /* the list would be short: say so through the buffer */
    return 1;
  }
  if (!rescue_scheme_is_reserved(a->sc, name)) {
    /* first-seen order, no duplicates: look for SEP name SEP in what we kept */
    int dup = 0;
    const char *q = a->seen.s;
    while (q && (q = strstr(q, name)) != NULL) {
      if (q > a->seen.s && q[-1] == ENTITY_SEP && q[n] == ENTITY_SEP) {
        dup = 1;
        break;
      }
      q++;
    }
    if (!dup) {
      if (!a->seen.len)
        rescue_buf_putc(&a->seen, ENTITY_SEP);
      rescue_buf_putn(&a->seen, p, n);
      rescue_buf_putc(&a->seen, ENTITY_SEP);
      rescue_jw_strn(a->w, p, n);
    }
  }
  rescue_free(name);
  return 0;
}

void rescue_sample_participants_json(const rescue_scheme *sc, const rescue_sample *s,
                                     rescue_buf *out) {
  participants_acc a = {sc, RESCUE_BUF_INIT, NULL};
  rescue_jw w;
  int i;
  rescue_jw_init(&w, out);
  a.w = &w;
  rescue_jw_arr(&w);
  for (i = 0; i < s->n; i++)
    if (each_entity(s->rows[i].entities, add_participant, &a))
      break;
  rescue_jw_end(&w);
  if (!rescue_buf_ok(&a.seen))
    out->oom = 1;
  rescue_buf_clear(&a.seen);
}

/*
** Where derived keys go in a stored head: right after a leading "sample_id" member (so
** the release order sample_id, scenario, participants comes out), else right after '{'.
*/
static size_t derived_at(const char *head) {
  static const char lead[] = "{\"sample_id\": \"";
  const char *p;
  if (strncmp(head, lead, sizeof lead - 1) != 0)
    return 1;
  for (p = head + sizeof lead - 1; *p && *p != '"'; p++)
    if (*p == '\\' && p[1])
      p++;
  return *p ? (size_t)(p + 1 - head) : 1;
}

void rescue_sample_write_json(const rescue_scheme *sc, const rescue_sample *s, rescue_buf *out) {
  const char *head = s->head, *scenario = NULL;
  size_t at = derived_at(head);
  int i, missing = (~s->given_keys) & 7, wrote = at > 1;
  rescue_buf_putn(out, head, at);
  head += at;
  if (missing & RESCUE_GIVEN_SAMPLE_ID) {
    rescue_buf_puts(out, "\"sample_id\": ");
    rescue_jwrite_string(out, s->sample_id, strlen(s->sample_id));
    wrote = 1;
  }
  if (missing & RESCUE_GIVEN_SCENARIO) {
    scenario = rescue_sample_scenario(sc, s);
    rescue_buf_puts(out, wrote ? ", \"scenario\": " : "\"scenario\": ");
    rescue_jwrite_string(out, scenario, strlen(scenario));
    wrote = 1;
  }
  if (missing & RESCUE_GIVEN_PARTICIPANTS) {
    rescue_buf_puts(out, wrote ? ", \"participants\": " : "\"participants\": ");
    rescue_sample_participants_json(sc, s, out);
    wrote = 1;
  }
  /* head now continues with ', "k": ...' (after sample_id), '"k": ...' or '}' */
  if (missing && at == 1 && *head != '}')
    rescue_buf_puts(out, ", ");
  rescue_buf_puts(out, head);
  if (!s->has_rows)
    return;
  rescue_buf_putc(out, '[');
  for (i = 0; i < s->n; i++) {
    if (i)
      rescue_buf_putn(out, ", ", 2);
    rescue_buf_putn(out, s->rows[i].content, s->rows[i].content_len);
  }
  rescue_buf_putc(out, ']');
  rescue_buf_puts(out, s->tail);
}

/* The audit record of a status change, inside its transaction, at the change's time. */
static int status_audit(rescue_store *st, const char *sample_id, const char *status,
                        const char *reason, int64_t annotator_id, const char *now) {
  rescue_audit_entry e;
  rescue_buf detail = RESCUE_BUF_INIT;
  char *name = NULL;
  int rc;
  memset(&e, 0, sizeof e);
  if (annotator_id) {
    sqlite3_stmt *q = rescue_store_stmt(st, "audit_annotator_name");
    if (!q)
      return rescue_store_err(st)->code;
    rescue_bind_int(q, ":id", annotator_id);
    if (sqlite3_step(q) == SQLITE_ROW)
      name = rescue_strdup((const char *)sqlite3_column_text(q, 0));
    sqlite3_reset(q);
  }
  rescue_buf_printf(&detail, "%s: %s%s%s%s", sample_id, status, reason ? " (" : "",
                    reason ? reason : "", reason ? ")" : "");
  e.action = "status";
  e.annotator = name;
  e.detail = detail.s;
  rc = rescue_buf_ok(&detail) ? rescue_audit_write_at(st, &e, now)
                              : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  rescue_free(name);
  rescue_buf_clear(&detail);
  return rc;
}

/*
** Record `status` for the sample `ref` (sample_id) inside the caller's open transaction: its
** status history, the sample's current status and the audit record.
*/
static int status_write(rescue_store *st, int64_t ref, const char *sample_id, const char *status,
                        const char *reason, int64_t annotator_id) {
  sqlite3_stmt *s;
  char now[32];
  rescue_now_iso(now);
  s = rescue_store_stmt(st, "sample_status_insert");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_text(s, ":status", status, -1);
  rescue_bind_text(s, ":reason", reason, -1);
  if (annotator_id)
    rescue_bind_int(s, ":annotator_id", annotator_id);
  else
    rescue_bind_null(s, ":annotator_id");
  rescue_bind_text(s, ":now", now, -1);
  if (sqlite3_step(s) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "recording a status");
  s = rescue_store_stmt(st, "sample_set_status");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":status", status, -1);
  rescue_bind_text(s, ":reason", reason, -1);
  rescue_bind_int(s, ":id", ref);
  if (sqlite3_step(s) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "recording a status");
  return status_audit(st, sample_id, status, reason, annotator_id, now);
}

int rescue_sample_set_status(rescue_store *st, const char *sample_id, const char *status,
                             const char *reason, int64_t annotator_id) {
  static const char *const ok[] = {"new", "in_review", "reviewed", "discarded"};
  int64_t ref;
  size_t i;
  int rc, known = 0;
  for (i = 0; i < sizeof ok / sizeof ok[0]; i++)
    known |= strcmp(status, ok[i]) == 0;
  if (!known)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "unknown status '%s' (expected new, in_review, reviewed or discarded)",
                         status);
  if (strcmp(status, "discarded") == 0 && (!reason || !*reason))
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "discarding a sample needs a reason");
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = rescue_sample_ref(st, sample_id, &ref)) ||
      (rc = status_write(st, ref, sample_id, status, reason, annotator_id)))
    goto fail;
  return rescue_store_commit(st);
fail:
  rescue_store_rollback(st);
  return rc;
}

int rescue_sample_reopen(rescue_store *st, const char *sample_id, int64_t annotator_id,
                         const char *why, int *reopened) {
  sqlite3_stmt *q = rescue_store_stmt(st, "sample_status_of");
  int64_t ref = 0;
  int rc, closed = 0;
  if (reopened)
    *reopened = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_text(q, ":sample_id", sample_id, -1);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW) {
    const char *status = (const char *)sqlite3_column_text(q, 1);
    ref = sqlite3_column_int64(q, 0);
    closed = strcmp(status, "reviewed") == 0 || strcmp(status, "discarded") == 0;
  }
  sqlite3_reset(q);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "reading a status");
  if (!closed)
    return 0;
  if ((rc = status_write(st, ref, sample_id, "in_review", why ? why : "reopened: a row was saved",
                         annotator_id)))
    return rc;
  if (reopened)
    *reopened = 1;
  return 0;
}

/* ---- row inputs ---- */

void rescue_row_input_clear(rescue_row_input *in) {
  rescue_buf_clear(&in->content);
  rescue_buf_clear(&in->extra);
  memset(in, 0, sizeof *in);
}

static void put_entity(rescue_buf *ents, const rescue_jnode *n, rescue_buf *tmp) {
  rescue_buf_reset(tmp);
  if (rescue_jclean(tmp, n) == 0)
    return;
  if (ents->len)
    rescue_buf_putc(ents, ENTITY_SEP);
  rescue_buf_putn(ents, tmp->s, tmp->len);
}

/* Append the cleaned value of key (or nothing) and a NUL; returns 1 if the key exists. */
static int put_clean(rescue_buf *extra, const rescue_jnode *row, const char *key) {
  const rescue_jnode *v = rescue_jget(row, key);
  if (v)
    rescue_jclean(extra, v);
  rescue_buf_putc(extra, 0);
  return v != NULL;
}

int rescue_row_input_from_json(const rescue_scheme *sc, const rescue_jnode *row,
                               rescue_row_input *in, const rescue_jnode **bad, rescue_error *err) {
  const rescue_jnode *st, *et, *tg, *ss, *c;
  rescue_buf ents = RESCUE_BUF_INIT, tmp = RESCUE_BUF_INIT;
  (void)sc;
  *bad = row;
  if (row->type != RESCUE_JOBJECT)
    return rescue_seterr(err, RESCUE_EBADINPUT, "row is not an object");
  st = rescue_jget(row, "start_time");
  et = rescue_jget(row, "end_time");
  tg = rescue_jget(row, "target");
  if (!st)
    return rescue_seterr(err, RESCUE_EBADINPUT, "row has no start_time");
  if (st->type != RESCUE_JNUMBER) {
    *bad = st;
    return rescue_seterr(err, RESCUE_EBADINPUT, "start_time is not a finite number");
  }
  if (!et)
    return rescue_seterr(err, RESCUE_EBADINPUT, "row has no end_time");
  if (et->type != RESCUE_JNUMBER) {
    *bad = et;
    return rescue_seterr(err, RESCUE_EBADINPUT, "end_time is not a finite number");
  }
  if (!tg)
    return rescue_seterr(err, RESCUE_EBADINPUT, "row has no target");
  if (tg->type != RESCUE_JARRAY) {
    *bad = tg;
    return rescue_seterr(err, RESCUE_EBADINPUT, "target is not a list of strings");
  }
  for (c = tg->child; c; c = c->next)
    if (c->type != RESCUE_JSTRING) {
      *bad = c;
      return rescue_seterr(err, RESCUE_EBADINPUT, "target is not a list of strings");
    }
  *bad = NULL;
  if (!in)
    return 0;

  rescue_buf_reset(&in->content);
  rescue_buf_reset(&in->extra);
  rescue_jwrite(&in->content, row);
  in->start_time = st->num;
  in->end_time = et->num;

  /* speaker, then entities: speaker, targets, support_strategy targets (corpus/FORMAT.md §6.4) */
  put_clean(&in->extra, row, "primary_speaker");
  put_entity(&ents, rescue_jget(row, "primary_speaker"), &tmp);
  for (c = tg->child; c; c = c->next)
    put_entity(&ents, c, &tmp);
  ss = rescue_jget(row, "support_strategy");
  if (ss && ss->type == RESCUE_JARRAY)
    for (c = ss->child; c; c = c->next) {
      const rescue_jnode *t = rescue_jget(c, "target"), *e;
      if (t && t->type == RESCUE_JARRAY)
        for (e = t->child; e; e = e->next)
          put_entity(&ents, e, &tmp);
    }
  rescue_buf_putn(&in->extra, ents.s ? ents.s : "", ents.len);
  rescue_buf_putc(&in->extra, 0);
  in->has_utterance = put_clean(&in->extra, row, "utterance_type");
  in->has_cycle = put_clean(&in->extra, row, "relation_cycle_state");
  in->has_pattern = put_clean(&in->extra, row, "relation_pattern");
  rescue_buf_clear(&ents);
  rescue_buf_clear(&tmp);
  if (!rescue_buf_ok(&in->content) || !rescue_buf_ok(&in->extra) || !rescue_buf_ok(&ents))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  return 0;
}

/* ---- writing ---- */

int rescue_store_add_row_version(rescue_store *st, int64_t row_id, int64_t annotator_id,
                                 const char *kind, const rescue_row_input *in,
                                 const char *gold_policy, const char *gold_sources,
                                 int64_t *version_id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "row_version_insert");
  const char *x = in->extra.s, *speaker, *ents, *utt, *cyc, *pat;
  char now[32];
  int64_t vid;
  if (!s)
    return rescue_store_err(st)->code;
  speaker = x;
  ents = speaker + strlen(speaker) + 1;
  utt = ents + strlen(ents) + 1;
  cyc = utt + strlen(utt) + 1;
  pat = cyc + strlen(cyc) + 1;
  rescue_now_iso(now);
  rescue_bind_int(s, ":row_id", row_id);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_text(s, ":kind", kind, -1);
  rescue_bind_text(s, ":content", in->content.s, (int)in->content.len);
  rescue_bind_double(s, ":start_time", in->start_time);
  rescue_bind_double(s, ":end_time", in->end_time);
  rescue_bind_text(s, ":speaker", speaker, -1);
  rescue_bind_text(s, ":entities", ents, -1);
  rescue_bind_text(s, ":utterance_type", in->has_utterance ? utt : NULL, -1);
  rescue_bind_text(s, ":relation_cycle_state", in->has_cycle ? cyc : NULL, -1);
  rescue_bind_text(s, ":relation_pattern", in->has_pattern ? pat : NULL, -1);
  rescue_bind_text(s, ":gold_policy", gold_policy, -1);
  rescue_bind_text(s, ":gold_sources", gold_sources, -1);
  if (sqlite3_step(s) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "writing a row version");
  vid = sqlite3_last_insert_rowid(rescue_store_db(st));
  if (version_id)
    *version_id = vid;
  return rescue_store_put_refs(st, vid, row_id, annotator_id, in);
}

/* ---- row identity ---- */

/* A row of the current row set with the span the importing annotator sees. */
typedef struct span {
  int64_t row_id;
  int position;
  int known; /* 0: no version gives it a span */
  double start, end;
} span;

/* The overlap rule (corpus/span.c): editing a row's times within it is an ordinary edit. */
static int same_row(double s1, double e1, double s2, double e2) {
  return rescue_span_same_row(s1, e1, s2, e2, NULL);
}

/* The spans of rowset_id's rows as annotator_id sees them; *out owned by the caller. */
static int load_spans(rescue_store *st, int64_t rowset_id, int64_t annotator_id, span **out,
                      int *n) {
  sqlite3_stmt *s = rescue_store_stmt(st, "row_spans_for");
  span *v = NULL;
  int k = 0, cap = 0, rc;
  *out = NULL;
  *n = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_text(s, ":draft", RESCUE_DRAFT_ANNOTATOR, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(v, k + 1, cap))
      break;
    v[k].row_id = sqlite3_column_int64(s, 0);
    v[k].position = sqlite3_column_int(s, 1);
    v[k].known =
        sqlite3_column_type(s, 2) != SQLITE_NULL && sqlite3_column_type(s, 3) != SQLITE_NULL;
    v[k].start = sqlite3_column_double(s, 2);
    v[k].end = sqlite3_column_double(s, 3);
    k++;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_free(v);
    return rc == SQLITE_ROW ? rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL)
                            : rescue_store_sqlerr(st, "reading row spans");
  }
  *out = v;
  *n = k;
  return 0;
}

/*
** Rows (spans start[i]..end[i], n of them) with as many rows as the row set must align
** with it row by row (same_row); the first row that does not is refused with a pointer to
** --resegment (*bad_row, when not NULL, gets its 1-based position).
*/
static int check_alignment_spans(rescue_store *st, const char *sample_id, int n_in,
                                 const double *start, const double *end, int64_t rowset_id,
                                 int64_t annotator_id, int *bad_row) {
  span *old = NULL;
  int n = 0, i, rc;
  if ((rc = load_spans(st, rowset_id, annotator_id, &old, &n)))
    return rc;
  for (i = 0; i < n && i < n_in; i++) {
    if (!old[i].known || same_row(start[i], end[i], old[i].start, old[i].end))
      continue;
    if (bad_row)
      *bad_row = i + 1;
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ERESEGMENT,
                       "sample '%s': row %d (%.2f-%.2f s) does not line up with row %d in the "
                       "corpus (%.2f-%.2f s): the spans must overlap by at least half of the "
                       "shorter one. Rows look split or merged",
                       sample_id, i + 1, start[i], end[i], old[i].position, old[i].start,
                       old[i].end);
    break;
  }
  rescue_free(old);
  return rc;
}

static int check_alignment(rescue_store *st, const rescue_sample_input *in, int64_t rowset_id,
                           int64_t annotator_id) {
  double *v = rescue_calloc(2 * (size_t)in->n_rows + 1, sizeof *v);
  int i, rc;
  if (!v)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (i = 0; i < in->n_rows; i++) {
    v[i] = in->rows[i].start_time;
    v[in->n_rows + i] = in->rows[i].end_time;
  }
  rc = check_alignment_spans(st, in->sample_id, in->n_rows, v, v + in->n_rows, rowset_id,
                             annotator_id, NULL);
  rescue_free(v);
  return rc;
}

int rescue_store_check_rows(rescue_store *st, const char *sample_id, int n, const double *start,
                            const double *end, int64_t annotator_id, int *bad_row) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_find_for");
  int64_t rowset_id = 0;
  int rc, have = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_text(s, ":sample_id", sample_id, -1);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW) {
    rowset_id = sqlite3_column_int64(s, 1);
    have = sqlite3_column_int(s, 2);
  }
  sqlite3_reset(s);
  if (rc != SQLITE_ROW && rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "looking up a sample");
  if (rc == SQLITE_DONE || have != n)
    return 0;
  return check_alignment_spans(st, sample_id, n, start, end, rowset_id, annotator_id, bad_row);
}

/*
** Record where each row of a new row set came from (row_origin): the old rows it lines up
** with by the overlap rule. One old row that only this new row takes: same; one old row
** shared by several new rows: split; several old rows: merged (parts in time order).
*/
static int record_lineage(rescue_store *st, const rescue_sample_input *in, const int64_t *new_ids,
                          const span *old, int n_old, rescue_put_stats *stats) {
  int *children = rescue_calloc((size_t)n_old + 1, sizeof *children);
  int i, j, rc = 0;
  if (!children)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  for (j = 0; j < in->n_rows; j++)
    for (i = 0; i < n_old; i++)
      children[i] += old[i].known && same_row(in->rows[j].start_time, in->rows[j].end_time,
                                              old[i].start, old[i].end);
  for (j = 0; j < in->n_rows && !rc; j++) {
    int parents = 0, part = 0;
    for (i = 0; i < n_old; i++)
      parents += old[i].known &&
                 same_row(in->rows[j].start_time, in->rows[j].end_time, old[i].start, old[i].end);
    for (i = 0; i < n_old && !rc; i++) {
      sqlite3_stmt *s;
      const char *rel;
      if (!old[i].known ||
          !same_row(in->rows[j].start_time, in->rows[j].end_time, old[i].start, old[i].end))
        continue;
      rel = parents > 1 ? "merged" : children[i] > 1 ? "split" : "same";
      if (!(s = rescue_store_stmt(st, "row_origin_insert"))) {
        rc = rescue_store_err(st)->code;
        break;
      }
      rescue_bind_int(s, ":row_id", new_ids[j]);
      rescue_bind_int(s, ":part", ++part);
      rescue_bind_int(s, ":parent_id", old[i].row_id);
      rescue_bind_text(s, ":relation", rel, -1);
      if (sqlite3_step(s) != SQLITE_DONE)
        rc = rescue_store_sqlerr(st, "recording where a row came from");
      else if (rel[1] == 'a') /* "same" */
        stats->rows_carried++;
    }
  }
  rescue_free(children);
  return rc;
}

int rescue_store_member_insert(rescue_store *st, int64_t rowset_id, int position, int64_t row_id) {
  sqlite3_stmt *s = rescue_store_stmt(st, "member_insert");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  rescue_bind_int(s, ":position", position);
  rescue_bind_int(s, ":row_id", row_id);
  return sqlite3_step(s) == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "writing a row set");
}

int rescue_store_point_rowset(rescue_store *st, int64_t sample_ref, int64_t annotator_id,
                              int64_t rowset_id) {
  sqlite3_stmt *s =
      rescue_store_stmt(st, annotator_id ? "annotator_rowset_set" : "sample_set_rowset");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rowset_id", rowset_id);
  if (annotator_id) {
    rescue_bind_int(s, ":sample_ref", sample_ref);
    rescue_bind_int(s, ":annotator_id", annotator_id);
  } else {
    rescue_bind_int(s, ":id", sample_ref);
  }
  return sqlite3_step(s) == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "writing a sample");
}

/*
** Insert a row set of n rows with a first version each (from in->rows). When it replaces
** old_rowset (a resegmentation), the lineage of its rows is recorded too. own: the row set
** becomes annotator_id's own (annotator_rowset), else the sample's base row set.
*/
static int new_rowset(rescue_store *st, int64_t sample_ref, const rescue_sample_input *in,
                      int64_t annotator_id, const char *kind, const char *note, int64_t old_rowset,
                      int own, const char *now, rescue_put_stats *stats) {
  sqlite3_stmt *s = rescue_store_stmt(st, "rowset_insert");
  int64_t rowset_id, *new_ids = NULL;
  span *old = NULL;
  int i, rc, n_old = 0;
  if (!s)
    return rescue_store_err(st)->code;
  if (!(new_ids = rescue_calloc((size_t)in->n_rows + 1, sizeof *new_ids)))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  if (old_rowset) {
    if ((rc = load_spans(st, old_rowset, annotator_id, &old, &n_old)))
      goto end;
    if (!(s = rescue_store_stmt(st, "rowset_insert"))) {
      rc = rescue_store_err(st)->code;
      goto end;
    }
  }
  rescue_bind_int(s, ":sample_ref", sample_ref);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_int(s, ":n_rows", in->n_rows);
  rescue_bind_text(s, ":note", note, -1);
  if (sqlite3_step(s) != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "writing a row set");
    goto end;
  }
  rowset_id = sqlite3_last_insert_rowid(rescue_store_db(st));
  if ((rc = rescue_store_point_rowset(st, sample_ref, own ? annotator_id : 0, rowset_id)))
    goto end;
  for (i = 0; i < in->n_rows; i++) {
    s = rescue_store_stmt(st, "row_insert");
    if (!s) {
      rc = rescue_store_err(st)->code;
      goto end;
    }
    rescue_bind_int(s, ":rowset_id", rowset_id);
    rescue_bind_int(s, ":position", i + 1);
    if (sqlite3_step(s) != SQLITE_DONE) {
      rc = rescue_store_sqlerr(st, "writing a row");
      goto end;
    }
    new_ids[i] = sqlite3_last_insert_rowid(rescue_store_db(st));
    if ((rc = rescue_store_member_insert(st, rowset_id, i + 1, new_ids[i])))
      goto end;
  }
  /* every row is a member before the first version: a row may name a later one */
  for (i = 0; i < in->n_rows; i++) {
    rescue_row_input ri = in->rows[i]; /* shares the buffers: not cleared here */
    ri.ref_rowset_id = rowset_id;
    if ((rc = rescue_store_add_row_version(st, new_ids[i], annotator_id, kind, &ri, NULL, NULL,
                                           NULL)))
      goto end;
  }
  if (old && (rc = record_lineage(st, in, new_ids, old, n_old, stats)))
    goto end;
  stats->rowsets++;
  stats->rows_new += in->n_rows;
  stats->row_versions += in->n_rows;
  rc = 0;
end:
  rescue_free(old);
  rescue_free(new_ids);
  return rc;
}

/*
** Add a sample version; check 1: unless this annotator's latest one is the same; check 2
** (edits): unless the one the annotator sees (theirs, else the first) is. *added set to 1
** when added.
*/
static int put_sample_version(rescue_store *st, int64_t ref, const rescue_sample_input *in,
                              int64_t annotator_id, const char *now, int check, int *added) {
  sqlite3_stmt *s;
  *added = 0;
  if (check) {
    int same = 0, rc;
    s = rescue_store_stmt(st, check == 2 ? "sample_version_seen" : "sample_version_mine");
    if (!s)
      return rescue_store_err(st)->code;
    rescue_bind_int(s, ":sample_ref", ref);
    rescue_bind_int(s, ":annotator_id", annotator_id);
    rc = sqlite3_step(s);
    if (rc == SQLITE_ROW)
      same = strcmp((const char *)sqlite3_column_text(s, 0), in->head) == 0 &&
             strcmp((const char *)sqlite3_column_text(s, 1), in->tail) == 0 &&
             sqlite3_column_int(s, 2) == in->has_rows && sqlite3_column_int(s, 3) == in->given_keys;
    sqlite3_reset(s);
    if (rc != SQLITE_ROW && rc != SQLITE_DONE)
      return rescue_store_sqlerr(st, "reading a sample version");
    if (same)
      return 0;
  }
  s = rescue_store_stmt(st, "sample_version_insert");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_text(s, ":now", now, -1);
  rescue_bind_text(s, ":head", in->head, -1);
  rescue_bind_text(s, ":tail", in->tail, -1);
  rescue_bind_int(s, ":has_rows", in->has_rows);
  rescue_bind_int(s, ":given_keys", in->given_keys);
  if (sqlite3_step(s) != SQLITE_DONE)
    return rescue_store_sqlerr(st, "writing a sample version");
  *added = 1;
  return 0;
}

/*
** Add a sample that is not in the corpus yet: its group (made when new), the sample row
** with its sort key, the first rowset and the first sample version. The caller has reset
** the "sample_find" statement. 0 or a negative error code with the message on st.
*/
static int put_new_sample(rescue_store *st, const rescue_sample_input *in, int64_t annotator_id,
                          const char *kind, const char *now, rescue_put_stats *stats) {
  sqlite3_stmt *s;
  rescue_buf key = RESCUE_BUF_INIT;
  int64_t group_id = 0, ref;
  size_t i;
  int rc = 0, added = 0;

  rescue_sample_group(in->sample_id, &key);
  if (!rescue_buf_ok(&key)) {
    rescue_buf_clear(&key);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  s = rescue_store_stmt(st, "group_insert");
  if (s) {
    rescue_bind_text(s, ":name", key.s, (int)key.len);
    rc = sqlite3_step(s);
    s = rc == SQLITE_DONE ? rescue_store_stmt(st, "group_find") : NULL;
  }
  if (s) {
    rescue_bind_text(s, ":name", key.s, (int)key.len);
    rc = sqlite3_step(s);
    group_id = sqlite3_column_int64(s, 0);
    sqlite3_reset(s);
  }
  if (!s || rc != SQLITE_ROW) {
    rescue_buf_clear(&key);
    return rescue_store_sqlerr(st, "writing a group");
  }
  rescue_buf_reset(&key);
  rescue_buf_puts(&key, in->sample_id);
  for (i = 0; i < key.len; i++)
    if (key.s[i] == '/')
      key.s[i] = '\x01';
  s = rescue_store_stmt(st, "sample_insert");
  if (!s) {
    rescue_buf_clear(&key);
    return rescue_store_err(st)->code;
  }
  rescue_bind_text(s, ":sample_id", in->sample_id, -1);
  sqlite3_bind_blob(s, sqlite3_bind_parameter_index(s, ":sort_key"), key.s, (int)key.len,
                    SQLITE_STATIC);
  rescue_bind_int(s, ":group_id", group_id);
  rescue_bind_text(s, ":now", now, -1);
  rc = sqlite3_step(s);
  rescue_buf_clear(&key);
  if (rc != SQLITE_DONE)
    return rescue_store_sqlerr(st, "writing a sample");
  ref = sqlite3_last_insert_rowid(rescue_store_db(st));
  if ((rc = new_rowset(st, ref, in, annotator_id, kind, "import", 0, 0, now, stats)) ||
      (rc = put_sample_version(st, ref, in, annotator_id, now, 0, &added)))
    return rc;
  stats->samples_new++;
  return 0;
}

/*
** Into out (reset first), ri's content with its numeric row_index written as `made`, the
** position its row was made at, as a save stores it (corpus/row_save.c): 1 when that
** changed it, else 0 and out untouched.
*/
static int renumbered(const rescue_row_input *ri, int made, rescue_buf *out) {
  rescue_jdoc *doc = rescue_jdoc_new();
  const rescue_jnode *row, *ix;
  rescue_jerror je;
  int r = 0;
  rescue_buf_reset(out);
  if (!doc) {
    out->oom = 1;
    return 0;
  }
  row = rescue_jparse(doc, ri->content.s, ri->content.len, &je);
  if (row && row->type == RESCUE_JOBJECT && (ix = rescue_jget(row, "row_index")) &&
      ix->type == RESCUE_JNUMBER && ix->num != made) {
    rescue_row_write_like(out, row, row, made);
    r = 1;
  }
  rescue_jdoc_free(&doc);
  return r;
}

/*
** Add a row version for every row of the sample's rowset rowset_id (n_rows rows) whose
** content differs from what the annotator has (with RESCUE_PUT_EDIT in flags: what they
** see). In the annotator's own row set (own_set) a row's row_index is stored as the
** position its row was made at, which the view turns into its position there, whatever
** the file said. *changed set to 1 when any was added. 0 or a negative error code with the
** message on st.
*/
static int put_changed_rows(rescue_store *st, const rescue_sample_input *in, int64_t annotator_id,
                            const char *kind, int flags, int64_t rowset_id, int own_set, int n_rows,
                            rescue_put_stats *stats, int *changed) {
  sqlite3_stmt *s;
  rescue_buf fix = RESCUE_BUF_INIT, shown = RESCUE_BUF_INIT, lost = RESCUE_BUF_INIT;
  int64_t *todo;
  int *pos, *made, nt = 0, i, rc;

  s = rescue_store_stmt(st, (flags & RESCUE_PUT_EDIT) ? "rows_seen" : "rows_mine");
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rescue_bind_int(s, ":rowset_id", rowset_id);
  /* Collect row ids whose content differs first: the insert statement is separate. */
  todo = rescue_calloc((size_t)(n_rows ? n_rows : 1), sizeof *todo);
  pos = rescue_calloc((size_t)(n_rows ? n_rows : 1), sizeof *pos);
  made = rescue_calloc((size_t)(n_rows ? n_rows : 1), sizeof *made);
  if (!todo || !pos || !made) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    sqlite3_reset(s);
    goto done;
  }
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    int p = sqlite3_column_int(s, 1), at = sqlite3_column_int(s, 3);
    const rescue_row_input *ri;
    const char *mine = (const char *)sqlite3_column_text(s, 2);
    size_t n_mine = (size_t)sqlite3_column_bytes(s, 2);
    const rescue_buf *c;
    if (p < 1 || p > in->n_rows || nt >= n_rows)
      continue;
    ri = &in->rows[p - 1];
    c = own_set && renumbered(ri, at, &fix) ? &fix : &ri->content;
    /* in their own row set, compared as their view shows it: references renumbered */
    rescue_buf_reset(&shown);
    rescue_buf_reset(&lost);
    if (mine && own_set &&
        (rc = rescue_store_refs_in(st, rowset_id, sqlite3_column_int64(s, 4), mine, n_mine, &shown,
                                   &lost)))
      break;
    if (shown.len)
      mine = shown.s, n_mine = shown.len;
    if (mine && n_mine == c->len && memcmp(mine, c->s, c->len) == 0)
      continue;
    todo[nt] = sqlite3_column_int64(s, 0);
    made[nt] = at;
    pos[nt++] = p;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    if (rc >= 0) /* else rescue_store_refs_in failed, its message on st */
      rc = rescue_store_sqlerr(st, "reading rows");
    goto done;
  }
  rc = 0;
  for (i = 0; i < nt && !rc; i++) {
    rescue_row_input r = in->rows[pos[i] - 1]; /* shallow: only its content may change */
    if (own_set && renumbered(&r, made[i], &fix))
      r.content = fix;
    rc = rescue_buf_ok(&fix)
             ? rescue_store_add_row_version(st, todo[i], annotator_id, kind, &r, NULL, NULL, NULL)
             : rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
done:
  rescue_buf_clear(&fix);
  rescue_buf_clear(&shown);
  rescue_buf_clear(&lost);
  rescue_free(todo);
  rescue_free(pos);
  rescue_free(made);
  if (rc)
    return rc;
  stats->row_versions += nt;
  *changed = nt > 0;
  return 0;
}

/*
** Whether a resegmentation by annotator_id becomes their own row set (a person's) or
** replaces the sample's base row set (the draft, a model, gold).
*/
static int own_rowset_wanted(rescue_store *st, int64_t annotator_id, const char *kind, int *own) {
  sqlite3_stmt *q = rescue_store_stmt(st, "review_annotator");
  int rc;
  *own = 0;
  if (!q)
    return rescue_store_err(st)->code;
  rescue_bind_int(q, ":id", annotator_id);
  rc = sqlite3_step(q);
  if (rc == SQLITE_ROW)
    *own = strcmp(kind, "gold") != 0 &&
           strcmp((const char *)sqlite3_column_text(q, 0), RESCUE_DRAFT_ANNOTATOR) != 0 &&
           strcmp((const char *)sqlite3_column_text(q, 1), "model") != 0;
  sqlite3_reset(q);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0
                                               : rescue_store_sqlerr(st, "reading an annotator");
}

int rescue_store_reseg_allowed(rescue_store *st, const char *sample_id, int64_t annotator_id) {
  char status[16];
  int64_t gen;
  int rc, own;
  if ((rc = own_rowset_wanted(st, annotator_id, "import", &own)) || !own)
    return rc;
  if ((rc = rescue_sample_generation(st, sample_id, &gen, status)))
    return rc == RESCUE_ENOTFOUND ? 0 : rc;
  if (strcmp(status, "discarded") == 0)
    return rescue_seterr(rescue_store_err(st), RESCUE_ECONFLICT,
                         "sample '%s' is discarded: rows are not split or merged in a discarded "
                         "sample; set it back to in review first",
                         sample_id);
  return 0;
}

int rescue_store_put_sample(rescue_store *st, const rescue_sample_input *in, int64_t annotator_id,
                            const char *kind, int flags, rescue_put_stats *stats) {
  sqlite3_stmt *s = rescue_store_stmt(st, "sample_find_for");
  rescue_put_stats dummy = {0};
  char now[32];
  int64_t ref, rowset_id;
  int rc, n_rows, added = 0, changed = 0, resegment, own = 0, own_set;

  if (!stats)
    stats = &dummy;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_now_iso(now);
  rescue_bind_text(s, ":sample_id", in->sample_id, -1);
  rescue_bind_int(s, ":annotator_id", annotator_id);
  rc = sqlite3_step(s);
  if (rc == SQLITE_DONE && (flags & RESCUE_PUT_EDIT)) {
    sqlite3_reset(s);
    return rescue_seterr(rescue_store_err(st), RESCUE_EBADINPUT, "sample '%s' is not in the corpus",
                         in->sample_id);
  }
  if (rc == SQLITE_DONE) {
    sqlite3_reset(s);
    return put_new_sample(st, in, annotator_id, kind, now, stats);
  }
  if (rc != SQLITE_ROW)
    return rescue_store_sqlerr(st, "looking up a sample");
  ref = sqlite3_column_int64(s, 0);
  rowset_id = sqlite3_column_int64(s, 1);
  n_rows = sqlite3_column_int(s, 2);
  own_set = sqlite3_column_int(s, 3);
  sqlite3_reset(s);

  /* same row count: an edit when the rows line up, else a resegmentation or a refusal */
  resegment = n_rows != in->n_rows;
  if (!resegment && strcmp(kind, "gold") != 0) {
    rc = check_alignment(st, in, rowset_id, annotator_id);
    if (rc == RESCUE_ERESEGMENT && (flags & RESCUE_PUT_RESEGMENT))
      resegment = 1;
    else if (rc)
      return rc;
  }
  if (resegment) {
    if (!(flags & RESCUE_PUT_RESEGMENT) || (flags & RESCUE_PUT_EDIT))
      return rescue_seterr(rescue_store_err(st), RESCUE_ERESEGMENT,
                           "sample '%s' has %d rows in the corpus but %d in the input",
                           in->sample_id, n_rows, in->n_rows);
    if ((rc = own_rowset_wanted(st, annotator_id, kind, &own)) ||
        (own && (rc = rescue_store_reseg_allowed(st, in->sample_id, annotator_id))) ||
        (rc = new_rowset(st, ref, in, annotator_id, kind, "resegment", rowset_id, own, now, stats)))
      return rc;
    changed = 1;
  } else {
    if ((rc = put_changed_rows(st, in, annotator_id, kind, flags, rowset_id, own_set, n_rows, stats,
                               &changed)) ||
        (changed && (rc = own_rowset_wanted(st, annotator_id, kind, &own))))
      return rc;
  }
  /* a person's new versions reopen a reviewed or discarded sample, as a save does; their
     new row set reopens a reviewed one, as a split or merge in the page does */
  if (changed && own &&
      (rc = rescue_sample_reopen(
           st, in->sample_id, annotator_id,
           resegment ? "reopened: the rows were resegmented by an import" : NULL, NULL)))
    return rc;
  if ((rc = put_sample_version(st, ref, in, annotator_id, now, (flags & RESCUE_PUT_EDIT) ? 2 : 1,
                               &added)))
    return rc;
  if (changed || added)
    stats->samples_changed++;
  else
    stats->samples_unchanged++;
  return 0;
}
