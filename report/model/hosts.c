/* report/model/hosts.c: multi-host runs (run.sh --hosts, fio's client/server mode). Each test's
 * fio output holds every host's jobs; run.sh also writes each host's share as
 * tests/<test>@<host>.{json,meta.json} (meta "host") and the engine's stats of that host
 * beside it. The test itself is the aggregate: IOPS and bandwidth summed over every host's
 * jobs, latency percentiles from all hosts' clat bins merged (never an average of
 * percentiles), engine counters summed before they are divided. This file attaches the
 * per-host rows to their test and derives the aggregate's engine figures; hosts.csv, the
 * page's per-host table and the spread chart are report/render/hosts_out.c. */
#include "report/model/model.h"

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
