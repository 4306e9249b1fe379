#!/usr/bin/env bash
# Regenerates report/testdata/run-repeats: a run with three repetitions of three tests in the
# layout of `run.sh --repeat 3` (tests/<test>@K.*, meta "test", "repeat", "repeats";
# results/README.md), made from run-quick's real tests: repetition K is the real fio output
# scaled by a factor (scale-fio.jq), so that each figure's median and range are known: IOPS
# and MB/s of each test times 1 (K=1), 0.9 (K=2) and 1.2 (K=3), latency over them. The
# stats file is the real one for each repetition.
#   bash report/testdata/make-repeats.sh
set -euo pipefail
TD=$(cd "$(dirname "$0")" && pwd)
IN=$TD/run-quick
OUT=$TD/run-repeats
rm -rf "$OUT"
mkdir -p "$OUT/tests"
cp "$IN/run.json" "$OUT/"
factors=(1 0.9 1.2)
for t in jbod-4-SEQ1M-Q8T64-read raid0-4-SEQ1M-Q8T64-read raid5-4-SEQ1M-Q8T64-read; do
	for k in 1 2 3; do
		jq --argjson f "${factors[k - 1]}" -f "$TD/scale-fio.jq" "$IN/tests/$t.json" >"$OUT/tests/$t@$k.json"
		jq --argjson k "$k" '. + {repeat: $k, repeats: 3}' "$IN/tests/$t.meta.json" >"$OUT/tests/$t@$k.meta.json"
		[[ ! -e $IN/tests/$t.stats.json ]] || cp "$IN/tests/$t.stats.json" "$OUT/tests/$t@$k.stats.json"
	done
done
