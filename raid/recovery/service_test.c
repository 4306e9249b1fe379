/*
 * service_test.c - what the recovery service owes the exit status and the disk, through its
 * API (raid_array_get/put, the state file, the stats), on a simulated device and fake clock
 * (simdev.h): raid_fail fires inside a scrub and inside the initial resync, not after them;
 * raid_interrupt (SIGINT, SIGTERM) stops both; a resync or repair keeps the state dirty
 * while it runs, and one that stopped leaves it dirty; a scrub out of memory fails the run
 * and writes no count; the state file is fsync'ed before its rename and its directory
 * after, and a failure there or a short write refuses the writer (EIO); a spare whose
 * fdatasync fails is not declared in sync. The system calls are the linker's wraps
 * (recovery.mk): each test arms one failure, and nothing else changes.
 */
#include "core/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "simdev.h"

#define MIB (1024ULL * 1024)

static char dir[] = "/var/tmp/raid-service-test.XXXXXX"; /* fdatasync means something there */

/* ---- the wrapped calls: the test arms one failure at a time ---- */

static size_t fail_align_len; /* posix_memalign of this length fails */
static ino_t fail_sync_ino;   /* fdatasync of this inode fails */
static bool fail_dir_fsync;   /* fsync of a directory fails */
static int renames, dir_fsyncs_after_rename, files_synced, synced_before_rename;

int __real_posix_memalign(void **p, size_t align, size_t len);
int __wrap_posix_memalign(void **p, size_t align, size_t len);
int __wrap_posix_memalign(void **p, size_t align, size_t len)
{
	if (fail_align_len && len == fail_align_len)
		return ENOMEM;
	return __real_posix_memalign(p, align, len);
}

static ino_t fd_ino(int fd, bool *is_dir)
{
	struct stat st;

	if (fstat(fd, &st))
		return 0;
	*is_dir = S_ISDIR(st.st_mode);
	return st.st_ino;
}

int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);
int __wrap_fdatasync(int fd)
{
	bool d;

	if (fail_sync_ino && fd_ino(fd, &d) == fail_sync_ino) {
		errno = EIO;
		return -1;
	}
	return __real_fdatasync(fd);
}

int __real_fsync(int fd);
int __wrap_fsync(int fd);
int __wrap_fsync(int fd)
{
	bool d = false;

	fd_ino(fd, &d);
	if (d && renames)
		dir_fsyncs_after_rename++;
	if (!d)
		files_synced++;
	if (d && fail_dir_fsync) {
		errno = EIO;
		return -1;
	}
	return __real_fsync(fd);
}

/* a write to a *.tmp file moves one byte less (errno stays as it was: ENOENT here, from
 * realpath of the ram members' names) */
static bool short_tmp_write;

ssize_t __real_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len);
ssize_t __wrap_write(int fd, const void *buf, size_t len)
{
	char link[64], path[512];
	ssize_t n;

	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	if (short_tmp_write && len > 1 && (n = readlink(link, path, sizeof(path) - 1)) > 4 &&
	    !memcmp(path + n - 4, ".tmp", 4)) {
		return __real_write(fd, buf, len - 1); /* errno as earlier calls left it */
	}
	return __real_write(fd, buf, len);
}

int __real_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to);
int __wrap_rename(const char *from, const char *to)
{
	int ret = __real_rename(from, to);

	if (!ret) {
		renames++;
		dir_fsyncs_after_rename = 0;
		synced_before_rename = files_synced;
	}
	files_synced = 0;
	return ret;
}

/* ---- helpers ---- */

static char path_buf[4][512];

static const char *in_dir(int slot, const char *name)
{
	snprintf(path_buf[slot], sizeof(path_buf[slot]), "%s/%s", dir, name);
	return path_buf[slot];
}

/* raid_array_get of config c (made by t_config) for a job that writes or not; frees c. */
static int get(struct raid_config *c, bool writes, struct raid_array **a, char *err, size_t errlen)
{
	int ret;

	c->writes = writes;
	ret = raid_array_get(c, a, err, errlen);
	raid_config_free(c);
	return ret;
}

static json_object *json_at(const char *path, const char *key)
{
	json_object *o = json_object_from_file(path), *x = NULL;

	assert_non_null(o);
	json_object_object_get_ex(o, key, &x);
	x = x ? json_object_get(x) : NULL;
	json_object_put(o);
	return x;
}

/* ---- raid_fail inside the passes ---- */

/* A member set to fail 4 ms into a scrub of about 17 ms (fake) fails inside it: the scrub
 * stops, says why and fails the run; had the timer waited for the pass, it would pass. */
static void test_fail_during_scrub(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];

	sim_start(10);
	t_log[0] = 0;
	t_config(&c, "raid_level=1", "raid_members=/sc-a:/sc-b", "raid_backend=ram",
		 "raid_member_size=8m", "raid_scrub=check", "raid_fail=1@0.004", NULL);
	if (get(&c, false, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(raid_array_put(a), -ENODEV);
	sim_stop();
	assert_non_null(strstr(t_log, "raid_fail: failing member 1 (/sc-b) at 0.0"));
	assert_non_null(strstr(t_log, "raid_scrub: stopped after"));
	assert_non_null(strstr(t_log, "a member failed during the pass"));
}

/* The same inside raid_init=resync: the array does not start on a resync that stopped. */
static void test_fail_during_resync(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];

	sim_start(10);
	t_log[0] = 0;
	t_config(&c, "raid_level=5", "raid_members=/rs-a:/rs-b:/rs-c", "raid_backend=ram",
		 "raid_member_size=8m", "raid_init=resync", "raid_fail=1@0.004", NULL);
	assert_int_not_equal(get(&c, true, &a, err, sizeof(err)), 0);
	sim_stop();
	assert_non_null(strstr(err, "raid_init=resync"));
	assert_non_null(strstr(t_log, "raid_fail: failing member 1 (/rs-b)"));
	assert_non_null(strstr(t_log, "raid_init=resync: stopped after"));
	assert_null(strstr(t_log, "resync done"));
}

/*
 * raid_interrupt() (what SIGINT and SIGTERM call) 4 ms into a scrub or a resync stops it at
 * its next window and fails the run. It stops every array of the process for good, so each
 * case runs in a child process, which reports the first check that did not hold.
 */
static const char *interrupted_pass(bool resync)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];
	uint64_t stripes, chunk = 64 * 1024;
	int ret;

	sim_start(10);
	sim_at_s = 10.004;
	sim_at = raid_interrupt;
	t_config(&c, "raid_level=5", "raid_members=/in-a:/in-b:/in-c", "raid_backend=ram",
		 "raid_member_size=8m", "raid_chunk=64k",
		 resync ? "raid_init=resync" : "raid_scrub=check", NULL);
	ret = get(&c, true, &a, err, sizeof(err));
	if (resync && !ret)
		return "the array started on an interrupted resync";
	if (resync && !strstr(err, "raid_init=resync"))
		return "the refusal does not name raid_init=resync";
	if (!resync && (ret || (ret = raid_array_put(a)) != -EINTR))
		return ret ? "the interrupted scrub did not fail the run with EINTR"
			   : "open failed";
	if (!strstr(t_log,
		    resync ? "raid_init=resync: stopped after" : "raid_scrub: stopped after") ||
	    !strstr(t_log, "interrupted"))
		return "no line says the pass was interrupted";
	if (strstr(t_log, resync ? "resync done" : "mismatched"))
		return "the interrupted pass reported a result";
	/* at its next window: a few of the member's 1 MiB windows, not all 8 */
	if (sscanf(strstr(t_log, "stopped after"), "stopped after %" SCNu64, &stripes) != 1 ||
	    stripes * chunk > 3 * MIB)
		return "the pass did not stop at its next window";
	return NULL;
}

static void test_interrupt(void **state)
{
	for (int resync = 0; resync < 2; resync++) {
		int fds[2], status;
		char why[200] = "";
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (!pid) {
			const char *w;

			t_log[0] = 0;
			w = interrupted_pass(resync);
			if (w && write(fds[1], w, strlen(w)) < 0)
				_exit(2);
			_exit(w ? 1 : 0);
		}
		close(fds[1]);
		if (read(fds[0], why, sizeof(why) - 1) < 0)
			why[0] = 0;
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			fail_msg("%s: %s", resync ? "resync" : "scrub", why[0] ? why : "crashed");
	}
}

/* ---- the dirty mark of the recovery's own writes ---- */

static const char *mark_path;
static atomic_int mark_seen; /* "clean" of the state file seen inside the pass, -1 none */

static void look_at_mark(void)
{
	json_object *x = json_at(mark_path, "clean");

	mark_seen = x ? json_object_get_boolean(x) : -1;
	json_object_put(x);
}

/*
 * A resync or a repair rewrites redundancy: killed half-way it leaves rows torn like a
 * write run would, so the state file says dirty while it runs (seen 4 ms into the pass), and
 * a repair that stopped half-way leaves it dirty, so that the next start resyncs.
 */
static void test_repair_marks_dirty(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN], opt[600];

	mark_path = in_dir(0, "mark.state");
	snprintf(opt, sizeof(opt), "raid_state=%s", mark_path);
	for (int k = 0; k < 2; k++) {
		unlink(mark_path);
		sim_start(10);
		sim_at_s = 10.004;
		sim_at = look_at_mark;
		mark_seen = -1;
		t_config(&c, "raid_level=5", "raid_members=/dm-a:/dm-b:/dm-c", "raid_backend=ram",
			 "raid_member_size=8m", opt, k ? "raid_scrub=repair" : "raid_init=resync",
			 k ? "raid_fail=1@0.006" : "raid_rebuild=0", NULL);
		if (get(&c, false, &a, err, sizeof(err))) /* a job that only reads */
			fail_msg("%s", err);
		/* the repair runs after the open: a hang guard until it has looked */
		for (int guard = 0; atomic_load(&mark_seen) < 0 && guard < 10000; guard++)
			usleep(1000);
		assert_int_equal(atomic_load(&mark_seen), 0);
		assert_int_equal(raid_array_put(a), k ? -ENODEV : 0);
		sim_stop();
		look_at_mark();
		assert_int_equal(mark_seen, !k); /* resync done: clean; repair stopped: dirty */
	}
}

/* ---- errors outside the job's I/O ---- */

/* A scrub whose parity check cannot get memory: the run fails, no count is written. */
static void test_scrub_out_of_memory(void **state)
{
	const char *stats = in_dir(0, "oom.json");
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN], opt[600];
	json_object *x;

	snprintf(opt, sizeof(opt), "raid_stats=%s", stats);
	t_log[0] = 0;
	fail_align_len = 2 * 16 * 1024; /* rows_check's scratch: two chunks */
	t_config(&c, "raid_level=5", "raid_members=/om-a:/om-b:/om-c", "raid_backend=ram",
		 "raid_member_size=1m", "raid_chunk=16k", "raid_scrub=check", opt, NULL);
	if (get(&c, false, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(raid_array_put(a), -ENOMEM);
	fail_align_len = 0;
	assert_non_null(strstr(t_log, "raid_scrub: stopped after 0 stripes: out of memory"));
	x = json_at(stats, "scrub");
	assert_null(x); /* a count of 0 would say "no mismatch": none is given */
}

/* The state file is fsync'ed before its rename, and the rename made durable by an fsync
 * of its directory; a failed one refuses the writer (its dirty mark could be lost). */
static void test_state_dir_fsync(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN], opt[600];

	snprintf(opt, sizeof(opt), "raid_state=%s", in_dir(0, "dir.state"));
	renames = dir_fsyncs_after_rename = files_synced = 0;
	t_config(&c, "raid_level=1", "raid_members=/ds-a:/ds-b", "raid_backend=ram",
		 "raid_member_size=1m", opt, NULL);
	if (get(&c, true, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_true(renames >= 1); /* dirty, before the first write */
	assert_int_equal(synced_before_rename, 1);
	assert_int_equal(dir_fsyncs_after_rename, 1);
	assert_int_equal(raid_array_put(a), 0);
	assert_int_equal(dir_fsyncs_after_rename, 1); /* clean, at the end */
	fail_dir_fsync = true;
	t_config(&c, "raid_level=1", "raid_members=/ds-a:/ds-b", "raid_backend=ram",
		 "raid_member_size=1m", opt, NULL);
	assert_int_equal(get(&c, true, &a, err, sizeof(err)), -EIO);
	fail_dir_fsync = false;
	assert_non_null(strstr(err, "cannot mark"));
	assert_non_null(strstr(err, "dirty before the first write: Input/output error"));
}

/* A short write of the state file is an I/O error, not whatever errno an earlier call left. */
static void test_state_short_write(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN], opt[600];

	snprintf(opt, sizeof(opt), "raid_state=%s", in_dir(0, "short.state"));
	t_config(&c, "raid_level=1", "raid_members=/sw-a:/sw-b", "raid_backend=ram",
		 "raid_member_size=1m", opt, NULL);
	short_tmp_write = true;
	assert_int_equal(get(&c, true, &a, err, sizeof(err)), -EIO);
	short_tmp_write = false;
	assert_non_null(strstr(err, "dirty before the first write: Input/output error"));
}

/* A rebuilt spare whose fdatasync fails is not declared in sync: the member stays failed
 * in the state file, the run fails. */
static void test_spare_fdatasync(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN], mem[1200], sp[600], st[600];
	json_object *rep, *done;
	struct stat sb;
	int fd;

	snprintf(mem, sizeof(mem), "raid_members=%s:%s", in_dir(0, "fs0"), in_dir(1, "fs1"));
	snprintf(sp, sizeof(sp), "raid_spares=%s", in_dir(2, "fs-spare"));
	snprintf(st, sizeof(st), "raid_state=%s", in_dir(3, "fs.state"));
	fd = open(path_buf[2], O_CREAT | O_WRONLY, 0644);
	assert_true(fd >= 0);
	assert_int_equal(ftruncate(fd, 1 << 20), 0);
	assert_int_equal(fstat(fd, &sb), 0);
	close(fd);
	t_log[0] = 0;
	fail_sync_ino = sb.st_ino;
	t_config(&c, "raid_level=1", mem, "raid_backend=psync", "raid_member_size=1m",
		 "raid_failed=1", sp, "raid_rebuild=1", st, NULL);
	if (get(&c, false, &a, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(raid_array_put(a), -EIO); /* put waits for the rebuild */
	fail_sync_ino = 0;
	assert_non_null(strstr(t_log, "is not declared in sync"));
	rep = json_at(path_buf[3], "replaced");
	assert_non_null(rep);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(rep, 0), "done", &done));
	assert_false(json_object_get_boolean(done));
	json_object_put(rep);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(dir));
	t_log_start();
	return 0;
}

static int teardown(void **state)
{
	return t_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_fail_during_scrub),	cmocka_unit_test(test_fail_during_resync),
	    cmocka_unit_test(test_interrupt),		cmocka_unit_test(test_repair_marks_dirty),
	    cmocka_unit_test(test_scrub_out_of_memory), cmocka_unit_test(test_state_dir_fsync),
	    cmocka_unit_test(test_state_short_write),	cmocka_unit_test(test_spare_fdatasync),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
