/*
 * pq_gpu_test_util.h - shared by the GPU path's tests (pq_kernels_test.c on the CPU shim,
 * pq_cuda_test.c on a real device): random stripes for every op with what pq_calls_base
 * makes of them, to compare a batch's result with byte for byte. Builds on the parity tests'
 * generator and guarded stripes (raid/parity/pq_test_util.h).
 */
#ifndef RAID_PARITY_CUDA_PQ_GPU_TEST_UTIL_H
#define RAID_PARITY_CUDA_PQ_GPU_TEST_UTIL_H

#include "parity/pq_test_util.h"
#include "pq_gpu.h"

static const char *const g_op_names[PQ_GPU_NR_OPS] = {
    "gen_p", "gen_pq", "xor_p", "xor_pq", "recov_2d", "recov_dp", "recov_1d_p", "recov_dq"};

/* what the reference does for one op, on the blocks in ptrs */
static inline void g_apply_base(const struct pq_gpu_stripe *s, void **ptrs)
{
	struct pq_gpu_stripe r = *s;

	r.ptrs = ptrs;
	if (pq_gpu_stripe_on_cpu(&pq_calls_base, &r))
		fail_msg("bad op %d", s->op);
}

/* One stripe under test: its blocks, the op, and the expected bytes of every block. */
struct g_case {
	struct t_stripe t;
	struct pq_gpu_stripe s;
	uint8_t **want;
};

/*
 * A random stripe for `op` (k >= 2 for recov_2d): recoveries start from consistent parity
 * with the lost blocks overwritten by garbage; updates get random ranges. align_off as for
 * t_stripe_init (-1: a random offset per block, so every load width gets used).
 */
static inline void g_case_init(struct g_case *c, enum pq_gpu_op op, int k, size_t len,
			       int align_off)
{
	struct pq_gpu_stripe *s = &c->s;

	t_stripe_init(&c->t, k, len, align_off);
	*s = (struct pq_gpu_stripe){op, k, 0, 0, len, c->t.ptrs};
	switch (op) {
	case PQ_GPU_XOR_P:
	case PQ_GPU_XOR_PQ:
		s->a = t_range(0, k - 1);
		s->b = t_range(s->a, k - 1);
		break;
	case PQ_GPU_RECOV_2D:
		s->a = t_range(0, k - 2);
		s->b = t_range(s->a + 1, k - 1);
		break;
	case PQ_GPU_RECOV_DP:
	case PQ_GPU_RECOV_1D_P:
	case PQ_GPU_RECOV_DQ:
		s->a = t_range(0, k - 1);
		break;
	default:
		break;
	}
	if (op >= PQ_GPU_RECOV_2D) {
		pq_calls_base.gen_pq(k, len, c->t.ptrs);
		t_fill(c->t.ptrs[s->a], len);
		if (op == PQ_GPU_RECOV_2D)
			t_fill(c->t.ptrs[s->b], len);
	}
	c->want = t_stripe_save(&c->t);
	g_apply_base(s, (void **)c->want);
}

/* every block, touched or not, equals the reference; nothing past a block was written */
static inline void g_case_check(const struct g_case *c, const char *what)
{
	for (int i = 0; i < c->s.k + 2; i++) {
		if (memcmp(c->t.ptrs[i], c->want[i], c->s.len))
			fail_msg("%s: %s k=%d a=%d b=%d len=%zu: block %d differs from base", what,
				 g_op_names[c->s.op], c->s.k, c->s.a, c->s.b, c->s.len, i);
	}
	t_stripe_check_guards(&c->t);
}

static inline void g_case_free(struct g_case *c)
{
	t_saved_free(&c->t, c->want);
	t_stripe_free(&c->t);
}

/* a random op that k allows */
static inline enum pq_gpu_op g_random_op(int k)
{
	enum pq_gpu_op op;

	do
		op = (enum pq_gpu_op)t_range(0, PQ_GPU_NR_OPS - 1);
	while (op == PQ_GPU_RECOV_2D && k < 2);
	return op;
}

#endif
