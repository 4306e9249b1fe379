#!/usr/bin/env bash
# tests/bench/targets_bench.sh (make bench): the engine against md, from one run on the same
# member files and kernel (run.sh --target engine,md; in the md appliance where the host has
# no md): 4 KiB random writes on RAID5 and RAID6, 1 MiB sequential writes on RAID6 and 4 KiB
# random reads (QD1) on RAID5, over 4 members. Prints each figure, engine / md, and the host
# CPU per I/O of both (whole machine: md's kernel threads included), as the run's report
# computes them (summary.csv: iops, mbps, vs_md, host_cpu_us_per_io). Never fails on speed.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
where=$("$ROOT/tools/mdvm/mdvm" check 2>/dev/null)
if [[ $? -eq 77 ]]; then
	echo "targets_bench: skipped: no md here and the md appliance cannot run ($where)"
	exit 0
fi
S=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-tbench.XXXXXX")
trap 'rm -rf "$S"' EXIT
runtime=${TARGETS_BENCH_RUNTIME:-5}
env TMPDIR="$S" "$ROOT/run.sh" quick --repeat 1 --target engine,md --no-build --runtime "$runtime" \
	--member-size 256M --out "$S/results" \
	--only 'raid5-4m-RND4K-(Q32T64-randwrite|Q1T64-randread)|raid6-4m-(RND4K-Q32T64-randwrite|SEQ1M-Q8T64-write)' \
	>"$S/run.log" 2>&1
rc=$?
R=$(ls -d "$S"/results/*-quick 2>/dev/null | head -1)
if [[ $rc -ne 0 || -z $R || ! -s $R/summary.csv ]]; then
	tail -20 "$S/run.log"
	echo "targets_bench: run.sh or its report failed (exit $rc; no summary.csv)"
	exit 1
fi
md_where=$(jq -r '.md.where' "$R/run.json")
col() { # TEST COLUMN -> that column of the test's row in the report's summary.csv
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) n[$i] = i; next }
		$n["test"] == t { print $n[c] }' "$R/summary.csv"
}
emu=""
[[ $md_where == *tcg* ]] && emu=" (emulated: compares the two paths only roughly)"
echo "targets_bench: engine vs md, same members and kernel; md from $md_where, ${runtime} s per test"
printf '%-34s %16s %16s %13s %22s\n' test engine md "engine / md" "host CPU us/IO e / md"
for t in raid5-4m-RND4K-Q32T64-randwrite raid6-4m-RND4K-Q32T64-randwrite \
	raid6-4m-SEQ1M-Q8T64-write raid5-4m-RND4K-Q1T64-randread; do
	u=IOPS k=iops
	[[ $t == *SEQ1M* ]] && u=MB/s k=mbps
	r=$(col "$t" vs_md)
	printf '%-34s %16s %16s %13s %22s\n' "$t" "$(col "$t" $k) $u" "$(col "md-$t" $k) $u" \
		"$([[ -n $r ]] && echo "${r}x" || echo -)$([[ -n $emu ]] && echo '*')" \
		"$(col "$t" host_cpu_us_per_io) / $(col "md-$t" host_cpu_us_per_io)"
done
[[ -z $emu ]] || echo "* under emulation (TCG$([[ $md_where == *appliance* ]] && echo ', md appliance')): the figures compare the two paths only roughly"
exit 0
