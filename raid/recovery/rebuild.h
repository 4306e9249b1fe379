/*
 * rebuild.h - recovery: spares and rebuild (rebuild.c), scrub and initial resync
 * (scrub.c), timed failures and error injection (fault.c), the state file (state.c) and
 * their options (rebuild_config.c). The core calls the raid_rec_* hooks below; everything
 * else runs in the array's own recovery thread, with its own raid_queue.
 *
 * Foreground writes and recovery meet in one place: the recovery window, a volume range
 * locked while recovery reads and rewrites the member rows behind it. Writes into the
 * window park and resume by a raid_post once the window moves on; recovery takes a
 * window only after every write admitted before it has completed (two epochs of counts).
 */
#ifndef RAID_REBUILD_H
#define RAID_REBUILD_H

#include <json-c/json.h>

#include "core/level.h"

#define REC_HIST 512 /* latency buckets: 8 per power of two of nanoseconds */

enum rec_phase { REC_BEFORE, REC_DURING, REC_AFTER };

struct rec_sample {
	double t;
	enum rec_phase phase;
	double iops, mbps, lat_mean_us, lat_p99_us;
};

struct rec_park;

struct raid_recovery {
	struct raid_array *a;
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu;
	pthread_cond_t cv;	 /* the recovery thread's wake-ups */
	pthread_cond_t drain_cv; /* writes of the previous epoch completed */
	bool closing;		 /* last put: finish rebuild and scrub, then stop */
	bool stop;
	bool init_done; /* resync (if asked) finished: I/O may start */
	int init_ret;
	uint64_t t0; /* ns, the array's opening */
	/*
	 * The first error that the job cannot see in its own I/O (a rebuild or scrub that
	 * failed, a state file that could not be written): raid_array_put returns it.
	 */
	atomic_int error;

	/* the state file (state.c) */
	pthread_mutex_t state_mu;
	int state_errno;   /* the last write's error, so that it is said once */
	bool unclean;	   /* writes may be running: the file says "clean": false */
	bool resync_dirty; /* the last run did not end cleanly: resync before I/O */
	char (*ids)[160];  /* the identity of each of a->m[] (identity.h), "" if none */

	/* the recovery window */
	bool win_on;
	uint64_t win_lo, win_hi;
	unsigned epoch;
	unsigned cnt[2];   /* admitted writes in flight, by epoch parity */
	unsigned draining; /* the thread waits for cnt[draining - 1] */
	struct rec_park *parked;

	/* members and spares */
	uint64_t fail_fired; /* raid_fail entries already applied */
	bool said_failed[RAID_MAX_MEMBERS];
	bool spare_used[RAID_MAX_MEMBERS];
	atomic_bool spare_error[RAID_MAX_MEMBERS]; /* by slot: its spare failed a write */
	bool state_dirty;
	bool said_sync_error;
	uint64_t durable_off[RAID_MAX_MEMBERS]; /* rebuilt and fdatasync'ed: the checkpoint */

	/* what ran, for the stats */
	bool rebuilt;
	int rb_members[RAID_MAX_MEMBERS], rb_n;
	char *rb_spares[RAID_MAX_MEMBERS];
	double rb_start, rb_end, rb_wait;
	uint64_t rb_bytes; /* per rebuilt member */
	bool rb_active;	   /* a pass is running: samples are "during" */
	/*
	 * Parity levels write no spare below the front (their planner skips failed slots):
	 * writes there leave dirty rows that the pass rebuilds again before it ends.
	 */
	uint64_t rows_front;
	struct rec_range {
		uint64_t lo, hi;
	} * dirty;
	size_t ndirty, capdirty;
	bool scrubbed, resynced;
	uint64_t sc_stripes, sc_mismatches, sc_repaired;
	double rs_seconds;
	uint64_t rs_bytes;

	/* foreground meter: per-second samples */
	bool metering;
	atomic_uint_fast64_t fg_ios, fg_bytes, fg_lat_ns;
	atomic_uint_fast64_t hist[REC_HIST];
	uint64_t last_ios, last_bytes, last_lat, last_hist[REC_HIST];
	double last_sample;
	struct rec_sample *samples;
	size_t nsamples, capsamples;

	/* the recovery thread's queue and buffers */
	struct raid_queue *q;
};

/* rebuild_config.c: the parsers of raid_fail and raid_inject, for the option table (options.c) */
int raid_rec_parse_fail(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_parse_inject(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_config_validate(const struct raid_config *c, bool redundant, char *err, size_t errlen);
void raid_rec_config_free(struct raid_config *c);
void raid_rec_config_dup(struct raid_config *c); /* after a struct copy: own the strings */

/* rebuild.c: the array's side */
int raid_rec_spares_probe(struct raid_array *a, char *err, size_t errlen);
int raid_rec_array_init(struct raid_array *a, char *err, size_t errlen);
int raid_rec_array_stop(struct raid_array *a); /* last put: waits for rebuild and scrub */
void raid_rec_array_free(struct raid_array *a);
void raid_rec_stats(struct raid_array *a, json_object *o);

/* rebuild.c: the I/O path's side (a->rec set) */
bool raid_rec_admit(struct raid_queue *q, struct raid_request *r); /* true: parked */
void raid_rec_release(struct raid_queue *q, struct raid_request *r);
/* queue.c's: start (or restart) a request through its level */
void raid_request_start(struct raid_queue *q, struct raid_request *r);

/* fault.c: failures (md's behaviour: a member with an I/O error leaves the array) */
int raid_rec_inject(struct raid_queue *q, struct member_io *mio, int res);
void raid_rec_io_failed(struct raid_array *a, struct member_io *mio);
void raid_rec_member_failed(struct raid_array *a, int idx);
bool raid_rec_can_retry(const struct raid_array *a);
/* the recovery thread: apply raid_fail entries due by `now_s`; returns the next due time */
double raid_rec_fail_timers(struct raid_array *a, double now_s);

/* rebuild.c: services for scrub.c */
uint64_t rec_now_ns(void);
double rec_elapsed(struct raid_recovery *rec);
void rec_window_lock(struct raid_recovery *rec, uint64_t lo, uint64_t hi);
void rec_window_unlock(struct raid_recovery *rec);
/* one member transfer through the recovery queue, split into pieces; rec_wait() runs them */
struct rec_batch {
	struct raid_request r;
	int failed_member; /* -1, or a member whose read failed */
};
void rec_batch_init(struct rec_batch *b);
void rec_io(struct raid_recovery *rec, struct rec_batch *b, enum raid_op op, int member, void *buf,
	    uint64_t moff, uint64_t len);
int rec_wait(struct raid_recovery *rec, struct rec_batch *b);
/* both batches (b2 may be NULL) in one commit; each one's error is in its r.error */
void rec_wait_all(struct raid_recovery *rec, struct rec_batch *b1, struct rec_batch *b2);
void rec_tick(struct raid_recovery *rec); /* samples the foreground meter when due */
void *rec_alloc(size_t len);
void rec_parked_free(struct raid_recovery *rec); /* the writes still parked, at array free */

/* scrub.c */
int raid_rec_scrub(struct raid_recovery *rec, enum raid_scrub_mode mode, bool resync);

/* state.c */
int raid_rec_state_load(struct raid_config *c, const char *path, char *err, size_t errlen);
/* the recorded geometry against the job's (layout resolved to the level's default) */
int raid_rec_state_check_geometry(const struct raid_config *c, int layout, char *err,
				  size_t errlen);
/* at array open: member size and device identities against the file's */
int raid_rec_state_check(struct raid_array *a, char *err, size_t errlen);
int raid_rec_state_save(struct raid_array *a);

/* keep the first error for raid_array_put (rebuild.c) */
void raid_rec_error(struct raid_recovery *rec, int err);
/* stop at the next window: closing without waiting, or raid_interrupt() */
bool rec_stopping(struct raid_recovery *rec);
/* a writer opened the array: mark the state dirty before its first write */
int raid_rec_writer(struct raid_array *a, char *err, size_t errlen);

#endif
