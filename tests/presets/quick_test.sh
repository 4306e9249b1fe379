#!/usr/bin/env bash
# tests/presets/quick_test.sh: ./run.sh quick end to end, scaled down (1 s per test); every
# test must run (the engine has every level quick asks for: a skip is a failure here). The
# run is then gated against results/baselines/quick.json (raid-report gate), as CI does.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
RJ=$ROOT/build/bin/raid-json
OUT=$T_SCRATCH/results

t_case "quick runs end to end" env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --scale 0.03 --repeat 1 \
	--runtime 1 --member-size 32M --out "$OUT"
cat "$T_OUT"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
t_case "run.json has host facts, fio version and the profile" bash -c \
	"[[ \$(jget '$R/run.json' host.sockets) -ge 1 && \$(jget '$R/run.json' fio_version) == fio-3.33 &&
	    \$(jget '$R/run.json' profile.name) == host && \$(jget '$R/run.json' preset) == quick ]]"
t_case "20 tests, each with its meta.json and a log" bash -c \
	"[[ \$(ls '$R'/tests/*.meta.json | wc -l) == 20 && \$(ls '$R'/logs/*.log | grep -vc '/parity-') == 20 ]]"
check_tests() {
	local m t st ok=0
	for m in "$R"/tests/*.meta.json; do
		t=$(basename "$m" .meta.json)
		st=$(jget "$m" status)
		[[ $st == ok ]] || { echo "$t: $st ($(jget "$m" reason))"; return 1; }
		[[ -s $R/tests/$t.json ]] || { echo "$t: ok without fio JSON"; return 1; }
		"$RJ" headline "$R/tests/$t.json" >/dev/null || return 1
		[[ $(jget "$m" engine) == jbod || -s $R/tests/$t.stats.json ]] ||
			{ echo "$t: no engine stats"; return 1; }
		ok=$((ok + 1))
	done
	echo "$ok ok"
	((ok == 20))
}
t_case "every test ran (none skipped, none failed)" check_tests
t_case "JBOD baselines ran" bash -c "for t in '$R'/tests/jbod-4-*.meta.json; do [[ \$(jget \$t status) == ok ]] || exit 1; done"
t_case "meta records the scaled figures" bash -c \
	"m='$R/tests/jbod-4-RND4K-Q32T64-randwrite.meta.json'; [[ \$(jget \$m numjobs) == 2 && \$(jget \$m iodepth) == 1 && \$(jget \$m published.numjobs) == 64 && \$(jget \$m bs) == 4096 ]]"
t_case "every test names its target (engine, JBOD: jbod) and has host_cpu" bash -c \
	"for m in '$R'/tests/*.meta.json; do t=\$(jget \$m target) && jget \$m host_cpu.system_s >/dev/null &&
	  case \$(basename \$m) in jbod-*) [[ \$t == jbod ]] ;; *) [[ \$t == engine ]] ;; esac || exit 1; done"
# The CI gate on this run: results/baselines/quick.json was made from three quick runs with
# exactly these settings on the machine its "machine" names (docs/report.md "The quick
# baseline"). The gate judges each figure's repetitions against the baseline's (a rank test or
# a bootstrap, docs/report.md "The statistical tier"); on another machine only the ratios
# within the run. Tests of 1 second on a shared machine move by more than the threshold (the
# bench's "cannot tell"), so this case asks of the gate what a healthy run always gives: a
# verdict (exit 0 or 1, not 2), and the figure that moves only when the engine's I/O plan
# does, member I/Os per volume I/O, judged for every RAID test and regressed in none: this
# run measures each test once, so the statistical tier has no test and the gate says "cannot
# tell (detectable: -)" where a repeated run would say passed (report_test.sh shows that);
# the range rule still catches a change (the case after this one). The table is printed.
RR=$ROOT/build/bin/raid-report
BASE=$ROOT/results/baselines/quick.json
gate_run() {
	"$RR" gate --baseline "$BASE" "$R" --junit "$T_SCRATCH/gate.xml" >"$T_SCRATCH/gate.out"
	local rc=$?
	cat "$T_SCRATCH/gate.out"
	((rc <= 1)) || return 1
	[[ $(grep -Ec ' member_ios_per_io .*  (passed|cannot tell \(detectable: -\))$' "$T_SCRATCH/gate.out") -eq 16 ]] &&
		! grep ' member_ios_per_io ' "$T_SCRATCH/gate.out" | grep -Ev '  (passed|cannot tell \(detectable: -\))$'
}
t_case "gate: this run against the quick baseline (member I/Os per I/O none regressed)" gate_run
t_case "gate: JUnit XML parses" xmllint --noout "$T_SCRATCH/gate.xml"
# A regression, shown by a copy of the baseline in which the RAID5 and RAID6 full-stripe
# writes took half their member I/Os per I/O: this run's count is twice it, on any machine.
halved() {
	local f ids=("raid5-4m-SEQ1M-Q8T64-write member_ios_per_io"
		"raid6-4m-SEQ1M-Q8T64-write member_ios_per_io")
	cp "$BASE" "$T_SCRATCH/halved.json"
	for f in "${ids[@]}"; do
		jq -e --arg id "$f" 'any(.figures[]; .id == $id)' "$BASE" >/dev/null ||
			{ echo "baseline lacks '$f'"; return 1; }
		jq --arg id "$f" '(.figures[] | select(.id == $id) | .value, .min, .max, .samples[]) /= 2' \
			"$T_SCRATCH/halved.json" >"$T_SCRATCH/b.tmp" && mv "$T_SCRATCH/b.tmp" "$T_SCRATCH/halved.json"
	done
	"$RR" gate --baseline "$T_SCRATCH/halved.json" "$R" >"$T_SCRATCH/gate.out"
	local rc=$?
	grep -E 'REGRESSED|MISSING' "$T_SCRATCH/gate.out"
	((rc == 1)) && for f in "${ids[@]}"; do grep -q "^$f .*REGRESSED" "$T_SCRATCH/gate.out" || return 1; done
}
t_case "gate: RAID5/6 full-stripe writes' member I/Os doubled fail it" halved
t_case "scratch member files are removed" bash -c "! ls -d '$T_SCRATCH'/fio-raid-scratch.* 2>/dev/null"

# --parity cuda: on a machine whose driver lists no GPU the RAID 5/6 runs are skipped by the
# engine's refusal (the run succeeds); where it lists one they must run.
cuda_run() {
	local out=$T_SCRATCH/cuda m st n=0 gpu=0
	t_gpu_listed && gpu=1
	env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --no-report --parity cuda --repeat 1 --scale 0.03 \
		--runtime 1 --member-size 32M --out "$out" || return 1
	for m in "$out"/*-quick/tests/raid[56]-*.meta.json; do
		st=$(jget "$m" status)
		n=$((n + 1))
		[[ $st == ok ]] && continue
		((!gpu)) && [[ $st == skipped ]] && jget "$m" reason | grep -q 'no usable GPU' && continue
		echo "$m: $st (a GPU listed: $gpu)"
		return 1
	done
	((n == 8))
}
t_case "--parity cuda: RAID 5/6 run on a GPU, else are skipped saying why" cuda_run
t_done
