# run/recovery.sh (sourced by run.sh): the recovery tests' own steps (docs/rebuild.md).
# A rebuilding test's reference: the array's own transfers without the engine (the members
# its rebuild reads, each read by a dd while one more writes a new file of a member's size,
# all at once), in its meta.json (refs) for the report's rebuild table.
# The resync tests (state resync and resync-bitmap, tools/run/preset/resync.c): the array
# stopped uncleanly while fio writes, then the test's fio on its next start, whose resync is
# the figure ("Resync after an unclean stop"). The engine: fio killed with SIGKILL, its
# raid_state left dirty; the start resyncs before the first I/O and its stats say how long
# (resync.bytes, .seconds). md has no crash command: a copy of each member file taken while
# fio writes is a crash image (its superblock says active, its bitmap holds the bits of the
# regions in flight); the array is stopped, assembled again from the copies and md's resync
# timed before the test's fio starts.

# rebuild_transfers TEST: the rebuild's reads (the plan's rebuild_reads members after member
# 0, which the test fails) and the spare's write done by dd at once, MB/s of member, into
# meta.json refs; nothing over drives (no file of a member's size to write beside them)
rebuild_transfers() {
	local -n rt_=$1
	local m=() f t0 t1 tmp bytes=${rt_[member_bytes]} meta=${RUN[rdir]}/tests/${rt_[id]}.meta.json
	read -r -a m <<<"${rt_[member_paths]//:/ }"
	for f in "${m[@]}"; do [[ -f $f ]] || return 0; done
	tmp=${m[0]%/*}/transfers.tmp
	t0=$EPOCHREALTIME
	for f in "${m[@]:1:${rt_[rebuild_reads]}}"; do
		dd if="$f" of=/dev/null bs=1M count=$((bytes >> 20)) 2>/dev/null &
	done
	dd if=/dev/zero of="$tmp" bs=1M count=$((bytes >> 20)) conv=fdatasync 2>/dev/null &
	wait
	t1=$EPOCHREALTIME
	rm -f "$tmp"
	"$RJSON" set "$meta" refs.transfers_mbps:f="$("$MDSTATS" rate "$bytes" "$t0" "$t1")" \
		"refs.transfers_how:s=${rt_[rebuild_reads]} read + 1 written at once by dd (1 MiB blocks, the write fdatasync'ed), before the test"
}

declare -A RESYNC_MD=() # test id -> raid-json args of md's resync, for its stats file

# resync_has_bitmap: 0 when the engine's option table has raid_bitmap (raid-tool options)
resync_has_bitmap() {
	"$ROOT/build/bin/raid-tool" options 2>/dev/null | grep -q '^raid_bitmap '
}

# resync_start TEST: the unclean stop before the test's fio (CMD: its command, made again
# after: md's array is another device then). 1 when the test cannot run (skipped or failed,
# said in one line and counted)
resync_start() {
	local -n rs_=$1
	local t=${rs_[id]} pre="[${rs_[idx]}/${PLAN_RUN[tests]}]" why="" status=skipped
	if [[ ${rs_[target]} == engine && ${rs_[consistency]} == bitmap ]] && ! resync_has_bitmap; then
		why="the engine has no raid_bitmap option (build/bin/raid-tool options)"
	elif [[ ${rs_[target]} == engine ]]; then
		why=$(resync_engine_crash "$1") || status=failed
	elif [[ ${rs_[target]} == md ]]; then
		# the writes confined to the plan's span (md_prepare_test spanned them over md's size)
		test_env_set "$1" "JOB_SIZE=${rs_[resync_span]}" JOB_OFFSET=0
		test_cmd "$1"
		# (2: not possible here, a skip)
		why=$(resync_md_crash "$1") || { (($? == 2)) || status=failed; }
		# the array assembled from the crash image, its resync timed (not in the subshell)
		[[ -n $why ]] || resync_md_assemble "$1" || { status=failed why=$RESYNC_WHY; }
	else
		why="a resync test runs on the engine or md, not ${rs_[target]}"
	fi
	if [[ -z $why && $status == skipped ]]; then
		test_cmd "$1"
		return 0
	fi
	local m
	for m in ${rs_[member_paths]//:/ }; do rm -f "$m.crash"; done # an image not used
	write_meta "$1" "$status" "$why"
	echo "$pre $([[ $status == failed ]] && echo FAIL || echo skip)  $t: $why"
	COUNT[$status]=$((COUNT[$status] + 1))
	return 1
}

# resync_crash_fio TEST LOG DURING READY_CMD...: the test's fio (CMD, until killed: its
# output to LOG.json, not the test's) started, READY_CMD polled until it holds (at most 30 s),
# crash_s more seconds of writes, DURING (a command, ":" for none) while it still writes,
# then SIGKILL; "" when fio was killed while writing, else why not
resync_crash_fio() {
	local -n rc_=$1
	local log=$2 during=$3 pid i rc=0 c
	shift 3
	c=("${CMD[@]/#RUNTIME=*/RUNTIME=3600}")
	"${c[@]/#--output=*/--output=$log.json}" >>"$log" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do
		"$@" && break
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	sleep "${rc_[crash_s]}"
	kill -0 "$pid" 2>/dev/null && $during
	# fio and its job processes at once (md's jobs run as processes: killing the parent
	# alone leaves them writing)
	if ! kill -KILL "$pid" $(pgrep -P "$pid") 2>/dev/null; then
		wait "$pid" 2>/dev/null
		echo "fio ended before it was killed (log: $log)"
		return 1
	fi
	wait "$pid" 2>/dev/null || rc=$?
	((rc == 137)) || { echo "fio was not killed by SIGKILL (exit $rc, log: $log)"; return 1; }
	echo "--- fio killed with SIGKILL after ${rc_[crash_s]} s of writes" >>"$log"
}

resync_dirty() { grep -q '"clean": *false' "$1" 2>/dev/null; }

# resync_engine_crash TEST: writes under raid_state (a state file of this test alone), fio
# killed once the file says dirty; the file must still say so
resync_engine_crash() {
	local -n re_=$1
	local st=${re_[state_file]} log=${RUN[rdir]}/logs/${re_[id]}.crash.log
	mkdir -p "${st%/*}" && rm -f "$st" "$st.lock" "$st.bitmap"
	: >"$log"
	resync_crash_fio "$1" "$log" : resync_dirty "$st" || return 1
	resync_dirty "$st" || { echo "the state file $st is not dirty after the kill (log: $log)"; return 1; }
}

# resync_md_crash TEST: fio on the array, a copy of each member file while it writes (the
# crash image, FILE.crash), fio killed
resync_md_crash() {
	local -n rm_=$1
	local log=${RUN[rdir]}/logs/${rm_[id]}.crash.log m
	: >"$log"
	RESYNC_COPIES=()
	for m in ${rm_[member_paths]//:/ }; do
		[[ -f $m ]] || { echo "md's crash image is a copy of member files: $m is not one"; return 2; }
		RESYNC_COPIES+=("$m")
	done
	# md marks the array clean 200 ms after its last write (safe mode) and the superblock's
	# event count moves with every such change: members copied a moment apart would then
	# disagree, and md would take the bitmap for stale and resync everything. Kept active
	# here (the array is this test's alone, and is assembled anew from the image)
	md_set "${MD_DEV[${rm_[array]}]}" safe_mode_delay 3600
	if [[ ${rm_[consistency]} == bitmap ]]; then
		resync_md_clean_bitmap "${MD_DEV[${rm_[array]}]}" "${rm_[bitmap_chunk]}" "$log" || return 1
	fi
	# the writes have begun once the array's superblock says so (array_state active)
	resync_crash_fio "$1" "$log" resync_md_copy resync_md_active "${MD_DEV[${rm_[array]}]}" || return 1
	for m in "${RESYNC_COPIES[@]}"; do
		[[ -s $m.crash ]] || { echo "copying $m while fio wrote failed (log: $log)"; return 1; }
	done
}

# resync_md_clean_bitmap DEV CHUNK LOG: an internal bitmap on the array, every region clean
# before the writes. A new bitmap has every bit set on disk (made by --create, even with
# --assume-clean, or added by --grow); md clears the bits of an array in sync lazily, a
# region after two passes of its bitmap daemon, so the daemon runs every second here
# (--delay) and the bitmap is read back (mdadm -X of a member) until none is dirty (30 s)
resync_md_clean_bitmap() {
	local dev=$1 log=$3 m x i
	mdadm --grow "$dev" --bitmap=internal --bitmap-chunk="$(($2 / 1024))K" --delay=1 >>"$log" 2>&1 ||
		{ echo "mdadm --grow $dev --bitmap=internal failed (log: $log)"; return 1; }
	m=$(md_slaves "$dev" | head -1)
	for ((i = 0; i < 60; i++)); do
		x=$(mdadm -X "$m" 2>&1) || true
		[[ $x == *", 0 dirty"* ]] && { echo "--- bitmap clean after $((i / 2)) s" >>"$log"; return 0; }
		sleep 0.5
	done
	echo "the bitmap of $dev still has dirty regions 30 s after it was added: $(grep Bitmap <<<"$x")"
	return 1
}

resync_md_copy() { # the members (RESYNC_COPIES) copied one after the other, as fio writes
	local m
	for m in "${RESYNC_COPIES[@]}"; do cp --sparse=always "$m" "$m.crash"; done
	echo "--- members copied while fio wrote: $(grep -A1 "^${MD_DEV[${rm_[array]}]#/dev/} " /proc/mdstat | tr -s ' \n' ' ')" >>"$log"
}

resync_md_active() { [[ $(cat "$(md_sysfs "$1" array_state)" 2>/dev/null) == active ]]; }

# resync_md_assemble TEST: the array stopped (cleanly: the image is in the copies), the copies
# put in place of the members, the array assembled from them and md's resync timed until the
# array is in sync again (resync_start none, sync_action idle); RESYNC_MD[id] its figures,
# RESYNC_WHY why not
resync_md_assemble() {
	local -n ra_=$1
	local a=${ra_[array]} m dev devs=() t0 t1 bits="" dirty="" x log=${RUN[rdir]}/logs/md-${ra_[array]}.log
	RESYNC_WHY=""
	# the killed fio's last I/Os may hold the array open for a moment (io_uring's workers)
	dev=${MD_DEV[$a]}
	for ((x = 0; x < 40; x++)); do
		[[ -e /sys/block/${dev#/dev/}/md ]] || break
		mdadm --stop "$dev" >>"$log" 2>&1 || sleep 0.5
	done
	[[ ! -e /sys/block/${dev#/dev/}/md ]] || { RESYNC_WHY="$dev could not be stopped (log: $log)"; return 1; }
	md_down "$a"
	for m in ${ra_[member_paths]//:/ }; do mv -f "$m.crash" "$m" || { RESYNC_WHY="cannot put $m.crash in place"; return 1; }; done
	for m in ${ra_[member_paths]//:/ }; do
		md_member_dev "$m" || { RESYNC_WHY="cannot attach $m as a loop device"; return 1; }
		devs+=("$MD_M")
		[[ $MD_M == "$m" ]] || MD_ALOOPS[$a]+=" $MD_M"
	done
	# the bitmap's dirty regions as the crash left them (mdadm --examine-bitmap: of a
	# device; a plain file it reads as an external bitmap file)
	if [[ ${ra_[consistency]} == bitmap ]]; then
		x=$(mdadm -X "${devs[0]}" 2>&1) || true
		echo "mdadm -X ${devs[0]}:"$'\n'"$x" >>"$log"
		bits=$(sed -n 's/.*Bitmap : \([0-9]*\) bits.*/\1/p' <<<"$x")
		dirty=$(sed -n 's/.*, \([0-9]*\) dirty.*/\1/p' <<<"$x")
	fi
	dev=$(md_free_dev)
	MD_DEV[$a]=$dev MD_UUID[$dev]=-
	t0=$EPOCHREALTIME
	echo "mdadm --assemble $dev --run ${devs[*]}" >>"$log"
	mdadm --assemble "$dev" --run "${devs[@]}" >>"$log" 2>&1 ||
		{ RESYNC_WHY="mdadm --assemble of the crash image failed (log: $log)"; unset "MD_DEV[$a]"; return 1; }
	x=$(mdadm --detail --export "$dev" 2>/dev/null) || true
	x=${x#*MD_UUID=}
	MD_UUID[$dev]=${x%%$'\n'*}
	md_apply_knobs "$dev" "${ra_[has_parity]}"
	local f=/sys/block/${dev#/dev/}/md
	t1=$("$MDSTATS" settle "$dev") # resync_start none and sync_action idle
	# md's own words on the assembly and the resync (a stale bitmap is said there)
	dmesg 2>/dev/null | grep -E "md/raid|md: |${dev#/dev/}" | tail -8 >>"$log" || true
	local last="" size=""
	read -r last 2>/dev/null <"$f/last_sync_action" || true
	read -r size 2>/dev/null <"$f/component_size" || true
	# the resync's own time by md's clock (raid-mdstats: its kernel log's last "resync of RAID
	# array" and "resync done" pair), else the polled time, which counts the assembly too
	local wall ksec src
	{ read -r ksec && read -r src && read -r wall; } < <(dmesg 2>/dev/null | "$MDSTATS" resync "$t0" "$t1" "$dev")
	RESYNC_MD[${ra_[id]}]="resync.seconds:f=$ksec
resync.wall_s:f=$wall
resync.bytes:i=$((${size:-0} * 1024))
resync.last_sync_action:s=$last
resync.source:s=$src
consistency.policy:s=${ra_[consistency]}"
	[[ -z $dirty ]] || RESYNC_MD[${ra_[id]}]+="
consistency.bitmap_chunk:i=${ra_[bitmap_chunk]}
consistency.bitmap_bits:i=${bits:-0}
consistency.bitmap_dirty:i=$dirty
resync.dirty_bytes:i=$((dirty * ra_[bitmap_chunk]))"
	echo "md: $dev assembled from the crash image: ${last:-?} in $ksec s ($wall s from the assembly)${dirty:+, $dirty of $bits bitmap regions dirty}" >>"$log"
}

# resync_md_stats TEST -> raid-json args for md's stats file (md_test_end)
resync_md_stats() {
	local -n rt_=$1
	[[ -n ${RESYNC_MD[${rt_[id]}]:-} ]] || return 0
	echo "${RESYNC_MD[${rt_[id]}]}"
}
