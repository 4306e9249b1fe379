/*
 * bench_select_test.c - the stability check's explanation of an unstable band
 * (bench_select.c): the fastest changed between runs only when each of two kernels was more
 * than 5% ahead of the other in some run, by that run's own figures; a choice won within 5%,
 * or a kernel ahead in every run, is no change of the machine. And the verdict of a band settled
 * head to head (bench_sel_settled()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
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

/* a settled band: every candidate chosen in some run within 3% of the fastest head to head */
static void test_settled(void **state)
{
	/* k = 10, 64 KiB, streaming, this Zen 5 (2026-12-02): two kernels and ISA-L head to head */
	static const double two[] = {1.22, 1.17, 1.00};
	static const bool both[] = {true, true, false}, first[] = {true, false, false};
	/* an A/A pair (the same kernel twice) and a slow shape nobody chose */
	static const double aa[] = {1.24, 1.23, 0.80};
	static const bool aa_chosen[] = {true, true, false};
	/* 3% exactly is within; a shape 20% behind that a run chose is not */
	static const double edge[] = {1.00, 0.97}, slow[] = {1.05, 1.31};

	assert_false(bench_sel_settled(two, both, 3)); /* 1.17 is 4.1% below 1.22 */
	assert_true(bench_sel_settled(two, first, 3));
	assert_true(bench_sel_settled(aa, aa_chosen, 3));
	assert_true(bench_sel_settled(edge, both, 2));
	assert_false(bench_sel_settled(slow, both, 2));
	assert_false(bench_sel_settled(two, both, 0)); /* nothing measured: not stable */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flipped),
	    cmocka_unit_test(test_not_flipped),
	    cmocka_unit_test(test_settled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
