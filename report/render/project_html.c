/* report/render/project_html.c: the page's efficiency and projection sections and their charts:
 * efficiency (each RAID test as a fraction of its JBOD and of its I/O-count bound, the
 * published fractions beside), projection (projected beside published, with the binding
 * limit in the label) and selfcheck (this machine's larger configurations projected from
 * the smaller ones beside what they measured: the model's error, in the open). */
#include "report/render/render.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* "SEQ1M-192T16Q write raid5 24x mdadm c4k": the chart's title names the host */
static void short_pub(const struct rr_pub *p, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s %dx %s%s%s%s%s", p->workload, p->rw, p->array, p->drives,
		 p->engine, *p->chunk ? " c" : "", p->chunk, strcmp(p->state, "optimal") ? " " : "",
		 strcmp(p->state, "optimal") ? p->state : "");
}

void rr_an_charts(const struct rr_run *run, const char *dir, struct rr_charts *c)
{
	const struct rr_analysis *an = run->an;
	if (!an)
		return;
	struct bars *eb = rr_bars_new(), *pb = rr_bars_new(), *sb = rr_bars_new();
	char l[480];
	size_t measured = 0;
	for (size_t i = 0; i < an->neff; i++) {
		const struct rr_eff *e = &an->eff[i];
		if (isnan(e->eff_jbod))
			continue;
		if (e->t) {
			snprintf(l, sizeof(l), "%s: of %s", e->t->test, e->raw);
			rr_bars_add(eb, 0, e->eff_jbod, l);
			snprintf(l, sizeof(l), "%s: of JBOD / %.3g %s (%s)", e->t->test,
				 e->io_per_io, rr_is_large(e->t) ? "bytes" : "I/Os", e->io_source);
			rr_bars_add(eb, 2, e->eff_bound, l);
			measured++;
			continue;
		}
		char pl[160];
		short_pub(e->pub, pl, sizeof(pl));
		snprintf(l, sizeof(l), "%s [%s]: of %s", pl, e->pub->source, e->raw);
		rr_bars_add(eb, 1, e->eff_jbod, l);
		snprintf(l, sizeof(l), "%s [%s]: of the raw / %.3g (model, %d members)", pl,
			 e->pub->source, e->io_per_io, e->members);
		rr_bars_add(eb, 3, e->eff_bound, l);
	}
	if (!measured) { /* published fractions alone are not this run's chart */
		rr_bars_free(eb);
		eb = rr_bars_new();
	}
	const char *es[] = {"run: of JBOD", "published: of JBOD or spec", "run: of I/O bound",
			    "published: of I/O bound"};
	rr_bar_chart(dir, c, "efficiency",
		     "Efficiency: fraction of JBOD on the same drives, and of JBOD / member I/Os",
		     "fraction", eb, es, 4,
		     "no RAID test has a JBOD of the same members and workload in this run");
	for (size_t k = 0; k < an->nproj; k++) {
		const struct rr_proj *p = &an->proj[k];
		struct bars *b = k < an->nproj - an->nself ? pb : sb;
		const char *bind = p->binding >= 0 ? p->b[p->binding].name : "none";
		if (p->pub) {
			char pl[160];
			short_pub(p->pub, pl, sizeof(pl));
			snprintf(l, sizeof(l), "%s: from %s, binds %s, %.3gx", pl, p->src->test,
				 bind, p->ratio);
			rr_bars_add(b, 0, p->projected, l);
			snprintf(l, sizeof(l), "%s: published%s", pl,
				 *p->flag ? " (above what its own path can carry)" : "");
			rr_bars_add(b, 1, p->published, l);
		} else {
			snprintf(l, sizeof(l), "%s: from %s, binds %s, error %+.0f%%",
				 p->actual->test, p->src->test, bind, 100 * (p->ratio - 1));
			rr_bars_add(b, 0, p->projected, l);
			snprintf(l, sizeof(l), "%s: measured", p->actual->test);
			rr_bars_add(b, 2, p->published, l);
		}
	}
	char title[200];
	snprintf(title, sizeof(title),
		 "Projection onto %s (MB/s or IOPS as published; x: projected / published)",
		 *an->profile ? an->profile : "no host");
	const char *ps[] = {"projected from this run", "published"};
	rr_bar_chart(dir, c, "projection", title, "MB/s or IOPS", pb, ps, 2,
		     *an->note ? an->note : "no published test of the host matches a test here");
	const char *ss[] = {"projected from fewer members", "", "measured"};
	rr_bar_chart(dir, c, "selfcheck",
		     "Self-check: this machine's larger configurations projected from the smaller "
		     "ones, beside what they measured",
		     "MB/s or IOPS", sb, ss, 3,
		     "no configuration was run at two member counts (the selfcheck preset does)");
	rr_bars_free(eb);
	rr_bars_free(pb);
	rr_bars_free(sb);
}

static void cell(FILE *f, const char *s)
{
	fputs("<td>", f);
	rr_html_esc(f, s);
	fputs("</td>", f);
}

static void ncell(FILE *f, double v)
{
	fputs("<td class=n>", f);
	if (isfinite(v))
		rr_csv_num(f, v);
	fputs("</td>", f);
}

static void proj_table(FILE *f, const struct rr_analysis *an, size_t from, size_t to, int self)
{
	fprintf(f,
		"<div class=wide><table>\n<tr><th>%s</th><th>projected from (target)</th>"
		"<th>drives</th><th>projected</th><th>unit</th><th>binding</th><th>margin to "
		"next</th><th>%s</th><th>%s</th><th>bounds</th><th>inputs</th>%s</tr>\n",
		self ? "configuration measured here" : "published test",
		self ? "measured" : "published",
		self ? "projected / measured" : "projected / published",
		self ? "" : "<th>what its own hardware can carry</th>");
	for (size_t k = from; k < to; k++) {
		const struct rr_proj *p = &an->proj[k];
		char *pl = p->pub ? rr_pub_label(p->pub) : NULL;
		char buf[600], src[160];
		snprintf(buf, sizeof(buf), "%s%s%s", p->pub ? p->pub->workload : "",
			 p->pub ? " " : "", pl ? pl : p->actual->test);
		snprintf(src, sizeof(src), "%s (%s)", p->src->test, p->target);
		fputs("<tr>", f);
		cell(f, buf);
		cell(f, src);
		fprintf(f, "<td class=n>%d</td>", p->members * p->arrays);
		ncell(f, p->projected);
		cell(f, p->unit);
		cell(f, p->binding >= 0 ? p->b[p->binding].name : "no bound known");
		ncell(f, p->margin);
		ncell(f, p->published);
		ncell(f, p->ratio);
		fputs("<td>", f);
		for (int i = 0; i < RR_NBOUNDS; i++) {
			if (isnan(p->b[i].value))
				snprintf(buf, sizeof(buf), "%s: - (%s)", p->b[i].name, p->b[i].how);
			else
				snprintf(buf, sizeof(buf), "%s: %.4g = %s", p->b[i].name,
					 p->b[i].value, p->b[i].how);
			rr_html_esc(f, buf);
			fputs(i + 1 < RR_NBOUNDS ? "<br>" : "", f);
		}
		fputs("</td>", f);
		snprintf(
		    buf, sizeof(buf),
		    "%s; member I/Os per I/O %.3g here, %.3g modelled and %.3g measured at %d "
		    "members; CPU %.3g us/I/O measured (%s), %.3g of it parity, %.3g projected; "
		    "parity %.3g GB/s/core (%s) on %d core(s); stripe-lock waits %.3g per I/O",
		    p->io.strategy, rr_ioc_per_io(&p->io, 0), rr_ioc_per_io(&p->io_src, 0),
		    p->io_src_measured, p->src->members, p->cpu_us_src, p->cpu_source,
		    p->parity_us_src, p->cpu_us, p->parity_gbps_core,
		    *p->parity_source ? p->parity_source : "none", p->parity_cores,
		    p->stripe_waits_per_io);
		cell(f, buf);
		if (!self)
			cell(f, *p->flag ? p->flag : "within its path's limits");
		fputs("</tr>\n", f);
		free(pl);
	}
	fputs("</table></div>\n", f);
}

void rr_an_html(FILE *f, const struct rr_run *run)
{
	const struct rr_analysis *an = run->an;
	if (!an)
		return;
	fputs("<h2 id=efficiency>Efficiency against the raw drives</h2>\n<p>Each RAID test as a "
	      "fraction of this run's JBOD on the same members and workload, and of its I/O-count "
	      "bound (that JBOD over the member I/Os, or for large blocks member bytes, each "
	      "volume I/O costs: the engine's stats, or the level's model where there are none). "
	      "The published fractions divide by the review's JBOD row where it has one, else by "
	      "the drives' spec sheet in the host profile (marked spec). Also in "
	      "<a href=\"efficiency.csv\">efficiency.csv</a>; the model: docs/report.md.</p>\n"
	      "<div class=wide><table>\n<tr><th>test</th><th>figure</th><th>raw side</th>"
	      "<th>raw</th><th>of raw</th><th>member I/Os per I/O</th><th>of the I/O-count "
	      "bound</th><th>above its bound: the assumption it broke</th></tr>\n",
	      f);
	for (size_t i = 0; i < an->neff; i++) {
		const struct rr_eff *e = &an->eff[i];
		char *pl = e->pub ? rr_pub_label(e->pub) : NULL;
		char name[300], io[64], raw[240];
		snprintf(name, sizeof(name), "%s%s%s", e->pub ? e->pub->workload : "",
			 e->pub ? " " : "", pl ? pl : e->t->test);
		snprintf(io, sizeof(io), isnan(e->io_per_io) ? "" : "%.3g (%s)", e->io_per_io,
			 e->io_source);
		fputs("<tr>", f);
		cell(f, name);
		ncell(f, e->figure);
		snprintf(raw, sizeof(raw), e->raw_figure > 0 ? "%s (%s)" : "%s", e->raw,
			 e->raw_figure > 0 ? e->raw_kind : "");
		cell(f, raw);
		ncell(f, e->raw_figure);
		ncell(f, e->eff_jbod);
		cell(f, io);
		ncell(f, e->eff_bound);
		cell(f, e->above);
		fputs("</tr>\n", f);
		free(pl);
	}
	fputs("</table></div>\n", f);

	size_t npub = an->nproj - an->nself;
	fputs("<h2 id=projection>Projection onto the reviewed host</h2>\n", f);
	if (!npub) {
		fputs("<p class=skip>No projection: ", f);
		rr_html_esc(f, *an->note
				   ? an->note
				   : "no published test of the host matches a test of this run");
		fputs(". <code>raid-report project RUN --profile NAME</code> projects onto any "
		      "profile.</p>\n",
		      f);
	} else {
		fputs("<p>Each test measured here, projected onto <b>", f);
		rr_html_esc(f, an->profile);
		fputs(
		    "</b> at the published drive count: the least of the bounds its path meets "
		    "there (the profile's drives, links, sockets, memory, cores and GPU with this "
		    "run's CPU time per I/O, parity rate and member I/Os per I/O), the one that "
		    "binds "
		    "named with the margin to the next. The last column tests the published figure "
		    "against what its own hardware can carry by its path. Also in "
		    "<a href=\"projection.csv\">projection.csv</a>.</p>\n",
		    f);
		proj_table(f, an, 0, npub, 0);
	}
	fputs("<h2 id=selfcheck>Self-check on this machine</h2>\n", f);
	if (!an->nself) {
		fputs("<p class=skip>This run has no configuration at two member counts; the "
		      "selfcheck preset runs them (<code>./run.sh selfcheck</code>).</p>\n",
		      f);
		return;
	}
	fputs("<p>The model's check: each configuration run here at more than one member count, "
	      "projected from its smallest onto this machine's profile (its members' rate is "
	      "what this run's JBOD got from each), beside what it measured. The ratio's "
	      "distance from 1 is the model's error on this machine, in this run.</p>\n",
	      f);
	proj_table(f, an, npub, an->nproj, 1);
}
