/*
 * window_test.c - the core's range quiesce (quiesce.c) without a rebuild running and
 * without sleeps: a write into the locked range parks and completes only once the window
 * moves off it; a window moved onto a range keeps the writes already parked there parked
 * and releases the others; reads never park; unlocking releases everything.
 */
#include "core/testutil.h"

#include <errno.h>

#include "core/core.h"
#include "core/quiesce.h"

#define KIB 1024ULL

static struct raid_array *a;
static struct raid_queue *q;
static char buf[64 * 1024];

/* Requests completed without blocking: what raid_reap hands back right away. */
static int reap_now(struct raid_request **out, int max)
{
	struct timespec zero = {0, 0};

	raid_commit(q);
	return raid_reap(q, 0, (unsigned)max, &zero, out);
}

/* Wait for exactly request r (the only one expected); a hang guard, not a timing check. */
static void reap_one(struct raid_request *r)
{
	struct timespec guard = {10, 0};
	struct raid_request *out[1];

	raid_commit(q);
	assert_int_equal(raid_reap(q, 1, 1, &guard, out), 1);
	assert_ptr_equal(out[0], r);
	assert_int_equal(r->error, 0);
}

static void submit(struct raid_request *r, enum raid_op op, uint64_t off)
{
	*r = (struct raid_request){.op = op, .buf = buf, .offset = off, .length = 4 * KIB};
	assert_int_equal(raid_submit(q, r), 0);
}

static void test_park_and_move(void **state)
{
	struct raid_request w1, w2, rd, *out[4];

	raid_quiesce_lock(a, 0, 64 * KIB);
	submit(&w1, RAID_OP_WRITE, 8 * KIB);  /* inside: parks */
	submit(&w2, RAID_OP_WRITE, 40 * KIB); /* inside: parks */
	submit(&rd, RAID_OP_READ, 8 * KIB);   /* reads never park */
	reap_one(&rd);
	assert_int_equal(reap_now(out, 4), 0);
	/* moved to [32k, 96k): w1 is free, w2 still inside */
	raid_quiesce_lock(a, 32 * KIB, 96 * KIB);
	reap_one(&w1);
	assert_int_equal(reap_now(out, 4), 0);
	/* a new write into the moved window parks too */
	submit(&w1, RAID_OP_WRITE, 90 * KIB);
	assert_int_equal(reap_now(out, 4), 0);
	raid_quiesce_unlock(a);
	raid_commit(q);
	assert_int_equal(raid_reap(q, 2, 4, &(struct timespec){10, 0}, out), 2);
	assert_true((out[0] == &w1 && out[1] == &w2) || (out[0] == &w2 && out[1] == &w1));
	/* unlocked: nothing parks */
	submit(&w1, RAID_OP_WRITE, 8 * KIB);
	reap_one(&w1);
}

static void test_drain(void **state)
{
	struct raid_request w;

	/* a write admitted before the lock is in flight: the lock waits for it (two epochs) */
	submit(&w, RAID_OP_WRITE, 16 * KIB);
	pthread_mutex_lock(&a->qs->mu);
	assert_int_equal(a->qs->cnt[0] + a->qs->cnt[1], 1);
	pthread_mutex_unlock(&a->qs->mu);
	reap_one(&w);
	raid_quiesce_lock(a, 0, 64 * KIB); /* returns at once: nothing admitted is left */
	pthread_mutex_lock(&a->qs->mu);
	assert_int_equal(a->qs->cnt[0] + a->qs->cnt[1], 0);
	pthread_mutex_unlock(&a->qs->mu);
	raid_quiesce_unlock(a);
}

static int setup(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN];

	/* raid_inject at 0% gives the array its recovery side and nothing else */
	t_config(&c, "raid_level=1", "raid_members=/w-a:/w-b", "raid_backend=ram",
		 "raid_member_size=1m", "raid_inject=0:read:0", NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	assert_non_null(a->qs);
	if (raid_queue_create(a, 8, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	return 0;
}

static int teardown(void **state)
{
	raid_queue_destroy(q);
	return raid_array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_park_and_move),
	    cmocka_unit_test(test_drain),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
