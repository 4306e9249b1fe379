/*
 * quiesce.h - the core's admission point (quiesce.c): every request passes raid_admit()
 * when it is submitted and raid_release() when it completes. Three services hang there:
 *
 * Range quiesce (md's recovery window): raid_quiesce_lock(a, lo, hi) keeps foreground
 * writes off the volume range [lo, hi): writes into it park and resume by a raid_post to
 * their own queue once the range moves off them or is unlocked; the lock returns only
 * after every write admitted before it has completed (two epochs of in-flight counts).
 * Reads never park. While tracking is on, writes below a front of member rows are noted
 * as dirty row ranges, which a parity rebuild (whose planner does not write the spare)
 * takes back and rebuilds again.
 *
 * The foreground meter: requests completed, and while metering their bytes and latency
 * (a histogram of 8 buckets per power of two of nanoseconds), read as snapshots by
 * whoever paces or reports (the recovery service's per-second samples).
 *
 * The write-intent hook (raid_intent_ops below): a service's log of where writes run (the
 * recovery service's bitmap), told before each write is started and when it completes.
 *
 * They exist only when an array asks for them (raid_quiesce_init); a->qs is NULL
 * otherwise and the I/O path skips admission.
 */
#ifndef RAID_QUIESCE_H
#define RAID_QUIESCE_H

#include "core.h"

#define RAID_HIST 512 /* latency buckets: 8 per power of two of nanoseconds */

struct raid_range {
	uint64_t lo, hi;
};

/*
 * A write-intent log at admission (the recovery service's bitmap, recovery/intent.c): once
 * given, every write admitted calls start before the level sees it (non-zero: the write
 * fails with that error and nothing of it is issued) and end when it is released.
 */
struct raid_intent_ops {
	int (*start)(struct raid_array *a, uint64_t off, uint64_t len);
	void (*end)(struct raid_array *a, uint64_t off, uint64_t len);
};

struct raid_meter {
	uint64_t ios, bytes, lat_ns; /* completed requests; bytes and latency while metering */
	uint64_t hist[RAID_HIST];
};

struct raid_quiesce {
	struct raid_array *a;
	pthread_mutex_t mu;
	pthread_cond_t drain_cv; /* writes of the previous epoch completed */
	bool on;
	struct raid_range win;
	unsigned epoch;
	unsigned cnt[2];   /* admitted writes in flight, by epoch parity */
	unsigned draining; /* a lock waits for cnt[draining - 1] */
	STAILQ_HEAD(raid_park_list, raid_request) parked;
	/* dirty row ranges below `front` (member offsets, whole chunks) while tracking */
	bool track;
	uint64_t front;
	struct raid_range *dirty;
	size_t ndirty, capdirty;
	const struct raid_intent_ops *intent; /* NULL: none */
	/* the meter */
	bool metering;
	atomic_uint_fast64_t ios, bytes, lat_ns, hist[RAID_HIST];
};

/* Give the array its admission point; `metering`: also time every request. */
int raid_quiesce_init(struct raid_array *a, bool metering);
/* At array free: nobody is left to resume writes still parked; they are dropped. */
void raid_quiesce_exit(struct raid_array *a);

/* Give (or with NULL take back) the write-intent log; only while no write runs. */
void raid_quiesce_intent(struct raid_array *a, const struct raid_intent_ops *ops);

/* Lock [lo, hi), or move a held lock there (the writes parked in the old range are offered
 * again; those inside the new one park again). */
void raid_quiesce_lock(struct raid_array *a, uint64_t lo, uint64_t hi);
void raid_quiesce_unlock(struct raid_array *a);
bool raid_quiesce_held(struct raid_array *a);

/* Note writes below `front` as dirty rows (on), or stop noting (off; what was noted stays). */
void raid_quiesce_track(struct raid_array *a, bool on, uint64_t front);
/* Take one dirty range; false when none is left. */
bool raid_quiesce_dirty_pop(struct raid_array *a, struct raid_range *out);
/* The lowest of `front` and every dirty range's start: what a checkpoint may record. */
uint64_t raid_quiesce_dirty_floor(struct raid_array *a, uint64_t front);

/* A snapshot of the meter (relaxed: each counter is exact, the set is not atomic). */
void raid_meter_read(struct raid_array *a, struct raid_meter *out);
uint64_t raid_meter_bytes(struct raid_array *a); /* 0 unless metering */
/* The latency a histogram bucket stands for, in ns. */
static inline double raid_hist_value(unsigned i)
{
	if (i < 8)
		return i;
	return (double)((8ULL + (i & 7)) << (i / 8 - 3));
}

/* The I/O path (queue.c): true when the request was parked (a post resumes it), or failed
 * at once because the write-intent log could not take it (it is finished, with its error). */
bool raid_admit(struct raid_queue *q, struct raid_request *r);
void raid_release(struct raid_queue *q, struct raid_request *r);

#endif
