/*
 * layout_test.c - md's address arithmetic (layout.c) against a deliberately simple model:
 * the members drawn as a grid of chunk slots filled in order, as md's documentation
 * describes the layouts, for many member counts (odd ones too) and chunk sizes.
 */
#include "core/testutil.h"

#include "layout.h"

struct slot {
	int member;
	uint64_t row;
};

/*
 * Walk the grid row by row, member by member, handing out slots: RAID0 gives each chunk
 * one slot, RAID10 near2 gives each chunk two consecutive slots.
 */
static void model(int copies, int n, uint64_t chunk_no, struct slot *out)
{
	int member = 0;
	uint64_t row = 0;

	for (uint64_t c = 0;; c++) {
		for (int k = 0; k < copies; k++) {
			if (c == chunk_no) {
				out[k].member = member;
				out[k].row = row;
			}
			if (++member == n) {
				member = 0;
				row++;
			}
		}
		if (c == chunk_no)
			return;
	}
}

static void sweep(int level)
{
	uint64_t seed = t_seed(level == 0 ? "raid0" : "raid10");

	for (int n = 2; n <= 9; n++) {
		for (uint64_t chunk = 4096; chunk <= 1 << 20; chunk <<= 2) {
			struct raid_geom g = {.level = level,
					      .n = n,
					      .chunk = chunk,
					      .member_size = chunk * 37 + chunk / 2};
			uint64_t rows = 37;
			uint64_t size =
			    level == 0 ? raid0_volume_size(&g) : raid10_near2_volume_size(&g);
			int copies = level == 0 ? 1 : 2;

			assert_int_equal(size,
					 level == 0 ? rows * n * chunk : rows * n / 2 * chunk);
			for (int i = 0; i < 200; i++) {
				/* chunk starts, ends and random bytes, last byte included */
				uint64_t off = i == 0 ? size - 1 : t_rand(&seed) % size;
				struct slot want[2];
				struct raid_loc got;

				if (i % 3 == 1)
					off &= ~(chunk - 1);
				model(copies, n, off / chunk, want);
				for (int k = 0; k < copies; k++) {
					if (level == 0)
						raid0_locate(&g, off, &got);
					else
						raid10_near2_locate(&g, off, k, &got);
					assert_int_equal(got.member, want[k].member);
					assert_int_equal(got.offset,
							 want[k].row * chunk + off % chunk);
					assert_true(got.offset < g.member_size);
				}
				assert_int_equal(raid_chunk_left(&g, off), chunk - off % chunk);
			}
		}
	}
}

static void test_raid0(void **state)
{
	sweep(0);
}

static void test_raid10_near2(void **state)
{
	sweep(10);
}

/* Worked examples from md: 3-member near2 puts chunk 1 on members 2 and 0 (next row). */
static void test_raid10_odd_example(void **state)
{
	struct raid_geom g = {.level = 10, .n = 3, .chunk = 4096, .member_size = 4096 * 4};
	struct raid_loc l;

	raid10_near2_locate(&g, 4096, 0, &l);
	assert_int_equal(l.member, 2);
	assert_int_equal(l.offset, 0);
	raid10_near2_locate(&g, 4096 + 5, 1, &l);
	assert_int_equal(l.member, 0);
	assert_int_equal(l.offset, 4096 + 5);
	/* 4 rows x 3 slots = 12 slots = 6 chunks */
	assert_int_equal(raid10_near2_volume_size(&g), 6 * 4096);
}

static void test_raid1_size(void **state)
{
	struct raid_geom g = {.level = 1, .n = 3, .chunk = 4096, .member_size = 1 << 20};

	assert_int_equal(raid1_volume_size(&g), 1 << 20);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raid0),
	    cmocka_unit_test(test_raid10_near2),
	    cmocka_unit_test(test_raid10_odd_example),
	    cmocka_unit_test(test_raid1_size),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
