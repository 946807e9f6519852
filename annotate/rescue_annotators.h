/*
** rescue_annotators.h: the people and models who annotate (public): adding them with a
** role and a sign-in token for the review server, listing them with their work, and
** dealing samples out to them (assignment runs, each recorded, the latest in use).
*/
#ifndef RESCUE_ANNOTATORS_H
#define RESCUE_ANNOTATORS_H

#include <stdint.h>

#include "rescue_store.h"

/*
** RESCUE_ADJUDICATION_ANNOTATOR ("adjudication", gold) and RESCUE_DRAFT_ANNOTATOR
** ("import", drafts), the two pseudo-annotators, are defined in rescue_store.h.
*/

/* rescue_annotator_name_invalid (the annotator-name rule) is in rescue_store.h. */
/* 1 for "annotator", "lead", "model". */
int rescue_annotator_role_valid(const char *role);

/* Hex SHA-256 of a token (what the store keeps). */
void rescue_token_hash(const char *token, char hex[65]);

/*
** Add annotator `name` with `role` (NULL: "annotator") and issue a sign-in token: 64 hex
** characters from the system's random source, written to token; only its SHA-256 is
** stored. An existing annotator without a token (one an import created) gets a token, and
** the role when one is given; *existed is set then. An existing annotator with a token is
** RESCUE_EEXISTS. Runs its own transaction.
*/
int rescue_annotator_add(rescue_store *st, const char *name, const char *role, char token[65],
                         int *existed);

/* rescue_annotator_lookup (a registered annotator by name) is in rescue_store.h. */

/*
** Retire annotator `name` (reason required): their versions stay in the store and its
** history, but leave every view, agreement and adjudication. Unretire brings them back
** (reason optional) without a sign-in token: they need a new one (rescue_annotator_rotate),
** so the old token and its sessions stay ended. Both are recorded with the time; each runs its own transaction.
** RESCUE_EINVAL when already in that state or when a reason is missing.
*/
int rescue_annotator_retire(rescue_store *st, const char *name, const char *reason);
int rescue_annotator_unretire(rescue_store *st, const char *name, const char *reason);

/*
** Issue annotator `name` a new sign-in token (64 hex characters into token) in place of
** the one they have, if any: the old token stops working and a review server ends the
** sessions signed in with it at their next request. RESCUE_ENOTFOUND for an unknown name,
** RESCUE_ERETIRED for a retired one (unretire first).
*/
int rescue_annotator_rotate(rescue_store *st, const char *name, char token[65]);

/* The annotator whose token this is (RESCUE_ENOTFOUND otherwise): the review server's sign-in. */
int rescue_annotator_by_token(rescue_store *st, const char *token, int64_t *id);

typedef struct rescue_annotator_info {
  int64_t id;
  char *name, *role, *created_at;
  int has_token;
  long versions; /* row versions (not gold) */
  long gold;     /* gold versions written under this name */
  long samples;  /* samples with a version of theirs */
  long assigned; /* samples assigned in the latest run */
  long shared;   /* of those, also assigned to someone else */
  int retired;   /* 1: retired (rescue_annotator_retire) */
} rescue_annotator_info;

typedef struct rescue_assign_run {
  int64_t id; /* 0: no assignment yet */
  uint64_t seed;
  double overlap;
  char *annotators;
  char *created_at;
} rescue_assign_run;

/* Every annotator (by name) with their work, and the assignment run in use. */
int rescue_annotator_list(rescue_store *st, rescue_annotator_info **out, int *n,
                          rescue_assign_run *run);
void rescue_annotator_list_free(rescue_annotator_info **list, int n, rescue_assign_run *run);

typedef struct rescue_assign_opts {
  const char *const *annotators; /* names of existing annotators (not models) */
  int n_annotators;
  double overlap; /* share of samples that get two reviewers, 0..1 */
  uint64_t seed;
} rescue_assign_opts;

typedef struct rescue_assign_result {
  int64_t run_id;
  long samples, groups; /* dealt out */
  long double_samples, double_groups;
  long *per_annotator;        /* samples per annotator, in the order given (owned) */
  long *shared_per_annotator; /* of those, shared (owned) */
} rescue_assign_result;

/*
** Deal the samples that are not discarded out to the annotators: every sample gets one,
** and about `overlap` of them (whole groups, chosen in each scenario separately, so both
** scenarios are covered) get two. Groups stay whole: all samples of a couple or family go
** to the same people. The load is balanced by samples; pairs rotate. Deterministic for a
** seed. Recorded as a new run (history kept) in one transaction. Every name must be a
** registered annotator: an unknown one is RESCUE_ENOANNOTATOR (message with the closest
** registered names), a retired one RESCUE_ERETIRED, a model or a name listed twice
** RESCUE_EINVAL (err->arg: the name for the first two); nothing is written then.
*/
int rescue_assign(rescue_store *st, const rescue_assign_opts *o, rescue_assign_result *res);
void rescue_assign_result_clear(rescue_assign_result *res);

/* The sample ids assigned to an annotator in the latest run ("assigned to me"). */
int rescue_assigned_samples(rescue_store *st, int64_t annotator_id, char ***ids, int *n);
void rescue_assigned_samples_free(char ***ids, int n);

#endif
