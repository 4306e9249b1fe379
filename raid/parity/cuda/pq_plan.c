/*
 * pq_plan.c - batch planning for the GPU path (see pq_plan.h): plain C with no CUDA, shared by
 * the CUDA build (pq_gpu.cu), the no-CUDA build and the CPU-shim tests.
 */
#include <errno.h>
#include <string.h>

#include "pq_plan.h"

/* Here, not in pq_gpu.cu: the CUDA build, the stub and the tests' mock share one set. */
void pq_gpu_opts_default(struct pq_gpu_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->batch = PQ_GPU_BATCH_DEFAULT;
	o->max_k = PQ_MAX_DATA;
	o->max_len = 1 << 20;
	o->slots = PQ_GPU_SLOTS_DEFAULT;
}

int pq_gpu_stripe_on_cpu(const struct pq_calls *c, const struct pq_gpu_stripe *s)
{
	switch (s->op) {
	case PQ_GPU_GEN_P:
		c->gen_p(s->k, s->len, s->ptrs);
		break;
	case PQ_GPU_GEN_PQ:
		c->gen_pq(s->k, s->len, s->ptrs);
		break;
	case PQ_GPU_XOR_P:
		c->xor_p(s->k, s->a, s->b, s->len, s->ptrs);
		break;
	case PQ_GPU_XOR_PQ:
		c->xor_pq(s->k, s->a, s->b, s->len, s->ptrs);
		break;
	case PQ_GPU_RECOV_2D:
		c->recov_2d(s->k, s->a, s->b, s->len, s->ptrs);
		break;
	case PQ_GPU_RECOV_DP:
		c->recov_dp(s->k, s->a, s->len, s->ptrs);
		break;
	case PQ_GPU_RECOV_1D_P:
		pq_recov_1d_p(c, s->k, s->a, s->len, s->ptrs);
		break;
	case PQ_GPU_RECOV_DQ:
		pq_recov_dq(c, s->k, s->a, s->len, s->ptrs);
		break;
	default:
		return -EINVAL;
	}
	return 0;
}

int pq_plan_check(const struct pq_gpu_stripe *s, int max_k, size_t max_len)
{
	uint64_t in, out;

	if (!s || !s->ptrs || s->op < 0 || s->op >= PQ_GPU_NR_OPS)
		return -EINVAL;
	if (s->k < 1 || s->k > PQ_MAX_DATA || s->len == 0 || s->len % PQ_LEN_ALIGN)
		return -EINVAL;
	switch (s->op) {
	case PQ_GPU_XOR_P:
	case PQ_GPU_XOR_PQ:
		if (s->a < 0 || s->a > s->b || s->b >= s->k)
			return -EINVAL;
		break;
	case PQ_GPU_RECOV_2D:
		if (s->a < 0 || s->a >= s->b || s->b >= s->k)
			return -EINVAL;
		break;
	case PQ_GPU_RECOV_DP:
	case PQ_GPU_RECOV_1D_P:
	case PQ_GPU_RECOV_DQ:
		if (s->a < 0 || s->a >= s->k)
			return -EINVAL;
		break;
	default:
		break;
	}
	pq_plan_io(s, &in, &out);
	for (int i = 0; i < s->k + 2; i++)
		if (((in | out) >> i & 1) && !s->ptrs[i])
			return -EINVAL;
	if (s->k > max_k || s->len > max_len)
		return -E2BIG;
	return 0;
}

static uint64_t range_mask(int lo, int hi) /* bits lo..hi */
{
	return (hi >= 63 ? ~0ull : (1ull << (hi + 1)) - 1) & ~((1ull << lo) - 1);
}

void pq_plan_io(const struct pq_gpu_stripe *s, uint64_t *in, uint64_t *out)
{
	const int k = s->k;
	const uint64_t data = range_mask(0, k - 1), p = 1ull << k, q = 1ull << (k + 1);
	const uint64_t fa = 1ull << s->a;

	switch (s->op) {
	case PQ_GPU_GEN_P:
		*in = data, *out = p;
		break;
	case PQ_GPU_GEN_PQ:
		*in = data, *out = p | q;
		break;
	case PQ_GPU_XOR_P:
		*in = range_mask(s->a, s->b) | p, *out = p;
		break;
	case PQ_GPU_XOR_PQ:
		*in = range_mask(s->a, s->b) | p | q, *out = p | q;
		break;
	case PQ_GPU_RECOV_2D:
		*in = (data & ~fa & ~(1ull << s->b)) | p | q, *out = fa | 1ull << s->b;
		break;
	case PQ_GPU_RECOV_DP:
		*in = (data & ~fa) | q, *out = fa | p;
		break;
	case PQ_GPU_RECOV_1D_P:
		*in = (data & ~fa) | p, *out = fa;
		break;
	case PQ_GPU_RECOV_DQ:
		*in = (data & ~fa) | p, *out = fa | q;
		break;
	default:
		*in = *out = 0;
		break;
	}
}

size_t pq_plan_arena_len(int max_k, size_t max_len, int batch)
{
	return (size_t)batch * (size_t)(max_k + 2) * max_len;
}

/* log2 of the widest load (16, 8, 4 or 1 bytes) every used address and len allow */
static uint8_t width_shift(const struct pq_gpu_stripe *s, void *const *kptrs, uint64_t used)
{
	uintptr_t bits = s->len;

	for (int i = 0; i < s->k + 2; i++)
		if (used >> i & 1)
			bits |= (uintptr_t)kptrs[i];
	if (!(bits & 15))
		return 4;
	if (!(bits & 7))
		return 3;
	if (!(bits & 3))
		return 2;
	return 0;
}

void pq_plan_desc(const struct pq_gpu_stripe *s, void *const *kptrs, struct pq_kdesc *d)
{
	uint64_t in, out, used;
	uint8_t ga = pq_gf_exp[s->a];

	pq_plan_io(s, &in, &out);
	used = in | out;
	memset(d, 0, sizeof(*d));
	d->op = (uint8_t)s->op;
	d->k = (uint8_t)s->k;
	d->a = (uint8_t)s->a;
	d->b = (uint8_t)s->b;
	d->len = s->len;
	for (int i = 0; i < s->k + 2; i++)
		d->ptrs[i] = (used >> i & 1) ? kptrs[i] : NULL;
	d->wshift = width_shift(s, kptrs, used);
	switch (s->op) {
	case PQ_GPU_RECOV_2D: {
		/* D_b = (Q' + g^a P') / (g^a + g^b), where P' and Q' are what the lost pair left */
		uint8_t inv = pq_gf_inv(ga ^ pq_gf_exp[s->b]);

		d->c0 = pq_gf_mul(ga, inv);
		d->c1 = inv;
		break;
	}
	case PQ_GPU_RECOV_DP:
		d->c0 = pq_gf_inv(ga);
		break;
	case PQ_GPU_RECOV_DQ:
		d->c0 = ga;
		break;
	default:
		break;
	}
}

static void add_copy(struct pq_copy *list, int *n, void *dst, const void *src, size_t len)
{
	struct pq_copy *last = *n ? &list[*n - 1] : NULL;

	if (last && (const char *)last->src + last->len == (const char *)src &&
	    (char *)last->dst + last->len == (char *)dst) {
		last->len += len;
		return;
	}
	list[(*n)++] = (struct pq_copy){.dst = dst, .src = src, .len = len};
}

int pq_plan_copy(const struct pq_gpu_stripe *s, int n, uintptr_t arena, size_t arena_len,
		 struct pq_kdesc *descs, struct pq_copy *h2d, int *nh2d, struct pq_copy *d2h,
		 int *nd2h)
{
	size_t off = 0;

	*nh2d = *nd2h = 0;
	for (int j = 0; j < n; j++) {
		void *kptrs[PQ_MAX_DATA + 2] = {0};
		uint64_t in, out;

		pq_plan_io(&s[j], &in, &out);
		for (int i = 0; i < s[j].k + 2; i++) {
			if (!((in | out) >> i & 1))
				continue;
			if (off + s[j].len > arena_len)
				return -E2BIG;
			kptrs[i] = (void *)(arena + off);
			off += s[j].len;
			if (in >> i & 1)
				add_copy(h2d, nh2d, kptrs[i], s[j].ptrs[i], s[j].len);
			if (out >> i & 1)
				add_copy(d2h, nd2h, s[j].ptrs[i], kptrs[i], s[j].len);
		}
		pq_plan_desc(&s[j], kptrs, &descs[j]);
	}
	return 0;
}

int pq_plan_mapped(const struct pq_gpu_stripe *s, int n, pq_plan_xlate_fn xlate, void *ctx,
		   struct pq_kdesc *descs)
{
	for (int j = 0; j < n; j++) {
		void *kptrs[PQ_MAX_DATA + 2] = {0};
		uint64_t in, out;

		pq_plan_io(&s[j], &in, &out);
		for (int i = 0; i < s[j].k + 2; i++) {
			if (!((in | out) >> i & 1))
				continue;
			kptrs[i] = xlate(ctx, s[j].ptrs[i], s[j].len);
			if (!kptrs[i])
				return -EFAULT;
		}
		pq_plan_desc(&s[j], kptrs, &descs[j]);
	}
	return 0;
}
