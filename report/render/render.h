/* report/render/render.h: the report's third layer (report/README.md): the files and words
 * a person reads, each asking the analyses (report/analysis) for its figures: summary.csv and
 * summary.json, the charts (gnuplot), index.html, the per-host, targets, efficiency and
 * projection sections, the comparison of two runs and the gate's table. It uses the model,
 * the analyses and the engine's public API; it computes no figure of its own. */
#ifndef RAID_REPORT_RENDER_H
#define RAID_REPORT_RENDER_H

#include "report/analysis/analysis.h"

/* summary.c */
int rr_write_summary(const struct rr_run *run, char *err, size_t errlen);
json_object *rr_test_json(const struct rr_test *t);
void rr_csv_num(FILE *f, double v);
void rr_csv_str(FILE *f, const char *s);
json_object *rr_json_num(double v); /* summary.json's rounding; NULL for NAN */

/* line.c: "TEST: IOPS, MB/s, lat mean us, Little's mark [emulation]" and a newline */
void rr_test_line(FILE *f, const struct rr_test *t, const char *emulation);

/* charts.c */
struct rr_chart {
	char name[48], title[240];
	int drawn;     /* 1 when the PNG and SVG were written */
	char why[200]; /* when not drawn: why */
};
struct rr_charts {
	struct rr_chart list[24];
	size_t n;
	char unwritten[48]; /* the first chart whose .dat or .gp could not be written, "" none */
	char mark[96];	    /* said in every title: the run's emulation, "" none */
};
int rr_write_charts(const struct rr_run *run, const struct rr_pubset *pub, struct rr_charts *out);
int rr_gnuplot(const char *dir, const char *script);
const char *rr_png_terminal(void);
void rr_chart_note(struct rr_charts *c, const char *name, const char *title, int drawn,
		   const char *why);
int rr_chart_open(struct rr_charts *c, const char *dir, const char *name, const char *title,
		  FILE **dat, FILE **gp);
/* closes dat and gp, then draws; a failed write: not drawn, and the page says why */
void rr_chart_finish(const char *dir, struct rr_charts *c, const char *name, const char *title,
		     FILE *dat, FILE *gp);

/* hosts_out.c */
int rr_write_hosts_csv(const struct rr_run *run, char *err, size_t errlen);
json_object *rr_hosts_json(const struct rr_test *t);
void rr_html_hosts(FILE *f, const struct rr_run *run);
void rr_chart_hosts(const struct rr_run *run, const char *dir, struct rr_charts *c);
struct bars; /* horizontal bars, one colour per series (series 1 is the published orange) */
struct bars *rr_bars_new(void);
void rr_bars_free(struct bars *bs);
void rr_bars_add(struct bars *bs, int series, double v, const char *label);
size_t rr_bars_count(const struct bars *bs);
void rr_bar_chart(const char *dir, struct rr_charts *c, const char *name, const char *title,
		  const char *xlabel, const struct bars *bs, const char *const *series, int nseries,
		  const char *empty_why);

/* html.c */
void rr_html_td_num(FILE *f, double v);
void rr_html_td_str(FILE *f, const char *s);
int rr_write_html(const struct rr_run *run, const struct rr_pubset *pub,
		  const struct rr_charts *charts, char *err, size_t errlen);

void rr_html_esc(FILE *f, const char *s);

/* targets_html.c */
void rr_targets_html(FILE *f, const struct rr_run *run);

/* compare.c */
int rr_compare(const struct rr_run *a, const struct rr_run *b, const char *outdir, FILE *out,
	       char *err, size_t errlen);

/* gate_out.c: the baseline file, the gate's table and its JUnit XML */
json_object *rr_baseline_json(const struct rr_run *runs, size_t nruns);
/* a row's verdict in words: "passed", "cannot tell (detectable: 23.0%)", ... */
void rr_gate_verdict_text(const struct rr_gate_row *r, char *buf, size_t len);
void rr_gate_print(FILE *out, const struct rr_run *run, const struct rr_gate_result *g,
		   double floor_pct);
/* the gate's table as a page: one row a figure, its verdict in words */
void rr_gate_html(FILE *f, const struct rr_run *run, const struct rr_gate_result *g,
		  double tolerance_pct);
void rr_gate_junit(FILE *f, const struct rr_gate_result *g, double tolerance_pct);

/* project_out.c, project_html.c: the efficiency and projection figures: summary's columns,
 * efficiency.csv and projection.csv, `raid-report project`'s table, the page's sections */
void rr_an_csv_head(FILE *f);
void rr_an_csv_row(FILE *f, const struct rr_run *run, size_t test);
void rr_an_json_test(json_object *o, const struct rr_run *run, size_t test);
void rr_an_json_run(json_object *o, const struct rr_run *run);
void rr_an_charts(const struct rr_run *run, const char *dir, struct rr_charts *c);
void rr_an_html(FILE *f, const struct rr_run *run);
void rr_proj_print(FILE *f, const struct rr_analysis *an, int self);
json_object *rr_proj_json(const struct rr_proj *p);
void rr_proj_csv(FILE *f, const struct rr_analysis *an);
int rr_an_write_files(const struct rr_run *run, char *err, size_t errlen); /* *.csv */

/* out.c: mkdir of one level; the run's output file DIR/NAME, opened for writing (NULL with
 * err set, "PATH: why"); its close, -EIO with err set when a write to it failed */
int rr_mkdir(const char *path);
FILE *rr_out_open(const struct rr_run *run, const char *name, char *err, size_t errlen);
int rr_out_close(FILE *f, const struct rr_run *run, const char *name, char *err, size_t errlen);
int rr_close(FILE *f); /* fclose that also reports an earlier failed write: -EIO */

/* rebuild_out.c: the rebuild and resync table: rebuild.csv (none when the run has neither),
 * the page's section */
int rr_write_recovery_csv(const struct rr_run *run, char *err, size_t errlen);
void rr_recovery_html(FILE *f, const struct rr_run *run);

#endif
