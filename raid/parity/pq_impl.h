/*
 * pq_impl.h - internal to raid/parity: the variants' instances and the small pieces of GF
 * arithmetic they share (recovery coefficients, nibble tables). Not part of the API.
 */
#ifndef RAID_PARITY_PQ_IMPL_H
#define RAID_PARITY_PQ_IMPL_H

#include "pq.h"

extern const struct pq_calls pq_calls_avx2;
extern const struct pq_calls pq_calls_avx512;
extern const struct pq_calls pq_calls_avx512gfni;
extern const struct pq_calls pq_calls_isal;
/* the SIMD variants' streaming twins (pq_streaming()); not in pq_all_calls[] */
extern const struct pq_calls pq_calls_avx2_stream;
extern const struct pq_calls pq_calls_avx512_stream;
extern const struct pq_calls pq_calls_avx512gfni_stream;

/*
 * The SIMD variants write their outputs with non-temporal stores when the blocks a call
 * touches add up to more than this many bytes (see pq_simd_body.h): the size of this CPU's
 * L2 cache, read once (sysconf), 1 MiB when unknown. raid-parity-bench showed streaming
 * stores losing on stripes that fit in L2 and winning on those that do not (docs/parity.md).
 */
size_t pq_stream_min(void);

/* Our fastest valid SIMD variant by CPU features alone (no timing): what "isal" falls back on
 * for the operations ISA-L does not have. */
const struct pq_calls *pq_best_native(void);

/*
 * Two data blocks fa < fb lost. With Px = D_fa ^ D_fb and Qx = g^fa D_fa ^ g^fb D_fb (what P
 * and Q keep once the survivors are taken out): D_fb = pbmul * Px ^ qmul * Qx, D_fa = Px ^ D_fb,
 * where qmul = 1 / (g^fa ^ g^fb) and pbmul = g^fa * qmul.
 */
static inline void pq_recov_2d_coef(int fa, int fb, uint8_t *pbmul, uint8_t *qmul)
{
	uint8_t den = pq_gf_exp[fa] ^ pq_gf_exp[fb];

	*qmul = pq_gf_inv(den);
	*pbmul = pq_gf_mul(pq_gf_exp[fa], *qmul);
}

/* c * x = c * (x & 0x0f) ^ c * (x & 0xf0): two 16-entry tables, for vpshufb. */
static inline void pq_nibble_tables(uint8_t c, uint8_t lo[16], uint8_t hi[16])
{
	for (int i = 0; i < 16; i++) {
		lo[i] = pq_gf_mul(c, (uint8_t)i);
		hi[i] = pq_gf_mul(c, (uint8_t)(i << 4));
	}
}

#endif
