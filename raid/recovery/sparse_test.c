/*
 * sparse_test.c - recovery past 2 TiB of member offset (sparse files, nothing big is
 * written): a RAID1 rebuild resumed from a state-file checkpoint at 2 TiB + 512 KiB runs to
 * the members' end and leaves the spare equal to the surviving member there, and the
 * checkpoint survives the JSON round trip as the 64-bit number it is. Offsets this large
 * catch any 32-bit truncation in the window, the pacing, the state file or the backends.
 */
#include "core/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <unistd.h>

#include "core/identity.h"
#include "recovery/helpers/rec_opts.h"

#define TIB (1ULL << 40)
#define MIB (1ULL << 20)
#define MSIZE (2 * TIB + 2 * MIB)
#define RESUME (2 * TIB + MIB / 2)

static char dir[] = "/var/tmp/raid-sparse-test.XXXXXX";

static int sparse(const char *name, char *path, size_t len)
{
	int fd;

	snprintf(path, len, "%s/%s", dir, name);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)MSIZE)) {
		close(fd);
		return -errno;
	}
	return fd;
}

static void test_resume_past_2tib(void **state)
{
	char m0[512], m1[512], sp[512], st[512], opt[1200], json[1200];
	unsigned char *want = malloc(2 * MIB), *got = malloc(2 * MIB);
	struct raid_ident id;
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];
	json_object *o, *x;
	int fd0, fd1, fds;

	fd0 = sparse("m0", m0, sizeof(m0));
	if (fd0 < 0) {
		printf("skipped: %s cannot hold a sparse file of %llu bytes (%s)\n", dir,
		       (unsigned long long)MSIZE, strerror(-fd0));
		skip();
	}
	fd1 = sparse("m1", m1, sizeof(m1));
	fds = sparse("s0", sp, sizeof(sp));
	assert_true(fd1 >= 0 && fds >= 0);
	/* member 0 holds a pattern in the last 2 MiB; member 1 failed; the spare is empty */
	for (size_t i = 0; i < 2 * MIB; i++)
		want[i] = (unsigned char)(i * 131 + (i >> 12));
	assert_int_equal(pwrite(fd0, want, 2 * MIB, (off_t)(MSIZE - 2 * MIB)), (ssize_t)(2 * MIB));
	/* a checkpoint of a rebuild onto s0 already past 2 TiB */
	assert_int_equal(raid_dev_identity(sp, &id), 0);
	snprintf(json, sizeof(json),
		 "{\"members\": 2, \"failed\": [1], \"replaced\": [{\"member\": 1, \"spare\": "
		 "\"%s\", \"spare_id\": \"%s\", \"done\": false, \"recovery_offset\": %llu}]}",
		 sp, id.id, (unsigned long long)RESUME);
	snprintf(st, sizeof(st), "%s/st.json", dir);
	o = json_tokener_parse(json);
	assert_non_null(o);
	assert_int_equal(json_object_to_file(st, o), 0);
	json_object_put(o);

	snprintf(opt, sizeof(opt), "raid_members=%s:%s", m0, m1);
	t_config(&c, "raid_level=1", opt, "raid_backend=psync", "raid_rebuild=1",
		 "raid_rebuild_max=100000", NULL);
	snprintf(opt, sizeof(opt), "%s", sp);
	assert_int_equal(raid_config_set(&c, "raid_spares", opt, err, sizeof(err)), 0);
	if (raid_config_set(&c, "raid_state", st, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(rec_cfg(&c)->resume_off[1], RESUME);
	t_log_start();
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(raid_array_put(a), 0); /* waits for the rebuild */
	raid_config_free(&c);
	assert_non_null(strstr(t_log, "resumed from the state file"));
	assert_non_null(strstr(t_log, "done"));

	/* the spare: the pattern from the checkpoint on (before it, the resume skipped) */
	assert_int_equal(pread(fds, got, 2 * MIB, (off_t)(MSIZE - 2 * MIB)), (ssize_t)(2 * MIB));
	assert_memory_equal(got + (RESUME - (MSIZE - 2 * MIB)), want + (RESUME - (MSIZE - 2 * MIB)),
			    MSIZE - RESUME);
	/* and the state file: the spare is member 1 now */
	o = json_object_from_file(st);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "replaced", &x));
	x = json_object_array_get_idx(x, 0);
	assert_true(json_object_object_get_ex(x, "done", &x));
	assert_true(json_object_get_boolean(x));
	assert_true(json_object_object_get_ex(o, "array", &x));
	assert_true(json_object_object_get_ex(x, "member_size", &x));
	assert_int_equal((uint64_t)json_object_get_int64(x), MSIZE);
	json_object_put(o);
	close(fd0);
	close(fd1);
	close(fds);
	free(want);
	free(got);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	return 0;
}

static int teardown(void **state)
{
	return t_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_resume_past_2tib),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
