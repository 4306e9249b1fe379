/*
 * rec.h - recovery's helpers layer (raid/recovery/README.md, "Layers"): the context every
 * layer above works on (struct raid_recovery and the data of its parts: the state file's,
 * the spares', the meter's, what ran for the stats), its first error and its stop flag
 * (rec.c), the timed failures (fault.c) and the parsers and cross-checks of recovery's
 * options (rebuild_config.c). A client of the core: recovery runs in the array's own
 * recovery thread, with its own raid_queue, quiesces the ranges it rewrites (quiesce.h),
 * learns of member failures from the array's events (failure.c) and samples the core's
 * foreground meter. The I/O path never calls into it.
 */
#ifndef RAID_REC_H
#define RAID_REC_H

#include <json-c/json.h>

#include "core/identity.h"
#include "core/level.h"
#include "core/options.h"
#include "core/quiesce.h"
#include "core/service.h"
#include "recovery/helpers/rec_opts.h"

enum raid_rec_phase { RAID_REC_BEFORE, RAID_REC_DURING, RAID_REC_AFTER };

/* One per-second sample of the foreground while a rebuild is measured. */
struct raid_rec_sample {
	double t;
	enum raid_rec_phase phase;
	double iops, mbps, lat_mean_us, lat_p99_us;
};

/* What the service ran, for the stats file (valid until the array is freed). */
struct raid_rec_snapshot {
	int nrebuilt; /* members a rebuild started on; 0: none */
	int members[RAID_MAX_MEMBERS];
	const char *spares[RAID_MAX_MEMBERS];
	bool rebuild_done;
	double start_s, end_s, wait_s;
	uint64_t bytes; /* per rebuilt member */
	const struct raid_rec_sample *samples;
	size_t nsamples;
	bool scrubbed;
	uint64_t stripes, mismatches, repaired;
	bool resynced;
	uint64_t resync_bytes; /* per member */
	double resync_s;
	bool resync_bitmap;    /* only the regions the write-intent bitmap had set */
	uint64_t bitmap_chunk; /* bytes of member rows one bit covers; 0: no bitmap */
	uint64_t bitmap_syncs; /* bits made durable before a write (each one waited) */
	uint64_t re_added;     /* members re-added (raid_re_add), bit i: member i */
	uint64_t re_add_bytes; /* per member */
	double re_add_s;
};

/* the state file (blocks/state.c) */
struct rec_state {
	pthread_mutex_t mu;
	int err;		/* the last write's error, so that it is said once */
	bool unclean;		/* writes may be running: the file says "clean": false */
	bool resync_dirty;	/* the last run did not end cleanly: resync before I/O */
	bool repair_stopped;	/* a repair or resync stopped half-way: the file stays dirty */
	struct raid_ident *ids; /* each of a->m[] (identity.h); id "" if none */
	int lock_fd;		/* "<file>.lock", flocked while the array is open; -1: none */
};

/* members and spares (thread/rebuild.c, fault.c) */
struct rec_spares {
	uint64_t fail_fired; /* raid_fail entries already applied */
	bool said_nospare[RAID_MAX_MEMBERS];
	bool used[RAID_MAX_MEMBERS];
	bool said_sync_error;
	uint64_t durable_off[RAID_MAX_MEMBERS]; /* rebuilt and fdatasync'ed: the checkpoint */
};

/* per-second samples of the core's foreground meter (blocks/rebuild_window.c) */
struct rec_meter {
	bool on;
	struct raid_meter last;
	double last_t;
	struct raid_rec_sample *samples;
	size_t n, cap;
};

struct rec_intent; /* the write-intent bitmap on the array (passes/intent.c) */

struct raid_recovery {
	struct raid_array *a;
	struct raid_queue *q; /* the recovery thread's own */
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu; /* res, rb_active; init_done with cv */
	pthread_cond_t cv;
	atomic_bool closing; /* last put: finish rebuild and scrub, then stop */
	atomic_bool stop;
	bool init_done; /* resync (if asked) finished: I/O may start */
	int init_ret;
	unsigned seen_events; /* the array's event count the thread has handled */
	bool rb_active;	      /* a pass is running: samples are "during" */
	/*
	 * The first error that the job cannot see in its own I/O (a rebuild or scrub that
	 * failed, a state file that could not be written): raid_array_put returns it.
	 */
	atomic_int error;
	struct rec_state st;
	struct rec_spares sp;
	struct rec_meter mt;
	struct raid_rec_snapshot res; /* what ran, for the stats (samples: mt's) */
	struct rec_intent *in;	      /* the write-intent bitmap (passes/intent.c), or NULL */
};

/* rec.c: keep the first error for raid_array_put (the service returns it) */
void raid_rec_error(struct raid_recovery *rec, int err);
/* stop at the next window: closing without waiting, or raid_interrupt() */
bool rec_stopping(struct raid_recovery *rec);
/* raid_interrupt() (the service's hook): every array of the process stops its passes */
void rec_interrupt(void);
static inline double rec_elapsed(struct raid_recovery *rec)
{
	return raid_array_elapsed(rec->a);
}

/* fault.c: apply raid_fail entries due by `now_s`; returns the next due time (-1: none) */
double raid_rec_fail_timers(struct raid_array *a, double now_s);

/*
 * rebuild_config.c: the parsers of raid_fail and raid_re_add, the checks across recovery's
 * options, and after a struct copy of a config, owning its recovery options' strings (the
 * rows that call them are options.c's, in the service layer; reading the state file is
 * state.c's, blocks/blocks.h).
 */
int raid_rec_parse_fail(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_parse_re_add(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_config_validate(const struct raid_config *c, bool redundant, char *err, size_t errlen);
void raid_rec_config_free(struct raid_config *c);
void raid_rec_config_dup(struct raid_config *c);

#endif
