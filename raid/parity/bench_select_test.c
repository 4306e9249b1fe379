/*
 * bench_select_test.c - the stability check's explanation of an unstable band
 * (bench_select.c): the fastest changed between runs only when each of two kernels was more
 * than 5% ahead of the other in some run, by that run's own figures; a choice won within 5%,
 * or a kernel ahead in every run, is no change of the machine.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "bench_select.h"

static void test_flipped(void **state)
{
	/* k = 10, 64 KiB, hot, five kept selections of one check (2026-12-02): avx512, avx512gfni
	 */
	static const double a[] = {1.13, 1.09, 1.07, 1.03, 1.03},
			    b[] = {0.97, 0.97, 0.97, 1.14, 1.09};
	char ahead[5];

	assert_true(bench_sel_flipped(a, b, 5, ahead));
	assert_memory_equal(ahead, "aaabb", 5);
}

static void test_not_flipped(void **state)
{
	/* within 5% every run, one way or the other: noise */
	static const double a[] = {1.40, 1.35, 1.33, 1.48}, b[] = {1.37, 1.39, 1.32, 1.45};
	/* a ahead by more in every run: a faster kernel, not a change */
	static const double c[] = {1.30, 1.32, 1.29}, d[] = {1.10, 1.12, 1.20};
	/* 4% each way is within the margin */
	static const double e[] = {1.04, 1.00}, f[] = {1.00, 1.04};
	char ahead[4];

	assert_false(bench_sel_flipped(a, b, 4, ahead));
	assert_memory_equal(ahead, "\0\0\0\0", 4);
	assert_false(bench_sel_flipped(c, d, 3, ahead));
	assert_memory_equal(ahead, "aaa", 3);
	assert_false(bench_sel_flipped(e, f, 2, ahead));
	/* a run each way, by more than 5%: a change, whichever is named first */
	static const double g[] = {0.97, 1.14, 1.09}, h[] = {1.07, 1.03, 1.03};

	assert_true(bench_sel_flipped(g, h, 3, ahead));
	assert_memory_equal(ahead, "baa", 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flipped),
	    cmocka_unit_test(test_not_flipped),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
