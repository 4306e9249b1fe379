#!/usr/bin/env bash
# raid56_bench.sh - what RAID5/6 parity costs on the CPU path (figures, not a test; run by
# `make bench`). Members live in memory (raid_backend=ram), so the figures are the engine's
# own work: 4 KiB random writes (read-modify-write) over 8 members as RAID5 and RAID6
# against RAID0 over the same 8, and 1 MiB sequential writes (full stripes) as RAID6 over
# 12 members against RAID0 over 12, each RAID5/6 row with raid_workers=0 (parity in the
# fio thread) and raid_workers=1 (one parity thread, md's raid5d shape). Ratios are
# against the RAID0 run of the same invocation.
# The machine is shared and noisy: every figure is the best of BENCH_REPEAT runs, and the
# runs of one round go one after the other (RAID0 first), so a burst of load hits a
# round, not one column.
# Env: BENCH_RUNTIME (seconds per run, default 3), BENCH_REPEAT (default 2), BENCH_CHUNK
# (for the 1 MiB rows, default 4k).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
RUNTIME=${BENCH_RUNTIME:-3}
REPEAT=${BENCH_REPEAT:-2}
SEQ_CHUNK=${BENCH_CHUNK:-4k}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

members() { # N: in-memory members need names only
	local i out=
	for ((i = 0; i < $1; i++)); do out+=${out:+:}bench-m$i; done
	echo "$out"
}

# run LEVEL N ARGS...: prints the write IOPS and write KiB/s of one fio run (terse v3
# fields 49 and 48)
run() {
	local level=$1 n=$2
	shift 2
	"$FIO" --name=bench --thread=1 --ioengine="external:$ENGINE" --filename=vol \
		--raid_backend=ram --raid_level="$level" --raid_members="$(members "$n")" \
		--raid_member_size=32m --time_based --runtime="$RUNTIME" --ramp_time=1 \
		--output-format=terse --terse-version=3 "$@" | tail -1 | awk -F';' '{print $49, $48}'
}

rand4k() { run "$@" --rw=randwrite --bs=4k --iodepth=32 --norandommap --randrepeat=0; }
seq1m() { run "$@" --rw=write --bs=1m --iodepth=8 --raid_chunk="$SEQ_CHUNK"; }

max() { echo $(($1 > $2 ? $1 : $2)); }
r0_iops=0 r5w0=0 r5w1=0 r6w0=0 r6w1=0 s0_kib=0 s6w0=0 s6w1=0
for ((round = 0; round < REPEAT; round++)); do
	read -r v _ < <(rand4k 0 8 --raid_chunk=64k) && r0_iops=$(max "$r0_iops" "$v")
	read -r v _ < <(rand4k 5 8 --raid_chunk=64k --raid_workers=0) && r5w0=$(max "$r5w0" "$v")
	read -r v _ < <(rand4k 5 8 --raid_chunk=64k --raid_workers=1) && r5w1=$(max "$r5w1" "$v")
	read -r v _ < <(rand4k 6 8 --raid_chunk=64k --raid_workers=0) && r6w0=$(max "$r6w0" "$v")
	read -r v _ < <(rand4k 6 8 --raid_chunk=64k --raid_workers=1) && r6w1=$(max "$r6w1" "$v")
	read -r _ v < <(seq1m 0 12) && s0_kib=$(max "$s0_kib" "$v")
	read -r _ v < <(seq1m 6 12 --raid_workers=0 --raid_stats="$TMP/seq.json") &&
		s6w0=$(max "$s6w0" "$v")
	read -r _ v < <(seq1m 6 12 --raid_workers=1) && s6w1=$(max "$s6w1" "$v")
done

# how many of the RAID6 1 MiB writes' stripe operations were whole stripes
full=$(jq -e '.writes.full_stripe' "$TMP/seq.json") &&
	part=$(jq -e '.writes.rcw + .writes.rmw' "$TMP/seq.json") || exit 1

awk -v rt="$RUNTIME" -v rep="$REPEAT" -v full="$full" -v part="$part" -v ck="$SEQ_CHUNK" \
	-v r0="$r0_iops" -v r5w0="$r5w0" -v r5w1="$r5w1" \
	-v r6w0="$r6w0" -v r6w1="$r6w1" -v s0="$s0_kib" -v s6w0="$s6w0" -v s6w1="$s6w1" 'BEGIN {
	printf "RAID5/6 CPU path on ram members, 1 fio job, best of %s runs of %ss\n", rep, rt
	printf "%-34s %20s %20s  %s\n", "", "raid_workers=0", "raid_workers=1", "target"
	printf "%-34s %13d IOPS %20s  %s\n", "4k randwrite QD32 RAID0 x8", r0, "(reference)", ""
	printf "%-34s %8d IOPS %5.2fx %8d IOPS %5.2fx  >= 0.25x\n", "4k randwrite QD32 RAID5 x8 (rmw)", \
		r5w0, r5w0 / r0, r5w1, r5w1 / r0
	printf "%-34s %8d IOPS %5.2fx %8d IOPS %5.2fx  >= 0.16x\n", "4k randwrite QD32 RAID6 x8 (rmw)", \
		r6w0, r6w0 / r0, r6w1, r6w1 / r0
	printf "%-34s %13.0f MB/s %20s  %s\n", "1m write QD8 RAID0 x12 chunk " ck, s0 * 1.024 / 1000, \
		"(reference)", ""
	printf "%-34s %8.0f MB/s %5.2fx %8.0f MB/s %5.2fx  >= %.2fx (0.7 x 10/12)\n", \
		"1m write QD8 RAID6 x12 chunk " ck, s6w0 * 1.024 / 1000, s6w0 / s0, \
		s6w1 * 1.024 / 1000, s6w1 / s0, 0.7 * 10 / 12
	printf "(RAID6 1m rows: %.1f%% of stripe operations were full stripes, the rest RCW/RMW at\n", \
		100 * full / (full + part)
	printf " the requests\047 ends; x = ratio to the RAID0 row)\n"
}'
