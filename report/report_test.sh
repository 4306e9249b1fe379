#!/usr/bin/env bash
# report/report_test.sh: raid-report end to end on the fixture run (report/testdata/run-quick):
# the expected summary rows, every chart drawn, a page that references only files that
# exist, a skipped chart said so, --compare, the gate's pass/fail/JUnit, and bad input.
source "$(dirname "$0")/../tests/lib.sh"
RR=$ROOT/build/bin/raid-report
FIX=$ROOT/report/testdata/run-quick
EXP=$ROOT/report/testdata/expected
RUN=$T_SCRATCH/run
cp -r "$FIX" "$RUN"

t_case "report writes summary, charts and page" "$RR" "$RUN"
t_case "summary.csv rows as expected" diff -u "$EXP/summary.csv" "$RUN/summary.csv"
t_case "summary.json as expected" diff -u "$EXP/summary.json" "$RUN/summary.json"

# raid_parity=auto on a GPU host: the parity column says what computed it, with the batching
gpu_run() {
	local r=$T_SCRATCH/gpu-run t=raid5-4-SEQ1M-Q8T64-write
	cp -r "$FIX" "$r" &&
		"$ROOT/build/bin/raid-json" set "$r/tests/$t.stats.json" parity_path:s=auto \
			parity_used:s=cuda gpu.stripes_per_launch:f=7.5 &&
		"$RR" "$r" >/dev/null &&
		awk -F, -v t="$t" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
			$2 == t { print $h["layout"], $h["parity"], $h["gpu_stripes_per_launch"], $h["rebuild_s"] }' \
			"$r/summary.csv" | grep -qx "left-symmetric cuda 7.5 "
}
t_case "parity column is what computed it (parity_used), GPU batching beside" gpu_run

charts_ok() { # every chart script produced a non-empty PNG and SVG; at least $1 of them
	local n=0 gp
	for gp in "$RUN"/charts/*.gp; do
		[[ -s ${gp%.gp}.png && -s ${gp%.gp}.svg ]] || { echo "empty: $gp"; return 1; }
		n=$((n + 1))
	done
	echo "$n charts"
	[[ $n -ge $1 ]]
}
t_case "all 13 charts drawn, PNG and SVG non-empty" charts_ok 13

page_refs_exist() { # DIR MIN: every src/href of index.html is a local file that exists
	local dir=$1 min=$2 ref n=0
	[[ -s $dir/index.html ]] || return 1
	if grep -Eo '(src|href)="[a-z]+://' "$dir/index.html"; then return 1; fi
	for ref in $(grep -Eo '(src|href)="[^"#][^"]*"' "$dir/index.html" | sed 's/^[a-z]*="//; s/"$//'); do
		[[ -s $dir/$ref ]] || { echo "missing: $ref"; return 1; }
		n=$((n + 1))
	done
	echo "$n references"
	[[ $n -ge $min ]]
}
t_case "index.html references only files that exist" page_refs_exist "$RUN" 24
t_case "page names the published hardware" grep -q "megaraid-9670w-16i-host" "$RUN/index.html"
t_case "page says this run's hardware differs" grep -q "hardware differs" "$RUN/index.html"

# A run with only the JBOD read: the other charts are skipped, and the page says so.
SMALL=$T_SCRATCH/small
mkdir -p "$SMALL/tests"
cp "$FIX"/run.json "$SMALL"/
cp "$FIX"/tests/jbod-4-SEQ1M-Q8T64-read.* "$SMALL/tests/"
small_skips() {
	"$RR" "$SMALL" || return 1
	[[ -s $SMALL/charts/seq1m_read.png ]] || return 1
	[[ ! -e $SMALL/charts/rebuild.png && ! -e $SMALL/charts/states.png ]] || return 1
	[[ $(grep -c 'class=skip>.*not drawn' "$SMALL/index.html") -ge 8 ]] || return 1
	page_refs_exist "$SMALL" 6
}
t_case "absent data: chart skipped and the page says so" small_skips

compare_ok() {
	"$RR" --compare "$FIX" "$RUN" --out "$T_SCRATCH/cmp" || return 1
	[[ -s $T_SCRATCH/cmp/compare.png && -s $T_SCRATCH/cmp/compare.svg ]] || return 1
	# header plus one row per test and figure; equal runs change by 0
	[[ $(grep -c ',iops,' "$T_SCRATCH/cmp/compare.csv") -eq 13 ]] || return 1
	awk -F, 'NR > 1 && $5 != "" && $5 != 0 {exit 1}' "$T_SCRATCH/cmp/compare.csv"
}
t_case "--compare writes table and chart" compare_ok

# A run with repeats (testdata/run-repeats, make-repeats.sh: repetitions of run-quick's tests
# at 1, 0.9 and 1.2 times their speed): one row per test, the figure the median (run-quick's
# own), its range 0.9 and 1.2 times it, "repeats" 3; a test run once says 1 with min = max.
REP=$T_SCRATCH/rep
cp -r "$ROOT/report/testdata/run-repeats" "$REP"
repeats_grouped() {
	"$RR" "$REP" >/dev/null || return 1
	jq -e --slurpfile q "$RUN/summary.json" '
	    ($q[0].tests | map({(.test): .}) | add) as $once | (.tests | length) == 3 and
	    all(.tests[]; . as $t | $once[$t.test] as $o | $t.repeats == 3 and $t.iops == $o.iops and
	        ($t.iops_min / $o.iops - 0.9 | fabs) < 0.001 and ($t.iops_max / $o.iops - 1.2 | fabs) < 0.001 and
	        ($t.lat_mean_us_max / $o.lat_mean_us - 1 / 0.9 | fabs) < 0.001)' "$REP/summary.json" &&
		jq -e 'all(.tests[]; .repeats == 1 and .iops_min == .iops and .iops_max == .iops)' "$RUN/summary.json"
}
t_case "repeats: one row per test, median and range over its repetitions; n=1 said" repeats_grouped
repeats_compare() {
	"$RR" --compare "$FIX" "$REP" --out "$T_SCRATCH/rcmp" >"$T_SCRATCH/rcmp.out" || return 1
	grep -q 'iops .* n=1 .*\[.*\] n=3 ' "$T_SCRATCH/rcmp.out" &&
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i; next }
			$2 == "iops" { n++; if ($h["a_n"] != 1 || $h["b_n"] != 3 || $h["ranges_apart"] != "no" ||
				($h["b_min"] / $h["a"] - 0.9)^2 > 1e-6) exit 1 } END { exit n != 3 }' "$T_SCRATCH/rcmp/compare.csv"
}
t_case "repeats: --compare shows median, range and n of both runs" repeats_compare
# the gate on repeats: a baseline of the repeated run gates it; the same run with one test's
# repetitions slowed by a quarter (all three: the range moves) fails on that test's figures only
repeats_gate() {
	local slow=$T_SCRATCH/rep-slow k
	"$RR" baseline "$REP" >"$T_SCRATCH/rep-base.json" || return 1
	jq -e '.repetitions == 3 and all(.figures[]; .n == 3)' "$T_SCRATCH/rep-base.json" || return 1
	"$RR" gate --baseline "$T_SCRATCH/rep-base.json" "$REP" >/dev/null || return 1
	cp -r "$REP" "$slow"
	for k in 1 2 3; do
		jq --argjson f 0.75 -f "$ROOT/report/testdata/scale-fio.jq" \
			"$REP/tests/raid5-4-SEQ1M-Q8T64-read@$k.json" >"$slow/tests/raid5-4-SEQ1M-Q8T64-read@$k.json"
	done
	"$RR" gate --baseline "$T_SCRATCH/rep-base.json" "$slow" >"$T_SCRATCH/rep-gate.out"
	local rc=$?
	grep REGRESSED "$T_SCRATCH/rep-gate.out"
	[[ $rc -eq 1 ]] && ! grep REGRESSED "$T_SCRATCH/rep-gate.out" | grep -vq '^raid5-4-SEQ1M-Q8T64-read'
}
t_case "repeats: the gate flags a test slowed by 25% in every repetition, nothing else" repeats_gate
# the statistical tier: per figure its test, the change it could detect and the repetitions
# for 10%; a steady figure passes, one whose repetitions spread more than the threshold cannot
# tell (never "passed"); a run measured once passes nothing
repeats_power() {
	"$RR" gate --baseline "$T_SCRATCH/rep-base.json" "$REP" >"$T_SCRATCH/rep-pw.out" || return 1
	cat "$T_SCRATCH/rep-pw.out"
	grep -Eq '^raid5-4-SEQ1M-Q8T64-read member_ios_per_io .* bootstrap +0\.0% +4  passed$' "$T_SCRATCH/rep-pw.out" &&
		grep -Eq '^raid5-4-SEQ1M-Q8T64-read MB/s .* bootstrap +[0-9.]+% +[0-9]+  cannot tell \(detectable: [0-9.]+%\)$' "$T_SCRATCH/rep-pw.out" &&
		! grep -E ' MB/s .*passed$' "$T_SCRATCH/rep-pw.out" &&
		tail -1 "$T_SCRATCH/rep-pw.out" | grep -q 'PASS (passed [1-9][0-9]*, improved 0, cannot tell [1-9]'
}
t_case "repeats: per figure test, detectable change, repeats for 10%; noisy ones cannot tell" repeats_power
once_never_passes() {
	"$RR" baseline "$RUN" >"$T_SCRATCH/once.json" && "$RR" gate --baseline "$T_SCRATCH/once.json" "$RUN" >"$T_SCRATCH/once.out" || return 1
	! grep -q 'passed$' "$T_SCRATCH/once.out" && grep -q 'cannot tell (detectable: -)$' "$T_SCRATCH/once.out"
}
t_case "measured once: no figure passes, each cannot tell" once_never_passes
# a format 2 baseline (ranges, no samples) is still read: the range rule, nothing passes
format2() {
	jq '.format = 2 | del(.figures[].samples)' "$T_SCRATCH/rep-base.json" >"$T_SCRATCH/rep-f2.json"
	"$RR" gate --baseline "$T_SCRATCH/rep-f2.json" "$REP" >"$T_SCRATCH/f2.out" || return 1
	! grep -q 'passed$' "$T_SCRATCH/f2.out" && grep -q 'cannot tell' "$T_SCRATCH/f2.out"
}
t_case "a format 2 baseline still gates (range rule), nothing passes" format2
# the page says it too: one row a figure with its verdict in words and the detectable change
gate_page() {
	"$RR" gate --baseline "$T_SCRATCH/rep-base.json" "$REP" --html "$T_SCRATCH/gate.html" >/dev/null || return 1
	xmllint --html --noout "$T_SCRATCH/gate.html" &&
		[[ $(grep -c '<tr class=' "$T_SCRATCH/gate.html") -eq $(jq '.figures | length' "$T_SCRATCH/rep-base.json") ]] &&
		grep -q '<td>passed</td></tr>' "$T_SCRATCH/gate.html" &&
		grep -Eq '<td>cannot tell \(detectable: [0-9.]+%\)</td></tr>' "$T_SCRATCH/gate.html"
}
t_case "gate --html: the page gives each figure's verdict and detectable change" gate_page
t_case_fail "gate --html into a missing directory: exit 2" --msg 'nodir/g.html: No such file' \
	bash -c "'$RR' gate --baseline '$T_SCRATCH/rep-base.json' '$REP' --html '$T_SCRATCH/nodir/g.html' >/dev/null; [[ \$? == 2 ]] && exit 3; exit 0"

"$RR" baseline "$RUN" >"$T_SCRATCH/base.json"
t_case "gate passes against its own baseline" \
	"$RR" gate --baseline "$T_SCRATCH/base.json" "$RUN" --junit "$T_SCRATCH/pass.xml"
t_case "JUnit XML of a pass parses" xmllint --noout "$T_SCRATCH/pass.xml"

# every figure 20% better than measured (median and range): the same run must fail the gate
jq '(.figures[] | select(.better == "higher") | .value, .min, .max) *= 1.2 |
    (.figures[] | select(.better == "lower") | .value, .min, .max) /= 1.2' \
	"$T_SCRATCH/base.json" >"$T_SCRATCH/better.json"
gate_fails() {
	"$RR" gate --baseline "$T_SCRATCH/better.json" "$RUN" --tolerance 10 \
		--junit "$T_SCRATCH/fail.xml"
	local rc=$?
	echo "exit $rc"
	[[ $rc -eq 1 ]] && grep -q '<failure' "$T_SCRATCH/fail.xml"
}
t_case "gate fails against a baseline 20% better" gate_fails
t_case "JUnit XML of a failure parses" xmllint --noout "$T_SCRATCH/fail.xml"
# A baseline of several runs: each figure's median and range over them, and the machine.
several_runs() {
	cp -r "$RUN" "$T_SCRATCH/run2"
	"$RR" baseline "$RUN" "$T_SCRATCH/run2" >"$T_SCRATCH/two.json" || return 1
	jq -e '.format == 3 and .repetitions == 2 and (.machine.cpu_model | length > 0) and
	       all(.figures[]; .n == 2 and .min == .value and .max == .value and
	           .samples == [.value, .value])' "$T_SCRATCH/two.json" &&
		"$RR" gate --baseline "$T_SCRATCH/two.json" "$RUN"
}
t_case "baseline of several runs: median, range, n, machine; gated" several_runs
# The member files' filesystem is part of the machine (run.json scratch_fs, README "Spread"):
# a baseline on tmpfs against a run on ext4 compares no absolute figure and names member_fs;
# a baseline without it (older runs) is not held against a run with it.
member_fs() {
	local f
	for f in tmpfs ext4; do
		cp -r "$FIX" "$T_SCRATCH/fs-$f" && "$ROOT/build/bin/raid-json" set "$T_SCRATCH/fs-$f/run.json" \
			scratch_fs:s=$f >/dev/null || return 1
	done
	"$RR" baseline "$T_SCRATCH/fs-tmpfs" >"$T_SCRATCH/fs.json" &&
		jq -e '.machine.member_fs == "tmpfs"' "$T_SCRATCH/fs.json" || return 1
	"$RR" gate --baseline "$T_SCRATCH/fs.json" "$T_SCRATCH/fs-ext4" >"$T_SCRATCH/fs.out"
	grep '^gate: baseline from another' "$T_SCRATCH/fs.out"
	grep -q 'another machine or settings (member_fs differ)' "$T_SCRATCH/fs.out" &&
		"$RR" gate --baseline "$T_SCRATCH/fs.json" "$T_SCRATCH/fs-tmpfs" >"$T_SCRATCH/fs2.out" &&
		! grep -q 'another machine' "$T_SCRATCH/fs2.out" &&
		"$RR" baseline "$FIX" >"$T_SCRATCH/fs0.json" &&
		"$RR" gate --baseline "$T_SCRATCH/fs0.json" "$T_SCRATCH/fs-ext4" >"$T_SCRATCH/fs3.out" &&
		! grep -q 'another machine' "$T_SCRATCH/fs3.out"
}
t_case "the member files' filesystem: another one compares no absolute figure" member_fs
t_case "page lists the skipped test with its reason" grep -q "raid_parity=cuda: no GPU" "$RUN/index.html"
t_case "summary.json lists the skipped test" grep -q '"status":"skipped"' "$RUN/summary.json"

bad() { # EXPECTED-WORD ARGS...: exit 2 and exactly one line on stderr naming the problem
	local word=$1
	shift
	"$RR" "$@" >/dev/null 2>"$T_SCRATCH/err"
	local rc=$?
	cat "$T_SCRATCH/err"
	[[ $rc -eq 2 && $(wc -l <"$T_SCRATCH/err") -eq 1 ]] && grep -q -- "$word" "$T_SCRATCH/err"
}
BROKEN=$T_SCRATCH/broken
cp -r "$FIX" "$BROKEN"
echo '{"jobs": [ {"read": ' >"$BROKEN/tests/raid0-4-SEQ1M-Q8T64-read.json"
echo 'not json' >"$T_SCRATCH/notjson"
t_case "missing directory: exit 2" bad "no such results directory" "$T_SCRATCH/nope/"
t_case "malformed fio JSON: exit 2" bad "malformed JSON" "$BROKEN"
t_case "unknown subcommand: exit 2" bad "unknown command 'frobnicate'" frobnicate
t_case "unknown subcommand with arguments is named as a command" \
	bad "unknown command 'gates'" gates --baseline "$T_SCRATCH/base.json" "$RUN"
t_case "'compare' points to --compare" bad "did you mean --compare" compare "$FIX" "$RUN"
t_case "extra argument after RESULTS_DIR: exit 2" bad "unexpected argument 'x'" "$RUN" x
t_case "--compare --out without a value: exit 2" bad "--out needs a directory" --compare "$FIX" "$RUN" --out
t_case "gate --baseline without a value: exit 2" bad "--baseline needs a FILE" gate "$RUN" --baseline
t_case "unknown option: exit 2" bad "unknown option" --frob
t_case "gate without baseline: exit 2" bad "baseline" gate "$RUN"
t_case "gate with malformed baseline: exit 2" bad "malformed JSON" gate --baseline "$T_SCRATCH/notjson" "$RUN"
t_case "gate with bad tolerance: exit 2" bad "tolerance" gate --baseline "$T_SCRATCH/base.json" "$RUN" --tolerance x
t_case "directory without tests: exit 2" bad "no tests" "$T_SCRATCH/cmp"

# json-c's status words are not messages: a truncated file and a bad token say what and where
printf '{"format": 1,\n "figures": [' >"$T_SCRATCH/trunc.json"
printf '{"format": 1,\n "figures": x}\n' >"$T_SCRATCH/token.json"
t_case "truncated JSON says so, naming the file" bad "trunc.json: malformed JSON (truncated" \
	gate --baseline "$T_SCRATCH/trunc.json" "$RUN"
t_case "a bad token names the file and line" bad "token.json:2: malformed JSON" \
	gate --baseline "$T_SCRATCH/token.json" "$RUN"
t_case "json-c status words are never shown" bash -c \
	"! grep -h 'continue)\|success)' '$T_SCRATCH'/err"
t_case "a directory as the baseline: exit 2" bad "Is a directory" gate --baseline "$T_SCRATCH" "$RUN"

# A baseline that cannot gate anything, or gates another preset, is bad input, not a pass
printf '{"format": 2, "preset": "quick", "figures": []}\n' >"$T_SCRATCH/empty.json"
printf '{"format": 1, "preset": "quick", "figures": [{"id": "x"}]}\n' >"$T_SCRATCH/fmt1.json"
printf '{"format": 7, "preset": "quick", "figures": [{"id": "x"}]}\n' >"$T_SCRATCH/fmt7.json"
printf '{"preset": "quick", "figures": [{"id": "x"}]}\n' >"$T_SCRATCH/nofmt.json"
sed 's/"preset":"quick"/"preset":"hwluxx"/; s/"preset": "quick"/"preset": "hwluxx"/' \
	"$T_SCRATCH/base.json" >"$T_SCRATCH/hwluxx.json"
t_case "gate: baseline without figures: exit 2" bad "empty.json: no figures" \
	gate --baseline "$T_SCRATCH/empty.json" "$RUN"
t_case "gate: unknown baseline format: exit 2" bad "fmt7.json: format 7 is not" \
	gate --baseline "$T_SCRATCH/fmt7.json" "$RUN"
t_case "gate: a format 1 baseline (no ranges) is refused in one line: exit 2" \
	bad "fmt1.json: format 1 has no figure's range" gate --baseline "$T_SCRATCH/fmt1.json" "$RUN"
t_case "gate: baseline without a format: exit 2" bad "nofmt.json: format (none)" \
	gate --baseline "$T_SCRATCH/nofmt.json" "$RUN"
t_case "gate: baseline of another preset: exit 2, both named" \
	bad "baseline of preset 'hwluxx', .* a run of preset 'quick'" gate --baseline "$T_SCRATCH/hwluxx.json" "$RUN"

# Fields of the wrong type are bad input, not silently absent figures
wrong_type() { # FILE-IN-RUN SED EXPECTED
	local r=$T_SCRATCH/wt.$RANDOM
	cp -r "$FIX" "$r"
	sed -i "$2" "$r/$1"
	bad "$3" "$r"
}
t_case "meta.json: members as a string: exit 2 naming file and key" wrong_type \
	tests/raid0-4-SEQ1M-Q8T64-read.meta.json 's/"members":4/"members":"4"/' \
	'raid0-4-SEQ1M-Q8T64-read.meta.json: "members" is a string, expected an integer'
t_case "meta.json: rw as a number: exit 2" wrong_type \
	tests/raid0-4-SEQ1M-Q8T64-read.meta.json 's/"rw":"read"/"rw":1/' '"rw" is an integer, expected a string'
t_case "meta.json: scale as a string: exit 2" wrong_type \
	tests/raid0-4-SEQ1M-Q8T64-read.meta.json 's/"scale":[0-9.]*/"scale":"x"/' '"scale" is a string, expected a number'
t_case "stats: a nested counter of the wrong type: exit 2" wrong_type \
	tests/raid0-4-SEQ1M-Q8T64-read.stats.json '0,/"reads": [0-9]*/s//"reads": "many"/' \
	'stats.json: "volume.reads" is a string, expected a number'
t_case "run.json: host as a string: exit 2" wrong_type run.json \
	's/"host":{/"host":"x","was_host":{/' 'run.json: "host" is a string, expected an object'

# Issue 37's edges: numbers faithfully written, what is no number or no file refused, every
# write checked (each case failed before: 1e+62, exit 0, a hang, PASS, exit 0)
R37=$T_SCRATCH/r37
edit_fio() { # SED: a copy of the fixture in $R37 with the raid0 read test's fio JSON edited
	rm -rf "$R37" && cp -r "$FIX" "$R37" &&
		sed -i "$1" "$R37/tests/raid0-4-SEQ1M-Q8T64-read.json"
}
huge_iops() {
	edit_fio '0,/"iops" : [0-9.]*/s//"iops" : 1e308/' && "$RR" "$R37" >/dev/null || return 1
	! grep -E '[0-9]{20}' "$R37/summary.csv" "$R37/summary.json" &&
		awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
			$2 == "raid0-4-SEQ1M-Q8T64-read" { print $h["iops"] }' "$R37/summary.csv" |
		grep -qx '1e+308' && grep -q '"iops":1e+308' "$R37/summary.json"
}
t_case "an IOPS of 1e308 is written as 1e+308, not a 63-digit integer" huge_iops
nan_string() {
	edit_fio '0,/"iops" : [0-9.]*/s//"iops" : "NaN"/' &&
		bad 'raid0-4-SEQ1M-Q8T64-read.json: "jobs\[0\].read.iops" is a string' "$R37"
}
t_case "fio's iops as the string \"NaN\": exit 2 naming file and key" nan_string
bare_word() { # WORD: a bare NaN or Infinity (not JSON) in the fio output
	edit_fio "0,/\"iops\" : [0-9.]*/s//\"iops\" : $1/" &&
		bad '"jobs\[0\].read.iops" is NaN or Infinity' "$R37"
}
t_case "a bare NaN in fio's JSON: exit 2" bare_word NaN
t_case "a bare -Infinity in fio's JSON: exit 2" bare_word -Infinity
fifo_run() {
	rm -rf "$R37" && cp -r "$FIX" "$R37" && rm "$R37/run.json" && mkfifo "$R37/run.json" &&
		timeout 20 bash -c "$(declare -f bad); RR=$RR T_SCRATCH=$T_SCRATCH; bad 'run.json: not a regular file' $R37"
}
t_case "a FIFO as run.json: exit 2, no hang" fifo_run
fifo_bench() { # the run's parity-bench.json a FIFO: left out with a warning, the report made
	rm -rf "$R37" && cp -r "$FIX" "$R37" && mkfifo "$R37/parity-bench.json" &&
		timeout 120 "$RR" "$R37" >/dev/null 2>"$T_SCRATCH/fb.err"
	local rc=$?
	cat "$T_SCRATCH/fb.err"
	[[ $rc -eq 0 ]] && grep -q 'parity-bench.json: not a regular file' "$T_SCRATCH/fb.err"
}
t_case "a FIFO as parity-bench.json: a warning, no hang" fifo_bench
t_case "gate --baseline /dev/zero: exit 2, no hang" timeout 20 bash -c \
	"$(declare -f bad); RR=$RR T_SCRATCH=$T_SCRATCH; bad '/dev/zero: not a regular file' gate --baseline /dev/zero $RUN"
sed 's/"value":[0-9.e+-]*/"value":"NaN"/' "$T_SCRATCH/base.json" >"$T_SCRATCH/nan.json"
t_case "a baseline whose values are \"NaN\": exit 2, not PASS" \
	bad 'nan.json: figure 0 (.*): value "NaN", min .*: not positive numbers' \
	gate --baseline "$T_SCRATCH/nan.json" "$RUN"
t_case "gate --tolerance NaN: exit 2" bad "--tolerance 'NaN'" \
	gate --baseline "$T_SCRATCH/base.json" "$RUN" --tolerance NaN
t_case "baseline > /dev/full: exit 2 naming stdout" bash -c \
	"'$RR' baseline '$RUN' >/dev/full 2>'$T_SCRATCH/full.err'; rc=\$?; cat '$T_SCRATCH/full.err'; [[ \$rc -eq 2 ]] && grep -q 'stdout: write failed' '$T_SCRATCH/full.err'"
chart_full() { # a chart's data file on a full disk: exit 2 naming it, the page says why
	rm -rf "$R37" && cp -r "$FIX" "$R37" && mkdir "$R37/charts" &&
		ln -s /dev/full "$R37/charts/seq1m_read.dat" || return 1
	bad "charts/seq1m_read.dat or .gp: write failed" "$R37" &&
		grep -q 'cannot write charts/seq1m_read.dat' "$R37/index.html"
}
t_case "a chart file that cannot be written: exit 2, the page says so" timeout 120 bash -c \
	"$(declare -f bad chart_full); RR=$RR T_SCRATCH=$T_SCRATCH FIX=$FIX R37=$R37; chart_full"
other_machine() { # compare with a run of another machine: one warning line; the same: none
	rm -rf "$R37" && cp -r "$FIX" "$R37" &&
		"$ROOT/build/bin/raid-json" set "$R37/run.json" host.hostname:s=elsewhere host.cores:i=64 &&
		"$RR" --compare "$FIX" "$RUN" --out "$T_SCRATCH/c1" >/dev/null 2>"$T_SCRATCH/c1.err" &&
		[[ ! -s $T_SCRATCH/c1.err ]] &&
		"$RR" --compare "$FIX" "$R37" --out "$T_SCRATCH/c2" >/dev/null 2>"$T_SCRATCH/c2.err" &&
		cat "$T_SCRATCH/c2.err" && [[ $(wc -l <"$T_SCRATCH/c2.err") -eq 1 ]] &&
		grep -q 'different machines (run.json host hostname, cores differ)' "$T_SCRATCH/c2.err"
}
t_case "--compare of runs from two machines warns in one line" other_machine
project_named() { # a quick run onto a reviewed host: each optimal test, '-' where unpublished
	"$RR" project "$RUN" --profile supermicro-as-2125hs-tnr >"$T_SCRATCH/proj.txt" || return 1
	local n want
	n=$(grep -c '^[a-z0-9]*-[0-9]*-.* -  *-$' "$T_SCRATCH/proj.txt")
	want=$(grep -l '"state":"optimal"' "$RUN"/tests/*.meta.json | while read -r m; do
		[[ -e ${m%.meta.json}.json ]] && echo "$m"; done | wc -l)
	echo "$n of $want tests projected"
	[[ $n -eq $want && $n -gt 5 ]]
}
t_case "project --profile NAME on a quick run projects each test" project_named

# A run stopped by Ctrl-C: the tests fio did not finish are "interrupted", the rest reported
INTR=$T_SCRATCH/interrupted
interrupted() {
	rm -rf "$INTR" && cp -r "$FIX" "$INTR" &&
		"$ROOT/build/bin/raid-json" set "$INTR/run.json" started:s=2026-11-30T09:12:00 || return 1
	head -c 300 "$FIX/tests/raid5-4-SEQ1M-Q8T64-write.json" >"$INTR/tests/raid5-4-SEQ1M-Q8T64-write.json"
	: >"$INTR/tests/raid5-4-SEQ1M-Q8T64-read.json"
	rm "$INTR/tests/raid0-4-SEQ1M-Q8T64-write.json"
	head -c 50 "$FIX/tests/raid5-4-RND4K-Q1-randread.stats.json" >"$INTR/tests/raid5-4-RND4K-Q1-randread.stats.json"
	"$RR" "$INTR" || return 1
	[[ $(grep -o '"status":"interrupted"' "$INTR/summary.json" | wc -l) -eq 4 ]] &&
		grep -q '"status":"skipped"' "$INTR/summary.json" &&
		grep -q '"interrupted":true' "$INTR/summary.json" &&
		grep -q 'the run was interrupted' "$INTR/index.html" &&
		[[ $(grep -c '<td>interrupted</td>' "$INTR/index.html") -eq 4 ]]
}
t_case "an interrupted run: unfinished tests marked, the page written, exit 0" interrupted
running_test() { # a finished run whose test still says "running" (fio killed): interrupted
	rm -rf "$INTR" && cp -r "$FIX" "$INTR" &&
		"$ROOT/build/bin/raid-json" set "$INTR/tests/raid0-4-SEQ1M-Q8T64-read.meta.json" status:s=running &&
		: >"$INTR/tests/raid0-4-SEQ1M-Q8T64-read.json" && "$RR" "$INTR" >/dev/null &&
		grep -q '"status":"interrupted"' "$INTR/summary.json"
}
t_case "a test whose meta.json says running and whose fio output is empty: interrupted" running_test

# Issue 32: latency is the total, every run checks itself by Little's law, emulation is said.
col() { # CSV TEST COLUMN: one cell of summary.csv
	awk -F, -v t="$2" -v c="$3" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i }
		$2 == t { print $h[c] }' "$1"
}
L32=$T_SCRATCH/l32
fixture_keeps_little() { # the fixture's closed-loop tests (depth x jobs >= 4) all keep it
	local n
	n=$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } NR > 1 && $h["little"] == "ok"' \
		"$RUN/summary.csv" | wc -l)
	echo "$n tests keep Little's law"
	[[ $n -ge 10 ]] && ! grep -q ',missed,' "$RUN/summary.csv" && ! grep -q '<td>MISSED</td>\|missed Little' "$RUN/index.html"
}
t_case "the fixture's tests keep Little's law (summary, page)" fixture_keeps_little
lat_is_total() { # lat_mean_us is fio's lat_ns mean; the clat percentiles are named clat
	local t=raid5-4-RND4K-Q1-randread want
	want=$(jq '.jobs[0].read.lat_ns.mean / 1000 * 1000 | round / 1000' "$FIX/tests/$t.json")
	echo "lat_mean_us $(col "$RUN/summary.csv" $t lat_mean_us), fio lat_ns mean $want us"
	awk -v a="$(col "$RUN/summary.csv" $t lat_mean_us)" -v b="$want" \
		'BEGIN { exit !(a > 0 && (a - b) / b < 1e-3 && (b - a) / b < 1e-3) }' &&
		[[ -z $(col "$RUN/summary.csv" $t lat_p50_us) && -n $(col "$RUN/summary.csv" $t clat_p50_us) ]]
}
t_case "lat_mean_us is fio's total latency; clat percentiles only under clat" lat_is_total
little_missed() { # a test whose latency is 10x too short: missed in summary, page and line
	local t=raid5-4-RND4K-READ-randread
	rm -rf "$L32" && cp -r "$FIX" "$L32" &&
		jq '.jobs[0].read.lat_ns.mean /= 10' "$FIX/tests/$t.json" >"$L32/tests/$t.json" &&
		"$RR" "$L32" >"$T_SCRATCH/l32.out" || return 1
	cat "$T_SCRATCH/l32.out"
	[[ $(col "$L32/summary.csv" $t little) == missed ]] &&
		grep -q '"little_missed":1' "$L32/summary.json" &&
		grep -q "1 test missed Little's law" "$L32/index.html" &&
		grep -q "^$t: .*Little MISSED" "$T_SCRATCH/l32.out" &&
		"$RR" line "$L32/tests/$t.json" | grep -q "Little MISSED (IOPS x lat 3.1[0-9]* of 32 in flight)"
}
t_case "a test that breaks Little's law is marked (summary, page, console line)" little_missed
line_is_page() { # the console line's figures are the summary's, written alike
	local t=raid5-4-RND4K-WRITE-randwrite l
	l=$("$RR" line "$RUN/tests/$t.json") || return 1
	echo "$l"
	[[ $l == "$t: $(col "$RUN/summary.csv" $t iops) IOPS, $(col "$RUN/summary.csv" $t mbps) MB/s, lat mean $(col "$RUN/summary.csv" $t lat_mean_us) us, Little ok (IOPS x lat $(col "$RUN/summary.csv" $t little_inflight) of 64 in flight)" ]]
}
t_case "raid-report line: the page's figures in one line" line_is_page
t_case "raid-report line without a file: exit 2" bad "line: needs a TESTFILE" line
t_case "raid-report line of a test without fio output: exit 2" bad "randwrite.json: No such file" \
	line "$RUN/tests/raid6-4-RND4K-WRITE-randwrite.meta.json"
EMU=$T_SCRATCH/emu
emulated() { # md.where under TCG: every chart title, the page, the summary and line say so
	local t=raid5-4-RND4K-READ-randread gp
	rm -rf "$EMU" && cp -r "$FIX" "$EMU" &&
		"$ROOT/build/bin/raid-json" set "$EMU/run.json" host.hostname:s="(none)" \
			"md.where:s=appliance: mdvm: md from the appliance 6.1.0 under tcg" \
			md.host.hostname:s=devbox || return 1
	# an md twin of one test: its ratio must not be shown as a plain one
	cp "$FIX/tests/$t.json" "$EMU/tests/md-$t.json"
	jq -c '.test = "md-'$t'" | .target = "md"' "$FIX/tests/$t.meta.json" >"$EMU/tests/md-$t.meta.json"
	"$RR" "$EMU" >/dev/null || return 1
	for gp in "$EMU"/charts/*.gp; do
		grep -q '^set title ".*\[emulated: QEMU TCG\]"' "$gp" || { echo "no mark: $gp"; return 1; }
	done
	[[ $(col "$EMU/summary.csv" $t emulated) == "emulated: QEMU TCG" && -z $(col "$EMU/summary.csv" $t vs_md) ]] &&
		grep -q '"emulated":"emulated: QEMU TCG"' "$EMU/summary.json" &&
		grep -q 'Measured under emulation' "$EMU/index.html" &&
		grep -q 'emulated, not comparable' "$EMU/index.html" &&
		grep -q '<b>devbox, inside the md appliance' "$EMU/index.html" &&
		! grep -q '(none)</b>' "$EMU/index.html" &&
		"$RR" line "$EMU/tests/$t.json" | grep -q '\[emulated: QEMU TCG\]$'
}
t_case "emulation marked: chart titles, summary, page, no plain vs_md, host named" emulated
not_emulated_ratio() { # the same md twin on a real machine: a plain ratio
	local t=raid5-4-RND4K-READ-randread r=$T_SCRATCH/md
	rm -rf "$r" && cp -r "$FIX" "$r" && cp "$FIX/tests/$t.json" "$r/tests/md-$t.json" &&
		jq -c '.test = "md-'$t'" | .target = "md"' "$FIX/tests/$t.meta.json" >"$r/tests/md-$t.meta.json" &&
		"$RR" "$r" >/dev/null && [[ $(col "$r/summary.csv" $t vs_md) == 1 && -z $(col "$r/summary.csv" $t emulated) ]]
}
t_case "without emulation vs_md is the plain ratio" not_emulated_ratio
one_x() { # engine and md of one member count: no scaling line over one x value
	local t=raid5-4-SEQ1M-Q8T64-write r=$T_SCRATCH/onex
	rm -rf "$r" && mkdir -p "$r/tests" && cp "$FIX/run.json" "$r/" &&
		cp "$FIX/tests/$t."* "$r/tests/" && cp "$FIX/tests/$t.json" "$r/tests/md-$t.json" &&
		jq -c '.test = "md-'$t'" | .target = "md"' "$FIX/tests/$t.meta.json" >"$r/tests/md-$t.meta.json" &&
		"$RR" "$r" >/dev/null || return 1
	[[ ! -e $r/charts/scaling.png ]] && grep -q 'Scaling with member count.*not drawn' "$r/index.html"
}
t_case "a chart with one x value is not drawn, the page says why" one_x
t_done
