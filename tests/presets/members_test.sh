#!/usr/bin/env bash
# tests/presets/members_test.sh: the member files run.sh makes are written in full, not
# fallocated: on ext4 an unwritten extent reads as zeros without I/O (RAID5 SEQ1M read ~10x a
# written file's MB/s here), so a read test over what the write test before it did not reach
# in its runtime measured the filesystem, by how far the write got (README "Spread", issue 43
# point 4). Checked on a disk-backed directory (FIEMAP: filefrag lists unwritten extents) with
# a read test only, so nothing but run.sh has written the files; and run.json names the
# member directory's filesystem (scratch_fs), which moves figures tenfold (tmpfs or disk).
source "$(dirname "$0")/../lib.sh"
RUN=$ROOT/run.sh
D=$(mktemp -d "${MEMBERS_TEST_DIR:-/var/tmp}/fio-raid-members-test.XXXXXX")
trap 'rm -rf "$D"' EXIT
filefrag -v "$D" >/dev/null 2>&1 || t_skip "filefrag cannot map files in ${D%/*} (no FIEMAP)"
fallocate -l 1M "$D/probe" && filefrag -v "$D/probe" | grep -q unwritten ||
	t_skip "${D%/*} has no unwritten extents to tell apart (fallocate writes there)"
rm -f "$D/probe"

t_case "a read-only run on fresh member files" "$RUN" quick --no-build --no-report --scale 0.03 \
	--repeat 1 --runtime 1 --member-size 32M --scratch "$D" --out "$T_SCRATCH/res" \
	--only '^raid5-4m-RND4K-Q1T64-randread$'
unwritten() {
	local f n=0
	for f in "$D"/raid5-4m/bay*; do
		[[ $(stat -c %s "$f") == 33554432 ]] || { echo "$f: $(stat -c %s "$f") bytes"; return 1; }
		filefrag -v "$f" | grep unwritten && n=$((n + 1))
	done
	echo "$(ls "$D"/raid5-4m/bay* | wc -l) members, $n with unwritten extents"
	((n == 0)) && [[ -e $D/raid5-4m/bay3 ]]
}
t_case "the member files have no unwritten extents" unwritten
R=$(ls -d "$T_SCRATCH"/res/*-quick | head -1)
t_case "run.json names the member directory's filesystem" bash -c \
	"[[ \$(jget '$R/run.json' scratch_fs) == \$(df --output=fstype '$D' | tail -1) && -n \$(jget '$R/run.json' scratch_fs) ]]"
t_done
