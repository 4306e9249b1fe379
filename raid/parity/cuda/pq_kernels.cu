/*
 * pq_kernels.cu - the parity kernels: P/Q generation, md's xor_syndrome update and the
 * recoveries, for a batch of stripes in one launch. One thread per column (the same 16, 8, 4
 * or 1 bytes of every block of a stripe); grid.y picks the stripe, grid.x strides over
 * columns. No shared memory and no __syncthreads, so pq_cuda_shim.h can run this same file on
 * the CPU, where the tests compare it with pq_calls_base.
 *
 * The GF(2^8) arithmetic works on packed bytes with shifts and masks only: multiplying by
 * g = 2 is a shift with 0x1d folded in, and multiplying by a constant is at most eight such
 * steps. No tables, because table lookups with per-byte indices serialise on a GPU.
 */
#include <stddef.h>
#include <stdint.h>

#include "pq_cuda_shim.h"
#include "pq_kdesc.h"
#include "pq_kernels.h"

static __device__ __forceinline__ uint32_t wmul2(uint32_t v)
{
	uint32_t hi = v & 0x80808080u;

	return ((v << 1) & 0xfefefefeu) ^ ((hi >> 7) * 0x1du);
}

static __device__ __forceinline__ uint64_t wmul2(uint64_t v)
{
	uint64_t hi = v & 0x8080808080808080ull;

	return ((v << 1) & 0xfefefefefefefefeull) ^ ((hi >> 7) * 0x1dull);
}

static __device__ __forceinline__ uint8_t wmul2(uint8_t v)
{
	return (uint8_t)wmul2((uint32_t)v);
}

static __device__ __forceinline__ uint4 wmul2(uint4 v)
{
	uint4 r;

	r.x = wmul2(v.x);
	r.y = wmul2(v.y);
	r.z = wmul2(v.z);
	r.w = wmul2(v.w);
	return r;
}

template <typename W> static __device__ __forceinline__ W wxor(W a, W b)
{
	return a ^ b;
}

template <> __device__ __forceinline__ uint4 wxor<uint4>(uint4 a, uint4 b)
{
	uint4 r;

	r.x = a.x ^ b.x;
	r.y = a.y ^ b.y;
	r.z = a.z ^ b.z;
	r.w = a.w ^ b.w;
	return r;
}

template <typename W> static __device__ __forceinline__ W wzero()
{
	return 0;
}

template <> __device__ __forceinline__ uint4 wzero<uint4>()
{
	uint4 r;

	r.x = r.y = r.z = r.w = 0;
	return r;
}

/* c * v in GF(2^8), c the same for every thread of the stripe (so the branch is uniform) */
template <typename W> static __device__ __forceinline__ W wmulc(W v, unsigned c)
{
	W r = wzero<W>();

	for (; c; c >>= 1) {
		if (c & 1)
			r = wxor(r, v);
		v = wmul2(v);
	}
	return r;
}

/* P and Q of the data blocks other than fa and fb (pass -1 to skip none) */
template <typename W>
static __device__ __forceinline__ void syndrome_without(W *const *p, int k, int fa, int fb,
							size_t c, W *sp, W *sq)
{
	W wp = wzero<W>(), wq = wzero<W>();

	for (int i = k - 1; i >= 0; i--) {
		wq = wmul2(wq);
		if (i == fa || i == fb)
			continue;
		W v = p[i][c];

		wp = wxor(wp, v);
		wq = wxor(wq, v);
	}
	*sp = wp;
	*sq = wq;
}

template <typename W>
static __device__ void stripe_cols(const struct pq_kdesc *__restrict__ d, size_t c, size_t step)
{
	W *const *p = (W *const *)d->ptrs;
	const int k = d->k, a = d->a, b = d->b;
	const size_t ncol = d->len >> d->wshift;

	switch (d->op) {
	case PQ_GPU_GEN_P:
		for (; c < ncol; c += step) {
			W wp = p[0][c];

#pragma unroll 4
			for (int i = 1; i < k; i++)
				wp = wxor(wp, p[i][c]);
			p[k][c] = wp;
		}
		break;
	case PQ_GPU_GEN_PQ:
		for (; c < ncol; c += step) {
			/* Horner from the highest block down, as md does */
			W wp = p[k - 1][c], wq = wp;

#pragma unroll 4
			for (int i = k - 2; i >= 0; i--) {
				W v = p[i][c];

				wp = wxor(wp, v);
				wq = wxor(wmul2(wq), v);
			}
			p[k][c] = wp;
			p[k + 1][c] = wq;
		}
		break;
	case PQ_GPU_XOR_P:
		for (; c < ncol; c += step) {
			W wp = p[k][c];

			for (int i = a; i <= b; i++)
				wp = wxor(wp, p[i][c]);
			p[k][c] = wp;
		}
		break;
	case PQ_GPU_XOR_PQ:
		for (; c < ncol; c += step) {
			W wp = p[b][c], wq = wp;

			for (int i = b - 1; i >= a; i--) {
				W v = p[i][c];

				wp = wxor(wp, v);
				wq = wxor(wmul2(wq), v);
			}
			for (int i = 0; i < a; i++) /* the sum is relative to D_a: scale to g^a */
				wq = wmul2(wq);
			p[k][c] = wxor(p[k][c], wp);
			p[k + 1][c] = wxor(p[k + 1][c], wq);
		}
		break;
	case PQ_GPU_RECOV_2D:
		for (; c < ncol; c += step) {
			W sp, sq;

			syndrome_without(p, k, a, b, c, &sp, &sq);
			/* left over: D_a ^ D_b in P, g^a D_a ^ g^b D_b in Q */
			W px = wxor(sp, p[k][c]), qx = wxor(sq, p[k + 1][c]);
			W db = wxor(wmulc(px, d->c0), wmulc(qx, d->c1));

			p[b][c] = db;
			p[a][c] = wxor(px, db);
		}
		break;
	case PQ_GPU_RECOV_DP:
		for (; c < ncol; c += step) {
			W sp, sq;

			syndrome_without(p, k, a, -1, c, &sp, &sq);
			W da = wmulc(wxor(sq, p[k + 1][c]), d->c0); /* c0 = g^-a */

			p[a][c] = da;
			p[k][c] = wxor(sp, da);
		}
		break;
	case PQ_GPU_RECOV_1D_P:
		for (; c < ncol; c += step) {
			W wp = p[k][c];

			for (int i = 0; i < k; i++)
				if (i != a)
					wp = wxor(wp, p[i][c]);
			p[a][c] = wp;
		}
		break;
	case PQ_GPU_RECOV_DQ:
		for (; c < ncol; c += step) {
			W sp, sq;

			syndrome_without(p, k, a, -1, c, &sp, &sq);
			W da = wxor(sp, p[k][c]);

			p[a][c] = da;
			p[k + 1][c] = wxor(sq, wmulc(da, d->c0)); /* c0 = g^a */
		}
		break;
	}
}

__global__ void pq_batch_kernel(const struct pq_kdesc *__restrict__ descs)
{
	const struct pq_kdesc *d = &descs[blockIdx.y];
	size_t c = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	size_t step = (size_t)gridDim.x * blockDim.x;

	switch (d->wshift) {
	case 4:
		stripe_cols<uint4>(d, c, step);
		break;
	case 3:
		stripe_cols<uint64_t>(d, c, step);
		break;
	case 2:
		stripe_cols<uint32_t>(d, c, step);
		break;
	default:
		stripe_cols<uint8_t>(d, c, step);
		break;
	}
}

#define PQ_KERN_THREADS 256u
#define PQ_KERN_MAX_GRID_X 1024u /* enough blocks in flight; more only adds scheduling */

#ifdef __CUDACC__
#define PQ_KERN_SYM pq_kern_launch
#else
#define PQ_KERN_SYM pq_kern_launch_shim
#endif

extern "C" int PQ_KERN_SYM(const struct pq_kdesc *descs, int n, uint64_t max_len, void *stream)
{
	if (n <= 0)
		return 0;
	if (n > PQ_KERN_MAX_BATCH)
		return 1; /* cudaErrorInvalidValue */
	/* sized for 16-byte columns; narrower stripes loop a few more times */
	uint64_t bx = (max_len / 16 + PQ_KERN_THREADS - 1) / PQ_KERN_THREADS;

	if (bx < 1)
		bx = 1;
	if (bx > PQ_KERN_MAX_GRID_X)
		bx = PQ_KERN_MAX_GRID_X;
	dim3 grid((unsigned)bx, (unsigned)n), block(PQ_KERN_THREADS);

	PQ_LAUNCH(pq_batch_kernel, grid, block, (cudaStream_t)stream, descs);
#ifdef __CUDACC__
	return (int)cudaGetLastError();
#else
	return 0;
#endif
}
