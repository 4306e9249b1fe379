/*
 * pq_isal.c - the "isal" variant: ISA-L's pq_gen and xor_gen (their own runtime dispatch)
 * for generation, our fastest SIMD variant for what ISA-L has no function for (RMW update,
 * recovery). Also the yardstick of the tests and the benchmark.
 *
 * Its streaming twin, "isal-stream", is below.
 *
 * ISA-L's rules are stricter than ours: every pointer 32-byte aligned, at least two data
 * blocks, an int length. Calls outside them go to our code, so "isal" accepts all that the
 * API accepts.
 */
#include <isa-l/raid.h>
#include <limits.h>
#include <stdbool.h>

#include "pq.h"
#include "pq_impl.h"

static int isal_fits(int nptrs, size_t len, void **ptrs)
{
	uintptr_t bits = 0;

	if (len > INT_MAX)
		return 0;
	for (int i = 0; i < nptrs; i++)
		bits |= (uintptr_t)ptrs[i];
	return bits % 32 == 0;
}

static int isal_valid(void)
{
	return 1; /* ISA-L picks its own code path, down to portable C */
}

/* our variant for what ISA-L refuses: the best native one, or its twin when streaming */
static const struct pq_calls *ours(bool stream)
{
	return stream ? pq_twin(pq_best_native()) : pq_best_native();
}

/* ISA-L when its rules are met, else ours (looked up only then) */
static void isal_gen_p_or(bool stream, int k, size_t len, void **ptrs)
{
	if (k >= 2 && isal_fits(k + 1, len, ptrs) && xor_gen(k + 1, (int)len, ptrs) == 0)
		return;
	ours(stream)->gen_p(k, len, ptrs);
}

static void isal_gen_pq_or(bool stream, int k, size_t len, void **ptrs)
{
	if (k >= 2 && isal_fits(k + 2, len, ptrs) && pq_gen(k + 2, (int)len, ptrs) == 0)
		return;
	ours(stream)->gen_pq(k, len, ptrs);
}

static void isal_gen_p(int k, size_t len, void **ptrs)
{
	isal_gen_p_or(false, k, len, ptrs);
}

static void isal_gen_pq(int k, size_t len, void **ptrs)
{
	isal_gen_pq_or(false, k, len, ptrs);
}

static void isal_xor_p(int k, int a, int b, size_t len, void **ptrs)
{
	pq_best_native()->xor_p(k, a, b, len, ptrs);
}

static void isal_xor_pq(int k, int a, int b, size_t len, void **ptrs)
{
	pq_best_native()->xor_pq(k, a, b, len, ptrs);
}

static void isal_recov_2d(int k, int fa, int fb, size_t len, void **ptrs)
{
	pq_best_native()->recov_2d(k, fa, fb, len, ptrs);
}

static void isal_recov_dp(int k, int fa, size_t len, void **ptrs)
{
	pq_best_native()->recov_dp(k, fa, len, ptrs);
}

const struct pq_calls pq_calls_isal = {
    .name = "isal",
    .valid = isal_valid,
    .gen_p = isal_gen_p,
    .gen_pq = isal_gen_pq,
    .xor_p = isal_xor_p,
    .xor_pq = isal_xor_pq,
    .recov_2d = isal_recov_2d,
    .recov_dp = isal_recov_dp,
};

/*
 * "isal-stream": ISA-L's pq_gen and xor_gen already store non-temporally (vmovntdq), so they are
 * their own streaming twin; recovery, and what ISA-L refuses, go to our best variant's twin.
 */
static void isal_stream_gen_p(int k, size_t len, void **ptrs)
{
	isal_gen_p_or(true, k, len, ptrs);
}

static void isal_stream_gen_pq(int k, size_t len, void **ptrs)
{
	isal_gen_pq_or(true, k, len, ptrs);
}

static void isal_stream_recov_2d(int k, int fa, int fb, size_t len, void **ptrs)
{
	pq_twin(pq_best_native())->recov_2d(k, fa, fb, len, ptrs);
}

static void isal_stream_recov_dp(int k, int fa, size_t len, void **ptrs)
{
	pq_twin(pq_best_native())->recov_dp(k, fa, len, ptrs);
}

const struct pq_calls pq_calls_isal_stream = {
    .name = "isal-stream",
    .valid = isal_valid,
    .gen_p = isal_stream_gen_p,
    .gen_pq = isal_stream_gen_pq,
    .xor_p = isal_xor_p,
    .xor_pq = isal_xor_pq,
    .recov_2d = isal_stream_recov_2d,
    .recov_dp = isal_stream_recov_dp,
};
