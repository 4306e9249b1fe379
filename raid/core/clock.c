/*
 * clock.c - the engine's one clock: CLOCK_MONOTONIC in ns, and the sleep that waits on it,
 * both replaceable by a test's fake clock so that pacing, timed failures and samples can be
 * tested without sleeps (a fake sleep moves the fake clock on).
 */
#include <time.h>
#include <unistd.h>

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

static void real_sleep(double s)
{
	usleep((useconds_t)(s * 1e6));
}

static void (*sleep_fn)(double) = real_sleep;

void raid_clock_sleep(double s)
{
	if (s > 0)
		sleep_fn(s);
}

void raid_clock_set_sleep(void (*fn)(double s))
{
	sleep_fn = fn ? fn : real_sleep;
}

/*
 * a busy wait: s seconds spent on the CPU, as work would spend them (a sleep gives the CPU
 * away). On a test's fake clock, which does not move on by itself, the test's sleep stands in.
 */
void raid_clock_spin(double s)
{
	uint64_t until;

	if (s <= 0)
		return;
	if (clock_fn != mono_ns) {
		sleep_fn(s);
		return;
	}
	until = mono_ns() + (uint64_t)(s * 1e9);
	while (mono_ns() < until) {
#if defined(__x86_64__) || defined(__i386__)
		__builtin_ia32_pause();
#endif
	}
}

double raid_array_elapsed(const struct raid_array *a)
{
	return (double)(raid_now_ns() - a->t0) / 1e9;
}
