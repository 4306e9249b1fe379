/*
 * raid1.c - the RAID1 personality: an n-way mirror. Every member holds the volume at the
 * same offset; md does not split RAID1 requests by chunk, and neither do we.
 */
#include "levels.h"
#include "layout.h"

static uint64_t raid1_size(const struct raid_geom *g)
{
	return raid1_volume_size(g);
}

static int raid1_map(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg)
{
	for (int i = 0; i < g->n; i++) {
		locs[i].member = i;
		locs[i].offset = off;
	}
	*seg = UINT64_MAX;
	return g->n;
}

/* recovery (rebuild.c): every member byte holds the volume byte at the same offset */
static void raid1_span(const struct raid_geom *g, uint64_t moff, uint64_t len, uint64_t *voff,
		       uint64_t *vlen)
{
	*voff = moff;
	*vlen = len;
}

static void raid1_unmap(const struct raid_geom *g, int member, uint64_t moff, uint64_t *voff,
			uint64_t *seg)
{
	*voff = moff;
	*seg = g->member_size - moff;
}

const struct raid_level_ops raid1_ops = {
    .level = 1,
    .name = "raid1",
    .min_members = 2,
    .max_failed = RAID_ALL_BUT_ONE,
    .copies = RAID_ALL_MEMBERS,
    .uses_chunk = false,
    .default_layout = RAID_LAYOUT_DEFAULT,
    .size = raid1_size,
    .map = raid1_map,
    .start = raid_plan_start,
    .span = raid1_span,
    .unmap = raid1_unmap,
};
