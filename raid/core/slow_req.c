/*
 * slow_req.c - a test-only planted slowdown of the request path: RAID_TEST_SLOW_REQUEST=PERCENT
 * (read when a queue is made) makes each queue's thread take PERCENT% longer per reap cycle
 * (the time from one raid_reap that returned requests to the next, the submitting included)
 * by spinning on the CPU before the requests are handed back, so that every level's and
 * operation's rate falls and latency rises alike while the data is unchanged. It spins, as
 * extra work would, rather than sleeps: a sleep gives the CPU to the other threads, so where
 * many jobs share the cores (the quick preset's T64 tests on 2 cores) a 25% sleep moved RAID5's
 * 4K random write by 6% (docs/report.md, "The A/B bench"). A spin of PERCENT% of a cycle's wall
 * time costs more CPU than that share where the thread also waits in its cycle: PERCENT=33
 * moved the quick preset's RAID5 figures by -14% to -27% (1M) and -37% to -51% (4K). It is
 * the request path's twin of RAID_TEST_SLOW_PARITY (raid/parity/pq_slow.c), which only
 * touches RAID 5/6 writes: the statistical tier's A/B bench (tests/bench/ab_bench.sh) plants
 * it in B so that every engine figure of the quick preset is touched. Unset, nothing changes.
 */
#include <stdlib.h>

#include "core.h"

void raid_slow_req_init(struct raid_slow_req *s)
{
	const char *v = getenv("RAID_TEST_SLOW_REQUEST");
	char *end;
	unsigned long pct = v ? strtoul(v, &end, 10) : 0;

	s->pct = v && !*end && pct <= 1000 ? (unsigned)pct : 0;
	s->last_ns = 0;
	s->owed_ns = 0;
}

void raid_slow_req_pay(struct raid_slow_req *s)
{
	uint64_t now, spent;

	if (!s->pct)
		return;
	now = raid_now_ns();
	if (s->last_ns)
		s->owed_ns += (int64_t)((now - s->last_ns) * s->pct / 100);
	/*
	 * a spin overshoots (the thread preempted at its end on a loaded machine): what it took
	 * beyond the debt is paid back by the next cycles' debts, so the added time is PERCENT% on
	 * average
	 */
	if (s->owed_ns > 0) {
		raid_clock_spin((double)s->owed_ns / 1e9);
		spent = raid_now_ns() - now;
		s->owed_ns -= (int64_t)spent;
		now += spent;
	}
	s->last_ns = now;
}
