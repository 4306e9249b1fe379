/* report/cmd/report.c: raid-report RESULTS_DIR: summary.csv/json, the analyses' CSV files, the
 * charts and index.html of one run. */
#include "report/cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

int rr_cmd_report(const char *dir)
{
	struct rr_run run;
	struct rr_pubset pub = {0};
	struct rr_charts charts;
	if (rr_cmd_load(dir, &run))
		return RR_BAD_INPUT;
	int rc = RR_OK;
	if (rr_pub_load(rr_pub_path(), &pub, rr_err, sizeof(rr_err)) < 0)
		fprintf(stderr, "raid-report: warning: %s: no published comparison\n", rr_err);
	json_object *prof = rr_profile_of_run(&run);
	rr_analyse(&run, &pub, prof, 0, rr_err, sizeof(rr_err));
	json_object_put(prof);
	if (rr_write_summary(&run, rr_err, sizeof(rr_err)) < 0 ||
	    rr_an_write_files(&run, rr_err, sizeof(rr_err)) < 0 ||
	    rr_write_recovery_csv(&run, rr_err, sizeof(rr_err)) < 0) {
		rc = rr_fail("%s", rr_err);
		goto out;
	}
	if (rr_write_charts(&run, &pub, &charts) < 0) {
		rc = rr_fail("%s/charts: cannot create", run.dir);
		goto out;
	}
	if (rr_write_html(&run, &pub, &charts, rr_err, sizeof(rr_err)) < 0) {
		rc = rr_fail("%s", rr_err);
		goto out;
	}
	if (*charts.unwritten) { /* a full disk: the page is there, the chart is not */
		rc = rr_fail("%s/charts/%s.dat or .gp: write failed", run.dir, charts.unwritten);
		goto out;
	}
	size_t drawn = 0;
	for (size_t i = 0; i < charts.n; i++)
		drawn += charts.list[i].drawn;
	printf("raid-report: %s: %zu tests, %zu of %zu charts drawn, %s/index.html\n", run.id,
	       run.ntests, drawn, charts.n, run.dir);
	/* the tests whose latency and IOPS contradict each other, in the lines run.sh prints */
	for (size_t i = 0; i < run.ntests; i++)
		if (rr_little_check(&run.tests[i]).v == RR_LITTLE_MISSED)
			rr_test_line(stdout, &run.tests[i], run.emulation);
out:
	rr_pub_free(&pub);
	rr_cmd_unload(&run);
	return rc;
}
