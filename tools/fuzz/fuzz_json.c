/*
** fuzz_json.c: libFuzzer driver for the strict JSON reader. Differential: our reader must
** accept exactly what jansson's json_loadb(..., 0) accepts, and what it accepts must
** survive write -> read -> write unchanged.
**
** build: CC=clang cmake -S . -B build-fuzz -DRESCUE_FUZZ=ON && cmake --build build-fuzz
** run:   ./build-fuzz/fuzz_json -max_total_time=60
*/
#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "rescue_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static rescue_jdoc *doc, *doc2;
  rescue_buf a = RESCUE_BUF_INIT, b = RESCUE_BUF_INIT;
  const rescue_jnode *root;
  json_error_t je;
  json_t *j;
  if (!doc) {
    doc = rescue_jdoc_new();
    doc2 = rescue_jdoc_new();
  }
  root = rescue_jparse(doc, (const char *)data, size, NULL);
  j = json_loadb((const char *)data, size, 0, &je);
  /*
  ** Everything jansson refuses we refuse. We refuse more in one place only: jansson
  ** silently drops a NUL byte that directly follows a number or literal ("[1\0]"),
  ** which is not JSON; anything else accepted by jansson we accept too.
  */
  if (root && !j)
    abort();
  if (!root && j && !memchr(data, 0, size))
    abort();
  json_decref(j);
  if (!root)
    return 0;
  rescue_jwrite(&a, root);
  root = rescue_jparse(doc2, a.s, a.len, NULL);
  if (!root)
    abort(); /* our own output must read back */
  rescue_jwrite(&b, root);
  if (a.len != b.len || memcmp(a.s, b.s, a.len) != 0)
    abort(); /* writing is not a fixed point */
  rescue_buf_clear(&a);
  rescue_buf_clear(&b);
  return 0;
}
