/*
 * rebuild56.h - RAID5/6 recovery hooks (rebuild56.c), for raid5.c and raid6.c's ops.
 */
#ifndef RAID_REBUILD56_H
#define RAID_REBUILD56_H

#include "core/level.h"

void raid56_rec_span(const struct raid_geom *g, uint64_t moff, uint64_t len, uint64_t *voff,
		     uint64_t *vlen);
void raid56_rec_rows_recover(struct raid_array *a, uint64_t moff, uint64_t len, uint64_t lost,
			     void **bufs);
uint64_t raid56_rec_rows_check(struct raid_array *a, uint64_t moff, uint64_t len, void **bufs,
			       bool fix, uint64_t *rewrite);

#endif
