# run/plan.sh (sourced by run.sh): the plan of the run, asked of build/bin/raid-preset plan
# (presets/README.md, "The plan": one line per test, tab-separated KEY=VALUE fields): the
# profile and its layout, NUMA placement of each array (raid-hwinfo place), whether members
# may hold data, and the --dry-run listing. Nothing here computes a size, a level's facts or
# a limit: those are in the plan's fields. Reads the run's options O and settings RUN.

declare -A PLAN_RUN=()                                # the plan's header: scale runtime member_size tests
declare -A PLACE_CPUS=() PLACE_NODES=() PLACE_WARN=() # array -> its placement (run.json)
PLAN=()                                               # the plan's test lines, in order

# profile_load: RUN[profile_file], RUN[profile_name], RUN[layout] (the preset's layout of it)
profile_load() {
	local k v profile layout=-
	while read -r k v; do
		case $k in doc) RUN[doc]=$v ;; profile) profile=$v ;; layout) layout=$v ;; esac
	done < <("$PRESET" info "$PRESET_DIR/${O[preset]}.preset") || die "preset ${O[preset]} is not valid (above)"
	profile=${O[profile]:-$profile}
	if [[ $profile == host ]]; then
		RUN[profile_file]=${RUN[work]}/host-profile.json
		"$HWINFO" host-profile >"${RUN[profile_file]}" || die "cannot generate the host profile"
	elif [[ -f $profile ]]; then
		RUN[profile_file]=$profile
	elif [[ -f $ROOT/hw-profiles/$profile.json ]]; then
		RUN[profile_file]=$ROOT/hw-profiles/$profile.json
	else
		die "unknown profile '$profile': not a file, not hw-profiles/$profile.json, not 'host'"
	fi
	"$HWINFO" check "${RUN[profile_file]}" >/dev/null || die "profile ${RUN[profile_file]} is not valid (errors above)"
	RUN[profile_name]=$("$RJSON" get "${RUN[profile_file]}" name)
	RUN[layout]=""
	[[ $layout == - ]] && return 0
	RUN[layout]=${RUN[work]}/layout
	"$HWINFO" layout "${RUN[profile_file]}" "$layout" >"${RUN[layout]}" 2>/dev/null ||
		die "profile ${RUN[profile_name]} has no $layout layout (the ${O[preset]} preset needs one)"
}

# plan_args [HOST_INDEX] -> PLAN_ARGS: raid-preset plan's arguments for the run (for one host)
plan_args() {
	local k l i=${1:-}
	PLAN_ARGS=(plan "$PRESET_DIR/${O[preset]}.preset" --workloads "$WL" --engine "$ENGINE"
		--results "${RUN[rdir]:-}" --scratch "${O[scratch]:-}" --target "$(targets_plan_list)")
	for k in parity gpu gpu-batch scale runtime member-size only drives repeat md-bitmap \
		md-consistency md-stripe-cache md-threads md-sync-min md-sync-max precondition steadystate; do
		[[ -z ${O[$k]:-} ]] || PLAN_ARGS+=("--$k" "${O[$k]}")
	done
	[[ -z ${RUN[layout]:-} ]] || PLAN_ARGS+=(--layout "${RUN[layout]}")
	[[ -z ${RUN[place]:-} ]] || PLAN_ARGS+=(--place "${RUN[place]}")
	((O[fit])) && PLAN_ARGS+=(--fit)
	((${O[reuse]:-0})) && PLAN_ARGS+=(--reuse)
	for l in "${!DEV_PATH[@]}"; do PLAN_ARGS+=(--dev "$l" "${DEV_DESC[$l]}"); done
	[[ -n $i ]] || return 0
	# a host's members: its drives, or files in its own directory (volume files there too)
	PLAN_ARGS+=(--host-label "${HOST_LABEL[$i]}" --scratch "${HOST_SCRATCH[$i]:-${O[scratch]}}")
	if [[ -n ${HOST_DRIVES[$i]} ]]; then
		PLAN_ARGS+=(--drives "${HOST_DRIVES[$i]}")
	else
		PLAN_ARGS+=(--host-scratch "${HOST_SCRATCH[$i]}")
	fi
}

# plan_make [hosts]: PLAN and PLAN_RUN (with "hosts": HOST_PLAN_<i> for each host too).
# raid-preset's own line is the one error line when the plan is refused.
plan_make() {
	local out i k v
	plan_args
	out=$("$PRESET" "${PLAN_ARGS[@]}") || exit 1
	mapfile -t PLAN < <(tail -n +2 <<<"$out")
	for k in $(head -1 <<<"$out"); do PLAN_RUN[${k%%=*}]=${k#*=}; done
	if [[ ${1:-} != hosts ]]; then
		# one line: both are about the state of flash, which a file on a file system has not
		# (and once: not again in the md appliance, where the run re-runs itself)
		[[ " ${PLAN_RUN[precondition]} ${PLAN_RUN[steadystate]} " != *" files "* || ${MDVM:-} == 1 ]] ||
			echo "run.sh: member files: preconditioning and steady state are for block devices (--drives, dev:): skipped on the tests over files" >&2
		return 0
	fi
	for i in "${!HOSTS[@]}"; do
		plan_args "$i"
		"$PRESET" "${PLAN_ARGS[@]}" >"${RUN[work]}/plan.$i" || exit 1
		mapfile -t "HOST_PLAN_$i" < <(tail -n +2 "${RUN[work]}/plan.$i")
		local -n hp=HOST_PLAN_$i
		((${#hp[@]} == ${#PLAN[@]})) || die "--fit: host ${HOSTS[$i]} has other drives than the rest: their tests differ (give every host the same number)"
	done
}

# test_load NAME LINE: the associative array NAME holds the test of a plan line (env, arg and
# out: their words joined by tabs; test_list splits them)
test_load() {
	local -n tl_=$1
	local f fields
	tl_=()
	IFS=$'\t' read -r -a fields <<<"$2"
	for f in "${fields[@]}"; do
		case ${f%%=*} in
		env | arg | out | md_opt) tl_[${f%%=*}]+=${f#*=}$'\t' ;;
		*) tl_[${f%%=*}]=${f#*=} ;;
		esac
	done
}
test_list() { # NAME KEY ARRAY: the words of a test's env, arg or out list into ARRAY
	local -n tk_=$1 to_=$3
	to_=()
	[[ -z ${tk_[$2]:-} ]] || IFS=$'\t' read -r -a to_ <<<"${tk_[$2]}"
}

# members_reused: O[reuse]=1 when members may hold data (drives, files left in --scratch, a
# host's): arrays of levels with redundancy then resync first (raid_init=resync)
members_reused() {
	local r=0
	if [[ -n ${O[hosts]:-} ]]; then
		hosts_reuse && r=1
	elif [[ -n ${O[drives]:-} ]] || [[ -z ${O[scratch_made]:-} && ${O[dry_run]} -eq 0 && -n $(ls -A "${O[scratch]}" 2>/dev/null) ]]; then
		r=1
	fi
	O[reuse]=$r
	RUN[init]="new member files start as zeros (clean)"
	((r)) || return 0
	RUN[init]="members are real drives or reused files: arrays of levels with redundancy use raid_init=resync"
	echo "run.sh: ${RUN[init]}"
}

# place_arrays: each array's placement (fio's cpus_allowed), written to RUN[place] for the
# plan; warnings once. Real drives are placed by the node the kernel gives them (raid-hwinfo
# place-drives), member files by the profile's bays (raid-hwinfo place).
place_arrays() {
	local line a bays k v cpus mem out
	declare -A T=()
	RUN[place]=${RUN[work]}/place
	: >"${RUN[place]}"
	for line in "${PLAN[@]}"; do
		test_load T "$line"
		a=${T[array]} bays=${T[bays]}
		[[ -z ${PLACE_NODES[$a]+x} && ${T[target]} != dev:* ]] || continue
		PLACE_NODES[$a]="" PLACE_CPUS[$a]="" PLACE_WARN[$a]="" cpus="" mem=""
		out=""
		if [[ -n ${O[drives]:-} && -z ${O[hosts]:-} ]]; then
			# real drives here: the node the kernel gives them, whatever the profile's bay i
			# is (--drives names bay i's drive only in the plan's numbering)
			out=$("$HWINFO" place-drives "$(tr : , <<<"${T[member_paths]}")" 2>"${RUN[work]}/place.err") ||
				{ PLACE_WARN[$a]="raid-hwinfo place-drives: $(tail -1 "${RUN[work]}/place.err"): jobs not pinned" out=""; }
		elif [[ ${RUN[profile_name]} == host && -z ${O[drives]:-} ]]; then
			PLACE_WARN[$a]="member files have no bays on the host profile: jobs not pinned"
		elif ! out=$("$HWINFO" place "${RUN[profile_file]}" "$bays" 2>/dev/null); then
			PLACE_WARN[$a]="profile ${RUN[profile_name]} cannot place bays $bays: jobs not pinned" out=""
		fi
		while IFS= read -r line; do
			k=${line%%=*} v=${line#*=}
			case $k in
			cpus) cpus=$v ;; nodes) PLACE_NODES[$a]=$v ;;
			mem_policy) [[ $v == bind:* ]] && mem=$v ;;
			warning) PLACE_WARN[$a]=$v ;;
			esac
		done <<<"$out"
		PLACE_CPUS[$a]=$cpus
		printf '%s\tcpus=%s\tmem=%s\n' "$a" "$cpus" "$mem" >>"${RUN[place]}"
		[[ -z ${PLACE_WARN[$a]} ]] || echo "run.sh: $a: ${PLACE_WARN[$a]}" >&2
	done
}

# test_cmd NAME -> CMD: the fio command of a test (one fio client for all hosts with --hosts)
test_cmd() {
	local -n tc_=$1
	local envs args outs
	test_list "$1" env envs
	test_list "$1" out outs
	if [[ -n ${O[hosts]:-} ]]; then
		hosts_cmd "$1"
		return 0
	fi
	target_fio_args "$1" args
	CMD=(env "${envs[@]}" "$FIO" "${args[@]}" "${outs[@]}" "${tc_[job_file]}")
}

# plan_print: --dry-run: each test's line and its command (with its environment)
plan_print() {
	declare -A T=()
	local line grp
	local pre=""
	((${PLAN_RUN[precond_runs]:-0} == 0)) || pre=" + ${PLAN_RUN[precond_runs]} preconditioning"
	echo "# preset ${O[preset]}: ${PLAN_RUN[configs]} tests x ${PLAN_RUN[repeats]}$pre = ${PLAN_RUN[tests]} runs (round by round), scale ${PLAN_RUN[scale]}, runtime ${PLAN_RUN[runtime]}s, member size ${PLAN_RUN[member_size]}, profile ${RUN[profile_name]}"
	for line in "${PLAN[@]}"; do
		test_load T "$line"
		grp=${T[group]#-} # "-": in no group
		echo "# [${T[idx]}/${PLAN_RUN[tests]}] ${T[id]} (workload ${T[workload]}, level ${T[level]}, members ${T[members]}, chunk ${T[chunk]}, parity ${T[parity]}, state ${T[state]}, bays ${T[bays]}${T[spares]:+, spares ${T[spares]}}${grp:+, group $grp}, target ${T[target]})"
		[[ ${T[target]} != md ]] || echo "# md: $(md_create_cmd T "${T[init]}" ${T[member_paths]//:/ })"
		[[ ${T[target]} != ublk ]] || echo "# ublk: $(ublk_start_cmd T)"
		test_cmd T
		printf '%q ' "${CMD[@]}"
		echo
	done
}
