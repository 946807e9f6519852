/*
** elan_export.c: samples as ELAN EAF 3.0 files (`rescue export --format eaf`), written
** so that rescue can read every row back exactly (elan_import.c).
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "elan_int.h"
#include "rescue_alloc.h"
#include "rescue_elan.h"
#include "rescue_media.h"
#include "rescue_output.h"
#include "rescue_sha256.h"

/* ---- XML text ---- */

int eaf_xml_ok(const char *s, size_t len) {
  size_t i;
  for (i = 0; i < len; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
      return 0;
    if (c == 0xEF && i + 2 < len && (unsigned char)s[i + 1] == 0xBF &&
        ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF))
      return 0; /* U+FFFE, U+FFFF */
  }
  return 1;
}

/*
** Escape for element text (attr = 0) or a double-quoted attribute (attr = 1). CR, and
** in attributes TAB and LF, become character references so a reader's whitespace
** normalisation cannot change them. Characters XML 1.0 cannot carry at all (C0 controls,
** U+FFFE, U+FFFF) only reach here inside JSON text (plain strings with them travel as
** JSON), so they are written as JSON escapes: the document stays well-formed either way.
*/
void eaf_xml_put(rescue_buf *b, const char *s, size_t len, int attr) {
  size_t i, run = 0;
  for (i = 0; i < len; i++) {
    const char *rep = NULL;
    char esc[8];
    unsigned char c = (unsigned char)s[i];
    if ((c < 0x20 && c != '\t' && c != '\n' && c != '\r') ||
        (c == 0xEF && i + 2 < len && (unsigned char)s[i + 1] == 0xBF &&
         ((unsigned char)s[i + 2] == 0xBE || (unsigned char)s[i + 2] == 0xBF))) {
      rescue_buf_putn(b, s + run, i - run);
      if (c == 0xEF) {
        rescue_buf_puts(b, (unsigned char)s[i + 2] == 0xBE ? "\\ufffe" : "\\uffff");
        i += 2;
      } else {
        snprintf(esc, sizeof esc, "\\u%04x", c);
        rescue_buf_puts(b, esc);
      }
      run = i + 1;
      continue;
    }
    switch (s[i]) {
    case '&': rep = "&amp;"; break;
    case '<': rep = "&lt;"; break;
    case '>': rep = "&gt;"; break;
    case '"': rep = attr ? "&quot;" : NULL; break;
    case '\r': rep = "&#13;"; break;
    case '\n': rep = attr ? "&#10;" : NULL; break;
    case '\t': rep = attr ? "&#9;" : NULL; break;
    default: break;
    }
    if (rep) {
      rescue_buf_putn(b, s + run, i - run);
      rescue_buf_puts(b, rep);
      run = i + 1;
    }
  }
  rescue_buf_putn(b, s + run, len - run);
}

static void attr(rescue_buf *b, const char *name, const char *v) {
  rescue_buf_printf(b, " %s=\"", name);
  eaf_xml_put(b, v, strlen(v), 1);
  rescue_buf_putc(b, '"');
}

/* ---- the sample laid out as tiers ---- */

typedef struct erow {
  const rescue_jnode *obj;
  eaf_code *codes;              /* how each member travels, in member order (into layout.codes) */
  const rescue_jnode *dialogue; /* the member carried by the turn annotation, or NULL */
  const char *speaker;          /* NULL: the row has no speaker usable as a participant */
  int tier;
  long long ms0, ms1;
  int ts0, ts1; /* time slot numbers */
} erow;

typedef struct etier {
  const char *speaker; /* NULL: "turn" without participant */
  int group, overflow;
  long long last_end;
  char *suffix;      /* "@Alan", "@Alan#2", "", "#2" */
  const char **keys; /* field tiers: row keys in scheme order, then first seen */
  int n_keys, cap_keys;
  eaf_smap key_ix; /* key -> 1 (membership) */
} etier;

typedef struct eslot {
  long long ms;
  int row, which;
} eslot;

typedef struct layout {
  const rescue_scheme *sc;
  const char *scenario;
  erow *rows;
  int n;
  etier *tiers;
  int n_tiers;
  eslot *slots;
  eaf_code *codes;
} layout;

static int is_list_field(const rescue_field *f) {
  return f &&
         (f->type == RESCUE_F_ENTITIES || f->type == RESCUE_F_INTS || f->type == RESCUE_F_LIST);
}

/* How member m of a row is carried (the codes of elan_int.h). */
eaf_code eaf_member_code(const rescue_scheme *sc, const rescue_jnode *row, const rescue_jnode *m,
                         int speaker_ok, int dup) {
  const rescue_jnode *c;
  if (dup)
    return EAF_EMBED;
  if ((strcmp(m->key, "start_time") == 0 || strcmp(m->key, "end_time") == 0) &&
      m->type == RESCUE_JNUMBER)
    return EAF_TIME;
  if (strcmp(m->key, "primary_speaker") == 0 && speaker_ok &&
      m == rescue_jget(row, "primary_speaker"))
    return EAF_SPEAKER;
  if (strcmp(m->key, "dialogue_cleaned") == 0 && m->type == RESCUE_JSTRING &&
      eaf_xml_ok(m->s, m->len))
    return EAF_DIALOGUE;
  if (strcmp(m->key, "turn") == 0 || strcmp(m->key, "rescue") == 0 ||
      strcmp(m->key, EAF_LT_TURN) == 0 || strcmp(m->key, EAF_LT_ROW) == 0)
    return EAF_EMBED; /* its tier or type name would clash with rescue's own */
  if (is_list_field(rescue_scheme_field(sc, m->key))) {
    if (m->type != RESCUE_JARRAY)
      return EAF_EMBED;
    for (c = m->child; c; c = c->next)
      if (c->type != RESCUE_JSTRING || !eaf_xml_ok(c->s, c->len))
        return EAF_LIST_JSON;
    return EAF_LIST_STR;
  }
  if (m->type == RESCUE_JSTRING && eaf_xml_ok(m->s, m->len))
    return EAF_STR;
  return EAF_JSON;
}

const char *eaf_code_name(eaf_code c) {
  switch (c) {
  case EAF_TIME: return "t";
  case EAF_SPEAKER: return "p";
  case EAF_DIALOGUE: return "d";
  case EAF_STR: return "s";
  case EAF_JSON: return "j";
  case EAF_LIST_STR: return "ls";
  case EAF_LIST_JSON: return "lj";
  case EAF_EMBED: return "v";
  }
  return "v";
}

static long long to_ms(double v) {
  double ms = floor(v * 1000.0 + 0.5);
  if (!(ms > 0))
    return 0;
  if (ms > 4294967295.0)
    return 4294967295LL;
  return (long long)ms;
}

void eaf_row_ms(const rescue_jnode *row, long long *ms0, long long *ms1) {
  const rescue_jnode *a = rescue_jget(row, "start_time"), *b = rescue_jget(row, "end_time");
  *ms0 = a && a->type == RESCUE_JNUMBER ? to_ms(a->num) : 0;
  *ms1 = b && b->type == RESCUE_JNUMBER ? to_ms(b->num) : *ms0;
  if (*ms1 < *ms0)
    *ms1 = *ms0;
}

static int cmp_slots(const void *pa, const void *pb) {
  const eslot *a = pa, *b = pb;
  if (a->ms != b->ms)
    return a->ms < b->ms ? -1 : 1;
  if (a->row != b->row)
    return a->row < b->row ? -1 : 1;
  return a->which - b->which;
}

static int cmp_tiers(const void *pa, const void *pb) {
  const etier *a = pa, *b = pb;
  if (a->group != b->group)
    return a->group - b->group;
  return a->overflow - b->overflow;
}

static int tier_add_key(etier *t, const char *key) {
  int r = eaf_smap_put(&t->key_ix, key, 1);
  if (r)
    return r < 0 ? -1 : 0;
  if (RESCUE_ALLOC_GROW(t->keys, t->n_keys + 1, t->cap_keys))
    return -1;
  t->keys[t->n_keys++] = key;
  return 0;
}

/* Field order: the scheme's row fields first (in scheme order), then the rest. */
static int key_rank(const rescue_scheme *sc, const char *k) {
  int i;
  for (i = 0; i < sc->n_fields; i++)
    if (strcmp(sc->fields[i].key, k) == 0)
      return i;
  return sc->n_fields;
}

/*
** Stable order by rank: the scheme's keys in scheme order first, the others as first
** seen. (A bucket pass: one rank lookup per key.)
*/
static int order_keys(const rescue_scheme *sc, etier *t) {
  const char **out, **fixed;
  int i, n_out = 0;
  if (t->n_keys < 2)
    return 0;
  out = rescue_malloc((size_t)t->n_keys * sizeof *out);
  fixed = rescue_calloc((size_t)sc->n_fields + 1, sizeof *fixed);
  if (!out || !fixed) {
    rescue_free(out);
    rescue_free(fixed);
    return -1;
  }
  for (i = 0; i < t->n_keys; i++) {
    int r = key_rank(sc, t->keys[i]);
    if (r < sc->n_fields)
      fixed[r] = t->keys[i];
  }
  for (i = 0; i < sc->n_fields; i++)
    if (fixed[i])
      out[n_out++] = fixed[i];
  for (i = 0; i < t->n_keys; i++)
    if (key_rank(sc, t->keys[i]) == sc->n_fields)
      out[n_out++] = t->keys[i];
  memcpy(t->keys, out, (size_t)n_out * sizeof *out);
  rescue_free(out);
  rescue_free(fixed);
  return 0;
}

static void layout_free(layout *L) {
  int i;
  for (i = 0; i < L->n_tiers; i++) {
    rescue_free(L->tiers[i].suffix);
    rescue_free(L->tiers[i].keys);
    eaf_smap_free(&L->tiers[i].key_ix);
  }
  rescue_free(L->codes);
  rescue_free(L->tiers);
  rescue_free(L->rows);
  rescue_free(L->slots);
}

/*
** The turn tier for row e (row number i) among those placed so far: the first tier of the
** row's speaker that the row does not overlap, else a new overflow tier of that speaker (a
** new group for a new speaker) with its suffix ("@Alan", "@Alan#2", "#2"). *n_groups counts
** speakers; *cap_tiers is L->tiers' capacity. Returns the tier's number, or -1 when out of
** memory; sfx is scratch space.
*/
static int tier_for_row(layout *L, const erow *e, int *n_groups, int *cap_tiers, rescue_buf *sfx) {
  etier *t;
  int k, j, group = -1, overflow = 0;
  for (k = 0; k < L->n_tiers; k++) {
    t = &L->tiers[k];
    if ((t->speaker == NULL) != (e->speaker == NULL) ||
        (t->speaker && strcmp(t->speaker, e->speaker) != 0))
      continue;
    group = t->group;
    if (t->last_end <= e->ms0)
      return k;
  }
  for (j = 0; j < L->n_tiers; j++)
    if (L->tiers[j].group == group)
      overflow++;
  if (group < 0)
    group = (*n_groups)++;
  if (RESCUE_ALLOC_GROW(L->tiers, L->n_tiers + 1, *cap_tiers))
    return -1;
  t = &L->tiers[L->n_tiers++];
  memset(t, 0, sizeof *t);
  t->speaker = e->speaker;
  t->group = group;
  t->overflow = overflow;
  rescue_buf_reset(sfx);
  if (e->speaker)
    rescue_buf_printf(sfx, "@%s", e->speaker);
  if (overflow)
    rescue_buf_printf(sfx, "#%d", overflow + 1);
  for (j = 0; j < L->n_tiers - 1 && rescue_buf_ok(sfx); j++)
    if (strcmp(L->tiers[j].suffix, sfx->s) == 0) {
      /* a speaker called "Joel#2" next to Joel's second tier */
      rescue_buf_putc(sfx, '+');
      j = -1;
    }
  rescue_buf_putc(sfx, 0);
  if (!rescue_buf_ok(sfx) || !(t->suffix = rescue_strdup(sfx->s)))
    return -1;
  return k;
}

/*
** How each member of row e travels (e->codes), its dialogue member, and the field keys it
** adds to its tier; a hash finds repeated keys. RESCUE_ENOMEM or 0.
*/
static int row_codes(layout *L, erow *e) {
  const rescue_jnode *m;
  eaf_smap seen = {0};
  int j = 0, dup, rc = 0;
  for (m = e->obj->child; m; m = m->next, j++) {
    eaf_code c;
    if ((dup = eaf_smap_put(&seen, m->key, 0)) < 0) {
      rc = RESCUE_ENOMEM;
      break;
    }
    c = e->codes[j] = eaf_member_code(L->sc, e->obj, m, e->speaker != NULL, dup);
    if (c == EAF_DIALOGUE)
      e->dialogue = m;
    if ((c == EAF_STR || c == EAF_JSON || c == EAF_LIST_STR || c == EAF_LIST_JSON) &&
        tier_add_key(&L->tiers[e->tier], m->key)) {
      rc = RESCUE_ENOMEM;
      break;
    }
  }
  eaf_smap_free(&seen);
  return rc;
}

/* Tiers sorted by speaker, then overflow; rows point at the new positions. */
static int sort_tiers(layout *L) {
  int *where = rescue_calloc((size_t)(L->n_tiers ? L->n_tiers : 1), sizeof *where);
  etier *old = rescue_malloc((size_t)(L->n_tiers ? L->n_tiers : 1) * sizeof *old);
  int i, k;
  if (!where || !old) {
    rescue_free(where);
    rescue_free(old);
    return RESCUE_ENOMEM;
  }
  memcpy(old, L->tiers, (size_t)L->n_tiers * sizeof *old);
  if (L->n_tiers > 1)
    qsort(L->tiers, (size_t)L->n_tiers, sizeof *L->tiers, cmp_tiers);
  for (i = 0; i < L->n_tiers; i++)
    for (k = 0; k < L->n_tiers; k++)
      if (old[i].suffix == L->tiers[k].suffix)
        where[i] = k;
  for (i = 0; i < L->n; i++)
    L->rows[i].tier = where[L->rows[i].tier];
  rescue_free(where);
  rescue_free(old);
  return 0;
}

/* Time slots in time order, numbered from 1; each row learns its two. */
static void number_slots(layout *L) {
  int i;
  if (L->n > 1)
    qsort(L->slots, (size_t)(2 * L->n), sizeof *L->slots, cmp_slots);
  for (i = 0; i < 2 * L->n; i++) {
    erow *e = &L->rows[L->slots[i].row];
    if (L->slots[i].which)
      e->ts1 = i + 1;
    else
      e->ts0 = i + 1;
  }
}

/*
** Place rows on turn tiers: one per speaker, plus overflow tiers for overlapping rows.
** RESCUE_EBADINPUT when a row is not an object, RESCUE_ENOMEM; L is freed by layout_free
** either way.
*/
static int layout_build(layout *L, const rescue_jnode *rows_arr) {
  const rescue_jnode *r;
  int i, rc = 0, n_groups = 0, cap_tiers = 0;
  rescue_buf sfx = RESCUE_BUF_INIT;
  size_t n_members = 0, at_member = 0;
  L->n = (int)rows_arr->len;
  for (r = rows_arr->child; r; r = r->next)
    n_members += r->type == RESCUE_JOBJECT ? r->len : 0;
  L->rows = rescue_calloc((size_t)(L->n ? L->n : 1), sizeof *L->rows);
  L->slots = rescue_calloc((size_t)(L->n ? 2 * L->n : 1), sizeof *L->slots);
  L->codes = rescue_calloc(n_members ? n_members : 1, sizeof *L->codes);
  if (!L->rows || !L->slots || !L->codes)
    return RESCUE_ENOMEM;
  for (i = 0, r = rows_arr->child; r && !rc; r = r->next, i++) {
    erow *e = &L->rows[i];
    const rescue_jnode *sp;
    e->obj = r;
    if (r->type != RESCUE_JOBJECT) {
      rc = RESCUE_EBADINPUT;
      break;
    }
    sp = rescue_jget(r, "primary_speaker");
    if (sp && sp->type == RESCUE_JSTRING && eaf_xml_ok(sp->s, sp->len) &&
        !memchr(sp->s, 0, sp->len))
      e->speaker = sp->s;
    eaf_row_ms(r, &e->ms0, &e->ms1);
    if ((e->tier = tier_for_row(L, e, &n_groups, &cap_tiers, &sfx)) < 0) {
      rc = RESCUE_ENOMEM;
      break;
    }
    L->tiers[e->tier].last_end = e->ms1;
    e->codes = L->codes + at_member;
    at_member += r->len;
    rc = row_codes(L, e);
    L->slots[2 * i] = (eslot){e->ms0, i, 0};
    L->slots[2 * i + 1] = (eslot){e->ms1, i, 1};
  }
  rescue_buf_clear(&sfx);
  if (!rc)
    rc = sort_tiers(L);
  for (i = 0; !rc && i < L->n_tiers; i++)
    if (order_keys(L->sc, &L->tiers[i]))
      rc = RESCUE_ENOMEM;
  if (!rc)
    number_slots(L);
  return rc;
}

/* ---- writing ---- */

/* The controlled vocabulary of a field, when it is a closed label set. */
static const rescue_labelset *field_cv(const layout *L, const char *key) {
  const rescue_field *f = rescue_scheme_field(L->sc, key);
  if (!f || f->type != RESCUE_F_LABEL || !f->labels)
    return NULL;
  return rescue_scheme_labelset(L->sc, f->labels, L->scenario);
}

/* The row record of the bookkeeping tier: row number and how each member is carried. */
static void write_record(const layout *L, int i, rescue_buf *b) {
  const erow *e = &L->rows[i];
  const rescue_jnode *m;
  rescue_jw w;
  rescue_jw_init(&w, b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "row");
  rescue_jw_int(&w, i + 1);
  rescue_jw_key(&w, "keys");
  rescue_jw_arr(&w);
  int j = 0;
  for (m = e->obj->child; m; m = m->next, j++) {
    eaf_code c = e->codes[j];
    rescue_jw_arr(&w);
    rescue_jw_strn(&w, m->key, m->keylen);
    rescue_jw_str(&w, eaf_code_name(c));
    if (c == EAF_TIME)
      rescue_jw_strn(&w, m->s, m->len);
    else if (c == EAF_EMBED)
      rescue_jw_node(&w, m);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}

static void ann_open_ref(rescue_buf *b, long id, long parent, long prev) {
  rescue_buf_printf(b,
                    "        <ANNOTATION>\n"
                    "            <REF_ANNOTATION ANNOTATION_ID=\"a%ld\" ANNOTATION_REF=\"a%ld\"",
                    id, parent);
  if (prev)
    rescue_buf_printf(b, " PREVIOUS_ANNOTATION=\"a%ld\"", prev);
}

static void ann_value(rescue_buf *b, const char *s, size_t len, int ref) {
  rescue_buf_puts(b, ">\n                <ANNOTATION_VALUE>");
  eaf_xml_put(b, s, len, 0);
  rescue_buf_printf(b, "</ANNOTATION_VALUE>\n            </%s>\n        </ANNOTATION>\n",
                    ref ? "REF_ANNOTATION" : "ALIGNABLE_ANNOTATION");
}

static void tier_open(rescue_buf *b, const char *prefix, const etier *t, const char *type,
                      int dependent, const char *annotator) {
  rescue_buf_puts(b, "    <TIER");
  rescue_buf_puts(b, " TIER_ID=\"");
  eaf_xml_put(b, prefix, strlen(prefix), 1);
  eaf_xml_put(b, t->suffix, strlen(t->suffix), 1);
  rescue_buf_putc(b, '"');
  attr(b, "LINGUISTIC_TYPE_REF", type);
  if (t->speaker)
    attr(b, "PARTICIPANT", t->speaker);
  if (annotator)
    attr(b, "ANNOTATOR", annotator);
  if (dependent) {
    rescue_buf_puts(b, " PARENT_REF=\"turn");
    eaf_xml_put(b, t->suffix, strlen(t->suffix), 1);
    rescue_buf_putc(b, '"');
  }
  rescue_buf_puts(b, ">\n");
}

/* The value of a scalar carried as a string (s) or as JSON text (j). */
static void scalar_text(const rescue_jnode *m, eaf_code c, rescue_buf *tmp) {
  rescue_buf_reset(tmp);
  if (c == EAF_STR)
    rescue_buf_putn(tmp, m->s, m->len);
  else
    rescue_jwrite(tmp, m);
}

/* The turn of a speaker nearest before row i (else after it), or -1. */
static int turn_of(const layout *L, int i, const char *who, size_t len) {
  int j;
  for (j = i - 1; j >= 0; j--)
    if (L->rows[j].speaker && strlen(L->rows[j].speaker) == len &&
        memcmp(L->rows[j].speaker, who, len) == 0)
      return j;
  for (j = i + 1; j < L->n; j++)
    if (L->rows[j].speaker && strlen(L->rows[j].speaker) == len &&
        memcmp(L->rows[j].speaker, who, len) == 0)
      return j;
  return -1;
}

/* REF_LINK_SETs: viewpoints (source turn -> target's turn) and relation evidence. */
static void write_links(const layout *L, rescue_buf *b, long *next_link) {
  static const char *const ev_keys[2][2] = {
      {"relation_pattern_evidence_rows", "relation_pattern"},
      {"relation_cycle_evidence_rows", "relation_cycle_state"}};
  rescue_buf set = RESCUE_BUF_INIT;
  int i, k;
  long set_no = 1;
  /* viewpoints */
  for (i = 0; i < L->n; i++) {
    const rescue_jnode *vp = rescue_jget(L->rows[i].obj, "viewpoints_attitudes"), *it;
    if (!vp || vp->type != RESCUE_JARRAY)
      continue;
    for (it = vp->child; it; it = it->next) {
      const rescue_jnode *tg = it->type == RESCUE_JOBJECT ? rescue_jget(it, "target") : NULL;
      const rescue_jnode *at, *view;
      int j;
      if (!tg || tg->type != RESCUE_JSTRING)
        continue;
      j = turn_of(L, i, tg->s, tg->len);
      if (j < 0)
        continue;
      at = rescue_jget(it, "attitude");
      view = rescue_jget(it, "viewpoint");
      rescue_buf_printf(&set,
                        "        <CROSS_REF_LINK REF_LINK_ID=\"rl%ld\" REF1=\"a%d\" REF2=\"a%d\" "
                        "DIRECTIONALITY=\"unidirectional\"",
                        (*next_link)++, i + 1, j + 1);
      if (at && at->type == RESCUE_JSTRING && eaf_xml_ok(at->s, at->len)) {
        rescue_buf_puts(&set, " REF_TYPE=\"");
        eaf_xml_put(&set, at->s, at->len, 1);
        rescue_buf_putc(&set, '"');
      }
      rescue_buf_putc(&set, '>');
      if (view && view->type == RESCUE_JSTRING && eaf_xml_ok(view->s, view->len))
        eaf_xml_put(&set, view->s, view->len, 0);
      rescue_buf_puts(&set, "</CROSS_REF_LINK>\n");
    }
  }
  if (set.len) {
    rescue_buf_printf(b, "    <REF_LINK_SET LINK_SET_ID=\"rls%ld\" LINK_SET_NAME=\"viewpoints\">\n",
                      set_no++);
    rescue_buf_putn(b, set.s, set.len);
    rescue_buf_puts(b, "    </REF_LINK_SET>\n");
  }
  /* relation-pattern evidence: a group of the evidence turns per row */
  for (k = 0; k < 2; k++) {
    rescue_buf_reset(&set);
    for (i = 0; i < L->n; i++) {
      const rescue_jnode *ev = rescue_jget(L->rows[i].obj, ev_keys[k][0]), *it, *lab;
      int any = 0;
      if (!ev || ev->type != RESCUE_JARRAY)
        continue;
      for (it = ev->child; it; it = it->next) {
        const rescue_jnode *p;
        int dup = 0;
        if (it->type != RESCUE_JNUMBER || !it->is_int || it->num < 1 || it->num > L->n)
          continue;
        for (p = ev->child; p != it; p = p->next)
          if (p->type == RESCUE_JNUMBER && p->num == it->num)
            dup = 1;
        if (dup)
          continue;
        if (!any)
          rescue_buf_printf(&set, "        <GROUP_REF_LINK REF_LINK_ID=\"rl%ld\" REFS=\"",
                            (*next_link)++);
        rescue_buf_printf(&set, "%sa%d", any ? " " : "", (int)it->num);
        any = 1;
      }
      if (!any)
        continue;
      rescue_buf_printf(&set, "\" REF_LINK_NAME=\"row %d\">", i + 1);
      lab = rescue_jget(L->rows[i].obj, ev_keys[k][1]);
      if (lab && lab->type == RESCUE_JSTRING && eaf_xml_ok(lab->s, lab->len))
        eaf_xml_put(&set, lab->s, lab->len, 0);
      rescue_buf_puts(&set, "</GROUP_REF_LINK>\n");
    }
    if (set.len) {
      rescue_buf_printf(b, "    <REF_LINK_SET LINK_SET_ID=\"rls%ld\" LINK_SET_NAME=\"%s\">\n",
                        set_no++, k ? "relation_cycle_evidence" : "relation_pattern_evidence");
      rescue_buf_putn(b, set.s, set.len);
      rescue_buf_puts(b, "    </REF_LINK_SET>\n");
    }
  }
  rescue_buf_clear(&set);
}

static const char *mime_of(const char *path) {
  static const char *const map[][2] = {
      {".mp4", "video/mp4"},        {".m4v", "video/mp4"},      {".mov", "video/quicktime"},
      {".mkv", "video/x-matroska"}, {".webm", "video/webm"},    {".mpg", "video/mpeg"},
      {".mpeg", "video/mpeg"},      {".wav", "audio/x-wav"},    {".mp3", "audio/mpeg"},
      {".m4a", "audio/mp4"},        {".avi", "video/x-msvideo"}};
  size_t i, n = strlen(path);
  for (i = 0; i < sizeof map / sizeof map[0]; i++) {
    size_t m = strlen(map[i][0]);
    if (n >= m && strcasecmp(path + n - m, map[i][0]) == 0)
      return map[i][1];
  }
  return "application/octet-stream";
}

/* Append p percent-encoded for a URL path (unreserved characters and '/' as they are). */
static void url_put(rescue_buf *b, const char *p) {
  for (; *p; p++) {
    unsigned char c = (unsigned char)*p;
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
        strchr("/-._~", c))
      rescue_buf_putc(b, (char)c);
    else
      rescue_buf_printf(b, "%%%02X", c);
  }
}

/* file:// URL of a path (made absolute against the current folder), percent-encoded. */
static void file_url(rescue_buf *b, const char *path) {
  rescue_buf_puts(b, "file://");
  if (path[0] != '/') {
    char cwd[4096];
    if (getcwd(cwd, sizeof cwd)) {
      url_put(b, cwd);
      rescue_buf_putc(b, '/');
    }
  }
  url_put(b, path);
}

/* A name-based UUID (from SHA-256 of the sample id): the same sample keeps its URN. */
static void urn_of(const char *sample_id, char out[37]) {
  rescue_sha256 h;
  unsigned char d[32];
  static const char hex[] = "0123456789abcdef";
  int i, j = 0;
  rescue_sha256_init(&h);
  rescue_sha256_update(&h, "rescue-eaf:", 11);
  rescue_sha256_update(&h, sample_id, strlen(sample_id));
  rescue_sha256_final(&h, d);
  d[6] = (unsigned char)((d[6] & 0x0F) | 0x50);
  d[8] = (unsigned char)((d[8] & 0x3F) | 0x80);
  for (i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10)
      out[j++] = '-';
    out[j++] = hex[d[i] >> 4];
    out[j++] = hex[d[i] & 15];
  }
  out[j] = 0;
}

/*
** The rows of sample s (as its view shows them) as one JSON array, parsed once into *doc
** (rowsj holds the text, which the tree points into). RESCUE_ENOMEM or RESCUE_EINTERNAL
** (stored rows that do not parse) on err.
*/
static int rows_parse(const rescue_sample *s, rescue_buf *rowsj, rescue_jdoc **doc,
                      const rescue_jnode **arr, rescue_error *err) {
  rescue_jerror je;
  int i;
  rescue_buf_putc(rowsj, '[');
  for (i = 0; i < s->n; i++) {
    if (i)
      rescue_buf_putc(rowsj, ',');
    rescue_buf_putn(rowsj, s->rows[i].content, s->rows[i].content_len);
  }
  rescue_buf_putc(rowsj, ']');
  if (!rescue_buf_ok(rowsj) || !(*doc = rescue_jdoc_new()))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (!(*arr = rescue_jparse(*doc, rowsj->s, rowsj->len, &je)))
    return rescue_seterr(err, RESCUE_EINTERNAL, "sample '%s': stored rows do not parse: %s",
                         s->sample_id, je.msg);
  return 0;
}

/* Row times with more than three decimals (ELAN shows them rounded to the millisecond). */
static long fine_times_of(const layout *L) {
  const rescue_jnode *m;
  long fine = 0;
  int i;
  for (i = 0; i < L->n; i++)
    for (m = L->rows[i].obj->child; m; m = m->next)
      if (m->type == RESCUE_JNUMBER &&
          (strcmp(m->key, "start_time") == 0 || strcmp(m->key, "end_time") == 0) &&
          fabs(m->num * 1000.0 - floor(m->num * 1000.0 + 0.5)) > 1e-6)
        fine++;
  return fine;
}

/*
** Turn tier k (one alignable annotation per row, numbered a<row>) and its bookkeeping
** tier (a row record per row, numbered from *next_id on). tmp is scratch space.
*/
static void write_turn_tier(const layout *L, int k, const char *annotator, rescue_buf *body,
                            rescue_buf *tmp, long *next_id) {
  const etier *t = &L->tiers[k];
  int i;
  tier_open(body, "turn", t, EAF_LT_TURN, 0, annotator);
  for (i = 0; i < L->n; i++) {
    const rescue_jnode *d = L->rows[i].dialogue;
    if (L->rows[i].tier != k)
      continue;
    rescue_buf_printf(body,
                      "        <ANNOTATION>\n"
                      "            <ALIGNABLE_ANNOTATION ANNOTATION_ID=\"a%d\" "
                      "TIME_SLOT_REF1=\"ts%d\" TIME_SLOT_REF2=\"ts%d\"",
                      i + 1, L->rows[i].ts0, L->rows[i].ts1);
    if (d)
      ann_value(body, d->s, d->len, 0);
    else
      ann_value(body, "", 0, 0);
  }
  rescue_buf_puts(body, "    </TIER>\n");
  tier_open(body, "rescue", t, EAF_LT_ROW, 1, annotator);
  for (i = 0; i < L->n; i++) {
    if (L->rows[i].tier != k)
      continue;
    ann_open_ref(body, (*next_id)++, i + 1, 0);
    rescue_buf_reset(tmp);
    write_record(L, i, tmp);
    ann_value(body, tmp->s ? tmp->s : "", tmp->len, 1);
  }
  rescue_buf_puts(body, "    </TIER>\n");
}

/* One value of a field tier: member m of row i, carried as c. */
typedef struct field_ent {
  int row, next; /* next: the field's next value, or -1 */
  const rescue_jnode *m;
  eaf_code c;
} field_ent;

/*
** The values of turn tier k's rows grouped by field in one pass: ents[head[f]] is the
** first value of field f (t->keys[f]), chained by next. RESCUE_ENOMEM or 0; the caller
** frees *ents.
*/
static int group_fields(const layout *L, int k, const eaf_smap *pos, int *head, field_ent **ents) {
  const etier *t = &L->tiers[k];
  int *tail = rescue_malloc((size_t)(t->n_keys + 1) * sizeof *tail);
  int i, f, n_ent = 0, cap_ent = 0;
  if (!tail)
    return RESCUE_ENOMEM;
  for (f = 0; f < t->n_keys; f++)
    head[f] = tail[f] = -1;
  for (i = 0; i < L->n; i++) {
    const rescue_jnode *m;
    int j = 0;
    if (L->rows[i].tier != k)
      continue;
    for (m = L->rows[i].obj->child; m; m = m->next, j++) {
      eaf_code c = L->rows[i].codes[j];
      if (c != EAF_STR && c != EAF_JSON && c != EAF_LIST_STR && c != EAF_LIST_JSON)
        continue;
      f = eaf_smap_get(pos, m->key);
      if (RESCUE_ALLOC_GROW(*ents, n_ent + 1, cap_ent)) {
        rescue_free(tail);
        return RESCUE_ENOMEM;
      }
      (*ents)[n_ent] = (field_ent){i, -1, m, c};
      if (tail[f] < 0)
        head[f] = n_ent;
      else
        (*ents)[tail[f]].next = n_ent;
      tail[f] = n_ent++;
    }
  }
  rescue_free(tail);
  return 0;
}

/*
** The field tiers of turn tier k, one per key in t->keys: a string or JSON value as one
** annotation (with its CVE_REF when the field has a vocabulary), a list as one
** annotation per element. Annotation ids continue from *next_id. RESCUE_ENOMEM or 0.
*/
static int write_field_tiers(const layout *L, int k, const char *annotator, rescue_buf *body,
                             rescue_buf *tmp, long *next_id) {
  const etier *t = &L->tiers[k];
  eaf_smap pos = {0};
  int *head = rescue_malloc((size_t)(t->n_keys + 1) * sizeof *head);
  field_ent *ents = NULL;
  int f, x, rc = head ? 0 : RESCUE_ENOMEM;
  for (f = 0; !rc && f < t->n_keys; f++)
    if (eaf_smap_put(&pos, t->keys[f], f) < 0)
      rc = RESCUE_ENOMEM;
  if (!rc)
    rc = group_fields(L, k, &pos, head, &ents);
  for (f = 0; !rc && f < t->n_keys; f++) {
    const rescue_labelset *cv = field_cv(L, t->keys[f]);
    tier_open(body, t->keys[f], t, t->keys[f], 1, annotator);
    for (x = head[f]; x >= 0; x = ents[x].next) {
      const rescue_jnode *m = ents[x].m;
      eaf_code c = ents[x].c;
      int i = ents[x].row;
      if (c == EAF_STR || c == EAF_JSON) {
        int cve = cv && c == EAF_STR ? rescue_labelset_find(cv, m->s) : -1;
        ann_open_ref(body, (*next_id)++, i + 1, 0);
        if (cve >= 0)
          rescue_buf_printf(body, " CVE_REF=\"cve-%s-%d\"", cv->name, cve + 1);
        scalar_text(m, c, tmp);
        ann_value(body, tmp->s ? tmp->s : "", tmp->len, 1);
      } else {
        const rescue_jnode *it;
        long prev = 0;
        for (it = m->child; it; it = it->next) {
          ann_open_ref(body, *next_id, i + 1, prev);
          prev = (*next_id)++;
          scalar_text(it, c == EAF_LIST_STR ? EAF_STR : EAF_JSON, tmp);
          ann_value(body, tmp->s ? tmp->s : "", tmp->len, 1);
        }
      }
    }
    rescue_buf_puts(body, "    </TIER>\n");
  }
  eaf_smap_free(&pos);
  rescue_free(head);
  rescue_free(ents);
  return rc;
}

/*
** Linguistic types (turn, row record, one per field key in use, in scheme order), the
** language and ELAN's constraint stereotypes. RESCUE_ENOMEM or 0.
*/
static int write_types(const layout *L, rescue_buf *body) {
  etier all;
  int i, k, rc = 0;
  rescue_buf_puts(body, "    <LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"" EAF_LT_TURN
                        "\" TIME_ALIGNABLE=\"true\" GRAPHIC_REFERENCES=\"false\"/>\n"
                        "    <LINGUISTIC_TYPE LINGUISTIC_TYPE_ID=\"" EAF_LT_ROW
                        "\" TIME_ALIGNABLE=\"false\" CONSTRAINTS=\"Symbolic_Association\" "
                        "GRAPHIC_REFERENCES=\"false\"/>\n");
  memset(&all, 0, sizeof all);
  for (k = 0; !rc && k < L->n_tiers; k++)
    for (i = 0; !rc && i < L->tiers[k].n_keys; i++)
      if (tier_add_key(&all, L->tiers[k].keys[i]))
        rc = RESCUE_ENOMEM;
  if (!rc && order_keys(L->sc, &all))
    rc = RESCUE_ENOMEM;
  for (i = 0; !rc && i < all.n_keys; i++) {
    const rescue_labelset *cv = field_cv(L, all.keys[i]);
    rescue_buf_puts(body, "    <LINGUISTIC_TYPE");
    attr(body, "LINGUISTIC_TYPE_ID", all.keys[i]);
    rescue_buf_printf(body,
                      " TIME_ALIGNABLE=\"false\" CONSTRAINTS=\"%s\" "
                      "GRAPHIC_REFERENCES=\"false\"",
                      is_list_field(rescue_scheme_field(L->sc, all.keys[i]))
                          ? "Symbolic_Subdivision"
                          : "Symbolic_Association");
    if (cv)
      attr(body, "CONTROLLED_VOCABULARY_REF", cv->name);
    rescue_buf_puts(body, "/>\n");
  }
  rescue_free(all.keys);
  eaf_smap_free(&all.key_ix);
  rescue_buf_puts(
      body, "    <LANGUAGE LANG_ID=\"eng\" LANG_DEF=\"http://cdb.iso.org/lg/CDB-00138502-001\" "
            "LANG_LABEL=\"English (eng)\"/>\n"
            "    <CONSTRAINT DESCRIPTION=\"Time subdivision of parent annotation's time "
            "interval, no time gaps allowed within this interval\" "
            "STEREOTYPE=\"Time_Subdivision\"/>\n"
            "    <CONSTRAINT DESCRIPTION=\"Symbolic subdivision of a parent annotation. "
            "Annotations refering to the same parent are ordered\" "
            "STEREOTYPE=\"Symbolic_Subdivision\"/>\n"
            "    <CONSTRAINT DESCRIPTION=\"1-1 association with a parent annotation\" "
            "STEREOTYPE=\"Symbolic_Association\"/>\n"
            "    <CONSTRAINT DESCRIPTION=\"Time alignable annotations within the parent "
            "annotation's time interval, gaps are allowed\" STEREOTYPE=\"Included_In\"/>\n");
  return rc;
}

/* Controlled vocabularies: the scheme's closed label sets for the sample's scenario. */
static void write_vocabularies(const layout *L, rescue_buf *body) {
  const rescue_scheme *sc = L->sc;
  int j, k;
  for (k = 0; k < sc->n_labelsets; k++) {
    const rescue_labelset *ls = rescue_scheme_labelset(sc, sc->labelsets[k].name, L->scenario);
    int seen = 0;
    if (ls != &sc->labelsets[k])
      continue;
    for (j = 0; j < k; j++)
      if (strcmp(sc->labelsets[j].name, ls->name) == 0 &&
          rescue_scheme_labelset(sc, ls->name, L->scenario) == &sc->labelsets[j])
        seen = 1;
    if (seen)
      continue;
    rescue_buf_puts(body, "    <CONTROLLED_VOCABULARY");
    attr(body, "CV_ID", ls->name);
    rescue_buf_printf(body,
                      ">\n        <DESCRIPTION LANG_REF=\"eng\">RESCUE %s labels (%s)"
                      "</DESCRIPTION>\n",
                      ls->name, ls->scenario ? ls->scenario : L->scenario);
    for (j = 0; j < ls->n; j++) {
      rescue_buf_printf(body,
                        "        <CV_ENTRY_ML CVE_ID=\"cve-%s-%d\">\n"
                        "            <CVE_VALUE",
                        ls->name, j + 1);
      if (ls->descriptions && ls->descriptions[j] &&
          eaf_xml_ok(ls->descriptions[j], strlen(ls->descriptions[j])))
        attr(body, "DESCRIPTION", ls->descriptions[j]);
      rescue_buf_puts(body, " LANG_REF=\"eng\">");
      eaf_xml_put(body, ls->labels[j], strlen(ls->labels[j]), 0);
      rescue_buf_puts(body, "</CVE_VALUE>\n        </CV_ENTRY_ML>\n");
    }
    rescue_buf_puts(body, "    </CONTROLLED_VOCABULARY>\n");
  }
}

/* The MEDIA_DESCRIPTOR of the sample's video (o->media->path set). */
static void write_media(const rescue_eaf_media *media, rescue_buf *out, rescue_buf *tmp) {
  rescue_buf_reset(tmp);
  file_url(tmp, media->path);
  rescue_buf_puts(out, "        <MEDIA_DESCRIPTOR");
  if (tmp->s)
    attr(out, "MEDIA_URL", tmp->s);
  attr(out, "MIME_TYPE", mime_of(media->path));
  if (media->relative) {
    rescue_buf_reset(tmp);
    url_put(tmp, media->relative);
    if (tmp->s)
      attr(out, "RELATIVE_MEDIA_URL", tmp->s);
  }
  if (media->has_span)
    rescue_buf_printf(out, " TIME_ORIGIN=\"%lld\"", to_ms(media->start));
  rescue_buf_puts(out, "/>\n");
}

/*
** The document's start: the root element and the header, with the media, the last
** annotation id (last_id) and the properties rescue reads back (format, sample id,
** annotator, the sample-level JSON exactly as stored).
*/
static void write_header(const rescue_sample *s, const rescue_eaf_write_opts *o, long last_id,
                         rescue_buf *out, rescue_buf *tmp) {
  char urn[37];
  rescue_jw w;
  rescue_buf_puts(out, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<ANNOTATION_DOCUMENT");
  attr(out, "AUTHOR", o->annotator ? o->annotator : "");
  attr(out, "DATE", o->date);
  rescue_buf_puts(out, " FORMAT=\"3.0\" VERSION=\"3.0\" "
                       "xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" "
                       "xsi:noNamespaceSchemaLocation=\"http://www.mpi.nl/tools/elan/"
                       "EAFv3.0.xsd\">\n"
                       "    <HEADER MEDIA_FILE=\"\" TIME_UNITS=\"milliseconds\">\n");
  if (o->media && o->media->path)
    write_media(o->media, out, tmp);
  urn_of(s->sample_id, urn);
  rescue_buf_printf(out,
                    "        <PROPERTY NAME=\"URN\">urn:nl-mpi-tools-elan-eaf:%s</PROPERTY>\n"
                    "        <PROPERTY NAME=\"lastUsedAnnotationId\">%ld</PROPERTY>\n"
                    "        <PROPERTY NAME=\"" EAF_PROP_FORMAT "\">1</PROPERTY>\n"
                    "        <PROPERTY NAME=\"" EAF_PROP_SAMPLE_ID "\">",
                    urn, last_id);
  eaf_xml_put(out, s->sample_id, strlen(s->sample_id), 0);
  rescue_buf_puts(out, "</PROPERTY>\n");
  if (o->annotator) {
    rescue_buf_puts(out, "        <PROPERTY NAME=\"" EAF_PROP_ANNOTATOR "\">");
    eaf_xml_put(out, o->annotator, strlen(o->annotator), 0);
    rescue_buf_puts(out, "</PROPERTY>\n");
  }
  rescue_buf_reset(tmp);
  rescue_jw_init(&w, tmp);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "head");
  rescue_jw_str(&w, s->head ? s->head : "");
  rescue_jw_key(&w, "tail");
  rescue_jw_str(&w, s->tail ? s->tail : "");
  rescue_jw_key(&w, "has_rows");
  rescue_jw_bool(&w, s->has_rows);
  rescue_jw_end(&w);
  rescue_buf_puts(out, "        <PROPERTY NAME=\"" EAF_PROP_SAMPLE "\">");
  eaf_xml_put(out, tmp->s ? tmp->s : "", tmp->len, 0);
  rescue_buf_puts(out, "</PROPERTY>\n    </HEADER>\n");
}

/*
** The document in two passes: the body (tiers, types, vocabularies, links) into a buffer
** of its own, since the header names the last annotation id; then header, time order and
** body into out.
*/
int rescue_eaf_write_sample(const rescue_scheme *sc, const rescue_sample *s,
                            const rescue_eaf_write_opts *o, rescue_buf *out, long *fine_times,
                            rescue_error *err) {
  rescue_buf rowsj = RESCUE_BUF_INIT, body = RESCUE_BUF_INIT, tmp = RESCUE_BUF_INIT;
  rescue_jdoc *doc = NULL;
  const rescue_jnode *arr;
  layout L;
  long next_id, next_link = 1;
  int i, k, rc;

  memset(&L, 0, sizeof L);
  L.sc = sc;
  L.scenario = rescue_sample_scenario(sc, s);
  if ((rc = rows_parse(s, &rowsj, &doc, &arr, err)))
    goto end;
  if ((rc = layout_build(&L, arr))) {
    rc = rc == RESCUE_ENOMEM
             ? rescue_seterr(err, rc, NULL)
             : rescue_seterr(err, rc, "sample '%s': a row is not an object", s->sample_id);
    goto end;
  }

  /* tiers: a turn tier, its bookkeeping tier and its field tiers, per turn tier */
  next_id = L.n + 1;
  for (k = 0; !rc && k < L.n_tiers; k++) {
    write_turn_tier(&L, k, o->annotator, &body, &tmp, &next_id);
    rc = write_field_tiers(&L, k, o->annotator, &body, &tmp, &next_id);
  }
  if (!rc)
    rc = write_types(&L, &body);
  if (rc) {
    rc = rescue_seterr(err, rc, NULL);
    goto end;
  }
  write_vocabularies(&L, &body);
  write_links(&L, &body, &next_link);

  write_header(s, o, next_id - 1, out, &tmp);
  rescue_buf_puts(out, "    <TIME_ORDER>\n");
  for (i = 0; i < 2 * L.n; i++)
    rescue_buf_printf(out, "        <TIME_SLOT TIME_SLOT_ID=\"ts%d\" TIME_VALUE=\"%lld\"/>\n",
                      i + 1, L.slots[i].ms);
  rescue_buf_puts(out, "    </TIME_ORDER>\n");
  rescue_buf_putn(out, body.s ? body.s : "", body.len);
  rescue_buf_puts(out, "</ANNOTATION_DOCUMENT>\n");
  if (!rescue_buf_ok(out) || !rescue_buf_ok(&body) || !rescue_buf_ok(&tmp))
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
  if (fine_times)
    *fine_times = fine_times_of(&L);
end:
  layout_free(&L);
  rescue_jdoc_free(&doc);
  rescue_buf_clear(&rowsj);
  rescue_buf_clear(&body);
  rescue_buf_clear(&tmp);
  return rc;
}

/* ---- the export command ---- */

typedef struct media_map {
  char **ids, **paths;
  int *has_span;
  double *start;
  int n, cap_ids, cap_paths, cap_span, cap_start; /* each array grows on its own */
} media_map;

static int media_collect(void *arg, const rescue_media_entry *e) {
  media_map *m = arg;
  if (!e->sample_id)
    return 0;
  if (RESCUE_ALLOC_GROW(m->ids, m->n + 1, m->cap_ids) ||
      RESCUE_ALLOC_GROW(m->paths, m->n + 1, m->cap_paths) ||
      RESCUE_ALLOC_GROW(m->has_span, m->n + 1, m->cap_span) ||
      RESCUE_ALLOC_GROW(m->start, m->n + 1, m->cap_start))
    return 1;
  m->ids[m->n] = rescue_strdup(e->sample_id);
  m->paths[m->n] = rescue_strdup(e->resolved ? e->resolved : e->path);
  m->has_span[m->n] = e->has_span;
  m->start[m->n] = e->start;
  if (!m->ids[m->n] || !m->paths[m->n]) {
    rescue_free(m->ids[m->n]);
    rescue_free(m->paths[m->n]);
    return 1;
  }
  m->n++;
  return 0;
}

static void media_free(media_map *m) {
  int i;
  for (i = 0; i < m->n; i++) {
    rescue_free(m->ids[i]);
    rescue_free(m->paths[i]);
  }
  rescue_free(m->ids);
  rescue_free(m->paths);
  rescue_free(m->has_span);
  rescue_free(m->start);
}

/* An absolute, normalised form of path (the file or, failing that, its folder must exist). */
static char *absolute(const char *path) {
  char *r = realpath(path, NULL), *slash, *dir, *out;
  rescue_buf b = RESCUE_BUF_INIT;
  if (r) {
    out = rescue_strdup(r);
    free(r);
    return out;
  }
  /* not there yet (the export's own folder): resolve its parent */
  if (!(dir = rescue_strdup(path)))
    return NULL;
  slash = strrchr(dir, '/');
  if (slash)
    *slash = 0;
  r = realpath(slash ? (*dir ? dir : "/") : ".", NULL);
  if (r) {
    rescue_buf_puts(&b, strcmp(r, "/") == 0 ? "" : r);
    rescue_buf_putc(&b, '/');
    rescue_buf_puts(&b, slash ? slash + 1 : path);
    free(r);
  }
  rescue_free(dir);
  return r && rescue_buf_ok(&b) ? rescue_buf_detach(&b) : (rescue_buf_clear(&b), NULL);
}

/*
** The relative path from folder `from` to file `to` (both absolute and normalised),
** "./" first when it stays below: "./a.mp4", "../../media/a.mp4".
*/
static void relative_path(rescue_buf *b, const char *from, const char *to) {
  size_t common = 0, i;
  const char *p;
  for (i = 0; from[i] && from[i] == to[i]; i++)
    if (from[i] == '/')
      common = i;
  if (!from[i] && to[i] == '/')
    common = i;
  p = from + common;
  if (!*p || !p[1])
    rescue_buf_puts(b, ".");
  for (; *p; p++)
    if (*p == '/' && p[1])
      rescue_buf_puts(b, rescue_buf_ok(b) && b->len ? "/.." : "..");
  rescue_buf_puts(b, to + common);
}

/*
** Append sample s's document to doc, with a MEDIA_DESCRIPTOR when the sample has a video
** in media: its absolute path, and its path relative to the folder the .eaf lands in
** once the export is in place (abs_out: the output folder's absolute path, or NULL).
*/
static int write_with_media(const rescue_scheme *sc, const rescue_sample *s,
                            rescue_eaf_write_opts *wo, const media_map *media, const char *abs_out,
                            rescue_buf *doc, long *fine, rescue_error *err) {
  rescue_buf dir = RESCUE_BUF_INIT, rel = RESCUE_BUF_INIT;
  rescue_eaf_media mi;
  char *abs_media;
  int j, rc;
  for (j = 0; j < media->n; j++)
    if (strcmp(media->ids[j], s->sample_id) == 0)
      break;
  if (j == media->n)
    return rescue_eaf_write_sample(sc, s, wo, doc, fine, err);
  abs_media = absolute(media->paths[j]);
  mi.path = abs_media ? abs_media : media->paths[j];
  mi.has_span = media->has_span[j];
  mi.start = media->start[j];
  mi.relative = NULL;
  if (abs_media && abs_out) {
    rescue_buf_printf(&dir, "%s/%s", abs_out, s->sample_id);
    if (rescue_buf_ok(&dir)) {
      *strrchr(dir.s, '/') = 0;
      relative_path(&rel, dir.s, abs_media);
      if (rescue_buf_ok(&rel))
        mi.relative = rel.s;
    }
  }
  wo->media = &mi;
  rc = rescue_eaf_write_sample(sc, s, wo, doc, fine, err);
  wo->media = NULL;
  rescue_free(abs_media);
  rescue_buf_clear(&dir);
  rescue_buf_clear(&rel);
  return rc;
}

/* What the steps of rescue_export_eaf's export loop share. */
typedef struct eaf_ctx {
  rescue_store *st;
  const char *out_dir;
  const rescue_eaf_export_opts *o;
  rescue_eaf_export_result *res;
  rescue_error *err;
  rescue_output *dest;
  media_map media;
  char *abs_out;
  rescue_buf doc, path;
  char date[40];
} eaf_ctx;

/* The export loop's begin: open the output folder (staged, renamed at the end). */
static int eaf_begin(void *arg) {
  eaf_ctx *c = arg;
  return rescue_output_begin(c->out_dir, 1, c->o->force, &c->dest, c->err);
}

/* The export loop's step: write sample s to <out>/<sample_id>.eaf. 0 or an error code. */
static int eaf_each(void *arg, const rescue_sample *s) {
  eaf_ctx *c = arg;
  rescue_eaf_write_opts wo = {.date = c->date, .annotator = c->o->annotator};
  long fine = 0;
  int rc;
  rescue_buf_reset(&c->doc);
  if ((rc = write_with_media(rescue_store_scheme(c->st), s, &wo, &c->media, c->abs_out, &c->doc,
                             &fine, c->err)))
    return rc;
  rescue_buf_reset(&c->path);
  rescue_buf_printf(&c->path, "%s/%s.eaf", rescue_output_path(c->dest), s->sample_id);
  if (!rescue_buf_ok(&c->path))
    return rescue_seterr(c->err, RESCUE_ENOMEM, NULL);
  if ((rc = rescue_output_put_file(c->path.s, c->doc.s, c->doc.len, c->err)))
    return rc;
  c->res->samples++;
  c->res->rows += s->n;
  c->res->fine_times += fine;
  return 0;
}

int rescue_export_eaf(rescue_store *st, const char *out_dir, const rescue_eaf_export_opts *o,
                      rescue_eaf_export_result *res) {
  rescue_eaf_export_result dummy;
  eaf_ctx c = {.st = st,
               .out_dir = out_dir,
               .o = o,
               .err = rescue_store_err(st),
               .doc = RESCUE_BUF_INIT,
               .path = RESCUE_BUF_INIT};
  rescue_export_loop loop = {.view = &o->view,
                             .samples = o->samples,
                             .n_samples = o->n_samples,
                             .include_discarded = o->include_discarded,
                             .progress_every = 16,
                             .progress = o->progress,
                             .progress_arg = o->progress_arg,
                             .begin = eaf_begin,
                             .each = eaf_each,
                             .arg = &c};
  rescue_export_tally tally;
  int rc;

  if (!res)
    res = &dummy;
  memset(res, 0, sizeof *res);
  c.res = res;
  if (o->date) {
    snprintf(c.date, sizeof c.date, "%s", o->date);
  } else {
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(c.date, sizeof c.date, "%Y-%m-%dT%H:%M:%S+00:00", &tm);
  }
  if ((rc = rescue_media_list(st, media_collect, &c.media, NULL)))
    goto fail;
  if (c.media.n)
    c.abs_out = absolute(out_dir);
  rc = rescue_export_each(st, &loop, &tally);
  res->discarded = tally.discarded;
  res->incomplete = tally.incomplete;
  if (rc)
    goto fail;
  rc = rescue_output_commit(&c.dest, c.err);
  goto end;
fail:
  rescue_output_abort(&c.dest);
end:
  rescue_buf_clear(&c.doc);
  rescue_buf_clear(&c.path);
  rescue_free(c.abs_out);
  media_free(&c.media);
  return rc;
}
