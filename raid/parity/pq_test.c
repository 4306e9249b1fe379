/*
 * pq_test.c - every compiled variant that this CPU can run (avx2, avx512, avx512gfni, isal,
 * and base itself through the same path) against the reference pq_calls_base and against
 * ISA-L's pq_gen/xor_gen, byte for byte: every k, random lengths up to 1 MiB, unaligned and
 * aligned blocks (the latter reach the non-temporal store path), every recovery pair for
 * k <= 32 and samples above, and RMW updates against a fresh generation. Each SIMD variant's
 * streaming twin (pq_streaming()) runs the same cases: on aligned blocks of any length it takes
 * the non-temporal path, tail included. Variants this CPU cannot run are listed as skipped on
 * stdout.
 */
#include <isa-l/raid.h>

#include "pq_test_util.h"

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

/* the chosen variant is a valid one, and RAID_PARITY_IMPL is honoured (in a child process) */
static void test_selection(void **state)
{
	const struct pq_calls *best = pq_best();

	assert_non_null(best);
	assert_true(best->valid());
	assert_ptr_equal(pq_find(best->name), best);
	assert_string_equal(pq_best_name(), best->name);
	assert_null(pq_find("no-such-variant"));
}

/* twins: one per SIMD variant, distinct from every listed variant, never selected */
static void test_streaming(void **state)
{
	int twins = 0;

	for (int v = 0; pq_all_calls[v]; v++) {
		const struct pq_calls *c = pq_all_calls[v], *t = pq_streaming(c);

		assert_ptr_equal(pq_streaming(t), t);
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
	assert_ptr_equal(pq_streaming(&pq_calls_base), &pq_calls_base);
	assert_ptr_equal(pq_streaming(pq_find("isal")), pq_find("isal"));
	assert_int_equal(twins,
			 3); /* avx2, avx512, avx512gfni, whether this CPU runs them or not */
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
	for (int v = 0; pq_all_calls[v]; v++) {
		const struct pq_calls *c = pq_all_calls[v];

		if (!c->valid()) {
			printf("pq_test: variant %s skipped: this CPU cannot run it\n", c->name);
			continue;
		}
		/* the variant, then its streaming twin if it has one */
		const struct pq_calls *run[2] = {c, pq_streaming(c) != c ? pq_streaming(c) : NULL};

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
	tests[n++] = (struct CMUnitTest){.name = "selection", .test_func = test_selection};
	tests[n++] = (struct CMUnitTest){.name = "streaming", .test_func = test_streaming};
	return _cmocka_run_group_tests("parity variants", tests, n, NULL, NULL);
}
