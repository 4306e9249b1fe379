/*
 * failure_test.c - the core's member failure handling (failure.c), its one completion and
 * retry path (queue.c, merge.c) and the raid_inject decorator (member_fault.c), against a
 * scriptable backend: each member I/O takes the next scripted result for its member and
 * direction (an errno, or a short count), else moves the bytes like the ram backend. No
 * timing is involved: every result is decided by the script.
 */
#include "testutil.h"

#include <errno.h>

#include "core.h"

#define KIB 1024ULL
#define M2 2
#define M4 4
#define MAX_STEPS 16

static struct step {
	int member;
	enum raid_op op;
	int res; /* negative errno, or bytes to move (a short transfer) */
	bool used;
} script[MAX_STEPS];
static int nsteps;
static unsigned reached[RAID_MAX_MEMBERS][2]; /* member I/Os the backend saw */

static void say(int member, enum raid_op op, int res)
{
	script[nsteps++] = (struct step){member, op, res, false};
}

static int script_xfer(struct raid_queue *q, struct member_io *m)
{
	unsigned char *mem = q->a->m[m->dev].ram + m->offset + m->done;
	uint64_t len = m->len - m->done;

	reached[m->member][m->op]++;
	for (int i = 0; i < nsteps; i++)
		if (!script[i].used && script[i].member == m->member && script[i].op == m->op) {
			script[i].used = true;
			if (script[i].res < 0)
				return script[i].res;
			len = (uint64_t)script[i].res < len ? (uint64_t)script[i].res : len;
			break;
		}
	if (m->iovcnt) { /* a carrier: its parts in order (never scripted short here) */
		for (int i = 0; i < m->iovcnt; i++) {
			if (m->op == RAID_OP_READ)
				memcpy(m->iov[i].iov_base, mem, m->iov[i].iov_len);
			else
				memcpy(mem, m->iov[i].iov_base, m->iov[i].iov_len);
			mem += m->iov[i].iov_len;
		}
		return (int)(m->len - m->done);
	}
	if (m->op == RAID_OP_READ)
		memcpy((char *)m->buf + m->done, mem, len);
	else
		memcpy(mem, (char *)m->buf + m->done, len);
	return (int)len;
}

static int script_init(struct raid_queue *q, char *err, size_t errlen)
{
	return sync_be_init(q, script_xfer);
}

static int ring_busy; /* preps refused with -EBUSY while another I/O is in flight */

/* A ring with no room: -EBUSY at prep, as io_uring's full submission queue gives it. */
static int script_prep(struct raid_queue *q, struct member_io *m)
{
	if (ring_busy && q->be_inflight > 1) {
		ring_busy--;
		return -EBUSY;
	}
	return sync_be_prep(q, m);
}

static const struct member_backend_ops script_ops = {
    .name = "script",
    .init = script_init,
    .exit = sync_be_exit,
    .prep = script_prep,
    .submit = sync_be_submit,
    .poll = sync_be_poll,
};

static struct raid_array *a;
static struct raid_queue *q;
static unsigned char wbuf[64 * KIB], rbuf[64 * KIB];

/* An array over ram members whose queue runs the script (under the decorator if asked). */
static void open_array(const char *level, int n, const char *extra, bool merge)
{
	static int seq; /* fresh names: a test that failed half-way leaves its array open */
	struct raid_config c;
	char err[RAID_ERRLEN], members[128] = "raid_members=";

	seq++;
	for (int i = 0; i < n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s/f%d-%d",
			 i ? ":" : "", seq, i);
	memset(script, 0, sizeof(script));
	memset(reached, 0, sizeof(reached));
	nsteps = 0;
	t_config(&c, level, members, "raid_backend=ram", "raid_member_size=1m", "raid_chunk=16k",
		 merge ? "raid_merge=1" : "raid_merge=0", extra, NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	a->be = &script_ops; /* before any queue: every queue of this array runs the script */
	if (raid_queue_create(a, 16, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	for (size_t i = 0; i < sizeof(wbuf); i++)
		wbuf[i] = (unsigned char)(i * 7 + 3);
}

static void close_array(void)
{
	raid_queue_destroy(q);
	raid_array_put(a);
}

/* EINVAL is the request's fault: it fails with EINVAL and the member stays. */
static void test_request_error_is_not_a_failure(void **state)
{
	open_array("raid_level=1", M2, NULL, false);
	say(0, RAID_OP_WRITE, -EINVAL);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 4 * KIB), -EINVAL);
	assert_false(raid_member_failed(a, 0));
	assert_int_equal(raid_array_events(a), 0);
	close_array();
}

/* EBUSY, a resource short for a moment, is no member failure either. */
static void test_busy_is_not_a_failure(void **state)
{
	open_array("raid_level=1", M2, NULL, false);
	say(1, RAID_OP_WRITE, -EBUSY);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 4 * KIB), -EBUSY);
	assert_false(raid_member_failed(a, 0) || raid_member_failed(a, 1));
	assert_int_equal(raid_array_events(a), 0);
	close_array();
	/* a full ring at prep: the I/O waits in the backlog and lands, nothing fails */
	open_array("raid_level=1", M2, NULL, false);
	ring_busy = 1;
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 8 * KIB), 0);
	assert_int_equal(ring_busy, 0); /* it was refused once */
	assert_false(raid_member_failed(a, 0) || raid_member_failed(a, 1));
	assert_memory_equal(a->m[0].ram, wbuf, 8 * KIB);
	assert_memory_equal(a->m[1].ram, wbuf, 8 * KIB);
	close_array();
}

/* What a failure says: RAID0 and an array beyond tolerance never "continue without it". */
static void test_failure_messages(void **state)
{
	open_array("raid_level=0", M2, NULL, false);
	t_log[0] = 0;
	assert_int_equal(raid_array_fail_member(a, 1), 0);
	assert_non_null(strstr(t_log, "raid_level=0 has no redundancy, I/O that touches it fails"));
	assert_null(strstr(t_log, "continues without it"));
	close_array();
	open_array("raid_level=1", M2, NULL, false);
	t_log[0] = 0;
	assert_int_equal(raid_array_fail_member(a, 0), 0);
	assert_non_null(strstr(t_log, "member 0 (/f"));
	assert_non_null(strstr(t_log, "the array continues without it"));
	t_log[0] = 0;
	assert_int_equal(raid_array_fail_member(a, 1), 0);
	assert_non_null(strstr(t_log, "has lost more than raid_level=1 tolerates"));
	assert_null(strstr(t_log, "continues without it"));
	close_array();
}

/* EIO is the member's: it leaves the array (an event), the read is retried elsewhere. */
static void test_media_error_fails_member_and_retries(void **state)
{
	open_array("raid_level=1", M2, NULL, false);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	say(0, RAID_OP_READ, -EIO);
	say(1, RAID_OP_READ, -EIO); /* whichever copy is read first fails */
	memset(rbuf, 0, sizeof(rbuf));
	/* both copies fail once: two members leave, and the third retry has none left */
	assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 16 * KIB), -EIO);
	assert_true(raid_member_failed(a, 0) && raid_member_failed(a, 1));
	assert_int_equal(raid_array_events(a), 2);
	close_array();

	open_array("raid_level=1", M2, NULL, false);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	say(0, RAID_OP_READ, -EIO);
	say(0, RAID_OP_READ, -EIO);
	memset(rbuf, 0, sizeof(rbuf));
	for (int i = 0; i < 4; i++) /* ties rotate: member 0 is picked, and fails, once */
		assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 16 * KIB), 0);
	assert_memory_equal(rbuf, wbuf, 16 * KIB);
	assert_true(raid_member_failed(a, 0));
	assert_false(raid_member_failed(a, 1));
	assert_int_equal(reached[0][RAID_OP_READ], 1);
	close_array();
}

/* The record of failures (a->record, the state file's save in the service): scripted. */
static bool record_ok;
static int records;

static int script_record(struct raid_array *arr)
{
	records++;
	raid_failures_recorded(arr, atomic_load(&arr->fail_seq), record_ok);
	return record_ok ? 0 : -ENOSPC;
}

/*
 * No write is acknowledged before the record holds the failure it ran under: while the
 * record cannot be written each write fails with EIO (and tries it again); once it can,
 * one save covers every later write. Reads never wait for it.
 */
static void test_unrecorded_failure_stops_writes(void **state)
{
	open_array("raid_level=1", M2, NULL, false);
	a->record = script_record;
	record_ok = false;
	records = 0;
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	assert_int_equal(records, 0); /* nothing failed: nothing to record */
	say(0, RAID_OP_WRITE, -EIO);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), -EIO);
	assert_true(raid_member_failed(a, 0));
	assert_int_equal(records, 1);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 16 * KIB, 16 * KIB), -EIO);
	assert_int_equal(records, 2);
	assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 16 * KIB), 0);
	assert_int_equal(records, 2);
	record_ok = true; /* the disk has room again */
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 16 * KIB, 16 * KIB), 0);
	assert_int_equal(records, 3);
	a->record = NULL;
	close_array();
}

/*
 * The gate at the acknowledgement (raid_request_finish), for what the submit gate cannot see:
 * a RAID5 write submitted before a member failed and staged after it. Two 4 KiB writes to
 * the same columns of member 0 (stripe 0; member 3 holds its parity): A, a read-modify-write,
 * reads member 0, which fails there, and the record cannot be written; B waited for the
 * stripe behind A, so its write stage runs around member 0 (parity alone, RCW). Member 0,
 * which a restart trusts (its failure is in no record), is stale under B: B must fail.
 */
static void test_unrecorded_failure_stops_staged_write(void **state)
{
	struct raid_request r[2], *out[2];
	unsigned char old[4 * KIB];

	open_array("raid_level=5", M4, "raid_rmw=rmw", false);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 48 * KIB), 0); /* one full stripe */
	memcpy(old, a->m[0].ram, sizeof(old));
	a->record = script_record;
	record_ok = false;
	records = 0;
	say(0, RAID_OP_READ, -EIO); /* A's read of the old data */
	for (int i = 0; i < 2; i++) {
		r[i] = (struct raid_request){
		    .op = RAID_OP_WRITE, .buf = wbuf + (i + 1) * 4 * KIB, .offset = 0, .length = 4 * KIB};
		assert_int_equal(raid_submit(q, &r[i]), 0); /* nothing failed yet: both admitted */
	}
	raid_commit(q);
	assert_int_equal(raid_reap(q, 2, 2, &(struct timespec){10, 0}, out), 2);
	assert_true(raid_member_failed(a, 0));
	assert_int_equal(r[0].error, -EIO);
	assert_memory_equal(a->m[0].ram, old, sizeof(old)); /* B's bytes never reached member 0 */
	assert_int_equal(r[1].error, -EIO);		    /* so B is not acknowledged */
	assert_true(records >= 2);			    /* each write tried the record */
	a->record = NULL;
	close_array();
}

/* Short transfers continue, EAGAIN is retried: neither is a failure. */
static void test_short_and_again(void **state)
{
	open_array("raid_level=1", M2, NULL, false);
	say(0, RAID_OP_WRITE, 1000);
	say(1, RAID_OP_WRITE, -EAGAIN);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 8 * KIB), 0);
	assert_false(raid_member_failed(a, 0) || raid_member_failed(a, 1));
	assert_int_equal(reached[0][RAID_OP_WRITE], 2); /* 1000 bytes, then the rest */
	assert_int_equal(reached[1][RAID_OP_WRITE], 2); /* EAGAIN, then all */
	assert_memory_equal(a->m[0].ram, wbuf, 8 * KIB);
	assert_memory_equal(a->m[1].ram, wbuf, 8 * KIB);
	close_array();
}

/* RAID0 (md): the error is the answer, nothing is marked, nothing retried. */
static void test_raid0_keeps_members(void **state)
{
	open_array("raid_level=0", M2, NULL, false);
	say(0, RAID_OP_READ, -EIO);
	assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 4 * KIB), -EIO);
	assert_false(raid_member_failed(a, 0));
	assert_int_equal(reached[0][RAID_OP_READ], 1);
	close_array();
}

/* A RAID5 write whose member fails is retried by the core (not by the level) and lands. */
static void test_raid5_write_retry(void **state)
{
	open_array("raid_level=5", M4, NULL, false);
	say(2, RAID_OP_WRITE, -EIO);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 48 * KIB), 0); /* one full stripe */
	assert_true(raid_member_failed(a, 2));
	memset(rbuf, 0, sizeof(rbuf));
	assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 48 * KIB), 0); /* degraded */
	assert_memory_equal(rbuf, wbuf, 48 * KIB);
	close_array();
}

/* A failed carrier (raid_merge) is said and counted once; every part sees the error. */
static void test_carrier_fails_as_one(void **state)
{
	struct raid_request r[4], *out[4];

	open_array("raid_level=1", M2, NULL, true);
	say(0, RAID_OP_WRITE, -EIO);
	for (int i = 0; i < 4; i++) {
		r[i] = (struct raid_request){.op = RAID_OP_WRITE,
					     .buf = wbuf + i * 4 * KIB,
					     .offset = i * 4 * KIB,
					     .length = 4 * KIB};
		assert_int_equal(raid_submit(q, &r[i]), 0);
	}
	raid_commit(q);
	assert_int_equal(raid_reap(q, 4, 4, &(struct timespec){10, 0}, out), 4);
	for (int i = 0; i < 4; i++)
		assert_int_equal(r[i].error, 0); /* retried onto member 1 alone */
	assert_int_equal(q->c.errors, 1);
	/* both members' first round, then the retries on member 1, went as one each */
	assert_int_equal(q->c.merged, 3 + 3 + 3);
	assert_true(raid_member_failed(a, 0));
	close_array();
}

/* raid_inject: an injected I/O never reaches the member, and fails it like a media error. */
static void test_inject_decorator(void **state)
{
	open_array("raid_level=1", M2, "raid_inject=0:read:100", false);
	assert_ptr_equal(q->be, member_injector());
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	for (int i = 0; i < 4; i++) /* ties rotate: member 0 is picked at least once */
		assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 16 * KIB), 0);
	assert_memory_equal(rbuf, wbuf, 16 * KIB);
	assert_int_equal(reached[0][RAID_OP_READ], 0);
	assert_true(raid_member_failed(a, 0));
	assert_int_equal(q->c.errors, 1);
	close_array();

	/* 0%: the decorator is there and changes nothing */
	open_array("raid_level=1", M2, "raid_inject=0:read:0", false);
	assert_int_equal(t_io(q, RAID_OP_WRITE, wbuf, 0, 16 * KIB), 0);
	for (int i = 0; i < 4; i++)
		assert_int_equal(t_io(q, RAID_OP_READ, rbuf, 0, 16 * KIB), 0);
	assert_false(raid_member_failed(a, 0));
	assert_int_equal(q->c.errors, 0);
	close_array();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_request_error_is_not_a_failure),
	    cmocka_unit_test(test_busy_is_not_a_failure),
	    cmocka_unit_test(test_failure_messages),
	    cmocka_unit_test(test_media_error_fails_member_and_retries),
	    cmocka_unit_test(test_unrecorded_failure_stops_writes),
	    cmocka_unit_test(test_unrecorded_failure_stops_staged_write),
	    cmocka_unit_test(test_short_and_again),
	    cmocka_unit_test(test_raid0_keeps_members),
	    cmocka_unit_test(test_raid5_write_retry),
	    cmocka_unit_test(test_carrier_fails_as_one),
	    cmocka_unit_test(test_inject_decorator),
	};

	t_log_start(); /* the failure lines are expected: kept, not printed */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
