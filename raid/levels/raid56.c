/*
 * raid56.c - what RAID5 and RAID6 share (raid5.c and raid6.c hold their personalities): a
 * request is split at stripe boundaries into stripe ops, each a small state machine
 *
 *   lock the stripe -> read what the write strategy needs -> parity (inline or on a worker)
 *   -> write data and parity -> unlock
 *
 * Strategies, chosen per stripe once its lock is held (the failed set may have changed):
 * full stripe (no reads), reconstruct-write (RCW: read the data not being written),
 * read-modify-write (RMW: read the old data being replaced and the parity), by the fewer
 * member reads like md's rmw_level=1, or forced by raid_rmw; and, when a missing member's
 * old data is needed, reconstruct (read every survivor, recover, then RCW).
 *
 * A stripe op's member I/Os belong to its own sub-request (struct sop.sub), so the core's
 * completion path drives each stripe op separately; the user's request counts its stripe
 * ops and its direct reads in `pending` and completes when both are done.
 *
 * Reads of surviving chunks go straight to the members without a lock: data is written in
 * place and never rewritten by another stripe's write, so a reader sees old or new data.
 * Reads that reconstruct a missing chunk hold the stripe lock, since they combine data and
 * parity that a write updates in two steps.
 *
 * The parity step itself (what each strategy computes, and where) is raid56_parity.c's.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "raid56_op.h"

#define SECTOR 512

/* ---- stripe-op pool (per queue: only its thread takes and returns ops) ---- */

static struct sop *sop_get(struct raid_queue *q)
{
	struct r56_queue *rq = q->level_priv;
	struct sop *s = rq->free;

	if (s) {
		rq->free = s->next_free;
	} else {
		s = calloc(1, sizeof(*s));
		if (!s)
			return NULL;
	}
	s->q = q;
	s->locked = false;
	s->pns = s->pbytes = 0;
	s->sub = (struct raid_request){.level_priv = s};
	return s;
}

static void sop_put(struct raid_queue *q, struct sop *s)
{
	struct r56_queue *rq = q->level_priv;

	if (s->cap > SCRATCH_KEEP) {
		parity_path_free(R(q->a)->pp, s->scratch);
		s->scratch = NULL;
		s->cap = 0;
	}
	s->next_free = rq->free;
	rq->free = s;
}

static int sop_scratch(struct sop *s, size_t len)
{
	if (len <= s->cap)
		return 0;
	parity_path_free(R(s->q->a)->pp, s->scratch);
	s->cap = 0;
	s->scratch = parity_path_alloc(R(s->q->a)->pp, len); /* pinned for a GPU */
	if (!s->scratch)
		return -ENOMEM;
	s->cap = len;
	return 0;
}

void raid56_queue_exit(struct raid_queue *q)
{
	struct r56_queue *rq = q->level_priv;

	if (!rq)
		return;
	while (rq->free) {
		struct sop *s = rq->free;

		rq->free = s->next_free;
		parity_path_free(R(q->a)->pp, s->scratch);
		free(s);
	}
	raid56_gpu_batch_free(&rq->gb);
	free(rq);
	q->level_priv = NULL;
}

static void mio(struct sop *s, enum raid_op op, int member, uint64_t col, uint64_t len, void *buf)
{
	struct raid_queue *q = s->q;
	struct member_io *m = raid_mio_get(q);

	m->op = op;
	m->member = member;
	m->offset = s->stripe * q->a->geom.chunk + col;
	m->len = len;
	m->buf = buf;
	raid_mio_issue(q, &s->sub, m);
}

static void say_lost(struct raid_array *a, uint64_t stripe, uint64_t failed)
{
	pthread_mutex_lock(&a->lock);
	if (!a->said_lost) {
		a->said_lost = true;
		raid_log("raid: I/O in stripe %" PRIu64 " failed with EIO: %d members are failed, "
			 "more than raid_level=%d survives",
			 stripe, __builtin_popcountll(failed), a->cfg.level);
	}
	pthread_mutex_unlock(&a->lock);
}

static uint64_t failed_now(const struct raid_array *a)
{
	uint64_t f = 0;

	for (int i = 0; i < a->geom.n; i++)
		if (raid_member_failed(a, i))
			f |= 1ULL << i;
	return f;
}

/* ---- the state machine ---- */

void raid56_sop_finish(struct sop *s)
{
	struct raid_queue *q = s->q;
	struct raid_request *p = s->parent;

	if (s->locked)
		stripe_unlock(R(q->a)->locks, s->w.stripe);
	if (s->sub.error && !p->error)
		p->error = s->sub.error;
	q->c.parity_ns += s->pns;
	q->c.parity_bytes += s->pbytes;
	sop_put(q, s);
	if (!--p->pending)
		raid_request_finish(q, p); /* the core retries it when a member failed */
}

void raid56_sop_write(struct sop *s)
{
	int pd = s->map.pd, qd = s->map.qd;

	s->stage = S_WRITE;
	if (s->sub.error || s->mode == M_DREAD) {
		raid56_sop_finish(s);
		return;
	}
	s->sub.pending++; /* no completion may end the op while it is still issuing */
	for (int i = 0; i < s->map.k; i++) {
		int m = s->map.data[i];

		if (written(s, i) && !mfailed(s, m))
			mio(s, RAID_OP_WRITE, m, s->wa[i], s->wb[i] - s->wa[i],
			    ubuf(s, i, s->wa[i]));
	}
	if (s->mode != M_NOPARITY) {
		if (!mfailed(s, pd))
			mio(s, RAID_OP_WRITE, pd, s->lo, s->hi - s->lo, s->mb[pd]);
		if (qd >= 0 && !mfailed(s, qd))
			mio(s, RAID_OP_WRITE, qd, s->lo, s->hi - s->lo, s->mb[qd]);
	}
	if (!--s->sub.pending)
		raid56_sop_finish(s);
}
/* Lay the scratch buffer out for the mode: mb[] per member, old[] per written chunk. */
static int sop_buffers(struct sop *s)
{
	const struct raid_geom *g = &s->q->a->geom;
	size_t L = s->hi - s->lo, need = (size_t)g->n * L, off = 0;
	int k = s->map.k;

	if (s->mode == M_RMW)
		for (int i = 0; i < k; i++)
			need += s->wb[i] - s->wa[i];
	if (sop_scratch(s, need))
		return -ENOMEM;
	for (int m = 0; m < g->n; m++) {
		s->mb[m] = s->scratch + off;
		off += L;
	}
	/*
	 * Parity straight from the caller's buffer; for a GPU only where the caller registered
	 * it (raid_queue_register_buffers: pinned in place), else from a pinned copy.
	 */
	if (s->mode == M_FULL || s->mode == M_RCW) {
		struct parity_path *pp = R(s->q->a)->pp;
		bool gpu = parity_path_gpu(pp), inplace = false;

		/* one lookup for the caller's whole buffer, not one per chunk */
		if (!gpu || parity_path_pinned(pp, s->parent->buf, s->parent->length))
			for (int i = 0; i < k; i++)
				if (fully_written(s, i)) {
					s->mb[s->map.data[i]] = ubuf(s, i, s->lo);
					inplace = true;
				}
		if (gpu && inplace)
			s->q->c.gpu_inplace_stripes++;
	}
	if (s->mode == M_RMW)
		for (int i = 0; i < k; i++) {
			s->old[i] = s->scratch + off;
			off += s->wb[i] - s->wa[i];
		}
	return 0;
}

static enum sop_mode choose(struct sop *s, struct raid_queue *q)
{
	const struct r56_array *r = R(q->a);
	int k = s->map.k, rcw_reads = 0, rmw_reads = 0, alive_par = 0;
	bool rcw_ok = true, rmw_ok = true;

	alive_par += !mfailed(s, s->map.pd);
	alive_par += s->map.qd >= 0 && !mfailed(s, s->map.qd);
	if (!mwrite(s, s->map.pd) && !mwrite(s, s->map.qd))
		return M_NOPARITY; /* nothing to keep consistent: md writes the data alone */
	/* a parity being rebuilt cannot be read for RMW, yet must be written whole */
	if ((s->spare >> s->map.pd & 1) || (s->map.qd >= 0 && (s->spare >> s->map.qd & 1)))
		rmw_ok = false;
	for (int i = 0; i < k; i++) {
		bool dead = mfailed(s, s->map.data[i]);

		if (!fully_written(s, i)) {
			if (dead)
				rcw_ok = false;
			rcw_reads += !written(s, i) ? 1 : (s->wa[i] > s->lo) + (s->wb[i] < s->hi);
		}
		if (written(s, i)) {
			if (dead)
				rmw_ok = false;
			rmw_reads++;
		}
	}
	rmw_reads += alive_par;
	if (rcw_ok && !rcw_reads)
		return M_FULL;
	if (rmw_ok && (r->rmw == RAID_RMW_RMW || !rcw_ok ||
		       (r->rmw == RAID_RMW_AUTO && rmw_reads < rcw_reads)))
		return M_RMW;
	if (rcw_ok)
		return M_RCW;
	return M_RECON;
}

static void sop_read(struct sop *s)
{
	struct raid_queue *q = s->q;
	const struct raid_geom *g = &q->a->geom;
	int k = s->map.k;

	s->failed = failed_now(q->a);
	s->spare = 0;
	for (int m = 0; m < g->n; m++)
		if ((s->failed >> m & 1) &&
		    raid_member_takes_write(q->a, m, s->stripe * g->chunk + s->hi - 1))
			s->spare |= 1ULL << m;
	if (__builtin_popcountll(s->failed) > R(q->a)->par) {
		say_lost(q->a, s->stripe, s->failed);
		s->sub.error = -EIO;
		raid56_sop_finish(s);
		return;
	}
	if (s->op == RAID_OP_WRITE) {
		s->mode = choose(s, q);
		if (s->mode == M_FULL)
			q->c.full_stripe++;
		else if (s->mode == M_RMW)
			q->c.rmw++;
		else
			q->c.rcw++;
	}
	if (sop_buffers(s)) {
		s->sub.error = -ENOMEM;
		raid56_sop_finish(s);
		return;
	}
	s->stage = S_READ;
	s->sub.pending++;
	switch (s->mode) {
	case M_RCW:
		for (int i = 0; i < k; i++) {
			int m = s->map.data[i];

			if (fully_written(s, i))
				continue;
			if (!written(s, i)) {
				mio(s, RAID_OP_READ, m, s->lo, s->hi - s->lo, s->mb[m]);
				continue;
			}
			if (s->wa[i] > s->lo)
				mio(s, RAID_OP_READ, m, s->lo, s->wa[i] - s->lo, s->mb[m]);
			if (s->wb[i] < s->hi)
				mio(s, RAID_OP_READ, m, s->wb[i], s->hi - s->wb[i],
				    s->mb[m] + (s->wb[i] - s->lo));
		}
		break;
	case M_RMW:
		for (int i = 0; i < k; i++)
			if (written(s, i))
				mio(s, RAID_OP_READ, s->map.data[i], s->wa[i], s->wb[i] - s->wa[i],
				    s->old[i]);
		for (int m = 0; m < g->n; m++)
			if ((m == s->map.pd || m == s->map.qd) && !mfailed(s, m))
				mio(s, RAID_OP_READ, m, s->lo, s->hi - s->lo, s->mb[m]);
		break;
	case M_RECON:
	case M_DREAD:
		for (int m = 0; m < g->n; m++)
			if (!mfailed(s, m))
				mio(s, RAID_OP_READ, m, s->lo, s->hi - s->lo, s->mb[m]);
		break;
	default:
		break;
	}
	if (!--s->sub.pending)
		raid56_sop_compute(s);
}

static void locked_post(struct raid_queue *q, struct raid_post *p)
{
	sop_read((struct sop *)((char *)p - offsetof(struct sop, job.post)));
}

static void granted(struct stripe_waiter *w)
{
	struct sop *s = (struct sop *)((char *)w - offsetof(struct sop, w));

	s->locked = true;
	s->job.post.fn = locked_post;
	raid_queue_post(s->q, &s->job.post);
}

/*
 * What a stripe op locks: its stripe's column slice (stripe ops never span two), like md's
 * stripe heads, which are a stripe's 4 KiB page of columns. Parity is column-wise, so ops on
 * different slices of one stripe touch disjoint bytes on every member and run at once: the
 * slices of a large write reach the same commit, where their member I/Os merge.
 */
static uint64_t lock_key(const struct sop *s)
{
	uint64_t chunk = s->q->a->geom.chunk, per = chunk > SLICE ? chunk / SLICE : 1;

	return s->stripe * per + s->lo / SLICE;
}

static void sop_start(struct sop *s)
{
	struct raid_queue *q = s->q;

	s->stage = S_LOCK;
	s->w.stripe = lock_key(s);
	s->w.granted = granted;
	if (!stripe_lock(R(q->a)->locks, &s->w)) {
		q->c.stripe_lock_waits++;
		return;
	}
	s->locked = true;
	sop_read(s);
}

int raid56_advance(struct raid_queue *q, struct raid_request *r)
{
	struct sop *s = r->level_priv;

	if (!s) {
		/* the user's request: its direct reads are done, and no stripe op is left */
		raid_request_finish(q, r); /* the core retries it when a member failed */
		return 0;
	}
	if (s->stage == S_READ)
		raid56_sop_compute(s);
	else
		raid56_sop_finish(s);
	return 0;
}

/* One stripe's piece [voff, voff+len) of request r. */
static int piece(struct raid_queue *q, struct raid_request *r, uint64_t stripe, uint64_t voff,
		 uint64_t len, bool *degraded)
{
	struct raid_array *a = q->a;
	const struct raid_geom *g = &a->geom;
	uint64_t base = stripe * stripe_width(g, R(a)->par), lo = UINT64_MAX, hi = 0;
	struct raid56_stripe map;
	bool need_sop = r->op == RAID_OP_WRITE;

	raid56_stripe_map(g, stripe, &map);
	uint64_t wa[RAID56_MAX_MEMBERS], wb[RAID56_MAX_MEMBERS];

	for (int i = 0; i < map.k; i++) {
		uint64_t cs = base + (uint64_t)i * g->chunk, ce = cs + g->chunk;
		uint64_t x = voff > cs ? voff : cs, y = voff + len < ce ? voff + len : ce;

		wa[i] = wb[i] = 0;
		if (x >= y)
			continue;
		if (r->op == RAID_OP_READ && !raid_member_failed(a, map.data[i])) {
			struct member_io *m = raid_mio_get(q);

			m->op = RAID_OP_READ;
			m->member = map.data[i];
			m->offset = stripe * g->chunk + (x - cs);
			m->len = y - x;
			m->buf = (uint8_t *)r->buf + (x - r->offset);
			raid_mio_issue(q, r, m);
			continue;
		}
		wa[i] = x - cs;
		wb[i] = y - cs;
		lo = wa[i] < lo ? wa[i] : lo;
		hi = wb[i] > hi ? wb[i] : hi;
		need_sop = true;
	}
	if (!need_sop)
		return 0;
	if (r->op == RAID_OP_READ)
		*degraded = true;
	/*
	 * Parity is column-wise, so wide column ranges are cut into slices, each its own
	 * operation: scratch stays bounded (n x SLICE) and each slice picks its own strategy.
	 */
	for (uint64_t c = lo & ~(SLICE - 1); c < hi; c += SLICE) {
		uint64_t slo = c > lo ? c : lo, shi = c + SLICE < hi ? c + SLICE : hi;
		uint64_t first = UINT64_MAX, last = 0;
		struct sop *s;

		for (int i = 0; i < map.k; i++) {
			uint64_t x = wa[i] > slo ? wa[i] : slo, y = wb[i] < shi ? wb[i] : shi;

			if (x < y) {
				first = x < first ? x : first;
				last = y > last ? y : last;
			}
		}
		if (first >= last)
			continue; /* a gap between the two ends of a wrapping piece */
		s = sop_get(q);
		if (!s)
			return -ENOMEM;
		s->parent = r;
		s->op = r->op;
		s->mode = M_DREAD;
		s->stripe = stripe;
		s->map = map;
		s->lo = first;
		s->hi = last;
		for (int i = 0; i < map.k; i++) {
			uint64_t x = wa[i] > first ? wa[i] : first, y = wb[i] < last ? wb[i] : last;

			s->wa[i] = x < y ? x : 0;
			s->wb[i] = x < y ? y : 0;
		}
		r->pending++;
		sop_start(s);
	}
	return 0;
}

int raid56_start(struct raid_queue *q, struct raid_request *r)
{
	struct raid_array *a = q->a;
	uint64_t W = stripe_width(&a->geom, R(a)->par), pos = r->offset,
		 end = r->offset + r->length;
	bool degraded = false;
	int ret = 0;

	/* md takes whole sectors; parity kernels need lengths in 64-byte units */
	if ((r->offset | r->length) % SECTOR) {
		if (!atomic_exchange(&R(a)->said_unaligned, true))
			raid_log("raid: raid_level=%d: I/O must be whole %d-byte sectors (offset "
				 "%" PRIu64 ", length %" PRIu64 ")",
				 a->geom.level, SECTOR, r->offset, r->length);
		return -EINVAL;
	}
	if (!q->level_priv) {
		q->level_priv = calloc(1, sizeof(struct r56_queue));
		if (!q->level_priv)
			return -ENOMEM;
	}
	/* held until every piece is issued, so no early completion finishes r */
	r->pending++;
	while (pos < end && !ret) {
		uint64_t s = pos / W, e = (s + 1) * W < end ? (s + 1) * W : end;

		ret = piece(q, r, s, pos, e - pos, &degraded);
		pos = e;
	}
	if (degraded)
		q->c.degraded_reads++;
	if (ret && !r->error)
		r->error = ret;
	if (!--r->pending)
		raid_request_finish(q, r); /* the core retries it when a member failed */
	return 0;
}

int raid56_map(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg)
{
	int par = raid56_parity(g);
	uint64_t W = stripe_width(g, par), stripe = off / W, in = off % W;
	struct raid56_stripe map;

	raid56_stripe_map(g, stripe, &map);
	locs[0].member = map.data[in / g->chunk];
	locs[0].offset = stripe * g->chunk + in % g->chunk;
	*seg = raid_chunk_left(g, off);
	return 1;
}

uint64_t raid56_size(const struct raid_geom *g)
{
	return raid56_volume_size(g);
}

int raid56_array_init(struct raid_array *a, char *err, size_t errlen)
{
	struct r56_array *r = calloc(1, sizeof(*r));
	int ret;

	if (!r)
		return -ENOMEM;
	r->par = a->ops->parity;
	r->rmw = level_opts(&a->cfg)->rmw;
	/* >= 1: the option table */
	ret = stripe_table_create(level_opts(&a->cfg)->stripe_cache, &r->locks);
	if (ret) {
		free(r);
		return ret;
	}
	ret = parity_path_create(&a->cfg, a->geom.n - r->par, SLICE, &r->pp, err, errlen);
	if (ret) {
		stripe_table_destroy(r->locks);
		free(r);
		return ret;
	}
	r->pq = parity_path_calls(r->pp);
	a->parity_impl = r->pq->name;
	a->parity_used = parity_path_used(r->pp);
	a->parity_note = parity_path_note(r->pp);
	if (parity_path_gpu_info(r->pp, &r->gpu.device, &r->gpu.mapped, r->gpu.desc,
				 sizeof(r->gpu.desc))) {
		r->gpu.batch = parity_path_gpu_batch(r->pp);
		a->gpu = &r->gpu;
	}
	a->level_priv = r;
	return 0;
}

int raid56_buf_register(struct raid_array *a, void *buf, size_t len)
{
	return parity_path_register(R(a)->pp, buf, len);
}

void raid56_buf_unregister(struct raid_array *a, void *buf)
{
	parity_path_unregister(R(a)->pp, buf);
}

const struct pq_calls *raid56_calls(const struct raid_array *a)
{
	return R(a)->pq;
}

void raid56_array_exit(struct raid_array *a)
{
	struct r56_array *r = a->level_priv;

	a->gpu = NULL;
	a->parity_note = NULL;
	parity_path_destroy(r->pp);
	stripe_table_destroy(r->locks);
	free(r);
	a->level_priv = NULL;
}
