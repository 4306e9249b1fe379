#!/usr/bin/env bash
# report/targets_test.sh: raid-report on a run with several targets, made from the fixture run:
# the RAID5 sequential write gets an md twin (md-...) whose fio output is the fixture's RAID0
# write, a ublk twin (ublk-...) whose output is the 3-member RAID5 write, and a dev: volume twin
# whose output is its own; host_cpu in every meta.json. Checked: the three-way table,
# the target column, the ratio to md (= RAID5 / RAID0 of the fixture, computed here from its
# summary), the host CPU per I/O from host_cpu, the side-by-side charts and page section, the
# gate's md reference figures, vs_ublk in summary.csv/json, --compare's vs_md and vs_ublk, and
# old runs (no target key) read as engine.
source "$(dirname "$0")/../tests/lib.sh"
RR=$ROOT/build/bin/raid-report
RJ=$ROOT/build/bin/raid-json
FIX=$ROOT/report/testdata/run-quick
RUN=$T_SCRATCH/run
cp -r "$FIX" "$RUN"
T=$RUN/tests E=raid5-4-SEQ1M-Q8T64-write
cp "$T/$E.meta.json" "$T/md-$E.meta.json"
"$RJ" set "$T/md-$E.meta.json" test:s="md-$E" target:s=md engine:s=md parity:s=md
cp "$T/raid0-4-SEQ1M-Q8T64-write.json" "$T/md-$E.json"
cp "$T/$E.meta.json" "$T/dev-vol-SEQ1M-Q8T64-write.meta.json"
"$RJ" set "$T/dev-vol-SEQ1M-Q8T64-write.meta.json" test:s=dev-vol-SEQ1M-Q8T64-write \
	target:s=dev:vol engine:s=dev chunk:n parity:n
cp "$T/$E.json" "$T/dev-vol-SEQ1M-Q8T64-write.json"
# a ublk twin (the engine's array as /dev/ublkbN): its fio output is the fixture's 3-member RAID5
cp "$T/$E.meta.json" "$T/ublk-$E.meta.json"
"$RJ" set "$T/ublk-$E.meta.json" test:s="ublk-$E" target:s=ublk engine:s=ublk
cp "$T/raid5-3-SEQ1M-Q8T64-write.json" "$T/ublk-$E.json"
# 2 busy cores of 4 (1.5 user + 0.4 system + 0.1 softirq over 1 s) on every test
for m in "$T"/*.meta.json; do
	"$RJ" set "$m" 'host_cpu:j={"user_s":1.5,"system_s":0.4,"softirq_s":0.1,"iowait_s":0.7,"interval_s":1.0,"cpus":4,"fio_user_s":0.2,"fio_system_s":0.3}'
done

t_case "report of a run with engine, md and a dev: volume" "$RR" "$RUN"
col() { # TEST COLUMN -> the summary.csv cell
	awk -F, -v t="$1" -v c="$2" 'NR == 1 { for (i = 1; i <= NF; i++) n[$i] = i; next }
		$2 == t { print $(n[c]) }' "$RUN/summary.csv"
}
ratio() {
	local want got
	want=$(awk -v a="$(col "$E" mbps)" -v b="$(col raid0-4-SEQ1M-Q8T64-write mbps)" 'BEGIN { printf "%.3f", a / b }')
	got=$(col "$E" vs_md)
	echo "vs_md $got, RAID5/RAID0 MB/s $want; md's own: '$(col "md-$E" vs_md)'; dev's: $(col dev-vol-SEQ1M-Q8T64-write vs_md)"
	awk -v a="$got" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 0.005 && (b - a) / b < 0.005) }' &&
		[[ -z $(col "md-$E" vs_md) ]] &&
		awk -v a="$(col dev-vol-SEQ1M-Q8T64-write vs_md)" -v b="$want" 'BEGIN { exit !((a - b) / b < 0.005 && (b - a) / b < 0.005) }'
}
t_case "vs_md: each target's main figure over md's on the same test" ratio
# the three-way table: engine / ublk (the path's cost) on the engine's row, ublk / md (the
# RAID's cost) on ublk's, from the fixture's figures
threeway() {
	local e u m row urow want_eu want_um
	e=$(col "$E" mbps) u=$(col "ublk-$E" mbps) m=$(col "md-$E" mbps)
	want_eu=$(awk -v a="$e" -v b="$u" 'BEGIN { printf "%.2fx", a / b }')
	want_um=$(awk -v a="$u" -v b="$m" 'BEGIN { printf "%.2fx", a / b }')
	row=$(grep -o "<tr><td>$E</td><td>engine[^<]*</td>.*</tr>" "$RUN/index.html")
	urow=$(grep -o "<tr><td>ublk-$E</td><td>ublk[^<]*</td>.*</tr>" "$RUN/index.html")
	echo "engine $e ublk $u md $m: want engine/ublk $want_eu, ublk/md $want_um"
	echo "$row"
	echo "$urow"
	grep -q '<th>vs md</th><th>vs ublk</th>' "$RUN/index.html" &&
		[[ $row == *"<td class=n>$want_eu</td>"* && -n $urow &&
			$(sed 's/<\/td>/\n/g' <<<"$urow" | sed -n 5p) == "<td class=n>$want_um" &&
			$(sed 's/<\/td>/\n/g' <<<"$urow" | sed -n 6p) == "<td class=n>" ]]
}
t_case "three-way table: engine / ublk on the engine's row, ublk / md on ublk's" threeway
# the same ratio in summary.csv and summary.json: on the engine's row only
vs_ublk() {
	local want got js
	want=$(awk -v a="$(col "$E" mbps)" -v b="$(col "ublk-$E" mbps)" 'BEGIN { printf "%.3f", a / b }')
	got=$(col "$E" vs_ublk)
	js=$(jq -r --arg t "$E" '.tests[] | select(.test == $t) | .vs_ublk' "$RUN/summary.json")
	echo "vs_ublk csv $got json $js, engine/ublk MB/s $want; ublk's own '$(col "ublk-$E" vs_ublk)', md's '$(col "md-$E" vs_ublk)'"
	awk -v a="$got" -v j="$js" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 0.005 && (b - a) / b < 0.005 && j == a) }' &&
		[[ -z $(col "ublk-$E" vs_ublk) && -z $(col "md-$E" vs_ublk) ]]
}
t_case "summary.csv and summary.json: vs_ublk, engine / ublk on the engine's row" vs_ublk
t_case "target column: engine, md, dev:vol, jbod (old runs without the key)" bash -c \
	"[[ '$(col "$E" target) $(col "md-$E" target) $(col dev-vol-SEQ1M-Q8T64-write target) $(col jbod-4-SEQ1M-Q8T64-read target)' == 'engine md dev:vol jbod' ]]"
cpu() { # 2 busy cores / IOPS
	local want got
	want=$(awk -v i="$(col "$E" iops)" 'BEGIN { print 2 / i * 1e6 }')
	got=$(col "$E" host_cpu_us_per_io)
	echo "host_cpu_us_per_io $got, want $want; cores $(col "$E" host_cpu_cores)"
	awk -v a="$got" -v b="$want" 'BEGIN { exit !(a > 0 && (a - b) / b < 0.005 && (b - a) / b < 0.005) }' &&
		[[ $(col "$E" host_cpu_cores) == 2 ]]
}
t_case "host CPU per I/O: (user + system + softirq) / interval / IOPS" cpu
t_case "side-by-side charts drawn" bash -c "for c in targets_mbps targets_cpu; do [[ -s '$RUN'/charts/\$c.png && -s '$RUN'/charts/\$c.svg ]] || exit 1; done"
t_case "the chart has a bar per target for the same test" bash -c \
	"cat '$RUN/charts/targets_mbps.dat'; grep -c 'raid5 x4 c512k SEQ1M-Q8T64 write Q8T1: ' '$RUN/charts/targets_mbps.dat' | grep -qx 4"
t_case "the page sets the targets side by side" grep -q "id=targets" "$RUN/index.html"
t_case "gate figures take md as the reference" bash -c \
	"'$RR' baseline '$RUN' | grep -q '\"id\":\"$E / md-$E\"' && '$RR' baseline '$RUN' | grep -q 'dev-vol-SEQ1M-Q8T64-write / md-$E'"
t_case "md tests are not set against the engine's RAID0" bash -c \
	"! '$RR' baseline '$RUN' | grep -q '\"id\":\"md-$E / raid0'"
t_case "--compare lists vs_md" bash -c \
	"'$RR' --compare '$FIX' '$RUN' --out '$T_SCRATCH/cmp' | grep -q '^$E *vs_md'"
t_case "--compare lists vs_ublk, in compare.csv too" bash -c \
	"'$RR' --compare '$RUN' '$RUN' --out '$T_SCRATCH/cmp2' | grep -q '^$E *vs_ublk' && grep -q '^$E,vs_ublk,' '$T_SCRATCH/cmp2/compare.csv'"
t_case "a run with only the engine draws no target charts and no section" bash -c \
	"cp -r '$FIX' '$T_SCRATCH/old' && '$RR' '$T_SCRATCH/old' >/dev/null && ! ls '$T_SCRATCH/old/charts/targets_'* 2>/dev/null && ! grep -q id=targets '$T_SCRATCH/old/index.html'"

# What keeps each side consistent, named alike (docs/report.md, "Targets"): md's from its
# meta.json (run.sh writes what md reported), the engine's from its stats' "consistency"
# (absent: resync for RAID5, none for RAID0); and fio's steady state, never reached here.
C=$T_SCRATCH/cons
cp -r "$RUN" "$C"
"$RJ" set "$C/tests/md-$E.meta.json" md_bitmap:s=internal md_consistency:s=resync
"$RJ" set "$C/tests/$E.stats.json" consistency.policy:s=bitmap consistency.bitmap_chunk:i=67108864
S=raid5-4-RND4K-Q1-randread
sed -i '0,/"jobname" :/s//"steadystate" : {"ss" : "iops_slope:10.000000%", "duration" : 2, "attained" : 0},\n      &/' \
	"$C/tests/$S.json"
sed -i '0,/"jobname" :/s//"steadystate" : {"ss" : "iops_slope:10.000000%", "duration" : 2, "attained" : 1},\n      &/' \
	"$C/tests/raid0-4-SEQ1M-Q8T64-read.json"
t_case "report of a run with md's bitmap, the engine's policy and steady state" "$RR" "$C"
ccol() { # TEST -> "consistency|steady_state" of summary.json (summary.csv has the same)
	jq -r --arg t "$1" '.tests[] | select(.test == $t) | "\(.consistency)|\(.steady_state)"' "$C/summary.json"
}
labels() {
	local got
	got="$(ccol "md-$E")/$(ccol "$E")/$(ccol raid0-4-SEQ1M-Q8T64-write)/$(ccol "$S")/$(ccol raid0-4-SEQ1M-Q8T64-read)"
	echo "$got"
	[[ $got == 'bitmap=internal, resync|null/bitmap=internal, resync|null/none|null/bitmap=none, resync|not reached/none|reached' ]]
}
t_case "summary.json: consistency and steady_state, md and engine named alike" labels
t_case "summary.csv: the same two last columns" bash -c \
	"head -1 '$C/summary.csv' | grep -q ',consistency,steady_state\$' && grep -q '^quick,$S,.*,\"bitmap=none, resync\",not reached\$' '$C/summary.csv'"
t_case "the targets table names each side's policy" bash -c \
	"grep -q '<td>md (bitmap=internal, resync)</td>' '$C/index.html' && grep -q '<td>engine (bitmap=internal, resync)</td>' '$C/index.html'"
t_case "the charts name each side's policy beside its bars" bash -c \
	"grep -q 'c512k SEQ1M-Q8T64 write Q8T1: md \\[bitmap=internal, resync\\]' '$C/charts/targets_mbps.dat' &&
	grep -q 'c512k SEQ1M-Q8T64 write Q8T1: engine \\[bitmap=internal, resync\\]' '$C/charts/targets_mbps.dat' &&
	grep -q 'raid5 x4 .*c512k \\[bitmap=none, resync\\] Q' '$C/charts/'seq1m_*.dat &&
	! grep -q 'raid0 x4.*\\[' '$C/charts/'seq1m_*.dat"
t_case "the page marks the test that never reached steady state, and only it" bash -c \
	"grep -c 'steady state NOT reached)' '$C/index.html' | grep -qx 1 && grep -q '$S (steady state NOT reached)' '$C/index.html'"
t_done
