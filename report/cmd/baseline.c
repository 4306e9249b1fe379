/* report/cmd/baseline.c: raid-report baseline RESULTS_DIR...: the baseline file of one or more
 * runs of a preset (each figure's median and range over every repetition of every run, and
 * the machine), on stdout. */
#include "report/cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

int rr_cmd_baseline(int argc, char **argv)
{
	const char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	size_t nd = 0;
	if (!dirs)
		abort();
	for (int i = 0; i < argc; i++) {
		if (argv[i][0] == '-') {
			free(dirs);
			return rr_fail("baseline: unknown option '%s'", argv[i]);
		} else {
			dirs[nd++] = argv[i];
		}
	}
	if (!nd) {
		free(dirs);
		return rr_fail("%s", "baseline needs at least one RESULTS_DIR");
	}
	struct rr_run *runs = calloc(nd, sizeof(*runs));
	if (!runs)
		abort();
	size_t loaded = 0;
	int rc = RR_OK;
	for (; loaded < nd; loaded++)
		if (rr_cmd_load(dirs[loaded], &runs[loaded])) {
			rc = RR_BAD_INPUT;
			break;
		}
	for (size_t i = 1; rc == RR_OK && i < nd; i++)
		if (strcmp(runs[i].preset, runs[0].preset))
			rc = rr_fail("baseline: %s is not a run of the same preset as the first",
				     runs[i].dir);
	if (rc == RR_OK) {
		json_object *o = rr_baseline_json(runs, nd);
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	for (size_t i = 0; i < loaded; i++)
		rr_run_free(&runs[i]);
	free(runs);
	free(dirs);
	return rc;
}
