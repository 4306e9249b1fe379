/*
 * queue_fd_test.c - raid_queue_fd(), the queue's completion fd, on every backend: each batch
 * of completions makes it readable, it is quiet when nothing happened, a post from another
 * thread racing the caller's wait is never lost, and a ublk server's loop (a poll SQE on the
 * fd in a second io_uring, one wait for both) sees every completion. A lost wakeup shows as
 * a wait that ends empty after WAIT_MS, which fails the test: no assertion is on time.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <unistd.h>

#include "core.h"

#define WAIT_MS 10000 /* far beyond any completion: only a lost wakeup reaches it */
#define NREQ 200
#define BS 4096

struct setup {
	char paths[3][128];
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
};

/* A 3-member RAID5 on files (O_DIRECT ones in dir when direct: the kernel completes them
 * later, from an interrupt, not inside the submit) */
static void setup(struct setup *s, const char *backend, const char *dir, bool direct)
{
	char members[512], be[64], err[RAID_ERRLEN];

	static int n; /* a failed case leaves its array open: the next one takes new files */

	n++;
	for (int i = 0; i < 3; i++)
		snprintf(s->paths[i], sizeof(s->paths[i]), "%s/raid-qfd-%d-%d-%d", dir, getpid(), n,
			 i);
	snprintf(members, sizeof(members), "raid_members=%s:%s:%s", s->paths[0], s->paths[1],
		 s->paths[2]);
	snprintf(be, sizeof(be), "raid_backend=%s", backend);
	t_config(&s->c, "raid_level=5", members, be, "raid_chunk=16k", "raid_member_size=4m", NULL);
	s->c.writes = true;
	s->c.direct = direct;
	if (raid_array_get(&s->c, &s->a, err, sizeof(err)) ||
	    raid_queue_create(s->a, 64, direct, &s->q, err, sizeof(err)))
		fail_msg("%s: %s", backend, err);
}

static void teardown(struct setup *s)
{
	assert_int_equal(raid_queue_inflight(s->q), 0);
	raid_queue_destroy(s->q);
	raid_array_put(s->a);
	raid_config_free(&s->c);
	for (int i = 0; i < 3; i++)
		unlink(s->paths[i]);
}

/* Reap until fewer than max come back, as raid.h asks after a wakeup; the count. */
static int reap_all(struct raid_queue *q)
{
	struct raid_request *out[8];
	int n, got = 0;

	do {
		n = raid_reap(q, 0, 8, NULL, out);
		assert_true(n >= 0);
		for (int i = 0; i < n; i++)
			assert_int_equal(out[i]->error, 0);
		got += n;
	} while (n == 8);
	return got;
}

static bool readable(int fd, int ms)
{
	struct pollfd p = {.fd = fd, .events = POLLIN};

	return poll(&p, 1, ms) == 1;
}

/*
 * Batches of random 4 KiB writes and reads (RAID5: a write reads before it writes, its
 * second step issued inside raid_reap), the caller sleeping in poll() on the fd between
 * reaps: every request comes back, and the fd is quiet once everything is reaped.
 */
static void run_batches(const char *backend, const char *dir, bool direct)
{
	struct setup s;
	struct raid_request *reqs = calloc(NREQ, sizeof(*reqs));
	char *bufs = NULL;
	uint64_t seed = t_seed(backend);
	int fd, done = 0, sent = 0, wakeups = 0;

	assert_int_equal(posix_memalign((void **)&bufs, BS, (size_t)NREQ * BS), 0);
	setup(&s, backend, dir, direct);
	fd = raid_queue_fd(s.q);
	assert_true(fd >= 0);
	assert_int_equal(raid_queue_fd(s.q), fd); /* one fd per queue */
	assert_false(readable(fd, 0));		  /* nothing happened yet */
	while (done < NREQ) {
		/* a batch of up to 16, then sleep on the fd until they are back */
		for (int b = 0; b < 16 && sent < NREQ; b++, sent++) {
			struct raid_request *r = &reqs[sent];

			r->op = t_rand(&seed) % 3 ? RAID_OP_WRITE : RAID_OP_READ;
			r->buf = bufs + (size_t)sent * BS;
			r->offset = t_rand(&seed) % (raid_array_size(s.a) / BS) * BS;
			r->length = BS;
			memset(r->buf, sent & 0xff, BS);
			assert_int_equal(raid_submit(s.q, r), 0);
		}
		assert_int_equal(raid_commit(s.q), 0);
		while (raid_queue_inflight(s.q)) {
			if (!readable(fd, WAIT_MS))
				fail_msg("%s: %u requests in flight and no wakeup in %d ms (lost)",
					 backend, raid_queue_inflight(s.q), WAIT_MS);
			wakeups++;
			done += reap_all(s.q);
		}
	}
	assert_int_equal(done, NREQ);
	/* wakeups batch completions: never more than a few per request */
	assert_true(wakeups >= 1);
	/* a wakeup after the last reap may be left (the kernel signals twice a batch); one
	 * more reap empties it, and then nothing is pending */
	reap_all(s.q);
	assert_false(readable(fd, 0));
	printf("%s%s: %d requests, %d wakeups\n", backend, direct ? " (O_DIRECT)" : "", NREQ,
	       wakeups);
	teardown(&s);
	free(bufs);
	free(reqs);
}

/* --- a post racing the wait ------------------------------------------------------------ */
struct job {
	struct raid_post post;
	struct raid_request req;
	int seq;
	bool with_io;
	char buf[BS] __attribute__((aligned(BS)));
};

struct poster {
	struct raid_queue *q;
	struct job *jobs;
	uint64_t seed;
};

static void finish_job(struct raid_queue *q, struct raid_post *p)
{
	struct job *j = (struct job *)p;

	if (j->with_io) {
		/* the parked request goes on with member I/O, as a write after its parity */
		struct member_io *m = raid_mio_get(q);

		m->op = RAID_OP_READ;
		m->member = j->seq % 3;
		m->offset = (uint64_t)j->seq * BS % (1 << 20);
		m->len = BS;
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
		/* often none: the post then lands while the caller is between reap and poll */
		if (t_rand(&p->seed) % 3 == 0)
			usleep((useconds_t)(t_rand(&p->seed) % 200));
		p->jobs[i].post.fn = finish_job;
		raid_queue_post(p->q, &p->jobs[i].post);
	}
	return NULL;
}

static void run_race(const char *backend)
{
	struct setup s;
	struct job *jobs = NULL;
	struct poster p;
	pthread_t th;
	int fd, got = 0;

	assert_int_equal(posix_memalign((void **)&jobs, BS, NREQ * sizeof(*jobs)), 0);
	memset(jobs, 0, NREQ * sizeof(*jobs));
	setup(&s, backend, "/dev/shm", false);
	for (int i = 0; i < NREQ; i++) {
		jobs[i].seq = i;
		jobs[i].with_io = i % 2 == 0;
		raid_request_hold(s.q, &jobs[i].req);
	}
	fd = raid_queue_fd(s.q);
	assert_true(fd >= 0);
	p = (struct poster){s.q, jobs, t_seed(backend)};
	assert_int_equal(pthread_create(&th, NULL, post_thread, &p), 0);
	for (;;) {
		got += reap_all(s.q);
		if (got == NREQ)
			break;
		if (!readable(fd, WAIT_MS))
			fail_msg("%s: %d of %d back and no wakeup in %d ms (lost)", backend, got,
				 NREQ, WAIT_MS);
	}
	pthread_join(th, NULL);
	teardown(&s);
	free(jobs);
}

/*
 * The ublk server's loop: the fd polled (multishot) from a second io_uring, the thread
 * sleeping only in that ring's wait, requests submitted as they would arrive from it.
 */
static void run_second_ring(const char *backend, const char *dir, bool direct)
{
	struct setup s;
	struct io_uring ring;
	struct io_uring_sqe *sqe;
	struct raid_request *reqs = calloc(NREQ, sizeof(*reqs));
	char *bufs = NULL;
	uint64_t seed = t_seed(backend);
	int fd, done = 0, sent = 0;

	assert_int_equal(posix_memalign((void **)&bufs, BS, (size_t)NREQ * BS), 0);
	setup(&s, backend, dir, direct);
	fd = raid_queue_fd(s.q);
	assert_true(fd >= 0);
	assert_int_equal(io_uring_queue_init(8, &ring, 0), 0);
	sqe = io_uring_get_sqe(&ring);
	io_uring_prep_poll_multishot(sqe, fd, POLLIN);
	io_uring_sqe_set_data64(sqe, 1);
	while (done < NREQ) {
		struct __kernel_timespec ts = {.tv_sec = WAIT_MS / 1000};
		struct io_uring_cqe *cqe;
		bool rearm = false;

		for (int b = 0; b < 8 && sent < NREQ; b++, sent++) {
			struct raid_request *r = &reqs[sent];

			r->op = t_rand(&seed) % 2 ? RAID_OP_WRITE : RAID_OP_READ;
			r->buf = bufs + (size_t)sent * BS;
			r->offset = t_rand(&seed) % (raid_array_size(s.a) / BS) * BS;
			r->length = BS;
			assert_int_equal(raid_submit(s.q, r), 0);
		}
		assert_int_equal(raid_commit(s.q), 0);
		done += reap_all(s.q);
		if (!raid_queue_inflight(s.q))
			continue;
		if (io_uring_submit_and_wait_timeout(&ring, &cqe, 1, &ts, NULL) < 0)
			fail_msg("%s: %u requests in flight and no wakeup in %d ms (lost)", backend,
				 raid_queue_inflight(s.q), WAIT_MS);
		unsigned head, n = 0;

		io_uring_for_each_cqe(&ring, head, cqe)
		{
			assert_true(cqe->res > 0);
			rearm |= !(cqe->flags & IORING_CQE_F_MORE);
			n++;
		}
		io_uring_cq_advance(&ring, n);
		if (rearm) {
			sqe = io_uring_get_sqe(&ring);
			io_uring_prep_poll_multishot(sqe, fd, POLLIN);
			io_uring_sqe_set_data64(sqe, 1);
		}
		done += reap_all(s.q);
	}
	assert_int_equal(done, NREQ);
	io_uring_queue_exit(&ring);
	teardown(&s);
	free(bufs);
	free(reqs);
}

/* where O_DIRECT works (tmpfs has none): /var/tmp, else the case is skipped */
static const char *direct_dir(void)
{
	char path[128];
	int fd;

	snprintf(path, sizeof(path), "/var/tmp/raid-qfd-%d-probe", getpid());
	fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0600);
	if (fd < 0) {
		printf("no O_DIRECT in /var/tmp (%s): skipped\n", strerror(errno));
		skip();
	}
	close(fd);
	unlink(path);
	return "/var/tmp";
}

static void test_uring(void **state)
{
	run_batches("io_uring", "/dev/shm", false);
}
static void test_uring_direct(void **state)
{
	run_batches("io_uring", direct_dir(), true);
}
static void test_aio_direct(void **state)
{
	run_batches("libaio", direct_dir(), true);
}
static void test_psync(void **state)
{
	run_batches("psync", "/dev/shm", false);
}
static void test_ram(void **state)
{
	run_batches("ram", "/dev/shm", false);
}
static void test_race_uring(void **state)
{
	run_race("io_uring");
}
static void test_race_aio(void **state)
{
	run_race("libaio");
}
static void test_race_psync(void **state)
{
	run_race("psync");
}
static void test_second_ring(void **state)
{
	run_second_ring("io_uring", direct_dir(), true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_uring),	cmocka_unit_test(test_uring_direct),
	    cmocka_unit_test(test_aio_direct),	cmocka_unit_test(test_psync),
	    cmocka_unit_test(test_ram),		cmocka_unit_test(test_race_uring),
	    cmocka_unit_test(test_race_aio),	cmocka_unit_test(test_race_psync),
	    cmocka_unit_test(test_second_ring),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
