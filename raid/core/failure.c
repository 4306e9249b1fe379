/*
 * failure.c - member failure in the core, as md's md_error: a member I/O error that is
 * the member's (media or device) makes the member leave the array, one line says so, and
 * the array's event count moves (a recovery service waits on it to save the state and
 * start a rebuild). A request that a member failed under is started again, at most
 * RAID_RETRY_MAX times, and the level routes around the member: the one retry policy, for
 * every level. RAID0 keeps md's behaviour: the error is the answer, nothing is marked.
 */
#include <errno.h>
#include <time.h>

#include "level.h"
#include "service.h"

bool raid_mio_member_fault(int res)
{
	switch (res) {
	case -EINVAL:	  /* misaligned or out of range: the request's fault */
	case -EFAULT:	  /* a bad buffer */
	case -EOPNOTSUPP: /* the device never takes such an I/O */
	case -EBUSY:	  /* resources short for a moment */
	case -EAGAIN:
	case -ENOMEM:
	case -EINTR:
		return false;
	default:
		return true;
	}
}

bool raid_level_retries(const struct raid_array *a)
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

void raid_member_fail(struct raid_array *a, int idx)
{
	double t = raid_array_elapsed(a);

	if (raid_member_failed(a, idx))
		return;
	atomic_fetch_add(&a->fail_seq, 1); /* before any write can see the member failed */
	if (atomic_exchange(&a->m[idx].failed, true))
		return;
	pthread_mutex_lock(&a->lock);
	if (!a->m[idx].said_failed) {
		a->m[idx].said_failed = true;
		if (!a->ops->max_failed)
			raid_log("raid: member %d (%s) failed at %.1f s: raid_level=%d has no "
				 "redundancy, I/O that touches it fails from now on",
				 idx, a->m[idx].path, t, a->geom.level);
		else if (!survives(a))
			raid_log("raid: member %d (%s) failed at %.1f s: the array has lost more "
				 "than raid_level=%d tolerates, I/O that needs the lost members "
				 "fails from now on",
				 idx, a->m[idx].path, t, a->geom.level);
		else
			raid_log("raid: member %d (%s) failed at %.1f s: the array continues "
				 "without it%s",
				 idx, a->m[idx].path, t,
				 raid_service_cfg(&a->cfg).rebuild ? "; a rebuild starts when a spare is free" : "");
	}
	pthread_mutex_unlock(&a->lock);
	raid_array_notify(a);
}

void raid_member_error(struct raid_array *a, const struct member_io *mio)
{
	if (!raid_level_retries(a))
		return; /* md's RAID0 keeps its members: the error is the answer */
	if (mio->dev != mio->member) {
		/* the spare failed: no more writes go to it, and its rebuild gives it up; the
		 * record must forget its checkpoint before a write it missed is acknowledged */
		atomic_fetch_add(&a->fail_seq, 1);
		atomic_store(&a->m[mio->member].spare_failed, true);
		atomic_store(&a->m[mio->member].recovery_offset, 0);
		raid_array_notify(a);
		return;
	}
	raid_member_fail(a, mio->member);
}

bool raid_request_retry(struct raid_queue *q, struct raid_request *r)
{
	/*
	 * Internal requests (r->advance: rebuild, scrub) decide for themselves. Restarting a
	 * parity write is safe: a member whose write failed is not written again, and
	 * members already written hold the same new bytes.
	 */
	if (r->error != -EIO || r->advance || r->retries >= RAID_RETRY_MAX ||
	    !raid_level_retries(q->a))
		return false;
	/* a write restarted around a failure nobody could record would reach the survivors */
	if (r->op == RAID_OP_WRITE && raid_failure_gate(q->a))
		return false;
	r->retries++;
	r->error = 0;
	raid_request_start(q, r);
	return true;
}

void raid_failures_recorded(struct raid_array *a, unsigned seq, bool ok)
{
	if (ok) {
		atomic_store(&a->fail_recorded, seq);
		atomic_store(&a->fail_unrecorded, false);
	} else if (atomic_load(&a->fail_recorded) != seq) {
		atomic_store(&a->fail_unrecorded, true);
	}
}

/*
 * A write may be acknowledged once every failure so far is recorded: else a restart trusts
 * the record, which still counts the failed member in (a mirror resyncs from it, a rebuild
 * resumes onto a spare that missed the write) and the write is lost. The writer saves the
 * record itself (once; later writes find it done), so no other thread's progress is needed;
 * while the record cannot be written, writes fail with EIO and each tries the save again.
 */
int raid_failure_gate(struct raid_array *a)
{
	if (!a->record || atomic_load(&a->fail_recorded) == atomic_load(&a->fail_seq))
		return 0;
	a->record(a);
	if (!atomic_load(&a->fail_unrecorded))
		return 0;
	pthread_mutex_lock(&a->lock);
	if (!a->said_unrecorded)
		raid_log("raid: a member failed and raid_state cannot record it: writes fail "
			 "with EIO until the state file can be written (md stops writing too)");
	a->said_unrecorded = true;
	pthread_mutex_unlock(&a->lock);
	return -EIO;
}

/* ---- events ---- */

void raid_array_notify(struct raid_array *a)
{
	pthread_mutex_lock(&a->ev_mu);
	a->ev_gen++;
	pthread_cond_broadcast(&a->ev_cv);
	pthread_mutex_unlock(&a->ev_mu);
}

unsigned raid_array_events(struct raid_array *a)
{
	unsigned g;

	pthread_mutex_lock(&a->ev_mu);
	g = a->ev_gen;
	pthread_mutex_unlock(&a->ev_mu);
	return g;
}

void raid_array_wait_events(struct raid_array *a, unsigned seen, double timeout_s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)timeout_s;
	ts.tv_nsec += (long)((timeout_s - (double)(time_t)timeout_s) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&a->ev_mu);
	while (a->ev_gen == seen)
		if (pthread_cond_timedwait(&a->ev_cv, &a->ev_mu, &ts))
			break;
	pthread_mutex_unlock(&a->ev_mu);
}
