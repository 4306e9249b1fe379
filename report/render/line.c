/* report/render/line.c: one test in one line, the line run.sh prints when a test ends
 * (`raid-report line`) and the figures the page shows for it, written the same way
 * (summary.c's rounding): IOPS, MB/s, fio's mean total latency, and Little's law's mark. */
#include "report/render/render.h"

#include <math.h>

static void num(FILE *f, double v)
{
	if (isnan(v))
		fputc('-', f);
	else
		rr_csv_num(f, v);
}

void rr_test_line(FILE *f, const struct rr_test *t, const char *emulation)
{
	fprintf(f, "%s: ", t->test);
	num(f, t->iops);
	fputs(" IOPS, ", f);
	num(f, t->mbps);
	fputs(" MB/s, lat mean ", f);
	num(f, t->lat_mean_us);
	fputs(" us", f);
	struct rr_little c = rr_little_check(t);
	if (c.v != RR_LITTLE_NA) {
		fputs(c.v == RR_LITTLE_OK ? ", Little ok (IOPS x lat " : ", Little MISSED (IOPS x lat ",
		      f);
		num(f, c.l);
		fprintf(f, " of %.0f in flight)", c.n);
	}
	if (emulation && *emulation)
		fprintf(f, " [%s]", emulation);
	fputc('\n', f);
}
