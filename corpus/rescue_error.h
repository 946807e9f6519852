/*
** rescue_error.h: the one error table of the toolkit (public).
** RESCUE_ERRORS generates the enum, rescue_errname() and rescue_strerror(); every
** library function returns 0 or one of these negative codes and leaves a detailed
** message (with file:line:column for bad input) in a rescue_error it was given.
*/
#ifndef RESCUE_ERROR_H
#define RESCUE_ERROR_H

#include <stdarg.h>
#include <stddef.h>

#define RESCUE_ERRORS(X)                                                    \
  X(NOMEM, -1, "out of memory")                                             \
  X(IO, -2, "input/output error")                                           \
  X(SQL, -3, "database error")                                              \
  X(NOTCORPUS, -4, "not a rescue corpus")                                   \
  X(BADINPUT, -5, "bad input")                                              \
  X(EXISTS, -6, "already exists")                                           \
  X(NOTFOUND, -7, "not found")                                              \
  X(INVAL, -8, "invalid argument")                                          \
  X(BUSY, -9, "corpus busy, try again")                                     \
  X(SCHEME, -10, "invalid annotation scheme")                               \
  X(VERSION, -11, "corpus was written by a newer rescue")                   \
  X(MEDIA, -12, "media error")                                              \
  X(PARTIAL, -13, "finished with failures")                                 \
  X(INTERNAL, -14, "internal error")                                        \
  X(CONFLICT, -15, "changed since it was read")

typedef enum rescue_errcode {
  RESCUE_OK = 0,
#define RESCUE_ERR_ENUM_(name, code, msg) RESCUE_E##name = code,
  RESCUE_ERRORS(RESCUE_ERR_ENUM_)
#undef RESCUE_ERR_ENUM_
} rescue_errcode;

/* The detailed outcome of a call: a code and one line of text (no trailing newline). */
typedef struct rescue_error {
  int code;
  char msg[1024];
} rescue_error;

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
/* Prefix the current message with "prefix: " (used to add a file name). */
void rescue_err_prefix(rescue_error *err, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Reset to success. */
void rescue_clearerr(rescue_error *err);

#endif
