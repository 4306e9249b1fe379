/*
 * passes.h - recovery's passes (raid/recovery/README.md, "Layers"), on the blocks and the
 * helpers: the rebuild's windows in flight on the recovery thread (rebuild_pipe.c) or on
 * workers (rebuild_crew.c), scrub and resync (scrub.c), and the write-intent bitmap on the
 * array (intent.c). A pass returns to the thread that runs it (thread/rebuild.c) what it did,
 * and what it needs of that thread, the checkpoint, comes down as a callback in its
 * struct rec_pass: nothing here calls up.
 */
#ifndef RAID_REC_PASSES_H
#define RAID_REC_PASSES_H

#include "recovery/blocks/blocks.h"

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
/* seconds between a pass's checkpoints (the state file's recovery offset), one or many threads */
#define CHECKPOINT_S 1.0
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
	/*
	 * The thread's (thread/rebuild.c): fdatasync the spares, then record `front` as their
	 * durable checkpoint; called about once a second while the pass runs.
	 */
	void (*checkpoint)(struct raid_recovery *rec, uint64_t targets, uint64_t front);
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

#endif
