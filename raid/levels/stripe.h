/*
 * stripe.h - the RAID5/6 stripe lock table: one holder per stripe at a time, so two
 * writes (or a write and a degraded read) of one stripe never interleave their parity
 * updates. It is also md's stripe cache: at most raid_stripe_cache stripes are held or
 * waited on as entries at once; further stripes wait for a free entry.
 *
 * Locks are hash-bucketed (one mutex per bucket, never a table-wide one), and the cache is
 * split over the buckets the way md splits its stripe cache over its hash locks. Nothing
 * here blocks: a request that cannot have its stripe now is queued, and its `granted`
 * callback runs later in whichever thread releases the stripe (it should only hand the
 * request back to its own queue, e.g. with raid_queue_post()).
 */
#ifndef RAID_STRIPE_H
#define RAID_STRIPE_H

#include <stdbool.h>
#include <stdint.h>

struct stripe_waiter {
	struct stripe_waiter *next;
	uint64_t stripe;
	void (*granted)(struct stripe_waiter *w);
};

struct stripe_table;

/* A table for at most `cache` stripes held at once (cache >= 1). */
int stripe_table_create(unsigned cache, struct stripe_table **out);
void stripe_table_destroy(struct stripe_table *t);
/*
 * Take w->stripe: true when it is held now; false when w was queued (behind the stripe's
 * holder, or for a free cache entry) and w->granted(w) will be called once it is held.
 */
bool stripe_lock(struct stripe_table *t, struct stripe_waiter *w);
/* Release a held stripe; its next waiter (if any) becomes the holder. */
void stripe_unlock(struct stripe_table *t, uint64_t stripe);
/* Stripes held or waited on right now (tests). */
unsigned stripe_table_used(struct stripe_table *t);

#endif
