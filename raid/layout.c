/*
 * layout.c - md's address arithmetic for RAID0 and RAID10 near2, and volume sizes.
 * Chunks are powers of two, so divisions by the chunk are shifts; divisions by the member
 * count are real divisions (odd counts are allowed).
 */
#include "layout.h"

static inline unsigned chunk_shift(const struct raid_geom *g)
{
	return (unsigned)__builtin_ctzll(g->chunk);
}

void raid0_locate(const struct raid_geom *g, uint64_t off, struct raid_loc *loc)
{
	unsigned sh = chunk_shift(g);
	uint64_t c = off >> sh;

	loc->member = (int)(c % (uint64_t)g->n);
	loc->offset = ((c / (uint64_t)g->n) << sh) | (off & (g->chunk - 1));
}

uint64_t raid0_volume_size(const struct raid_geom *g)
{
	return (g->member_size >> chunk_shift(g)) * (uint64_t)g->n << chunk_shift(g);
}

uint64_t raid1_volume_size(const struct raid_geom *g)
{
	return g->member_size;
}

void raid10_near2_locate(const struct raid_geom *g, uint64_t off, int copy, struct raid_loc *loc)
{
	unsigned sh = chunk_shift(g);
	uint64_t slot = ((off >> sh) << 1) + (uint64_t)copy;

	loc->member = (int)(slot % (uint64_t)g->n);
	loc->offset = ((slot / (uint64_t)g->n) << sh) | (off & (g->chunk - 1));
}

uint64_t raid10_near2_volume_size(const struct raid_geom *g)
{
	uint64_t rows = g->member_size >> chunk_shift(g);

	/* every member row holds n chunk slots; each volume chunk takes two */
	return (rows * (uint64_t)g->n / 2) << chunk_shift(g);
}
