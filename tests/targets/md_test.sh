#!/usr/bin/env bash
# tests/targets/md_test.sh: the md target end to end, on a kernel with md (in the md appliance
# where the host has none: tools/mdvm, TCG here; skipped with one line where neither can be
# had). Kept small for CI's 2 cores: a few tests of the quick preset, 1 s each.
#   - ./run.sh quick --target engine,md (RAID5 4K random writes, RAID6 1M
#     sequential writes): every test ran on both, md's on /dev/mdN with md's member I/O
#     counts, host CPU in every meta.json, the kernel md ran on in run.json and md's
#     meta.json, and the report sets them side by side;
#   - RAID1 on md, optimal and degraded (member 0 missing);
#   - a rebuild on md: time and rate from md into the engine's rebuild fields;
#   - md with an internal bitmap (RAID1) and with ppl (RAID5), as md reports them;
#   - md's resync after an unclean stop (run/recovery.sh), without and with a bitmap;
#   - SIGINT during an md test: no array, no loop device, no md setting left behind.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
MDVM=$ROOT/tools/mdvm/mdvm
where=$("$MDVM" check 2>"$T_SCRATCH/check.err")
[[ $? -eq 77 ]] && t_skip "md target: $where $(tail -1 "$T_SCRATCH/check.err")"
echo "$where"
S=$(mktemp -d "${TMPDIR:-/var/tmp}/fio-raid-mdtest.XXXXXX")
trap 'rm -rf "$S" "$T_SCRATCH"' EXIT
OUT=$S/results

t_case "quick --target engine,md runs (RAID5 4K random write, RAID6 1M write)" \
	env TMPDIR="$S" "$RUN" quick --repeat 1 --target engine,md --only 'raid(5-4m-RND4K-Q32T64|6-4m-SEQ1M-Q8T64-write)' \
	--no-build --scale 0.03 --runtime 1 --member-size 32M --out "$OUT"
cat "$T_OUT"
R=$(ls -d "$OUT"/*-quick 2>/dev/null | head -1)
both() {
	local t m
	for t in raid5-4m-RND4K-Q32T64-randwrite raid6-4m-SEQ1M-Q8T64-write; do
		for m in "$R/tests/$t.meta.json" "$R/tests/md-$t.meta.json"; do
			[[ $(jget "$m" status) == ok ]] || { cat "$m"; return 1; }
			jget "$m" host_cpu.interval_s >/dev/null || return 1
		done
		[[ $(jget "$R/tests/md-$t.meta.json" target) == md &&
			$(jget "$R/tests/md-$t.meta.json" device) == /dev/md* &&
			$(jget "$R/tests/md-$t.stats.json" member_io.writes) -gt 0 &&
			$(jget "$R/tests/md-$t.stats.json" md.stripe_cache_size) -gt 0 ]] || return 1
	done
	[[ $(ls "$R"/tests/*.meta.json | wc -l) == 4 ]]
}
t_case "each test ran on the engine and on md (md-*: /dev/mdN, member I/Os, md's settings)" both
t_case "run.json says where md came from" bash -c "jget '$R/run.json' md.where | grep -q ."
t_case "md's results name the kernel md ran on (run.json md.kernel, each md test's meta.json)" bash -c \
	"k=\$(jget '$R/run.json' md.kernel) && [[ \$k == [0-9]*.[0-9]* ]] &&
	 [[ \$(jget '$R/tests/md-raid5-4m-RND4K-Q32T64-randwrite.meta.json' kernel) == \"\$k\" ]]"
t_case "the report sets engine and md side by side" bash -c \
	"grep -q id=targets '$R/index.html' && [[ -s '$R/charts/targets_iops.png' ]] &&
	 v=\$(awk -F, 'NR == 1 { for (i = 1; i <= NF; i++) n[\$i] = i; next } \$2 == \"raid5-4m-RND4K-Q32T64-randwrite\" { print \$(n[\"vs_md\"]) }' '$R/summary.csv') &&
	 if jget '$R/run.json' md.where | grep -q tcg; then
		# under emulation no plain ratio (docs/report.md): the page says why
		[[ -z \$v ]] && grep -q 'emulated, not comparable' '$R/index.html'
	 else awk -v v=\"\$v\" 'BEGIN { exit !(v > 0) }'; fi"
t_case "the member files are gone and no loop device is left on them" bash -c \
	"! ls -d '$S'/fio-raid-scratch.* 2>/dev/null && ! losetup -a | grep -q '$S'"

# one more boot (or the host) for the rebuild and the interrupted run
"$MDVM" exec --rw "$S" -- bash "$ROOT/tests/targets/md_guest.sh" "$S" >"$S/guest.log" 2>&1
cat "$S/guest.log" "$S"/*.log 2>/dev/null | tail -40
rebuilt() {
	local st
	st=$(ls "$S"/rebuild/*/tests/md-raid5-4m-REBUILD-6.4TB-read-rebuilding.stats.json) || return 1
	cat "$st"
	[[ $(cat "$S/rebuild.rc") == 0 ]] &&
		awk -v b="$(jget "$st" rebuild.bytes)" -v m="$(jget "$st" rebuild.mbps)" \
			-v s="$(jget "$st" rebuild.start_s)" -v e="$(jget "$st" rebuild.end_s)" \
			'BEGIN { exit !(b > 30e6 && m > 0 && e > s && (b / 1e6 / (e - s) - m) ^ 2 < 0.01 * m * m) }' &&
		[[ $(jget "$st" md.stripe_cache_size) == 512 && $(jget "$st" md.sync_speed_max) == 10000 &&
			$(jget "$st" rebuild.done) == true ]] &&
		# fio's own per-second foreground figures while md rebuilt (MB/s from the block size)
		jq -e '[.rebuild.samples[] | select(.phase == "during" and .iops > 0 and .mbps > 0)] | length > 0' \
			"$st" >/dev/null
}
t_case "a rebuild on md: member 0 missing, the spare added, md's time, rate and samples in the stats" rebuilt
raid1() { # STATE DEGRADED: md's RAID1 over 2 members ran the QD1 write test in STATE
	local id=md-raid1-2m-RND4K-WRITE-LAT-randwrite$([[ $1 == optimal ]] || echo "-$1") st m
	m=$(ls "$S"/rebuild/*/tests/$id.meta.json) && st=${m%.meta.json}.stats.json || return 1
	cat "$st"
	[[ $(jget "$m" status) == ok && $(jget "$m" state) == "$1" &&
		$(jget "$st" level) == 1 && $(jget "$st" members) == 2 &&
		$(jget "$st" md.degraded) == "$2" && $(jget "$st" member_io.writes) -gt 0 ]]
}
resynced() { # POLICY: md's resync after an unclean stop (run/recovery.sh's crash image)
	local id=md-raid5-4m-RESYNC-randwrite-resync$([[ $1 == resync ]] || echo -bitmap) st
	st=$(ls "$S"/rebuild/*/tests/$id.stats.json) || return 1
	cat "$st"
	jq -e --arg p "$1" '.consistency.policy == $p and .resync.seconds > 0 and
		.resync.bytes > 30e6 and .resync.last_sync_action == "resync"' "$st" >/dev/null || return 1
	# the bitmap's image holds the regions being written (1/64 of the volume): some, not all
	[[ $1 == resync ]] ||
		jq -e '.consistency.bitmap_dirty > 0 and .consistency.bitmap_dirty < .consistency.bitmap_bits' "$st"
}
t_case "md's resync after an unclean stop, full: its time from md, of every member" resynced resync
t_case "md's resync with --bitmap=internal: the image's dirty regions, fewer than all" resynced bitmap
t_case "RAID1 on md, optimal: both members, md.degraded 0" raid1 optimal 0
t_case "RAID1 on md, degraded: member 0 missing, md.degraded 1" raid1 degraded 1
policy() { # DIR TEST BITMAP CONSISTENCY MD_POLICY: what md ran with, in the stats and meta.json
	local m st
	m=$(ls "$S"/$1/*/tests/$2.meta.json) && st=${m%.meta.json}.stats.json || return 1
	echo "$(jq -c '{status, md_bitmap, md_consistency}' "$m") stats: $(jq -c '.md' "$st")"
	[[ $(cat "$S/$1.rc") == 0 && $(jget "$m" status) == ok && $(jget "$m" md_bitmap) == "$3" &&
		$(jget "$m" md_consistency) == "$4" && $(jget "$st" md.consistency_policy) == "$5" ]] &&
		grep -q -- "--bitmap=$3" "$S"/$1/*/logs/md-*.log
}
t_case "--md-bitmap internal: md's RAID1 ran with a bitmap (consistency_policy bitmap)" \
	policy bitmap md-raid1-2m-RND4K-WRITE-LAT-randwrite internal resync bitmap
t_case "--md-consistency ppl: md's RAID5 ran with a partial parity log" \
	policy ppl md-raid5-4m-RND4K-Q32T64-randwrite none ppl ppl
t_case "SIGINT: the run stops with 130" bash -c "[[ \$(cat '$S/sigint.rc') == 130 ]]"
# what the next case looks for is there while the run is: it can fail
t_case "SIGINT: the array and its loop devices existed while fio ran, with the settings asked" bash -c \
	"grep -q 'active raid6' '$S/sigint.during' && grep -q fio-raid-scratch '$S/sigint.during' &&
	 grep -qx 'md[0-9]* 1024 1' '$S/sigint.during'"
t_case "SIGINT: no array, no loop device, no md setting left behind" bash -c \
	"! grep -q fio-raid-scratch '$S/sigint.after' &&
	 diff <(sed -n '/--- md devices/,\$p' '$S/sigint.before') <(sed -n '/--- md devices/,\$p' '$S/sigint.after')"
t_done
