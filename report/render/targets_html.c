/* report/render/targets_html.c: the page's section that sets the run's targets side by side
 * (the engine, ublk, md, dev: volumes): each test's figure, its ratio to md, the engine's to
 * ublk, and its CPU per I/O, as report/analysis/targets.c worked them out. */
#include "report/render/render.h"

#include <math.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
	for (; *s; s++)
		if (*s == '<')
			fputs("&lt;", f);
		else if (*s == '&')
			fputs("&amp;", f);
		else
			fputc(*s, f);
}

/* One row per test of a target other than md that has an md twin, and per md test: the
 * figure, the ratio to md, an engine test's ratio to ublk, and the CPU per I/O machine-wide
 * and in fio's process. */
void rr_targets_html(FILE *f, const struct rr_run *run)
{
	if (!rr_run_has_targets(run))
		return;
	fputs("<h2 id=targets>Targets side by side</h2>\n", f);
	if (*run->emulation)
		fprintf(f,
			"<p class=note>Measured under emulation (%s): md runs in the emulated "
			"kernel, the engine in emulated user space, and the two slow down by "
			"different factors, so no ratio to md is given (vs md: \"emulated, not "
			"comparable\"); the figures say only that each path works.</p>\n",
			run->emulation);
	fputs("<p>The same test (level x members x "
	      "workload x state x depth x jobs) on each target: the fio-raid engine, md (the "
	      "same array made by mdadm over the same members, fio's io_uring on /dev/mdN) and "
	      "each dev: volume, with its ratio to md. "
	      "With the ublk target (the engine's own array as /dev/ublkbN, fio's io_uring on "
	      "it) the difference splits in two: <i>vs ublk</i> of an engine test is engine / "
	      "ublk, what the kernel's block path costs the same RAID code; <i>vs md</i> of a "
	      "ublk test is ublk / md, the RAID's own cost, both behind the same block layer. "
	      "<i>Host CPU</i> is the whole machine's "
	      "user + system + softirq time over the test's measured interval, per I/O: it "
	      "counts md's kernel threads and the engine's own threads, which fio's CPU figures "
	      "miss, so it compares across targets (on a shared machine it also counts what "
	      "else ran). <i>fio process</i> is fio's own threads and processes, the engine's "
	      "included. Beside each target, what keeps its arrays consistent after an unclean "
	      "stop, named alike for md and the engine: a write-intent bitmap (internal) or none, "
	      "then a full resync or md RAID5's partial parity log (ppl); RAID0 has none. md's "
	      "bitmap costs md writes, so a comparison says which each ran with.</p>\n"
	      "<div class=wide><table>\n<tr><th>test</th><th>target</th>"
	      "<th>figure</th><th>unit</th><th>vs md</th><th>vs ublk</th>"
	      "<th>host CPU us per I/O</th>"
	      "<th>busy cores</th><th>fio process CPU us per I/O</th></tr>\n",
	      f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (!strcmp(t->target, "jbod"))
			continue;
		char v[5][32] = {"", "", "", "", ""};
		double x[5] = {t->vs_md, t->vs_ublk, t->host_cpu_us_per_io, t->host_cpu_cores,
			       t->fio_cpu_us_per_io};
		for (int k = 0; k < 5; k++)
			if (!isnan(x[k]))
				snprintf(v[k], sizeof(v[k]), k < 2 ? "%.2fx" : "%.3g", x[k]);
		if (*run->emulation && strcmp(t->target, "md") && rr_md_twin(run, t))
			snprintf(v[0], sizeof(v[0]), "emulated, not comparable");
		if (*run->emulation && rr_ublk_twin(run, t))
			snprintf(v[1], sizeof(v[1]), "emulated, not comparable");
		fputs("<tr><td>", f);
		esc(f, t->test);
		fputs("</td><td>", f);
		esc(f, t->target);
		if (t->consistency && *t->consistency) { /* what each side keeps consistent */
			fputs(" (", f);
			esc(f, t->consistency);
			fputs(")", f);
		}
		fprintf(f,
			"</td><td class=n>%.0f</td><td>%s</td><td class=n>%s</td><td class=n>%s"
			"</td><td class=n>%s</td><td class=n>%s</td><td class=n>%s</td></tr>\n",
			rr_primary(t), rr_is_large(t) ? "MB/s" : "IOPS", v[0], v[1], v[2], v[3], v[4]);
	}
	fputs("</table></div>\n", f);
}
