/*
** lint.c: the guideline rules R01-R21 (annotate/LINT.md) over samples as JSON, driven by the
** scheme, and the store walk that feeds them (views, media durations, subtitle cues).
**
** Each problem is reported once, under the rule that owns it: a wrong JSON type is R01,
** except an intensity (R09) and a viewpoint target (R10), which have their own rules;
** membership of the sample's entity set is R04 for every entity-bearing field.
*/
#include <ctype.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_alloc.h"
#include "rescue_lint.h"
#include "rescue_similar.h"
#include "store_int.h"

static const struct {
  rescue_lint_severity sev;
  const char *text;
} rules[RESCUE_LINT_RULES + 1] = {
    {RESCUE_LINT_ERROR, ""},
    {RESCUE_LINT_ERROR, "every row has all required fields with the right JSON types"},
    {RESCUE_LINT_ERROR, "start_time >= 0, end_time > start_time, both finite"},
    {RESCUE_LINT_ERROR, "the last row ends within the sample's media"},
    {RESCUE_LINT_ERROR, "entity fields use only the sample's entity set"},
    {RESCUE_LINT_ERROR, "target is non-empty and never contains the primary_speaker"},
    {RESCUE_LINT_ERROR,
     "utterance_type is empty on therapist rows, in the closed set on client rows"},
    {RESCUE_LINT_ERROR,
     "background_dialogue: speaker set, target non-empty, speaker not in target"},
    {RESCUE_LINT_ERROR, "interaction_behavior: initiator not in target, target non-empty"},
    {RESCUE_LINT_ERROR, "internal_emotion intensity is a number in its range"},
    {RESCUE_LINT_ERROR, "viewpoints_attitudes: one target entity, different from the source"},
    {RESCUE_LINT_ERROR,
     "support_strategy: therapist rows, provider Therapist, valid targets and type"},
    {RESCUE_LINT_ERROR, "relation labels are empty or in the sample's taxonomy"},
    {RESCUE_LINT_ERROR, "evidence rows point at rows of the same sample"},
    {RESCUE_LINT_WARNING, "every subtitle cue with words is covered by a row"},
    {RESCUE_LINT_WARNING, "dialogue_cleaned is non-empty"},
    {RESCUE_LINT_ERROR, "row_index equals the row's position"},
    {RESCUE_LINT_WARNING, "rows start in time order"},
    {RESCUE_LINT_WARNING, "a row does not overlap the previous row of the same speaker"},
    {RESCUE_LINT_ERROR, "given scenario and participants agree with the derived ones"},
    {RESCUE_LINT_ERROR, "no entity name differs from another only by case or spacing"},
    {RESCUE_LINT_WARNING, "segmentation changed: someone else's resegmentation split, merged or "
                          "added this row (annotator views)"},
};

rescue_lint_severity rescue_lint_rule_severity(int rule) {
  return rule >= 1 && rule <= RESCUE_LINT_RULES ? rules[rule].sev : RESCUE_LINT_ERROR;
}

const char *rescue_lint_rule_text(int rule) {
  return rule >= 1 && rule <= RESCUE_LINT_RULES ? rules[rule].text : "";
}

/* ---- the checker ---- */

typedef struct linter {
  const rescue_scheme *sc;
  rescue_lint_result *res;
  const char *sample_id;
  const char *scenario;    /* the scenario whose label sets apply */
  const char *group_label; /* its group label */
  char **ents;             /* the sample's entity set */
  int n_ents, cap_ents;
  int first;   /* res->n before this sample (for sorting) */
  int partial; /* only some rows are shown: no R14, R19 */
  int oom;
  rescue_buf a, b; /* cleaning scratch */
  char sugg[256];  /* suggestions for the next finding ("" when none) */
  struct {
    char *name; /* a speaker written like the therapist or a group label (R20) */
    int row;    /* the first row with it */
  } * slips;
  int n_slips, cap_slips;
} linter;

/* Record a finding. */
static void add(linter *L, int rule, int row, const char *field, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

static void add(linter *L, int rule, int row, const char *field, const char *fmt, ...) {
  rescue_lint_result *r = L->res;
  rescue_lint_finding *f;
  char reason[512];
  va_list ap;
  if (RESCUE_ALLOC_GROW(r->findings, r->n + 1, r->cap)) {
    L->oom = 1;
    return;
  }
  va_start(ap, fmt);
  vsnprintf(reason, sizeof reason, fmt, ap);
  va_end(ap);
  f = &r->findings[r->n];
  f->rule = rule;
  f->severity = rules[rule].sev;
  f->row = row;
  f->sample_id = rescue_strdup(L->sample_id);
  f->field = rescue_strdup(field);
  f->reason = rescue_strdup(reason);
  f->suggestions = L->sugg[0] ? rescue_strdup(L->sugg) : NULL;
  f->waiver = 0;
  f->cause_rule = f->cause_row = 0;
  if (!f->sample_id || !f->field || !f->reason || (L->sugg[0] && !f->suggestions)) {
    rescue_free(f->sample_id);
    rescue_free(f->field);
    rescue_free(f->reason);
    rescue_free(f->suggestions);
    L->sugg[0] = 0;
    L->oom = 1;
    return;
  }
  L->sugg[0] = 0;
  r->n++;
  if (f->severity == RESCUE_LINT_ERROR)
    r->errors++;
  else
    r->warnings++;
  r->by_rule[rule]++;
}

/* The cleaned string form of a value (corpus/FORMAT.md §6.1), in b. */
static const char *clean(rescue_buf *b, const rescue_jnode *n) {
  rescue_buf_reset(b);
  rescue_jclean(b, n);
  return b->s ? b->s : "";
}

/* A value shortened for a message: at most 40 bytes, cut on a character boundary. */
static const char *shorten(char out[64], const char *s) {
  size_t n = strlen(s);
  if (n <= 40) {
    snprintf(out, 64, "%s", s);
    return out;
  }
  n = 37;
  while (n && ((unsigned char)s[n] & 0xC0) == 0x80)
    n--;
  snprintf(out, 64, "%.*s...", (int)n, s);
  return out;
}

static int in_set(linter *L, const char *s) {
  int i;
  for (i = 0; i < L->n_ents; i++)
    if (strcmp(L->ents[i], s) == 0)
      return 1;
  return 0;
}

static void ents_add(linter *L, const char *s) {
  char *c;
  if (!*s || in_set(L, s))
    return;
  if (RESCUE_ALLOC_GROW(L->ents, L->n_ents + 1, L->cap_ents)) {
    L->oom = 1;
    return;
  }
  if (!(c = rescue_strdup(s))) {
    L->oom = 1;
    return;
  }
  L->ents[L->n_ents++] = c;
}

static void ents_clear(linter *L) {
  int i;
  for (i = 0; i < L->n_ents; i++)
    rescue_free(L->ents[i]);
  L->n_ents = 0;
}

static int is_string_list(const rescue_jnode *n) {
  const rescue_jnode *c;
  if (n->type != RESCUE_JARRAY)
    return 0;
  for (c = n->child; c; c = c->next)
    if (c->type != RESCUE_JSTRING)
      return 0;
  return 1;
}

/* Does value n have the type field f wants? (null is fine for fields that are not required) */
static const char *type_ok(const rescue_field *f, const rescue_jnode *n) {
  const rescue_jnode *c;
  if (n->type == RESCUE_JNULL && (!f->required || f->type == RESCUE_F_LABEL))
    return NULL;
  switch (f->type) {
  case RESCUE_F_NUMBER: return n->type == RESCUE_JNUMBER ? NULL : "a number";
  case RESCUE_F_INT: return n->type == RESCUE_JNUMBER && n->is_int ? NULL : "an integer";
  case RESCUE_F_TEXT:
  case RESCUE_F_ENTITY:
  case RESCUE_F_LABEL: return n->type == RESCUE_JSTRING ? NULL : "a string";
  case RESCUE_F_ENTITIES: return is_string_list(n) ? NULL : "a list of strings";
  case RESCUE_F_INTS:
    if (n->type != RESCUE_JARRAY)
      return "a list of row numbers";
    for (c = n->child; c; c = c->next)
      if (c->type != RESCUE_JNUMBER || !c->is_int)
        return "a list of row numbers";
    return NULL;
  case RESCUE_F_LIST: return n->type == RESCUE_JARRAY ? NULL : "a list of objects";
  }
  return NULL;
}

/* Fields whose type belongs to a rule of their own. */
static int own_rule_type(const rescue_field *list, const rescue_field *child) {
  return (strcmp(list->key, "internal_emotion") == 0 && strcmp(child->key, "intensity") == 0) ||
         (strcmp(list->key, "viewpoints_attitudes") == 0 && strcmp(child->key, "target") == 0);
}

/* R01: presence and types, top level and inside list items. */
static void r01(linter *L, const rescue_jnode *row, int pos) {
  const rescue_scheme *sc = L->sc;
  int i, j;
  if (row->type != RESCUE_JOBJECT) {
    add(L, 1, pos, "row", "the row is %s, not an object", rescue_jtype_name(row));
    return;
  }
  for (i = 0; i < sc->n_fields; i++) {
    const rescue_field *f = &sc->fields[i];
    const rescue_jnode *v = rescue_jget(row, f->key), *it;
    const char *want;
    int k = 0;
    if (!v) {
      if (f->required)
        add(L, 1, pos, f->key, "%s is missing", f->key);
      continue;
    }
    if ((want = type_ok(f, v))) {
      add(L, 1, pos, f->key, "%s is %s, not %s", f->key, rescue_jtype_name(v), want);
      continue;
    }
    if (f->type != RESCUE_F_LIST)
      continue;
    for (it = v->child; it; it = it->next) {
      char path[160];
      k++;
      if (it->type != RESCUE_JOBJECT) {
        snprintf(path, sizeof path, "%s[%d]", f->key, k);
        add(L, 1, pos, path, "item %d of %s is %s, not an object", k, f->key,
            rescue_jtype_name(it));
        continue;
      }
      for (j = 0; j < f->n_children; j++) {
        const rescue_field *c = &f->children[j];
        const rescue_jnode *cv = rescue_jget(it, c->key);
        snprintf(path, sizeof path, "%s[%d].%s", f->key, k, c->key);
        if (!cv) {
          if (c->required && !own_rule_type(f, c))
            add(L, 1, pos, path, "%s is missing", path);
          continue;
        }
        if (!own_rule_type(f, c) && (want = type_ok(c, cv)))
          add(L, 1, pos, path, "%s is %s, not %s", path, rescue_jtype_name(cv), want);
      }
    }
  }
}

/*
** The closest of cands[0..n) to s (up to three, at the smallest edit distance) into
** L->sugg for the next finding; returns the text for its message ("" when none).
*/
static const char *suggest(linter *L, const char *s, const char *const *cands, int n,
                           int max_dist) {
  int idx[3], k, i;
  size_t at = 0;
  L->sugg[0] = 0;
  k = rescue_closest(s, cands, n, max_dist, idx, 3);
  for (i = 0; i < k && at < sizeof L->sugg; i++)
    at += (size_t)snprintf(L->sugg + at, sizeof L->sugg - at, "%s%s", i ? ", " : "", cands[idx[i]]);
  if (at >= sizeof L->sugg)
    L->sugg[0] = 0; /* too long to be of use */
  return L->sugg;
}

/* Are a and b equal once ASCII case and every space or tab are ignored? */
static int fold_eq(const char *a, const char *b) {
  for (;;) {
    while (*a == ' ' || *a == '\t')
      a++;
    while (*b == ' ' || *b == '\t')
      b++;
    if (!*a || !*b)
      return !*a && !*b;
    if ((unsigned char)*a < 0x80 && (unsigned char)*b < 0x80
            ? tolower((unsigned char)*a) != tolower((unsigned char)*b)
            : *a != *b)
      return 0;
    a++;
    b++;
  }
}

/*
** R20: the entity another value of the set folds to, which wins over s: a reserved name
** (Therapist, the group labels), else the one listed first. NULL when none.
*/
static const char *fold_twin(linter *L, const char *s) {
  int i, mine = -1, reserved = rescue_scheme_is_reserved(L->sc, s);
  for (i = 0; i < L->n_ents; i++)
    if (strcmp(L->ents[i], s) == 0)
      mine = i;
  if (reserved)
    return NULL;
  for (i = 0; i < L->n_ents; i++) {
    if (strcmp(L->ents[i], s) == 0 || !fold_eq(L->ents[i], s))
      continue;
    if (rescue_scheme_is_reserved(L->sc, L->ents[i]) || mine < 0 || i < mine)
      return L->ents[i];
  }
  return NULL;
}

/* R04 on one value: a string that is not in the entity set. empty_ok: emptiness is another rule's. */
static void entity_check(linter *L, int pos, const char *path, const rescue_jnode *v,
                         int empty_ok) {
  const char *s, *twin;
  char sh[64], sh2[64];
  if (!v || v->type != RESCUE_JSTRING)
    return;
  s = clean(&L->a, v);
  if (!*s) {
    if (!empty_ok)
      add(L, 4, pos, path, "%s is empty, not an entity of the sample", path);
    return;
  }
  if ((twin = fold_twin(L, s)) != NULL) {
    snprintf(L->sugg, sizeof L->sugg, "%s", twin);
    add(L, 20, pos, path, "'%s' differs from '%s' only by case or spacing", shorten(sh, s),
        shorten(sh2, twin));
  } else if (!in_set(L, s)) {
    const char *close =
        suggest(L, s, (const char *const *)L->ents, L->n_ents, rescue_typo_budget(s));
    add(L, 4, pos, path, "'%s' is not an entity of this sample (participants, %s, %s)%s%s%s",
        shorten(sh, s), L->sc->therapist, L->group_label ? L->group_label : "the group label",
        *close ? "; closest: " : "", close, "");
  }
}

/* R04 over every entity-bearing field the scheme names. */
static void r04(linter *L, const rescue_jnode *row, int pos) {
  int i, j;
  for (i = 0; i < L->sc->n_fields; i++) {
    const rescue_field *f = &L->sc->fields[i];
    const rescue_jnode *v = rescue_jget(row, f->key), *c, *it;
    char path[160];
    int k = 0;
    if (!v)
      continue;
    if (f->type == RESCUE_F_ENTITY)
      entity_check(L, pos, f->key, v, 0);
    else if (f->type == RESCUE_F_ENTITIES && v->type == RESCUE_JARRAY)
      for (c = v->child; c; c = c->next) {
        snprintf(path, sizeof path, "%s[%d]", f->key, ++k);
        entity_check(L, pos, path, c, 0);
      }
    if (f->type != RESCUE_F_LIST || v->type != RESCUE_JARRAY)
      continue;
    for (it = v->child; it; it = it->next) {
      k++;
      if (it->type != RESCUE_JOBJECT)
        continue;
      for (j = 0; j < f->n_children; j++) {
        const rescue_field *cf = &f->children[j];
        const rescue_jnode *cv = rescue_jget(it, cf->key);
        int m = 0;
        if (!cv)
          continue;
        snprintf(path, sizeof path, "%s[%d].%s", f->key, k, cf->key);
        if (cf->type == RESCUE_F_ENTITY) {
          /* an empty background speaker is R07's, an empty viewpoint target R10's */
          int other =
              (strcmp(f->key, "background_dialogue") == 0 && strcmp(cf->key, "speaker") == 0) ||
              (strcmp(f->key, "viewpoints_attitudes") == 0 && strcmp(cf->key, "target") == 0);
          entity_check(L, pos, path, cv, other);
        } else if (cf->type == RESCUE_F_ENTITIES && cv->type == RESCUE_JARRAY) {
          for (c = cv->child; c; c = c->next) {
            char ipath[200];
            snprintf(ipath, sizeof ipath, "%s[%d]", path, ++m);
            entity_check(L, pos, ipath, c, 0);
          }
        }
      }
    }
  }
}

/* Number of non-empty cleaned entries of a string list; sets *has when one equals s. */
static int list_count(linter *L, const rescue_jnode *list, const char *s, int *has) {
  const rescue_jnode *c;
  int n = 0;
  *has = 0;
  if (!list || list->type != RESCUE_JARRAY)
    return -1;
  for (c = list->child; c; c = c->next) {
    const char *e = clean(&L->b, c);
    if (!*e)
      continue;
    n++;
    if (s && *s && strcmp(e, s) == 0)
      *has = 1;
  }
  return n;
}

/* The label set of a LABEL field for the sample's scenario. */
static const rescue_labelset *labels_of(linter *L, const rescue_field *f) {
  return f && f->labels ? rescue_scheme_labelset(L->sc, f->labels, L->scenario) : NULL;
}

/* R06 and R12: label fields (client-only ones are R06, the others R12). */
static void labels(linter *L, const rescue_jnode *row, int pos, int therapist) {
  int i;
  char sh[64];
  for (i = 0; i < L->sc->n_fields; i++) {
    const rescue_field *f = &L->sc->fields[i];
    const rescue_jnode *v = rescue_jget(row, f->key);
    const rescue_labelset *ls;
    const char *s;
    if (f->type != RESCUE_F_LABEL || !v || (v->type != RESCUE_JSTRING && v->type != RESCUE_JNULL))
      continue;
    s = clean(&L->a, v);
    ls = labels_of(L, f);
    if (f->rows && strcmp(f->rows, "client") == 0) {
      if (therapist && *s)
        add(L, 6, pos, f->key, "%s is '%s' on a therapist row (must be empty)", f->key,
            shorten(sh, s));
      else if (!therapist && !*s)
        add(L, 6, pos, f->key, "%s is empty on a client row", f->key);
      else if (!therapist && ls && rescue_labelset_find(ls, s) < 0)
        add(L, 6, pos, f->key, "'%s' is not a %s label; closest: %s", shorten(sh, s), f->key,
            suggest(L, s, (const char *const *)ls->labels, ls->n, 1000));
    } else if (*s && ls && rescue_labelset_find(ls, s) < 0) {
      add(L, 12, pos, f->key, "'%s' is not in the %s %s set; closest: %s", shorten(sh, s),
          L->scenario, f->labels, suggest(L, s, (const char *const *)ls->labels, ls->n, 1000));
    } else if (*s && !ls && f->labels) {
      add(L, 12, pos, f->key, "the scheme has no %s set for scenario '%s'", f->labels, L->scenario);
    }
  }
}

/* R05: the target list of a row is not empty and does not hold the row's speaker. */
static void r05(linter *L, const rescue_jnode *row, int pos, const char *speaker) {
  const rescue_jnode *v;
  char sh[64];
  int n, has;
  v = rescue_jget(row, "target");
  if (v && v->type == RESCUE_JARRAY) {
    n = list_count(L, v, speaker, &has);
    if (n == 0)
      add(L, 5, pos, "target", "target is empty");
    else if (has)
      add(L, 5, pos, "target", "target contains the speaker '%s'", shorten(sh, speaker));
  }
}

/* R07: every background speech has a speaker and a target other than that speaker. */
static void r07(linter *L, const rescue_jnode *row, int pos) {
  const rescue_jnode *v, *it;
  char path[160], sh[64];
  int n, has, k;
  v = rescue_jget(row, "background_dialogue");
  k = 0;
  for (it = v && v->type == RESCUE_JARRAY ? v->child : NULL; it; it = it->next) {
    const char *sp;
    k++;
    if (it->type != RESCUE_JOBJECT)
      continue;
    snprintf(path, sizeof path, "background_dialogue[%d]", k);
    sp = clean(&L->a, rescue_jget(it, "speaker"));
    if (!*sp)
      add(L, 7, pos, path, "background speech without a speaker");
    n = list_count(L, rescue_jget(it, "target"), sp, &has);
    if (n == 0)
      add(L, 7, pos, path, "background speech without a target");
    else if (has)
      add(L, 7, pos, path, "the background speaker '%s' is also its target", shorten(sh, sp));
  }
}

/* R08: every behaviour toward others has a target other than its initiator. */
static void r08(linter *L, const rescue_jnode *row, int pos) {
  const rescue_jnode *v, *it;
  char path[160], sh[64];
  int n, has, k;
  v = rescue_jget(row, "interaction_behavior");
  k = 0;
  for (it = v && v->type == RESCUE_JARRAY ? v->child : NULL; it; it = it->next) {
    const char *in;
    k++;
    if (it->type != RESCUE_JOBJECT)
      continue;
    snprintf(path, sizeof path, "interaction_behavior[%d]", k);
    in = clean(&L->a, rescue_jget(it, "initiator"));
    n = list_count(L, rescue_jget(it, "target"), in, &has);
    if (n == 0)
      add(L, 8, pos, path, "a behaviour toward others without a target");
    else if (has)
      add(L, 8, pos, path, "the initiator '%s' is also the target", shorten(sh, in));
  }
}

/* R09: every emotion has a numeric intensity inside the scheme's range. */
static void r09(linter *L, const rescue_jnode *row, int pos) {
  const rescue_field *f = rescue_scheme_field(L->sc, "internal_emotion");
  const rescue_field *c = f ? rescue_field_child(f, "intensity") : NULL;
  const rescue_jnode *v, *it;
  char path[160];
  int k;
  v = rescue_jget(row, "internal_emotion");
  k = 0;
  for (it = v && v->type == RESCUE_JARRAY ? v->child : NULL; c && it; it = it->next) {
    const rescue_jnode *x;
    k++;
    if (it->type != RESCUE_JOBJECT)
      continue;
    snprintf(path, sizeof path, "internal_emotion[%d].intensity", k);
    x = rescue_jget(it, "intensity");
    if (!x)
      add(L, 9, pos, path, "the emotion has no intensity");
    else if (x->type != RESCUE_JNUMBER)
      add(L, 9, pos, path, "intensity is %s, not a number", rescue_jtype_name(x));
    else if ((c->has_min && x->num < c->min) || (c->has_max && x->num > c->max))
      add(L, 9, pos, path, "intensity %s is outside %g..%g", x->s, c->has_min ? c->min : -INFINITY,
          c->has_max ? c->max : INFINITY);
  }
}

/* R10: every viewpoint has exactly one target entity, not empty and not its source. */
static void r10(linter *L, const rescue_jnode *row, int pos) {
  const rescue_jnode *v, *it;
  char path[160], sh[64];
  int k;
  v = rescue_jget(row, "viewpoints_attitudes");
  k = 0;
  for (it = v && v->type == RESCUE_JARRAY ? v->child : NULL; it; it = it->next) {
    const rescue_jnode *t;
    const char *src, *tg;
    k++;
    if (it->type != RESCUE_JOBJECT)
      continue;
    snprintf(path, sizeof path, "viewpoints_attitudes[%d].target", k);
    t = rescue_jget(it, "target");
    if (!t) {
      add(L, 10, pos, path, "the viewpoint has no target");
      continue;
    }
    if (t->type != RESCUE_JSTRING) {
      add(L, 10, pos, path, "target is %s; a viewpoint has exactly one target entity",
          rescue_jtype_name(t));
      continue;
    }
    tg = clean(&L->b, t);
    src = clean(&L->a, rescue_jget(it, "source"));
    if (!*tg)
      add(L, 10, pos, path, "target is empty");
    else if (strcmp(src, tg) == 0)
      add(L, 10, pos, path, "source and target are both '%s'", shorten(sh, tg));
  }
}

/*
** R11: support strategies on therapist rows only, from the therapist to a target other
** than the therapist (a group label alone), with a strategy type of the scenario's set.
*/
static void r11(linter *L, const rescue_jnode *row, int pos, int therapist) {
  const rescue_jnode *v, *it;
  const char *th = L->sc->therapist;
  char path[160], sh[64];
  int n, k;
  v = rescue_jget(row, "support_strategy");
  k = 0;
  if (v && v->type == RESCUE_JARRAY && v->child && !therapist)
    add(L, 11, pos, "support_strategy", "support_strategy on a client row (therapist rows only)");
  for (it = v && v->type == RESCUE_JARRAY ? v->child : NULL; it; it = it->next) {
    const rescue_field *f = rescue_scheme_field(L->sc, "support_strategy");
    const rescue_labelset *ls = labels_of(L, f ? rescue_field_child(f, "strategy_type") : NULL);
    const rescue_jnode *t, *c;
    const char *p, *st;
    int group = 0, others = 0, has_th = 0;
    k++;
    if (it->type != RESCUE_JOBJECT)
      continue;
    snprintf(path, sizeof path, "support_strategy[%d]", k);
    p = clean(&L->a, rescue_jget(it, "provider"));
    if (strcmp(p, th) != 0)
      add(L, 11, pos, path, "provider is '%s', not %s", shorten(sh, p), th);
    t = rescue_jget(it, "target");
    n = list_count(L, t, th, &has_th);
    for (c = t && t->type == RESCUE_JARRAY ? t->child : NULL; c; c = c->next) {
      const char *e = clean(&L->b, c);
      if (!*e)
        continue;
      if (L->group_label && strcmp(e, L->group_label) == 0)
        group = 1;
      else
        others = 1;
    }
    if (n == 0)
      add(L, 11, pos, path, "support without a target");
    else if (has_th)
      add(L, 11, pos, path, "support targets %s", th);
    else if (group && others)
      add(L, 11, pos, path, "the group label '%s' must be the only target", L->group_label);
    st = clean(&L->a, rescue_jget(it, "strategy_type"));
    if (!*st)
      add(L, 11, pos, path, "strategy_type is empty");
    else if (ls && rescue_labelset_find(ls, st) < 0)
      add(L, 11, pos, path, "'%s' is not a %s support strategy; closest: %s", shorten(sh, st),
          L->scenario, suggest(L, st, (const char *const *)ls->labels, ls->n, 1000));
  }
}

/* R05, R07, R08, R09, R10, R11: the RESCUE guideline's own constraints. */
static void guideline(linter *L, const rescue_jnode *row, int pos, const char *speaker,
                      int therapist) {
  r05(L, row, pos, speaker);
  r07(L, row, pos);
  r08(L, row, pos);
  r09(L, row, pos);
  r10(L, row, pos);
  r11(L, row, pos, therapist);
}

/* R13: every row number of an ints field is a row of the sample. */
static void r13(linter *L, const rescue_jnode *row, int pos, int n_rows) {
  int i;
  for (i = 0; i < L->sc->n_fields; i++) {
    const rescue_field *f = &L->sc->fields[i];
    const rescue_jnode *v = rescue_jget(row, f->key), *c;
    if (f->type != RESCUE_F_INTS || !v || v->type != RESCUE_JARRAY)
      continue;
    for (c = v->child; c; c = c->next)
      if (c->type == RESCUE_JNUMBER && c->is_int && (c->num < 1 || c->num > n_rows))
        add(L, 13, pos, f->key, "%s points at row %s; the sample has rows 1-%d", f->key, c->s,
            n_rows);
  }
}

/* Does a subtitle text carry words (letters or digits outside [..], (..) and music signs)? */
static int lexical(const char *t) {
  const unsigned char *p = (const unsigned char *)t;
  int depth = 0;
  for (; *p; p++) {
    if (*p == '[' || *p == '(')
      depth++;
    else if ((*p == ']' || *p == ')') && depth)
      depth--;
    else if (depth)
      continue;
    else if (isalnum(*p))
      return 1;
    else if (*p >= 0xC0) {
      /* a non-ASCII character: words, unless a music sign or general punctuation */
      if (p[0] == 0xE2 && p[1] == 0x99 && (p[2] == 0xAA || p[2] == 0xAB || p[2] == 0xAC))
        continue;
      if (p[0] == 0xE2 && p[1] == 0x80)
        continue;
      if (p[0] == 0xC2)
        continue;
      return 1;
    }
  }
  return 0;
}

typedef struct span {
  double s, e;
} span;

static int by_start(const void *a, const void *b) {
  double x = ((const span *)a)->s, y = ((const span *)b)->s;
  return x < y ? -1 : x > y;
}

/* R14: cues with words covered by less than half by the rows' time spans. */
static void r14(linter *L, const rescue_jnode *const *rows, int n, const rescue_lint_media *m) {
  span *sp = rescue_malloc(((size_t)n + 1) * sizeof *sp);
  int i, k = 0, c;
  if (!sp) {
    L->oom = 1;
    return;
  }
  for (i = 0; i < n; i++) {
    const rescue_jnode *a = rescue_jget(rows[i], "start_time"),
                       *b = rescue_jget(rows[i], "end_time");
    if (a && b && a->type == RESCUE_JNUMBER && b->type == RESCUE_JNUMBER && b->num > a->num) {
      sp[k].s = a->num;
      sp[k++].e = b->num;
    }
  }
  qsort(sp, (size_t)k, sizeof *sp, by_start);
  for (c = 0; c < m->n_cues; c++) {
    const rescue_lint_cue *cu = &m->cues[c];
    double covered = 0, reach = cu->start, len = cu->end - cu->start;
    int hit = 0;
    char field[32], sh[64];
    if (!lexical(cu->text))
      continue;
    for (i = 0; i < k; i++) {
      double s = sp[i].s > reach ? sp[i].s : reach, e = sp[i].e < cu->end ? sp[i].e : cu->end;
      if (sp[i].s <= cu->start && sp[i].e >= cu->end)
        hit = 1;
      if (e > s) {
        covered += e - s;
        reach = e;
      }
    }
    if (len > 0 ? covered >= len / 2 : hit || covered > 0)
      continue;
    snprintf(field, sizeof field, "subtitles[%d]", cu->seq);
    add(L, 14, 0, field, "cue %d (%.2f-%.2f s) \"%s\" is not covered by any row", cu->seq,
        cu->start, cu->end, shorten(sh, cu->text));
  }
  rescue_free(sp);
}

/* The derived scenario (corpus/FORMAT.md §6.3) and shared participant list (§1.3) of the rows. */
static const char *derive(linter *L, const rescue_jnode *const *rows, int n, char ***parts,
                          int *n_parts) {
  const char *family = rescue_scheme_group_label(L->sc, "family");
  size_t len = strlen(L->sample_id), i;
  int fam = 0, r, np = 0, cap = 0;
  char **pl = NULL;
  char *lower = rescue_strdup(L->sample_id);
  if (!lower) {
    L->oom = 1;
    return "couple";
  }
  for (i = 0; i < len; i++)
    lower[i] = (char)tolower((unsigned char)lower[i]);
  fam = strncmp(lower, "family_therapy/", 15) == 0 || strstr(lower, "/family_therapy/") != NULL;
  rescue_free(lower);
  for (r = 0; r < n; r++) {
    const rescue_jnode *row = rows[r], *lists[2], *ss, *it, *c;
    const char *names[256];
    int nn = 0, l;
    if (row->type != RESCUE_JOBJECT)
      continue;
    rescue_buf_reset(&L->b);
    /* speaker, targets, support targets: collect cleaned names in L->b, NUL-separated */
    {
      size_t offs[256];
      const rescue_jnode *sv = rescue_jget(row, "primary_speaker");
      offs[nn++] = L->b.len;
      rescue_jclean(&L->b, sv);
      rescue_buf_putc(&L->b, 0);
      lists[0] = rescue_jget(row, "target");
      lists[1] = NULL;
      for (l = 0; l < 1; l++)
        for (c = lists[l] && lists[l]->type == RESCUE_JARRAY ? lists[l]->child : NULL;
             c && nn < 256; c = c->next) {
          offs[nn++] = L->b.len;
          rescue_jclean(&L->b, c);
          rescue_buf_putc(&L->b, 0);
        }
      ss = rescue_jget(row, "support_strategy");
      for (it = ss && ss->type == RESCUE_JARRAY ? ss->child : NULL; it; it = it->next) {
        const rescue_jnode *t = it->type == RESCUE_JOBJECT ? rescue_jget(it, "target") : NULL;
        for (c = t && t->type == RESCUE_JARRAY ? t->child : NULL; c && nn < 256; c = c->next) {
          offs[nn++] = L->b.len;
          rescue_jclean(&L->b, c);
          rescue_buf_putc(&L->b, 0);
        }
      }
      if (!rescue_buf_ok(&L->b)) {
        L->oom = 1;
        break;
      }
      for (l = 0; l < nn; l++)
        names[l] = L->b.s + offs[l];
    }
    for (l = 0; l < nn; l++) {
      const char *s = names[l];
      int j, dup = 0;
      if (family && strcmp(s, family) == 0)
        fam = 1;
      if (!*s || rescue_scheme_is_reserved(L->sc, s))
        continue;
      for (j = 0; j < np; j++)
        dup |= strcmp(pl[j], s) == 0;
      if (dup)
        continue;
      if (RESCUE_ALLOC_GROW(pl, np + 1, cap)) {
        L->oom = 1;
        break;
      }
      if (!(pl[np] = rescue_strdup(s))) {
        L->oom = 1;
        break;
      }
      np++;
    }
  }
  *parts = pl;
  *n_parts = np;
  return fam ? "family" : "couple";
}

/* R19 and the entity set: given scenario/participants against the derived ones. */
static void sample_level(linter *L, const rescue_jnode *sample, const rescue_jnode *const *rows,
                         int n) {
  char **dp = NULL;
  int ndp = 0, i, given_ok = 0;
  const char *derived = derive(L, rows, n, &dp, &ndp);
  const rescue_jnode *sv = sample ? rescue_jget(sample, "scenario") : NULL;
  const rescue_jnode *pv = sample ? rescue_jget(sample, "participants") : NULL, *c;
  char sh[64];
  L->scenario = derived;
  if (sv && L->partial) {
    if (sv->type == RESCUE_JSTRING && rescue_scheme_group_label(L->sc, sv->s))
      L->scenario = strcmp(sv->s, "family") == 0 ? "family" : "couple";
  } else if (sv) {
    if (sv->type != RESCUE_JSTRING) {
      add(L, 19, 0, "scenario", "scenario is %s, not a string", rescue_jtype_name(sv));
    } else if (strcmp(sv->s, derived) != 0) {
      add(L, 19, 0, "scenario",
          "scenario is '%s' but the sample reads as %s (corpus/FORMAT.md §6.3)", shorten(sh, sv->s),
          derived);
      if (rescue_scheme_group_label(L->sc, sv->s))
        L->scenario = strcmp(sv->s, "family") == 0 ? "family" : "couple";
    }
  }
  if (pv && L->partial && is_string_list(pv)) {
    given_ok = 1;
    for (c = pv->child; c; c = c->next)
      ents_add(L, clean(&L->a, c));
  } else if (pv) {
    if (!is_string_list(pv)) {
      add(L, 19, 0, "participants", "participants is %s, not a list of names",
          rescue_jtype_name(pv));
    } else {
      rescue_buf miss = RESCUE_BUF_INIT, extra = RESCUE_BUF_INIT;
      given_ok = 1;
      for (c = pv->child; c; c = c->next) {
        const char *s = clean(&L->a, c);
        int j, found = 0;
        for (j = 0; j < ndp; j++)
          found |= strcmp(dp[j], s) == 0;
        if (!found)
          rescue_buf_printf(&extra, "%s'%s'", extra.len ? ", " : "", shorten(sh, s));
        ents_add(L, s);
      }
      for (i = 0; i < ndp; i++) {
        int found = 0;
        for (c = pv->child; c; c = c->next)
          found |= strcmp(clean(&L->a, c), dp[i]) == 0;
        if (!found)
          rescue_buf_printf(&miss, "%s'%s'", miss.len ? ", " : "", shorten(sh, dp[i]));
      }
      if (miss.len || extra.len)
        add(L, 19, 0, "participants",
            "participants differ from the rows' speakers and targets:%s%s%s%s",
            miss.len ? " not listed " : "", miss.len ? miss.s : "",
            extra.len ? (miss.len ? "; listed but absent " : " listed but absent ") : "",
            extra.len ? extra.s : "");
      if (!rescue_buf_ok(&miss) || !rescue_buf_ok(&extra))
        L->oom = 1;
      rescue_buf_clear(&miss);
      rescue_buf_clear(&extra);
    }
  }
  if (!given_ok)
    for (i = 0; i < ndp; i++)
      ents_add(L, dp[i]);
  ents_add(L, L->sc->therapist);
  L->group_label = rescue_scheme_group_label(L->sc, L->scenario);
  if (L->group_label)
    ents_add(L, L->group_label);
  for (i = 0; i < ndp; i++)
    rescue_free(dp[i]);
  rescue_free(dp);
}

/*
** The names sample_level derived, kept (rescue_lint.h, rescue_lint_ents): the sample and
** row count they were derived for (a check of another falls back to deriving), the
** scenario, the entity set in its order, and the findings sample_level made, in the order
** it made them (their rule, row, field, reason and suggestions; the cause of an R19 is
** set later, by the rows judged, mark_slip_r19).
**
** Why keep them rather than a cheaper way to derive: derive reads three members of every
** row (with rescue_jclean and a copy of each name), so on a 432-row sample it costs what
** the rest of a row check costs many times over; what it gives is a handful of names. The
** one who keeps a sample's lint between saves (review.c, the server's cache) keeps these
** beside it, and a save whose row leaves those members alone reuses them as they are.
*/
struct rescue_lint_ents {
  char *sample_id;
  int n, n_rows;        /* derived from rows[0..n) of a row set of n_rows */
  const char *scenario; /* "couple" or "family" (static) */
  char **ents;          /* the entity set, as sample_level left it in the linter */
  int n_ents;
  rescue_lint_finding *found; /* sample_level's findings, row 0 */
  int n_found;
};

void rescue_lint_ents_free(rescue_lint_ents **e) {
  int i;
  if (!e || !*e)
    return;
  for (i = 0; i < (*e)->n_ents; i++)
    rescue_free((*e)->ents[i]);
  rescue_free((*e)->ents);
  for (i = 0; i < (*e)->n_found; i++) {
    rescue_free((*e)->found[i].field);
    rescue_free((*e)->found[i].reason);
    rescue_free((*e)->found[i].suggestions);
  }
  rescue_free((*e)->found);
  rescue_free((*e)->sample_id);
  rescue_free(*e);
  *e = NULL;
}

/*
** What sample_level left in L, with the findings it added from index `from` of L->res on,
** as a new kept object (NULL, L->oom set, when out of memory).
*/
static rescue_lint_ents *ents_save(linter *L, int from, int n, int n_rows) {
  rescue_lint_ents *e = rescue_calloc(1, sizeof *e);
  int i, k = L->res->n - from;
  if (!e || !(e->sample_id = rescue_strdup(L->sample_id)))
    goto oom;
  e->n = n;
  e->n_rows = n_rows;
  e->scenario = L->scenario;
  if (L->n_ents && !(e->ents = rescue_calloc((size_t)L->n_ents, sizeof *e->ents)))
    goto oom;
  e->n_ents = L->n_ents; /* from here on rescue_lint_ents_free frees what was copied */
  for (i = 0; i < L->n_ents; i++)
    if (!(e->ents[i] = rescue_strdup(L->ents[i])))
      goto oom;
  if (k > 0 && !(e->found = rescue_calloc((size_t)k, sizeof *e->found)))
    goto oom;
  e->n_found = k > 0 ? k : 0;
  for (i = 0; i < e->n_found; i++) {
    const rescue_lint_finding *f = &L->res->findings[from + i];
    rescue_lint_finding *c = &e->found[i];
    c->rule = f->rule;
    c->severity = f->severity;
    c->row = f->row;
    c->field = rescue_strdup(f->field);
    c->reason = rescue_strdup(f->reason);
    c->suggestions = f->suggestions ? rescue_strdup(f->suggestions) : NULL;
    if (!c->field || !c->reason || (f->suggestions && !c->suggestions))
      goto oom;
  }
  return e;
oom:
  L->oom = 1;
  rescue_lint_ents_free(&e);
  return NULL;
}

/*
** Put kept names into L as sample_level would have left them, and make again the findings
** sample_level made with them (through add, so they are recorded and counted as its were).
*/
static void ents_use(linter *L, const rescue_lint_ents *e) {
  int i;
  L->scenario = e->scenario;
  for (i = 0; i < e->n_ents; i++)
    ents_add(L, e->ents[i]);
  L->group_label = rescue_scheme_group_label(L->sc, L->scenario);
  for (i = 0; i < e->n_found; i++) {
    const rescue_lint_finding *f = &e->found[i];
    snprintf(L->sugg, sizeof L->sugg, "%s", f->suggestions ? f->suggestions : "");
    add(L, f->rule, f->row, f->field, "%s", f->reason);
  }
}

/* Were kept names e derived for this sample and these row counts? */
static int ents_fit(const rescue_lint_ents *e, const char *sample_id, int n, int n_rows) {
  return e && e->n == n && e->n_rows == n_rows && strcmp(e->sample_id, sample_id) == 0;
}

/* Do a and b give every row the same scenario and entity set (what R04 and R20 see)? */
static int ents_same(const rescue_lint_ents *a, const rescue_lint_ents *b) {
  int i;
  if (strcmp(a->scenario, b->scenario) != 0 || a->n_ents != b->n_ents)
    return 0;
  for (i = 0; i < a->n_ents; i++)
    if (strcmp(a->ents[i], b->ents[i]) != 0)
      return 0;
  return 1;
}

/* The names sample_level derives from rows[0..n) into *out (new); 0 or RESCUE_ENOMEM. */
static int ents_derive(const rescue_scheme *sc, const char *sample_id, const rescue_jnode *sample,
                       const rescue_jnode *const *rows, int n, int n_rows, rescue_lint_ents **out) {
  rescue_lint_result scratch;
  linter L;
  int oom;
  memset(&L, 0, sizeof L);
  memset(&scratch, 0, sizeof scratch);
  L.sc = sc;
  L.res = &scratch;
  L.sample_id = sample_id;
  L.partial = n < n_rows;
  sample_level(&L, sample, rows, n);
  *out = L.oom ? NULL : ents_save(&L, 0, n, n_rows);
  oom = L.oom;
  ents_clear(&L);
  rescue_free(L.ents);
  rescue_buf_clear(&L.a);
  rescue_buf_clear(&L.b);
  rescue_lint_result_clear(&scratch);
  return oom ? RESCUE_ENOMEM : 0;
}

/*
** One slip, one root: when row p's speaker is a reserved name written differently (R20:
** 'therapist'), the row is judged a client row, so its R06 and R11 findings (added from
** index first on) are consequences of that R20; the name is kept for mark_slip_r19.
*/
static void mark_slip(linter *L, const char *speaker, int p, int first) {
  const char *twin = fold_twin(L, speaker);
  int k;
  if (!twin || !rescue_scheme_is_reserved(L->sc, twin))
    return;
  for (k = first; k < L->res->n; k++) {
    rescue_lint_finding *f = &L->res->findings[k];
    if (f->row == p && (f->rule == 6 || f->rule == 11)) {
      f->cause_rule = 20;
      f->cause_row = p;
    }
  }
  for (k = 0; k < L->n_slips; k++)
    if (strcmp(L->slips[k].name, speaker) == 0)
      return;
  if (RESCUE_ALLOC_GROW(L->slips, L->n_slips + 1, L->cap_slips) ||
      !(L->slips[L->n_slips].name = rescue_strdup(speaker))) {
    L->oom = 1;
    return;
  }
  L->slips[L->n_slips++].row = p;
}

/* R19 naming a slipped name among the participants is a consequence of its R20 too. */
static void mark_slip_r19(linter *L) {
  char quoted[80];
  int i, k;
  for (i = L->first; i < L->res->n; i++) {
    rescue_lint_finding *f = &L->res->findings[i];
    if (f->rule != 19 || f->row != 0 || strcmp(f->field, "participants") != 0)
      continue;
    for (k = 0; k < L->n_slips; k++) {
      snprintf(quoted, sizeof quoted, "'%s'", L->slips[k].name);
      if (strstr(f->reason, quoted)) {
        f->cause_rule = 20;
        f->cause_row = L->slips[k].row;
        break;
      }
    }
  }
}

/* Findings of this sample in row, then rule order (stable). */
static int by_row_rule(const void *a, const void *b) {
  const rescue_lint_finding *x = a, *y = b;
  if (x->row != y->row)
    return x->row < y->row ? -1 : 1;
  if (x->rule != y->rule)
    return x->rule < y->rule ? -1 : 1;
  return x < y ? -1 : x > y;
}

/*
** The time facts rows before index i give row i when the rows between were skipped (not
** in `only`): the start R17 compares row i with, that of the nearest earlier row object
** with a numeric start (NAN when none), and its position. A walk back that stops at the
** first such row, so a check of one row does not read the rows far before it.
*/
static void start_before(const rescue_jnode *const *rows, const int *pos, int i, double *prev_start,
                         int *prev_pos) {
  int j;
  *prev_start = NAN;
  *prev_pos = 0;
  for (j = i - 1; j >= 0; j--) {
    const rescue_jnode *st =
        rows[j]->type == RESCUE_JOBJECT ? rescue_jget(rows[j], "start_time") : NULL;
    if (st && st->type == RESCUE_JNUMBER) {
      *prev_start = st->num;
      *prev_pos = pos ? pos[j] : j + 1;
      return;
    }
  }
}

/* R03's latest end: row i's end_time when it ends after row *last_end (or none yet). */
static void track_end(const rescue_jnode *const *rows, int i, int *last_end) {
  const rescue_jnode *et =
      rows[i]->type == RESCUE_JOBJECT ? rescue_jget(rows[i], "end_time") : NULL;
  if (et && et->type == RESCUE_JNUMBER &&
      (*last_end < 0 || et->num > rescue_jget(rows[*last_end], "end_time")->num))
    *last_end = i;
}

/*
** rescue_lint_sample, with the row rules run only on rows i where only[i] is set (only
** NULL: every row); the sample-level rules (R03, R14, R19 and the entity set) always see
** every row. The names (scenario, entity set, R19) are given's when given is not NULL
** (kept for these very rows), else derived from every row, and then, when keep is not
** NULL, handed out in *keep (new; NULL after a failure).
*/
static int lint_rows(const rescue_scheme *sc, const char *sample_id, const rescue_jnode *sample,
                     const rescue_jnode *const *rows, const int *pos, int n, int n_rows,
                     const rescue_lint_media *media, const unsigned char *only,
                     rescue_lint_result *res, const rescue_lint_ents *given,
                     rescue_lint_ents **keep) {
  linter L;
  int i, last_end = -1, first_of_row;
  double prev_start = NAN;
  int prev_pos = 0, need_end = media && !isnan(media->duration);
  memset(&L, 0, sizeof L);
  L.sc = sc;
  L.res = res;
  L.sample_id = sample_id;
  L.first = res->n;
  res->samples++;
  res->rows += n;
  /* a view that shows only some rows (gold) cannot judge sample-level facts */
  L.partial = n < n_rows;
  if (given) {
    ents_use(&L, given);
  } else {
    int from = res->n;
    sample_level(&L, sample, rows, n);
    if (keep && !L.oom)
      *keep = ents_save(&L, from, n, n_rows);
  }
  for (i = 0; i < n; i++) {
    const rescue_jnode *row = rows[i], *st, *et, *ri, *dc;
    int p = pos ? pos[i] : i + 1, therapist;
    char *speaker, sh[64];
    /* a skipped row matters to the rows judged only through its times: R03's latest end
       (every row, but only when the media's duration is known) and R17's previous start
       (found by walking back from the next row judged) */
    if (only && !only[i]) {
      if (need_end)
        track_end(rows, i, &last_end);
      continue;
    }
    if (only && i > 0 && !only[i - 1])
      start_before(rows, pos, i, &prev_start, &prev_pos);
    r01(&L, row, p);
    if (row->type != RESCUE_JOBJECT)
      continue;
    speaker = rescue_strdup(clean(&L.a, rescue_jget(row, "primary_speaker")));
    if (!speaker) {
      L.oom = 1;
      break;
    }
    therapist = strcmp(speaker, sc->therapist) == 0;
    first_of_row = res->n;
    r04(&L, row, p);
    labels(&L, row, p, therapist);
    guideline(&L, row, p, speaker, therapist);
    r13(&L, row, p, n_rows);
    /* R02 */
    st = rescue_jget(row, "start_time");
    et = rescue_jget(row, "end_time");
    if (st && st->type == RESCUE_JNUMBER && st->num < 0)
      add(&L, 2, p, "start_time", "start_time %s is negative", st->s);
    if (st && et && st->type == RESCUE_JNUMBER && et->type == RESCUE_JNUMBER &&
        !(et->num > st->num))
      add(&L, 2, p, "end_time", "end_time %s is not after start_time %s", et->s, st->s);
    if (et && et->type == RESCUE_JNUMBER &&
        (last_end < 0 || et->num > rescue_jget(rows[last_end], "end_time")->num))
      last_end = i;
    /* R15 */
    dc = rescue_jget(row, "dialogue_cleaned");
    if (dc && dc->type == RESCUE_JSTRING && !*clean(&L.a, dc))
      add(&L, 15, p, "dialogue_cleaned", "dialogue_cleaned is empty");
    /* R16 */
    ri = rescue_jget(row, "row_index");
    if (ri && ri->type == RESCUE_JNUMBER && ri->is_int && ri->num != p)
      add(&L, 16, p, "row_index", "row_index is %s at position %d", ri->s, p);
    /* R17 */
    if (st && st->type == RESCUE_JNUMBER) {
      if (!isnan(prev_start) && st->num < prev_start)
        add(&L, 17, p, "start_time", "starts at %s s, before row %d (%g s)", st->s, prev_pos,
            prev_start);
      prev_start = st->num;
      prev_pos = p;
    }
    /* R18: the previous row of the same speaker */
    if (st && st->type == RESCUE_JNUMBER && *speaker) {
      int j;
      for (j = i - 1; j >= 0; j--) {
        const rescue_jnode *pe;
        if (rows[j]->type != RESCUE_JOBJECT ||
            strcmp(clean(&L.b, rescue_jget(rows[j], "primary_speaker")), speaker) != 0)
          continue;
        pe = rescue_jget(rows[j], "end_time");
        if (pe && pe->type == RESCUE_JNUMBER && st->num < pe->num)
          add(&L, 18, p, "start_time",
              "starts at %s s, before row %d of the same speaker '%s' "
              "ends (%s s)",
              st->s, pos ? pos[j] : j + 1, shorten(sh, speaker), pe->s);
        break;
      }
    }
    if (*speaker && !therapist)
      mark_slip(&L, speaker, p, first_of_row);
    rescue_free(speaker);
  }
  mark_slip_r19(&L);
  /* R03 */
  if (media && !isnan(media->duration) && last_end >= 0) {
    const rescue_jnode *et = rescue_jget(rows[last_end], "end_time");
    if (et->num > media->duration + 0.0005)
      add(&L, 3, pos ? pos[last_end] : last_end + 1, "end_time",
          "ends at %s s, after the end of the sample's media (%.3f s)", et->s, media->duration);
  }
  /* R14 */
  if (media && media->n_cues && !L.partial)
    r14(&L, rows, n, media);
  if (res->n - L.first > 1)
    qsort(res->findings + L.first, (size_t)(res->n - L.first), sizeof *res->findings, by_row_rule);
  ents_clear(&L);
  rescue_free(L.ents);
  rescue_buf_clear(&L.a);
  rescue_buf_clear(&L.b);
  for (i = 0; i < L.n_slips; i++)
    rescue_free(L.slips[i].name);
  rescue_free(L.slips);
  return L.oom ? RESCUE_ENOMEM : 0;
}

int rescue_lint_sample(const rescue_scheme *sc, const char *sample_id, const rescue_jnode *sample,
                       const rescue_jnode *const *rows, const int *pos, int n, int n_rows,
                       const rescue_lint_media *media, rescue_lint_result *res) {
  return lint_rows(sc, sample_id, sample, rows, pos, n, n_rows, media, NULL, res, NULL, NULL);
}

int rescue_lint_sample_ents(const rescue_scheme *sc, const char *sample_id,
                            const rescue_jnode *sample, const rescue_jnode *const *rows,
                            const int *pos, int n, int n_rows, const rescue_lint_media *media,
                            rescue_lint_result *res, rescue_lint_ents **ents) {
  int rc;
  if (ents)
    *ents = NULL;
  rc = lint_rows(sc, sample_id, sample, rows, pos, n, n_rows, media, NULL, res, NULL, ents);
  if (rc && ents)
    rescue_lint_ents_free(ents);
  return rc;
}

/* The cleaned primary_speaker of row (a JSON object or not) into b; "" when none. */
static const char *speaker_of(rescue_buf *b, const rescue_jnode *row) {
  rescue_buf_reset(b);
  if (row && row->type == RESCUE_JOBJECT)
    rescue_jclean(b, rescue_jget(row, "primary_speaker"));
  rescue_buf_putc(b, 0);
  return rescue_buf_ok(b) ? b->s : "";
}

/*
** Mark in only[] the rows after index at whose time rules (R17, R18) look back at row at:
** up to the first later row with a numeric start, and the first later row of speaker
** `was` and of speaker `now`.
*/
static void mark_followers(const rescue_jnode *const *rows, int n, int at, const char *was,
                           const char *now, unsigned char *only) {
  rescue_buf b = RESCUE_BUF_INIT;
  int j, need_start = 1, need_was = *was != 0, need_now = *now != 0;
  for (j = at + 1; j < n && (need_start || need_was || need_now); j++) {
    const rescue_jnode *st;
    const char *sp;
    if (rows[j]->type != RESCUE_JOBJECT)
      continue;
    st = rescue_jget(rows[j], "start_time");
    sp = speaker_of(&b, rows[j]);
    if (need_start)
      only[j] = 1;
    if (st && st->type == RESCUE_JNUMBER)
      need_start = 0;
    if (need_was && strcmp(sp, was) == 0)
      only[j] = 1, need_was = 0;
    if (need_now && strcmp(sp, now) == 0)
      only[j] = 1, need_now = 0;
  }
  rescue_buf_clear(&b);
}

/* Whether rows a and b have member `key` alike (both without it, or written the same). */
static int same_member(const rescue_jnode *a, const rescue_jnode *b, const char *key, rescue_buf *x,
                       rescue_buf *y) {
  const rescue_jnode *m = a && a->type == RESCUE_JOBJECT ? rescue_jget(a, key) : NULL;
  const rescue_jnode *k = b && b->type == RESCUE_JOBJECT ? rescue_jget(b, key) : NULL;
  if (!m || !k)
    return !m && !k && a && b && a->type == RESCUE_JOBJECT && b->type == RESCUE_JOBJECT;
  rescue_buf_reset(x);
  rescue_buf_reset(y);
  rescue_jwrite(x, m);
  rescue_jwrite(y, k);
  return rescue_buf_ok(x) && rescue_buf_ok(y) && x->len == y->len &&
         memcmp(x->s, y->s, x->len) == 0;
}

int rescue_lint_row_change(const rescue_scheme *sc, const char *sample_id,
                           const rescue_jnode *sample, const rescue_jnode **rows, int n, int n_rows,
                           int at, const rescue_jnode *old_row, const rescue_lint_media *media,
                           rescue_lint_result *res) {
  return rescue_lint_row_change_rows(sc, sample_id, sample, rows, n, n_rows, at, old_row, media,
                                     res, NULL);
}

int rescue_lint_row_change_rows(const rescue_scheme *sc, const char *sample_id,
                                const rescue_jnode *sample, const rescue_jnode **rows, int n,
                                int n_rows, int at, const rescue_jnode *old_row,
                                const rescue_lint_media *media, rescue_lint_result *res,
                                unsigned char *judged) {
  return rescue_lint_row_change_kept(sc, sample_id, sample, rows, n, n_rows, at, old_row, media,
                                     res, judged, NULL, NULL);
}

int rescue_lint_row_change_kept(const rescue_scheme *sc, const char *sample_id,
                                const rescue_jnode *sample, const rescue_jnode **rows, int n,
                                int n_rows, int at, const rescue_jnode *old_row,
                                const rescue_lint_media *media, rescue_lint_result *res,
                                unsigned char *judged, const rescue_lint_ents *before,
                                rescue_lint_ents **after) {
  rescue_buf was = RESCUE_BUF_INIT, now = RESCUE_BUF_INIT;
  rescue_lint_ents *derived_before = NULL, *edited_ents = NULL, *fresh = NULL;
  const rescue_jnode *edited = rows[at];
  unsigned char *only = NULL;
  int rc = 0, all = 0;
  if (after)
    *after = NULL;
  if (before && !ents_fit(before, sample_id, n, n_rows))
    before = NULL;
  /* the names come from these members of every row (derive): when the edit leaves them
     as they were, so are the names, and the whole sample need not be read for them */
  if (!same_member(old_row, edited, "primary_speaker", &was, &now) ||
      !same_member(old_row, edited, "target", &was, &now) ||
      !same_member(old_row, edited, "support_strategy", &was, &now)) {
    if (!before) {
      rows[at] = old_row;
      rc = ents_derive(sc, sample_id, sample, rows, n, n_rows, &derived_before);
      rows[at] = edited;
      if (rc)
        goto done;
      before = derived_before;
    }
    if ((rc = ents_derive(sc, sample_id, sample, rows, n, n_rows, &edited_ents)))
      goto done;
    /* a name the edit brings or takes away changes what R04 and R20 say of every row */
    all = !ents_same(before, edited_ents);
  }
  if (!all) {
    if (!(only = rescue_calloc((size_t)n, 1))) {
      rc = RESCUE_ENOMEM;
      goto done;
    }
    only[at] = 1;
    speaker_of(&was, old_row);
    speaker_of(&now, edited);
    mark_followers(rows, n, at, was.s ? was.s : "", now.s ? now.s : "", only);
  }
  /* the edited sample's names: derived above when the members changed, else before's;
     derived in the lint (and kept) when there is neither */
  rc = lint_rows(sc, sample_id, sample, rows, NULL, n, n_rows, media, only, res,
                 edited_ents ? edited_ents : before, edited_ents || before ? NULL : &fresh);
  if (!rc && judged)
    for (int i = 0; i < n; i++)
      judged[i] = !only || only[i];
  if (!rc && after) {
    *after = edited_ents ? edited_ents : fresh;
    edited_ents = fresh = NULL;
  }
done:
  rescue_free(only);
  rescue_lint_ents_free(&derived_before);
  rescue_lint_ents_free(&edited_ents);
  rescue_lint_ents_free(&fresh);
  rescue_buf_clear(&was);
  rescue_buf_clear(&now);
  return rc;
}

void rescue_lint_result_clear(rescue_lint_result *res) {
  int i;
  if (!res)
    return;
  for (i = 0; i < res->n; i++) {
    rescue_free(res->findings[i].sample_id);
    rescue_free(res->findings[i].field);
    rescue_free(res->findings[i].reason);
    rescue_free(res->findings[i].suggestions);
  }
  rescue_free(res->findings);
  for (i = 0; i < res->n_waivers; i++) {
    rescue_free(res->waivers[i].sample_id);
    rescue_free(res->waivers[i].reason);
    rescue_free(res->waivers[i].by);
    rescue_free(res->waivers[i].at);
  }
  rescue_free(res->waivers);
  rescue_lint_ents_free(&res->ents);
  memset(res, 0, sizeof *res);
}

void rescue_lint_finding_text(const rescue_lint_finding *f, rescue_buf *out) {
  rescue_buf_puts(out, f->sample_id);
  if (f->row)
    rescue_buf_printf(out, ":%d", f->row);
  rescue_buf_printf(out, ": %s: R%02d %s: %s",
                    f->severity == RESCUE_LINT_ERROR ? "error" : "warning", f->rule, f->field,
                    f->reason);
  if (f->cause_rule)
    rescue_buf_printf(out, " (follows from R%02d on row %d: fix that first)", f->cause_rule,
                      f->cause_row);
  rescue_buf_putc(out, '\n');
}

/* One finding as a JSON object (with its waiver when waived). */
static void finding_json(const rescue_lint_result *res, const rescue_lint_finding *f,
                         rescue_jw *w) {
  char id[8];
  snprintf(id, sizeof id, "R%02d", f->rule);
  rescue_jw_obj(w);
  rescue_jw_key(w, "rule");
  rescue_jw_str(w, id);
  rescue_jw_key(w, "severity");
  rescue_jw_str(w, f->severity == RESCUE_LINT_ERROR ? "error" : "warning");
  rescue_jw_key(w, "sample");
  rescue_jw_str(w, f->sample_id);
  rescue_jw_key(w, "row");
  if (f->row)
    rescue_jw_int(w, f->row);
  else
    rescue_jw_null(w);
  rescue_jw_key(w, "field");
  rescue_jw_str(w, f->field);
  rescue_jw_key(w, "reason");
  rescue_jw_str(w, f->reason);
  if (f->suggestions) {
    const char *p = f->suggestions, *q;
    rescue_jw_key(w, "suggestions");
    rescue_jw_arr(w);
    for (;;) {
      q = strstr(p, ", ");
      rescue_jw_strn(w, p, q ? (size_t)(q - p) : strlen(p));
      if (!q)
        break;
      p = q + 2;
    }
    rescue_jw_end(w);
  }
  if (f->cause_rule) {
    snprintf(id, sizeof id, "R%02d", f->cause_rule);
    rescue_jw_key(w, "follows_from");
    rescue_jw_obj(w);
    rescue_jw_key(w, "rule");
    rescue_jw_str(w, id);
    rescue_jw_key(w, "row");
    rescue_jw_int(w, f->cause_row);
    rescue_jw_end(w);
  }
  if (f->waiver) {
    const rescue_lint_waiver *v = &res->waivers[f->waiver - 1];
    rescue_jw_key(w, "waiver");
    rescue_jw_obj(w);
    rescue_jw_key(w, "reason");
    rescue_jw_str(w, v->reason);
    rescue_jw_key(w, "by");
    rescue_jw_str(w, v->by);
    rescue_jw_key(w, "at");
    rescue_jw_str(w, v->at);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

void rescue_lint_result_json(const rescue_lint_result *res, rescue_buf *out) {
  rescue_jw w;
  int i;
  char id[8];
  rescue_jw_init(&w, out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "samples");
  rescue_jw_int(&w, res->samples);
  rescue_jw_key(&w, "rows");
  rescue_jw_int(&w, res->rows);
  rescue_jw_key(&w, "errors");
  rescue_jw_int(&w, res->errors);
  rescue_jw_key(&w, "warnings");
  rescue_jw_int(&w, res->warnings);
  rescue_jw_key(&w, "by_rule");
  rescue_jw_obj(&w);
  for (i = 1; i <= RESCUE_LINT_RULES; i++)
    if (res->by_rule[i]) {
      snprintf(id, sizeof id, "R%02d", i);
      rescue_jw_key(&w, id);
      rescue_jw_int(&w, res->by_rule[i]);
    }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "findings");
  rescue_jw_arr(&w);
  for (i = 0; i < res->n; i++)
    if (!res->findings[i].waiver)
      finding_json(res, &res->findings[i], &w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "waived");
  rescue_jw_int(&w, res->waived);
  rescue_jw_key(&w, "waived_findings");
  rescue_jw_arr(&w);
  for (i = 0; i < res->n; i++)
    if (res->findings[i].waiver)
      finding_json(res, &res->findings[i], &w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "waivers");
  rescue_jw_arr(&w);
  for (i = 0; i < res->n_waivers; i++) {
    const rescue_lint_waiver *v = &res->waivers[i];
    snprintf(id, sizeof id, "R%02d", v->rule);
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "rule");
    rescue_jw_str(&w, id);
    rescue_jw_key(&w, "sample");
    rescue_jw_str(&w, v->sample_id);
    rescue_jw_key(&w, "row");
    if (v->row)
      rescue_jw_int(&w, v->row);
    else
      rescue_jw_null(&w);
    rescue_jw_key(&w, "reason");
    rescue_jw_str(&w, v->reason);
    rescue_jw_key(&w, "by");
    rescue_jw_str(&w, v->by);
    rescue_jw_key(&w, "at");
    rescue_jw_str(&w, v->at);
    rescue_jw_key(&w, "matched");
    rescue_jw_int(&w, v->matched);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_end(&w);
}

/* ---- the store walk ---- */

/* The media duration of a sample (NAN when unknown). */
static int media_duration(rescue_store *st, int64_t ref, double *out) {
  int rc;
  *out = NAN;
  rc = rescue_sample_media_duration(st, ref, out);
  return rc < 0 ? rc : 0;
}

/* The latest subtitle import's cues of a sample; texts kept in buf. */
static int load_cues(rescue_store *st, int64_t ref, rescue_lint_cue **cues, int *n,
                     rescue_buf *buf) {
  sqlite3_stmt *s = rescue_store_stmt(st, "lint_cues");
  size_t *offs = NULL;
  int cap = 0, cap_offs = 0, rc, i;
  *n = 0;
  rescue_buf_reset(buf);
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":sample_ref", ref);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    if (RESCUE_ALLOC_GROW(*cues, *n + 1, cap) || RESCUE_ALLOC_GROW(offs, *n + 1, cap_offs)) {
      sqlite3_reset(s);
      rescue_free(offs);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
    (*cues)[*n].seq = sqlite3_column_int(s, 0);
    (*cues)[*n].start = sqlite3_column_double(s, 1);
    (*cues)[*n].end = sqlite3_column_double(s, 2);
    offs[*n] = buf->len;
    rescue_buf_putn(buf, sqlite3_column_text(s, 3), (size_t)sqlite3_column_bytes(s, 3));
    rescue_buf_putc(buf, 0);
    (*n)++;
  }
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rescue_free(offs);
    return rescue_store_sqlerr(st, "reading subtitle cues");
  }
  if (!rescue_buf_ok(buf)) {
    rescue_free(offs);
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  for (i = 0; i < *n; i++)
    (*cues)[i].text = buf->s + offs[i];
  rescue_free(offs);
  return 0;
}

/* ---- waivers ---- */

/* Read every waiver of the corpus into res (none when the corpus predates them). */
static int load_waivers(rescue_store *st, rescue_lint_result *res) {
  sqlite3_stmt *s = rescue_store_stmt(st, "lint_waiver_table");
  int rc, have, cap = 0;
  if (!s)
    return rescue_store_err(st)->code;
  rc = sqlite3_step(s);
  have = rc == SQLITE_ROW && sqlite3_column_int(s, 0) > 0;
  sqlite3_reset(s);
  if (rc != SQLITE_ROW)
    return rescue_store_sqlerr(st, "looking for lint waivers");
  if (!have)
    return 0;
  if (!(s = rescue_store_stmt(st, "lint_waivers")))
    return rescue_store_err(st)->code;
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    rescue_lint_waiver *w;
    if (RESCUE_ALLOC_GROW(res->waivers, res->n_waivers + 1, cap)) {
      sqlite3_reset(s);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
    w = &res->waivers[res->n_waivers++];
    memset(w, 0, sizeof *w);
    w->rule = sqlite3_column_int(s, 0);
    w->sample_id = rescue_strdup((const char *)sqlite3_column_text(s, 1));
    w->row = sqlite3_column_int(s, 2);
    w->reason = rescue_strdup((const char *)sqlite3_column_text(s, 3));
    w->by = rescue_strdup((const char *)sqlite3_column_text(s, 4));
    w->at = rescue_strdup((const char *)sqlite3_column_text(s, 5));
    if (!w->sample_id || !w->reason || !w->by || !w->at) {
      sqlite3_reset(s);
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    }
  }
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading lint waivers");
}

/* Mark the findings a waiver covers and move them out of the error and warning counts. */
static void apply_waivers(rescue_lint_result *res) {
  int i, k;
  for (i = 0; i < res->n; i++) {
    rescue_lint_finding *f = &res->findings[i];
    for (k = 0; k < res->n_waivers; k++) {
      rescue_lint_waiver *w = &res->waivers[k];
      if (w->rule != f->rule || w->row != f->row || strcmp(w->sample_id, f->sample_id) != 0)
        continue;
      f->waiver = k + 1;
      w->matched++;
      res->waived++;
      if (f->severity == RESCUE_LINT_ERROR)
        res->errors--;
      else
        res->warnings--;
      res->by_rule[f->rule]--;
      break;
    }
  }
}

/* The sample's ref and row count, with a clear message when it is not in the corpus. */
static int waiver_target(rescue_store *st, int rule, const char *sample_id, int row, int64_t *ref) {
  int n_rows, rc;
  if (rule < 1 || rule > RESCUE_LINT_RULES)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "no rule R%02d (rules are R01-R%02d)",
                         rule, RESCUE_LINT_RULES);
  if ((rc = rescue_sample_rowcount(st, sample_id, &n_rows)) == RESCUE_ENOTFOUND)
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no sample '%s' in the corpus",
                         sample_id);
  if (rc)
    return rc;
  if (row < 0 || row > n_rows)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL,
                         "sample '%s' has rows 1-%d (0 for the sample as a whole), not %d",
                         sample_id, n_rows, row);
  return rescue_sample_ref(st, sample_id, ref);
}

/* The audit record of a waiver or its removal, inside its transaction (rescue_audit.h). */
static int waiver_audit(rescue_store *st, const char *action, int rule, const char *sample_id,
                        int row, const char *by, const char *reason) {
  rescue_audit_entry e = {0};
  char detail[600];
  snprintf(detail, sizeof detail, "R%02d on %s row %d%s%s%s", rule, sample_id, row,
           reason ? " (" : "", reason ? reason : "", reason ? ")" : "");
  e.action = action;
  e.annotator = by;
  e.detail = detail;
  return rescue_audit_write(st, &e);
}

/*
** Refuse a waiver that would hide nothing: rule must have a finding on sample_id's row in
** the corpus view (what `rescue lint` checks by default). The message lists the findings
** the row does have.
*/
static int waiver_finding(rescue_store *st, int rule, const char *sample_id, int row) {
  rescue_lint_opts o;
  rescue_lint_result res;
  rescue_buf have = RESCUE_BUF_INIT;
  const char *only[1] = {sample_id};
  char one[200];
  int rc, i, found = 0;
  memset(&o, 0, sizeof o);
  o.samples = only;
  o.n_samples = 1;
  if ((rc = rescue_lint(st, &o, &res)))
    goto done;
  for (i = 0; i < res.n; i++) {
    const rescue_lint_finding *f = &res.findings[i];
    if (f->row != row)
      continue;
    found |= f->rule == rule;
    snprintf(one, sizeof one, "R%02d %s", f->rule, f->field);
    if (!have.len || !strstr(have.s, one)) /* each rule and field once */
      rescue_buf_printf(&have, "%s%s", have.len ? ", " : "", one);
  }
  if (!found)
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND,
                       "no R%02d finding on '%s' %s%.0d to waive (%s%s); nothing was recorded",
                       rule, sample_id, row ? "row " : "the sample as a whole", row,
                       have.len ? "its findings: " : "it has no findings", have.len ? have.s : "");
done:
  rescue_buf_clear(&have);
  rescue_lint_result_clear(&res);
  return rc;
}

/* Append a waive or unwaive to the waiver history, inside its transaction. */
static int waiver_history(rescue_store *st, const char *action, int rule, int64_t ref, int row,
                          const char *reason, const char *by) {
  sqlite3_stmt *s = rescue_store_stmt(st, "lint_waiver_history_put");
  char now[32];
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_now_iso(now);
  rescue_bind_int(s, ":rule", rule);
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":row", row);
  rescue_bind_text(s, ":action", action, -1);
  if (reason)
    rescue_bind_text(s, ":reason", reason, -1);
  rescue_bind_text(s, ":by", by, -1);
  rescue_bind_text(s, ":at", now, -1);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "recording the waiver history");
}

/* The waiver a new one replaces, as "<by> on <date>: <reason>", into replaced. */
static int waiver_current(rescue_store *st, int rule, int64_t ref, int row, rescue_buf *replaced) {
  sqlite3_stmt *s = rescue_store_stmt(st, "lint_waiver_current");
  int rc;
  if (!s)
    return rescue_store_err(st)->code;
  rescue_bind_int(s, ":rule", rule);
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":row", row);
  rc = sqlite3_step(s);
  if (rc == SQLITE_ROW && replaced)
    rescue_buf_printf(replaced, "%s on %.10s: %s", (const char *)sqlite3_column_text(s, 1),
                      (const char *)sqlite3_column_text(s, 2),
                      (const char *)sqlite3_column_text(s, 0));
  sqlite3_reset(s);
  return rc == SQLITE_ROW || rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading a waiver");
}

int rescue_lint_waive(rescue_store *st, int rule, const char *sample_id, int row,
                      const char *reason, const char *by, rescue_buf *replaced) {
  sqlite3_stmt *s;
  int64_t ref;
  char now[32];
  int rc;
  if (!reason || !*reason)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINVAL, "a waiver needs a reason");
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = waiver_target(st, rule, sample_id, row, &ref)) ||
      (rc = waiver_finding(st, rule, sample_id, row)) ||
      (rc = waiver_current(st, rule, ref, row, replaced)))
    goto fail;
  if (!(s = rescue_store_stmt(st, "lint_waiver_put"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_now_iso(now);
  rescue_bind_int(s, ":rule", rule);
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":row", row);
  rescue_bind_text(s, ":reason", reason, -1);
  rescue_bind_text(s, ":by", by, -1);
  rescue_bind_text(s, ":at", now, -1);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "recording a waiver");
    goto fail;
  }
  if ((rc = waiver_history(st, "waive", rule, ref, row, reason, by)) ||
      (rc = waiver_audit(st, "waive", rule, sample_id, row, by, reason)))
    goto fail;
  return rescue_store_commit(st);
fail:
  rescue_store_rollback(st);
  return rc;
}

int rescue_lint_unwaive(rescue_store *st, int rule, const char *sample_id, int row,
                        const char *by) {
  sqlite3_stmt *s;
  int64_t ref;
  int rc;
  if ((rc = rescue_store_begin(st)))
    return rc;
  if ((rc = waiver_target(st, rule, sample_id, row, &ref)))
    goto fail;
  if (!(s = rescue_store_stmt(st, "lint_waiver_delete"))) {
    rc = rescue_store_err(st)->code;
    goto fail;
  }
  rescue_bind_int(s, ":rule", rule);
  rescue_bind_int(s, ":sample_ref", ref);
  rescue_bind_int(s, ":row", row);
  rc = sqlite3_step(s);
  sqlite3_reset(s);
  if (rc != SQLITE_DONE) {
    rc = rescue_store_sqlerr(st, "removing a waiver");
    goto fail;
  }
  if (sqlite3_changes(rescue_store_db(st)) == 0) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOTFOUND, "no waiver for R%02d on '%s' row %d",
                       rule, sample_id, row);
    goto fail;
  }
  if ((rc = waiver_history(st, "unwaive", rule, ref, row, NULL, by)) ||
      (rc = waiver_audit(st, "unwaive", rule, sample_id, row, by, NULL)))
    goto fail;
  return rescue_store_commit(st);
fail:
  rescue_store_rollback(st);
  return rc;
}

int rescue_lint_waiver_history(rescue_store *st, const char *sample_id, rescue_buf *out) {
  sqlite3_stmt *s = rescue_store_stmt(st, "lint_waiver_history_table");
  int rc, have;
  if (!s)
    return rescue_store_err(st)->code;
  rc = sqlite3_step(s);
  have = rc == SQLITE_ROW && sqlite3_column_int(s, 0) > 0;
  sqlite3_reset(s);
  if (rc != SQLITE_ROW)
    return rescue_store_sqlerr(st, "looking for the waiver history");
  if (!have) /* a corpus opened read-only before its upgrade: no history yet */
    return 0;
  if (!(s = rescue_store_stmt(st, "lint_waiver_history")))
    return rescue_store_err(st)->code;
  if (sample_id)
    rescue_bind_text(s, ":sample_id", sample_id, -1);
  while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
    const char *action = (const char *)sqlite3_column_text(s, 1);
    int row = sqlite3_column_int(s, 4);
    rescue_buf_printf(out, "%s  %-7s R%02d %s:%d  by %s", (const char *)sqlite3_column_text(s, 0),
                      action, sqlite3_column_int(s, 2), (const char *)sqlite3_column_text(s, 3),
                      row, (const char *)sqlite3_column_text(s, 5));
    if (sqlite3_column_type(s, 6) != SQLITE_NULL)
      rescue_buf_printf(out, ": %s", (const char *)sqlite3_column_text(s, 6));
    rescue_buf_putc(out, '\n');
  }
  sqlite3_reset(s);
  if (!rescue_buf_ok(out))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  return rc == SQLITE_DONE ? 0 : rescue_store_sqlerr(st, "reading the waiver history");
}

int rescue_lint_waiver_parse(const char *spec, int *rule, char **sample_id, int *row,
                             rescue_error *err) {
  const char *c1 = strchr(spec, ':'), *c2 = strrchr(spec, ':'), *p;
  char *end;
  long v;
  *sample_id = NULL;
  if (!c1 || c1 == c2 || c2 == c1 + 1)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "a waiver is <rule>:<sample_id>:<row> (R13:alan_and_evelyn/003:2), not "
                         "'%s'",
                         spec);
  p = spec;
  if (*p == 'R' || *p == 'r')
    p++;
  v = strtol(p, &end, 10);
  if (end != c1 || p == c1 || v < 1 || v > RESCUE_LINT_RULES)
    return rescue_seterr(err, RESCUE_EINVAL, "'%.*s' is not a rule (R01-R%02d)", (int)(c1 - spec),
                         spec, RESCUE_LINT_RULES);
  *rule = (int)v;
  v = strtol(c2 + 1, &end, 10);
  if (!c2[1] || *end || v < 0 || v > 1000000000)
    return rescue_seterr(err, RESCUE_EINVAL,
                         "'%s' is not a row number (1-based; 0 for the sample as a whole)", c2 + 1);
  *row = (int)v;
  if (!(*sample_id = rescue_malloc((size_t)(c2 - c1))))
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  memcpy(*sample_id, c1 + 1, (size_t)(c2 - c1 - 1));
  (*sample_id)[c2 - c1 - 1] = 0;
  return 0;
}

/*
** Parse a stored sample for linting: its sample-level keys (head + [] + tail) into doc_sample
** as *sample (NULL when they do not parse), and its rows as one array into doc_rows as *arr.
** text is scratch. Returns 0 or an error code kept on the store handle.
*/
static int parse_stored(rescue_store *st, const rescue_sample *s, rescue_jdoc *doc_sample,
                        rescue_jdoc *doc_rows, rescue_buf *text, const rescue_jnode **sample,
                        const rescue_jnode **arr) {
  rescue_jerror je;
  int i;
  /* the sample-level keys: head + [] + tail */
  rescue_buf_reset(text);
  rescue_buf_puts(text, s->head);
  if (s->has_rows) {
    rescue_buf_puts(text, "[]");
    rescue_buf_puts(text, s->tail);
  }
  if (!rescue_buf_ok(text))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  *sample = rescue_jparse(doc_sample, text->s, text->len, &je);
  /* the rows, as one array */
  rescue_buf_reset(text);
  rescue_buf_putc(text, '[');
  for (i = 0; i < s->n; i++) {
    if (i)
      rescue_buf_putc(text, ',');
    rescue_buf_putn(text, s->rows[i].content, s->rows[i].content_len);
  }
  rescue_buf_putc(text, ']');
  if (!rescue_buf_ok(text))
    return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  *arr = rescue_jparse(doc_rows, text->s, text->len, &je);
  if (!*arr)
    return rescue_seterr(rescue_store_err(st), RESCUE_EINTERNAL,
                         "sample '%s': stored rows do not parse: %s", s->sample_id, je.msg);
  return 0;
}

int rescue_lint_lost_refs(const char *sample_id, int position, const char *lost_refs,
                          rescue_lint_result *res) {
  rescue_jdoc *doc;
  const rescue_jnode *o, *f, *e;
  rescue_jerror je;
  linter L;
  if (!lost_refs)
    return 0;
  if (!(doc = rescue_jdoc_new()))
    return RESCUE_ENOMEM;
  memset(&L, 0, sizeof L);
  L.res = res;
  L.sample_id = sample_id;
  o = rescue_jparse(doc, lost_refs, strlen(lost_refs), &je);
  for (f = o && o->type == RESCUE_JOBJECT ? o->child : NULL; f; f = f->next)
    for (e = f->type == RESCUE_JARRAY ? f->child : NULL; e; e = e->next) {
      const rescue_jnode *w = e->child, *id = w ? w->next : NULL;
      if (w && id)
        add(&L, 13, position, f->key,
            "%s points at a row that is not in this row set (row %s where it was written, "
            "row id %s): a resegmentation removed it",
            f->key, w->s, id->s);
    }
  rescue_jdoc_free(&doc);
  return L.oom ? RESCUE_ENOMEM : 0;
}

/*
** R13 across row sets for every row of s (rescue_lint_lost_refs). Returns 0 or
** RESCUE_ENOMEM, kept on the store handle.
*/
static int r13_lost(rescue_store *st, const rescue_sample *s, rescue_lint_result *res) {
  int i;
  for (i = 0; i < s->n; i++)
    if (rescue_lint_lost_refs(s->sample_id, s->rows[i].position, s->rows[i].lost_refs, res))
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  return 0;
}

/*
** R21: flag an annotator's rows of s that someone else's resegmentation changed. Returns 0
** or RESCUE_ENOMEM, kept on the store handle.
*/
static int r21(rescue_store *st, const rescue_sample *s, rescue_lint_result *res) {
  int i;
  for (i = 0; i < s->n; i++) {
    linter L;
    if (!s->rows[i].seg_changed)
      continue;
    memset(&L, 0, sizeof L);
    L.res = res;
    L.sample_id = s->sample_id;
    add(&L, 21, s->rows[i].position, "start_time", "%s",
        s->rows[i].origin == RESCUE_ROW_SPLIT    ? "segmentation changed: split by another "
                                                   "annotator's resegmentation; review it"
        : s->rows[i].origin == RESCUE_ROW_MERGED ? "segmentation changed: merged by another "
                                                   "annotator's resegmentation; review it"
                                                 : "segmentation changed: a new row from "
                                                   "another annotator's resegmentation");
    if (L.oom)
      return rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
  }
  return 0;
}

int rescue_lint(rescue_store *st, const rescue_lint_opts *o, rescue_lint_result *res) {
  const rescue_scheme *sc = rescue_store_scheme(st);
  rescue_sample_iter *it = NULL;
  const rescue_sample *s;
  rescue_jdoc *doc_rows = rescue_jdoc_new(), *doc_sample = rescue_jdoc_new();
  rescue_buf text = RESCUE_BUF_INIT, cue_text = RESCUE_BUF_INIT;
  const rescue_jnode **rows = NULL;
  int *pos = NULL, cap = 0, rc;
  rescue_lint_cue *cues = NULL;
  long total = 0, done = 0;
  memset(res, 0, sizeof *res);
  if (!doc_rows || !doc_sample) {
    rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
    goto end;
  }
  if (o->progress && (rc = rescue_store_sample_count(st, &total)))
    goto end;
  if ((rc = load_waivers(st, res)))
    goto end;
  if ((rc = rescue_sample_iter_new(st, &o->view, o->samples, o->n_samples, &it)))
    goto end;
  while ((rc = rescue_sample_iter_next(it, &s)) == 1) {
    const rescue_jnode *sample = NULL, *arr;
    rescue_lint_media media;
    int i, k, named = 0;
    if (o->progress)
      o->progress(o->progress_arg, (uint64_t)++done, (uint64_t)total);
    for (i = 0; i < o->n_samples; i++)
      named |= strcmp(o->samples[i], s->sample_id) == 0;
    if ((strcmp(s->status, "discarded") == 0 && !named) || s->n == 0)
      continue; /* discarded, or nothing to see in this view (gold before adjudication) */
    if ((rc = parse_stored(st, s, doc_sample, doc_rows, &text, &sample, &arr)))
      goto end;
    if (s->n > cap) {
      const rescue_jnode **nr = rescue_realloc(rows, (size_t)s->n * sizeof *nr);
      int *np;
      if (!nr) {
        rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
        goto end;
      }
      rows = nr;
      np = rescue_realloc(pos, (size_t)s->n * sizeof *np);
      if (!np) {
        rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
        goto end;
      }
      pos = np;
      cap = s->n;
    }
    {
      const rescue_jnode *c;
      for (c = arr->child, k = 0; c && k < s->n; c = c->next, k++) {
        rows[k] = c;
        pos[k] = s->rows[k].position;
      }
    }
    memset(&media, 0, sizeof media);
    if ((rc = media_duration(st, s->ref, &media.duration)) ||
        (rc = load_cues(st, s->ref, &cues, &media.n_cues, &cue_text)))
      goto end;
    media.cues = cues;
    if (rescue_lint_sample(sc, s->sample_id, sample, rows, pos, s->n, s->n_rows, &media, res)) {
      rc = rescue_seterr(rescue_store_err(st), RESCUE_ENOMEM, NULL);
      goto end;
    }
    /* R13 for references that no longer resolve; R21: an annotator's rows that someone
       else's resegmentation changed */
    if ((rc = r13_lost(st, s, res)) || (rc = r21(st, s, res)))
      goto end;
  }
  if (rc == 0)
    apply_waivers(res);
end:
  rescue_sample_iter_free(&it);
  rescue_jdoc_free(&doc_rows);
  rescue_jdoc_free(&doc_sample);
  rescue_buf_clear(&text);
  rescue_buf_clear(&cue_text);
  rescue_free(rows);
  rescue_free(pos);
  rescue_free(cues);
  return rc < 0 ? rc : 0;
}
