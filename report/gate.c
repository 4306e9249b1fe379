/* report/gate.c: the figures a run is judged by, the baseline file that records them, and the
 * regression gate. Ratios measured within one run (RAID level against RAID0 on the same
 * members, engine against JBOD, parity GB/s against memory bandwidth, member I/Os per volume
 * I/O) carry across machines and are always gated; absolute figures are gated only against
 * a baseline recorded on the same host, and reported otherwise. */
#include "report/report.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define BASELINE_FORMAT 1

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

static double primary(const struct rr_test *t)
{
	return rr_is_large(t) ? t->mbps : t->iops;
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
		fig_add(out, "absolute", "higher", rr_is_large(t) ? "MB/s" : "IOPS", primary(t),
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
				primary(r), "%s @%s %s", t->test, r->host,
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
				fig_add(out, "ratio", "higher", "x", primary(t) / primary(o),
					"%s / %s", t->test, o->test);
			else if (t->level != 0 && o->level == 0 && o->chunk == t->chunk &&
				 !strcmp(o->state, t->state)) {
				fig_add(out, "ratio", "higher", "x", primary(t) / primary(o),
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
static json_object *conditions(const struct rr_run *run)
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

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* A baseline of one or more runs of the same preset: each figure's median over the runs
 * that have it, and its spread: how far the worst run fell from the median (lower for
 * "higher is better", above for "lower is better"), as a fraction of the median. A figure
 * that spread more than max_spread is recorded with "gate": false: the machine that made
 * the baseline could not repeat it, so the gate reports it without judging it. */
json_object *rr_baseline_json(const struct rr_run *runs, size_t nruns, double max_spread)
{
	struct rr_figures *fs = calloc(nruns, sizeof(*fs));
	double *vals = calloc(nruns, sizeof(*vals));
	if (!fs || !vals)
		abort();
	for (size_t r = 0; r < nruns; r++)
		rr_figures_of_run(&runs[r], &fs[r]);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object *ids = json_object_new_array();
	json_object_object_add(o, "format", json_object_new_int(BASELINE_FORMAT));
	json_object_object_add(o, "preset", json_object_new_string(runs[0].preset));
	json_object_object_add(o, "host", json_object_new_string(runs[0].host));
	json_object_object_add(o, "run", json_object_new_string(runs[0].id));
	for (size_t r = 0; r < nruns; r++)
		json_object_array_add(ids, json_object_new_string(runs[r].id));
	json_object_object_add(o, "runs", ids);
	json_object_object_add(o, "max_spread_pct", json_object_new_double(100 * max_spread));
	json_object_object_add(o, "conditions", conditions(&runs[0]));
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
		double med = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
		/* how far the worst of the runs fell from the median, in the figure's bad direction
		 */
		double spread = !strcmp(f0->better, "higher") ? (med - vals[0]) / med
							      : (vals[n - 1] - med) / med;
		json_object *f = json_object_new_object();
		char b[64];
		snprintf(b, sizeof(b), "%.6g", med);
		json_object_object_add(f, "id", json_object_new_string(f0->id));
		json_object_object_add(f, "kind", json_object_new_string(f0->kind));
		json_object_object_add(f, "better", json_object_new_string(f0->better));
		json_object_object_add(f, "unit", json_object_new_string(f0->unit));
		json_object_object_add(f, "value", json_object_new_double_s(med, b));
		if (nruns > 1) {
			snprintf(b, sizeof(b), "%.1f", 100 * spread);
			json_object_object_add(f, "spread_pct",
					       json_object_new_double_s(100 * spread, b));
			json_object_object_add(f, "gate",
					       json_object_new_boolean(spread <= max_spread));
		}
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "figures", arr);
	for (size_t r = 0; r < nruns; r++)
		rr_figures_free(&fs[r]);
	free(fs);
	free(vals);
	return o;
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

static void xml_esc(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '>')
			fputs("&gt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else if (*s == '"')
			fputs("&quot;", f);
		else if ((unsigned char)*s >= 0x20 || *s == '\t')
			fputc(*s, f);
	}
}

enum verdict { V_OK, V_REGRESSED, V_MISSING, V_NOT_GATED, V_NEW, V_NOISY };
static const char *const verdict_names[] = {"ok",	 "REGRESSED", "MISSING",
					    "not gated", "new",	      "noisy, not gated"};

struct row {
	const char *id, *kind, *unit;
	double base, cur;
	enum verdict v;
};

static void junit(FILE *f, const struct row *rows, size_t n, double tol)
{
	size_t fail = 0, skip = 0;
	for (size_t i = 0; i < n; i++) {
		fail += rows[i].v == V_REGRESSED || rows[i].v == V_MISSING;
		skip += rows[i].v == V_NOT_GATED || rows[i].v == V_NEW || rows[i].v == V_NOISY;
	}
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites>\n<testsuite name=\"raid-report gate\" tests=\"%zu\" "
		"failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		n, fail, skip);
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		fprintf(f, "  <testcase classname=\"gate.%s\" name=\"", r->kind);
		xml_esc(f, r->id);
		fprintf(f, "\">");
		if (r->v == V_REGRESSED)
			fprintf(f,
				"<failure message=\"%.6g %s against baseline %.6g (%+.1f%%, "
				"tolerance %.1f%%)\"/>",
				r->cur, r->unit, r->base, 100 * (r->cur - r->base) / r->base, tol);
		else if (r->v == V_MISSING)
			fprintf(f, "<failure message=\"figure missing from this run\"/>");
		else if (r->v == V_NOT_GATED)
			fprintf(f, "<skipped message=\"absolute figure, baseline from another "
				   "host\"/>");
		else if (r->v == V_NEW)
			fprintf(f, "<skipped message=\"not in the baseline\"/>");
		else if (r->v == V_NOISY)
			fprintf(f, "<skipped message=\"spread beyond the baseline's limit between "
				   "the runs that made it\"/>");
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}

int rr_gate(const struct rr_run *run, json_object *baseline, const struct rr_gate_opts *o,
	    FILE *out, char *err, size_t errlen)
{
	json_object *figs = NULL, *fmt = NULL;
	const char *bp = o->baseline_path ? o->baseline_path : "baseline";
	if (!json_object_object_get_ex(baseline, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_int) ||
	    json_object_get_int(fmt) != BASELINE_FORMAT) {
		snprintf(err, errlen,
			 "%s: format %s is not a baseline format this raid-report reads (%d; "
			 "write one with raid-report baseline)",
			 bp, fmt ? json_object_to_json_string(fmt) : "(none)", BASELINE_FORMAT);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(baseline, "figures", &figs) ||
	    !json_object_is_type(figs, json_type_array)) {
		snprintf(err, errlen,
			 "%s: no \"figures\" array (write one with raid-report baseline)", bp);
		return -EINVAL;
	}
	if (json_object_array_length(figs) == 0) {
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
	const char *bhost = jstr(baseline, "host");
	json_object *bcond = NULL, *rcond = conditions(run);
	char differ[512];
	json_object_object_get_ex(baseline, "conditions", &bcond);
	conditions_diff(bcond, rcond, differ, sizeof(differ));
	json_object_put(rcond);
	int same_host = bhost && *bhost && !strcmp(bhost, run->host) && !*differ;
	double tol = o->tolerance_pct / 100;

	struct rr_figures cur;
	rr_figures_of_run(run, &cur);
	size_t nb = json_object_array_length(figs);
	struct row *rows = calloc(nb + cur.n + 1, sizeof(*rows));
	char *seen = calloc(cur.n + 1, 1);
	if (!rows || !seen)
		abort();
	size_t n = 0;
	int rc = 0;
	for (size_t i = 0; i < nb; i++) {
		json_object *f = json_object_array_get_idx(figs, i), *v = NULL;
		const char *id = jstr(f, "id"), *kind = jstr(f, "kind"),
			   *better = jstr(f, "better");
		if (!id || !kind || !better || !json_object_object_get_ex(f, "value", &v)) {
			snprintf(err, errlen, "%s: figure %zu lacks id, kind, better or value", bp,
				 i);
			rc = -EINVAL;
			break;
		}
		struct row *r = &rows[n++];
		r->id = id;
		r->kind = kind;
		r->unit = jstr(f, "unit") ? jstr(f, "unit") : "";
		r->base = json_object_get_double(v);
		r->cur = NAN;
		r->v = V_MISSING;
		for (size_t k = 0; k < cur.n; k++) {
			if (strcmp(cur.f[k].id, id))
				continue;
			seen[k] = 1;
			r->cur = cur.f[k].value;
			int higher = !strcmp(better, "higher");
			int worse =
			    higher ? r->cur < r->base * (1 - tol) : r->cur > r->base * (1 + tol);
			json_object *g = NULL;
			if (!strcmp(kind, "absolute") && !same_host)
				r->v = V_NOT_GATED;
			else if (json_object_object_get_ex(f, "gate", &g) &&
				 !json_object_get_boolean(g))
				r->v = V_NOISY;
			else
				r->v = worse ? V_REGRESSED : V_OK;
		}
	}
	for (size_t k = 0; rc == 0 && k < cur.n; k++) {
		if (seen[k])
			continue;
		struct row *r = &rows[n++];
		r->id = cur.f[k].id;
		r->kind = cur.f[k].kind;
		r->unit = cur.f[k].unit;
		r->base = NAN;
		r->cur = cur.f[k].value;
		r->v = V_NEW;
	}

	size_t bad = 0;
	if (rc == 0) {
		fprintf(out, "gate: %s against baseline %s (host %s), tolerance %.1f%%: %s%s\n",
			run->id, jstr(baseline, "run") ? jstr(baseline, "run") : "?",
			bhost ? bhost : "?", o->tolerance_pct,
			same_host ? "same host and settings, absolute figures gated"
			: *differ ? "absolute figures reported only, these differ: "
				  : "another host, absolute figures reported only",
			same_host ? "" : differ);
		fprintf(out, "%-72s %-8s %12s %12s %8s  %s\n", "figure", "kind", "baseline",
			"this run", "change", "verdict");
		for (size_t i = 0; i < n; i++) {
			const struct row *r = &rows[i];
			char chg[32] = "";
			if (!isnan(r->cur) && !isnan(r->base) && r->base != 0)
				snprintf(chg, sizeof(chg), "%+.1f%%",
					 100 * (r->cur - r->base) / r->base);
			fprintf(out, "%-72s %-8s %12.6g %12.6g %8s  %s\n", r->id, r->kind, r->base,
				r->cur, chg, verdict_names[r->v]);
			bad += r->v == V_REGRESSED || r->v == V_MISSING;
		}
		fprintf(out, "gate: %zu figures, %zu regressed or missing: %s\n", n, bad,
			bad ? "FAIL" : "PASS");
	}
	if (rc == 0 && o->junit_path) {
		FILE *jf = fopen(o->junit_path, "w");
		if (!jf) {
			snprintf(err, errlen, "%s: %s", o->junit_path, strerror(errno));
			rc = -errno;
		} else {
			junit(jf, rows, n, o->tolerance_pct);
			if (fclose(jf)) {
				snprintf(err, errlen, "%s: write failed", o->junit_path);
				rc = -EIO;
			}
		}
	}
	free(rows);
	free(seen);
	rr_figures_free(&cur);
	return rc < 0 ? rc : bad ? RR_REGRESSED : RR_OK;
}
