/*
 * bench_select.c - the stability check of the parity selection (raid-parity-bench --selection N):
 * the hot and the streaming selection are measured afresh N times in this process
 * (pq_select_measure(), which changes nothing in use), and a selection is stable when every run
 * chose the same candidate, or when every run's choice is within 3% of the fastest candidate,
 * both judged on each candidate's median over the N runs of its ratio to the reference (rel,
 * what the selection itself judges by): a choice between two kernels that are
 * equally fast is not a flaw. Each selection is judged band by band (of k and block length). An
 * unstable band is explained: did the runs' own figures put the fastest and the slowest choice
 * each more than 5% ahead of the other (the fastest changed between runs), or not (the choice
 * moved within one selection's noise)?
 *
 * The runs' own figures cannot always tell: two candidates that are the same kernel, listed twice
 * (an A/A test, docs/parity.md), had five-run medians 4-7% apart here, so "within 3% of the
 * fastest" judged on them flags a choice between equals as often as a real miss. A band the runs'
 * figures call unstable is therefore settled head to head (pq_select_duel()): its choices and
 * every candidate within SETTLE_NEAR of the fastest median are timed against each other alone for
 * SETTLE_ROUNDS rounds, and each choice is compared with every other candidate round by round
 * (the ratio of their rates in the same round; its median and that median's 95% bounds). The
 * band is unstable when a choice is shown more than 3% slower than another (the upper bound below
 * 0.97); a choice not shown within 3% either (the lower bound below 0.97) is stable but counted
 * apart, as the precision's, not the selection's. Comparing medians of ratios to ISA-L without
 * bounds, as this did first, an A/A pair was 5-7% apart in 2 of 20 settles. Both verdicts are
 * printed; the check's exit status follows the settled one. With --settle every band is settled,
 * the stable ones too: a choice made in every run that is slower than another candidate is
 * caught as well.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_select.h"
#include "pq.h"

#define MAX_RUNS 20
#define SEL_FLIP 0.05 /* one kernel ahead of another by more than this in a run: not noise */
/* settled with the choices: every candidate whose median is within this of the fastest one's (a
 * choice more than 3% slower than the truly fastest is so against one of them) */
#define SETTLE_NEAR 0.10
#define SETTLE_ROUNDS 90 /* six selections' worth of rounds */
/* hot: steady rounds, as the selection judges its finalists (pq_select_duel()); each is 8 ms a
 * candidate, and the ratio of two candidates moves less from one to the next */
#define SETTLE_STEADY 20
_Static_assert(SETTLE_ROUNDS <= PQ_DUEL_ROUNDS_MAX, "a duel's rounds, bench_sel_paired()'s too");
_Static_assert(SETTLE_STEADY <= SETTLE_ROUNDS, "rel[] holds a streaming duel's rounds");

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* the median of v[0..n) (the upper one of an even n), v sorted in place */
static double median(double *v, int n)
{
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

/* candidate c's median over the runs of its ratio to the reference (rel), or of its rate */
static double median_of(const struct pq_selection *runs, int n, int c, bool rel)
{
	double v[MAX_RUNS];

	for (int r = 0; r < n; r++)
		v[r] = rel ? runs[r].cand[c].rel : runs[r].cand[c].gbps;
	return median(v, n);
}

static bool in_band(const struct pq_selection *runs, int c, int b)
{
	return runs[0].cand[c].k == runs[0].band[b].k && runs[0].cand[c].len == runs[0].band[b].len;
}

int bench_sel_flipped(const double *a, const double *b, int n, char *ahead)
{
	int na = 0, nb = 0;

	for (int r = 0; r < n; r++) {
		ahead[r] = a[r] > (1 + SEL_FLIP) * b[r]	  ? 'a'
			   : b[r] > (1 + SEL_FLIP) * a[r] ? 'b'
							  : 0;
		na += ahead[r] == 'a';
		nb += ahead[r] == 'b';
	}
	return na && nb;
}

/*
 * Why a band was unstable: between the fastest by median (f) and the slowest choice (c), did
 * the runs' own figures put each ahead of the other by more than SEL_FLIP in some run (the
 * machine changed between runs, and the choice followed it), or not (the choice moved within one
 * selection's noise)? Stated after the band's figures; the verdict is the same either way.
 */
/* " run 2" or " runs 1 3 4": the runs r where ahead[r] == who */
static void print_runs(const char *ahead, int n, char who, FILE *out)
{
	int count = 0;

	for (int r = 0; r < n; r++)
		count += ahead[r] == who;
	fprintf(out, count > 1 ? " runs" : " run");
	for (int r = 0; r < n; r++)
		if (ahead[r] == who)
			fprintf(out, " %d", r + 1);
}

static bool explain(const struct pq_selection *runs, int n, int b, int f, FILE *out)
{
	double fr[MAX_RUNS] = {0}, cr[MAX_RUNS] = {0};
	char ahead[MAX_RUNS];
	int c = -1;

	for (int r = 0; r < n; r++) {
		int x = runs[r].band[b].best;

		if (c < 0 || median_of(runs, n, x, true) < median_of(runs, n, c, true))
			c = x;
	}
	for (int r = 0; r < n; r++) {
		fr[r] = runs[r].cand[f].rel;
		cr[r] = runs[r].cand[c].rel;
	}
	if (!bench_sel_flipped(fr, cr, n, ahead)) {
		fprintf(
		    out,
		    "  %s and %s were not each more than %.0f%% ahead of the other in some run: "
		    "the choice moved within one selection's noise\n",
		    runs[0].cand[f].name, runs[0].cand[c].name, SEL_FLIP * 100);
		return false;
	}
	fprintf(out,
		"  the fastest changed between runs: by each run's own figures %s was more than "
		"%.0f%% ahead in",
		runs[0].cand[f].name, SEL_FLIP * 100);
	print_runs(ahead, n, 'a', out);
	fprintf(out, ", %s in", runs[0].cand[c].name);
	print_runs(ahead, n, 'b', out);
	fprintf(out, ": more than noise (the machine's state or the stripes' placement changed "
		     "between runs), and the choice followed it\n");
	return true;
}

/* bands of one check: how many, how many unstable by the runs' figures, of those how many
 * changed between runs; how many were settled head to head, of those how many were stable, and
 * of those how many had every choice shown within 3% */
struct tally {
	int bands, unstable, changed, dueled, settled, within;
};

/* the largest j with P(X < j) <= 2.5% for X ~ Binomial(n, 1/2): the median's 95% bounds are the
 * j-th smallest and the j-th largest of n values (at least 1) */
static int sign_bound(int n)
{
	double p = 1, cdf = 0; /* p = P(X = j), cdf = P(X < j) */
	int j = 0;

	for (int i = 0; i < n; i++)
		p *= 0.5;
	while (cdf + p <= 0.025) {
		cdf += p;
		p *= (double)(n - j) / (j + 1);
		j++;
	}
	return j > 0 ? j : 1;
}

void bench_sel_paired(const double *a, const double *b, int rounds, struct bench_sel_ratio *out)
{
	double v[PQ_DUEL_ROUNDS_MAX];
	int j = sign_bound(rounds);

	for (int r = 0; r < rounds; r++)
		v[r] = a[r] / b[r];
	qsort(v, rounds, sizeof(v[0]), cmp_double);
	*out = (struct bench_sel_ratio){v[j - 1], v[rounds / 2], v[rounds - j]};
}

int bench_sel_settled(const double *rel, const bool *chosen, int n, int rounds,
		      struct bench_sel_gap *gap)
{
	bool within = true;

	gap->slow = gap->than = -1;
	for (int i = 0; i < n; i++)
		for (int o = 0; chosen[i] && o < n; o++) {
			struct bench_sel_ratio r;

			if (o == i)
				continue;
			bench_sel_paired(rel + (size_t)i * rounds, rel + (size_t)o * rounds, rounds,
					 &r);
			within &= r.lo >= 1 - PQ_SEL_TIE;
			if (gap->slow < 0 || r.hi < gap->r.hi)
				*gap = (struct bench_sel_gap){i, o, r};
		}
	if (!n || (gap->slow >= 0 && gap->r.hi < 1 - PQ_SEL_TIE))
		return 0;
	return within ? 2 : 1;
}

/*
 * Band b, unstable by the runs' figures (or any band, with --settle): its choices and every
 * candidate within SETTLE_NEAR of the fastest median (top) head to head for SETTLE_ROUNDS rounds
 * (hot: SETTLE_STEADY steady ones),
 * each chosen one compared round by round with every other (bench_sel_settled()). 1 when none is
 * shown more than PQ_SEL_TIE slower than another, 0 when one is, -1 when it could not be measured
 * (then the runs' verdict stands); *within set when every choice was shown within PQ_SEL_TIE.
 */
static int settle(enum pq_use use, const struct pq_selection *runs, int n, int b, double top,
		  bool *within, FILE *out)
{
	static double rel[PQ_SEL_MAX * SETTLE_ROUNDS];
	int idx[PQ_SEL_MAX] = {0}, m = 0, v,
	    rounds = use == PQ_USE_HOT ? SETTLE_STEADY : SETTLE_ROUNDS;
	bool chosen[PQ_SEL_MAX];
	struct bench_sel_gap g;

	for (int c = 0; c < runs[0].n; c++) {
		bool ch = false;

		for (int r = 0; r < n; r++)
			ch |= runs[r].band[b].best == c;
		if (in_band(runs, c, b) &&
		    (ch || median_of(runs, n, c, true) >= (1 - SETTLE_NEAR) * top)) {
			chosen[m] = ch;
			idx[m++] = c;
		}
	}
	if (pq_select_duel(use, idx, m, rounds, rel)) {
		fprintf(out, "  settled head to head: could not be measured (out of memory)\n");
		return -1;
	}
	v = bench_sel_settled(rel, chosen, m, rounds, &g);
	fprintf(out, "  settled head to head (%d %srounds, these alone):", rounds,
		use == PQ_USE_HOT ? "steady " : "");
	for (int i = 0; i < m; i++) {
		double x[SETTLE_ROUNDS];

		memcpy(x, rel + (size_t)i * rounds, rounds * sizeof(x[0]));
		fprintf(out, "%s %s %.2fx%s", i ? "," : "", runs[0].cand[idx[i]].name,
			median(x, rounds), chosen[i] ? " (chosen)" : "");
	}
	fprintf(out, ": %s",
		v == 2	 ? "stable: every choice within 3% of the fastest"
		: v == 1 ? "stable: no choice shown more than 3% slower than another"
			 : "NOT stable: a choice more than 3% slower than another");
	if (g.slow >= 0)
		fprintf(out, " (%s %s: %.2fx of %s round by round, 95%%: %.2f-%.2f)",
			v ? "closest" : "here", runs[0].cand[idx[g.slow]].name, g.r.med,
			runs[0].cand[idx[g.than]].name, g.r.lo, g.r.hi);
	fputc('\n', out);
	*within = v == 2;
	return v > 0;
}

/* band b of the N runs: stable when the same candidate was chosen every run or each choice's
 * median is within PQ_SEL_TIE of the fastest median */
static bool check_band(enum pq_use use, const struct pq_selection *runs, int n, int b,
		       const char *what, bool settle_all, struct tally *t, FILE *out)
{
	int fastest = -1;
	bool same = true, near = true;

	for (int c = 0; c < runs[0].n; c++)
		if (in_band(runs, c, b) && (fastest < 0 || median_of(runs, n, c, true) >
							       median_of(runs, n, fastest, true)))
			fastest = c;
	if (fastest < 0)
		return true;
	t->bands++;
	double top = median_of(runs, n, fastest, true);

	for (int r = 0; r < n; r++) {
		same &= runs[r].band[b].best == runs[0].band[b].best;
		near &= median_of(runs, n, runs[r].band[b].best, true) >= (1 - PQ_SEL_TIE) * top;
	}
	fprintf(
	    out,
	    "%s selection over %d runs, k = %d, %zuK: fastest by median %s (%.2fx %s, %.2f GB/s); "
	    "%s\n",
	    what, n, runs[0].band[b].k, runs[0].band[b].len >> 10, runs[0].cand[fastest].name, top,
	    runs[0].cand[runs[0].band[b].ref].name, median_of(runs, n, fastest, false),
	    same   ? "stable: the same choice every run"
	    : near ? "stable: every choice within 3% of the fastest"
		   : "NOT stable: a choice more than 3% slower than the fastest");
	for (int c = 0; c < runs[0].n; c++) {
		if (!in_band(runs, c, b))
			continue;
		fprintf(out, "  %-28s median %5.2fx %7.2f GB/s  runs:", runs[0].cand[c].name,
			median_of(runs, n, c, true), median_of(runs, n, c, false));
		/* each run's figure: '*' chosen in that run, '-' dropped after its first rounds */
		for (int r = 0; r < n; r++)
			fprintf(out, " %.2f%s%s", runs[r].cand[c].rel,
				runs[r].band[b].best == c ? "*" : "",
				runs[r].cand[c].rounds < PQ_SEL_ROUNDS ? "-" : "");
		fputc('\n', out);
	}
	if (!same && !near) {
		t->unstable++;
		t->changed += explain(runs, n, b, fastest, out);
	} else if (!settle_all) {
		return true;
	}
	bool within = false;
	int st = settle(use, runs, n, b, top, &within, out);

	if (st < 0)
		return same || near;
	t->dueled++;
	t->settled += st;
	t->within += within;
	return st;
}

static void print_tally(const char *what, int n, const struct tally *t, FILE *out)
{
	fprintf(out, "%s over %d runs: %d of %d bands stable", what, n, t->bands - t->unstable,
		t->bands);
	if (t->unstable)
		fprintf(out,
			"; of the %d unstable, %d changed between runs, %d moved within the noise",
			t->unstable, t->changed, t->unstable - t->changed);
	if (t->dueled)
		fprintf(
		    out,
		    "; settled head to head (%d), %d of %d bands stable (%d of the %d shown within "
		    "3%%)",
		    t->dueled, t->bands - t->dueled + t->settled, t->bands, t->within, t->dueled);
	fputc('\n', out);
}

static bool check(enum pq_use use, int n, bool kept, bool settle_all, struct tally *all, FILE *out)
{
	struct tally t = {0};
	static struct pq_selection runs[MAX_RUNS];
	const char *what = pq_use_name(use);
	bool ok = true;

	for (int r = 0; r < n; r++) {
		if ((kept ? pq_select_measure_kept : pq_select_measure)(use, &runs[r])) {
			fprintf(out, "%s selection: out of memory\n", what);
			return false;
		}
		fprintf(out, "%s run %d:", what, r + 1);
		for (int b = 0; b < runs[r].nbands; b++) {
			const struct pq_candidate *c = &runs[r].cand[runs[r].band[b].best];

			fprintf(out, "%s k = %d %zuK %s (%.2f GB/s)", b ? ";" : "", c->k,
				c->len >> 10, c->name, c->gbps);
		}
		fprintf(out, " (%.0f ms of CPU)\n", runs[r].cpu_s * 1e3);
	}
	for (int b = 0; b < runs[0].nbands; b++)
		ok &= check_band(use, runs, n, b, what, settle_all, &t, out);
	char name[32];

	snprintf(name, sizeof(name), "%s selection", what);
	print_tally(name, n, &t, out);
	all->bands += t.bands;
	all->unstable += t.unstable;
	all->changed += t.changed;
	all->dueled += t.dueled;
	all->settled += t.settled;
	all->within += t.within;
	return ok;
}

bool bench_selection_check(int n, bool kept, bool settle_all, FILE *out)
{
	struct tally all = {0};
	bool hot = check(PQ_USE_HOT, n, kept, settle_all, &all, out);
	bool stream = check(PQ_USE_STREAM, n, kept, settle_all, &all, out);

	print_tally(kept ? "both kept selections" : "both selections", n, &all, out);
	return hot && stream;
}
