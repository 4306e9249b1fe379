/*
 * doorbell_test.c - handing work back to a queue from another thread (raid_queue_post):
 * for every backend, a thread posts completions of parked requests with random delays
 * while the queue's thread blocks in raid_reap(); every post must wake it, in order, and
 * work issued from a post (member I/O) must be committed and reaped like any other.
 */
#include "testutil.h"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include "core.h"

#define NREQ 300

struct job {
	struct raid_post post;
	struct raid_request req;
	int seq;
	bool with_io;
	char buf[4096];
};

struct poster {
	struct raid_queue *q;
	struct job *jobs;
	uint64_t seed;
};

static int finished_order[NREQ];
static int nfinished;

static void finish_job(struct raid_queue *q, struct raid_post *p)
{
	struct job *j = (struct job *)p;

	finished_order[nfinished++] = j->seq;
	if (j->with_io) {
		/* the parked request continues with member I/O, like a RAID5 write after parity */
		struct member_io *m = raid_mio_get(q);

		m->op = RAID_OP_READ;
		m->member = 0;
		m->offset = (uint64_t)j->seq * 4096 % (1 << 20);
		m->len = 4096;
		m->buf = j->buf;
		raid_mio_issue(q, &j->req, m);
	} else {
		raid_request_finish(q, &j->req);
	}
}

static void *post_thread(void *arg)
{
	struct poster *p = arg;

	for (int i = 0; i < NREQ; i++) {
		if (t_rand(&p->seed) % 4 == 0)
			usleep((useconds_t)(t_rand(&p->seed) % 300));
		p->jobs[i].post.fn = finish_job;
		raid_queue_post(p->q, &p->jobs[i].post);
	}
	return NULL;
}

static void run_backend(const char *backend)
{
	char members[256], be[64], err[RAID_ERRLEN];
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	struct job *jobs = calloc(NREQ, sizeof(*jobs));
	struct poster p;
	pthread_t th;
	int got = 0;

	snprintf(members, sizeof(members),
		 "raid_members=/dev/shm/raid-db-%d-a:/dev/shm/raid-db-%d-b", getpid(), getpid());
	snprintf(be, sizeof(be), "raid_backend=%s", backend);
	t_config(&c, "raid_level=1", members, be, "raid_member_size=1m", NULL);
	c.writes = true;
	if (raid_array_get(&c, &a, err, sizeof(err)) ||
	    raid_queue_create(a, 8, false, &q, err, sizeof(err)))
		fail_msg("%s: %s", backend, err);
	nfinished = 0;
	for (int i = 0; i < NREQ; i++) {
		jobs[i].seq = i;
		jobs[i].with_io = i % 3 == 0;
		jobs[i].req.cookie = &jobs[i];
		raid_request_hold(q, &jobs[i].req);
	}
	/* nothing posted yet: a timed wait returns empty-handed */
	{
		struct raid_request *out[4];
		struct timespec ts = {0, 10 * 1000 * 1000};

		assert_int_equal(raid_reap(q, 1, 4, &ts, out), 0);
	}
	p = (struct poster){q, jobs, t_seed(backend)};
	assert_int_equal(pthread_create(&th, NULL, post_thread, &p), 0);
	while (got < NREQ) {
		struct raid_request *out[16];
		int n = raid_reap(q, 1, 16, NULL, out);

		assert_true(n >= 1);
		for (int i = 0; i < n; i++)
			assert_int_equal(out[i]->error, 0);
		got += n;
	}
	pthread_join(th, NULL);
	assert_int_equal(nfinished, NREQ);
	for (int i = 0; i < NREQ; i++)
		assert_int_equal(finished_order[i], i); /* posts run in the order posted */
	assert_int_equal(raid_queue_inflight(q), 0);
	raid_queue_destroy(q);
	raid_array_put(a);
	raid_config_free(&c);
	snprintf(members, sizeof(members), "/dev/shm/raid-db-%d-a", getpid());
	unlink(members);
	snprintf(members, sizeof(members), "/dev/shm/raid-db-%d-b", getpid());
	unlink(members);
	free(jobs);
}

static void test_uring(void **state)
{
	run_backend("io_uring");
}
static void test_aio(void **state)
{
	run_backend("libaio");
}
static void test_psync(void **state)
{
	run_backend("psync");
}
static void test_ram(void **state)
{
	run_backend("ram");
}
static void test_null(void **state)
{
	run_backend("null");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uring), cmocka_unit_test(test_aio),  cmocka_unit_test(test_psync),
	    cmocka_unit_test(test_ram),	  cmocka_unit_test(test_null),
	};

	alarm(60); /* a lost wake-up would hang: fail loudly instead */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
