/*
 * merge.c - the queue's plug, the core's twin of the block layer's plug merge: member I/Os
 * issued between two commits are held, and at raid_commit() those of one device and one
 * direction whose member offsets follow each other (a->offset + a->len == b->offset) go to
 * the backend as one vectored member I/O, a carrier holding its parts' buffers as an iovec,
 * up to MERGE_MAX_PARTS parts and MERGE_MAX_BYTES. A carrier takes one backend slot. Its
 * parts keep their own completion: a carrier that moved all its bytes completes each part
 * with the part's length; a failed one fails every part (md fails every bio of a failed
 * request); a short one completes the parts it covered and re-issues the rest unmerged,
 * where the core's short-transfer continuation takes over.
 *
 * Merging may reorder the I/Os of one commit (a carrier goes where its first part was
 * issued). Nothing relies on that order: io_uring and libaio never ran one submission's
 * I/Os in order anyway, and where the engine needs order it waits for completions between
 * the steps, so the steps are never in one plug:
 *  - a RAID5/6 stripe op issues its reads (S_READ), and its data and parity writes only
 *    once every read completed (raid56.c, raid56_parity.c); two ops of one stripe are
 *    serialized by the stripe lock, held from before the reads until the writes complete;
 *  - rebuild and scrub read a window, wait for it (rec_wait), and only then write it back
 *    (rebuild.c, scrub.c), inside a window lock that keeps foreground writes out;
 *  - RAID0/1/10 requests are one step.
 * What remains in one plug are I/Os of different requests in flight at once: two of them
 * over the same bytes have no order on a block device either, and only neighbours that do
 * not overlap are merged.
 *
 * Runs are found in one pass in issue order: each I/O joins the open run of its device and
 * direction when it extends it at either end, or opens a new one. That catches what the
 * levels produce (a sequential stream, the stripes of one request in order) without a
 * sort; neighbours issued out of order with something else between stay separate.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>

#include "merge.h"

struct merge_carrier {
	struct member_io mio; /* first: what the backend sees */
	STAILQ_ENTRY(merge_carrier) free_link, all_link;
	uint64_t start, end;
	unsigned n;
	bool emitted;
	struct member_io *part[MERGE_MAX_PARTS]; /* in offset order */
	struct iovec iov[MERGE_MAX_PARTS];
};

static struct merge_carrier *C(struct member_io *m)
{
	return (struct merge_carrier *)m;
}

static struct merge_carrier *carrier_get(struct raid_queue *q)
{
	struct merge_carrier *c = STAILQ_FIRST(&q->free_carriers);

	if (c) {
		STAILQ_REMOVE_HEAD(&q->free_carriers, free_link);
	} else {
		c = malloc(sizeof(*c));
		if (!c)
			return NULL; /* the parts go unmerged */
		STAILQ_INSERT_TAIL(&q->carriers, c, all_link);
	}
	return c;
}

static void carrier_put(struct raid_queue *q, struct merge_carrier *c)
{
	STAILQ_INSERT_HEAD(&q->free_carriers, c, free_link);
}

void merge_exit(struct raid_queue *q)
{
	while (!STAILQ_EMPTY(&q->carriers)) {
		struct merge_carrier *c = STAILQ_FIRST(&q->carriers);

		STAILQ_REMOVE_HEAD(&q->carriers, all_link);
		free(c);
	}
	STAILQ_INIT(&q->free_carriers);
}

void merge_plug(struct raid_queue *q, struct member_io *mio)
{
	STAILQ_INSERT_TAIL(&q->plug, mio, link);
}

/* Add p to the run led by `lead` if it extends the run at either end and fits. */
static bool join(struct raid_queue *q, struct member_io *lead, struct member_io *p)
{
	struct merge_carrier *c = lead->carrier ? C(lead->carrier) : NULL;
	uint64_t start = c ? c->start : lead->offset;
	uint64_t end = c ? c->end : lead->offset + lead->len;
	unsigned n = c ? c->n : 1;
	bool back = p->offset == end, front = p->offset + p->len == start;

	if (!p->len || lead->member != p->member || !(back || front) || n >= MERGE_MAX_PARTS ||
	    end - start + p->len > MERGE_MAX_BYTES)
		return false;
	if (!c) {
		c = carrier_get(q);
		if (!c)
			return false;
		c->start = start;
		c->end = end;
		c->n = 1;
		c->emitted = false;
		c->part[0] = lead;
		lead->carrier = &c->mio;
	}
	if (back) {
		c->part[c->n++] = p;
		c->end += p->len;
	} else {
		memmove(c->part + 1, c->part, c->n * sizeof(c->part[0]));
		c->part[0] = p;
		c->n++;
		c->start = p->offset;
	}
	p->carrier = &c->mio;
	return true;
}

static void emit(struct raid_queue *q, struct merge_carrier *c)
{
	struct member_io *m = &c->mio, *first = c->part[0];

	for (unsigned i = 0; i < c->n; i++) {
		c->iov[i].iov_base = c->part[i]->buf;
		c->iov[i].iov_len = c->part[i]->len;
	}
	m->req = NULL;
	m->op = first->op;
	m->member = first->member;
	m->dev = first->dev;
	m->buf = NULL;
	m->offset = c->start;
	m->len = c->end - c->start;
	m->done = 0;
	m->retries = 0;
	m->iov = c->iov;
	m->iovcnt = (int)c->n;
	m->carrier = NULL;
	/* member_io counts what reaches the members: the folded parts move to merged */
	if (m->op == RAID_OP_READ)
		q->c.m_reads -= c->n - 1;
	else
		q->c.m_writes -= c->n - 1;
	q->c.merged += c->n - 1;
	c->emitted = true;
	raid_mio_to_backend(q, m);
}

void merge_unplug(struct raid_queue *q)
{
	struct mio_list held = STAILQ_HEAD_INITIALIZER(held);
	struct member_io *p;

	STAILQ_CONCAT(&held, &q->plug);
	p = STAILQ_FIRST(&held);
	if (p && !STAILQ_NEXT(p, link)) {
		raid_mio_to_backend(q, p);
		return;
	}
	STAILQ_FOREACH(p, &held, link) {
		struct member_io **run = &q->plug_run[p->dev * 2 + p->op];

		if (!*run || !join(q, *run, p))
			*run = p;
	}
	/* in issue order; the first part of a run brings its carrier (each leaves first) */
	while (!STAILQ_EMPTY(&held)) {
		p = STAILQ_FIRST(&held);
		STAILQ_REMOVE_HEAD(&held, link);
		q->plug_run[p->dev * 2 + p->op] = NULL;
		if (!p->carrier)
			raid_mio_to_backend(q, p);
		else if (!C(p->carrier)->emitted)
			emit(q, C(p->carrier));
	}
}

void merge_short(struct raid_queue *q, struct member_io *cm, uint64_t moved)
{
	struct merge_carrier *c = C(cm);

	for (unsigned i = 0; i < c->n; i++) {
		struct member_io *p = c->part[i];

		p->carrier = NULL;
		if (moved >= p->len) {
			moved -= p->len;
			raid_mio_complete(q, p, (int)p->len);
			continue;
		}
		p->done = moved;
		moved = 0;
		raid_mio_to_backend(q, p);
	}
	carrier_put(q, c);
}

void merge_complete(struct raid_queue *q, struct member_io *cm, int res)
{
	struct merge_carrier *c = C(cm);

	for (unsigned i = 0; i < c->n; i++) {
		struct member_io *p = c->part[i];

		p->carrier = NULL;
		raid_mio_complete(q, p, res < 0 ? res : (int)p->len);
	}
	carrier_put(q, c);
}
