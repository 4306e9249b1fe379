/* report/analysis/little.c: Little's law as each test's self-check. fio keeps iodepth x
 * numjobs I/Os in flight in a closed loop, so the I/Os in flight it measured, the sum over
 * jobs and directions of IOPS x mean total latency (tests/e2e/latency.sh's `little`), must
 * come to that count (docs/engine.md, "Latency"). Below 4 in flight the time fio spends
 * between reaping an I/O and issuing the next, outside every latency, is a share of the loop
 * large enough to miss it for no fault; in an open loop (rate limits, think time, a job
 * that ends early) the count is not N. */
#include "report/analysis/analysis.h"

#include <math.h>

struct rr_little rr_little_check(const struct rr_test *t)
{
	struct rr_little c = {RR_LITTLE_NA, t->little_l, NAN, NULL};
	double hosts = t->fio_hosts > 0 ? t->fio_hosts : t->nhosts > 0 ? (double)t->nhosts : 1;
	c.n = (double)t->iodepth * t->numjobs * hosts;
	if (!(t->iodepth > 0 && t->numjobs > 0))
		c.why = "depth or jobs not recorded";
	else if (c.n < RR_LITTLE_MIN_N)
		c.why = "fewer than 4 I/Os in flight";
	else if (!t->closed_loop)
		c.why = "not a closed loop (not time_based, or rate-limited)";
	else if (!(t->little_l >= 0))
		c.why = "no mean total latency";
	else
		c.v = fabs(t->little_l - c.n) <= RR_LITTLE_TOL * c.n ? RR_LITTLE_OK
								      : RR_LITTLE_MISSED;
	return c;
}

size_t rr_little_missed(const struct rr_run *run)
{
	size_t n = 0;
	for (size_t i = 0; i < run->ntests; i++)
		n += rr_little_check(&run->tests[i]).v == RR_LITTLE_MISSED;
	return n;
}
