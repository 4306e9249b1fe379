/*
 * parity_path.c - the RAID5/6 parity path: choosing the pq_calls variant, and the optional
 * parity worker threads. Each worker has its own job list and lock, so workers never share
 * a lock with each other, and a job is spread by its stripe number.
 *
 * raid_parity=cuda (or auto with a usable GPU): the GPU (raid/parity/cuda/pq_gpu.h) takes
 * batches of stripes that a queue gathered, one launch each, asynchronously; the completion
 * callback (on a CUDA thread, which must not call back into CUDA) only posts the batch back
 * to its queue, like a worker does.
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
	int gpu_device, gpu_batch;
	bool gpu_mapped;
	const char *used; /* "cpu", "isal", "cuda" */
	char note[RAID_ERRLEN];
};

/*
 * Launches in flight at once, over every queue of the array. In copy mode each holds device
 * memory for a whole batch ((k + 2) x max_len x raid_gpu_batch), so their number is bounded
 * by GPU_ARENA_BUDGET too; a queue that finds them all busy computes on the CPU.
 */
#define GPU_SLOTS_MAX 32
#define GPU_SLOTS_MIN 2
#define GPU_ARENA_BUDGET (4ULL << 30)

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

static int open_gpu(struct parity_path *p, const struct parity_opts *c, int max_k, size_t max_len,
		    char *err, size_t errlen)
{
	struct pq_gpu_opts o;
	char why[RAID_ERRLEN / 4];
	uint64_t arena;
	int ret;

	pq_gpu_opts_default(&o);
	o.device = c->gpu >= 0 ? c->gpu : 0;
	o.batch = c->gpu_batch; /* >= 1: the option table */
	o.mapped = c->gpu_mapped > 0;
	o.max_k = max_k;
	o.max_len = max_len;
	arena = (uint64_t)(max_k + 2) * max_len * (uint64_t)o.batch;
	o.slots = o.mapped ? GPU_SLOTS_MAX : (int)(GPU_ARENA_BUDGET / arena);
	o.slots = o.slots > GPU_SLOTS_MAX   ? GPU_SLOTS_MAX
		  : o.slots < GPU_SLOTS_MIN ? GPU_SLOTS_MIN
					    : o.slots;
	o.notify_thread = 1; /* completions wake their queue; no thread polls the GPU */
	ret = pq_gpu_open(&o, &p->gpu, why, sizeof(why));
	if (ret) {
		snprintf(err, errlen, "raid_gpu=%d: %s", o.device, why);
		return ret;
	}
	p->gpu_device = o.device;
	p->gpu_batch = o.batch;
	p->gpu_mapped = o.mapped;
	p->used = "cuda";
	return 0;
}

/*
 * raid_parity=cuda: the GPU or an error naming why not. auto: the GPU when one is usable,
 * else the CPU, with the reason kept for the stats.
 */
static int choose_gpu(struct parity_path *p, const struct parity_opts *c, int max_k, size_t max_len,
		      char *err, size_t errlen)
{
	char why[RAID_ERRLEN / 2];
	int dev = c->gpu >= 0 ? c->gpu : 0, ret;

	if (!pq_gpu_usable(dev, why, sizeof(why))) {
		if (c->parity == RAID_PARITY_CUDA) {
			snprintf(err, errlen, "raid: raid_parity=cuda: no usable GPU: %s", why);
			return -ENODEV;
		}
		snprintf(p->note, sizeof(p->note), "raid_parity=auto: no usable GPU (%s): CPU",
			 why);
		return 0;
	}
	ret = open_gpu(p, c, max_k, max_len, why, sizeof(why));
	if (ret && c->parity == RAID_PARITY_CUDA) {
		snprintf(err, errlen, "raid: raid_parity=cuda: %s", why);
		return ret;
	}
	if (ret)
		snprintf(p->note, sizeof(p->note), "raid_parity=auto: %s: CPU", why);
	return 0;
}

int parity_path_create(const struct raid_config *cfg, int max_k, size_t max_len,
		       struct parity_path **out, char *err, size_t errlen)
{
	const struct parity_opts *c = parity_opts(cfg);
	struct parity_path *p = calloc(1, sizeof(*p));
	int ret;

	if (!p)
		return -ENOMEM;
	p->used = "cpu";
	if (c->parity == RAID_PARITY_ISAL) {
		p->calls = pq_find("isal");
		if (!p->calls) {
			snprintf(
			    err, errlen,
			    "raid: raid_parity=isal: ISA-L's parity is not usable on this CPU");
			free(p);
			return -ENOTSUP;
		}
		p->used = "isal";
	} else {
		/* cpu, and what the GPU path leaves to the CPU: the fastest variant here */
		p->calls = pq_best();
	}
	p->calls = pq_test_slow(p->calls); /* unset outside the exact tier's bench */
	if (c->parity == RAID_PARITY_CUDA || c->parity == RAID_PARITY_AUTO) {
		ret = choose_gpu(p, c, max_k, max_len, err, errlen);
		if (ret) {
			free(p);
			return ret;
		}
	}
	p->nworkers = level_opts(cfg)->workers;
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

const char *parity_path_used(const struct parity_path *p)
{
	return p->used;
}

const char *parity_path_note(const struct parity_path *p)
{
	return p->note[0] ? p->note : NULL;
}

bool parity_path_gpu(const struct parity_path *p)
{
	return p->gpu != NULL;
}

int parity_path_gpu_batch(const struct parity_path *p)
{
	return p->gpu ? p->gpu_batch : 0;
}

bool parity_path_gpu_info(const struct parity_path *p, int *device, bool *mapped, char *desc,
			  size_t len)
{
	if (!p->gpu)
		return false;
	*device = p->gpu_device;
	*mapped = p->gpu_mapped;
	if (pq_gpu_describe(p->gpu, desc, len) < 0 && len)
		desc[0] = 0;
	return true;
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

int parity_path_register(struct parity_path *p, void *buf, size_t len)
{
	return p->gpu ? pq_gpu_register(p->gpu, buf, len) : 0;
}

void parity_path_unregister(struct parity_path *p, void *buf)
{
	if (p->gpu)
		pq_gpu_unregister(p->gpu, buf);
}

bool parity_path_pinned(const struct parity_path *p, const void *buf, size_t len)
{
	return p->gpu && pq_gpu_pinned(p->gpu, buf, len);
}

/* On a CUDA thread: only mark the batch's jobs and hand them back to their queue. */
static void gpu_done(void *arg, int status)
{
	struct parity_job *head = arg;

	for (struct parity_job *j = head; j; j = j->next)
		j->status = status;
	head->batch.fn = batch_done;
	raid_queue_post(head->q, &head->batch);
}

int parity_path_gpu_submit(struct parity_path *p, struct parity_job *head,
			   const struct pq_gpu_stripe *s, int n)
{
	return parity_path_gpu_run(p, s, n, gpu_done, head);
}

int parity_path_gpu_run(struct parity_path *p, const struct pq_gpu_stripe *s, int n,
			pq_gpu_done_fn fn, void *arg)
{
	if (!p->gpu)
		return -ENODEV;
	return pq_gpu_submit(p->gpu, s, n, fn, arg);
}
