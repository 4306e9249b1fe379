#!/usr/bin/env bash
# tests/presets/ab_test.sh: run.sh --ab OTHER.so (run/ab.sh): its bad input in one line, and one
# small A/B for real (RAID0 SEQ1M write, 2 repetitions, the same engine copied as B): the steps
# alternate (round 1 B then A, round 2 A then B), each side's run.json names its engine, the
# steps are put together as two runs of 2 repetitions (tests/T@1, T@2, meta repeat/repeats), and
# B is gated against A (a verdict, the table and the page). About a minute.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
S=$T_SCRATCH

t_case_fail "--ab without a value" --msg '--ab needs a value' "$RUN" quick --no-build --ab
t_case_fail "--ab naming no file" --msg "--ab: $S/none.so is not a file" "$RUN" quick --no-build --ab "$S/none.so"
cp "$ROOT/build/engines/raid.so" "$S/other.so"
t_case_fail "--ab with --scratch refused" --msg '--ab with --scratch' \
	"$RUN" quick --no-build --ab "$S/other.so" --scratch "$S"

ab() {
	TMPDIR=$S "$RUN" quick --ab "$S/other.so" --only '^raid0-4m-SEQ1M-Q8T64-write$' --repeat 2 \
		--scale 0.03 --runtime 1 --member-size 32M --out "$S/out" >"$S/ab.out" 2>&1
	local rc=$?
	cat "$S/ab.out"
	((rc <= 1))
}
t_case "a small A/B runs and gates B against A" ab
D=$(ls -d "$S"/out/ab-* 2>/dev/null | head -1)
t_case "alternating: round 1 B then A, round 2 A then B" bash -c \
	"[[ \$(grep -o '\] raid0-4m-SEQ1M-Q8T64-write [AB] done' '$S/ab.out' | awk '{print \$3}' | tr -d '\n') == BAAB ]]"
t_case "each side ran its own engine" bash -c \
	"[[ \$(jq -r .engine.path '$D/A/ab/run.json') == '$ROOT/build/engines/raid.so' && \$(jq -r .engine.path '$D/B/ab/run.json') == '$S/other.so' ]]"
t_case "each side is a run of 2 repetitions" bash -c \
	"for s in A B; do jq -e '.repeats == 2' $D/\$s/ab/run.json && for k in 1 2; do
	   jq -e \".repeat == \$k and .repeats == 2\" $D/\$s/ab/tests/raid0-4m-SEQ1M-Q8T64-write@\$k.meta.json || exit 1; done || exit 1; done"
t_case "the gate's table and page" bash -c \
	"grep -q '^raid0-4m-SEQ1M-Q8T64-write MB/s .* bootstrap ' '$D/gate.txt' && grep -q '<tr class=' '$D/gate.html'"
t_done
