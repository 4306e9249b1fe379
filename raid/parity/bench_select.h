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
 * The settled verdict of a band (head to head): rel[0..n) the candidates' ratios there, chosen[i]
 * whether candidate i was chosen in some run. 1 when every chosen one is within PQ_SEL_TIE (3%)
 * of the fastest of the n, else 0 (and 0 for none).
 */
int bench_sel_settled(const double *rel, const bool *chosen, int n);

#endif
