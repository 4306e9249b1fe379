/*
 * random_test.c - the library against a simple in-memory model of the volume: random
 * geometries (level, member count, chunk, backend, failed members), random reads and
 * writes of random sizes, up to 16 in flight (never overlapping each other, so the order
 * of completion cannot matter), every read compared with the model. The seed is printed;
 * RAID_TEST_SEED=<seed> replays a run. Also: a read whose every copy is gone, and a member
 * I/O error, both fail the request with EIO.
 */
#include "testutil.h"

#include <errno.h>
#include <unistd.h>

#include "core.h"

#define INFLIGHT 16
#define MAXLEN (256 * 1024)

struct slot {
	struct raid_request r;
	uint8_t *buf;
	bool busy;
};

static const char *const backends[] = {"ram", "io_uring", "libaio", "psync"};

static bool overlaps(struct slot *s, uint64_t off, uint64_t len)
{
	for (int i = 0; i < INFLIGHT; i++)
		if (s[i].busy && off < s[i].r.offset + s[i].r.length && s[i].r.offset < off + len)
			return true;
	return false;
}

static void one_geometry(uint64_t *seed, int round)
{
	static const int levels[] = {0, 1, 10};
	int level = levels[t_rand(seed) % 3];
	int n = 2 + (int)(t_rand(seed) % (level == 1 ? 3 : 7));
	uint64_t chunk = 4096ULL << (t_rand(seed) % 5);
	const char *be = backends[t_rand(seed) % 4];
	uint64_t failed = 0;
	char opt[6][2048], err[RAID_ERRLEN];
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	struct slot s[INFLIGHT] = {0};
	uint8_t *model;
	uint64_t vsize;
	int ops = 0, inflight = 0;

	if (level == 1 && t_rand(seed) % 2)
		failed = 1ULL << (t_rand(seed) % n);
	if (level == 10 && t_rand(seed) % 2)
		failed = 1ULL << (t_rand(seed) % n);
	snprintf(opt[0], sizeof(opt[0]), "raid_level=%d", level);
	snprintf(opt[1], sizeof(opt[1]), "raid_members=");
	for (int i = 0; i < n; i++)
		snprintf(opt[1] + strlen(opt[1]), sizeof(opt[1]) - strlen(opt[1]),
			 "%s/dev/shm/raid-rnd-%d-%d", i ? ":" : "", getpid(), i);
	snprintf(opt[2], sizeof(opt[2]), "raid_chunk=%llu", (unsigned long long)chunk);
	snprintf(opt[3], sizeof(opt[3]), "raid_member_size=%llu",
		 (unsigned long long)(chunk * (8 + t_rand(seed) % 24)));
	snprintf(opt[4], sizeof(opt[4]), "raid_backend=%s", be);
	snprintf(opt[5], sizeof(opt[5]), "raid_failed=%s",
		 failed ? (char[4]){(char)('0' + __builtin_ctzll(failed)), 0} : "");
	printf("round %d: %s %s %s %s %s\n", round, opt[0], opt[2], opt[4], opt[5], opt[3]);
	t_config(&c, opt[0], opt[1], opt[2], opt[3], opt[4], opt[5], NULL);
	c.writes = true;
	if (raid_array_get(&c, &a, err, sizeof(err)) ||
	    raid_queue_create(a, INFLIGHT, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	vsize = raid_array_size(a);
	/* fresh members read as zeros: so does the model */
	model = calloc(vsize, 1);
	for (int i = 0; i < INFLIGHT; i++)
		s[i].buf = malloc(MAXLEN);

	while (ops < 600 || inflight) {
		/* submit a random number of new requests */
		int want = ops < 600 ? (int)(t_rand(seed) % 6) : 0;

		for (int k = 0; k < want && inflight < INFLIGHT; k++) {
			int i = 0;
			uint64_t len, off;

			while (s[i].busy)
				i++;
			len = (t_rand(seed) % 8 == 0 ? t_rand(seed) % (MAXLEN / 512)
						     : t_rand(seed) % 32) *
				  512 +
			      512;
			if (len > vsize)
				len = vsize;
			off = t_rand(seed) % (vsize - len + 1) / 512 * 512;
			if (overlaps(s, off, len))
				continue;
			s[i].r =
			    (struct raid_request){.offset = off, .length = len, .buf = s[i].buf};
			if (t_rand(seed) % 2) {
				s[i].r.op = RAID_OP_WRITE;
				for (uint64_t b = 0; b < len; b += 8) {
					uint64_t v = t_rand(seed);
					memcpy(s[i].buf + b, &v, 8);
				}
				memcpy(model + off, s[i].buf, len);
			} else {
				s[i].r.op = RAID_OP_READ;
				memset(s[i].buf, 0xee, len);
			}
			assert_int_equal(raid_submit(q, &s[i].r), 0);
			s[i].busy = true;
			inflight++;
			ops++;
		}
		raid_commit(q);
		struct raid_request *out[INFLIGHT];
		int got = raid_reap(q, inflight ? 1 : 0, INFLIGHT, NULL, out);

		for (int k = 0; k < got; k++) {
			struct slot *sl = (struct slot *)out[k];

			assert_int_equal(sl->r.error, 0);
			if (sl->r.op == RAID_OP_READ &&
			    memcmp(sl->buf, model + sl->r.offset, sl->r.length))
				fail_msg(
				    "round %d: read of %llu bytes at %llu differs from the model",
				    round, (unsigned long long)sl->r.length,
				    (unsigned long long)sl->r.offset);
			sl->busy = false;
			inflight--;
		}
	}
	raid_queue_destroy(q);
	raid_array_put(a);
	for (int i = 0; i < n; i++) {
		char p[128];

		snprintf(p, sizeof(p), "/dev/shm/raid-rnd-%d-%d", getpid(), i);
		unlink(p);
	}
	for (int i = 0; i < INFLIGHT; i++)
		free(s[i].buf);
	free(model);
	raid_config_free(&c);
}

static void test_random(void **state)
{
	uint64_t seed = t_seed("random");

	for (int round = 0; round < 40; round++)
		one_geometry(&seed, round);
}

static void test_every_copy_failed(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	char err[RAID_ERRLEN], buf[8192];

	t_config(&c, "raid_level=1", "raid_members=x:y", "raid_backend=ram", "raid_member_size=1m",
		 NULL);
	if (raid_array_get(&c, &a, err, sizeof(err)) ||
	    raid_queue_create(a, 4, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	memset(buf, 7, sizeof(buf));
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 0, sizeof(buf)), 0);
	raid_array_fail_member(a, 0);
	assert_int_equal(t_io(q, RAID_OP_READ, buf, 0, sizeof(buf)), 0); /* degraded */
	raid_array_fail_member(a, 1);
	assert_int_equal(t_io(q, RAID_OP_READ, buf, 0, sizeof(buf)), -EIO);
	assert_int_equal(t_io(q, RAID_OP_WRITE, buf, 4096, 4096), -EIO);
	raid_queue_destroy(q);
	raid_array_put(a);
	raid_config_free(&c);
}

static void test_member_error(void **state)
{
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	char err[RAID_ERRLEN], buf[16384], m[256], p0[128];

	snprintf(p0, sizeof(p0), "/dev/shm/raid-err-%d-0", getpid());
	snprintf(m, sizeof(m), "raid_members=%s:/dev/shm/raid-err-%d-1", p0, getpid());
	for (int b = 0; b < 3; b++) {
		static const char *const be[] = {"raid_backend=psync", "raid_backend=io_uring",
						 "raid_backend=libaio"};

		t_config(&c, "raid_level=0", m, "raid_chunk=4k", "raid_member_size=1m", be[b],
			 NULL);
		c.writes = true;
		if (raid_array_get(&c, &a, err, sizeof(err)) ||
		    raid_queue_create(a, 4, false, &q, err, sizeof(err)))
			fail_msg("%s", err);
		assert_int_equal(t_io(q, RAID_OP_READ, buf, 0, sizeof(buf)), 0);
		/* member 0 shrinks under the array: its reads now end early */
		assert_int_equal(truncate(p0, 0), 0);
		assert_int_equal(t_io(q, RAID_OP_READ, buf, 0, sizeof(buf)), -EIO);
		assert_int_equal(t_io(q, RAID_OP_READ, buf, 4096, 4096), 0); /* member 1 only */
		raid_queue_destroy(q);
		raid_array_put(a);
		raid_config_free(&c);
		unlink(p0);
		snprintf(p0 + strlen(p0) - 1, 2, "1");
		unlink(p0);
		snprintf(p0 + strlen(p0) - 1, 2, "0");
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_random),
	    cmocka_unit_test(test_every_copy_failed),
	    cmocka_unit_test(test_member_error),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
