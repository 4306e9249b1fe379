/*
 * pq_select.c - which variant is used, chosen by timing at first use like Linux lib/raid6, once
 * for hot stripes (pq_best()) and once for cold ones (pq_streaming(pq_best())), or forced by
 * RAID_PARITY_IMPL. Every candidate runs gen_pq at the geometry the targets are stated in
 * (k = 10, 64 KiB blocks) for a few milliseconds per round, rounds interleaved so that a burst of
 * load from another process lands on every candidate alike, and the best median wins: the first
 * version timed each variant in one block of three rounds and kept the best round, and in three
 * runs on a Zen 4 picked avx512gfni at 53.7 GB/s once while avx512 ran at 62.3.
 *
 * ISA-L's pq_gen is a candidate in both, so the variant in use is never slower than ISA-L by more
 * than the noise of the measurement. The streaming selection also chooses each SIMD variant's
 * shape (prefetch level and distance, vectors a step: PQ_SHAPES in pq_impl.h), the parameters
 * that differ between microarchitectures.
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

#define SEL_K 10
#define SEL_LEN 65536
#define SEL_ROUNDS 5
#define HOT_ROUND_S 0.002
#define STREAM_ROUND_S 0.004

/* one candidate: a variant's gen_pq, or a family's twin in one shape */
struct cand {
	const struct pq_calls *calls; /* what wins when this does */
	const struct pq_family *fam;  /* stream: the twin's family (NULL for ISA-L) */
	int shape;
};

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
		c->fam->gen_pq_shaped(c->shape, SEL_K, SEL_LEN, ptrs);
	else
		c->calls->gen_pq(SEL_K, SEL_LEN, ptrs);
}

static int add(struct pq_selection *s, struct cand *cs, struct cand c, const char *name,
	       const char *shape)
{
	if (s->n == PQ_SEL_MAX)
		return -1;
	snprintf(s->cand[s->n].name, sizeof(s->cand[0].name), "%s%s%s", name, shape ? " " : "",
		 shape ? shape : "");
	cs[s->n++] = c;
	return 0;
}

/* the candidates of one use; ISA-L's own pq_gen is one of them, named "isal" */
static void list_cands(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	if (use == PQ_USE_HOT) {
		for (int i = 0; pq_all_calls[i]; i++)
			if (pq_all_calls[i]->valid())
				add(s, cs, (struct cand){pq_all_calls[i], NULL, 0},
				    pq_all_calls[i]->name, NULL);
		return;
	}
	for (int f = 0; pq_families[f]; f++) {
		const struct pq_family *fam = pq_families[f];

		if (!fam->twin->valid())
			continue;
		for (int sh = 0; sh < PQ_NSHAPES; sh++)
			if (!pq_shapes[sh].half || fam->lanes > 1) /* else the same loop as full */
				add(s, cs, (struct cand){fam->twin, fam, sh}, fam->twin->name,
				    pq_shapes[sh].name);
	}
	if (pq_calls_isal.valid())
		add(s, cs, (struct cand){&pq_calls_isal_stream, NULL, 0}, "isal", NULL);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the stream pool: twice the last-level cache, 64..256 MiB, so that every stripe comes from DRAM */
static size_t pool_size(void)
{
	long llc = sysconf(_SC_LEVEL3_CACHE_SIZE);
	size_t n = llc > 0 ? 2 * (size_t)llc : 64u << 20;

	return n < (64u << 20) ? 64u << 20 : n > (256u << 20) ? 256u << 20 : n;
}

/* times every candidate, fills s (chosen = the fastest candidate's calls), returns the winner */
static int measure(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	size_t stripe = (size_t)(SEL_K + 2) * SEL_LEN;
	size_t len = use == PQ_USE_HOT ? stripe : pool_size();
	size_t nstripes = len / stripe, cur = 0;
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
			void *ptrs[SEL_K + 2];
			int calls = 0;
			double t0 = now_s(), t;

			do {
				uint8_t *base = mem + (cur++ % nstripes) * stripe;

				for (int i = 0; i < SEL_K + 2; i++)
					ptrs[i] = base + (size_t)i * SEL_LEN;
				if (use == PQ_USE_HOT && calls == 0)
					cand_gen(&cs[c], ptrs); /* into this one's cache state */
				cand_gen(&cs[c], ptrs);
				calls++;
			} while ((t = now_s() - t0) < round_s);
			rates[c][r] = calls * (double)SEL_K * SEL_LEN / t / 1e9;
		}
	}
	munmap(mem, len);
	for (int c = 0; c < s->n; c++) {
		qsort(rates[c], SEL_ROUNDS, sizeof(double), cmp_double);
		s->cand[c].gbps = rates[c][SEL_ROUNDS / 2];
		if (s->best < 0 || s->cand[c].gbps > s->cand[s->best].gbps)
			s->best = c;
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
	fprintf(
	    f, "raid parity: %s selection (gen_pq, k = %d, %zu KiB, median of %d rounds): %s%s%s\n",
	    s->use == PQ_USE_HOT ? "hot" : "streaming", s->k, s->len >> 10, s->rounds,
	    s->chosen->name, s->forced ? " (forced by RAID_PARITY_IMPL=" : "",
	    s->forced ? ")" : "");
	for (int c = 0; c < s->n; c++)
		fprintf(f, "raid parity:   %-28s %7.2f GB/s%s\n", s->cand[c].name, s->cand[c].gbps,
			c == s->best ? "  fastest" : "");
}

static bool log_on(void)
{
	const char *v = getenv("RAID_PARITY_LOG");

	return v && *v && strcmp(v, "0") != 0;
}

static struct pq_selection sel_hot, sel_stream;
static pthread_once_t once_hot = PTHREAD_ONCE_INIT, once_stream = PTHREAD_ONCE_INIT;

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
			return;
		}
		fprintf(stderr,
			"raid parity: RAID_PARITY_IMPL=%s is unknown or not supported on this CPU; "
			"choosing by timing\n",
			force);
	}
	measure(PQ_USE_HOT, &sel_hot, cs); /* out of memory: base, which needs no probe */
	if (log_on())
		pq_selection_print(stderr, &sel_hot);
}

static void choose_stream(void)
{
	const struct pq_calls *hot = pq_best();
	struct cand cs[PQ_SEL_MAX];
	int best_shape[PQ_SEL_MAX];

	if (measure(PQ_USE_STREAM, &sel_stream, cs)) {
		sel_stream.chosen = pq_twin(hot); /* out of memory: the default shapes */
		return;
	}
	/* each family takes its fastest shape, whichever family wins */
	for (int f = 0; pq_families[f]; f++) {
		best_shape[f] = -1;
		for (int c = 0; c < sel_stream.n; c++)
			if (cs[c].fam == pq_families[f] &&
			    (best_shape[f] < 0 ||
			     sel_stream.cand[c].gbps > sel_stream.cand[best_shape[f]].gbps))
				best_shape[f] = c;
		if (best_shape[f] >= 0)
			__atomic_store_n(pq_families[f]->shape, cs[best_shape[f]].shape,
					 __ATOMIC_RELAXED);
	}
	if (sel_hot.forced) {
		sel_stream.chosen = pq_twin(hot);
		sel_stream.forced = hot->name;
	}
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
