/* tools/run/hostcpu/hostcpu.c: raid-hostcpu, the whole-machine CPU cost of one fio test, the same
 * for every target. fio's usr/sys figures count only its job threads: the engine's own threads
 * (parity workers, rebuild) and md's kernel threads (mdX_raid5, its workqueues, softirqs of
 * the block layer) are invisible to them. So run.sh samples /proc/stat (and fio's whole
 * process) while each test runs and keeps what the machine spent over fio's measured
 * interval.
 *
 *   raid-hostcpu sample [--pid PID] OUT   append a sample every 100 ms until PID is gone
 *                                          (or SIGTERM/SIGINT)
 *   raid-hostcpu interval SAMPLES FIO_JSON [--tail S]
 *                                          print meta.json's "host_cpu" object for fio's
 *                                          measured interval: it ends S seconds (default 0)
 *                                          before fio wrote its JSON and lasts as long as
 *                                          its longest job ran
 *
 * A sample line is "T user nice system idle iowait irq softirq steal fio_utime fio_stime"
 * (T: CLOCK_REALTIME seconds; the rest in clock ticks; fio's: the process PID and all its
 * descendants, -1 without --pid); the first line is "# cpus N hz H". */
#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

static const char *prog = "raid-hostcpu";

enum { F_USER, F_NICE, F_SYSTEM, F_IDLE, F_IOWAIT, F_IRQ, F_SOFTIRQ, F_STEAL, F_PU, F_PS, NF };

struct sample {
	double t;
	double v[NF];
};

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	stop = 1;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The aggregate "cpu" line of /proc/stat: the first line. */
static int read_stat(double *v)
{
	FILE *f = fopen("/proc/stat", "r");
	unsigned long long x[8] = {0};
	int n;
	if (!f)
		return -errno;
	n = fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &x[0], &x[1], &x[2], &x[3],
		   &x[4], &x[5], &x[6], &x[7]);
	fclose(f);
	if (n < 7)
		return -EINVAL;
	for (int i = 0; i < 8; i++)
		v[i] = (double)x[i];
	return 0;
}

/* One process of /proc: its pid, parent, own user and system ticks, and the ticks of the
 * children it has reaped (cutime + cstime). */
struct proc {
	int pid, ppid;
	double u, s, reaped;
};

/* One /proc/PID/stat (the command name in field 2 may hold spaces, so parse after its ')'). */
static int read_proc(const char *pid, struct proc *p)
{
	char path[320], buf[1024], *q;
	unsigned long long u = 0, s = 0, cu = 0, cs = 0;
	FILE *f;
	size_t n;
	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (!(f = fopen(path, "r")))
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	if (!(q = strrchr(buf, ')')) ||
	    sscanf(q + 2, "%*c %d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu %llu %llu",
		   &p->ppid, &u, &s, &cu, &cs) != 5)
		return -EINVAL;
	p->pid = atoi(pid);
	p->u = (double)(u + cu);
	p->s = (double)(s + cs);
	p->reaped = (double)(cu + cs);
	return 0;
}

/* The processes of ROOT's tree, in /proc's (pid) order: *n of them, malloc'd. */
static int scan_tree(int root, struct proc **out, size_t *n)
{
	struct proc *ps = NULL, p;
	size_t cap = 0, m = 0;
	DIR *d = opendir("/proc");
	struct dirent *e;
	int found = 0;
	if (!d)
		return -errno;
	while ((e = readdir(d))) {
		if (e->d_name[0] < '0' || e->d_name[0] > '9' || read_proc(e->d_name, &p))
			continue;
		if (m == cap && !(ps = realloc(ps, (cap = 2 * cap + 256) * sizeof(*ps))))
			abort();
		ps[m++] = p;
	}
	closedir(d);
	/* mark the tree: a pid is in it when its parent is (repeat until nothing changes) */
	char *in = calloc(m ? m : 1, 1);
	if (!in)
		abort();
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < m; i++) {
			if (in[i])
				continue;
			int hit = ps[i].pid == root;
			for (size_t k = 0; !hit && k < m; k++)
				hit = in[k] && ps[k].pid == ps[i].ppid;
			if (hit)
				in[i] = 1, changed = 1, found |= ps[i].pid == root;
		}
	}
	*n = 0;
	for (size_t i = 0; i < m; i++)
		if (in[i])
			ps[(*n)++] = ps[i];
	free(in);
	*out = ps;
	return found ? 0 : -ESRCH;
}

/* Two scans hold the same tree when they list the same pids and no process reaped a child
 * between them. */
static int same_tree(const struct proc *a, size_t na, const struct proc *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].pid != b[i].pid || a[i].reaped != b[i].reaped)
			return 0;
	return 1;
}

/* CPU ticks of fio and every process under it (fio forks its jobs unless thread=1). A job
 * that ended and was reaped is in its parent's cutime, but a scan of /proc is not one
 * instant: a parent read before it reaps a child, the child looked for after, loses the
 * child's whole time (a forked fio job's 2 s once made fio_user_s negative). So scan until
 * two scans in a row agree (same pids, no reap between them) and sum the second;
 * -EAGAIN when the tree never held still. */
static int read_tree(int root, double *ut, double *st)
{
	struct proc *a = NULL, *b = NULL;
	size_t na = 0, nb = 0;
	int rc = scan_tree(root, &a, &na);
	for (int tries = 0; !rc && tries < 8; tries++) {
		rc = scan_tree(root, &b, &nb);
		if (!rc && same_tree(a, na, b, nb)) {
			*ut = *st = 0;
			for (size_t i = 0; i < nb; i++)
				*ut += b[i].u, *st += b[i].s;
			free(a);
			free(b);
			return 0;
		}
		free(a);
		a = b, na = nb, b = NULL;
	}
	free(a);
	return rc ? rc : -EAGAIN;
}

static int cmd_sample(int pid, const char *out)
{
	FILE *f = fopen(out, "a");
	struct sigaction sa = {.sa_handler = on_signal};
	if (!f) {
		fprintf(stderr, "%s: %s: %s\n", prog, out, strerror(errno));
		return 1;
	}
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	setvbuf(f, NULL, _IOLBF, 0);
	fprintf(f, "# cpus %ld hz %ld\n", sysconf(_SC_NPROCESSORS_ONLN), sysconf(_SC_CLK_TCK));
	while (!stop) {
		double v[NF], t = now();
		v[F_PU] = v[F_PS] = -1;
		if (read_stat(v)) {
			fprintf(stderr, "%s: /proc/stat: cannot read the cpu line\n", prog);
			fclose(f);
			return 1;
		}
		/* the process gone (reaped) ends the sampling; a zombie still has its times. A
		 * tree that never held still over a scan gives no sample this time; the next scan
		 * comes soon, so that a short test on a loaded machine (threads starting and ending
		 * all through it) still gets the two samples its interval needs. */
		int rc = pid > 0 ? read_tree(pid, &v[F_PU], &v[F_PS]) : 0;
		if (rc == -EAGAIN) {
			usleep(5000);
			continue;
		}
		if (rc)
			break;
		fprintf(f, "%.6f", t);
		for (int i = 0; i < NF; i++)
			fprintf(f, " %.0f", v[i]);
		fputc('\n', f);
		usleep(100000);
	}
	fclose(f);
	return 0;
}

static int load_samples(const char *path, struct sample **out, size_t *n, long *cpus, long *hz)
{
	FILE *f = fopen(path, "r");
	char line[512];
	size_t cap = 0;
	*out = NULL;
	*n = 0;
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		struct sample s;
		if (sscanf(line, "# cpus %ld hz %ld", cpus, hz) == 2)
			continue;
		if (sscanf(line, "%lf %lf %lf %lf %lf %lf %lf %lf %lf %lf %lf", &s.t, &s.v[0],
			   &s.v[1], &s.v[2], &s.v[3], &s.v[4], &s.v[5], &s.v[6], &s.v[7], &s.v[8],
			   &s.v[9]) != 11)
			continue;
		if (*n == cap) {
			cap = cap ? 2 * cap : 256;
			*out = realloc(*out, cap * sizeof(**out));
			if (!*out)
				abort();
		}
		(*out)[(*n)++] = s;
	}
	fclose(f);
	return 0;
}

/* fio's measured interval: [end - runtime, end], end = when fio wrote its JSON, runtime =
 * the longest job's (ms, any direction). */
static int fio_interval(const char *path, double tail, double *start, double *end)
{
	json_object *root = json_object_from_file(path), *jobs, *ts;
	double rt = 0;
	if (!root)
		return -EINVAL;
	if (!json_object_object_get_ex(root, "timestamp_ms", &ts) ||
	    !json_object_object_get_ex(root, "jobs", &jobs) ||
	    !json_object_is_type(jobs, json_type_array)) {
		json_object_put(root);
		return -EINVAL;
	}
	for (size_t i = 0; i < json_object_array_length(jobs); i++) {
		json_object *j = json_object_array_get_idx(jobs, i), *d, *r;
		static const char *const dirs[] = {"read", "write", "trim"};
		for (int k = 0; k < 3; k++)
			if (json_object_object_get_ex(j, dirs[k], &d) &&
			    json_object_object_get_ex(d, "runtime", &r))
				rt = fmax(rt, json_object_get_double(r) / 1e3);
	}
	*end = json_object_get_double(ts) / 1e3 - tail;
	*start = *end - rt;
	json_object_put(root);
	return rt > 0 ? 0 : -ENODATA;
}

static int cmd_interval(const char *spath, const char *fpath, double tail)
{
	struct sample *s;
	size_t n, a, b;
	long cpus = 0, hz = 0;
	double start, end;
	if (load_samples(spath, &s, &n, &cpus, &hz) || n < 2 || hz <= 0) {
		fprintf(stderr, "%s: %s: fewer than two CPU samples\n", prog, spath);
		free(s);
		return 1;
	}
	if (fio_interval(fpath, tail, &start, &end)) {
		fprintf(stderr, "%s: %s: no fio timestamp_ms or job runtime in it\n", prog, fpath);
		free(s);
		return 1;
	}
	/* the samples inside the interval; one too short for two of them takes the samples
	 * around it instead */
	for (a = 0; a + 1 < n && s[a].t < start; a++)
		;
	for (b = n - 1; b > 0 && s[b].t > end; b--)
		;
	if (b <= a) {
		for (a = n - 1; a > 0 && s[a].t > start; a--)
			;
		for (b = 0; b + 1 < n && s[b].t < end; b++)
			;
		if (b <= a)
			b = a + 1 < n ? a + 1 : a;
		if (b <= a) {
			fprintf(stderr, "%s: %s: no samples around fio's interval\n", prog, spath);
			free(s);
			return 1;
		}
	}
	double d[NF];
	for (int i = 0; i < NF; i++)
		d[i] = (s[b].v[i] - s[a].v[i]) / hz;
	json_object *o = json_object_new_object();
	char buf[32];
#define ADD(key, v)                                                                                \
	(snprintf(buf, sizeof(buf), "%.3f", (v)),                                                  \
	 json_object_object_add(o, key, json_object_new_double_s((v), buf)))
	ADD("user_s", d[F_USER] + d[F_NICE]);
	ADD("system_s", d[F_SYSTEM] + d[F_IRQ]);
	ADD("softirq_s", d[F_SOFTIRQ]);
	ADD("iowait_s", d[F_IOWAIT]);
	ADD("interval_s", s[b].t - s[a].t);
	json_object_object_add(o, "cpus", json_object_new_int64(cpus));
	if (s[a].v[F_PU] >= 0 && s[b].v[F_PU] >= 0) {
		ADD("fio_user_s", d[F_PU]);
		ADD("fio_system_s", d[F_PS]);
	}
	ADD("fio_interval_s", end - start);
#undef ADD
	puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	free(s);
	return 0;
}

static int usage(void)
{
	fprintf(stderr,
		"usage: %s sample [--pid PID] OUT | interval SAMPLES FIO_JSON [--tail SECONDS]\n",
		prog);
	return 2;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "sample")) {
		int pid = 0;
		if (argc == 5 && !strcmp(argv[2], "--pid"))
			pid = atoi(argv[3]);
		else if (argc != 3)
			return usage();
		if (argc == 5 && pid <= 0) {
			fprintf(stderr, "%s: --pid: '%s' is not a process id\n", prog, argv[3]);
			return 2;
		}
		return cmd_sample(pid, argv[argc - 1]);
	}
	if ((argc == 4 || argc == 6) && !strcmp(argv[1], "interval")) {
		double tail = 0;
		char *end = NULL;
		if (argc == 6) {
			if (strcmp(argv[4], "--tail"))
				return usage();
			tail = strtod(argv[5], &end);
			if (end == argv[5] || *end || !(tail >= 0)) {
				fprintf(stderr, "%s: --tail: '%s' is not seconds\n", prog, argv[5]);
				return 2;
			}
		}
		return cmd_interval(argv[2], argv[3], tail);
	}
	return usage();
}
