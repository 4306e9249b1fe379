/*
 * pq_gpu_bench.c - the GPU path's measurements (pq_gpu_bench.h), built on pq_gpu.h alone so
 * it compiles in every build (without CUDA it reports -ENODEV and emits nothing).
 *
 * References come from the same run, because a GPU's figures vary with the host and its PCIe
 * link: kernel rows are compared with device-to-device copy bandwidth (a memory-bound kernel
 * can at best move bytes that fast), end-to-end rows with pinned host-to-device copies (the
 * data has to cross the link once).
 */
#include <errno.h>
#include <json-c/json.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "pq_gpu.h"
#include "pq_gpu_bench.h"

#define BENCH_K 10
#define BENCH_CHUNK (64 << 10)
#define BENCH_MAX_BATCH 1024

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void emit_row(pq_gpu_bench_emit_fn emit, void *ctx, const char *impl, const char *op, int k,
		     size_t chunk, int batch, const char *mode, double gbps, double ratio)
{
	struct pq_gpu_bench_row r = {impl, op, k, chunk, batch, mode, gbps, ratio};

	emit(ctx, &r);
}

/* Copy bandwidths in GB/s (bytes copied); 0 when a measurement failed. */
static double copy_gbps(struct pq_gpu *g, int dir, size_t bytes, int iters)
{
	double sec = 0;

	if (pq_gpu_time_copy(g, dir, bytes, iters, &sec) || sec <= 0)
		return 0;
	return (double)bytes * iters / sec / 1e9;
}

static double kernel_gbps(struct pq_gpu *g, enum pq_gpu_op op, int k, size_t len, int n,
			  size_t target)
{
	size_t per = (size_t)n * k * len;
	int iters = (int)(target / per);
	double sec = 0;

	if (iters < 3)
		iters = 3;
	if (iters > 2000)
		iters = 2000;
	if (pq_gpu_time_kernel(g, op, k, len, n, iters, &sec) || sec <= 0)
		return 0;
	return (double)per * iters / sec / 1e9;
}

struct e2e_done {
	int failed;
};

static void e2e_cb(void *arg, int status)
{
	struct e2e_done *d = arg;

	if (status)
		d->failed = 1;
}

/*
 * End to end: gen P+Q of `batch` stripes per submit, every slot kept busy, host blocks in a
 * pinned pool of two batches per slot, at most 2048 stripes (1.5 GiB): at the largest batches,
 * batches in flight then share blocks, which is harmless as they write the same parity.
 * GB/s of data blocks.
 */
static double e2e_gbps(int device, int mapped, int batch, size_t target)
{
	struct pq_gpu_opts o;
	struct pq_gpu *g;
	char err[256];
	const size_t stripe = (size_t)(BENCH_K + 2) * BENCH_CHUNK;
	struct pq_gpu_stripe *st = NULL;
	void **ptrs = NULL;
	struct e2e_done done = {0};
	double gbps = 0;
	uint8_t *pool;
	int nstripes, total, submitted = 0;

	pq_gpu_opts_default(&o);
	o.device = device;
	o.batch = batch;
	o.max_k = BENCH_K;
	o.max_len = BENCH_CHUNK;
	o.mapped = mapped;
	if (pq_gpu_open(&o, &g, err, sizeof(err))) {
		fprintf(stderr, "pq_gpu_bench: %s\n", err);
		return 0;
	}
	nstripes = 2 * o.slots * batch;
	if (nstripes > 2 * BENCH_MAX_BATCH)
		nstripes = 2 * BENCH_MAX_BATCH;
	if (nstripes < batch)
		nstripes = batch;
	pool = pq_gpu_alloc_host(g, nstripes * stripe);
	st = calloc(nstripes, sizeof(*st));
	ptrs = calloc((size_t)nstripes * (BENCH_K + 2), sizeof(*ptrs));
	if (!pool || !st || !ptrs)
		goto out;
	memset(pool, 0x5a, nstripes * stripe);
	for (int j = 0; j < nstripes; j++) {
		st[j] = (struct pq_gpu_stripe){
		    PQ_GPU_GEN_PQ, BENCH_K, 0, 0, BENCH_CHUNK, &ptrs[(size_t)j * (BENCH_K + 2)]};
		for (int i = 0; i < BENCH_K + 2; i++)
			st[j].ptrs[i] = pool + j * stripe + (size_t)i * BENCH_CHUNK;
	}
	total = (int)(target / ((size_t)batch * BENCH_K * BENCH_CHUNK));
	if (total < 2 * o.slots)
		total = 2 * o.slots;
	double t0 = now();

	for (int first = 0; submitted < total;) {
		int r = pq_gpu_submit(g, &st[first], batch, e2e_cb, &done);

		if (r == -EAGAIN) {
			if (!pq_gpu_poll(g))
				sched_yield();
			continue;
		}
		if (r) {
			fprintf(stderr, "pq_gpu_bench: submit: %s\n", strerror(-r));
			goto out;
		}
		submitted++;
		first = (first + batch) % nstripes;
		if (first + batch > nstripes)
			first = 0;
	}
	if (pq_gpu_wait(g) || done.failed)
		goto out;
	gbps = (double)total * batch * BENCH_K * BENCH_CHUNK / (now() - t0) / 1e9;
out:
	pq_gpu_wait(g);
	pq_gpu_free_host(g, pool);
	free(st);
	free(ptrs);
	pq_gpu_close(g);
	return gbps;
}

int pq_gpu_bench_run(int device, int quick, pq_gpu_bench_emit_fn emit, void *ctx, char *why,
		     size_t why_len)
{
	static const int batches[] = {1, 4, 16, 64, 256, 1024};
	const int nb = sizeof(batches) / sizeof(batches[0]);
	const size_t copy_bytes = (size_t)(quick ? 64 : 256) << 20;
	const size_t target = (size_t)(quick ? 1 : 4) << 30; /* data bytes per figure */
	struct pq_gpu_opts o;
	struct pq_gpu *g;
	double h2d, d2h, d2d;
	int ret;

	pq_gpu_opts_default(&o);
	o.device = device;
	o.batch = 1;
	o.max_k = BENCH_K;
	o.max_len = BENCH_CHUNK;
	o.slots = 1;
	if ((ret = pq_gpu_open(&o, &g, why, why_len)))
		return ret;

	h2d = copy_gbps(g, 0, copy_bytes, 8);
	d2h = copy_gbps(g, 1, copy_bytes, 8);
	d2d = copy_gbps(g, 2, copy_bytes, 8);
	emit_row(emit, ctx, "pcie-h2d", "copy", 0, copy_bytes, 0, "pinned", h2d, 0);
	emit_row(emit, ctx, "pcie-d2h", "copy", 0, copy_bytes, 0, "pinned", d2h, 0);
	emit_row(emit, ctx, "cuda-d2d", "copy", 0, copy_bytes, 0, "device", d2d, 0);

	/* kernel ratio: device memory traffic ((k+2)/k of the data) over a copy's (2x bytes) */
	const double traffic = (double)(BENCH_K + 2) / BENCH_K;

	for (int i = 0; i < nb; i++) {
		if (quick && (i & 1))
			continue;
		double gb = kernel_gbps(g, PQ_GPU_GEN_PQ, BENCH_K, BENCH_CHUNK, batches[i], target);

		emit_row(emit, ctx, "cuda", "gen", BENCH_K, BENCH_CHUNK, batches[i], "kernel", gb,
			 d2d > 0 ? gb * traffic / (2 * d2d) : 0);
	}
	const int big = batches[nb - 1];
	double rmw = kernel_gbps(g, PQ_GPU_XOR_PQ, BENCH_K, BENCH_CHUNK, big, target);
	double rec = kernel_gbps(g, PQ_GPU_RECOV_2D, BENCH_K, BENCH_CHUNK, big, target);

	/* rmw reads D_0..D_{k-1}, P, Q and writes P, Q; recov2 reads k, writes 2 */
	emit_row(emit, ctx, "cuda", "rmw", BENCH_K, BENCH_CHUNK, big, "kernel", rmw,
		 d2d > 0 ? rmw * (BENCH_K + 4.0) / BENCH_K / (2 * d2d) : 0);
	emit_row(emit, ctx, "cuda", "recov2", BENCH_K, BENCH_CHUNK, big, "kernel", rec,
		 d2d > 0 ? rec * traffic / (2 * d2d) : 0);
	pq_gpu_close(g);

	for (int mapped = 0; mapped <= 1; mapped++)
		for (int i = 0; i < nb; i++) {
			if (quick && (i & 1))
				continue;
			double gb = e2e_gbps(device, mapped, batches[i], target);

			emit_row(emit, ctx, "cuda", "gen", BENCH_K, BENCH_CHUNK, batches[i],
				 mapped ? "mapped" : "copy", gb, h2d > 0 ? gb / h2d : 0);
		}
	return 0;
}

struct rows_out {
	json_object *rows;
	FILE *table;
	int n;
};

static void rows_emit(void *ctx, const struct pq_gpu_bench_row *r)
{
	struct rows_out *o = ctx;

	o->n++;
	if (!o->rows) {
		fprintf(o->table, "%-9s %-7s %3d %9zu %5d %-7s %9.2f", r->impl, r->op, r->k,
			r->chunk, r->batch, r->mode, r->gbps);
		if (r->ratio > 0)
			fprintf(o->table, " %6.2f", r->ratio);
		fprintf(o->table, "\n");
		fflush(o->table);
		return;
	}
	json_object *j = json_object_new_object();

	json_object_object_add(j, "impl", json_object_new_string(r->impl));
	json_object_object_add(j, "op", json_object_new_string(r->op));
	json_object_object_add(j, "k", json_object_new_int(r->k));
	json_object_object_add(j, "chunk", json_object_new_int64((int64_t)r->chunk));
	json_object_object_add(j, "batch", json_object_new_int(r->batch));
	json_object_object_add(j, "mode", json_object_new_string(r->mode));
	json_object_object_add(j, "gbps", json_object_new_double(r->gbps));
	json_object_object_add(j, "ratio", json_object_new_double(r->ratio));
	json_object_array_add(o->rows, j);
}

int pq_gpu_bench_rows(struct json_object *rows, FILE *table, int quick)
{
	struct rows_out o = {rows, table, 0};
	const char *env = getenv("RAID_GPU");
	int dev = env ? atoi(env) : 0;
	char why[256];

	if (!pq_gpu_usable(dev, why, sizeof(why))) {
		fprintf(rows ? stderr : table, "no cuda rows: %s\n", why);
		return 0;
	}
	if (!rows)
		fprintf(
		    table,
		    "GPU (cuda) ratio: kernel rows of device memory bandwidth, copy/mapped rows "
		    "of pinned host-to-device\n%-9s %-7s %3s %9s %5s %-7s %9s %6s\n",
		    "impl", "op", "k", "chunk", "batch", "mode", "GB/s", "ratio");
	if (pq_gpu_bench_run(dev, quick, rows_emit, &o, why, sizeof(why)))
		fprintf(rows ? stderr : table, "no cuda rows: %s\n", why);
	return o.n;
}
