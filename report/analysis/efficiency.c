/* report/analysis/efficiency.c: how much of the raw drives each RAID test keeps. A test's figure is
 * divided by the same run's JBOD on the same members and workload, and by its I/O-count
 * bound: that JBOD figure over the member I/Os each volume I/O costs (the engine's stats, or
 * iomodel.c where there are none). The published rows get the same fractions wherever the
 * review gives the raw side: its JBOD rows, else the drives' spec sheets in the host's
 * profile (marked "spec"). */
#include "report/analysis/analysis.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "raid/core/raid.h"

/* The engine's measured member work per volume I/O: bytes for large tests, counts below. */
static double stats_per_io(const struct rr_test *t)
{
	json_object *s = t->stats_json;
	if (!s)
		return NAN;
	double num, den;
	if (rr_is_large(t)) {
		num = rr_jnum(rr_jget(rr_jget(s, "member_io"), "read_bytes")) +
		      rr_jnum(rr_jget(rr_jget(s, "member_io"), "write_bytes"));
		den = rr_jnum(rr_jget(rr_jget(s, "volume"), "read_bytes")) +
		      rr_jnum(rr_jget(rr_jget(s, "volume"), "write_bytes"));
	} else {
		num = rr_jnum(rr_jget(rr_jget(s, "member_io"), "reads")) +
		      rr_jnum(rr_jget(rr_jget(s, "member_io"), "writes"));
		den = rr_jnum(rr_jget(rr_jget(s, "volume"), "reads")) +
		      rr_jnum(rr_jget(rr_jget(s, "volume"), "writes"));
	}
	return den > 0 ? num / den : NAN;
}

static const char *meta_str(const struct rr_test *t, const char *key)
{
	json_object *v = rr_jget(t->meta_json, key);
	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : "";
}

/* The same run's JBOD on as many members, the same workload, pattern, depth and jobs (and
 * host, in a multi-host run). */
static const struct rr_test *jbod_of(const struct rr_run *run, const struct rr_test *t, int members)
{
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (strcmp(rr_level_name(o), "jbod") || o->members != members ||
		    strcmp(o->workload, t->workload) || strcmp(o->rw, t->rw) || o->bs != t->bs ||
		    o->iodepth != t->iodepth || o->numjobs != t->numjobs ||
		    strcmp(o->state, "optimal") || strcmp(meta_str(o, "host"), meta_str(t, "host")))
			continue;
		return o;
	}
	return NULL;
}

static struct rr_eff *eff_add(struct rr_analysis *an)
{
	an->eff = realloc(an->eff, (an->neff + 1) * sizeof(*an->eff));
	if (!an->eff)
		abort();
	struct rr_eff *e = &an->eff[an->neff++];
	memset(e, 0, sizeof(*e));
	e->figure = e->raw_figure = e->io_per_io = e->eff_jbod = e->eff_bound = NAN;
	return e;
}

static void name_broken(struct rr_eff *e, const struct rr_run *run, const struct rr_test *t,
			const struct rr_test *j);

static void fill_test(struct rr_analysis *an, const struct rr_run *run, const struct rr_test *t)
{
	if (!strcmp(rr_level_name(t), "jbod"))
		return;
	/* arrays that ran side by side (run.sh's groups: review B's two 8-member arrays) are
	 * held together against the JBOD of all their members, on the group's first test */
	const char *g = meta_str(t, "group");
	double figure = rr_primary(t);
	int members = t->members, partners = 0;
	for (size_t i = 0; *g && strcmp(g, "-") && i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		if (o == t || strcmp(meta_str(o, "group"), g) || strcmp(o->workload, t->workload) ||
		    strcmp(o->rw, t->rw) || o->level != t->level)
			continue;
		if (o < t)
			return;
		figure += rr_primary(o);
		members += o->members;
		partners++;
	}
	struct rr_eff *e = eff_add(an);
	const struct rr_test *j = jbod_of(run, t, members);
	e->t = t;
	e->members = t->members;
	e->figure = figure;
	e->io_per_io = stats_per_io(t);
	snprintf(e->io_source, sizeof(e->io_source), "stats");
	if (isnan(e->io_per_io) && !strcmp(t->state, "optimal")) {
		struct rr_ioc c;
		if (!rr_io_model(t->level, t->members, t->chunk, t->bs, t->rw,
				 rr_rw_mix(t->rw, t->workload), &c)) {
			e->io_per_io = rr_ioc_per_io(&c, rr_is_large(t));
			snprintf(e->io_source, sizeof(e->io_source), "model");
		}
	}
	if (!j) {
		snprintf(e->raw, sizeof(e->raw),
			 "no JBOD of %d members with this workload in the run", t->members);
		return;
	}
	snprintf(e->raw, sizeof(e->raw),
		 partners ? "%s (with %d more array%s run beside it)" : "%s", j->test, partners,
		 partners > 1 ? "s" : "");
	snprintf(e->raw_kind, sizeof(e->raw_kind), "run");
	e->raw_figure = rr_primary(j);
	if (e->raw_figure > 0) {
		e->eff_jbod = e->figure / e->raw_figure;
		e->eff_bound = e->eff_jbod * e->io_per_io;
		name_broken(e, run, t, j);
	}
}

/* Above 1 (by more than 5%: two runs of one test differ by that here) a figure beats what
 * the bound assumes, so one of its assumptions broke: the member work per I/O (the engine's
 * stats against the model), or that a member I/O costs what one of the JBOD's I/Os cost. */
static void name_broken(struct rr_eff *e, const struct rr_run *run, const struct rr_test *t,
			const struct rr_test *j)
{
	double over = e->eff_bound > 1.05 ? e->eff_bound : e->eff_jbod > 1.05 ? e->eff_jbod : NAN;
	if (isnan(over))
		return;
	const char *what = e->eff_bound > 1.05 ? "the I/O-count bound" : "JBOD";
	struct rr_ioc c;
	double model = NAN;
	if (!rr_io_model(t->level, t->members, t->chunk, t->bs, t->rw,
			 rr_rw_mix(t->rw, t->workload), &c))
		model = rr_ioc_per_io(&c, rr_is_large(t));
	const char *drives = rr_jstr(rr_jget(rr_jget(run->run_json, "options"), "drives"));
	/* fio's jobs as processes cost more per I/O than as threads of one process (docs/report.md:
	 * JBOD 22,221 against 37,469 IOPS here, 4 jobs x QD1 4K reads), and more under TCG */
	const char *cost =
	    t->fio_threads && !j->fio_threads
		? "the JBOD reference ran fio's jobs as processes (fio's default) and the engine "
		  "as threads (thread=1), which costs fio less per I/O (JBOD as threads had 1.7x "
		  "the IOPS of JBOD as processes at 4 jobs x QD1 here, docs/report.md)"
	    : *run->emulation
		? "under emulation (QEMU TCG) fio's own per-I/O work, emulated, is most of a JBOD "
		  "I/O's time, and the engine's member I/Os skip it"
	    : !*drives ? "on member files the JBOD figure is fio's and the kernel's cost per I/O, "
			 "not a drive's, and the engine's member I/Os cost less than fio's"
		       : "the JBOD reference was slower per I/O than the engine's member I/Os";
	const char *unit = rr_is_large(t) ? "member bytes per byte" : "member I/Os per I/O";
	if (!strcmp(e->io_source, "stats") && model > 0 &&
	    fabs(e->io_per_io - model) > 0.05 * model)
		snprintf(e->above, sizeof(e->above),
			 "%.2fx %s: %s measured %.3g, model %.3g: the engine's I/O plan is not "
			 "the model's",
			 over, what, unit, e->io_per_io, model);
	else
		snprintf(e->above, sizeof(e->above),
			 "%.2fx %s: %s %.3g (%s; model %.3g), so the count holds; the bound's "
			 "other assumption broke: a member I/O costs what a JBOD I/O costs, but %s",
			 over, what, unit, e->io_per_io, e->io_source, model, cost);
}

static int pub_level(const struct rr_pub *p)
{
	if (!strcmp(p->array, "jbod"))
		return -1;
	return strncmp(p->array, "raid", 4) ? -2 : atoi(p->array + 4);
}

/* the engine's size syntax (raid_parse_size), as a job file's */
long rr_size_of(const char *s, long dflt)
{
	uint64_t v;

	return !raid_parse_size(s, &v) && v > 0 && v <= LONG_MAX ? (long)v : dflt;
}

/* the engine's default chunk, its option table's (raid_chunk), for a row or test that
 * names none */
long rr_default_chunk(void)
{
	const struct raid_option *o = raid_option_find("raid_chunk");

	return o && o->def ? rr_size_of(o->def, 0) : 0;
}

/* A published row's block size: its bs, else 1M for a sequential bandwidth row (review B
 * gives none; its sequential tests are large-block). */
long rr_pub_bs(const struct rr_pub *p)
{
	return rr_size_of(p->bs, strcmp(p->metric, "iops") ? 1048576 : 4096);
}

/* The drives' spec figure for a published row: drives x the sheet's figure for its metric and
 * direction (a mix as the time-weighted blend of both); NAN when the sheet has none. */
double rr_spec_figure(json_object *profile, const struct rr_pub *p, int drives, char *why,
		      size_t len)
{
	json_object *bays = rr_jget(profile, "bays");
	json_object *b0 = bays ? json_object_array_get_idx(bays, 0) : NULL;
	const char *dname = json_object_get_string(rr_jget(b0, "drive"));
	json_object *d = dname ? rr_jget(rr_jget(profile, "drives"), dname) : NULL;
	int iops = !strcmp(p->metric, "iops");
	double r = rr_jnum(rr_jget(d, iops ? "rand_read_4k_iops" : "seq_read_mbps"));
	double w = rr_jnum(rr_jget(d, iops ? "rand_write_4k_iops" : "seq_write_mbps"));
	int mix = rr_rw_mix(p->rw, p->workload);
	double v = mix >= 100 ? r : mix <= 0 ? w : 1 / (mix / 100.0 / r + (1 - mix / 100.0) / w);
	snprintf(why, len, "spec: %d x %s %s", drives, dname ? dname : "?",
		 iops ? (mix >= 100 ? "random read IOPS" : "random write IOPS")
		      : (mix >= 100 ? "seq read MB/s" : "seq write MB/s"));
	return drives * v;
}

static void fill_pub(struct rr_analysis *an, const struct rr_pubset *pub, const struct rr_pub *p)
{
	int level = pub_level(p);
	if (level < 0 || (strcmp(p->metric, "bw") && strcmp(p->metric, "iops")))
		return;
	json_object *profile = rr_profile_load(p->host, NULL, 0);
	const struct rr_pub *j = NULL;
	for (size_t i = 0; i < pub->n && !j; i++) {
		const struct rr_pub *o = &pub->rows[i];
		if (!strcmp(o->array, "jbod") && !strcmp(o->source, p->source) &&
		    !strcmp(o->host, p->host) && o->drives == p->drives &&
		    !strcmp(o->workload, p->workload) && !strcmp(o->rw, p->rw) &&
		    !strcmp(o->metric, p->metric) && !strcmp(o->state, "optimal") && o->value > 0)
			j = o;
	}
	int arrays, members = rr_pub_layout(p, profile, &arrays, NULL);
	struct rr_eff e0 = {0};
	e0.figure = p->value;
	e0.raw_figure = NAN;
	if (j) {
		e0.raw_figure = j->value;
		snprintf(e0.raw, sizeof(e0.raw), "published JBOD %dx %s: %g %s", j->drives,
			 j->workload, j->value, j->unit);
		snprintf(e0.raw_kind, sizeof(e0.raw_kind), "published");
	} else if (profile) {
		e0.raw_figure = rr_spec_figure(profile, p, p->drives, e0.raw, sizeof(e0.raw));
		snprintf(e0.raw_kind, sizeof(e0.raw_kind), "spec");
	}
	json_object_put(profile);
	if (!(e0.raw_figure > 0))
		return;
	struct rr_ioc c;
	long chunk = rr_size_of(p->chunk, rr_default_chunk());
	long bs = rr_pub_bs(p);
	e0.io_per_io = NAN;
	/* a sequential stream through md's or a controller's stripe cache is written in whole
	 * rows: the model is given one row per I/O */
	long model_bs = bs;
	int p_par = rr_level_parity(level);
	if (p_par > 0 && strncmp(p->rw, "rand", 4) && bs >= 65536 && members > p_par)
		model_bs = (members - p_par) * chunk;
	if (!rr_io_model(level, members, chunk, model_bs, p->rw, rr_rw_mix(p->rw, p->workload), &c))
		e0.io_per_io = rr_ioc_per_io(&c, bs >= 65536);
	struct rr_eff *e = eff_add(an);
	*e = e0;
	e->pub = p;
	e->members = members;
	snprintf(e->io_source, sizeof(e->io_source), "model");
	e->eff_jbod = e->figure / e->raw_figure;
	e->eff_bound = e->eff_jbod * e->io_per_io;
}

void rr_eff_fill(struct rr_analysis *an, const struct rr_run *run, const struct rr_pubset *pub)
{
	for (size_t i = 0; i < run->ntests; i++)
		fill_test(an, run, &run->tests[i]);
	/* the published rows of the workloads this run measured */
	for (size_t p = 0; pub && p < pub->n; p++) {
		int matched = 0;
		for (size_t i = 0; i < run->ntests && !matched; i++)
			matched = !strcmp(pub->rows[p].workload, run->tests[i].workload);
		if (matched)
			fill_pub(an, pub, &pub->rows[p]);
	}
}

int rr_eff_of_test(const struct rr_analysis *an, const struct rr_test *t)
{
	for (size_t i = 0; an && i < an->neff; i++)
		if (an->eff[i].t == t)
			return (int)i;
	return -1;
}
