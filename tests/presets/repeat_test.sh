#!/usr/bin/env bash
# tests/presets/repeat_test.sh: run.sh --repeat N (the plan's schedule: round K runs every test
# once before round K + 1; tests/T@K.* and meta's test/repeat/repeats, results/README.md), and
# the fio options every test gets from the plan: lat_percentiles=1 (the report's total-latency
# percentiles), and inside the md appliance (MDVM=1) a clock that is right under emulation.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
ONLY='raid[05]-4m-RND4K-Q1T64'

# ids PLAN_ARGS...: the ids of --dry-run in order, one a line
ids() { "$RUN" quick --dry-run --no-build --only "$ONLY" "$@" 2>/dev/null | sed -n 's/^# \[[0-9/]*\] \([^ ]*\) .*/\1/p'; }
interleaved() {
	ids --repeat 3 >"$T_SCRATCH/ids" || return 1
	printf '%s\n' raid0-4m-RND4K-Q1T64-randread@1 raid5-4m-RND4K-Q1T64-randread@1 \
		raid0-4m-RND4K-Q1T64-randread@2 raid5-4m-RND4K-Q1T64-randread@2 \
		raid0-4m-RND4K-Q1T64-randread@3 raid5-4m-RND4K-Q1T64-randread@3 | diff -u - "$T_SCRATCH/ids"
}
t_case "--repeat 3: round by round, ids T@K" interleaved
t_case "--repeat 1: the ids stay the tests' own" bash -c \
	"[[ \$('$RUN' quick --dry-run --no-build --only '$ONLY' --repeat 1 | grep -c '^# \[.*-randread (') == 2 ]]"
t_case "the quick preset repeats 3 times by default" bash -c \
	"'$RUN' quick --dry-run --no-build --only '$ONLY' | grep -q '^# \[6/6\] raid5-4m-RND4K-Q1T64-randread@3 '"
t_case_fail "--repeat 0 is refused naming the option" --msg "^raid-preset: --repeat must be" \
	"$RUN" quick --dry-run --no-build --repeat 0
t_case_fail "--repeat x is refused naming the option" --msg "^raid-preset: --repeat must be" \
	"$RUN" quick --dry-run --no-build --repeat x
t_case_fail "--repeat with --hosts is refused" --msg "^run.sh: --repeat with --hosts" \
	"$RUN" quick --dry-run --no-build --repeat 2 --hosts localhost

# Every fio command of every target asks for the percentiles of total latency.
every_fio() { # WANT PLAN_ARGS...: every fio command line of the dry run holds WANT
	local want=$1 n=0 line
	shift
	while IFS= read -r line; do
		[[ $line == *build/bin/fio* ]] || continue
		n=$((n + 1))
		[[ $line == *"$want"* ]] || { echo "no $want: $line"; return 1; }
	done < <("$RUN" quick --dry-run --no-build --repeat 1 "$@")
	echo "$n fio commands"
	((n == 20))
}
t_case "every fio run has --lat_percentiles=1" every_fio --lat_percentiles=1
# fio's default clock is the TSC where CPUID calls it invariant, which under emulation would
# not keep time: inside the appliance fio reads the kernel's clock
t_case "MDVM=1: every fio run reads clock_gettime" env MDVM=1 bash -c \
	"$(declare -f every_fio); RUN='$RUN' every_fio --clocksource=clock_gettime"
t_case "outside the appliance fio keeps its own clock" bash -c \
	"! '$RUN' quick --dry-run --no-build | grep -q clocksource"

# A tiny real run: 2 tests x 2 repeats of 1 s.
OUT=$T_SCRATCH/results
t_case "--repeat 2 runs end to end" env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --no-report \
	--repeat 2 --runtime 1 --member-size 32M --only "$ONLY" --out "$OUT"
cat "$T_OUT"
cp "$T_OUT" "$T_SCRATCH/run.out"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
layout() {
	local t k m
	for t in raid0-4m-RND4K-Q1T64-randread raid5-4m-RND4K-Q1T64-randread; do
		for k in 1 2; do
			m=$R/tests/$t@$k.meta.json
			[[ -s $R/tests/$t@$k.json && -s $R/tests/$t@$k.stats.json && -e $R/logs/$t@$k.log ]] ||
				{ echo "$t@$k: files missing"; return 1; }
			[[ $(jget "$m" test) == "$t" && $(jget "$m" repeat) == "$k" && $(jget "$m" repeats) == 2 &&
				$(jget "$m" status) == ok ]] || return 1
		done
	done
	[[ $(ls "$R"/tests/*.meta.json | wc -l) == 4 ]]
}
t_case "tests/T@K.{json,meta.json,stats.json}, logs/T@K.log; meta's test, repeat, repeats" layout
t_case "the console says n=1 beside each figure, and which run it was" \
	grep -Eq 'done  raid5-4m-RND4K-Q1T64-randread@2: [0-9.]+ IOPS, .*lat mean [0-9.]+ us.* \(n=1, run 2 of 2\)' "$T_SCRATCH/run.out"
t_case "fio wrote total-latency percentiles (lat_ns.percentile)" bash -c \
	"jq -e '.jobs[0].read.lat_ns.percentile' '$R/tests/raid0-4m-RND4K-Q1T64-randread@1.json' >/dev/null"
t_case "run.json: repeats, fio's clock, started and finished" bash -c \
	"[[ \$(jget '$R/run.json' repeats) == 2 && \$(jget '$R/run.json' fio_clocksource) == default ]] &&
	 jget '$R/run.json' started && jget '$R/run.json' finished"
t_done
