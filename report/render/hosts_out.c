/* report/render/hosts_out.c: a multi-host run's per-host figures out of the report: hosts.csv,
 * summary.json's "hosts" arrays, the page's per-host table and the per-host spread chart (the
 * rows themselves are put under their test by report/model/hosts.c). */
#include "report/render/render.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The columns of hosts.csv and of the page's per-host table */
struct hcol {
	const char *name;
	size_t off;
	int pct; /* 1: lat's percentile (empty where fio recorded clat's), 2: clat's */
};
static const struct hcol hcols[] = {
    {"iops", offsetof(struct rr_test, iops), 0},
    {"mbps", offsetof(struct rr_test, mbps), 0},
    {"lat_mean_us", offsetof(struct rr_test, lat_mean_us), 0},
    {"lat_p50_us", offsetof(struct rr_test, lat_p50_us), 1},
    {"lat_p99_us", offsetof(struct rr_test, lat_p99_us), 1},
    {"lat_p99.9_us", offsetof(struct rr_test, lat_p999_us), 1},
    {"lat_p99.99_us", offsetof(struct rr_test, lat_p9999_us), 1},
    {"clat_p50_us", offsetof(struct rr_test, lat_p50_us), 2},
    {"clat_p99_us", offsetof(struct rr_test, lat_p99_us), 2},
    {"clat_p99.9_us", offsetof(struct rr_test, lat_p999_us), 2},
    {"clat_p99.99_us", offsetof(struct rr_test, lat_p9999_us), 2},
    {"cpu_usr_pct", offsetof(struct rr_test, cpu_usr), 0},
    {"cpu_sys_pct", offsetof(struct rr_test, cpu_sys), 0},
    {"member_ios_per_io", offsetof(struct rr_test, member_ios_per_io), 0},
    {"parity_gbps", offsetof(struct rr_test, parity_gbps), 0},
};
#define NHCOLS (sizeof(hcols) / sizeof(hcols[0]))

static double hval(const struct rr_test *t, size_t c)
{
	if ((hcols[c].pct == 1 && t->pct_clat) || (hcols[c].pct == 2 && !t->pct_clat))
		return NAN;
	return *(const double *)((const char *)t + hcols[c].off);
}

static void csv_row(FILE *f, const struct rr_test *t, const char *host)
{
	rr_csv_str(f, t->test);
	fputc(',', f);
	rr_csv_str(f, host);
	for (size_t c = 0; c < NHCOLS; c++) {
		fputc(',', f);
		rr_csv_num(f, hval(t, c));
	}
	fputc('\n', f);
}

/* hosts.csv: per test, one row per host and one "all" row, the sum the summary shows */
int rr_write_hosts_csv(const struct rr_run *run, char *err, size_t errlen)
{
	if (!run->multi_host)
		return 0;
	FILE *f = rr_out_open(run, "hosts.csv", err, errlen);
	if (!f)
		return -EIO;
	fputs("test,host", f);
	for (size_t c = 0; c < NHCOLS; c++)
		fprintf(f, ",%s", hcols[c].name);
	fputc('\n', f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		for (size_t h = 0; h < t->nhosts; h++)
			csv_row(f, &t->hosts[h], t->hosts[h].host);
		if (t->nhosts)
			csv_row(f, t, "all");
	}
	return rr_out_close(f, run, "hosts.csv", err, errlen);
}

json_object *rr_hosts_json(const struct rr_test *t)
{
	json_object *a = json_object_new_array();
	for (size_t h = 0; h < t->nhosts; h++) {
		json_object *o = rr_test_json(&t->hosts[h]);
		json_object_object_add(o, "host", json_object_new_string(t->hosts[h].host));
		json_object_array_add(a, o);
	}
	return a;
}

void rr_html_hosts(FILE *f, const struct rr_run *run)
{
	if (!run->multi_host)
		return;
	fputs(
	    "<h2 id=hosts>Hosts</h2>\n<p>Every test ran on all hosts at once (fio client/server). "
	    "Per test, one row per host and the sum over them (<b>all</b>): IOPS and MB/s "
	    "added up, latency percentiles from every host's clat bins merged, member I/Os "
	    "per I/O and parity GB/s from the hosts' engine counters added up. Spread: how "
	    "far the slowest host's main figure (MB/s for bs &ge; 64k, else IOPS) is below the "
	    "fastest's. Also as <a href=\"hosts.csv\">hosts.csv</a>.</p>\n"
	    "<div class=wide><table>\n<tr><th>test</th><th>host</th>",
	    f);
	for (size_t c = 0; c < NHCOLS; c++)
		fprintf(f, "<th>%s</th>", hcols[c].name);
	fputs("<th>spread %</th></tr>\n", f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		for (size_t h = 0; h <= t->nhosts && t->nhosts; h++) {
			const struct rr_test *r = h < t->nhosts ? &t->hosts[h] : t;
			fputs(h < t->nhosts ? "<tr>" : "<tr class=sum>", f);
			rr_html_td_str(f, t->test);
			rr_html_td_str(f, h < t->nhosts ? r->host : "all");
			for (size_t c = 0; c < NHCOLS; c++)
				rr_html_td_num(f, hval(r, c));
			rr_html_td_num(f, h < t->nhosts ? NAN : rr_hosts_spread_pct(t));
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
}

/* Each host's main figure as % of the hosts' mean, one colour per host: a host that lags
 * (a slower drive, a busier CPU, a NUMA-crossing array) stands out from the line at 100. */
void rr_chart_hosts(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	static const char name[] = "hosts_spread",
			  title[] = "Per-host spread: each host's MB/s (bs >= 64k) or IOPS as % of "
				    "the hosts' mean";
	if (!run->multi_host)
		return;
	FILE *dat, *gp;
	if (rr_chart_open(c, dir, name, title, &dat, &gp))
		return;
	/* hosts by name, in the order of the first test that has them all */
	const struct rr_test *ref = NULL;
	size_t row = 0, longest = 0;
	for (size_t i = 0; i < run->ntests; i++)
		if (!ref || run->tests[i].nhosts > ref->nhosts)
			ref = &run->tests[i];
	for (size_t h = 0; h < ref->nhosts; h++) {
		fprintf(dat, "# %s\n", ref->hosts[h].host);
		for (size_t i = run->ntests; i-- > 0;) {
			const struct rr_test *t = &run->tests[i];
			double mean = 0;
			const struct rr_test *mine = NULL;
			for (size_t k = 0; k < t->nhosts; k++) {
				mean += rr_primary(&t->hosts[k]) / t->nhosts;
				if (!strcmp(t->hosts[k].host, ref->hosts[h].host))
					mine = &t->hosts[k];
			}
			if (!t->nhosts || !(mean > 0))
				continue;
			double v = mine ? 100 * rr_primary(mine) / mean : NAN;
			fprintf(dat, "%zu\t%s (%s)\t%.4g\n", row++, t->test,
				rr_is_large(t) ? "MB/s" : "IOPS", v);
			longest = strlen(t->test) + 7 > longest ? strlen(t->test) + 7 : longest;
		}
		fputs("\n\n", dat);
		row = 0;
	}
	size_t n = 0;
	for (size_t i = 0; i < run->ntests; i++)
		n += run->tests[i].nhosts > 0;
	int w = 700 + 7 * (int)longest, h = 160 + 22 * (int)n;
	fprintf(gp, "set terminal %s size %d,%d font 'sans,10'\nset output '%s.png'\n",
		rr_png_terminal(), w, h, name);
	fprintf(gp,
		"set title \"%s\"\nset datafile separator '\\t'\nset grid xtics\n"
		"set key outside bottom center horizontal\nset yrange [-0.7:%zu.7]\n"
		"set xlabel \"%% of the hosts' mean\"\nset arrow from 100, graph 0 to 100, graph 1 "
		"nohead dt 2 lc rgb '#888888'\nplot ",
		title, n ? n - 1 : 0);
	for (size_t k = 0; k < ref->nhosts; k++)
		fprintf(
		    gp,
		    "%s'%s.dat' index %zu using 3:1:ytic(2) with points pt 7 ps 1.3 title \"%s\"",
		    k ? ", \\\n  " : "", name, k, ref->hosts[k].host);
	fprintf(gp, "\nset terminal svg size %d,%d font 'sans,10'\nset output '%s.svg'\nreplot\n",
		w, h, name);
	fputs("unset output\n", gp);
	rr_chart_finish(dir, c, name, title, dat, gp);
}
