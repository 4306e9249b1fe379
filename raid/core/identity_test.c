/*
 * identity_test.c - a block device's identity (identity.c) read from a sysfs tree built here
 * in the shape the kernel gives it (/sys/dev/block/M:m a link to the device's directory, a
 * partition a directory inside its disk's): an NVMe namespace's wwid, a SCSI disk's
 * device/wwid, a virtio disk's serial, a partition named by its disk's WWN and its number, the
 * same drive renumbered keeping its identity, empty and padded files, and the device number
 * when the drive reports nothing. Regular files: device, inode and birth time.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"

static char dir[] = "/tmp/raid-identity-test.XXXXXX";

/* dir/REL holding TEXT, its directories made */
static void put(const char *rel, const char *text)
{
	char p[512];
	FILE *f;

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	for (char *s = strchr(p + strlen(dir) + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = 0;
		mkdir(p, 0755);
		*s = '/';
	}
	f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

/* dir/dev/block/MM a link to ../../devices/TARGET, as sysfs has it */
static void link_dev(const char *mm, const char *target)
{
	char p[512], t[512];

	snprintf(p, sizeof(p), "%s/dev", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block", dir);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block/%s", dir, mm);
	snprintf(t, sizeof(t), "../../devices/%s", target);
	unlink(p);
	assert_int_equal(symlink(t, p), 0);
}

static const char *id_of(unsigned maj, unsigned min)
{
	static char out[RAID_ID_LEN];

	raid_block_identity(dir, maj, min, out, sizeof(out));
	return out;
}

static void test_block(void **state)
{
	/* NVMe: the namespace's wwid; a partition is its disk's with "-partN" */
	put("devices/nvme0n1/wwid", "eui.0025388b91b2c8a1\n");
	put("devices/nvme0n1/nvme0n1p2/partition", "2\n");
	link_dev("259:0", "nvme0n1");
	link_dev("259:3", "nvme0n1/nvme0n1p2");
	assert_string_equal(id_of(259, 0), "wwn:eui.0025388b91b2c8a1");
	assert_string_equal(id_of(259, 3), "wwn:eui.0025388b91b2c8a1-part2");
	/* the same drive renumbered (another slot, another boot): the same identity */
	link_dev("259:7", "nvme0n1");
	assert_string_equal(id_of(259, 7), id_of(259, 0));
	/* SCSI: device/wwid, padded with spaces as some HBAs report it */
	put("devices/sdb/device/wwid", "naa.5000c500a1b2c3d4   \n");
	link_dev("8:16", "sdb");
	assert_string_equal(id_of(8, 16), "wwn:naa.5000c500a1b2c3d4");
	/* virtio: no WWN, a serial; an empty wwid file is no identity and is passed over */
	put("devices/vdb/wwid", "\n");
	put("devices/vdb/serial", "QM00002\n");
	link_dev("253:16", "vdb");
	assert_string_equal(id_of(253, 16), "serial:QM00002");
	put("devices/sdc/device/serial", "S3Z9NB0K123456\n");
	link_dev("8:32", "sdc");
	assert_string_equal(id_of(8, 32), "serial:S3Z9NB0K123456");
	/* a partition of a drive that reports nothing, a loop device, a device sysfs lacks */
	put("devices/loop3/size", "2048\n");
	put("devices/loop3/loop3p1/partition", "1\n");
	link_dev("7:3", "loop3");
	link_dev("259:9", "loop3/loop3p1");
	assert_string_equal(id_of(7, 3), "blk:7:3");
	assert_string_equal(id_of(259, 9), "blk:259:9");
	assert_string_equal(id_of(8, 48), "blk:8:48");
}

/* a regular file: another file under the same name (deleted and made again) is another file */
static void test_file(void **state)
{
	char p[512], a[RAID_ID_LEN], b[RAID_ID_LEN];

	snprintf(p, sizeof(p), "%s/member", dir);
	put("member", "x");
	assert_int_equal(raid_dev_identity(p, a, sizeof(a)), 0);
	assert_int_equal(strncmp(a, "file:", 5), 0);
	assert_int_equal(raid_dev_identity(p, b, sizeof(b)), 0);
	assert_string_equal(a, b);
	unlink(p);
	put("member", "x");
	assert_int_equal(raid_dev_identity(p, b, sizeof(b)), 0);
	assert_string_not_equal(a, b);
	unlink(p);
	assert_int_equal(raid_dev_identity(p, b, sizeof(b)), -ENOENT);
}

static int setup(void **state)
{
	return mkdtemp(dir) ? 0 : -1;
}

static int teardown(void **state)
{
	return t_rmtree(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_block),
	    cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
