/*
 * pq_simd_body.h - the body of every x86 SIMD variant, written once over a handful of vector
 * macros that each variant file (pq_avx2.c, pq_avx512.c, ...) defines before including it:
 *
 *   V                 the vector type, W its width in bytes (32 or 64; 64 % W == 0)
 *   LOADU(p) STOREU(p, v) STREAM(p, v)   unaligned load/store, non-temporal store (W-aligned)
 *   XOR(a, b) ZERO()  MUL2XOR(q, d): q * g ^ d, bytewise in GF(2^8)
 *   MUL2_BIASED, SET1(b) optional: MUL2XOR gives q * g ^ d ^ 0x1d in every byte (cheaper that
 *                     way: pq_avx2.c), and SET1 broadcasts a byte; the body then xors each
 *                     Horner sum with what its steps left (unbias())
 *   XOR3(a, b, c)     optional: a ^ b ^ c in one instruction (default: two XORs)
 *   HORNER2(q, x1, x0) optional: (q * g ^ x1) * g ^ x0, two Horner steps at once; a variant
 *                     defines it when it can do better than two MUL2XORs (GFNI: q * g^2 ^
 *                     x1 * g ^ x0, two independent multiplications and one three-way xor)
 *   MULC_T MULC_INIT(t, c) MULC(t, v): multiplication of every byte by the constant c
 *   VARIANT           the name prefix of the functions and of the pq_calls instance
 *
 * Why one body: the algorithms (Horner's rule for Q, the single-pass recoveries) must be the
 * same in every variant; only the instructions differ. Each step handles U vectors side by
 * side (U * W bytes; each variant file picks U by measurement, -DU=... to experiment); a tail
 * handles the last 64-byte multiples one vector at a time. Generation takes the data blocks two
 * at a time (XOR3, HORNER2), which halves the xor instructions where a three-way xor exists.
 *
 * Stores: parity written by gen_p/gen_pq and blocks rebuilt by recovery go through
 * non-temporal stores when the stripe the call touches is larger than the L2 cache
 * (pq_stream_min(), read from the CPU at first use) and the outputs are W-aligned: such a
 * stripe cannot stay in L2 anyway, and streaming saves the read-for-ownership of every output
 * line. Smaller stripes (a hot stripe, an RMW) use ordinary stores.
 *
 * The body also defines the variant's streaming twin (FN(stream_*), see pq_twin() in pq.h):
 * the same generation and recovery with non-temporal stores and source prefetch whenever the
 * outputs are W-aligned, whatever the size, for callers that know the stripe is cold and its
 * outputs go to a device. Its xor_p/xor_pq are the variant's own: an RMW reads the parities it
 * writes, so their lines are in cache and streaming would save nothing. How a streaming loop
 * reads (vectors a step, prefetch level and distance) is one of PQ_SHAPES (pq_impl.h), given by
 * the rule (pq_shape_of()).
 */
#include <stdbool.h>
#include <stdint.h>

#include "pq.h"
#include "pq_impl.h"

#define CAT2(a, b) a##b
#define CAT(a, b) CAT2(a, b)
#define FN(x) CAT(VARIANT, CAT(_, x))
#define AI static inline __attribute__((always_inline))
/* the lane loops must unroll fully so that the U accumulators live in registers */
#define LANES(l, n) _Pragma("GCC unroll 8") for (int l = 0; l < (n); l++)

/*
 * How the streaming path reads (gen and recovery with non-temporal stores): one of the shapes of
 * PQ_SHAPES (pq_impl.h), the rule's for this CPU and k (pq_shape_of()), the twin's (always) or
 * the size rule's. Each shape is a loop of its own, specialised at compile time (lanes, prefetch
 * level and distance are constants in it).
 */
AI int cur_shape(int k, size_t len, bool always)
{
	return pq_shape_of(k, len, always);
}

/* vectors a step of a shape that reads `lines` cache lines of every source */
#define LANES_OF(lines) ((lines)*64 / W)
/* the most vectors a step holds: U (ordinary stores) or a shape's widest step */
#define NV (U > LANES_OF(PQ_SHAPE_LINES_MAX) ? U : LANES_OF(PQ_SHAPE_LINES_MAX))
/* RUN(lanes, prefetch, distance) with shape s's constants; RUN is defined by the caller */
#define SHAPE_CASE(i, name, lines, pf, dist)                                                       \
	case i:                                                                                    \
		RUN(LANES_OF(lines), pf, dist);                                                    \
		break;
#define SHAPED(s)                                                                                  \
	switch (s) {                                                                               \
		PQ_SHAPES(SHAPE_CASE)                                                              \
	default:                                                                                   \
		RUN(U, PQ_PF_NONE, 0);                                                             \
	}

#ifndef XOR3
#define XOR3(a, b, c) XOR(XOR((a), (b)), (c))
#endif
#ifndef HORNER2
#define HORNER2(q, x1, x0) MUL2XOR(MUL2XOR((q), (x1)), (x0))
#endif

/*
 * q, a Horner sum of n MUL2XOR steps begun from a true value, made exact (MUL2_BIASED: xor with
 * what the steps left, pq_horner_bias[n]). The byte goes through an empty asm so that the
 * broadcast stays at the end of each step: hoisted out of the loop (the first version passed
 * the vector in), it held a register the accumulators needed, and the AVX2 loops spilled them
 * to the stack (hot gen at k = 4 lost 5-10% against the same code with no correction).
 */
AI V unbias(V q, int n)
{
#ifdef MUL2_BIASED
	uint8_t b = pq_horner_bias[n];

	__asm__ volatile("" : "+r"(b));
	return XOR(q, SET1(b));
#else
	(void)n;
	return q;
#endif
}

AI void put(uint8_t *p, V v, bool nt)
{
	if (nt)
		STREAM(p, v);
	else
		STOREU(p, v);
}

/*
 * nblocks blocks of len bytes are read or written by the call; a and b are its outputs.
 * `always`: the streaming twin, which streams whatever the size.
 */
AI bool stream_ok(bool always, int nblocks, size_t len, const void *a, const void *b)
{
	return (always || len * (size_t)nblocks > pq_stream_min()) &&
	       (((uintptr_t)a | (uintptr_t)b) % W) == 0;
}

/* every cache line of the step, in each of blocks lo..hi, dist bytes ahead */
AI void prefetch_blocks(uint8_t **d, int lo, int hi, size_t o, int lanes, int pf, int dist)
{
	if (pf == PQ_PF_NONE)
		return;
	for (int i = lo; i <= hi; i++)
		for (int b = 0; b < lanes * W; b += 64) {
			const uint8_t *p = d[i] + o + dist + b;

			if (pf == PQ_PF_L1) {
				__builtin_prefetch(p, 0, 3); /* prefetcht0 */
			} else if (pf == PQ_PF_L2) {
				__builtin_prefetch(p, 0, 2); /* prefetcht1 */
			} else { /* far into L2, then near into L1 from there */
				__builtin_prefetch(p, 0, 2);
				__builtin_prefetch(p - dist + PQ_PF_L1_NEAR, 0, 3);
			}
		}
}

/* ---- gen_p ---- */

AI void gen_p_step(int k, size_t o, uint8_t **d, int n, bool nt)
{
	V p[NV];
	int i = k - 1;

	LANES(l, n)
	p[l] = LOADU(d[i] + o + l * W);
	for (i--; i >= 1; i -= 2)
		LANES(l, n)
	p[l] = XOR3(p[l], LOADU(d[i] + o + l * W), LOADU(d[i - 1] + o + l * W));
	if (i == 0)
		LANES(l, n)
	p[l] = XOR(p[l], LOADU(d[0] + o + l * W));
	LANES(l, n)
	put(d[k] + o + l * W, p[l], nt);
}

AI void gen_p_run(int k, size_t len, uint8_t **d, bool nt, int lanes, int pf, int dist)
{
	size_t o = 0;

	for (; o + lanes * W <= len; o += lanes * W) {
		prefetch_blocks(d, 0, k - 1, o, lanes, pf, dist);
		gen_p_step(k, o, d, lanes, nt);
	}
	for (; o < len; o += W)
		gen_p_step(k, o, d, 1, nt);
}

AI void gen_p_any(int k, size_t len, void **ptrs, bool always)
{
	uint8_t **d = (uint8_t **)ptrs;

	if (stream_ok(always, k + 1, len, d[k], d[k])) {
#define RUN(l, pf, dist) gen_p_run(k, len, d, true, l, pf, dist)
		SHAPED(cur_shape(k, len, always));
#undef RUN
		__builtin_ia32_sfence();
	} else {
		gen_p_run(k, len, d, false, U, PQ_PF_NONE, 0);
	}
}

static void FN(gen_p)(int k, size_t len, void **ptrs)
{
	gen_p_any(k, len, ptrs, false);
}

static void FN(stream_gen_p)(int k, size_t len, void **ptrs)
{
	gen_p_any(k, len, ptrs, true);
}

/* ---- gen_pq ---- */

AI void gen_pq_step(int k, size_t o, uint8_t **d, int n, bool nt)
{
	V p[NV], q[NV];
	int i = k - 1;

	LANES(l, n)
	p[l] = q[l] = LOADU(d[i] + o + l * W);
	/* Horner's rule from D_{k-1} down, two blocks a round */
	for (i--; i >= 1; i -= 2) {
		LANES(l, n)
		{
			V x1 = LOADU(d[i] + o + l * W), x0 = LOADU(d[i - 1] + o + l * W);

			p[l] = XOR3(p[l], x1, x0);
			q[l] = HORNER2(q[l], x1, x0);
		}
	}
	if (i == 0) {
		LANES(l, n)
		{
			V x = LOADU(d[0] + o + l * W);

			p[l] = XOR(p[l], x);
			q[l] = MUL2XOR(q[l], x);
		}
	}
	LANES(l, n)
	{
		put(d[k] + o + l * W, p[l], nt);
		put(d[k + 1] + o + l * W, unbias(q[l], k - 1), nt);
	}
}

AI void gen_pq_run(int k, size_t len, uint8_t **d, bool nt, int lanes, int pf, int dist)
{
	size_t o = 0;

	for (; o + lanes * W <= len; o += lanes * W) {
		prefetch_blocks(d, 0, k - 1, o, lanes, pf, dist);
		gen_pq_step(k, o, d, lanes, nt);
	}
	for (; o < len; o += W)
		gen_pq_step(k, o, d, 1, nt);
}

AI void gen_pq_any(int k, size_t len, void **ptrs, bool always)
{
	uint8_t **d = (uint8_t **)ptrs;

	if (stream_ok(always, k + 2, len, d[k], d[k + 1])) {
#define RUN(l, pf, dist) gen_pq_run(k, len, d, true, l, pf, dist)
		SHAPED(cur_shape(k, len, always));
#undef RUN
		__builtin_ia32_sfence();
	} else {
		gen_pq_run(k, len, d, false, U, PQ_PF_NONE, 0);
	}
}

static void FN(gen_pq)(int k, size_t len, void **ptrs)
{
	gen_pq_any(k, len, ptrs, false);
}

static void FN(stream_gen_pq)(int k, size_t len, void **ptrs)
{
	gen_pq_any(k, len, ptrs, true);
}

/* ---- xor_p, xor_pq: read-modify-write, the parities are hot: ordinary stores ---- */

AI void xor_p_step(int k, int a, int b, size_t o, uint8_t **d, int n)
{
	V p[NV];

	LANES(l, n)
	p[l] = LOADU(d[k] + o + l * W);
	for (int i = a; i <= b; i++)
		LANES(l, n)
	p[l] = XOR(p[l], LOADU(d[i] + o + l * W));
	LANES(l, n)
	STOREU(d[k] + o + l * W, p[l]);
}

static void FN(xor_p)(int k, int a, int b, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	size_t o = 0;

	for (; o + U * W <= len; o += U * W)
		xor_p_step(k, a, b, o, d, U);
	for (; o < len; o += W)
		xor_p_step(k, a, b, o, d, 1);
}

AI void xor_pq_step(int k, int a, int b, size_t o, uint8_t **d, int n)
{
	V p[NV], q[NV];

	LANES(l, n)
	p[l] = q[l] = LOADU(d[b] + o + l * W);
	for (int i = b - 1; i >= a; i--) {
		LANES(l, n)
		{
			V x = LOADU(d[i] + o + l * W);

			p[l] = XOR(p[l], x);
			q[l] = MUL2XOR(q[l], x);
		}
	}
	/* the sum is relative to D_a: scale it by g^a (md's "right side" of xor_syndrome) */
	for (int i = 0; i < a; i++)
		LANES(l, n)
	q[l] = MUL2XOR(q[l], ZERO());
	LANES(l, n)
	{
		STOREU(d[k] + o + l * W, XOR(p[l], LOADU(d[k] + o + l * W)));
		STOREU(d[k + 1] + o + l * W, XOR(unbias(q[l], b), LOADU(d[k + 1] + o + l * W)));
	}
}

static void FN(xor_pq)(int k, int a, int b, size_t len, void **ptrs)
{
	uint8_t **d = (uint8_t **)ptrs;
	size_t o = 0;

	for (; o + U * W <= len; o += U * W)
		xor_pq_step(k, a, b, o, d, U);
	for (; o < len; o += W)
		xor_pq_step(k, a, b, o, d, 1);
}

/* ---- recovery: one pass that recomputes P' and Q' of the survivors and solves at once ---- */

/* P' and Q' without blocks fa and fb (fb = -1 for one lost block) */
AI void survivors(int k, int fa, int fb, size_t o, uint8_t **d, int n, V *p, V *q)
{
	LANES(l, n)
	p[l] = q[l] = ZERO();
	for (int i = k - 1; i >= 0; i--) {
		if (i == fa || i == fb) {
			LANES(l, n)
			q[l] = MUL2XOR(q[l], ZERO());
			continue;
		}
		LANES(l, n)
		{
			V x = LOADU(d[i] + o + l * W);

			p[l] = XOR(p[l], x);
			q[l] = MUL2XOR(q[l], x);
		}
	}
	LANES(l, n)
	q[l] = unbias(q[l], k);
}

AI void recov_2d_step(int k, int fa, int fb, size_t o, uint8_t **d, int n, const MULC_T *pbm,
		      const MULC_T *qm, bool nt)
{
	V p[NV], q[NV];

	survivors(k, fa, fb, o, d, n, p, q);
	LANES(l, n)
	{
		V px = XOR(p[l], LOADU(d[k] + o + l * W));
		V qx = XOR(q[l], LOADU(d[k + 1] + o + l * W));
		V db = XOR(MULC(*pbm, px), MULC(*qm, qx));

		put(d[fb] + o + l * W, db, nt);
		put(d[fa] + o + l * W, XOR(px, db), nt);
	}
}

AI void recov_2d_run(int k, int fa, int fb, size_t len, uint8_t **d, const MULC_T *pbm,
		     const MULC_T *qm, bool nt, int lanes, int pf, int dist)
{
	size_t o = 0;

	for (; o + lanes * W <= len; o += lanes * W) {
		prefetch_blocks(d, 0, k + 1, o, lanes, pf, dist);
		recov_2d_step(k, fa, fb, o, d, lanes, pbm, qm, nt);
	}
	for (; o < len; o += W)
		recov_2d_step(k, fa, fb, o, d, 1, pbm, qm, nt);
}

AI void recov_2d_any(int k, int fa, int fb, size_t len, void **ptrs, bool always)
{
	uint8_t **d = (uint8_t **)ptrs;
	uint8_t pb, qc;
	MULC_T pbm, qm;

	pq_recov_2d_coef(fa, fb, &pb, &qc);
	MULC_INIT(pbm, pb);
	MULC_INIT(qm, qc);
	if (stream_ok(always, k + 2, len, d[fa], d[fb])) {
#define RUN(l, pf, dist) recov_2d_run(k, fa, fb, len, d, &pbm, &qm, true, l, pf, dist)
		SHAPED(cur_shape(k, len, always));
#undef RUN
		__builtin_ia32_sfence();
	} else {
		recov_2d_run(k, fa, fb, len, d, &pbm, &qm, false, U, PQ_PF_NONE, 0);
	}
}

static void FN(recov_2d)(int k, int fa, int fb, size_t len, void **ptrs)
{
	recov_2d_any(k, fa, fb, len, ptrs, false);
}

static void FN(stream_recov_2d)(int k, int fa, int fb, size_t len, void **ptrs)
{
	recov_2d_any(k, fa, fb, len, ptrs, true);
}

AI void recov_dp_step(int k, int fa, size_t o, uint8_t **d, int n, const MULC_T *inv, bool nt)
{
	V p[NV], q[NV];

	survivors(k, fa, -1, o, d, n, p, q);
	LANES(l, n)
	{
		V da = MULC(*inv, XOR(q[l], LOADU(d[k + 1] + o + l * W)));

		put(d[fa] + o + l * W, da, nt);
		put(d[k] + o + l * W, XOR(p[l], da), nt);
	}
}

AI void recov_dp_run(int k, int fa, size_t len, uint8_t **d, const MULC_T *inv, bool nt, int lanes,
		     int pf, int dist)
{
	size_t o = 0;

	for (; o + lanes * W <= len; o += lanes * W) {
		prefetch_blocks(d, 0, k + 1, o, lanes, pf, dist);
		recov_dp_step(k, fa, o, d, lanes, inv, nt);
	}
	for (; o < len; o += W)
		recov_dp_step(k, fa, o, d, 1, inv, nt);
}

AI void recov_dp_any(int k, int fa, size_t len, void **ptrs, bool always)
{
	uint8_t **d = (uint8_t **)ptrs;
	MULC_T inv;

	MULC_INIT(inv, pq_gf_inv(pq_gf_exp[fa]));
	if (stream_ok(always, k + 2, len, d[fa], d[k])) {
#define RUN(l, pf, dist) recov_dp_run(k, fa, len, d, &inv, true, l, pf, dist)
		SHAPED(cur_shape(k, len, always));
#undef RUN
		__builtin_ia32_sfence();
	} else {
		recov_dp_run(k, fa, len, d, &inv, false, U, PQ_PF_NONE, 0);
	}
}

static void FN(recov_dp)(int k, int fa, size_t len, void **ptrs)
{
	recov_dp_any(k, fa, len, ptrs, false);
}

static void FN(stream_recov_dp)(int k, int fa, size_t len, void **ptrs)
{
	recov_dp_any(k, fa, len, ptrs, true);
}

/* the variant and its twin, for pq_twin() (pq.c) */
const struct pq_family CAT(pq_family_, VARIANT) = {
    .variant = &CAT(pq_calls_, VARIANT),
    .twin = &CAT(pq_calls_, CAT(VARIANT, _stream)),
};
