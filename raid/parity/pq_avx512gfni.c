/*
 * pq_avx512gfni.c - the "avx512gfni" variant: AVX-512BW vectors with GFNI's gf2p8affineqb doing
 * every GF multiplication (by g in Q, by constants in recovery) in one instruction. The
 * affine instruction multiplies each byte by an 8x8 bit matrix; for "multiply by c" in md's
 * field (0x11d) column j of that matrix is c * 2^j, so any polynomial works (gf2p8mulb is
 * fixed to AES's 0x11b and would give wrong bytes).
 */
#pragma GCC target("avx512f,avx512bw,avx512vl,gfni")
#include <immintrin.h>

#include "pq_impl.h"

#include "pq_avx512_vec.h"

#define VARIANT avx512gfni

/*
 * The affine matrix of "multiply by c": byte 7 - i of the qword is row i, the set of input
 * bits j whose image c * 2^j has bit i set.
 */
static uint64_t gf_matrix(uint8_t c)
{
	uint64_t m = 0;

	for (int i = 0; i < 8; i++) {
		uint8_t row = 0;

		for (int j = 0; j < 8; j++)
			if (pq_gf_mul(c, (uint8_t)(1u << j)) & (1u << i))
				row |= (uint8_t)(1u << j);
		m |= (uint64_t)row << (8 * (7 - i));
	}
	return m;
}

/* gf_matrix(2) and gf_matrix(4), written out so the hot loop loads constants */
#define MATRIX_G 0x8001828488102040ull
#define MATRIX_G2 0x408041c2c4881020ull
#define MULM(v, m) _mm512_gf2p8affine_epi64_epi8((v), _mm512_set1_epi64((long long)(m)), 0)

#define MUL2XOR(q, d) _mm512_xor_si512(MULM((q), MATRIX_G), (d))
/* q g^2 ^ x1 g ^ x0: the two multiplications do not wait on each other */
#define HORNER2(q, x1, x0) XOR3(MULM((q), MATRIX_G2), MULM((x1), MATRIX_G), (x0))

#define MULC_T __m512i
#define MULC_INIT(t, c) ((t) = _mm512_set1_epi64((long long)gf_matrix(c)))
#define MULC(t, v) _mm512_gf2p8affine_epi64_epi8((v), (t), 0)

#include "pq_simd_body.h"

static int avx512gfni_valid(void)
{
	return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
	       __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("gfni") &&
	       gf_matrix(2) == MATRIX_G && gf_matrix(4) == MATRIX_G2;
}

const struct pq_calls pq_calls_avx512gfni = {
    .name = "avx512gfni",
    .valid = avx512gfni_valid,
    .gen_p = avx512gfni_gen_p,
    .gen_pq = avx512gfni_gen_pq,
    .xor_p = avx512gfni_xor_p,
    .xor_pq = avx512gfni_xor_pq,
    .recov_2d = avx512gfni_recov_2d,
    .recov_dp = avx512gfni_recov_dp,
};

/* the streaming twin (pq_streaming()): never selected; RMW is the variant's own */
const struct pq_calls pq_calls_avx512gfni_stream = {
    .name = "avx512gfni-stream",
    .valid = avx512gfni_valid,
    .gen_p = avx512gfni_stream_gen_p,
    .gen_pq = avx512gfni_stream_gen_pq,
    .xor_p = avx512gfni_xor_p,
    .xor_pq = avx512gfni_xor_pq,
    .recov_2d = avx512gfni_stream_recov_2d,
    .recov_dp = avx512gfni_stream_recov_dp,
};
