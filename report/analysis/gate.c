/* report/analysis/gate.c: the figures a run is judged by, their medians over the runs that
 * make a baseline, and the regression gate's verdicts (numbers only: report/render/gate_out.c
 * writes the baseline file, the table and JUnit). Ratios measured within one run (RAID level
 * against RAID0 on the same members, engine against JBOD, parity GB/s against memory bandwidth,
 * member I/Os per volume I/O) carry across machines and are always gated; absolute figures are
 * gated only against a baseline recorded on the same host, and reported otherwise. */
#include "report/analysis/analysis.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fig_add(struct rr_figures *fs, const char *kind, const char *better, const char *unit,
		    double v, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fig_add(struct rr_figures *fs, const char *kind, const char *better, const char *unit,
		    double v, const char *fmt, ...)
{
	if (isnan(v) || isinf(v) || v <= 0)
		return;
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? fs->cap * 2 : 64;
		fs->f = realloc(fs->f, fs->cap * sizeof(*fs->f));
		if (!fs->f)
			abort();
	}
	struct rr_figure *f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->id, sizeof(f->id), fmt, ap);
	va_end(ap);
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	snprintf(f->better, sizeof(f->better), "%s", better);
	snprintf(f->unit, sizeof(f->unit), "%s", unit);
	f->value = v;
}

void rr_figures_free(struct rr_figures *f)
{
	free(f->f);
	memset(f, 0, sizeof(*f));
}

/* the same I/O pattern on the same number of drives */
static int same_pattern(const struct rr_test *a, const struct rr_test *b)
{
	return a->members == b->members && a->bs == b->bs && a->iodepth == b->iodepth &&
	       a->numjobs == b->numjobs && !strcmp(a->rw, b->rw) &&
	       !strcmp(a->workload, b->workload);
}

void rr_figures_of_run(const struct rr_run *run, struct rr_figures *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		int jbod = !strcmp(rr_level_name(t), "jbod");
		fig_add(out, "absolute", "higher", rr_is_large(t) ? "MB/s" : "IOPS", rr_primary(t),
			"%s %s", t->test, rr_is_large(t) ? "MB/s" : "IOPS");
		fig_add(out, "absolute", "lower", "us", t->lat_mean_us, "%s lat_mean_us", t->test);
		fig_add(out, "ratio", "lower", "x", t->member_ios_per_io, "%s member_ios_per_io",
			t->test);
		fig_add(out, "ratio", "higher", "x", t->parity_gbps / run->mem_bw_gbps,
			"%s parity_gbps/mem_bw", t->test);
		/* multi-host runs: each host on its own too, so that one lagging host shows */
		for (size_t h = 0; h < t->nhosts; h++) {
			const struct rr_test *r = &t->hosts[h];
			fig_add(out, "absolute", "higher", rr_is_large(t) ? "MB/s" : "IOPS",
				rr_primary(r), "%s @%s %s", t->test, r->host,
				rr_is_large(t) ? "MB/s" : "IOPS");
			fig_add(out, "ratio", "lower", "x", r->member_ios_per_io,
				"%s @%s member_ios_per_io", t->test, r->host);
		}
		if (jbod)
			continue;
		/* md on the same members, where the run has it: the reference the reviews used */
		const struct rr_test *md = rr_md_twin(run, t);
		if (md) {
			fig_add(out, "ratio", "higher", "x", t->vs_md, "%s / %s", t->test,
				md->test);
			fig_add(out, "ratio", "lower", "x",
				t->host_cpu_us_per_io / md->host_cpu_us_per_io,
				"%s host_cpu_per_io / %s", t->test, md->test);
		}
		for (size_t k = 0; k < run->ntests; k++) {
			const struct rr_test *o = &run->tests[k];
			if (o == t || !same_pattern(t, o))
				continue;
			/* a level is set against RAID0 of its own target; JBOD serves them all */
			if (strcmp(rr_level_name(o), "jbod") && strcmp(o->target, t->target))
				continue;
			if (!strcmp(rr_level_name(o), "jbod") && !strcmp(o->state, "optimal"))
				fig_add(out, "ratio", "higher", "x", rr_primary(t) / rr_primary(o),
					"%s / %s", t->test, o->test);
			else if (t->level != 0 && o->level == 0 && o->chunk == t->chunk &&
				 !strcmp(o->state, t->state)) {
				fig_add(out, "ratio", "higher", "x", rr_primary(t) / rr_primary(o),
					"%s / %s", t->test, o->test);
				/* CPU per I/O moves far less with a busy machine than throughput */
				fig_add(out, "ratio", "lower", "x",
					t->cpu_us_per_io / o->cpu_us_per_io, "%s cpu_per_io / %s",
					t->test, o->test);
			}
		}
	}
}

/* What absolute figures depend on besides the host: the machine behind the host name and
 * the run's settings. Absolute figures are gated only when all of it is the same. */
json_object *rr_run_conditions(const struct rr_run *run)
{
	static const char *const keys[][2] = {{"host", "cpu_model"},	{"host", "cores"},
					      {"host", "memory_bytes"}, {"scale", NULL},
					      {"runtime_s", NULL},	{"member_size", NULL},
					      {"options", "drives"},	{"options", "hosts"}};
	json_object *c = json_object_new_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v = NULL;
		if (!run->run_json || !json_object_object_get_ex(run->run_json, keys[i][0], &v))
			continue;
		if (keys[i][1] && !json_object_object_get_ex(v, keys[i][1], &v))
			continue;
		char k[64];
		snprintf(k, sizeof(k), "%s%s%s", keys[i][0], keys[i][1] ? "." : "",
			 keys[i][1] ? keys[i][1] : "");
		json_object_object_add(c, k, json_object_new_string(json_object_get_string(v)));
	}
	return c;
}

/* The keys of a (in the baseline) that differ in b (this run), comma-separated; "" when none */
static void conditions_diff(json_object *a, json_object *b, char *out, size_t len)
{
	out[0] = '\0';
	if (!a)
		return;
	json_object_object_foreach(a, k, v)
	{
		json_object *w = NULL;
		if (json_object_object_get_ex(b, k, &w) &&
		    !strcmp(json_object_get_string(v), json_object_get_string(w)))
			continue;
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? ", " : "", k);
	}
}

/* The machine facts of run.json's host that differ between two runs, like conditions_diff;
 * "" when they are the same machine (or neither recorded it). */
void rr_host_diff(const struct rr_run *a, const struct rr_run *b, char *out, size_t len)
{
	static const char *const keys[] = {"hostname", "cpu_model", "cores", "memory_bytes"};
	out[0] = '\0';
	json_object *ha = NULL, *hb = NULL;
	if (a->run_json)
		json_object_object_get_ex(a->run_json, "host", &ha);
	if (b->run_json)
		json_object_object_get_ex(b->run_json, "host", &hb);
	for (size_t i = 0; (ha || hb) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *va = NULL, *vb = NULL;
		if (ha)
			json_object_object_get_ex(ha, keys[i], &va);
		if (hb)
			json_object_object_get_ex(hb, keys[i], &vb);
		const char *sa = va ? json_object_get_string(va) : "",
			   *sb = vb ? json_object_get_string(vb) : "";
		if (!strcmp(sa, sb))
			continue;
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? ", " : "", keys[i]);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A baseline of one or more runs of the same preset: each figure's median over the runs
 * that have it, and its spread: how far the worst run fell from the median (lower for
 * "higher is better", above for "lower is better"), as a fraction of the median. A figure
 * that spread more than max_spread is not gated: the machine that made the baseline could
 * not repeat it, so the gate reports it without judging it. */
size_t rr_baseline_figures(const struct rr_run *runs, size_t nruns, double max_spread,
			   struct rr_bfig **out)
{
	struct rr_figures *fs = calloc(nruns, sizeof(*fs));
	double *vals = calloc(nruns, sizeof(*vals));
	if (!fs || !vals)
		abort();
	for (size_t r = 0; r < nruns; r++)
		rr_figures_of_run(&runs[r], &fs[r]);
	struct rr_bfig *b = calloc(fs[0].n + 1, sizeof(*b));
	if (!b)
		abort();
	size_t nb = 0;
	for (size_t i = 0; i < fs[0].n; i++) {
		const struct rr_figure *f0 = &fs[0].f[i];
		size_t n = 0;
		for (size_t r = 0; r < nruns; r++)
			for (size_t k = 0; k < fs[r].n; k++)
				if (!strcmp(fs[r].f[k].id, f0->id)) {
					vals[n++] = fs[r].f[k].value;
					break;
				}
		if (n < nruns)
			continue; /* not in every run: no baseline for it */
		qsort(vals, n, sizeof(*vals), cmp_double);
		struct rr_bfig *o = &b[nb++];
		o->f = *f0;
		o->f.value = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
		double med = o->f.value;
		o->spread = !strcmp(f0->better, "higher") ? (med - vals[0]) / med
							  : (vals[n - 1] - med) / med;
		o->gate = o->spread <= max_spread;
	}
	for (size_t r = 0; r < nruns; r++)
		rr_figures_free(&fs[r]);
	free(fs);
	free(vals);
	*out = b;
	return nb;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

const char *const rr_verdict_names[] = {"ok",	     "REGRESSED", "MISSING",
					"not gated", "new",	  "noisy, not gated"};

/* The baseline file's header: its format, its figures, its preset, and whether its host and
 * settings are this run's (absolute figures are gated only then). */
static int judge_header(const struct rr_run *run, json_object *baseline, const char *bp,
			struct rr_gate_result *g, json_object **figs, char *err, size_t errlen)
{
	json_object *fmt = NULL;
	if (!json_object_object_get_ex(baseline, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_int) ||
	    json_object_get_int(fmt) != RR_BASELINE_FORMAT) {
		snprintf(err, errlen,
			 "%s: format %s is not a baseline format this raid-report reads (%d; "
			 "write one with raid-report baseline)",
			 bp, fmt ? json_object_to_json_string(fmt) : "(none)", RR_BASELINE_FORMAT);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(baseline, "figures", figs) ||
	    !json_object_is_type(*figs, json_type_array)) {
		snprintf(err, errlen,
			 "%s: no \"figures\" array (write one with raid-report baseline)", bp);
		return -EINVAL;
	}
	if (json_object_array_length(*figs) == 0) {
		snprintf(err, errlen, "%s: no figures: a baseline without figures gates nothing",
			 bp);
		return -EINVAL;
	}
	/* Another preset's figures are other tests: every one would be "missing" or "new". */
	const char *bpreset = jstr(baseline, "preset");
	if (!bpreset || strcmp(bpreset, run->preset)) {
		snprintf(err, errlen, "%s is a baseline of preset '%s', %s a run of preset '%s'",
			 bp, bpreset ? bpreset : "(none)", run->dir, run->preset);
		return -EINVAL;
	}
	g->brun = jstr(baseline, "run");
	g->bhost = jstr(baseline, "host");
	json_object *bcond = NULL, *rcond = rr_run_conditions(run);
	json_object_object_get_ex(baseline, "conditions", &bcond);
	conditions_diff(bcond, rcond, g->differ, sizeof(g->differ));
	json_object_put(rcond);
	g->same_host = g->bhost && *g->bhost && !strcmp(g->bhost, run->host) && !*g->differ;
	return 0;
}

/* One baseline figure against this run's; -EINVAL when the baseline's entry is not one (a
 * value that is no finite positive number would gate nothing and pass). */
static int judge_one(json_object *f, size_t i, const char *bp, const struct rr_figures *cur,
		     char *seen, double tol, int same_host, struct rr_gate_row *r, char *err,
		     size_t errlen)
{
	json_object *v = NULL, *g = NULL;
	const char *id = jstr(f, "id"), *kind = jstr(f, "kind"), *better = jstr(f, "better");
	if (!id || !kind || !better || !json_object_object_get_ex(f, "value", &v)) {
		snprintf(err, errlen, "%s: figure %zu lacks id, kind, better or value", bp, i);
		return -EINVAL;
	}
	r->base = json_object_get_double(v);
	if (!(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ||
	    !isfinite(r->base) || r->base <= 0) {
		snprintf(err, errlen, "%s: figure %zu (%s): value %s is not a positive number", bp,
			 i, id, json_object_to_json_string(v));
		return -EINVAL;
	}
	r->id = id;
	r->kind = kind;
	r->unit = jstr(f, "unit") ? jstr(f, "unit") : "";
	r->cur = NAN;
	r->v = RR_V_MISSING;
	for (size_t k = 0; k < cur->n; k++) {
		if (strcmp(cur->f[k].id, id))
			continue;
		seen[k] = 1;
		r->cur = cur->f[k].value;
		int worse = !strcmp(better, "higher") ? r->cur < r->base * (1 - tol)
						      : r->cur > r->base * (1 + tol);
		if (!strcmp(kind, "absolute") && !same_host)
			r->v = RR_V_NOT_GATED;
		else if (json_object_object_get_ex(f, "gate", &g) && !json_object_get_boolean(g))
			r->v = RR_V_NOISY;
		else
			r->v = worse ? RR_V_REGRESSED : RR_V_OK;
	}
	return 0;
}

int rr_gate_judge(const struct rr_run *run, json_object *baseline, double tolerance_pct,
		  const char *bp, struct rr_gate_result *g, char *err, size_t errlen)
{
	json_object *figs = NULL;
	memset(g, 0, sizeof(*g));
	if (judge_header(run, baseline, bp, g, &figs, err, errlen))
		return -EINVAL;
	rr_figures_of_run(run, &g->cur);
	size_t nb = json_object_array_length(figs);
	g->rows = calloc(nb + g->cur.n + 1, sizeof(*g->rows));
	char *seen = calloc(g->cur.n + 1, 1);
	if (!g->rows || !seen)
		abort();
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nb; i++)
		rc = judge_one(json_object_array_get_idx(figs, i), i, bp, &g->cur, seen,
			       tolerance_pct / 100, g->same_host, &g->rows[g->n++], err, errlen);
	for (size_t k = 0; rc == 0 && k < g->cur.n; k++) {
		if (seen[k])
			continue;
		g->rows[g->n++] =
		    (struct rr_gate_row){g->cur.f[k].id,    g->cur.f[k].kind, g->cur.f[k].unit, NAN,
					 g->cur.f[k].value, RR_V_NEW};
	}
	for (size_t i = 0; rc == 0 && i < g->n; i++)
		g->bad += g->rows[i].v == RR_V_REGRESSED || g->rows[i].v == RR_V_MISSING;
	free(seen);
	if (rc)
		rr_gate_result_free(g);
	return rc;
}

void rr_gate_result_free(struct rr_gate_result *g)
{
	free(g->rows);
	rr_figures_free(&g->cur);
	memset(g, 0, sizeof(*g));
}
