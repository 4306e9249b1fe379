/* report/cmd/line.c: raid-report line TESTFILE: the one-line summary of one test of a run
 * (RESULTS_DIR/tests/<test>.json, or its .meta.json), as run.sh prints it when the test ends:
 * the figures the page shows, from the same reading of the same files. Exit 0 whatever the
 * figures (Little's law missed is said in the line), 2 for a file that is not a test's. */
#include "report/cmd/cmd.h"

#include <errno.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);
	return n > k && !strcmp(s + n - k, suffix);
}

int rr_cmd_line(int argc, char **argv)
{
	if (argc < 1)
		return rr_fail("line: needs a TESTFILE (RESULTS_DIR/tests/<test>.json)");
	if (argc > 1)
		return rr_fail("line: unexpected argument '%s' after %s", argv[1], argv[0]);
	char *a = strdup(argv[0]), *b = strdup(argv[0]);
	if (!a || !b)
		abort();
	char *stem = basename(a), *tdir = dirname(b);
	if (ends_with(stem, ".meta.json"))
		stem[strlen(stem) - strlen(".meta.json")] = '\0';
	else if (ends_with(stem, ".stats.json"))
		stem[strlen(stem) - strlen(".stats.json")] = '\0';
	else if (ends_with(stem, ".json"))
		stem[strlen(stem) - strlen(".json")] = '\0';
	int rc = RR_OK;
	struct rr_test t;
	/* the run's run.json, one level above tests/: its emulation, said in the line */
	char *rp, emulation[96] = "";
	if (asprintf(&rp, "%s/../run.json", tdir) < 0)
		abort();
	struct stat st;
	if (stat(rp, &st) == 0) {
		json_object *rj = rr_json_load(rp, rr_err, sizeof(rr_err));
		if (!rj) {
			rc = rr_fail("%s", rr_err);
			goto out;
		}
		rr_run_emulation(rj, emulation, sizeof(emulation));
		json_object_put(rj);
	}
	char *fp;
	if (asprintf(&fp, "%s/%s.json", tdir, stem) < 0)
		abort();
	int have = stat(fp, &st) == 0;
	if (!have)
		rc = rr_fail("%s: %s", fp, strerror(errno));
	free(fp);
	if (!have)
		goto out;
	int r = rr_test_load(tdir, stem, 1, &t, rr_err, sizeof(rr_err));
	if (r == -ENOENT) {
		rc = rr_fail("%s/%s: %s%s%s", tdir, stem, t.status, *t.reason ? ": " : "", t.reason);
		rr_test_free(&t);
		goto out;
	}
	if (r < 0) {
		rc = rr_fail("%s", rr_err);
		goto out;
	}
	rr_test_line(stdout, &t, emulation);
	rr_test_free(&t);
out:
	free(rp);
	free(a);
	free(b);
	return rc;
}
