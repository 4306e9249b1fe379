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

usage() { # run.sh's help, its limits and defaults the engine's option table's (raid-preset usage)
	[[ -x $PRESET ]] || { make -s -C "$ROOT" build/bin/raid-preset >&2 && load_presets; } ||
		die "make build/bin/raid-preset failed: it prints this help"
	"$PRESET" usage "${PRESETS[*]}"
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
		drives_ok --drives "${LIST_ITEMS[@]}"
	fi
	targets_check_devs
}

main() {
	ab_maybe "$@" # --ab OTHER_ENGINE: run/ab.sh
	parse_options "$@"
	build
	targets_parse "${O[target]}" # (raid-preset checks it: after the build)
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
