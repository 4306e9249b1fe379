/*
 * pq_ranges.c - the registry of pinned host memory of a GPU context (pq_ranges.h).
 */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "pq_ranges.h"

int pq_ranges_init(struct pq_ranges *s)
{
	memset(s, 0, sizeof(*s));
	return -pthread_rwlock_init(&s->lock, NULL);
}

void pq_ranges_destroy(struct pq_ranges *s)
{
	free(s->r);
	pthread_rwlock_destroy(&s->lock);
	s->r = NULL;
	s->n = s->cap = 0;
}

/* The first range whose base is above p (so the one that may hold p is just before it). */
static int upper(const struct pq_ranges *s, uintptr_t p)
{
	int lo = 0, hi = s->n;

	while (lo < hi) {
		int mid = lo + (hi - lo) / 2;

		if ((uintptr_t)s->r[mid].base <= p)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

int pq_ranges_add(struct pq_ranges *s, const struct pq_range *r)
{
	uintptr_t b = (uintptr_t)r->base;
	int i, ret = 0;

	pthread_rwlock_wrlock(&s->lock);
	i = upper(s, b);
	if ((i > 0 && (uintptr_t)s->r[i - 1].base + s->r[i - 1].len > b) ||
	    (i < s->n && b + r->len > (uintptr_t)s->r[i].base)) {
		ret = -EEXIST;
		goto out;
	}
	if (s->n == s->cap) {
		int cap = s->cap ? 2 * s->cap : 16;
		struct pq_range *n = realloc(s->r, (size_t)cap * sizeof(*n));

		if (!n) {
			ret = -ENOMEM;
			goto out;
		}
		s->r = n;
		s->cap = cap;
	}
	memmove(&s->r[i + 1], &s->r[i], (size_t)(s->n - i) * sizeof(*s->r));
	s->r[i] = *r;
	s->n++;
out:
	pthread_rwlock_unlock(&s->lock);
	return ret;
}

int pq_ranges_del(struct pq_ranges *s, const void *base, int alloc, struct pq_range *out)
{
	int i, ret = -ENOENT;

	pthread_rwlock_wrlock(&s->lock);
	i = upper(s, (uintptr_t)base) - 1;
	if (i >= 0 && s->r[i].base == base && s->r[i].alloc == alloc) {
		*out = s->r[i];
		memmove(&s->r[i], &s->r[i + 1], (size_t)(s->n - i - 1) * sizeof(*s->r));
		s->n--;
		ret = 0;
	}
	pthread_rwlock_unlock(&s->lock);
	return ret;
}

void pq_ranges_rdlock(struct pq_ranges *s)
{
	pthread_rwlock_rdlock(&s->lock);
}

void pq_ranges_unlock(struct pq_ranges *s)
{
	pthread_rwlock_unlock(&s->lock);
}

const struct pq_range *pq_ranges_find(const struct pq_ranges *s, const void *p, size_t len)
{
	uintptr_t a = (uintptr_t)p;
	int i = upper(s, a) - 1;

	if (i < 0 || a + len < a)
		return NULL;
	if (a + len > (uintptr_t)s->r[i].base + s->r[i].len)
		return NULL;
	return &s->r[i];
}
