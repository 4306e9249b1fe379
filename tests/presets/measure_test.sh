#!/usr/bin/env bash
# tests/presets/measure_test.sh: how the tests measure (issue 33, points 5 and 6), from the
# plan's dry run: md's write-intent bitmap and consistency policy (--md-bitmap none|internal
# |auto, auto as mdadm 4.2 chooses: internal over 100 GiB a member; --md-consistency ppl on
# RAID5 only; ppl with an internal bitmap refused), and preconditioning and fio's steady
# state on block devices (the preset's lines, --[no-]precondition, --[no-]steadystate):
# member files skip both with one line, drives (loop devices here) get the fill, the random
# writes and fio's steadystate options; then one real run over the loop devices records
# steady state in meta.json.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
P=$ROOT/build/bin/raid-preset
# shellcheck disable=SC2054 # engine,md is one word: the targets
DRY=(--dry-run --no-build --profile host --target engine,md --scale 0.0625)
[[ -x $P ]] || t_skip "build/bin/raid-preset is not built (make)"

md_line() { # LEVEL ARGS... -> the dry run's mdadm line of that level's first md test
	local lv=$1
	shift
	"$RUN" quick "${DRY[@]}" "$@" 2>/dev/null | grep "^# md: mdadm --create .* --level=$lv " | head -1
}
has() { # WANT LEVEL ARGS...: the mdadm line holds WANT (a word), or lacks it with !WANT
	local want=$1 line
	shift
	line=$(md_line "$@")
	echo "$line"
	[[ -n $line ]] || return 1
	if [[ $want == !* ]]; then [[ " $line " != *" ${want#!}"* ]]; else [[ " $line " == *" $want "* ]]; fi
}
t_case "auto, small members: no bitmap, as mdadm chooses under 100 GiB" has --bitmap=none 5
t_case "auto, 100 GiB members: still none (mdadm: over 100 GiB)" has --bitmap=none 6 --member-size 100G
t_case "auto, 101 GiB members: internal, as mdadm would add it" has --bitmap=internal 10 --member-size 101G
t_case "--md-bitmap internal on small members" has --bitmap=internal 5 --md-bitmap internal
t_case "--md-bitmap none on large members" has --bitmap=none 10 --md-bitmap none --member-size 200G
t_case "RAID0: no bitmap option at all" has '!--bitmap' 0 --md-bitmap internal
t_case "--md-consistency ppl: RAID5 gets the partial parity log" has --consistency-policy=ppl 5 --md-consistency ppl
t_case "--md-consistency ppl, auto on large members: ppl and no bitmap" has --bitmap=none 5 --md-consistency ppl --member-size 101G
t_case "--md-consistency ppl: RAID6 keeps resync" has '!--consistency-policy' 6 --md-consistency ppl

refused() { # WANT ARGS...: exit non-zero, one line on stderr holding WANT
	local want=$1
	shift
	"$RUN" quick "${DRY[@]}" "$@" >/dev/null 2>"$T_SCRATCH/err"
	local rc=$?
	cat "$T_SCRATCH/err"
	((rc != 0)) && [[ $(wc -l <"$T_SCRATCH/err") -eq 1 ]] && grep -qF -- "$want" "$T_SCRATCH/err"
}
t_case "internal bitmap and ppl: refused in one line" refused \
	"--md-bitmap internal and --md-consistency ppl exclude each other" --md-bitmap internal --md-consistency ppl
t_case "a bad --md-bitmap: refused" refused "--md-bitmap must be none, internal or auto, not 'yes'" --md-bitmap yes
t_case "a bad --md-consistency: refused" refused "--md-consistency must be resync or ppl, not 'journal'" --md-consistency journal
t_case "a bad --md-bitmap value given as an option: refused" refused "--md-bitmap needs a value" --md-bitmap --keep

# Member files: both skipped, one line, nothing of either in the commands
files() {
	"$RUN" quick "${DRY[@]}" --precondition --steadystate >"$T_SCRATCH/out" 2>"$T_SCRATCH/err" || return 1
	cat "$T_SCRATCH/err"
	[[ $(grep -c 'preconditioning\|steady' "$T_SCRATCH/err") == 1 ]] && grep -q "skipped on the tests over files" "$T_SCRATCH/err" &&
		! grep -q 'PRECOND\|--steadystate' "$T_SCRATCH/out"
}
t_case "member files: preconditioning and steady state skipped, one line" files
t_case "member files, nothing asked: no line" bash -c "'$RUN' quick ${DRY[*]} 2>&1 >/dev/null | grep -c 'preconditioning\|steady' | grep -qx 0"

# Preset lines, checked with the file and line
PD=$T_SCRATCH/presets
mkdir -p "$PD"
bad() { # WANT LINE: a quick preset with LINE added is refused naming it
	{ cat "$ROOT/presets/quick.preset"; echo "$2"; } >"$PD/q.preset"
	"$P" plan "$PD/q.preset" --workloads "$ROOT/workloads" 2>&1 >/dev/null | tee "$T_SCRATCH/err"
	grep -qF "q.preset:$(wc -l <"$PD/q.preset"): $1" "$T_SCRATCH/err"
}
t_case "steadystate: an unknown criterion" bad "steadystate: 'lat:5%' is not fio's criterion" "steadystate lat:5% window=10"
t_case "steadystate: a one-second window (fio writes its slope as -nan)" bad "steadystate: window=S (seconds, at least 2)" "steadystate iops_slope:10% window=1"
t_case "precondition: an unknown field" bad "precondition: 'seq=1'" "precondition seq=1"
t_case "precondition: nothing to write" bad "precondition: nothing to write" "precondition fill=0"

source "$(dirname "$0")/loops.sh"
loop_drives 4 96M
FOUR=$(IFS=,; echo "${LOOPS[*]}")
{ cat "$ROOT/presets/quick.preset"; echo "precondition fill=2 random=3"; echo "steadystate iops_slope:5% window=4 ramp=1 max=12"; } >"$PD/q.preset"
cp "$ROOT/presets/index" "$PD/" 2>/dev/null
drives_plan() { # ARGS...: the plan over the loop devices, one test's lines (grep-friendly)
	"$P" plan "$PD/q.preset" --workloads "$ROOT/workloads" --drives "$FOUR" --target engine,md \
		--only '^(md-)?raid5-4m-RND4K-Q32T64-randwrite$' --scale 0.0625 --runtime 2 "$@" >"$T_SCRATCH/plan"
}
precond() {
	drives_plan || return 1
	cut -f3,4 "$T_SCRATCH/plan" | tail -n +2
	# each target: its fill, its random writes, then the test; once, not in rounds 2 and 3
	[[ $(cut -f4 "$T_SCRATCH/plan" | tail -n +2 | tr '\n' ' ') == "test=raid5-4m-PRECOND-FILL-write test=raid5-4m-PRECOND-RANDOM-randwrite test=raid5-4m-RND4K-Q32T64-randwrite test=md-raid5-4m-PRECOND-FILL-write test=md-raid5-4m-PRECOND-RANDOM-randwrite test=md-raid5-4m-RND4K-Q32T64-randwrite test=raid5-4m-RND4K-Q32T64-randwrite test=md-raid5-4m-RND4K-Q32T64-randwrite test=raid5-4m-RND4K-Q32T64-randwrite test=md-raid5-4m-RND4K-Q32T64-randwrite " ]] &&
		grep 'PRECOND-FILL' "$T_SCRATCH/plan" | head -1 | grep -q $'\tenv=LOOPS=2\t' &&
		grep 'PRECOND-RANDOM' "$T_SCRATCH/plan" | head -1 | grep -q $'\tenv=RUNTIME=3\tenv=TIME_BASED=1\t'
}
t_case "drives: the preset's precondition line, fill then random writes, per target, once" precond
steady() {
	drives_plan || return 1
	local t
	t=$(grep -m1 $'\ttest=raid5-4m-RND4K-Q32T64-randwrite\t' "$T_SCRATCH/plan")
	tr '\t' '\n' <<<"$t" | grep 'steadystate\|RUNTIME'
	[[ $t == *$'\tout=--steadystate=iops_slope:5%\tout=--steadystate_duration=4\tout=--steadystate_ramp_time=1\t'* &&
		$t == *$'\tenv=RUNTIME=12\t'* ]] && ! grep PRECOND "$T_SCRATCH/plan" | grep -q -- --steadystate
}
t_case "drives: measured tests get fio's steadystate, run up to max=" steady
forced_off() { drives_plan --precondition off --steadystate off && ! grep -q 'PRECOND\|--steadystate' "$T_SCRATCH/plan"; }
t_case "drives: --precondition off / --steadystate off" forced_off
t_case "run.sh --dry-run on drives: the fill, the random writes, steadystate in each of 3 rounds" bash -c \
	"'$RUN' quick ${DRY[*]} --drives '$FOUR' --force --only '^raid6-4m-RND4K-Q32T64-randwrite\$' --precondition --steadystate 2>/dev/null | grep -c 'precond-fill.fio\|precond-random.fio\|--steadystate=iops_slope:10%' | grep -qx 5"

# A real run over the loop devices (engine): preconditioning ran as tests, and meta.json
# says whether fio reached steady state
real() {
	"$RUN" quick --no-build --no-report --concurrent --drives "$FOUR" --force --scale 0.03 --runtime 2 \
		--repeat 1 --member-size 32M --only '^raid5-4m-RND4K-Q32T64-randwrite$' --precondition \
		--steadystate --out "$T_SCRATCH/r" || return 1
	local r m
	r=$(ls -d "$T_SCRATCH"/r/*/)
	for m in "$r"tests/*.meta.json; do echo "$(basename "$m"): $(jq -c '{status, role, steadystate}' "$m")"; done
	[[ $(jq -r .role "$r"tests/raid5-4m-PRECOND-FILL-write.meta.json) == precondition &&
		$(jq -r .steadystate.attained "$r"tests/raid5-4m-RND4K-Q32T64-randwrite.meta.json) == @(true|false) &&
		$(jq -r .options.steadystate "$r"run.json) == on ]]
}
t_case "real run on drives: preconditioned, steady state recorded" real
t_done
