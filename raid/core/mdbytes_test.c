/*
 * mdbytes_test.c - the bytes on the members are md's. The whole volume is written through
 * the library (file backends, several requests in flight, sizes that cross chunks), then
 * every byte of every member file is compared with an independent model that goes the
 * other way round: from a member byte to the volume byte md stores there (or zero where md
 * stores nothing).
 */
#include "testutil.h"

#include <fcntl.h>
#include <unistd.h>

#include "raid.h"

#define MEMBER_CHUNKS 24

/* The volume byte md keeps at (member d, offset o), or -1 where md keeps none. */
static int64_t md_inverse(int level, int n, uint64_t chunk, uint64_t vsize, int d, uint64_t o)
{
	uint64_t row = o / chunk, in = o % chunk, c;

	switch (level) {
	case 1:
		return o < vsize ? (int64_t)o : -1;
	case 0:
		c = row * (uint64_t)n + (uint64_t)d;
		break;
	default: /* near2: slot row*n+d holds copy (slot % 2) of chunk slot / 2 */
		c = (row * (uint64_t)n + (uint64_t)d) / 2;
		break;
	}
	return c * chunk < vsize ? (int64_t)(c * chunk + in) : -1;
}

static uint8_t vbyte(uint64_t off)
{
	uint64_t x = off * 0x9E3779B97F4A7C15ULL;

	return (uint8_t)((x >> 32) ^ (x >> 13) ^ 0x5a);
}

static void run(int level, int n, uint64_t chunk, const char *backend, uint64_t *seed)
{
	char members[2048] = "raid_members=", opt[4][64], err[RAID_ERRLEN],
	     dir[] = "/dev/shm/raid-md.XXXXXX";
	uint64_t msize = chunk * MEMBER_CHUNKS + 4096; /* a tail md leaves unused */
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	uint64_t vsize;
	uint8_t *vol, *got;

	assert_non_null(mkdtemp(dir));
	for (int i = 0; i < n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s%s/m%d",
			 i ? ":" : "", dir, i);
	snprintf(opt[0], sizeof(opt[0]), "raid_level=%d", level);
	snprintf(opt[1], sizeof(opt[1]), "raid_chunk=%llu", (unsigned long long)chunk);
	snprintf(opt[2], sizeof(opt[2]), "raid_member_size=%llu", (unsigned long long)msize);
	snprintf(opt[3], sizeof(opt[3]), "raid_backend=%s", backend);
	t_config(&c, opt[0], members, opt[1], opt[2], opt[3], NULL);
	c.writes = true;
	if (raid_array_get(&c, &a, err, sizeof(err)) ||
	    raid_queue_create(a, 16, false, &q, err, sizeof(err)))
		fail_msg("%s", err);
	vsize = raid_array_size(a);
	vol = malloc(vsize);
	for (uint64_t i = 0; i < vsize; i++)
		vol[i] = vbyte(i);

	/* write it all, front to back, in random sizes, up to 8 requests in flight */
	struct raid_request reqs[8], *out[8];
	int free_slots[8], nfree = 8;
	uint64_t pos = 0;

	for (int i = 0; i < 8; i++)
		free_slots[i] = i;
	while (pos < vsize || nfree < 8) {
		while (pos < vsize && nfree) {
			uint64_t len = (t_rand(seed) % (3 * chunk / 512) + 1) * 512;
			struct raid_request *r = &reqs[free_slots[--nfree]];

			if (len > vsize - pos)
				len = vsize - pos;
			*r = (struct raid_request){
			    .op = RAID_OP_WRITE, .buf = vol + pos, .offset = pos, .length = len};
			assert_int_equal(raid_submit(q, r), 0);
			pos += len;
		}
		raid_commit(q);
		int got_n = raid_reap(q, 1, 8, NULL, out);
		for (int i = 0; i < got_n; i++) {
			assert_int_equal(out[i]->error, 0);
			free_slots[nfree++] = (int)(out[i] - reqs);
		}
	}
	raid_queue_destroy(q);
	raid_array_put(a);

	got = malloc(msize);
	for (int d = 0; d < n; d++) {
		char path[256];
		int fd;

		snprintf(path, sizeof(path), "%s/m%d", dir, d);
		fd = open(path, O_RDONLY);
		assert_true(fd >= 0);
		assert_int_equal(pread(fd, got, msize, 0), (ssize_t)msize);
		close(fd);
		for (uint64_t o = 0; o < msize; o++) {
			int64_t v = md_inverse(level, n, chunk, vsize, d, o);
			uint8_t want = v < 0 ? 0 : vol[v];

			if (got[o] != want)
				fail_msg("raid%d n=%d chunk=%llu %s: member %d offset %llu holds "
					 "%#x, md "
					 "holds %#x (volume byte %lld)",
					 level, n, (unsigned long long)chunk, backend, d,
					 (unsigned long long)o, got[o], want, (long long)v);
		}
		unlink(path);
	}
	rmdir(dir);
	raid_config_free(&c);
	free(got);
	free(vol);
}

static void test_raid0(void **state)
{
	uint64_t seed = t_seed("md raid0");

	run(0, 2, 4096, "io_uring", &seed);
	run(0, 3, 8192, "libaio", &seed);
	run(0, 5, 65536, "psync", &seed);
	run(0, 4, 512 * 1024, "io_uring", &seed);
}

static void test_raid1(void **state)
{
	uint64_t seed = t_seed("md raid1");

	run(1, 2, 4096, "io_uring", &seed);
	run(1, 3, 65536, "psync", &seed);
}

static void test_raid10(void **state)
{
	uint64_t seed = t_seed("md raid10");

	run(10, 2, 4096, "io_uring", &seed);
	run(10, 3, 8192, "libaio", &seed);
	run(10, 4, 16384, "psync", &seed);
	run(10, 5, 4096, "io_uring", &seed);
	run(10, 7, 65536, "io_uring", &seed);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_raid0),
	    cmocka_unit_test(test_raid1),
	    cmocka_unit_test(test_raid10),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
