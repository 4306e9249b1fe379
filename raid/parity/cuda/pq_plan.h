/*
 * pq_plan.h - the part of submitting a batch that needs no GPU, so it is tested everywhere:
 * checking stripes, what each op reads and writes, the recovery constants, and in copy mode
 * where each block lives in device memory and which (merged) copies move it there and back.
 */
#ifndef RAID_PARITY_CUDA_PQ_PLAN_H
#define RAID_PARITY_CUDA_PQ_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "pq_gpu.h"
#include "pq_kdesc.h"

#ifdef __cplusplus
extern "C" {
#endif

struct pq_copy {
	void *dst;
	const void *src;
	size_t len;
};

/* Most copies one direction of a batch of n stripes can need. */
#define PQ_PLAN_MAX_COPIES(n) ((size_t)(n) * (PQ_MAX_DATA + 2))

/* 0, -EINVAL (malformed) or -E2BIG (k or len beyond what the context was sized for) */
int pq_plan_check(const struct pq_gpu_stripe *s, int max_k, size_t max_len);
/* Bit i set: block i (P is k, Q is k + 1) is read (in) / written (out) by the op. */
void pq_plan_io(const struct pq_gpu_stripe *s, uint64_t *in, uint64_t *out);
/* Device bytes copy mode needs per slot. */
size_t pq_plan_arena_len(int max_k, size_t max_len, int batch);
/* Fill d for stripe s whose blocks the kernel reaches at kptrs[] (unused ones ignored). */
void pq_plan_desc(const struct pq_gpu_stripe *s, void *const *kptrs, struct pq_kdesc *d);

/*
 * Copy mode: give every block s[0..n-1] uses a place in the arena (a device address, at
 * least 64-byte aligned), fill descs[], and list the copies in (host to arena) and out
 * (arena to host), each list at most PQ_PLAN_MAX_COPIES(n) long; copies of blocks adjacent
 * both in host memory and in the arena are merged into one. 0, or -E2BIG if it won't fit.
 */
int pq_plan_copy(const struct pq_gpu_stripe *s, int n, uintptr_t arena, size_t arena_len,
		 struct pq_kdesc *descs, struct pq_copy *h2d, int *nh2d, struct pq_copy *d2h,
		 int *nd2h);

/* Mapped mode: the kernel reaches host block [p, p + len) at xlate(ctx, p, len), or NULL. */
typedef void *(*pq_plan_xlate_fn)(void *ctx, void *p, size_t len);
/* 0, or -EFAULT when a block is not reachable */
int pq_plan_mapped(const struct pq_gpu_stripe *s, int n, pq_plan_xlate_fn xlate, void *ctx,
		   struct pq_kdesc *descs);

#ifdef __cplusplus
}
#endif

#endif
