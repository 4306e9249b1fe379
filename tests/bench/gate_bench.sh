#!/usr/bin/env bash
# gate_bench.sh - the regression gate's two figures on this machine (figures, not a test; run
# by `make bench`; docs/report.md "The gate"):
#   false alarms: five unchanged quick runs gated against a baseline of three others: the
#     figures flagged, of all the figures judged (the aim: at most 1 in 100);
#   detection: each of those five runs copied with one configuration slowed by 25% (its fio
#     output scaled by 0.75 with report/testdata/scale-fio.jq: rates times 0.75, latencies over
#     it): of the figures the slowdown makes worse, those flagged (the aim: 95%), and what
#     else the copy flags beyond the unchanged run.
# The slowdown is planted in the output rather than in the engine (raid_null_delay) so that
# its size and the figures it touches are known exactly, while every other figure keeps a
# real run's noise; it costs no extra run. The eight runs are interleaved (B T T B T T B T)
# so that the machine's drift (a shared machine's load) hits baseline and runs alike.
# Env: BENCH_OUT (directory for the runs, default a temporary one), GATE_BENCH_RUNS (a
# directory that already holds eight quick runs at these settings: reuse them), BENCH_FLOOR
# (the gate's floor, default raid-report's).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RR=$ROOT/build/bin/raid-report
SLOW=raid5-4m-RND4K-Q32T64-randwrite
OUT=${BENCH_OUT:-$(mktemp -d /tmp/fio-raid-gate-bench.XXXXXX)}
RUNS=${GATE_BENCH_RUNS:-$OUT/runs}
FLOOR=(${BENCH_FLOOR:+--tolerance "$BENCH_FLOOR"})
mkdir -p "$OUT" "$RUNS"
while (($(ls -d "$RUNS"/*-quick 2>/dev/null | wc -l) < 8)); do
	scr=$(mktemp -d /dev/shm/gate-bench.XXXXXX)
	TMPDIR=$scr "$ROOT/run.sh" quick --no-build --no-report --scale 0.03 --runtime 1 \
		--member-size 32M --out "$RUNS" >>"$OUT/run.log" 2>&1 ||
		{ rm -rf "$scr"; tail -5 "$OUT/run.log"; echo "gate_bench: a quick run failed ($OUT/run.log)"; exit 1; }
	rm -rf "$scr"
done
mapfile -t all < <(ls -d "$RUNS"/*-quick | head -8)
base=("${all[0]}" "${all[3]}" "${all[6]}")
test=("${all[1]}" "${all[2]}" "${all[4]}" "${all[5]}" "${all[7]}")
"$RR" baseline "${base[@]}" >"$OUT/baseline.json"

# the figures a gate table flags, one id a line
flagged() { awk '$NF == "REGRESSED" || $NF == "MISSING" { sub(/ +(ratio|absolute) .*/, ""); print }' "$1"; }
judged=0 alarms=0 touched=0 caught=0 extra=0
for r in "${test[@]}"; do
	n=$(basename "$r")
	"$RR" gate --baseline "$OUT/baseline.json" "${FLOOR[@]}" "$r" >"$OUT/$n.gate" || true
	judged=$((judged + $(tail -1 "$OUT/$n.gate" | awk '{print $2}')))
	flagged "$OUT/$n.gate" >"$OUT/$n.flagged"
	alarms=$((alarms + $(wc -l <"$OUT/$n.flagged")))
	# the same run with one configuration slowed by a quarter
	s=$OUT/slow/$n
	rm -rf "$s" && mkdir -p "$OUT/slow" && cp -r "$r" "$s"
	# every repetition of it (tests/T@K.json with --repeat, tests/T.json without)
	slowed=0
	for f in "$r/tests/$SLOW.json" "$r/tests/$SLOW"@*.json; do
		[[ -f $f && $f != *.meta.json && $f != *.stats.json ]] || continue
		jq --argjson f 0.75 -f "$ROOT/report/testdata/scale-fio.jq" "$f" >"$s/tests/${f##*/}"
		slowed=$((slowed + 1))
	done
	((slowed)) || { echo "gate_bench: $r has no $SLOW test to slow"; exit 1; }
	# the figures it makes worse: its own rate, latency, its ratios to JBOD and RAID0, its
	# CPU per I/O against RAID0's (fio's CPU time over fewer I/Os)
	awk -v t="$SLOW" \
		'index($1, t) == 1 && $2 != "member_ios_per_io" && $2 != "parity_gbps/mem_bw" { sub(/ +(ratio|absolute) .*/, ""); print }' "$OUT/$n.gate" >"$OUT/$n.touched"
	"$RR" gate --baseline "$OUT/baseline.json" "${FLOOR[@]}" "$s" >"$OUT/$n.slow.gate" || true
	flagged "$OUT/$n.slow.gate" >"$OUT/$n.slow.flagged"
	touched=$((touched + $(wc -l <"$OUT/$n.touched")))
	caught=$((caught + $(grep -cxFf "$OUT/$n.touched" "$OUT/$n.slow.flagged" || true)))
	extra=$((extra + $(grep -vxFf "$OUT/$n.touched" "$OUT/$n.slow.flagged" | grep -cvxFf "$OUT/$n.flagged" || true)))
done
echo "== gate bench: baseline of 3 quick runs, 5 unchanged runs, $SLOW slowed by 25% ($OUT)"
echo "command: $RR baseline RUN1 RUN4 RUN7 > baseline.json; $RR gate --baseline baseline.json RUN (and its slowed copy)"
awk -v a="$alarms" -v j="$judged" 'BEGIN { printf "false alarms: %d of %d figures judged (%.1f in 100; aim: at most 1)\n", a, j, 100 * a / j }'
awk -v c="$caught" -v t="$touched" -v e="$extra" 'BEGIN { printf "detection: %d of %d figures the slowdown touched flagged (%.0f%%; aim: 95%%), %d other figures flagged beyond the unchanged runs\n", c, t, 100 * c / t, e }'
# the statistical tier's verdicts over the unchanged runs, and (c): the change each figure of
# one default quick run could have been told by, with the repetitions a side for 10%
# (columns of the gate's table: test, detectable, n@10%, verdict)
cat "$OUT"/*-quick.gate | awk '$1 != "gate:" && $1 != "figure" { v = $NF ~ /%\)$/ ? "cannot tell" : $NF; n[v]++ }
	END { printf "verdicts over the unchanged runs:"; for (k in n) printf " %s %d", k, n[k]; print "" }'
first=$(ls "$OUT"/*-quick.gate | head -1)
echo "== (c) detectable change per figure of one default quick run (--repeat 3, 1 s) against the baseline (9 repetitions), threshold ${BENCH_FLOOR:-15}%"
echo "command: $RR gate --baseline baseline.json $(basename "${first%.gate}")"
awk '$1 != "gate:" && $1 != "figure" {
	d = ""; n10 = ""; for (i = 1; i <= NF; i++) if ($i ~ /^(mann-whitney|bootstrap|-)$/ && i > 4) { d = $(i + 1); n10 = $(i + 2); t = $i }
	id = $0; sub(/ +(ratio|absolute) .*/, "", id)
	printf "  %-64s %-12s detectable %8s  repeats for 10%%: %s\n", id, t, d, n10 }' "$first"
