/*
 * layout.h - Linux md's address arithmetic, pure functions: where a volume byte lives on
 * the members for each level and layout, and how big the volume is. No I/O, no state, so
 * the unit tests can sweep it over many geometries.
 */
#ifndef RAID_LAYOUT_H
#define RAID_LAYOUT_H

#include "core/geom.h"

/* RAID0, equal members (md's single zone): chunk c on member c % n, row c / n. */
void raid0_locate(const struct raid_geom *g, uint64_t off, struct raid_loc *loc);
uint64_t raid0_volume_size(const struct raid_geom *g);

/* RAID1: every member holds the volume at the same offset. */
uint64_t raid1_volume_size(const struct raid_geom *g);

/*
 * RAID10 md "near 2": chunk c's two copies are the chunk slots 2c and 2c+1 counted
 * row-major over the n members (slot s on member s % n, row s / n), so odd member counts
 * wrap a chunk's second copy onto the next row.
 */
void raid10_near2_locate(const struct raid_geom *g, uint64_t off, int copy, struct raid_loc *loc);
uint64_t raid10_near2_volume_size(const struct raid_geom *g);

/*
 * RAID5/6: one stripe (a chunk row over every member) as md's raid5_compute_sector lays it
 * out for the four md layouts: where P and Q sit, which member holds the stripe's data
 * chunk i (volume order), and the position of that chunk in Q's syndrome (md counts it from
 * the member after Q, skipping P, so asymmetric layouts differ from the volume order).
 */
#define RAID56_MAX_MEMBERS 64
struct raid56_stripe {
	int pd, qd; /* parity members; qd is -1 at level 5 */
	int k;	    /* data chunks per stripe */
	int data[RAID56_MAX_MEMBERS];
	int slot[RAID56_MAX_MEMBERS];
};
void raid56_stripe_map(const struct raid_geom *g, uint64_t stripe, struct raid56_stripe *s);
uint64_t raid56_volume_size(const struct raid_geom *g);
/* parity members per stripe row of g's level: the level table's `parity` (RAID5 1, RAID6 2) */
int raid56_parity(const struct raid_geom *g);

#endif
