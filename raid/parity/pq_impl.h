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
 * The streaming path's shapes (pq_simd_body.h): X(index, name, lines, prefetch, distance). A
 * shape reads `lines` cache lines (1 or 2, PQ_SHAPE_LINES_MAX) of every source a step, whatever
 * the vector width (AVX2: 2 or 4 vectors; AVX-512: 1 or 2), and prefetches every source line
 * `distance` bytes ahead into L1 (prefetcht0), into L2 (prefetcht1), into both (L2 that far
 * ahead, L1 256 bytes ahead) or not at all. Which is fastest depends on the core and on k, not on
 * the ISA (docs/parity.md, "Shapes"); the rule (pq_shape_of()) gives each CPU its own.
 */
enum { PQ_PF_NONE, PQ_PF_L1, PQ_PF_L2, PQ_PF_L12 };
#define PQ_SHAPES(X)                                                                               \
	X(0, "l12-1l", 1, PQ_PF_L12, 2048)                                                         \
	X(1, "l2-2k", 2, PQ_PF_L2, 2048)                                                           \
	X(2, "l1-256-1l", 1, PQ_PF_L1, 256)                                                        \
	X(3, "none", 2, PQ_PF_NONE, 0)                                                             \
	X(4, "l1-1k", 2, PQ_PF_L1, 1024)
#define PQ_NSHAPES 5
#define PQ_SHAPE_LINES_MAX 2
#define PQ_PF_L1_NEAR 256 /* PQ_PF_L12's L1 distance */
/* indices of PQ_SHAPES that the rule names */
#define PQ_SHAPE_L12_1L 0
#define PQ_SHAPE_L2_2K 1
#define PQ_SHAPE_NONE 3

struct pq_shape {
	const char *name;
	int lines, pf, dist;
};
extern const struct pq_shape pq_shapes[PQ_NSHAPES];

/*
 * The shape a streaming loop of k data blocks of len bytes reads in: the twin's (stream) or the
 * size rule's on a stripe past L2 (!stream). The rule's (pq_rule.c) unless pq_shape_forced is a
 * shape index: the tests and the bench set it to run every shape.
 */
int pq_shape_of(int k, size_t len, bool stream);
extern int pq_shape_forced; /* -1: the rule's */

/* A SIMD variant and its twin (defined by pq_simd_body.h). */
struct pq_family {
	const struct pq_calls *variant, *twin;
};
/* every SIMD variant's family, widest first (the rule's order), NULL-terminated (pq.c) */
extern const struct pq_family pq_family_avx2, pq_family_avx512, pq_family_avx512gfni;
extern const struct pq_family *const pq_families[];
/* the family of SIMD variant c (not of a twin), NULL for base and isal */
const struct pq_family *pq_family_of(const struct pq_calls *c);

/* ISA-L's pq_gen/xor_gen (non-temporal stores of their own) with our streaming recovery: isal's
 * twin */
extern const struct pq_calls pq_calls_isal_stream;

/*
 * The SIMD variants write their outputs with non-temporal stores when the blocks a call
 * touches add up to more than this many bytes (see pq_simd_body.h): the size of this CPU's
 * L2 cache, read once (sysconf), 1 MiB when unknown. raid-parity-bench showed streaming
 * stores losing on stripes that fit in L2 and winning on those that do not (docs/parity.md).
 */
size_t pq_stream_min(void);

/* The rule's variant, RAID_PARITY_IMPL aside (pq_rule.c): what "isal" falls back on for the
 * operations ISA-L does not have. */
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

/*
 * A multiplication by g that leaves 0x1d in every result (mul2(q) ^ 0x1d: cheaper in some
 * variants, MUL2_BIASED in pq_simd_body.h) leaves pq_horner_bias[n] in a Horner sum of n steps
 * begun from a true value: E_n = g E_{n-1} ^ 0x1d, E_0 = 0, that is 0x1d (g^n ^ 1) / (g ^ 1).
 * Literal like the field tables (gf.c); pq_base_test checks it against that recurrence.
 */
extern const uint8_t pq_horner_bias[PQ_MAX_DATA + 2];

/* c * x = c * (x & 0x0f) ^ c * (x & 0xf0): two 16-entry tables, for vpshufb. */
static inline void pq_nibble_tables(uint8_t c, uint8_t lo[16], uint8_t hi[16])
{
	for (int i = 0; i < 16; i++) {
		lo[i] = pq_gf_mul(c, (uint8_t)i);
		hi[i] = pq_gf_mul(c, (uint8_t)(i << 4));
	}
}

#endif
