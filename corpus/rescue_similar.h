/*
** rescue_similar.h: "did you mean" helpers (public): a bounded edit distance and the
** closest names of a list, used by import's typo warnings and lint's label suggestions.
*/
#ifndef RESCUE_SIMILAR_H
#define RESCUE_SIMILAR_H

#include <stddef.h>

#include "rescue_json.h"
#include "rescue_scheme.h"

/*
** The optimal-string-alignment distance (insertions, deletions, substitutions and swaps
** of two neighbours, each costing 1) between a and b, comparing ASCII letters without
** case. Stops early: returns max + 1 as soon as the distance is known to exceed max.
** Strings longer than 64 bytes are compared only for equality (distance 0 or max + 1).
*/
int rescue_edit_distance(const char *a, const char *b, int max);

/*
** The closest names to s among cands[0..n): every candidate at the smallest distance
** found (at most max_dist; a candidate that starts with s, or that s starts with, counts
** as distance 1 when s has 3 bytes or more), at most max_out of them in list order,
** written as indexes to out. Returns how many were written (0: none close enough).
*/
int rescue_closest(const char *s, const char *const *cands, int n, int max_dist, int *out,
                   int max_out);

/* A sensible max_dist for a word of this length: 1 up to 4 bytes, 2 up to 8, else 3. */
int rescue_typo_budget(const char *s);

/*
** Keys that look like typos of the scheme's names in one sample object: a sample-level
** key close to sample_id, scenario, participants, source_file or rows; a row key close to
** a row field; a key of a list item close to that list's member fields. A key that is
** exactly a known name is never reported. For each, cb gets the key's value node (for its
** position), the key, the name it resembles, the 1-based row (0 at sample level) and the
** list field ("" outside list items). Returns how many were reported.
*/
typedef void (*rescue_typo_cb)(void *arg, const rescue_jnode *value, const char *key,
                               const char *resembles, int row, const char *list);
int rescue_typos_scan(const rescue_scheme *sc, const rescue_jnode *sample, rescue_typo_cb cb,
                      void *arg);

#endif
