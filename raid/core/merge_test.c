/*
 * merge_test.c - the queue's plug (merge.c) on every backend: contiguous member I/Os of one
 * commit reach the member as one and the bytes land right; gaps, other members, other
 * directions and raid_merge=0 stay apart; the part and byte caps; an injected error fails
 * every part of a merged I/O; a short transfer completes the parts it covered and fails the
 * rest; the member_io.merged key of the stats file.
 */
#include "testutil.h"

#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <unistd.h>

#include "core.h"

#define K 1024ULL

static const char *const file_backends[] = {"psync", "io_uring", "libaio"};
static const char *const all_backends[] = {"ram", "psync", "io_uring", "libaio", "null"};

struct env {
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	int n;
	char members[512];
	char path[3][128];
};

/* LEVEL over n members on /dev/shm (or in memory for ram/null), plus extra options. */
static void env_open_n(struct env *e, int n, const char *level, const char *backend,
		       const char *extra1, const char *extra2)
{
	char err[RAID_ERRLEN], be[64];
	size_t used;

	e->n = n;
	used = (size_t)snprintf(e->members, sizeof(e->members), "raid_members=");
	for (int i = 0; i < n; i++) {
		snprintf(e->path[i], sizeof(e->path[i]), "/dev/shm/raid-merge-%d-%d", getpid(), i);
		unlink(e->path[i]);
		used += (size_t)snprintf(e->members + used, sizeof(e->members) - used, "%s%s",
					 i ? ":" : "", e->path[i]);
	}
	snprintf(be, sizeof(be), "raid_backend=%s", backend);
	/* the list ends at the first NULL extra */
	t_config(&e->c, level, e->members, be, "raid_member_size=4m", "raid_chunk=64k", extra1,
		 extra2, NULL);
	e->c.writes = true;
	if (raid_array_get(&e->c, &e->a, err, sizeof(err)) ||
	    raid_queue_create(e->a, 128, false, &e->q, err, sizeof(err)))
		fail_msg("%s", err);
}

static void env_open(struct env *e, const char *level, const char *backend, const char *extra1,
		     const char *extra2)
{
	env_open_n(e, 2, level, backend, extra1, extra2);
}

static void env_close(struct env *e)
{
	raid_queue_destroy(e->q);
	raid_array_put(e->a);
	raid_config_free(&e->c);
	for (int i = 0; i < e->n; i++)
		unlink(e->path[i]);
}

/* Submit n requests, commit once, reap them all; errors into err[] (may be NULL). */
static void batch(struct raid_queue *q, int n, const enum raid_op *op, uint8_t *const *buf,
		  const uint64_t *off, const uint64_t *len, int *err)
{
	struct raid_request r[128], *out[128];
	int got = 0;

	assert_true(n <= 128);
	for (int i = 0; i < n; i++) {
		r[i] = (struct raid_request){
		    .op = op[i], .buf = buf[i], .offset = off[i], .length = len[i]};
		assert_int_equal(raid_submit(q, &r[i]), 0);
	}
	assert_int_equal(raid_commit(q), 0);
	while (got < n) {
		int k = raid_reap(q, 1, 128, NULL, out);

		assert_true(k > 0);
		got += k;
	}
	for (int i = 0; i < n; i++) {
		if (err)
			err[i] = r[i].error;
		else
			assert_int_equal(r[i].error, 0);
	}
}

/* n requests of one direction and size, at the given volume offsets, in one commit. */
static void same(struct raid_queue *q, enum raid_op op, uint8_t *base, int n, const uint64_t *off,
		 uint64_t len, int *err)
{
	enum raid_op ops[128];
	uint8_t *bufs[128];
	uint64_t lens[128];

	for (int i = 0; i < n; i++) {
		ops[i] = op;
		bufs[i] = base + (uint64_t)i * len;
		lens[i] = len;
	}
	batch(q, n, ops, bufs, off, lens, err);
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(i * 131 + seed * 7 + (i >> 12));
}

static uint64_t mios(const struct raid_queue *q)
{
	return q->c.m_reads + q->c.m_writes;
}

/* Four 16k writes filling RAID0's first chunk (member 0, offsets 0..64k), in one commit. */
static void contiguous_on(const char *backend)
{
	static const uint64_t off[4] = {0, 16 * K, 32 * K, 48 * K};
	static const uint64_t rev[4] = {48 * K, 32 * K, 16 * K, 0};
	uint8_t *w = malloc(64 * K), *r = calloc(1, 64 * K);
	bool bytes = strcmp(backend, "null") != 0;
	struct env e;

	printf("backend %s\n", backend);
	env_open(&e, "raid_level=0", backend, NULL, NULL);
	fill(w, 64 * K, 1);
	same(e.q, RAID_OP_WRITE, w, 4, off, 16 * K, NULL);
	assert_int_equal(e.q->c.m_writes, 1);
	assert_int_equal(e.q->c.m_write_bytes, 64 * K);
	assert_int_equal(e.q->c.merged, 3);
	/* read back in one 64k request: each part's bytes landed where it said */
	assert_int_equal(t_io(e.q, RAID_OP_READ, r, 0, 64 * K), 0);
	if (bytes)
		assert_memory_equal(r, w, 64 * K);
	/* four reads issued high to low: front merges make one member read too */
	memset(r, 0, 64 * K);
	same(e.q, RAID_OP_READ, r, 4, rev, 16 * K, NULL);
	assert_int_equal(e.q->c.m_reads, 2);
	assert_int_equal(e.q->c.merged, 6);
	for (int i = 0; i < 4 && bytes; i++)
		assert_memory_equal(r + i * 16 * K, w + rev[i], 16 * K);
	if (bytes && strcmp(backend, "ram")) { /* and on the member file itself */
		int fd = open(e.path[0], O_RDONLY);

		assert_true(fd >= 0);
		assert_int_equal(pread(fd, r, 64 * K, 0), 64 * K);
		close(fd);
		assert_memory_equal(r, w, 64 * K);
	}
	env_close(&e);
	free(w);
	free(r);
}

static void test_contiguous(void **state)
{
	for (size_t i = 0; i < sizeof(all_backends) / sizeof(all_backends[0]); i++)
		contiguous_on(all_backends[i]);
}

static void test_apart(void **state)
{
	uint8_t *w = malloc(256 * K), *r = malloc(256 * K);

	fill(w, 256 * K, 2);
	for (size_t b = 0; b < 3; b++) {
		const char *be = (const char *[]){"ram", "io_uring", "psync"}[b];
		struct env e;
		uint64_t n;

		env_open(&e, "raid_level=0", be, NULL, NULL);
		/* a gap on member 0 */
		same(e.q, RAID_OP_WRITE, w, 2, (const uint64_t[]){0, 32 * K}, 16 * K, NULL);
		assert_int_equal(mios(e.q), 2);
		/* contiguous on the volume, but on members 0 and 1 */
		n = mios(e.q);
		same(e.q, RAID_OP_WRITE, w, 2, (const uint64_t[]){48 * K, 64 * K}, 16 * K, NULL);
		assert_int_equal(mios(e.q) - n, 2);
		/* contiguous on member 0, one read and one write */
		n = mios(e.q);
		batch(e.q, 2, (const enum raid_op[]){RAID_OP_WRITE, RAID_OP_READ},
		      (uint8_t *const[]){w, r}, (const uint64_t[]){0, 16 * K},
		      (const uint64_t[]){16 * K, 16 * K}, NULL);
		assert_int_equal(mios(e.q) - n, 2);
		for (int i = 0; i < 16 * K; i++) /* never written */
			assert_int_equal(r[i], 0);
		assert_int_equal(e.q->c.merged, 0);
		env_close(&e);
		/* raid_merge=0: contiguous writes stay apart */
		env_open(&e, "raid_level=0", be, "raid_merge=0", NULL);
		same(e.q, RAID_OP_WRITE, w, 4, (const uint64_t[]){0, 16 * K, 32 * K, 48 * K},
		     16 * K, NULL);
		assert_int_equal(mios(e.q), 4);
		assert_int_equal(e.q->c.merged, 0);
		assert_int_equal(t_io(e.q, RAID_OP_READ, r, 0, 64 * K), 0);
		assert_memory_equal(r, w, 64 * K);
		env_close(&e);
	}
	free(w);
	free(r);
}

/* RAID1: member offsets are volume offsets, and every write goes to both members. */
static void test_caps(void **state)
{
	uint64_t off[128];
	uint8_t *w = malloc(2048 * K), *r = malloc(2048 * K);
	struct env e;

	fill(w, 2048 * K, 3);
	for (size_t b = 0; b < 2; b++) {
		env_open(&e, "raid_level=1", (const char *[]){"ram", "io_uring"}[b], NULL, NULL);
		/* 65 parts: one carrier of 64 and one lone I/O per member */
		for (int i = 0; i < 65; i++)
			off[i] = (uint64_t)i * 4 * K;
		same(e.q, RAID_OP_WRITE, w, 65, off, 4 * K, NULL);
		assert_int_equal(e.q->c.m_writes, 2 * 2);
		assert_int_equal(e.q->c.merged, 2 * 63);
		/* 1.5 MiB in 128k parts: 1 MiB and 512k per member */
		for (int i = 0; i < 12; i++)
			off[i] = 1024 * K + (uint64_t)i * 128 * K;
		same(e.q, RAID_OP_WRITE, w + 260 * K, 12, off, 128 * K, NULL);
		assert_int_equal(e.q->c.m_writes, 4 + 2 * 2);
		assert_int_equal(e.q->c.merged, 2 * 63 + 2 * 10);
		assert_int_equal(t_io(e.q, RAID_OP_READ, r, 0, 260 * K), 0);
		assert_memory_equal(r, w, 260 * K);
		assert_int_equal(t_io(e.q, RAID_OP_READ, r, 1024 * K, 1536 * K), 0);
		assert_memory_equal(r, w + 260 * K, 1536 * K);
		env_close(&e);
	}
	free(w);
	free(r);
}

/*
 * raid_inject on RAID0 (an error is the answer there): with merging, a failed member I/O
 * fails all four requests it carried, so each round's four fail or succeed together; without,
 * each request draws on its own.
 */
static void test_injected_error(void **state)
{
	static const uint64_t off[4] = {0, 16 * K, 32 * K, 48 * K};
	uint8_t *w = malloc(64 * K);

	fill(w, 64 * K, 4);
	for (int merge = 1; merge >= 0; merge--) {
		int all = 0, none = 0, mixed = 0;
		struct env e;

		env_open(&e, "raid_level=0", "ram", "raid_inject=0:write:50",
			 merge ? "raid_merge=1" : "raid_merge=0");
		for (int round = 0; round < 40; round++) {
			int err[4], nerr = 0;

			same(e.q, RAID_OP_WRITE, w, 4, off, 16 * K, err);
			for (int i = 0; i < 4; i++) {
				assert_true(err[i] == 0 || err[i] == -EIO);
				nerr += err[i] != 0;
			}
			all += nerr == 4;
			none += nerr == 0;
			mixed += nerr && nerr < 4;
		}
		printf("raid_merge=%d: rounds all failed %d, none failed %d, mixed %d\n", merge,
		       all, none, mixed);
		if (merge) {
			assert_int_equal(mixed, 0);
			assert_true(all > 0 && none > 0);
			assert_int_equal(e.q->c.errors, (uint64_t)all); /* one per member I/O */
		} else {
			assert_true(mixed > 0);
		}
		env_close(&e);
	}
	free(w);
}

/*
 * Member 0 shrinks to 40k under the array: one merged read of its first 64k moves 40k, so the
 * parts at 0 and 16k complete with their bytes, and those at 32k (8k short) and 48k go again
 * alone and fail with EIO.
 */
static void test_short(void **state)
{
	static const uint64_t off[4] = {0, 16 * K, 32 * K, 48 * K};
	uint8_t *w = malloc(128 * K), *r = calloc(1, 64 * K);

	fill(w, 128 * K, 5);
	for (size_t b = 0; b < 3; b++) {
		struct env e;
		int err[4];

		printf("backend %s\n", file_backends[b]);
		env_open(&e, "raid_level=0", file_backends[b], NULL, NULL);
		assert_int_equal(t_io(e.q, RAID_OP_WRITE, w, 0, 128 * K), 0);
		assert_int_equal(truncate(e.path[0], 40 * K), 0);
		memset(r, 0, 64 * K);
		same(e.q, RAID_OP_READ, r, 4, off, 16 * K, err);
		assert_int_equal(err[0], 0);
		assert_int_equal(err[1], 0);
		assert_int_equal(err[2], -EIO);
		assert_int_equal(err[3], -EIO);
		assert_memory_equal(r, w, 32 * K);
		assert_int_equal(e.q->c.merged, 3);
		env_close(&e);
	}
	free(w);
	free(r);
}

/* RAID5 over 3 members, 64k chunks: two full stripes of one request, one write per member. */
static void test_raid5_stripes(void **state)
{
	uint8_t *w = malloc(256 * K), *r = malloc(256 * K);

	fill(w, 256 * K, 6);
	for (size_t b = 0; b < 2; b++) {
		struct env e;

		env_open_n(&e, 3, "raid_level=5", (const char *[]){"ram", "psync"}[b], NULL, NULL);
		assert_int_equal(t_io(e.q, RAID_OP_WRITE, w, 0, 256 * K), 0);
		assert_int_equal(e.q->c.full_stripe, 2);
		assert_int_equal(e.q->c.m_writes, 3);
		assert_int_equal(e.q->c.merged, 3);
		assert_int_equal(t_io(e.q, RAID_OP_READ, r, 0, 256 * K), 0);
		assert_memory_equal(r, w, 256 * K);
		env_close(&e);
	}
	free(w);
	free(r);
}

/* The stats file: member_io counts what reached the members, merged the folded parts. */
static void test_stats(void **state)
{
	static const uint64_t off[4] = {0, 16 * K, 32 * K, 48 * K};
	uint8_t *w = malloc(64 * K);
	char err[RAID_ERRLEN], path[128];
	struct env e;
	json_object *o, *m, *v;

	snprintf(path, sizeof(path), "/dev/shm/raid-merge-%d.json", getpid());
	fill(w, 64 * K, 7);
	env_open(&e, "raid_level=0", "ram", NULL, NULL);
	same(e.q, RAID_OP_WRITE, w, 4, off, 16 * K, NULL);
	raid_queue_destroy(e.q); /* adds its counters to the array's */
	e.q = NULL;
	assert_int_equal(raid_array_write_stats(e.a, path, err, sizeof(err)), 0);
	o = json_object_from_file(path);
	assert_non_null(o);
	assert_true(json_object_object_get_ex(o, "member_io", &m));
	assert_true(json_object_object_get_ex(m, "writes", &v));
	assert_int_equal(json_object_get_int64(v), 1);
	assert_true(json_object_object_get_ex(m, "merged", &v));
	assert_int_equal(json_object_get_int64(v), 3);
	assert_true(json_object_object_get_ex(m, "write_bytes", &v));
	assert_int_equal(json_object_get_int64(v), 64 * K);
	json_object_put(o);
	unlink(path);
	env_close(&e);
	free(w);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_contiguous), cmocka_unit_test(test_apart),
	    cmocka_unit_test(test_caps),       cmocka_unit_test(test_injected_error),
	    cmocka_unit_test(test_short),      cmocka_unit_test(test_raid5_stripes),
	    cmocka_unit_test(test_stats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
