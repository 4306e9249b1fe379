/*
 * layout.c - md's address arithmetic for RAID0, RAID10 near2 and RAID5/6, and volume sizes.
 * Chunks are powers of two, so divisions by the chunk are shifts; divisions by the member
 * count are real divisions (odd counts are allowed).
 */
#include "layout.h"
#include "core/level.h"
#include "core/raid.h"

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

void raid56_stripe_map(const struct raid_geom *g, uint64_t stripe, struct raid56_stripe *s)
{
	int n = g->n, par = raid56_parity(g), k = n - par;
	int r = (int)(stripe % (uint64_t)n);
	bool left = g->layout == RAID_LAYOUT_LEFT_SYM || g->layout == RAID_LAYOUT_LEFT_ASYM;
	bool sym = g->layout == RAID_LAYOUT_LEFT_SYM || g->layout == RAID_LAYOUT_RIGHT_SYM;
	int pd = left ? n - 1 - r : r, qd = par == 2 ? (pd + 1) % n : -1;

	s->pd = pd;
	s->qd = qd;
	s->k = k;
	for (int i = 0; i < k; i++) {
		if (sym)
			s->data[i] = (pd + par + i) % n;
		else if (par == 2 && pd == n - 1)
			s->data[i] = i + 1; /* Q D D .. D P */
		else
			s->data[i] = i < pd ? i : i + par; /* D D P (Q) D */
	}
	if (par == 1) {
		for (int i = 0; i < k; i++)
			s->slot[i] = i; /* P is a plain XOR: any order */
		return;
	}
	/* Q's order: members from the one after Q (0 when Q is last), P and Q skipped */
	int d0 = qd == n - 1 ? 0 : qd + 1, pos[RAID56_MAX_MEMBERS], cnt = 0;

	for (int j = 0, m = d0; j < n; j++, m = (m + 1) % n)
		if (m != pd && m != qd)
			pos[m] = cnt++;
	for (int i = 0; i < k; i++)
		s->slot[i] = pos[s->data[i]];
}

int raid56_parity(const struct raid_geom *g)
{
	return raid_level_find(g->level)->parity;
}

uint64_t raid56_volume_size(const struct raid_geom *g)
{
	int k = g->n - raid56_parity(g);

	return (g->member_size >> chunk_shift(g)) * (uint64_t)k << chunk_shift(g);
}
