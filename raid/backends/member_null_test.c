/*
 * member_null_test.c - raid_null_delay on a fake clock: every member I/O takes the delay,
 * inside raid_commit() (where fio counts it as slat), never less when a sleep ends early,
 * and nothing without the option.
 */
#include "core/testutil.h"

#include "core/core.h"

static uint64_t fake_ns;
static double sleep_share = 1.0; /* of each requested sleep, what the fake sleep gives */

static uint64_t fake_clock(void)
{
	return fake_ns;
}

static void fake_sleep(double s)
{
	uint64_t ns = (uint64_t)(s * 1e9 * sleep_share);

	fake_ns += ns ? ns : 1;
}

/* a null array of two members (16k chunks) and its queue */
static struct raid_queue *null_queue(struct raid_array **a, const char *delay)
{
	struct raid_config c;
	struct raid_queue *q;
	char err[RAID_ERRLEN];

	t_config(&c, "raid_level=0", "raid_members=/n-a:/n-b", "raid_backend=null",
		 "raid_member_size=1m", "raid_chunk=16k", delay, NULL);
	if (raid_array_get(&c, a, err, sizeof(err)) ||
	    raid_queue_create(*a, 4, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	return q;
}

/* the fake time one request takes in raid_commit (*in_commit) and in all */
static uint64_t timed_io(struct raid_queue *q, uint64_t off, uint64_t len, uint64_t *in_commit)
{
	static char buf[64 << 10];
	struct raid_request r = {.op = RAID_OP_WRITE, .buf = buf, .offset = off, .length = len};
	struct raid_request *out[1];
	uint64_t t0 = fake_ns;

	assert_int_equal(raid_submit(q, &r), 0);
	raid_commit(q);
	*in_commit = fake_ns - t0;
	assert_int_equal(raid_reap(q, 1, 1, NULL, out), 1);
	assert_int_equal(r.error, 0);
	return fake_ns - t0;
}

static void delay_case(const char *delay, double share, uint64_t want_ns)
{
	struct raid_array *a;
	struct raid_queue *q;
	uint64_t in_commit, all;

	fake_ns = 1000000000ULL;
	sleep_share = share;
	raid_clock_set(fake_clock);
	raid_clock_set_sleep(fake_sleep);
	q = null_queue(&a, delay);
	/* one member I/O: the delay, all of it inside the commit */
	all = timed_io(q, 0, 4096, &in_commit);
	assert_true(all >= want_ns && all < want_ns + 1000);
	assert_int_equal(in_commit, all);
	/* 32k over two 16k chunks: one member I/O on each member, one after the other */
	all = timed_io(q, 0, 32768, &in_commit);
	assert_true(all >= 2 * want_ns && all < 2 * want_ns + 2000);
	raid_queue_destroy(q);
	assert_int_equal(raid_array_put(a), 0);
	raid_clock_set_sleep(NULL);
	raid_clock_set(NULL);
}

static void test_no_delay(void **state)
{
	delay_case("raid_null_delay=0", 1.0, 0);
}

static void test_delay(void **state)
{
	delay_case("raid_null_delay=250", 1.0, 250000);
}

/* a sleep that ends early (a signal) is slept again: the delay is a floor */
static void test_short_sleeps(void **state)
{
	delay_case("raid_null_delay=250", 0.3, 250000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_no_delay),
	    cmocka_unit_test(test_delay),
	    cmocka_unit_test(test_short_sleeps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
