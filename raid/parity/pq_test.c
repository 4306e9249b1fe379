/*
 * pq_test.c - every compiled variant that this CPU can run (avx2, avx512, avx512gfni, isal,
 * and base itself through the same path) against the reference pq_calls_base and against
 * ISA-L's pq_gen/xor_gen, byte for byte: every k, random lengths up to 1 MiB, unaligned and
 * aligned blocks (the latter reach the non-temporal store path), every recovery pair for
 * k <= 32 and samples above, and RMW updates against a fresh generation. Each variant's
 * streaming twin (pq_twin()) runs the same cases: on aligned blocks of any length it takes
 * the non-temporal path, tail included; every streaming shape of every SIMD variant runs
 * generation and recovery too (test_shapes). The selections' figures are checked for form.
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

/* the variant a band's winner (candidate c) names: the twin's for a shape, isal-stream for isal */
static bool names_winner(const struct pq_calls *calls, const char *cand, enum pq_use u)
{
	size_t n = strcspn(cand, " ");

	if (u == PQ_USE_STREAM && strcmp(cand, "isal") == 0)
		return strcmp(calls->name, "isal-stream") == 0;
	return strlen(calls->name) == n && strncmp(calls->name, cand, n) == 0;
}

/*
 * Hot, in a band whose stripe is past L2: each SIMD variant timed in every PQ_HOT_SHAPES shape
 * ("avx2 none"), and the shape its size rule keeps for the band the rule's choice among them;
 * below L2, once, as it is called.
 */
static void check_hot_shapes(const struct pq_selection *s)
{
	static const int shapes[PQ_HOT_NSHAPES] = PQ_HOT_SHAPES;

	for (int b = 0; b < s->nbands; b++) {
		int k = s->band[b].k;
		size_t len = s->band[b].len;
		bool past = pq_stripe_past_l2(k, len);

		for (int f = 0; pq_families[f]; f++) {
			const struct pq_family *fam = pq_families[f];
			const char *v = fam->variant->name;
			int idx[PQ_HOT_NSHAPES], n = 0, plain = 0;

			if (!fam->variant->valid())
				continue;
			for (int c = 0; c < s->n; c++) {
				char name[64];

				if (s->cand[c].k != k || s->cand[c].len != len)
					continue;
				plain += strcmp(s->cand[c].name, v) == 0;
				for (int h = 0; h < PQ_HOT_NSHAPES; h++) {
					snprintf(name, sizeof(name), "%s %s", v,
						 pq_shapes[shapes[h]].name);
					if (strcmp(s->cand[c].name, name) == 0)
						idx[n++] = c;
				}
			}
			assert_int_equal(plain, past ? 0 : 1);
			assert_int_equal(n, past ? PQ_HOT_NSHAPES : 0);
			if (!past)
				continue;
			/* the rule over the family's own, as over the band's (t_check_bands) */
			const char *want = strchr(s->cand[t_rule_pick(s, idx, n)].name, ' ') + 1;

			assert_string_equal(pq_shapes[fam->hot_shape[b]].name, want);
		}
	}
}

/*
 * The chosen variants are valid ones, timed against ISA-L's own pq_gen in every band of k and
 * length, each band's choice the rule's among its candidates, and what a call of a band's k and
 * length runs (pq_selected()) that band's winner.
 */
static void test_selection(void **state)
{
	const struct pq_calls *best = pq_best();

	assert_non_null(best);
	assert_true(best->valid());
	assert_string_equal(pq_best_name(), best->name);
	assert_null(pq_find("no-such-variant"));
	for (int u = PQ_USE_HOT; u <= PQ_USE_STREAM; u++) {
		const struct pq_selection *s = pq_selection(u);
		bool one = true;
		int isal = 0;

		assert_true(s->chosen->valid());
		if (s->forced) /* RAID_PARITY_IMPL set for this test run */
			continue;
		assert_true(s->n > 1 && s->n <= PQ_SEL_MAX);
		assert_in_range(s->best, 0, s->n - 1);
		assert_int_equal(s->nbands, PQ_SEL_BANDS);
		assert_int_equal(s->cand[s->best].k, 10);
		assert_int_equal(s->cand[s->best].len, 65536);
		assert_true(s->cpu_s > 0);
		t_check_bands(s);
		for (int b = 0; b < s->nbands; b++) {
			int k = s->band[b].k;
			size_t len = s->band[b].len;

			assert_true(
			    names_winner(s->band[b].calls, s->cand[s->band[b].best].name, u));
			assert_ptr_equal(pq_selected(u, k, len), s->band[b].calls);
			one &= s->band[b].calls == s->band[0].calls;
			assert_non_null(strstr(s->chosen->name, s->band[b].calls->name));
		}
		/* one winner everywhere: that variant itself; else the routing variant */
		if (one)
			assert_ptr_equal(s->chosen, s->band[0].calls);
		else
			assert_ptr_equal(s->chosen, u == PQ_USE_HOT ? &pq_calls_route_hot
								    : &pq_calls_route_stream);
		for (int c = 0; c < s->n; c++) {
			assert_true(s->cand[c].gbps > 0 && s->cand[c].rel > 0);
			isal += strcmp(s->cand[c].name, "isal") == 0;
			for (int d = 0; d < c; d++)
				assert_false(s->cand[c].k == s->cand[d].k &&
					     s->cand[c].len == s->cand[d].len &&
					     strcmp(s->cand[c].name, s->cand[d].name) == 0);
		}
		/* ISA-L is a candidate of both (of every band), named as such */
		assert_int_equal(isal, s->nbands);
		if (u == PQ_USE_HOT)
			check_hot_shapes(s);
	}
	assert_ptr_equal(pq_selection(PQ_USE_HOT)->chosen, best);
	assert_ptr_equal(pq_streaming(best), pq_selection(PQ_USE_STREAM)->chosen);
	/* a streaming choice is a twin: its name ends in -stream */
	const char *sn = pq_streaming(best)->name;

	assert_true(strlen(sn) > 7 && strcmp(sn + strlen(sn) - 7, "-stream") == 0);
}

/* ---- the routing variants: a spy in one band, a trap in all others ---- */

static int spy_calls, trap_calls;
static long spy_args; /* the arguments the spy saw, folded */

static void spy_gen(int k, size_t len, void **ptrs)
{
	spy_calls++, spy_args += k + (long)len;
}

static void spy_xor(int k, int a, int b, size_t len, void **ptrs)
{
	spy_calls++, spy_args += k + a + b + (long)len;
}

static void spy_recov_dp(int k, int fa, size_t len, void **ptrs)
{
	spy_calls++, spy_args += k + fa + (long)len;
}

static void trap_gen(int k, size_t len, void **ptrs)
{
	trap_calls++;
}

static void trap_xor(int k, int a, int b, size_t len, void **ptrs)
{
	trap_calls++;
}

static void trap_recov_dp(int k, int fa, size_t len, void **ptrs)
{
	trap_calls++;
}

static int one(void)
{
	return 1;
}

static const struct pq_calls spy = {"spy",   one,     spy_gen, spy_gen,
				    spy_xor, spy_xor, spy_xor, spy_recov_dp};
static const struct pq_calls trap = {"trap",   one,	 trap_gen, trap_gen,
				     trap_xor, trap_xor, trap_xor, trap_recov_dp};

/*
 * Every call of the routing variants goes to its band's entry, with its arguments, at the edges
 * of every band of k and of length: a routing that picked the wrong band (or a band function
 * that disagreed with the bands the selection timed) would hit the trap.
 */
static void test_route(void **state)
{
	static const int kb[PQ_SEL_KBANDS][2] = {{1, 6}, {7, 15}, {16, PQ_MAX_DATA}};
	static const size_t lb[PQ_SEL_LBANDS][2] = {
	    {64, 16384}, {16448, 262144}, {262208, 64 << 20}};
	const int ks[] = PQ_BAND_KS;
	const size_t lens[] = PQ_BAND_LENS;
	const struct pq_calls *keep[2][PQ_SEL_BANDS];

	pq_selection(PQ_USE_STREAM); /* both in use: nothing overwrites the routes below */
	memcpy(keep, pq_route, sizeof(keep));
	for (int u = 0; u < 2; u++) {
		const struct pq_calls *r =
		    u == PQ_USE_HOT ? &pq_calls_route_hot : &pq_calls_route_stream;

		for (int b = 0; b < PQ_SEL_BANDS; b++) {
			int kbi = b / PQ_SEL_LBANDS, lbi = b % PQ_SEL_LBANDS;

			/* the band the selection times it at is the one its calls are routed to */
			assert_int_equal(pq_sel_band(ks[kbi], lens[lbi]), b);
			for (int d = 0; d < PQ_SEL_BANDS; d++)
				pq_route[u][d] = d == b ? &spy : &trap;
			for (int e = 0; e < 4; e++) {
				int k = kb[kbi][e / 2];
				size_t len = lb[lbi][e % 2];
				long want =
				    spy_args + 6L * (k + (long)len) + 3 * (k - 1) + (k - 1) / 2;

				spy_calls = trap_calls = 0;
				r->gen_p(k, len, NULL);
				r->gen_pq(k, len, NULL);
				r->xor_p(k, 0, k - 1, len, NULL);
				r->xor_pq(k, 0, k - 1, len, NULL);
				r->recov_2d(k, 0, k - 1, len, NULL);
				r->recov_dp(k, (k - 1) / 2, len, NULL);
				assert_int_equal(trap_calls, 0);
				assert_int_equal(spy_calls, 6);
				assert_int_equal(spy_args, want);
			}
		}
	}
	memcpy(pq_route, keep, sizeof(keep));
}

/* run first: no selection has run yet, so the stats get none and nothing is started */
static void test_json_before(void **state)
{
	assert_null(pq_selection_ran(PQ_USE_HOT));
	assert_null(pq_selection_ran(PQ_USE_STREAM));
	assert_null(pq_selection_json());
}

/* the stats' view of both selections: the chosen names and every candidate's figures */
static void test_json(void **state)
{
	const struct pq_selection *hot = pq_selection(PQ_USE_HOT),
				  *st = pq_selection(PQ_USE_STREAM);
	json_object *o = pq_selection_json(), *h, *x, *v;

	assert_non_null(o);
	assert_ptr_equal(pq_selection_ran(PQ_USE_HOT), hot);
	assert_ptr_equal(pq_selection_ran(PQ_USE_STREAM), st);
	assert_true(json_object_object_get_ex(o, "hot", &h));
	assert_true(json_object_object_get_ex(h, "chosen", &v));
	assert_string_equal(json_object_get_string(v), pq_best_name());
	assert_true(json_object_object_get_ex(o, "streaming", &x));
	assert_true(json_object_object_get_ex(x, "chosen", &v));
	assert_string_equal(json_object_get_string(v), pq_streaming(pq_best())->name);
	if (!hot->forced) {
		assert_true(json_object_object_get_ex(x, "bands", &v));
		assert_int_equal(json_object_array_length(v), PQ_SEL_BANDS);
		assert_true(json_object_object_get_ex(x, "candidates", &v));
		assert_int_equal(json_object_array_length(v), st->n);
		json_object *c0 = json_object_array_get_idx(v, 0), *f;

		assert_true(json_object_object_get_ex(c0, "vs_isal", &f));
		assert_true(json_object_get_double(f) == st->cand[0].rel);
		assert_true(json_object_object_get_ex(c0, "finalist", &f));
		assert_true(json_object_get_boolean(f) == pq_sel_finalist(st, 0));
	}
	json_object_put(o);
}

/*
 * The choice rule: the first candidate (in the given order) within PQ_SEL_PREFER (1%) of the
 * fastest, not simply the fastest, so that kernels the timing cannot tell apart keep one choice.
 */
static void test_sel_pick(void **state)
{
	const double g[] = {9.95, 10.0, 9.8, 12.0};
	const int all[] = {0, 1, 2}, rev[] = {2, 1, 0}, wide[] = {0, 1, 3};

	assert_int_equal(pq_sel_pick(g, all, 3), 0); /* 0.5% slower than the fastest: a tie */
	assert_int_equal(pq_sel_pick(g, rev, 3), 1); /* 9.8 is 2% slower: not one */
	assert_int_equal(pq_sel_pick(g, wide, 3), 3);
	assert_int_equal(pq_sel_pick(g, all + 2, 1), 2);
	assert_int_equal(pq_sel_pick(g, all, 0), -1);
}

/*
 * pq_select_duel(): a band's candidates head to head, a figure a round. The reference's ratio is
 * 1 exactly in every round, a candidate named twice is timed once and gets the same figures, and
 * every figure is a ratio of two rates; a count, a round count or an index out of range, or
 * candidates of two bands, are refused.
 */
static void test_duel(void **state)
{
	for (int u = PQ_USE_HOT; u <= PQ_USE_STREAM; u++) {
		const struct pq_selection *s = pq_selection(u);
		double rel[3 * 3] = {0}; /* three candidates, three rounds */

		if (s->forced) /* RAID_PARITY_IMPL: nothing was listed */
			continue;
		int b = pq_sel_band(10, 65536), other = pq_sel_band(4, 4096);
		int ref = s->band[b].ref, best = s->band[b].best;
		int idx[] = {best, ref, best}, mixed[] = {best, s->band[other].ref};
		int bad[] = {-1, s->n};

		assert_int_equal(pq_select_duel(u, idx, 3, 3, rel), 0);
		for (int r = 0; r < 3; r++) {
			assert_true(rel[3 + r] == 1.0);
			assert_true(rel[r] > 0.05 && rel[r] < 20);
			assert_true(rel[r] == rel[6 + r]);
		}
		assert_int_equal(pq_select_duel(u, idx, 0, 3, rel), -EINVAL);
		assert_int_equal(pq_select_duel(u, idx, 3, 0, rel), -EINVAL);
		assert_int_equal(pq_select_duel(u, idx, 3, PQ_DUEL_ROUNDS_MAX + 1, rel), -EINVAL);
		assert_int_equal(pq_select_duel(u, bad, 1, 3, rel), -EINVAL);
		assert_int_equal(pq_select_duel(u, bad + 1, 1, 3, rel), -EINVAL);
		assert_int_equal(pq_select_duel(u, mixed, 2, 3, rel), -EINVAL);
	}
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
 * Every streaming shape of every SIMD variant (pq_impl.h's PQ_SHAPES) against base: aligned
 * blocks (the non-temporal path), k from 1 to the maximum, lengths that are not multiples of a
 * shape's step (the 64-byte tail), generation through the timed entry point and the twin, and
 * recovery of a pair and of a block with P.
 */
/*
 * Calls c on an aligned stripe of k blocks of len bytes against base: generation (first through
 * fam's timed entry point in shape sh, when fam is given), P alone, a pair and a block with P
 * recovered.
 */
static void shape_case(const struct pq_calls *c, const struct pq_family *fam, int sh, int k,
		       size_t len)
{
	struct t_stripe s;

	t_stripe_init(&s, k, len, 0);
	B->gen_pq(k, len, s.ptrs);
	uint8_t **orig = t_stripe_save(&s);

	if (fam) {
		lose(&s, k);
		lose(&s, k + 1);
		fam->gen_pq_shaped(sh, k, len, s.ptrs);
		check_restored(&s, orig);
	}
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
		int keep[PQ_SEL_BANDS], keep_hot[PQ_SEL_BANDS];

		memcpy(keep, fam->shape, sizeof(keep));
		memcpy(keep_hot, fam->hot_shape, sizeof(keep_hot));

		if (!fam->twin->valid())
			continue;
		for (int sh = 0; sh < PQ_NSHAPES; sh++) {
			for (int b = 0; b < PQ_SEL_BANDS; b++) { /* every k below runs shape sh */
				__atomic_store_n(&fam->shape[b], sh, __ATOMIC_RELAXED);
				__atomic_store_n(&fam->hot_shape[b], sh, __ATOMIC_RELAXED);
			}
			for (size_t i = 0; i < sizeof(ks) / sizeof(ks[0]); i++) {
				int k = ks[i];

				/* the twin, timed entry point too */
				shape_case(fam->twin, fam, sh, k,
					   64 * (size_t)(2 * t_range(0, 80) + 1) + (i % 2) * 4096);
				/* the variant itself on a stripe past L2: its size rule streams, in
				 * the hot shape (odd multiple of 64 bytes: the tail too) */
				shape_case(fam->variant, NULL, sh, k,
					   (pq_stream_min() / (size_t)(k + 2) / 128 + 1) * 128 +
					       64);
			}
		}
		for (int b = 0; b < PQ_SEL_BANDS; b++) {
			__atomic_store_n(&fam->shape[b], keep[b], __ATOMIC_RELAXED);
			__atomic_store_n(&fam->hot_shape[b], keep_hot[b], __ATOMIC_RELAXED);
		}
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
	tests[n++] = (struct CMUnitTest){.name = "sel_pick", .test_func = test_sel_pick};
	tests[n++] = (struct CMUnitTest){.name = "map_huge", .test_func = test_map_huge};
	tests[n++] = (struct CMUnitTest){.name = "json", .test_func = test_json};
	tests[n++] = (struct CMUnitTest){.name = "selection", .test_func = test_selection};
	tests[n++] = (struct CMUnitTest){.name = "route", .test_func = test_route};
	tests[n++] = (struct CMUnitTest){.name = "duel", .test_func = test_duel};
	/* the routing variants, whatever the bands chose, give base's bytes at every k and length
	 */
	static const struct pq_calls *const routed[] = {&pq_calls_route_hot,
							&pq_calls_route_stream};

	for (int j = 0; j < 2; j++)
		for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			snprintf(names[n], sizeof(names[n]), "route_%s_%s", j ? "stream" : "hot",
				 cases[i].name);
			tests[n] = (struct CMUnitTest){.name = names[n],
						       .test_func = cases[i].fn,
						       .initial_state = (void *)routed[j]};
			n++;
		}
	tests[n++] = (struct CMUnitTest){.name = "streaming", .test_func = test_streaming};
	tests[n++] = (struct CMUnitTest){.name = "shapes", .test_func = test_shapes};
	return _cmocka_run_group_tests("parity variants", tests, n, NULL, NULL);
}
