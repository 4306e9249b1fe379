/*
 * raid56_gpu_mock.c - a stand-in for raid/parity/cuda/pq_gpu.h, for testing the RAID5/6
 * GPU path (raid_parity=cuda) on machines without a GPU: linked ahead of libraid.a into
 * raid56_gpu_test. It keeps the real API's contract where the engine could get it wrong:
 * every block a submit names must lie in memory from pq_gpu_alloc_host (the real one
 * refuses unpinned memory; this one aborts, since the engine would quietly fall back), no
 * launch carries more stripes than raid_gpu_batch, the stripes are copied at submit, and
 * each launch completes once, on another thread. It also says "busy" (-EAGAIN) and
 * fails launches (-EIO, nothing computed) now and then, so the engine's CPU fallbacks run too.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parity/cuda/pq_gpu.h"
#include "parity/pq.h"

/* One launch: its stripes, copied at submit like the real API does. */
struct mjob {
	struct mjob *next;
	int n;
	struct pq_gpu_stripe *st;
	void **ptrs; /* n x (PQ_MAX_DATA + 2) */
	pq_gpu_done_fn fn;
	void *arg;
	int fail;
};

struct range {
	char *p;
	size_t len;
	bool registered; /* the caller's memory (pq_gpu_register), not ours to free */
};

struct pq_gpu {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	pthread_t th;
	bool stop;
	struct mjob *head, *tail;
	struct range r[4096];
	int nr;
	unsigned long count;
	struct pq_gpu_opts o;
};

int pq_gpu_usable(int device, char *why, size_t why_len)
{
	return 1;
}

static void run(struct mjob *j)
{
	for (int i = 0; i < j->n; i++)
		if (pq_gpu_stripe_on_cpu(&pq_calls_base, &j->st[i])) {
			fprintf(stderr, "pq_gpu mock: op %d: the engine gives the GPU no such op\n",
				j->st[i].op);
			abort();
		}
}

static void mjob_free(struct mjob *j)
{
	free(j->st);
	free(j->ptrs);
	free(j);
}

static void *gpu_thread(void *arg)
{
	struct pq_gpu *g = arg;

	for (;;) {
		struct mjob *j;

		pthread_mutex_lock(&g->lock);
		while (!g->head && !g->stop)
			pthread_cond_wait(&g->cond, &g->lock);
		j = g->head;
		if (!j) {
			pthread_mutex_unlock(&g->lock);
			return NULL;
		}
		g->head = j->next;
		if (!g->head)
			g->tail = NULL;
		pthread_mutex_unlock(&g->lock);
		if (!j->fail)
			run(j);
		j->fn(j->arg, j->fail ? -EIO : 0);
		mjob_free(j);
	}
}

int pq_gpu_open(const struct pq_gpu_opts *o, struct pq_gpu **out, char *err, size_t err_len)
{
	struct pq_gpu *g = calloc(1, sizeof(*g));

	if (!g)
		return -ENOMEM;
	g->o = *o;
	pthread_mutex_init(&g->lock, NULL);
	pthread_cond_init(&g->cond, NULL);
	pthread_create(&g->th, NULL, gpu_thread, g);
	*out = g;
	return 0;
}

void pq_gpu_close(struct pq_gpu *g)
{
	if (!g)
		return;
	pthread_mutex_lock(&g->lock);
	g->stop = true;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	pthread_join(g->th, NULL);
	for (int i = 0; i < g->nr; i++)
		if (!g->r[i].registered)
			free(g->r[i].p);
	free(g);
}

void *pq_gpu_alloc_host(struct pq_gpu *g, size_t len)
{
	void *p = NULL;

	pthread_mutex_lock(&g->lock);
	if (g->nr < 4096 && !posix_memalign(&p, 4096, len)) {
		g->r[g->nr++] = (struct range){p, len, false};
	}
	pthread_mutex_unlock(&g->lock);
	return p;
}

void pq_gpu_free_host(struct pq_gpu *g, void *p)
{
	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->nr; i++)
		if (g->r[i].p == p && !g->r[i].registered) {
			g->r[i] = g->r[--g->nr];
			free(p);
			break;
		}
	pthread_mutex_unlock(&g->lock);
}

static bool pinned(struct pq_gpu *g, const void *p, size_t len)
{
	for (int i = 0; i < g->nr; i++)
		if ((const char *)p >= g->r[i].p &&
		    (const char *)p + len <= g->r[i].p + g->r[i].len)
			return true;
	return false;
}

int pq_gpu_register(struct pq_gpu *g, void *buf, size_t len)
{
	int ret = -ENOMEM;

	pthread_mutex_lock(&g->lock);
	if (g->nr < 4096) {
		g->r[g->nr++] = (struct range){buf, len, true};
		ret = 0;
	}
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int pq_gpu_unregister(struct pq_gpu *g, void *buf)
{
	int ret = -ENOENT;

	pthread_mutex_lock(&g->lock);
	for (int i = 0; i < g->nr; i++)
		if (g->r[i].p == buf && g->r[i].registered) {
			g->r[i] = g->r[--g->nr];
			ret = 0;
			break;
		}
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int pq_gpu_pinned(struct pq_gpu *g, const void *p, size_t len)
{
	bool ret;

	pthread_mutex_lock(&g->lock);
	ret = pinned(g, p, len);
	pthread_mutex_unlock(&g->lock);
	return ret;
}

int pq_gpu_submit(struct pq_gpu *g, const struct pq_gpu_stripe *s, int n, pq_gpu_done_fn fn,
		  void *arg)
{
	struct mjob *j;

	/* the engine sized the context itself: a batch past it is its bug, not a busy GPU */
	if (n < 1 || n > g->o.batch) {
		fprintf(stderr, "pq_gpu mock: %d stripes in a launch of a context for %d\n", n,
			g->o.batch);
		abort();
	}
	for (int i = 0; i < n; i++)
		if (s[i].k > g->o.max_k || s[i].len > g->o.max_len || s[i].len % PQ_LEN_ALIGN ||
		    !s[i].len)
			return -EINVAL;
	pthread_mutex_lock(&g->lock);
	if (++g->count % 7 == 0) {
		pthread_mutex_unlock(&g->lock);
		return -EAGAIN;
	}
	for (int i = 0; i < n; i++)
		for (int b = 0; b < s[i].k + 2; b++)
			if (s[i].ptrs[b] && !pinned(g, s[i].ptrs[b], s[i].len)) {
				/* the real API answers -EFAULT, which the engine would quietly
				 * route to the CPU: here it is the bug it is */
				fprintf(stderr,
					"pq_gpu mock: stripe %d block %d (%p, %zu bytes) is not "
					"pinned\n",
					i, b, s[i].ptrs[b], s[i].len);
				abort();
			}
	j = calloc(1, sizeof(*j));
	j->st = calloc((size_t)n, sizeof(*j->st));
	j->ptrs = calloc((size_t)n * (PQ_MAX_DATA + 2), sizeof(void *));
	if (!j->st || !j->ptrs)
		abort();
	j->n = n;
	for (int i = 0; i < n; i++) {
		void **p = j->ptrs + (size_t)i * (PQ_MAX_DATA + 2);

		j->st[i] = s[i];
		memcpy(p, s[i].ptrs, sizeof(void *) * (size_t)(s[i].k + 2));
		j->st[i].ptrs = p;
	}
	j->fn = fn;
	j->arg = arg;
	j->fail = g->count % 11 == 0;
	if (g->tail)
		g->tail->next = j;
	else
		g->head = j;
	g->tail = j;
	pthread_cond_signal(&g->cond);
	pthread_mutex_unlock(&g->lock);
	return 0;
}

int pq_gpu_describe(struct pq_gpu *g, char *buf, size_t len)
{
	return snprintf(buf, len, "mock GPU (%s mode, batch %d)", g->o.mapped ? "mapped" : "copy",
			g->o.batch);
}
