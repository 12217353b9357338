// SPDX-License-Identifier: GPL-2.0
/*
 * Runner of the tiny unit-test framework (see ixt_test.h), the WARN_ON()
 * counter behind the <linux/bug.h> shim, and the checks and random numbers
 * of the tests' brute-force models.
 *
 * Built with IXT_TEST_FUZZ defined, for the fuzzers in fuzz/, it has no
 * runner (libFuzzer has the main()) and any failed check or unexpected
 * warning aborts, after its diagnostics, so that libFuzzer keeps the
 * input as a crash.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <linux/bug.h>

#include "ixt_test.h"

#define IXT_MAX_TESTS	1024

static struct ixt_test *ixt_tests[IXT_MAX_TESTS];
static unsigned int ixt_nr_tests;

/* State of the running test. */
static const struct ixt_test *ixt_cur;
static bool ixt_cur_failed;
static char ixt_cur_case[256];
static unsigned long ixt_warnings;
static unsigned int ixt_warn_expecting;

void ixt_test_register(struct ixt_test *test)
{
	if (ixt_nr_tests == IXT_MAX_TESTS) {
		fprintf(stderr, "too many tests; raise IXT_MAX_TESTS\n");
		exit(2);
	}
	ixt_tests[ixt_nr_tests++] = test;
}

void ixt_test_case(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(ixt_cur_case, sizeof(ixt_cur_case), fmt, ap);
	va_end(ap);
}

/* The end of a failure's diagnostics: a fuzzer stops there. */
static void ixt_fail_done(void)
{
#ifdef IXT_TEST_FUZZ
	fflush(stdout);
	abort();
#endif
}

static void ixt_fail(const char *file, int line)
{
	ixt_cur_failed = true;
	printf("# %s:%d: in %s", file, line, ixt_cur ? ixt_cur->name : "?");
	if (ixt_cur_case[0])
		printf(", case %s", ixt_cur_case);
	printf("\n");
}

bool ixt_test_check(bool ok, const char *file, int line, const char *what)
{
	if (!ok) {
		ixt_fail(file, line);
		printf("#   expected %s\n", what);
		ixt_fail_done();
	}
	return ok;
}

bool ixt_test_check_eq(long long a, long long b, bool want_equal,
		       const char *file, int line, const char *ea,
		       const char *eb)
{
	bool equal = a == b;

	if (equal == want_equal)
		return true;
	ixt_fail(file, line);
	printf("#   expected %s\n", want_equal ? "equal" : "different");
	printf("#   left:  %s = %lld (%#llx)\n", ea, a, (unsigned long long)a);
	printf("#   right: %s = %lld (%#llx)\n", eb, b, (unsigned long long)b);
	ixt_fail_done();
	return false;
}

void ixt_warn(const char *file, int line, const char *cond)
{
	ixt_warnings++;
	if (ixt_warn_expecting)
		return;
	ixt_fail(file, line);
	printf("#   unexpected WARN_ON(%s)\n", cond);
	ixt_fail_done();
}

unsigned long ixt_test_warn_begin(void)
{
	ixt_warn_expecting++;
	return ixt_warnings;
}

bool ixt_test_warn_end(unsigned long since, unsigned long want,
		       const char *file, int line)
{
	unsigned long got = ixt_warnings - since;

	ixt_warn_expecting--;
	if (got == want)
		return true;
	ixt_fail(file, line);
	printf("#   expected %lu warnings, got %lu\n", want, got);
	ixt_fail_done();
	return false;
}

/*
 * Set by the MEXPECT_*() and MASSERT_*() checks that fail; the tests of a
 * model clear it before a run and stop the run once it is set.
 */
bool ixt_model_failed;

/**
 * ixt_model_note() - note the outcome of a model's check
 * @ok: what the check returned.
 *
 * Sets ixt_model_failed if @ok is false.
 *
 * Return: @ok.
 */
bool ixt_model_note(bool ok)
{
	if (!ok)
		ixt_model_failed = true;
	return ok;
}

/**
 * ixt_rng() - the next number of a splitmix64 generator
 * @state: the generator's state, which a fixed seed starts.
 *
 * The same seed gives the same numbers, so that every run of a test tests
 * the same cases.
 *
 * Return: 64 random bits.
 */
u64 ixt_rng(u64 *state)
{
	u64 z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/**
 * ixt_rng_range() - a number of a splitmix64 generator within bounds
 * @state: the generator's state, as for ixt_rng().
 * @lo: the smallest number wanted.
 * @hi: the largest number wanted, not below @lo.
 *
 * Draws one number of ixt_rng(), whatever the bounds.
 *
 * Return: a number in [@lo, @hi].
 */
u32 ixt_rng_range(u64 *state, u32 lo, u32 hi)
{
	return lo + ixt_rng(state) % ((u64)hi - lo + 1);
}

#ifndef IXT_TEST_FUZZ
static int ixt_test_cmp(const void *a, const void *b)
{
	const struct ixt_test *x = *(struct ixt_test * const *)a;
	const struct ixt_test *y = *(struct ixt_test * const *)b;
	int ret = strcmp(x->file, y->file);

	return ret ? ret : x->line - y->line;
}

int main(int argc, char **argv)
{
	const char *filter = argc > 1 ? argv[1] : NULL;
	unsigned int i, n = 0, passed = 0, failed = 0;

	/* Keep the output in order with a crash report on stderr. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	qsort(ixt_tests, ixt_nr_tests, sizeof(ixt_tests[0]), ixt_test_cmp);

	for (i = 0; i < ixt_nr_tests; i++)
		if (!filter || strstr(ixt_tests[i]->name, filter))
			n++;
	printf("TAP version 13\n1..%u\n", n);

	n = 0;
	for (i = 0; i < ixt_nr_tests; i++) {
		if (filter && !strstr(ixt_tests[i]->name, filter))
			continue;
		ixt_cur = ixt_tests[i];
		ixt_cur_failed = false;
		ixt_cur_case[0] = '\0';
		ixt_cur->fn();
		if (ixt_cur_failed)
			failed++;
		else
			passed++;
		printf("%s %u - %s\n", ixt_cur_failed ? "not ok" : "ok", ++n,
		       ixt_cur->name);
	}
	printf("%u passed, %u failed\n", passed, failed);
	return failed ? 1 : 0;
}
#endif /* !IXT_TEST_FUZZ */
