# tests/md/guest.sh - the md side of the md judgement (tests/md/md_judge.sh), sourced by the
# plan that test writes and runs inside the md appliance (mdvm run --ramdisks N:KIB). The
# host's member files are copied onto ramdisks /dev/ram0..5 (loop devices run 15-20 times
# slower under TCG); arrays md writes itself get ramdisks never used before, which are zero
# (brd allocates a page when it is first written). Programs start slowly under TCG, so this
# runs as few as it can. Each step appends one line to $RESULTS:
#   NAME size=BYTES mismatch=N|- verify=RC bytes=RC
#
#   judge NAME FIOARGS -- MDADM... [-- copy]
#       md assembles the engine's members (the line raid-mdadm printed, on /dev/md1) and
#       reports its size, a `check` (mismatch_cnt; "-" where md has no redundancy), fio's
#       verify_only through the array (verify=), and with `copy` copies the array into a
#       fresh one of the same geometry (/dev/md2, zero members) and compares each member's
#       data area with the engine's (bytes=: 0 equal, 1 differ)
#   mdwrite NAME FIOARGS -- MDADM...
#       md writes fio's verify pattern onto zero members (verify=: the write's status),
#       then a `check`; the members are copied back over the host's files for the engine
#
# $D: each member's data area in bytes. Every array is stopped before the next step.

FIO=${FIO:-$PWD/build/bin/fio}
FRESH=6 # the next ramdisk never written
HOST=() # host member files of the last md_up, in line order
RAMS=() # the ramdisks standing for them

# md_up copy|zero MDADM...: run a raid-mdadm line with its member files replaced by ramdisks
# holding their bytes (copy: /dev/ram0..) or zeros (zero: fresh ones)
md_up() {
	local how=$1 r=0 a args=()
	shift
	HOST=() RAMS=()
	[[ $how == zero ]] && r=$FRESH
	for a in "$@"; do
		if [[ $a == /* && -f $a ]]; then
			if [[ $how == copy ]]; then
				dd if="$a" of=/dev/ram$r bs=1M oflag=direct status=none || return 1
			fi
			HOST+=("$a") RAMS+=("/dev/ram$r")
			a=/dev/ram$r
			r=$((r + 1))
		fi
		args+=("$a")
	done
	[[ $how == zero ]] && FRESH=$r
	"${args[@]}" >>"$LOG" 2>&1 || { echo "mdadm failed: ${args[*]}" >>"$LOG"; return 1; }
}

md_stop() {
	local md on=()
	for md in "$@"; do [[ -e /sys/block/${md#/dev/}/md/level ]] && on+=("$md"); done
	[[ ${#on[@]} -eq 0 ]] || mdadm --stop "${on[@]}" >>"$LOG" 2>&1
	return 0
}

# md_size MD: the array's bytes, from sysfs (no program to start)
md_size() {
	local sectors
	read -r sectors <"/sys/block/${1#/dev/}/size"
	echo $((sectors * 512))
}

# md_check MD: mismatch_cnt after md's own check; "-" without redundancy (RAID0, degraded)
md_check() {
	local s=/sys/block/${1#/dev/}/md level deg=0 mm
	read -r level <"$s/level"
	[[ -e $s/degraded ]] && read -r deg <"$s/degraded"
	if [[ $level == raid0 || $deg != 0 ]]; then
		echo -
		return
	fi
	echo check >"$s/sync_action"
	mdadm --wait "$1" >/dev/null 2>&1
	read -r mm <"$s/mismatch_cnt"
	echo "$mm"
}

md_fio() { # MD FIOARGS...
	local md=$1
	shift
	"$FIO" --name=md --filename="$md" --ioengine=psync --direct=1 --verify=crc32c \
		--verify_fatal=1 --verify_state_save=0 "$@" >>"$LOG" 2>&1
}

# step_args: split "FIOARGS -- MDADM... [-- copy]" into FARGS, LINE and COPY
step_args() {
	FARGS=() LINE=() COPY=
	while [[ $# -gt 0 && $1 != -- ]]; do FARGS+=("$1"); shift; done
	shift
	while [[ $# -gt 0 && $1 != -- ]]; do LINE+=("$1"); shift; done
	[[ ${2:-} == copy ]] && COPY=1
}

# step_start NAME copy|zero ARGS...: the step's arguments, its log line, its array on
# /dev/md1; fails (with its result line written) when md refuses the array
step_start() {
	local name=$1 how=$2
	shift 2
	step_args "$@"
	echo "== $name" >>"$LOG"
	echo "== $name" >&2
	md_up "$how" "${LINE[@]}" && return 0
	md_stop /dev/md1
	echo "$name size=0 mismatch=- verify=- bytes=-" >>"$RESULTS"
	return 1
}

judge() {
	local name=$1 size mm v bytes=- i engine
	shift
	step_start "$name" copy "$@" || return 0
	engine=("${RAMS[@]}")
	size=$(md_size /dev/md1)
	mm=$(md_check /dev/md1)
	md_fio /dev/md1 "${FARGS[@]}" --verify_only=1
	v=$?
	if [[ -n $COPY ]] && md_up zero "${LINE[@]/#\/dev\/md1/\/dev\/md2}"; then
		bytes=0
		dd if=/dev/md1 of=/dev/md2 bs=1M iflag=direct oflag=direct status=none >>"$LOG" 2>&1 ||
			bytes=2
		mdadm --stop /dev/md2 >>"$LOG" 2>&1
		# md wrote past the block devices' page cache, which cmp reads through
		blockdev --flushbufs "${engine[@]}" "${RAMS[@]}"
		for i in "${!engine[@]}"; do
			cmp -n "$D" "${engine[i]}" "${RAMS[i]}" >>"$LOG" 2>&1 || bytes=1
		done
	fi
	md_stop /dev/md1 /dev/md2
	echo "$name size=$size mismatch=$mm verify=$v bytes=$bytes" >>"$RESULTS"
}

mdwrite() {
	local name=$1 size mm v i
	shift
	step_start "$name" zero "$@" || return 0
	size=$(md_size /dev/md1)
	md_fio /dev/md1 "${FARGS[@]}" --do_verify=0
	v=$?
	mm=$(md_check /dev/md1)
	md_stop /dev/md1
	for i in "${!HOST[@]}"; do
		dd if="${RAMS[i]}" of="${HOST[i]}" bs=1M iflag=direct status=none || v=3
	done
	echo "$name size=$size mismatch=$mm verify=$v bytes=-" >>"$RESULTS"
}
