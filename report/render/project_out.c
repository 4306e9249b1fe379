/* report/render/project_out.c: the efficiency and projection figures out of the report: the columns
 * they add to summary.csv/json, efficiency.csv and projection.csv (every input, so the
 * arithmetic can be redone in a spreadsheet), the `raid-report project` table, the page's
 * sections and the two charts. */
#include "report/render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static void cnum(FILE *f, double v) /* ",v" */
{
	fputc(',', f);
	rr_csv_num(f, v);
}

static const char *bound_name(const struct rr_proj *p, int i)
{
	return i >= 0 ? p->b[i].name : "";
}

/* ---- summary.csv / summary.json columns ---- */

static const char *const an_cols[] = {"jbod_test",	 "eff_vs_jbod",	    "io_per_io_bound",
				      "io_bound_source", "eff_vs_io_bound", "proj_profile",
				      "proj_value",	 "proj_unit",	    "proj_binding",
				      "proj_margin",	 "proj_published",  "proj_vs_published"};
#define NAN_COLS (sizeof(an_cols) / sizeof(an_cols[0]))

void rr_an_csv_head(FILE *f)
{
	for (size_t i = 0; i < NAN_COLS; i++)
		fprintf(f, ",%s", an_cols[i]);
}

static const struct rr_eff *eff_of(const struct rr_run *run, size_t i)
{
	int k = rr_eff_of_test(run->an, &run->tests[i]);
	return k >= 0 ? &run->an->eff[k] : NULL;
}

static const struct rr_proj *proj_of(const struct rr_run *run, size_t i)
{
	return run->an && run->an->by_test ? run->an->by_test[i] : NULL;
}

void rr_an_csv_row(FILE *f, const struct rr_run *run, size_t i)
{
	const struct rr_eff *e = eff_of(run, i);
	const struct rr_proj *p = proj_of(run, i);
	fputc(',', f);
	if (e && !strcmp(e->raw_kind, "run") && e->raw_figure > 0)
		rr_csv_str(f, e->raw);
	cnum(f, e ? e->eff_jbod : NAN);
	cnum(f, e ? e->io_per_io : NAN);
	fprintf(f, ",%s", e && !isnan(e->io_per_io) ? e->io_source : "");
	cnum(f, e ? e->eff_bound : NAN);
	fprintf(f, ",%s", p ? p->profile : "");
	cnum(f, p ? p->projected : NAN);
	fprintf(f, ",%s,%s", p ? p->unit : "", p ? bound_name(p, p->binding) : "");
	cnum(f, p ? p->margin : NAN);
	cnum(f, p ? p->published : NAN);
	cnum(f, p ? p->ratio : NAN);
}

static json_object *jstr_r(const char *s)
{
	return s && *s ? json_object_new_string(s) : NULL;
}

void rr_an_json_test(json_object *o, const struct rr_run *run, size_t i)
{
	const struct rr_eff *e = run->an ? eff_of(run, i) : NULL;
	const struct rr_proj *p = proj_of(run, i);
	int has_jbod = e && !strcmp(e->raw_kind, "run") && e->raw_figure > 0;
	json_object_object_add(o, "jbod_test", has_jbod ? jstr_r(e->raw) : NULL);
	json_object_object_add(o, "eff_vs_jbod", rr_json_num(e ? e->eff_jbod : NAN));
	json_object_object_add(o, "io_per_io_bound", rr_json_num(e ? e->io_per_io : NAN));
	json_object_object_add(o, "io_bound_source",
			       e && !isnan(e->io_per_io) ? jstr_r(e->io_source) : NULL);
	json_object_object_add(o, "eff_vs_io_bound", rr_json_num(e ? e->eff_bound : NAN));
	json_object_object_add(o, "proj_profile", p ? jstr_r(p->profile) : NULL);
	json_object_object_add(o, "proj_value", rr_json_num(p ? p->projected : NAN));
	json_object_object_add(o, "proj_unit", p ? jstr_r(p->unit) : NULL);
	json_object_object_add(o, "proj_binding", p ? jstr_r(bound_name(p, p->binding)) : NULL);
	json_object_object_add(o, "proj_margin", rr_json_num(p ? p->margin : NAN));
	json_object_object_add(o, "proj_published", rr_json_num(p ? p->published : NAN));
	json_object_object_add(o, "proj_vs_published", rr_json_num(p ? p->ratio : NAN));
}

static json_object *eff_json(const struct rr_eff *e)
{
	json_object *o = json_object_new_object();
	char *label = e->pub ? rr_pub_label(e->pub) : NULL;
	json_object_object_add(o, "kind", jstr_r(e->pub ? "published" : "run"));
	json_object_object_add(o, "test", jstr_r(e->t ? e->t->test : label));
	json_object_object_add(o, "workload", jstr_r(e->t ? e->t->workload : e->pub->workload));
	json_object_object_add(o, "rw", jstr_r(e->t ? e->t->rw : e->pub->rw));
	json_object_object_add(o, "members", json_object_new_int(e->members));
	json_object_object_add(o, "figure", rr_json_num(e->figure));
	json_object_object_add(o, "raw", jstr_r(e->raw));
	json_object_object_add(o, "raw_kind", jstr_r(e->raw_kind));
	json_object_object_add(o, "raw_figure", rr_json_num(e->raw_figure));
	json_object_object_add(o, "eff_vs_jbod", rr_json_num(e->eff_jbod));
	json_object_object_add(o, "io_per_io_bound", rr_json_num(e->io_per_io));
	json_object_object_add(o, "io_bound_source", jstr_r(e->io_source));
	json_object_object_add(o, "eff_vs_io_bound", rr_json_num(e->eff_bound));
	json_object_object_add(o, "above_bound", jstr_r(e->above));
	free(label);
	return o;
}

static json_object *ioc_json(const struct rr_ioc *c)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "strategy", jstr_r(c->strategy));
	json_object_object_add(o, "reads", rr_json_num(c->reads));
	json_object_object_add(o, "writes", rr_json_num(c->writes));
	json_object_object_add(o, "read_bytes", rr_json_num(c->read_bytes));
	json_object_object_add(o, "write_bytes", rr_json_num(c->write_bytes));
	json_object_object_add(o, "parity_in", rr_json_num(c->parity_in));
	json_object_object_add(o, "parity_out", rr_json_num(c->parity_out));
	return o;
}

json_object *rr_proj_json(const struct rr_proj *p)
{
	json_object *o = json_object_new_object(), *in = json_object_new_object();
	json_object *bs = json_object_new_array();
	char *label = p->pub ? rr_pub_label(p->pub) : NULL;
	json_object_object_add(o, "profile", jstr_r(p->profile));
	json_object_object_add(o, "published_test",
			       p->pub ? jstr_r(label) : jstr_r(p->actual ? p->actual->test : ""));
	json_object_object_add(o, "workload", jstr_r(p->src->workload));
	json_object_object_add(o, "measured_test", jstr_r(p->src->test));
	json_object_object_add(o, "target", jstr_r(p->target));
	json_object_object_add(o, "level", p->level >= 0 ? json_object_new_int(p->level) : NULL);
	json_object_object_add(o, "members", json_object_new_int(p->members));
	json_object_object_add(o, "arrays", json_object_new_int(p->arrays));
	json_object_object_add(o, "bs", json_object_new_int64(p->bs));
	json_object_object_add(o, "rw", jstr_r(p->rw));
	json_object_object_add(o, "parity_path", jstr_r(p->path));
	json_object_object_add(o, "unit", jstr_r(p->unit));
	json_object_object_add(in, "io_model", ioc_json(&p->io));
	json_object_object_add(in, "io_model_at_measured", ioc_json(&p->io_src));
	json_object_object_add(in, "measured_members", json_object_new_int(p->src->members));
	json_object_object_add(in, "member_ios_per_io_measured", rr_json_num(p->io_src_measured));
	json_object_object_add(in, "cpu_us_per_io_measured", rr_json_num(p->cpu_us_src));
	json_object_object_add(in, "cpu_source", jstr_r(p->cpu_source));
	json_object_object_add(in, "parity_us_per_io_measured", rr_json_num(p->parity_us_src));
	json_object_object_add(in, "cpu_us_per_io_projected", rr_json_num(p->cpu_us));
	json_object_object_add(in, "parity_gbps_per_core", rr_json_num(p->parity_gbps_core));
	json_object_object_add(in, "parity_source", jstr_r(p->parity_source));
	json_object_object_add(in, "parity_cores", json_object_new_int(p->parity_cores));
	json_object_object_add(in, "stripe_lock_waits_per_io", rr_json_num(p->stripe_waits_per_io));
	json_object_object_add(o, "inputs", in);
	for (int i = 0; i < RR_NBOUNDS; i++) {
		json_object *b = json_object_new_object();
		json_object_object_add(b, "bound", jstr_r(p->b[i].name));
		json_object_object_add(b, "value", rr_json_num(p->b[i].value));
		json_object_object_add(b, "how", jstr_r(p->b[i].how));
		json_object_array_add(bs, b);
	}
	json_object_object_add(o, "bounds", bs);
	json_object_object_add(o, "projected", rr_json_num(p->projected));
	json_object_object_add(o, "binding", jstr_r(bound_name(p, p->binding)));
	json_object_object_add(o, "next", jstr_r(bound_name(p, p->next)));
	json_object_object_add(o, "margin", rr_json_num(p->margin));
	/* the self-check sets its projection beside what was measured, the rest beside the
	 * published figure (null for a test projected at its own size) */
	int self = !p->pub && p->actual != p->src;
	json_object_object_add(o, self ? "measured" : "published", rr_json_num(p->published));
	json_object_object_add(o, self ? "projected_vs_measured" : "projected_vs_published",
			       rr_json_num(p->ratio));
	if (p->pub)
		json_object_object_add(o, "physical_limit", jstr_r(p->flag));
	free(label);
	return o;
}

void rr_an_json_run(json_object *o, const struct rr_run *run)
{
	const struct rr_analysis *an = run->an;
	if (!an)
		return;
	json_object *e = json_object_new_array(), *p = json_object_new_array(),
		    *s = json_object_new_array();
	for (size_t i = 0; i < an->neff; i++)
		json_object_array_add(e, eff_json(&an->eff[i]));
	for (size_t i = 0; i < an->nproj; i++)
		json_object_array_add(i < an->nproj - an->nself ? p : s,
				      rr_proj_json(&an->proj[i]));
	json_object_object_add(o, "efficiency", e);
	json_object_object_add(o, "projection_profile", jstr_r(an->profile));
	json_object_object_add(o, "projections", p);
	json_object_object_add(o, "self_check", s);
}

/* ---- projection.csv and efficiency.csv ---- */

void rr_proj_csv(FILE *f, const struct rr_analysis *an)
{
	fputs("kind,profile,published_test,measured_test,target,level,members,arrays,bs,rw,"
	      "parity_path,unit,strategy,reads,writes,read_bytes,write_bytes,parity_in,parity_out,"
	      "measured_members,member_ios_per_io_model_at_measured,member_ios_per_io_measured,"
	      "cpu_us_per_io_measured,cpu_source,parity_us_per_io_measured,cpu_us_per_io_projected,"
	      "parity_gbps_per_core,parity_source,parity_cores,stripe_lock_waits_per_io",
	      f);
	for (int i = 0; i < RR_NBOUNDS; i++)
		fprintf(f, ",bound %s,how %s", rr_bound_names[i], rr_bound_names[i]);
	fputs(",projected,binding,margin,published_or_measured,ratio,physical_limit\n", f);
	for (size_t k = 0; k < an->nproj; k++) {
		const struct rr_proj *p = &an->proj[k];
		char *label = p->pub ? rr_pub_label(p->pub) : NULL;
		fprintf(f, "%s,%s,", p->pub ? "published" : "self-check", p->profile);
		rr_csv_str(f, label ? label : p->actual->test);
		fprintf(f, ",%s,%s,", p->src->test, p->target);
		if (p->level >= 0)
			fprintf(f, "%d", p->level);
		fprintf(f, ",%d,%d,%ld,%s,%s,%s,%s", p->members, p->arrays, p->bs, p->rw, p->path,
			p->unit, p->io.strategy);
		double io[] = {p->io.reads,	  p->io.writes,	   p->io.read_bytes,
			       p->io.write_bytes, p->io.parity_in, p->io.parity_out};
		for (size_t i = 0; i < 6; i++)
			cnum(f, io[i]);
		fprintf(f, ",%d", p->src->members);
		cnum(f, rr_ioc_per_io(&p->io_src, 0));
		cnum(f, p->io_src_measured);
		cnum(f, p->cpu_us_src);
		fprintf(f, ",%s", p->cpu_source);
		cnum(f, p->parity_us_src);
		cnum(f, p->cpu_us);
		cnum(f, p->parity_gbps_core);
		fputc(',', f);
		rr_csv_str(f, p->parity_source);
		fprintf(f, ",%d", p->parity_cores);
		cnum(f, p->stripe_waits_per_io);
		for (int i = 0; i < RR_NBOUNDS; i++) {
			cnum(f, p->b[i].value);
			fputc(',', f);
			rr_csv_str(f, p->b[i].how);
		}
		cnum(f, p->projected);
		fprintf(f, ",%s", bound_name(p, p->binding));
		cnum(f, p->margin);
		cnum(f, p->published);
		cnum(f, p->ratio);
		fputc(',', f);
		rr_csv_str(f, p->flag);
		fputc('\n', f);
		free(label);
	}
}

static void eff_csv(FILE *f, const struct rr_analysis *an)
{
	fputs("kind,test,workload,rw,members,figure,raw,raw_kind,raw_figure,eff_vs_jbod,"
	      "io_per_io_bound,io_bound_source,eff_vs_io_bound,above_bound\n",
	      f);
	for (size_t i = 0; i < an->neff; i++) {
		const struct rr_eff *e = &an->eff[i];
		char *label = e->pub ? rr_pub_label(e->pub) : NULL;
		fprintf(f, "%s,", e->pub ? "published" : "run");
		rr_csv_str(f, e->t ? e->t->test : label);
		fprintf(f, ",%s,%s,%d,", e->t ? e->t->workload : e->pub->workload,
			e->t ? e->t->rw : e->pub->rw, e->members);
		rr_csv_num(f, e->figure);
		fputc(',', f);
		rr_csv_str(f, e->raw);
		fprintf(f, ",%s,", e->raw_kind);
		double v[] = {e->raw_figure, e->eff_jbod, e->io_per_io};
		for (size_t k = 0; k < 3; k++) {
			rr_csv_num(f, v[k]);
			fputc(',', f);
		}
		fprintf(f, "%s,", e->io_source);
		rr_csv_num(f, e->eff_bound);
		fputc(',', f);
		rr_csv_str(f, e->above);
		fputc('\n', f);
		free(label);
	}
}

int rr_an_write_files(const struct rr_run *run, char *err, size_t errlen)
{
	static const char *const names[] = {"efficiency.csv", "projection.csv"};
	for (int k = 0; run->an && k < 2; k++) {
		FILE *f = rr_out_open(run, names[k], err, errlen);
		if (!f)
			return -1;
		if (k == 0)
			eff_csv(f, run->an);
		else
			rr_proj_csv(f, run->an);
		if (rr_out_close(f, run, names[k], err, errlen))
			return -1;
	}
	return 0;
}

/* ---- the table of `raid-report project` ---- */

void rr_proj_print(FILE *f, const struct rr_analysis *an, int self)
{
	size_t from = self ? an->nproj - an->nself : 0,
	       to = self ? an->nproj : an->nproj - an->nself;
	if (from == to)
		return;
	fprintf(f, "%-44s %-42s %4s %12s %-5s %-12s %7s %12s %9s\n",
		self ? "configuration measured here" : "test (published, else this run's)",
		"projected from (target)", "n", "projected", "unit", "binding", "margin",
		self ? "measured" : "published", self ? "proj/meas" : "proj/pub");
	for (size_t k = from; k < to; k++) {
		const struct rr_proj *p = &an->proj[k];
		char *label = p->pub ? rr_pub_label(p->pub) : NULL;
		char name[200], src[120];
		snprintf(name, sizeof(name), "%s%s%s", p->pub ? p->pub->workload : "",
			 p->pub ? " " : "", label ? label : p->actual->test);
		snprintf(src, sizeof(src), "%s (%s)", p->src->test, p->target);
		char pub[24] = "-", ratio[24] = "-"; /* none published for this test */
		if (!isnan(p->published))
			snprintf(pub, sizeof(pub), "%.4g", p->published);
		if (!isnan(p->ratio))
			snprintf(ratio, sizeof(ratio), "%.3f", p->ratio);
		fprintf(f, "%-44.44s %-42.42s %4d %12.4g %-5s %-12s %6.2fx %12s %9s\n", name, src,
			p->members * p->arrays, p->projected, p->unit, bound_name(p, p->binding),
			p->margin, pub, ratio);
		for (int i = 0; i < RR_NBOUNDS; i++)
			if (isnan(p->b[i].value))
				fprintf(f, "    %-12s %12s  %s\n", p->b[i].name, "-", p->b[i].how);
			else
				fprintf(f, "    %-12s %12.4g  %s\n", p->b[i].name, p->b[i].value,
					p->b[i].how);
		fprintf(f,
			"    inputs: %s, %.3g member I/Os per I/O modelled here (%.3g measured at "
			"%d members: %.3g), CPU %.3g us/I/O measured (%s) -> %.3g\n",
			p->io.strategy, rr_ioc_per_io(&p->io, 0), rr_ioc_per_io(&p->io_src, 0),
			p->src->members, p->io_src_measured, p->cpu_us_src, p->cpu_source,
			p->cpu_us);
		if (*p->flag)
			fprintf(f, "    PHYSICAL LIMIT: %s\n", p->flag);
		free(label);
	}
}
