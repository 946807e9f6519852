/*
** check_json_find.c: rescue_jfind, the finder of a JSON value inside a model's prose reply
** (corpus/json_find.c): what it finds, and the bound on its work for degenerate replies.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "testutil.h"

/* An object, or a list holding one (what `rescue score` looks for). */
static int holds_object(const rescue_jnode *n, void *ctx) {
  (void)ctx;
  if (n->type == RESCUE_JOBJECT)
    return 1;
  for (const rescue_jnode *c = n->child; c; c = c->next)
    if (c->type == RESCUE_JOBJECT)
      return 1;
  return 0;
}

/* An object with the member named by ctx. */
static int has_key(const rescue_jnode *n, void *ctx) {
  return n->type == RESCUE_JOBJECT && rescue_jget(n, (const char *)ctx) != NULL;
}

/*
** Find in text with accept; returns what was found written back in Python style (static
** buffer), or NULL; *st receives the figures.
*/
static const char *find(const char *text, size_t len, int flags, rescue_jfind_accept accept,
                        void *ctx, rescue_jfind_stats *st) {
  static rescue_buf b = RESCUE_BUF_INIT;
  rescue_jdoc *d = rescue_jdoc_new();
  const rescue_jnode *r;
  ck_assert_ptr_nonnull(d);
  r = rescue_jfind(d, text, len, flags, accept, ctx, st);
  rescue_buf_reset(&b);
  if (r)
    rescue_jwrite(&b, r);
  rescue_jdoc_free(&d);
  ck_assert_int_eq(st->oom, 0);
  ck_assert_uint_eq(st->scanned, len);
  ck_assert_uint_le(st->attempts, RESCUE_JFIND_MAX_ATTEMPTS);
  ck_assert_uint_le(st->parsed, RESCUE_JFIND_BUDGET(len));
  return r ? (b.s ? b.s : "") : NULL;
}

#define FIND(text, accept, ctx) find(text, strlen(text), 0, accept, ctx, &st)

START_TEST(test_prose_and_fences) {
  rescue_jfind_stats st;
  ck_assert_str_eq(FIND("Sure, here you go: {\"a\": 1} Hope this helps.", holds_object, NULL),
                   "{\"a\": 1}");
  ck_assert_uint_eq(st.attempts, 1);
  ck_assert_str_eq(FIND("Here:\n```json\n{\"a\": [1, 2]}\n```\nBye.", holds_object, NULL),
                   "{\"a\": [1, 2]}");
  /* a quote in the prose, outside any bracket, is prose */
  ck_assert_str_eq(FIND("He said \"don't\" then {\"a\": \"b\"}", holds_object, NULL),
                   "{\"a\": \"b\"}");
  ck_assert_ptr_null(FIND("I am sorry, I cannot help with that.", holds_object, NULL));
  ck_assert_uint_eq(st.attempts, 0);
  ck_assert_ptr_null(FIND("", holds_object, NULL));
  /* a list that holds an object is taken whole */
  ck_assert_str_eq(FIND("x [1, {\"a\": 1}] y", holds_object, NULL), "[1, {\"a\": 1}]");
}
END_TEST

START_TEST(test_nested_and_several) {
  rescue_jfind_stats st;
  /* the outer object is not taken: the inner one is, in text order */
  ck_assert_str_eq(FIND("{\"x\": {\"rows\": []}, \"y\": {\"rows\": [1]}}", has_key, "rows"),
                   "{\"rows\": []}");
  ck_assert_uint_eq(st.attempts, 2);
  /* several candidates: the first that reads and is taken */
  ck_assert_str_eq(FIND("[not json] then {\"a\": 1} and {\"b\": 2}", holds_object, NULL),
                   "{\"a\": 1}");
  ck_assert_str_eq(FIND("[not json] then {\"a\": 1} and {\"b\": 2}", has_key, "b"), "{\"b\": 2}");
  ck_assert_uint_eq(st.attempts, 3);
  /* a truncated batch: its first complete object */
  ck_assert_str_eq(
      FIND("{\"predictions\": [{\"id\": \"a\"}, {\"id\": \"b\", \"sho", holds_object, NULL),
      "{\"id\": \"a\"}");
  /* a closing bracket of the other kind: the brackets open before it are not tried */
  ck_assert_str_eq(FIND("{\"a\": [1} and {\"b\": 2}", holds_object, NULL), "{\"b\": 2}");
  ck_assert_uint_eq(st.attempts, 1);
}
END_TEST

START_TEST(test_strings_with_brackets) {
  rescue_jfind_stats st;
  ck_assert_str_eq(FIND("note: {\"a\": \"}{ ][ \\\" {\", \"b\": [\"]\"]} done", holds_object, NULL),
                   "{\"a\": \"}{ ][ \\\" {\", \"b\": [\"]\"]}");
  ck_assert_uint_eq(st.candidates, 2);
  /* a string cut by a line break (a control character): what was open cannot parse, and the
     scan goes on after it */
  ck_assert_str_eq(FIND("first {\"rows\": [{\"tone\n then {\"a\": 1}", holds_object, NULL),
                   "{\"a\": 1}");
  ck_assert_uint_eq(st.attempts, 1);
  /* Python mode: NaN inside is read */
  ck_assert_str_eq(find("x {\"a\": NaN} y", 14, RESCUE_JPARSE_PYTHON, holds_object, NULL, &st),
                   "{\"a\": NaN}");
  ck_assert_ptr_null(find("x {\"a\": NaN} y", 14, 0, holds_object, NULL, &st));
}
END_TEST

/* A failed parse rules out the brackets inside it that reach its failure point. */
START_TEST(test_failure_skips_nested) {
  rescue_jfind_stats st;
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < 300; i++)
    rescue_buf_putc(&b, '[');
  rescue_buf_puts(&b, "1, x");
  for (i = 0; i < 300; i++)
    rescue_buf_putc(&b, ']');
  rescue_buf_puts(&b, " {\"a\": 1}");
  ck_assert_str_eq(find(b.s, b.len, 0, holds_object, NULL, &st), "{\"a\": 1}");
  ck_assert_uint_eq(st.candidates, 301);
  ck_assert_uint_eq(st.attempts, 2);
  rescue_buf_clear(&b);
}
END_TEST

/* More balanced candidates than the bound before the answer: the finder gives up. */
START_TEST(test_attempt_bound) {
  rescue_jfind_stats st;
  rescue_buf b = RESCUE_BUF_INIT;
  int i;
  for (i = 0; i < RESCUE_JFIND_MAX_ATTEMPTS + 10; i++)
    rescue_buf_puts(&b, "[] ");
  rescue_buf_puts(&b, "{\"a\": 1}");
  ck_assert_ptr_null(find(b.s, b.len, 0, holds_object, NULL, &st));
  ck_assert_uint_eq(st.attempts, RESCUE_JFIND_MAX_ATTEMPTS);
  rescue_buf_reset(&b);
  for (i = 0; i < RESCUE_JFIND_MAX_ATTEMPTS - 10; i++)
    rescue_buf_puts(&b, "[] ");
  rescue_buf_puts(&b, "{\"a\": 1}");
  ck_assert_str_eq(find(b.s, b.len, 0, holds_object, NULL, &st), "{\"a\": 1}");
  rescue_buf_clear(&b);
}
END_TEST

/* A 400 KB reply of `unit` repeated. */
static void degenerate(rescue_buf *b, const char *unit) {
  rescue_buf_reset(b);
  while (b->len < 400 * 1024)
    rescue_buf_puts(b, unit);
}

/*
** Degenerate replies: the scan reads each byte once, the parser is handed at most the
** documented budget, and for these shapes next to nothing at all.
*/
START_TEST(test_degenerate_work) {
  static const struct {
    const char *unit;
    size_t max_attempts;
  } cases[] = {
      {"{", 0},                            /* never closes */
      {"[", 0},                            /* never closes, nesting beyond the reader's limit */
      {"[{\"a\":", 0},                     /* never closes */
      {"{\"a\": [1}", 0},                  /* every close of the other kind */
      {"}{", 1},                           /* `{}` pairs across units: the first is an object */
      {"{\"", 0},                          /* a string that never ends */
      {"[1] ", RESCUE_JFIND_MAX_ATTEMPTS}, /* balanced, never an object */
  };
  rescue_buf b = RESCUE_BUF_INIT;
  size_t i;
  for (i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    rescue_jfind_stats st;
    const char *r;
    degenerate(&b, cases[i].unit);
    r = find(b.s, b.len, RESCUE_JPARSE_PYTHON, holds_object, NULL, &st);
    ck_assert_msg(st.attempts <= cases[i].max_attempts, "%s: %zu attempts", cases[i].unit,
                  st.attempts);
    ck_assert_msg(st.parsed <= 4 * b.len, "%s: %zu bytes parsed", cases[i].unit, st.parsed);
    if (strcmp(cases[i].unit, "}{") == 0)
      ck_assert_str_eq(r, "{}");
    else
      ck_assert_ptr_null(r);
  }
  /* nested far beyond the reader's limit, then closed: only the innermost 4096 brackets
     stay on the scan's stack (an outer one cannot parse), so every span tried is short */
  rescue_buf_reset(&b);
  for (i = 0; i < 200000; i++)
    rescue_buf_putc(&b, '[');
  for (i = 0; i < 200000; i++)
    rescue_buf_putc(&b, ']');
  {
    rescue_jfind_stats st;
    ck_assert_ptr_null(find(b.s, b.len, 0, holds_object, NULL, &st));
    ck_assert_uint_le(st.candidates, 4096);
    ck_assert_uint_le(st.parsed, (size_t)RESCUE_JFIND_MAX_ATTEMPTS * 2 * 4096);
  }
  rescue_buf_clear(&b);
}
END_TEST

/* A failed allocation inside the finder is reported, never a crash. */
START_TEST(test_alloc_failures) {
  const char *text = "x [1] {\"a\": [1, 2, {\"b\": 3}]} y";
  int n;
  for (n = 1; n < 60; n++) {
    rescue_jdoc *d = rescue_jdoc_new();
    rescue_jfind_stats st;
    const rescue_jnode *r;
    ck_assert_ptr_nonnull(d);
    rescue_alloc_fail_at((unsigned long)n);
    r = rescue_jfind(d, text, strlen(text), 0, has_key, "a", &st);
    rescue_alloc_fail_at(0);
    ck_assert(r || st.oom);
    rescue_jdoc_free(&d);
    if (r)
      break;
  }
  ck_assert_msg(n < 60, "the finder never succeeded");
}
END_TEST

int main(void) {
  Suite *s = suite_create("json_find");
  TCase *tc = tcase_create("json_find");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, test_prose_and_fences);
  tcase_add_test(tc, test_nested_and_several);
  tcase_add_test(tc, test_strings_with_brackets);
  tcase_add_test(tc, test_failure_skips_nested);
  tcase_add_test(tc, test_attempt_bound);
  tcase_add_test(tc, test_degenerate_work);
  tcase_add_test(tc, test_alloc_failures);
  suite_add_tcase(s, tc);
  return tu_run_suite(s);
}
