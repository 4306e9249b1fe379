/*
 * pq_cuda_test.c - the GPU API (pq_gpu.h) end to end. Without a usable GPU it checks the
 * failure path: pq_gpu_usable says why, pq_gpu_open fails with -ENODEV and one line naming
 * the CUDA error (nvcc build) or the missing nvcc (stub build). With a GPU it runs batches of
 * random stripes through pq_gpu_submit in copy and mapped modes, with polled and threaded
 * completion, and compares every block with pq_calls_base; PQ_CUDA_TEST_ROUNDS scales the
 * sweep (tests/gpu/check.sh sets it high).
 */
#include <errno.h>
#include <stdatomic.h>

#include "pq_gpu_test_util.h"

#ifndef PQ_GPU_BUILT
#define PQ_GPU_BUILT 0
#endif

#define MAX_BATCH 64

static int have_gpu;
static char why[256];

static void test_usable_says_why(void **state)
{
	char w[256] = "";

	if (have_gpu) {
		assert_int_equal(pq_gpu_usable(0, w, sizeof(w)), 1);
		/* an index past the last device is not usable, and says so */
		assert_int_equal(pq_gpu_usable(999, w, sizeof(w)), 0);
		assert_non_null(strstr(w, "raid_gpu=999"));
		return;
	}
	assert_int_equal(pq_gpu_usable(0, w, sizeof(w)), 0);
	print_message("no usable GPU: %s\n", w);
	assert_null(strchr(w, '\n'));
	if (PQ_GPU_BUILT)
		assert_non_null(strstr(w, "cudaGetDeviceCount: "));
	else
		assert_string_equal(w, "built without CUDA (no nvcc found)");
}

static void test_open_fails_cleanly(void **state)
{
	struct pq_gpu_opts o;
	struct pq_gpu *g = (struct pq_gpu *)&o;
	char err[256] = "";

	pq_gpu_opts_default(&o);
	if (have_gpu) {
		o.device = 999;
		assert_int_equal(pq_gpu_open(&o, &g, err, sizeof(err)), -ENODEV);
		assert_null(g);
		assert_non_null(strstr(err, "raid_gpu=999"));
		o.device = 0;
		o.batch = 0;
		assert_int_equal(pq_gpu_open(&o, &g, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "raid_gpu_batch=0"));
		return;
	}
	assert_int_equal(pq_gpu_open(&o, &g, err, sizeof(err)), -ENODEV);
	assert_null(g);
	assert_null(strchr(err, '\n'));
	assert_int_equal(strncmp(err, "no usable GPU: ", 15), 0);
	assert_string_equal(err + 15, why);
	/* a NULL message buffer is allowed too */
	assert_int_equal(pq_gpu_open(&o, &g, NULL, 0), -ENODEV);
}

struct done {
	atomic_int calls;
	atomic_int status;
};

static void on_done(void *arg, int status)
{
	struct done *d = arg;

	if (status)
		atomic_store(&d->status, status);
	atomic_fetch_add(&d->calls, 1);
}

static struct pq_gpu *open_ctx(int mapped, int notify_thread, int batch)
{
	struct pq_gpu_opts o;
	struct pq_gpu *g;
	char err[256];

	pq_gpu_opts_default(&o);
	o.batch = batch;
	o.max_len = 16384;
	o.mapped = mapped;
	o.notify_thread = notify_thread;
	if (pq_gpu_open(&o, &g, err, sizeof(err)))
		fail_msg("pq_gpu_open: %s", err);
	return g;
}

/* rounds of random batches, several in flight at once, each stripe checked against base */
static void sweep(int mapped, int notify_thread)
{
	const char *env = getenv("PQ_CUDA_TEST_ROUNDS");
	int rounds = env ? atoi(env) : 40;
	struct pq_gpu *g;
	char desc[200];

	if (!have_gpu)
		skip();
	g = open_ctx(mapped, notify_thread, MAX_BATCH);
	pq_gpu_describe(g, desc, sizeof(desc));
	print_message("%s\n", desc);
	for (int r = 0; r < rounds; r++) {
		enum { INFLIGHT = 3 };
		struct g_case c[INFLIGHT][MAX_BATCH];
		struct pq_gpu_stripe s[INFLIGHT][MAX_BATCH];
		struct done d = {0};
		int n[INFLIGHT];

		for (int b = 0; b < INFLIGHT; b++) {
			n[b] = t_range(1, t_range(0, 3) ? 8 : MAX_BATCH);
			for (int j = 0; j < n[b]; j++) {
				int k = t_range(0, 3) ? t_range(1, 12) : t_range(1, PQ_MAX_DATA);
				size_t len = t_len(k > 16 ? 2048 : 16384);

				g_case_init(&c[b][j], g_random_op(k), k, len,
					    t_range(0, 3) ? 0 : -1);
				for (int i = 0; i < k + 2; i++)
					assert_int_equal(pq_gpu_register(g, c[b][j].t.mem[i],
									 len + 64 + T_GUARD),
							 0);
				s[b][j] = c[b][j].s;
			}
		}
		for (int b = 0; b < INFLIGHT; b++) {
			int ret;

			while ((ret = pq_gpu_submit(g, s[b], n[b], on_done, &d)) == -EAGAIN)
				pq_gpu_poll(g);
			assert_int_equal(ret, 0);
		}
		assert_int_equal(pq_gpu_wait(g), 0);
		assert_int_equal(pq_gpu_inflight(g), 0);
		assert_int_equal(atomic_load(&d.calls), INFLIGHT);
		assert_int_equal(atomic_load(&d.status), 0);
		for (int b = 0; b < INFLIGHT; b++)
			for (int j = 0; j < n[b]; j++) {
				g_case_check(&c[b][j], mapped ? "gpu mapped" : "gpu copy");
				for (int i = 0; i < c[b][j].s.k + 2; i++)
					pq_gpu_unregister(g, c[b][j].t.mem[i]);
				g_case_free(&c[b][j]);
			}
	}
	pq_gpu_close(g);
}

static void test_gpu_copy_polled(void **state)
{
	sweep(0, 0);
}

static void test_gpu_mapped_polled(void **state)
{
	sweep(1, 0);
}

static void test_gpu_copy_threaded(void **state)
{
	sweep(0, 1);
}

static void test_gpu_mapped_threaded(void **state)
{
	sweep(1, 1);
}

/* bad batches are refused before anything is queued */
static void test_gpu_rejects(void **state)
{
	struct done d = {0};
	struct g_case c;
	struct pq_gpu *g;
	uint8_t *pinned;

	if (!have_gpu)
		skip();
	for (int mapped = 0; mapped <= 1; mapped++) {
		g = open_ctx(mapped, 0, 4);
		g_case_init(&c, PQ_GPU_GEN_PQ, 4, 4096, 0);
		/* not pinned */
		assert_int_equal(pq_gpu_submit(g, &c.s, 1, on_done, &d), -EFAULT);
		for (int i = 0; i < 6; i++)
			assert_int_equal(pq_gpu_register(g, c.t.mem[i], 4096 + 64 + T_GUARD), 0);
		struct pq_gpu_stripe s[5] = {c.s, c.s, c.s, c.s, c.s};

		assert_int_equal(pq_gpu_submit(g, s, 5, on_done, &d), -E2BIG);
		assert_int_equal(pq_gpu_submit(g, s, 0, on_done, &d), -EINVAL);
		s[0].len = 100;
		assert_int_equal(pq_gpu_submit(g, s, 1, on_done, &d), -EINVAL);
		s[0].len = 32768;
		assert_int_equal(pq_gpu_submit(g, s, 1, on_done, &d), -E2BIG);
		assert_int_equal(atomic_load(&d.calls), 0);
		/* memory from pq_gpu_alloc_host needs no registration */
		pinned = pq_gpu_alloc_host(g, 6 * 4096);
		assert_non_null(pinned);
		for (int i = 0; i < 6; i++) {
			memcpy(pinned + i * 4096, c.t.ptrs[i], 4096);
			s[0].ptrs[i] = pinned + i * 4096;
		}
		s[0].len = 4096;
		assert_int_equal(pq_gpu_submit(g, s, 1, on_done, &d), 0);
		assert_int_equal(pq_gpu_wait(g), 0);
		assert_int_equal(atomic_load(&d.calls), 1);
		for (int i = 0; i < 6; i++)
			assert_memory_equal(pinned + i * 4096, c.want[i], 4096);
		pq_gpu_free_host(g, pinned);
		pq_gpu_close(g); /* unregisters what it registered */
		g_case_free(&c);
		atomic_store(&d.calls, 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_usable_says_why),	cmocka_unit_test(test_open_fails_cleanly),
	    cmocka_unit_test(test_gpu_rejects),		cmocka_unit_test(test_gpu_copy_polled),
	    cmocka_unit_test(test_gpu_mapped_polled),	cmocka_unit_test(test_gpu_copy_threaded),
	    cmocka_unit_test(test_gpu_mapped_threaded),
	};

	t_seed("pq_cuda_test");
	have_gpu = pq_gpu_usable(0, why, sizeof(why));
	printf("pq_cuda_test: %s\n", have_gpu ? "GPU 0 usable: running on the device"
					      : "no usable GPU: checking the failure path only");
	return cmocka_run_group_tests(tests, NULL, NULL);
}
