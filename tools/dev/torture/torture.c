/*
 * tools/dev/torture/torture.c: raid-torture, a seeded random fault campaign against the RAID
 * library (issue 44). It owns the array generator, the operations, the model and the shrinker.
 *
 * A seed picks an array (level, members 2-16 or 64, chunk 4k-1m, backend, cpu parity, with or
 * without raid_state and raid_bitmap) and drives random operations on it. Every operation is
 * a session in a child process that opens the array through the public API (raid/core/raid.h,
 * every option a string through raid_config_set) and is then closed or SIGKILLed: writes,
 * members failed while writing (raid_array_fail_member), EIO injected (raid_inject), members
 * truncated or removed between sessions, SIGKILL during writes (a degraded RAID5/6's too),
 * rebuilds, scrubs and resyncs, SIGKILL aimed at the bitmap's writes, spares rebuilt, members
 * re-added through the bitmap, a full disk under the state file; or a session of fio itself
 * writing through the engine (build/bin/fio, build/engines/raid.so beside this binary).
 *
 * The model is a shadow copy of every write the array acknowledged (the child reports each
 * before it submits and once it is acknowledged, over a pipe); a write that was submitted and
 * not acknowledged (failed, or killed) leaves its sectors unsure. After each operation a
 * reader session checks that every sure byte reads back, and, when the array is optimal and
 * was shut down cleanly, again with one member failed (degraded) and with raid_scrub=check
 * (0 mismatches). A failure prints the seed, shrinks the operations to a shorter list that
 * still fails and prints the command that replays it.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "core/raid.h"

#define SECTOR 512
#define MAX_OPS 512
#define OPLEN 40
#define VOL_MAX (24u << 20) /* bytes of volume at most: the machine is shared */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

struct rng {
	uint64_t s;
};
static uint64_t rnd(struct rng *r)
{
	r->s = mix(r->s);
	return r->s;
}
static uint64_t below(struct rng *r, uint64_t n)
{
	return n ? rnd(r) % n : 0;
}

/* the array a seed describes */
struct array {
	int level, n, tolerate;
	uint64_t chunk, msize, vol;
	const char *backend;
	bool state, bitmap;
	char dir[256];
	char path[RAID_MAX_MEMBERS][300]; /* the device serving each slot now */
	int nspares;			  /* spares made so far (sp0, sp1, ...) */
};

/* what the parent knows between sessions */
struct world {
	struct array ar;
	uint8_t *model;	 /* what every acknowledged write put where */
	uint8_t *unsure; /* per sector: a write was submitted and not acknowledged */
	uint64_t failed; /* slots failed (the array's or the state file's word) */
	uint64_t gone;	 /* slots whose device was truncated or removed: raid_failed given */
	uint64_t intact; /* failed slots whose device holds what it held (re-add candidates) */
	int spare_of[RAID_MAX_MEMBERS]; /* a rebuild under way onto sp<k>: k + 1 */
	bool dirty;			/* killed while writing: resync expected at the next open */
	bool tmpfs;			/* the state file's directory is a tmpfs of ours */
	char why[1024];			/* the first failure */
	long ops_run;
	int tried;    /* operations started, the failing one included */
	long skipped; /* not applicable when their turn came */
};

static bool verbose;
static long total_ops;
static char g_fio[300], g_engine[300]; /* fio and the engine beside this binary, or "" */
/* --devices: the members (then the spares) are these block devices, not files */
static char *g_devs[RAID_MAX_MEMBERS + 8];
static int g_ndevs;
static uint64_t g_devsize, g_devused;

static void fill(uint8_t *buf, uint64_t off, uint64_t len, uint64_t tag)
{
	for (uint64_t i = 0; i < len; i += 8) {
		uint64_t w = mix(tag * 0x100000001b3ULL ^ ((off + i) >> 3));
		memcpy(buf + i, &w, len - i < 8 ? len - i : 8);
	}
}

/* ---- the child: one session on the array ---- */

/*
 * The b operation aims its SIGKILL at the bitmap: the library's own pwrite and fdatasync of
 * the raid_bitmap file (recovery/bitmap.c) come through these (linked with --wrap, tools.mk:
 * no symbol of libc's is defined here), and the child kills itself at the Nth one: before the bits'
 * pwrite (phase 0), before their fdatasync (1), after it (2), or (3, psync: its member writes are
 * pwrite too) between the member writes that follow it, so the row the bit covers is torn.
 */
static int g_bm_at, g_bm_phase; /* the Nth bitmap write; 0: off */
static int g_bm_tear;		/* phase 3: member writes left before the kill; 0: not yet */

static bool bitmap_fd(int fd)
{
	char l[64], t[320];
	ssize_t k;

	snprintf(l, sizeof(l), "/proc/self/fd/%d", fd);
	k = readlink(l, t, sizeof(t) - 1);
	return k > 7 && !memcmp(t + k - 7, ".bitmap", 7);
}

ssize_t __real_pwrite(int fd, const void *buf, size_t n, off_t off);
int __real_fdatasync(int fd);

ssize_t __wrap_pwrite(int fd, const void *buf, size_t n, off_t off)
{
	static int seen;

	if (g_bm_at && g_bm_phase == 0 && bitmap_fd(fd) &&
	    __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST) == g_bm_at)
		raise(SIGKILL);
	if (__atomic_load_n(&g_bm_tear, __ATOMIC_SEQ_CST) && !bitmap_fd(fd) &&
	    __atomic_sub_fetch(&g_bm_tear, 1, __ATOMIC_SEQ_CST) == 0)
		raise(SIGKILL);
	return __real_pwrite(fd, buf, n, off);
}

int __wrap_fdatasync(int fd)
{
	static int seen;
	bool at;
	int ret;

	at = g_bm_at && g_bm_phase && bitmap_fd(fd) &&
	     __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST) == g_bm_at;
	if (at && g_bm_phase == 1)
		raise(SIGKILL);
	ret = __real_fdatasync(fd);
	if (at && g_bm_phase == 3)
		__atomic_store_n(&g_bm_tear, 2 + g_bm_at % 2, __ATOMIC_SEQ_CST);
	else if (at)
		raise(SIGKILL);
	return ret;
}

struct msg {
	char type; /* 'B' submitted, 'A' acknowledged, 'F' a slot failed by us */
	uint64_t off, len, tag;
};

struct session {
	const char *extra[8]; /* NAME=VALUE options beyond the array's own */
	int nextra;
	bool writes;
	int nwrites;		/* writes to do; -1: until killed */
	int fail_at, fail_slot; /* raid_array_fail_member(fail_slot) before write fail_at */
	uint64_t wseed;
	bool check;
	const char *filler; /* filled (the disk full) just before fail_slot fails */
	const char *stats;
	char **argv;	     /* run this program instead (fio); its stdout is dropped */
	int bm_at, bm_phase; /* the b operation: SIGKILL at the bm_at-th bitmap write */
	int depth;	     /* writes in flight at once (1-4; 0: 1) */
};

static int pipe_w = -1;

static void send_msg(char t, uint64_t off, uint64_t len, uint64_t tag)
{
	struct msg m = {t, off, len, tag};

	if (write(pipe_w, &m, sizeof(m)) != sizeof(m))
		_exit(90);
}

static int opt(struct raid_config *c, const char *name, const char *val)
{
	char err[RAID_ERRLEN];

	if (raid_config_set(c, name, val, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return -1;
	}
	return 0;
}

static int log_fd = -1;
static void to_log(const char *line)
{
	dprintf(log_fd, "[%d] %s\n", getpid(), line);
}

/* the nb writes submitted and committed: reaped, each acknowledged one said; returns 0 */
static int write_batch(struct raid_queue *q, struct raid_request *req, const uint64_t *tags, int nb)
{
	struct raid_request *done[4];
	int n;

	if (!nb)
		return 0;
	n = raid_reap(q, (unsigned)nb, (unsigned)nb, NULL, done);
	for (int k = 0; k < n; k++)
		if (!done[k]->error)
			send_msg('A', done[k]->offset, done[k]->length, tags[done[k] - req]);
	return 0;
}

/* runs in the child: 0 ok, 10 open refused, 11 put failed, 12 read mismatch, 13 read error */
static int child(struct world *w, const struct session *s)
{
	struct array *ar = &w->ar;
	struct raid_config c;
	struct raid_array *a;
	struct raid_queue *q;
	char err[RAID_ERRLEN], members[RAID_MAX_MEMBERS * 300] = "", v[64];
	struct rng r = {s->wseed};
	struct raid_request req[4];
	uint64_t tags[4];
	int depth = s->depth > 1 ? s->depth : 1, nb = 0;
	uint8_t *buf;
	int ret = 0;

	raid_config_init(&c);
	snprintf(v, sizeof(v), "%d", ar->level);
	for (int i = 0; i < ar->n; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%s%s",
			 i ? ":" : "", ar->path[i]);
	if (opt(&c, "raid_level", v) || opt(&c, "raid_members", members))
		return 10;
	snprintf(v, sizeof(v), "%llu", (unsigned long long)ar->msize);
	if (opt(&c, "raid_member_size", v))
		return 10;
	if (ar->level != 1) {
		snprintf(v, sizeof(v), "%llu", (unsigned long long)ar->chunk);
		if (opt(&c, "raid_chunk", v))
			return 10;
	}
	if (opt(&c, "raid_backend", ar->backend) || opt(&c, "raid_parity", "cpu"))
		return 10;
	for (int i = 0; i < s->nextra; i++) {
		char name[64];
		const char *eq = strchr(s->extra[i], '=');

		snprintf(name, sizeof(name), "%.*s", (int)(eq - s->extra[i]), s->extra[i]);
		if (opt(&c, name, eq + 1))
			return 10;
	}
	if (s->stats && opt(&c, "raid_stats", s->stats))
		return 10;
	c.writes = s->writes;
	g_bm_phase = s->bm_phase;
	g_bm_at = s->bm_at; /* the open's bitmap writes too (a resync's, a re-add's) */
	if (raid_config_validate(&c, err, sizeof(err)) ||
	    raid_array_get(&c, &a, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		raid_config_free(&c);
		return 10;
	}
	raid_config_free(&c);
	if (raid_queue_create(a, 4, false, &q, err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		raid_array_put(a);
		return 10;
	}
	buf = aligned_alloc(4096, 1 << 20); /* a write is 256 KiB at most: 4 fit */
	for (int i = 0; s->writes && (s->nwrites < 0 || i < s->nwrites); i++) {
		uint64_t len = (1 + below(&r, 512)) * SECTOR, off, tag = rnd(&r);
		uint8_t *b;

		if (below(&r, 4) == 0)
			len = (1 + below(&r, 8)) * 4096;
		if (len > ar->vol)
			len = ar->vol;
		off = below(&r, (ar->vol - len) / SECTOR + 1) * SECTOR;
		if (i == s->fail_at && s->filler) {
			/* open, marked dirty: now the state file's disk fills */
			static char z[4096];
			int fd = open(s->filler, O_WRONLY | O_CREAT | O_TRUNC, 0600);

			while (fd >= 0 && write(fd, z, sizeof(z)) == sizeof(z))
				;
			if (fd >= 0)
				close(fd);
		}
		if (i == s->fail_at) {
			send_msg('F', (uint64_t)s->fail_slot, 0, 0);
			raid_array_fail_member(a, s->fail_slot);
		}
		/* one overlapping a write in flight waits: the model could not order the two */
		for (int j = 0; j < nb; j++)
			if (off < req[j].offset + req[j].length && req[j].offset < off + len) {
				nb = write_batch(q, req, tags, nb);
				break;
			}
		b = buf + (size_t)nb * (256 << 10);
		fill(b, off, len, tag);
		req[nb] = (struct raid_request){
		    .op = RAID_OP_WRITE, .buf = b, .offset = off, .length = len};
		tags[nb] = tag;
		send_msg('B', off, len, tag);
		if (raid_submit(q, &req[nb]) || raid_commit(q) < 0)
			continue; /* committed at once: in flight while the next one starts */
		if (++nb == depth)
			nb = write_batch(q, req, tags, nb);
	}
	nb = write_batch(q, req, tags, nb);
	if (s->check) {
		for (uint64_t off = 0; off < ar->vol && !ret; off += 1 << 20) {
			uint64_t len = ar->vol - off < (1 << 20) ? ar->vol - off : 1 << 20;
			struct raid_request req = {.op = RAID_OP_READ,
						   .buf = buf,
						   .offset = off,
						   .length = len},
					    *done;

			if (raid_submit(q, &req) || raid_commit(q) < 0 ||
			    raid_reap(q, 1, 1, NULL, &done) != 1 || done->error) {
				fprintf(stderr, "read of %llu+%llu failed\n",
					(unsigned long long)off, (unsigned long long)len);
				ret = 13;
				break;
			}
			for (uint64_t b = 0; b < len; b += SECTOR) {
				uint64_t p = off + b;

				if (w->unsure[p / SECTOR] || !memcmp(buf + b, w->model + p, SECTOR))
					continue;
				fprintf(stderr, "acknowledged bytes differ at volume offset %llu\n",
					(unsigned long long)p);
				ret = 12;
				break;
			}
		}
	}
	raid_queue_destroy(q);
	if (raid_array_put(a) && !ret)
		ret = 11;
	free(buf);
	return ret;
}

/* ---- the parent ---- */

struct outcome {
	int rc;	       /* the child's exit status, or -SIGNAL */
	bool killed;   /* by us */
	char err[512]; /* its stderr's last line */
};

static void apply(struct world *w, const struct msg *m)
{
	if (m->type == 'F') {
		w->failed |= 1ULL << m->off;
		w->intact |= 1ULL << m->off;
		return;
	}
	for (uint64_t s = m->off / SECTOR; s < (m->off + m->len) / SECTOR; s++)
		w->unsure[s] = m->type == 'B';
	if (m->type == 'A')
		fill(w->model + m->off, m->off, m->len, m->tag);
}

static void run_session(struct world *w, const struct session *s, int kill_ms, struct outcome *out)
{
	int p[2], e[2], st;
	pid_t pid;
	struct msg m;
	char ebuf[4096];
	ssize_t k, el = 0;

	memset(out, 0, sizeof(*out));
	if (pipe(p) || pipe(e))
		exit(99);
	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		close(p[0]);
		close(e[0]);
		pipe_w = p[1];
		dup2(e[1], 2);
		if (s->argv) {
			int null = open("/dev/null", O_WRONLY);

			dup2(null, 1);
			execv(s->argv[0], s->argv);
			fprintf(stderr, "%s: %s\n", s->argv[0], strerror(errno));
			_exit(127);
		}
		_exit(child(w, s));
	}
	close(p[1]);
	close(e[1]);
	if (kill_ms >= 0) {
		/* the writes go on until killed: read what arrives for kill_ms, then SIGKILL */
		struct timespec t0, t;

		fcntl(p[0], F_SETFL, O_NONBLOCK);
		clock_gettime(CLOCK_MONOTONIC, &t0);
		for (;;) {
			while ((k = read(p[0], &m, sizeof(m))) == sizeof(m))
				apply(w, &m);
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000 >=
			    kill_ms)
				break;
			if (waitpid(pid, &st, WNOHANG) == pid) {
				pid = -1;
				break;
			}
			usleep(1000);
		}
		if (pid > 0) {
			kill(pid, SIGKILL);
			out->killed = true;
		}
		fcntl(p[0], F_SETFL, 0);
	}
	while ((k = read(p[0], &m, sizeof(m))) == sizeof(m))
		apply(w, &m);
	while (el < (ssize_t)sizeof(ebuf) - 1 &&
	       (k = read(e[0], ebuf + el, sizeof(ebuf) - 1 - el)) > 0)
		el += k;
	ebuf[el] = 0;
	close(p[0]);
	close(e[0]);
	if (pid > 0)
		waitpid(pid, &st, 0);
	out->rc = WIFEXITED(st) ? WEXITSTATUS(st) : -WTERMSIG(st);
	while (el && ebuf[el - 1] == '\n')
		ebuf[--el] = 0;
	snprintf(out->err, sizeof(out->err), "%.500s",
		 strrchr(ebuf, '\n') ? strrchr(ebuf, '\n') + 1 : ebuf);
	if (verbose && el)
		fprintf(stderr, "    | %s\n", out->err);
}

static void path_of(const struct array *ar, const char *name, char *out, size_t len)
{
	snprintf(out, len, "%s/%s", ar->dir, name);
}

/* the state file's word on failed slots (an unfinished rebuild's slot counts failed) */
static void read_state(struct world *w)
{
	char p[300];
	json_object *o, *x;

	if (!w->ar.state)
		return;
	path_of(&w->ar, "st/state.json", p, sizeof(p));
	if (!(o = json_object_from_file(p)))
		return;
	/*
	 * A spare whose rebuild finished is the slot's device now, even when the session that
	 * rebuilt it was killed after: the slot's old device, gone or not, is named no more.
	 */
	if (json_object_object_get_ex(o, "replaced", &x))
		for (size_t i = 0; i < json_object_array_length(x); i++) {
			json_object *e = json_object_array_get_idx(x, i), *m, *sp, *d;
			int k;

			if (!json_object_object_get_ex(e, "member", &m) ||
			    !json_object_object_get_ex(e, "spare", &sp) ||
			    !json_object_object_get_ex(e, "done", &d) ||
			    !json_object_get_boolean(d))
				continue;
			k = json_object_get_int(m);
			if (k < 0 || k >= w->ar.n ||
			    !strcmp(w->ar.path[k], json_object_get_string(sp)))
				continue;
			snprintf(w->ar.path[k], sizeof(w->ar.path[k]), "%s",
				 json_object_get_string(sp));
			w->spare_of[k] = 0;
			w->gone &= ~(1ULL << k);
			w->intact &= ~(1ULL << k);
		}
	w->failed = w->gone;
	if (json_object_object_get_ex(o, "failed", &x))
		for (size_t i = 0; i < json_object_array_length(x); i++)
			w->failed |= 1ULL << json_object_get_int(json_object_array_get_idx(x, i));
	if (json_object_object_get_ex(o, "clean", &x))
		w->dirty = !json_object_get_boolean(x);
	json_object_put(o);
}

/*
 * A session that ended without a kill: clean, unless the state file stays dirty (a forced
 * dirty degraded start keeps it so until a complete array resyncs, as md's pending resync)
 */
static void ended_clean(struct world *w)
{
	char p[300];
	json_object *o, *x;

	if (!w->ar.state && w->dirty && w->ar.tolerate) {
		/* raid_init=resync ran only if the stats say so: on a degraded array it waits for
		 * a rebuild to complete it (the engine keeps it owed, as md's pending resync) */
		path_of(&w->ar, "stats.json", p, sizeof(p));
		if ((o = json_object_from_file(p))) {
			w->dirty = !json_object_object_get_ex(o, "resync", &x) ||
				   json_object_is_type(x, json_type_null);
			json_object_put(o);
		}
		return;
	}
	w->dirty = false;
	path_of(&w->ar, "st/state.json", p, sizeof(p));
	if (w->ar.state && (o = json_object_from_file(p))) {
		if (json_object_object_get_ex(o, "clean", &x))
			w->dirty = !json_object_get_boolean(x);
		json_object_put(o);
	}
}

/* the array's word on failed slots, from its stats */
static void read_stats(struct world *w, const char *p)
{
	json_object *o, *x;

	if (!(o = json_object_from_file(p)))
		return;
	if (json_object_object_get_ex(o, "failed", &x)) {
		uint64_t f = 0;

		for (size_t i = 0; i < json_object_array_length(x); i++)
			f |= 1ULL << json_object_get_int(json_object_array_get_idx(x, i));
		w->failed = f | (w->ar.state ? 0 : w->gone);
	}
	json_object_put(o);
	unlink(p);
}

static long scrub_mismatches(const char *p)
{
	json_object *o, *x, *y;
	long n = -1;

	if ((o = json_object_from_file(p))) {
		if (json_object_object_get_ex(o, "scrub", &x) && x &&
		    json_object_object_get_ex(x, "mismatches", &y))
			n = json_object_get_int64(y);
		json_object_put(o);
	}
	unlink(p);
	return n;
}

static int popcount(uint64_t x)
{
	return __builtin_popcountll(x);
}

static char fbuf[8][128];
static int fbi;
/* raid_failed=... for the slots the parent must name (its own when there is no state file) */
static void add_failed(struct world *w, struct session *s)
{
	uint64_t f = w->ar.state ? w->gone : w->failed;
	char *b = fbuf[fbi++ % 8];
	int n = snprintf(b, 128, "raid_failed=");

	if (!f)
		return;
	for (int i = 0; i < w->ar.n; i++)
		if (f >> i & 1)
			n += snprintf(b + n, 128 - n, "%s%d", n > 12 ? "," : "", i);
	s->extra[s->nextra++] = b;
}

/*
 * raid_start_dirty_degraded=1 is the user's word that rows written at the crash may read
 * wrong (docs/rebuild.md): at RAID5/6 a torn row's missing chunk is rebuilt from parity that
 * no longer matches it, whatever of the row was acknowledged before. So each row holding an
 * unsure sector is unsure whole from then on (until written again).
 */
static void torn_rows(struct world *w)
{
	const struct array *ar = &w->ar;
	uint64_t row = ar->chunk * (uint64_t)(ar->n - (ar->level == 6 ? 2 : 1)) / SECTOR;
	uint64_t ns = ar->vol / SECTOR;

	if (ar->level != 5 && ar->level != 6)
		return;
	for (uint64_t r = 0; r < ns; r += row) {
		uint64_t end = r + row < ns ? r + row : ns, i;

		for (i = r; i < end && !w->unsure[i]; i++)
			;
		if (i < end)
			memset(w->unsure + r, 1, end - r);
	}
}

static void base_session(struct world *w, struct session *s, bool writes)
{
	static char st[300];

	memset(s, 0, sizeof(*s));
	s->writes = writes;
	s->fail_at = -1;
	if (w->ar.state) {
		snprintf(st, sizeof(st), "raid_state=%s/st/state.json", w->ar.dir);
		s->extra[s->nextra++] = st;
		if (w->ar.bitmap)
			s->extra[s->nextra++] = "raid_bitmap=1";
		if (w->dirty && popcount(w->failed)) {
			s->extra[s->nextra++] = "raid_start_dirty_degraded=1";
			torn_rows(w);
		}
	} else if (w->dirty && w->ar.tolerate) {
		s->extra[s->nextra++] = "raid_init=resync"; /* what a user does after a crash */
		if (popcount(w->failed))
			torn_rows(w); /* no mark to refuse it: the same risk, unasked */
	}
	add_failed(w, s);
}

static int fail(struct world *w, const char *fmt, ...)
{
	va_list ap;

	if (w->why[0])
		return -1;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	return -1;
}

/*
 * After a degraded RAID5/6 writer was killed, md refuses the start (a torn row's missing
 * chunk would be rebuilt from stale parity) until start_dirty_degraded; so must the state
 * file. The forced start that follows is the next session's (base_session).
 */
static int dirty_degraded_refused(struct world *w)
{
	struct session s;
	struct outcome o;
	int k = 0;

	if (!w->ar.state || !w->dirty || !popcount(w->failed) ||
	    (w->ar.level != 5 && w->ar.level != 6))
		return 0;
	base_session(w, &s, false);
	for (int i = 0; i < s.nextra; i++) /* the same start, not forced */
		if (strcmp(s.extra[i], "raid_start_dirty_degraded=1"))
			s.extra[k++] = s.extra[i];
	s.nextra = k;
	run_session(w, &s, -1, &o);
	if (o.rc != 10 || !strstr(o.err, "raid_start_dirty_degraded=1"))
		return fail(w, "a killed degraded raid%d writer restarted unforced (status %d): %s",
			    w->ar.level, o.rc, o.err);
	return 0;
}

/* the checks after each step: reads back optimal, degraded, scrub when in sync */
static int check(struct world *w)
{
	struct session s;
	struct outcome o;
	char stats[300];

	path_of(&w->ar, "stats.json", stats, sizeof(stats));
	base_session(w, &s, false);
	s.check = true;
	s.stats = stats;
	run_session(w, &s, -1, &o);
	if (o.rc)
		return fail(w, "check read (status %d): %s", o.rc, o.err);
	read_stats(w, stats);
	if (w->ar.state)
		read_state(w); /* a reader's open resyncs a dirty array and marks it clean */
	else
		ended_clean(w); /* raid_init=resync ran, unless a member has failed */
	return 0;
}

/* in sync: no slot failed, shut down cleanly: degraded reads and scrub must hold */
static int check_in_sync(struct world *w, uint64_t seed)
{
	struct session s;
	struct outcome o;
	char stats[300], f[64];
	long mm;

	if (w->failed || w->dirty || !w->ar.tolerate)
		return 0;
	path_of(&w->ar, "stats.json", stats, sizeof(stats));
	base_session(w, &s, false);
	s.extra[s.nextra++] = "raid_scrub=check";
	s.stats = stats;
	run_session(w, &s, -1, &o);
	if (o.rc)
		return fail(w, "scrub check (status %d): %s", o.rc, o.err);
	if ((mm = scrub_mismatches(stats)) != 0)
		return fail(w, "scrub of an array in sync found %ld mismatches", mm);
	/* degraded: one member out, read-only, without the state file (nothing recorded) */
	memset(&s, 0, sizeof(s));
	s.fail_at = -1;
	snprintf(f, sizeof(f), "raid_failed=%d", (int)(mix(seed) % w->ar.n));
	s.extra[s.nextra++] = f;
	s.check = true;
	run_session(w, &s, -1, &o);
	if (o.rc)
		return fail(w, "degraded check, %s (status %d): %s", f, o.rc, o.err);
	return 0;
}

/* ---- the operations ---- */

/*
 * F: writes through fio and the engine (ioengine=external:raid.so, the array's options as a
 * job file gives them): random blocks of 4k-64k over a random range, each block fio's
 * verify_pattern, read back by fio itself (verify=pattern), then held by the model. With
 * inject, EIO on member slot's writes (raid_inject) after a few; one in four is SIGKILLed.
 */
static int fio_op(struct world *w, int slot, bool inject, struct rng *r, const char *op)
{
	static char a[40][320], mem[RAID_MAX_MEMBERS * 300 + 16];
	struct array *ar = &w->ar;
	char stats[300], *argv[48];
	uint64_t bs = 4096ULL << below(r, 5), len, off;
	uint8_t pat[4];
	struct session s;
	struct outcome o;
	int n = 0, kill_ms = below(r, 4) ? -1 : 20 + (int)below(r, 300);

	if (!g_fio[0])
		return 1;
	while (bs > ar->vol)
		bs /= 2;
	len = bs * (1 + below(r, ar->vol / bs));
	off = bs * below(r, (ar->vol - len) / bs + 1);
	for (int i = 0; i < 4; i++)
		pat[i] = (uint8_t)rnd(r);
	path_of(ar, "stats.json", stats, sizeof(stats));
	base_session(w, &s, true);
#define ARG(...) (snprintf(a[n], sizeof(a[n]), __VA_ARGS__), argv[n] = a[n], n++)
	ARG("%s", g_fio);
	ARG("--name=torture");
	ARG("--ioengine=external:%s", g_engine);
	ARG("--thread=1");
	ARG("--filename=vol");
	ARG("--rw=randwrite");
	ARG("--bs=%llu", (unsigned long long)bs);
	ARG("--offset=%llu", (unsigned long long)off);
	ARG("--size=%llu", (unsigned long long)len);
	ARG("--iodepth=%d", 1 << below(r, 5));
	ARG("--verify=pattern");
	ARG("--verify_pattern=0x%02x%02x%02x%02x", pat[0], pat[1], pat[2], pat[3]);
	ARG("--verify_fatal=1");
	ARG("--verify_state_save=0");
	ARG("--raid_level=%d", ar->level);
	ARG("--raid_member_size=%llu", (unsigned long long)ar->msize);
	if (ar->level != 1)
		ARG("--raid_chunk=%llu", (unsigned long long)ar->chunk);
	ARG("--raid_backend=%s", ar->backend);
	ARG("--raid_parity=cpu");
	ARG("--raid_stats=%s", stats);
	for (int i = 0; i < s.nextra; i++)
		ARG("--%s", s.extra[i]);
	if (inject)
		ARG("--raid_inject=%d:write:%d", slot, 1 + (int)below(r, 20));
#undef ARG
	snprintf(mem, sizeof(mem), "--raid_members=");
	for (int i = 0; i < ar->n; i++)
		snprintf(mem + strlen(mem), sizeof(mem) - strlen(mem), "%s%s", i ? ":" : "",
			 ar->path[i]);
	argv[n++] = mem;
	argv[n] = NULL;
	memset(&s, 0, sizeof(s));
	s.argv = argv;
	memset(w->unsure + off / SECTOR, 1, len / SECTOR); /* until fio says it is verified */
	run_session(w, &s, kill_ms, &o);
	if (o.killed) {
		w->dirty = true;
		read_state(w);
		return dirty_degraded_refused(w);
	}
	if (o.rc)
		return fail(w, "%s: fio (status %d): %s", op, o.rc, o.err);
	for (uint64_t i = 0; i < len; i++)
		w->model[off + i] = pat[i % 4];
	memset(w->unsure + off / SECTOR, 0, len / SECTOR);
	read_stats(w, stats);
	if (inject)
		w->intact |= w->failed & ~w->gone;
	ended_clean(w);
	return 0;
}

/*
 * One operation, "KIND:ARG:SEED": w (writes), k (writes, SIGKILL), f (writes, member ARG
 * fails), e (writes, EIO injected on ARG), t (ARG truncated), x (ARG removed), s (a spare
 * rebuilt for the lowest failed slot, with writes), K (the same, SIGKILL during it), c (scrub,
 * SIGKILL during it when ARG is 1), a (re-add ARG through the bitmap), d (the state file's disk
 * full while member ARG fails under writes), F (writes through fio; EIO injected on ARG when
 * odd), b (writes, SIGKILL aimed at a bitmap write). Not applicable now: skipped (returns 1).
 */
static int do_op(struct world *w, const char *op)
{
	struct array *ar = &w->ar;
	char kind;
	unsigned long long arg = 0, seed = 0;
	struct session s;
	struct outcome o;
	struct rng r;
	char stats[300], p[300], extra[2][320];
	int slot = (int)arg, nf = popcount(w->failed);

	if (sscanf(op, "%c:%llu:%llu", &kind, &arg, &seed) != 3)
		return fail(w, "bad operation '%s'", op);
	slot = (int)(arg % ar->n);
	r.s = seed;
	path_of(ar, "stats.json", stats, sizeof(stats));
	switch (kind) {
	case 'F':
		return fio_op(w, slot, arg & 1 && nf < ar->tolerate && !(w->failed >> slot & 1), &r,
			      op);
	case 'w':
	case 'k':
	case 'f':
	case 'e':
	case 'b':
		if ((kind == 'f' || kind == 'e') && (nf >= ar->tolerate || w->failed >> slot & 1))
			return 1;
		if (kind == 'b' && !ar->bitmap)
			return 1;
		base_session(w, &s, true);
		s.wseed = seed;
		s.nwrites = kind == 'k' ? -1 : 8 + (int)below(&r, 40);
		s.stats = stats;
		if (kind == 'b') {
			s.bm_at = 1 + (int)below(&r, 4);
			s.bm_phase = (int)below(&r, 4);
			s.depth = 1 + (int)below(&r, 4); /* writes in flight at the kill */
		}
		if (kind == 'f') {
			s.fail_at = (int)below(&r, s.nwrites);
			s.fail_slot = slot;
		}
		if (kind == 'e') {
			snprintf(extra[0], sizeof(extra[0]), "raid_inject=%d:write:%d", slot,
				 1 + (int)below(&r, 50));
			s.extra[s.nextra++] = extra[0];
		}
		run_session(w, &s, kind == 'k' ? 5 + (int)below(&r, 200) : -1, &o);
		if (kind == 'b' && o.rc == -SIGKILL && verbose)
			fprintf(stderr, "    | killed at bitmap write %d, %s\n", s.bm_at,
				(const char *[]){"before its pwrite", "before its fdatasync",
						 "after its fdatasync",
						 "between the member writes after it"}[s.bm_phase]);
		if (o.killed || (kind == 'b' && o.rc == -SIGKILL)) {
			w->dirty = true;
			read_state(w);
			return dirty_degraded_refused(w);
		}
		if (o.rc && o.rc != 11)
			return fail(w, "%s (status %d): %s", op, o.rc, o.err);
		read_stats(w, stats);
		if (kind == 'e')
			w->intact |= w->failed & ~w->gone;
		ended_clean(w);
		return 0;
	case 't':
	case 'x':
		if (g_ndevs || nf >= ar->tolerate || w->failed >> slot & 1)
			return 1;
		if (kind == 't' ? truncate(ar->path[slot], (off_t)(ar->msize / 2))
				: unlink(ar->path[slot]))
			return fail(w, "%s: %s: %s", op, ar->path[slot], strerror(errno));
		w->gone |= 1ULL << slot;
		w->failed |= 1ULL << slot;
		w->intact &= ~(1ULL << slot);
		return 0;
	case 's':
	case 'K': {
		int k;

		if (!nf)
			return 1;
		slot = __builtin_ctzll(w->failed);
		if (!w->spare_of[slot]) {
			if (g_ndevs && ar->n + ar->nspares >= g_ndevs)
				return 1; /* the drives given are all in use */
			w->spare_of[slot] = ++ar->nspares;
		}
		k = w->spare_of[slot] - 1;
		if (g_ndevs)
			snprintf(p, sizeof(p), "%s", g_devs[ar->n + k]);
		else
			snprintf(p, sizeof(p), "%s/sp%d", ar->dir, k);
		base_session(w, &s, kind == 's');
		snprintf(extra[0], sizeof(extra[0]), "raid_spares=%s", p);
		s.extra[s.nextra++] = extra[0];
		s.extra[s.nextra++] = "raid_rebuild=1";
		s.wseed = seed;
		s.nwrites = kind == 's' ? (int)below(&r, 20) : 0;
		s.stats = stats;
		run_session(w, &s, kind == 'K' ? 1 + (int)below(&r, 100) : -1, &o);
		if (o.killed) {
			read_state(w); /* the rebuild may have ended before the kill */
		} else if (o.rc) {
			return fail(w, "%s (status %d): %s", op, o.rc, o.err);
		} else {
			read_stats(w, stats);
			ended_clean(w);
		}
		if (!(w->failed >> slot & 1) && (!o.killed || ar->state)) {
			snprintf(ar->path[slot], sizeof(ar->path[slot]), "%s", p);
			w->spare_of[slot] = 0;
			w->gone &= ~(1ULL << slot);
			w->intact &= ~(1ULL << slot);
		}
		return 0;
	}
	case 'c':
		if (nf || !ar->tolerate)
			return 1;
		base_session(w, &s, false);
		s.extra[s.nextra++] = "raid_scrub=repair";
		run_session(w, &s, arg & 1 ? 1 + (int)below(&r, 50) : -1, &o);
		if (!o.killed && o.rc)
			return fail(w, "%s (status %d): %s", op, o.rc, o.err);
		return 0;
	case 'a':
		if (!ar->bitmap || !(w->intact >> slot & 1) || !(w->failed >> slot & 1))
			return 1;
		base_session(w, &s, true);
		snprintf(extra[0], sizeof(extra[0]), "raid_re_add=%d", slot);
		s.extra[s.nextra++] = extra[0];
		s.stats = stats;
		run_session(w, &s, -1, &o);
		if (o.rc)
			return fail(w, "%s (status %d): %s", op, o.rc, o.err);
		read_stats(w, stats);
		w->intact &= w->failed;
		return 0;
	case 'd': {
		char filler[300];

		if (!w->tmpfs || nf >= ar->tolerate || w->failed >> slot & 1)
			return 1;
		base_session(w, &s, true);
		s.wseed = seed;
		s.nwrites = 8 + (int)below(&r, 40);
		s.fail_at = (int)below(&r, s.nwrites);
		s.fail_slot = slot;
		path_of(ar, "st/filler", filler, sizeof(filler));
		s.filler = filler;
		run_session(w, &s, -1, &o);
		unlink(filler);
		read_state(w);
		w->dirty = true; /* its last save may not have happened */
		return 0;
	}
	}
	return fail(w, "bad operation '%s'", op);
}

/* a random applicable-looking operation */
static void gen_op(struct world *w, struct rng *r, char *out)
{
	static const char kinds[] = "wwwwkkkffeetxsssKccadFFb";
	char k = kinds[below(r, sizeof(kinds) - 1)];

	snprintf(out, OPLEN, "%c:%llu:%llu", k, (unsigned long long)below(r, w->ar.n),
		 (unsigned long long)(rnd(r) & 0xffffffff));
}

static int ioctl_size(int fd, uint64_t *size)
{
	return ioctl(fd, BLKGETSIZE64, size);
}

static int zero_range(int fd, uint64_t len)
{
	static char z[1 << 16];

	for (uint64_t o = 0; o < len; o += sizeof(z))
		if (pwrite(fd, z, len - o < sizeof(z) ? len - o : sizeof(z), (off_t)o) < 0)
			return -1;
	return fsync(fd);
}

/*
 * --devices: each must be a block device that holds nothing: no signature blkid knows
 * (anywhere it looks, the end of the device too) and a first MiB of zeros. What is on it is
 * written over, so a drive with data is refused by name, never used.
 */
static int take_devices(const char *list)
{
	char *d = strdup(list), *save, *t, cmd[400], out[256];
	static char buf[1 << 20];

	for (t = strtok_r(d, ",:", &save); t; t = strtok_r(NULL, ",:", &save)) {
		struct stat st;
		uint64_t size;
		FILE *f;
		int fd;

		if (g_ndevs == (int)(sizeof(g_devs) / sizeof(g_devs[0]))) {
			fprintf(stderr, "raid-torture: --devices: more than %d\n", g_ndevs);
			return -1;
		}
		if (stat(t, &st) || !S_ISBLK(st.st_mode)) {
			fprintf(stderr, "raid-torture: --devices: %s is not a block device\n", t);
			return -1;
		}
		snprintf(cmd, sizeof(cmd), "blkid -p -o value -s TYPE '%s' 2>/dev/null", t);
		out[0] = 0;
		if ((f = popen(cmd, "r"))) {
			if (!fgets(out, sizeof(out), f))
				out[0] = 0;
			pclose(f);
		}
		fd = open(t, O_RDONLY);
		if (fd < 0 || pread(fd, buf, sizeof(buf), 0) != (ssize_t)sizeof(buf) ||
		    ioctl_size(fd, &size)) {
			fprintf(stderr, "raid-torture: --devices: %s: cannot read it: %s\n", t,
				strerror(errno));
			return -1;
		}
		close(fd);
		for (size_t i = 0; i < sizeof(buf) && !out[0]; i++)
			if (buf[i])
				snprintf(out, sizeof(out), "its first MiB is not zero");
		if (out[0]) {
			fprintf(stderr,
				"raid-torture: --devices: %s holds data (%.*s): refused; wipe it "
				"yourself (wipefs -a, zeros over its first MiB) if it is yours to "
				"lose\n",
				t, (int)strcspn(out, "\n"), out);
			return -1;
		}
		if (!g_devsize || size < g_devsize)
			g_devsize = size;
		g_devs[g_ndevs++] = strdup(t);
	}
	free(d);
	if (g_ndevs < 2) {
		fprintf(stderr, "raid-torture: --devices: at least 2\n");
		return -1;
	}
	return 0;
}

static void pick_array(struct array *ar, uint64_t seed, const char *backend, const char *base)
{
	static const int levels[] = {0, 1, 5, 6, 10};
	static const char *bes[] = {"psync", "io_uring", "libaio"};
	struct rng r = {seed};
	struct raid_level_info li;
	uint64_t per;

	memset(ar, 0, sizeof(*ar));
	ar->level = levels[below(&r, 5)];
	raid_level_get(ar->level, &li);
	ar->n = below(&r, 10) == 0 ? 64 : li.min_members + (int)below(&r, 17 - li.min_members);
	if (ar->level == 10 && ar->n % 2)
		ar->n++;
	if (g_ndevs) { /* the drives given: all but two members (those two the spares) */
		while (ar->level && li.min_members > g_ndevs - (g_ndevs > 3 ? 2 : 0))
			raid_level_get(ar->level = levels[below(&r, 5)], &li);
		ar->n = g_ndevs > li.min_members + 1 ? g_ndevs - 2 : g_ndevs;
		if (ar->level == 10 && ar->n % 2)
			ar->n--;
		if (ar->n < li.min_members)
			raid_level_get(ar->level = 0, &li), ar->n = g_ndevs;
	}
	ar->tolerate = li.max_failed == RAID_ALL_BUT_ONE ? ar->n - 1 : li.max_failed;
	if (ar->level == 10)
		ar->tolerate = 1; /* near2: one of each pair; one at a time here */
	ar->chunk = 4096ULL << below(&r, 9);
	while (ar->chunk > 4096 && (uint64_t)ar->n * ar->chunk * 4 > VOL_MAX)
		ar->chunk /= 2;
	ar->msize = ar->chunk * 4;
	if (ar->msize < 256 << 10)
		ar->msize = 256 << 10;
	if (g_ndevs && ar->msize > g_devsize)
		ar->msize = g_devsize / ar->chunk * ar->chunk;
	if (g_ndevs && ar->msize > g_devused)
		g_devused = ar->msize;
	ar->backend = backend ? backend : bes[below(&r, 3)];
	ar->state = below(&r, 3) != 0;
	ar->bitmap = ar->state && ar->level && below(&r, 2);
	per = ar->msize;
	{
		double dm = raid_level_data_members(&li, ar->n);
		ar->vol = (uint64_t)(dm * (double)per);
	}
	snprintf(ar->dir, sizeof(ar->dir), "%s/t%llu", base, (unsigned long long)seed);
	for (int i = 0; i < ar->n; i++)
		if (g_ndevs)
			snprintf(ar->path[i], sizeof(ar->path[i]), "%s", g_devs[i]);
		else
			snprintf(ar->path[i], sizeof(ar->path[i]), "%s/m%d", ar->dir, i);
}

static void describe(const struct array *ar, char *out, size_t len)
{
	snprintf(out, len, "raid%d n=%d chunk=%lluk member=%lluk %s%s%s", ar->level, ar->n,
		 (unsigned long long)ar->chunk >> 10, (unsigned long long)ar->msize >> 10,
		 ar->backend, ar->state ? " state" : "", ar->bitmap ? " bitmap" : "");
}

static const char *g_backend, *g_base;
static bool g_mount = true;

static void cleanup(struct world *w)
{
	char cmd[600];

	if (w->tmpfs && !(w->why[0] && getenv("TORTURE_KEEP"))) {
		char p[300];

		path_of(&w->ar, "st", p, sizeof(p));
		umount(p);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", w->ar.dir);
	if (!(w->why[0] && getenv("TORTURE_KEEP")) && system(cmd) != 0)
		fprintf(stderr, "raid-torture: could not remove %s\n", w->ar.dir);
	free(w->model);
	free(w->unsure);
}

/*
 * Runs the operations (given, or nops generated) on the seed's array; 0 when every check
 * held, else -1 with w->why. ops/nops: what ran (generated ones appended).
 */
static int run_seed(uint64_t seed, char ops[][OPLEN], int *nops, bool generate, struct world *w)
{
	struct rng r = {mix(seed ^ 0x5eed)};
	char p[300];
	int ret = 0;

	memset(w, 0, sizeof(*w));
	pick_array(&w->ar, seed, g_backend, g_base);
	w->model = calloc(1, w->ar.vol);
	w->unsure = calloc(1, w->ar.vol / SECTOR + 1);
	if (mkdir(w->ar.dir, 0700) && errno != EEXIST)
		return fail(w, "%s: %s", w->ar.dir, strerror(errno));
	path_of(&w->ar, "st", p, sizeof(p));
	mkdir(p, 0700);
	if (w->ar.state && g_mount && !mount("tmpfs", p, "tmpfs", 0, "size=256k"))
		w->tmpfs = true;
	for (int i = 0; i < (g_ndevs ? g_ndevs : w->ar.n); i++) {
		/* the members (and drives' spares), zeroed: the model starts at zero */
		const char *m = g_ndevs ? g_devs[i] : w->ar.path[i];
		int fd = open(m, O_RDWR | (g_ndevs ? 0 : O_CREAT | O_TRUNC), 0600);

		if (fd < 0 ||
		    (g_ndevs ? zero_range(fd, w->ar.msize) : ftruncate(fd, (off_t)w->ar.msize)))
			ret = fail(w, "%s: %s", m, strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	for (int i = 0; i < *nops && !ret; i++) {
		if (generate)
			gen_op(w, &r, ops[i]);
		w->tried = i + 1;
		int k = do_op(w, ops[i]);

		if (k < 0) {
			ret = -1;
			break;
		}
		w->ops_run++;
		if (!k)
			total_ops++; /* run, not skipped as not applicable */
		else
			w->skipped++;
		if (verbose)
			fprintf(stderr, "  %s%s\n", ops[i], k ? " (skipped)" : "");
		if (!k && (check(w) || check_in_sync(w, seed + i)))
			ret = -1;
	}
	cleanup(w);
	return ret;
}

static void join(char ops[][OPLEN], int n, char *out, size_t len)
{
	size_t l = 0;

	out[0] = 0;
	for (int i = 0; i < n && l < len; i++)
		l += snprintf(out + l, len - l, "%s%s", i ? "," : "", ops[i]);
}

static int parse_ops(const char *s, char ops[][OPLEN])
{
	int n = 0;
	char *d = strdup(s), *save, *t;

	for (t = strtok_r(d, ",", &save); t && n < MAX_OPS; t = strtok_r(NULL, ",", &save))
		snprintf(ops[n++], OPLEN, "%s", t);
	free(d);
	return n;
}

/* drop operations one at a time while it still fails (a kill's timing may differ: best effort) */
static int shrink(uint64_t seed, char ops[][OPLEN], int n)
{
	static char trial[MAX_OPS][OPLEN];
	struct world w;

	for (int i = n - 1; i >= 0; i--) {
		int m = 0;

		for (int j = 0; j < n; j++)
			if (j != i)
				memcpy(trial[m++], ops[j], OPLEN);
		if (run_seed(seed, trial, &m, false, &w)) {
			memcpy(ops, trial, sizeof(trial[0]) * (size_t)m);
			n = m;
		}
	}
	return n;
}

static int one_seed(uint64_t seed, const char *given, int nops, bool do_shrink)
{
	static char ops[MAX_OPS][OPLEN];
	static char list[MAX_OPS * OPLEN];
	struct world w;
	char d[256];
	int n = given ? parse_ops(given, ops) : nops;

	if (run_seed(seed, ops, &n, !given, &w) == 0) {
		describe(&w.ar, d, sizeof(d));
		printf("seed %llu: %s: %ld operations (%ld not applicable), every check held\n",
		       (unsigned long long)seed, d, w.ops_run - w.skipped, w.skipped);
		fflush(stdout);
		return 0;
	}
	describe(&w.ar, d, sizeof(d));
	n = w.tried; /* what ran, the failing one last */
	printf("FAILED seed %llu: %s: %s\n", (unsigned long long)seed, d, w.why);
	join(ops, n, list, sizeof(list));
	printf("  operations: %s\n", list);
	fflush(stdout);
	if (do_shrink) {
		n = shrink(seed, ops, n);
		join(ops, n, list, sizeof(list));
		printf("  shrunk to %d: %s\n", n, list);
	}
	printf("  replay: build/bin/raid-torture --seed %llu%s%s --ops '%s'\n",
	       (unsigned long long)seed, g_backend ? " --backend " : "", g_backend ? g_backend : "",
	       list);
	fflush(stdout);
	return 1;
}

static void usage(int status)
{
	fprintf(
	    status ? stderr : stdout,
	    "usage: raid-torture [--seed S [--ops 'K:A:S,...'] | --seeds S1,S2,... | --duration "
	    "SECONDS] [--count N] [--backend psync|io_uring|libaio] [--dir DIR] [--no-shrink] "
	    "[--no-mount] [--devices D1,D2,... (empty block devices: refused when they hold data)] "
	    "[-v]\n");
	exit(status);
}

/* a whole number for option NAME, or one line naming it and exit 2 */
static uint64_t number_arg(const char *name, const char *v, uint64_t hi)
{
	char *end;
	unsigned long long x;

	errno = 0;
	x = strtoull(v, &end, 0);
	if (errno || end == v || *end || v[0] == '-' || x > hi) {
		fprintf(stderr, "raid-torture: --%s: '%s' is not a whole number up to %llu\n", name,
			v, (unsigned long long)hi);
		exit(2);
	}
	return x;
}

int main(int argc, char **argv)
{
	static const struct option lo[] = {{"seed", 1, 0, 's'},
					   {"seeds", 1, 0, 'S'},
					   {"ops", 1, 0, 'o'},
					   {"count", 1, 0, 'n'},
					   {"duration", 1, 0, 'd'},
					   {"backend", 1, 0, 'b'},
					   {"dir", 1, 0, 'D'},
					   {"no-shrink", 0, 0, 'N'},
					   {"no-mount", 0, 0, 'M'},
					   {"devices", 1, 0, 'X'},
					   {"verbose", 0, 0, 'v'},
					   {"help", 0, 0, 'h'},
					   {0, 0, 0, 0}};
	const char *seeds = NULL, *given = NULL;
	long duration = 0;
	int nops = 30, c, failed = 0, nseeds = 0;
	bool do_shrink = true, have_seed = false;
	uint64_t seed = 0;
	time_t t0 = time(NULL);
	char logp[300];

	while ((c = getopt_long(argc, argv, "v", lo, NULL)) != -1)
		switch (c) {
		case 's':
			seed = number_arg("seed", optarg, UINT64_MAX), have_seed = true;
			break;
		case 'S':
			seeds = optarg;
			break;
		case 'o':
			given = optarg;
			break;
		case 'n':
			nops = (int)number_arg("count", optarg, MAX_OPS);
			break;
		case 'd':
			duration = (long)number_arg("duration", optarg, 365L * 24 * 3600);
			break;
		case 'b':
			g_backend = optarg;
			break;
		case 'D':
			g_base = optarg;
			break;
		case 'N':
			do_shrink = false;
			break;
		case 'M':
			g_mount = false;
			break;
		case 'X':
			if (take_devices(optarg))
				return 1;
			break;
		case 'v':
			verbose = true;
			break;
		case 'h':
			usage(0);
			break;
		default:
			usage(2);
		}
	if (nops < 1 || nops > MAX_OPS || (!have_seed && !seeds && !duration) ||
	    (g_backend && strcmp(g_backend, "psync") && strcmp(g_backend, "io_uring") &&
	     strcmp(g_backend, "libaio")))
		usage(2);
	if (!g_base)
		g_base = "/dev/shm";
	{ /* fio and the engine where make puts them: build/bin/fio, build/engines/raid.so */
		char exe[256];
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[k > 0 ? k : 0] = 0;
		if (strrchr(exe, '/'))
			*strrchr(exe, '/') = 0;
		snprintf(g_fio, sizeof(g_fio), "%s/fio", exe);
		snprintf(g_engine, sizeof(g_engine), "%s/../engines/raid.so", exe);
		if (access(g_fio, X_OK) || access(g_engine, R_OK))
			g_fio[0] = 0; /* the F operation is not applicable */
	}
	if (getuid())
		g_mount = false; /* no tmpfs of our own: the full-disk operation is skipped */
	snprintf(logp, sizeof(logp), "%s/raid-torture-%d.log", g_base, getpid());
	log_fd = open(logp, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND, 0600);
	raid_set_log(to_log);
	if (have_seed) {
		failed = one_seed(seed, given, nops, do_shrink);
		nseeds = 1;
	} else if (seeds) {
		char *d = strdup(seeds), *save, *t;

		for (t = strtok_r(d, ",", &save); t; t = strtok_r(NULL, ",", &save), nseeds++)
			failed += one_seed(strtoull(t, NULL, 0), NULL, nops, do_shrink);
		free(d);
	} else {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		seed = mix((uint64_t)ts.tv_nsec ^ (uint64_t)getpid()) % 1000000000;
		while (time(NULL) - t0 < duration) {
			failed += one_seed(seed++, NULL, nops, do_shrink);
			nseeds++;
		}
	}
	printf("raid-torture: %d seeds, %ld operations run, %d failed, %ld s (library log: %s)\n",
	       nseeds, total_ops, failed, (long)(time(NULL) - t0), logp);
	close(log_fd);
	for (int i = 0; i < g_ndevs; i++) { /* left as found: zeros, so the next run takes them */
		int fd = open(g_devs[i], O_WRONLY);

		if (fd < 0 || zero_range(fd, g_devused))
			fprintf(stderr, "raid-torture: %s: cannot zero it again: %s\n", g_devs[i],
				strerror(errno));
		if (fd >= 0)
			close(fd);
	}
	if (!failed && !verbose)
		unlink(logp);
	return failed ? 1 : 0;
}
