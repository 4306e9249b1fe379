/*
 * pq_cuda_shim.h - lets a .cu file that uses only one-thread-per-column kernels (no shared
 * memory, no __syncthreads) compile with g++ and run on the CPU, so that the exact kernel
 * source is tested on machines without a GPU. Under nvcc it only supplies PQ_LAUNCH.
 *
 * Outside nvcc: the CUDA qualifiers become nothing, uint4/dim3 get plain definitions, and
 * PQ_LAUNCH runs the kernel body once for every (block, thread) pair in order, with
 * blockIdx/threadIdx/blockDim/gridDim as thread-local variables the loop sets.
 */
#ifndef RAID_PARITY_CUDA_PQ_CUDA_SHIM_H
#define RAID_PARITY_CUDA_PQ_CUDA_SHIM_H

#ifdef __CUDACC__

#define PQ_LAUNCH(kern, grid, block, stream, ...)                                                  \
	kern<<<(grid), (block), 0, (stream)>>>(__VA_ARGS__)

#else /* CPU shim */

#include <stdint.h>

#define __global__
#define __device__
#define __host__
#define __forceinline__ inline
#define __restrict__ __restrict

struct uint4 {
	uint32_t x, y, z, w;
};

struct dim3 {
	unsigned x, y, z;
	dim3(unsigned vx = 1, unsigned vy = 1, unsigned vz = 1) : x(vx), y(vy), z(vz)
	{
	}
};

typedef void *cudaStream_t;

static thread_local dim3 blockIdx, threadIdx, blockDim, gridDim;

/* Sequential, so a kernel that needs threads to run together would hang or fail here: ours
 * never do, by design. */
template <typename F> static void pq_shim_launch(dim3 grid, dim3 block, F body)
{
	gridDim = grid;
	blockDim = block;
	for (unsigned bz = 0; bz < grid.z; bz++)
		for (unsigned by = 0; by < grid.y; by++)
			for (unsigned bx = 0; bx < grid.x; bx++) {
				blockIdx = dim3(bx, by, bz);
				for (unsigned tz = 0; tz < block.z; tz++)
					for (unsigned ty = 0; ty < block.y; ty++)
						for (unsigned tx = 0; tx < block.x; tx++) {
							threadIdx = dim3(tx, ty, tz);
							body();
						}
			}
}

#define PQ_LAUNCH(kern, grid, block, stream, ...)                                                  \
	pq_shim_launch((grid), (block), [&]() { kern(__VA_ARGS__); })

#endif /* __CUDACC__ */

#endif
