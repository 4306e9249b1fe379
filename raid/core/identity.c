/*
 * identity.c - what a member or spare *is*, beyond its path, so that the state file can tell
 * the device it recorded from another one now found under the same name: a regular file is
 * its device, inode and birth time (a file deleted and created again is another file); a block
 * device is the WWN or serial number the kernel reads from the drive (sysfs), which survives
 * renumbering, or its device number when the drive reports neither. Also the logical block
 * size that O_DIRECT I/O to it must be aligned to.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "identity.h"

/* The first line of a small sysfs file, trimmed; false when absent or empty. */
static bool sysfs_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	size_t n;

	if (!f)
		return false;
	if (!fgets(buf, (int)len, f)) {
		fclose(f);
		return false;
	}
	fclose(f);
	n = strcspn(buf, "\n");
	buf[n] = 0;
	while (n && buf[n - 1] == ' ')
		buf[--n] = 0;
	return n > 0;
}

void raid_block_identity(const char *sys, unsigned maj, unsigned min, char *out, size_t len)
{
	static const char *const keys[] = {"wwid", "device/wwid", "device/serial", "serial"};
	char dir[320], p[384], v[256], part[32] = "";

	snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", sys, maj, min);
	snprintf(p, sizeof(p), "%s/partition", dir);
	if (sysfs_line(p, v, sizeof(v))) {
		snprintf(part, sizeof(part), "-part%.16s", v);
		snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u/..", sys, maj, min);
	}
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, keys[i]);
		if (sysfs_line(p, v, sizeof(v))) {
			snprintf(out, len, "%s:%s%s", i < 2 ? "wwn" : "serial", v, part);
			return;
		}
	}
	snprintf(out, len, "blk:%u:%u", maj, min);
}

int raid_dev_identity(const char *path, char *out, size_t len)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_INO | STATX_BTIME, &sx))
		return -errno;
	if (S_ISBLK(sx.stx_mode)) {
		raid_block_identity("/sys", sx.stx_rdev_major, sx.stx_rdev_minor, out, len);
		return 0;
	}
	/* an inode number is reused once its file is gone: the birth time tells them apart */
	if (sx.stx_mask & STATX_BTIME)
		snprintf(out, len, "file:%u:%u:%" PRIu64 ":%" PRId64 ".%09u", sx.stx_dev_major,
			 sx.stx_dev_minor, (uint64_t)sx.stx_ino, (int64_t)sx.stx_btime.tv_sec,
			 sx.stx_btime.tv_nsec);
	else
		snprintf(out, len, "file:%u:%u:%" PRIu64, sx.stx_dev_major, sx.stx_dev_minor,
			 (uint64_t)sx.stx_ino);
	return 0;
}

bool raid_same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	if (!strcmp(a, b))
		return true;
	if (stat(a, &sa) || stat(b, &sb))
		return false;
	if (S_ISBLK(sa.st_mode) && S_ISBLK(sb.st_mode))
		return sa.st_rdev == sb.st_rdev;
	return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

int raid_dev_create(const char *opt, const char *path, uint64_t size, char *err, size_t errlen)
{
	char target[256];
	ssize_t n = readlink(path, target, sizeof(target) - 1);
	int fd, ret;

	if (n >= 0) {
		target[n] = 0;
		snprintf(err, errlen,
			 "raid: %s: %s is a symlink to %s, which does not exist: create the "
			 "target, or name a file",
			 opt, path, target);
		return -ENOENT;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "raid: %s: cannot create %s: %s", opt, path, strerror(-ret));
		return ret;
	}
	if (ftruncate(fd, (off_t)size)) {
		ret = -errno;
		snprintf(err, errlen, "raid: %s: cannot create %s of %" PRIu64 " bytes: %s", opt,
			 path, size, strerror(-ret));
		close(fd);
		unlink(path); /* made here: a later run would find it too small */
		return ret;
	}
	close(fd);
	return 0;
}

unsigned raid_dio_align(int fd)
{
	struct statx sx;
	struct stat st;
	int lbs;

	if (fstat(fd, &st))
		return 512;
	if (S_ISBLK(st.st_mode))
		return ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0 ? (unsigned)lbs : 512;
#ifdef STATX_DIOALIGN
	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &sx) == 0 &&
	    (sx.stx_mask & STATX_DIOALIGN) && sx.stx_dio_offset_align) {
		unsigned a = sx.stx_dio_offset_align;

		return sx.stx_dio_mem_align > a ? sx.stx_dio_mem_align : a;
	}
#else
	(void)sx;
#endif
	return 512; /* the smallest sector any drive has */
}
