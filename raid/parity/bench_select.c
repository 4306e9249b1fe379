/*
 * bench_select.c - the stability check of the parity selection (raid-parity-bench --selection N):
 * the hot and the streaming selection are measured afresh N times in this process
 * (pq_select_measure(), which changes nothing in use), and a selection is stable when every run
 * chose the same candidate, or when every run's choice is within 3% of the fastest candidate,
 * both judged on each candidate's median over the N runs: a choice between two kernels that are
 * equally fast is not a flaw.
 */
#include <stdlib.h>
#include <string.h>

#include "bench_select.h"
#include "pq.h"

#define TOLERANCE 0.03
#define MAX_RUNS 20

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* candidate c's median over the runs */
static double median_of(const struct pq_selection *runs, int n, int c)
{
	double v[MAX_RUNS];

	for (int r = 0; r < n; r++)
		v[r] = runs[r].cand[c].gbps;
	qsort(v, n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static bool check(enum pq_use use, int n, FILE *out)
{
	static struct pq_selection runs[MAX_RUNS];
	const char *what = use == PQ_USE_HOT ? "hot" : "streaming";

	for (int r = 0; r < n; r++) {
		if (pq_select_measure(use, &runs[r])) {
			fprintf(out, "%s selection: out of memory\n", what);
			return false;
		}
		fprintf(out, "%s run %d: %s (%.2f GB/s)\n", what, r + 1,
			runs[r].cand[runs[r].best].name, runs[r].cand[runs[r].best].gbps);
	}
	int fastest = 0;
	bool same = true, near = true;

	for (int c = 1; c < runs[0].n; c++)
		if (median_of(runs, n, c) > median_of(runs, n, fastest))
			fastest = c;
	double top = median_of(runs, n, fastest);

	for (int r = 0; r < n; r++) {
		double m = median_of(runs, n, runs[r].best);

		same &= runs[r].best == runs[0].best;
		near &= m >= (1 - TOLERANCE) * top;
	}
	fprintf(out, "%s selection over %d runs: fastest by median %s (%.2f GB/s); %s\n", what, n,
		runs[0].cand[fastest].name, top,
		same   ? "stable: the same choice every run"
		: near ? "stable: every choice within 3% of the fastest"
		       : "NOT stable: a choice more than 3% slower than the fastest");
	for (int c = 0; c < runs[0].n; c++)
		fprintf(out, "  %-28s median %7.2f GB/s\n", runs[0].cand[c].name,
			median_of(runs, n, c));
	return same || near;
}

bool bench_selection_check(int n, FILE *out)
{
	bool hot = check(PQ_USE_HOT, n, out);
	bool stream = check(PQ_USE_STREAM, n, out);

	return hot && stream;
}
