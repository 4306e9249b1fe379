#!/usr/bin/env bash
# raid_errors.sh - bad input through fio: every case must exit non-zero (not by a signal)
# with one line naming the option or file and the reason; and the guards that keep two
# processes from writing the same members.
source "$(dirname "$0")/../lib.sh"

S=$T_SCRATCH
M2=$S/a:$S/b
M4=$S/a:$S/b:$S/c:$S/d

# fails_with PATTERN FIO-ARGS...: fio fails cleanly and prints a line matching PATTERN
fails_with() {
	local pat=$1 rc
	shift
	fio_raid --name=bad --filename=vol --rw=read --size=1m "$@" >"$S/err.log" 2>&1
	rc=$?
	cat "$S/err.log"
	if ((rc == 0 || rc >= 128)); then
		echo "exit status $rc: expected a clean failure"
		return 1
	fi
	grep -E -q "^raid: .*$pat" "$S/err.log" || { echo "no line matching /$pat/"; return 1; }
}

t_case "missing raid_members" fails_with "raid_members is required" --raid_level=0
t_case "missing raid_level" fails_with "raid_level is required" --raid_members=$M2
t_case "member does not exist" \
	fails_with "raid_members: $S/nothere does not exist" --raid_level=0 \
	--raid_members=$S/nothere:$S/b
t_case "chunk not a power of two" fails_with "raid_chunk: '12k'" --raid_level=0 \
	--raid_members=$M2 --raid_member_size=1m --raid_chunk=12k
t_case "chunk below 4k" fails_with "raid_chunk: '2k'" --raid_level=0 --raid_members=$M2 \
	--raid_member_size=1m --raid_chunk=2k
t_case "chunk above 1m" fails_with "raid_chunk: '2m'" --raid_level=0 --raid_members=$M2 \
	--raid_member_size=1m --raid_chunk=2m
t_case "too few members" fails_with "raid_level=10 needs at least 2 members" \
	--raid_level=10 --raid_members=$S/a --raid_member_size=1m
t_case "raid_failed out of range" fails_with "raid_failed: member 4 is out of range" \
	--raid_level=1 --raid_members=$M2 --raid_member_size=1m --raid_failed=4
t_case "raid_failed on raid0" fails_with "raid_failed: the array has lost more than" \
	--raid_level=0 --raid_members=$M2 --raid_member_size=1m --raid_failed=1
t_case "raid1 lost every member" fails_with "lost more than raid_level=1 tolerates" \
	--raid_level=1 --raid_members=$M2 --raid_member_size=1m --raid_failed=0,1
t_case "raid10 lost a mirror pair" \
	fails_with "members 2 \($S/c\) and 3 \($S/d\) hold both copies" \
	--raid_level=10 --raid_members=$M4 --raid_member_size=1m --raid_failed=2,3
t_case "raid_failed junk" fails_with "raid_failed: 'one'" --raid_level=1 \
	--raid_members=$M2 --raid_member_size=1m --raid_failed=one
t_case "unknown backend" fails_with "raid_backend: 'spdk' is not one of io_uring, libaio" --raid_level=0 \
	--raid_members=$M2 --raid_member_size=1m --raid_backend=spdk
t_case "unknown layout" fails_with "raid_layout: 'far2' is not one of left-symmetric" --raid_level=10 \
	--raid_members=$M2 --raid_member_size=1m --raid_layout=far2
t_case "layout of another level" fails_with "raid_layout: left-symmetric does not apply" \
	--raid_level=10 --raid_members=$M2 --raid_member_size=1m --raid_layout=left-symmetric
t_case "raid_level 5 with 2 members" fails_with "raid_level=5 needs at least 3 members" \
	--raid_level=5 --raid_members=$M2 --raid_member_size=1m
t_case "raid_level 7" fails_with "raid_level: '7' is not one of" --raid_level=7 \
	--raid_members=$M2
t_case "raid_rmw junk" fails_with "raid_rmw: 'always' is not one of auto, rmw, rcw" \
	--raid_level=5 --raid_members=$S/a:$S/b:$S/c --raid_member_size=1m --raid_rmw=always
t_case "raid_rebuild without spares" fails_with "raid_rebuild=1 needs raid_spares" \
	--raid_level=1 --raid_members=$M2 --raid_member_size=1m --raid_rebuild=1
too_small() {
	truncate -s 1m "$S/s0" "$S/s1" &&
		fails_with "raid_member_size: $S/s0 holds only 1048576 bytes" --raid_level=0 \
			--raid_members="$S/s0:$S/s1" --raid_member_size=2m
}
t_case "member smaller than raid_member_size" too_small

unequal() {
	truncate -s 2m "$S/u0" && truncate -s 3m "$S/u1" &&
		fio_raid --name=u --filename=vol --raid_level=1 --raid_members="$S/u0:$S/u1" \
			--rw=write --bs=64k --size=100% --io_size=64k >"$S/u.log" 2>&1 &&
		cat "$S/u.log" &&
		grep -q "^raid: raid_members: members differ in size; using the smallest, 2097152 bytes ($S/u0)" "$S/u.log"
}
t_case "unequal members use the smallest and say so" unequal

# Two forked jobs writing the same members: the second is refused, naming thread=1.
forked_writers() {
	"$FIO" --ioengine="external:$ENGINE" --filename=vol --raid_level=0 --raid_members=$M2 \
		--raid_member_size=1m --rw=write --time_based --runtime=2 \
		--name=one --name=two >"$S/f.log" 2>&1
	local rc=$?
	cat "$S/f.log"
	((rc != 0 && rc < 128)) && grep -q "raid: raid_members: .* is in use by another process: .*thread=1" "$S/f.log"
}
t_case "forked jobs writing one array are refused" forked_writers

forked_numjobs() {
	fails_with "numjobs=2 without thread=1" --raid_level=0 --raid_members=$M2 \
		--raid_member_size=1m --rw=write --numjobs=2 --thread=0
}
t_case "forked numjobs writers are refused" forked_numjobs

# readers too, with a state file: each process would save its own record of the array
forked_state() {
	fails_with "numjobs=2 without thread=1 would keep the state file \\(raid_state\\) of one array" \
		--raid_level=1 --raid_members=$M2 --raid_member_size=1m --numjobs=2 --thread=0 \
		--raid_state="$S/forked.json"
}
t_case "forked numjobs with a state file are refused" forked_state

# A second fio on members another fio is writing.
second_fio() {
	fio_raid --name=long --filename=vol --raid_level=1 --raid_members=$M2 \
		--raid_member_size=1m --rw=randwrite --time_based --runtime=4 >/dev/null 2>&1 &
	local bg=$! ok=1
	sleep 1
	fails_with "is in use by another process" --raid_level=1 --raid_members=$M2 \
		--raid_member_size=1m --rw=write && ok=0
	wait $bg
	return $ok
}
t_case "a second fio on the same members is refused" second_fio

# What the engine cannot do here (cuda parity on a GPU it cannot use: ENODEV; a level or a
# parity library it lacks: ENOTSUP, not reachable from fio today) is written to raid_stats as
# {"refused": {errno, reason}}, run.sh's skip-or-fail answer; a wrong job is a failure and
# leaves no such answer.
refused() { # ERRNO FIO-ARGS...
	local want=$1
	shift
	rm -f "$S/refused.json"
	fails_with "$@" --raid_stats="$S/refused.json" || return 1
	jq -e --arg e "$want" '.refused.errno == $e and (.refused.reason | startswith("raid: "))' \
		"$S/refused.json"
}
# device 63: past the last GPU of any machine this runs on, with or without one
t_case "raid_parity=cuda on a GPU that is not there: refused ENODEV in raid_stats" \
	refused ENODEV "raid_parity=cuda" --raid_level=5 --raid_members=$M4 --raid_member_size=1m \
	--raid_parity=cuda --raid_gpu=63
no_answer() {
	rm -f "$S/refused.json"
	fails_with "raid_chunk: '12k'" --raid_level=0 --raid_members=$M2 --raid_member_size=1m \
		--raid_chunk=12k --raid_stats="$S/refused.json" || return 1
	[[ ! -e $S/refused.json ]] || { cat "$S/refused.json"; return 1; }
}
t_case "a wrong job writes no refusal" no_answer
t_done
