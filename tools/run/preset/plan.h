/*
 * plan.h - what the parts of `raid-preset plan` share: the rows of the preset (preset.c
 * expands them), the run's options (options.c), the drives (drives.c) and the tests
 * (plan.c).
 */
#ifndef RAID_PRESET_PLAN_H
#define RAID_PRESET_PLAN_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>

#include "raid/core/raid.h"
#include "preset.h"

#define MAX_TESTS 4096
#define MAX_DEVS 16
#define MIB (1ULL << 20)

/* One row of the preset (an engine or JBOD run), before the targets are applied. */
struct row {
	char group[16], state[16], job[256];
	struct inst a;
	char precond; /* 0: the preset's test; 'f' or 'r': the array's fill or random writes */
};

/* Preconditioning and steady state (measure.c): the preset's lines, or run.sh's forcing */
struct measure {
	bool precond, steady;	      /* asked for this run */
	long fill;		      /* passes of sequential writes over the volume */
	unsigned long long rand_s;    /* then random writes for this many seconds, */
	long rand_x;		      /* or this many times the volume */
	char criterion[64];	      /* fio's steadystate=, e.g. iops_slope:10% */
	unsigned long long window, ramp, max; /* seconds: fio's duration, ramp, the cap */
};

/* One test: a row on one target. */
struct test {
	const struct row *r;
	char target[64], array[160], id[320];
	struct inst a; /* the row's array, or a dev: volume's description */
	bool keep;     /* --only keeps it */
};

struct dev {
	char label[64], level[16], members[16], chunk[16], layout[32];
};

struct opts {
	const char *workloads, *layout, *parity, *only, *drives, *scratch, *host_scratch;
	const char *results, *engine, *place, *host_label;
	const char *scale_s, *runtime_s, *msize_s, *targets_s; /* as given */
	double scale;
	unsigned long long runtime, msize;
	const char *gpu, *gpu_batch;
	const char *md_bitmap, *md_consistency; /* none|internal|auto, resync|ppl (NULL: default) */
	const char *md_knob[4]; /* --md-stripe-cache, --md-threads, --md-sync-min, --md-sync-max */
	const char *precond_s, *steady_s;	/* --precondition/--steadystate on|off as given */
	struct measure m;
	const char *repeat_s, *clock; /* --repeat as given; fio's clocksource ('' its default) */
	long repeat;		      /* runs of each test (the preset's repeat line, else 1) */
	bool fit, reuse, member_size_given;
	char targets[8][80];
	int ntargets;
	struct dev devs[MAX_DEVS];
	int ndevs;
};

/* The plan being built, passed down from plan_main (no globals): the preset's rows in
 * order, the tests over them (rows x targets), the arrays preconditioned so far */
struct plan {
	struct row rows[MAX_TESTS];
	int nrows;
	struct test tests[MAX_TESTS];
	int ntests;
	char precond_done[MAX_TESTS][240]; /* "TARGET ARRAY" */
	int nprecond_done;
};

bool is_jbod(const struct inst *a);
struct raid_level_info level_of(const char *level);	     /* the level table's entry */
unsigned long long size_of(const char *what, const char *s); /* raid_parse_size, or die */

/* sizes.c: the plan's arithmetic. A test's shape (l NULL: a JBOD, or a dev: volume, sized at
 * run time) -> its member bytes, volume, each job's size and offset, and run time */
struct plan_shape {
	const struct raid_level_info *l;
	bool jbod, resync, rebuild_job; /* a resync state; a REBUILD- workload */
	int members;
	unsigned long long msize, chunk, bs; /* member size as the run gives it, chunk, block */
	long numjobs;
	const char *rw; /* the jobs' pattern over their span (a fill's: write) */
	unsigned long long runtime, steady_max; /* seconds; steady state's cap (0: none) */
};
struct plan_sizes {
	unsigned long long per, vol, size, off, run_time;
};
void plan_sizes(const struct plan_shape *s, struct plan_sizes *z);
unsigned long long plan_volume(const struct raid_level_info *l, int n,
			       unsigned long long member_bytes, unsigned long long chunk);
long plan_scaled(const char *pub, double scale); /* a published figure at scale, at least 1 */
/* each job's span: random jobs share the volume, sequential ones get a slice each, as
 * separate streams on the array do */
void plan_job_span(const char *rw, unsigned long long vol, unsigned long long span,
		   unsigned long long bs, long numjobs, int jbod_members, unsigned long long *size,
		   unsigned long long *offset);

/* line.c: what one test is, computed (print_test in plan.c writes it as its plan line) */
struct test_line {
	char id[336], file[PATH_MAX];
	int idx, rep;
	long repeats;
	bool last, jbod, dev, md, ublk;
	const char *engine;	  /* jbod raid md ublk dev */
	struct raid_level_info l; /* the level table's entry (zero for a JBOD or dev: volume) */
	const char *span_rw;	  /* the jobs' pattern over their span (a fill's: write) */
	bool steady;		  /* measured until fio's steady state */
	struct plan_shape shape;  /* sizes.c's input (its .l cleared: the entry is l) */
	struct plan_sizes z;	  /* sizes.c's answer (a dev: volume's size, off: 0) */
	unsigned long long chunk_bytes; /* 0: no chunk */
	long iodepth;
	char bays[LINE_MAX_], spares[LINE_MAX_], cpus[256], mem[256];
	char members[4 * PATH_MAX], spare_paths[4 * PATH_MAX], stats[PATH_MAX];
	bool init_resync;			/* init=resync: reused members, a redundant level */
	const char *md_bitmap, *md_consistency; /* md only */
	unsigned long long env_runtime;		/* fio's RUNTIME */
	bool time_based;			/* TIME_BASED (preconditioning's random writes) */
	long loops;				/* LOOPS */
};
void line_compute(const struct opts *o, const struct test *t, const struct job_facts *j,
		  const char *workloads, int idx, int rep, bool last, struct test_line *x);
bool redundant(const struct raid_level_info *l); /* a member it can lose (RAID0 has none) */
void placement(const char *file, const char *array, char *cpus, size_t cl, char *mem, size_t ml);

/* plan.c: one field of the test's plan line */
void field(const char *k, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* resync.c: the rebuilding and resync states' fields (run/recovery.sh) */
bool resync_state(const char *state);
void rebuild_fields(const struct raid_level_info *l, int members);
unsigned long long resync_span(unsigned long long vol, unsigned long long bs);
void resync_fields(const struct opts *o, const char *array, const char *state, bool engine,
		   unsigned long long run_time, unsigned long long span);

/* options.c */
void parse_opts(struct opts *o, int argc, char **argv);
double auto_scale(void);

/* measure.c */
void measure_setup(const struct preset *p, struct opts *o);
void md_policy(const struct opts *o, const struct raid_level_info *l,
	       unsigned long long component_kib, const char **bitmap, const char **consistency);
bool on_block(const struct opts *o, const char *target);
const char *measure_state(const struct opts *o, bool steady, bool files);

/* drives.c */
bool list_nth(const char *list, int i, char *out, size_t len);
int list_count(const char *list);
void split_bays(const struct inst *a, const char *state, char *bays, size_t blen, char *spares,
		size_t slen);
int max_bay(const char *list);
const char *preset_name(const struct preset *p, char *out, size_t len);
void check_drives(struct plan *pl, const struct preset *p, const struct opts *o);
void check_drive_sizes(const struct opts *o, const char *given);

#endif
