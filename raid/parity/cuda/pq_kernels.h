/*
 * pq_kernels.h - the one entry point into the parity kernels: launch a batch of stripe
 * descriptors. pq_kernels.cu is built twice: by nvcc for the GPU (pq_kern_launch) and by g++
 * under the CPU shim (pq_kern_launch_shim, run at once on the calling thread), so that tests
 * on any machine exercise the same kernel source.
 */
#ifndef RAID_PARITY_CUDA_PQ_KERNELS_H
#define RAID_PARITY_CUDA_PQ_KERNELS_H

#include <stdint.h>

#include "pq_kdesc.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Most stripes one launch takes (the grid's y dimension). */
#define PQ_KERN_MAX_BATCH 65535

/*
 * Run descs[0..n-1] (the array itself readable by the kernel); max_len is the largest len
 * among them. stream is a cudaStream_t. Returns 0 or a cudaError_t of the launch.
 */
int pq_kern_launch(const struct pq_kdesc *descs, int n, uint64_t max_len, void *stream);
/* The same kernels on the CPU; stream is ignored and the work is done on return. */
int pq_kern_launch_shim(const struct pq_kdesc *descs, int n, uint64_t max_len, void *stream);

#ifdef __cplusplus
}
#endif

#endif
