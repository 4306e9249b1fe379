/*
 * slow_req_test.c - RAID_TEST_SLOW_REQUEST (slow_req.c) on a fake clock: unset or malformed it
 * adds nothing; set to 25 it adds a quarter of each cycle's time on average, also when every
 * spin overshoots (a loaded machine), and each spin comes before the requests are handed back.
 * The fake clock's sleep stands in for the spin (raid_clock_spin); on the real clock a spin
 * returns no sooner than asked.
 */
#include "testutil.h"

#include "core.h"

static uint64_t fake_ns;
static uint64_t slept_ns;
static uint64_t overshoot_ns;

static uint64_t fake_now(void)
{
	return fake_ns;
}

static void fake_sleep(double s)
{
	uint64_t d = (uint64_t)(s * 1e9 + 0.5) + overshoot_ns;

	fake_ns += d;
	slept_ns += d;
}

static int setup(void **state)
{
	(void)state;
	raid_clock_set(fake_now);
	raid_clock_set_sleep(fake_sleep);
	fake_ns = 1000000;
	slept_ns = 0;
	overshoot_ns = 0;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	raid_clock_set(NULL);
	raid_clock_set_sleep(NULL);
	unsetenv("RAID_TEST_SLOW_REQUEST");
	return 0;
}

/* N cycles of WORK ns each; returns the time slept */
static uint64_t cycles(struct raid_slow_req *s, int n, uint64_t work)
{
	for (int i = 0; i < n; i++) {
		fake_ns += work;
		raid_slow_req_pay(s);
	}
	return slept_ns;
}

static void off_unless_set(void **state)
{
	struct raid_slow_req s;

	(void)state;
	unsetenv("RAID_TEST_SLOW_REQUEST");
	raid_slow_req_init(&s);
	assert_int_equal(s.pct, 0);
	assert_int_equal(cycles(&s, 100, 10000), 0);
	setenv("RAID_TEST_SLOW_REQUEST", "25x", 1);
	raid_slow_req_init(&s);
	assert_int_equal(s.pct, 0);
	setenv("RAID_TEST_SLOW_REQUEST", "2000", 1);
	raid_slow_req_init(&s);
	assert_int_equal(s.pct, 0);
}

static void quarter_of_each_cycle(void **state)
{
	struct raid_slow_req s;

	(void)state;
	setenv("RAID_TEST_SLOW_REQUEST", "25", 1);
	raid_slow_req_init(&s);
	assert_int_equal(s.pct, 25);
	raid_slow_req_pay(&s); /* the first reap starts the clock: nothing owed yet */
	assert_int_equal(slept_ns, 0);
	/* 1000 cycles of 40 us: 10 ms of sleep, exactly with an exact sleep */
	assert_int_equal(cycles(&s, 1000, 40000), 10000000);
}

static void overshoot_paid_back(void **state)
{
	struct raid_slow_req s;

	(void)state;
	setenv("RAID_TEST_SLOW_REQUEST", "25", 1);
	raid_slow_req_init(&s);
	overshoot_ns = 50000; /* every sleep 50 us too long, longer than a cycle's debt */
	raid_slow_req_pay(&s);
	uint64_t got = cycles(&s, 10000, 40000);
	/* 100 ms owed: within one overshoot of it, not 10000 overshoots more */
	assert_true(got >= 100000000 && got <= 100000000 + 50000 + 10000);
}

static void spin_on_the_real_clock(void **state)
{
	uint64_t t0 = raid_now_ns();

	(void)state;
	raid_clock_spin(0.002);
	assert_true(raid_now_ns() - t0 >= 2000000);
	raid_clock_spin(0); /* nothing owed: returns at once */
	raid_clock_spin(-1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(off_unless_set, setup, teardown),
	    cmocka_unit_test_setup_teardown(quarter_of_each_cycle, setup, teardown),
	    cmocka_unit_test_setup_teardown(overshoot_paid_back, setup, teardown),
	    cmocka_unit_test(spin_on_the_real_clock),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
