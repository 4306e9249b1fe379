/* report/render/gate_out.c: the gate's words: the baseline file (`raid-report baseline`),
 * the gate's table and its JUnit XML, from the figures and verdicts of
 * report/analysis/gate.c. */
#include "report/render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static json_object *num6(double v)
{
	char t[64];
	snprintf(t, sizeof(t), "%.6g", v);
	return json_object_new_double_s(v, t);
}

json_object *rr_baseline_json(const struct rr_run *runs, size_t nruns)
{
	struct rr_figures fs;
	size_t nviews;
	rr_figures_spread(runs, nruns, &fs, &nviews);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object *ids = json_object_new_array();
	json_object_object_add(o, "format", json_object_new_int(RR_BASELINE_FORMAT));
	json_object_object_add(o, "preset", json_object_new_string(runs[0].preset));
	json_object_object_add(o, "host", json_object_new_string(runs[0].host));
	json_object_object_add(o, "run", json_object_new_string(runs[0].id));
	for (size_t r = 0; r < nruns; r++)
		json_object_array_add(ids, json_object_new_string(runs[r].id));
	json_object_object_add(o, "runs", ids);
	json_object_object_add(o, "repetitions", json_object_new_int((int)nviews));
	json_object_object_add(o, "machine", rr_run_machine(&runs[0]));
	json_object_object_add(o, "conditions", rr_run_conditions(&runs[0]));
	for (size_t i = 0; i < fs.n; i++) {
		const struct rr_figure *b = &fs.f[i];
		if (b->n < nviews)
			continue; /* not measured by every repetition: no baseline for it */
		json_object *f = json_object_new_object();
		json_object_object_add(f, "id", json_object_new_string(b->id));
		json_object_object_add(f, "kind", json_object_new_string(b->kind));
		json_object_object_add(f, "better", json_object_new_string(b->better));
		json_object_object_add(f, "unit", json_object_new_string(b->unit));
		json_object_object_add(f, "value", num6(b->value));
		json_object_object_add(f, "min", num6(b->lo));
		json_object_object_add(f, "max", num6(b->hi));
		json_object_object_add(f, "n", json_object_new_int((int)b->n));
		/* each repetition's value: what the gate's rank test and bootstrap need */
		json_object *sv = json_object_new_array();
		for (size_t k = 0; k < b->n; k++)
			json_object_array_add(sv, num6(b->samples[k]));
		json_object_object_add(f, "samples", sv);
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "figures", arr);
	rr_figures_free(&fs);
	return o;
}

/* "median [min, max] n=N", or "median n=1" */
static void fig_text(char *buf, size_t len, double v, double lo, double hi, int n)
{
	if (isnan(v))
		snprintf(buf, len, "-");
	else if (n > 1)
		snprintf(buf, len, "%.4g [%.4g, %.4g] n=%d", v, lo, hi, n);
	else
		snprintf(buf, len, "%.4g n=1", v);
}

/* "12.3%", "inf" (no shift the test could call worse), "-" (no test: fewer than two
 * repetitions a side, or no samples in the baseline) */
static void pct_text(char *buf, size_t len, const struct rr_gate_row *r)
{
	if (!r->pw.test || !strcmp(r->pw.test, "none") || isnan(r->pw.detectable))
		snprintf(buf, len, "-");
	else if (isinf(r->pw.detectable))
		snprintf(buf, len, "inf");
	else
		snprintf(buf, len, "%.1f%%", 100 * r->pw.detectable);
}

void rr_gate_verdict_text(const struct rr_gate_row *r, char *buf, size_t len)
{
	char d[32];
	pct_text(d, sizeof(d), r);
	if (r->v == RR_V_CANNOT_TELL)
		snprintf(buf, len, "cannot tell (detectable: %s)", d);
	else
		snprintf(buf, len, "%s", rr_verdict_names[r->v]);
}

void rr_gate_print(FILE *out, const struct rr_run *run, const struct rr_gate_result *g,
		   double floor_pct)
{
	fprintf(out,
		"gate: %s against baseline %s (host %s): threshold %.1f%%; with 2 repetitions or "
		"more a side a figure regresses when a one-sided test (Mann-Whitney U where it can "
		"reach p < %.2g, else a bootstrap of the ratio of medians) says worse and its "
		"median moved by more than the threshold; it passes only when a change of the "
		"threshold was detectable, else 'cannot tell'; with fewer, only ranges apart by "
		"more than the threshold regress\n",
		run->id, g->brun ? g->brun : "?", g->bhost ? g->bhost : "?", floor_pct,
		RR_GATE_ALPHA);
	if (!g->same_machine)
		fprintf(out,
			"gate: baseline from another machine or settings (%s%s%s differ): only "
			"machine-independent figures compared (member I/Os per I/O, ratios to the "
			"same run's JBOD and RAID0, vs md), %zu absolute figures left out\n",
			g->machine_differ, *g->machine_differ && *g->differ ? ", " : "", g->differ,
			g->left_out);
	fprintf(out, "%-64s %-8s %-34s %-34s %8s %-12s %10s %6s  %s\n", "figure", "kind",
		"baseline", "this run", "change", "test", "detectable", "n@10%", "verdict");
	for (size_t i = 0; i < g->n; i++) {
		const struct rr_gate_row *r = &g->rows[i];
		char chg[32] = "", b[80], c[80], d[32], n10[16] = "-", v[64];
		if (!isnan(r->cur) && !isnan(r->base) && r->base != 0)
			snprintf(chg, sizeof(chg), "%+.1f%%", 100 * (r->cur - r->base) / r->base);
		fig_text(b, sizeof(b), r->base, r->blo, r->bhi, r->bn);
		fig_text(c, sizeof(c), r->cur, r->clo, r->chi, r->cn);
		pct_text(d, sizeof(d), r);
		if (r->pw.test)
			snprintf(n10, sizeof(n10), "%d", r->pw.repeats_for_10);
		rr_gate_verdict_text(r, v, sizeof(v));
		fprintf(out, "%-64s %-8s %-34s %-34s %8s %-12s %10s %6s  %s\n", r->id, r->kind, b,
			c, chg, r->pw.test ? r->pw.test : "-", d, n10, v);
	}
	size_t tally[6] = {0};
	for (size_t i = 0; i < g->n; i++)
		tally[g->rows[i].v]++;
	fprintf(out,
		"gate: %zu figures, %zu regressed or missing: %s (passed %zu, improved %zu, cannot "
		"tell %zu, new %zu)\n",
		g->n, g->bad, g->bad ? "FAIL" : "PASS", tally[RR_V_OK], tally[RR_V_IMPROVED],
		tally[RR_V_CANNOT_TELL], tally[RR_V_NEW]);
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


void rr_gate_junit(FILE *f, const struct rr_gate_result *g, double tol)
{
	size_t skip = 0;
	for (size_t i = 0; i < g->n; i++)
		skip += g->rows[i].v == RR_V_NEW || g->rows[i].v == RR_V_CANNOT_TELL;
	fprintf(f, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
	fprintf(f,
		"<testsuites>\n<testsuite name=\"raid-report gate\" tests=\"%zu\" "
		"failures=\"%zu\" errors=\"0\" skipped=\"%zu\">\n",
		g->n, g->bad, skip);
	for (size_t i = 0; i < g->n; i++) {
		const struct rr_gate_row *r = &g->rows[i];
		fprintf(f, "  <testcase classname=\"gate.%s\" name=\"", r->kind);
		xml_esc(f, r->id);
		fprintf(f, "\">");
		if (r->v == RR_V_REGRESSED)
			fprintf(f,
				"<failure message=\"%.6g %s [%.6g, %.6g] against baseline %.6g "
				"[%.6g, %.6g] (%+.1f%%, ranges apart by more than %.1f%%)\"/>",
				r->cur, r->unit, r->clo, r->chi, r->base, r->blo, r->bhi,
				100 * (r->cur - r->base) / r->base, tol);
		else if (r->v == RR_V_MISSING)
			fprintf(f, "<failure message=\"figure missing from this run\"/>");
		else if (r->v == RR_V_NEW)
			fprintf(f, "<skipped message=\"not in the baseline\"/>");
		else if (r->v == RR_V_CANNOT_TELL) {
			char v[64];
			rr_gate_verdict_text(r, v, sizeof(v));
			fprintf(f, "<skipped message=\"%s\"/>", v);
		}
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}

void rr_gate_html(FILE *f, const struct rr_run *run, const struct rr_gate_result *g, double tol)
{
	static const char *const cls[] = {"passed", "regressed", "missing",
					  "new",    "improved",	 "cannot"};
	fprintf(f, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>gate: ");
	rr_html_esc(f, run->id);
	fprintf(f, "</title><style>td,th{padding:2px 8px;text-align:left}"
		   ".regressed,.missing{background:#f8d0d0}.improved{background:#d0f0d0}"
		   ".cannot{background:#f4f0c8}</style></head><body>\n<h1>gate: ");
	rr_html_esc(f, run->id);
	fprintf(f, " against ");
	rr_html_esc(f, g->brun ? g->brun : "?");
	fprintf(f,
		"</h1>\n<p>threshold %.1f%%: %zu figures, %zu regressed or missing, %zu cannot "
		"tell (docs/report.md, \"The statistical tier\")</p>\n<table>\n<tr><th>figure"
		"</th><th>kind</th><th>baseline</th><th>this run</th><th>change</th><th>test"
		"</th><th>detectable</th><th>repetitions for 10%%</th><th>verdict</th></tr>\n",
		tol, g->n, g->bad, g->cannot);
	for (size_t i = 0; i < g->n; i++) {
		const struct rr_gate_row *r = &g->rows[i];
		char b[80], c[80], v[64], d[32] = "-";
		fig_text(b, sizeof(b), r->base, r->blo, r->bhi, r->bn);
		fig_text(c, sizeof(c), r->cur, r->clo, r->chi, r->cn);
		pct_text(d, sizeof(d), r);
		rr_gate_verdict_text(r, v, sizeof(v));
		fprintf(f, "<tr class=\"%s\"><td>", cls[r->v]);
		rr_html_esc(f, r->id);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>%s</td><td>", r->kind, b, c);
		if (!isnan(r->cur) && !isnan(r->base) && r->base != 0)
			fprintf(f, "%+.1f%%", 100 * (r->cur - r->base) / r->base);
		fprintf(f, "</td><td>%s</td><td>%s</td><td>", r->pw.test ? r->pw.test : "-", d);
		if (r->pw.test)
			fprintf(f, "%d", r->pw.repeats_for_10);
		fprintf(f, "</td><td>%s</td></tr>\n", v);
	}
	fprintf(f, "</table>\n</body></html>\n");
}
