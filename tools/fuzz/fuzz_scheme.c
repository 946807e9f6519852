/*
** fuzz_scheme.c: libFuzzer driver for the annotation scheme loader (XML, validated
** against the built-in grammar; `rescue init --scheme`). What loads must answer lookups
** of its own fields and label sets.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON -DRESCUE_TESTS=OFF
**        && cmake --build build-fuzz --target fuzz_scheme
** run:   mkdir -p build-fuzz/corpus/scheme && ./build-fuzz/fuzz_scheme -max_total_time=120 -timeout=1
**        -artifact_prefix=build-fuzz/ build-fuzz/corpus/scheme tools/fuzz/scheme
**        (new inputs go to the first folder; the seeds in tools/fuzz/scheme stay as they are)
*/
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_scheme.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  rescue_scheme *s = NULL;
  rescue_error err;
  int i, k;
  if (rescue_scheme_load((const char *)data, size, &s, &err) != 0) {
    if (!*err.msg || s)
      abort();
    return 0;
  }
  for (i = 0; i < s->n_fields; i++)
    if (rescue_scheme_field(s, s->fields[i].key) == NULL)
      abort();
  for (i = 0; i < s->n_labelsets; i++) {
    const rescue_labelset *ls = &s->labelsets[i];
    if (!rescue_scheme_labelset(s, ls->name, ls->scenario))
      abort();
    for (k = 0; k < ls->n; k++)
      if (rescue_labelset_find(ls, ls->labels[k]) < 0)
        abort();
  }
  for (i = 0; i < s->n_groups; i++)
    (void)rescue_scheme_group_label(s, s->group_scenarios[i]);
  rescue_scheme_free(&s);
  return 0;
}
