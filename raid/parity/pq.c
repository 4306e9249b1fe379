/*
 * pq.c - the variant registry, the streaming twins' lookup and shapes, plus the recovery
 * helpers that every variant shares because they reduce to gen_p and gen_pq. Which variant and
 * shape a CPU runs is the rule's (pq_rule.c).
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
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

const struct pq_family *const pq_families[] = {&pq_family_avx512gfni, &pq_family_avx512,
					       &pq_family_avx2, NULL};

#define SHAPE_ROW(i, name, lines, pf, dist) [i] = {name, lines, pf, dist},
const struct pq_shape pq_shapes[PQ_NSHAPES] = {PQ_SHAPES(SHAPE_ROW)};

const struct pq_family *pq_family_of(const struct pq_calls *c)
{
	for (int i = 0; pq_families[i]; i++)
		if (c == pq_families[i]->variant)
			return pq_families[i];
	return NULL;
}

const struct pq_calls *pq_twin(const struct pq_calls *c)
{
	if (c == &pq_calls_isal)
		return &pq_calls_isal_stream;
	const struct pq_family *f = pq_family_of(c);

	return f ? f->twin : c;
}

void *pq_map_huge(size_t n)
{
	const size_t huge = 2u << 20;

	n = (n + 4095) & ~(size_t)4095;
	uint8_t *m =
	    mmap(NULL, n + huge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (m == MAP_FAILED)
		return NULL;
	uint8_t *p = (uint8_t *)(((uintptr_t)m + huge - 1) & ~(uintptr_t)(huge - 1));

	/* what is not needed on either side goes back: munmap(p, n) frees the rest */
	if (p > m)
		munmap(m, p - m);
	munmap(p + n, m + huge - p);
	madvise(p, n, MADV_HUGEPAGE);
	return p;
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
