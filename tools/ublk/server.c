/*
 * server.c - a ublk device over an engine array (server.h). The protocol as Linux 6.12's
 * Documentation/block/ublk.rst describes it: ADD_DEV and SET_PARAMS on /dev/ublk-control,
 * each queue's thread issues one FETCH_REQ per tag on /dev/ublkcN, START_DEV; a completion
 * of a fetch means the tag's descriptor (mmapped from /dev/ublkcN) holds a request, which the
 * thread runs on its engine queue and answers with COMMIT_AND_FETCH_REQ. With
 * UBLK_F_USER_RECOVERY (and _REISSUE) a server that dies leaves the device waiting for the
 * next one (START_USER_RECOVERY ... END_USER_RECOVERY instead of ADD_DEV ... START_DEV).
 */
#include "server.h"

#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "params.h"
#include "ublk_uapi.h"

#define ENGINE_TAG UINT64_MAX /* the poll on the engine's fd; a command's user_data is its tag */

struct ublk_q {
	struct ublk_srv *s;
	int qid;
	pthread_t th;
	bool started;
	struct io_uring ring;
	struct ru_io_desc *descs;
	size_t descs_len;
	char *bufs;
	struct raid_queue *rq;
	int efd;		   /* raid_queue_fd(rq) */
	struct raid_request *reqs; /* one per tag */
	bool *fua;		   /* the tag's write asked for FUA */
	unsigned fetched;	   /* tags whose fetch the driver holds */
	unsigned queued;	   /* SQEs not yet submitted */
	/* what the driver sent (the log's line at stop): requests by op and by size */
	uint64_t nreq[2], bytes[2], nflush, nfua;
	uint64_t nwake; /* wakeups by the engine's fd: 0 after I/O means the poll never fired */
	uint64_t sizes[2][12]; /* a request of at most 4 KiB << i, the last any larger */
	int err;
	char msg[RAID_ERRLEN];
};

struct ublk_srv {
	int id;
	int ctrl_fd, cdev_fd;
	struct io_uring ctrl;
	struct ru_dev_info info;
	struct raid_array *a;
	struct ublk_opts o;
	struct ublk_q *qs;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned ready; /* queues whose fetches are in, or that failed */
	atomic_bool stopping;
};

static int ctrl_cmd(struct ublk_srv *s, unsigned op, struct ru_ctrl_cmd *c)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&s->ctrl);
	struct io_uring_cqe *cqe;
	int ret;

	if (!sqe)
		return -EBUSY;
	c->queue_id = (__u16)-1;	  /* no queue: ADD_DEV refuses any other */
	memset(sqe, 0, 2 * sizeof(*sqe)); /* a 128-byte SQE: the command fills its tail */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = s->ctrl_fd;
	sqe->cmd_op = op;
	memcpy(sqe->cmd, c, sizeof(*c));
	ret = io_uring_submit_and_wait(&s->ctrl, 1);
	if (ret < 0)
		return ret;
	ret = io_uring_wait_cqe(&s->ctrl, &cqe);
	if (ret < 0)
		return ret;
	ret = cqe->res;
	io_uring_cqe_seen(&s->ctrl, cqe);
	return ret;
}

static int dev_info_get(struct ublk_srv *s, int id, struct ru_dev_info *info)
{
	struct ru_ctrl_cmd c = {.dev_id = id, .addr = (uintptr_t)info, .len = sizeof(*info)};

	memset(info, 0, sizeof(*info));
	return ctrl_cmd(s, RU_U_CMD_GET_DEV_INFO, &c);
}

static int simple_cmd(struct ublk_srv *s, unsigned op, uint64_t data)
{
	struct ru_ctrl_cmd c = {.dev_id = s->id, .data = {data}};

	return ctrl_cmd(s, op, &c);
}

static struct io_uring_sqe *q_get_sqe(struct ublk_q *q)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(&q->ring);

	/* the ring holds depth + 1 entries: a command per tag at most, and the engine's poll */
	if (!sqe) {
		io_uring_submit(&q->ring);
		q->queued = 0;
		sqe = io_uring_get_sqe(&q->ring);
	}
	return sqe;
}

/* The engine queue's fd, polled in the ublk ring: one wait covers both (raid_queue_fd). */
static void q_arm_engine(struct ublk_q *q)
{
	struct io_uring_sqe *sqe = q_get_sqe(q);

	if (!sqe)
		return;
	io_uring_prep_poll_multishot(sqe, q->efd, POLLIN);
	io_uring_sqe_set_data64(sqe, ENGINE_TAG);
	q->queued++;
}

static void q_sqe(struct ublk_q *q, unsigned op, unsigned tag, int result)
{
	struct io_uring_sqe *sqe = q_get_sqe(q);
	struct ru_io_cmd *cmd;

	if (!sqe)
		return;
	memset(sqe, 0, sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = q->s->cdev_fd;
	sqe->cmd_op = op;
	sqe->user_data = tag;
	cmd = (struct ru_io_cmd *)sqe->cmd;
	cmd->q_id = q->qid;
	cmd->tag = tag;
	cmd->result = result;
	cmd->addr = (uintptr_t)(q->bufs + (size_t)tag * q->s->o.max_io);
	q->queued++;
}

/* Answer the tag's request (bytes done or -errno) and fetch its next one. */
static void q_complete(struct ublk_q *q, unsigned tag, int res)
{
	q_sqe(q, RU_U_IO_COMMIT_AND_FETCH_REQ, tag, res);
}

static void q_count(struct ublk_q *q, enum raid_op op, uint64_t len, bool fua)
{
	unsigned b = 0;

	while (b < 11 && len > (4096ULL << b))
		b++;
	q->nreq[op]++;
	q->bytes[op] += len;
	q->sizes[op][b]++;
	q->nfua += fua;
}

/* One line: how the block layer cut the I/O (the sizes a 1 MiB write arrived in, etc.). */
static void q_report(const struct ublk_q *q)
{
	char line[512];
	int n = snprintf(line, sizeof(line), "raid-ublk: queue %d served", q->qid);

	for (int op = 0; op < 2; op++) {
		if (!q->nreq[op])
			continue;
		n += snprintf(line + n, sizeof(line) - n,
			      " %llu %s (avg %llu KiB:", (unsigned long long)q->nreq[op],
			      op == RAID_OP_READ ? "reads" : "writes",
			      (unsigned long long)(q->bytes[op] / q->nreq[op] >> 10));
		for (int b = 0; b < 12 && n < (int)sizeof(line); b++)
			if (q->sizes[op][b])
				n += snprintf(line + n, sizeof(line) - n, " %s%lluK x%llu",
					      b == 11 ? ">" : "<=",
					      (unsigned long long)(4ULL << (b == 11 ? 10 : b)),
					      (unsigned long long)q->sizes[op][b]);
		n += snprintf(line + n, sizeof(line) - n, ")");
	}
	if (n < (int)sizeof(line))
		snprintf(line + n, sizeof(line) - n,
			 ", %llu flushes, %llu FUA writes, %llu engine wakeups",
			 (unsigned long long)q->nflush, (unsigned long long)q->nfua,
			 (unsigned long long)q->nwake);
	fprintf(stderr, "%s\n", line);
}

/* A request arrived in tag's descriptor. */
static void q_request(struct ublk_q *q, unsigned tag)
{
	const struct ru_io_desc *d = &q->descs[tag];
	unsigned op = d->op_flags & 0xff;
	uint64_t len = (uint64_t)d->nr_sectors << 9;
	struct raid_request *r = &q->reqs[tag];
	int ret;

	switch (op) {
	case RU_IO_OP_READ:
	case RU_IO_OP_WRITE:
		if (len > q->s->o.max_io || len == 0) {
			q_complete(q, tag, -EINVAL);
			return;
		}
		memset(r, 0, sizeof(*r));
		r->op = op == RU_IO_OP_READ ? RAID_OP_READ : RAID_OP_WRITE;
		r->buf = q->bufs + (size_t)tag * q->s->o.max_io;
		r->offset = d->start_sector << 9;
		r->length = len;
		r->cookie = (void *)(uintptr_t)tag;
		q->fua[tag] = op == RU_IO_OP_WRITE && (d->op_flags & RU_IO_F_FUA);
		q_count(q, r->op, len, q->fua[tag]);
		ret = raid_submit(q->rq, r);
		if (ret < 0)
			q_complete(q, tag, ret);
		return;
	case RU_IO_OP_FLUSH:
		q->nflush++;
		/*
		 * Every write the kernel saw completed has been reaped from the engine (a tag is
		 * answered only then), so fdatasync of the members now covers them all.
		 */
		q_complete(q, tag, raid_array_flush(q->s->a) ? -EIO : 0);
		return;
	default:
		/* discard, write-zeroes: never advertised (params.c), the engine has neither */
		q_complete(q, tag, -EOPNOTSUPP);
		return;
	}
}

static void q_reaped(struct ublk_q *q, struct raid_request *r)
{
	unsigned tag = (unsigned)(uintptr_t)r->cookie;
	int res = r->error ? r->error : (int)r->length;

	/* FUA: the data must be on the members before the write is acknowledged */
	if (!r->error && q->fua[tag] && raid_array_flush(q->s->a))
		res = -EIO;
	q_complete(q, tag, res);
}

static void q_ublk_cqe(struct ublk_q *q, struct io_uring_cqe *cqe)
{
	unsigned tag = (unsigned)cqe->user_data;

	if (cqe->res == 0) {
		if (!atomic_load(&q->s->stopping))
			q_request(q, tag);
		return;
	}
	/* RU_IO_RES_ABORT: the device is going away; anything else: this tag is lost */
	if (cqe->res != RU_IO_RES_ABORT)
		fprintf(stderr, "raid-ublk: queue %d tag %u: the driver answered %d\n", q->qid, tag,
			cqe->res);
	q->fetched--;
}

static int q_setup(struct ublk_q *q)
{
	struct ublk_srv *s = q->s;
	size_t page = sysconf(_SC_PAGESIZE);
	size_t max_len = (RU_MAX_QUEUE_DEPTH * sizeof(struct ru_io_desc) + page - 1) / page * page;
	off_t off = RU_CMD_BUF_OFFSET + (off_t)q->qid * max_len;
	int ret;

	/* bound first, so that the buffers are touched on the members' node */
	if (s->o.pin && sched_setaffinity(0, sizeof(s->o.cpus), &s->o.cpus)) {
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: --cpus: %s", strerror(errno));
		return -errno;
	}
	q->descs_len = (s->o.depth * sizeof(struct ru_io_desc) + page - 1) / page * page;
	q->descs = mmap(NULL, q->descs_len, PROT_READ, MAP_SHARED | MAP_POPULATE, s->cdev_fd, off);
	if (q->descs == MAP_FAILED) {
		q->descs = NULL;
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: mmap of queue %d: %s", q->qid,
			 strerror(errno));
		return -errno;
	}
	if (posix_memalign((void **)&q->bufs, page, (size_t)s->o.depth * s->o.max_io)) {
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: no memory for queue %d", q->qid);
		return -ENOMEM;
	}
	q->reqs = calloc(s->o.depth, sizeof(*q->reqs));
	q->fua = calloc(s->o.depth, sizeof(*q->fua));
	if (!q->reqs || !q->fua)
		return -ENOMEM;
	ret = io_uring_queue_init(s->o.depth + 1, &q->ring, 0);
	if (ret < 0) {
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: io_uring for queue %d: %s", q->qid,
			 strerror(-ret));
		return ret;
	}
	ret = raid_queue_create(s->a, s->o.depth, s->o.direct, &q->rq, q->msg, sizeof(q->msg));
	if (ret < 0)
		return ret;
	raid_queue_register_buffers(q->rq, q->bufs, (size_t)s->o.depth * s->o.max_io);
	q->efd = raid_queue_fd(q->rq);
	if (q->efd < 0) {
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: the engine's completion fd: %s",
			 strerror(-q->efd));
		return q->efd;
	}
	q_arm_engine(q);
	for (unsigned t = 0; t < s->o.depth; t++)
		q_sqe(q, RU_U_IO_FETCH_REQ, t, -1);
	ret = io_uring_submit(&q->ring);
	q->queued = 0;
	if (ret < 0) {
		snprintf(q->msg, sizeof(q->msg), "raid-ublk: FETCH_REQ on queue %d: %s", q->qid,
			 strerror(-ret));
		return ret;
	}
	q->fetched = s->o.depth;
	return 0;
}

static void q_ready(struct ublk_q *q)
{
	pthread_mutex_lock(&q->s->lock);
	q->s->ready++;
	pthread_cond_broadcast(&q->s->cond);
	pthread_mutex_unlock(&q->s->lock);
}

/*
 * One thread per queue sleeps in one place, its ublk ring's wait: a new request arrives
 * there, and so does the engine's news (a multishot poll on raid_queue_fd). It reaps the
 * engine only when that poll fired, until fewer than asked come back (raid.h's rule): a
 * request that completes inside raid_submit or raid_commit signals the fd too.
 */
static void *q_thread(void *arg)
{
	struct ublk_q *q = arg;
	struct ublk_srv *s = q->s;
	struct raid_request *done[64];

	q->err = q_setup(q);
	q_ready(q);
	if (q->err)
		return NULL;
	for (;;) {
		struct __kernel_timespec ts = {0, 200000000}; /* only to notice `stopping` */
		struct io_uring_cqe *cqe;
		unsigned head, n = 0;
		bool rearm = false, engine = false;
		int got;

		if (atomic_load(&s->stopping) && raid_queue_inflight(q->rq) == 0) {
			if (q->queued)
				io_uring_submit(&q->ring);
			break;
		}
		/* the answers queued since go in with the wait */
		io_uring_submit_and_wait_timeout(&q->ring, &cqe, 1, &ts, NULL);
		q->queued = 0;
		io_uring_for_each_cqe(&q->ring, head, cqe)
		{
			if (cqe->user_data == ENGINE_TAG) {
				rearm |= !(cqe->flags & IORING_CQE_F_MORE);
				engine = true;
			} else {
				q_ublk_cqe(q, cqe);
			}
			n++;
		}
		io_uring_cq_advance(&q->ring, n);
		if (rearm)
			q_arm_engine(q);
		raid_commit(q->rq);
		if (!engine)
			continue;
		q->nwake++;
		do {
			got = raid_reap(q->rq, 0, 64, NULL, done);
			for (int i = 0; i < got; i++)
				q_reaped(q, done[i]);
		} while (got == 64);
	}
	return NULL;
}

static void q_free(struct ublk_q *q)
{
	if (q->rq)
		raid_queue_destroy(q->rq);
	if (q->ring.ring_fd > 0)
		io_uring_queue_exit(&q->ring); /* cancels the fetches the driver still holds */
	if (q->descs)
		munmap(q->descs, q->descs_len);
	free(q->bufs);
	free(q->reqs);
	free(q->fua);
}

static void srv_free(struct ublk_srv *s)
{
	for (unsigned i = 0; s->qs && i < s->o.queues; i++) {
		if (s->qs[i].started)
			pthread_join(s->qs[i].th, NULL);
		q_free(&s->qs[i]);
	}
	free(s->qs);
	if (s->cdev_fd >= 0)
		close(s->cdev_fd);
	if (s->ctrl.ring_fd > 0)
		io_uring_queue_exit(&s->ctrl);
	if (s->ctrl_fd >= 0)
		close(s->ctrl_fd);
	free(s);
}

/* devtmpfs (or udev) makes the node a moment after the driver adds it */
static int open_retry(const char *path, int flags)
{
	for (int i = 0; i < 100; i++) {
		int fd = open(path, flags);

		if (fd >= 0 || errno != ENOENT)
			return fd;
		usleep(50000);
	}
	return -1;
}

static int wait_quiesced(struct ublk_srv *s, char *err, size_t errlen)
{
	for (int i = 0; i < 300; i++) {
		int ret = dev_info_get(s, s->id, &s->info);

		if (ret < 0) {
			snprintf(err, errlen, "raid-ublk: --recover: no ublk device %d (%s)", s->id,
				 strerror(-ret));
			return ret;
		}
		if (!(s->info.flags & RU_F_USER_RECOVERY)) {
			snprintf(err, errlen,
				 "raid-ublk: --recover: device %d was not added with "
				 "user recovery",
				 s->id);
			return -EINVAL;
		}
		if (s->info.state == RU_S_DEV_QUIESCED)
			return 0;
		if (s->info.state == RU_S_DEV_LIVE && s->info.ublksrv_pid > 0 &&
		    kill(s->info.ublksrv_pid, 0) == 0) {
			snprintf(err, errlen, "raid-ublk: --recover: device %d is served by pid %d",
				 s->id, s->info.ublksrv_pid);
			return -EBUSY;
		}
		/* the driver notices a dead server within a few seconds */
		usleep(100000);
	}
	snprintf(err, errlen,
		 "raid-ublk: --recover: device %d never waited for a new server "
		 "(state %u)",
		 s->id, s->info.state);
	return -ETIMEDOUT;
}

/* The control device and the ring its commands go through (128-byte entries). */
static int ctrl_open(struct ublk_srv *s, char *err, size_t errlen)
{
	int ret;

	s->ctrl_fd = open(UBLK_CONTROL, O_RDWR | O_CLOEXEC);
	if (s->ctrl_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "raid-ublk: %s: %s", UBLK_CONTROL, strerror(errno));
		return ret;
	}
	ret = io_uring_queue_init(4, &s->ctrl, IORING_SETUP_SQE128);
	if (ret < 0)
		snprintf(err, errlen, "raid-ublk: io_uring with 128-byte entries: %s",
			 strerror(-ret));
	return ret;
}

int ublk_srv_start(struct raid_array *a, const struct ublk_opts *o, unsigned member_lbs,
		   const struct raid_level_info *li, int nmembers, uint64_t chunk,
		   struct ublk_srv **out, char *err, size_t errlen)
{
	struct ublk_srv *s = calloc(1, sizeof(*s));
	struct ru_params p;
	struct ublk_geom g = {
	    .data_members = (int)raid_level_data_members(li, nmembers),
	    .uses_chunk = li->uses_chunk,
	    .chunk = chunk,
	    .volume = raid_array_size(a),
	    .member_lbs = member_lbs,
	    .max_io = o->max_io,
	};
	bool added = false;
	char path[64];
	int ret;

	if (!s)
		return -ENOMEM;
	s->a = a;
	s->o = *o;
	s->id = o->id;
	s->ctrl_fd = s->cdev_fd = -1;
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	ret = ublk_params_make(&g, &p, err, errlen);
	if (ret < 0)
		goto fail;
	ret = ctrl_open(s, err, errlen);
	if (ret < 0)
		goto fail;
	if (o->recover) {
		ret = wait_quiesced(s, err, errlen);
		if (ret < 0)
			goto fail;
		snprintf(path, sizeof(path), "/sys/block/ublkb%d/size", s->id);
		FILE *f = fopen(path, "r");
		unsigned long long sectors = 0;

		if (f) {
			if (fscanf(f, "%llu", &sectors) != 1)
				sectors = 0;
			fclose(f);
		}
		if (sectors && sectors != p.basic.dev_sectors) {
			snprintf(err, errlen,
				 "raid-ublk: --recover: /dev/ublkb%d has %llu sectors, "
				 "the array %llu: not the same options",
				 s->id, sectors, (unsigned long long)p.basic.dev_sectors);
			ret = -EINVAL;
			goto fail;
		}
		s->o.queues = s->info.nr_hw_queues;
		s->o.depth = s->info.queue_depth;
		s->o.max_io = s->info.max_io_buf_bytes;
		ret = simple_cmd(s, RU_U_CMD_START_USER_RECOVERY, 0);
		if (ret < 0) {
			snprintf(err, errlen, "raid-ublk: START_USER_RECOVERY of device %d: %s",
				 s->id, strerror(-ret));
			goto fail;
		}
	} else {
		struct ru_ctrl_cmd c = {.addr = (uintptr_t)&s->info, .len = sizeof(s->info)};

		s->info.nr_hw_queues = o->queues;
		s->info.queue_depth = o->depth;
		s->info.max_io_buf_bytes = o->max_io;
		s->info.dev_id = o->id < 0 ? UINT32_MAX : (uint32_t)o->id;
		s->info.ublksrv_pid = getpid();
		/*
		 * A dead server leaves the device waiting for the next (--recover), and the
		 * requests the dead one held are issued again to the new one rather than failed:
		 * a filesystem on the device sees no error. Writing a block again is harmless,
		 * and the engine resyncs a dirty array before its first I/O.
		 */
		s->info.flags =
		    RU_F_USER_RECOVERY | RU_F_USER_RECOVERY_REISSUE | RU_F_CMD_IOCTL_ENCODE;
		c.dev_id = s->info.dev_id;
		ret = ctrl_cmd(s, RU_U_CMD_ADD_DEV, &c);
		if (ret < 0) {
			snprintf(err, errlen, "raid-ublk: adding a ublk device%s: %s",
				 ret == -EEXIST ? " (that --id is taken)" : "", strerror(-ret));
			goto fail;
		}
		added = true;
		s->id = s->info.dev_id;
		s->o.max_io = s->info.max_io_buf_bytes; /* the driver may round it */
		if (s->o.max_io < o->max_io)
			p.basic.max_sectors = s->o.max_io >> 9;
		struct ru_ctrl_cmd pc = {.dev_id = s->id, .addr = (uintptr_t)&p, .len = sizeof(p)};

		ret = ctrl_cmd(s, RU_U_CMD_SET_PARAMS, &pc);
		if (ret < 0) {
			snprintf(err, errlen, "raid-ublk: the device's parameters were refused: %s",
				 strerror(-ret));
			goto fail;
		}
	}
	snprintf(path, sizeof(path), "/dev/ublkc%d", s->id);
	s->cdev_fd = open_retry(path, O_RDWR | O_CLOEXEC);
	if (s->cdev_fd < 0) {
		ret = -errno;
		snprintf(err, errlen, "raid-ublk: %s: %s", path, strerror(errno));
		goto fail;
	}
	s->qs = calloc(s->o.queues, sizeof(*s->qs));
	if (!s->qs) {
		ret = -ENOMEM;
		goto fail;
	}
	for (unsigned i = 0; i < s->o.queues; i++) {
		s->qs[i].s = s;
		s->qs[i].qid = i;
		s->qs[i].ring.ring_fd = -1;
		if (pthread_create(&s->qs[i].th, NULL, q_thread, &s->qs[i]) == 0)
			s->qs[i].started = true;
		else {
			s->qs[i].err = -EAGAIN;
			s->ready++;
		}
	}
	pthread_mutex_lock(&s->lock);
	while (s->ready < s->o.queues)
		pthread_cond_wait(&s->cond, &s->lock);
	pthread_mutex_unlock(&s->lock);
	for (unsigned i = 0; i < s->o.queues; i++)
		if (s->qs[i].err) {
			ret = s->qs[i].err;
			snprintf(err, errlen, "%s",
				 s->qs[i].msg[0] ? s->qs[i].msg
						 : "raid-ublk: a queue failed to start");
			goto fail_threads;
		}
	ret = simple_cmd(s, o->recover ? RU_U_CMD_END_USER_RECOVERY : RU_U_CMD_START_DEV, getpid());
	if (ret < 0) {
		snprintf(err, errlen, "raid-ublk: %s of device %d: %s",
			 o->recover ? "END_USER_RECOVERY" : "START_DEV", s->id, strerror(-ret));
		goto fail_threads;
	}
	snprintf(path, sizeof(path), "/dev/ublkb%d", s->id);
	for (int i = 0; i < 100 && access(path, F_OK); i++)
		usleep(50000);
	*out = s;
	return 0;

fail_threads:
	atomic_store(&s->stopping, true);
	for (unsigned i = 0; i < s->o.queues; i++)
		if (s->qs[i].started) {
			pthread_join(s->qs[i].th, NULL);
			s->qs[i].started = false;
		}
fail:
	if (added)
		simple_cmd(s, RU_U_CMD_DEL_DEV, 0);
	srv_free(s);
	return ret < 0 ? ret : -EIO;
}

int ublk_srv_id(const struct ublk_srv *s)
{
	return s->id;
}

int ublk_srv_stop(struct ublk_srv *s)
{
	int ret = simple_cmd(s, RU_U_CMD_STOP_DEV, 0), ret2;

	if (ret < 0)
		fprintf(stderr, "raid-ublk: STOP_DEV of device %d: %s\n", s->id, strerror(-ret));
	atomic_store(&s->stopping, true);
	for (unsigned i = 0; i < s->o.queues; i++)
		if (s->qs[i].started) {
			pthread_join(s->qs[i].th, NULL);
			s->qs[i].started = false;
		}
	for (unsigned i = 0; i < s->o.queues; i++) {
		q_report(&s->qs[i]);
		q_free(&s->qs[i]);
		memset(&s->qs[i], 0, sizeof(s->qs[i]));
		s->qs[i].ring.ring_fd = -1;
	}
	close(s->cdev_fd); /* the driver deletes no device whose char device is open */
	s->cdev_fd = -1;
	ret2 = simple_cmd(s, RU_U_CMD_DEL_DEV, 0);
	if (ret2 < 0)
		fprintf(stderr, "raid-ublk: DEL_DEV of device %d: %s\n", s->id, strerror(-ret2));
	srv_free(s);
	return ret < 0 ? ret : ret2;
}

int ublk_dev_delete(int id, char *err, size_t errlen)
{
	struct ublk_srv *s = calloc(1, sizeof(*s));
	int ret;

	if (!s)
		return -ENOMEM;
	s->id = id;
	s->cdev_fd = -1;
	ret = ctrl_open(s, err, errlen);
	if (ret < 0)
		goto out;
	ret = simple_cmd(s, RU_U_CMD_DEL_DEV, 0);
	if (ret < 0)
		snprintf(err, errlen, "raid-ublk: DEL_DEV of device %d: %s", id, strerror(-ret));
out:
	srv_free(s);
	return ret;
}
