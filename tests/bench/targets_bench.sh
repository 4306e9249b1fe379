#!/usr/bin/env bash
# tests/bench/targets_bench.sh (make bench): the engine against md, from one run on the same
# member files and kernel (run.sh --target engine,md; in the md appliance where the host has
# no md): 4 KiB random writes on RAID5 and RAID6, 1 MiB sequential writes on RAID6 and 4 KiB
# random reads (QD1) on RAID5, over 4 members. Prints each figure, engine / md, and the host
# CPU per I/O of both (whole machine: md's kernel threads included). Never fails on speed.
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RJ=$ROOT/build/bin/raid-json
where=$("$ROOT/tools/mdvm/mdvm" check 2>/dev/null)
if [[ $? -eq 77 ]]; then
	echo "targets_bench: skipped: no md here and the md appliance cannot run ($where)"
	exit 0
fi
S=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-tbench.XXXXXX")
trap 'rm -rf "$S"' EXIT
runtime=${TARGETS_BENCH_RUNTIME:-5}
env TMPDIR="$S" "$ROOT/run.sh" quick --target engine,md --no-build --no-report --runtime "$runtime" \
	--member-size 256M --out "$S/results" \
	--only 'raid5-4m-RND4K-(Q32T64-randwrite|Q1T64-randread)|raid6-4m-(RND4K-Q32T64-randwrite|SEQ1M-Q8T64-write)' \
	>"$S/run.log" 2>&1
rc=$?
R=$(ls -d "$S"/results/*-quick 2>/dev/null | head -1)
if [[ $rc -ne 0 || -z $R ]]; then
	tail -20 "$S/run.log"
	echo "targets_bench: run.sh failed (exit $rc)"
	exit 1
fi
md_where=$(jq -r '.md.where' "$R/run.json")
fig() { # TEST -> "value unit" (MB/s for 1M tests, IOPS otherwise)
	"$RJ" headline "$R/tests/$1.json" | sed 's/,.*//'
}
cpu_per_io() { # TEST -> host CPU us per I/O
	local m=$R/tests/$1.meta.json u s q i
	read -r u s q i < <(jq -r '.host_cpu | "\(.user_s) \(.system_s) \(.softirq_s) \(.interval_s)"' "$m")
	awk -v u="$u" -v s="$s" -v q="$q" -v i="$i" \
		-v n="$("$RJ" headline "$R/tests/$1.json" | awk '{ print $1 }')" -v large="$2" \
		'BEGIN { if (large) n = n * 1e6 / 1048576; printf "%.1f", (u + s + q) / i / n * 1e6 }'
}
emu=""
[[ $md_where == *tcg* ]] && emu=" (emulated: compares the two paths only roughly)"
echo "targets_bench: engine vs md, same members and kernel; md from $md_where, ${runtime} s per test"
printf '%-34s %16s %16s %13s %22s\n' test engine md "engine / md" "host CPU us/IO e / md"
for t in raid5-4m-RND4K-Q32T64-randwrite raid6-4m-RND4K-Q32T64-randwrite \
	raid6-4m-SEQ1M-Q8T64-write raid5-4m-RND4K-Q1T64-randread; do
	large=0
	[[ $t == *SEQ1M* ]] && large=1
	e=$(fig "$t") m=$(fig "md-$t")
	r=$(awk -v a="${e%% *}" -v b="${m%% *}" 'BEGIN { if (b > 0) printf "%.2fx", a / b; else print "-" }')
	printf '%-34s %16s %16s %13s %22s\n' "$t" "$e" "$m" "$r$([[ -n $emu ]] && echo '*')" \
		"$(cpu_per_io "$t" $large) / $(cpu_per_io "md-$t" $large)"
done
[[ -z $emu ]] || echo "* under emulation (TCG$([[ $md_where == *appliance* ]] && echo ', md appliance')): the figures compare the two paths only roughly"
exit 0
