/*
 * bench_select_test.c - the stability check's explanation of an unstable band
 * (bench_select.c): the fastest changed between runs only when each of two kernels was more
 * than 5% ahead of the other in some run, by that run's own figures; a choice won within 5%,
 * or a kernel ahead in every run, is no change of the machine. And the verdict of a band settled
 * head to head: two candidates compared round by round with the bounds of the median
 * (bench_sel_paired()), and the band's verdict from those (bench_sel_settled()).
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

#define ROUNDS 90

/* b, and a = b * (g + w * u[r]) round by round, u[] every value of -0.5..0.5 in steps of 1/89
 * once, shuffled: the median of a / b is g + w * 0.5 / 89 and its 95% bounds (the 36th smallest
 * and largest of 90, by the sign test) g -+ w * 19 / 178 */
static void rounds_of(double g, double w, const double *b, double *a)
{
	for (int r = 0; r < ROUNDS; r++)
		a[r] = b[r] * (g + w * ((r * 37 % ROUNDS) / 89.0 - 0.5));
}

static const double *reference(void)
{
	static double b[ROUNDS];

	for (int r = 0; r < ROUNDS; r++) /* the machine's drift, shared by every candidate */
		b[r] = 1.1 + 0.3 * ((r * 53 % ROUNDS) / 89.0);
	return b;
}

static void test_paired(void **state)
{
	const double *b = reference();
	double a[ROUNDS];
	struct bench_sel_ratio r;

	bench_sel_paired(b, b, ROUNDS, &r); /* a candidate against itself */
	assert_true(r.lo == 1 && r.med == 1 && r.hi == 1);
	rounds_of(0.95, 0.1, b, a);
	bench_sel_paired(a, b, ROUNDS, &r);
	assert_float_equal(r.med, 0.95 + 0.1 * 0.5 / 89, 1e-9);
	assert_float_equal(r.lo, 0.95 - 0.1 * 19 / 178, 1e-9);
	assert_float_equal(r.hi, 0.95 + 0.1 * 19 / 178, 1e-9);
	/* with five rounds no 95% bounds exist: the smallest and the largest */
	static const double x[] = {2, 1, 4, 3, 5}, one[] = {1, 1, 1, 1, 1};

	bench_sel_paired(x, one, 5, &r);
	assert_true(r.lo == 1 && r.med == 3 && r.hi == 5);
}

/* a settled band: no chosen candidate shown more than 3% slower than another head to head */
static void test_settled(void **state)
{
	const double *b = reference();
	double rel[3 * ROUNDS];
	bool both[] = {true, true, false}, first[] = {true, false, false};
	struct bench_sel_gap g;

	memcpy(rel, b, sizeof(double) * ROUNDS);
	rounds_of(1.00, 0.1, b, rel + 2 * ROUNDS); /* an unchosen one, 20% behind: */
	for (int r = 0; r < ROUNDS; r++)	   /* ... 0.8 of the first */
		rel[2 * ROUNDS + r] *= 0.8;

	/* 5% behind, round by round within +-5%: shown slower (its upper bound is 0.961) */
	rounds_of(0.95, 0.1, b, rel + ROUNDS);
	assert_int_equal(bench_sel_settled(rel, both, 3, ROUNDS, &g), 0);
	assert_int_equal(g.slow, 1);
	assert_int_equal(g.than, 0);
	assert_true(g.r.hi < 0.97);
	assert_int_equal(bench_sel_settled(rel, first, 3, ROUNDS, &g), 2); /* nobody chose it */
	/* 4% behind within +-10%: bounds 0.939-0.981, not told apart from 3% either way */
	rounds_of(0.96, 0.2, b, rel + ROUNDS);
	assert_int_equal(bench_sel_settled(rel, both, 3, ROUNDS, &g), 1);
	assert_int_equal(g.slow, 1);
	/* 1% behind within +-5%: shown within (lower bound 0.979) */
	rounds_of(0.99, 0.1, b, rel + ROUNDS);
	assert_int_equal(bench_sel_settled(rel, both, 3, ROUNDS, &g), 2);
	/* the same kernel twice (an A/A pair) */
	memcpy(rel + ROUNDS, b, sizeof(double) * ROUNDS);
	assert_int_equal(bench_sel_settled(rel, both, 3, ROUNDS, &g), 2);
	assert_true(g.r.med == 1);
	/* a lone candidate: nothing to compare, stable; nothing measured: not stable */
	assert_int_equal(bench_sel_settled(rel, first, 1, ROUNDS, &g), 2);
	assert_int_equal(g.slow, -1);
	assert_int_equal(bench_sel_settled(rel, both, 0, ROUNDS, &g), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_flipped),
	    cmocka_unit_test(test_not_flipped),
	    cmocka_unit_test(test_paired),
	    cmocka_unit_test(test_settled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
