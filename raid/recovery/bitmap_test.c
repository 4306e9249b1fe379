/*
 * bitmap_test.c - the write-intent bitmap's file and bits (bitmap.c) alone: a region's bit
 * reaches the file and is fdatasync'ed before rec_bitmap_start returns (and a failed sync
 * lets no write go); later writes there do no I/O; bits clear only once idle and past the
 * caller's time, never under a write in flight; what it holds survives a reopen; a foreign
 * file, a truncated one and one of another array are refused with one line naming them.
 */
#include "core/testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recovery/blocks/bitmap.h"

static char dir[] = "/tmp/raid-bitmap-test.XXXXXX";
static char path[600];

/* what the bitmap did to its file: pwrites, then fdatasyncs, in order */
static int bm_fd = -1;
static char ops[64];
static int nops;
static bool fail_sync;

ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off);
ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	if (fd == bm_fd && nops < (int)sizeof(ops) - 1)
		ops[nops++] = 'w';
	return __real_pwrite(fd, buf, n, off);
}

int __real_fdatasync(int fd);
int __wrap_fdatasync(int fd);
int __wrap_fdatasync(int fd)
{
	if (fd == bm_fd && nops < (int)sizeof(ops) - 1)
		ops[nops++] = 's';
	if (fd == bm_fd && fail_sync) {
		errno = EIO;
		return -1;
	}
	return __real_fdatasync(fd);
}

static const struct rec_bitmap_geom geom = {.level = 5, .members = 4, .layout = 2,
					     .chunk = 65536, .member_size = 64 << 20,
					     .region = 1 << 20};

static void reset_ops(const struct rec_bitmap *b)
{
	bm_fd = b->fd;
	nops = 0;
	memset(ops, 0, sizeof(ops));
}

/* bit k of the file as another reader sees it */
static bool on_disk(uint64_t k)
{
	int fd = open(path, O_RDONLY);
	unsigned char c = 0;

	assert_true(fd >= 0);
	assert_int_equal(pread(fd, &c, 1, (off_t)(BM_HDR + k / 8)), 1);
	close(fd);
	return c >> (k % 8) & 1;
}

static void open_ok(struct rec_bitmap *b, const struct rec_bitmap_geom *g)
{
	char err[RAID_ERRLEN] = "";

	assert_int_equal(rec_bitmap_open(b, path, g, err, sizeof(err)), 0);
	assert_string_equal(err, "");
}

static int setup(void **state)
{
	(void)state;
	unlink(path);
	return 0;
}

static void durable_before_write(void **state)
{
	struct rec_bitmap b;

	(void)state;
	open_ok(&b, &geom);
	assert_true(b.created);
	assert_int_equal(b.nregions, 64);
	reset_ops(&b);
	/* member rows 5 MiB + 4 KiB: region 5 */
	assert_int_equal(rec_bitmap_start(&b, (5 << 20) + 4096, (5 << 20) + 8192), 0);
	assert_string_equal(ops, "ws"); /* written, then synced, before the write may go */
	assert_true(on_disk(5));
	assert_false(on_disk(4));
	rec_bitmap_end(&b, (5 << 20) + 4096, (5 << 20) + 8192, 100);
	/* the region's bit is durable: the next write does no bitmap I/O at all */
	reset_ops(&b);
	assert_int_equal(rec_bitmap_start(&b, 5 << 20, (5 << 20) + 4096), 0);
	assert_string_equal(ops, "");
	rec_bitmap_end(&b, 5 << 20, (5 << 20) + 4096, 100);
	/* a write across two regions sets both, in one sync */
	reset_ops(&b);
	assert_int_equal(rec_bitmap_start(&b, (8 << 20) - 4096, (8 << 20) + 4096), 0);
	assert_string_equal(ops, "ws");
	assert_true(on_disk(7) && on_disk(8));
	rec_bitmap_end(&b, (8 << 20) - 4096, (8 << 20) + 4096, 100);
	assert_int_equal(rec_bitmap_count(&b), 3);
	rec_bitmap_close(&b);
}

static void failed_sync_stops_the_write(void **state)
{
	struct rec_bitmap b;

	(void)state;
	open_ok(&b, &geom);
	reset_ops(&b);
	fail_sync = true;
	assert_int_equal(rec_bitmap_start(&b, 0, 4096), -EIO);
	fail_sync = false;
	assert_int_equal(b.inflight[0], 0); /* nothing counted: the write is not issued */
	/* the next write tries again, and is durable */
	reset_ops(&b);
	assert_int_equal(rec_bitmap_start(&b, 0, 4096), 0);
	assert_string_equal(ops, "ws");
	assert_true(on_disk(0));
	rec_bitmap_end(&b, 0, 4096, 1);
	rec_bitmap_close(&b);
}

static void lazy_clear(void **state)
{
	struct rec_bitmap b;

	(void)state;
	open_ok(&b, &geom);
	assert_int_equal(rec_bitmap_start(&b, 0, 4096), 0);		  /* region 0 */
	assert_int_equal(rec_bitmap_start(&b, 3 << 20, (3 << 20) + 4096), 0); /* region 3 */
	rec_bitmap_end(&b, 0, 4096, 1000);
	/* region 0's last write ended after `before`; region 3's write is in flight */
	assert_int_equal(rec_bitmap_clear(&b, 999), 0);
	assert_true(on_disk(0) && on_disk(3));
	reset_ops(&b);
	assert_int_equal(rec_bitmap_clear(&b, 1000), 1);
	assert_string_equal(ops, "ws");
	assert_false(on_disk(0));
	assert_true(on_disk(3)); /* never under a write in flight */
	rec_bitmap_end(&b, 3 << 20, (3 << 20) + 4096, 2000);
	assert_int_equal(rec_bitmap_clear(&b, UINT64_MAX), 1);
	assert_false(on_disk(3));
	/* nothing to clear: no I/O */
	reset_ops(&b);
	assert_int_equal(rec_bitmap_clear(&b, UINT64_MAX), 0);
	assert_string_equal(ops, "");
	/* a write into a cleared region sets it again, durably */
	reset_ops(&b);
	assert_int_equal(rec_bitmap_start(&b, 0, 4096), 0);
	assert_string_equal(ops, "ws");
	assert_true(on_disk(0));
	rec_bitmap_end(&b, 0, 4096, 3000);
	rec_bitmap_close(&b);
}

static void survives_reopen(void **state)
{
	struct rec_bitmap b;
	char ids[BM_MAX_MEMBERS][RAID_ID_LEN] = {{0}};

	(void)state;
	open_ok(&b, &geom);
	assert_int_equal(rec_bitmap_start(&b, 9 << 20, (9 << 20) + 1), 0);
	snprintf(ids[2], RAID_ID_LEN, "file:1:2:3");
	assert_int_equal(rec_bitmap_set_missed(&b, 1u << 2, (const char (*)[RAID_ID_LEN])ids), 0);
	rec_bitmap_close(&b); /* a crash: the write never ended */
	struct rec_bitmap_geom any = geom;

	any.region = 0; /* the file's */
	open_ok(&b, &any);
	assert_false(b.created);
	assert_int_equal(b.g.region, 1 << 20);
	assert_true(rec_bitmap_isset(&b, 9));
	assert_int_equal(rec_bitmap_count(&b), 1);
	assert_int_equal(b.missed, 1u << 2);
	assert_string_equal(b.missed_id[2], "file:1:2:3");
	rec_bitmap_close(&b);
}

static void refused(const struct rec_bitmap_geom *g, const char *want)
{
	struct rec_bitmap b;
	char err[RAID_ERRLEN] = "";

	assert_int_equal(rec_bitmap_open(&b, path, g, err, sizeof(err)), -EINVAL);
	rec_bitmap_close(&b);
	printf("refused: %s\n", err);
	assert_non_null(strstr(err, path));
	assert_non_null(strstr(err, want));
	assert_null(strchr(err, '\n'));
}

static void foreign_and_damaged_refused(void **state)
{
	struct rec_bitmap b;
	int fd;

	(void)state;
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	assert_int_equal(write(fd, "{\"members\": 4}\n", 15), 15); /* a state file, say */
	close(fd);
	refused(&geom, "not a fio-raid bitmap");
	/* the header of one, damaged */
	unlink(path);
	open_ok(&b, &geom);
	rec_bitmap_close(&b);
	fd = open(path, O_WRONLY);
	assert_int_equal(pwrite(fd, "{\"magic\": \"fio-raid bitmap\", \"version\": 7}", 42, 0), 42);
	close(fd);
	refused(&geom, "another version, or damaged");
}

static void truncated_refused(void **state)
{
	struct rec_bitmap b;

	(void)state;
	open_ok(&b, &geom);
	rec_bitmap_close(&b);
	assert_int_equal(truncate(path, BM_HDR + 3), 0);
	refused(&geom, "bytes, a bitmap of 64 regions has");
}

static void geometry_mismatch_refused(void **state)
{
	struct rec_bitmap b;
	struct rec_bitmap_geom g = geom;

	(void)state;
	open_ok(&b, &geom);
	rec_bitmap_close(&b);
	g.chunk = 131072;
	refused(&g, "describes another array: it records raid_chunk=65536");
	g = geom;
	g.member_size = 128 << 20;
	refused(&g, "describes another array: it records members of");
	g = geom;
	g.region = 2 << 20;
	refused(&g, "raid_bitmap_chunk says 2097152");
	g = geom;
	g.level = 6;
	refused(&g, "it records raid_level=5");
}

static void default_region(void **state)
{
	(void)state;
	/* a 2048th of a member, from 64 KiB to md's 64 MiB, whole chunk rows */
	assert_int_equal(rec_bitmap_default_region(8 << 20, 65536), 65536);
	assert_int_equal(rec_bitmap_default_region(1ULL << 30, 65536), 512 << 10);
	assert_int_equal(rec_bitmap_default_region(4ULL << 40, 65536), 64 << 20);
	assert_int_equal(rec_bitmap_default_region(8 << 20, 1 << 20), 1 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup(durable_before_write, setup),
	    cmocka_unit_test_setup(failed_sync_stops_the_write, setup),
	    cmocka_unit_test_setup(lazy_clear, setup),
	    cmocka_unit_test_setup(survives_reopen, setup),
	    cmocka_unit_test_setup(foreign_and_damaged_refused, setup),
	    cmocka_unit_test_setup(truncated_refused, setup),
	    cmocka_unit_test_setup(geometry_mismatch_refused, setup),
	    cmocka_unit_test(default_region),
	};
	int ret;

	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/state.bitmap", dir);
	ret = cmocka_run_group_tests(tests, NULL, NULL);
	unlink(path);
	rmdir(dir);
	return ret;
}
