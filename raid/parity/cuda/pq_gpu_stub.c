/*
 * pq_gpu_stub.c - the GPU API of pq_gpu.h when the library was built without nvcc: every
 * call fails with -ENODEV and says why, so the engine's raid_parity=cuda fails cleanly and
 * raid_parity=auto falls back to the CPU, with no #ifdef in any caller.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "pq_gpu.h"

#define NO_CUDA "built without CUDA (no nvcc found)"

int pq_gpu_usable(int device, char *why, size_t why_len)
{
	if (why && why_len)
		snprintf(why, why_len, "%s", NO_CUDA);
	return 0;
}

int pq_gpu_open(const struct pq_gpu_opts *o, struct pq_gpu **out, char *err, size_t err_len)
{
	*out = NULL;
	if (err && err_len)
		snprintf(err, err_len, "no usable GPU: %s", NO_CUDA);
	return -ENODEV;
}

/* No context can exist, so nothing below is reachable with a valid one. */
void pq_gpu_close(struct pq_gpu *g)
{
}

void *pq_gpu_alloc_host(struct pq_gpu *g, size_t len)
{
	return NULL;
}

void pq_gpu_free_host(struct pq_gpu *g, void *p)
{
}

int pq_gpu_register(struct pq_gpu *g, void *buf, size_t len)
{
	return -ENODEV;
}

int pq_gpu_unregister(struct pq_gpu *g, void *buf)
{
	return -ENODEV;
}

int pq_gpu_pinned(struct pq_gpu *g, const void *p, size_t len)
{
	return 0;
}

int pq_gpu_submit(struct pq_gpu *g, const struct pq_gpu_stripe *s, int n, pq_gpu_done_fn fn,
		  void *arg)
{
	return -ENODEV;
}

int pq_gpu_poll(struct pq_gpu *g)
{
	return 0;
}

int pq_gpu_inflight(struct pq_gpu *g)
{
	return 0;
}

int pq_gpu_wait(struct pq_gpu *g)
{
	return -ENODEV;
}

int pq_gpu_describe(struct pq_gpu *g, char *buf, size_t len)
{
	return snprintf(buf, len, "%s", NO_CUDA);
}

int pq_gpu_time_kernel(struct pq_gpu *g, enum pq_gpu_op op, int k, size_t len, int n, int iters,
		       double *sec)
{
	return -ENODEV;
}

int pq_gpu_time_copy(struct pq_gpu *g, int dir, size_t bytes, int iters, double *sec)
{
	return -ENODEV;
}
