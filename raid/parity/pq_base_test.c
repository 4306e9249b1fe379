/*
 * pq_base_test.c - the scalar reference (`pq_calls_base`) and the field tables checked
 * against the table-free bytewise model in pq_test_util.h, and against ISA-L's pq_gen and
 * xor_gen. Everything else (SIMD variants, CUDA) is tested against `base`, so this file is
 * what makes `base` trustworthy.
 */
#include <isa-l/raid.h>

#include "pq_test_util.h"

static const struct pq_calls *B = &pq_calls_base;

static void test_tables(void **state)
{
	for (int a = 0; a < 256; a++) {
		for (int b = 0; b < 256; b++)
			assert_int_equal(pq_gf_mul(a, b), m_mul(a, b));
		if (a) {
			assert_int_equal(m_mul(a, pq_gf_inv(a)), 1);
			assert_int_equal(pq_gf_exp[pq_gf_log[a]], a);
		}
	}
	for (int i = 0; i < 510; i++)
		assert_int_equal(pq_gf_exp[i], m_pow2(i % 255));
	/* g = 2 generates the whole group: every non-zero byte appears once in exp[0..254] */
	int seen[256] = {0};

	for (int i = 0; i < 255; i++)
		seen[pq_gf_exp[i]]++;
	for (int a = 1; a < 256; a++)
		assert_int_equal(seen[a], 1);
	/* what n biased multiplications by g leave in a Horner sum (pq_impl.h) */
	uint8_t e = 0;

	for (int n = 0; n < PQ_MAX_DATA + 2; n++) {
		assert_int_equal(pq_horner_bias[n], e);
		e = m_mul(e, 2) ^ 0x1d;
	}
}

/* gen_p and gen_pq equal the model for every k, random lengths, unaligned blocks */
static void test_gen_vs_model(void **state)
{
	for (int k = 1; k <= PQ_MAX_DATA; k++) {
		struct t_stripe s;
		size_t len = t_len(k > 16 ? 4096 : 16384);

		t_stripe_init(&s, k, len, -1);
		uint8_t *p = malloc(len), *q = malloc(len);

		m_syndrome(0, k - 1, len, s.ptrs, p, q);
		B->gen_p(k, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], p, len);
		t_fill(s.ptrs[k], len);
		B->gen_pq(k, len, s.ptrs);
		assert_memory_equal(s.ptrs[k], p, len);
		assert_memory_equal(s.ptrs[k + 1], q, len);
		t_stripe_check_guards(&s);
		free(p);
		free(q);
		t_stripe_free(&s);
	}
}

/* xor_p and xor_pq fold exactly D_a..D_b (g^i-weighted in Q) into the parities */
static void test_xor_vs_model(void **state)
{
	for (int iter = 0; iter < 200; iter++) {
		int k = t_range(1, PQ_MAX_DATA);
		int a = t_range(0, k - 1), b = t_range(a, k - 1);
		size_t len = t_len(2048);
		struct t_stripe s;

		t_stripe_init(&s, k, len, -1);
		uint8_t *p = malloc(len), *q = malloc(len);
		uint8_t **old = t_stripe_save(&s);

		m_syndrome(a, b, len, s.ptrs, p, q);
		B->xor_pq(k, a, b, len, s.ptrs);
		for (size_t j = 0; j < len; j++) {
			assert_int_equal(((uint8_t *)s.ptrs[k])[j], old[k][j] ^ p[j]);
			assert_int_equal(((uint8_t *)s.ptrs[k + 1])[j], old[k + 1][j] ^ q[j]);
		}
		memcpy(s.ptrs[k], old[k], len);
		B->xor_p(k, a, b, len, s.ptrs);
		for (size_t j = 0; j < len; j++)
			assert_int_equal(((uint8_t *)s.ptrs[k])[j], old[k][j] ^ p[j]);
		for (int i = 0; i < k; i++)
			assert_memory_equal(s.ptrs[i], old[i], len);
		t_stripe_check_guards(&s);
		t_saved_free(&s, old);
		free(p);
		free(q);
		t_stripe_free(&s);
	}
}

/* a stripe whose P and Q come from the model, so recovery is checked against the truth */
static void model_stripe(struct t_stripe *s, int k, size_t len)
{
	t_stripe_init(s, k, len, -1);
	m_syndrome(0, k - 1, len, s->ptrs, s->ptrs[k], s->ptrs[k + 1]);
}

static void check_restored(struct t_stripe *s, uint8_t **orig)
{
	for (int i = 0; i < s->k + 2; i++)
		assert_memory_equal(s->ptrs[i], orig[i], s->len);
	t_stripe_check_guards(s);
}

/* every failure pair (two data, data + P, data + Q, one data from P) for k up to 32 */
static void test_recovery_all_pairs(void **state)
{
	for (int k = 1; k <= 32; k++) {
		struct t_stripe s;

		model_stripe(&s, k, t_len(256));
		uint8_t **orig = t_stripe_save(&s);

		for (int fa = 0; fa < k; fa++) {
			for (int fb = fa + 1; fb < k; fb++) {
				t_fill(s.ptrs[fa], s.len);
				t_fill(s.ptrs[fb], s.len);
				B->recov_2d(k, fa, fb, s.len, s.ptrs);
				check_restored(&s, orig);
			}
			t_fill(s.ptrs[fa], s.len);
			t_fill(s.ptrs[k], s.len);
			B->recov_dp(k, fa, s.len, s.ptrs);
			check_restored(&s, orig);

			t_fill(s.ptrs[fa], s.len);
			t_fill(s.ptrs[k + 1], s.len);
			pq_recov_dq(B, k, fa, s.len, s.ptrs);
			check_restored(&s, orig);

			t_fill(s.ptrs[fa], s.len);
			pq_recov_1d_p(B, k, fa, s.len, s.ptrs);
			check_restored(&s, orig);
		}
		/* P and Q both lost: regenerate */
		t_fill(s.ptrs[k], s.len);
		t_fill(s.ptrs[k + 1], s.len);
		B->gen_pq(k, s.len, s.ptrs);
		check_restored(&s, orig);
		t_saved_free(&s, orig);
		t_stripe_free(&s);
	}
}

/* above 32 data blocks: sampled pairs, always including the extremes */
static void test_recovery_sampled(void **state)
{
	for (int iter = 0; iter < 60; iter++) {
		int k = t_range(33, PQ_MAX_DATA);
		int fa = iter % 3 == 0 ? 0 : t_range(0, k - 2);
		int fb = iter % 3 == 1 ? k - 1 : t_range(fa + 1, k - 1);
		struct t_stripe s;

		model_stripe(&s, k, t_len(4096));
		uint8_t **orig = t_stripe_save(&s);

		t_fill(s.ptrs[fa], s.len);
		t_fill(s.ptrs[fb], s.len);
		B->recov_2d(k, fa, fb, s.len, s.ptrs);
		check_restored(&s, orig);
		t_fill(s.ptrs[fb], s.len);
		t_fill(s.ptrs[k], s.len);
		B->recov_dp(k, fb, s.len, s.ptrs);
		check_restored(&s, orig);
		t_saved_free(&s, orig);
		t_stripe_free(&s);
	}
}

/* ISA-L's pq_gen and xor_gen agree with base byte for byte (ISA-L wants 32-byte alignment) */
static void test_base_vs_isal(void **state)
{
	for (int k = 1; k <= PQ_MAX_DATA; k++) {
		struct t_stripe s;
		size_t len = t_len(k > 16 ? 65536 : 262144);

		t_stripe_init(&s, k, len, 32 * t_range(0, 1));
		uint8_t **ours;

		B->gen_pq(k, len, s.ptrs);
		ours = t_stripe_save(&s);
		/* ISA-L refuses a single source (k = 1): P and Q are then copies of D_0 */
		assert_int_equal(pq_gen(k + 2, (int)len, s.ptrs), k < 2);
		if (k >= 2) {
			t_fill(s.ptrs[k], len);
			t_fill(s.ptrs[k + 1], len);
			assert_int_equal(pq_gen(k + 2, (int)len, s.ptrs), 0);
			assert_memory_equal(s.ptrs[k], ours[k], len);
			assert_memory_equal(s.ptrs[k + 1], ours[k + 1], len);
			t_fill(s.ptrs[k], len);
			assert_int_equal(xor_gen(k + 1, (int)len, s.ptrs), 0);
			assert_memory_equal(s.ptrs[k], ours[k], len);
		} else {
			assert_memory_equal(ours[k], ours[0], len);
			assert_memory_equal(ours[k + 1], ours[0], len);
		}
		t_saved_free(&s, ours);
		t_stripe_free(&s);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_tables),	     cmocka_unit_test(test_gen_vs_model),
	    cmocka_unit_test(test_xor_vs_model),     cmocka_unit_test(test_recovery_all_pairs),
	    cmocka_unit_test(test_recovery_sampled), cmocka_unit_test(test_base_vs_isal),
	};

	t_seed("pq_base_test");
	return cmocka_run_group_tests_name("parity base", tests, NULL, NULL);
}
