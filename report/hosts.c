/* report/hosts.c: multi-host runs (run.sh --hosts, fio's client/server mode). Each test's
 * fio output holds every host's jobs; run.sh also writes each host's share as
 * tests/<test>@<host>.{json,meta.json} (meta "host") and the engine's stats of that host
 * beside it. The test itself is the aggregate: IOPS and bandwidth summed over every host's
 * jobs, latency percentiles from all hosts' clat bins merged (never an average of
 * percentiles), engine counters summed before they are divided. This file attaches the
 * per-host rows to their test, derives the aggregate's engine figures, and writes hosts.csv,
 * the page's per-host table and the per-host spread chart. */
#include "report/report.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int is_host_row(const struct rr_test *t)
{
	return t->host && *t->host;
}

/* The aggregate's engine figures from its hosts' counters (run.sh writes no stats file for
 * the aggregate: every host's engine writes its own). */
static void aggregate_stats(struct rr_test *t)
{
	double vol = 0, mem = 0, pb = 0, pns = 0, gpu = 0, rb_s = NAN, rb_mbps = NAN, rb_tb = NAN;
	size_t ngpu = 0, nstats = 0;
	for (size_t i = 0; i < t->nhosts; i++) {
		const struct rr_test *h = &t->hosts[i];
		if (!h->has_stats)
			continue;
		nstats++;
		/* a counter the stats file lacks is NAN: it adds nothing */
		vol += isnan(h->st_volume_ios) ? 0 : h->st_volume_ios;
		mem += isnan(h->st_member_ios) ? 0 : h->st_member_ios;
		pb += isnan(h->st_parity_bytes) ? 0 : h->st_parity_bytes;
		pns += isnan(h->st_parity_ns) ? 0 : h->st_parity_ns;
		if (!isnan(h->gpu_stripes_per_launch))
			gpu += h->gpu_stripes_per_launch, ngpu++;
		/* the rack is rebuilt when its slowest host is; its rate is the hosts' sum */
		rb_s = isnan(rb_s) ? h->rebuild_s : fmax(rb_s, h->rebuild_s);
		rb_tb = isnan(rb_tb) ? h->rebuild_min_per_tb : fmax(rb_tb, h->rebuild_min_per_tb);
		rb_mbps = isnan(h->rebuild_mbps) ? rb_mbps
			  : isnan(rb_mbps)	 ? h->rebuild_mbps
						 : rb_mbps + h->rebuild_mbps;
		if (!t->has_stats) {
			t->has_stats = 1;
			free(t->parity_impl);
			t->parity_impl = strdup(h->parity_impl ? h->parity_impl : "");
			if (*h->parity) {
				free(t->parity);
				t->parity = strdup(h->parity);
			}
			if (!t->parity_impl || !t->parity)
				abort();
		}
	}
	if (!nstats)
		return;
	t->st_volume_ios = vol, t->st_member_ios = mem;
	t->st_parity_bytes = pb, t->st_parity_ns = pns;
	t->member_ios_per_io = vol > 0 ? mem / vol : NAN;
	t->parity_gbps = pb > 0 && pns > 0 ? pb / pns : NAN;
	t->gpu_stripes_per_launch = ngpu ? gpu / ngpu : NAN;
	t->rebuild_s = rb_s, t->rebuild_mbps = rb_mbps, t->rebuild_min_per_tb = rb_tb;
}

static int host_cmp(const void *a, const void *b)
{
	return strcmp(((const struct rr_test *)a)->host, ((const struct rr_test *)b)->host);
}

void rr_hosts_attach(struct rr_run *run)
{
	/* first each host's row into its test (nothing moves), then the rows' slots closed up */
	char *row = calloc(run->ntests + 1, 1);
	if (!row)
		abort();
	for (size_t i = 0; i < run->ntests; i++)
		row[i] = is_host_row(&run->tests[i]);
	for (size_t i = 0; i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i], *agg = NULL;
		if (!row[i])
			continue;
		for (size_t k = 0; k < run->ntests && !agg; k++)
			if (!row[k] && !strcmp(run->tests[k].test, t->test))
				agg = &run->tests[k];
		if (!agg) {
			fprintf(
			    stderr,
			    "raid-report: warning: %s/tests/%s@...: a host's result without its "
			    "test, left out\n",
			    run->dir, t->test);
			rr_test_free(t);
			continue;
		}
		agg->hosts = realloc(agg->hosts, (agg->nhosts + 1) * sizeof(*agg->hosts));
		if (!agg->hosts)
			abort();
		agg->hosts[agg->nhosts++] = *t;
	}
	size_t o = 0;
	for (size_t i = 0; i < run->ntests; i++)
		if (!row[i])
			run->tests[o++] = run->tests[i];
	run->ntests = o;
	free(row);
	for (size_t i = 0; i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		if (!t->nhosts)
			continue;
		qsort(t->hosts, t->nhosts, sizeof(*t->hosts), host_cmp);
		run->multi_host = 1;
		if (!t->has_stats)
			aggregate_stats(t);
	}
}

static double primary(const struct rr_test *t)
{
	return rr_is_large(t) ? t->mbps : t->iops;
}

/* The columns of hosts.csv and of the page's per-host table */
struct hcol {
	const char *name;
	size_t off;
};
static const struct hcol hcols[] = {
    {"iops", offsetof(struct rr_test, iops)},
    {"mbps", offsetof(struct rr_test, mbps)},
    {"lat_mean_us", offsetof(struct rr_test, lat_mean_us)},
    {"lat_p50_us", offsetof(struct rr_test, lat_p50_us)},
    {"lat_p99_us", offsetof(struct rr_test, lat_p99_us)},
    {"lat_p99.9_us", offsetof(struct rr_test, lat_p999_us)},
    {"lat_p99.99_us", offsetof(struct rr_test, lat_p9999_us)},
    {"cpu_usr_pct", offsetof(struct rr_test, cpu_usr)},
    {"cpu_sys_pct", offsetof(struct rr_test, cpu_sys)},
    {"member_ios_per_io", offsetof(struct rr_test, member_ios_per_io)},
    {"parity_gbps", offsetof(struct rr_test, parity_gbps)},
};
#define NHCOLS (sizeof(hcols) / sizeof(hcols[0]))

static double hval(const struct rr_test *t, size_t c)
{
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

/* how far apart the hosts are: the slowest host's main figure against the fastest's */
static double spread_pct(const struct rr_test *t)
{
	double lo = INFINITY, hi = 0;
	for (size_t h = 0; h < t->nhosts; h++) {
		lo = fmin(lo, primary(&t->hosts[h]));
		hi = fmax(hi, primary(&t->hosts[h]));
	}
	return hi > 0 ? 100 * (hi - lo) / hi : NAN;
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
			rr_html_td_num(f, h < t->nhosts ? NAN : spread_pct(t));
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
				mean += primary(&t->hosts[k]) / t->nhosts;
				if (!strcmp(t->hosts[k].host, ref->hosts[h].host))
					mine = &t->hosts[k];
			}
			if (!t->nhosts || !(mean > 0))
				continue;
			double v = mine ? 100 * primary(mine) / mean : NAN;
			fprintf(dat, "%zu\t%s (%s)\t%.4g\n", row++, t->test,
				rr_is_large(t) ? "MB/s" : "IOPS", v);
			longest = strlen(t->test) + 7 > longest ? strlen(t->test) + 7 : longest;
		}
		fputs("\n\n", dat);
		row = 0;
	}
	fclose(dat);
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
	fclose(gp);
	rr_chart_finish(dir, c, name, title);
}
