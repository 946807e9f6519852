/*
** rescue_error.h: the one error table of the toolkit (public).
** RESCUE_ERRORS generates the enum, rescue_errname() and rescue_strerror(); every
** library function returns 0 or one of these negative codes and leaves a detailed
** message (with file:line:column for bad input) in a rescue_error it was given.
** The messages describe the failure only; what to do next in a client's terms (a CLI
** flag, a command to run) is the client's to add, keyed on the code: the codes from
** NOTEMPTY on exist so that a client can tell those failures apart and give that advice.
*/
#ifndef RESCUE_ERROR_H
#define RESCUE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define RESCUE_ERRORS(X)                                                                           \
  X(NOMEM, -1, "out of memory")                                                                    \
  X(IO, -2, "input/output error")                                                                  \
  X(SQL, -3, "database error")                                                                     \
  X(NOTCORPUS, -4, "not a rescue corpus")                                                          \
  X(BADINPUT, -5, "bad input")                                                                     \
  X(EXISTS, -6, "already exists")                                                                  \
  X(NOTFOUND, -7, "not found")                                                                     \
  X(INVAL, -8, "invalid argument")                                                                 \
  X(BUSY, -9, "corpus busy, try again")                                                            \
  X(SCHEME, -10, "invalid annotation scheme")                                                      \
  X(VERSION, -11, "corpus was written by a newer rescue")                                          \
  X(MEDIA, -12, "media error")                                                                     \
  X(PARTIAL, -13, "finished with failures")                                                        \
  X(INTERNAL, -14, "internal error")                                                               \
  X(CONFLICT, -15, "changed since it was read")                                                    \
  /* an output exists and is not empty (replacing it needs the force flag) */                      \
  X(NOTEMPTY, -16, "output already exists")                                                        \
  /* the output to replace is not rescue's own (a corpus, a user's files) */                       \
  X(NOTOURS, -17, "not rescue's own output")                                                       \
  /* imported rows do not line up with the corpus's (needs a resegment) */                         \
  X(RESEGMENT, -18, "rows differ from the corpus's row set")                                       \
  /* the annotator the caller named is retired; arg: the name */                                   \
  X(RETIRED, -19, "annotator is retired")                                                          \
  /* the annotator an input file names is retired; arg: the name */                                \
  X(FILERETIRED, -20, "the file's annotator is retired")                                           \
  /* no annotator by the name given, or none at all; arg: the name */                              \
  X(NOANNOTATOR, -21, "no such annotator")                                                         \
  /* the corpus has no lead annotator to adjudicate as */                                          \
  X(NOLEAD, -22, "no lead annotator")                                                              \
  /* the corpus has several leads and none was chosen */                                           \
  X(LEADS, -23, "several lead annotators")                                                         \
  /* a linked media file changed since it was linked */                                            \
  X(MEDIACHANGED, -24, "media changed since it was linked")                                        \
  /* no media file is linked to the samples asked for */                                           \
  X(NOMEDIA, -25, "no media linked")                                                               \
  /* the corpus has no split run (or the run does not cover a group) */                            \
  X(NOSPLIT, -26, "no split")                                                                      \
  /* rows lack gold labels (nothing adjudicated) */                                                \
  X(NOGOLD, -27, "rows without gold")                                                              \
  /* a (gold) record of another task; arg: that task's name */                                     \
  X(OTHERTASK, -28, "a record of another task")                                                    \
  /* too many predictions are missing or invalid to score */                                       \
  X(UNUSABLE, -29, "too many unusable predictions")                                                \
  /* an output folder is being written by another run (it holds the lock) */                       \
  X(LOCKED, -30, "output is being written by another run")                                         \
  /* predictions that belong to another task; arg: that task's name */                             \
  X(PREDTASK, -31, "predictions of another task")

typedef enum rescue_errcode {
  RESCUE_OK = 0,
#define RESCUE_ERR_ENUM_(name, code, msg) RESCUE_E##name = code,
  RESCUE_ERRORS(RESCUE_ERR_ENUM_)
#undef RESCUE_ERR_ENUM_
} rescue_errcode;

/*
** The detailed outcome of a call: a code, one line of text (no trailing newline) and, for
** some failures, a name in arg ("" otherwise) that a client can use in its advice without
** parsing the message: for RESCUE_EINVAL and RESCUE_EBADINPUT the option at fault, named
** as the options struct names it ("tasks", "sample"); for the codes whose comment in the
** table says so, the annotator or task the failure is about.
*/
typedef struct rescue_error {
  int code;
  char msg[1024];
  char arg[256];
} rescue_error;
/* A success, to start from: rescue_error err = RESCUE_ERROR_INIT; */
#define RESCUE_ERROR_INIT                                                                          \
  { 0, "", "" }

/* Short lowercase message of a code ("out of memory"); "unknown error" for others. */
const char *rescue_strerror(int code);
/* Name of a code ("NOMEM"); "OK" for 0. */
const char *rescue_errname(int code);

/*
** Record an error in *err (which may be NULL) and return code, so a caller can
** write `return rescue_seterr(err, RESCUE_EBADINPUT, "%s:%d:%d: ...", ...)`.
*/
int rescue_seterr(rescue_error *err, int code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
int rescue_vseterr(rescue_error *err, int code, const char *fmt, va_list ap);
/* rescue_seterr that also records arg (the name the failure is about; may be NULL). */
int rescue_seterr_arg(rescue_error *err, int code, const char *arg, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Give an error already set a more precise code and arg (may be NULL), keeping its message;
** returns code. */
int rescue_err_recode(rescue_error *err, int code, const char *arg);
/* Prefix the current message with "prefix: " (used to add a file name). */
void rescue_err_prefix(rescue_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reset to success. */
void rescue_clearerr(rescue_error *err);

#endif
