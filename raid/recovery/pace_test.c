/*
 * pace_test.c - the rebuild's pacing (pace.c) and raid_fail's timers (fault.c) on a fake
 * clock: md's min/max rule (busy past 64 sectors of foreground, as md's is_mddev_idle)
 * flips exactly at 250 ms of foreground silence, windows are an eighth of a second's
 * worth in whole units, and a member set to fail at 5 s fails when
 * the fake clock says 5 s, never before, whatever the real time. No sleeps: waits are
 * only hang guards.
 */
#include "core/testutil.h"

#include "rebuild.h"

#define MIB (1024ULL * 1024)

static void test_rate(void **state)
{
	struct raid_recovery_config c = {.rebuild_min = 1000000, .rebuild_max = 200000000};
	struct rec_pace p;
	uint64_t kb4 = 4096, busy = REC_IDLE_BYTES + 1;

	rec_pace_init(&p, &c);
	assert_int_equal(rec_pace_rate(&p, 0, 0.0), 200000000); /* nothing ran yet: idle */
	/* one 4 KiB read (what an idle job does) is not load, as in md's is_mddev_idle() */
	assert_int_equal(rec_pace_rate(&p, kb4, 0.1), 200000000);
	assert_int_equal(rec_pace_rate(&p, REC_IDLE_BYTES, 0.2), 200000000); /* 64 sectors */
	assert_int_equal(rec_pace_rate(&p, busy, 1.0), 1000000); /* more: the foreground moved */
	assert_int_equal(rec_pace_rate(&p, busy, 1.2), 1000000);   /* 200 ms ago: still busy */
	assert_int_equal(rec_pace_rate(&p, busy, 1.25), 200000000); /* 250 ms of silence */
	/* counted from the last busy look: a trickle adds up, a 4 KiB request does not */
	assert_int_equal(rec_pace_rate(&p, busy + kb4, 2.0), 200000000);
	assert_int_equal(rec_pace_rate(&p, 2 * busy, 9.0), 1000000);
}

/* the option table's defaults are md's speed_limit_min/max: 1000 and 200000 KB/s */
static void test_rate_defaults(void **state)
{
	struct raid_config c;
	struct rec_pace p;

	t_config(&c, NULL);
	rec_pace_init(&p, &c.rec);
	assert_int_equal(rec_pace_rate(&p, 0, 0.0), 200000000);
	assert_int_equal(rec_pace_rate(&p, REC_IDLE_BYTES + 1, 0.0), 1000000);
	raid_config_free(&c);
}

static void test_window_len(void **state)
{
	uint64_t unit = 64 * 1024, msize = 64 * MIB;

	assert_int_equal(rec_window_len(msize, 0, unit, 200000000), REC_REGION_MAX);
	assert_int_equal(rec_window_len(msize, 0, unit, 1000000), unit); /* 125 kB: one unit */
	assert_int_equal(rec_window_len(msize, 0, unit, 8 * 3 * unit), 3 * unit);
	assert_int_equal(rec_window_len(msize, 0, unit, 1), unit); /* never less than a unit */
	assert_int_equal(rec_window_len(msize, msize - unit, unit, 200000000), unit); /* the end */
	assert_int_equal(rec_window_len(msize, msize, unit, 200000000), 0);
	/* a chunk that does not divide the maximum: whole chunks below it */
	assert_int_equal(rec_window_len(msize, 0, 3 * unit, 200000000),
			 REC_REGION_MAX / (3 * unit) * 3 * unit);
	assert_true(rec_pace_due(2.0, 1000000, 1000000) == 3.0);
}

static _Atomic uint64_t fake_ns;

static uint64_t fake_clock(void)
{
	return atomic_load(&fake_ns);
}

static void test_fail_timer(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];
	unsigned seen;

	t_log_start();
	atomic_store(&fake_ns, 1000000000ULL * 100);
	raid_clock_set(fake_clock);
	t_config(&c, "raid_level=1", "raid_members=/p-a:/p-b", "raid_backend=ram",
		 "raid_member_size=1m", "raid_fail=1@5", NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	/* the array opened at fake 100 s; at 104.9 s it is 4.9 s old: nothing is due */
	atomic_store(&fake_ns, 1000000000ULL * 1049 / 10);
	seen = raid_array_events(a);
	/* the thread looks every 0.2 s: give it a look or two to get this wrong */
	raid_array_wait_events(a, seen, 0.5);
	assert_false(raid_member_failed(a, 1));
	/* 5 s: the recovery thread fails it at its next look (a wake-up at most 0.2 s away) */
	atomic_store(&fake_ns, 1000000000ULL * 105);
	for (int guard = 0; guard < 100 && !raid_member_failed(a, 1); guard++)
		raid_array_wait_events(a, seen, 0.5);
	assert_true(raid_member_failed(a, 1));
	assert_false(raid_member_failed(a, 0));
	assert_non_null(strstr(t_log, "member 1 (/p-b) failed at 5.0 s"));
	assert_int_equal(raid_array_put(a), 0);
	raid_clock_set(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_rate_defaults),
	    cmocka_unit_test(test_window_len),
	    cmocka_unit_test(test_fail_timer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
