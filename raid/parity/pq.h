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
 * The variant in use, chosen once by the CPU's features as ISA-L's dispatch chooses: the first of
 * avx512gfni, avx512, avx2, base that this CPU runs (pq_rule.c; docs/parity.md, "The rule").
 * RAID_PARITY_IMPL=<name> forces one (an unknown or invalid name is reported on stderr once and
 * ignored); RAID_PARITY_LOG=1 prints the choice and why on stderr once. No timing, no file.
 * Thread-safe.
 */
const struct pq_calls *pq_best(void);
/*
 * c itself, or with RAID_TEST_SLOW_PARITY=PERCENT set, c doing PERCENT% more parity work per
 * call (pq_slow.c): a planted slowdown for the exact tier's bench, never for a run.
 */
const struct pq_calls *pq_test_slow(const struct pq_calls *c);
/* pq_best()->name: for the benchmark's output and the engine's stats. */
const char *pq_best_name(void);
/* why pq_best() is what it is: "AVX-512 F/BW/VL + GFNI" or "forced by RAID_PARITY_IMPL" */
const char *pq_best_why(void);

/*
 * n bytes of anonymous memory that start on a 2 MiB boundary, huge pages advised; munmap(p, n)
 * frees it; NULL when it cannot be mapped. For the stripes the bench times: a hot stripe in 4 KiB
 * pages changed its places in the physically indexed L2 from mapping to mapping, and with them a
 * kernel's figure by up to a quarter.
 */
void *pq_map_huge(size_t n);
/* Look a variant up by name; NULL if unknown or not valid on this CPU. */
const struct pq_calls *pq_find(const char *name);

/*
 * The streaming counterpart of variant c, for a caller that knows the stripe is cold: its inputs
 * come from member reads and its outputs go to a device (DMA) or are not read again soon, as in
 * rebuild and scrub. Same bytes as c; generation and recovery write their outputs with
 * non-temporal stores whenever those are vector-aligned, whatever the size, reading the sources
 * in the shape the rule gives this CPU (pq_rule.c). RMW (xor_p/xor_pq) is c's own: an RMW reads
 * what it writes. pq_twin(c): "<name>-stream" for the SIMD variants, "isal-stream" (ISA-L's
 * generation, our best variant's streaming recovery) for isal, c itself for base and a twin.
 * Twins are never in pq_all_calls[] nor known to pq_find().
 */
const struct pq_calls *pq_streaming(const struct pq_calls *c);
const struct pq_calls *pq_twin(const struct pq_calls *c);

/*
 * The choice for the engine's stats, as a json-c object: {"hot": {"chosen", "why"},
 * "streaming": {"chosen", "why"}}, the streaming one the twin of the hot one and its shapes; or
 * NULL before pq_best() has run. The caller owns it.
 */
struct json_object;
struct json_object *pq_selection_json(void);

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
