/*
 * raid56_testmodel.h - for the RAID5/6 tests: an independent, deliberately simple model of
 * what md keeps on each member, written from md's layout descriptions rather than from
 * its arithmetic (the library's layout.c follows raid5_compute_sector), and a checker that
 * compares every surviving member with it.
 *
 * A stripe row r of n members holds P (and Q for RAID6) and k = n - 1 (or n - 2) data
 * chunks. P sits on member n-1-(r mod n) for the left layouts and r mod n for the right
 * ones; Q on the member after P. Symmetric layouts put data chunk 0 right after the
 * parity and wrap; asymmetric ones fill the other members from member 0 up. Q's syndrome
 * counts the data from the member after Q, wrapping.
 */
#ifndef RAID_RAID56_TESTMODEL_H
#define RAID_RAID56_TESTMODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "parity/pq.h"
#include "core/raid.h"

struct md_row {
	int p, q;     /* members; q = -1 for RAID5 */
	int data[64]; /* member of data chunk i */
	int qpos[64]; /* data chunk i's position in Q's syndrome */
};

static inline void md_row(int level, enum raid_layout_kind layout, int n, uint64_t r,
			  struct md_row *row)
{
	int par = level == 6 ? 2 : 1, k = n - par, i = 0;
	bool left = layout == RAID_LAYOUT_LEFT_SYM || layout == RAID_LAYOUT_LEFT_ASYM ||
		    layout == RAID_LAYOUT_DEFAULT;
	bool sym = layout == RAID_LAYOUT_LEFT_SYM || layout == RAID_LAYOUT_RIGHT_SYM ||
		   layout == RAID_LAYOUT_DEFAULT;

	row->p = left ? n - 1 - (int)(r % (uint64_t)n) : (int)(r % (uint64_t)n);
	row->q = par == 2 ? (row->p + 1) % n : -1;
	if (sym) {
		int first = (row->p + par) % n;

		for (i = 0; i < k; i++)
			row->data[i] = (first + i) % n;
	} else {
		for (int m = 0; m < n; m++)
			if (m != row->p && m != row->q)
				row->data[i++] = m;
	}
	for (i = 0; i < k; i++) {
		int pos = 0;

		/* walk from the member after Q (after P for RAID5) to data chunk i's member */
		for (int m = ((par == 2 ? row->q : row->p) + 1) % n; m != row->data[i];
		     m = (m + 1) % n)
			if (m != row->p && m != row->q)
				pos++;
		row->qpos[i] = pos;
	}
}

/* Reads len bytes of member m at off into buf (the test's access to the member bytes). */
typedef void (*md_read_fn)(void *ctx, int m, uint64_t off, uint64_t len, uint8_t *buf);

/*
 * Compare every member not in `failed` with md's bytes for the volume `vol` (vsize bytes)
 * over the rows the volume uses. Returns 0, or fills msg and returns -1 at the first
 * difference.
 */
static inline int md_check(int level, enum raid_layout_kind layout, int n, uint64_t chunk,
			   uint64_t vsize, const uint8_t *vol, uint64_t failed, md_read_fn rd,
			   void *ctx, char *msg, size_t msglen)
{
	int par = level == 6 ? 2 : 1, k = n - par;
	uint64_t rows = vsize / ((uint64_t)k * chunk);
	uint8_t *p = malloc(chunk), *q = malloc(chunk), *got = malloc(chunk);
	void *ptrs[66];
	int ret = 0;

	for (uint64_t r = 0; r < rows && !ret; r++) {
		struct md_row row;

		md_row(level, layout, n, r, &row);
		for (int i = 0; i < k; i++)
			ptrs[row.qpos[i]] = (void *)(vol + (r * (uint64_t)k + (uint64_t)i) * chunk);
		ptrs[k] = p;
		ptrs[k + 1] = q;
		if (par == 2)
			pq_calls_base.gen_pq(k, chunk, ptrs);
		else
			pq_calls_base.gen_p(k, chunk, ptrs);
		for (int m = 0; m < n && !ret; m++) {
			const uint8_t *want = NULL;
			const char *what = "data";

			if (failed >> m & 1)
				continue;
			if (m == row.p) {
				want = p;
				what = "P";
			} else if (m == row.q) {
				want = q;
				what = "Q";
			} else {
				for (int i = 0; i < k; i++)
					if (row.data[i] == m)
						want =
						    vol + (r * (uint64_t)k + (uint64_t)i) * chunk;
			}
			rd(ctx, m, r * chunk, chunk, got);
			for (uint64_t b = 0; b < chunk; b++)
				if (got[b] != want[b]) {
					snprintf(
					    msg, msglen,
					    "raid%d n=%d chunk=%llu %s: member %d row %llu byte "
					    "%llu (%s) holds %#x, md holds %#x",
					    level, n, (unsigned long long)chunk,
					    raid_layout_name(level, layout), m,
					    (unsigned long long)r, (unsigned long long)b, what,
					    got[b], want[b]);
					ret = -1;
					break;
				}
		}
	}
	free(p);
	free(q);
	free(got);
	return ret;
}

#endif
