/*
 * plan_test.c - request splitting (plan.c): extents never cross a chunk boundary unless
 * they continue on the same member, cover every byte once per read and once per surviving
 * copy per write, reads go to the copy with the fewest outstanding I/Os and never to a
 * failed member, and a read with no surviving copy fails with EIO.
 */
#include "core/testutil.h"

#include <errno.h>

#include "core/level.h"

#define MAXE 4096

struct got {
	int n;
	struct raid_extent e[MAXE];
};

static void collect(void *ctx, const struct raid_extent *e)
{
	struct got *g = ctx;

	assert_true(g->n < MAXE);
	g->e[g->n++] = *e;
}

static struct raid_array *array(const char *level, const char *members, const char *chunk,
				const char *failed)
{
	struct raid_config c;
	struct raid_array *a;
	char err[RAID_ERRLEN];

	t_config(&c, level, members, chunk, "raid_backend=null", "raid_member_size=1m", failed,
		 NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	return a;
}

/* Every volume byte of [off, off+len) lands where the level's map says, `want` times. */
static void check_cover(struct raid_array *a, const struct got *g, uint64_t off, uint64_t len,
			int want)
{
	unsigned char *count = calloc(len, 1);

	for (int i = 0; i < g->n; i++) {
		const struct raid_extent *e = &g->e[i];

		assert_true(e->voff >= off && e->voff + e->len <= off + len);
		assert_false(raid_member_failed(a, e->member));
		for (uint64_t b = 0; b < e->len; b += 512) {
			struct raid_loc locs[RAID_MAX_COPIES];
			uint64_t seg;
			int n = a->ops->map(&a->geom, e->voff + b, locs, &seg), k;

			for (k = 0; k < n; k++)
				if (locs[k].member == e->member && locs[k].offset == e->moff + b)
					break;
			assert_true(k < n);
			for (uint64_t x = 0; x < 512 && b + x < e->len; x++)
				count[e->voff + b + x - off]++;
		}
	}
	for (uint64_t b = 0; b < len; b++)
		assert_int_equal(count[b], want);
	free(count);
}

static void test_bs12k_on_chunk8k(void **state)
{
	struct raid_array *a =
	    array("raid_level=0", "raid_members=a:b:c", "raid_chunk=8k", "raid_failed=");
	struct got g = {0};
	unsigned rr = 0;
	uint64_t lost;
	bool deg;

	assert_int_equal(raid_plan_split(a, &rr, RAID_OP_WRITE, 0, 12288, collect, &g, &lost, &deg),
			 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.e[0].member, 0);
	assert_int_equal(g.e[0].moff, 0);
	assert_int_equal(g.e[0].len, 8192);
	assert_int_equal(g.e[1].member, 1);
	assert_int_equal(g.e[1].moff, 0);
	assert_int_equal(g.e[1].len, 4096);
	/* 12k starting at 20k: 4k at the end of chunk 2 (member 2), 8k of chunk 3 (member 0, row 1)
	 */
	g.n = 0;
	assert_int_equal(
	    raid_plan_split(a, &rr, RAID_OP_READ, 20480, 12288, collect, &g, &lost, &deg), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.e[0].member, 0);
	assert_int_equal(g.e[0].moff, 8192);
	assert_int_equal(g.e[0].len, 8192);
	assert_int_equal(g.e[1].member, 2);
	assert_int_equal(g.e[1].moff, 4096);
	assert_int_equal(g.e[1].len, 4096);
	raid_array_put(a);
}

static void test_sweep(void **state)
{
	static const char *const levels[] = {"raid_level=0", "raid_level=1", "raid_level=10"};
	static const char *const members[] = {"raid_members=a:b", "raid_members=a:b:c",
					      "raid_members=a:b:c:d:e"};
	uint64_t seed = t_seed("plan sweep");

	for (int l = 0; l < 3; l++)
		for (int m = 0; m < 3; m++) {
			struct raid_array *a =
			    array(levels[l], members[m], "raid_chunk=4k", "raid_failed=");
			uint64_t size = raid_array_size(a);
			int copies = l == 0 ? 1 : l == 1 ? a->geom.n : 2;

			for (int i = 0; i < 300; i++) {
				uint64_t len = (t_rand(&seed) % 64 + 1) * 512;
				uint64_t off = t_rand(&seed) % (size - len) / 512 * 512;
				struct got g = {0};
				unsigned rr = (unsigned)i;
				uint64_t lost;
				bool deg;

				assert_int_equal(raid_plan_split(a, &rr, RAID_OP_READ, off, len,
								 collect, &g, &lost, &deg),
						 0);
				check_cover(a, &g, off, len, 1);
				assert_false(deg);
				g.n = 0;
				assert_int_equal(raid_plan_split(a, &rr, RAID_OP_WRITE, off, len,
								 collect, &g, &lost, &deg),
						 0);
				check_cover(a, &g, off, len, copies);
				/* merged extents: at most one per member per chunk boundary crossed
				 */
				assert_true(g.n <= copies * (int)(len / 4096 + 2));
			}
			raid_array_put(a);
		}
}

static void test_fewest_outstanding(void **state)
{
	struct raid_array *a =
	    array("raid_level=1", "raid_members=a:b:c", "raid_chunk=4k", "raid_failed=");
	struct got g = {0};
	uint64_t lost;
	bool deg;

	atomic_store(&a->m[0].inflight, 5);
	atomic_store(&a->m[1].inflight, 2);
	atomic_store(&a->m[2].inflight, 7);
	for (unsigned rr = 0; rr < 6; rr++) {
		g.n = 0;
		raid_plan_split(a, &rr, RAID_OP_READ, 0, 4096, collect, &g, &lost, &deg);
		assert_int_equal(g.n, 1);
		assert_int_equal(g.e[0].member, 1);
	}
	atomic_store(&a->m[0].inflight, 0);
	atomic_store(&a->m[1].inflight, 0);
	atomic_store(&a->m[2].inflight, 0);
	raid_array_put(a);
}

static void test_degraded(void **state)
{
	struct raid_array *a =
	    array("raid_level=10", "raid_members=a:b:c:d", "raid_chunk=4k", "raid_failed=1,2");
	uint64_t seed = t_seed("plan degraded");

	for (int i = 0; i < 200; i++) {
		uint64_t len = (t_rand(&seed) % 32 + 1) * 4096;
		uint64_t off = t_rand(&seed) % (raid_array_size(a) - len) / 4096 * 4096;
		struct got g = {0};
		unsigned rr = 0;
		uint64_t lost;
		bool deg;

		assert_int_equal(
		    raid_plan_split(a, &rr, RAID_OP_READ, off, len, collect, &g, &lost, &deg), 0);
		assert_true(deg);
		check_cover(a, &g, off, len, 1);
		g.n = 0;
		assert_int_equal(
		    raid_plan_split(a, &rr, RAID_OP_WRITE, off, len, collect, &g, &lost, &deg), 0);
		check_cover(a, &g, off, len, 1); /* one surviving copy of every chunk */
	}
	/* losing member 0 too leaves chunks of pair (0,1) without a copy */
	raid_array_fail_member(a, 0);
	{
		struct got g = {0};
		unsigned rr = 0;
		uint64_t lost = 0;
		bool deg;

		assert_int_equal(
		    raid_plan_split(a, &rr, RAID_OP_READ, 4096, 8192, collect, &g, &lost, &deg),
		    -EIO);
		assert_int_equal(lost, 8192); /* chunk 2 lives on members 0 and 1 */
	}
	raid_array_put(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_bs12k_on_chunk8k),
	    cmocka_unit_test(test_sweep),
	    cmocka_unit_test(test_fewest_outstanding),
	    cmocka_unit_test(test_degraded),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
