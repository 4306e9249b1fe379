/*
 * raid56_gpu_batch_test.c - how the RAID5/6 engine hands parity to the GPU, against the mock
 * GPU of raid56_gpu_mock.c: stripes of several operations gathered into one launch, a full
 * batch launched at once and the rest at the queue's commit, launches that find the GPU busy
 * or that fail computed on the CPU, the caller's registered buffers read in place; and, each time,
 * the parity the "GPU" wrote read back through an array that has lost two members (the GPU
 * rebuilding the lost chunks), so a wrong or missing launch shows as wrong data.
 */
#include "core/testutil.h"

#include <unistd.h>

#include "core/core.h"

#define N 6
#define CHUNK (64 * 1024)
#define ROW (4 * CHUNK) /* a RAID6 stripe of 6 members holds 4 data chunks */
#define ROWS 12

static char paths[N][64];

static struct raid_array *open_array(const char *batch, const char *failed)
{
	char members[N * 64 + 32] = "raid_members=", err[RAID_ERRLEN];
	struct raid_config c;
	struct raid_array *a;

	for (int i = 0; i < N; i++) {
		snprintf(paths[i], sizeof(paths[i]), "/dev/shm/raid56-gpub-%d-%d", getpid(), i);
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s%s",
			 i ? ":" : "", paths[i]);
	}
	t_config(&c, "raid_level=6", members, "raid_chunk=64k", "raid_member_size=1m",
		 "raid_backend=psync", "raid_parity=cuda", batch, failed, NULL);
	c.writes = true;
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	return a;
}

static void reap_all(struct raid_queue *q, int n)
{
	struct raid_request *done[ROWS];
	int got = 0;

	while (got < n) {
		int r = raid_reap(q, 1, ROWS, NULL, done);

		assert_true(r > 0);
		for (int i = 0; i < r; i++)
			assert_int_equal(done[i]->error, 0);
		got += r;
	}
}

/* Every row written through the GPU path reads back with members 0 and 1 gone. */
static void check_degraded(const uint8_t *data, int rows)
{
	struct raid_array *a = open_array("raid_gpu_batch=1", "raid_failed=0,1");
	struct raid_queue *q;
	char err[RAID_ERRLEN];
	uint8_t *buf = malloc(ROW);

	assert_int_equal(raid_queue_create(a, 4, false, &q, err, sizeof(err)), 0);
	for (int r = 0; r < rows; r++) {
		assert_int_equal(t_io(q, RAID_OP_READ, buf, (uint64_t)r * ROW, ROW), 0);
		if (memcmp(buf, data + (size_t)r * ROW, ROW))
			fail_msg("row %d reads back wrong without members 0 and 1: its parity was "
				 "not what the GPU path should have written, or the GPU's recovery "
				 "is wrong",
				 r);
	}
	/* the mock GPU rebuilt the lost chunks (rows whose P and Q were on 0 and 1 need none) */
	assert_true(q->c.gpu_stripes > 0);
	raid_queue_destroy(q);
	raid_array_put(a);
	free(buf);
}

/*
 * rows full-stripe writes submitted before one commit, with raid_gpu_batch=batch: returns the
 * queue's counters after the commit (launches so far) and after the reap (CPU redos).
 */
static void write_rows(const char *batch, uint8_t *data, int rows, struct raid_counters *at_commit,
		       struct raid_counters *at_end, uint64_t *launches_before_commit,
		       bool register_data)
{
	struct raid_array *a = open_array(batch, "raid_level=6");
	struct raid_request req[ROWS];
	struct raid_queue *q;
	char err[RAID_ERRLEN];

	assert_int_equal(raid_queue_create(a, 32, false, &q, err, sizeof(err)), 0);
	assert_non_null(a->gpu);
	if (register_data)
		assert_int_equal(raid_queue_register_buffers(q, data, (size_t)rows * ROW), 0);
	for (int r = 0; r < rows; r++) {
		req[r] = (struct raid_request){.op = RAID_OP_WRITE,
					       .buf = data + (size_t)r * ROW,
					       .offset = (uint64_t)r * ROW,
					       .length = ROW};
		assert_int_equal(raid_submit(q, &req[r]), 0);
	}
	*launches_before_commit = q->c.gpu_launches + q->c.gpu_cpu_stripes;
	assert_int_equal(raid_commit(q), 0);
	*at_commit = q->c;
	reap_all(q, rows);
	*at_end = q->c;
	raid_queue_destroy(q);
	raid_array_put(a);
}

static uint8_t *pattern(uint64_t *seed)
{
	uint8_t *d = malloc((size_t)ROWS * ROW);

	for (size_t i = 0; i < (size_t)ROWS * ROW; i += 8) {
		uint64_t v = t_rand(seed);

		memcpy(d + i, &v, 8);
	}
	return d;
}

/* 10 stripe operations, raid_gpu_batch=4: two full launches at once, the last 2 at commit. */
static void test_gathered(void **state)
{
	uint64_t seed = t_seed("raid56 gpu batch"), before;
	uint8_t *data = pattern(&seed);
	struct raid_counters c, e;

	write_rows("raid_gpu_batch=4", data, 10, &c, &e, &before, false);
	assert_int_equal(before, 2);
	assert_int_equal(c.gpu_launches, 3);
	assert_int_equal(c.gpu_stripes, 10);
	assert_int_equal(e.gpu_cpu_stripes, 0);
	assert_int_equal(e.full_stripe, 10);
	assert_int_equal(e.gpu_inplace_stripes, 0); /* fio's buffers not registered: copies */
	check_degraded(data, 10);
	free(data);
}

/*
 * The caller's buffers registered (as the fio adapter does with fio's I/O memory): the GPU
 * reads the new data in place, no copy; the mock refuses any block that is not pinned, and
 * the parity must still read back right through the doubly degraded array.
 */
static void test_in_place(void **state)
{
	uint64_t seed = t_seed("raid56 gpu in place") ^ 0x1f, before;
	uint8_t *data = pattern(&seed);
	struct raid_counters c, e;

	write_rows("raid_gpu_batch=8", data, 10, &c, &e, &before, true);
	assert_int_equal(e.gpu_inplace_stripes, 10);
	assert_int_equal(e.gpu_stripes + e.gpu_cpu_stripes, 10);
	check_degraded(data, 10);
	free(data);
}

/*
 * One stripe a launch: the mock GPU answers "busy" to its 7th submit (the CPU computes that
 * stripe at once) and fails its 11th launch (the CPU computes it when the failure comes back).
 */
static void test_busy_and_failed(void **state)
{
	uint64_t seed = t_seed("raid56 gpu fallback") ^ 0x77, before;
	uint8_t *data = pattern(&seed);
	struct raid_counters c, e;

	write_rows("raid_gpu_batch=1", data, ROWS, &c, &e, &before, false);
	assert_int_equal(before, ROWS); /* a batch of one goes at once */
	assert_int_equal(e.gpu_launches, ROWS - 1);
	assert_int_equal(e.gpu_stripes, ROWS - 1);
	assert_int_equal(c.gpu_cpu_stripes, 1); /* busy: done before the commit returned */
	assert_int_equal(e.gpu_cpu_stripes, 2); /* and the failed launch */
	check_degraded(data, ROWS);
	free(data);
}

static int cleanup(void **state)
{
	for (int i = 0; i < N; i++)
		unlink(paths[i]);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_teardown(test_gathered, cleanup),
	    cmocka_unit_test_teardown(test_busy_and_failed, cleanup),
	    cmocka_unit_test_teardown(test_in_place, cleanup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
