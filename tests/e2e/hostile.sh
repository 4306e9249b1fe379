#!/usr/bin/env bash
# hostile.sh - a demanding user's campaign against the recovery side, through fio: state
# files wrong in every way (empty, truncated, a directory, under a file, fields null or of
# the wrong type, two members rebuilt onto one spare), members and spares that are the same
# file under other names, not files, or too small, raid_fail and raid_inject that do not
# parse, two arrays of one fio sharing a state file, a full disk under the state file, and
# writers killed with SIGKILL at random points followed by a degraded and an optimal start.
# Each case must end in a correct result or one line naming the option or file and a
# non-zero exit (t_case_fail: never exit 0 after an error, never a signal or a crash);
# every fio run has a timeout, so a hang fails too. docs/rebuild.md lists the cases.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
M4=$S/m0:$S/m1:$S/m2:$S/m3
TO=60 # seconds: far above any case here; a hang fails the case

# run ARGS...: a short read job over the RAID5 of m0..m3 (8 MiB members)
run() {
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --name=h \
		--filename=vol --raid_level=5 --raid_members="$M4" --raid_member_size=8m \
		--raid_chunk=16k --rw=read --bs=64k --size=1m "$@"
}
# state TEXT: the state file holds TEXT; then run with it
state() {
	printf '%s' "$1" >"$S/st.json"
	shift
	run --raid_state="$S/st.json" "$@"
}
F="raid: raid_state: $S/st.json: "
# fixtures: the members (made by the first run), a directory, a FIFO, a symlink and a hard
# link to m0, a spare too small
run >/dev/null 2>&1 || { echo "the plain array does not run"; exit 1; }
mkdir "$S/d" && mkfifo "$S/fifo" && ln -s "$S/m0" "$S/ln" && ln "$S/m0" "$S/hl" && truncate -s 4k "$S/small" ||
	exit 1

# --- the state file as input ---
t_case_fail "state file empty" --msg "^${F}not a JSON state file \(truncated" state ''
t_case_fail "state file truncated" --msg "^${F}not a JSON state file \(truncated" \
	state '{"version": 2, "members": 4, "clean": tr'
t_case_fail "state file: a second value after the first" \
	--msg "^${F}not a JSON state file \(more follows its value\)" \
	state '{"members": 4} {"members": 5}'
t_case_fail "state file nested 10000 deep" --msg "^${F}not a JSON state file" \
	state "$(printf '%.0s[' {1..10000})"
t_case_fail "state file is a directory" --msg "^raid: raid_state: $S/d: cannot read it: Is a directory" \
	run --raid_state="$S/d"
t_case_fail "state file is a FIFO" --msg "^raid: raid_state: $S/fifo: cannot read it: not a regular file" \
	run --raid_state="$S/fifo"
t_case_fail "state file under a regular file" \
	--msg "^raid: raid_state: $S/st.json/x: cannot read it: Not a directory" \
	run --raid_state="$S/st.json/x"
t_case_fail "state: members null" --msg "^${F}\"members\" is not an integer" \
	state '{"members": null}'
t_case_fail "state: clean null" --msg "^${F}\"clean\" is not true or false" \
	state '{"members": 4, "clean": null}'
t_case_fail "state: failed null" --msg "^${F}\"failed\" is not an array" \
	state '{"members": 4, "failed": null}'
t_case_fail "state: members 4.0" --msg "^${F}\"members\" is not an integer" state '{"members": 4.0}'
t_case_fail "state: version \"2\"" --msg "^${F}\"version\" is not an integer" \
	state '{"members": 4, "version": "2"}'
t_case_fail "state: offset beyond 64 bits" \
	--msg "^${F}\"recovery_offset\" is 18446744073709551615, outside" \
	state "{\"members\": 4, \"replaced\": [{\"member\": 1, \"spare\": \"$S/sp9\", \"done\": false, \"recovery_offset\": 99999999999999999999}]}"
t_case_fail "state: two members rebuilt onto one spare" \
	--msg "^${F}the spare of member 2, $S/sp, is also the spare of member 1" \
	state "{\"members\": 4, \"replaced\": [{\"member\": 1, \"spare\": \"$S/sp\", \"done\": false}, {\"member\": 2, \"spare\": \"$S/sp\", \"done\": false}]}"
t_case_fail "state: a done spare that is another member" --msg "^${F}the spare of member 1, $S/m2, is member 2" \
	state "{\"members\": 4, \"replaced\": [{\"member\": 1, \"spare\": \"$S/m2\", \"done\": true}]}"

t_case_fail "state file is a member" \
	--msg "^raid: raid_state: $S/m1: it is member 1: the state file must be a file of its own" \
	run --raid_state="$S/m1"
t_case_fail "state file is a member not made yet, under another name" \
	--msg "^raid: raid_state: $S/./new1: it is member 1: the state file must be a file of its own" \
	run --raid_members="$S/m0:$S/new1:$S/m2:$S/m3" --raid_state="$S/./new1"
t_case_fail "stats file is a member" \
	--msg "^raid: raid_stats: $S/m2 is member 2 \($S/m2\): it would be written over" \
	run --raid_stats="$S/m2"
t_case_fail "stats file is the spare" \
	--msg "^raid: raid_stats: $S/sp0 is spare 0 \($S/sp0\): it would be written over" \
	run --raid_spares="$S/sp0" --raid_stats="$S/sp0"

# --- members and spares ---
# member_case NAME M1 MESSAGE: member 1 is M1; refused with "raid: raid_members: MESSAGE"
member_case() {
	t_case_fail "$1" --msg "^raid: raid_members: $3" run --raid_members="$S/m0:$2:$S/m2:$S/m3"
}
member_case "member named twice" "$S/m0" "$S/m0 and $S/m0 are the same file named twice"
member_case "member under two names" "$S/./m0" "$S/m0 and $S/./m0 are the same file under two"
member_case "member through a symlink" "$S/ln" "$S/m0 and $S/ln are the same file under two"
member_case "member through a hard link" "$S/hl" "$S/m0 and $S/hl are the same file under two"
member_case "member a directory" "$S/d" "$S/d is not a file or a block device"
member_case "member /dev/null" /dev/null "/dev/null is not a file or a block device"
nosize() {
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --name=h \
		--filename=vol --raid_level=1 --raid_members="$S/m0:$S/none" --rw=read --size=1m
}
t_case_fail "member missing, no size" \
	--msg "^raid: raid_members: $S/none does not exist \(set raid_member_size" nosize
# spare_case NAME SPARE MESSAGE: refused with "raid: raid_spares: MESSAGE"
spare_case() { t_case_fail "$1" --msg "^raid: raid_spares: $3" run --raid_spares="$2"; }
spare_case "spare named as a member" "$S/m1" "$S/m1 is named twice"
spare_case "spare a member under another name" "$S/./m1" "$S/./m1 is the same file as member $S/m1"
spare_case "spare too small" "$S/small" "$S/small holds 4096 bytes, less than a member"
spare_case "spare a directory" "$S/d" "$S/d is not a file or a block device"

# --- raid_fail and raid_inject ---
for v in '1@' '@5' '1@-1' 'x@1' '1@5,' '1@5 ' '1' '1@1,,2@1' '1@inf' '1@nan' '1@1e999'; do
	t_case_fail "raid_fail='$v'" --msg "^raid: raid_fail: '$v' is not IDX@SECONDS" run --raid_fail="$v"
done
t_case_fail "raid_fail member out of range" --msg "^raid: raid_fail: member 9 is out of range \(0..3\)" \
	run --raid_fail=9@1
for v in '1:read' '1:read:' '1:read:101' '1:erase:5' '1:read:5,'; do
	t_case_fail "raid_inject='$v'" --msg "^raid: raid_inject: '$v' is not IDX:read\|write:PERCENT" \
		run --raid_inject="$v"
done

# --- two arrays of one fio, one state file ---
# The later job (two) is refused at fio's setup, naming the earlier (one), before either opens:
# never the earlier, whichever thread opens first (raid_config_clash).
shared_state() {
	rm -f "$S/sh.json"
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --filename=vol \
		--raid_level=1 --raid_member_size=1m --rw=read --size=64k --time_based \
		--runtime=2 --raid_state="$S/sh.json" \
		--name=one --raid_members="$S/a0:$S/a1" --name=two --raid_members="$S/b0:$S/b1"
}
t_case_fail "two arrays of one fio share a state file" \
	--msg "^raid: raid_state: $S/sh.json is the state file of job 'one' \(raid_members $S/a0\.\.\.\), which runs beside this one" shared_state

# --- two fio processes, two arrays, one state file, started at once ---
# The first writes for 5 s and holds the file (its lock, two.json.lock) from its open; its dirty
# mark, written then, says it does. The second, over other members, is refused while it does, and the file is
# the first array's record at the end, clean.
two_processes() {
	local pid rc i
	rm -f "$S/two.json" "$S/two.json.lock"
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --name=one \
		--filename=vol --raid_level=1 --raid_member_size=1m --rw=write --size=64k \
		--time_based --runtime=5 --raid_state="$S/two.json" --raid_members="$S/a0:$S/a1" \
		>"$S/two-first.log" 2>&1 &
	pid=$!
	for ((i = 0; i < 300; i++)); do # until it has marked the file dirty (at most 30 s)
		[[ -e $S/two.json ]] && break
		sleep 0.1
	done
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --name=two \
		--filename=vol --raid_level=1 --raid_member_size=1m --rw=read --size=64k \
		--raid_state="$S/two.json" --raid_members="$S/b0:$S/b1"
	rc=$?
	wait $pid || return 200
	jq -e --arg ino "$(stat -c %i "$S/a0")" \
		'.clean == true and (.devices[0].id | split(":")[3]) == $ino' "$S/two.json" >/dev/null ||
		return 200
	return $rc
}
t_case_fail "two fio processes, two arrays, one state file: the second is refused" \
	--msg "^raid: raid_state: $S/two.json is in use by another process \\(it holds $S/two.json.lock\\)" \
	two_processes

# --- a full disk under the state file, read-only members (need mount: as root) ---
# mounted MOUNT-POINT...: the mounts made here, undone at exit
mounts=()
trap 'for m in "${mounts[@]}"; do umount "$m"; done; rm -rf "$S"' EXIT
mkdir -p "$S/full" "$S/rw" "$S/ro"
if mount -t tmpfs -o size=8k tmpfs "$S/full" 2>/dev/null; then
	mounts+=("$S/full")
	full_disk() {
		local d=$S/full rc
		run --raid_state="$d/st.json" >"$S/full.log" 2>&1 || return 200 # clean, at the end
		head -c 8192 /dev/zero >"$d/filler" 2>/dev/null              # the disk is full now
		timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 --name=w \
			--filename=vol --raid_level=5 --raid_members="$M4" --raid_member_size=8m \
			--raid_chunk=16k --rw=write --bs=64k --size=1m --raid_state="$d/st.json"
		rc=$?
		jq -e '.clean == true' "$d/st.json" >/dev/null || rc=200 # the old file is intact
		return $rc
	}
	t_case_fail "disk full under the state file: the writer is refused, the file intact" \
		--msg "^raid: raid_state: cannot mark $S/full/st.json dirty before the first write: No space left on device" \
		full_disk
	# run.sh writes run.json and meta.json through raid-json's stdout: on the full disk
	# it must fail (it exited 0 with an empty file)
	json_full() { "$ROOT/build/bin/raid-json" obj a:i=1 >"$S/full/j.json"; }
	t_case_fail "disk full under raid-json's output: it fails, naming it" \
		--msg "^raid-json: cannot write its output: No space left on device" json_full
else
	echo "skipped: the full-disk case (cannot mount a tmpfs here)"
fi
if truncate -s 8m "$S"/rw/r{0,1} && mount --bind "$S/rw" "$S/ro" 2>/dev/null &&
	mounts+=("$S/ro") && mount -o remount,ro,bind "$S/ro" 2>/dev/null; then
	RO=$S/ro/r0:$S/ro/r1
	t_case_fail "read-only members: a writer is refused, naming the member" \
		--msg "^raid: raid_members: cannot open $S/ro/r0: Read-only file system" \
		run --raid_level=1 --raid_members="$RO" --rw=write
	t_case "read-only members: a reader runs" run --raid_level=1 --raid_members="$RO"
else
	echo "skipped: the read-only member cases (cannot make a read-only bind mount here)"
fi

# --- writers killed at random points: a degraded start, then an optimal one ---
# The first half of the volume is filled once with verify data and never written again; a
# writer rewrites the second half until SIGKILL. The degraded start must be refused as
# dirty; the optimal start resyncs (no parity mismatch after), and then a degraded start
# reads the first half right.
killed() { # LEVEL N FAILED
	local l=$1 n=$2 f=$3 p=k$1- pid i
	local base=(--filename=vol --raid_level="$l" --raid_members="$(members "$n" $p)"
		--raid_member_size=8m --raid_chunk=16k --bs=16k --raid_state="$S/$p.state")
	tf() { timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 "${base[@]}" "$@"; }
	tf --name=fill --rw=write --size=100% --verify=crc32c --do_verify=0 \
		--verify_state_save=0 --raid_init=resync >/dev/null || return 1
	# fio itself in the background (its runtime bounds it), killed at a random point once
	# the array is open for writing (the dirty mark is on disk)
	"$FIO" --ioengine="external:$ENGINE" --thread=1 "${base[@]}" --name=w --rw=randwrite \
		--offset=50% --size=50% --iodepth=16 --time_based --runtime=20 >/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 100; i++)); do
		jq -e '.clean == false' "$S/$p.state" >/dev/null 2>&1 && break
		sleep 0.05
	done
	sleep "0.$((RANDOM % 6))"
	kill -9 $pid
	wait $pid 2>/dev/null
	echo "writer killed; the state says clean: $(jq .clean "$S/$p.state")"
	# RAID1 has no parity to be stale: its dirty degraded start may run (the state file keeps
	# the member failed); RAID5/6 must refuse it
	if ((l != 1)); then
		if tf --name=deg --rw=read --size=50% --raid_failed="$f" >"$S/$p.log" 2>&1; then
			cat "$S/$p.log"
			echo "a dirty degraded start was not refused"
			return 1
		fi
		grep -q "not shut down cleanly and is degraded.*raid_start_dirty_degraded=1" \
			"$S/$p.log" || { cat "$S/$p.log"; return 1; }
	fi
	tf --name=opt --rw=read --size=100% --raid_scrub=check --raid_stats="$S/$p.json" \
		>"$S/$p.log" 2>&1 || { cat "$S/$p.log"; return 1; }
	grep -q "not shut down cleanly (writes were running): resyncing" "$S/$p.log" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	tf --name=check --rw=read --size=50% --raid_failed="$f" --verify=crc32c --verify_only=1 \
		--verify_state_save=0 --verify_fatal=1 >"$S/$p.log" 2>&1 || { cat "$S/$p.log"; return 1; }
}
t_case "raid5 writer killed: degraded start refused, resync, degraded verify" killed 5 4 2
t_case "raid6 writer killed: degraded start refused, resync, degraded verify" killed 6 5 1
t_case "raid1 writer killed: resync, degraded verify" killed 1 2 0

t_done
