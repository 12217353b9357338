/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tiny unit-test framework for the user-space builds of iscsi_xt's pure
 * files.
 *
 * TEST(name) { ... } defines and registers a test. Inside it, EXPECT_*()
 * records a failure and carries on; ASSERT_*() records it and leaves the
 * test. IXT_CASE() names the table row or case at hand, for the failure
 * messages. EXPECT_WARNS() runs a statement that must hit WARN_ON() a
 * given number of times; a warning anywhere else fails the test.
 *
 * The runner prints TAP ("ok N - name", "not ok N - name", diagnostics
 * as "# ..." lines) and ends with exactly one line "N passed, N failed";
 * it exits non-zero if any test failed. An argument runs only the tests
 * whose names contain it.
 *
 * For brute-force models: MEXPECT_*() and MASSERT_*() check as EXPECT_*()
 * and ASSERT_*() do and also set ixt_model_failed on a failure, so that a
 * model can stop at its first one instead of printing one for every step
 * that follows; ixt_rng() and ixt_rng_range() draw random cases from a
 * state each test seeds itself, so that every run tests the same numbers.
 */
#ifndef _IXT_TEST_H
#define _IXT_TEST_H

#include <stdbool.h>

#include <linux/types.h>

/**
 * struct ixt_test - one registered test
 * @name: name printed in the TAP line.
 * @file: source file that defines it, for ordering.
 * @line: line of the definition, for ordering.
 * @fn: the test body.
 */
struct ixt_test {
	const char *name;
	const char *file;
	int line;
	void (*fn)(void);
};

void ixt_test_register(struct ixt_test *test);
void ixt_test_case(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));
bool ixt_test_check(bool ok, const char *file, int line, const char *what);
bool ixt_test_check_eq(long long a, long long b, bool want_equal,
		       const char *file, int line, const char *ea,
		       const char *eb);
unsigned long ixt_test_warn_begin(void);
bool ixt_test_warn_end(unsigned long since, unsigned long want,
		       const char *file, int line);

extern bool ixt_model_failed;
bool ixt_model_note(bool ok);

u64 ixt_rng(u64 *state);
u32 ixt_rng_range(u64 *state, u32 lo, u32 hi);

#define TEST(test)							\
	static void ixt_test_fn_##test(void);				\
	static struct ixt_test ixt_test_##test = {			\
		.name = #test,						\
		.file = __FILE__,					\
		.line = __LINE__,					\
		.fn = ixt_test_fn_##test,				\
	};								\
	static void __attribute__((constructor))			\
	ixt_test_reg_##test(void)					\
	{								\
		ixt_test_register(&ixt_test_##test);			\
	}								\
	static void ixt_test_fn_##test(void)

#define IXT_CASE(...)		ixt_test_case(__VA_ARGS__)

#define EXPECT_TRUE(cond)						\
	ixt_test_check(!!(cond), __FILE__, __LINE__, #cond)
#define EXPECT_FALSE(cond)						\
	ixt_test_check(!(cond), __FILE__, __LINE__, "!(" #cond ")")
#define EXPECT_EQ(a, b)							\
	ixt_test_check_eq((long long)(a), (long long)(b), true,	\
			  __FILE__, __LINE__, #a, #b)
#define EXPECT_NE(a, b)							\
	ixt_test_check_eq((long long)(a), (long long)(b), false,	\
			  __FILE__, __LINE__, #a, #b)

#define MEXPECT_TRUE(cond)	ixt_model_note(EXPECT_TRUE(cond))
#define MEXPECT_FALSE(cond)	ixt_model_note(EXPECT_FALSE(cond))
#define MEXPECT_EQ(a, b)	ixt_model_note(EXPECT_EQ(a, b))
#define MEXPECT_NE(a, b)	ixt_model_note(EXPECT_NE(a, b))

/* Returns from the test, or from the helper it is used in, unless @ok. */
#define IXT_RETURN_UNLESS(ok)						\
	do {								\
		if (!(ok))						\
			return;						\
	} while (0)

#define ASSERT_TRUE(cond)	IXT_RETURN_UNLESS(EXPECT_TRUE(cond))
#define ASSERT_FALSE(cond)	IXT_RETURN_UNLESS(EXPECT_FALSE(cond))
#define ASSERT_EQ(a, b)		IXT_RETURN_UNLESS(EXPECT_EQ(a, b))
#define ASSERT_NE(a, b)		IXT_RETURN_UNLESS(EXPECT_NE(a, b))

#define MASSERT_TRUE(cond)	IXT_RETURN_UNLESS(MEXPECT_TRUE(cond))
#define MASSERT_EQ(a, b)	IXT_RETURN_UNLESS(MEXPECT_EQ(a, b))

#define EXPECT_WARNS(n, stmt)						\
	do {								\
		unsigned long __ixt_since = ixt_test_warn_begin();	\
		stmt;							\
		ixt_test_warn_end(__ixt_since, (n), __FILE__, __LINE__);\
	} while (0)

#endif /* _IXT_TEST_H */
