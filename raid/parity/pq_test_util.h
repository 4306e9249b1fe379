/*
 * pq_test_util.h - shared by the parity tests (raid/parity/pq_*_test.c): a seeded generator,
 * stripes of k data blocks plus P and Q at chosen alignments, and the table-free bytewise
 * model of md's field that the reference is checked against.
 */
#ifndef RAID_PARITY_PQ_TEST_UTIL_H
#define RAID_PARITY_PQ_TEST_UTIL_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pq.h"
#include "pq_impl.h"

/* xorshift64*: fixed seed unless PQ_TEST_SEED is set, printed so a failure can be replayed */
static uint64_t t_rng_state;

static inline void t_seed(const char *prog)
{
	const char *s = getenv("PQ_TEST_SEED");

	t_rng_state = s ? strtoull(s, NULL, 0) : 0x9e3779b97f4a7c15ull;
	if (!t_rng_state)
		t_rng_state = 1;
	printf("%s: seed 0x%llx (set PQ_TEST_SEED to replay another)\n", prog,
	       (unsigned long long)t_rng_state);
}

static inline uint64_t t_rand(void)
{
	t_rng_state ^= t_rng_state >> 12;
	t_rng_state ^= t_rng_state << 25;
	t_rng_state ^= t_rng_state >> 27;
	return t_rng_state * 0x2545f4914f6cdd1dull;
}

/* uniform in [lo, hi] */
static inline int t_range(int lo, int hi)
{
	return lo + (int)(t_rand() % (uint64_t)(hi - lo + 1));
}

static inline void t_fill(uint8_t *p, size_t n)
{
	size_t i = 0;

	for (; i + 8 <= n; i += 8) {
		uint64_t r = t_rand();

		memcpy(p + i, &r, 8);
	}
	for (; i < n; i++)
		p[i] = (uint8_t)t_rand();
}

/*
 * k data blocks then P and Q, each in its own allocation with a guard zone after it, starting
 * `align_off` bytes past a 64-byte boundary (-1: a random offset per block).
 */
struct t_stripe {
	int k;
	size_t len;
	uint8_t *mem[PQ_MAX_DATA + 2];
	void *ptrs[PQ_MAX_DATA + 2];
};

#define T_GUARD 64
#define T_GUARD_BYTE 0xa5

static inline void t_stripe_init(struct t_stripe *s, int k, size_t len, int align_off)
{
	s->k = k;
	s->len = len;
	for (int i = 0; i < k + 2; i++) {
		int off = align_off >= 0 ? align_off : t_range(0, 63);

		s->mem[i] = aligned_alloc(64, len + 64 + T_GUARD);
		assert_non_null(s->mem[i]);
		memset(s->mem[i], T_GUARD_BYTE, len + 64 + T_GUARD);
		s->ptrs[i] = s->mem[i] + off;
		t_fill(s->ptrs[i], len);
	}
}

/* the bytes right after each block are untouched: no variant writes past len */
static inline void t_stripe_check_guards(const struct t_stripe *s)
{
	for (int i = 0; i < s->k + 2; i++) {
		const uint8_t *g = (const uint8_t *)s->ptrs[i] + s->len;

		for (int j = 0; j < T_GUARD; j++)
			assert_int_equal(g[j], T_GUARD_BYTE);
	}
}

static inline void t_stripe_free(struct t_stripe *s)
{
	for (int i = 0; i < s->k + 2; i++)
		free(s->mem[i]);
}

/* copies of every block (data, P, Q) of a stripe, to compare against later */
static inline uint8_t **t_stripe_save(const struct t_stripe *s)
{
	uint8_t **c = malloc((s->k + 2) * sizeof(*c));

	assert_non_null(c);
	for (int i = 0; i < s->k + 2; i++) {
		c[i] = malloc(s->len);
		assert_non_null(c[i]);
		memcpy(c[i], s->ptrs[i], s->len);
	}
	return c;
}

static inline void t_saved_free(const struct t_stripe *s, uint8_t **c)
{
	for (int i = 0; i < s->k + 2; i++)
		free(c[i]);
	free(c);
}

/* a lengths multiple of 64 in [64, max], biased towards small ones so big k stays cheap */
static inline size_t t_len(size_t max)
{
	size_t units = max / PQ_LEN_ALIGN;

	switch (t_rand() % 4) {
	case 0:
		return PQ_LEN_ALIGN * (size_t)t_range(1, 4);
	case 1:
		return PQ_LEN_ALIGN * (size_t)t_range(1, units < 64 ? (int)units : 64);
	default:
		return PQ_LEN_ALIGN * (size_t)t_range(1, (int)units);
	}
}

/* GF(2^8) with 0x11d by shift and xor, no tables: the independent model */
static inline uint8_t m_mul(uint8_t a, uint8_t b)
{
	unsigned r = 0, x = a;

	for (; b; b >>= 1) {
		if (b & 1)
			r ^= x;
		x <<= 1;
		if (x & 0x100)
			x ^= 0x11d;
	}
	return (uint8_t)r;
}

static inline uint8_t m_pow2(int i)
{
	uint8_t r = 1;

	while (i-- > 0)
		r = m_mul(r, 2);
	return r;
}

/* P and Q of data blocks a..b, byte by byte: sum D_i and sum g^i D_i */
static inline void m_syndrome(int a, int b, size_t len, void **ptrs, uint8_t *p, uint8_t *q)
{
	memset(p, 0, len);
	memset(q, 0, len);
	for (int i = a; i <= b; i++) {
		const uint8_t *d = ptrs[i];
		uint8_t c = m_pow2(i);

		for (size_t j = 0; j < len; j++) {
			p[j] ^= d[j];
			q[j] ^= m_mul(c, d[j]);
		}
	}
}

#endif
