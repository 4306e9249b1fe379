/* report/render/summary.c: summary.csv and summary.json, one row per test. Both carry the same
 * columns in the same order; a figure the test does not have is an empty cell / null. */
#include "report/render/render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* COL_LAT: a percentile of the total latency, empty where fio recorded only clat's;
 * COL_CLAT: the same field where it is clat's (fio ran without lat_percentiles=1) */
enum col_type { COL_STR, COL_INT, COL_NUM, COL_LAT, COL_CLAT };
struct col {
	const char *name;
	enum col_type type;
	size_t off;
};
#define S(f)                                                                                       \
	{                                                                                          \
#f, COL_STR, offsetof(struct rr_test, f)                                           \
	}
#define N(n, f)                                                                                    \
	{                                                                                          \
		n, COL_NUM, offsetof(struct rr_test, f)                                            \
	}
#define P(n, type, f)                                                                              \
	{                                                                                          \
		n, type, offsetof(struct rr_test, f)                                               \
	}

/* level, members, chunk, bs, iodepth and numjobs are written from the test by hand (ints). */
static const struct col cols_head[] = {S(preset), S(test), S(workload), S(engine), S(target)};
static const struct col cols_mid[] = {S(layout), S(parity), S(parity_impl), S(state), S(rw)};
static const struct col cols_tail[] = {
    N("iops", iops),
    N("mbps", mbps),
    N("lat_mean_us", lat_mean_us),
    P("lat_p50_us", COL_LAT, lat_p50_us),
    P("lat_p99_us", COL_LAT, lat_p99_us),
    P("lat_p99.9_us", COL_LAT, lat_p999_us),
    P("lat_p99.99_us", COL_LAT, lat_p9999_us),
    N("clat_mean_us", clat_mean_us),
    N("slat_mean_us", slat_mean_us),
    P("clat_p50_us", COL_CLAT, lat_p50_us),
    P("clat_p99_us", COL_CLAT, lat_p99_us),
    P("clat_p99.9_us", COL_CLAT, lat_p999_us),
    P("clat_p99.99_us", COL_CLAT, lat_p9999_us),
    N("little_inflight", little_l),
    N("cpu_usr_pct", cpu_usr),
    N("cpu_sys_pct", cpu_sys),
    N("cpu_us_per_io", cpu_us_per_io),
    N("host_cpu_us_per_io", host_cpu_us_per_io),
    N("host_cpu_cores", host_cpu_cores),
    N("fio_cpu_us_per_io", fio_cpu_us_per_io),
    N("vs_md", vs_md),
    N("vs_ublk", vs_ublk),
    N("member_ios_per_io", member_ios_per_io),
    N("parity_gbps", parity_gbps),
    N("gpu_stripes_per_launch", gpu_stripes_per_launch),
    N("rebuild_s", rebuild_s),
    N("rebuild_mbps", rebuild_mbps),
    N("rebuild_min_per_tb", rebuild_min_per_tb),
};
#define NCOLS(a) (sizeof(a) / sizeof((a)[0]))

/* The spread over a repeated test's repetitions (run.sh --repeat N): "repeats" (1 for a
 * test run once, said so beside every figure), then each of these figures' range; the
 * columns above are then the medians (report/model/repeats.c). Last, so that the columns
 * before them keep their places. */
static const struct col cols_spread[] = {
    N("iops", iops),
    N("mbps", mbps),
    N("lat_mean_us", lat_mean_us),
    N("lat_p99_us", lat_p99_us),
};

static void spread_json(json_object *o, const struct rr_test *t);

static const char *sval(const struct rr_test *t, const struct col *c)
{
	const char *s = *(char *const *)((const char *)t + c->off);
	return s ? s : "";
}

static double nval(const struct rr_test *t, const struct col *c)
{
	if ((c->type == COL_LAT && t->pct_clat) || (c->type == COL_CLAT && !t->pct_clat))
		return NAN;
	return *(const double *)((const char *)t + c->off);
}

/* Little's law's verdict: "ok", "missed", or "" where it does not apply (little.c) */
static const char *little_word(const struct rr_test *t)
{
	enum rr_little_verdict v = rr_little_check(t).v;
	return v == RR_LITTLE_OK ? "ok" : v == RR_LITTLE_MISSED ? "missed" : "";
}

/* Enough digits for a person and stable output for the tests' expected files. A figure of
 * 1e15 or more is no measured rate: it is written faithfully (the fewest digits that read
 * back as the same double), never as a 300-digit integer cut to the buffer. */
static void fmt(char *buf, size_t len, double v)
{
	if (fabs(v) >= 1e15) {
		for (int p = 15; p <= 17; p++) {
			snprintf(buf, len, "%.*g", p, v);
			if (strtod(buf, NULL) == v)
				break;
		}
		return;
	}
	if (fabs(v) >= 100)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.4g", v);
	size_t n = strlen(buf);
	if (n > 2 && strcmp(buf + n - 2, ".0") == 0)
		buf[n - 2] = '\0';
}

void rr_csv_num(FILE *f, double v)
{
	char b[64];
	if (isnan(v) || isinf(v))
		return;
	fmt(b, sizeof(b), v);
	fputs(b, f);
}

/* RFC 4180 quoting, only when a cell needs it */
void rr_csv_str(FILE *f, const char *s)
{
	if (!strpbrk(s, ",\"\n")) {
		fputs(s, f);
		return;
	}
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', f);
		fputc(*s, f);
	}
	fputc('"', f);
}

static json_object *jnum(double v)
{
	char b[64];
	if (isnan(v) || isinf(v))
		return NULL;
	fmt(b, sizeof(b), v);
	return json_object_new_double_s(v, b);
}

json_object *rr_json_num(double v)
{
	return jnum(v);
}

static json_object *jint(long v, int present)
{
	return present ? json_object_new_int64(v) : NULL;
}

static json_object *jstr(const char *s)
{
	return *s ? json_object_new_string(s) : NULL;
}

json_object *rr_test_json(const struct rr_test *t)
{
	json_object *o = json_object_new_object();
	for (size_t i = 0; i < NCOLS(cols_head); i++)
		json_object_object_add(o, cols_head[i].name, jstr(sval(t, &cols_head[i])));
	json_object_object_add(o, "level", jint(t->level, t->level >= 0));
	json_object_object_add(o, "members", jint(t->members, t->members > 0));
	json_object_object_add(o, "chunk", jint(t->chunk, t->chunk > 0));
	for (size_t i = 0; i < NCOLS(cols_mid); i++)
		json_object_object_add(o, cols_mid[i].name, jstr(sval(t, &cols_mid[i])));
	json_object_object_add(o, "bs", jint(t->bs, t->bs > 0));
	json_object_object_add(o, "iodepth", jint(t->iodepth, t->iodepth > 0));
	json_object_object_add(o, "numjobs", jint(t->numjobs, t->numjobs > 0));
	for (size_t i = 0; i < NCOLS(cols_tail); i++)
		json_object_object_add(o, cols_tail[i].name, jnum(nval(t, &cols_tail[i])));
	json_object_object_add(o, "little", jstr(little_word(t)));
	spread_json(o, t);
	json_object_object_add(o, "consistency", jstr(t->consistency ? t->consistency : ""));
	json_object_object_add(o, "steady_state", jstr(t->steady ? t->steady : ""));
	return o;
}

static void spread_json(json_object *o, const struct rr_test *t)
{
	json_object_object_add(o, "repeats", json_object_new_int(t->repeats > 1 ? t->repeats : 1));
	for (size_t i = 0; i < NCOLS(cols_spread); i++) {
		char k[64];
		double lo, hi;
		rr_test_range(t, cols_spread[i].off, &lo, &hi);
		snprintf(k, sizeof(k), "%s_min", cols_spread[i].name);
		json_object_object_add(o, k, jnum(lo));
		snprintf(k, sizeof(k), "%s_max", cols_spread[i].name);
		json_object_object_add(o, k, jnum(hi));
	}
}

static void spread_csv(FILE *f, const struct rr_test *t)
{
	fprintf(f, ",%d", t->repeats > 1 ? t->repeats : 1);
	for (size_t i = 0; i < NCOLS(cols_spread); i++) {
		double lo, hi;
		rr_test_range(t, cols_spread[i].off, &lo, &hi);
		fputc(',', f);
		rr_csv_num(f, lo);
		fputc(',', f);
		rr_csv_num(f, hi);
	}
}

static void csv_int(FILE *f, long v, int present)
{
	if (present)
		fprintf(f, "%ld", v);
}

static void write_csv(FILE *f, const struct rr_run *run)
{
	for (size_t i = 0; i < NCOLS(cols_head); i++)
		fprintf(f, "%s,", cols_head[i].name);
	fputs("level,members,chunk,", f);
	for (size_t i = 0; i < NCOLS(cols_mid); i++)
		fprintf(f, "%s,", cols_mid[i].name);
	fputs("bs,iodepth,numjobs", f);
	for (size_t i = 0; i < NCOLS(cols_tail); i++)
		fprintf(f, ",%s", cols_tail[i].name);
	fputs(",little,emulated", f);
	rr_an_csv_head(f);
	fputs(",repeats", f);
	for (size_t i = 0; i < NCOLS(cols_spread); i++)
		fprintf(f, ",%s_min,%s_max", cols_spread[i].name, cols_spread[i].name);
	fputs(",consistency,steady_state", f); /* last: the columns before keep their places */
	fputc('\n', f);

	for (size_t r = 0; r < run->ntests; r++) {
		const struct rr_test *t = &run->tests[r];
		for (size_t i = 0; i < NCOLS(cols_head); i++) {
			rr_csv_str(f, sval(t, &cols_head[i]));
			fputc(',', f);
		}
		csv_int(f, t->level, t->level >= 0);
		fputc(',', f);
		csv_int(f, t->members, t->members > 0);
		fputc(',', f);
		csv_int(f, t->chunk, t->chunk > 0);
		fputc(',', f);
		for (size_t i = 0; i < NCOLS(cols_mid); i++) {
			rr_csv_str(f, sval(t, &cols_mid[i]));
			fputc(',', f);
		}
		csv_int(f, t->bs, t->bs > 0);
		fputc(',', f);
		csv_int(f, t->iodepth, t->iodepth > 0);
		fputc(',', f);
		csv_int(f, t->numjobs, t->numjobs > 0);
		for (size_t i = 0; i < NCOLS(cols_tail); i++) {
			fputc(',', f);
			rr_csv_num(f, nval(t, &cols_tail[i]));
		}
		fprintf(f, ",%s,", little_word(t));
		rr_csv_str(f, run->emulation);
		rr_an_csv_row(f, run, r);
		spread_csv(f, t);
		fputc(',', f);
		rr_csv_str(f, t->consistency ? t->consistency : "");
		fputc(',', f);
		rr_csv_str(f, t->steady ? t->steady : "");
		fputc('\n', f);
	}
}

int rr_write_summary(const struct rr_run *run, char *err, size_t errlen)
{
	char *path;
	FILE *f = rr_out_open(run, "summary.csv", err, errlen);
	if (!f)
		return -EIO;
	write_csv(f, run);
	if (rr_out_close(f, run, "summary.csv", err, errlen))
		return -EIO;

	json_object *o = json_object_new_object(), *rows = json_object_new_array();
	json_object_object_add(o, "run", json_object_new_string(run->id));
	json_object_object_add(o, "preset", jstr(run->preset));
	json_object_object_add(o, "host", jstr(run->host));
	/* the keys only when there is something to say: other runs keep their files unchanged */
	if (*run->emulation)
		json_object_object_add(o, "emulated", jstr(run->emulation));
	if (run->made_on && strcmp(run->made_on, run->host))
		json_object_object_add(o, "made_on", jstr(run->made_on));
	json_object_object_add(o, "little_missed",
			       json_object_new_int64((int64_t)rr_little_missed(run)));
	for (size_t r = 0; r < run->ntests; r++) {
		json_object *row = rr_test_json(&run->tests[r]);
		if (run->tests[r].nhosts)
			json_object_object_add(row, "hosts", rr_hosts_json(&run->tests[r]));
		json_object_object_add(row, "emulated", jstr(run->emulation));
		rr_an_json_test(row, run, r);
		json_object_array_add(rows, row);
	}
	json_object_object_add(o, "tests", rows);
	json_object *nr = json_object_new_array();
	for (size_t r = 0; r < run->nleft_out; r++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "test", jstr(run->left_out[r].test));
		json_object_object_add(e, "status", jstr(run->left_out[r].status));
		json_object_object_add(e, "reason", jstr(run->left_out[r].reason));
		json_object_array_add(nr, e);
	}
	json_object_object_add(o, "not_run", nr);
	if (!run->ended) /* the key only when true: runs that ended keep their files unchanged */
		json_object_object_add(o, "interrupted", json_object_new_boolean(1));
	rr_an_json_run(o, run);
	if (asprintf(&path, "%s/summary.json", run->dir) < 0)
		abort();
	int rc = json_object_to_file_ext(path, o,
					 JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	if (rc < 0)
		snprintf(err, errlen, "%s: %s", path, json_util_get_last_err());
	json_object_put(o);
	free(path);
	if (rc < 0)
		return -EIO;
	return rr_write_hosts_csv(run, err, errlen);
}
