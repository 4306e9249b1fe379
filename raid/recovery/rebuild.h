/*
 * rebuild.h - recovery: spares and rebuild (rebuild.c), scrub and initial resync
 * (scrub.c), timed failures (fault.c), the state file (state.c) and their options
 * (rebuild_config.c). A client of the core: it runs in the array's own recovery thread,
 * with its own raid_queue, quiesces the ranges it rewrites (quiesce.h), learns of member
 * failures from the array's events (failure.c) and samples the core's foreground meter.
 * The I/O path never calls into it.
 */
#ifndef RAID_REBUILD_H
#define RAID_REBUILD_H

#include <json-c/json.h>

#include "core/level.h"
#include "core/quiesce.h"

enum rec_phase { REC_BEFORE, REC_DURING, REC_AFTER };

struct rec_sample {
	double t;
	enum rec_phase phase;
	double iops, mbps, lat_mean_us, lat_p99_us;
};

struct raid_recovery {
	struct raid_array *a;
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu;
	pthread_cond_t cv; /* init_done */
	atomic_bool closing; /* last put: finish rebuild and scrub, then stop */
	atomic_bool stop;
	bool init_done; /* resync (if asked) finished: I/O may start */
	int init_ret;
	unsigned seen_events; /* the array's event count the thread has handled */
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

	/* members and spares */
	uint64_t fail_fired; /* raid_fail entries already applied */
	bool said_nospare[RAID_MAX_MEMBERS];
	bool spare_used[RAID_MAX_MEMBERS];
	bool said_sync_error;
	uint64_t durable_off[RAID_MAX_MEMBERS]; /* rebuilt and fdatasync'ed: the checkpoint */

	/* what ran, for the stats */
	bool rebuilt;
	int rb_members[RAID_MAX_MEMBERS], rb_n;
	char *rb_spares[RAID_MAX_MEMBERS];
	double rb_start, rb_end, rb_wait;
	uint64_t rb_bytes; /* per rebuilt member */
	bool rb_active;	   /* a pass is running: samples are "during" */
	bool scrubbed, resynced;
	uint64_t sc_stripes, sc_mismatches, sc_repaired;
	double rs_seconds;
	uint64_t rs_bytes;

	/* per-second samples of the core's foreground meter */
	bool metering;
	struct raid_meter last;
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

/* fault.c: apply raid_fail entries due by `now_s`; returns the next due time (-1: none) */
double raid_rec_fail_timers(struct raid_array *a, double now_s);

/* rebuild_window.c: services for rebuild.c and scrub.c */
static inline double rec_elapsed(struct raid_recovery *rec)
{
	return raid_array_elapsed(rec->a);
}
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
