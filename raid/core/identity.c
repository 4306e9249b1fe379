/*
 * identity.c - what a member or spare *is*, beyond its path, so that the state file can tell
 * the device it recorded from another one now found under the same name: a regular file is
 * its device, inode and birth time (a file deleted and created again is another file); a block
 * device is the WWN (an NVMe namespace's EUI-64 or NGUID) or else the serial number the kernel
 * reads from the drive (sysfs), which survive renumbering, or its device number when the drive
 * reports neither; WWN, serial and an NVMe namespace's EUI-64 are all kept, for the state
 * file and its messages. Also the logical block size that O_DIRECT I/O to it must be aligned
 * to.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/fs.h>
#include <linux/nvme_ioctl.h>
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

void raid_block_identity(const char *sys, unsigned maj, unsigned min, struct raid_ident *id)
{
	static const char *const wwid[] = {"wwid", "device/wwid"};
	static const char *const serial[] = {"device/serial", "serial"};
	char dir[320], p[384], v[64], part[12] = "";

	*id = (struct raid_ident){0};
	snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u", sys, maj, min);
	snprintf(p, sizeof(p), "%s/partition", dir);
	if (sysfs_line(p, v, sizeof(v))) {
		snprintf(part, sizeof(part), "-part%.6s", v);
		snprintf(dir, sizeof(dir), "%s/dev/block/%u:%u/..", sys, maj, min);
	}
	for (size_t i = 0; i < 2 && !id->wwid[0]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, wwid[i]);
		sysfs_line(p, id->wwid, sizeof(id->wwid));
	}
	for (size_t i = 0; i < 2 && !id->serial[0]; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, serial[i]);
		sysfs_line(p, id->serial, sizeof(id->serial));
	}
	snprintf(p, sizeof(p), "%s/eui", dir);
	raid_eui64_digits(sysfs_line(p, v, sizeof(v)) ? v : id->wwid, id->eui64);
	if (id->wwid[0])
		snprintf(id->id, sizeof(id->id), "wwn:%s%s", id->wwid, part);
	else if (id->serial[0])
		snprintf(id->id, sizeof(id->id), "serial:%s%s", id->serial, part);
	else
		snprintf(id->id, sizeof(id->id), "blk:%u:%u", maj, min);
}

void raid_ident_describe(const char *id, const char *serial, const char *eui64, char *out,
			 size_t len)
{
	bool s = serial && *serial, e = eui64 && *eui64;

	if (s || e)
		snprintf(out, len, "%s%s%s%s%s", s ? "serial " : "", s ? serial : "",
			 s && e ? ", " : "", e ? "EUI-64 " : "", e ? eui64 : "");
	else
		snprintf(out, len, "%s", id);
}

void raid_eui64_digits(const char *s, char out[24])
{
	int n = 0;

	if (!strncmp(s, "eui.", 4))
		s += 4;
	for (; *s && n < 17; s++)
		if (isxdigit((unsigned char)*s))
			out[n++] = (char)tolower((unsigned char)*s);
		else if (*s != ' ' && *s != ':' && *s != '-')
			break;
	out[n == 16 && !*s ? n : 0] = 0;
}

int raid_nvme_eui64(int fd, char out[24])
{
	unsigned char data[4096];
	int nsid = ioctl(fd, NVME_IOCTL_ID), zero = 1;
	struct nvme_admin_cmd c = {
	    .opcode = 0x06, /* Identify, CNS 0: the namespace's data structure */
	    .addr = (uintptr_t)data,
	    .data_len = sizeof(data),
	};

	out[0] = 0;
	if (nsid <= 0)
		return -ENOTTY;
	c.nsid = (unsigned)nsid;
	if (ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c))
		return errno ? -errno : -EIO;
	/* EUI64 is bytes 120-127 of Identify Namespace (NVMe base specification) */
	for (int i = 120; i < 128; i++)
		zero &= !data[i];
	for (int i = 0; !zero && i < 8; i++)
		snprintf(out + 2 * i, 3, "%02x", data[120 + i]);
	return 0;
}

int raid_dev_identity(const char *path, struct raid_ident *id)
{
	struct statx sx;

	if (statx(AT_FDCWD, path, 0, STATX_TYPE | STATX_INO | STATX_BTIME, &sx))
		return -errno;
	if (S_ISBLK(sx.stx_mode)) {
		raid_block_identity("/sys", sx.stx_rdev_major, sx.stx_rdev_minor, id);
		/* the kernel's own wwid of a namespace whose EUI-64 it does not show */
		if (!id->eui64[0] &&
		    (!strncmp(id->wwid, "nvme.", 5) || !strncmp(id->wwid, "uuid.", 5))) {
			int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);

			if (fd >= 0) {
				raid_nvme_eui64(fd, id->eui64); /* none is an answer too */
				close(fd);
			}
		}
		return 0;
	}
	*id = (struct raid_ident){0};
	/* an inode number is reused once its file is gone: the birth time tells them apart */
	if (sx.stx_mask & STATX_BTIME)
		snprintf(id->id, sizeof(id->id), "file:%u:%u:%" PRIu64 ":%" PRId64 ".%09u",
			 sx.stx_dev_major, sx.stx_dev_minor, (uint64_t)sx.stx_ino,
			 (int64_t)sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec);
	else
		snprintf(id->id, sizeof(id->id), "file:%u:%u:%" PRIu64, sx.stx_dev_major,
			 sx.stx_dev_minor, (uint64_t)sx.stx_ino);
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
