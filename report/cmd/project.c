/* report/cmd/project.c: raid-report project RESULTS_DIR: each test projected onto a host profile
 * (report/analysis/project.c), printed as a table or as JSON. */
#include "report/cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

int rr_cmd_project(int argc, char **argv)
{
	const char *dir = NULL, *pname = NULL;
	int self = 0, as_json = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			pname = argv[++i];
		else if (!strcmp(argv[i], "--self"))
			self = 1;
		else if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else if (argv[i][0] == '-')
			return rr_fail("project: unknown option or missing value '%s'", argv[i]);
		else if (!dir)
			dir = argv[i];
		else
			return rr_fail("project: one results directory only, not also '%s'",
				       argv[i]);
	}
	if (!dir)
		return rr_fail("%s", "project needs RESULTS_DIR");
	struct rr_run run;
	struct rr_pubset pub = {0};
	if (rr_cmd_load(dir, &run))
		return RR_BAD_INPUT;
	json_object *prof =
	    pname ? rr_profile_load(pname, rr_err, sizeof(rr_err)) : rr_profile_of_run(&run);
	if (pname && !prof) {
		rr_cmd_unload(&run);
		return rr_fail("%s", rr_err);
	}
	if (rr_pub_load(rr_pub_path(), &pub, rr_err, sizeof(rr_err)) < 0)
		fprintf(stderr, "raid-report: warning: %s: no published figures\n", rr_err);
	rr_analyse(&run, &pub, prof, 1, rr_err, sizeof(rr_err));
	const struct rr_analysis *an = run.an;
	int rc = RR_OK;
	if (self ? !an->nself : an->nproj == 0) {
		rc = rr_fail(
		    self ? "project: %s: no configuration at two member counts to check"
			 : "project: %s: nothing to project (no profile with published tests "
			   "matching this run, no self-check pairs); try --profile NAME",
		    run.dir);
	} else if (as_json) {
		json_object *o = json_object_new_object();
		rr_an_json_run(o, &run);
		if (self)
			json_object_object_del(o, "projections");
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		if (!self && an->nproj > an->nself) {
			printf("projection of %s onto %s\n", run.id, an->profile);
			rr_proj_print(stdout, an, 0);
		}
		if (an->nself) {
			printf("%sself-check on this machine (%s): projected from the fewest "
			       "members\n",
			       self || an->nproj == an->nself ? "" : "\n", run.id);
			rr_proj_print(stdout, an, 1);
		}
	}
	json_object_put(prof);
	rr_pub_free(&pub);
	rr_cmd_unload(&run);
	return rc;
}
