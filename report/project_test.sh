#!/usr/bin/env bash
# report/project_test.sh: the projection end to end. ./run.sh selfcheck (JBOD, RAID5 and RAID6
# over 4 and 8 members in /dev/shm, 1 s each) and raid-report project --self: each x8 test
# is projected from its x4 twin, from the x4 run's own measured inputs, to a finite figure
# with its binding limit named (its error is printed, never judged: `make bench` reports it);
# the page and projection.csv carry it. Then the fixture projected onto review A's host, the
# published figures' physical-limit check on review A's and C's, and bad input.
source "$(dirname "$0")/../tests/lib.sh"
RR=$ROOT/build/bin/raid-report
RJ=$ROOT/build/bin/raid-json
OUT=$T_SCRATCH/results
command -v jq >/dev/null || { echo "[  SKIPPED ] project_test: jq is missing (mk/deps.sh installs it)"; echo "[  PASSED  ] 0 test(s)."; exit 0; }

t_case "selfcheck preset runs end to end" env TMPDIR="$T_SCRATCH" "$ROOT/run.sh" selfcheck \
	--no-build --scale 0.03 --runtime 1 --member-size 32M --out "$OUT"
R=$(ls -d "$OUT"/*-selfcheck 2>/dev/null | head -1)
t_case "raid-report project --self --json" bash -c "'$RR' project '$R' --self --json >'$T_SCRATCH/self.json'"
cp "$T_SCRATCH/self.json" "$T_OUT"

col() { # TEST COLUMN -> the summary.csv cell
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) h[$i] = i } $2 == t { print $h[c] }' \
		"$R/summary.csv"
}
# The x4 test's CPU time per I/O as the projection must have read it: whole-machine CPU
# (meta.json host_cpu) when the run recorded it, else fio's, as summary.csv has it.
cpu_of() {
	local m=$R/tests/$1.meta.json u
	if u=$("$RJ" get "$m" host_cpu.user_s 2>/dev/null); then
		awk -v u="$u" -v s="$("$RJ" get "$m" host_cpu.system_s)" -v q="$("$RJ" get "$m" host_cpu.softirq_s)" \
			-v i="$("$RJ" get "$m" host_cpu.interval_s)" -v n="$(col "$1" iops)" \
			'BEGIN { printf "%.4g\n", (u + s + q) / i / n * 1e6 }'
	else
		col "$1" cpu_us_per_io
	fi
}
same() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a > 0 && b > 0 && (a - b) / b < 0.01 && (b - a) / b < 0.01) }'; }

check_self() {
	local n=0 t src
	for t in raid5-8m-RND4K-Q32T64-randwrite raid6-8m-RND4K-Q32T64-randwrite \
		raid5-8m-SEQ1M-Q8T64-write raid6-8m-SEQ1M-Q8T64-write; do
		src=${t/-8m-/-4m-}
		local row
		row=$(jq -c --arg t "$t" '.self_check[] | select(.published_test == $t)' "$T_SCRATCH/self.json")
		[[ -n $row ]] || { echo "$t: no self-check row"; return 1; }
		jq -e --arg s "$src" '.measured_test == $s and .inputs.measured_members == 4 and .members == 8' \
			<<<"$row" >/dev/null || { echo "$t: not projected from $src at 4 members: $row"; return 1; }
		# a finite number, with the limit that binds named (never the error: that is reported)
		jq -e '(.projected | type) == "number" and .projected > 0 and (.binding | length) > 0 and
			(.projected_vs_measured | type) == "number"' <<<"$row" >/dev/null ||
			{ echo "$t: no finite projection: $row"; return 1; }
		# the inputs are the x4 run's: its CPU per I/O, its JBOD's per-member rate
		same "$(jq '.inputs.cpu_us_per_io_measured' <<<"$row")" "$(cpu_of "$src")" ||
			{ echo "$t: CPU input $(jq '.inputs.cpu_us_per_io_measured' <<<"$row") is not $src's $(cpu_of "$src")"; return 1; }
		jq -r '.bounds[] | select(.bound == "drives") | .how' <<<"$row" | grep -q "run: jbod-4-" ||
			{ echo "$t: drive bound not from the x4 JBOD"; return 1; }
		same "$(jq '.measured' <<<"$row")" "$(col "$t" "$([[ $t == *SEQ1M* ]] && echo mbps || echo iops)")" ||
			{ echo "$t: measured is not the x8 figure"; return 1; }
		echo "$t: $(jq -r '"\(.projected) \(.unit) projected, \(.measured) measured, ratio \(.projected_vs_measured), binds \(.binding)"' <<<"$row")"
		n=$((n + 1))
	done
	[[ $n == 4 ]]
}
t_case "each x8 test projected from its x4 twin's measured inputs, a finite figure" check_self
t_case "summary.json carries the self-check rows" bash -c "jq -e '.self_check | length == 4' '$R/summary.json'"
t_case "projection.csv has the rows and their inputs" bash -c \
	"[[ \$(grep -c '^self-check,' '$R/projection.csv') == 4 ]] && head -1 '$R/projection.csv' | grep -q cpu_us_per_io_measured"
t_case "the page shows the self-check with its ratio" bash -c \
	"grep -q 'id=selfcheck' '$R/index.html' && grep -q 'projected / measured' '$R/index.html' && [[ -s '$R/charts/selfcheck.png' ]]"
t_case "efficiency: RAID tests against the x4/x8 JBOD, chart drawn" bash -c \
	"[[ \$(awk -F, 'NR > 1 && \$1 == \"run\" && \$10 != \"\"' '$R/efficiency.csv' | wc -l) == 8 && -s '$R/charts/efficiency.png' ]]"

FIX=$T_SCRATCH/fix
cp -r "$ROOT/report/testdata/run-quick" "$FIX"
onto_a() {
	"$RR" project "$FIX" --profile gigabyte-r284-s93-aal1 --json >"$T_SCRATCH/a.json" || return 1
	jq -e '[.projections[] | select(.profile == "gigabyte-r284-s93-aal1" and (.projected | type) == "number"
		and (.binding | length) > 0)] | length >= 3' "$T_SCRATCH/a.json"
}
t_case "the fixture projected onto review A's host, binding limit named" onto_a
# The per-core parity rate is the bench row of the variant the engine ran; a variant the bench
# has no row of (avx512gfni in the fixture; a routing one such as avx2+isal) takes the bench's
# "selected" row, which runs each band's winner as the engine does, not whichever row is
# nearest. The rows are written here so that the choice, not the machine, is tested.
parity_source_of() { # IMPL: the parity source of the fixture's parity-using projection
	local d=$T_SCRATCH/fixp row=
	rm -rf "$d" && cp -r "$FIX" "$d" || return 1
	for i in avx2:11 isal:12 selected:13; do
		row+=${row:+,}"{\"impl\":\"${i%:*}\",\"op\":\"gen\",\"k\":10,\"chunk\":65536,\"mode\":\"stream\",\"gbps\":${i#*:}}"
	done
	echo "[$row]" >"$d/parity-bench.json"
	[[ $1 == fixture ]] || sed -i "s/\"parity_impl\": *\"[^\"]*\"/\"parity_impl\": \"$1\"/" "$d"/tests/*.stats.json
	"$RR" project "$d" --profile gigabyte-r284-s93-aal1 --json |
		jq -r '[.projections[].inputs.parity_source | strings] | unique | join(";")'
}
own_row() { [[ $(parity_source_of avx2) == 'parity-bench.json avx2 gen k=10 chunk 64k' ]]; }
selected_row() {
	local f r
	for f in fixture avx2+isal; do
		r=$(parity_source_of "$f")
		echo "$f: $r"
		[[ $r == 'parity-bench.json selected gen k=10 chunk 64k' ]] || return 1
	done
}
t_case "parity rate: the engine's own variant's bench row" own_row
t_case "parity rate: a variant without a bench row takes the selected row" selected_row
t_case "the table prints" bash -c "'$RR' project '$FIX' --profile gigabyte-r284-s93-aal1 | grep -q 'binding'"

# Review A's final layout: a RAID6 write of 26.6 GB/s with GPU parity through the A1000's
# Gen4 x8 link (15.75 GB/s each way) is flagged; the RAID6 read of 80.2 GB/s is not.
# A run of the proxmox workloads stands in (the fixture's tests, renamed).
proxmox_flag() {
	local r=$T_SCRATCH/px t
	mkdir -p "$r/tests" && cp "$FIX/run.json" "$r/" || return 1
	for t in raid5-4-SEQ1M-Q8T64-write raid5-4-SEQ1M-Q8T64-read; do
		cp "$FIX/tests/$t".* "$r/tests/" &&
			"$RJ" set "$r/tests/$t.meta.json" workload:s=PROXMOX-1M-QD64T32 level:i=6 || return 1
	done
	"$RR" project "$r" --profile gigabyte-r284-s93-aal1 --json >"$T_SCRATCH/px.json" || return 1
	jq -e '[.projections[] | select(.rw == "write") | .physical_limit // ""] | any(test("gpu link"))' "$T_SCRATCH/px.json" &&
		jq -e '[.projections[] | select(.rw == "read") | .physical_limit] | all(. == null)' "$T_SCRATCH/px.json"
}
t_case "review A: 26.6 GB/s of GPU-parity RAID6 writes over a Gen4 x8 link is flagged" proxmox_flag

t_case_fail "unknown profile: exit 2" "$RR" project "$FIX" --profile no-such-host
t_case "... with one line naming it" bash -c "'$RR' project '$FIX' --profile no-such-host 2>&1 | grep -c . | grep -qx 1"
t_case_fail "no profile and no self-check pairs: exit 2" "$RR" project "$FIX"
t_case_fail "project without a directory: exit 2" "$RR" project --self
t_done
