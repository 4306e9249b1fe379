/*
 * pq_test.c - every compiled variant that this CPU can run (avx2, avx512, avx512gfni, isal,
 * and base itself through the same path) against the reference pq_calls_base and against
 * ISA-L's pq_gen/xor_gen, byte for byte: every k, random lengths up to 1 MiB, unaligned and
 * aligned blocks (the latter reach the non-temporal store path), every recovery pair for
 * k <= 32 and samples above, and RMW updates against a fresh generation. Each variant's
 * streaming twin (pq_twin()) runs the same cases: on aligned blocks of any length it takes
 * the non-temporal path, tail included; every streaming shape of every SIMD variant runs
 * generation and recovery too (test_shapes). The rule's choice and the stats' view of it.
 * Variants this CPU cannot run are listed as skipped on stdout.
 */
#include <errno.h>
#include <isa-l/raid.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <sys/mman.h>

#include "pq_test_util.h"
#include "pq_impl.h"

static const struct pq_calls *B = &pq_calls_base;

/* block alignment for a case: mostly random, a third 64-aligned so streaming kicks in */
static int pick_align(int i)
{
	return i % 3 == 0 ? 0 : -1;
}

static void test_gen(void **state)
{
	const struct pq_calls *c = *state;

	for (int k = 1; k <= PQ_MAX_DATA; k++) {
		struct t_stripe s;
		size_t len = t_len(1 << 20);

		t_stripe_init(&s, k, len, pick_align(k));
		B->gen_pq(k, len, s.ptrs);
		uint8_t **ref = t_stripe_save(&s);

		t_fill(s.ptrs[k], len);
		t_fill(s.ptrs[k + 1], len);
		c->gen_pq(k, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], ref[k], len);
		assert_memory_equal(s.ptrs[k + 1], ref[k + 1], len);
		t_fill(s.ptrs[k], len);
		c->gen_p(k, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], ref[k], len);
		if (k >= 2 && pick_align(k) == 0) { /* ISA-L needs two sources, 32-byte alignment */
			t_fill(s.ptrs[k], len);
			t_fill(s.ptrs[k + 1], len);
			assert_int_equal(pq_gen(k + 2, (int)len, s.ptrs), 0);
			assert_memory_equal(s.ptrs[k], ref[k], len);
			assert_memory_equal(s.ptrs[k + 1], ref[k + 1], len);
			t_fill(s.ptrs[k], len);
			assert_int_equal(xor_gen(k + 1, (int)len, s.ptrs), 0);
			assert_memory_equal(s.ptrs[k], ref[k], len);
		}
		for (int i = 0; i < k; i++)
			assert_memory_equal(s.ptrs[i], ref[i], len);
		t_stripe_check_guards(&s);
		t_saved_free(&s, ref);
		t_stripe_free(&s);
	}
}

/* xor_p/xor_pq equal base's; an RMW (old data out, new data in) equals a fresh generation */
static void test_xor_and_rmw(void **state)
{
	const struct pq_calls *c = *state;

	for (int iter = 0; iter < 150; iter++) {
		int k = t_range(1, PQ_MAX_DATA);
		int a = t_range(0, k - 1), b = t_range(a, k - 1);
		size_t len = t_len(iter % 10 == 0 ? 1 << 20 : 65536);
		struct t_stripe s;

		t_stripe_init(&s, k, len, pick_align(iter));
		uint8_t **orig = t_stripe_save(&s);

		B->xor_pq(k, a, b, len, s.ptrs);
		uint8_t **ref = t_stripe_save(&s);

		memcpy(s.ptrs[k], orig[k], len);
		memcpy(s.ptrs[k + 1], orig[k + 1], len);
		c->xor_pq(k, a, b, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], ref[k], len);
		assert_memory_equal(s.ptrs[k + 1], ref[k + 1], len);
		memcpy(s.ptrs[k], orig[k], len);
		c->xor_p(k, a, b, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], ref[k], len);

		/* RMW of blocks a..b: fold the old data out, write new data, fold it in */
		c->gen_pq(k, len, s.ptrs);
		c->xor_pq(k, a, b, len, s.ptrs);
		for (int i = a; i <= b; i++)
			t_fill(s.ptrs[i], len);
		c->xor_pq(k, a, b, len, s.ptrs);
		uint8_t **upd = t_stripe_save(&s);

		B->gen_pq(k, len, s.ptrs);
		assert_memory_equal(upd[k], s.ptrs[k], len);
		assert_memory_equal(upd[k + 1], s.ptrs[k + 1], len);
		t_stripe_check_guards(&s);
		t_saved_free(&s, upd);
		t_saved_free(&s, ref);
		t_saved_free(&s, orig);
		t_stripe_free(&s);
	}
}

static void lose(struct t_stripe *s, int i)
{
	t_fill(s->ptrs[i], s->len);
}

static void check_restored(struct t_stripe *s, uint8_t **orig)
{
	for (int i = 0; i < s->k + 2; i++)
		assert_memory_equal(s->ptrs[i], orig[i], s->len);
	t_stripe_check_guards(s);
}

static void recover_pair(const struct pq_calls *c, struct t_stripe *s, uint8_t **orig, int fa,
			 int fb)
{
	int k = s->k;

	lose(s, fa);
	lose(s, fb);
	c->recov_2d(k, fa, fb, s->len, s->ptrs);
	check_restored(s, orig);
}

static void recover_single(const struct pq_calls *c, struct t_stripe *s, uint8_t **orig, int fa)
{
	int k = s->k;

	lose(s, fa);
	lose(s, k);
	c->recov_dp(k, fa, s->len, s->ptrs);
	check_restored(s, orig);
	lose(s, fa);
	lose(s, k + 1);
	pq_recov_dq(c, k, fa, s->len, s->ptrs);
	check_restored(s, orig);
	lose(s, fa);
	pq_recov_1d_p(c, k, fa, s->len, s->ptrs);
	check_restored(s, orig);
}

/* every pair for k up to 32, on short blocks (the pair logic does not depend on length) */
static void test_recovery_all_pairs(void **state)
{
	const struct pq_calls *c = *state;

	for (int k = 1; k <= 32; k++) {
		struct t_stripe s;

		t_stripe_init(&s, k, t_len(512), pick_align(k));
		B->gen_pq(k, s.len, s.ptrs);
		uint8_t **orig = t_stripe_save(&s);

		for (int fa = 0; fa < k; fa++) {
			for (int fb = fa + 1; fb < k; fb++)
				recover_pair(c, &s, orig, fa, fb);
			recover_single(c, &s, orig, fa);
		}
		lose(&s, k);
		lose(&s, k + 1);
		c->gen_pq(k, s.len, s.ptrs);
		check_restored(&s, orig);
		t_saved_free(&s, orig);
		t_stripe_free(&s);
	}
}

/* above 32 blocks and on long blocks (streaming path): sampled pairs, extremes included */
static void test_recovery_sampled(void **state)
{
	const struct pq_calls *c = *state;

	for (int iter = 0; iter < 40; iter++) {
		int k = iter < 30 ? t_range(33, PQ_MAX_DATA) : t_range(2, 32);
		int fa = iter % 3 == 0 ? 0 : t_range(0, k - 2);
		int fb = iter % 3 == 1 ? k - 1 : t_range(fa + 1, k - 1);
		struct t_stripe s;

		t_stripe_init(&s, k, t_len(iter < 30 ? 65536 : 1 << 20), pick_align(iter));
		B->gen_pq(k, s.len, s.ptrs);
		uint8_t **orig = t_stripe_save(&s);

		recover_pair(c, &s, orig, fa, fb);
		recover_single(c, &s, orig, fb);
		t_saved_free(&s, orig);
		t_stripe_free(&s);
	}
}

/*
 * The rule: pq_best() is the first variant of the fixed order that this CPU runs (unless
 * RAID_PARITY_IMPL forced one for this run), the same on every call and from every thread's
 * view; "isal" falls back on the rule's variant; a cold stripe gets the pick's twin; the size
 * rule's shape is none, a twin's none or l12-1l, and pq_shape_forced overrides both.
 */
static void test_rule(void **state)
{
	static const char *const order[] = {"avx512gfni", "avx512", "avx2", "base"};
	const char *force = getenv("RAID_PARITY_IMPL");
	const struct pq_calls *want = NULL;

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]) && !want; i++)
		want = pq_find(order[i]);
	assert_non_null(want);
	assert_ptr_equal(pq_best_native(), want);
	if (force && *force && pq_find(force)) {
		assert_ptr_equal(pq_best(), pq_find(force));
		assert_string_equal(pq_best_why(), "forced by RAID_PARITY_IMPL");
	} else {
		assert_ptr_equal(pq_best(), want);
		assert_string_not_equal(pq_best_why(), "forced by RAID_PARITY_IMPL");
	}
	assert_string_equal(pq_best_name(), pq_best()->name);
	assert_ptr_equal(pq_streaming(pq_best()), pq_twin(pq_best()));
	for (int k = 1; k <= PQ_MAX_DATA; k++)
		for (size_t len = 64; len <= (4u << 20); len *= 4) {
			int sh = pq_shape_of(k, len, true);

			assert_int_equal(pq_shape_of(k, len, false), PQ_SHAPE_NONE);
			assert_true(sh == PQ_SHAPE_NONE || sh == PQ_SHAPE_L12_1L ||
				    sh == PQ_SHAPE_L2_2K);
			/* every core measured: no prefetch kept up best at small k */
			if (k <= 6)
				assert_int_equal(sh, PQ_SHAPE_NONE);
			/* one shape from k = 7 to 15 at a given length */
			if (k > 6 && k <= 15)
				assert_int_equal(sh, pq_shape_of(10, len, true));
		}
	pq_shape_forced = 4;
	assert_int_equal(pq_shape_of(10, 4096, true), 4);
	assert_int_equal(pq_shape_of(10, 4096, false), 4);
	pq_shape_forced = -1;
}

/* run first: nothing has chosen yet, so the stats get no choice and asking starts nothing */
static void test_json_before(void **state)
{
	assert_null(pq_selection_json());
	assert_null(pq_selection_json());
}

/* the stats' view of the choice: the variant and its twin, each with why */
static void test_json(void **state)
{
	json_object *o, *x, *v;

	pq_best();
	o = pq_selection_json();
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "hot", &x));
	assert_true(json_object_object_get_ex(x, "chosen", &v));
	assert_string_equal(json_object_get_string(v), pq_best_name());
	assert_true(json_object_object_get_ex(x, "why", &v));
	assert_string_equal(json_object_get_string(v), pq_best_why());
	assert_true(json_object_object_get_ex(o, "streaming", &x));
	assert_true(json_object_object_get_ex(x, "chosen", &v));
	assert_string_equal(json_object_get_string(v), pq_streaming(pq_best())->name);
	assert_true(json_object_object_get_ex(x, "why", &v));
	assert_non_null(strstr(json_object_get_string(v), pq_best_name()));
	assert_non_null(
	    strstr(json_object_get_string(v), pq_shapes[pq_shape_of(4, 4096, true)].name));
	json_object_put(o);
}

/*
 * pq_map_huge(): on a 2 MiB boundary, n bytes (rounded up to pages) writable, the slack after
 * them given back, and munmap(p, n) frees what it returned.
 */
static void test_map_huge(void **state)
{
	static const size_t sizes[] = {1, 4096, 5000, (3u << 20) + 123};
	unsigned char vec[1];

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		size_t n = sizes[i], pages = (n + 4095) & ~(size_t)4095;
		unsigned char *p = pq_map_huge(n);

		assert_non_null(p);
		assert_int_equal((uintptr_t)p & ((2u << 20) - 1), 0);
		memset(p, 0xa5, pages);
		assert_int_equal(p[pages - 1], 0xa5);
		/* the page after them is no longer mapped: mincore says so */
		assert_int_equal(mincore(p + pages, 4096, vec), -1);
		assert_int_equal(errno, ENOMEM);
		assert_int_equal(munmap(p, n), 0);
		assert_int_equal(mincore(p, 4096, vec), -1);
	}
}

/* twins: one per SIMD variant and isal, distinct from every listed variant, never selected hot */
static void test_streaming(void **state)
{
	int twins = 0;

	for (int v = 0; pq_all_calls[v]; v++) {
		const struct pq_calls *c = pq_all_calls[v], *t = pq_twin(c);

		assert_ptr_equal(pq_twin(t), t);
		if (c != pq_best())
			assert_ptr_equal(pq_streaming(c), t);
		if (t == c)
			continue;
		twins++;
		assert_ptr_equal(t->valid, c->valid);
		assert_true(strlen(t->name) > strlen(c->name));
		assert_memory_equal(t->name, c->name, strlen(c->name));
		assert_string_equal(t->name + strlen(c->name), "-stream");
		assert_null(pq_find(t->name));
		assert_ptr_not_equal(pq_best(), t);
		for (int w = 0; pq_all_calls[w]; w++)
			assert_ptr_not_equal(pq_all_calls[w], t);
	}
	assert_ptr_equal(pq_twin(&pq_calls_base), &pq_calls_base);
	/* avx2, avx512, avx512gfni, isal, whether this CPU runs them or not */
	assert_int_equal(twins, 4);
}

/*
 * Every streaming shape of every SIMD variant (pq_impl.h's PQ_SHAPES, forced through
 * pq_shape_forced) against base: aligned blocks (the non-temporal path), k from 1 to the maximum,
 * lengths that are not multiples of a shape's step (the 64-byte tail): generation, P alone, a
 * pair and a block with P recovered.
 */
static void shape_case(const struct pq_calls *c, int k, size_t len)
{
	struct t_stripe s;

	t_stripe_init(&s, k, len, 0);
	B->gen_pq(k, len, s.ptrs);
	uint8_t **orig = t_stripe_save(&s);

	lose(&s, k);
	lose(&s, k + 1);
	c->gen_pq(k, len, s.ptrs);
	check_restored(&s, orig);
	lose(&s, k);
	c->gen_p(k, len, s.ptrs);
	check_restored(&s, orig);
	if (k >= 2)
		recover_pair(c, &s, orig, 0, k - 1);
	recover_single(c, &s, orig, k / 2);
	t_saved_free(&s, orig);
	t_stripe_free(&s);
}

static void test_shapes(void **state)
{
	static const int ks[] = {1, 2, 3, 5, 10, 22, 62};

	for (int f = 0; pq_families[f]; f++) {
		const struct pq_family *fam = pq_families[f];

		if (!fam->twin->valid())
			continue;
		for (int sh = 0; sh < PQ_NSHAPES; sh++) {
			pq_shape_forced = sh;
			for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
				int k = ks[i];

				shape_case(fam->twin, k,
					   64 * (size_t)(2 * t_range(0, 80) + 1) + (i % 2) * 4096);
				/* the variant itself on a stripe past L2: its size rule streams, in
				 * the hot shape (odd multiple of 64 bytes: the tail too) */
				shape_case(fam->variant, k,
					   (pq_stream_min() / (size_t)(k + 2) / 128 + 1) * 128 +
					       64);
			}
		}
		pq_shape_forced = -1;
	}
}

int main(void)
{
	static const struct {
		const char *name;
		CMUnitTestFunction fn;
	} cases[] = {
	    {"gen", test_gen},
	    {"xor_and_rmw", test_xor_and_rmw},
	    {"recovery_all_pairs", test_recovery_all_pairs},
	    {"recovery_sampled", test_recovery_sampled},
	};
	struct CMUnitTest tests[64];
	static char names[64][64];
	int n = 0;

	t_seed("pq_test");
	tests[n++] = (struct CMUnitTest){.name = "json_before", .test_func = test_json_before};
	for (int v = 0; pq_all_calls[v]; v++) {
		const struct pq_calls *c = pq_all_calls[v];

		if (!c->valid()) {
			printf("pq_test: variant %s skipped: this CPU cannot run it\n", c->name);
			continue;
		}
		/* the variant, then its streaming twin if it has one */
		const struct pq_calls *run[2] = {c, pq_twin(c) != c ? pq_twin(c) : NULL};

		for (int j = 0; j < 2 && run[j]; j++)
			for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
				const struct pq_calls *t = run[j];

				snprintf(names[n], sizeof(names[n]), "%s_%s", t->name,
					 cases[i].name);
				tests[n] = (struct CMUnitTest){.name = names[n],
							       .test_func = cases[i].fn,
							       .initial_state = (void *)t};
				n++;
			}
	}
	tests[n++] = (struct CMUnitTest){.name = "map_huge", .test_func = test_map_huge};
	tests[n++] = (struct CMUnitTest){.name = "rule", .test_func = test_rule};
	tests[n++] = (struct CMUnitTest){.name = "json", .test_func = test_json};
	tests[n++] = (struct CMUnitTest){.name = "streaming", .test_func = test_streaming};
	tests[n++] = (struct CMUnitTest){.name = "shapes", .test_func = test_shapes};
	return _cmocka_run_group_tests("parity variants", tests, n, NULL, NULL);
}
