/*
 * rebuild.h - recovery: spares and rebuild (rebuild.c), scrub and initial resync
 * (scrub.c), timed failures (fault.c), the state file (state.c) and their options
 * (options.c, rebuild_config.c). A client of the core: it runs in the array's own recovery thread,
 * with its own raid_queue, quiesces the ranges it rewrites (quiesce.h), learns of member
 * failures from the array's events (failure.c) and samples the core's foreground meter.
 * The I/O path never calls into it.
 */
#ifndef RAID_REBUILD_H
#define RAID_REBUILD_H

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

/* the state file (state.c) */
struct rec_state {
	pthread_mutex_t mu;
	int err;	   /* the last write's error, so that it is said once */
	bool unclean;	   /* writes may be running: the file says "clean": false */
	bool resync_dirty; /* the last run did not end cleanly: resync before I/O */
	bool repair_stopped; /* a repair or resync stopped half-way: the file stays dirty */
	struct raid_ident *ids; /* each of a->m[] (identity.h); id "" if none */
	int lock_fd;	   /* "<file>.lock", flocked while the array is open; -1: none */
};

/* members and spares (rebuild.c, fault.c) */
struct rec_spares {
	uint64_t fail_fired; /* raid_fail entries already applied */
	bool said_nospare[RAID_MAX_MEMBERS];
	bool used[RAID_MAX_MEMBERS];
	bool said_sync_error;
	uint64_t durable_off[RAID_MAX_MEMBERS]; /* rebuilt and fdatasync'ed: the checkpoint */
};

/* per-second samples of the core's foreground meter (rebuild_window.c) */
struct rec_meter {
	bool on;
	struct raid_meter last;
	double last_t;
	struct raid_rec_sample *samples;
	size_t n, cap;
};

struct raid_recovery {
	struct raid_array *a;
	struct raid_queue *q; /* the recovery thread's own */
	pthread_t thread;
	bool thread_on;
	pthread_mutex_t mu;   /* res, rb_active; init_done with cv */
	pthread_cond_t cv;
	atomic_bool closing;  /* last put: finish rebuild and scrub, then stop */
	atomic_bool stop;
	bool init_done;	      /* resync (if asked) finished: I/O may start */
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
	struct rec_intent *in;	      /* the write-intent bitmap (intent.c), or NULL */
};

/*
 * Recovery's options (options.c holds the rows and registers them with the core's table):
 * the parsers of raid_fail and raid_inject and the checks across recovery's options
 * (rebuild_config.c), reading the state file and its recorded geometry against the job's,
 * layout resolved to the level's default (state.c), and after a struct copy of a config,
 * owning its recovery options' strings.
 */
int raid_rec_parse_fail(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_parse_re_add(struct raid_config *c, const char *v, char *err, size_t errlen);
int raid_rec_state_load(struct raid_config *c, const char *path, char *err, size_t errlen);
int raid_rec_config_validate(const struct raid_config *c, bool redundant, char *err, size_t errlen);
int raid_rec_state_check_geometry(const struct raid_config *c, int layout, char *err,
				  size_t errlen);
void raid_rec_config_free(struct raid_config *c);
void raid_rec_config_dup(struct raid_config *c);
/* service.c: what the core calls (core/service.h) */
extern const struct raid_service_ops raid_recovery_service;
/* rec_stats.c: the service's keys of the stats file (its stats hook) */
void raid_rec_stats(struct raid_array *a, void *o);

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

/* rebuild.c: the recovery thread (service.c starts it) */
void *rec_thread(void *rec);

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
	struct raid_queue *q; /* the queue its I/Os go through: the recovery thread's or a worker's */
	unsigned nio;	   /* member I/Os issued (0: it completes at once, nothing to reap) */
	int failed_member; /* -1, or a member whose read failed */
};
void rec_batch_init(struct rec_batch *b, struct raid_queue *q);
void rec_io(struct raid_recovery *rec, struct rec_batch *b, enum raid_op op, int member, void *buf,
	    uint64_t moff, uint64_t len);
int rec_wait(struct raid_recovery *rec, struct rec_batch *b);
/* both batches (b2 may be NULL) in one commit; each one's error is in its r.error */
void rec_wait_all(struct raid_recovery *rec, struct rec_batch *b1, struct rec_batch *b2);
void rec_tick(struct raid_recovery *rec); /* samples the foreground meter when due */
void *rec_alloc(size_t len);

/* rebuild_pipe.c: the windows of a rebuild pass in flight (docs/rebuild.md, speed) */
#define REC_WINDOWS 4 /* in flight with raid_rebuild_workers=1 (the recovery thread alone) */
#define REC_WORKERS_MAX 8
/* in flight with W workers: W + 2, so that a worker done early finds another window */
#define REC_SLOTS_MAX (REC_WORKERS_MAX + 2)
enum rec_win_stage {
	REC_WIN_FREE,
	REC_WIN_READ,
	REC_WIN_WRITE,
	/* workers (rebuild_crew.c): waiting for one, being recovered by one, recovered */
	REC_WIN_QUEUED,
	REC_WIN_RUNNING,
	REC_WIN_DONE,
};
struct rec_win {
	uint64_t front, len, lost; /* member rows [front, front + len); members not read */
	void **bufs;		   /* one per member */
	struct raid_queue *q;	   /* the queue its I/Os go through */
	struct rec_batch b;	   /* its reads, then its writes */
	enum rec_win_stage stage;
	bool io_done; /* b was reaped */
	int tries;    /* reads again after a source failed */
	int ret;      /* a worker's result (REC_WIN_DONE) */
};
struct rec_pass {
	uint64_t targets, msize, unit;
	uint64_t front, start_front; /* retired (written) up to front; the pass began there */
	uint64_t next;		     /* where the next window starts */
	double last_cp, next_log;    /* the last checkpoint's time; the next progress line */
	bool said;		     /* why it stopped was said */
	struct rec_win win[REC_SLOTS_MAX];
	int head, n; /* the oldest window in flight; how many are */
	int nslots;  /* windows in flight at most (0: REC_WINDOWS) */
	void *bufs[REC_SLOTS_MAX][RAID_MAX_MEMBERS];
	int nworkers; /* raid_rebuild_workers > 1: that many (rebuild_crew.c); else 0 */
};
/* Rebuild from p->front to the end or a stop: 0, or why it stopped (p->front: retired). */
int rec_pass_windows(struct raid_recovery *rec, struct rec_pass *p);
/* The same with p->nworkers workers, each recovering whole windows on its own queue. */
int rec_pass_crew(struct raid_recovery *rec, struct rec_pass *p);
/* One window on its own, read, recomputed and written (redo of dirty rows; `again`: even
 * where a target's front is past it), on the recovery thread's queue or on q. */
int rec_recover_window(struct raid_recovery *rec, uint64_t targets, uint64_t front, uint64_t len,
		       void **bufs, bool again);
int rec_recover_window_on(struct raid_recovery *rec, struct raid_queue *q, uint64_t targets,
			  uint64_t front, uint64_t len, void **bufs, bool again);
/* rebuild_pipe.c, shared with rebuild_crew.c */
void rec_retire(struct raid_recovery *rec, struct rec_pass *p, struct rec_win *w);
bool rec_spare_failed(struct raid_recovery *rec, struct rec_pass *p);
static inline struct rec_win *rec_nth(struct rec_pass *p, int i)
{
	return &p->win[(p->head + i) % p->nslots];
}
/* rebuild.c: fdatasync the spares, then record `front` as their durable checkpoint */
void rec_checkpoint(struct raid_recovery *rec, uint64_t targets, uint64_t front);

/* scrub.c */
uint64_t rec_failed_set(struct raid_array *a); /* bit i: member i has failed */
int raid_rec_scrub(struct raid_recovery *rec, enum raid_scrub_mode mode, bool resync);
/* resync the member row ranges rg[] (ascending, whole chunk rows; rewritten in place):
 * redundancy rewritten where it disagrees, counted in *fixed; 0 or why it stopped */
int raid_rec_resync_rows(struct raid_recovery *rec, struct raid_range *rg, size_t n,
			 uint64_t *fixed);

/* intent.c: the write-intent bitmap on the array (raid_bitmap, raid_re_add; bitmap.h) */
struct rec_intent;
/* at open, after the state file's check: open or create the bitmap (or remove a stale one
 * when raid_bitmap=0), check raid_re_add against it, and hook the core's write admission */
int rec_intent_open(struct raid_array *a, char *err, size_t errlen);
/* the recovery thread before I/O: the resync of the set regions after an unclean stop (true
 * when the bitmap could stand for the whole resync), then the re-added members' regions */
bool rec_intent_trusted(struct raid_recovery *rec);
int rec_intent_resync(struct raid_recovery *rec);
int rec_intent_re_add(struct raid_recovery *rec);
/* the recovery thread, every wake: which failed members the bits cover, and the lazy clear */
void rec_intent_tick(struct raid_recovery *rec);
/* the last put, members flushed (`clean`: in sync): clear every idle bit; then free */
void rec_intent_stop(struct raid_recovery *rec, bool clean);
void rec_intent_free(struct raid_recovery *rec);

/* state.c */
/* at array open: member size and device identities against the file's */
/*
 * Hold the state file for this process until free: an exclusive flock on "<file>.lock" (the
 * file itself is replaced by rename at every save, so a lock on it would not hold). Refused
 * while another process holds it, or when the file is no longer the one the configuration
 * read (another process wrote it in between). 0 without a state file.
 */
int raid_rec_state_lock(struct raid_array *a, char *err, size_t errlen);
int raid_rec_state_check(struct raid_array *a, char *err, size_t errlen);
int raid_rec_state_save(struct raid_array *a);
/* fsync the directory holding path, so that a rename into it survives a crash */
int rec_sync_dir(const char *path);

/* keep the first error for raid_array_put (service.c) */
void raid_rec_error(struct raid_recovery *rec, int err);
/* stop at the next window: closing without waiting, or raid_interrupt() */
bool rec_stopping(struct raid_recovery *rec);

#endif
