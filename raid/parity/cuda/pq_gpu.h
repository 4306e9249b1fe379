/*
 * pq_gpu.h - the GPU parity path's host API: open a context on one CUDA device, hand it
 * batches of stripes, and collect completions without ever blocking the submitting thread.
 * Implemented by pq_gpu.cu when nvcc built it, and by pq_gpu_stub.c (every call -ENODEV)
 * otherwise, so callers never need an #ifdef.
 *
 * Threading: submit, poll and register may be called from any thread. A completion callback
 * runs either inside pq_gpu_poll() on the polling thread, or (notify_thread) on a CUDA
 * runtime thread, where it must not call back into pq_gpu_* (CUDA forbids runtime calls
 * there): it should only mark work done and wake its owner.
 */
#ifndef RAID_PARITY_CUDA_PQ_GPU_H
#define RAID_PARITY_CUDA_PQ_GPU_H

#include <stddef.h>
#include <stdint.h>

#include "pq_kdesc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pq_gpu;

/* The engine's options map onto these: raid_gpu -> device, raid_gpu_batch -> batch. */
struct pq_gpu_opts {
	int device;	   /* CUDA device index (raid_gpu), default 0 */
	int batch;	   /* most stripes one submit carries (raid_gpu_batch), default 64 */
	int max_k;	   /* most data blocks in a stripe, default PQ_MAX_DATA */
	size_t max_len;	   /* largest block in bytes, default 1 MiB */
	int mapped;	   /* 1: kernels read and write host memory in place (zero-copy) */
	int slots;	   /* batches in flight at once, each on its own stream; default 4 */
	int notify_thread; /* 1: callbacks run on a CUDA thread, not in pq_gpu_poll */
};

#define PQ_GPU_BATCH_DEFAULT 64
#define PQ_GPU_SLOTS_DEFAULT 4

void pq_gpu_opts_default(struct pq_gpu_opts *o);

/* One stripe of a batch: the pq.h layout (k data blocks, then P, then Q) in host memory. */
struct pq_gpu_stripe {
	enum pq_gpu_op op;
	int k;
	int a, b;    /* xor range (XOR_P, XOR_PQ), or the lost data blocks (RECOV_*; b for 2D) */
	size_t len;  /* multiple of PQ_LEN_ALIGN, at most opts.max_len */
	void **ptrs; /* k + 2 host pointers; P/Q slots an op does not use may be NULL */
};

/*
 * What one stripe of a launch computes, done by CPU variant c instead: the engine's CPU side
 * and the tests' mock GPU. 0, or -EINVAL for an op this does not know.
 */
int pq_gpu_stripe_on_cpu(const struct pq_calls *c, const struct pq_gpu_stripe *s);

/*
 * Is a GPU usable? 1 if device `device` can be opened, else 0 with a one-line reason in why
 * (e.g. "cudaGetDeviceCount: CUDA driver version is insufficient for CUDA runtime version
 * (35)" or "built without CUDA (no nvcc found)"). Cheap after the first call; thread-safe.
 */
int pq_gpu_usable(int device, char *why, size_t why_len);

/* Open a context. 0, or negative errno with a one-line reason in err (-ENODEV: no GPU). */
int pq_gpu_open(const struct pq_gpu_opts *o, struct pq_gpu **out, char *err, size_t err_len);
/* Wait for every batch in flight, run their callbacks, free everything. */
void pq_gpu_close(struct pq_gpu *g);

/*
 * Buffers a batch points into must be pinned: either allocated here, or caller memory
 * registered here (page-locked with cudaHostRegister). A submit naming any other address
 * fails with -EFAULT, because copying or mapping pageable memory would block or fault.
 */
void *pq_gpu_alloc_host(struct pq_gpu *g, size_t len);
void pq_gpu_free_host(struct pq_gpu *g, void *p);
int pq_gpu_register(struct pq_gpu *g, void *buf, size_t len);
int pq_gpu_unregister(struct pq_gpu *g, void *buf);
/* 1 when all of [p, p + len) is pinned here (allocated or registered), else 0. */
int pq_gpu_pinned(struct pq_gpu *g, const void *p, size_t len);

/* status: 0, or -EIO when the GPU failed the batch (its buffers then hold no result). */
typedef void (*pq_gpu_done_fn)(void *arg, int status);

/*
 * Queue n stripes (1..opts.batch) as one launch; returns at once. fn(arg, status) is called
 * once when all of them are done. -EAGAIN: every slot is busy (poll, then retry); -EINVAL:
 * a malformed stripe; -E2BIG: more than the context was sized for; -EFAULT: unpinned memory.
 */
int pq_gpu_submit(struct pq_gpu *g, const struct pq_gpu_stripe *s, int n, pq_gpu_done_fn fn,
		  void *arg);
/* Run the callbacks of finished batches (poll mode); returns how many ran. Never blocks. */
int pq_gpu_poll(struct pq_gpu *g);
/* Batches submitted and not yet called back. */
int pq_gpu_inflight(struct pq_gpu *g);
/* Block until every batch in flight is done and called back (tests, benchmarks, close). */
int pq_gpu_wait(struct pq_gpu *g);

/* Device name and memory, for reports. */
int pq_gpu_describe(struct pq_gpu *g, char *buf, size_t len);

/*
 * For the benchmark (pq_gpu_bench.c): time `iters` launches of one op over n stripes whose
 * blocks are already in device memory, or `iters` copies of `bytes` (dir: 0 host-to-device
 * from pinned memory, 1 device-to-host, 2 device-to-device). Seconds for all iterations.
 */
int pq_gpu_time_kernel(struct pq_gpu *g, enum pq_gpu_op op, int k, size_t len, int n, int iters,
		       double *sec);
int pq_gpu_time_copy(struct pq_gpu *g, int dir, size_t bytes, int iters, double *sec);

#ifdef __cplusplus
}
#endif

#endif
