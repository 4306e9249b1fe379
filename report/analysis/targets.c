/* report/analysis/targets.c: the targets of a run (docs/report.md): the fio-raid engine, the
 * engine's arrays as ublk block devices, md (the same arrays made by mdadm), dev:LABEL volumes,
 * and the JBOD baselines. Which test of md is "the same test" as a test of another target
 * (level x members x workload x state x depth x jobs), each target's ratio to md (ublk / md:
 * the RAID's cost, both behind the same block layer), the engine's ratio to ublk (engine /
 * ublk: the block path's cost, the same RAID code) and the whole-machine CPU per I/O from
 * meta.json's host_cpu (what
 * makes CPU cost comparable across targets: md computes parity in kernel threads fio never
 * sees). The page's section is report/render/targets_html.c. */
#include "report/analysis/analysis.h"

#include <math.h>
#include <string.h>

/* The same I/O on the same kind of array: what a target's figure is set against. A dev:
 * volume whose chunk is unknown matches any chunk. */
int rr_same_test(const struct rr_test *a, const struct rr_test *b)
{
	return a->level == b->level && a->members == b->members && a->bs == b->bs &&
	       a->iodepth == b->iodepth && a->numjobs == b->numjobs && !strcmp(a->rw, b->rw) &&
	       !strcmp(a->workload, b->workload) && !strcmp(a->state, b->state) &&
	       (a->chunk <= 0 || b->chunk <= 0 || a->chunk == b->chunk);
}

/* the same test of TARGET, or NULL */
static const struct rr_test *twin(const struct rr_run *run, const struct rr_test *t,
				  const char *target)
{
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (!strcmp(o->target, target) && rr_same_test(t, o))
			return o;
	}
	return NULL;
}

const struct rr_test *rr_md_twin(const struct rr_run *run, const struct rr_test *t)
{
	if (!strcmp(t->target, "md") || !strcmp(t->target, "jbod"))
		return NULL;
	return twin(run, t, "md");
}

/* an engine test's twin on ublk: the same RAID code behind the kernel's block layer */
const struct rr_test *rr_ublk_twin(const struct rr_run *run, const struct rr_test *t)
{
	return strcmp(t->target, "engine") ? NULL : twin(run, t, "ublk");
}

/* Under emulation (run.json md.where: QEMU TCG) the ratio is not set: the two paths are
 * emulated unlike each other (a kernel's md against fio's user-space engine), so what it
 * would say of a real machine is unknown, and a plain 87.77x misleads (the page says why). */
void rr_targets_link(struct rr_run *run)
{
	for (size_t i = 0; !*run->emulation && i < run->ntests; i++) {
		struct rr_test *t = &run->tests[i];
		const struct rr_test *md = rr_md_twin(run, t), *ublk = rr_ublk_twin(run, t);
		if (md && rr_primary(md) > 0)
			t->vs_md = rr_primary(t) / rr_primary(md);
		if (ublk && rr_primary(ublk) > 0)
			t->vs_ublk = rr_primary(t) / rr_primary(ublk);
	}
}

int rr_run_has_targets(const struct rr_run *run)
{
	for (size_t i = 0; i < run->ntests; i++)
		if (strcmp(run->tests[i].target, "engine") && strcmp(run->tests[i].target, "jbod"))
			return 1;
	return 0;
}

/* how far apart the hosts are: the slowest host's main figure against the fastest's */
double rr_hosts_spread_pct(const struct rr_test *t)
{
	double lo = INFINITY, hi = 0;
	for (size_t h = 0; h < t->nhosts; h++) {
		lo = fmin(lo, rr_primary(&t->hosts[h]));
		hi = fmax(hi, rr_primary(&t->hosts[h]));
	}
	return hi > 0 ? 100 * (hi - lo) / hi : NAN;
}
