/*
 * raid56_parity.c - the parity step of a RAID5/6 stripe operation: which pq.h calls each
 * strategy makes (generation, read-modify-write, recovery), run inline or on a parity
 * worker (parity_path.c), or gathered into a per-queue batch that goes to the GPU as one
 * launch (raid_parity=cuda; raid_gpu_batch stripes at most).
 */
#include <errno.h>
#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "raid56_op.h"

/* Pointers in pq.h order: data by syndrome slot, then P, then Q. */
static void pq_ptrs(const struct sop *s, void **ptrs)
{
	int k = s->map.k;

	for (int i = 0; i < k; i++)
		ptrs[s->map.slot[i]] = s->mb[s->map.data[i]];
	ptrs[k] = s->mb[s->map.pd];
	ptrs[k + 1] = s->map.qd >= 0 ? s->mb[s->map.qd] : NULL;
}

/* The syndrome slots of the failed data chunks, ascending (at most 2); how many. */
static int lost_slots(const struct sop *s, int fd[2])
{
	int nd = 0;

	for (int i = 0; i < s->map.k; i++)
		if (mfailed(s, s->map.data[i]) && nd < 2)
			fd[nd++] = s->map.slot[i];
	if (nd == 2 && fd[0] > fd[1]) {
		int t = fd[0];

		fd[0] = fd[1];
		fd[1] = t;
	}
	return nd;
}

/*
 * The recovery of the failed data chunks' columns lo..hi from the survivors read into mb[],
 * as one stripe operation (for the GPU, or the CPU below); false when no data chunk failed.
 */
static bool recov_op(const struct sop *s, struct pq_gpu_stripe *st, void **ptrs)
{
	int fd[2], nd = lost_slots(s, fd);

	if (!nd)
		return false;
	pq_ptrs(s, ptrs);
	*st = (struct pq_gpu_stripe){.op = nd == 2		    ? PQ_GPU_RECOV_2D
					   : !mfailed(s, s->map.pd) ? PQ_GPU_RECOV_1D_P
								    : PQ_GPU_RECOV_DP,
				     .k = s->map.k,
				     .a = fd[0],
				     .b = nd == 2 ? fd[1] : fd[0],
				     .len = s->hi - s->lo,
				     .ptrs = ptrs};
	return true;
}

static void recover(struct sop *s, const struct pq_calls *pq)
{
	void *ptrs[RAID56_MAX_MEMBERS + 2];
	struct pq_gpu_stripe st;

	if (!recov_op(s, &st, ptrs))
		return;
	pq_gpu_stripe_on_cpu(pq, &st);
	s->pbytes += (uint64_t)s->map.k * st.len;
}

/*
 * A degraded read: the wanted columns of the chunks it was planned for go to the caller's
 * buffer, all of them. A member failed when the request was planned may be back by now (a
 * rebuild ended while the op waited for its stripe lock): its chunk was then read into mb
 * like any live member's, not rebuilt, and must be handed over all the same.
 */
static void dread_out(struct sop *s)
{
	for (int i = 0; i < s->map.k; i++)
		if (written(s, i))
			memcpy(ubuf(s, i, s->wa[i]), s->mb[s->map.data[i]] + (s->wa[i] - s->lo),
			       s->wb[i] - s->wa[i]);
}

static void gen(struct sop *s, const struct pq_calls *pq)
{
	void *ptrs[RAID56_MAX_MEMBERS + 2];
	size_t len = s->hi - s->lo;

	pq_ptrs(s, ptrs);
	if (s->map.qd >= 0)
		pq->gen_pq(s->map.k, len, ptrs);
	else
		pq->gen_p(s->map.k, len, ptrs);
	s->pbytes += (uint64_t)s->map.k * len;
}

/* The written columns of every partly covered chunk, over the bytes read for it. */
static void overlay(struct sop *s)
{
	for (int i = 0; i < s->map.k; i++) {
		uint8_t *d = s->mb[s->map.data[i]];

		if (written(s, i) && d != ubuf(s, i, s->lo))
			memcpy(d + (s->wa[i] - s->lo), ubuf(s, i, s->wa[i]), s->wb[i] - s->wa[i]);
	}
}

/* RMW, first half: old ^= new, the change of each written chunk (always on the CPU). */
static void rmw_delta(struct sop *s, const struct pq_calls *pq)
{
	for (int i = 0; i < s->map.k; i++) {
		void *d[2] = {ubuf(s, i, s->wa[i]), s->old[i]};

		if (written(s, i))
			pq->xor_p(1, 0, 0, s->wb[i] - s->wa[i], d);
	}
}

/* The pq.h stripe that folds written chunk i's change into P (and Q). */
static void rmw_ptrs(const struct sop *s, int i, void **ptrs)
{
	size_t off = s->wa[i] - s->lo;

	memset(ptrs, 0, sizeof(void *) * (size_t)(s->map.k + 2));
	ptrs[s->map.slot[i]] = s->old[i];
	ptrs[s->map.k] = s->mb[s->map.pd] + off;
	if (s->map.qd >= 0)
		ptrs[s->map.k + 1] = s->mb[s->map.qd] + off;
}

/* RMW, second half: P ^= change, Q ^= g^slot change (md's xor_syndrome). */
static void rmw_fold(struct sop *s, const struct pq_calls *pq)
{
	int k = s->map.k;

	for (int i = 0; i < k; i++) {
		size_t len = s->wb[i] - s->wa[i];
		void *ptrs[RAID56_MAX_MEMBERS + 2];

		if (!len)
			continue;
		rmw_ptrs(s, i, ptrs);
		if (s->map.qd >= 0)
			pq->xor_pq(k, s->map.slot[i], s->map.slot[i], len, ptrs);
		else
			pq->xor_p(k, s->map.slot[i], s->map.slot[i], len, ptrs);
		s->pbytes += 2 * len;
	}
}

/* The parity step: runs inline or on a parity worker, touching only this op's buffers. */
static void sop_parity(struct parity_job *j)
{
	struct sop *s = (struct sop *)((char *)j - offsetof(struct sop, job));
	const struct pq_calls *pq = R(s->q->a)->pq;
	uint64_t t0 = now_ns();

	switch (s->mode) {
	case M_DREAD:
		recover(s, pq);
		dread_out(s);
		break;
	case M_RECON:
		recover(s, pq);
		/* fall through */
	case M_FULL:
	case M_RCW:
		overlay(s);
		gen(s, pq);
		break;
	case M_RMW:
		rmw_delta(s, pq);
		rmw_fold(s, pq);
		break;
	case M_NOPARITY:
		break;
	}
	s->pns += now_ns() - t0;
}

static void parity_done_post(struct raid_queue *q, struct raid_post *p)
{
	struct sop *s = (struct sop *)((char *)p - offsetof(struct sop, job.post));

	raid56_sop_write(s);
}

/*
 * The GPU's share of an operation: generation (also of a degraded write that reconstructed
 * its missing old data first, M_RECON: that recovery, a rare step before the generation, is
 * done on the CPU while the op is prepared, rather than as a second dependent launch), the RMW
 * of a single changed chunk, or the recovery of a degraded read.
 */
static int gpu_stripe(struct sop *s, struct pq_gpu_stripe *st, void **ptrs)
{
	int k = s->map.k, changed = -1;

	if (s->mode == M_DREAD)
		return recov_op(s, st, ptrs) ? 0 : -1;

	if (s->mode == M_FULL || s->mode == M_RCW || s->mode == M_RECON) {
		pq_ptrs(s, ptrs);
		*st = (struct pq_gpu_stripe){.op = s->map.qd >= 0 ? PQ_GPU_GEN_PQ : PQ_GPU_GEN_P,
					     .k = k,
					     .len = s->hi - s->lo,
					     .ptrs = ptrs};
		return 0;
	}
	if (s->mode != M_RMW)
		return -1;
	for (int i = 0; i < k; i++) {
		if (!written(s, i))
			continue;
		if (changed >= 0)
			return -1; /* folds of several chunks may touch the same parity bytes */
		changed = i;
	}
	rmw_ptrs(s, changed, ptrs);
	*st = (struct pq_gpu_stripe){.op = s->map.qd >= 0 ? PQ_GPU_XOR_PQ : PQ_GPU_XOR_P,
				     .k = k,
				     .a = s->map.slot[changed],
				     .b = s->map.slot[changed],
				     .len = s->wb[changed] - s->wa[changed],
				     .ptrs = ptrs};
	return 0;
}

/* What the GPU was given, on the CPU: when it is busy, or failed the launch. */
static void gpu_kernels_on_cpu(struct sop *s)
{
	const struct pq_calls *pq = R(s->q->a)->pq;
	uint64_t t0 = now_ns();

	if (s->mode == M_RMW)
		rmw_fold(s, pq);
	else if (s->mode == M_DREAD)
		recover(s, pq);
	else
		gen(s, pq);
	s->pns += now_ns() - t0;
}

/* After the parity (GPU or CPU): a degraded read hands its rebuilt bytes over; then write. */
static void gpu_finish(struct sop *s)
{
	if (s->mode == M_DREAD)
		dread_out(s);
	raid56_sop_write(s);
}

static void gpu_done_post(struct raid_queue *q, struct raid_post *p)
{
	struct sop *s = (struct sop *)((char *)p - offsetof(struct sop, job.post));

	if (s->job.status) {
		q->c.gpu_cpu_stripes++;
		gpu_kernels_on_cpu(s);
	} else if (s->mode == M_RMW) {
		for (int i = 0; i < s->map.k; i++)
			s->pbytes += 2 * (s->wb[i] - s->wa[i]);
	} else {
		s->pbytes += (uint64_t)s->map.k * (s->hi - s->lo);
	}
	gpu_finish(s);
}

static int gpu_batch_alloc(struct r56_gpu_batch *b, int cap)
{
	b->st = calloc((size_t)cap, sizeof(*b->st));
	b->ptrs = calloc((size_t)cap * (RAID56_MAX_MEMBERS + 2), sizeof(*b->ptrs));
	if (!b->st || !b->ptrs) {
		raid56_gpu_batch_free(b);
		return -ENOMEM;
	}
	b->cap = cap;
	return 0;
}

void raid56_gpu_batch_free(struct r56_gpu_batch *b)
{
	free(b->st);
	free(b->ptrs);
	*b = (struct r56_gpu_batch){0};
}

/*
 * Hand the queue's gathered stripes to the GPU as one launch. When every launch slot is busy
 * (or the launch cannot start) the CPU computes them here instead: a job thread never waits
 * for the GPU.
 */
void raid56_gpu_flush(struct raid_queue *q)
{
	struct r56_queue *rq = q->level_priv;
	struct r56_gpu_batch *b = rq ? &rq->gb : NULL;
	struct parity_job *j;
	int n;

	if (!b || !b->n)
		return;
	n = b->n;
	j = b->head;
	b->n = 0;
	b->head = b->tail = NULL;
	if (!parity_path_gpu_submit(R(q->a)->pp, j, b->st, n)) {
		q->c.gpu_launches++;
		q->c.gpu_stripes += (uint64_t)n;
		return;
	}
	q->c.gpu_cpu_stripes += (uint64_t)n;
	while (j) {
		struct sop *s = (struct sop *)((char *)j - offsetof(struct sop, job));

		j = j->next;
		gpu_kernels_on_cpu(s);
		gpu_finish(s);
	}
}

/*
 * The GPU path: the CPU prepares the pinned buffers (new data copied in, RMW's change
 * computed) and adds the op's stripe to its queue's batch, which goes to the GPU when it is
 * full or when the queue commits (raid56_gpu_flush); the launch's completion posts the ops
 * back. False: this op is not one the GPU takes.
 */
static bool gpu_compute(struct sop *s)
{
	struct raid_queue *q = s->q;
	struct r56_gpu_batch *b = &((struct r56_queue *)q->level_priv)->gb;
	const struct pq_calls *pq = R(q->a)->pq;
	uint64_t t0 = now_ns();

	if (!b->cap && gpu_batch_alloc(b, parity_path_gpu_batch(R(q->a)->pp)))
		return false;
	if (gpu_stripe(s, &b->st[b->n], b->ptrs + (size_t)b->n * (RAID56_MAX_MEMBERS + 2)))
		return false;
	if (s->mode == M_RMW)
		rmw_delta(s, pq);
	if (s->mode == M_RECON)
		recover(s, pq);
	if (s->mode != M_RMW && s->mode != M_DREAD)
		overlay(s);
	s->pns += now_ns() - t0;
	s->job.q = q;
	s->job.post.fn = gpu_done_post;
	s->job.next = NULL;
	if (b->tail)
		b->tail->next = &s->job;
	else
		b->head = &s->job;
	b->tail = &s->job;
	if (++b->n == b->cap)
		raid56_gpu_flush(q);
	return true;
}

void raid56_sop_compute(struct sop *s)
{
	s->stage = S_PARITY;
	if (s->sub.error) {
		raid56_sop_finish(s);
		return;
	}
	if (s->mode == M_NOPARITY) {
		raid56_sop_write(s);
		return;
	}
	if (parity_path_gpu(R(s->q->a)->pp) && gpu_compute(s))
		return;
	s->job.run = sop_parity;
	s->job.q = s->q;
	s->job.hint = (unsigned)s->stripe;
	s->job.post.fn = parity_done_post;
	if (parity_path_submit(R(s->q->a)->pp, &s->job))
		raid56_sop_write(s);
}

/* ---- recovery windows on the GPU (rebuild56.c), from the rebuild thread ---- */

struct gpu_wait {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	int pending, status;
};

/* On a CUDA thread: count the launch down; the rebuild thread waits for zero. */
static void gpu_wait_done(void *arg, int status)
{
	struct gpu_wait *w = arg;

	pthread_mutex_lock(&w->mu);
	if (status)
		w->status = status;
	if (!--w->pending)
		pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

bool raid56_gpu_pinned(struct raid_array *a, const void *buf, size_t len)
{
	return parity_path_pinned(R(a)->pp, buf, len);
}

bool raid56_gpu_run(struct raid_array *a, const struct pq_gpu_stripe *st, int n)
{
	struct parity_path *pp = R(a)->pp;
	int batch = parity_path_gpu_batch(pp), ret = 0;
	struct gpu_wait w = {.mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};

	if (!parity_path_gpu(pp))
		return false;
	for (int i = 0; i < n && !ret; i += batch) {
		int m = n - i < batch ? n - i : batch;

		pthread_mutex_lock(&w.mu);
		w.pending++;
		pthread_mutex_unlock(&w.mu);
		ret = parity_path_gpu_run(pp, st + i, m, gpu_wait_done, &w);
		if (ret) {
			pthread_mutex_lock(&w.mu);
			w.pending--;
			pthread_mutex_unlock(&w.mu);
		}
	}
	pthread_mutex_lock(&w.mu);
	while (w.pending)
		pthread_cond_wait(&w.cv, &w.mu);
	pthread_mutex_unlock(&w.mu);
	pthread_mutex_destroy(&w.mu);
	pthread_cond_destroy(&w.cv);
	if (ret || w.status)
		return false;
	pthread_mutex_lock(&a->lock);
	a->totals.gpu_launches += (uint64_t)(n + batch - 1) / (uint64_t)batch;
	a->totals.gpu_stripes += (uint64_t)n;
	pthread_mutex_unlock(&a->lock);
	return true;
}
