/*
 * pipe_test.c - the rebuild's windows in flight (rebuild_pipe.c) against a gated backend
 * on ram members: every poll completes one member I/O, the newest read first and spare
 * writes only when no read is left, so several windows are in flight and complete out of
 * order. Checked: the spare ends equal to the lost
 * member (RAID1, RAID10, RAID5, RAID6); the front (recovery_offset, which the checkpoint
 * records) never passes a window whose spare writes have not all completed; a source read
 * failing in the middle of a window is read around; a write into a window in flight parks
 * and lands on the spare once the window is past; a stop with windows in flight drains
 * their I/O and leaves the front at the last window written. The clock is a fake one that
 * every poll moves on, so pacing never sleeps; nothing depends on timing.
 */
#include "core/testutil.h"

#include <errno.h>

#include "core/core.h"
#include "recovery/passes/passes.h"

#define KIB 1024ULL
#define MSIZE (1024 * KIB)
#define CHUNK (16 * KIB)
#define PER_POLL 1 /* member I/Os a poll completes */

static struct gate {
	struct mio_list pend;
	int npend, target, spare;
	uint64_t wlen;		     /* a window's length: their starts are multiples of it */
	int most;		     /* most windows with I/O pending at one poll */
	bool front_passed;	     /* the front passed a spare write still pending */
	int fail_member;	     /* fail its first read past fail_off (-1: none) */
	uint64_t fail_off;
	bool stop_in_flight;	     /* stop the pass once it retired a window with more in flight */
	struct raid_queue *fg_q;     /* a foreground write submitted at fg_at polls */
	struct raid_request fg;
	int fg_at, polls;
	bool fg_parked;		     /* it did not reach any member while its window was locked */
	struct raid_recovery *rec;
} g;

static _Atomic uint64_t fake_ns;

static uint64_t fake_clock(void)
{
	return atomic_load(&fake_ns);
}

static int gate_init(struct raid_queue *q, char *err, size_t errlen)
{
	q->be_capacity = UINT32_MAX;
	return 0;
}

static void gate_exit(struct raid_queue *q)
{
}

static int gate_prep(struct raid_queue *q, struct member_io *m)
{
	STAILQ_INSERT_TAIL(&g.pend, m, link);
	g.npend++;
	return 0;
}

static int gate_submit(struct raid_queue *q)
{
	return 0;
}

static int xfer(struct raid_queue *q, struct member_io *m)
{
	unsigned char *mem = q->a->m[m->dev].ram + m->offset;

	if (m->member == g.fail_member && m->op == RAID_OP_READ &&
	    m->offset + m->len > g.fail_off) {
		g.fail_member = -1;
		return -EIO;
	}
	for (int i = 0; i < m->iovcnt; i++) {
		if (m->op == RAID_OP_READ)
			memcpy(m->iov[i].iov_base, mem, m->iov[i].iov_len);
		else
			memcpy(mem, m->iov[i].iov_base, m->iov[i].iov_len);
		mem += m->iov[i].iov_len;
	}
	if (!m->iovcnt && m->op == RAID_OP_READ)
		memcpy(m->buf, mem, m->len);
	else if (!m->iovcnt)
		memcpy(mem, m->buf, m->len);
	return (int)m->len;
}

/* What the pass may never do: a front past a spare write not yet completed. */
static void look(void)
{
	uint64_t front = atomic_load(&g.rec->a->m[g.target].recovery_offset);
	uint64_t starts[64];
	int n = 0;
	struct member_io *m;

	STAILQ_FOREACH(m, &g.pend, link) {
		uint64_t w = m->offset / g.wlen * g.wlen;
		bool dup = false;

		if (m->op == RAID_OP_WRITE && m->dev == g.spare && m->offset < front)
			g.front_passed = true;
		for (int i = 0; i < n; i++)
			dup |= starts[i] == w;
		if (!dup && n < 64)
			starts[n++] = w;
	}
	g.most = n > g.most ? n : g.most;
	if (g.stop_in_flight && front > 0 && n > 1)
		atomic_store(&g.rec->stop, true);
}

static int gate_poll(struct raid_queue *q, bool block, const struct timespec *timeout)
{
	struct member_io *done[PER_POLL];
	int n = 0;

	atomic_fetch_add(&fake_ns, 1000000000ULL); /* a second a poll: pacing never waits */
	look();
	g.polls++;
	if (g.fg_q && g.polls == g.fg_at) {
		struct raid_queue *fq = g.fg_q;

		assert_int_equal(raid_submit(fq, &g.fg), 0);
		raid_commit(fq);
		g.fg_parked = !fq->c.m_writes; /* no member I/O went out for it */
	}
	/* the newest read first, writes only when no read is left: later windows are read
	 * while an earlier window's spare writes wait */
	while (n < PER_POLL && g.npend) {
		struct member_io *m, *last = NULL;

		STAILQ_FOREACH(m, &g.pend, link)
			if (m->op == RAID_OP_READ)
				last = m;
		if (!last)
			STAILQ_FOREACH(m, &g.pend, link)
				last = m;
		STAILQ_REMOVE(&g.pend, last, member_io, link);
		g.npend--;
		done[n++] = last;
	}
	for (int i = 0; i < n; i++)
		raid_mio_done(q, done[i], xfer(q, done[i]));
	return n;
}

static const struct member_backend_ops gate_ops = {
    .name = "gate",
    .init = gate_init,
    .exit = gate_exit,
    .prep = gate_prep,
    .submit = gate_submit,
    .poll = gate_poll,
};

static struct raid_array *a;
static struct raid_queue *fq; /* the foreground's queue (ram) */

/* An array of n ram members and one spare, filled with a pattern through the level. */
static void open_array(const char *level, int n)
{
	static int seq;
	struct raid_config c;
	char err[RAID_ERRLEN], members[160] = "raid_members=", spare[64];
	unsigned char *buf = malloc(256 * KIB);

	seq++;
	for (int i = 0; i < n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s/p%d-%d",
			 i ? ":" : "", seq, i);
	snprintf(spare, sizeof(spare), "raid_spares=/p%d-s", seq);
	/* rebuild_max 1 MB/s: windows of 7 chunks (an eighth of a second's worth) */
	t_config(&c, level, members, spare, "raid_backend=ram", "raid_member_size=1m",
		 "raid_chunk=16k", "raid_rebuild_max=1", "raid_rebuild_min=1", NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)))
		fail_msg("%s", err);
	raid_config_free(&c);
	if (raid_queue_create(a, 16, false, &fq, err, sizeof(err)))
		fail_msg("%s", err);
	for (uint64_t off = 0; off < a->size; off += 256 * KIB) {
		uint64_t len = a->size - off < 256 * KIB ? a->size - off : 256 * KIB;

		for (uint64_t i = 0; i < len; i++)
			buf[i] = (unsigned char)((off + i) * 2654435761u >> 13);
		assert_int_equal(t_io(fq, RAID_OP_WRITE, buf, off, len), 0);
	}
	free(buf);
}

static void close_array(void)
{
	raid_queue_destroy(fq);
	assert_int_equal(raid_array_put(a), 0);
}

/*
 * Fail member t, give it the spare (device n), and run the windows of a pass on a queue
 * over the gate. Returns the pass's result; p holds where it ended.
 */
static int run_pass(int t, struct rec_pass *p, struct raid_recovery *rec)
{
	char err[RAID_ERRLEN];
	int ret;

	memset(&g, 0, sizeof(g));
	STAILQ_INIT(&g.pend);
	g.target = t;
	g.spare = a->geom.n;
	g.fail_member = -1;
	g.rec = rec;
	g.wlen = 7 * CHUNK;
	rec->a = a;
	raid_member_fail(a, t);
	atomic_store(&a->m[t].recovery_offset, 0);
	atomic_store(&a->m[t].dev, a->geom.n);
	a->be = &gate_ops;
	ret = raid_queue_create(a, 64, false, &rec->q, err, sizeof(err));
	a->be = member_backend(t_backend("ram"));
	if (ret)
		fail_msg("%s", err);
	*p = (struct rec_pass){.targets = 1ULL << t, .msize = a->geom.member_size,
			       .unit = CHUNK, .last_cp = 1e300, .next_log = 2};
	for (int k = 0; k < REC_WINDOWS; k++) {
		for (int m = 0; m < a->geom.n; m++)
			assert_non_null(p->bufs[k][m] = rec_alloc(REC_REGION_MAX));
		p->win[k].bufs = p->bufs[k];
	}
	return 0;
}

static int go(struct raid_recovery *rec, struct rec_pass *p)
{
	int ret;

	raid_quiesce_track(a, a->ops->rows_recover, 0);
	ret = rec_pass_windows(rec, p);
	if (raid_quiesce_held(a))
		raid_quiesce_unlock(a);
	raid_quiesce_track(a, false, 0);
	/* every window's I/O completed before it returned */
	assert_int_equal(g.npend, 0);
	assert_int_equal(raid_queue_inflight(rec->q), 0);
	return ret;
}

static void end_pass(struct raid_recovery *rec, struct rec_pass *p)
{
	for (int k = 0; k < REC_WINDOWS; k++)
		for (int m = 0; m < a->geom.n; m++)
			free(p->bufs[k][m]);
	raid_queue_destroy(rec->q);
}

/* The spare holds what member t held over [0, len). */
static void spare_equals(int t, const unsigned char *want, uint64_t len)
{
	assert_memory_equal(a->m[a->geom.n].ram, want, len);
}

static void rebuild_level(const char *level, int n, int t, int fail_member)
{
	struct raid_recovery rec = {0};
	struct rec_pass p;
	unsigned char *want;

	open_array(level, n);
	want = malloc(MSIZE);
	memcpy(want, a->m[t].ram, MSIZE);
	run_pass(t, &p, &rec);
	if (fail_member >= 0) { /* a source read fails in the middle of a window in flight */
		g.fail_member = fail_member;
		g.fail_off = 3 * g.wlen + CHUNK;
	}
	assert_int_equal(go(&rec, &p), 0);
	assert_int_equal(p.front, MSIZE);
	assert_int_equal(rec.res.bytes, MSIZE);
	assert_true(g.most > 1); /* several windows were in flight at once */
	assert_false(g.front_passed);
	if (fail_member >= 0) {
		assert_int_equal(g.fail_member, -1); /* the read did fail... */
		assert_true(raid_member_failed(a, fail_member)); /* ...and failed its member */
	}
	spare_equals(t, want, MSIZE);
	end_pass(&rec, &p);
	free(want);
	close_array();
}

static void test_raid1(void **state)
{
	rebuild_level("raid_level=1", 2, 1, -1);
}

static void test_raid10(void **state)
{
	rebuild_level("raid_level=10", 4, 2, -1);
}

static void test_raid5(void **state)
{
	rebuild_level("raid_level=5", 5, 1, -1);
}

static void test_raid6(void **state)
{
	rebuild_level("raid_level=6", 6, 4, -1);
}

/* RAID6 loses a second member mid-window: that window and the later ones read around it. */
static void test_raid6_source_fails(void **state)
{
	rebuild_level("raid_level=6", 6, 1, 3);
}

/* RAID1 of three: the copy being read fails mid-window; the third copy serves. */
static void test_raid1_source_fails(void **state)
{
	rebuild_level("raid_level=1", 3, 1, 0);
}

/* A write into a window in flight parks, then lands on the survivor and on the spare. */
static void test_write_parks(void **state)
{
	struct raid_recovery rec = {0};
	struct raid_request *out[1];
	struct rec_pass p;
	unsigned char *buf = malloc(4 * KIB);

	open_array("raid_level=1", 2);
	memset(buf, 0x5a, 4 * KIB);
	run_pass(1, &p, &rec);
	/* at the third poll the first windows are locked and not written yet */
	g.fg_q = fq;
	g.fg_at = 3;
	g.fg = (struct raid_request){.op = RAID_OP_WRITE, .buf = buf, .offset = CHUNK,
				     .length = 4 * KIB};
	fq->c.m_writes = 0;
	assert_int_equal(go(&rec, &p), 0);
	assert_true(g.fg_parked);
	raid_commit(fq);
	assert_int_equal(raid_reap(fq, 1, 1, &(struct timespec){10, 0}, out), 1);
	assert_ptr_equal(out[0], &g.fg);
	assert_int_equal(g.fg.error, 0);
	assert_memory_equal(a->m[0].ram + CHUNK, buf, 4 * KIB);
	assert_memory_equal(a->m[a->geom.n].ram + CHUNK, buf, 4 * KIB);
	assert_memory_equal(a->m[0].ram, a->m[a->geom.n].ram, MSIZE);
	end_pass(&rec, &p);
	free(buf);
	close_array();
}

/* Stopped with windows in flight: their I/O drains; the front is the last window written. */
static void test_stop_in_flight(void **state)
{
	struct raid_recovery rec = {0};
	struct rec_pass p;

	open_array("raid_level=5", 4);
	run_pass(2, &p, &rec);
	g.stop_in_flight = true;
	assert_int_equal(go(&rec, &p), 0);
	assert_true(g.most > 1);
	assert_false(g.front_passed);
	assert_true(p.front > 0 && p.front < MSIZE);
	assert_int_equal(p.front % g.wlen, 0);
	assert_int_equal(atomic_load(&a->m[2].recovery_offset), p.front);
	/* everything below the front is rebuilt (a degraded read of member 2's rows) */
	{
		unsigned char *want = malloc(MSIZE);
		void *bufs[RAID_MAX_MEMBERS];

		for (int m = 0; m < a->geom.n; m++)
			bufs[m] = m == 2 ? want : a->m[m].ram;
		a->ops->rows_recover(a, 0, p.front, 1ULL << 2, bufs);
		spare_equals(2, want, p.front);
		free(want);
	}
	end_pass(&rec, &p);
	close_array();
}

static int setup(void **state)
{
	atomic_store(&fake_ns, 1000000000ULL);
	raid_clock_set(fake_clock);
	return 0;
}

static int teardown(void **state)
{
	raid_clock_set(NULL);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raid1),
	    cmocka_unit_test(test_raid10),
	    cmocka_unit_test(test_raid5),
	    cmocka_unit_test(test_raid6),
	    cmocka_unit_test(test_raid6_source_fails),
	    cmocka_unit_test(test_raid1_source_fails),
	    cmocka_unit_test(test_write_parks),
	    cmocka_unit_test(test_stop_in_flight),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
