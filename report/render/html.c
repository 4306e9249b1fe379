/* report/render/html.c: index.html, one page (inline CSS, the charts linked by relative path,
 * nothing fetched from the network): the run's facts, the charts (or why each was skipped),
 * the summary table and the measured-vs-published comparison. */
#include "report/render/render.h"

#include <errno.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static void esc(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '<':
			fputs("&lt;", f);
			break;
		case '>':
			fputs("&gt;", f);
			break;
		case '&':
			fputs("&amp;", f);
			break;
		case '"':
			fputs("&quot;", f);
			break;
		default:
			fputc(*s, f);
		}
	}
}

static void td_num(FILE *f, double v)
{
	fputs("<td class=n>", f);
	if (!isnan(v))
		rr_csv_num(f, v);
	fputs("</td>", f);
}

static void td_str(FILE *f, const char *s)
{
	fputs("<td>", f);
	esc(f, s);
	fputs("</td>", f);
}

static void td_int(FILE *f, long v, int present)
{
	fputs("<td class=n>", f);
	if (present)
		fprintf(f, "%ld", v);
	fputs("</td>", f);
}

static const char css[] =
    "body{font-family:sans-serif;margin:2em auto;max-width:1500px;color:#222}"
    "h1{font-size:1.6em}h2{border-bottom:1px solid #ccc;margin-top:2em}"
    "table{border-collapse:collapse;font-size:12px;margin:1em 0}"
    "th,td{border:1px solid #ddd;padding:2px 6px;vertical-align:top}"
    "th{background:#f0f0f0;position:sticky;top:0}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums}tr:nth-child(even){background:#fafafa}"
    "figure{margin:1.5em 0}figure img{max-width:100%;border:1px solid #eee}"
    "figcaption{font-size:13px;color:#555}.skip{color:#777;font-style:italic}"
    ".note{background:#fff8e1;border-left:4px solid #f0b400;padding:.5em 1em}"
    ".wide{overflow-x:auto}td:first-child{white-space:nowrap}"
    "table.facts th{text-align:left}td.raw{font-family:monospace;font-size:11px;"
    "word-break:break-all}details{margin:1em 0}tr.sum td{font-weight:bold;"
    "border-bottom:2px solid #bbb}";

static json_object *jget(json_object *o, const char *path)
{
	char key[128];
	while (o && *path) {
		size_t n = strcspn(path, ".");
		snprintf(key, sizeof(key), "%.*s", (int)n, path);
		json_object *v = NULL;
		if (!json_object_is_type(o, json_type_object) ||
		    !json_object_object_get_ex(o, key, &v))
			return NULL;
		o = v;
		path += n + (path[n] == '.');
	}
	return o;
}

static const char *jtext(json_object *v)
{
	if (!v)
		return "";
	return json_object_is_type(v, json_type_string)
		   ? json_object_get_string(v)
		   : json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
}

static void fact(FILE *f, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void fact(FILE *f, const char *name, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fputs("<tr><th>", f);
	esc(f, name);
	fputs("</th><td>", f);
	esc(f, buf);
	fputs("</td></tr>\n", f);
}

/* The facts a reader needs first, then every key of run.json (nested objects flattened one
 * level, "host.cores") folded away. */
static void facts(FILE *f, const struct rr_run *run)
{
	json_object *rj = run->run_json;
	fputs("<h2 id=facts>Run</h2>\n<table class=facts>\n", f);
	fact(f, "run", "%s (%s)", run->id, run->dir);
	if (rj) {
		double mem = json_object_get_double(jget(rj, "host.memory_bytes"));
		fact(f, "host", "%s: %s, %s socket(s), %s cores, %.1f GiB memory, kernel %s",
		     jtext(jget(rj, "host.hostname")), jtext(jget(rj, "host.cpu_model")),
		     jtext(jget(rj, "host.sockets")), jtext(jget(rj, "host.cores")),
		     mem / (1 << 30), jtext(jget(rj, "kernel")));
		if (!isnan(run->mem_bw_gbps))
			fact(f, "memory bandwidth", "%.1f GB/s on one core (%s)", run->mem_bw_gbps,
			     jtext(jget(rj, "host.mem_bw_method")));
		else
			fact(f, "memory bandwidth", "not measured (no host.mem_bw_gbps)");
		fact(f, "software", "%s, engine %s (git %s)", jtext(jget(rj, "fio_version")),
		     jtext(jget(rj, "engine.built"))[0] == 't' ? "built" : "not built",
		     jtext(jget(rj, "engine.git")));
		const char *drives = jtext(jget(rj, "options.drives"));
		double msz = json_object_get_double(jget(rj, "member_size"));
		if (*drives)
			fact(f, "members", "drives %s (%.0f MiB of each used)", drives,
			     msz / (1 << 20));
		else
			fact(f, "members",
			     "files of %.0f MiB in %s: figures measure this host's file I/O path, "
			     "not drives",
			     msz / (1 << 20), jtext(jget(rj, "options.scratch")));
		fact(f, "preset", "%s: %s", run->preset, jtext(jget(rj, "preset_doc")));
		fact(f, "scale", "%s of the published threads and queue depth; %s s per test",
		     jtext(jget(rj, "scale")), jtext(jget(rj, "runtime_s")));
		fact(f, "profile", "%s", jtext(jget(rj, "profile.name")));
		if (jget(rj, "counts"))
			fact(f, "tests", "%s ok, %s skipped, %s failed; started %s, finished %s",
			     jtext(jget(rj, "counts.ok")), jtext(jget(rj, "counts.skipped")),
			     jtext(jget(rj, "counts.failed")), jtext(jget(rj, "started")),
			     jtext(jget(rj, "finished")));
	}
	fact(f, "reported", "%zu tests with fio output, %zu without%s", run->ntests, run->nleft_out,
	     run->ended ? "" : "; the run was interrupted (run.json has no \"finished\")");
	fputs("</table>\n", f);
	if (run->nleft_out) {
		fputs(
		    "<p>Tests the run recorded without fio output (not in the charts or "
		    "tables):</p>\n<table>\n<tr><th>test</th><th>status</th><th>reason</th></tr>\n",
		    f);
		for (size_t i = 0; i < run->nleft_out; i++) {
			fputs("<tr>", f);
			td_str(f, run->left_out[i].test);
			td_str(f, run->left_out[i].status);
			td_str(f, run->left_out[i].reason);
			fputs("</tr>\n", f);
		}
		fputs("</table>\n", f);
	}
	if (!rj) {
		fputs("<p class=skip>run.json is absent: no host facts.</p>\n", f);
		return;
	}
	fputs("<details><summary>Everything in run.json</summary>\n<table>\n", f);
	json_object_object_foreach(rj, key, val)
	{
		if (val && json_object_is_type(val, json_type_object)) {
			json_object_object_foreach(val, k2, v2)
			{
				fputs("<tr><th>", f);
				esc(f, key);
				fputc('.', f);
				esc(f, k2);
				fputs("</th><td class=raw>", f);
				esc(f, v2 ? jtext(v2) : "null");
				fputs("</td></tr>\n", f);
			}
			continue;
		}
		fputs("<tr><th>", f);
		esc(f, key);
		fputs("</th><td class=raw>", f);
		esc(f, val ? jtext(val) : "null");
		fputs("</td></tr>\n", f);
	}
	fputs("</table></details>\n", f);
}

static void charts(FILE *f, const struct rr_charts *c)
{
	fputs("<h2 id=charts>Charts</h2>\n", f);
	fputs("<p>Orange bars and dashed lines are published figures from other hardware, named in "
	      "each label; the other colours are this run. Labels read level x members [parity "
	      "path] chunk, then queue depth and jobs as this run ran them (QnTm). Click a chart "
	      "for its SVG.</p>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct rr_chart *ch = &c->list[i];
		if (!ch->drawn)
			continue;
		fprintf(f,
			"<figure id=\"%s\"><a href=\"charts/%s.svg\"><img src=\"charts/%s.png\" "
			"alt=\"",
			ch->name, ch->name, ch->name);
		esc(f, ch->title);
		fputs("\"></a><figcaption>", f);
		esc(f, ch->title);
		fputs("</figcaption></figure>\n", f);
	}
	size_t skipped = 0;
	for (size_t i = 0; i < c->n; i++)
		skipped += !c->list[i].drawn;
	if (!skipped)
		return;
	fputs("<p>Not drawn: this run has no data for them (no chart is drawn empty).</p>\n<ul>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct rr_chart *ch = &c->list[i];
		if (ch->drawn)
			continue;
		fputs("<li class=skip>", f);
		esc(f, ch->title);
		fputs(": not drawn, ", f);
		esc(f, ch->why);
		fputs(".</li>\n", f);
	}
	fputs("</ul>\n", f);
}

static void size_str(long v, char *buf, size_t len)
{
	if (v <= 0)
		buf[0] = '\0';
	else if (v % 1048576 == 0)
		snprintf(buf, len, "%ldM", v / 1048576);
	else if (v % 1024 == 0)
		snprintf(buf, len, "%ldk", v / 1024);
	else
		snprintf(buf, len, "%ld", v);
}

/* The figures of the summary table; a column no test has is left out of the page. The
 * percentiles are the total latency's, or clat's in their own columns where fio recorded no
 * lat percentiles (never one under the other's name). */
#define NFIG 22
static void figures(const struct rr_test *t, double v[NFIG])
{
	double l = t->pct_clat ? NAN : 1, c = t->pct_clat ? 1 : NAN;
	double x[NFIG] = {t->iops,
			  t->mbps,
			  t->lat_mean_us,
			  l * t->lat_p50_us,
			  l * t->lat_p99_us,
			  l * t->lat_p999_us,
			  l * t->lat_p9999_us,
			  t->slat_mean_us,
			  t->clat_mean_us,
			  c * t->lat_p50_us,
			  c * t->lat_p99_us,
			  c * t->lat_p999_us,
			  c * t->lat_p9999_us,
			  t->little_l,
			  t->cpu_usr,
			  t->cpu_sys,
			  t->cpu_us_per_io,
			  t->member_ios_per_io,
			  t->parity_gbps,
			  t->rebuild_s,
			  t->rebuild_mbps,
			  t->rebuild_min_per_tb};
	memcpy(v, x, sizeof(x));
}

static void summary(FILE *f, const struct rr_run *run)
{
	static const char *const head[] = {"test",  "level", "members", "chunk", "parity",
					   "state", "rw",    "bs",	"QD",	 "jobs"};
	static const char *const fhead[NFIG] = {
	    "IOPS",	       "MB/s",		"lat mean us",	   "lat p50 us",
	    "lat p99 us",      "lat p99.9 us",	"lat p99.99 us",   "slat mean us",
	    "clat mean us",    "clat p50 us",	"clat p99 us",	   "clat p99.9 us",
	    "clat p99.99 us",  "IOPS x lat (in flight)", "CPU usr %", "CPU sys %",
	    "CPU us per I/O",  "member I/Os per I/O",	"parity GB/s",	   "rebuild s",
	    "rebuild MB/s",    "rebuild min/TB"};
	int used[NFIG] = {0};
	double v[NFIG];
	for (size_t i = 0; i < run->ntests; i++) {
		figures(&run->tests[i], v);
		for (int k = 0; k < NFIG; k++)
			used[k] |= !isnan(v[k]);
	}
	fputs("<h2 id=summary>Summary</h2>\n", f);
	if (*run->emulation)
		fprintf(f,
			"<p class=note>Every figure of this run was measured under emulation (%s: "
			"the md appliance without KVM). fio's clock and the I/O path are QEMU's: "
			"the figures compare the targets only roughly and no other run's.</p>\n",
			run->emulation);
	size_t missed = rr_little_missed(run);
	if (missed) {
		fprintf(f,
			"<p class=note>%zu test%s missed Little's law: IOPS x mean total latency is "
			"more than 25%% away from the I/Os fio kept in flight (QD x jobs), so "
			"their latency or IOPS cannot both be right (a clock that runs wrong under "
			"emulation, a latency that is not the total):",
			missed, missed > 1 ? "s" : "");
		for (size_t i = 0; i < run->ntests; i++) {
			struct rr_little lc = rr_little_check(&run->tests[i]);
			if (lc.v != RR_LITTLE_MISSED)
				continue;
			fputs(" <b>", f);
			esc(f, run->tests[i].test);
			fprintf(f, "</b> (%.3g of %.0f)", lc.l, lc.n);
		}
		fputs(".</p>\n", f);
	}
	fputs("<p>Also as <a href=\"summary.csv\">summary.csv</a> and "
	      "<a href=\"summary.json\">summary.json</a>. MB/s is 10<sup>6</sup> bytes/s. "
	      "Latency is fio's total latency of an I/O (lat = slat + clat: submission and "
	      "completion) over all jobs and directions; its percentiles are lat's where fio "
	      "recorded them (lat_percentiles=1), else clat's, in the clat columns. IOPS x lat is "
	      "the I/Os in flight that the two imply (Little's law): in a closed loop of QD x "
	      "jobs >= 4 it must be within 25% of QD x jobs (the Little column; MISSED where "
	      "not). CPU % is the whole test's "
	      "usr/sys time in % of one core (fio's figure for the job threads: the kernel's "
	      "io_uring workers and engine worker threads are not in it); CPU us per I/O is that "
	      "time over the I/Os. Member I/Os per I/O and parity GB/s (parity bytes over the "
	      "CPU time spent on parity) come from the engine's stats; JBOD tests have none. A "
	      "test run with fio's steady-state criterion (run.sh --steadystate) that ended at its "
	      "cap without reaching it says \"steady state NOT reached\" beside its name.</p>\n"
	      "<div class=wide><table>\n<tr>",
	      f);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(f, "<th>%s</th>", head[i]);
	for (int k = 0; k < NFIG; k++)
		if (used[k])
			fprintf(f, "<th>%s</th>", fhead[k]);
	fputs("<th>Little</th>", f);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		char b[32];
		fputs("<tr>", f);
		if (t->steady && !strcmp(t->steady, "not reached")) {
			/* fio's steadystate= ended at its cap: a figure of a drive still changing */
			char name[400];
			snprintf(name, sizeof(name), "%s (steady state NOT reached)", t->test);
			td_str(f, name);
		} else {
			td_str(f, t->test);
		}
		td_str(f, rr_level_name(t));
		td_int(f, t->members, t->members > 0);
		size_str(t->chunk, b, sizeof(b));
		td_str(f, b);
		td_str(f, t->parity);
		td_str(f, t->state);
		td_str(f, t->rw);
		size_str(t->bs, b, sizeof(b));
		td_str(f, b);
		td_int(f, t->iodepth, t->iodepth > 0);
		td_int(f, t->numjobs, t->numjobs > 0);
		figures(t, v);
		for (int k = 0; k < NFIG; k++)
			if (used[k])
				td_num(f, v[k]);
		struct rr_little lc = rr_little_check(t);
		td_str(f, lc.v == RR_LITTLE_OK ? "ok" : lc.v == RR_LITTLE_MISSED ? "MISSED" : "-");
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n", f);
}

/* The published reference of a level's row: RAID0 (or JBOD) of the same review, host,
 * drives, engine, workload, direction, state and metric. */
static const struct rr_pub *pub_reference(const struct rr_pubset *pub, const struct rr_pub *r)
{
	if (!strcmp(r->array, "raid0") || !strcmp(r->array, "jbod") ||
	    (strcmp(r->metric, "bw") && strcmp(r->metric, "iops")))
		return NULL;
	for (const char *ref = "raid0"; ref; ref = strcmp(ref, "raid0") ? NULL : "jbod")
		for (size_t k = 0; k < pub->n; k++) {
			const struct rr_pub *o = &pub->rows[k];
			if (!strcmp(o->array, ref) && !strcmp(o->source, r->source) &&
			    !strcmp(o->host, r->host) && o->drives == r->drives &&
			    !strcmp(o->engine, r->engine) && !strcmp(o->workload, r->workload) &&
			    !strcmp(o->rw, r->rw) && !strcmp(o->state, r->state) &&
			    !strcmp(o->metric, r->metric) && o->value > 0)
				return o;
		}
	return NULL;
}

/* This run's test of the reference level on the same members and chunk as t. */
static const struct rr_test *run_reference(const struct rr_run *run, const struct rr_pub *ref,
					   const struct rr_test *t)
{
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *o = &run->tests[i];
		/* a level against RAID0 of its own target (md's RAID5 over md's RAID0); JBOD
		 * serves every target */
		if (rr_pub_matches(ref, o) && o->members == t->members &&
		    (!strcmp(ref->array, "jbod") || !strcmp(o->target, t->target)) &&
		    (!strcmp(ref->array, "jbod") || o->chunk == t->chunk) && o->bs == t->bs &&
		    o->iodepth == t->iodepth && o->numjobs == t->numjobs)
			return o;
	}
	return NULL;
}

/* Ratios within one host carry across hardware: a level against RAID0 (or JBOD) measured
 * here, beside the same ratio in the review. */
static void published_ratios(FILE *f, const struct rr_run *run, const struct rr_pubset *pub)
{
	size_t rows = 0;
	for (size_t p = 0; p < pub->n; p++) {
		const struct rr_pub *r = &pub->rows[p], *ref = pub_reference(pub, r);
		if (!ref)
			continue;
		for (size_t i = 0; i < run->ntests; i++) {
			const struct rr_test *t = &run->tests[i], *o;
			if (!rr_pub_matches(r, t) || !(o = run_reference(run, ref, t)))
				continue;
			double mv = rr_pub_measured(r, t) / rr_pub_measured(ref, o);
			if (!rows++) {
				fputs(
				    "<h3>Level against RAID0 / JBOD: ratios on the same "
				    "hardware</h3>\n"
				    "<p>Each ratio divides a level's figure by RAID0's of the same "
				    "target (the engine's by the engine's, md's by md's; JBOD's serves "
				    "every target) on the same host and drives, measured here and in "
				    "the review: "
				    "this compares what the level costs, which carries across "
				    "hardware better than absolute figures.</p>\n"
				    "<div class=wide><table>\n<tr><th>this run</th><th>against</th>",
				    f);
				fprintf(f,
					"<th>measured ratio%s</th><th>published ratio</th><th>"
					"published figures</th><th>published on</th><th>source</th>"
					"</tr>\n",
					*run->emulation ? " (emulated, not comparable)" : "");
			}
			char pubfig[160], on[256];
			snprintf(pubfig, sizeof(pubfig), "%s %s: %g / %g %s", r->array, ref->array,
				 r->value, ref->value, r->unit);
			snprintf(on, sizeof(on), "%s, %dx %s, %s", r->host, r->drives,
				 r->drive_model, r->engine);
			fputs("<tr>", f);
			td_str(f, t->test);
			td_str(f, o->test);
			td_num(f, mv);
			td_num(f, r->value / ref->value);
			td_str(f, pubfig);
			td_str(f, on);
			td_str(f, r->source);
			fputs("</tr>\n", f);
		}
	}
	if (rows)
		fputs("</table></div>\n", f);
}

static void published(FILE *f, const struct rr_run *run, const struct rr_pubset *pub)
{
	fputs("<h2 id=published>Measured vs published</h2>\n", f);
	if (!pub->n) {
		fputs("<p class=skip>No published figures were loaded.</p>\n", f);
		return;
	}
	size_t rows = 0, other_host = 0;
	for (size_t p = 0; p < pub->n; p++)
		for (size_t i = 0; i < run->ntests; i++)
			if (rr_pub_matches(&pub->rows[p], &run->tests[i])) {
				rows++;
				other_host += strcmp(pub->rows[p].host, run->host) != 0;
			}
	if (!rows) {
		fputs("<p class=skip>No test of this run reproduces a published test (matched by "
		      "workload, array level, rw and state).</p>\n",
		      f);
		return;
	}
	if (other_host) {
		fputs(
		    "<p class=note>This run's hardware differs from the published hosts: this run "
		    "ran on <b>",
		    f);
		esc(f, run->made_on);
		fputs("</b>, the published figures come from the hosts and drives named in each "
		      "row, at the published depth and jobs (this run's are in the summary). "
		      "Absolute figures are shown side by side, not divided; compare the ratios "
		      "below.</p>\n",
		      f);
	}
	fputs("<h3>Absolute figures</h3>\n<div class=wide><table>\n<tr><th>test</th>"
	      "<th>this run: members, QnTm</th><th>measured</th><th>published</th><th>unit</th>",
	      f);
	if (!other_host)
		fputs("<th>measured / published</th>", f);
	fputs("<th>published on</th><th>published engine, QnTm</th><th>source</th><th>note</th>"
	      "</tr>\n",
	      f);
	for (size_t p = 0; p < pub->n; p++) {
		const struct rr_pub *r = &pub->rows[p];
		for (size_t i = 0; i < run->ntests; i++) {
			const struct rr_test *t = &run->tests[i];
			if (!rr_pub_matches(r, t))
				continue;
			const char *unit;
			double pv = rr_pub_value(r, &unit), mv = rr_pub_measured(r, t);
			char on[256], ours[64], eng[96];
			snprintf(on, sizeof(on), "%s, %dx %s", r->host, r->drives, r->drive_model);
			snprintf(ours, sizeof(ours), "%d, Q%dT%d", t->members, t->iodepth,
				 t->numjobs);
			snprintf(eng, sizeof(eng), "%s, Q%dT%d", r->engine, r->iodepth, r->numjobs);
			fputs("<tr>", f);
			td_str(f, t->test);
			td_str(f, ours);
			td_num(f, mv);
			td_num(f, pv);
			td_str(f, unit);
			if (!other_host)
				td_num(f, pv > 0 ? mv / pv : NAN);
			td_str(f, on);
			td_str(f, eng);
			td_str(f, r->source);
			td_str(f, r->note);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></div>\n", f);
	published_ratios(f, run, pub);
	fputs("<p>Sources: results/reference/README.md. A rebuild time is compared per TB of the "
	      "rebuilt drive.</p>\n",
	      f);
}

void rr_html_esc(FILE *f, const char *s)
{
	esc(f, s);
}

int rr_write_html(const struct rr_run *run, const struct rr_pubset *pub, const struct rr_charts *c,
		  char *err, size_t errlen)
{
	FILE *f = rr_out_open(run, "index.html", err, errlen);
	if (!f)
		return -EIO;
	fputs("<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=\"utf-8\">\n<title>fio-raid "
	      "report: ",
	      f);
	esc(f, run->id);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>fio-raid report: ", css);
	esc(f, run->id);
	fputs("</h1>\n<p>Preset <b>", f);
	esc(f, *run->preset ? run->preset : "?");
	fputs("</b> on <b>", f);
	esc(f, run->made_on);
	fprintf(f,
		"</b>, %zu tests. <a href=#facts>Run</a> &middot; <a href=#charts>Charts</a> "
		"&middot; <a href=#summary>Summary</a>%s &middot; <a href=#published>Measured vs "
		"published</a> &middot; <a href=#efficiency>Efficiency</a> &middot; <a "
		"href=#projection>Projection</a> &middot; <a href=#selfcheck>Self-check</a></p>\n",
		run->ntests,
		rr_run_has_targets(run) ? " &middot; <a href=#targets>Targets</a>" : "");
	if (*run->emulation)
		fprintf(f,
			"<p class=note><b>Measured under emulation (%s).</b> Every figure, table, "
			"chart and ratio of this page comes from the md appliance without KVM: fio's "
			"clock and every I/O path are emulated, so the figures show what works, not "
			"what a machine does, and compare with no other run.</p>\n",
			run->emulation);
	facts(f, run);
	charts(f, c);
	summary(f, run);
	rr_recovery_html(f, run);
	rr_targets_html(f, run);
	rr_html_hosts(f, run);
	published(f, run, pub);
	rr_an_html(f, run);
	fputs("</body>\n</html>\n", f);
	return rr_out_close(f, run, "index.html", err, errlen);
}

/* for the page's other sections (hosts.c) */
void rr_html_td_num(FILE *f, double v)
{
	td_num(f, v);
}

void rr_html_td_str(FILE *f, const char *s)
{
	td_str(f, s);
}
