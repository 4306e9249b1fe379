#!/usr/bin/env bash
# workcount_bench.sh - the exact tier's figures (figures, not a test; `make bench`;
# docs/report.md "The exact tier"): raid-workcount measured once as the baseline, then ten
# unchanged measurements gated against it (false alarms: figures flagged of figures judged),
# then the engine with its parity path planted 25% and 5% slower (RAID_TEST_SLOW_PARITY:
# every parity call does that much more parity work, pq_slow.c) gated against it: of the
# figures the plant touches (instructions per I/O of every RAID5/6 write case, the cases
# that compute parity), those flagged, and any other figure flagged. About 8 minutes
# (twelve measurements of 20 cases under cachegrind).
# Env: BENCH_OUT (directory for the files, default a temporary one), WC_BENCH_RUNS (the
# unchanged measurements, default 10).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
WC=$ROOT/build/bin/raid-workcount
OUT=${BENCH_OUT:-$(mktemp -d /tmp/fio-raid-workcount-bench.XXXXXX)}
RUNS=${WC_BENCH_RUNS:-10}
mkdir -p "$OUT"
command -v valgrind >/dev/null || { echo "workcount_bench: valgrind not installed"; exit 1; }
"$WC" measure --out "$OUT/base.json"
flagged() { awk '$NF == "REGRESSED" || $NF == "MISSING" || $NF == "improved" { print $1, $2, $3 }' "$1"; }
touched() { jq -r '.figures[].id | select(test("^raid[56] .*write instructions/io$"))' "$OUT/base.json"; }
touched >"$OUT/touched"
judged=0 alarms=0 maxdev=0
for ((i = 1; i <= RUNS; i++)); do
	"$WC" gate --baseline "$OUT/base.json" --out "$OUT/same$i.json" >"$OUT/same$i.gate" || true
	judged=$((judged + $(tail -1 "$OUT/same$i.gate" | awk '{print $3}')))
	alarms=$((alarms + $(flagged "$OUT/same$i.gate" | wc -l)))
	# the largest change of any figure between unchanged runs: what the tolerance must cover
	maxdev=$(awk -v m="$maxdev" '$NF == "passed" { c = $(NF-1); sub(/%/, "", c); c = c < 0 ? -c : c; if (c > m) m = c } END { print m }' "$OUT/same$i.gate")
done
echo "== exact tier (raid-workcount, cachegrind instructions and the engine's stats; $OUT)"
echo "command: $WC measure --out base.json; $WC gate --baseline base.json (x$RUNS, unchanged)"
echo "false alarms: $alarms of $judged figures judged over $RUNS unchanged runs; largest change of a passed figure: ${maxdev}% (tolerance 1%)"
for pct in 25 5; do
	RAID_TEST_SLOW_PARITY=$pct "$WC" gate --baseline "$OUT/base.json" >"$OUT/slow$pct.gate" || true
	flagged "$OUT/slow$pct.gate" >"$OUT/slow$pct.flagged"
	t=$(wc -l <"$OUT/touched")
	c=$(grep -cxFf "$OUT/touched" "$OUT/slow$pct.flagged" || true)
	e=$(grep -cvxFf "$OUT/touched" "$OUT/slow$pct.flagged" || true)
	echo "command: RAID_TEST_SLOW_PARITY=$pct $WC gate --baseline base.json"
	echo "planted ${pct}% slower parity path: $c of $t touched figures flagged ($((100 * c / t))%), $e other figures flagged"
	grep -Ff "$OUT/touched" "$OUT/slow$pct.gate" | awk '{ printf "  %s %s %s %s %s\n", $1, $2, $3, $(NF-1), $NF }'
done
