/*
 * member_null.c - the null backend: every member I/O succeeds at once and moves no bytes
 * (reads leave the buffer as it was). Measures the engine's own cost per request.
 */
#include "backends.h"

static int null_xfer(struct raid_queue *q, struct member_io *m)
{
	return (int)(m->len - m->done);
}

static int null_init(struct raid_queue *q, char *err, size_t errlen)
{
	return sync_be_init(q, null_xfer);
}

const struct member_backend_ops member_null_ops = {
    .name = "null",
    .kind = RAID_BE_NULL,
    .uses_files = false,
    .init = null_init,
    .exit = sync_be_exit,
    .prep = sync_be_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
};
