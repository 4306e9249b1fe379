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
#include "core/raid.h"
#include "level_opts.h"

struct parity_job {
	struct parity_job *next;
	/* the parity work (any thread); the caller's */
	void (*run)(struct parity_job *j);
	struct raid_queue *q; /* where `post` goes once run() is done */
	struct raid_post post;
	struct raid_post batch; /* one post hands back a run of jobs (worker or GPU batch) */
	unsigned hint;		/* spreads jobs over the workers (the stripe number) */
	int status; /* GPU jobs: 0, or -EIO when the GPU failed them (nothing computed) */
};

struct parity_path;

/*
 * The variant for c->parity and c->workers threads; -errno with a message naming the option.
 * raid_parity=cuda opens GPU raid_gpu (raid/parity/cuda/pq_gpu.h) for blocks of up to max_len
 * bytes in stripes of up to max_k data blocks, or fails naming the CUDA error; raid_parity=auto
 * opens it when it is usable and otherwise computes on the CPU, saying why in the note.
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
 * What computes the parity, for the stats: "cpu", "isal" or "cuda"; and, when raid_parity=auto
 * left the GPU out, why (NULL otherwise).
 */
const char *parity_path_used(const struct parity_path *p);
const char *parity_path_note(const struct parity_path *p);

/*
 * The GPU path (raid_parity=cuda, or auto with a usable GPU). Buffers the GPU reads or writes
 * must come from parity_path_alloc(), which pins them when there is a GPU (plain page-aligned
 * memory otherwise).
 *
 * A queue gathers the stripes of its operations into a batch of up to parity_path_gpu_batch()
 * (raid_gpu_batch) and hands it over with parity_path_gpu_submit(): n stripes, one launch, and
 * the n jobs chained through `next` from `head`, all of one queue. It returns at once; when
 * the launch is done each job's status is set and head->batch is posted to head->q, which
 * runs every job's post in order. It fails (-EAGAIN when every launch slot is busy) without
 * posting anything: the caller then computes on the CPU.
 */
bool parity_path_gpu(const struct parity_path *p);
int parity_path_gpu_batch(const struct parity_path *p);
/* "NVIDIA H200 (sm_90, 139 GiB), copy" and the device index; false without a GPU */
bool parity_path_gpu_info(const struct parity_path *p, int *device, bool *mapped, char *desc,
			  size_t len);
void *parity_path_alloc(struct parity_path *p, size_t len);
void parity_path_free(struct parity_path *p, void *buf);
/*
 * The caller's own buffers (fio's I/O memory), pinned in place for the GPU, so that the GPU
 * reads new data where the caller wrote it instead of from a copy. 0 without a GPU.
 */
int parity_path_register(struct parity_path *p, void *buf, size_t len);
void parity_path_unregister(struct parity_path *p, void *buf);
bool parity_path_pinned(const struct parity_path *p, const void *buf, size_t len);
int parity_path_gpu_submit(struct parity_path *p, struct parity_job *head,
			   const struct pq_gpu_stripe *s, int n);
/* n stripes as one launch with the caller's own completion (recovery windows); as above */
int parity_path_gpu_run(struct parity_path *p, const struct pq_gpu_stripe *s, int n,
			pq_gpu_done_fn fn, void *arg);

#endif
