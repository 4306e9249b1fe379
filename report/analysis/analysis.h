/* report/analysis/analysis.h: the report's second layer (report/README.md), numbers only,
 * no output: member I/Os per volume I/O by level and geometry (iomodel.c, docs/report.md
 * "The model"), each test's figure against JBOD and against that I/O-count bound
 * (efficiency.c), a test's projection onto a host profile as the least of the bounds its
 * path meets (project.c), which test of md is a test's twin (targets.c), and the figures
 * the gate judges with its verdicts (gate.c). It uses the model and the engine's public API.
 * A figure that cannot be had is NAN, with the reason in a note. */
#ifndef RAID_REPORT_ANALYSIS_H
#define RAID_REPORT_ANALYSIS_H

#include "report/model/model.h"

/* Member work behind one volume I/O (iomodel.c). Counts are member I/Os per volume I/O (as
 * the members see them, contiguous pieces on one member as one I/O); bytes are member bytes
 * per volume byte. parity_in is what the parity computation reads, parity_out what it writes
 * (part of write_bytes), both per volume byte. */
struct rr_ioc {
	double reads, writes, read_bytes, write_bytes, parity_in, parity_out;
	const char *strategy; /* stripe, mirror, read, full-stripe, rmw, rcw, mixed */
};
int rr_io_model(int level, int members, long chunk, long bs, const char *rw, int mix_read_pct,
		struct rr_ioc *out);
double rr_ioc_per_io(const struct rr_ioc *c, int large); /* bytes (large) or I/O count ratio */
int rr_rw_mix(const char *rw, const char *workload);	 /* % reads: rw, randrw per workload */

/* efficiency.c: one row per RAID test of the run and per published RAID row with a raw side */
struct rr_eff {
	const struct rr_test *t;  /* NULL: a published row */
	const struct rr_pub *pub; /* NULL: a test of this run */
	char raw[200];		  /* the raw side: the JBOD test, "published JBOD ...", spec */
	char raw_kind[16];	  /* "run", "published", "spec" */
	double figure, raw_figure, io_per_io, eff_jbod, eff_bound;
	char io_source[16]; /* "stats" (the engine's counts) or "model" (iomodel.c) */
	int members;	    /* members of one array (the published rows: from the profile) */
	/* a figure above its bound (the I/O-count bound, or JBOD for a level that costs one
	 * member I/O per I/O): which assumption it broke; "" when within it */
	char above[640];
};

/* project.c */
enum { RR_NBOUNDS = 9 };
extern const char *const rr_bound_names[RR_NBOUNDS];
struct rr_bound {
	const char *name; /* rr_bound_names: drives ... gpu link, concurrency */
	double value;	  /* in the projection's unit; NAN: not known */
	char how[240];	  /* the arithmetic, or why it is not known */
};
struct rr_proj {
	const struct rr_pub *pub;     /* the published test (NULL for the self-check) */
	const struct rr_test *src;    /* the measured test whose costs are projected */
	const struct rr_test *actual; /* self-check: the measured larger configuration */
	char target[64], profile[96], unit[8];
	int level, members, arrays, large;
	long chunk, bs;
	char rw[16], path[8];	    /* path: cpu or cuda (who computes parity) */
	json_object *bays;	    /* the published layout's bay ids (profile), NULL: the first */
	struct rr_ioc io, io_src;   /* the model at the projected and at the measured size */
	double io_src_measured;	    /* the engine's stats at the measured size */
	double cpu_us_src, cpu_us;  /* CPU us per I/O measured, and scaled to the target */
	double parity_us_src;	    /* of which parity (stats parity.cpu_ns per volume I/O) */
	const char *cpu_source;	    /* "host_cpu" or "fio usr+sys" */
	double parity_gbps_core;    /* per core */
	char parity_source[96];	    /* "parity-bench.json avx2 gen k=10", "stats" */
	int parity_cores;	    /* cores parity runs on: 1 for md's raid5d */
	int parity_rmw;		    /* the rate counts written bytes (bench rmw rows) */
	double stripe_waits_per_io; /* stats stripe_lock_waits per volume I/O (shown) */
	struct rr_bound b[RR_NBOUNDS]; /* in the order of the names above */
	double projected, margin, published, ratio;
	int binding, next; /* indices into b; -1: none */
	char flag[400];	   /* published figure above what its own path can carry */
};

struct rr_analysis {
	struct rr_eff *eff;
	size_t neff;
	struct rr_proj *proj; /* onto the run's host profile, then the self-check rows */
	size_t nproj, nself;
	char profile[96]; /* the profile projected onto, "" when none */
	char note[300];	  /* why there is no projection */
	struct rr_proj *
	    *by_test; /* per test of the run: its projection onto the profile, or NULL */
};

void rr_eff_fill(struct rr_analysis *an, const struct rr_run *run, const struct rr_pubset *pub);
long rr_size_of(const char *s, long dflt); /* "4k" -> 4096; dflt when empty or not a size */
long rr_default_chunk(void);		   /* raid_chunk's default, the option table's */
long rr_pub_bs(const struct rr_pub *p);
double rr_spec_figure(json_object *profile, const struct rr_pub *p, int drives, char *why,
		      size_t len);
double rr_pcie_gbps(json_object *link); /* {"gen", "width"} -> GB/s one way */
int rr_eff_of_test(const struct rr_analysis *an, const struct rr_test *t);

/* Projects src (measured here) to a configuration on the profile; pub NULL: to `to` of this
 * run (the self-check, whose drives are this run's JBOD). */
void rr_project_one(struct rr_proj *p, const struct rr_run *run, const struct rr_test *src,
		    const struct rr_pub *pub, const struct rr_test *to, json_object *profile,
		    json_object *bench);
void rr_proj_fill(struct rr_analysis *an, const struct rr_run *run, const struct rr_pubset *pub,
		  json_object *profile, int every_test);

/* profile facts (project.c) */
int rr_pub_layout(const struct rr_pub *p, json_object *prof, int *arrays, json_object **bays);

/* analyse.c: fills run->an (NULL profile: no projection; every_test: each test the published
 * rows leave out projected at its own size too); free it with rr_analysis_free */
int rr_analyse(struct rr_run *run, const struct rr_pubset *pub, json_object *profile,
	       int every_test, char *err, size_t errlen);
void rr_analysis_free(struct rr_analysis *an);

/* targets.c: each test's ratio to its md twin (vs_md), set once after loading */
void rr_targets_link(struct rr_run *run);
const struct rr_test *rr_ublk_twin(const struct rr_run *run, const struct rr_test *t);
const struct rr_test *rr_md_twin(const struct rr_run *run, const struct rr_test *t);
int rr_same_test(const struct rr_test *a, const struct rr_test *b);
int rr_run_has_targets(const struct rr_run *run);

/* little.c: Little's law as the run's self-check (docs/report.md, "Latency"). In a closed
 * loop of N = iodepth x numjobs (x hosts) >= 4 I/Os in flight, the sum over jobs and
 * directions of IOPS x mean total latency must be within 25% of N; a clock that runs wrong
 * (emulation) or a latency that is not the total misses it. */
enum rr_little_verdict { RR_LITTLE_NA, RR_LITTLE_OK, RR_LITTLE_MISSED };
enum { RR_LITTLE_MIN_N = 4 };
#define RR_LITTLE_TOL 0.25
struct rr_little {
	enum rr_little_verdict v;
	double l, n; /* IOPS x mean lat, and the I/Os fio kept in flight */
	const char *why; /* RR_LITTLE_NA: why the law does not apply */
};
struct rr_little rr_little_check(const struct rr_test *t);
size_t rr_little_missed(const struct rr_run *run); /* tests that missed it */

/* hosts: how far apart a multi-host test's hosts are, % (slowest against fastest) */
double rr_hosts_spread_pct(const struct rr_test *t);

/* gate.c: the figures a run is judged by, each the median of its repetitions (and runs) with
 * their range; ratios within one run are "ratio" (compared on any machine), the rest
 * "absolute" (compared only against a baseline of the same machine and settings) */
enum { RR_BASELINE_FORMAT = 3 }; /* 3: each figure's samples; 2 (ranges only) is still read */
struct rr_figure {
	char id[200];
	char kind[12];	/* "ratio" (stable across machines) or "absolute" */
	char better[8]; /* "higher" or "lower" */
	char unit[16];
	double value;  /* the median */
	double lo, hi; /* the range over the repetitions */
	size_t n;      /* repetitions that measured it */
	double *samples; /* each repetition's value, ascending (n of them; rr_figures_spread) */
};
struct rr_figures {
	struct rr_figure *f;
	size_t n, cap;
};
void rr_figures_of_run(const struct rr_run *run, struct rr_figures *out);
/* several runs pooled; *nviews (may be NULL): the repetitions counted */
void rr_figures_spread(const struct rr_run *runs, size_t nruns, struct rr_figures *out,
		       size_t *nviews);
void rr_figures_free(struct rr_figures *f);
/* what absolute figures need equal besides the machine: the run's settings */
json_object *rr_run_conditions(const struct rr_run *run);
/* the machine: run.json's cpu_model, cores, memory_bytes, kernel, the member kind, mem_bw */
json_object *rr_run_machine(const struct rr_run *run);
/* run.json's host facts (hostname, cpu_model, cores, memory_bytes) that differ, ", "-joined */
void rr_host_diff(const struct rr_run *a, const struct rr_run *b, char *out, size_t len);
/* power.c: one figure's repetitions in the baseline and in this run, judged (higher: the
 * figure's better direction; threshold: the change that matters, a fraction) */
enum rr_power_verdict { RR_P_SAME, RR_P_WORSE, RR_P_BETTER };
struct rr_power {
	const char *test;	     /* "mann-whitney", "bootstrap", "none" (fewer than 2 a side) */
	enum rr_power_verdict verdict; /* worse or better: significant and beyond the threshold */
	double p_worse, p_better;
	double detectable;  /* smallest change the test calls worse here, a fraction; inf: none */
	int repeats_for_10; /* repetitions a side that would bring it to 10% */
};
#define RR_GATE_ALPHA 0.05
int rr_rank_can_reach(size_t nb, size_t nc, double alpha);
void rr_power_judge(const double *bs, size_t nb, const double *cs, size_t nc, int higher,
		    double threshold, double alpha, struct rr_power *out);
enum rr_verdict {
	RR_V_OK, /* "passed": no change beyond the threshold, and one that large was detectable */
	RR_V_REGRESSED,
	RR_V_MISSING,
	RR_V_NEW,
	RR_V_IMPROVED,
	RR_V_CANNOT_TELL /* neither, and the detectable change is above the threshold */
};
extern const char *const rr_verdict_names[];
struct rr_gate_row {
	const char *id, *kind, *unit;
	double base, blo, bhi; /* the baseline's median and range */
	double cur, clo, chi;  /* this run's */
	int bn, cn;	       /* repetitions behind each */
	enum rr_verdict v;
	double *bs;	       /* the baseline's samples, owned (NULL: format 2 has none) */
	const double *cs;      /* this run's (its figures') */
	struct rr_power pw;    /* the statistical tier's numbers (test "none": the range rule) */
};
/* the verdict's rule: r's ranges separated in the bad direction by more than floor (a
 * fraction); a run measured once takes the baseline's relative range */
int rr_gate_worse(const struct rr_gate_row *r, int higher, double floor);
struct rr_gate_result {
	struct rr_gate_row *rows;
	size_t n, bad;	 /* bad: regressed or missing */
	size_t cannot;	 /* rows that cannot tell */
	size_t left_out; /* absolute figures not compared (another machine or settings) */
	int same_machine;
	char differ[512];	  /* the settings that differ from the baseline's, "" when none */
	char machine_differ[512]; /* the machine facts that differ, "" when none */
	const char *brun, *bhost; /* the baseline's (owned by its JSON) */
	struct rr_figures cur;
};
/* bp: the baseline's path, for errors; -EINVAL with err set when the baseline is not one */
int rr_gate_judge(const struct rr_run *run, json_object *baseline, double floor_pct,
		  const char *bp, struct rr_gate_result *g, char *err, size_t errlen);
void rr_gate_result_free(struct rr_gate_result *g);

/* rebuild.c: each rebuild (state rebuilding) and resync (state resync, resync-bitmap) of the
 * run beside its references; rows in the run's order, freed with free() */
struct rr_recovery {
	const struct rr_test *t;
	int resync;	 /* 0: a rebuild onto a spare; 1: a resync after an unclean stop */
	char policy[16]; /* a resync's: "full" (the dirty mark) or "bitmap"; "" for a rebuild */
	double seconds, member_bytes;	 /* per member: the spare written, each member resynced */
	double member_mbps, array_mbps;	 /* MB/s of member and of array (volume bytes) */
	double spec_mbps, of_spec;	 /* the drive's sequential write spec, and the share */
	char spec[200];			 /* which drive and spec, or "no spec: why" */
	double transfers_mbps, of_transfers; /* the array's own transfers (meta refs), NAN */
	char transfers[160];
	const struct rr_test *md; /* md's same test on the same members, NULL: none */
	double md_mbps, vs_md;
	int emulated; /* the run was made under QEMU TCG (run->emulation) */
};
size_t rr_recovery_rows(const struct rr_run *run, struct rr_recovery **out);

#endif
