/* report/cmd/compare.c: raid-report --compare RUN_A RUN_B [--out DIR]: the two runs' tests side by
 * side (report/render/compare.c writes the files). */
#include "report/cmd/cmd.h"

#include <stdlib.h>
#include <string.h>

int rr_cmd_compare(int argc, char **argv)
{
	const char *dirs[2] = {0}, *outdir = NULL;
	int nd = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			outdir = argv[++i];
		else if (!strcmp(argv[i], "--out"))
			return rr_missing_value("--compare", "--out", "a directory");
		else if (argv[i][0] == '-')
			return rr_fail("--compare: unknown option '%s'", argv[i]);
		else if (nd < 2)
			dirs[nd++] = argv[i];
		else
			return rr_fail("--compare: one run too many: '%s'", argv[i]);
	}
	if (nd != 2)
		return rr_fail("%s", "--compare needs two run directories: RUN_A RUN_B");
	struct rr_run a, b;
	if (rr_cmd_load(dirs[0], &a))
		return RR_BAD_INPUT;
	if (rr_cmd_load(dirs[1], &b)) {
		rr_run_free(&a);
		return RR_BAD_INPUT;
	}
	char *def = NULL;
	if (!outdir) {
		if (asprintf(&def, "%s/compare-%s", b.dir, a.id) < 0)
			abort();
		outdir = def;
	}
	char differ[256];
	rr_host_diff(&a, &b, differ, sizeof(differ));
	if (*differ) /* one line: the figures compare the machines as much as the software */
		fprintf(stderr,
			"raid-report: warning: --compare: %s and %s ran on different machines "
			"(run.json host %s differ): absolute figures compare the machines too\n",
			a.dir, b.dir, differ);
	int rc = rr_compare(&a, &b, outdir, stdout, rr_err, sizeof(rr_err)) < 0
		     ? rr_fail("%s", rr_err)
		     : 0;
	free(def);
	rr_run_free(&a);
	rr_run_free(&b);
	return rc;
}
