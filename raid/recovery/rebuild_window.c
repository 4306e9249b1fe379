/*
 * rebuild_window.c - what the recovery thread (rebuild.c) and the foreground share while a
 * window of rows is recovered: time, window buffers, the window lock that parks foreground
 * writes into the window (and notes those below the front that a parity rebuild must redo),
 * the per-second meter of foreground I/O for the stats, and the batch of member I/Os a window
 * issues through the recovery thread's own queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "rebuild.h"

#define MB 1000000.0
#define MIB ((uint64_t)1024 * 1024)
#define PIECE_MAX MIB /* most bytes one member I/O of a window moves */

struct rec_park {
	struct raid_post post; /* first: the post callback gets the node back */
	struct raid_request *r;
	struct raid_queue *q;
	struct rec_park *next;
};

uint64_t rec_now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000000ULL + (uint64_t)t.tv_nsec;
}

double rec_elapsed(struct raid_recovery *rec)
{
	return (double)(rec_now_ns() - rec->t0) / 1e9;
}

void *rec_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	return p;
}

/* ---- the window lock (see rebuild.h) ---- */

/* Hand parked writes back to their queues, where they are admitted again. */
static void repost(struct rec_park *p)
{
	while (p) {
		struct rec_park *next = p->next;

		raid_queue_post(p->q, &p->post);
		p = next;
	}
}

/*
 * Lock [lo, hi), or move a held window there: the new range holds from now on, the writes
 * parked in the old one are offered again (those inside the new range park again), and
 * the writes admitted before the move are waited for.
 */
void rec_window_lock(struct raid_recovery *rec, uint64_t lo, uint64_t hi)
{
	struct rec_park *p;
	unsigned old;

	pthread_mutex_lock(&rec->mu);
	rec->win_lo = lo;
	rec->win_hi = hi;
	rec->win_on = true;
	p = rec->parked;
	rec->parked = NULL;
	old = rec->epoch++ & 1;
	rec->draining = old + 1;
	pthread_mutex_unlock(&rec->mu);
	repost(p);
	pthread_mutex_lock(&rec->mu);
	while (rec->cnt[old])
		pthread_cond_wait(&rec->drain_cv, &rec->mu);
	rec->draining = 0;
	pthread_mutex_unlock(&rec->mu);
}

void rec_window_unlock(struct raid_recovery *rec)
{
	struct rec_park *p;

	pthread_mutex_lock(&rec->mu);
	rec->win_on = false;
	p = rec->parked;
	rec->parked = NULL;
	pthread_mutex_unlock(&rec->mu);
	repost(p);
}

/* Under rec->mu: the stripe rows a write touches below the rebuild front. */
static void note_dirty(struct raid_recovery *rec, uint64_t off, uint64_t len)
{
	struct raid_array *a = rec->a;
	struct raid_loc loc;
	uint64_t seg, lo, hi;

	a->ops->map(&a->geom, off, &loc, &seg);
	lo = loc.offset / a->geom.chunk * a->geom.chunk;
	a->ops->map(&a->geom, off + len - 1, &loc, &seg);
	hi = loc.offset / a->geom.chunk * a->geom.chunk + a->geom.chunk;
	if (lo >= rec->rows_front)
		return;
	if (hi > rec->rows_front)
		hi = rec->rows_front;
	if (rec->ndirty && rec->dirty[rec->ndirty - 1].hi >= lo &&
	    rec->dirty[rec->ndirty - 1].lo <= hi) {
		struct rec_range *d = &rec->dirty[rec->ndirty - 1];

		d->lo = lo < d->lo ? lo : d->lo;
		d->hi = hi > d->hi ? hi : d->hi;
		return;
	}
	if (rec->ndirty == rec->capdirty) {
		size_t cap = rec->capdirty ? rec->capdirty * 2 : 256;
		struct rec_range *p = cap <= 65536 ? realloc(rec->dirty, cap * sizeof(*p)) : NULL;

		if (!p) { /* too many: one range covering them all */
			for (size_t i = 1; i < rec->ndirty; i++) {
				rec->dirty[0].lo = rec->dirty[i].lo < rec->dirty[0].lo
						       ? rec->dirty[i].lo
						       : rec->dirty[0].lo;
				rec->dirty[0].hi = rec->dirty[i].hi > rec->dirty[0].hi
						       ? rec->dirty[i].hi
						       : rec->dirty[0].hi;
			}
			rec->ndirty = 1;
			rec->dirty[0].lo = lo < rec->dirty[0].lo ? lo : rec->dirty[0].lo;
			rec->dirty[0].hi = hi > rec->dirty[0].hi ? hi : rec->dirty[0].hi;
			return;
		}
		rec->dirty = p;
		rec->capdirty = cap;
	}
	rec->dirty[rec->ndirty++] = (struct rec_range){lo, hi};
}

static void resume_parked(struct raid_queue *q, struct raid_post *post)
{
	struct rec_park *p = (struct rec_park *)post;
	struct raid_request *r = p->r;

	free(p);
	if (!raid_rec_admit(q, r))
		raid_request_start(q, r);
}

bool raid_rec_admit(struct raid_queue *q, struct raid_request *r)
{
	struct raid_recovery *rec = q->a->rec;

	if (rec->metering && !r->t_submit)
		r->t_submit = rec_now_ns();
	if (r->op != RAID_OP_WRITE) {
		r->rec_admitted = true;
		r->rec_epoch = UINT32_MAX;
		return false;
	}
	pthread_mutex_lock(&rec->mu);
	if (rec->win_on && r->offset < rec->win_hi && r->offset + r->length > rec->win_lo) {
		struct rec_park *p = calloc(1, sizeof(*p));

		if (p) {
			p->post.fn = resume_parked;
			p->r = r;
			p->q = q;
			p->next = rec->parked;
			rec->parked = p;
			pthread_mutex_unlock(&rec->mu);
			return true;
		}
		/* no memory for the note: wait here instead, the window is short */
		while (rec->win_on && r->offset < rec->win_hi &&
		       r->offset + r->length > rec->win_lo) {
			pthread_mutex_unlock(&rec->mu);
			usleep(100);
			pthread_mutex_lock(&rec->mu);
		}
	}
	if (rec->rb_active && q->a->ops->rows_recover)
		note_dirty(rec, r->offset, r->length);
	r->rec_epoch = rec->epoch;
	rec->cnt[rec->epoch & 1]++;
	r->rec_admitted = true;
	pthread_mutex_unlock(&rec->mu);
	return false;
}

static unsigned hist_index(uint64_t ns)
{
	uint64_t v = ns | 1;
	unsigned msb = 63 - (unsigned)__builtin_clzll(v);

	if (v < 8)
		return (unsigned)v;
	return msb * 8 + (unsigned)((v >> (msb - 3)) & 7);
}

static double hist_value(unsigned i)
{
	if (i < 8)
		return i;
	return (double)((8ULL + (i & 7)) << (i / 8 - 3));
}

void raid_rec_release(struct raid_queue *q, struct raid_request *r)
{
	struct raid_recovery *rec = q->a->rec;

	r->rec_admitted = false;
	atomic_fetch_add_explicit(&rec->fg_ios, 1, memory_order_relaxed);
	if (rec->metering && r->t_submit) {
		uint64_t lat = rec_now_ns() - r->t_submit;

		atomic_fetch_add_explicit(&rec->fg_bytes, r->length, memory_order_relaxed);
		atomic_fetch_add_explicit(&rec->fg_lat_ns, lat, memory_order_relaxed);
		atomic_fetch_add_explicit(&rec->hist[hist_index(lat)], 1, memory_order_relaxed);
	}
	r->t_submit = 0;
	if (r->rec_epoch == UINT32_MAX)
		return;
	pthread_mutex_lock(&rec->mu);
	if (!--rec->cnt[r->rec_epoch & 1] && rec->draining)
		pthread_cond_broadcast(&rec->drain_cv);
	pthread_mutex_unlock(&rec->mu);
}

/* ---- the foreground meter ---- */

void rec_tick(struct raid_recovery *rec)
{
	double now = rec_elapsed(rec), dt = now - rec->last_sample;
	uint64_t ios, bytes, lat, n = 0, want, seen = 0;
	uint64_t cur[REC_HIST];
	struct rec_sample s;

	/* raid_fail is due while a pass runs too: "a second member fails while rebuilding" */
	raid_rec_fail_timers(rec->a, now);
	if (!rec->metering || dt < 1.0)
		return;
	ios = atomic_load(&rec->fg_ios);
	bytes = atomic_load(&rec->fg_bytes);
	lat = atomic_load(&rec->fg_lat_ns);
	for (int i = 0; i < REC_HIST; i++) {
		cur[i] = atomic_load_explicit(&rec->hist[i], memory_order_relaxed);
		n += cur[i] - rec->last_hist[i];
	}
	s = (struct rec_sample){.t = now,
				.phase = rec->rb_active ? REC_DURING
					 : rec->rebuilt ? REC_AFTER
							: REC_BEFORE,
				.iops = (double)(ios - rec->last_ios) / dt,
				.mbps = (double)(bytes - rec->last_bytes) / dt / MB,
				.lat_mean_us =
				    n ? (double)(lat - rec->last_lat) / (double)n / 1e3 : 0};
	want = n - n / 100; /* the 99th percentile's rank */
	for (int i = 0; i < REC_HIST && n; i++) {
		seen += cur[i] - rec->last_hist[i];
		if (seen >= want) {
			s.lat_p99_us = hist_value(i) / 1e3;
			break;
		}
	}
	memcpy(rec->last_hist, cur, sizeof(cur));
	rec->last_ios = ios;
	rec->last_bytes = bytes;
	rec->last_lat = lat;
	rec->last_sample = now;
	if (rec->nsamples == rec->capsamples) {
		size_t cap = rec->capsamples ? rec->capsamples * 2 : 64;
		struct rec_sample *p = realloc(rec->samples, cap * sizeof(*p));

		if (!p)
			return;
		rec->samples = p;
		rec->capsamples = cap;
	}
	rec->samples[rec->nsamples++] = s;
}

/* ---- member I/O of the recovery thread ---- */

static int batch_advance(struct raid_queue *q, struct raid_request *r)
{
	return 1;
}

void rec_batch_init(struct rec_batch *b)
{
	memset(b, 0, sizeof(*b));
	b->failed_member = -1;
}

void rec_io(struct raid_recovery *rec, struct rec_batch *b, enum raid_op op, int member, void *buf,
	    uint64_t moff, uint64_t len)
{
	struct raid_queue *q = rec->q;

	if (!b->r.inflight) {
		b->r.error = 0;
		b->r.pending = 0;
		b->r.advance = batch_advance;
		b->r.rec_admitted = false;
		raid_request_hold(q, &b->r);
	}
	while (len) {
		struct member_io *m = raid_mio_get(q);
		uint64_t l = len < PIECE_MAX ? len : PIECE_MAX;

		m->op = op;
		m->member = member;
		m->offset = moff;
		m->len = l;
		m->buf = buf;
		raid_mio_issue(q, &b->r, m);
		buf = (char *)buf + l;
		moff += l;
		len -= l;
	}
}

void rec_wait_all(struct raid_recovery *rec, struct rec_batch *b1, struct rec_batch *b2)
{
	struct raid_request *out[8];
	bool w1 = b1 && b1->r.inflight, w2 = b2 && b2->r.inflight;

	if (!w1 && !w2)
		return;
	raid_commit(rec->q);
	/* until each batch is reaped: a batch still on the done list must not be reused */
	while (w1 || w2) {
		int n = raid_reap(rec->q, 1, 8, NULL, out);

		if (n < 0) {
			if (w1 && !b1->r.error)
				b1->r.error = n;
			if (w2 && !b2->r.error)
				b2->r.error = n;
			return;
		}
		for (int i = 0; i < n; i++) {
			w1 &= !b1 || out[i] != &b1->r;
			w2 &= !b2 || out[i] != &b2->r;
		}
	}
}

int rec_wait(struct raid_recovery *rec, struct rec_batch *b)
{
	rec_wait_all(rec, b, NULL);
	return b->r.error;
}

void rec_parked_free(struct raid_recovery *rec)
{
	while (rec->parked) {
		struct rec_park *p = rec->parked;

		rec->parked = p->next;
		free(p);
	}
}
