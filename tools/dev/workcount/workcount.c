/*
 * workcount.c - raid-workcount, the gate's exact tier: the engine's work per I/O for every
 * level and operation the presets use, counted rather than timed, so that a regression in the
 * suite's own code shows on any machine however loaded (docs/report.md, "The exact tier").
 *
 *   raid-workcount measure [--out FILE] [--counts-only] [--only CASE]
 *                    every case (or those whose "LEVEL OP" contains CASE), the figures as JSON;
 *                    --counts-only: the stats' figures alone, without valgrind (instant)
 *   raid-workcount gate --baseline FILE [--tolerance PCT] [--out FILE] [CURRENT.json]
 *                    measure (or read CURRENT) and judge every baseline figure
 *   raid-workcount one LEVEL OP IOS STATS|-         one case (what measure runs, under valgrind)
 *
 * A case is a short fixed job over null members (raid_backend=null: no bytes move, no
 * kernel), driven through the public API (raid/core/raid.h) with a fixed sequence of offsets.
 * Its figures: user-space instructions per I/O (valgrind's cachegrind, --cache-sim=no, run on
 * the case twice, IOS_SHORT and IOS_LONG I/Os: the difference over the difference in I/Os, so
 * that start-up and teardown drop out), member I/Os per I/O, member bytes written per byte
 * written (write amplification) and parity bytes computed per byte written, the last three
 * from the engine's stats (raid_stats, results/README.md): exact without valgrind. This
 * machine has no hardware counters (`perf stat -e instructions` says "not supported"), hence
 * cachegrind. Exit: 0 nothing regressed, 1 a figure regressed or is missing, 2 bad input.
 */
#include <errno.h>
#include <stdarg.h>
#include <json-c/json.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "raid/core/raid.h"

#define WC_FORMAT 1
/* instructions per I/O move by under 0.01% between unchanged runs (docs/report.md): 1% is a
 * hundred times that, and a fifth of the smallest slowdown the bench plants */
#define WC_TOLERANCE_PCT 1.0

struct wc_level {
	const char *name, *level;
	int members;
};
struct wc_op {
	const char *name;
	enum raid_op op;
	uint64_t bs;
	unsigned depth;
	int random;
	int ios_short, ios_long; /* a 1 MiB write under valgrind costs ~50 ms: fewer of them */
};

/* the presets' levels and operations (the preset files: quick's, raid1 from proxmox's) */
static const struct wc_level levels[] = {{"raid0", "0", 4},
					 {"raid1", "1", 2},
					 {"raid5", "5", 4},
					 {"raid6", "6", 4},
					 {"raid10", "10", 4}};
static const struct wc_op ops[] = {
    {"seq1m-write", RAID_OP_WRITE, 1 << 20, 8, 0, 16, 64},
    {"seq1m-read", RAID_OP_READ, 1 << 20, 8, 0, 16, 64},
    {"rnd4k-randwrite", RAID_OP_WRITE, 4096, 32, 1, 200, 1000},
    {"rnd4k-randread", RAID_OP_READ, 4096, 1, 1, 200, 1000},
};
#define NLEVELS (sizeof(levels) / sizeof(levels[0]))
#define NOPS (sizeof(ops) / sizeof(ops[0]))

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	fputs("raid-workcount: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	return 2;
}

static const struct wc_level *level_named(const char *n)
{
	for (size_t i = 0; i < NLEVELS; i++)
		if (!strcmp(levels[i].name, n))
			return &levels[i];
	return NULL;
}

static const struct wc_op *op_named(const char *n)
{
	for (size_t i = 0; i < NOPS; i++)
		if (!strcmp(ops[i].name, n))
			return &ops[i];
	return NULL;
}

static int set(struct raid_config *c, const char *k, const char *v, char *err, size_t len)
{
	return raid_config_set(c, k, v, err, len);
}

/* One case: IOS requests of the op, its depth in flight; the engine writes its stats to STATS. */
static int run_one(const struct wc_level *l, const struct wc_op *o, long ios, const char *stats)
{
	char err[RAID_ERRLEN] = "", members[256] = "";
	struct raid_config c;
	struct raid_array *a = NULL;
	struct raid_queue *q = NULL;
	int ret;

	for (int i = 0; i < l->members; i++)
		snprintf(members + strlen(members), sizeof(members) - strlen(members), "%snull%d",
			 i ? ":" : "", i);
	raid_config_init(&c);
	c.writes = o->op == RAID_OP_WRITE;
	ret = set(&c, "raid_level", l->level, err, sizeof(err));
	ret = ret ?: set(&c, "raid_members", members, err, sizeof(err));
	ret = ret ?: set(&c, "raid_backend", "null", err, sizeof(err));
	ret = ret ?: set(&c, "raid_member_size", "1g", err, sizeof(err));
	ret = ret ?: set(&c, "raid_chunk", "512k", err, sizeof(err));
	ret = ret ?: set(&c, "raid_parity", "cpu", err, sizeof(err));
	/* written by the last put, once the queue's counters are the array's */
	if (strcmp(stats, "-"))
		ret = ret ?: set(&c, "raid_stats", stats, err, sizeof(err));
	ret = ret ?: raid_config_validate(&c, err, sizeof(err));
	ret = ret ?: raid_array_get(&c, &a, err, sizeof(err));
	ret = ret ?: raid_queue_create(a, o->depth, false, &q, err, sizeof(err));
	if (ret) {
		if (a)
			raid_array_put(a);
		raid_config_free(&c);
		return fail("%s %s: %s", l->name, o->name, err);
	}
	uint64_t size = raid_array_size(a), span = size / o->bs, seq = 0, x = 88172645463325252ull;
	struct raid_request *reqs = calloc(o->depth, sizeof(*reqs)), *free_[64], *done[64];
	unsigned nfree = 0;
	void *buf;
	if (!reqs || posix_memalign(&buf, 4096, (size_t)o->bs * o->depth))
		abort();
	memset(buf, 0x5a, (size_t)o->bs * o->depth);
	for (unsigned i = 0; i < o->depth; i++) {
		reqs[i].buf = (char *)buf + (size_t)i * o->bs;
		free_[nfree++] = &reqs[i];
	}
	long issued = 0, reaped = 0;
	while (ret == 0 && reaped < ios) {
		while (nfree && issued < ios) {
			struct raid_request *r = free_[--nfree];
			x ^= x << 13, x ^= x >> 7, x ^= x << 17; /* xorshift64: the same each run */
			r->op = o->op;
			r->length = o->bs;
			r->offset = (o->random ? x % span : seq++ % span) * o->bs;
			ret = raid_submit(q, r);
			if (ret)
				break;
			issued++;
		}
		ret = ret ?: raid_commit(q);
		int n = ret ? ret : raid_reap(q, 1, 64, NULL, done);
		for (int i = 0; i < n; i++) {
			ret = ret ?: done[i]->error;
			free_[nfree++] = done[i];
		}
		if (n < 0)
			ret = n;
		reaped += n > 0 ? n : 0;
	}
	raid_queue_destroy(q);
	int pret = raid_array_put(a);
	ret = ret ?: pret;
	raid_config_free(&c);
	free(reqs);
	free(buf);
	if (ret)
		return fail("%s %s: %s", l->name, o->name, *err ? err : strerror(-ret));
	return 0;
}

/* cachegrind's total instructions of one run of a case: -errno when it could not run */
static double instructions(const char *self, const struct wc_level *l, const struct wc_op *o,
			   int ios, const char *dir)
{
	char out[512], n[32], outopt[560], logopt[560];
	snprintf(out, sizeof(out), "%s/cg.out", dir);
	snprintf(outopt, sizeof(outopt), "--cachegrind-out-file=%s", out);
	snprintf(logopt, sizeof(logopt), "--log-file=%s/valgrind.log", dir);
	snprintf(n, sizeof(n), "%d", ios);
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		execlp("valgrind", "valgrind", "--tool=cachegrind", "--cache-sim=no", "-q", outopt,
		       logopt, self, "one", l->name, o->name, n, "-", (char *)NULL);
		_exit(127);
	}
	int st;
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -ECHILD;
	FILE *f = fopen(out, "r");
	char line[4096];
	double ir = -ENODATA;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "summary:", 8))
			ir = strtod(line + 8, NULL);
	if (f)
		fclose(f);
	unlink(out);
	return ir;
}

static double jnum(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;
	if (!json_object_object_get_ex(o, a, &v) || !json_object_object_get_ex(v, b, &w))
		return NAN;
	return json_object_get_double(w);
}

static void add_fig(json_object *arr, const char *lname, const char *oname, const char *what,
		    double v)
{
	if (!isfinite(v))
		return;
	char id[160], t[32];
	snprintf(id, sizeof(id), "%s %s %s", lname, oname, what);
	snprintf(t, sizeof(t), "%.6g", v);
	json_object *f = json_object_new_object();
	json_object_object_add(f, "id", json_object_new_string(id));
	json_object_object_add(f, "value", json_object_new_double_s(v, t));
	json_object_array_add(arr, f);
}

/* Every case's figures; NULL (after one line on stderr) when a case failed. */
static json_object *measure(const char *self, int with_valgrind, const char *only)
{
	char dir[] = "/tmp/raid-workcount.XXXXXX", stats[64];
	if (!mkdtemp(dir)) {
		fail("mkdtemp: %s", strerror(errno));
		return NULL;
	}
	snprintf(stats, sizeof(stats), "%s/stats.json", dir);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object_object_add(o, "format", json_object_new_int(WC_FORMAT));
	const char *slow = getenv("RAID_TEST_SLOW_PARITY");
	if (slow)
		json_object_object_add(o, "planted_slow_parity_pct", json_object_new_string(slow));
	int bad = 0;
	for (size_t i = 0; !bad && i < NLEVELS; i++)
		for (size_t k = 0; !bad && k < NOPS; k++) {
			const struct wc_level *l = &levels[i];
			const struct wc_op *op = &ops[k];
			double ipio = NAN;
			char name[64];
			snprintf(name, sizeof(name), "%s %s", l->name, op->name);
			if (only && !strstr(name, only))
				continue;
			if (with_valgrind) {
				double a = instructions(self, l, op, op->ios_short, dir);
				double b = instructions(self, l, op, op->ios_long, dir);
				if (a < 0 || b < 0) {
					fail("%s %s: valgrind --tool=cachegrind failed (%s)",
					     l->name, op->name, strerror(-(int)(a < 0 ? a : b)));
					bad = 1;
					break;
				}
				ipio = (b - a) / (op->ios_long - op->ios_short);
			}
			/* the stats of a run of our own: the runs under valgrind write none, as
			 * json-c's hash seed is random per process (a few hundred instructions that
			 * differ from run to run) */
			if (run_one(l, op, op->ios_long, stats)) {
				bad = 1;
				break;
			}
			json_object *s = json_object_from_file(stats);
			if (!s) {
				fail("%s: not the engine's stats JSON", stats);
				bad = 1;
				break;
			}
			double vio = jnum(s, "volume", "reads") + jnum(s, "volume", "writes");
			double vwb = jnum(s, "volume", "write_bytes");
			double mio = jnum(s, "member_io", "reads") +
				     jnum(s, "member_io", "writes") +
				     jnum(s, "member_io", "merged");
			add_fig(arr, l->name, op->name, "instructions/io", ipio);
			add_fig(arr, l->name, op->name, "member_ios/io", mio / vio);
			if (op->op == RAID_OP_WRITE) {
				add_fig(arr, l->name, op->name, "write_amp",
					jnum(s, "member_io", "write_bytes") / vwb);
				add_fig(arr, l->name, op->name, "parity_bytes/byte",
					jnum(s, "parity", "bytes") / vwb);
			}
			json_object_put(s);
			unlink(stats);
		}
	if (!bad) {
		snprintf(stats, sizeof(stats), "%s/valgrind.log", dir);
		unlink(stats);
		rmdir(dir);
	}
	json_object_object_add(o, "figures", arr);
	if (bad) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

static int write_json(json_object *o, const char *path)
{
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							      JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *f = path ? fopen(path, "w") : stdout;
	if (!f)
		return fail("%s: %s", path, strerror(errno));
	fprintf(f, "%s\n", s);
	if ((path ? fclose(f) : fflush(f)) != 0)
		return fail("%s: write failed", path ? path : "stdout");
	return 0;
}

static json_object *figures_of(json_object *o, const char *path)
{
	json_object *fmt = NULL, *arr = NULL;
	if (!o) {
		fail("%s: not a JSON file", path);
		return NULL;
	}
	if (!json_object_object_get_ex(o, "format", &fmt) ||
	    json_object_get_int(fmt) != WC_FORMAT ||
	    !json_object_object_get_ex(o, "figures", &arr) ||
	    !json_object_is_type(arr, json_type_array) || !json_object_array_length(arr)) {
		fail("%s: not a raid-workcount file of format %d with figures (write one with "
		     "raid-workcount measure)",
		     path, WC_FORMAT);
		return NULL;
	}
	return arr;
}

static json_object *fig_find(json_object *arr, const char *id)
{
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *f = json_object_array_get_idx(arr, i), *v = NULL;
		if (json_object_object_get_ex(f, "id", &v) &&
		    !strcmp(json_object_get_string(v), id))
			return f;
	}
	return NULL;
}

static double fig_value(json_object *f)
{
	json_object *v = NULL;
	if (!f || !json_object_object_get_ex(f, "value", &v))
		return NAN;
	return json_object_get_double(v);
}

/* Every baseline figure against the current one: passed, regressed, improved, missing;
 * figures are all "lower is better" (work done per I/O). 1 when one regressed or is
 * missing. */
static int judge(json_object *barr, json_object *carr, double tol, const char *bpath)
{
	size_t n = json_object_array_length(barr), bad = 0, better = 0;
	printf("workcount gate: against %s: a figure regresses when it grows by more than %.2f%% "
	       "(exact counts: unchanged code moves them by under 0.01%%)\n",
	       bpath, tol);
	printf("%-48s %14s %14s %9s  %s\n", "figure", "baseline", "this build", "change",
	       "verdict");
	for (size_t i = 0; i < n; i++) {
		json_object *b = json_object_array_get_idx(barr, i), *idv = NULL;
		if (!json_object_object_get_ex(b, "id", &idv))
			return fail("%s: figure %zu has no id", bpath, i);
		const char *id = json_object_get_string(idv);
		double bv = fig_value(b), cv = fig_value(fig_find(carr, id));
		if (!(bv > 0) && bv != 0)
			return fail("%s: figure %s: value is not a number >= 0", bpath, id);
		const char *verdict;
		char chg[32] = "";
		if (isnan(cv)) {
			verdict = "MISSING";
			bad++;
		} else {
			double d = bv ? 100 * (cv - bv) / bv : (cv ? INFINITY : 0);
			snprintf(chg, sizeof(chg), "%+.2f%%", d);
			verdict = d > tol ? "REGRESSED" : d < -tol ? "improved" : "passed";
			bad += d > tol;
			better += d < -tol;
		}
		printf("%-48s %14.6g %14.6g %9s  %s\n", id, bv, cv, chg, verdict);
	}
	printf("workcount gate: %zu figures, %zu regressed or missing, %zu improved: %s\n", n, bad,
	       better, bad ? "FAIL" : "PASS");
	return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "one")) {
		if (argc != 6)
			return fail("one LEVEL OP IOS STATS");
		const struct wc_level *l = level_named(argv[2]);
		const struct wc_op *o = op_named(argv[3]);
		long ios = atol(argv[4]);
		if (!l || !o || ios < 1)
			return fail("one: '%s %s %s': no such case", argv[2], argv[3], argv[4]);
		return run_one(l, o, ios, argv[5]);
	}
	const char *cmd = argc >= 2 ? argv[1] : "", *out = NULL, *base = NULL, *cur = NULL,
		   *only = NULL;
	double tol = WC_TOLERANCE_PCT;
	int vg = 1;
	if (strcmp(cmd, "measure") && strcmp(cmd, "gate"))
		return fail(
		    "usage: raid-workcount measure [--out FILE] [--counts-only] [--only CASE] | "
		    "gate --baseline FILE [--tolerance PCT] [CURRENT.json]");
	for (int i = 2; i < argc; i++) {
		int more = i + 1 < argc;
		if (!strcmp(argv[i], "--out") && more)
			out = argv[++i];
		else if (!strcmp(argv[i], "--baseline") && more)
			base = argv[++i];
		else if (!strcmp(argv[i], "--only") && more)
			only = argv[++i];
		else if (!strcmp(argv[i], "--counts-only"))
			vg = 0;
		else if (!strcmp(argv[i], "--tolerance") && more) {
			char *end;
			tol = strtod(argv[++i], &end);
			if (*end || end == argv[i] || !(tol >= 0 && tol < 100))
				return fail("--tolerance '%s': a percentage from 0 to 99", argv[i]);
		} else if (argv[i][0] != '-' && !cur && !strcmp(cmd, "gate"))
			cur = argv[i];
		else
			return fail("%s: unknown option or argument '%s'", cmd, argv[i]);
	}
	char self[4096];
	ssize_t sl = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (sl < 0)
		return fail("/proc/self/exe: %s", strerror(errno));
	self[sl] = '\0';
	if (!strcmp(cmd, "measure")) {
		json_object *o = measure(self, vg, only);
		if (!o)
			return 2;
		int rc = write_json(o, out);
		json_object_put(o);
		return rc;
	}
	if (!base)
		return fail("gate needs --baseline FILE");
	json_object *b = json_object_from_file(base), *c = NULL;
	json_object *barr = figures_of(b, base), *carr = NULL;
	if (barr)
		c = cur ? json_object_from_file(cur) : measure(self, vg, only);
	if (c)
		carr = figures_of(c, cur ? cur : "this build's measurement");
	int rc = carr ? judge(barr, carr, tol, base) : 2;
	if (carr && out)
		rc = write_json(c, out) ?: rc;
	json_object_put(b);
	json_object_put(c);
	return rc;
}
