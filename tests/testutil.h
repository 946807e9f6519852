/*
** testutil.h: helpers shared by the Check suites: temporary folders, files, running the
** rescue binary, fixtures (RESCUE_FIXTURES), and "the store is unchanged" checks.
*/
#ifndef RESCUE_TESTUTIL_H
#define RESCUE_TESTUTIL_H

#include <check.h>
#include <stddef.h>

#include "rescue.h"

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

/*
** Run the rescue binary with the given arguments (NULL-terminated); capture stdout and
** stderr (caller frees; pass NULL to discard). Returns the exit status (or 128+signal).
*/
int tu_rescue(char **out, char **err, ...);
int tu_rescue_argv(const char *const *argv, char **out, char **err);

/* The fixtures folder; exits the suite with 77 (skip) when absent, or fails under
** RESCUE_REQUIRE_FIXTURES=1. */
const char *tu_fixtures(void);
/*
** The fixtures folder, or NULL when absent (said on stderr) for a suite that runs its
** other tests and skips the ones that need fixtures; fails under RESCUE_REQUIRE_FIXTURES=1.
*/
const char *tu_fixtures_optional(void);

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

/* Run a suite and return the process exit status for main(). */
int tu_run_suite(Suite *s);

#endif
