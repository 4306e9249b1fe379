/*
 * pq.h - RAID 5/6 parity arithmetic: the one API that the CPU path, ISA-L and the CUDA
 * path all implement, and the scalar reference (`_base`) every other variant is tested
 * against.
 *
 * Conventions (ISA-L's, so ISA-L can be called through the same table):
 *   - `ptrs` holds k data blocks, then P at ptrs[k], then Q at ptrs[k+1];
 *   - `len` is a multiple of PQ_LEN_ALIGN bytes; buffers may start at any address;
 *   - Q is Linux md's syndrome: Q = sum over i of g^i * D_i in GF(2^8), polynomial 0x11d,
 *     g = 2, where D_0 is the first data block of the stripe in md's order (the member
 *     after Q, wrapping).
 * k goes from 1 to PQ_MAX_DATA.
 */
#ifndef RAID_PARITY_PQ_H
#define RAID_PARITY_PQ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PQ_LEN_ALIGN 64
#define PQ_MAX_DATA 62 /* RAID6 over 64 members */

/*
 * One variant: a const instance per implementation, like Linux's raid6_calls. Every
 * function must give the same bytes as pq_calls_base.
 */
struct pq_calls {
	const char *name; /* "base", "avx2", "isal", ... */
	/* non-zero when this CPU can run the variant */
	int (*valid)(void);
	/* P = xor of D_0..D_{k-1} */
	void (*gen_p)(int k, size_t len, void **ptrs);
	/* P and Q from D_0..D_{k-1} */
	void (*gen_pq)(int k, size_t len, void **ptrs);
	/* P ^= D_a ^ .. ^ D_b (a <= b < k); blocks outside a..b are not read */
	void (*xor_p)(int k, int a, int b, size_t len, void **ptrs);
	/*
	 * md's xor_syndrome: P ^= sum D_i, Q ^= sum g^i D_i for i in a..b; blocks outside
	 * a..b are not read. A read-modify-write calls it with the old data, then with the
	 * new data (or once with old ^ new).
	 */
	void (*xor_pq)(int k, int a, int b, size_t len, void **ptrs);
	/* two data blocks lost (fa < fb): rebuild both from the rest, P and Q */
	void (*recov_2d)(int k, int fa, int fb, size_t len, void **ptrs);
	/* data block fa and P lost: rebuild D_fa from Q, then P */
	void (*recov_dp)(int k, int fa, size_t len, void **ptrs);
};

extern const struct pq_calls pq_calls_base;

/* Every variant compiled in (valid or not), NULL-terminated: for tests and benchmarks. */
extern const struct pq_calls *const pq_all_calls[];

/*
 * The variant in use: chosen on first call by timing every valid variant (see pq_selection()
 * below), unless RAID_PARITY_IMPL=<name> forces one (an unknown or invalid name is reported on
 * stderr and ignored). Thread-safe.
 */
const struct pq_calls *pq_best(void);
/* pq_best()->name: for the benchmark's output and the engine's stats. */
const char *pq_best_name(void);

/*
 * n bytes of anonymous memory that start on a 2 MiB boundary, huge pages
 * advised; munmap(p, n) frees it; NULL when it cannot be mapped. For the stripes the selection
 * and the bench time: where a hot stripe lay in 4 KiB pages (the unaligned head of a mapping), the
 * pages' places in the physically indexed L2 changed from mapping to mapping, and with them a
 * kernel's figure (k = 10, 64 KiB, avx512gfni against ISA-L: 1.12-1.40x in twelve mappings;
 * 1.19-1.31x in huge pages), which one selection then saw in all of its runs.
 */
void *pq_map_huge(size_t n);
/* Look a variant up by name; NULL if unknown or not valid on this CPU. */
const struct pq_calls *pq_find(const char *name);

/*
 * The streaming counterpart of variant c, for a caller that knows the stripe is cold: its inputs
 * come from member reads and its outputs go to a device (DMA) or are not read again soon, as in
 * rebuild and scrub. Same bytes as c; generation and recovery write their outputs with
 * non-temporal stores whenever those are vector-aligned, whatever the size, and prefetch the
 * sources in the shape the streaming selection measured fastest for that variant on this CPU.
 * RMW (xor_p/xor_pq) is c's own: an RMW reads what it writes.
 *
 * For the variant in use (c == pq_best()) it returns the winner of the streaming selection,
 * which may be another variant's twin or ISA-L ("isal-stream"); unless RAID_PARITY_IMPL forced
 * the variant, then c's own twin. For any other c it is pq_twin(c). The first call runs the
 * streaming selection (a few hundred ms, once per process).
 */
const struct pq_calls *pq_streaming(const struct pq_calls *c);
/*
 * c's own twin, whatever was selected: "<name>-stream" for the SIMD variants, "isal-stream"
 * (ISA-L's generation, our best variant's streaming recovery) for isal, c itself for base and a
 * twin; for the hot selection's routing variant (pq_best() when its bands chose differently),
 * the streaming selection's choice. Twins are never in pq_all_calls[] nor known to pq_find().
 */
const struct pq_calls *pq_twin(const struct pq_calls *c);

/*
 * The selections, hot (pq_best()) and streaming (pq_streaming(pq_best())), like Linux lib/raid6:
 * every candidate is timed on gen_pq in rounds (one of every candidate a round), each round's
 * figures taken relative to the round's reference (ISA-L), and the first candidate (in a fixed
 * order) whose median ratio is within PQ_SEL_PREFER of the best wins: a burst of load changes a
 * round's figures, hardly their ratios, and kernels the timing cannot tell apart do not trade
 * places from run to run. PQ_SEL_TIE is the stability criterion (raid-parity-bench
 * --selection): a choice within 3% of the fastest is as good as the fastest. Candidates are timed
 * in bands: three of k (timed at k = 4, 10, 22) times three of block length (4 KiB, 64 KiB, 1 MiB),
 * and a call of that k and length uses its band's winner (pq_selected()): which kernel is fastest,
 * ours or ISA-L's, depends on both. After the first PQ_SEL_ROUNDS_FIRST rounds a band keeps timing
 * only the candidates within PQ_SEL_CLOSE of its best (and its reference), up to PQ_SEL_ROUNDS:
 * more rounds only where the choice is close; the choice is made among the candidates still timed
 * at the end (the band's finalists: pq_sel_finalist()). Hot: every valid variant, ISA-L's pq_gen
 * ("isal") included, on one stripe that stays in cache (where the stripe is past L2, each SIMD
 * variant in each of PQ_HOT_SHAPES: the shape its size rule then keeps), the finalists then
 * judged in PQ_SEL_STEADY steady rounds (turns of milliseconds, as a caller runs one kernel).
 * Stream: every valid SIMD variant's twin in every streaming shape, and ISA-L's pq_gen ("isal",
 * which stores non-temporally itself), on stripes walked through a pool larger than the last-level
 * cache: each variant also keeps its fastest shape per band. RAID_PARITY_LOG=1 prints each
 * selection's figures on stderr when it runs; the bench prints them always.
 */
enum pq_use { PQ_USE_HOT, PQ_USE_STREAM };
#define PQ_SEL_KBANDS 3
#define PQ_SEL_LBANDS 3
#define PQ_SEL_BANDS (PQ_SEL_KBANDS * PQ_SEL_LBANDS)
#define PQ_SEL_MAX 160
#define PQ_SEL_TIE 0.03
#define PQ_SEL_PREFER 0.01
#define PQ_SEL_ROUNDS_FIRST 5
#define PQ_SEL_ROUNDS 15
/* hot: the rounds in which a band's finalists are then timed as a caller runs one kernel, each
 * turn milliseconds long after a lead-in of its own calls (pq_select.c, steady_round()) */
#define PQ_SEL_STEADY 3
/* after the first rounds, what a band keeps timing: candidates within this of its best. It was 10%:
 * five rounds are too few for that on a shared machine (streaming, a Zen 5 dropped its fastest
 * candidate, 1.3x ISA-L head to head, at 1.00-1.05x after them); docs/parity.md */
#define PQ_SEL_CLOSE 0.20
/*
 * The selections a kept one (RAID_PARITY_SELECTION) is the median of. Five, not three: a median
 * of five outvotes two runs that one state of the machine coloured (a placement, a neighbour's
 * load: docs/parity.md), and with three, five kept selections in a row had 4.3-6.7 of their 18
 * bands unstable on average, with five 3.7.
 */
#define PQ_KEEP_RUNS 5

struct pq_selection {
	enum pq_use use;
	/* what pq_best() (hot) or pq_streaming(pq_best()) returns: the one winner of every band,
	 * or, when the bands chose differently, a variant that routes each call to its band's
	 * (named after the winners, "avx2+isal") */
	const struct pq_calls *chosen;
	const char *forced; /* RAID_PARITY_IMPL when it decided the variant, else NULL */
	int n, best;	    /* candidates timed; the choice at k = 10, 64 KiB (-1 if none timed) */
	int nbands;
	double cpu_s;	   /* the CPU time the selection took, pool and stripe set-up included */
	int runs;	   /* selections its figures are medians of: 1, or PQ_KEEP_RUNS when kept */
	const char *kept;  /* RAID_PARITY_SELECTION's file when kept there, else NULL */
	bool loaded;	   /* read from that file (measured by an earlier process) */
	char measured[24]; /* when kept: the UTC time it was measured, "2026-12-01T19:55:00Z" */
	struct pq_band_pick {
		int k;	    /* the k the band was timed at */
		size_t len; /* and the block length */
		int best;   /* its choice (an index of cand) */
		int ref;    /* the reference of its ratios: isal when present, else its first */
		const struct pq_calls *calls; /* what a call in this band runs */
	} band[PQ_SEL_BANDS];
	struct pq_candidate {
		char name[40]; /* "avx2", "isal", "avx2-stream l12-1l" */
		int k;	       /* the band it was timed in */
		size_t len;
		int rounds;  /* rounds it was timed in: PQ_SEL_ROUNDS_FIRST, or PQ_SEL_ROUNDS if
				close, PQ_SEL_STEADY more for a hot finalist (summed over the
				runs of a kept selection) */
		int finals;  /* runs in which it was timed to its band's last round (a finalist):
				0 or 1, of s->runs when kept */
		double gbps; /* median of the rounds, data bytes per second / 1e9 (of the runs'
				medians when kept) */
		double rel;  /* median over the rounds of gbps / the band's ref's in that round */
	} cand[PQ_SEL_MAX];
};

/*
 * The variant a call of k data blocks of len bytes runs when it goes through the selection's
 * choice (pq_best() hot, pq_streaming(pq_best()) streaming): its band's winner (the selection is
 * run first if it has not been).
 */
const struct pq_calls *pq_selected(enum pq_use use, int k, size_t len);

/* the selection in use (run first if it has not been) */
const struct pq_selection *pq_selection(enum pq_use use);

/* "hot" or "streaming": a use as the log, the stats file and a kept selection's file name it */
const char *pq_use_name(enum pq_use use);
/*
 * A fresh measurement into *out, changing nothing in use (for the bench's stability check).
 * Returns 0 or -ENOMEM.
 */
int pq_select_measure(enum pq_use use, struct pq_selection *out);
/* as a kept selection is measured (RAID_PARITY_SELECTION: each candidate's median of
 * PQ_KEEP_RUNS selections), afresh, nothing read, written or changed in use */
int pq_select_measure_kept(enum pq_use use, struct pq_selection *out);
/*
 * Head to head: candidates idx[0..n) (indices into a selection of this build, all of one band)
 * and the band's reference timed against each other alone, for `rounds` rounds (at most
 * PQ_DUEL_ROUNDS_MAX) as a selection times them (hot: its steady rounds); rel[i * rounds + r] is
 * idx[i]'s rate over the reference's in round r (a selection judges by the median of these; two
 * candidates compare round by round as rel[i * rounds + r] / rel[j * rounds + r]). Changes nothing
 * in use. 0, -EINVAL (not one band, an index or count out of range) or -ENOMEM. (raid-parity-bench
 * --selection settles a band with it.)
 */
#define PQ_DUEL_ROUNDS_MAX 1000
int pq_select_duel(enum pq_use use, const int *idx, int n, int rounds, double *rel);
/* the selection if it has run (or been forced), else NULL: starts nothing */
const struct pq_selection *pq_selection_ran(enum pq_use use);
/*
 * Both selections that have run as a json-c object for the engine's stats ({"hot", "streaming"}:
 * chosen, forced, each band's choice and every candidate's figures; null for one that has not
 * run), or NULL when neither has. The caller owns it.
 */
struct json_object;
struct json_object *pq_selection_json(void);
/* one line per candidate, the chosen one marked */
void pq_selection_print(FILE *f, const struct pq_selection *s);

/* Helpers built on a variant, for the cases every variant shares. */
/* one data block lost, P present: D_fa = P ^ xor of the others */
void pq_recov_1d_p(const struct pq_calls *c, int k, int fa, size_t len, void **ptrs);
/* data block fa and Q lost: D_fa from P, then Q */
void pq_recov_dq(const struct pq_calls *c, int k, int fa, size_t len, void **ptrs);

/* GF(2^8) tables of md's field (0x11d), shared by the scalar code and the tests. */
extern const uint8_t pq_gf_exp[510]; /* g^i, doubled so exp[log a + log b] needs no mod */
extern const uint8_t pq_gf_log[256]; /* log_g(a), a != 0 */
uint8_t pq_gf_mul(uint8_t a, uint8_t b);
uint8_t pq_gf_inv(uint8_t a);

#endif
