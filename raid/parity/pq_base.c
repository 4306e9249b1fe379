/*
 * pq_base.c - the portable scalar variant ("base"): the reference every other variant, ISA-L
 * and the CUDA kernels are compared with, byte for byte. It works on 64-bit words (eight GF
 * bytes at a time) for gen and xor, and bytewise through the log tables for the
 * multiplications by constants in recovery. Kept simple rather than fast: it must stay
 * obviously right, and pq_base_test checks it against a table-free bytewise model.
 */
#include <string.h>

#include "pq.h"
#include "pq_impl.h"

typedef uint64_t word;

static inline word ld(const uint8_t *p)
{
	word w;

	memcpy(&w, p, sizeof(w)); /* buffers may start at any address */
	return w;
}

static inline void st(uint8_t *p, word w)
{
	memcpy(p, &w, sizeof(w));
}

/* Multiply each of the eight bytes by g = 2: shift left, and fold 0x1d into bytes whose top bit
 * fell out. */
static inline word mul2(word v)
{
	word hi = v & 0x8080808080808080ull;
	word mask = (hi << 1) - (hi >> 7); /* 0xff in each byte whose top bit was set */

	return ((v << 1) & 0xfefefefefefefefeull) ^ (mask & 0x1d1d1d1d1d1d1d1dull);
}

static int base_valid(void)
{
	return 1;
}

static void base_gen_p(int k, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k];

	for (size_t o = 0; o < len; o += sizeof(word)) {
		word wp = ld(d[0] + o);

		for (int i = 1; i < k; i++)
			wp ^= ld(d[i] + o);
		st(p + o, wp);
	}
}

static void base_gen_pq(int k, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k], *q = d[k + 1];

	for (size_t o = 0; o < len; o += sizeof(word)) {
		/* Horner from the highest block down: Q = (..(D_{k-1} g + D_{k-2}) g ..) + D_0 */
		word wp = ld(d[k - 1] + o), wq = wp;

		for (int i = k - 2; i >= 0; i--) {
			word wd = ld(d[i] + o);

			wp ^= wd;
			wq = mul2(wq) ^ wd;
		}
		st(p + o, wp);
		st(q + o, wq);
	}
}

static void base_xor_p(int k, int a, int b, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k];

	for (size_t o = 0; o < len; o += sizeof(word)) {
		word wp = ld(p + o);

		for (int i = a; i <= b; i++)
			wp ^= ld(d[i] + o);
		st(p + o, wp);
	}
}

static void base_xor_pq(int k, int a, int b, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k], *q = d[k + 1];

	for (size_t o = 0; o < len; o += sizeof(word)) {
		word wp = ld(d[b] + o), wq = wp;

		for (int i = b - 1; i >= a; i--) {
			word wd = ld(d[i] + o);

			wp ^= wd;
			wq = mul2(wq) ^ wd;
		}
		/* the sum so far is relative to D_a: scale it up to g^a */
		for (int i = 0; i < a; i++)
			wq = mul2(wq);
		st(p + o, ld(p + o) ^ wp);
		st(q + o, ld(q + o) ^ wq);
	}
}

/* P' and Q' of the surviving data: the lost blocks fa and fb (fb may be -1) count as zero. */
static void syndrome_without(int k, int fa, int fb, size_t o, uint8_t **d, word *pp, word *qq)
{
	word wp = 0, wq = 0;

	for (int i = k - 1; i >= 0; i--) {
		wq = mul2(wq);
		if (i == fa || i == fb)
			continue;
		word wd = ld(d[i] + o);

		wp ^= wd;
		wq ^= wd;
	}
	*pp = wp;
	*qq = wq;
}

static void base_recov_2d(int k, int fa, int fb, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k], *q = d[k + 1];
	uint8_t pbmul, qmul;

	pq_recov_2d_coef(fa, fb, &pbmul, &qmul);
	for (size_t o = 0; o < len; o += sizeof(word)) {
		word wp, wq;

		syndrome_without(k, fa, fb, o, d, &wp, &wq);
		/* what is left is D_fa ^ D_fb in P, g^fa D_fa ^ g^fb D_fb in Q */
		uint8_t px[8], qx[8], db[8];

		st(px, wp ^ ld(p + o));
		st(qx, wq ^ ld(q + o));
		for (int j = 0; j < 8; j++)
			db[j] = pq_gf_mul(pbmul, px[j]) ^ pq_gf_mul(qmul, qx[j]);
		st(d[fb] + o, ld(db));
		st(d[fa] + o, ld(px) ^ ld(db));
	}
}

static void base_recov_dp(int k, int fa, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t *p = d[k], *q = d[k + 1];
	uint8_t inv = pq_gf_inv(pq_gf_exp[fa]);

	for (size_t o = 0; o < len; o += sizeof(word)) {
		word wp, wq;

		syndrome_without(k, fa, -1, o, d, &wp, &wq);
		/* what is left in Q is g^fa D_fa */
		uint8_t qx[8], da[8];

		st(qx, wq ^ ld(q + o));
		for (int j = 0; j < 8; j++)
			da[j] = pq_gf_mul(inv, qx[j]);
		st(d[fa] + o, ld(da));
		st(p + o, wp ^ ld(da));
	}
}

const struct pq_calls pq_calls_base = {
    .name = "base",
    .valid = base_valid,
    .gen_p = base_gen_p,
    .gen_pq = base_gen_pq,
    .xor_p = base_xor_p,
    .xor_pq = base_xor_pq,
    .recov_2d = base_recov_2d,
    .recov_dp = base_recov_dp,
};
