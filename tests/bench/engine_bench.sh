#!/usr/bin/env bash
# engine_bench.sh - what the RAID engine costs (figures, not a test; run by `make bench`).
# RAID0 over 4 members, 4 KiB random reads at iodepth 32, one job, against fio's own
# io_uring engine on the same member files at the same total depth (the JBOD ceiling).
# Members are files in /dev/shm; the raid engine runs with the io_uring backend on those
# files, and with the ram backend (members in memory: the engine's own cost).
# CPU per I/O is fio's usr+sys CPU of the job over its I/O count, from the same run.
# Env: BENCH_RUNTIME (seconds per run, default 5), BENCH_SIZE (per member, default 256m).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
RUNTIME=${BENCH_RUNTIME:-5}
SIZE=${BENCH_SIZE:-256m}
DIR=$(mktemp -d /dev/shm/fio-raid-bench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

MEMBERS=$DIR/m0:$DIR/m1:$DIR/m2:$DIR/m3
for i in 0 1 2 3; do fallocate -l "$SIZE" "$DIR/m$i"; done

# run NAME FIO-ARGS...: prints "name iops ns_per_io" from fio's terse v3 output
# (fields: 6 read KiB, 8 read IOPS, 9 read runtime ms, 88/89 usr/sys CPU %)
run() {
	local name=$1 line
	shift
	line=$("$FIO" --name="$name" --thread=1 --rw=randread --bs=4k --iodepth=32 \
		--time_based --runtime="$RUNTIME" --ramp_time=1 --norandommap --randrepeat=0 \
		--output-format=terse --terse-version=3 "$@" | tail -1)
	awk -F';' -v n="$name" '{
		ios = $6 * 1024 / 4096; usr = $88 + 0; sys = $89 + 0
		ns = (usr + sys) / 100 * $9 * 1e6 / (ios ? ios : 1)
		printf "%s %d %.0f\n", n, $8, ns
	}' <<<"$line"
}

results=$(
	run jbod-io_uring --ioengine=io_uring --filename="$MEMBERS"
	run raid0-io_uring --ioengine="external:$ENGINE" --filename=vol --raid_level=0 \
		--raid_members="$MEMBERS" --raid_chunk=64k --raid_backend=io_uring
	run raid0-ram --ioengine="external:$ENGINE" --filename=vol --raid_level=0 \
		--raid_members="$MEMBERS" --raid_chunk=64k --raid_backend=ram
)

echo "RAID0 x4 members in /dev/shm, 4 KiB random read, iodepth 32, 1 job, ${RUNTIME}s/run"
awk 'NR == 1 { base_iops = $2; base_ns = $3 }
{
	if (NR == 1) { ratio = "1.00 (ceiling)"; added = "-" }
	else { ratio = sprintf("%.2f", $2 / base_iops); added = sprintf("%+.0f", $3 - base_ns) }
	printf "%-16s %10d IOPS  %-15s %7.0f ns CPU/IO  added %s ns/IO\n", $1, $2, ratio, $3, added
}' <<<"$results"
echo "targets: ratio >= 0.80 of the JBOD ceiling; added CPU < 1000 ns per 4 KiB I/O"
