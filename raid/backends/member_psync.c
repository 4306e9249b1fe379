/*
 * member_psync.c - the psync backend: pread/pwrite on the member files, one member I/O at
 * a time in the queue's thread (the simplest reference for the asynchronous backends);
 * preadv/pwritev for a merged member I/O.
 */
#include <errno.h>
#include <sys/uio.h>
#include <unistd.h>

#include "backends.h"

static int psync_xfer(struct raid_queue *q, struct member_io *m)
{
	int fd = q->fds[m->dev];
	char *buf = (char *)m->buf + m->done;
	size_t len = m->len - m->done;
	off_t off = (off_t)(m->offset + m->done);
	ssize_t r;

	/* the core continues short transfers and retries EINTR/EAGAIN */
	if (m->iovcnt)
		r = m->op == RAID_OP_READ ? preadv(fd, m->iov, m->iovcnt, off)
					  : pwritev(fd, m->iov, m->iovcnt, off);
	else
		r = m->op == RAID_OP_READ ? pread(fd, buf, len, off) : pwrite(fd, buf, len, off);
	return r < 0 ? -errno : (int)r;
}

static int psync_init(struct raid_queue *q, char *err, size_t errlen)
{
	return sync_be_init(q, psync_xfer);
}

const struct member_backend_ops member_psync_ops = {
    .name = "psync",
    .uses_files = true,
    .init = psync_init,
    .exit = sync_be_exit,
    .prep = sync_be_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
    .notify = sync_be_notify,
};
