#!/usr/bin/env bash
# tests/presets/resync_test.sh: the rebuild preset's resync tests for real on member files
# (run/recovery.sh): RAID5 x4 of 32 MiB members written by fio, fio killed with SIGKILL (the
# state file left dirty), then the test's fio, whose start resyncs every member (the
# engine's stats: resync.bytes = the member size); the bitmap's test runs when the engine has
# raid_bitmap (then it resyncs less than the full one), else is skipped with one line.
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
OUT=$T_SCRATCH/res
mkdir -p "$T_SCRATCH/m"
"$RUN" rebuild --only 'raid5-4m-RESYNC' --scale 0.03 --runtime 2 --no-build --no-report \
	--out "$OUT" --scratch "$T_SCRATCH/m" >"$T_SCRATCH/out" 2>&1
R=$(ls -d "$OUT"/*-rebuild)
T=raid5-4m-RESYNC-randwrite-resync
cat "$T_SCRATCH/out"

t_case "the resync test ran" jq -e '.status == "ok"' "$R/tests/$T.meta.json"
t_case "fio was killed with SIGKILL while writing" grep -q 'fio killed with SIGKILL' "$R/logs/$T.crash.log"
t_case "the next start found the array dirty and resynced it" \
	grep -q 'was not shut down cleanly (writes were running): resyncing' "$R/logs/$T.log"
full() { # the dirty mark's resync covers every member whole
	local msize
	msize=$(jq .member_size "$R/run.json")
	jq -e --argjson m "$msize" '.resync.bytes == $m and .resync.seconds > 0' "$R/tests/$T.stats.json"
}
t_case "the full resync: every member's bytes, its time in the stats" full
t_case "the state file is clean after the test" grep -q '"clean": *true' "$T_SCRATCH/m/raid5-4m/resync-state.json"
bitmap() {
	local b=$R/tests/$T-bitmap
	if ! "$ROOT/build/bin/raid-tool" options | grep -q '^raid_bitmap '; then
		grep -q "skip  $T-bitmap: the engine has no raid_bitmap option" "$T_SCRATCH/out" &&
			jq -e '.status == "skipped"' "$b.meta.json"
		return
	fi
	jq -e '.status == "ok"' "$b.meta.json" &&
		jq -e --slurpfile f "$R/tests/$T.stats.json" '.consistency.policy == "bitmap" and
			.resync.bytes < $f[0].resync.bytes' "$b.stats.json"
}
t_case "the bitmap's test: run with less to resync, or skipped in one line" bitmap
t_done
