/*
** benchcorpus.h: the corpus set-up the server benchmarks share (bench_serve.c,
** bench_serve_net.c): `rescue init` and `rescue import` run through bench_run, the store
** opened, annotators registered with their tokens.
*/
#ifndef RESCUE_BENCHCORPUS_H
#define RESCUE_BENCHCORPUS_H

#include <stddef.h>

#include "rescue.h"

/*
** A fresh corpus at db (a file there is removed first) holding the samples of jsonl, made
** by the rescue binary (`rescue init db`, `rescue import db jsonl`, each through
** bench_run), and opened: the store (caller closes), or NULL with the reason on stderr
** after "<prog>: ".
*/
rescue_store *bench_corpus(const char *prog, const char *db, const char *jsonl);

/*
** Register n annotators named printf(fmt, first + i), i = 0..n-1 (fmt takes one int), the
** token of the i-th written at tokens + i * stride (65 bytes: 64 hex digits and a NUL), so
** tokens may be a member of an array of structs. 0, or -1 with the reason on stderr after
** "<prog>: ".
*/
int bench_annotators(const char *prog, rescue_store *st, const char *fmt, int first, int n,
                     char *tokens, size_t stride);

#endif
