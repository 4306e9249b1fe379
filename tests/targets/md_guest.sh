#!/usr/bin/env bash
# tests/targets/md_guest.sh OUT: the part of tests/targets/md_test.sh that runs on a kernel
# with md (inside the md appliance here, or on the host where it has md), in one boot:
#   1. ./run.sh rebuild --target md on RAID1's QD1 write test, optimal and degraded (member 0
#      missing), RAID5's rebuild-time test: md rebuilds onto the spare, and RAID5's resync
#      after an unclean stop (a crash image), without a bitmap and with one
#   1b. the same RAID1 test with --md-bitmap internal, RAID5's 4K writes with ppl
#   2. ./run.sh quick --target md interrupted by SIGINT while fio runs on an md array;
#      what md, losetup and /proc/sys/dev/raid show before and after goes to OUT/sigint.*
# Everything goes to files in OUT; md_test.sh judges them.
out=$1
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT" || exit 1
common=(--no-build --no-report --scale 0.03 --member-size 32M)

# 1. RAID1 optimal and degraded; a rebuild on md, its time and rate from sync_completed. md
#    syncs at 10 MB/s at most, so the 32 MiB rebuild lasts about 3 s: at 20 it took 1.9 s under
#    TCG, and fio's one second during it had done no I/O yet (a CI run failed on that)
env TMPDIR=/tmp "$ROOT/run.sh" rebuild --target md --runtime 1 \
	--only '^md-raid1-2m-RND4K-WRITE-LAT-randwrite(-degraded)?$|^md-raid5-4m-REBUILD|^md-raid5-4m-RESYNC' \
	--md-sync-max 10 --md-stripe-cache 512 "${common[@]}" --out "$out/rebuild" >"$out/rebuild.log" 2>&1
echo $? >"$out/rebuild.rc"

# 1b. md as the reviews ran it (issue 33, point 6): RAID1 with an internal write-intent
#     bitmap, RAID5 with a partial parity log; md's own consistency_policy goes to the stats
env TMPDIR=/tmp "$ROOT/run.sh" rebuild --target md --runtime 1 --md-bitmap internal \
	--only '^md-raid1-2m-RND4K-WRITE-LAT-randwrite$' "${common[@]}" --out "$out/bitmap" >"$out/bitmap.log" 2>&1
echo $? >"$out/bitmap.rc"
env TMPDIR=/tmp "$ROOT/run.sh" quick --target md --runtime 1 --repeat 1 --md-consistency ppl \
	--only '^md-raid5-4m-RND4K-Q32T64-randwrite$' "${common[@]}" --out "$out/ppl" >"$out/ppl.log" 2>&1
echo $? >"$out/ppl.rc"

# 2. SIGINT in the middle of an md test
state() { # what this run could leave behind
	cat /proc/mdstat
	echo "--- loops"
	losetup -a
	echo "--- md devices"
	for d in /sys/block/md*; do
		[[ -e $d/md ]] && echo "${d##*/} $(cat "$d/md/stripe_cache_size" "$d/md/group_thread_cnt" 2>/dev/null | paste -sd' ')"
	done
	echo "--- limits"
	cat /proc/sys/dev/raid/speed_limit_min /proc/sys/dev/raid/speed_limit_max
}
state >"$out/sigint.before"
# job control: the run gets its own process group and does not ignore SIGINT, as a run
# started from a terminal; the Ctrl-C goes to that whole group, as the terminal's does
set -m
env TMPDIR=/tmp "$ROOT/run.sh" quick --repeat 1 --target md --only '^md-raid6-4m-RND4K-Q32T64' --runtime 30 \
	--md-stripe-cache 1024 --md-threads 1 --md-sync-min 5 "${common[@]}" --out "$out/sigint" \
	>"$out/sigint.log" 2>&1 &
pid=$!
# wait until fio runs on the array (its command file is written just before it starts)
for ((i = 0; i < 600; i++)); do
	ls "$out"/sigint/*/logs/md-raid6-4m-RND4K-Q32T64-randwrite.cmd >/dev/null 2>&1 &&
		grep -q active /proc/mdstat && pgrep -x fio >/dev/null && break
	sleep 0.2
done
sleep 2
state >"$out/sigint.during"
kill -INT -- "-$pid"
wait "$pid"
echo $? >"$out/sigint.rc"
state >"$out/sigint.after"
