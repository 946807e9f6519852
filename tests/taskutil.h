/*
** taskutil.h: helpers shared by the task, split, score and stats suites: hand-made
** samples as JSONL, a corpus from them, task exports, and reading JSONL back (jansson).
*/
#ifndef RESCUE_TASKUTIL_H
#define RESCUE_TASKUTIL_H

#include <jansson.h>

#include "testutil.h"

/* Start a sample object in b: {"sample_id": id, [head members,] "rows": [ */
void tt_sample_open(rescue_buf *b, const char *id, const char *head);
/*
** One row: speaker and targets as JSON text (e.g. "\"Alan\"", "[\"Therapist\"]"), the
** dialogue as plain text (escaped here), extra members as JSON text ("" for none).
** start_time = 2 * (row index), end_time = start_time + 1.5.
*/
void tt_row(rescue_buf *b, const char *speaker, const char *targets, const char *dialogue,
            const char *extra);
/* Close the sample: ]} and a newline. */
void tt_sample_close(rescue_buf *b);

/* A new corpus holding the JSONL text (imported through the library); caller frees. */
char *tt_corpus(const char *jsonl);
/* Export tasks from db into a new folder (returned, caller frees); asserts success.
   opts may be NULL for the defaults; res may be NULL. */
char *tt_export(const char *db, const rescue_tasks_opts *opts, rescue_tasks_result *res);
/* Every line of a JSONL file as a JSON array (asserts each parses). */
json_t *tt_jsonl(const char *path);
/* The record whose key equals value, or NULL. */
json_t *tt_find(json_t *records, const char *key, const char *value);
/* A string member (asserted present and a string). */
const char *tt_str(json_t *o, const char *key);
/* The lines of a file that contain needle, concatenated (caller frees). */
char *tt_lines_with(const char *path, const char *needle);
/* An integer member (asserted). */
long long tt_int(json_t *o, const char *key);

#endif
