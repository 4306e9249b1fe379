/* report/analysis/gate.c: the figures a run is judged by, each as its median and range over
 * the repetitions (and runs) that measured it, and the regression gate's verdicts (numbers
 * only: report/render/gate_out.c writes the baseline file, the table and JUnit). A figure
 * regresses only when the run's range and the baseline's range separate, in the figure's bad
 * direction, by more than a floor (docs/report.md "The gate"). Ratios measured within one run
 * (member I/Os per volume I/O, a level against RAID0 or JBOD on the same members) carry
 * across machines; absolute figures (MB/s, IOPS, latency, CPU, parity GB/s per memory
 * bandwidth) are compared only against a baseline from the same machine and settings. */
#include "report/analysis/analysis.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void fig_add(struct rr_figures *fs, const char *kind, const char *better, const char *unit,
		    double v, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
static void fig_add(struct rr_figures *fs, const char *kind, const char *better, const char *unit,
		    double v, const char *fmt, ...)
{
	if (isnan(v) || isinf(v) || v <= 0)
		return;
	if (fs->n == fs->cap) {
		fs->cap = fs->cap ? fs->cap * 2 : 64;
		fs->f = realloc(fs->f, fs->cap * sizeof(*fs->f));
		if (!fs->f)
			abort();
	}
	struct rr_figure *f = &fs->f[fs->n++];
	memset(f, 0, sizeof(*f));
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->id, sizeof(f->id), fmt, ap);
	va_end(ap);
	snprintf(f->kind, sizeof(f->kind), "%s", kind);
	snprintf(f->better, sizeof(f->better), "%s", better);
	snprintf(f->unit, sizeof(f->unit), "%s", unit);
	f->value = f->lo = f->hi = v;
	f->n = 1;
}

void rr_figures_free(struct rr_figures *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->f[i].samples);
	free(f->f);
	memset(f, 0, sizeof(*f));
}

/* the same I/O pattern on the same number of drives */
static int same_pattern(const struct rr_test *a, const struct rr_test *b)
{
	return a->members == b->members && a->bs == b->bs && a->iodepth == b->iodepth &&
	       a->numjobs == b->numjobs && !strcmp(a->rw, b->rw) &&
	       !strcmp(a->workload, b->workload);
}

/* the figures of one repetition of every test (a view, rr_run_views) */
static void figures_of_view(const struct rr_run *run, struct rr_figures *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		int jbod = !strcmp(rr_level_name(t), "jbod");
		fig_add(out, "absolute", "higher", rr_is_large(t) ? "MB/s" : "IOPS", rr_primary(t),
			"%s %s", t->test, rr_is_large(t) ? "MB/s" : "IOPS");
		fig_add(out, "absolute", "lower", "us", t->lat_mean_us, "%s lat_mean_us", t->test);
		fig_add(out, "ratio", "lower", "x", t->member_ios_per_io, "%s member_ios_per_io",
			t->test);
		/* machine-bound (the SIMD the parity code has, the memory), and noisy: the parity
		 * time of 1-second tests is stretched by preemption on a shared machine, and
		 * mem_bw is one probe at the run's start: 0.91 and 1.67 in two unchanged runs */
		fig_add(out, "absolute", "higher", "x", t->parity_gbps / run->mem_bw_gbps,
			"%s parity_gbps/mem_bw", t->test);
		/* multi-host runs: each host on its own too, so that one lagging host shows */
		for (size_t h = 0; h < t->nhosts; h++) {
			const struct rr_test *r = &t->hosts[h];
			fig_add(out, "absolute", "higher", rr_is_large(t) ? "MB/s" : "IOPS",
				rr_primary(r), "%s @%s %s", t->test, r->host,
				rr_is_large(t) ? "MB/s" : "IOPS");
			fig_add(out, "ratio", "lower", "x", r->member_ios_per_io,
				"%s @%s member_ios_per_io", t->test, r->host);
		}
		if (jbod)
			continue;
		/* md on the same members, where the run has it: the reference the reviews used */
		const struct rr_test *md = rr_md_twin(run, t);
		if (md) {
			fig_add(out, "ratio", "higher", "x", t->vs_md, "%s / %s", t->test,
				md->test);
			fig_add(out, "absolute", "lower", "x",
				t->host_cpu_us_per_io / md->host_cpu_us_per_io,
				"%s host_cpu_per_io / %s", t->test, md->test);
		}
		for (size_t k = 0; k < run->ntests; k++) {
			const struct rr_test *o = &run->tests[k];
			if (o == t || !same_pattern(t, o))
				continue;
			/* a level is set against RAID0 of its own target; JBOD serves them all */
			if (strcmp(rr_level_name(o), "jbod") && strcmp(o->target, t->target))
				continue;
			if (!strcmp(rr_level_name(o), "jbod") && !strcmp(o->state, "optimal"))
				fig_add(out, "ratio", "higher", "x", rr_primary(t) / rr_primary(o),
					"%s / %s", t->test, o->test);
			else if (t->level != 0 && o->level == 0 && o->chunk == t->chunk &&
				 !strcmp(o->state, t->state)) {
				fig_add(out, "ratio", "higher", "x", rr_primary(t) / rr_primary(o),
					"%s / %s", t->test, o->test);
				/* CPU per I/O moves far less with a busy machine than throughput;
				 * but it is the machine's CPU: absolute */
				fig_add(out, "absolute", "lower", "x",
					t->cpu_us_per_io / o->cpu_us_per_io, "%s cpu_per_io / %s",
					t->test, o->test);
			}
		}
	}
}

/* The run's settings that absolute figures depend on besides the machine. */
json_object *rr_run_conditions(const struct rr_run *run)
{
	static const char *const keys[][2] = {{"scale", NULL},	     {"runtime_s", NULL},
					      {"member_size", NULL}, {"options", "drives"},
					      {"options", "hosts"}};
	json_object *c = json_object_new_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v = rr_jget(run->run_json, keys[i][0]);
		if (keys[i][1])
			v = rr_jget(v, keys[i][1]);
		if (!v)
			continue;
		char k[64];
		snprintf(k, sizeof(k), "%s%s%s", keys[i][0], keys[i][1] ? "." : "",
			 keys[i][1] ? keys[i][1] : "");
		json_object_object_add(c, k, json_object_new_string(json_object_get_string(v)));
	}
	return c;
}

/* The machine a run was made on, from run.json's host facts: what absolute figures depend
 * on. The host name is not part of it (CI runners of one kind have many names); the memory
 * bandwidth is recorded but not compared (one probe: 36.0 and 32.8 GB/s in two runs). */
json_object *rr_run_machine(const struct rr_run *run)
{
	static const char *const keys[] = {"cpu_model", "cores", "memory_bytes", "kernel"};
	json_object *host = rr_jget(run->run_json, "host"), *m = json_object_new_object();
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *v = rr_jget(host, keys[i]);
		if (!v && !strcmp(keys[i], "kernel"))
			v = rr_jget(run->run_json, "kernel");
		if (v)
			json_object_object_add(m, keys[i],
					       json_object_new_string(json_object_get_string(v)));
	}
	/* member files (the scratch directory's path is per run: not part of it) or the
	 * drives named */
	const char *drives = rr_jstr(rr_jget(rr_jget(run->run_json, "options"), "drives"));
	char kind[256];
	snprintf(kind, sizeof(kind), "%s%s", *drives ? "drives " : "files", drives);
	json_object_object_add(m, "member_kind", json_object_new_string(kind));
	/* the member files' filesystem (run.json scratch_fs): tmpfs against ext4 on a virtual
	 * disk moved RAID5 SEQ1M reads ~9x here (README "Spread"); older runs lack it, and a
	 * key the baseline lacks is not compared */
	const char *fs = rr_jstr(rr_jget(run->run_json, "scratch_fs"));
	if (!*drives && *fs)
		json_object_object_add(m, "member_fs", json_object_new_string(fs));
	if (!isnan(run->mem_bw_gbps)) {
		char t[32];
		snprintf(t, sizeof(t), "%.1f", run->mem_bw_gbps);
		json_object_object_add(m, "mem_bw_gbps",
				       json_object_new_double_s(run->mem_bw_gbps, t));
	}
	return m;
}

/* The keys of a (in the baseline) that differ in b (this run), comma-separated; "" when none */
static void conditions_diff(json_object *a, json_object *b, char *out, size_t len)
{
	out[0] = '\0';
	if (!a)
		return;
	json_object_object_foreach(a, k, v)
	{
		/* a key one run lacks is an empty one (options.hosts: older runs lack it) */
		json_object *w = NULL;
		json_object_object_get_ex(b, k, &w);
		if (!strcmp(v ? json_object_get_string(v) : "", w ? json_object_get_string(w) : ""))
			continue;
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? ", " : "", k);
	}
}

/* The machine facts of run.json's host that differ between two runs, like conditions_diff;
 * "" when they are the same machine (or neither recorded it). */
void rr_host_diff(const struct rr_run *a, const struct rr_run *b, char *out, size_t len)
{
	static const char *const keys[] = {"hostname", "cpu_model", "cores", "memory_bytes"};
	out[0] = '\0';
	json_object *ha = NULL, *hb = NULL;
	if (a->run_json)
		json_object_object_get_ex(a->run_json, "host", &ha);
	if (b->run_json)
		json_object_object_get_ex(b->run_json, "host", &hb);
	for (size_t i = 0; (ha || hb) && i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_object *va = NULL, *vb = NULL;
		if (ha)
			json_object_object_get_ex(ha, keys[i], &va);
		if (hb)
			json_object_object_get_ex(hb, keys[i], &vb);
		const char *sa = va ? json_object_get_string(va) : "",
			   *sb = vb ? json_object_get_string(vb) : "";
		if (!strcmp(sa, sb))
			continue;
		size_t n = strlen(out);
		snprintf(out + n, len - n, "%s%s", n ? ", " : "", keys[i]);
	}
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

/* Every figure of the runs, pooled over each repetition of each run (rr_run_views pairs a
 * test's repetition K with its JBOD's and RAID0's repetition K): its median, range and
 * count. *nviews: the repetitions counted in all, so that a caller can tell a figure some
 * repetition lacked. */
void rr_figures_spread(const struct rr_run *runs, size_t nruns, struct rr_figures *out,
		       size_t *nviews)
{
	struct rr_figures *fs = NULL;
	size_t nfs = 0;
	for (size_t r = 0; r < nruns; r++) {
		struct rr_run *views;
		size_t nv = rr_run_views(&runs[r], &views);
		fs = realloc(fs, (nfs + nv) * sizeof(*fs));
		if (!fs)
			abort();
		for (size_t k = 0; k < nv; k++) {
			rr_targets_link(&views[k]); /* vs_md of this repetition */
			figures_of_view(&views[k], &fs[nfs++]);
		}
		rr_run_views_free(views, nv);
	}
	double *vals = calloc(nfs + 1, sizeof(*vals));
	if (!vals)
		abort();
	memset(out, 0, sizeof(*out));
	*out = fs[0];
	for (size_t i = 0; i < out->n; i++) {
		struct rr_figure *f = &out->f[i];
		size_t n = 0;
		for (size_t v = 0; v < nfs; v++)
			for (size_t k = 0; k < fs[v].n; k++)
				if (!strcmp(fs[v].f[k].id, f->id)) {
					vals[n++] = fs[v].f[k].value;
					break;
				}
		qsort(vals, n, sizeof(*vals), cmp_double);
		f->value = n % 2 ? vals[n / 2] : (vals[n / 2 - 1] + vals[n / 2]) / 2;
		f->lo = vals[0];
		f->hi = vals[n - 1];
		f->n = n;
		f->samples = malloc(n * sizeof(*f->samples));
		if (!f->samples)
			abort();
		memcpy(f->samples, vals, n * sizeof(*f->samples));
	}
	for (size_t v = 1; v < nfs; v++)
		rr_figures_free(&fs[v]);
	free(fs);
	free(vals);
	if (nviews)
		*nviews = nfs;
}

void rr_figures_of_run(const struct rr_run *run, struct rr_figures *out)
{
	rr_figures_spread(run, 1, out, NULL);
}

static const char *jstr(json_object *o, const char *key)
{
	json_object *v;
	if (o && json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string))
		return json_object_get_string(v);
	return NULL;
}

const char *const rr_verdict_names[] = {"passed", "REGRESSED", "MISSING",
					"new",	  "improved",  "cannot tell"};

/* The keys of the baseline's machine that differ from the run's, the memory bandwidth
 * aside (recorded, not compared) */
static void machine_diff(json_object *bm, const struct rr_run *run, char *out, size_t len)
{
	json_object *rm = rr_run_machine(run);
	json_object_object_del(rm, "mem_bw_gbps");
	if (bm) {
		bm = json_object_get(bm);
		json_object *copy = NULL;
		json_object_deep_copy(bm, &copy, NULL);
		json_object_put(bm);
		json_object_object_del(copy, "mem_bw_gbps");
		conditions_diff(copy, rm, out, len);
		json_object_put(copy);
	} else {
		snprintf(out, len, "machine not recorded");
	}
	json_object_put(rm);
}

/* The baseline file's header: its format, its figures, its preset, and whether its machine
 * and settings are this run's (absolute figures are compared only then). */
static int judge_header(const struct rr_run *run, json_object *baseline, const char *bp,
			struct rr_gate_result *g, json_object **figs, char *err, size_t errlen)
{
	json_object *fmt = NULL;
	if (!json_object_object_get_ex(baseline, "format", &fmt) ||
	    !json_object_is_type(fmt, json_type_int) ||
	    (json_object_get_int(fmt) != RR_BASELINE_FORMAT && json_object_get_int(fmt) != 2)) {
		if (fmt && json_object_is_type(fmt, json_type_int) && json_object_get_int(fmt) == 1)
			snprintf(err, errlen,
				 "%s: format 1 has no figure's range, which the gate needs (remake "
				 "it: raid-report baseline RUN...)",
				 bp);
		else
			snprintf(err, errlen,
				 "%s: format %s is not a baseline format this raid-report reads "
				 "(2 or %d; write one with raid-report baseline)",
				 bp, fmt ? json_object_to_json_string(fmt) : "(none)",
				 RR_BASELINE_FORMAT);
		return -EINVAL;
	}
	if (!json_object_object_get_ex(baseline, "figures", figs) ||
	    !json_object_is_type(*figs, json_type_array)) {
		snprintf(err, errlen,
			 "%s: no \"figures\" array (write one with raid-report baseline)", bp);
		return -EINVAL;
	}
	if (json_object_array_length(*figs) == 0) {
		snprintf(err, errlen, "%s: no figures: a baseline without figures gates nothing",
			 bp);
		return -EINVAL;
	}
	/* Another preset's figures are other tests: every one would be "missing" or "new". */
	const char *bpreset = jstr(baseline, "preset");
	if (!bpreset || strcmp(bpreset, run->preset)) {
		snprintf(err, errlen, "%s is a baseline of preset '%s', %s a run of preset '%s'",
			 bp, bpreset ? bpreset : "(none)", run->dir, run->preset);
		return -EINVAL;
	}
	g->brun = jstr(baseline, "run");
	g->bhost = jstr(baseline, "host");
	json_object *bcond = NULL, *rcond = rr_run_conditions(run);
	json_object_object_get_ex(baseline, "conditions", &bcond);
	conditions_diff(bcond, rcond, g->differ, sizeof(g->differ));
	json_object_put(rcond);
	machine_diff(rr_jget(baseline, "machine"), run, g->machine_differ,
		     sizeof(g->machine_differ));
	g->same_machine = !*g->machine_differ && !*g->differ;
	return 0;
}

static int positive(json_object *v)
{
	double d = json_object_get_double(v);
	int num = json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int);
	return num && isfinite(d) && d > 0;
}

/* Regressed: the run's range lies beyond the baseline's, in the figure's bad direction, by
 * more than the floor. A side measured once has no range of its own: the run's is then
 * taken as the baseline's relative range about its value (as noisy as the baseline was). */
int rr_gate_worse(const struct rr_gate_row *r, int higher, double floor)
{
	double clo = r->clo, chi = r->chi;
	if (r->cn < 2 && r->bn > 1) {
		clo = r->cur * r->blo / r->base;
		chi = r->cur * r->bhi / r->base;
	}
	return higher ? chi < r->blo * (1 - floor) : clo > r->bhi * (1 + floor);
}

/* The verdict: with two repetitions or more a side (and a baseline that kept them), the
 * statistical tier's (power.c): regressed or improved when the test says so and the medians
 * moved by more than the threshold, else passed when a change of the threshold was detectable
 * here, else cannot tell. Fewer: the range rule (rr_gate_worse) can still call a regression
 * (or an improvement), but nothing passes on one repetition. */
static void judge_verdict(struct rr_gate_row *r, int higher, double floor)
{
	if (r->bs && r->cs)
		rr_power_judge(r->bs, (size_t)r->bn, r->cs, (size_t)r->cn, higher, floor,
			       RR_GATE_ALPHA, &r->pw);
	else
		r->pw = (struct rr_power){.test = "none",
					  .detectable = NAN,
					  .p_worse = NAN,
					  .p_better = NAN,
					  .repeats_for_10 = 4};
	if (strcmp(r->pw.test, "none"))
		r->v = r->pw.verdict == RR_P_WORSE    ? RR_V_REGRESSED
		       : r->pw.verdict == RR_P_BETTER ? RR_V_IMPROVED
		       : r->pw.detectable > floor     ? RR_V_CANNOT_TELL
						      : RR_V_OK;
	else
		r->v = rr_gate_worse(r, higher, floor)	  ? RR_V_REGRESSED
		       : rr_gate_worse(r, !higher, floor) ? RR_V_IMPROVED
							  : RR_V_CANNOT_TELL;
}

/* One baseline figure against this run's; -EINVAL when the baseline's entry is not one (a
 * value that is no finite positive number would gate nothing and pass). */
static int judge_one(json_object *f, size_t i, const char *bp, const struct rr_figures *cur,
		     char *seen, double floor, struct rr_gate_row *r, char *err, size_t errlen)
{
	json_object *v = NULL, *lo = rr_jget(f, "min"), *hi = rr_jget(f, "max"),
		    *n = rr_jget(f, "n");
	const char *id = jstr(f, "id"), *kind = jstr(f, "kind"), *better = jstr(f, "better");
	if (!id || !kind || !better || !json_object_object_get_ex(f, "value", &v) || !lo ||
	    !hi || !n) {
		snprintf(err, errlen, "%s: figure %zu lacks id, kind, better, value, min, max or n",
			 bp, i);
		return -EINVAL;
	}
	r->base = json_object_get_double(v);
	r->blo = json_object_get_double(lo);
	r->bhi = json_object_get_double(hi);
	r->bn = json_object_get_int(n);
	if (!positive(v) || !positive(lo) || !positive(hi) || !(r->blo <= r->base) ||
	    !(r->base <= r->bhi) || r->bn < 1) {
		snprintf(err, errlen,
			 "%s: figure %zu (%s): value %s, min %s, max %s: not positive numbers with "
			 "min <= value <= max",
			 bp, i, id, json_object_to_json_string(v), json_object_to_json_string(lo),
			 json_object_to_json_string(hi));
		return -EINVAL;
	}
	/* format 3: each repetition's value; a format 2 baseline has only the range */
	r->bs = NULL;
	r->cs = NULL;
	json_object *sv = rr_jget(f, "samples");
	if (sv && json_object_is_type(sv, json_type_array) &&
	    json_object_array_length(sv) == (size_t)r->bn) {
		r->bs = malloc(r->bn * sizeof(*r->bs));
		if (!r->bs)
			abort();
		for (int k = 0; k < r->bn; k++) {
			json_object *e = json_object_array_get_idx(sv, k);
			if (!positive(e)) {
				snprintf(err, errlen,
					 "%s: figure %zu (%s): sample %d is not a positive number",
					 bp, i, id, k);
				free(r->bs);
				r->bs = NULL;
				return -EINVAL;
			}
			r->bs[k] = json_object_get_double(e);
		}
	}
	r->id = id;
	r->kind = kind;
	r->unit = jstr(f, "unit") ? jstr(f, "unit") : "";
	r->cur = r->clo = r->chi = NAN;
	r->v = RR_V_MISSING;
	for (size_t k = 0; k < cur->n; k++) {
		if (strcmp(cur->f[k].id, id))
			continue;
		seen[k] = 1;
		r->cur = cur->f[k].value;
		r->clo = cur->f[k].lo;
		r->chi = cur->f[k].hi;
		r->cn = (int)cur->f[k].n;
		r->cs = cur->f[k].samples;
		judge_verdict(r, !strcmp(better, "higher"), floor);
	}
	return 0;
}

int rr_gate_judge(const struct rr_run *run, json_object *baseline, double floor_pct,
		  const char *bp, struct rr_gate_result *g, char *err, size_t errlen)
{
	json_object *figs = NULL;
	memset(g, 0, sizeof(*g));
	if (judge_header(run, baseline, bp, g, &figs, err, errlen))
		return -EINVAL;
	rr_figures_of_run(run, &g->cur);
	size_t nb = json_object_array_length(figs);
	g->rows = calloc(nb + g->cur.n + 1, sizeof(*g->rows));
	char *seen = calloc(g->cur.n + 1, 1);
	if (!g->rows || !seen)
		abort();
	int rc = 0;
	for (size_t i = 0; rc == 0 && i < nb; i++) {
		json_object *f = json_object_array_get_idx(figs, i);
		struct rr_gate_row *r = &g->rows[g->n];
		rc = judge_one(f, i, bp, &g->cur, seen, floor_pct / 100, r, err, errlen);
		/* another machine or other settings: its absolute figures are not compared
		 * at all (a raw MB/s of another machine is no verdict on this one) */
		if (rc == 0 && !g->same_machine && strcmp(r->kind, "ratio")) {
			free(r->bs);
			r->bs = NULL;
			g->left_out++;
			continue;
		}
		g->n++;
	}
	for (size_t k = 0; rc == 0 && k < g->cur.n; k++) {
		const struct rr_figure *f = &g->cur.f[k];
		if (seen[k] || (!g->same_machine && strcmp(f->kind, "ratio")))
			continue;
		g->rows[g->n++] = (struct rr_gate_row){.id = f->id,
						       .kind = f->kind,
						       .unit = f->unit,
						       .base = NAN,
						       .blo = NAN,
						       .bhi = NAN,
						       .cur = f->value,
						       .clo = f->lo,
						       .chi = f->hi,
						       .cn = (int)f->n,
						       .v = RR_V_NEW};
	}
	for (size_t i = 0; rc == 0 && i < g->n; i++) {
		g->bad += g->rows[i].v == RR_V_REGRESSED || g->rows[i].v == RR_V_MISSING;
		g->cannot += g->rows[i].v == RR_V_CANNOT_TELL;
	}
	free(seen);
	if (rc)
		rr_gate_result_free(g);
	return rc;
}

void rr_gate_result_free(struct rr_gate_result *g)
{
	for (size_t i = 0; g->rows && i < g->n; i++)
		free(g->rows[i].bs);
	free(g->rows);
	rr_figures_free(&g->cur);
	memset(g, 0, sizeof(*g));
}
