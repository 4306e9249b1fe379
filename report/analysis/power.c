/* report/analysis/power.c: the gate's statistics (numbers only): whether a figure's repetitions
 * in this run are worse than the baseline's, by a test that fits the number of repetitions,
 * and the smallest change that test could have detected with these samples (docs/report.md
 * "The statistical tier"). A one-sided Mann-Whitney U test where the repetitions allow it to
 * reach the level at all (exact over every split of the pooled samples up to
 * RR_EXACT_SPLITS, the normal approximation with ties beyond), else a bootstrap interval of
 * the ratio of medians (RR_BOOT resamples, a fixed seed: the same samples give the same
 * verdict). With 3 against 3 repetitions no split is rarer than 1 in 20: no rank test can
 * say p < 0.05, so the bootstrap decides there. */
#include "report/analysis/analysis.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

enum { RR_EXACT_SPLITS = 20000, RR_BOOT = 1000 };

/* "worse" is smaller: a figure where lower is better is compared as its inverse */
static double worse_sign(double v, int higher)
{
	return higher ? v : 1 / v;
}

/* U of the run: pairs (run, baseline) with the run's value below, ties half */
static double u_stat(const double *b, size_t nb, const double *c, size_t nc)
{
	double u = 0;
	for (size_t i = 0; i < nc; i++)
		for (size_t k = 0; k < nb; k++)
			u += c[i] < b[k] ? 1 : c[i] == b[k] ? 0.5 : 0;
	return u;
}

static double choose(size_t n, size_t k)
{
	double r = 1;
	for (size_t i = 1; i <= k; i++)
		r = r * (double)(n - k + i) / (double)i;
	return r;
}

/* P(U >= u) over every way to split the pooled samples into the run's nc and the rest */
static double u_exact_p(const double *pool, size_t n, size_t nc, double u)
{
	size_t idx[64];
	double c[64], b[128];
	double hit = 0, all = 0;
	for (size_t i = 0; i < nc; i++)
		idx[i] = i;
	for (;;) {
		size_t nb = 0, ci = 0;
		for (size_t i = 0, j = 0; i < n; i++) {
			if (j < nc && idx[j] == i)
				c[ci++] = pool[i], j++;
			else
				b[nb++] = pool[i];
		}
		hit += u_stat(b, nb, c, nc) >= u - 1e-9;
		all++;
		size_t j = nc;
		while (j > 0 && idx[j - 1] == n - nc + j - 1)
			j--;
		if (j == 0)
			break;
		idx[j - 1]++;
		for (size_t k = j; k < nc; k++)
			idx[k] = idx[k - 1] + 1;
	}
	return hit / all;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* P(U >= u), normal approximation with the ties' correction and continuity */
static double u_normal_p(const double *pool, size_t n, size_t nb, size_t nc, double u)
{
	double *s = malloc(n * sizeof(*s)), ties = 0;
	if (!s)
		abort();
	memcpy(s, pool, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_d);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && s[j] == s[i])
			j++;
		double t = (double)(j - i);
		ties += t * t * t - t;
		i = j;
	}
	free(s);
	double N = (double)n, mu = (double)nb * nc / 2;
	double var = (double)nb * nc / 12 * ((N + 1) - ties / (N * (N - 1)));
	if (var <= 0)
		return u > mu + 1e-9 ? 0 : 1;
	double z = (u - mu - 0.5) / sqrt(var);
	return 0.5 * erfc(z / sqrt(2));
}

/* can a rank test of nb against nc samples reach p < alpha at all? */
int rr_rank_can_reach(size_t nb, size_t nc, double alpha)
{
	return nb >= 1 && nc >= 1 && 1 / choose(nb + nc, nc) < alpha;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
	return *s;
}

/* one-sided: is the run worse, by the rank test or the bootstrap? (samples already oriented:
 * worse is smaller) */
static int significant(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		       double *p_out)
{
	if (rr_rank_can_reach(nb, nc, alpha)) {
		double pool[192], u = u_stat(b, nb, c, nc);
		memcpy(pool, b, nb * sizeof(*b));
		memcpy(pool + nb, c, nc * sizeof(*c));
		double p = choose(nb + nc, nc) <= RR_EXACT_SPLITS
			       ? u_exact_p(pool, nb + nc, nc, u)
			       : u_normal_p(pool, nb + nc, nb, nc, u);
		*p_out = p;
		return p < alpha;
	}
	/* the ratio of medians (run / baseline) over resamples: worse when even its upper
	 * (1 - alpha) quantile is below 1 */
	double rb[128], rc[64], ratios[RR_BOOT];
	uint64_t seed = 0x9e3779b97f4a7c15ull;
	for (int r = 0; r < RR_BOOT; r++) {
		for (size_t i = 0; i < nb; i++)
			rb[i] = b[rnd(&seed) % nb];
		for (size_t i = 0; i < nc; i++)
			rc[i] = c[rnd(&seed) % nc];
		ratios[r] = median_of(rc, nc) / median_of(rb, nb);
	}
	qsort(ratios, RR_BOOT, sizeof(*ratios), cmp_d);
	size_t below = 0;
	while (below < RR_BOOT && ratios[below] < 1)
		below++;
	*p_out = 1 - (double)below / RR_BOOT; /* the share of resamples not worse */
	return ratios[(size_t)((1 - alpha) * RR_BOOT)] < 1;
}

/* oriented (worse is smaller) copies of the samples, scaled by k (1 - shift) */
static void orient(const double *s, size_t n, int higher, double k, double shift, double *out)
{
	for (size_t i = 0; i < n; i++)
		out[i] = worse_sign(s[i], higher) * k * (1 - shift);
}

/* the smallest shift (a fraction, bisected) that makes oriented samples c significantly
 * worse than b; INFINITY when not even 95% does */
static double detect(const double *b, size_t nb, const double *c0, size_t nc, double alpha)
{
	double c[64], lo = 0, hi = 0.95, p;
	for (size_t i = 0; i < nc; i++)
		c[i] = c0[i] * (1 - hi);
	if (!significant(b, nb, c, nc, alpha, &p))
		return INFINITY;
	for (int it = 0; it < 24; it++) {
		double mid = (lo + hi) / 2;
		for (size_t i = 0; i < nc; i++)
			c[i] = c0[i] * (1 - mid);
		if (significant(b, nb, c, nc, alpha, &p))
			hi = mid;
		else
			lo = mid;
	}
	return hi;
}

void rr_power_judge(const double *bs, size_t nb, const double *cs, size_t nc, int higher,
		    double threshold, double alpha, struct rr_power *out)
{
	double b[128], c[64], bm[128], cm[64];
	memset(out, 0, sizeof(*out));
	out->detectable = NAN;
	out->p_worse = out->p_better = NAN;
	if (nb > 128)
		nb = 128;
	if (nc > 64)
		nc = 64;
	if (nb < 2 || nc < 2) {
		out->test = "none";
		out->repeats_for_10 = 4;
		return;
	}
	out->test = rr_rank_can_reach(nb, nc, alpha) ? "mann-whitney" : "bootstrap";
	memcpy(bm, bs, nb * sizeof(*bm));
	memcpy(cm, cs, nc * sizeof(*cm));
	double change = median_of(cm, nc) / median_of(bm, nb) - 1; /* signed, raw */
	double bad = higher ? -change : change;
	orient(bs, nb, higher, 1, 0, b);
	orient(cs, nc, higher, 1, 0, c);
	int worse = significant(b, nb, c, nc, alpha, &out->p_worse);
	/* better: the same test with the sides swapped */
	int better = significant(c, nc, b, nb, alpha, &out->p_better);
	out->verdict = worse && bad > threshold	    ? RR_P_WORSE
		       : better && -bad > threshold ? RR_P_BETTER
						    : RR_P_SAME;
	/* the smallest change the test would call worse, the larger of two: this run's samples
	 * moved onto the baseline's median (their spread kept), and a run as spread as the
	 * baseline (the baseline's quantiles: a baseline of several runs carries their
	 * run-to-run spread, which one run's repetitions understate), each shifted until it is */
	double k = worse_sign(median_of(bm, nb), higher) / worse_sign(median_of(cm, nc), higher);
	orient(cs, nc, higher, k, 0, c);
	out->detectable = detect(b, nb, c, nc, alpha);
	double bo[128];
	memcpy(bo, b, nb * sizeof(*bo));
	qsort(bo, nb, sizeof(*bo), cmp_d);
	for (size_t i = 0; i < nc; i++) {
		double q = ((double)i + 0.5) / (double)nc * (double)(nb - 1);
		size_t lo = (size_t)q;
		double fr = q - (double)lo, hi = bo[lo + 1 < nb ? lo + 1 : lo];
		cm[i] = bo[lo] + fr * (hi - bo[lo]);
	}
	double db = detect(b, nb, cm, nc, alpha);
	if (db > out->detectable)
		out->detectable = db;
	/* repetitions a side for 10%: the change the test resolves narrows as 1/sqrt(n), and a
	 * rank test needs at least 4 against 4 to reach 5% at all */
	double need = isinf(out->detectable) ? 4 * (double)nc
					     : ceil((double)nc * pow(out->detectable / 0.10, 2));
	if (need < 4)
		need = 4;
	out->repeats_for_10 = need > 999 ? 999 : (int)need;
}
