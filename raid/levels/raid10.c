/*
 * raid10.c - the RAID10 personality: md "near 2" (two copies on neighbouring chunk slots),
 * any member count from 2, odd counts included.
 */
#include <stdio.h>
#include <errno.h>

#include "levels.h"
#include "layout.h"

static uint64_t raid10_size(const struct raid_geom *g)
{
	return raid10_near2_volume_size(g);
}

static int raid10_map(const struct raid_geom *g, uint64_t off, struct raid_loc *locs, uint64_t *seg)
{
	raid10_near2_locate(g, off, 0, &locs[0]);
	raid10_near2_locate(g, off, 1, &locs[1]);
	*seg = raid_chunk_left(g, off);
	return 2;
}

/*
 * A chunk's copies sit on members (2c mod n, 2c+1 mod n). With an even count those are
 * the fixed pairs (0,1), (2,3)...; with an odd count every neighbouring pair (d, d+1 mod
 * n) holds some chunk twice. Losing both members of such a pair loses data.
 */
static int raid10_check_failed(const struct raid_geom *g, uint64_t failed, char *const *paths,
			       char *err, size_t errlen)
{
	for (int d = 0; d < g->n; d++) {
		int e = (d + 1) % g->n;

		if (g->n % 2 == 0 && d % 2)
			continue;
		if ((failed >> d & 1) && (failed >> e & 1)) {
			snprintf(err, errlen,
				 "raid: raid_failed: the array has lost more than raid_level=10 "
				 "tolerates: members %d (%s) and %d (%s) hold both copies of the "
				 "same chunks",
				 d < e ? d : e, paths[d < e ? d : e], d < e ? e : d,
				 paths[d < e ? e : d]);
			return -EINVAL;
		}
	}
	return 0;
}

/*
 * Recovery (rebuild.c): member rows [r0, r1) hold the chunk slots [r0 n, r1 n), that is
 * the volume chunks [r0 n / 2, (r1 n + 1) / 2) (odd counts wrap a chunk over two rows).
 */
static void raid10_span(const struct raid_geom *g, uint64_t moff, uint64_t len, uint64_t *voff,
			uint64_t *vlen)
{
	unsigned sh = (unsigned)__builtin_ctzll(g->chunk);
	uint64_t r0 = moff >> sh, r1 = (moff + len + g->chunk - 1) >> sh;
	uint64_t c0 = r0 * (uint64_t)g->n / 2, c1 = (r1 * (uint64_t)g->n + 1) / 2;
	uint64_t size = raid10_near2_volume_size(g);

	*voff = c0 << sh;
	*vlen = (c1 << sh < size ? c1 << sh : size) - *voff;
}

static void raid10_unmap(const struct raid_geom *g, int member, uint64_t moff, uint64_t *voff,
			 uint64_t *seg)
{
	unsigned sh = (unsigned)__builtin_ctzll(g->chunk);
	uint64_t slot = (moff >> sh) * (uint64_t)g->n + (uint64_t)member;

	*voff = (slot / 2) << sh | (moff & (g->chunk - 1));
	*seg = raid_chunk_left(g, moff);
}

const struct raid_level_ops raid10_ops = {
    .level = 10,
    .name = "raid10",
    .min_members = 2,
    .max_failed = RAID_ALL_BUT_ONE, /* check_failed says which sets */
    .copies = 2,
    .uses_chunk = true,
    .layouts = 1u << RAID_LAYOUT_NEAR2,
    .default_layout = RAID_LAYOUT_NEAR2,
    .size = raid10_size,
    .check_failed = raid10_check_failed,
    .map = raid10_map,
    .start = raid_plan_start,
    .span = raid10_span,
    .unmap = raid10_unmap,
};
