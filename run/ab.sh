# run/ab.sh: run.sh --ab OTHER_ENGINE (sourced by run.sh): the preset with two engine builds on
# one machine, this tree's (A) and OTHER (B, an engine .so built from another tree), alternating
# test by test and repeat by repeat (round K runs every test, A then B or B then A in turn), so
# that the machine's drift falls on both alike; each step is one run.sh of one test and one
# repetition over one shared member directory (so that a read test reads what the write test
# before it wrote, as in one run). The steps are then put together as two runs of N
# repetitions, A's made the baseline and B gated against it (raid-report gate: the
# statistical tier, docs/report.md). Exit: the gate's (0 pass, 1 a regression, 2 bad input).
# RAID_AB_ENV_B="VAR=VALUE ...": set for B's steps only (tests/bench/ab_bench.sh's slowdown).

# ab_maybe ARGS...: when ARGS hold --ab FILE, run the A/B and exit with its status
ab_maybe() {
	local a other="" rest=()
	while (($#)); do
		if [[ $1 == --ab ]]; then
			(($# >= 2)) && [[ $2 != --* ]] || die "--ab needs a value: the other build's engine .so"
			other=$2
			shift 2
			continue
		fi
		rest+=("$1")
		shift
	done
	[[ -n $other ]] || return 0
	ab_main "$other" "${rest[@]}"
	exit $?
}

ab_main() {
	local other=$1 i k side opt out=$ROOT/results reps="" tests=() sides
	shift
	[[ -f $other ]] || die "--ab: $other is not a file (the other build's build/engines/raid.so)"
	other=$(cd "$(dirname "$other")" && pwd)/$(basename "$other")
	[[ -f $ENGINE ]] || die "--ab: $ENGINE is not built (run make first)"
	local args=("$@")
	for ((i = 0; i < ${#args[@]}; i++)); do
		case ${args[i]} in
		--out) out=${args[i + 1]:-} ;;
		--repeat) reps=${args[i + 1]:-} ;;
		--scratch | --hosts | --hosts-file | --drives | --target | --dry-run)
			die "--ab with ${args[i]}: A/B runs over member files it makes itself" ;;
		esac
	done
	# the tests and the repetitions: the plan's own, from a dry run
	local plan
	plan=$("$ROOT/run.sh" "${args[@]}" --no-build --dry-run 2>/dev/null) ||
		die "--ab: the preset's dry run failed (run it without --ab to see why)"
	mapfile -t tests < <(sed -n 's/^# \[[0-9]*\/[0-9]*\] \([^ @]*\)\(@[0-9]*\)\{0,1\} (.*/\1/p' <<<"$plan" | awk '!seen[$0]++')
	reps=${reps:-$(sed -n 's/^# preset [^:]*: [0-9]* tests x \([0-9]*\) .*/\1/p' <<<"$plan")}
	((${#tests[@]})) || die "--ab: the preset has no test to run"
	[[ $reps =~ ^[1-9][0-9]*$ ]] || die "--ab: no repetition count in the plan"
	local dir
	dir=$out/ab-$(date +%Y%m%d-%H%M%S)
	mkdir -p "$dir/steps" "$dir/scratch" || die "--out: cannot make $dir"
	echo "run.sh --ab: ${#tests[@]} tests x $reps repetitions x 2 builds, alternating: A $ENGINE, B $other; in $dir"
	for ((k = 1; k <= reps; k++)); do
		for ((i = 0; i < ${#tests[@]}; i++)); do
			sides=(A B)
			(((k + i) % 2)) && sides=(B A)
			for side in "${sides[@]}"; do
				local so=$ENGINE benv=()
				[[ $side == B ]] && so=$other && read -ra benv <<<"${RAID_AB_ENV_B:-}"
				env "${benv[@]}" FIO_RAID_ENGINE="$so" FIO_RAID_RUN_ID=$side-$k-$i "$ROOT/run.sh" "${args[@]}" \
					--no-build --no-report --repeat 1 --only "^${tests[i]}\$" \
					--scratch "$dir/scratch" --out "$dir/steps" >>"$dir/steps.log" 2>&1 ||
					die "--ab: step $side $k ${tests[i]} failed (log: $dir/steps.log)"
				echo "run.sh --ab: [$k/$reps] ${tests[i]} $side done"
			done
		done
	done
	for side in A B; do ab_assemble "$dir" "$side" "$reps" "${#tests[@]}"; done
	"$REPORT" baseline "$dir/A/ab" >"$dir/baseline-A.json" || die "--ab: raid-report baseline failed"
	local rc=0
	"$REPORT" gate --baseline "$dir/baseline-A.json" "$dir/B/ab" --html "$dir/gate.html" \
		>"$dir/gate.txt" || rc=$?
	cat "$dir/gate.txt"
	echo "run.sh --ab: B against A: $dir/gate.txt, $dir/gate.html"
	return "$rc"
}

# ab_assemble DIR SIDE REPS NTESTS: the side's steps as one run, DIR/SIDE/ab, with the step of
# round K as repetition K of its test (tests/T@K.*), run.json from its first step
ab_assemble() {
	local dir=$1 side=$2 reps=$3 n=$4 k i f base r=$1/$2/ab
	mkdir -p "$r/tests" "$r/logs"
	cp "$dir/steps/$side-1-0/run.json" "$r/run.json"
	"$RJSON" set "$r/run.json" repeats:i="$reps" >/dev/null
	for ((k = 1; k <= reps; k++)); do
		for ((i = 0; i < n; i++)); do
			for f in "$dir/steps/$side-$k-$i"/tests/*; do
				base=${f##*/}
				case $base in
				*.meta.json) t=${base%.meta.json} ext=meta.json ;;
				*.stats.json) t=${base%.stats.json} ext=stats.json ;;
				*.json) t=${base%.json} ext=json ;;
				*) continue ;;
				esac
				cp "$f" "$r/tests/$t@$k.$ext"
				[[ $ext != meta.json ]] ||
					"$RJSON" set "$r/tests/$t@$k.$ext" repeat:i="$k" repeats:i="$reps" >/dev/null
			done
		done
	done
}
