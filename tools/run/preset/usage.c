/*
 * usage.c - `raid-preset usage "PRESET..."`: run.sh's --help, its limits and defaults
 * (raid_gpu, raid_gpu_batch, raid_rebuild_min/max, the automatic --scale) filled in from the
 * engine's option table, so that no figure of the engine is written twice.
 */
#include <stdio.h>
#include <string.h>

#include "raid/core/raid.h"
#include "preset.h"
#include "plan.h"

/* clang-format off: the help as run.sh prints it, one line a string; {{NAME}} is a figure */
static const char *const text[] = {
	"usage: ./run.sh [PRESET] [OPTIONS]\n",
	"\n",
	"Builds what it needs (make), runs a preset of fio tests through the fio-raid engine (and\n",
	"fio's own engine on the members for JBOD baselines), writes results/<run-id>/ and builds\n",
	"the report with build/bin/raid-report. With no arguments: the quick preset on member files\n",
	"in a scratch directory.\n",
	"\n",
	"Presets (./run.sh --list; presets/*.preset): {{presets}}\n",
	"\n",
	"Options:\n",
	"  --list                 list the presets, one line each, and exit\n",
	"  --drives A,B,...       real block devices as members (bay order); each is wiped by the\n",
	"                         tests: refused if it holds a partition table, filesystem or other\n",
	"                         signature (listed) unless --force; a mounted device is always refused.\n",
	"                         Fewer drives than the preset's arrays need is refused, naming them\n",
	"  --fit                  with too few --drives: run each array on the bays there are (its\n",
	"                         member count, and so its name, shrinks; below the level's minimum it\n",
	"                         is left out); the results name what ran\n",
	"  --force                use --drives even when they hold data\n",
	"  --scratch DIR          member files in DIR, which must exist (default: a new directory under\n",
	"                         ${TMPDIR:-/var/tmp}, removed afterwards unless --keep); files there\n",
	"                         already are reused\n",
	"  --member-size SIZE     size of each member file, or the part of each drive used\n",
	"                         (default: 1G x scale, at least 32M)\n",
	"  --keep                 keep the scratch directory and its member files\n",
	"  --profile NAME|FILE    hardware profile (hw-profiles/NAME.json, or host: generated from this\n",
	"                         machine): maps members to bays, pins each array's fio jobs and engine\n",
	"                         threads to the NUMA node of its bays, warns when an array spans sockets\n",
	"                         (default: the preset's host, else host)\n",
	"  --parity cpu|cuda|auto parity path of the RAID 5/6 runs (default: hwluxx runs cpu and cuda,\n",
	"                         sr-gen5 cpu for the chunk sweep and cuda for 4k, others auto)\n",
	"  --gpu N                CUDA device of the cuda/auto parity runs (raid_gpu, 0..{{gpu_max}})\n",
	"  --gpu-batch N          most stripes per GPU launch (raid_gpu_batch, 1..{{gpu_batch_max}}; default {{gpu_batch_default}})\n",
	"  --runtime S            seconds per test (default 1 for quick, else max(5, 60 x scale))\n",
	"  --repeat N             run each test N times, round by round (every test once, then again),\n",
	"                         so that drift falls on every configuration alike; results tests/T@K.*\n",
	"                         (default: the preset's repeat line: 3 for quick, else 1)\n",
	"  --ab OTHER.so           A/B: this build's engine and OTHER's alternately, test by test and\n",
	"                         repeat by repeat, then OTHER gated against this build (run/ab.sh)\n",
	"  --scale F              multiply threads, queue depth and sizes by F (0 < F <= 1); default\n",
	"                         auto: min(1, cores/32) rounded down to a power of two\n",
	"                         (here: {{scale_auto}}); recorded in run.json and each meta.json\n",
	"  --hosts H1,H2          run every test on these hosts at once through fio's client/server\n",
	"                         mode: each host runs 'fio --server' (host, host:port, IPv4[:port],\n",
	"                         [IPv6][:port]; port 8765 by default); member files go to\n",
	"                         <scratch>/<host>_<port>/ on each, or --drives there\n",
	"  --hosts-file FILE      the hosts, one a line: HOST[:PORT] [scratch=DIR | drives=A,B,...]\n",
	"                         (each host's own member directory or drives; '#' comments)\n",
	"  --only REGEX           run only the preset's tests whose id matches REGEX (extended regular\n",
	"                         expression, e.g. 'raid[05]-'; ids as --dry-run prints them, without\n",
	"                         a repeat's @K)\n",
	"  --target LIST          what the tests measure, comma-separated (default engine):\n",
	"                           engine         the fio-raid engine\n",
	"                           md             the same arrays made by mdadm over the same members\n",
	"                                          (fio's io_uring on /dev/mdN); on a kernel without\n",
	"                                          md the whole preset runs in the md appliance\n",
	"                           ublk           the engine's arrays as /dev/ublkbN (build/bin/raid-ublk;\n",
	"                                          RAID_UBLK=PATH), fio's io_uring on them; on a\n",
	"                                          kernel without ublk, in the appliance (6.12)\n",
	"                           dev:PATH[=L]   an existing RAID volume (refused when it holds data\n",
	"                                          unless --force; when mounted, always)\n",
	"  --target-desc \"...\"    what a dev: volume is, e.g. \"level=5 members=24 chunk=64k card=...\":\n",
	"                         recorded; level= and members= pick the preset's tests it runs (once\n",
	"                         per dev: target, in order)\n",
	"  --md-stripe-cache N    md's stripe_cache_size for RAID 5/6 (md's default 256)\n",
	"  --md-threads N         md's group_thread_cnt for RAID 5/6 (md's default 0)\n",
	"  --md-bitmap none|internal|auto\n",
	"                         md's write-intent bitmap (default auto: mdadm's own choice, internal\n",
	"                         when each member's part is over 100 GiB); shown beside md's figures\n",
	"  --md-consistency resync|ppl\n",
	"                         md RAID5's consistency policy (ppl: a partial parity log, which an\n",
	"                         internal bitmap excludes; default resync)\n",
	"  --precondition, --no-precondition\n",
	"                         on block devices (--drives, dev:), fill each array and write it at\n",
	"                         random before its tests, or not (default: the preset's precondition\n",
	"                         line); member files skip it\n",
	"  --steadystate, --no-steadystate\n",
	"                         on block devices, run the measured tests until fio's steady state\n",
	"                         (default: the preset's steadystate line, else iops_slope:10% over a\n",
	"                         window of --runtime, at most 5 windows); member files skip it\n",
	"  --md-sync-min MBPS, --md-sync-max MBPS\n",
	"                         md's rebuild/resync speed limits per array (default {{rebuild_min_default}} and {{rebuild_max_default}}, as\n",
	"                         the engine's raid_rebuild_min/max)\n",
	"  --out DIR              results directory (default: results/)\n",
	"  --dry-run              print the fio commands (with their environment) and exit; it does\n",
	"                         not look into --scratch, and takes no lock\n",
	"  --wait                 when another run.sh is running on this machine, wait for it to end\n",
	"                         (default: refuse, naming it: two runs at once spoil each other)\n",
	"  --concurrent           run alongside another run.sh (figures of both are then suspect)\n",
	"  --no-build             do not run make first\n",
	"  --no-report            do not run raid-report at the end\n",
	"  -h, --help             this text\n",
	"\n",
	"Member files this run creates start as zeros (clean arrays); reused member files and real\n",
	"drives get raid_init=resync on the levels that have redundancy (RAID0 has none to resync).\n",
	"A test the engine refuses as beyond what it can do here (a level it lacks, or a cuda run\n",
	"without a usable GPU: the \"refused\" answer it writes to the test's raid_stats file) is\n",
	"skipped with the engine's reason, and the rest runs. Labels in the results (members,\n",
	"level) are what ran: the engine's stats, md's own answer.\n",
};
/* clang-format on */

/* {{NAME}} -> its figure: the option table's default or maximum, the automatic scale */
static void figure(const char *name, size_t len, const char *presets)
{
	static const char *const opts[] = {"raid_gpu", "raid_gpu_batch", "raid_rebuild_min",
					   "raid_rebuild_max"};

	if (len == 7 && !strncmp(name, "presets", 7)) {
		fputs(presets, stdout);
		return;
	}
	if (len == 10 && !strncmp(name, "scale_auto", 10)) {
		printf("%g", auto_scale());
		return;
	}
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
		const struct raid_option *ro = raid_option_find(opts[i]);
		char key[64];

		snprintf(key, sizeof(key), "%s_max", opts[i] + 5);
		if (strlen(key) == len && !strncmp(name, key, len)) {
			printf("%lld", ro->hi);
			return;
		}
		snprintf(key, sizeof(key), "%s_default", opts[i] + 5);
		if (strlen(key) == len && !strncmp(name, key, len)) {
			fputs(ro->def, stdout);
			return;
		}
	}
	preset_die("usage: no figure '%.*s'", (int)len, name);
}

int usage_main(const char *presets)
{
	for (size_t i = 0; i < sizeof(text) / sizeof(text[0]); i++)
		for (const char *s = text[i], *at; *s; s = at) {
			const char *end;

			at = strstr(s, "{{");
			end = at ? strstr(at, "}}") : NULL;
			if (!end) {
				fputs(s, stdout);
				break;
			}
			fwrite(s, 1, at - s, stdout);
			figure(at + 2, end - at - 2, presets);
			at = end + 2;
		}
	return 0;
}
