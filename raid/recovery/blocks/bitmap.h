/*
 * bitmap.h - the write-intent bitmap's file and bits (bitmap.c), md's external bitmap: one
 * bit per region of member rows ([k * region, (k + 1) * region) on every member), set and
 * made durable before the first write into the region is issued, cleared lazily once the
 * region's writes are done and durable. The array's side (which rows a write touches, the
 * resync of set regions, a member's re-add, the lazy clear) is intent.c's; this file knows
 * nothing of the array, so its unit test (bitmap_test.c) drives it alone.
 *
 * The file: a JSON header (json-c) padded with spaces to BM_HDR bytes, then the bits, one
 * per region, least significant first:
 *
 *   {"magic": "fio-raid bitmap", "version": 1,
 *    "array": {"level": 5, "members": 4, "chunk": 65536, "layout": 2,
 *              "member_size": 4294967296},
 *    "region": 4194304, "regions": 1024,
 *    "missed": [{"member": 1, "id": "file:0:45:1234"}]}
 *
 * "missed": the members that failed while the bitmap tracked the array, with the identity
 * of the device that failed: what each missed since is within the set bits (bits are not
 * cleared while a member is failed), so that device may come back by copying those regions.
 */
#ifndef RAID_REC_BITMAP_H
#define RAID_REC_BITMAP_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "core/identity.h"

#define BM_HDR 16384 /* bytes of header (room for every member's id): the bits follow */
#define BM_MAX_MEMBERS 64

struct rec_bitmap_geom {
	int level, members, layout;
	uint64_t chunk, member_size, region;
};

struct rec_bitmap {
	pthread_mutex_t mu; /* the file, img, missed; a set's slow path and every clear */
	char *path;
	int fd;
	struct rec_bitmap_geom g;
	uint64_t nregions;
	uint64_t missed;			/* members whose misses the bits hold */
	char missed_id[BM_MAX_MEMBERS][RAID_ID_LEN]; /* the device of each that failed */
	atomic_uchar *set;     /* per region: 1 once its bit is durable in the file */
	atomic_uint *inflight; /* per region: writes started and not ended */
	_Atomic uint64_t *last_end; /* per region: when its last write ended (ns) */
	uint8_t *img;	       /* the bits as the file holds them (under mu) */
	bool created;	       /* the file did not exist: its bits say nothing of the past */
	uint64_t syncs;	       /* durable sets written (a write waited for each) */
};

/*
 * Open the bitmap at `path` for an array of geometry g (g->region: the region size, or 0 to
 * take the file's), creating it atomically (all clear) when it does not exist. A file
 * that is no fio-raid bitmap, or one of another array, is refused with one line in err
 * naming it. 0 or -errno.
 */
int rec_bitmap_open(struct rec_bitmap *b, const char *path, const struct rec_bitmap_geom *g,
		    char *err, size_t errlen);
void rec_bitmap_close(struct rec_bitmap *b);
/*
 * A write into member rows [lo, hi) is about to be issued: every region it touches gets
 * its bit, durable (pwrite + fdatasync of the file) before this returns, and counts the
 * write as in flight. 0, or -errno (nothing counted: the write must not be issued).
 */
int rec_bitmap_start(struct rec_bitmap *b, uint64_t lo, uint64_t hi);
/* That write ended at now_ns (its regions may be cleared once idle). */
void rec_bitmap_end(struct rec_bitmap *b, uint64_t lo, uint64_t hi, uint64_t now_ns);
/*
 * Clear the bits of the regions with no write in flight whose last write ended at or before
 * `before_ns` (the caller made those writes durable), and write them out. Returns how
 * many were cleared, or -errno (the file keeps them set).
 */
int64_t rec_bitmap_clear(struct rec_bitmap *b, uint64_t before_ns);
/* Record which members' misses the bits hold (ids: each one's device); rewrites the file
 * atomically when it changes. 0 or -errno. */
int rec_bitmap_set_missed(struct rec_bitmap *b, uint64_t missed, const char (*ids)[RAID_ID_LEN]);
static inline bool rec_bitmap_isset(const struct rec_bitmap *b, uint64_t k)
{
	return b->img[k / 8] >> (k % 8) & 1;
}
uint64_t rec_bitmap_count(struct rec_bitmap *b); /* regions set in the file */
/* The region size for a member of `member_size` bytes (raid_bitmap_chunk's default). */
uint64_t rec_bitmap_default_region(uint64_t member_size, uint64_t chunk);

#endif
