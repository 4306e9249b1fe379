#!/usr/bin/env bash
# report/rebuild_test.sh: the report's rebuild and resync table (report/analysis/rebuild.c,
# report/render/rebuild_out.c) on a genuine run of the rebuild preset's RAID5 rebuild and
# resync (report/testdata/run-rebuild, make-rebuild-fixture.sh): rebuild.csv as expected
# (each rate beside the spare's write spec from review A's profile), the page's section, md's
# rate on the same members and the ratio to it, the emulated mark, a profile without a spec;
# the array's own transfers as run.sh measured them before the rebuild (run/recovery.sh).
source "$(dirname "$0")/../tests/lib.sh"
RR=$ROOT/build/bin/raid-report
RJ=$ROOT/build/bin/raid-json
FIX=$ROOT/report/testdata/run-rebuild
EXP=$ROOT/report/testdata/expected
REB=raid5-4m-REBUILD-6.4TB-read-rebuilding
RSY=raid5-4m-RESYNC-randwrite-resync
RUN=$T_SCRATCH/run
cp -r "$FIX" "$RUN"

col() { # CSV TEST COLUMN -> the cell (RFC 4180: quoted cells hold commas)
	awk -v t="$2" -v c="$3" '
	function cells(line, f,   n, i, ch, q) {
		n = 1; f[1] = ""; q = 0
		for (i = 1; i <= length(line); i++) {
			ch = substr(line, i, 1)
			if (q && ch == "\"" && substr(line, i + 1, 1) == "\"") { f[n] = f[n] ch; i++ }
			else if (ch == "\"") q = !q
			else if (!q && ch == ",") f[++n] = ""
			else f[n] = f[n] ch
		}
		return n
	}
	NR == 1 { n = cells($0, h); for (i = 1; i <= n; i++) k[h[i]] = i; next }
	{ cells($0, v); if (v[1] == t) print v[k[c]] }' "$1"
}
t_case "report writes rebuild.csv" "$RR" "$RUN"
t_case "rebuild.csv as expected" diff -u "$EXP/rebuild.csv" "$RUN/rebuild.csv"

# the figures against the run's own files: rate = stats, array = x3 data members, of spec
figures() {
	local mb arr sp of
	mb=$(jq -r .rebuild.mbps "$RUN/tests/$REB.stats.json")
	arr=$(col "$RUN/rebuild.csv" $REB array_mbps) sp=$(col "$RUN/rebuild.csv" $REB spec_mbps)
	of=$(col "$RUN/rebuild.csv" $REB of_spec)
	echo "rebuild $mb MB/s, array $arr, spec $sp, of spec $of"
	awk -v m="$mb" -v a="$arr" -v s="$sp" -v o="$of" 'BEGIN {
		exit !((a / m - 3)^2 < 1e-4 && s == 5800 && (o / (m / 5800) - 1)^2 < 1e-4) }' || return 1
	# the array's own transfers as the run measured them (meta.json refs), and the share
	local tr ot
	tr=$(jq -r .refs.transfers_mbps "$RUN/tests/$REB.meta.json") ot=$(col "$RUN/rebuild.csv" $REB of_transfers)
	echo "transfers $tr MB/s (meta), $(col "$RUN/rebuild.csv" $REB transfers_mbps) (csv), of transfers $ot"
	awk -v m="$mb" -v t="$tr" -v c="$(col "$RUN/rebuild.csv" $REB transfers_mbps)" -v o="$ot" \
		'BEGIN { exit !(t > 0 && c == t && (o / (m / t) - 1)^2 < 1e-4) }' || return 1
	local b s r
	b=$(jq -r .resync.bytes "$RUN/tests/$RSY.stats.json") s=$(jq -r .resync.seconds "$RUN/tests/$RSY.stats.json")
	r=$(col "$RUN/rebuild.csv" $RSY member_mbps)
	echo "resync $b bytes in $s s: $r MB/s"
	awk -v b="$b" -v s="$s" -v r="$r" 'BEGIN { exit !((r / (b / 1e6 / s) - 1)^2 < 1e-6) }'
}
t_case "rates from the stats, array = 3 data members, shares of the write spec and the transfers" figures
t_case "page: the section, its spec source, the resync figure" bash -c "
	grep -q '<h2 id=rebuild>Rebuild and resync' '$RUN/index.html' &&
	grep -q 'kingston-dc3000me-3.84t seq write spec (review A' '$RUN/index.html' &&
	grep -q 'resync after an unclean stop, full (dirty mark)' '$RUN/index.html' &&
	grep -q 'href=rebuild.csv' '$RUN/index.html'"

# md's twins on the same members (the engine's tests relabelled md, at half the rate): the
# engine's rows show md's rate and a ratio of 2; md's own rows are in the table too
with_md() {
	local r=$T_SCRATCH/md t
	cp -r "$FIX" "$r"
	for t in $REB $RSY; do
		for x in json meta.json stats.json; do cp "$r/tests/$t.$x" "$r/tests/md-$t.$x"; done
		"$RJ" set "$r/tests/md-$t.meta.json" test:s="md-$t" target:s=md engine:s=md || return 1
	done
	"$RJ" set "$r/tests/md-$REB.stats.json" \
		rebuild.mbps:f="$(jq '.rebuild.mbps / 2' "$r/tests/$REB.stats.json")" &&
		"$RJ" set "$r/tests/md-$RSY.stats.json" \
			resync.seconds:f="$(jq '.resync.seconds * 2' "$r/tests/$RSY.stats.json")" &&
		"$RR" "$r" >/dev/null || return 1
	cat "$r/rebuild.csv"
	[[ $(col "$r/rebuild.csv" $REB vs_md) == 2 && $(col "$r/rebuild.csv" $RSY vs_md) == 2 &&
		$(col "$r/rebuild.csv" $REB md_test) == md-$REB && -n $(col "$r/rebuild.csv" md-$RSY member_mbps) ]]
}
t_case "md's rate on the same members beside, the ratio to it" with_md

# inside the appliance (run.json md.where: tcg) every row says emulated, and no ratio to md
emulated() {
	local r=$T_SCRATCH/tcg
	cp -r "$FIX" "$r"
	"$RJ" set "$r/run.json" "md.where:s=appliance: md from the appliance 6.1 under tcg" &&
		"$RR" "$r" >/dev/null || return 1
	[[ $(col "$r/rebuild.csv" $REB clock) == "emulated: QEMU TCG" &&
		$(col "$r/rebuild.csv" $RSY clock) == "emulated: QEMU TCG" ]] &&
		grep -q 'Every figure here is emulated' "$r/index.html"
}
t_case "emulated runs: each figure marked emulated" emulated

# a profile whose drive has no write figure (review B's): "no spec", no share
no_spec() {
	local r=$T_SCRATCH/nospec
	cp -r "$FIX" "$r"
	jq '.profile.content.drives["kingston-dc3000me-3.84t"].seq_write_mbps = null' "$r/run.json" \
		>"$r/run.json.new" && mv "$r/run.json.new" "$r/run.json" && "$RR" "$r" >/dev/null || return 1
	[[ $(col "$r/rebuild.csv" $REB spec) == "no spec: kingston-dc3000me-3.84t has no seq_write_mbps" &&
		-z $(col "$r/rebuild.csv" $REB of_spec) ]]
}
t_case "a drive without a write spec: no spec, said" no_spec
t_done
