/*
 * member.h - member I/O: the unit of work the core hands to a backend (struct member_io)
 * and the small ops table every backend implements (io_uring, libaio, psync, ram, null).
 *
 * A backend owns per-queue state only. It never decides anything about RAID: it moves
 * bytes and reports each member I/O's result through raid_mio_done(), which retries short
 * transfers, EINTR and EAGAIN itself.
 *
 * A member I/O with iovcnt > 0 is a carrier (merge.c): several contiguous member I/Os of one
 * device and direction as one vectored transfer of len bytes from iov; its done is always
 * 0 (a short carrier is split up by the core, never continued).
 */
#ifndef RAID_MEMBER_H
#define RAID_MEMBER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>
#include <sys/uio.h>
#include <time.h>

#include "raid.h"

struct raid_queue;

struct member_io {
	STAILQ_ENTRY(member_io) link; /* free list, backlog, plug, sync backends' lists */
	struct raid_request *req; /* the request it belongs to */
	enum raid_op op;
	int member;
	int dev; /* the device it goes to: the member, or the spare rebuilding it (queue.c) */
	void *buf;
	uint64_t offset; /* in the member's data area */
	uint64_t len;
	uint64_t done; /* bytes already transferred (short I/O is continued, not failed) */
	int retries;
	int res;		 /* sync backends: result of the transfer */
	const struct iovec *iov; /* a carrier's buffers (iovcnt of them); NULL otherwise */
	int iovcnt;
	struct member_io *carrier; /* while held in the plug: the carrier it joined, or NULL */
	unsigned char be_priv[64] __attribute__((aligned(8))); /* e.g. libaio's iocb */
};

struct member_backend_ops {
	const char *name; /* the raid_backend value it serves (a decorator: none) */
	const char *help; /* what raid_backend's values say of it; NULL: the name says it */
	bool uses_files; /* opens the member paths (else members live in memory or nowhere) */
	bool in_memory;	 /* the core maps each device's bytes (struct raid_member.ram) */
	/* a decorator: whether it wraps the queues of an array of configuration c */
	bool (*wraps)(const struct raid_config *c);
	/* per-queue state in q->be_priv; sets q->be_capacity (member I/Os in flight at most) */
	int (*init)(struct raid_queue *q, char *err, size_t errlen);
	void (*exit)(struct raid_queue *q);
	/* queue one member I/O (its remaining part: offset + done, len - done), or a carrier */
	int (*prep)(struct raid_queue *q, struct member_io *mio);
	/* hand what prep queued to the kernel */
	int (*submit)(struct raid_queue *q);
	/*
	 * Report finished member I/Os through raid_mio_done(). With `block`, first wait for
	 * at least one event: a completion or the queue's doorbell (q->doorbell_fd), or the
	 * timeout. Returns the number of completions reported, or negative errno.
	 */
	int (*poll)(struct raid_queue *q, bool block, const struct timespec *timeout);
	/*
	 * Optional (raid_queue_fd): from now on, signal the eventfd efd whenever a member I/O
	 * completes, at least once per batch, so that a later poll(block = false) reports it.
	 * A backend that reports without any kernel event (its bytes moved at submit, an I/O
	 * held for injection) calls raid_queue_notify() instead (sync_be does). NULL: the
	 * backend cannot, raid_queue_fd() is -ENOTSUP.
	 */
	int (*notify)(struct raid_queue *q, int efd);
};

/*
 * The backends registered with the core (raid/backends registers its own from the library's
 * module list, raid/README.md), one per raid_backend value, before the first array; not
 * thread-safe. 0, or -EEXIST when the kind is taken, -EINVAL when a hook is missing.
 */
int member_backend_register(const struct member_backend_ops *ops);
/*
 * raid_inject's decorator: the queue's backend in an array that injects, wrapping the
 * array's own (a->be) in each queue (raid/backends/member_fault.c registers it).
 */
int member_injector_register(const struct member_backend_ops *ops);
/* The registered backend of that kind, or NULL when this build has none. */
/* The backend raid_backend's value b names (its place in the registry), or NULL. */
const struct member_backend_ops *member_backend(int b);
/* raid_backend's values: the registered backends' names in registration order, {NULL}-ended */
#define MEMBER_BACKENDS_MAX 16
extern struct raid_opt_value member_backend_values[MEMBER_BACKENDS_MAX + 1];
const struct member_backend_ops *member_injector(void);

/* A list of member I/Os (the free list, the backlog, the plug, the sync backends'). */
STAILQ_HEAD(mio_list, member_io);

/* Called by backends for every finished member I/O: bytes moved, or negative errno. */
void raid_mio_done(struct raid_queue *q, struct member_io *mio, int res);
/* Read the doorbell eventfd dry (non-blocking). */
void raid_doorbell_drain(struct raid_queue *q);
/* Make raid_queue_fd() readable, if anyone asked for it: the next poll has work. */
void raid_queue_notify(struct raid_queue *q);

/*
 * A synchronous backend's queue (sync_be.c): the bytes move at submit, the results are
 * reported at the next poll. Shared by psync, ram and null, and by tests' scripted devices.
 */
struct sync_be {
	struct mio_list pend; /* prepped, not yet run */
	struct mio_list done; /* run, not yet reported */
	/* move the bytes of one member I/O; return bytes or negative errno */
	int (*xfer)(struct raid_queue *q, struct member_io *mio);
};
int sync_be_init(struct raid_queue *q, int (*xfer)(struct raid_queue *, struct member_io *));
void sync_be_exit(struct raid_queue *q);
int sync_be_prep(struct raid_queue *q, struct member_io *mio);
int sync_be_submit(struct raid_queue *q);
int sync_be_poll(struct raid_queue *q, bool block, const struct timespec *timeout);
int sync_be_notify(struct raid_queue *q, int efd); /* its submit signals: nothing to set up */

#endif
