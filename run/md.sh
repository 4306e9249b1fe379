# run/md.sh: run.sh's md target (sourced): the preset's arrays made by mdadm over the
# same members, md's knobs, degraded and rebuilding states, and a teardown that removes
# exactly what this run made. It runs on a kernel with md: the host's, or the md appliance's
# (tools/mdvm), where run.sh re-runs itself when the host has none (run/targets.sh).
#
# Everything the run creates is recorded as it is created (MD_UUID: arrays and their UUID,
# MD_BACKING: loop devices and their file), so that a teardown after an error or a Ctrl-C
# stops and detaches those and nothing else (an array whose UUID changed, a loop device now
# over another file, is someone else's). md's settings are per array (stripe_cache_size,
# group_thread_cnt, sync_speed_min/max under /sys/block/mdN/md/): they go with the array, and
# the global /proc/sys/dev/raid limits are never touched. Under the appliance's emulation
# every program started costs 0.1-0.3 s, so the hot paths read sysfs with the shell's own
# read and keep what they know in memory.
#
# A test is passed by name (the associative array of its plan line, run/plan.sh); the run's
# options are O (md's knobs: md-stripe-cache, md-threads, md-sync-min, md-sync-max) and its
# settings RUN.
#
# Needs: mdadm, losetup, blockdev (Debian: mdadm, util-linux).

declare -A MD_DEV=()     # array name -> /dev/mdN while it is up
declare -A MD_SYNCED=()  # array name -> 1 once md resynced its members in this run
declare -A MD_UUID=()    # /dev/mdN this run made -> its UUID ("-" while mdadm creates it)
declare -A MD_LOOP=()    # member file -> the loop device this run attached over it
declare -A MD_BACKING=() # loop device this run attached -> its backing file, as the kernel says
declare -A MD_ALOOPS=()  # array name -> the loop devices of its members and spares
declare -A MD_USED=()    # member device -> 1 once an array of this run held it

md_available() { # 0 when this kernel has md (loading md_mod if it can)
	[[ -e /proc/mdstat ]] || modprobe -q md_mod 2>/dev/null
	[[ -e /proc/mdstat ]] && command -v mdadm >/dev/null
}

md_knobs_json() { # run.json: md's settings this run asked for (null: md's default, which
	# each test's stats file records as md ran it)
	local k v
	TARGETS_JSON+=("md.asked.bitmap:s=${O[md-bitmap]:-auto}" "md.asked.consistency:s=${O[md-consistency]:-resync}")
	for k in stripe_cache_size:${O[md-stripe-cache]:-} group_thread_cnt:${O[md-threads]:-} \
		sync_speed_min_mbps:${O[md-sync-min]:-} sync_speed_max_mbps:${O[md-sync-max]:-}; do
		v=${k#*:}
		TARGETS_JSON+=("md.asked.${k%%:*}:${v:+i=}${v:-n}")
	done
}

md_free_dev() { # a /dev/mdN no array uses (from 120 up, away from a host's own arrays)
	local n=120
	while [[ -e /sys/block/md$n || -n ${MD_UUID[/dev/md$n]:-} ]]; do n=$((n + 1)); done
	echo "/dev/md$n"
}

md_loop_file() { # LOOP -> the file behind it, as the kernel names it (nothing when detached)
	local f=""
	read -r f 2>/dev/null <"/sys/block/${1#/dev/}/loop/backing_file" || true
	echo "$f"
}

md_member_dev() { # member path -> MD_M, the block device md gets (a file: a loop device over
	# it that this run attaches once and keeps until the array is retired)
	local m=$1 dev
	MD_M=$m
	[[ -b $m ]] && return 0
	dev=${MD_LOOP[$m]:-}
	if [[ -n $dev && $(md_loop_file "$dev") == "${MD_BACKING[$dev]}" ]]; then
		MD_M=$dev
		return 0
	fi
	# direct I/O on the backing file, as the engine's members get; losetup falls back (and
	# says so) where the file system cannot
	dev=$(losetup --find --show --direct-io=on "$m" 2>/dev/null) ||
		dev=$(losetup --find --show "$m") || return 1
	MD_LOOP[$m]=$dev MD_BACKING[$dev]=$(md_loop_file "$dev")
	MD_M=$dev
}

md_sysfs() { # DEV KEY -> /sys/block/mdN/md/KEY
	echo "/sys/block/${1#/dev/}/md/$2"
}

md_set() { # DEV KEY VALUE: one of md's per-array settings; a refusal is one line, not fatal
	local f
	f=$(md_sysfs "$1" "$2")
	[[ -e $f ]] || return 0
	echo "$3" >"$f" 2>/dev/null || echo "run.sh: md: $2=$3 refused by $1 (kept $(cat "$f"))" >&2
}

md_apply_knobs() { # DEV HAS_PARITY (md's sync speeds are in KB/s)
	if (($2)); then
		[[ -z ${O[md-stripe-cache]:-} ]] || md_set "$1" stripe_cache_size "${O[md-stripe-cache]}"
		[[ -z ${O[md-threads]:-} ]] || md_set "$1" group_thread_cnt "${O[md-threads]}"
	fi
	[[ -z ${O[md-sync-min]:-} ]] || md_set "$1" sync_speed_min "${O[md-sync-min]}000"
	[[ -z ${O[md-sync-max]:-} ]] || md_set "$1" sync_speed_max "${O[md-sync-max]}000"
}

md_create_cmd() { # TEST clean|resync DEVS... -> the mdadm --create line of its array: the
	# options the plan gave its level (md_opt: bitmap, policy, chunk, layout, --size)
	local -n mc_=$1
	local mode=$2 dev=${MD_DEV[${mc_[array]}]:-/dev/mdN} opts
	test_list "$1" md_opt opts
	shift 2
	local c=(mdadm --create "$dev" --run --metadata=1.0 --level="${mc_[level]}" --raid-devices="${mc_[members]}" "${opts[@]}")
	[[ $mode == clean ]] && c+=(--assume-clean)
	echo "${c[*]} $*"
}

# md_up TEST: the test's array made by mdadm over its members, in its state: optimal
# (assembled clean, or resynced when md could not know the members agree), degraded (member 0
# missing) or rebuilding (member 0 missing, the first spare added: md starts recovering onto
# it). Sets MD_DEV[ARRAY]. A non-optimal array is made for its test alone.
md_up() {
	local -n mu_=$1
	local a=${mu_[array]} st=${mu_[state]} devs=() m dev uuid mode=clean line sp=() log
	log=${RUN[rdir]}/logs/md-${mu_[array]}.log
	if [[ -n ${MD_DEV[$a]:-} ]]; then
		[[ $st == optimal ]] && return 0
		md_stop "$a"
	fi
	MD_SPARE=""
	[[ $st != rebuilding ]] || sp=("${mu_[spare_paths]%%:*}")
	for m in ${mu_[member_paths]//:/ } "${sp[@]}"; do
		md_member_dev "$m" || { echo "run.sh: md: cannot attach $m as a loop device" >&2; return 1; }
		devs+=("$MD_M")
		[[ $MD_M == "$m" || " ${MD_ALOOPS[$a]:-} " == *" $MD_M "* ]] || MD_ALOOPS[$a]+=" $MD_M"
	done
	# a rebuilding test's spare is added when fio starts (md_test_begin)
	((${#sp[@]} == 0)) || { MD_SPARE=${devs[-1]}; unset "devs[-1]"; }
	# members this run did not make hold bytes md cannot know are consistent: resync once
	[[ ${mu_[init]} == resync && -z ${MD_SYNCED[$a]:-} && $st == optimal ]] && mode=resync
	[[ $st == optimal || $st == resync* ]] || devs[0]=missing
	md_clear "${devs[@]}"
	md_clear "$MD_SPARE"
	dev=$(md_free_dev)
	# owned before it exists: a Ctrl-C during the create still finds it
	MD_DEV[$a]=$dev MD_UUID[$dev]=-
	line=$(md_create_cmd "$1" "$mode" "${devs[@]}")
	echo "$line" >>"$log"
	# shellcheck disable=SC2086 # the line is our own words, no spaces inside one
	if ! $line >>"$log" 2>&1; then
		echo "run.sh: md: mdadm --create failed for $a (log: $log)" >&2
		unset "MD_DEV[$a]"
		return 1
	fi
	for m in "${devs[@]}"; do [[ $m == missing ]] || MD_USED[$m]=1; done
	uuid=$(mdadm --detail --export "$dev" 2>/dev/null) || true
	uuid=${uuid#*MD_UUID=}
	MD_UUID[$dev]=${uuid%%$'\n'*}
	md_apply_knobs "$dev" "${mu_[has_parity]}"
	if [[ $mode == resync ]]; then
		mdadm --wait "$dev" >/dev/null 2>&1 || true
		MD_SYNCED[$a]=1
	fi
	return 0
}

md_clear() { # DEV...: wipe an old md superblock off them: reused members and drives before
	# their first array in this run (mdadm --create --run writes over one, but what the run
	# keeps should not depend on that), and a spare before it is added (md would take one
	# that names this array as a member coming back, not as a new one to rebuild)
	local d
	for d in "$@"; do
		[[ -n $d && $d != missing ]] || continue
		[[ (${O[reuse]:-0} == 1 && -z ${MD_USED[$d]:-}) || ($d == "$MD_SPARE" && -n ${MD_USED[$d]:-}) ]] ||
			continue
		mdadm --zero-superblock --force "$d" >/dev/null 2>&1 || true
	done
}

md_stop() { # ARRAY: stop it; its loop devices stay for the next array over the same files
	local a=$1
	[[ -n ${MD_DEV[$a]:-} ]] || return 0
	md_stop_owned "${MD_DEV[$a]}"
	unset "MD_DEV[$a]"
}

md_down() { # ARRAY: stop it and detach the loop devices of its members
	local a=$1 l
	md_stop "$a"
	for l in ${MD_ALOOPS[$a]:-}; do md_detach_owned "$l"; done
	unset "MD_ALOOPS[$a]"
}

md_ours() { # DEV: 0 when DEV is a loop device this run attached, or one of its --drives
	local d=$1
	[[ -n ${MD_BACKING[$d]:-} && $(md_loop_file "$d") == "${MD_BACKING[$d]}" ]] && return 0
	[[ ,${O[drives]:-}, == *",$d,"* ]]
}

md_stop_owned() { # DEV: stop it if it is the array we made (its UUID; made but not yet known:
	# every member ours)
	local dev=$1 uuid=${MD_UUID[$1]:-} now s
	[[ -n $uuid ]] || return 0
	if [[ -e /sys/block/${dev#/dev/}/md ]]; then
		if [[ $uuid == - ]]; then
			for s in $(md_slaves "$dev"); do md_ours "$s" || return 0; done
		else
			now=$(mdadm --detail --export "$dev" 2>/dev/null) || true
			now=${now#*MD_UUID=}
			[[ ${now%%$'\n'*} == "$uuid" ]] || return 0
		fi
		mdadm --stop "$dev" >/dev/null 2>&1 || { sleep 1; mdadm --stop "$dev" >/dev/null 2>&1; }
	fi
	unset "MD_UUID[$dev]"
}

md_detach_owned() { # DEV: detach a loop device only if this run attached it
	local dev=$1 f=${MD_BACKING[$1]:-}
	[[ -n $f ]] || return 0
	[[ $(md_loop_file "$dev") != "$f" ]] || losetup -d "$dev" 2>/dev/null || true
	unset "MD_BACKING[$dev]" "MD_LOOP[$f]"
}

md_teardown() { # everything this run made, arrays first; safe to call twice
	local dev rest
	for dev in "${!MD_UUID[@]}"; do md_stop_owned "$dev"; done
	# the superblocks of our arrays on the caller's drives (on member files they go with the
	# files): what was a member of a stopped array is no array's member any more
	for dev in "${!MD_USED[@]}"; do
		[[ ,${O[drives]:-}, == *",$dev,"* ]] || continue
		mdadm --zero-superblock --force "$dev" >/dev/null 2>&1 || true
		unset "MD_USED[$dev]"
	done
	for dev in "${!MD_BACKING[@]}"; do md_detach_owned "$dev"; done
	# a loop attached just before a Ctrl-C, not yet written down: over a file of our own
	# scratch directory (this run created it) it is ours
	if [[ -n ${O[scratch_made]:-} ]]; then
		losetup -nO NAME,BACK-FILE 2>/dev/null | while read -r dev rest; do
			[[ $rest != "${O[scratch_made]}"/* ]] || losetup -d "$dev" 2>/dev/null || true
		done
	fi
	MD_DEV=() MD_ALOOPS=()
}

md_retire() { # TEST: stop the arrays that the test (and its group) does not use
	local -n mr_=$1
	local i=$((mr_[idx] - 1)) keep=" " a
	declare -A R=()
	while [[ -n ${PLAN[$i]:-} ]]; do
		test_load R "${PLAN[$i]}"
		[[ ${R[target]} == md ]] && keep+="${R[array]} "
		[[ ${mr_[group]} == - || ${R[group]} != "${mr_[group]}" ]] && break
		i=$((i + 1))
	done
	for a in "${!MD_DEV[@]}"; do [[ $keep == *" $a "* ]] || md_down "$a"; done
}

md_prepare_test() { # TEST: its md array up; fio's jobs spanned over md's size
	local -n mp_=$1
	local sectors
	md_up "$1" || return 1
	read -r sectors <"/sys/block/${MD_DEV[${mp_[array]}]#/dev/}/size" || return 1
	test_env_set "$1" $("$PRESET" span "${sectors}s" "${mp_[span_rw]:-${mp_[rw]}}" "${mp_[bs]}" "${mp_[numjobs]}")
}

# ---- md's figures: counted by raid-mdstats (tools/run/mdstats), as the engine counts its own ----
md_slaves() { # DEV -> its member devices (/dev/X)
	local s
	for s in /sys/block/${1#/dev/}/slaves/*; do [[ -e $s ]] && echo "/dev/${s##*/}"; done
}

declare -A MDT_SNAP=() MDT_T0=() MDT_REB_T0=() MDT_WATCH_PID=()
md_test_begin() { # TEST: before fio: snapshot the counters of the array and its members
	local -n mb_=$1
	local dev=${MD_DEV[${mb_[array]}]} test_id=${mb_[id]} work=${RUN[work]} rdir=${RUN[rdir]}
	local array=${mb_[array]} state=${mb_[state]}
	MDT_SNAP[$test_id]=$("$MDSTATS" snap "$dev")
	MDT_T0[$test_id]=$EPOCHREALTIME
	: >"$work/$test_id.md-watch"
	if [[ $state == rebuilding ]]; then
		# md starts recovering onto the spare as it is added: as the engine's rebuild
		# starts with its job, this is just before fio
		# (raid-mdstats watch: "T done total speed" lines, then "T idle")
		"$MDSTATS" watch "$dev" >"$work/$test_id.md-watch" &
		MDT_WATCH_PID[$test_id]=$!
		MDT_REB_T0[$test_id]=$EPOCHREALTIME
		MD_USED[$MD_SPARE]=1
		mdadm "$dev" --add "$MD_SPARE" >>"$rdir/logs/md-$array.log" 2>&1 ||
			echo "run.sh: md: $dev: adding the spare failed (logs/md-$array.log)" >&2
	fi
}

md_test_end() { # TEST: after fio: wait for a rebuild to end, write the stats file of the test
	local -n me_=$1
	local test_id=${me_[id]} work=${RUN[work]} dev=${MD_DEV[${me_[array]}]} reb=()
	local stats=${RUN[rdir]}/tests/$test_id.stats.json watch=${RUN[work]}/$test_id.md-watch
	if [[ ${me_[state]} == rebuilding ]]; then
		reb=(rebuild "$watch" "${MDT_T0[$test_id]}" "${MDT_REB_T0[$test_id]:-}" "$EPOCHREALTIME"
			"${me_[spare_paths]%%:*}" "$work/$test_id" "${me_[bs_bytes]}")
		wait "${MDT_WATCH_PID[$test_id]}" 2>/dev/null || true
	fi
	"$MDSTATS" write "$dev" "$stats" "${MDT_SNAP[$test_id]}" "${me_[state]}" "${me_[layout]}" "${reb[@]}"
	rm -f "$work/$test_id"_*.log
	grep -q . "$watch" && cp "$watch" "${RUN[rdir]}/logs/$test_id.md-rebuild.log"
	mapfile -t reb < <(resync_md_stats "$1")
	((${#reb[@]} == 0)) || "$RJSON" set "$stats" "${reb[@]}"
	# a non-optimal array was made for this test alone (its loop devices stay for the next)
	[[ ${me_[state]} == optimal ]] || md_stop "${me_[array]}"
}
