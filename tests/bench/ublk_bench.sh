#!/usr/bin/env bash
# tests/bench/ublk_bench.sh (make bench): the engine's array as a ublk block device against
# the same array through fio's ioengine and against md, from one run on the same member files
# and kernel (run.sh --target engine,ublk,md; in the appliance, Debian 13's 6.12, where the
# host kernel lacks ublk or md): 4 KiB random reads (QD1) and writes (QD32) in IOPS and 1 MiB
# sequential reads and writes in MB/s on a 4-member RAID5. Prints each figure and the two
# ratios, engine / ublk (the block path's cost) and ublk / md (the RAID's cost), computed
# here from the report's summary.csv; under emulation every ratio is marked emulated. Never
# fails on speed. RAID_UBLK names another server binary.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RAID_UBLK=${RAID_UBLK:-$ROOT/build/bin/raid-ublk}
export RAID_UBLK
if [[ ! -x $RAID_UBLK ]]; then
	echo "ublk_bench: skipped: $RAID_UBLK is not built"
	exit 0
fi
where=$("$ROOT/tools/mdvm/mdvm" check 2>/dev/null)
if [[ $? -eq 77 ]]; then
	echo "ublk_bench: skipped: no md here and the appliance cannot run ($where)"
	exit 0
fi
S=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-ubench.XXXXXX")
trap 'rm -rf "$S"' EXIT
runtime=${UBLK_BENCH_RUNTIME:-5}
TESTS=(raid5-4m-RND4K-Q1T64-randread raid5-4m-RND4K-Q32T64-randwrite raid5-4m-SEQ1M-Q8T64-read
	raid5-4m-SEQ1M-Q8T64-write)
env TMPDIR="$S" "$ROOT/run.sh" quick --repeat 1 --target engine,ublk,md --no-build \
	--runtime "$runtime" --member-size 256M --out "$S/results" \
	--only 'raid5-4m-(RND4K-(Q1T64-randread|Q32T64-randwrite)|SEQ1M-Q8T64-(read|write))$' \
	>"$S/run.log" 2>&1
rc=$?
R=$(ls -d "$S"/results/*-quick 2>/dev/null | head -1)
if [[ $rc -ne 0 || -z $R || ! -s $R/summary.csv ]]; then
	tail -20 "$S/run.log"
	echo "ublk_bench: run.sh or its report failed (exit $rc; no summary.csv)"
	exit 1
fi
col() { # TEST COLUMN -> that column of the test's row in the report's summary.csv
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) n[$i] = i; next }
		$n["test"] == t { print $n[c] }' "$R/summary.csv"
}
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (a > 0 && b > 0) printf "%.2fx", a / b; else print "-" }'; }
ublk_where=$(jq -r '.ublk.where // "?"' "$R/run.json")
md_where=$(jq -r '.md.where // "?"' "$R/run.json")
emu=""
[[ $md_where == *tcg* || $ublk_where == appliance* ]] && emu="*"
echo "ublk_bench: engine, ublk and md on the same members; ublk on $ublk_where, md from $md_where, ${runtime} s per test"
printf '%-34s %14s %14s %14s %14s %12s\n' test engine ublk md "engine / ublk" "ublk / md"
for t in "${TESTS[@]}"; do
	u=IOPS k=iops
	[[ $t == *SEQ1M* ]] && u=MB/s k=mbps
	e=$(col "$t" $k) b=$(col "ublk-$t" $k) m=$(col "md-$t" $k)
	printf '%-34s %14s %14s %14s %14s %12s\n' "$t" "${e:--} $u" "${b:--} $u" "${m:--} $u" \
		"$(ratio "$e" "$b")$emu" "$(ratio "$b" "$m")$emu"
done
[[ -z $emu ]] || echo "* emulated (QEMU TCG appliance): the ratios compare the paths only roughly"
exit 0
