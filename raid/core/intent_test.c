/*
 * intent_test.c - the write-intent hook at the core's admission point (quiesce.c, for the
 * recovery service's bitmap): start runs for every write before the level issues any member
 * write, end once it completes, never for reads; a start that fails fails the write with
 * its error, with nothing issued to a member and no end; a write parked behind a quiesced
 * range starts its intent only once admitted.
 */
#include "testutil.h"

#include <errno.h>

#include "quiesce.h"

static struct raid_array *a;
static struct raid_queue *q;
static int starts, ends, start_ret;
static uint64_t m_writes_seen; /* member writes issued when the last start ran */
static uint64_t last_off, last_len;

static int fake_start(struct raid_array *arr, uint64_t off, uint64_t len)
{
	assert_ptr_equal(arr, a);
	starts++;
	m_writes_seen = q->c.m_writes;
	last_off = off;
	last_len = len;
	return start_ret;
}

static void fake_end(struct raid_array *arr, uint64_t off, uint64_t len)
{
	assert_ptr_equal(arr, a);
	assert_int_equal(off, last_off);
	assert_int_equal(len, last_len);
	ends++;
}

static const struct raid_intent_ops ops = {.start = fake_start, .end = fake_end};

static int setup(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN];

	(void)state;
	t_config(&c, "raid_level=5", "raid_members=i0:i1:i2:i3", "raid_backend=ram",
		 "raid_member_size=1m", "raid_chunk=16k", NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	assert_int_equal(raid_quiesce_init(a, false), 0);
	raid_quiesce_intent(a, &ops);
	if (raid_queue_create(a, 16, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	starts = ends = start_ret = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	raid_queue_destroy(q);
	raid_array_put(a);
	return 0;
}

static void before_the_member_writes(void **state)
{
	static char buf[8192];
	uint64_t before = q->c.m_writes;

	(void)state;
	memset(buf, 0x5a, sizeof(buf));
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 40960, 8192), 0);
	assert_int_equal(starts, 1);
	assert_int_equal(m_writes_seen, before); /* nothing issued yet when start ran */
	assert_true(q->c.m_writes > before);
	assert_int_equal(last_off, 40960);
	assert_int_equal(last_len, 8192);
	assert_int_equal(ends, 1);
	/* reads pass without it */
	assert_int_equal(t_io(q, RAID_OP_READ, buf, 0, 8192), 0);
	assert_int_equal(starts, 1);
	assert_int_equal(ends, 1);
}

static void failed_start_fails_the_write(void **state)
{
	static char buf[4096];
	uint64_t before = q->c.m_writes;

	(void)state;
	start_ret = -EIO;
	/* -EIO, the one error a write retries on: still no member write, no end */
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 0, 4096), -EIO);
	assert_int_equal(starts, 1);
	assert_int_equal(ends, 0);
	assert_int_equal(q->c.m_writes, before);
	start_ret = -ENOSPC;
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 4096, 4096), -ENOSPC);
	assert_int_equal(q->c.m_writes, before);
	start_ret = 0;
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 4096, 4096), 0);
	assert_int_equal(ends, 1);
}

static void parked_write_starts_once_admitted(void **state)
{
	static char buf[4096];
	struct raid_request r = {.op = RAID_OP_WRITE, .buf = buf, .offset = 0, .length = 4096};
	struct raid_request *out[1];
	struct timespec none = {0};

	(void)state;
	raid_quiesce_lock(a, 0, 65536);
	assert_int_equal(raid_submit(q, &r), 0);
	raid_commit(q);
	assert_int_equal(raid_reap(q, 0, 1, &none, out), 0); /* parked */
	assert_int_equal(starts, 0);
	raid_quiesce_unlock(a);
	assert_int_equal(raid_reap(q, 1, 1, NULL, out), 1);
	assert_int_equal(r.error, 0);
	assert_int_equal(starts, 1);
	assert_int_equal(ends, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(before_the_member_writes, setup, teardown),
	    cmocka_unit_test_setup_teardown(failed_start_fails_the_write, setup, teardown),
	    cmocka_unit_test_setup_teardown(parked_write_starts_once_admitted, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
