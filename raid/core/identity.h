/*
 * identity.h - a device's stable identity (identity.c) and its O_DIRECT alignment.
 */
#ifndef RAID_IDENTITY_H
#define RAID_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "raid.h"

#define RAID_ID_LEN 160

/*
 * What a device is. `id` is what the state file compares: "wwn:<wwid>" when the drive has a
 * WWN or EUI-64 (an NVMe namespace's own, unique per namespace), else "serial:<serial>",
 * else "blk:MAJ:MIN", or "file:MAJ:MIN:INO[:BIRTH]" for a regular file. `wwid` and `serial`
 * are both of a block device's, "" where the drive reports none (and eui64, below): an NVMe
 * namespace's serial is its controller's, so two namespaces of one controller share it, and a
 * serial tells drives apart only where there is no WWN.
 */
struct raid_ident {
	char id[RAID_ID_LEN];
	char wwid[RAID_ID_LEN - 16]; /* room in id for "wwn:" and "-partN" */
	char serial[RAID_ID_LEN - 24];
	char eui64[24]; /* 16 hex digits, "" if none: an NVMe namespace's EUI-64 */
};

/* The identity of the device or file at path (symlinks followed); negative errno if absent. */
int raid_dev_identity(const char *path, struct raid_ident *id);
/*
 * A block device's identity from sysfs under `sys` ("/sys"; a tree of the same shape in tests):
 * wwid from wwid or device/wwid, serial from device/serial or serial, each the file's first
 * line with trailing spaces cut, of the whole disk for a partition (the partition's ".." in
 * sysfs is its disk), whose id has "-partN" added.
 */
void raid_block_identity(const char *sys, unsigned maj, unsigned min, struct raid_ident *id);
/*
 * For messages: "serial S, EUI-64 E" (what is known of the two), or the id when neither is;
 * either may be NULL or "".
 */
void raid_ident_describe(const char *id, const char *serial, const char *eui64, char *out,
			 size_t len);
/* raid_eui64_digits() and raid_nvme_eui64() are the public API's (raid.h): raid-hwinfo uses them */
/* The same name, or the same file or device under two names (a:./a, a hard link, a symlink);
 * a name is its own file even before it exists. */
bool raid_same_file(const char *a, const char *b);
/*
 * Create the missing file `path` of `size` bytes for option `opt` (raid_members,
 * raid_spares). A dangling symlink is refused (creating through it would make its target
 * somewhere else), and a file that cannot be made whole is removed again. 0 or -errno with
 * one line in err.
 */
int raid_dev_create(const char *opt, const char *path, uint64_t size, char *err, size_t errlen);
/* Bytes O_DIRECT offsets, lengths and buffers on fd must be multiples of (512 at least). */
unsigned raid_dio_align(int fd);

#endif
