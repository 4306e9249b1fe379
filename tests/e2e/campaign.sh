#!/usr/bin/env bash
# campaign.sh - the recovery side against what loses data, through fio: a spare that is
# another array's device (two fios, two jobs of one fio), a member failing while the state
# file's disk is full, and rebuilds, resyncs and scrubs killed with SIGKILL at several points
# (before, during and after a checkpoint), each followed by a restart and a check of every
# byte (fio's crc32c verify, or cmp of the mirror copies). Then the engine's own edges:
# 64 members, odd member and spare files, concurrency, hostile option values. Each case ends
# in a correct result, or one line naming the option or file and a non-zero exit. Every fio
# run has a timeout, so a hang fails too. docs/rebuild.md, "What is tested", lists them.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
TO=60 # seconds: far above any case here; a hang fails the case

# f ARGS...: fio with the engine, bounded by TO
f() { timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --thread=1 "$@"; }
# r1 NAME ARGS...: a RAID1 job of 8 MiB members (64 KiB blocks, crc32c verify data)
r1() {
	local name=$1
	shift
	f --name="$name" --filename=vol --raid_level=1 --raid_member_size=8m --bs=64k \
		--size=100% --verify=crc32c --verify_fatal=1 --verify_state_save=0 "$@"
}
# wait_for COND...: poll COND every 50 ms, at most 30 s
wait_for() {
	local i
	for ((i = 0; i < 600; i++)); do
		"$@" 2>/dev/null && return 0
		sleep 0.05
	done
	return 1
}

# held FILE: a process holds a flock on FILE (an array holds its members' and its state file's,
# FILE.lock, from its open until it is freed), as /proc/locks says: asking flock(1) would take
# the lock for a moment, and an array that opened in that moment was refused ("in use by
# another process": the case failed on a loaded machine)
held() {
	local dev ino
	read -r dev ino < <(stat -c '%d %i' "$1" 2>/dev/null) || return 1
	grep -q "^[0-9]*: FLOCK .* $(printf '%02x:%02x' $((dev >> 8 & 0xfff)) \
		$((dev & 0xff | dev >> 12 & 0xfff00))):$ino " /proc/locks
}

# --- a spare is never another array's device ---
# The first fio reads (a shared lock on its members) or writes (exclusive) the second half of
# its volume while a second one names its member m0 as the spare of a degraded RAID1 to
# rebuild: refused, and the first half of the first array (verify data) intact. The first runs
# 8 s: on a loaded machine the second fio's start alone took longer than 3 s, and a second
# that opens after the first has closed rightly rebuilds.
spare_of_other_fio() { # MODE: read or write (the first fio's job)
	local p=$S/o$1 pid rc
	r1 fill --raid_members="$p-m0:$p-m1" --rw=write --do_verify=0 >/dev/null || return 1
	f --name=first --filename=vol --raid_level=1 --raid_members="$p-m0:$p-m1" --rw="$1" \
		--bs=64k --offset=4m --size=1m --time_based --runtime=8 >"$p.first.log" 2>&1 &
	pid=$!
	wait_for held "$p-m0" || return 1 # the first array is open (it locks its members)
	r1 second --raid_members="$p-x0:$p-x1" --raid_failed=1 --raid_spares="$p-m0" \
		--raid_rebuild=1 --rw=read --verify=0
	rc=$?
	wait $pid || return 200
	r1 check --raid_members="$p-m0:$p-m1" --raid_failed=1 --rw=read --verify_only=1 \
		--size=4m >/dev/null || return 200 # the first array's data was written over
	return $rc
}
t_case_fail "a spare that a reading fio has open as a member is refused" \
	--msg "^raid: raid_spares: $S/oread-m0 is in use by another process" spare_of_other_fio read
t_case_fail "a spare that a writing fio has open as a member is refused" \
	--msg "^raid: raid_spares: $S/owrite-m0 is in use by another process" spare_of_other_fio write

# The same within one fio: job b's spare is job a's member, or its spare; job b's member is
# job a's member. Each names the other array.
two_jobs() { # B-OPTIONS...: job b's, besides RAID1 over its own x0:x1 (1 failed); $A: job a's
	local p=$S/j
	r1 fill --raid_members="$p-m0:$p-m1" --rw=write --do_verify=0 >/dev/null || return 1
	f --filename=vol --raid_level=1 --raid_member_size=8m --bs=64k --size=1m --rw=read \
		--time_based --runtime=1 --name=a --raid_members="$p-m0:$p-m1" --raid_spares="$p-sa" ${A:-} \
		--name=b "$@"
	local rc=$?
	r1 check --raid_members="$p-m0:$p-m1" --raid_failed=1 --rw=read --verify_only=1 >/dev/null ||
		return 200
	return $rc
}
# fio opens its jobs' arrays in no fixed order, so the later job is refused in its setup,
# before anything opens, naming the earlier job (a) and its device: always b, whatever the
# threads' order (before, whichever opened second was refused: under load that was a, and b
# rebuilt over a's member). With a stonewall between them, b runs after a has ended.
t_case_fail "two jobs: job b's spare is job a's member" \
	--msg "^raid: raid_spares: $S/j-m0 is member 0 \($S/j-m0\) of job 'a' \(raid_members $S/j-m0\.\.\.\), which runs beside this one: a rebuild would write over it" \
	two_jobs --raid_members="$S/j-x0:$S/j-x1" --raid_failed=1 --raid_rebuild=1 --raid_spares="$S/j-m0"
t_case_fail "two jobs: job b's spare is job a's member under another name" \
	--msg "^raid: raid_spares: $S/\./j-m1 is member 1 \($S/j-m1\) of job 'a'" \
	two_jobs --raid_members="$S/j-x0:$S/j-x1" --raid_failed=1 --raid_rebuild=1 --raid_spares="$S/./j-m1"
t_case_fail "two jobs: job b's spare is job a's spare" \
	--msg "^raid: raid_spares: $S/j-sa is spare 0 \($S/j-sa\) of job 'a'" \
	two_jobs --raid_members="$S/j-x0:$S/j-x1" --raid_failed=1 --raid_rebuild=1 --raid_spares="$S/j-sa"
t_case_fail "two jobs: job b's member is job a's member" \
	--msg "^raid: raid_members: $S/j-m1 is member 1 \($S/j-m1\) of job 'a' .*: an array's devices must be its own" \
	two_jobs --raid_members="$S/j-x0:$S/j-m1"
A=--raid_state="$S/j-st" t_case_fail "two jobs: job b's state file is job a's" \
	--msg "^raid: raid_state: $S/j-st is the state file of job 'a'" \
	two_jobs --raid_members="$S/j-x0:$S/j-x1" --raid_state="$S/j-st"
t_case "two jobs, b after a stonewall: b rebuilds onto a's spare once a has ended" \
	two_jobs --stonewall --raid_members="$S/j-x0:$S/j-x1" --raid_failed=1 --raid_rebuild=1 \
	--raid_spares="$S/j-sa"
# wait_for=a orders them as a stonewall does (it was refused as running beside a)
t_case "two jobs, b waits for a (wait_for): b rebuilds onto a's spare once a has ended" \
	two_jobs --wait_for=a --raid_members="$S/j-x0:$S/j-x1" --raid_failed=1 --raid_rebuild=1 \
	--raid_spares="$S/j-sa"
t_case "two jobs of one array share it" \
	two_jobs --raid_members="$S/j-m0:$S/j-m1" --raid_spares="$S/j-sa"

# --- a failure the state file cannot record (its disk is full) ---
# A writer marks the state dirty, then the state's disk fills and member 0 fails at 1 s. No
# write may be acknowledged after that (they fail with EIO): after the disk is freed, the
# restart trusts the file, which never heard of the failure (RAID1 resyncs from member 0,
# RAID5 recomputes parity over its stale data), so each write fio saw completed
# (verify_state_save) must read back. Before the fix the writes went on: 4 MiB lost.
mounts=()
trap 'for m in "${mounts[@]}"; do umount "$m"; done; rm -rf "$S"' EXIT
unrecorded() { # LEVEL N: the state file's disk is a tmpfs mounted on $S/fullLEVEL/s
	local d=$S/full$1 pid rc
	cd "$d" || return 1 # fio's verify state (local-w-0-verify.state) goes here
	f --name=w --filename=vol --raid_level="$1" --raid_members="$(members "$2" "u$1-")" \
		--raid_member_size=8m --raid_chunk=16k --bs=64k --size=8m --rw=write --rate=4m \
		--verify=crc32c --do_verify=0 --verify_state_save=1 --raid_fail=0@1 \
		--raid_state="$d/s/st.json" >"$d/w.log" 2>&1 &
	pid=$!
	wait_for jq -e '.clean == false' "$d/s/st.json" >/dev/null
	head -c 64k /dev/zero >"$d/s/filler" 2>/dev/null # the disk is full now
	wait $pid
	rc=$?
	cat "$d/w.log"
	rm "$d/s/filler"
	((rc < 128)) || return 1
	f --name=w --filename=vol --raid_level="$1" --raid_members="$(members "$2" "u$1-")" \
		--raid_member_size=8m --raid_chunk=16k --bs=64k --size=8m --rw=write \
		--verify=crc32c --verify_only=1 --verify_state_load=1 --verify_fatal=1 \
		--raid_state="$d/s/st.json" || { cd "$S" && return 1; }
	cd "$S" && ((rc != 0)) &&
		grep -q "^raid: a member failed and raid_state cannot record it: writes fail with EIO" \
			"$d/w.log"
}
for l in 1 5; do
	mkdir -p "$S/full$l/s" && mount -t tmpfs -o size=16k tmpfs "$S/full$l/s" 2>/dev/null &&
		mounts+=("$S/full$l/s")
done
if ((${#mounts[@]} == 2)); then
	t_case "raid1: a failure the full state disk cannot record stops writes, nothing lost" \
		unrecorded 1 2
	t_case "raid5: a failure the full state disk cannot record stops writes, nothing lost" \
		unrecorded 5 4
else
	echo "skipped: the full state disk cases (cannot mount a tmpfs here)"
fi

# --- rebuilds, resyncs and scrubs killed with SIGKILL, then restarted ---
# (a killed fio's io_uring workers may hold its files a moment after it is reaped)
released() { ! held "$1"; }
# kill_at SECONDS ARGS...: fio with ARGS in the background, SIGKILLed SECONDS after its array
# opened (it holds $ST.lock); echoes what the state file held then
kill_at() {
	local t=$1 pid
	shift
	wait_for released "$ST.lock" || return 1
	"$FIO" --ioengine="external:$ENGINE" --thread=1 "$@" >"$ST.log" 2>&1 &
	pid=$!
	wait_for held "$ST.lock"
	sleep "$t"
	kill -9 $pid 2>/dev/null || { grep raid: "$ST.log"; echo "fio ended before its kill"; }
	wait $pid 2>/dev/null
	echo "killed at $t s: $(jq -c '{clean, failed, replaced: [.replaced[] | {done, recovery_offset}]}' "$ST")"
}
# A RAID1 rebuild (32 MiB members, at most 8 MB/s: a checkpoint a second) under random
# writes to the first half of the volume, below the front too, killed before its first
# checkpoint, just after one and between two, resumed each time. A kill can leave a write
# that reached the survivor and not the spare, below the checkpoint (a torn write): the
# last kill's is planted (4 KiB of member 0 at offset 0), as the race is rare. A last run
# finishes the rebuild: the spare must then be the survivor byte for byte, and the verify
# data of the second half (never rewritten) must read back from the spare alone. Before the
# fix the resumed rebuild trusted the spare below the checkpoint: the planted block differed.
rebuild_killed() { # BACKEND
	local p=$S/rk-$1 arr rb off
	ST=$p.state
	arr=(--filename=vol --raid_level=1 --raid_members="$p-m0:$p-m1" --raid_member_size=32m
		--raid_backend="$1")
	rb=(--raid_state="$ST" --raid_spares="$p-s" --raid_rebuild=1 --raid_rebuild_max=8)
	f --name=fill "${arr[@]}" --rw=write --offset=50% --size=50% --bs=64k --verify=crc32c \
		--do_verify=0 --verify_state_save=0 >/dev/null || return 1
	for t in 0.3 1.2 0.8 2.5; do
		kill_at $t --name=w "${arr[@]}" "${rb[@]}" --raid_failed=1 --rw=randwrite \
			--size=50% --bs=256k --iodepth=16 --time_based --runtime=30
	done
	off=$(jget "$ST" replaced.0.recovery_offset) && ((off > 4096)) || return 1
	head -c 4096 /dev/urandom | dd of="$p-m0" conv=notrunc status=none || return 1
	wait_for released "$ST.lock" || return 1
	f --name=end "${arr[@]}" "${rb[@]}" --rw=read --size=1m >"$p.log" 2>&1 ||
		{ cat "$p.log"; return 1; }
	grep "raid: rebuild of member 1.*done" "$p.log" || return 1
	cmp "$p-m0" "$p-s" || return 1
	f --name=fill "${arr[@]}" --raid_state="$ST" --raid_failed=0 --rw=write --offset=50% \
		--size=50% --bs=64k --verify=crc32c --verify_only=1 --verify_fatal=1 \
		--verify_state_save=0 >"$p.log" 2>&1 || { cat "$p.log"; return 1; }
}
t_case "raid1 rebuild under writes, SIGKILLed 4 times around checkpoints: copies equal" \
	rebuild_killed io_uring
t_case "raid1 rebuild under writes (psync), SIGKILLed 4 times around checkpoints: copies equal" \
	rebuild_killed psync

# A resync (raid_init=resync) and a scrub repair of a RAID5, each SIGKILLed at three points
# while writes run on the second half; the restart must resync (the state is dirty), leave no
# parity mismatch, and the first half's verify data must read back degraded (member 2 out).
pass_killed() { # NAME OPTION: the pass to kill (--raid_init=resync or --raid_scrub=repair)
	local p=$S/pk-$1 arr
	ST=$p.state
	arr=(--filename=vol --raid_level=5 --raid_members="$(members 4 "pk-$1-")" --raid_chunk=16k
		--raid_member_size=16m --raid_state="$ST" --raid_rebuild_max=20)
	f --name=fill "${arr[@]}" --rw=write --size=50% --bs=48k --verify=crc32c --do_verify=0 \
		--verify_state_save=0 >/dev/null || return 1
	for t in 0.1 0.5 1.5; do
		kill_at $t --name=w "${arr[@]}" "$2" --rw=randwrite --offset=50% --size=50% \
			--bs=16k --iodepth=8 --time_based --runtime=30
	done
	wait_for released "$ST.lock" || return 1
	f --name=check "${arr[@]}" --rw=read --size=1m --raid_scrub=check --raid_stats="$p.json" \
		>"$p.log" 2>&1 || { cat "$p.log"; return 1; }
	grep -q "not shut down cleanly (writes were running): resyncing" "$p.log" || return 1
	[[ $(jget "$p.json" scrub.mismatches) == 0 ]] || return 1
	f --name=fill "${arr[@]}" --raid_failed=2 --rw=write --size=50% --bs=48k --verify=crc32c \
		--verify_only=1 --verify_fatal=1 --verify_state_save=0 >"$p.log" 2>&1 ||
		{ cat "$p.log"; return 1; }
}
t_case "raid5 resync SIGKILLed 3 times under writes: resynced, no mismatch, data intact" \
	pass_killed resync --raid_init=resync
t_case "raid5 scrub repair SIGKILLed 3 times under writes: resynced, no mismatch, data intact" \
	pass_killed repair --raid_scrub=repair

# --- 64 members ---
# A 64-member RAID6 with members 0 and 63 failed (a shift by 64 made raid_failed=0 "out of
# range"), then a restart from the state file that recorded them, which verifies the data.
M64=$(members 64 w)
r6_64() {
	f --name=w --filename=vol --raid_level=6 --raid_members="$M64" --raid_member_size=1m \
		--raid_chunk=4k --bs=248k --size=100% --rw=write --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 --raid_state="$S/w.json" "$@" || return 1
	[[ $(jq -c .failed "$S/w.json") == "[0,63]" ]] &&
		f --name=w --filename=vol --raid_level=6 --raid_members="$M64" \
			--raid_member_size=1m --raid_chunk=4k --bs=248k --size=100% --rw=write \
			--verify=crc32c --verify_only=1 --verify_fatal=1 --verify_state_save=0 \
			--raid_state="$S/w.json"
}
t_case "64-member raid6, members 0 and 63 failed, restarted from its state file" \
	r6_64 --raid_failed=0,63
t_case_fail "65 members are refused" --msg "^raid: raid_members: more than 64 paths" \
	r1 x --raid_members="$M64:$S/w64" --rw=read

# --- odd member and spare files ---
ln -s "$S/nowhere" "$S/dangling"
t_case_fail "a dangling symlink as a member, with raid_member_size" \
	--msg "^raid: raid_members: $S/dangling is a symlink to $S/nowhere, which does not exist" \
	r1 x --raid_members="$S/dangling:$S/e1" --rw=write
t_case_fail "a dangling symlink as a spare" \
	--msg "^raid: raid_spares: $S/dangling is a symlink to $S/nowhere, which does not exist" \
	r1 x --raid_members="$S/e0:$S/e1" --raid_spares="$S/dangling" --rw=read
# a member that cannot be made whole (over the file size limit) is not left behind, empty
too_big() {
	(trap '' XFSZ && ulimit -f 1024 && r1 x --raid_members="$S/big0:$S/big1" --rw=read)
	local rc=$?
	[[ ! -e $S/big0 ]] || { ls -l "$S/big0"; return 200; }
	return $rc
}
t_case_fail "a member that cannot be created whole leaves no file" \
	--msg "^raid: raid_members: cannot create $S/big0 of 8388608 bytes: File too large" too_big
nospare() {
	f --name=x --filename=vol --raid_level=1 --raid_members="$S/e0:$S/e1" --rw=read \
		--size=1m --raid_spares="$S/nosp"
	local rc=$?
	[[ ! -e $S/nosp ]] || return 200
	return $rc
}
t_case_fail "a missing spare without raid_member_size is refused, as a member is" \
	--msg "^raid: raid_spares: $S/nosp does not exist \(set raid_member_size to create it\)" nospare
# (made immutable by the case itself, and made mutable again at exit whatever happened: an
# immutable file would keep the scratch directory from being removed)
if truncate -s 8m "$S/imm1" && chattr +i "$S/imm1" 2>/dev/null && chattr -i "$S/imm1"; then
	trap 'chattr -i "$S/imm1" 2>/dev/null; for m in "${mounts[@]}"; do umount "$m"; done; rm -rf "$S"' EXIT
	immutable() {
		chattr +i "$S/imm1" || return 200
		r1 x --raid_members="$S/imm0:$S/imm1" --rw=write \
			--raid_state="$S/imm.json" --size=4k --bs=4k >"$S/imm.log" 2>&1
		local rc=$?
		chattr -i "$S/imm1"
		cat "$S/imm.log"
		grep -q raid_spares "$S/imm.log" && return 200 # none was given
		return $rc
	}
	t_case_fail "an immutable member, no spare: the member is named, not raid_spares" \
		--msg "^raid: raid_members: cannot open $S/imm1: Operation not permitted" immutable
else
	echo "skipped: the immutable member case (chattr +i does not work here)"
fi

# --- concurrency: forked jobs ---
forked() { # numjobs=2 without thread=1 writing: refused before any I/O (nothing created)
	timeout -s KILL $TO "$FIO" --ioengine="external:$ENGINE" --name=n --filename=vol \
		--raid_level=1 --raid_members="$S/n0:$S/n1" --raid_member_size=16m --rw=write \
		--bs=64k --size=100% --numjobs=2
	local rc=$?
	[[ ! -e $S/n0 ]] || { ls -l "$S/n0"; return 200; }
	return $rc
}
t_case_fail "numjobs=2 without thread=1 is refused before any write" \
	--msg "^raid: numjobs=2 without thread=1 would write one array from 2 processes" forked

# --- a full file system under a spare ---
# ENOSPC on the spare being rebuilt: the line names the spare, not the member it replaces.
mkdir -p "$S/spfull"
if mount -t tmpfs -o size=64k tmpfs "$S/spfull" 2>/dev/null; then
	mounts+=("$S/spfull")
	spare_full() {
		r1 fill --raid_members="$S/g0:$S/g1" --rw=write --do_verify=0 >/dev/null || return 1
		r1 x --raid_members="$S/g0:$S/g1" --raid_failed=1 --raid_spares="$S/spfull/s" \
			--raid_rebuild=1 --rw=read --verify_only=1
	}
	t_case_fail "ENOSPC on the spare: the line names the spare" \
		--msg "^raid: spare $S/spfull/s \(rebuilding member 1\): write of [0-9]+ bytes at offset [0-9]+ failed: No space left on device" \
		spare_full
else
	echo "skipped: the full spare case (cannot mount a tmpfs here)"
fi

# --- hostile option values: one line naming the option each ---
hv() { # NAME MESSAGE OPTIONS...
	local name=$1 msg=$2
	shift 2
	t_case_fail "hostile value: $name" --msg "^raid: $msg" \
		r1 x --raid_members="$S/e0:$S/e1" --rw=read "$@"
}
hv "raid_chunk=3k" "raid_chunk: '3k' is not a power of two" --raid_level=5 \
	--raid_members="$S/e0:$S/e1:$S/e2" --raid_chunk=3k
hv "raid_chunk=1g" "raid_chunk: '1g' is not a power of two" --raid_chunk=1g
hv "raid_member_size=0" "raid_member_size: '0' is not a size" --raid_member_size=0
hv "raid_member_size=1" "raid_members: the members \(1 bytes\) are smaller" --raid_member_size=1
hv "an empty member path" "raid_members: empty path in" --raid_members="$S/e0::$S/e1"
hv "an empty spare path" "raid_spares: empty path in" --raid_spares="$S/sx:"
hv "raid_failed=-1" "raid_failed: '-1' is not a ','-separated list" --raid_failed=-1
hv "raid_failed=0,1 on RAID1 of 2" "raid_failed: the array has lost more than" --raid_failed=0,1
hv "raid_rebuild_min above max" "raid_rebuild_min: 300 MB/s is above raid_rebuild_max" \
	--raid_rebuild_min=300 --raid_rebuild_max=100
hv "raid_rebuild_max=0" "raid_rebuild_max: '0' is not a rate" --raid_rebuild_max=0
hv "raid_level=7" "raid_level: '7' is not one of" --raid_level=7
hv "raid_scrub=fix" "raid_scrub: " --raid_scrub=fix
hv "raid_init=zero" "raid_init: " --raid_init=zero
hv "raid_fail of a member out of range" "raid_fail: member 2 is out of range" --raid_fail=2@1

# --- the tools a new user meets ---
# The README's raid-mdadm example names devices that do not exist here: the line is printed
# (and what each device must hold is said on stderr); without raid_member_size, one line.
readme_mdadm() {
	"$ROOT/build/bin/raid-mdadm" raid_level=5 raid_members=/nonexistent/a:/nonexistent/b:/nonexistent/c \
		raid_chunk=64k raid_member_size=1000g >"$S/md.out" || return 1
	cat "$S/md.out"
	grep -qx "mdadm --create /dev/md0 --run --metadata=1.0 --assume-clean --level=5 --raid-devices=3 --chunk=64 --layout=left-symmetric --size=1048576000 --bitmap=none /nonexistent/a /nonexistent/b /nonexistent/c" \
		"$S/md.out"
}
t_case "raid-mdadm: the README's example, devices not made yet" readme_mdadm
t_case_fail "raid-mdadm: devices not made yet and no raid_member_size" \
	--msg "^raid-mdadm: raid_members: /nonexistent/a: No such file or directory \(give raid_member_size" \
	"$ROOT/build/bin/raid-mdadm" raid_level=1 raid_members=/nonexistent/a:/nonexistent/b
# raid-tool levels: a header on a terminal (script gives it one), the bare lines in a pipe
levels_header() {
	script -qc "$ROOT/build/bin/raid-tool levels" /dev/null | head -1 | tr -d '\r' |
		grep -x "LEVEL NAME MIN_MEMBERS MAX_FAILED PARITY COPIES USES_CHUNK DEFAULT_LAYOUT LAYOUTS" &&
		"$ROOT/build/bin/raid-tool" levels | head -1 | grep -q "^0 raid0 "
}
if command -v script >/dev/null; then
	t_case "raid-tool levels: headers on a terminal, none in a pipe" levels_header
else
	echo "skipped: the raid-tool header case (no script(1) here)"
fi

t_done
