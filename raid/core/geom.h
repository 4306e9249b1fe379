/*
 * geom.h - an array's geometry and a place on its members: the types the core and every
 * level share. The arithmetic over them (md's layouts) is the levels' (raid/levels/layout.h).
 */
#ifndef RAID_GEOM_H
#define RAID_GEOM_H

#include <stdint.h>

struct raid_geom {
	int level;
	int n;		      /* member count */
	uint64_t chunk;	      /* bytes, a power of two */
	uint64_t member_size; /* usable bytes of each member */
	int layout;	      /* enum raid_layout_kind */
};

/* One place a volume byte is stored: member index and byte offset in its data area. */
struct raid_loc {
	int member;
	uint64_t offset;
};

/* Bytes from `off` to the next chunk boundary. */
static inline uint64_t raid_chunk_left(const struct raid_geom *g, uint64_t off)
{
	return g->chunk - (off & (g->chunk - 1));
}

#endif
