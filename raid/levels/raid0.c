/*
 * raid0.c - the RAID0 personality: md striping over equal members, no redundancy.
 */
#include "levels.h"
#include "layout.h"

static uint64_t raid0_size(const struct raid_geom *g)
{
	return raid0_volume_size(g);
}

static int raid0_map(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg)
{
	raid0_locate(g, off, &locs[0]);
	*seg = raid_chunk_left(g, off);
	return 1;
}

const struct raid_level_ops raid0_ops = {
    .level = 0,
    .name = "raid0",
    /* one member is md's `--level=0 --raid-devices=1 --force`: the RAID layer's cost alone */
    .min_members = 1,
    .max_failed = 0,
    .copies = 1,
    .uses_chunk = true,
    .default_layout = RAID_LAYOUT_DEFAULT,
    .size = raid0_size,
    .map = raid0_map,
    .start = raid_plan_start,
};
