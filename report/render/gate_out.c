/* report/render/gate_out.c: the gate's words: the baseline file (`raid-report baseline`),
 * the gate's table and its JUnit XML, from the figures and verdicts of
 * report/analysis/gate.c. */
#include "report/render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

json_object *rr_baseline_json(const struct rr_run *runs, size_t nruns, double max_spread)
{
	struct rr_bfig *bf;
	size_t nb = rr_baseline_figures(runs, nruns, max_spread, &bf);
	json_object *o = json_object_new_object(), *arr = json_object_new_array();
	json_object *ids = json_object_new_array();
	json_object_object_add(o, "format", json_object_new_int(RR_BASELINE_FORMAT));
	json_object_object_add(o, "preset", json_object_new_string(runs[0].preset));
	json_object_object_add(o, "host", json_object_new_string(runs[0].host));
	json_object_object_add(o, "run", json_object_new_string(runs[0].id));
	for (size_t r = 0; r < nruns; r++)
		json_object_array_add(ids, json_object_new_string(runs[r].id));
	json_object_object_add(o, "runs", ids);
	json_object_object_add(o, "max_spread_pct", json_object_new_double(100 * max_spread));
	json_object_object_add(o, "conditions", rr_run_conditions(&runs[0]));
	for (size_t i = 0; i < nb; i++) {
		const struct rr_bfig *b = &bf[i];
		json_object *f = json_object_new_object();
		char t[64];
		snprintf(t, sizeof(t), "%.6g", b->f.value);
		json_object_object_add(f, "id", json_object_new_string(b->f.id));
		json_object_object_add(f, "kind", json_object_new_string(b->f.kind));
		json_object_object_add(f, "better", json_object_new_string(b->f.better));
		json_object_object_add(f, "unit", json_object_new_string(b->f.unit));
		json_object_object_add(f, "value", json_object_new_double_s(b->f.value, t));
		if (nruns > 1) {
			snprintf(t, sizeof(t), "%.1f", 100 * b->spread);
			json_object_object_add(f, "spread_pct",
					       json_object_new_double_s(100 * b->spread, t));
			json_object_object_add(f, "gate", json_object_new_boolean(b->gate));
		}
		json_object_array_add(arr, f);
	}
	json_object_object_add(o, "figures", arr);
	free(bf);
	return o;
}

void rr_gate_print(FILE *out, const struct rr_run *run, const struct rr_gate_result *g,
		   double tolerance_pct)
{
	fprintf(out, "gate: %s against baseline %s (host %s), tolerance %.1f%%: %s%s\n", run->id,
		g->brun ? g->brun : "?", g->bhost ? g->bhost : "?", tolerance_pct,
		g->same_host ? "same host and settings, absolute figures gated"
		: *g->differ ? "absolute figures reported only, these differ: "
			     : "another host, absolute figures reported only",
		g->same_host ? "" : g->differ);
	fprintf(out, "%-72s %-8s %12s %12s %8s  %s\n", "figure", "kind", "baseline", "this run",
		"change", "verdict");
	for (size_t i = 0; i < g->n; i++) {
		const struct rr_gate_row *r = &g->rows[i];
		char chg[32] = "";
		if (!isnan(r->cur) && !isnan(r->base) && r->base != 0)
			snprintf(chg, sizeof(chg), "%+.1f%%", 100 * (r->cur - r->base) / r->base);
		fprintf(out, "%-72s %-8s %12.6g %12.6g %8s  %s\n", r->id, r->kind, r->base, r->cur,
			chg, rr_verdict_names[r->v]);
	}
	fprintf(out, "gate: %zu figures, %zu regressed or missing: %s\n", g->n, g->bad,
		g->bad ? "FAIL" : "PASS");
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

static const char *const skip_why[] = {
    [RR_V_NOT_GATED] = "absolute figure, baseline from another host",
    [RR_V_NEW] = "not in the baseline",
    [RR_V_NOISY] = "spread beyond the baseline's limit between the runs that made it",
};

void rr_gate_junit(FILE *f, const struct rr_gate_result *g, double tol)
{
	size_t skip = 0;
	for (size_t i = 0; i < g->n; i++)
		skip += g->rows[i].v == RR_V_NOT_GATED || g->rows[i].v == RR_V_NEW ||
			g->rows[i].v == RR_V_NOISY;
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
				"<failure message=\"%.6g %s against baseline %.6g (%+.1f%%, "
				"tolerance %.1f%%)\"/>",
				r->cur, r->unit, r->base, 100 * (r->cur - r->base) / r->base, tol);
		else if (r->v == RR_V_MISSING)
			fprintf(f, "<failure message=\"figure missing from this run\"/>");
		else if (r->v != RR_V_OK)
			fprintf(f, "<skipped message=\"%s\"/>", skip_why[r->v]);
		fprintf(f, "</testcase>\n");
	}
	fprintf(f, "</testsuite>\n</testsuites>\n");
}
