/* report/report.h: the run model shared by raid-report's parts (loading, summary, charts,
 * HTML page, comparison, gate, published figures). A figure that a run does not have is NAN,
 * written as an empty CSV cell and as JSON null. */
#ifndef RAID_REPORT_H
#define RAID_REPORT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>

/* Exit codes of raid-report: 1 is reserved for "the gate found a regression". */
enum { RR_OK = 0, RR_REGRESSED = 1, RR_BAD_INPUT = 2 };

struct rr_bin {
	double ns; /* fio's value for the bucket (json+ "bins" key) */
	uint64_t count;
};

struct rr_sample {
	double t, iops, mbps, lat_mean_us, lat_p99_us;
	char phase[16];
};

struct rr_test {
	/* tests/<test>.meta.json; strings are "" when null */
	char *test, *preset, *workload, *engine, *layout, *parity, *state, *rw, *backend;
	char *target; /* engine, md, dev:LABEL, jbod (runs before targets: engine or jbod) */
	int level; /* -1 when null (JBOD) */
	int members, iodepth, numjobs;
	long chunk, bs; /* 0 when null */
	double scale;

	/* tests/<test>.json (fio json+), every job and direction together */
	double iops, mbps, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_p9999_us;
	double cpu_usr, cpu_sys; /* % of one core, the whole test (all jobs) */
	double cpu_us_per_io;	 /* fio's CPU time per I/O (the jobs' threads only) */
	/* meta.json host_cpu (targets.c): whole-machine CPU (user + system + softirq) per I/O
	 * and in cores, fio's whole process per I/O (engine threads too); NAN when absent */
	double host_cpu_us_per_io, host_cpu_cores, fio_cpu_us_per_io, fio_cpu_cores;
	double vs_md; /* main figure over the same test's on md (targets.c); NAN without one */
	char *status, *reason;	 /* only while loading a test without fio output */
	struct rr_bin *bins;	 /* merged clat bins, ascending; NULL when fio gave none */
	size_t nbins;

	/* tests/<test>.stats.json (absent for JBOD) */
	int has_stats;
	char *parity_impl;
	double member_ios_per_io, parity_gbps;
	double gpu_stripes_per_launch; /* stats gpu.stripes_per_launch; NAN without a GPU */
	double rebuild_s, rebuild_mbps, rebuild_min_per_tb;
	struct rr_sample *samples;
	size_t nsamples;
	double st_volume_ios, st_member_ios, st_parity_bytes, st_parity_ns; /* stats counters */

	/* multi-host runs (hosts.c): a host's own row has "host" (meta.json); the test itself
	 * is the sum over all hosts and holds their rows, sorted by host */
	char *host; /* "" for the test itself */
	struct rr_test *hosts;
	size_t nhosts;

	/* the parsed meta.json and stats file (NULL when absent), for the parts that read keys
	 * the other parts do not need (efficiency.c, project.c: host_cpu, target, strategies) */
	json_object *meta_json, *stats_json;
};

/* a test the run recorded but that has no fio output (skipped or failed, with run.sh's reason) */
struct rr_left_out {
	char *test, *status, *reason;
};

struct rr_run {
	char *dir, *id, *preset, *host;
	double mem_bw_gbps;    /* run.json host.mem_bw_gbps, NAN when not measured */
	json_object *run_json; /* NULL when run.json is absent */
	struct rr_test *tests;
	size_t ntests;
	struct rr_left_out *left_out;
	size_t nleft_out;
	int multi_host; /* some test has per-host rows (run.sh --hosts) */
	struct rr_analysis *an; /* efficiency and projections (model.h); NULL until rr_analyse */
};

/* load.c */
int rr_run_load(const char *dir, struct rr_run *run, char *err, size_t errlen);
void rr_run_free(struct rr_run *run);
void rr_test_free(struct rr_test *t);
const struct rr_test *rr_run_find(const struct rr_run *run, const char *test);
double rr_percentile(const struct rr_bin *bins, size_t n, double pct);
int rr_fio_parse(json_object *fio, struct rr_test *t);
json_object *rr_json_load(const char *path, char *err, size_t errlen);
const char *rr_level_name(const struct rr_test *t); /* "raid5", "jbod" */
/* Parity members of each stripe row of `level` (0 for the mirror and stripe levels, -1 for a
 * level the engine does not know, JBOD), from the engine's level table (iomodel.c). */
int rr_level_parity(int level);
int rr_is_large(const struct rr_test *t);	    /* judged by MB/s rather than IOPS */
int rr_is_read(const struct rr_test *t);
int rr_is_write(const struct rr_test *t);
int rr_is_random(const struct rr_test *t);

/* targets.c */
void rr_parse_host_cpu(json_object *host_cpu, struct rr_test *t);
void rr_targets_link(struct rr_run *run);
const struct rr_test *rr_md_twin(const struct rr_run *run, const struct rr_test *t);
int rr_same_test(const struct rr_test *a, const struct rr_test *b);
int rr_run_has_targets(const struct rr_run *run);
void rr_targets_html(FILE *f, const struct rr_run *run);
double rr_primary(const struct rr_test *t); /* MB/s for bs >= 64k, else IOPS */

/* summary.c */
int rr_write_summary(const struct rr_run *run, char *err, size_t errlen);
json_object *rr_test_json(const struct rr_test *t);
void rr_csv_num(FILE *f, double v);
void rr_csv_str(FILE *f, const char *s);
json_object *rr_json_num(double v); /* summary.json's rounding; NULL for NAN */

/* published.c */
enum { PUB_COLS = 17 }; /* the CSV's columns */
struct rr_pub {
	char *source, *host, *drive_model, *array, *engine, *chunk, *workload, *bs, *rw, *state;
	char *metric, *unit, *note;
	int drives, iodepth, numjobs;
	double value;
	char *text[PUB_COLS]; /* every field as the CSV holds it */
};
struct rr_pubset {
	struct rr_pub *rows;
	size_t n;
};
int rr_pub_load(const char *path, struct rr_pubset *set, char *err, size_t errlen);
void rr_pub_free(struct rr_pubset *set);
const char *rr_pub_path(void);
int rr_pub_matches(const struct rr_pub *p, const struct rr_test *t);
double rr_pub_measured(const struct rr_pub *p, const struct rr_test *t);
double rr_pub_value(const struct rr_pub *p, const char **unit);
char *rr_pub_label(const struct rr_pub *p);
json_object *rr_pub_json(const struct rr_pubset *set);

/* charts.c */
struct rr_chart {
	char name[48], title[160];
	int drawn;     /* 1 when the PNG and SVG were written */
	char why[200]; /* when not drawn: why */
};
struct rr_charts {
	struct rr_chart list[24];
	size_t n;
};
int rr_write_charts(const struct rr_run *run, const struct rr_pubset *pub, struct rr_charts *out);
int rr_gnuplot(const char *dir, const char *script);
const char *rr_png_terminal(void);
void rr_chart_note(struct rr_charts *c, const char *name, const char *title, int drawn,
		   const char *why);
int rr_chart_open(struct rr_charts *c, const char *dir, const char *name, const char *title,
		  FILE **dat, FILE **gp);
void rr_chart_finish(const char *dir, struct rr_charts *c, const char *name, const char *title);

/* hosts.c */
void rr_hosts_attach(struct rr_run *run);
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

/* compare.c */
int rr_compare(const struct rr_run *a, const struct rr_run *b, const char *outdir, FILE *out,
	       char *err, size_t errlen);

/* gate.c */
struct rr_figure {
	char id[200];
	char kind[12];	/* "ratio" (stable across hosts) or "absolute" */
	char better[8]; /* "higher" or "lower" */
	char unit[16];
	double value;
};
struct rr_figures {
	struct rr_figure *f;
	size_t n, cap;
};
void rr_figures_of_run(const struct rr_run *run, struct rr_figures *out);
void rr_figures_free(struct rr_figures *f);
json_object *rr_baseline_json(const struct rr_run *runs, size_t nruns, double max_spread);
struct rr_gate_opts {
	double tolerance_pct;
	const char *junit_path;	   /* NULL: none */
	const char *baseline_path; /* named in errors; NULL: "baseline" */
};
int rr_gate(const struct rr_run *run, json_object *baseline, const struct rr_gate_opts *o,
	    FILE *out, char *err, size_t errlen);

/* efficiency.c, project.c (model.h): what each test keeps of the raw drives and what the
 * run projects onto a host profile; rr_analyse fills run->an, NULL profile: none */
int rr_analyse(struct rr_run *run, const struct rr_pubset *pub, json_object *profile,
	       char *err, size_t errlen);
void rr_analysis_free(struct rr_analysis *an);
void rr_an_csv_head(FILE *f);
void rr_an_csv_row(FILE *f, const struct rr_run *run, size_t test);
void rr_an_json_test(json_object *o, const struct rr_run *run, size_t test);
void rr_an_json_run(json_object *o, const struct rr_run *run);
void rr_an_charts(const struct rr_run *run, const char *dir, struct rr_charts *c);
void rr_an_html(FILE *f, const struct rr_run *run);

/* util: mkdir -p of one level, formatted path */
int rr_mkdir(const char *path);
/* util: the run's output file DIR/NAME, opened for writing; NULL with err set ("PATH: why") */
FILE *rr_out_open(const struct rr_run *run, const char *name, char *err, size_t errlen);
/* util: closes what rr_out_open opened; -EIO with err set when a write to it failed */
int rr_out_close(FILE *f, const struct rr_run *run, const char *name, char *err, size_t errlen);

#endif
