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
		if (jbod)
			continue;
		for (size_t k = 0; k < run->ntests; k++) {
			const struct rr_test *o = &run->tests[k];
			if (o == t || !same_pattern(t, o))
				continue;
			if (!strcmp(rr_level_name(o), "jbod") && !strcmp(o->state, "optimal"))
				fig_add(out, "ratio", "higher", "x", primary(t) / primary(o),
					"%s / %s", t->test, o->test);
			else if (t->level != 0 && o->level == 0 && o->chunk == t->chunk &&
				 !strcmp(o->state, t->state))
				fig_add(out, "ratio", "higher", "x", primary(t) / primary(o),
					"%s / %s", t->test, o->test);
		}
	}
}

json_object *rr_baseline_json(const struct rr_run *run)
{
	struct rr_figures fs;
	rr_figures_of_run(run, &fs);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object_object_add(o, "format", json_object_new_int(BASELINE_FORMAT));
	json_object_object_add(o, "preset", json_object_new_string(run->preset));
	json_object_object_add(o, "host", json_object_new_string(run->host));
	json_object_object_add(o, "run", json_object_new_string(run->id));
	for (size_t i = 0; i < fs.n; i++) {
		json_object *f = json_object_new_object();
		char b[64];
		snprintf(b, sizeof(b), "%.6g", fs.f[i].value);
		json_object_object_add(f, "id", json_object_new_string(fs.f[i].id));
		json_object_object_add(f, "kind", json_object_new_string(fs.f[i].kind));
		json_object_object_add(f, "better", json_object_new_string(fs.f[i].better));
		json_object_object_add(f, "unit", json_object_new_string(fs.f[i].unit));
		json_object_object_add(f, "value", json_object_new_double_s(fs.f[i].value, b));
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "figures", arr);
	rr_figures_free(&fs);
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

enum verdict { V_OK, V_REGRESSED, V_MISSING, V_NOT_GATED, V_NEW };
static const char *const verdict_names[] = {"ok", "REGRESSED", "MISSING", "not gated", "new"};

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
		skip += rows[i].v == V_NOT_GATED || rows[i].v == V_NEW;
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
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}

int rr_gate(const struct rr_run *run, json_object *baseline, const struct rr_gate_opts *o,
	    FILE *out, char *err, size_t errlen)
{
	json_object *figs = NULL;
	if (!json_object_object_get_ex(baseline, "figures", &figs) ||
	    !json_object_is_type(figs, json_type_array)) {
		snprintf(err, errlen,
			 "baseline: no \"figures\" array (write one with raid-report "
			 "baseline)");
		return -EINVAL;
	}
	const char *bhost = jstr(baseline, "host");
	int same_host = bhost && *bhost && !strcmp(bhost, run->host);
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
			snprintf(err, errlen,
				 "baseline: figure %zu lacks id, kind, better or value", i);
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
			if (!strcmp(kind, "absolute") && !same_host)
				r->v = V_NOT_GATED;
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
		fprintf(out, "gate: %s against baseline %s (host %s%s), tolerance %.1f%%\n",
			run->id, jstr(baseline, "run") ? jstr(baseline, "run") : "?",
			bhost ? bhost : "?",
			same_host ? ", same host: absolute figures gated"
				  : ", another host: absolute figures reported only",
			o->tolerance_pct);
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
