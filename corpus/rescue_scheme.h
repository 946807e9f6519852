/*
** rescue_scheme.h: the annotation scheme as data (public).
** A scheme (schema/rescue.xml is the default, built into the library) names the
** reserved entities, the closed label sets (per scenario where they differ) and every
** row field with its type, range and measurement level. It is validated against
** schema/rescue.rng with libxml2 when loaded.
*/
#ifndef RESCUE_SCHEME_H
#define RESCUE_SCHEME_H

#include <stddef.h>

#include "rescue_error.h"

typedef enum rescue_ftype {
  RESCUE_F_NUMBER,   /* a JSON number, maybe within [min, max] */
  RESCUE_F_INT,      /* an integer */
  RESCUE_F_TEXT,     /* free text */
  RESCUE_F_ENTITY,   /* one entity of the sample's set */
  RESCUE_F_ENTITIES, /* a list of entities */
  RESCUE_F_LABEL,    /* one label of a label set, or empty */
  RESCUE_F_INTS,     /* a list of row numbers */
  RESCUE_F_LIST      /* a list of objects whose members are the child fields */
} rescue_ftype;

typedef struct rescue_field rescue_field;
struct rescue_field {
  char *key;
  rescue_ftype type;
  char *labels; /* LABEL: name of the label set */
  int has_min, has_max;
  double min, max;
  char *unit;        /* or NULL */
  int required;      /* the key must be present (annotate/LINT.md R01) */
  char *rows;        /* "client", "therapist" or NULL: which rows may carry a value */
  char *level;       /* agreement level ("nominal", "interval", "masi"...) or NULL */
  char *description; /* one line for people */
  int n_children;
  rescue_field *children;
};

typedef struct rescue_labelset {
  char *name;
  char *scenario; /* NULL: applies to every scenario */
  int n;
  char **labels; /* in scheme order (the paper's table order) */
  char **descriptions;
} rescue_labelset;

typedef struct rescue_scheme {
  char *name;
  int version;
  char *therapist; /* the reserved practitioner entity ("Therapist") */
  int n_groups;
  char **group_scenarios; /* "couple", "family" */
  char **group_labels;    /* "Couple", "Family" */
  int n_labelsets;
  rescue_labelset *labelsets;
  int n_fields;
  rescue_field *fields; /* row fields in release key order */
} rescue_scheme;

/* The default scheme's XML text (schema/rescue.xml as built in); *len gets its size. */
const char *rescue_scheme_default_xml(size_t *len);

/*
** Parse and validate a scheme. On success *out owns a new scheme (free it with
** rescue_scheme_free). On failure returns RESCUE_ESCHEME with line-numbered messages.
*/
int rescue_scheme_load(const char *xml, size_t len, rescue_scheme **out, rescue_error *err);
void rescue_scheme_free(rescue_scheme **s);

/* The label set `name` for a scenario (a scenario-specific set wins over a generic one). */
const rescue_labelset *rescue_scheme_labelset(const rescue_scheme *s, const char *name,
                                              const char *scenario);
/* Index of label in the set, or -1. */
int rescue_labelset_find(const rescue_labelset *ls, const char *label);
/* The row field `key`, or NULL; rescue_field_child looks inside a list field. */
const rescue_field *rescue_scheme_field(const rescue_scheme *s, const char *key);
const rescue_field *rescue_field_child(const rescue_field *f, const char *key);
/* The group label of a scenario ("Couple"), or NULL. */
const char *rescue_scheme_group_label(const rescue_scheme *s, const char *scenario);
/* 1 when name is the practitioner or a group label. */
int rescue_scheme_is_reserved(const rescue_scheme *s, const char *name);

/* What a blank row starts from (a subtitle cue, an ELAN annotation); the rest is empty. */
typedef struct rescue_row_seed {
  double start, end;   /* start_time, end_time, seconds */
  const char *speaker; /* primary_speaker, or NULL for "" */
  const char *text;    /* dialogue_cleaned, or NULL for "" */
  long index;          /* row_index, 1-based */
} rescue_row_seed;

struct rescue_jw; /* rescue_json.h */
/*
** Write the members of a blank row of the scheme into the open JSON object w (the caller
** opens and closes it, and may add members after): every required field and row_index, in
** the scheme's order; start_time, end_time, primary_speaker, dialogue_cleaned and row_index
** from seed, every other one empty: "" for text, label and entity fields, [] for lists, null
** for a number. With the default scheme:
**   {"start_time": 1.5, "end_time": 3, "primary_speaker": "Ann", "target": [],
**    "dialogue_cleaned": "Hi.", "utterance_type": "", "background_dialogue": [],
**    "tone_of_voice": "", "body_posture": [], ... "support_strategy": [], "row_index": 1}
*/
void rescue_scheme_blank_row(const rescue_scheme *s, const rescue_row_seed *seed,
                             struct rescue_jw *w);

#endif
