/*
** error.c: messages for the error table in rescue_error.h.
*/
#include <stdio.h>
#include <string.h>

#include "rescue_error.h"

const char *rescue_strerror(int code) {
  switch (code) {
  case 0: return "success";
#define RESCUE_ERR_MSG_(name, c, msg)                                                              \
  case c: return msg;
    RESCUE_ERRORS(RESCUE_ERR_MSG_)
#undef RESCUE_ERR_MSG_
  }
  return "unknown error";
}

const char *rescue_errname(int code) {
  switch (code) {
  case 0: return "OK";
#define RESCUE_ERR_NAME_(name, c, msg)                                                             \
  case c: return #name;
    RESCUE_ERRORS(RESCUE_ERR_NAME_)
#undef RESCUE_ERR_NAME_
  }
  return "UNKNOWN";
}

int rescue_vseterr(rescue_error *err, int code, const char *fmt, va_list ap) {
  if (err) {
    err->code = code;
    err->arg[0] = 0;
    if (fmt)
      vsnprintf(err->msg, sizeof err->msg, fmt, ap);
    else
      snprintf(err->msg, sizeof err->msg, "%s", rescue_strerror(code));
  }
  return code;
}

int rescue_seterr(rescue_error *err, int code, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rescue_vseterr(err, code, fmt, ap);
  va_end(ap);
  return code;
}

int rescue_seterr_arg(rescue_error *err, int code, const char *arg, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  rescue_vseterr(err, code, fmt, ap);
  va_end(ap);
  if (err && arg)
    snprintf(err->arg, sizeof err->arg, "%s", arg);
  return code;
}

int rescue_err_recode(rescue_error *err, int code, const char *arg) {
  if (err) {
    err->code = code;
    snprintf(err->arg, sizeof err->arg, "%s", arg ? arg : "");
  }
  return code;
}

void rescue_err_prefix(rescue_error *err, const char *fmt, ...) {
  char prefix[512], old[sizeof err->msg];
  va_list ap;
  if (!err)
    return;
  va_start(ap, fmt);
  vsnprintf(prefix, sizeof prefix, fmt, ap);
  va_end(ap);
  memcpy(old, err->msg, sizeof old);
  /* prefix, ": ", old message, cut to fit */
  {
    size_t n = strlen(prefix), cap = sizeof err->msg - 1, m;
    if (n > cap)
      n = cap;
    memcpy(err->msg, prefix, n);
    m = n + 2 <= cap ? 2 : cap - n;
    memcpy(err->msg + n, ": ", m);
    n += m;
    m = strnlen(old, sizeof old);
    if (m > cap - n)
      m = cap - n;
    memcpy(err->msg + n, old, m);
    err->msg[n + m] = 0;
  }
}

void rescue_clearerr(rescue_error *err) {
  if (err) {
    err->code = 0;
    err->msg[0] = 0;
    err->arg[0] = 0;
  }
}
