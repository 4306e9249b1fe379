/*
 * bench_select.h - raid-parity-bench --selection N: is the selection stable (bench_select.c)?
 */
#ifndef RAID_PARITY_BENCH_SELECT_H
#define RAID_PARITY_BENCH_SELECT_H

#include <stdbool.h>
#include <stdio.h>

/* runs both selections n times (as kept selections are measured, when kept), prints every run
 * and the verdict; true when both are stable */
bool bench_selection_check(int n, bool kept, FILE *out);

#endif
