/* report/render/compare.c: raid-report --compare RUN_A RUN_B. Matches tests by id and writes, per
 * test and figure, A, B and the change from A to B: compare.csv, the same table on stdout,
 * and a chart of the change of each test's main figure (MB/s for bs >= 64k, else IOPS). A
 * figure is its median over the test's repetitions, shown with their range and count ("n=1"
 * for a test run once): a change whose ranges overlap is within the runs' own noise. */
#include "report/render/render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

struct metric {
	const char *name;
	size_t off;
	int lower_better;
};
static const struct metric metrics[] = {
    {"iops", offsetof(struct rr_test, iops), 0},
    {"mbps", offsetof(struct rr_test, mbps), 0},
    {"lat_mean_us", offsetof(struct rr_test, lat_mean_us), 1},
    {"lat_p99_us", offsetof(struct rr_test, lat_p99_us), 1},
    {"lat_p99.99_us", offsetof(struct rr_test, lat_p9999_us), 1},
    {"cpu_sys_pct", offsetof(struct rr_test, cpu_sys), 1},
    {"host_cpu_us_per_io", offsetof(struct rr_test, host_cpu_us_per_io), 1},
    {"vs_md", offsetof(struct rr_test, vs_md), 0},
    {"vs_ublk", offsetof(struct rr_test, vs_ublk), 0},
    {"member_ios_per_io", offsetof(struct rr_test, member_ios_per_io), 1},
    {"parity_gbps", offsetof(struct rr_test, parity_gbps), 0},
};

static double val(const struct rr_test *t, const struct metric *m)
{
	return *(const double *)((const char *)t + m->off);
}

static int chart(const struct rr_run *a, const struct rr_run *b, const char *outdir)
{
	char p[4096];
	snprintf(p, sizeof(p), "%s/compare.dat", outdir);
	FILE *dat = fopen(p, "w");
	snprintf(p, sizeof(p), "%s/compare.gp", outdir);
	FILE *gp = fopen(p, "w");
	if (!dat || !gp) {
		if (dat)
			fclose(dat);
		if (gp)
			fclose(gp);
		return -EIO;
	}
	size_t n = 0;
	double lim = 5;
	for (size_t i = b->ntests; i-- > 0;) {
		const struct rr_test *tb = &b->tests[i], *ta = rr_run_find(a, tb->test);
		if (!ta)
			continue;
		double va = rr_is_large(ta) ? ta->mbps : ta->iops;
		double vb = rr_is_large(tb) ? tb->mbps : tb->iops;
		if (!(va > 0) || isnan(vb))
			continue;
		double chg = 100 * (vb - va) / va;
		fprintf(dat, "%zu\t%s (%s)\t%.4g\n", n++, tb->test,
			rr_is_large(tb) ? "MB/s" : "IOPS", chg);
		lim = fmax(lim, fabs(chg));
	}
	int written = rr_close(dat) == 0;
	int h = 160 + 22 * (int)n;
	fprintf(gp,
		"set datafile separator '\\t'\nset style fill solid 0.8 noborder\n"
		"set grid xtics\nset key off\nset xrange [%g:%g]\nset yrange [-0.7:%zu.7]\n"
		"set xlabel 'change from A to B (%%)'\n"
		"set title \"%s (A) -> %s (B): main figure per test\"\n",
		-lim * 1.3, lim * 1.3, n ? n - 1 : 0, a->id, b->id);
	for (int pass = 0; pass < 2; pass++) {
		fprintf(gp,
			"set terminal %s size 1000,%d font 'sans,10'\nset output 'compare.%s'\n",
			pass ? "svg" : rr_png_terminal(), h, pass ? "svg" : "png");
		fprintf(gp,
			"plot 'compare.dat' using (0):1:(0):3:($1-0.38):($1+0.38):($3<0?0xd62728:"
			"0x2ca02c):ytic(2) with boxxyerror lc rgb variable, '' using 3:1:(sprintf("
			"' %%+.1f%%%%', $3)) with labels left font ',8'\n");
	}
	fprintf(gp, "unset output\n");
	if ((rr_close(gp) || !written) && n)
		return -EIO;
	if (!n)
		return -ENOENT;
	return rr_gnuplot(outdir, "compare.gp") == 0 ? 0 : -EIO;
}

/* "median [min, max] n=N", or "median n=1" */
static void fig_text(char *buf, size_t len, const struct rr_test *t, const struct metric *m)
{
	double lo, hi, v = val(t, m);
	rr_test_range(t, m->off, &lo, &hi);
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (t->repeats > 1)
		snprintf(buf, len, "%.6g [%.4g, %.4g] n=%d", v, lo, hi, t->repeats);
	else
		snprintf(buf, len, "%.6g n=1", v);
}

static void csv_range(FILE *csv, const struct rr_test *t, const struct metric *m)
{
	double lo, hi;
	rr_test_range(t, m->off, &lo, &hi);
	fputc(',', csv);
	rr_csv_num(csv, lo);
	fputc(',', csv);
	rr_csv_num(csv, hi);
	fprintf(csv, ",%d", t->repeats > 1 ? t->repeats : 1);
}

/* one test's (or one host's) figures in A and B: a CSV row and a table row per figure */
static void compare_pair(FILE *csv, FILE *out, const char *id, const struct rr_test *ta,
			 const struct rr_test *tb)
{
	for (size_t m = 0; m < sizeof(metrics) / sizeof(metrics[0]); m++) {
		double va = val(ta, &metrics[m]), vb = val(tb, &metrics[m]);
		if (isnan(va) && isnan(vb))
			continue;
		double chg = va != 0 ? 100 * (vb - va) / va : NAN;
		int better = isnan(chg) ? 0 : metrics[m].lower_better ? chg < 0 : chg > 0;
		rr_csv_str(csv, id);
		fprintf(csv, ",%s,", metrics[m].name);
		rr_csv_num(csv, va);
		fputc(',', csv);
		rr_csv_num(csv, vb);
		fputc(',', csv);
		rr_csv_num(csv, chg);
		fprintf(csv, ",%s", isnan(chg) || chg == 0 ? "" : better ? "B" : "A");
		csv_range(csv, ta, &metrics[m]);
		csv_range(csv, tb, &metrics[m]);
		double alo, ahi, blo, bhi;
		rr_test_range(ta, metrics[m].off, &alo, &ahi);
		rr_test_range(tb, metrics[m].off, &blo, &bhi);
		int apart = blo > ahi || bhi < alo;
		fprintf(csv, ",%s\n", isnan(chg) ? "" : apart ? "yes" : "no");
		char c[32] = "", a[80], b[80];
		if (!isnan(chg))
			snprintf(c, sizeof(c), "%+.1f%%", chg);
		fig_text(a, sizeof(a), ta, &metrics[m]);
		fig_text(b, sizeof(b), tb, &metrics[m]);
		fprintf(out, "%-48s %-18s %-32s %-32s %9s\n", id, metrics[m].name, a, b, c);
	}
}

int rr_compare(const struct rr_run *a, const struct rr_run *b, const char *outdir, FILE *out,
	       char *err, size_t errlen)
{
	char p[4096];
	int rc = rr_mkdir(outdir);
	if (rc < 0) {
		snprintf(err, errlen, "%s: %s", outdir, strerror(-rc));
		return rc;
	}
	snprintf(p, sizeof(p), "%s/compare.csv", outdir);
	FILE *csv = fopen(p, "w");
	if (!csv) {
		snprintf(err, errlen, "%s: %s", p, strerror(errno));
		return -errno;
	}
	fprintf(csv, "test,metric,a,b,change_pct,better,a_min,a_max,a_n,b_min,b_max,b_n,"
		     "ranges_apart\n");
	fprintf(out, "compare: A = %s (%s), B = %s (%s)\n", a->id, a->host, b->id, b->host);
	fprintf(out, "%-48s %-18s %-32s %-32s %9s\n", "test", "metric", "A", "B", "change");
	size_t matched = 0;
	for (size_t i = 0; i < b->ntests; i++) {
		const struct rr_test *tb = &b->tests[i], *ta = rr_run_find(a, tb->test);
		if (!ta) {
			fprintf(out, "%-48s only in B\n", tb->test);
			continue;
		}
		matched++;
		compare_pair(csv, out, tb->test, ta, tb);
		/* multi-host runs: the hosts both runs had, each on its own row ("<test> @<host>")
		 */
		for (size_t h = 0; h < tb->nhosts; h++)
			for (size_t k = 0; k < ta->nhosts; k++) {
				if (strcmp(ta->hosts[k].host, tb->hosts[h].host))
					continue;
				char id[512];
				snprintf(id, sizeof(id), "%s @%s", tb->test, tb->hosts[h].host);
				compare_pair(csv, out, id, &ta->hosts[k], &tb->hosts[h]);
			}
	}
	for (size_t i = 0; i < a->ntests; i++)
		if (!rr_run_find(b, a->tests[i].test))
			fprintf(out, "%-48s only in A\n", a->tests[i].test);
	if (rr_close(csv)) {
		snprintf(err, errlen, "%s/compare.csv: write failed", outdir);
		return -EIO;
	}
	if (!matched) {
		snprintf(err, errlen, "%s and %s have no test id in common", a->dir, b->dir);
		return -ENOENT;
	}
	rc = chart(a, b, outdir);
	if (rc < 0)
		fprintf(stderr, "raid-report: compare chart not drawn (see %s/compare.gp.log)\n",
			outdir);
	fprintf(out, "compare: %zu tests matched; written %s/compare.csv%s\n", matched, outdir,
		rc == 0 ? " and compare.png/.svg" : "");
	return 0;
}
