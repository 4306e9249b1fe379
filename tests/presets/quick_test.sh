#!/usr/bin/env bash
# tests/presets/quick_test.sh: ./run.sh quick end to end, scaled down (1 s per test); RAID
# levels the engine does not have yet must be skipped by the engine's own answer.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
RJ=$ROOT/build/bin/raid-json
OUT=$T_SCRATCH/results

t_case "quick runs end to end" env TMPDIR="$T_SCRATCH" "$RUN" quick --no-build --scale 0.03 \
	--runtime 1 --member-size 32M --out "$OUT"
cat "$T_OUT"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
t_case "run.json has host facts, fio version and the profile" bash -c \
	"[[ \$('$RJ' get '$R/run.json' host.sockets) -ge 1 && \$('$RJ' get '$R/run.json' fio_version) == fio-3.33 &&
	    \$('$RJ' get '$R/run.json' profile.name) == host && \$('$RJ' get '$R/run.json' preset) == quick ]]"
t_case "20 tests, each with its meta.json and a log" bash -c \
	"[[ \$(ls '$R'/tests/*.meta.json | wc -l) == 20 && \$(ls '$R'/logs/*.log | wc -l) == 20 ]]"
check_tests() {
	local m t st ok=0
	for m in "$R"/tests/*.meta.json; do
		t=$(basename "$m" .meta.json)
		st=$("$RJ" get "$m" status)
		case $st in
		ok)
			[[ -s $R/tests/$t.json ]] || { echo "$t: ok without fio JSON"; return 1; }
			"$RJ" headline "$R/tests/$t.json" >/dev/null || return 1
			[[ $("$RJ" get "$m" engine) == jbod || -s $R/tests/$t.stats.json ]] ||
				{ echo "$t: no engine stats"; return 1; }
			ok=$((ok + 1)) ;;
		skipped)
			"$RJ" get "$m" reason | grep -q 'not supported\|not built' ||
				{ echo "$t: skipped without the engine's answer"; return 1; } ;;
		*) echo "$t: $st"; return 1 ;;
		esac
	done
	echo "$ok ok"
}
t_case "every test ran, or was skipped by the engine's answer" check_tests
t_case "JBOD baselines ran" bash -c "for t in '$R'/tests/jbod-4-*.meta.json; do [[ \$('$RJ' get \$t status) == ok ]] || exit 1; done"
t_case "meta records the scaled figures" bash -c \
	"m='$R/tests/jbod-4-RND4K-Q32T64-randwrite.meta.json'; [[ \$('$RJ' get \$m numjobs) == 2 && \$('$RJ' get \$m iodepth) == 1 && \$('$RJ' get \$m published.numjobs) == 64 && \$('$RJ' get \$m bs) == 4096 ]]"
t_case "scratch member files are removed" bash -c "! ls -d '$T_SCRATCH'/fio-raid-scratch.* 2>/dev/null"
t_done
