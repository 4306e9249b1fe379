/*
 * config_test.c - option parsing and validation (config.c) and the member checks of
 * array.c: every bad input gets -EINVAL/-ENOTSUP/-ENOENT and one line naming the option
 * or file; good input gets the documented defaults.
 */
#include "testutil.h"

#include <errno.h>
#include <unistd.h>

#include "raid.h"

static void test_defaults(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN];

	t_config(&c, "raid_level=10", "raid_members=/a:/b:/c", NULL);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(c.chunk, 512 * 1024);
	assert_string_equal(raid_backend_name(c.backend), "io_uring");
	assert_int_equal(t_opt(&c, "raid_parity"), 0 /* cpu */);
	assert_int_equal(c.nmembers, 3);
	assert_string_equal(c.members[2], "/c");
	assert_string_equal(raid_layout_name(10, c.layout), "near2");
	assert_int_equal(t_opt(&c, "raid_gpu"), 0);
	assert_int_equal(t_opt(&c, "raid_gpu_batch"), 64);
	assert_int_equal(t_opt(&c, "raid_gpu_mode"), 0);
	assert_int_equal(t_opt(&c, "raid_stripe_cache"), 4096);
	assert_int_equal(t_opt(&c, "raid_rebuild_min"), 1000000);
	assert_int_equal(t_opt(&c, "raid_rebuild_max"), 200000000);
	assert_true(c.merge);
	raid_config_free(&c);
	t_config(&c, "raid_level=0", "raid_members=/a:/b", "raid_merge=0", NULL);
	assert_false(c.merge);
	raid_config_free(&c);
	t_config(&c, "raid_level=6", "raid_members=/a:/b:/c:/d", "raid_parity=cuda", "raid_gpu=3",
		 "raid_gpu_batch=1024", "raid_gpu_mode=mapped", NULL);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), 0);
	assert_int_equal(t_opt(&c, "raid_gpu"), 3);
	assert_int_equal(t_opt(&c, "raid_gpu_batch"), 1024);
	assert_int_equal(t_opt(&c, "raid_gpu_mode"), 1);
	raid_config_free(&c);
}

static void test_sizes(void **state)
{
	uint64_t v;

	assert_int_equal(raid_parse_size("4k", &v), 0);
	assert_int_equal(v, 4096);
	assert_int_equal(raid_parse_size("1M", &v), 0);
	assert_int_equal(v, 1 << 20);
	assert_int_equal(raid_parse_size("2GiB", &v), 0);
	assert_int_equal(v, 2ULL << 30);
	assert_int_equal(raid_parse_size("65536", &v), 0);
	assert_int_equal(v, 65536);
	assert_int_equal(raid_parse_size("", &v), -EINVAL);
	assert_int_equal(raid_parse_size("-4k", &v), -EINVAL);
	assert_int_equal(raid_parse_size("4q", &v), -EINVAL);
	assert_int_equal(raid_parse_size("99999999999999999999", &v), -EINVAL);
}

struct bad {
	const char *name, *value, *want;
	int err;
};

static void test_bad_values(void **state)
{
	static const struct bad bad[] = {
	    {"raid_level", "7", "raid_level", -EINVAL},
	    {"raid_level", "", "raid_level", -EINVAL},
	    {"raid_chunk", "3k", "raid_chunk", -EINVAL},
	    {"raid_chunk", "2k", "raid_chunk", -EINVAL},
	    {"raid_chunk", "2m", "raid_chunk", -EINVAL},
	    {"raid_chunk", "junk", "raid_chunk", -EINVAL},
	    {"raid_layout", "far2", "raid_layout", -EINVAL},
	    {"raid_backend", "spdk", "raid_backend", -EINVAL},
	    {"raid_parity", "gpu", "raid_parity", -EINVAL},
	    {"raid_failed", "x", "raid_failed", -EINVAL},
	    {"raid_failed", "1,,2", "raid_failed", -EINVAL},
	    {"raid_failed", "-1", "raid_failed", -EINVAL},
	    {"raid_members", "a::b", "raid_members", -EINVAL},
	    {"raid_members", "", "raid_members", -EINVAL},
	    {"raid_member_size", "big", "raid_member_size", -EINVAL},
	    {"raid_rebuild", "2", "raid_rebuild", -EINVAL},
	    {"raid_rebuild_min", "0", "raid_rebuild_min: '0' is not a rate", -EINVAL},
	    /* positive, but below one byte a second: would be stored as 0 */
	    {"raid_rebuild_max", "1e-7", "raid_rebuild_max: '1e-7' is not a rate", -EINVAL},
	    {"raid_rmw", "sometimes", "raid_rmw: 'sometimes' is not one of", -EINVAL},
	    {"raid_workers", "-1", "raid_workers", -EINVAL},
	    {"raid_workers", "65", "raid_workers", -EINVAL},
	    {"raid_stripe_cache", "0", "raid_stripe_cache", -EINVAL},
	    {"raid_stripe_cache", "many", "raid_stripe_cache", -EINVAL},
	    {"raid_fail", "1@", "raid_fail: '1@' is not IDX@SECONDS", -EINVAL},
	    {"raid_fail", "x@5", "raid_fail", -EINVAL},
	    {"raid_inject", "1:trim:5", "raid_inject: '1:trim:5'", -EINVAL},
	    {"raid_inject", "1:read:101", "raid_inject", -EINVAL},
	    {"raid_scrub", "fix", "raid_scrub: 'fix' is not check or repair", -EINVAL},
	    {"raid_init", "zero", "raid_init: 'zero' is not resync or assume-clean", -EINVAL},
	    {"raid_state", "", "raid_state: no path given", -EINVAL},
	    {"raid_rebuild_max", "fast", "raid_rebuild_max: 'fast' is not a rate", -EINVAL},
	    {"raid_spares", "a::b", "raid_spares", -EINVAL},
	    {"raid_gpu", "-1", "raid_gpu: '-1' is not a CUDA device index", -EINVAL},
	    {"raid_gpu", "64", "raid_gpu", -EINVAL},
	    {"raid_gpu_batch", "0", "raid_gpu_batch: '0' is not a stripe count from 1", -EINVAL},
	    {"raid_gpu_batch", "1025", "raid_gpu_batch", -EINVAL},
	    {"raid_gpu_mode", "dma", "raid_gpu_mode: 'dma' is not copy or mapped", -EINVAL},
	    {"raid_merge", "2", "raid_merge: '2' is not 0 or 1", -EINVAL},
	    {"raid_merge", "", "raid_merge", -EINVAL},
	    {"raid_merge", "yes", "raid_merge", -EINVAL},
	    /* each was accepted before the option table, unlike its neighbours */
	    {"raid_stats", "", "raid_stats: no path given", -EINVAL},
	    {"raid_spares", "/a:", "raid_spares: empty path in '/a:'", -EINVAL},
	    {"raid_failed", "1,", "raid_failed: '1,' is not", -EINVAL},
	};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct raid_config c;
		char err[RAID_ERRLEN] = "";

		raid_config_init(&c);
		assert_int_equal(raid_config_set(&c, bad[i].name, bad[i].value, err, sizeof(err)),
				 bad[i].err);
		if (!strstr(err, bad[i].want) || strchr(err, '\n'))
			fail_msg("%s=%s: message '%s' lacks '%s'", bad[i].name, bad[i].value, err,
				 bad[i].want);
		raid_config_free(&c);
	}
}

static void expect_invalid(const char *want, ...)
{
	struct raid_config c;
	char err[RAID_ERRLEN] = "";
	const char *kv;
	va_list ap;

	raid_config_init(&c);
	va_start(ap, want);
	while ((kv = va_arg(ap, const char *))) {
		char name[64];
		const char *eq = strchr(kv, '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - kv), kv);
		assert_int_equal(raid_config_set(&c, name, eq + 1, err, sizeof(err)), 0);
	}
	va_end(ap);
	assert_true(raid_config_validate(&c, err, sizeof(err)) < 0);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	raid_config_free(&c);
}

static void test_bad_combinations(void **state)
{
	expect_invalid("raid_level is required", "raid_members=a:b", NULL);
	expect_invalid("raid_gpu applies only with raid_parity=cuda or auto", "raid_level=5",
		       "raid_members=a:b:c", "raid_gpu=1", NULL);
	expect_invalid("raid_gpu_batch applies only", "raid_level=6", "raid_members=a:b:c:d",
		       "raid_parity=isal", "raid_gpu_batch=8", NULL);
	expect_invalid("raid_gpu_mode applies only", "raid_level=5", "raid_members=a:b:c",
		       "raid_gpu_mode=mapped", NULL);
	expect_invalid("raid_members is required", "raid_level=0", NULL);
	expect_invalid("at least 2 members", "raid_level=1", "raid_members=a", NULL);
	expect_invalid("raid_level=5 needs at least 3 members", "raid_level=5", "raid_members=a:b",
		       NULL);
	expect_invalid("raid_level=6 needs at least 4 members", "raid_level=6",
		       "raid_members=a:b:c", NULL);
	expect_invalid("lost more than raid_level=5 tolerates", "raid_level=5",
		       "raid_members=a:b:c", "raid_failed=0,2", NULL);
	expect_invalid("lost more than raid_level=6 tolerates", "raid_level=6",
		       "raid_members=a:b:c:d", "raid_failed=0,1,3", NULL);
	expect_invalid("member 4 is out of range", "raid_level=1", "raid_members=a:b:c",
		       "raid_failed=4", NULL);
	expect_invalid("raid_failed: the array has lost more than raid_level=0", "raid_level=0",
		       "raid_members=a:b", "raid_failed=1", NULL);
	expect_invalid("lost more than raid_level=1", "raid_level=1", "raid_members=a:b",
		       "raid_failed=0,1", NULL);
	expect_invalid("members 0 (a) and 1 (b)", "raid_level=10", "raid_members=a:b:c:d",
		       "raid_failed=0,1", NULL);
	expect_invalid("members 0 (a) and 2 (c)", "raid_level=10", "raid_members=a:b:c",
		       "raid_failed=0,2", NULL);
	expect_invalid("raid_layout: left-symmetric does not apply to raid_level=10 (near2 only)",
		       "raid_level=10", "raid_members=a:b", "raid_layout=left-symmetric", NULL);
	expect_invalid("raid_layout: near2 does not apply to raid_level=5 (left-symmetric, "
		       "left-asymmetric, right-symmetric, right-asymmetric only)",
		       "raid_level=5", "raid_members=a:b:c", "raid_layout=near2", NULL);
	/* was accepted and ignored: a layout names nothing at levels that have none */
	expect_invalid("raid_layout: near2 does not apply to raid_level=0 (it has no layouts)",
		       "raid_level=0", "raid_members=a:b", "raid_layout=near2", NULL);
	expect_invalid("raid_layout: left-symmetric does not apply to raid_level=1",
		       "raid_level=1", "raid_members=a:b", "raid_layout=left-symmetric", NULL);
	/* given is given, the default value too */
	expect_invalid("raid_gpu applies only", "raid_level=5", "raid_members=a:b:c", "raid_gpu=0",
		       NULL);
}

static void test_good_degraded(void **state)
{
	struct raid_config c;
	char err[RAID_ERRLEN];

	/* even count: 1 and 2 are in different mirror pairs */
	t_config(&c, "raid_level=10", "raid_members=a:b:c:d", "raid_failed=1,2", NULL);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), 0);
	raid_config_free(&c);
	t_config(&c, "raid_level=1", "raid_members=a:b:c", "raid_failed=0,2", NULL);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), 0);
	raid_config_free(&c);
	/* RAID0 over one member, as mdadm --force allows: review A's 1-drive rows */
	t_config(&c, "raid_level=0", "raid_members=a", NULL);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), 0);
	raid_config_free(&c);
}

static char dir[] = "/tmp/raid-config-test.XXXXXX";

static void probe_fails(const char *want, const char *members, const char *size)
{
	struct raid_config c;
	char err[RAID_ERRLEN] = "";
	uint64_t v;

	t_config(&c, "raid_level=0", members, size, NULL);
	assert_true(raid_probe(&c, &v, err, sizeof(err)) < 0);
	if (!strstr(err, want))
		fail_msg("message '%s' lacks '%s'", err, want);
	raid_config_free(&c);
}

static void write_file(const char *name, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	assert_int_equal(ftruncate(fileno(f), (off_t)len), 0);
	fclose(f);
}

static void test_members(void **state)
{
	char m[512], m2[512];
	struct raid_config c;
	char err[RAID_ERRLEN];
	uint64_t v;

	assert_non_null(mkdtemp(dir));
	snprintf(m, sizeof(m), "raid_members=%s/x:%s/y", dir, dir);
	probe_fails("does not exist (set raid_member_size", m, "raid_chunk=4k");
	/* raid_member_size creates missing members */
	t_config(&c, "raid_level=0", m, "raid_member_size=1m", "raid_chunk=64k", NULL);
	assert_int_equal(raid_probe(&c, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 2 << 20);
	raid_config_free(&c);
	probe_fails("holds only 1048576 bytes, less than raid_member_size", m,
		    "raid_member_size=2m");
	/* unequal members: the smallest is used (and the library says so on stderr) */
	write_file("u0", 1 << 20);
	write_file("u1", 3 << 20);
	snprintf(m2, sizeof(m2), "raid_members=%s/u0:%s/u1", dir, dir);
	t_config(&c, "raid_level=1", m2, NULL);
	assert_int_equal(raid_probe(&c, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 1 << 20);
	raid_config_free(&c);
	/* members smaller than a chunk */
	write_file("s0", 4096);
	write_file("s1", 4096);
	snprintf(m2, sizeof(m2), "raid_members=%s/s0:%s/s1", dir, dir);
	probe_fails("smaller than one chunk", m2, "raid_chunk=8k");
	snprintf(m2, sizeof(m2), "raid_members=%s:%s/s1", dir, dir);
	probe_fails("is not a file or a block device", m2, "raid_chunk=4k");
	/* a failed member is never looked at: it may well not exist */
	snprintf(m2, sizeof(m2), "raid_members=%s/s0:%s/nothere", dir, dir);
	t_config(&c, "raid_level=1", m2, "raid_failed=1", NULL);
	assert_int_equal(raid_probe(&c, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 4096);
	raid_config_free(&c);
	char cmd[300];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

/* raid_config_clash: the later of two jobs that run at once may share no device with the
 * earlier unless both are the same array; a failed member is never opened, so it is none. */
static void clash(int want, const char *want_msg, const char *a_members, const char *a_extra,
		  const char *b_members, const char *b_extra)
{
	struct raid_config a, b;
	char err[RAID_ERRLEN] = "";

	t_config(&a, "raid_level=1", a_members, a_extra, NULL);
	t_config(&b, "raid_level=1", b_members, b_extra, NULL);
	assert_int_equal(raid_config_clash(&b, &a, "a", err, sizeof(err)), want);
	if (want_msg)
		assert_non_null(strstr(err, want_msg));
	raid_config_free(&a);
	raid_config_free(&b);
}

static void test_clash(void **state)
{
	(void)state;
	clash(0, NULL, "raid_members=/a:/b", "raid_spares=/s", "raid_members=/a:/b",
	      "raid_spares=/s");
	clash(0, NULL, "raid_members=/a:/b", "raid_spares=/s", "raid_members=/x:/y",
	      "raid_spares=/t");
	clash(-EBUSY, "raid: raid_spares: /a is member 0 (/a) of job 'a' (raid_members /a...)",
	      "raid_members=/a:/b", "raid_spares=/s", "raid_members=/x:/y", "raid_spares=/a");
	clash(-EBUSY, "raid: raid_members: /s is spare 0 (/s) of job 'a'", "raid_members=/a:/b",
	      "raid_spares=/s", "raid_members=/x:/s", "raid_spares=/t");
	clash(-EBUSY, "a rebuild would write over it", "raid_members=/a:/b", "raid_spares=/s",
	      "raid_members=/x:/y", "raid_spares=/s");
	/* the earlier job's failed member is never opened; the later's neither */
	clash(0, NULL, "raid_members=/a:/b", "raid_failed=1", "raid_members=/x:/y",
	      "raid_spares=/b");
	clash(0, NULL, "raid_members=/a:/b", "raid_spares=/s", "raid_members=/x:/a",
	      "raid_failed=1");
	clash(-EINVAL, "raid: raid_state: /st is the state file of job 'a'", "raid_members=/a:/b",
	      "raid_state=/st", "raid_members=/x:/y", "raid_state=/st");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_defaults),	  cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_bad_values),	  cmocka_unit_test(test_bad_combinations),
	    cmocka_unit_test(test_good_degraded), cmocka_unit_test(test_members),
	    cmocka_unit_test(test_clash),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
