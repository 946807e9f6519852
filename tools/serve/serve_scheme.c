/*
** serve_scheme.c: GET /api/scheme: the corpus's annotation scheme (practitioner, group
** labels, label sets, fields) as the page's form needs it.
*/
#include "serve_impl.h"

/* One field of the scheme, with its children. */
static void put_field(rescue_jw *w, const rescue_field *f) {
  static const char *const types[] = {"number",   "int",   "text", "entity",
                                      "entities", "label", "ints", "list"};
  int i;
  rescue_jw_obj(w);
  rescue_jw_key(w, "key");
  rescue_jw_str(w, f->key);
  rescue_jw_key(w, "type");
  rescue_jw_str(w, types[f->type]);
  if (f->labels) {
    rescue_jw_key(w, "labels");
    rescue_jw_str(w, f->labels);
  }
  if (f->has_min) {
    rescue_jw_key(w, "min");
    rescue_jw_double(w, f->min);
  }
  if (f->has_max) {
    rescue_jw_key(w, "max");
    rescue_jw_double(w, f->max);
  }
  if (f->rows) {
    rescue_jw_key(w, "rows");
    rescue_jw_str(w, f->rows);
  }
  rescue_jw_key(w, "required");
  rescue_jw_bool(w, f->required);
  rescue_jw_key(w, "description");
  rescue_jw_str(w, f->description ? f->description : "");
  if (f->n_children) {
    rescue_jw_key(w, "fields");
    rescue_jw_arr(w);
    for (i = 0; i < f->n_children; i++)
      put_field(w, &f->children[i]);
    rescue_jw_end(w);
  }
  rescue_jw_end(w);
}

/* GET /api/scheme: the annotation scheme, which drives the page's form. */
void api_scheme(srv_req *r) {
  const rescue_scheme *sc = rescue_store_scheme(r->st);
  rescue_jw w;
  int i, j;
  rescue_jw_init(&w, &r->out);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "therapist");
  rescue_jw_str(&w, sc->therapist);
  rescue_jw_key(&w, "groups");
  rescue_jw_obj(&w);
  for (i = 0; i < sc->n_groups; i++) {
    rescue_jw_key(&w, sc->group_scenarios[i]);
    rescue_jw_str(&w, sc->group_labels[i]);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "labelsets");
  rescue_jw_arr(&w);
  for (i = 0; i < sc->n_labelsets; i++) {
    const rescue_labelset *ls = &sc->labelsets[i];
    rescue_jw_obj(&w);
    rescue_jw_key(&w, "name");
    rescue_jw_str(&w, ls->name);
    rescue_jw_key(&w, "scenario");
    rescue_jw_str_or_null(&w, ls->scenario);
    rescue_jw_key(&w, "labels");
    rescue_jw_arr(&w);
    for (j = 0; j < ls->n; j++) {
      rescue_jw_obj(&w);
      rescue_jw_key(&w, "name");
      rescue_jw_str(&w, ls->labels[j]);
      rescue_jw_key(&w, "description");
      rescue_jw_str(&w, ls->descriptions[j] ? ls->descriptions[j] : "");
      rescue_jw_end(&w);
    }
    rescue_jw_end(&w);
    rescue_jw_end(&w);
  }
  rescue_jw_end(&w);
  rescue_jw_key(&w, "fields");
  rescue_jw_arr(&w);
  for (i = 0; i < sc->n_fields; i++)
    put_field(&w, &sc->fields[i]);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  r->status = 200;
}
