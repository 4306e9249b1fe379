/* report/html.c: index.html, one self-contained page (inline CSS, images by relative path,
 * nothing fetched from the network): the run's facts, the charts (or why each was skipped),
 * the summary table and the measured-vs-published comparison. */
#include "report/report.h"

#include <errno.h>
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
    ".wide{overflow-x:auto}td:first-child{white-space:nowrap}";

/* run.json as key/value rows, nested objects flattened one level ("host.cores") */
static void facts(FILE *f, const struct rr_run *run)
{
	fputs("<h2 id=facts>Run</h2>\n<table>\n", f);
	fputs("<tr><th>run</th><td>", f);
	esc(f, run->id);
	fputs("</td></tr>\n<tr><th>directory</th><td>", f);
	esc(f, run->dir);
	fprintf(f, "</td></tr>\n<tr><th>tests</th><td>%zu</td></tr>\n", run->ntests);
	if (!run->run_json) {
		fputs("<tr><th>run.json</th><td class=skip>absent</td></tr>\n", f);
	} else {
		json_object_object_foreach(run->run_json, key, val)
		{
			if (val && json_object_is_type(val, json_type_object)) {
				json_object_object_foreach(val, k2, v2)
				{
					fputs("<tr><th>", f);
					esc(f, key);
					fputc('.', f);
					esc(f, k2);
					fputs("</th><td>", f);
					esc(f, v2 && json_object_is_type(v2, json_type_string)
						   ? json_object_get_string(v2)
					       : v2 ? json_object_to_json_string_ext(
							  v2, JSON_C_TO_STRING_PLAIN |
								  JSON_C_TO_STRING_NOSLASHESCAPE)
						    : "null");
					fputs("</td></tr>\n", f);
				}
				continue;
			}
			fputs("<tr><th>", f);
			esc(f, key);
			fputs("</th><td>", f);
			esc(f, val ? (json_object_is_type(val, json_type_string)
					  ? json_object_get_string(val)
					  : json_object_to_json_string_ext(
						val, JSON_C_TO_STRING_PLAIN |
							 JSON_C_TO_STRING_NOSLASHESCAPE))
				   : "null");
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</table>\n", f);
}

static void charts(FILE *f, const struct rr_charts *c)
{
	fputs("<h2 id=charts>Charts</h2>\n", f);
	fputs("<p>Orange bars and dashed lines are published figures from other hardware, named in "
	      "each label; blue is this run. Click a chart for its SVG.</p>\n",
	      f);
	for (size_t i = 0; i < c->n; i++) {
		const struct rr_chart *ch = &c->list[i];
		if (!ch->drawn) {
			fputs("<p class=skip>", f);
			esc(f, ch->title);
			fputs(": not drawn, ", f);
			esc(f, ch->why);
			fputs(".</p>\n", f);
			continue;
		}
		fprintf(f,
			"<figure id=\"%s\"><a href=\"charts/%s.svg\"><img src=\"charts/%s.png\" "
			"alt=\"",
			ch->name, ch->name, ch->name);
		esc(f, ch->title);
		fputs("\"></a><figcaption>", f);
		esc(f, ch->title);
		fputs("</figcaption></figure>\n", f);
	}
}

static void summary(FILE *f, const struct rr_run *run)
{
	static const char *const head[] = {
	    "test",	   "level",	"members",     "chunk",	    "parity",
	    "state",	   "rw",	"bs",	       "QD",	    "jobs",
	    "IOPS",	   "MB/s",	"lat mean us", "p50",	    "p99",
	    "p99.9",	   "p99.99",	"CPU usr %",   "CPU sys %", "member I/Os per I/O",
	    "parity GB/s", "rebuild s", "rebuild MB/s"};
	fputs("<h2 id=summary>Summary</h2>\n<p>Also as <a href=\"summary.csv\">summary.csv</a> and "
	      "<a href=\"summary.json\">summary.json</a>. Latency is fio's completion latency "
	      "(clat) over all jobs; CPU % is fio's, summed over jobs (100 = one core).</p>\n"
	      "<div class=wide><table>\n<tr>",
	      f);
	for (size_t i = 0; i < sizeof(head) / sizeof(head[0]); i++)
		fprintf(f, "<th>%s</th>", head[i]);
	fputs("</tr>\n", f);
	for (size_t i = 0; i < run->ntests; i++) {
		const struct rr_test *t = &run->tests[i];
		fputs("<tr>", f);
		td_str(f, t->test);
		td_str(f, rr_level_name(t));
		td_int(f, t->members, t->members > 0);
		td_int(f, t->chunk / 1024, t->chunk > 0);
		td_str(f, t->parity);
		td_str(f, t->state);
		td_str(f, t->rw);
		td_int(f, t->bs, t->bs > 0);
		td_int(f, t->iodepth, t->iodepth > 0);
		td_int(f, t->numjobs, t->numjobs > 0);
		double v[] = {t->iops,	       t->mbps,
			      t->lat_mean_us,  t->lat_p50_us,
			      t->lat_p99_us,   t->lat_p999_us,
			      t->lat_p9999_us, t->cpu_usr,
			      t->cpu_sys,      t->member_ios_per_io,
			      t->parity_gbps,  t->rebuild_s,
			      t->rebuild_mbps};
		for (size_t k = 0; k < sizeof(v) / sizeof(v[0]); k++)
			td_num(f, v[k]);
		fputs("</tr>\n", f);
	}
	fputs("</table></div>\n<p>chunk in KiB; bs in bytes.</p>\n", f);
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
		esc(f, *run->host ? run->host : "an unrecorded host");
		fputs(
		    "</b>, the published figures come from the hosts and drives named in each row. "
		    "Compare shapes and ratios between configurations, not absolute "
		    "figures.</p>\n",
		    f);
	}
	fputs("<div class=wide><table>\n<tr><th>test</th><th>members</th><th>measured</th>"
	      "<th>published</th><th>unit</th><th>measured / published</th><th>published "
	      "host</th><th>published drives</th><th>published engine</th><th>source</th>"
	      "<th>note</th></tr>\n",
	      f);
	for (size_t p = 0; p < pub->n; p++) {
		const struct rr_pub *r = &pub->rows[p];
		for (size_t i = 0; i < run->ntests; i++) {
			const struct rr_test *t = &run->tests[i];
			if (!rr_pub_matches(r, t))
				continue;
			const char *unit;
			double pv = rr_pub_value(r, &unit), mv = rr_pub_measured(r, t);
			char drives[160];
			snprintf(drives, sizeof(drives), "%dx %s", r->drives, r->drive_model);
			fputs("<tr>", f);
			td_str(f, t->test);
			td_int(f, t->members, t->members > 0);
			td_num(f, mv);
			td_num(f, pv);
			td_str(f, unit);
			td_num(f, pv > 0 ? mv / pv : NAN);
			td_str(f, r->host);
			td_str(f, drives);
			td_str(f, r->engine);
			td_str(f, r->source);
			td_str(f, r->note);
			fputs("</tr>\n", f);
		}
	}
	fputs("</table></div>\n<p>Sources: see results/reference/README.md. A rebuild time is "
	      "compared per TB of the rebuilt drive.</p>\n",
	      f);
}

int rr_write_html(const struct rr_run *run, const struct rr_pubset *pub, const struct rr_charts *c,
		  char *err, size_t errlen)
{
	char *path;
	if (asprintf(&path, "%s/index.html", run->dir) < 0)
		abort();
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		free(path);
		return -EIO;
	}
	fputs("<!DOCTYPE html>\n<html lang=en>\n<head>\n<meta charset=\"utf-8\">\n<title>fio-raid "
	      "report: ",
	      f);
	esc(f, run->id);
	fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<h1>fio-raid report: ", css);
	esc(f, run->id);
	fputs("</h1>\n<p>Preset <b>", f);
	esc(f, *run->preset ? run->preset : "?");
	fputs("</b> on <b>", f);
	esc(f, *run->host ? run->host : "an unrecorded host");
	fprintf(f,
		"</b>, %zu tests. <a href=#facts>Run</a> &middot; <a href=#charts>Charts</a> "
		"&middot; <a href=#summary>Summary</a> &middot; <a href=#published>Measured vs "
		"published</a></p>\n",
		run->ntests);
	facts(f, run);
	charts(f, c);
	summary(f, run);
	published(f, run, pub);
	fputs("</body>\n</html>\n", f);
	int bad = fclose(f);
	if (bad)
		snprintf(err, errlen, "%s: write failed", path);
	free(path);
	return bad ? -EIO : 0;
}
