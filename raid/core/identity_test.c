/*
 * identity_test.c - a block device's identity (identity.c) read from a sysfs tree built here
 * in the shape the kernel gives it (/sys/dev/block/M:m a link to the device's directory, a
 * partition a directory inside its disk's, a namespace's device/ its controller): an NVMe
 * namespace's wwid and its controller's serial, two namespaces of one controller sharing the
 * serial but not the identity, a SCSI disk's device/wwid and device/serial, a virtio disk's
 * serial, a partition named by its disk's WWN and its number, the same drive renumbered keeping
 * its identity, empty and padded files, and the device number when the drive reports nothing;
 * how a refusal describes an identity. Regular files: device, inode and birth time.
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

static struct raid_ident id_of(unsigned maj, unsigned min)
{
	struct raid_ident id;

	raid_block_identity(dir, maj, min, &id);
	return id;
}

/* dir/REL a symlink to TARGET */
static void link_at(const char *rel, const char *target)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/%s", dir, rel);
	unlink(p);
	assert_int_equal(symlink(target, p), 0);
}

static void test_block(void **state)
{
	/* NVMe: the namespace's wwid, the controller's serial (device/ is the controller) */
	put("devices/nvme0/serial", "S3Z9NB0K123456\n");
	put("devices/nvme0/nvme0n1/wwid", "eui.0025388b91b2c8a1\n");
	put("devices/nvme0/nvme0n1/nvme0n1p2/partition", "2\n");
	link_at("devices/nvme0/nvme0n1/device", "..");
	link_dev("259:0", "nvme0/nvme0n1");
	link_dev("259:3", "nvme0/nvme0n1/nvme0n1p2");
	assert_string_equal(id_of(259, 0).id, "wwn:eui.0025388b91b2c8a1");
	assert_string_equal(id_of(259, 0).wwid, "eui.0025388b91b2c8a1");
	assert_string_equal(id_of(259, 0).serial, "S3Z9NB0K123456");
	assert_string_equal(id_of(259, 0).eui64, "0025388b91b2c8a1");
	/* a partition is its disk's, with "-partN" in the id */
	assert_string_equal(id_of(259, 3).id, "wwn:eui.0025388b91b2c8a1-part2");
	assert_string_equal(id_of(259, 3).serial, "S3Z9NB0K123456");
	/*
	 * A second namespace of the same controller: the same serial, its own EUI-64, so another
	 * identity; one with no EUI-64 or NGUID has the kernel's "nvme.VID-SERIAL-MODEL-NSID"
	 * wwid, which names the namespace too.
	 */
	put("devices/nvme0/nvme0n2/wwid", "eui.0025388b91b2c8a2\n");
	link_at("devices/nvme0/nvme0n2/device", "..");
	link_dev("259:1", "nvme0/nvme0n2");
	assert_string_equal(id_of(259, 1).serial, id_of(259, 0).serial);
	assert_string_not_equal(id_of(259, 1).id, id_of(259, 0).id);
	put("devices/nvme0/nvme0n3/wwid", "nvme.1b36-4d44564d-51454d55-00000003\n");
	link_at("devices/nvme0/nvme0n3/device", "..");
	link_dev("259:2", "nvme0/nvme0n3");
	assert_string_equal(id_of(259, 2).id, "wwn:nvme.1b36-4d44564d-51454d55-00000003");
	assert_string_equal(id_of(259, 2).eui64, "");
	/* the EUI-64 from the namespace's eui file where it has one (its wwid an NGUID) */
	put("devices/nvme0/nvme0n4/wwid", "eui.6479a74a30c00a1b6479a74a30c00a1b\n");
	put("devices/nvme0/nvme0n4/eui", "64 79 a7 4a 30 c0 0a 1b\n");
	link_dev("259:4", "nvme0/nvme0n4");
	assert_string_equal(id_of(259, 4).eui64, "6479a74a30c00a1b");
	/* the same drive renumbered (another slot, another boot): the same identity */
	link_dev("259:7", "nvme0/nvme0n1");
	assert_string_equal(id_of(259, 7).id, id_of(259, 0).id);
	/* SCSI: device/wwid, padded with spaces as some HBAs report it, and device/serial */
	put("devices/sdb/device/wwid", "naa.5000c500a1b2c3d4   \n");
	put("devices/sdb/device/serial", "ZA1B2C3D\n");
	link_dev("8:16", "sdb");
	assert_string_equal(id_of(8, 16).id, "wwn:naa.5000c500a1b2c3d4");
	assert_string_equal(id_of(8, 16).serial, "ZA1B2C3D");
	/* virtio: no WWN, a serial; an empty wwid file is no identity and is passed over */
	put("devices/vdb/wwid", "\n");
	put("devices/vdb/serial", "QM00002\n");
	link_dev("253:16", "vdb");
	assert_string_equal(id_of(253, 16).id, "serial:QM00002");
	assert_string_equal(id_of(253, 16).wwid, "");
	put("devices/sdc/device/serial", "S3Z9NB0K123456\n");
	link_dev("8:32", "sdc");
	assert_string_equal(id_of(8, 32).id, "serial:S3Z9NB0K123456");
	/* a partition of a drive that reports nothing, a loop device, a device sysfs lacks */
	put("devices/loop3/size", "2048\n");
	put("devices/loop3/loop3p1/partition", "1\n");
	link_dev("7:3", "loop3");
	link_dev("259:9", "loop3/loop3p1");
	assert_string_equal(id_of(7, 3).id, "blk:7:3");
	assert_string_equal(id_of(259, 9).id, "blk:259:9");
	assert_string_equal(id_of(8, 48).id, "blk:8:48");
	assert_string_equal(id_of(8, 48).serial, "");
}

/* what a refusal names: serial and EUI-64 where known, else the id */
static void test_describe(void **state)
{
	char out[2 * RAID_ID_LEN];

	raid_ident_describe("wwn:eui.0025388b91b2c8a1", "S3Z9NB0K", "0025388b91b2c8a1", out,
			    sizeof(out));
	assert_string_equal(out, "serial S3Z9NB0K, EUI-64 0025388b91b2c8a1");
	raid_ident_describe("serial:QM00002", "QM00002", "", out, sizeof(out));
	assert_string_equal(out, "serial QM00002");
	raid_ident_describe("wwn:naa.5000c500a1b2c3d4", NULL, NULL, out, sizeof(out));
	assert_string_equal(out, "wwn:naa.5000c500a1b2c3d4");
	raid_ident_describe("file:0:45:12", "", "", out, sizeof(out));
	assert_string_equal(out, "file:0:45:12");
	/* EUI-64 as sysfs's eui file and as an "eui." wwid give it; an NGUID is none */
	raid_eui64_digits("00 25 38 8b 91 b2 c8 a1", out);
	assert_string_equal(out, "0025388b91b2c8a1");
	raid_eui64_digits("eui.0025388B91B2C8A1", out);
	assert_string_equal(out, "0025388b91b2c8a1");
	raid_eui64_digits("eui.0025388b91b2c8a10025388b91b2c8a1", out);
	assert_string_equal(out, "");
	raid_eui64_digits("nvme.1b36-4d44564d-51454d55-00000001", out);
	assert_string_equal(out, "");
}

/* a regular file: another file under the same name (deleted and made again) is another file */
static void test_file(void **state)
{
	struct raid_ident a, b;
	char p[512];

	snprintf(p, sizeof(p), "%s/member", dir);
	put("member", "x");
	assert_int_equal(raid_dev_identity(p, &a), 0);
	assert_int_equal(strncmp(a.id, "file:", 5), 0);
	assert_string_equal(a.serial, "");
	assert_int_equal(raid_dev_identity(p, &b), 0);
	assert_string_equal(a.id, b.id);
	unlink(p);
	put("member", "x");
	assert_int_equal(raid_dev_identity(p, &b), 0);
	assert_string_not_equal(a.id, b.id);
	unlink(p);
	assert_int_equal(raid_dev_identity(p, &b), -ENOENT);
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
	    cmocka_unit_test(test_describe),
	    cmocka_unit_test(test_file),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
