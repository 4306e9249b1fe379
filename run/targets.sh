# run/targets.sh: run.sh's targets (sourced): --target LIST, the plan of every target,
# the fio target of an md or dev: test, the checks of a dev: volume, the whole-machine CPU of
# every test (build/bin/raid-hostcpu) and the re-run of the whole preset inside the md
# appliance (tools/mdvm) on a host whose kernel has no md. md itself: run/md.sh.
#
#   engine        the fio-raid engine (today's runs; test ids unchanged)
#   md            the same arrays made by mdadm, fio's io_uring on /dev/mdN (ids md-<id>)
#   dev:PATH[=L]  an existing volume (ids dev-L-<workload>-<rw>); --target-desc describes it
# JBOD lines (fio straight on the members) run once, whatever the targets: target "jbod".

TARGETS=()
declare -A DEV_PATH=() DEV_DESC=()
# The appliance's /dev may lack /dev/fd, which run.sh's process substitutions need.
[[ -z ${MDVM:-} || -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd 2>/dev/null || true
target_descs=()

targets_parse() { # LIST -> TARGETS, DEV_PATH (dies on a bad entry)
	local t p l list k=0
	IFS=, read -r -a list <<<"$1"
	((${#list[@]})) || die "--target needs a list: engine, md, dev:PATH[=LABEL]"
	for t in "${list[@]}"; do
		case $t in
		engine | md) ;;
		dev:*)
			p=${t#dev:} l=${p##*/}
			[[ $p == *=* ]] && l=${p#*=} p=${p%%=*}
			[[ -n $p ]] || die "--target $t: no path (dev:/dev/md0[=LABEL])"
			[[ $l =~ ^[A-Za-z0-9_.-]+$ ]] ||
				die "--target $t: label '$l' may hold only letters, digits, '_', '.' and '-'"
			DEV_PATH[$l]=$p DEV_DESC[$l]=${target_descs[$k]:-}
			k=$((k + 1)) t=dev:$l ;;
		*) die "--target: unknown target '$t' (engine, md, dev:PATH[=LABEL])" ;;
		esac
		[[ " ${TARGETS[*]} " != *" $t "* ]] || die "--target: '$t' is listed twice"
		TARGETS+=("$t")
	done
	((${#target_descs[@]} <= k)) || die "--target-desc given ${#target_descs[@]} times for $k dev: targets"
	# fio's servers take job files only: nothing there could make an md array, attach a loop
	# device, check a volume for data or tear any of it down after a Ctrl-C
	[[ -z $hosts$hosts_file || ${TARGETS[*]} == engine ]] ||
		die "--target $1: not with --hosts/--hosts-file: a host's fio server runs job files only, so md arrays and dev: volumes cannot be made or checked there (run run.sh --target md on each host)"
}

target_has() { [[ " ${TARGETS[*]} " == *" $1 "* ]]; }

desc_get() { # DESC KEY -> the value of KEY=VALUE in a --target-desc string
	local w
	for w in $1; do [[ $w == "$2"=* ]] && { echo "${w#*=}"; return 0; }; done
	return 0
}

# The plan of every target, from the engine's plan: segment by segment (a run of lines of one
# array, or one group), JBOD lines once, then the segment for each target, so that the engine
# and md measure the same members one after the other. dev: volumes take each workload once,
# from the lines whose level and member count its --target-desc names (all lines without).
targets_expand() { # PLAN lines on stdin -> lines with a 10th field, the target
	local lines=() i j key prev="" seg=() t line g a lv n _r job st lab
	declare -A dev_seen
	mapfile -t lines
	lines+=("")
	for ((i = 0; i < ${#lines[@]}; i++)); do
		line=${lines[$i]}
		read -r g a _r <<<"$line"
		key=$([[ $g == - ]] && echo "$a" || echo "$g")
		if [[ -n $prev && ($key != "$prev" || -z $line) ]]; then
			for j in "${seg[@]}"; do [[ $j == *" jbod "* ]] && echo "$j jbod"; done
			for t in "${TARGETS[@]}"; do
				for j in "${seg[@]}"; do
					read -r g a lv n _r par st _r job <<<"$j"
					[[ $lv == jbod ]] && continue
					# md has no GPU path: a preset's cuda variant is the same md array
					[[ $t == md && $par == cuda ]] && continue
					if [[ $t == dev:* ]]; then
						lab=${t#dev:}
						[[ $st == optimal && -z ${dev_seen[$lab.$job]:-} ]] || continue
						[[ -z $(desc_get "${DEV_DESC[$lab]}" level) || $(desc_get "${DEV_DESC[$lab]}" level) == "$lv" ]] || continue
						[[ -z $(desc_get "${DEV_DESC[$lab]}" members) || $(desc_get "${DEV_DESC[$lab]}" members) == "$n" ]] || continue
						dev_seen[$lab.$job]=1
						echo "- dev-$lab ${j#* * } $t"
					else
						echo "$j $t"
					fi
				done
			done
			seg=()
		fi
		seg+=("$line")
		prev=$key
	done
}

target_id_prefix() { # target -> what goes before the engine's test id
	case $1 in md) echo "$MD_PREFIX" ;; *) echo "" ;; esac
}

# ---- dev: volumes ----
targets_check_devs() { # each one a block device with a medium, no data unless --force, unmounted
	local l
	for l in "${!DEV_PATH[@]}"; do
		drives_check "--target dev:" "${DEV_PATH[$l]}"
		drives_guard "--target dev:" "${DEV_PATH[$l]}"
	done
}

# ---- the fio view of a test of target $tgt (after prepare_run's engine view) ----
target_fio_args() {
	local dev
	case $tgt in
	md) dev=${MD_DEV[$array]:-/dev/md/$array} par=md ;;
	dev:*)
		dev=${DEV_PATH[${tgt#dev:}]}
		local d=${DEV_DESC[${tgt#dev:}]} lv m c vol
		lv=$(desc_get "$d" level) m=$(desc_get "$d" members) c=$(desc_get "$d" chunk)
		level=${lv:-dev} n=${m:-0} chunk=${c:--} par="" bays=""
		PLACE_NODES[$array]="" PLACE_CPUS[$array]="" PLACE_MEM[$array]="" PLACE_WARN[$array]=""
		vol=$(blockdev --getsize64 "$dev" 2>/dev/null) || vol=$msize
		job_sizes "$vol" "$vol" 0 ;;
	esac
	target=(--ioengine=io_uring "--filename=$dev")
	# md's rebuild: fio's own per-second IOPS and latency, for the stats' rebuild.samples
	[[ $tgt != md || $state != rebuilding ]] || target+=("--write_iops_log=$work/$test_id"
		"--write_lat_log=$work/$test_id" --log_avg_msec=1000 --per_job_logs=0)
	[[ -n ${PLACE_CPUS[$array]} ]] && target+=(--cpus_allowed="${PLACE_CPUS[$array]}")
	[[ -n ${PLACE_MEM[$array]} ]] && target+=(--numa_mem_policy="${PLACE_MEM[$array]}")
	return 0
}

target_layout() { # meta.json's "layout": a dev: volume's is what its --target-desc says
	if [[ $tgt == dev:* ]]; then desc_get "${DEV_DESC[${tgt#dev:}]}" layout; else layout_of "$level"; fi
}

target_engine() { # meta.json's "engine" of the current test
	if [[ $level == jbod ]]; then echo jbod; else case $tgt in engine) echo raid ;; md) echo md ;; *) echo dev ;; esac; fi
}

target_meta_set() { # target_meta: meta.json's keys of the target of the current test
	target_meta=("target:s=$tgt")
	case $tgt in
	md) target_meta+=("device:s=${MD_DEV[$array]:-}") ;;
	dev:*) target_meta+=("device:s=${DEV_PATH[${tgt#dev:}]}" "target_desc:s=${DEV_DESC[${tgt#dev:}]}") ;;
	esac
}

targets_run_json() { # targets_json: run.json's keys of the targets
	local t
	targets_json=()
	for t in "${TARGETS[@]}"; do targets_json+=("targets:as=$t"); done
	if target_has md; then
		targets_json+=("md.where:s=$(targets_md_where)" "md.mdadm:s=$(mdadm --version 2>&1 | head -1)"
			"md.metadata:s=1.0")
		md_knobs_json
	fi
	for t in "${!DEV_PATH[@]}"; do
		targets_json+=("devices.$t.path:s=${DEV_PATH[$t]}" "devices.$t.desc:s=${DEV_DESC[$t]}")
	done
}

target_what() { # the progress line's name of the current test's volume
	case $tgt in
	jbod) echo JBOD ;;
	dev:*) echo "$tgt$([[ $level == dev ]] || echo " (RAID$level)")" ;;
	*) echo "$([[ $tgt == md ]] && echo "md ")RAID$level" ;;
	esac
}

target_begin() { # just before fio starts
	[[ $tgt != md ]] || md_test_begin
}

target_end() { # IDX TEST: after its fio ended; the test's own view is set up again first
	# where needed: tests of one group end after the next ones were prepared
	[[ ${test_id:-} == "$2" ]] || prepare_run "${PLAN[$(($1 - 1))]}"
	[[ $tgt != md ]] || md_test_end
	hostcpu_finish "$2"
}

targets_stop() { # on exit, error or Ctrl-C: fio, the samplers, then md's arrays and loops
	local p
	for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
	hostcpu_kill
	md_teardown
}

# ---- whole-machine CPU over each test's measured interval ----
declare -A CPU_SAMPLER=()
hostcpu_start() { # TEST FIO_PID
	local h=$ROOT/build/bin/raid-hostcpu
	[[ -x $h && -z $hosts ]] || return 0
	"$h" sample --pid "$2" "$work/$1.cpu" 2>>"$rdir/logs/$1.log" &
	CPU_SAMPLER[$1]=$!
}

hostcpu_finish() { # TEST: meta.json host_cpu from the samples (null when there are none)
	local t=$1 tail=0 cpu
	[[ -n ${CPU_SAMPLER[$t]:-} ]] || return 0
	wait "${CPU_SAMPLER[$t]}" 2>/dev/null || true
	unset "CPU_SAMPLER[$t]"
	# a rebuild the engine waited for after fio's I/O ended is outside fio's interval
	if [[ $state == rebuilding && $tgt != md && -s $rdir/tests/$t.stats.json ]]; then
		tail=$("$RJSON" get "$rdir/tests/$t.stats.json" rebuild.wait_s 2>/dev/null) || tail=0
		[[ $tail =~ ^[0-9.]+$ ]] || tail=0
	fi
	if cpu=$("$ROOT/build/bin/raid-hostcpu" interval "$work/$t.cpu" "$rdir/tests/$t.json" --tail "$tail" 2>>"$rdir/logs/$t.log"); then
		"$RJSON" set "$rdir/tests/$t.meta.json" "host_cpu:j=$cpu"
	fi
	rm -f "$work/$t.cpu"
}

hostcpu_kill() { # every sampler still running (Ctrl-C)
	local t
	for t in "${!CPU_SAMPLER[@]}"; do kill "${CPU_SAMPLER[$t]}" 2>/dev/null || true; done
}

# ---- a host without md: the whole preset inside the md appliance ----
targets_md_where() { # one line: where md comes from for this run
	if [[ -n ${FIO_RAID_MD_WHERE:-} ]]; then
		echo "$FIO_RAID_MD_WHERE"
	elif md_available; then
		echo "host kernel $(uname -r)"
	fi
}

# Runs this run.sh again inside the appliance and then the report here; returns only when
# no re-run is needed (the host has md, or this already is the appliance).
targets_maybe_reexec() { # ORIGINAL_ARGS...
	target_has md || return 0
	[[ -z ${MDVM:-} ]] || return 0
	md_available && return 0
	local mdvm=$ROOT/tools/mdvm/mdvm why rc=0 rw=() id made="" limit
	[[ -x $mdvm ]] || { echo "run.sh: --target md: this kernel has no md and tools/mdvm (the md appliance) is missing" >&2; exit 77; }
	why=$("$mdvm" check 2>"$work/mdvm-check.log") || rc=$?
	why=${why#mdvm: }
	((rc == 0)) || why="$why $(tail -1 "$work/mdvm-check.log")"
	if ((rc != 0)); then
		echo "run.sh: --target md: this kernel has no md and the md appliance cannot run: $why" >&2
		exit 77
	fi
	[[ -z $drives ]] || die "--target md with --drives needs a kernel with md: drives cannot be passed into the md appliance"
	((${#DEV_PATH[@]} == 0)) || die "--target md with dev: volumes needs a kernel with md: volumes cannot be passed into the md appliance"
	mkdir -p "$out" || die "cannot create $out"
	rw=(--rw "$(cd "$out" && pwd)")
	# member files stay on the host, shared writable: the guest's tmpfs is slow under
	# emulation (docs/md.md); the guest removes them as it goes, this side at the end
	if [[ -z $scratch ]]; then
		made=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-scratch.XXXXXX")
		scratch_made=$made
		rw+=(--rw "$made")
	else
		mkdir -p "$scratch" && rw+=(--rw "$(cd "$scratch" && pwd)")
	fi
	id=$(date +%Y%m%d-%H%M%S)-$preset
	# a hung guest is stopped: allow each test four times its runtime and a minute
	limit=$((600 + total * (4 * runtime + 60)))
	echo "run.sh: this kernel has no md: the whole preset runs inside the md appliance ($why), the engine too, on the same kernel and members"
	rc=0
	"$mdvm" run --timeout "$limit" "${rw[@]}" -- env TMPDIR=/tmp FIO_RAID_RUN_ID="$id" \
		FIO_RAID_SCRATCH_MADE="$made" "FIO_RAID_MD_WHERE=appliance: $why" \
		"$ROOT/run.sh" "$@" --no-build --no-report || rc=$?
	if ((report)) && [[ -d $out/$id ]]; then
		"$REPORT" "$out/$id" || echo "run.sh: raid-report failed (exit $?)"
	fi
	exit "$rc"
}
