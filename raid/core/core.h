/*
 * core.h - the library's internal shapes: the array and its members, the per-thread queue,
 * and the counters behind the stats file. Shared by the core files, the level
 * personalities and the backends; never included by the fio adapter.
 */
#ifndef RAID_CORE_H
#define RAID_CORE_H

#include <pthread.h>
#include <stdatomic.h>

#include "geom.h"
#include "member.h"
#include "raid.h"

/* devices of an array: up to RAID_MAX_MEMBERS members, then up to as many spares */
#define RAID_MAX_DEVICES (2 * RAID_MAX_MEMBERS)

struct raid_level_ops;
struct merge_carrier;

struct raid_counters {
	uint64_t reads, writes, read_bytes, write_bytes;	 /* volume */
	uint64_t m_reads, m_writes, m_read_bytes, m_write_bytes; /* member I/O */
	uint64_t degraded_reads;
	uint64_t errors;
	/* RAID5/6: how writes touched the stripes, and the parity work */
	uint64_t full_stripe, rcw, rmw;
	uint64_t parity_bytes, parity_ns;
	uint64_t stripe_lock_waits;
	/* the GPU path: launches, the stripes they carried, stripes the CPU did instead */
	uint64_t gpu_launches, gpu_stripes, gpu_cpu_stripes;
	uint64_t gpu_inplace_stripes; /* whose new data the GPU read from the caller's buffers */
	/* member I/Os folded into another one by the queue's plug (merge.c) */
	uint64_t merged;
};

struct raid_member {
	char *path;
	int fd[2];   /* [0] buffered, [1] O_DIRECT; -1 until a queue needs it */
	int lock_fd; /* holds the flock that keeps other processes off this member */
	atomic_bool failed;
	atomic_uint inflight; /* member I/Os in flight from every queue: read balancing */
	/*
	 * The device (index into a->m[]: itself, or a spare) that this slot's I/O goes to.
	 * While a failed slot is rebuilt onto a spare, writes below recovery_offset go to
	 * the spare too (md's recovery_offset); reads wait for the rebuild to end.
	 */
	atomic_int dev;
	_Atomic uint64_t recovery_offset;
	/* the spare serving this slot failed a write (failure.c), or its rebuild gave up */
	atomic_bool spare_failed;
	bool said_failed; /* the "member failed" line is printed once (under a->lock) */
	unsigned char *ram; /* raid_backend=ram: the member's bytes */
};

/* The GPU of raid_parity=cuda|auto, for the stats (set by the level at array init). */
struct raid_gpu_info {
	int device, batch;
	bool mapped;
	char desc[160];
};

struct raid_array {
	struct raid_array *next; /* registry */
	int refs;
	char *key;		/* real paths of the members, for the registry */
	struct raid_config cfg; /* private copy (owns its strings) */
	struct raid_geom geom;
	uint64_t size;
	const struct raid_level_ops *ops;
	const struct member_backend_ops *be;
	int lock_mode; /* 0 none, LOCK_SH, LOCK_EX */
	void *level_priv;
	const char *parity_impl;   /* the CPU's parity variant (pq_calls name), NULL: none */
	const char *parity_used;   /* what computes parity: "cpu", "isal", "cuda"; NULL: none */
	const char *parity_note;   /* why raid_parity=auto did not take the GPU, or NULL */
	struct raid_gpu_info *gpu; /* the GPU computing parity, or NULL */
	pthread_mutex_t lock;	   /* fds, totals, failure messages */
	struct raid_counters totals;
	bool said_lost;		   /* the "every copy failed" message is printed once */
	bool said_error;	   /* so is the first member I/O error */
	struct raid_quiesce *qs;   /* admission: range quiesce and meter (quiesce.h), or NULL */
	struct raid_recovery *rec; /* rebuild.c: spares, failures, scrub; NULL when unused */
	uint64_t t0;		   /* ns (raid_now_ns), when the array opened for I/O */
	/* events (failure.c): a member failed; a recovery service waits for the count to move */
	pthread_mutex_t ev_mu;
	pthread_cond_t ev_cv;
	unsigned ev_gen;
	/*
	 * Failures a record must hold before a write is acknowledged (failure.c), as md holds
	 * writes until its superblock says a member failed: each failure (or a spare's) counts
	 * in fail_seq before its flag is set; a save of the record moves fail_recorded up to the
	 * count it wrote, or sets fail_unrecorded when it could not. record: the service's save
	 * (the state file), NULL when nothing is recorded.
	 */
	int (*record)(struct raid_array *a);
	atomic_uint fail_seq, fail_recorded;
	atomic_bool fail_unrecorded;
	bool said_unrecorded;
	int ndev;		   /* entries of m[]: the geom.n members, then the spares */
	struct raid_member m[];
};

/* RAID_TEST_SLOW_REQUEST's state per queue (slow_req.c): a planted slowdown for a bench only */
struct raid_slow_req {
	unsigned pct;	  /* 0: off */
	uint64_t last_ns; /* when the last cycle ended */
	int64_t owed_ns;  /* the time owed (negative: spent ahead) */
};

void raid_slow_req_init(struct raid_slow_req *s);
void raid_slow_req_pay(struct raid_slow_req *s);

struct raid_queue {
	struct raid_array *a;
	void *reg_buf; /* raid_queue_register_buffers(), undone at destroy */
	const struct member_backend_ops *be;
	void *be_priv;
	void *deco_priv; /* a decorator's own per-queue state (member_fault.c) */
	unsigned depth;
	bool direct;
	unsigned dio_align; /* direct: the members' largest logical block size, else 1 */
	bool said_misaligned;
	/* the fd each device's I/O uses (the members, then the spares), -1 if none */
	int fds[RAID_MAX_DEVICES];

	struct mio_list free_mio;
	void **slabs;
	unsigned nslabs;

	/* member I/Os waiting for room in the backend */
	struct mio_list backlog;
	unsigned be_inflight, be_capacity;
	bool need_submit;

	/* the plug: member I/Os issued since the last commit, merged at commit (merge.c) */
	bool merge; /* raid_merge */
	struct mio_list plug;
	struct member_io *plug_run[RAID_MAX_DEVICES * 2]; /* open run per device and op */
	STAILQ_HEAD(, merge_carrier) free_carriers, carriers;

	STAILQ_HEAD(, raid_request) done;
	unsigned ndone;
	unsigned nreq; /* requests started and not yet reaped-ready */

	int doorbell_fd;
	atomic_int notify_fd; /* raid_queue_fd(), -1 until asked for; read by posters */
	bool reaping;  /* inside raid_reap: what completes now is handed back by it */
	pthread_mutex_t post_lock;
	STAILQ_HEAD(raid_post_list, raid_post) posts;
	atomic_bool posted;

	unsigned rr; /* rotates ties between equally idle copies */
	struct raid_counters c;
	void *level_priv; /* the level's per-queue state (RAID5/6 stripe-op pool) */
	/* RAID_TEST_SLOW_REQUEST (slow_req.c), off unless set */
	struct raid_slow_req slow;
};

/* Core services for the level personalities (queue.c). */
/* Start (or restart) a request through its level. */
void raid_request_start(struct raid_queue *q, struct raid_request *r);
struct member_io *raid_mio_get(struct raid_queue *q);
/* Queue a member I/O of request r (fills req, counts it pending). */
void raid_mio_issue(struct raid_queue *q, struct raid_request *r, struct member_io *mio);
/* The request is complete (all its steps): hand it to raid_reap(). */
void raid_request_finish(struct raid_queue *q, struct raid_request *r);
/* onto the done list as it is (finish without its retry and gate): a write refused whole */
void raid_request_done(struct raid_queue *q, struct raid_request *r);
/* Count a request as in flight without issuing I/O (a level parks it; a post resumes it). */
void raid_request_hold(struct raid_queue *q, struct raid_request *r);

/* The one retry policy: a request restarted at most this often after members failed. */
#define RAID_RETRY_MAX 8

/* clock.c: the engine's clock (a test may replace it: NULL restores CLOCK_MONOTONIC) */
uint64_t raid_now_ns(void);
void raid_clock_set(uint64_t (*fn)(void));
/* a wait of s seconds on that clock (a test's fake sleep moves its fake clock on) */
void raid_clock_sleep(double s);
void raid_clock_set_sleep(void (*fn)(double s));
void raid_clock_spin(double s);
double raid_array_elapsed(const struct raid_array *a); /* seconds since a->t0 */

/*
 * failure.c: md's md_error. Whether a member I/O error is the member's (media, device),
 * not the request's (EINVAL, EFAULT, a resource short for a moment); the member leaving
 * the array; the retry of a request that a member failed under.
 */
bool raid_mio_member_fault(int res);
void raid_member_error(struct raid_array *a, const struct member_io *mio);
void raid_member_fail(struct raid_array *a, int idx);
bool raid_level_retries(const struct raid_array *a); /* a failed member leaves the array */
/* A finished request: restart it when a member failed under it (true: restarted). */
bool raid_request_retry(struct raid_queue *q, struct raid_request *r);
/*
 * A write request is done: 0, or -EIO when a failure is not recorded yet and its record
 * cannot be written (the write is then not acknowledged). Saves the record when one is due.
 */
int raid_failure_gate(struct raid_array *a);
/* The record's save: the count of failures it held (read before it was built) and whether
 * it reached the disk. */
void raid_failures_recorded(struct raid_array *a, unsigned seq, bool ok);
/* The array's events: failures. wait returns once the count is not `seen`, or at timeout. */
void raid_array_notify(struct raid_array *a);
unsigned raid_array_events(struct raid_array *a);
void raid_array_wait_events(struct raid_array *a, unsigned seen, double timeout_s);

static inline bool raid_member_failed(const struct raid_array *a, int i)
{
	return atomic_load_explicit(&a->m[i].failed, memory_order_relaxed);
}

/* A failed slot being rebuilt takes writes below its recovery front (on its spare). */
static inline bool raid_member_takes_write(struct raid_array *a, int i, uint64_t moff)
{
	return !raid_member_failed(a, i) ||
	       moff < atomic_load_explicit(&a->m[i].recovery_offset, memory_order_acquire);
}

#endif
