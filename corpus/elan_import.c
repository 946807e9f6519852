/*
** elan_import.c: ELAN .eaf files (2.7 to 3.0) read into a sample, with a hardened
** libxml2 parse: no network, no DTD, no entities, and a DOCTYPE refuses the file.
*/
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "elan_int.h"
#include "rescue_alloc.h"
#include "rescue_elan.h"

/* ---- the document as tables ---- */

typedef struct eslot {
  const char *id;
  long line;
  int aligned;
  double ms; /* interpolated when not aligned */
} eslot;

typedef struct etype {
  const char *id;
  int alignable;
  const char *stereotype; /* NULL: none */
  const char *cv_id;      /* CONTROLLED_VOCABULARY_REF or NULL */
  int cv;                 /* its index in cvs, -1 when none */
  long line;
} etype;

typedef struct ecv {
  const char *id;
  int external;         /* entries live in an external file (EXT_REF) */
  const char **entries; /* CVE_IDs */
  int n_entries, cap_entries;
} ecv;

typedef struct etier {
  const char *id, *type_id, *participant, *parent_id;
  int type, parent;
  long line;
  int *anns; /* annotations in document order */
  int n_anns, cap_anns;
  int *by_start; /* alignable ones sorted by start (foreign import) */
} etier;

typedef struct eann {
  const char *id;
  const char *value;
  long line;
  int tier;
  int alignable;
  int ts1, ts2; /* slot indexes (alignable) */
  const char *ref_id, *prev_id, *cve_ref;
  int ref;                       /* parent annotation (REF_ANNOTATION) */
  int root;                      /* the row annotation it belongs to; -2 not yet known; -1 none */
  int first_child, next_sibling; /* REF children of this annotation, document order */
  double start, end;             /* ms, resolved */
  int interpolated;
} eann;

typedef struct eaf {
  const char *name;
  rescue_error *err;
  xmlDocPtr doc;
  eslot *slots;
  int n_slots, cap_slots;
  etype *types;
  int n_types, cap_types;
  ecv *cvs;
  int n_cvs, cap_cvs;
  etier *tiers;
  int n_tiers, cap_tiers;
  eann *anns;
  int n_anns, cap_anns;
  eaf_smap slot_ix, type_ix, tier_ix, ann_ix, cv_ix, link_ix;
  xmlChar **owned; /* strings to free with xmlFree */
  int n_owned, cap_owned;
  const char *p_format, *p_sample_id, *p_sample, *p_annotator;
  char *state;        /* resolve()'s walk marks, freed with the rest */
  double ms_per_unit; /* TIME_VALUE units (0: milliseconds) */
  int *next_same;     /* own files: the next child of the same turn and key, -1 at the end */
  int *tail_same;     /* ... and, on a chain's first child, its last one */
} eaf;

/* Room for one more element in arr (n of cap used), or RESCUE_ENOMEM from the function. */
#define GROW(arr, n, cap)                                                                          \
  do {                                                                                             \
    if (RESCUE_ALLOC_GROW(arr, (size_t)(n) + 1, cap))                                              \
      return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);                                           \
  } while (0)

static int bad(eaf *E, xmlNodePtr n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int bad(eaf *E, xmlNodePtr n, const char *fmt, ...) {
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (n)
    return rescue_seterr(E->err, RESCUE_EBADINPUT, "%s:%ld: %s", E->name, xmlGetLineNo(n), msg);
  return rescue_seterr(E->err, RESCUE_EBADINPUT, "%s: %s", E->name, msg);
}

static const char *at(xmlNodePtr n, const char *name) {
  xmlAttrPtr a = xmlHasProp(n, (const xmlChar *)name);
  if (!a || !a->children)
    return a ? "" : NULL;
  if (a->children->type == XML_TEXT_NODE && !a->children->next)
    return (const char *)a->children->content;
  return NULL; /* (entity references: never produced without a DTD) */
}

static int is(xmlNodePtr n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* The text of an element (its single text child, or the joined content). */
static int text_of(eaf *E, xmlNodePtr n, const char **out) {
  xmlChar *c;
  if (!n->children) {
    *out = "";
    return 0;
  }
  if (n->children->type == XML_TEXT_NODE && !n->children->next) {
    *out = (const char *)n->children->content;
    return 0;
  }
  GROW(E->owned, E->n_owned, E->cap_owned);
  if (!(c = xmlNodeGetContent(n)))
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  E->owned[E->n_owned++] = c;
  *out = (const char *)c;
  return 0;
}

/* ---- reading the tables ---- */

static int read_header(eaf *E, xmlNodePtr h) {
  xmlNodePtr p;
  const char *units = at(h, "TIME_UNITS");
  /* time values count frames in these (old, rare) units; rows need milliseconds */
  if (units && strcmp(units, "PAL-frames") == 0)
    E->ms_per_unit = 40.0;
  else if (units && strcmp(units, "NTSC-frames") == 0)
    E->ms_per_unit = 1001.0 / 30.0;
  else if (units && *units && strcmp(units, "milliseconds") != 0)
    return bad(E, h, "TIME_UNITS '%s' is not milliseconds, PAL-frames or NTSC-frames", units);
  for (p = h->children; p; p = p->next) {
    const char *name, *v;
    int rc;
    if (!is(p, "PROPERTY") || !(name = at(p, "NAME")))
      continue;
    if ((rc = text_of(E, p, &v)))
      return rc;
    if (strcmp(name, EAF_PROP_FORMAT) == 0)
      E->p_format = v;
    else if (strcmp(name, EAF_PROP_SAMPLE_ID) == 0)
      E->p_sample_id = v;
    else if (strcmp(name, EAF_PROP_SAMPLE) == 0)
      E->p_sample = v;
    else if (strcmp(name, EAF_PROP_ANNOTATOR) == 0)
      E->p_annotator = v;
  }
  return 0;
}

static int read_slots(eaf *E, xmlNodePtr to) {
  xmlNodePtr s;
  for (s = to->children; s; s = s->next) {
    const char *id, *v;
    eslot *sl;
    int r;
    if (!is(s, "TIME_SLOT"))
      continue;
    if (!(id = at(s, "TIME_SLOT_ID")))
      return bad(E, s, "TIME_SLOT without TIME_SLOT_ID");
    GROW(E->slots, E->n_slots, E->cap_slots);
    sl = &E->slots[E->n_slots];
    sl->id = id;
    sl->line = xmlGetLineNo(s);
    sl->aligned = 0;
    sl->ms = 0;
    if ((v = at(s, "TIME_VALUE")) != NULL) {
      char *end;
      unsigned long long ms;
      errno = 0;
      ms = strtoull(v, &end, 10);
      if (!*v || *end || errno || v[0] == '-' || ms > 4294967295ULL)
        return bad(E, s,
                   "time slot '%s': TIME_VALUE '%s' is not a whole number of "
                   "milliseconds",
                   id, v);
      sl->aligned = 1;
      sl->ms = E->ms_per_unit > 0 ? floor((double)ms * E->ms_per_unit + 0.5) : (double)ms;
    }
    if ((r = eaf_smap_put(&E->slot_ix, id, E->n_slots)) != 0)
      return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                   : bad(E, s, "time slot id '%s' is used twice", id);
    E->n_slots++;
  }
  return 0;
}

static int read_tier(eaf *E, xmlNodePtr t) {
  xmlNodePtr a;
  etier *tr;
  int ti = E->n_tiers, r;
  const char *id = at(t, "TIER_ID"), *lt = at(t, "LINGUISTIC_TYPE_REF");
  if (!id || !lt)
    return bad(E, t, "TIER without %s", id ? "LINGUISTIC_TYPE_REF" : "TIER_ID");
  GROW(E->tiers, E->n_tiers, E->cap_tiers);
  tr = &E->tiers[ti];
  memset(tr, 0, sizeof *tr);
  tr->id = id;
  tr->type_id = lt;
  tr->participant = at(t, "PARTICIPANT");
  tr->parent_id = at(t, "PARENT_REF");
  tr->line = xmlGetLineNo(t);
  tr->parent = -1;
  if ((r = eaf_smap_put(&E->tier_ix, id, ti)) != 0)
    return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                 : bad(E, t, "tier id '%s' is used twice", id);
  E->n_tiers++;
  for (a = t->children; a; a = a->next) {
    xmlNodePtr x, v;
    eann *an;
    int ai;
    if (!is(a, "ANNOTATION"))
      continue;
    for (x = a->children; x && x->type != XML_ELEMENT_NODE; x = x->next)
      ;
    if (!x || (!is(x, "ALIGNABLE_ANNOTATION") && !is(x, "REF_ANNOTATION")))
      return bad(E, a, "ANNOTATION without ALIGNABLE_ANNOTATION or REF_ANNOTATION");
    GROW(E->anns, E->n_anns, E->cap_anns);
    ai = E->n_anns;
    an = &E->anns[ai];
    memset(an, 0, sizeof *an);
    an->tier = ti;
    an->line = xmlGetLineNo(x);
    an->ref = -1;
    an->root = -2;
    an->first_child = an->next_sibling = -1;
    an->value = "";
    if (!(an->id = at(x, "ANNOTATION_ID")))
      return bad(E, x, "annotation without ANNOTATION_ID");
    an->alignable = is(x, "ALIGNABLE_ANNOTATION");
    an->cve_ref = at(x, "CVE_REF");
    if (an->alignable) {
      const char *r1 = at(x, "TIME_SLOT_REF1"), *r2 = at(x, "TIME_SLOT_REF2");
      if (!r1 || !r2)
        return bad(E, x, "annotation '%s' lacks TIME_SLOT_REF%d", an->id, r1 ? 2 : 1);
      an->ts1 = eaf_smap_get(&E->slot_ix, r1);
      an->ts2 = eaf_smap_get(&E->slot_ix, r2);
      if (an->ts1 < 0 || an->ts2 < 0)
        return bad(E, x, "annotation '%s': TIME_SLOT_REF%d '%s' names no time slot", an->id,
                   an->ts1 < 0 ? 1 : 2, an->ts1 < 0 ? r1 : r2);
      if (E->slots[an->ts1].aligned && E->slots[an->ts2].aligned &&
          E->slots[an->ts2].ms < E->slots[an->ts1].ms)
        return bad(E, x,
                   "annotation '%s' ends (%.0f ms, slot '%s') before it starts (%.0f ms, "
                   "slot '%s')",
                   an->id, E->slots[an->ts2].ms, r2, E->slots[an->ts1].ms, r1);
    } else {
      if (!(an->ref_id = at(x, "ANNOTATION_REF")))
        return bad(E, x, "reference annotation '%s' lacks ANNOTATION_REF", an->id);
      an->prev_id = at(x, "PREVIOUS_ANNOTATION");
    }
    for (v = x->children; v && !is(v, "ANNOTATION_VALUE"); v = v->next)
      ;
    if (v && (r = text_of(E, v, &an->value)))
      return r;
    if ((r = eaf_smap_put(&E->ann_ix, an->id, ai)) != 0)
      return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                   : bad(E, x, "annotation id '%s' is used twice", an->id);
    E->n_anns++;
    GROW(tr->anns, tr->n_anns, tr->cap_anns);
    tr = &E->tiers[ti];
    tr->anns[tr->n_anns++] = ai;
  }
  return 0;
}

static int read_type(eaf *E, xmlNodePtr t) {
  const char *id = at(t, "LINGUISTIC_TYPE_ID"), *al = at(t, "TIME_ALIGNABLE");
  int r;
  if (!id)
    return bad(E, t, "LINGUISTIC_TYPE without LINGUISTIC_TYPE_ID");
  GROW(E->types, E->n_types, E->cap_types);
  E->types[E->n_types].id = id;
  E->types[E->n_types].stereotype = at(t, "CONSTRAINTS");
  E->types[E->n_types].cv_id = at(t, "CONTROLLED_VOCABULARY_REF");
  E->types[E->n_types].cv = -1;
  E->types[E->n_types].line = xmlGetLineNo(t);
  E->types[E->n_types].alignable =
      E->types[E->n_types].stereotype
          ? strcmp(E->types[E->n_types].stereotype, "Time_Subdivision") == 0 ||
                strcmp(E->types[E->n_types].stereotype, "Included_In") == 0
          : !al || strcmp(al, "false") != 0;
  if ((r = eaf_smap_put(&E->type_ix, id, E->n_types)) != 0)
    return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                 : bad(E, t, "linguistic type '%s' is defined twice", id);
  E->n_types++;
  return 0;
}

static int read_cv(eaf *E, xmlNodePtr c) {
  const char *id = at(c, "CV_ID");
  xmlNodePtr e;
  ecv *cv;
  int r;
  if (!id)
    return bad(E, c, "CONTROLLED_VOCABULARY without CV_ID");
  GROW(E->cvs, E->n_cvs, E->cap_cvs);
  cv = &E->cvs[E->n_cvs];
  memset(cv, 0, sizeof *cv);
  cv->id = id;
  cv->external = at(c, "EXT_REF") != NULL;
  if ((r = eaf_smap_put(&E->cv_ix, id, E->n_cvs)) != 0)
    return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                 : bad(E, c, "controlled vocabulary '%s' is defined twice", id);
  E->n_cvs++;
  for (e = c->children; e; e = e->next) {
    const char *cve;
    if ((!is(e, "CV_ENTRY_ML") && !is(e, "CV_ENTRY")) || !(cve = at(e, "CVE_ID")))
      continue;
    GROW(cv->entries, cv->n_entries, cv->cap_entries);
    cv->entries[cv->n_entries++] = cve;
  }
  return 0;
}

/* Reference links must point at annotations or other links of the file. */
static int check_links(eaf *E, xmlNodePtr root) {
  xmlNodePtr set, l;
  int pass, r;
  for (pass = 0; pass < 2; pass++)
    for (set = root->children; set; set = set->next) {
      if (!is(set, "REF_LINK_SET"))
        continue;
      for (l = set->children; l; l = l->next) {
        const char *refs[2];
        int k;
        if (!is(l, "CROSS_REF_LINK") && !is(l, "GROUP_REF_LINK"))
          continue;
        if (pass == 0) {
          const char *id = at(l, "REF_LINK_ID");
          if (!id)
            return bad(E, l, "reference link without REF_LINK_ID");
          if ((r = eaf_smap_put(&E->link_ix, id, 0)) != 0)
            return r < 0 ? rescue_seterr(E->err, RESCUE_ENOMEM, NULL)
                         : bad(E, l, "reference link id '%s' is used twice", id);
          continue;
        }
        refs[0] = at(l, is(l, "CROSS_REF_LINK") ? "REF1" : "REFS");
        refs[1] = is(l, "CROSS_REF_LINK") ? at(l, "REF2") : NULL;
        if (!refs[0] || (is(l, "CROSS_REF_LINK") && !refs[1]))
          return bad(E, l, "reference link without its references");
        for (k = 0; k < 2 && refs[k]; k++) {
          const char *p = refs[k];
          while (*p) {
            char one[256];
            size_t n = strcspn(p, " \t\n\r");
            if (n && n < sizeof one) {
              memcpy(one, p, n);
              one[n] = 0;
              if (eaf_smap_get(&E->ann_ix, one) < 0 && eaf_smap_get(&E->link_ix, one) < 0)
                return bad(E, l,
                           "reference link '%s' points at '%s', which is neither an "
                           "annotation nor a link",
                           at(l, "REF_LINK_ID"), one);
            }
            p += n;
            while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
              p++;
          }
        }
      }
    }
  return 0;
}

static int cmp_str(const void *a, const void *b) {
  return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Every slot's time: unaligned ones evenly between the aligned ones around them. */
static void slot_times(eaf *E) {
  int i, prev = -1;
  for (i = 0; i < E->n_slots; i++) {
    int j;
    if (!E->slots[i].aligned)
      continue;
    for (j = prev + 1; j < i; j++)
      E->slots[j].ms = prev < 0 ? E->slots[i].ms
                                : E->slots[prev].ms + (E->slots[i].ms - E->slots[prev].ms) *
                                                          (double)(j - prev) / (double)(i - prev);
    prev = i;
  }
  for (i = prev + 1; i < E->n_slots; i++)
    E->slots[i].ms = prev < 0 ? 0 : E->slots[prev].ms;
}

/* Types' vocabularies and tiers' types and parents by id; vocabularies' entries sorted. */
static int resolve_tiers(eaf *E) {
  int i;
  for (i = 0; i < E->n_cvs; i++)
    if (E->cvs[i].n_entries > 1)
      qsort(E->cvs[i].entries, (size_t)E->cvs[i].n_entries, sizeof *E->cvs[i].entries, cmp_str);
  for (i = 0; i < E->n_types; i++)
    if (E->types[i].cv_id && (E->types[i].cv = eaf_smap_get(&E->cv_ix, E->types[i].cv_id)) < 0)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: linguistic type '%s': CONTROLLED_VOCABULARY_REF '%s' names "
                           "no controlled vocabulary",
                           E->name, E->types[i].line, E->types[i].id, E->types[i].cv_id);
  for (i = 0; i < E->n_tiers; i++) {
    etier *t = &E->tiers[i];
    if ((t->type = eaf_smap_get(&E->type_ix, t->type_id)) < 0)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: tier '%s': LINGUISTIC_TYPE_REF '%s' names no linguistic type",
                           E->name, t->line, t->id, t->type_id);
    if (t->parent_id && (t->parent = eaf_smap_get(&E->tier_ix, t->parent_id)) < 0)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: tier '%s': PARENT_REF '%s' names no tier", E->name, t->line,
                           t->id, t->parent_id);
  }
  return 0;
}

/*
** A cycle of PARENT_REFs would make every later walk loop: refuse it (each tier walked
** once; state: one zeroed byte per tier, left as found).
*/
static int check_tier_loops(eaf *E, char *state) {
  int i;
  for (i = 0; i < E->n_tiers; i++) {
    int p = i, q;
    while (p >= 0 && state[p] == 0) {
      state[p] = 1;
      p = E->tiers[p].parent;
    }
    if (p >= 0 && state[p] == 1)
      return rescue_seterr(E->err, RESCUE_EBADINPUT, "%s:%ld: tier '%s': PARENT_REF loops", E->name,
                           E->tiers[p].line, E->tiers[p].id);
    for (q = i; q >= 0 && state[q] == 1; q = E->tiers[q].parent)
      state[q] = 2;
  }
  memset(state, 0, (size_t)E->n_tiers);
  return 0;
}

/*
** Each annotation's CVE_REF checked against its vocabulary, an aligned one's times from
** its slots, a reference one's parent (and previous) by id; then the children lists.
*/
static int resolve_anns(eaf *E) {
  int i;
  for (i = 0; i < E->n_anns; i++) {
    eann *a = &E->anns[i];
    int cvi = E->types[E->tiers[a->tier].type].cv;
    if (a->cve_ref && cvi >= 0 && !E->cvs[cvi].external && E->cvs[cvi].n_entries) {
      /* CVE_REF -> CVE_ID goes through tier, type and vocabulary: no schema checks it */
      if (!bsearch(&a->cve_ref, E->cvs[cvi].entries, (size_t)E->cvs[cvi].n_entries,
                   sizeof *E->cvs[cvi].entries, cmp_str))
        return rescue_seterr(E->err, RESCUE_EBADINPUT,
                             "%s:%ld: annotation '%s': CVE_REF '%s' is no entry of controlled "
                             "vocabulary '%s'",
                             E->name, a->line, a->id, a->cve_ref, E->cvs[cvi].id);
    }
    if (a->alignable) {
      a->start = E->slots[a->ts1].ms;
      a->end = E->slots[a->ts2].ms;
      a->interpolated = !E->slots[a->ts1].aligned || !E->slots[a->ts2].aligned;
      continue;
    }
    if ((a->ref = eaf_smap_get(&E->ann_ix, a->ref_id)) < 0)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: annotation '%s': ANNOTATION_REF '%s' names no annotation",
                           E->name, a->line, a->id, a->ref_id);
    if (a->prev_id && eaf_smap_get(&E->ann_ix, a->prev_id) < 0)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: annotation '%s': PREVIOUS_ANNOTATION '%s' names no "
                           "annotation",
                           E->name, a->line, a->id, a->prev_id);
  }
  /* children lists (reverse walk keeps document order) */
  for (i = E->n_anns - 1; i >= 0; i--) {
    eann *a = &E->anns[i];
    if (a->ref >= 0) {
      a->next_sibling = E->anns[a->ref].first_child;
      E->anns[a->ref].first_child = i;
    }
  }
  return 0;
}

/*
** Times of reference annotations: through their parents, chains of any depth. state (one
** zeroed byte per annotation): 0 not yet, 1 on the chain being walked, 2 has its time;
** each annotation is walked once, so a long chain costs its length, not its square.
*/
static int ref_times(eaf *E, char *state) {
  int i;
  for (i = 0; i < E->n_anns; i++)
    if (E->anns[i].alignable)
      state[i] = 2;
  for (i = 0; i < E->n_anns; i++) {
    int p = i, q;
    while (state[p] == 0) {
      state[p] = 1;
      p = E->anns[p].ref;
    }
    if (state[p] == 1)
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: annotation '%s': ANNOTATION_REF loops", E->name,
                           E->anns[p].line, E->anns[p].id);
    for (q = i; state[q] == 1; q = E->anns[q].ref) {
      E->anns[q].start = E->anns[p].start;
      E->anns[q].end = E->anns[p].end;
      E->anns[q].interpolated = E->anns[p].interpolated;
      state[q] = 2;
    }
  }
  return 0;
}

/* Resolve references, and give every slot a time (unaligned ones interpolated). */
static int resolve(eaf *E) {
  int rc;
  slot_times(E);
  if ((rc = resolve_tiers(E)))
    return rc;
  /* walk marks, one byte per tier or annotation (freed with E) */
  if (!(E->state = rescue_calloc((size_t)(E->n_tiers + E->n_anns + 1), 1)))
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  if ((rc = check_tier_loops(E, E->state)) || (rc = resolve_anns(E)))
    return rc;
  return ref_times(E, E->state);
}

/* ---- parsing with libxml2, safely ---- */

typedef struct parse_state {
  int doctype;
  long doctype_line;
  char msg[300];
  long line, col;
  int have_err;
} parse_state;

static void on_error(void *ctx, xmlErrorPtr e) {
  xmlParserCtxtPtr c = ctx;
  parse_state *ps = c ? c->_private : NULL;
  size_t n;
  if (!ps || ps->have_err || !e || e->level < XML_ERR_ERROR)
    return;
  ps->have_err = 1;
  ps->line = e->line;
  ps->col = e->int2;
  snprintf(ps->msg, sizeof ps->msg, "%s", e->message ? e->message : "error");
  n = strlen(ps->msg);
  while (n && (ps->msg[n - 1] == '\n' || ps->msg[n - 1] == ' '))
    ps->msg[--n] = 0;
}

/* A DOCTYPE: stop at once, before any declaration of it is read. */
static void on_doctype(void *ctx, const xmlChar *name, const xmlChar *ext, const xmlChar *sys) {
  xmlParserCtxtPtr c = ctx;
  parse_state *ps = c->_private;
  ps->doctype = 1;
  ps->doctype_line = c->input ? c->input->line : 0;
  xmlStopParser(c);
}

static int parse_xml(eaf *E, const char *data, size_t len) {
  xmlParserCtxtPtr c;
  parse_state ps;
  memset(&ps, 0, sizeof ps);
  if (len > RESCUE_EAF_MAX_BYTES)
    return bad(E, NULL, "the file is larger than %zu MiB", RESCUE_EAF_MAX_BYTES >> 20);
  if (len > (size_t)0x7fffffff)
    return bad(E, NULL, "the file is too large");
  if (!(c = xmlNewParserCtxt()))
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  c->_private = &ps;
  c->sax->internalSubset = on_doctype;
  c->sax->externalSubset = NULL;
  c->sax->serror = on_error;
  c->sax->error = NULL;
  c->sax->warning = NULL;
  c->vctxt.error = NULL;
  c->vctxt.warning = NULL;
  /*
  ** Not XML_PARSE_NOENT, DTDLOAD, DTDATTR, DTDVALID, XINCLUDE or HUGE: no entity is
  ** substituted, no DTD or external entity loaded, libxml2's depth and size limits hold;
  ** and on_doctype stops the parse before a DTD's first declaration. (No process-wide
  ** entity loader is swapped: other threads may be using libxml2.)
  */
  E->doc = xmlCtxtReadMemory(c, data, (int)len, E->name, NULL,
                             XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING);
  if (ps.doctype) {
    xmlFreeParserCtxt(c);
    return rescue_seterr(E->err, RESCUE_EBADINPUT,
                         "%s:%ld: refused: the document has a DOCTYPE (EAF files have none; "
                         "DTDs and entities are never read)",
                         E->name, ps.doctype_line);
  }
  if (!E->doc || !c->wellFormed || ps.have_err) {
    int rc;
    if (ps.have_err)
      rc = rescue_seterr(E->err, RESCUE_EBADINPUT, "%s:%ld:%ld: malformed XML: %s", E->name,
                         ps.line, ps.col, ps.msg);
    else
      rc = rescue_seterr(E->err, RESCUE_EBADINPUT, "%s: malformed XML", E->name);
    xmlFreeParserCtxt(c);
    return rc;
  }
  xmlFreeParserCtxt(c);
  return 0;
}

static int read_tables(eaf *E) {
  xmlNodePtr root = xmlDocGetRootElement(E->doc), n;
  int rc;
  if (!root)
    return bad(E, NULL, "no root element");
  if (!is(root, "ANNOTATION_DOCUMENT") || root->ns)
    return bad(E, root, "the root element is <%s>, not <ANNOTATION_DOCUMENT>: not an EAF file",
               (const char *)root->name);
  /* types first: tiers are checked against them in resolve() */
  for (n = root->children; n; n = n->next) {
    if (is(n, "HEADER"))
      rc = read_header(E, n);
    else if (is(n, "TIME_ORDER"))
      rc = read_slots(E, n);
    else if (is(n, "LINGUISTIC_TYPE"))
      rc = read_type(E, n);
    else if (is(n, "CONTROLLED_VOCABULARY"))
      rc = read_cv(E, n);
    else
      rc = 0;
    if (rc)
      return rc;
  }
  for (n = root->children; n; n = n->next)
    if (is(n, "TIER") && (rc = read_tier(E, n)))
      return rc;
  if ((rc = resolve(E)))
    return rc;
  return check_links(E, root);
}

static void eaf_free(eaf *E) {
  int i;
  for (i = 0; i < E->n_tiers; i++) {
    rescue_free(E->tiers[i].anns);
    rescue_free(E->tiers[i].by_start);
  }
  for (i = 0; i < E->n_owned; i++)
    xmlFree(E->owned[i]);
  rescue_free(E->owned);
  rescue_free(E->state);
  rescue_free(E->next_same);
  rescue_free(E->tail_same);
  rescue_free(E->tiers);
  rescue_free(E->anns);
  rescue_free(E->slots);
  rescue_free(E->types);
  for (i = 0; i < E->n_cvs; i++)
    rescue_free(E->cvs[i].entries);
  rescue_free(E->cvs);
  eaf_smap_free(&E->cv_ix);
  eaf_smap_free(&E->link_ix);
  eaf_smap_free(&E->slot_ix);
  eaf_smap_free(&E->type_ix);
  eaf_smap_free(&E->tier_ix);
  eaf_smap_free(&E->ann_ix);
  if (E->doc)
    xmlFreeDoc(E->doc);
}

/* ---- rows of a file rescue wrote ---- */

static void put_ms(rescue_buf *b, double ms) {
  char num[32];
  rescue_format_double(ms / 1000.0, num);
  rescue_buf_puts(b, num);
}

/* Append the JSON text `text` (any JSON value) in canonical form; -1 when not JSON. */
static int put_json_value(rescue_buf *b, rescue_jdoc *doc, rescue_buf *tmp, const char *text) {
  const rescue_jnode *r;
  rescue_jerror je;
  rescue_buf_reset(tmp);
  rescue_buf_putc(tmp, '[');
  rescue_buf_puts(tmp, text);
  rescue_buf_putc(tmp, ']');
  if (!rescue_buf_ok(tmp) || !(r = rescue_jparse(doc, tmp->s, tmp->len, &je)) || r->len != 1)
    return -1;
  rescue_jwrite(b, r->child);
  return 0;
}

typedef struct orow {
  int turn;   /* annotation index */
  int number; /* the record's row number, 0 when none */
  double start;
} orow;

static int cmp_orow_num(const void *pa, const void *pb) {
  const orow *a = pa, *b = pb;
  return a->number - b->number;
}

static int cmp_orow_time(const void *pa, const void *pb) {
  const orow *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->turn - b->turn;
}

/* The type (key) of a child annotation's tier, and whether it subdivides. */
static const char *child_key(const eaf *E, int ai, int *subdiv) {
  const etier *t = &E->tiers[E->anns[ai].tier];
  const etype *ty = &E->types[t->type];
  *subdiv = ty->stereotype && strcmp(ty->stereotype, "Symbolic_Subdivision") == 0;
  return t->type_id;
}

/* Append `"name": ` to a row object being written (", " first unless *first). */
static void put_key(rescue_buf *out, const char *name, int *first) {
  if (!*first)
    rescue_buf_putn(out, ", ", 2);
  *first = 0;
  rescue_jwrite_string(out, name, strlen(name));
  rescue_buf_putn(out, ": ", 2);
}

/* The exact start and end numbers a record keeps (["start_time", "t", "7.76"]), or NULL. */
static void record_times(const rescue_jnode *keys, const char **tok0, const char **tok1) {
  const rescue_jnode *k;
  for (k = keys ? keys->child : NULL; k; k = k->next)
    if (k->type == RESCUE_JARRAY && k->len == 3 && k->child->next->type == RESCUE_JSTRING &&
        strcmp(k->child->next->s, "t") == 0 && k->child->next->next->type == RESCUE_JSTRING) {
      if (strcmp(k->child->s, "start_time") == 0)
        *tok0 = k->child->next->next->s;
      else if (strcmp(k->child->s, "end_time") == 0)
        *tok1 = k->child->next->next->s;
    }
}

/*
** The turn's children by key (bykey: key -> first child), each key's chained in document
** order through next_same (one pass, no rescans). RESCUE_ENOMEM or 0.
*/
static int index_children(eaf *E, const eann *ta, eaf_smap *bykey) {
  int c, subdiv;
  for (c = ta->first_child; c >= 0; c = E->anns[c].next_sibling) {
    const char *key = child_key(E, c, &subdiv);
    int h = eaf_smap_get(bykey, key);
    E->next_same[c] = -1;
    if (h < 0) {
      if (eaf_smap_put(bykey, key, c) < 0)
        return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
      E->tail_same[c] = c;
    } else {
      E->next_same[E->tail_same[h]] = c;
      E->tail_same[h] = c;
    }
  }
  return 0;
}

/*
** A time member (code t) of turn ta: the number the record kept (tok0/tok1) while the
** slot still holds the millisecond export wrote for it, else the slot's time.
*/
static void put_time(const eaf *E, const eann *ta, const char *key, const char *tok0,
                     const char *tok1, rescue_buf *out, rescue_jdoc *jd, rescue_buf *tmp) {
  int is_end = strcmp(key, "end_time") == 0;
  const char *tok = is_end ? tok1 : tok0;
  long long e0 = 0, e1 = 0;
  double ms = is_end ? E->slots[ta->ts2].ms : E->slots[ta->ts1].ms;
  if (tok0 && tok1) {
    /* the milliseconds export wrote for these numbers */
    rescue_jerror je;
    const rescue_jnode *r;
    rescue_buf_reset(tmp);
    rescue_buf_printf(tmp, "{\"start_time\": %s, \"end_time\": %s}", tok0, tok1);
    r = rescue_buf_ok(tmp) ? rescue_jparse(jd, tmp->s, tmp->len, &je) : NULL;
    if (r)
      eaf_row_ms(r, &e0, &e1);
    else
      tok = NULL;
  }
  if (tok && E->slots[is_end ? ta->ts2 : ta->ts1].aligned && (double)(is_end ? e1 : e0) == ms)
    rescue_buf_puts(out, tok);
  else
    put_ms(out, ms);
}

/*
** A member carried on a field tier (codes s, j, ls, lj): the first value of the key
** (s, j) or all of them as a list (ls, lj), strings as they are or JSON text parsed.
*/
static int put_field(const eaf *E, const eaf_smap *bykey, const char *key, const char *code,
                     rescue_buf *out, rescue_jdoc *jd, rescue_buf *tmp) {
  int list = code[0] == 'l', json = code[strlen(code) - 1] == 'j', n = 0, c;
  if (list)
    rescue_buf_putc(out, '[');
  for (c = eaf_smap_get(bykey, key); c >= 0; c = E->next_same[c]) {
    if (!list && n)
      break;
    if (n)
      rescue_buf_putn(out, ", ", 2);
    n++;
    if (!json)
      rescue_jwrite_string(out, E->anns[c].value, strlen(E->anns[c].value));
    else if (put_json_value(out, jd, tmp, E->anns[c].value))
      return rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: annotation '%s' on tier '%s' is not a JSON value "
                           "(this field keeps JSON text)",
                           E->name, E->anns[c].line, E->anns[c].id, E->tiers[E->anns[c].tier].id);
  }
  if (list)
    rescue_buf_putc(out, ']');
  else if (!n)
    rescue_buf_puts(out, json ? "null" : "\"\"");
  return 0;
}

/* Values on field tiers whose key the record does not list (added in ELAN), as strings. */
static void put_unlisted(const eaf *E, const eann *ta, const eaf_smap *bykey,
                         const eaf_smap *listed, rescue_buf *out, int *first) {
  int c, subdiv;
  for (c = ta->first_child; c >= 0; c = E->anns[c].next_sibling) {
    const char *key = child_key(E, c, &subdiv);
    int dd, n = 0;
    if (strcmp(key, EAF_LT_ROW) == 0 || eaf_smap_get(bykey, key) != c ||
        eaf_smap_get(listed, key) >= 0)
      continue; /* the bookkeeping tier, a key seen above, or one the record lists */
    put_key(out, key, first);
    if (!subdiv) {
      rescue_jwrite_string(out, E->anns[c].value, strlen(E->anns[c].value));
      continue;
    }
    rescue_buf_putc(out, '[');
    for (dd = c; dd >= 0; dd = E->next_same[dd]) {
      if (n++)
        rescue_buf_putn(out, ", ", 2);
      rescue_jwrite_string(out, E->anns[dd].value, strlen(E->anns[dd].value));
    }
    rescue_buf_putc(out, ']');
  }
}

/* One row of a file rescue wrote: the record's members, in order, from the tiers. */
static int own_row(eaf *E, int turn, const rescue_jnode *rec, rescue_buf *out, rescue_jdoc *jd,
                   rescue_buf *tmp) {
  /* keys of the record, or for a turn added in ELAN those of a draft row (the values
     from its field tiers, else empty) */
  static const char *const basic[][2] = {{"start_time", "t"},
                                         {"end_time", "t"},
                                         {"primary_speaker", "p"},
                                         {"target", "ls"},
                                         {"dialogue_cleaned", "d"},
                                         {"utterance_type", "s"},
                                         {"background_dialogue", "lj"},
                                         {"tone_of_voice", "s"},
                                         {"body_posture", "lj"},
                                         {"facial_expressions", "lj"},
                                         {"self_directed_behavior", "lj"},
                                         {"interaction_behavior", "lj"},
                                         {"internal_emotion", "lj"},
                                         {"viewpoints_attitudes", "lj"},
                                         {"support_strategy", "lj"}};
  const int n_basic = (int)(sizeof basic / sizeof basic[0]);
  const eann *ta = &E->anns[turn];
  const etier *tt = &E->tiers[ta->tier];
  const rescue_jnode *keys = rec ? rescue_jget(rec, "keys") : NULL, *k;
  const char *tok0 = NULL, *tok1 = NULL;
  eaf_smap bykey = {0}, listed = {0};
  int first = 1, rc, i, nk;
  if (keys && keys->type != RESCUE_JARRAY)
    keys = NULL;
  record_times(keys, &tok0, &tok1);
  if ((rc = index_children(E, ta, &bykey)))
    goto end;
  for (k = keys ? keys->child : NULL; k; k = k->next)
    if (k->type == RESCUE_JARRAY && k->len >= 1 && k->child->type == RESCUE_JSTRING &&
        eaf_smap_put(&listed, k->child->s, 0) < 0)
      goto oom;
  for (i = 0; !keys && i < n_basic; i++)
    if (eaf_smap_put(&listed, basic[i][0], 0) < 0)
      goto oom;
  rescue_buf_putc(out, '{');
  nk = keys ? (int)keys->len : n_basic;
  k = keys ? keys->child : NULL;
  for (i = 0; i < nk && !rc; i++, k = k ? k->next : NULL) {
    const char *key, *code;
    if (k) {
      if (k->type != RESCUE_JARRAY || k->len < 2 || k->child->type != RESCUE_JSTRING ||
          k->child->next->type != RESCUE_JSTRING ||
          (strcmp(k->child->next->s, "v") == 0 && k->len < 3)) {
        rc = rescue_seterr(E->err, RESCUE_EBADINPUT,
                           "%s:%ld: turn '%s': its rescue row record is damaged", E->name, ta->line,
                           ta->id);
        break;
      }
      key = k->child->s;
      code = k->child->next->s;
    } else {
      key = basic[i][0];
      code = basic[i][1];
      if (strcmp(code, "p") == 0 && !tt->participant)
        continue;
    }
    put_key(out, key, &first);
    if (strcmp(code, "t") == 0)
      put_time(E, ta, key, tok0, tok1, out, jd, tmp);
    else if (strcmp(code, "p") == 0 && tt->participant)
      rescue_jwrite_string(out, tt->participant, strlen(tt->participant));
    else if (strcmp(code, "p") == 0)
      rescue_buf_putn(out, "\"\"", 2);
    else if (strcmp(code, "d") == 0)
      rescue_jwrite_string(out, ta->value, strlen(ta->value));
    else if (strcmp(code, "v") == 0)
      rescue_jwrite(out, k->child->next->next);
    else
      rc = put_field(E, &bykey, key, code, out, jd, tmp);
  }
  if (!rc) {
    put_unlisted(E, ta, &bykey, &listed, out, &first);
    rescue_buf_putc(out, '}');
  }
  goto end;
oom:
  rc = rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
end:
  eaf_smap_free(&bykey);
  eaf_smap_free(&listed);
  return rc;
}

static int own_rows(eaf *E, rescue_buf *rows, long *n_rows) {
  rescue_jdoc *jd = rescue_jdoc_new(), *rd = rescue_jdoc_new();
  rescue_buf tmp = RESCUE_BUF_INIT;
  orow *v = NULL;
  int n = 0, i, rc = 0, by_number = 1;
  E->next_same = rescue_malloc((size_t)(E->n_anns ? E->n_anns : 1) * sizeof *E->next_same);
  E->tail_same = rescue_malloc((size_t)(E->n_anns ? E->n_anns : 1) * sizeof *E->tail_same);
  if (!jd || !rd || !E->next_same || !E->tail_same ||
      !(v = rescue_calloc((size_t)(E->n_anns ? E->n_anns : 1), sizeof *v))) {
    rc = rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < E->n_anns; i++) {
    const etier *t = &E->tiers[E->anns[i].tier];
    int c, subdiv;
    if (t->parent >= 0 || strcmp(t->type_id, EAF_LT_TURN) != 0)
      continue;
    if (!E->anns[i].alignable)
      continue;
    v[n].turn = i;
    v[n].number = 0;
    v[n].start = E->anns[i].start;
    for (c = E->anns[i].first_child; c >= 0; c = E->anns[c].next_sibling)
      if (strcmp(child_key(E, c, &subdiv), EAF_LT_ROW) == 0) {
        rescue_jerror je;
        const rescue_jnode *r = rescue_jparse(jd, E->anns[c].value, strlen(E->anns[c].value), &je);
        const rescue_jnode *num = r && r->type == RESCUE_JOBJECT ? rescue_jget(r, "row") : NULL;
        if (num && num->type == RESCUE_JNUMBER && num->is_int && num->num >= 1)
          v[n].number = (int)num->num;
        break;
      }
    if (!v[n].number)
      by_number = 0;
    n++;
  }
  /* the rows' own order when every turn has its record and the numbers are distinct */
  if (by_number && n > 1) {
    qsort(v, (size_t)n, sizeof *v, cmp_orow_num);
    for (i = 1; i < n; i++)
      if (v[i].number == v[i - 1].number)
        by_number = 0;
  }
  if (!by_number && n > 1)
    qsort(v, (size_t)n, sizeof *v, cmp_orow_time);
  rescue_buf_putc(rows, '[');
  for (i = 0; i < n && !rc; i++) {
    const rescue_jnode *rec = NULL;
    int c, subdiv;
    for (c = E->anns[v[i].turn].first_child; c >= 0; c = E->anns[c].next_sibling)
      if (strcmp(child_key(E, c, &subdiv), EAF_LT_ROW) == 0) {
        rescue_jerror je;
        rec = rescue_jparse(rd, E->anns[c].value, strlen(E->anns[c].value), &je);
        if (!rec || rec->type != RESCUE_JOBJECT) {
          rc = rescue_seterr(E->err, RESCUE_EBADINPUT,
                             "%s:%ld: annotation '%s': the rescue row record is not a JSON "
                             "object",
                             E->name, E->anns[c].line, E->anns[c].id);
          break;
        }
        break;
      }
    if (rc)
      break;
    if (i)
      rescue_buf_putn(rows, ", ", 2);
    rc = own_row(E, v[i].turn, rec, rows, jd, &tmp);
  }
  rescue_buf_putc(rows, ']');
  *n_rows = n;
end:
  rescue_jdoc_free(&jd);
  rescue_jdoc_free(&rd);
  rescue_buf_clear(&tmp);
  rescue_free(v);
  return rc;
}

/* ---- rows of any other EAF file ---- */

/* An annotation with its start, to sort without comparator state. */
typedef struct bystart {
  double start;
  int ann;
} bystart;

static int cmp_by_start(const void *pa, const void *pb) {
  const bystart *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  return a->ann - b->ann;
}

/*
** One step up from an annotation towards its row: a reference annotation's parent, or
** for an aligned annotation on a dependent tier, the parent tier's annotation that holds
** its midpoint; -1 at the top or when nothing holds it.
*/
static int step_up(const eaf *E, int ai) {
  const eann *a = &E->anns[ai];
  const etier *t = &E->tiers[a->tier], *p;
  double mid;
  int lo, hi, found = -1;
  if (!a->alignable)
    return a->ref;
  if (t->parent < 0)
    return -1;
  p = &E->tiers[t->parent];
  mid = (a->start + a->end) / 2;
  lo = 0;
  hi = p->n_anns - 1;
  while (lo <= hi) {
    int m = (lo + hi) / 2;
    if (E->anns[p->by_start[m]].start <= mid) {
      found = m;
      lo = m + 1;
    } else {
      hi = m - 1;
    }
  }
  return found >= 0 && E->anns[p->by_start[found]].end >= mid ? p->by_start[found] : -1;
}

/*
** The row annotation an annotation belongs to (-1: none), memoised in root (-2: not
** known, -3: on the path being walked, which also stops a cycle of references and
** containments). Every annotation is walked once.
*/
static int root_of(eaf *E, int ai, const char *is_row_tier) {
  int p = ai, r = -1, q;
  for (;;) {
    eann *a = &E->anns[p];
    int next;
    if (a->root != -2) {
      r = a->root == -3 ? -1 : a->root;
      break;
    }
    a->root = -3;
    if (is_row_tier[a->tier]) {
      r = p;
      break;
    }
    if ((next = step_up(E, p)) < 0)
      break;
    p = next;
  }
  for (q = ai; q >= 0 && E->anns[q].root == -3;) {
    int next = is_row_tier[E->anns[q].tier] ? -1 : step_up(E, q);
    E->anns[q].root = r;
    q = next;
  }
  return r;
}

typedef struct frow {
  int ann;
  int tier_order;
  double start, end;
} frow;

static int cmp_frow(const void *pa, const void *pb) {
  const frow *a = pa, *b = pb;
  if (a->start != b->start)
    return a->start < b->start ? -1 : 1;
  if (a->end != b->end)
    return a->end < b->end ? -1 : 1;
  if (a->tier_order != b->tier_order)
    return a->tier_order - b->tier_order;
  return a->ann - b->ann;
}

/*
** What the rows of a foreign file are built from: the tiers that hold the turns, the
** tiers below them whose values become fields, the turns in time order, and those
** values grouped by turn.
*/
typedef struct foreign {
  char *is_row; /* per tier: 1 when it holds turns */
  int *order;   /* per turn tier: its rank among them (ties in time) */
  int *desc;    /* the tiers below a turn tier, in document order */
  int n_desc;
  frow *v; /* the turns, sorted by time */
  int n;
  int *offs;  /* values of tier desc[d] for turn i: items[offs[d*n+i] .. offs[d*n+i+1]) */
  int *items; /* annotation numbers */
} foreign;

static void foreign_free(foreign *F) {
  rescue_free(F->is_row);
  rescue_free(F->order);
  rescue_free(F->desc);
  rescue_free(F->v);
  rescue_free(F->offs);
  rescue_free(F->items);
}

/*
** The turn tiers: those named in `tiers` (comma-separated; each must exist and be
** time-aligned) or else every top-level time-aligned tier with a PARTICIPANT. None is
** RESCUE_EBADINPUT with the tiers there are, err->arg "tiers".
*/
static int choose_row_tiers(eaf *E, const char *tiers, foreign *F) {
  rescue_buf names = RESCUE_BUF_INIT;
  int i, rc, n_row_tiers = 0;
  if (tiers) {
    const char *p = tiers;
    while (*p) {
      const char *comma = strchr(p, ',');
      size_t l = comma ? (size_t)(comma - p) : strlen(p);
      int found = -1;
      for (i = 0; i < E->n_tiers; i++)
        if (strlen(E->tiers[i].id) == l && memcmp(E->tiers[i].id, p, l) == 0)
          found = i;
      if (found < 0)
        return rescue_seterr(E->err, RESCUE_EBADINPUT,
                             "%s: no tier '%.*s' (named to hold the turns) in the file", E->name,
                             (int)l, p);
      if (!E->types[E->tiers[found].type].alignable)
        return rescue_seterr(E->err, RESCUE_EBADINPUT,
                             "%s: tier '%.*s', named to hold the turns, is not time-aligned (its "
                             "annotations refer to a parent tier)",
                             E->name, (int)l, p);
      if (!F->is_row[found])
        F->order[found] = n_row_tiers++;
      F->is_row[found] = 1;
      p += l;
      if (*p == ',')
        p++;
    }
  } else {
    for (i = 0; i < E->n_tiers; i++)
      if (E->tiers[i].parent < 0 && E->tiers[i].participant &&
          E->types[E->tiers[i].type].alignable) {
        F->is_row[i] = 1;
        F->order[i] = n_row_tiers++;
      }
  }
  if (n_row_tiers)
    return 0;
  for (i = 0; i < E->n_tiers; i++)
    rescue_buf_printf(&names, "%s'%s'", i ? ", " : "", E->tiers[i].id);
  rc = rescue_seterr_arg(E->err, RESCUE_EBADINPUT, "tiers",
                         "%s: no top-level time-aligned tier has a PARTICIPANT attribute, so "
                         "the tiers that hold the turns must be named (tiers here: %s)",
                         E->name, names.s ? names.s : "none");
  rescue_buf_clear(&names);
  return rc;
}

/* Every tier's annotations sorted by start (by_start), for step_up's search. */
static int sort_tiers_by_start(eaf *E) {
  int i, j;
  for (i = 0; i < E->n_tiers; i++) {
    etier *t = &E->tiers[i];
    bystart *tmp = rescue_malloc((size_t)(t->n_anns ? t->n_anns : 1) * sizeof *tmp);
    t->by_start = rescue_malloc((size_t)(t->n_anns ? t->n_anns : 1) * sizeof *t->by_start);
    if (!t->by_start || !tmp) {
      rescue_free(tmp);
      return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
    }
    for (j = 0; j < t->n_anns; j++) {
      tmp[j].ann = t->anns[j];
      tmp[j].start = E->anns[t->anns[j]].start;
    }
    if (t->n_anns > 1)
      qsort(tmp, (size_t)t->n_anns, sizeof *tmp, cmp_by_start);
    for (j = 0; j < t->n_anns; j++)
      t->by_start[j] = tmp[j].ann;
    rescue_free(tmp);
  }
  return 0;
}

/* The descendant tiers of the turn tiers, in document order: their values become fields. */
static int find_field_tiers(eaf *E, foreign *F) {
  /* below: 1 under a turn tier, 2 not, 0 not known yet (each tier walked once) */
  char *below = rescue_calloc((size_t)(E->n_tiers ? E->n_tiers : 1), 1);
  int i;
  F->desc = rescue_calloc((size_t)(E->n_tiers ? E->n_tiers : 1), sizeof *F->desc);
  if (!below || !F->desc) {
    rescue_free(below);
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  }
  for (i = 0; i < E->n_tiers; i++) {
    int p = i, q, under;
    while (p >= 0 && !F->is_row[p] && below[p] == 0)
      p = E->tiers[p].parent;
    under = p >= 0 && (F->is_row[p] || below[p] == 1);
    for (q = i; q >= 0 && !F->is_row[q] && below[q] == 0; q = E->tiers[q].parent)
      below[q] = under ? 1 : 2;
  }
  for (i = 0; i < E->n_tiers; i++)
    if (!F->is_row[i] && below[i] == 1)
      F->desc[F->n_desc++] = i;
  rescue_free(below);
  return 0;
}

/* The turns (alignable annotations of turn tiers) in time order; every root_of known. */
static int collect_turns(eaf *E, foreign *F) {
  int i;
  F->v = rescue_calloc((size_t)(E->n_anns ? E->n_anns : 1), sizeof *F->v);
  if (!F->v)
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  for (i = 0; i < E->n_anns; i++)
    if (F->is_row[E->anns[i].tier] && E->anns[i].alignable) {
      F->v[F->n].ann = i;
      F->v[F->n].tier_order = F->order[E->anns[i].tier];
      F->v[F->n].start = E->anns[i].start;
      F->v[F->n].end = E->anns[i].end;
      F->n++;
    }
  for (i = 0; i < E->n_anns; i++)
    root_of(E, i, F->is_row);
  if (F->n > 1)
    qsort(F->v, (size_t)F->n, sizeof *F->v, cmp_frow);
  return 0;
}

/*
** The values of each descendant tier grouped by turn (a counting sort, document order
** kept): group d*n+i holds tier desc[d]'s annotations of turn i.
*/
static int group_by_turn(eaf *E, foreign *F) {
  int n = F->n, n_desc = F->n_desc, i, j, d, n_items = 0, rc = 0;
  int *rowpos = rescue_malloc((size_t)(E->n_anns ? E->n_anns : 1) * sizeof *rowpos);
  int *fill = NULL;
  F->offs = rescue_calloc((size_t)n_desc * (size_t)n + 2, sizeof *F->offs);
  if (!rowpos || !F->offs) {
    rc = rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  for (i = 0; i < E->n_anns; i++)
    rowpos[i] = -1;
  for (i = 0; i < n; i++)
    rowpos[F->v[i].ann] = i;
  for (d = 0; d < n_desc; d++)
    for (j = 0; j < E->tiers[F->desc[d]].n_anns; j++) {
      int r = E->anns[E->tiers[F->desc[d]].anns[j]].root;
      if (r >= 0 && rowpos[r] >= 0) {
        F->offs[d * n + rowpos[r] + 1]++;
        n_items++;
      }
    }
  for (i = 1; i <= n_desc * n; i++)
    F->offs[i] += F->offs[i - 1];
  F->items = rescue_malloc((size_t)(n_items ? n_items : 1) * sizeof *F->items);
  fill = rescue_malloc((size_t)n_desc * (size_t)n * sizeof *fill + 1);
  if (!F->items || !fill) {
    rc = rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  if (n_desc > 0 && n > 0)
    memcpy(fill, F->offs, (size_t)n_desc * (size_t)n * sizeof *fill);
  for (d = 0; d < n_desc; d++)
    for (j = 0; j < E->tiers[F->desc[d]].n_anns; j++) {
      int ai = E->tiers[F->desc[d]].anns[j], r = E->anns[ai].root;
      if (r >= 0 && rowpos[r] >= 0)
        F->items[fill[d * n + rowpos[r]]++] = ai;
    }
end:
  rescue_free(rowpos);
  rescue_free(fill);
  return rc;
}

/*
** Turn i as a row object: times, speaker (the tier's id when the turn tiers were named,
** else its participant), the dialogue, the scheme's fields empty, then one field per
** descendant tier that has values for it (a string for a lone association, else a list).
*/
static void write_foreign_row(const eaf *E, const foreign *F, int i, int named, rescue_buf *rows,
                              long *interpolated) {
  static const char *const empty_lists[] = {"self_directed_behavior", "interaction_behavior",
                                            "internal_emotion", "viewpoints_attitudes",
                                            "support_strategy"};
  const eann *a = &E->anns[F->v[i].ann];
  const etier *t = &E->tiers[a->tier];
  const char *speaker = named ? t->id : t->participant;
  int d, j, k, n = F->n;
  char num[32];
  rescue_jw w;
  rescue_jw_init(&w, rows);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "start_time");
  rescue_format_double(a->start / 1000.0, num);
  rescue_jw_raw(&w, num, strlen(num));
  rescue_jw_key(&w, "end_time");
  rescue_format_double(a->end / 1000.0, num);
  rescue_jw_raw(&w, num, strlen(num));
  rescue_jw_key(&w, "primary_speaker");
  rescue_jw_str(&w, speaker ? speaker : "");
  rescue_jw_key(&w, "target");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "dialogue_cleaned");
  rescue_jw_str(&w, a->value);
  rescue_jw_key(&w, "utterance_type");
  rescue_jw_str(&w, "");
  rescue_jw_key(&w, "background_dialogue");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "tone_of_voice");
  rescue_jw_str(&w, "");
  rescue_jw_key(&w, "body_posture");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "facial_expressions");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  for (k = 0; k < (int)(sizeof empty_lists / sizeof empty_lists[0]); k++) {
    rescue_jw_key(&w, empty_lists[k]);
    rescue_jw_arr(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_key(&w, "row_index");
  rescue_jw_int(&w, i + 1);
  for (d = 0; d < F->n_desc; d++) {
    const etier *dt = &E->tiers[F->desc[d]];
    const etype *ty = &E->types[dt->type];
    int assoc = ty->stereotype && strcmp(ty->stereotype, "Symbolic_Association") == 0;
    int lo = F->offs[d * n + i], hi = F->offs[d * n + i + 1];
    if (lo == hi)
      continue;
    rescue_jw_key(&w, dt->id);
    if (assoc && hi - lo == 1) {
      rescue_jw_str(&w, E->anns[F->items[lo]].value);
      continue;
    }
    rescue_jw_arr(&w);
    for (j = lo; j < hi; j++)
      rescue_jw_str(&w, E->anns[F->items[j]].value);
    rescue_jw_end(&w);
  }
  if (a->interpolated) {
    rescue_jw_key(&w, "elan_time_interpolated");
    rescue_jw_bool(&w, 1);
    (*interpolated)++;
  }
  rescue_jw_end(&w);
}

/*
** Add one entry to s->left_out (tier t, n annotations, only their times or not, why);
** 0 or RESCUE_ENOMEM.
*/
static int left_out_add(eaf *E, rescue_eaf_sample *s, const etier *t, long n, int times_only,
                        const char *why) {
  rescue_eaf_left_out *v;
  char *tier;
  if (n <= 0)
    return 0;
  v = rescue_realloc(s->left_out, (size_t)(s->n_left_out + 1) * sizeof *v);
  if (v)
    s->left_out = v;
  if (!v || !(tier = rescue_strdup(t->id)))
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  v[s->n_left_out].tier = tier;
  v[s->n_left_out].line = t->line;
  v[s->n_left_out].annotations = n;
  v[s->n_left_out].times_only = times_only;
  v[s->n_left_out].reason = why;
  s->n_left_out++;
  return 0;
}

/*
** Everything of a foreign file that the rows do not keep, per tier in document order: a
** tier neither holding turns nor below one (all its annotations), annotations of a tier
** below a turn tier that fall in no turn, and the times of time-aligned tiers below a
** turn tier (their values become fields, which have no times).
*/
static int report_left_out(eaf *E, const foreign *F, int named, rescue_eaf_sample *s) {
  char *under = rescue_calloc((size_t)(E->n_tiers ? E->n_tiers : 1), 1);
  int i, j, rc = 0;
  if (!under)
    return rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  for (i = 0; i < F->n_desc; i++)
    under[F->desc[i]] = 1;
  for (i = 0; i < E->n_tiers && !rc; i++) {
    const etier *t = &E->tiers[i];
    long outside = 0, timed = 0;
    if (F->is_row[i])
      continue;
    if (!under[i]) {
      rc = left_out_add(E, s, t, t->n_anns, 0,
                        t->parent >= 0 ? "the tier is not below a tier that holds the turns"
                        : named ? "a top-level tier not among the tiers named to hold the turns"
                        : !E->types[t->type].alignable
                            ? "a top-level tier that is not time-aligned"
                            : "a top-level tier without a PARTICIPANT, so not taken as "
                              "holding turns (name it among the tiers that hold them)");
      continue;
    }
    for (j = 0; j < t->n_anns; j++) {
      const eann *a = &E->anns[t->anns[j]];
      if (a->root < 0 || !F->is_row[E->anns[a->root].tier])
        outside++;
      else if (a->alignable)
        timed++;
    }
    rc = left_out_add(E, s, t, outside, 0, "they fall within no turn");
    if (!rc)
      rc = left_out_add(E, s, t, timed, 1,
                        "their values are a field of the turn's row, which keeps no times "
                        "of its own");
  }
  rescue_free(under);
  return rc;
}

/*
** The rows of a file rescue did not write, as a JSON array appended to rows: one per
** annotation of the turn tiers (`tiers`, or those with a participant), in time order.
*/
static int foreign_rows(eaf *E, const char *tiers, rescue_buf *rows, rescue_eaf_sample *s) {
  foreign F;
  int i, rc;
  memset(&F, 0, sizeof F);
  F.is_row = rescue_calloc((size_t)(E->n_tiers ? E->n_tiers : 1), 1);
  F.order = rescue_calloc((size_t)(E->n_tiers ? E->n_tiers : 1), sizeof *F.order);
  if (!F.is_row || !F.order)
    rc = rescue_seterr(E->err, RESCUE_ENOMEM, NULL);
  else if (!(rc = choose_row_tiers(E, tiers, &F)) && !(rc = sort_tiers_by_start(E)) &&
           !(rc = find_field_tiers(E, &F)) && !(rc = collect_turns(E, &F)) &&
           !(rc = group_by_turn(E, &F)))
    rc = report_left_out(E, &F, tiers != NULL, s);
  if (!rc) {
    rescue_buf_putc(rows, '[');
    for (i = 0; i < F.n; i++) {
      if (i)
        rescue_buf_putn(rows, ", ", 2);
      write_foreign_row(E, &F, i, tiers != NULL, rows, &s->interpolated);
    }
    rescue_buf_putc(rows, ']');
    s->rows = F.n;
  }
  foreign_free(&F);
  return rc;
}

/* ---- the sample ---- */

int rescue_eaf_parse(const char *name, const char *data, size_t len, const rescue_eaf_read_opts *o,
                     rescue_eaf_sample *out, rescue_error *err) {
  eaf E;
  rescue_buf rows = RESCUE_BUF_INIT, json = RESCUE_BUF_INIT;
  rescue_jdoc *jd = NULL;
  rescue_eaf_sample s;
  const char *sample_id;
  int rc, own;

  memset(&E, 0, sizeof E);
  memset(&s, 0, sizeof s);
  E.name = name;
  E.err = err;
  if ((rc = parse_xml(&E, data, len)) || (rc = read_tables(&E)))
    goto end;
  own = E.p_format && E.p_sample && !o->tiers;
  sample_id = o->sample ? o->sample : own ? E.p_sample_id : NULL;
  if (!sample_id) {
    rc = rescue_seterr_arg(err, RESCUE_EBADINPUT, "sample",
                           "%s: this EAF file was not written by rescue, so it does not name its "
                           "sample",
                           name);
    goto end;
  }
  if (own && E.p_sample_id && o->sample && strcmp(o->sample, E.p_sample_id) != 0) {
    rc = rescue_seterr(err, RESCUE_EBADINPUT,
                       "%s: this file is sample '%s', not '%s' (it names its own sample)", name,
                       E.p_sample_id, o->sample);
    goto end;
  }
  rc = own ? own_rows(&E, &rows, &s.rows) : foreign_rows(&E, o->tiers, &rows, &s);
  if (rc)
    goto end;
  if (own) {
    const rescue_jnode *r, *head, *tail, *has;
    rescue_jerror je;
    if (!(jd = rescue_jdoc_new())) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
    r = rescue_jparse(jd, E.p_sample, strlen(E.p_sample), &je);
    head = r && r->type == RESCUE_JOBJECT ? rescue_jget(r, "head") : NULL;
    tail = r && r->type == RESCUE_JOBJECT ? rescue_jget(r, "tail") : NULL;
    has = r && r->type == RESCUE_JOBJECT ? rescue_jget(r, "has_rows") : NULL;
    if (!head || head->type != RESCUE_JSTRING || !tail || tail->type != RESCUE_JSTRING) {
      rc = rescue_seterr(err, RESCUE_EBADINPUT, "%s: the %s property is damaged", name,
                         EAF_PROP_SAMPLE);
      goto end;
    }
    if ((has && has->type == RESCUE_JTRUE) || s.rows) {
      if (has && has->type == RESCUE_JTRUE) {
        rescue_buf_puts(&json, head->s);
        rescue_buf_putn(&json, rows.s, rows.len);
        rescue_buf_puts(&json, tail->s);
      } else {
        size_t hl = strlen(head->s);
        rescue_buf_putn(&json, head->s, hl ? hl - 1 : 0);
        rescue_buf_puts(&json, hl > 2 ? ", \"rows\": " : "\"rows\": ");
        rescue_buf_putn(&json, rows.s, rows.len);
        rescue_buf_putc(&json, '}');
      }
    } else {
      rescue_buf_puts(&json, head->s);
    }
    if (E.p_annotator && *E.p_annotator && !(s.annotator = rescue_strdup(E.p_annotator))) {
      rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
      goto end;
    }
  } else if (o->head) {
    rescue_buf_puts(&json, o->head);
    rescue_buf_putn(&json, rows.s, rows.len);
    rescue_buf_puts(&json, o->tail ? o->tail : "}");
  } else {
    rescue_buf_puts(&json, "{\"sample_id\": ");
    rescue_jwrite_string(&json, sample_id, strlen(sample_id));
    rescue_buf_puts(&json, ", \"rows\": ");
    rescue_buf_putn(&json, rows.s, rows.len);
    rescue_buf_putc(&json, '}');
  }
  s.own = own;
  s.sample_id = rescue_strdup(sample_id);
  if (!rescue_buf_ok(&json) || !rescue_buf_ok(&rows) || !s.sample_id) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  s.json_len = json.len;
  s.json = rescue_buf_detach(&json);
  *out = s;
  memset(&s, 0, sizeof s);
end:
  rescue_eaf_sample_clear(&s);
  rescue_buf_clear(&rows);
  rescue_buf_clear(&json);
  rescue_jdoc_free(&jd);
  eaf_free(&E);
  return rc;
}

int rescue_eaf_read(const char *path, const rescue_eaf_read_opts *o, rescue_eaf_sample *out,
                    rescue_error *err) {
  struct stat sb;
  char *data = NULL;
  size_t len = 0;
  int rc;
  if (stat(path, &sb) != 0)
    return rescue_seterr(err, RESCUE_EIO, "cannot read '%s': %s", path, strerror(errno));
  if ((uint64_t)sb.st_size > RESCUE_EAF_MAX_BYTES)
    return rescue_seterr(err, RESCUE_EBADINPUT,
                         "%s: refused: %lld bytes, more than the %zu MiB "
                         "an EAF file may have",
                         path, (long long)sb.st_size, RESCUE_EAF_MAX_BYTES >> 20);
  if ((rc = rescue_read_file(path, &data, &len, err)))
    return rc;
  rc = rescue_eaf_parse(path, data, len, o, out, err);
  rescue_free(data);
  return rc;
}

void rescue_eaf_sample_clear(rescue_eaf_sample *s) {
  int i;
  if (!s)
    return;
  rescue_free(s->sample_id);
  rescue_free(s->annotator);
  rescue_free(s->json);
  for (i = 0; i < s->n_left_out; i++)
    rescue_free(s->left_out[i].tier);
  rescue_free(s->left_out);
  memset(s, 0, sizeof *s);
}
