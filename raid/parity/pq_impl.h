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
 * the ISA: l1-1k is the first round's choice, measured on a Xeon (Sapphire Rapids); on an AMD
 * Zen 4 it ran at 0.6x of ISA-L, l12-1l at 1.15-1.24x (k = 10) and 1.65-1.9x (k = 22), while at
 * k = 4 only none and l1-256-1l kept up with ISA-L; on a Zen 5 every software prefetch lost
 * (0.5-0.8x ISA-L) and none won, the AVX-512 twins by 5-10% more with two lines a step than
 * with one (docs/parity.md). So every variant's shape is chosen by timing at the first streaming
 * use, per band of k (pq_select.c), not from a table of CPU names.
 * The order is the preference among shapes that time within PQ_SEL_PREFER of each other.
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
/* the shape used before the streaming selection has run (the variants' size rule can run first) */
#define PQ_SHAPE_DEFAULT 1

struct pq_shape {
	const char *name;
	int lines, pf, dist;
};
extern const struct pq_shape pq_shapes[PQ_NSHAPES];

/*
 * The bands both selections time separately: three of k (timed at PQ_BAND_KS) times three of
 * block length (timed at PQ_BAND_LENS), band index pq_sel_band(k, len) = kband * PQ_SEL_LBANDS +
 * lband. On a Zen 4 the streaming shape fastest at k = 10 ran at 0.87x of ISA-L at k = 4, and at
 * 4 KiB blocks our streaming gen ran at 0.81-0.90x ISA-L while at 64 KiB it was 1.01-1.22x
 * (docs/parity.md). A length band's bounds are the geometric middles between the timed lengths.
 */
#define PQ_BAND_KS                                                                                 \
	{                                                                                          \
		4, 10, 22                                                                          \
	}
#define PQ_BAND_LENS                                                                               \
	{                                                                                          \
		4096, 65536, 1048576                                                               \
	}
static inline int pq_band(int k)
{
	return k <= 6 ? 0 : k <= 15 ? 1 : 2;
}

static inline int pq_len_band(size_t len)
{
	return len <= 16384 ? 0 : len <= 262144 ? 1 : 2;
}

static inline int pq_sel_band(int k, size_t len)
{
	return pq_band(k) * PQ_SEL_LBANDS + pq_len_band(len);
}

/*
 * Where a call through a selection's choice goes, by band (pq_sel_band()): the band winners'
 * calls, set (atomically) once the selection has run; before that the routing variants below
 * are not handed out. pq_route[use][band].
 */
extern const struct pq_calls *pq_route[2][PQ_SEL_BANDS];
/* the routing variants: every call to its band's pq_route entry */
extern const struct pq_calls pq_calls_route_hot, pq_calls_route_stream;

/* A SIMD variant as the streaming selection sees it (defined by pq_simd_body.h). */
struct pq_family {
	const struct pq_calls *variant, *twin;
	/* the twin's gen_pq in shape s (an index of PQ_SHAPES), for timing */
	void (*gen_pq_shaped)(int s, int k, size_t len, void **ptrs);
	/* per band (pq_sel_band()): the shape the twin uses (the streaming selection's); atomic */
	int *shape;
	/* per band: the shape the variant's size rule uses on a stripe past L2, which the caller
	 * has just written (the hot selection's; PQ_SHAPE_DEFAULT until it runs); atomic */
	int *hot_shape;
};
/*
 * The shapes the hot selection times a variant in, in the bands whose stripe is past L2 (where
 * its size rule streams): the default, and none. On a Zen 4 with AVX-512, k = 22 and 64 KiB
 * blocks hot (a 1.5 MiB stripe, in L3), avx512gfni ran at 0.75-0.78x ISA-L with l2-2k and
 * 1.27-1.29x with none; at k = 22 and 1 MiB blocks (24 MiB) l2-2k was the faster (1.80-1.95x
 * against 1.36-1.44x).
 */
#define PQ_HOT_SHAPES                                                                              \
	{                                                                                          \
		PQ_SHAPE_DEFAULT, 3                                                                \
	}
#define PQ_HOT_NSHAPES 2
extern const struct pq_family pq_family_avx2, pq_family_avx512, pq_family_avx512gfni;
/* every SIMD variant's family, widest first (the preference on a tie), NULL-terminated (pq.c) */
extern const struct pq_family *const pq_families[];
/* the family of SIMD variant c (not of a twin), NULL for base, isal and the routing variants */
const struct pq_family *pq_family_of(const struct pq_calls *c);

/* ISA-L's pq_gen/xor_gen (non-temporal stores of their own) with our streaming recovery: what
 * pq_streaming() returns when ISA-L won the streaming selection or isal is the variant */
extern const struct pq_calls pq_calls_isal_stream;

/*
 * The SIMD variants write their outputs with non-temporal stores when the blocks a call
 * touches add up to more than this many bytes (see pq_simd_body.h): the size of this CPU's
 * L2 cache, read once (sysconf), 1 MiB when unknown. raid-parity-bench showed streaming
 * stores losing on stripes that fit in L2 and winning on those that do not (docs/parity.md).
 */
size_t pq_stream_min(void);

/* a gen_pq stripe of k data blocks of len bytes (P and Q with them) is past L2: the size rule
 * streams it; the hot selection times such a band's variants in each of PQ_HOT_SHAPES */
static inline bool pq_stripe_past_l2(int k, size_t len)
{
	return (size_t)(k + 2) * len > pq_stream_min();
}

/*
 * The choice rule of both selections: among the n candidates idx[0..n) (indices into gbps, in
 * their fixed order of preference), the first whose figure is within PQ_SEL_PREFER (1%) of the
 * fastest; -1 when n is 0. A tie broken by a fixed order keeps the choice the same from run to
 * run between kernels the timing cannot tell apart. The margin is not the 3% of the stability
 * criterion (PQ_SEL_TIE): a selection's own figures move by several percent from run to run, so
 * a choice up to 3% slower than its run's fastest was often more than 3% slower than the
 * fastest over five runs (in six checks of five fresh selections each, 7.8 bands of 18 unstable
 * on average with a 3% margin, 5.2 with 1%, 4.8 with none).
 */
int pq_sel_pick(const double *gbps, const int *idx, int n);

/*
 * Whether candidate c of s takes part in its band's choice: a finalist (timed to its band's last
 * round, struct pq_candidate's finals) in most of the runs s is the medians of, in one run that
 * run's. A candidate dropped after the first rounds keeps the median of those rounds, and the
 * finalists' medians over all of them came out lower than their medians over the first ones: on
 * the Xeon of a 480 MiB L3, streaming k = 4 4 KiB, ISA-L ran at 6.4-7.8 GB/s in the first five
 * rounds and 8.2-9.5 in the rest, so that avx512gfni-stream none fell from 1.45-1.83x to
 * 1.36-1.49x, and a shape dropped at 1.39x or 1.53x (0.77x of none head to head) was chosen in
 * two of five runs. Dropped, it had lost to a finalist over the rounds they shared. In a band
 * decided after its first rounds every candidate is a finalist: a rule that took only those timed
 * past them in some run left a kept selection nothing but ISA-L (1.00x) where the winner (1.15x)
 * had been dropped in the one run in which its band was not decided early.
 */
static inline bool pq_sel_finalist(const struct pq_selection *s, int c)
{
	return 2 * s->cand[c].finals > s->runs;
}

/*
 * pq_select.c for pq_route.c: the selection of use that a process puts in use, read from the file
 * RAID_PARITY_SELECTION names or measured, with each family's shape per band (pq_family's shape
 * and hot_shape) set from it; 0, or -ENOMEM (nothing set).
 */
int pq_select_use(enum pq_use use, struct pq_selection *s);

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

/*
 * A selection kept in a file (pq_keep.c, RAID_PARITY_SELECTION=FILE): measured PQ_KEEP_RUNS times
 * by the first process that needs it, each candidate's median of them kept; read by the others.
 * pq_keep_lock() takes FILE.lock (an fd, or -errno) for the read-or-measure-and-write;
 * pq_keep_read() fills s's figures (s holds this build's candidates) from the record of s->use:
 * 0, -ENOENT (none yet), -ESTALE (another machine) or -EINVAL, *why saying what was wrong;
 * pq_keep_write() replaces that record (the other use's stays), atomically (rename); -errno.
 * PQ_KEEP_RUNS is in pq.h.
 */
#define PQ_KEEP_RUNS_MAX 20
/*
 * The kernels' revision, kept with a selection: raised by every change that moves a kernel's
 * speed or how the selection times them, so that a file measured before is measured again
 * rather than choosing by its figures. 2: the multiplication by g without a mask (avx2,
 * avx512; pq_avx2.c). 3: the hot bands of 12 and 24 MiB stripes timed alone (pq_select.c).
 * 4: hot finalists judged in steady rounds (pq_select.c, steady_round()).
 */
#define PQ_KERNELS_REV 4
int pq_keep_lock(const char *path);
void pq_keep_unlock(int fd);
int pq_keep_read(const char *path, struct pq_selection *s, const char **why);
int pq_keep_write(const char *path, const struct pq_selection *s);
void pq_keep_stamp(struct pq_selection *s); /* s->measured: now */

#endif
