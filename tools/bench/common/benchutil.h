/*
** benchutil.h: what the benchmark programs share: a generated corpus shaped like the
** RESCUE release (every key, ~1 KB per row), and running a command while measuring its
** wall time, CPU time and peak memory.
*/
#ifndef RESCUE_BENCHUTIL_H
#define RESCUE_BENCHUTIL_H

#include "rescue.h"

/* A deterministic pseudo-random stream (xorshift); bench_seed restarts it. */
void bench_seed(unsigned long long seed);
unsigned bench_next(void);
/* A JSON string of n words (with some non-ASCII and quotes). */
void bench_sentence(rescue_jw *w, int n);
/* A list of n {person, description} items. */
void bench_person_items(rescue_jw *w, const char *person, int n);
/*
** Append generated sample k as one JSONL line: therapist rows with support strategies,
** client rows with emotions and viewpoints, relation patterns on about a third of the
** rows; couples have 10-54 rows, families (1 in 11) 60-110, which averages the release's
** 37 rows per sample. release = 1: with scenario, participants and source_file like a
** release line, and ids in sample_id order (line k is the k-th sample exported);
** release = 0: sample_id and rows only, families under family_therapy/.
*/
void bench_gen_sample(rescue_buf *b, long k, int release);
/* bench_gen_sample with exactly `rows` rows (rows <= 0: as bench_gen_sample). */
void bench_gen_sample_rows(rescue_buf *b, long k, int release, int rows);
/* Monotonic seconds. */
double bench_now(void);
/*
** Run a command with stdout discarded; wall seconds and the child's peak RSS in MiB.
** bench_last_cpu then holds its user + system seconds. Returns the exit status.
*/
int bench_run(char *const argv[], double *secs, double *rss_mb);
extern double bench_last_cpu;

#endif
