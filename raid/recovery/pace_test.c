/*
 * pace_test.c - the rebuild's pacing (pace.c) and raid_fail's timers (fault.c) on a fake
 * clock: md's min/max rule (busy past 64 sectors of foreground, as md's is_mddev_idle)
 * flips exactly at 250 ms of foreground silence, windows are an eighth of a second's
 * worth in whole units, a window woken late is made up by at most REC_PACE_CREDIT
 * windows while the average stays at the rate, and a member set to fail at 5 s fails when
 * the fake clock says 5 s, never before, whatever the real time. Then a whole rebuild on
 * the simulated device (simdev.h), seen only through the service's API: it runs at max
 * while the foreground is idle and at min while a foreground read completes at every
 * pause, and its state file's checkpoint moves once per fake second. No sleeps: waits
 * are only hang guards.
 */
#include "core/testutil.h"

#include <json-c/json.h>

#include "recovery/blocks/blocks.h"
#include "simdev.h"

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
	rec_pace_init(&p, rec_cfg(&c));
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
	/* 1 MB at 1 MB/s: the next one second after this one was due */
	assert_true(rec_pace_due(2.0, 2.0, 1000000, 1000000) == 3.0);
	assert_true(rec_pace_due(2.0, 2.5, 1000000, 1000000) == 3.0); /* woken late: made up */
	/* far behind: at most REC_PACE_CREDIT windows are made up, never a burst beyond */
	assert_true(rec_pace_due(2.0, 100.0, 1000000, 1000000) == 101.0 - REC_PACE_CREDIT);
	/* one per window's time on average: a hundred windows take a hundred seconds */
	{
		double due = 0, now = 0;

		for (int i = 0; i < 100; i++) {
			now = due > now ? due : now; /* starts as soon as it is due */
			due = rec_pace_due(due, now, 1000000, 1000000);
		}
		assert_true(due == 100.0);
	}
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

/* ---- a whole paced rebuild on the simulated device ---- */

#define T0 50.0		    /* the fake clock when the array opens */
#define RATE_MAX 32000000.0 /* raid_rebuild_max=32 */
#define RATE_MIN 4000000.0  /* raid_rebuild_min=4 */
#define BUSY_LO 1.0	    /* the foreground reads from 1 s to 3 s of fake time */
#define BUSY_HI 3.0
#define MAX_LOOKS 8192

static struct look {
	double t;	    /* fake seconds since the array opened */
	uint64_t front;	    /* the member's recovery_offset (the core's) */
	int64_t checkpoint; /* the state file's recovery_offset, -1 when none */
} looks[MAX_LOOKS];
static int nlooks;
static struct raid_array *pa;
static struct raid_queue *fg;
static atomic_int fg_errors;
static char pace_dir[] = "/tmp/raid-pace-test.XXXXXX", pace_state[600];
#define FG_LEN (64 * 1024) /* one foreground read: load by md's rule (above 64 sectors) */
static unsigned char fg_buf[FG_LEN] __attribute__((aligned(4096)));

static int64_t state_checkpoint(void)
{
	json_object *o = json_object_from_file(pace_state), *x;
	int64_t v = -1;

	if (o && json_object_object_get_ex(o, "replaced", &x) &&
	    (x = json_object_array_get_idx(x, 0)) &&
	    json_object_object_get_ex(x, "recovery_offset", &x))
		v = json_object_get_int64(x);
	json_object_put(o);
	return v;
}

/* One foreground read (in the rebuild's pause: the fake clock stands still meanwhile). */
static void fg_read(void)
{
	struct raid_request r = {.op = RAID_OP_READ, .buf = fg_buf, .offset = 0, .length = FG_LEN};
	struct raid_request *out[1];

	if (raid_submit(fg, &r)) {
		atomic_fetch_add(&fg_errors, 1);
		return;
	}
	raid_commit(fg);
	if (raid_reap(fg, 1, 1, NULL, out) != 1 || r.error)
		atomic_fetch_add(&fg_errors, 1);
}

/* Every pause of the rebuild (the recovery thread): the foreground, then a look. */
static void on_sleep(double now)
{
	double t = now - T0;

	if (t >= BUSY_LO && t < BUSY_HI)
		fg_read();
	if (nlooks < MAX_LOOKS)
		looks[nlooks++] =
		    (struct look){t, atomic_load(&pa->m[1].recovery_offset), state_checkpoint()};
}

/*
 * The rebuild's rate between fake times lo and hi: from the first pause after one window
 * moved the front to the first pause after a later one did (the same point of two
 * windows, so whole windows are measured).
 */
static double rate_between(double lo, double hi)
{
	const struct look *a = NULL, *b = NULL;

	for (int i = 1; i < nlooks; i++) {
		if (looks[i].front == looks[i - 1].front)
			continue;
		if (!a && looks[i].t >= lo)
			a = &looks[i];
		if (looks[i].t <= hi)
			b = &looks[i];
	}
	assert_non_null(a);
	assert_non_null(b);
	assert_true(b->t > a->t);
	return (double)(b->front - a->front) / (b->t - a->t);
}

static void test_paced_rebuild(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN], st[700];
	double end, prev = 0, r;
	int ncp = 0;
	int64_t last_cp = 0;
	unsigned seen;

	assert_non_null(mkdtemp(pace_dir));
	snprintf(pace_state, sizeof(pace_state), "%s/st.json", pace_dir);
	snprintf(st, sizeof(st), "raid_state=%s", pace_state);
	t_log_start();
	sim_start(T0);
	sim_on_sleep = on_sleep;
	atomic_store(&sim_hold, true); /* until member 0 holds its bytes and fg is made */
	t_config(&c, "raid_level=1", "raid_members=/pr-a:/pr-b", "raid_backend=ram",
		 "raid_member_size=64m", "raid_failed=1", "raid_spares=/pr-s", "raid_rebuild=1",
		 "raid_rebuild_min=4", "raid_rebuild_max=32", st, NULL);
	if (raid_array_get(&c, &pa, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	for (size_t i = 0; i < 64 * MIB; i += 4096) /* member 0's bytes, for the spare to get */
		pa->m[0].ram[i] = (unsigned char)(i >> 12);
	if (raid_queue_create(pa, 4, false, &fg, err, sizeof(err)))
		fail_msg("%s", err);
	seen = raid_array_events(pa);
	atomic_store(&sim_hold, false);
	for (int guard = 0; guard < 300 && raid_member_failed(pa, 1); guard++)
		seen = (raid_array_wait_events(pa, seen, 0.1), raid_array_events(pa));
	assert_false(raid_member_failed(pa, 1)); /* rebuilt, in sync */
	assert_int_equal(atomic_load(&fg_errors), 0);
	assert_memory_equal(pa->m[0].ram, pa->m[2].ram, 64 * MIB);
	assert_true(nlooks > 20);
	end = looks[nlooks - 1].t;
	printf("rebuild of 64 MiB in %.2f fake s, %d pauses\n", end, nlooks);
	/* md's rule: max while idle, min while the foreground is busy, max again after */
	r = rate_between(0.1, BUSY_LO - 0.05);
	printf("idle before: %.2f MB/s\n", r / 1e6);
	assert_true(r > 0.9 * RATE_MAX && r < 1.02 * RATE_MAX);
	r = rate_between(BUSY_LO + 0.3, BUSY_HI - 0.05);
	printf("busy: %.2f MB/s\n", r / 1e6);
	assert_true(r > 0.9 * RATE_MIN && r < 1.1 * RATE_MIN);
	r = rate_between(BUSY_HI + 0.5, end - 0.05);
	printf("idle after: %.2f MB/s\n", r / 1e6);
	assert_true(r > 0.9 * RATE_MAX && r < 1.02 * RATE_MAX);
	/*
	 * The whole pass: about 34 MB at max until the window under way when the reads began
	 * ends (1.07 s), 9 MB at min until 250 ms after the last read (md's busy test), then
	 * the rest at max: 4.1 s.
	 */
	assert_true(end > 3.9 && end < 4.3);
	/* a checkpoint every fake second, never ahead of the front */
	for (int i = 0; i < nlooks; i++) {
		assert_true(looks[i].checkpoint <= (int64_t)looks[i].front);
		if (looks[i].checkpoint > last_cp) {
			printf("checkpoint at %.2f s: %" PRId64 " bytes\n", looks[i].t,
			       looks[i].checkpoint);
			assert_true(looks[i].t - prev > 0.9 && looks[i].t - prev < 1.3);
			prev = looks[i].t;
			last_cp = looks[i].checkpoint;
			ncp++;
		}
	}
	assert_int_equal(ncp, 3); /* at 1, 2 and 3 s; the end is "done", not a checkpoint */
	raid_queue_destroy(fg);
	assert_int_equal(raid_array_put(pa), 0);
	sim_stop();
	t_rmtree(pace_dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_rate_defaults),
	    cmocka_unit_test(test_window_len),
	    cmocka_unit_test(test_fail_timer),
	    cmocka_unit_test(test_paced_rebuild),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
