/*
 * rebuild_pipe.c - the windows of a rebuild pass in flight (docs/rebuild.md, speed): up to
 * REC_WINDOWS windows of member rows at once, each read (every source member side by
 * side), recomputed (parity levels, on the recovery thread while the other windows' I/O
 * runs) and written to the spares, then retired in order: only a retired window moves the
 * front (md's recovery_offset), so the checkpoint never claims a window still in flight.
 * One window lock covers the rows from the front to the end of the newest window.
 */
#include <errno.h>
#include <inttypes.h>
#include <string.h>

#include "recovery/passes/passes.h"

#define MIB ((uint64_t)1024 * 1024)
#define READ_TRIES 8 /* reads of one window again, each after a source failed under it */

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
 * Issue every read window w needs into its batch, side by side on all members: a surviving
 * copy of each target's bytes (mirrors), or every surviving member's rows (parity).
 * -ENODATA: the array has lost more than the level tolerates.
 */
static int window_read(struct raid_recovery *rec, uint64_t targets, struct rec_win *w)
{
	struct raid_array *a = rec->a;
	int ret = 0;

	rec_batch_init(&w->b, w->q);
	if (!a->ops->rows_recover) {
		for (int t = 0; t < a->geom.n && !ret; t++)
			if (targets >> t & 1)
				ret = mirror_read(rec, &w->b, t, w->front, w->len, w->bufs[t]);
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
			rec_io(rec, &w->b, RAID_OP_READ, m, w->bufs[m], w->front, w->len);
	return 0;
}

/* Issue the writes of window w's targets (onto their spares) into its batch. */
static void window_write(struct raid_recovery *rec, uint64_t targets, struct rec_win *w, bool again)
{
	struct raid_array *a = rec->a;

	rec_batch_init(&w->b, w->q);
	for (int t = 0; t < a->geom.n; t++)
		if (targets >> t & 1 &&
		    (again || atomic_load(&a->m[t].recovery_offset) < w->front + w->len))
			rec_io(rec, &w->b, RAID_OP_WRITE, t, w->bufs[t], w->front, w->len);
}

int rec_recover_window(struct raid_recovery *rec, uint64_t targets, uint64_t front, uint64_t len,
		       void **bufs, bool again)
{
	return rec_recover_window_on(rec, rec->q, targets, front, len, bufs, again);
}

int rec_recover_window_on(struct raid_recovery *rec, struct raid_queue *q, uint64_t targets,
			  uint64_t front, uint64_t len, void **bufs, bool again)
{
	struct raid_array *a = rec->a;
	struct rec_win w = {.front = front, .len = len, .bufs = bufs, .q = q};

	for (int tries = 0;; tries++) {
		int ret = window_read(rec, targets, &w);

		if (rec_wait(rec, &w.b) == 0 && !ret)
			break;
		if (ret)
			return ret;
		/* a failed read failed its member (md_error): the next try reads around it */
		if (tries == READ_TRIES)
			return -EIO;
	}
	if (a->ops->rows_recover)
		a->ops->rows_recover(a, w.front, w.len, w.lost, w.bufs);
	window_write(rec, targets, &w, again);
	return rec_wait(rec, &w.b) ? -EIO : 0;
}

/* ---- the pipeline ---- */

/* The oldest window's writes are done: the front moves past it (md's recovery_offset). */
void rec_retire(struct raid_recovery *rec, struct rec_pass *p, struct rec_win *w)
{
	struct raid_array *a = rec->a;
	uint64_t end = w->front + w->len;

	for (int t = 0; t < a->geom.n; t++)
		if (p->targets >> t & 1 && atomic_load(&a->m[t].recovery_offset) < end)
			atomic_store(&a->m[t].recovery_offset, end);
	raid_quiesce_track(a, a->ops->rows_recover, end);
	p->front = end;
	rec->res.bytes += w->len;
	w->stage = REC_WIN_FREE;
	p->head = (p->head + 1) % p->nslots;
	p->n--;
	if ((double)(p->front - p->start_front) >=
	    p->next_log * (double)(p->msize - p->start_front)) {
		raid_log("raid: rebuild %.0f%% (%" PRIu64 " of %" PRIu64 " MiB)",
			 100.0 * (double)p->front / (double)p->msize, p->front / MIB,
			 p->msize / MIB);
		p->next_log += 0.1;
	}
}

/*
 * The next window: lock its rows with those in flight (writes into them park; a write
 * admitted before the lock completes first), then issue its reads.
 */
static int issue(struct raid_recovery *rec, struct rec_pass *p, uint64_t rate)
{
	struct raid_array *a = rec->a;
	struct rec_win *w = rec_nth(p, p->n);
	uint64_t vlo, vlen;

	w->front = p->next;
	w->len = rec_window_len(p->msize, p->next, p->unit, rate);
	w->tries = 0;
	w->io_done = false;
	a->ops->span(&a->geom, p->front, w->front + w->len - p->front, &vlo, &vlen);
	raid_quiesce_lock(a, vlo, vlo + vlen);
	p->next += w->len;
	p->n++;
	w->stage = REC_WIN_READ;
	return window_read(rec, p->targets, w);
}

/* Window w's reads completed: recompute and write it, or read it again around a failure. */
static int advance(struct raid_recovery *rec, struct rec_pass *p, struct rec_win *w)
{
	struct raid_array *a = rec->a;

	if (w->b.r.error) {
		/* a failed read failed its member (md_error): read again around it */
		if (++w->tries > READ_TRIES)
			return -EIO;
		return window_read(rec, p->targets, w);
	}
	if (a->ops->rows_recover)
		a->ops->rows_recover(a, w->front, w->len, w->lost, w->bufs);
	w->stage = REC_WIN_WRITE;
	window_write(rec, p->targets, w, false);
	return 0;
}

bool rec_spare_failed(struct raid_recovery *rec, struct rec_pass *p)
{
	struct raid_array *a = rec->a;
	bool any = false;

	for (int t = 0; t < a->geom.n; t++)
		if (p->targets >> t & 1 && atomic_load(&a->m[t].spare_failed)) {
			raid_log("raid: rebuild of member %d stopped: its spare %s failed a write",
				 t, a->m[atomic_load(&a->m[t].dev)].path);
			any = true;
		}
	return any;
}

/*
 * Reap what completed, waiting up to `wait_s` for one: a reaped batch is done (and off the
 * queue's done list, so it may be used again).
 */
static int reap(struct raid_recovery *rec, struct rec_pass *p, double wait_s)
{
	struct raid_request *out[16];
	struct timespec ts = {.tv_sec = (time_t)wait_s,
			      .tv_nsec = (long)((wait_s - (double)(time_t)wait_s) * 1e9)};
	int n = raid_reap(rec->q, 1, 16, &ts, out);

	for (int i = 0; i < n; i++)
		for (int k = 0; k < REC_WINDOWS; k++)
			if (out[i] == &p->win[k].b.r)
				p->win[k].io_done = true;
	return n < 0 ? n : 0;
}

/* A window's batch is done when it was reaped, or when it issued nothing at all. */
static bool win_done(struct rec_win *w)
{
	return w->io_done || !w->b.nio;
}

static bool in_flight(struct rec_pass *p)
{
	for (int i = 0; i < p->n; i++)
		if (!win_done(rec_nth(p, i)))
			return true;
	return false;
}

/* Stopping: nothing new starts, and every window's I/O completes before the buffers go. */
static void drain(struct raid_recovery *rec, struct rec_pass *p)
{
	for (;;) {
		bool busy = false;

		for (int i = 0; i < p->n; i++)
			busy |= !win_done(rec_nth(p, i));
		if (!busy || reap(rec, p, 0.05) < 0)
			break;
	}
	for (int i = 0; i < REC_WINDOWS; i++)
		p->win[i].stage = REC_WIN_FREE;
	p->n = 0;
}

int rec_pass_windows(struct raid_recovery *rec, struct rec_pass *p)
{
	struct raid_array *a = rec->a;
	struct rec_pace pace;
	double issue_at = rec_elapsed(rec);
	int ret = 0;

	rec_pace_init(&pace, rec_cfg(&a->cfg));
	p->next = p->front;
	p->head = p->n = 0;
	p->nslots = REC_WINDOWS;
	for (int k = 0; k < REC_WINDOWS; k++)
		p->win[k].q = rec->q;
	while (!ret && !rec_stopping(rec)) {
		double now, wait = 0.05;

		if (rec_spare_failed(rec, p)) {
			ret = -EIO;
			p->said = true;
			break;
		}
		/* in order: the oldest retires once written; a read window is recomputed and
		 * its writes start while the later windows are still being read */
		for (int i = 0; i < p->n && !ret; i++) {
			struct rec_win *w = rec_nth(p, i);

			if (!win_done(w))
				continue;
			if (w->stage == REC_WIN_WRITE) {
				if (w->b.r.error)
					ret = -EIO;
				else if (i == 0) {
					rec_retire(rec, p, w);
					i--;
				}
				continue;
			}
			w->io_done = false;
			ret = advance(rec, p, w);
			raid_commit(rec->q);
		}
		if (ret)
			break;
		if (rec_elapsed(rec) - p->last_cp >= CHECKPOINT_S) {
			p->checkpoint(rec, p->targets, p->front);
			p->last_cp = rec_elapsed(rec);
		}
		if (p->next >= p->msize && !p->n)
			break; /* every window retired */
		/* md's limits: a window starts once its predecessor's length at its rate allows */
		now = rec_elapsed(rec);
		while (!ret && p->n < REC_WINDOWS && p->next < p->msize && now >= issue_at) {
			uint64_t rate = rec_pace_rate(&pace, raid_meter_bytes(a), now);

			ret = issue(rec, p, rate);
			issue_at = rec_pace_due(issue_at, now, rec_nth(p, p->n - 1)->len, rate);
		}
		if (ret)
			break;
		if (p->n < REC_WINDOWS && p->next < p->msize && issue_at - now < wait)
			wait = issue_at - now;
		for (int i = 0; i < p->n; i++)
			if (win_done(rec_nth(p, i)) && (i == 0 || rec_nth(p, i)->stage == REC_WIN_READ))
				wait = 0; /* it issued nothing: on with it at once */
		/*
		 * Completions are reaped only by a wait that enters the kernel (the ring runs
		 * them deferred, at the wait): never a zero wait with I/O in flight.
		 */
		raid_commit(rec->q);
		if (wait > 0 && !in_flight(p))
			raid_clock_sleep(wait); /* pacing alone: on the engine's clock (a test's fake) */
		else if (wait > 0 && reap(rec, p, wait < 1e-6 ? 1e-6 : wait) < 0)
			ret = -EIO;
		rec_tick(rec);
	}
	drain(rec, p);
	return ret;
}
