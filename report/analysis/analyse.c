/* report/analysis/analyse.c: a run's analysis in one call: each test's efficiency against JBOD
 * and its I/O-count bound (efficiency.c), and its projection onto a host profile (project.c),
 * kept in run->an for the renderers; the caller frees it with rr_analysis_free. */
#include "report/analysis/analysis.h"

#include <stdlib.h>

int rr_analyse(struct rr_run *run, const struct rr_pubset *pub, json_object *profile,
	       int every_test, char *err, size_t errlen)
{
	struct rr_analysis *an = calloc(1, sizeof(*an));
	if (!an)
		abort();
	rr_eff_fill(an, run, pub);
	if (profile) {
		json_object *n = NULL;
		json_object_object_get_ex(profile, "name", &n);
		snprintf(an->profile, sizeof(an->profile), "%s",
			 n ? json_object_get_string(n) : "?");
	} else {
		snprintf(an->note, sizeof(an->note),
			 "the run's preset reproduces no reviewed host (run.json profile is %s)",
			 run->run_json ? "this machine's" : "not recorded");
	}
	rr_proj_fill(an, run, pub, profile, every_test);
	rr_analysis_free(run->an);
	run->an = an;
	(void)err;
	(void)errlen;
	return 0;
}

void rr_analysis_free(struct rr_analysis *an)
{
	if (!an)
		return;
	free(an->eff);
	free(an->proj);
	free(an->by_test);
	free(an);
}
