/*
 * member_null.c - the null backend: every member I/O succeeds and moves no bytes (reads
 * leave the buffer as it was). Measures the engine's own cost per request.
 *
 * raid_null_delay=US makes every member I/O take US microseconds of the submitting thread,
 * at least: a member of known latency. Like the other synchronous backends (ram copies its
 * bytes there), null does a member I/O's work when the queue submits it, inside
 * raid_commit(), so fio counts the delay in the engine's submission latency (slat) and in
 * the total (lat), not in clat: a report that shows clat as "latency" misses it, which is
 * what tests/e2e/latency.sh catches. Requests of one queue wait for each other's delays, as
 * on a member that does one I/O at a time.
 */
#include "backends.h"

static int null_xfer(struct raid_queue *q, struct member_io *m)
{
	uint64_t delay = (uint64_t)backend_opts(&q->a->cfg)->null_delay_us * 1000;

	if (delay) {
		uint64_t now = raid_now_ns(), due = now + delay;

		/* a sleep may end early (a signal): the delay is a floor */
		for (; now < due; now = raid_now_ns())
			raid_clock_sleep((double)(due - now) / 1e9);
	}
	return (int)(m->len - m->done);
}

static int null_init(struct raid_queue *q, char *err, size_t errlen)
{
	return sync_be_init(q, null_xfer);
}

const struct member_backend_ops member_null_ops = {
    .name = "null",
    .uses_files = false,
    .init = null_init,
    .exit = sync_be_exit,
    .prep = sync_be_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
    .notify = sync_be_notify,
};
