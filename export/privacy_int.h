/*
** privacy_int.h: what the privacy modules (pseudonym.c, pseudo_corpus.c, leakcheck.c)
** share: names in text (privacy_text.c) and a group's id. Private to the library.
*/
#ifndef RESCUE_PRIVACY_INT_H
#define RESCUE_PRIVACY_INT_H

#include <stddef.h>
#include <stdint.h>

#include "rescue_buf.h"
#include "rescue_privacy.h"
#include "rescue_scheme.h"
#include "rescue_store.h"

#pragma GCC visibility push(hidden)

/* A replacement: real -> pseudonym. */
typedef struct repl {
  const char *real, *pseudo;
  size_t rlen;
} repl;

/* qsort order of replacements: longest real name first, then by name. */
int pv_by_length_desc(const void *a, const void *b);
/* Is the character before byte i of s part of a word? */
int pv_word_before(const char *s, size_t i);
/* Is the character at byte i of s (len bytes) part of a word? */
int pv_word_after(const char *s, size_t len, size_t i);
/* 1 when name (nlen bytes) occurs in s at i as a whole word, any ASCII case. */
int pv_word_at(const char *s, size_t len, size_t i, const char *name, size_t nlen);
/* Append s with every whole-word occurrence of a real name of r replaced (longest first). */
void pv_replace_words(const repl *r, int n, const char *s, size_t len, rescue_buf *out);

/* Distinct names, in the order first added; the list owns its strings. */
typedef struct names {
  int n, cap;
  char **v;
} names;

/* Add s (len bytes) unless already there; 0 or RESCUE_ENOMEM. */
int pv_names_add(names *ns, const char *s, size_t len);
/* Free the strings and the list, leaving it empty; accepts an empty list. */
void pv_names_free(names *ns);

/*
** 1 when s (len bytes) names a reserved entity of the scheme (the therapist, a group
** label) in any ASCII case and spacing: "therapist", " THERAPIST ", "Family".
*/
int pv_reserved(const rescue_scheme *sc, const char *s, size_t len);

/*
** The map of what an export of view v (samples: only these, or NULL) holds: the groups
** of its samples and the participants named in the versions it shows (participants
** lists and person fields) and those of its groups that have a pseudonym (still replaced
** in free text), each with its current pseudonym, in the order of the whole
** map (rescue_pseudonym_map_load). Errors on st.
*/
int pv_map_of_view(rescue_store *st, const rescue_view *v, const char *const *samples, int n,
                   rescue_pseudonym_map *m);

/* The sample ids of a pseudonymised copy: the real real[i] is the copy's pseudo[i]. */
typedef struct pv_id_pairs {
  char **real, **pseudo;
  long n, cap;
} pv_id_pairs;

/* Free the pairs, leaving the list empty; accepts an empty list. */
void pv_id_pairs_clear(pv_id_pairs *p);

/*
** rescue_pseudo_corpus with the map m (pv_map_of_view) to pseudonymise by; ids (NULL: not
** wanted) receives the sample ids of the copy with their real ones.
*/
int pv_pseudo_corpus(rescue_store *st, const rescue_pseudo_opts *o, const rescue_pseudonym_map *m,
                     const char *dest_db, pv_id_pairs *ids, rescue_error *err);

/* rescue_leakcheck for the real names of map m. */
int pv_leakcheck(rescue_store *st, const rescue_pseudonym_map *m, const char *path,
                 rescue_leak_report *rep);

/*
** 1 when s (len bytes) is a common English word (leak_words.c), in any case, with or
** without a common ending (-s, -es, -ed, -d, -ing, -ly, -er, -est): never a name to review.
*/
int pv_common_word(const char *s, size_t len);

/* The id of the group called `name` in st: 0, or RESCUE_ENOTFOUND. */
int pv_group_id(rescue_store *st, const char *name, int64_t *id);

#pragma GCC visibility pop

#endif
