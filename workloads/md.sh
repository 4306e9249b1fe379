# workloads/md.sh: run.sh's md target (sourced): the preset's arrays made by mdadm over the
# same members, md's knobs, degraded and rebuilding states, and a teardown that removes
# exactly what this run made. It runs on a kernel with md: the host's, or the md appliance's
# (tools/mdvm), where run.sh re-runs itself when the host has none (workloads/targets.sh).
#
# Everything the run creates is written to $MD_OWNED as it is created ("array DEV UUID",
# "loop DEV FILE"), so that a teardown after an error or a Ctrl-C stops and detaches those
# and nothing else. md's settings are per array (stripe_cache_size, group_thread_cnt,
# sync_speed_min/max under /sys/block/mdN/md/): they go with the array, and the global
# /proc/sys/dev/raid limits are never touched.
#
# Needs: mdadm, losetup, blockdev (Debian: mdadm, util-linux).

MD_OWNED=${MD_OWNED:-}
declare -A MD_DEV=()   # array name -> /dev/mdN while it is up
declare -A MD_SYNCED=() # array name -> 1 once md resynced its members in this run
MD_PREFIX=md-          # test ids of the md target: md-<engine id>

md_available() { # 0 when this kernel has md (loading md_mod if it can)
	[[ -e /proc/mdstat ]] || modprobe -q md_mod 2>/dev/null
	[[ -e /proc/mdstat ]] && command -v mdadm >/dev/null
}

md_knobs_json() { # run.json: md's settings this run asked for (null: md's default, which
	# each test's stats file records as md ran it)
	local k v
	for k in stripe_cache_size:$md_stripe_cache group_thread_cnt:$md_threads \
		sync_speed_min_mbps:$md_sync_min sync_speed_max_mbps:$md_sync_max; do
		v=${k#*:}
		targets_json+=("md.asked.${k%%:*}:${v:+i=}${v:-n}")
	done
}

md_own() { echo "$*" >>"$MD_OWNED"; }

md_free_dev() { # a /dev/mdN no array uses (from 120 up, away from a host's own arrays)
	local n=120
	while [[ -e /sys/block/md$n ]] || grep -q "^array /dev/md$n " "$MD_OWNED" 2>/dev/null; do
		n=$((n + 1))
	done
	echo "/dev/md$n"
}

md_member_dev() { # member path -> the block device md gets (files: a loop device we attach)
	local m=$1 dev
	if [[ -b $m ]]; then
		echo "$m"
		return 0
	fi
	dev=$(awk -v f="$m" '$1 == "loop" && $3 == f { print $2 }' "$MD_OWNED" 2>/dev/null | tail -1)
	if [[ -n $dev ]] && losetup "$dev" 2>/dev/null | grep -qF "($m)"; then
		echo "$dev"
		return 0
	fi
	# direct I/O on the backing file, as the engine's members get; losetup falls back (and
	# says so) where the file system cannot
	dev=$(losetup --find --show --direct-io=on "$m" 2>/dev/null) ||
		dev=$(losetup --find --show "$m") || return 1
	md_own "loop $dev $m"
	echo "$dev"
}

md_layout() { # level layout -> mdadm's --layout (or nothing)
	case $1 in 5 | 6) echo "--layout=$2" ;; 10) echo "--layout=n2" ;; esac
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

md_apply_knobs() { # DEV LEVEL
	if [[ $2 == 5 || $2 == 6 ]]; then
		[[ -z $md_stripe_cache ]] || md_set "$1" stripe_cache_size "$md_stripe_cache"
		[[ -z $md_threads ]] || md_set "$1" group_thread_cnt "$md_threads"
	fi
	[[ -z $md_sync_min ]] || md_set "$1" sync_speed_min $((md_sync_min * 1000))
	[[ -z $md_sync_max ]] || md_set "$1" sync_speed_max $((md_sync_max * 1000))
}

md_settings_args() { # DEV -> raid-json args: the settings the array has (what md ran with)
	local k f v
	for k in stripe_cache_size group_thread_cnt sync_speed_min sync_speed_max; do
		f=$(md_sysfs "$1" "$k")
		v=$(cat "$f" 2>/dev/null | awk '{ print $1 }')
		[[ -n $v ]] && echo "md.$k:s=$v"
	done
}

md_create_cmd() { # array level chunk n "missing?" devs... -> the mdadm --create line
	local a=$1 level=$2 chunk=$3 n=$4 miss=$5 dev
	shift 5
	dev=${MD_DEV[$a]:-/dev/mdN}
	local c=(mdadm --create "$dev" --run --metadata=1.0 --level="$level" --raid-devices="$n")
	# no write-intent bitmap (mdadm adds one to large arrays): the engine has none either
	[[ $level == 0 ]] || c+=(--bitmap=none)
	[[ $level == 1 ]] || c+=(--chunk="$(($(to_bytes "$chunk") / 1024))")
	c+=($(md_layout "$level" left-symmetric))
	((n == 1)) && c+=(--force)
	# --size keeps md to the part of each member the engine uses (drives, --member-size);
	# mdadm ignores it for RAID0
	[[ -n $drives && $level != 0 ]] && c+=(--size="$((per / 1024))")
	[[ $miss == clean ]] && c+=(--assume-clean)
	echo "${c[*]} $*"
}

# md_up ARRAY STATE: the array made by mdadm over this test's members (globals of
# prepare_run: level chunk n members spare_paths), in STATE: optimal (assembled clean, or
# resynced when md could not know the members agree), degraded (member 0 missing) or
# rebuilding (member 0 missing, the first spare added: md starts recovering onto it).
# Sets MD_DEV[ARRAY]. A non-optimal array is made for its test alone.
md_up() {
	local a=$1 st=$2 devs=() m dev uuid mode=clean line
	if [[ -n ${MD_DEV[$a]:-} ]]; then
		[[ $st == optimal ]] && return 0
		md_down "$a"
	fi
	for m in "${members[@]}"; do
		dev=$(md_member_dev "$m") || { echo "run.sh: md: cannot attach $m as a loop device" >&2; return 1; }
		devs+=("$dev")
	done
	# members this run did not make hold bytes md cannot know are consistent: resync once
	[[ ${#resync_opt[@]} -gt 0 && -z ${MD_SYNCED[$a]:-} && $st == optimal ]] && mode=resync
	[[ $st != optimal ]] && devs[0]=missing
	for dev in "${devs[@]}"; do
		[[ $dev == missing ]] || mdadm --zero-superblock --force "$dev" >/dev/null 2>&1 || true
	done
	MD_DEV[$a]=$(md_free_dev)
	# owned before it exists: a Ctrl-C during the create still finds it
	md_own "array ${MD_DEV[$a]} -"
	line=$(md_create_cmd "$a" "$level" "$chunk" "$n" "$mode" "${devs[@]}")
	echo "$line" >>"$rdir/logs/md-$a.log"
	# shellcheck disable=SC2086 # the line is our own words, no spaces inside one
	if ! $line >>"$rdir/logs/md-$a.log" 2>&1; then
		echo "run.sh: md: mdadm --create failed for $a (log: $rdir/logs/md-$a.log)" >&2
		unset "MD_DEV[$a]"
		return 1
	fi
	uuid=$(mdadm --detail --export "${MD_DEV[$a]}" 2>/dev/null | sed -n 's/^MD_UUID=//p')
	md_own "array ${MD_DEV[$a]} $uuid"
	md_apply_knobs "${MD_DEV[$a]}" "$level"
	if [[ $mode == resync ]]; then
		mdadm --wait "${MD_DEV[$a]}" >/dev/null 2>&1 || true
		MD_SYNCED[$a]=1
	fi
	if [[ $st == rebuilding ]]; then # the spare is added when fio starts (md_test_begin)
		dev=$(md_member_dev "${spare_paths[0]}") || return 1
		mdadm --zero-superblock --force "$dev" >/dev/null 2>&1 || true
	fi
	return 0
}

md_down() { # ARRAY: stop it and detach the loop devices of its members
	local a=$1 dev=${MD_DEV[$1]:-}
	[[ -n $dev ]] || return 0
	md_stop_owned "$dev"
	unset "MD_DEV[$a]"
}

md_ours() { # DEV: 0 when DEV is a loop device this run attached, or one of its --drives
	local d=$1 f
	f=$(awk -v d="$d" '$1 == "loop" && $2 == d { print $3 }' "$MD_OWNED" | tail -1)
	[[ -n $f ]] && losetup "$d" 2>/dev/null | grep -qF "($f)" && return 0
	[[ " ${drive_list[*]:-} " == *" $d "* ]]
}

md_stop_owned() { # DEV: stop it if it is the array we made (its UUID; made but not yet known:
	# every member ours), then detach its loop devices
	local dev=$1 uuid now slaves s
	uuid=$(awk -v d="$dev" '$1 == "array" && $2 == d { print $3 }' "$MD_OWNED" | tail -1)
	[[ -e /sys/block/${dev#/dev/}/md ]] || return 0
	slaves=$(md_slaves "$dev")
	if [[ $uuid == - ]]; then
		for s in $slaves; do md_ours "$s" || return 0; done
	else
		now=$(mdadm --detail --export "$dev" 2>/dev/null | sed -n 's/^MD_UUID=//p')
		[[ -n $uuid && $now == "$uuid" ]] || return 0
	fi
	mdadm --stop "$dev" >/dev/null 2>&1 || { sleep 1; mdadm --stop "$dev" >/dev/null 2>&1; }
	for s in $slaves; do md_detach_owned "$s"; done
}

md_detach_owned() { # DEV: detach a loop device only if this run attached it
	local dev=$1 f
	f=$(awk -v d="$dev" '$1 == "loop" && $2 == d { print $3 }' "$MD_OWNED" | tail -1)
	[[ -n $f ]] || return 0
	losetup "$dev" 2>/dev/null | grep -qF "($f)" && losetup -d "$dev" 2>/dev/null
	return 0
}

md_teardown() { # everything in MD_OWNED, arrays first; safe to call twice
	[[ -n $MD_OWNED && -s $MD_OWNED ]] || return 0
	local kind dev rest
	while read -r kind dev rest; do
		[[ $kind == array ]] && md_stop_owned "$dev"
	done <"$MD_OWNED"
	while read -r kind dev rest; do
		[[ $kind == loop ]] && md_detach_owned "$dev"
	done <"$MD_OWNED"
	# a loop attached just before a Ctrl-C, not yet written down: over a file of our own
	# scratch directory (this run created it) it is ours
	if [[ -n ${scratch_made:-} ]]; then
		losetup -nO NAME,BACK-FILE 2>/dev/null | while read -r dev rest; do
			[[ $rest == "$scratch_made"/* ]] && losetup -d "$dev" 2>/dev/null
		done
	fi
	: >"$MD_OWNED"
	MD_DEV=()
}

md_retire() { # IDX: stop the arrays that plan line IDX (and its group) does not use
	local i=$1 g a t keep=" " x
	read -r g _ <<<"${PLAN[$i]:-}"
	while [[ -n ${PLAN[$i]:-} ]]; do
		read -r x a _ _ _ _ _ _ _ t <<<"${PLAN[$i]}"
		[[ $t == md ]] && keep+="$a "
		[[ $g == - || $x != "$g" ]] && break
		i=$((i + 1))
	done
	for a in "${!MD_DEV[@]}"; do [[ $keep == *" $a "* ]] || md_down "$a"; done
}

md_prepare_test() { # the md array of the current test up, fio's target and sizes set on it
	local vol
	md_up "$array" "$state" || return 1
	vol=$(blockdev --getsize64 "${MD_DEV[$array]}") || return 1
	job_sizes "$vol" "$vol" 0
	target_fio_args
}

# ---- device statistics: member I/Os per volume I/O, as the engine counts them ----
md_iostat() { # DEV... -> "reads writes read_bytes write_bytes" summed (/sys/block/X/stat)
	local d r=0 w=0 rs=0 ws=0 f
	for d in "$@"; do
		f=/sys/class/block/$(basename "$(readlink -f "$d")")/stat
		[[ -r $f ]] || continue
		read -r -a s <"$f"
		r=$((r + s[0])) rs=$((rs + s[2])) w=$((w + s[4])) ws=$((ws + s[6]))
	done
	echo "$r $w $((rs * 512)) $((ws * 512))"
}

md_slaves() { # DEV -> its member devices (/dev/X)
	local s
	for s in /sys/block/${1#/dev/}/slaves/*; do [[ -e $s ]] && echo "/dev/${s##*/}"; done
}

declare -A MDT_VOL0=() MDT_MEM0=() MDT_T0=() MDT_REB_T0=() MDT_WATCH_PID=()
md_test_begin() { # before fio: snapshot the counters of the array and its members
	local dev=${MD_DEV[$array]}
	MDT_VOL0[$test_id]=$(md_iostat "$dev")
	MDT_MEM0[$test_id]=$(md_iostat $(md_slaves "$dev"))
	MDT_T0[$test_id]=$EPOCHREALTIME
	: >"$work/$test_id.md-watch"
	if [[ $state == rebuilding ]]; then
		# md starts recovering onto the spare as it is added: as the engine's rebuild
		# starts with its job, this is just before fio
		md_watch "$dev" >"$work/$test_id.md-watch" &
		MDT_WATCH_PID[$test_id]=$!
		MDT_REB_T0[$test_id]=$EPOCHREALTIME
		mdadm "$dev" --add "$(md_member_dev "${spare_paths[0]}")" >>"$rdir/logs/md-$array.log" 2>&1 ||
			echo "run.sh: md: $dev: adding the spare failed (logs/md-$array.log)" >&2
	fi
}

md_watch() { # DEV: "T done total speed" lines while md recovers (sync_completed, mdstat's
	# speed), then "T idle" once no member is missing and nothing syncs
	local f=/sys/block/${1#/dev/}/md d t sp
	while [[ -e $f ]]; do
		d=$(cat "$f/sync_completed" 2>/dev/null)
		sp=$(cat "$f/sync_speed" 2>/dev/null)
		t=$EPOCHREALTIME
		if [[ $d == none || -z $d ]]; then
			[[ $(cat "$f/degraded" 2>/dev/null) == 0 ]] && { echo "$t idle"; break; }
		else
			echo "$t ${d% / *} ${d#* / } $sp"
		fi
		sleep 0.2
	done
}

md_test_end() { # after fio: wait for a rebuild to end, write the stats file of the test
	local dev=${MD_DEV[$array]} stats=$rdir/tests/$test_id.stats.json vol mem reb=()
	local MD_WATCH=$work/$test_id.md-watch MD_FIO_T0=${MDT_T0[$test_id]}
	if [[ $state == rebuilding ]]; then
		local t_end t_first total sectors wait0=$EPOCHREALTIME
		wait "${MDT_WATCH_PID[$test_id]}" 2>/dev/null || true
		t_end=$(awk '$2 == "idle" { print $1 }' "$MD_WATCH" | tail -1)
		sectors=$(awk 'NF == 4 { s = $3 } END { print s + 0 }' "$MD_WATCH")
		[[ $sectors -gt 0 ]] || sectors=$(($(cat "$(md_sysfs "$dev" component_size)") * 2))
		total=$((sectors * 512))
		t_first=${MDT_REB_T0[$test_id]:-$MD_FIO_T0}
		reb=($(awk -v t0="$MD_FIO_T0" -v s="$t_first" -v e="$t_end" -v b="$total" -v w0="$wait0" \
			'BEGIN { d = e - s; if (d <= 0) d = 1e-6;
			  printf "rebuild.start_s:f=%.3f rebuild.end_s:f=%.3f rebuild.bytes:i=%d ", s - t0, e - t0, b;
			  printf "rebuild.mbps:f=%.2f rebuild.min_per_tb:f=%.2f rebuild.wait_s:f=%.3f",
			    b / 1e6 / d, d / 60 / (b / 1e12), (e > w0 ? e - w0 : 0) }'))
		reb+=(rebuild.member:i=0 "rebuild.spare:s=${spare_paths[0]}"
			"rebuild.source:s=md sync_completed and /proc/mdstat, polled every 0.2 s")
		grep -q . "$MD_WATCH" && cp "$MD_WATCH" "$rdir/logs/$test_id.md-rebuild.log"
	fi
	read -r -a vol <<<"$(md_iostat "$dev")"
	local v0 m0
	read -r -a v0 <<<"${MDT_VOL0[$test_id]}"
	read -r -a m0 <<<"${MDT_MEM0[$test_id]}"
	read -r -a mem <<<"$(md_iostat $(md_slaves "$dev"))"
	"$RJSON" obj target:s=md level:i="$level" members:i="$n" chunk:i="$(to_bytes "$chunk")" \
		"layout:s=$(layout_of "$level")" backend:s=md state:s="$state" device:s="$dev" \
		volume.reads:i=$((vol[0] - v0[0])) volume.writes:i=$((vol[1] - v0[1])) \
		volume.read_bytes:i=$((vol[2] - v0[2])) volume.write_bytes:i=$((vol[3] - v0[3])) \
		member_io.reads:i=$((mem[0] - m0[0])) member_io.writes:i=$((mem[1] - m0[1])) \
		member_io.read_bytes:i=$((mem[2] - m0[2])) member_io.write_bytes:i=$((mem[3] - m0[3])) \
		"member_io.source:s=/sys/block/*/stat of the array and its members" \
		$(md_settings_args "$dev") "${reb[@]}" >"$stats"
	# a non-optimal array was made for this test alone
	[[ $state == optimal ]] || md_down "$array"
}
