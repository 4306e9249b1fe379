/*
 * raid56_random_test.c - the library against an in-memory model of the volume, with RAID5/6
 * as the main subject and RAID 0/1/10 alongside: random geometries (3..24 members, chunk,
 * layout, failed members within tolerance, raid_rmw, raid_workers, raid_stripe_cache),
 * the ram backend and the file backends, random reads and writes of random sizes and
 * offsets, up to INFLIGHT at once per thread, from 1 to 3 threads sharing one array. With
 * several threads each owns every T-th granule of the volume (granules are smaller than a
 * stripe, so the threads' writes meet in the same stripes); in flight, a thread's requests
 * never overlap each other. Every read is compared with the model; RAID5/6 rounds may
 * lose a member half-way. At the end the whole volume is read back, and every stripe of
 * every surviving member is compared with md's bytes (raid56_testmodel.h, pq_calls_base).
 *
 * At least MIN_OPS requests per run; the seed is printed, RAID_TEST_SEED=<seed> replays
 * the same geometries and requests (the threads' interleaving aside).
 */
#include "core/testutil.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "core/core.h"
#include "raid56_testmodel.h"

/* raid56_gpu_test builds this file with TEST_PARITY "cuda" and a mock GPU */
#ifndef TEST_PARITY
#define TEST_PARITY "cpu"
#endif

#define INFLIGHT 12
#define MAXLEN (192 * 1024)
#define ROUNDS 40
#define OPS_PER_ROUND 2600
#define MIN_OPS 100000

struct round {
	int no, level, n, nthreads;
	uint64_t chunk, gran, vsize, ngran;
	enum raid_layout_kind layout;
	const char *backend;
	struct raid_array *a;
	uint8_t *model;
	int ops_per_thread;
	int fail_member; /* -1: none; else failed by thread 0 half-way */
	atomic_bool bad;
	char msg[512];
	atomic_long ops;
};

struct worker {
	struct round *r;
	int tid;
	uint64_t seed;
	pthread_t th;
};

struct slot {
	struct raid_request req;
	uint8_t *buf;
	bool busy;
};

static void report(struct round *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void report(struct round *r, const char *fmt, ...)
{
	va_list ap;

	if (atomic_exchange(&r->bad, true))
		return;
	va_start(ap, fmt);
	vsnprintf(r->msg, sizeof(r->msg), fmt, ap);
	va_end(ap);
}

static bool overlaps(const struct slot *s, uint64_t off, uint64_t len)
{
	for (int i = 0; i < INFLIGHT; i++)
		if (s[i].busy && off < s[i].req.offset + s[i].req.length &&
		    s[i].req.offset < off + len)
			return true;
	return false;
}

/* A request this thread may issue: anywhere alone, else inside one of its granules. */
static void pick(struct worker *w, uint64_t *off, uint64_t *len)
{
	struct round *r = w->r;
	uint64_t *s = &w->seed;

	if (r->nthreads == 1) {
		*len =
		    (t_rand(s) % 8 == 0 ? t_rand(s) % (MAXLEN / 512) : t_rand(s) % 24) * 512 + 512;
		if (*len > r->vsize)
			*len = r->vsize;
		*off = t_rand(s) % ((r->vsize - *len) / 512 + 1) * 512;
		return;
	}
	uint64_t mine =
	    (r->ngran - (uint64_t)w->tid + (uint64_t)r->nthreads - 1) / (uint64_t)r->nthreads;
	uint64_t g = t_rand(s) % mine * (uint64_t)r->nthreads + (uint64_t)w->tid;
	uint64_t sectors = r->gran / 512, a = t_rand(s) % sectors, b = t_rand(s) % sectors;

	if (a > b) {
		uint64_t t = a;
		a = b;
		b = t;
	}
	*off = g * r->gran + a * 512;
	*len = (b - a + 1) * 512;
}

static void *worker_main(void *arg)
{
	struct worker *w = arg;
	struct round *r = w->r;
	struct slot sl[INFLIGHT] = {0};
	struct raid_request *out[INFLIGHT];
	struct raid_queue *q;
	char err[RAID_ERRLEN];
	int ops = 0, inflight = 0;

	if (raid_queue_create(r->a, INFLIGHT, false, &q, err, sizeof(err))) {
		report(r, "%s", err);
		return NULL;
	}
	for (int i = 0; i < INFLIGHT; i++)
		sl[i].buf = malloc(MAXLEN);
	/* after a failure, stop submitting but let what is in flight finish */
	while ((ops < r->ops_per_thread && !atomic_load(&r->bad)) || inflight) {
		int want = ops < r->ops_per_thread && !atomic_load(&r->bad)
			       ? (int)(t_rand(&w->seed) % 6)
			       : 0;

		for (int k = 0; k < want && inflight < INFLIGHT; k++) {
			uint64_t off, len;
			int i = 0;

			while (sl[i].busy)
				i++;
			pick(w, &off, &len);
			if (overlaps(sl, off, len))
				continue;
			sl[i].req =
			    (struct raid_request){.offset = off, .length = len, .buf = sl[i].buf};
			if (t_rand(&w->seed) % 2) {
				sl[i].req.op = RAID_OP_WRITE;
				for (uint64_t b = 0; b < len; b += 8) {
					uint64_t v = t_rand(&w->seed);
					memcpy(sl[i].buf + b, &v, 8);
				}
				memcpy(r->model + off, sl[i].buf, len);
			} else {
				sl[i].req.op = RAID_OP_READ;
				memset(sl[i].buf, 0xee, len);
			}
			if (raid_submit(q, &sl[i].req)) {
				report(r, "round %d: raid_submit refused %llu bytes at %llu", r->no,
				       (unsigned long long)len, (unsigned long long)off);
				break;
			}
			sl[i].busy = true;
			inflight++;
			ops++;
			atomic_fetch_add(&r->ops, 1);
			if (w->tid == 0 && r->fail_member >= 0 && ops == r->ops_per_thread / 2)
				raid_array_fail_member(r->a, r->fail_member);
		}
		raid_commit(q);
		int got = raid_reap(q, inflight ? 1 : 0, INFLIGHT, NULL, out);

		for (int k = 0; k < got; k++) {
			struct slot *s = (struct slot *)out[k];

			if (s->req.error)
				report(r, "round %d thread %d: %s of %llu bytes at %llu failed: %d",
				       r->no, w->tid, s->req.op == RAID_OP_READ ? "read" : "write",
				       (unsigned long long)s->req.length,
				       (unsigned long long)s->req.offset, s->req.error);
			else if (s->req.op == RAID_OP_READ &&
				 memcmp(s->buf, r->model + s->req.offset, s->req.length))
				report(r,
				       "round %d thread %d: read of %llu bytes at %llu differs "
				       "from the "
				       "model",
				       r->no, w->tid, (unsigned long long)s->req.length,
				       (unsigned long long)s->req.offset);
			s->busy = false;
			inflight--;
		}
	}
	raid_queue_destroy(q);
	for (int i = 0; i < INFLIGHT; i++)
		free(sl[i].buf);
	return NULL;
}

struct members {
	struct raid_array *a;
	char paths[64][128];
	int fd[64];
};

static void member_read(void *ctx, int m, uint64_t off, uint64_t len, uint8_t *buf)
{
	struct members *mb = ctx;

	if (mb->a->m[m].ram) {
		memcpy(buf, mb->a->m[m].ram + off, len);
		return;
	}
	if (mb->fd[m] < 0)
		mb->fd[m] = open(mb->paths[m], O_RDONLY);
	assert_true(mb->fd[m] >= 0);
	assert_int_equal(pread(mb->fd[m], buf, len, (off_t)off), (ssize_t)len);
}

/* The whole volume through a fresh queue, against the model. */
static void read_back(struct round *r)
{
	struct raid_queue *q;
	char err[RAID_ERRLEN];
	uint8_t *buf = malloc(1 << 20);

	if (raid_queue_create(r->a, 1, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	for (uint64_t off = 0; off < r->vsize; off += 1 << 20) {
		uint64_t len = r->vsize - off < (1 << 20) ? r->vsize - off : 1 << 20;

		assert_int_equal(t_io(q, RAID_OP_READ, buf, off, len), 0);
		if (memcmp(buf, r->model + off, len))
			fail_msg("round %d: reading the volume back at %llu differs from the model",
				 r->no, (unsigned long long)off);
	}
	raid_queue_destroy(q);
	free(buf);
}

/*
 * The GPU path's own account (the stats' "gpu" object): it took stripes, no launch carried
 * more than raid_gpu_batch, and *batched counts the rounds whose launches carried several
 * stripes on average (the engine gathers across stripe operations).
 */
static void gpu_counters(struct raid_array *a, int batch, int no, long *batched)
{
	const struct raid_counters *t = &a->totals;

	if (!a->gpu)
		fail_msg("round %d: raid_parity=%s left the GPU out: %s", no, TEST_PARITY,
			 a->parity_note ? a->parity_note : "(no note)");
	assert_int_equal(a->gpu->batch, batch);
	assert_string_equal(a->parity_used, "cuda");
	if (!t->gpu_launches || t->gpu_stripes < t->gpu_launches ||
	    t->gpu_stripes > t->gpu_launches * (uint64_t)batch)
		fail_msg("round %d: %llu stripes in %llu launches of at most %d", no,
			 (unsigned long long)t->gpu_stripes, (unsigned long long)t->gpu_launches,
			 batch);
	printf("round %d: %llu GPU launches, %.2f stripes each, %llu stripes on the CPU\n", no,
	       (unsigned long long)t->gpu_launches, (double)t->gpu_stripes / t->gpu_launches,
	       (unsigned long long)t->gpu_cpu_stripes);
	if (batch > 1 && t->gpu_stripes > t->gpu_launches * 3 / 2)
		(*batched)++;
}

static void one_round(uint64_t *seed, int no, long *total, long *batched)
{
	static const int levels[] = {5, 6, 5, 6, 5, 6, 0, 1, 10};
	static const char *const backends[] = {"ram", "ram", "ram", "io_uring", "psync", "libaio"};
	static const char *const rmw[] = {"auto", "auto", "rmw", "rcw"};
	static const char *const cache[] = {"4096", "4096", "16", "3"};
	struct round r = {.no = no, .fail_member = -1};
	struct worker w[3];
	struct members mb;
	char opt[13][3200], err[RAID_ERRLEN], msg[512];
	struct raid_config c;
	uint64_t failed = 0;
	int maxfail, gpu_batch = 0;
	bool gpu = !strcmp(TEST_PARITY, "cuda");

	r.level = levels[t_rand(seed) % 9];
	r.n = 3 + (int)(t_rand(seed) % 22);
	if (r.level == 6 && r.n < 4)
		r.n = 4;
	r.chunk = 4096ULL << (t_rand(seed) % 7);
	r.layout = (enum raid_layout_kind)(RAID_LAYOUT_LEFT_SYM + t_rand(seed) % 4);
	r.backend = backends[t_rand(seed) % 6];
	r.nthreads = 1 + (int)(t_rand(seed) % 3);
	maxfail = r.level == 5 ? 1 : r.level == 6 ? 2 : r.level == 1 ? r.n - 1 : 0;
	for (int k = (int)(t_rand(seed) % (maxfail + 1)); k > 0; k--)
		failed |= 1ULL << (t_rand(seed) % (uint64_t)r.n);
	if (r.level == 10 && t_rand(seed) % 3 == 0)
		failed = 1ULL << (t_rand(seed) % (uint64_t)r.n);
	if ((r.level == 5 || r.level == 6) && __builtin_popcountll(failed) < maxfail &&
	    t_rand(seed) % 3 == 0) {
		do
			r.fail_member = (int)(t_rand(seed) % (uint64_t)r.n);
		while (failed >> r.fail_member & 1);
	}

	snprintf(opt[0], sizeof(opt[0]), "raid_level=%d", r.level);
	snprintf(opt[1], sizeof(opt[1]), "raid_members=");
	for (int i = 0; i < r.n; i++) {
		snprintf(mb.paths[i], sizeof(mb.paths[i]), "/dev/shm/raid56-rnd-%d-%d", getpid(),
			 i);
		snprintf(opt[1] + strlen(opt[1]), sizeof(opt[1]) - strlen(opt[1]), "%s%s",
			 i ? ":" : "", mb.paths[i]);
	}
	snprintf(opt[2], sizeof(opt[2]), "raid_chunk=%llu", (unsigned long long)r.chunk);
	/* at most about 8 MiB a member, and at least 4 chunk rows */
	snprintf(
	    opt[3], sizeof(opt[3]), "raid_member_size=%llu",
	    (unsigned long long)(r.chunk * (4 + t_rand(seed) % (2 + (8 << 20) / r.chunk / 4))));
	snprintf(opt[4], sizeof(opt[4]), "raid_backend=%s", r.backend);
	snprintf(opt[5], sizeof(opt[5]), "raid_failed=");
	for (int i = 0; i < r.n; i++)
		if (failed >> i & 1)
			snprintf(opt[5] + strlen(opt[5]), sizeof(opt[5]) - strlen(opt[5]), "%s%d",
				 opt[5][12] ? "," : "", i);
	snprintf(opt[6], sizeof(opt[6]), "raid_rmw=%s", rmw[t_rand(seed) % 4]);
	snprintf(opt[7], sizeof(opt[7]), "raid_workers=%d", (int)(t_rand(seed) % 3));
	snprintf(opt[8], sizeof(opt[8]), "raid_stripe_cache=%s", cache[t_rand(seed) % 4]);
	snprintf(opt[9], sizeof(opt[9]), "raid_layout=%s",
		 r.level == 10 ? "near2" : raid_layout_name(5, r.layout));
	snprintf(opt[10], sizeof(opt[10]), "raid_parity=%s", TEST_PARITY);
	/* the GPU's options only exist with raid_parity=cuda: raid_level again otherwise */
	snprintf(opt[11], sizeof(opt[11]), "%s", opt[0]);
	snprintf(opt[12], sizeof(opt[12]), "%s", opt[0]);
	if (gpu) {
		static const int batches[] = {1, 3, 64, 1024};

		gpu_batch = batches[t_rand(seed) % 4];
		snprintf(opt[11], sizeof(opt[11]), "raid_gpu_batch=%d", gpu_batch);
		snprintf(opt[12], sizeof(opt[12]), "raid_gpu_mode=%s",
			 t_rand(seed) % 2 ? "mapped" : "copy");
	}
	/* levels 0 and 1 have no layout: raid_level is given twice instead */
	t_config(&c, opt[0], opt[1], opt[2], opt[3], opt[4], opt[5], opt[6], opt[7], opt[8],
		 r.level == 0 || r.level == 1 ? opt[0] : opt[9], opt[10], opt[11], opt[12], NULL);
	c.writes = true;
	if (raid_array_get(&c, &r.a, err, sizeof(err)))
		fail_msg("round %d: %s", no, err);
	r.vsize = raid_array_size(r.a);
	r.gran = 512ULL << (3 + t_rand(seed) % 5); /* 4k..64k */
	if (r.gran > r.vsize / 8)
		r.gran = 4096;
	r.ngran = r.vsize / r.gran;
	r.model = calloc(r.vsize, 1);
	r.ops_per_thread = OPS_PER_ROUND / r.nthreads;
	printf("round %d: n=%d %s %s %s %s %s %s %s %s %s %s %s threads=%d gran=%llu fail=%d\n", no,
	       r.n, opt[0], opt[2], opt[9], opt[4], opt[5], opt[6], opt[7], opt[8], opt[10],
	       gpu ? opt[11] : "", gpu ? opt[12] : "", r.nthreads, (unsigned long long)r.gran,
	       r.fail_member);
	fflush(stdout);
	for (int t = 0; t < r.nthreads; t++) {
		w[t] = (struct worker){.r = &r, .tid = t, .seed = t_rand(seed) | 1};
		assert_int_equal(pthread_create(&w[t].th, NULL, worker_main, &w[t]), 0);
	}
	for (int t = 0; t < r.nthreads; t++)
		pthread_join(w[t].th, NULL);
	if (atomic_load(&r.bad))
		fail_msg("%s", r.msg);
	read_back(&r);
	if (r.level == 5 || r.level == 6) {
		uint64_t now = 0;

		for (int i = 0; i < r.n; i++)
			if (raid_member_failed(r.a, i))
				now |= 1ULL << i;
		mb.a = r.a;
		for (int i = 0; i < r.n; i++)
			mb.fd[i] = -1;
		if (md_check(r.level, r.layout, r.n, r.chunk, r.vsize, r.model, now, member_read,
			     &mb, msg, sizeof(msg)))
			fail_msg("round %d: %s", no, msg);
		for (int i = 0; i < r.n; i++)
			if (mb.fd[i] >= 0)
				close(mb.fd[i]);
	}
	if (gpu && (r.level == 5 || r.level == 6))
		gpu_counters(r.a, gpu_batch, no, batched);
	*total += atomic_load(&r.ops);
	raid_array_put(r.a);
	for (int i = 0; i < r.n; i++)
		unlink(mb.paths[i]);
	free(r.model);
	raid_config_free(&c);
}

static void test_random(void **state)
{
	uint64_t seed = t_seed("raid56 random");
	long total = 0, batched = 0;

	for (int round = 0; round < ROUNDS; round++)
		one_round(&seed, round, &total, &batched);
	printf("%ld requests checked\n", total);
	assert_true(total >= MIN_OPS);
	if (!strcmp(TEST_PARITY, "cuda")) {
		printf("%ld rounds batched stripes of several operations into one launch\n",
		       batched);
		assert_true(batched > 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
