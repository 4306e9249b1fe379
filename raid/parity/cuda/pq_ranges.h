/*
 * pq_ranges.h - the GPU context's registry of pinned host memory (pq_gpu.cu): which host
 * ranges are page-locked and where kernels see them. Plain C with no CUDA in it, so that
 * make test checks it on every machine (pq_ranges_test.c).
 *
 * Every fio job thread submits (and so looks ranges up) while others allocate and free their
 * pinned scratch (and so add and remove ranges): lookups share a read lock and search a
 * sorted array; adding and removing take the write lock.
 */
#ifndef RAID_PARITY_CUDA_PQ_RANGES_H
#define RAID_PARITY_CUDA_PQ_RANGES_H

#include <pthread.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

struct pq_range {
	char *base, *dev; /* host address and the address kernels use for it (NULL: none) */
	size_t len;
	int alloc; /* 1: pq_gpu_alloc_host memory; 0: registered caller memory */
	int owned; /* we registered it, so we unregister it */
};

struct pq_ranges {
	pthread_rwlock_t lock;
	struct pq_range *r; /* sorted by base; never overlapping */
	int n, cap;
};

int pq_ranges_init(struct pq_ranges *s);
void pq_ranges_destroy(struct pq_ranges *s);
/* 0, -ENOMEM, or -EEXIST when it overlaps a registered range. */
int pq_ranges_add(struct pq_ranges *s, const struct pq_range *r);
/* Remove the range starting at base with this `alloc`; a copy in *out. 0 or -ENOENT. */
int pq_ranges_del(struct pq_ranges *s, const void *base, int alloc, struct pq_range *out);

/*
 * Lookups: between pq_ranges_rdlock() and pq_ranges_unlock(), the range holding all of
 * [p, p + len), or NULL. The pointer is valid until the unlock.
 */
void pq_ranges_rdlock(struct pq_ranges *s);
void pq_ranges_unlock(struct pq_ranges *s);
const struct pq_range *pq_ranges_find(const struct pq_ranges *s, const void *p, size_t len);

#ifdef __cplusplus
}
#endif

#endif
