/*
 * sync_be.c - the machinery of a synchronous backend (psync, ram, null in raid/backends,
 * and tests' scripted devices): they move the bytes at submit time and report at the next
 * poll, and block only on the queue's doorbell (nothing else can complete while they wait).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>

#include "core.h"

int sync_be_init(struct raid_queue *q, int (*xfer)(struct raid_queue *, struct member_io *))
{
	struct sync_be *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->xfer = xfer;
	STAILQ_INIT(&s->pend);
	STAILQ_INIT(&s->done);
	q->be_priv = s;
	q->be_capacity = UINT32_MAX;
	return 0;
}

void sync_be_exit(struct raid_queue *q)
{
	free(q->be_priv);
	q->be_priv = NULL;
}

int sync_be_prep(struct raid_queue *q, struct member_io *mio)
{
	struct sync_be *s = q->be_priv;

	STAILQ_INSERT_TAIL(&s->pend, mio, link);
	return 0;
}

int sync_be_submit(struct raid_queue *q)
{
	struct sync_be *s = q->be_priv;
	while (!STAILQ_EMPTY(&s->pend)) {
		struct member_io *m = STAILQ_FIRST(&s->pend);

		STAILQ_REMOVE_HEAD(&s->pend, link);
		m->res = s->xfer(q, m);
		STAILQ_INSERT_TAIL(&s->done, m, link);
	}
	/* done, to be reported at the next poll: no kernel event will say so */
	if (!STAILQ_EMPTY(&s->done))
		raid_queue_notify(q);
	return 0;
}

int sync_be_notify(struct raid_queue *q, int efd)
{
	(void)q;
	(void)efd;
	return 0;
}

int sync_be_poll(struct raid_queue *q, bool block, const struct timespec *timeout)
{
	struct sync_be *s = q->be_priv;
	struct mio_list done = STAILQ_HEAD_INITIALIZER(done);
	int n = 0;

	if (STAILQ_EMPTY(&s->done) && !STAILQ_EMPTY(&s->pend))
		sync_be_submit(q);
	/* taken first: a completion may issue more, which the next poll reports */
	STAILQ_CONCAT(&done, &s->done);
	while (!STAILQ_EMPTY(&done)) {
		struct member_io *m = STAILQ_FIRST(&done);

		STAILQ_REMOVE_HEAD(&done, link);
		raid_mio_done(q, m, m->res);
		n++;
	}
	if (n || !block)
		return n;
	struct pollfd p = {.fd = q->doorbell_fd, .events = POLLIN};
	int ms = timeout ? (int)(timeout->tv_sec * 1000 + timeout->tv_nsec / 1000000) : -1;

	if (poll(&p, 1, ms) < 0)
		return errno == EINTR ? 0 : -errno;
	return 0;
}
