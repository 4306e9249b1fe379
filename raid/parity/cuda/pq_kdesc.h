/*
 * pq_kdesc.h - what one stripe of a batch looks like to the CUDA kernels: the descriptor the
 * host planner (pq_plan.c) fills and the kernels (pq_kernels.cu) read. Plain C so that C
 * code, nvcc and g++ (under the CPU shim) all see the same layout.
 */
#ifndef RAID_PARITY_CUDA_PQ_KDESC_H
#define RAID_PARITY_CUDA_PQ_KDESC_H

#include <stdint.h>

#include "parity/pq.h"

/* The operations a batch may mix; the names follow struct pq_calls and pq.h's helpers. */
enum pq_gpu_op {
	PQ_GPU_GEN_P,	   /* P from D_0..D_{k-1} */
	PQ_GPU_GEN_PQ,	   /* P and Q */
	PQ_GPU_XOR_P,	   /* P ^= D_a..D_b */
	PQ_GPU_XOR_PQ,	   /* md's xor_syndrome over D_a..D_b */
	PQ_GPU_RECOV_2D,   /* D_a and D_b lost (a < b) */
	PQ_GPU_RECOV_DP,   /* D_a and P lost */
	PQ_GPU_RECOV_1D_P, /* D_a lost, rebuilt from P (pq_recov_1d_p) */
	PQ_GPU_RECOV_DQ,   /* D_a and Q lost (pq_recov_dq) */
	PQ_GPU_NR_OPS
};

/*
 * One stripe as the kernel sees it. ptrs[] are addresses the kernel dereferences (device
 * memory, or mapped host memory); blocks the operation does not touch may be NULL.
 */
struct pq_kdesc {
	uint8_t op;	/* enum pq_gpu_op */
	uint8_t k;	/* data blocks */
	uint8_t a, b;	/* xor range, or the lost data blocks */
	uint8_t wshift; /* log2 of the bytes each thread moves per load: 0, 2, 3 or 4 */
	uint8_t c0, c1; /* GF constants of recovery, computed once on the host */
	uint8_t pad;
	uint64_t len; /* bytes per block, a multiple of PQ_LEN_ALIGN */
	void *ptrs[PQ_MAX_DATA + 2];
};

#endif
