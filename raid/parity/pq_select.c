/*
 * pq_select.c - how the variants are timed and one is chosen, like Linux lib/raid6's choice at
 * start but per band: candidates are timed on gen_pq in nine bands, three of k times three of
 * block length, because the fastest kernel depends on both (on a Zen 4, hot, our avx2 beat ISA-L
 * at 4 and 64 KiB and lost to it by a fifth at 1 MiB, k = 4), separately for hot stripes and for
 * streaming (cold) ones. Putting a selection in use, once per process, is pq_route.c's.
 * Each candidate runs for a fraction of a millisecond per round, in turns of 1 MiB of data with
 * the band's other candidates (run_round()), and is judged by the median over the rounds of its
 * rate relative to ISA-L's in the same round and band: a burst of load from another process moves
 * a round's rates but hardly their ratio.
 * After PQ_SEL_ROUNDS_FIRST rounds only candidates within PQ_SEL_CLOSE of their band's best go
 * on (more rounds only where the choice is close), which keeps nine bands affordable; a hot
 * band's finalists are then judged in PQ_SEL_STEADY steady rounds, turns of milliseconds as a
 * caller runs one kernel (steady_round()). (The first
 * version timed each variant in one block of three rounds, kept the best round, and in three
 * runs on a Zen 4 picked avx512gfni at 53.7 GB/s once while avx512 ran at 62.3; the second took
 * medians of 5 rounds of absolute rates, and two shapes about 2% apart traded places.)
 *
 * The choice is the first candidate in a fixed order whose median ratio is within PQ_SEL_PREFER
 * (1%) of the best (pq_sel_pick()), so that kernels the timing cannot tell apart do not trade
 * places. ISA-L's pq_gen is a candidate in every band of both, so the variant in use is never
 * slower than ISA-L by more than that. The streaming selection also chooses each SIMD variant's
 * shape (prefetch level and distance, vectors a step: PQ_SHAPES in pq_impl.h) per band, the
 * parameters that differ between microarchitectures (keep_shapes()).
 */
#include <errno.h>
#include <stdio.h>
#include <stdbool.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "pq.h"
#include "pq_impl.h"

#define SEL_K 10 /* the band of the bench's targets: s->best */
#define SEL_LEN 65536
#define SEL_KMAX 22
#define SEL_LENMAX 1048576
#define HOT_ROUND_S 0.0005
#define STREAM_ROUND_S 0.001
#define SLICE_BYTES (1u << 20)	/* a candidate's turn within a round (run_round()) */
#define STEADY_LEAD_S 0.005	/* hot, a steady turn: its own calls, untimed (steady_round()) */
#define STEADY_TURN_S 0.003	/* ... then timed */
#define HOT_WARM_CALLS 2	/* untimed calls before a hot turn past L2 (run_round()) */
#define HOT_WARM_MAX (4u << 20) /* ... at most this read; past it, alone (band_alone()) */

static const int band_ks[PQ_SEL_KBANDS] = PQ_BAND_KS;
static const size_t band_lens[PQ_SEL_LBANDS] = PQ_BAND_LENS;
_Static_assert(sizeof(band_ks) / sizeof(band_ks[0]) == PQ_SEL_KBANDS, "PQ_BAND_KS");
_Static_assert(sizeof(band_lens) / sizeof(band_lens[0]) == PQ_SEL_LBANDS, "PQ_BAND_LENS");

/* one candidate: a variant's gen_pq, or a family's twin in one shape, in one band */
struct cand {
	const struct pq_calls *calls; /* what wins when this does */
	const struct pq_family *fam;  /* stream: the twin's family (NULL for ISA-L) */
	int shape, band;
};

int pq_sel_pick(const double *gbps, const int *idx, int n)
{
	double top = 0;

	for (int i = 0; i < n; i++)
		if (gbps[idx[i]] > top)
			top = gbps[idx[i]];
	for (int i = 0; i < n; i++)
		if (gbps[idx[i]] >= (1 - PQ_SEL_PREFER) * top)
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

const char *pq_use_name(enum pq_use use)
{
	return use == PQ_USE_HOT ? "hot" : "streaming";
}

static void cand_gen(const struct pq_selection *s, const struct cand *c, void **ptrs)
{
	int k = s->band[c->band].k;
	size_t len = s->band[c->band].len;

	if (c->fam)
		c->fam->gen_pq_shaped(c->shape, k, len, ptrs);
	else
		c->calls->gen_pq(k, len, ptrs);
}

static int add(struct pq_selection *s, struct cand *cs, struct cand c, const char *name,
	       const char *shape)
{
	if (s->n == PQ_SEL_MAX)
		return -1;
	snprintf(s->cand[s->n].name, sizeof(s->cand[0].name), "%s%s%s", name, shape ? " " : "",
		 shape ? shape : "");
	s->cand[s->n].k = s->band[c.band].k;
	s->cand[s->n].len = s->band[c.band].len;
	cs[s->n++] = c;
	return 0;
}

static const int hot_shapes[PQ_HOT_NSHAPES] = PQ_HOT_SHAPES;

/*
 * The candidates of one use, band by band (band b = pq_sel_band() of its k and length), in their
 * order of preference on a tie (after the reference, pick()): the widest variant first, then its
 * shapes (PQ_HOT_SHAPES' order hot, PQ_SHAPES' streaming); ISA-L's own pq_gen is one of them,
 * named "isal". Hot went in pq_all_calls[]'s order (avx2 first) until the Zen 5 round, where hot
 * stripes past L2 had avx2, avx512 and avx512gfni within 1% of each other in some runs, so avx2
 * won the tie, and head to head avx2 was 4-8% behind the other two (k = 22, 64 KiB: 1.08-1.14x
 * ISA-L against 1.15-1.22x). A wider kernel was nowhere measured slower than a narrower one
 * beyond the noise.
 */
static void list_cands(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	bool simd = pq_best_native() != &pq_calls_base;
	int nv = 0; /* pq_all_calls[]'s variants, walked backwards for hot */

	while (pq_all_calls[nv])
		nv++;

	s->nbands = PQ_SEL_BANDS;
	for (int b = 0; b < PQ_SEL_BANDS; b++) {
		s->band[b].k = band_ks[b / PQ_SEL_LBANDS];
		s->band[b].len = band_lens[b % PQ_SEL_LBANDS];
		s->band[b].ref = s->n; /* isal, when it is there; else the band's first */
		if (use == PQ_USE_HOT) {
			/* past L2 a variant's size rule streams: time it in each hot shape */
			bool past_l2 = pq_stripe_past_l2(s->band[b].k, s->band[b].len);

			/* isal, avx512gfni, avx512, avx2, base */
			for (int i = nv - 1; i >= 0; i--) {
				const struct pq_calls *c = pq_all_calls[i];
				const struct pq_family *fam = past_l2 ? pq_family_of(c) : NULL;

				if (c == &pq_calls_isal)
					s->band[b].ref = s->n;
				/* base only where no SIMD variant runs: it ran at 0.07-0.35x ISA-L
				 * in every band, and its 1 MiB rounds cost more than the rest */
				if (!c->valid() || (c == &pq_calls_base && simd))
					continue;
				if (!fam) {
					add(s, cs, (struct cand){c, NULL, 0, b}, c->name, NULL);
					continue;
				}
				for (int h = 0; h < PQ_HOT_NSHAPES; h++)
					add(s, cs, (struct cand){c, fam, hot_shapes[h], b}, c->name,
					    pq_shapes[hot_shapes[h]].name);
			}
			continue;
		}
		for (int f = 0; pq_families[f]; f++) {
			const struct pq_family *fam = pq_families[f];

			if (!fam->twin->valid())
				continue;
			for (int sh = 0; sh < PQ_NSHAPES; sh++)
				add(s, cs, (struct cand){fam->twin, fam, sh, b}, fam->twin->name,
				    pq_shapes[sh].name);
		}
		if (pq_calls_isal.valid()) {
			s->band[b].ref = s->n;
			add(s, cs, (struct cand){&pq_calls_isal_stream, NULL, 0, b}, "isal", NULL);
		}
	}
}

/*
 * The choice among band b's candidates (of family fam only when it is not NULL): the rule's over
 * its finalists (pq_sel_finalist()), by their median ratios, the band's reference (ISA-L) first:
 * a kernel of ours wins only when it is more than PQ_SEL_PREFER faster than ISA-L, so that a tie,
 * which is noise, does not put a kernel in use that the bench then finds slower than ISA-L. A
 * family none of whose shapes is a finalist (it still needs a shape per band) chooses among all
 * of them.
 */
static int pick(const struct pq_selection *s, const struct cand *cs, int b,
		const struct pq_family *fam)
{
	double rel[PQ_SEL_MAX];
	int idx[PQ_SEL_MAX], n = 0, ref = s->band[b].ref;

	for (int c = 0; c < s->n; c++)
		rel[c] = s->cand[c].rel;
	for (int all = 0; all < 2 && !n; all++) {
		if (!fam && ref < s->n && cs[ref].band == b)
			idx[n++] = ref;
		for (int c = 0; c < s->n; c++)
			if (cs[c].band == b && (!fam || cs[c].fam == fam) && (fam || c != ref) &&
			    (all || pq_sel_finalist(s, c)))
				idx[n++] = c;
	}
	return pq_sel_pick(rel, idx, n);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of v[0..n) (the upper one of an even n), v sorted in place */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(double), cmp_double);
	return v[n / 2];
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

static double rates[PQ_SEL_MAX][PQ_SEL_ROUNDS]; /* measure()'s, under sel_lock */
static pthread_mutex_t sel_lock = PTHREAD_MUTEX_INITIALIZER;

/*
 * Hot bands whose stripe is past L2 and whose call reads more than HOT_WARM_MAX (k = 10 and 22
 * with 1 MiB blocks: 12 and 24 MiB stripes) are timed alone, their rounds one after the other,
 * after the other bands' (measure_locked()). Between two rounds of such a band, round by round,
 * the other bands' stripes (the same memory) displaced part of its stripe from L3, and how each
 * kernel coped with a stripe partly in memory decided the order. On the Zen 5, hot k = 22 1 MiB
 * chose avx2 none, 0.85-0.91x of avx512gfni none head to head, in 21 of 24 checks of five
 * selections; alone, in 1 of 16 (docs/parity.md, Selection).
 */
static bool band_alone(const struct pq_selection *s, int b)
{
	int k = s->band[b].k;
	size_t len = s->band[b].len;

	return s->use == PQ_USE_HOT && pq_stripe_past_l2(k, len) && (size_t)k * len > HOT_WARM_MAX;
}

/* pass 0 times every band not timed alone, round by round; pass b + 1, band b alone */
static bool in_pass(const struct pq_selection *s, int b, int pass)
{
	return pass ? b == pass - 1 : !band_alone(s, b);
}

/* pc's figures from n rounds: the median of its rates own[] and of their ratios to ref[] */
static void cand_medians(struct pq_candidate *pc, const double *own, const double *ref, int n)
{
	double v[PQ_SEL_ROUNDS];

	_Static_assert(PQ_SEL_STEADY <= PQ_SEL_ROUNDS, "v holds a steady band's rounds too");
	for (int r = 0; r < n; r++)
		v[r] = own[r] / ref[r];
	pc->rel = median(v, n);
	memcpy(v, own, n * sizeof(double));
	pc->gbps = median(v, n);
}

/* each candidate's medians over the rounds it was timed in: its rate and its ratio to the ref */
static void medians(struct pq_selection *s, const struct cand *cs)
{
	for (int c = 0; c < s->n; c++)
		if (s->cand[c].rounds) /* else a band timed alone, not yet (measure_locked()) */
			cand_medians(&s->cand[c], rates[c], rates[s->band[cs[c].band].ref],
				     s->cand[c].rounds); /* ref is timed whenever c is */
}

/*
 * After the first rounds: a band goes on timing only the candidates within PQ_SEL_CLOSE of its
 * best median ratio, and its reference while any of them is timed; a band with one such
 * candidate is decided. What is far behind after five rounds does not come back in ten more
 * (docs/parity.md), and the rounds saved go to the close calls. Far is 20%: five rounds of a
 * streaming band measured its fastest kernel 15-25% low often enough that at 10% it was dropped
 * and a slower one chosen (0.94-1.13x ISA-L head to head against 1.31x).
 * In a hot band past L2 a variant goes on in its one shape ahead after the first rounds: its
 * other shape, timed in the same turns, changed how the others' figures came out. On the Zen 5,
 * with the prefetching l2-2k shapes (0.6-0.95x of the best there) in every round, hot k = 10
 * 1 MiB chose avx512 none over avx512gfni none, 0.90-0.92x of it head to head, in 7 of 24
 * checks of five selections; with the rule, in none of 12.
 * The bands pruned: those of one pass of measure_locked() (in_pass()).
 */
static void prune(struct pq_selection *s, const struct cand *cs, bool *live, int pass)
{
	medians(s, cs);
	for (int b = 0; b < s->nbands; b++) {
		double top = 0;
		int close = 0;

		if (!in_pass(s, b, pass))
			continue;
		for (int c = 0; c < s->n; c++)
			if (cs[c].band == b && s->cand[c].rel > top)
				top = s->cand[c].rel;
		for (int c = 0; c < s->n; c++) {
			bool behind = false; /* hot: a shape behind its variant's other shape */

			if (cs[c].band != b)
				continue;
			for (int d = 0; s->use == PQ_USE_HOT && cs[c].fam && d < s->n; d++)
				behind |= d != c && cs[d].band == b && cs[d].fam == cs[c].fam &&
					  s->cand[d].rel > s->cand[c].rel;
			close += live[c] = !behind && s->cand[c].rel >= (1 - PQ_SEL_CLOSE) * top;
		}
		for (int c = 0; c < s->n; c++)
			if (cs[c].band == b)
				live[c] = close > 1 && (live[c] || c == s->band[b].ref);
	}
}

/* each candidate's finals in one run: 1 when it was timed in its band's last round */
static void mark_finalists(struct pq_selection *s, const struct cand *cs)
{
	int last[PQ_SEL_BANDS] = {0};

	for (int c = 0; c < s->n; c++)
		if (s->cand[c].rounds > last[cs[c].band])
			last[cs[c].band] = s->cand[c].rounds;
	for (int c = 0; c < s->n; c++)
		s->cand[c].finals = s->cand[c].rounds == last[cs[c].band];
}

/* the band's winner, and the variant a call in that band runs */
static void decide(struct pq_selection *s, const struct cand *cs)
{
	for (int b = 0; b < s->nbands; b++) {
		s->band[b].best = pick(s, cs, b, NULL);
		s->band[b].calls =
		    s->band[b].best >= 0 ? cs[s->band[b].best].calls : &pq_calls_base;
		if (s->band[b].k == SEL_K && s->band[b].len == SEL_LEN)
			s->best = s->band[b].best;
	}
	/* the one winner, or (install()) the routing variant */
	s->chosen = s->band[0].calls;
	for (int b = 1; b < s->nbands; b++)
		if (s->band[b].calls != s->band[0].calls)
			s->chosen =
			    s->use == PQ_USE_HOT ? &pq_calls_route_hot : &pq_calls_route_stream;
}

/* where a walk through the pool (or the hot stripe) is: the next stripe's pointers */
struct walk {
	uint8_t *mem;
	size_t len, off;
	bool hot; /* every call on the stripe at mem */
};

static void next_stripe(struct walk *w, int k, size_t blk, void **ptrs)
{
	size_t stripe = (size_t)(k + 2) * blk;

	if (w->hot || w->off + stripe > w->len)
		w->off = 0;
	for (int i = 0; i < k + 2; i++)
		ptrs[i] = w->mem + w->off + (size_t)i * blk;
	w->off += stripe;
}

/* ord[0..n): list[0..n) in a new pseudo-random order (the same sequence in every process) */
static void shuffle(const int *list, int n, int *ord)
{
	static uint64_t x = 0x9e3779b97f4a7c15ull; /* xorshift64, under sel_lock */

	memcpy(ord, list, n * sizeof(int));
	for (int i = n - 1; i > 0; i--) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		int j = (int)(x % (uint64_t)(i + 1)), o = ord[i];

		ord[i] = ord[j];
		ord[j] = o;
	}
}

/* n calls of candidate c, each on the walk's next stripe */
static void gen_calls(const struct pq_selection *s, const struct cand *c, struct walk *w, long n)
{
	int k = s->band[c->band].k;
	size_t blk = s->band[c->band].len;
	void *ptrs[SEL_KMAX + 2];

	for (long i = 0; i < n; i++) {
		next_stripe(w, k, blk, ptrs);
		cand_gen(s, c, ptrs);
	}
}

/* a turn's calls between two readings of the clock: SLICE_BYTES of data, one stripe at least */
static int slice_calls(size_t data)
{
	return data >= SLICE_BYTES ? 1 : (int)(SLICE_BYTES / data);
}

/*
 * One round of a band: its live candidates list[0..n) take turns slice by slice (SLICE_BYTES of
 * data, one stripe at least: from the walk through the pool when streaming, the one stripe when
 * hot) until they have had round_s each on average, so that every candidate's round is spread
 * over the same stretch of time. What one core gets from the memory here moves from one
 * millisecond to the next (reads of 8 MiB ran at 16 to 34 GB/s), ISA-L's rate, the reference,
 * more than ours: timed for a whole round one after the other, the ratio of a streaming band's
 * two fastest candidates moved by 16-49% (standard deviation) from round to round; taking turns
 * of 1 MiB, by 6-9%, and in five selections in a row 5-6 of 9 streaming bands were unstable
 * before, 2-3 after (hot: 4-7, 1-5). Hot candidates share the stripe, so the cache state one
 * leaves is the one the next runs in. Where the stripe is past L2 (our kernels then store P and
 * Q non-temporally) and a call reads at most HOT_WARM_MAX, that changed the next one's figure, so
 * there each turn starts with HOT_WARM_CALLS untimed calls: the timed ones find the stripe as
 * their own kernel leaves it, as in a caller that runs one kernel (k = 4, 1 MiB, avx512 against
 * ISA-L: alone 0.74-1.04x; in turns 1.25-1.89x with no untimed call, 0.99-1.07x with one,
 * 0.87-0.95x with two). Past 4 MiB the winner did not depend on them (docs/parity.md); those
 * bands are timed alone instead (band_alone()).
 * The turns go in a new order every pass (shuffle()): in a fixed order, rotated from round to
 * round as until the Zen 5 round, a candidate always followed the same one, and what that one
 * left behind moved its figure. An A/A test (every kernel listed twice) showed it: at k = 22 in
 * streaming bands of 64 KiB and 1 MiB a copy of avx512gfni-stream l2-2k ran 5-9% slower than
 * the copy that followed it, head to head, in 4 of 164 copy pairs shown more than 3% apart;
 * shuffled, none of 176 were, and the copies' medians were 0.7% apart on average against 1.3%.
 */
static void run_round(struct pq_selection *s, const struct cand *cs, struct walk *w,
		      const int *list, int n, double *rate)
{
	double round_s = w->hot ? HOT_ROUND_S : STREAM_ROUND_S;
	int k = s->cand[list[0]].k;
	size_t blk = s->cand[list[0]].len, data = (size_t)k * blk;
	int per = slice_calls(data);
	double t[PQ_SEL_MAX] = {0}, sum = 0;
	long calls[PQ_SEL_MAX] = {0};
	int warm = w->hot && pq_stripe_past_l2(k, blk) && !band_alone(s, cs[list[0]].band)
		       ? HOT_WARM_CALLS
		       : 0; /* past L2: warmed turns, or the band timed alone */

	while (sum < n * round_s) {
		int ord[PQ_SEL_MAX + 1];

		shuffle(list, n, ord);
		for (int j = 0; j < n; j++) {
			int c = ord[j];

			gen_calls(s, &cs[c], w, warm); /* untimed: the stripe as c leaves it */
			double t0 = now_s(), dt;

			gen_calls(s, &cs[c], w, per);
			dt = now_s() - t0;
			t[c] += dt;
			sum += dt;
			calls[c] += per;
		}
	}
	for (int j = 0; j < n; j++) /* rate[j]: list[j]'s */
		rate[j] = calls[list[j]] * (double)data / t[list[j]] / 1e9;
}

/*
 * One steady round of a hot band: its candidates list[0..n), in a new order (shuffle()), each
 * for STEADY_LEAD_S untimed and then STEADY_TURN_S timed, in calls of SLICE_BYTES between two
 * readings of the clock as run_round()'s. A caller runs one kernel for milliseconds, and on the
 * Xeon of the fourth round a kernel ran slower for the first 4 ms after another: hot k = 4
 * 64 KiB, avx512gfni at 59-63 GB/s after ISA-L's or our avx512 code, 66-71 after its own or
 * avx2's (1 ms slices, twenty times each); ISA-L at 4 KiB 0.93-0.94x of its own speed after
 * avx512gfni. In turns of 1 MiB every turn starts after another kernel's, and the selection had
 * avx512gfni at 0.92x of ISA-L there where alone it ran at 1.14-1.25x; turns of 1024 calls (4
 * ms) still gave 1.00-1.02x, of 4096 and more 1.12-1.16x. Short rounds stay the screen (many
 * rounds interleaved are what makes the ratios robust to load); the steady ones judge the close.
 */
static void steady_round(struct pq_selection *s, const struct cand *cs, struct walk *w,
			 const int *list, int n, double *rate)
{
	size_t data = (size_t)s->cand[list[0]].k * s->cand[list[0]].len;
	int per = slice_calls(data), pos[PQ_SEL_MAX + 1] = {0}, ord[PQ_SEL_MAX + 1];

	for (int i = 0; i < n; i++)
		pos[i] = i;
	shuffle(pos, n, ord); /* list[ord[j]] takes the j-th turn */
	for (int j = 0; j < n; j++) {
		const struct cand *c = &cs[list[ord[j]]];
		double t0 = now_s(), dt;
		long calls = 0;

		while (now_s() - t0 < STEADY_LEAD_S)
			gen_calls(s, c, w, per);
		t0 = now_s();
		do {
			gen_calls(s, c, w, per);
			calls += per;
		} while ((dt = now_s() - t0) < STEADY_TURN_S);
		rate[ord[j]] = calls * (double)data / dt / 1e9;
	}
}

/* s empty but for the candidates of use (cs: how to run each) */
static void prepare(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	memset(s, 0, sizeof(*s));
	s->use = use;
	s->best = -1;
	s->runs = 1;
	s->chosen = &pq_calls_base;
	list_cands(use, s, cs);
}

/*
 * What a use's candidates run on: one stripe of the largest band, hot, or the pool a streaming
 * walk goes through, every page touched with bytes that are not all alike; w->mem NULL when out
 * of memory. Freed with munmap(w->mem, w->len).
 */
static void walk_map(enum pq_use use, struct walk *w)
{
	size_t len = use == PQ_USE_HOT ? (size_t)(SEL_KMAX + 2) * SEL_LENMAX : pool_size();

	*w = (struct walk){pq_map_huge(len), len, 0, use == PQ_USE_HOT};
	for (size_t i = 0; w->mem && i < len; i += 8) {
		uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;

		memcpy(w->mem + i, &x, 8);
	}
}

/* the rounds of one pass (in_pass()): round r of each of its bands, then round r + 1 */
static void time_pass(struct pq_selection *s, const struct cand *cs, struct walk *w, bool *live,
		      const int *first, const int *count, int pass)
{
	for (int r = 0; r < PQ_SEL_ROUNDS; r++) {
		if (r == PQ_SEL_ROUNDS_FIRST)
			prune(s, cs, live, pass);
		for (int b = 0; b < s->nbands; b++) {
			int list[PQ_SEL_MAX], n = 0;

			if (!in_pass(s, b, pass))
				continue;
			for (int c = first[b]; c < first[b] + count[b]; c++)
				if (live[c])
					list[n++] = c;
			if (!n)
				continue;
			double rate[PQ_SEL_MAX];

			run_round(s, cs, w, list, n, rate);
			for (int j = 0; j < n; j++) {
				rates[list[j]][r] = rate[j];
				s->cand[list[j]].rounds = r + 1;
			}
		}
	}
}

/*
 * Hot: a band with two finalists or more (its live candidates after the short rounds, its
 * reference among them) times them in PQ_SEL_STEADY steady rounds (steady_round()), and their
 * figures become those rounds' medians: the choice is made among them (pq_sel_finalist()) as a
 * caller would find them. A band decided after its first rounds has none.
 */
static void time_steady(struct pq_selection *s, const struct cand *cs, struct walk *w,
			const bool *live)
{
	static double srates[PQ_SEL_MAX][PQ_SEL_STEADY]; /* under sel_lock */

	for (int b = 0; b < s->nbands; b++) {
		int list[PQ_SEL_MAX], n = 0, ref = s->band[b].ref;

		for (int c = 0; c < s->n; c++)
			if (cs[c].band == b && live[c])
				list[n++] = c;
		if (n < 2)
			continue;
		for (int r = 0; r < PQ_SEL_STEADY; r++) {
			double rate[PQ_SEL_MAX];

			steady_round(s, cs, w, list, n, rate);
			for (int j = 0; j < n; j++)
				srates[list[j]][r] = rate[j];
		}
		for (int j = 0; j < n; j++) {
			cand_medians(&s->cand[list[j]], srates[list[j]], srates[ref],
				     PQ_SEL_STEADY);
			s->cand[list[j]].rounds += PQ_SEL_STEADY;
		}
	}
}

/* times every candidate and fills s; 0 or -ENOMEM */
static int measure_locked(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	double t_start = now_s();
	bool live[PQ_SEL_MAX];
	int first[PQ_SEL_BANDS], count[PQ_SEL_BANDS] = {0};
	struct walk w; /* stripe after stripe through the pool, as the bench's */

	prepare(use, s, cs);
	walk_map(use, &w);
	if (!w.mem)
		return -ENOMEM;
	for (int c = s->n - 1; c >= 0; c--) { /* a band's candidates are adjacent in cs */
		live[c] = true;
		first[cs[c].band] = c;
		count[cs[c].band]++;
	}
	for (int pass = 0; pass <= s->nbands; pass++)
		if (!pass || band_alone(s, pass - 1))
			time_pass(s, cs, &w, live, first, count, pass);
	medians(s, cs);
	if (use == PQ_USE_HOT)
		time_steady(s, cs, &w, live);
	munmap(w.mem, w.len);
	mark_finalists(s, cs);
	decide(s, cs);
	s->cpu_s = now_s() - t_start;
	return 0;
}

static int measure(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	pthread_mutex_lock(&sel_lock);
	int rc = measure_locked(use, s, cs);

	pthread_mutex_unlock(&sel_lock);
	return rc;
}

/*
 * A selection to keep (pq_keep.c): PQ_KEEP_RUNS selections, each candidate's median of their
 * figures, the sums of its rounds and of its finals, and the choice made from those by the one
 * rule. Under sel_lock.
 */
static int measure_kept(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	static struct pq_selection run[PQ_KEEP_RUNS];
	double cpu = 0;

	for (int r = 0; r < PQ_KEEP_RUNS; r++) {
		int rc = measure_locked(use, &run[r], cs);

		if (rc)
			return rc;
		cpu += run[r].cpu_s;
	}
	*s = run[0];
	for (int c = 0; c < s->n; c++) {
		double rel[PQ_KEEP_RUNS], gbps[PQ_KEEP_RUNS];

		s->cand[c].rounds = s->cand[c].finals = 0;
		for (int r = 0; r < PQ_KEEP_RUNS; r++) {
			rel[r] = run[r].cand[c].rel;
			gbps[r] = run[r].cand[c].gbps;
			s->cand[c].rounds += run[r].cand[c].rounds;
			s->cand[c].finals += run[r].cand[c].finals;
		}
		s->cand[c].rel = median(rel, PQ_KEEP_RUNS);
		s->cand[c].gbps = median(gbps, PQ_KEEP_RUNS);
	}
	s->runs = PQ_KEEP_RUNS;
	s->cpu_s = cpu;
	decide(s, cs);
	return 0;
}

/*
 * With RAID_PARITY_SELECTION=FILE: the selection of this use kept there, or (none, or measured on
 * another machine or build, or not a record) measured for keeping and written there; FILE.lock is
 * held throughout, so processes that start together wait for the first one's and use it. Without
 * it, or when FILE.lock cannot be taken: measured in this process alone.
 */
static int select_use(enum pq_use use, struct pq_selection *s, struct cand *cs)
{
	const char *path = getenv("RAID_PARITY_SELECTION"), *why = NULL, *what = pq_use_name(use);
	int lock, rc;

	if (!path || !*path)
		return measure(use, s, cs);
	if ((lock = pq_keep_lock(path)) < 0) {
		fprintf(
		    stderr,
		    "raid parity: RAID_PARITY_SELECTION=%s: cannot lock %s.lock: %s; this process "
		    "measures its own %s selection\n",
		    path, path, strerror(-lock), what);
		return measure(use, s, cs);
	}
	pthread_mutex_lock(&sel_lock);
	prepare(use, s, cs);
	if ((rc = pq_keep_read(path, s, &why)) == 0) {
		s->kept = path;
		s->loaded = true;
		decide(s, cs);
	} else {
		if (why)
			fprintf(
			    stderr,
			    "raid parity: RAID_PARITY_SELECTION=%s: %s; measuring the %s selection "
			    "again\n",
			    path, why, what);
		if ((rc = measure_kept(use, s, cs)) == 0) {
			int w;

			pq_keep_stamp(s);
			if ((w = pq_keep_write(path, s)) == 0)
				s->kept = path;
			else
				fprintf(
				    stderr,
				    "raid parity: RAID_PARITY_SELECTION=%s: cannot write it: %s; "
				    "the %s selection is this process's alone\n",
				    path, strerror(-w), what);
		}
	}
	pthread_mutex_unlock(&sel_lock);
	pq_keep_unlock(lock);
	return rc;
}

int pq_select_measure_kept(enum pq_use use, struct pq_selection *out)
{
	struct cand cs[PQ_SEL_MAX];

	pthread_mutex_lock(&sel_lock);
	int rc = measure_kept(use, out, cs);

	pthread_mutex_unlock(&sel_lock);
	return rc;
}

int pq_select_measure(enum pq_use use, struct pq_selection *out)
{
	struct cand cs[PQ_SEL_MAX];

	return measure(use, out, cs);
}

/*
 * Head to head (raid-parity-bench --selection settles an unstable band with it): only the given
 * candidates of one band and its reference take their turns, for many more rounds than a
 * selection gives them, and every round's ratios to the reference are handed back, so that the
 * caller can judge by their medians, as a selection judges, and compare two candidates round by
 * round. Fewer candidates a round put their turns closer together in time, and the rounds are
 * many: a difference a five-run median cannot resolve, this can. Hot rounds are steady ones
 * (steady_round()), as the selection's finalists are judged.
 */
int pq_select_duel(enum pq_use use, const int *idx, int n, int rounds, double *rel)
{
	struct pq_selection s;
	struct cand cs[PQ_SEL_MAX];
	struct walk w;
	int list[PQ_SEL_MAX + 1], pos[PQ_SEL_MAX], m = 0, rc = 0; /* idx[i] is list[pos[i]] */
	double rate[PQ_SEL_MAX + 1];

	if (n < 1 || n > PQ_SEL_MAX || rounds < 1 || rounds > PQ_DUEL_ROUNDS_MAX)
		return -EINVAL;
	pthread_mutex_lock(&sel_lock);
	prepare(use, &s, cs);
	for (int i = 0; i < n && !rc; i++)
		if (idx[i] < 0 || idx[i] >= s.n || cs[idx[i]].band != cs[idx[0]].band)
			rc = -EINVAL;
	if (rc)
		goto out;
	list[m++] = s.band[cs[idx[0]].band].ref; /* list[0]: the reference */
	for (int i = 0; i < n; i++) { /* each candidate timed once, however often named */
		pos[i] = 0;
		while (pos[i] < m && list[pos[i]] != idx[i])
			pos[i]++;
		if (pos[i] == m)
			list[m++] = idx[i];
	}
	walk_map(use, &w);
	if (!w.mem) {
		rc = -ENOMEM;
		goto out;
	}
	for (int r = 0; r < rounds; r++) {
		(use == PQ_USE_HOT ? steady_round : run_round)(&s, cs, &w, list, m, rate);
		for (int i = 0; i < n; i++) /* relative to the reference, list[0] */
			rel[(size_t)i * rounds + r] = rate[pos[i]] / rate[0];
	}
	munmap(w.mem, w.len);
out:
	pthread_mutex_unlock(&sel_lock);
	return rc;
}

/*
 * Each family takes its shape per band from s, whichever family won the band: the streaming
 * selection's for its twin, the hot one's (bands past L2) for its size rule.
 */
static void keep_shapes(const struct pq_selection *s, const struct cand *cs)
{
	for (int f = 0; pq_families[f]; f++)
		for (int b = 0; b < s->nbands; b++) {
			int c = pick(s, cs, b, pq_families[f]);

			if (c >= 0)
				__atomic_store_n(&(s->use == PQ_USE_HOT ? pq_families[f]->hot_shape
									: pq_families[f]->shape)[b],
						 cs[c].shape, __ATOMIC_RELAXED);
		}
}

/* the selection a process puts in use (pq_route.c), and each family's shapes per band from it */
int pq_select_use(enum pq_use use, struct pq_selection *s)
{
	struct cand cs[PQ_SEL_MAX];
	int rc = select_use(use, s, cs);

	if (!rc)
		keep_shapes(s, cs);
	return rc;
}
