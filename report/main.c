/* report/main.c: the raid-report command line. Bad input (a missing directory, malformed
 * JSON, an unknown command or option) ends with one line on stderr and exit status 2; exit
 * status 1 is kept for "the gate found a regression". */
#include "report/model.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: raid-report RESULTS_DIR                 summary, charts and index.html of a run\n"
    "       raid-report --compare RUN_A RUN_B [--out DIR]\n"
    "       raid-report gate --baseline FILE RESULTS_DIR [--tolerance PCT] [--junit FILE]\n"
    "       raid-report project RESULTS_DIR [--profile NAME|FILE|host] [--self] [--json]\n"
    "         (each test projected onto a host profile, default the run's reviewed host;\n"
    "         --self: only this machine's self-check rows; --json: summary.json's objects)\n"
    "       raid-report baseline [--max-spread PCT] RESULTS_DIR [RESULTS_DIR...] > FILE\n"
    "         (several runs: each figure's median; one whose worst run fell more than PCT\n"
    "         (default 30) from it is recorded as not gated)\n"
    "       raid-report published [FILE]               the published figures as JSON (one\n"
    "         object a row, the CSV's header as keys, every field its text)\n"
    "RAID_REPORT_PUBLISHED=FILE overrides results/reference/published.csv.\n";

static char err[4096];

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int fail(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "raid-report: ");
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	return RR_BAD_INPUT;
}

/* An option that takes a value, given last: name what it needs rather than calling it unknown */
static int missing_value(const char *cmd, const char *opt, const char *what)
{
	return fail("%s: %s needs %s", cmd, opt, what);
}

static int load(const char *dir, struct rr_run *run)
{
	return rr_run_load(dir, run, err, sizeof(err)) < 0 ? fail("%s", err) : 0;
}

static int cmd_report(const char *dir)
{
	struct rr_run run;
	struct rr_pubset pub = {0};
	struct rr_charts charts;
	if (load(dir, &run))
		return RR_BAD_INPUT;
	int rc = RR_OK;
	if (rr_pub_load(rr_pub_path(), &pub, err, sizeof(err)) < 0)
		fprintf(stderr, "raid-report: warning: %s: no published comparison\n", err);
	json_object *prof = rr_profile_of_run(&run);
	rr_analyse(&run, &pub, prof, err, sizeof(err));
	json_object_put(prof);
	if (rr_write_summary(&run, err, sizeof(err)) < 0 ||
	    rr_an_write_files(&run, err, sizeof(err)) < 0) {
		rc = fail("%s", err);
		goto out;
	}
	if (rr_write_charts(&run, &pub, &charts) < 0) {
		rc = fail("%s/charts: cannot create", run.dir);
		goto out;
	}
	if (rr_write_html(&run, &pub, &charts, err, sizeof(err)) < 0) {
		rc = fail("%s", err);
		goto out;
	}
	size_t drawn = 0;
	for (size_t i = 0; i < charts.n; i++)
		drawn += charts.list[i].drawn;
	printf("raid-report: %s: %zu tests, %zu of %zu charts drawn, %s/index.html\n", run.id,
	       run.ntests, drawn, charts.n, run.dir);
out:
	rr_pub_free(&pub);
	rr_run_free(&run);
	return rc;
}

static int cmd_compare(int argc, char **argv)
{
	const char *dirs[2] = {0}, *outdir = NULL;
	int nd = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--out") && i + 1 < argc)
			outdir = argv[++i];
		else if (!strcmp(argv[i], "--out"))
			return missing_value("--compare", "--out", "a directory");
		else if (argv[i][0] == '-')
			return fail("--compare: unknown option '%s'", argv[i]);
		else if (nd < 2)
			dirs[nd++] = argv[i];
		else
			return fail("--compare: one run too many: '%s'", argv[i]);
	}
	if (nd != 2)
		return fail("%s", "--compare needs two run directories: RUN_A RUN_B");
	struct rr_run a, b;
	if (load(dirs[0], &a))
		return RR_BAD_INPUT;
	if (load(dirs[1], &b)) {
		rr_run_free(&a);
		return RR_BAD_INPUT;
	}
	char *def = NULL;
	if (!outdir) {
		if (asprintf(&def, "%s/compare-%s", b.dir, a.id) < 0)
			abort();
		outdir = def;
	}
	int rc = rr_compare(&a, &b, outdir, stdout, err, sizeof(err)) < 0 ? fail("%s", err) : 0;
	free(def);
	rr_run_free(&a);
	rr_run_free(&b);
	return rc;
}

static int cmd_gate(int argc, char **argv)
{
	const char *base = NULL, *dir = NULL;
	struct rr_gate_opts o = {.tolerance_pct = 10, .junit_path = NULL};
	for (int i = 0; i < argc; i++) {
		int more = i + 1 < argc;
		if (!strcmp(argv[i], "--baseline") && more) {
			base = argv[++i];
		} else if (!strcmp(argv[i], "--junit") && more) {
			o.junit_path = argv[++i];
		} else if (!strcmp(argv[i], "--tolerance") && more) {
			char *end;
			o.tolerance_pct = strtod(argv[++i], &end);
			if (*end || end == argv[i] || o.tolerance_pct < 0 || o.tolerance_pct >= 100)
				return fail("gate: --tolerance '%s': a percentage from 0 to 99",
					    argv[i]);
		} else if (!strcmp(argv[i], "--baseline") || !strcmp(argv[i], "--junit")) {
			return missing_value("gate", argv[i], "a FILE");
		} else if (!strcmp(argv[i], "--tolerance")) {
			return missing_value("gate", argv[i], "a percentage");
		} else if (argv[i][0] == '-') {
			return fail("gate: unknown option '%s'", argv[i]);
		} else if (!dir) {
			dir = argv[i];
		} else {
			return fail("gate: one results directory only, not also '%s'", argv[i]);
		}
	}
	if (!base || !dir)
		return fail("%s", "gate needs --baseline FILE and RESULTS_DIR");
	json_object *b = rr_json_load(base, err, sizeof(err));
	if (!b)
		return fail("%s", err);
	struct rr_run run;
	if (load(dir, &run)) {
		json_object_put(b);
		return RR_BAD_INPUT;
	}
	o.baseline_path = base;
	int rc = rr_gate(&run, b, &o, stdout, err, sizeof(err));
	if (rc < 0)
		rc = fail("%s", err);
	json_object_put(b);
	rr_run_free(&run);
	return rc;
}

static int cmd_project(int argc, char **argv)
{
	const char *dir = NULL, *pname = NULL;
	int self = 0, as_json = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--profile") && i + 1 < argc)
			pname = argv[++i];
		else if (!strcmp(argv[i], "--self"))
			self = 1;
		else if (!strcmp(argv[i], "--json"))
			as_json = 1;
		else if (argv[i][0] == '-')
			return fail("project: unknown option or missing value '%s'", argv[i]);
		else if (!dir)
			dir = argv[i];
		else
			return fail("project: one results directory only, not also '%s'", argv[i]);
	}
	if (!dir)
		return fail("%s", "project needs RESULTS_DIR");
	struct rr_run run;
	struct rr_pubset pub = {0};
	if (load(dir, &run))
		return RR_BAD_INPUT;
	json_object *prof = pname ? rr_profile_load(pname, err, sizeof(err)) : rr_profile_of_run(&run);
	if (pname && !prof) {
		rr_run_free(&run);
		return fail("%s", err);
	}
	if (rr_pub_load(rr_pub_path(), &pub, err, sizeof(err)) < 0)
		fprintf(stderr, "raid-report: warning: %s: no published figures\n", err);
	rr_analyse(&run, &pub, prof, err, sizeof(err));
	const struct rr_analysis *an = run.an;
	int rc = RR_OK;
	if (self ? !an->nself : an->nproj == 0) {
		rc = fail(self ? "project: %s: no configuration at two member counts to check"
			       : "project: %s: nothing to project (no profile with published tests "
				 "matching this run, no self-check pairs); try --profile NAME",
			  run.dir);
	} else if (as_json) {
		json_object *o = json_object_new_object();
		rr_an_json_run(o, &run);
		if (self)
			json_object_object_del(o, "projections");
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	} else {
		if (!self && an->nproj > an->nself) {
			printf("projection of %s onto %s\n", run.id, an->profile);
			rr_proj_print(stdout, an, 0);
		}
		if (an->nself) {
			printf("%sself-check on this machine (%s): projected from the fewest members\n",
			       self || an->nproj == an->nself ? "" : "\n", run.id);
			rr_proj_print(stdout, an, 1);
		}
	}
	json_object_put(prof);
	rr_pub_free(&pub);
	rr_run_free(&run);
	return rc;
}

static int cmd_baseline(int argc, char **argv)
{
	double spread = 30;
	const char **dirs = calloc((size_t)argc + 1, sizeof(*dirs));
	size_t nd = 0;
	if (!dirs)
		abort();
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "--max-spread") && i + 1 < argc) {
			char *end;
			spread = strtod(argv[++i], &end);
			if (*end || end == argv[i] || spread < 0) {
				free(dirs);
				return fail("baseline: --max-spread '%s': a percentage", argv[i]);
			}
		} else if (!strcmp(argv[i], "--max-spread")) {
			free(dirs);
			return missing_value("baseline", argv[i], "a percentage");
		} else if (argv[i][0] == '-') {
			free(dirs);
			return fail("baseline: unknown option '%s'", argv[i]);
		} else {
			dirs[nd++] = argv[i];
		}
	}
	if (!nd) {
		free(dirs);
		return fail("%s", "baseline needs at least one RESULTS_DIR");
	}
	struct rr_run *runs = calloc(nd, sizeof(*runs));
	if (!runs)
		abort();
	size_t loaded = 0;
	int rc = RR_OK;
	for (; loaded < nd; loaded++)
		if (load(dirs[loaded], &runs[loaded])) {
			rc = RR_BAD_INPUT;
			break;
		}
	for (size_t i = 1; rc == RR_OK && i < nd; i++)
		if (strcmp(runs[i].preset, runs[0].preset))
			rc = fail("baseline: %s is not a run of the same preset as the first",
				  runs[i].dir);
	if (rc == RR_OK) {
		json_object *o = rr_baseline_json(runs, nd, spread / 100);
		puts(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
							   JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
	}
	for (size_t i = 0; i < loaded; i++)
		rr_run_free(&runs[i]);
	free(runs);
	free(dirs);
	return rc;
}

/* published [FILE]: the published figures through the report's own CSV parser, as JSON */
static int cmd_published(int argc, char **argv)
{
	struct rr_pubset pub;
	if (argc > 1)
		return fail("published: one FILE at most, not '%s'", argv[1]);
	const char *path = argc ? argv[0] : rr_pub_path();
	if (rr_pub_load(path, &pub, err, sizeof(err)))
		return fail("%s", err);
	json_object *a = rr_pub_json(&pub);
	puts(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
	rr_pub_free(&pub);
	return RR_OK;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return fail("%s", "no command; try raid-report --help");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return RR_OK;
	}
	if (!strcmp(cmd, "--compare"))
		return cmd_compare(argc - 2, argv + 2);
	if (!strcmp(cmd, "gate"))
		return cmd_gate(argc - 2, argv + 2);
	if (!strcmp(cmd, "baseline"))
		return cmd_baseline(argc - 2, argv + 2);
	if (!strcmp(cmd, "project"))
		return cmd_project(argc - 2, argv + 2);
	if (!strcmp(cmd, "published"))
		return cmd_published(argc - 2, argv + 2);
	if (cmd[0] == '-')
		return fail("unknown option '%s'; try raid-report --help", cmd);
	/* a word that is not a path is a mistyped command, whatever follows it */
	int is_dir = access(cmd, F_OK) == 0;
	if (!is_dir && !strchr(cmd, '/'))
		return fail("unknown command '%s' (commands: gate, baseline, project, published, "
			    "--compare; or a "
			    "RESULTS_DIR)%s",
			    cmd, !strcmp(cmd, "compare") ? ": did you mean --compare?" : "");
	if (argc > 2)
		return fail("unexpected argument '%s' after RESULTS_DIR %s; try raid-report --help",
			    argv[2], cmd);
	return cmd_report(cmd);
}
