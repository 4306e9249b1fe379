/*
 * pq_kernels_test.c - the CUDA kernels and the batch planner, run on the CPU through the shim
 * (pq_kernels.cu built by g++): every op over k = 1..PQ_MAX_DATA, many lengths, alignments,
 * batch sizes and failure positions, both as mapped mode sees a batch (kernels on the host
 * blocks) and as copy mode does (blocks gathered into an arena, run, scattered back), each
 * compared byte for byte with pq_calls_base. Also the planner's checks and copy merging.
 */
#include <errno.h>

#include "pq_gpu_test_util.h"
#include "pq_kernels.h"
#include "pq_plan.h"

#define MAX_BATCH 24

static void *identity(void *ctx, void *p, size_t len)
{
	return p;
}

/* mapped mode: descriptors point at the host blocks */
static void run_mapped(struct g_case *c, int n)
{
	struct pq_gpu_stripe s[MAX_BATCH];
	struct pq_kdesc d[MAX_BATCH];
	uint64_t max_len = 0;

	for (int j = 0; j < n; j++) {
		s[j] = c[j].s;
		if (s[j].len > max_len)
			max_len = s[j].len;
	}
	assert_int_equal(pq_plan_mapped(s, n, identity, NULL, d), 0);
	assert_int_equal(pq_kern_launch_shim(d, n, max_len, NULL), 0);
}

/* copy mode: what pq_gpu.cu does with cudaMemcpy, with memcpy and a host arena */
static void run_copy(struct g_case *c, int n, int max_k, size_t max_len)
{
	struct pq_gpu_stripe s[MAX_BATCH];
	struct pq_kdesc d[MAX_BATCH];
	size_t arena_len = pq_plan_arena_len(max_k, max_len, n);
	struct pq_copy *in = calloc(PQ_PLAN_MAX_COPIES(n), sizeof(*in));
	struct pq_copy *out = calloc(PQ_PLAN_MAX_COPIES(n), sizeof(*out));
	uint8_t *arena = aligned_alloc(256, arena_len);
	int nin, nout;

	assert_true(in && out && arena);
	memset(arena, 0xee, arena_len); /* garbage where no block was copied in */
	for (int j = 0; j < n; j++)
		s[j] = c[j].s;
	assert_int_equal(pq_plan_copy(s, n, (uintptr_t)arena, arena_len, d, in, &nin, out, &nout),
			 0);
	for (int i = 0; i < nin; i++) {
		assert_true((uint8_t *)in[i].dst >= arena &&
			    (uint8_t *)in[i].dst + in[i].len <= arena + arena_len);
		memcpy(in[i].dst, in[i].src, in[i].len);
	}
	for (int j = 0; j < n; j++)
		assert_int_equal(d[j].wshift, 4); /* the arena is always 16-byte aligned */
	assert_int_equal(pq_kern_launch_shim(d, n, max_len, NULL), 0);
	for (int i = 0; i < nout; i++)
		memcpy(out[i].dst, out[i].src, out[i].len);
	free(in);
	free(out);
	free(arena);
}

/* n random stripes, each op, k, len and alignment drawn independently */
static void sweep(int rounds, int max_n, size_t max_len, int copy)
{
	struct g_case c[MAX_BATCH];

	for (int r = 0; r < rounds; r++) {
		int n = t_range(1, max_n), max_k = 1;

		for (int j = 0; j < n; j++) {
			/* k = 1, 2 and PQ_MAX_DATA come up often; the rest uniformly */
			int pick = t_range(0, 5);
			int k = pick == 0   ? 1
				: pick == 1 ? 2
				: pick == 2 ? PQ_MAX_DATA
					    : t_range(1, PQ_MAX_DATA);
			size_t len = t_len(k > 16 ? max_len / 8 : max_len);

			g_case_init(&c[j], g_random_op(k), k, len, t_range(0, 3) ? 0 : -1);
			if (k > max_k)
				max_k = k;
		}
		if (copy)
			run_copy(c, n, max_k, max_len);
		else
			run_mapped(c, n);
		for (int j = 0; j < n; j++) {
			g_case_check(&c[j], copy ? "copy" : "mapped");
			g_case_free(&c[j]);
		}
	}
}

static void test_mapped_batches(void **state)
{
	sweep(400, MAX_BATCH, 8192, 0);
}

static void test_copy_batches(void **state)
{
	sweep(400, MAX_BATCH, 8192, 1);
}

/* every op at every k, and every failure position of a small and a large k */
static void test_every_k_and_failure(void **state)
{
	struct g_case c;

	for (int k = 1; k <= PQ_MAX_DATA; k++)
		for (int op = 0; op < PQ_GPU_NR_OPS; op++) {
			if (op == PQ_GPU_RECOV_2D && k < 2)
				continue;
			g_case_init(&c, op, k, 128, 0);
			run_mapped(&c, 1);
			g_case_check(&c, "every k");
			g_case_free(&c);
		}
	for (int k = 4; k <= PQ_MAX_DATA; k += PQ_MAX_DATA - 4)
		for (int fa = 0; fa < k; fa++)
			for (int fb = fa; fb < k; fb++) {
				int op = fb == fa ? PQ_GPU_RECOV_DP : PQ_GPU_RECOV_2D;

				if (k > 4 && fb != fa && fb != k - 1 && fa != 0)
					continue; /* big k: the pairs at the edges only */
				g_case_init(&c, op, k, 64, 0);
				c.s.a = fa;
				c.s.b = fb;
				/* redo the loss and the reference for these positions */
				t_saved_free(&c.t, c.want);
				pq_calls_base.gen_pq(k, 64, c.t.ptrs);
				t_fill(c.t.ptrs[fa], 64);
				t_fill(c.t.ptrs[fb], 64);
				c.want = t_stripe_save(&c.t);
				g_apply_base(&c.s, (void **)c.want);
				run_mapped(&c, 1);
				g_case_check(&c, "failure positions");
				g_case_free(&c);
			}
}

/* the largest blocks the grid's x dimension strides over more than once */
static void test_long_blocks(void **state)
{
	struct g_case c[2];

	g_case_init(&c[0], PQ_GPU_GEN_PQ, 3, 256 << 10, 0);
	g_case_init(&c[1], PQ_GPU_RECOV_2D, 3, 4096, 0);
	run_copy(c, 2, 3, 256 << 10);
	for (int j = 0; j < 2; j++) {
		g_case_check(&c[j], "long");
		g_case_free(&c[j]);
	}
}

static void test_plan_rejects(void **state)
{
	void *p[PQ_MAX_DATA + 2];
	struct pq_gpu_stripe s = {PQ_GPU_GEN_PQ, 4, 0, 0, 4096, p};

	for (int i = 0; i < PQ_MAX_DATA + 2; i++)
		p[i] = &s;
	assert_int_equal(pq_plan_check(&s, 8, 4096), 0);
	s.k = 0;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.k = PQ_MAX_DATA + 1;
	assert_int_equal(pq_plan_check(&s, PQ_MAX_DATA, 4096), -EINVAL);
	s.k = 9;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -E2BIG);
	s.k = 4;
	s.len = 100;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.len = 8192;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -E2BIG);
	s.len = 4096;
	s.op = PQ_GPU_NR_OPS;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.op = PQ_GPU_XOR_PQ, s.a = 2, s.b = 1;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.b = 4;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.op = PQ_GPU_RECOV_2D, s.a = 1, s.b = 1;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.op = PQ_GPU_RECOV_DP, s.a = 4;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	/* a NULL block is fine only where the op does not go */
	s.op = PQ_GPU_XOR_P, s.a = 1, s.b = 2;
	p[0] = p[5] = NULL;
	assert_int_equal(pq_plan_check(&s, 8, 4096), 0);
	s.op = PQ_GPU_XOR_PQ;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
	s.ptrs = NULL;
	assert_int_equal(pq_plan_check(&s, 8, 4096), -EINVAL);
}

static void test_plan_io(void **state)
{
	struct pq_gpu_stripe s = {PQ_GPU_GEN_PQ, 4, 0, 0, 64, NULL};
	uint64_t in, out;

	pq_plan_io(&s, &in, &out);
	assert_int_equal(in, 0xf);
	assert_int_equal(out, 0x30);
	s.op = PQ_GPU_XOR_PQ, s.a = 1, s.b = 2;
	pq_plan_io(&s, &in, &out);
	assert_int_equal(in, 0x36);
	assert_int_equal(out, 0x30);
	s.op = PQ_GPU_RECOV_2D, s.a = 0, s.b = 3;
	pq_plan_io(&s, &in, &out);
	assert_int_equal(in, 0x36);
	assert_int_equal(out, 0x9);
	s.op = PQ_GPU_RECOV_DP, s.a = 2;
	pq_plan_io(&s, &in, &out);
	assert_int_equal(in, 0x2b);
	assert_int_equal(out, 0x14);
	s.k = PQ_MAX_DATA, s.op = PQ_GPU_GEN_PQ;
	pq_plan_io(&s, &in, &out);
	assert_true(in == (1ull << PQ_MAX_DATA) - 1 && out == 3ull << PQ_MAX_DATA);
}

/* a stripe laid out contiguously in host memory needs one copy each way, not k + 2 */
static void test_plan_merges_copies(void **state)
{
	const size_t len = 256;
	uint8_t *host = aligned_alloc(64, 6 * len), *arena = aligned_alloc(64, 6 * len);
	void *p[6];
	struct pq_gpu_stripe s = {PQ_GPU_GEN_PQ, 4, 0, 0, len, p};
	struct pq_copy in[12], out[12];
	struct pq_kdesc d;
	int nin, nout;

	for (int i = 0; i < 6; i++)
		p[i] = host + i * len;
	assert_int_equal(pq_plan_copy(&s, 1, (uintptr_t)arena, 6 * len, &d, in, &nin, out, &nout),
			 0);
	assert_int_equal(nin, 1);
	assert_int_equal(in[0].len, 4 * len);
	assert_int_equal(nout, 1);
	assert_int_equal(out[0].len, 2 * len);
	assert_ptr_equal(out[0].dst, host + 4 * len);
	/* a hole in host memory splits them */
	p[1] = host + 5 * len;
	p[5] = host + len;
	assert_int_equal(pq_plan_copy(&s, 1, (uintptr_t)arena, 6 * len, &d, in, &nin, out, &nout),
			 0);
	assert_int_equal(nin, 3);
	assert_int_equal(nout, 2);
	/* and an arena too small is refused, not overrun */
	assert_int_equal(pq_plan_copy(&s, 1, (uintptr_t)arena, 5 * len, &d, in, &nin, out, &nout),
			 -E2BIG);
	free(host);
	free(arena);
}

static void *refuse_second(void *ctx, void *p, size_t len)
{
	return p == ctx ? NULL : p;
}

static void test_plan_mapped_width_and_fault(void **state)
{
	uint8_t *buf = aligned_alloc(64, 8 * 128);
	void *p[6];
	struct pq_gpu_stripe s = {PQ_GPU_GEN_P, 4, 0, 0, 128, p};
	struct pq_kdesc d;
	static const struct {
		int off, shift;
	} w[] = {{0, 4}, {8, 3}, {4, 2}, {2, 0}, {1, 0}};

	for (size_t t = 0; t < sizeof(w) / sizeof(w[0]); t++) {
		for (int i = 0; i < 6; i++)
			p[i] = buf + i * 128 + (i == 2 ? w[t].off : 0);
		assert_int_equal(pq_plan_mapped(&s, 1, identity, NULL, &d), 0);
		assert_int_equal(d.wshift, w[t].shift);
	}
	/* Q is not used by gen_p, so its alignment does not matter */
	p[2] = buf + 256;
	p[5] = buf + 5 * 128 + 1;
	assert_int_equal(pq_plan_mapped(&s, 1, identity, NULL, &d), 0);
	assert_int_equal(d.wshift, 4);
	assert_null(d.ptrs[5]);
	assert_int_equal(pq_plan_mapped(&s, 1, refuse_second, p[1], &d), -EFAULT);
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plan_rejects),
	    cmocka_unit_test(test_plan_io),
	    cmocka_unit_test(test_plan_merges_copies),
	    cmocka_unit_test(test_plan_mapped_width_and_fault),
	    cmocka_unit_test(test_every_k_and_failure),
	    cmocka_unit_test(test_long_blocks),
	    cmocka_unit_test(test_mapped_batches),
	    cmocka_unit_test(test_copy_batches),
	};

	t_seed("pq_kernels_test");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
