/*
 * stripe.c - the stripe lock table (see stripe.h): buckets of a few entries each, an entry
 * per active stripe with its FIFO of waiters, and per bucket a FIFO of stripes waiting for
 * a free entry. Waiters are woken outside the bucket lock, in FIFO order.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>

#include "stripe.h"

struct stripe_ent {
	uint64_t stripe;
	bool used;
	struct stripe_waiter *head, *tail; /* waiting for this stripe, in arrival order */
};

struct stripe_bucket {
	pthread_mutex_t lock;
	unsigned cap, used;
	struct stripe_ent *ents;
	struct stripe_waiter *full_head, *full_tail; /* waiting for a free entry */
} __attribute__((aligned(64)));

struct stripe_table {
	unsigned nb;
	struct stripe_bucket b[];
};

/* About four entries a bucket: short scans, and enough buckets that threads rarely meet. */
#define ENTS_PER_BUCKET 4
#define MAX_BUCKETS 65536

int stripe_table_create(unsigned cache, struct stripe_table **out)
{
	unsigned nb = cache / ENTS_PER_BUCKET;
	struct stripe_table *t;

	if (!cache)
		return -EINVAL;
	nb = nb < 1 ? 1 : nb > MAX_BUCKETS ? MAX_BUCKETS : nb;
	t = calloc(1, sizeof(*t) + nb * sizeof(t->b[0]));
	if (!t)
		return -ENOMEM;
	t->nb = nb;
	for (unsigned i = 0; i < nb; i++) {
		struct stripe_bucket *b = &t->b[i];

		pthread_mutex_init(&b->lock, NULL);
		b->cap = cache / nb + (i < cache % nb);
		b->ents = calloc(b->cap, sizeof(*b->ents));
		if (!b->ents) {
			t->nb = i + 1;
			stripe_table_destroy(t);
			return -ENOMEM;
		}
	}
	*out = t;
	return 0;
}

void stripe_table_destroy(struct stripe_table *t)
{
	if (!t)
		return;
	for (unsigned i = 0; i < t->nb; i++) {
		pthread_mutex_destroy(&t->b[i].lock);
		free(t->b[i].ents);
	}
	free(t);
}

static struct stripe_bucket *bucket(struct stripe_table *t, uint64_t stripe)
{
	/* neighbouring stripes land in different buckets */
	return &t->b[(stripe * 0x9E3779B97F4A7C15ULL >> 32) % t->nb];
}

static struct stripe_ent *find(struct stripe_bucket *b, uint64_t stripe)
{
	for (unsigned i = 0; i < b->cap; i++)
		if (b->ents[i].used && b->ents[i].stripe == stripe)
			return &b->ents[i];
	return NULL;
}

static struct stripe_ent *take_free(struct stripe_bucket *b, uint64_t stripe)
{
	if (b->used == b->cap)
		return NULL;
	for (unsigned i = 0; i < b->cap; i++) {
		struct stripe_ent *e = &b->ents[i];

		if (!e->used) {
			e->used = true;
			e->stripe = stripe;
			e->head = e->tail = NULL;
			b->used++;
			return e;
		}
	}
	return NULL;
}

static void push(struct stripe_waiter **head, struct stripe_waiter **tail, struct stripe_waiter *w)
{
	w->next = NULL;
	if (*tail)
		(*tail)->next = w;
	else
		*head = w;
	*tail = w;
}

bool stripe_lock(struct stripe_table *t, struct stripe_waiter *w)
{
	struct stripe_bucket *b = bucket(t, w->stripe);
	struct stripe_ent *e;
	bool held = false;

	pthread_mutex_lock(&b->lock);
	e = find(b, w->stripe);
	if (e)
		push(&e->head, &e->tail, w);
	else if (!b->full_head && take_free(b, w->stripe))
		held = true;
	else
		push(&b->full_head, &b->full_tail, w);
	pthread_mutex_unlock(&b->lock);
	return held;
}

static struct stripe_waiter *pop(struct stripe_waiter **head, struct stripe_waiter **tail)
{
	struct stripe_waiter *w = *head;

	*head = w->next;
	if (!*head)
		*tail = NULL;
	w->next = NULL;
	return w;
}

void stripe_unlock(struct stripe_table *t, uint64_t stripe)
{
	struct stripe_bucket *b = bucket(t, stripe);
	struct stripe_waiter *wake = NULL, *wake_tail = NULL;
	struct stripe_ent *e;

	pthread_mutex_lock(&b->lock);
	e = find(b, stripe);
	if (e && e->head) {
		push(&wake, &wake_tail, pop(&e->head, &e->tail));
	} else if (e) {
		e->used = false;
		b->used--;
		/* an entry is free: hand it to the stripes waiting for one, in order */
		while (b->full_head) {
			struct stripe_ent *x = find(b, b->full_head->stripe);

			if (x) {
				struct stripe_waiter *w = pop(&b->full_head, &b->full_tail);

				push(&x->head, &x->tail, w);
			} else if (take_free(b, b->full_head->stripe)) {
				push(&wake, &wake_tail, pop(&b->full_head, &b->full_tail));
			} else {
				break;
			}
		}
	}
	pthread_mutex_unlock(&b->lock);
	while (wake) {
		struct stripe_waiter *next = wake->next;

		wake->granted(wake);
		wake = next;
	}
}

unsigned stripe_table_used(struct stripe_table *t)
{
	unsigned n = 0;

	for (unsigned i = 0; i < t->nb; i++) {
		pthread_mutex_lock(&t->b[i].lock);
		n += t->b[i].used;
		pthread_mutex_unlock(&t->b[i].lock);
	}
	return n;
}
