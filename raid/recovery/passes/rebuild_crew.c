/*
 * rebuild_crew.c - a rebuild pass on several workers (raid_rebuild_workers > 1): each worker
 * is a thread with its own raid_queue (so its own ring, and its own io-wq where the kernel
 * copies, as tmpfs and the page cache do) that takes whole windows and recovers each one
 * alone: reads every source, recomputes the lost rows beside the other workers' reads, and
 * writes the spares. Under the crew's lock, whoever holds it (step(): the recovery thread
 * or a worker that just finished) retires windows in order and issues new ones at the paced
 * times (md's limits), extending the window lock from the front to the newest window's end,
 * so the front (md's recovery_offset) and the checkpoint move only past windows below which
 * every window is written, exactly as the single thread's pipeline does (rebuild_pipe.c).
 * The recovery thread keeps the checkpoint, the samples, the stop and the pacing waits.
 */
#include <errno.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "recovery/passes/passes.h"


struct crew {
	struct raid_recovery *rec;
	struct rec_pass *p;
	pthread_mutex_t mu;
	pthread_cond_t work_cv; /* a window was queued, or quit */
	pthread_cond_t done_cv; /* a window was recovered, or a worker started */
	bool quit;
	int started, ready; /* workers that made their queue (or failed to); that made it */
	/* retiring and issuing, by whichever thread holds mu first (step()) */
	struct rec_pace pace;
	double issue_at; /* when the next window may start (md's limits) */
	int err;	 /* a window's error: nothing more is issued */
	bool stopping;	 /* the pass stops: nothing more is issued nor retired */
};

struct worker {
	struct crew *c;
	struct raid_queue *q;
	pthread_t th;
};

/* The oldest queued window, marked running; NULL when none. Under c->mu. */
static struct rec_win *take(struct crew *c)
{
	struct rec_pass *p = c->p;

	for (int i = 0; i < p->n; i++) {
		struct rec_win *w = rec_nth(p, i);

		if (w->stage == REC_WIN_QUEUED) {
			w->stage = REC_WIN_RUNNING;
			return w;
		}
	}
	return NULL;
}

/*
 * Every member and spare a block device: there the rebuild's reads and the spare's writes
 * bypass the page cache (O_DIRECT, as md's do), which they would only churn. Files keep
 * the job's mode: on tmpfs a direct write is still a copy, and a slower one (dd: 1 MiB
 * direct writes at a third of buffered ones on this machine).
 */
static bool all_blockdevs(struct raid_array *a)
{
	for (int i = 0; i < a->geom.n + rec_cfg(&a->cfg)->nspares; i++) {
		struct stat st;

		if (stat(a->m[i].path, &st) || !S_ISBLK(st.st_mode))
			return false;
	}
	return true;
}

/*
 * The worker's queue is made on its own thread: a ring takes submissions from the task that
 * made it only (the backend sets it up single-issuer, its completions run at that task's
 * wait). Direct where every window, piece and buffer is a multiple of 4 KiB (aligned for
 * any logical block size) and the members are block devices.
 */
static struct raid_queue *worker_queue(struct raid_array *a, uint64_t unit)
{
	struct raid_queue *q = NULL;
	char err[RAID_ERRLEN];
	bool direct = !(a->geom.member_size % 4096) && !(unit % 4096) && all_blockdevs(a);

	if (direct && !a->cfg.direct && !raid_queue_create(a, 64, true, &q, err, sizeof(err)))
		return q;
	if (raid_queue_create(a, 64, a->cfg.direct, &q, err, sizeof(err)))
		return NULL;
	return q;
}

static void step(struct crew *c);

static void *worker_main(void *arg)
{
	struct worker *wk = arg;
	struct crew *c = wk->c;

	wk->q = worker_queue(c->rec->a, c->p->unit);
	pthread_mutex_lock(&c->mu);
	c->started++;
	c->ready += wk->q != NULL;
	pthread_cond_broadcast(&c->done_cv);
	for (; wk->q;) {
		struct rec_win *w = take(c);
		uint64_t front, len;
		void **bufs;
		int ret;

		if (!w) {
			if (c->quit)
				break;
			pthread_cond_wait(&c->work_cv, &c->mu);
			continue;
		}
		front = w->front;
		len = w->len;
		bufs = w->bufs;
		pthread_mutex_unlock(&c->mu);
		ret = rec_recover_window_on(c->rec, wk->q, c->p->targets, front, len, bufs, false);
		pthread_mutex_lock(&c->mu);
		w->ret = ret;
		w->stage = REC_WIN_DONE;
		step(c); /* the next window at once, not after the coordinator wakes */
		pthread_cond_broadcast(&c->done_cv);
	}
	pthread_mutex_unlock(&c->mu);
	raid_queue_destroy(wk->q);
	return NULL;
}

/* Lock the next window's rows with those in flight and queue it for a worker. Under c->mu. */
static void issue(struct crew *c, uint64_t rate)
{
	struct rec_pass *p = c->p;
	struct raid_array *a = c->rec->a;
	struct rec_win *w = rec_nth(p, p->n);
	uint64_t vlo, vlen;

	w->front = p->next;
	w->len = rec_window_len(p->msize, p->next, p->unit, rate);
	w->ret = 0;
	/* writes into it park; the lock returns once every write admitted before has completed */
	a->ops->span(&a->geom, p->front, w->front + w->len - p->front, &vlo, &vlen);
	raid_quiesce_lock(a, vlo, vlo + vlen);
	p->next += w->len;
	p->n++;
	w->stage = REC_WIN_QUEUED;
	pthread_cond_signal(&c->work_cv);
}

/* Wait up to `s` seconds of real time for a worker to finish a window. Under c->mu. */
static void wait_done(struct crew *c, double s)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	ts.tv_sec += (time_t)s;
	ts.tv_nsec += (long)((s - (double)(time_t)s) * 1e9);
	if (ts.tv_nsec >= 1000000000L) {
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	pthread_cond_timedwait(&c->done_cv, &c->mu, &ts);
}

/*
 * Under c->mu, by a worker that finished a window or by the coordinator: retire the windows
 * recovered in order (the front moves past a window only once it and every window before it
 * are written), then issue what the pacing allows. A worker doing this itself keeps the
 * others fed while the coordinator waits to be scheduled (a busy machine delays it by
 * milliseconds, several windows' arithmetic).
 */
static void step(struct crew *c)
{
	struct rec_pass *p = c->p;
	struct raid_array *a = c->rec->a;
	double now;

	while (!c->err && !c->stopping && p->n && rec_nth(p, 0)->stage == REC_WIN_DONE) {
		c->err = rec_nth(p, 0)->ret;
		if (!c->err)
			rec_retire(c->rec, p, rec_nth(p, 0));
	}
	if (c->err || c->stopping)
		return;
	now = rec_elapsed(c->rec);
	while (p->n < p->nslots && p->next < p->msize && now >= c->issue_at) {
		uint64_t rate = rec_pace_rate(&c->pace, raid_meter_bytes(a), now);

		issue(c, rate);
		c->issue_at = rec_pace_due(c->issue_at, now, rec_nth(p, p->n - 1)->len, rate);
	}
}

static bool running(struct rec_pass *p)
{
	for (int i = 0; i < p->n; i++)
		if (rec_nth(p, i)->stage == REC_WIN_QUEUED || rec_nth(p, i)->stage == REC_WIN_RUNNING)
			return true;
	return false;
}

/*
 * The coordinator's loop: the stop, a spare that failed, the checkpoint, the per-second
 * samples, and the pacing waits; retiring and issuing are step()'s. Under c->mu.
 */
static int coordinate(struct crew *c)
{
	struct raid_recovery *rec = c->rec;
	struct rec_pass *p = c->p;
	int ret = 0;

	rec_pace_init(&c->pace, rec_cfg(&rec->a->cfg));
	c->issue_at = rec_elapsed(rec);
	while (!rec_stopping(rec)) {
		double now, wait = 0.05;

		if (rec_spare_failed(rec, p)) {
			p->said = true;
			ret = -EIO;
			break;
		}
		step(c);
		if (c->err) {
			ret = c->err;
			break;
		}
		if (rec_elapsed(rec) - p->last_cp >= CHECKPOINT_S) {
			uint64_t front = p->front; /* retired: written, every window below too */

			/* an fdatasync of the spares: the workers go on meanwhile */
			pthread_mutex_unlock(&c->mu);
			p->checkpoint(rec, p->targets, front);
			pthread_mutex_lock(&c->mu);
			p->last_cp = rec_elapsed(rec);
		}
		if (p->next >= p->msize && !p->n)
			break; /* every window retired */
		now = rec_elapsed(rec);
		if (p->n < p->nslots && p->next < p->msize && c->issue_at - now < wait)
			wait = c->issue_at - now;
		if (p->n && rec_nth(p, 0)->stage == REC_WIN_DONE)
			wait = 0;
		if (wait > 0 && !p->n) {
			/* pacing alone: on the engine's clock (a test's fake) */
			pthread_mutex_unlock(&c->mu);
			raid_clock_sleep(wait);
			pthread_mutex_lock(&c->mu);
		} else if (wait > 0) {
			wait_done(c, wait);
		}
		pthread_mutex_unlock(&c->mu);
		rec_tick(rec);
		pthread_mutex_lock(&c->mu);
	}
	/* stopping: nothing more is issued or retired; windows not yet taken are dropped, those
	 * running complete before the buffers go */
	c->stopping = true;
	for (int i = 0; i < p->n; i++)
		if (rec_nth(p, i)->stage == REC_WIN_QUEUED)
			rec_nth(p, i)->stage = REC_WIN_FREE;
	while (running(p))
		wait_done(c, 0.05);
	for (int i = 0; i < p->nslots; i++)
		p->win[i].stage = REC_WIN_FREE;
	p->n = 0;
	return ret;
}

int rec_pass_crew(struct raid_recovery *rec, struct rec_pass *p)
{
	struct crew c = {.rec = rec, .p = p};
	struct worker wk[REC_WORKERS_MAX];
	int nw = 0, ret;

	pthread_mutex_init(&c.mu, NULL);
	pthread_cond_init(&c.work_cv, NULL);
	pthread_cond_init(&c.done_cv, NULL);
	p->next = p->front;
	p->head = p->n = 0;
	if (!p->nslots)
		p->nslots = p->nworkers + 2 <= REC_SLOTS_MAX ? p->nworkers + 2 : REC_SLOTS_MAX;
	for (int i = 0; i < p->nworkers && i < REC_WORKERS_MAX; i++) {
		wk[nw] = (struct worker){.c = &c};
		if (pthread_create(&wk[nw].th, NULL, worker_main, &wk[nw]) == 0)
			nw++;
	}
	pthread_mutex_lock(&c.mu);
	while (c.started < nw)
		pthread_cond_wait(&c.done_cv, &c.mu);
	/* fewer than two: the caller runs the recovery thread's own pipeline */
	if (c.ready >= 2) {
		ret = coordinate(&c);
		ret = ret == -EAGAIN ? -EIO : ret; /* -EAGAIN says: no crew */
	} else {
		ret = -EAGAIN;
		raid_log("raid: rebuild: %d of %d workers could start: the recovery thread rebuilds "
			 "alone",
			 c.ready, p->nworkers);
	}
	c.quit = true;
	pthread_cond_broadcast(&c.work_cv);
	pthread_mutex_unlock(&c.mu);
	for (int i = 0; i < nw; i++)
		pthread_join(wk[i].th, NULL);
	pthread_cond_destroy(&c.done_cv);
	pthread_cond_destroy(&c.work_cv);
	pthread_mutex_destroy(&c.mu);
	return ret;
}
