/*
 * clock.c - the engine's one clock: CLOCK_MONOTONIC in ns, replaceable by a test's fake
 * clock so that pacing, timed failures and samples can be tested without sleeps.
 */
#include <time.h>

#include "core.h"

static uint64_t mono_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

static uint64_t (*clock_fn)(void) = mono_ns;

uint64_t raid_now_ns(void)
{
	return clock_fn();
}

void raid_clock_set(uint64_t (*fn)(void))
{
	clock_fn = fn ? fn : mono_ns;
}

double raid_array_elapsed(const struct raid_array *a)
{
	return (double)(raid_now_ns() - a->t0) / 1e9;
}
