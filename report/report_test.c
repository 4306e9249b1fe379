/* report/report_test.c: unit tests of raid-report on the checked-in fixture run
 * (report/testdata/run-quick): percentiles from merged clat bins against fio's own, the
 * per-test figures against the raw fio and stats JSON, a multi-host (client/server) test's
 * sum, published matching, and the gate's verdicts. Run from the repository root (make test
 * does). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/cmd/cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <unistd.h>

#define FIXTURE "report/testdata/run-quick"

static struct rr_run run;

static int setup(void **state)
{
	char err[512];
	return rr_run_load(FIXTURE, &run, err, sizeof(err));
}

static int teardown(void **state)
{
	rr_run_free(&run);
	return 0;
}

static json_object *fio_of(const char *test)
{
	char p[512], err[512];
	snprintf(p, sizeof(p), FIXTURE "/tests/%s.json", test);
	json_object *o = rr_json_load(p, err, sizeof(err));
	assert_non_null(o);
	return o;
}

static json_object *at(json_object *o, const char *k)
{
	json_object *v = NULL;
	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

static void assert_close(double a, double b, double rel)
{
	if (fabs(a - b) > rel * fmax(fabs(a), fabs(b)))
		fail_msg("%g is not %g", a, b);
}

/* For a single-job test, the percentiles from the bins are exactly the ones fio printed. */
static void percentiles_match_fio(void **state)
{
	static const char *const keys[] = {"50.000000", "99.000000", "99.900000", "99.990000"};
	size_t checked = 0;
	for (size_t i = 0; i < run.ntests; i++) {
		const struct rr_test *t = &run.tests[i];
		json_object *fio = fio_of(t->test), *jobs = at(fio, "jobs");
		if (json_object_array_length(jobs) == 1) {
			json_object *dir = at(json_object_array_get_idx(jobs, 0),
					      rr_is_write(t) ? "write" : "read");
			/* the fixture's fio ran without lat_percentiles=1: clat's, said so */
			assert_int_equal(t->pct_clat, 1);
			json_object *pct = at(at(dir, "clat_ns"), "percentile");
			double got[4] = {t->lat_p50_us, t->lat_p99_us, t->lat_p999_us,
					 t->lat_p9999_us};
			for (int k = 0; k < 4; k++)
				assert_close(got[k] * 1e3, json_object_get_double(at(pct, keys[k])),
					     1e-9);
			checked++;
		}
		json_object_put(fio);
	}
	assert_true(checked >= 10);
}

/* A two-job run without group_reporting: IOPS and bandwidth add up, the mean is weighted. */
static void jobs_are_summed(void **state)
{
	const struct rr_test *t = rr_run_find(&run, "raid5-4-RND4K-WRITE-randwrite");
	assert_non_null(t);
	json_object *fio = fio_of(t->test), *jobs = at(fio, "jobs");
	assert_int_equal(json_object_array_length(jobs), 2);
	double iops = 0, bw = 0, lat = 0, clat = 0, n = 0;
	for (size_t j = 0; j < 2; j++) {
		json_object *w = at(json_object_array_get_idx(jobs, j), "write");
		iops += json_object_get_double(at(w, "iops"));
		bw += json_object_get_double(at(w, "bw_bytes"));
		double nj = json_object_get_double(at(at(w, "clat_ns"), "N"));
		lat += nj * json_object_get_double(at(at(w, "lat_ns"), "mean"));
		clat += nj * json_object_get_double(at(at(w, "clat_ns"), "mean"));
		n += nj;
	}
	assert_close(t->iops, iops, 1e-9);
	assert_close(t->mbps, bw / 1e6, 1e-9);
	assert_close(t->lat_mean_us, lat / n / 1e3, 1e-9); /* total latency, not clat */
	assert_close(t->clat_mean_us, clat / n / 1e3, 1e-9);
	uint64_t total = 0;
	for (size_t k = 0; k < t->nbins; k++) {
		total += t->bins[k].count;
		if (k)
			assert_true(t->bins[k].ns > t->bins[k - 1].ns);
	}
	assert_int_equal(total, (uint64_t)n);
	json_object_put(fio);
}

/* fio's client/server output: each host's jobs in "client_stats" plus fio's "All clients"
 * sum (no bins). The test sums the hosts once, and its percentiles come from their merged
 * bins: here p50 is 2 us, where averaging the hosts' p50 (1 and 10 us) would say 5.5. */
static void hosts_merged_not_averaged(void **state)
{
	static const char text[] =
	    "{\"client_stats\": ["
	    "{\"jobname\": \"t\", \"hostname\": \"a\", \"port\": 1, \"job_runtime\": 1000,"
	    " \"read\": {\"iops\": 100, \"bw_bytes\": 409600, \"total_ios\": 100,"
	    " \"runtime\": 1000, \"clat_ns\": {\"N\": 100, \"mean\": 1100,"
	    " \"bins\": {\"1000\": 90, \"2000\": 10}}, \"lat_ns\": {\"N\": 100, \"mean\": 1100}}},"
	    "{\"jobname\": \"t\", \"hostname\": \"b\", \"port\": 1, \"job_runtime\": 1000,"
	    " \"read\": {\"iops\": 300, \"bw_bytes\": 1228800, \"total_ios\": 100,"
	    " \"runtime\": 1000, \"clat_ns\": {\"N\": 100, \"mean\": 10000,"
	    " \"bins\": {\"10000\": 100}}, \"lat_ns\": {\"N\": 100, \"mean\": 10000}}},"
	    "{\"jobname\": \"All clients\", \"job_runtime\": 2000,"
	    " \"read\": {\"iops\": 400, \"bw_bytes\": 1638400, \"total_ios\": 200,"
	    " \"runtime\": 1000, \"clat_ns\": {\"N\": 200, \"mean\": 5550}}}]}";
	json_object *fio = json_tokener_parse(text);
	assert_non_null(fio);
	struct rr_test t;
	memset(&t, 0, sizeof(t));
	assert_int_equal(rr_fio_parse(fio, &t), 0);
	assert_close(t.iops, 400, 1e-12);
	assert_close(t.mbps, 1.6384, 1e-12);
	assert_close(t.lat_mean_us, 5.55, 1e-12);
	assert_close(t.lat_p50_us, 2, 1e-12);
	assert_close(t.lat_p99_us, 10, 1e-12);
	free(t.bins);
	json_object_put(fio);
}

/* One job whose I/Os spend 500 us before issue (slat) and 100 us after (clat): the latency
 * is the total, 600 us, mean and percentiles; a clat-only reading says 100. Without
 * lat_percentiles=1 the percentiles are clat's and the test says so (pct_clat). */
static const char lat_json[] =
    "{\"jobs\": [{\"jobname\": \"t\", \"job_runtime\": 1000,"
    " \"job options\": {\"time_based\": \"1\"%s},"
    " \"read\": {\"iops\": 1000, \"bw_bytes\": 4096000, \"total_ios\": 1000,"
    " \"runtime\": 1000, \"slat_ns\": {\"N\": 1000, \"mean\": 500000},"
    " \"clat_ns\": {\"N\": 1000, \"mean\": 100000, \"bins\": {\"100000\": 1000}},"
    " \"lat_ns\": {\"N\": 1000, \"mean\": %s%s}}}]}";

static void parse_lat(struct rr_test *t, const char *opts, const char *mean, const char *bins)
{
	char text[2048];
	snprintf(text, sizeof(text), lat_json, opts, mean, bins);
	json_object *fio = json_tokener_parse(text);
	assert_non_null(fio);
	memset(t, 0, sizeof(*t));
	assert_int_equal(rr_fio_parse(fio, t), 0);
	json_object_put(fio);
}

static void total_latency(void **state)
{
	struct rr_test t;
	parse_lat(&t, "", "600000", ", \"bins\": {\"600000\": 1000}");
	assert_close(t.lat_mean_us, 600, 1e-12);
	assert_close(t.lat_p50_us, 600, 1e-12);
	assert_close(t.lat_p99_us, 600, 1e-12);
	assert_close(t.clat_mean_us, 100, 1e-12);
	assert_close(t.slat_mean_us, 500, 1e-12);
	assert_int_equal(t.pct_clat, 0);
	free(t.bins);
	parse_lat(&t, "", "600000", ""); /* fio without lat_percentiles=1 */
	assert_close(t.lat_mean_us, 600, 1e-12);
	assert_close(t.lat_p50_us, 100, 1e-12);
	assert_int_equal(t.pct_clat, 1);
	free(t.bins);
}

/* Little's law: 1000 IOPS x 4 ms = 4 I/Os in flight at QD4 is right; 0.6 ms is 0.6 of 4,
 * missed; a rate-limited job or one below 4 in flight is not judged. */
static void little_law(void **state)
{
	struct rr_test t;
	parse_lat(&t, "", "4000000", "");
	t.iodepth = 4, t.numjobs = 1;
	struct rr_little c = rr_little_check(&t);
	assert_int_equal(c.v, RR_LITTLE_OK);
	assert_close(c.l, 4, 1e-12);
	free(t.bins);
	parse_lat(&t, "", "600000", "");
	t.iodepth = 4, t.numjobs = 1;
	c = rr_little_check(&t);
	assert_int_equal(c.v, RR_LITTLE_MISSED);
	assert_close(c.l, 0.6, 1e-12);
	t.iodepth = 2, t.numjobs = 1;
	assert_int_equal(rr_little_check(&t).v, RR_LITTLE_NA);
	free(t.bins);
	parse_lat(&t, ", \"rate_iops\": \"1000\"", "600000", "");
	t.iodepth = 4, t.numjobs = 1;
	assert_int_equal(rr_little_check(&t).v, RR_LITTLE_NA);
	free(t.bins);
	/* the fixture's closed-loop tests all keep it (a real run of the engine) */
	size_t ok = 0;
	for (size_t i = 0; i < run.ntests; i++)
		ok += rr_little_check(&run.tests[i]).v == RR_LITTLE_OK;
	assert_int_equal(rr_little_missed(&run), 0);
	assert_true(ok >= 10);
}

static void stats_figures(void **state)
{
	char p[512], err[512];
	const struct rr_test *t = rr_run_find(&run, "raid5-4-SEQ1M-Q8T64-write");
	snprintf(p, sizeof(p), FIXTURE "/tests/%s.stats.json", t->test);
	json_object *s = rr_json_load(p, err, sizeof(err));
	assert_non_null(s);
	double vol = json_object_get_double(at(at(s, "volume"), "writes")) +
		     json_object_get_double(at(at(s, "volume"), "reads"));
	double mem = json_object_get_double(at(at(s, "member_io"), "writes")) +
		     json_object_get_double(at(at(s, "member_io"), "reads"));
	double pb = json_object_get_double(at(at(s, "parity"), "bytes"));
	double pns = json_object_get_double(at(at(s, "parity"), "cpu_ns"));
	assert_close(t->member_ios_per_io, mem / vol, 1e-12);
	assert_close(t->parity_gbps, pb / pns, 1e-12);
	assert_true(isnan(t->rebuild_s));
	json_object_put(s);

	t = rr_run_find(&run, "raid5-4-RND4K-READ-randread-rebuilding");
	snprintf(p, sizeof(p), FIXTURE "/tests/%s.stats.json", t->test);
	s = rr_json_load(p, err, sizeof(err));
	assert_non_null(s);
	json_object *rb = at(s, "rebuild");
	assert_close(t->rebuild_s,
		     json_object_get_double(at(rb, "end_s")) -
			 json_object_get_double(at(rb, "start_s")),
		     1e-12);
	assert_close(t->rebuild_min_per_tb, json_object_get_double(at(rb, "min_per_tb")), 1e-12);
	assert_int_equal(t->nsamples, json_object_array_length(at(rb, "samples")));
	assert_true(t->nsamples >= 2);
	assert_string_equal(
	    t->samples[0].phase,
	    json_object_get_string(at(json_object_array_get_idx(at(rb, "samples"), 0), "phase")));
	json_object_put(s);

	t = rr_run_find(&run, "jbod-4-SEQ1M-Q8T64-read");
	assert_false(t->has_stats);
	assert_string_equal(rr_level_name(t), "jbod");
	assert_true(isnan(t->member_ios_per_io));
}

static void percentile_rule(void **state)
{
	struct rr_bin b[] = {{100, 50}, {200, 40}, {300, 9}, {400, 1}};
	assert_true(rr_percentile(b, 4, 50) == 100);
	assert_true(rr_percentile(b, 4, 50.01) == 200);
	assert_true(rr_percentile(b, 4, 99) == 300);
	assert_true(rr_percentile(b, 4, 99.5) == 400);
	assert_true(isnan(rr_percentile(b, 0, 50)));
}

static void malformed_input(void **state)
{
	char err[512], p[] = "/tmp/rr-test-XXXXXX";
	int fd = mkstemp(p);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "{\"jobs\": [", 10), 10);
	close(fd);
	assert_null(rr_json_load(p, err, sizeof(err)));
	assert_non_null(strstr(err, "malformed JSON"));
	unlink(p);

	struct rr_test t;
	memset(&t, 0, sizeof(t));
	json_object *o = json_tokener_parse("{\"fio version\": \"fio-3.33\"}");
	assert_int_equal(rr_fio_parse(o, &t), -EINVAL);
	json_object_put(o);

	struct rr_run r;
	assert_true(rr_run_load("/nonexistent/run", &r, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "no such results directory"));
}

/* The published figures' CSV parser, the only one (raid-report published feeds the shell):
 * quoted fields with commas and doubled quotes, empty fields, and a quote left open. */
static void published_csv_quotes(void **state)
{
	static const char header[] = "source,host,drives,drive_model,array,engine,chunk,workload,"
				     "bs,iodepth,numjobs,rw,state,metric,value,unit,note\n";
	char err[512], p[] = "/tmp/rr-pub-XXXXXX";
	struct rr_pubset pub;
	FILE *f;
	int fd = mkstemp(p);

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	fputs(header, f);
	fputs("\"src, a\",h,4,\"m \"\"x\"\"\",raid5,graid,,W,4k,,64,randread,optimal,iops,"
	      "12.5,IOPS,\"note, with \"\"quotes\"\", and commas\"\n",
	      f);
	fputs("s,h,4,m,raid0,sw-raid,64k,W,1m,8,,read,optimal,bw,100,MB/s,\r\n", f);
	fclose(f);
	assert_int_equal(rr_pub_load(p, &pub, err, sizeof(err)), 0);
	assert_int_equal(pub.n, 2);
	assert_string_equal(pub.rows[0].source, "src, a");
	assert_string_equal(pub.rows[0].drive_model, "m \"x\"");
	assert_string_equal(pub.rows[0].chunk, "");
	assert_string_equal(pub.rows[0].text[9], ""); /* iodepth left empty */
	assert_int_equal(pub.rows[0].numjobs, 64);
	assert_true(pub.rows[0].value == 12.5);
	assert_string_equal(pub.rows[0].note, "note, with \"quotes\", and commas");
	assert_string_equal(pub.rows[1].chunk, "64k");
	assert_string_equal(pub.rows[1].note, "");
	assert_string_equal(pub.rows[1].unit, "MB/s");
	rr_pub_free(&pub);

	f = fopen(p, "a");
	fputs("s,h,4,m,raid0,sw-raid,64k,W,1m,8,1,read,optimal,bw,100,MB/s,\"open\n", f);
	fclose(f);
	assert_int_equal(rr_pub_load(p, &pub, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":4: a quoted field is not closed"));
	f = fopen(p, "w");
	fputs(header, f);
	fputs("s,h,4,\"m\"x,raid0,sw-raid,64k,W,1m,8,1,read,optimal,bw,100,MB/s,\n", f);
	fclose(f);
	assert_int_equal(rr_pub_load(p, &pub, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, ":2: a quoted field"));
	unlink(p);
}

static void published_matching(void **state)
{
	char err[512];
	struct rr_pubset pub;
	assert_int_equal(rr_pub_load("results/reference/published.csv", &pub, err, sizeof(err)), 0);
	assert_true(pub.n >= 50);
	const struct rr_test *w = rr_run_find(&run, "raid5-4-RND4K-WRITE-randwrite");
	const struct rr_test *rb = rr_run_find(&run, "raid5-4-RND4K-READ-randread-rebuilding");
	size_t wm = 0, rm = 0, rebuild = 0;
	for (size_t i = 0; i < pub.n; i++) {
		const struct rr_pub *p = &pub.rows[i];
		const char *unit;
		if (rr_pub_matches(p, w)) {
			wm++;
			assert_string_equal(p->array, "raid5");
			assert_string_equal(p->state, "optimal");
			assert_true(rr_pub_measured(p, w) == w->iops);
		}
		if (rr_pub_matches(p, rb)) {
			if (!strcmp(p->metric, "rebuild_time")) {
				rebuild++;
				/* 82.3 min for one 6.4 TB drive */
				assert_close(rr_pub_value(p, &unit), 82.3 / 6.4, 1e-9);
				assert_string_equal(unit, "min/TB");
			} else {
				rm++;
				assert_string_equal(p->state, "rebuild");
			}
		}
	}
	assert_int_equal(wm, 1);
	assert_int_equal(rm, 1);
	assert_int_equal(rebuild, 1);
	rr_pub_free(&pub);
}

/* Scales every figure of a baseline (median and range) by `by` in its better direction. */
static void improve(json_object *base, double by, const char *only_kind)
{
	static const char *const keys[] = {"value", "min", "max"};
	json_object *figs = at(base, "figures");
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		if (only_kind && strcmp(json_object_get_string(at(f, "kind")), only_kind))
			continue;
		int higher = !strcmp(json_object_get_string(at(f, "better")), "higher");
		for (size_t k = 0; k < 3; k++) {
			double v = json_object_get_double(at(f, keys[k]));
			json_object_object_add(f, keys[k],
					       json_object_new_double(higher ? v * by : v / by));
		}
	}
}

static char gate_out[1 << 16];

static int gate(json_object *base, double tol)
{
	char err[512];
	struct rr_gate_opts o = {.tolerance_pct = tol, .junit_path = NULL};
	FILE *out = fmemopen(gate_out, sizeof(gate_out), "w");
	int rc = rr_gate(&run, base, &o, out, err, sizeof(err));
	fclose(out);
	return rc;
}

/* The verdict's rule on synthetic figures (higher is better, floor 15%): ranges that
 * separate by more than the floor are flagged, overlapping or closer ones are not; a run
 * measured once is given the baseline's relative range. The gate before ranges flagged any
 * median more than its tolerance below the baseline's: the second and fourth cases. */
static void gate_rule(void **state)
{
	(void)state;
	struct rr_gate_row r = {.base = 100, .blo = 90, .bhi = 110, .bn = 3};
	/* the run's range [60, 70]: below 90 * 0.85 = 76.5: flagged */
	r.cur = 65, r.clo = 60, r.chi = 70, r.cn = 3;
	assert_true(rr_gate_worse(&r, 1, 0.15));
	/* median 30% down but its range [60, 95] overlaps the baseline's: not flagged */
	r.cur = 70, r.clo = 60, r.chi = 95, r.cn = 3;
	assert_false(rr_gate_worse(&r, 1, 0.15));
	/* separated but by less than the floor: [70, 80] against 90: 80 > 76.5 */
	r.cur = 75, r.clo = 70, r.chi = 80, r.cn = 3;
	assert_false(rr_gate_worse(&r, 1, 0.15));
	assert_true(rr_gate_worse(&r, 1, 0.05)); /* the floor is what let it pass */
	/* measured once: 80 taken as [72, 88] (the baseline's -10%/+10%): 88 > 76.5 */
	r.cur = r.clo = r.chi = 80, r.cn = 1;
	assert_false(rr_gate_worse(&r, 1, 0.15));
	r.cur = r.clo = r.chi = 60; /* [54, 66]: flagged */
	assert_true(rr_gate_worse(&r, 1, 0.15));
	/* lower is better: the run's range above the baseline's by more than the floor */
	struct rr_gate_row l = {.base = 10, .blo = 9, .bhi = 11, .bn = 3, .cur = 14, .clo = 13,
				.chi = 15, .cn = 3};
	assert_true(rr_gate_worse(&l, 0, 0.15)); /* 13 > 11 * 1.15 = 12.65 */
	l.clo = 12;
	assert_false(rr_gate_worse(&l, 0, 0.15));
	/* both measured once: the floor alone */
	struct rr_gate_row p = {.base = 100, .blo = 100, .bhi = 100, .bn = 1,
				.cur = 86, .clo = 86, .chi = 86, .cn = 1};
	assert_false(rr_gate_worse(&p, 1, 0.15));
	p.cur = p.clo = p.chi = 84;
	assert_true(rr_gate_worse(&p, 1, 0.15));
}

/* The statistical tier (power.c) on synthetic repetitions, higher is better, threshold 15%:
 * the test that fits the count, a 25% drop caught with 9 against 3 and with 3 against 3 when
 * the figure repeats well, the same drop in a figure that spreads by +-20% cannot be told,
 * an unchanged steady figure passes with a small detectable change, and one repetition a
 * side has no test at all. The gate before this tier had none of it: a range rule only. */
static void gate_power(void **state)
{
	(void)state;
	struct rr_power pw;
	double b9[] = {100, 101, 99, 102, 98, 100, 101, 99, 100}, c3[] = {75, 76, 74};
	rr_power_judge(b9, 9, c3, 3, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_string_equal(pw.test, "mann-whitney"); /* 1 in C(12, 3) = 220 can reach 5% */
	assert_int_equal(pw.verdict, RR_P_WORSE);
	assert_true(pw.p_worse < 0.01);
	assert_true(pw.detectable < 0.10);
	/* 3 against 3: no split is rarer than 1 in 20, the bootstrap decides */
	assert_false(rr_rank_can_reach(3, 3, RR_GATE_ALPHA));
	assert_true(rr_rank_can_reach(4, 4, RR_GATE_ALPHA));
	double b3[] = {100, 101, 99};
	rr_power_judge(b3, 3, c3, 3, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_string_equal(pw.test, "bootstrap");
	assert_int_equal(pw.verdict, RR_P_WORSE);
	/* lower is better (latency): the same drop read the other way */
	double l3[] = {133, 132, 134};
	rr_power_judge(b9, 9, l3, 3, 0, 0.15, RR_GATE_ALPHA, &pw);
	assert_int_equal(pw.verdict, RR_P_WORSE);
	rr_power_judge(b9, 9, l3, 3, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_int_equal(pw.verdict, RR_P_BETTER);
	/* spread +-20%: a 25% drop is not told apart; detectable above the threshold, and the
	 * repetitions it would take for 10% more than we have */
	double nb[] = {80, 120, 100}, nc[] = {60, 90, 75};
	rr_power_judge(nb, 3, nc, 3, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_int_equal(pw.verdict, RR_P_SAME);
	assert_true(pw.detectable > 0.15);
	assert_true(pw.repeats_for_10 > 3);
	/* unchanged and steady: nothing moved, a small change would have shown */
	double s9[] = {2, 2, 2, 2, 2, 2, 2, 2, 2}, s3[] = {2, 2, 2};
	rr_power_judge(s9, 9, s3, 3, 0, 0.15, RR_GATE_ALPHA, &pw);
	assert_int_equal(pw.verdict, RR_P_SAME);
	assert_true(pw.detectable < 0.01);
	/* a 10% drop, significant but under the 15% threshold: not a regression */
	double c10[] = {90, 91, 89};
	rr_power_judge(b9, 9, c10, 3, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_int_equal(pw.verdict, RR_P_SAME);
	assert_true(pw.p_worse < 0.05);
	/* one repetition: no test */
	rr_power_judge(b9, 1, c3, 1, 1, 0.15, RR_GATE_ALPHA, &pw);
	assert_string_equal(pw.test, "none");
}

static void gate_verdicts(void **state)
{
	(void)state;
	struct rr_figures fs;
	rr_figures_of_run(&run, &fs);
	size_t ratios = 0;
	for (size_t i = 0; i < fs.n; i++) {
		ratios += !strcmp(fs.f[i].kind, "ratio");
		/* machine-bound: never compared across machines */
		if (strstr(fs.f[i].id, "parity_gbps/mem_bw") || strstr(fs.f[i].id, "cpu_per_io"))
			assert_string_equal(fs.f[i].kind, "absolute");
	}
	assert_true(ratios >= 10);
	rr_figures_free(&fs);

	json_object *b = rr_baseline_json(&run, 1);
	assert_int_equal(gate(b, 10), RR_OK);
	/* measured once on both sides: nothing passes, every figure cannot tell */
	assert_null(strstr(gate_out, "  passed\n"));
	assert_non_null(strstr(gate_out, "  cannot tell (detectable: -)\n"));
	assert_non_null(strstr(json_object_get_string(at(at(b, "machine"), "member_kind")),
			       "files"));
	json_object_put(b);

	b = rr_baseline_json(&run, 1);
	improve(b, 1.2, NULL);
	assert_int_equal(gate(b, 10), RR_REGRESSED);
	assert_int_equal(gate(b, 25), RR_OK);
	json_object_put(b);

	/* another host name, the same machine: everything compared */
	b = rr_baseline_json(&run, 1);
	json_object_object_add(b, "host", json_object_new_string("another-host"));
	improve(b, 1.2, "absolute");
	assert_int_equal(gate(b, 10), RR_REGRESSED);
	json_object_put(b);

	/* another machine: absolute figures are not compared at all (not even a row), one
	 * line says so; ratios still are */
	b = rr_baseline_json(&run, 1);
	json_object_object_add(at(b, "machine"), "cpu_model",
			       json_object_new_string("Another CPU"));
	improve(b, 1.2, "absolute");
	assert_int_equal(gate(b, 10), RR_OK);
	assert_non_null(strstr(gate_out, "another machine or settings (cpu_model differ): only "
					 "machine-independent figures compared"));
	assert_null(strstr(gate_out, " MB/s "));
	/* "absolute" only in that line ("N absolute figures left out") */
	assert_null(strstr(strstr(gate_out, "absolute") + 1, "absolute"));
	improve(b, 1.2, "ratio");
	assert_int_equal(gate(b, 10), RR_REGRESSED);
	json_object_put(b);

	/* a figure the run no longer has is a failure */
	b = rr_baseline_json(&run, 1);
	json_object *f = json_object_new_object();
	json_object_object_add(f, "id", json_object_new_string("gone-test MB/s"));
	json_object_object_add(f, "kind", json_object_new_string("ratio"));
	json_object_object_add(f, "better", json_object_new_string("higher"));
	json_object_object_add(f, "value", json_object_new_double(1));
	json_object_object_add(f, "min", json_object_new_double(1));
	json_object_object_add(f, "max", json_object_new_double(1));
	json_object_object_add(f, "n", json_object_new_int(1));
	json_object_array_add(at(b, "figures"), f);
	assert_int_equal(gate(b, 10), RR_REGRESSED);
	json_object_put(b);

	/* the same machine with other settings: absolute figures are not compared */
	b = rr_baseline_json(&run, 1);
	json_object *cond = at(b, "conditions");
	json_object_object_add(cond, "scale", json_object_new_string("0.5"));
	improve(b, 1.2, "absolute");
	assert_int_equal(gate(b, 10), RR_OK);
	json_object_put(b);

	/* a baseline with a wide range: a run 20% down is within it, not flagged */
	b = rr_baseline_json(&run, 1);
	json_object *figs = at(b, "figures");
	for (size_t i = 0; i < json_object_array_length(figs); i++) {
		json_object *x = json_object_array_get_idx(figs, i);
		double v = json_object_get_double(at(x, "value"));
		json_object_object_add(x, "min", json_object_new_double(v / 1.5));
		json_object_object_add(x, "max", json_object_new_double(v * 1.5));
		json_object_object_add(x, "n", json_object_new_int(3));
	}
	improve(b, 1.2, NULL);
	assert_int_equal(gate(b, 10), RR_OK);
	json_object_put(b);

	/* a baseline of several runs: the median, its range and count */
	struct rr_run two[2] = {run, run};
	b = rr_baseline_json(two, 2);
	figs = at(b, "figures");
	assert_true(json_object_array_length(figs) >= 10);
	json_object *f0 = json_object_array_get_idx(figs, 0);
	assert_int_equal(json_object_get_int(at(f0, "n")), 2);
	assert_true(json_object_get_double(at(f0, "min")) ==
		    json_object_get_double(at(f0, "max")));
	assert_int_equal(gate(b, 10), RR_OK);
	json_object_put(b);

	b = json_tokener_parse("{\"host\": \"x\"}");
	assert_true(gate(b, 10) < 0);
	json_object_put(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(percentile_rule),	  cmocka_unit_test(percentiles_match_fio),
	    cmocka_unit_test(jobs_are_summed),	  cmocka_unit_test(hosts_merged_not_averaged),
	    cmocka_unit_test(total_latency),	  cmocka_unit_test(little_law),
	    cmocka_unit_test(stats_figures),	  cmocka_unit_test(malformed_input),
	    cmocka_unit_test(published_csv_quotes), cmocka_unit_test(published_matching),
	    cmocka_unit_test(gate_rule),
	    cmocka_unit_test(gate_power),
	    cmocka_unit_test(gate_verdicts),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
