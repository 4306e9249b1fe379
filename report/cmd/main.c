/* report/cmd/main.c: the raid-report command line. Bad input (a missing directory, malformed
 * JSON, an unknown command or option) ends with one line on stderr and exit status 2; exit
 * status 1 is kept for "the gate found a regression". Each command is a file of this folder. */
#include "report/cmd/cmd.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: raid-report RESULTS_DIR                 summary, charts and index.html of a run\n"
    "       raid-report --compare RUN_A RUN_B [--out DIR]\n"
    "       raid-report gate --baseline FILE RESULTS_DIR [--tolerance PCT] [--junit FILE]\n"
    "                        [--html FILE]\n"
    "         (per figure passed, REGRESSED, improved or cannot tell (detectable: N%):\n"
    "         a rank test or a bootstrap over the repetitions, threshold PCT, default\n"
    "         15; another machine's baseline: only the ratios measured within the run)\n"
    "       raid-report project RESULTS_DIR [--profile NAME|FILE|host] [--self] [--json]\n"
    "         (each test projected onto a host profile, default the run's reviewed host:\n"
    "         the published tests at their size, the other optimal tests at their own;\n"
    "         --self: only this machine's self-check rows; --json: summary.json's objects)\n"
    "       raid-report baseline RESULTS_DIR [RESULTS_DIR...] > FILE\n"
    "         (each figure's median, range and count over every repetition of the runs,\n"
    "         and the machine they were measured on)\n"
    "       raid-report line RESULTS_DIR/tests/TEST.json   one test in one line: IOPS, MB/s,\n"
    "         mean total latency, Little's law's mark (what run.sh prints)\n"
    "       raid-report published [FILE]               the published figures as JSON (one\n"
    "         object a row, the CSV's header as keys, every field its text)\n"
    "RAID_REPORT_PUBLISHED=FILE overrides results/reference/published.csv.\n";

/* published [FILE]: the published figures through the report's own CSV parser, as JSON */
static int cmd_published(int argc, char **argv)
{
	struct rr_pubset pub;
	if (argc > 1)
		return rr_fail("published: one FILE at most, not '%s'", argv[1]);
	const char *path = argc ? argv[0] : rr_pub_path();
	if (rr_pub_load(path, &pub, rr_err, sizeof(rr_err)))
		return rr_fail("%s", rr_err);
	json_object *a = rr_pub_json(&pub);
	puts(json_object_to_json_string_ext(a, JSON_C_TO_STRING_PRETTY |
						   JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(a);
	rr_pub_free(&pub);
	return RR_OK;
}

static int run_cmd(int argc, char **argv)
{
	if (argc < 2)
		return rr_fail("%s", "no command; try raid-report --help");
	const char *cmd = argv[1];
	if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h")) {
		fputs(usage, stdout);
		return RR_OK;
	}
	if (!strcmp(cmd, "--compare"))
		return rr_cmd_compare(argc - 2, argv + 2);
	if (!strcmp(cmd, "gate"))
		return rr_cmd_gate(argc - 2, argv + 2);
	if (!strcmp(cmd, "baseline"))
		return rr_cmd_baseline(argc - 2, argv + 2);
	if (!strcmp(cmd, "project"))
		return rr_cmd_project(argc - 2, argv + 2);
	if (!strcmp(cmd, "line"))
		return rr_cmd_line(argc - 2, argv + 2);
	if (!strcmp(cmd, "published"))
		return cmd_published(argc - 2, argv + 2);
	if (cmd[0] == '-')
		return rr_fail("unknown option '%s'; try raid-report --help", cmd);
	/* a word that is not a path is a mistyped command, whatever follows it */
	int is_dir = access(cmd, F_OK) == 0;
	if (!is_dir && !strchr(cmd, '/'))
		return rr_fail(
		    "unknown command '%s' (commands: gate, baseline, project, line, published, "
		    "--compare; or a "
		    "RESULTS_DIR)%s",
		    cmd, !strcmp(cmd, "compare") ? ": did you mean --compare?" : "");
	if (argc > 2)
		return rr_fail(
		    "unexpected argument '%s' after RESULTS_DIR %s; try raid-report --help",
		    argv[2], cmd);
	return rr_cmd_report(cmd);
}

int main(int argc, char **argv)
{
	int rc = run_cmd(argc, argv);
	/* what went to stdout (a baseline, a table) must have reached it: `> /dev/full` fails */
	if (fflush(stdout) || ferror(stdout))
		return rr_fail("stdout: write failed (%s)", strerror(errno ? errno : EIO));
	return rc;
}
