/*
 * plan.c - `raid-preset plan`: every test of a preset with run.sh's options applied, one line
 * each, carrying everything run.sh needs to run it (presets/README.md, "The plan"): its id,
 * target, sizes, fio's environment and argument list, members and placement. The arithmetic
 * is sizes.c's, over the engine's own tables (raid_parse_size, the level table, the option
 * table), so that run.sh only starts, watches, tears down and collects. Its options:
 * options.c; the drives and --fit: drives.c. What it builds (rows, tests) is a struct plan
 * that plan_main allocates and passes down: no globals.
 *
 * A line is KEY=VALUE fields separated by tabs (a value holds no tab or newline: paths with
 * one are refused); env= and arg= repeat, in order. run.sh reads a line with
 * `IFS=$'\t' read -r -a`.
 */
#include <errno.h>
#include <limits.h>
#include <regex.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

static void add_row(struct preset *p, const char *group, const struct inst *a, const char *state,
		    const char *job)
{
	struct plan *pl = p->ctx;
	struct row *r = &pl->rows[pl->nrows];

	if (pl->nrows == MAX_TESTS)
		preset_die("%s: more than %d runs", p->file, MAX_TESTS);
	snprintf(r->group, sizeof(r->group), "%s", group);
	snprintf(r->state, sizeof(r->state), "%s", state);
	snprintf(r->job, sizeof(r->job), "%s", job);
	r->a = *a;
	pl->nrows++;
}

static void add_test(struct plan *pl, const struct row *r, const char *target, const struct inst *a,
		     const char *array)
{
	struct test *t = &pl->tests[pl->ntests];

	if (pl->ntests == MAX_TESTS)
		preset_die("more than %d tests", MAX_TESTS);
	t->r = r;
	t->a = *a;
	snprintf(t->target, sizeof(t->target), "%s", target);
	snprintf(t->array, sizeof(t->array), "%s", array);
	pl->ntests++;
}

/*
 * An array's preconditioning on a block-device target (measure.c), as tests of their own run
 * before its first test there: a sequential fill, then random writes. Once per array and
 * target in a run: the drives stay written between segments.
 */
static void add_precond(struct plan *pl, const struct opts *o, const char *target,
			const struct inst *a, const char *array)
{
	char key[240];

	if (!o->m.precond || !on_block(o, target))
		return;
	snprintf(key, sizeof(key), "%s %s", target, array);
	for (int i = 0; i < pl->nprecond_done; i++)
		if (!strcmp(pl->precond_done[i], key))
			return;
	snprintf(pl->precond_done[pl->nprecond_done++], sizeof(pl->precond_done[0]), "%s", key);
	for (int k = 0; k < 2; k++) {
		struct row *r = &pl->rows[pl->nrows];

		if (k == 0 ? !o->m.fill : !(o->m.rand_s || o->m.rand_x))
			continue;
		if (pl->nrows == MAX_TESTS)
			preset_die("more than %d runs with preconditioning", MAX_TESTS);
		*r = (struct row){.group = "-", .state = "optimal", .precond = k ? 'r' : 'f', .a = *a};
		snprintf(r->job, sizeof(r->job), "%s", k ? "precond-random" : "precond-fill");
		pl->nrows++;
		add_test(pl, r, target, a, array);
	}
}

/*
 * The tests of every target, segment by segment (the rows of one array, or one group):
 * JBOD rows once, then the segment for each target, so that the engine and md measure the
 * same members one after the other. md has no GPU path (a cuda variant is the same md
 * array); a dev: volume takes each workload once, from the optimal rows whose level and
 * member count its description names (all of them without).
 */
static void expand_targets(struct plan *pl, const struct opts *o)
{
	char seen[MAX_TESTS][160];
	int nseen = 0, n0 = pl->nrows; /* add_precond appends rows */

	for (int s = 0, e; s < n0; s = e) {
		const char *key =
		    strcmp(pl->rows[s].group, "-") ? pl->rows[s].group : pl->rows[s].a.name;

		for (e = s + 1; e < n0; e++)
			if (strcmp(strcmp(pl->rows[e].group, "-") ? pl->rows[e].group
								  : pl->rows[e].a.name,
				   key))
				break;
		for (int i = s; i < e; i++)
			if (is_jbod(&pl->rows[i].a))
				add_precond(pl, o, "jbod", &pl->rows[i].a, pl->rows[i].a.name);
		for (int i = s; i < e; i++)
			if (is_jbod(&pl->rows[i].a))
				add_test(pl, &pl->rows[i], "jbod", &pl->rows[i].a,
					 pl->rows[i].a.name);
		for (int k = 0; k < o->ntargets; k++) {
			const char *t = o->targets[k];

			for (int i = s; i < e && strncmp(t, "dev:", 4); i++)
				if (!is_jbod(&pl->rows[i].a) &&
				    (strcmp(t, "md") || strcmp(pl->rows[i].a.parity, "cuda")))
					add_precond(pl, o, t, &pl->rows[i].a, pl->rows[i].a.name);
			for (int i = s; i < e; i++) {
				const struct row *r = &pl->rows[i];

				if (is_jbod(&r->a) ||
				    (!strcmp(t, "md") && !strcmp(r->a.parity, "cuda")))
					continue;
				if (strncmp(t, "dev:", 4)) {
					add_test(pl, r, t, &r->a, r->a.name);
					continue;
				}
				const struct dev *d = NULL;
				char lv[16], mb[16], key2[160], arr[160];
				struct inst a = {0};

				for (int j = 0; j < o->ndevs; j++)
					if (!strcmp(o->devs[j].label, t + 4))
						d = &o->devs[j];
				snprintf(key2, sizeof(key2), "%s.%s", t + 4, r->job);
				snprintf(lv, sizeof(lv), "%s", d ? d->level : "");
				snprintf(mb, sizeof(mb), "%s", d ? d->members : "");
				bool dup = false;

				for (int j = 0; j < nseen; j++)
					dup |= !strcmp(seen[j], key2);
				if (strcmp(r->state, "optimal") || dup ||
				    (*lv && strcmp(lv, r->a.level)) ||
				    (*mb && atoi(mb) != r->a.members))
					continue;
				snprintf(seen[nseen++], sizeof(seen[0]), "%s", key2);
				snprintf(a.name, sizeof(a.name), "dev-%s", t + 4);
				snprintf(a.level, sizeof(a.level), "%.7s", *lv ? lv : "dev");
				a.members = *mb ? atoi(mb) : 0;
				snprintf(a.chunk, sizeof(a.chunk), "%s",
					 d && *d->chunk ? d->chunk : "-");
				snprintf(arr, sizeof(arr), "dev-%s", t + 4);
				add_precond(pl, o, t, &a, arr);
				add_test(pl, r, t, &a, arr);
			}
		}
	}
}

void field(const char *k, const char *fmt, ...)
{
	char v[4 * PATH_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(v, sizeof(v), fmt, ap);
	va_end(ap);
	if (strpbrk(v, "\t\n"))
		preset_die("%s: '%s' holds a tab or newline, which the plan cannot carry", k, v);
	printf("\t%s=%s", k, v);
}

/*
 * md_opt: the options of mdadm --create that this level has, in the order run/md.sh gives
 * them (its level facts are the engine's table: RAID0 keeps nothing consistent, so no
 * bitmap; RAID1 has no chunk; the layout as mdadm spells it, near2 as n2).
 */
static void md_create_opts(const struct opts *o, const struct raid_level_info *l, int members,
			   unsigned long long csz, unsigned long long per, const char *bm,
			   const char *cp)
{
	const char *lay = raid_layout_name(l->level, l->default_layout);

	if (l->max_failed != 0)
		field("md_opt", "--bitmap=%s", bm);
	if (!strcmp(cp, "ppl"))
		field("md_opt", "--consistency-policy=ppl");
	if (l->uses_chunk)
		field("md_opt", "--chunk=%llu", csz / 1024);
	if (lay && *lay)
		field("md_opt", "--layout=%s", !strncmp(lay, "near2", 5) ? "n2" : lay);
	/* mdadm refuses a one-member array without it */
	if (members == 1)
		field("md_opt", "--force");
	/* --size keeps md to the part of each drive the engine uses (KiB); RAID0 has none, and
	 * member files are of that size already */
	if (o->drives && l->level != 0)
		field("md_opt", "--size=%llu", per / 1024);
}

/* One test's line (presets/README.md lists the fields): what line_compute says it is */
static void print_test(const struct preset *p, const struct opts *o, const struct test *t, int idx,
		       int rep, bool last)
{
	const struct row *r = t->r;
	const struct inst *a = &t->a;
	char file[PATH_MAX];
	struct job_facts j;
	struct test_line *x = malloc(sizeof(*x));
	const struct raid_level_info *l;

	if (!x)
		preset_die("out of memory");
	l = &x->l;
	snprintf(file, sizeof(file), "%s/%s.fio", p->workloads, r->job);
	job_read(file, &j);
	line_compute(o, t, &j, p->workloads, idx, rep, last, x);
	printf("kind=test");
	field("idx", "%d", idx);
	field("id", "%s", x->id);
	field("test", "%s", t->id);
	field("repeat", "%d", rep);
	field("repeats", "%ld", x->repeats);
	field("group", "%s", r->group);
	field("array", "%s", t->array);
	field("target", "%s", t->target);
	field("engine", "%s", x->engine);
	field("level", "%s", a->level);
	field("members", "%d", a->members);
	field("chunk", "%s", a->chunk);
	field("chunk_bytes", "%llu", x->chunk_bytes);
	field("parity", "%s", x->dev ? "" : x->md ? "md" : a->parity);
	field("has_parity", "%d", l->parity > 0);
	field("data_members", "%d", x->jbod || x->dev ? a->members : a->members - l->parity);
	field("layout", "%s",
	      x->jbod || x->dev ? "" : raid_layout_name(l->level, l->default_layout) ?: "");
	field("state", "%s", r->state);
	field("bays", "%s", x->bays);
	field("spares", "%s", x->spares);
	field("member_paths", "%s", x->members);
	field("spare_paths", "%s", x->spare_paths);
	field("job", "%s", r->job);
	field("job_file", "%s", x->file);
	field("workload", "%s", j.id);
	field("rw", "%s", j.rw);
	field("bs", "%s", j.bs);
	field("bs_bytes", "%llu", x->shape.bs);
	field("pub_iodepth", "%s", j.iodepth);
	field("pub_numjobs", "%s", j.numjobs);
	field("numjobs", "%ld", x->shape.numjobs);
	field("iodepth", "%ld", x->iodepth);
	field("runtime", "%llu", x->z.run_time);
	field("member_bytes", "%llu", x->z.per);
	field("volume", "%llu", x->z.vol);
	field("init", "%s", x->init_resync ? "resync" : "clean");
	field("cpus", "%s", x->cpus);
	field("mem", "%s", x->mem);
	field("last", "%d", last);
	if (x->md) {
		field("md_bitmap", "%s", x->md_bitmap);
		field("md_consistency", "%s", x->md_consistency);
		md_create_opts(o, l, a->members, x->shape.chunk, x->z.per, x->md_bitmap,
			       x->md_consistency);
	}
	field("role", "%s", r->precond ? "precondition" : "measure");
	field("span_rw", "%s", x->span_rw);
	field("steadystate", "%d", x->steady);
	if (x->steady) {
		field("ss_criterion", "%s", o->m.criterion);
		field("ss_window", "%llu", o->m.window);
		field("ss_ramp", "%llu", o->m.ramp);
	}
	field("env", "NUMJOBS=%ld", x->shape.numjobs);
	field("env", "IODEPTH=%ld", x->iodepth);
	field("env", "JOB_SIZE=%llu", x->z.size);
	field("env", "JOB_OFFSET=%llu", x->z.off);
	field("env", "RUNTIME=%llu", x->env_runtime);
	if (r->precond) {
		field("env", "TIME_BASED=%d", x->time_based);
		field("env", "LOOPS=%ld", x->loops);
	} else {
		field("env", "RAMP=0");
		field("env", "LOOPS=%ld", x->loops);
	}
	/* every target's jobs as threads, as the engine's must be: a JBOD or md reference run
	 * as processes measured 0.6x the same I/O as threads here (fio's per-process start and
	 * scheduling), which made RAID0 at QD1 look 1.4x its own members (docs/report.md) */
	field("arg", "--thread=1");
	if (!x->jbod && !x->dev && !strcmp(r->state, "rebuilding"))
		rebuild_fields(l, a->members);
	if (x->md && resync_state(r->state))
		resync_fields(o, t->array, r->state, false, x->z.run_time, x->z.size);
	if (x->md || x->dev) /* fio's target is the device, known at run time (run/targets.sh) */
		goto out;
	if (x->jbod) {
		field("arg", "--ioengine=io_uring");
		field("arg", "--filename=%s", x->members);
	} else {
		field("arg", "--ioengine=external:%s", o->engine);
		field("arg", "--filename=%s/%s.vol", o->scratch, t->array);
		field("arg", "--raid_level=%s", a->level);
		field("arg", "--raid_members=%s", x->members);
		field("arg", "--raid_chunk=%s", a->chunk);
		field("arg", "--raid_parity=%s", a->parity);
		field("arg", "--raid_stats=%s", x->stats);
		/* a resync test's resync is the one its unclean stop asks for (resync.c) */
		if (o->reuse && redundant(l) && !resync_state(r->state))
			field("arg", "--raid_init=resync");
		if ((o->drives && o->member_size_given) || o->host_label)
			field("arg", "--raid_member_size=%llu", o->msize);
		if (*x->spare_paths)
			field("arg", "--raid_spares=%s", x->spare_paths);
		if (!strcmp(r->state, "rebuilding"))
			field("arg", "--raid_failed=0"), field("arg", "--raid_rebuild=1");
		if (!strcmp(r->state, "degraded"))
			field("arg", "--raid_failed=0");
		if (resync_state(r->state))
			resync_fields(o, t->array, r->state, true, x->z.run_time, x->z.size);
		if (l->parity > 0 && (!strcmp(a->parity, "cuda") || !strcmp(a->parity, "auto"))) {
			if (o->gpu)
				field("arg", "--raid_gpu=%s", o->gpu);
			if (o->gpu_batch)
				field("arg", "--raid_gpu_batch=%s", o->gpu_batch);
		}
	}
	if (*x->cpus)
		field("arg", "--cpus_allowed=%s", x->cpus);
	if (*x->mem)
		field("arg", "--numa_mem_policy=%s", x->mem);
out:
	/* total latency's percentiles (lat_ns), which the report shows; a clock that is right
	 * under emulation (plan_main) */
	field("out", "--lat_percentiles=1");
	if (x->steady) {
		field("out", "--steadystate=%s", o->m.criterion);
		field("out", "--steadystate_duration=%llu", o->m.window);
		field("out", "--steadystate_ramp_time=%llu", o->m.ramp);
	}
	if (*o->clock)
		field("out", "--clocksource=%s", o->clock);
	field("out", "--output-format=json+");
	field("out", "--output=%s/tests/%s.json", o->results, x->id);
	putchar('\n');
	free(x);
}

int plan_main(struct preset *p, int argc, char **argv)
{
	struct opts o = {.scratch = "", .results = "", .engine = ""};
	struct plan *pl = calloc(1, sizeof(*pl));
	struct test *tests;
	regex_t re;

	if (!pl)
		preset_die("out of memory for the plan");
	tests = pl->tests;

	parse_opts(&o, argc, argv);
	if (!o.runtime)
		o.runtime = rule(p, p->runtime, p->runtime_line, o.scale, false);
	if (!o.msize)
		o.msize = rule(p, p->msize, p->msize_line, o.scale, true);
	o.msize = o.msize / MIB * MIB;
	measure_setup(p, &o);
	p->parity = o.parity;
	p->workloads = o.workloads;
	p->layout = o.layout;
	p->row = add_row;
	p->ctx = pl;
	expand(p);
	if (o.drives)
		check_drives(pl, p, &o);
	expand_targets(pl, &o);
	if (o.only && regcomp(&re, o.only, REG_EXTENDED | REG_NOSUB))
		preset_die("--only: '%s' is not an extended regular expression", o.only);
	int kept = 0;

	for (int i = 0; i < pl->ntests; i++) {
		struct test *t = &tests[i];
		char file[PATH_MAX];
		struct job_facts j;

		snprintf(file, sizeof(file), "%s/%s.fio", p->workloads, t->r->job);
		job_read(file, &j);
		snprintf(t->id, sizeof(t->id), "%s%s-%s-%s%s%s",
			 strcmp(t->target, "md") ? strcmp(t->target, "ublk") ? "" : "ublk-" : "md-",
			 t->array, j.id, j.rw,
			 strcmp(t->r->state, "optimal") ? "-" : "",
			 strcmp(t->r->state, "optimal") ? t->r->state : "");
		t->keep = !o.only || !regexec(&re, t->id, 0, NULL, 0);
	}
	/* an array's preconditioning stays when --only keeps one of its tests on that target */
	for (int i = 0; i < pl->ntests; i++)
		for (int k = 0; k < pl->ntests && tests[i].r->precond && !tests[i].keep; k++)
			tests[i].keep = tests[k].keep && !tests[k].r->precond &&
					!strcmp(tests[k].array, tests[i].array) &&
					!strcmp(tests[k].target, tests[i].target);
	for (int i = 0; i < pl->ntests; i++)
		if (tests[i].keep)
			tests[kept++] = tests[i];
	pl->ntests = kept;
	if (!pl->ntests && o.only) {
		char name[128];

		preset_name(p, name, sizeof(name));
		preset_die(
		    "--only: '%s' matches none of preset %s's test ids (./run.sh %s --dry-run "
		    "lists them)",
		    o.only, name, name);
	}
	if (!pl->ntests)
		preset_die("%s planned no tests", p->file);
	if (!o.repeat)
		o.repeat = p->repeat ? p->repeat : 1;
	/*
	 * fio's default clock is the CPU's TSC when CPUID says it is invariant (gettime.c,
	 * tsc_reliable), else clock_gettime. An emulated TSC (the appliance's TCG) does not
	 * keep time with the guest's clock: there fio is told to read the kernel's clock, so
	 * that a CPU model that claims an invariant TSC cannot change fio's clock.
	 */
	const char *mdvm = getenv("MDVM");

	o.clock = mdvm && !strcmp(mdvm, "1") ? "clock_gettime" : "";
	/* tests whose members are files skip preconditioning and steady state (run.sh says so) */
	bool files = false;
	int npre = 0; /* preconditioning runs in the first round only */

	for (int i = 0; i < pl->ntests; i++)
		files |= !on_block(&o, tests[i].target), npre += tests[i].r->precond != 0;
	/* the stripe widths (data members) of the parity levels, for run.sh's parity bench */
	char ks[256] = "";
	bool seen[64] = {0};

	for (int i = 0; i < pl->ntests; i++) {
		const struct inst *a = &tests[i].a;
		struct raid_level_info l;

		if (is_jbod(a) || !strncmp(tests[i].target, "dev:", 4))
			continue;
		l = level_of(a->level);
		if (l.parity > 0 && a->members - l.parity > 0 && a->members - l.parity < 64)
			seen[a->members - l.parity] = true;
	}
	for (int k = 1; k < 64; k++)
		if (seen[k])
			snprintf(ks + strlen(ks), sizeof(ks) - strlen(ks), "%s%d", *ks ? "," : "",
				 k);
	printf("kind=run\tscale=%g\truntime=%llu\tmember_size=%llu\ttests=%ld\tconfigs=%d\t"
	       "repeats=%ld\tclocksource=%s\tprecondition=%s\tsteadystate=%s\tprecond_runs=%d\t"
	       "parity_ks=%s\tgpu=%s\tgpu_batch=%s\n",
	       o.scale, o.runtime, o.msize, (pl->ntests - npre) * o.repeat + npre,
	       pl->ntests - npre, o.repeat, *o.clock ? o.clock : "default",
	       measure_state(&o, false, files), measure_state(&o, true, files), npre, ks,
	       /* the engine's defaults where not given: its option table's */
	       o.gpu ? o.gpu : raid_option_find("raid_gpu")->def,
	       o.gpu_batch ? o.gpu_batch : raid_option_find("raid_gpu_batch")->def);
	/* Round K runs every test once before round K + 1, so that drift over the run (heat,
	 * the page cache, a neighbour) falls on every configuration alike. */
	for (int k = 1, idx = 1; k <= o.repeat; k++)
		for (int i = 0; i < pl->ntests; i++, idx++) {
			bool last = k == o.repeat;

			if (k > 1 && tests[i].r->precond) {
				idx--;
				continue;
			}
			for (int j = i + 1; j < pl->ntests && last; j++)
				last &= strcmp(tests[j].array, tests[i].array) != 0;
			print_test(p, &o, &tests[i], idx, k, last);
		}
	free(pl);
	return 0;
}

/* span VOLUME RW BS NUMJOBS -> JOB_SIZE=.. JOB_OFFSET=.. (an md array or dev: volume, whose
 * size is known once it exists); VOLUME in bytes, or Ns: 512-byte sectors (/sys/block/X/size) */
int span_main(int argc, char **argv)
{
	unsigned long long size, off, vol;
	size_t l = argc == 4 ? strlen(argv[0]) : 0;

	if (argc != 4)
		preset_die("usage: span VOLUME RW BS NUMJOBS");
	if (l > 1 && argv[0][l - 1] == 's') {
		argv[0][l - 1] = 0;
		vol = size_of("span", argv[0]) * 512;
	} else {
		vol = size_of("span", argv[0]);
	}
	plan_job_span(argv[1], vol, vol, size_of("span", argv[2]),
		      atol(argv[3]) > 0 ? atol(argv[3]) : 1, 0, &size, &off);
	printf("JOB_SIZE=%llu JOB_OFFSET=%llu\n", size, off);
	return 0;
}

/* volume LEVEL MEMBERS MEMBER_BYTES CHUNK -> the bytes the plan sizes the jobs by */
int volume_main(int argc, char **argv)
{
	struct raid_level_info l;

	if (argc != 4)
		preset_die("usage: volume LEVEL MEMBERS MEMBER_BYTES CHUNK");
	l = level_of(argv[0]);
	printf("%llu\n",
	       plan_volume(&l, atoi(argv[1]), size_of("volume", argv[2]),
			   size_of("volume", argv[3])));
	return 0;
}
