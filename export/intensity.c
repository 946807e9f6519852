/*
** intensity.c: an intensity as the release scripts read it, int(round(float(v))), and the
** Python float() of a string under it: the one reading for export's gold values, the
** label statistics and the scorer's predictions.
*/
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "intensity_int.h"
#include "prim_int.h"

/*
** Decimal digits other than ASCII that Python's float() reads as digits: the first code
** point of each block of ten (Unicode category Nd).
*/
static const unsigned digit_zeros[] = {
    0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,  0x0C66,
    0x0CE6,  0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,  0x1810,
    0x1946,  0x19D0,  0x1A80,  0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,  0xA8D0,
    0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,  0xFF10,  0x104A0, 0x10D30, 0x11066, 0x110F0,
    0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0, 0x11730, 0x118E0, 0x11950,
    0x11C50, 0x11D50, 0x11DA0, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8, 0x1D7E2, 0x1D7EC,
    0x1D7F6, 0x1E140, 0x1E2F0, 0x1E950, 0x1FBF0};

int rescue_pyfloat(const char *s, size_t len, rescue_buf *tmp, double *out) {
  const unsigned char *p, *e;
  size_t a, b, i;
  char *end;
  int digits = 0;
  rescue_pystrip(s, len, &a, &b);
  rescue_buf_reset(tmp);
  for (p = (const unsigned char *)s + a, e = (const unsigned char *)s + b; p < e;) {
    uint32_t cp;
    size_t k;
    int n = rescue_utf8_step(p, e, &cp), found = 0;
    if (!n)
      return -1; /* not UTF-8: float() of bytes that do not decode raises */
    p += n;
    if (cp < 0x80) {
      rescue_buf_putc(tmp, (char)cp);
      continue;
    }
    for (k = 0; k < sizeof digit_zeros / sizeof digit_zeros[0]; k++)
      if (cp >= digit_zeros[k] && cp < digit_zeros[k] + 10) {
        rescue_buf_putc(tmp, (char)('0' + (cp - digit_zeros[k])));
        found = 1;
        break;
      }
    if (!found)
      return -1;
  }
  if (!rescue_buf_ok(tmp) || tmp->len == 0)
    return -1;
  /* the words: [+-](inf|infinity|nan), any case */
  {
    const char *w = tmp->s + (tmp->s[0] == '+' || tmp->s[0] == '-');
    if (!strcasecmp(w, "inf") || !strcasecmp(w, "infinity") || !strcasecmp(w, "nan")) {
      *out = strcasecmp(w, "nan") ? (tmp->s[0] == '-' ? -INFINITY : INFINITY) : NAN;
      return 0;
    }
  }
  /* [+-] digits [. digits] [e [+-] digits], underscores only between two digits */
  for (i = 0, b = 0; i < tmp->len; i++) {
    char c = tmp->s[i];
    if (c == '_') {
      if (i == 0 || i + 1 >= tmp->len || !isdigit((unsigned char)tmp->s[i - 1]) ||
          !isdigit((unsigned char)tmp->s[i + 1]))
        return -1;
      continue;
    }
    if (!strchr("0123456789.eE+-", c))
      return -1;
    digits |= isdigit((unsigned char)c) != 0;
    tmp->s[b++] = c;
  }
  tmp->s[b] = 0;
  if (!digits || strchr(tmp->s, 'x') || strchr(tmp->s, 'X'))
    return -1;
  *out = strtod(tmp->s, &end);
  if (*end || end == tmp->s)
    return -1;
  /* strtod also takes hex and "1e" with nothing after; Python does not */
  if (tmp->s[b - 1] == 'e' || tmp->s[b - 1] == 'E' || tmp->s[b - 1] == '+' || tmp->s[b - 1] == '-')
    return -1;
  return 0;
}

int rescue_intensity(const rescue_jnode *v, rescue_buf *tmp, const char **why) {
  double d = NAN;
  *why = "not a number";
  if (!v)
    return *why = "absent", -1;
  switch (v->type) {
  case RESCUE_JNUMBER: d = v->num; break;
  case RESCUE_JTRUE: d = 1; break;
  case RESCUE_JFALSE: d = 0; break;
  case RESCUE_JSTRING:
    if (rescue_pyfloat(v->s, v->len, tmp, &d))
      return *why = "a string that is not a number", -1;
    break;
  case RESCUE_JNULL:
  case RESCUE_JARRAY:
  case RESCUE_JOBJECT: return *why = rescue_jtype_name(v), -1;
  }
  if (!isfinite(d))
    return *why = "not finite", -1;
  d = rint(d);
  if (d < 0 || d > 10)
    return *why = "outside 0..10", -1;
  return (int)d;
}
