/*
 * parity_path.c - the RAID5/6 parity path: choosing the pq_calls variant, and the optional
 * parity worker threads. Each worker has its own job list and lock, so workers never share
 * a lock with each other, and a job is spread by its stripe number.
 *
 * A GPU path plugs in at parity_path_submit(): like a worker, it takes the job, runs it
 * asynchronously and completes it through raid_queue_post() (raid/parity/cuda/pq_gpu.h
 * provides the batched submit and its completion callback for that).
 */
#include <errno.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
};

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

int parity_path_create(const struct raid_config *c, struct parity_path **out, char *err,
		       size_t errlen)
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
		snprintf(err, errlen,
			 "raid: raid_parity=cuda is not supported yet by the RAID5/6 path (use "
			 "cpu, isal or auto)");
		free(p);
		return -ENOTSUP;
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
