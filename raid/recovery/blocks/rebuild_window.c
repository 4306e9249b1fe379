/*
 * rebuild_window.c - what rebuild.c and scrub.c share: window buffers, the per-second
 * samples of the core's foreground meter for the stats, and the batch of member I/Os a
 * window issues through the recovery thread's own queue.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recovery/blocks/blocks.h"

#define MB 1000000.0
#define MIB ((uint64_t)1024 * 1024)
#define PIECE_MAX MIB /* most bytes one member I/O of a window moves */

void *rec_alloc(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len ? len : 4096))
		return NULL;
	return p;
}

/* ---- the foreground meter ---- */

void rec_tick(struct raid_recovery *rec)
{
	double now = rec_elapsed(rec), dt = now - rec->mt.last_t;
	uint64_t n = 0, want, seen = 0;
	struct raid_meter cur;
	struct raid_rec_sample s;

	/* raid_fail is due while a pass runs too: "a second member fails while rebuilding" */
	raid_rec_fail_timers(rec->a, now);
	if (!rec->mt.on || dt < 1.0)
		return;
	raid_meter_read(rec->a, &cur);
	for (int i = 0; i < RAID_HIST; i++)
		n += cur.hist[i] - rec->mt.last.hist[i];
	s = (struct raid_rec_sample){.t = now,
				.phase = rec->rb_active ? RAID_REC_DURING
					 : rec->res.rebuild_done ? RAID_REC_AFTER
							: RAID_REC_BEFORE,
				.iops = (double)(cur.ios - rec->mt.last.ios) / dt,
				.mbps = (double)(cur.bytes - rec->mt.last.bytes) / dt / MB,
				.lat_mean_us =
				    n ? (double)(cur.lat_ns - rec->mt.last.lat_ns) / (double)n / 1e3 : 0};
	want = n - n / 100; /* the 99th percentile's rank */
	for (int i = 0; i < RAID_HIST && n; i++) {
		seen += cur.hist[i] - rec->mt.last.hist[i];
		if (seen >= want) {
			s.lat_p99_us = raid_hist_value(i) / 1e3;
			break;
		}
	}
	rec->mt.last = cur;
	rec->mt.last_t = now;
	if (rec->mt.n == rec->mt.cap) {
		size_t cap = rec->mt.cap ? rec->mt.cap * 2 : 64;
		struct raid_rec_sample *p = realloc(rec->mt.samples, cap * sizeof(*p));

		if (!p)
			return;
		rec->mt.samples = p;
		rec->mt.cap = cap;
	}
	rec->mt.samples[rec->mt.n++] = s;
}

/* ---- member I/O of the recovery thread ---- */

static int batch_advance(struct raid_queue *q, struct raid_request *r)
{
	return 1;
}

void rec_batch_init(struct rec_batch *b, struct raid_queue *q)
{
	memset(b, 0, sizeof(*b));
	b->q = q;
	b->failed_member = -1;
}

void rec_io(struct raid_recovery *rec, struct rec_batch *b, enum raid_op op, int member, void *buf,
	    uint64_t moff, uint64_t len)
{
	struct raid_queue *q = b->q;

	if (!b->r.inflight) {
		b->r.error = 0;
		b->r.pending = 0;
		b->r.advance = batch_advance;
		b->r.admitted = false;
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
		b->nio++;
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
	struct raid_queue *q = w1 ? b1->q : w2 ? b2->q : NULL;

	if (!w1 && !w2)
		return;
	raid_commit(q);
	/* until each batch is reaped: a batch still on the done list must not be reused */
	while (w1 || w2) {
		int n = raid_reap(q, 1, 8, NULL, out);

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
