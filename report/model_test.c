/* report/model_test.c: the efficiency and projection model (analysis/iomodel.c, efficiency.c,
 * project.c). The I/O-count model must give the engine's own member bytes and I/Os for every
 * optimal RAID test of the fixture run (real fio runs through the engine); the textbook counts
 * (RAID5 4K RMW 4, RAID6 6, full stripe n/(n-p), mirrors 2); efficiency against the fixture's
 * JBOD; a projection's bounds, binding limit and margin from a profile's facts; and the
 * published-figure check (GPU parity through a Gen4 x16 link). Run from the repository root. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <cmocka.h>

#include "report/cmd/cmd.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FIXTURE "report/testdata/run-quick"

static void assert_close(double a, double b, double rel)
{
	if (!(fabs(a - b) <= rel * fmax(fabs(a), fabs(b))))
		fail_msg("%g is not %g", a, b);
}

static double jd(json_object *o, const char *a, const char *b)
{
	json_object *v = NULL, *w = NULL;
	assert_true(json_object_object_get_ex(o, a, &v));
	assert_true(json_object_object_get_ex(v, b, &w));
	return json_object_get_double(w);
}

/* The model against the engine's stats: member bytes per volume byte for every optimal RAID
 * test of the fixture, and member I/Os per volume I/O for the small-block ones. */
static void model_matches_engine_stats(void **state)
{
	struct rr_run run;
	char err[512];
	assert_int_equal(rr_run_load(FIXTURE, &run, err, sizeof(err)), 0);
	size_t checked = 0;
	for (size_t i = 0; i < run.ntests; i++) {
		const struct rr_test *t = &run.tests[i];
		if (!t->stats_json || strcmp(t->state, "optimal"))
			continue;
		struct rr_ioc c;
		assert_int_equal(rr_io_model(t->level, t->members, t->chunk, t->bs, t->rw, -1, &c),
				 0);
		json_object *s = t->stats_json;
		double vb = jd(s, "volume", "read_bytes") + jd(s, "volume", "write_bytes");
		double mb = jd(s, "member_io", "read_bytes") + jd(s, "member_io", "write_bytes");
		print_message("%-34s model %.4g bytes, engine %.4g\n", t->test,
			      c.read_bytes + c.write_bytes, mb / vb);
		assert_close(c.read_bytes + c.write_bytes, mb / vb, 0.01);
		if (!rr_is_large(t)) {
			double vn = jd(s, "volume", "reads") + jd(s, "volume", "writes");
			double mn = jd(s, "member_io", "reads") + jd(s, "member_io", "writes");
			assert_close(c.reads + c.writes, mn / vn, 0.01);
		}
		checked++;
	}
	assert_true(checked >= 8);
	rr_run_free(&run);
}

static double ios(int level, int n, long chunk, long bs, const char *rw)
{
	struct rr_ioc c;
	assert_int_equal(rr_io_model(level, n, chunk, bs, rw, -1, &c), 0);
	return rr_ioc_per_io(&c, bs >= 65536);
}

static void textbook_counts(void **state)
{
	assert_close(ios(5, 8, 524288, 4096, "randwrite"), 4, 1e-9); /* 2 reads + 2 writes */
	assert_close(ios(6, 8, 524288, 4096, "randwrite"), 6, 1e-9); /* 3 + 3 */
	assert_close(ios(5, 3, 524288, 4096, "randwrite"), 3, 1e-9); /* RCW: 1 read + 2 */
	/* RAID6 over 4 members (k = 2): reconstruct-write reads the other data chunk and writes
	 * data, P and Q, 4 I/Os, as the engine measured (294437 reads, 883263 writes for 294438
	 * writes); RAID5 x4 ties at 2 + 2. So RAID6 x4 costs no more I/Os than RAID5 x4 and
	 * fewer reads: a figure above RAID5's there is true. x5: min(3, 2) + 3 = 5. */
	struct rr_ioc r6;
	assert_int_equal(rr_io_model(6, 4, 524288, 4096, "randwrite", -1, &r6), 0);
	assert_close(r6.reads, 1, 1e-9);
	assert_close(r6.writes, 3, 1e-9);
	assert_string_equal(r6.strategy, "rcw");
	assert_close(ios(5, 4, 524288, 4096, "randwrite"), 4, 1e-9);
	assert_close(ios(6, 5, 524288, 4096, "randwrite"), 5, 1e-9);
	assert_close(ios(5, 5, 262144, 1048576, "write"), 5.0 / 4, 1e-9); /* full stripe */
	assert_close(ios(6, 6, 262144, 1048576, "write"), 6.0 / 4, 1e-9);
	assert_close(ios(1, 2, 0, 4096, "randwrite"), 2, 1e-9);
	assert_close(ios(10, 8, 524288, 4096, "randwrite"), 2, 1e-9);
	assert_close(ios(10, 8, 524288, 4096, "randread"), 1, 1e-9);
	assert_close(ios(5, 8, 524288, 4096, "randread"), 1, 1e-9);
	/* review B's OLTP mix (70% reads) on RAID5: 0.7 x 1 + 0.3 x 4 */
	struct rr_ioc c;
	assert_int_equal(rr_io_model(5, 8, 524288, 4096, "randrw", rr_rw_mix("randrw", "OLTP-4K"),
				     &c),
			 0);
	assert_close(c.reads + c.writes, 0.7 + 0.3 * 4, 1e-9);
	assert_int_equal(rr_io_model(5, 1, 524288, 4096, "randwrite", -1, &c), -1);
}

/* Efficiency: the fixture's RAID0 and RAID5 reads over its JBOD read, and a test without
 * a JBOD beside it has no efficiency (not a zero). */
static void efficiency_against_jbod(void **state)
{
	struct rr_run run;
	char err[512];
	assert_int_equal(rr_run_load(FIXTURE, &run, err, sizeof(err)), 0);
	assert_int_equal(rr_analyse(&run, NULL, NULL, 0, err, sizeof(err)), 0);
	const struct rr_test *j = rr_run_find(&run, "jbod-4-SEQ1M-Q8T64-read");
	const struct rr_test *r5 = rr_run_find(&run, "raid5-4-SEQ1M-Q8T64-read");
	const struct rr_test *w = rr_run_find(&run, "raid5-4-RND4K-WRITE-randwrite");
	assert_non_null(j);
	int k = rr_eff_of_test(run.an, r5);
	assert_true(k >= 0);
	assert_close(run.an->eff[k].eff_jbod, r5->mbps / j->mbps, 1e-9);
	assert_string_equal(run.an->eff[k].raw, j->test);
	k = rr_eff_of_test(run.an, w);
	assert_true(isnan(run.an->eff[k].eff_jbod));
	assert_close(run.an->eff[k].io_per_io, 4, 1e-9); /* the stats' 2 reads + 2 writes */
	assert_string_equal(run.an->eff[k].io_source, "stats");
	assert_int_equal(rr_eff_of_test(run.an, j), -1); /* JBOD is the raw side itself */
	rr_run_free(&run);
}

/* A figure above its I/O-count bound names the assumption it broke: the fixture's RAID5
 * read is 4.1x its JBOD at 1 member byte per byte (the count holds); its JBOD ran fio's
 * jobs as processes, the engine as threads. A test within its bound names nothing. */
static void above_bound_named(void **state)
{
	struct rr_run run;
	char err[512];
	assert_int_equal(rr_run_load(FIXTURE, &run, err, sizeof(err)), 0);
	assert_int_equal(rr_analyse(&run, NULL, NULL, 0, err, sizeof(err)), 0);
	int k = rr_eff_of_test(run.an, rr_run_find(&run, "raid5-4-SEQ1M-Q8T64-read"));
	assert_true(k >= 0 && run.an->eff[k].eff_bound > 1.05);
	assert_non_null(strstr(run.an->eff[k].above, "so the count holds"));
	assert_non_null(strstr(run.an->eff[k].above, "as processes"));
	/* both as threads: the member files are named as the broken assumption */
	struct rr_test *t = (struct rr_test *)rr_run_find(&run, "raid5-4-SEQ1M-Q8T64-read");
	t->fio_threads = 0;
	assert_int_equal(rr_analyse(&run, NULL, NULL, 0, err, sizeof(err)), 0);
	k = rr_eff_of_test(run.an, t);
	assert_null(strstr(run.an->eff[k].above, "as processes"));
	assert_non_null(strstr(run.an->eff[k].above, "member files"));
	/* no raw side, no bound exceeded: nothing said */
	k = rr_eff_of_test(run.an, rr_run_find(&run, "raid5-4-RND4K-WRITE-randwrite"));
	assert_string_equal(run.an->eff[k].above, "");
	rr_run_free(&run);
}

static json_object *profile(void)
{
	return json_tokener_parse(
	    "{\"name\": \"t\", \"sockets\": 2,"
	    " \"numa_nodes\": [{\"node\": 0, \"socket\": 0, \"cores\": 8},"
	    "                  {\"node\": 1, \"socket\": 1, \"cores\": 8}],"
	    " \"memory_bw_gbps\": 100, \"interconnect_gbps\": 10,"
	    " \"drives\": {\"d\": {\"seq_read_mbps\": 10000, \"seq_write_mbps\": 5000,"
	    "   \"rand_read_4k_iops\": 1000000, \"rand_write_4k_iops\": 200000,"
	    "   \"link\": {\"gen\": 4, \"width\": 4}}},"
	    " \"root_ports\": {\"p0\": {\"gen\": 4, \"width\": 16}, \"p1\": {\"gen\": 4, \"width\": 8}},"
	    " \"bays\": [{\"bay\": 0, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"},"
	    "            {\"bay\": 1, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"},"
	    "            {\"bay\": 2, \"numa_node\": 1, \"root_port\": \"p1\", \"drive\": \"d\"},"
	    "            {\"bay\": 3, \"numa_node\": 1, \"root_port\": \"p1\", \"drive\": \"d\"}],"
	    " \"gpu\": {\"model\": \"g\", \"pcie\": {\"gen\": 4, \"width\": 16}}}");
}

static struct rr_test test_of(int level, long bs, const char *rw, const char *parity,
			      double cpu_us)
{
	struct rr_test t;
	memset(&t, 0, sizeof(t));
	t.test = "src";
	t.workload = "W";
	t.engine = "raid";
	t.rw = (char *)rw;
	t.state = "optimal";
	t.parity = (char *)parity;
	t.parity_impl = "";
	t.level = level;
	t.members = 4;
	t.chunk = 524288;
	t.bs = bs;
	t.iodepth = 1;
	t.numjobs = 1;
	t.cpu_us_per_io = cpu_us;
	t.parity_gbps = NAN;
	t.lat_mean_us = 10;
	return t;
}

static struct rr_pub pub_of(const char *array, const char *engine, const char *rw,
			    const char *metric, const char *bs, double value)
{
	struct rr_pub p;
	memset(&p, 0, sizeof(p));
	p.source = "s";
	p.host = "t";
	p.drive_model = "d";
	p.array = (char *)array;
	p.engine = (char *)engine;
	p.chunk = "";
	p.workload = "W";
	p.bs = (char *)bs;
	p.rw = (char *)rw;
	p.state = "optimal";
	p.metric = (char *)metric;
	p.unit = "";
	p.note = "";
	p.drives = 4;
	p.iodepth = 16;
	p.numjobs = 4;
	p.value = value;
	return p;
}

/* RAID0 1M reads on 4 drives: drives 4 x 10000 MB/s = 40000; drive links 4 x 7.876 GB/s;
 * root ports: p1 (Gen4 x8, 15.75 GB/s) carries 2 of 4 bays: 31500; the link between the
 * sockets carries half: 10 GB/s / 0.5 = 20000 binds; memory 100 GB/s / 1 byte; CPU 16 cores
 * / 100 us x 1 MB = 167772. The margin is to the next: the drive links. */
static void projection_bounds(void **state)
{
	json_object *prof = profile();
	struct rr_test s = test_of(0, 1048576, "read", "", 100);
	struct rr_pub p = pub_of("raid0", "x", "read", "bw", "1m", 25000);
	struct rr_proj x;
	rr_project_one(&x, NULL, &s, &p, NULL, prof, NULL);
	for (int i = 0; i < RR_NBOUNDS; i++)
		print_message("%-12s %g  %s\n", x.b[i].name, x.b[i].value, x.b[i].how);
	assert_close(x.b[0].value, 40000, 1e-6);
	assert_close(x.b[1].value, 4 * 1.969 * 4 * 1000, 1e-6);
	assert_close(x.b[2].value, 1.969 * 8 * 1000 * 2, 1e-6);
	assert_close(x.b[3].value, 20000, 1e-6);
	assert_close(x.b[4].value, 100000, 1e-6);
	assert_close(x.b[5].value, 16 * 1e6 / 100 * 1.048576, 1e-6);
	assert_string_equal(x.b[x.binding].name, "inter-socket");
	assert_close(x.projected, 20000, 1e-6);
	assert_close(x.margin, 31504.0 / 20000, 1e-3);
	assert_close(x.ratio, 20000.0 / 25000, 1e-6);
	assert_true(isnan(x.b[8].value)); /* the latency of 1 in flight does not carry to 64 */

	/* RAID5 4K random writes: 4 member I/Os (2 reads, 2 writes) per I/O on the drives:
	 * 4 / (2/1e6 + 2/2e5) = 333333 IOPS; the CPU, 16 cores / 80 us = 200000, binds */
	s = test_of(5, 4096, "randwrite", "cpu", 80);
	p = pub_of("raid5", "x", "randwrite", "iops", "4k", 100000);
	rr_project_one(&x, NULL, &s, &p, NULL, prof, NULL);
	assert_close(x.b[0].value, 4 / (2 / 1e6 + 2 / 2e5), 1e-6);
	assert_close(x.b[5].value, 200000, 1e-6);
	assert_string_equal(x.b[x.binding].name, "cpu");
	assert_close(x.margin, x.b[0].value / 200000, 1e-6);
	json_object_put(prof);
}

/* Review C's kind of figure: RAID5 full-stripe writes with the GPU computing parity over a
 * Gen4 x16 link (31.5 GB/s each way) cannot reach 148 GB/s: flagged, and the projection of
 * a GPU-path test binds on that link. */
static void published_gpu_limit(void **state)
{
	struct rr_pubset set = {0};
	struct rr_run run;
	char err[512];
	/* drives, their links, the ports, memory and the socket link out of the way: the GPU
	 * link is the narrowest path */
	json_object *prof = json_tokener_parse(
	    "{\"name\": \"t\", \"sockets\": 1, \"numa_nodes\": [{\"node\": 0, \"socket\": 0, "
	    "\"cores\": 8}], \"memory_bw_gbps\": 1000,"
	    " \"drives\": {\"d\": {\"seq_read_mbps\": 100000, \"seq_write_mbps\": 50000,"
	    "   \"link\": {\"gen\": 5, \"width\": 16}}},"
	    " \"root_ports\": {\"p0\": {\"gen\": 5, \"width\": 16}},"
	    " \"bays\": [{\"bay\": 0, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"},"
	    "  {\"bay\": 1, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"},"
	    "  {\"bay\": 2, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"},"
	    "  {\"bay\": 3, \"numa_node\": 0, \"root_port\": \"p0\", \"drive\": \"d\"}],"
	    " \"gpu\": {\"model\": \"g\", \"pcie\": {\"gen\": 4, \"width\": 16}}}");
	assert_non_null(prof);
	assert_int_equal(rr_run_load(FIXTURE, &run, err, sizeof(err)), 0);
	struct rr_pub rows[2] = {pub_of("raid5", "graid", "write", "bw", "1m", 148000),
				 pub_of("raid5", "graid", "write", "bw", "1m", 5000)};
	for (int i = 0; i < 2; i++) {
		rows[i].workload = "SEQ1M-Q8T64";
		rows[i].drives = 4;
	}
	set.rows = rows;
	set.n = 2;
	/* the fixture's RAID5 x4 1M write, measured on the CPU path, stands for the GPU one */
	struct rr_test *t = (struct rr_test *)rr_run_find(&run, "raid5-4-SEQ1M-Q8T64-write");
	free(t->parity);
	t->parity = strdup("cuda");
	assert_int_equal(rr_analyse(&run, &set, prof, 0, err, sizeof(err)), 0);
	size_t flagged = 0, seen = 0;
	for (size_t i = 0; i < run.an->nproj - run.an->nself; i++) {
		const struct rr_proj *x = &run.an->proj[i];
		if (x->src != t)
			continue;
		seen++;
		print_message("%g: projected %g (%s), flag '%s'\n", x->published, x->projected,
			      x->b[x->binding].name, x->flag);
		if (x->published == 148000) {
			assert_string_equal(x->b[x->binding].name, "gpu link");
			assert_non_null(strstr(x->flag, "gpu link"));
			assert_non_null(strstr(x->flag, "GPU-computed parity"));
			flagged++;
		} else {
			assert_string_equal(x->flag, "");
		}
		assert_true(isfinite(x->projected));
	}
	assert_int_equal(seen, 2);
	assert_int_equal(flagged, 1);
	json_object_put(prof);
	rr_run_free(&run);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(model_matches_engine_stats), cmocka_unit_test(textbook_counts),
	    cmocka_unit_test(efficiency_against_jbod),	  cmocka_unit_test(above_bound_named),	  cmocka_unit_test(projection_bounds),
	    cmocka_unit_test(published_gpu_limit),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
