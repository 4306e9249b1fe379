/*
 * rebuild56_test.c - RAID5/6 recovery and scrub arithmetic (rebuild56.c's rows_recover and
 * rows_check, as rebuild, resync and scrub call them) against the independent md model of
 * raid56_testmodel.h: random geometries (levels 5 and 6, 3..24 members, every layout,
 * chunks 4k..64k, windows of rows anywhere on the members, raid_parity cpu or isal). Every
 * lost set the level survives (each member; for RAID6 each pair) is scribbled over and
 * recomputed from the others, and must come back byte for byte; corrupted rows are counted
 * by a check and made consistent again by a repair.
 */
#include "core/testutil.h"

#include "core/core.h"
#include "core/level.h"
#include "raid56_testmodel.h"

#define ROUNDS 24

#ifdef TEST_GPU
static long gpu_windows; /* windows the (mock) GPU rebuilt */
#endif

/* rebuild56_gpu_test builds this file with TEST_GPU and the mock GPU (raid56_gpu_mock.c) */
#ifdef TEST_GPU
#define PARITIES                                                                                   \
	{                                                                                          \
		"cuda"                                                                             \
	}
#else
#define PARITIES                                                                                   \
	{                                                                                          \
		"cpu", "isal"                                                                      \
	}
#endif

struct geo {
	int level, n, k;
	enum raid_layout_kind layout;
	uint64_t chunk, row0, rows;
	struct raid_array *a;
};

static const enum raid_layout_kind layouts[] = {RAID_LAYOUT_LEFT_SYM, RAID_LAYOUT_LEFT_ASYM,
						RAID_LAYOUT_RIGHT_SYM, RAID_LAYOUT_RIGHT_ASYM};

static void open_array(struct geo *g, uint64_t *seed)
{
	static const char *const parity[] = PARITIES;
	char opt[6][1600], err[RAID_ERRLEN];
	struct raid_config c;

	snprintf(opt[0], sizeof(opt[0]), "raid_level=%d", g->level);
	snprintf(opt[1], sizeof(opt[1]), "raid_members=");
	for (int i = 0; i < g->n; i++)
		snprintf(opt[1] + strlen(opt[1]), sizeof(opt[1]) - strlen(opt[1]),
			 "%sram-rebuild56-%d", i ? ":" : "", i);
	snprintf(opt[2], sizeof(opt[2]), "raid_chunk=%llu", (unsigned long long)g->chunk);
	snprintf(opt[3], sizeof(opt[3]), "raid_member_size=%llu",
		 (unsigned long long)((g->row0 + g->rows) * g->chunk));
	snprintf(opt[4], sizeof(opt[4]), "raid_layout=%s", raid_layout_name(5, g->layout));
	snprintf(opt[5], sizeof(opt[5]), "raid_parity=%s",
		 parity[t_rand(seed) % (sizeof(parity) / sizeof(parity[0]))]);
	t_config(&c, opt[0], opt[1], opt[2], opt[3], opt[4], opt[5], "raid_backend=ram", NULL);
	if (raid_array_get(&c, &g->a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
}

/* The members' bytes of the window, as md lays the random data out (the model, not the engine). */
static uint8_t **model_members(const struct geo *g, uint64_t *seed)
{
	uint8_t **m = calloc((size_t)g->n, sizeof(*m));
	size_t len = g->rows * g->chunk;

	for (int i = 0; i < g->n; i++)
		m[i] = aligned_alloc(64, len);
	for (uint64_t r = 0; r < g->rows; r++) {
		struct md_row row;
		void *ptrs[66];

		md_row(g->level, g->layout, g->n, g->row0 + r, &row);
		for (int i = 0; i < g->k; i++) {
			uint8_t *d = m[row.data[i]] + r * g->chunk;

			for (uint64_t b = 0; b < g->chunk; b += 8) {
				uint64_t v = t_rand(seed);

				memcpy(d + b, &v, 8);
			}
			ptrs[row.qpos[i]] = d;
		}
		ptrs[g->k] = m[row.p] + r * g->chunk;
		ptrs[g->k + 1] = row.q >= 0 ? m[row.q] + r * g->chunk : NULL;
		if (g->level == 6)
			pq_calls_base.gen_pq(g->k, g->chunk, ptrs);
		else
			pq_calls_base.gen_p(g->k, g->chunk, ptrs);
	}
	return m;
}

static void check_recover(const struct geo *g, uint8_t **model, uint64_t lost, int round)
{
	size_t len = g->rows * g->chunk;
	void *bufs[RAID_MAX_MEMBERS];

	for (int i = 0; i < g->n; i++) {
		bufs[i] = aligned_alloc(64, len);
		if (lost >> i & 1)
			memset(bufs[i], 0xa5, len); /* what a blank spare holds */
		else
			memcpy(bufs[i], model[i], len);
	}
#ifdef TEST_GPU
	/* as rebuild.c does: the window pinned for the GPU, which must then do the work */
	uint64_t before = g->a->totals.gpu_stripes;

	for (int i = 0; i < g->n; i++)
		assert_int_equal(g->a->ops->buf_register(g->a, bufs[i], len), 0);
#endif
	g->a->ops->rows_recover(g->a, g->row0 * g->chunk, len, lost, bufs);
#ifdef TEST_GPU
	for (int i = 0; i < g->n; i++)
		g->a->ops->buf_unregister(g->a, bufs[i]);
	/* the mock refuses a launch now and then: the CPU then redoes the window */
	if (g->a->totals.gpu_stripes > before)
		gpu_windows++;
#endif
	for (int i = 0; i < g->n; i++) {
		if (memcmp(bufs[i], model[i], len))
			fail_msg("round %d: raid%d n=%d %s chunk=%llu rows %llu+%llu, lost %#llx: "
				 "member %d not rebuilt to md's bytes",
				 round, g->level, g->n, raid_layout_name(5, g->layout),
				 (unsigned long long)g->chunk, (unsigned long long)g->row0,
				 (unsigned long long)g->rows, (unsigned long long)lost, i);
		free(bufs[i]);
	}
}

/* Corrupt some rows (a data, P or Q byte), then a check counts them and a repair fixes them. */
static void check_scrub(const struct geo *g, uint8_t **model, uint64_t *seed, int round)
{
	size_t len = g->rows * g->chunk;
	void *bufs[RAID_MAX_MEMBERS];
	uint64_t bad = 0, rewrite = 0, moff = g->row0 * g->chunk;

	for (int i = 0; i < g->n; i++) {
		bufs[i] = aligned_alloc(64, len);
		memcpy(bufs[i], model[i], len);
	}
	assert_int_equal(g->a->ops->rows_check(g->a, moff, len, bufs, false, &rewrite), 0);
	for (uint64_t r = 0; r < g->rows; r++) {
		if (t_rand(seed) % 3)
			continue;
		((uint8_t *)
		     bufs[t_rand(seed) % (uint64_t)g->n])[r * g->chunk + t_rand(seed) % g->chunk] ^=
		    0x40;
		bad++;
	}
	if (g->a->ops->rows_check(g->a, moff, len, bufs, false, &rewrite) != bad || rewrite)
		fail_msg("round %d: raid%d n=%d: check counted wrong (%llu corrupted rows)", round,
			 g->level, g->n, (unsigned long long)bad);
	assert_int_equal(g->a->ops->rows_check(g->a, moff, len, bufs, true, &rewrite), bad);
	assert_int_equal(g->a->ops->rows_check(g->a, moff, len, bufs, false, &rewrite), 0);
	if (bad)
		assert_true(rewrite != 0);
	for (int i = 0; i < g->n; i++)
		free(bufs[i]);
}

static void test_rows(void **state)
{
	static const uint64_t chunks[] = {4096, 8192, 16384, 65536};
	uint64_t seed = t_seed("rebuild56 rows");
	long cases = 0;

	for (int round = 0; round < ROUNDS; round++) {
		struct geo g = {.level = round % 2 ? 6 : 5};
		uint8_t **model;

		g.n = (g.level == 6 ? 4 : 3) + (int)(t_rand(&seed) % 22);
		g.k = g.n - (g.level == 6 ? 2 : 1);
		g.layout = layouts[t_rand(&seed) % 4];
		g.chunk = chunks[t_rand(&seed) % (g.n > 12 ? 2 : 4)];
		g.row0 = t_rand(&seed) % 40;
		g.rows = 1 + t_rand(&seed) % (2 * (uint64_t)g.n); /* every parity rotation */
		open_array(&g, &seed);
		model = model_members(&g, &seed);
		for (int i = 0; i < g.n; i++) {
			check_recover(&g, model, 1ULL << i, round);
			cases++;
			for (int j = i + 1; g.level == 6 && j < g.n; j++, cases++)
				check_recover(&g, model, 1ULL << i | 1ULL << j, round);
		}
		check_scrub(&g, model, &seed, round);
		for (int i = 0; i < g.n; i++)
			free(model[i]);
		free(model);
		raid_array_put(g.a);
	}
	printf("%ld lost sets rebuilt over %d geometries\n", cases, ROUNDS);
#ifdef TEST_GPU
	printf("%ld of them by the (mock) GPU\n", gpu_windows);
	assert_true(gpu_windows > cases / 2);
#endif
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
