/*
** check_json.c: the strict JSON reader, the Python-style writer, Python float repr,
** cleaning, and a differential run against jansson on mutated inputs.
*/
#include <jansson.h>
#include <math.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* Parse text and write it back in Python style; returns the output (static) or NULL. */
static const char *roundtrip(const char *text) {
  static rescue_buf b = RESCUE_BUF_INIT;
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror e;
  const rescue_jnode *r = rescue_jparse(d, text, strlen(text), &e);
  rescue_buf_reset(&b);
  if (r)
    rescue_jwrite(&b, r);
  rescue_jdoc_free(&d);
  return r ? (b.s ? b.s : "") : NULL;
}

/* The parse error message for text (static), or NULL when it parses. */
static const char *parse_error(const char *text, size_t len, size_t *offset) {
  static rescue_jerror e;
  rescue_jdoc *d = rescue_jdoc_new();
  const rescue_jnode *r = rescue_jparse(d, text, len, &e);
  rescue_jdoc_free(&d);
  if (offset)
    *offset = e.offset;
  return r ? NULL : e.msg;
}

START_TEST(test_python_style) {
  ck_assert_str_eq(roundtrip("{\"a\":1,\"b\":[1,2.50,{}],\"c\":{\"d\":null}}"),
                   "{\"a\": 1, \"b\": [1, 2.50, {}], \"c\": {\"d\": null}}");
  ck_assert_str_eq(roundtrip("[ true , false ]"), "[true, false]");
  /* escapes: \u00e9 written raw, control characters as \u00XX, slash unescaped */
  ck_assert_str_eq(roundtrip("[\"\\u00e9\\/\\b\\f\\n\\r\\t\\u0001\\u001f\\\"\\\\\"]"),
                   "[\"\xc3\xa9/\\b\\f\\n\\r\\t\\u0001\\u001f\\\"\\\\\"]");
  /* surrogate pair to a 4-byte character */
  ck_assert_str_eq(roundtrip("[\"\\ud83d\\ude00\"]"), "[\"\xf0\x9f\x98\x80\"]");
  /* DEL and U+2028 stay raw, like Python with ensure_ascii=False */
  ck_assert_str_eq(roundtrip("[\"\x7f\xe2\x80\xa8\"]"), "[\"\x7f\xe2\x80\xa8\"]");
  /* duplicate keys and their order survive */
  ck_assert_str_eq(roundtrip("{\"k\":1,\"k\":2}"), "{\"k\": 1, \"k\": 2}");
  /* number tokens are kept as spelled */
  ck_assert_str_eq(roundtrip("[0.0,9.540000000000001,1E5,-0,1e-7]"),
                   "[0.0, 9.540000000000001, 1E5, -0, 1e-7]");
}
END_TEST

START_TEST(test_refusals) {
  static const struct {
    const char *text;
    const char *msg;
  } bad[] = {
      {"", "expected"},
      {"   ", "expected"},
      {"1", "'[' or '{' expected"},
      {"\"s\"", "'[' or '{' expected"},
      {"[1,]", "invalid token"},
      {"[01]", "invalid token"},
      {"[1.]", "invalid token"},
      {"[.5]", "invalid token"},
      {"[1e]", "invalid token"},
      {"[-]", "invalid token"},
      {"[NaN]", "invalid token"},
      {"[Infinity]", "invalid token"},
      {"[1] x", "end of file expected"},
      {"{\"a\" 1}", "':' expected"},
      {"{\"a\":1,}", "string or '}' expected"},
      {"{1:2}", "string or '}' expected"},
      {"[\"a", "premature end"},
      {"[\"a\\x\"]", "invalid escape"},
      {"[\"\\u12\"]", "invalid escape"},
      {"[\"\\u0000\"]", "\\u0000"},
      {"[\"\\ud800\"]", "invalid Unicode"},
      {"[\"\\udc00\"]", "invalid Unicode"},
      {"[\"\\ud800\\u0041\"]", "invalid Unicode"},
      {"[\"a\tb\"]", "control character"},
      {"[9223372036854775808]", "too big integer"},
      {"[-9223372036854775809]", "too big negative integer"},
      {"[1e400]", "real number overflow"},
      {"[tru]", "invalid token"},
      {"{\"a\":1", "premature end"},
      {"[1", "premature end"},
  };
  size_t i;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *m = parse_error(bad[i].text, strlen(bad[i].text), NULL);
    ck_assert_msg(m != NULL, "accepted %s", bad[i].text);
    ck_assert_msg(strstr(m, bad[i].msg) != NULL, "%s: got '%s', want '%s'", bad[i].text, m,
                  bad[i].msg);
  }
  /* accepted edge cases */
  ck_assert_ptr_null(parse_error("[9223372036854775807,-9223372036854775808,1e-400]", 49, NULL));
  ck_assert_ptr_null(parse_error(" \t\r\n{}\n", 7, NULL));
}
END_TEST

START_TEST(test_utf8) {
  static const char *bad[] = {
      "[\"\xff\"]",             /* not UTF-8 at all */
      "[\"\xc0\xaf\"]",         /* overlong '/' */
      "[\"\xe0\x80\xaf\"]",     /* overlong */
      "[\"\xed\xa0\x80\"]",     /* UTF-8 encoded surrogate */
      "[\"\xf4\x90\x80\x80\"]", /* above U+10FFFF */
      "[\"\xe2\x82\"]",         /* truncated sequence */
      "[\"\x80\"]",             /* lone continuation byte */
      "[\xc3\xa9]",             /* non-ASCII outside a string */
  };
  size_t i, off;
  for (i = 0; i < sizeof bad / sizeof bad[0]; i++) {
    const char *m = parse_error(bad[i], strlen(bad[i]), &off);
    ck_assert_msg(m != NULL, "accepted case %zu", i);
    ck_assert_msg(strstr(m, "UTF-8") || strstr(m, "invalid token"), "case %zu: %s", i, m);
  }
  {
    const char *ok = "[\"\xf0\x9f\x98\x80 \xe4\xb8\xad\"]";
    ck_assert_ptr_null(parse_error(ok, strlen(ok), NULL));
  }
  /* an embedded NUL byte is a control character in a string */
  ck_assert_ptr_nonnull(parse_error("[\"a\0b\"]", 7, NULL));
}
END_TEST

START_TEST(test_depth) {
  char *deep = malloc(5000);
  int i;
  for (i = 0; i < 2048; i++)
    deep[i] = '[';
  for (i = 0; i < 2048; i++)
    deep[2048 + i] = ']';
  ck_assert_ptr_null(parse_error(deep, 4096, NULL));
  memset(deep, '[', 2049);
  memset(deep + 2049, ']', 2049);
  ck_assert_ptr_nonnull(strstr(parse_error(deep, 4098, NULL), "depth"));
  free(deep);
}
END_TEST

START_TEST(test_position) {
  const char *t = "{\n  \"a\": \xc3\xa9x\n}";
  long line, col;
  size_t off;
  ck_assert_ptr_nonnull(parse_error(t, strlen(t), &off));
  rescue_jposition(t, strlen(t), off, &line, &col);
  ck_assert_int_eq(line, 2);
  ck_assert_int_eq(col, 8);
}
END_TEST

START_TEST(test_float_repr) {
  static const struct {
    double d;
    const char *s;
  } cases[] = {
      {0.0, "0.0"},
      {-0.0, "-0.0"},
      {1.0, "1.0"},
      {5.0, "5.0"},
      {0.1, "0.1"},
      {9.540000000000001, "9.540000000000001"},
      {1.1699999999999982, "1.1699999999999982"},
      {88.11, "88.11"},
      {1e16, "1e+16"},
      {1e15, "1000000000000000.0"},
      {123456789012345678.0, "1.2345678901234568e+17"},
      {0.0001, "0.0001"},
      {0.00001, "1e-05"},
      {-2.5e-7, "-2.5e-07"},
      {1e22, "1e+22"},
      {1.7976931348623157e308, "1.7976931348623157e+308"},
      {5e-324, "5e-324"},
      {2.2250738585072014e-308, "2.2250738585072014e-308"},
      {1.0 / 3.0, "0.3333333333333333"},
      {2.0 / 3.0, "0.6666666666666666"},
      {100.0, "100.0"},
      {123.456, "123.456"},
      {9007199254740993.0, "9007199254740992.0"},
  };
  size_t i;
  char buf[32];
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rescue_format_double(cases[i].d, buf);
    ck_assert_msg(strcmp(buf, cases[i].s) == 0, "%.17g: got %s, want %s", cases[i].d, buf,
                  cases[i].s);
  }
  rescue_format_double(NAN, buf);
  ck_assert_str_eq(buf, "NaN");
  rescue_format_double(-INFINITY, buf);
  ck_assert_str_eq(buf, "-Infinity");
}
END_TEST

/* Every double we format must read back to itself, and no shorter digit string may. */
START_TEST(test_float_shortest_random) {
  unsigned long long x = 88172645463325252ULL;
  int i;
  for (i = 0; i < 200000; i++) {
    double d, back;
    char buf[32];
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    memcpy(&d, &x, sizeof d);
    if (!isfinite(d))
      continue;
    if (i & 1)
      d = (double)(x % 100000) / 100.0; /* typical times like 17.3 */
    rescue_format_double(d, buf);
    back = strtod(buf, NULL);
    ck_assert_msg(back == d, "%s does not read back as %.17g", buf, d);
  }
}
END_TEST

START_TEST(test_clean_and_strip) {
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jdoc *d = rescue_jdoc_new();
  const char *text =
      "[\" \\u00a0Therapist\\u3000\", null, \"\", false, 0, 0.0, [], {}, true, 1.50, -0, 7,"
      " \"\\u200bx\\ufeff\", [\"a\", 1]]";
  const rescue_jnode *r = rescue_jparse(d, text, strlen(text), NULL), *c;
  const char *want[] = {
      "Therapist", "", "", "", "", "", "", "", "True", "1.5", "", "7", "\xe2\x80\x8bx\xef\xbb\xbf",
      "['a', 1]"};
  int i = 0;
  ck_assert_ptr_nonnull(r);
  for (c = r->child; c; c = c->next, i++) {
    rescue_buf_reset(&b);
    rescue_jclean(&b, c);
    ck_assert_msg(strcmp(b.s ? b.s : "", want[i]) == 0, "item %d: got '%s'", i, b.s);
  }
  rescue_buf_clear(&b);
  rescue_jdoc_free(&d);
}
END_TEST

/* Checking mode: strings without escapes point into the input; writing gives the same. */
START_TEST(test_nocopy) {
  const char *text = "{\"a\": \"plain\", \"b\": \"esc\\n\", \"k\\u00e9y\": [\"x\", 1.50]}";
  rescue_jdoc *d1 = rescue_jdoc_new(), *d2 = rescue_jdoc_new();
  rescue_buf w1 = RESCUE_BUF_INIT, w2 = RESCUE_BUF_INIT;
  const rescue_jnode *r1, *r2, *a;
  rescue_jdoc_nocopy(d2, 1);
  r1 = rescue_jparse(d1, text, strlen(text), NULL);
  r2 = rescue_jparse(d2, text, strlen(text), NULL);
  ck_assert_ptr_nonnull(r1);
  ck_assert_ptr_nonnull(r2);
  a = rescue_jget(r2, "a");
  ck_assert_ptr_nonnull(a);
  ck_assert(a->s >= text && a->s < text + strlen(text)); /* not copied */
  ck_assert_int_eq(a->len, 5);
  ck_assert_int_eq(memcmp(a->s, "plain", 5), 0);
  ck_assert_ptr_nonnull(rescue_jget(r2, "k\xc3\xa9y")); /* an escaped key is decoded */
  ck_assert_str_eq(rescue_jget(r2, "b")->s, "esc\n");   /* and so is an escaped value */
  rescue_jwrite(&w1, r1);
  rescue_jwrite(&w2, r2);
  ck_assert_str_eq(w1.s, w2.s);
  rescue_buf_clear(&w1);
  rescue_buf_clear(&w2);
  rescue_jdoc_free(&d1);
  rescue_jdoc_free(&d2);
}
END_TEST

START_TEST(test_writer) {
  rescue_buf b = RESCUE_BUF_INIT;
  rescue_jw w;
  rescue_jw_init(&w, &b);
  rescue_jw_obj(&w);
  rescue_jw_key(&w, "a");
  rescue_jw_arr(&w);
  rescue_jw_int(&w, 1);
  rescue_jw_double(&w, 2.0);
  rescue_jw_str(&w, "x\"y");
  rescue_jw_arr(&w);
  rescue_jw_end(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "b");
  rescue_jw_obj(&w);
  rescue_jw_end(&w);
  rescue_jw_key(&w, "c");
  rescue_jw_null(&w);
  rescue_jw_end(&w);
  ck_assert_str_eq(b.s, "{\"a\": [1, 2.0, \"x\\\"y\", []], \"b\": {}, \"c\": null}");
  /* integers as printf's %lld writes them, the extremes included */
  {
    const long long ints[] = {0, 7, -7, 10, -10, 1234567890123LL, LLONG_MAX, LLONG_MIN};
    char want[32];
    size_t i;
    for (i = 0; i < sizeof ints / sizeof ints[0]; i++) {
      rescue_buf_reset(&b);
      rescue_jw_init(&w, &b);
      rescue_jw_int(&w, ints[i]);
      snprintf(want, sizeof want, "%lld", ints[i]);
      ck_assert_str_eq(b.s, want);
    }
  }
  rescue_buf_clear(&b);
}
END_TEST

/*
** Differential check against jansson: random mutations of a real-looking document must
** be accepted by both or refused by both (json_loadb with flags 0).
*/
START_TEST(test_differential_jansson) {
  static const char seed[] =
      "{\"sample_id\": \"a/b\", \"rows\": [{\"start_time\": 0.0, \"end_time\": 6.08, "
      "\"target\": [\"Therapist\"], \"x\": \"caf\xc3\xa9 \\u00e9\\n\", \"n\": null, "
      "\"t\": true, \"f\": false, \"i\": -12, \"e\": 1.5e-3, \"o\": {}}]}";
  static const char alphabet[] = "{}[]\",:\\u0123456789.eE+-tfn \t\n\xc3\xa9\xff\x80\xed";
  unsigned long long x = 1234567;
  rescue_jdoc *d = rescue_jdoc_new();
  char buf[512];
  int i, agree = 0;
  for (i = 0; i < 300000; i++) {
    size_t len = sizeof seed - 1, k, nmut;
    json_error_t je;
    json_t *j;
    int ours, theirs;
    memcpy(buf, seed, len);
    x = x * 6364136223846793005ULL + 1442695040888963407ULL;
    nmut = 1 + (x >> 60) % 4;
    for (k = 0; k < nmut; k++) {
      size_t pos;
      x = x * 6364136223846793005ULL + 1442695040888963407ULL;
      pos = (size_t)((x >> 33) % len);
      switch ((x >> 20) % 3) {
      case 0: /* replace */ buf[pos] = alphabet[(x >> 8) % (sizeof alphabet - 1)]; break;
      case 1: /* delete */
        memmove(buf + pos, buf + pos + 1, len - pos - 1);
        len--;
        break;
      default: /* insert */
        if (len < sizeof buf - 1) {
          memmove(buf + pos + 1, buf + pos, len - pos);
          buf[pos] = alphabet[(x >> 8) % (sizeof alphabet - 1)];
          len++;
        }
      }
    }
    ours = rescue_jparse(d, buf, len, NULL) != NULL;
    j = json_loadb(buf, len, 0, &je);
    theirs = j != NULL;
    json_decref(j);
    ck_assert_msg(ours == theirs, "disagree (ours %d, jansson %d) on: %.*s", ours, theirs, (int)len,
                  buf);
    agree += ours;
  }
  rescue_jdoc_free(&d);
  ck_assert_int_gt(agree, 1000); /* the run exercised accepted inputs too */
}
END_TEST

/*
** A repeated key reads as its last value, as Python's json.loads and jansson read it; the
** parser marks objects without repeats (rescue_jget then stops at the first match).
*/
START_TEST(test_get_duplicate_keys) {
  const char *t =
      "{\"k\": 1, \"x\": true, \"k\": [2], \"k\": \"three\", \"\\u006b\": null, \"y\": 0}";
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror e;
  const rescue_jnode *r = rescue_jparse(d, t, strlen(t), &e), *v;
  ck_assert_ptr_nonnull(r);
  v = rescue_jget(r, "k");
  ck_assert_ptr_nonnull(v);
  ck_assert_int_eq(v->type, RESCUE_JNULL); /* "\u006b" is "k" too */
  v = rescue_jget(r, "x");
  ck_assert_int_eq(v->type, RESCUE_JTRUE);
  ck_assert_ptr_null(rescue_jget(r, "z"));
  ck_assert_int_eq(r->unique, 0);
  /* keys alike in length and first and last byte are not the same key: the first match
     is the value; a repeat far down still wins */
  t = "{\"kak\": 1, \"kbk\": 2, \"a\": 0, \"b\": 0, \"c\": 0, \"d\": 0, \"e\": 0, \"f\": 0, "
      "\"g\": 0, \"h\": 0, \"i\": 0, \"j\": 0, \"l\": 0, \"m\": 0, \"n\": 0, \"o\": {\"p\": 1, "
      "\"p\": 2}}";
  r = rescue_jparse(d, t, strlen(t), &e);
  ck_assert_ptr_nonnull(r);
  ck_assert_int_eq(r->unique, 1);
  ck_assert_int_eq((int)rescue_jget(r, "kak")->num, 1);
  ck_assert_int_eq((int)rescue_jget(r, "kbk")->num, 2);
  ck_assert_int_eq(rescue_jget(r, "o")->unique, 0);
  ck_assert_int_eq((int)rescue_jget(rescue_jget(r, "o"), "p")->num, 2);
  t = "{\"a\": 1, \"b\": 2, \"c\": 3, \"d\": 4, \"e\": 5, \"f\": 6, \"g\": 7, \"h\": 8, \"a\": 9}";
  r = rescue_jparse(d, t, strlen(t), &e);
  ck_assert_int_eq((int)rescue_jget(r, "a")->num, 9);
  rescue_jdoc_free(&d);
}
END_TEST

/* Every allocation failure point of a parse is reported as out of memory, without leaks. */
/* Python mode (model output): what Python's json.loads reads and the strict reader refuses. */
START_TEST(test_python_mode) {
  static const char *const lenient[] = {"[NaN, Infinity, -Infinity]",
                                        "[123456789012345678901234567890]",
                                        "[1e999]",
                                        "[\"\\ud800 alone\"]",
                                        "[\"\\udc00\"]",
                                        "\"just a string\"",
                                        "42"};
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror e;
  const rescue_jnode *n;
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i, used = 0;
  for (i = 0; i < sizeof lenient / sizeof lenient[0]; i++) {
    ck_assert_msg(rescue_jparse(d, lenient[i], strlen(lenient[i]), &e) == NULL, "%s", lenient[i]);
    n = rescue_jparse_ex(d, lenient[i], strlen(lenient[i]), RESCUE_JPARSE_PYTHON, NULL, &e);
    ck_assert_msg(n != NULL, "%s: %s", lenient[i], e.msg);
  }
  n = rescue_jparse_ex(d, "[NaN, -Infinity, 123456789012345678901234567890]", 48,
                       RESCUE_JPARSE_PYTHON, NULL, &e);
  ck_assert_ptr_nonnull(n);
  ck_assert(isnan(n->child->num) && !n->child->is_int);
  ck_assert(isinf(n->child->next->num) && n->child->next->num < 0);
  ck_assert(n->child->next->next->is_int);
  ck_assert(fabs(n->child->next->next->num - 1.2345678901234568e29) < 1e15);
  /* the one cleaning rule: Python's str() of the values */
  rescue_jclean(&b, n->child);
  rescue_buf_putc(&b, '|');
  rescue_jclean(&b, n->child->next);
  rescue_buf_putc(&b, '|');
  rescue_jclean(&b, n->child->next->next);
  ck_assert_str_eq(b.s, "nan|-inf|123456789012345678901234567890");
  n = rescue_jparse_ex(d, "[\"a\\ud800b\"]", 12, RESCUE_JPARSE_PYTHON, NULL, &e);
  ck_assert_ptr_nonnull(n);
  ck_assert_str_eq(n->child->s, "a\xef\xbf\xbd"
                                "b"); /* U+FFFD */
  /* a surrogate pair is still one character */
  n = rescue_jparse_ex(d, "[\"\\ud83d\\ude00\"]", 16, RESCUE_JPARSE_PYTHON, NULL, &e);
  ck_assert_ptr_nonnull(n);
  ck_assert_str_eq(n->child->s, "\xf0\x9f\x98\x80");
  /* prefix: one value, what follows not looked at */
  n = rescue_jparse_ex(d, "{\"a\": 1} trailing {", 19, RESCUE_JPARSE_PREFIX, &used, &e);
  ck_assert_ptr_nonnull(n);
  ck_assert_uint_eq(used, 8);
  ck_assert_ptr_null(rescue_jparse_ex(d, " {\"a\": 1}", 9, RESCUE_JPARSE_PREFIX, &used, &e));
  ck_assert_ptr_null(rescue_jparse_ex(d, "{\"a\": ", 6, RESCUE_JPARSE_PREFIX, &used, &e));
  /* still refused in Python mode: what Python refuses too */
  ck_assert_ptr_null(rescue_jparse_ex(d, "[nan]", 5, RESCUE_JPARSE_PYTHON, NULL, &e));
  ck_assert_ptr_null(rescue_jparse_ex(d, "[\"a\nb\"]", 7, RESCUE_JPARSE_PYTHON, NULL, &e));
  /* the strict mode is unchanged after a Python-mode parse */
  ck_assert_ptr_null(rescue_jparse(d, "[NaN]", 5, &e));
  rescue_buf_clear(&b);
  rescue_jdoc_free(&d);
}
END_TEST

START_TEST(test_alloc_failures) {
  const char *text = "{\"a\": [1, 2, \"three\", {\"b\": null}], \"c\": \"\\u00e9\"}";
  unsigned long n;
  for (n = 1; n < 50; n++) {
    rescue_jdoc *d;
    rescue_jerror e;
    const rescue_jnode *r;
    rescue_alloc_fail_at(n);
    d = rescue_jdoc_new();
    if (!d) {
      rescue_alloc_fail_at(0);
      continue;
    }
    r = rescue_jparse(d, text, strlen(text), &e);
    rescue_alloc_fail_at(0);
    if (!r)
      ck_assert_str_eq(e.msg, "out of memory");
    rescue_jdoc_free(&d);
    if (r)
      break;
  }
  ck_assert_msg(n < 50, "parse never succeeded");
}
END_TEST

START_TEST(test_jtype_name) {
  rescue_jdoc *d = rescue_jdoc_new();
  rescue_jerror je;
  const char *text = "[null, true, false, 1.5, \"s\", [], {}]";
  static const char *const want[] = {"null",     "a boolean", "a boolean", "a number",
                                     "a string", "a list",    "an object"};
  const rescue_jnode *v = rescue_jparse(d, text, strlen(text), &je), *c;
  int i = 0;
  ck_assert_ptr_nonnull(v);
  for (c = v->child; c; c = c->next, i++)
    ck_assert_str_eq(rescue_jtype_name(c), want[i]);
  ck_assert_int_eq(i, 7);
  ck_assert_str_eq(rescue_jtype_name(NULL), "absent");
  rescue_jdoc_free(&d);
}
END_TEST

int main(void) {
  Suite *s = suite_create("json");
  TCase *tc = tcase_create("json");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_python_style);
  tcase_add_test(tc, test_jtype_name);
  tcase_add_test(tc, test_refusals);
  tcase_add_test(tc, test_utf8);
  tcase_add_test(tc, test_depth);
  tcase_add_test(tc, test_position);
  tcase_add_test(tc, test_float_repr);
  tcase_add_test(tc, test_float_shortest_random);
  tcase_add_test(tc, test_clean_and_strip);
  tcase_add_test(tc, test_writer);
  tcase_add_test(tc, test_nocopy);
  tcase_add_test(tc, test_differential_jansson);
  tcase_add_test(tc, test_alloc_failures);
  tcase_add_test(tc, test_get_duplicate_keys);
  tcase_add_test(tc, test_python_mode);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
