/*
 * identity.h - a device's stable identity (identity.c) and its O_DIRECT alignment.
 */
#ifndef RAID_IDENTITY_H
#define RAID_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define RAID_ID_LEN 160

/* "file:MAJ:MIN:INO", "wwn:...", "serial:..." or "blk:MAJ:MIN"; negative errno if absent. */
int raid_dev_identity(const char *path, char *out, size_t len);
/*
 * A block device's identity from sysfs under `sys` ("/sys"; a tree of the same shape in tests):
 * "wwn:..." from wwid or device/wwid, else "serial:..." from device/serial or serial, each the
 * file's first line with trailing spaces cut, of the whole disk for a partition with
 * "-partN" added (the partition's ".." in sysfs is its disk); "blk:MAJ:MIN" when none is there.
 */
void raid_block_identity(const char *sys, unsigned maj, unsigned min, char *out, size_t len);
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
