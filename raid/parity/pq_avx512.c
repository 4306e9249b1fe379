/*
 * pq_avx512.c - the AVX-512BW variant ("avx512"): 64-byte vectors, one cache line a step.
 * Multiplication by g is q + q, the polynomial's complement by vpshufb (see pq_avx2.c's
 * mul2xor()) and one three-way xor (vpternlogd) that also folds in the data: three
 * instructions where the mask of the top bits (vpmovb2m, a masked move) took four (hot gen
 * 1.08x ISA-L before, 1.21x after, on the Zen 5: docs/parity.md); multiplication by a
 * constant in recovery is two vpshufb lookups of 16-entry nibble tables. pq_avx512gfni.c is
 * the same body with GFNI multiplications.
 */
#pragma GCC target("avx512f,avx512bw,avx512vl")
#include <immintrin.h>

#include "pq_impl.h"

#include "pq_avx512_vec.h"

#define VARIANT avx512

static inline __attribute__((always_inline)) __m512i mul2xor(__m512i q, __m512i d)
{
	__m512i notpoly = _mm512_shuffle_epi8(_mm512_set1_epi8(0x1d), q); /* off by 0x1d */

	return _mm512_ternarylogic_epi32(_mm512_add_epi8(q, q), notpoly, d, 0x96);
}
#define MUL2XOR(q, d) mul2xor((q), (d))
#define MUL2_BIASED
#define SET1(b) _mm512_set1_epi8((char)(b))

typedef struct {
	__m512i lo, hi;
} mulc_avx512;
#define MULC_T mulc_avx512

#define MULC_INIT(t, c) mulc_init(&(t), (c))

static inline __attribute__((always_inline)) __m512i mulc(mulc_avx512 t, __m512i v)
{
	__m512i mask = _mm512_set1_epi8(0x0f);
	__m512i lo = _mm512_shuffle_epi8(t.lo, _mm512_and_si512(v, mask));
	__m512i hi = _mm512_shuffle_epi8(t.hi, _mm512_and_si512(_mm512_srli_epi16(v, 4), mask));

	return _mm512_xor_si512(lo, hi);
}
#define MULC(t, v) mulc((t), (v))

static inline void mulc_init(mulc_avx512 *t, uint8_t c)
{
	uint8_t lo[16], hi[16];

	pq_nibble_tables(c, lo, hi);
	t->lo = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)lo));
	t->hi = _mm512_broadcast_i32x4(_mm_loadu_si128((const __m128i *)hi));
}

#include "pq_simd_body.h"

static int avx512_valid(void)
{
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl");
}

const struct pq_calls pq_calls_avx512 = {
    .name = "avx512",
    .valid = avx512_valid,
    .gen_p = avx512_gen_p,
    .gen_pq = avx512_gen_pq,
    .xor_p = avx512_xor_p,
    .xor_pq = avx512_xor_pq,
    .recov_2d = avx512_recov_2d,
    .recov_dp = avx512_recov_dp,
};

/* the streaming twin (pq_streaming()): never selected; RMW is the variant's own */
const struct pq_calls pq_calls_avx512_stream = {
    .name = "avx512-stream",
    .valid = avx512_valid,
    .gen_p = avx512_stream_gen_p,
    .gen_pq = avx512_stream_gen_pq,
    .xor_p = avx512_xor_p,
    .xor_pq = avx512_xor_pq,
    .recov_2d = avx512_stream_recov_2d,
    .recov_dp = avx512_stream_recov_dp,
};
