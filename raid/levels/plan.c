/*
 * plan.c - the generic planner of the levels without parity (0, 1, 10): split a request
 * at the level's mapping boundaries (chunks) into member extents, choose the copy each read
 * goes to, fan writes out to every surviving copy, and issue the member I/Os.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "core/level.h"

/* The surviving copy with the fewest member I/Os in flight (all queues of the array). */
static int pick_copy(struct raid_array *a, unsigned *rr, const struct raid_loc *locs, int n)
{
	int best = -1;
	unsigned best_load = UINT32_MAX;
	unsigned start = n > 1 ? (*rr)++ % (unsigned)n : 0;

	/* ties rotate, so idle mirrors share a queue-depth-1 stream */
	for (int k = 0; k < n; k++) {
		int i = (int)((start + (unsigned)k) % (unsigned)n);
		unsigned load;

		if (raid_member_failed(a, locs[i].member))
			continue;
		load = atomic_load_explicit(&a->m[locs[i].member].inflight, memory_order_relaxed);
		if (load < best_load) {
			best_load = load;
			best = i;
		}
	}
	return best;
}

static void add_extent(struct raid_extent *pend, const struct raid_loc *loc, uint64_t voff,
		       uint64_t len, void (*emit)(void *, const struct raid_extent *), void *ctx)
{
	struct raid_extent *p = &pend[loc->member];

	if (p->len && p->moff + p->len == loc->offset && p->voff + p->len == voff) {
		p->len += len;
		return;
	}
	if (p->len)
		emit(ctx, p);
	p->member = loc->member;
	p->moff = loc->offset;
	p->voff = voff;
	p->len = len;
}

int raid_plan_split(struct raid_array *a, unsigned *rr, enum raid_op op, uint64_t off, uint64_t len,
		    void (*emit)(void *ctx, const struct raid_extent *e), void *ctx,
		    uint64_t *lost_off, bool *degraded)
{
	struct raid_extent pend[RAID_MAX_MEMBERS];
	struct raid_loc locs[RAID_MAX_COPIES];
	uint64_t pos = off, end = off + len;
	int ret = 0;

	for (int i = 0; i < a->geom.n; i++)
		pend[i].len = 0;
	*degraded = false;
	while (pos < end) {
		uint64_t seg;
		int n = a->ops->map(&a->geom, pos, locs, &seg);
		uint64_t l = seg < end - pos ? seg : end - pos;
		int alive = 0;

		for (int i = 0; i < n; i++)
			alive += !raid_member_failed(a, locs[i].member);
		if (alive < n)
			*degraded = true;
		if (!alive) {
			*lost_off = pos;
			ret = -EIO;
			break;
		}
		if (op == RAID_OP_READ) {
			add_extent(pend, &locs[pick_copy(a, rr, locs, n)], pos, l, emit, ctx);
		} else {
			for (int i = 0; i < n; i++)
				if (raid_member_takes_write(a, locs[i].member, locs[i].offset))
					add_extent(pend, &locs[i], pos, l, emit, ctx);
		}
		pos += l;
	}
	for (int i = 0; i < a->geom.n; i++)
		if (pend[i].len)
			emit(ctx, &pend[i]);
	return ret;
}

struct plan_ctx {
	struct raid_queue *q;
	struct raid_request *r;
};

static void issue_extent(void *arg, const struct raid_extent *e)
{
	struct plan_ctx *c = arg;
	struct member_io *mio = raid_mio_get(c->q);

	mio->op = c->r->op;
	mio->member = e->member;
	mio->offset = e->moff;
	mio->len = e->len;
	mio->buf = (char *)c->r->buf + (e->voff - c->r->offset);
	raid_mio_issue(c->q, c->r, mio);
}

static void say_lost(struct raid_array *a, uint64_t voff)
{
	struct raid_loc locs[RAID_MAX_COPIES];
	char names[RAID_ERRLEN] = "";
	uint64_t seg;
	int n = a->ops->map(&a->geom, voff, locs, &seg);
	size_t used = 0;

	pthread_mutex_lock(&a->lock);
	if (!a->said_lost) {
		a->said_lost = true;
		for (int i = 0; i < n && used < sizeof(names); i++)
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%d (%s)",
						 i ? ", " : "", locs[i].member,
						 a->m[locs[i].member].path);
		raid_log("raid: I/O at volume offset %" PRIu64
			 " failed with EIO: every copy is on a failed member: %s",
			 voff, names);
	}
	pthread_mutex_unlock(&a->lock);
}

int raid_plan_start(struct raid_queue *q, struct raid_request *r)
{
	struct plan_ctx c = {q, r};
	uint64_t lost;
	bool degraded;
	int ret = raid_plan_split(q->a, &q->rr, r->op, r->offset, r->length, issue_extent, &c,
				  &lost, &degraded);

	if (degraded && r->op == RAID_OP_READ)
		q->c.degraded_reads++;
	if (ret == -EIO)
		say_lost(q->a, lost);
	return ret;
}
