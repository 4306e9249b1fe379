/*
 * sizes_test.c - the plan's arithmetic (sizes.c), case by case over the engine's level table:
 * each case's member bytes, volume, job size and offset and run time against figures worked
 * out by hand. A failure names the case and the figure that changed, with both values (the
 * dry runs' checksum, tests/presets/dryrun.sha256, only says that something did).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <cmocka.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

#define K 1024ULL
#define M (1024ULL * 1024)

struct sizes_case {
	const char *name;
	int level; /* -1: JBOD, -2: a dev: volume */
	int members;
	unsigned long long msize, chunk, bs;
	long numjobs;
	const char *rw;
	bool resync, rebuild_job;
	unsigned long long runtime, steady_max;
	struct plan_sizes want;
};

/* clang-format off: one case a line, its fields in struct sizes_case's order */
static const struct sizes_case cases[] = {
	/* (n - 1) x 64 MiB; 4 sequential jobs get a quarter each, one after the other */
	{"raid5 x4, 512k chunk, 1M sequential writes, 4 jobs",
	 5, 4, 64 * M, 512 * K, M, 4, "write", false, false, 10, 0,
	 {64 * M, 192 * M, 48 * M, 48 * M, 10}},
	/* random jobs share the whole volume */
	{"raid5 x4, 4k random writes",
	 5, 4, 64 * M, 512 * K, 4 * K, 4, "randwrite", false, false, 10, 0,
	 {64 * M, 192 * M, 192 * M, 0, 10}},
	{"raid0 x4, 1M sequential reads, 4 jobs",
	 0, 4, 64 * M, 512 * K, M, 4, "read", false, false, 10, 0,
	 {64 * M, 256 * M, 64 * M, 64 * M, 10}},
	/* a JBOD's jobs each take a slice of every member: size is the slice times members */
	{"jbod x4, 1M sequential writes, 4 jobs",
	 -1, 4, 64 * M, M, M, 4, "write", false, false, 10, 0,
	 {64 * M, 0, 64 * M, 16 * M, 10}},
	/* RAID1 stripes nothing: every member holds the whole volume */
	{"raid1 x2, 4k random reads",
	 1, 2, 64 * M, 512 * K, 4 * K, 8, "randread", false, false, 10, 0,
	 {64 * M, 64 * M, 64 * M, 0, 10}},
	{"raid10 x4 (near2), 4k random writes",
	 10, 4, 64 * M, 512 * K, 4 * K, 8, "randwrite", false, false, 10, 0,
	 {64 * M, 128 * M, 128 * M, 0, 10}},
	{"raid6 x6, 1M sequential writes, 2 jobs",
	 6, 6, 64 * M, 512 * K, M, 2, "write", false, false, 10, 0,
	 {64 * M, 256 * M, 128 * M, 128 * M, 10}},
	/* a member size that is no whole number of chunks: the engine uses whole chunks */
	{"raid5 x4, members of 64 MiB + 100 KiB",
	 5, 4, 64 * M + 100 * K, 512 * K, 4 * K, 1, "randread", false, false, 10, 0,
	 {64 * M, 192 * M, 192 * M, 0, 10}},
	/* a slice smaller than one block: every job spans the volume from 0 */
	{"raid0 x2, 1M blocks, more jobs than blocks",
	 0, 2, 2 * M, 512 * K, M, 8, "write", false, false, 10, 0,
	 {2 * M, 4 * M, 4 * M, 0, 10}},
	/* a resync test writes 1/64 of the volume, every job from 0 */
	{"raid5 x4 resync: 1/64 of the volume",
	 5, 4, 64 * M, 512 * K, 4 * K, 4, "randwrite", true, false, 10, 0,
	 {64 * M, 192 * M, 3 * M, 0, 10}},
	/* a rebuild's workload runs 4x the run time; steady state's cap lifts it further */
	{"raid1 x2, a REBUILD- workload",
	 1, 2, 64 * M, 512 * K, 4 * K, 1, "randread", false, true, 10, 0,
	 {64 * M, 64 * M, 64 * M, 0, 40}},
	{"raid5 x4 under steady state, cap 60 s",
	 5, 4, 64 * M, 512 * K, 4 * K, 1, "randread", false, false, 10, 60,
	 {64 * M, 192 * M, 192 * M, 0, 60}},
	/* a dev: volume is sized at run time (raid-preset span): nothing here */
	{"a dev: volume",
	 -2, 0, 64 * M, M, 4 * K, 4, "randread", false, false, 10, 0,
	 {64 * M, 0, 0, 0, 10}},
};
/* clang-format on */

static int check(const char *name, const char *what, unsigned long long got,
		 unsigned long long want)
{
	if (got == want)
		return 0;
	print_message("%s: %s is %llu, expected %llu\n", name, what, got, want);
	return 1;
}

static void test_cases(void **state)
{
	int bad = 0;

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct sizes_case *c = &cases[i];
		struct raid_level_info l;
		struct plan_sizes z;

		if (c->level >= 0)
			assert_int_equal(raid_level_get(c->level, &l), 0);
		const struct plan_shape s = {.l = c->level >= 0 ? &l : NULL,
					     .jbod = c->level == -1,
					     .resync = c->resync,
					     .rebuild_job = c->rebuild_job,
					     .members = c->members,
					     .msize = c->msize,
					     .chunk = c->chunk,
					     .bs = c->bs,
					     .numjobs = c->numjobs,
					     .rw = c->rw,
					     .runtime = c->runtime,
					     .steady_max = c->steady_max};

		plan_sizes(&s, &z);
		bad += check(c->name, "member bytes", z.per, c->want.per);
		bad += check(c->name, "volume", z.vol, c->want.vol);
		bad += check(c->name, "JOB_SIZE", z.size, c->want.size);
		bad += check(c->name, "JOB_OFFSET", z.off, c->want.off);
		bad += check(c->name, "run time", z.run_time, c->want.run_time);
	}
	assert_int_equal(bad, 0);
}

/* the published figures at a scale: rounded, never below one job or one I/O in flight */
static void test_scaled(void **state)
{
	(void)state;
	assert_int_equal(plan_scaled("64", 0.0625), 4);
	assert_int_equal(plan_scaled("8", 0.0625), 1);
	assert_int_equal(plan_scaled("32", 0.5), 16);
	assert_int_equal(plan_scaled("3", 0.5), 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cases),
	    cmocka_unit_test(test_scaled),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
