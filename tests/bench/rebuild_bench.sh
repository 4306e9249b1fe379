#!/usr/bin/env bash
# rebuild_bench.sh - one measured rebuild per level (figures, not a test; `make bench`):
# RAID10 and RAID5 over 8 file members in /dev/shm. Two runs per level:
#   idle:   a member missing, the job does no I/O, the rebuild runs at raid_rebuild_max:
#           the rebuild rate this machine reaches, and md-style minutes per TB, beside the
#           physical reference measured in the same run: one sequential copy of a member
#           (dd, 1 MiB blocks, to a new file in /dev/shm, as the spare is); ratio = rate /
#           copy, target >= 0.8. Beside it a second reference, the level's own transfers
#           without the engine: every member the level reads (RAID10: one, RAID5: seven)
#           read by its own dd while one more dd writes a new file of a member's size, all
#           at once, no compute; ratio2 = rate / that. Repeated BENCH_REPEAT times;
#   loaded: 4 KiB random reads at depth 32; member 1 fails after BENCH_FAIL_AT s and is
#           rebuilt onto a spare while the reads go on, at raid_rebuild_min (md's rule for a
#           busy array): foreground IOPS before, during and after the rebuild, from the
#           engine's per-second samples (stats "rebuild" object) of that same run; then
#           the same load on the degraded array without a rebuild (BENCH_FAIL_AT s): the
#           fair baseline for "during", whose reads of the lost member are degraded.
# First, over null members (no data moves: what is left is the engine's own cost and the
# arithmetic), RAID5 and RAID6 x8 rebuilt with BENCH_WORKERS workers beside what the parity
# kernel the rebuild uses (the array's variant in its streaming twin, one lost data block
# from P: recov1, k = 7 and 6, chunk 64k) does alone in as many threads at once
# (raid-parity-bench, one process per thread, their rates added), as MB/s of rebuilt member
# (data bytes / k): ratio target >= 0.7.
# Env: BENCH_SIZE (per member, 256m), BENCH_MIN/BENCH_MAX (MB/s, 200/100000),
#      BENCH_RUNTIME (loaded run, 10 s), BENCH_FAIL_AT (3 s), BENCH_REPEAT (3),
#      BENCH_WORKERS (raid_rebuild_workers, the CPUs online up to 8), BENCH_NULL_SIZE (8g).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
SIZE=${BENCH_SIZE:-256m}
MIN=${BENCH_MIN:-200}
MAX=${BENCH_MAX:-100000}
RUNTIME=${BENCH_RUNTIME:-10}
FAIL_AT=${BENCH_FAIL_AT:-3}
REPEAT=${BENCH_REPEAT:-3}
WORKERS=${BENCH_WORKERS:-$(($(nproc) < 8 ? $(nproc) : 8))}
NULL_SIZE=${BENCH_NULL_SIZE:-8g}
PBENCH=$ROOT/build/bin/raid-parity-bench
DIR=$(mktemp -d /dev/shm/fio-raid-rbench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

members() { local i out=; for ((i = 0; i < 8; i++)); do out+=${out:+:}$DIR/m$i; done; echo "$out"; }

raid() { # ARGS...: one fio job over the 8 members
	"$FIO" --name=rb --thread=1 --ioengine="external:$ENGINE" --filename=vol \
		--raid_members="$(members)" --raid_member_size="$SIZE" --raid_chunk=64k \
		--raid_rebuild_workers="$WORKERS" \
		--output-format=terse "$@" >/dev/null
}

kernel_mbps() { # K: MB/s of rebuilt member, WORKERS processes of recov1 at once, rates added
	local k=$1 impl i
	impl=$("$PBENCH" --quick --op recov1 --k "$k" --chunk 64k --mode stream --runs 1 --json 2>&1 \
		>/dev/null | sed -n 's/^parity variant: \([a-z0-9]*\).*/\1/p')
	for ((i = 0; i < WORKERS; i++)); do
		"$PBENCH" --op recov1 --k "$k" --chunk 64k --mode stream --impl "$impl" --runs 5 \
			--json 2>/dev/null >"$DIR/pb$i.json" &
	done
	wait
	jq -s --argjson k "$k" '[.[][] | .gbps] | add * 1000 / $k | round' "$DIR"/pb*.json
	rm -f "$DIR"/pb*.json
}

null_row() { # LEVEL K: REPEAT rebuilds over null members beside the kernel alone
	local level=$1 k=$2 i r c rates= kern= ratios=
	for ((i = 0; i < REPEAT; i++)); do
		"$FIO" --name=rb --thread=1 --ioengine="external:$ENGINE" --filename=vol \
			--raid_backend=null --raid_members="$(members)" --raid_member_size="$NULL_SIZE" \
			--raid_chunk=64k --raid_level="$level" --rw=read --bs=4k --io_size=4k \
			--raid_failed=1 --raid_spares="$DIR/null-s0" --raid_rebuild=1 \
			--raid_rebuild_max="$MAX" --raid_rebuild_workers="$WORKERS" \
			--raid_stats="$DIR/null.json" --output-format=terse >/dev/null 2>&1
		r=$(jq -r '.rebuild.mbps | round' "$DIR/null.json")
		c=$(kernel_mbps "$k")
		rates+=" $r" kern+=" $c" ratios+=" $(awk -v r="$r" -v c="$c" 'BEGIN { printf "%.2f", r / c }')"
	done
	printf 'raid%-3s null members, %d workers: rebuild MB/s:%s  kernel alone (recov1 k=%d, %d threads) MB/s:%s  ratio:%s\n' \
		"$level" "$WORKERS" "$rates" "$k" "$WORKERS" "$kern" "$ratios"
}

copy_mbps() { # SRC: MB/s (10^6) of one sequential copy of SRC to a new file
	rm -f "$DIR/copy"
	LC_ALL=C dd if="$1" of="$DIR/copy" bs=1M 2>&1 | awk '/copied/ {
		for (i = 1; i <= NF; i++) if ($i == "copied,") s = $(i + 1);
		printf "%.0f\n", $1 / s / 1e6 }'
	rm -f "$DIR/copy"
}

pattern_mbps() { # MEMBER...: MB/s of member size, those members read and one written at once
	local f t0 t1 bytes
	bytes=$(stat -c %s "$1")
	rm -f "$DIR/copy"
	t0=$(date +%s.%N)
	for f in "$@"; do dd if="$f" of=/dev/null bs=1M 2>/dev/null & done
	dd if=/dev/zero of="$DIR/copy" bs=1M count=$((bytes >> 20)) 2>/dev/null &
	wait
	t1=$(date +%s.%N)
	rm -f "$DIR/copy"
	awk -v b="$bytes" -v t0="$t0" -v t1="$t1" 'BEGIN { printf "%.0f\n", b / (t1 - t0) / 1e6 }'
}

idle_row() { # LEVEL: REPEAT idle rebuilds, each beside both references; one row with the ranges
	local level=$1 i r c p rates= copies= ratios= pats= ratios2= src
	# what the rebuild of member 1 reads: its mirror (RAID10 near: member 0), or every other
	if [[ $level == 10 ]]; then src=("$DIR/m0"); else src=("$DIR"/m[02-7]); fi
	for ((i = 0; i < REPEAT; i++)); do
		rm -f "$DIR"/s0
		c=$(copy_mbps "$DIR/m0")
		p=$(pattern_mbps "${src[@]}")
		raid --raid_level=$level --rw=read --bs=4k --io_size=4k --raid_failed=1 \
			--raid_spares="$DIR/s0" --raid_rebuild=1 --raid_rebuild_max="$MAX" \
			--raid_stats="$DIR/idle.json" 2>/dev/null
		r=$(jq -r '.rebuild.mbps | round' "$DIR/idle.json")
		rates+=" $r" copies+=" $c" ratios+=" $(awk -v r="$r" -v c="$c" 'BEGIN { printf "%.2f", r / c }')"
		pats+=" $p" ratios2+=" $(awk -v r="$r" -v c="$p" 'BEGIN { printf "%.2f", r / c }')"
	done
	printf 'raid%-3s rebuild MB/s:%s  copy MB/s:%s  ratio:%s\n' "$level" "$rates" "$copies" "$ratios"
	printf '        its transfers (%d read + 1 written at once) MB/s:%s  ratio2:%s\n' \
		"${#src[@]}" "$pats" "$ratios2"
}

summary() { # IDLE-STATS LOAD-STATS LEVEL DEGRADED-IOPS: one table row from the runs' figures
	jq -rn --slurpfile i "$1" --slurpfile l "$2" --argjson dg "$4" '
	($i[0].rebuild) as $idle | ($l[0].rebuild) as $load |
	def mean($ph; $k): [$load.samples[] | select(.phase == $ph) | .[$k]] |
		if length > 0 then add / length else "nan" end;
	[mean("before"; "iops"), mean("during"; "iops"), mean("after"; "iops")] as [$b, $d, $a] |
	[$idle.mbps, $idle.min_per_tb, $load.mbps] +
	([$b, $d, $a] | map(if type == "number" then . / 1e3 else . end)) +
	[(if ($b | type) == "number" and $b > 0 and ($d | type) == "number" then $d / $b else "nan" end),
	 mean("before"; "lat_p99_us"), mean("during"; "lat_p99_us"), mean("after"; "lat_p99_us"),
	 $dg / 1e3, (if ($d | type) == "number" and $dg > 0 then $d / $dg else "nan" end)] |
	@tsv' | awk -F'\t' -v lv="$3" '{ printf "raid%-3s %9.0f %8.1f %9.0f %9.1f %9.1f %9.1f %7.2f %7.0f %7.0f %7.0f %9.1f %7.2f\n",
		lv, $1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12 }'
}

echo "rebuild over 8 null members of $NULL_SIZE (raid_backend=null), chunk 64k, $WORKERS workers, against"
echo "the parity kernel alone in $WORKERS threads (MB/s of rebuilt member; ratio target >= 0.7):"
null_row 5 7
null_row 6 6
echo
echo "rebuild onto a spare, 8 members of $SIZE in /dev/shm, chunk 64k, io_uring backend, $WORKERS workers;"
echo "idle rebuild rate against a sequential copy of one member, $REPEAT runs each (ratio target >= 0.8),"
echo "and against the level's own member transfers done by parallel dd without the engine (ratio2):"
for level in 10 5; do
	rm -f "$DIR"/m* "$DIR"/s*
	for ((i = 0; i < 8; i++)); do fallocate -l "$SIZE" "$DIR/m$i"; done
	raid --raid_level=$level --rw=write --bs=1m --size=100% --raid_init=resync 2>/dev/null
	idle_row $level
done
echo
echo "idle: no foreground I/O (raid_rebuild_max=$MAX MB/s); loaded: 4k randread qd32,"
echo "member 1 failed at ${FAIL_AT}s, rebuild at raid_rebuild_min=$MIN MB/s; kIOPS per phase;"
echo "degraded: the same load on the array with member 1 failed and no rebuild (the fair"
echo "baseline for 'during': a degraded RAID5 read of the lost member's blocks reads the other 7)"
printf '%-6s %9s %8s %9s %9s %9s %9s %7s %7s %7s %7s %9s %7s\n' level idle_MB/s min/TB load_MB/s \
	before during after ratio p99b_us p99d_us p99a_us degraded ratio_dg
for level in 10 5; do
	rm -f "$DIR"/m* "$DIR"/s*
	for ((i = 0; i < 8; i++)); do fallocate -l "$SIZE" "$DIR/m$i"; done
	raid --raid_level=$level --rw=write --bs=1m --size=100% --raid_init=resync 2>/dev/null
	raid --raid_level=$level --rw=read --bs=4k --io_size=4k --raid_failed=1 \
		--raid_spares="$DIR/s0" --raid_rebuild=1 --raid_rebuild_max="$MAX" \
		--raid_stats="$DIR/idle.json" 2>/dev/null
	raid --raid_level=$level --rw=randread --bs=4k --iodepth=32 --time_based \
		--runtime="$RUNTIME" --norandommap --raid_fail=1@"$FAIL_AT" \
		--raid_spares="$DIR/s1" --raid_rebuild=1 --raid_rebuild_min="$MIN" \
		--raid_rebuild_max="$MAX" --raid_stats="$DIR/load.json" 2>/dev/null
	dg=$("$FIO" --name=dg --thread=1 --ioengine="external:$ENGINE" --filename=vol \
		--raid_members="$(members)" --raid_chunk=64k --raid_level=$level --rw=randread \
		--bs=4k --iodepth=32 --time_based --runtime="$FAIL_AT" --norandommap \
		--raid_failed=1 --output-format=json 2>/dev/null | jq '.jobs[0].read.iops')
	summary "$DIR/idle.json" "$DIR/load.json" $level "$dg"
done
