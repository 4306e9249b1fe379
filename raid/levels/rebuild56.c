/*
 * rebuild56.c - the recovery hooks of RAID5 and RAID6 (level.h: span, rows_recover,
 * rows_check), on md's stripe geometry (layout.c, raid56_stripe_map) and the parity
 * library (pq.h): rebuild one or two lost members of a window of stripe rows, and check
 * or rewrite P and Q for scrub and resync.
 */
#include <stdlib.h>
#include <stdbool.h>
#include <string.h>

#include "parity/pq.h"
#include "raid56.h"
#include "rebuild56.h"

/* Stripe rows [moff, moff + len) hold whole stripes: k data chunks each. */
void raid56_rec_span(const struct raid_geom *g, uint64_t moff, uint64_t len, uint64_t *voff,
		     uint64_t *vlen)
{
	uint64_t k = (uint64_t)(g->n - raid56_parity(g)), c = g->chunk;
	uint64_t r0 = moff / c, r1 = (moff + len + c - 1) / c;

	*voff = r0 * k * c;
	*vlen = (r1 - r0) * k * c;
}

/* The data and parity pointers of one stripe row, in pq.h's order. */
/*
 * A row's pointers: k data, P, then Q or NULL; k + 2 entries, and a RAID5 of 64 members has
 * 63 data chunks a row, one more than PQ_MAX_DATA (RAID6's most): sized by the members (a
 * scrub of such a RAID5 wrote past the array and crashed).
 */
#define ROW_PTRS (RAID56_MAX_MEMBERS + 1)

static void row_ptrs(const struct raid_geom *g, uint64_t row, uint64_t at, void **bufs, void **ptrs,
		     struct raid56_stripe *s)
{
	raid56_stripe_map(g, row, s);
	for (int i = 0; i < s->k; i++)
		ptrs[s->slot[i]] = (char *)bufs[s->data[i]] + at;
	ptrs[s->k] = (char *)bufs[s->pd] + at;
	ptrs[s->k + 1] = s->qd >= 0 ? (char *)bufs[s->qd] + at : NULL;
}

/*
 * The one stripe operation that rebuilds this row's lost set, for the GPU or, through
 * pq_gpu_stripe_on_cpu(), the CPU; false when nothing in the row is lost.
 */
static bool row_op(const struct raid56_stripe *s, uint64_t lost, struct pq_gpu_stripe *g)
{
	bool p = lost >> s->pd & 1, q = s->qd >= 0 && (lost >> s->qd & 1);
	int d[2], nd = 0;

	for (int i = 0; i < s->k; i++)
		if (lost >> s->data[i] & 1 && nd < 2)
			d[nd++] = s->slot[i];
	if (nd == 2 && d[0] > d[1]) {
		int t = d[0];

		d[0] = d[1];
		d[1] = t;
	}
	g->k = s->k;
	g->a = nd ? d[0] : 0;
	g->b = nd == 2 ? d[1] : g->a;
	if (nd == 2)
		g->op = PQ_GPU_RECOV_2D;
	else if (nd == 1)
		g->op = p ? PQ_GPU_RECOV_DP : q ? PQ_GPU_RECOV_DQ : PQ_GPU_RECOV_1D_P;
	else if (q)
		g->op = PQ_GPU_GEN_PQ;
	else if (p)
		g->op = PQ_GPU_GEN_P;
	else
		return false;
	return true;
}

/*
 * The window on the GPU, when the array computes parity there and the window's buffers are
 * pinned (rebuild.c registers them): one GPU stripe per row and 64 KiB column slice. False:
 * the CPU does it (it recomputes everything, which is idempotent).
 */
static bool rows_recover_gpu(struct raid_array *a, uint64_t moff, uint64_t len, uint64_t lost,
			     void **bufs)
{
	const struct raid_geom *g = &a->geom;
	size_t c = g->chunk, piece = c < RAID56_SLICE ? c : RAID56_SLICE;
	size_t per = c / piece, n = len / c * per, k = 0;
	struct pq_gpu_stripe *st;
	void **ptrs;
	bool ok;

	for (int m = 0; m < g->n; m++)
		if (!a->gpu || !bufs[m] || !raid56_gpu_pinned(a, bufs[m], len))
			return false;
	st = calloc(n ? n : 1, sizeof(*st));
	ptrs = calloc((n ? n : 1) * ROW_PTRS, sizeof(*ptrs));
	ok = st && ptrs;
	for (uint64_t at = 0; ok && at < len; at += c) {
		void *row[ROW_PTRS];
		struct raid56_stripe s;
		struct pq_gpu_stripe op;

		row_ptrs(g, (moff + at) / c, at, bufs, row, &s);
		if (!row_op(&s, lost, &op))
			continue;
		for (size_t j = 0; j < per; j++, k++) {
			void **p = ptrs + k * ROW_PTRS;

			for (int i = 0; i < s.k + 2; i++)
				p[i] = row[i] ? (char *)row[i] + j * piece : NULL;
			st[k] = op;
			st[k].len = piece;
			st[k].ptrs = p;
		}
	}
	ok = ok && (!k || raid56_gpu_run(a, st, (int)k));
	free(st);
	free(ptrs);
	return ok;
}

void raid56_rec_rows_recover(struct raid_array *a, uint64_t moff, uint64_t len, uint64_t lost,
			     void **bufs)
{
	const struct raid_geom *g = &a->geom;
	/*
	 * Cold inputs (just read from the members) and outputs only a spare's DMA will read:
	 * the streaming twin of the array's variant stores around the caches (docs/parity.md).
	 */
	const struct pq_calls *pq = pq_streaming(raid56_calls(a));
	size_t c = g->chunk;

	if (rows_recover_gpu(a, moff, len, lost, bufs))
		return;
	for (uint64_t at = 0; at < len; at += c) {
		void *ptrs[ROW_PTRS];
		struct raid56_stripe s;
		struct pq_gpu_stripe op;

		row_ptrs(g, (moff + at) / c, at, bufs, ptrs, &s);
		if (!row_op(&s, lost, &op))
			continue;
		op.len = c;
		op.ptrs = ptrs;
		pq_gpu_stripe_on_cpu(pq, &op);
	}
}

uint64_t raid56_rec_rows_check(struct raid_array *a, uint64_t moff, uint64_t len, void **bufs,
			       bool fix, uint64_t *rewrite)
{
	const struct raid_geom *g = &a->geom;
	const struct pq_calls *pq = raid56_calls(a); /* compared at once: ordinary stores */
	size_t c = g->chunk;
	uint64_t bad = 0;
	void *scratch = NULL;

	if (posix_memalign(&scratch, 4096, 2 * c)) /* page-aligned, for the SIMD parity */
		return RAID_ROWS_NOMEM;
	for (uint64_t at = 0; at < len; at += c) {
		void *ptrs[ROW_PTRS];
		struct raid56_stripe s;
		bool wrong;

		row_ptrs(g, (moff + at) / c, at, bufs, ptrs, &s);
		ptrs[s.k] = scratch;
		if (s.qd >= 0) {
			ptrs[s.k + 1] = scratch + c;
			pq->gen_pq(s.k, c, ptrs);
		} else {
			pq->gen_p(s.k, c, ptrs);
		}
		wrong = memcmp(scratch, (char *)bufs[s.pd] + at, c) ||
			(s.qd >= 0 && memcmp(scratch + c, (char *)bufs[s.qd] + at, c));
		if (!wrong)
			continue;
		bad++;
		if (fix) {
			memcpy((char *)bufs[s.pd] + at, scratch, c);
			*rewrite |= 1ULL << s.pd;
			if (s.qd >= 0) {
				memcpy((char *)bufs[s.qd] + at, scratch + c, c);
				*rewrite |= 1ULL << s.qd;
			}
		}
	}
	free(scratch);
	return bad;
}
