/*
 * line.c - what one test of the plan is, computed before anything is printed (print_test in
 * plan.c writes it as the test's line): its id, the level table's entry, the sizes (sizes.c),
 * its bays, member and spare paths, placement, stats file, init and md policy, and fio's
 * environment. Its unit test is line_test.c.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

bool is_jbod(const struct inst *a)
{
	return !strcmp(a->level, "jbod");
}

/* The level table's entry of a RAID array's level (validated by check_inst before). */
struct raid_level_info level_of(const char *level)
{
	struct raid_level_info l;

	if (raid_level_get(atoi(level), &l))
		preset_die("level '%s' is not in the engine's level table", level);
	return l;
}

unsigned long long size_of(const char *what, const char *s)
{
	uint64_t v;

	if (raid_parse_size(s, &v))
		preset_die("%s: '%s' is not a size (e.g. 256M)", what, s);
	return v;
}

/* A level with something to resync: a member it can lose (RAID0 has none) */
bool redundant(const struct raid_level_info *l)
{
	return l->max_failed != 0;
}

/* --place FILE: "ARRAY<TAB>cpus=..<TAB>mem=.." lines (run.sh, from raid-hwinfo place) */
void placement(const char *file, const char *array, char *cpus, size_t cl, char *mem, size_t ml)
{
	char buf[LINE_MAX_];
	FILE *f;

	*cpus = *mem = 0;
	if (!file)
		return;
	f = fopen(file, "r");
	if (!f)
		preset_die("%s: %s", file, strerror(errno));
	while (fgets(buf, sizeof(buf), f)) {
		char *tab = strchr(buf, '\t');

		buf[strcspn(buf, "\n")] = 0;
		if (!tab || strncmp(buf, array, tab - buf) || strlen(array) != (size_t)(tab - buf))
			continue;
		for (char *s = strtok(tab + 1, "\t"); s; s = strtok(NULL, "\t")) {
			if (!strncmp(s, "cpus=", 5))
				snprintf(cpus, cl, "%s", s + 5);
			else if (!strncmp(s, "mem=", 4))
				snprintf(mem, ml, "%s", s + 4);
		}
	}
	fclose(f);
}

/* The member paths of bays "0,1,2": drives by bay, or files DIR/ARRAY/bayN (DIR/ARRAY-bayN
 * in a host's directory) */
static void paths(const struct opts *o, const char *array, const char *bays, const char *kind,
		  char *out, size_t len)
{
	size_t w = 0;

	*out = 0;
	for (int i = 0; i < list_count(bays); i++) {
		char b[16], d[PATH_MAX];

		list_nth(bays, i, b, sizeof(b));
		if (o->drives)
			list_nth(o->drives, atoi(b), d, sizeof(d));
		else if (o->host_scratch)
			snprintf(d, sizeof(d), "%s/%s-%s%s", o->host_scratch, array, kind, b);
		else
			snprintf(d, sizeof(d), "%s/%s/%s%s", o->scratch, array, kind, b);
		w += snprintf(out + w, w < len ? len - w : 0, "%s%s", i ? ":" : "", d);
	}
	if (w >= len)
		preset_die("the member paths of %s are longer than %zu characters", array, len);
}

/* One test (t, its job file's facts j) as repetition rep of the run, at position idx */
void line_compute(const struct opts *o, const struct test *t, const struct job_facts *j,
		  const char *workloads, int idx, int rep, bool last, struct test_line *x)
{
	const struct row *r = t->r;
	const struct inst *a = &t->a;

	memset(x, 0, sizeof(*x));
	x->idx = idx, x->rep = rep, x->last = last;
	x->jbod = is_jbod(a), x->dev = !strncmp(t->target, "dev:", 4);
	x->md = !strcmp(t->target, "md");
	/* ublk: the engine's own arguments, which run/ublk.sh hands to raid-ublk start */
	x->ublk = !strcmp(t->target, "ublk");
	x->engine = x->jbod			   ? "jbod"
		    : !strcmp(t->target, "engine") ? "raid"
		    : x->md			   ? "md"
		    : x->ublk			   ? "ublk"
						   : "dev";
	/* repetition K of N > 1 is T@K (results/README.md); one run keeps the test's own id */
	snprintf(x->id, sizeof(x->id), "%s", t->id);
	if (o->repeat > 1 && !r->precond) /* preconditioning runs once */
		snprintf(x->id, sizeof(x->id), "%s@%d", t->id, rep);
	x->repeats = r->precond ? 1 : o->repeat;
	snprintf(x->file, sizeof(x->file), "%s/%s.fio", workloads, r->job);
	if (!x->jbod && !x->dev)
		x->l = level_of(a->level);
	/* preconditioning writes each job's slice, its random writes too (so that N passes
	 * write N volumes); steady state caps a measured test at its max (measure.c) */
	x->span_rw = r->precond ? "write" : j->rw;
	x->steady = o->m.steady && !r->precond && on_block(o, t->target) && j->timed &&
		    !strcmp(r->state, "optimal");
	/* the arithmetic (sizes.c); a dev: volume's chunk is what its description says */
	bool no_chunk = x->jbod || !strcmp(a->chunk, "-");

	x->shape = (struct plan_shape){
	    .l = x->jbod || x->dev ? NULL : &x->l,
	    .jbod = x->jbod,
	    .members = a->members,
	    .msize = o->msize,
	    .chunk = no_chunk ? MIB : size_of("chunk", a->chunk),
	    .bs = size_of(x->file, j->bs),
	    .numjobs = plan_scaled(j->numjobs, o->scale),
	    .rw = x->span_rw,
	    .resync = resync_state(r->state),
	    .runtime = o->runtime,
	    .rebuild_job = !strncmp(j->id, "REBUILD-", 8),
	    .steady_max = x->steady ? o->m.max : 0,
	};
	plan_sizes(&x->shape, &x->z);
	x->shape.l = NULL; /* (x is copied: the entry is x->l) */
	x->chunk_bytes = no_chunk ? 0 : x->shape.chunk;
	x->iodepth = plan_scaled(j->iodepth, o->scale);
	if (x->dev) /* sized by its device at run time (span) */
		x->z.size = x->z.off = 0;
	else
		split_bays(a, r->state, x->bays, sizeof(x->bays), x->spares, sizeof(x->spares));
	paths(o, t->array, x->bays, "bay", x->members, sizeof(x->members));
	paths(o, t->array, x->spares, "spare", x->spare_paths, sizeof(x->spare_paths));
	if (strcmp(r->state, "rebuilding") && !strchr(a->bays, '+'))
		x->spares[0] = 0; /* the line names spares of a rebuild, or of a bays list's + */
	placement(x->dev ? NULL : o->place, t->array, x->cpus, sizeof(x->cpus), x->mem,
		  sizeof(x->mem));
	snprintf(x->stats, sizeof(x->stats), "%s/tests/%s%s%s.stats.json", o->results, x->id,
		 o->host_label ? "@" : "", o->host_label ? o->host_label : "");
	x->init_resync = o->reuse && !x->jbod && !x->dev && redundant(&x->l);
	if (x->md) /* --bitmap and the consistency policy md runs with (measure.c) */
		md_policy(o, &x->l, o->drives ? x->z.per / 1024 : o->msize / 1024, &x->md_bitmap,
			  &x->md_consistency);
	/* fio's environment: a fill's passes; random writes for a time or a number of passes */
	if (r->precond) {
		x->time_based = r->precond == 'r' && o->m.rand_s;
		x->env_runtime = x->time_based ? o->m.rand_s : 0;
		x->loops = r->precond == 'f' ? o->m.fill : x->time_based ? 1 : o->m.rand_x;
	} else {
		x->env_runtime = x->z.run_time;
		x->loops = 1;
	}
}
