/*
 * pq_ranges_test.c - the GPU context's registry of pinned memory (pq_ranges.c), on every
 * machine: lookups against a brute-force model over random adds and removes (overlaps
 * refused, ranges found only when they hold the whole span), and lookups racing adds and
 * removes from other threads, as fio job threads submit while others allocate scratch.
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "pq_ranges.h"

#define SLOTS 512
#define SPAN 4096 /* model slot i is [i * SPAN, i * SPAN + len) of a fake address space */

static uint64_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static char *addr(int slot, size_t off)
{
	return (char *)(uintptr_t)(0x10000000ULL + (uint64_t)slot * SPAN + off);
}

static void test_model(void **state)
{
	struct pq_ranges s;
	size_t len[SLOTS] = {0}; /* 0: not registered */
	uint64_t seed = 0x9e3779b97f4a7c15ULL;

	assert_int_equal(pq_ranges_init(&s), 0);
	for (int step = 0; step < 200000; step++) {
		int i = (int)(rnd(&seed) % SLOTS);
		uint64_t what = rnd(&seed) % 4;

		if (what == 0) {
			/* a range of up to 2 slots: overlapping the next one is refused */
			size_t l = 64 + rnd(&seed) % (2 * SPAN - 64);
			bool clash = len[i] || (l > SPAN && i + 1 < SLOTS && len[i + 1]) ||
				     (i > 0 && len[i - 1] > SPAN);
			struct pq_range r = {.base = addr(i, 0), .len = l, .alloc = 1};
			int ret;

			if (l > SPAN && i + 1 == SLOTS)
				continue;
			ret = pq_ranges_add(&s, &r);
			assert_int_equal(ret, clash ? -EEXIST : 0);
			if (!clash)
				len[i] = l;
		} else if (what == 1) {
			struct pq_range out;
			int ret = pq_ranges_del(&s, addr(i, 0), 1, &out);

			assert_int_equal(ret, len[i] ? 0 : -ENOENT);
			if (len[i])
				assert_int_equal(out.len, len[i]);
			len[i] = 0;
		} else {
			size_t off = rnd(&seed) % SPAN, l = 1 + rnd(&seed) % SPAN;
			const struct pq_range *r;
			bool want = len[i] && off + l <= len[i];

			/* a range that starts in the slot before may also hold the span */
			if (!want && i > 0 && len[i - 1] > SPAN)
				want = SPAN + off + l <= len[i - 1];
			pq_ranges_rdlock(&s);
			r = pq_ranges_find(&s, addr(i, off), l);
			assert_int_equal(r != NULL, want);
			pq_ranges_unlock(&s);
		}
	}
	pq_ranges_destroy(&s);
}

struct racer {
	struct pq_ranges *s;
	int id;
	long finds;
};

/* Each thread owns slots id, id + 4, ...: it adds and removes them and looks them up. */
static void *race(void *arg)
{
	struct racer *r = arg;
	uint64_t seed = 0x1234567ULL * (uint64_t)(r->id + 1);
	bool have[SLOTS] = {false};

	for (int step = 0; step < 100000; step++) {
		int i = r->id + 4 * (int)(rnd(&seed) % (SLOTS / 4));
		struct pq_range x = {.base = addr(i, 0), .len = SPAN, .alloc = 1}, out;

		if (!have[i]) {
			if (pq_ranges_add(r->s, &x))
				fail_msg("thread %d: add of its own slot %d refused", r->id, i);
			have[i] = true;
		} else if (rnd(&seed) % 2) {
			if (pq_ranges_del(r->s, addr(i, 0), 1, &out))
				fail_msg("thread %d: its slot %d vanished", r->id, i);
			have[i] = false;
		}
		pq_ranges_rdlock(r->s);
		if ((pq_ranges_find(r->s, addr(i, 100), 200) != NULL) != have[i])
			fail_msg("thread %d: lookup of slot %d wrong", r->id, i);
		pq_ranges_unlock(r->s);
		r->finds++;
	}
	return NULL;
}

static void test_race(void **state)
{
	struct pq_ranges s;
	struct racer r[4];
	pthread_t t[4];

	assert_int_equal(pq_ranges_init(&s), 0);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct racer){.s = &s, .id = i};
		assert_int_equal(pthread_create(&t[i], NULL, race, &r[i]), 0);
	}
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	pq_ranges_destroy(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),
	    cmocka_unit_test(test_race),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
