#!/usr/bin/env bash
# bench_test.sh - raid-parity-bench's command line: --help (naming the streaming twins), the
# JSON contract (one array of {impl, op, k, chunk, mode, gbps} rows, checked with jq as every
# test reads JSON; the cachebw and membw references present), the forced selection through
# RAID_PARITY_IMPL (hot and streaming), the selections' figures, the targets table (its ceilings,
# the selected rows against ISA-L's), the form of
# the --selection stability check, and one-line errors on bad input. Figures are not checked
# (timing is never asserted); a short --runs/--pool keeps this to a few seconds.
source "$(dirname "$0")/../../tests/lib.sh"
BENCH=$ROOT/build/bin/raid-parity-bench
Q=(--quick --runs 1 --pool 64m)

t_case "help" bash -c "'$BENCH' --help | grep -q -- '--json'"
t_case "help: stream uses the twins" bash -c "'$BENCH' --help | grep -q 'streaming twins'"
t_case "cachebw by name" bash -c "'$BENCH' ${Q[*]} --op gen --impl cachebw | grep -q '^cachebw '"

check_json() { # FILE: a non-empty array of well-formed rows, with isal and membw present
	jq -e '
		def ops($i): [.[] | select(.impl == $i) | .op] | unique;
		def uses($i): [.[] | select(.impl == $i) | [.op, .mode]] | unique;
		(type == "array" and length > 0)
		and all(.[]; (keys == ["chunk", "gbps", "impl", "k", "mode", "op"])
			and (.op | IN("gen", "rmw", "recov1", "recov2"))
			and (.mode | IN("hot", "stream"))
			and .k == 10 and .chunk == 65536
			and (.gbps | type == "number" and . > 0))
		and ([.[].impl] | unique | contains(["base", "isal", "membw", "cachebw"]))
		# the bandwidth references: gen only, cachebw hot (the hot ceiling), membw stream
		and uses("cachebw") == [["gen", "hot"]] and uses("membw") == [["gen", "stream"]]
		# an AVX2 CPU: ISA-L'"'"'s AVX2 code is measured beside ours
		and (([.[].impl] | index("avx2")) == null or ops("isal-avx2") == ["gen"])
		and ops("base") == ["gen", "recov1", "recov2", "rmw"]
		# what a caller runs (each band'"'"'s winner), gen in both modes
		and uses("selected") == [["gen", "hot"], ["gen", "stream"]]' "$1" >/dev/null
}
t_case "json contract" bash -c "'$BENCH' --json ${Q[*]} >'$T_SCRATCH/b.json' && $(declare -f check_json); check_json '$T_SCRATCH/b.json'"
t_case "forced selection" bash -c "RAID_PARITY_IMPL=base '$BENCH' ${Q[*]} --op gen --mode hot --impl base | grep -q 'selected: base (RAID_PARITY_IMPL)'"
t_case "unknown forced name is reported" bash -c "RAID_PARITY_IMPL=nope '$BENCH' ${Q[*]} --op gen --mode hot --impl base 2>&1 | grep -q 'RAID_PARITY_IMPL=nope is unknown'"
t_case "forced selection streams through the forced variant" bash -c "RAID_PARITY_IMPL=base '$BENCH' ${Q[*]} --op gen --impl base | grep -q 'streaming: base'"
t_case "both selections print their candidates, isal among them" bash -c "'$BENCH' ${Q[*]} --op gen --impl base | grep -A80 'streaming selection' | grep -qE '^raid parity:   k = 10 +64K  isal '"
t_case "targets table" bash -c "'$BENCH' ${Q[*]} --op gen,recov2 >'$T_SCRATCH/t.txt' && grep -q '^| gen, from memory (streaming) ' '$T_SCRATCH/t.txt'"
# the ceiling: membw / isal of this run (the stream rows), cachebw / isal (the hot row); "-" where none
ceiling_ok() { # FILE
	awk -F'|' '
		function num(s) { gsub(/[^0-9.]/, "", s); return s + 0 }
		function gb(s) { n = split(s, w, " "); return w[n] + 0 }
		$2 ~ /^ gen, data in cache +$/ { hc = num($7); hi = gb($4) }
		$2 ~ /^ gen, from memory \(streaming\) +$/ { sc = num($7); si = gb($4) }
		$2 ~ /^ streaming gen \/ read-XOR/ { mb = gb($4); dash = $7 ~ /^ +- $/ }
		END {
			ok = si > 0 && mb > 0 && dash && (sc - mb / si) < 0.006 && (mb / si - sc) < 0.006
			exit !(ok && hc > 0 && hi > 0)
		}' "$1" && grep -q '^| figure .*| ceiling | met |$' "$1" && grep -q '^(ceiling: ' "$1"
}
t_case "targets table: the ceiling is membw / isal of the run" bash -c "$(declare -f ceiling_ok); ceiling_ok '$T_SCRATCH/t.txt'"
# the wide variants: their rows where the CPU runs them, else a row that says they are unavailable
# "never slower than ISA-L": the selected rows against isal, with the variant each one ran
t_case "targets table: selected against isal" bash -c "grep -qE '^\| +10 \| +64K \| hot +\| [a-z0-9-]+ +\|.*x \|$' '$T_SCRATCH/t.txt' && grep -qE '^\| +10 \| +64K \| stream +\| [a-z0-9-]+-stream +\|' '$T_SCRATCH/t.txt'"
t_case "selected by name" bash -c "'$BENCH' ${Q[*]} --op gen --mode hot --impl selected | grep -q '^selected '"
t_case "targets table: avx512gfni measured or said unavailable" bash -c "grep -qE '^\| (gen, data in cache, avx512gfni +\| avx512gfni|avx512gfni +\| unavailable: this CPU does not report)' '$T_SCRATCH/t.txt'"
t_case "targets table: which candidate won, band by band" bash -c "grep -qE '^hot selection won by: k = 4 4K .*; k = 10 64K .*; k = 22 1024K ' '$T_SCRATCH/t.txt' && grep -qE '^streaming selection won by: k = 4 4K .*; k = 10 64K .*; k = 22 1024K ' '$T_SCRATCH/t.txt'"
# the stability check: its verdict depends on timing, so only its form is checked (exit 0 or 1)
t_case "selection stability check" bash -c "'$BENCH' --selection 2 >'$T_SCRATCH/s.txt'; [ \$? -le 1 ] && [ \$(grep -c '^hot selection over 2 runs, k = [0-9]*, [0-9]*K:' '$T_SCRATCH/s.txt') -eq 9 ] && [ \$(grep -c '^streaming selection over 2 runs, k = [0-9]*, [0-9]*K:' '$T_SCRATCH/s.txt') -eq 9 ]"
t_case "the check sums up: bands stable of 18, and why the others were not" bash -c "grep -qE '^hot selection over 2 runs: [0-9] of 9 bands stable' '$T_SCRATCH/s.txt' && grep -qE '^streaming selection over 2 runs: [0-9] of 9 bands stable' '$T_SCRATCH/s.txt' && grep -qE '^both selections over 2 runs: [0-9]+ of 18 bands stable(; of the [0-9]+ unstable, [0-9]+ changed between runs, [0-9]+ moved within the noise; settled head to head \\([0-9]+\\), [0-9]+ of 18 bands stable \\([0-9]+ of the [0-9]+ shown within 3%\\))?\$' '$T_SCRATCH/s.txt' && [ \$(grep -cE '^(hot|streaming) selection over 2 runs, k = .*NOT stable' '$T_SCRATCH/s.txt') -eq \$((18 - \$(sed -n 's/^both selections over 2 runs: \\([0-9]*\\) of 18.*/\\1/p' '$T_SCRATCH/s.txt'))) ]"
# every unstable band says why: the fastest changed between runs, or the choice moved in the noise
t_case "each unstable band is explained" bash -c "[ \$(grep -cE '^(hot|streaming) selection over 2 runs, k = .*NOT stable' '$T_SCRATCH/s.txt') -eq \$(grep -cE '^  (the fastest changed between runs: .* in runs? [0-9 ]+, .* in runs? [0-9 ]+: more than noise|.* and .* were not each more than 5% ahead of the other in some run: the choice moved)' '$T_SCRATCH/s.txt') ]"
# and settled head to head: one line per unstable band, its candidates' ratios and a verdict
t_case "each unstable band is settled head to head" bash -c "[ \$(grep -cE '^(hot|streaming) selection over 2 runs, k = .*NOT stable' '$T_SCRATCH/s.txt') -eq \$(grep -cE '^  settled head to head \\((90|20 steady) rounds, these alone\\): .*[0-9]\\.[0-9]{2}x.*: (stable: every choice within 3% of the fastest|stable: no choice shown more than 3% slower than another|NOT stable: a choice more than 3% slower than another)( \\((closest|here) .*: [0-9]\\.[0-9]{2}x of .* round by round, 95%: [0-9]\\.[0-9]{2}-[0-9]\\.[0-9]{2}\\))?\$' '$T_SCRATCH/s.txt') ]"
# --settle: every band settled, the summary counts them, and the exit status follows them
t_case "--selection --settle settles every band" bash -c "'$BENCH' --selection 2 --settle >'$T_SCRATCH/st.txt'; rc=\$?; [ \$rc -le 1 ] && [ \$(grep -cE '^  settled head to head \\((90|20 steady) rounds, these alone\\): .*\\(chosen\\)' '$T_SCRATCH/st.txt') -eq 18 ] && [ \$(grep -c '^  settled head to head (20 steady rounds' '$T_SCRATCH/st.txt') -eq 9 ] && grep -qE '^both selections over 2 runs: [0-9]+ of 18 bands stable.*; settled head to head \\(18\\), [0-9]+ of 18 bands stable \\([0-9]+ of the 18 shown within 3%\\)\$' '$T_SCRATCH/st.txt' && n=\$(sed -n 's/^both selections.*settled head to head (18), \\([0-9]*\\) of 18.*/\\1/p' '$T_SCRATCH/st.txt') && [ \$(grep -c '^  settled head to head .*: stable: ' '$T_SCRATCH/st.txt') -eq \$n ] && w=\$(sed -n 's/^both selections.* (\\([0-9]*\\) of the 18 shown within 3%)\$/\\1/p' '$T_SCRATCH/st.txt') && [ \$(grep -c '^  settled head to head .*: stable: every choice within 3%' '$T_SCRATCH/st.txt') -eq \$w ] && { { [ \$n -eq 18 ] && [ \$rc -eq 0 ]; } || { [ \$n -lt 18 ] && [ \$rc -eq 1 ]; }; }"
t_case_fail "--settle without --selection" "$BENCH" --settle
t_case_fail "selection count below 2" "$BENCH" --selection 1
t_case_fail "--kept without --selection" "$BENCH" --kept
t_case "--selection --kept: kept selections (medians of PQ_KEEP_RUNS) judged the same way" bash -c "'$BENCH' --selection 2 --kept >'$T_SCRATCH/k.txt'; [ \$? -le 1 ] && grep -q '^hot run 2:' '$T_SCRATCH/k.txt' && [ \$(grep -c '^streaming selection over 2 runs, k = [0-9]*, [0-9]*K:' '$T_SCRATCH/k.txt') -eq 9 ]"
t_case_fail "bad k" "$BENCH" --k 0
t_case_fail "k above the maximum" "$BENCH" --k 63
t_case_fail "chunk not a multiple of 64" "$BENCH" --chunk 100
t_case_fail "unknown op" "$BENCH" --op frob
t_case_fail "unknown impl" "$BENCH" --impl frob
t_case "isal-avx2 by name" bash -c "! grep -q avx2 /proc/cpuinfo || '$BENCH' ${Q[*]} --op gen --mode hot --impl isal-avx2 | grep -q '^isal-avx2 '"
t_case_fail "unknown option" "$BENCH" --frob
t_case_fail "stray argument" "$BENCH" extra
t_case "errors are one line" bash -c "[ \$('$BENCH' --chunk 100 2>&1 | wc -l) -eq 1 ]"
t_done
