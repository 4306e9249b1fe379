/*
 * quiesce.c - the core's admission point: range quiesce, dirty rows below a front, and the
 * foreground meter (see quiesce.h).
 */
#include <errno.h>
#include <stdlib.h>

#include "level.h"
#include "quiesce.h"

int raid_quiesce_init(struct raid_array *a, bool metering)
{
	struct raid_quiesce *qs = calloc(1, sizeof(*qs));

	if (!qs)
		return -ENOMEM;
	qs->a = a;
	qs->metering = metering;
	pthread_mutex_init(&qs->mu, NULL);
	pthread_cond_init(&qs->drain_cv, NULL);
	STAILQ_INIT(&qs->parked);
	a->qs = qs;
	return 0;
}

void raid_quiesce_exit(struct raid_array *a)
{
	struct raid_quiesce *qs = a->qs;

	if (!qs)
		return;
	pthread_mutex_destroy(&qs->mu);
	pthread_cond_destroy(&qs->drain_cv);
	free(qs->dirty);
	free(qs);
	a->qs = NULL;
}

/*
 * Offer parked writes again, in their own queues (where raid_admit runs again). Each one
 * leaves the list before its post: once posted it may park again from another thread.
 */
static void repost(struct raid_park_list *list)
{
	while (!STAILQ_EMPTY(list)) {
		struct raid_request *r = STAILQ_FIRST(list);

		STAILQ_REMOVE_HEAD(list, park_link);
		raid_queue_post(r->park_q, &r->park);
	}
}

void raid_quiesce_lock(struct raid_array *a, uint64_t lo, uint64_t hi)
{
	struct raid_quiesce *qs = a->qs;
	struct raid_park_list old_parked = STAILQ_HEAD_INITIALIZER(old_parked);
	unsigned old;

	pthread_mutex_lock(&qs->mu);
	qs->win = (struct raid_range){lo, hi};
	qs->on = true;
	STAILQ_CONCAT(&old_parked, &qs->parked);
	old = qs->epoch++ & 1;
	qs->draining = old + 1;
	pthread_mutex_unlock(&qs->mu);
	repost(&old_parked);
	pthread_mutex_lock(&qs->mu);
	while (qs->cnt[old])
		pthread_cond_wait(&qs->drain_cv, &qs->mu);
	qs->draining = 0;
	pthread_mutex_unlock(&qs->mu);
}

void raid_quiesce_unlock(struct raid_array *a)
{
	struct raid_quiesce *qs = a->qs;
	struct raid_park_list old_parked = STAILQ_HEAD_INITIALIZER(old_parked);

	pthread_mutex_lock(&qs->mu);
	qs->on = false;
	STAILQ_CONCAT(&old_parked, &qs->parked);
	pthread_mutex_unlock(&qs->mu);
	repost(&old_parked);
}

bool raid_quiesce_held(struct raid_array *a)
{
	bool on;

	pthread_mutex_lock(&a->qs->mu);
	on = a->qs->on;
	pthread_mutex_unlock(&a->qs->mu);
	return on;
}

void raid_quiesce_intent(struct raid_array *a, const struct raid_intent_ops *ops)
{
	a->qs->intent = ops;
}

/* ---- dirty rows below the front ---- */

void raid_quiesce_track(struct raid_array *a, bool on, uint64_t front)
{
	pthread_mutex_lock(&a->qs->mu);
	a->qs->track = on;
	a->qs->front = front;
	pthread_mutex_unlock(&a->qs->mu);
}

bool raid_quiesce_dirty_pop(struct raid_array *a, struct raid_range *out)
{
	struct raid_quiesce *qs = a->qs;
	bool any;

	pthread_mutex_lock(&qs->mu);
	any = qs->ndirty > 0;
	if (any)
		*out = qs->dirty[--qs->ndirty];
	pthread_mutex_unlock(&qs->mu);
	return any;
}

uint64_t raid_quiesce_dirty_floor(struct raid_array *a, uint64_t front)
{
	struct raid_quiesce *qs = a->qs;

	pthread_mutex_lock(&qs->mu);
	for (size_t i = 0; i < qs->ndirty; i++)
		front = qs->dirty[i].lo < front ? qs->dirty[i].lo : front;
	pthread_mutex_unlock(&qs->mu);
	return front;
}

static void widen(struct raid_range *d, uint64_t lo, uint64_t hi)
{
	d->lo = lo < d->lo ? lo : d->lo;
	d->hi = hi > d->hi ? hi : d->hi;
}

/* Under qs->mu: the stripe rows a write touches below the front. */
static void note_dirty(struct raid_quiesce *qs, uint64_t off, uint64_t len)
{
	struct raid_array *a = qs->a;
	struct raid_loc loc;
	uint64_t seg, lo, hi;

	a->ops->map(&a->geom, off, &loc, &seg);
	lo = loc.offset / a->geom.chunk * a->geom.chunk;
	a->ops->map(&a->geom, off + len - 1, &loc, &seg);
	hi = loc.offset / a->geom.chunk * a->geom.chunk + a->geom.chunk;
	if (lo >= qs->front)
		return;
	if (hi > qs->front)
		hi = qs->front;
	if (qs->ndirty && qs->dirty[qs->ndirty - 1].hi >= lo && qs->dirty[qs->ndirty - 1].lo <= hi) {
		widen(&qs->dirty[qs->ndirty - 1], lo, hi);
		return;
	}
	if (qs->ndirty == qs->capdirty) {
		size_t cap = qs->capdirty ? qs->capdirty * 2 : 256;
		struct raid_range *p = cap <= 65536 ? realloc(qs->dirty, cap * sizeof(*p)) : NULL;

		if (!p) { /* too many: one range covering them all */
			for (size_t i = 1; i < qs->ndirty; i++)
				widen(&qs->dirty[0], qs->dirty[i].lo, qs->dirty[i].hi);
			qs->ndirty = 1;
			widen(&qs->dirty[0], lo, hi);
			return;
		}
		qs->dirty = p;
		qs->capdirty = cap;
	}
	qs->dirty[qs->ndirty++] = (struct raid_range){lo, hi};
}

/* ---- admission ---- */

static void resume_parked(struct raid_queue *q, struct raid_post *post)
{
	struct raid_request *r = (struct raid_request *)((char *)post -
							 offsetof(struct raid_request, park));

	if (!raid_admit(q, r))
		raid_request_start(q, r);
}

bool raid_admit(struct raid_queue *q, struct raid_request *r)
{
	struct raid_quiesce *qs = q->a->qs;

	if (qs->metering && !r->t_submit)
		r->t_submit = raid_now_ns();
	if (r->op != RAID_OP_WRITE) {
		r->admitted = true;
		r->qs_epoch = UINT32_MAX;
		return false;
	}
	pthread_mutex_lock(&qs->mu);
	if (qs->on && r->offset < qs->win.hi && r->offset + r->length > qs->win.lo) {
		r->park.fn = resume_parked;
		r->park_q = q;
		STAILQ_INSERT_TAIL(&qs->parked, r, park_link);
		pthread_mutex_unlock(&qs->mu);
		return true;
	}
	if (qs->track)
		note_dirty(qs, r->offset, r->length);
	r->qs_epoch = qs->epoch;
	qs->cnt[qs->epoch & 1]++;
	r->admitted = true;
	pthread_mutex_unlock(&qs->mu);
	if (qs->intent) {
		int ret = qs->intent->start(q->a, r->offset, r->length);

		if (ret) { /* its intent is not durable: nothing of it may reach a member */
			r->error = ret;
			r->retries = RAID_RETRY_MAX; /* a retry would start it past admission */
			raid_request_finish(q, r);
			return true;
		}
		r->intent = true;
	}
	return false;
}

static unsigned hist_index(uint64_t ns)
{
	uint64_t v = ns | 1;
	unsigned msb = 63 - (unsigned)__builtin_clzll(v);

	if (v < 8)
		return (unsigned)v;
	return msb * 8 + (unsigned)((v >> (msb - 3)) & 7);
}

void raid_release(struct raid_queue *q, struct raid_request *r)
{
	struct raid_quiesce *qs = q->a->qs;

	r->admitted = false;
	atomic_fetch_add_explicit(&qs->ios, 1, memory_order_relaxed);
	if (qs->metering && r->t_submit) {
		uint64_t lat = raid_now_ns() - r->t_submit;

		atomic_fetch_add_explicit(&qs->bytes, r->length, memory_order_relaxed);
		atomic_fetch_add_explicit(&qs->lat_ns, lat, memory_order_relaxed);
		atomic_fetch_add_explicit(&qs->hist[hist_index(lat)], 1, memory_order_relaxed);
	}
	r->t_submit = 0;
	if (r->intent) {
		r->intent = false;
		qs->intent->end(q->a, r->offset, r->length);
	}
	if (r->qs_epoch == UINT32_MAX)
		return;
	pthread_mutex_lock(&qs->mu);
	if (!--qs->cnt[r->qs_epoch & 1] && qs->draining)
		pthread_cond_broadcast(&qs->drain_cv);
	pthread_mutex_unlock(&qs->mu);
}

/* ---- the meter ---- */

uint64_t raid_meter_bytes(struct raid_array *a)
{
	return atomic_load(&a->qs->bytes);
}

void raid_meter_read(struct raid_array *a, struct raid_meter *out)
{
	struct raid_quiesce *qs = a->qs;

	out->ios = atomic_load(&qs->ios);
	out->bytes = atomic_load(&qs->bytes);
	out->lat_ns = atomic_load(&qs->lat_ns);
	for (int i = 0; i < RAID_HIST; i++)
		out->hist[i] = atomic_load_explicit(&qs->hist[i], memory_order_relaxed);
}
