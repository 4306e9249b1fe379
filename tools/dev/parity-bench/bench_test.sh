#!/usr/bin/env bash
# bench_test.sh - raid-parity-bench's command line: --help (naming the streaming twins), the
# JSON contract (one array of {impl, op, k, chunk, mode, gbps} rows, checked with jq as every
# test reads JSON; the cachebw and membw references present), the pick forced through
# RAID_PARITY_IMPL, the band table (one line per mode, k and chunk, its ratios the figures of
# its own rows), the start-up line, and one-line errors on bad input. Figures are not checked
# (timing is never asserted); a short --runs/--pool keeps this to a few seconds.
source "$(dirname "$0")/../../../tests/lib.sh"
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
t_case "forced pick" bash -c "RAID_PARITY_IMPL=base '$BENCH' ${Q[*]} --op gen --mode hot --impl base | grep -q '^parity variant: base (forced by RAID_PARITY_IMPL); streaming: base '"
t_case "unknown forced name is reported" bash -c "RAID_PARITY_IMPL=nope '$BENCH' ${Q[*]} --op gen --mode hot --impl base 2>&1 | grep -q 'RAID_PARITY_IMPL=nope is unknown'"
t_case "the rule's pick is named" bash -c "'$BENCH' ${Q[*]} --op gen --mode hot --impl base | grep -qE '^parity variant: (avx512gfni|avx512|avx2|base) \((AVX|no AVX2)'"
t_case "selected by name" bash -c "'$BENCH' ${Q[*]} --op gen --mode hot --impl selected | grep -q '^selected '"
# the band table: one line per mode, k and chunk; the pick's figure the best of the rows that run
# its code ("selected", its own row, its row in the rule's shape), the fastest the best other
# row, the ratios and the floor as those figures say. $2: the pick's name.
bands_ok() { # FILE PICK
	awk -v best="$2" '
		function near(a, b) { return a - b < 0.006 && b - a < 0.006 }
		$2 == "gen" && NF >= 6 { v[$1 "|" $5 "|" $3 "|" $4] = $6 + 0 }
		/^\| (hot|stream) / {
			split($0, f, "|"); for (i in f) gsub(/^ +| +$/, "", f[i])
			ch = f[4] == "1024K" ? "1M" : f[4]; n++; mine = 0; top = 0; named = -1; isal = -1
			# the shape of the rule: the last word of the pick streaming, none hot
			shape = split(f[5], w, " ") > 1 ? w[2] : "none"
			for (r in v) {
				split(r, p, "|"); if (p[2] != f[2] || p[3] != f[3] || p[4] != ch) continue
				if (p[1] ~ /^(cachebw|membw|isal-avx2)$/) continue
				if (p[1] == "isal") isal = v[r]
				if (p[1] == "selected" || p[1] == best || p[1] == best "/" shape) {
					if (v[r] > mine) mine = v[r]
				} else if (v[r] > top) top = v[r]
				if (p[1] == f[8]) named = v[r]
			}
			if (!near(f[6], mine) || !near(named, f[9]) || !near(top, f[9])) bad++
			if (f[8] == "selected" || f[8] == best || f[8] == best "/" shape || !near(isal, f[11])) bad++
			x = f[10]; y = f[12]; sub(/x$/, "", x); sub(/x$/, "", y)
			if (!near(f[6] / f[9], x) || !near(f[6] / f[11], y)) bad++
			if ((x + 0 >= 0.9 && y + 0 >= 0.9) != (f[13] == "met") || f[13] !~ /^(met|noise|MISS)$/) bad++
		}
		END { exit !(n == 4 && !bad) }' "$1"
}
t_case "band table" bash -c "'$BENCH' --quick --runs 1 --pool 64m --op gen --k 4,10 >'$T_SCRATCH/b.txt' && $(declare -f bands_ok); bands_ok '$T_SCRATCH/b.txt' \$(sed -n 's/^parity variant: \([a-z0-9]*\) .*/\1/p' '$T_SCRATCH/b.txt') && grep -qE '^[0-9] of 4 bands meet the floor' '$T_SCRATCH/b.txt'"
t_case "start-up line" bash -c "'$BENCH' --startup --impl membw --quick --mode stream --pool 64m | grep -qE '^start-up, fio one 4 KiB write over null members \(median of 5\): RAID5 [0-9.]+ s, RAID0 [0-9.]+ s, RAID5 - RAID0 [-+][0-9.]+ s \(target: within 0.1 s\) (met|MISS)$'"
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
