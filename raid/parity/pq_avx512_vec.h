/*
 * pq_avx512_vec.h - the 64-byte vector primitives pq_simd_body.h needs, shared by the two
 * AVX-512 variants (pq_avx512.c, pq_avx512gfni.c); each adds its own GF multiplications.
 * Include after <immintrin.h> in a file compiled for avx512f/bw/vl.
 */
#ifndef RAID_PARITY_PQ_AVX512_VEC_H
#define RAID_PARITY_PQ_AVX512_VEC_H

#define V __m512i
#define W 64
#ifndef U
#define U 1 /* measured best on gen (docs/parity.md) */
#endif
#define LOADU(p) _mm512_loadu_si512((const void *)(p))
#define STOREU(p, v) _mm512_storeu_si512((void *)(p), (v))
#define STREAM(p, v) _mm512_stream_si512((void *)(p), (v))
#define XOR(a, b) _mm512_xor_si512((a), (b))
#define ZERO() _mm512_setzero_si512()
#define XOR3(a, b, c) _mm512_ternarylogic_epi64((a), (b), (c), 0x96)

#endif
