/* report/model/repeats.c: a repeated test's repetitions (run.sh --repeat N writes
 * tests/<test>@K.*, meta "test", "repeat", "repeats"; results/README.md) grouped under one
 * test whose figures are their medians, each figure's range over them, and the run seen one
 * repetition at a time (the gate pairs repetition K of a test with repetition K of its JBOD
 * and RAID0, measured minutes apart rather than a whole run apart). */
#include "report/model/model.h"

#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* every figure a repeated test reports as the median of its repetitions */
static const size_t fields[] = {
    offsetof(struct rr_test, iops),		  offsetof(struct rr_test, mbps),
    offsetof(struct rr_test, lat_mean_us),	  offsetof(struct rr_test, lat_p50_us),
    offsetof(struct rr_test, lat_p99_us),	  offsetof(struct rr_test, lat_p999_us),
    offsetof(struct rr_test, lat_p9999_us),	  offsetof(struct rr_test, cpu_usr),
    offsetof(struct rr_test, cpu_sys),		  offsetof(struct rr_test, cpu_us_per_io),
    offsetof(struct rr_test, host_cpu_us_per_io), offsetof(struct rr_test, host_cpu_cores),
    offsetof(struct rr_test, fio_cpu_us_per_io),  offsetof(struct rr_test, fio_cpu_cores),
    offsetof(struct rr_test, member_ios_per_io),  offsetof(struct rr_test, parity_gbps),
    offsetof(struct rr_test, gpu_stripes_per_launch), offsetof(struct rr_test, rebuild_s),
    offsetof(struct rr_test, rebuild_mbps),	  offsetof(struct rr_test, rebuild_min_per_tb),
    offsetof(struct rr_test, st_volume_ios),	  offsetof(struct rr_test, st_member_ios),
    offsetof(struct rr_test, st_parity_bytes),	  offsetof(struct rr_test, st_parity_ns),
};

static double field(const struct rr_test *t, size_t off)
{
	return *(const double *)((const char *)t + off);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_repeat(const void *a, const void *b)
{
	return ((const struct rr_test *)a)->repeat - ((const struct rr_test *)b)->repeat;
}

/* the median of the repetitions' values that are numbers (NAN when none is) */
static double median_of(const struct rr_test *reps, size_t n, size_t off, double *buf)
{
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (!isnan(field(&reps[i], off)))
			buf[k++] = field(&reps[i], off);
	if (!k)
		return NAN;
	qsort(buf, k, sizeof(*buf), cmp_double);
	return k % 2 ? buf[k / 2] : (buf[k / 2 - 1] + buf[k / 2]) / 2;
}

/* g holds its name and repetitions: it becomes a shallow copy of the repetition whose main
 * figure is the median (the lower one of an even count), every figure then the median */
static void group_fill(struct rr_test *g)
{
	char *name = g->test;
	struct rr_test *reps = g->reps;
	size_t n = g->nreps, rep = 0;
	double *buf = calloc(n, sizeof(*buf));
	if (!buf)
		abort();
	qsort(reps, n, sizeof(*reps), cmp_repeat);
	double med = median_of(reps, n, offsetof(struct rr_test, iops), buf);
	if (reps[0].bs >= 65536)
		med = median_of(reps, n, offsetof(struct rr_test, mbps), buf);
	for (size_t i = 1; i < n; i++)
		if (fabs(rr_primary(&reps[i]) - med) < fabs(rr_primary(&reps[rep]) - med))
			rep = i;
	*g = reps[rep];
	g->test = name;
	g->reps = reps;
	g->nreps = n;
	g->repeats = (int)n;
	g->repeat = 0;
	g->hosts = NULL;
	g->nhosts = 0;
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		*(double *)((char *)g + fields[i]) = median_of(reps, n, fields[i], buf);
	free(buf);
}

void rr_repeats_group(struct rr_run *run)
{
	struct rr_test *nt = calloc(run->ntests + 1, sizeof(*nt));
	size_t out = 0;
	if (!nt)
		abort();
	for (size_t i = 0; i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		const char *name = rr_jstr(rr_jget(t->meta_json, "test"));
		double planned = rr_jnum(rr_jget(t->meta_json, "repeats"));
		double k = rr_jnum(rr_jget(t->meta_json, "repeat"));
		t->repeat = isnan(k) ? 1 : (int)k;
		t->repeats = 1;
		if (!(planned > 1) || !*name || *t->host) {
			nt[out++] = *t;
			continue;
		}
		struct rr_test *g = NULL;
		for (size_t j = 0; j < out && !g; j++)
			if (nt[j].reps && !strcmp(nt[j].test, name))
				g = &nt[j];
		if (!g) {
			g = &nt[out++];
			g->test = strdup(name);
			if (!g->test)
				abort();
		}
		g->reps = realloc(g->reps, (g->nreps + 1) * sizeof(*g->reps));
		if (!g->reps)
			abort();
		/* a repetition goes by its test's name, so that its figures pair with the
		 * other tests' repetitions (rr_run_views) */
		free(t->test);
		t->test = strdup(name);
		if (!t->test)
			abort();
		g->reps[g->nreps++] = *t;
	}
	for (size_t j = 0; j < out; j++)
		if (nt[j].reps)
			group_fill(&nt[j]);
	free(run->tests);
	run->tests = nt;
	run->ntests = out;
}

void rr_test_range(const struct rr_test *t, size_t off, double *lo, double *hi)
{
	*lo = *hi = field(t, off);
	for (size_t i = 0; i < t->nreps; i++) {
		double v = field(&t->reps[i], off);
		if (isnan(v))
			continue;
		if (isnan(*lo) || v < *lo)
			*lo = v;
		if (isnan(*hi) || v > *hi)
			*hi = v;
	}
}

size_t rr_run_views(const struct rr_run *run, struct rr_run **views)
{
	size_t n = 1;
	for (size_t i = 0; i < run->ntests; i++)
		if (run->tests[i].nreps > n)
			n = run->tests[i].nreps;
	struct rr_run *v = calloc(n, sizeof(*v));
	if (!v)
		abort();
	for (size_t k = 0; k < n; k++) {
		v[k] = *run;
		v[k].an = NULL;
		v[k].tests = calloc(run->ntests + 1, sizeof(*v[k].tests));
		if (!v[k].tests)
			abort();
		for (size_t i = 0; i < run->ntests; i++) {
			const struct rr_test *t = &run->tests[i];
			struct rr_test *c = &v[k].tests[i];
			*c = t->nreps ? t->reps[k < t->nreps ? k : t->nreps - 1] : *t;
			c->reps = NULL;
			c->nreps = 0;
		}
	}
	*views = v;
	return n;
}

void rr_run_views_free(struct rr_run *views, size_t n)
{
	for (size_t k = 0; k < n; k++)
		free(views[k].tests);
	free(views);
}
