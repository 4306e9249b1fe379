/*
 * pq_select.c - which variant is used, chosen by timing at first use like Linux lib/raid6, once
 * for hot stripes (pq_best()) and once for cold ones (pq_streaming(pq_best())), or forced by
 * RAID_PARITY_IMPL. Every candidate runs gen_pq on 64 KiB blocks for a millisecond or two per
 * round, one round of every candidate after the other, and is judged by the median over the
 * rounds of its rate relative to ISA-L's in the same round: a burst of load from another process
 * moves a round's rates but hardly their ratio. (The first version timed each variant in one
 * block of three rounds, kept the best round, and in three runs on a Zen 4 picked avx512gfni at
 * 53.7 GB/s once while avx512 ran at 62.3; the second took medians of 5 rounds of absolute rates,
 * and two shapes about 2% apart traded places between runs.)
 *
 * The choice is the first candidate in a fixed order whose median ratio is within PQ_SEL_TIE
 * (3%) of the best (pq_sel_pick()), so that kernels the timing cannot tell apart do not trade
 * places. ISA-L's pq_gen is a candidate in both selections, so the variant in use is never
 * slower than ISA-L by more than that. The streaming selection also chooses each SIMD variant's
 * shape (prefetch level and distance, vectors a step: PQ_SHAPES in pq_impl.h), the parameters
 * that differ between microarchitectures, per band of k: on a Zen 4 the shape fastest at k = 10
 * lost to ISA-L at k = 4, and the one fastest at k = 4 lost a third at k = 22.
 */
#include <errno.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pq.h"
#include "pq_impl.h"

#define SEL_K 10 /* the hot selection's k, and the streaming band that decides the winner */
#define SEL_KMAX 22
#define SEL_LEN 65536
/* 15 short rounds rather than 5 long ones: same time, a steadier median (docs/parity.md) */
#define SEL_ROUNDS 15
#define HOT_ROUND_S 0.001
#define STREAM_ROUND_S 0.0015

static const int band_ks[PQ_SEL_BANDS] = PQ_BAND_KS;
_Static_assert(sizeof(band_ks) / sizeof(band_ks[0]) == PQ_SEL_BANDS, "PQ_BAND_KS");

/* one candidate: a variant's gen_pq, or a family's twin in one shape, at one k */
struct cand {
	const struct pq_calls *calls; /* what wins when this does */
	const struct pq_family *fam;  /* stream: the twin's family (NULL for ISA-L) */
	int shape, k;
};

int pq_sel_pick(const double *gbps, const int *idx, int n)
{
	double top = 0;

	for (int i = 0; i < n; i++)
		if (gbps[idx[i]] > top)
			top = gbps[idx[i]];
	for (int i = 0; i < n; i++)
		if (gbps[idx[i]] >= (1 - PQ_SEL_TIE) * top)
			return idx[i];
	return -1;
}

/*
 * The thread's CPU time, not the wall clock: on a shared machine a round that the scheduler
 * preempted would otherwise count the other process's time as ours (the first version's rounds
 * moved by 2x under load).
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void cand_gen(const struct cand *c, void **ptrs)
{
	if (c->fam)
		c->fam->gen_pq_shaped(c->shape, c->k, SEL_LEN, ptrs);
	else
		c->calls->gen_pq(c->k, SEL_LEN, ptrs);
}

static int add(struct pq_selection *s, struct cand *cs, struct cand c, const char *name,
	       const char *shape)
{
	if (s->n == PQ_SEL_MAX)
		return -1;
	snprintf(s->cand[s->n].name, sizeof(s->cand[0].name), "%s%s%s", name, shape ? " " : "",
		 shape ? shape : "");
	s->cand[s->n].k = c.k;
	cs[s->n++] = c;
	return 0;
}

/*
 * The candidates of one use, in their order of preference on a tie (pq_all_calls[]'s for hot;
 * widest variant first, then PQ_SHAPES' order, ISA-L last, band by band for streaming); ISA-L's
 * own pq_gen is one of them, named "isal".
 */
static void list_cands(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	if (use == PQ_USE_HOT) {
		s->nbands = 1;
		s->band[0].k = SEL_K;
		for (int i = 0; pq_all_calls[i]; i++) {
			if (pq_all_calls[i] == &pq_calls_isal)
				s->band[0].ref = s->n;
			if (pq_all_calls[i]->valid())
				add(s, cs, (struct cand){pq_all_calls[i], NULL, 0, SEL_K},
				    pq_all_calls[i]->name, NULL);
		}
		return;
	}
	s->nbands = PQ_SEL_BANDS;
	for (int b = 0; b < PQ_SEL_BANDS; b++) {
		int k = band_ks[b];

		s->band[b].k = k;
		s->band[b].ref = s->n; /* isal, which comes last, when it is there */
		for (int f = 0; pq_families[f]; f++) {
			const struct pq_family *fam = pq_families[f];

			if (!fam->twin->valid())
				continue;
			for (int sh = 0; sh < PQ_NSHAPES; sh++)
				if (!pq_shapes[sh].half || fam->lanes > 1) /* else as full */
					add(s, cs, (struct cand){fam->twin, fam, sh, k},
					    fam->twin->name, pq_shapes[sh].name);
		}
		if (pq_calls_isal.valid()) {
			s->band[b].ref = s->n;
			add(s, cs, (struct cand){&pq_calls_isal_stream, NULL, 0, k}, "isal", NULL);
		}
	}
}

static int band_of(const struct pq_selection *s, int c)
{
	int b = 0;

	while (b + 1 < s->nbands && s->band[b].k != s->cand[c].k)
		b++;
	return b;
}

/* the choice among band b's candidates, of family fam only when it is not NULL */
static int pick(const struct pq_selection *s, const struct cand *cs, int b,
		const struct pq_family *fam)
{
	double rel[PQ_SEL_MAX];
	int idx[PQ_SEL_MAX], n = 0;

	for (int c = 0; c < s->n; c++) {
		rel[c] = s->cand[c].rel;
		if (cs[c].k == s->band[b].k && (!fam || cs[c].fam == fam))
			idx[n++] = c;
	}
	return pq_sel_pick(rel, idx, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/*
 * The stream pool: four times the last-level cache, 128..256 MiB, so that every stripe comes from
 * DRAM (with twice a 32 MiB L3, read-XOR ran at 1.3x its figure over 1 GiB: stripes hit in L3).
 */
static size_t pool_size(void)
{
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	size_t n = llc > 0 ? 4 * (size_t)llc : 128u << 20;

	return n < (128u << 20) ? 128u << 20 : n > (256u << 20) ? 256u << 20 : n;
}

/* times every candidate and fills s (chosen: the choice of the band of k = SEL_K); 0 or -ENOMEM */
static int measure(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	size_t len = use == PQ_USE_HOT ? (size_t)(SEL_KMAX + 2) * SEL_LEN : pool_size();
	size_t off = 0; /* the walk through the pool: stripe after stripe, as the bench's */
	double round_s = use == PQ_USE_HOT ? HOT_ROUND_S : STREAM_ROUND_S;
	double rates[PQ_SEL_MAX][SEL_ROUNDS];

	memset(s, 0, sizeof(*s));
	s->use = use;
	s->k = SEL_K;
	s->len = SEL_LEN;
	s->rounds = SEL_ROUNDS;
	s->best = -1;
	s->chosen = &pq_calls_base;
	list_cands(use, s, cs);
	uint8_t *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (mem == MAP_FAILED)
		return -ENOMEM;
	madvise(mem, len, MADV_HUGEPAGE);
	for (size_t i = 0; i < len; i += 8) { /* every page touched, bytes that are not all alike */
		uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;

		memcpy(mem + i, &x, 8);
	}
	for (int r = 0; r < SEL_ROUNDS; r++) {
		for (int c = 0; c < s->n; c++) {
			void *ptrs[SEL_KMAX + 2];
			int calls = 0, k = cs[c].k;
			size_t stripe = (size_t)(k + 2) * SEL_LEN;
			double t0 = now_s(), t;

			do {
				if (use == PQ_USE_HOT || off + stripe > len)
					off = 0;
				uint8_t *base = mem + off;

				off += stripe;

				for (int i = 0; i < k + 2; i++)
					ptrs[i] = base + (size_t)i * SEL_LEN;
				if (use == PQ_USE_HOT && calls == 0)
					cand_gen(&cs[c], ptrs); /* into this one's cache state */
				cand_gen(&cs[c], ptrs);
				calls++;
			} while ((t = now_s() - t0) < round_s);
			rates[c][r] = calls * (double)k * SEL_LEN / t / 1e9;
		}
	}
	munmap(mem, len);
	for (int c = 0; c < s->n; c++) {
		int ref = s->band[band_of(s, c)].ref;
		double rel[SEL_ROUNDS];

		for (int r = 0; r < SEL_ROUNDS; r++)
			rel[r] = rates[c][r] / rates[ref][r];
		qsort(rel, SEL_ROUNDS, sizeof(double), cmp_double);
		s->cand[c].rel = rel[SEL_ROUNDS / 2];
	}
	for (int c = 0; c < s->n; c++) {
		qsort(rates[c], SEL_ROUNDS, sizeof(double), cmp_double);
		s->cand[c].gbps = rates[c][SEL_ROUNDS / 2];
	}
	for (int b = 0; b < s->nbands; b++) {
		s->band[b].best = pick(s, cs, b, NULL);
		if (s->band[b].k == SEL_K)
			s->best = s->band[b].best;
	}
	if (s->best >= 0)
		s->chosen = cs[s->best].calls;
	return 0;
}

int pq_select_measure(enum pq_use use, struct pq_selection *out)
{
	struct cand cs[PQ_SEL_MAX];

	return measure(use, out, cs);
}

void pq_selection_print(FILE *f, const struct pq_selection *s)
{
	fprintf(f,
		"raid parity: %s selection (gen_pq, %zu KiB, %d rounds, by the median ratio to the "
		"round's reference, ties within %.0f%% to the first listed; k = %d decides): %s%s%s\n",
		s->use == PQ_USE_HOT ? "hot" : "streaming", s->len >> 10, s->rounds,
		PQ_SEL_TIE * 100, s->k, s->chosen->name,
		s->forced ? " (forced by RAID_PARITY_IMPL=" : "", s->forced ? ")" : "");
	for (int c = 0; c < s->n; c++) {
		bool chosen = false;

		for (int b = 0; b < s->nbands; b++)
			chosen |= s->band[b].best == c;
		fprintf(f, "raid parity:   k = %2d  %-28s %7.2f GB/s %5.2fx %s%s\n", s->cand[c].k,
			s->cand[c].name, s->cand[c].gbps, s->cand[c].rel,
			s->cand[s->band[band_of(s, c)].ref].name, chosen ? "  chosen" : "");
	}
}

static bool log_on(void)
{
	const char *v = getenv("RAID_PARITY_LOG");

	return v && *v && strcmp(v, "0") != 0;
}

static struct pq_selection sel_hot, sel_stream;
static pthread_once_t once_hot = PTHREAD_ONCE_INIT, once_stream = PTHREAD_ONCE_INIT;

static bool ran_hot, ran_stream; /* set (release) once the selection is filled in */

const struct pq_selection *pq_selection_ran(enum pq_use use)
{
	if (use == PQ_USE_HOT)
		return __atomic_load_n(&ran_hot, __ATOMIC_ACQUIRE) ? &sel_hot : NULL;
	return __atomic_load_n(&ran_stream, __ATOMIC_ACQUIRE) ? &sel_stream : NULL;
}

static void choose_hot(void)
{
	const char *force = getenv("RAID_PARITY_IMPL");
	struct cand cs[PQ_SEL_MAX];

	if (force && *force) {
		const struct pq_calls *c = pq_find(force);

		if (c) { /* forced: nothing timed */
			memset(&sel_hot, 0, sizeof(sel_hot));
			sel_hot.use = PQ_USE_HOT;
			sel_hot.chosen = c;
			sel_hot.forced = c->name;
			sel_hot.best = -1;
			__atomic_store_n(&ran_hot, true, __ATOMIC_RELEASE);
			return;
		}
		fprintf(stderr,
			"raid parity: RAID_PARITY_IMPL=%s is unknown or not supported on this CPU; "
			"choosing by timing\n",
			force);
	}
	measure(PQ_USE_HOT, &sel_hot, cs); /* out of memory: base, which needs no probe */
	__atomic_store_n(&ran_hot, true, __ATOMIC_RELEASE);
	if (log_on())
		pq_selection_print(stderr, &sel_hot);
}

static void choose_stream(void)
{
	const struct pq_calls *hot = pq_best();
	struct cand cs[PQ_SEL_MAX];

	if (measure(PQ_USE_STREAM, &sel_stream, cs)) {
		sel_stream.chosen = pq_twin(hot); /* out of memory: the default shapes */
		__atomic_store_n(&ran_stream, true, __ATOMIC_RELEASE);
		return;
	}
	/* each family takes its shape per band, whichever family wins */
	for (int f = 0; pq_families[f]; f++)
		for (int b = 0; b < sel_stream.nbands; b++) {
			int c = pick(&sel_stream, cs, b, pq_families[f]);

			if (c >= 0)
				__atomic_store_n(&pq_families[f]->shape[pq_band(sel_stream.band[b].k)],
						 cs[c].shape, __ATOMIC_RELAXED);
		}
	if (sel_hot.forced) {
		sel_stream.chosen = pq_twin(hot);
		sel_stream.forced = hot->name;
	}
	__atomic_store_n(&ran_stream, true, __ATOMIC_RELEASE);
	if (log_on())
		pq_selection_print(stderr, &sel_stream);
}

const struct pq_selection *pq_selection(enum pq_use use)
{
	if (use == PQ_USE_HOT) {
		pthread_once(&once_hot, choose_hot);
		return &sel_hot;
	}
	pthread_once(&once_stream, choose_stream);
	return &sel_stream;
}

const struct pq_calls *pq_best(void)
{
	return pq_selection(PQ_USE_HOT)->chosen;
}

const char *pq_best_name(void)
{
	return pq_best()->name;
}
