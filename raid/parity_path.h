/*
 * parity_path.h - where RAID5/6 parity is computed: which pq_calls variant
 * (raid_parity=cpu|isal|auto) and on which thread (raid_workers: 0 inline in the fio job's
 * thread, N >= 1 on N parity worker threads like md's raid5d and its worker groups).
 *
 * A job handed to a worker runs there, then goes back to the queue that owns it through
 * raid_queue_post(), so every member I/O is still issued by its queue's own thread.
 */
#ifndef RAID_PARITY_PATH_H
#define RAID_PARITY_PATH_H

#include <stdbool.h>

#include "parity/cuda/pq_gpu.h"
#include "parity/pq.h"
#include "raid.h"

struct parity_job {
	struct parity_job *next;
	/* the parity work (any thread); the caller's */
	void (*run)(struct parity_job *j);
	struct raid_queue *q; /* where `post` goes once run() is done */
	struct raid_post post;
	struct raid_post batch; /* the worker's: one post hands back a run of jobs */
	unsigned hint;
	int status;
	/* GPU jobs: 0, or -EIO when the GPU failed them (nothing computed) */ /* spreads jobs
										  over the
										  workers (the
										  stripe number)
										*/
};

struct parity_path;

/*
 * The variant for c->parity and c->workers threads; -errno with a message naming the option.
 * raid_parity=cuda opens the GPU (raid/parity/cuda/pq_gpu.h) for blocks of up to max_len
 * bytes in stripes of up to max_k data blocks.
 */
int parity_path_create(const struct raid_config *c, int max_k, size_t max_len,
		       struct parity_path **out, char *err, size_t errlen);
void parity_path_destroy(struct parity_path *p);
const struct pq_calls *parity_path_calls(const struct parity_path *p);
/*
 * Run j: inline (returns true: done, nothing posted) or on a worker (returns false: the
 * worker posts j->post to j->q when run() has finished).
 */
bool parity_path_submit(struct parity_path *p, struct parity_job *j);

/*
 * The GPU path (raid_parity=cuda). Buffers the GPU reads or writes must come from
 * parity_path_alloc(), which pins them when there is a GPU (plain page-aligned memory
 * otherwise). parity_path_gpu_submit() queues n stripes as one launch and returns at once;
 * when they are done j->status is set and j->post is posted to j->q. It fails (-EAGAIN
 * when the GPU is busy) without posting anything: the caller then computes on the CPU.
 */
bool parity_path_gpu(const struct parity_path *p);
void *parity_path_alloc(struct parity_path *p, size_t len);
void parity_path_free(struct parity_path *p, void *buf);
int parity_path_gpu_submit(struct parity_path *p, struct parity_job *j,
			   const struct pq_gpu_stripe *s, int n);

#endif
