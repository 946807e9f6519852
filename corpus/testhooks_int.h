/*
** testhooks_int.h: test hooks (private), compiled only into the test build of the library.
**
** The build compiles every source that includes this header twice: with
** RESCUE_TEST_HOOKS=0 into the shipped librescue.a, librescue.so and rescue, where the
** hooks do not exist (a crash point is no code, allocations fail only when the system's
** do), and with RESCUE_TEST_HOOKS=1 into librescue_test.a and rescue-test, which the
** Check suites link and drive (ctest's `test_symbols` checks the difference).
*/
#ifndef RESCUE_TESTHOOKS_INT_H
#define RESCUE_TESTHOOKS_INT_H

#ifndef RESCUE_TEST_HOOKS
#error "testhooks_int.h: RESCUE_TEST_HOOKS is not set; re-run cmake so this file is built twice"
#endif

#pragma GCC visibility push(hidden)

#if RESCUE_TEST_HOOKS
/*
** Make the nth allocation from now (1 = the next one) and every later one return NULL;
** 0 turns failures off. Returns how many allocations happened since the previous call,
** so a test can loop over every failure point.
*/
unsigned long rescue_alloc_fail_at(unsigned long nth);

/*
** When the environment variable RESCUE_CRASH_AT equals name, the process kills itself
** with SIGKILL here (as `kill -9` at that moment would), so a test can check what a
** killed import or export leaves behind. The points: import-checked (checking pass done,
** nothing written), import-writing (first sample written, not committed),
** import-before-commit; export-started (temporary output made), export-complete (written
** and flushed, not renamed), export-replaced (new output in place, the old one not yet
** removed).
*/
void rescue_crash_point(const char *name);
#else
#define rescue_crash_point(name) ((void)0)
#endif

#pragma GCC visibility pop

#endif
