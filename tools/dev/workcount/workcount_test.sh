#!/usr/bin/env bash
# workcount_test.sh - raid-workcount, the gate's exact tier (docs/report.md "The exact tier"):
# the stats' counts of each case are the levels' arithmetic (RAID5 4K random write: 4 member
# I/Os, twice the bytes, 3 parity bytes per byte), the checked-in baseline's counts are this
# build's, the gate passes an unchanged build and names a figure that grew (REGRESSED, exit 1),
# shrank (improved, exit 0) or went (MISSING, exit 1), refuses a file that is no baseline
# (exit 2, one line), and under valgrind counts instructions per I/O exactly enough that a
# planted 25% slower parity path (RAID_TEST_SLOW_PARITY) is REGRESSED on RAID5's 4K random
# write and the same case unchanged passes. About 15 s (two cases under valgrind).
source "$(dirname "$0")/../../../tests/lib.sh"
WC=$ROOT/build/bin/raid-workcount
BASE=$ROOT/results/baselines/workcount.json
S=$T_SCRATCH

t_case "counts-only measure" bash -c "'$WC' measure --counts-only --out '$S/c.json'"
fig() { jq -e --arg id "$1" '.figures[] | select(.id == $id) | .value' "$S/c.json"; }
t_case "raid5 4K random write: 4 member I/Os" bash -c "$(declare -f fig); S='$S'; [[ \$(fig 'raid5 rnd4k-randwrite member_ios/io') == 4 ]]"
t_case "raid5 4K random write: write amplification 2" bash -c "$(declare -f fig); S='$S'; [[ \$(fig 'raid5 rnd4k-randwrite write_amp') == 2 ]]"
t_case "raid5 4K random write: 3 parity bytes per byte" bash -c "$(declare -f fig); S='$S'; [[ \$(fig 'raid5 rnd4k-randwrite parity_bytes/byte') == 3 ]]"
t_case "raid1 1M write: written twice" bash -c "$(declare -f fig); S='$S'; [[ \$(fig 'raid1 seq1m-write write_amp') == 2 ]]"
t_case "every level and op measured (5 x 4 cases)" bash -c "[[ \$(jq '[.figures[].id | split(\" \")[0:2] | join(\" \")] | unique | length' '$S/c.json') == 20 ]]"

# the checked-in baseline's exact counts are this build's (its instructions need valgrind)
jq '.figures |= map(select(.id | endswith("instructions/io") | not))' "$BASE" >"$S/base-counts.json"
t_case "checked-in baseline's counts pass" "$WC" gate --baseline "$S/base-counts.json" "$S/c.json"

# a baseline one figure of which was 2% lower: this build regressed on it, by name
jq '(.figures[] | select(.id == "raid6 rnd4k-randwrite member_ios/io") | .value) /= 1.02' "$S/c.json" >"$S/lower.json"
t_case_fail "a figure 2% above its baseline: REGRESSED" --msg '^raid6 rnd4k-randwrite member_ios/io .* REGRESSED$' \
	"$WC" gate --baseline "$S/lower.json" "$S/c.json"
jq '(.figures[] | select(.id == "raid6 rnd4k-randwrite member_ios/io") | .value) *= 1.02' "$S/c.json" >"$S/higher.json"
t_case "a figure 2% below its baseline: improved, exit 0" bash -c \
	"'$WC' gate --baseline '$S/higher.json' '$S/c.json' | grep -q '^raid6 rnd4k-randwrite member_ios/io .* improved$'"
jq '(.figures[] | select(.id == "raid6 rnd4k-randwrite member_ios/io") | .value) /= 1.005' "$S/c.json" >"$S/within.json"
t_case "0.5% (within the 1% tolerance): passed" "$WC" gate --baseline "$S/within.json" "$S/c.json"
jq 'del(.figures[0])' "$S/c.json" >"$S/less.json"
t_case_fail "a baseline figure this build lacks: MISSING" --msg 'raid0 seq1m-write member_ios/io .* MISSING$' \
	"$WC" gate --baseline "$S/c.json" "$S/less.json"
echo '{"format": 9, "figures": []}' >"$S/bad.json"
t_case_fail "not a baseline: one line, exit 2" --msg 'bad.json: not a raid-workcount file' \
	bash -c "'$WC' gate --baseline '$S/bad.json' '$S/c.json'; [[ \$? == 2 ]] || exit 0; exit 2"
t_case_fail "bad tolerance" --msg "tolerance 'x'" "$WC" gate --baseline "$S/c.json" --tolerance x

# instructions under valgrind: unchanged passes, a planted 25% slower parity path regresses
if ! command -v valgrind >/dev/null; then
	t_skip "valgrind not installed: the instruction counts untested"
fi
ONE=(--only "raid5 rnd4k-randwrite")
t_case "valgrind: one case measured" "$WC" measure "${ONE[@]}" --out "$S/v1.json"
t_case "valgrind: unchanged rerun passes (exact)" "$WC" gate --baseline "$S/v1.json" "${ONE[@]}" --tolerance 0.01
t_case_fail "valgrind: planted 25% slower parity path REGRESSED" --msg '^raid5 rnd4k-randwrite instructions/io .* REGRESSED$' \
	env RAID_TEST_SLOW_PARITY=25 "$WC" gate --baseline "$S/v1.json" "${ONE[@]}"
t_done
