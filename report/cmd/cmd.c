/* report/cmd/cmd.c: what every command shares: its error line and loading a run. */
#include "report/cmd/cmd.h"

#include <stdarg.h>

char rr_err[4096];

int rr_fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "raid-report: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return RR_BAD_INPUT;
}

int rr_missing_value(const char *cmd, const char *opt, const char *what)
{
	return rr_fail("%s: %s needs %s", cmd, opt, what);
}

int rr_cmd_load(const char *dir, struct rr_run *run)
{
	if (rr_run_load(dir, run, rr_err, sizeof(rr_err)) < 0)
		return rr_fail("%s", rr_err);
	rr_targets_link(run);
	return 0;
}

void rr_cmd_unload(struct rr_run *run)
{
	rr_analysis_free(run->an);
	run->an = NULL;
	rr_run_free(run);
}
