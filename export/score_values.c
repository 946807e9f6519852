/*
** score_values.c: how `rescue score` reads one predicted value under each protocol
** (Python truthiness, the should_speak words; intensities through export/intensity.c).
*/
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "rescue_alloc.h"
#include "rescue_json.h"
#include "rescue_score.h"
#include "strmap_int.h"

#include "score_int.h"

/* ---- values ---- */

/* The one cleaning rule (rescue_jclean) into r->tmp, reset first; returns the length. */
size_t score_clean(rescue_score_report *r, const rescue_jnode *v) {
  rescue_buf_reset(&r->tmp);
  rescue_buf_putn(&r->tmp, "", 0);
  return rescue_jclean(&r->tmp, v);
}

/* Python truthiness of a value (absent: false). */
int score_truthy(const rescue_jnode *v) {
  if (!v)
    return 0;
  switch (v->type) {
  case RESCUE_JNULL:
  case RESCUE_JFALSE: return 0;
  case RESCUE_JTRUE: return 1;
  case RESCUE_JNUMBER: return v->num != 0;
  case RESCUE_JSTRING:
  case RESCUE_JARRAY:
  case RESCUE_JOBJECT: return v->len > 0;
  }
  return 0;
}

/* A NaN or an infinity anywhere in v. */
int score_nonfinite(const rescue_jnode *v) {
  const rescue_jnode *c;
  if (!v)
    return 0;
  if (v->type == RESCUE_JNUMBER)
    return !isfinite(v->num);
  if (v->type == RESCUE_JARRAY || v->type == RESCUE_JOBJECT)
    for (c = v->child; c; c = c->next)
      if (score_nonfinite(c))
        return 1;
  return 0;
}

/* ITP (export/TASKS.md §2.1): 1 yes, 0 no, -1 invalid (which then counts as no). */
int score_parse_should_speak(rescue_score_report *r, const rescue_jnode *v) {
  static const char *const yes[] = {"yes", "y", "true", "1", "speak", "should_speak"};
  static const char *const no[] = {"no",          "n", "false", "0", "listen", "keep_listening",
                                   "do_not_speak"};
  rescue_buf *t = &r->tmp;
  size_t i;
  if (v && (v->type == RESCUE_JTRUE || v->type == RESCUE_JFALSE))
    return v->type == RESCUE_JTRUE;
  score_clean(r, v);
  for (i = 0; i < t->len; i++)
    t->s[i] = (char)tolower((unsigned char)t->s[i]);
  for (i = 0; i < sizeof yes / sizeof yes[0]; i++)
    if (strcmp(t->s, yes[i]) == 0)
      return 1;
  for (i = 0; i < sizeof no / sizeof no[0]; i++)
    if (strcmp(t->s, no[i]) == 0)
      return 0;
  if (strstr(t->s, "yes"))
    return 1;
  if (strstr(t->s, "no"))
    return 0;
  return -1;
}
