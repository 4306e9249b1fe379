/*
 * rebuild.c - the recovery thread of an array and the rebuild onto hot spares: spares
 * are devices after the members in a->m[]; a failed slot gets a free spare (its `dev`),
 * and the thread walks the slot's rows window by window, asking the level for the bytes
 * (mirror levels: a surviving copy found through unmap/map; parity levels: rows_recover),
 * while foreground writes below the front go to the spare too (plan.c) and writes into
 * the window wait for it (the window lock, rebuild_window.c). Rate limits follow md's
 * speed_limit_min/max; the foreground is metered per second for the stats.
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
#include "rebuild.h"

#define MB 1000000.0
#define MIB ((uint64_t)1024 * 1024)
#define REGION_MAX REC_REGION_MAX
#define CHECKPOINT_S 1.0

/* ---- rebuild ---- */

/* Pick the surviving copy of [voff..] that is not `t` and not lost; -1 when none. */
static int pick_source(struct raid_array *a, const struct raid_loc *locs, int n, int t)
{
	int best = -1;
	unsigned load = UINT32_MAX;

	for (int i = 0; i < n; i++) {
		int m = locs[i].member;
		unsigned l;

		if (m == t || raid_member_failed(a, m))
			continue;
		l = atomic_load_explicit(&a->m[m].inflight, memory_order_relaxed);
		if (l < load) {
			load = l;
			best = i;
		}
	}
	return best;
}

/*
 * One window of member rows [front, front + len) being rebuilt, its buffers (one per
 * member) and the members lost when its reads were issued (parity levels recompute those).
 */
struct rb_win {
	uint64_t front, len, lost;
	uint64_t rate; /* bytes per second its length was chosen for: it is paced at that */
	void **bufs;
};

/* Mirror levels: issue the reads of target t's bytes in the window into batch b. */
static int mirror_read(struct raid_recovery *rec, struct rec_batch *b, int t, uint64_t front,
		       uint64_t len, char *buf)
{
	struct raid_array *a = rec->a;
	struct raid_loc locs[RAID_MAX_COPIES];
	uint64_t pos = front, end = front + len;

	while (pos < end) {
		uint64_t voff, seg, seg2, l;
		int n, c;

		a->ops->unmap(&a->geom, t, pos, &voff, &seg);
		l = seg < end - pos ? seg : end - pos;
		if (voff >= a->size) { /* a slot past the volume's end: no data there */
			memset(buf + (pos - front), 0, l);
			pos += l;
			continue;
		}
		n = a->ops->map(&a->geom, voff, locs, &seg2);
		l = seg2 < l ? seg2 : l;
		if (voff + l > a->size)
			l = a->size - voff;
		c = pick_source(a, locs, n, t);
		if (c < 0)
			return -ENODATA;
		rec_io(rec, b, RAID_OP_READ, locs[c].member, buf + (pos - front), locs[c].offset,
		       l);
		pos += l;
	}
	return 0;
}

/*
 * Issue every read window w needs into batch b, side by side on all members: a surviving
 * copy of each target's bytes (mirrors), or every surviving member's rows (parity).
 * -ENODATA: the array has lost more than the level tolerates.
 */
static int window_read(struct raid_recovery *rec, uint64_t targets, struct rb_win *w,
		       struct rec_batch *b)
{
	struct raid_array *a = rec->a;
	int ret = 0;

	if (!a->ops->rows_recover) {
		for (int t = 0; t < a->geom.n && !ret; t++)
			if (targets >> t & 1)
				ret = mirror_read(rec, b, t, w->front, w->len, w->bufs[t]);
		return ret;
	}
	w->lost = targets;
	for (int m = 0; m < a->geom.n; m++)
		if (raid_member_failed(a, m))
			w->lost |= 1ULL << m;
	if (__builtin_popcountll(w->lost) > a->ops->max_failed)
		return -ENODATA;
	for (int m = 0; m < a->geom.n; m++)
		if (!(w->lost >> m & 1))
			rec_io(rec, b, RAID_OP_READ, m, w->bufs[m], w->front, w->len);
	return 0;
}

/* Read window w (again, while a source fails under it) and recompute its lost members. */
static int window_fill(struct raid_recovery *rec, uint64_t targets, struct rb_win *w)
{
	struct raid_array *a = rec->a;

	for (int tries = 0;; tries++) {
		struct rec_batch b;
		int ret;

		rec_batch_init(&b);
		ret = window_read(rec, targets, w, &b);
		if (rec_wait(rec, &b) == 0 && !ret)
			break;
		if (ret)
			return ret;
		/* a failed read failed its member (md_error): the next try reads around it */
		if (tries == 8)
			return -EIO;
	}
	if (a->ops->rows_recover)
		a->ops->rows_recover(a, w->front, w->len, w->lost, w->bufs);
	return 0;
}

/* Issue the writes of window w's targets (onto their spares) into batch b. */
static void window_write(struct raid_recovery *rec, uint64_t targets, struct rb_win *w,
			 struct rec_batch *b, bool again)
{
	struct raid_array *a = rec->a;

	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1 &&
		    (again || atomic_load(&a->m[t].recovery_offset) < w->front + w->len))
			rec_io(rec, b, RAID_OP_WRITE, t, w->bufs[t], w->front, w->len);
}

/* One window, not pipelined (the parity levels' second round over dirty rows). */
static int recover_window(struct raid_recovery *rec, uint64_t targets, uint64_t front, uint64_t len,
			  void **bufs, bool again)
{
	struct rb_win w = {.front = front, .len = len, .bufs = bufs};
	struct rec_batch b;
	int ret = window_fill(rec, targets, &w);

	if (ret)
		return ret;
	rec_batch_init(&b);
	window_write(rec, targets, &w, &b, again);
	return rec_wait(rec, &b) ? -EIO : 0;
}

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
				ret = recover_window(rec, targets, f, len, bufs, true);
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

static void rebuild_pass(struct raid_recovery *rec, uint64_t targets)
{
	struct raid_array *a = rec->a;
	const struct raid_recovery_config *c = &a->cfg.rec;
	uint64_t msize = a->geom.member_size, front = UINT64_MAX, start_front, vlo, vlen;
	uint64_t unit = a->ops->uses_chunk ? a->geom.chunk : 64 * 1024;
	if (a->ops->rows_prepare)
		a->ops->rows_prepare(a);
	double t_start = rec_elapsed(rec), last_cp = t_start, next_log = 0.1;
	struct rec_pace pace;
	/* two windows in flight: one written to the spares while the next is read */
	void *bufs[2][RAID_MAX_MEMBERS] = {{0}};
	struct rb_win win[2] = {{.bufs = bufs[0]}, {.bufs = bufs[1]}};
	char who[RAID_ERRLEN];
	int ret = 0, unpinned = 0, cur = 0;
	bool said = false;

	for (int k = 0; k < 2 * a->geom.n; k++) {
		int m = k % a->geom.n;
		void **bp = &bufs[k / a->geom.n][m];

		if (!a->ops->rows_recover && !(targets >> m & 1))
			continue;
		*bp = rec_alloc(REGION_MAX);
		if (!*bp) {
			raid_log("raid: rebuild: out of memory for the window buffers");
			raid_rec_error(rec, -ENOMEM);
			for (int t = 0; t < a->geom.n; t++)
				if (targets >> t & 1)
					atomic_store(&a->m[t].spare_failed, true); /* given up */
			goto out;
		}
		/* a parity GPU rebuilds the windows in place (without one this does nothing) */
		if (a->ops->buf_register && a->ops->buf_register(a, *bp, REGION_MAX))
			unpinned++;
	}
	if (unpinned)
		raid_log("raid: rebuild: %d window buffers could not be pinned for the GPU: the "
			 "CPU rebuilds",
			 unpinned);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1) {
			uint64_t f = atomic_load(&a->m[t].recovery_offset);

			front = f < front ? f : front;
		}
	front = front / unit * unit;
	start_front = front;
	names(a, targets, who, sizeof(who));
	raid_log("raid: rebuild of member %s starts at %.1f s%s", who, t_start,
		 front ? " (resumed from the state file)" : "");
	pthread_mutex_lock(&rec->mu);
	if (!rec->res.rebuild_done && !rec->rb_active)
		rec->res.start_s = t_start;
	rec->rb_active = true;
	pthread_mutex_unlock(&rec->mu);
	/*
	 * Parity levels write no spare below the front (their planner skips failed slots):
	 * writes there leave dirty rows that the pass rebuilds again before it ends.
	 */
	raid_quiesce_track(a, a->ops->rows_recover, front);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1 && rec->res.nrebuilt < RAID_MAX_MEMBERS) {
			rec->res.members[rec->res.nrebuilt] = t;
			rec->res.spares[rec->res.nrebuilt++] = a->m[atomic_load(&a->m[t].dev)].path;
		}
	/*
	 * The pipeline: window k is written to the spares while window k + 1 is read, both
	 * under one window lock over their rows; window k's writes done, the lock moves on to
	 * k + 1 and k + 2 (foreground writes parked in k resume, and see the front past k).
	 */
	win[0].front = front;
	rec_pace_init(&pace, c);
	win[0].rate = rec_pace_rate(&pace, raid_meter_bytes(a), rec_elapsed(rec));
	win[0].len = rec_window_len(msize, front, unit, win[0].rate);
	if (front < msize) {
		a->ops->span(&a->geom, front, win[0].len, &vlo, &vlen);
		raid_quiesce_lock(rec->a, vlo, vlo + vlen);
		ret = window_fill(rec, targets, &win[0]);
	}
	while (!ret && front < msize && !rec_stopping(rec)) {
		struct rb_win *w = &win[cur], *nx = &win[cur ^ 1];
		double t0 = rec_elapsed(rec), due;
		struct rec_batch wb, rb;
		int rret = 0;

		for (int t = 0; t < a->geom.n; t++)
			if (targets >> t & 1 && atomic_load(&a->m[t].spare_failed)) {
				raid_log(
				    "raid: rebuild of member %d stopped: its spare %s failed a "
				    "write",
				    t, a->m[atomic_load(&a->m[t].dev)].path);
				ret = -EIO;
				said = true;
			}
		if (ret)
			break;
		nx->front = w->front + w->len;
		nx->rate = rec_pace_rate(&pace, raid_meter_bytes(a), rec_elapsed(rec));
		nx->len = rec_window_len(msize, nx->front, unit, nx->rate);
		a->ops->span(&a->geom, w->front, w->len + nx->len, &vlo, &vlen);
		raid_quiesce_lock(rec->a, vlo, vlo + vlen);
		rec_batch_init(&wb);
		rec_batch_init(&rb);
		window_write(rec, targets, w, &wb, false);
		if (nx->len)
			rret = window_read(rec, targets, nx, &rb);
		rec_wait_all(rec, &wb, &rb);
		if (wb.r.error) {
			ret = -EIO;
		} else {
			for (int t = 0; t < a->geom.n; t++)
				if (targets >> t & 1 &&
				    atomic_load(&a->m[t].recovery_offset) < w->front + w->len)
					atomic_store(&a->m[t].recovery_offset, w->front + w->len);
			raid_quiesce_track(a, a->ops->rows_recover, w->front + w->len);
			front = w->front + w->len;
			rec->res.bytes += w->len;
			/* the next window's data: recompute it, or read it again around a failure
			 */
			if (nx->len && !(ret = rret)) {
				if (rb.r.error)
					ret = window_fill(rec, targets, nx);
				else if (a->ops->rows_recover)
					a->ops->rows_recover(a, nx->front, nx->len, nx->lost,
							     nx->bufs);
			}
		}
		if (ret)
			break;
		cur ^= 1;
		if ((double)(front - start_front) >= next_log * (double)(msize - start_front)) {
			raid_log("raid: rebuild %.0f%% (%" PRIu64 " of %" PRIu64 " MiB)",
				 100.0 * (double)front / (double)msize, front / MIB, msize / MIB);
			next_log += 0.1;
		}
		if (rec_elapsed(rec) - last_cp >= CHECKPOINT_S) {
			checkpoint(rec, targets, front);
			last_cp = rec_elapsed(rec);
		}
		/* md's limits: at most `max`, and only `min` while the foreground is busy */
		due = rec_pace_due(t0, w->len, w->rate);
		while (!rec_stopping(rec)) {
			double now = rec_elapsed(rec), left = due - now;

			rec_tick(rec);
			if (left <= 0)
				break;
			usleep((useconds_t)((left < 0.05 ? left : 0.05) * 1e6));
		}
	}
	if (raid_quiesce_held(a))
		raid_quiesce_unlock(rec->a);
	if (ret && !said)
		raid_log("raid: rebuild of member %s stopped at %" PRIu64 " bytes: %s", who, front,
			 ret == -ENODATA ? "the array has lost more than the level tolerates"
			 : ret == -EIO	 ? "a write to the spare failed, or reads kept failing"
					 : strerror(-ret));
	if (!ret && front >= msize && a->ops->rows_recover)
		ret = redo_dirty(rec, targets, bufs[0], unit);
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
			 who, end, (msize - start_front) / MIB, secs,
			 secs > 0 ? (double)(msize - start_front) / MB / secs : 0.0);
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
out:
	for (int k = 0; k < 2 * a->geom.n; k++) {
		void *bp = bufs[k / a->geom.n][k % a->geom.n];

		if (bp && a->ops->buf_unregister)
			a->ops->buf_unregister(a, bp);
		free(bp);
	}
}

/* Failed slots that can be rebuilt now: give each a free spare first. */
static uint64_t rebuild_targets(struct raid_recovery *rec)
{
	struct raid_array *a = rec->a;
	int n = a->geom.n;
	uint64_t t = 0;

	if (!a->cfg.rec.rebuild)
		return 0;
	for (int i = 0; i < n; i++) {
		if (!raid_member_failed(a, i) || atomic_load(&a->m[i].spare_failed))
			continue;
		if (atomic_load(&a->m[i].dev) == i) {
			int s;

			for (s = 0; s < a->cfg.rec.nspares && rec->sp.used[s]; s++)
				;
			if (s == a->cfg.rec.nspares) {
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
	bool scrub = a->cfg.rec.scrub != RAID_SCRUB_OFF;
	int ret = raid_queue_create(a, 64, a->cfg.direct, &rec->q, err, sizeof(err));

	if (ret)
		raid_log("%s", err);
	else if (a->cfg.rec.resync || rec->st.resync_dirty)
		ret = raid_rec_scrub(rec, RAID_SCRUB_REPAIR, true);
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
		if (rec_stopping(rec))
			break;
		targets = rebuild_targets(rec);
		if (targets) {
			rebuild_pass(rec, targets);
			continue;
		}
		if (scrub) {
			raid_rec_error(rec, raid_rec_scrub(rec, a->cfg.rec.scrub, false));
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

