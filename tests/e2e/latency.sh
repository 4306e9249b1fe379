#!/usr/bin/env bash
# latency.sh - the latency fio reports for the engine is the whole of an I/O's time, split
# into slat and clat as fio's own asynchronous engines split it (docs/engine.md, "Latency").
#
#  - Members of known latency: with raid_backend=null and raid_null_delay=D every member I/O
#    takes at least D, so every request does: fio's total latency (lat_ns, its mean and p50)
#    is at least D for RAID0 and RAID5, at iodepth 1 and 8. The null backend spends the delay
#    inside the commit, so it is the engine's slat and not its clat: at iodepth 1 slat is at
#    least D and clat's p50 below it, i.e. a report that read clat as latency fails here.
#  - Little's law: in a closed loop (fio keeps iodepth x numjobs I/Os in flight) the mean
#    total latency times the IOPS is that count. Checked within 25% for the engine (RAID 0,
#    5, 10 over files in /dev/shm, io_uring backend, iodepth 4, 16, 32), for fio's io_uring
#    on the same files at the same depths, and for 4 jobs at iodepth 1 over delayed members.
source "$(dirname "$0")/../lib.sh"

D=500 # us, raid_null_delay
DNS=$((D * 1000))

# lat_fio OUT ARGS...: fio's JSON, with the percentiles of the total latency
lat_fio() {
	local out=$1
	shift
	"$@" --output-format=json --lat_percentiles=1 >"$out"
}

# delayed LEVEL QD OUT [ARGS...]: 4 null members of D each, random 4k reads and writes
delayed() {
	local level=$1 qd=$2 out=$3
	shift 3
	lat_fio "$out" fio_raid --name=delay --filename=vol --raid_level="$level" \
		--raid_members="$(members 4 null)" --raid_backend=null --raid_member_size=64m \
		--raid_null_delay="$D" --rw=randrw --bs=4k --iodepth="$qd" --number_ios=400 "$@"
}

# at_least_d JSON: mean and p50 of lat_ns, reads and writes, at least D
at_least_d() {
	jq -e --argjson d "$DNS" '[.jobs[] | .read, .write | select(.total_ios > 0) |
		.lat_ns as $l | ($l.mean | floor) as $m | ($l.percentile["50.000000"]) as $p |
		"lat mean \($m) p50 \($p) ns, delay \($d) ns" | debug |
		$m >= $d and $p >= $d] | length > 0 and all' "$1" >/dev/null
}

# slat_holds_d JSON: the reads' slat is at least D and their clat p50 below it
slat_holds_d() {
	jq -e --argjson d "$DNS" '.jobs[0].read | .slat_ns.min as $s |
		.clat_ns.percentile["50.000000"] as $c |
		"read slat min \($s) ns, clat p50 \($c) ns, delay \($d) ns" | debug |
		$s >= $d and $c < $d' "$1" >/dev/null
}

# little JSON INFLIGHT: sum over jobs and directions of IOPS x mean lat_ns (s), within 25%
# of the I/Os in flight
little() {
	jq -e --argjson n "$2" '[.jobs[] | .read, .write | select(.total_ios > 0) |
		.iops * .lat_ns.mean / 1e9] | add as $l |
		"Little: IOPS x mean latency = \($l * 100 | round / 100) I/Os, \($n) in flight" |
		debug | $l >= 0.75 * $n and $l <= 1.25 * $n' "$1" >/dev/null
}

delay_case() { # LEVEL QD
	local j=$T_SCRATCH/delay-$1-$2.json
	delayed "$1" "$2" "$j" && at_least_d "$j" || return 1
	if (($2 == 1)); then
		slat_holds_d "$j"
	else
		little "$j" "$2"
	fi
}

for level in 0 5; do
	t_case "raid$level iodepth 1: lat >= member delay, in slat" delay_case "$level" 1
	t_case "raid$level iodepth 8: lat >= member delay, Little's law" delay_case "$level" 8
done

bad_delay() { # ARGS...: one 4k read with a delay option that must be refused
	fio_raid --name=bad --filename=vol --raid_level=0 --raid_members="$(members 2 bad)" \
		--raid_member_size=1m --rw=read --bs=4k --number_ios=1 "$@"
}
t_case_fail "raid_null_delay out of range" \
	--msg "^raid: raid_null_delay: '-1' is not a time in microseconds from 0 to 1000000$" \
	bad_delay --raid_backend=null --raid_null_delay=-1
t_case_fail "raid_null_delay without the null backend" \
	--msg "^raid: raid_null_delay applies only with raid_backend=null$" bad_delay --raid_backend=ram --raid_null_delay=10

jobs_case() { # 4 jobs, one I/O each in flight: slat holds all of it, clat none
	local j=$T_SCRATCH/delay-jobs.json
	delayed 0 1 "$j" --numjobs=4 --rw=randread && little "$j" 4
}
t_case "raid0 4 jobs x iodepth 1 over delayed members: Little's law" jobs_case

# members in /dev/shm (T_SCRATCH), written once so that reads find data
FILES=$(members 4 m)
IFS=: read -ra paths <<<"$FILES"
for p in "${paths[@]}"; do head -c 32M /dev/zero >"$p"; done

closed() { # OUT QD ARGS...: a closed loop of random 4k reads and writes, 1 s
	local out=$1 qd=$2
	shift 2
	lat_fio "$out" "$@" --rw=randrw --bs=4k --iodepth="$qd" --time_based --runtime=1
}

engine_case() { # LEVEL QD
	local j=$T_SCRATCH/engine-$1-$2.json
	closed "$j" "$2" fio_raid --name=e --filename=vol --raid_level="$1" \
		--raid_members="$FILES" --raid_chunk=64k && little "$j" "$2"
}

uring_case() { # QD
	local j=$T_SCRATCH/uring-$1.json
	closed "$j" "$1" "$FIO" --name=u --ioengine=io_uring --thread=1 --filename="$FILES" \
		--size=128m && little "$j" "$1"
}

for qd in 4 16 32; do
	t_case "io_uring iodepth $qd: Little's law" uring_case "$qd"
	for level in 0 5 10; do
		t_case "raid$level iodepth $qd: Little's law" engine_case "$level" "$qd"
	done
done

# the figures, for the log (tests/run.sh keeps it in build/test-logs/latency.sh.log)
for j in "$T_SCRATCH"/*.json; do
	[[ -s $j ]] || continue
	jq -r --arg n "$(basename "$j" .json)" '[.jobs[] | .read, .write |
		select(.total_ios > 0)] as $d | ($d | map(.iops) | add) as $iops |
		def us(f): $d | map(.iops * f) | add / $iops / 1000 | . * 10 | round / 10;
		"\($n): IOPS \($iops | round), mean us: slat \(us(.slat_ns.mean)) clat " +
		"\(us(.clat_ns.mean)) lat \(us(.lat_ns.mean)); IOPS x lat = " +
		"\($d | map(.iops * .lat_ns.mean / 1e9) | add | . * 100 | round / 100)"' "$j"
done
t_done
