/* report/targets.c: the targets of a run (docs/report.md): the fio-raid engine, md (the same
 * arrays made by mdadm), dev:LABEL volumes, and the JBOD baselines. Which test of md is "the
 * same test" as a test of another target (level x members x workload x state x depth x jobs),
 * each target's ratio to md, the whole-machine CPU per I/O from meta.json's host_cpu (what
 * makes CPU cost comparable across targets: md computes parity in kernel threads fio never
 * sees), and the page's section that sets the targets side by side. */
#include "report/report.h"

#include <math.h>
#include <string.h>

static double num_of(json_object *o, const char *key)
{
	json_object *v;
	if (!o || !json_object_object_get_ex(o, key, &v) ||
	    !(json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)))
		return NAN;
	return json_object_get_double(v);
}

/* Busy cores over the measured interval: user + system + softirq (iowait is idle time). */
void rr_parse_host_cpu(json_object *h, struct rr_test *t)
{
	if (!h || !json_object_is_type(h, json_type_object))
		return;
	double iv = num_of(h, "interval_s");
	if (!(iv > 0))
		return;
	double busy = num_of(h, "user_s") + num_of(h, "system_s") + num_of(h, "softirq_s");
	t->host_cpu_cores = busy / iv;
	t->fio_cpu_cores = (num_of(h, "fio_user_s") + num_of(h, "fio_system_s")) / iv;
}

double rr_primary(const struct rr_test *t)
{
	return rr_is_large(t) ? t->mbps : t->iops;
}

/* The same I/O on the same kind of array: what a target's figure is set against. A dev:
 * volume whose chunk is unknown matches any chunk. */
int rr_same_test(const struct rr_test *a, const struct rr_test *b)
{
	return a->level == b->level && a->members == b->members && a->bs == b->bs &&
	       a->iodepth == b->iodepth && a->numjobs == b->numjobs && !strcmp(a->rw, b->rw) &&
	       !strcmp(a->workload, b->workload) && !strcmp(a->state, b->state) &&
	       (a->chunk <= 0 || b->chunk <= 0 || a->chunk == b->chunk);
}

const struct rr_test *rr_md_twin(const struct rr_run *run, const struct rr_test *t)
{
	if (!strcmp(t->target, "md") || !strcmp(t->target, "jbod"))
		return NULL;
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (!strcmp(o->target, "md") && rr_same_test(t, o))
			return o;
	}
	return NULL;
}

void rr_targets_link(struct rr_run *run)
{
	for (size_t i = 0; i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		if (t->iops > 0) {
			t->host_cpu_us_per_io = t->host_cpu_cores / t->iops * 1e6;
			t->fio_cpu_us_per_io = t->fio_cpu_cores / t->iops * 1e6;
		}
	}
	for (size_t i = 0; i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		const struct rr_test *md = rr_md_twin(run, t);
		if (md && rr_primary(md) > 0)
			t->vs_md = rr_primary(t) / rr_primary(md);
	}
}

int rr_run_has_targets(const struct rr_run *run)
{
	for (size_t i = 0; i < run->ntests; i++)
		if (strcmp(run->tests[i].target, "engine") && strcmp(run->tests[i].target, "jbod"))
			return 1;
	return 0;
}

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
 * figure, the ratio to md, and the CPU per I/O machine-wide and in fio's process. */
void rr_targets_html(FILE *f, const struct rr_run *run)
{
	if (!rr_run_has_targets(run))
		return;
	fputs("<h2 id=targets>Targets side by side</h2>\n<p>The same test (level x members x "
	      "workload x state x depth x jobs) on each target: the fio-raid engine, md (the "
	      "same array made by mdadm over the same members, fio's io_uring on /dev/mdN) and "
	      "each dev: volume, with its ratio to md. <i>Host CPU</i> is the whole machine's "
	      "user + system + softirq time over the test's measured interval, per I/O: it "
	      "counts md's kernel threads and the engine's own threads, which fio's CPU figures "
	      "miss, so it compares across targets (on a shared machine it also counts what "
	      "else ran). <i>fio process</i> is fio's own threads and processes, the engine's "
	      "included.</p>\n<div class=wide><table>\n<tr><th>test</th><th>target</th>"
	      "<th>figure</th><th>unit</th><th>vs md</th><th>host CPU us per I/O</th>"
	      "<th>busy cores</th><th>fio process CPU us per I/O</th></tr>\n",
	      f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		if (!strcmp(t->target, "jbod"))
			continue;
		char v[4][32] = {"", "", "", ""};
		double x[4] = {t->vs_md, t->host_cpu_us_per_io, t->host_cpu_cores,
			       t->fio_cpu_us_per_io};
		for (int k = 0; k < 4; k++)
			if (!isnan(x[k]))
				snprintf(v[k], sizeof(v[k]), k == 0 ? "%.2fx" : "%.3g", x[k]);
		fputs("<tr><td>", f);
		esc(f, t->test);
		fputs("</td><td>", f);
		esc(f, t->target);
		fprintf(f,
			"</td><td class=n>%.0f</td><td>%s</td><td class=n>%s</td><td class=n>%s"
			"</td><td class=n>%s</td><td class=n>%s</td></tr>\n",
			rr_primary(t), rr_is_large(t) ? "MB/s" : "IOPS", v[0], v[1], v[2], v[3]);
	}
	fputs("</table></div>\n", f);
}
