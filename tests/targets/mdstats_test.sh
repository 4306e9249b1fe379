#!/usr/bin/env bash
# tests/targets/mdstats_test.sh: raid-mdstats, md's figures in C (tools/run/mdstats). Without
# md: a made-up watch log and fio per-second logs give exact rebuild figures (the engine's
# formula, raid_rate_of: MB/s and minutes per TB) and samples binned and phased as the
# engine's; a rebuild md never ended says done false; the transfers' rate and md's resync
# time from its kernel log. md_test.sh runs it on a real array.
source "$(dirname "$0")/../lib.sh"
M=$ROOT/build/bin/raid-mdstats
W=$T_SCRATCH/watch L=$T_SCRATCH/fio OUT=$T_SCRATCH/stats.json
ZERO="0 0 0 0 0 0 0 0"

# fio started at t=1000, the spare added at 1002.5, md done at 1011 (8.5 s) over 2,000,000
# sectors (1.024 GB): 120.47 MB/s, 8.5 s / 60 / 0.001024 TB = 138.35 min/TB
{
	echo "1001.2 1000 2000000 50000"
	echo "1005.0 900000 2000000 51000"
	echo "1011.0 idle"
} >"$W"
# fio's averaged logs (msec, value, direction, bs, offset): seconds 1..13, 4 KiB blocks;
# two entries in second 2 (its iops summed, its latency averaged); second k is "before"
# while k < start_s, "during" up to end_s (as the engine's)
: >"${L}_iops.log"
: >"${L}_clat.log"
for s in $(seq 1 13); do
	echo "$((s * 1000)), $((100 * s)), 0, 0, 0" >>"${L}_iops.log"
	echo "$((s * 1000)), $((2000 * s)), 0, 0, 0" >>"${L}_clat.log"
done
echo "1500, 50, 1, 0, 0" >>"${L}_iops.log"
echo "1500, 8000, 1, 0, 0" >>"${L}_clat.log"

write() { # STATE -> OUT from the made-up logs
	"$M" write /dev/no-such-md "$OUT" "$ZERO" "$1" n2 rebuild "$W" 1000 1002.5 1000 /m/spare0 "$L" 4096
}
rebuild_figures() {
	write rebuilding || return 1
	jq -c .rebuild "$OUT"
	[[ $(jq -c '.rebuild | [.start_s, .end_s, .bytes, .mbps, .min_per_tb, .wait_s, .done, .members, .spare]' "$OUT") == \
		'[2.5,11,1024000000,120.47,138.35,11,true,[0],"/m/spare0"]' ]]
}
t_case "rebuild: start, end, bytes from md's watch log; MB/s and min/TB by the engine's formula" rebuild_figures

samples() {
	write rebuilding || return 1
	jq -c '.rebuild.samples[1,2,12]' "$OUT"
	[[ $(jq '.rebuild.samples | length' "$OUT") == 13 &&
		$(jq -c '.rebuild.samples[1]' "$OUT") == '{"t":2,"phase":"before","iops":250,"mbps":1.024,"lat_mean_us":6}' &&
		$(jq -r '[.rebuild.samples[].phase] | join(",")' "$OUT") == before,before,during,during,during,during,during,during,during,during,during,after,after ]]
}
t_case "samples: fio's logs binned by second, phased against md's rebuild" samples

not_done() {
	head -2 "$W" >"$W.cut"
	"$M" write /dev/no-such-md "$OUT" "$ZERO" rebuilding n2 rebuild "$W.cut" 1000 1001 1000 /m/spare0 "$L" 4096 ||
		return 1
	[[ $(jq .rebuild.done "$OUT") == false && $(jq .rebuild.bytes "$OUT") == 1024000000 ]]
}
t_case "no idle line: the rebuild is not done (the array went away first)" not_done

optimal() {
	"$M" write /dev/no-such-md "$OUT" "$ZERO" optimal "" || return 1
	jq -c . "$OUT"
	[[ $(jq -c '[.target, .state, .rebuild, .volume.reads, .member_io.source]' "$OUT") == \
		'["md","optimal",null,0,"/sys/block/*/stat of the array and its members"]' ]]
}
t_case "an optimal test: the counters' difference and no rebuild" optimal
t_case_fail "a snapshot that is not 8 counters is refused" --msg "not 8 counters" \
	"$M" write /dev/no-such-md "$OUT" "1 2 3" optimal ""
t_case "rate: MB/s of the transfers" bash -c "[[ \$('$M' rate 500000000 10 12.5) == 200.0 ]]"

resync() {
	local got
	got=$(printf '%s\n' '[  10.500000] md: resync of RAID array md121' '[  11.0] md: md121: resync done.' \
		'[  20.250000] md: resync of RAID array md120' '[  22.750000] md: md120: resync done.' |
		"$M" resync 100 109.5 /dev/md120 | paste -sd'|')
	echo "$got"
	[[ $got == "2.500|md's kernel log (resync of RAID array .. resync done)|9.500" ]] || return 1
	got=$("$M" resync 100 109.5 /dev/md120 </dev/null | paste -sd'|')
	[[ $got == "9.500|resync_start and sync_action polled every 20 ms from mdadm --assemble|9.500" ]]
}
t_case "resync: md's own time from its kernel log, else the polled time" resync
t_done
