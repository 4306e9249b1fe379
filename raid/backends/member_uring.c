/*
 * member_uring.c - the io_uring backend (the default): one ring per queue, member files
 * registered as fixed files, and a multishot poll on the queue's doorbell eventfd so a
 * blocking wait also wakes when another thread hands work back.
 */
#include <errno.h>
#include <liburing.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

#define DOORBELL_TAG 1ULL /* member_io pointers are aligned: never 1 */
#define BATCH 64

struct uring_be {
	struct io_uring ring;
	bool fixed;
	bool armed;
	bool notify; /* raid_queue_fd: a non-blocking poll runs the deferred completions */
};

static unsigned pow2_at_least(unsigned v)
{
	unsigned p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

static int arm_doorbell(struct raid_queue *q, struct uring_be *u)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);

	if (!sqe) {
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	io_uring_prep_poll_multishot(sqe, q->doorbell_fd, POLLIN);
	io_uring_sqe_set_data64(sqe, DOORBELL_TAG);
	u->armed = true;
	q->need_submit = true;
	return 0;
}

static int uring_init(struct raid_queue *q, char *err, size_t errlen)
{
	struct uring_be *u = calloc(1, sizeof(*u));
	struct io_uring_params p;
	unsigned entries = pow2_at_least(q->depth * 2 < 64 ? 64 : q->depth * 2);
	int ret;

	if (!u)
		return -ENOMEM;
	if (entries > 4096)
		entries = 4096;
	/*
	 * The ring is only ever used by the thread of its queue, which always enters the
	 * kernel to wait: completions can run deferred, at that wait, without waking the
	 * thread for each one. Older kernels refuse the flags: fall back step by step.
	 */
	for (int i = 0; i < 3; i++) {
		static const unsigned flags[] = {IORING_SETUP_SINGLE_ISSUER |
						     IORING_SETUP_DEFER_TASKRUN,
						 IORING_SETUP_COOP_TASKRUN, 0};

		memset(&p, 0, sizeof(p));
		p.flags = flags[i];
		ret = io_uring_queue_init_params(entries, &u->ring, &p);
		if (ret != -EINVAL)
			break;
	}
	if (ret < 0) {
		snprintf(err, errlen, "raid: raid_backend=io_uring: io_uring_queue_init: %s",
			 strerror(-ret));
		free(u);
		return ret;
	}
	/* fixed files save a file lookup per I/O; sparse (-1) slots stand for failed members */
	u->fixed = io_uring_register_files(&u->ring, q->fds, (unsigned)q->a->ndev) == 0;
	/* one CQ slot stays free for the doorbell */
	q->be_capacity = p.cq_entries - 1;
	q->be_priv = u;
	ret = arm_doorbell(q, u);
	if (ret < 0) {
		io_uring_queue_exit(&u->ring);
		free(u);
		q->be_priv = NULL;
		snprintf(err, errlen, "raid: raid_backend=io_uring: cannot arm the doorbell poll");
	}
	return ret;
}

static void uring_exit(struct raid_queue *q)
{
	struct uring_be *u = q->be_priv;

	if (!u)
		return;
	io_uring_queue_exit(&u->ring);
	free(u);
	q->be_priv = NULL;
}

static int uring_prep(struct raid_queue *q, struct member_io *m)
{
	struct uring_be *u = q->be_priv;
	struct io_uring_sqe *sqe = io_uring_get_sqe(&u->ring);
	char *buf = (char *)m->buf + m->done;
	unsigned len = (unsigned)(m->len - m->done);
	uint64_t off = m->offset + m->done;
	int fd = u->fixed ? m->dev : q->fds[m->dev];

	if (!sqe) {
		io_uring_submit(&u->ring);
		sqe = io_uring_get_sqe(&u->ring);
		if (!sqe)
			return -EBUSY;
	}
	if (m->iovcnt && m->op == RAID_OP_READ)
		io_uring_prep_readv(sqe, fd, m->iov, (unsigned)m->iovcnt, off);
	else if (m->iovcnt)
		io_uring_prep_writev(sqe, fd, m->iov, (unsigned)m->iovcnt, off);
	else if (m->op == RAID_OP_READ)
		io_uring_prep_read(sqe, fd, buf, len, off);
	else
		io_uring_prep_write(sqe, fd, buf, len, off);
	if (u->fixed)
		sqe->flags |= IOSQE_FIXED_FILE;
	io_uring_sqe_set_data(sqe, m);
	return 0;
}

static int uring_submit(struct raid_queue *q)
{
	struct uring_be *u = q->be_priv;
	int ret;

	do
		ret = io_uring_submit(&u->ring);
	while (ret == -EINTR);
	if (ret == -EAGAIN || ret == -EBUSY) {
		q->need_submit = true; /* try again after reaping */
		return 0;
	}
	return ret < 0 ? ret : 0;
}

static int uring_poll(struct raid_queue *q, bool block, const struct timespec *timeout)
{
	struct uring_be *u = q->be_priv;
	struct io_uring_cqe *cqes[BATCH];
	int total = 0;

	if (block) {
		struct io_uring_cqe *cqe;
		int ret;

		if (timeout) {
			struct __kernel_timespec ts = {.tv_sec = timeout->tv_sec,
						       .tv_nsec = timeout->tv_nsec};
			ret = io_uring_wait_cqe_timeout(&u->ring, &cqe, &ts);
		} else {
			ret = io_uring_wait_cqe(&u->ring, &cqe);
		}
		if (ret < 0)
			return ret == -ETIME || ret == -EINTR ? 0 : ret;
	}
	/*
	 * With deferred task work a completion is only queued until the ring is entered: the
	 * caller woken by the eventfd reaps without blocking, so enter here. (TASKRUN_FLAG
	 * would let the peek do it, but it hung fio's rebuild-during-writes case: not used.)
	 */
	if (!block && u->notify)
		io_uring_get_events(&u->ring);
	for (;;) {
		struct {
			uint64_t data;
			int res;
			unsigned flags;
		} got[BATCH];
		unsigned n = io_uring_peek_batch_cqe(&u->ring, cqes, BATCH);

		if (!n)
			break;
		/* copy out first: completing a member I/O may queue new SQEs */
		for (unsigned i = 0; i < n; i++) {
			got[i].data = cqes[i]->user_data;
			got[i].res = cqes[i]->res;
			got[i].flags = cqes[i]->flags;
		}
		io_uring_cq_advance(&u->ring, n);
		for (unsigned i = 0; i < n; i++) {
			if (got[i].data == DOORBELL_TAG) {
				if (!(got[i].flags & IORING_CQE_F_MORE))
					u->armed = false;
				continue;
			}
			raid_mio_done(q, (struct member_io *)(uintptr_t)got[i].data, got[i].res);
			total++;
		}
	}
	if (!u->armed)
		arm_doorbell(q, u);
	return total;
}

/*
 * The kernel signals a registered eventfd for every CQE it posts and, with deferred task
 * work, already when a completion's work is queued (uring_poll then enters to run it).
 */
static int uring_notify(struct raid_queue *q, int efd)
{
	struct uring_be *u = q->be_priv;
	int ret = io_uring_register_eventfd(&u->ring, efd);

	u->notify = ret == 0;
	return ret;
}

const struct member_backend_ops member_uring_ops = {
    .name = "io_uring",
    .uses_files = true,
    .init = uring_init,
    .exit = uring_exit,
    .prep = uring_prep,
    .submit = uring_submit,
    .poll = uring_poll,
    .notify = uring_notify,
};
