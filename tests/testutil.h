/*
** testutil.h: helpers shared by the Check suites: temporary folders, files, running the
** rescue binary, fixtures (RESCUE_FIXTURES), and "the store is unchanged" checks.
*/
#ifndef RESCUE_TESTUTIL_H
#define RESCUE_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "rescue.h"
#include "testhooks_int.h"

/* A new empty folder under $TMPDIR (or /tmp); caller frees the string. */
char *tu_tmpdir(void);
/* path = dir + "/" + name in a static ring of buffers (valid for a few calls). */
const char *tu_path(const char *dir, const char *name);
/* Read a whole file (NUL-terminated); NULL if it cannot be read. */
char *tu_read(const char *path, size_t *len);
/* Write text to a file, creating parent folders; aborts the test on failure. */
void tu_write(const char *path, const char *text);
void tu_write_n(const char *path, const void *data, size_t len);
/*
** 1 when two corpora hold the same rows in every table except the audit log (what a
** finished export adds to a corpus).
*/
int tu_same_corpus_except_log(const char *a, const char *b);
/* 1 when the two files have the same bytes. */
int tu_same_file(const char *a, const char *b);
/* A copy of the store file at "<db>.before" (its path in copy), to compare after a refused
   command. */
void tu_snapshot(const char *db, char *copy, size_t n);

/*
** The CLI tu_rescue runs: the shipped `rescue` (RESCUE_BIN) unless a suite sets it, before
** running, to RESCUE_TEST_BIN (rescue-test: the same CLI over the test build of the library,
** with its crash points).
*/
extern const char *tu_rescue_bin;

/*
** Run tu_rescue_bin with the given arguments (NULL-terminated); capture stdout and
** stderr (caller frees; pass NULL to discard). Returns the exit status (or 128+signal).
*/
int tu_rescue(char **out, char **err, ...);
int tu_rescue_argv(const char *const *argv, char **out, char **err);
/* Run tu_rescue_bin with argv, expecting exit status want; returns stderr (caller frees). */
char *tu_run_err(int want, const char *const *argv);

/* The fixtures folder; exits the suite with 77 (skip) when absent, or fails under
** RESCUE_REQUIRE_FIXTURES=1. */
const char *tu_fixtures(void);
/*
** The fixtures folder, or NULL when it is absent: a suite then leaves out the tests that
** need it and ends with tu_run_suite_skipping. Under RESCUE_REQUIRE_FIXTURES=1 an absent
** folder fails the suite (exit 1) instead.
*/
const char *tu_fixtures_if_present(void);

/* A fresh corpus in a new temp folder; returns its path (caller frees). */
char *tu_new_corpus(void);

/*
** Link a video to a sample with 'rescue media add' (start/end: the sample's span in it, or
** NULL for none); fails the test when the command does.
*/
void tu_link_media(const char *db, const char *video, const char *sample, const char *start,
                   const char *end);
/* ffprobe's container duration of a media file, in seconds (-1 when it prints none). */
double tu_ffprobe_duration(const char *path);

/*
** A suite's test media, made in main() before its tests run (Check's asserts work only
** inside tests), with libav's messages quieted (rescue_media_quiet): a new folder
** /tmp/rescue-<tag>-XXXXXX and in it the synthesizer's default source (rescue_synth_media)
** written as each name of the NULL-terminated list: a ".ts" name starting 10 s in, a ".m4a"
** one sound only. threads: the encoder's (0: automatic). The folder (tu_run_media_suite
** removes and frees it), or NULL with the reason on stderr.
*/
char *tu_make_media(const char *tag, int threads, ...);
/* tu_run_suite, then the tu_make_media folder removed with all it holds, and freed. */
int tu_run_media_suite(Suite *s, char *media_dir);

/*
** A corpus made from the real fixture's first sample (tu_fixtures(), 16 rows) as the draft,
** with three coders who disagree and a lead: ann neither splits nor merges (row 2 and 9
** utterance types disclosure and recollection, row 5 tone "flat"), bob merges rows 7 and 8,
** cat splits row 6 at 37.5 s (rows 2 and 9 as ann), lea is the lead and annotated nothing.
** Returns the database path (caller frees); the coders' files are beside it.
*/
char *tu_fixture_coders(void);

/*
** The JSON object row written again with member key's value replaced by the JSON text raw
** (the other members as they are): a row with one edit, for tests that save or lint it.
** Caller frees.
*/
char *tu_row_with(const rescue_jnode *row, const char *key, const char *raw);

/* Run a suite and return the process exit status for main(). */
int tu_run_suite(Suite *s);
/*
** tu_run_suite for a suite that left tests out (skipped: how many, 0 for none): 1 when a
** test that ran failed, else 77 (ctest: SKIPPED) when tests were left out, else 0.
*/
int tu_run_suite_skipping(Suite *s, int skipped);

#endif
