/*
 * queue.c - the per-thread queue: requests as small state machines driven by their member
 * I/O completions, the member I/O pool and backlog, completion hand-back to the caller,
 * and the doorbell through which other threads hand work back to the queue. Member I/Os
 * issued between two commits wait in the queue's plug to be merged (merge.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "identity.h"
#include "level.h"
#include "merge.h"
#include "quiesce.h"

#define MIO_SLAB 64
#define MAX_RETRIES 1000 /* EINTR and EAGAIN of one member I/O */

int raid_array_member_fd(struct raid_array *a, int idx, bool direct, char *err, size_t errlen);

struct member_io *raid_mio_get(struct raid_queue *q)
{
	struct member_io *m = STAILQ_FIRST(&q->free_mio);

	if (!m) {
		struct member_io *slab = calloc(MIO_SLAB, sizeof(*slab));
		void **slabs = realloc(q->slabs, (q->nslabs + 1) * sizeof(*slabs));

		if (!slab || !slabs)
			abort(); /* a few KiB; nothing sensible to do without them */
		q->slabs = slabs;
		q->slabs[q->nslabs++] = slab;
		for (int i = 0; i < MIO_SLAB; i++)
			STAILQ_INSERT_TAIL(&q->free_mio, &slab[i], link);
		m = slab;
	}
	STAILQ_REMOVE_HEAD(&q->free_mio, link);
	return m;
}

static void mio_put(struct raid_queue *q, struct member_io *m)
{
	STAILQ_INSERT_HEAD(&q->free_mio, m, link);
}

/*
 * Hand one member I/O to the backend. A backend with no room left for now (-EBUSY: the
 * ring is full) is no member failure: the I/O goes back to the head of the backlog until a
 * completion makes room. Returns false when it went back.
 */
static bool to_backend(struct raid_queue *q, struct member_io *mio)
{
	int ret;

	q->be_inflight++;
	q->need_submit = true;
	ret = q->be->prep(q, mio);
	if (ret == -EBUSY && q->be_inflight > 1) {
		q->be_inflight--;
		STAILQ_INSERT_HEAD(&q->backlog, mio, link);
		return false;
	}
	if (ret < 0)
		raid_mio_done(q, mio, ret);
	return true;
}

void raid_mio_to_backend(struct raid_queue *q, struct member_io *mio)
{
	if (!STAILQ_EMPTY(&q->backlog) || q->be_inflight >= q->be_capacity) {
		STAILQ_INSERT_TAIL(&q->backlog, mio, link);
		return;
	}
	to_backend(q, mio);
}

static void backlog_drain(struct raid_queue *q)
{
	while (!STAILQ_EMPTY(&q->backlog) && q->be_inflight < q->be_capacity) {
		struct member_io *m = STAILQ_FIRST(&q->backlog);

		STAILQ_REMOVE_HEAD(&q->backlog, link);
		if (!to_backend(q, m))
			break;
	}
}

void raid_mio_issue(struct raid_queue *q, struct raid_request *r, struct member_io *mio)
{
	mio->req = r;
	mio->dev = atomic_load_explicit(&q->a->m[mio->member].dev, memory_order_relaxed);
	mio->done = 0;
	mio->retries = 0;
	mio->iov = NULL;
	mio->iovcnt = 0;
	mio->carrier = NULL;
	r->pending++;
	atomic_fetch_add_explicit(&q->a->m[mio->member].inflight, 1, memory_order_relaxed);
	if (mio->op == RAID_OP_READ) {
		q->c.m_reads++;
		q->c.m_read_bytes += mio->len;
	} else {
		q->c.m_writes++;
		q->c.m_write_bytes += mio->len;
	}
	if (q->merge)
		merge_plug(q, mio);
	else
		raid_mio_to_backend(q, mio);
}

void raid_request_hold(struct raid_queue *q, struct raid_request *r)
{
	r->inflight = true;
	q->nreq++;
}

void raid_request_finish(struct raid_queue *q, struct raid_request *r)
{
	/* a member failed under it and left the array: the level now routes around it */
	if (raid_request_retry(q, r))
		return;
	if (r->admitted)
		raid_release(q, r);
	/* after the release: a rebuild waiting for this write's range may go on meanwhile */
	if (r->op == RAID_OP_WRITE && !r->advance && !r->error)
		r->error = raid_failure_gate(q->a);
	raid_request_done(q, r);
}

void raid_request_done(struct raid_queue *q, struct raid_request *r)
{
	r->inflight = false;
	q->nreq--;
	STAILQ_INSERT_TAIL(&q->done, r, done_link);
	q->ndone++;
	/* in raid_submit or raid_commit: no backend event will bring the caller to reap it */
	if (!q->reaping)
		raid_queue_notify(q);
}

void raid_mio_error(struct raid_queue *q, struct member_io *mio, int res)
{
	struct raid_array *a = q->a;
	bool fault = raid_mio_member_fault(res);

	q->c.errors++;
	pthread_mutex_lock(&a->lock);
	if (!a->said_error && mio->dev != mio->member) /* the spare taking its place */
		raid_log("raid: spare %s (rebuilding member %d): %s of %" PRIu64
			 " bytes at offset %" PRIu64 " failed: %s (the rebuild onto it stops; "
			 "further errors not shown)",
			 a->m[mio->dev].path, mio->member,
			 mio->op == RAID_OP_READ ? "read" : "write", mio->len, mio->offset,
			 strerror(-res));
	else if (!a->said_error)
		raid_log("raid: member %d (%s): %s of %" PRIu64 " bytes at offset %" PRIu64
			 " failed: %s (%s; further errors not shown)",
			 mio->member, a->m[mio->member].path,
			 mio->op == RAID_OP_READ ? "read" : "write", mio->len, mio->offset,
			 strerror(-res),
			 fault ? "the request fails with EIO"
			       : "the request's error, not the member's: it stays in the array");
	a->said_error = true;
	pthread_mutex_unlock(&a->lock);
}

/*
 * The one completion path of a member I/O, plain or carrier: no progress is an error, an
 * error is said once and counted once, then each request part completes with the result.
 */
static void raid_mio_finish(struct raid_queue *q, struct member_io *mio, int res)
{
	if (res == 0 && mio->len > mio->done)
		res = -EIO; /* no progress: the member ended early */
	if (res < 0)
		raid_mio_error(q, mio, res);
	if (mio->iovcnt)
		merge_complete(q, mio, res);
	else
		raid_mio_complete(q, mio, res);
}

void raid_mio_done(struct raid_queue *q, struct member_io *mio, int res)
{
	q->be_inflight--;
	if ((res == -EINTR || res == -EAGAIN) && mio->retries++ < MAX_RETRIES) {
		raid_mio_to_backend(q, mio);
		return;
	}
	if (res > 0 && mio->done + (uint64_t)res < mio->len) {
		/* short transfer: a plain I/O continues where it stopped, a carrier splits */
		if (mio->iovcnt) {
			merge_short(q, mio, (uint64_t)res);
			return;
		}
		mio->done += (uint64_t)res;
		raid_mio_to_backend(q, mio);
		return;
	}
	raid_mio_finish(q, mio, res);
}

void raid_mio_complete(struct raid_queue *q, struct member_io *mio, int res)
{
	struct raid_request *r = mio->req;

	if (res < 0 && raid_mio_member_fault(res)) {
		if (!r->error)
			r->error = -EIO;
		raid_member_error(q->a, mio);
	} else if (res < 0) {
		r->error = res; /* over an EIO too: starting it again would fail the same way */
	}
	atomic_fetch_sub_explicit(&q->a->m[mio->member].inflight, 1, memory_order_relaxed);
	mio_put(q, mio);
	if (--r->pending)
		return;
	if (r->advance) {
		if (!r->advance(q, r))
			return;
	} else if (q->a->ops->advance) {
		if (!q->a->ops->advance(q, r))
			return;
	}
	raid_request_finish(q, r);
}

void raid_request_start(struct raid_queue *q, struct raid_request *r)
{
	int ret = q->a->ops->start(q, r);

	if (ret < 0) {
		if (!r->error)
			r->error = ret;
		if (!r->pending)
			raid_request_finish(q, r);
	}
}

/* O_DIRECT I/O the members could never take: refused before any member sees it. */
static int misaligned(struct raid_queue *q, struct raid_request *r)
{
	if (!q->said_misaligned)
		raid_log("raid: direct=1: a %s of %" PRIu64 " bytes at volume offset %" PRIu64
			 " (buffer %p) is not aligned to the members' logical block size (%u "
			 "bytes): refused with EINVAL (use bs and offsets in multiples of it)",
			 r->op == RAID_OP_READ ? "read" : "write", r->length, r->offset, r->buf,
			 q->dio_align);
	q->said_misaligned = true;
	return -EINVAL;
}

int raid_submit(struct raid_queue *q, struct raid_request *r)
{
	struct raid_array *a = q->a;

	if (!r->length || r->offset > a->size || r->length > a->size - r->offset ||
	    (r->op != RAID_OP_READ && r->op != RAID_OP_WRITE))
		return -EINVAL;
	if ((r->offset | r->length | (uintptr_t)r->buf) & (q->dio_align - 1))
		return misaligned(q, r);
	r->error = 0;
	r->pending = 0;
	r->stage = 0;
	r->level_priv = NULL;
	r->advance = NULL;
	r->retries = 0;
	r->admitted = false;
	r->intent = false;
	raid_request_hold(q, r);
	if (r->op == RAID_OP_READ) {
		q->c.reads++;
		q->c.read_bytes += r->length;
	} else {
		q->c.writes++;
		q->c.write_bytes += r->length;
		/*
		 * md's order: while a member's failure is not yet recorded, no new write reaches
		 * any member (else the survivors take it and the unrecorded member, which a
		 * restart trusts, is stale however the write ends); it fails here untouched.
		 */
		r->error = raid_failure_gate(a);
		if (r->error) {
			raid_request_done(q, r);
			return 0;
		}
	}
	if (a->qs && raid_admit(q, r))
		return 0; /* parked behind a quiesced range: resumed by a post */
	raid_request_start(q, r);
	return 0;
}

int raid_commit(struct raid_queue *q)
{
	int ret = 0;

	if (q->a->ops->queue_commit && q->level_priv)
		q->a->ops->queue_commit(q);
	/* a member I/O refused at prep or submit completes at once and may issue more */
	do {
		if (!STAILQ_EMPTY(&q->plug))
			merge_unplug(q);
		backlog_drain(q);
		if (q->need_submit) {
			q->need_submit = false;
			ret = q->be->submit(q);
		}
	} while (!STAILQ_EMPTY(&q->plug) && !ret);
	return ret;
}

void raid_doorbell_drain(struct raid_queue *q)
{
	uint64_t v;

	while (read(q->doorbell_fd, &v, sizeof(v)) == sizeof(v))
		;
}

static void efd_signal(int fd)
{
	uint64_t one = 1;

	/* the counter cannot overflow in practice; EAGAIN would still leave it readable */
	while (write(fd, &one, sizeof(one)) < 0 && errno == EINTR)
		;
}

void raid_queue_notify(struct raid_queue *q)
{
	int fd = q->notify_fd;

	if (fd >= 0)
		efd_signal(fd);
}

void raid_queue_post(struct raid_queue *q, struct raid_post *p)
{
	pthread_mutex_lock(&q->post_lock);
	STAILQ_INSERT_TAIL(&q->posts, p, link);
	atomic_store(&q->posted, true);
	pthread_mutex_unlock(&q->post_lock);
	efd_signal(q->doorbell_fd);
	/* one made after this load signals itself once made: the post is not missed */
	raid_queue_notify(q);
}

int raid_queue_fd(struct raid_queue *q)
{
	int fd, ret;

	if (q->notify_fd >= 0)
		return q->notify_fd;
	if (!q->be->notify)
		return -ENOTSUP;
	fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = q->be->notify(q, fd);
	if (ret < 0) {
		close(fd);
		return ret;
	}
	q->notify_fd = fd;
	/* what is done or posted already was never signalled */
	if (q->ndone || atomic_load(&q->posted) || q->nreq)
		raid_queue_notify(q);
	return fd;
}

static void drain_posts(struct raid_queue *q)
{
	struct raid_post_list todo = STAILQ_HEAD_INITIALIZER(todo);

	if (!atomic_load(&q->posted))
		return;
	/* empty the eventfd before taking the list, so no later post can be missed */
	raid_doorbell_drain(q);
	pthread_mutex_lock(&q->post_lock);
	STAILQ_CONCAT(&todo, &q->posts);
	atomic_store(&q->posted, false);
	pthread_mutex_unlock(&q->post_lock);
	/* each leaves the list before it runs: its fn may post it again */
	while (!STAILQ_EMPTY(&todo)) {
		struct raid_post *p = STAILQ_FIRST(&todo);

		STAILQ_REMOVE_HEAD(&todo, link);
		p->fn(q, p);
	}
}

static bool time_left(const struct timespec *deadline, struct timespec *left)
{
	struct timespec now;
	int64_t ns;

	clock_gettime(CLOCK_MONOTONIC, &now);
	ns = (deadline->tv_sec - now.tv_sec) * 1000000000LL + (deadline->tv_nsec - now.tv_nsec);
	if (ns <= 0)
		return false;
	left->tv_sec = ns / 1000000000LL;
	left->tv_nsec = ns % 1000000000LL;
	return true;
}

int raid_reap(struct raid_queue *q, unsigned min, unsigned max, const struct timespec *timeout,
	      struct raid_request **out)
{
	struct timespec deadline, left;
	unsigned n = 0;

	if (timeout) {
		clock_gettime(CLOCK_MONOTONIC, &deadline);
		deadline.tv_sec += timeout->tv_sec;
		deadline.tv_nsec += timeout->tv_nsec;
		if (deadline.tv_nsec >= 1000000000L) {
			deadline.tv_sec++;
			deadline.tv_nsec -= 1000000000L;
		}
	}
	if (min > max)
		min = max;
	/*
	 * Emptied before anything is looked at: what completes after this point signals it
	 * again, so a caller that waits on it after we return misses nothing.
	 */
	int nfd = q->notify_fd;

	if (nfd >= 0) {
		uint64_t v;

		while (read(nfd, &v, sizeof(v)) < 0 && errno == EINTR)
			;
	}
	q->reaping = true;
	for (;;) {
		int ret;

		drain_posts(q);
		ret = q->be->poll(q, false, NULL);
		raid_commit(q);
		if (ret < 0) {
			q->reaping = false;
			return ret;
		}
		if (q->ndone >= min || q->nreq == 0)
			break;
		if (timeout && !time_left(&deadline, &left))
			break;
		ret = q->be->poll(q, true, timeout ? &left : NULL);
		if (ret < 0 && ret != -ETIME && ret != -EINTR) {
			q->reaping = false;
			return ret;
		}
		raid_commit(q);
	}
	q->reaping = false;
	while (n < max && !STAILQ_EMPTY(&q->done)) {
		struct raid_request *r = STAILQ_FIRST(&q->done);

		STAILQ_REMOVE_HEAD(&q->done, done_link);
		q->ndone--;
		out[n++] = r;
	}
	if (n)
		raid_slow_req_pay(&q->slow); /* RAID_TEST_SLOW_REQUEST: a bench's planted slowdown */
	return (int)n;
}

int raid_queue_register_buffers(struct raid_queue *q, void *buf, size_t len)
{
	int ret;

	if (q->reg_buf)
		return -EBUSY;
	if (!buf || !len || !q->a->ops->buf_register)
		return 0;
	ret = q->a->ops->buf_register(q->a, buf, len);
	if (!ret)
		q->reg_buf = buf;
	return ret;
}

unsigned raid_queue_inflight(const struct raid_queue *q)
{
	return q->nreq + q->ndone;
}

int raid_queue_create(struct raid_array *a, unsigned depth, bool direct, struct raid_queue **out,
		      char *err, size_t errlen)
{
	struct raid_queue *q = calloc(1, sizeof(*q));
	int ret;

	if (!q)
		return -ENOMEM;
	q->a = a;
	/* a decorator that wraps this array's queues (raid_inject), else the array's backend */
	q->be = member_injector() && member_injector()->wraps(&a->cfg) ? member_injector() : a->be;
	q->depth = depth ? depth : 1;
	raid_slow_req_init(&q->slow);
	q->direct = direct;
	q->be_capacity = UINT32_MAX;
	q->merge = a->cfg.merge;
	q->dio_align = 1;
	pthread_mutex_init(&q->post_lock, NULL);
	STAILQ_INIT(&q->posts);
	STAILQ_INIT(&q->free_mio);
	STAILQ_INIT(&q->backlog);
	STAILQ_INIT(&q->plug);
	STAILQ_INIT(&q->free_carriers);
	STAILQ_INIT(&q->carriers);
	STAILQ_INIT(&q->done);
	for (int i = 0; i < a->ndev; i++) {
		q->fds[i] = -1;
		if (a->be->uses_files && !raid_member_failed(a, i)) {
			ret = raid_array_member_fd(a, i, direct, err, errlen);
			if (ret < 0)
				goto err;
			q->fds[i] = ret;
			/* every member and spare: a spare may serve any slot later */
			if (direct && raid_dio_align(ret) > q->dio_align)
				q->dio_align = raid_dio_align(ret);
		}
	}
	q->notify_fd = -1;
	q->doorbell_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (q->doorbell_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "raid: eventfd: %s", strerror(errno));
		goto err;
	}
	ret = q->be->init(q, err, errlen);
	if (ret < 0) {
		close(q->doorbell_fd);
		goto err;
	}
	*out = q;
	return 0;
err:
	pthread_mutex_destroy(&q->post_lock);
	free(q);
	return ret;
}

static void add_counters(struct raid_counters *to, const struct raid_counters *from)
{
	const uint64_t *f = (const uint64_t *)from;
	uint64_t *t = (uint64_t *)to;

	for (size_t i = 0; i < sizeof(*from) / sizeof(uint64_t); i++)
		t[i] += f[i];
}

void raid_queue_destroy(struct raid_queue *q)
{
	if (!q)
		return;
	/* the kernel may still own buffers of abandoned I/O: wait for it before freeing */
	while (q->be_inflight && q->be->poll(q, true, NULL) >= 0)
		drain_posts(q);
	if (q->a->ops->queue_exit)
		q->a->ops->queue_exit(q);
	if (q->reg_buf && q->a->ops->buf_unregister)
		q->a->ops->buf_unregister(q->a, q->reg_buf);
	q->be->exit(q);
	merge_exit(q);
	close(q->doorbell_fd);
	if (q->notify_fd >= 0)
		close(q->notify_fd);
	pthread_mutex_lock(&q->a->lock);
	add_counters(&q->a->totals, &q->c);
	pthread_mutex_unlock(&q->a->lock);
	for (unsigned i = 0; i < q->nslabs; i++)
		free(q->slabs[i]);
	free(q->slabs);
	pthread_mutex_destroy(&q->post_lock);
	free(q);
}
