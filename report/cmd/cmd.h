/* report/cmd/cmd.h: the report's top layer (report/README.md): raid-report's commands, one
 * file each, reading options, loading runs (the model), asking the analyses and handing the
 * results to the renderers. Only this layer decides exit statuses and writes to stderr.
 * Exit codes: 1 is reserved for "the gate found a regression", 2 for bad input. */
#ifndef RAID_REPORT_CMD_H
#define RAID_REPORT_CMD_H

#include "report/render/render.h"

extern char rr_err[4096]; /* the message of the last failed call */

/* "raid-report: MESSAGE" on stderr; returns RR_BAD_INPUT */
int rr_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* an option that takes a value, given last: name what it needs rather than calling it unknown */
int rr_missing_value(const char *cmd, const char *opt, const char *what);
/* a run loaded and linked (each test's md twin); RR_BAD_INPUT after saying why */
int rr_cmd_load(const char *dir, struct rr_run *run);
void rr_cmd_unload(struct rr_run *run); /* the run and its analysis */

int rr_cmd_report(const char *dir);
int rr_cmd_compare(int argc, char **argv);
int rr_cmd_gate(int argc, char **argv);
int rr_cmd_project(int argc, char **argv);
int rr_cmd_baseline(int argc, char **argv);
int rr_cmd_line(int argc, char **argv);

enum { RR_GATE_FLOOR_PCT = 15 }; /* the gate's default floor (docs/report.md "The gate") */
struct rr_gate_opts {
	double tolerance_pct; /* the floor, % */
	const char *junit_path;	   /* NULL: none */
	const char *html_path;	   /* the verdicts as a page; NULL: none */
	const char *baseline_path; /* named in errors; NULL: "baseline" */
};
/* The gate's table on out and its JUnit file: RR_OK, RR_REGRESSED, or < 0 with err set */
int rr_gate(const struct rr_run *run, json_object *baseline, const struct rr_gate_opts *o,
	    FILE *out, char *err, size_t errlen);

#endif
