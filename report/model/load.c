/* report/model/load.c: reads one run directory (run.json, tests/<test>.meta.json, the fio json+ of
 * each test and the engine's stats file) into a struct rr_run. Latency percentiles are taken
 * from fio's clat bins merged over every job and direction, with fio's own rule, so a run
 * without group_reporting still gets one set of percentiles per test. */
#include "report/model/model.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "raid/core/raid.h"

#define META_SUFFIX ".meta.json"
enum { RR_JSON_MAX = 1 << 30 }; /* fio json+ of a long run with many jobs stays far below */

static char *xstrdup(const char *s)
{
	char *d = strdup(s ? s : "");
	if (!d)
		abort();
	return d;
}

static char *path_join(const char *a, const char *b, const char *c)
{
	char *p;
	if (asprintf(&p, "%s/%s%s", a, b, c ? c : "") < 0)
		abort();
	return p;
}

/* Says what is wrong with a file's JSON, at which line: json-c's status words
 * ("continue" for text that ends inside a value, "success" for a bare null) are not errors
 * a person can act on. jerr < 0: no value starts at the beginning of any line. */
static void json_error(const char *path, const char *buf, size_t at, int jerr, char *err,
		       size_t errlen)
{
	size_t line = 1;
	for (size_t i = 0; i < at && buf[i]; i++)
		line += buf[i] == '\n';
	if (jerr < 0)
		snprintf(err, errlen, "%s: malformed JSON (no JSON object in file)", path);
	else if (jerr == json_tokener_continue)
		snprintf(err, errlen,
			 "%s: malformed JSON (truncated: the file ends inside a value)", path);
	else if (jerr == json_tokener_success)
		snprintf(err, errlen, "%s:%zu: malformed JSON (null where an object was expected)",
			 path, line);
	else
		snprintf(err, errlen, "%s:%zu: malformed JSON (%s)", path, line,
			 json_tokener_error_desc(jerr));
}

/* json-c reads the bare words NaN and Infinity, which are not JSON: refuse them rather than
 * carry them into the figures. at: the first such value's key path (a.b[2].c). */
int rr_json_finite(json_object *o, char *at, size_t len)
{
	size_t n = strlen(at);
	switch (json_object_get_type(o)) {
	case json_type_double:
		return isfinite(json_object_get_double(o));
	case json_type_object: {
		json_object_object_foreach(o, k, v)
		{
			snprintf(at + n, len - n, "%s%s", n ? "." : "", k);
			if (!rr_json_finite(v, at, len))
				return 0;
		}
		break;
	}
	case json_type_array:
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			snprintf(at + n, len - n, "[%zu]", i);
			if (!rr_json_finite(json_object_array_get_idx(o, i), at, len))
				return 0;
		}
		break;
	default:
		break;
	}
	at[n] = '\0';
	return 1;
}

/* fio may be followed by or preceded with stray lines (warnings, an engine message): read
 * the first JSON value that starts at the beginning of a line. */
json_object *rr_json_load(const char *path, char *err, size_t errlen)
{
	/* a FIFO would block the open, a device (/dev/zero) would never end: regular files only */
	struct stat st;
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		snprintf(err, errlen, "%s: %s", path,
			 S_ISDIR(st.st_mode) ? strerror(EISDIR) : "not a regular file");
		return NULL;
	}
	FILE *f = fopen(path, "r");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	char *buf = NULL;
	size_t len = 0, cap = 0, n;
	do {
		if (len >= RR_JSON_MAX) { /* a file that grows while read, or /proc-like */
			snprintf(err, errlen, "%s: larger than %d MiB, not a result file", path,
				 RR_JSON_MAX >> 20);
			fclose(f);
			free(buf);
			return NULL;
		}
		if (len + 4096 + 1 > cap) {
			cap = cap ? cap * 2 : 65536;
			buf = realloc(buf, cap);
			if (!buf)
				abort();
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
	} while (n > 0);
	int rerr = ferror(f) ? errno : 0;
	fclose(f);
	if (rerr) {
		snprintf(err, errlen, "%s: %s", path, strerror(rerr));
		free(buf);
		return NULL;
	}
	buf[len] = '\0';

	const char *start = buf;
	while (*start && *start != '{' && *start != '[') {
		const char *nl = strchr(start, '\n');
		start = nl ? nl + 1 : start + strlen(start);
	}
	json_tokener *tok = json_tokener_new();
	json_object *obj =
	    *start ? json_tokener_parse_ex(tok, start, (int)(buf + len - start)) : NULL;
	enum json_tokener_error jerr = json_tokener_get_error(tok);
	size_t end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (!*start || jerr != json_tokener_success || !obj)
		json_error(path, buf, (size_t)(start - buf) + end, *start ? jerr : -1, err, errlen);
	free(buf);
	if (!obj || jerr != json_tokener_success) {
		json_object_put(obj);
		return NULL;
	}
	if (!json_object_is_type(obj, json_type_object)) {
		snprintf(err, errlen, "%s: malformed JSON (expected an object)", path);
		json_object_put(obj);
		return NULL;
	}
	char at[256] = "";
	if (!rr_json_finite(obj, at, sizeof(at))) {
		snprintf(err, errlen, "%s: \"%s\" is NaN or Infinity, which JSON has no word for",
			 path, at);
		json_object_put(obj);
		return NULL;
	}
	return obj;
}

json_object *rr_jget(json_object *o, const char *key)
{
	json_object *v = NULL;
	if (o && json_object_object_get_ex(o, key, &v))
		return v;
	return NULL;
}

static json_object *get_path(json_object *o, const char *a, const char *b)
{
	return rr_jget(rr_jget(o, a), b);
}

double rr_jnum(json_object *v)
{
	if (!v ||
	    !(json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)))
		return NAN;
	return json_object_get_double(v);
}

static long lnum(json_object *v, long dflt)
{
	double d = rr_jnum(v);
	return isnan(d) ? dflt : (long)d;
}

static char *str(json_object *v)
{
	if (!v || json_object_is_type(v, json_type_null))
		return xstrdup("");
	return xstrdup(json_object_get_string(v));
}

const char *rr_jstr(json_object *v)
{
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

/* fio's rule (stat.c, calc_clat_percentiles): the first bucket at which the running count
 * reaches pct percent of all samples. */
double rr_percentile(const struct rr_bin *bins, size_t n, double pct)
{
	long double total = 0, sum = 0;
	for (size_t i = 0; i < n; i++)
		total += bins[i].count;
	if (total == 0)
		return NAN;
	for (size_t i = 0; i < n; i++) {
		sum += bins[i].count;
		if (sum >= (long double)pct / 100.0L * total)
			return bins[i].ns;
	}
	return bins[n - 1].ns;
}

static int bin_cmp(const void *a, const void *b)
{
	double x = ((const struct rr_bin *)a)->ns, y = ((const struct rr_bin *)b)->ns;
	return (x > y) - (x < y);
}

static void merge_bins(struct rr_bin *bins, size_t *n)
{
	if (!*n)
		return;
	qsort(bins, *n, sizeof(*bins), bin_cmp);
	size_t o = 0;
	for (size_t i = 1; i < *n; i++) {
		if (bins[i].ns == bins[o].ns)
			bins[o].count += bins[i].count;
		else
			bins[++o] = bins[i];
	}
	*n = o + 1;
}

struct binset {
	struct rr_bin *b;
	size_t n, cap;
};

static void add_bins(struct binset *s, json_object *bins)
{
	json_object_object_foreach(bins, key, val)
	{
		if (s->n == s->cap) {
			s->cap = s->cap ? s->cap * 2 : 256;
			s->b = realloc(s->b, s->cap * sizeof(*s->b));
			if (!s->b)
				abort();
		}
		s->b[s->n].ns = strtod(key, NULL);
		s->b[s->n].count = (uint64_t)json_object_get_int64(val);
		s->n++;
	}
}

/* fio's option value as a number, 0 when absent ("10m" reads 10: only zero matters here) */
static double opt_num(json_object *job, json_object *global, const char *key)
{
	json_object *v = rr_jget(rr_jget(job, "job options"), key);
	if (!v)
		v = rr_jget(global, key);
	return v ? strtod(json_object_get_string(v), NULL) : 0;
}

/* fio keeps iodepth x numjobs I/Os in flight only in a closed loop: for the whole runtime
 * (time_based: no job ends early and leaves the others fewer), with no rate limit and no
 * think time between I/Os (docs/engine.md, Little's law). */
static int closed_loop(json_object *job, json_object *global)
{
	static const char *const open_keys[] = {"rate",	    "rate_iops", "rate_min",
						"rate_iops_min", "thinktime", "iodepth_low"};
	if (!(opt_num(job, global, "time_based") > 0))
		return 0;
	for (size_t i = 0; i < sizeof(open_keys) / sizeof(open_keys[0]); i++)
		if (opt_num(job, global, open_keys[i]) > 0)
			return 0;
	return 1;
}

/* Fills the fio figures of t from one fio JSON (json or json+). Returns 0, or -EINVAL when
 * it has no "jobs" array. */
int rr_fio_parse(json_object *fio, struct rr_test *t)
{
	static const char *const dirs[] = {"read", "write", "trim"};
	static const char *const pkeys[] = {"50.000000", "99.000000", "99.900000", "99.990000"};
	json_object *jobs = rr_jget(fio, "jobs"), *global = rr_jget(fio, "global options");
	if (!jobs) /* fio's client/server output: every host's jobs */
		jobs = rr_jget(fio, "client_stats");
	if (!jobs || !json_object_is_type(jobs, json_type_array))
		return -EINVAL;

	double iops = 0, bw = 0, usr = 0, sys = 0, ios = 0, little = 0;
	double lat_sum = 0, clat_sum = 0, slat_sum = 0, n_sum = 0;
	/* plain json has no bins: the percentiles fio printed for the busiest direction */
	double fb_lat[4] = {NAN, NAN, NAN, NAN}, fb_clat[4] = {NAN, NAN, NAN, NAN}, fb_n = -1;
	struct binset lb = {0}, cb = {0};
	int all_lat = 1, closed = 1, dirs_seen = 0;
	char *hosts[256];
	size_t nhosts = 0;
	for (size_t j = 0; j < json_object_array_length(jobs); j++) {
		json_object *job = json_object_array_get_idx(jobs, j);
		/* client mode adds its own sum of the hosts, without bins: the hosts are summed
		 * here */
		if (!strcmp(rr_jstr(rr_jget(job, "jobname")), "All clients"))
			continue;
		/* fio's usr_cpu/sys_cpu of a group_reporting entry are CPU time over the summed
		 * runtime of its threads: the mean per thread. Weighting by summed runtime over
		 * wall time gives the whole group's CPU in % of one core (1 for a single job). */
		double wall = 0, summed = rr_jnum(rr_jget(job, "job_runtime"));
		for (size_t d = 0; d < 3; d++)
			wall = fmax(wall, rr_jnum(get_path(job, dirs[d], "runtime")));
		double w = wall > 0 && summed > 0 ? summed / wall : 1;
		usr += fmax(0, rr_jnum(rr_jget(job, "usr_cpu"))) * w;
		sys += fmax(0, rr_jnum(rr_jget(job, "sys_cpu"))) * w;
		closed &= closed_loop(job, global);
		t->fio_threads |= opt_num(job, global, "thread") > 0;
		if (rr_jget(job, "hostname")) { /* client output: each host keeps its own N */
			char *h;
			if (asprintf(&h, "%s:%s", rr_jstr(rr_jget(job, "hostname")),
				     json_object_get_string(rr_jget(job, "port"))) < 0)
				abort();
			size_t k = 0;
			while (k < nhosts && strcmp(hosts[k], h))
				k++;
			if (k == nhosts && nhosts < sizeof(hosts) / sizeof(hosts[0]))
				hosts[nhosts++] = h;
			else
				free(h);
		}
		for (size_t d = 0; d < 3; d++) {
			json_object *dir = rr_jget(job, dirs[d]);
			json_object *clat = rr_jget(dir, "clat_ns"), *lat = rr_jget(dir, "lat_ns");
			double n = rr_jnum(rr_jget(clat, "N"));
			if (!dir || !(n > 0))
				continue;
			dirs_seen++;
			double diops = fmax(0, rr_jnum(rr_jget(dir, "iops")));
			double lmean = rr_jnum(rr_jget(lat, "mean"));
			iops += diops;
			ios += fmax(0, rr_jnum(rr_jget(dir, "total_ios")));
			bw += fmax(0, rr_jnum(rr_jget(dir, "bw_bytes")));
			lat_sum += lmean * n;
			clat_sum += rr_jnum(rr_jget(clat, "mean")) * n;
			slat_sum += rr_jnum(get_path(dir, "slat_ns", "mean")) * n;
			n_sum += n;
			little += diops * lmean / 1e9;
			json_object *bins = rr_jget(clat, "bins"), *lbins = rr_jget(lat, "bins");
			if (bins && json_object_is_type(bins, json_type_object))
				add_bins(&cb, bins);
			if (lbins && json_object_is_type(lbins, json_type_object))
				add_bins(&lb, lbins);
			else if (!rr_jget(lat, "percentile"))
				all_lat = 0; /* fio ran without lat_percentiles=1 */
			if (n > fb_n) {
				fb_n = n;
				for (int p = 0; p < 4; p++) {
					fb_clat[p] = rr_jnum(get_path(clat, "percentile", pkeys[p]));
					fb_lat[p] = rr_jnum(get_path(lat, "percentile", pkeys[p]));
				}
			}
		}
	}
	t->fio_hosts = (int)nhosts;
	for (size_t k = 0; k < nhosts; k++)
		free(hosts[k]);
	/* the lat bins only where every direction has them: a mix would read clat as lat */
	t->pct_clat = !(all_lat && dirs_seen);
	struct binset *use = t->pct_clat ? &cb : &lb, *drop = t->pct_clat ? &lb : &cb;
	free(drop->b);
	merge_bins(use->b, &use->n);
	t->bins = use->b;
	t->nbins = use->n;
	const double *fallback = t->pct_clat ? fb_clat : fb_lat;
	t->iops = iops;
	t->mbps = bw / 1e6;
	t->lat_mean_us = n_sum > 0 ? lat_sum / n_sum / 1e3 : NAN;
	t->clat_mean_us = n_sum > 0 ? clat_sum / n_sum / 1e3 : NAN;
	t->slat_mean_us = n_sum > 0 ? slat_sum / n_sum / 1e3 : NAN;
	t->little_l = n_sum > 0 && isfinite(little) ? little : NAN;
	t->closed_loop = closed && dirs_seen;
	t->cpu_usr = usr;
	t->cpu_sys = sys;
	/* CPU microseconds per I/O: (cores busy) x (seconds) / I/Os, with seconds = I/Os / IOPS */
	t->cpu_us_per_io = iops > 0 && ios > 0 ? (usr + sys) / 100 / iops * 1e6 : NAN;
	double *out[4] = {&t->lat_p50_us, &t->lat_p99_us, &t->lat_p999_us, &t->lat_p9999_us};
	static const double pcts[4] = {50, 99, 99.9, 99.99};
	for (int p = 0; p < 4; p++)
		*out[p] =
		    (t->nbins ? rr_percentile(t->bins, t->nbins, pcts[p]) : fallback[p]) / 1e3;
	return 0;
}

/* The type each key the report reads must have (null is always allowed: "not recorded").
 * json_type_double stands for any number. A key of another type would otherwise be read as
 * absent, and its figure silently dropped from the report. */
struct field {
	const char *key; /* a.b for a nested key */
	enum json_type type;
};

static const struct field meta_fields[] = {
    {"preset", json_type_string}, {"test", json_type_string},	{"workload", json_type_string},
    {"engine", json_type_string}, {"layout", json_type_string}, {"parity", json_type_string},
    {"state", json_type_string},  {"rw", json_type_string},	{"backend", json_type_string},
    {"status", json_type_string}, {"reason", json_type_string}, {"host", json_type_string},
    {"level", json_type_int},	  {"members", json_type_int},	{"chunk", json_type_int},
    {"bs", json_type_int},	  {"iodepth", json_type_int},	{"numjobs", json_type_int},
    {"scale", json_type_double},
};

static const struct field stats_fields[] = {
    {"parity_impl", json_type_string},
    {"parity_used", json_type_string},
    {"parity_path", json_type_string},
    {"volume.reads", json_type_double},
    {"volume.writes", json_type_double},
    {"member_io.reads", json_type_double},
    {"member_io.writes", json_type_double},
    {"parity.bytes", json_type_double},
    {"parity.cpu_ns", json_type_double},
    {"gpu.stripes_per_launch", json_type_double},
    {"rebuild", json_type_object},
    {"rebuild.start_s", json_type_double},
    {"rebuild.end_s", json_type_double},
    {"rebuild.mbps", json_type_double},
    {"rebuild.min_per_tb", json_type_double},
    {"rebuild.samples", json_type_array},
};

static const struct field run_fields[] = {
    {"run_id", json_type_string},
    {"preset", json_type_string},
    {"host", json_type_object},
    {"host.hostname", json_type_string},
    {"host.mem_bw_gbps", json_type_double},
    {"hosts", json_type_array},
};

static const char *type_name(enum json_type t)
{
	switch (t) {
	case json_type_int:
		return "an integer";
	case json_type_double:
		return "a number";
	case json_type_string:
		return "a string";
	case json_type_boolean:
		return "true/false";
	case json_type_object:
		return "an object";
	case json_type_array:
		return "an array";
	default:
		return "null";
	}
}

/* -EINVAL with one line naming the file and key when a key has the wrong type */
static int check_fields(json_object *o, const char *path, const struct field *f, size_t n,
			char *err, size_t errlen)
{
	for (size_t i = 0; i < n; i++) {
		char key[64];
		snprintf(key, sizeof(key), "%s", f[i].key);
		char *dot = strchr(key, '.');
		if (dot)
			*dot = '\0';
		json_object *v = rr_jget(o, key);
		if (dot && v && json_object_is_type(v, json_type_object))
			v = rr_jget(v, dot + 1);
		else if (dot)
			v = NULL; /* the parent's own type is checked by its own entry */
		if (!v || json_object_is_type(v, json_type_null))
			continue;
		enum json_type t = json_object_get_type(v);
		if (t == f[i].type || (f[i].type == json_type_double && t == json_type_int))
			continue;
		snprintf(err, errlen, "%s: \"%s\" is %s, expected %s", path, f[i].key, type_name(t),
			 type_name(f[i].type));
		return -EINVAL;
	}
	return 0;
}

/* The numbers rr_fio_parse reads, of each job and direction: a string ("NaN") or an object
 * there would be read as absent and the figure silently become 0. */
static int check_fio(json_object *fio, const char *path, char *err, size_t errlen)
{
	static const char *const jkeys[] = {"job_runtime", "usr_cpu", "sys_cpu"};
	static const char *const dirs[] = {"read", "write", "trim"};
	static const char *const dkeys[] = {"iops", "total_ios", "bw_bytes", "runtime"};
	json_object *jobs =
	    rr_jget(fio, "jobs") ? rr_jget(fio, "jobs") : rr_jget(fio, "client_stats");
	for (size_t j = 0; jobs && j < json_object_array_length(jobs); j++) {
		json_object *job = json_object_array_get_idx(jobs, j), *v;
		char key[96];
		for (size_t k = 0; k < 3 + 3 * 7; k++) {
			if (k < 3) {
				v = rr_jget(job, jkeys[k]);
				snprintf(key, sizeof(key), "jobs[%zu].%s", j, jkeys[k]);
			} else {
				size_t d = (k - 3) / 7, x = (k - 3) % 7;
				json_object *dir = rr_jget(job, dirs[d]);
				const char *name = x < 4 ? dkeys[x] : x == 4 ? "N" : "mean";
				const char *lk = x == 6 ? "lat_ns" : "clat_ns";
				v = x < 4 ? rr_jget(dir, name) : get_path(dir, lk, name);
				snprintf(key, sizeof(key), "jobs[%zu].%s.%s%s%s", j, dirs[d],
					 x < 4 ? "" : lk, x < 4 ? "" : ".", name);
			}
			if (v && !json_object_is_type(v, json_type_int) &&
			    !json_object_is_type(v, json_type_double)) {
				snprintf(err, errlen, "%s: \"%s\" is %s, expected a number", path,
					 key, type_name(json_object_get_type(v)));
				return -EINVAL;
			}
		}
	}
	return 0;
}

/* Busy cores over the measured interval: user + system + softirq (iowait is idle time). */
static void parse_host_cpu(json_object *h, struct rr_test *t)
{
	if (!h || !json_object_is_type(h, json_type_object))
		return;
	double iv = rr_jnum(rr_jget(h, "interval_s"));
	if (!(iv > 0))
		return;
	double busy = rr_jnum(rr_jget(h, "user_s")) + rr_jnum(rr_jget(h, "system_s")) +
		      rr_jnum(rr_jget(h, "softirq_s"));
	t->host_cpu_cores = busy / iv;
	t->fio_cpu_cores =
	    (rr_jnum(rr_jget(h, "fio_user_s")) + rr_jnum(rr_jget(h, "fio_system_s"))) / iv;
}

static void parse_meta(json_object *m, struct rr_test *t)
{
	t->preset = str(rr_jget(m, "preset"));
	t->workload = str(rr_jget(m, "workload"));
	t->engine = str(rr_jget(m, "engine"));
	t->layout = str(rr_jget(m, "layout"));
	t->parity = str(rr_jget(m, "parity"));
	t->state = str(rr_jget(m, "state"));
	t->rw = str(rr_jget(m, "rw"));
	t->backend = str(rr_jget(m, "backend"));
	t->level = (int)lnum(rr_jget(m, "level"), -1);
	t->members = (int)lnum(rr_jget(m, "members"), 0);
	t->chunk = lnum(rr_jget(m, "chunk"), 0);
	t->bs = lnum(rr_jget(m, "bs"), 0);
	t->iodepth = (int)lnum(rr_jget(m, "iodepth"), 0);
	t->numjobs = (int)lnum(rr_jget(m, "numjobs"), 0);
	t->scale = rr_jnum(rr_jget(m, "scale"));
	t->host = str(rr_jget(m, "host"));
	t->target = str(rr_jget(m, "target"));
	if (!*t->target) { /* runs before targets measured the engine (and JBOD baselines) */
		free(t->target);
		t->target = xstrdup(strcmp(t->engine, "jbod") ? "engine" : "jbod");
	}
	parse_host_cpu(rr_jget(m, "host_cpu"), t);
	if (!*t->state) {
		free(t->state);
		t->state = xstrdup("optimal");
	}
	/* older runs named a parity path for every level; only RAID 5/6 have one */
	if (t->level != 5 && t->level != 6)
		t->parity[0] = '\0';
}

static void parse_stats(json_object *s, struct rr_test *t)
{
	t->has_stats = 1;
	t->parity_impl = str(rr_jget(s, "parity_impl"));
	/* what computed the parity (raid_parity=auto names the GPU or the CPU here), else asked */
	json_object *pp = rr_jget(s, "parity_used");
	if (!pp || !json_object_is_type(pp, json_type_string))
		pp = rr_jget(s, "parity_path");
	if (rr_level_parity(t->level) > 0 && pp && json_object_is_type(pp, json_type_string)) {
		free(t->parity);
		t->parity = str(pp);
	}
	double vol =
	    rr_jnum(get_path(s, "volume", "reads")) + rr_jnum(get_path(s, "volume", "writes"));
	double mem = rr_jnum(get_path(s, "member_io", "reads")) +
		     rr_jnum(get_path(s, "member_io", "writes"));
	t->member_ios_per_io = vol > 0 ? mem / vol : NAN;
	double pb = rr_jnum(get_path(s, "parity", "bytes")),
	       pns = rr_jnum(get_path(s, "parity", "cpu_ns"));
	t->st_volume_ios = vol, t->st_member_ios = mem;
	t->st_parity_bytes = pb, t->st_parity_ns = pns;
	t->parity_gbps = pb > 0 && pns > 0 ? pb / pns : NAN; /* bytes per ns is GB/s */
	t->gpu_stripes_per_launch = rr_jnum(get_path(s, "gpu", "stripes_per_launch"));

	json_object *rb = rr_jget(s, "rebuild");
	if (!rb || !json_object_is_type(rb, json_type_object))
		return;
	t->rebuild_s = rr_jnum(rr_jget(rb, "end_s")) - rr_jnum(rr_jget(rb, "start_s"));
	t->rebuild_mbps = rr_jnum(rr_jget(rb, "mbps"));
	t->rebuild_min_per_tb = rr_jnum(rr_jget(rb, "min_per_tb"));
	json_object *smp = rr_jget(rb, "samples");
	if (!smp || !json_object_is_type(smp, json_type_array))
		return;
	t->nsamples = json_object_array_length(smp);
	t->samples = calloc(t->nsamples ? t->nsamples : 1, sizeof(*t->samples));
	if (!t->samples)
		abort();
	for (size_t i = 0; i < t->nsamples; i++) {
		json_object *e = json_object_array_get_idx(smp, i);
		struct rr_sample *x = &t->samples[i];
		x->t = rr_jnum(rr_jget(e, "t"));
		x->iops = rr_jnum(rr_jget(e, "iops"));
		x->mbps = rr_jnum(rr_jget(e, "mbps"));
		x->lat_mean_us = rr_jnum(rr_jget(e, "lat_mean_us"));
		x->lat_p99_us = rr_jnum(rr_jget(e, "lat_p99_us"));
		json_object *ph = rr_jget(e, "phase");
		snprintf(x->phase, sizeof(x->phase), "%s", ph ? json_object_get_string(ph) : "");
	}
}

/*
 * The consistency label (docs/report.md, "Targets"): md's from meta.json (md_bitmap,
 * md_consistency: what md reported it ran with; a run made before them created every array
 * with --bitmap=none), the engine's from its stats' "consistency": {"policy": none | resync
 * | bitmap} (absent in older engines: resync where the level has redundancy, else none).
 */
static void consistency_label(struct rr_test *t)
{
	char b[64] = "";

	if (!strcmp(t->target, "md")) {
		const char *bm = rr_jstr(rr_jget(t->meta_json, "md_bitmap")),
			   *cp = rr_jstr(rr_jget(t->meta_json, "md_consistency"));
		if (!*cp)
			bm = "none", cp = t->level == 0 ? "none" : "resync";
		if (strcmp(cp, "none"))
			snprintf(b, sizeof(b), "bitmap=%s, %s", *bm ? bm : "none", cp);
		else
			snprintf(b, sizeof(b), "none");
	} else if (!strcmp(t->target, "engine") && t->level >= 0) {
		const char *pol = rr_jstr(get_path(t->stats_json, "consistency", "policy"));
		if (!*pol)
			pol = rr_level_redundant(t->level) ? "resync" : "none";
		snprintf(b, sizeof(b), "%s",
			 !strcmp(pol, "bitmap")	  ? "bitmap=internal, resync"
			 : !strcmp(pol, "resync") ? "bitmap=none, resync"
						  : pol);
	}
	t->consistency = xstrdup(b);
}

/* fio's answer per job ("steadystate": {"attained": 0|1}): reached only when every job that
 * asked reached it */
static void steady_label(json_object *fio, struct rr_test *t)
{
	json_object *jobs = rr_jget(fio, "jobs");
	int asked = 0, all = 1;

	if (!jobs || !json_object_is_type(jobs, json_type_array))
		jobs = rr_jget(fio, "client_stats");
	for (size_t i = 0; jobs && json_object_is_type(jobs, json_type_array) &&
			   i < json_object_array_length(jobs);
	     i++) {
		json_object *at = get_path(json_object_array_get_idx(jobs, i), "steadystate",
					   "attained");
		if (at) {
			asked = 1;
			all &= json_object_get_int(at) != 0;
		}
	}
	free(t->steady);
	t->steady = xstrdup(!asked ? "" : all ? "reached" : "not reached");
}

static void test_init(struct rr_test *t)
{
	memset(t, 0, sizeof(*t));
	t->member_ios_per_io = t->parity_gbps = t->gpu_stripes_per_launch = NAN;
	t->host_cpu_us_per_io = t->host_cpu_cores = t->fio_cpu_us_per_io = t->vs_md = NAN;
	t->vs_ublk = NAN;
	t->fio_cpu_cores = t->little_l = t->clat_mean_us = t->slat_mean_us = NAN;
	t->rebuild_s = t->rebuild_mbps = t->rebuild_min_per_tb = NAN;
}

void rr_test_free(struct rr_test *t)
{
	if (t->reps) { /* a repeated test: its repetitions own all it points to */
		for (size_t i = 0; i < t->nreps; i++)
			rr_test_free(&t->reps[i]);
		free(t->reps);
		free(t->test);
		return;
	}
	char **s[] = {&t->test,	 &t->preset, &t->workload, &t->engine,	    &t->layout, &t->parity,
		      &t->state, &t->rw,     &t->backend,  &t->parity_impl, &t->host,	&t->target,
		      &t->consistency, &t->steady};
	for (size_t i = 0; i < t->nhosts; i++)
		rr_test_free(&t->hosts[i]);
	free(t->hosts);
	for (size_t i = 0; i < sizeof(s) / sizeof(s[0]); i++)
		free(*s[i]);
	free(t->bins);
	free(t->samples);
	free(t->status);
	free(t->reason);
	json_object_put(t->meta_json);
	json_object_put(t->stats_json);
}

/* A test left out of the figures, listed with its status and reason (-ENOENT) */
static int leave_out(struct rr_test *t, const char *status, const char *reason)
{
	t->status = xstrdup(status);
	t->reason = xstrdup(reason);
	return -ENOENT;
}

/* One test: its meta file is required, its fio output too (a missing one is skipped with a
 * warning, so one crashed test does not hide the rest of the run), its stats optional.
 * ended: run.json says the run finished (or predates the "started"/"finished" keys). A test
 * whose fio output is missing, empty or cut short is "interrupted" when the run did not end
 * or its meta.json still says "running" (run.sh stopped by Ctrl-C, fio killed); in a run
 * that ended, a malformed file stays an error. */
int rr_test_load(const char *tdir, const char *stem, int ended, struct rr_test *t, char *err,
		 size_t errlen)
{
	int rc = -EINVAL;
	char *mp = path_join(tdir, stem, META_SUFFIX), *fp = path_join(tdir, stem, ".json");
	char *sp = path_join(tdir, stem, ".stats.json");
	json_object *meta = NULL, *fio = NULL, *stats = NULL;
	struct stat st;

	test_init(t);
	t->test = xstrdup(stem);
	if (!(meta = rr_json_load(mp, err, errlen)) ||
	    check_fields(meta, mp, meta_fields, sizeof(meta_fields) / sizeof(meta_fields[0]), err,
			 errlen))
		goto out;
	parse_meta(meta, t);
	if (*t->host) {
		/* a host's share of a multi-host test: tests/<test>@<host>; rr_hosts_attach puts
		 * it under <test> */
		char *at = strrchr(t->test, '@');
		if (at)
			*at = '\0';
	}
	t->meta_json = json_object_get(meta);
	const char *status = rr_jstr(rr_jget(meta, "status")),
		   *reason = rr_jstr(rr_jget(meta, "reason"));
	int done = !strcmp(status, "skipped") || !strcmp(status, "failed");
	int cut = !done && (!ended || !strcmp(status, "running"));
	if (stat(fp, &st) != 0) {
		/* run.sh records skipped and failed tests with their reason: list them, quietly */
		if (cut) {
			fprintf(stderr, "raid-report: warning: %s: interrupted, test left out\n",
				t->test);
			rc = leave_out(t, "interrupted",
				       "no fio output: the run stopped before this test ended");
		} else if (!done) {
			fprintf(stderr, "raid-report: warning: %s: no fio output, test left out\n",
				fp);
			rc = leave_out(t, "no fio output", reason);
		} else {
			rc = leave_out(t, status, reason);
		}
		goto out;
	}
	if (!(fio = rr_json_load(fp, err, errlen)) || rr_fio_parse(fio, t) < 0) {
		if (fio)
			snprintf(err, errlen, "%s: not fio JSON output (no \"jobs\" array)", fp);
		if (cut) {
			fprintf(stderr, "raid-report: warning: %s: interrupted, test left out\n",
				t->test);
			rc = leave_out(t, "interrupted", err);
		}
		goto out;
	}
	if (check_fio(fio, fp, err, errlen))
		goto out;
	if (stat(sp, &st) == 0) {
		if (!(stats = rr_json_load(sp, err, errlen)) && cut) {
			/* the engine writes its stats when fio closes it: a stop can cut them */
			fprintf(stderr, "raid-report: warning: %s: interrupted, test left out\n",
				t->test);
			rc = leave_out(t, "interrupted", err);
			goto out;
		}
		if (!stats ||
		    check_fields(stats, sp, stats_fields,
				 sizeof(stats_fields) / sizeof(stats_fields[0]), err, errlen))
			goto out;
		parse_stats(stats, t);
		t->stats_json = json_object_get(stats);
	}
	consistency_label(t);
	steady_label(fio, t);
	rc = 0;
out:
	json_object_put(meta);
	json_object_put(fio);
	json_object_put(stats);
	free(mp);
	free(fp);
	free(sp);
	if (rc < 0 && rc != -ENOENT)
		rr_test_free(t);
	return rc;
}

static int meta_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name), s = strlen(META_SUFFIX);
	return n > s && strcmp(d->d_name + n - s, META_SUFFIX) == 0;
}

int rr_run_load(const char *dir, struct rr_run *run, char *err, size_t errlen)
{
	struct stat st;
	memset(run, 0, sizeof(*run));
	run->mem_bw_gbps = NAN;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: no such results directory", dir);
		return -ENOENT;
	}
	run->dir = xstrdup(dir);
	size_t dl = strlen(run->dir);
	while (dl > 1 && run->dir[dl - 1] == '/')
		run->dir[--dl] = '\0';
	const char *base = strrchr(run->dir, '/');
	run->id = xstrdup(base ? base + 1 : run->dir);

	char *rp = path_join(run->dir, "run.json", NULL);
	if (stat(rp, &st) == 0 &&
	    (!(run->run_json = rr_json_load(rp, err, errlen)) ||
	     check_fields(run->run_json, rp, run_fields, sizeof(run_fields) / sizeof(run_fields[0]),
			  err, errlen))) {
		free(rp);
		rr_run_free(run);
		return -EINVAL;
	}
	free(rp);
	json_object *rj = run->run_json;
	run->preset = str(rr_jget(rj, "preset"));
	run->host = str(get_path(rj, "host", "hostname"));
	run->mem_bw_gbps = rr_jnum(get_path(rj, "host", "mem_bw_gbps"));
	rr_run_emulation(rj, run->emulation, sizeof(run->emulation));
	/* inside the md appliance the guest's kernel has no host name ("(none)"): the run was
	 * made on the machine that ran the appliance, which run.json names in md.host when the
	 * run layer recorded it */
	const char *outer = rr_jstr(rr_jget(get_path(rj, "md", "host"), "hostname"));
	const char *in = *run->host && strcmp(run->host, "(none)") ? run->host : NULL;
	if (*run->emulation) {
		if (asprintf(&run->made_on, "%s, inside the md appliance (QEMU TCG emulation)",
			     *outer ? outer : in ? in : "the machine that ran the md appliance") < 0)
			abort();
	} else {
		run->made_on = xstrdup(in ? in : *outer ? outer : "an unrecorded host");
	}
	if (rr_jget(rj, "run_id")) {
		free(run->id);
		run->id = str(rr_jget(rj, "run_id"));
	}

	/* run.sh writes "started" first and "finished" at the end (results/README.md) */
	run->ended = !rr_jget(rj, "started") || rr_jget(rj, "finished");
	int ended = run->ended;
	char *tdir = path_join(run->dir, "tests", NULL);
	struct dirent **ents = NULL;
	int n = scandir(tdir, &ents, meta_filter, alphasort);
	if (n <= 0) {
		snprintf(err, errlen, "%s: no tests (no tests/<test>.meta.json files)", run->dir);
		free(tdir);
		free(ents);
		rr_run_free(run);
		return -ENOENT;
	}
	run->tests = calloc((size_t)n, sizeof(*run->tests));
	if (!run->tests)
		abort();
	int rc = 0;
	for (int i = 0; i < n; i++) {
		char *stem = ents[i]->d_name;
		stem[strlen(stem) - strlen(META_SUFFIX)] = '\0';
		if (rc == 0) {
			int r = rr_test_load(tdir, stem, ended, &run->tests[run->ntests], err, errlen);
			if (r == 0) {
				run->ntests++;
			} else if (r == -ENOENT) {
				struct rr_test *t = &run->tests[run->ntests];
				run->left_out = realloc(run->left_out, (run->nleft_out + 1) *
									   sizeof(*run->left_out));
				if (!run->left_out)
					abort();
				run->left_out[run->nleft_out++] =
				    (struct rr_left_out){xstrdup(t->test), t->status, t->reason};
				t->status = t->reason = NULL;
				rr_test_free(t);
			} else {
				rc = r;
			}
		}
		free(ents[i]);
	}
	free(ents);
	free(tdir);
	if (rc == 0)
		rr_hosts_attach(run);
	if (rc == 0 && run->ntests == 0) {
		snprintf(err, errlen, "%s: no test has fio output", run->dir);
		rc = -ENOENT;
	}
	for (size_t i = 0; rc == 0 && i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		if (t->iops > 0) {
			t->host_cpu_us_per_io = t->host_cpu_cores / t->iops * 1e6;
			t->fio_cpu_us_per_io = t->fio_cpu_cores / t->iops * 1e6;
		}
	}
	if (rc == 0)
		rr_repeats_group(run);
	if (rc == 0 && !*run->preset && run->ntests) {
		free(run->preset);
		run->preset = xstrdup(run->tests[0].preset);
	}
	if (rc < 0)
		rr_run_free(run);
	return rc;
}

void rr_run_free(struct rr_run *run)
{
	for (size_t i = 0; i < run->ntests; i++)
		rr_test_free(&run->tests[i]);
	free(run->tests);
	for (size_t i = 0; i < run->nleft_out; i++) {
		free(run->left_out[i].test);
		free(run->left_out[i].status);
		free(run->left_out[i].reason);
	}
	free(run->left_out);
	free(run->dir);
	free(run->id);
	free(run->preset);
	free(run->host);
	free(run->made_on);
	json_object_put(run->run_json);
	memset(run, 0, sizeof(*run));
}

/* md.where is "appliance: md from the appliance VERSION under tcg" (run/targets.sh,
 * tools/mdvm); a run layer that records md.accel says it in one word */
void rr_run_emulation(json_object *rj, char *out, size_t len)
{
	json_object *md = rr_jget(rj, "md");
	const char *where = rr_jstr(rr_jget(md, "where")), *accel = rr_jstr(rr_jget(md, "accel"));
	out[0] = '\0';
	if (!strcmp(accel, "tcg") || (!*accel && strstr(where, "tcg")))
		snprintf(out, len, "emulated: QEMU TCG");
}

const struct rr_test *rr_run_find(const struct rr_run *run, const char *test)
{
	for (size_t i = 0; i < run->ntests; i++)
		if (strcmp(run->tests[i].test, test) == 0)
			return &run->tests[i];
	return NULL;
}

const char *rr_level_name(const struct rr_test *t)
{
	static const char *const names[] = {"raid0", "raid1", "raid2", "raid3", "raid4", "raid5",
					    "raid6", "raid7", "raid8", "raid9", "raid10"};
	if (strcmp(t->engine, "jbod") == 0)
		return "jbod";
	if (t->level < 0) /* a dev: volume whose --target-desc named no level */
		return strcmp(t->engine, "dev") ? "jbod" : "volume";
	return t->level <= 10 ? names[t->level] : "raid?";
}

int rr_is_large(const struct rr_test *t)
{
	return t->bs >= 65536;
}

int rr_level_parity(int level)
{
	struct raid_level_info l;

	return raid_level_get(level, &l) ? -1 : l.parity;
}

/* the level can lose a member, so it has something to resync (RAID0 has not) */
int rr_level_redundant(int level)
{
	struct raid_level_info l;

	return !raid_level_get(level, &l) && l.max_failed != 0;
}

double rr_primary(const struct rr_test *t)
{
	return rr_is_large(t) ? t->mbps : t->iops;
}

int rr_is_random(const struct rr_test *t)
{
	return strncmp(t->rw, "rand", 4) == 0;
}

int rr_is_read(const struct rr_test *t)
{
	return strcmp(t->rw, "read") == 0 || strcmp(t->rw, "randread") == 0;
}

int rr_is_write(const struct rr_test *t)
{
	return strcmp(t->rw, "write") == 0 || strcmp(t->rw, "randwrite") == 0;
}
