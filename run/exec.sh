# run/exec.sh (sourced by run.sh): runs the plan: member files made, each test's fio started
# in the background (a group's tests at once), watched, its results collected and labelled by
# what ran (the engine's stats, md's own answer), run.json and each meta.json written with
# build/bin/raid-json. A test is an associative array loaded from its plan line (test_load)
# and passed by name; the run's options are O, its settings RUN.

declare -A COUNT=([ok]=0 [skipped]=0 [failed]=0)
PIDS=() PID_TESTS=()

# run_json_start: the host's facts and per-core rates, then run.json as the run starts
run_json_start() {
	local pbench=$ROOT/build/bin/raid-parity-bench mem_bw ks line
	declare -A T=()
	RUN[fio_version]=$("$FIO" --version 2>/dev/null || echo unknown)
	"$HWINFO" facts >"${RUN[work]}/host.json"
	# Single-core read bandwidth (raid-parity-bench's membw row: read-XOR over a 256 MiB
	# pool, a fraction of a second): the gate divides parity GB/s by it, so that figure
	# carries across machines. The pool may sit in a very large L3: run.json says how.
	if [[ -x $pbench ]] &&
		mem_bw=$("$pbench" --json --impl membw --quick --mode stream --pool 256m --runs 5 2>/dev/null |
			grep -o '"gbps": *[0-9.]*' | head -1 | grep -o '[0-9.]*$') && [[ -n $mem_bw ]]; then
		"$RJSON" set "${RUN[work]}/host.json" mem_bw_gbps:f="$mem_bw" \
			"mem_bw_method:s=raid-parity-bench --impl membw --quick --mode stream --pool 256m (one core)"
	fi
	# Per-core parity rates for the report's projection (raid-report reads parity-bench.json):
	# streaming gen and rmw at the stripe widths (data members) this preset runs (the plan's
	# parity_ks), a few seconds.
	ks=${PLAN_RUN[parity_ks]}
	if [[ -x $pbench && -n $ks && ${O[preset]} != quick ]]; then
		"$pbench" --json --op gen,rmw --mode stream --k "$ks" --chunk 4k,64k --runs 3 \
			--pool 64m >"${RUN[rdir]}/parity-bench.json" 2>"${RUN[rdir]}/logs/parity-bench.log" ||
			{ echo "run.sh: raid-parity-bench failed (logs/parity-bench.log): no per-core parity rates"; rm -f "${RUN[rdir]}/parity-bench.json"; }
	fi
	targets_run_json
	RUN_ARRAYS=()
	# the drives as the kernel names them (NUMA node, PCI address, serial, model)
	if [[ -n ${O[drives]:-} && -z ${O[hosts]:-} ]] && "$HWINFO" drives ${O[drives]//,/ } >"${RUN[work]}/drives.json"; then
		RUN_ARRAYS+=(drives:J="${RUN[work]}/drives.json")
	fi
	declare -A seen=()
	for line in "${PLAN[@]}"; do
		test_load T "$line"
		[[ -z ${seen[${T[array]}]:-} ]] || continue
		seen[${T[array]}]=1
		RUN_ARRAYS+=("arrays:aj=$("$RJSON" obj name:s="${T[array]}" level:s="${T[level]}" \
			members:i="${T[members]}" chunk:s="${T[chunk]}" parity:s="${T[parity]}" bays:s="${T[bays]}" \
			spares:s="${T[spares]}" placement.nodes:s="${PLACE_NODES[${T[array]}]:-}" \
			placement.cpus:s="${PLACE_CPUS[${T[array]}]:-}" placement.warning:s="${PLACE_WARN[${T[array]}]:-}")")
	done
	mapfile -t RUN_HOSTS < <(hosts_json)
	RUN[started]=$(date -Iseconds)
	run_json_write
}

run_json_write() { # extra raid-json args
	local b=(false true) engine=$ENGINE sha=""
	[[ -f $engine ]] && sha=$(sha256sum "$engine" | cut -d' ' -f1)
	"$RJSON" obj run_id:s="${RUN[id]}" preset:s="${O[preset]}" "preset_doc:s=${RUN[doc]}" \
		scale:f="${PLAN_RUN[scale]}" runtime_s:i="${PLAN_RUN[runtime]}" member_size:i="${PLAN_RUN[member_size]}" \
		options.drives:s="${O[drives]:-}" options.force:b=${b[O[force]]} options.fit:b=${b[O[fit]]} \
		options.scratch:s="${O[scratch]:-}" options.keep:b=${b[O[keep]]} \
		scratch_fs:s="$([[ -z ${O[scratch]:-} ]] || df --output=fstype "${O[scratch]}" 2>/dev/null | tail -n +2)" \
		options.parity:s="${O[parity]:-default}" options.gpu:s="${PLAN_RUN[gpu]}" \
		options.gpu_batch:s="${PLAN_RUN[gpu_batch]}" options.hosts:s="${O[hosts]:-}" \
		options.hosts_file:s="${O[hosts-file]:-}" options.out:s="${O[out]}" \
		options.precondition:s="${PLAN_RUN[precondition]}" options.steadystate:s="${PLAN_RUN[steadystate]}" \
		host:J="${RUN[work]}/host.json" kernel:s="$(uname -r)" fio_version:s="${RUN[fio_version]}" \
		fio_clocksource:s="${PLAN_RUN[clocksource]}" repeats:i="${PLAN_RUN[repeats]}" \
		engine.path:s="$engine" engine.built:b=$([[ -f $engine ]] && echo true || echo false) \
		engine.sha256:s="$sha" engine.git:s="$(git -C "$ROOT" describe --always --dirty 2>/dev/null || echo unknown)" \
		engine.parity:s="${O[parity]:-per preset}" "engine.init:s=${RUN[init]}" \
		profile.name:s="${RUN[profile_name]}" profile.file:s="${RUN[profile_file]}" \
		profile.content:J="${RUN[profile_file]}" "${TARGETS_JSON[@]}" "${RUN_ARRAYS[@]}" \
		"${RUN_HOSTS[@]}" started:s="${RUN[started]}" "$@" >"${RUN[rdir]}/run.json.tmp" &&
		mv "${RUN[rdir]}/run.json.tmp" "${RUN[rdir]}/run.json"
}

STEADY_MISSED=()
run_json_finish() {
	run_json_write finished:s="$(date -Iseconds)" "${STEADY_MISSED[@]}" counts.ok:i="${COUNT[ok]}" \
		counts.skipped:i="${COUNT[skipped]}" counts.failed:i="${COUNT[failed]}"
}

# make_members NAME: the member and spare files of a test that are not there yet
make_members() {
	local -n mm_=$1
	local m
	for m in ${mm_[member_paths]//:/ } ${mm_[spare_paths]//:/ }; do
		[[ -e $m ]] && continue
		mkdir -p "${m%/*}"
		# written, not fallocated: unwritten extents read as zeros without I/O (README "Spread")
		dd if=/dev/zero of="$m" bs=1M iflag=count_bytes count="${PLAN_RUN[member_size]}" \
			conv=fsync status=none 2>/dev/null || truncate -s "${PLAN_RUN[member_size]}" "$m"
	done
}

# write_meta NAME STATUS REASON: the test's meta.json as planned (labels of what ran are set
# after it ran: finish_test)
write_meta() {
	local -n wm_=$1
	local hosts=() h lvl=level:n chunk=chunk:n layout=layout:n par=parity:n
	for h in "${HOSTS[@]}"; do hosts+=("hosts:as=$h"); done
	[[ ${wm_[level]} == jbod || ${wm_[level]} == dev ]] || lvl=level:i=${wm_[level]}
	((${wm_[chunk_bytes]:-0} == 0)) || chunk=chunk:i=${wm_[chunk_bytes]}
	[[ -z $(target_layout "$1") ]] || layout=layout:s=$(target_layout "$1")
	[[ -z ${wm_[parity]} ]] || ((!wm_[has_parity])) || par=parity:s=${wm_[parity]}
	target_meta_set "$1"
	STEADY_META=()
	((${wm_[steadystate]:-0} == 0)) || STEADY_META=("steadystate.criterion:s=${wm_[ss_criterion]}" \
		"steadystate.window_s:i=${wm_[ss_window]}" "steadystate.ramp_s:i=${wm_[ss_ramp]}")
	"$RJSON" obj preset:s="${O[preset]}" test:s="${wm_[test]}" repeat:i="${wm_[repeat]}" \
		repeats:i="${wm_[repeats]}" workload:s="${wm_[workload]}" \
		engine:s="${wm_[engine]}" "${TARGET_META[@]}" $lvl members:i="${wm_[members]}" $chunk "$layout" $par \
		state:s="${wm_[state]}" rw:s="${wm_[rw]}" bs:i="${wm_[bs_bytes]}" iodepth:i="${wm_[iodepth]}" \
		numjobs:i="${wm_[numjobs]}" scale:f="${PLAN_RUN[scale]}" backend:s=io_uring status:s="$2" \
		"reason:s=$3" array:s="${wm_[array]}" group:s="${wm_[group]}" bays:s="${wm_[bays]}" \
		spares:s="${wm_[spares]}" runtime_s:i="${wm_[runtime]}" published.iodepth:i="${wm_[pub_iodepth]}" \
		published.numjobs:i="${wm_[pub_numjobs]}" job_file:s="workloads/${wm_[job]}.fio" \
		cpus_allowed:s="${wm_[cpus]}" role:s="${wm_[role]:-measure}" "${hosts[@]}" \
		"${STEADY_META[@]}" >"${RUN[rdir]}/tests/${wm_[id]}.meta.json"
}

# engine_refusal ID -> the reason the engine refused the test as beyond what it can do here
# (a level it lacks, no usable GPU): the "refused" object it writes to the test's raid_stats
# file (each host's, with --hosts) instead of stats; nothing otherwise
engine_refusal() {
	local f
	for f in "${RUN[rdir]}/tests/$1.stats.json" "${RUN[rdir]}/tests/$1@"*.stats.json; do
		[[ -s $f ]] && "$RJSON" get "$f" refused.reason 2>/dev/null && break
	done
	return 0
}

# ran_labels ID: meta.json's level and members from what ran: the engine's stats, or md's
# (its stats file holds md's own answer); a JBOD's are fio's members as planned
ran_labels() {
	local st=${RUN[rdir]}/tests/$1.stats.json meta=${RUN[rdir]}/tests/$1.meta.json lvl n cp ss
	# steady state: fio's own answer (run.json lists the tests that never reached it)
	if ss=$("$RJSON" steadystate "${RUN[rdir]}/tests/$1.json" 2>/dev/null); then
		"$RJSON" set "$meta" steadystate.attained:b=$( ((ss)) && echo true || echo false)
		((ss)) || { STEADY_MISSED+=("steadystate.not_attained:as=$1"); echo "    | $1: fio's steady state was not reached"; }
	fi
	[[ -s $st ]] || return 0
	# md's bitmap and policy as md reports them: consistency_policy is bitmap, resync or ppl
	if cp=$("$RJSON" get "$st" md.consistency_policy 2>/dev/null) && [[ -n $cp ]]; then
		case $cp in
		bitmap) "$RJSON" set "$meta" md_bitmap:s=internal md_consistency:s=resync ;;
		resync | ppl) "$RJSON" set "$meta" md_bitmap:s=none md_consistency:s="$cp" ;;
		esac
	fi
	lvl=$("$RJSON" get "$st" level 2>/dev/null) && n=$("$RJSON" get "$st" members 2>/dev/null) || return 0
	"$RJSON" set "$meta" level:i="$lvl" members:i="$n"
}

test_result() { # ID STATUS COUNTER REASON: meta.json's status and the count
	"$RJSON" set "${RUN[rdir]}/tests/$1.meta.json" status:s="$2" "${@:4}"
	COUNT[$3]=$((COUNT[$3] + 1))
}

# console_figures FIO_JSON: a test's figures on the console from the page's own source
# (raid-report line: IOPS, MB/s, total mean latency, Little's law's mark), less its name
console_figures() {
	local l
	l=$("$REPORT" line "$1") || return 1
	echo "${l#*: }"
}

# finish_test LINE RC: the status line of a test whose fio ended (reads the run's files)
finish_test() {
	declare -A F=()
	test_load F "$1"
	local t=${F[id]} rc=$2 ans="" head lost log=${RUN[rdir]}/logs/${F[id]}.log pre="[${F[idx]}/${PLAN_RUN[tests]}]"
	target_end F
	((rc == 0)) || ans=$(engine_refusal "$t")
	# one run's figures: n=1 is said beside them (the report gives the spread over repeats)
	local n="n=1"
	((F[repeats] == 1)) || n+=", run ${F[repeat]} of ${F[repeats]}"
	if ((rc == 0)) && head=$(console_figures "${RUN[rdir]}/tests/$t.json" 2>>"$log") &&
		{ [[ -z ${O[hosts]:-} ]] || hosts_split F; }; then
		echo "$pre done  $t: $head ($n)${O[hosts]:+ ($HOSTS_HEADLINES)}"
		test_result "$t" ok ok "headline:s=$head"
		ran_labels "$t"
	elif [[ -n ${O[hosts]:-} ]] && lost=$(hosts_lost "$log") && [[ -n $lost ]]; then
		echo "$pre FAIL  $t: host $lost lost: its fio server stopped answering (log: $log)"
		test_result "$t" failed failed "reason:s=host $lost lost"
		RUN[abort]="host $lost lost during $t"
		# what the other hosts measured is no sum over the hosts: kept as a log only
		[[ ! -e ${RUN[rdir]}/tests/$t.json ]] || mv "${RUN[rdir]}/tests/$t.json" "${RUN[rdir]}/logs/$t.partial.json"
		rm -f "${RUN[rdir]}/tests/$t@"*.meta.json "${RUN[rdir]}/tests/$t@"*[0-9].json
	elif [[ -n $ans ]]; then
		echo "$pre skip  $t: $ans"
		test_result "$t" skipped skipped "reason:s=$ans"
		rm -f "${RUN[rdir]}/tests/$t.json"
	else
		echo "$pre FAIL  $t: fio exited $rc (log: $log)"
		tail -3 "$log" | sed 's/^/    | /'
		test_result "$t" failed failed "reason:s=fio exited $rc"
	fi
}

wait_group() { # the tests started and not yet finished
	local k rc
	for k in "${!PIDS[@]}"; do
		rc=0
		wait "${PIDS[$k]}" || rc=$?
		finish_test "${PID_TESTS[$k]}" $rc
	done
	PIDS=() PID_TESTS=()
}

eta() { # TESTS_LEFT -> m:ss at the pace so far (at first: the runtime and 2 s each)
	local done=$((COUNT[ok] + COUNT[skipped] + COUNT[failed])) per=$((PLAN_RUN[runtime] + 2))
	((done == 0)) || per=$(((SECONDS - RUN[t0]) / done))
	printf '%d:%02d' $(($1 * per / 60)) $(($1 * per % 60))
}

# start_test NAME LINE: fio of one test in the background (so that the CPU sampler can
# follow it and a Ctrl-C can stop it); 1 when it could not start (counted)
start_test() {
	local -n st_=$1
	local t=${st_[id]} pre="[${st_[idx]}/${PLAN_RUN[tests]}]" log=${RUN[rdir]}/logs/${st_[id]}.log
	if [[ ${st_[engine]} == raid && ! -f $ENGINE ]]; then
		write_meta "$1" skipped "engine not built"
		echo "$pre skip  $t: $ENGINE is not built"
		COUNT[skipped]=$((COUNT[skipped] + 1))
		return 1
	fi
	[[ ${st_[target]} == dev:* || -n ${O[hosts]:-} ]] || make_members "$1"
	local what='' tlog
	if [[ ${st_[target]} == md ]] && ! md_prepare_test "$1"; then
		what='mdadm could not make the array' tlog=logs/md-${st_[array]}.log
	elif [[ ${st_[target]} == ublk ]] && ! ublk_prepare_test "$1"; then
		what='raid-ublk could not start the device' tlog=logs/$t.ublk.log
	fi
	if [[ -n $what ]]; then
		write_meta "$1" failed "$what ($tlog)"
		echo "$pre FAIL  $t: $what (log: ${RUN[rdir]}/$tlog)"
		tail -3 "${RUN[rdir]}/$tlog" 2>/dev/null | sed 's/^/    | /'
		COUNT[failed]=$((COUNT[failed] + 1))
		return 1
	fi
	test_cmd "$1"
	[[ ${st_[state]} != resync* ]] || resync_start "$1" || return 1
	printf '%q ' "${CMD[@]}" >"${RUN[rdir]}/logs/$t.cmd"
	write_meta "$1" running ""
	[[ ${st_[state]} != rebuilding ]] || rebuild_transfers "$1"
	echo "$pre start $t: $(target_what "$1") x${st_[members]}, ${st_[rw]} bs=${st_[bs]} ${st_[numjobs]}T Q${st_[iodepth]}, ${st_[runtime]}s, ETA $(eta $((PLAN_RUN[tests] - st_[idx] + 1)))"
	target_begin "$1"
	"${CMD[@]}" >"$log" 2>&1 &
	PIDS+=($!) PID_TESTS+=("$2")
	hostcpu_start "$t" $!
}

# run_tests: the plan in order; consecutive tests of one group run at the same time
run_tests() {
	local line group=- next
	declare -A T=()
	RUN[t0]=$SECONDS
	for line in "${PLAN[@]}"; do
		test_load T "$line"
		[[ ${T[group]} != "$group" || $group == - ]] && { wait_group; md_retire T; }
		group=${T[group]}
		start_test T "$line" || continue
		[[ $group == - ]] && wait_group
		# Free an array's member files once its last test is over (scratch space is small).
		if ((T[last])) && [[ -n ${O[scratch_made]:-} && ${O[keep]} -eq 0 && $group == - ]]; then
			md_down "${T[array]}"
			rm -rf "${O[scratch]:?}/${T[array]}" "${O[scratch]}/${T[array]}.vol"
			[[ -z ${O[hosts]:-} ]] || rm -f "${O[scratch]}"/*/"${T[array]}"-*
		fi
		# One host gone: the rest of the preset would measure fewer hosts than asked for.
		[[ -z ${RUN[abort]:-} ]] || break
	done
	wait_group
	md_teardown
	[[ -z ${RUN[abort]:-} ]] || echo "run.sh: ${RUN[abort]}: the remaining tests were not run" >&2
}
