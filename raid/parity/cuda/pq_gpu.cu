/*
 * pq_gpu.cu - the GPU parity path's host side on the CUDA runtime (API in pq_gpu.h): device
 * probing, the context with its slots (one stream, descriptor buffers and, in copy mode, a
 * device arena each), the registry of pinned host memory, submission and completion, and the
 * timing hooks of the benchmark. Planning is in pq_plan.c and the kernels in pq_kernels.cu.
 *
 * A submit only enqueues work (copies in, the descriptor copy, one launch, copies out, a
 * stream callback) on a free slot's stream and returns, so a fio job thread never waits for
 * the GPU; the stream callback marks the slot done, and the user's callback runs there or in
 * pq_gpu_poll(). Slots are claimed and released with atomics, never under a lock.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pq_gpu.h"
#include "pq_kernels.h"
#include "pq_plan.h"
#include "pq_ranges.h"

enum { SLOT_FREE, SLOT_BUSY, SLOT_DONE, SLOT_CLAIMED };

struct pq_gpu_slot {
	struct pq_gpu *g;
	cudaStream_t stream;
	struct pq_kdesc *hdesc; /* pinned staging of the descriptors */
	struct pq_kdesc *ddesc; /* the device copy the kernel reads */
	char *arena;		/* copy mode: the blocks of one batch */
	struct pq_copy *h2d, *d2h;
	void **bdst; /* scratch for cudaMemcpyBatchAsync */
	void **bsrc;
	size_t *bsize;
	pq_gpu_done_fn fn;
	void *arg;
	int state;  /* SLOT_*, atomic */
	int status; /* written by the stream callback before state becomes DONE */
};

struct pq_gpu {
	struct pq_gpu_opts o;
	struct pq_gpu_slot *slots;
	size_t arena_len;
	int next;     /* where the search for a free slot starts */
	int inflight; /* submitted and not yet called back, atomic */
	int no_batch_copy;
	struct pq_ranges pinned; /* the registry of pinned host memory */
	struct cudaDeviceProp prop;
};

/* the one-line reasons go to the caller's buffer, which may be absent */
static void __attribute__((format(printf, 3, 4))) ERR(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (!buf || !len)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

static int probe(int device, char *why, size_t why_len)
{
	int count = 0;
	cudaError_t e = cudaGetDeviceCount(&count);

	if (e != cudaSuccess) {
		ERR(why, why_len, "cudaGetDeviceCount: %s (%d)", cudaGetErrorString(e), (int)e);
		cudaGetLastError(); /* not sticky: clear it so it leaks into no later call */
		return 0;
	}
	if (count <= 0) {
		ERR(why, why_len, "cudaGetDeviceCount: no CUDA device");
		return 0;
	}
	if (device < 0 || device >= count) {
		ERR(why, why_len, "raid_gpu=%d: no such device (%d present)", device, count);
		return 0;
	}
	return 1;
}

extern "C" int pq_gpu_usable(int device, char *why, size_t why_len)
{
	return probe(device, why, why_len);
}

static void slot_free(struct pq_gpu_slot *s)
{
	if (s->stream)
		cudaStreamDestroy(s->stream);
	cudaFreeHost(s->hdesc);
	cudaFree(s->ddesc);
	cudaFree(s->arena);
	free(s->h2d);
	free(s->d2h);
	free(s->bdst);
	free(s->bsrc);
	free(s->bsize);
}

static cudaError_t slot_init(struct pq_gpu *g, struct pq_gpu_slot *s)
{
	size_t nd = g->o.batch, nc = PQ_PLAN_MAX_COPIES(g->o.batch);
	cudaError_t e;

	s->g = g;
	if ((e = cudaStreamCreateWithFlags(&s->stream, cudaStreamNonBlocking)) ||
	    (e = cudaHostAlloc((void **)&s->hdesc, nd * sizeof(*s->hdesc), cudaHostAllocDefault)) ||
	    (e = cudaMalloc((void **)&s->ddesc, nd * sizeof(*s->ddesc))))
		return e;
	if (!g->o.mapped && (e = cudaMalloc((void **)&s->arena, g->arena_len)))
		return e;
	s->h2d = (struct pq_copy *)calloc(nc, sizeof(*s->h2d));
	s->d2h = (struct pq_copy *)calloc(nc, sizeof(*s->d2h));
	s->bdst = (void **)calloc(nc, sizeof(void *));
	s->bsrc = (void **)calloc(nc, sizeof(void *));
	s->bsize = (size_t *)calloc(nc, sizeof(size_t));
	if (!s->h2d || !s->d2h || !s->bdst || !s->bsrc || !s->bsize)
		return cudaErrorMemoryAllocation;
	return cudaSuccess;
}

extern "C" int pq_gpu_open(const struct pq_gpu_opts *o, struct pq_gpu **out, char *err,
			   size_t err_len)
{
	char why[256];
	struct pq_gpu *g;
	cudaError_t e;
	int can_map = 0;

	*out = NULL;
	if (!probe(o->device, why, sizeof(why))) {
		ERR(err, err_len, "no usable GPU: %s", why);
		return -ENODEV;
	}
	if (o->batch < 1 || o->batch > PQ_KERN_MAX_BATCH) {
		ERR(err, err_len, "raid_gpu_batch=%d: must be 1 to %d", o->batch,
		    PQ_KERN_MAX_BATCH);
		return -EINVAL;
	}
	if (o->max_k < 1 || o->max_k > PQ_MAX_DATA || o->max_len == 0 ||
	    o->max_len % PQ_LEN_ALIGN || o->slots < 0 || o->slots > 64) {
		ERR(err, err_len, "GPU context: bad sizes (max_k %d, max_len %zu, slots %d)",
		    o->max_k, o->max_len, o->slots);
		return -EINVAL;
	}
	g = (struct pq_gpu *)calloc(1, sizeof(*g));
	if (!g) {
		ERR(err, err_len, "GPU context: out of memory");
		return -ENOMEM;
	}
	g->o = *o;
	if (!g->o.slots)
		g->o.slots = PQ_GPU_SLOTS_DEFAULT;
	g->arena_len = pq_plan_arena_len(g->o.max_k, g->o.max_len, g->o.batch);
	if (pq_ranges_init(&g->pinned)) {
		free(g);
		ERR(err, err_len, "GPU context: out of memory");
		return -ENOMEM;
	}
	if ((e = cudaSetDevice(o->device)) || (e = cudaGetDeviceProperties(&g->prop, o->device)) ||
	    (e = cudaDeviceGetAttribute(&can_map, cudaDevAttrCanMapHostMemory, o->device))) {
		ERR(err, err_len, "raid_gpu=%d: %s (%d)", o->device, cudaGetErrorString(e), (int)e);
		goto err;
	}
	if (o->mapped && !can_map) {
		ERR(err, err_len, "raid_gpu=%d: %s cannot map host memory", o->device,
		    g->prop.name);
		e = cudaErrorNotSupported;
		goto err;
	}
	g->slots = (struct pq_gpu_slot *)calloc(g->o.slots, sizeof(*g->slots));
	if (!g->slots) {
		e = cudaErrorMemoryAllocation;
		ERR(err, err_len, "GPU context: out of memory");
		goto err;
	}
	for (int i = 0; i < g->o.slots; i++) {
		if ((e = slot_init(g, &g->slots[i]))) {
			ERR(err, err_len,
			    "raid_gpu=%d: cannot set up %d batches of %d stripes (%zu device bytes "
			    "each): %s (%d)",
			    o->device, g->o.slots, g->o.batch, g->arena_len, cudaGetErrorString(e),
			    (int)e);
			goto err;
		}
	}
	*out = g;
	return 0;
err:
	cudaGetLastError();
	pq_gpu_close(g);
	return e == cudaErrorMemoryAllocation ? -ENOMEM : -ENODEV;
}

/* --- the registry of pinned host memory --- */

static int range_add(struct pq_gpu *g, void *base, size_t len, int alloc, int owned)
{
	void *dev = NULL;
	struct pq_range r;

	if (cudaHostGetDevicePointer(&dev, base, 0) != cudaSuccess) {
		cudaGetLastError();
		dev = NULL; /* copy mode still works; mapped submits will see -EFAULT */
	}
	r = (struct pq_range){(char *)base, (char *)dev, len, alloc, owned};
	return pq_ranges_add(&g->pinned, &r);
}

extern "C" void *pq_gpu_alloc_host(struct pq_gpu *g, size_t len)
{
	void *p = NULL;

	cudaSetDevice(g->o.device);
	if (cudaHostAlloc(&p, len, cudaHostAllocMapped | cudaHostAllocPortable) != cudaSuccess) {
		cudaGetLastError();
		return NULL;
	}
	if (range_add(g, p, len, 1, 1)) {
		cudaFreeHost(p);
		return NULL;
	}
	return p;
}

extern "C" void pq_gpu_free_host(struct pq_gpu *g, void *p)
{
	struct pq_range r;

	if (p && !pq_ranges_del(&g->pinned, p, 1, &r))
		cudaFreeHost(p);
}

extern "C" int pq_gpu_register(struct pq_gpu *g, void *buf, size_t len)
{
	int owned = 1;
	cudaError_t e;

	cudaSetDevice(g->o.device);
	e = cudaHostRegister(buf, len, cudaHostRegisterMapped | cudaHostRegisterPortable);
	if (e == cudaErrorHostMemoryAlreadyRegistered)
		owned = 0; /* pinned by someone else: usable, but not ours to unpin */
	else if (e != cudaSuccess) {
		cudaGetLastError();
		return e == cudaErrorMemoryAllocation ? -ENOMEM : -EFAULT;
	}
	cudaGetLastError();
	return range_add(g, buf, len, 0, owned);
}

extern "C" int pq_gpu_unregister(struct pq_gpu *g, void *buf)
{
	struct pq_range r;
	int ret = pq_ranges_del(&g->pinned, buf, 0, &r);

	if (!ret && r.owned)
		cudaHostUnregister(buf);
	return ret;
}

extern "C" int pq_gpu_pinned(struct pq_gpu *g, const void *p, size_t len)
{
	int ret;

	pq_ranges_rdlock(&g->pinned);
	ret = pq_ranges_find(&g->pinned, p, len) != NULL;
	pq_ranges_unlock(&g->pinned);
	return ret;
}

/* Both run under the registry's read lock (pq_gpu_submit). */
static void *xlate(void *ctx, void *p, size_t len)
{
	struct pq_gpu *g = (struct pq_gpu *)ctx;
	const struct pq_range *r = pq_ranges_find(&g->pinned, p, len);

	if (!r || !r->dev)
		return NULL;
	return r->dev + ((char *)p - r->base);
}

/* Copy mode: every block read or written must be pinned, or the copy would block. */
static int check_pinned(struct pq_gpu *g, const struct pq_gpu_stripe *s, int n)
{
	for (int j = 0; j < n; j++) {
		uint64_t in, out;

		pq_plan_io(&s[j], &in, &out);
		for (int i = 0; i < s[j].k + 2; i++)
			if (((in | out) >> i & 1) &&
			    !pq_ranges_find(&g->pinned, s[j].ptrs[i], s[j].len))
				return -EFAULT;
	}
	return 0;
}

/* --- submission and completion --- */

static void CUDART_CB on_stream_done(cudaStream_t st, cudaError_t e, void *p)
{
	struct pq_gpu_slot *s = (struct pq_gpu_slot *)p;
	struct pq_gpu *g = s->g;

	s->status = e == cudaSuccess ? 0 : -EIO;
	if (g->o.notify_thread) {
		pq_gpu_done_fn fn = s->fn;
		void *arg = s->arg;
		int status = s->status;

		__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
		fn(arg, status);
		__atomic_sub_fetch(&g->inflight, 1, __ATOMIC_ACQ_REL);
	} else {
		__atomic_store_n(&s->state, SLOT_DONE, __ATOMIC_RELEASE);
	}
}

static struct pq_gpu_slot *slot_claim(struct pq_gpu *g)
{
	int start = __atomic_load_n(&g->next, __ATOMIC_RELAXED);

	for (int i = 0; i < g->o.slots; i++) {
		int idx = (start + i) % g->o.slots;
		int want = SLOT_FREE;

		if (__atomic_compare_exchange_n(&g->slots[idx].state, &want, SLOT_BUSY, 0,
						__ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			__atomic_store_n(&g->next, (idx + 1) % g->o.slots, __ATOMIC_RELAXED);
			return &g->slots[idx];
		}
	}
	return NULL;
}

static cudaError_t copies(struct pq_gpu *g, struct pq_gpu_slot *s, const struct pq_copy *c, int n,
			  enum cudaMemcpyKind kind)
{
	cudaError_t e;

	if (n > 1 && !__atomic_load_n(&g->no_batch_copy, __ATOMIC_RELAXED)) {
		/* one call for the whole list: per-block calls would cost more than the copies */
		struct cudaMemcpyAttributes attr;
		size_t first = 0;

		memset(&attr, 0, sizeof(attr));
		attr.srcAccessOrder = cudaMemcpySrcAccessOrderStream;
		attr.flags = cudaMemcpyFlagPreferOverlapWithCompute;
		for (int i = 0; i < n; i++) {
			s->bdst[i] = c[i].dst;
			s->bsrc[i] = (void *)c[i].src;
			s->bsize[i] = c[i].len;
		}
		e = cudaMemcpyBatchAsync(s->bdst, s->bsrc, s->bsize, n, &attr, &first, 1,
					 s->stream);
		if (e == cudaSuccess)
			return e;
		/* not supported here: fall back for good (the copies are idempotent) */
		cudaGetLastError();
		__atomic_store_n(&g->no_batch_copy, 1, __ATOMIC_RELAXED);
	}
	for (int i = 0; i < n; i++)
		if ((e = cudaMemcpyAsync(c[i].dst, c[i].src, c[i].len, kind, s->stream)))
			return e;
	return cudaSuccess;
}

extern "C" int pq_gpu_submit(struct pq_gpu *g, const struct pq_gpu_stripe *st, int n,
			     pq_gpu_done_fn fn, void *arg)
{
	struct pq_gpu_slot *s;
	int nh2d = 0, nd2h = 0, ret;
	uint64_t max_len = 0;
	cudaError_t e;

	if (!fn || n < 1)
		return -EINVAL;
	if (n > g->o.batch)
		return -E2BIG;
	for (int j = 0; j < n; j++) {
		if ((ret = pq_plan_check(&st[j], g->o.max_k, g->o.max_len)))
			return ret;
		if (st[j].len > max_len)
			max_len = st[j].len;
	}
	if (!(s = slot_claim(g)))
		return -EAGAIN;
	pq_ranges_rdlock(&g->pinned); /* no range moves or goes while the batch is planned */
	if (g->o.mapped)
		ret = pq_plan_mapped(st, n, xlate, g, s->hdesc);
	else if (!(ret = check_pinned(g, st, n)))
		ret = pq_plan_copy(st, n, (uintptr_t)s->arena, g->arena_len, s->hdesc, s->h2d,
				   &nh2d, s->d2h, &nd2h);
	pq_ranges_unlock(&g->pinned);
	if (ret) {
		__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
		return ret;
	}
	s->fn = fn;
	s->arg = arg;
	__atomic_add_fetch(&g->inflight, 1, __ATOMIC_ACQ_REL);
	cudaSetDevice(g->o.device);
	if ((e = copies(g, s, s->h2d, nh2d, cudaMemcpyHostToDevice)) ||
	    (e = cudaMemcpyAsync(s->ddesc, s->hdesc, n * sizeof(*s->hdesc), cudaMemcpyHostToDevice,
				 s->stream)) ||
	    (e = (cudaError_t)pq_kern_launch(s->ddesc, n, max_len, s->stream)) ||
	    (e = copies(g, s, s->d2h, nd2h, cudaMemcpyDeviceToHost)) ||
	    (e = cudaStreamAddCallback(s->stream, on_stream_done, s, 0))) {
		/* nothing will call back: drain what was queued and hand the slot back (rare, so
		 * blocking here is acceptable) */
		cudaGetLastError();
		cudaStreamSynchronize(s->stream);
		cudaGetLastError();
		__atomic_sub_fetch(&g->inflight, 1, __ATOMIC_ACQ_REL);
		__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
		return e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
	}
	return 0;
}

extern "C" int pq_gpu_poll(struct pq_gpu *g)
{
	int ran = 0;

	for (int i = 0; i < g->o.slots; i++) {
		struct pq_gpu_slot *s = &g->slots[i];
		int want = SLOT_DONE;

		/* claimed first, so two pollers never both call back one batch */
		if (!__atomic_compare_exchange_n(&s->state, &want, SLOT_CLAIMED, 0,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED))
			continue;
		pq_gpu_done_fn fn = s->fn;
		void *arg = s->arg;
		int status = s->status;

		__atomic_store_n(&s->state, SLOT_FREE, __ATOMIC_RELEASE);
		fn(arg, status);
		__atomic_sub_fetch(&g->inflight, 1, __ATOMIC_ACQ_REL);
		ran++;
	}
	return ran;
}

extern "C" int pq_gpu_inflight(struct pq_gpu *g)
{
	return __atomic_load_n(&g->inflight, __ATOMIC_ACQUIRE);
}

extern "C" int pq_gpu_wait(struct pq_gpu *g)
{
	int ret = 0;

	cudaSetDevice(g->o.device);
	for (int i = 0; i < g->o.slots; i++)
		if (g->slots[i].stream && cudaStreamSynchronize(g->slots[i].stream) != cudaSuccess)
			ret = -EIO;
	cudaGetLastError();
	/* the stream callbacks may still be returning; they never wait on us */
	while (pq_gpu_inflight(g) > 0) {
		if (!g->o.notify_thread)
			pq_gpu_poll(g);
		sched_yield();
	}
	return ret;
}

extern "C" void pq_gpu_close(struct pq_gpu *g)
{
	if (!g)
		return;
	if (g->slots) {
		pq_gpu_wait(g);
		for (int i = 0; i < g->o.slots; i++)
			slot_free(&g->slots[i]);
		free(g->slots);
	}
	for (int i = 0; i < g->pinned.n; i++) {
		struct pq_range *r = &g->pinned.r[i];

		if (r->alloc)
			cudaFreeHost(r->base);
		else if (r->owned)
			cudaHostUnregister(r->base);
	}
	cudaGetLastError();
	pq_ranges_destroy(&g->pinned);
	free(g);
}

extern "C" int pq_gpu_describe(struct pq_gpu *g, char *buf, size_t len)
{
	return snprintf(buf, len, "%s (sm_%d%d, %.1f GiB, %s mode, %d x %d stripes)", g->prop.name,
			g->prop.major, g->prop.minor, g->prop.totalGlobalMem / 1073741824.0,
			g->o.mapped ? "mapped" : "copy", g->o.slots, g->o.batch);
}

/* --- timing hooks for pq_gpu_bench.c --- */

static double elapsed(cudaEvent_t a, cudaEvent_t b)
{
	float ms = 0;

	cudaEventSynchronize(b);
	cudaEventElapsedTime(&ms, a, b);
	return ms / 1e3;
}

extern "C" int pq_gpu_time_kernel(struct pq_gpu *g, enum pq_gpu_op op, int k, size_t len, int n,
				  int iters, double *sec)
{
	size_t blocks = (size_t)n * (k + 2);
	char *buf = NULL;
	struct pq_kdesc *hd = NULL, *dd = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	cudaStream_t st = g->slots[0].stream;
	cudaError_t e = cudaSuccess;
	int ret = -EIO;

	if (k < 1 || k > PQ_MAX_DATA || n < 1 || n > PQ_KERN_MAX_BATCH || !len ||
	    len % PQ_LEN_ALIGN)
		return -EINVAL;
	cudaSetDevice(g->o.device);
	hd = (struct pq_kdesc *)calloc(n, sizeof(*hd));
	if (!hd)
		return -ENOMEM;
	if ((e = cudaMalloc((void **)&buf, blocks * len)) ||
	    (e = cudaMalloc((void **)&dd, n * sizeof(*dd))) ||
	    (e = cudaMemset(buf, 0x5a, blocks * len))) {
		ret = e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
		goto out;
	}
	for (int j = 0; j < n; j++) {
		void *ptrs[PQ_MAX_DATA + 2];
		struct pq_gpu_stripe s = {op, k, 0, op == PQ_GPU_RECOV_2D ? 1 : k - 1, len, ptrs};

		if (op == PQ_GPU_RECOV_2D && k < 2)
			goto out;
		for (int i = 0; i < k + 2; i++)
			ptrs[i] = buf + ((size_t)j * (k + 2) + i) * len;
		pq_plan_desc(&s, ptrs, &hd[j]);
	}
	if ((e = cudaMemcpy(dd, hd, n * sizeof(*dd), cudaMemcpyHostToDevice)) ||
	    (e = cudaEventCreate(&e0)) || (e = cudaEventCreate(&e1)) ||
	    (e = (cudaError_t)pq_kern_launch(dd, n, len, st))) /* warm-up */
		goto out;
	cudaEventRecord(e0, st);
	for (int i = 0; i < iters; i++)
		pq_kern_launch(dd, n, len, st);
	cudaEventRecord(e1, st);
	*sec = elapsed(e0, e1);
	ret = cudaGetLastError() == cudaSuccess ? 0 : -EIO;
out:
	if (e != cudaSuccess && !ret)
		ret = -EIO;
	cudaStreamSynchronize(st);
	cudaGetLastError();
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	cudaFree(buf);
	cudaFree(dd);
	free(hd);
	return ret;
}

extern "C" int pq_gpu_time_copy(struct pq_gpu *g, int dir, size_t bytes, int iters, double *sec)
{
	static const enum cudaMemcpyKind kinds[] = {cudaMemcpyHostToDevice, cudaMemcpyDeviceToHost,
						    cudaMemcpyDeviceToDevice};
	char *host = NULL, *d0 = NULL, *d1 = NULL;
	cudaEvent_t e0 = NULL, e1 = NULL;
	cudaStream_t st = g->slots[0].stream;
	cudaError_t e;
	int ret = -EIO;

	if (dir < 0 || dir > 2 || !bytes)
		return -EINVAL;
	cudaSetDevice(g->o.device);
	if ((e = cudaMalloc((void **)&d0, bytes)) ||
	    (dir == 2 ? (e = cudaMalloc((void **)&d1, bytes))
		      : (e = cudaHostAlloc((void **)&host, bytes, cudaHostAllocDefault))) ||
	    (e = cudaEventCreate(&e0)) || (e = cudaEventCreate(&e1))) {
		ret = e == cudaErrorMemoryAllocation ? -ENOMEM : -EIO;
		goto out;
	}
	if (host)
		memset(host, 0x5a, bytes); /* fault the pages in before timing */
	char *dst, *src;

	dst = dir == 0 ? d0 : dir == 1 ? host : d1;
	src = dir == 0 ? host : d0;
	cudaMemcpyAsync(dst, src, bytes, kinds[dir], st); /* warm-up */
	cudaEventRecord(e0, st);
	for (int i = 0; i < iters; i++)
		cudaMemcpyAsync(dst, src, bytes, kinds[dir], st);
	cudaEventRecord(e1, st);
	*sec = elapsed(e0, e1);
	ret = cudaGetLastError() == cudaSuccess ? 0 : -EIO;
out:
	cudaStreamSynchronize(st);
	cudaGetLastError();
	if (e0)
		cudaEventDestroy(e0);
	if (e1)
		cudaEventDestroy(e1);
	cudaFree(d0);
	cudaFree(d1);
	cudaFreeHost(host);
	return ret;
}
