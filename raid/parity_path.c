/*
 * parity_path.c - the RAID5/6 parity path: choosing the pq_calls variant, and the optional
 * parity worker threads. Each worker has its own job list and lock, so workers never share
 * a lock with each other, and a job is spread by its stripe number.
 *
 * raid_parity=cuda: the GPU (raid/parity/cuda/pq_gpu.h) takes the parity kernels of a job
 * asynchronously, and its completion callback (on a CUDA thread, which must not call back
 * into CUDA) only posts the job back to its queue, like a worker does.
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout.h"
#include "parity_path.h"

struct pworker {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	struct parity_job *head, *tail;
	bool stop;
	pthread_t thread;
} __attribute__((aligned(64)));

struct parity_path {
	const struct pq_calls *calls;
	int nworkers;
	struct pworker *w;
	struct pq_gpu *gpu;
};

/* Jobs the GPU takes at once: one launch carries one job's stripes. */
#define GPU_SLOTS 32

/* The owning queue's side of a batch: each job's own completion, in order. */
static void batch_done(struct raid_queue *q, struct raid_post *p)
{
	struct parity_job *j =
	    (struct parity_job *)((char *)p - offsetof(struct parity_job, batch));

	while (j) {
		struct parity_job *next = j->next;

		j->post.fn(q, &j->post);
		j = next;
	}
}

static void *worker_main(void *arg)
{
	struct pworker *w = arg;

	for (;;) {
		struct parity_job *j;

		pthread_mutex_lock(&w->lock);
		while (!w->head && !w->stop)
			pthread_cond_wait(&w->cond, &w->lock);
		j = w->head;
		if (!j) {
			pthread_mutex_unlock(&w->lock);
			return NULL;
		}
		w->head = NULL;
		w->tail = NULL;
		pthread_mutex_unlock(&w->lock);
		/*
		 * The whole list at once, and one post (one doorbell) per run of jobs of the
		 * same queue: the hand-offs, not the parity, are what a worker thread costs.
		 */
		while (j) {
			struct parity_job *head = j, *tail = j;

			j->run(j);
			while (tail->next && tail->next->q == head->q) {
				tail = tail->next;
				tail->run(tail);
			}
			j = tail->next;
			tail->next = NULL;
			head->batch.fn = batch_done;
			raid_queue_post(head->q, &head->batch);
		}
	}
}

static int open_gpu(struct parity_path *p, int max_k, size_t max_len, char *err, size_t errlen)
{
	struct pq_gpu_opts o;
	char why[RAID_ERRLEN / 2];
	int ret;

	if (!pq_gpu_usable(0, why, sizeof(why))) {
		snprintf(err, errlen, "raid: raid_parity=cuda: no usable GPU: %s", why);
		return -ENODEV;
	}
	pq_gpu_opts_default(&o);
	o.batch = 1; /* one launch per stripe operation: its generation or its RMW */
	o.max_k = max_k;
	o.max_len = max_len;
	o.slots = GPU_SLOTS;
	o.notify_thread = 1; /* completions wake their queue; no thread polls the GPU */
	ret = pq_gpu_open(&o, &p->gpu, why, sizeof(why));
	if (ret)
		snprintf(err, errlen, "raid: raid_parity=cuda: %s", why);
	return ret;
}

int parity_path_create(const struct raid_config *c, int max_k, size_t max_len,
		       struct parity_path **out, char *err, size_t errlen)
{
	struct parity_path *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	switch (c->parity) {
	case RAID_PARITY_ISAL:
		p->calls = pq_find("isal");
		if (!p->calls) {
			snprintf(
			    err, errlen,
			    "raid: raid_parity=isal: ISA-L's parity is not usable on this CPU");
			free(p);
			return -ENOTSUP;
		}
		break;
	case RAID_PARITY_CUDA:
		ret = open_gpu(p, max_k, max_len, err, errlen);
		if (ret) {
			free(p);
			return ret;
		}
		p->calls = pq_best(); /* what the GPU path leaves to the CPU */
		break;
	default: /* cpu and auto: the fastest variant this CPU runs, timed at first use */
		p->calls = pq_best();
		break;
	}
	p->nworkers = c->workers;
	if (p->nworkers) {
		p->w = calloc((size_t)p->nworkers, sizeof(*p->w));
		if (!p->w) {
			free(p);
			return -ENOMEM;
		}
	}
	for (int i = 0; i < p->nworkers; i++) {
		struct pworker *w = &p->w[i];

		pthread_mutex_init(&w->lock, NULL);
		pthread_cond_init(&w->cond, NULL);
		ret = pthread_create(&w->thread, NULL, worker_main, w);
		if (ret) {
			snprintf(err, errlen, "raid: raid_workers: cannot start a thread: %s",
				 strerror(ret));
			p->nworkers = i;
			parity_path_destroy(p);
			return -ret;
		}
	}
	*out = p;
	return 0;
}

void parity_path_destroy(struct parity_path *p)
{
	if (!p)
		return;
	for (int i = 0; i < p->nworkers; i++) {
		struct pworker *w = &p->w[i];

		pthread_mutex_lock(&w->lock);
		w->stop = true;
		pthread_cond_signal(&w->cond);
		pthread_mutex_unlock(&w->lock);
		pthread_join(w->thread, NULL);
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cond);
	}
	free(p->w);
	pq_gpu_close(p->gpu);
	free(p);
}

const struct pq_calls *parity_path_calls(const struct parity_path *p)
{
	return p->calls;
}

bool parity_path_submit(struct parity_path *p, struct parity_job *j)
{
	struct pworker *w;
	bool wake;

	if (!p->nworkers) {
		j->run(j);
		return true;
	}
	/* (a GPU path would batch j here and post it from its completion callback) */
	w = &p->w[j->hint % (unsigned)p->nworkers];
	j->next = NULL;
	pthread_mutex_lock(&w->lock);
	wake = !w->head;
	if (w->tail)
		w->tail->next = j;
	else
		w->head = j;
	w->tail = j;
	if (wake)
		pthread_cond_signal(&w->cond);
	pthread_mutex_unlock(&w->lock);
	return false;
}

bool parity_path_gpu(const struct parity_path *p)
{
	return p->gpu != NULL;
}

void *parity_path_alloc(struct parity_path *p, size_t len)
{
	void *buf;

	if (p->gpu)
		return pq_gpu_alloc_host(p->gpu, len);
	/* page-aligned: member I/O may be O_DIRECT */
	return posix_memalign(&buf, 4096, len) ? NULL : buf;
}

void parity_path_free(struct parity_path *p, void *buf)
{
	if (p->gpu && buf)
		pq_gpu_free_host(p->gpu, buf);
	else
		free(buf);
}

/* On a CUDA thread: only hand the job back. */
static void gpu_done(void *arg, int status)
{
	struct parity_job *j = arg;

	j->status = status;
	raid_queue_post(j->q, &j->post);
}

int parity_path_gpu_submit(struct parity_path *p, struct parity_job *j,
			   const struct pq_gpu_stripe *s, int n)
{
	if (!p->gpu)
		return -ENODEV;
	j->status = 0;
	return pq_gpu_submit(p->gpu, s, n, gpu_done, j);
}
