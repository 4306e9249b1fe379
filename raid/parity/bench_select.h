/*
 * bench_select.h - raid-parity-bench --selection N: is the selection stable (bench_select.c)?
 */
#ifndef RAID_PARITY_BENCH_SELECT_H
#define RAID_PARITY_BENCH_SELECT_H

#include <stdbool.h>
#include <stdio.h>

/* runs both selections n times (as kept selections are measured, when kept), prints every run
 * and the verdict, settling head to head the bands the runs' figures call unstable (every band
 * with settle_all); true when both are stable */
bool bench_selection_check(int n, bool kept, bool settle_all, FILE *out);

/*
 * Runs in which candidate a's figure beat b's by more than 5%: ahead[r] = 'a'; b's by as much:
 * 'b'; else 0. Non-zero when both happened: which of the two is fastest changed between runs,
 * more than one selection's noise (the check's explanation of an unstable band).
 */
int bench_sel_flipped(const double *a, const double *b, int n, char *ahead);

/*
 * Candidate a against b head to head, round by round: the median over the rounds of a's rate
 * over b's in the same round (a[r] / b[r], two candidates' ratios to one reference), and the
 * 95% confidence bounds of that median (distribution-free: the order statistics the sign test
 * gives; with fewer than six rounds, the smallest and the largest). rounds: 1..PQ_DUEL_ROUNDS_MAX.
 */
struct bench_sel_ratio {
	double lo, med, hi;
};
void bench_sel_paired(const double *a, const double *b, int rounds, struct bench_sel_ratio *out);

/*
 * The settled verdict of a band: rel[i * rounds + r] candidate i's ratio to the reference in
 * round r head to head (pq_select_duel()), chosen[i] whether a run chose it. Every chosen
 * candidate is compared round by round with every other candidate; *gap is the closest call:
 * the chosen one (slow) and the other (than) whose ratio's upper bound is the smallest, slow -1
 * when there was nothing to compare. 2 when every chosen candidate is within PQ_SEL_TIE (3%) of
 * every other (each lower bound at least 0.97), 1 when none is shown slower by more (no upper
 * bound below 0.97) but not all are shown within, 0 when one is shown more than 3% slower than
 * another, and 0 when n is 0.
 */
struct bench_sel_gap {
	int slow, than;
	struct bench_sel_ratio r;
};
int bench_sel_settled(const double *rel, const bool *chosen, int n, int rounds,
		      struct bench_sel_gap *gap);

#endif
