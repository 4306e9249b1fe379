/*
 * array_test.c - the array's checks of what it is given (array.c, queue.c): member paths
 * longer than PATH_MAX (the registry key is sized from them; this test is built with
 * AddressSanitizer), one file named twice or under two names, a stats file that is a
 * member or a spare (it would be written over), O_DIRECT requests the members could
 * never take, refused up front with EINVAL and never counted as a member failure, and a
 * device of another array open in the process, refused naming it.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <limits.h>
#include <unistd.h>

static char dir[] = "/var/tmp/raid-array-test.XXXXXX"; /* not tmpfs: O_DIRECT alignment */

/* LeakSanitizer is not the point here (fio's own allocations are never freed either) */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "detect_leaks=0";
}

static void test_long_paths(void **state)
{
	/* longer than the PATH_MAX + 1 bytes a member that the old fixed key allowed each */
	size_t len = 3 * PATH_MAX;
	char *opt = malloc(2 * len + 64), *p;
	struct raid_config c;
	struct raid_array *a, *b;
	char err[RAID_ERRLEN];

	/* two failed-member paths (never opened) three times PATH_MAX each */
	p = opt + sprintf(opt, "raid_members=");
	for (int k = 0; k < 2; k++) {
		*p++ = '/';
		memset(p, 'a' + k, len);
		p += len;
		*p++ = ':';
	}
	sprintf(p, "%s/c", dir); /* null backend: need not exist */
	t_config(&c, "raid_level=1", opt, "raid_backend=null", "raid_member_size=1m",
		 "raid_failed=0,1", NULL);
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), 0);
	assert_int_equal(raid_array_get(&c, &b, err, sizeof(err)), 0);
	assert_ptr_equal(a, b); /* the same key: one array */
	raid_array_put(b);
	raid_array_put(a);
	raid_config_free(&c);
	free(opt);
}

static void test_aliases(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char m[512], stats[512], err[RAID_ERRLEN];
	uint64_t v;

	snprintf(m, sizeof(m), "raid_members=%s/a:%s/./a", dir, dir);
	t_config(&c, "raid_level=1", m, "raid_member_size=64k", NULL);
	assert_int_equal(raid_probe(&c, &v, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "are the same file under two names (members 0 and 1)"));
	assert_null(strstr(err, "in use by another process"));
	raid_config_free(&c);
	snprintf(m, sizeof(m), "raid_members=%s/a:%s/b", dir, dir);
	t_config(&c, "raid_level=1", m, "raid_member_size=64k", NULL);
	snprintf(m, sizeof(m), "%s/b", dir);
	assert_int_equal(raid_config_set(&c, "raid_spares", m + 0, err, sizeof(err)), 0);
	assert_int_equal(raid_config_validate(&c, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is named twice"));
	raid_config_free(&c);
	/* the stats file written at the end over a member (created by this open), a spare */
	snprintf(m, sizeof(m), "raid_members=%s/a:%s/fresh", dir, dir);
	snprintf(stats, sizeof(stats), "raid_stats=%s/fresh", dir);
	t_config(&c, "raid_level=1", m, "raid_member_size=64k", stats, NULL);
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "raid: raid_stats: "));
	assert_non_null(strstr(err, "/fresh is member 1 ("));
	raid_config_free(&c);
	snprintf(m, sizeof(m), "raid_members=%s/a:%s/fresh", dir, dir);
	snprintf(stats, sizeof(stats), "raid_spares=%s/sp", dir);
	t_config(&c, "raid_level=1", m, "raid_member_size=64k", stats, NULL);
	snprintf(stats, sizeof(stats), "%s/./sp", dir);
	assert_int_equal(raid_config_set(&c, "raid_stats", stats, err, sizeof(err)), 0);
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/./sp is spare 0 ("));
	raid_config_free(&c);
}

/*
 * A second job of an open array whose options were read after the first job's array wrote the
 * state file (which now records member 1, raid_failed's, as failed): the same array, not "a
 * different geometry". Under load the second job's thread can start that late (seen in CI).
 */
static void test_joins_after_state_written(void **state)
{
	struct raid_config c1, c2;
	struct raid_array *a, *b = NULL;
	char m[512], st[600], path[512], err[RAID_ERRLEN] = "";

	snprintf(m, sizeof(m), "raid_members=%s/j0:%s/j1", dir, dir);
	snprintf(path, sizeof(path), "%s/j.state", dir);
	snprintf(st, sizeof(st), "raid_state=%s", path);
	unlink(path);
	t_config(&c1, "raid_level=1", m, "raid_member_size=64k", "raid_failed=1", st, NULL);
	/* the first job's array writes the file (here at a close, then it opens again, its options
	 * read again as fio's next job would: with the ones read before the file was written it is
	 * refused, "changed after this job read it") */
	assert_int_equal(raid_array_get(&c1, &a, err, sizeof(err)), 0);
	raid_array_put(a);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(raid_array_get(&c1, &a, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "/j.state changed after this job read it"));
	raid_config_free(&c1);
	t_config(&c1, "raid_level=1", m, "raid_member_size=64k", "raid_failed=1", st, NULL);
	assert_int_equal(raid_array_get(&c1, &a, err, sizeof(err)), 0);
	/* the second job's options, read now: the file records member 1 failed */
	t_config(&c2, "raid_level=1", m, "raid_member_size=64k", "raid_failed=1", st, NULL);
	if (raid_array_get(&c2, &b, err, sizeof(err)))
		fail_msg("the second job was refused: %s", err);
	assert_ptr_equal(a, b);
	raid_array_put(b);
	raid_array_put(a);
	raid_config_free(&c2);
	raid_config_free(&c1);
}

static void test_misaligned_direct(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	char m[512], err[RAID_ERRLEN], stats[512];
	json_object *o, *f;
	void *buf = NULL;
	int fd;

	snprintf(stats, sizeof(stats), "%s/probe", dir);
	fd = open(stats, O_RDWR | O_CREAT | O_DIRECT, 0644);
	if (fd < 0) {
		printf("skipped: %s does not support O_DIRECT\n", dir);
		skip();
	}
	close(fd);
	snprintf(m, sizeof(m), "raid_members=%s/d0:%s/d1", dir, dir);
	snprintf(stats, sizeof(stats), "raid_stats=%s/stats.json", dir);
	t_config(&c, "raid_level=1", m, "raid_member_size=1m", "raid_backend=psync", stats, NULL);
	c.direct = c.writes = true;
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), 0);
	assert_int_equal(raid_queue_create(a, 4, true, &q, err, sizeof(err)), 0);
	assert_int_equal(posix_memalign(&buf, 4096, 16384), 0);
	memset(buf, 7, 16384);
	t_log[0] = 0;
	assert_int_equal(t_io(q, RAID_OP_WRITE, (char *)buf + 1, 0, 4096), -EINVAL);
	assert_int_equal(t_io(q, RAID_OP_READ, buf, 100, 4096), -EINVAL);
	assert_non_null(strstr(t_log, "not aligned to the members' logical block size"));
	/* one line, not one per request */
	assert_null(strstr(strstr(t_log, "not aligned") + 1, "not aligned"));
	/* aligned I/O still works, and no member was failed by the refused ones */
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 0, 4096), 0);
	assert_int_equal(t_io(q, RAID_OP_READ, buf, 4096, 4096), 0);
	raid_queue_destroy(q);
	assert_int_equal(raid_array_put(a), 0);
	raid_config_free(&c);
	snprintf(stats, sizeof(stats), "%s/stats.json", dir);
	o = json_object_from_file(stats);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "failed", &f));
	assert_int_equal(json_object_array_length(f), 0);
	json_object_put(o);
	free(buf);
}

static int setup(void **state)
{
	char p[512];
	int fd;

	assert_non_null(mkdtemp(dir));
	t_log_start();
	snprintf(p, sizeof(p), "%s/a", dir);
	fd = open(p, O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 65536), 0);
	close(fd);
	return 0;
}

static int teardown(void **state)
{
	return t_rmtree(dir);
}

/*
 * Two arrays of one process: the second may not take the first's member or spare as its own
 * member or spare (fio refuses the later job at setup, raid_config_clash; this is the check
 * at open, for what setup cannot see and for callers other than fio).
 */
static void test_devices_taken(void **state)
{
	struct raid_config c, d;
	struct raid_array *a, *b;
	char err[RAID_ERRLEN];

	(void)state;
	t_config(&c, "raid_level=1", "raid_members=/dt-a0:/dt-a1", "raid_spares=/dt-as",
		 "raid_backend=ram", "raid_member_size=1m", NULL);
	assert_int_equal(raid_array_get(&c, &a, err, sizeof(err)), 0);
	t_config(&d, "raid_level=1", "raid_members=/dt-b0:/dt-b1", "raid_spares=/dt-a1",
		 "raid_failed=1", "raid_rebuild=1", "raid_backend=ram", "raid_member_size=1m",
		 NULL);
	assert_int_equal(raid_array_get(&d, &b, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "raid: raid_spares: /dt-a1 is member 1 (/dt-a1) of another "
				    "array open in this fio (raid_members /dt-a0...): a rebuild"));
	raid_config_free(&d);
	t_config(&d, "raid_level=1", "raid_members=/dt-as:/dt-b1", "raid_backend=ram",
		 "raid_member_size=1m", NULL);
	assert_int_equal(raid_array_get(&d, &b, err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "raid: raid_members: /dt-as is spare 0 (/dt-as) of another"));
	raid_config_free(&d);
	assert_int_equal(raid_array_put(a), 0);
	raid_config_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_long_paths),
	    cmocka_unit_test(test_aliases),
	    cmocka_unit_test(test_joins_after_state_written),
	    cmocka_unit_test(test_misaligned_direct),
	    cmocka_unit_test(test_devices_taken),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
