#!/usr/bin/env bash
# run.sh: runs the fio tests that reproduce the published GPU-RAID / software-RAID /
# hardware-RAID reviews (presets), on member files or real drives, and writes
# results/<run-id>/ (layout: results/README.md). Presets, options and profiles: docs/presets.md.
# The presets are data (presets/NAME.preset, read by build/bin/raid-preset, which also reads
# the fio job files' facts: workloads/*.fio); host facts and NUMA placement come from
# build/bin/raid-hwinfo, JSON is written and read by build/bin/raid-json (json-c). Targets
# (engine, md, dev: volumes): run/targets.sh and run/md.sh.
set -euo pipefail
ORIG_ARGS=("$@")

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
HWINFO=$ROOT/build/bin/raid-hwinfo
RJSON=$ROOT/build/bin/raid-json
RTOOL=$ROOT/build/bin/raid-tool
REPORT=$ROOT/build/bin/raid-report
PRESET=$ROOT/build/bin/raid-preset
PRESET_DIR=$ROOT/presets
WL=$ROOT/workloads

# The presets (presets/index, in order) and their doc lines, from raid-preset list (again
# after make, when it was not built yet).
PRESETS=() PRESET_LIST=""
load_presets() {
	[[ -x $PRESET ]] && PRESET_LIST=$("$PRESET" list "$PRESET_DIR") || return 1
	mapfile -t PRESETS < <(cut -d' ' -f1 <<<"$PRESET_LIST")
}
load_presets || true

usage() {
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
                         signature (listed) unless --force; a mounted device is always refused
  --force                use --drives even when they hold data
  --scratch DIR          member files in DIR (default: a new directory under \${TMPDIR:-/var/tmp},
                         removed afterwards unless --keep); files there already are reused
  --member-size SIZE     size of each member file, or the part of each drive used
                         (default: 1G x scale, at least 32M)
  --keep                 keep the scratch directory and its member files
  --profile NAME|FILE    hardware profile (hw-profiles/NAME.json, or host: generated from this
                         machine): maps members to bays, pins each array's fio jobs and engine
                         threads to the NUMA node of its bays, warns when an array spans sockets
                         (default: the preset's host, else host)
  --parity cpu|cuda|auto parity path of the RAID 5/6 runs (default: hwluxx runs cpu and cuda,
                         sr-gen5 cpu for the chunk sweep and cuda for 4k, others auto)
  --gpu N                CUDA device of the cuda/auto parity runs (raid_gpu; default 0)
  --gpu-batch N          most stripes per GPU launch (raid_gpu_batch, 1..1024; default 64)
  --runtime S            seconds per test (default 3 for quick, else max(5, 60 x scale))
  --scale F              multiply threads, queue depth and sizes by F (0 < F <= 1); default
                         auto: min(1, cores/32) rounded down to a power of two
                         (here: $(auto_scale)); recorded in run.json and each meta.json
  --hosts H1,H2          run every test on these hosts at once through fio's client/server
                         mode: each host runs 'fio --server' (host, host:port, IPv4[:port],
                         [IPv6][:port]; port 8765 by default); member files go to
                         <scratch>/<host>_<port>/ on each, or --drives there
  --hosts-file FILE      the hosts, one a line: HOST[:PORT] [scratch=DIR | drives=A,B,...]
                         (each host's own member directory or drives; '#' comments)
  --only REGEX           run only the preset's tests whose id matches REGEX (extended regular
                         expression, e.g. 'raid[05]-'; ids as --dry-run prints them)
  --target LIST          what the tests measure, comma-separated (default engine):
                           engine         the fio-raid engine
                           md             the same arrays made by mdadm over the same members
                                          (fio's io_uring on /dev/mdN); on a kernel without
                                          md the whole preset runs in the md appliance
                           dev:PATH[=L]   an existing RAID volume (refused when it holds data
                                          unless --force; when mounted, always)
  --target-desc "..."    what a dev: volume is, e.g. "level=5 members=24 chunk=64k card=...":
                         recorded; level= and members= pick the preset's tests it runs (once
                         per dev: target, in order)
  --md-stripe-cache N    md's stripe_cache_size for RAID 5/6 (md's default 256)
  --md-threads N         md's group_thread_cnt for RAID 5/6 (md's default 0)
  --md-sync-min MBPS, --md-sync-max MBPS
                         md's rebuild/resync speed limits per array (default 1 and 200, as
                         the engine's raid_rebuild_min/max)
  --out DIR              results directory (default: results/)
  --dry-run              print the fio commands (with their environment) and exit
  --no-build             do not run make first
  --no-report            do not run raid-report at the end
  -h, --help             this text

Member files this run creates start as zeros (clean arrays); reused member files and real
drives get raid_init=resync when the engine supports it (the run says which). A test the
engine refuses as beyond what it can do here (a level it lacks, or a cuda run without a
usable GPU: the "refused" answer it writes to the test's raid_stats file) is skipped with
the engine's reason, and the rest runs.

Every engine process of a run uses one parity selection, measured by the first that needs it
and kept in <out>/<run-id>/parity-selection.json; set RAID_PARITY_SELECTION=FILE to keep one
across runs instead (docs/parity.md, "Kept selection").
EOF
}

die() {
	echo "run.sh: $*" >&2
	exit 1
}
# shellcheck source=run/hosts.sh
source "$ROOT/run/hosts.sh"
source "$ROOT/run/md.sh"
source "$ROOT/run/targets.sh"
source "$ROOT/run/levels.sh"

auto_scale() {
	local cores s=1
	cores=$(nproc 2>/dev/null || echo 1)
	while ((cores * s < 32 && s < 1024)); do s=$((s * 2)); done
	awk -v s="$s" 'BEGIN { printf "%g", 1 / s }'
}

# ---- options ----
preset="" drives="" force=0 scratch="" member_size="" keep=0 profile="" parity="" gpu="" gpu_batch=""
runtime="" scale="" hosts="" hosts_file="" only="" out="$ROOT/results" dry_run=0 build=1 report=1
target_list=engine md_stripe_cache="" md_threads="" md_sync_min="" md_sync_max=""
while (($#)); do
	case $1 in
	-h | --help) usage; exit 0 ;;
	--list)
		[[ -n $PRESET_LIST ]] || die "$PRESET is missing or presets/ is not valid: run make first"
		while read -r p doc; do printf '%-9s %s\n' "$p" "$doc"; done <<<"$PRESET_LIST"
		exit 0 ;;
	--drives | --scratch | --member-size | --profile | --parity | --runtime | --scale | --hosts | --hosts-file | --only | --out | --gpu | --gpu-batch | \
		--target | --target-desc | --md-stripe-cache | --md-threads | --md-sync-min | --md-sync-max)
		(($# >= 2)) || die "$1 needs a value"
		v=$2
		# './run.sh --scratch --keep' would otherwise make a directory named --keep
		[[ $v != --* ]] || die "$1 needs a value, not the option '$v'"
		case $1 in
		--drives) drives=$v ;; --scratch) scratch=$v ;; --member-size) member_size=$v ;;
		--profile) profile=$v ;; --parity) parity=$v ;; --runtime) runtime=$v ;;
		--scale) scale=$v ;; --hosts) hosts=$v ;; --hosts-file) hosts_file=$v ;; --only) only=$v ;; --out) out=$v ;;
		--gpu) gpu=$v ;; --gpu-batch) gpu_batch=$v ;;
		--target) target_list=$v ;; --target-desc) target_descs+=("$v") ;;
		--md-stripe-cache) md_stripe_cache=$v ;; --md-threads) md_threads=$v ;;
		--md-sync-min) md_sync_min=$v ;; --md-sync-max) md_sync_max=$v ;;
		esac
		shift ;;
	--force) force=1 ;;
	--keep) keep=1 ;;
	--dry-run) dry_run=1 ;;
	--no-build) build=0 ;;
	--no-report) report=0 ;;
	-*) die "unknown option '$1' (see ./run.sh --help)" ;;
	*)
		[[ -z $preset ]] || die "one preset at a time ('$preset' and '$1')"
		preset=$1 ;;
	esac
	shift
done
preset=${preset:-quick}
[[ -f $PRESET_DIR/$preset.preset && $preset != */* ]] ||
	die "unknown preset '$preset'; presets: ${PRESETS[*]} (./run.sh --list)"
case $parity in "" | cpu | cuda | auto) ;; *) die "--parity must be cpu, cuda or auto, not '$parity'" ;; esac
[[ -z $runtime || $runtime =~ ^[1-9][0-9]*$ ]] || die "--runtime must be a whole number of seconds, not '$runtime'"
[[ -z $gpu || ( $gpu =~ ^[0-9]+$ && $gpu -le 63 ) ]] || die "--gpu must be a CUDA device index 0..63, not '$gpu'"
[[ -z $gpu_batch || ( $gpu_batch =~ ^[1-9][0-9]*$ && $gpu_batch -le 1024 ) ]] ||
	die "--gpu-batch must be a stripe count 1..1024, not '$gpu_batch'"
scale=${scale:-$(auto_scale)}
awk -v s="$scale" 'BEGIN { exit !(s ~ /^[0-9]*\.?[0-9]+(e-?[0-9]+)?$/ && s > 0 && s <= 1) }' ||
	die "--scale must be a number in (0, 1], not '$scale'"
[[ -z $drives || -z $scratch ]] || die "--drives and --scratch exclude each other"
[[ -z $hosts || -z $hosts_file ]] || die "--hosts and --hosts-file exclude each other"
targets_parse "$target_list"
[[ -z $md_stripe_cache || ( $md_stripe_cache =~ ^[1-9][0-9]*$ && $md_stripe_cache -ge 17 && $md_stripe_cache -le 32768 ) ]] ||
	die "--md-stripe-cache must be md's stripe_cache_size, 17..32768, not '$md_stripe_cache'"
[[ -z $md_threads || ( $md_threads =~ ^[0-9]+$ && $md_threads -le 8192 ) ]] ||
	die "--md-threads must be md's group_thread_cnt, 0..8192, not '$md_threads'"
for v in "$md_sync_min" "$md_sync_max"; do
	[[ -z $v || $v =~ ^[1-9][0-9]*$ ]] || die "--md-sync-min/--md-sync-max must be whole MB/s, not '$v'"
done
[[ -z $md_sync_min || -z $md_sync_max || $md_sync_min -le $md_sync_max ]] ||
	die "--md-sync-min ($md_sync_min) is above --md-sync-max ($md_sync_max)"
scratch_given=$scratch

to_bytes() { # 512k, 1G, 4096 -> bytes
	local v=${1,,} m=1
	case $v in *k) m=1024 ;; *m) m=$((1 << 20)) ;; *g) m=$((1 << 30)) ;; *t) m=$((1 << 40)) ;; esac
	v=${v%[kmgt]}
	[[ $v =~ ^[0-9]+$ ]] || return 1
	echo $((v * m))
}
if [[ -n $member_size ]]; then
	msize=$(to_bytes "$member_size") || die "--member-size: '$member_size' is not a size (e.g. 256M)"
	((msize >= 1 << 20)) || die "--member-size must be at least 1M"
fi
declare -A SCALED=()
scaled() { # published figure -> figure after --scale (at least 1); once each (forks are slow
	# under the md appliance's emulation)
	[[ -n ${SCALED[$1]:-} ]] ||
		SCALED[$1]=$(awk -v n="$1" -v s="$scale" 'BEGIN { v = int(n * s + 0.5); print (v < 1 ? 1 : v) }')
	echo "${SCALED[$1]}"
}

# ---- build ----
if ((build && !dry_run)); then
	echo "run.sh: make (packages, fio, engine, tools)"
	make -C "$ROOT" -j2 >"${TMPDIR:-/tmp}/fio-raid-make.$$.log" 2>&1 ||
		{ tail -20 "${TMPDIR:-/tmp}/fio-raid-make.$$.log" >&2; die "make failed (log: ${TMPDIR:-/tmp}/fio-raid-make.$$.log)"; }
	rm -f "${TMPDIR:-/tmp}/fio-raid-make.$$.log"
fi
for t in "$HWINFO" "$RJSON" "$PRESET" "$RTOOL"; do [[ -x $t ]] || die "$t is missing: run make first"; done
levels_load "$RTOOL"
((dry_run)) || [[ -x $FIO ]] || die "$FIO is missing: run make first"

# ---- the preset: doc, default profile, layout, and its scale rules at this --scale ----
PFILE=$PRESET_DIR/$preset.preset
[[ -n $PRESET_LIST ]] || load_presets || die "presets/ is not valid (above)"
[[ " ${PRESETS[*]} " == *" $preset "* ]] || die "preset $preset: $PFILE is not in $PRESET_DIR/index"
preset_info=$("$PRESET" info "$PFILE" --scale "$scale") || die "preset $preset: $PFILE is not valid (above)"
while read -r k v; do
	case $k in
	doc) preset_doc=$v ;; profile) preset_profile=$v ;; layout) preset_layout=$v ;;
	runtime) runtime=${runtime:-$v} ;; member-size) msize=${msize:-$v} ;;
	esac
done <<<"$preset_info"
msize=$((msize / (1 << 20) * (1 << 20)))

# ---- profile ----
work=$(mktemp -d "${TMPDIR:-/tmp}/fio-raid-run.XXXXXX")
cleanup() {
	targets_stop
	rm -rf "$work"
	if [[ -n ${scratch_made:-} && $keep -eq 0 ]]; then
		# a directory the appliance's caller made is a mount point here: empty it, it goes there
		if [[ -n ${FIO_RAID_SCRATCH_MADE:-} ]]; then rm -rf "${scratch_made:?}"/*; else rm -rf "$scratch_made"; fi
	fi
	return 0
}
trap cleanup EXIT
trap 'echo "run.sh: interrupted: stopping fio, tearing down what this run made" >&2; exit 130' INT TERM
profile=${profile:-$preset_profile}
if [[ $profile == host ]]; then
	profile_file=$work/host-profile.json
	"$HWINFO" host-profile >"$profile_file" || die "cannot generate the host profile"
elif [[ -f $profile ]]; then
	profile_file=$profile
elif [[ -f $ROOT/hw-profiles/$profile.json ]]; then
	profile_file=$ROOT/hw-profiles/$profile.json
else
	die "unknown profile '$profile': not a file, not hw-profiles/$profile.json, not 'host'"
fi
"$HWINFO" check "$profile_file" >/dev/null || die "profile $profile_file is not valid (errors above)"
profile_name=$("$RJSON" get "$profile_file" name)
profile_bays=$("$RJSON" get "$profile_file" bays | tr -cd '{' | wc -c)

# ---- the plan: one line per fio run (raid-preset plan; presets/README.md) ----
# GROUP ARRAY LEVEL MEMBERS CHUNK PARITY STATE BAYS JOBFILE
# GROUP "-" runs alone; consecutive lines of one group run at the same time (2x 8-drive
# arrays). LEVEL jbod: fio's own engine on the members. BAYS "-": bays 0..MEMBERS-1.
seq_bays() { local i s=""; for ((i = $1; i <= $2; i++)); do s+="${s:+,}$i"; done; echo "$s"; }
layout_args=()
if [[ $preset_layout != - ]]; then
	"$HWINFO" layout "$profile_file" "$preset_layout" >"$work/layout" 2>/dev/null ||
		die "profile $profile_name has no $preset_layout layout (the $preset preset needs one)"
	layout_args=(--layout "$work/layout")
fi
plan=$("$PRESET" plan "$PFILE" --workloads "$WL" ${parity:+--parity "$parity"} "${layout_args[@]}") ||
	die "preset $preset: $PFILE is not valid (above)"
mapfile -t PLAN < <(targets_expand <<<"$plan")
((${#PLAN[@]} > 0)) || die "preset $preset planned no runs"

# ---- members: drives or files ----
drive_list=()
if [[ -n $hosts || -n $hosts_file ]]; then
	hosts_load "$hosts" "$hosts_file"
	hosts=$(IFS=,; echo "${HOSTS[*]}")
	[[ -z $drives ]] || list_split --drives "$drives"
elif [[ -n $drives ]]; then
	list_split --drives "$drives"
	drive_list=("${LIST_ITEMS[@]}")
	drives_check --drives "${drive_list[@]}"
	drives_guard "${drive_list[@]}"
fi
targets_check_devs

# ---- per-run facts ----
declare -A JOB_FACTS=()
json_of() { # workload file -> wl_id and its pub_* figures (raid-preset job: read once a file)
	local f=$WL/$1.fio
	if [[ -z ${JOB_FACTS[$1]:-} ]]; then
		[[ -f $f ]] || die "workload $1: $f is missing"
		JOB_FACTS[$1]=$("$PRESET" job "$f") || die "workload $1: $f is not valid (above)"
	fi
	read -r wl_id pub_rw pub_bs pub_iodepth pub_numjobs <<<"${JOB_FACTS[$1]}"
}
test_id_of() { # array state [target] (after json_of) -> the test's id
	echo "$(target_id_prefix "${3:-engine}")$1-$wl_id-$pub_rw$([[ $2 == optimal ]] || echo "-$2")"
}
if [[ -n $only ]]; then
	rc=0
	[[ "" =~ $only ]] || rc=$?
	((rc != 2)) || die "--only: '$only' is not an extended regular expression"
	kept=()
	for line in "${PLAN[@]}"; do
		read -r _ array _ _ _ _ state _ job tgt <<<"$line"
		json_of "$job"
		[[ $(test_id_of "$array" "$state" "$tgt") =~ $only ]] && kept+=("$line")
	done
	((${#kept[@]})) || die "--only: '$only' matches none of preset $preset's test ids (./run.sh $preset --dry-run lists them)"
	PLAN=("${kept[@]}")
fi
total=${#PLAN[@]}
((dry_run)) || targets_maybe_reexec "${ORIG_ARGS[@]}"

run_id=${FIO_RAID_RUN_ID:-$(date +%Y%m%d-%H%M%S)-$preset}
rdir=$out/$run_id
if ((!dry_run)); then
	make_dir --out "$rdir/tests"
	make_dir --out "$rdir/logs"
	# one parity selection for every process of the run, measured by the first that needs it
	# and read by the rest (docs/parity.md, "Kept selection"); a file of the caller's own
	# (RAID_PARITY_SELECTION set) is used as it is, across runs
	export RAID_PARITY_SELECTION=${RAID_PARITY_SELECTION:-$rdir/parity-selection.json}
	if [[ -z $drives ]]; then
		if [[ -n ${FIO_RAID_SCRATCH_MADE:-} ]]; then # made for this run (by the appliance's caller)
			scratch=$FIO_RAID_SCRATCH_MADE scratch_made=$scratch
		elif [[ -z $scratch ]]; then
			scratch=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-scratch.XXXXXX")
			scratch_made=$scratch
		fi
		make_dir --scratch "$scratch"
	fi
else
	scratch=${scratch:-${TMPDIR:-/var/tmp}/fio-raid-scratch.DRYRUN}
fi
if [[ -n $hosts ]]; then
	hosts_members
	if ((!dry_run)); then
		hosts_reachable
		hosts_prepare_dirs
	fi
fi

# Engine probes: ask the engine itself whether it knows a level/option (its answer, not a list).
declare -A PROBE
engine_refusal() { # TEST -> the reason the engine refused it as beyond what it can do here
	# (a level it lacks, no usable GPU): the "refused" object it writes to the test's
	# raid_stats file (each host's, with --hosts) instead of stats; nothing otherwise
	local f
	for f in "$rdir/tests/$1.stats.json" "$rdir/tests/$1@"*.stats.json; do
		[[ -s $f ]] && "$RJSON" get "$f" refused.reason 2>/dev/null && break
	done
	return 0
}
probe_option() { # OPTION=VALUE -> 0 when the engine accepts it (fio's exit status)
	local key=$1 d
	[[ -n ${PROBE[$key]+x} ]] && return "${PROBE[$key]}"
	d=$work/probe.$RANDOM
	mkdir -p "$d"
	truncate -s 4M "$d/a" "$d/b"
	if [[ -f $ENGINE ]] && "$FIO" --name=probe --ioengine="external:$ENGINE" --thread=1 \
		--filename="$d/vol" --raid_level=1 --raid_members="$d/a:$d/b" "--$key" \
		--rw=read --bs=4k --size=64k --output-format=terse >"$d/log" 2>&1; then
		PROBE[$key]=0
	else
		PROBE[$key]=1
	fi
	return "${PROBE[$key]}"
}
resync_opt=() resync_note=""
if [[ -n $hosts ]]; then
	reuse=$(hosts_reuse && echo 1 || echo 0)
else
	reuse=$([[ -n $drives || ( -n $scratch && -z ${scratch_made:-} && $dry_run -eq 0 && -n $(ls -A "$scratch" 2>/dev/null) ) ]] && echo 1 || echo 0)
fi
if ((reuse)); then
	if ((dry_run)); then
		resync_opt=(--raid_init=resync)
		resync_note="members are real drives or reused files: arrays get raid_init=resync (the real run first asks the engine whether it supports it)"
	elif probe_option raid_init=resync; then
		resync_opt=(--raid_init=resync)
		resync_note="members are real drives or reused files: arrays use raid_init=resync"
	else
		resync_note="members are real drives or reused files, but the engine does not support raid_init=resync yet: parity starts unchecked"
	fi
	echo "run.sh: $resync_note"
fi

# ---- placement (profile bays -> NUMA node -> fio cpus_allowed) ----
declare -A PLACE_CPUS PLACE_MEM PLACE_WARN PLACE_NODES
place_array() { # array bays(list) -> PLACE_* for the array; prints warnings once
	local a=$1 bays=$2 line k v
	[[ -n ${PLACE_NODES[$a]+x} ]] && return 0
	PLACE_NODES[$a]="" PLACE_CPUS[$a]="" PLACE_MEM[$a]="" PLACE_WARN[$a]=""
	local maxbay
	maxbay=$(tr ',' '\n' <<<"$bays" | sort -n | tail -1)
	if [[ $profile_name == host && -z $drives ]]; then
		PLACE_WARN[$a]="member files have no bays on the host profile: jobs not pinned"
		return 0
	fi
	if ((maxbay >= profile_bays)) && ! "$HWINFO" place "$profile_file" "$bays" >/dev/null 2>&1; then
		PLACE_WARN[$a]="profile $profile_name has no bay $maxbay: jobs not pinned"
	else
		while IFS= read -r line; do
			k=${line%%=*} v=${line#*=}
			case $k in
			cpus) PLACE_CPUS[$a]=$v ;; nodes) PLACE_NODES[$a]=$v ;;
			mem_policy) [[ $v == bind:* ]] && PLACE_MEM[$a]=$v ;;
			warning) PLACE_WARN[$a]=$v ;;
			esac
		done < <("$HWINFO" place "$profile_file" "$bays")
	fi
	[[ -z ${PLACE_WARN[$a]} ]] || echo "run.sh: $a: ${PLACE_WARN[$a]}"
}

# ---- one run: compute everything, then print or execute ----
declare -A ARRAY_LAST
for i in "${!PLAN[@]}"; do read -r _ a _ <<<"${PLAN[$i]}"; ARRAY_LAST[$a]=$i; done

prepare_run() { # plan line -> globals describing the run
	read -r group array level n chunk par state bays job tgt <<<"$1"
	json_of "$job"
	spares=""
	[[ $bays == *+* ]] && spares=${bays#*+} bays=${bays%%+*}
	[[ $bays == - ]] && bays=$(seq_bays 0 $((n - 1)))
	test_id=$(test_id_of "$array" "$state" "$tgt")
	scaled "$pub_numjobs" >/dev/null
	scaled "$pub_iodepth" >/dev/null
	numjobs=${SCALED[$pub_numjobs]} iodepth=${SCALED[$pub_iodepth]}
	bs_bytes=$(to_bytes "$pub_bs")
	local csz vol
	csz=$([[ $level == jbod ]] && echo $((1 << 20)) || to_bytes "$chunk")
	per=$((msize / csz * csz))
	[[ $level == jbod ]] || vol=$(level_volume "$level" "$n" "$per" "$csz")
	run_time=$runtime
	[[ $wl_id == REBUILD-* ]] && run_time=$((runtime * 4))
	if [[ $level == jbod ]]; then job_sizes $((per * n)) "$per" 1; else job_sizes "$vol" "$vol" 0; fi
	if [[ $state == rebuilding && -z $spares ]]; then
		spares=$((n))
	fi
	if [[ -n $drives && -z $hosts ]]; then
		set_members "" "${drive_list[@]}"
	else
		set_members "$scratch/$array/"
	fi
	place_array "$array" "$bays" >&2
	build_target "$scratch/$array.vol" "$rdir/tests/$test_id.stats.json"
	[[ $tgt == engine || $level == jbod ]] || target_fio_args
	fio_out=(--output-format=json+ "--output=$rdir/tests/$test_id.json")
}

job_sizes() { # VOLUME SPAN ISJBOD -> job_size job_offset envs (of the test prepare_run set up)
	local vol=$1 span=$2 isjbod=$3 slice
	if [[ $pub_rw == rand* ]]; then
		job_size=$vol job_offset=0
	else
		# Sequential jobs each get their own slice, as separate streams on the array do.
		slice=$((span / numjobs / bs_bytes * bs_bytes))
		if ((slice < bs_bytes)); then
			job_size=$vol job_offset=0
		else
			job_size=$((isjbod ? slice * n : slice)) job_offset=$slice
		fi
	fi
	envs=(NUMJOBS="$numjobs" IODEPTH="$iodepth" JOB_SIZE="$job_size" JOB_OFFSET="$job_offset"
		RUNTIME="$run_time" RAMP=0 LOOPS=1)
}

set_members() { # PREFIX [DRIVE...]: members and spare_paths of the run's bays (drives by bay)
	local prefix=$1 b
	shift
	members=() spare_paths=()
	for b in ${bays//,/ }; do
		if (($#)); then members+=("${@:b+1:1}"); else members+=("${prefix}bay$b"); fi
	done
	for b in ${spares//,/ }; do
		if (($#)); then spare_paths+=("${@:b+1:1}"); else spare_paths+=("${prefix}spare$b"); fi
	done
}

build_target() { # VOLUME STATS_FILE: fio's options naming the run's target
	target=()
	if [[ $level == jbod ]]; then
		target=(--ioengine=io_uring "--filename=$(IFS=:; echo "${members[*]}")")
	else
		target=(--ioengine="external:$ENGINE" --thread=1 "--filename=$1"
			--raid_level="$level" "--raid_members=$(IFS=:; echo "${members[*]}")"
			--raid_chunk="$chunk" --raid_parity="$par"
			"--raid_stats=$2" "${resync_opt[@]}")
		[[ -n $drives && -n $member_size ]] && target+=(--raid_member_size="$msize")
		[[ -n $hosts ]] && target+=(--raid_member_size="$msize")
		if ((${#spare_paths[@]})); then
			target+=("--raid_spares=$(IFS=:; echo "${spare_paths[*]}")")
		fi
		[[ $state == rebuilding ]] && target+=(--raid_failed=0 --raid_rebuild=1)
		[[ $state == degraded ]] && target+=(--raid_failed=0)
		if level_has_parity "$level" && [[ $par == cuda || $par == auto ]]; then
			[[ -n $gpu ]] && target+=(--raid_gpu="$gpu")
			[[ -n $gpu_batch ]] && target+=(--raid_gpu_batch="$gpu_batch")
		fi
	fi
	[[ -n ${PLACE_CPUS[$array]} ]] && target+=(--cpus_allowed="${PLACE_CPUS[$array]}")
	[[ -n ${PLACE_MEM[$array]} ]] && target+=(--numa_mem_policy="${PLACE_MEM[$array]}")
	return 0
}

render_job() { # the job file as run: target in [global], ${VAR}s expanded (client mode)
	local line kv o
	echo "[global]"
	for o in "${target[@]}"; do echo "${o#--}"; done
	while IFS= read -r line; do
		for kv in "${envs[@]}"; do line=${line//"\${${kv%%=*}}"/${kv#*=}}; done
		echo "$line"
	done <"$WL/$job.fio"
}

fio_cmd() { # the command line of the current run
	if [[ -n $hosts ]]; then
		hosts_cmd
		printf '%q ' "${cmd[@]}"
	else
		printf '%q ' env "${envs[@]}" "$FIO" "${target[@]}" "${fio_out[@]}" "$WL/$job.fio"
	fi
}

if ((dry_run)); then
	echo "# preset $preset: $total runs, scale $scale, runtime ${runtime}s, member size $msize, profile $profile_name"
	for i in "${!PLAN[@]}"; do
		prepare_run "${PLAN[$i]}"
		echo "# [$((i + 1))/$total] $test_id (workload $wl_id, level $level, members $n, chunk $chunk, parity $par, state $state, bays $bays${spares:+, spares $spares}${group/#-/}, target $tgt)"
		[[ $tgt == md ]] && echo "# md: $(md_create_cmd "$array" "$level" "$chunk" "$n" \
			"$([[ ${#resync_opt[@]} -gt 0 ]] && echo resync || echo clean)" "${members[@]}")"
		fio_cmd
		echo
	done
	exit 0
fi

# ---- run.json ----
fio_version=$("$FIO" --version 2>/dev/null || echo unknown)
engine_built=$([[ -f $ENGINE ]] && echo true || echo false)
engine_sha=$([[ -f $ENGINE ]] && sha256sum "$ENGINE" | cut -d' ' -f1 || echo "")
git_rev=$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)
"$HWINFO" facts >"$work/host.json"
# Single-core read bandwidth (raid-parity-bench's membw row: read-XOR over a 256 MiB pool, a
# fraction of a second): the gate divides parity GB/s by it, so that figure carries across
# machines. The pool may sit in a very large L3; run.json says how it was measured.
PBENCH=$ROOT/build/bin/raid-parity-bench
# the run's parity selection (RAID_PARITY_SELECTION, above), measured before the first test
# (about 9 s, or read when the file is the caller's): else the first rebuild or scrub of the run
# would wait for the streaming one after its writes began
if [[ -x $PBENCH ]] && ! "$PBENCH" --quick --runs 1 --pool 64m --op gen --mode stream \
	--impl selected >"$rdir/logs/parity-selection.log" 2>&1; then
	echo "run.sh: the parity selection could not be measured first (logs/parity-selection.log): the first test that needs it measures it"
fi
if [[ -x $PBENCH ]] &&
	mem_bw=$("$PBENCH" --json --impl membw --quick --mode stream --pool 256m --runs 5 2>/dev/null |
		grep -o '"gbps": *[0-9.]*' | head -1 | grep -o '[0-9.]*$') && [[ -n $mem_bw ]]; then
	"$RJSON" set "$work/host.json" mem_bw_gbps:f="$mem_bw" \
		"mem_bw_method:s=raid-parity-bench --impl membw --quick --mode stream --pool 256m (one core)"
fi
# Per-core parity rates for the report's projection (raid-report reads parity-bench.json):
# streaming gen and rmw at the stripe widths this preset runs, a few seconds.
parity_ks=$(for line in "${PLAN[@]}"; do
	read -r _ _ l n _ <<<"$line"
	if level_has_parity "$l"; then echo $((n - LEVEL_PARITY[$l])); fi
done | sort -un | paste -sd, -)
if [[ -x $PBENCH && -n $parity_ks && $preset != quick ]]; then
	"$PBENCH" --json --op gen,rmw --mode stream --k "$parity_ks" --chunk 4k,64k --runs 3 \
		--pool 64m >"$rdir/parity-bench.json" 2>"$rdir/logs/parity-bench.log" ||
		{ echo "run.sh: raid-parity-bench failed (logs/parity-bench.log): no per-core parity rates"; rm -f "$rdir/parity-bench.json"; }
fi
write_run_json() { # extra raid-json args
	"$RJSON" obj run_id:s="$run_id" preset:s="$preset" "preset_doc:s=$preset_doc" \
		scale:f="$scale" runtime_s:i="$runtime" member_size:i="$msize" \
		options.drives:s="$drives" options.force:b=$([[ $force == 1 ]] && echo true || echo false) \
		options.scratch:s="${scratch:-}" options.keep:b=$([[ $keep == 1 ]] && echo true || echo false) \
		options.parity:s="${parity:-default}" options.gpu:s="${gpu:-0}" \
		options.gpu_batch:s="${gpu_batch:-64}" options.hosts:s="$hosts" options.hosts_file:s="$hosts_file" options.out:s="$out" \
		host:J="$work/host.json" kernel:s="$(uname -r)" fio_version:s="$fio_version" \
		engine.path:s="$ENGINE" engine.built:b="$engine_built" engine.sha256:s="$engine_sha" \
		engine.git:s="$git_rev" engine.parity:s="${parity:-per preset}" \
		engine.parity_selection:s="${RAID_PARITY_SELECTION:-}" \
		engine.init:s="${resync_note:-new member files start as zeros (clean)}" \
		profile.name:s="$profile_name" profile.file:s="$profile_file" profile.content:J="$profile_file" \
		"${targets_json[@]}" "$@" >"$rdir/run.json.tmp" && mv "$rdir/run.json.tmp" "$rdir/run.json"
}
targets_run_json
arrays_args=()
declare -A seen_array
for line in "${PLAN[@]}"; do
	read -r _ array _ <<<"$line"
	[[ -n ${seen_array[$array]+x} ]] && continue
	prepare_run "$line"
	seen_array[$array]=1
	arrays_args+=("arrays:aj=$("$RJSON" obj name:s="$array" level:s="$level" members:i="$n" \
		chunk:s="$chunk" parity:s="$par" bays:s="$bays" spares:s="$spares" \
		placement.nodes:s="${PLACE_NODES[$array]}" placement.cpus:s="${PLACE_CPUS[$array]}" \
		placement.warning:s="${PLACE_WARN[$array]}")")
done
started=$(date -Iseconds)
mapfile -t hosts_args < <(hosts_json)
write_run_json "${arrays_args[@]}" "${hosts_args[@]}" started:s="$started"

echo "run.sh: preset $preset, $total runs, scale $scale, ${runtime}s each, results in $rdir"
[[ $engine_built == true ]] || echo "run.sh: $ENGINE is not built yet: RAID runs are skipped, JBOD runs go on"

# ---- run ----
start_all=$(date +%s)
declare -A SKIP_ARRAY
n_ok=0 n_skip=0 n_fail=0 done_runs=0
pids=() pid_tests=()
eta() {
	local left=$1 per
	((done_runs > 0)) && per=$((($(date +%s) - start_all) / done_runs)) || per=$((runtime + 2))
	printf '%d:%02d' $((left * per / 60)) $((left * per % 60))
}
make_members() {
	local m
	((${#drive_list[@]})) && return 0
	for m in "${members[@]}" "${spare_paths[@]}"; do
		[[ -e $m ]] && continue
		mkdir -p "${m%/*}"
		fallocate -l "$msize" "$m" 2>/dev/null || truncate -s "$msize" "$m"
	done
}
meta_hosts=()
for h in "${HOSTS[@]}"; do meta_hosts+=("hosts:as=$h"); done
write_meta() { # status reason
	local lvl=$level
	target_meta_set
	"$RJSON" obj preset:s="$preset" test:s="$test_id" workload:s="$wl_id" \
		engine:s=$(target_engine) "${target_meta[@]}" \
		$([[ $level == jbod || $level == dev ]] && echo level:n || echo level:i="$lvl") members:i="$n" \
		$([[ $level == jbod || $chunk == - ]] && echo chunk:n || echo chunk:i="$(to_bytes "$chunk")") \
		$([[ -n $(target_layout) ]] && echo layout:s="$(target_layout)" || echo layout:n) \
		$([[ -n $par ]] && level_has_parity "$level" && echo parity:s="$par" || echo parity:n) \
		state:s="$state" rw:s="$pub_rw" bs:i="$bs_bytes" iodepth:i="$iodepth" numjobs:i="$numjobs" \
		scale:f="$scale" backend:s="io_uring" status:s="$1" "reason:s=$2" array:s="$array" \
		group:s="$group" bays:s="$bays" spares:s="$spares" runtime_s:i="$run_time" \
		published.iodepth:i="$pub_iodepth" published.numjobs:i="$pub_numjobs" \
		job_file:s="workloads/$job.fio" cpus_allowed:s="${PLACE_CPUS[$array]}" \
		"${meta_hosts[@]}" >"$rdir/tests/$test_id.meta.json"
}
finish_run() { # idx test rc -> status line (reads the run's files)
	local idx=$1 t=$2 rc=$3 ans="" head
	local log=$rdir/logs/$t.log
	target_end "$idx" "$t"
	((rc == 0)) || ans=$(engine_refusal "$t")
	if ((rc == 0)) && head=$("$RJSON" headline "$rdir/tests/$t.json" 2>>"$log") &&
		{ [[ -z $hosts ]] || hosts_split "$t"; }; then
		echo "[$idx/$total] done  $t: $head${hosts:+ ($HOSTS_HEADLINES)}"
		n_ok=$((n_ok + 1))
		"$RJSON" set "$rdir/tests/$t.meta.json" status:s=ok "headline:s=$head"
	elif [[ -n $hosts ]] && lost=$(hosts_lost "$log") && [[ -n $lost ]]; then
		echo "[$idx/$total] FAIL  $t: host $lost lost: its fio server stopped answering (log: $log)"
		n_fail=$((n_fail + 1))
		"$RJSON" set "$rdir/tests/$t.meta.json" status:s=failed "reason:s=host $lost lost"
		hosts_abort="host $lost lost during $t"
		# what the other hosts measured is no sum over the hosts: kept as a log only
		[[ ! -e $rdir/tests/$t.json ]] || mv "$rdir/tests/$t.json" "$rdir/logs/$t.partial.json"
		rm -f "$rdir/tests/$t@"*.meta.json "$rdir/tests/$t@"*[0-9].json
	elif [[ -n $ans ]]; then
		echo "[$idx/$total] skip  $t: $ans"
		n_skip=$((n_skip + 1))
		"$RJSON" set "$rdir/tests/$t.meta.json" status:s=skipped "reason:s=$ans"
		rm -f "$rdir/tests/$t.json"
		SKIP_ARRAY[$t]=$ans
	else
		echo "[$idx/$total] FAIL  $t: fio exited $rc (log: $log)"
		tail -3 "$log" | sed 's/^/    | /'
		n_fail=$((n_fail + 1))
		"$RJSON" set "$rdir/tests/$t.meta.json" status:s=failed "reason:s=fio exited $rc"
	fi
	done_runs=$((done_runs + 1))
}
wait_group() {
	local k rc
	for k in "${!pids[@]}"; do
		rc=0
		wait "${pids[$k]}" || rc=$?
		finish_run ${pid_tests[$k]} $rc
	done
	pids=() pid_tests=()
}
cur_group=-
for i in "${!PLAN[@]}"; do
	read -r group _ <<<"${PLAN[$i]}"
	[[ $group != "$cur_group" || $group == - ]] && { wait_group; md_retire "$i"; }
	prepare_run "${PLAN[$i]}"
	cur_group=$group
	idx=$((i + 1))
	if [[ $level != jbod && $engine_built != true ]]; then
		write_meta skipped "engine not built"
		echo "[$idx/$total] skip  $test_id: $ENGINE is not built"
		n_skip=$((n_skip + 1)) done_runs=$((done_runs + 1))
		continue
	fi
	if [[ -n $drives ]] && printf "%s\n" "${members[@]}" "${spare_paths[@]}" | grep -qx ""; then
		write_meta skipped "needs bays $bays, --drives gave ${#drive_list[@]} drives"
		echo "[$idx/$total] skip  $test_id: needs bays $bays, --drives gave ${#drive_list[@]} drives"
		n_skip=$((n_skip + 1)) done_runs=$((done_runs + 1))
		continue
	fi
	if [[ -n $hosts ]]; then
		hosts_cmd # each host's members and job file, and the client command
		if [[ -n $HOST_SHORT ]]; then
			write_meta skipped "needs bays $bays, $HOST_SHORT"
			echo "[$idx/$total] skip  $test_id: needs bays $bays, $HOST_SHORT"
			n_skip=$((n_skip + 1)) done_runs=$((done_runs + 1))
			continue
		fi
		printf '%q ' "${cmd[@]}" >"$rdir/logs/$test_id.cmd"
	else
		[[ $tgt == dev:* ]] || make_members
		if [[ $tgt == md ]] && ! md_prepare_test; then
			write_meta failed "mdadm could not make the array (logs/md-$array.log)"
			echo "[$idx/$total] FAIL  $test_id: mdadm could not make the array (log: $rdir/logs/md-$array.log)"
			tail -3 "$rdir/logs/md-$array.log" 2>/dev/null | sed 's/^/    | /'
			n_fail=$((n_fail + 1)) done_runs=$((done_runs + 1))
			continue
		fi
		fio_cmd >"$rdir/logs/$test_id.cmd"
		cmd=(env "${envs[@]}" "$FIO" "${target[@]}" "${fio_out[@]}" "$WL/$job.fio")
	fi
	write_meta running ""
	echo "[$idx/$total] start $test_id: $(target_what) x$n, $pub_rw bs=$pub_bs ${numjobs}T Q$iodepth, ${run_time}s, ETA $(eta $((total - i)))"
	log=$rdir/logs/$test_id.log
	target_begin
	# fio runs in the background, so that the CPU sampler can follow it and a Ctrl-C can stop it
	"${cmd[@]}" >"$log" 2>&1 &
	pids+=($!) pid_tests+=("$idx $test_id")
	hostcpu_start "$test_id" $!
	[[ $group == - ]] && wait_group
	# Free an array's member files once its last run is over (scratch space is small).
	if [[ ${ARRAY_LAST[$array]} == "$i" && -n ${scratch_made:-} && $keep -eq 0 && $group == - ]]; then
		md_down "$array"
		rm -rf "${scratch:?}/$array" "$scratch/$array.vol"
		[[ -z $hosts ]] || rm -f "$scratch"/*/"$array"-*
	fi
	# One host gone: the rest of the preset would measure fewer hosts than asked for.
	[[ -z ${hosts_abort:-} ]] || break
done
wait_group
md_teardown
[[ -z ${hosts_abort:-} ]] || echo "run.sh: $hosts_abort: the remaining tests were not run" >&2

write_run_json "${arrays_args[@]}" "${hosts_args[@]}" started:s="$started" finished:s="$(date -Iseconds)" \
	counts.ok:i=$n_ok counts.skipped:i=$n_skip counts.failed:i=$n_fail
echo "run.sh: $n_ok ok, $n_skip skipped, $n_fail failed in $(($(date +%s) - start_all)) s: $rdir"
((keep)) && [[ -n ${scratch_made:-} ]] && echo "run.sh: member files kept in $scratch_made"

if ((report)); then
	if [[ -x $REPORT ]]; then
		"$REPORT" "$rdir" || echo "run.sh: raid-report failed (exit $?)"
	else
		echo "run.sh: $REPORT is not built yet: report skipped"
	fi
fi
((n_fail == 0))
