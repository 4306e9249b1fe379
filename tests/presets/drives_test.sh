#!/usr/bin/env bash
# tests/presets/drives_test.sh: what run.sh does with the members it is given (issue 33,
# "Drive input"): too few --drives is refused before anything runs, naming the arrays that
# do not fit, and --fit runs them on the drives there are, labelled by what ran (the engine's
# stats); RAID0 runs on drives and on member files reused with --scratch DIR --keep (no
# raid_init=resync for a level without redundancy); a --scratch that does not exist is
# refused and not made. Drives are loop devices over files here, attached and detached by
# this test only. Also: run.sh stays a script that runs a plan (at most 300 lines), the run
# layer with it at most 1,900 lines, and md's figures are computed in C, not in awk.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
FAST=(--no-build --no-report --scale 0.03 --runtime 1 --repeat 1 --member-size 32M)
ONE='^raid0-4m-SEQ1M-Q8T64-write$'

refused() { # EXPECTED OUT ARGS...: exit non-zero, one line on stderr holding EXPECTED, no OUT
	local want=$1 out=$2
	shift 2
	"$RUN" "$@" --out "$out" >/dev/null 2>"$T_SCRATCH/err"
	local rc=$?
	cat "$T_SCRATCH/err"
	((rc != 0)) && [[ $(wc -l <"$T_SCRATCH/err") -eq 1 ]] && grep -qF -- "$want" "$T_SCRATCH/err" &&
		[[ ! -e $out ]]
}
all_ok() { # RESULTS_DIR [N]: every test of the (one) run there ended ok, N of them
	local m n=0 r
	r=$(ls -d "$1"/*/ | head -1)
	for m in "$r"tests/*.meta.json; do
		[[ $(jget "$m" status) == ok ]] || { echo "$m: $(jget "$m" status) $(jget "$m" reason)"; return 1; }
		n=$((n + 1))
	done
	echo "$n ok"
	[[ -z ${2:-} || $n == "$2" ]]
}

t_case "run.sh is at most 300 lines" bash -c "n=\$(wc -l <'$RUN'); echo \"\$n lines\"; ((n <= 300))"
# the whole run layer, run.sh and the parts it sources: 2,074 lines before md's figures moved
# to C (tools/run/mdstats, issue 41), 1,995 after; 2,223 with the ublk target (run/ublk.sh,
# issue 42) and the A/B mode (run/ab.sh, issue 43) that came in beside it
t_case "run.sh and run/*.sh are at most 1,900 lines together" bash -c \
	"n=\$(cat '$RUN' '$ROOT'/run/*.sh | wc -l); echo \"\$n lines\"; ((n <= 1900))"
# md's figures are raid-mdstats' (the shell starts, watches and collects): no awk computes one
t_case "run/md.sh and run/recovery.sh compute no figures (no awk)" bash -c \
	"! grep -n '\\bawk\\b' '$ROOT/run/md.sh' '$ROOT/run/recovery.sh'"

S=$T_SCRATCH/nope
t_case "a --scratch that does not exist: refused, nothing made" \
	refused "--scratch: $S is not a directory" "$T_SCRATCH/r0" quick "${FAST[@]}" --scratch "$S"
t_case "... and the directory was not made" test ! -e "$S"

# Reused member files: a second run over the first one's kept files
mkdir -p "$T_SCRATCH/keep"
for i in 1 2; do
	t_case "RAID0 on member files, run $i (--scratch DIR --keep)" "$RUN" quick "${FAST[@]}" \
		--scratch "$T_SCRATCH/keep" --keep --only "$ONE" --out "$T_SCRATCH/k$i"
	t_case "RAID0 on member files, run $i: the test ran" all_ok "$T_SCRATCH/k$i" 1
done
t_case "the second run reused the first one's members" test -s "$T_SCRATCH/keep/raid0-4m/bay0"

source "$(dirname "$0")/loops.sh"
loop_drives 4 64M
TWO=${LOOPS[0]},${LOOPS[1]}
FOUR=$(IFS=,; echo "${LOOPS[*]}")

t_case "too few drives: refused before anything runs, naming the arrays" \
	refused "--drives: 2 given, too few for preset quick's arrays (drives each needs): jbod-4 (4), raid0-4m (4), raid5-4m (4), raid6-4m (4), raid10-4m (4)" \
	"$T_SCRATCH/r1" quick "${FAST[@]}" --drives "$TWO"
t_case "too few drives: refused in a dry run too" \
	refused "raid5-4m (4)" "$T_SCRATCH/r1" quick --dry-run --no-build --drives "$TWO"

t_case "RAID0 on drives" "$RUN" quick "${FAST[@]}" --drives "$FOUR" --only "$ONE" --out "$T_SCRATCH/d"
t_case "RAID0 on drives: the test ran" all_ok "$T_SCRATCH/d" 1
# no profile of theirs: the array is placed by its drives' NUMA nodes (raid-hwinfo
# place-drives), and run.json names the drives as raid-hwinfo drives does
placed() {
	local r want
	r=$(ls -d "$T_SCRATCH"/d/*/)
	want=$("$ROOT/build/bin/raid-hwinfo" place-drives "$FOUR" | sed -n 's/^cpus=//p')
	[[ -n $want && $(jq -r '.arrays[0].placement.cpus' "$r/run.json") == "$want" &&
		$(jq -r '[.drives[].path] | join(",")' "$r/run.json") == "$FOUR" ]] ||
		{ jq -c '{arrays, drives}' "$r/run.json"; return 1; }
}
t_case "RAID0 on drives: placed by place-drives, the drives in run.json" placed

t_case "--fit: the arrays run on the two drives there are" "$RUN" quick "${FAST[@]}" \
	--drives "$TWO" --fit --only '^(jbod|raid0|raid10)-.*SEQ1M-Q8T64-write$' --out "$T_SCRATCH/f"
t_case "--fit: every test that ran is ok" all_ok "$T_SCRATCH/f" 3
labels() { # the ids and members are what ran: 2 members, the engine's stats say so
	local r m
	r=$(ls -d "$T_SCRATCH"/f/*/)
	ls "$r"tests/ | grep -q '^raid10-2m-SEQ1M-Q8T64-write.meta.json$' || { ls "$r"tests; return 1; }
	for m in "$r"tests/raid*.meta.json; do
		echo "$(basename "$m"): members $(jget "$m" members), stats $(jget "${m%.meta.json}.stats.json" members)"
		[[ $(jget "$m" members) == 2 && $(jget "${m%.meta.json}.stats.json" members) == 2 ]] || return 1
	done
	[[ $(jq '[.arrays[].members] | unique' "$r/run.json" | tr -d ' \n') == '[2]' ]]
}
t_case "--fit: ids, meta.json and run.json say 2 members, as the engine's stats do" labels
t_done
