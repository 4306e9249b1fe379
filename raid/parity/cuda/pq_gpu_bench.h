/*
 * pq_gpu_bench.h - the GPU path's measurements, as rows a benchmark program prints: kernel
 * only (blocks already in device memory), end to end through pq_gpu_submit (host blocks in,
 * parity out; copy and mapped modes) for batches of 1 to 1024 stripes, and the pinned copy
 * bandwidths of the same run that those figures are judged against.
 */
#ifndef RAID_PARITY_CUDA_PQ_GPU_BENCH_H
#define RAID_PARITY_CUDA_PQ_GPU_BENCH_H

#include <stddef.h>
#include <stdio.h>

struct json_object;

#ifdef __cplusplus
extern "C" {
#endif

struct pq_gpu_bench_row {
	const char *impl; /* "cuda", or the references "pcie-h2d", "pcie-d2h", "cuda-d2d" */
	const char *op;	  /* "gen" (P+Q), "rmw" (xor_syndrome), "recov2", or "copy" */
	int k;		  /* data blocks (0 for copies) */
	size_t chunk;	  /* bytes per block (bytes per copy for copies) */
	int batch;	  /* stripes per launch (0 for copies) */
	const char *mode; /* "kernel", "copy", "mapped" (end to end), or "pinned" for copies */
	double gbps;	  /* data bytes per second / 1e9 (bytes copied for copies) */
	double ratio;	  /* against the reference of the same run (see docs/gpu.md), or 0 */
};

typedef void (*pq_gpu_bench_emit_fn)(void *ctx, const struct pq_gpu_bench_row *r);

/*
 * Measure on device `device` and call emit once a row. quick: fewer batch sizes and bytes.
 * 0, or -ENODEV (no usable GPU; nothing emitted) with the reason in why.
 */
int pq_gpu_bench_run(int device, int quick, pq_gpu_bench_emit_fn emit, void *ctx, char *why,
		     size_t why_len);

/*
 * For raid-parity-bench and raid-gpu-bench: measure, then append the rows to `rows` (a
 * json-c array of {impl, op, k, chunk, batch, mode, gbps, ratio}) or, rows NULL, print them
 * as a table on `table`. Without a GPU: one line saying why (on stderr when rows is given,
 * else on table) and no rows. Returns the number of rows.
 */
int pq_gpu_bench_rows(struct json_object *rows, FILE *table, int quick);

#ifdef __cplusplus
}
#endif

#endif
