/*
 * rebuild.c - the recovery thread of an array and the rebuild onto hot spares: spares
 * are devices after the members in a->m[]; a failed slot gets a free spare (its `dev`),
 * and a pass walks the slot's rows in windows, several in flight (rebuild_pipe.c), asking
 * the level for the bytes (mirror levels: a surviving copy found through unmap/map; parity
 * levels: rows_recover), while foreground writes below the front go to the spare too
 * (plan.c) and writes into the windows wait for them (the window lock). This file starts
 * and ends a pass: buffers, the dirty rows again, the checkpoint, in sync once durable.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/identity.h"
#include "core/level.h"
#include "recovery/thread/thread.h"

#define MB 1000000.0
#define MIB ((uint64_t)1024 * 1024)
#define REGION_MAX REC_REGION_MAX

/* ---- rebuild ---- */

/* the passes' checkpoint (struct rec_pass): fdatasync the spares, then record `front` */
static void checkpoint(struct raid_recovery *rec, uint64_t targets, uint64_t front)
{
	struct raid_array *a = rec->a;

	front = raid_quiesce_dirty_floor(a, front); /* never past a row to be redone */
	for (int t = 0; t < a->geom.n; t++) {
		if (!(targets >> t & 1))
			continue;
		int dev = atomic_load(&a->m[t].dev);

		if (rec->q->fds[dev] >= 0 && fdatasync(rec->q->fds[dev])) {
			/* not durable: keep the previous checkpoint, and say why once */
			if (!rec->sp.said_sync_error)
				raid_log("raid: rebuild: fdatasync of spare %s failed: %s; the "
					 "state file keeps the last durable checkpoint",
					 a->m[dev].path, strerror(errno));
			rec->sp.said_sync_error = true;
			raid_rec_error(rec, -EIO);
			return;
		}
		rec->sp.durable_off[t] = front;
	}
	raid_rec_state_save(a);
}

/*
 * Parity levels: rebuild again the rows written below the front during the pass; the last
 * round runs under a window over the whole volume, which stays locked for the caller to
 * bring the members back before any other write.
 */
static int redo_dirty(struct raid_recovery *rec, uint64_t targets, void **bufs, uint64_t unit)
{
	struct raid_array *a = rec->a;
	uint64_t step = unit * 64 > REGION_MAX ? REGION_MAX / unit * unit : unit * 64;

	for (int last = 0; last < 2; last++) {
		for (;;) {
			struct raid_range d;
			int ret;

			if (last == 1 && !raid_quiesce_held(a))
				raid_quiesce_lock(rec->a, 0, a->size);
			if (!raid_quiesce_dirty_pop(a, &d))
				break;
			for (uint64_t f = d.lo; f < d.hi; f += step) {
				uint64_t len = d.hi - f < step ? d.hi - f : step, vlo, vlen;

				if (!last) {
					a->ops->span(&a->geom, f, len, &vlo, &vlen);
					raid_quiesce_lock(rec->a, vlo, vlo + vlen);
				}
				ret = rec_recover_window(rec, targets, f, len, bufs, true);
				if (!last)
					raid_quiesce_unlock(rec->a);
				if (ret == -EAGAIN) {
					f -= step;
					continue;
				}
				if (ret) {
					if (last)
						raid_quiesce_unlock(rec->a);
					return ret;
				}
			}
		}
	}
	return 0;
}

static const char *names(struct raid_array *a, uint64_t set, char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = 0;
	for (int i = 0; i < a->geom.n && used < len; i++)
		if (set >> i & 1)
			used += (size_t)snprintf(buf + used, len - used, "%s%d (%s -> %s)",
						 used ? ", " : "", i, a->cfg.members[i],
						 a->m[atomic_load(&a->m[i].dev)].path);
	return buf;
}

/*
 * The pass ended (ret: why, or 0 at the end or a stop): rebuild the dirty rows again and
 * declare the targets in sync once durable, or keep the checkpoint to resume from.
 */
static void finish(struct raid_recovery *rec, struct rec_pass *p, int ret, const char *who,
		   double t_start)
{
	struct raid_array *a = rec->a;
	uint64_t targets = p->targets, msize = p->msize, front = p->front;

	if (!ret && front >= msize && a->ops->rows_recover)
		ret = redo_dirty(rec, targets, p->bufs[0], p->unit);
	/* in sync only once durable: a spare whose data may still be lost is not a member */
	for (int t = 0; t < a->geom.n && !ret && front >= msize; t++) {
		int dev = atomic_load(&a->m[t].dev);

		if (targets >> t & 1 && rec->q->fds[dev] >= 0 && fdatasync(rec->q->fds[dev])) {
			raid_log("raid: rebuild of member %s: fdatasync of spare %s failed: %s; it "
				 "is not declared in sync",
				 who, a->m[dev].path, strerror(errno));
			ret = -EIO;
			if (a->ops->rows_recover)
				raid_quiesce_unlock(rec->a); /* taken by redo_dirty */
		}
	}
	if (!ret && front >= msize) {
		double end = rec_elapsed(rec), secs = end - t_start;

		for (int t = 0; t < a->geom.n; t++)
			if (targets >> t & 1) {
				rec->sp.durable_off[t] = msize;
				atomic_store(&a->m[t].failed, false); /* reads may use it now */
			}
		if (a->ops->rows_recover) {
			pthread_mutex_lock(&rec->mu);
			rec->rb_active = false;
			pthread_mutex_unlock(&rec->mu);
			raid_quiesce_track(a, false, msize);
			raid_quiesce_unlock(rec->a); /* taken by redo_dirty over the whole volume */
		}
		raid_log("raid: rebuild of member %s done at %.1f s: %" PRIu64
			 " MiB in %.1f s (%.0f MB/s)",
			 who, end, (msize - p->start_front) / MIB, secs,
			 secs > 0 ? (double)(msize - p->start_front) / MB / secs : 0.0);
		pthread_mutex_lock(&rec->mu);
		rec->res.end_s = end;
		rec->res.rebuild_done = true;
		pthread_mutex_unlock(&rec->mu);
	} else {
		for (int t = 0; t < a->geom.n; t++)
			if (targets >> t & 1 && ret)
				atomic_store(&a->m[t].spare_failed, true); /* given up */
		raid_rec_error(rec, ret ? ret : -EINTR);
		if (!ret) {
			checkpoint(rec, targets, front); /* stopped: resume from here */
			raid_log("raid: rebuild of member %s interrupted at %" PRIu64
				 " MiB: the next run with raid_state resumes it from its last "
				 "checkpoint (%" PRIu64 " MiB)",
				 who, front / MIB,
				 rec->sp.durable_off[__builtin_ctzll(targets)] / MIB);
		}
	}
	pthread_mutex_lock(&rec->mu);
	rec->rb_active = false;
	if (!rec->res.rebuild_done)
		rec->res.end_s = rec_elapsed(rec);
	pthread_mutex_unlock(&rec->mu);
	raid_quiesce_track(a, false, 0);
	raid_rec_state_save(a);
}

static void rebuild_pass(struct raid_recovery *rec, uint64_t targets)
{
	struct raid_array *a = rec->a;
	uint64_t unit = a->ops->uses_chunk ? a->geom.chunk : 64 * 1024;
	struct rec_pass *p = calloc(1, sizeof(*p));
	double t_start;
	char who[RAID_ERRLEN];
	int ret = 0, unpinned = 0, nslots;

	if (!p)
		goto nomem;
	t_start = rec_elapsed(rec);
	*p = (struct rec_pass){.targets = targets, .msize = a->geom.member_size, .unit = unit,
			       .front = UINT64_MAX, .last_cp = t_start, .next_log = 0.1,
			       .checkpoint = checkpoint};
	/* a GPU rebuilds the windows in place, from one thread */
	if (rec_cfg(&a->cfg)->rebuild_workers > 1 && !a->gpu)
		p->nworkers = rec_cfg(&a->cfg)->rebuild_workers;
	nslots = p->nworkers ? p->nworkers + 2 : REC_WINDOWS;
	for (int k = 0; k < nslots * a->geom.n; k++) {
		int m = k % a->geom.n;
		void **bp = &p->bufs[k / a->geom.n][m];

		if (!a->ops->rows_recover && !(targets >> m & 1))
			continue;
		*bp = rec_alloc(REGION_MAX);
		if (!*bp)
			goto nomem;
		/* a parity GPU rebuilds the windows in place (without one this does nothing) */
		if (a->ops->buf_register && a->ops->buf_register(a, *bp, REGION_MAX))
			unpinned++;
	}
	for (int k = 0; k < nslots; k++)
		p->win[k].bufs = p->bufs[k];
	if (unpinned)
		raid_log("raid: rebuild: %d window buffers could not be pinned for the GPU: the "
			 "CPU rebuilds",
			 unpinned);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1) {
			uint64_t f = atomic_load(&a->m[t].recovery_offset);

			p->front = f < p->front ? f : p->front;
		}
	p->front = p->front / unit * unit;
	p->start_front = p->front;
	names(a, targets, who, sizeof(who));
	raid_log("raid: rebuild of member %s starts at %.1f s%s, on %d worker%s", who, t_start,
		 p->front ? " (resumed from the state file)" : "", p->nworkers ? p->nworkers : 1,
		 p->nworkers ? "s" : "");
	pthread_mutex_lock(&rec->mu);
	if (!rec->res.rebuild_done && !rec->rb_active)
		rec->res.start_s = t_start;
	rec->rb_active = true;
	pthread_mutex_unlock(&rec->mu);
	/*
	 * Parity levels write no spare below the front (their planner skips failed slots):
	 * writes there leave dirty rows that the pass rebuilds again before it ends.
	 */
	raid_quiesce_track(a, a->ops->rows_recover, p->front);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1 && rec->res.nrebuilt < RAID_MAX_MEMBERS) {
			rec->res.members[rec->res.nrebuilt] = t;
			rec->res.spares[rec->res.nrebuilt++] = a->m[atomic_load(&a->m[t].dev)].path;
		}
	ret = p->nworkers ? rec_pass_crew(rec, p) : -EAGAIN;
	if (ret == -EAGAIN) { /* one worker, or no thread could start: the recovery thread alone */
		p->nslots = 0;
		ret = rec_pass_windows(rec, p);
	}
	if (raid_quiesce_held(a))
		raid_quiesce_unlock(rec->a);
	if (ret && !p->said)
		raid_log("raid: rebuild of member %s stopped at %" PRIu64 " bytes: %s", who,
			 p->front,
			 ret == -ENODATA ? "the array has lost more than the level tolerates"
			 : ret == -EIO	 ? "a write to the spare failed, or reads kept failing"
					 : strerror(-ret));
	finish(rec, p, ret, who, t_start);
	goto out;
nomem:
	raid_log("raid: rebuild: out of memory for the window buffers");
	raid_rec_error(rec, -ENOMEM);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1)
			atomic_store(&a->m[t].spare_failed, true); /* given up */
out:
	for (int k = 0; p && k < REC_SLOTS_MAX * a->geom.n; k++) {
		void *bp = p->bufs[k / a->geom.n][k % a->geom.n];

		if (bp && a->ops->buf_unregister)
			a->ops->buf_unregister(a, bp);
		free(bp);
	}
	free(p);
}

/* Failed slots that can be rebuilt now: give each a free spare first. */
static uint64_t rebuild_targets(struct raid_recovery *rec)
{
	struct raid_array *a = rec->a;
	int n = a->geom.n;
	uint64_t t = 0;

	if (!rec_cfg(&a->cfg)->rebuild)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!raid_member_failed(a, i) || atomic_load(&a->m[i].spare_failed))
			continue;
		if (atomic_load(&a->m[i].dev) == i) {
			int s;

			for (s = 0; s < rec_cfg(&a->cfg)->nspares && rec->sp.used[s]; s++)
				;
			if (s == rec_cfg(&a->cfg)->nspares) {
				if (!rec->sp.said_nospare[i])
					raid_log("raid: member %d failed and no spare is free", i);
				rec->sp.said_nospare[i] = true;
				continue;
			}
			rec->sp.used[s] = true;
			atomic_store(&a->m[i].recovery_offset, 0);
			rec->sp.durable_off[i] = 0;
			atomic_store(&a->m[i].dev, n + s);
		}
		t |= 1ULL << i;
	}
	return t;
}

void *rec_thread(void *arg)
{
	struct raid_recovery *rec = arg;
	struct raid_array *a = rec->a;
	char err[RAID_ERRLEN];
	bool scrub = rec_cfg(&a->cfg)->scrub != RAID_SCRUB_OFF;
	uint64_t back = rec_cfg(&a->cfg)->re_add;
	int ret;

	/* a member coming back (raid_re_add) is failed for I/O, but this queue must write it */
	for (int i = 0; i < a->geom.n; i++)
		if (back >> i & 1)
			atomic_store(&a->m[i].failed, false);
	ret = raid_queue_create(a, 64, a->cfg.direct, &rec->q, err, sizeof(err));
	for (int i = 0; i < a->geom.n; i++)
		if (back >> i & 1)
			atomic_store(&a->m[i].failed, true);
	if (ret)
		raid_log("%s", err);
	else if (!rec_cfg(&a->cfg)->resync && rec->st.resync_dirty && rec_intent_trusted(rec))
		ret = rec_intent_resync(rec); /* only what was being written */
	else if (rec_cfg(&a->cfg)->resync || rec->st.resync_dirty)
		ret = raid_rec_scrub(rec, RAID_SCRUB_REPAIR, true);
	/*
	 * A resync asked for (raid_init=resync, or the state file's unclean stop) that could
	 * not run because a member has failed stays owed, as md keeps its resync pending: it
	 * runs once a rebuild completes the array, before the thread closes (issue 44's
	 * torture, seed 258570956: a RAID6 without a state file, restarted degraded after a
	 * killed writer, rebuilt onto a spare from stale parity and was clean with a mismatch).
	 */
	bool resync_owed = !ret && a->ops->rows_check && !rec->res.resynced &&
			   (rec_cfg(&a->cfg)->resync || rec->st.resync_dirty);
	if (!ret)
		ret = rec_intent_re_add(rec);
	pthread_mutex_lock(&rec->mu);
	rec->init_ret = ret;
	rec->init_done = true;
	pthread_cond_broadcast(&rec->cv);
	pthread_mutex_unlock(&rec->mu);
	if (ret)
		return NULL;
	for (;;) {
		double next = raid_rec_fail_timers(a, rec_elapsed(rec)), wait = 0.2, now;
		unsigned events = raid_array_events(a);
		uint64_t targets;

		rec_tick(rec);
		if (events != rec->seen_events) { /* a member failed: the state file says so */
			rec->seen_events = events;
			raid_rec_state_save(a);
		}
		rec_intent_tick(rec); /* the bitmap says so too; idle bits go */
		if (rec_stopping(rec))
			break;
		targets = rebuild_targets(rec);
		if (targets) {
			rebuild_pass(rec, targets);
			continue;
		}
		if (resync_owed && !rec_failed_set(a)) {
			resync_owed = false;
			ret = raid_rec_scrub(rec, RAID_SCRUB_REPAIR, true);
			if (!ret)
				rec->st.repair_stopped = false; /* every row is whole again */
			raid_rec_error(rec, ret);
			continue;
		}
		if (scrub) {
			raid_rec_error(rec, raid_rec_scrub(rec, rec_cfg(&a->cfg)->scrub, false));
			scrub = false;
			continue;
		}
		if (atomic_load(&rec->closing))
			break;
		now = rec_elapsed(rec);
		if (next >= 0 && next - now < wait)
			wait = next - now > 0 ? next - now : 0;
		raid_array_wait_events(a, events, wait);
	}
	raid_rec_state_save(a);
	return NULL;
}

