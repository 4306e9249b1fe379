#!/usr/bin/env bash
# ab_bench.sh - the statistical tier's figure (b) on this machine (figures, not a test; run by
# `make bench`; docs/report.md "The gate"): `run.sh --ab` on the quick preset with B this build
# with its request path planted 25% slower (RAID_TEST_SLOW_REQUEST, for B's steps only:
# RAID_AB_ENV_B, run/ab.sh), then A/A (B this build unchanged). "25% slower" as gate_bench.sh
# plants it: rates times 0.75, so each reap cycle of the engine's queue (the parity computed in
# it included) is made 33% longer (100 x S / (100 - S)). The parity path's own plant
# (RAID_TEST_SLOW_PARITY) is the exact tier's; added here it would compound on writes.
# Detection: of the figures the slowdown touches (every engine figure but member I/Os per I/O,
# which a slower path leaves as it was), those B's gate calls REGRESSED; false alarms: the
# figures the A/A gate calls REGRESSED, of all it judged. Also what it would take: the
# repetitions a side the gate's own power estimate asks for a 25% and a 10% change.
# One A/B step is one run.sh of one test (~4 s here quiet, 10-15 s loaded), so the whole quick
# preset at a repeat count that can resolve 25% takes an hour or more: by default the bench
# runs the quick preset's RAID5 tests (all four operations: SEQ1M write/read, RND4K randwrite/randread).
# The steps run with --concurrent: on this machine others' runs hold run.sh's lock for long;
# alternation makes whatever runs beside fall on both sides alike (the load is printed).
# Env: AB_BENCH_ONLY (run.sh --only, default '^raid5-4m-'; '.' for the whole preset),
# AB_BENCH_REPEAT (repetitions a side, default 10), AB_BENCH_SLOW (percent, default 25),
# BENCH_OUT (directory, default a temporary one), AB_BENCH_RUNS (a directory of an earlier
# bench's slow/ and same/ runs: only reported again).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
ONLY=${AB_BENCH_ONLY:-^raid5-4m-}
REPS=${AB_BENCH_REPEAT:-10}
SLOW=${AB_BENCH_SLOW:-25}
((SLOW > 0 && SLOW < 100)) || { echo "ab_bench: AB_BENCH_SLOW must be a percent from 1 to 99 (got '$SLOW')"; exit 2; }
REQ=$(((100 * SLOW + (100 - SLOW) / 2) / (100 - SLOW)))
PLANT="RAID_TEST_SLOW_REQUEST=$REQ"
OUT=${AB_BENCH_RUNS:-${BENCH_OUT:-$(mktemp -d /var/tmp/fio-raid-ab-bench.XXXXXX)}}
SO=$ROOT/build/engines/raid.so
ARGS=(quick --no-build --concurrent --repeat "$REPS" --only "$ONLY")

# ab NAME [ENV...]: one run.sh --ab into OUT/NAME, unless it is there already
ab() {
	local name=$1
	shift
	ls "$OUT/$name"/ab-*/gate.txt >/dev/null 2>&1 && return 0
	mkdir -p "$OUT/$name"
	cut -d' ' -f1 /proc/loadavg >"$OUT/$name.load"
	env "$@" nice -n 5 "$ROOT/run.sh" "${ARGS[@]}" --ab "$SO" --out "$OUT/$name" \
		>"$OUT/$name.log" 2>&1 || (($? == 1)) ||
		{ tail -5 "$OUT/$name.log"; echo "ab_bench: the $name A/B failed ($OUT/$name.log)"; exit 1; }
	cut -d' ' -f1 /proc/loadavg >>"$OUT/$name.load"
}
# load NAME: the load average at the A/B's start and end ("-" where not recorded)
load() { [[ -s $OUT/$1.load ]] && paste -sd- "$OUT/$1.load" || echo -; }
ab slow RAID_AB_ENV_B="$PLANT"
ab same
slow=$(ls "$OUT"/slow/ab-*/gate.txt | head -1)
same=$(ls "$OUT"/same/ab-*/gate.txt | head -1)
# took GATE: minutes from the A/B's start (its directory's name) to its gate's table
took() {
	local d=${1%/gate.txt} t
	t=${d##*/ab-}
	echo $((($(stat -c %Y "$1") - $(date -d "${t:0:8} ${t:9:2}:${t:11:2}:${t:13:2}" +%s)) / 60))
}

# a gate table's rows as: figure verdict detectable% n@10% (the figure: test and name)
rows() {
	awk '$1 != "gate:" && $1 != "figure" && NF > 8 {
		v = $0 ~ /cannot tell/ ? "cannot" : $NF
		d = "-"; n = "-"; c = "-"
		for (i = 1; i <= NF; i++) {
			if ($i ~ /^[0-9.]+%$/ && $(i + 1) ~ /^[0-9]+$/) { d = $i; n = $(i + 1) }
			if ($i ~ /^[-+][0-9.]+%$/) c = $i
		}
		print $1 "/" $2, v, d, n, c }' "$1"
}
rows "$slow" >"$OUT/slow.rows"
rows "$same" >"$OUT/same.rows"
# touched: every figure of an engine test (JBOD runs fio's own engine) but member I/Os per I/O
awk '$1 !~ /^jbod-/ && $1 !~ /member_ios_per_io$/' "$OUT/slow.rows" >"$OUT/touched.rows"
touched=$(wc -l <"$OUT/touched.rows")
caught=$(awk '$2 == "REGRESSED"' "$OUT/touched.rows" | wc -l)
other=$(awk '$1 ~ /^jbod-/ || $1 ~ /member_ios_per_io$/' "$OUT/slow.rows" | awk '$2 == "REGRESSED"' | wc -l)
judged=$(wc -l <"$OUT/same.rows")
alarms=$(awk '$2 == "REGRESSED"' "$OUT/same.rows" | wc -l)
echo "== A/B bench: run.sh quick --only '$ONLY' --repeat $REPS --ab (B: $PLANT), then A/A; $OUT"
echo "command: RAID_AB_ENV_B='$PLANT' ./run.sh ${ARGS[*]} --ab build/engines/raid.so; ./run.sh ${ARGS[*]} --ab build/engines/raid.so"
echo "took $(took "$slow") + $(took "$same") min (A/B, A/A); load average at their start and end $(load slow), $(load same) (2 cores shared)"
awk -v c="$caught" -v t="$touched" -v o="$other" -v r="$REPS" -v s="$SLOW" 'BEGIN {
	printf "detection: %d of %d figures the %d%% slowdown touched REGRESSED (%.0f%%; aim: 95%%) with %d repetitions a side; %d untouched figures flagged\n", c, t, s, t ? 100 * c / t : 0, r, o }'
awk -v a="$alarms" -v j="$judged" -v r="$REPS" 'BEGIN {
	printf "false alarms (A/A): %d of %d figures REGRESSED (%.1f in 100; aim: at most 1) with %d repetitions a side\n", a, j, j ? 100 * a / j : 0, r }'
# how far the slowdown moved each touched figure (the gate's change column: median B / A),
# and of those that moved by more than the threshold, how many it called
awk '{ c = $5; sub(/%/, "", c); c += 0; if ($1 ~ /(lat_mean_us|cpu_per_io)$/) c = -c
	printf "%s%+.0f", (NR > 1 ? " " : ""), c; if (c < -15) { m++; if ($2 == "REGRESSED") mc++ } }
	END { printf " (%% worse is negative)\nmoved worse by more than the 15%% threshold: %d of %d, REGRESSED %d of them\n", m, NR, mc }' \
	"$OUT/touched.rows" | sed '1s/^/touched figures moved: /'
for f in slow same; do
	awk -v f="$f" '{ n[$2]++ } END { printf "verdicts %s:", f; for (k in n) printf " %s %d", k, n[k]; print "" }' "$OUT/$f.rows"
done
# what it would take: per figure of the kinds the slowdown touches, the repetitions a side for
# a 25% change (power.c's estimate from the A/A samples: n x (detectable / 25%)^2, at least 4;
# the gate calls a regression only beyond its 15% threshold) and for 10% (its own column)
awk -v r="$REPS" '$3 != "-" && $1 !~ /^jbod-/ && $1 !~ /member_ios_per_io$/ { d = $3 + 0; n25 = r * (d / 25) ^ 2; n25 = n25 < 4 ? 4 : int(n25 + 0.999)
	print n25, $4, d, $1 }' "$OUT/same.rows" | sort -n >"$OUT/need.rows"
# col N: column N of need.rows sorted, one a line
col() { awk -v c="$1" '{ print $c }' "$OUT/need.rows" | sort -g; }
nr=$(wc -l <"$OUT/need.rows")
if ((nr)); then
	m=$(((nr + 1) / 2)) k=$(((nr * 95 + 99) / 100))
	echo "touched kinds, A/A: detectable change median $(col 3 | sed -n ${m}p)%, most $(col 3 | tail -1)%;" \
		"repetitions a side for 25%: median $(col 1 | sed -n ${m}p), 95% of figures $(col 1 | sed -n ${k}p)," \
		"most $(col 1 | tail -1); for 10%: median $(col 2 | sed -n ${m}p), most $(col 2 | tail -1)"
fi
echo "per figure (n@25% n@10% detectable% figure): $OUT/need.rows"
