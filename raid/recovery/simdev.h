/*
 * simdev.h - a simulated device and clock for the recovery service's tests: arrays of
 * raid_backend=ram run on members whose every I/O moves a fake clock on by its length at
 * sim_bw bytes per second, and the engine's sleeps (raid_clock_sleep) move the fake clock
 * on instead of waiting. Time passes only by I/O and sleeps, so a whole paced rebuild, a
 * scrub or a resync runs in fake seconds and a raid_fail timer fires at a fake instant:
 * no real waits (except hang guards), no timing luck. A test that includes this links
 * with -Wl,--wrap=member_backend (recovery.mk), which hands its arrays this backend.
 */
#ifndef RAID_SIMDEV_H
#define RAID_SIMDEV_H

#include <unistd.h>

#include "core/core.h"

static _Atomic uint64_t sim_ns;
static double sim_bw = 1e9;	       /* bytes per second of every simulated member */
static void (*sim_on_sleep)(double s); /* the test's look at each engine sleep (fake s) */
static atomic_bool sim_hold;	       /* member I/O waits while set: the test sets up first */
static double sim_at_s = -1;	       /* once the fake clock reaches it (s), sim_at() runs once */
static void (*sim_at)(void);

static uint64_t sim_clock(void)
{
	return atomic_load(&sim_ns);
}

static void sim_advance(double s)
{
	atomic_fetch_add(&sim_ns, (uint64_t)(s * 1e9));
}

static void sim_sleep(double s)
{
	/* whole ns, rounded up: a sleep shorter than the clock's step still ends */
	atomic_fetch_add(&sim_ns, (uint64_t)(s * 1e9) + 1);
	if (sim_on_sleep)
		sim_on_sleep((double)sim_clock() / 1e9);
}

static int (*sim_ram_xfer)(struct raid_queue *q, struct member_io *m); /* the ram backend's */

/* the ram backend's copy, then the time the transfer took on the simulated member */
static int sim_xfer(struct raid_queue *q, struct member_io *m)
{
	uint64_t len = m->len - m->done;
	int ret;

	for (int guard = 0; atomic_load(&sim_hold) && guard < 20000; guard++)
		usleep(1000); /* real time, but it only waits for the test's own thread */
	ret = sim_ram_xfer(q, m);
	sim_advance((double)len / sim_bw);
	if (sim_at && sim_at_s >= 0 && (double)sim_clock() / 1e9 >= sim_at_s) {
		sim_at_s = -1;
		sim_at();
	}
	return ret;
}

const struct member_backend_ops *__real_member_backend(int b);

/* raid_backend's value for the ram backend (its place in the registry) */
static inline int sim_ram(void)
{
	for (int i = 0; member_backend_values[i].name; i++)
		if (!strcmp(member_backend_values[i].name, "ram"))
			return member_backend_values[i].value;
	return -1;
}

/* the ram backend's queue (as registered), with its transfer run through sim_xfer */
static int sim_init(struct raid_queue *q, char *err, size_t errlen)
{
	int ret = __real_member_backend(sim_ram())->init(q, err, errlen);
	struct sync_be *s = q->be_priv;

	if (!ret) {
		sim_ram_xfer = s->xfer;
		s->xfer = sim_xfer;
	}
	return ret;
}

static const struct member_backend_ops sim_ops = {
    .name = "sim",
    .in_memory = true,
    .init = sim_init,
    .exit = sync_be_exit,
    .prep = sync_be_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
};

const struct member_backend_ops *__wrap_member_backend(int b);
const struct member_backend_ops *__wrap_member_backend(int b)
{
	return b == sim_ram() ? &sim_ops : __real_member_backend(b);
}

/* The fake clock at `t0_s`, the engine's clock and sleep on it. */
static inline void sim_start(double t0_s)
{
	atomic_store(&sim_ns, (uint64_t)(t0_s * 1e9));
	sim_on_sleep = NULL;
	raid_clock_set(sim_clock);
	raid_clock_set_sleep(sim_sleep);
}

static inline void sim_stop(void)
{
	raid_clock_set(NULL);
	raid_clock_set_sleep(NULL);
	sim_on_sleep = NULL;
}

#endif
