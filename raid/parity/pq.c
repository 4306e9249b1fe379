/*
 * pq.c - the variant registry and the choice of the variant in use (timed at first use, like
 * Linux lib/raid6, or forced by RAID_PARITY_IMPL), the streaming twins' lookup, plus the
 * recovery helpers that every variant shares because they reduce to gen_p and gen_pq.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "pq.h"
#include "pq_impl.h"

const struct pq_calls *const pq_all_calls[] = {
    &pq_calls_base, &pq_calls_avx2, &pq_calls_avx512, &pq_calls_avx512gfni, &pq_calls_isal, NULL,
};

const struct pq_calls *pq_find(const char *name)
{
	for (int i = 0; pq_all_calls[i]; i++) {
		const struct pq_calls *c = pq_all_calls[i];

		if (strcmp(c->name, name) == 0)
			return c->valid() ? c : NULL;
	}
	return NULL;
}

const struct pq_calls *pq_best_native(void)
{
	/* best first: the order the bench measures them in on a machine that has them all */
	static const struct pq_calls *const pref[] = {&pq_calls_avx512gfni, &pq_calls_avx512,
						      &pq_calls_avx2};

	for (size_t i = 0; i < sizeof(pref) / sizeof(pref[0]); i++)
		if (pref[i]->valid())
			return pref[i];
	return &pq_calls_base;
}

const struct pq_calls *pq_streaming(const struct pq_calls *c)
{
	static const struct {
		const struct pq_calls *variant, *twin;
	} twins[] = {
	    {&pq_calls_avx2, &pq_calls_avx2_stream},
	    {&pq_calls_avx512, &pq_calls_avx512_stream},
	    {&pq_calls_avx512gfni, &pq_calls_avx512gfni_stream},
	};

	for (size_t i = 0; i < sizeof(twins) / sizeof(twins[0]); i++)
		if (c == twins[i].variant)
			return twins[i].twin;
	return c;
}

size_t pq_stream_min(void)
{
	static size_t l2; /* 0 until read; every thread computes the same value */
	size_t v = __atomic_load_n(&l2, __ATOMIC_RELAXED);

	if (!v) {
		long s = sysconf(_SC_LEVEL2_CACHE_SIZE);

		v = s > 0 ? (size_t)s : 1024 * 1024;
		__atomic_store_n(&l2, v, __ATOMIC_RELAXED);
	}
	return v;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/*
 * Bytes per second of gen_pq plus xor_pq (the two calls a write makes) on a short hot stripe.
 * A few milliseconds per variant: enough to rank them, short enough for every process start.
 */
#define PROBE_K 10
#define PROBE_LEN 16384
static double probe(const struct pq_calls *c, uint8_t *buf)
{
	void *ptrs[PROBE_K + 2];
	double best = 0;

	for (int i = 0; i < PROBE_K + 2; i++)
		ptrs[i] = buf + (size_t)i * PROBE_LEN;
	c->gen_pq(PROBE_K, PROBE_LEN, ptrs); /* warm caches and page in */
	for (int round = 0; round < 3; round++) {
		int n = 0;
		double t0 = now_s(), t;

		do {
			c->gen_pq(PROBE_K, PROBE_LEN, ptrs);
			c->xor_pq(PROBE_K, 2, 3, PROBE_LEN, ptrs);
			n++;
		} while ((t = now_s() - t0) < 0.002);
		double rate = n * (double)PROBE_LEN * PROBE_K / t;

		if (rate > best)
			best = rate;
	}
	return best;
}

static const struct pq_calls *chosen;
static pthread_once_t chosen_once = PTHREAD_ONCE_INIT;

static void choose(void)
{
	const char *force = getenv("RAID_PARITY_IMPL");

	if (force && *force) {
		chosen = pq_find(force);
		if (chosen)
			return;
		fprintf(stderr,
			"raid parity: RAID_PARITY_IMPL=%s is unknown or not supported on this CPU; "
			"choosing by timing\n",
			force);
	}
	chosen = &pq_calls_base;
	uint8_t *buf = malloc((size_t)(PROBE_K + 2) * PROBE_LEN);

	if (!buf)
		return; /* base needs no probe */
	for (size_t i = 0; i < (size_t)(PROBE_K + 2) * PROBE_LEN; i++)
		buf[i] = (uint8_t)(i * 131 + (i >> 9));
	double best = -1;

	for (int i = 0; pq_all_calls[i]; i++) {
		const struct pq_calls *c = pq_all_calls[i];

		if (!c->valid())
			continue;
		double r = probe(c, buf);

		if (r > best) {
			best = r;
			chosen = c;
		}
	}
	free(buf);
}

const struct pq_calls *pq_best(void)
{
	pthread_once(&chosen_once, choose);
	return chosen;
}

const char *pq_best_name(void)
{
	return pq_best()->name;
}

void pq_recov_1d_p(const struct pq_calls *c, int k, int fa, size_t len, void **ptrs)
{
	void *tmp[PQ_MAX_DATA + 2];

	/* D_fa = P ^ the other data: a gen_p with P taking D_fa's place and D_fa as the output */
	memcpy(tmp, ptrs, (size_t)(k + 1) * sizeof(void *));
	tmp[fa] = ptrs[k];
	tmp[k] = ptrs[fa];
	c->gen_p(k, len, tmp);
}

void pq_recov_dq(const struct pq_calls *c, int k, int fa, size_t len, void **ptrs)
{
	pq_recov_1d_p(c, k, fa, len, ptrs);
	/* P is rewritten with the bytes it already holds; gen_pq is the fastest way to Q */
	c->gen_pq(k, len, ptrs);
}
