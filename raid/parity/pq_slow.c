/*
 * pq_slow.c - a test-only planted slowdown of the parity path: RAID_TEST_SLOW_PARITY=PERCENT
 * (read once) makes every generation and read-modify-write call do PERCENT% more parity work,
 * the same call again over that share of its length with the parity written to scratch, so
 * that the engine's results are unchanged. The exact tier's bench (tools/dev/workcount) plants
 * it to show that its gate catches a 25% and a 5% slower parity path; unset, nothing changes.
 */
#include <stdlib.h>
#include <string.h>

#include "pq.h"

static const struct pq_calls *slow_real;
static unsigned slow_pct;

/* the extra length: PERCENT% of len, whole PQ_LEN_ALIGN blocks (0: nothing extra) */
static size_t slow_len(size_t len)
{
	return len * slow_pct / 100 / PQ_LEN_ALIGN * PQ_LEN_ALIGN;
}

/* a copy of ptrs with the parity blocks (k, k + 1) on this thread's scratch */
static void **slow_ptrs(int k, size_t len, void **ptrs, void **out)
{
	static __thread void *scratch[2];
	static __thread size_t cap;

	if (len > cap) {
		for (int i = 0; i < 2; i++) {
			free(scratch[i]);
			scratch[i] = aligned_alloc(PQ_LEN_ALIGN, len);
			if (!scratch[i])
				abort();
		}
		cap = len;
	}
	memcpy(out, ptrs, sizeof(void *) * (size_t)k);
	out[k] = scratch[0];
	out[k + 1] = scratch[1];
	return out;
}

static void slow_gen_p(int k, size_t len, void **ptrs)
{
	void *p[PQ_MAX_DATA + 2];

	slow_real->gen_p(k, len, ptrs);
	if (slow_len(len))
		slow_real->gen_p(k, slow_len(len), slow_ptrs(k, slow_len(len), ptrs, p));
}

static void slow_gen_pq(int k, size_t len, void **ptrs)
{
	void *p[PQ_MAX_DATA + 2];

	slow_real->gen_pq(k, len, ptrs);
	if (slow_len(len))
		slow_real->gen_pq(k, slow_len(len), slow_ptrs(k, slow_len(len), ptrs, p));
}

static void slow_xor_p(int k, int a, int b, size_t len, void **ptrs)
{
	void *p[PQ_MAX_DATA + 2];

	slow_real->xor_p(k, a, b, len, ptrs);
	if (slow_len(len))
		slow_real->xor_p(k, a, b, slow_len(len), slow_ptrs(k, slow_len(len), ptrs, p));
}

static void slow_xor_pq(int k, int a, int b, size_t len, void **ptrs)
{
	void *p[PQ_MAX_DATA + 2];

	slow_real->xor_pq(k, a, b, len, ptrs);
	if (slow_len(len))
		slow_real->xor_pq(k, a, b, slow_len(len), slow_ptrs(k, slow_len(len), ptrs, p));
}

static struct pq_calls slow_calls;

const struct pq_calls *pq_test_slow(const struct pq_calls *c)
{
	const char *v = getenv("RAID_TEST_SLOW_PARITY");
	char *end;
	unsigned long pct = v ? strtoul(v, &end, 10) : 0;

	if (!c || !v || *end || !pct || pct > 1000)
		return c;
	if (slow_real && slow_real != c)
		return c; /* one variant wrapped per process: the exact tier's driver needs one */
	slow_real = c;
	slow_pct = (unsigned)pct;
	slow_calls = *c;
	slow_calls.gen_p = slow_gen_p;
	slow_calls.gen_pq = slow_gen_pq;
	slow_calls.xor_p = slow_xor_p;
	slow_calls.xor_pq = slow_xor_pq;
	return &slow_calls;
}
