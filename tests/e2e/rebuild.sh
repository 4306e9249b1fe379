#!/usr/bin/env bash
# rebuild.sh - rebuild onto hot spares, failures during a run, error injection, an
# interrupted rebuild resumed from the state file, scrub and initial resync, end to end
# through fio: data checked by fio's crc32c verify and member bytes compared with cmp.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
MS=8m


# job NAME LEVEL N PREFIX ARGS...: one fio job over members PREFIX0..N-1 with verify data
job() {
	local name=$1 level=$2 n=$3 p=$4
	shift 4
	fio_raid --name="$name" --filename=vol --raid_level="$level" \
		--raid_members="$(members "$n" "$p")" --raid_member_size=$MS --raid_chunk=16k \
		--bs=8k --size=100% --verify=crc32c --verify_fatal=1 --verify_state_save=0 \
		--raid_rebuild_min=200 --raid_rebuild_max=2000 "$@" >"$S/$name.log" 2>&1
	local rc=$?
	cat "$S/$name.log"
	return $rc
}
# bg_job: job in the background with fio itself as $BG_PID (so signals reach fio)
bg_job() {
	local name=$1 level=$2 n=$3 p=$4
	shift 4
	"$FIO" --ioengine="external:$ENGINE" --thread=1 --name="$name" --filename=vol \
		--raid_level="$level" --raid_members="$(members "$n" "$p")" --raid_member_size=$MS \
		--raid_chunk=16k --bs=8k --size=100% --verify=crc32c --verify_fatal=1 \
		--verify_state_save=0 --raid_rebuild_min=200 --raid_rebuild_max=2000 "$@" \
		>"$S/$name.log" 2>&1 &
	BG_PID=$!
}
fill() { job fill "$@" --rw=write --do_verify=0; }
check() { job check "$@" --rw=read --verify_only=1; }

# resumes_from_checkpoint PREFIX HOW: the state file of a stopped RAID1 rebuild holds a
# checkpoint inside the member, and the next run resumes there and ends with the lost copy.
resumes_from_checkpoint() {
	local p=$1 off
	off=$(jget "$S/$p.state" replaced.0.recovery_offset) || return 1
	echo "$2 with the checkpoint at $off bytes"
	((off > 0 && off < 32 * 1024 * 1024)) || return 1
	MS=32m check 1 2 $p --raid_state="$S/$p.state" --raid_rebuild=1 --raid_spares="$S/${p}s" ||
		return 1
	grep -q "resumed from the state file" "$S/check.log" && cmp "$S/lost" "$S/${p}s"
}

# A rebuild onto a spare while fio verifies everything: the spare ends as the lost member
# was, and the array serves from it afterwards (the state file names the spare as member).
rebuild_exact() { # LEVEL N FAIL
	local l=$1 n=$2 f=$3 p=x$1-
	fill "$l" "$n" $p || return 1
	cp "$S/$p$f" "$S/lost" || return 1
	check "$l" "$n" $p --raid_failed="$f" --raid_spares="$S/${p}s" --raid_rebuild=1 \
		--raid_state="$S/$p.state" --raid_stats="$S/$p.json" || return 1
	cmp "$S/lost" "$S/${p}s" || return 1
	[[ $(jget "$S/$p.json" rebuild.done) == true ]] || return 1
	grep -q '"done": true' "$S/$p.state" || return 1
	# after: the buddy of the rebuilt member fails; reads must come from the spare
	local other=$(((f ^ 1) % n))
	((l == 1)) && other=0
	check "$l" "$n" $p --raid_state="$S/$p.state" --raid_failed=$other
}
t_case "raid1 rebuild: spare identical, verify during and after" rebuild_exact 1 2 1
t_case "raid10 rebuild: spare identical, verify during and after" rebuild_exact 10 4 2
t_case "raid5 rebuild: spare identical, verify during and after" rebuild_exact 5 4 1
t_case "raid6 rebuild: spare identical, verify during and after" rebuild_exact 6 5 2

# RAID6 loses two members: both rebuilt at once, each spare identical.
rebuild_two() {
	local p=two-
	fill 6 6 $p || return 1
	cp "$S/${p}1" "$S/lost1" && cp "$S/${p}4" "$S/lost4" || return 1
	check 6 6 $p --raid_failed=1,4 --raid_spares="$S/${p}s0:$S/${p}s1" --raid_rebuild=1 \
		--raid_state="$S/$p.state" || return 1
	cmp "$S/lost1" "$S/${p}s0" && cmp "$S/lost4" "$S/${p}s1" || return 1
	check 6 6 $p --raid_state="$S/$p.state" --raid_failed=0,2
}
t_case "raid6 two members rebuilt at once: spares identical" rebuild_two

# A member failed mid-run under random writes (depth 32, 4 jobs): verify passes degraded,
# then during the rebuild onto a spare, then from the spare alone. The verify during the
# rebuild reads with 4 jobs and an unthrottled rebuild, so that the rebuild ends while
# degraded reads wait for their stripe locks (such a read once came back with stale bytes).
fail_midrun() { # LEVEL N
	local l=$1 n=$2 p=f$1-
	job w "$l" "$n" $p --rw=randwrite --iodepth=32 --numjobs=4 --size=25% \
		--offset_increment=25% --rate_iops=300 --raid_fail=1@0.3 \
		--raid_state="$S/$p.state" --do_verify=1 || return 1
	grep -q "raid_fail: failing member 1" "$S/w.log" || return 1
	[[ $(jget "$S/$p.state" failed) == "[1]" ]] || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state" || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state" --raid_spares="$S/${p}s" --raid_rebuild=1 \
		--iodepth=32 --numjobs=4 --raid_rebuild_min=2000 || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state" --raid_failed=0
}
t_case "raid1 member failed mid-run (qd32, 4 jobs): degraded, rebuild, after" fail_midrun 1 2
t_case "raid10 member failed mid-run (qd32, 4 jobs): degraded, rebuild, after" fail_midrun 10 4
t_case "raid5 member failed mid-run (qd32, 4 jobs): degraded, rebuild, after" fail_midrun 5 4
t_case "raid6 member failed mid-run (qd32, 4 jobs): degraded, rebuild, after" fail_midrun 6 5

# Writes during the rebuild: the spare gets every write below the front, so it ends equal
# to its surviving mirror.
writes_during() {
	local p=wd-
	fill 1 2 $p || return 1
	job wd 1 2 $p --rw=randwrite --iodepth=16 --numjobs=2 --size=50% --offset_increment=50% \
		--raid_failed=1 --raid_spares="$S/${p}s" --raid_rebuild=1 --raid_rebuild_min=20 \
		--raid_rebuild_max=40 --do_verify=1 || return 1
	cmp "$S/${p}0" "$S/${p}s"
}
t_case "raid1 writes during the rebuild reach the spare" writes_during

# A write that lands below the rebuild front must reach the spare (the rebuild has already
# passed it and will not copy it again). The writer's exec_prerun holds its I/O until the
# state file's checkpoint (which trails the front) is past 4 MiB, and notes that offset; the
# job then rewrites the first MiB with a pattern the fill never wrote. (fio runs in the
# scratch directory: it writes the prerun's output to ./bf.prerun.txt.)
below_front() { # LEVEL N
	local l=$1 n=$2 p=bf$1- at
	MS=16m fill "$l" "$n" $p || return 1
	(cd "$S" && MS=16m job bf "$l" "$n" $p --rw=write --size=1m --verify=0 --buffer_pattern=0x5a \
		--raid_failed=1 --raid_spares="$S/${p}s" --raid_rebuild=1 --raid_rebuild_min=4 \
		--raid_rebuild_max=4 --raid_state="$S/$p.state" --exec_prerun="sh -c 'i=0; \
		until o=\$(jq -e \".replaced[0].recovery_offset | select(. >= 4194304)\" \
		$S/$p.state 2>/dev/null); do i=\$((i + 1)); [ \$i -lt 200 ] || exit 1; \
		sleep 0.05; done; echo \$o >$S/$p.front'") || return 1
	at=$(cat "$S/$p.front" 2>/dev/null)
	echo "the write began with the checkpoint at ${at:-?} bytes"
	[[ -n $at ]] && ((at >= 4 << 20)) || return 1
	# the first MiB holds the pattern, on the surviving copy and on the spare alike
	cmp -n $((1 << 20)) "$S/${p}0" <(head -c $((1 << 20)) /dev/zero | tr '\0' '\132') ||
		return 1
	cmp -n $((1 << 20)) "$S/${p}0" "$S/${p}s"
}
t_case "raid1 a write below the rebuild front reaches the spare" below_front 1 2

# Parity levels: writes during the rebuild (rows below the front are rebuilt again), then
# no parity mismatch, and reads that need the spare return what was written.
writes_during56() { # LEVEL N
	local p=wd$1- l=$1 n=$2
	job fill "$l" "$n" $p --rw=write --do_verify=0 --raid_init=resync >/dev/null || return 1
	job wd "$l" "$n" $p --rw=randwrite --iodepth=16 --numjobs=2 --size=50% \
		--offset_increment=50% --raid_failed=1 --raid_spares="$S/${p}s" --raid_rebuild=1 \
		--raid_rebuild_min=10 --raid_rebuild_max=20 --raid_state="$S/$p.state" \
		--do_verify=1 || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state" --raid_scrub=check --raid_stats="$S/$p.json" \
		--size=50% --numjobs=2 --offset_increment=50% || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state" --raid_failed=0 --size=50% --numjobs=2 \
		--offset_increment=50%
}
t_case "raid5 writes during the rebuild: parity clean, spare right" writes_during56 5 4
t_case "raid6 writes during the rebuild: parity clean, spare right" writes_during56 6 5

# A resync asked for on a degraded array (raid_init=resync, no state file) waits for the spare
# to complete the array and then runs, as md's pending resync: a row torn at a crash (4 KiB
# of member 0 changed under its parity) is whole after the rebuild (issue 44's torture, seed
# 258570956: the spare rebuilt from the stale parity, and the clean array had a mismatch).
resync_owed() {
	local p=ro-
	fill 6 5 $p >/dev/null || return 1
	head -c 4096 /dev/urandom | dd of="$S/${p}0" bs=4k seek=1 conv=notrunc status=none
	job ro 6 5 $p --rw=read --verify=0 --raid_failed=4 --raid_spares="$S/${p}s" \
		--raid_rebuild=1 --raid_init=resync --raid_stats="$S/$p.json" >/dev/null || return 1
	[[ $(jget "$S/$p.json" resync.bytes) -gt 0 ]] || return 1
	cp "$S/${p}s" "$S/${p}4" || return 1
	job sc 6 5 $p --rw=read --verify=0 --raid_scrub=check --raid_stats="$S/$p.2.json" \
		>/dev/null || return 1
	echo "mismatches after: $(jget "$S/$p.2.json" scrub.mismatches)"
	[[ $(jget "$S/$p.2.json" scrub.mismatches) == 0 ]]
}
t_case "raid6 raid_init=resync while degraded: runs once the spare completes the array" resync_owed

# Injected errors: the member leaves the array, the request is retried from the other copy,
# fio never sees an error nor wrong data.
inject() { # LEVEL N OP
	local p=i$1$3-
	fill "$1" "$2" $p || return 1
	check "$1" "$2" $p --raid_inject=1:$3:20 --raid_stats="$S/$p.json" || return 1
	grep -q "member 1 (.*) failed" "$S/check.log" &&
		[[ $(jget "$S/$p.json" failed) == "[1]" ]]
}
inject_write() {
	local p=iw-
	job iw 10 4 $p --rw=randwrite --raid_inject=0:write:10 --do_verify=1 \
		--raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" failed) == "[0]" ]]
}
t_case "raid1 read errors injected: retried, verify passes" inject 1 2 read
t_case "raid10 read errors injected: retried, verify passes" inject 10 4 read
t_case "raid5 read errors injected: retried, verify passes" inject 5 4 read
t_case "raid6 read errors injected: retried, verify passes" inject 6 5 read
t_case "raid10 write errors injected: verify passes" inject_write

# Beyond tolerance: reads fail with EIO and one message; nothing written is harmed.
beyond() {
	local p=b-
	fill 1 2 $p || return 1
	check 1 2 $p --raid_inject=0:read:100,1:read:100 --verify_fatal=0 && return 1
	[[ $(grep -c "every copy is on a failed member" "$S/check.log") == 1 ]] || return 1
	check 1 2 $p
}
t_case "raid1 errors on every copy: EIO and one message, data intact" beyond

# slow_rebuild P MBPS RUNTIME: RAID1 x2 of 32 MiB filled, member 1 saved as lost and
# rebuilt onto P's spare at MBPS by a background fio (BG_PID) reading for RUNTIME seconds
slow_rebuild() {
	local p=$1
	MS=32m fill 1 2 $p || return 1
	cp "$S/${p}1" "$S/lost"
	MS=32m bg_job slow 1 2 $p --rw=read --raid_failed=1 --raid_spares="$S/${p}s" \
		--raid_rebuild=1 --raid_rebuild_max="$2" --raid_rebuild_min="$2" \
		--raid_state="$S/$p.state" --time_based --runtime="$3" --verify=0
}

# fio killed during a rebuild: the next run resumes from the state file's checkpoint.
resume() {
	local p=k- pid off
	slow_rebuild $p 6 30 || return 1
	pid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		grep -q '"recovery_offset": [1-9]' "$S/$p.state" 2>/dev/null && break
	done
	kill -9 $pid
	wait $pid 2>/dev/null
	resumes_from_checkpoint "$p" killed
}
t_case "killed rebuild resumes from the state file" resume

# Scrub: every corrupted copy is counted, repair rewrites it, a second check finds none.
scrub() { # LEVEL N
	local p=s$1- unit=$((64 * 1024))
	(($1 == 10)) && unit=$((16 * 1024))
	fill "$1" "$2" $p || return 1
	for blk in 3 17 40; do # distinct units of member 1
		printf 'garbage' | dd of="$S/${p}1" bs=1 seek=$((blk * unit + 100)) conv=notrunc \
			status=none
	done
	# reads may pick the bad copy until it is repaired (md's too): no verify before that
	check "$1" "$2" $p --raid_scrub=check --raid_stats="$S/$p.json" --verify=0 || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 3 ]] || return 1
	check "$1" "$2" $p --raid_scrub=repair --raid_stats="$S/$p.json" --verify=0 || return 1
	[[ $(jget "$S/$p.json" scrub.repaired) == 3 ]] || return 1
	check "$1" "$2" $p --raid_scrub=check --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	check "$1" "$2" $p --raid_failed=0
}
t_case "raid1 scrub finds and repairs corrupted copies" scrub 1 2
t_case "raid10 scrub finds and repairs corrupted copies" scrub 10 4

# Parity scrub: P blocks corrupted on purpose (md's left-symmetric: P of row r on member
# n-1-r%n) are all found, repair rewrites them, data reads stay right.
scrub56() { # LEVEL N
	local p=sp$1- c=$((16 * 1024)) n=$2 r
	job fill "$1" "$n" $p --rw=write --do_verify=0 --raid_init=resync >/dev/null || return 1
	for r in 3 17 40 41; do
		printf 'garbage' | dd of="$S/$p$((n - 1 - r % n))" bs=1 seek=$((r * c + 100)) \
			conv=notrunc status=none
	done
	check "$1" "$n" $p --raid_scrub=check --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 4 ]] || return 1
	check "$1" "$n" $p --raid_scrub=repair --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" scrub.repaired) == 4 ]] || return 1
	check "$1" "$n" $p --raid_scrub=check --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	check "$1" "$n" $p --raid_failed=0
}
t_case "raid5 scrub finds and repairs corrupted parity" scrub56 5 4
t_case "raid6 scrub finds and repairs corrupted parity" scrub56 6 5

# Initial resync over members full of random bytes: no mismatch after, degraded reads right.
resync() { # LEVEL N
	local p=r$1- i
	for ((i = 0; i < $2; i++)); do head -c $MS /dev/urandom >"$S/$p$i"; done
	job rs "$1" "$2" $p --rw=write --size=50% --do_verify=0 --raid_init=resync || return 1
	grep -q "resync done" "$S/rs.log" || return 1
	check "$1" "$2" $p --size=50% --raid_scrub=check --raid_stats="$S/$p.json" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	check "$1" "$2" $p --size=50% --raid_failed=0
}
t_case "raid1 resync over random members: clean, degraded reads right" resync 1 2
t_case "raid10 resync over random members: clean, degraded reads right" resync 10 4
t_case "raid5 resync over random members: clean, degraded reads right" resync 5 4
t_case "raid6 resync over random members: clean, degraded reads right" resync 6 5

# A second member fails while the first is rebuilt (raid_fail fires inside the pass, not
# after it): RAID6 and RAID10 keep serving verified data, rebuild both onto spares.
second_fails() { # LEVEL N FIRST SECOND
	local l=$1 n=$2 f=$3 g=$4 p=sf$1-
	fill "$l" "$n" $p || return 1
	cp "$S/$p$f" "$S/lost$f" && cp "$S/$p$g" "$S/lost$g" || return 1
	check "$l" "$n" $p --raid_failed="$f" --raid_spares="$S/${p}s0:$S/${p}s1" \
		--raid_rebuild=1 --raid_rebuild_min=4 --raid_rebuild_max=4 --raid_fail="$g@0.5" \
		--raid_state="$S/$p.state" || return 1
	local fired done1
	fired=$(grep -n "raid_fail: failing member $g" "$S/check.log" | cut -d: -f1)
	done1=$(grep -n "rebuild of member $f .* done" "$S/check.log" | cut -d: -f1)
	[[ -n $fired && -n $done1 ]] && ((fired < done1)) || return 1
	cmp "$S/lost$f" "$S/${p}s0" && cmp "$S/lost$g" "$S/${p}s1" || return 1
	check "$l" "$n" $p --raid_state="$S/$p.state"
}
t_case "raid6 second member fails during the rebuild: verify passes, both rebuilt" \
	second_fails 6 5 1 3
t_case "raid10 second member fails during the rebuild: verify passes, both rebuilt" \
	second_fails 10 4 1 2

# A job that starts after another job's run-time failure reached the shared state file
# joins the open array (it is not "a different geometry").
later_job() {
	local p=lj- st
	fill 5 4 $p || return 1
	st="--raid_state=$S/$p.state"
	fio_raid --filename=vol --raid_level=5 --raid_members="$(members 4 $p)" \
		--raid_member_size=$MS --raid_chunk=16k --bs=8k "$st" \
		--name=first --rw=randwrite --time_based --runtime=2 --raid_fail=1@0.2 \
		--name=later --startdelay=1 --rw=read --time_based --runtime=1 \
		>"$S/lj.log" 2>&1 || { cat "$S/lj.log"; return 1; }
	cat "$S/lj.log"
	! grep -q "different geometry" "$S/lj.log" &&
		[[ $(jget "$S/$p.state" failed) == "[1]" ]]
}
t_case "a later job joins the array after an earlier job's failure was saved" later_job

# A signal while a rebuild runs: SIGINT while fio waits for the rebuild at the job's end,
# SIGTERM while the job's own I/O still runs. The rebuild stops at a window, its checkpoint
# is saved, fio exits (non-zero); the next run resumes and completes it.
signal_stops() { # SIG RUNTIME
	local p=si$1- pid i
	slow_rebuild $p 2 "$2" || return 1
	pid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		if (($2 > 5)); then # still running: past one checkpoint
			grep -q '"recovery_offset": [1-9]' "$S/$p.state" 2>/dev/null && break
		else
			grep -q "waiting for the rebuild" "$S/slow.log" 2>/dev/null && break
		fi
	done
	(($2 > 5)) || sleep 1.2 # past one checkpoint
	kill -"$1" $pid
	for ((i = 0; i < 80; i++)); do # a hang guard, far above the window's time
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if kill -0 $pid 2>/dev/null; then
		echo "fio still runs 8 s after SIG$1"
		kill -9 $pid
		return 1
	fi
	wait $pid && { echo "exit 0 after an interrupted rebuild"; return 1; }
	cat "$S/slow.log"
	grep -q "interrupted at" "$S/slow.log" || return 1
	resumes_from_checkpoint "$p" interrupted
}
t_case "SIGINT during the wait for a rebuild: checkpoint saved, exit, resumed" signal_stops INT 1
t_case "SIGTERM during a rebuild under the job's I/O: checkpoint saved, exit, resumed" \
	signal_stops TERM 30

# A writer killed mid-run leaves the state file dirty: the next start of RAID5 resyncs
# (stale parity, here P blocks corrupted on purpose, is rewritten); a degraded start is
# refused unless raid_start_dirty_degraded=1.
dirty() {
	local p=dy- c=$((16 * 1024)) r pid i
	job fill 5 4 $p --rw=write --do_verify=0 --raid_init=resync --raid_state="$S/$p.state" \
		>/dev/null || return 1
	[[ $(jget "$S/$p.state" clean) == true ]] || return 1
	for r in 3 17 40; do # rows whose parity the crash left stale
		printf 'garbage' | dd of="$S/$p$((3 - r % 4))" bs=1 seek=$((r * c + 100)) \
			conv=notrunc status=none
	done
	bg_job w 5 4 $p --rw=randwrite --size=10% --time_based --runtime=30 --rate_iops=50 \
		--verify=0 --raid_state="$S/$p.state"
	pid=$BG_PID
	for ((i = 0; i < 100; i++)); do # until the writer has opened the array (dirty mark)
		sleep 0.1
		grep -q '"clean": false' "$S/$p.state" && break
	done
	sleep 0.5
	kill -9 $pid
	wait $pid 2>/dev/null
	[[ $(jget "$S/$p.state" clean) == false ]] || return 1
	check 5 4 $p --raid_state="$S/$p.state" --raid_failed=2 --verify=0 &&
		{ echo "a dirty degraded start was not refused"; return 1; }
	grep -q "raid_start_dirty_degraded=1" "$S/check.log" || return 1
	check 5 4 $p --raid_state="$S/$p.state" --verify=0 --raid_scrub=check \
		--raid_stats="$S/$p.json" || return 1
	grep -q "not shut down cleanly" "$S/check.log" || return 1
	[[ $(jget "$S/$p.json" scrub.mismatches) == 0 ]] || return 1
	[[ $(jget "$S/$p.state" clean) == true ]]
}
t_case "raid5 dirty start after a killed writer: resync, degraded start refused" dirty

# Errors the job's own I/O cannot show still fail the run: stats or state file that cannot
# be written, a scrub repair whose write failed a member.
exit_codes() {
	local p=ec-
	fill 1 2 $p || return 1
	check 1 2 $p --raid_stats="$S/no-such-dir/s.json" && return 1
	grep -q "raid_stats: cannot write" "$S/check.log" || return 1
	# a state file that cannot be made: refused at the start, before any I/O, for its lock
	check 1 2 $p --raid_state="$S/no-such-dir/st.json" && return 1
	grep -q "raid_state: .*/st.json: cannot lock it (.*/st.json.lock): No such file" \
		"$S/check.log" || return 1
	fill 1 2 $p --raid_state="$S/no-such-dir/st.json" && return 1
	grep -q "raid_state: .*/st.json: cannot lock it" "$S/fill.log" || return 1
	printf 'garbage' | dd of="$S/${p}1" bs=1 seek=100 conv=notrunc status=none
	check 1 2 $p --raid_scrub=repair --raid_inject=1:write:100 --verify=0 && return 1
	grep -q "raid_scrub: stopped" "$S/check.log"
}
t_case "errors outside the job's I/O exit non-zero (stats, state, scrub repair)" exit_codes

# Several workers (raid_rebuild_workers=8, ten 2 MiB windows in flight over 32 MiB members):
# the spare ends byte for byte as the lost member, which the fill wrote in md's layout, with
# fio verifying every block while the workers rebuild.
workers_exact() { # LEVEL N FAIL
	local l=$1 n=$2 f=$3 p=w$1-
	MS=32m fill "$l" "$n" $p || return 1
	cp "$S/$p$f" "$S/lost" || return 1
	MS=32m check "$l" "$n" $p --raid_failed="$f" --raid_spares="$S/${p}s" --raid_rebuild=1 \
		--raid_rebuild_workers=8 --raid_rebuild_max=100000 || return 1
	grep -q "starts at .* on 8 workers" "$S/check.log" || return 1
	cmp "$S/lost" "$S/${p}s"
}
t_case "raid1 rebuild on 8 workers: spare identical" workers_exact 1 2 1
t_case "raid10 rebuild on 8 workers: spare identical" workers_exact 10 4 2
t_case "raid5 rebuild on 8 workers: spare identical" workers_exact 5 4 1
t_case "raid6 rebuild on 8 workers: spare identical" workers_exact 6 5 2

# fio killed (-9) during a rebuild on 4 workers: the checkpoint covers only windows below
# which every window was written, so the next run resumes there and the spare ends right.
workers_killed() { # LEVEL N
	local l=$1 n=$2 p=wk$1- pid i off
	MS=64m fill "$l" "$n" $p || return 1
	cp "$S/${p}1" "$S/lost"
	MS=64m bg_job slow "$l" "$n" $p --rw=read --raid_failed=1 --raid_spares="$S/${p}s" \
		--raid_rebuild=1 --raid_rebuild_max=20 --raid_rebuild_min=20 \
		--raid_rebuild_workers=4 --raid_state="$S/$p.state" --time_based --runtime=30 \
		--verify=0
	pid=$BG_PID
	for ((i = 0; i < 100; i++)); do
		sleep 0.1
		grep -q '"recovery_offset": [1-9]' "$S/$p.state" 2>/dev/null && break
	done
	kill -9 $pid # at once: what the checkpoint claims beyond the spare's bytes stays unwritten
	wait $pid 2>/dev/null
	off=$(jget "$S/$p.state" replaced.0.recovery_offset) || return 1
	echo "killed with the checkpoint at $off bytes"
	((off > 0 && off < 64 * 1024 * 1024)) || return 1
	MS=64m check "$l" "$n" $p --raid_state="$S/$p.state" --raid_rebuild=1 \
		--raid_spares="$S/${p}s" --raid_rebuild_workers=4 || return 1
	grep -q "resumed from the state file" "$S/check.log" && cmp "$S/lost" "$S/${p}s"
}
t_case "raid5 killed rebuild on 4 workers resumes, spare identical" workers_killed 5 4
t_case "raid6 killed rebuild on 4 workers resumes, spare identical" workers_killed 6 5

t_done
