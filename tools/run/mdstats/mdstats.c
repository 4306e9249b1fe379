/* tools/run/mdstats/mdstats.c: raid-mdstats, the collector of md's figures for run.sh's md
 * target (run/md.sh): the block layer's counters of an array and its members, md's watch log
 * of a rebuild and fio's per-second logs, written as the same stats JSON as the engine's
 * (results/README.md), the rates by the engine's own formula (raid_rate_of). The shell only
 * starts, watches and collects; every figure of an md test is computed here.
 *
 *   raid-mdstats snap DEV          the counters of DEV and of its members, one line
 *   raid-mdstats write DEV OUT SNAP STATE LAYOUT [rebuild WATCH FIO_T0 REB_T0 WAIT0 SPARE
 *                                   FIO_LOG BS]
 *                                  the stats file of a test: SNAP is snap's line before fio;
 *                                  "rebuild" adds md's rebuild from the watch log (lines
 *                                  "T done total speed", "T idle") and fio's per-second
 *                                  samples (FIO_LOG_iops.log, FIO_LOG_clat.log)
 *   raid-mdstats rate BYTES T0 T1  MB/s of BYTES moved from T0 to T1 (seconds), "%.1f"
 *   raid-mdstats resync T0 T1 DEV  md's resync time in seconds from its kernel log on
 *                                  stdin (the last "resync of RAID array DEV" .. "DEV:
 *                                  resync done" pair), else T1 - T0; a second line says
 *                                  which, a third is T1 - T0 (the polled time)
 *   raid-mdstats watch DEV         md's watch log of a rebuild while it runs: "T done total
 *                                  speed" every 0.2 s (sync_completed, sync_speed), then
 *                                  "T idle" once nothing syncs and no member is missing
 *   raid-mdstats settle DEV        waits (20 ms polls) until md says its resync is over
 *                                  (resync_start none, sync_action idle); prints that time
 *
 * watch and settle are programs rather than shell loops: under the appliance's emulation a
 * program started costs 0.1-0.3 s, so one runs for the whole wait.
 *
 * The counters are /sys/block/X/stat's (Documentation/block/stat.rst: reads completed,
 * sectors read, writes completed, sectors written are fields 1, 3, 5, 7; sectors of 512
 * bytes). md's knobs are the array's /sys/block/mdN/md/ files (Documentation/admin-guide/md.rst).
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "raid/core/raid.h"

static const char *prog = "raid-mdstats";

/* reads, writes, read bytes, write bytes */
struct io4 {
	uint64_t v[4];
};

/* the volume's counters and its members' summed */
struct snap {
	struct io4 vol, mem;
};

/* the first word of a sysfs file into BUF ("" when absent or empty) */
static const char *sysfs_word(const char *path, char *buf, size_t len)
{
	char line[256], word[256] = "";
	FILE *f = fopen(path, "r");

	buf[0] = '\0';
	if (!f)
		return buf;
	if (fgets(line, sizeof(line), f))
		sscanf(line, "%255s", word);
	snprintf(buf, len, "%s", word);
	fclose(f);
	return buf;
}

/* "/dev/md120" or a link to one -> "md120" */
static const char *dev_name(const char *dev, char *buf, size_t len)
{
	char real[PATH_MAX];
	const char *p = realpath(dev, real) ? real : dev;
	const char *slash = strrchr(p, '/');

	/* a name longer than a file name is no block device's: the sysfs reads find nothing */
	if (snprintf(buf, len, "%s", slash ? slash + 1 : p) >= (int)len)
		buf[0] = '\0';
	return buf;
}

static void add_stat(struct io4 *io, const char *name)
{
	char path[PATH_MAX];
	uint64_t s[7];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/class/block/%s/stat", name);
	f = fopen(path, "r");
	if (!f)
		return;
	if (fscanf(f,
		   "%" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64 " %" SCNu64
		   " %" SCNu64,
		   &s[0], &s[1], &s[2], &s[3], &s[4], &s[5], &s[6]) == 7) {
		io->v[0] += s[0];
		io->v[1] += s[4];
		io->v[2] += s[2] * 512;
		io->v[3] += s[6] * 512;
	}
	fclose(f);
}

static struct snap take_snap(const char *dev)
{
	struct snap sn = {0};
	char name[NAME_MAX + 1], path[PATH_MAX];
	struct dirent *e;
	DIR *d;

	dev_name(dev, name, sizeof(name));
	add_stat(&sn.vol, name);
	snprintf(path, sizeof(path), "/sys/block/%s/slaves", name);
	d = opendir(path);
	while (d && (e = readdir(d)))
		if (e->d_name[0] != '.')
			add_stat(&sn.mem, e->d_name);
	if (d)
		closedir(d);
	return sn;
}

static int parse_snap(const char *s, struct snap *sn)
{
	uint64_t *v[8] = {&sn->vol.v[0], &sn->vol.v[1], &sn->vol.v[2], &sn->vol.v[3],
			  &sn->mem.v[0], &sn->mem.v[1], &sn->mem.v[2], &sn->mem.v[3]};
	char *end;

	for (int i = 0; i < 8; i++) {
		errno = 0;
		*v[i] = strtoull(s, &end, 10);
		if (end == s || errno)
			return -EINVAL;
		s = end;
	}
	return 0;
}

static void put(json_object *o, const char *k, json_object *v)
{
	json_object_object_add(o, k, v);
}

/* a double rounded to DIGITS decimals, as run.sh's figures always were */
static json_object *num(double v, int digits)
{
	double m = pow(10, digits);

	return json_object_new_double(round(v * m) / m);
}

static json_object *io_obj(const struct io4 *now, const struct io4 *then, const char *source)
{
	static const char *const keys[4] = {"reads", "writes", "read_bytes", "write_bytes"};
	json_object *o = json_object_new_object();

	for (int i = 0; i < 4; i++)
		put(o, keys[i], json_object_new_int64((int64_t)(now->v[i] - then->v[i])));
	if (source)
		put(o, "source", json_object_new_string(source));
	return o;
}

/* md's settings as the array has them (what md ran with): md.KEY, "/" as "_" */
static void md_settings(json_object *md, const char *sys)
{
	static const char *const keys[] = {"stripe_cache_size",	 "group_thread_cnt",
					   "sync_speed_min",	 "sync_speed_max",
					   "consistency_policy", "bitmap/location"};
	char path[PATH_MAX + 32], w[256], k[64];

	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", sys, keys[i]);
		if (!*sysfs_word(path, w, sizeof(w)))
			continue;
		snprintf(k, sizeof(k), "%s", keys[i]);
		for (char *p = k; *p; p++)
			if (*p == '/')
				*p = '_';
		put(md, k, json_object_new_string(w));
	}
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* fio's per-second log (msec, value, ...) binned into whole seconds from the start, as the
 * engine's samples are: second k holds (k-1 s, k s] */
struct bins {
	double *sum;
	int *n;
	int max;
};

static int bin_log(const char *path, struct bins *b)
{
	FILE *f = fopen(path, "r");
	char line[512];

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		char *p;
		double ms = strtod(line, &p), v;
		int k;

		if (p == line || *p != ',')
			continue;
		v = strtod(p + 1, NULL);
		k = (int)((ms + 999) / 1000);
		if (k < 0 || k > 1000000)
			continue;
		if (k > b->max) {
			double *s = realloc(b->sum, (k + 1) * sizeof(*s));
			int *n = s ? realloc(b->n, (k + 1) * sizeof(*n)) : NULL;

			if (!n) {
				free(s ? s : b->sum);
				fclose(f);
				b->sum = NULL;
				return -ENOMEM;
			}
			memset(s + b->max + 1, 0, (k - b->max) * sizeof(*s));
			memset(n + b->max + 1, 0, (k - b->max) * sizeof(*n));
			b->sum = s, b->n = n, b->max = k;
		}
		b->sum[k] += v;
		b->n[k]++;
	}
	fclose(f);
	return 0;
}

/* rebuild.samples from fio's averaged logs (no p99: they have none; no block size either:
 * the test's own), each second's phase against md's rebuild */
static json_object *samples(const char *prefix, double bs, double start_s, double end_s)
{
	struct bins io = {NULL, NULL, 0}, lat = {NULL, NULL, 0};
	json_object *arr = json_object_new_array();
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s_iops.log", prefix);
	if (bin_log(path, &io) < 0 || !io.max)
		goto out;
	snprintf(path, sizeof(path), "%s_clat.log", prefix);
	bin_log(path, &lat);
	for (int k = 1; k <= io.max; k++) {
		json_object *e = json_object_new_object();
		double l = k <= lat.max && lat.n[k] ? lat.sum[k] / lat.n[k] / 1e3 : 0;

		put(e, "t", json_object_new_int(k));
		put(e, "phase",
		    json_object_new_string(k < start_s	? "before"
					   : k <= end_s ? "during"
							: "after"));
		put(e, "iops", num(io.sum[k], 1));
		put(e, "mbps", num(io.sum[k] * bs / 1e6, 3));
		put(e, "lat_mean_us", num(l, 1));
		json_object_array_add(arr, e);
	}
out:
	free(io.sum), free(io.n), free(lat.sum), free(lat.n);
	return arr;
}

/* md's rebuild from the watch log: its end (the last "idle" line; none: the array went away
 * first, and done says so), its size (md's total in sectors, else twice component_size) */
static json_object *rebuild(const char *sys, char **a)
{
	const char *watch = a[0], *spare = a[4], *fio_log = a[5];
	double t0 = atof(a[1]), first = *a[2] ? atof(a[2]) : t0, wait0 = atof(a[3]);
	double bs = atof(a[6]), t_end = 0, t, sectors = 0;
	char line[256], w[256], path[PATH_MAX + 32];
	bool done = false;
	FILE *f = fopen(watch, "r");
	json_object *x = json_object_new_object(), *members = json_object_new_array();
	struct raid_rate rate;
	uint64_t bytes;

	while (f && fgets(line, sizeof(line), f)) {
		double d, total;
		char word[16], speed[64], extra[2];

		if (sscanf(line, "%lf %15s", &t, word) == 2 && !strcmp(word, "idle"))
			t_end = t, done = true;
		else if (sscanf(line, "%lf %lf %lf %63s %1s", &t, &d, &total, speed, extra) == 4)
			sectors = total;
	}
	if (f)
		fclose(f);
	if (!done)
		t_end = now_s();
	if (sectors <= 0) {
		snprintf(path, sizeof(path), "%s/component_size", sys);
		sectors = atof(sysfs_word(path, w, sizeof(w))) * 2;
	}
	bytes = (uint64_t)sectors * 512;
	rate = raid_rate_of(bytes, t_end - first);
	put(x, "start_s", num(first - t0, 3));
	put(x, "end_s", num(t_end - t0, 3));
	put(x, "bytes", json_object_new_int64((int64_t)bytes));
	put(x, "mbps", num(rate.mbps, 2));
	put(x, "min_per_tb", num(rate.min_per_tb, 2));
	put(x, "wait_s", num(t_end > wait0 ? t_end - wait0 : 0, 3));
	put(x, "member", json_object_new_int(0));
	json_object_array_add(members, json_object_new_int(0));
	put(x, "members", members);
	put(x, "spare", json_object_new_string(spare));
	put(x, "done", json_object_new_boolean(done));
	put(x, "source",
	    json_object_new_string("md sync_completed and /proc/mdstat, polled every 0.2 s"));
	put(x, "samples",
	    samples(fio_log, bs, round((first - t0) * 1e3) / 1e3, round((t_end - t0) * 1e3) / 1e3));
	return x;
}

static int cmd_write(int argc, char **argv)
{
	const char *dev = argv[2], *out = argv[3], *state = argv[5], *layout = argv[6];
	char name[NAME_MAX + 1], sys[NAME_MAX + 32], path[NAME_MAX + 64], w[256];
	struct snap then, now;
	json_object *o = json_object_new_object(), *md = json_object_new_object();
	int ret;

	if (parse_snap(argv[4], &then)) {
		fprintf(stderr, "%s: the snapshot '%s' is not 8 counters (raid-mdstats snap)\n",
			prog, argv[4]);
		return 2;
	}
	dev_name(dev, name, sizeof(name));
	snprintf(sys, sizeof(sys), "/sys/block/%s/md", name);
	/* a rebuild's end is waited for by the caller: the counters are read after it */
	json_object *reb = argc == 15 ? rebuild(sys, argv + 8) : NULL;
	now = take_snap(dev);
	/* md's own answer: its level, member count and chunk as the array has them */
	put(o, "target", json_object_new_string("md"));
	snprintf(path, sizeof(path), "%s/level", sys);
	sysfs_word(path, w, sizeof(w));
	put(o, "level", json_object_new_int(atoi(w + (strncmp(w, "raid", 4) ? 0 : 4))));
	snprintf(path, sizeof(path), "%s/raid_disks", sys);
	put(o, "members", json_object_new_int(atoi(sysfs_word(path, w, sizeof(w)))));
	snprintf(path, sizeof(path), "%s/chunk_size", sys);
	put(o, "chunk", json_object_new_int64(atoll(sysfs_word(path, w, sizeof(w)))));
	put(o, "layout", json_object_new_string(layout));
	put(o, "backend", json_object_new_string("md"));
	put(o, "state", json_object_new_string(state));
	put(o, "device", json_object_new_string(dev));
	put(o, "volume", io_obj(&now.vol, &then.vol, NULL));
	put(o, "member_io",
	    io_obj(&now.mem, &then.mem, "/sys/block/*/stat of the array and its members"));
	md_settings(md, sys);
	snprintf(path, sizeof(path), "%s/degraded", sys);
	put(md, "degraded", *sysfs_word(path, w, sizeof(w)) ? json_object_new_int(atoi(w)) : NULL);
	put(o, "md", md);
	if (reb)
		put(o, "rebuild", reb);
	ret = json_object_to_file_ext(out, o,
				      JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	json_object_put(o);
	if (ret) {
		fprintf(stderr, "%s: %s: cannot write it\n", prog, out);
		return 1;
	}
	return 0;
}

/* md's resync by its own clock: dmesg's "[  12.345678] md: resync of RAID array md120" and
 * "[  13.0] md: md120: resync done." (the last pair) */
static int cmd_resync(double t0, double t1, const char *dev)
{
	char line[1024], name[NAME_MAX + 1], start_pat[NAME_MAX + 32], done_pat[NAME_MAX + 32];
	double s = -1, e = -1;

	dev_name(dev, name, sizeof(name));
	snprintf(start_pat, sizeof(start_pat), "resync of RAID array %s", name);
	snprintf(done_pat, sizeof(done_pat), " %s: resync done", name);
	while (fgets(line, sizeof(line), stdin)) {
		size_t n = strcspn(line, "\n");
		double t = line[0] == '[' ? strtod(line + 1, NULL) : 0;
		size_t pl = strlen(start_pat);

		line[n] = '\0';
		if (n >= pl && !strcmp(line + n - pl, start_pat))
			s = t, e = -1;
		else if (strstr(line, done_pat) && s >= 0)
			e = t;
	}
	if (s >= 0 && e >= 0)
		printf("%.3f\nmd's kernel log (resync of RAID array .. resync done)\n", e - s);
	else
		printf(
		    "%.3f\nresync_start and sync_action polled every 20 ms from mdadm --assemble\n",
		    t1 - t0);
	printf("%.3f\n", t1 - t0);
	return 0;
}

/* the first line of /sys/block/NAME/md/KEY without its newline ("" when absent) */
static const char *md_line(const char *name, const char *key, char *buf, size_t len)
{
	char path[NAME_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "/sys/block/%s/md/%s", name, key);
	buf[0] = '\0';
	f = fopen(path, "r");
	if (f && !fgets(buf, (int)len, f))
		buf[0] = '\0';
	if (f)
		fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return buf;
}

static void sleep_s(double s)
{
	struct timespec ts = {(time_t)s, (long)((s - (time_t)s) * 1e9)};

	nanosleep(&ts, NULL);
}

/* md's recovery as it goes; ends when the array is gone or idle with no member missing */
static int cmd_watch(const char *dev)
{
	char name[NAME_MAX + 1], dir[NAME_MAX + 32], d[128], sp[64], dg[64];

	dev_name(dev, name, sizeof(name));
	snprintf(dir, sizeof(dir), "/sys/block/%s/md", name);
	setvbuf(stdout, NULL, _IOLBF, 0);
	while (access(dir, F_OK) == 0) {
		char *slash;

		md_line(name, "sync_completed", d, sizeof(d));
		md_line(name, "sync_speed", sp, sizeof(sp));
		double t = now_s();

		slash = strstr(d, " / ");
		if (!slash) { /* "none" (or nothing): done once no member is missing */
			if (!strcmp(md_line(name, "degraded", dg, sizeof(dg)), "0")) {
				printf("%.6f idle\n", t);
				break;
			}
		} else {
			*slash = '\0';
			printf("%.6f %s %s %s\n", t, d, slash + 3, sp);
		}
		sleep_s(0.2);
	}
	return 0;
}

/* md starts a resync from its own thread: until sync_action leaves idle or resync_start says
 * none it has not looked yet (a few ms) */
static int cmd_settle(const char *dev)
{
	char name[NAME_MAX + 1], rs[64], act[64];

	dev_name(dev, name, sizeof(name));
	for (;;) {
		if (!*md_line(name, "resync_start", rs, sizeof(rs)))
			strcpy(rs, "none");
		if (!*md_line(name, "sync_action", act, sizeof(act)))
			strcpy(act, "idle");
		if (!strcmp(rs, "none") && !strcmp(act, "idle"))
			break;
		sleep_s(0.02);
	}
	printf("%.6f\n", now_s());
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "watch"))
		return cmd_watch(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "settle"))
		return cmd_settle(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "snap")) {
		struct snap s = take_snap(argv[2]);

		printf("%" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64
		       " %" PRIu64 " %" PRIu64 "\n",
		       s.vol.v[0], s.vol.v[1], s.vol.v[2], s.vol.v[3], s.mem.v[0], s.mem.v[1],
		       s.mem.v[2], s.mem.v[3]);
		return 0;
	}
	if ((argc == 7 || (argc == 15 && !strcmp(argv[7], "rebuild"))) && !strcmp(argv[1], "write"))
		return cmd_write(argc, argv);
	if (argc == 5 && !strcmp(argv[1], "rate")) {
		struct raid_rate r =
		    raid_rate_of(strtoull(argv[2], NULL, 10), atof(argv[4]) - atof(argv[3]));
		printf("%.1f\n", r.mbps);
		return 0;
	}
	if (argc == 5 && !strcmp(argv[1], "resync"))
		return cmd_resync(atof(argv[2]), atof(argv[3]), argv[4]);
	fprintf(stderr,
		"usage: %s snap DEV | write DEV OUT SNAP STATE LAYOUT [rebuild WATCH FIO_T0 REB_T0 "
		"WAIT0 SPARE FIO_LOG BS] | rate BYTES T0 T1 | resync T0 T1 DEV <dmesg | watch DEV | "
		"settle DEV\n",
		prog);
	return 2;
}
