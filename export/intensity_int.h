/*
** intensity_int.h: reading an intensity (export/TASKS.md §2.5) the way the release scripts
** do, int(round(float(v))), once for every reader: task export, label statistics, scoring.
** Private to the library.
*/
#ifndef RESCUE_INTENSITY_INT_H
#define RESCUE_INTENSITY_INT_H

#include <stddef.h>

#include "rescue_buf.h"
#include "rescue_json.h"

#pragma GCC visibility push(hidden)

/*
** Python's float() of the string s[0..len): surrounding whitespace stripped, any Unicode
** decimal digits read as digits, single underscores between digits, the words inf, infinity
** and nan in any case; no hex. Returns 0 with *out, or -1 where float() would raise. tmp is
** scratch space (the caller's, reused across calls).
*/
int rescue_pyfloat(const char *s, size_t len, rescue_buf *tmp, double *out);

/*
** An intensity as the scripts read it, int(round(float(v))): numbers, booleans and numeric
** strings, rounded half to even, kept when 0..10. Returns the intensity, or -1 with *why
** saying what it is instead ("absent", "a list", "a string that is not a number", "not
** finite", "outside 0..10"). tmp is scratch space for strings.
**   7.5 -> 8;  6.5 -> 6;  " 1_0 " -> 10;  true -> 1;  "nan" -> -1 (not finite)
*/
int rescue_intensity(const rescue_jnode *v, rescue_buf *tmp, const char **why);

#pragma GCC visibility pop

#endif
