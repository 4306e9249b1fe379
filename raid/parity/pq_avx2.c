/*
 * pq_avx2.c - the AVX2 variant ("avx2"): 32-byte vectors, four side by side (two cache lines a
 * step: as fast as one hot, much faster streaming; docs/parity.md). Multiplication by g is
 * add/vpshufb/xor, off by a constant the body takes out (mul2xor());
 * multiplication by a constant in recovery is two vpshufb lookups of 16-entry nibble tables.
 */
#pragma GCC target("avx2")
#include <immintrin.h>

#include "pq_impl.h"

#define VARIANT avx2
#define V __m256i
#define W 32
#ifndef U
#define U 4 /* measured best on gen (docs/parity.md) */
#endif
#define LOADU(p) _mm256_loadu_si256((const __m256i *)(p))
#define STOREU(p, v) _mm256_storeu_si256((__m256i *)(p), (v))
#define STREAM(p, v) _mm256_stream_si256((__m256i *)(p), (v))
#define XOR(a, b) _mm256_xor_si256((a), (b))
#define ZERO() _mm256_setzero_si256()

/*
 * q * g ^ d ^ 0x1d. Multiplication by g is q + q, xored with the polynomial 0x1d in the bytes
 * whose top bit was set. That mask takes two instructions (vpcmpgtb, vpand; vpblendvb is one
 * on AMD Zen, but two to three on Intel's P-cores and microcoded on its E-cores, uops.info).
 * vpshufb of a table of 0x1d everywhere takes one on every AVX2 core and gives the opposite:
 * 0x1d where the top bit is clear, zero where it is set. So the result is off by 0x1d in every
 * byte, a constant the body takes out once a sum (MUL2_BIASED, unbias()). On the Zen 5, hot
 * gen against ISA-L's AVX2 code went from 1.03x to 1.06x (geometric mean of the nine bands),
 * at k = 10 64 KiB from 0.90x to 0.96x (docs/parity.md, Variants).
 */
static inline __attribute__((always_inline)) __m256i mul2xor(__m256i q, __m256i d)
{
	__m256i notpoly = _mm256_shuffle_epi8(_mm256_set1_epi8(0x1d), q);

	return _mm256_xor_si256(_mm256_xor_si256(_mm256_add_epi8(q, q), notpoly), d);
}
#define MUL2XOR(q, d) mul2xor((q), (d))
#define MUL2_BIASED
#define SET1(b) _mm256_set1_epi8((char)(b))

typedef struct {
	__m256i lo, hi;
} mulc_avx2;
#define MULC_T mulc_avx2

#define MULC_INIT(t, c) mulc_init(&(t), (c))

static inline __attribute__((always_inline)) __m256i mulc(mulc_avx2 t, __m256i v)
{
	__m256i mask = _mm256_set1_epi8(0x0f);
	__m256i lo = _mm256_shuffle_epi8(t.lo, _mm256_and_si256(v, mask));
	__m256i hi = _mm256_shuffle_epi8(t.hi, _mm256_and_si256(_mm256_srli_epi16(v, 4), mask));

	return _mm256_xor_si256(lo, hi);
}
#define MULC(t, v) mulc((t), (v))

static inline void mulc_init(mulc_avx2 *t, uint8_t c)
{
	uint8_t lo[16], hi[16];

	pq_nibble_tables(c, lo, hi);
	t->lo = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)lo));
	t->hi = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)hi));
}

#include "pq_simd_body.h"

static int avx2_valid(void)
{
	return __builtin_cpu_supports("avx2");
}

const struct pq_calls pq_calls_avx2 = {
    .name = "avx2",
    .valid = avx2_valid,
    .gen_p = avx2_gen_p,
    .gen_pq = avx2_gen_pq,
    .xor_p = avx2_xor_p,
    .xor_pq = avx2_xor_pq,
    .recov_2d = avx2_recov_2d,
    .recov_dp = avx2_recov_dp,
};

/* the streaming twin (pq_streaming()): never selected; RMW is the variant's own */
const struct pq_calls pq_calls_avx2_stream = {
    .name = "avx2-stream",
    .valid = avx2_valid,
    .gen_p = avx2_stream_gen_p,
    .gen_pq = avx2_stream_gen_pq,
    .xor_p = avx2_xor_p,
    .xor_pq = avx2_xor_pq,
    .recov_2d = avx2_stream_recov_2d,
    .recov_dp = avx2_stream_recov_dp,
};
