/*
 * params_test.c - the ublk parameters raid-ublk derives from an array's geometry, and the
 * command line's parsers (params.c), over a table of geometries.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <errno.h>
#include <string.h>

#include "params.h"

struct row {
	const char *name;
	struct ublk_geom g;
	unsigned lbs, pbs, io_min, io_opt; /* bytes expected */
};

#define M (1ULL << 20)
static const struct row rows[] = {
    /* RAID5 of 3, 64k: 2 data members -> io_opt 128k */
    {"r5-3-64k", {2, true, 64 << 10, 64 * M, 512, 1 << 20}, 512, 4096, 64 << 10, 128 << 10},
    /* RAID5 of 5, 512k: 4 x 512k = 2m */
    {"r5-5-512k", {4, true, 512 << 10, 64 * M, 512, 1 << 20}, 512, 4096, 512 << 10, 2 << 20},
    /* RAID6 of 5, 64k: 3 data members: 192k is no power of two, 64k divides it */
    {"r6-5-64k", {3, true, 64 << 10, 48 * M, 512, 1 << 20}, 512, 4096, 64 << 10, 64 << 10},
    /* RAID6 of 6, 4k: 4 x 4k = 16k */
    {"r6-6-4k", {4, true, 4096, 64 * M, 512, 1 << 20}, 512, 4096, 4096, 16 << 10},
    /* RAID0 of 4, 4k chunk on 4k-sector drives */
    {"r0-4-4k-4kn", {4, true, 4096, 64 * M, 4096, 1 << 20}, 4096, 4096, 4096, 16 << 10},
    /* RAID1 of 2: no chunk, one copy's worth */
    {"r1-2", {1, false, 512 << 10, 32 * M, 512, 1 << 20}, 512, 4096, 4096, 4096},
    /* RAID10 near2 of 4, 512k: 2 data members */
    {"r10-4-512k", {2, true, 512 << 10, 64 * M, 512, 1 << 20}, 512, 4096, 512 << 10, 1 << 20},
    /* a chunk below a page: the physical block is the chunk */
    {"r5-3-1k", {2, true, 1024, 8 * M, 512, 1 << 20}, 512, 1024, 1024, 2048},
};

static void test_geometries(void **state)
{
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		const struct row *r = &rows[i];
		struct ru_params p;
		char err[256];

		print_message("%s\n", r->name);
		assert_int_equal(ublk_params_make(&r->g, &p, err, sizeof(err)), 0);
		assert_int_equal(p.types, RU_PARAM_TYPE_BASIC);
		assert_int_equal(1u << p.basic.logical_bs_shift, r->lbs);
		assert_int_equal(1u << p.basic.physical_bs_shift, r->pbs);
		assert_int_equal(1u << p.basic.io_min_shift, r->io_min);
		assert_int_equal(1u << p.basic.io_opt_shift, r->io_opt);
		assert_int_equal(p.basic.dev_sectors, r->g.volume >> 9);
		assert_int_equal(p.basic.max_sectors, r->g.max_io >> 9);
		/* flush and FUA are honoured, so the kernel must send them */
		assert_true(p.basic.attrs & RU_ATTR_VOLATILE_CACHE);
		assert_true(p.basic.attrs & RU_ATTR_FUA);
		/* the stripe width is a whole number of io_opt */
		assert_int_equal(ublk_stripe_width(&r->g) % r->io_opt, 0);
	}
}

static void test_refusals(void **state)
{
	struct ublk_geom g = {2, true, 64 << 10, 64 * M + 512, 4096, 1 << 20};
	struct ru_params p;
	char err[256];

	/* a volume that is no whole number of the members' 4k blocks */
	assert_int_equal(ublk_params_make(&g, &p, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "4096-byte blocks"));
	g.volume = 0;
	assert_int_equal(ublk_params_make(&g, &p, err, sizeof(err)), -EINVAL);
	g.volume = 64 * M;
	g.member_lbs = 3000;
	assert_int_equal(ublk_params_make(&g, &p, err, sizeof(err)), -EINVAL);
}

static void test_cpus(void **state)
{
	cpu_set_t s;

	assert_int_equal(ublk_parse_cpus("0-3,8,10-11", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 7);
	assert_true(CPU_ISSET(8, &s) && CPU_ISSET(11, &s) && !CPU_ISSET(9, &s));
	assert_int_equal(ublk_parse_cpus("5", &s), 0);
	assert_int_equal(CPU_COUNT(&s), 1);
	assert_int_equal(ublk_parse_cpus("", &s), -EINVAL);
	assert_int_equal(ublk_parse_cpus("3-1", &s), -EINVAL);
	assert_int_equal(ublk_parse_cpus("1,", &s), -EINVAL);
	assert_int_equal(ublk_parse_cpus("a", &s), -EINVAL);
	assert_int_equal(ublk_parse_cpus("99999", &s), -EINVAL);
}

static void test_ids(void **state)
{
	assert_int_equal(ublk_parse_id("7"), 7);
	assert_int_equal(ublk_parse_id("/dev/ublkb12"), 12);
	assert_int_equal(ublk_parse_id("/dev/ublkc1"), -EINVAL);
	assert_int_equal(ublk_parse_id("x"), -EINVAL);
	assert_int_equal(ublk_parse_id("1x"), -EINVAL);
	assert_int_equal(ublk_parse_id(""), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_geometries),
	    cmocka_unit_test(test_refusals),
	    cmocka_unit_test(test_cpus),
	    cmocka_unit_test(test_ids),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
