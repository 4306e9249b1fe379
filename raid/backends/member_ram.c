/*
 * member_ram.c - the ram backend: members are anonymous memory of the array (shared by
 * every queue), so a run measures the engine itself, not storage.
 */
#include <string.h>

#include "backends.h"

static int ram_xfer(struct raid_queue *q, struct member_io *m)
{
	unsigned char *mem = q->a->m[m->dev].ram + m->offset + m->done;
	size_t len = m->len - m->done;

	for (int i = 0; i < m->iovcnt; i++) { /* a merged member I/O: a copy per part */
		if (m->op == RAID_OP_READ)
			memcpy(m->iov[i].iov_base, mem, m->iov[i].iov_len);
		else
			memcpy(mem, m->iov[i].iov_base, m->iov[i].iov_len);
		mem += m->iov[i].iov_len;
	}
	if (m->iovcnt)
		return (int)len;

	if (m->op == RAID_OP_READ)
		memcpy((char *)m->buf + m->done, mem, len);
	else
		memcpy(mem, (char *)m->buf + m->done, len);
	return (int)len;
}

static int ram_init(struct raid_queue *q, char *err, size_t errlen)
{
	return sync_be_init(q, ram_xfer);
}

const struct member_backend_ops member_ram_ops = {
    .name = "ram",
    .help = "members in memory",
    .in_memory = true,
    .uses_files = false,
    .init = ram_init,
    .exit = sync_be_exit,
    .prep = sync_be_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
    .notify = sync_be_notify,
};
