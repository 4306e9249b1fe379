/*
 * raid56_mdbytes_test.c - the bytes on RAID5/6 members are md's: the volume is written
 * front to back in random sizes (several requests in flight), then overwritten at random
 * places and sizes, on file members through the file backends; after each pass every
 * surviving member is compared with raid56_testmodel.h (data placement, P, Q in md's
 * syndrome order), for every layout, optimal and degraded, and with each write strategy
 * forced.
 */
#include "core/testutil.h"

#include <fcntl.h>
#include <unistd.h>

#include "raid56_testmodel.h"

#define MEMBER_CHUNKS 12
#define INFLIGHT 8

struct files {
	int fd[64];
};

static void file_read(void *ctx, int m, uint64_t off, uint64_t len, uint8_t *buf)
{
	struct files *f = ctx;

	assert_int_equal(pread(f->fd[m], buf, len, (off_t)off), (ssize_t)len);
}

struct geo {
	int level, n;
	uint64_t chunk;
	enum raid_layout_kind layout;
	const char *backend, *failed, *rmw;
};

/* Up to INFLIGHT writes at once, never overlapping each other. */
static void write_pass(struct raid_queue *q, uint8_t *vol, uint64_t vsize, uint64_t chunk,
		       bool sequential, uint64_t *seed)
{
	struct raid_request reqs[INFLIGHT], *out[INFLIGHT];
	bool busy[INFLIGHT] = {0};
	uint64_t pos = 0, nreq = sequential ? UINT64_MAX : 200, issued = 0;
	int inflight = 0;

	while ((sequential ? pos < vsize : issued < nreq) || inflight) {
		for (int i = 0; i < INFLIGHT && (sequential ? pos < vsize : issued < nreq); i++) {
			uint64_t len, off;
			bool clash = false;

			if (busy[i])
				continue;
			len = (t_rand(seed) % (3 * chunk / 512) + 1) * 512;
			off = sequential ? pos : t_rand(seed) % (vsize / 512) * 512;
			if (len > vsize - off)
				len = vsize - off;
			for (int j = 0; j < INFLIGHT; j++)
				if (busy[j] && off < reqs[j].offset + reqs[j].length &&
				    reqs[j].offset < off + len)
					clash = true;
			if (clash)
				break;
			for (uint64_t b = 0; b < len; b++)
				vol[off + b] = (uint8_t)t_rand(seed);
			reqs[i] = (struct raid_request){
			    .op = RAID_OP_WRITE, .buf = vol + off, .offset = off, .length = len};
			assert_int_equal(raid_submit(q, &reqs[i]), 0);
			busy[i] = true;
			inflight++;
			issued++;
			pos += len;
		}
		raid_commit(q);
		int got = raid_reap(q, 1, INFLIGHT, NULL, out);
		for (int i = 0; i < got; i++) {
			assert_int_equal(out[i]->error, 0);
			busy[out[i] - reqs] = false;
			inflight--;
		}
	}
}

static void run(const struct geo *g, uint64_t *seed)
{
	char members[4096] = "raid_members=", opt[7][64], err[RAID_ERRLEN], msg[512],
	     dir[] = "/dev/shm/raid56-md.XXXXXX";
	uint64_t msize = g->chunk * MEMBER_CHUNKS, failed = 0;
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	struct files f;
	uint64_t vsize;
	uint8_t *vol;

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < g->n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s%s/m%d",
			 i ? ":" : "", dir, i);
	snprintf(opt[0], sizeof(opt[0]), "raid_level=%d", g->level);
	snprintf(opt[1], sizeof(opt[1]), "raid_chunk=%llu", (unsigned long long)g->chunk);
	snprintf(opt[2], sizeof(opt[2]), "raid_member_size=%llu", (unsigned long long)msize);
	snprintf(opt[3], sizeof(opt[3]), "raid_backend=%s", g->backend);
	snprintf(opt[4], sizeof(opt[4]), "raid_layout=%s", raid_layout_name(g->level, g->layout));
	snprintf(opt[5], sizeof(opt[5]), "raid_failed=%s", g->failed ? g->failed : "");
	snprintf(opt[6], sizeof(opt[6]), "raid_rmw=%s", g->rmw ? g->rmw : "auto");
	printf("raid%d n=%d %s %s %s %s %s\n", g->level, g->n, opt[1], opt[3], opt[4], opt[5],
	       opt[6]);
	t_config(&c, opt[0], members, opt[1], opt[2], opt[3], opt[4], opt[5], opt[6], NULL);
	c.writes = true;
	failed = c.failed;
	if (raid_array_get(&c, &a, err, sizeof(err)) ||
	    raid_queue_create(a, INFLIGHT, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	vsize = raid_array_size(a);
	vol = calloc(vsize, 1);
	for (int m = 0; m < g->n; m++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/m%d", dir, m);
		f.fd[m] = failed >> m & 1 ? -1 : open(path, O_RDONLY);
	}
	for (int pass = 0; pass < 2; pass++) {
		write_pass(q, vol, vsize, g->chunk, pass == 0, seed);
		if (md_check(g->level, g->layout, g->n, g->chunk, vsize, vol, failed, file_read, &f,
			     msg, sizeof(msg)))
			fail_msg("after %s writes: %s", pass ? "random" : "sequential", msg);
	}
	raid_queue_destroy(q);
	raid_array_put(a);
	for (int m = 0; m < g->n; m++) {
		char path[256];

		snprintf(path, sizeof(path), "%s/m%d", dir, m);
		if (f.fd[m] >= 0)
			close(f.fd[m]);
		unlink(path);
	}
	rmdir(dir);
	raid_config_free(&c);
	free(vol);
}

static void test_raid5(void **state)
{
	static const struct geo g[] = {
	    {5, 3, 4096, RAID_LAYOUT_LEFT_SYM, "io_uring", NULL, NULL},
	    {5, 4, 8192, RAID_LAYOUT_LEFT_ASYM, "psync", NULL, NULL},
	    {5, 5, 16384, RAID_LAYOUT_RIGHT_SYM, "libaio", NULL, NULL},
	    {5, 6, 65536, RAID_LAYOUT_RIGHT_ASYM, "io_uring", NULL, NULL},
	    {5, 7, 4096, RAID_LAYOUT_LEFT_SYM, "io_uring", NULL, "rmw"},
	    {5, 4, 4096, RAID_LAYOUT_RIGHT_ASYM, "psync", NULL, "rcw"},
	    {5, 5, 8192, RAID_LAYOUT_LEFT_ASYM, "io_uring", "2", NULL},
	    {5, 4, 4096, RAID_LAYOUT_RIGHT_SYM, "psync", "0", "rmw"},
	};
	uint64_t seed = t_seed("md raid5 bytes");

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		run(&g[i], &seed);
}

static void test_raid6(void **state)
{
	static const struct geo g[] = {
	    {6, 4, 4096, RAID_LAYOUT_LEFT_SYM, "io_uring", NULL, NULL},
	    {6, 5, 8192, RAID_LAYOUT_LEFT_ASYM, "psync", NULL, NULL},
	    {6, 6, 16384, RAID_LAYOUT_RIGHT_SYM, "libaio", NULL, NULL},
	    {6, 7, 4096, RAID_LAYOUT_RIGHT_ASYM, "io_uring", NULL, NULL},
	    {6, 12, 65536, RAID_LAYOUT_LEFT_SYM, "io_uring", NULL, NULL},
	    {6, 8, 4096, RAID_LAYOUT_LEFT_ASYM, "io_uring", NULL, "rmw"},
	    {6, 6, 8192, RAID_LAYOUT_RIGHT_ASYM, "psync", NULL, "rcw"},
	    {6, 6, 4096, RAID_LAYOUT_LEFT_SYM, "io_uring", "1", NULL},
	    {6, 7, 8192, RAID_LAYOUT_RIGHT_ASYM, "psync", "2,5", NULL},
	    {6, 5, 4096, RAID_LAYOUT_LEFT_ASYM, "io_uring", "0,4", "rmw"},
	};
	uint64_t seed = t_seed("md raid6 bytes");

	for (size_t i = 0; i < sizeof(g) / sizeof(g[0]); i++)
		run(&g[i], &seed);
}

/* The model itself against md's documented pictures (mdadm's man page layouts). */
static void test_model(void **state)
{
	struct md_row r;

	/* RAID5 left-symmetric, 4 members, row 0: D0 D1 D2 P; row 1: D4 D5 P D3 */
	md_row(5, RAID_LAYOUT_LEFT_SYM, 4, 0, &r);
	assert_int_equal(r.p, 3);
	assert_int_equal(r.data[0], 0);
	md_row(5, RAID_LAYOUT_LEFT_SYM, 4, 1, &r);
	assert_int_equal(r.p, 2);
	assert_int_equal(r.data[0], 3);
	assert_int_equal(r.data[1], 0);
	/* RAID5 left-asymmetric row 1: D3 D4 P D5 */
	md_row(5, RAID_LAYOUT_LEFT_ASYM, 4, 1, &r);
	assert_int_equal(r.data[0], 0);
	assert_int_equal(r.data[2], 3);
	/* RAID6 left-asymmetric, 5 members, row 0: Q D0 D1 D2 P; Q counts from member 1 */
	md_row(6, RAID_LAYOUT_LEFT_ASYM, 5, 0, &r);
	assert_int_equal(r.p, 4);
	assert_int_equal(r.q, 0);
	assert_int_equal(r.data[0], 1);
	assert_int_equal(r.qpos[0], 0);
	/* row 2: D0 D1 P Q D2: the syndrome starts at member 4, so D2 comes first */
	md_row(6, RAID_LAYOUT_LEFT_ASYM, 5, 2, &r);
	assert_int_equal(r.p, 2);
	assert_int_equal(r.q, 3);
	assert_int_equal(r.data[2], 4);
	assert_int_equal(r.qpos[2], 0);
	assert_int_equal(r.qpos[0], 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_model),
	    cmocka_unit_test(test_raid5),
	    cmocka_unit_test(test_raid6),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
