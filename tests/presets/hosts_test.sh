#!/usr/bin/env bash
# tests/presets/hosts_test.sh: run.sh --hosts end to end through fio's client/server mode.
# Three fio servers on loopback ports (127.0.0.1 only), each with its own member files, run the
# quick preset's RAID0 and RAID5 tests at once; the report shows every host and the sum, and
# the sum equals the hosts' rows. Then a server killed mid-run: the run fails naming the host
# and nothing of that server is left. The servers are started here, each in its own session,
# and always killed (trap), group and all.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
RR=$ROOT/build/bin/raid-report

SERVERS=()
stop_servers() {
	local p
	for p in "${SERVERS[@]}"; do kill -KILL -- "-$p" "$p" 2>/dev/null; done
	return 0
}
trap 'stop_servers; rm -rf "$T_SCRATCH"' EXIT

answers() { timeout 2 bash -c 'exec 3<>"/dev/tcp/127.0.0.1/$0"' "$1" 2>/dev/null; }
free_port() { # a loopback port nothing listens on
	local p
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		p=$((20000 + RANDOM % 30000))
		answers "$p" || { echo "$p"; return 0; }
	done
	return 1
}
start_server() { # PORT: a fio server in its own session (so its forked job handlers die with it)
	setsid "$FIO" --server="ip:127.0.0.1,$1" >"$T_SCRATCH/server-$1.log" 2>&1 &
	SERVERS+=($!)
	for _ in $(seq 50); do answers "$1" && return 0; sleep 0.1; done
	echo "fio server on port $1 did not start"
	return 1
}

P=()
for i in 0 1 2; do P+=("$(free_port)"); start_server "${P[$i]}" || { t_case "servers start" false; t_done; }; done
HF=$T_SCRATCH/hosts
cat >"$HF" <<EOF
# two servers with their own member directories, one with run.sh's default
127.0.0.1:${P[0]} scratch=$T_SCRATCH/h0
127.0.0.1:${P[1]}   scratch=$T_SCRATCH/h1
127.0.0.1:${P[2]}
EOF
OUT=$T_SCRATCH/results
t_case "RAID0 and RAID5 of quick on three hosts at once" env TMPDIR="$T_SCRATCH" "$RUN" quick \
	--no-build --only '^raid[05]-' --scale 0.03 --runtime 1 --member-size 32M --out "$OUT" \
	--hosts-file "$HF"
cat "$T_OUT"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
T=$R/tests

t_case "run.json records the three hosts" jq -e --arg h "127.0.0.1:${P[2]}" \
	'(.hosts | length) == 3 and all(.hosts[]; has("label")) and any(.hosts[]; .host == $h)' \
	"$R/run.json"
per_host_files() { # every test: one result, meta ("host"), job file and engine stats per host
	local m t n=0 i
	for m in "$T"/raid*-4m-*[a-z].meta.json; do
		t=$(basename "$m" .meta.json)
		[[ $(jget "$m" status) == ok ]] || { echo "$t not ok"; return 1; }
		for i in 0 1 2; do
			local h=$T/$t@127.0.0.1_${P[$i]}
			[[ -s $h.json && -s $h.fio && -s $h.stats.json ]] || { echo "$h.*: missing"; return 1; }
			[[ $(jget "$h.meta.json" host) == "127.0.0.1:${P[$i]}" ]] || return 1
		done
		n=$((n + 1))
	done
	echo "$n tests"
	((n == 8))
}
t_case "each host has its result, meta.json with host, job file and engine stats" per_host_files
own_members() { # each host's members in its own directory (the third: scratch/<host>_<port>)
	local j0=$T/raid5-4m-SEQ1M-Q8T64-write@127.0.0.1_${P[0]}.fio
	local j1=$T/raid5-4m-SEQ1M-Q8T64-write@127.0.0.1_${P[1]}.fio
	local j2=$T/raid5-4m-SEQ1M-Q8T64-write@127.0.0.1_${P[2]}.fio
	grep "^raid_members=$T_SCRATCH/h0/raid5-4m-bay0:" "$j0" &&
		grep "^raid_members=$T_SCRATCH/h1/raid5-4m-bay0:" "$j1" &&
		grep "^raid_members=.*/127.0.0.1_${P[2]}/raid5-4m-bay0:" "$j2" &&
		[[ -s $T_SCRATCH/h0/raid5-4m-bay3 && -s $T_SCRATCH/h1/raid5-4m-bay3 ]]
}
t_case "each host's members are its own files" own_members

# hosts.csv: per test the three hosts and "all"; all = the sum of the rows (IOPS, MB/s), and
# summary.csv (what the charts and the gate read) carries the same sums
sums_equal() {
	local csv=$R/hosts.csv
	[[ -s $csv ]] || return 1
	awk -F, -v want=3 '
		NR == 1 { next }
		$2 != "all" { n[$1]++; io[$1] += $3; mb[$1] += $4; next }
		{ if (n[$1] != want) { print $1 ": " n[$1] " hosts"; bad = 1 }
		  if ((io[$1] - $3)^2 > (1e-3 * $3)^2 + 0.01 || (mb[$1] - $4)^2 > (1e-3 * $4)^2 + 0.01) {
			print $1 ": rows sum to " io[$1] " IOPS " mb[$1] " MB/s, all says " $3 " " $4; bad = 1 }
		  all[$1] = $3; tests++ }
		END { print tests " tests"; exit bad || tests != 8 }' "$csv" || return 1
	# the summary row of each test is the "all" row
	awk -F, 'NR == FNR { if ($2 == "all") a[$1] = $3; next }
		FNR == 1 { for (i = 1; i <= NF; i++) if ($i == "iops") c = i; next }
		{ if (!($2 in a) || a[$2] != $c) { print $2 ": summary " $c ", hosts.csv " a[$2]; bad = 1 } }
		END { exit bad }' "$csv" "$R/summary.csv"
}
t_case "report: every host and the sum, the sum equals the hosts' rows" sums_equal
merged_bounds() { # the sum's percentiles come from merged bins: within the hosts' range
	awk -F, 'NR > 1 && $2 != "all" { for (c = 6; c <= 9; c++) {
			if (!(($1, c) in lo) || $c < lo[$1, c]) lo[$1, c] = $c
			if ($c > hi[$1, c]) hi[$1, c] = $c } }
		NR > 1 && $2 == "all" { for (c = 6; c <= 9; c++) if ($c < lo[$1, c] || $c > hi[$1, c]) {
			print $1 " column " c ": " $c " outside the hosts"; bad = 1 } }
		END { exit bad }' "$R/hosts.csv"
}
t_case "the sum's latency percentiles lie within the hosts'" merged_bounds
page_hosts() {
	local i
	grep -q '<h2 id=hosts>Hosts' "$R/index.html" || return 1
	for i in 0 1 2; do grep -q "<td>127.0.0.1:${P[$i]}</td>" "$R/index.html" || return 1; done
	grep -q '<tr class=sum><td>raid0-4m-SEQ1M-Q8T64-write</td><td>all</td>' "$R/index.html" &&
		[[ -s $R/charts/hosts_spread.png && -s $R/charts/hosts_spread.svg ]] &&
		grep -q 'src="charts/hosts_spread.png"' "$R/index.html"
}
t_case "page: per-host table with the sum, and the per-host spread chart" page_hosts
t_case "summary.json: each test lists its hosts" bash -c \
	"[[ \$(grep -o '\"host\":\"127.0.0.1:${P[1]}\"' '$R/summary.json' | wc -l) == 8 ]]"

gate_hosts() {
	"$RR" baseline "$R" >"$T_SCRATCH/base.json" || return 1
	grep -q "\"raid5-4m-RND4K-Q32T64-randwrite @127.0.0.1:${P[0]} member_ios_per_io\"" \
		"$T_SCRATCH/base.json" || { echo "no per-host figure"; return 1; }
	"$RR" gate --baseline "$T_SCRATCH/base.json" "$R" || return 1
	# one host's member I/Os per I/O doubled in the baseline's eyes: the gate names that host
	jq --arg id "raid5-4m-RND4K-Q32T64-randwrite @127.0.0.1:${P[0]} member_ios_per_io" \
		'(.figures[] | select(.id == $id) | .value, .min, .max) = 0.5' \
		"$T_SCRATCH/base.json" >"$T_SCRATCH/worse.json"
	"$RR" gate --baseline "$T_SCRATCH/worse.json" "$R" >"$T_SCRATCH/gate.out"
	local rc=$?
	grep REGRESSED "$T_SCRATCH/gate.out"
	[[ $rc -eq 1 ]] && grep -q "@127.0.0.1:${P[0]} member_ios_per_io .*REGRESSED" "$T_SCRATCH/gate.out"
}
t_case "gate on a multi-host run: passes its own baseline, names a regressed host" gate_hosts
t_case "--compare of multi-host runs compares each host" bash -c \
	"'$RR' --compare '$R' '$R' --out '$T_SCRATCH/cmp' | grep -q 'raid0-4m-SEQ1M-Q8T64-read @127.0.0.1:${P[2]} *iops'"

# A server killed mid-run (its whole session: the listener and the job it forked).
killed_run() {
	local out=$T_SCRATCH/killed victim=${SERVERS[1]} rc=0 pid
	env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --no-report --only '^raid0-4m-SEQ1M' \
		--scale 0.03 --runtime 5 --member-size 32M --out "$out" \
		--hosts "127.0.0.1:${P[0]},127.0.0.1:${P[1]}" >"$T_SCRATCH/killed.log" 2>&1 &
	pid=$!
	for _ in $(seq 100); do # until the first test's fio client runs
		ls "$out"/*/logs/*.cmd >/dev/null 2>&1 && break
		sleep 0.1
	done
	sleep 1.5
	kill -KILL -- "-$victim"
	wait "$pid" || rc=$?
	cat "$T_SCRATCH/killed.log"
	echo "run.sh exited $rc"
	((rc != 0)) || return 1
	grep -q "FAIL .*host 127.0.0.1:${P[1]} lost" "$T_SCRATCH/killed.log" &&
		grep -q "host 127.0.0.1:${P[1]} lost during .*: the remaining tests were not run" \
			"$T_SCRATCH/killed.log" &&
		! grep -q "127.0.0.1:${P[0]} lost" "$T_SCRATCH/killed.log" || return 1
	# the survivor's figures are no sum over the hosts: a log, not a result
	local t=raid0-4m-SEQ1M-Q8T64-write r=("$out"/*-quick)
	[[ $(jget "$r/tests/$t.meta.json" status) == failed && ! -e $r/tests/$t.json &&
		-s $r/logs/$t.partial.json ]]
}
t_case "a server killed mid-run: the run fails, naming that host" killed_run
in_session() { # SID: the live (not zombie) processes of that session, from /proc (no procps)
	local f st
	for f in /proc/[0-9]*/stat; do
		{ read -r st <"$f"; } 2>/dev/null || continue
		st=${st##*) } # after "pid (comm) ": state ppid pgrp session ...
		read -r -a st <<<"$st"
		[[ ${st[0]} != Z && ${st[3]} == "$1" ]] && echo "${f//[^0-9]/}"
	done
	return 0
}
nothing_left() { # of the killed server's session nothing runs; no fio client of the run either
	local left f
	for _ in $(seq 50); do
		left=$(in_session "${SERVERS[1]}")
		[[ -z $left ]] && break
		sleep 0.1
	done
	[[ -z $left ]] || { echo "left: $left"; return 1; }
	for f in /proc/[0-9]*/cmdline; do
		if tr '\0' ' ' <"$f" 2>/dev/null | grep -q -- "--output=$T_SCRATCH/killed/"; then
			echo "left: ${f//[^0-9]/}"
			return 1
		fi
	done
}
t_case "no process of the killed server or the run is left" nothing_left
t_done
