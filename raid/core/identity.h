/*
 * identity.h - a device's stable identity (identity.c) and its O_DIRECT alignment.
 */
#ifndef RAID_IDENTITY_H
#define RAID_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>

#define RAID_ID_LEN 160

/* "file:MAJ:MIN:INO", "wwn:...", "serial:..." or "blk:MAJ:MIN"; negative errno if absent. */
int raid_dev_identity(const char *path, char *out, size_t len);
/* The same name, or the same file or device under two names (a:./a, a hard link, a symlink);
 * a name is its own file even before it exists. */
bool raid_same_file(const char *a, const char *b);
/* Bytes O_DIRECT offsets, lengths and buffers on fd must be multiples of (512 at least). */
unsigned raid_dio_align(int fd);

#endif
