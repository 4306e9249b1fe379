/*
 * blocks.h - recovery's second layer (raid/recovery/README.md, "Layers"): what a pass is
 * built of, each file on the helpers alone: the state file (state.c), md's speed limits
 * (pace.c), the member I/O batches, window buffers and meter samples (rebuild_window.c);
 * the write-intent bitmap's file and bits have their own header (bitmap.h), tested alone.
 */
#ifndef RAID_REC_BLOCKS_H
#define RAID_REC_BLOCKS_H

#include "recovery/helpers/rec.h"

/* state.c */
/*
 * Reading the state file into a configuration and its recorded geometry against the job's
 * (layout resolved to the level's default): called by the option rows (options.c).
 */
int raid_rec_state_load(struct raid_config *c, const char *path, char *err, size_t errlen);
int raid_rec_state_check_geometry(const struct raid_config *c, int layout, char *err,
				  size_t errlen);
/*
 * Hold the state file for this process until free: an exclusive flock on "<file>.lock" (the
 * file itself is replaced by rename at every save, so a lock on it would not hold). Refused
 * while another process holds it, or when the file is no longer the one the configuration
 * read (another process wrote it in between). 0 without a state file.
 */
int raid_rec_state_lock(struct raid_array *a, char *err, size_t errlen);
/* at array open: member size and device identities against the file's */
int raid_rec_state_check(struct raid_array *a, char *err, size_t errlen);
int raid_rec_state_save(struct raid_array *a);
/* fsync the directory holding path, so that a rename into it survives a crash */
int rec_sync_dir(const char *path);

/* pace.c: md's speed_limit_min/max, driven by the caller's clock (docs/rebuild.md) */
/* most member bytes of one window: REC_WINDOWS of them in flight, one buffer per member */
#define REC_REGION_MAX (2ULL << 20)
struct rec_pace {
	uint64_t min, max;
	uint64_t last_bytes; /* the foreground meter's bytes when last seen busy */
	double last_t;
};
#define REC_IDLE_BYTES (64 * 512) /* md's is_mddev_idle(): more than 64 sectors is busy */
void rec_pace_init(struct rec_pace *p, const struct raid_recovery_config *c);
/* the rate for the next window from the meter's foreground bytes: `min` while busy, else `max` */
uint64_t rec_pace_rate(struct rec_pace *p, uint64_t fg_bytes, double now);
/* an eighth of a second's worth at `rate`, in whole units, at most REC_REGION_MAX; 0: done */
uint64_t rec_window_len(uint64_t msize, uint64_t front, uint64_t unit, uint64_t rate);
/*
 * When the next window may start, after one of `len` at `rate` started at `now` (its own
 * due time was `due`): len / rate after the later of `due` and `now` less REC_PACE_CREDIT
 * windows' time, so a pass that fell behind (a busy CPU woke it late) makes that up, as
 * md's limits hold the average rate, by at most that many windows at once.
 */
#define REC_PACE_CREDIT 4
double rec_pace_due(double due, double now, uint64_t len, uint64_t rate);

/* rebuild_window.c: the I/O of the passes and the meter's samples */
/* one member transfer through the recovery queue, split into pieces; rec_wait() runs them */
struct rec_batch {
	struct raid_request r;
	struct raid_queue *q; /* its I/Os' queue: the recovery thread's or a worker's */
	unsigned nio;	      /* member I/Os issued (0: it completes at once, nothing to reap) */
	int failed_member;    /* -1, or a member whose read failed */
};
void rec_batch_init(struct rec_batch *b, struct raid_queue *q);
void rec_io(struct raid_recovery *rec, struct rec_batch *b, enum raid_op op, int member, void *buf,
	    uint64_t moff, uint64_t len);
int rec_wait(struct raid_recovery *rec, struct rec_batch *b);
/* both batches (b2 may be NULL) in one commit; each one's error is in its r.error */
void rec_wait_all(struct raid_recovery *rec, struct rec_batch *b1, struct rec_batch *b2);
void rec_tick(struct raid_recovery *rec); /* samples the foreground meter when due */
void *rec_alloc(size_t len);

#endif
