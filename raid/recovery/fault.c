/*
 * fault.c - members failing while a run goes on: raid_fail=IDX@SECONDS (applied by the
 * recovery thread), raid_inject=IDX:read|write:PERCENT (member I/Os turned into EIO), and
 * md's answer to an I/O error: the member leaves the array, the request is retried from
 * what survives (queue.c), and a rebuild starts when a spare is there.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/level.h"
#include "rebuild.h"

static __thread uint64_t inject_rng;

static double draw(void)
{
	if (!inject_rng) {
		const char *env = getenv("RAID_INJECT_SEED");

		inject_rng = env ? strtoull(env, NULL, 0) : 0x9e3779b97f4a7c15ULL;
		inject_rng ^= (uint64_t)(uintptr_t)&inject_rng; /* one stream per thread */
		if (!inject_rng)
			inject_rng = 1;
	}
	inject_rng ^= inject_rng >> 12;
	inject_rng ^= inject_rng << 25;
	inject_rng ^= inject_rng >> 27;
	return (double)((inject_rng * 2685821657736338717ULL) >> 11) / (double)(1ULL << 53);
}

int raid_rec_inject(struct raid_queue *q, struct member_io *mio, int res)
{
	const struct raid_recovery_config *c = &q->a->cfg.rec;

	/* only the member's own device: a spare taking its place is another drive */
	if (res < 0 || mio->dev != mio->member)
		return res;
	for (int i = 0; i < c->ninject; i++)
		if (c->inject[i].member == mio->member && c->inject[i].op == mio->op &&
		    draw() * 100.0 < c->inject[i].percent)
			return -EIO;
	return res;
}

bool raid_rec_can_retry(const struct raid_array *a)
{
	return a->ops->max_failed != 0;
}

/* Whether the members failed now leave every byte of the volume readable. */
static bool survives(const struct raid_array *a)
{
	uint64_t failed = 0;
	int max = a->ops->max_failed == RAID_ALL_BUT_ONE ? a->geom.n - 1 : a->ops->max_failed;
	char err[RAID_ERRLEN];

	for (int i = 0; i < a->geom.n; i++)
		if (raid_member_failed(a, i))
			failed |= 1ULL << i;
	if (__builtin_popcountll(failed) > max)
		return false;
	return !a->ops->check_failed ||
	       !a->ops->check_failed(&a->geom, failed, a->cfg.members, err, sizeof(err));
}

void raid_rec_member_failed(struct raid_array *a, int idx)
{
	struct raid_recovery *rec = a->rec;
	bool was = atomic_exchange(&a->m[idx].failed, true);

	if (!rec || was)
		return;
	pthread_mutex_lock(&rec->mu);
	if (!rec->said_failed[idx]) {
		rec->said_failed[idx] = true;
		if (!a->ops->max_failed)
			raid_log("raid: member %d (%s) failed at %.1f s: raid_level=%d has no "
				 "redundancy, I/O that touches it fails from now on",
				 idx, a->m[idx].path, rec_elapsed(rec), a->geom.level);
		else if (!survives(a))
			raid_log("raid: member %d (%s) failed at %.1f s: the array has lost more "
				 "than raid_level=%d tolerates, I/O that needs the lost members "
				 "fails from now on",
				 idx, a->m[idx].path, rec_elapsed(rec), a->geom.level);
		else
			raid_log("raid: member %d (%s) failed at %.1f s: the array continues "
				 "without it%s",
				 idx, a->m[idx].path, rec_elapsed(rec),
				 a->cfg.rec.rebuild ? "; a rebuild starts when a spare is free"
						    : "");
	}
	rec->state_dirty = true;
	pthread_cond_broadcast(&rec->cv);
	pthread_mutex_unlock(&rec->mu);
}

void raid_rec_io_failed(struct raid_array *a, struct member_io *mio)
{
	if (!raid_rec_can_retry(a))
		return; /* md's RAID0 keeps its members: the error is the answer */
	if (mio->dev != mio->member) {
		/* the spare failed: stop sending writes to it, the rebuild gives it up */
		if (a->rec)
			atomic_store(&a->rec->spare_error[mio->member], true);
		atomic_store(&a->m[mio->member].recovery_offset, 0);
		return;
	}
	raid_rec_member_failed(a, mio->member);
}

double raid_rec_fail_timers(struct raid_array *a, double now_s)
{
	const struct raid_recovery_config *c = &a->cfg.rec;
	double next = -1;

	for (int i = 0; i < c->nfail; i++) {
		if (a->rec->fail_fired >> i & 1)
			continue;
		if (c->fail[i].at_s <= now_s) {
			a->rec->fail_fired |= 1ULL << i;
			raid_log("raid: raid_fail: failing member %d (%s) at %.1f s",
				 c->fail[i].member, a->m[c->fail[i].member].path, now_s);
			raid_rec_member_failed(a, c->fail[i].member);
		} else if (next < 0 || c->fail[i].at_s < next) {
			next = c->fail[i].at_s;
		}
	}
	return next;
}
