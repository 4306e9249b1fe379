/* report/cmd/gate.c: raid-report gate --baseline FILE RESULTS_DIR [--tolerance PCT] [--junit
 * FILE] [--html FILE]: the
 * run's figures against a baseline's (report/analysis/gate.c judges, report/render/gate_out.c
 * writes the table and JUnit); exit 1 when one regressed or is missing. --tolerance is the
 * floor: how far apart the run's and the baseline's ranges must be to call it a regression
 * (docs/report.md "The gate": 15% keeps a run measured once on a shared machine quiet). */
#include "report/cmd/cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int rr_cmd_gate(int argc, char **argv)
{
	const char *base = NULL, *dir = NULL;
	struct rr_gate_opts o = {
	    .tolerance_pct = RR_GATE_FLOOR_PCT, .junit_path = NULL, .html_path = NULL};
	for (int i = 0; i < argc; i++) {
		int more = i + 1 < argc;
		if (!strcmp(argv[i], "--baseline") && more) {
			base = argv[++i];
		} else if (!strcmp(argv[i], "--junit") && more) {
			o.junit_path = argv[++i];
		} else if (!strcmp(argv[i], "--html") && more) {
			o.html_path = argv[++i];
		} else if (!strcmp(argv[i], "--tolerance") && more) {
			char *end;
			o.tolerance_pct = strtod(argv[++i], &end);
			/* written so that NaN fails too */
			if (*end || end == argv[i] ||
			    !(o.tolerance_pct >= 0 && o.tolerance_pct < 100))
				return rr_fail("gate: --tolerance '%s': a percentage from 0 to 99",
					       argv[i]);
		} else if (!strcmp(argv[i], "--baseline") || !strcmp(argv[i], "--junit") ||
			   !strcmp(argv[i], "--html")) {
			return rr_missing_value("gate", argv[i], "a FILE");
		} else if (!strcmp(argv[i], "--tolerance")) {
			return rr_missing_value("gate", argv[i], "a percentage");
		} else if (argv[i][0] == '-') {
			return rr_fail("gate: unknown option '%s'", argv[i]);
		} else if (!dir) {
			dir = argv[i];
		} else {
			return rr_fail("gate: one results directory only, not also '%s'", argv[i]);
		}
	}
	if (!base || !dir)
		return rr_fail("%s", "gate needs --baseline FILE and RESULTS_DIR");
	json_object *b = rr_json_load(base, rr_err, sizeof(rr_err));
	if (!b)
		return rr_fail("%s", rr_err);
	struct rr_run run;
	if (rr_cmd_load(dir, &run)) {
		json_object_put(b);
		return RR_BAD_INPUT;
	}
	o.baseline_path = base;
	int rc = rr_gate(&run, b, &o, stdout, rr_err, sizeof(rr_err));
	if (rc < 0)
		rc = rr_fail("%s", rr_err);
	json_object_put(b);
	rr_run_free(&run);
	return rc;
}

int rr_gate(const struct rr_run *run, json_object *baseline, const struct rr_gate_opts *o,
	    FILE *out, char *err, size_t errlen)
{
	struct rr_gate_result g;
	const char *bp = o->baseline_path ? o->baseline_path : "baseline";
	if (rr_gate_judge(run, baseline, o->tolerance_pct, bp, &g, err, errlen))
		return -EINVAL;
	rr_gate_print(out, run, &g, o->tolerance_pct);
	int rc = g.bad ? RR_REGRESSED : RR_OK;
	if (o->junit_path) {
		FILE *jf = fopen(o->junit_path, "w");
		if (!jf) {
			snprintf(err, errlen, "%s: %s", o->junit_path, strerror(errno));
			rc = -errno;
		} else {
			rr_gate_junit(jf, &g, o->tolerance_pct);
			if (rr_close(jf)) {
				snprintf(err, errlen, "%s: write failed", o->junit_path);
				rc = -EIO;
			}
		}
	}
	if (rc >= 0 && o->html_path) {
		FILE *hf = fopen(o->html_path, "w");
		if (!hf) {
			snprintf(err, errlen, "%s: %s", o->html_path, strerror(errno));
			rc = -errno;
		} else {
			rr_gate_html(hf, run, &g, o->tolerance_pct);
			if (rr_close(hf)) {
				snprintf(err, errlen, "%s: write failed", o->html_path);
				rc = -EIO;
			}
		}
	}
	rr_gate_result_free(&g);
	return rc;
}
