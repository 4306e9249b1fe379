/*
 * raid56_dread_test.c - a RAID5/6 degraded read whose member comes back (its rebuild ends)
 * while the read waits for its stripe lock, as a scripted order of events on the ram
 * backend: the read was planned degraded, then runs with every member alive, and must still
 * hand the caller the volume's bytes (it once left the caller's buffer as it was).
 */
#include "core/testutil.h"

#include "core/core.h"
#include "core/level.h"

#define CHUNK (16u << 10)
#define MSIZE (4 * CHUNK)

static struct raid_array *open_array(int level, int n)
{
	char members[256] = "", lv[32], err[RAID_ERRLEN];
	struct raid_config c;
	struct raid_array *a;

	for (int i = 0; i < n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members),
			 "%sram-dread-%d-%d", i ? ":" : "raid_members=", level, i);
	snprintf(lv, sizeof(lv), "raid_level=%d", level);
	t_config(&c, lv, members, "raid_chunk=16k", "raid_member_size=64k", "raid_backend=ram",
		 NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	return a;
}

static void comeback(int level, int n, bool flip)
{
	struct raid_array *a = open_array(level, n);
	struct raid_queue *q;
	struct raid_loc locs[RAID_MAX_COPIES];
	uint64_t seed = 0x5eedULL + (uint64_t)level, seg, size = a->size;
	uint8_t *vol = malloc(size), *got = malloc(2 * CHUNK);
	char err[RAID_ERRLEN];
	int victim;

	if (raid_queue_create(a, 4, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	for (uint64_t i = 0; i < size; i++)
		vol[i] = (uint8_t)t_rand(&seed);
	assert_int_equal(t_io(q, RAID_OP_WRITE, vol, 0, size), 0);

	/* data chunk 1 of stripe 0 is read degraded: its member failed (its bytes are intact) */
	assert_int_equal(a->ops->map(&a->geom, CHUNK, locs, &seg), 1);
	victim = locs[0].member;
	atomic_store(&a->m[victim].failed, true);

	/* a write in stripe 0 holds the stripe lock, so the degraded read plans, then waits */
	struct raid_request w = {.op = RAID_OP_WRITE, .buf = vol, .offset = 0, .length = 4096};
	struct raid_request r = {
	    .op = RAID_OP_READ, .buf = got, .offset = CHUNK, .length = CHUNK / 2};
	struct raid_request *out[2];
	uint64_t waits = q->c.stripe_lock_waits, dreads = q->c.degraded_reads;

	memset(got, 0xee, 2 * CHUNK); /* what a stale buffer would hand back */
	assert_int_equal(raid_submit(q, &w), 0);
	assert_int_equal(raid_submit(q, &r), 0);
	assert_int_equal(q->c.degraded_reads, dreads + 1);
	assert_int_equal(q->c.stripe_lock_waits, waits + 1);
	if (flip)
		atomic_store(&a->m[victim].failed, false); /* the rebuild is done: reads may use it */
	raid_commit(q);
	assert_int_equal(raid_reap(q, 2, 2, NULL, out), 2);
	assert_int_equal(w.error, 0);
	assert_int_equal(r.error, 0);
	assert_memory_equal(got, vol + CHUNK, CHUNK / 2);

	raid_queue_destroy(q);
	raid_array_put(a);
	free(vol);
	free(got);
}

static void raid5_still_failed(void **state)
{
	comeback(5, 4, false);
}

static void raid5_back_while_waiting(void **state)
{
	comeback(5, 4, true);
}

static void raid6_still_failed(void **state)
{
	comeback(6, 5, false);
}

static void raid6_back_while_waiting(void **state)
{
	comeback(6, 5, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(raid5_still_failed),
	    cmocka_unit_test(raid5_back_while_waiting),
	    cmocka_unit_test(raid6_still_failed),
	    cmocka_unit_test(raid6_back_while_waiting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
