#!/usr/bin/env bash
# run.sh: runs the fio tests that reproduce the published GPU-RAID / software-RAID /
# hardware-RAID reviews (presets), on member files or real drives, and writes
# results/<run-id>/ (layout: results/README.md). Presets, options and profiles: docs/presets.md.
# What each test runs is computed by build/bin/raid-preset plan (sizes, ids, fio's arguments:
# presets/README.md, "The plan"); this script parses the options, asks for the plan, then
# starts, watches, tears down and collects (run/README.md: its parts in run/).
set -euo pipefail
ORIG_ARGS=("$@")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=${FIO_RAID_ENGINE:-$ROOT/build/engines/raid.so} # another build's: run/ab.sh
HWINFO=$ROOT/build/bin/raid-hwinfo
RJSON=$ROOT/build/bin/raid-json
MDSTATS=$ROOT/build/bin/raid-mdstats
REPORT=$ROOT/build/bin/raid-report
PRESET=$ROOT/build/bin/raid-preset
PRESET_DIR=$ROOT/presets
WL=$ROOT/workloads

die() {
	echo "run.sh: $*" >&2
	exit 1
}
# shellcheck source-path=SCRIPTDIR
for f in hosts md targets plan exec guard recovery ab ublk; do source "$ROOT/run/$f.sh"; done

# The presets (presets/index, in order) and their doc lines (again after make, when the
# program was not built yet).
PRESETS=() PRESET_LIST=""
load_presets() { # a presets/ that does not list whole leaves PRESET_LIST empty (its error shown)
	[[ -x $PRESET ]] && PRESET_LIST=$("$PRESET" list "$PRESET_DIR") || { PRESET_LIST=""; return 1; }
	mapfile -t PRESETS < <(cut -d' ' -f1 <<<"$PRESET_LIST")
}
load_presets 2>/dev/null || true

usage() { # the engine's limits and defaults, from its option table (raid-preset limits)
	local -A L=([scale_auto]="(build/bin/raid-preset is not built yet)" [gpu_max]=63
		[gpu_batch_max]=1024 [gpu_batch_default]=64 [rebuild_min_default]=1 [rebuild_max_default]=200)
	[[ ! -x $PRESET ]] || while IFS='=' read -r k v; do L[$k]=$v; done < <("$PRESET" limits)
	cat <<EOF
usage: ./run.sh [PRESET] [OPTIONS]

Builds what it needs (make), runs a preset of fio tests through the fio-raid engine (and
fio's own engine on the members for JBOD baselines), writes results/<run-id>/ and builds
the report with build/bin/raid-report. With no arguments: the quick preset on member files
in a scratch directory.

Presets (./run.sh --list; presets/*.preset): ${PRESETS[*]:-(build/bin/raid-preset is not built yet)}

Options:
  --list                 list the presets, one line each, and exit
  --drives A,B,...       real block devices as members (bay order); each is wiped by the
                         tests: refused if it holds a partition table, filesystem or other
                         signature (listed) unless --force; a mounted device is always refused.
                         Fewer drives than the preset's arrays need is refused, naming them
  --fit                  with too few --drives: run each array on the bays there are (its
                         member count, and so its name, shrinks; below the level's minimum it
                         is left out); the results name what ran
  --force                use --drives even when they hold data
  --scratch DIR          member files in DIR, which must exist (default: a new directory under
                         \${TMPDIR:-/var/tmp}, removed afterwards unless --keep); files there
                         already are reused
  --member-size SIZE     size of each member file, or the part of each drive used
                         (default: 1G x scale, at least 32M)
  --keep                 keep the scratch directory and its member files
  --profile NAME|FILE    hardware profile (hw-profiles/NAME.json, or host: generated from this
                         machine): maps members to bays, pins each array's fio jobs and engine
                         threads to the NUMA node of its bays, warns when an array spans sockets
                         (default: the preset's host, else host)
  --parity cpu|cuda|auto parity path of the RAID 5/6 runs (default: hwluxx runs cpu and cuda,
                         sr-gen5 cpu for the chunk sweep and cuda for 4k, others auto)
  --gpu N                CUDA device of the cuda/auto parity runs (raid_gpu, 0..${L[gpu_max]})
  --gpu-batch N          most stripes per GPU launch (raid_gpu_batch, 1..${L[gpu_batch_max]}; default ${L[gpu_batch_default]})
  --runtime S            seconds per test (default 1 for quick, else max(5, 60 x scale))
  --repeat N             run each test N times, round by round (every test once, then again),
                         so that drift falls on every configuration alike; results tests/T@K.*
                         (default: the preset's repeat line: 3 for quick, else 1)
  --ab OTHER.so           A/B: this build's engine and OTHER's alternately, test by test and
                         repeat by repeat, then OTHER gated against this build (run/ab.sh)
  --scale F              multiply threads, queue depth and sizes by F (0 < F <= 1); default
                         auto: min(1, cores/32) rounded down to a power of two
                         (here: ${L[scale_auto]}); recorded in run.json and each meta.json
  --hosts H1,H2          run every test on these hosts at once through fio's client/server
                         mode: each host runs 'fio --server' (host, host:port, IPv4[:port],
                         [IPv6][:port]; port 8765 by default); member files go to
                         <scratch>/<host>_<port>/ on each, or --drives there
  --hosts-file FILE      the hosts, one a line: HOST[:PORT] [scratch=DIR | drives=A,B,...]
                         (each host's own member directory or drives; '#' comments)
  --only REGEX           run only the preset's tests whose id matches REGEX (extended regular
                         expression, e.g. 'raid[05]-'; ids as --dry-run prints them, without
                         a repeat's @K)
  --target LIST          what the tests measure, comma-separated (default engine):
                           engine         the fio-raid engine
                           md             the same arrays made by mdadm over the same members
                                          (fio's io_uring on /dev/mdN); on a kernel without
                                          md the whole preset runs in the md appliance
                           ublk           the engine's arrays as /dev/ublkbN (build/bin/raid-ublk;
                                          RAID_UBLK=PATH), fio's io_uring on them; on a
                                          kernel without ublk, in the appliance (6.12)
                           dev:PATH[=L]   an existing RAID volume (refused when it holds data
                                          unless --force; when mounted, always)
  --target-desc "..."    what a dev: volume is, e.g. "level=5 members=24 chunk=64k card=...":
                         recorded; level= and members= pick the preset's tests it runs (once
                         per dev: target, in order)
  --md-stripe-cache N    md's stripe_cache_size for RAID 5/6 (md's default 256)
  --md-threads N         md's group_thread_cnt for RAID 5/6 (md's default 0)
  --md-bitmap none|internal|auto
                         md's write-intent bitmap (default auto: mdadm's own choice, internal
                         when each member's part is over 100 GiB); shown beside md's figures
  --md-consistency resync|ppl
                         md RAID5's consistency policy (ppl: a partial parity log, which an
                         internal bitmap excludes; default resync)
  --precondition, --no-precondition
                         on block devices (--drives, dev:), fill each array and write it at
                         random before its tests, or not (default: the preset's precondition
                         line); member files skip it
  --steadystate, --no-steadystate
                         on block devices, run the measured tests until fio's steady state
                         (default: the preset's steadystate line, else iops_slope:10% over a
                         window of --runtime, at most 5 windows); member files skip it
  --md-sync-min MBPS, --md-sync-max MBPS
                         md's rebuild/resync speed limits per array (default ${L[rebuild_min_default]} and ${L[rebuild_max_default]}, as
                         the engine's raid_rebuild_min/max)
  --out DIR              results directory (default: results/)
  --dry-run              print the fio commands (with their environment) and exit; it does
                         not look into --scratch, and takes no lock
  --wait                 when another run.sh is running on this machine, wait for it to end
                         (default: refuse, naming it: two runs at once spoil each other)
  --concurrent           run alongside another run.sh (figures of both are then suspect)
  --no-build             do not run make first
  --no-report            do not run raid-report at the end
  -h, --help             this text

Member files this run creates start as zeros (clean arrays); reused member files and real
drives get raid_init=resync on the levels that have redundancy (RAID0 has none to resync).
A test the engine refuses as beyond what it can do here (a level it lacks, or a cuda run
without a usable GPU: the "refused" answer it writes to the test's raid_stats file) is
skipped with the engine's reason, and the rest runs. Labels in the results (members,
level) are what ran: the engine's stats, md's own answer.
EOF
}

# parse_options ARGS... -> O (the run's options), TARGET_DESCS
declare -A O=([out]=$ROOT/results [target]=engine [build]=1 [report]=1 [dry_run]=0 [keep]=0
	[force]=0 [fit]=0 [wait]=0 [concurrent]=0)
TARGET_DESCS=()
parse_options() {
	local v
	while (($#)); do
		case $1 in
		-h | --help) usage; exit 0 ;;
		--list)
			[[ -n $PRESET_LIST ]] || die "$PRESET is missing or presets/ is not valid: run make first"
			while read -r p doc; do printf '%-9s %s\n' "$p" "$doc"; done <<<"$PRESET_LIST"
			exit 0 ;;
		--drives | --scratch | --member-size | --profile | --parity | --runtime | --scale | --hosts | \
			--hosts-file | --only | --out | --gpu | --gpu-batch | --target | --target-desc | \
			--md-stripe-cache | --md-threads | --md-sync-min | --md-sync-max | --repeat | \
			--md-bitmap | --md-consistency)
			(($# >= 2)) || die "$1 needs a value"
			v=$2
			# './run.sh --scratch --keep' would otherwise make a directory named --keep
			[[ $v != --* ]] || die "$1 needs a value, not the option '$v'"
			if [[ $1 == --target-desc ]]; then TARGET_DESCS+=("$v"); else O[${1#--}]=$v; fi
			shift ;;
		--force | --keep | --fit | --wait | --concurrent) O[${1#--}]=1 ;;
		--precondition | --steadystate) O[${1#--}]=on ;;
		--no-precondition | --no-steadystate) O[${1#--no-}]=off ;;
		--dry-run) O[dry_run]=1 ;;
		--no-build) O[build]=0 ;;
		--no-report) O[report]=0 ;;
		-*) die "unknown option '$1' (see ./run.sh --help)" ;;
		*)
			[[ -z ${O[preset]:-} ]] || die "one preset at a time ('${O[preset]}' and '$1')"
			O[preset]=$1 ;;
		esac
		shift
	done
	O[preset]=${O[preset]:-quick}
	[[ -f $PRESET_DIR/${O[preset]}.preset && ${O[preset]} != */* ]] ||
		die "unknown preset '${O[preset]}'; presets: ${PRESETS[*]} (./run.sh --list)"
	[[ -z ${O[drives]:-} || -z ${O[scratch]:-} ]] || die "--drives and --scratch exclude each other"
	[[ -z ${O[hosts]:-} || -z ${O[hosts-file]:-} ]] || die "--hosts and --hosts-file exclude each other"
	# a host's share of a test is tests/T@HOST: one run each there (no T@K@HOST yet)
	[[ -z ${O[hosts]:-}${O[hosts-file]:-} ]] || { [[ ${O[repeat]:-1} == 1 ]] || die "--repeat with --hosts: one run of each test only"; O[repeat]=1; }
	targets_parse "${O[target]}"
	md_check_options
	O[scratch_given]=${O[scratch]:-}
	# the caller's member directory must exist (a typo would fill a new one); a host's is there
	[[ -z ${O[scratch]:-} || -n ${O[hosts]:-}${O[hosts-file]:-} || ${O[dry_run]} -eq 1 || -d ${O[scratch]} ]] ||
		die "--scratch: ${O[scratch]} is not a directory (give an existing one, or none: run.sh then makes its own)"
}

# make_scratch: the member directory of a real run: the caller's (which must exist), or a new
# one (removed at the end unless --keep)
make_scratch() {
	[[ -z ${O[drives]:-} ]] || return 0
	if [[ -n ${FIO_RAID_SCRATCH_MADE:-} ]]; then # made for this run (by the appliance's caller)
		O[scratch]=$FIO_RAID_SCRATCH_MADE O[scratch_made]=$FIO_RAID_SCRATCH_MADE
	elif [[ -z ${O[scratch]:-} ]]; then
		O[scratch]=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-scratch.XXXXXX") O[scratch_made]=${O[scratch]}
	fi
	make_dir --scratch "${O[scratch]}"
}

cleanup() {
	targets_stop
	rm -rf "${RUN[work]}"
	if [[ -n ${O[scratch_made]:-} && ${O[keep]} -eq 0 ]]; then
		# a directory the appliance's caller made is a mount point here: empty it, it goes there
		if [[ -n ${FIO_RAID_SCRATCH_MADE:-} ]]; then rm -rf "${O[scratch_made]:?}"/*; else rm -rf "${O[scratch_made]}"; fi
	fi
	return 0
}

build() {
	local log=${TMPDIR:-/tmp}/fio-raid-make.$$.log t
	if ((O[build] && !O[dry_run])); then
		echo "run.sh: make (packages, fio, engine, tools)"
		make -C "$ROOT" -j2 >"$log" 2>&1 || { tail -20 "$log" >&2; die "make failed (log: $log)"; }
		rm -f "$log"
	fi
	for t in "$HWINFO" "$RJSON" "$PRESET"; do [[ -x $t ]] || die "$t is missing: run make first"; done
	((O[dry_run])) || [[ -x $FIO ]] || die "$FIO is missing: run make first"
	[[ -n $PRESET_LIST ]] || load_presets || die "presets/ is not valid (above)"
	[[ " ${PRESETS[*]} " == *" ${O[preset]} "* ]] ||
		die "preset ${O[preset]}: $PRESET_DIR/${O[preset]}.preset is not in $PRESET_DIR/index"
}

# members: the drives, checked (attached, none twice, no data unless --force), or the hosts
members() {
	if [[ -n ${O[hosts]:-}${O[hosts-file]:-} ]]; then
		hosts_load "${O[hosts]:-}" "${O[hosts-file]:-}"
		O[hosts]=$(IFS=,; echo "${HOSTS[*]}")
		[[ -z ${O[drives]:-} ]] || list_split --drives "${O[drives]}"
	elif [[ -n ${O[drives]:-} ]]; then
		list_split --drives "${O[drives]}"
		drives_check --drives "${LIST_ITEMS[@]}"
		drives_guard "${LIST_ITEMS[@]}"
	fi
	targets_check_devs
}

main() {
	ab_maybe "$@" # --ab OTHER_ENGINE: run/ab.sh
	parse_options "$@"
	build
	RUN[work]=$(mktemp -d "${TMPDIR:-/tmp}/fio-raid-run.XXXXXX")
	trap cleanup EXIT
	trap 'interrupted INT' INT
	trap 'interrupted TERM' TERM
	profile_load
	members
	# the plan once to learn the tests (and refuse what cannot run) before anything is made
	plan_make
	RUN[id]=${FIO_RAID_RUN_ID:-$(date +%Y%m%d-%H%M%S)-${O[preset]}}
	((O[dry_run])) || { lock_take; targets_maybe_reexec "${ORIG_ARGS[@]}"; }
	RUN[rdir]=${O[out]}/${RUN[id]}
	if ((!O[dry_run])); then
		make_dir --out "${RUN[rdir]}/tests"
		make_dir --out "${RUN[rdir]}/logs"
		room_check --out "${RUN[rdir]}"
		make_scratch
	else
		O[scratch]=${O[scratch]:-${TMPDIR:-/var/tmp}/fio-raid-scratch.DRYRUN}
	fi
	if [[ -n ${O[hosts]:-} ]]; then
		hosts_members
		((O[dry_run])) || { hosts_reachable; hosts_prepare_dirs; }
	fi
	members_reused
	place_arrays
	plan_make hosts
	if ((O[dry_run])); then
		plan_print
		exit 0
	fi
	run_json_start
	echo "run.sh: preset ${O[preset]}, ${PLAN_RUN[configs]} tests x ${PLAN_RUN[repeats]} (round by round), scale ${PLAN_RUN[scale]}, ${PLAN_RUN[runtime]}s each, results in ${RUN[rdir]}"
	[[ -f $ENGINE ]] || echo "run.sh: $ENGINE is not built yet: RAID runs are skipped, JBOD runs go on"
	run_tests
	run_json_finish
	echo "run.sh: ${COUNT[ok]} ok, ${COUNT[skipped]} skipped, ${COUNT[failed]} failed in $((SECONDS - RUN[t0])) s: ${RUN[rdir]}"
	((O[keep])) && [[ -n ${O[scratch_made]:-} ]] && echo "run.sh: member files kept in ${O[scratch_made]}"
	if ((O[report])); then
		if [[ -x $REPORT ]]; then
			"$REPORT" "${RUN[rdir]}" || echo "run.sh: raid-report failed (exit $?)"
		else
			echo "run.sh: $REPORT is not built yet: report skipped"
		fi
	fi
	((COUNT[failed] == 0))
}

declare -A RUN=([work]="")
main "$@"
