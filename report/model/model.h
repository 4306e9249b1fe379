/* report/model/model.h: the report's lowest layer (report/README.md): a run directory read
 * into structs (load.c), a multi-host test's per-host rows put under it (hosts.c), and the
 * published figures (published.c). It uses json-c and the engine's public API (its level
 * table). A figure that a run does not have is NAN, written as an empty CSV cell and as JSON
 * null. */
#ifndef RAID_REPORT_MODEL_H
#define RAID_REPORT_MODEL_H

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
	int level;    /* -1 when null (JBOD) */
	int members, iodepth, numjobs;
	long chunk, bs; /* 0 when null */
	double scale;

	/* tests/<test>.json (fio json+), every job and direction together. lat is fio's total
	 * latency of an I/O (lat_ns: slat + clat, docs/report.md "Latency"); the percentiles and
	 * bins are lat's where fio recorded them (lat_percentiles=1) in every job and direction,
	 * else clat's, and then pct_clat is 1 and every output names them clat. */
	double iops, mbps, lat_mean_us, lat_p50_us, lat_p99_us, lat_p999_us, lat_p9999_us;
	double clat_mean_us, slat_mean_us;
	int pct_clat;
	/* Little's law: the sum over jobs and directions of IOPS x mean lat (I/Os in flight, NAN
	 * without lat), and whether fio kept the loop closed (time_based, no rate limit or
	 * think time: 0 when its options say otherwise) */
	double little_l;
	int closed_loop;
	int fio_threads; /* fio ran the jobs as threads (thread=1), not processes */
	int fio_hosts; /* hosts whose jobs fio's client output holds (client_stats), 0: none */
	double cpu_usr, cpu_sys; /* % of one core, the whole test (all jobs) */
	double cpu_us_per_io;	 /* fio's CPU time per I/O (the jobs' threads only) */
	/* meta.json host_cpu (targets.c): whole-machine CPU (user + system + softirq) per I/O
	 * and in cores, fio's whole process per I/O (engine threads too); NAN when absent */
	double host_cpu_us_per_io, host_cpu_cores, fio_cpu_us_per_io, fio_cpu_cores;
	double vs_md; /* main figure over the same test's on md (targets.c); NAN without one */
	/* an engine test's main figure over the same test's on ublk (engine / ublk: what the
	 * kernel's block path costs, targets.c); NAN without one */
	double vs_ublk;
	/* what keeps the array consistent after an unclean stop, named alike for md and the
	 * engine (load.c): "bitmap=none|internal, resync|ppl", "none" (RAID0), "" (JBOD, dev:);
	 * fio's steady state: "reached", "not reached", "" when the test did not ask for it */
	char *consistency, *steady;
	char *status, *reason; /* only while loading a test without fio output */
	struct rr_bin *bins;   /* merged clat bins, ascending; NULL when fio gave none */
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

	/* repeated tests (run.sh --repeat N: tests/<test>@K, meta "test", "repeat", "repeats";
	 * repeats.c): the test's figures are the medians of its repetitions, which it holds in
	 * reps (they own every pointer; the test borrows its strings, bins and JSON from the
	 * repetition with the median main figure). repeats is 1 for a test run once. */
	int repeat, repeats;
	struct rr_test *reps;
	size_t nreps;
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
	int ended;	/* run.json has "finished" (or predates "started"): 0 when interrupted */
	/* run.json md.where names QEMU's TCG (the md appliance without KVM): every figure was
	 * measured under emulation, its clock included; emulation says how, "" when not */
	char emulation[96];
	char *made_on; /* the machine the run was made on, for the page's words (load.c) */
	/* efficiency and projections (report/analysis): NULL until rr_analyse; freed by
	 * rr_analysis_free, not by rr_run_free (the model knows nothing above it) */
	struct rr_analysis *an;
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
int rr_is_large(const struct rr_test *t);	    /* judged by MB/s rather than IOPS */
int rr_is_read(const struct rr_test *t);
int rr_is_write(const struct rr_test *t);
int rr_is_random(const struct rr_test *t);
double rr_primary(const struct rr_test *t); /* MB/s for bs >= 64k, else IOPS */
/* Parity members of each stripe row of `level` (0 for the mirror and stripe levels, -1 for a
 * level the engine does not know, JBOD), from the engine's level table. */
int rr_level_parity(int level);
int rr_level_redundant(int level);
/* One test of a run directory's tests/ (STEM.meta.json, STEM.json, STEM.stats.json), as
 * rr_run_load reads it: 0, -ENOENT (left out: t->status, t->reason set), -EINVAL (err) */
int rr_test_load(const char *tdir, const char *stem, int ended, struct rr_test *t, char *err,
		 size_t errlen);
/* run.json's emulation (QEMU TCG) into out, "" when the run was not emulated */
void rr_run_emulation(json_object *run_json, char *out, size_t len);

/* profile.c: a host profile by name, file or "host" (NULL with err set; err NULL: quiet),
 * the reviewed host the run was made with (NULL: none), the run's parity-bench.json (NULL:
 * none), the directory `up` levels above the binary (NULL when unknown) */
json_object *rr_profile_load(const char *name_or_file, char *err, size_t errlen);
json_object *rr_profile_of_run(const struct rr_run *run);
json_object *rr_bench_load(const struct rr_run *run);
const char *rr_exe_dir(char *buf, size_t len, int up);
/* json-c lookups that never fail: o's key (NULL when o is no object or lacks it), a number
 * (NAN when v is none), a string ("" when v is none) */
json_object *rr_jget(json_object *o, const char *key);
double rr_jnum(json_object *v);
const char *rr_jstr(json_object *v);
/* 0 when a value in o is NaN or Infinity, with its key path (a.b[2].c) in at */
int rr_json_finite(json_object *o, char *at, size_t len);

/* repeats.c: a test's repetitions grouped under it (after loading); a figure's range over
 * them, the figure at byte offset `off` of struct rr_test (offsetof), lo = hi = the figure
 * for a test run once; the run seen one repetition at a time: views[k] holds repetition k+1
 * of each test (its last for a test repeated fewer times), shallow copies freed by
 * rr_run_views_free; returns the number of views (1 for a run without repeats) */
void rr_repeats_group(struct rr_run *run);
void rr_test_range(const struct rr_test *t, size_t off, double *lo, double *hi);
size_t rr_run_views(const struct rr_run *run, struct rr_run **views);
void rr_run_views_free(struct rr_run *views, size_t n);

/* hosts.c: each host's row of a multi-host run under its test, the test's engine figures
 * from its hosts' counters */
void rr_hosts_attach(struct rr_run *run);

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

#endif
