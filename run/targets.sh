# run/targets.sh: run.sh's targets (sourced): --target LIST, the plan of every target,
# the fio target of an md or dev: test, the checks of a dev: volume, the whole-machine CPU of
# every test (build/bin/raid-hostcpu) and the re-run of the whole preset inside the md
# appliance (tools/mdvm) on a host whose kernel has no md. md itself: run/md.sh.
#
#   engine        the fio-raid engine (today's runs; test ids unchanged)
#   md            the same arrays made by mdadm, fio's io_uring on /dev/mdN (ids md-<id>)
#   ublk          the engine's arrays as /dev/ublkbN (raid-ublk), fio's io_uring on them
#                 (ids ublk-<id>; run/ublk.sh)
#   dev:PATH[=L]  an existing volume (ids dev-L-<workload>-<rw>); --target-desc describes it
# JBOD lines (fio straight on the members) run once, whatever the targets: target "jbod".

TARGETS=()
declare -A DEV_PATH=() DEV_DESC=()
# The appliance's /dev may lack /dev/fd, which run.sh's process substitutions need.
[[ -z ${MDVM:-} || -e /dev/fd ]] || ln -s /proc/self/fd /dev/fd 2>/dev/null || true

targets_parse() { # LIST -> TARGETS, DEV_PATH, DEV_DESC (--target-desc: TARGET_DESCS, in order),
	# checked by raid-preset targets (its one line is the error)
	local out t l p k=0
	out=$("$PRESET" targets "$1" "${#TARGET_DESCS[@]}" "${O[hosts]:-}${O[hosts-file]:-}") || exit 1
	while IFS=$'\x1f' read -r t l p; do
		TARGETS+=("$t")
		[[ $t != dev:* ]] || { DEV_PATH[$l]=$p DEV_DESC[$l]=${TARGET_DESCS[$k]:-} k=$((k + 1)); }
	done <<<"$out"
}

target_has() { [[ " ${TARGETS[*]} " == *" $1 "* ]]; }

targets_plan_list() { # the targets as raid-preset plan takes them (dev: by label)
	local IFS=,
	echo "${TARGETS[*]}"
}

desc_get() { # DESC KEY -> the value of KEY=VALUE in a --target-desc string
	local w
	for w in $1; do [[ $w == "$2"=* ]] && { echo "${w#*=}"; return 0; }; done
	return 0
}

# ---- dev: volumes ----
targets_check_devs() { # each one a block device with a medium, no data unless --force, unmounted
	local l
	for l in "${!DEV_PATH[@]}"; do drives_ok "--target dev:" "${DEV_PATH[$l]}"; done
}

# target_fio_args TEST ARRAY: fio's options naming the test's target: the plan's (engine,
# JBOD), or the md array or dev: volume, with the jobs' spans of its size (raid-preset span)
target_fio_args() {
	local -n ta_=$1 to_=$2
	local dev vol span
	if [[ ${ta_[target]} == ublk ]]; then
		ublk_fio_args "$1" "$2"
		return 0
	fi
	if [[ ${ta_[target]} != md && ${ta_[target]} != dev:* ]]; then
		test_list "$1" arg "$2"
		return 0
	fi
	if [[ ${ta_[target]} == md ]]; then
		dev=${MD_DEV[${ta_[array]}]:-/dev/md/${ta_[array]}}
	else
		dev=${DEV_PATH[${ta_[target]#dev:}]}
		vol=$(blockdev --getsize64 "$dev" 2>/dev/null) || vol=${PLAN_RUN[member_size]}
		span=$("$PRESET" span "$vol" "${ta_[span_rw]:-${ta_[rw]}}" "${ta_[bs]}" "${ta_[numjobs]}")
		test_env_set "$1" $span
	fi
	to_=(--ioengine=io_uring "--filename=$dev")
	# md's rebuild: fio's own per-second IOPS and latency, for the stats' rebuild.samples
	[[ ${ta_[target]} != md || ${ta_[state]} != rebuilding ]] || to_+=("--write_iops_log=${RUN[work]}/${ta_[id]}"
		"--write_lat_log=${RUN[work]}/${ta_[id]}" --log_avg_msec=1000 --per_job_logs=0)
	[[ -z ${ta_[cpus]} ]] || to_+=(--cpus_allowed="${ta_[cpus]}")
	[[ -z ${ta_[mem]} ]] || to_+=(--numa_mem_policy="${ta_[mem]}")
	return 0
}

test_env_set() { # TEST K=V...: replace those variables of the test's environment
	local -n te_=$1
	local kv envs e out=""
	shift
	test_list "${!te_}" env envs
	for e in "${envs[@]}"; do
		for kv; do [[ $e != "${kv%%=*}="* ]] || e=$kv; done
		out+=$e$'\t'
	done
	te_[env]=$out
}

target_layout() { # TEST -> meta.json's "layout": a dev: volume's is what its --target-desc says
	local -n tl2_=$1
	if [[ ${tl2_[target]} == dev:* ]]; then desc_get "${DEV_DESC[${tl2_[target]#dev:}]}" layout; else echo "${tl2_[layout]}"; fi
}

target_meta_set() { # TEST -> TARGET_META: meta.json's keys of the test's target
	local -n tm_=$1
	TARGET_META=("target:s=${tm_[target]}")
	case ${tm_[target]} in
	md) TARGET_META+=("device:s=${MD_DEV[${tm_[array]}]:-}" "md_bitmap:s=${tm_[md_bitmap]}" "md_consistency:s=${tm_[md_consistency]}" "kernel:s=$(uname -r)") ;;
	ublk) TARGET_META+=("device:s=${UBLK_DEV[${tm_[id]}]:-}" "kernel:s=$(uname -r)") ;;
	dev:*) TARGET_META+=("device:s=${DEV_PATH[${tm_[target]#dev:}]}" "target_desc:s=${DEV_DESC[${tm_[target]#dev:}]}") ;;
	esac
}

targets_run_json() { # TARGETS_JSON: run.json's keys of the targets
	local t
	TARGETS_JSON=()
	for t in "${TARGETS[@]}"; do TARGETS_JSON+=("targets:as=$t"); done
	if target_has md; then
		TARGETS_JSON+=("md.where:s=$(targets_md_where)" "md.mdadm:s=$(mdadm --version 2>&1 | head -1)"
			"md.metadata:s=1.0" "md.kernel:s=$(uname -r)")
		md_knobs_json
	fi
	! target_has ublk || TARGETS_JSON+=("ublk.where:s=$(ublk_where)" "ublk.kernel:s=$(uname -r)" "ublk.server:s=$RAID_UBLK")
	for t in "${!DEV_PATH[@]}"; do
		TARGETS_JSON+=("devices.$t.path:s=${DEV_PATH[$t]}" "devices.$t.desc:s=${DEV_DESC[$t]}")
	done
}

target_what() { # TEST -> the progress line's name of its volume
	local -n tw_=$1
	case ${tw_[target]} in
	jbod) echo JBOD ;;
	dev:*) echo "${tw_[target]}$([[ ${tw_[level]} == dev ]] || echo " (RAID${tw_[level]})")" ;;
	*) echo "$([[ ${tw_[target]} == md ]] && echo "md ")RAID${tw_[level]}" ;;
	esac
}

target_begin() { # TEST: just before fio starts
	local -n tb_=$1
	[[ ${tb_[target]} != md ]] || md_test_begin "$1"
}

target_end() { # TEST: after its fio ended
	local -n tn_=$1
	[[ ${tn_[target]} != md ]] || md_test_end "$1"
	[[ ${tn_[target]} != ublk ]] || ublk_test_end "$1"
	hostcpu_finish "$1"
}

targets_stop() { # on exit, error or Ctrl-C: fio, the samplers, then md's arrays and loops
	local p
	for p in "${PIDS[@]}"; do kill -TERM "$p" 2>/dev/null || true; done
	for p in "${PIDS[@]}"; do wait "$p" 2>/dev/null || true; done
	hostcpu_kill
	ublk_teardown
	md_teardown
}

# ---- whole-machine CPU over each test's measured interval ----
declare -A CPU_SAMPLER=()
hostcpu_start() { # ID FIO_PID
	local h=$ROOT/build/bin/raid-hostcpu
	[[ -x $h && -z ${O[hosts]:-} ]] || return 0
	"$h" sample --pid "$2" "${RUN[work]}/$1.cpu" 2>>"${RUN[rdir]}/logs/$1.log" &
	CPU_SAMPLER[$1]=$!
}

hostcpu_finish() { # TEST: meta.json host_cpu from the samples (null when there are none)
	local -n hf_=$1
	local t=${hf_[id]} tail=0 cpu r=${RUN[rdir]}
	[[ -n ${CPU_SAMPLER[$t]:-} ]] || return 0
	wait "${CPU_SAMPLER[$t]}" 2>/dev/null || true
	unset "CPU_SAMPLER[$t]"
	# a rebuild the engine waited for after fio's I/O ended is outside fio's interval
	if [[ ${hf_[state]} == rebuilding && ${hf_[target]} != md && -s $r/tests/$t.stats.json ]]; then
		tail=$("$RJSON" get "$r/tests/$t.stats.json" rebuild.wait_s 2>/dev/null) || tail=0
		[[ $tail =~ ^[0-9.]+$ ]] || tail=0
	fi
	if cpu=$("$ROOT/build/bin/raid-hostcpu" interval "${RUN[work]}/$t.cpu" "$r/tests/$t.json" --tail "$tail" 2>>"$r/logs/$t.log"); then
		"$RJSON" set "$r/tests/$t.meta.json" "host_cpu:j=$cpu"
	fi
	rm -f "${RUN[work]}/$t.cpu"
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

targets_host_has_kernel_parts() { # 0 when this kernel has md and ublk, as far as asked for
	{ ! target_has md || md_available; } && { ! target_has ublk || ublk_available; }
}

# Runs this run.sh again inside the appliance and then the report here; returns only when
# no re-run is needed (the host has md, or this already is the appliance).
targets_maybe_reexec() { # ORIGINAL_ARGS...
	target_has md || target_has ublk || return 0
	[[ -z ${MDVM:-} ]] || return 0
	targets_host_has_kernel_parts && return 0
	local mdvm=$ROOT/tools/mdvm/mdvm why rc=0 rw=() id made="" limit
	[[ -x $mdvm ]] || { echo "run.sh: --target md: this kernel has no md and tools/mdvm (the md appliance) is missing" >&2; exit 77; }
	why=$("$mdvm" check 2>"${RUN[work]}/mdvm-check.log") || rc=$?
	why=${why#mdvm: }
	((rc == 0)) || why="$why $(tail -1 "${RUN[work]}/mdvm-check.log")"
	if ((rc != 0)); then
		echo "run.sh: --target md: this kernel has no md and the md appliance cannot run: $why" >&2
		exit 77
	fi
	[[ -z ${O[drives]:-} ]] || die "--target md with --drives needs a kernel with md: drives cannot be passed into the md appliance"
	((${#DEV_PATH[@]} == 0)) || die "--target md with dev: volumes needs a kernel with md: volumes cannot be passed into the md appliance"
	make_dir --out "${O[out]}"
	rw=(--rw "$(cd "${O[out]}" && pwd)")
	# member files stay on the host, shared writable: the guest's tmpfs is slow under
	# emulation (docs/md.md); the guest removes them as it goes, this side at the end
	if [[ -z ${O[scratch]:-} ]]; then
		made=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-scratch.XXXXXX")
		O[scratch_made]=$made
		rw+=(--rw "$made")
	else
		rw+=(--rw "$(cd "${O[scratch]}" && pwd)")
	fi
	id=${RUN[id]}
	# a hung guest is stopped: allow each test four times its runtime and a minute
	limit=$((600 + PLAN_RUN[tests] * (4 * PLAN_RUN[runtime] + 60)))
	echo "run.sh: this kernel has no $(target_has md && ! md_available && echo md || echo ublk): the whole preset runs inside the md appliance ($why), the engine too, on the same kernel and members"
	rc=0
	"$mdvm" run --timeout "$limit" "${rw[@]}" -- env TMPDIR=/tmp FIO_RAID_RUN_ID="$id" \
		FIO_RAID_SCRATCH_MADE="$made" "FIO_RAID_MD_WHERE=appliance: $why" \
		"$ROOT/run.sh" "$@" --no-build --no-report || rc=$?
	if ((O[report])) && [[ -d ${O[out]}/$id ]]; then
		"$REPORT" "${O[out]}/$id" || echo "run.sh: raid-report failed (exit $?)"
	fi
	exit "$rc"
}
