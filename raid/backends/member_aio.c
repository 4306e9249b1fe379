/*
 * member_aio.c - the libaio backend: one kernel AIO context per queue; the iocb lives in
 * the member I/O itself. The doorbell is an IOCB_CMD_POLL on the queue's eventfd, so
 * io_getevents also wakes when another thread hands work back.
 */
#include <errno.h>
#include <libaio.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backends.h"

_Static_assert(sizeof(struct iocb) <= sizeof(((struct member_io *)0)->be_priv),
	       "struct iocb must fit in member_io.be_priv");

#define DOORBELL_TAG ((void *)1)

struct aio_be {
	io_context_t ctx;
	unsigned cap;
	unsigned npend;
	struct iocb **pend;
	struct io_event *ev;
	struct iocb poll_cb;
	bool armed;
	int efd; /* raid_queue_fd's eventfd, signalled by each completion; -1: none */
};

static int aio_init(struct raid_queue *q, char *err, size_t errlen)
{
	struct aio_be *b = calloc(1, sizeof(*b));
	int ret;

	if (!b)
		return -ENOMEM;
	b->cap = q->depth * 2 < 64 ? 64 : q->depth * 2;
	if (b->cap > 4096)
		b->cap = 4096;
	b->pend = calloc(b->cap, sizeof(*b->pend));
	b->ev = calloc(b->cap + 1, sizeof(*b->ev));
	ret = b->pend && b->ev ? io_setup((int)b->cap + 1, &b->ctx) : -ENOMEM;
	if (ret < 0) {
		snprintf(err, errlen, "raid: raid_backend=libaio: io_setup: %s", strerror(-ret));
		free(b->pend);
		free(b->ev);
		free(b);
		return ret;
	}
	q->be_capacity = b->cap;
	b->efd = -1;
	q->be_priv = b;
	return 0;
}

static void aio_exit(struct raid_queue *q)
{
	struct aio_be *b = q->be_priv;

	if (!b)
		return;
	io_destroy(b->ctx);
	free(b->pend);
	free(b->ev);
	free(b);
	q->be_priv = NULL;
}

static int aio_prep(struct raid_queue *q, struct member_io *m)
{
	struct aio_be *b = q->be_priv;
	struct iocb *cb = (struct iocb *)m->be_priv;
	char *buf = (char *)m->buf + m->done;
	size_t len = m->len - m->done;
	long long off = (long long)(m->offset + m->done);

	if (m->iovcnt && m->op == RAID_OP_READ)
		io_prep_preadv(cb, q->fds[m->dev], m->iov, m->iovcnt, off);
	else if (m->iovcnt)
		io_prep_pwritev(cb, q->fds[m->dev], m->iov, m->iovcnt, off);
	else if (m->op == RAID_OP_READ)
		io_prep_pread(cb, q->fds[m->dev], buf, len, off);
	else
		io_prep_pwrite(cb, q->fds[m->dev], buf, len, off);
	cb->data = m;
	if (b->efd >= 0)
		io_set_eventfd(cb, b->efd);
	b->pend[b->npend++] = cb;
	return 0;
}

static int aio_submit(struct raid_queue *q)
{
	struct aio_be *b = q->be_priv;
	unsigned done = 0;

	while (done < b->npend) {
		int r = io_submit(b->ctx, (long)(b->npend - done), b->pend + done);

		if (r == -EINTR)
			continue;
		if (r == -EAGAIN) {
			q->need_submit = true; /* resources come back as I/Os complete */
			break;
		}
		if (r < 0) {
			/* refused outright: fail the first, then try the rest */
			raid_mio_done(q, b->pend[done]->data, r);
			done++;
			continue;
		}
		done += (unsigned)r;
	}
	memmove(b->pend, b->pend + done, (b->npend - done) * sizeof(*b->pend));
	b->npend -= done;
	return 0;
}

static void arm_doorbell(struct raid_queue *q, struct aio_be *b)
{
	struct iocb *cb = &b->poll_cb;

	io_prep_poll(cb, q->doorbell_fd, POLLIN);
	cb->data = DOORBELL_TAG;
	if (io_submit(b->ctx, 1, &cb) == 1)
		b->armed = true;
}

static int aio_poll(struct raid_queue *q, bool block, const struct timespec *timeout)
{
	struct aio_be *b = q->be_priv;
	struct timespec zero = {0, 0};
	int n, total = 0;

	if (block && !b->armed)
		arm_doorbell(q, b);
	n = io_getevents(b->ctx, block ? 1 : 0, (long)b->cap + 1, b->ev,
			 block ? (struct timespec *)timeout : &zero);
	if (n < 0)
		return n == -EINTR ? 0 : n;
	for (int i = 0; i < n; i++) {
		if (b->ev[i].data == DOORBELL_TAG) {
			b->armed = false;
			continue;
		}
		raid_mio_done(q, b->ev[i].data, (int)(long)b->ev[i].res);
		total++;
	}
	return total;
}

/* the kernel signals it for each I/O prepped from now on (IOCB_FLAG_RESFD) */
static int aio_notify(struct raid_queue *q, int efd)
{
	struct aio_be *b = q->be_priv;

	b->efd = efd;
	return 0;
}

const struct member_backend_ops member_aio_ops = {
    .name = "libaio",
    .uses_files = true,
    .init = aio_init,
    .exit = aio_exit,
    .prep = aio_prep,
    .submit = aio_submit,
    .poll = aio_poll,
    .notify = aio_notify,
};
