#!/usr/bin/env bash
# bitmap_bench.sh - what the write-intent bitmap (raid_bitmap=1) costs and saves (figures,
# not a test; `make bench`), over member files in /dev/shm, each ratio from one run:
#   writes: 4 KiB random writes at depth 32 on RAID5 x4 and RAID6 x6, with the state file
#           (the dirty mark) and without then with the bitmap, runs alternated BENCH_REPEAT
#           times, best of each: ratio = IOPS with / IOPS without, target >= 0.9;
#   resync: RAID5 x4 of BENCH_RESYNC_SIZE members, written whole, then random writes on 1% of
#           the volume killed with -9, then the start's resync of the bitmap's regions
#           (seconds from the stats) against a full resync of the same array
#           (raid_init=resync), each BENCH_REPEAT times from the same crash, best of each:
#           ratio = bitmap / full, target <= 0.05.
# Env: BENCH_SIZE (per member, writes, 256m), BENCH_RUNTIME (s per run, 3), BENCH_REPEAT (5),
#      BENCH_RESYNC_SIZE (per member, 1g), BENCH_ONLY=resync (the resync figures alone).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
FIO=$ROOT/build/bin/fio
ENGINE=$ROOT/build/engines/raid.so
SIZE=${BENCH_SIZE:-256m}
RUNTIME=${BENCH_RUNTIME:-3}
REPEAT=${BENCH_REPEAT:-5}
RSIZE=${BENCH_RESYNC_SIZE:-1g}
DIR=$(mktemp -d /dev/shm/fio-raid-bmbench.XXXXXX)
trap 'rm -rf "$DIR"' EXIT

members() { local i out=; for ((i = 0; i < $1; i++)); do out+=${out:+:}$DIR/$2$i; done; echo "$out"; }

raid() { # LEVEL N PREFIX MS ARGS...: one fio job over the members
	local level=$1 n=$2 p=$3 ms=$4
	shift 4
	"$FIO" --name=bm --thread=1 --ioengine="external:$ENGINE" --filename=vol \
		--raid_level="$level" --raid_members="$(members "$n" "$p")" --raid_member_size="$ms" \
		--raid_chunk=64k --output-format=json "$@" 2>"$DIR/log" || { cat "$DIR/log" >&2; return 1; }
}
iops() { jq '.jobs[0].write.iops | floor'; }

writes() { # LEVEL N
	local l=$1 n=$2 p=w$1- best0=0 best1=0 v r
	raid "$l" "$n" $p "$SIZE" --rw=write --bs=1m --raid_state="$DIR/$p.st" >/dev/null
	for ((r = 0; r < REPEAT; r++)); do
		for b in 0 1; do
			v=$(raid "$l" "$n" $p "$SIZE" --rw=randwrite --bs=4k --iodepth=32 \
				--time_based --runtime="$RUNTIME" --raid_state="$DIR/$p.st" \
				--raid_bitmap=$b | iops)
			if ((b)); then ((v > best1)) && best1=$v; else ((v > best0)) && best0=$v; fi
		done
	done
	awk -v l="$l" -v n="$n" -v a="$best0" -v b="$best1" 'BEGIN {
		printf "raid%s x%d 4k randwrite: %d IOPS without the bitmap, %d with: ratio %.2f (target >= 0.9)\n",
			l, n, a, b, b / a }'
}

resync() {
	local p=r- st=$DIR/r.st pid i vol bm full r
	vol=$(numfmt --from=iec "${RSIZE^^}")
	vol=$((vol * 3))
	local area=(--offset=$((vol / 1000 * 400 / 196608 * 196608)) --size=$((vol / 100 / 196608 * 196608)))
	# every byte written (a full resync of holes would read nothing from the members)
	raid 5 4 $p "$RSIZE" --rw=write --bs=1m --iodepth=8 --raid_state="$st" --raid_bitmap=1 \
		>/dev/null
	# fio itself in the background, so that the kill reaches it
	"$FIO" --name=bm --thread=1 --ioengine="external:$ENGINE" --filename=vol --raid_level=5 \
		--raid_members="$(members 4 $p)" --raid_member_size="$RSIZE" --raid_chunk=64k \
		--rw=randwrite --bs=4k --iodepth=8 "${area[@]}" --time_based --runtime=120 \
		--raid_state="$st" --raid_bitmap=1 >/dev/null 2>&1 &
	pid=$!
	for ((i = 0; i < 200; i++)); do
		grep -q '"clean": false' "$st" 2>/dev/null && break
		sleep 0.1
	done
	sleep 2
	kill -9 $pid
	wait $pid 2>/dev/null || true
	# the crash's state and bitmap, so that each start below resyncs the same regions
	cp "$st" "$DIR/st.crash" && cp "$st.bitmap" "$DIR/bm.crash"
	bm=1e9 full=1e9
	for ((r = 0; r < REPEAT; r++)); do
		cp "$DIR/st.crash" "$st" && cp "$DIR/bm.crash" "$st.bitmap"
		raid 5 4 $p "$RSIZE" --rw=read --bs=4k --size=4k --raid_state="$st" \
			--raid_bitmap=1 --raid_stats="$DIR/bm.json" >/dev/null
		raid 5 4 $p "$RSIZE" --rw=read --bs=4k --size=4k --raid_init=resync \
			--raid_stats="$DIR/full.json" >/dev/null
		[[ $(jq -r .resync.scope "$DIR/bm.json") == bitmap ]] || {
			echo "the start after kill -9 did not resync by the bitmap" >&2
			return 1
		}
		bm=$(jq -n --argjson a "$bm" --argjson b "$(jq .resync.seconds "$DIR/bm.json")" '[$a, $b] | min')
		full=$(jq -n --argjson a "$full" --argjson b "$(jq .resync.seconds "$DIR/full.json")" '[$a, $b] | min')
	done
	awk -v b="$bm" -v f="$full" -v bb="$(jq .resync.bytes "$DIR/bm.json")" \
		-v fb="$(jq .resync.bytes "$DIR/full.json")" 'BEGIN {
		printf "raid5 x4 resync after kill -9 (random writes on 1%% of the volume): bitmap %.3f s (%d MiB a member), full %.3f s (%d MiB), best of each: ratio %.3f (target <= 0.05)\n",
			b, bb / 1048576, f, fb / 1048576, b / f }'
}

[[ ${BENCH_ONLY:-} == resync ]] || writes 5 4
[[ ${BENCH_ONLY:-} == resync ]] || writes 6 6
resync
