/*
 * preset.h - what the two halves of raid-preset share: the parsed preset (preset.c reads
 * presets/NAME.preset and expands its runs into rows: group, array, state, job file) and the
 * per-test plan built from those rows (plan.c: sizes, ids, targets, fio's arguments).
 */
#ifndef RAID_PRESET_H
#define RAID_PRESET_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/queue.h>

#define MAXW 64 /* words on a line, items in a list */
#define LINE_MAX_ 1024
#define MAX_REPEAT 100 /* repeat N, run.sh --repeat N */

struct words {
	int n;
	char *w[MAXW];
};

/* A named list (list NAME ITEM...), an array template (array NAME FIELD=...), a layout
 * (layout NAME FIELD=...) or a run (run FIELD=LIST...): one parsed line each. */
struct item {
	STAILQ_ENTRY(item) next;
	int line;
	char kind; /* 'l' list, 'a' array, 'y' layout, 'r' run */
	char *name;
	struct words f; /* the line's words after the name (after "run" for runs) */
};
STAILQ_HEAD(items, item);

/* One array to run: the fields of a plan row but the group, state and job. */
struct inst {
	char name[128], level[8], chunk[16], parity[16], bays[LINE_MAX_ / 2];
	int members;
};

struct preset;
/* One row of the expanded runs: an array (of group gN, or "-": alone) x a job in a state */
typedef void (*row_fn)(struct preset *p, const char *group, const struct inst *a, const char *state,
		       const char *job);

struct preset {
	const char *file;
	char *doc, *profile;
	char *runtime[3], *msize[3]; /* VALUE [scaled] [min=X] as written */
	int runtime_line, msize_line;
	long repeat; /* the repeat line's N (0: none, one run per test) */
	int repeat_line;
	/* the precondition and steadystate lines' words after the keyword (measure.c reads
	 * them), their line numbers (0: no such line) */
	struct words precond, steady;
	int precond_line, steady_line;
	struct items items;
	const char *parity;    /* --parity, or NULL: each array's own list */
	const char *workloads; /* directory of the job files */
	const char *layout;    /* raid-hwinfo layout output */
	int group;	       /* last gN given out */
	row_fn row;	       /* each row, in the order run.sh runs them */
	void *ctx;	       /* the row function's own */
};

/* A job file's facts: "; @workload ID" and "; @published rw= bs= iodepth= numjobs=" */
struct job_facts {
	char *id, *rw, *bs, *iodepth, *numjobs;
	bool timed; /* time_based=1: it runs for RUNTIME (a measured test, not a fill) */
};

extern const char *prog;
void __attribute__((noreturn, format(printf, 1, 2))) preset_die(const char *fmt, ...);
char *xstrdup(const char *s);
bool plain(const char *s);
int split_list(char *s, struct words *w);
void preset_parse(struct preset *p, const char *file);
unsigned long long rule(const struct preset *p, char *const *r, int line, double scale, bool size);
void expand(struct preset *p);
void job_read(const char *file, struct job_facts *j);

/* plan.c: `raid-preset plan` and its helpers (argv after "plan FILE") */
int plan_main(struct preset *p, int argc, char **argv);
int limits_main(void);
int span_main(int argc, char **argv);
int volume_main(int argc, char **argv);
/* hosts.c: run.sh's --hosts / --hosts-file checked, one line a host */
int hosts_main(int argc, char **argv);
int render_main(int argc, char **argv);
/* checks.c: run.sh's --target list and block devices, checked */
int targets_main(int argc, char **argv);
int devices_main(int argc, char **argv);
/* usage.c: run.sh's --help, the engine's figures from its option table */
int usage_main(const char *presets);

#endif
