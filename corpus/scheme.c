/*
** scheme.c: load an annotation scheme (XML) with libxml2, validate it against the
** RelaxNG grammar built into the library, and turn it into plain C structs.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/relaxng.h>
#include <libxml/tree.h>

#include "rescue_alloc.h"
#include "rescue_buf.h"
#include "rescue_json.h"
#include "rescue_scheme.h"

extern const unsigned char rescue_scheme_xml[];
extern const size_t rescue_scheme_xml_len;
extern const unsigned char rescue_scheme_rng[];
extern const size_t rescue_scheme_rng_len;

const char *rescue_scheme_default_xml(size_t *len) {
  if (len)
    *len = rescue_scheme_xml_len;
  return (const char *)rescue_scheme_xml;
}

/* libxml2 reports through callbacks; collect the messages into one line. */
static void collect_error(void *ctx, const xmlError *e) {
  rescue_buf *b = ctx;
  char msg[300];
  size_t n;
  if (b->len > 600)
    return;
  snprintf(msg, sizeof msg, "%s", e->message ? e->message : "error");
  n = strlen(msg);
  while (n && (msg[n - 1] == '\n' || msg[n - 1] == ' '))
    msg[--n] = 0;
  if (b->len)
    rescue_buf_puts(b, "; ");
  if (e->line > 0)
    rescue_buf_printf(b, "line %d: ", e->line);
  rescue_buf_puts(b, msg);
}

static void collect_error_cb(void *ctx, xmlErrorPtr e) { collect_error(ctx, e); }

static int is_elem(xmlNode *n, const char *name) {
  return n->type == XML_ELEMENT_NODE && strcmp((const char *)n->name, name) == 0;
}

/* Attribute as a string we own (NULL when absent); sets *oom on failure. */
static char *attr(xmlNode *n, const char *name, int *oom) {
  xmlChar *v = xmlGetProp(n, (const xmlChar *)name);
  char *r;
  if (!v)
    return NULL;
  r = rescue_strdup((const char *)v);
  xmlFree(v);
  if (!r)
    *oom = 1;
  return r;
}

/* The element's own text (not its children elements'), trimmed. */
static char *own_text(xmlNode *n, int *oom) {
  rescue_buf b = RESCUE_BUF_INIT;
  xmlNode *c;
  size_t a, e;
  char *r;
  for (c = n->children; c; c = c->next)
    if (c->type == XML_TEXT_NODE && c->content)
      rescue_buf_puts(&b, (const char *)c->content);
  if (!rescue_buf_ok(&b)) {
    *oom = 1;
    rescue_buf_clear(&b);
    return NULL;
  }
  a = 0;
  e = b.len;
  while (a < e && strchr(" \t\r\n", b.s[a]))
    a++;
  while (e > a && strchr(" \t\r\n", b.s[e - 1]))
    e--;
  r = rescue_strndup(b.s ? b.s + a : "", e - a);
  rescue_buf_clear(&b);
  if (!r)
    *oom = 1;
  return r;
}

static int count_elems(xmlNode *parent, const char *name) {
  int n = 0;
  xmlNode *c;
  for (c = parent->children; c; c = c->next)
    if (is_elem(c, name))
      n++;
  return n;
}

static void free_fields(rescue_field *f, int n) {
  int i;
  for (i = 0; f && i < n; i++) {
    rescue_free(f[i].key);
    rescue_free(f[i].labels);
    rescue_free(f[i].unit);
    rescue_free(f[i].rows);
    rescue_free(f[i].level);
    rescue_free(f[i].description);
    free_fields(f[i].children, f[i].n_children);
  }
  rescue_free(f);
}

static const struct {
  const char *name;
  rescue_ftype type;
} ftypes[] = {{"number", RESCUE_F_NUMBER},     {"int", RESCUE_F_INT},
              {"text", RESCUE_F_TEXT},         {"entity", RESCUE_F_ENTITY},
              {"entities", RESCUE_F_ENTITIES}, {"label", RESCUE_F_LABEL},
              {"ints", RESCUE_F_INTS},         {"list", RESCUE_F_LIST}};

/* Fill fields[] from the <field> children of parent. Returns 0 or an error code. */
static int load_fields(xmlNode *parent, rescue_field **out, int *nout, rescue_error *err) {
  int n = count_elems(parent, "field"), i = 0, oom = 0;
  xmlNode *c;
  rescue_field *f = rescue_calloc((size_t)(n ? n : 1), sizeof *f);
  if (!f)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  *out = f;
  *nout = n;
  for (c = parent->children; c; c = c->next) {
    char *type, *v;
    size_t k;
    int rc;
    if (!is_elem(c, "field"))
      continue;
    f[i].key = attr(c, "key", &oom);
    f[i].labels = attr(c, "labels", &oom);
    f[i].unit = attr(c, "unit", &oom);
    f[i].rows = attr(c, "rows", &oom);
    f[i].level = attr(c, "level", &oom);
    f[i].description = own_text(c, &oom);
    type = attr(c, "type", &oom);
    for (k = 0; type && k < sizeof ftypes / sizeof ftypes[0]; k++)
      if (strcmp(type, ftypes[k].name) == 0)
        f[i].type = ftypes[k].type;
    rescue_free(type);
    if ((v = attr(c, "min", &oom))) {
      f[i].has_min = 1;
      f[i].min = strtod(v, NULL);
      rescue_free(v);
    }
    if ((v = attr(c, "max", &oom))) {
      f[i].has_max = 1;
      f[i].max = strtod(v, NULL);
      rescue_free(v);
    }
    if ((v = attr(c, "required", &oom))) {
      f[i].required = strcmp(v, "true") == 0 || strcmp(v, "1") == 0;
      rescue_free(v);
    }
    rc = load_fields(c, &f[i].children, &f[i].n_children, err);
    i++;
    if (rc)
      return rc;
    if (oom)
      return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  }
  return 0;
}

/* Checks the grammar cannot express: label sets referenced by fields exist, no duplicates. */
static int check_scheme(const rescue_scheme *s, const rescue_field *f, int n, rescue_error *err) {
  int i, j;
  for (i = 0; i < n; i++) {
    for (j = 0; j < i; j++)
      if (strcmp(f[i].key, f[j].key) == 0)
        return rescue_seterr(err, RESCUE_ESCHEME, "field '%s' is defined twice", f[i].key);
    if (f[i].type == RESCUE_F_LABEL) {
      int found = 0;
      if (!f[i].labels)
        return rescue_seterr(err, RESCUE_ESCHEME, "label field '%s' names no labelset", f[i].key);
      for (j = 0; j < s->n_labelsets; j++)
        if (strcmp(s->labelsets[j].name, f[i].labels) == 0)
          found = 1;
      if (!found)
        return rescue_seterr(err, RESCUE_ESCHEME, "field '%s' uses unknown labelset '%s'", f[i].key,
                             f[i].labels);
    }
    if (f[i].type != RESCUE_F_LIST && f[i].n_children)
      return rescue_seterr(err, RESCUE_ESCHEME, "field '%s' has nested fields but is not a list",
                           f[i].key);
    if (check_scheme(s, f[i].children, f[i].n_children, err))
      return err ? err->code : RESCUE_ESCHEME;
  }
  return 0;
}

static int build(xmlNode *root, rescue_scheme *s, rescue_error *err) {
  xmlNode *c, *e;
  int oom = 0, nls = 0, ng = 0;
  char *v;
  s->name = attr(root, "name", &oom);
  if ((v = attr(root, "version", &oom))) {
    s->version = atoi(v);
    rescue_free(v);
  }
  s->n_labelsets = count_elems(root, "labelset");
  s->labelsets = rescue_calloc((size_t)s->n_labelsets + 1, sizeof *s->labelsets);
  if (!s->labelsets)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  for (c = root->children; c; c = c->next) {
    if (is_elem(c, "entities")) {
      s->n_groups = count_elems(c, "group");
      s->group_scenarios = rescue_calloc((size_t)s->n_groups + 1, sizeof(char *));
      s->group_labels = rescue_calloc((size_t)s->n_groups + 1, sizeof(char *));
      if (!s->group_scenarios || !s->group_labels)
        return rescue_seterr(err, RESCUE_ENOMEM, NULL);
      for (e = c->children; e; e = e->next) {
        if (is_elem(e, "reserved") && !s->therapist) {
          s->therapist = attr(e, "name", &oom);
        } else if (is_elem(e, "group")) {
          s->group_scenarios[ng] = attr(e, "scenario", &oom);
          s->group_labels[ng] = attr(e, "label", &oom);
          ng++;
        }
      }
    } else if (is_elem(c, "labelset")) {
      rescue_labelset *ls = &s->labelsets[nls++];
      int i = 0;
      ls->name = attr(c, "name", &oom);
      ls->scenario = attr(c, "scenario", &oom);
      ls->n = count_elems(c, "label");
      ls->labels = rescue_calloc((size_t)ls->n + 1, sizeof(char *));
      ls->descriptions = rescue_calloc((size_t)ls->n + 1, sizeof(char *));
      if (!ls->labels || !ls->descriptions)
        return rescue_seterr(err, RESCUE_ENOMEM, NULL);
      for (e = c->children; e; e = e->next) {
        if (!is_elem(e, "label"))
          continue;
        ls->labels[i] = attr(e, "name", &oom);
        ls->descriptions[i] = own_text(e, &oom);
        if (ls->labels[i] && rescue_labelset_find(ls, ls->labels[i]) != i) {
          return rescue_seterr(err, RESCUE_ESCHEME, "labelset '%s' lists '%s' twice", ls->name,
                               ls->labels[i]);
        }
        i++;
      }
    } else if (is_elem(c, "fields")) {
      int rc = load_fields(c, &s->fields, &s->n_fields, err);
      if (rc)
        return rc;
    }
  }
  if (oom)
    return rescue_seterr(err, RESCUE_ENOMEM, NULL);
  return check_scheme(s, s->fields, s->n_fields, err);
}

int rescue_scheme_load(const char *xml, size_t len, rescue_scheme **out, rescue_error *err) {
  xmlDoc *doc = NULL, *rngdoc = NULL;
  xmlRelaxNGParserCtxt *pctx = NULL;
  xmlRelaxNG *rng = NULL;
  xmlRelaxNGValidCtxt *vctx = NULL;
  rescue_buf msgs = RESCUE_BUF_INIT;
  rescue_scheme *s = NULL;
  int rc = 0;

  *out = NULL;
  xmlSetStructuredErrorFunc(&msgs, collect_error_cb);
  doc = xmlReadMemory(xml, (int)len, "scheme.xml", NULL, XML_PARSE_NONET);
  if (!doc) {
    rc = rescue_seterr(err, RESCUE_ESCHEME, "not well-formed XML: %s",
                       msgs.s ? msgs.s : "parse error");
    goto end;
  }
  pctx = xmlRelaxNGNewMemParserCtxt((const char *)rescue_scheme_rng, (int)rescue_scheme_rng_len);
  rng = pctx ? xmlRelaxNGParse(pctx) : NULL;
  vctx = rng ? xmlRelaxNGNewValidCtxt(rng) : NULL;
  if (!vctx) {
    rc = rescue_seterr(err, RESCUE_EINTERNAL, "cannot load the scheme grammar: %s",
                       msgs.s ? msgs.s : "unknown");
    goto end;
  }
  xmlRelaxNGSetValidStructuredErrors(vctx, collect_error_cb, &msgs);
  if (xmlRelaxNGValidateDoc(vctx, doc) != 0) {
    rc = rescue_seterr(err, RESCUE_ESCHEME, "does not follow the scheme grammar: %s",
                       msgs.s ? msgs.s : "invalid");
    goto end;
  }
  s = rescue_calloc(1, sizeof *s);
  if (!s) {
    rc = rescue_seterr(err, RESCUE_ENOMEM, NULL);
    goto end;
  }
  rc = build(xmlDocGetRootElement(doc), s, err);
  if (rc)
    goto end;
  *out = s;
  s = NULL;
end:
  xmlSetStructuredErrorFunc(NULL, NULL);
  rescue_scheme_free(&s);
  xmlRelaxNGFreeValidCtxt(vctx);
  xmlRelaxNGFree(rng);
  xmlRelaxNGFreeParserCtxt(pctx);
  xmlFreeDoc(rngdoc);
  xmlFreeDoc(doc);
  rescue_buf_clear(&msgs);
  return rc;
}

void rescue_scheme_free(rescue_scheme **sp) {
  rescue_scheme *s;
  int i, j;
  if (!sp || !*sp)
    return;
  s = *sp;
  rescue_free(s->name);
  rescue_free(s->therapist);
  for (i = 0; i < s->n_groups; i++) {
    if (s->group_scenarios)
      rescue_free(s->group_scenarios[i]);
    if (s->group_labels)
      rescue_free(s->group_labels[i]);
  }
  rescue_free(s->group_scenarios);
  rescue_free(s->group_labels);
  for (i = 0; s->labelsets && i < s->n_labelsets; i++) {
    rescue_labelset *ls = &s->labelsets[i];
    for (j = 0; j < ls->n; j++) {
      if (ls->labels)
        rescue_free(ls->labels[j]);
      if (ls->descriptions)
        rescue_free(ls->descriptions[j]);
    }
    rescue_free(ls->labels);
    rescue_free(ls->descriptions);
    rescue_free(ls->name);
    rescue_free(ls->scenario);
  }
  rescue_free(s->labelsets);
  free_fields(s->fields, s->n_fields);
  rescue_free(s);
  *sp = NULL;
}

const rescue_labelset *rescue_scheme_labelset(const rescue_scheme *s, const char *name,
                                              const char *scenario) {
  const rescue_labelset *generic = NULL;
  int i;
  for (i = 0; i < s->n_labelsets; i++) {
    const rescue_labelset *ls = &s->labelsets[i];
    if (strcmp(ls->name, name) != 0)
      continue;
    if (!ls->scenario)
      generic = ls;
    else if (scenario && strcmp(ls->scenario, scenario) == 0)
      return ls;
  }
  return generic;
}

int rescue_labelset_find(const rescue_labelset *ls, const char *label) {
  int i;
  for (i = 0; ls && i < ls->n; i++)
    if (ls->labels[i] && strcmp(ls->labels[i], label) == 0)
      return i;
  return -1;
}

const rescue_field *rescue_scheme_field(const rescue_scheme *s, const char *key) {
  int i;
  for (i = 0; i < s->n_fields; i++)
    if (strcmp(s->fields[i].key, key) == 0)
      return &s->fields[i];
  return NULL;
}

const rescue_field *rescue_field_child(const rescue_field *f, const char *key) {
  int i;
  for (i = 0; f && i < f->n_children; i++)
    if (strcmp(f->children[i].key, key) == 0)
      return &f->children[i];
  return NULL;
}

const char *rescue_scheme_group_label(const rescue_scheme *s, const char *scenario) {
  int i;
  for (i = 0; i < s->n_groups; i++)
    if (scenario && strcmp(s->group_scenarios[i], scenario) == 0)
      return s->group_labels[i];
  return NULL;
}

int rescue_scheme_is_reserved(const rescue_scheme *s, const char *name) {
  int i;
  if (s->therapist && strcmp(s->therapist, name) == 0)
    return 1;
  for (i = 0; i < s->n_groups; i++)
    if (strcmp(s->group_labels[i], name) == 0)
      return 1;
  return 0;
}

/* The empty value of a field type: "" for one string, [] for a list, null for a number. */
static void blank_value(rescue_jw *w, rescue_ftype type) {
  switch (type) {
  case RESCUE_F_TEXT:
  case RESCUE_F_LABEL:
  case RESCUE_F_ENTITY: rescue_jw_str(w, ""); return;
  case RESCUE_F_ENTITIES:
  case RESCUE_F_INTS:
  case RESCUE_F_LIST:
    rescue_jw_arr(w);
    rescue_jw_end(w);
    return;
  case RESCUE_F_NUMBER:
  case RESCUE_F_INT: rescue_jw_null(w); return;
  }
}

void rescue_scheme_blank_row(const rescue_scheme *s, const rescue_row_seed *seed,
                             struct rescue_jw *w) {
  int i;
  for (i = 0; i < s->n_fields; i++) {
    const char *k = s->fields[i].key;
    if (!s->fields[i].required && strcmp(k, "row_index") != 0)
      continue;
    rescue_jw_key(w, k);
    if (strcmp(k, "start_time") == 0)
      rescue_jw_double(w, seed->start);
    else if (strcmp(k, "end_time") == 0)
      rescue_jw_double(w, seed->end);
    else if (strcmp(k, "primary_speaker") == 0)
      rescue_jw_str(w, seed->speaker ? seed->speaker : "");
    else if (strcmp(k, "dialogue_cleaned") == 0)
      rescue_jw_str(w, seed->text ? seed->text : "");
    else if (strcmp(k, "row_index") == 0)
      rescue_jw_int(w, seed->index);
    else
      blank_value(w, s->fields[i].type);
  }
}
